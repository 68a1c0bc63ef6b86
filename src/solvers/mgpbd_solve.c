/* MGPBD on the GPU (Li et al. 2025; docs/math.md 6; docs/mgpbd.md): the
 * recording of the outer loop, constraints and gradients, the dual system's
 * assembly, CG preconditioned by a V-cycle, the positions' update; the
 * hierarchy's setup (the host's operations on the linear solve alone are
 * mgpbd_host.c's). One outer iteration is one
 * command buffer, submitted once, and SINEW_AMG_S_REPORT scalars read back:
 *
 *   amg_constraint: C, grad C, b = -C - alpha~ lambda; |b|^2
 *   amg_assemble:   A = G M^-1 G^T + alpha~ in its fixed pattern
 *   setup due?      (submit) A downloaded, sinew_amg_setup on the host, P, R,
 *                   the coarse operators and each level's rho uploaded
 *   else            PRODUCT (default): amg_product A_l P_l, then R_l (A_l P_l);
 *                   GRAM: amg_product X_{l+1} = R_l X_l, amg_gram
 *                   A_{l+1} = X_{l+1} W X_{l+1}^T, level by level;
 *                   each level's rho by the power iteration (record_rho)
 *   amg_coarse:     the coarsest operator's Cholesky factor
 *   CG:             amg_spmv, amg_vector, amg_reduce; the V-cycle's smoothers,
 *                   restriction, prolongation and coarse solve; every
 *                   pcg_batch iterations |r|^2 and a decision on the device
 *                   (CG_CHECK) that closes CG's gate
 *   line search:    amg_apply x = base + t omega M^-1 G^T dlambda, lambda =
 *                   base + t dlambda, b and |b|^2, LS_CHECK, for t = 1, 1/2, ...
 *                   behind the gate the first accepted trial closes
 *   (submit; the host reads |b|, CG's count and residual, the flags, t and
 *   |b| after the step)
 *
 * Dispatches behind a closed gate find it closed and return: the command
 * buffer holds every iteration the limits allow, and the work stops where
 * the device decides. */
#include "mgpbd_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- recording */

GpuAmgPush sinew_mgpbd_push(const sinew_mgpbd *s, uint32_t count, uint32_t mode)
{
    GpuAmgPush p;
    memset(&p, 0, sizeof p);
    p.count = count;
    p.mode = mode;
    p.index_shift = p.real_shift = s->chunk_shift;
    p.gate = s->gate;
    return p;
}

/* One dispatch and the barrier after it: every step depends on the one before. */
void sinew_mgpbd_run(sinew_recorder *r, sinew_kernel k, uint32_t threads, const GpuAmgPush *p)
{
    sinew_record_dispatch(r, k, threads, p, sizeof *p);
    sinew_record_barrier(r);
}

void sinew_mgpbd_record_spmv(const sinew_mgpbd *s, sinew_recorder *r, uint32_t mode, uint32_t matrix, uint32_t rows,
                             uint32_t x, uint32_t y, uint32_t z)
{
    GpuAmgPush p = push(rows, mode);
    p.matrix = matrix;
    p.x = x;
    p.y = y;
    p.z = z;
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_SPMV, rows, &p);
}

static void vec(const sinew_mgpbd *s, sinew_recorder *r, uint32_t mode, uint32_t count, uint32_t x, uint32_t y, float a)
{
    GpuAmgPush p = push(count, mode);
    p.x = x;
    p.y = y;
    p.a = a;
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, count, &p);
}

/* x . y over count entries into scalar slot. */
static void dot(sinew_mgpbd *s, sinew_recorder *r, uint32_t count, uint32_t x, uint32_t y, uint32_t slot)
{
    vec(s, r, SINEW_AMG_VEC_DOT, count, x, y, 0.0f);
    GpuAmgPush p = push(SINEW_WORKGROUP_SIZE, 0);
    p.groups = (count + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    p.slot = slot;
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_REDUCE, SINEW_WORKGROUP_SIZE, &p);
}

/* One smoother application on level l to A x = f: from x = 0 (zero) or from x. */
static void smooth(sinew_mgpbd *s, sinew_recorder *r, uint32_t l, uint32_t x, uint32_t f, int zero)
{
    const level_gpu *L = &s->L[l];
    const sinew_amg_cycle *c = &s->desc.cycle;
    const uint32_t rho = SINEW_AMG_S_RHO + l; /* the coefficients are for rho = 1; the kernel divides by it */
    if (c->smoother == SINEW_AMG_JACOBI) {
        for (uint32_t k = 0; k < c->sweeps; k++) {
            GpuAmgPush p = push(L->rows, SINEW_AMG_VEC_JACOBI);
            p.matrix = L->A;
            p.x = x;
            p.a = (float)c->jacobi_weight;
            p.slot = rho;
            if (zero && k == 0) {
                p.y = f;
            } else {
                sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_RESIDUAL, L->A, L->rows, x, L->r, f);
                p.y = L->r;
                p.b = 1.0f;
            }
            sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, L->rows, &p);
        }
        return;
    }
    /* Chebyshev (amg.h) on [lower, upper] rho: sigma does not depend on rho,
     * 1 / theta and 2 / delta scale as 1 / rho. */
    const double lo = c->cheby_lower, hi = c->cheby_upper;
    const double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta;
    double rho_old = 1.0 / sigma;
    GpuAmgPush p = push(L->rows, SINEW_AMG_VEC_CHEB_FIRST);
    p.matrix = L->A;
    p.x = x;
    p.w = L->d;
    p.a = (float)(1.0 / theta);
    p.slot = rho;
    if (zero) {
        p.y = f;
    } else {
        sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_RESIDUAL, L->A, L->rows, x, L->r, f);
        p.y = L->r;
        p.b = 1.0f;
    }
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, L->rows, &p);
    for (uint32_t i = 1; i < c->sweeps; i++) {
        if (zero && i == 1) /* r = f - A x with x = d */
            sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_RESIDUAL, L->A, L->rows, L->d, L->r, f);
        else
            sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_SUB, L->A, L->rows, L->d, L->r, 0);
        double rho_new = 1.0 / (2.0 * sigma - rho_old);
        GpuAmgPush q = push(L->rows, SINEW_AMG_VEC_CHEB_NEXT);
        q.matrix = L->A;
        q.x = x;
        q.y = L->r;
        q.w = L->d;
        q.a = (float)(rho_new * rho_old);
        q.c = (float)(2.0 * rho_new / delta);
        q.slot = rho;
        sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, L->rows, &q);
        rho_old = rho_new;
    }
}

