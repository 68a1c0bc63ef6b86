/* Cloth building: counts, masses, pins, clean-up, non-manifold edges, rest angles, and the dihedral gradient. */
/* Constraint counts on known meshes, masses, pins, the clean-up of
 * degenerate input, non-manifold edges, rest angles, the asset layout, and a
 * finite-difference check of the dihedral gradient the solvers rely on. The
 * finite elements for GPBD: test_cloth_elements.c; the tabulated fabric
 * reader: test_cloth_fabric.c. */
#include <criterion/criterion.h>

#include "cloth_fixture.h"
#include "prep/cloth.h"
#include "prep/fabric.h"
#include "math/xpbd_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t count_kind(const sinew_asset *a, uint32_t kind)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->distance_count; i++)
        n += a->distances[i].kind == kind;
    return n;
}

static double total_mass(const sinew_asset *a)
{
    double m = 0.0;
    for (uint32_t i = 0; i < a->particle_count; i++)
        m += 1.0 / a->particles[i].w;
    return m;
}

Test(cloth, grid_3x3_counts_and_mass)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(3, 3, 2.0, 2.0, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(a->particle_count, 9);
    cr_assert_eq(a->triangle_count, 8);
    cr_assert_eq(rep.stretch_count, 12);
    cr_assert_eq(rep.shear_count, 8);
    cr_assert_eq(count_kind(a, SINEW_KIND_STRETCH), 12);
    /* Interior edges of the triangulation: 4 grid edges and 4 quad diagonals. */
    cr_assert_eq(rep.bend_count, 8);
    for (uint32_t i = 0; i < a->bend_count; i++)
        cr_assert_float_eq(a->bends[i].rest_angle, 0.0f, 1e-6f);
    cr_assert_eq(rep.dropped_faces + rep.dropped_vertices + rep.nonmanifold_edges, 0);
    cr_assert_float_eq(total_mass(a), 0.2 * 4.0, 1e-6);
    uint32_t sum = 0;
    for (uint32_t k = 0; k < a->colour_count; k++)
        sum += a->colours[k].distance_count + a->colours[k].bend_count;
    cr_assert_eq(sum, 28);
    cr_assert(a->meta && strstr(a->meta, "generator=sinew-prep\n"));
    sinew_asset_destroy(a);
    sinew_mesh_free(&m);
}

Test(cloth, options_switch_shear_and_bending_off)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(4, 5, 1.0, 1.0, SINEW_GRID_XY, NULL, &m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.shear = 0;
    opt.bending = 0;
    opt.colouring = SINEW_COLOURING_GREEDY;
    opt.source_name = "grid\nwith\tcontrol";
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(rep.stretch_count, 3 * 5 + 4 * 4);
    cr_assert_eq(rep.shear_count + rep.bend_count, 0);
    cr_assert(strstr(a->meta, "source=grid?with?control\n"), "%s", a->meta);
    sinew_asset_destroy(a);
    sinew_mesh_free(&m);
}

/* A pentagon: fan diagonals are shear, and a diagonal that is another face's
 * edge stays stretch; triangles add no shear. */
Test(cloth, polygon_diagonals)
{
    const double p[] = {1, 0, 0, 0.31, 0.95, 0, -0.81, 0.59, 0, -0.81, -0.59, 0, 0.31, -0.95, 0, 2, 1, 0};
    const uint32_t off[] = {0, 5, 8}, idx[] = {0, 1, 2, 3, 4, 0, 5, 1};
    sinew_mesh m = borrowed_mesh(p, 6, off, idx, 2);
    sinew_cloth_options opt = sinew_cloth_options_default();
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(a->triangle_count, 4);
    cr_assert_eq(rep.stretch_count, 5 + 2);
    cr_assert_eq(rep.shear_count, 2);
    /* Interior: the two fan diagonals and the edge 0-1 shared with the triangle. */
    cr_assert_eq(rep.bend_count, 3);
    sinew_asset_destroy(a);

    /* Quad 0-1-2-3 whose diagonal 1-3 is an edge of triangle 1-3-4. */
    const double q[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1};
    const uint32_t qoff[] = {0, 4, 7}, qidx[] = {0, 1, 2, 3, 1, 3, 4};
    m = borrowed_mesh(q, 5, qoff, qidx, 2);
    a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(rep.stretch_count, 7);
    cr_assert_eq(rep.shear_count, 1);
    sinew_asset_destroy(a);
}

