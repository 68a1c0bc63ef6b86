/* The position-based family's operations (solver.h), and XPBD's sweeps:
 * docs/math.md sections 1-2, Macklin, Müller and Chentanez 2016 (XPBD).
 * Constraints are projected colour by colour (Gauss-Seidel, forward,
 * symmetric or alternating), pass by pass where the asset has clustered
 * sweeps (docs/colouring.md: a pass is one dispatch of clusters that run
 * their own colours in shared memory), or all at once with a per-particle
 * gather (Jacobi); GPBD's element updates (gpbd.c) run before them, HPBD's
 * hierarchy (hpbd.c) before the first iteration. The recording reads like
 * the algorithm: dispatch, barrier, dispatch. */
#include "pbd.h"
#include "../attach.h"
#include "../selfcol.h"

#include <stdlib.h>
#include <string.h>

static int is_gpbd(sinew_solver s) { return s == SINEW_SOLVER_GPBD_GAUSS_SEIDEL || s == SINEW_SOLVER_GPBD_JACOBI; }
static int is_jacobi(sinew_solver s) { return s == SINEW_SOLVER_XPBD_JACOBI || s == SINEW_SOLVER_GPBD_JACOBI; }
static int is_gauss_seidel(sinew_solver s)
{
    return s == SINEW_SOLVER_XPBD_GAUSS_SEIDEL || s == SINEW_SOLVER_GPBD_GAUSS_SEIDEL || s == SINEW_SOLVER_HPBD;
}

static sinew_result check(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    sinew_result r = sinew_solver_check_fit(ctx, a, d, is_gpbd(d->solver), is_gauss_seidel(d->solver));
    if (r != SINEW_RESULT_OK)
        return r;
    if (d->sweep_layout == SINEW_SWEEP_LAYOUT_CLUSTERS && !is_jacobi(d->solver) && a->cpass_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "sweep_layout CLUSTERS needs an asset with clustered sweeps (sinew-prep --clusters N); "
                          "this one has none");
    if (d->solver == SINEW_SOLVER_HPBD && a->level_count < 2)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "SINEW_SOLVER_HPBD needs an asset with a hierarchy (sinew-prep --hierarchy LEVELS); this "
                          "one has none");
    return SINEW_RESULT_OK;
}

static void destroy(void *state, sinew_context *ctx)
{
    sinew_pbd *s = state;
    for (int i = 0; i < SINEW_PBD_BINDINGS; i++)
        sinew_buffer_destroy(ctx, &s->own[i]);
    sinew_hpbd_free(s);
    free(s->colours);
    free(s->element_colours);
    free(s->cpasses);
    free(s->cpass_items);
    free(s->cpass_particles);
    free(s);
}

/* The asset's colour ranges, kept for the recording. */
static int copy_colours(sinew_pbd *s, const sinew_asset *a)
{
    s->colour_count = a->colour_count;
    s->element_colour_count = a->element_colour_count;
    s->colours = malloc(sizeof *s->colours * ((size_t)a->colour_count + 1));
    s->element_colours = malloc(sizeof *s->element_colours * ((size_t)a->element_colour_count + 1));
    if (!s->colours || !s->element_colours)
        return 0;
    if (a->colour_count)
        memcpy(s->colours, a->colours, sizeof *s->colours * a->colour_count);
    if (a->element_colour_count)
        memcpy(s->element_colours, a->element_colours, sizeof *s->element_colours * a->element_colour_count);
    return 1;
}

_Static_assert(SINEW_CLUSTER_SHARED_PARTICLES == SINEW_CLUSTER_MAX_PARTICLES, "a cluster fits in shared memory");

/* The Gauss-Seidel solvers sweep an asset's clusters where it has them,
 * unless told otherwise or on a CPU device (sinew_sweep_layout). */