/* x = V-cycle of level l applied to f, from x = 0 (amg.h). */
void sinew_mgpbd_record_vcycle(sinew_mgpbd *s, sinew_recorder *r, uint32_t l, uint32_t x, uint32_t f)
{
    const level_gpu *L = &s->L[l];
    if (l + 1 == s->levels) {
        if (s->dense_rows) {
            GpuAmgPush p = push(L->rows, SINEW_AMG_COARSE_SOLVE);
            p.x = x;
            p.y = f;
            sinew_mgpbd_run(r, SINEW_KERNEL_AMG_COARSE, SINEW_WORKGROUP_SIZE, &p);
        } else {
            for (uint32_t k = 0; k < s->desc.cycle.coarse_sweeps; k++)
                smooth(s, r, l, x, f, k == 0);
        }
        return;
    }
    const level_gpu *C = &s->L[l + 1];
    smooth(s, r, l, x, f, 1);
    sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_RESIDUAL, L->A, L->rows, x, L->r, f);
    sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_SET, L->R, C->rows, L->r, C->f, 0);
    sinew_mgpbd_record_vcycle(s, r, l + 1, C->x, C->f);
    sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_ADD, L->P, L->rows, C->x, x, 0);
    smooth(s, r, l, x, f, 0);
}

/* z = M^-1 r on the finest level. */
static void precondition(sinew_mgpbd *s, sinew_recorder *r, uint32_t rv, uint32_t z)
{
    if (s->desc.precond == SINEW_MGPBD_PRECOND_AMG && s->levels > 0) {
        sinew_mgpbd_record_vcycle(s, r, 0, z, rv);
    } else if (s->desc.precond == SINEW_MGPBD_PRECOND_JACOBI) {
        GpuAmgPush p = push(s->m, SINEW_AMG_VEC_JACOBI);
        p.matrix = s->a0;
        p.x = z;
        p.y = rv;
        p.a = 1.0f;
        sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, s->m, &p);
    } else {
        vec(s, r, SINEW_AMG_VEC_COPY, s->m, rv, z, 0.0f);
    }
}

/* Work behind scalar `gate`: skipped by the device where it can
 * (conditional rendering on the gate, 0.0 or 1.0: a float 0 is the zero
 * word), else by the kernels, which check it too. A section holds no
 * decision that opens its own gate (the predicate may be read once, at its
 * start) and sections do not nest. */
static void begin_gated(sinew_mgpbd *s, sinew_recorder *r, uint32_t gate)
{
    const uint64_t word = (uint64_t)s->scalars + gate, per = 1ull << s->chunk_shift;
    s->gate = gate;
    sinew_record_if(r, &s->own[SINEW_AMG_BIND_REAL + (uint32_t)(word / per)], 4 * (word % per));
}

static void end_gated(sinew_mgpbd *s, sinew_recorder *r)
{
    sinew_record_end_if(r);
    s->gate = 0;
}

/* A single-invocation decision (amg_vector's one-invocation modes). */
static void decide(sinew_mgpbd *s, sinew_recorder *r, uint32_t mode, uint32_t slot, float a, float b)
{
    GpuAmgPush p = push(1, mode);
    p.slot = slot;
    p.a = a;
    p.b = b;
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, 1, &p);
}

/* CG's start from x = 0 for A x = vb: r = b, z = M^-1 r, p = z, rz, |b|^2;
 * the gate opened, the counts zeroed. */
void sinew_mgpbd_record_pcg_start(sinew_mgpbd *s, sinew_recorder *r, int lazy)
{
    s->gate = 0;
    if (!lazy) /* a lazy solve keeps record_galerkin's flag */
        vec(s, r, SINEW_AMG_VEC_ZERO, 2, 0, s->scalars + SINEW_AMG_S_INDEFINITE, 0.0f); /* and COARSE_DIAGONAL */
    vec(s, r, SINEW_AMG_VEC_ZERO, 1, 0, s->scalars + SINEW_AMG_S_CG_ITERATIONS, 0.0f);
    vec(s, r, SINEW_AMG_VEC_ZERO, 1, 0, s->scalars + SINEW_AMG_S_HISTORY_COUNT, 0.0f);
    decide(s, r, SINEW_AMG_VEC_SET, SINEW_AMG_S_CG_OPEN, 1.0f, 0.0f);
    begin_gated(s, r, SINEW_AMG_S_CG_OPEN);
    if (s->dense_rows && s->desc.precond == SINEW_MGPBD_PRECOND_AMG) {
        GpuAmgPush p = push(s->dense_rows, SINEW_AMG_COARSE_FACTOR);
        p.matrix = s->L[s->levels - 1].A;
        sinew_mgpbd_run(r, SINEW_KERNEL_AMG_COARSE, SINEW_WORKGROUP_SIZE, &p);
    }
    vec(s, r, SINEW_AMG_VEC_ZERO, s->m, 0, s->vx, 0.0f);
    vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->vb, s->vr, 0.0f);
    dot(s, r, s->m, s->vb, s->vb, SINEW_AMG_S_BB);
    precondition(s, r, s->vr, s->vz);
    vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->vz, s->vp, 0.0f);
    dot(s, r, s->m, s->vr, s->vz, SINEW_AMG_S_RZ);
    end_gated(s, r);
}

