/* Mesh readers, writer and grid generator: formats read as exporters write
 * them, every kind of malformed input refused with its file, line and problem,
 * and random corruptions never crash. With assimp: PLY, STL and glTF written
 * here, quads kept, seams welded, and PLY's structure checked before assimp
 * sees it. */
#include <criterion/criterion.h>

#include "prep/mesh.h"
#ifdef SINEW_HAVE_ASSIMP
#include "prep/cloth.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records every message so tests can check what the reader reported. */
typedef struct capture {
    char text[4096];
    int errors;
} capture;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    c->errors += level == SINEW_LOG_ERROR;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s\n", message);
}

static sinew_logger capture_logger(capture *c)
{
    memset(c, 0, sizeof *c);
    return (sinew_logger){capture_fn, c, SINEW_LOG_DEBUG};
}

static void ignore(void *user, sinew_log_level level, const char *id, const char *message) {}

/* For inputs whose failure is expected and not under test. */
static const sinew_logger quiet = {ignore, NULL, SINEW_LOG_ERROR};

static uint32_t face_size(const sinew_mesh *m, uint32_t f)
{
    return m->face_offsets[f + 1] - m->face_offsets[f];
}

static const uint32_t *face(const sinew_mesh *m, uint32_t f)
{
    return m->face_indices + m->face_offsets[f];
}

Test(obj, quads_slashes_negative_indices)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/quad.obj", &lg, &m), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(m.vertex_count, 6);
    cr_assert_eq(m.face_count, 2);
    cr_assert_eq(face_size(&m, 0), 4);
    cr_assert_eq(face_size(&m, 1), 4);
    const uint32_t f0[4] = {0, 1, 2, 3}, f1[4] = {1, 4, 5, 2};
    cr_assert_arr_eq(face(&m, 0), f0, sizeof f0);
    cr_assert_arr_eq(face(&m, 1), f1, sizeof f1);
    cr_assert_eq(m.positions[3 * 5 + 0], 2.0);
    cr_assert_eq(m.positions[3 * 5 + 1], 1.0);
    /* The l record is skipped, and said so at debug level. */
    cr_assert(strstr(c.text, "line 18"), "%s", c.text);
    cr_assert_eq(c.errors, 0);
    sinew_mesh_free(&m);
}

/* The buffer ends exactly at the last digit: no NUL, no newline after it. */
Test(obj, text_without_terminator)
{
    const char src[] = "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3";
    size_t n = sizeof src - 1;
    char *text = malloc(n);
    memcpy(text, src, n);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read_obj_memory(text, n, "crlf.obj", NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.vertex_count, 3);
    cr_assert_eq(m.face_count, 1);
    cr_assert_eq(face(&m, 0)[2], 2);
    sinew_mesh_free(&m);
    free(text);
}

Test(off, comments_and_colours)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/coloured.off", &lg, &m), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(m.vertex_count, 4);
    cr_assert_eq(m.face_count, 2);
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    cr_assert_arr_eq(m.face_indices, idx, sizeof idx);
    cr_assert_eq(m.positions[3 * 3 + 1], 1.0);
    sinew_mesh_free(&m);
}

Test(off, counts_on_header_line)
{
    const char text[] = "OFF 3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read_off_memory(text, sizeof text - 1, "inline.off", NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.vertex_count, 3);
    cr_assert_eq(m.face_count, 1);
    sinew_mesh_free(&m);
}

/* A malformed input must fail with BAD_MESH and a message containing `expect`. */
static void expect_bad(int off, const char *text, const char *expect)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    sinew_result r = off ? sinew_mesh_read_off_memory(text, strlen(text), "t", &lg, &m)
                         : sinew_mesh_read_obj_memory(text, strlen(text), "t", &lg, &m);
    cr_expect_eq(r, SINEW_RESULT_ERROR_BAD_MESH, "input: %s", text);
    cr_expect(strstr(c.text, expect), "expected '%s' in: %s", expect, c.text);
    cr_expect_eq(m.positions, NULL);
    cr_expect_eq(m.face_indices, NULL);
}

Test(obj, malformed_inputs_rejected_with_line)
{
    const char *tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    char buf[256];
    snprintf(buf, sizeof buf, "%sf 1 2 0\n", tri);
    expect_bad(0, buf, "t:4: vertex index 0 out of range");
    snprintf(buf, sizeof buf, "%sf 1 -2 -4\n", tri);
    expect_bad(0, buf, "t:4: vertex index -4 out of range");
    snprintf(buf, sizeof buf, "%sf 1 2\n", tri);
    expect_bad(0, buf, "t:4: face has 2 vertices");
    snprintf(buf, sizeof buf, "%sf 1 2 99999999999999999999999\n", tri);
    expect_bad(0, buf, "t:4: vertex index");
    snprintf(buf, sizeof buf, "%sf 1 2 3x\n", tri);
    expect_bad(0, buf, "t:4: malformed face vertex '3x'");
    snprintf(buf, sizeof buf, "%sf 1 2 3/a/1\n", tri);
    expect_bad(0, buf, "t:4: malformed face vertex");
    expect_bad(0, "v 0 0 0\nv 1 nan 0\n", "t:2: non-finite coordinate 'nan'");
    expect_bad(0, "v 0 0 0\nv 1 1e999 0\n", "t:2: non-finite coordinate");
    expect_bad(0, "v 0 0 0\n\nv 1 2,5 0\n", "t:3: malformed number '2,5'");
    expect_bad(0, "v 0 0\n", "t:1: vertex has 2 coordinates");
    expect_bad(0, "# nothing\n", "t: no vertices");
    expect_bad(0, tri, "t: no faces");
    /* Positive indices may point forward; the check happens at the end. */
    snprintf(buf, sizeof buf, "%sf 1 2 3\nf 1 2 4\nv 1 1 0\nf 1 2 5\n", tri);
    expect_bad(0, buf, "t:7: vertex index 5 out of range (file has 4 vertices)");
}

Test(obj, bad_index_file_names_file_and_line)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/bad_index.obj", &lg, &m), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "bad_index.obj:5: vertex index 5 out of range"), "%s", c.text);
}

Test(off, malformed_inputs_rejected_with_face)
{
    const char *head = "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n";
    char buf[256];
    snprintf(buf, sizeof buf, "%s3 0 1 7\n", head);
    expect_bad(1, buf, "t:6: face 0: vertex index 7 out of range (3 vertices)");
    snprintf(buf, sizeof buf, "%s3 0 -1 2\n", head);
    expect_bad(1, buf, "face 0: vertex index -1 out of range");
    snprintf(buf, sizeof buf, "%s4 0 1 2\n", head);
    expect_bad(1, buf, "t:6: face 0 ends after 3 of 4 vertex indices");
    snprintf(buf, sizeof buf, "%s3 0 1.5 2\n", head);
    expect_bad(1, buf, "face 0: malformed number '1.5'");
    expect_bad(1, "OFF\n3 1 0\n0 0 0\n1 x 0\n", "t:4: vertex 1: malformed number 'x'");
    expect_bad(1, "OFF\n3 1 0\n0 0 0\n1 inf 0\n0 1 0\n3 0 1 2\n", "t:4: vertex 1 has a non-finite coordinate");
    expect_bad(1, "OFF\n100000000 1 0\n0 0 0\n", "do not fit the file");
    expect_bad(1, "OFF\n3 99999999999999 0\n", "do not fit the file");
    expect_bad(1, "OFF\n-3 1 0\n", "expected vertex and face counts");
    expect_bad(1, "OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n", "no faces");
    expect_bad(1, "4OFF\n3 1 0\n", "unsupported OFF variant '4OFF'");
    expect_bad(1, "# only a comment\n", "empty file");
    expect_bad(1, "OFF\n", "file ends before the vertex and face counts");
}

