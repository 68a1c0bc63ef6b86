/* The step runs the per-particle stages that need no barrier between them in
 * one pass (stages.c, sinew_body_record_stages): the solver's per-substep clearing with
 * the prediction, each substep's velocities with the next one's prediction,
 * the last substep's with the health check, and the step's end without
 * barriers between independent kernels. Every solver gives the same bits as
 * the step recorded stage by stage (sinew_body_record_unfused), in fewer
 * dispatches and barriers. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "gpu_fixture.h"

TestSuite(fusion, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

static int is_pd(sinew_solver s)
{
    return s == SINEW_SOLVER_PD_RED_BLACK || s == SINEW_SOLVER_PD_JACOBI || s == SINEW_SOLVER_PD_CHEBYSHEV;
}

static int is_implicit(sinew_solver s) { return s == SINEW_SOLVER_IMPLICIT_MG || s == SINEW_SOLVER_IMPLICIT_PCG; }

static sinew_body *make_body(const sinew_asset *a, sinew_solver solver, int unfused)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = solver;
    d.substeps = is_implicit(solver) ? 1 : 3;
    d.iterations = 2;
    if (is_pd(solver))
        d.stretch_compliance = d.shear_compliance = 1e-4f; /* springs of finite stiffness */
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK, "%s: %s", sinew_solver_name(solver),
                 gpu_log_text());
    if (unfused)
        cr_assert_eq(sinew_body_record_unfused(body), SINEW_RESULT_OK);
    return body;
}

/* Positions, velocities and (where the body has them) normals, as read back. */
static float *read_state(sinew_body *body, uint32_t n)
{
    float *x = calloc(9ull * n, sizeof *x);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_velocities(body, x + 3ull * n, n), SINEW_RESULT_OK);
    sinew_result r = sinew_body_read_normals(body, x + 6ull * n, n);
    cr_assert(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_UNSUPPORTED);
    return x;
}

#define SAME_BITS(name, a, b, field)                                                                            \
    cr_expect(memcmp(&(a).field, &(b).field, sizeof (a).field) == 0, "%s: " #field " %.9g fused, %.9g by stage", \
              name, (double)(a).field, (double)(b).field)

Test(fusion, same_bits_as_stage_by_stage)
{
    for (int s = 0; sinew_solver_name((sinew_solver)s); s++) {
        const sinew_solver solver = (sinew_solver)s;
        const char *name = sinew_solver_name(solver);
        sinew_asset *a = gpu_make_solver_asset(solver);
        const uint32_t n = a->particle_count;
        sinew_body *fused = make_body(a, solver, 0), *staged = make_body(a, solver, 1);
        sinew_step_params p = sinew_step_params_default();
        p.sphere = 1; /* contacts with friction on the way down */
        p.sphere_center[0] = 0.5f;
        p.sphere_center[2] = 0.5f;
        p.sphere_radius = 0.3f;
        for (int k = 0; k < 6; k++) {
            cr_assert_eq(sinew_body_step(fused, &p), SINEW_RESULT_OK, "%s, step %d", name, k);
            cr_assert_eq(sinew_body_step(staged, &p), SINEW_RESULT_OK, "%s, step %d", name, k);
        }
        float *x = read_state(fused, n), *y = read_state(staged, n);
        cr_expect(memcmp(x, y, 9ull * n * sizeof *x) == 0, "%s: positions, velocities and normals differ", name);
        const sinew_step_stats f = sinew_body_get_stats(fused), g = sinew_body_get_stats(staged);
        SAME_BITS(name, f, g, max_strain);
        SAME_BITS(name, f, g, rms_strain);
        SAME_BITS(name, f, g, max_measure_error);
        SAME_BITS(name, f, g, max_speed);
        SAME_BITS(name, f, g, max_volume_error);
        SAME_BITS(name, f, g, bad_particles);
        SAME_BITS(name, f, g, inverted_elements);
        SAME_BITS(name, f, g, newton_iterations);
        cr_expect_gt(f.max_speed, 0.0f, "%s: the health check ran", name);
        /* The implicit solvers integrate their substeps themselves: only the
         * step's end runs without barriers. */
        if (!is_implicit(solver))
            cr_expect_lt(f.dispatches, g.dispatches, "%s: %u dispatches fused, %u by stage", name, f.dispatches,
                         g.dispatches);
        cr_expect_lt(f.barriers, g.barriers, "%s: %u barriers fused, %u by stage", name, f.barriers, g.barriers);
        free(x);
        free(y);
        sinew_body_destroy(fused);
        sinew_body_destroy(staged);
        sinew_asset_destroy(a);
    }
}

/* Per substep of an XPBD cloth: the fills of lambda and the barriers
 * around them go, and the velocities and the next prediction are one
 * dispatch (docs/step.md, "What a substep records"). */
Test(fusion, what_a_substep_records)
{
    sinew_asset *a = gpu_make_solver_asset(SINEW_SOLVER_XPBD_GAUSS_SEIDEL);
    sinew_body *fused = make_body(a, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, 0);
    sinew_body *staged = make_body(a, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, 1);
    const sinew_step_stats f = sinew_body_get_stats(fused), g = sinew_body_get_stats(staged);
    const uint32_t substeps = 3;
    /* by stage: per substep fill (2 barriers), predict, velocity (each with its
     * barrier); the step's end: normals, residual, reduction, health with a
     * barrier between each */
    cr_expect_eq(g.dispatches - f.dispatches, (substeps - 1) + 1, "one velocity+prediction dispatch a substep, "
                 "the health check in the last velocities");
    cr_expect_eq(g.barriers - f.barriers, 2 * substeps + (substeps - 1) + 1 + 2,
                 "%u barriers fused, %u by stage", f.barriers, g.barriers);
    sinew_body_destroy(fused);
    sinew_body_destroy(staged);
    sinew_asset_destroy(a);
}
