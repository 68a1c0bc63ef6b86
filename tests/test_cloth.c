/* Cloth building: constraint counts on known meshes, masses, pins, the clean-up
 * of degenerate input, non-manifold edges, rest angles, the asset layout, and a
 * finite-difference check of the dihedral gradient the solvers rely on; the
 * finite elements for GPBD (membrane frames and inverse rest shapes, springs
 * against distances, element colourings) and the tabulated fabric reader. */
#include <criterion/criterion.h>

#include "prep/cloth.h"
#include "prep/fabric.h"
#include "math/xpbd_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct capture {
    char text[4096];
    int warnings;
} capture;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    c->warnings += level == SINEW_LOG_WARNING;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s\n", message);
}

static sinew_logger capture_logger(capture *c)
{
    memset(c, 0, sizeof *c);
    return (sinew_logger){capture_fn, c, SINEW_LOG_INFO};
}

/* A mesh over caller-owned arrays (sinew_mesh_free must not be called on it). */
static sinew_mesh borrowed_mesh(const double *positions, uint32_t vertex_count, const uint32_t *offsets,
                                const uint32_t *indices, uint32_t face_count)
{
    return (sinew_mesh){vertex_count, (double *)positions, face_count, (uint32_t *)offsets, (uint32_t *)indices};
}

/* Builds, checks the asset's invariants and the colour layout, returns it. */
static sinew_asset *build(const sinew_mesh *m, const sinew_cloth_options *opt, const sinew_logger *lg,
                          sinew_cloth_report *rep)
{
    sinew_asset *a = NULL;
    sinew_result r = sinew_cloth_build(m, opt, lg, &a, rep);
    cr_assert_eq(r, SINEW_RESULT_OK, "sinew_cloth_build: %s", sinew_result_string(r));
    cr_assert_eq(sinew_asset_validate(a, "built", NULL), SINEW_RESULT_OK);
    cr_assert_eq(a->distance_count, rep->stretch_count + rep->shear_count);
    cr_assert_eq(a->bend_count, rep->bend_count);
    cr_assert_eq(a->colour_count, rep->colour_count);
    /* Within a colour, distances keep build order: stretch before shear. */
    for (uint32_t k = 0; k < a->colour_count; k++) {
        const sinew_colour_rec *c = &a->colours[k];
        for (uint32_t i = c->distance_begin + 1; i < c->distance_begin + c->distance_count; i++)
            cr_assert_leq(a->distances[i - 1].kind, a->distances[i].kind);
    }
    return a;
}

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

/* ------------------------------------------------------------ GPBD elements */

static uint32_t element_arity(const sinew_element_rec *e)
{
    return e->kind == SINEW_ELEMENT_SPRING ? 2 : e->kind == SINEW_ELEMENT_TRIANGLE ? 3 : 4;
}

/* Element colour ranges tile the elements without gaps or empty colours, no
 * particle appears twice in one colour, unused slots are empty, materials exist. */
static void check_element_layout(const sinew_asset *a)
{
    uint32_t *stamp = calloc(a->particle_count, sizeof *stamp);
    cr_assert(stamp);
    uint32_t end = 0;
    for (uint32_t k = 0; k < a->element_colour_count; k++) {
        const sinew_element_colour_rec *c = &a->element_colours[k];
        cr_assert_eq(c->begin, end, "element colour %u begins at %u, not %u", k, c->begin, end);
        cr_assert_gt(c->count, 0);
        end += c->count;
        cr_assert_leq(end, a->element_count);
        for (uint32_t i = c->begin; i < end; i++) {
            const sinew_element_rec *e = &a->elements[i];
            cr_assert_lt(e->material, a->material_count);
            cr_assert_gt(e->rest_measure, 0.0f);
            for (uint32_t j = 0; j < 4; j++) {
                if (j >= element_arity(e)) {
                    cr_assert_eq(e->v[j], SINEW_NO_VERTEX);
                    continue;
                }
                cr_assert_lt(e->v[j], a->particle_count);
                cr_assert_neq(stamp[e->v[j]], k + 1, "particle %u twice in element colour %u", e->v[j], k);
                stamp[e->v[j]] = k + 1;
            }
        }
    }
    cr_assert_eq(end, a->element_count);
    free(stamp);
}

/* A 7 x 5 grid in the xz plane with a smooth bump in y: triangles of many
 * orientations. Particles are the mesh's vertices (none is dropped). */
static void bumpy_grid(sinew_mesh *m)
{
    cr_assert_eq(sinew_mesh_grid(7, 5, 1.2, 0.8, SINEW_GRID_XZ, NULL, m), SINEW_RESULT_OK);
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        double *p = m->positions + 3 * (size_t)i;
        p[1] += 0.3 * sin(2.5 * p[0]) * cos(3.0 * p[2]) + 0.1 * p[0];
    }
}

/* Independently of the builder: for every membrane element, in double, the
 * world edges times Dm^-1 give the material axes (F = [u v] at rest, so
 * F^T F = I), u is the warp's unit projection on the plane and v = n x u; the
 * stored floats are those doubles rounded; the areas add up to the mesh's. */