Test(off, bad_face_and_truncated_files)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/bad_face.off", &lg, &m), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "bad_face.off:8: face 1 has 2 vertices, needs at least 3"), "%s", c.text);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/truncated.off", &lg, &m), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "truncated.off:7: file ends after 1 of 2 faces"), "%s", c.text);
}

Test(mesh, missing_file_names_path_and_reason)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/no_such_mesh.obj", &lg, &m), SINEW_RESULT_ERROR_IO);
    cr_assert(strstr(c.text, "no_such_mesh.obj: cannot open: No such file or directory"), "%s", c.text);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot create %s", path);
    fputs(text, f);
    fclose(f);
}

/* Without a known extension the content decides; with one, the extension does. */
Test(mesh, format_from_extension_or_content)
{
    const char *off = "# leading comment\n  OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    const char *obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    const char *paths[] = {SINEW_TEST_OUT_DIR "/sniffed_off", SINEW_TEST_OUT_DIR "/sniffed_obj",
                           SINEW_TEST_OUT_DIR "/UPPER.OFF"};
    const char *texts[] = {off, obj, off};
    for (int i = 0; i < 3; i++) {
        write_text(paths[i], texts[i]);
        sinew_mesh m;
        cr_assert_eq(sinew_mesh_read(paths[i], NULL, &m), SINEW_RESULT_OK, "%s", paths[i]);
        cr_assert_eq(m.face_count, 1);
        sinew_mesh_free(&m);
    }
    /* OFF text under an .obj name is read as OBJ, which finds nothing in it. */
    write_text(SINEW_TEST_OUT_DIR "/misnamed.obj", off);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_OUT_DIR "/misnamed.obj", &quiet, &m),
                 SINEW_RESULT_ERROR_BAD_MESH);
}

Test(grid, counts_and_positions)
{
    const double origin[3] = {1.0, 2.0, 3.0};
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(4, 3, 3.0, 1.0, SINEW_GRID_XZ, origin, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.vertex_count, 12);
    cr_assert_eq(m.face_count, 6);
    for (uint32_t j = 0; j < 3; j++)
        for (uint32_t i = 0; i < 4; i++) {
            const double *p = m.positions + 3 * (j * 4 + i);
            cr_assert_float_eq(p[0], 1.0 + (i / 3.0 - 0.5) * 3.0, 1e-15);
            cr_assert_eq(p[1], 2.0);
            cr_assert_float_eq(p[2], 3.0 + (j / 2.0 - 0.5) * 1.0, 1e-15);
        }
    for (uint32_t f = 0; f < m.face_count; f++) {
        cr_assert_eq(face_size(&m, f), 4);
        /* Winding: the normal of every quad points to +y. */
        const uint32_t *q = face(&m, f);
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = m.positions[3 * q[1] + k] - m.positions[3 * q[0] + k];
            e2[k] = m.positions[3 * q[2] + k] - m.positions[3 * q[1] + k];
        }
        cr_assert_gt(e1[2] * e2[0] - e1[0] * e2[2], 0.0);
    }
    sinew_mesh_free(&m);

    cr_assert_eq(sinew_mesh_grid(2, 2, 1.0, 2.0, SINEW_GRID_XY, NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.positions[3 * 3 + 0], 0.5);
    cr_assert_eq(m.positions[3 * 3 + 1], 1.0);
    cr_assert_eq(m.positions[3 * 3 + 2], 0.0);
    sinew_mesh_free(&m);
}

