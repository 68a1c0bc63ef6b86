/* The world (sinew/world.h) on lavapipe with validation: bodies batched by
 * family step to the same bits as each alone, in one submit and one wait,
 * with dispatches that do not grow with their number; checkpoints of a
 * world resume bit for bit; bodies joining a stepped world keep their
 * state; what a body in a world may not do alone is refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu_fixture.h"
#include "prep/hierarchy.h"
#include "prep/redblack.h"
#include "prep/soft.h"
#include "prep/volume.h"

TestSuite(world, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

#define BODIES 4

static sinew_step_params params(void)
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = 1;
    p.ground_height = 0.0f;
    return p;
}

static sinew_asset *block(uint32_t cells, double x)
{
    sinew_volume v;
    const double size[3] = {0.05 * cells, 0.05 * cells, 0.05 * cells}, origin[3] = {x, 0.3, 0.0};
    cr_assert_eq(sinew_volume_box(cells, cells, cells, size, origin, &v), SINEW_RESULT_OK);
    sinew_soft_options opt = sinew_soft_options_default();
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_soft_build(&v, &opt, gpu_logger(), &a, NULL), SINEW_RESULT_OK);
    sinew_volume_free(&v);
    return a;
}

/* Body k of the family's four: each a different size, so that the batch's
 * colours, passes and levels hold different numbers of each body's records. */
static sinew_asset *family_asset(sinew_solver s, uint32_t k)
{
    const sinew_logger *lg = gpu_logger();
    if (s == SINEW_SOLVER_GPBD_GAUSS_SEIDEL || s == SINEW_SOLVER_GPBD_JACOBI)
        return block(2 + k % 3, 0.5 * k);
    sinew_asset *a = gpu_make_cloth(8 + 2 * k, 8 + k, 0.5 + 0.1 * k, 0.6 + 0.2 * k, 1);
    if (s == SINEW_SOLVER_HPBD) {
        sinew_hierarchy_options o = sinew_hierarchy_options_default();
        o.min_particles = 8;
        o.max_levels = 3;
        cr_assert_eq(sinew_hierarchy_build(a, &o, lg, NULL), SINEW_RESULT_OK);
    }
    if (s == SINEW_SOLVER_PD_RED_BLACK) {
        sinew_asset_destroy(a);
        sinew_mesh m;
        const double origin[3] = {0.0, 1.0 + 0.1 * k, 0.0};
        cr_assert_eq(sinew_mesh_grid(6 + 2 * k, 6 + k, 1.0, 1.0, SINEW_GRID_XZ, origin, &m), SINEW_RESULT_OK);
        sinew_cloth_options opt = sinew_cloth_options_default();
        uint32_t pins[2] = {0, 5 + 2 * k};
        opt.pin_indices = pins;
        opt.pin_count = 2;
        opt.shear = 0;
        opt.bending = 0;
        cr_assert_eq(sinew_cloth_build(&m, &opt, lg, &a, NULL), SINEW_RESULT_OK);
        sinew_mesh_free(&m);
        cr_assert_eq(sinew_redblack_asset(a, "net", lg, NULL), SINEW_RESULT_OK);
    }
    return a;
}

static sinew_body_desc family_desc(sinew_solver s)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = s;
    d.substeps = 4;
    d.iterations = 2;
    d.timestamps = 0;
    if (s == SINEW_SOLVER_PD_RED_BLACK)
        d.stretch_compliance = 1e-4f;
    return d;
}

/* Four bodies of the family stepped alone and in one world: every body's
 * state hash the same, the world one chain, one submit, one wait. */