static void check_membrane(const sinew_asset *a, const sinew_mesh *m, const double warp[3], double *area_sum)
{
    *area_sum = 0.0;
    uint32_t membranes = 0;
    for (uint32_t i = 0; i < a->element_count; i++) {
        const sinew_element_rec *e = &a->elements[i];
        if (e->kind != SINEW_ELEMENT_TRIANGLE)
            continue;
        membranes++;
        const double *p[3];
        for (int k = 0; k < 3; k++)
            p[k] = m->positions + 3 * (size_t)e->v[k];
        double u[3], v[3], dm_inv[4];
        int fell_back = 1;
        double area = sinew_cloth_triangle_frame(p[0], p[1], p[2], warp, u, v, dm_inv, &fell_back);
        cr_assert_gt(area, 0.0);
        cr_assert_eq(fell_back, 0);
        cr_assert_eq(e->rest_measure, (float)area);
        cr_assert_eq(e->inv_rest[0], (float)dm_inv[0]);
        cr_assert_eq(e->inv_rest[1], (float)dm_inv[1]);
        cr_assert_eq(e->inv_rest[3], (float)dm_inv[2]);
        cr_assert_eq(e->inv_rest[4], (float)dm_inv[3]);
        static const int unused[5] = {2, 5, 6, 7, 8};
        for (int k = 0; k < 5; k++)
            cr_assert_eq(e->inv_rest[unused[k]], 0.0f, "inv_rest[%d] = %g", unused[k], e->inv_rest[unused[k]]);
        double e1[3], e2[3], n[3];
        sinew_v3_sub(p[1], p[0], e1);
        sinew_v3_sub(p[2], p[0], e2);
        sinew_v3_cross(e1, e2, n);
        double nn = sqrt(sinew_v3_dot(n, n));
        cr_assert(fabs(0.5 * nn - area) <= 1e-14 * area);
        double f[2][3]; /* columns of F = [e1 e2] Dm^-1 */
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 3; k++)
                f[c][k] = e1[k] * dm_inv[2 * c] + e2[k] * dm_inv[2 * c + 1];
        cr_assert(fabs(sinew_v3_dot(f[0], f[0]) - 1.0) < 1e-12 && fabs(sinew_v3_dot(f[1], f[1]) - 1.0) < 1e-12 &&
                      fabs(sinew_v3_dot(f[0], f[1])) < 1e-12,
                  "element %u: F^T F is not I", i);
        double wn = sinew_v3_dot(warp, n) / nn, proj[3];
        for (int k = 0; k < 3; k++)
            proj[k] = warp[k] - wn * n[k] / nn;
        double pl = sqrt(sinew_v3_dot(proj, proj)), vx[3];
        sinew_v3_cross(n, f[0], vx);
        for (int k = 0; k < 3; k++) {
            cr_assert(fabs(f[0][k] - proj[k] / pl) < 1e-12, "element %u: u is not the warp's projection", i);
            cr_assert(fabs(u[k] - f[0][k]) < 1e-12 && fabs(v[k] - f[1][k]) < 1e-12);
            cr_assert(fabs(f[1][k] - vx[k] / nn) < 1e-12, "element %u: v is not n x u", i);
        }
        /* The same from the float particles and the stored floats, to float accuracy. */
        double g[2][3];
        for (int k = 0; k < 3; k++) {
            const sinew_particle_rec *q0 = &a->particles[e->v[0]], *q1 = &a->particles[e->v[1]],
                                     *q2 = &a->particles[e->v[2]];
            double d1 = (double)(&q1->x)[k] - (&q0->x)[k], d2 = (double)(&q2->x)[k] - (&q0->x)[k];
            g[0][k] = d1 * e->inv_rest[0] + d2 * e->inv_rest[1];
            g[1][k] = d1 * e->inv_rest[3] + d2 * e->inv_rest[4];
        }
        cr_assert(fabs(sinew_v3_dot(g[0], g[0]) - 1.0) < 1e-5 && fabs(sinew_v3_dot(g[1], g[1]) - 1.0) < 1e-5 &&
                  fabs(sinew_v3_dot(g[0], g[1])) < 1e-5);
        *area_sum += area;
    }
    cr_assert_eq(membranes, a->triangle_count);
}

static double mesh_area(const sinew_mesh *m)
{
    double sum = 0.0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *v = m->face_indices + m->face_offsets[f];
        for (uint32_t i = 1; i + 1 < m->face_offsets[f + 1] - m->face_offsets[f]; i++) {
            double e1[3], e2[3], c[3];
            sinew_v3_sub(m->positions + 3 * (size_t)v[i], m->positions + 3 * (size_t)v[0], e1);
            sinew_v3_sub(m->positions + 3 * (size_t)v[i + 1], m->positions + 3 * (size_t)v[0], e2);
            sinew_v3_cross(e1, e2, c);
            sum += 0.5 * sqrt(sinew_v3_dot(c, c));
        }
    }
    return sum;
}