static void record_pcg_iteration(sinew_mgpbd *s, sinew_recorder *r, uint32_t k)
{
    const uint32_t m = s->m, parity = k & 1u;
    sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_SET, s->a0, m, s->vp, s->vq, 0);
    dot(s, r, m, s->vp, s->vq, SINEW_AMG_S_PQ);
    GpuAmgPush p = push(m, SINEW_AMG_VEC_PCG_UPDATE);
    p.x = s->vx;
    p.y = s->vr;
    p.z = s->vp;
    p.w = s->vq;
    p.slot = parity;
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, m, &p);
    precondition(s, r, s->vr, s->vz);
    dot(s, r, m, s->vr, s->vz, SINEW_AMG_S_RZ + 1 - parity);
    p = push(m, SINEW_AMG_VEC_PCG_DIRECTION);
    p.y = s->vz;
    p.z = s->vp;
    p.slot = parity;
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, m, &p);
}

/* Records CG on A0 x = vb, every iteration behind the gate S_CG_OPEN:
 * batches of `batch` iterations (all of them at once with tol 0), each
 * followed by |r|^2 and amg_vector's CG_CHECK, which counts the batch,
 * writes the history and closes the gate at |r| <= tol |b|, at NaN or when
 * SINEW_AMG_S_INDEFINITE is raised (a coarse operator with a diagonal <= 0,
 * or a broken-down iteration, after which CG makes no progress). lazy: the
 * coarse operators were just recomputed by record_galerkin, whose flag CG
 * keeps. Nothing is submitted: the host learns the outcome from the
 * scalars when the command buffer is done. */
/* Iterations [k0, k1) of record_pcg's (batches counted from 0). */
void sinew_mgpbd_record_pcg_iterations(sinew_mgpbd *s, sinew_recorder *r, double tol, uint32_t k0, uint32_t k1,
                                       uint32_t max_iterations, uint32_t batch)
{
    if (!(tol > 0.0))
        batch = max_iterations;
    for (uint32_t k = k0; k < k1;) {
        uint32_t until = k + batch < max_iterations ? k + batch : max_iterations, done = until - k;
        begin_gated(s, r, SINEW_AMG_S_CG_OPEN); /* a batch and its check */
        for (; k < until; k++)
            record_pcg_iteration(s, r, k);
        dot(s, r, s->m, s->vr, s->vr, SINEW_AMG_S_RR);
        decide(s, r, SINEW_AMG_VEC_CG_CHECK, 0, (float)(tol * tol), (float)done);
        end_gated(s, r);
    }
}

static void record_pcg(sinew_mgpbd *s, sinew_recorder *r, double tol, uint32_t max_iterations, uint32_t batch,
                       int lazy)
{
    sinew_mgpbd_record_pcg_start(s, r, lazy);
    sinew_mgpbd_record_pcg_iterations(s, r, tol, 0, max_iterations, max_iterations, batch);
}

sinew_result sinew_mgpbd_read_scalars(sinew_mgpbd *s, float *out, uint32_t count)
{
    return sinew_mgpbd_download(s, 1, s->scalars, out, count);
}

sinew_result sinew_mgpbd_read_scalars_at(sinew_mgpbd *s, uint32_t first, float *out, uint32_t count)
{
    return sinew_mgpbd_download(s, 1, s->scalars + first, out, count);
}

/* CG's outcome from the scalars read back. */
sinew_result sinew_mgpbd_pcg_outcome(sinew_mgpbd *s, const float *sc, sinew_mgpbd_solve_stats *st)
{
    st->iterations = (uint32_t)sc[SINEW_AMG_S_CG_ITERATIONS];
    st->residual0 = sqrt((double)sc[SINEW_AMG_S_BB]);
    st->residual = sqrt((double)sc[SINEW_AMG_S_RR_END]);
    st->indefinite = sc[SINEW_AMG_S_INDEFINITE] != 0.0f;
    st->coarse_diagonal = sc[SINEW_AMG_S_COARSE_DIAGONAL] != 0.0f;
    uint32_t h = (uint32_t)sc[SINEW_AMG_S_HISTORY_COUNT];
    st->history_count = h < SINEW_AMG_HISTORY ? h : SINEW_AMG_HISTORY;
    const double rel = st->residual0 > 0.0 ? st->residual / st->residual0 : 0.0;
    if (!(rel == rel))
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "mgpbd", "CG produced NaN");
    return SINEW_RESULT_OK;
}

/* The coarse operators from the finest by the fixed P. GRAM: X_{l+1} =
 * R_l X_l, A_{l+1} = X_{l+1} W X_{l+1}^T (X_0 as amg_assemble left it);
 * PRODUCT: A_l P_l, R_l (A_l P_l). */
/* C = X Y by amg_product (matrix records), a row or an entry per invocation
 * as product_mode chose; flag: a coarse diagonal <= 0 raises the flag. */
static void product(const sinew_mgpbd *s, sinew_recorder *r, uint32_t C, uint32_t X, uint32_t Y, uint32_t rows,
                    uint32_t nnz, uint32_t mode, uint32_t flag)
{
    uint32_t n = mode ? rows : nnz;
    GpuAmgPush p = push(n, mode | flag);
    p.matrix = C;
    p.x = X;
    p.y = Y;
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_PRODUCT, n, &p);
}

