/* The health check's elements on the GPU: inverted tetrahedra and the largest
 * volume error counted on the device, in the health dispatch, match a count on
 * the host over the read-back positions; with desc.max_inverted or
 * desc.max_volume_error set the step fails UNSTABLE and rolls back, with the
 * defaults it only reports; a body without tetrahedra reports none, and bad
 * bounds are refused at creation. docs/reliability.md. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu_fixture.h"
#include "prep/soft.h"
#include "prep/volume.h"

TestSuite(health, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

/* A cube of n^3 vertices, side `size` m, centred on the origin (so vertex
 * (i, j, k), index (k n + j) n + i, lies at x = (i / (n - 1) - 1/2) size),
 * six tetrahedra a cell; pin_all pins every vertex (nothing moves). */
static sinew_asset *make_block(uint32_t n, double size, sinew_material_model model, int pin_all)
{
    sinew_volume v;
    const double sides[3] = {size, size, size};
    cr_assert_eq(sinew_volume_box(n, n, n, sides, NULL, &v), SINEW_RESULT_OK);
    sinew_soft_options o = sinew_soft_options_default();
    o.model = model;
    o.youngs_modulus = 1e5;
    if (pin_all) {
        o.pin_box = 1;
        for (int k = 0; k < 3; k++)
            o.box_min[k] = -size, o.box_max[k] = size;
    }
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_soft_build(&v, &o, gpu_logger(), &a, NULL), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_volume_free(&v);
    return a;
}

/* What the health check should find at positions xyz, on the host in double:
 * tetrahedra with det F <= 0, the lowest such index, the largest |det F - 1|;
 * and how many tetrahedra are too near the sign change (|det F| below `near`)
 * for single precision to be sure of their side. */
typedef struct element_count {
    uint32_t inverted, first, ambiguous;
    double max_error;
} element_count;

static element_count count_elements(const sinew_asset *a, const float *xyz, double near)
{
    element_count c = {0, UINT32_MAX, 0, 0.0};
    for (uint32_t e = 0; e < a->element_count; e++) {
        const sinew_element_rec *el = &a->elements[e];
        cr_assert_eq(el->kind, SINEW_ELEMENT_TET);
        double D[9], F[9] = {0};
        for (int col = 0; col < 3; col++)
            for (int q = 0; q < 3; q++)
                D[3 * col + q] = (double)xyz[3 * el->v[col + 1] + q] - xyz[3 * el->v[0] + q];
        for (int col = 0; col < 3; col++)
            for (int q = 0; q < 3; q++)
                for (int k = 0; k < 3; k++)
                    F[3 * col + q] += D[3 * k + q] * el->inv_rest[3 * col + k];
        double det = F[0] * (F[4] * F[8] - F[7] * F[5]) - F[3] * (F[1] * F[8] - F[7] * F[2]) +
                     F[6] * (F[1] * F[5] - F[4] * F[2]);
        if (det <= 0.0) {
            c.inverted++;
            c.first = e < c.first ? e : c.first;
        }
        c.ambiguous += fabs(det) < near;
        c.max_error = fmax(c.max_error, fabs(det - 1.0));
    }
    if (!c.inverted)
        c.first = 0;
    return c;
}

static float *positions(const sinew_asset *a)
{
    float *xyz = malloc(12ull * a->particle_count);
    cr_assert_not_null(xyz);
    for (uint32_t i = 0; i < a->particle_count; i++) {
        xyz[3 * i] = a->particles[i].x;
        xyz[3 * i + 1] = a->particles[i].y;
        xyz[3 * i + 2] = a->particles[i].z;
    }
    return xyz;
}

/* The block folded onto itself at x = 0, a plane of vertices: every
 * tetrahedron of the half x < 0 mirrored (det F = -1, |V/V0 - 1| = 2), the
 * other half as it was. */
static float *folded(const sinew_asset *a)
{
    float *xyz = positions(a);
    for (uint32_t i = 0; i < a->particle_count; i++)
        xyz[3 * i] = fabsf(xyz[3 * i]);
    return xyz;
}

static sinew_body *make_body(const sinew_asset *a, sinew_body_desc d)
{
    d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    d.substeps = 2;
    d.iterations = 4;
    d.name = "test block";
    sinew_body *body = NULL;
    sinew_result r = sinew_body_create(gpu_ctx, a, &d, &body);
    cr_assert_eq(r, SINEW_RESULT_OK, "body: %s\n%s", sinew_result_string(r), gpu_log_text());
    return body;
}

static sinew_step_params still(void)
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.gravity[1] = 0.0f;
    p.damping = 2.0f;
    return p;
}

static uint64_t hash_of(sinew_body *body)
{
    uint64_t h = 0;
    cr_assert_eq(sinew_body_state_hash(body, &h), SINEW_RESULT_OK);
    return h;
}

/* A pinned block folded in half: nothing moves, so the device's count is
 * exact: half the tetrahedra inverted, the lowest index the host's, the
 * largest volume error 2, and the residual's measure error (the same
 * measure, measure.glsl) agrees. The element check adds no dispatch. */