static void alone_and_in_world(sinew_solver s, sinew_sweep_layout layout, uint32_t steps)
{
    sinew_asset *assets[BODIES];
    uint64_t alone[BODIES];
    sinew_body_desc d = family_desc(s);
    d.sweep_layout = layout;
    const sinew_step_params p = params();
    uint32_t most_dispatches = 0;
    for (uint32_t k = 0; k < BODIES; k++) {
        assets[k] = family_asset(s, k);
        sinew_body *b;
        cr_assert_eq(sinew_body_create(gpu_ctx, assets[k], &d, &b), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < steps; i++)
            cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_state_hash(b, &alone[k]), SINEW_RESULT_OK);
        const uint32_t dispatches = sinew_body_get_stats(b).dispatches;
        most_dispatches = dispatches > most_dispatches ? dispatches : most_dispatches;
        sinew_body_destroy(b);
    }
    sinew_world *w;
    sinew_world_desc wd = sinew_world_desc_default();
    cr_assert_eq(sinew_world_create(gpu_ctx, &wd, &w), SINEW_RESULT_OK);
    sinew_body *in[BODIES];
    d.world = w;
    for (uint32_t k = 0; k < BODIES; k++)
        cr_assert_eq(sinew_body_create(gpu_ctx, assets[k], &d, &in[k]), SINEW_RESULT_OK);
    for (uint32_t i = 0; i < steps; i++)
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
    for (uint32_t k = 0; k < BODIES; k++) {
        uint64_t h;
        cr_assert_eq(sinew_body_state_hash(in[k], &h), SINEW_RESULT_OK);
        cr_expect_eq(h, alone[k], "%s body %u: %016llx in the world, %016llx alone", sinew_solver_name(s), k,
                     (unsigned long long)h, (unsigned long long)alone[k]);
    }
    const sinew_world_stats ws = sinew_world_get_stats(w);
    /* one batch; the symmetric sweep batches bodies of as many colours only */
    uint32_t chains = 1;
    for (uint32_t k = 1; k < BODIES && s == SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL; k++) {
        int seen = 0;
        for (uint32_t j = 0; j < k; j++)
            seen |= assets[j]->colour_count == assets[k]->colour_count;
        chains += !seen;
    }
    cr_expect_eq(ws.chain_count, chains, "%s: %u chains, expected %u", sinew_solver_name(s), ws.chain_count, chains);
    cr_expect_eq(ws.body_count, BODIES);
    cr_expect_eq(ws.submits, 1);
    cr_expect_eq(ws.host_waits, 1);
    cr_expect_eq(ws.step_index, steps);
    /* the batch records what its largest body does alone, or little more */
    cr_expect_leq(ws.dispatches, chains * (most_dispatches + most_dispatches / 4), "%s: %u dispatches, alone at most %u",
                  sinew_solver_name(s), ws.dispatches, most_dispatches);
    sinew_world_destroy(w);
    for (uint32_t k = 0; k < BODIES; k++)
        sinew_asset_destroy(assets[k]);
}

Test(world, xpbd_bodies_match_alone)
{
    alone_and_in_world(SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SWEEP_LAYOUT_COLOURS, 12);
    alone_and_in_world(SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SWEEP_LAYOUT_CLUSTERS, 6);
    alone_and_in_world(SINEW_SOLVER_XPBD_JACOBI, SINEW_SWEEP_LAYOUT_DEFAULT, 6);
    alone_and_in_world(SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL, SINEW_SWEEP_LAYOUT_COLOURS, 4);
}

Test(world, gpbd_bodies_match_alone)
{
    alone_and_in_world(SINEW_SOLVER_GPBD_GAUSS_SEIDEL, SINEW_SWEEP_LAYOUT_DEFAULT, 10);
    alone_and_in_world(SINEW_SOLVER_GPBD_JACOBI, SINEW_SWEEP_LAYOUT_DEFAULT, 6);
}

Test(world, hpbd_bodies_match_alone) { alone_and_in_world(SINEW_SOLVER_HPBD, SINEW_SWEEP_LAYOUT_DEFAULT, 10); }

Test(world, pd_bodies_match_alone) { alone_and_in_world(SINEW_SOLVER_PD_RED_BLACK, SINEW_SWEEP_LAYOUT_DEFAULT, 10); }

/* The measure: 16 cloths of 24 x 24 (XPBD Gauss-Seidel, clusters)
 * and 8 GPBD blocks of 5^3 record at most 1.25 times the dispatches and
 * barriers of one. */
