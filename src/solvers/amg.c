/* Smoothed-aggregation algebraic multigrid (Vanek, Mandel & Brezina,
 * "Algebraic multigrid by smoothed aggregation for second and fourth order
 * elliptic problems", Computing 56, 1996) for MGPBD's constraint-space system,
 * with its V-cycle and preconditioned CG: the host setup and the double
 * precision reference of the GPU's cycle (amg.h gives the recurrences).
 *
 * Setup, level by level:
 *   strength graph   j strong for i when |a_ij| >= theta sqrt(a_ii a_jj)
 *   aggregates       three passes: roots whose strong neighbours are all free,
 *                    leftovers joining their strongest pass-1 neighbour,
 *                    then new aggregates of what is left
 *   tentative T      the near-kernel candidate B restricted to each aggregate
 *                    and normalised; the next level's candidate is the norms
 *   prolongation     P = (I - (4/3)/rho D^-1 A) T
 *   coarse operator  A' = P^T (A P)
 * The near-kernel candidate starts as the constant vector, improved on the
 * finest level by Gauss-Seidel on A x = 0: what survives relaxation is what
 * the coarse space must represent (the MGPBD paper's observation that the
 * near kernel of A improves the coarse space).
 */
#include "amg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/log.h"

#define NONE UINT32_MAX
/* The prolongation smoother's weight, over rho (Vanek et al.'s 4/3). */
#define PROLONG_OMEGA (4.0 / 3.0)
/* Setup refuses a matrix whose a_ij and a_ji differ by more than this times
 * sqrt(a_ii a_jj): CG and the V-cycle's symmetry both need A symmetric, and
 * assembling G M^-1 G^T leaves differences of a few ulps only. */
#define SYMMETRY_TOLERANCE 1e-10
/* A Cholesky pivot below this times its diagonal entry: not positive definite. */
#define PIVOT_TOLERANCE 1e-14

/* ------------------------------------------------------------ vectors */

static double dot(const double *x, const double *y, uint32_t n)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* ------------------------------------------------------------ options */

sinew_amg_options sinew_amg_options_default(void)
{
    sinew_amg_options o;
    memset(&o, 0, sizeof o);
    /* Vanek et al.'s 0.08. Measured (AMG-PCG to 1e-6): on 2D Poisson it
     * keeps the operator complexity at 1.37 with 7 iterations, where 0.15
     * costs 1.6 and 0.2 stops coarsening at the first coarse level (9 to 31
     * iterations); on constraint-space matrices of tetrahedral meshes every
     * strength from 0 to 0.2 lands within 2 % of the others. */
    o.strength = 0.08;
    o.smooth = 1;
    /* Measured: 2 sweeps were never worse than none and up to 2 % better
     * on constraint-space matrices (none to gain on Poisson, whose near
     * kernel the constant vector already is), for two products' work on
     * level 0. */
    o.candidate_sweeps = 2;
    o.max_levels = 10;
    o.coarse_size = SINEW_AMG_DENSE_MAX;
    o.cookie = SINEW_DESC_COOKIE;
    return o;
}

sinew_amg_cycle sinew_amg_cycle_default(void)
{
    sinew_amg_cycle c;
    memset(&c, 0, sizeof c);
    c.smoother = SINEW_AMG_CHEBYSHEV;
    c.sweeps = 3;
    c.jacobi_weight = 4.0 / 3.0;
    c.cheby_lower = 1.0 / 30.0;
    c.cheby_upper = 1.1;
    c.coarse_sweeps = 4;
    return c;
}

/* ------------------------------------------------------------ input checks */

/* Square, nonempty, well formed, a positive diagonal, symmetric. */
static sinew_result check_input(const sinew_csr *A, const sinew_logger *lg)
{
    if (A->rows == 0 || A->cols == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg", "matrix is empty (%u x %u)", A->rows,
                          A->cols);
    if (A->rows != A->cols)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg", "matrix is %u x %u, not square", A->rows,
                          A->cols);
    sinew_result r = sinew_csr_check(A, "matrix", lg);
    if (r != SINEW_RESULT_OK)
        return r;
    for (uint32_t i = 0; i < A->rows; i++) {
        uint32_t at = sinew_csr_find(A, i, i);
        if (at == NONE)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg",
                              "matrix has no diagonal entry in row %u (a positive diagonal is needed)", i);
        if (!(A->val[at] > 0.0))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg",
                              "matrix has diagonal entry (%u, %u) = %g: not positive, so not positive definite", i, i,
                              A->val[at]);
    }
    sinew_csr T;
    r = sinew_csr_transpose(A, &T, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    /* Entries of one triangle absent from the other count as 0 there. */
    for (uint32_t i = 0; i < A->rows && r == SINEW_RESULT_OK; i++) {
        uint32_t p = A->row[i], q = T.row[i];
        while ((p < A->row[i + 1] || q < T.row[i + 1]) && r == SINEW_RESULT_OK) {
            uint32_t ja = p < A->row[i + 1] ? A->col[p] : NONE, jt = q < T.row[i + 1] ? T.col[q] : NONE;
            uint32_t j = ja < jt ? ja : jt;
            double va = ja == j ? A->val[p++] : 0.0, vt = jt == j ? T.val[q++] : 0.0;
            double scale = sqrt(A->val[sinew_csr_find(A, i, i)] * A->val[sinew_csr_find(A, j, j)]);
            if (fabs(va - vt) > SYMMETRY_TOLERANCE * scale)
                r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg",
                               "matrix is not symmetric: entry (%u, %u) = %.17g but (%u, %u) = %.17g", i, j, va, j, i,
                               vt);
        }
    }
    sinew_csr_free(&T);
    return r;
}