Test(cloth_elements, membrane_on_a_bumpy_grid)
{
    sinew_mesh m;
    bumpy_grid(&m);
    const double warps[3][3] = {{1, 0, 0}, {1, 1, 0}, {-0.3, 0.2, 2.0}};
    for (int w = 0; w < 3; w++) {
        sinew_cloth_options opt = sinew_cloth_options_default();
        opt.membrane = SINEW_MATERIAL_STVK;
        memcpy(opt.warp, warps[w], sizeof opt.warp);
        sinew_cloth_report rep;
        sinew_asset *a = build(&m, &opt, NULL, &rep);
        cr_assert_eq(a->triangle_count, 6 * 4 * 2);
        cr_assert_eq(a->element_count, a->triangle_count);
        cr_assert_eq(rep.membrane_count, a->triangle_count);
        cr_assert_eq(rep.spring_count + rep.warp_fallbacks, 0);
        cr_assert_eq(a->element_colour_count, rep.element_colour_count);
        /* The membrane replaces stretch and shear; bending stays. */
        cr_assert_eq(a->distance_count, 0);
        cr_assert_gt(a->bend_count, 0);
        cr_assert_eq(a->material_count, 1);
        cr_assert_eq(a->materials[0].model, SINEW_MATERIAL_STVK);
        cr_assert_eq(a->materials[0].youngs_modulus, opt.membrane_material.youngs_modulus);
        cr_assert_eq(a->materials[0].density, (float)opt.density);
        check_element_layout(a);
        /* Every triangle is an element, once, with its vertices in order. */
        uint8_t *seen = calloc(a->triangle_count, 1);
        for (uint32_t i = 0; i < a->element_count; i++) {
            uint32_t t = 0;
            while (t < a->triangle_count && memcmp(a->triangles[t].v, a->elements[i].v, sizeof a->triangles[t].v))
                t++;
            cr_assert_lt(t, a->triangle_count, "element %u is no triangle", i);
            cr_assert_eq(seen[t]++, 0);
        }
        free(seen);
        double area;
        check_membrane(a, &m, opt.warp, &area);
        cr_assert(fabs(area - mesh_area(&m)) <= 1e-12 * area, "areas %.17g, mesh %.17g", area, mesh_area(&m));
        cr_assert(strstr(a->meta, "membrane=stvk\n") && strstr(a->meta, "keep_distances=0\n"), "%s", a->meta);
        sinew_asset_destroy(a);
    }
    sinew_mesh_free(&m);
}

/* A flat 2 x 1.5 m sheet: areas add to 3 m^2; with keep_distances the
 * distances stay, and the default options make no elements at all. */
Test(cloth_elements, areas_kept_distances_and_none_by_default)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(9, 7, 2.0, 1.5, SINEW_GRID_XY, NULL, &m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(a->element_count + a->element_colour_count + a->material_count, 0);
    cr_assert_null(strstr(a->meta, "membrane="));
    uint32_t distances = a->distance_count;
    sinew_asset_destroy(a);

    opt.membrane = SINEW_MATERIAL_STVK;
    opt.keep_distances = 1;
    opt.warp[0] = 0.0;
    opt.warp[1] = 1.0; /* the sheet's v axis is then -x */
    a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(a->distance_count, distances);
    cr_assert_eq(rep.stretch_count + rep.shear_count, distances);
    double area;
    check_membrane(a, &m, opt.warp, &area);
    cr_assert(fabs(area - 3.0) < 1e-12, "%.17g", area);
    check_element_layout(a);
    sinew_asset_destroy(a);
    sinew_mesh_free(&m);
}

/* Triangles in the yz plane, warp along x (their normal): u falls back to the
 * first edge, counted and reported; a tilted warp is projected as usual. */
Test(cloth_elements, warp_normal_to_the_cloth_falls_back_to_the_first_edge)
{
    const double p[] = {0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1};
    const uint32_t off[] = {0, 4}, idx[] = {0, 1, 2, 3};
    sinew_mesh m = borrowed_mesh(p, 4, off, idx, 1);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.membrane = SINEW_MATERIAL_STVK;
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, &lg, &rep);
    cr_assert_eq(rep.warp_fallbacks, 2);
    cr_assert(strstr(c.text, "the warp direction is within 0.6 degrees of the normal of 2 triangles, whose u axis is "
                             "their first edge instead, first: 0-1-2"),
              "%s", c.text);
    for (uint32_t i = 0; i < a->element_count; i++) {
        const sinew_element_rec *e = &a->elements[i];
        /* u along X1 - X0: Dm = [|e1| b; 0 d], so Dm^-1 has a zero below its diagonal. */
        cr_assert_eq(e->inv_rest[1], 0.0f);
        cr_assert_gt(e->inv_rest[0], 0.0f);
        cr_assert_gt(e->inv_rest[4], 0.0f);
    }
    sinew_asset_destroy(a);

    opt.warp[0] = 1.0;
    opt.warp[1] = 0.1; /* 5.7 degrees off the normal: projected */
    lg = capture_logger(&c);
    a = build(&m, &opt, &lg, &rep);
    cr_assert_eq(rep.warp_fallbacks, 0);
    cr_assert_eq(c.warnings, 0, "%s", c.text);
    double area;
    check_membrane(a, &m, opt.warp, &area);
    cr_assert(fabs(area - 1.0) < 1e-12);
    sinew_asset_destroy(a);
}