void sinew_mgpbd_record_galerkin(sinew_mgpbd *s, sinew_recorder *r)
{
    vec(s, r, SINEW_AMG_VEC_ZERO, 2, 0, s->scalars + SINEW_AMG_S_INDEFINITE, 0.0f); /* and COARSE_DIAGONAL */
    for (uint32_t l = 0; l + 1 < s->levels; l++) {
        const level_gpu *L = &s->L[l], *C = &s->L[l + 1];
        if (l + 1 <= s->gram_levels) {
            product(s, r, C->X, L->R, L->X, C->rows, C->x_nnz, C->x_mode, 0);
            GpuAmgPush p = push(C->nnz, 0);
            p.matrix = C->A;
            p.x = C->X;
            sinew_mgpbd_run(r, SINEW_KERNEL_AMG_GRAM, C->nnz, &p);
        } else {
            product(s, r, L->AP, L->A, L->P, L->rows, L->ap_nnz, L->ap_mode, 0);
            product(s, r, C->A, L->R, L->AP, C->rows, C->nnz, C->a_mode, 1);
        }
    }
}

/* SINEW_MGPBD_RHO_DEVICE: each level's rho(D^-1 A) by the power iteration
 * on the device, from the vector the last lazy iteration left (a level's
 * top eigenvector moves little from one outer iteration to the next):
 *     y = A e; e = D^-1 y / |y|_{D^-1}   (SINEW_MGPBD_POWER_STEPS times)
 *     y = A e; rho = max(rho, SINEW_AMG_RHO_SAFETY e^T y)
 * e^T A e with e^T D e = 1 is a Rayleigh quotient of D^-1 A, never above its
 * largest eigenvalue; rho is kept from the setup's Lanczos estimate upward
 * within a setup interval, so an estimate from a poor start vector cannot
 * lower it. A level solved exactly needs none. The first lazy iteration
 * after a setup takes four times the steps (the coarse levels' vectors are
 * new then). */
static void record_rho(sinew_mgpbd *s, sinew_recorder *r)
{
    /* The first lazy iteration after a setup starts the coarse levels from
     * the fixed start vector: four times the steps there. */
    const uint32_t steps = SINEW_MGPBD_POWER_STEPS * (s->power_warm ? 1 : 4);
    s->power_warm = 1;
    for (uint32_t l = 0; l < s->levels; l++) {
        const level_gpu *L = &s->L[l];
        if (l + 1 == s->levels && s->dense_rows)
            break;
        for (uint32_t k = 0; k < steps; k++) {
            sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_SET, L->A, L->rows, L->e, L->r, 0);
            GpuAmgPush p = push(L->rows, SINEW_AMG_VEC_DOT_DINV);
            p.matrix = L->A;
            p.x = p.y = L->r;
            sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, L->rows, &p);
            GpuAmgPush q = push(SINEW_WORKGROUP_SIZE, 0);
            q.groups = (L->rows + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
            q.slot = SINEW_AMG_S_POWER;
            sinew_mgpbd_run(r, SINEW_KERNEL_AMG_REDUCE, SINEW_WORKGROUP_SIZE, &q);
            p = push(L->rows, SINEW_AMG_VEC_POWER);
            p.matrix = L->A;
            p.x = L->e;
            p.y = L->r;
            sinew_mgpbd_run(r, SINEW_KERNEL_AMG_VECTOR, L->rows, &p);
        }
        sinew_mgpbd_record_spmv(s, r, SINEW_AMG_SPMV_SET, L->A, L->rows, L->e, L->r, 0);
        dot(s, r, L->rows, L->e, L->r, SINEW_AMG_S_POWER + 1);
        decide(s, r, SINEW_AMG_VEC_RHO, SINEW_AMG_S_RHO + l, (float)SINEW_AMG_RHO_SAFETY, 0.0f);
    }
}

/* SINEW_MGPBD_RHO_HOST: every level's operator as the device now holds it
 * into the host's hierarchy, rho(D^-1 A) estimated anew from it by Lanczos
 * and written to the device's scalars. Reads every operator back: the way
 * lazy iterations kept rho before the device did (for comparison). With a
 * diagonal <= 0 nothing changes (the device's flag sets up afresh). */
static sinew_result refresh_rho_host(sinew_mgpbd *s)
{
    float *v = s->readback;
    for (uint32_t l = 0; l < s->levels; l++) {
        sinew_csr *A = &s->amg.L[l].A;
        const uint32_t nnz = A->row[A->rows];
        sinew_result r = sinew_mgpbd_download(s, 1, s->L[l].a_val, v, nnz);
        if (r != SINEW_RESULT_OK)
            return r;
        for (uint32_t i = 0; i < A->rows; i++)
            for (uint32_t e = A->row[i]; e < A->row[i + 1]; e++)
                if (A->col[e] == i && !(v[e] > 0.0f))
                    return SINEW_RESULT_OK;
        for (uint32_t e = 0; e < nnz; e++)
            A->val[e] = v[e];
    }
    sinew_amg_refresh(&s->amg);
    float rho[SINEW_AMG_MAX_LEVELS];
    for (uint32_t l = 0; l < s->levels; l++)
        rho[l] = (float)s->amg.L[l].rho;
    return sinew_mgpbd_upload(s, 1, s->scalars + SINEW_AMG_S_RHO, rho, s->levels);
}

/* ---------------------------------------------------------------- host operations */