Test(grid, invalid_arguments)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(1, 4, 1, 1, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sinew_mesh_grid(4, 4, 0, 1, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sinew_mesh_grid(4, 4, 1, NAN, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sinew_mesh_grid(4, 4, 1, INFINITY, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
}

/* Copies stacked in layers: positions moved by the step, indices and faces
 * repeated copy after copy, and the quads of each copy split the same way. */
Test(grid, stacked_layers)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(4, 3, 3.0, 1.0, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_OK);
    sinew_mesh one;
    cr_assert_eq(sinew_mesh_grid(4, 3, 3.0, 1.0, SINEW_GRID_XZ, NULL, &one), SINEW_RESULT_OK);
    const double step[3] = {0.25, 0.5, 0.0};
    cr_assert_eq(sinew_mesh_stack(&m, 3, step), SINEW_RESULT_OK);
    cr_assert_eq(m.vertex_count, 36);
    cr_assert_eq(m.face_count, 18);
    for (uint32_t l = 0; l < 3; l++) {
        for (uint32_t v = 0; v < 12; v++)
            for (int k = 0; k < 3; k++)
                cr_assert_eq(m.positions[3 * (12 * l + v) + k], one.positions[3 * v + k] + l * step[k]);
        for (uint32_t f = 0; f < 6; f++) {
            cr_assert_eq(face_size(&m, 6 * l + f), 4);
            for (int k = 0; k < 4; k++)
                cr_assert_eq(face(&m, 6 * l + f)[k], face(&one, f)[k] + 12 * l);
        }
    }
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_triangulate_quads(&one), SINEW_RESULT_OK);
    cr_assert_eq(m.face_count, 3 * one.face_count);
    for (uint32_t l = 0; l < 3; l++)
        for (uint32_t f = 0; f < one.face_count; f++)
            for (int k = 0; k < 3; k++)
                cr_assert_eq(face(&m, one.face_count * l + f)[k], face(&one, f)[k] + 12 * l);

    /* One layer is the mesh as it is; no layers, a step not finite, past the
     * vertex limit: refused, the mesh unchanged. */
    cr_assert_eq(sinew_mesh_stack(&one, 1, step), SINEW_RESULT_OK);
    cr_assert_eq(one.vertex_count, 12);
    cr_assert_eq(sinew_mesh_stack(&one, 0, step), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sinew_mesh_stack(&one, 2, (const double[3]){0, NAN, 0}), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    sinew_mesh huge = one;
    huge.vertex_count = 1u << 25;
    cr_assert_eq(sinew_mesh_stack(&huge, 3, step), SINEW_RESULT_ERROR_LIMIT);
    cr_assert_eq(huge.positions, one.positions);
    cr_assert_eq(one.vertex_count, 12);
    sinew_mesh_free(&m);
    sinew_mesh_free(&one);
}

Test(mesh, write_obj_round_trip)
{
    const double origin[3] = {0.1, -0.2, 0.3};
    sinew_mesh a, b;
    cr_assert_eq(sinew_mesh_grid(5, 4, 1.3, 0.7, SINEW_GRID_XY, origin, &a), SINEW_RESULT_OK);
    const char *path = SINEW_TEST_OUT_DIR "/round_trip.obj";
    cr_assert_eq(sinew_mesh_write_obj(path, a.positions, a.vertex_count, a.face_offsets, a.face_indices,
                                      a.face_count, NULL),
                 SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_read(path, NULL, &b), SINEW_RESULT_OK);
    cr_assert_eq(b.vertex_count, a.vertex_count);
    cr_assert_eq(b.face_count, a.face_count);
    cr_assert_arr_eq(b.positions, a.positions, sizeof(double) * 3 * a.vertex_count);
    cr_assert_arr_eq(b.face_offsets, a.face_offsets, sizeof(uint32_t) * (a.face_count + 1));
    cr_assert_arr_eq(b.face_indices, a.face_indices, sizeof(uint32_t) * 4 * a.face_count);
    sinew_mesh_free(&a);
    sinew_mesh_free(&b);
}

/* Debian's CGAL demo data (GPL/LGPL), found through SINEW_CGAL_DATA. */
Test(off, cgal_mask_cone)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        cr_skip_test("SINEW_CGAL_DATA is not set");
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/mask_cone.off", dir);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.vertex_count, 1230);
    cr_assert_eq(m.face_count, 2332);
    for (uint32_t f = 0; f < m.face_count; f++)
        cr_assert_eq(face_size(&m, f), 3);
    sinew_mesh_free(&m);
}

static uint32_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* Corrupt valid files byte by byte: every outcome is OK or BAD_MESH, and the
 * meshes that are accepted only index their own vertices. */
Test(mesh, random_corruptions_are_refused_or_consistent)
{
    const char *seeds[2] = {"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1/1 2/2 3/3 -1//1\nf 1 3 4\n",
                            "OFF\n4 2 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n4 0 1 2 3 255 0 0\n"};
    const char alphabet[] = "0123456789 \n#/-+.eEfvOFnax\t\r";
    uint64_t s = 12345;
    for (int iter = 0; iter < 20000; iter++) {
        int off = iter & 1;
        size_t n = strlen(seeds[off]);
        char *text = malloc(n + 8);
        memcpy(text, seeds[off], n);
        for (int k = lcg(&s) % 4; k >= 0; k--) {
            uint32_t op = lcg(&s) % 3, at = lcg(&s) % n;
            char ch = lcg(&s) % 8 == 0 ? (char)lcg(&s) : alphabet[lcg(&s) % (sizeof alphabet - 1)];
            if (op == 0)
                text[at] = ch;
            else if (op == 1 && n > 1)
                memmove(text + at, text + at + 1, --n - at);
            else {
                memmove(text + at + 1, text + at, n++ - at);
                text[at] = ch;
            }
        }
        sinew_mesh m;
        sinew_result r = off ? sinew_mesh_read_off_memory(text, n, "fuzz", &quiet, &m)
                             : sinew_mesh_read_obj_memory(text, n, "fuzz", &quiet, &m);
        cr_assert(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_MESH);
        if (r == SINEW_RESULT_OK) {
            cr_assert_gt(m.face_count, 0);
            for (uint32_t i = 0; i < m.face_offsets[m.face_count]; i++)
                cr_assert_lt(m.face_indices[i], m.vertex_count);
            for (uint32_t i = 0; i < 3 * m.vertex_count; i++)
                cr_assert(isfinite(m.positions[i]));
        }
        sinew_mesh_free(&m);
        free(text);
    }
}

/* ------------------------------------------------------------ other formats */

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, size, f), size);
    fclose(f);
}

#ifdef SINEW_HAVE_ASSIMP

static void expect_vertex(const sinew_mesh *m, uint32_t v, double x, double y, double z)
{
    const double *p = m->positions + 3 * (size_t)v;
    cr_expect(p[0] == x && p[1] == y && p[2] == z, "vertex %u is (%g %g %g), expected (%g %g %g)", v, p[0], p[1],
              p[2], x, y, z);
}

static const char two_triangles_stl[] =
    "solid two\n"
    "facet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n  vertex 0 1 0\n endloop\nendfacet\n"
    "facet normal 0 -0.447214 0.894427\n outer loop\n  vertex 1 0 0\n  vertex 1 1 0.5\n  vertex 0 1 0\n"
    " endloop\nendfacet\n"
    "endsolid two\n";

Test(assimp, ply_keeps_quad_and_triangle)
{
    const char *path = SINEW_TEST_OUT_DIR "/quad_tri.ply";
    write_text(path, "ply\nformat ascii 1.0\ncomment a quad and a triangle\nelement vertex 5\n"
                     "property float x\nproperty float y\nproperty float z\nelement face 2\n"
                     "property list uchar int vertex_indices\nend_header\n"
                     "0 0 0\n1 0 0\n1 1 0\n0 1 0\n2 0.5 0.25\n4 0 1 2 3\n3 1 4 2\n");
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, &lg, &m), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(m.vertex_count, 5);
    cr_assert_eq(m.face_count, 2);
    cr_assert_eq(face_size(&m, 0), 4, "the quad was split");
    cr_assert_eq(face_size(&m, 1), 3);
    const uint32_t f0[4] = {0, 1, 2, 3}, f1[3] = {1, 4, 2};
    cr_assert_arr_eq(face(&m, 0), f0, sizeof f0);
    cr_assert_arr_eq(face(&m, 1), f1, sizeof f1);
    expect_vertex(&m, 2, 1, 1, 0);
    expect_vertex(&m, 4, 2, 0.5, 0.25);
    cr_assert_eq(c.errors, 0);
    cr_assert_null(strstr(c.text, "welded"), "%s", c.text);
    sinew_mesh_free(&m);
}

/* STL stores each triangle's corners on their own, and these two triangles
 * have different normals: only welding by position joins the shared edge. */
Test(assimp, stl_corners_welded)
{
    const char *path = SINEW_TEST_OUT_DIR "/two.stl";
    write_text(path, two_triangles_stl);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, &lg, &m), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(m.vertex_count, 4);
    cr_assert_eq(m.face_count, 2);
    expect_vertex(&m, 0, 0, 0, 0);
    expect_vertex(&m, 1, 1, 0, 0);
    expect_vertex(&m, 2, 0, 1, 0);
    expect_vertex(&m, 3, 1, 1, 0.5);
    const uint32_t idx[6] = {0, 1, 2, 1, 3, 2};
    cr_assert_arr_eq(m.face_indices, idx, sizeof idx);
    cr_assert(strstr(c.text, "two.stl: welded 2 vertices"), "%s", c.text);
    sinew_mesh_free(&m);
}

/* Welded, the shared edge is one constraint: 5 stretch constraints, not 6. */
Test(assimp, stl_builds_one_cloth)
{
    const char *path = SINEW_TEST_OUT_DIR "/two_cloth.stl";
    write_text(path, two_triangles_stl);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, &quiet, &m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    sinew_asset *a = NULL;
    sinew_cloth_report rep;
    cr_assert_eq(sinew_cloth_build(&m, &opt, &quiet, &a, &rep), SINEW_RESULT_OK);
    cr_assert_eq(rep.stretch_count, 5);
    cr_assert_eq(rep.bend_count, 1);
    cr_assert_eq(a->particle_count, 4);
    sinew_asset_destroy(a);
    sinew_mesh_free(&m);
}