Test(health, folded_block_counted_exactly)
{
    const uint32_t n = 5;
    sinew_asset *a = make_block(n, 0.2, SINEW_MATERIAL_NEO_HOOKEAN, 1);
    sinew_body *body = make_body(a, sinew_body_desc_default());
    float *xyz = folded(a);
    cr_assert_eq(sinew_body_write_positions(body, xyz, a->particle_count), SINEW_RESULT_OK);
    const sinew_step_params p = still();
    cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "defaults only report");
    cr_assert_eq(sinew_body_read_positions(body, xyz, a->particle_count), SINEW_RESULT_OK);
    element_count host = count_elements(a, xyz, 0.0);
    sinew_step_stats st = sinew_body_get_stats(body);
    cr_log_info("folded block: %u of %u inverted (host %u), first %u (host %u), max |V/V0 - 1| %.9g (host %.9g, "
                "residual %.9g)",
                st.inverted_elements, a->element_count, host.inverted, st.first_inverted, host.first,
                st.max_volume_error, host.max_error, st.max_measure_error);
    cr_assert_eq(host.inverted, a->element_count / 2, "the fold inverts half the block");
    cr_assert_eq(st.inverted_elements, host.inverted);
    cr_assert_eq(st.first_inverted, host.first);
    cr_assert(fabs(st.max_volume_error - host.max_error) <= 1e-5 * host.max_error, "%.9g vs %.9g",
              st.max_volume_error, host.max_error);
    cr_assert(fabs(st.max_volume_error - st.max_measure_error) <= 1e-6 * st.max_measure_error,
              "health %.9g, residual %.9g", st.max_volume_error, st.max_measure_error);
    cr_assert_eq(st.bad_particles, 0);
    cr_assert(!st.rolled_back);
    cr_assert_eq(st.step_index, 1);

    sinew_body_desc unchecked = sinew_body_desc_default();
    unchecked.health_check = 0;
    sinew_body *bare = make_body(a, unchecked);
    sinew_step_stats none = sinew_body_get_stats(bare);
    cr_assert_eq(st.dispatches, none.dispatches,
                 "no dispatch of its own: particles and elements in the last substep's velocity dispatch");
    cr_assert_eq(st.barriers, none.barriers);
    cr_assert_eq(sinew_body_write_positions(bare, xyz, a->particle_count), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_step(bare, &p), SINEW_RESULT_OK);
    none = sinew_body_get_stats(bare);
    cr_assert_eq(none.inverted_elements, 0, "not checked");
    cr_assert_eq(none.first_inverted, 0);
    cr_assert(none.max_volume_error < 0.0f, "not checked: %g", none.max_volume_error);
    sinew_body_destroy(bare);
    free(xyz);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
}

/* A free block started mirrored (every tetrahedron inverted), recovering over
 * three steps of the elastic solve: after each the device's count matches the
 * host's on the read-back positions, up to the tetrahedra within float
 * rounding of flat. */
Test(health, mirrored_block_matches_host_count)
{
    sinew_asset *a = make_block(6, 0.25, SINEW_MATERIAL_NEO_HOOKEAN, 0);
    sinew_body *body = make_body(a, sinew_body_desc_default());
    float *xyz = positions(a);
    for (uint32_t i = 0; i < a->particle_count; i++)
        xyz[3 * i] = -xyz[3 * i];
    cr_assert_eq(sinew_body_write_positions(body, xyz, a->particle_count), SINEW_RESULT_OK);
    const sinew_step_params p = still();
    uint32_t most = 0;
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "defaults only report (step %d)", s);
        cr_assert_eq(sinew_body_read_positions(body, xyz, a->particle_count), SINEW_RESULT_OK);
        element_count host = count_elements(a, xyz, 1e-4);
        sinew_step_stats st = sinew_body_get_stats(body);
        cr_log_info("step %d: %u of %u inverted (host %u, %u near flat), first %u (host %u), max |V/V0 - 1| %.6g "
                    "(host %.6g)",
                    s + 1, st.inverted_elements, a->element_count, host.inverted, host.ambiguous,
                    st.first_inverted, host.first, st.max_volume_error, host.max_error);
        cr_assert(st.inverted_elements + host.ambiguous >= host.inverted &&
                      st.inverted_elements <= host.inverted + host.ambiguous,
                  "device %u, host %u (%u near flat)", st.inverted_elements, host.inverted, host.ambiguous);
        if (!host.ambiguous)
            cr_assert_eq(st.first_inverted, host.first);
        most = st.inverted_elements > most ? st.inverted_elements : most;
        cr_assert(fabs(st.max_volume_error - host.max_error) <= 1e-4 * (1.0 + host.max_error), "%.9g vs %.9g",
                  st.max_volume_error, host.max_error);
    }
    cr_assert(most > 0, "some still inverted a step after the mirroring");
    free(xyz);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
}

/* Bounds fail the step like a non-finite particle: UNSTABLE, the message
 * names the body, the count, the first element and the bound, and the body
 * is back where it was before the step. A count equal to max_inverted
 * passes. */
