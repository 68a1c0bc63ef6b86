/* Projective dynamics of quad mass-spring networks, docs/math.md section 7: Pall,
 * Nylén and Fratarcangeli, "Fast Quadrangular Mass-Spring Systems using
 * Red-Black Ordering", Algorithm 1, with the Jacobi and
 * Chebyshev-accelerated Jacobi (Wang 2015) global steps it is measured
 * against. One substep after the Verlet prediction:
 *
 *     y = prediction (Q)
 *     iterations x:  local step (every spring) -> global step with contacts
 *
 * The global step of red-black Gauss-Seidel is two dispatches, all red
 * particles then all black ones, in place; Jacobi's is one dispatch into a
 * second buffer and one that takes it (with Chebyshev's weight). Each
 * particle's contacts are resolved where it is updated, so every variant
 * takes three dispatches per iteration. */
#include "solver.h"

#include "shared/pd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sinew_pd {
    sinew_buffer own[SINEW_PD_BINDINGS];
    uint32_t red_count; /* ORDER's first red_count particles are red */
} sinew_pd;

/* Designed traffic in bytes: local step per spring: record 16, two positions
 * 32, d 16. Global step per particle: position 16 in and 16 out, y 16, start
 * of the substep 16 (contacts), order 4, gather offsets 8; per spring end:
 * slot 4, record 16, other position 16, d 16. Apply per particle: iterate 16,
 * position 16 + 16, start of the substep 16, Chebyshev's previous iterate
 * 16 + 16. */
#define BYTES_LOCAL 64u
#define BYTES_GLOBAL_PARTICLE 76u
#define BYTES_GLOBAL_END 52u

/* Wang 2015, eq. 12: omega for iteration k (counted from 0 each substep),
 * plain Jacobi (omega 1) for the first `delay`. The CPU reference computes
 * the same sequence (tests/ref/pd_ref.c). */
static float chebyshev_omega(uint32_t k, uint32_t delay, double rho, double *omega)
{
    if (k < delay)
        *omega = 1.0;
    else if (k == delay)
        *omega = 2.0 / (2.0 - rho * rho);
    else
        *omega = 4.0 / (4.0 - rho * rho * *omega);
    return (float)*omega;
}

static void record_global(sinew_recorder *r, GpuRange range)
{
    sinew_record_dispatch(r, SINEW_KERNEL_PD_GLOBAL, range.count, &range, sizeof range);
    sinew_record_barrier(r);
    r->bytes += (uint64_t)BYTES_GLOBAL_PARTICLE * range.count;
}

/* What a PD body needs of its asset: springs of finite stiffness, nothing
 * else, and for red-black a partition that is one. */
static sinew_result check(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    sinew_result r = sinew_solver_check_fit(ctx, a, d, 0, 0);
    if (r != SINEW_RESULT_OK)
        return r;
    if (a->bend_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "the PD solvers simulate springs only; the asset has %u bending hinges (build it with "
                          "sinew-prep --no-bending)", a->bend_count);
    for (uint32_t c = 0; c < a->distance_count; c++) {
        int shear = a->distances[c].kind == SINEW_KIND_SHEAR;
        float compliance = shear ? d->shear_compliance : d->stretch_compliance;
        if (!(compliance > 0.0f))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "the PD solvers need springs of finite stiffness (1/compliance): %s_compliance is 0",
                              shear ? "shear" : "stretch");
    }
    if (d->solver != SINEW_SOLVER_PD_RED_BLACK)
        return SINEW_RESULT_OK;
    if (a->red_count + a->black_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "SINEW_SOLVER_PD_RED_BLACK needs an asset with a red-black partition (sinew-prep "
                          "--red-black); this one has none");
    return sinew_asset_validate_red_black(a, "asset", lg);
}

/* PD: each spring's local solution from the rest pose (kept by a spring
 * whose ends ever coincide; L along x when they coincide at rest) and, for
 * red-black, the particles reds first. */