/* An OBJ whose shared corner has two UVs: assimp splits it, the weld joins it,
 * and the result is what sinew's own OBJ reader gives. */
Test(assimp, obj_uv_seam_welded)
{
    const char *path = SINEW_TEST_OUT_DIR "/seam.obj";
    write_text(path, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\n"
                     "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.5\n"
                     "f 1/1 2/2 3/3 4/4\nf 2/5 5/1 3/3\n");
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh a, b;
    cr_assert_eq(sinew_mesh_read_assimp(path, &lg, &a), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(sinew_mesh_read(path, NULL, &b), SINEW_RESULT_OK);
    cr_assert(strstr(c.text, "welded"), "%s", c.text);
    cr_assert_eq(a.vertex_count, b.vertex_count);
    cr_assert_eq(a.face_count, b.face_count);
    cr_assert_arr_eq(a.face_offsets, b.face_offsets, sizeof(uint32_t) * (b.face_count + 1));
    cr_assert_arr_eq(a.face_indices, b.face_indices, sizeof(uint32_t) * b.face_offsets[b.face_count]);
    cr_assert_arr_eq(a.positions, b.positions, sizeof(double) * 3 * b.vertex_count);
    sinew_mesh_free(&a);
    sinew_mesh_free(&b);
}

/* A quad (0,0,0) (1,0,0) (1,0,1) (0,0,1) as two triangles, indices then
 * positions: unsigned short[6] at offset 0, float[12] at offset 12. */
static void quad_buffer(unsigned char bin[60])
{
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1};
    for (int i = 0; i < 6; i++) {
        bin[2 * i] = (unsigned char)idx[i];
        bin[2 * i + 1] = (unsigned char)(idx[i] >> 8);
    }
    for (int i = 0; i < 12; i++) {
        uint32_t u;
        memcpy(&u, &pos[i], sizeof u);
        for (int k = 0; k < 4; k++)
            bin[12 + 4 * i + k] = (unsigned char)(u >> (8 * k));
    }
}

#define GLTF_QUAD_VIEWS                                                                                     \
    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":12},"                                   \
    "{\"buffer\":0,\"byteOffset\":12,\"byteLength\":48}],"                                                 \
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"},"              \
    "{\"bufferView\":1,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,0,1]}]"

/* The node's translation must reach the positions (PreTransformVertices). */
Test(assimp, gltf_embedded_buffer_and_node_transform)
{
    unsigned char bin[60];
    quad_buffer(bin);
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char data[81] = {0};
    for (int i = 0, o = 0; i < 60; i += 3) {
        uint32_t w = (uint32_t)bin[i] << 16 | (uint32_t)bin[i + 1] << 8 | bin[i + 2];
        for (int k = 3; k >= 0; k--)
            data[o++] = b64[(w >> (6 * k)) & 63];
    }
    char json[2048];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"mesh\":0,\"translation\":[0,2,0]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":1},\"indices\":0}]}],"
             "\"buffers\":[{\"byteLength\":60,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             GLTF_QUAD_VIEWS "}",
             data);
    const char *path = SINEW_TEST_OUT_DIR "/quad.gltf";
    write_text(path, json);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, &lg, &m), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(m.vertex_count, 4);
    cr_assert_eq(m.face_count, 2);
    expect_vertex(&m, 0, 0, 2, 0);
    expect_vertex(&m, 2, 1, 2, 1);
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    cr_assert_arr_eq(m.face_indices, idx, sizeof idx);
    sinew_mesh_free(&m);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

/* Binary glTF: the quad twice (two nodes) and its outline as lines. The lines
 * are skipped with a warning; their vertices, on the second quad's, are welded. */
Test(assimp, glb_instances_and_lines)
{
    const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1,2]}],"
        "\"nodes\":[{\"mesh\":0,\"translation\":[0,2,0]},{\"mesh\":0},{\"mesh\":1}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":1},\"indices\":0}]},"
        "{\"primitives\":[{\"attributes\":{\"POSITION\":1},\"mode\":1}]}],"
        "\"buffers\":[{\"byteLength\":60}]," GLTF_QUAD_VIEWS "}";
    uint32_t json_len = (uint32_t)(sizeof json - 1 + 3) & ~3u;
    uint32_t total = 12 + 8 + json_len + 8 + 60;
    unsigned char *glb = calloc(1, total);
    put32(glb, 0x46546C67); /* "glTF" */
    put32(glb + 4, 2);
    put32(glb + 8, total);
    put32(glb + 12, json_len);
    put32(glb + 16, 0x4E4F534A); /* "JSON" */
    memset(glb + 20, ' ', json_len);
    memcpy(glb + 20, json, sizeof json - 1);
    put32(glb + 20 + json_len, 60);
    put32(glb + 24 + json_len, 0x004E4942); /* "BIN\0" */
    quad_buffer(glb + 28 + json_len);
    const char *path = SINEW_TEST_OUT_DIR "/quads.glb";
    write_bytes(path, glb, total);
    free(glb);

    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, &lg, &m), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(m.vertex_count, 8, "%s", c.text);
    cr_assert_eq(m.face_count, 4);
    for (uint32_t f = 0; f < 4; f++)
        cr_assert_eq(face_size(&m, f), 3);
    expect_vertex(&m, 2, 1, 2, 1);
    expect_vertex(&m, 6, 1, 0, 1);
    const uint32_t idx[12] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
    cr_assert_arr_eq(m.face_indices, idx, sizeof idx);
    cr_assert(strstr(c.text, "quads.glb: ignored 2 point and line primitives"), "%s", c.text);
    cr_assert(strstr(c.text, "quads.glb: welded 4 vertices"), "%s", c.text);
    sinew_mesh_free(&m);
}

/* A real model through PLY: the same faces at the same positions as through
 * sinew's OFF reader, up to assimp's single precision. mask_cone is cut open
 * along a seam of 30 vertices repeated at the same positions; those are
 * welded, which closes the seam. */
