/* Contact between the bodies of a world (sinew_world_desc.contacts) on
 * lavapipe with validation: two soft blocks stacked on the ground, both
 * sides of their contact moved in the same iterations. The bottom block's
 * compression is the same whichever body joined first, and matches a CPU
 * double static solve of the coupled column (tests/ref/fem_ref.c); two
 * cloths dropped on each other in one world do not pass through. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "asset/merge.h"
#include "gpu_fixture.h"
#include "prep/intersect.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "ref/fem_ref.h"
#include "ref/xpbd_ref.h"
#include "solvers/gpbd.h"

TestSuite(world_contact, .init = gpu_setup, .fini = gpu_teardown, .timeout = 900);

#define CELLS 4 /* cells a side: 5^3 particles a block */
#define SIDE 0.2
#define E 1e5
#define NU 0.45

/* A block of CELLS^3 cells (CELLS + 1 particles a side; sinew_volume_box
 * counts vertices), `layers` blocks tall, its bottom face at height y. */
static sinew_asset *column(uint32_t layers, double y)
{
    sinew_volume v;
    const double size[3] = {SIDE, SIDE * layers, SIDE}, origin[3] = {0.0, y + SIDE * layers / 2, 0.0};
    cr_assert_eq(sinew_volume_box(CELLS + 1, CELLS * layers + 1, CELLS + 1, size, origin, &v), SINEW_RESULT_OK);
    sinew_soft_options opt = sinew_soft_options_default();
    opt.youngs_modulus = E;
    opt.poisson_ratio = NU;
    opt.density = 1000.0;
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_soft_build(&v, &opt, gpu_logger(), &a, NULL), SINEW_RESULT_OK);
    sinew_volume_free(&v);
    return a;
}

/* How much the particles that rest at height SIDE above the asset's bottom
 * have come down towards those at its bottom (m), at positions xyz. */
static double squeeze(const sinew_asset *a, const float *xyz)
{
    double base = INFINITY, lo = 0, hi = 0;
    uint32_t nl = 0, nh = 0;
    for (uint32_t i = 0; i < a->particle_count; i++)
        base = fmin(base, a->particles[i].y);
    for (uint32_t i = 0; i < a->particle_count; i++) {
        const double rest = a->particles[i].y - base;
        if (fabs(rest) < 1e-4)
            lo += xyz[3 * i + 1], nl++;
        else if (fabs(rest - SIDE) < 1e-4)
            hi += xyz[3 * i + 1], nh++;
    }
    cr_assert(nl > 0 && nh > 0);
    return SIDE - (hi / nh - lo / nl);
}

/* The CPU double static solve of the coupled system: with frictionless
 * contacts both blocks are under uniaxial stress and their touching faces
 * stretch alike, so the pair rests as one column two blocks tall standing
 * on a frictionless floor (its bottom held vertically; its middle bottom
 * particle held, and one beside it held across, to keep it from sliding
 * or turning). Gravity on the particles' masses; the compression at height
 * SIDE above its bottom. */
static double reference_squeeze(uint32_t layers)
{
    sinew_asset *a = column(layers, 0.0);
    const uint32_t n = a->particle_count;
    double *rest = malloc(sizeof *rest * 3 * n), *force = calloc(3 * (size_t)n, sizeof *force), *x;
    uint32_t *tets = malloc(sizeof *tets * 4 * a->element_count);
    unsigned char *held = calloc(n, 1);
    uint32_t centre = 0, beside = 0;
    for (uint32_t i = 0; i < n; i++) {
        const sinew_particle_rec *p = &a->particles[i];
        rest[3 * i] = p->x, rest[3 * i + 1] = p->y, rest[3 * i + 2] = p->z;
        force[3 * i + 1] = -9.81 / p->w;
        if (fabs(p->y) < 1e-6) {
            held[i] = 2; /* y */
            if (fabs(p->x) < 1e-6 && fabs(p->z) < 1e-6)
                centre = i;
            if (p->x > 0.05 * SIDE && p->x < 0.3 * SIDE && fabs(p->z) < 1e-6)
                beside = i;
        }
    }
    held[centre] = 7;
    held[beside] |= 4; /* z: no turning about the vertical */
    for (uint32_t e = 0; e < a->element_count; e++)
        memcpy(&tets[4 * e], a->elements[e].v, sizeof a->elements[e].v);
    const GpuMaterial gm = sinew_gpbd_material(&a->materials[0]);
    const fem_ref_material m = fem_ref_material_device(&gm);
    fem_ref_problem prob = {n, rest, a->element_count, tets, &m, NULL, force, NULL, held};
    x = malloc(sizeof *x * 3 * n);
    memcpy(x, rest, sizeof *x * 3 * n);
    fem_ref_stats st;
    cr_assert_eq(fem_ref_solve(&prob, 1e-10, 50, x, &st), 1);
    double sum = 0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (fabs(rest[3 * i + 1] - SIDE) < 1e-4) {
            sum += rest[3 * i + 1] - x[3 * i + 1];
            count++;
        }
    cr_assert_eq(count, (CELLS + 1) * (CELLS + 1));
    free(rest), free(force), free(x), free(tets), free(held);
    sinew_asset_destroy(a);
    return sum / count;
}

