/* Volume meshes made and checked: the box generator, the lattice, the checks and repairs, surfaces and TetGen. */
/* The box generator's counts, orientation and conformity; lattices of a
 * sphere and a real model; the checks and repairs; TetGen run on a real
 * closed surface, and its failures reported. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include "prep/soft.h"
#include "prep/volume.h"
#include "shapes.h"
#include "volume_fixture.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ box */

Test(volume, box_counts_volume_orientation)
{
    /* The paper's scenes: 16^3, 21^3 and 26^3 vertices. */
    const uint32_t n[][3] = {{2, 2, 2}, {4, 3, 5}, {16, 16, 16}, {21, 21, 21}, {26, 26, 26}};
    const uint32_t tets[] = {6, 144, 20250, 48000, 93750};
    const double size[3] = {2.0, 0.5, 1.5}, origin[3] = {1, 2, 3};
    for (size_t i = 0; i < sizeof tets / sizeof tets[0]; i++) {
        sinew_volume v;
        cr_assert_eq(sinew_volume_box(n[i][0], n[i][1], n[i][2], size, origin, &v), SINEW_RESULT_OK);
        cr_assert_eq(v.vertex_count, n[i][0] * n[i][1] * n[i][2]);
        cr_assert_eq(v.tet_count, tets[i]);
        double cell = size[0] * size[1] * size[2] / ((n[i][0] - 1) * (n[i][1] - 1) * (n[i][2] - 1));
        uint32_t wrong = 0;
        for (uint32_t t = 0; t < v.tet_count; t++)
            wrong += !(fabs(tet_volume(&v, t) - cell / 6.0) <= 1e-12 * cell);
        cr_assert_eq(wrong, 0, "box %zu: %u tetrahedra of the wrong volume", i, wrong);
        cr_assert_float_eq(total_volume(&v), size[0] * size[1] * size[2], 1e-9);
        /* Centred on the origin. */
        cr_assert_float_eq(v.positions[0], origin[0] - size[0] / 2, 1e-12);
        double *last = v.positions + 3 * ((size_t)v.vertex_count - 1);
        cr_assert_float_eq(last[2], origin[2] + size[2] / 2, 1e-12);
        sinew_volume_free(&v);
    }
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(1, 2, 2, size, NULL, &v), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    const double zero[3] = {1, 0, 1};
    cr_assert_eq(sinew_volume_box(2, 2, 2, zero, NULL, &v), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sinew_volume_box(1024, 1024, 1024, size, NULL, &v), SINEW_RESULT_ERROR_LIMIT);
}

/* The asset's triangles as a surface mesh. */
static sinew_mesh asset_boundary(const sinew_asset *a)
{
    sinew_mesh m = {a->particle_count, malloc(sizeof(double) * 3 * a->particle_count), a->triangle_count,
                    malloc(sizeof(uint32_t) * (a->triangle_count + 1)), malloc(sizeof(uint32_t) * 3 * a->triangle_count)};
    for (uint32_t i = 0; i < a->particle_count; i++) {
        m.positions[3 * i + 0] = a->particles[i].x;
        m.positions[3 * i + 1] = a->particles[i].y;
        m.positions[3 * i + 2] = a->particles[i].z;
    }
    for (uint32_t t = 0; t <= a->triangle_count; t++)
        m.face_offsets[t] = 3 * t;
    memcpy(m.face_indices, a->triangles, sizeof(uint32_t) * 3 * a->triangle_count);
    return m;
}

/* Conforming cells: every face inside the box is shared by two tetrahedra, so
 * the boundary the builder finds is the box's surface, two triangles per cell
 * face, and it encloses the box's volume. */
Test(volume, box_conforming)
{
    const double size[3] = {1, 1, 1};
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(5, 4, 3, size, NULL, &v), SINEW_RESULT_OK);
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, NULL, &quiet, &a, &rep), SINEW_RESULT_OK);
    cr_assert_eq(rep.triangle_count, 2 * 2 * (4 * 3 + 3 * 2 + 4 * 2));
    sinew_mesh surface = asset_boundary(a);
    cr_assert_eq(sinew_surface_check_closed(&surface, "boundary", &quiet), SINEW_RESULT_OK);
    cr_assert_float_eq(sinew_surface_enclosed_volume(&surface), 1.0, 1e-6);
    sinew_mesh_free(&surface);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

