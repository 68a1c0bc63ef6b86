/* The folding cloth of sinew-bench --suite selfcol as a test: a 40 x 40
 * cloth hanging with waves across it falls and folds onto the ground
 * (validation on). After 80 steps, in the middle of the folding, with
 * self-collision no two triangles sharing no vertex intersect; without it
 * they do (119 pairs on lavapipe; the counts are logged). Without
 * self-collision the first folds pass through one another at about step 75
 * and the count rises and falls as the waves land (74 pairs at step 75, 0
 * at 85, 174 at 100). SINEW_FOLD_STEPS,
 * SINEW_FOLD_SIZE, SINEW_FOLD_CAPACITY and SINEW_FOLD_LAYOUT change the
 * steps, the cloth's side, self_capacity and sweep layout (2: clustered
 * passes, what a GPU takes by default; tools/gpu-check.sh runs the 64 x 64
 * cloth of the benchmark too). Minutes on lavapipe (about 2 at 40 x 40): a test of its own, which the sanitizer run leaves out (the
 * small scenes of test_selfcol run the same host code there). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "gpu_fixture.h"
#include "prep/intersect.h"
#include "prep/mesh.h"

static uint32_t env_uint(const char *name, uint32_t fallback)
{
    const char *v = getenv(name);
    return v && *v ? (uint32_t)strtoul(v, NULL, 10) : fallback;
}

TestSuite(selfcol_fold, .init = gpu_setup, .fini = gpu_teardown, .timeout = 900);

static uint64_t fold(const sinew_asset *a, uint32_t side, int self, uint64_t *dropped)
{
    const int steps = (int)env_uint("SINEW_FOLD_STEPS", 80);
    sinew_body_desc d = sinew_body_desc_default();
    d.substeps = 8;
    d.iterations = 4;
    d.self_collision = self;
    d.self_thickness = (float)(1.0 / (side - 1) / 3.0); /* a third of the edge, as the benchmark */
    d.self_capacity = env_uint("SINEW_FOLD_CAPACITY", d.self_capacity);
    /* the layout a GPU takes by default (clustered passes) on any device */
    d.sweep_layout = (sinew_sweep_layout)env_uint("SINEW_FOLD_LAYOUT", SINEW_SWEEP_LAYOUT_DEFAULT);
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    *dropped = 0;
    for (int s = 0; s < steps; s++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "step %d", s);
        *dropped += sinew_body_get_stats(b).self_dropped;
    }
    const uint32_t n = a->particle_count;
    uint32_t tri_count = 0;
    const uint32_t *tris = sinew_asset_get_triangles(a, &tri_count);
    float *x = malloc(sizeof *x * 3 * n);
    cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
    sinew_intersect_report rep;
    cr_assert_eq(sinew_count_intersections(x, n, tris, tri_count, gpu_logger(), &rep), SINEW_RESULT_OK);
    free(x);
    sinew_body_destroy(b);
    return rep.pairs;
}

Test(selfcol_fold, cloth_folds_without_intersections)
{
    const uint32_t side = env_uint("SINEW_FOLD_SIZE", 40);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_curtain(side, &m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.free_parts = 1; /* nothing pinned: it falls */
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_cloth_build(&m, &opt, gpu_logger(), &a, NULL), SINEW_RESULT_OK);
    sinew_mesh_free(&m);
    uint64_t dropped_off, dropped_on;
    uint64_t off = fold(a, side, 0, &dropped_off);
    uint64_t on = fold(a, side, 1, &dropped_on);
    cr_log_info("%u x %u cloth folded on the ground after %u steps: %llu intersecting triangle pairs without "
                "self-collision, %llu with it (%llu candidates dropped over the run)", side, side,
                env_uint("SINEW_FOLD_STEPS", 80),
                (unsigned long long)off, (unsigned long long)on, (unsigned long long)dropped_on);
    cr_assert_gt(off, 5, "without self-collision the folds should pass through each other");
    cr_assert_eq(on, 0, "%llu intersecting pairs with self-collision", (unsigned long long)on);
    gpu_log_clear(); /* the capacity warning in the folds is expected */
    sinew_asset_destroy(a);
}
