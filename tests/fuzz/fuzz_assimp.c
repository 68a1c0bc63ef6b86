/* libFuzzer target: sinew_mesh_read_assimp (our PLY pre-check, assimp, the
 * gathering of its meshes and our welding) on arbitrary bytes.
 *
 * The reader takes a path, so each input is written to a file in a directory
 * of this process's own (parallel jobs do not collide, and a glTF file's
 * relative buffer URIs find nothing there). The build compiles this file once
 * per format, FUZZ_FORMAT being "ply", "stl" or "gltf"; for glTF the extension
 * follows the content, .glb for a binary file (magic "glTF"), else .gltf.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FUZZ_FORMAT
#error "FUZZ_FORMAT must name the format: \"ply\", \"stl\" or \"gltf\""
#endif

static char dir[64];

static void remove_dir(void)
{
    static const char *const ext[] = {"ply", "stl", "gltf", "glb"};
    char path[96];
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        snprintf(path, sizeof path, "%s/input.%s", dir, ext[i]);
        remove(path);
    }
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/sinew-fuzz-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz_assimp: mkdtemp");
        exit(1);
    }
    atexit(remove_dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *ext = FUZZ_FORMAT;
    if (strcmp(ext, "gltf") == 0 && size >= 4 && memcmp(data, "glTF", 4) == 0)
        ext = "glb";
    char path[96];
    snprintf(path, sizeof path, "%s/input.%s", dir, ext);
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0);

    sinew_mesh m;
    sinew_result r = sinew_mesh_read_assimp(path, &fuzz_logger, &m);
    fuzz_check_mesh(r, &m);
    sinew_mesh_free(&m);
    return 0;
}