/* ------------------------------------------------------------ setup steps */

static double now_ms(void) { return sinew_host_ms(); }

/* A fixed pseudo-random value in [-1, 1) for index i (splitmix64), so the
 * Lanczos iteration starts the same way every time and on every machine. */
static double start_value(uint32_t i)
{
    uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 4503599627370496.0 - 1.0;
}

/* The largest eigenvalue of the symmetric tridiagonal matrix of diagonal a
 * and off-diagonal b (k rows), by bisection on Sturm counts: the number of
 * eigenvalues below x is the number of negative pivots of T - x I. */
static double tridiagonal_largest(const double *a, const double *b, uint32_t k)
{
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (uint32_t i = 0; i < k; i++) { /* Gershgorin */
        double r = (i > 0 ? fabs(b[i - 1]) : 0.0) + (i + 1 < k ? fabs(b[i]) : 0.0);
        lo = fmin(lo, a[i] - r);
        hi = fmax(hi, a[i] + r);
    }
    for (int it = 0; it < 100 && hi - lo > 1e-12 * fmax(fabs(hi), fabs(lo)); it++) {
        double x = 0.5 * (lo + hi), d = 1.0;
        uint32_t below = 0;
        for (uint32_t i = 0; i < k; i++) {
            d = a[i] - x - (i > 0 ? b[i - 1] * b[i - 1] / d : 0.0);
            if (d == 0.0)
                d = -1e-300;
            below += d < 0.0;
        }
        if (below == k)
            hi = x; /* every eigenvalue below x */
        else
            lo = x;
    }
    return hi;
}

/* Largest eigenvalue of D^-1 A, by SINEW_AMG_RHO_ITERATIONS Lanczos steps on
 * the similar symmetric D^-1/2 A D^-1/2: the largest Ritz value, which never
 * exceeds the true value and, unlike a power iteration's Rayleigh quotient,
 * gets close to it in a few steps even where the top of the spectrum is
 * clustered (with 15 power steps, 8 lazy outer iterations on a flattened
 * lattice box stopped at 8 % of |b_0|; with 15 Lanczos steps they reach
 * 0.04 %: test_mgpbd). Still a lower bound, hence a safety factor: the Jacobi sweep
 * diverges on modes above 1.5 rho / omega and the Chebyshev polynomial grows
 * fast above its interval, while a few percent too high merely costs a little
 * smoothing. work: 4 rows. */
static double estimate_rho(const sinew_amg_level *L, double *work)
{
    const uint32_t n = L->A.rows;
    double *q_prev = work, *q = work + n, *t = work + 2 * (size_t)n, *w = work + 3 * (size_t)n;
    double alpha[SINEW_AMG_RHO_ITERATIONS], beta[SINEW_AMG_RHO_ITERATIONS];
    double norm = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        q_prev[i] = 0.0;
        q[i] = start_value(i);
        norm += q[i] * q[i];
    }
    norm = sqrt(norm);
    for (uint32_t i = 0; i < n; i++)
        q[i] /= norm;
    uint32_t k = 0;
    double b_prev = 0.0;
    while (k < SINEW_AMG_RHO_ITERATIONS) {
        for (uint32_t i = 0; i < n; i++)
            t[i] = q[i] * sqrt(L->inv_diag[i]);
        sinew_csr_spmv(&L->A, t, w);
        double a = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            w[i] *= sqrt(L->inv_diag[i]);
            a += q[i] * w[i];
        }
        double bb = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            w[i] -= a * q[i] + b_prev * q_prev[i];
            bb += w[i] * w[i];
        }
        if (!isfinite(a) || !isfinite(bb))
            break;
        alpha[k] = a;
        beta[k] = sqrt(bb);
        k++;
        if (!(beta[k - 1] > 1e-12 * fabs(a))) /* an invariant subspace: T's top is exact */
            break;
        for (uint32_t i = 0; i < n; i++) {
            q_prev[i] = q[i];
            q[i] = w[i] / beta[k - 1];
        }
        b_prev = beta[k - 1];
    }
    double lambda = k ? tridiagonal_largest(alpha, beta, k) : 0.0;
    /* For an SPD A with a start vector not orthogonal to the top eigenvectors
     * (a fixed pseudo-random one), never; Gershgorin's 2 would still be safe. */
    if (!(lambda > 0.0) || !isfinite(lambda))
        lambda = 2.0;
    return SINEW_AMG_RHO_SAFETY * lambda;
}

