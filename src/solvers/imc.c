/* Implicit cloth with constrainable multigrid on the GPU: the levels' layout
 * (shared/layout.h, SINEW_MG_*) built from an asset's multigrid sections
 * (imc_setup.c), and the kernels mg_assemble, mg_residual, mg_restrict and
 * mg_prolong recorded into V-cycles and PCG. A solid (an asset of
 * tetrahedra) is one level: its tetrahedra in the pattern and the incidence
 * lists, their records and materials the body's (ELEM, MATERIAL), solved by
 * PCG. */
#include "imc_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const sinew_buffer *sinew_imc_buffers(const sinew_imc *s, uint32_t *count)
{
    *count = SINEW_MG_BINDINGS;
    return s->mg;
}

sinew_buffer *sinew_imc_history_buffer(sinew_imc *s) { return &s->mg[SINEW_MG_BIND_HISTORY]; }

void sinew_imc_use_bindings(sinew_imc *s, const sinew_bindings *bindings)
{
    SINEW_ASSERT(s->borrowed);
    sinew_workspace_borrow(&s->ws, bindings);
}

void sinew_imc_set_contacts(sinew_imc *s, double contact, double friction, int filtered)
{
    s->contact = (float)contact;
    s->friction = (float)friction;
    s->filtered = filtered;
}

uint32_t sinew_imc_level_count(const sinew_imc *s) { return s->levels; }
uint32_t sinew_imc_particle_count(const sinew_imc *s, uint32_t level) { return s->L[level].n; }

void sinew_imc_pattern(const sinew_imc *s, uint32_t level, const uint32_t **row, const uint32_t **col)
{
    *row = s->L[level].row;
    *col = s->L[level].col;
}

sinew_result sinew_imc_set_state(sinew_imc *s, const float *x, const float *v)
{
    float *buf = malloc(sizeof *buf * 4 * ((size_t)s->n + 1));
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    sinew_result r = SINEW_RESULT_OK;
    for (int pass = 0; pass < 2 && r == SINEW_RESULT_OK; pass++) {
        const float *src = pass ? v : x;
        for (uint32_t i = 0; i < s->n; i++) {
            memcpy(&buf[4 * i], &src[3 * i], 3 * sizeof *buf);
            buf[4 * i + 3] = 0.0f;
        }
        r = sinew_buffer_upload(s->ctx, &s->body[pass ? SINEW_BIND_VEL : SINEW_BIND_POS], 0, buf, 16ull * s->n);
    }
    free(buf);
    return r;
}

void sinew_imc_set_constraint(sinew_imc *s, uint32_t i, const float D[9], const float d[3])
{
    for (int row = 0; row < 3; row++) {
        memcpy(&s->D[12 * i + 4 * row], &D[3 * row], 3 * sizeof *D);
        s->D[12 * i + 4 * row + 3] = 0.0f;
    }
    memcpy(&s->target[4 * i], d, 3 * sizeof *d);
}

/* ---------------------------------------------------------------- recording */

/* One dispatch of an mg kernel and the barrier after it. `gate` (0: none)
 * is the scalar that must be open for the kernel to work (mg_open). */
static void dispatch_at(sinew_recorder *r, sinew_kernel k, uint32_t first, uint32_t threads, uint32_t level,
                        uint32_t mode, uint32_t x, uint32_t y, uint32_t gate)
{
    GpuRange g = {0};
    g.first = first;
    g.count = threads;
    g.first2 = level;
    g.count2 = mode;
    g.distance_total = x;
    g.slot_base = y;
    g.gate = gate;
    sinew_record_dispatch(r, k, threads, &g, sizeof g);
    sinew_record_barrier(r);
}

static void dispatch(sinew_recorder *r, sinew_kernel k, uint32_t threads, uint32_t level, uint32_t mode,
                     uint32_t x, uint32_t y, uint32_t gate)
{
    dispatch_at(r, k, 0, threads, level, mode, x, y, gate);
}

