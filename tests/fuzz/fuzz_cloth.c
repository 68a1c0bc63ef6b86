/* libFuzzer target: the whole offline path on arbitrary OBJ text, as
 * sinew-prep runs it: read the mesh, build the cloth (degenerate faces and
 * stray vertices dropped, constraints, masses, pins, colouring), serialise the
 * asset and load it back. A mesh the builder accepts must give an asset the
 * writer writes and the loader loads: the builder may refuse, the others not.
 *
 * The options come from the input's length (trailing blanks change nothing
 * else): bit 0 picks greedy colouring, bit 1 drops shear, bit 2 drops bending.
 * Vertex 0 and the top tenth of the mesh are pinned.
 */
#include "fuzz_common.h"

#include "prep/cloth.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_mesh m;
    if (sinew_mesh_read_obj_memory((const char *)data, size, "fuzz.obj", &fuzz_logger, &m) != SINEW_RESULT_OK)
        return 0;
    static const uint32_t pins[1] = {0};
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.colouring = size & 1 ? SINEW_COLOURING_GREEDY : SINEW_COLOURING_BALANCED;
    opt.shear = !(size & 2);
    opt.bending = !(size & 4);
    opt.pin_indices = pins;
    opt.pin_count = 1;
    opt.pin_top = 0.1;
    opt.source_name = "fuzz.obj";
    sinew_asset *a = NULL;
    sinew_cloth_report report;
    sinew_result r = sinew_cloth_build(&m, &opt, &fuzz_logger, &a, &report);
    sinew_mesh_free(&m);
    FUZZ_CHECK((r == SINEW_RESULT_OK) == (a != NULL));
    /* INVALID_ARGUMENT: pin_top would pin every particle of this mesh. */
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_MESH || r == SINEW_RESULT_ERROR_LIMIT ||
               r == SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    if (!a)
        return 0;

    void *bytes = NULL;
    size_t bytes_size = 0;
    FUZZ_CHECK(sinew_asset_serialize(a, &bytes, &bytes_size, &fuzz_logger) == SINEW_RESULT_OK);
    sinew_asset *b = NULL;
    FUZZ_CHECK(sinew_asset_load_memory(bytes, bytes_size, "fuzz.snw", &fuzz_logger, &b) == SINEW_RESULT_OK);
    sinew_asset_info info = sinew_asset_get_info(b);
    FUZZ_CHECK(info.triangle_count > 0 && info.colour_count == report.colour_count);
    FUZZ_CHECK(info.distance_count == report.stretch_count + report.shear_count);
    FUZZ_CHECK(info.bend_count == report.bend_count);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
    return 0;
}
