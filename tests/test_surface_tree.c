/* The surface tree against brute force: winding numbers (exact sums of solid
 * angles) and closest points (shapes.c's distance) at points near and far
 * from a sphere and a real model; segment crossings; the degenerate-element
 * test and pieces of volume meshes; orientation repair by the lattice. */
#include <criterion/criterion.h>

#include "prep/surface_tree.h"
#include "prep/volume.h"
#include "shapes.h"
#include "volume_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generalised winding number by the definition: every triangle's solid
 * angle (Van Oosterom and Strackee), over 4 pi. */
static double exact_winding(const sinew_mesh *m, const double p[3])
{
    double sum = 0.0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        double x[3][3], l[3];
        for (int c = 0; c < 3; c++) {
            for (int k = 0; k < 3; k++)
                x[c][k] = m->positions[3 * (size_t)m->face_indices[3 * f + c] + k] - p[k];
            l[c] = sqrt(x[c][0] * x[c][0] + x[c][1] * x[c][1] + x[c][2] * x[c][2]);
        }
        double yz[3] = {x[1][1] * x[2][2] - x[1][2] * x[2][1], x[1][2] * x[2][0] - x[1][0] * x[2][2],
                        x[1][0] * x[2][1] - x[1][1] * x[2][0]};
        double num = x[0][0] * yz[0] + x[0][1] * yz[1] + x[0][2] * yz[2];
        double d01 = x[0][0] * x[1][0] + x[0][1] * x[1][1] + x[0][2] * x[1][2];
        double d12 = x[1][0] * x[2][0] + x[1][1] * x[2][1] + x[1][2] * x[2][2];
        double d20 = x[2][0] * x[0][0] + x[2][1] * x[0][1] + x[2][2] * x[0][2];
        sum += 2.0 * atan2(num, l[0] * l[1] * l[2] + d01 * l[2] + d12 * l[0] + d20 * l[1]);
    }
    return sum / (4.0 * 3.14159265358979323846);
}

/* A fixed sequence in [0, 1): the tests see the same points on every run. */
static double next(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / 9007199254740992.0;
}

static void compare(const shape *s, uint32_t points, double spread)
{
    sinew_mesh m = shape_mesh(s);
    sinew_surface_tree *tree = sinew_surface_tree_build(&m);
    cr_assert(tree);
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t i = 0; i < m.vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m.positions[3 * i + k]);
            hi[k] = fmax(hi[k], m.positions[3 * i + k]);
        }
    uint64_t state = 12345;
    double worst_w = 0.0, worst_d = 0.0;
    for (uint32_t i = 0; i < points; i++) {
        double p[3], q[3], d = -1.0;
        for (int k = 0; k < 3; k++) {
            double mid = 0.5 * (lo[k] + hi[k]), half = 0.5 * (hi[k] - lo[k]) * spread;
            p[k] = mid + (2.0 * next(&state) - 1.0) * half;
        }
        worst_w = fmax(worst_w, fabs(sinew_surface_winding(tree, p) - exact_winding(&m, p)));
        cr_assert(sinew_surface_closest(tree, p, HUGE_VAL, q, &d));
        double brute = shape_distance(s, p);
        worst_d = fmax(worst_d, fabs(d - brute));
        /* Nothing found closer than the bound. */
        cr_assert(!sinew_surface_closest(tree, p, 0.999 * brute, q, &d) || brute == 0.0);
    }
    /* Far clusters by their dipole: about a hundredth at most. */
    cr_expect_lt(worst_w, 0.025, "winding number off by %g", worst_w);
    cr_expect_lt(worst_d, 1e-12 * (hi[0] - lo[0]), "distance off by %g", worst_d);
    sinew_surface_tree_destroy(tree);
    sinew_mesh_free(&m);
}

Test(surface_tree, winding_and_closest_against_brute_force)
{
    const double centre[3] = {0.1, -0.2, 0.3};
    shape s = shape_icosphere(3, 0.5, centre);
    compare(&s, 400, 1.6);
    shape_free(&s);
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/elephant.off", dir);
    s = shape_read(path);
    cr_assert_gt(s.vertex_count, 0, "%s", path);
    compare(&s, 200, 1.2);
    shape_free(&s);
}