/* ------------------------------------------------------------ lattice */

static sinew_mesh triangles(const double *p, uint32_t vertices, const uint32_t *idx, uint32_t faces);

/* The lattice against an independent inside test (the winding number,
 * shapes.c) on every cube of the lattice around the surface: the cubes kept
 * are exactly those whose centres are inside. Every six tetrahedra are one
 * cube, its first tetrahedron running from the cube's lowest corner to its
 * highest. Returns the kept cubes' volume. */
static double check_lattice(const shape *s, const sinew_mesh *m, uint32_t cells)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_lattice(m, cells, 0, "lattice", &lg, &v), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(v.tet_count % 6, 0);
    const double *p0 = v.positions + 3 * (size_t)v.tets[0], *p3 = v.positions + 3 * (size_t)v.tets[3];
    const double h = p3[0] - p0[0];
    cr_assert_gt(h, 0.0);
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], m->positions[3 * i + a]);
            hi[a] = fmax(hi[a], m->positions[3 * i + a]);
        }
    cr_assert_float_eq(h, fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])) / cells, 1e-9 * h);
    /* Every tetrahedron positive and a sixth of a cube; each cube's centre inside. */
    for (uint32_t t = 0; t < v.tet_count; t++)
        cr_assert_float_eq(tet_volume(&v, t), h * h * h / 6.0, 1e-9 * h * h * h, "tet %u", t);
    uint32_t kept = v.tet_count / 6, inside = 0;
    for (uint32_t q = 0; q < kept; q++) {
        const double *a = v.positions + 3 * (size_t)v.tets[24 * q], *b = v.positions + 3 * (size_t)v.tets[24 * q + 3];
        const double centre[3] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])};
        cr_assert(shape_inside(s, centre), "cube %u at (%g %g %g) is outside", q, centre[0], centre[1], centre[2]);
    }
    /* No cube left out: count the inside centres of the whole lattice. */
    int32_t first[3], last[3];
    for (int a = 0; a < 3; a++) {
        first[a] = (int32_t)floor((lo[a] - p0[a]) / h) - 1;
        last[a] = (int32_t)ceil((hi[a] - p0[a]) / h) + 1;
    }
    for (int32_t k = first[2]; k <= last[2]; k++)
        for (int32_t j = first[1]; j <= last[1]; j++)
            for (int32_t i = first[0]; i <= last[0]; i++) {
                const double centre[3] = {p0[0] + (i + 0.5) * h, p0[1] + (j + 0.5) * h, p0[2] + (k + 0.5) * h};
                inside += shape_inside(s, centre) != 0;
            }
    cr_assert_eq(kept, inside, "%u cubes kept, %u centres inside", kept, inside);
    /* Conforming, with no corner unused: the soft builder takes it as it is. */
    sinew_asset *asset;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, NULL, &lg, &asset, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(rep.flipped_tets, 0);
    cr_assert_eq(rep.dropped_vertices, 0);
    sinew_asset_destroy(asset);
    double total = total_volume(&v);
    sinew_volume_free(&v);
    return total;
}