Test(health, bounds_fail_the_step_and_roll_back)
{
    sinew_asset *a = make_block(5, 0.2, SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 0);
    float *xyz = folded(a);
    const sinew_step_params p = still();
    for (int k = 0; k < 3; k++) {
        sinew_body_desc d = sinew_body_desc_default();
        if (k == 0)
            d.max_inverted = 0;
        else if (k == 1)
            d.max_volume_error = 0.5f;
        else
            d.max_inverted = a->element_count; /* no more than all of them */
        sinew_body *body = make_body(a, d);
        cr_assert_eq(sinew_body_write_positions(body, xyz, a->particle_count), SINEW_RESULT_OK);
        const uint64_t before = hash_of(body);
        gpu_log_clear();
        sinew_result r = sinew_body_step(body, &p);
        sinew_step_stats st = sinew_body_get_stats(body);
        if (k == 2) {
            cr_assert_eq(r, SINEW_RESULT_OK, "%s", gpu_log_text());
            cr_assert(st.inverted_elements > 0 && !st.rolled_back && st.step_index == 1);
            sinew_body_destroy(body);
            continue;
        }
        cr_assert_eq(r, SINEW_RESULT_ERROR_UNSTABLE, "bound %d: %s", k, sinew_result_string(r));
        cr_assert(st.rolled_back);
        cr_assert_eq(st.step_index, 0, "a rolled-back step does not count");
        cr_assert_eq(st.bad_particles, 0, "the particles are healthy");
        cr_assert(st.inverted_elements > 0 && st.max_volume_error > 1.0f, "%u inverted, error %g",
                  st.inverted_elements, st.max_volume_error);
        cr_assert_eq(hash_of(body), before, "rollback restores the state before the step");
        char text[256];
        if (k == 0)
            snprintf(text, sizeof text,
                     "body 'test block', step 1: %u of %u tetrahedra are inverted (det F <= 0; first: element %u), "
                     "more than max_inverted 0; rolled back",
                     st.inverted_elements, a->element_count, st.first_inverted);
        else
            snprintf(text, sizeof text, "more than max_volume_error 0.5 (%u inverted, first: element %u); rolled back",
                     st.inverted_elements, st.first_inverted);
        cr_assert(gpu_log_contains(text), "message: %s\nlog: %s", text, gpu_log_text());
        cr_assert(gpu_log_contains("[health]"));
        /* the run goes on from the state before the failed step */
        cr_assert_eq(sinew_body_read_positions(body, xyz, a->particle_count), SINEW_RESULT_OK);
        cr_assert_eq(count_elements(a, xyz, 0.0).inverted, a->element_count / 2);
        sinew_body_destroy(body);
    }
    gpu_log_clear();
    free(xyz);
    sinew_asset_destroy(a);
}

/* A cloth has no tetrahedra: nothing to count, max_volume_error negative,
 * even with bounds at their tightest. */
Test(health, cloth_has_no_elements_to_check)
{
    sinew_asset *cloth = gpu_make_cloth(8, 8, 0.5, 0.5, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.max_inverted = 0;
    d.max_volume_error = 0.0f;
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, cloth, &d, &body), SINEW_RESULT_OK);
    sinew_step_stats st = sinew_body_get_stats(body);
    cr_assert(st.max_volume_error < 0.0f, "before any step: %g", st.max_volume_error);
    const sinew_step_params p = sinew_step_params_default();
    for (int s = 0; s < 3; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    st = sinew_body_get_stats(body);
    cr_assert_eq(st.inverted_elements, 0);
    cr_assert_eq(st.first_inverted, 0);
    cr_assert(st.max_volume_error < 0.0f, "%g", st.max_volume_error);
    sinew_body_destroy(body);
    sinew_asset_destroy(cloth);
}

/* Bounds that are no numbers are refused at creation, naming the field;
 * infinity and 0 are bounds. */
Test(health, refusals)
{
    sinew_asset *a = make_block(3, 0.1, SINEW_MATERIAL_NEO_HOOKEAN, 0);
    const float bad[] = {NAN, -1.0f, -INFINITY};
    const char *said[] = {"max_volume_error nan is not >= 0", "max_volume_error -1 is not >= 0",
                          "max_volume_error -inf is not >= 0"};
    for (int k = 0; k < 3; k++) {
        sinew_body_desc d = sinew_body_desc_default();
        d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
        d.max_volume_error = bad[k];
        sinew_body *body = (sinew_body *)1;
        gpu_log_clear();
        cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
        cr_assert_null(body);
        cr_assert(gpu_log_contains(said[k]), "%s\nlog: %s", said[k], gpu_log_text());
    }
    const float good[] = {INFINITY, 0.0f};
    for (int k = 0; k < 2; k++) {
        sinew_body_desc d = sinew_body_desc_default();
        d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
        d.max_volume_error = good[k];
        d.max_inverted = k ? 0 : UINT32_MAX;
        sinew_body *body = NULL;
        cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
        sinew_body_destroy(body);
    }
    sinew_body_desc d = sinew_body_desc_default();
    cr_assert_eq(d.max_inverted, UINT32_MAX, "by default only reported");
    cr_assert(isinf(d.max_volume_error) && d.max_volume_error > 0.0f);
    gpu_log_clear();
    sinew_asset_destroy(a);
}