static sinew_body_desc block_desc(sinew_world *w)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    d.substeps = 16;
    d.iterations = 4;
    d.timestamps = 0;
    d.residual = 0;
    d.self_thickness = 0.004f;
    /* nearly frictionless, as the reference's floor and faces (a little
     * friction keeps the top block from drifting off on the tetrahedra's
     * slant: frictionless, it slides and the compression grows by 8 % from
     * 60 to 90 steps) */
    d.self_friction = 0.05f;
    d.world = w;
    return d;
}

static sinew_step_params settle_params(void)
{
    sinew_step_params p = sinew_step_params_default();
    p.friction = 0.05f; /* the floor likewise */
    p.damping = 20.0f;  /* to rest sooner; the rest shape does not depend on it */
    return p;
}

/* The bottom block's compression at rest: alone, with the top block on it
 * (the top joining the world first or second), or (`layers` 2 without a
 * top) as the lower half of one body two blocks tall. */
static double rest_squeeze(uint32_t layers, int with_top, int top_first, uint32_t steps)
{
    const double gap = 0.006;
    sinew_asset *bottom = column(layers, 0.0), *top = column(1, SIDE + gap);
    sinew_world *w;
    sinew_world_desc wd = sinew_world_desc_default();
    wd.contacts = 1;
    cr_assert_eq(sinew_world_create(gpu_ctx, &wd, &w), SINEW_RESULT_OK);
    sinew_body_desc d = block_desc(w);
    sinew_body *bb = NULL, *tb = NULL;
    if (with_top && top_first)
        cr_assert_eq(sinew_body_create(gpu_ctx, top, &d, &tb), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, bottom, &d, &bb), SINEW_RESULT_OK);
    if (with_top && !top_first)
        cr_assert_eq(sinew_body_create(gpu_ctx, top, &d, &tb), SINEW_RESULT_OK);
    const sinew_step_params p = settle_params();
    for (uint32_t i = 0; i < steps; i++)
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK, "step %u", i);
    cr_expect_eq(sinew_world_get_stats(w).chain_count, 1, "the blocks share one batch");
    const uint32_t n = bottom->particle_count;
    float *x = malloc(sizeof *x * 3 * n);
    cr_assert_eq(sinew_body_read_positions(bb, x, n), SINEW_RESULT_OK);
    const double s = squeeze(bottom, x);
    if (tb) { /* the top block rests on the bottom one, not in it */
        double high = -INFINITY, low = INFINITY;
        for (uint32_t i = 0; i < n; i++)
            high = fmax(high, x[3 * i + 1]);
        cr_assert_eq(sinew_body_read_positions(tb, x, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++)
            low = fmin(low, x[3 * i + 1]);
        cr_expect_gt(low, high, "the top block's lowest particle %g is above the bottom block's top %g", low, high);
        cr_expect_lt(low - high, 0.01, "and on it (%g m apart)", low - high);
    }
    free(x);
    sinew_world_destroy(w);
    sinew_asset_destroy(bottom);
    sinew_asset_destroy(top);
    return s;
}

Test(world_contact, stacked_blocks_press_each_other)
{
    const uint32_t steps = 90;
    const double alone = rest_squeeze(1, 0, 0, 60); /* one block comes to rest sooner */
    const double below = rest_squeeze(1, 1, 0, steps), above = rest_squeeze(1, 1, 1, steps);
    const double ref_alone = reference_squeeze(1), ref_stack = reference_squeeze(2);
    cr_log_info("bottom block's compression: alone %.3f mm (reference %.3f), stacked %.3f mm bottom first, "
                "%.3f mm top first (reference %.3f)", 1e3 * alone, 1e3 * ref_alone, 1e3 * below, 1e3 * above,
                1e3 * ref_stack);
    cr_expect_lt(fabs(below - above), 0.03 * fabs(below), "order: %.4f mm against %.4f mm", 1e3 * below,
                 1e3 * above);
    cr_expect_lt(fabs(below - ref_stack), 0.05 * ref_stack, "stacked %.4f mm, reference %.4f mm", 1e3 * below,
                 1e3 * ref_stack);
    cr_expect_lt(fabs(above - ref_stack), 0.05 * ref_stack, "stacked %.4f mm, reference %.4f mm", 1e3 * above,
                 1e3 * ref_stack);
    cr_expect_lt(fabs(alone - ref_alone), 0.05 * ref_alone, "alone %.4f mm, reference %.4f mm", 1e3 * alone,
                 1e3 * ref_alone);
    cr_expect_gt(below, 2.5 * alone, "the top block's weight is felt: %.4f mm against %.4f alone", 1e3 * below,
                 1e3 * alone);
}

