/* Sparse matrices in compressed rows (csr.h): storage, checks, transpose,
 * products. Moved out of solvers/amg.c so that prep/ (the Matrix Market
 * reader) and solvers/ (AMG) both build on it from below.
 */
#include "csr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"

#define NONE SINEW_CSR_NONE

void sinew_csr_free(sinew_csr *m)
{
    if (!m)
        return;
    free(m->row);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof *m);
}

sinew_result sinew_csr_alloc(uint32_t rows, uint32_t cols, uint32_t nnz, sinew_csr *out, const sinew_logger *lg)
{
    memset(out, 0, sizeof *out);
    if (nnz > SINEW_CSR_MAX_NNZ)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "csr", "a matrix of %u nonzeros exceeds the limit of %u", nnz,
                          SINEW_CSR_MAX_NNZ);
    out->row = calloc((size_t)rows + 1, sizeof *out->row);
    out->col = malloc(sizeof *out->col * ((size_t)nnz + 1));
    out->val = malloc(sizeof *out->val * ((size_t)nnz + 1));
    if (!out->row || !out->col || !out->val) {
        sinew_csr_free(out);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "csr",
                          "no memory for a %u x %u matrix of %u nonzeros", rows, cols, nnz);
    }
    out->rows = rows;
    out->cols = cols;
    return SINEW_RESULT_OK;
}

sinew_result sinew_csr_copy(const sinew_csr *a, sinew_csr *out, const sinew_logger *lg)
{
    uint32_t nnz = sinew_csr_nnz(a);
    sinew_result r = sinew_csr_alloc(a->rows, a->cols, nnz, out, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    memcpy(out->row, a->row, sizeof *a->row * ((size_t)a->rows + 1));
    if (nnz) {
        memcpy(out->col, a->col, sizeof *a->col * nnz);
        memcpy(out->val, a->val, sizeof *a->val * nnz);
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_csr_check(const sinew_csr *a, const char *name, const sinew_logger *lg)
{
    if (!a->row)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "csr", "%s: no row offsets", name);
    if (a->row[0] != 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "csr", "%s: row offsets start at %u, not 0", name,
                          a->row[0]);
    for (uint32_t i = 0; i < a->rows; i++)
        if (a->row[i + 1] < a->row[i])
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "csr",
                              "%s: row %u ends (%u) before it starts (%u)", name, i, a->row[i + 1], a->row[i]);
    if (a->row[a->rows] > SINEW_CSR_MAX_NNZ)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "csr", "%s: %u nonzeros exceed the limit of %u", name,
                          a->row[a->rows], SINEW_CSR_MAX_NNZ);
    if (a->row[a->rows] && (!a->col || !a->val))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "csr", "%s: no column indices or values", name);
    for (uint32_t i = 0; i < a->rows; i++)
        for (uint32_t p = a->row[i]; p < a->row[i + 1]; p++) {
            if (a->col[p] >= a->cols)
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "csr",
                                  "%s: row %u has column %u, beyond its %u columns", name, i, a->col[p], a->cols);
            if (p > a->row[i] && a->col[p] <= a->col[p - 1])
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "csr",
                                  "%s: row %u: column %u follows column %u (columns must strictly increase)", name, i,
                                  a->col[p], a->col[p - 1]);
            if (!isfinite(a->val[p]))
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "csr", "%s: entry (%u, %u) is %g", name, i,
                                  a->col[p], a->val[p]);
        }
    return SINEW_RESULT_OK;
}

sinew_result sinew_csr_transpose(const sinew_csr *a, sinew_csr *out, const sinew_logger *lg)
{
    uint32_t nnz = sinew_csr_nnz(a);
    sinew_result r = sinew_csr_alloc(a->cols, a->rows, nnz, out, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    uint32_t *next = malloc(sizeof *next * ((size_t)a->cols + 1));
    if (!next) {
        sinew_csr_free(out);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "csr", "no memory to transpose a matrix");
    }
    for (uint32_t p = 0; p < nnz; p++)
        out->row[a->col[p] + 1]++;
    for (uint32_t j = 0; j < a->cols; j++)
        out->row[j + 1] += out->row[j];
    memcpy(next, out->row, sizeof *next * a->cols);
    /* Rows visited in order, so each row of the transpose fills in increasing column order. */
    for (uint32_t i = 0; i < a->rows; i++)
        for (uint32_t p = a->row[i]; p < a->row[i + 1]; p++) {
            uint32_t q = next[a->col[p]]++;
            out->col[q] = i;
            out->val[q] = a->val[p];
        }
    free(next);
    return SINEW_RESULT_OK;
}