/* The strength graph: row i lists its strong neighbours (diagonal and zero
 * entries excluded) and the measure |a_ij| / sqrt(a_ii a_jj) of each. */
typedef struct strength {
    uint32_t *row, *col;
    double *w;
} strength;

static void strength_free(strength *S)
{
    free(S->row);
    free(S->col);
    free(S->w);
}

static int strength_build(const sinew_amg_level *L, double theta, strength *S)
{
    const sinew_csr *A = &L->A;
    double *diag = malloc(sizeof *diag * ((size_t)A->rows + 1));
    S->row = malloc(sizeof *S->row * ((size_t)A->rows + 1));
    S->col = malloc(sizeof *S->col * ((size_t)A->row[A->rows] + 1));
    S->w = malloc(sizeof *S->w * ((size_t)A->row[A->rows] + 1));
    if (!diag || !S->row || !S->col || !S->w) {
        free(diag);
        return 0;
    }
    /* The diagonal itself rather than 1 / inv_diag, so that the test is the
     * definition to the last bit. */
    for (uint32_t i = 0; i < A->rows; i++)
        diag[i] = A->val[sinew_csr_find(A, i, i)];
    uint32_t k = 0;
    for (uint32_t i = 0; i < A->rows; i++) {
        S->row[i] = k;
        for (uint32_t p = A->row[i]; p < A->row[i + 1]; p++) {
            const uint32_t j = A->col[p];
            const double a = fabs(A->val[p]), scale = sqrt(fabs(diag[i] * diag[j]));
            if (j != i && a != 0.0 && a >= theta * scale) {
                S->col[k] = j;
                S->w[k++] = a / scale;
            }
        }
    }
    S->row[A->rows] = k;
    free(diag);
    return 1;
}

/* Standard aggregation (Vanek et al. 1996), three passes over the nodes in
 * index order; agg[i] receives node i's aggregate or NONE (no strong
 * neighbour: no coarse representative, the smoother alone handles it).
 * first: room for n entries. Returns the number of aggregates. */
static uint32_t aggregate(const strength *S, uint32_t n, uint32_t *agg, uint32_t *first)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        agg[i] = NONE;
    /* Pass 1: a node whose strong neighbours are all free roots an aggregate of them. */
    for (uint32_t i = 0; i < n; i++) {
        if (agg[i] != NONE || S->row[i] == S->row[i + 1])
            continue;
        int free_around = 1;
        for (uint32_t p = S->row[i]; p < S->row[i + 1] && free_around; p++)
            free_around = agg[S->col[p]] == NONE;
        if (!free_around)
            continue;
        agg[i] = count;
        for (uint32_t p = S->row[i]; p < S->row[i + 1]; p++)
            agg[S->col[p]] = count;
        count++;
    }
    /* Pass 2: the rest join the pass-1 aggregate of their strongest
     * neighbour (the first in index order among equals); pass-1 membership
     * is read from a copy, so joining does not chain and aggregates stay
     * compact. */
    memcpy(first, agg, sizeof *first * n);
    for (uint32_t i = 0; i < n; i++) {
        if (agg[i] != NONE)
            continue;
        uint32_t best = NONE;
        double best_w = -1.0;
        for (uint32_t p = S->row[i]; p < S->row[i + 1]; p++)
            if (first[S->col[p]] != NONE && S->w[p] > best_w) {
                best = first[S->col[p]];
                best_w = S->w[p];
            }
        agg[i] = best;
    }
    /* Pass 3: nodes still alone with strong neighbours (only possible where
     * the graph is not symmetric) make new aggregates with the free ones. */
    for (uint32_t i = 0; i < n; i++) {
        if (agg[i] != NONE || S->row[i] == S->row[i + 1])
            continue;
        agg[i] = count;
        for (uint32_t p = S->row[i]; p < S->row[i + 1]; p++)
            if (agg[S->col[p]] == NONE)
                agg[S->col[p]] = count;
        count++;
    }
    return count;
}

/* Symmetric Gauss-Seidel on A x = 0 from x: the error that relaxation leaves,
 * which the coarse space must hold. Rescaled to a largest entry of 1, since
 * only its direction matters and repeated sweeps shrink it. */
