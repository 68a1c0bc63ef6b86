/* Algebraic multigrid for MGPBD's constraint-space system, host side, in double
 * precision, on the sparse matrices of math/csr.h: the aggregation setup,
 * smoothed (Vanek, Mandel & Brezina 1996) or unsmoothed (options.smooth),
 * the runtime redoes every few frames,
 * and the CPU reference of the V-cycle and of preconditioned CG that the GPU
 * kernels are tested against.
 *
 * MGPBD (global XPBD) solves each outer iteration A dlambda = b with
 * A = G M^-1 G^T + alpha~, G the constraint Jacobian, M the masses and alpha~
 * the compliances over h^2: symmetric positive definite. The V-cycle below is
 * a symmetric positive definite preconditioner for CG on it.
 *
 * Every recurrence here is a definition the GPU follows (D = diag(A)):
 *
 *   Jacobi sweep       x += (omega / rho) D^-1 (b - A x)
 *   Chebyshev, degree k on [a, b] = [lower rho, upper rho] (Saad, Iterative
 *   Methods for Sparse Linear Systems, Alg. 12.1, Jacobi-preconditioned):
 *       r = b - A x; theta = (b + a) / 2; delta = (b - a) / 2;
 *       sigma = theta / delta; rho_old = 1 / sigma; d = D^-1 r / theta
 *       for i = 1..k: x += d; if i == k stop; r -= A d;
 *                     rho_new = 1 / (2 sigma - rho_old);
 *                     d = rho_new rho_old d + (2 rho_new / delta) D^-1 r;
 *                     rho_old = rho_new
 *   V-cycle on level l, right-hand side f, from x = 0:
 *       coarsest: x = A^-1 f by the dense Cholesky factor (<= SINEW_AMG_DENSE_MAX
 *                 rows), else coarse_sweeps smoother applications;
 *       else:     smooth; r = f - A x; f' = R r; x' = V-cycle(l + 1, f');
 *                 x += P x'; smooth
 *   where one smoother application is `sweeps` Jacobi sweeps or one Chebyshev
 *   polynomial of degree `sweeps`.
 *
 * Every function is deterministic: the same input gives the same bits.
 * Ownership: sinew_amg owns its arrays (malloc'd, its sinew_csr levels
 * included); sinew_amg_free releases them and zeroes the struct. Inputs are
 * borrowed for the call.
 */
#ifndef SINEW_SOLVERS_AMG_H
#define SINEW_SOLVERS_AMG_H

#include <sinew/core.h>

#include "../math/csr.h" /* sinew_csr: the matrices in compressed rows */

/* ------------------------------------------------------------ hierarchy */

#define SINEW_AMG_MAX_LEVELS 12
#define SINEW_AMG_DENSE_MAX 64   /* the coarsest level is solved exactly when it has at most this many rows */

typedef struct sinew_amg_options {
    /* Symmetric strength of connection: j is a strong neighbour of i when
     * |a_ij| >= strength sqrt(|a_ii a_jj|); 0 <= strength < 1. */
    double strength;
    /* 1: smoothed aggregation P = (I - (4/3)/rho D^-1 A) T; 0: P = T. */
    int smooth;
    /* Near-kernel improvement on level 0: symmetric Gauss-Seidel sweeps on
     * A x = 0 from x = 1 (0: the constant vector). */
    uint32_t candidate_sweeps;
    /* 1..SINEW_AMG_MAX_LEVELS. */
    uint32_t max_levels;
    /* Coarsening stops at a level with at most this many rows (>= 1). */
    uint32_t coarse_size;
    uint32_t cookie;            /* stamped by sinew_amg_options_default */
} sinew_amg_options;

/* strength 0.08, smooth 1, candidate_sweeps 2, max_levels 10, coarse_size
 * SINEW_AMG_DENSE_MAX (amg.c gives the measurements behind them). */
sinew_amg_options sinew_amg_options_default(void);

/* Lanczos steps of the estimate of rho (deterministic start vector). */
#define SINEW_AMG_RHO_ITERATIONS 15
/* The estimate is a Ritz value, never above the true largest eigenvalue; it
 * is raised by this factor so that it rarely falls below it. */
#define SINEW_AMG_RHO_SAFETY 1.05

typedef struct sinew_amg_level {
    sinew_csr A;      /* this level's operator (level 0: a copy of the input) */
    sinew_csr P;      /* rows of this level x rows of the next (absent on the coarsest) */
    sinew_csr R;      /* P transposed */
    sinew_csr AP;     /* A P: kept so its pattern can be laid out on the GPU, and for the lazy update */
    double *inv_diag; /* 1 / diag(A), rows entries */
    double rho;       /* SINEW_AMG_RHO_SAFETY times the Lanczos estimate of the largest eigenvalue of D^-1 A */
} sinew_amg_level;

typedef struct sinew_amg {
    uint32_t levels;
    sinew_amg_level L[SINEW_AMG_MAX_LEVELS];
    double *coarse_factor;   /* dense Cholesky factor (lower, row-major) of the coarsest A when it has <= SINEW_AMG_DENSE_MAX rows, else NULL */
    double setup_ms;         /* wall time of the last setup or update */
    double *scratch;         /* the V-cycle's vectors (4 per level row), owned */
} sinew_amg;