/* Springs from the distances, without bending or membrane: one to one with the
 * distances (same particles, rest lengths, order) and coloured identically,
 * range for range, with either method; without keep_distances the distances
 * go and the springs stay the same. */
Test(cloth_elements, springs_match_distances)
{
    sinew_mesh m;
    bumpy_grid(&m);
    for (int method = 0; method < 2; method++) {
        sinew_cloth_options opt = sinew_cloth_options_default();
        opt.bending = 0;
        opt.colouring = (sinew_colouring_method)method;
        opt.springs = 1;
        opt.spring_compliance = 1e-6;
        opt.keep_distances = 1;
        sinew_cloth_report rep;
        sinew_asset *a = build(&m, &opt, NULL, &rep);
        cr_assert_eq(a->element_count, a->distance_count);
        cr_assert_eq(rep.spring_count, a->distance_count);
        cr_assert_eq(a->material_count, 1);
        cr_assert_eq(a->materials[0].model, SINEW_MATERIAL_SPRING);
        cr_assert_eq(a->materials[0].compliance, 1e-6f);
        for (uint32_t i = 0; i < a->element_count; i++) {
            const sinew_element_rec *e = &a->elements[i];
            const sinew_distance_rec *d = &a->distances[i];
            cr_assert_eq(e->kind, SINEW_ELEMENT_SPRING);
            cr_assert(e->v[0] == d->a && e->v[1] == d->b, "element %u: %u-%u, distance %u-%u", i, e->v[0], e->v[1],
                      d->a, d->b);
            cr_assert_eq(e->rest_measure, d->rest);
            cr_assert_eq(e->material, 0);
            for (int k = 0; k < 9; k++)
                cr_assert_eq(e->inv_rest[k], 0.0f);
        }
        cr_assert_eq(a->element_colour_count, a->colour_count);
        for (uint32_t k = 0; k < a->colour_count; k++) {
            cr_assert_eq(a->element_colours[k].begin, a->colours[k].distance_begin);
            cr_assert_eq(a->element_colours[k].count, a->colours[k].distance_count);
        }
        check_element_layout(a);

        opt.keep_distances = 0;
        sinew_asset *b = build(&m, &opt, NULL, &rep);
        cr_assert_eq(b->distance_count + b->bend_count + b->colour_count, 0);
        cr_assert_eq(b->element_count, a->element_count);
        cr_assert_arr_eq(b->elements, a->elements, sizeof(sinew_element_rec) * a->element_count);
        cr_assert_arr_eq(b->element_colours, a->element_colours,
                         sizeof(sinew_element_colour_rec) * a->element_colour_count);
        cr_assert(strstr(b->meta, "spring_compliance=9.9999999999999995e-07\n"), "%s", b->meta);
        sinew_asset_destroy(a);
        sinew_asset_destroy(b);
    }
    sinew_mesh_free(&m);
}

/* Membrane and springs together: two materials, elements of both kinds
 * coloured as one graph. */
Test(cloth_elements, membrane_and_springs_together)
{
    sinew_mesh m;
    bumpy_grid(&m);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.membrane = SINEW_MATERIAL_STVK;
    opt.springs = 1;
    opt.spring_compliance = 0.0;
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(a->material_count, 2);
    cr_assert_eq(a->materials[0].model, SINEW_MATERIAL_STVK);
    cr_assert_eq(a->materials[1].model, SINEW_MATERIAL_SPRING);
    cr_assert_eq(a->element_count, rep.membrane_count + rep.spring_count);
    cr_assert_eq(rep.membrane_count, a->triangle_count);
    for (uint32_t i = 0; i < a->element_count; i++)
        cr_assert_eq(a->elements[i].material, a->elements[i].kind == SINEW_ELEMENT_SPRING ? 1u : 0u);
    check_element_layout(a);
    sinew_asset_destroy(a);
    sinew_mesh_free(&m);
}

