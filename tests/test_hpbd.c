/* Hierarchical PBD (Müller 2008) on the GPU: the coarse-to-fine sweep against
 * the CPU double reference, stiffness bought by the hierarchy, and tearing that
 * leaves no coarse constraint across the cut. lavapipe, validation on. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "body.h"
#include "solvers/pbd.h"
#include "gpu_fixture.h"
#include "prep/hierarchy.h"
#include "ref/xpbd_ref.h"

TestSuite(hpbd, .init = gpu_setup, .fini = gpu_teardown, .timeout = 300);

/* A gpu_make_cloth grid with a hierarchy of up to `levels` levels. */
static sinew_asset *cloth_with_hierarchy(uint32_t nx, uint32_t ny, double size, int pin_corners, uint32_t levels,
                                         uint32_t rest)
{
    sinew_asset *a = gpu_make_cloth(nx, ny, size, 1.0, pin_corners);
    sinew_hierarchy_options o = sinew_hierarchy_options_default();
    o.max_levels = levels;
    o.rest = rest;
    o.min_particles = 8;
    sinew_hierarchy_report rep;
    cr_assert_eq(sinew_hierarchy_build(a, &o, gpu_logger(), &rep), SINEW_RESULT_OK);
    cr_assert_geq(rep.level_count, 3, "a %ux%u grid coarsens to %u levels", nx, ny, rep.level_count);
    return a;
}

/* Pins the first row (j = 0) of an nx-wide grid. */
static void pin_first_row(sinew_asset *a, uint32_t nx)
{
    for (uint32_t i = 0; i < nx; i++)
        a->particles[i].w = 0.0f;
}

static sinew_step_params hanging_params(void)
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.damping = 0.5f;
    return p;
}

static double max_difference(sinew_body *body, const xpbd_ref *ref, uint32_t n, double *travel,
                             const sinew_asset *a)
{
    float *x = malloc(3 * sizeof *x * n);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double worst = 0.0;
    *travel = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const double *r = xpbd_ref_position(ref, i);
        for (int k = 0; k < 3; k++) {
            worst = fmax(worst, fabs(x[3 * i + k] - r[k]));
            *travel = fmax(*travel, fabs(r[k] - (&a->particles[i].x)[k]));
        }
    }
    free(x);
    return worst;
}

static void compare(uint32_t rest, sinew_step_params p, uint32_t steps, double tolerance)
{
    const double size = 0.5;
    sinew_asset *a = cloth_with_hierarchy(16, 16, size, 1, 4, rest);
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_HPBD;
    d.substeps = 4;
    d.iterations = 2;
    d.stretch_compliance = 1e-7f;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    gpu_resolve_layout(a, &d);
    xpbd_ref *ref = xpbd_ref_create(a, &d);
    for (uint32_t s = 0; s < steps; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        xpbd_ref_step(ref, &p);
    }
    double travel, err = max_difference(body, ref, a->particle_count, &travel, a) / size;
    cr_log_info("HPBD (%s rest lengths, %u levels): max |x_gpu - x_ref| / size = %.3g after %u steps",
                rest == SINEW_HIERARCHY_REST_GEODESIC ? "geodesic" : "rest-pose", a->level_count, err, steps);
    cr_assert(travel > 0.1 * size, "the cloth should have moved (%g m)", travel);
    cr_assert(err < tolerance, "GPU and reference part by %g of the size", err);
    xpbd_ref_destroy(ref);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
}

Test(hpbd, gpu_matches_reference_geodesic)
{
    compare(SINEW_HIERARCHY_REST_GEODESIC, hanging_params(), 40, 2e-3);
}

Test(hpbd, gpu_matches_reference_rest_pose)
{
    compare(SINEW_HIERARCHY_REST_POSE, hanging_params(), 40, 2e-3);
}

/* The paper's level-0 order without the hierarchy: Gauss-Seidel with every
 * second iteration backwards, against the reference; refused for Jacobi. */
Test(hpbd, alternating_sweeps_match_reference)
{
    sinew_asset *a = gpu_make_cloth(12, 12, 0.5, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.substeps = 2;
    d.iterations = 3;
    d.sweep_order = SINEW_SWEEP_ALTERNATING;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    gpu_resolve_layout(a, &d);
    xpbd_ref *ref = xpbd_ref_create(a, &d);
    d.sweep_order = SINEW_SWEEP_FORWARD;
    xpbd_ref *forward = xpbd_ref_create(a, &d);
    sinew_step_params p = hanging_params();
    for (int s = 0; s < 30; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        xpbd_ref_step(ref, &p);
        xpbd_ref_step(forward, &p);
    }
    double travel, err = max_difference(body, ref, a->particle_count, &travel, a);
    double other = max_difference(body, forward, a->particle_count, &travel, a);
    cr_log_info("alternating sweeps: GPU vs reference %.3g m; vs forward sweeps %.3g m", err, other);
    cr_assert(err < 1e-4 && other > 100 * err, "alternating %g, forward %g", err, other);
    xpbd_ref_destroy(forward);
    xpbd_ref_destroy(ref);
    sinew_body_destroy(body);
    d.solver = SINEW_SOLVER_XPBD_JACOBI;
    d.sweep_order = SINEW_SWEEP_ALTERNATING;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("alternating sweeps need a Gauss-Seidel solver"));
    gpu_log_clear();
    sinew_asset_destroy(a);
}