sinew_result sinew_mgpbd_setup_fresh(sinew_mgpbd *s, sinew_amg *fresh)
{
    sinew_csr A;
    sinew_result r = sinew_mgpbd_read_matrix(s, 0, &A);
    if (r != SINEW_RESULT_OK)
        return r;
    r = sinew_amg_setup(&A, &s->desc.amg, fresh, &s->ctx->logger);
    sinew_csr_free(&A);
    return r;
}

sinew_result sinew_mgpbd_take_hierarchy(sinew_mgpbd *s, sinew_amg *fresh)
{
    /* One level without a factor (nothing to coarsen, too large to factor)
     * is fine too: the V-cycle is then coarse_sweeps smoother applications. */
    sinew_amg_free(&s->amg);
    s->amg = *fresh;
    sinew_result r = sinew_mgpbd_upload_hierarchy(s);
    s->have_setup = r == SINEW_RESULT_OK;
    s->setup_frame = s->frame;
    s->power_warm = 0;
    s->setup_kept = 0;
    if (r != SINEW_RESULT_OK) {
        sinew_amg_free(&s->amg);
        s->levels = 0;
        s->dense_rows = 0;
    }
    return r;
}

sinew_result sinew_mgpbd_setup(sinew_mgpbd *s)
{
    sinew_amg fresh;
    sinew_result r = sinew_mgpbd_setup_fresh(s, &fresh);
    return r == SINEW_RESULT_OK ? sinew_mgpbd_take_hierarchy(s, &fresh) : r;
}

/* ---------------------------------------------------------------- the outer loop */

static sinew_result check_h(sinew_mgpbd *s, float h)
{
    if (!(h > 0.0f && isfinite(h)))
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the step size is %g s; it must be > 0 and finite", (double)h);
    return SINEW_RESULT_OK;
}

sinew_result sinew_mgpbd_begin_step(sinew_mgpbd *s, float h, const float gravity[3])
{
    if (h != 0.0f) { /* 0: no prediction; anything else must be a step size (NaN included) */
        sinew_result r = check_h(s, h);
        if (r != SINEW_RESULT_OK)
            return r;
    }
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    vec(s, &rec, SINEW_AMG_VEC_ZERO, s->m, 0, s->lambda, 0.0f);
    if (h > 0.0f) {
        GpuAmgPush p = push(s->n, 1);
        p.a = h;
        p.b = gravity[0];
        p.c = gravity[1];
        p.d = gravity[2];
        sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_APPLY, s->n, &p);
    }
    s->frame++;
    s->step_iteration = 0;
    return sinew_mgpbd_submit(s, &rec);
}

sinew_result sinew_mgpbd_end_step(sinew_mgpbd *s, float h)
{
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    GpuAmgPush p = push(s->n, 2);
    p.a = h;
    sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_APPLY, s->n, &p);
    return sinew_mgpbd_submit(s, &rec);
}

/* C, gradients and b = -C - alpha~ lambda into vb, and |b|^2 into scalar slot. */
static void record_eval(sinew_mgpbd *s, sinew_recorder *r, float h, uint32_t slot)
{
    GpuAmgPush p = push(s->m, SINEW_AMG_CONS_EVAL);
    p.y = s->vb;
    p.a = 1.0f / (h * h);
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_CONSTRAINT, s->m, &p);
    dot(s, r, s->m, s->vb, s->vb, slot);
}

/* Records b's evaluation into the open recorder, submits it and reads |b|. */
static sinew_result submit_eval(sinew_mgpbd *s, sinew_recorder *r, float h, double *norm)
{
    record_eval(s, r, h, SINEW_AMG_S_BB);
    float bb = NAN;
    sinew_result res = sinew_mgpbd_submit(s, r);
    if (res == SINEW_RESULT_OK)
        res = sinew_mgpbd_read_scalars_at(s, SINEW_AMG_S_BB, &bb, 1);
    if (res == SINEW_RESULT_OK)
        *norm = sqrt((double)bb);
    return res;
}

sinew_result sinew_mgpbd_dual_residual(sinew_mgpbd *s, float h, double *norm)
{
    *norm = NAN;
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    return submit_eval(s, &rec, h, norm);
}

sinew_result sinew_mgpbd_assemble(sinew_mgpbd *s, float h)
{
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    record_eval(s, &rec, h, SINEW_AMG_S_BB);
    GpuAmgPush p = push(s->m, 0);
    p.a = 1.0f / (h * h);
    sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_ASSEMBLE, s->m, &p);
    return sinew_mgpbd_submit(s, &rec);
}


sinew_result sinew_mgpbd_xpbd(sinew_mgpbd *s, float h, uint32_t sweeps)
{
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    for (uint32_t k = 0; k < sweeps; k++)
        for (uint32_t c = 0; c < s->colour_count; c++) {
            GpuAmgPush p = push(s->colours[c].count, SINEW_AMG_CONS_XPBD);
            p.first = s->colours[c].first;
            p.a = 1.0f / (h * h);
            sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_CONSTRAINT, p.count, &p);
        }
    return sinew_mgpbd_submit(s, &rec);
}

sinew_result sinew_mgpbd_xpbd_jacobi(sinew_mgpbd *s, float h, uint32_t sweeps, float omega)
{
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    if (!(omega > 0.0f && omega <= 1.0f))
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the Jacobi weight is %g; it must be in (0, 1]", (double)omega);
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    for (uint32_t k = 0; k < sweeps; k++) {
        GpuAmgPush p = push(s->m, SINEW_AMG_CONS_JACOBI);
        p.y = s->vx;
        p.a = 1.0f / (h * h);
        sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_CONSTRAINT, s->m, &p);
        p = push(s->n, 0);
        p.x = s->vx;
        p.a = omega;
        sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_APPLY, s->n, &p);
    }
    return sinew_mgpbd_submit(s, &rec);
}