Test(surface_tree, segments_cross_the_surface)
{
    const double centre[3] = {0, 0, 0};
    shape s = shape_icosphere(2, 1.0, centre);
    sinew_mesh m = shape_mesh(&s);
    sinew_surface_tree *tree = sinew_surface_tree_build(&m);
    const double inside[3] = {0.1, 0.05, 0.02}, outside[3] = {1.5, 0.3, 0.1}, far[3] = {3.0, 0.2, 0.1};
    cr_expect(sinew_surface_crosses(tree, inside, outside));
    cr_expect(!sinew_surface_crosses(tree, outside, far));
    cr_expect(!sinew_surface_crosses(tree, inside, centre));
    sinew_surface_tree_destroy(tree);
    sinew_mesh_free(&m);
    shape_free(&s);
}

/* Faces turned over at random: the lattice orients them back and finds the
 * same cubes as for the clean sphere. */
Test(surface_tree, lattice_orients_a_scrambled_surface)
{
    const double centre[3] = {0.1, -0.2, 0.3};
    shape s = shape_icosphere(3, 0.5, centre);
    sinew_mesh m = shape_mesh(&s);
    sinew_volume clean, scrambled;
    cr_assert_eq(sinew_volume_lattice(&m, 12, 0, "clean", NULL, &clean), SINEW_RESULT_OK);
    uint64_t state = 7;
    uint32_t turned = 0;
    for (uint32_t f = 0; f < m.face_count; f++)
        if (next(&state) < 0.3) {
            uint32_t *t = m.face_indices + 3 * f, x = t[1];
            t[1] = t[2];
            t[2] = x;
            turned++;
        }
    cr_assert_gt(turned, 100);
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_lattice(&m, 12, 0, "scrambled", &lg, &scrambled), SINEW_RESULT_OK, "%s", c.text);
    cr_expect(strstr(c.text, "faces turned over to orient the surface consistently"), "%s", c.text);
    cr_expect_eq(scrambled.tet_count, clean.tet_count);
    cr_expect_eq(memcmp(scrambled.tets, clean.tets, sizeof(uint32_t) * 4 * clean.tet_count), 0);
    /* All of it inside out: the same again. */
    for (uint32_t f = 0; f < m.face_count; f++) {
        uint32_t *t = m.face_indices + 3 * f, x = t[1];
        t[1] = t[2];
        t[2] = x;
    }
    sinew_volume_free(&scrambled);
    cr_assert_eq(sinew_volume_lattice(&m, 12, 0, "inverted", NULL, &scrambled), SINEW_RESULT_OK);
    cr_expect_eq(scrambled.tet_count, clean.tet_count);
    sinew_volume_free(&scrambled);
    sinew_volume_free(&clean);
    sinew_mesh_free(&m);
    shape_free(&s);
}

/* The lattice following the surface: every tetrahedron positive and above a
 * quarter of its cube's sixth, and the volume nearer the sphere's than the
 * staircase's. */
Test(surface_tree, lattice_follows_the_surface)
{
    const double centre[3] = {0, 0, 0};
    shape s = shape_icosphere(4, 0.5, centre);
    sinew_mesh m = shape_mesh(&s);
    const double enclosed = sinew_surface_enclosed_volume(&m);
    sinew_volume stair, follow;
    cr_assert_eq(sinew_volume_lattice(&m, 10, 0, "stair", NULL, &stair), SINEW_RESULT_OK);
    cr_assert_eq(sinew_volume_lattice(&m, 10, 1, "follow", NULL, &follow), SINEW_RESULT_OK);
    cr_assert_eq(stair.tet_count, follow.tet_count);
    const double h = 1.0 / 10.0;
    for (uint32_t t = 0; t < follow.tet_count; t++)
        cr_assert_geq(tet_volume(&follow, t), 0.25 * h * h * h / 6.0 * (1 - 1e-9), "tet %u", t);
    double e_stair = fabs(total_volume(&stair) - enclosed) / enclosed;
    double e_follow = fabs(total_volume(&follow) - enclosed) / enclosed;
    cr_expect_lt(e_follow, 0.5 * e_stair, "volume error %g following, %g staircase", e_follow, e_stair);
    cr_expect_lt(e_follow, 0.03, "%g", e_follow);
    /* The boundary's corners lie near the surface. */
    sinew_volume_free(&stair);
    sinew_volume_free(&follow);
    sinew_mesh_free(&m);
    shape_free(&s);
}

