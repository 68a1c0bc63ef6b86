/* The folding cloth of sinew-bench --suite selfcol as a test: a 64 x 64
 * cloth hanging with waves across it falls and folds onto the ground
 * (lavapipe, validation on). After 150 steps, with self-collision no two
 * triangles sharing no vertex intersect; without it they do (the count is
 * logged for contrast). Minutes on lavapipe: a test of its own, which the
 * sanitizer run leaves out (the small scenes of test_selfcol run the same
 * host code there). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "gpu_fixture.h"
#include "prep/intersect.h"
#include "prep/mesh.h"

TestSuite(selfcol_fold, .init = gpu_setup, .fini = gpu_teardown, .timeout = 1800);

static uint64_t fold(const sinew_asset *a, int self, uint64_t *dropped)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.substeps = 8;
    d.iterations = 4;
    d.self_collision = self;
    d.self_thickness = (float)(1.0 / 63.0 / 3.0); /* a third of the edge, as the benchmark */
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    *dropped = 0;
    for (int s = 0; s < 150; s++) {
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

Test(selfcol_fold, cloth_64_folds_without_intersections)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_curtain(64, &m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.free_parts = 1; /* nothing pinned: it falls */
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_cloth_build(&m, &opt, gpu_logger(), &a, NULL), SINEW_RESULT_OK);
    sinew_mesh_free(&m);
    uint64_t dropped_off, dropped_on;
    uint64_t off = fold(a, 0, &dropped_off);
    uint64_t on = fold(a, 1, &dropped_on);
    cr_log_info("64 x 64 cloth folded on the ground after 150 steps: %llu intersecting triangle pairs without "
                "self-collision, %llu with it (%llu candidates dropped over the run)", (unsigned long long)off,
                (unsigned long long)on, (unsigned long long)dropped_on);
    cr_assert_gt(off, 100, "without self-collision the folds should pass through each other");
    cr_assert_eq(on, 0);
    gpu_log_clear(); /* the capacity warning in the folds is expected */
    sinew_asset_destroy(a);
}
