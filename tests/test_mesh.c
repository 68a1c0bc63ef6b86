/* Mesh readers, writer and grid generator: formats read as exporters write
 * them, every kind of malformed input refused with its file, line and problem,
 * and random corruptions never crash. */
#include <criterion/criterion.h>

#include "prep/mesh.h"

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
    cr_assert(strstr(c.text, "no_such_mesh.obj: No such file or directory"), "%s", c.text);
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