/* Two sheets a centimetre apart fall onto the ground in one world with
 * contacts: one batch, both moved in the same iterations. The device
 * against the CPU double reference of the coupled system (the two assets
 * merged, self-collision over both surfaces) step by step; the upper rests
 * a thickness above the lower and no triangle of one crosses the other. */
Test(world_contact, two_cloths_match_reference)
{
    const double size = 0.3;
    sinew_asset *lower = gpu_layered_cloth(10, size, 0.05, 1, 0.0, 0.0);
    sinew_asset *upper = gpu_turned_cloth(10, size, 0.06, 0.3);
    sinew_world *w;
    sinew_world_desc wd = sinew_world_desc_default();
    wd.contacts = 1;
    cr_assert_eq(sinew_world_create(gpu_ctx, &wd, &w), SINEW_RESULT_OK);
    sinew_body_desc d = sinew_body_desc_default();
    d.self_thickness = 0.006f;
    d.substeps = 8;
    d.iterations = 2;
    d.stretch_compliance = 1e-6f;
    d.timestamps = 0;
    d.self_collision = 1; /* each sheet with itself too, as the reference's merged pair */
    d.world = w;
    sinew_body *a, *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, lower, &d, &a), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, upper, &d, &b), SINEW_RESULT_OK);
    const sinew_asset *pair[2] = {lower, upper};
    sinew_asset *merged = NULL;
    sinew_merge_map maps[2];
    cr_assert_eq(sinew_asset_merge(pair, 2, gpu_logger(), &merged, maps), SINEW_RESULT_OK);
    sinew_body_desc rd = d;
    rd.world = NULL;
    rd.self_collision = 1;
    gpu_resolve_layout(merged, &rd);
    xpbd_ref *ref = xpbd_ref_create(merged, &rd);
    sinew_step_params p = sinew_step_params_default();
    p.contact_offset = 0.002f;
    const uint32_t n = lower->particle_count;
    float *x = malloc(sizeof *x * 3 * n);
    uint64_t contacts = 0;
    double worst = 0.0;
    for (int s = 0; s < 40; s++) {
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
        xpbd_ref_step(ref, &p);
        contacts += sinew_body_get_stats(a).self_contacts;
        for (int which = 0; which < 2; which++) {
            cr_assert_eq(sinew_body_read_positions(which ? b : a, x, n), SINEW_RESULT_OK);
            for (uint32_t i = 0; i < n; i++)
                for (int k = 0; k < 3; k++)
                    worst = fmax(worst, fabs(x[3 * i + k] - xpbd_ref_position(ref, maps[which].particle_first + i)[k]));
        }
    }
    const sinew_world_stats ws = sinew_world_get_stats(w);
    cr_expect_eq(ws.chain_count, 1);
    cr_expect_eq(ws.submits, 1);
    double ya = 0, yb = 0;
    cr_assert_eq(sinew_body_read_positions(a, x, n), SINEW_RESULT_OK);
    for (uint32_t i = 0; i < n; i++)
        ya += x[3 * i + 1] / n;
    cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
    for (uint32_t i = 0; i < n; i++)
        yb += x[3 * i + 1] / n;
    const uint64_t crossed = gpu_crossings(a, lower, b, upper);
    cr_log_info("two cloths in one world: %llu contacts projected, max |x_gpu - x_ref| / size = %.3g, %.4f m apart, "
                "%llu crossing triangle pairs", (unsigned long long)contacts, worst / size, yb - ya,
                (unsigned long long)crossed);
    cr_expect_gt(contacts, 100, "the sheets should have met");
    cr_expect_lt(worst / size, 1e-4);
    cr_expect_gt(yb - ya, 0.8 * d.self_thickness);
    cr_expect_eq(crossed, 0);
    free(x);
    xpbd_ref_destroy(ref);
    sinew_merge_map_free(&maps[0]);
    sinew_merge_map_free(&maps[1]);
    sinew_asset_destroy(merged);
    sinew_world_destroy(w);
    sinew_asset_destroy(lower);
    sinew_asset_destroy(upper);
}