Test(cloth, pins_by_index_box_and_top)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(3, 3, 2.0, 2.0, SINEW_GRID_XY, NULL, &m), SINEW_RESULT_OK);
    sinew_cloth_report rep;
    const uint32_t pins[] = {0, 8, 8};
    struct {
        int by;
        uint32_t expect[3];
    } cases[] = {{0, {0, 8, 8}}, {1, {0, 3, 6}}, {2, {6, 7, 8}}};
    for (int c = 0; c < 3; c++) {
        sinew_cloth_options opt = sinew_cloth_options_default();
        if (cases[c].by == 0) {
            opt.pin_indices = pins;
            opt.pin_count = 3;
        } else if (cases[c].by == 1) {
            opt.pin_box = 1;
            const double lo[3] = {-1.0, -2.0, -0.5}, hi[3] = {-0.9, 2.0, 0.5};
            memcpy(opt.box_min, lo, sizeof lo);
            memcpy(opt.box_max, hi, sizeof hi);
        } else {
            opt.pin_top = 0.1;
        }
        sinew_asset *a = build(&m, &opt, NULL, &rep);
        for (uint32_t i = 0; i < a->particle_count; i++) {
            int pinned = i == cases[c].expect[0] || i == cases[c].expect[1] || i == cases[c].expect[2];
            cr_assert_eq(a->particles[i].w == 0.0f, pinned, "case %d particle %u w %g", c, i, a->particles[i].w);
        }
        sinew_asset_info info = sinew_asset_get_info(a);
        cr_assert_eq(info.pinned_count, c == 0 ? 2 : 3);
        sinew_asset_destroy(a);
    }
    sinew_mesh_free(&m);
}

/* Face 1 repeats a vertex, face 2 is flat (vertex 4 on the line 0-1); vertex 4
 * is then unused, and a pin on it only warns. */
Test(cloth, degenerate_faces_and_unused_vertices_dropped)
{
    const double p[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0};
    const uint32_t off[] = {0, 4, 7, 10}, idx[] = {0, 1, 2, 3, 1, 1, 2, 0, 1, 4};
    sinew_mesh m = borrowed_mesh(p, 5, off, idx, 3);
    const uint32_t pins[] = {4};
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.pin_indices = pins;
    opt.pin_count = 1;
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, &lg, &rep);
    cr_assert_eq(rep.dropped_faces, 2);
    cr_assert_eq(rep.dropped_vertices, 1);
    cr_assert_eq(a->particle_count, 4);
    cr_assert_eq(a->triangle_count, 2);
    cr_assert_eq(c.warnings, 3, "%s", c.text);
    cr_assert(strstr(c.text, "dropped 2 degenerate faces (repeated vertex or zero area), first: face 1"), "%s",
              c.text);
    cr_assert(strstr(c.text, "removed 1 vertices that no face uses, first: vertex 4"), "%s", c.text);
    cr_assert(strstr(c.text, "1 pins are on removed vertices, first: vertex 4"), "%s", c.text);
    sinew_asset_destroy(a);
}

