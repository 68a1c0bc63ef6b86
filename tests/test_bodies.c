/* Collision between bodies (sinew_body_set_contact_bodies) on lavapipe with
 * validation, against the CPU double reference (tests/ref/selfcol_ref.c
 * through xpbd_ref), and the scenes that show it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu_fixture.h"
#include "prep/intersect.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "ref/xpbd_ref.h"

TestSuite(bodies, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

static sinew_body_desc cloth_desc(void)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.self_thickness = 0.006f;
    d.substeps = 8;
    d.iterations = 2;
    d.stretch_compliance = 1e-6f;
    return d;
}

static double mean_height(sinew_body *b, uint32_t n)
{
    float *x = malloc(sizeof *x * 3 * n);
    cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
    double y = 0;
    for (uint32_t i = 0; i < n; i++)
        y += x[3 * i + 1] / n;
    free(x);
    return y;
}

/* Two sheets, two bodies a centimetre apart, fall onto the ground, each in
 * the other's contact list, stepped one after the other: the device against
 * the CPU double reference stepped the same way, step by step; the upper
 * rests a thickness above the lower and no triangle of one crosses the
 * other. Without the lists the upper falls through the lower. */
Test(bodies, two_cloths_match_reference)
{
    const double size = 0.3;
    sinew_asset *lower = gpu_layered_cloth(10, size, 0.05, 1, 0.0, 0.0);
    sinew_asset *upper = gpu_turned_cloth(10, size, 0.06, 0.3); /* grids not aligned: no pair at a boundary */
    sinew_body_desc d = cloth_desc();
    sinew_body *a, *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, lower, &d, &a), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, upper, &d, &b), SINEW_RESULT_OK);
    const uint32_t plain = sinew_body_get_stats(a).dispatches;
    cr_assert_eq(sinew_body_set_contact_bodies(a, &b, 1), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_set_contact_bodies(b, &a, 1), SINEW_RESULT_OK);
    cr_assert_gt(sinew_body_get_stats(a).dispatches, plain, "the broad phase and contacts are recorded");
    gpu_resolve_layout(lower, &d);
    xpbd_ref *ra = xpbd_ref_create(lower, &d), *rb = xpbd_ref_create(upper, &d);
    xpbd_ref_set_contact_bodies(ra, (const sinew_asset *const[]){upper}, 1);
    xpbd_ref_set_contact_bodies(rb, (const sinew_asset *const[]){lower}, 1);
    sinew_step_params p = sinew_step_params_default();
    p.contact_offset = 0.002f;
    const uint32_t n = lower->particle_count;
    cr_assert_eq(upper->particle_count, n);
    float *x = malloc(sizeof *x * 3 * n);
    double *other = malloc(sizeof *other * 3 * n);
    uint64_t contacts = 0;
    double worst = 0.0;
    for (int s = 0; s < 40; s++) {
        for (int which = 0; which < 2; which++) {
            sinew_body *body = which ? b : a;
            xpbd_ref *ref = which ? rb : ra, *oref = which ? ra : rb;
            for (uint32_t i = 0; i < n; i++)
                memcpy(&other[3 * i], xpbd_ref_position(oref, i), 3 * sizeof *other);
            xpbd_ref_set_others(ref, other);
            cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
            xpbd_ref_step(ref, &p);
            sinew_step_stats st = sinew_body_get_stats(body);
            uint64_t rc, rd, rk;
            xpbd_ref_self_counts(ref, &rc, &rd, &rk);
            cr_assert_lt(fabs((double)st.self_candidates - (double)rc), 1e-3 * rc + 2,
                         "step %d body %d: %llu candidates, the reference %llu", s, which,
                         (unsigned long long)st.self_candidates, (unsigned long long)rc);
            cr_assert_eq(st.self_dropped, rd);
            contacts += st.self_contacts;
            cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
            for (uint32_t i = 0; i < n; i++)
                for (int k = 0; k < 3; k++)
                    worst = fmax(worst, fabs(x[3 * i + k] - xpbd_ref_position(ref, i)[k]));
        }
    }
    double gap = mean_height(b, n) - mean_height(a, n);
    uint64_t crossed = gpu_crossings(a, lower, b, upper);
    cr_log_info("two cloths: %llu contacts projected, max |x_gpu - x_ref| / size = %.3g, %.4f m apart, %llu crossing "
                "triangle pairs", (unsigned long long)contacts, worst / size, gap, (unsigned long long)crossed);
    cr_assert_gt(contacts, 100, "the sheets should have met");
    cr_assert_lt(worst / size, 1e-4);
    cr_assert_gt(gap, 0.8 * d.self_thickness);
    cr_assert_eq(crossed, 0);
    /* without the lists: the same start, and the upper sheet falls into the lower */
    cr_assert_eq(sinew_body_set_contact_bodies(a, NULL, 0), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_set_contact_bodies(b, NULL, 0), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_get_stats(a).dispatches, plain, "back to the step without collision");
    float *start = malloc(sizeof *start * 3 * n);
    for (int which = 0; which < 2; which++) {
        const sinew_asset *as = which ? upper : lower;
        for (uint32_t i = 0; i < n; i++)
            memcpy(&start[3 * i], &as->particles[i].x, 12);
        cr_assert_eq(sinew_body_write_positions(which ? b : a, start, n), SINEW_RESULT_OK);
    }
    for (int s = 0; s < 40; s++) {
        cr_assert_eq(sinew_body_step(a, &p), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    }
    uint64_t apart = gpu_crossings(a, lower, b, upper);
    cr_log_info("without contact lists: %llu crossing triangle pairs", (unsigned long long)apart);
    cr_assert_gt(apart, 0);
    free(start);
    free(x);
    free(other);
    xpbd_ref_destroy(ra);
    xpbd_ref_destroy(rb);
    sinew_body_destroy(a);
    sinew_body_destroy(b);
    sinew_asset_destroy(lower);
    sinew_asset_destroy(upper);
}