/* Contacts on every level: the cloth drops onto a sphere and the ground. */
Test(hpbd, gpu_matches_reference_with_contacts)
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = 1;
    p.ground_height = 0.2f;
    p.sphere = 1;
    p.sphere_center[0] = 0.1f;
    p.sphere_center[1] = 0.5f;
    p.sphere_radius = 0.2f;
    p.friction = 0.0f; /* friction's sticking test is a float/double branch point */
    compare(SINEW_HIERARCHY_REST_GEODESIC, p, 40, 5e-3);
}

/* Hanging from its top row: the hierarchy with two iterations holds the cloth
 * far tighter than two plain iterations do (Müller 2008, figure 7), the
 * level-0 sweeps the same (forward, then backward). The
 * stretch is the largest elongation l / L - 1 of any distance constraint (the
 * GPU residual counts compression too). */
static double hanging_stretch(sinew_solver solver, uint32_t iterations, const sinew_asset *a)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = solver;
    d.substeps = 1;
    d.iterations = iterations;
    d.sweep_order = SINEW_SWEEP_ALTERNATING; /* the same level-0 sweeps with and without the hierarchy */
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = hanging_params();
    p.damping = 2.0f;
    for (int s = 0; s < 90; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    float *x = malloc(3 * sizeof *x * a->particle_count);
    cr_assert_eq(sinew_body_read_positions(body, x, a->particle_count), SINEW_RESULT_OK);
    double worst = 0.0;
    for (uint32_t c = 0; c < a->distance_count; c++) {
        const float *pa = &x[3 * a->distances[c].a], *pb = &x[3 * a->distances[c].b];
        double l = sqrt(pow(pa[0] - pb[0], 2) + pow(pa[1] - pb[1], 2) + pow(pa[2] - pb[2], 2));
        worst = fmax(worst, l / a->distances[c].rest - 1.0);
    }
    free(x);
    sinew_body_destroy(body);
    return worst;
}

/* Stands a gpu_make_cloth grid up in the XY plane, its first row on top, and
 * pins that row. */
static void hang_from_first_row(sinew_asset *a, uint32_t nx)
{
    float z0 = a->particles[0].z;
    for (uint32_t i = 0; i < a->particle_count; i++) {
        sinew_particle_rec *p = &a->particles[i];
        p->y = 1.0f - fabsf(p->z - z0);
        p->z = 0.0f;
        if (i < nx)
            p->w = 0.0f;
    }
}

Test(hpbd, hierarchy_stiffens_hanging_cloth)
{
    const uint32_t n = 32;
    sinew_asset *a = gpu_make_cloth(n, n, 1.0, 1.0, 0);
    hang_from_first_row(a, n);
    sinew_hierarchy_options o = sinew_hierarchy_options_default();
    o.rest = SINEW_HIERARCHY_REST_POSE; /* the right lengths for a flat cloth */
    o.max_levels = 5;
    cr_assert_eq(sinew_hierarchy_build(a, &o, gpu_logger(), NULL), SINEW_RESULT_OK);
    double flat2 = hanging_stretch(SINEW_SOLVER_XPBD_GAUSS_SEIDEL, 2, a);
    double flat32 = hanging_stretch(SINEW_SOLVER_XPBD_GAUSS_SEIDEL, 32, a);
    double hier2 = hanging_stretch(SINEW_SOLVER_HPBD, 2, a);
    cr_log_info("hanging 32x32 cloth, 1 substep, 90 steps: largest elongation with 2 iterations %.4f, 32 iterations "
                "%.4f, hierarchy (%u levels) + 2 iterations %.4f", flat2, flat32, a->level_count, hier2);
    cr_assert(hier2 < 0.1 * flat2, "hierarchy %g vs 2 plain iterations %g", hier2, flat2);
    cr_assert(hier2 < flat32, "hierarchy + 2 iterations %g vs 32 plain iterations %g", hier2, flat32);
    sinew_asset_destroy(a);
}

/* Rows j <= 7 above the cut, the rest below. */
static int below(const sinew_asset *a, uint32_t p, uint32_t nx) { (void)a; return p / nx >= 8; }