static int u32_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

sinew_result sinew_csr_multiply(const sinew_csr *a, const sinew_csr *b, sinew_csr *out, const sinew_logger *lg)
{
    SINEW_ASSERT(a->cols == b->rows);
    memset(out, 0, sizeof *out);
    uint32_t *mark = malloc(sizeof *mark * ((size_t)b->cols + 1));
    double *acc = malloc(sizeof *acc * ((size_t)b->cols + 1));
    if (!mark || !acc) {
        free(mark);
        free(acc);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "csr", "no memory to multiply matrices");
    }
    for (uint32_t j = 0; j < b->cols; j++)
        mark[j] = NONE;
    /* Symbolic pass: each row's distinct columns, counted before anything is allocated. */
    uint64_t total = 0;
    for (uint32_t i = 0; i < a->rows; i++)
        for (uint32_t p = a->row[i]; p < a->row[i + 1]; p++)
            for (uint32_t q = b->row[a->col[p]]; q < b->row[a->col[p] + 1]; q++)
                if (mark[b->col[q]] != i) {
                    mark[b->col[q]] = i;
                    total++;
                }
    sinew_result r = SINEW_RESULT_OK;
    if (total > SINEW_CSR_MAX_NNZ)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "csr",
                       "the product of a %u x %u and a %u x %u matrix has %llu nonzeros, beyond the limit of %u",
                       a->rows, a->cols, b->rows, b->cols, (unsigned long long)total, SINEW_CSR_MAX_NNZ);
    if (r == SINEW_RESULT_OK)
        r = sinew_csr_alloc(a->rows, b->cols, (uint32_t)total, out, lg);
    if (r != SINEW_RESULT_OK) {
        free(mark);
        free(acc);
        return r;
    }
    for (uint32_t j = 0; j < b->cols; j++)
        mark[j] = NONE;
    uint32_t k = 0;
    for (uint32_t i = 0; i < a->rows; i++) {
        uint32_t start = k;
        for (uint32_t p = a->row[i]; p < a->row[i + 1]; p++)
            for (uint32_t q = b->row[a->col[p]]; q < b->row[a->col[p] + 1]; q++)
                if (mark[b->col[q]] != i) {
                    mark[b->col[q]] = i;
                    out->col[k++] = b->col[q];
                    acc[b->col[q]] = 0.0;
                }
        qsort(out->col + start, k - start, sizeof *out->col, u32_cmp);
        /* The same order of summation as sinew_csr_multiply_values: k ascending. */
        for (uint32_t p = a->row[i]; p < a->row[i + 1]; p++) {
            const double av = a->val[p];
            for (uint32_t q = b->row[a->col[p]]; q < b->row[a->col[p] + 1]; q++)
                acc[b->col[q]] += av * b->val[q];
        }
        for (uint32_t p = start; p < k; p++)
            out->val[p] = acc[out->col[p]];
        out->row[i + 1] = k;
    }
    free(mark);
    free(acc);
    return SINEW_RESULT_OK;
}

void sinew_csr_multiply_values(const sinew_csr *a, const sinew_csr *b, sinew_csr *c)
{
    SINEW_ASSERT(a->cols == b->rows && c->rows == a->rows && c->cols == b->cols);
    for (uint32_t i = 0; i < a->rows; i++) {
        for (uint32_t p = c->row[i]; p < c->row[i + 1]; p++)
            c->val[p] = 0.0;
        for (uint32_t p = a->row[i]; p < a->row[i + 1]; p++) {
            const double av = a->val[p];
            for (uint32_t q = b->row[a->col[p]]; q < b->row[a->col[p] + 1]; q++) {
                uint32_t at = sinew_csr_find(c, i, b->col[q]);
                SINEW_ASSERT(at != NONE);
                if (at != NONE)
                    c->val[at] += av * b->val[q];
            }
        }
    }
}

void sinew_csr_spmv(const sinew_csr *a, const double *x, double *y)
{
    for (uint32_t i = 0; i < a->rows; i++) {
        double s = 0.0;
        for (uint32_t p = a->row[i]; p < a->row[i + 1]; p++)
            s += a->val[p] * x[a->col[p]];
        y[i] = s;
    }
}