/* Whether some tetrahedron of v holds p (brute force, a rounding's slack). */
static int held(const sinew_volume *v, const double p[3])
{
    for (uint32_t t = 0; t < v->tet_count; t++) {
        const uint32_t *q = v->tets + 4 * t;
        const double *x[4] = {v->positions + 3 * q[0], v->positions + 3 * q[1], v->positions + 3 * q[2],
                              v->positions + 3 * q[3]};
        const double slack = -1e-9 * tet_volume(v, t);
        int in = 1;
        for (int k = 0; k < 4 && in; k++) {
            const double *y[4] = {x[0], x[1], x[2], x[3]};
            y[k] = p;
            in = sinew_tet_signed_volume(y[0], y[1], y[2], y[3]) >= slack;
        }
        if (in)
            return 1;
    }
    return 0;
}

/* Covering, for a render mesh to embed: every vertex of a sphere and of a
 * disc thinner than a cube lies in a tetrahedron, every tetrahedron keeps a
 * quarter of its cube's sixth and 0.3 of a lattice tetrahedron's shape, and
 * the sphere's volume grows by less than a fifth (following alone leaves
 * most of its vertices out). */
Test(surface_tree, lattice_covering_holds_every_vertex)
{
    const double centre[3] = {0, 0, 0}, h = 1.0 / 7.0;
    for (int disc = 0; disc < 2; disc++) {
        shape s = shape_icosphere(4, 0.5, centre);
        for (uint32_t i = 0; disc && i < s.vertex_count; i++)
            s.xyz[3 * i + 1] *= 0.1f; /* 0.1 m thick: no cube centre inside */
        sinew_mesh m = shape_mesh(&s);
        const double enclosed = sinew_surface_enclosed_volume(&m);
        sinew_volume follow, cover;
        capture c;
        sinew_logger lg = capture_logger(&c);
        cr_assert_eq(sinew_volume_lattice(&m, 7, SINEW_LATTICE_FOLLOW, "follow", NULL, &follow), SINEW_RESULT_OK);
        cr_assert_eq(sinew_volume_lattice(&m, 7, SINEW_LATTICE_FOLLOW | SINEW_LATTICE_COVER, "cover", &lg, &cover),
                     SINEW_RESULT_OK, "%s", c.text);
        cr_expect(strstr(c.text, "more cubes hold the surface's vertices"), "%s", c.text);
        cr_expect(strstr(c.text, "(0.00%) outside the tetrahedra"), "%s", c.text);
        uint32_t out_follow = 0;
        for (uint32_t i = 0; i < m.vertex_count; i++) {
            cr_assert(held(&cover, m.positions + 3 * i), "%s: vertex %u (%g %g %g) in no tetrahedron",
                      disc ? "disc" : "sphere", i, m.positions[3 * i], m.positions[3 * i + 1], m.positions[3 * i + 2]);
            out_follow += !held(&follow, m.positions + 3 * i);
        }
        for (uint32_t t = 0; t < cover.tet_count; t++) {
            cr_assert_geq(tet_volume(&cover, t), 0.25 * h * h * h / 6.0 * (1 - 1e-9), "tet %u", t);
            /* and 0.3 of a lattice tetrahedron's volume over its longest edge cubed */
            double longest2 = 0.0;
            for (int a = 0; a < 4; a++)
                for (int b = a + 1; b < 4; b++) {
                    const double *u = cover.positions + 3 * cover.tets[4 * t + a],
                                 *w = cover.positions + 3 * cover.tets[4 * t + b];
                    longest2 = fmax(longest2, (u[0] - w[0]) * (u[0] - w[0]) + (u[1] - w[1]) * (u[1] - w[1]) +
                                                  (u[2] - w[2]) * (u[2] - w[2]));
                }
            cr_assert_geq(tet_volume(&cover, t) / (longest2 * sqrt(longest2)), 0.3 / (6.0 * 3.0 * sqrt(3.0)) * (1 - 1e-9),
                          "tet %u", t);
        }
        cr_expect_gt(out_follow, m.vertex_count / 4, "following alone leaves %u of %u out", out_follow,
                     m.vertex_count);
        cr_log_info("%s: following leaves %u of %u vertices out; covering holds them all in %g m^3 (following: %g, "
                    "the surface encloses %g)", disc ? "disc" : "sphere", out_follow, m.vertex_count,
                    total_volume(&cover), total_volume(&follow), enclosed);
        if (!disc) {
            cr_expect_lt(total_volume(&cover), 1.2 * enclosed, "%g against %g", total_volume(&cover), enclosed);
            cr_expect_gt(total_volume(&cover), enclosed);
        }
        sinew_volume_free(&follow);
        sinew_volume_free(&cover);
        sinew_mesh_free(&m);
        shape_free(&s);
    }
}