/* A cloth (XPBD) dropped onto a soft block (GPBD, neo-Hookean) resting on
 * the ground: with each in the other's list the cloth drapes over the block
 * and no triangle of one crosses the other; without, it falls through. */
static uint64_t drape(int listed, double *top_gap)
{
    sinew_volume v;
    const double size[3] = {0.3, 0.3, 0.3}, origin[3] = {0.0, 0.151, 0.0};
    cr_assert_eq(sinew_volume_box(5, 5, 5, size, origin, &v), SINEW_RESULT_OK);
    sinew_soft_options so = sinew_soft_options_default();
    sinew_asset *block_asset = NULL;
    cr_assert_eq(sinew_soft_build(&v, &so, gpu_logger(), &block_asset, NULL), SINEW_RESULT_OK);
    sinew_volume_free(&v);
    sinew_asset *cloth_asset = gpu_layered_cloth(14, 0.6, 0.36, 1, 0.0, 0.2);
    sinew_body_desc dc = cloth_desc(), db = sinew_body_desc_default();
    db.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    db.substeps = 8;
    db.iterations = 2;
    db.self_thickness = dc.self_thickness;
    sinew_body *cloth, *block;
    cr_assert_eq(sinew_body_create(gpu_ctx, block_asset, &db, &block), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, cloth_asset, &dc, &cloth), SINEW_RESULT_OK);
    if (listed) {
        cr_assert_eq(sinew_body_set_contact_bodies(cloth, &block, 1), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_set_contact_bodies(block, &cloth, 1), SINEW_RESULT_OK);
    }
    sinew_step_params p = sinew_step_params_default();
    for (int s = 0; s < 50; s++) {
        cr_assert_eq(sinew_body_step(cloth, &p), SINEW_RESULT_OK, "step %d", s);
        cr_assert_eq(sinew_body_step(block, &p), SINEW_RESULT_OK, "step %d", s);
    }
    /* the cloth's particles over the block's top, against the top's height */
    const uint32_t nc = cloth_asset->particle_count, nb = block_asset->particle_count;
    float *xc = malloc(sizeof *xc * 3 * nc), *xb = malloc(sizeof *xb * 3 * nb);
    cr_assert_eq(sinew_body_read_positions(cloth, xc, nc), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(block, xb, nb), SINEW_RESULT_OK);
    double top = -INFINITY, over = INFINITY;
    for (uint32_t i = 0; i < nb; i++)
        top = fmax(top, xb[3 * i + 1]);
    for (uint32_t i = 0; i < nc; i++)
        if (fabs(xc[3 * i]) < 0.1 && fabs(xc[3 * i + 2]) < 0.1)
            over = fmin(over, xc[3 * i + 1]);
    *top_gap = over - top;
    uint64_t crossed = gpu_crossings(cloth, cloth_asset, block, block_asset);
    free(xc);
    free(xb);
    sinew_body_destroy(cloth);
    sinew_body_destroy(block);
    sinew_asset_destroy(cloth_asset);
    sinew_asset_destroy(block_asset);
    return crossed;
}