/* The partial sums of a level's last mg_pcg dispatch into scalar `slot`. */
static void reduce(sinew_imc *s, sinew_recorder *r, uint32_t level, uint32_t slot, uint32_t gate)
{
    uint32_t groups = (s->L[level].n + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    dispatch(r, SINEW_KERNEL_MG_REDUCE, SINEW_WORKGROUP_SIZE, 0, 0, groups, slot, gate);
}

/* mg_control (one invocation) in `mode` on the control record at `at`. */
static void control(sinew_recorder *r, uint32_t mode, uint32_t at, uint32_t flags, uint32_t limit, uint32_t done,
                    double tolerance)
{
    GpuRange g = {0};
    g.first = limit;
    g.first2 = done;
    g.count2 = mode;
    g.distance_total = flags;
    g.slot_base = at;
    g.weight = (float)tolerance;
    sinew_record_dispatch(r, SINEW_KERNEL_MG_CONTROL, 1, &g, sizeof g);
    sinew_record_barrier(r);
}

/* Work behind scalar `gate` (shared/layout.h): skipped by the device where
 * it can (conditional rendering on the gate's x, 0.0 or 1.0), else by the
 * kernels. */
static void begin_gated(sinew_imc *s, sinew_recorder *r, uint32_t gate)
{
    sinew_record_if(r, &s->mg[SINEW_MG_BIND_REAL], 16ull * (s->scalars + gate));
}

/* PCG's iteration k on a level (after its START): r.z alternates between two
 * scalars by the iteration's parity. */
static void record_pcg_iteration(sinew_imc *s, sinew_recorder *r, uint32_t level, uint32_t k, uint32_t gate)
{
    const uint32_t n = s->L[level].n, parity = k & 1u;
    dispatch(r, SINEW_KERNEL_MG_PCG, n, level, SINEW_MG_PCG_Q, 0, parity, gate);
    reduce(s, r, level, SINEW_MG_S_PQ, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, level, SINEW_MG_PCG_UPDATE, 0, parity, gate);
    reduce(s, r, level, SINEW_MG_S_RZ + 1 - parity, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, level, SINEW_MG_PCG_DIRECTION, 0, parity, gate);
}

/* `iterations` of block-Jacobi PCG on a level from its U. */
static void record_pcg(sinew_imc *s, sinew_recorder *r, uint32_t level, uint32_t iterations, uint32_t gate)
{
    dispatch(r, SINEW_KERNEL_MG_PCG, s->L[level].n, level, SINEW_MG_PCG_START, 0, 0, gate);
    reduce(s, r, level, SINEW_MG_S_RZ, gate);
    for (uint32_t k = 0; k < iterations; k++)
        record_pcg_iteration(s, r, level, k, gate);
}

/* Whether the coarsest level's solve of `iterations` fits one workgroup
 * (mg_coarse): each invocation's loops within llvmpipe's 65 535 iterations
 * (common.glsl), with room to spare. */
static int coarse_fits(const sinew_imc *s, uint32_t iterations)
{
    const level_host *L = &s->L[0];
    uint32_t widest = 0;
    for (uint32_t i = 0; i < L->n; i++)
        if (L->row[i + 1] - L->row[i] > widest)
            widest = L->row[i + 1] - L->row[i];
    const uint64_t rows = (L->n + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    const uint64_t per_iteration = rows * (widest + 3) + 3 * 8; /* three row loops, two sums */
    return (uint64_t)iterations * per_iteration + rows * widest < 50000;
}

static void record_vcycle(sinew_imc *s, sinew_recorder *r, uint32_t level, const sinew_imc_cycle *c, uint32_t gate)
{
    if (level == 0 && coarse_fits(s, c->coarse_iterations)) {
        GpuRange g = {0};
        g.count = c->coarse_iterations;
        g.gate = gate;
        sinew_record_dispatch(r, SINEW_KERNEL_MG_COARSE, SINEW_WORKGROUP_SIZE, &g, sizeof g);
        sinew_record_barrier(r);
        return;
    }
    if (level == 0) {
        record_pcg(s, r, 0, c->coarse_iterations, gate);
        return;
    }
    record_pcg(s, r, level, c->pre, gate);
    dispatch(r, SINEW_KERNEL_MG_RESIDUAL, s->L[level].n, level, 0, SINEW_MG_U, SINEW_MG_R, gate);
    dispatch(r, SINEW_KERNEL_MG_RESTRICT, s->L[level - 1].n, level - 1, 0, 0, 0, gate);
    record_vcycle(s, r, level - 1, c, gate);
    dispatch(r, SINEW_KERNEL_MG_PROLONG, s->L[level].n, level, 0, 0, 0, gate);
    const level_host *L = &s->L[level];
    for (uint32_t sweep = 0; sweep < c->post; sweep++)
        for (uint32_t k = 0; k < L->colours; k++)
            dispatch_at(r, SINEW_KERNEL_MG_SMOOTH, L->colour_at[k], L->colour_count[k], level, 0, 0, 0, gate);
}

/* |R|^2 of the finest level into its scalar (after R is computed). */
static void record_residual_norm(sinew_imc *s, sinew_recorder *r, uint32_t gate)
{
    const uint32_t top = s->levels - 1;
    dispatch(r, SINEW_KERNEL_MG_PCG, s->L[top].n, top, SINEW_MG_DOT, SINEW_MG_R, 0, gate);
    reduce(s, r, top, SINEW_MG_S_RR, gate);
}

/* The V-cycles' start: U = 0, |F|^2, their control record running. */
static void record_mg_start(sinew_imc *s, sinew_recorder *r)
{
    const uint32_t top = s->levels - 1, n = s->L[top].n;
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_PCG_INIT, 0, 0, 0);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_DOT, SINEW_MG_F, 0, 0);
    reduce(s, r, top, SINEW_MG_S_BB, 0);
    control(r, SINEW_MG_CONTROL_START, SINEW_MG_S_MG, 0, 0, 0, 0.0);
}