static int uses_clusters(const sinew_body_view *v, const sinew_asset *a)
{
    const sinew_body_desc *d = v->desc;
    if (is_jacobi(d->solver) || a->cpass_count == 0 || d->sweep_layout == SINEW_SWEEP_LAYOUT_COLOURS)
        return 0;
    return d->sweep_layout == SINEW_SWEEP_LAYOUT_CLUSTERS || v->ctx->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
}

/* The asset's passes, kept for the recording, with what each moves. */
static int copy_passes(sinew_pbd *s, const sinew_asset *a)
{
    s->cpass_count = a->cpass_count;
    s->cpasses = malloc(sizeof *s->cpasses * ((size_t)a->cpass_count + 1));
    s->cpass_items = calloc((size_t)a->cpass_count + 1, sizeof *s->cpass_items);
    s->cpass_particles = calloc((size_t)a->cpass_count + 1, sizeof *s->cpass_particles);
    if (!s->cpasses || !s->cpass_items || !s->cpass_particles)
        return 0;
    if (a->cpass_count)
        memcpy(s->cpasses, a->cpasses, sizeof *s->cpasses * a->cpass_count);
    for (uint32_t p = 0; p < a->cpass_count; p++)
        for (uint32_t k = a->cpasses[p].begin; k < a->cpasses[p].begin + a->cpasses[p].count; k++) {
            const sinew_cluster_rec *c = &a->clusters[k];
            s->cpass_particles[p] += c->particle_count;
            for (uint32_t q = c->colour_begin; q < c->colour_begin + c->colour_count; q++)
                s->cpass_items[p] += a->ccolours[q].count;
        }
    return 1;
}

/* SINEW_PBD_CLUSTERS: four offsets, then the clusters, colour ranges,
 * particles and items (shared/pbd.h), in words. */
static uint64_t cluster_words(const sinew_asset *a)
{
    return a->cpass_count ? 4ull + 4ull * a->cluster_count + 2ull * a->ccolour_count + a->cparticle_count +
                                3ull * a->citem_count
                          : 0;
}

static sinew_result upload_clusters(sinew_pbd *s, sinew_context *ctx, const sinew_asset *a)
{
    uint64_t words = cluster_words(a);
    uint32_t *w = malloc(sizeof *w * words);
    if (!w)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    uint32_t *at = w + 4;
    w[0] = (uint32_t)(at - w);
    memcpy(at, a->clusters, sizeof *a->clusters * a->cluster_count);
    at += 4ull * a->cluster_count;
    w[1] = (uint32_t)(at - w);
    memcpy(at, a->ccolours, sizeof *a->ccolours * a->ccolour_count);
    at += 2ull * a->ccolour_count;
    w[2] = (uint32_t)(at - w);
    memcpy(at, a->cparticles, sizeof *a->cparticles * a->cparticle_count);
    at += a->cparticle_count;
    w[3] = (uint32_t)(at - w);
    memcpy(at, a->citems, sizeof *a->citems * a->citem_count);
    sinew_result r = sinew_buffer_upload(ctx, &s->own[SINEW_PBD_CLUSTERS], 0, w, 4 * words);
    free(w);
    return r;
}