Test(assimp, cgal_mask_cone_as_ply)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        cr_skip_test("SINEW_CGAL_DATA is not set");
    char off_path[1024];
    snprintf(off_path, sizeof off_path, "%s/meshes/mask_cone.off", dir);
    sinew_mesh a, b;
    cr_assert_eq(sinew_mesh_read(off_path, NULL, &a), SINEW_RESULT_OK);
    const char *path = SINEW_TEST_OUT_DIR "/mask_cone.ply";
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "ply\nformat ascii 1.0\nelement vertex %u\nproperty float x\nproperty float y\nproperty float z\n"
               "element face %u\nproperty list uchar int vertex_indices\nend_header\n",
            a.vertex_count, a.face_count);
    for (uint32_t v = 0; v < a.vertex_count; v++)
        fprintf(f, "%.17g %.17g %.17g\n", a.positions[3 * v], a.positions[3 * v + 1], a.positions[3 * v + 2]);
    for (uint32_t fi = 0; fi < a.face_count; fi++) {
        fprintf(f, "%u", face_size(&a, fi));
        for (uint32_t k = 0; k < face_size(&a, fi); k++)
            fprintf(f, " %u", face(&a, fi)[k]);
        fputc('\n', f);
    }
    fclose(f);
    uint32_t distinct = 0;
    for (uint32_t v = 0; v < a.vertex_count; v++) {
        uint32_t u = 0;
        while (u < v && memcmp(a.positions + 3 * u, a.positions + 3 * v, 3 * sizeof(double)) != 0)
            u++;
        distinct += u == v;
    }
    cr_assert_eq(a.vertex_count, 1230);
    cr_assert_eq(distinct, 1200);

    cr_assert_eq(sinew_mesh_read(path, NULL, &b), SINEW_RESULT_OK);
    cr_assert_eq(b.vertex_count, distinct);
    cr_assert_eq(b.face_count, a.face_count);
    cr_assert_arr_eq(b.face_offsets, a.face_offsets, sizeof(uint32_t) * (a.face_count + 1));
    for (uint32_t i = 0; i < a.face_offsets[a.face_count]; i++)
        for (int k = 0; k < 3; k++) {
            double pa = a.positions[3 * a.face_indices[i] + k], pb = b.positions[3 * b.face_indices[i] + k];
            cr_assert_float_eq(pb, pa, 1e-6 * (1.0 + fabs(pa)), "face corner %u", i);
        }
    sinew_mesh_free(&a);
    sinew_mesh_free(&b);
}

/* A PLY failure must be BAD_MESH with the path, then `expect`, in the message. */
static void expect_bad_ply(const char *name, const void *data, size_t size, const char *expect)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SINEW_TEST_OUT_DIR, name);
    write_bytes(path, data, size);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_expect_eq(sinew_mesh_read(path, &lg, &m), SINEW_RESULT_ERROR_BAD_MESH, "%s: %s", name, c.text);
    char want[768];
    snprintf(want, sizeof want, "%s%s", path, expect);
    cr_expect(strstr(c.text, want), "expected '%s' in: %s", want, c.text);
    cr_expect_null(m.positions);
    cr_expect_null(m.face_indices);
}

#define PLY_HEAD(format, nv, nf)                                                                            \
    "ply\nformat " format " 1.0\nelement vertex " #nv "\nproperty float x\nproperty float y\n"               \
    "property float z\nelement face " #nf "\nproperty list uchar int vertex_indices\nend_header\n"

/* assimp itself reads short ASCII files on into garbage, crashes on short
 * binary ones, and swaps bad indices and NaNs for other vertices. */
Test(assimp, malformed_ply_refused)
{
    const char ascii_short[] = PLY_HEAD("ascii", 10, 1) "0 0 0\n1 0 0\n3 0 1 2\n";
    expect_bad_ply("short.ply", ascii_short, sizeof ascii_short - 1,
                   ":3: the header declares 10 'vertex' records, which need a file of at least 215 bytes (a digit "
                   "and a space per value); this one has 175");
    const char ascii_more[] = PLY_HEAD("ascii", 3, 1) "0 0 0\n1 0 0\n0 1 0 5\n3 0 1 2\n";
    expect_bad_ply("more.ply", ascii_more, sizeof ascii_more - 1, ":12: vertex 2 has more values than the header declares");
    const char ascii_end[] = PLY_HEAD("ascii", 3, 1) "0.000 0.000 0.000\n1 0 0\n";
    expect_bad_ply("end.ply", ascii_end, sizeof ascii_end - 1, ":11: file ends in vertex 2 of the 3 its header declares");
    const char ascii_few[] = PLY_HEAD("ascii", 3, 1) "0 0 0\n1 0 0\n0 1\n3 0 1 2\n";
    expect_bad_ply("few.ply", ascii_few, sizeof ascii_few - 1, ":12: vertex 2 has fewer values than the header declares");
    /* assimp reads a blank line as a record, and splits lines at a form feed. */
    const char blank[] = PLY_HEAD("ascii", 3, 1) "0 0 0\n\n1 0 0\n0 1 0\n3 0 1 2\n";
    expect_bad_ply("blank.ply", blank, sizeof blank - 1, ":11: blank line where vertex 1 should be");
    const char feed[] = "ply\nformat ascii 1.0\n\fend_header\n";
    expect_bad_ply("feed.ply", feed, sizeof feed - 1, ":3: unexpected byte 0x0c in column 1");
    const char index[] = PLY_HEAD("ascii", 3, 1) "0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n";
    expect_bad_ply("index.ply", index, sizeof index - 1, ":13: face 0: vertex index 7 out of range (3 vertices)");
    const char nan[] = PLY_HEAD("ascii", 3, 1) "0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n";
    expect_bad_ply("nan.ply", nan, sizeof nan - 1, ":11: vertex 1: malformed number 'nan'");
    const char inf[] = PLY_HEAD("ascii", 3, 1) "0 0 0\n1 1e999 0\n0 1 0\n3 0 1 2\n";
    expect_bad_ply("inf.ply", inf, sizeof inf - 1, ":11: vertex 1 has a non-finite coordinate");
    const char word[] = PLY_HEAD("ascii", 3, 1) "0 0 0\n1 0 0\n0 1 0\n3 0 one 2\n";
    expect_bad_ply("word.ply", word, sizeof word - 1, ":13: face 0: malformed number 'one'");
    const char list[] = PLY_HEAD("ascii", 3, 1) "0 0 0\n1 0 0\n0 1 0\n3.0 0 1 2\n";
    expect_bad_ply("list.ply", list, sizeof list - 1, ":13: face 0: malformed number '3.0'");
    const char hex[] = PLY_HEAD("ascii", 3, 1) "0 0 0\n1 0x1 0\n0 1 0\n3 0 1 2\n";
    expect_bad_ply("hex.ply", hex, sizeof hex - 1, ":11: vertex 1: malformed number '0x1'");
    const char empty[] = "ply\nformat binary_little_endian 1.0\nelement nothing 1000000000000\nend_header\n";
    expect_bad_ply("empty.ply", empty, sizeof empty - 1, ":4: element 'nothing' has records but no properties");
    const char type[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty real x\nend_header\n";
    expect_bad_ply("type.ply", type, sizeof type - 1, ":4: unknown property type 'real'");
    const char noend[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n";
    expect_bad_ply("noend.ply", noend, sizeof noend - 1, ":4: no end_header after 'property'");
    const char format[] = "ply\nformat binary_middle_endian 1.0\nend_header\n";
    expect_bad_ply("format.ply", format, sizeof format - 1, ":2: unknown format 'binary_middle_endian'");

    /* Binary: two of ten vertices, then three of a face's four bytes of index. */
    const char head[] = PLY_HEAD("binary_little_endian", 10, 1);
    unsigned char bin[sizeof head - 1 + 24 + 4];
    memcpy(bin, head, sizeof head - 1);
    memset(bin + sizeof head - 1, 0, sizeof bin - (sizeof head - 1));
    expect_bad_ply("short_binary.ply", bin, sizeof bin,
                   ":3: the header declares 10 'vertex' records, which need a file of at least 290 bytes (every "
                   "list empty); this one has 198");
    const char head3[] = PLY_HEAD("binary_big_endian", 3, 1);
    unsigned char bin3[sizeof head3 - 1 + 36 + 1 + 12];
    memcpy(bin3, head3, sizeof head3 - 1);
    memset(bin3 + sizeof head3 - 1, 0, sizeof bin3 - (sizeof head3 - 1));
    bin3[sizeof head3 - 1 + 36] = 3;
    bin3[sizeof bin3 - 1] = 3; /* big-endian int 3: out of range */
    expect_bad_ply("index_binary.ply", bin3, sizeof bin3, ": face 0: vertex index 3 out of range (3 vertices)");
    expect_bad_ply("short_face.ply", bin3, sizeof bin3 - 1, ": file ends in face 0 of the 1");
    memset(bin3 + sizeof head3 - 1 + 16, 0xff, 4); /* vertex 1's y: a NaN */
    expect_bad_ply("nan_binary.ply", bin3, sizeof bin3, ": vertex 1 has a non-finite coordinate");

    /* Points only (assimp said "No output meshes: all meshes are orphaned"). */
    const char points[] = "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\n"
                          "property float z\nend_header\n0 0 0\n1 0 0\n";
    expect_bad_ply("points.ply", points, sizeof points - 1,
                   ": has no faces: a point cloud of 2 vertices, not a surface (no 'element face' or 'tristrips' "
                   "with records)");
    const char no_faces[] = PLY_HEAD("ascii", 3, 0) "0 0 0\n1 0 0\n0 1 0\n";
    expect_bad_ply("no_faces.ply", no_faces, sizeof no_faces - 1, ": has no faces: a point cloud of 3 vertices");
    /* Counts no file could hold: refused on the header, naming the count and
     * the size it needs (an ASCII one was read as "vertex 3 has more values
     * than the header declares", its face line taken for a vertex). */
    const char huge_ascii[] = PLY_HEAD("ascii", 4000000000, 1) "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    expect_bad_ply("huge.ply", huge_ascii, sizeof huge_ascii - 1,
                   ":3: the header declares 4000000000 'vertex' records, which need a file of at least 24000000163 "
                   "bytes (a digit and a space per value); this one has 189");
    const char huge_binary[] = PLY_HEAD("binary_little_endian", 4000, 5000000000);
    char want[160];
    snprintf(want, sizeof want,
             ":7: the header declares 5000000000 'face' records, which need a file of at least %llu bytes (every "
             "list empty); this one has %zu", 48000ull + 5000000000ull + sizeof huge_binary - 1,
             sizeof huge_binary - 1 + 48000);
    char *big = calloc(1, sizeof huge_binary - 1 + 48000);
    cr_assert_not_null(big);
    memcpy(big, huge_binary, sizeof huge_binary - 1);
    expect_bad_ply("huge_binary.ply", big, sizeof huge_binary - 1 + 48000, want);
    free(big);
    /* Not PLY at all under a PLY name, and a damaged magic word (assimp hangs on
     * "ply9" without end_header). */
    expect_bad_ply("garbage.ply", "garbage\n", 8, ":1: first line is not 'ply': 'garbage'");
    const char magic[] = "ply9\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_he+der\n0\n";
    expect_bad_ply("magic.ply", magic, sizeof magic - 1, ":1: first line is not 'ply': 'ply9'");
}

/* Header lines whose first word is no PLY keyword (author, TextureFile,
 * generated_by: writers add them) are skipped, as assimp skips them, with a
 * note; a header line that opens with a number is refused. */
Test(assimp, ply_named_header_lines_skipped)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/named_lines.ply", &lg, &m), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(m.vertex_count, 4);
    cr_assert_eq(m.face_count, 2);
    expect_vertex(&m, 2, 1, 1, 0);
    cr_assert_eq(c.errors, 0, "%s", c.text);
    cr_assert(strstr(c.text, "named_lines.ply:5: 'author' is no PLY keyword; the line is skipped"), "%s", c.text);
    cr_assert(strstr(c.text, ":7: 'generated_by' is no PLY keyword"), "%s", c.text);
    sinew_mesh_free(&m);
    const char data[] = "ply\nformat ascii 1.0\n1 2 3\nelement vertex 3\nproperty float x\nproperty float y\n"
                        "property float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n";
    expect_bad_ply("number.ply", data, sizeof data - 1, ":3: not a header line (no keyword; data before end_header?): '1'");
}