/* `count` more V-cycles, each with its residual and the device's decision
 * on the next; those after the solve stopped do nothing. */
static void record_mg_cycles(sinew_imc *s, sinew_recorder *r, const sinew_imc_cycle *c, uint32_t count)
{
    const uint32_t top = s->levels - 1, n = s->L[top].n;
    for (uint32_t k = 0; k < count; k++) {
        begin_gated(s, r, SINEW_MG_S_MG);
        record_vcycle(s, r, top, c, SINEW_MG_S_MG);
        dispatch(r, SINEW_KERNEL_MG_RESIDUAL, n, top, 0, SINEW_MG_U, SINEW_MG_R, SINEW_MG_S_MG);
        record_residual_norm(s, r, SINEW_MG_S_MG);
        control(r, SINEW_MG_CONTROL_CHECK, SINEW_MG_S_MG, SINEW_MG_CONTROL_VCYCLES, c->max_cycles, 1, c->tolerance);
        sinew_record_end_if(r);
    }
}

static void record_mg_end(sinew_recorder *r, const sinew_imc_cycle *c)
{
    control(r, SINEW_MG_CONTROL_END, SINEW_MG_S_MG,
            SINEW_MG_CONTROL_VCYCLES | (c->fallback_iterations ? SINEW_MG_CONTROL_MAY_FALL_BACK : 0u), 0, 0,
            c->tolerance);
}

/* PCG's start from U = 0 (modified PCG: the constrained part of the
 * solution), its first step, the norm of its right-hand side (F, or for
 * modified PCG the filtered residual at the start); as the V-cycles'
 * fallback, only if they called for it. */
static void record_pcg_start(sinew_imc *s, sinew_recorder *r, int fallback)
{
    const uint32_t top = s->levels - 1, n = s->L[top].n, gate = fallback ? SINEW_MG_S_FALLBACK : 0;
    if (fallback)
        begin_gated(s, r, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_PCG_INIT, 0, 0, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_PCG_START, 0, 0, gate);
    reduce(s, r, top, SINEW_MG_S_RZ, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_DOT, s->filtered ? SINEW_MG_R : SINEW_MG_F, 0, gate);
    reduce(s, r, top, SINEW_MG_S_BB, gate);
    if (fallback)
        sinew_record_end_if(r);
    control(r, SINEW_MG_CONTROL_START, SINEW_MG_S_PCG, fallback ? SINEW_MG_CONTROL_FALLBACK : 0u, 0, 0, 0.0);
}