Test(bodies, cloth_drapes_over_soft_block)
{
    double gap_on, gap_off;
    uint64_t on = drape(1, &gap_on);
    uint64_t off = drape(0, &gap_off);
    cr_log_info("cloth on a soft block: %llu crossing triangle pairs with contact lists (the cloth %.4f m above the "
                "block's top), %llu without (%.4f m)", (unsigned long long)on, gap_on, (unsigned long long)off,
                gap_off);
    cr_assert_eq(on, 0);
    cr_assert_gt(gap_on, 0.5 * cloth_desc().self_thickness);
    cr_assert_lt(gap_on, 3.0 * cloth_desc().self_thickness, "resting on the block, not floating");
    cr_assert_lt(gap_off, 0.0, "without the lists the cloth falls into the block");
    cr_assert_gt(off, 0);
    gpu_log_clear(); /* a capacity warning at the impact is allowed */
}

/* Refused, naming what is wrong, changing nothing; a body destroyed while
 * listed stays where it was, still, until the list drops it. */
Test(bodies, refusals_and_lifetime)
{
    sinew_asset *lower = gpu_layered_cloth(10, 0.5, 0.02, 1, 0.0, 0.0);
    sinew_asset *upper = gpu_layered_cloth(8, 0.3, 0.05, 1, 0.0, 0.3);
    sinew_body_desc d = cloth_desc();
    sinew_body *a, *b, *pd;
    cr_assert_eq(sinew_body_create(gpu_ctx, lower, &d, &a), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, upper, &d, &b), SINEW_RESULT_OK);
    const uint32_t plain = sinew_body_get_stats(b).dispatches;
    gpu_log_clear();
    sinew_body *none[1] = {NULL};
    cr_assert_eq(sinew_body_set_contact_bodies(b, none, 1), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("contact body 0 is NULL"), "%s", gpu_log_text());
    cr_assert_eq(sinew_body_set_contact_bodies(b, &b, 1), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("in its own contact list"), "%s", gpu_log_text());
    sinew_body *twice[2] = {a, a};
    cr_assert_eq(sinew_body_set_contact_bodies(b, twice, 2), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("is listed twice"), "%s", gpu_log_text());
    cr_assert_eq(sinew_body_set_contact_bodies(b, twice, SINEW_MAX_CONTACT_BODIES + 1),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("are more than 64"), "%s", gpu_log_text());
    sinew_asset *pd_asset = gpu_make_solver_asset(SINEW_SOLVER_PD_JACOBI);
    sinew_body_desc dp = sinew_body_desc_default();
    dp.solver = SINEW_SOLVER_PD_JACOBI;
    dp.stretch_compliance = dp.shear_compliance = 1e-4f;
    cr_assert_eq(sinew_body_create(gpu_ctx, pd_asset, &dp, &pd), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_set_contact_bodies(pd, &a, 1), SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_assert(gpu_log_contains("collision with other bodies is not available with the pd-jacobi solver"), "%s",
              gpu_log_text());
    sinew_body_desc bad = d;
    bad.self_thickness = -1.0f; /* checked when the list is set, as self-collision's at creation */
    sinew_body *c;
    cr_assert_eq(sinew_body_create(gpu_ctx, upper, &bad, &c), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_set_contact_bodies(c, &a, 1), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("self_thickness -1"), "%s", gpu_log_text());
    sinew_body_destroy(c);
    /* out of device memory for the new buffers: refused, the body as it was */
    sinew_context_set_device_memory_limit(gpu_ctx, sinew_context_get_device_memory(gpu_ctx) + 1024);
    cr_assert_eq(sinew_body_set_contact_bodies(b, &a, 1), SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    sinew_context_set_device_memory_limit(gpu_ctx, 0);
    cr_assert_eq(sinew_body_get_stats(b).dispatches, plain, "nothing changed");
    gpu_log_clear();
    /* b lists a; a is destroyed and stays, still, where b lands on it */
    cr_assert_eq(sinew_body_set_contact_bodies(b, &a, 1), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    p.ground_height = -1.0f; /* only the lower sheet holds the upper one */
    sinew_body_destroy(a);
    for (int s = 0; s < 30; s++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    double y = mean_height(b, upper->particle_count);
    cr_log_info("the upper sheet rests at %.4f m on the destroyed lower one at 0.02 m", y);
    cr_assert_gt(y, 0.02 + 0.5 * d.self_thickness);
    cr_assert_lt(y, 0.02 + 2.0 * d.self_thickness);
    cr_assert_gt(sinew_body_get_stats(b).self_contacts, 0);
    /* dropping the list lets the destroyed body go (the sanitizers see it freed) */
    cr_assert_eq(sinew_body_set_contact_bodies(b, NULL, 0), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_get_stats(b).self_contacts, 0);
    sinew_body_destroy(pd);
    sinew_body_destroy(b);
    sinew_asset_destroy(pd_asset);
    sinew_asset_destroy(lower);
    sinew_asset_destroy(upper);
}

/* Two bodies in each other's lists keep nothing from one step to the next
 * but what their checkpoints hold (the other's positions are copied anew
 * each step): a pair resumed from both checkpoints goes on bit for bit. */
Test(bodies, checkpoints_resume_bit_for_bit)
{
    sinew_asset *lower = gpu_layered_cloth(8, 0.3, 0.03, 1, 0.0, 0.0);
    sinew_asset *upper = gpu_layered_cloth(8, 0.3, 0.045, 1, 0.0, 0.3);
    sinew_body_desc d = cloth_desc();
    sinew_body *pair[2][2]; /* [run][lower, upper] */
    for (int run = 0; run < 2; run++) {
        cr_assert_eq(sinew_body_create(gpu_ctx, lower, &d, &pair[run][0]), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_create(gpu_ctx, upper, &d, &pair[run][1]), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_set_contact_bodies(pair[run][0], &pair[run][1], 1), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_set_contact_bodies(pair[run][1], &pair[run][0], 1), SINEW_RESULT_OK);
    }
    sinew_step_params p = sinew_step_params_default();
    for (int s = 0; s < 10; s++) /* into the contact */
        for (int k = 0; k < 2; k++)
            cr_assert_eq(sinew_body_step(pair[0][k], &p), SINEW_RESULT_OK);
    for (int k = 0; k < 2; k++) {
        size_t size = sinew_body_checkpoint_size(pair[0][k]);
        void *cp = malloc(size);
        cr_assert_eq(sinew_body_save_checkpoint(pair[0][k], cp, size), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_load_checkpoint(pair[1][k], cp, size), SINEW_RESULT_OK);
        free(cp);
    }
    for (int s = 0; s < 10; s++)
        for (int run = 0; run < 2; run++)
            for (int k = 0; k < 2; k++)
                cr_assert_eq(sinew_body_step(pair[run][k], &p), SINEW_RESULT_OK);
    cr_assert_gt(sinew_body_get_stats(pair[0][1]).self_contacts, 0, "the sheets should be in contact");
    for (int k = 0; k < 2; k++) {
        uint64_t h0, h1;
        cr_assert_eq(sinew_body_state_hash(pair[0][k], &h0), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_state_hash(pair[1][k], &h1), SINEW_RESULT_OK);
        cr_assert_eq(h0, h1, "body %d: %016llx against %016llx", k, (unsigned long long)h0, (unsigned long long)h1);
    }
    for (int run = 0; run < 2; run++)
        for (int k = 0; k < 2; k++)
            sinew_body_destroy(pair[run][k]);
    sinew_asset_destroy(lower);
    sinew_asset_destroy(upper);
}