/* A cloth (XPBD) dropped onto a soft block (GPBD) on the ground in one world
 * with contacts: two families, two chains, each seeing the other's surface;
 * the cloth drapes over the block and no triangle of one crosses the
 * other. */
Test(world_contact, cloth_drapes_over_soft_block)
{
    sinew_volume v;
    const double size[3] = {0.3, 0.3, 0.3}, origin[3] = {0.0, 0.151, 0.0};
    cr_assert_eq(sinew_volume_box(5, 5, 5, size, origin, &v), SINEW_RESULT_OK);
    sinew_soft_options so = sinew_soft_options_default();
    sinew_asset *block_asset = NULL;
    cr_assert_eq(sinew_soft_build(&v, &so, gpu_logger(), &block_asset, NULL), SINEW_RESULT_OK);
    sinew_volume_free(&v);
    sinew_asset *cloth_asset = gpu_layered_cloth(14, 0.6, 0.36, 1, 0.0, 0.2);
    sinew_world *w;
    sinew_world_desc wd = sinew_world_desc_default();
    wd.contacts = 1;
    cr_assert_eq(sinew_world_create(gpu_ctx, &wd, &w), SINEW_RESULT_OK);
    sinew_body_desc dc = sinew_body_desc_default(), db = sinew_body_desc_default();
    dc.self_thickness = 0.006f;
    dc.substeps = 8;
    dc.iterations = 2;
    dc.stretch_compliance = 1e-6f;
    dc.world = w;
    db.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    db.substeps = 8;
    db.iterations = 2;
    db.self_thickness = dc.self_thickness;
    db.world = w;
    sinew_body *cloth, *block;
    cr_assert_eq(sinew_body_create(gpu_ctx, block_asset, &db, &block), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, cloth_asset, &dc, &cloth), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    for (int s = 0; s < 50; s++)
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK, "step %d", s);
    cr_expect_eq(sinew_world_get_stats(w).chain_count, 2);
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
    const uint64_t crossed = gpu_crossings(cloth, cloth_asset, block, block_asset);
    cr_log_info("cloth on a soft block in one world: %llu crossing triangle pairs, the cloth %.4f m above the "
                "block's top", (unsigned long long)crossed, over - top);
    cr_expect_eq(crossed, 0);
    cr_expect_gt(over - top, 0.5 * dc.self_thickness);
    cr_expect_lt(over - top, 3.0 * dc.self_thickness, "resting on the block, not floating");
    free(xc);
    free(xb);
    sinew_world_destroy(w);
    sinew_asset_destroy(cloth_asset);
    sinew_asset_destroy(block_asset);
    gpu_log_clear(); /* a capacity warning at the impact is allowed */
}

/* Collision layers: the same two sheets, the upper in a category the
 * lower's mask leaves out, fall through each other; in the lower's
 * categories, they do not. */
static uint64_t layered(uint32_t upper_category)
{
    sinew_asset *lower = gpu_layered_cloth(10, 0.3, 0.05, 1, 0.0, 0.0);
    sinew_asset *upper = gpu_turned_cloth(10, 0.3, 0.06, 0.3);
    sinew_world *w;
    sinew_world_desc wd = sinew_world_desc_default();
    wd.contacts = 1;
    cr_assert_eq(sinew_world_create(gpu_ctx, &wd, &w), SINEW_RESULT_OK);
    sinew_body_desc d = sinew_body_desc_default();
    d.self_thickness = 0.006f;
    d.substeps = 4;
    d.stretch_compliance = 1e-6f;
    d.timestamps = 0;
    d.world = w;
    d.collision_mask = ~2u; /* the lower sheet does not meet category 2 */
    sinew_body *a, *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, lower, &d, &a), SINEW_RESULT_OK);
    d.collision_category = upper_category;
    d.collision_mask = ~0u;
    cr_assert_eq(sinew_body_create(gpu_ctx, upper, &d, &b), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    p.contact_offset = 0.002f;
    for (int s = 0; s < 30; s++)
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
    cr_expect_eq(sinew_world_get_stats(w).chain_count, 1, "layers do not split a batch");
    const uint64_t crossed = gpu_crossings(a, lower, b, upper);
    sinew_world_destroy(w);
    sinew_asset_destroy(lower);
    sinew_asset_destroy(upper);
    return crossed;
}

Test(world_contact, collision_layers)
{
    const uint64_t met = layered(1u), apart = layered(2u);
    cr_log_info("collision layers: %llu crossing pairs when the sheets meet, %llu when the lower's mask leaves "
                "the upper out", (unsigned long long)met, (unsigned long long)apart);
    cr_expect_eq(met, 0);
    cr_expect_gt(apart, 0);
}