static sinew_result upload_pd(sinew_pd *s, const sinew_body_view *v, const sinew_asset *a)
{
    sinew_context *ctx = v->ctx;
    const uint32_t n = a->particle_count, count = a->distance_count;
    float *d = calloc(4 * (size_t)count + 4, sizeof *d);
    uint32_t *order = malloc(sizeof *order * ((size_t)n + 1));
    sinew_result r = d && order ? SINEW_RESULT_OK
                                : sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body",
                                             "out of host memory");
    for (uint32_t c = 0; c < count && r == SINEW_RESULT_OK; c++) {
        const sinew_distance_rec *sp = &a->distances[c];
        const sinew_particle_rec *pa = &a->particles[sp->a], *pb = &a->particles[sp->b];
        double e[3] = {(double)pa->x - pb->x, (double)pa->y - pb->y, (double)pa->z - pb->z};
        double len = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        for (int k = 0; k < 3; k++)
            d[4 * c + k] = len > 1e-12 * sp->rest ? (float)(sp->rest * e[k] / len) : k == 0 ? sp->rest : 0.0f;
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &s->own[SINEW_PD_DELTA], 0, d, 16ull * count);
    if (r == SINEW_RESULT_OK && v->desc->solver == SINEW_SOLVER_PD_RED_BLACK) {
        memcpy(order, a->reds, sizeof *order * a->red_count);
        memcpy(order + a->red_count, a->blacks, sizeof *order * a->black_count);
        r = sinew_buffer_upload(ctx, &s->own[SINEW_PD_ORDER], 0, order, 4ull * n);
    }
    free(d);
    free(order);
    return r;
}

static void destroy(void *state, sinew_context *ctx)
{
    sinew_pd *s = state;
    for (int i = 0; i < SINEW_PD_BINDINGS; i++)
        sinew_buffer_destroy(ctx, &s->own[i]);
    free(s);
}

/* Set 1 (shared/pd.h). */
static sinew_result create(const sinew_body_view *v, const sinew_asset *a, void **state)
{
    sinew_context *ctx = v->ctx;
    sinew_pd *s = calloc(1, sizeof *s);
    if (!s)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    *state = s;
    s->red_count = a->red_count;
    const sinew_solver solver = v->desc->solver;
    const uint32_t n = a->particle_count;
    /* The springs' local solutions, then (Jacobi) the iterate and
     * (Chebyshev) the previous one. */
    const uint64_t vectors = a->distance_count + (uint64_t)n * (solver == SINEW_SOLVER_PD_JACOBI ? 1
                                                               : solver == SINEW_SOLVER_PD_CHEBYSHEV ? 2 : 0);
    const uint64_t slots = 2ull * a->distance_count;
    const sinew_buffer_plan plan[] = {
        {SINEW_PD_Q, 16ull * n, SINEW_MEMORY_DEVICE, "predicted positions"},
        {SINEW_PD_DELTA, 16ull * vectors, SINEW_MEMORY_DEVICE, "local solutions and iterates"},
        {SINEW_PD_ADJ_START, 4ull * (n + 1ull), SINEW_MEMORY_DEVICE, "gather offsets"},
        {SINEW_PD_ADJ, 4ull * slots, SINEW_MEMORY_DEVICE, "gather lists"},
        {SINEW_PD_ORDER, solver == SINEW_SOLVER_PD_RED_BLACK ? 4ull * n : 0, SINEW_MEMORY_DEVICE, "red-black order"},
    };
    sinew_result r = sinew_buffers_create(ctx, plan, sizeof plan / sizeof plan[0], s->own);
    if (r == SINEW_RESULT_OK)
        r = upload_pd(s, v, a);
    uint32_t *start, *adj;
    if (r == SINEW_RESULT_OK && !sinew_gather_lists(a, &start, &adj))
        r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    else if (r == SINEW_RESULT_OK) {
        r = sinew_buffer_upload(ctx, &s->own[SINEW_PD_ADJ_START], 0, start, 4ull * (n + 1ull));
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_upload(ctx, &s->own[SINEW_PD_ADJ], 0, adj, 4ull * slots);
        free(start);
        free(adj);
    }
    return r;
}

