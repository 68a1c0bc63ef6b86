/* Cloth's finite elements for GPBD: membrane frames and inverse rest shapes, springs against distances, colourings. */
#include <criterion/criterion.h>

#include "cloth_fixture.h"
#include "prep/cloth.h"
#include "prep/fabric.h"
#include "math/xpbd_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