Test(volume, lattice_of_a_sphere)
{
    const double centre[3] = {0.1, -0.2, 0.3};
    shape s = shape_icosphere(3, 0.5, centre);
    sinew_mesh m = shape_mesh(&s);
    const double enclosed = sinew_surface_enclosed_volume(&m);
    double err[3];
    const uint32_t cells[3] = {6, 12, 24};
    for (int i = 0; i < 3; i++)
        err[i] = fabs(check_lattice(&s, &m, cells[i]) - enclosed) / enclosed;
    /* The staircase's error shrinks with the cell (it is a surface term). */
    cr_expect_lt(err[2], 0.05, "%g", err[2]);
    cr_expect_lt(err[2], err[0], "%g %g", err[2], err[0]);
    /* An axis-aligned box surface: its faces lie on lattice planes, which
     * the rows' lines are nudged off; every cube is inside. */
    sinew_volume box;
    const double size[3] = {1.0, 0.5, 0.25};
    cr_assert_eq(sinew_volume_box(2, 2, 2, size, NULL, &box), SINEW_RESULT_OK);
    sinew_asset *a;
    cr_assert_eq(sinew_soft_build(&box, NULL, &quiet, &a, NULL), SINEW_RESULT_OK);
    sinew_mesh surface = asset_boundary(a);
    sinew_volume v;
    cr_assert_eq(sinew_volume_lattice(&surface, 8, 0, "box", &quiet, &v), SINEW_RESULT_OK);
    cr_expect_eq(v.tet_count, 6 * 8 * 4 * 2);
    cr_expect_float_eq(total_volume(&v), 0.125, 1e-12);
    sinew_volume_free(&v);
    /* Refusals, naming the problem. */
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_expect_eq(sinew_volume_lattice(&surface, 0, 0, "box", &lg, &v), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(c.text, "lattice cells"), "%s", c.text);
    /* A hole (one triangle of the top face gone): still a solid by its
     * winding number; only cubes right under the hole may fall out. */
    surface.face_count--;
    cr_assert_eq(sinew_volume_lattice(&surface, 8, 0, "holed", &quiet, &v), SINEW_RESULT_OK);
    cr_expect_geq(v.tet_count, 6 * 56, "%u", v.tet_count);
    cr_expect_leq(v.tet_count, 6 * 64, "%u", v.tet_count);
    sinew_volume_free(&v);
    /* A flat open sheet encloses nothing: refused, saying so. */
    const double corners[12] = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1};
    const uint32_t two[6] = {0, 1, 2, 0, 2, 3};
    sinew_mesh sheet = triangles(corners, 4, two, 2);
    lg = capture_logger(&c);
    cr_expect_eq(sinew_volume_lattice(&sheet, 8, 1, "sheet", &lg, &v), SINEW_RESULT_ERROR_BAD_MESH);
    cr_expect(strstr(c.text, "sheet: encloses no volume"), "%s", c.text);
    sinew_mesh_free(&sheet);
    sinew_mesh_free(&surface);
    sinew_asset_destroy(a);
    sinew_volume_free(&box);
    sinew_mesh_free(&m);
    shape_free(&s);
}

/* A real model no one here made (CGAL's elephant, trunk, tail and legs). */
Test(volume, lattice_of_a_real_model, .timeout = 120)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        cr_skip_test("SINEW_CGAL_DATA is not set");
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/elephant.off", dir);
    shape s = shape_read(path);
    cr_assert_gt(s.vertex_count, 0, "%s", path);
    sinew_mesh m = shape_mesh(&s);
    const double enclosed = fabs(sinew_surface_enclosed_volume(&m));
    double got = check_lattice(&s, &m, 20);
    cr_expect_float_eq(got, enclosed, 0.15 * enclosed, "%g vs %g", got, enclosed);
    sinew_mesh_free(&m);
    shape_free(&s);
}

/* ------------------------------------------------------------ checks */

static const double five[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};