/* Vertex 0 is unused: particles are renumbered, pins follow their vertices. */
Test(cloth, unused_vertex_compacted)
{
    const double p[] = {9, 9, 9, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const uint32_t off[] = {0, 4}, idx[] = {1, 2, 3, 4};
    sinew_mesh m = borrowed_mesh(p, 5, off, idx, 1);
    const uint32_t pins[] = {3};
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.pin_indices = pins;
    opt.pin_count = 1;
    sinew_logger quiet = {.level = SINEW_LOG_ERROR};
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, &quiet, &rep);
    cr_assert_eq(rep.dropped_vertices, 1);
    cr_assert_eq(a->particle_count, 4);
    cr_assert_eq(a->particles[0].x, 0.0f);
    cr_assert_eq(a->particles[2].y, 1.0f);
    cr_assert_eq(a->particles[2].w, 0.0f);
    cr_assert_neq(a->particles[1].w, 0.0f);
    sinew_asset_destroy(a);
}

Test(cloth, nonmanifold_edge_gets_no_bending)
{
    /* Three triangles on the edge 0-1, plus a fourth hinged on 1-2. */
    const double p[] = {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -1, 0, 0.5, 0, 1, 1.5, 1, 0.2};
    const uint32_t off[] = {0, 3, 6, 9, 12}, idx[] = {0, 1, 2, 1, 0, 3, 0, 1, 4, 1, 5, 2};
    sinew_mesh m = borrowed_mesh(p, 6, off, idx, 4);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_cloth_options opt = sinew_cloth_options_default();
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, &lg, &rep);
    cr_assert_eq(rep.nonmanifold_edges, 1);
    cr_assert_eq(rep.bend_count, 1);
    const sinew_bend_rec *b = &a->bends[0];
    cr_assert(b->v[0] == 1 && b->v[1] == 2 && b->v[2] == 0 && b->v[3] == 5);
    cr_assert(strstr(c.text, "1 non-manifold edges (shared by more than two triangles) get no bending, first: 0-1"),
              "%s", c.text);
    sinew_asset_destroy(a);
}

/* Wing 3 is wing 2's mirror image turned by phi about the hinge 0-1: by the
 * convention in xpbd_math.h the angle is -phi. */
Test(cloth, folded_hinge_rest_angle)
{
    const double phi = 1.0471975511965976; /* 60 degrees */
    const double p[] = {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -cos(phi), sin(phi)};
    const uint32_t off[] = {0, 3, 6}, idx[] = {0, 1, 2, 1, 0, 3};
    sinew_mesh m = borrowed_mesh(p, 4, off, idx, 2);
    sinew_cloth_options opt = sinew_cloth_options_default();
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(a->bend_count, 1);
    const sinew_bend_rec *b = &a->bends[0];
    const uint32_t expect[4] = {0, 1, 2, 3};
    cr_assert_arr_eq(b->v, expect, sizeof expect);
    cr_assert_float_eq(b->rest_angle, (float)-phi, 1e-6f);
    sinew_asset_destroy(a);
}