/* An accessor beyond its bufferView, a bufferView beyond its buffer, a .glb
 * buffer beyond its BIN chunk: each named with its range (assimp said
 * "Accessor with offset/length (0/16000) is out of range", naming neither). */
Test(assimp, gltf_ranges_checked)
{
#ifndef SINEW_HAVE_CJSON
    cr_skip_test("built without cJSON");
#endif
    static const char head[] = "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                               "\"nodes\":[{\"mesh\":0}],"
                               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":1},\"indices\":0}]}],"
                               "\"buffers\":[{\"byteLength\":60}],";
    struct {
        const char *views, *accessors, *expect;
    } cases[] = {
        {"[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,\"byteLength\":48}]",
         "[{\"bufferView\":0,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"},"
         "{\"bufferView\":1,\"componentType\":5126,\"count\":4000,\"type\":\"VEC3\"}]",
         ": accessor 1 (4000 elements of 12 bytes from offset 0) needs bytes 0 to 48000 of bufferView 1, which "
         "has 48"},
        {"[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,\"byteLength\":48}]",
         "[{\"bufferView\":0,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"},"
         "{\"bufferView\":1,\"byteOffset\":40,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"}]",
         ": accessor 1 (4 elements of 12 bytes from offset 40) needs bytes 40 to 88 of bufferView 1, which has 48"},
        {"[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,\"byteLength\":48,\"byteStride\":16}]",
         "[{\"bufferView\":0,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"},"
         "{\"bufferView\":1,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"}]",
         ": accessor 1 (4 elements of 12 bytes from offset 0) needs bytes 0 to 60 of bufferView 1, which has 48"},
        {"[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,\"byteLength\":4800}]",
         "[{\"bufferView\":0,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}]",
         ": bufferView 1 (bytes 12 to 4812) runs past the end of buffer 0 (60 bytes)"},
        {"[{\"buffer\":0,\"byteLength\":12}]",
         "[{\"bufferView\":3,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}]",
         ": accessor 0 names bufferView 3 of 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[2048], name[32];
        int n = snprintf(json, sizeof json, "%s\"bufferViews\":%s,\"accessors\":%s}", head, cases[i].views,
                         cases[i].accessors);
        snprintf(name, sizeof name, "range%zu.gltf", i);
        expect_bad_ply(name, json, (size_t)n, cases[i].expect);
    }
    /* Nested past the JSON reader's limit: refused where it goes too deep. */
    char deep[400];
    int n = snprintf(deep, sizeof deep, "{\"asset\":{\"version\":\"2.0\"},\"extras\":");
    for (int k = 0; k < 100; k++)
        deep[n++] = '[';
    expect_bad_ply("deep.gltf", deep, (size_t)n,
                   ": key \"extras\": arrays and objects nested deeper than 64 at line 1, column 100");

    /* A .glb whose buffer is longer than its BIN chunk. */
    const char gjson[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":600}]}";
    uint32_t json_len = (uint32_t)(sizeof gjson - 1 + 3) & ~3u, total = 12 + 8 + json_len + 8 + 60;
    unsigned char glb[256] = {0};
    put32(glb, 0x46546C67); /* "glTF" */
    put32(glb + 4, 2);
    put32(glb + 8, total);
    put32(glb + 12, json_len);
    put32(glb + 16, 0x4E4F534A); /* "JSON" */
    memset(glb + 20, ' ', json_len);
    memcpy(glb + 20, gjson, sizeof gjson - 1);
    put32(glb + 20 + json_len, 60);
    put32(glb + 24 + json_len, 0x004E4942); /* "BIN\0" */
    expect_bad_ply("long_buffer.glb", glb, total, ": buffer 0 has a byteLength of 600, but the BIN chunk holds 60 bytes");
}