/* PCG's iterations [from, to) of at most `limit`, the device deciding after
 * every `batch` (counted from 0) whether to go on. */
static void record_pcg_iterations(sinew_imc *s, sinew_recorder *r, double tolerance, uint32_t limit, uint32_t batch,
                                  uint32_t from, uint32_t to)
{
    const uint32_t top = s->levels - 1;
    for (uint32_t k = from; k < to; k++) {
        if (k == from || k % batch == 0)
            begin_gated(s, r, SINEW_MG_S_PCG);
        record_pcg_iteration(s, r, top, k, SINEW_MG_S_PCG);
        if ((k + 1) % batch == 0 || k + 1 == limit) {
            record_residual_norm(s, r, SINEW_MG_S_PCG);
            control(r, SINEW_MG_CONTROL_CHECK, SINEW_MG_S_PCG, 0, limit, k % batch + 1, tolerance);
        }
        if ((k + 1) % batch == 0 || k + 1 == to)
            sinew_record_end_if(r);
    }
}

static void record_pcg_end(sinew_recorder *r, double tolerance, int fallback)
{
    control(r, SINEW_MG_CONTROL_END, SINEW_MG_S_PCG, fallback ? SINEW_MG_CONTROL_FALLBACK : 0u, 0, 0, tolerance);
}

/* The control records and totals as the host reads them: MG_REAL from
 * scalar S_MG to the end of the history. */
typedef struct control_record {
    float mg[2][4], pcg[2][4], fallback[4], blend[4], total[4], unused[4][4], history[64];
} control_record;

static sinew_result read_control(sinew_imc *s, control_record *c)
{
    _Static_assert(sizeof(control_record) == 16 * (SINEW_MG_SCALARS - SINEW_MG_S_MG), "scalars' layout");
    return sinew_buffer_download(s->ctx, &s->mg[SINEW_MG_BIND_REAL], 16ull * (s->scalars + SINEW_MG_S_MG), c,
                                 sizeof *c);
}

/* The constraints (a body's, made on the device), restricted to every
 * level, and every level's assembly; the globals are in place. */
static void record_assembly(sinew_imc *s, sinew_recorder *r)
{
    if (s->device_constraints)
        dispatch(r, SINEW_KERNEL_MG_CONSTRAIN, s->n, s->levels - 1, 0, 0, 0, 0);
    for (uint32_t l = s->levels - 1; l-- > 0;)
        dispatch(r, SINEW_KERNEL_MG_RESTRICT, s->L[l].n, l, 1, 0, 0, 0);
    if (s->L[0].tets) /* a solid's elements, once each */
        dispatch(r, SINEW_KERNEL_MG_TET, s->L[0].tets, 0, 0, 0, 0, 0);
    for (uint32_t l = 0; l < s->levels; l++)
        dispatch(r, SINEW_KERNEL_MG_ASSEMBLE, s->L[l].n, l, l + 1 < s->levels ? 0u : s->L[0].tets ? 2u : 1u, 0, 0,
                 0);
}

/* The globals (shared/layout.h), h and gravity as given. */
static void globals_of(const sinew_imc *s, float h, const float gravity[3], float out[4 * SINEW_MG_GLOBALS])
{
    const float g[4 * SINEW_MG_GLOBALS] = {h, (float)s->mat.damping, (float)s->mat.stretch, (float)s->mat.shear,
                                           (float)s->mat.bend, gravity[0], gravity[1], gravity[2],
                                           s->contact, s->friction, s->pin, s->filtered ? 1.0f : 0.0f};
    memcpy(out, g, sizeof g);
}