/* Set 1 (shared/pbd.h): made only where there is something to hold. */
static sinew_result make_buffers(sinew_pbd *s, const sinew_body_view *v, const sinew_asset *a)
{
    sinew_context *ctx = v->ctx;
    const uint32_t n = a->particle_count;
    const int jacobi = is_jacobi(s->solver);
    const uint64_t slots = 2ull * a->distance_count + 4ull * a->bend_count + 4ull * a->element_count;
    const sinew_buffer_plan plan[] = {
        {SINEW_PBD_LAMBDA, 4ull * (a->distance_count + (uint64_t)a->bend_count), SINEW_MEMORY_DEVICE, "multipliers",
         1 /* reset every substep */},
        {SINEW_PBD_DELTA, jacobi ? 16ull * slots : 0, SINEW_MEMORY_DEVICE, "Jacobi corrections"},
        {SINEW_PBD_ADJ_START, jacobi ? 4ull * (n + 1ull) : 0, SINEW_MEMORY_DEVICE, "gather offsets"},
        {SINEW_PBD_ADJ, jacobi ? 4ull * slots : 0, SINEW_MEMORY_DEVICE, "gather lists"},
        {SINEW_PBD_ZDISP, 64ull * a->element_count, SINEW_MEMORY_DEVICE, "element displacements"},
        {SINEW_PBD_Q, s->level_count ? 16ull * n : 0, SINEW_MEMORY_DEVICE, "hierarchy start positions"},
        {SINEW_PBD_HDIST, sizeof(GpuDistance) * (uint64_t)s->hdistance_count, SINEW_MEMORY_DEVICE,
         "coarse constraints"},
        {SINEW_PBD_HNODE, s->level_count ? sizeof(GpuNode) * (uint64_t)n : 0, SINEW_MEMORY_DEVICE, "hierarchy nodes"},
        {SINEW_PBD_HLINK, sizeof(GpuLink) * (uint64_t)s->link_count, SINEW_MEMORY_DEVICE, "parent links"},
        {SINEW_PBD_CLUSTERS, s->cpass_count ? 4 * cluster_words(a) : 0, SINEW_MEMORY_DEVICE, "clusters"},
    };
    sinew_result r = sinew_buffers_create(ctx, plan, sizeof plan / sizeof plan[0], s->own);
    if (r == SINEW_RESULT_OK && s->level_count)
        r = sinew_hpbd_upload(s, ctx, n);
    if (r == SINEW_RESULT_OK && s->cpass_count)
        r = upload_clusters(s, ctx, a);
    if (r != SINEW_RESULT_OK || !jacobi)
        return r;
    uint32_t *start, *adj;
    if (!sinew_gather_lists(a, &start, &adj))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    r = sinew_buffer_upload(ctx, &s->own[SINEW_PBD_ADJ_START], 0, start, 4ull * (n + 1ull));
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &s->own[SINEW_PBD_ADJ], 0, adj, 4ull * slots);
    free(start);
    free(adj);
    return r;
}

static sinew_result create(const sinew_body_view *v, const sinew_asset *a, void **state)
{
    const sinew_logger *lg = &v->ctx->logger;
    sinew_pbd *s = calloc(1, sizeof *s);
    if (!s)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    *state = s;
    s->solver = v->desc->solver;
    s->sweep_order = v->desc->sweep_order != SINEW_SWEEP_DEFAULT ? v->desc->sweep_order
                     : s->solver == SINEW_SOLVER_HPBD ? SINEW_SWEEP_ALTERNATING /* the paper's */
                                                       : SINEW_SWEEP_FORWARD;
    if (!copy_colours(s, a) || (uses_clusters(v, a) && !copy_passes(s, a)))
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    sinew_result r = s->solver == SINEW_SOLVER_HPBD ? sinew_hpbd_copy(s, a, lg) : SINEW_RESULT_OK;
    return r == SINEW_RESULT_OK ? make_buffers(s, v, a) : r;
}

static const sinew_buffer *buffers(const void *state, uint32_t *count)
{
    *count = SINEW_PBD_BINDINGS;
    return ((const sinew_pbd *)state)->own;
}

/* Per substep: the prediction's end, the hierarchy's, and per iteration the
 * solve's and the contacts'. */
static uint32_t timestamps(const void *state, const sinew_body_view *v)
{
    const sinew_pbd *s = state;
    return 1 + (s->level_count > 0) + 2 * v->desc->iterations;
}

/* lambda = 0 (and GPBD's z) each substep: by the prediction kernel, or
 * filled. */
static void record_reset(void *state, const sinew_body_view *v, sinew_recorder *r, GpuRange *clear)
{
    sinew_pbd *s = state;
    if (clear) {
        clear->count2 = v->distance_count + v->bend_count;
        clear->slot_base = 4 * v->element_count;
        return;
    }
    sinew_record_fill(r, &s->own[SINEW_PBD_LAMBDA], 0);
    if (v->element_count)
        sinew_record_fill(r, &s->own[SINEW_PBD_ZDISP], 0);
    r->bytes += 4ull * (v->distance_count + v->bend_count) + 64ull * v->element_count;
}

