/* The implicit cloth bodies, SINEW_SOLVER_IMPLICIT_MG and IMPLICIT_PCG
 * (docs/implicit.md): the multigrid of src/solvers/imc.c living in the
 * body's buffers. One step, per substep:
 *
 *     rollback copy (first substep) -> BDF2's blend with the step before
 *       -> constraints from pins and colliders -> assembly      one submit
 *     V-cycles (or batches of modified PCG) until the tolerance  a submit each
 *     x += h v + y, v += y / h                                    one submit
 *
 * and then the body's recorded step end (normals, residual, health). */
#include "../body.h"

#include <math.h>
#include <stdio.h>

#include "imc.h"

/* PCG iterations per submit: the host reads the residual after each batch. */
#define PCG_BATCH 10u

int sinew_solver_is_implicit(sinew_solver s)
{
    return s == SINEW_SOLVER_IMPLICIT_MG || s == SINEW_SOLVER_IMPLICIT_PCG;
}

static int positive(float x) { return isfinite(x) && x > 0.0f; }
static int nonneg(float x) { return isfinite(x) && x >= 0.0f; }

sinew_result sinew_implicit_check(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    const sinew_implicit_desc *m = &d->implicit;
    if (a->mlevel_count < 2)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "the implicit solvers need an asset with multigrid levels (sinew-prep --subdivide "
                          "LEVELS); this one has none");
    if (!positive(m->stretch) || !positive(m->shear) || !nonneg(m->bend) || !nonneg(m->damping) ||
        !positive(m->density))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "implicit material: stretch (%g), shear (%g) and density (%g) must be finite and > 0, "
                          "bend (%g) and damping (%g) finite and >= 0",
                          m->stretch, m->shear, m->density, m->bend, m->damping);
    if (!positive(m->pin_stiffness) || !positive(m->contact_stiffness) || !nonneg(m->friction_stiffness))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "implicit constraints: pin_stiffness (%g) and contact_stiffness (%g) must be finite and "
                          "> 0, friction_stiffness (%g) finite and >= 0",
                          m->pin_stiffness, m->contact_stiffness, m->friction_stiffness);
    if (!(m->tolerance > 0.0f && m->tolerance < 1.0f))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "implicit tolerance %g is not in (0, 1)",
                          m->tolerance);
    if (m->pre_smooth > 1000 || m->post_smooth > 1000 || m->pre_smooth + m->post_smooth == 0 ||
        m->coarse_iterations < 1 || m->coarse_iterations > 100000 || m->max_cycles < 1 || m->max_cycles > 10000 ||
        m->max_pcg_iterations < 1 || m->max_pcg_iterations > 10000000)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "implicit solve: pre_smooth (%u) and post_smooth (%u) must be in 0..1000 and not both 0, "
                          "coarse_iterations (%u) in 1..100000, max_cycles (%u) in 1..10000, max_pcg_iterations "
                          "(%u) in 1..10000000",
                          m->pre_smooth, m->post_smooth, m->coarse_iterations, m->max_cycles,
                          m->max_pcg_iterations);
    return SINEW_RESULT_OK;
}

sinew_result sinew_implicit_create(sinew_body *b, const sinew_asset *a)
{
    const sinew_implicit_desc *m = &b->desc.implicit;
    const sinew_imc_material mat = {m->stretch, m->shear, m->bend, m->damping, m->density};
    sinew_result r = sinew_imc_create(b->ctx, a, &mat, m->pin_stiffness, b->buffers, &b->imc);
    if (r == SINEW_RESULT_OK)
        sinew_imc_set_contacts(b->imc, m->contact_stiffness, m->friction_stiffness,
                               b->desc.solver == SINEW_SOLVER_IMPLICIT_PCG);
    return r;
}

sinew_result sinew_implicit_step(sinew_body *b, const sinew_step_params *p)
{
    const sinew_implicit_desc *m = &b->desc.implicit;
    const float h = p->dt / (float)b->desc.substeps;
    sinew_step_stats *st = &b->stats;
    st->linear_iterations = 0;
    st->linear_residual = 0.0;
    st->linear_unconverged = 0;
    st->linear_fallback_iterations = 0;
    st->ms_linear = 0.0;
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t s = 0; s < b->desc.substeps && r == SINEW_RESULT_OK; s++) {
        /* BDF2: backward Euler of 2h/3 from the blend with the step before */
        sinew_imc_history history = !m->bdf2 ? SINEW_IMC_NO_HISTORY : b->history ? SINEW_IMC_BLEND : SINEW_IMC_RECORD;
        const float hs = history == SINEW_IMC_BLEND ? h * (2.0f / 3.0f) : h;
        r = sinew_imc_assemble(b->imc, hs, p->gravity, s == 0 && b->desc.rollback ? &b->saved : NULL, history);
        b->history = m->bdf2;
        if (r != SINEW_RESULT_OK)
            return r;
        sinew_imc_solve_stats ss;
        double t0 = sinew_host_ms();
        if (b->desc.solver == SINEW_SOLVER_IMPLICIT_MG) {
            const sinew_imc_cycle c = {m->pre_smooth, m->post_smooth, m->coarse_iterations, m->tolerance,
                                       m->max_cycles, m->max_pcg_iterations};
            r = sinew_imc_solve(b->imc, &c, &ss);
        } else {
            r = sinew_imc_solve_pcg(b->imc, m->tolerance, m->max_pcg_iterations, PCG_BATCH, &ss);
        }
        st->ms_linear += sinew_host_ms() - t0;
        if (r == SINEW_RESULT_ERROR_UNSTABLE)
            r = SINEW_RESULT_OK; /* NaN: the health check after the step says where, and rolls back */
        if (r != SINEW_RESULT_OK)
            return r;
        double rel = ss.residual0 > 0.0 ? ss.residual / ss.residual0 : 0.0;
        if (b->ctx->logger.level >= SINEW_LOG_DEBUG) {
            char hist[64 * 11 + 1] = "";
            size_t at = 0;
            for (uint32_t k = 0; k < ss.cycles && k < 64 && b->desc.solver == SINEW_SOLVER_IMPLICIT_MG; k++)
                at += (size_t)snprintf(hist + at, sizeof hist - at, " %.2e", ss.history[k]);
            sinew_logf(&b->ctx->logger, SINEW_LOG_DEBUG, "implicit",
                       "body '%s', step %llu, substep %u: %u %s, |b| %.3e, relative residual %.3e%s%s%s%s",
                       b->name, (unsigned long long)st->step_index, s, ss.cycles,
                       b->desc.solver == SINEW_SOLVER_IMPLICIT_MG ? "V-cycles" : "PCG iterations", ss.residual0, rel,
                       ss.stalled ? " (stalled)" : "", ss.diverged ? " (diverged: started again by PCG)" : "",
                       at ? "; after each cycle:" : "", hist);
        }
        st->linear_iterations += ss.cycles;
        st->linear_fallback_iterations += ss.fallback;
        if (!(rel <= st->linear_residual))
            st->linear_residual = rel; /* NaN stays */
        if (!(rel <= m->tolerance))
            st->linear_unconverged++;
        r = sinew_imc_advance(b->imc);
    }
    return r;
}