/* A binary STL's triangle count must match its size (84 + 50 per triangle):
 * assimp said only "Failed to determine STL storage representation". */
Test(assimp, stl_count_checked_against_size)
{
    unsigned char stl[84 + 50] = {0};
    const float corners[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (int i = 0; i < 9; i++) {
        uint32_t u;
        memcpy(&u, &corners[i], sizeof u);
        put32(stl + 84 + 12 + 4 * i, u);
    }
    put32(stl + 80, 1);
    const char *path = SINEW_TEST_OUT_DIR "/one.stl";
    write_bytes(path, stl, sizeof stl);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.face_count, 1);
    sinew_mesh_free(&m);
    put32(stl + 80, 100000000);
    expect_bad_ply("huge.stl", stl, sizeof stl,
                   ": binary STL header declares 100000000 triangles, which need a file of 5000000084 bytes "
                   "(84 + 50 per triangle); this one has 134");
    put32(stl + 80, 2);
    expect_bad_ply("short.stl", stl, sizeof stl - 1,
                   ": binary STL header declares 2 triangles, which need a file of 184 bytes (84 + 50 per "
                   "triangle); this one has 133");
    expect_bad_ply("tiny.stl", stl, 40,
                   ": 40 bytes: shorter than a binary STL header (84 bytes), and not ASCII STL (no 'solid' first)");
}

/* Found by the fuzzing below: assimp's JoinIdenticalVertices crashed on these
 * positions (denormals and signed zeros), which is why it is not used. */
Test(assimp, positions_near_zero)
{
    const char head[] = PLY_HEAD("binary_little_endian", 4, 2);
    const uint32_t bits[12] = {0, 0xa8, 0, 0x80000000u, 0x3f, 0, 0x80000000u, 0x8000003fu, 0x3f, 0, 0x80000000u, 0x3f};
    unsigned char bin[sizeof head - 1 + 48 + 26];
    size_t n = sizeof head - 1;
    memcpy(bin, head, n);
    for (int i = 0; i < 12; i++, n += 4)
        put32(bin + n, bits[i]);
    for (uint32_t f = 0; f < 2; f++) {
        bin[n++] = 3;
        for (uint32_t k = 0; k < 3; k++, n += 4)
            put32(bin + n, f + k);
    }
    const char *path = SINEW_TEST_OUT_DIR "/near_zero.ply";
    write_bytes(path, bin, n);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.vertex_count, 4);
    cr_assert_eq(m.face_count, 2);
    sinew_mesh_free(&m);
}

Test(assimp, missing_file_is_an_io_error)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_OUT_DIR "/no_such_mesh.stl", &lg, &m), SINEW_RESULT_ERROR_IO);
    cr_assert(strstr(c.text, "no_such_mesh.stl: cannot open: No such file or directory"), "%s", c.text);
}

/* Corrupt valid PLY files, ASCII and binary, byte by byte: every outcome is OK
 * or BAD_MESH, and accepted meshes only index their own vertices. */
Test(assimp, random_ply_corruptions_are_refused_or_consistent, .timeout = 120)
{
    const char ascii[] = PLY_HEAD("ascii", 4, 2) "0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n4 0 1 2 3\n";
    const char head[] = PLY_HEAD("binary_little_endian", 4, 2);
    unsigned char binary[sizeof head - 1 + 48 + 13 + 17];
    size_t hn = sizeof head - 1;
    memcpy(binary, head, hn);
    const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    for (int i = 0; i < 12; i++) {
        uint32_t u;
        memcpy(&u, &pos[i], sizeof u);
        put32(binary + hn + 4 * i, u);
    }
    unsigned char *fp = binary + hn + 48;
    *fp++ = 3;
    for (uint32_t k = 0; k < 3; k++, fp += 4)
        put32(fp, k);
    *fp++ = 4;
    for (uint32_t k = 0; k < 4; k++, fp += 4)
        put32(fp, k);
    const unsigned char *seeds[2] = {(const unsigned char *)ascii, binary};
    const size_t sizes[2] = {sizeof ascii - 1, sizeof binary};
    const char alphabet[] = "0123456789 \n-+.eplyfn\t\r";
    const char *path = SINEW_TEST_OUT_DIR "/fuzz.ply";
    uint64_t s = 777;
    for (int iter = 0; iter < 5000; iter++) {
        int bin = iter & 1;
        size_t n = sizes[bin];
        unsigned char *data = malloc(n + 8);
        memcpy(data, seeds[bin], n);
        for (int k = lcg(&s) % 4; k >= 0; k--) {
            uint32_t op = lcg(&s) % 3, at = lcg(&s) % n;
            unsigned char ch = bin || lcg(&s) % 8 == 0 ? (unsigned char)lcg(&s)
                                                         : (unsigned char)alphabet[lcg(&s) % (sizeof alphabet - 1)];
            if (op == 0)
                data[at] = ch;
            else if (op == 1 && n > 1)
                memmove(data + at, data + at + 1, --n - at);
            else {
                memmove(data + at + 1, data + at, n++ - at);
                data[at] = ch;
            }
        }
        write_bytes(path, data, n);
        free(data);
        sinew_mesh m;
        sinew_result r = sinew_mesh_read(path, &quiet, &m);
        cr_assert(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_MESH, "iteration %d: %s", iter,
                  sinew_result_string(r));
        if (r == SINEW_RESULT_OK) {
            cr_assert_gt(m.face_count, 0);
            for (uint32_t i = 0; i < m.face_offsets[m.face_count]; i++)
                cr_assert_lt(m.face_indices[i], m.vertex_count);
            for (uint32_t i = 0; i < 3 * m.vertex_count; i++)
                cr_assert(isfinite(m.positions[i]));
        }
        sinew_mesh_free(&m);
    }
}

#else

Test(assimp, other_formats_unsupported_without_it)
{
    const char *path = SINEW_TEST_OUT_DIR "/unsupported.ply";
    write_bytes(path, "ply\n", 4);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, &lg, &m), SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_assert(strstr(c.text, "unsupported.ply: format not supported in this build"), "%s", c.text);
}

#endif

/* ------------------------------------------------------------ fuzz regressions */

/* Inputs the fuzz targets found to misbehave (docs/fuzzing.md), kept as they
 * were found in tests/fuzz/regressions/<target>/ and read from there. */
#define FUZZ_REGRESSIONS SINEW_TEST_DATA_DIR "/../fuzz/regressions"

