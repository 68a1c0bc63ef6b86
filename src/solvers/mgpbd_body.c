/* SINEW_SOLVER_MGPBD: MGPBD (mgpbd.h; docs/mgpbd.md) as a body's solver.
 *
 * Per substep, after the body's prediction:
 *
 *     body POS -> the solver's positions         (a copy)
 *     lambda = 0; `iterations` outer iterations  (sinew_mgpbd_record_substep:
 *                                                 assembly, coarse products,
 *                                                 rho, CG, CG again with the
 *                                                 Jacobi preconditioner where
 *                                                 the V-cycle was found
 *                                                 indefinite, line search)
 *     the solver's positions -> body POS         (a copy)
 *     contacts                                   (the body's collide kernel)
 *
 * then the body's velocities. Nothing inside a step is decided on the host.
 * Between steps, before_step sets the hierarchy up on the host every
 * mgpbd_setup_interval steps (a submit, the finest operator read back, the
 * hierarchy uploaded) and the body records its step again, since the
 * hierarchy's buffers and sizes are in it; so does a change of step size,
 * which the solver's kernels take as a push constant. The first hierarchy
 * is made at creation from the rest shape dilated by 1 % about its centre:
 * at rest every as-rigid-as-possible constraint has F = R and no gradient,
 * so the operator there is diagonal and aggregates nothing. A checkpoint
 * carries the lazy setup (its record: the steps since the setup, then
 * mgpbd_lazy.c's), so a body resumed from it continues bit for bit. */
#include <stdlib.h>

#include "../core/bytes.h"
#include "mgpbd.h"
#include "solver.h"

/* The collide kernel's traffic a particle (pbd.h's SINEW_BYTES_COLLIDE). */
#define BYTES_COLLIDE 48u

/* The smallest distance compliance (m/N) the dual system is given: an
 * inextensible constraint (compliance 0) of an over-constrained mesh would
 * make it singular. */
#define MGPBD_MIN_COMPLIANCE 1e-9f

/* since_setup of a body whose next step sets the hierarchy up afresh. */
#define SETUP_DUE UINT32_MAX

typedef struct body_mgpbd {
    sinew_mgpbd *mg;
    const sinew_bindings *bindings; /* the body's sets, bound again after the solver's */
    float h;                        /* the substep size recorded (the solver's kernels take it as a constant) */
    uint32_t since_setup;           /* steps since the hierarchy was set up (SETUP_DUE: set up before the next) */
    int stale;                      /* the recorded step names a hierarchy replaced since (a record loaded) */
} body_mgpbd;

static sinew_result check(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    sinew_result r = sinew_solver_check_fit(ctx, a, d, 1, 0);
    if (r != SINEW_RESULT_OK)
        return r;
    if (a->bend_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "MGPBD simulates distance constraints and tetrahedra; the asset has %u bending hinges "
                          "(build it with sinew-prep --no-bending)", a->bend_count);
    for (uint32_t e = 0; e < a->element_count; e++)
        if (a->elements[e].kind != SINEW_ELEMENT_TET)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "MGPBD simulates tetrahedra; element %u of the asset is a %s", e,
                              a->elements[e].kind == SINEW_ELEMENT_SPRING ? "spring" : "triangle");
    if (a->distance_count + a->element_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "the asset has no distance constraints or tetrahedra for MGPBD");
    if (d->mgpbd_cg_iterations < 1 || d->mgpbd_cg_iterations > 1000 || d->mgpbd_setup_interval < 1)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "mgpbd_cg_iterations (%u) must be in 1..1000 and mgpbd_setup_interval (%u) >= 1",
                          d->mgpbd_cg_iterations, d->mgpbd_setup_interval);
    return SINEW_RESULT_OK;
}

static void destroy(void *state, sinew_context *ctx)
{
    (void)ctx;
    body_mgpbd *s = state;
    if (s)
        sinew_mgpbd_destroy(s->mg);
    free(s);
}

