/* MGPBD's linear solve driven from the host, for the tests and
 * sinew-bench (mgpbd.h): the coarse operators recomputed by the kept
 * prolongators, and a product, a V-cycle or a PCG solve on host vectors
 * uploaded and read back, each one submit; the levels' rho and the
 * right-hand side read back. */
#include "mgpbd_internal.h"

#include <string.h>

/* sinew_mgpbd_solve's iterations a submit. */
#define SOLVE_PIECE 50u

sinew_result sinew_mgpbd_galerkin(sinew_mgpbd *s)
{
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    sinew_mgpbd_record_galerkin(s, &rec);
    sinew_result r = sinew_mgpbd_submit(s, &rec);
    float sc[SINEW_AMG_S_REPORT];
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_read_scalars(s, sc, SINEW_AMG_S_REPORT);
    if (r == SINEW_RESULT_OK && sc[SINEW_AMG_S_INDEFINITE] != 0.0f)
        r = sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "mgpbd",
                       "a coarse operator recomputed by the kept prolongators has a diagonal <= 0: set up afresh");
    return r;
}

static sinew_result upload_vector(sinew_mgpbd *s, uint32_t at, const float *v, uint32_t count)
{
    return sinew_mgpbd_upload(s, 1, at, v, count);
}

static sinew_result download_vector(sinew_mgpbd *s, uint32_t at, float *v, uint32_t count)
{
    return sinew_mgpbd_download(s, 1, at, v, count);
}

sinew_result sinew_mgpbd_spmv(sinew_mgpbd *s, uint32_t level, int which, const float *x, float *y)
{
    SINEW_ASSERT(level < (s->levels ? s->levels : 1) && which >= 0 && which <= 2);
    SINEW_ASSERT(which == 0 || level + 1 < s->levels);
    const level_gpu *L = &s->L[level];
    uint32_t rows = which == 2 ? s->L[level + 1].rows : L->rows, cols = which == 1 ? s->L[level + 1].rows : L->rows;
    uint32_t matrix = which == 0 ? L->A : which == 1 ? L->P : L->R;
    sinew_result r = upload_vector(s, s->vp, x, cols);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    sinew_mgpbd_record_spmv(s, &rec, SINEW_AMG_SPMV_SET, matrix, rows, s->vp, s->vq, 0);
    r = sinew_mgpbd_submit(s, &rec);
    return r == SINEW_RESULT_OK ? download_vector(s, s->vq, y, rows) : r;
}

sinew_result sinew_mgpbd_vcycle(sinew_mgpbd *s, const float *rv, float *z)
{
    SINEW_ASSERT(s->levels > 0);
    sinew_result r = upload_vector(s, s->vr, rv, s->m);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    if (s->dense_rows) {
        GpuAmgPush p = push(s->dense_rows, SINEW_AMG_COARSE_FACTOR);
        p.matrix = s->L[s->levels - 1].A;
        sinew_mgpbd_run(&rec, SINEW_KERNEL_AMG_COARSE, SINEW_WORKGROUP_SIZE, &p);
    }
    sinew_mgpbd_record_vcycle(s, &rec, 0, s->vz, s->vr);
    r = sinew_mgpbd_submit(s, &rec);
    return r == SINEW_RESULT_OK ? download_vector(s, s->vz, z, s->m) : r;
}

sinew_result sinew_mgpbd_solve(sinew_mgpbd *s, const float *b, float *x, double tol, uint32_t max_iterations,
                               sinew_mgpbd_solve_stats *st)
{
    memset(st, 0, sizeof *st);
    if (s->desc.precond == SINEW_MGPBD_PRECOND_AMG && !s->have_setup)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the AMG preconditioner has no hierarchy yet (sinew_mgpbd_setup)");
    double t0 = sinew_host_ms();
    sinew_result r = upload_vector(s, s->vb, b, s->m);
    if (r != SINEW_RESULT_OK)
        return r;
    /* A diagnostic solve may ask thousands of iterations and stop early:
     * submitted in pieces of whole batches, the gate read between them, so
     * that few iterations are recorded past the end. */
    const uint32_t batch = tol > 0.0 ? s->desc.pcg_batch : max_iterations;
    const uint32_t piece = batch * (SOLVE_PIECE / batch > 0 ? SOLVE_PIECE / batch : 1);
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    sinew_mgpbd_record_pcg_start(s, &rec, 0);
    float sc[SINEW_AMG_SCALAR_COUNT];
    for (uint32_t k = 0; r == SINEW_RESULT_OK && k < max_iterations; k += piece) {
        if (k > 0)
            sinew_workspace_begin(&rec, s->ctx, &s->ws);
        sinew_mgpbd_record_pcg_iterations(s, &rec, tol, k, k + piece < max_iterations ? k + piece : max_iterations,
                              max_iterations, batch);
        r = sinew_mgpbd_submit(s, &rec);
        float open = 0.0f;
        if (r == SINEW_RESULT_OK)
            r = sinew_mgpbd_read_scalars_at(s, SINEW_AMG_S_CG_OPEN, &open, 1);
        if (!(open > 0.0f))
            break;
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_read_scalars(s, sc, SINEW_AMG_SCALAR_COUNT);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_pcg_outcome(s, sc, st);
    for (uint32_t k = 0; k < st->history_count; k++)
        st->history[k] = sc[SINEW_AMG_S_HISTORY + k];
    st->ms = sinew_host_ms() - t0;
    return r == SINEW_RESULT_OK && x ? download_vector(s, s->vx, x, s->m) : r;
}

sinew_result sinew_mgpbd_read_rho(sinew_mgpbd *s, double *rho)
{
    float v[SINEW_AMG_MAX_LEVELS];
    sinew_result r = s->levels ? sinew_mgpbd_read_scalars_at(s, SINEW_AMG_S_RHO, v, s->levels) : SINEW_RESULT_OK;
    for (uint32_t l = 0; r == SINEW_RESULT_OK && l < s->levels; l++)
        rho[l] = v[l];
    return r;
}

sinew_result sinew_mgpbd_read_rhs(sinew_mgpbd *s, float *b) { return download_vector(s, s->vb, b, s->m); }
