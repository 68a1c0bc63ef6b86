/* Sparse matrices in compressed rows, host side, in double precision: the
 * storage, checks and products that the algebraic multigrid (solvers/amg.h)
 * and the Matrix Market reader (prep/mtx.h) share. libc and libm only, plus
 * core/log.h for the messages.
 *
 * Every function is deterministic: the same input gives the same bits.
 * Ownership: a sinew_csr owns its arrays (malloc'd); sinew_csr_free releases
 * them and zeroes the struct. Inputs are borrowed for the call.
 */
#ifndef SINEW_MATH_CSR_H
#define SINEW_MATH_CSR_H

#include <sinew/core.h>

/* Compressed sparse rows; columns strictly increasing within each row. */
typedef struct sinew_csr {
    uint32_t rows, cols;
    uint32_t *row;   /* rows + 1 */
    uint32_t *col;   /* row[rows] */
    double *val;     /* row[rows] */
} sinew_csr;

/* Matrices larger than this many nonzeros are refused (LIMIT): every index
 * then fits a uint32_t with room to spare. */
#define SINEW_CSR_MAX_NNZ (1u << 30)

/* What sinew_csr_find returns for an entry outside the pattern. */
#define SINEW_CSR_NONE UINT32_MAX

/* Releases the arrays and zeroes *m; NULL and a zeroed matrix are fine. */
void sinew_csr_free(sinew_csr *m);

/* Allocates rows x cols with room for nnz entries, row[] zeroed. */
sinew_result sinew_csr_alloc(uint32_t rows, uint32_t cols, uint32_t nnz, sinew_csr *out, const sinew_logger *lg);

/* out = a (a deep copy). */
sinew_result sinew_csr_copy(const sinew_csr *a, sinew_csr *out, const sinew_logger *lg);

/* Checks the structure: row[0] = 0, row[] nondecreasing, at most
 * SINEW_CSR_MAX_NNZ entries, columns in range and strictly increasing in each
 * row, every value finite. INVALID_ARGUMENT (LIMIT for size) naming the
 * first offending row; name labels the message. */
sinew_result sinew_csr_check(const sinew_csr *a, const char *name, const sinew_logger *lg);

/* out = a^T; its columns come out sorted. Fails only when out of memory. */
sinew_result sinew_csr_transpose(const sinew_csr *a, sinew_csr *out, const sinew_logger *lg);

/* C = A B: pattern and values (Gustavson's row-by-row product, columns sorted;
 * every structurally produced entry is kept, even when its value is 0). Each
 * entry is summed over k in increasing order, as sinew_csr_multiply_values
 * does, so the two give the same bits. a->cols must equal b->rows (asserted).
 * LIMIT when C would exceed SINEW_CSR_MAX_NNZ, else fails only when out of
 * memory. */
sinew_result sinew_csr_multiply(const sinew_csr *a, const sinew_csr *b, sinew_csr *out, const sinew_logger *lg);

/* Values only, into c's existing pattern, which must contain A B's (asserted:
 * a product entry outside it is a programmer error): the host twin of the
 * GPU's numeric product. Each row of c is found by binary search; entries of
 * c's pattern that A B lacks become 0. */
void sinew_csr_multiply_values(const sinew_csr *a, const sinew_csr *b, sinew_csr *c);

/* y = A x. x and y must not overlap. */
void sinew_csr_spmv(const sinew_csr *a, const double *x, double *y);

/* The number of stored entries (0 for a zeroed matrix). */
static inline uint32_t sinew_csr_nnz(const sinew_csr *a) { return a->row ? a->row[a->rows] : 0; }

/* Position of column j in row i of m (binary search: columns sorted), or
 * SINEW_CSR_NONE when the pattern lacks it. */
static inline uint32_t sinew_csr_find(const sinew_csr *m, uint32_t i, uint32_t j)
{
    uint32_t lo = m->row[i], hi = m->row[i + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->col[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->row[i + 1] && m->col[lo] == j ? lo : SINEW_CSR_NONE;
}

#endif