Test(volume, negative_orientation_repaired)
{
    const uint32_t tets[8] = {0, 2, 1, 3, 1, 2, 4, 3};
    sinew_volume v = tiny_volume(five, 5, tets, 2);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume_fixes fixes;
    cr_assert_eq(sinew_volume_check(&v, "neg", &lg, &fixes, NULL), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(fixes.flipped_tets, 2);
    cr_assert(strstr(c.text, "neg: 2 tetrahedra were negatively oriented and had two vertices swapped, first: "
                             "tetrahedron 0"),
              "%s", c.text);
    for (uint32_t t = 0; t < 2; t++)
        cr_assert_gt(tet_volume(&v, t), 0.0);
    sinew_volume_free(&v);
}

Test(volume, degenerate_tet_refused_naming_it)
{
    /* Tetrahedron 1 is flat: its fourth vertex lies in the plane of the others. */
    const double p[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0.5, 0.5, 0};
    const uint32_t tets[8] = {0, 1, 2, 3, 0, 1, 2, 5};
    sinew_volume v = tiny_volume(p, 6, tets, 2);
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "flat", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "flat: tetrahedron 1 (0 1 2 5) has volume 0 m^3"), "%s", c.text);
    cr_assert(strstr(c.text, "degenerate"), "%s", c.text);
    /* Nothing was changed: vertex 4 (unused) is still there. */
    cr_assert_eq(v.vertex_count, 6);
    sinew_volume_free(&v);

    /* Tiny against the mesh's size, though not zero. */
    const double q[15] = {0, 0, 0, 1e-5, 0, 0, 0, 1e-5, 0, 0, 0, 1e-5, 1000, 1000, 1000};
    const uint32_t t2[8] = {0, 1, 2, 3, 1, 2, 3, 4};
    v = tiny_volume(q, 5, t2, 2);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "tiny", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "tiny: tetrahedron 0 (0 1 2 3) has volume 1.67e-16 m^3"), "%s", c.text);
    sinew_volume_free(&v);
}

Test(volume, bad_indices_and_coordinates_refused)
{
    const uint32_t repeated[4] = {0, 1, 1, 3}, out_of_range[4] = {0, 1, 2, 5};
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v = tiny_volume(five, 5, repeated, 1);
    cr_assert_eq(sinew_volume_check(&v, "rep", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "rep: tetrahedron 0 (0 1 1 3) repeats vertex 1"), "%s", c.text);
    sinew_volume_free(&v);
    lg = capture_logger(&c);
    v = tiny_volume(five, 5, out_of_range, 1);
    cr_assert_eq(sinew_volume_check(&v, "range", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "range: tetrahedron 0: vertex index 5 out of range (5 vertices)"), "%s", c.text);
    sinew_volume_free(&v);
    double p[15];
    memcpy(p, five, sizeof p);
    p[3 * 2 + 1] = NAN;
    const uint32_t ok[4] = {0, 1, 2, 3};
    v = tiny_volume(p, 5, ok, 1);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "nan", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "nan: vertex 2 has a coordinate (nan) that is not finite in single precision"), "%s",
              c.text);
    p[3 * 2 + 1] = 1e300;
    memcpy(v.positions, p, sizeof p);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "big", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "big: vertex 2 has a coordinate (1e+300)"), "%s", c.text);
    sinew_volume_free(&v);
    v = tiny_volume(five, 5, ok, 0);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "none", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "none: no tetrahedra"), "%s", c.text);
    sinew_volume_free(&v);
}

Test(volume, unreferenced_vertices_dropped)
{
    /* Vertex 0 and 3 unused. */
    const double p[18] = {9, 9, 9, 0, 0, 0, 1, 0, 0, 5, 5, 5, 0, 1, 0, 0, 0, 1};
    const uint32_t tet[4] = {1, 2, 4, 5};
    sinew_volume v = tiny_volume(p, 6, tet, 1);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume_fixes fixes;
    uint32_t old[6];
    cr_assert_eq(sinew_volume_check(&v, "unused", &lg, &fixes, old), SINEW_RESULT_OK);
    cr_assert_eq(fixes.dropped_vertices, 2);
    cr_assert(strstr(c.text, "unused: removed 2 vertices that no tetrahedron uses, first: vertex 0"), "%s", c.text);
    cr_assert_eq(v.vertex_count, 4);
    const uint32_t expect_tet[4] = {0, 1, 2, 3}, expect_old[4] = {1, 2, 4, 5};
    cr_assert_arr_eq(v.tets, expect_tet, sizeof expect_tet);
    cr_assert_arr_eq(old, expect_old, sizeof expect_old);
    cr_assert_eq(v.positions[3 * 3 + 2], 1.0);
    sinew_volume_free(&v);
}

/* ------------------------------------------------------------ surfaces and TetGen */