/* Records the step from CG's dlambda (vx) with the line search behind the
 * gate S_LS_OPEN, which amg_vector's LS_BEGIN opens unless CG produced NaN
 * or (lazy) found the V-cycle indefinite, when the host sets up afresh and
 * records the solve again. Each trial t = 1, 1/2, ... (line_search + 1 of
 * them) moves x and lambda from the base by t, evaluates b and LS_CHECK
 * accepts it when |b| falls (closing the gate); when none does, LS_FAIL
 * restores the base. Without a line search the whole step is taken and |b|
 * after it evaluated. STEP and AFTER say what happened. */
static void record_line_search(sinew_mgpbd *s, sinew_recorder *r, float h, int lazy)
{
    const sinew_mgpbd_desc *d = &s->desc;
    s->gate = 0;
    decide(s, r, SINEW_AMG_VEC_LS_BEGIN, 0, lazy ? 1.0f : 0.0f, 0.0f);
    begin_gated(s, r, SINEW_AMG_S_LS_OPEN);
    GpuAmgPush p;
    if (d->line_search == 0) {
        p = push(s->n, 0);
        p.x = s->vx;
        p.a = (float)d->omega;
        sinew_mgpbd_run(r, SINEW_KERNEL_AMG_APPLY, s->n, &p);
        vec(s, r, SINEW_AMG_VEC_AXPY, s->m, s->vx, s->lambda, 1.0f);
        record_eval(s, r, h, SINEW_AMG_S_BB);
        decide(s, r, SINEW_AMG_VEC_LS_CHECK, SINEW_AMG_S_BB0, 1.0f, -1.0f);
        end_gated(s, r);
        return;
    }
    /* The base: lambda in vl (lambda_full: lambda + dlambda for good, and the
     * target |b| there at the old positions). */
    const uint32_t target = d->lambda_full ? SINEW_AMG_S_TARGET : SINEW_AMG_S_BB0;
    vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->lambda, s->vl, 0.0f);
    if (d->lambda_full) {
        vec(s, r, SINEW_AMG_VEC_AXPY, s->m, s->vx, s->vl, 1.0f);
        vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->vl, s->lambda, 0.0f);
        record_eval(s, r, h, SINEW_AMG_S_TARGET);
    }
    double t = 1.0;
    for (uint32_t k = 0; k <= d->line_search; k++, t *= 0.5) {
        p = push(s->n, k == 0 ? 3 : 4);
        p.x = s->vx;
        p.a = (float)(t * d->omega);
        sinew_mgpbd_run(r, SINEW_KERNEL_AMG_APPLY, s->n, &p);
        vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->vl, s->lambda, 0.0f);
        if (!d->lambda_full)
            vec(s, r, SINEW_AMG_VEC_AXPY, s->m, s->vx, s->lambda, (float)t);
        record_eval(s, r, h, SINEW_AMG_S_BB);
        decide(s, r, SINEW_AMG_VEC_LS_CHECK, target, (float)t, d->lambda_full ? 1.0f : (float)(1.0 - 1e-4 * t));
        end_gated(s, r); /* a trial's check may close the gate: the next trial's section reads it anew */
        begin_gated(s, r, SINEW_AMG_S_LS_OPEN);
    }
    p = push(s->n, 4); /* no trial accepted: back to the base */
    sinew_mgpbd_run(r, SINEW_KERNEL_AMG_APPLY, s->n, &p);
    vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->vl, s->lambda, 0.0f);
    decide(s, r, SINEW_AMG_VEC_LS_FAIL, target, 0.0f, 0.0f);
    end_gated(s, r);
}

/* Records CG and the line search, submits them and reads what happened. */
static sinew_result solve_and_step(sinew_mgpbd *s, sinew_recorder *rec, float h, int lazy, sinew_mgpbd_solve_stats *st,
                                   float sc[SINEW_AMG_S_REPORT])
{
    const sinew_mgpbd_desc *d = &s->desc;
    record_pcg(s, rec, d->pcg_tolerance, d->pcg_iterations, d->pcg_batch, lazy);
    record_line_search(s, rec, h, lazy);
    sinew_result r = sinew_mgpbd_submit(s, rec);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_read_scalars(s, sc, SINEW_AMG_S_REPORT);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_pcg_outcome(s, sc, st);
    return r;
}

/* One outer iteration: one command buffer, submitted once, and
 * SINEW_AMG_S_REPORT scalars read back (docs/mgpbd.md, "One submit an outer
 * iteration"); a setup adds a submit before the solve (the host needs A),
 * SINEW_MGPBD_RHO_HOST one after the coarse operators, and a lazy solve
 * found indefinite a fresh setup and a second. */