static void count_against_one(sinew_asset *a, sinew_body_desc d, uint32_t count)
{
    sinew_body *one;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &one), SINEW_RESULT_OK);
    const sinew_step_stats s1 = sinew_body_get_stats(one);
    sinew_body_destroy(one);
    sinew_world *w;
    sinew_world_desc wd = sinew_world_desc_default();
    cr_assert_eq(sinew_world_create(gpu_ctx, &wd, &w), SINEW_RESULT_OK);
    d.world = w;
    for (uint32_t k = 0; k < count; k++)
        cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &one), SINEW_RESULT_OK);
    const sinew_step_params p = params();
    cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
    const sinew_world_stats ws = sinew_world_get_stats(w);
    cr_expect_leq(4 * ws.dispatches, 5 * s1.dispatches, "%u bodies: %u dispatches, one: %u", count, ws.dispatches,
                  s1.dispatches);
    cr_expect_leq(4 * ws.barriers, 5 * s1.barriers, "%u bodies: %u barriers, one: %u", count, ws.barriers,
                  s1.barriers);
    cr_expect_eq(ws.submits, 1);
    cr_expect_eq(ws.host_waits, 1);
    cr_log_info("%u bodies in a world: %u dispatches, %u barriers; one alone: %u, %u", count, ws.dispatches,
                ws.barriers, s1.dispatches, s1.barriers);
    sinew_world_destroy(w);
}

Test(world, dispatches_do_not_grow_with_bodies)
{
    sinew_asset *cloth = gpu_make_cloth(24, 24, 1.0, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.sweep_layout = SINEW_SWEEP_LAYOUT_CLUSTERS;
    d.timestamps = 0;
    count_against_one(cloth, d, 16);
    sinew_asset_destroy(cloth);
    sinew_asset *soft = block(4, 0.0); /* 5^3 particles */
    d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    d.timestamps = 0;
    count_against_one(soft, d, 8);
    sinew_asset_destroy(soft);
}

/* A world saved after 4 steps and loaded after 4 more steps the same 4 to
 * the bit; a body joining after the world stepped rebuilds the batch and
 * the bodies already in it carry on as if nothing happened. */
Test(world, checkpoint_and_joining_keep_every_bit)
{
    sinew_solver s = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    sinew_body_desc d = family_desc(s);
    const sinew_step_params p = params();
    sinew_asset *a0 = family_asset(s, 0), *a1 = family_asset(s, 1), *a2 = family_asset(s, 2);
    uint64_t alone0;
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a0, &d, &b), SINEW_RESULT_OK);
    for (int i = 0; i < 12; i++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_state_hash(b, &alone0), SINEW_RESULT_OK);
    sinew_body_destroy(b);

    sinew_world *w;
    sinew_world_desc wd = sinew_world_desc_default();
    cr_assert_eq(sinew_world_create(gpu_ctx, &wd, &w), SINEW_RESULT_OK);
    d.world = w;
    sinew_body *b0, *b1, *b2, *b3;
    cr_assert_eq(sinew_body_create(gpu_ctx, a0, &d, &b0), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, a1, &d, &b1), SINEW_RESULT_OK);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, a2, &d, &b2), SINEW_RESULT_OK); /* joins a stepped world */
    const size_t size = sinew_world_checkpoint_size(w);
    cr_assert_gt(size, 0);
    void *saved = malloc(size);
    cr_assert_eq(sinew_world_save_checkpoint(w, saved, size), SINEW_RESULT_OK);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
    uint64_t first, again;
    cr_assert_eq(sinew_world_state_hash(w, &first), SINEW_RESULT_OK);
    cr_assert_eq(sinew_world_load_checkpoint(w, saved, size), SINEW_RESULT_OK);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_world_state_hash(w, &again), SINEW_RESULT_OK);
    cr_expect_eq(first, again, "resumed world %016llx, straight %016llx", (unsigned long long)again,
                 (unsigned long long)first);
    /* a body leaving and another joining: body 0 still steps as alone */
    sinew_body_destroy(b1);
    cr_assert_eq(sinew_body_create(gpu_ctx, a1, &d, &b3), SINEW_RESULT_OK);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
    uint64_t h0;
    cr_assert_eq(sinew_body_state_hash(b0, &h0), SINEW_RESULT_OK);
    cr_expect_eq(h0, alone0, "body 0 after 12 world steps and two rebuilds: %016llx, alone %016llx",
                 (unsigned long long)h0, (unsigned long long)alone0);
    cr_expect_eq(sinew_world_get_body_count(w), 3);
    /* a damaged checkpoint is refused and changes nothing */
    ((uint8_t *)saved)[8] ^= 1;
    cr_expect_eq(sinew_world_load_checkpoint(w, saved, size), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    uint64_t after;
    cr_assert_eq(sinew_body_state_hash(b0, &after), SINEW_RESULT_OK);
    cr_expect_eq(after, h0);
    free(saved);
    sinew_world_destroy(w);
    sinew_asset_destroy(a0);
    sinew_asset_destroy(a1);
    sinew_asset_destroy(a2);
    (void)b2;
}