static sinew_mesh triangles(const double *p, uint32_t vertices, const uint32_t *idx, uint32_t faces)
{
    sinew_mesh m = {vertices, malloc(sizeof(double) * 3 * vertices), faces, malloc(sizeof(uint32_t) * (faces + 1)),
                    malloc(sizeof(uint32_t) * 3 * faces)};
    memcpy(m.positions, p, sizeof(double) * 3 * vertices);
    memcpy(m.face_indices, idx, sizeof(uint32_t) * 3 * faces);
    for (uint32_t f = 0; f <= faces; f++)
        m.face_offsets[f] = 3 * f;
    return m;
}

/* The surface of tetrahedron 0123, outward. */
static const uint32_t tet_surface[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

Test(surface, closed_manifold_checks_name_the_edge)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m = triangles(five, 5, tet_surface, 4);
    cr_assert_eq(sinew_surface_check_closed(&m, "tet", &lg), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_float_eq(sinew_surface_enclosed_volume(&m), 1.0 / 6.0, 1e-12);
    sinew_mesh_free(&m);

    /* Open: one face missing. */
    m = triangles(five, 5, tet_surface, 3);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_surface_check_closed(&m, "open", &lg), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "open: edge 0-1 is on one face only (face 1): the surface is not closed") ||
                  strstr(c.text, "is on one face only"),
              "%s", c.text);
    cr_assert(strstr(c.text, "edge 1-2 is on one face only (face 0)"), "%s", c.text);
    sinew_mesh_free(&m);

    /* A fin: a third face on edge 0-1. */
    const uint32_t fin[15] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 0, 1, 4};
    m = triangles(five, 5, fin, 5);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_surface_check_closed(&m, "fin", &lg), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "fin: edge 0-1 is shared by 3 faces (0, 1, 4): the surface is not manifold"), "%s",
              c.text);
    sinew_mesh_free(&m);

    /* One face turned inside out. */
    const uint32_t flipped[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 3, 2};
    m = triangles(five, 5, flipped, 4);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_surface_check_closed(&m, "flip", &lg), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "flip: faces 0 and 3 both run along edge 1-2 from 2 to 1: the faces are not "
                             "consistently oriented"),
              "%s", c.text);
    sinew_mesh_free(&m);

    const uint32_t repeat[12] = {0, 2, 2, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    m = triangles(five, 5, repeat, 4);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_surface_check_closed(&m, "rep", &lg), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "rep: face 0 repeats vertex 2"), "%s", c.text);
    sinew_mesh_free(&m);

    /* tetrahedralise checks first, and meshes what TetGen would refuse as
     * lattice cubes, saying why: the fin's tetrahedron is solid. */
    m = triangles(five, 5, fin, 5);
    lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, "/nonexistent/tetgen", "fin", &lg, &v), SINEW_RESULT_OK,
                 "%s", c.text);
    cr_assert(strstr(c.text, "edge 0-1 is shared by 3 faces"), "%s", c.text);
    cr_assert(strstr(c.text, "lattice cubes"), "%s", c.text);
    cr_assert_float_eq(total_volume(&v), 1.0 / 6.0, 0.25 / 6.0, "%g", total_volume(&v));
    sinew_volume_free(&v);
    sinew_mesh_free(&m);
}

static int have_tetgen(void)
{
    const char *path = getenv("PATH");
    char dir[4096];
    for (const char *p = path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(dir, sizeof dir, "%.*s/tetgen", (int)n, p);
        if (access(dir, X_OK) == 0)
            return 1;
        p += n + (colon != NULL);
    }
    return 0;
}