static void record_colour(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r, uint32_t c)
{
    const sinew_colour_rec *col = &s->colours[c];
    GpuRange push = {col->distance_begin, col->distance_count, col->bend_begin, col->bend_count, v->distance_count};
    sinew_record_dispatch(r, SINEW_KERNEL_PROJECT_COLOUR, col->distance_count + col->bend_count, &push, sizeof push);
    sinew_record_barrier(r); /* the next colour reads what this one wrote */
    r->bytes += (uint64_t)SINEW_BYTES_DISTANCE * col->distance_count + (uint64_t)SINEW_BYTES_BEND * col->bend_count;
}

/* One pass of clusters; mode SINEW_CLUSTER_FORWARD, _BACKWARD or
 * _BACKWARD_AFTER. Traffic: the constraints' as in a colour, less the
 * positions, which a cluster reads and writes once (32 B a particle). */
static void record_pass(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r, uint32_t p, uint32_t mode)
{
    const sinew_range_rec *pass = &s->cpasses[p];
    GpuRange push = {pass->begin, pass->count, mode, 0, v->distance_count};
    sinew_record_dispatch(r, SINEW_KERNEL_PROJECT_CLUSTERS, pass->count * SINEW_WORKGROUP_SIZE, &push, sizeof push);
    sinew_record_barrier(r); /* the next pass reads what this one wrote */
    r->bytes += 12ull * s->cpass_items[p] + 36ull * s->cpass_particles[p];
}

/* The clustered sweep: pass by pass as record_gauss_seidel goes colour by
 * colour, each cluster's colours in the same direction. */
static void record_clustered(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r, uint32_t iteration)
{
    const uint32_t np = s->cpass_count;
    if (s->sweep_order == SINEW_SWEEP_ALTERNATING && iteration % 2 == 1) {
        for (uint32_t p = np; p-- > 0;)
            record_pass(s, v, r, p, SINEW_CLUSTER_BACKWARD);
        return;
    }
    for (uint32_t p = 0; p < np; p++)
        record_pass(s, v, r, p, SINEW_CLUSTER_FORWARD);
    if (s->solver == SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL)
        for (uint32_t p = np; p-- > 0;)
            record_pass(s, v, r, p, p == np - 1 ? SINEW_CLUSTER_BACKWARD_AFTER : SINEW_CLUSTER_BACKWARD);
}

/* Forward over the colours; the symmetric solver then comes back, leaving out
 * the last colour, which a second projection in a row would not move. With
 * SINEW_SWEEP_ALTERNATING every second iteration runs backwards (HPBD's
 * default, the paper's: two iterations, the second in the opposite order). */
static void record_gauss_seidel(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r, uint32_t iteration)
{
    if (s->cpass_count) {
        record_clustered(s, v, r, iteration);
        return;
    }
    if (s->sweep_order == SINEW_SWEEP_ALTERNATING && iteration % 2 == 1) {
        for (uint32_t c = s->colour_count; c-- > 0;)
            record_colour(s, v, r, c);
        return;
    }
    for (uint32_t c = 0; c < s->colour_count; c++)
        record_colour(s, v, r, c);
    if (s->solver == SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL && s->colour_count > 1)
        for (uint32_t c = s->colour_count - 1; c-- > 0;)
            record_colour(s, v, r, c);
}