static const sinew_buffer *buffers(const void *state, uint32_t *count)
{
    *count = SINEW_PD_BINDINGS;
    return ((const sinew_pd *)state)->own;
}

/* Per substep: the prediction's end, and each iteration's. */
static uint32_t timestamps(const void *state, const sinew_body_view *v)
{
    (void)state;
    return 1 + v->desc->iterations;
}

/* After the prediction: y into Q, then per iteration the local and global
 * steps (contacts inside the global one). */
static void record_solve(void *state, const sinew_body_view *v, sinew_recorder *r)
{
    sinew_pd *s = state;
    const uint32_t n = v->particle_count, d = v->distance_count;
    const sinew_solver solver = v->desc->solver;
    const int chebyshev = solver == SINEW_SOLVER_PD_CHEBYSHEV;
    sinew_record_copy(r, &v->buffers[SINEW_BIND_POS], 0, &s->own[SINEW_PD_Q], 0, 16ull * n);
    r->bytes += 32ull * n;
    if (chebyshev) { /* the iterate before the first is y as well */
        sinew_record_copy(r, &v->buffers[SINEW_BIND_POS], 0, &s->own[SINEW_PD_DELTA], 16ull * (d + n), 16ull * n);
        r->bytes += 32ull * n;
    }
    sinew_record_timestamp(r, SINEW_PHASE_PREDICT);
    double omega = 1.0;
    for (uint32_t it = 0; it < v->desc->iterations; it++) {
        GpuRange springs = {0, d};
        sinew_record_dispatch(r, SINEW_KERNEL_PD_LOCAL, d, &springs, sizeof springs);
        sinew_record_barrier(r);
        r->bytes += (uint64_t)BYTES_LOCAL * d;
        if (solver == SINEW_SOLVER_PD_RED_BLACK) {
            uint32_t reds = s->red_count;
            record_global(r, (GpuRange){0, reds});
            record_global(r, (GpuRange){reds, n - reds});
        } else {
            GpuRange global = {0, n, 1};
            global.slot_base = d;
            record_global(r, global);
            GpuRange apply = {0, n, (uint32_t)chebyshev};
            apply.slot_base = d;
            apply.distance_total = d + n;
            apply.weight = chebyshev ? chebyshev_omega(it, v->desc->chebyshev_delay, v->desc->chebyshev_rho, &omega) : 1.0f;
            sinew_record_dispatch(r, SINEW_KERNEL_PD_APPLY, n, &apply, sizeof apply);
            sinew_record_barrier(r);
            r->bytes += (chebyshev ? 96ull : 64ull) * n;
        }
        r->bytes += (uint64_t)BYTES_GLOBAL_END * 2 * d;
        sinew_record_timestamp(r, SINEW_PHASE_SOLVE); /* contacts included */
    }
}

/* docs/math.md 9: the relative gradient of the substep's energy, per
 * particle. */
static uint32_t record_residual(void *state, const sinew_body_view *v, sinew_recorder *r, uint32_t first)
{
    (void)state;
    const uint32_t n = v->particle_count;
    GpuRange push = {first, n};
    sinew_record_dispatch(r, SINEW_KERNEL_PD_RESIDUAL, n, &push, sizeof push);
    r->bytes += 48ull * n + 2ull * (4 + 16 + 16) * v->distance_count; /* pos, q, adjacency; springs from both ends */
    return (n + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
}

const sinew_solver_ops sinew_pd_ops = {
    .check = check,
    .create = create,
    .destroy = destroy,
    .buffers = buffers,
    .timestamps = timestamps,
    .record_solve = record_solve,
    .record_residual = record_residual,
};