Test(tetgen, missing_failing_killed)
{
    sinew_mesh m = triangles(five, 5, tet_surface, 4);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    /* Without TetGen the lattice meshes it, and the warning says why. */
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, "/nonexistent/tetgen", "tet", &lg, &v), SINEW_RESULT_OK);
    cr_assert(strstr(c.text, "tet: /nonexistent/tetgen not found: install Debian's tetgen package; the solid is "
                             "meshed instead as lattice cubes"),
              "%s", c.text);
    sinew_volume_free(&v);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, "sinew-no-such-tetgen", "tet", &lg, &v), SINEW_RESULT_OK);
    cr_assert(strstr(c.text, "not found: install Debian's tetgen package"), "%s", c.text);
    sinew_volume_free(&v);

    /* Stand-ins: one that fails with a message, one that is killed. */
    const char *scripts[2][2] = {
        {SINEW_TEST_OUT_DIR "/fake-tetgen-fails", "#!/bin/sh\necho 'Opening the input.'\n"
                                                  "echo 'Error: a fake failure' >&2\nexit 3\n"},
        {SINEW_TEST_OUT_DIR "/fake-tetgen-killed", "#!/bin/sh\nkill -KILL $$\n"}};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(scripts[i][0], "w");
        cr_assert(f);
        fputs(scripts[i][1], f);
        fclose(f);
        chmod(scripts[i][0], 0700);
    }
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, scripts[0][0], "tet", &lg, &v), SINEW_RESULT_OK);
    cr_assert(strstr(c.text, "fake-tetgen-fails failed (exit status 3); its output ends: Opening the input. Error: a "
                             "fake failure; the solid is meshed instead"),
              "%s", c.text);
    sinew_volume_free(&v);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, scripts[1][0], "tet", &lg, &v), SINEW_RESULT_ERROR_IO);
    cr_assert(strstr(c.text, "fake-tetgen-killed was killed (signal 9"), "%s", c.text);
    /* Bad parameters. */
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 0.5, NULL, "tet", &lg, &v), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "radius-edge bound"), "%s", c.text);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, -1, 1.4, NULL, "tet", &quiet, &v),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    /* Bounded work: a volume bound that would need more tetrahedra than the
     * limit is refused before TetGen runs (the fake one fails if it does). */
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 1e-15, 1.4, scripts[0][0], "tet", &lg, &v),
                 SINEW_RESULT_ERROR_LIMIT);
    cr_assert(strstr(c.text, "tet: a maximum volume of 1e-15 m^3 needs at least 1.67e+14 tetrahedra"), "%s", c.text);
    cr_assert(!strstr(c.text, "fake"), "%s", c.text);
    sinew_mesh_free(&m);
}

/* Interrupted (Ctrl-C, a kill): sinew-prep's handler sets
 * sinew_prep_interrupted; a TetGen run in progress is stopped, the call
 * fails saying so, and its temporary folder is gone. */
static void interrupt_now(int sig)
{
    (void)sig;
    sinew_prep_interrupted = 1;
}

Test(tetgen, interrupted_run_cleans_up)
{
    const char *script = SINEW_TEST_OUT_DIR "/fake-tetgen-slow";
    FILE *f = fopen(script, "w");
    cr_assert(f);
    fputs("#!/bin/sh\nexec sleep 30\n", f);
    fclose(f);
    chmod(script, 0700);
    char tmp[] = SINEW_TEST_OUT_DIR "/interrupt-XXXXXX";
    cr_assert(mkdtemp(tmp));
    setenv("TMPDIR", tmp, 1);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = interrupt_now;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    sinew_mesh m = triangles(five, 5, tet_surface, 4);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    sinew_prep_interrupted = 0;
    alarm(1);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, script, "tet", &lg, &v), SINEW_RESULT_ERROR_IO);
    alarm(0);
    sigaction(SIGALRM, &old, NULL);
    sinew_prep_interrupted = 0;
    unsetenv("TMPDIR");
    cr_assert(strstr(c.text, "tet: interrupted while"), "%s", c.text);
    cr_assert_eq(rmdir(tmp), 0, "%s is not empty: the run's folder was left behind", tmp);
    sinew_mesh_free(&m);
}

/* Two tetrahedra surfaces through each other: TetGen gives up, its -d run
 * names the faces, and the lattice meshes their union. */