static void improve_candidate(const sinew_amg_level *L, uint32_t sweeps, double *x)
{
    const sinew_csr *A = &L->A;
    for (uint32_t s = 0; s < sweeps; s++) {
        for (uint32_t d = 0; d < 2; d++)
            for (uint32_t k = 0; k < A->rows; k++) {
                uint32_t i = d == 0 ? k : A->rows - 1 - k;
                double sum = 0.0;
                for (uint32_t p = A->row[i]; p < A->row[i + 1]; p++)
                    if (A->col[p] != i)
                        sum += A->val[p] * x[A->col[p]];
                x[i] = -sum * L->inv_diag[i];
            }
        double top = 0.0;
        for (uint32_t i = 0; i < A->rows; i++)
            top = fmax(top, fabs(x[i]));
        if (!(top > 0.0) || !isfinite(top))
            break;
        for (uint32_t i = 0; i < A->rows; i++)
            x[i] /= top;
    }
}

/* T[i, agg(i)] = B_i / |B over agg|, and the next candidate, the norms.
 * An aggregate on which B vanishes takes the constant vector instead, so that
 * every column of T is a unit vector and P keeps full rank. */
static sinew_result tentative(const uint32_t *agg, uint32_t n, uint32_t count, double *B, double *B_next,
                              sinew_csr *T, const sinew_logger *lg)
{
    uint32_t members = 0;
    for (uint32_t i = 0; i < n; i++)
        members += agg[i] != NONE;
    sinew_result r = sinew_csr_alloc(n, count, members, T, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t a = 0; a < count; a++)
            B_next[a] = 0.0;
        for (uint32_t i = 0; i < n; i++)
            if (agg[i] != NONE)
                B_next[agg[i]] += B[i] * B[i];
        if (pass == 0)
            for (uint32_t i = 0; i < n; i++)
                if (agg[i] != NONE && !(B_next[agg[i]] > 1e-300))
                    B[i] = 1.0;
    }
    for (uint32_t a = 0; a < count; a++)
        B_next[a] = sqrt(B_next[a]);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (agg[i] != NONE) {
            T->col[k] = agg[i];
            T->val[k++] = B[i] / B_next[agg[i]];
        }
        T->row[i + 1] = k;
    }
    return SINEW_RESULT_OK;
}

/* P = T - (omega / rho) D^-1 (A T), in the pattern of A T, which holds T's
 * since the diagonal of A is present. */
static sinew_result smooth_prolongation(const sinew_amg_level *L, const sinew_csr *T, sinew_csr *P,
                                        const sinew_logger *lg)
{
    sinew_result r = sinew_csr_multiply(&L->A, T, P, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    const double scale = PROLONG_OMEGA / L->rho;
    for (uint32_t i = 0; i < P->rows; i++) {
        const double s = scale * L->inv_diag[i];
        for (uint32_t p = P->row[i]; p < P->row[i + 1]; p++)
            P->val[p] = -s * P->val[p];
        if (T->row[i] < T->row[i + 1]) {
            uint32_t at = sinew_csr_find(P, i, T->col[T->row[i]]);
            SINEW_ASSERT(at != NONE);
            if (at != NONE)
                P->val[at] += T->val[T->row[i]];
        }
    }
    return SINEW_RESULT_OK;
}

/* 1 / diag(A) of a level; a coarse level's diagonal is x^T A x for a column x
 * of P, positive for an SPD A, so anything else means A was not. */
static sinew_result invert_diagonal(sinew_amg_level *L, uint32_t level, const sinew_logger *lg)
{
    if (!L->inv_diag) {
        L->inv_diag = malloc(sizeof *L->inv_diag * ((size_t)L->A.rows + 1));
        if (!L->inv_diag)
            return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "amg", "no memory for a diagonal");
    }
    for (uint32_t i = 0; i < L->A.rows; i++) {
        uint32_t at = sinew_csr_find(&L->A, i, i);
        double d = at != NONE ? L->A.val[at] : 0.0;
        if (!(d > 0.0) || !isfinite(d))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg",
                              "level %u: diagonal entry %u is %g: the matrix is not positive definite", level, i, d);
        L->inv_diag[i] = 1.0 / d;
    }
    return SINEW_RESULT_OK;
}

/* The dense Cholesky factor of the coarsest operator (lower triangle,
 * row-major), from A's lower triangle; none above SINEW_AMG_DENSE_MAX rows. */