/* ------------------------------------------------------------ volume checks */

/* A millimetre tetrahedron of 1.9e-10 m^3 (well shaped, just small) in a
 * mesh a metre across is kept; a sliver of the same size is not. */
Test(volume_checks, small_elements_judged_by_their_own_shape)
{
    const double p[27] = {0, 0, 0, 1e-3, 0, 0, 0, 1.1e-3, 0, 0, 0, 1.05e-3, /* small, well shaped */
                          1, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 2,                   /* large, a metre away */
                          0.5e-3, 0.5e-3, 1e-15};                               /* in the small one's base */
    const uint32_t good[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    sinew_volume v = tiny_volume(p, 9, good, 2);
    cr_assert_float_eq(tet_volume(&v, 0), 1e-3 * 1.1e-3 * 1.05e-3 / 6.0, 1e-20);
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_expect_eq(sinew_volume_check(&v, "small", &lg, NULL, NULL), SINEW_RESULT_OK, "%s", c.text);
    sinew_volume_free(&v);
    const uint32_t sliver[8] = {0, 1, 2, 8, 4, 5, 6, 7};
    v = tiny_volume(p, 9, sliver, 2);
    lg = capture_logger(&c);
    cr_expect_eq(sinew_volume_check(&v, "sliver", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_expect(strstr(c.text, "sliver: tetrahedron 0 (0 1 2 8)"), "%s", c.text);
    cr_expect(strstr(c.text, "flat: at most 1e-9 of its longest edge cubed"), "%s", c.text);
    /* Flat enough to turn over in single precision, 1e-7 of its size cubed. */
    v.positions[3 * 8 + 2] = 1e-10;
    lg = capture_logger(&c);
    cr_expect_eq(sinew_volume_check(&v, "float", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_expect(strstr(c.text, "its orientation is lost when its corners are rounded to single precision"), "%s",
              c.text);
    uint32_t first = 99;
    cr_expect_eq(sinew_volume_drop_degenerate(&v, &first), 1);
    cr_expect_eq(first, 0);
    cr_expect_eq(v.tet_count, 1);
    cr_expect_eq(v.tets[0], 4);
    sinew_volume_free(&v);
}

/* Pieces: a box is one; two boxes apart are two; cubes of a lattice touching
 * only along an edge are two. */
Test(volume_checks, pieces_are_joined_by_faces)
{
    const double size[3] = {1, 1, 1};
    sinew_volume a, b;
    cr_assert_eq(sinew_volume_box(3, 3, 3, size, NULL, &a), SINEW_RESULT_OK);
    uint32_t *piece = malloc(sizeof(uint32_t) * 2 * a.tet_count);
    cr_expect_eq(sinew_volume_pieces(&a, piece), 1);
    /* Two cubes sharing one edge: cube (0,0,0) and cube (1,1,0) of a 2x2x1 box. */
    cr_assert_eq(sinew_volume_box(3, 3, 2, size, NULL, &b), SINEW_RESULT_OK);
    uint8_t keep[24];
    for (uint32_t t = 0; t < 24; t++)
        keep[t] = t / 6 == 0 || t / 6 == 3;
    sinew_volume_keep_tets(&b, keep);
    cr_assert_eq(b.tet_count, 12);
    cr_expect_eq(sinew_volume_pieces(&b, piece), 2);
    for (uint32_t t = 0; t < 12; t++)
        cr_expect_eq(piece[t], t / 6, "tet %u in piece %u", t, piece[t]);
    sinew_volume_free(&a);
    sinew_volume_free(&b);
    free(piece);
}