Test(cloth_elements, bad_element_options_refused)
{
    const double p[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const uint32_t off[] = {0, 4}, idx[] = {0, 1, 2, 3};
    sinew_mesh m = borrowed_mesh(p, 4, off, idx, 1);
    struct {
        uint32_t membrane, material_model;
        double warp, compliance, thickness;
        const char *message;
    } cases[] = {
        {SINEW_MATERIAL_NEO_HOOKEAN, SINEW_MATERIAL_NEO_HOOKEAN, 1, 0, 3e-4, "membrane model 1 is not STVK (3) or TABULATED (4)"},
        {SINEW_MATERIAL_TABULATED, SINEW_MATERIAL_STVK, 1, 0, 3e-4, "membrane is model 4 but membrane_material is model 3"},
        {SINEW_MATERIAL_STVK, SINEW_MATERIAL_STVK, 0, 0, 3e-4, "warp direction (0, 0, 0) must be finite and not zero"},
        {SINEW_MATERIAL_STVK, SINEW_MATERIAL_STVK, NAN, 0, 3e-4, "warp direction (nan, 0, 0)"},
        {SINEW_MATERIAL_STVK, SINEW_MATERIAL_STVK, 1, 0, -1.0, "cloth: membrane material"},
        {0, 0, 1, -1e-3, 3e-4, "spring compliance -0.001 m/N must be finite and >= 0"},
        {0, 0, 1, 1e300, 3e-4, "spring compliance 1e+300 m/N must be finite and >= 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sinew_cloth_options opt = sinew_cloth_options_default();
        opt.membrane = cases[i].membrane;
        opt.membrane_material.model = cases[i].material_model;
        opt.membrane_material.thickness = (float)cases[i].thickness;
        opt.warp[0] = cases[i].warp;
        opt.springs = cases[i].compliance != 0.0;
        opt.spring_compliance = cases[i].compliance;
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_asset *a = (sinew_asset *)&c;
        cr_assert_eq(sinew_cloth_build(&m, &opt, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "case %zu", i);
        cr_assert_null(a);
        cr_assert(strstr(c.text, cases[i].message), "case %zu: %s", i, c.text);
    }
}

/* ------------------------------------------------------------ fabrics */

#ifdef SINEW_HAVE_CJSON
#define NEED_CJSON()
#else
#define NEED_CJSON() cr_skip_test("built without cJSON")
#endif

#define FABRICS SINEW_TEST_DATA_DIR "/../../data/fabrics/"

static sinew_result parse(const char *text, capture *c, sinew_material *out)
{
    sinew_logger lg = capture_logger(c);
    return sinew_fabric_parse(text, strlen(text), "test.json", &lg, out);
}

/* Stress at x on a material's curve k, linear beyond the ends. */
static double table_stress(const sinew_material *m, int k, double x)
{
    const float *s = m->table_strain[k], *y = m->table_stress[k];
    int i = 1;
    while (i + 1 < SINEW_TABLE_POINTS && s[i] < x)
        i++;
    return y[i - 1] + (x - s[i - 1]) / (s[i] - s[i - 1]) * (y[i] - y[i - 1]);
}

static void check_table(const sinew_material *m)
{
    for (int k = 0; k < 3; k++)
        for (int i = 1; i < SINEW_TABLE_POINTS; i++) {
            cr_assert_gt(m->table_strain[k][i], m->table_strain[k][i - 1]);
            cr_assert_geq(m->table_stress[k][i], m->table_stress[k][i - 1]);
        }
}

Test(fabric, shipped_examples_load)
{
    NEED_CJSON();
    const char *names[] = {"woven_cotton", "knit_jersey", "denim"};
    const double thickness[] = {3e-4, 6e-4, 7e-4}, density[] = {0.12, 0.16, 0.40};
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, FABRICS "%s.json", names[i]);
        sinew_material f;
        capture c;
        sinew_logger lg = capture_logger(&c);
        cr_assert_eq(sinew_fabric_read(path, &lg, &f), SINEW_RESULT_OK, "%s: %s", path, c.text);
        cr_assert_eq(f.model, SINEW_MATERIAL_TABULATED);
        cr_assert_eq(f.thickness, (float)thickness[i]);
        cr_assert_eq(f.density, (float)density[i]);
        check_table(&f);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(f.table_strain[k][0], 0.0f);
    }
    /* The cotton's points as in the file, N/m divided by the thickness. */
    sinew_material f;
    cr_assert_eq(sinew_fabric_read(FABRICS "woven_cotton.json", NULL, &f), SINEW_RESULT_OK);
    const float warp_strain[8] = {0, 0.005f, 0.01f, 0.02f, 0.03f, 0.04f, 0.06f, 0.08f};
    const double warp_force[8] = {0, 15, 40, 120, 270, 470, 950, 1450};
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(f.table_strain[0][i], warp_strain[i]);
        cr_assert_eq(f.table_stress[0][i], (float)(warp_force[i] / 3e-4));
    }
    /* The knit's shear has 7 points: an eighth halfway along the longest interval. */
    cr_assert_eq(sinew_fabric_read(FABRICS "knit_jersey.json", NULL, &f), SINEW_RESULT_OK);
    cr_assert_eq(f.table_strain[2][2], 0.1f);
    cr_assert_eq(f.table_strain[2][3], 0.2f);
    cr_assert_float_eq(f.table_strain[2][7], 0.5f, 1e-7f);
    /* The knit is soft and anisotropic: the wales (warp) stiffer than the courses. */
    cr_assert_gt(table_stress(&f, 0, 0.3), 3.0 * table_stress(&f, 1, 0.3));
    /* It builds into a cloth asset with the fabric as its one material. */
    sinew_mesh m;
    bumpy_grid(&m);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.membrane = SINEW_MATERIAL_TABULATED;
    opt.membrane_material = f;
    opt.density = f.density;
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(a->material_count, 1);
    cr_assert_arr_eq(&a->materials[0], &f, sizeof f);
    cr_assert(strstr(a->meta, "membrane=tabulated\n"), "%s", a->meta);
    sinew_asset_destroy(a);
    sinew_mesh_free(&m);
}

#define GOOD_HEAD "{\"thickness\": 0.001, \"areal_density\": 0.2, "
#define CURVE8 "[[0, 0], [0.01, 1e4], [0.02, 3e4], [0.03, 6e4], [0.05, 1.2e5], [0.1, 3e5], [0.2, 7e5], [0.4, 1.6e6]]"