sinew_result sinew_mgpbd_iterate(sinew_mgpbd *s, float h, sinew_mgpbd_iteration *it)
{
    memset(it, 0, sizeof *it);
    it->pcg_relative = NAN;
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    const double t0 = sinew_host_ms();
    const sinew_mgpbd_desc *d = &s->desc;
    const int amg = d->precond == SINEW_MGPBD_PRECOND_AMG;
    int setup = amg && (!s->have_setup || d->setup_interval == 0 ||
                        (s->step_iteration == 0 && s->frame - s->setup_frame >= d->setup_interval));
    sinew_recorder rec;
    s->gate = 0;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    record_eval(s, &rec, h, SINEW_AMG_S_BB0);
    GpuAmgPush p = push(s->m, 0);
    p.a = 1.0f / (h * h);
    sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_ASSEMBLE, s->m, &p);
    if (setup) { /* the host needs A: submit, set up, go on in a new command buffer */
        r = sinew_mgpbd_submit(s, &rec);
        if (r == SINEW_RESULT_OK)
            r = sinew_mgpbd_setup(s);
        if (r != SINEW_RESULT_OK)
            return r;
        it->setup = 1;
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
    } else if (amg) {
        sinew_mgpbd_record_galerkin(s, &rec);
        if (d->rho == SINEW_MGPBD_RHO_DEVICE) {
            record_rho(s, &rec);
        } else if (d->rho == SINEW_MGPBD_RHO_HOST) { /* the smoothers need rho before CG runs */
            r = sinew_mgpbd_submit(s, &rec);
            if (r == SINEW_RESULT_OK)
                r = refresh_rho_host(s);
            if (r != SINEW_RESULT_OK)
                return r;
            sinew_workspace_begin(&rec, s->ctx, &s->ws);
        }
    }
    const int lazy = !setup && amg;
    sinew_mgpbd_solve_stats st;
    memset(&st, 0, sizeof st);
    float sc[SINEW_AMG_S_REPORT];
    r = solve_and_step(s, &rec, h, lazy, &st, sc);
    uint32_t wasted = 0;
    if (r == SINEW_RESULT_OK && st.indefinite)
        it->indefinite = 1;
    it->coarse_diagonal = st.coarse_diagonal;
    if (r == SINEW_RESULT_OK && st.indefinite && lazy) { /* set up afresh from this A and solve again */
        wasted = st.iterations;
        it->setup = 1;
        r = sinew_mgpbd_setup(s);
        if (r == SINEW_RESULT_OK) {
            sinew_workspace_begin(&rec, s->ctx, &s->ws);
            r = solve_and_step(s, &rec, h, 0, &st, sc);
            it->indefinite = st.indefinite ? 2 : 1;
        }
    }
    if (r != SINEW_RESULT_OK)
        return r;
    it->dual_residual = sqrt((double)sc[SINEW_AMG_S_BB0]);
    it->pcg_iterations = wasted + st.iterations;
    it->pcg_relative = st.residual0 > 0.0 ? st.residual / st.residual0 : 0.0;
    it->step = sc[SINEW_AMG_S_STEP];
    it->dual_after = sc[SINEW_AMG_S_AFTER];
    it->line_search_failed = d->line_search > 0 && it->step == 0.0;
    s->step_iteration++;
    it->ms = sinew_host_ms() - t0;
    return r;
}

sinew_result sinew_mgpbd_solve_step(sinew_mgpbd *s, float h, const float gravity[3], sinew_mgpbd_step_stats *st)
{
    memset(st, 0, sizeof *st);
    const double t0 = sinew_host_ms();
    const sinew_mgpbd_desc *d = &s->desc;
    sinew_result r = check_h(s, h);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_begin_step(s, h, gravity);
    st->stopped_by = 2;
    while (r == SINEW_RESULT_OK && st->iterations < d->max_iterations) {
        sinew_mgpbd_iteration it;
        r = sinew_mgpbd_iterate(s, h, &it);
        if (r != SINEW_RESULT_OK)
            break;
        if (st->iterations == 0)
            st->residual0 = it.dual_residual;
        double after = it.dual_after;
        double rel = st->residual0 > 0.0 ? after / st->residual0 : 0.0;
        if (st->iterations < sizeof st->relative / sizeof st->relative[0])
            st->relative[st->iterations] = rel;
        st->iterations++;
        st->pcg_iterations += it.pcg_iterations;
        st->setups += (uint32_t)it.setup;
        if (!(rel == rel)) {
            r = sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "mgpbd", "the dual residual became NaN");
            break;
        }
        if (rel <= d->tolerance) {
            st->stopped_by = 0;
            break;
        }
        if (it.line_search_failed) { /* the same iteration again would do the same */
            st->stopped_by = 3;
            break;
        }
        if (d->time_budget_ms > 0.0 && sinew_host_ms() - t0 >= d->time_budget_ms) {
            st->stopped_by = 1;
            break;
        }
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_end_step(s, h);
    st->ms = sinew_host_ms() - t0;
    return r;
}

/* ---------------------------------------------------------------- inside a body's step */

sinew_buffer *sinew_mgpbd_positions(sinew_mgpbd *s) { return &s->body[SINEW_BIND_POS]; }

sinew_result sinew_mgpbd_assemble_at(sinew_mgpbd *s, const sinew_buffer *pos, float h)
{
    sinew_recorder rec;
    s->gate = 0;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    if (pos != &s->body[SINEW_BIND_POS])
        sinew_record_copy(&rec, pos, 0, &s->body[SINEW_BIND_POS], 0, 16ull * s->n);
    record_eval(s, &rec, h, SINEW_AMG_S_BB);
    GpuAmgPush p = push(s->m, 0);
    p.a = 1.0f / (h * h);
    sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_ASSEMBLE, s->m, &p);
    return sinew_mgpbd_submit(s, &rec);
}

sinew_result sinew_mgpbd_setup_from(sinew_mgpbd *s, const sinew_buffer *pos, float h)
{
    sinew_result r = check_h(s, h);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_assemble_at(s, pos, h);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_setup(s);
    if (r == SINEW_RESULT_OK) /* what the lazy setup's record holds (mgpbd_lazy.c) */
        r = sinew_mgpbd_keep_setup(s, h);
    /* Every outer iteration recorded from now on takes the power iteration's
     * usual steps, the first after the setup too: a body records its step
     * again without a setup (sinew_body_record_unfused), and what it records
     * must not depend on when. */
    s->power_warm = 1;
    return r;
}