sinew_result sinew_imc_assemble(sinew_imc *s, float h, const float gravity[3], sinew_buffer *saved,
                                sinew_imc_history history)
{
    SINEW_ASSERT(history == SINEW_IMC_NO_HISTORY || s->borrowed);
    const level_host *F = &s->L[s->levels - 1];
    float globals[4 * SINEW_MG_GLOBALS];
    globals_of(s, h, gravity, globals);
    sinew_buffer *real = &s->mg[SINEW_MG_BIND_REAL];
    sinew_result r = SINEW_RESULT_OK;
    if (!s->device_constraints) {
        r = sinew_buffer_upload(s->ctx, real, 16ull * F->field[SINEW_MG_D], s->D, 48ull * s->n);
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_upload(s->ctx, real, 16ull * (F->field[SINEW_MG_VEC] + SINEW_MG_TARGET * s->n),
                                    s->target, 16ull * s->n);
    }
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    if (saved) { /* the body's rollback copy of the step's start */
        sinew_record_copy(&rec, &s->body[SINEW_BIND_POS], 0, saved, 0, 16ull * s->n);
        sinew_record_copy(&rec, &s->body[SINEW_BIND_VEL], 0, saved, 16ull * s->n, 16ull * s->n);
    }
    if (history != SINEW_IMC_NO_HISTORY) {
        GpuRange g = {0, s->n, 0, history == SINEW_IMC_BLEND};
        sinew_record_dispatch(&rec, SINEW_KERNEL_MG_HISTORY, s->n, &g, sizeof g);
        sinew_record_barrier(&rec);
    }
    sinew_record_update(&rec, real, 16ull * s->globals, globals, sizeof globals);
    record_assembly(s, &rec);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_residual(sinew_imc *s, uint32_t level, uint32_t x, uint32_t y, int subtract)
{
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    dispatch(&rec, SINEW_KERNEL_MG_RESIDUAL, s->L[level].n, level, subtract ? 0 : 1, x, y, 0);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_restrict(sinew_imc *s, uint32_t level)
{
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    dispatch(&rec, SINEW_KERNEL_MG_RESTRICT, s->L[level].n, level, 0, 0, 0, 0);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_prolong(sinew_imc *s, uint32_t level)
{
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    dispatch(&rec, SINEW_KERNEL_MG_PROLONG, s->L[level].n, level, 0, 0, 0, 0);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_read_blocks(sinew_imc *s, uint32_t level, float *out)
{
    const level_host *L = &s->L[level];
    float *buf = malloc(sizeof *buf * 12 * ((size_t)L->nnz + 1));
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    sinew_result r = sinew_buffer_download(s->ctx, &s->mg[SINEW_MG_BIND_REAL], 16ull * L->field[SINEW_MG_BLOCKS],
                                           buf, 48ull * L->nnz);
    for (uint32_t b = 0; b < L->nnz && r == SINEW_RESULT_OK; b++)
        for (int row = 0; row < 3; row++)
            memcpy(&out[9 * b + 3 * row], &buf[12 * b + 4 * row], 3 * sizeof *out);
    free(buf);
    return r;
}

sinew_result sinew_imc_read_vector(sinew_imc *s, uint32_t level, uint32_t vector, float *out)
{
    const level_host *L = &s->L[level];
    float *buf = malloc(sizeof *buf * 4 * ((size_t)L->n + 1));
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    sinew_result r = sinew_buffer_download(s->ctx, &s->mg[SINEW_MG_BIND_REAL],
                                           16ull * (L->field[SINEW_MG_VEC] + vector * L->n), buf, 16ull * L->n);
    for (uint32_t i = 0; i < L->n && r == SINEW_RESULT_OK; i++)
        memcpy(&out[3 * i], &buf[4 * i], 3 * sizeof *out);
    free(buf);
    return r;
}

sinew_result sinew_imc_write_vector(sinew_imc *s, uint32_t level, uint32_t vector, const float *in)
{
    const level_host *L = &s->L[level];
    float *buf = calloc(4 * ((size_t)L->n + 1), sizeof *buf);
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    for (uint32_t i = 0; i < L->n; i++)
        memcpy(&buf[4 * i], &in[3 * i], 3 * sizeof *buf);
    sinew_result r = sinew_buffer_upload(s->ctx, &s->mg[SINEW_MG_BIND_REAL],
                                         16ull * (L->field[SINEW_MG_VEC] + vector * L->n), buf, 16ull * L->n);
    free(buf);
    return r;
}

sinew_result sinew_imc_write_blocks(sinew_imc *s, uint32_t level, const float *in)
{
    const level_host *L = &s->L[level];
    float *buf = calloc(12 * ((size_t)L->nnz + 1), sizeof *buf);
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    for (uint32_t b = 0; b < L->nnz; b++)
        for (int row = 0; row < 3; row++)
            memcpy(&buf[12 * b + 4 * row], &in[9 * b + 3 * row], 3 * sizeof *in);
    sinew_result r = sinew_buffer_upload(s->ctx, &s->mg[SINEW_MG_BIND_REAL], 16ull * L->field[SINEW_MG_BLOCKS],
                                         buf, 48ull * L->nnz);
    free(buf);
    return r;
}

/* ---------------------------------------------------------------- solves */

/* The standalone solves submit their budget in pieces, reading the control
 * record after each: the device decides when a solve stops (as in a body's
 * step, one submit), the host only whether to submit more. */
#define CHUNK_CYCLES 8u
#define CHUNK_PCG 200u

static sinew_result submit_and_read(sinew_imc *s, sinew_recorder *rec, control_record *cr)
{
    sinew_result r = sinew_workspace_submit(rec, &s->ws);
    return r == SINEW_RESULT_OK ? read_control(s, cr) : r;
}

/* PCG from its start until the device stops it or `limit` iterations;
 * as the V-cycles' fallback, only if they called for it. */
static sinew_result run_pcg(sinew_imc *s, double tolerance, uint32_t limit, uint32_t batch, int fallback,
                            control_record *cr)
{
    const uint32_t chunk = batch * ((CHUNK_PCG + batch - 1) / batch);
    sinew_recorder rec;
    sinew_result r;
    uint32_t done = 0;
    do {
        const uint32_t to = limit - done < chunk ? limit : done + chunk;
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
        if (done == 0)
            record_pcg_start(s, &rec, fallback);
        record_pcg_iterations(s, &rec, tolerance, limit, batch, done, to);
        done = to;
        r = submit_and_read(s, &rec, cr);
    } while (r == SINEW_RESULT_OK && cr->pcg[0][0] > 0.0f && done < limit);
    if (r == SINEW_RESULT_OK) {
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
        record_pcg_end(&rec, tolerance, fallback);
        r = submit_and_read(s, &rec, cr);
    }
    return r;
}

sinew_result sinew_imc_solve(sinew_imc *s, const sinew_imc_cycle *c, sinew_imc_solve_stats *st)
{
    memset(st, 0, sizeof *st);
    control_record cr;
    sinew_recorder rec;
    sinew_result r;
    uint32_t done = 0;
    do {
        const uint32_t count = c->max_cycles - done < CHUNK_CYCLES ? c->max_cycles - done : CHUNK_CYCLES;
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
        if (done == 0)
            record_mg_start(s, &rec);
        record_mg_cycles(s, &rec, c, count);
        done += count;
        r = submit_and_read(s, &rec, &cr);
    } while (r == SINEW_RESULT_OK && cr.mg[0][0] > 0.0f && done < c->max_cycles);
    if (r == SINEW_RESULT_OK) {
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
        record_mg_end(&rec, c);
        r = submit_and_read(s, &rec, &cr);
    }
    if (r != SINEW_RESULT_OK)
        return r;
    st->cycles = (uint32_t)cr.mg[0][1];
    st->residual0 = cr.mg[1][0];
    double rel = cr.mg[0][2];
    st->residual = rel * st->residual0;
    for (uint32_t k = 0; k < st->cycles && k < 64; k++)
        st->history[k] = cr.history[k];
    st->stalled = cr.mg[1][1] >= 3.0f;
    st->diverged = cr.mg[1][2] > 0.0f;
    if (st->diverged && c->fallback_iterations > 0) {
        r = run_pcg(s, c->tolerance, c->fallback_iterations, 10, 1, &cr);
        st->fallback = (uint32_t)cr.pcg[0][1];
        st->residual = (double)cr.pcg[0][2] * cr.pcg[1][0];
        rel = cr.pcg[0][2];
    }
    if (r == SINEW_RESULT_OK && !(rel == rel))
        r = sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "imc", "the multigrid solve produced NaN");
    return r;
}

sinew_result sinew_imc_solve_pcg(sinew_imc *s, double tolerance, uint32_t max_iterations, uint32_t batch,
                                 sinew_imc_solve_stats *st)
{
    memset(st, 0, sizeof *st);
    control_record cr;
    sinew_result r = run_pcg(s, tolerance, max_iterations, batch, 0, &cr);
    if (r != SINEW_RESULT_OK)
        return r;
    st->cycles = (uint32_t)cr.pcg[0][1];
    st->residual0 = cr.pcg[1][0];
    st->residual = (double)cr.pcg[0][2] * st->residual0;
    return r;
}

void sinew_imc_record_substep(sinew_imc *s, sinew_recorder *r, const sinew_imc_solve_plan *p, uint32_t substep)
{
    SINEW_ASSERT(s->borrowed && s->device_constraints);
    if (substep == 0) { /* the globals but h and gravity, which mg_control takes from PARAMS */
        float globals[4 * SINEW_MG_GLOBALS];
        const float none[3] = {0.0f, 0.0f, 0.0f};
        globals_of(s, 0.0f, none, globals);
        sinew_record_update(r, &s->mg[SINEW_MG_BIND_REAL], 16ull * s->globals, globals, sizeof globals);
    }
    GpuRange g = {0};
    g.first = substep;
    g.count = p->bdf2 ? 1u : 0u;
    g.count2 = SINEW_MG_CONTROL_SUBSTEP;
    sinew_record_dispatch(r, SINEW_KERNEL_MG_CONTROL, 1, &g, sizeof g);
    sinew_record_barrier(r);
    if (p->bdf2) {
        GpuRange hg = {0, s->n, 0, 2}; /* blend or record, as mg_control decided */
        sinew_record_dispatch(r, SINEW_KERNEL_MG_HISTORY, s->n, &hg, sizeof hg);
        sinew_record_barrier(r);
    }
    record_assembly(s, r);
    sinew_record_timestamp(r, SINEW_PHASE_PREDICT);
    if (p->vcycles) {
        record_mg_start(s, r);
        record_mg_cycles(s, r, &p->cycle, p->cycle.max_cycles);
        record_mg_end(r, &p->cycle);
    }
    if (!p->vcycles || p->cycle.fallback_iterations) {
        const int fallback = p->vcycles;
        const uint32_t limit = fallback ? p->cycle.fallback_iterations : p->pcg_iterations;
        record_pcg_start(s, r, fallback);
        record_pcg_iterations(s, r, p->cycle.tolerance, limit, p->pcg_batch, 0, limit);
        record_pcg_end(r, p->cycle.tolerance, fallback);
    }
    sinew_record_timestamp(r, SINEW_PHASE_SOLVE);
    dispatch(r, SINEW_KERNEL_MG_ADVANCE, s->n, s->levels - 1, 0, 0, 0, 0);
    if (substep + 1 == p->substeps)
        control(r, SINEW_MG_CONTROL_STATS, 0, 0, 0, 0, 0.0);
}

sinew_result sinew_imc_advance(sinew_imc *s)
{
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    dispatch(&rec, SINEW_KERNEL_MG_ADVANCE, s->n, s->levels - 1, 0, 0, 0, 0);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_read_state(sinew_imc *s, float *x, float *v)
{
    float *buf = malloc(sizeof *buf * 4 * ((size_t)s->n + 1));
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    sinew_result r = SINEW_RESULT_OK;
    for (int pass = 0; pass < 2 && r == SINEW_RESULT_OK; pass++) {
        float *dst = pass ? v : x;
        if (!dst)
            continue;
        r = sinew_buffer_download(s->ctx, &s->body[pass ? SINEW_BIND_VEL : SINEW_BIND_POS], 0, buf, 16ull * s->n);
        for (uint32_t i = 0; i < s->n && r == SINEW_RESULT_OK; i++)
            memcpy(&dst[3 * i], &buf[4 * i], 3 * sizeof *dst);
    }
    free(buf);
    return r;
}