Test(fabric, eight_points_in_pascal_kept_exactly)
{
    NEED_CJSON();
    sinew_material f;
    capture c;
    cr_assert_eq(parse(GOOD_HEAD "\"warp\": " CURVE8 ", \"weft\": " CURVE8 ", \"shear\": " CURVE8 "}", &c, &f),
                 SINEW_RESULT_OK, "%s", c.text);
    const float x[8] = {0, 0.01f, 0.02f, 0.03f, 0.05f, 0.1f, 0.2f, 0.4f};
    const float y[8] = {0, 1e4f, 3e4f, 6e4f, 1.2e5f, 3e5f, 7e5f, 1.6e6f};
    for (int k = 0; k < 3; k++) {
        cr_assert_arr_eq(f.table_strain[k], x, sizeof x);
        cr_assert_arr_eq(f.table_stress[k], y, sizeof y);
    }
    cr_assert_eq(f.thickness, 0.001f);
    cr_assert_eq(f.density, 0.2f);
}

/* Fewer points are refined without changing the curve; a curve through zero
 * strain without a point there gets one, at stress 0. */
Test(fabric, short_curves_refined_exactly)
{
    NEED_CJSON();
    sinew_material f;
    capture c;
    cr_assert_eq(parse(GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1e5]], \"weft\": [[-0.2, -1e3], [0, 0], [0.05, 2e3], "
                                 "[0.5, 9e4]], \"shear\": [[-0.3, -3e3], [0.3, 3e3]]}",
                       &c, &f),
                 SINEW_RESULT_OK, "%s", c.text);
    check_table(&f);
    cr_assert_eq(f.table_strain[0][0], 0.0f);
    cr_assert_eq(f.table_strain[0][7], 0.1f);
    cr_assert_eq(f.table_strain[1][0], -0.2f);
    cr_assert_eq(f.table_strain[1][7], 0.5f);
    cr_assert_eq(f.table_strain[2][0], -0.3f);
    cr_assert_eq(f.table_strain[2][7], 0.3f);
    int zero = 0;
    for (int i = 0; i < 8; i++)
        if (f.table_strain[2][i] == 0.0f)
            zero += f.table_stress[2][i] == 0.0f;
    cr_assert_eq(zero, 1);
    const double weft_x[4] = {-0.2, 0, 0.05, 0.5}, weft_y[4] = {-1e3, 0, 2e3, 9e4};
    for (double x = -0.2; x <= 0.5; x += 0.01) {
        cr_assert_float_eq(table_stress(&f, 0, x < 0 ? 0 : x > 0.1 ? 0.1 : x), 1e6 * (x < 0 ? 0 : x > 0.1 ? 0.1 : x),
                           1.0);
        cr_assert_float_eq(table_stress(&f, 2, x), 1e4 * x, 0.01);
        int i = x < 0 ? 1 : x < 0.05 ? 2 : 3;
        double expect = weft_y[i - 1] + (x - weft_x[i - 1]) / (weft_x[i] - weft_x[i - 1]) * (weft_y[i] - weft_y[i - 1]);
        cr_assert_float_eq(table_stress(&f, 1, x), expect, 0.05);
    }
}

/* A long curve: the ends and zero kept, the other points among the file's,
 * chosen so the curve through them stays close. */
Test(fabric, long_curves_simplified)
{
    NEED_CJSON();
    char text[8192];
    int n = snprintf(text, sizeof text, GOOD_HEAD "\"warp\": [");
    double xs[41], ys[41];
    for (int i = 0; i < 41; i++) {
        xs[i] = -0.1 + 0.01 * i;
        ys[i] = xs[i] < 0 ? 2e5 * xs[i] : 1e6 * xs[i] + 3e7 * xs[i] * xs[i] * xs[i];
        n += snprintf(text + n, sizeof text - (size_t)n, "%s[%.17g, %.17g]", i ? ", " : "", xs[i], ys[i]);
    }
    snprintf(text + n, sizeof text - (size_t)n, "], \"weft\": " CURVE8 ", \"shear\": " CURVE8 "}");
    sinew_material f;
    capture c;
    cr_assert_eq(parse(text, &c, &f), SINEW_RESULT_OK, "%s", c.text);
    check_table(&f);
    cr_assert_eq(f.table_strain[0][0], (float)xs[0]);
    cr_assert_eq(f.table_strain[0][7], (float)xs[40]);
    int has_zero = 0;
    for (int i = 0; i < 8; i++) {
        int found = 0;
        for (int j = 0; j < 41; j++)
            found |= f.table_strain[0][i] == (float)xs[j] &&
                     (f.table_stress[0][i] == (float)ys[j] || (xs[j] == 0.0 && f.table_stress[0][i] == 0.0f));
        cr_assert(found, "point %d (%g, %g) is not one of the file's", i, f.table_strain[0][i], f.table_stress[0][i]);
        has_zero |= f.table_strain[0][i] == 0.0f && f.table_stress[0][i] == 0.0f;
    }
    cr_assert(has_zero);
    double worst = 0.0;
    for (int j = 0; j < 41; j++)
        worst = fmax(worst, fabs(table_stress(&f, 0, xs[j]) - ys[j]));
    /* The largest stress is 1.2e6 Pa; the cubic is kept to within 3 % of it. */
    cr_assert_lt(worst, 0.03 * ys[40], "worst %g", worst);
}

