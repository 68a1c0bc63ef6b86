/* Self-collision on lavapipe with validation, against the CPU double
 * reference (tests/ref/selfcol_ref.c through xpbd_ref). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu_fixture.h"
#include "prep/intersect.h"
#include "prep/mesh.h"
#include "ref/xpbd_ref.h"

TestSuite(selfcol, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

static sinew_body_desc self_desc(void)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.self_collision = 1;
    d.self_thickness = 0.006f;
    d.substeps = 8;
    d.iterations = 2;
    d.stretch_compliance = 1e-6f;
    return d;
}

/* Two sheets a centimetre apart fall onto the ground, the upper one onto
 * the lower: the device's candidate lists and contacts against the CPU
 * double reference, step by step. They meet at about step 6; the largest
 * difference comes at the impact, and by step 20 the upper sheet rests on
 * the lower: 25 steps hold both. */
Test(selfcol, matches_reference)
{
    const double size = 0.3;
    sinew_asset *asset = gpu_layered_cloth(10, size, 0.05, 2, 0.01, 0.3);
    sinew_body_desc d = self_desc();
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    gpu_resolve_layout(asset, &d);
    xpbd_ref *ref = xpbd_ref_create(asset, &d);
    sinew_step_params p = sinew_step_params_default();
    p.contact_offset = 0.002f;
    uint32_t n = asset->particle_count;
    float *x = malloc(3 * n * sizeof *x);
    uint64_t contacts = 0;
    double worst = 0.0;
    for (int s = 0; s < 25; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        xpbd_ref_step(ref, &p);
        sinew_step_stats st = sinew_body_get_stats(body);
        uint64_t rc, rd, rk;
        xpbd_ref_self_counts(ref, &rc, &rd, &rk);
        /* float and double part at pairs on the edge of reach: a few in ten thousand */
        cr_assert_lt(fabs((double)st.self_candidates - (double)rc), 1e-3 * rc + 2,
                     "step %d: %llu candidates, the reference %llu", s, (unsigned long long)st.self_candidates,
                     (unsigned long long)rc);
        cr_assert_eq(st.self_dropped, rd);
        contacts += st.self_contacts;
        cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                worst = fmax(worst, fabs(x[3 * i + k] - xpbd_ref_position(ref, i)[k]));
    }
    cr_log_info("self-contacts projected: %llu; max |x_gpu - x_ref| / size = %.3g", (unsigned long long)contacts,
                worst / size);
    cr_assert_gt(contacts, 100, "the sheets should have met");
    cr_assert_lt(worst / size, 1e-4);
    /* the upper sheet rests on the lower one, a thickness above it */
    double low = 0, high = 0;
    uint32_t half = n / 2;
    for (uint32_t i = 0; i < half; i++)
        low += x[3 * i + 1] / half, high += x[3 * (half + i) + 1] / half;
    cr_log_info("mean heights %.4f and %.4f m", low, high);
    cr_assert_gt(high - low, 0.8 * d.self_thickness);
    free(x);
    xpbd_ref_destroy(ref);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

/* Refused, naming what is wrong, before anything is made. */
Test(selfcol, refusals)
{
    sinew_asset *asset = gpu_layered_cloth(6, 0.2, 0.1, 2, 0.01, 0.0);
    sinew_body *body = NULL;
    sinew_body_desc d = self_desc();
    d.self_thickness = NAN;
    gpu_log_clear();
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("self_thickness nan"), "%s", gpu_log_text());
    d = self_desc();
    d.self_thickness = 0.0f;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    d = self_desc();
    d.self_friction = -1.0f;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("self_friction -1"));
    d = self_desc();
    d.self_capacity = 33;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("self_capacity 33 is not in 1..32"));
    d = self_desc();
    d.solver = SINEW_SOLVER_PD_JACOBI;
    d.stretch_compliance = 1e-4f;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_assert(gpu_log_contains("self-collision is not available with the pd-jacobi solver"), "%s", gpu_log_text());
    d.solver = SINEW_SOLVER_IMPLICIT_MG;
    cr_assert_neq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    cr_assert_null(body);
    gpu_log_clear();
    sinew_asset_destroy(asset);
}

/* Capacity 1: candidates that do not fit are counted and warned about once;
 * the run stays finite and stable, and is the same bits twice. 15 steps: the
 * layers reach the ground at about step 6, and from then on capacity 1
 * drops tens of thousands of candidates a step. */
static uint64_t run_layers(uint32_t capacity, uint32_t steps, uint64_t *dropped)
{
    sinew_asset *asset = gpu_layered_cloth(10, 0.3, 0.05, 3, 0.012, 0.3);
    sinew_body_desc d = self_desc();
    d.self_capacity = capacity;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    *dropped = 0;
    for (uint32_t s = 0; s < steps; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "step %u", s);
        *dropped += sinew_body_get_stats(body).self_dropped;
    }
    uint64_t hash;
    cr_assert_eq(sinew_body_state_hash(body, &hash), SINEW_RESULT_OK);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
    return hash;
}

