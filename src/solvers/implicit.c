/* The implicit cloth bodies, SINEW_SOLVER_IMPLICIT_MG and IMPLICIT_PCG
 * (docs/implicit.md): the multigrid of src/solvers/imc.c living in the
 * body's buffers, recorded into the body's step (one submit, nothing
 * decided on the host). Per substep:
 *
 *     h and gravity from the step's parameters, BDF2's blend with the step
 *       before -> constraints from pins and colliders -> assembly
 *     V-cycles (or batches of modified PCG), each followed by the device's
 *       decision to go on (mg_control); those after it stopped do nothing
 *     x += h v + y, v += y / h
 *
 * and then the body's step end (normals, residual, health; the solves'
 * totals into STATS). */
#include "solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "imc.h"

/* PCG iterations between the device's convergence checks. */
#define PCG_BATCH 10u

typedef struct sinew_implicit {
    sinew_imc *imc;
    int bdf2;
    int history; /* BDF2: the solver's HISTORY holds the state of the step before */
} sinew_implicit;

/* Dispatches a step records at most. */
#define MAX_RECORDED_DISPATCHES (1u << 18)

/* About how many dispatches a step of this desc records (imc.c's
 * recording: each PCG iteration 5, each V-cycle its levels' smoothing,
 * transfers and checks). */
static uint64_t recorded_dispatches(const sinew_asset *a, const sinew_body_desc *d)
{
    const sinew_implicit_desc *m = &d->implicit;
    const uint32_t iterations = d->solver == SINEW_SOLVER_IMPLICIT_MG ? m->fallback_iterations : m->max_pcg_iterations;
    const uint64_t pcg = 5ull * iterations + 3ull * (iterations / PCG_BATCH + 1) + 8;
    uint64_t per_substep = 16 + pcg;
    if (d->solver == SINEW_SOLVER_IMPLICIT_MG) {
        uint64_t cycle = 2 + 5ull * m->coarse_iterations + 6;
        for (uint32_t l = 1; l < a->mlevel_count; l++)
            cycle += 5 + 5ull * m->pre_smooth + (uint64_t)m->post_smooth * a->mlevels[l].colour_count;
        per_substep += cycle * m->max_cycles;
    }
    return per_substep * d->substeps;
}

static int positive(float x) { return isfinite(x) && x > 0.0f; }
static int nonneg(float x) { return isfinite(x) && x >= 0.0f; }

static sinew_result check(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    const sinew_implicit_desc *m = &d->implicit;
    const int solid = sinew_imc_solid(a);
    sinew_result r = sinew_solver_check_fit(ctx, a, d, solid, 0);
    if (r != SINEW_RESULT_OK)
        return r;
    if (solid && d->solver != SINEW_SOLVER_IMPLICIT_PCG)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "a solid (an asset of tetrahedra) takes SINEW_SOLVER_IMPLICIT_PCG: the multigrid's levels "
                          "are a cloth's");
    for (uint32_t e = 0; solid && e < a->element_count; e++)
        if (a->elements[e].kind != SINEW_ELEMENT_TET)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "element %u is not a tetrahedron: the implicit solvers take cloth (triangles with "
                              "multigrid levels) or solids of tetrahedra", e);
    if (!solid && a->mlevel_count < 2)
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
        m->max_pcg_iterations < 1 || m->max_pcg_iterations > 100000 || m->fallback_iterations > 100000)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "implicit solve: pre_smooth (%u) and post_smooth (%u) must be in 0..1000 and not both 0, "
                          "coarse_iterations (%u) in 1..100000, max_cycles (%u) in 1..10000, max_pcg_iterations "
                          "(%u) in 1..100000, fallback_iterations (%u) in 0..100000",
                          m->pre_smooth, m->post_smooth, m->coarse_iterations, m->max_cycles,
                          m->max_pcg_iterations, m->fallback_iterations);
    /* The budget is recorded: every V-cycle and PCG iteration it allows is
     * in the command buffer (about 100 bytes a dispatch). */
    const uint64_t dispatches = recorded_dispatches(a, d);
    if (dispatches > MAX_RECORDED_DISPATCHES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "body",
                          "implicit solve: max_cycles %u, max_pcg_iterations %u and fallback_iterations %u (x %u "
                          "substeps) record about %llu dispatches a step; at most %u: lower them",
                          m->max_cycles, m->max_pcg_iterations, m->fallback_iterations, d->substeps,
                          (unsigned long long)dispatches,
                          MAX_RECORDED_DISPATCHES);
    return SINEW_RESULT_OK;
}

/* SINEW_IMPLICIT_BDF2_AUTO: BDF2 for a solid, whose tumbling backward
 * Euler damps away (docs/implicit.md, "Integrators"), backward Euler for a
 * cloth. */
static int uses_bdf2(const sinew_asset *a, const sinew_body_desc *d)
{
    return d->implicit.bdf2 == SINEW_IMPLICIT_BDF2_AUTO ? sinew_imc_solid(a) : d->implicit.bdf2 != 0;
}