Test(fabric, stress_in_newton_per_metre_divided_by_thickness)
{
    NEED_CJSON();
    sinew_material f;
    capture c;
    cr_assert_eq(parse("{\"thickness\": 0.0005, \"areal_density\": 0.1, \"stress_unit\": \"N/m\", \"warp\": "
                       "[[0, 0], [0.1, 50]], \"weft\": [[0, 0], [0.1, 50]], \"shear\": [[0, 0], [0.1, 5]]}",
                       &c, &f),
                 SINEW_RESULT_OK, "%s", c.text);
    cr_assert_float_eq(f.table_stress[0][7], 1e5f, 1e-1f);
    cr_assert_float_eq(f.table_stress[2][7], 1e4f, 1e-2f);
}

#define CURVE2 "[[0, 0], [0.1, 1e5]]"
#define REST "\"weft\": " CURVE2 ", \"shear\": " CURVE2 "}"

Test(fabric, malformed_files_refused)
{
    NEED_CJSON();
    static char huge[200000];
    int n = snprintf(huge, sizeof huge, GOOD_HEAD "\"warp\": [");
    for (int i = 0; i < 5000; i++)
        n += snprintf(huge + n, sizeof huge - (size_t)n, "%s[%d, %d]", i ? "," : "", i, i);
    snprintf(huge + n, sizeof huge - (size_t)n, "], " REST);
    struct {
        const char *text, *message;
    } cases[] = {
        {"{\"areal_density\": 0.2, \"warp\": " CURVE2 ", " REST, "key \"thickness\": missing (m)"},
        {"{\"thickness\": 0.001, \"warp\": " CURVE2 ", " REST, "key \"areal_density\": missing (kg/m^2)"},
        {GOOD_HEAD REST, "key \"warp\": missing (an array of [strain, stress] pairs)"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"shear\": " CURVE2 "}", "key \"weft\": missing"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": " CURVE2 "}", "key \"shear\": missing"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": [[0, 0], [0.02, 1], [0.01, 2]], \"shear\": " CURVE2 "}",
         "key \"weft\": point 2: strain 0.01 does not increase (the previous is 0.02)"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1], [0.1, 2]], " REST, "key \"warp\": point 2: strain 0.1 does not increase"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, NaN]], " REST, "key \"warp\": not valid JSON at line 1, column 6"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": [[0, 0], [nan, 1]], \"shear\": " CURVE2 "}",
         "key \"weft\": not valid JSON"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1e999]], " REST, "key \"warp\": point 1: stress inf Pa is not in"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": " CURVE2 ", \"shear\": [[0, 0]]}",
         "key \"shear\": 1 points; a curve needs at least 2"},
        {GOOD_HEAD "\"warp\": [], " REST, "key \"warp\": 0 points; a curve needs at least 2"},
        {"{\"thickness\": \"0.001\", \"areal_density\": 0.2, \"warp\": " CURVE2 ", " REST,
         "key \"thickness\": not a number (m)"},
        {"{\"thickness\": 0.3, \"areal_density\": 0.2, \"warp\": " CURVE2 ", " REST,
         "key \"thickness\": 0.3 m is not in (0, 0.1]"},
        {"{\"thickness\": 0.001, \"areal_density\": 150, \"warp\": " CURVE2 ", " REST,
         "key \"areal_density\": 150 kg/m^2 is not in (0, 100]"},
        {"{\"thickness\": 1e-50, \"areal_density\": 0.2, \"warp\": " CURVE2 ", " REST,
         "key \"thickness\": 1e-50 m is zero in single precision"},
        {"{\"thickness\": 0.001, \"areal_density\": 1e-39, \"warp\": " CURVE2 ", " REST,
         "key \"areal_density\": 1e-39 kg/m^2 is zero in single precision"},
        {GOOD_HEAD "\"warp\": {\"0\": 0}, " REST, "key \"warp\": not an array of [strain, stress] pairs"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, \"1\"]], " REST, "key \"warp\": point 1 is not a pair of numbers"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1, 2]], " REST, "key \"warp\": point 1 is not a pair of numbers"},
        {GOOD_HEAD "\"warp\": [[0, 0], 0.1], " REST, "key \"warp\": point 1 is not a pair of numbers"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1]], " REST, "key \"warp\": point 1 is not a pair of numbers"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1e5], [0.2, 1e4]], " REST,
         "key \"warp\": point 2: stress 10000 Pa decreases (the previous is 100000 Pa)"},
        {GOOD_HEAD "\"warp\": [[0, 10], [0.1, 1e5]], " REST,
         "key \"warp\": stress at zero strain is 10 Pa, not 0: the rest shape would not be at rest"},
        {GOOD_HEAD "\"warp\": [[0.01, 0], [0.1, 1e5]], " REST,
         "key \"warp\": strains run from 0.01 to 0.1; the curve must include zero strain"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 0]], " REST, "key \"warp\": stress never rises above 0"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": [[-0.6, -1], [0, 0], [0.1, 1]], \"shear\": " CURVE2 "}",
         "key \"weft\": point 0: strain -0.6 is not in (-0.5, 100]"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": " CURVE2 ", \"shear\": [[0, 0], [1000, 1]]}",
         "key \"shear\": point 1: strain 1000 is not in (-100, 100]"},
        {GOOD_HEAD "\"warp\": [[0, 0], [1e-9, 1], [1.000000001e-9, 2]], " REST,
         "key \"warp\": strains 1e-09 and 1.000000001e-09 are the same in single precision"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"warp\": " CURVE2 ", " REST, "key \"warp\": appears 2 times"},
        {GOOD_HEAD "\"stress_unit\": \"kPa\", \"warp\": " CURVE2 ", " REST,
         "key \"stress_unit\": not \"Pa\" or \"N/m\""},
        {GOOD_HEAD "\"stress_unit\": 1, \"warp\": " CURVE2 ", " REST, "key \"stress_unit\": not \"Pa\" or \"N/m\""},
        {GOOD_HEAD "\"name\": 7, \"warp\": " CURVE2 ", " REST, "key \"name\": not a string"},
        {huge, "key \"warp\": more than 4096 points"},
        {"[" CURVE2 "]", "test.json: the top level is not a JSON object"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", " REST " {}", "key \"shear\": text after the JSON value at line 1"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1e5]", "key \"warp\": not valid JSON"},
        {"", "test.json: empty: not valid JSON at line 1, column 1"},
        {"{\n\"thickness\":\n 0.001,\n \"areal_density\": 0.2,\n \"warp\": [[0, 0], [0.1 1e5]]}",
         "key \"warp\": not valid JSON at line 5, column"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sinew_material f;
        memset(&f, 0x5a, sizeof f);
        capture c;
        cr_assert_eq(parse(cases[i].text, &c, &f), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "case %zu: %s", i, c.text);
        cr_assert(strstr(c.text, cases[i].message), "case %zu: expected \"%s\", got: %s", i, cases[i].message, c.text);
        cr_assert(!strncmp(c.text, "test.json: ", 11), "case %zu: %s", i, c.text);
        cr_assert_eq(f.model, 0x5a5a5a5au, "case %zu wrote its output", i);
    }
    /* A NUL byte, too large a text, a missing file. */
    sinew_material f;
    capture c;
    sinew_logger lg = capture_logger(&c);
    const char nul[] = GOOD_HEAD "\0\"warp\": []}";
    cr_assert_eq(sinew_fabric_parse(nul, sizeof nul - 1, "nul.json", &lg, &f), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "nul.json: key \"areal_density\": a NUL byte at line 1, column 44"), "%s", c.text);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_fabric_parse(huge, SINEW_FABRIC_MAX_BYTES + 1, "big.json", &lg, &f), SINEW_RESULT_ERROR_LIMIT);
    cr_assert(strstr(c.text, "big.json: larger than the reader's limit of 1048576 bytes"), "%s", c.text);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_fabric_read("/nonexistent/fabric.json", &lg, &f), SINEW_RESULT_ERROR_IO);
    cr_assert(strstr(c.text, "/nonexistent/fabric.json: cannot open"), "%s", c.text);
}