static sinew_result factor_coarsest(sinew_amg *amg, const sinew_logger *lg)
{
    const uint32_t last = amg->levels - 1, n = amg->L[last].A.rows;
    const sinew_csr *A = &amg->L[last].A;
    if (n > SINEW_AMG_DENSE_MAX) {
        free(amg->coarse_factor);
        amg->coarse_factor = NULL;
        return SINEW_RESULT_OK;
    }
    if (!amg->coarse_factor) {
        amg->coarse_factor = malloc(sizeof *amg->coarse_factor * SINEW_AMG_DENSE_MAX * SINEW_AMG_DENSE_MAX);
        if (!amg->coarse_factor)
            return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "amg", "no memory for the coarse factor");
    }
    double *F = amg->coarse_factor;
    memset(F, 0, sizeof *F * n * n);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t p = A->row[i]; p < A->row[i + 1] && A->col[p] <= i; p++)
            F[i * n + A->col[p]] = A->val[p];
    for (uint32_t j = 0; j < n; j++) {
        double s = F[j * n + j];
        for (uint32_t k = 0; k < j; k++)
            s -= F[j * n + k] * F[j * n + k];
        if (!(s > PIVOT_TOLERANCE * F[j * n + j]) || !isfinite(s))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg",
                              "the coarsest operator (level %u, %u rows) is not positive definite: Cholesky pivot %g "
                              "of diagonal %g in row %u",
                              last, n, s, F[j * n + j], j);
        const double djj = sqrt(s);
        F[j * n + j] = djj;
        for (uint32_t i = j + 1; i < n; i++) {
            double t = F[i * n + j];
            for (uint32_t k = 0; k < j; k++)
                t -= F[i * n + k] * F[j * n + k];
            F[i * n + j] = t / djj;
        }
    }
    return SINEW_RESULT_OK;
}

/* x = (F F^T)^-1 x. */
static void cholesky_solve(const double *F, uint32_t n, double *x)
{
    for (uint32_t i = 0; i < n; i++) {
        double s = x[i];
        for (uint32_t k = 0; k < i; k++)
            s -= F[i * n + k] * x[k];
        x[i] = s / F[i * n + i];
    }
    for (uint32_t i = n; i-- > 0;) {
        double s = x[i];
        for (uint32_t k = i + 1; k < n; k++)
            s -= F[k * n + i] * x[k];
        x[i] = s / F[i * n + i];
    }
}

/* Level l's P, R, AP and the next level's A, from its aggregates. */
static sinew_result build_transfer(sinew_amg *amg, uint32_t l, const uint32_t *agg, uint32_t count, double *B,
                                   double *B_next, int smooth, const sinew_logger *lg)
{
    sinew_amg_level *L = &amg->L[l], *N = &amg->L[l + 1];
    sinew_csr T;
    sinew_result r = tentative(agg, L->A.rows, count, B, B_next, &T, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    if (smooth) {
        r = smooth_prolongation(L, &T, &L->P, lg);
        sinew_csr_free(&T);
    } else {
        L->P = T;
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_csr_transpose(&L->P, &L->R, lg);
    if (r == SINEW_RESULT_OK)
        r = sinew_csr_multiply(&L->A, &L->P, &L->AP, lg);
    if (r == SINEW_RESULT_OK)
        r = sinew_csr_multiply(&L->R, &L->AP, &N->A, lg);
    return r;
}

/* The levels, the coarse factor and the scratch; A already checked. */
static sinew_result build(sinew_amg *amg, const sinew_csr *A, const sinew_amg_options *o, const sinew_logger *lg)
{
    sinew_result r = sinew_csr_copy(A, &amg->L[0].A, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    const size_t n0 = A->rows;
    double *B = malloc(sizeof *B * n0), *B_next = malloc(sizeof *B_next * n0), *work = malloc(sizeof *work * 4 * n0);
    uint32_t *agg = malloc(sizeof *agg * n0), *first = malloc(sizeof *first * n0);
    strength S = {0};
    if (!B || !B_next || !work || !agg || !first)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "amg", "no memory to set up %zu rows", n0);
    if (r == SINEW_RESULT_OK)
        r = invert_diagonal(&amg->L[0], 0, lg);
    if (r == SINEW_RESULT_OK) {
        for (size_t i = 0; i < n0; i++)
            B[i] = 1.0;
        improve_candidate(&amg->L[0], o->candidate_sweeps, B);
    }
    for (uint32_t l = 0; r == SINEW_RESULT_OK; l++) {
        sinew_amg_level *L = &amg->L[l];
        const uint32_t n = L->A.rows;
        amg->levels = l + 1;
        r = invert_diagonal(L, l, lg);
        if (r != SINEW_RESULT_OK)
            break;
        L->rho = estimate_rho(L, work);
        if (n <= o->coarse_size || l + 1 >= o->max_levels)
            break;
        if (!strength_build(L, o->strength, &S)) {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "amg", "no memory for a strength graph");
            break;
        }
        uint32_t count = aggregate(&S, n, agg, first);
        strength_free(&S);
        memset(&S, 0, sizeof S);
        if (count == 0) {
            sinew_logf(lg, SINEW_LOG_INFO, "amg",
                       "level %u: no strong connection among its %u rows (strength %g): coarsening stops there", l, n,
                       o->strength);
            break;
        }
        if ((uint64_t)count * 10 > (uint64_t)n * 9) {
            sinew_logf(lg, SINEW_LOG_INFO, "amg",
                       "level %u: %u rows form %u aggregates, less than 10 %% fewer: coarsening stops there", l, n,
                       count);
            break;
        }
        r = build_transfer(amg, l, agg, count, B, B_next, o->smooth, lg);
        double *swap = B;
        B = B_next;
        B_next = swap;
    }
    strength_free(&S);
    free(B);
    free(B_next);
    free(work);
    free(agg);
    free(first);
    if (r == SINEW_RESULT_OK)
        r = factor_coarsest(amg, lg);
    if (r == SINEW_RESULT_OK) {
        size_t rows = 0;
        for (uint32_t l = 0; l < amg->levels; l++)
            rows += amg->L[l].A.rows;
        amg->scratch = malloc(sizeof *amg->scratch * 4 * rows);
        if (!amg->scratch)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "amg", "no memory for the V-cycle's vectors");
    }
    return r;
}