Test(hpbd, cut_leaves_no_coarse_constraint_across)
{
    const uint32_t n = 16;
    sinew_asset *a = cloth_with_hierarchy(n, n, 1.0, 0, 5, SINEW_HIERARCHY_REST_POSE);
    pin_first_row(a, n);
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_HPBD;
    d.substeps = 2;
    d.iterations = 2;
    sinew_body *body, *whole;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &whole), SINEW_RESULT_OK);

    /* Before the cut the hierarchy bridges the line (else the test shows nothing). */
    uint32_t bridging = 0;
    for (uint32_t c = 0; c < a->hdistance_count; c++)
        bridging += below(a, a->hdistances[c].a, n) != below(a, a->hdistances[c].b, n);
    cr_assert_gt(bridging, 0);

    uint32_t *pairs = malloc(2 * sizeof *pairs * a->distance_count), count = 0;
    for (uint32_t c = 0; c < a->distance_count; c++)
        if (below(a, a->distances[c].a, n) != below(a, a->distances[c].b, n)) {
            pairs[2 * count] = a->distances[c].a;
            pairs[2 * count + 1] = a->distances[c].b;
            count++;
        }
    uint32_t cut = 0;
    cr_assert_eq(sinew_body_cut(body, pairs, count, &cut), SINEW_RESULT_OK);
    cr_assert_eq(cut, count);
    cr_assert_eq(sinew_body_cut(body, pairs, count, &cut), SINEW_RESULT_OK);
    cr_assert_eq(cut, 0, "cutting again cuts nothing new");
    const sinew_pbd *hier = body->state; /* the solver's own copies */
    for (uint32_t c = 0; c < hier->hdistance_count; c++) {
        const GpuDistance *h = &hier->hdist_host[c];
        cr_assert(h->a == h->b || below(a, h->a, n) == below(a, h->b, n),
                  "coarse constraint %u joins %u and %u across the cut", c, h->a, h->b);
    }
    for (uint32_t i = 0; i < a->particle_count; i++) {
        const GpuNode *v = &hier->nodes[i];
        for (uint32_t k = v->first; k < v->first + v->count; k++)
            cr_assert(hier->links[k].weight == 0.0f || below(a, v->particle, n) == below(a, hier->links[k].parent, n),
                      "particle %u keeps parent %u across the cut", v->particle, hier->links[k].parent);
    }
    for (uint32_t c = 0; c < body->bend_count; c++)
        if (below(a, body->bend_host[c].v[2], n) != below(a, body->bend_host[c].v[3], n))
            cr_assert(body->bend_cut[c], "hinge %u across the cut survives", c);

    /* The lower piece falls; the uncut cloth holds. */
    sinew_step_params p = hanging_params();
    for (int s = 0; s < 30; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_step(whole, &p), SINEW_RESULT_OK);
    }
    uint32_t np = a->particle_count;
    float *x = malloc(3 * sizeof *x * np), *y = malloc(3 * sizeof *y * np);
    cr_assert_eq(sinew_body_read_positions(body, x, np), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(whole, y, np), SINEW_RESULT_OK);
    /* Free fall for 0.5 s, damped at 0.5 / s, drops 1.2 m. */
    double drop = 0.0, held = 0.0;
    uint32_t lower = 0;
    for (uint32_t i = 0; i < np; i++)
        if (below(a, i, n)) {
            drop += a->particles[i].y - x[3 * i + 1];
            held += a->particles[i].y - y[3 * i + 1];
            lower++;
        }
    drop /= lower;
    held /= lower;
    cr_log_info("cut of %u constraints: after 0.5 s the lower piece has fallen %.3f m (uncut cloth: %.3f m)", count,
                drop, held);
    cr_assert(drop > 1.1, "the lower piece fell only %g m: something still holds it", drop);
    free(x);
    free(y);
    free(pairs);
    sinew_body_destroy(whole);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
}

Test(hpbd, bad_cuts_and_missing_hierarchy_refused)
{
    sinew_asset *plain = gpu_make_cloth(6, 6, 0.5, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_HPBD;
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, plain, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("needs an asset with a hierarchy"));
    d.solver = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    cr_assert_eq(sinew_body_create(gpu_ctx, plain, &d, &body), SINEW_RESULT_OK);
    uint32_t far[2] = {0, 35}, outside[2] = {0, 36}, good[2] = {plain->distances[0].a, plain->distances[0].b};
    uint32_t both[4] = {good[0], good[1], 0, 35};
    cr_assert_eq(sinew_body_cut(body, far, 1, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("no distance constraint joins particles 0 and 35"));
    cr_assert_eq(sinew_body_cut(body, outside, 1, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("out of range"));
    cr_assert_eq(sinew_body_cut(body, both, 2, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    for (uint32_t c = 0; c < plain->distance_count; c++)
        cr_assert(!body->dist_cut[c], "a refused cut changed constraint %u", c);
    /* A checkpoint of a cut body does not load into an uncut one. */
    uint32_t cut;
    cr_assert_eq(sinew_body_cut(body, good, 1, &cut), SINEW_RESULT_OK);
    cr_assert_eq(cut, 1);
    size_t size = sinew_body_checkpoint_size(body);
    void *buf = malloc(size);
    cr_assert_eq(sinew_body_save_checkpoint(body, buf, size), SINEW_RESULT_OK);
    sinew_body *other;
    cr_assert_eq(sinew_body_create(gpu_ctx, plain, &d, &other), SINEW_RESULT_OK);
    cr_assert_neq(sinew_body_load_checkpoint(other, buf, size), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_cut(other, good, 1, NULL), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_load_checkpoint(other, buf, size), SINEW_RESULT_OK);
    free(buf);
    sinew_body_destroy(other);
    sinew_body_destroy(body);
    sinew_asset_destroy(plain);
    gpu_log_clear();
}