/* A body's step cannot set up afresh when CG finds the lazily kept
 * hierarchy indefinite (the host is not there): CG again from x = 0 with the
 * Jacobi preconditioner, behind CG's gate, which amg_vector's FALLBACK opens
 * only then. Never skipped when the device has no conditional rendering
 * (each kernel then checks the gate and returns). */
static void record_fallback(sinew_mgpbd *s, sinew_recorder *r)
{
    const sinew_mgpbd_desc *d = &s->desc;
    const sinew_mgpbd_precond keep = s->desc.precond;
    s->gate = 0;
    decide(s, r, SINEW_AMG_VEC_FALLBACK, 0, 0.0f, 0.0f);
    s->desc.precond = SINEW_MGPBD_PRECOND_JACOBI;
    begin_gated(s, r, SINEW_AMG_S_CG_OPEN);
    vec(s, r, SINEW_AMG_VEC_ZERO, s->m, 0, s->vx, 0.0f);
    vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->vb, s->vr, 0.0f);
    precondition(s, r, s->vr, s->vz);
    vec(s, r, SINEW_AMG_VEC_COPY, s->m, s->vz, s->vp, 0.0f);
    dot(s, r, s->m, s->vr, s->vz, SINEW_AMG_S_RZ);
    end_gated(s, r);
    sinew_mgpbd_record_pcg_iterations(s, r, d->pcg_tolerance, 0, d->pcg_iterations, d->pcg_iterations, d->pcg_batch);
    s->desc.precond = keep;
}

void sinew_mgpbd_record_substep(sinew_mgpbd *s, sinew_recorder *r, float h, uint32_t iterations)
{
    const sinew_mgpbd_desc *d = &s->desc;
    const int amg = d->precond == SINEW_MGPBD_PRECOND_AMG;
    SINEW_ASSERT(h > 0.0f && (s->have_setup || !amg));
    sinew_bindings_bind(s->ctx, r->cmd, &s->ws.own);
    s->gate = 0;
    vec(s, r, SINEW_AMG_VEC_ZERO, s->m, 0, s->lambda, 0.0f);
    for (uint32_t k = 0; k < iterations; k++) {
        s->gate = 0;
        record_eval(s, r, h, SINEW_AMG_S_BB0);
        if (k == 0)
            vec(s, r, SINEW_AMG_VEC_COPY, 1, s->scalars + SINEW_AMG_S_BB0, s->scalars + SINEW_AMG_S_FIRST, 0.0f);
        GpuAmgPush p = push(s->m, 0);
        p.a = 1.0f / (h * h);
        sinew_mgpbd_run(r, SINEW_KERNEL_AMG_ASSEMBLE, s->m, &p);
        if (amg) {
            sinew_mgpbd_record_galerkin(s, r);
            if (d->rho == SINEW_MGPBD_RHO_DEVICE)
                record_rho(s, r);
        }
        record_pcg(s, r, d->pcg_tolerance, d->pcg_iterations, d->pcg_batch, amg);
        if (amg)
            record_fallback(s, r);
        record_line_search(s, r, h, amg);
    }
    s->gate = 0;
}

/* A scalar's word into dst at offset (chunked images: the scalars may
 * straddle two storage buffers). */
static void copy_scalar(sinew_mgpbd *s, sinew_recorder *r, uint32_t slot, sinew_buffer *dst, VkDeviceSize offset)
{
    const uint64_t word = (uint64_t)s->scalars + slot, per = 1ull << s->chunk_shift;
    sinew_record_copy(r, &s->own[SINEW_AMG_BIND_REAL + (uint32_t)(word / per)], 4 * (word % per), dst, offset, 4);
}

void sinew_mgpbd_record_residual(sinew_mgpbd *s, sinew_recorder *r, float h, sinew_buffer *dst, VkDeviceSize offset)
{
    sinew_bindings_bind(s->ctx, r->cmd, &s->ws.own);
    s->gate = 0;
    record_eval(s, r, h, SINEW_AMG_S_BB);
    copy_scalar(s, r, SINEW_AMG_S_BB, dst, offset);
    copy_scalar(s, r, SINEW_AMG_S_FIRST, dst, offset + 4);
}

sinew_result sinew_mgpbd_profile_iteration(sinew_mgpbd *s, float h, sinew_mgpbd_profile *out)
{
    memset(out, 0, sizeof *out);
    sinew_result r = check_h(s, h);
    if (r != SINEW_RESULT_OK)
        return r;
    if (s->desc.precond != SINEW_MGPBD_PRECOND_AMG || !s->have_setup)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "profiling a lazy iteration needs the AMG hierarchy set up");
    double *ms[5] = {&out->assemble_ms, &out->products_ms, &out->rho_ms, &out->cg_ms, &out->line_search_ms};
    s->gate = 0;
    for (int part = 0; part < 5 && r == SINEW_RESULT_OK; part++) {
        sinew_recorder rec;
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
        if (part == 0) {
            record_eval(s, &rec, h, SINEW_AMG_S_BB0);
            GpuAmgPush p = push(s->m, 0);
            p.a = 1.0f / (h * h);
            sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_ASSEMBLE, s->m, &p);
        } else if (part == 1) {
            sinew_mgpbd_record_galerkin(s, &rec);
        } else if (part == 2) {
            record_rho(s, &rec);
        } else if (part == 3) {
            record_pcg(s, &rec, 0.0, s->desc.pcg_iterations, s->desc.pcg_iterations, 1);
        } else {
            record_line_search(s, &rec, h, 1);
        }
        out->dispatches[part] = rec.dispatches;
        const double t0 = sinew_host_ms();
        r = sinew_mgpbd_submit(s, &rec);
        *ms[part] = sinew_host_ms() - t0;
    }
    s->step_iteration++;
    return r;
}