sinew_result sinew_amg_setup(const sinew_csr *A, const sinew_amg_options *o, sinew_amg *out, const sinew_logger *lg)
{
    SINEW_ASSERT(A != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    const sinew_amg_options defaults = sinew_amg_options_default();
    if (!o)
        o = &defaults;
    SINEW_ASSERT(o->cookie == SINEW_DESC_COOKIE);
    if (!(o->strength >= 0.0 && o->strength < 1.0) || o->max_levels < 1 || o->max_levels > SINEW_AMG_MAX_LEVELS ||
        o->coarse_size < 1)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg",
                          "options: strength %g (0 <= s < 1), max_levels %u (1..%u), coarse_size %u (>= 1)",
                          o->strength, o->max_levels, SINEW_AMG_MAX_LEVELS, o->coarse_size);
    const double start = now_ms();
    sinew_result r = check_input(A, lg);
    if (r == SINEW_RESULT_OK)
        r = build(out, A, o, lg);
    if (r != SINEW_RESULT_OK) {
        sinew_amg_free(out);
        return r;
    }
    out->setup_ms = now_ms() - start;
    sinew_logf(lg, SINEW_LOG_DEBUG, "amg", "%u levels, %u rows to %u, operator complexity %.3f, %.2f ms", out->levels,
               A->rows, out->L[out->levels - 1].A.rows, sinew_amg_operator_complexity(out), out->setup_ms);
    return SINEW_RESULT_OK;
}

void sinew_amg_free(sinew_amg *amg)
{
    if (!amg)
        return;
    for (uint32_t l = 0; l < SINEW_AMG_MAX_LEVELS; l++) {
        sinew_amg_level *L = &amg->L[l];
        sinew_csr_free(&L->A);
        sinew_csr_free(&L->P);
        sinew_csr_free(&L->R);
        sinew_csr_free(&L->AP);
        free(L->inv_diag);
    }
    free(amg->coarse_factor);
    free(amg->scratch);
    memset(amg, 0, sizeof *amg);
}

sinew_result sinew_amg_update(sinew_amg *amg, const sinew_csr *A, const sinew_logger *lg)
{
    SINEW_ASSERT(amg != NULL && A != NULL && amg->levels > 0);
    const double start = now_ms();
    const sinew_csr *A0 = &amg->L[0].A;
    const uint32_t nnz = sinew_csr_nnz(A0);
    if (A->rows != A0->rows || A->cols != A0->cols || !A->row ||
        memcmp(A->row, A0->row, sizeof *A->row * ((size_t)A0->rows + 1)) != 0 ||
        (nnz && (!A->col || !A->val || memcmp(A->col, A0->col, sizeof *A->col * nnz) != 0)))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg",
                          "update: the matrix (%u x %u, %u nonzeros) does not have the pattern of the hierarchy's "
                          "(%u x %u, %u nonzeros): set up afresh",
                          A->rows, A->cols, A->row ? A->row[A->rows] : 0, A0->rows, A0->cols, nnz);
    for (uint32_t i = 0; i < A->rows; i++)
        for (uint32_t p = A->row[i]; p < A->row[i + 1]; p++)
            if (!isfinite(A->val[p]) || (A->col[p] == i && !(A->val[p] > 0.0)))
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "amg", "update: entry (%u, %u) is %g%s", i,
                                  A->col[p], A->val[p], A->col[p] == i ? " on the diagonal" : "");
    memcpy(amg->L[0].A.val, A->val, sizeof *A->val * nnz);
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t l = 0; l < amg->levels && r == SINEW_RESULT_OK; l++) {
        sinew_amg_level *L = &amg->L[l];
        r = invert_diagonal(L, l, lg);
        if (r != SINEW_RESULT_OK)
            break;
        L->rho = estimate_rho(L, amg->scratch);
        if (l + 1 < amg->levels) {
            sinew_csr_multiply_values(&L->A, &L->P, &L->AP);
            sinew_csr_multiply_values(&L->R, &L->AP, &amg->L[l + 1].A);
        }
    }
    if (r == SINEW_RESULT_OK)
        r = factor_coarsest(amg, lg);
    amg->setup_ms = now_ms() - start;
    return r;
}