static sinew_result create(const sinew_body_view *v, const sinew_asset *a, void **state)
{
    const sinew_body_desc *d = v->desc;
    body_mgpbd *s = calloc(1, sizeof *s);
    float *compliance = malloc(sizeof *compliance * ((size_t)a->distance_count + 1));
    if (!s || !compliance) {
        free(s);
        free(compliance);
        return sinew_fail(&v->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    *state = s;
    for (uint32_t c = 0; c < a->distance_count; c++) {
        float k = a->distances[c].kind == SINEW_KIND_SHEAR ? d->shear_compliance : d->stretch_compliance;
        compliance[c] = k > MGPBD_MIN_COMPLIANCE ? k : MGPBD_MIN_COMPLIANCE;
    }
    sinew_mgpbd_desc md = sinew_mgpbd_desc_default();
    md.distance_compliances = compliance;
    md.pcg_iterations = d->mgpbd_cg_iterations;
    md.setup_interval = d->mgpbd_setup_interval;
    sinew_result r = sinew_mgpbd_create(v->ctx, a, &md, &s->mg);
    free(compliance);
    /* a step of the default parameters until the first step says otherwise */
    s->h = sinew_step_params_default().dt / (float)d->substeps;
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_setup_at_rest(s->mg, a, s->h);
    return r;
}

static const sinew_buffer *buffers(const void *state, uint32_t *count)
{
    (void)state;
    *count = 0;
    return NULL;
}

static uint64_t memory(const void *state, uint32_t *allocations)
{
    const body_mgpbd *s = state;
    *allocations += sinew_mgpbd_allocations(s->mg);
    return sinew_mgpbd_device_bytes(s->mg);
}

static void bound(void *state, const sinew_bindings *bindings) { ((body_mgpbd *)state)->bindings = bindings; }

/* Per substep: the prediction's end, the solve's, the contacts'. */
static uint32_t timestamps(const void *state, const sinew_body_view *v)
{
    (void)state;
    (void)v;
    return 3;
}

static void record_solve(void *state, const sinew_body_view *v, sinew_recorder *r)
{
    body_mgpbd *s = state;
    const uint32_t n = v->particle_count;
    sinew_buffer *mine = sinew_mgpbd_positions(s->mg);
    sinew_record_timestamp(r, SINEW_PHASE_PREDICT);
    sinew_record_copy(r, &v->buffers[SINEW_BIND_POS], 0, mine, 0, 16ull * n);
    sinew_mgpbd_record_substep(s->mg, r, s->h, v->desc->iterations);
    sinew_record_copy(r, mine, 0, &v->buffers[SINEW_BIND_POS], 0, 16ull * n);
    sinew_bindings_bind(v->ctx, r->cmd, s->bindings);
    r->bytes += 64ull * n;
    sinew_record_timestamp(r, SINEW_PHASE_SOLVE);
    GpuRange particles = {0, n};
    sinew_record_dispatch(r, SINEW_KERNEL_COLLIDE, n, &particles, sizeof particles);
    sinew_record_barrier(r);
    r->bytes += (uint64_t)BYTES_COLLIDE * n;
    sinew_record_timestamp(r, SINEW_PHASE_CONTACTS);
}

/* The relative dual residual |b| / |b_0| of the last substep's solve
 * (docs/math.md 9): one partial. */
static uint32_t record_residual(void *state, const sinew_body_view *v, sinew_recorder *r, uint32_t first)
{
    body_mgpbd *s = state;
    sinew_mgpbd_record_residual(s->mg, r, s->h, &v->buffers[SINEW_BIND_PARTIAL], 16ull * first);
    sinew_bindings_bind(v->ctx, r->cmd, s->bindings);
    return 1;
}

static sinew_result before_step(void *state, const sinew_body_view *v, const sinew_step_params *p, int *rerecord)
{
    body_mgpbd *s = state;
    const float h = p->dt / (float)v->desc->substeps;
    sinew_result r = SINEW_RESULT_OK;
    if (h != s->h || s->stale) {
        s->h = h;
        s->stale = 0;
        *rerecord = 1;
    }
    if (s->since_setup >= v->desc->mgpbd_setup_interval) {
        r = sinew_mgpbd_setup_from(s->mg, &v->buffers[SINEW_BIND_POS], h);
        s->since_setup = 0;
        *rerecord = 1;
    }
    s->since_setup++;
    return r;
}

/* The record: the steps since the setup (u32), then the lazy setup's
 * (mgpbd_lazy.c); none before a setup from positions. */
static size_t record_size(void *state)
{
    const size_t lazy = sinew_mgpbd_lazy_size(((body_mgpbd *)state)->mg);
    return lazy ? 4 + lazy : 0;
}

static sinew_result save_record(void *state, const sinew_body_view *v, uint8_t *dst)
{
    (void)v;
    body_mgpbd *s = state;
    sinew_put_u32(dst, s->since_setup);
    return sinew_mgpbd_lazy_save(s->mg, dst + 4);
}

static sinew_result load_record(void *state, const sinew_body_view *v, const uint8_t *src, size_t size)
{
    body_mgpbd *s = state;
    sinew_mgpbd_lazy lazy;
    sinew_result r = size >= 4 ? sinew_mgpbd_lazy_read(src + 4, size - 4, v->particle_count, v->name,
                                                       &v->ctx->logger, &lazy)
                               : sinew_fail(&v->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                                            "body '%s': the MGPBD record has %zu bytes; nothing was changed",
                                            v->name, size);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_lazy_load(s->mg, &lazy, v->name);
    if (r == SINEW_RESULT_OK) {
        s->since_setup = sinew_get_u32(src);
        s->stale = 1;
    }
    return r;
}

/* A checkpoint without the record (one of version 2 or before): the next
 * step sets the hierarchy up afresh from the positions loaded. */
static void state_loaded(void *state, uint32_t flags)
{
    body_mgpbd *s = state;
    if (!(flags & SINEW_STATE_RECORD))
        s->since_setup = SETUP_DUE;
}

const sinew_solver_ops sinew_mgpbd_ops = {
    .check = check,
    .create = create,
    .destroy = destroy,
    .buffers = buffers,
    .memory = memory,
    .bound = bound,
    .timestamps = timestamps,
    .record_solve = record_solve,
    .record_residual = record_residual,
    .before_step = before_step,
    .state_loaded = state_loaded,
    .record_size = record_size,
    .save_record = save_record,
    .load_record = load_record,
    .uncuttable = "a body of MGPBD cannot be cut (its hierarchy is built from its constraints)",
};