/* Mutations of a good file (bytes replaced, inserted, cut): each is read or
 * refused with a message, never crashes (the sanitizer build checks the rest),
 * and what is read is a valid table. */
Test(fabric, mutated_files_read_or_refused)
{
    NEED_CJSON();
    char *good = NULL;
    size_t size = 0;
    FILE *file = fopen(FABRICS "woven_cotton.json", "rb");
    cr_assert(file);
    good = malloc(1 << 16);
    size = fread(good, 1, 1 << 16, file);
    fclose(file);
    char *text = malloc(size + 16);
    static const char alphabet[] = "[]{},:\"0123456789.-eE \nNatrue";
    uint64_t s = 7;
    int ok = 0, refused = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(text, good, size);
        size_t n = size;
        int edits = 1 + round % 4;
        for (int e = 0; e < edits; e++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(s >> 33) % n;
            char byte = alphabet[(s >> 20) % (sizeof alphabet - 1)];
            switch ((s >> 10) % 3) {
            case 0:
                text[at] = byte;
                break;
            case 1:
                memmove(text + at + 1, text + at, n - at);
                text[at] = byte;
                n++;
                break;
            default:
                n = at + 1;
                break;
            }
            if (n > size + 8)
                break;
        }
        sinew_material f;
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_result r = sinew_fabric_parse(text, n, "mutant.json", &lg, &f);
        if (r == SINEW_RESULT_OK) {
            check_table(&f);
            ok++;
        } else {
            cr_assert_eq(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "round %d", round);
            cr_assert(strstr(c.text, "mutant.json: "), "round %d: %s", round, c.text);
            refused++;
        }
    }
    cr_assert_gt(ok, 0);
    cr_assert_gt(refused, 0);
    free(text);
    free(good);
}