void sinew_amg_refresh(sinew_amg *amg)
{
    for (uint32_t l = 0; l < amg->levels; l++) {
        sinew_amg_level *L = &amg->L[l];
        for (uint32_t i = 0; i < L->A.rows; i++) {
            uint32_t at = sinew_csr_find(&L->A, i, i);
            SINEW_ASSERT(at != NONE && L->A.val[at] > 0.0);
            L->inv_diag[i] = 1.0 / L->A.val[at];
        }
        L->rho = estimate_rho(L, amg->scratch);
    }
}

double sinew_amg_operator_complexity(const sinew_amg *amg)
{
    if (!amg->levels || !sinew_csr_nnz(&amg->L[0].A))
        return 0.0;
    double sum = 0.0;
    for (uint32_t l = 0; l < amg->levels; l++)
        sum += sinew_csr_nnz(&amg->L[l].A);
    return sum / sinew_csr_nnz(&amg->L[0].A);
}

double sinew_amg_grid_complexity(const sinew_amg *amg)
{
    if (!amg->levels || !amg->L[0].A.rows)
        return 0.0;
    double sum = 0.0;
    for (uint32_t l = 0; l < amg->levels; l++)
        sum += amg->L[l].A.rows;
    return sum / amg->L[0].A.rows;
}

/* ------------------------------------------------------------ cycle */

/* One smoother application on f from x (x_zero: x is 0, so r = f without a
 * product). r, d: a row each of scratch. Both smoothers are polynomials in
 * D^-1 A, self-adjoint in the A inner product, so the same application before
 * and after the coarse correction keeps the cycle symmetric. */
static void smooth(const sinew_amg_level *L, const sinew_amg_cycle *c, const double *f, double *x, int x_zero,
                   double *r, double *d)
{
    const sinew_csr *A = &L->A;
    const uint32_t n = A->rows;
    const double *dinv = L->inv_diag;
    if (c->smoother == SINEW_AMG_JACOBI) {
        const double w = c->jacobi_weight / L->rho;
        for (uint32_t s = 0; s < c->sweeps; s++) {
            if (x_zero && s == 0)
                memcpy(r, f, sizeof *r * n);
            else
                for (uint32_t i = 0; i < n; i++) {
                    double t = f[i];
                    for (uint32_t p = A->row[i]; p < A->row[i + 1]; p++)
                        t -= A->val[p] * x[A->col[p]];
                    r[i] = t;
                }
            for (uint32_t i = 0; i < n; i++)
                x[i] += w * dinv[i] * r[i];
        }
        return;
    }
    const double a = c->cheby_lower * L->rho, b = c->cheby_upper * L->rho;
    const double theta = 0.5 * (b + a), delta = 0.5 * (b - a), sigma = theta / delta;
    double rho_old = 1.0 / sigma;
    if (x_zero)
        memcpy(r, f, sizeof *r * n);
    else
        for (uint32_t i = 0; i < n; i++) {
            double t = f[i];
            for (uint32_t p = A->row[i]; p < A->row[i + 1]; p++)
                t -= A->val[p] * x[A->col[p]];
            r[i] = t;
        }
    for (uint32_t i = 0; i < n; i++)
        d[i] = dinv[i] * r[i] / theta;
    for (uint32_t k = 1;; k++) {
        for (uint32_t i = 0; i < n; i++)
            x[i] += d[i];
        if (k >= c->sweeps)
            break;
        for (uint32_t i = 0; i < n; i++) {
            double t = r[i];
            for (uint32_t p = A->row[i]; p < A->row[i + 1]; p++)
                t -= A->val[p] * d[A->col[p]];
            r[i] = t;
        }
        const double rho_new = 1.0 / (2.0 * sigma - rho_old);
        const double keep = rho_new * rho_old, push = 2.0 * rho_new / delta;
        for (uint32_t i = 0; i < n; i++)
            d[i] = keep * d[i] + push * dinv[i] * r[i];
        rho_old = rho_new;
    }
}

/* x = V-cycle(l) f from x = 0. Level l's scratch: r, d (its rows), then the
 * next level's right-hand side and solution. */