/* fuzz_cloth: an OBJ whose mtllib names a path with a folder and bytes over
 * 0x7F; the cloth builder kept it as the library's name, which the asset
 * (RLIB: a file name without a folder) refuses, so the built asset did not
 * load. Now the asset keeps the name without its folder (or none). */
Test(fuzz_regression, mtllib_with_a_folder)
{
    sinew_logger lg = sinew_logger_default();
    lg.level = SINEW_LOG_ERROR;
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(FUZZ_REGRESSIONS "/cloth/mtllib_with_folder_and_bytes.obj", &lg, &m),
                 SINEW_RESULT_OK);
    cr_assert_not_null(strchr(m.materials.library, '/'));
    sinew_cloth_options opt = sinew_cloth_options_default();
    sinew_asset *a = NULL;
    sinew_cloth_report report;
    cr_assert_eq(sinew_cloth_build(&m, &opt, &lg, &a, &report), SINEW_RESULT_OK);
    sinew_mesh_free(&m);
    void *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, &lg), SINEW_RESULT_OK);
    sinew_asset_destroy(a);
    cr_assert_eq(sinew_asset_load_memory(bytes, size, "fuzz.snw", &lg, &a), SINEW_RESULT_OK);
    const char *name = sinew_asset_get_material_library(a, NULL, NULL);
    cr_assert(name && !strchr(name, '/') && name[strlen(name) - 1] == 'q', "the name after the folder");
    free(bytes);
    sinew_asset_destroy(a);
}

#ifdef SINEW_HAVE_ASSIMP

/* fuzz_gltf: 703 bytes whose GLB header declares a file of 1.9 GB and a JSON
 * chunk of 1.8 GB; assimp allocated and zeroed the chunk before reading it.
 * Now each length is checked against the file first. */
Test(fuzz_regression, glb_lengths_past_end_of_file)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(FUZZ_REGRESSIONS "/gltf/glb_lengths_past_end.glb", &lg, &m),
                 SINEW_RESULT_ERROR_BAD_MESH, "%s", c.text);
    cr_expect(strstr(c.text, "glb_lengths_past_end.glb: binary glTF header gives a length of 1920099700 bytes but "
                             "the file has 703"), "%s", c.text);
    cr_expect_null(m.positions);

    /* The same with a true file length: the JSON chunk, then the BIN chunk
     * after a JSON chunk of 16 bytes, claim 1000 bytes of a 64-byte file
     * (expect_bad_ply checks any file that goes through assimp). */
    unsigned char glb[64] = {0};
    memcpy(glb, "glTF", 4);
    put32(glb + 4, 2);
    put32(glb + 8, sizeof glb);
    put32(glb + 12, 1000);
    memcpy(glb + 16, "JSON", 4);
    expect_bad_ply("json_past_end.glb", glb, sizeof glb,
                   ": binary glTF JSON chunk of 1000 bytes runs past the end of the file (64 bytes)");
    put32(glb + 12, 16);
    memcpy(glb + 20, "{}              ", 16);
    put32(glb + 36, 1000);
    memcpy(glb + 40, "BIN", 4);
    expect_bad_ply("bin_past_end.glb", glb, sizeof glb,
                   ": binary glTF BIN chunk of 1000 bytes runs past the end of the file (64 bytes)");
    expect_bad_ply("short.glb", glb, 19, ": not a binary glTF file (no 20-byte header starting with \"glTF\")");
}

#endif

#ifdef SINEW_HAVE_ASSIMP

/* fuzz_ply: after 1.4 million runs ASan's allocator found its heap metadata
 * overwritten by assimp (which ASan does not instrument), too late to keep
 * the input. Reading assimp 5.2's PLY loader under valgrind found four files
 * that our PLY walk let through: a second vertex or face element, larger than
 * the first, is written past the arrays sized by the first; texture
 * coordinates on a face are read through its vertex list, a null pointer when
 * there is none and read past it when there are more than two per corner.
 * Now each is refused before assimp sees it, and proper texture coordinates
 * still pass. */
Test(fuzz_regression, ply_that_assimp_writes_past_its_arrays)
{
    static const struct {
        const char *file, *expect;
    } cases[] = {
        {"second_vertex_element.ply", ":7: second element named 'vertex'"},
        {"second_face_element.ply", ":9: second element named 'face'"},
        {"texcoord_without_vertex_indices.ply", ":9: element 'face' has records but no vertex_indices list"},
        {"texcoord_more_than_corners.ply", ":14: face 0: 8 texture coordinates for 3 corners (two per corner)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], want[640];
        snprintf(path, sizeof path, "%s/ply/%s", FUZZ_REGRESSIONS, cases[i].file);
        snprintf(want, sizeof want, "%s%s", cases[i].file, cases[i].expect);
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_mesh m;
        cr_expect_eq(sinew_mesh_read(path, &lg, &m), SINEW_RESULT_ERROR_BAD_MESH, "%s: %s", cases[i].file, c.text);
        cr_expect(strstr(c.text, want), "expected '%s' in: %s", want, c.text);
        cr_expect_null(m.positions);
    }

    const char *path = SINEW_TEST_OUT_DIR "/texcoords.ply";
    write_text(path, "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
                     "property float z\nelement face 2\nproperty list uchar int vertex_indices\n"
                     "property list uchar float texcoord\nend_header\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n"
                     "3 0 1 2 6 0 0 1 0 0 1\n3 1 3 2 6 1 0 1 1 0 1\n");
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, &lg, &m), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(m.vertex_count, 4);
    cr_assert_eq(m.face_count, 2);
    sinew_mesh_free(&m);
}

#endif

#ifdef SINEW_HAVE_ASSIMP

/* fuzz_ply: assimp reads the count of an element it does not know by name
 * from the name's leading digits, so "element 7777...7770face 24" made it
 * allocate 46 GB (the file found; it now fails earlier, on a property line
 * with more words than a property has); with a name without digits it reads
 * no records and takes the next ones for faces. It hung on an element line
 * with two words too many before a final end_header, and reads unsigned
 * values only without a sign, so "+3" corners were none. Our walk refuses
 * each such file. */
Test(fuzz_regression, ply_that_assimp_reads_otherwise)
{
    static const struct {
        const char *file, *expect;
    } cases[] = {
        {"element_name_digits_as_count.ply", ":5: extra word at the end of the line: 'float'"},
        {"element_name_starts_with_digit.ply", ":7: element name starts with a digit: '7face'"},
        {"unknown_element_with_records.ply",
         ":11: element 'foo' has records, but assimp reads those of vertex, face, tristrips, edge and material only"},
        {"element_line_extra_words.ply", ":3: extra word at the end of the line: 'float'"},
        {"unsigned_with_sign.ply", ":13: face 0: malformed number '+3'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], want[640];
        snprintf(path, sizeof path, "%s/ply/%s", FUZZ_REGRESSIONS, cases[i].file);
        snprintf(want, sizeof want, "%s%s", cases[i].file, cases[i].expect);
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_mesh m;
        cr_expect_eq(sinew_mesh_read(path, &lg, &m), SINEW_RESULT_ERROR_BAD_MESH, "%s: %s", cases[i].file, c.text);
        cr_expect(strstr(c.text, want), "expected '%s' in: %s", want, c.text);
        cr_expect_null(m.positions);
    }
}

#endif