Test(selfcol, overflow_counted_and_deterministic)
{
    uint64_t dropped_a, dropped_b, dropped_full;
    gpu_log_clear();
    uint64_t a = run_layers(1, 15, &dropped_a);
    cr_assert_gt(dropped_a, 0, "capacity 1 should drop candidates");
    cr_assert(gpu_log_contains("did not fit in self_capacity (1)"), "%s", gpu_log_text());
    const char *first = strstr(gpu_log_text(), "did not fit");
    cr_assert_null(strstr(first + 1, "did not fit"), "warned once a body");
    gpu_log_clear();
    uint64_t b = run_layers(1, 15, &dropped_b);
    cr_assert_eq(a, b, "two runs: %016llx and %016llx", (unsigned long long)a, (unsigned long long)b);
    cr_assert_eq(dropped_a, dropped_b);
    uint64_t full = run_layers(32, 15, &dropped_full);
    cr_log_info("dropped: %llu with capacity 1, %llu with 32", (unsigned long long)dropped_a,
                (unsigned long long)dropped_full);
    cr_assert_neq(full, a);
    gpu_log_clear();
}

/* Three layers of cloth 15 mm apart fall onto the ground: with
 * self-collision they come to rest a thickness apart and no two triangles
 * sharing no vertex intersect; without, they lie in one another (the count is
 * reported for contrast). 12 x 12 particles a layer (edges of 36 mm, six
 * thicknesses); the layers reach the ground at about step 10: the run with
 * self-collision takes 30 steps (half a second, resting a thickness apart
 * by then), the one without 20 (all three flat on the ground). */
static uint64_t landed(const sinew_asset *asset, int self, uint32_t steps, double *gap)
{
    sinew_body_desc d = self_desc();
    d.self_collision = self;
    d.iterations = 4;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    for (uint32_t s = 0; s < steps; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "step %u", s);
    uint32_t n = asset->particle_count, tri_count = 0;
    const uint32_t *tris = sinew_asset_get_triangles(asset, &tri_count);
    float *x = malloc(sizeof *x * 3 * n);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    sinew_intersect_report rep;
    cr_assert_eq(sinew_count_intersections(x, n, tris, tri_count, gpu_logger(), &rep), SINEW_RESULT_OK);
    double mean[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++)
        mean[i / (n / 3)] += x[3 * i + 1] / (n / 3);
    *gap = fmin(mean[1] - mean[0], mean[2] - mean[1]);
    free(x);
    sinew_body_destroy(body);
    return rep.pairs;
}

Test(selfcol, layers_land_without_intersections)
{
    sinew_asset *asset = gpu_layered_cloth(12, 0.4, 0.1, 3, 0.015, 0.0);
    double gap_off, gap_on;
    uint64_t off = landed(asset, 0, 20, &gap_off);
    uint64_t on = landed(asset, 1, 30, &gap_on);
    cr_log_info("three layers landed: %llu intersecting triangle pairs without self-collision (layers %.4f m apart), "
                "%llu with it (%.4f m apart)", (unsigned long long)off, gap_off, (unsigned long long)on, gap_on);
    cr_assert_gt(off, 0, "without self-collision the layers should lie in one another");
    cr_assert_eq(on, 0);
    cr_assert_gt(gap_on, 0.8 * self_desc().self_thickness);
    gpu_log_clear(); /* the capacity warning at the impact is expected */
    sinew_asset_destroy(asset);
}

/* Self-collision keeps nothing from one step to the next but what a
 * checkpoint holds (its lists are rebuilt every substep): a body resumed from
 * a checkpoint goes on bit for bit as the one it was saved from. */
Test(selfcol, checkpoint_resumes_bit_for_bit)
{
    sinew_asset *asset = gpu_layered_cloth(10, 0.3, 0.05, 2, 0.01, 0.3);
    sinew_body_desc d = self_desc();
    sinew_body *a, *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &a), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &b), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    for (int s = 0; s < 8; s++) /* into the contact */
        cr_assert_eq(sinew_body_step(a, &p), SINEW_RESULT_OK);
    size_t size = sinew_body_checkpoint_size(a);
    void *cp = malloc(size);
    cr_assert_eq(sinew_body_save_checkpoint(a, cp, size), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_load_checkpoint(b, cp, size), SINEW_RESULT_OK);
    for (int s = 0; s < 12; s++) {
        cr_assert_eq(sinew_body_step(a, &p), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    }
    cr_assert_gt(sinew_body_get_stats(a).self_contacts, 0, "the sheets should be in contact");
    uint64_t ha, hb;
    cr_assert_eq(sinew_body_state_hash(a, &ha), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_state_hash(b, &hb), SINEW_RESULT_OK);
    cr_assert_eq(ha, hb, "%016llx against %016llx", (unsigned long long)ha, (unsigned long long)hb);
    free(cp);
    sinew_body_destroy(a);
    sinew_body_destroy(b);
    sinew_asset_destroy(asset);
}