static void record_jacobi(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r)
{
    const uint32_t d = v->distance_count, b = v->bend_count;
    GpuRange project = {0, d, 0, b, d};
    if (d + b) {
        sinew_record_dispatch(r, SINEW_KERNEL_JACOBI_PROJECT, d + b, &project, sizeof project);
        sinew_record_barrier(r);
    }
    sinew_gpbd_record_jacobi(s, v, r);
    GpuRange apply = {0, v->particle_count};
    sinew_record_dispatch(r, SINEW_KERNEL_JACOBI_APPLY, v->particle_count, &apply, sizeof apply);
    sinew_record_barrier(r);
    /* Project: as Gauss-Seidel but corrections go to DELTA (16 B per vertex)
     * instead of positions. Apply: per particle pos in/out, two offsets, and
     * per incident slot an index and a correction. */
    uint64_t slots = 2ull * d + 4ull * b + 4ull * v->element_count;
    r->bytes += (uint64_t)(SINEW_BYTES_DISTANCE - 32) * d + (uint64_t)(SINEW_BYTES_BEND - 64) * b + 16ull * slots +
                (16ull + 16 + 8) * v->particle_count + 20ull * slots;
}

/* After the prediction: the hierarchy (HPBD), then each iteration's
 * projections and contacts. */
static void record_solve(void *state, const sinew_body_view *v, sinew_recorder *r)
{
    const sinew_pbd *s = state;
    const uint32_t n = v->particle_count;
    GpuRange particles = {0, n, 0, 0, 0, v->selfcol != NULL};
    if (v->selfcol) /* the substep's candidate pairs, from PREV and the prediction */
        sinew_selfcol_record_build(v->selfcol, r);
    sinew_record_timestamp(r, SINEW_PHASE_PREDICT);
    if (s->level_count) {
        sinew_hpbd_record(s, v, r);
        sinew_record_timestamp(r, SINEW_PHASE_SOLVE);
    }
    for (uint32_t it = 0; it < v->desc->iterations; it++) {
        if (is_jacobi(s->solver)) {
            record_jacobi(s, v, r);
        } else {
            sinew_gpbd_record_colours(s, v, r);
            record_gauss_seidel(s, v, r, it);
        }
        sinew_record_timestamp(r, SINEW_PHASE_SOLVE);
        sinew_attach_record_project(v->attach, r); /* compliant attachments, tethers */
        if (v->selfcol) /* the contacts' corrections, which collide adds */
            sinew_selfcol_record_project(v->selfcol, r);
        sinew_record_dispatch(r, SINEW_KERNEL_COLLIDE, n, &particles, sizeof particles);
        sinew_record_barrier(r);
        r->bytes += (uint64_t)SINEW_BYTES_COLLIDE * n;
        sinew_record_timestamp(r, SINEW_PHASE_CONTACTS);
    }
}

/* docs/math.md 9: GPBD's elements' relative residual (the body's XPBD
 * constraints left out), or the compliant constraint residual C + alpha~
 * lambda of the distances (over their rest lengths) and bends. */
static uint32_t record_residual(void *state, const sinew_body_view *v, sinew_recorder *r, uint32_t first)
{
    (void)state;
    const uint32_t d = v->distance_count, b = v->bend_count, e = v->element_count;
    if (e) {
        GpuRange push = {first, e};
        sinew_record_dispatch(r, SINEW_KERNEL_GPBD_RESIDUAL, e, &push, sizeof push);
        r->bytes += sinew_gpbd_bytes(e);
        return (e + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    }
    if (!(d + b))
        return 0;
    GpuRange push = {first, d, 0, b, d};
    sinew_record_dispatch(r, SINEW_KERNEL_PBD_RESIDUAL, d + b, &push, sizeof push);
    /* distance 16 + two positions 32 + lambda 4; bend 32 + four positions 64 + angle and lambda 8 */
    r->bytes += 52ull * d + 104ull * b;
    return (d + b + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
}

static sinew_result cut(void *state, const sinew_body_view *v, const uint32_t *pairs, uint32_t pair_count)
{
    sinew_pbd *s = state;
    return s->level_count ? sinew_hpbd_cut(s, v, pairs, pair_count) : SINEW_RESULT_OK;
}

const sinew_solver_ops sinew_pbd_ops = {
    .check = check,
    .create = create,
    .destroy = destroy,
    .buffers = buffers,
    .timestamps = timestamps,
    .record_reset = record_reset,
    .record_solve = record_solve,
    .record_residual = record_residual,
    .cut = cut,
};