static sinew_result create(const sinew_body_view *v, const sinew_asset *a, void **state)
{
    sinew_implicit *s = calloc(1, sizeof *s);
    if (!s)
        return sinew_fail(&v->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    *state = s;
    const sinew_implicit_desc *m = &v->desc->implicit;
    const sinew_imc_material mat = {m->stretch, m->shear, m->bend, m->damping, m->density};
    s->bdf2 = uses_bdf2(a, v->desc);
    sinew_result r = sinew_imc_create(v->ctx, a, &mat, m->pin_stiffness, v->buffers, s->bdf2, &s->imc);
    if (r == SINEW_RESULT_OK)
        sinew_imc_set_contacts(s->imc, m->contact_stiffness, m->friction_stiffness,
                               v->desc->solver == SINEW_SOLVER_IMPLICIT_PCG);
    return r;
}

static void destroy(void *state, sinew_context *ctx)
{
    sinew_implicit *s = state;
    (void)ctx;
    sinew_imc_destroy(s->imc);
    free(s);
}

static const sinew_buffer *buffers(const void *state, uint32_t *count)
{
    const sinew_implicit *s = state;
    if (!s->imc) {
        *count = 0;
        return NULL;
    }
    return sinew_imc_buffers(s->imc, count);
}

static void bound(void *state, const sinew_bindings *bindings)
{
    sinew_imc_use_bindings(((sinew_implicit *)state)->imc, bindings);
}

static uint32_t timestamps(const void *state, const sinew_body_view *v)
{
    (void)state, (void)v;
    return 2; /* the assembly's end (PREDICT) and the solve's (SOLVE) */
}

/* The solve a body's desc asks for (bdf2: resolved at creation). */
static sinew_imc_solve_plan plan_of(const sinew_body_desc *d, int bdf2)
{
    const sinew_implicit_desc *m = &d->implicit;
    const int mg = d->solver == SINEW_SOLVER_IMPLICIT_MG;
    sinew_imc_solve_plan p = {mg,
                              {m->pre_smooth, m->post_smooth, m->coarse_iterations, m->tolerance, m->max_cycles,
                               mg ? m->fallback_iterations : 0},
                              m->max_pcg_iterations, PCG_BATCH, d->substeps, bdf2};
    return p;
}

static void record_substep(void *state, const sinew_body_view *v, sinew_recorder *r, uint32_t substep)
{
    sinew_implicit *s = state;
    const sinew_imc_solve_plan p = plan_of(v->desc, s->bdf2);
    sinew_imc_record_substep(s->imc, r, &p, substep);
}

/* BDF2: the step's first substep blends with the step before when its
 * record is valid; after this step it is (when the step is kept). */
static uint32_t step_flags(void *state)
{
    sinew_implicit *s = state;
    const uint32_t valid = s->history ? 1u : 0u;
    s->history = s->bdf2;
    return valid;
}

/* PREV holds the pins' anchors: those moved by the host are anchored where
 * they now are; a teleport also forgets the step before (BDF2). */
static sinew_result moved(void *state, const sinew_body_view *v, uint32_t first, uint32_t count, const float *xyzw,
                          int teleport)
{
    sinew_implicit *s = state;
    if (teleport)
        s->history = 0;
    return sinew_buffer_upload(v->ctx, &v->buffers[SINEW_BIND_PREV], 16ull * first, xyzw, 16ull * count);
}

/* The step before is gone: the next is backward Euler. */
static void rolled_back(void *state) { ((sinew_implicit *)state)->history = 0; }

static uint32_t state_parts(void *state, const sinew_body_view *v, sinew_state_part parts[SINEW_STATE_MAX_PARTS])
{
    sinew_implicit *s = state;
    const uint64_t n = v->particle_count;
    parts[0] = (sinew_state_part){SINEW_STATE_ANCHORS, 1, 1, &v->buffers[SINEW_BIND_PREV], 16 * n, "anchor"};
    if (!s->bdf2)
        return 1;
    parts[1] = (sinew_state_part){SINEW_STATE_HISTORY, 0, s->history, sinew_imc_history_buffer(s->imc), 32 * n,
                                  "the step before's state"};
    return 2;
}

static void state_loaded(void *state, uint32_t flags)
{
    ((sinew_implicit *)state)->history = (flags & SINEW_STATE_HISTORY) != 0;
}

const sinew_solver_ops sinew_implicit_ops = {
    .check = check,
    .create = create,
    .destroy = destroy,
    .buffers = buffers,
    .bound = bound,
    .timestamps = timestamps,
    .record_substep = record_substep,
    .step_flags = step_flags,
    .uncuttable = "a body of an implicit solver cannot be cut (its multigrid levels are nested meshes)",
    .moved = moved,
    .rolled_back = rolled_back,
    .state_parts = state_parts,
    .state_loaded = state_loaded,
};