Test(cloth, bad_input_refused)
{
    const double p[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const uint32_t off[] = {0, 4}, idx[] = {0, 1, 2, 3}, bad_idx[] = {0, 1, 7, 3}, flat_idx[] = {0, 1, 1, 3};
    sinew_cloth_options opt = sinew_cloth_options_default();
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a;
    sinew_mesh m = borrowed_mesh(p, 4, off, bad_idx, 1);
    cr_assert_eq(sinew_cloth_build(&m, &opt, &lg, &a, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "face 0: vertex index 7 out of range (4 vertices)"), "%s", c.text);
    cr_assert_eq(a, NULL);

    lg = capture_logger(&c);
    m = borrowed_mesh(p, 4, off, flat_idx, 1);
    cr_assert_eq(sinew_cloth_build(&m, &opt, &lg, &a, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "no usable faces"), "%s", c.text);

    lg = capture_logger(&c);
    const double nan_p[] = {0, 0, 0, 1, NAN, 0, 1, 1, 0, 0, 1, 0};
    m = borrowed_mesh(nan_p, 4, off, idx, 1);
    cr_assert_eq(sinew_cloth_build(&m, &opt, &lg, &a, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "vertex 1 has a coordinate that is not finite"), "%s", c.text);

    m = borrowed_mesh(p, 4, off, idx, 1);
    const double densities[] = {0.0, -1.0, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
        opt.density = densities[i];
        lg = capture_logger(&c);
        cr_assert_eq(sinew_cloth_build(&m, &opt, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
        cr_assert(strstr(c.text, "density"), "%s", c.text);
    }
    opt = sinew_cloth_options_default();
    const uint32_t pins[] = {1, 99};
    opt.pin_indices = pins;
    opt.pin_count = 2;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_cloth_build(&m, &opt, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "pin index 99 (pin 1) out of range (4 vertices)"), "%s", c.text);
}

Test(cloth, deterministic)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(17, 13, 1.0, 0.7, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    sinew_cloth_report r1, r2;
    sinew_asset *a = build(&m, &opt, NULL, &r1), *b = build(&m, &opt, NULL, &r2);
    cr_assert_arr_eq(a->distances, b->distances, sizeof(sinew_distance_rec) * a->distance_count);
    cr_assert_arr_eq(a->bends, b->bends, sizeof(sinew_bend_rec) * a->bend_count);
    cr_assert_arr_eq(a->colours, b->colours, sizeof(sinew_colour_rec) * a->colour_count);
    sinew_asset_destroy(a);
    sinew_asset_destroy(b);
    sinew_mesh_free(&m);
}

/* Debian's CGAL demo data (GPL/LGPL): a real open surface. */
Test(cloth, cgal_mask_cone)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        cr_skip_test("SINEW_CGAL_DATA is not set");
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/mask_cone.off", dir);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, NULL, &m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.pin_top = 0.05;
    opt.source_name = "mask_cone.off";
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, &lg, &rep);
    printf("%s", c.text);
    cr_assert_eq(a->triangle_count + rep.dropped_faces, 2332);
    cr_assert_eq(rep.shear_count, 0);
    cr_assert_gt(rep.bend_count, 3000);
    sinew_asset_destroy(a);
    sinew_mesh_free(&m);
}

static double lcg_unit(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Central differences of sinew_dihedral_angle against sinew_dihedral_gradient on
 * random hinges away from degeneracy and from the +-pi branch cut. */
Test(xpbd_math, dihedral_gradient_matches_finite_differences)
{
    uint64_t s = 2024;
    int tested = 0;
    while (tested < 500) {
        double x[4][3];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                x[i][k] = lcg_unit(&s);
        double e[3], a[3], b[3], n1[3], n2[3];
        sinew_v3_sub(x[1], x[0], e);
        sinew_v3_sub(x[2], x[0], a);
        sinew_v3_sub(x[3], x[0], b);
        sinew_v3_cross(e, a, n1);
        sinew_v3_cross(b, e, n2);
        int ok;
        double theta = sinew_dihedral_angle(x[0], x[1], x[2], x[3], &ok);
        if (!ok || sinew_v3_dot(e, e) < 0.01 || sinew_v3_dot(n1, n1) < 0.01 || sinew_v3_dot(n2, n2) < 0.01 ||
            fabs(theta) > 2.8)
            continue;
        double g[4][3];
        cr_assert(sinew_dihedral_gradient(x[0], x[1], x[2], x[3], g));
        const double h = 1e-6;
        double diff2 = 0.0, norm2 = 0.0;
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++) {
                double keep = x[i][k];
                x[i][k] = keep + h;
                double up = sinew_dihedral_angle(x[0], x[1], x[2], x[3], NULL);
                x[i][k] = keep - h;
                double down = sinew_dihedral_angle(x[0], x[1], x[2], x[3], NULL);
                x[i][k] = keep;
                double fd = (up - down) / (2.0 * h);
                diff2 += (fd - g[i][k]) * (fd - g[i][k]);
                norm2 += g[i][k] * g[i][k];
            }
        cr_assert_leq(sqrt(diff2), 1e-5 * sqrt(norm2), "hinge %d: |fd - g| = %g, |g| = %g", tested, sqrt(diff2),
                      sqrt(norm2));
        tested++;
    }
}