/* Builds the hierarchy of A (symmetric positive definite). Coarsening stops at
 * coarse_size rows, at max_levels, or when a level would shrink by less than
 * 10 % or form no aggregate (an info line says so); everything is
 * deterministic. o NULL: the defaults. Fails, *out zeroed, with
 * INVALID_ARGUMENT naming the problem for: an empty or non-square matrix, a
 * malformed one (sinew_csr_check), a non-finite value, a diagonal entry
 * missing, zero or negative, a matrix not symmetric (to 1e-10 relative), a
 * coarsest operator that is not positive definite; LIMIT for a product too
 * large; OUT_OF_HOST_MEMORY. Free *out with sinew_amg_free. */
sinew_result sinew_amg_setup(const sinew_csr *A, const sinew_amg_options *o, sinew_amg *out, const sinew_logger *lg);

/* Releases everything and zeroes *amg; NULL and a zeroed one are fine. */
void sinew_amg_free(sinew_amg *amg);

/* Lazy setup: A has level 0's pattern and new values; the coarse operators
 * are recomputed (AP = A P, A_next = R AP, values only, patterns kept), P and
 * R kept; rho re-estimated on every level; the coarse factor refactored.
 * With the values setup saw, the result is bit-identical to setup's.
 * INVALID_ARGUMENT, the hierarchy untouched, for another pattern, a
 * non-finite value or a diagonal entry <= 0; INVALID_ARGUMENT when the
 * coarsest operator is no longer positive definite, after which the
 * hierarchy must be set up afresh (or freed). */
sinew_result sinew_amg_update(sinew_amg *amg, const sinew_csr *A, const sinew_logger *lg);

/* After the caller has overwritten the operators' values (every level's A,
 * in its pattern, every diagonal > 0): the inverse diagonals and rho
 * estimates anew, P, R and the coarse factor kept. */
void sinew_amg_refresh(sinew_amg *amg);
double sinew_amg_operator_complexity(const sinew_amg *amg);  /* sum of nnz over levels / nnz of level 0 */
double sinew_amg_grid_complexity(const sinew_amg *amg);      /* sum of rows over levels / rows of level 0 */

/* ------------------------------------------------------------ cycle */

typedef enum sinew_amg_smoother { SINEW_AMG_JACOBI = 0, SINEW_AMG_CHEBYSHEV = 1 } sinew_amg_smoother;

typedef struct sinew_amg_cycle {
    sinew_amg_smoother smoother;
    uint32_t sweeps;          /* Jacobi: sweeps before and after the coarse correction; Chebyshev: the polynomial degree (>= 1) */
    double jacobi_weight;     /* omega; the sweep is x += (omega / rho) D^-1 (b - A x); default 4/3 */
    double cheby_lower;       /* Chebyshev interval [lower rho, upper rho], defaults 1/30 and 1.1 */
    double cheby_upper;
    uint32_t coarse_sweeps;   /* coarsest level with more than SINEW_AMG_DENSE_MAX rows: this many smoother applications instead of the exact solve */
} sinew_amg_cycle;

/* Chebyshev of degree 3 on [rho / 30, 1.1 rho], Jacobi weight 4/3 (used when
 * the smoother is switched to Jacobi, with 2 sweeps then being the usual
 * choice), 4 coarse applications. */
sinew_amg_cycle sinew_amg_cycle_default(void);

/* z = V-cycle applied to r from z = 0: the preconditioner, a symmetric
 * positive definite operator when A is and the smoother converges (Jacobi:
 * 0 < omega < 2; Chebyshev: 0 < lower < upper). Uses the hierarchy's scratch:
 * not to be called on the same amg from two threads at once. r and z have
 * level 0's rows and must not overlap. */
void sinew_amg_vcycle(const sinew_amg *amg, const sinew_amg_cycle *c, const double *r, double *z);

/* A sinew_precondition_fn for sinew_pcg: user points to this. */
typedef struct sinew_amg_preconditioner {
    const sinew_amg *amg;
    const sinew_amg_cycle *cycle;
} sinew_amg_preconditioner;
void sinew_amg_precondition(void *user, const double *r, double *z);

/* ------------------------------------------------------------ CG */

/* z = M^-1 r, M symmetric positive definite. */
typedef void (*sinew_precondition_fn)(void *user, const double *r, double *z);

/* What sinew_pcg returns when it could not allocate its vectors (x untouched). */
#define SINEW_PCG_OUT_OF_MEMORY UINT32_MAX

/* Jacobi preconditioner for sinew_pcg: user is the sinew_csr; z = D^-1 r. */
void sinew_jacobi_precondition(void *user, const double *r, double *z);

/* Preconditioned CG on A (square, symmetric positive definite) from x (given,
 * usually 0): stops when |b - A x|_2 <= tol |b|_2 for the recursive residual,
 * after max_iterations, or on a breakdown (p^T A p or r^T z not positive and
 * finite: A or the preconditioner is not SPD, which final_relative then
 * shows). b = 0 gives x = 0 at once. precondition NULL: plain CG. history (may
 * be NULL): relative residual after each iteration, up to history_len.
 * final_relative (may be NULL): the last relative residual. Returns the
 * iterations done, or SINEW_PCG_OUT_OF_MEMORY. */
uint32_t sinew_pcg(const sinew_csr *A, const double *b, double *x, sinew_precondition_fn precondition, void *user,
                   double tol, uint32_t max_iterations, double *history, uint32_t history_len, double *final_relative);

#endif