Test(tetgen, self_intersection_named)
{
    if (!have_tetgen())
        cr_skip_test("tetgen is not installed (Debian: tetgen)");
    const double p[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.2, 0.2, 0.2, 1.2, 0.2, 0.2, 0.2, 1.2, 0.2, 0.2, 0.2, 1.2};
    uint32_t idx[24];
    for (int k = 0; k < 12; k++) {
        idx[k] = tet_surface[k];
        idx[12 + k] = tet_surface[k] + 4;
    }
    sinew_mesh m = triangles(p, 8, idx, 8);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 1e-4, 1.4, NULL, "two", &lg, &v), SINEW_RESULT_OK, "%s", c.text);
    cr_assert(strstr(c.text, "two: the surface intersects itself: faces 3 and 4"), "%s", c.text);
    cr_assert(strstr(c.text, "lattice cubes (15 along the longest side)"), "%s", c.text);
    /* The union: two tetrahedra of 1/6 overlapping in one of 0.4^3 / 6,
     * and a little more: their sharp corners, thinner than a cube, keep the
     * cubes around them (thin parts, volume_lattice.c), 13 % over it. */
    const double uni = 2.0 / 6.0 - 0.064 / 6.0;
    cr_assert(total_volume(&v) >= 0.9 * uni && total_volume(&v) <= 1.2 * uni, "%g vs %g", total_volume(&v), uni);
    /* Cubes of 1.2 / 15 m; every tetrahedron keeps a quarter of its sixth. */
    const double h = 1.2 / 15.0;
    for (uint32_t t = 0; t < v.tet_count; t++)
        cr_assert_geq(tet_volume(&v, t), 0.25 * h * h * h / 6.0 * (1 - 1e-9), "tet %u", t);
    sinew_volume_free(&v);
    sinew_mesh_free(&m);
}

/* A real closed surface no one here made (CGAL's sphere.off, 162 vertices):
 * positive tetrahedra filling exactly the volume the surface encloses, and with
 * a volume bound, smaller ones that fill it too. */
Test(tetgen, cgal_sphere)
{
    if (!have_tetgen())
        cr_skip_test("tetgen is not installed (Debian: tetgen)");
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        cr_skip_test("SINEW_CGAL_DATA is not set");
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/sphere.off", dir);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.vertex_count, 162);
    cr_assert_eq(sinew_surface_check_closed(&m, path, NULL), SINEW_RESULT_OK);
    double enclosed = sinew_surface_enclosed_volume(&m);
    cr_assert_gt(enclosed, 0.0);
    const double max_volume[2] = {0.0, 0.001};
    uint32_t counts[2];
    for (int i = 0; i < 2; i++) {
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_volume v;
        cr_assert_eq(sinew_volume_tetrahedralise(&m, max_volume[i], 1.4, NULL, "sphere", &lg, &v), SINEW_RESULT_OK,
                     "%s", c.text);
        cr_assert_geq(v.vertex_count, 162);
        counts[i] = v.tet_count;
        for (uint32_t t = 0; t < v.tet_count; t++) {
            double vol = tet_volume(&v, t);
            cr_assert_gt(vol, 0.0, "tet %u", t);
            if (max_volume[i] > 0)
                cr_assert_leq(vol, max_volume[i] * (1 + 1e-9), "tet %u", t);
        }
        sinew_asset *a;
        sinew_soft_report rep;
        cr_assert_eq(sinew_soft_build(&v, NULL, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
        cr_assert_eq(rep.flipped_tets, 0);
        cr_assert_eq(rep.dropped_vertices, 0);
        cr_assert_float_eq(rep.volume, enclosed, 0.01 * enclosed, "%g vs %g", rep.volume, enclosed);
        /* The boundary encloses what the input did (TetGen may split its faces). */
        sinew_mesh boundary = asset_boundary(a);
        cr_assert_eq(sinew_surface_check_closed(&boundary, "boundary", &lg), SINEW_RESULT_OK, "%s", c.text);
        cr_assert_float_eq(sinew_surface_enclosed_volume(&boundary), enclosed, 0.01 * enclosed);
        cr_assert_geq(rep.triangle_count, m.face_count);
        sinew_mesh_free(&boundary);
        sinew_asset_destroy(a);
        sinew_volume_free(&v);
    }
    cr_assert_gt(counts[1], counts[0]);
    sinew_mesh_free(&m);
}