static void cycle(const sinew_amg *amg, const sinew_amg_cycle *c, uint32_t l, double *scratch, const double *f,
                  double *x)
{
    const sinew_amg_level *L = &amg->L[l];
    const uint32_t n = L->A.rows;
    double *r = scratch, *d = scratch + n;
    memset(x, 0, sizeof *x * n);
    if (l + 1 == amg->levels) {
        if (amg->coarse_factor) {
            memcpy(x, f, sizeof *x * n);
            cholesky_solve(amg->coarse_factor, n, x);
        } else {
            for (uint32_t s = 0; s < c->coarse_sweeps; s++)
                smooth(L, c, f, x, s == 0, r, d);
        }
        return;
    }
    double *f_next = scratch + 2 * (size_t)n, *x_next = scratch + 3 * (size_t)n;
    smooth(L, c, f, x, 1, r, d);
    for (uint32_t i = 0; i < n; i++) {
        double t = f[i];
        for (uint32_t p = L->A.row[i]; p < L->A.row[i + 1]; p++)
            t -= L->A.val[p] * x[L->A.col[p]];
        r[i] = t;
    }
    sinew_csr_spmv(&L->R, r, f_next);
    cycle(amg, c, l + 1, scratch + 4 * (size_t)n, f_next, x_next);
    for (uint32_t i = 0; i < n; i++) {
        double t = 0.0;
        for (uint32_t p = L->P.row[i]; p < L->P.row[i + 1]; p++)
            t += L->P.val[p] * x_next[L->P.col[p]];
        x[i] += t;
    }
    smooth(L, c, f, x, 0, r, d);
}

void sinew_amg_vcycle(const sinew_amg *amg, const sinew_amg_cycle *c, const double *r, double *z)
{
    SINEW_ASSERT(amg != NULL && c != NULL && amg->levels > 0 && amg->scratch != NULL);
    SINEW_ASSERT(c->sweeps >= 1);
    SINEW_ASSERT(c->smoother != SINEW_AMG_JACOBI || (c->jacobi_weight > 0.0 && c->jacobi_weight < 2.0));
    SINEW_ASSERT(c->smoother != SINEW_AMG_CHEBYSHEV || (c->cheby_lower > 0.0 && c->cheby_lower < c->cheby_upper));
    cycle(amg, c, 0, amg->scratch, r, z);
}

void sinew_amg_precondition(void *user, const double *r, double *z)
{
    const sinew_amg_preconditioner *pc = user;
    sinew_amg_vcycle(pc->amg, pc->cycle, r, z);
}

/* ------------------------------------------------------------ CG */

void sinew_jacobi_precondition(void *user, const double *r, double *z)
{
    const sinew_csr *A = user;
    for (uint32_t i = 0; i < A->rows; i++) {
        uint32_t at = sinew_csr_find(A, i, i);
        SINEW_ASSERT(at != NONE);
        z[i] = at != NONE ? r[i] / A->val[at] : r[i];
    }
}

uint32_t sinew_pcg(const sinew_csr *A, const double *b, double *x, sinew_precondition_fn precondition, void *user,
                   double tol, uint32_t max_iterations, double *history, uint32_t history_len, double *final_relative)
{
    SINEW_ASSERT(A != NULL && A->rows == A->cols && b != NULL && x != NULL);
    const uint32_t n = A->rows;
    double *r = malloc(sizeof *r * ((size_t)n + 1) * 4);
    if (!r) {
        if (final_relative)
            *final_relative = NAN;
        return SINEW_PCG_OUT_OF_MEMORY;
    }
    double *z = r + n + 1, *p = z + n + 1, *q = p + n + 1;
    const double bnorm = sqrt(dot(b, b, n));
    uint32_t it = 0;
    double rel = 0.0;
    if (bnorm == 0.0) {
        memset(x, 0, sizeof *x * n);
    } else {
        sinew_csr_spmv(A, x, q);
        for (uint32_t i = 0; i < n; i++)
            r[i] = b[i] - q[i];
        rel = sqrt(dot(r, r, n)) / bnorm;
        if (rel > tol) {
            if (precondition)
                precondition(user, r, z);
            else
                memcpy(z, r, sizeof *z * n);
            memcpy(p, z, sizeof *p * n);
            double rz = dot(r, z, n);
            while (it < max_iterations && rz > 0.0 && isfinite(rz)) {
                sinew_csr_spmv(A, p, q);
                const double pq = dot(p, q, n);
                if (!(pq > 0.0) || !isfinite(pq))
                    break;
                const double alpha = rz / pq;
                for (uint32_t i = 0; i < n; i++) {
                    x[i] += alpha * p[i];
                    r[i] -= alpha * q[i];
                }
                it++;
                rel = sqrt(dot(r, r, n)) / bnorm;
                if (history && it <= history_len)
                    history[it - 1] = rel;
                if (rel <= tol)
                    break;
                if (precondition)
                    precondition(user, r, z);
                else
                    memcpy(z, r, sizeof *z * n);
                const double rz_new = dot(r, z, n), beta = rz_new / rz;
                for (uint32_t i = 0; i < n; i++)
                    p[i] = z[i] + beta * p[i];
                rz = rz_new;
            }
        }
    }
    if (final_relative)
        *final_relative = rel;
    free(r);
    return it;
}