/* A body in a world reads, writes and pins like a body alone; what only its
 * world may do is refused with a message naming the world. */
Test(world, bodies_in_a_world_behave_and_refuse)
{
    sinew_asset *a = gpu_make_cloth(6, 6, 0.5, 1.0, 1), *m = gpu_make_solver_asset(SINEW_SOLVER_IMPLICIT_PCG);
    sinew_world *w;
    sinew_world_desc wd = sinew_world_desc_default();
    wd.name = "scene";
    cr_assert_eq(sinew_world_create(gpu_ctx, &wd, &w), SINEW_RESULT_OK);
    sinew_body_desc d = sinew_body_desc_default();
    d.world = w;
    sinew_body *x, *y, *imp;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &x), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &y), SINEW_RESULT_OK);
    sinew_body_desc di = sinew_body_desc_default();
    di.solver = SINEW_SOLVER_IMPLICIT_PCG;
    di.world = w;
    cr_assert_eq(sinew_body_create(gpu_ctx, m, &di, &imp), SINEW_RESULT_OK);
    const uint32_t n = sinew_body_get_particle_count(y);
    cr_assert_eq(n, 36);
    float *xyz = malloc(sizeof *xyz * 3 * n), *back = malloc(sizeof *back * 3 * n);
    cr_assert_eq(sinew_body_read_positions(y, xyz, n), SINEW_RESULT_OK);
    for (uint32_t i = 0; i < n; i++)
        xyz[3 * i + 1] += 2.0f; /* body y lifted; x stays */
    cr_assert_eq(sinew_body_write_positions(y, xyz, n), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(y, back, n), SINEW_RESULT_OK);
    cr_expect_eq(memcmp(xyz, back, sizeof *xyz * 3 * n), 0);
    cr_assert_eq(sinew_body_read_positions(x, back, n), SINEW_RESULT_OK);
    cr_expect_float_eq(back[1], 1.0f, 1e-6);
    cr_assert_eq(sinew_body_set_pinned(y, 20, 1), SINEW_RESULT_OK);
    const sinew_step_params p = params();
    for (int i = 0; i < 5; i++)
        cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(y, back, n), SINEW_RESULT_OK);
    cr_expect_eq(memcmp(&back[60], &xyz[60], 12), 0, "the pinned particle stays");
    cr_expect_lt(back[3 * 10 + 1], xyz[3 * 10 + 1], "a free one falls");
    const sinew_world_stats ws = sinew_world_get_stats(w);
    cr_expect_eq(ws.chain_count, 2); /* the cloths' batch and the implicit body */
    cr_expect_eq(ws.submits, 1);
    cr_expect_eq(sinew_body_get_stats(x).step_index, 5);

    gpu_log_clear();
    cr_expect_eq(sinew_body_step(x, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("world 'scene'"));
    cr_expect_eq(sinew_body_step(imp, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    uint32_t pair[2] = {0, 1}, cut = 0;
    cr_expect_eq(sinew_body_cut(x, pair, 1, &cut), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(sinew_body_set_contact_bodies(x, &y, 1), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    char buf[64];
    cr_expect_eq(sinew_body_save_checkpoint(x, buf, sizeof buf), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    gpu_log_clear();
    sinew_body_destroy(x); /* leaves; the world goes on with the others */
    cr_assert_eq(sinew_world_step(w, &p), SINEW_RESULT_OK);
    cr_expect_eq(sinew_world_get_body_count(w), 2);
    free(xyz);
    free(back);
    sinew_world_destroy(w);
    sinew_asset_destroy(a);
    sinew_asset_destroy(m);
}
