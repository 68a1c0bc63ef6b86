/* MGPBD's algebraic multigrid (src/solvers/amg.h): products, hierarchy, CG's gains, lazy update, V-cycle. */
/* Sparse products against dense ones, the hierarchy's invariants, the lazy
 * update, what preconditioned CG gains on a constraint-space system of a real
 * tetrahedral mesh and on a Poisson matrix, and the V-cycle's symmetry. Bad
 * input and Matrix Market files: test_amg_input.c. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg_fixture.h"
#include "prep/mtx.h"
#include "prep/volume.h"
#include "solvers/amg.h"

/* ------------------------------------------------------------ 1. products */

Test(amg, products_match_dense_computation)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        const uint32_t r = 3 + seed % 7, k = 2 + (seed * 5) % 9, c = 1 + (seed * 3) % 8;
        const double fill = seed % 4 == 0 ? 0.05 : 0.35; /* some with empty rows and columns */
        sinew_csr a = random_sparse(r, k, fill, seed), b = random_sparse(k, c, fill, seed + 100), at, ab;
        double *da = to_dense(&a), *db = to_dense(&b);

        cr_assert_eq(sinew_csr_transpose(&a, &at, NULL), SINEW_RESULT_OK);
        cr_assert_eq(at.rows, k);
        cr_assert_eq(at.cols, r);
        assert_sorted(&at);
        double *dat = to_dense(&at);
        for (uint32_t i = 0; i < r; i++)
            for (uint32_t j = 0; j < k; j++)
                cr_assert_eq(dat[j * r + i], da[i * k + j]);

        cr_assert_eq(sinew_csr_multiply(&a, &b, &ab, NULL), SINEW_RESULT_OK);
        cr_assert_eq(ab.rows, r);
        cr_assert_eq(ab.cols, c);
        assert_sorted(&ab);
        double *dab = to_dense(&ab);
        for (uint32_t i = 0; i < r; i++)
            for (uint32_t j = 0; j < c; j++) {
                double s = 0.0, structural = 0.0;
                for (uint32_t q = 0; q < k; q++) {
                    s += da[i * k + q] * db[q * c + j];
                    structural += (da[i * k + q] != 0.0) * (db[q * c + j] != 0.0);
                }
                cr_assert_float_eq(dab[i * c + j], s, 1e-14, "(%u, %u) seed %llu", i, j, (unsigned long long)seed);
                /* Every structural product is in the pattern, and nothing else. */
                int present = 0;
                for (uint32_t p = ab.row[i]; p < ab.row[i + 1]; p++)
                    present |= ab.col[p] == j;
                cr_assert_eq(present, structural > 0, "(%u, %u) pattern", i, j);
            }

        /* Values only, first into the product's own pattern: the same bits. */
        sinew_csr again;
        cr_assert_eq(sinew_csr_copy(&ab, &again, NULL), SINEW_RESULT_OK);
        for (uint32_t p = 0; p < again.row[again.rows]; p++)
            again.val[p] = 12345.0;
        sinew_csr_multiply_values(&a, &b, &again);
        cr_assert_eq(memcmp(again.val, ab.val, sizeof *ab.val * ab.row[ab.rows]), 0);
        /* Then new values of B into a full pattern: the rest becomes 0. */
        for (uint32_t p = 0; p < b.row[b.rows]; p++)
            b.val[p] *= -2.5;
        sinew_csr full;
        cr_assert_eq(sinew_csr_alloc(r, c, r * c, &full, NULL), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < r; i++) {
            for (uint32_t j = 0; j < c; j++)
                full.col[i * c + j] = j, full.val[i * c + j] = NAN;
            full.row[i + 1] = (i + 1) * c;
        }
        sinew_csr_multiply_values(&a, &b, &full);
        for (uint32_t i = 0; i < r; i++)
            for (uint32_t j = 0; j < c; j++)
                cr_assert_float_eq(full.val[i * c + j], -2.5 * dab[i * c + j], 1e-13);

        /* y = A x. */
        double *x = random_vector(k, seed + 7), *y = malloc(sizeof *y * r);
        sinew_csr_spmv(&a, x, y);
        for (uint32_t i = 0; i < r; i++) {
            double s = 0.0;
            for (uint32_t q = 0; q < k; q++)
                s += da[i * k + q] * x[q];
            cr_assert_float_eq(y[i], s, 1e-14);
        }
        free(x);
        free(y);
        free(da);
        free(db);
        free(dat);
        free(dab);
        sinew_csr_free(&a);
        sinew_csr_free(&b);
        sinew_csr_free(&at);
        sinew_csr_free(&ab);
        sinew_csr_free(&again);
        sinew_csr_free(&full);
    }
}

/* ------------------------------------------------------------ 2. hierarchy */

/* Largest eigenvalue of D^-1 A, converged: many power steps, then the
 * Rayleigh quotient in the D inner product. */
static double true_rho(const sinew_csr *A)
{
    const uint32_t n = A->rows;
    double *x = random_vector(n, 4242), *y = malloc(sizeof *y * n), *d = malloc(sizeof *d * n);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t p = A->row[i]; p < A->row[i + 1]; p++)
            if (A->col[p] == i)
                d[i] = A->val[p];
    for (int k = 0; k < 4000; k++) {
        sinew_csr_spmv(A, x, y);
        double top = 0.0;
        for (uint32_t i = 0; i < n; i++)
            top = fmax(top, fabs(y[i] /= d[i]));
        for (uint32_t i = 0; i < n; i++)
            x[i] = y[i] / top;
    }
    sinew_csr_spmv(A, x, y);
    double xax = dot(x, y, n), xdx = 0.0;
    for (uint32_t i = 0; i < n; i++)
        xdx += x[i] * x[i] * d[i];
    free(x);
    free(y);
    free(d);
    return xax / xdx;
}

/* The next level's operator against R A P computed densely. */
static void assert_galerkin(const sinew_amg *amg, uint32_t l)
{
    const sinew_amg_level *L = &amg->L[l];
    const uint32_t n = L->A.rows, c = L->P.cols;
    double *A = to_dense(&L->A), *P = to_dense(&L->P), *R = to_dense(&L->R), *Ac = to_dense(&amg->L[l + 1].A);
    double *AP = calloc((size_t)n * c, sizeof *AP), *RAP = calloc((size_t)c * c, sizeof *RAP);
    cr_assert_eq(L->R.rows, c);
    cr_assert_eq(L->R.cols, n);
    /* Mismatches are counted and asserted once: --full-stats makes each assertion costly. */
    size_t wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < c; j++)
            wrong += R[(size_t)j * n + i] != P[(size_t)i * c + j];
    cr_assert_eq(wrong, 0, "level %u: R is not P^T in %zu entries", l, wrong);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < n; k++)
            if (A[(size_t)i * n + k] != 0.0)
                for (uint32_t j = 0; j < c; j++)
                    AP[(size_t)i * c + j] += A[(size_t)i * n + k] * P[(size_t)k * c + j];
    for (uint32_t i = 0; i < c; i++)
        for (uint32_t k = 0; k < n; k++)
            if (P[(size_t)k * c + i] != 0.0)
                for (uint32_t j = 0; j < c; j++)
                    RAP[(size_t)i * c + j] += P[(size_t)k * c + i] * AP[(size_t)k * c + j];
    const double scale = max_abs(RAP, (size_t)c * c);
    double worst = 0.0;
    for (size_t q = 0; q < (size_t)c * c; q++)
        worst = fmax(worst, fabs(Ac[q] - RAP[q]));
    cr_assert_leq(worst, 1e-12 * scale, "level %u: A_next differs from R A P by %g of %g", l + 1, worst, scale);
    free(A);
    free(P);
    free(R);
    free(Ac);
    free(AP);
    free(RAP);
}

Test(amg, hierarchy_invariants)
{
    tet_problem p;
    sinew_csr A = bracket_matrix(&p, 0.1, 5);
    sinew_amg_options o = sinew_amg_options_default();
    o.strength = 0.25;
    o.coarse_size = 8;
    o.smooth = 0;
    o.candidate_sweeps = 2;
    sinew_amg amg = setup(&A, &o);
    cr_assert_geq(amg.levels, 3, "the bracket should coarsen twice (%u levels)", amg.levels);
    uint32_t isolated = 0;
    for (uint32_t l = 0; l + 1 < amg.levels; l++) {
        const sinew_amg_level *L = &amg.L[l];
        const sinew_csr *M = &L->A, *P = &L->P;
        cr_assert_eq(P->rows, M->rows);
        cr_assert_eq(P->cols, amg.L[l + 1].A.rows);
        double *column_norm = calloc(P->cols, sizeof *column_norm);
        for (uint32_t i = 0; i < M->rows; i++) {
            /* Strong neighbours by the symmetric criterion, recomputed here. */
            double aii = 0.0;
            for (uint32_t q = M->row[i]; q < M->row[i + 1]; q++)
                if (M->col[q] == i)
                    aii = M->val[q];
            int strong = 0;
            for (uint32_t q = M->row[i]; q < M->row[i + 1]; q++) {
                uint32_t j = M->col[q];
                double ajj = 0.0;
                for (uint32_t t = M->row[j]; t < M->row[j + 1]; t++)
                    if (M->col[t] == j)
                        ajj = M->val[t];
                strong |= j != i && M->val[q] != 0.0 && fabs(M->val[q]) >= o.strength * sqrt(aii * ajj);
            }
            const uint32_t entries = P->row[i + 1] - P->row[i];
            if (entries > 1 || entries != (uint32_t)strong)
                cr_assert_fail("level %u row %u: %u entries in an unsmoothed P, strongly connected %d", l, i, entries,
                               strong);
            isolated += !strong;
            if (entries)
                column_norm[P->col[P->row[i]]] += P->val[P->row[i]] * P->val[P->row[i]];
        }
        /* Each aggregate is a unit column of the tentative prolongation. */
        double worst = 0.0;
        for (uint32_t j = 0; j < P->cols; j++)
            worst = fmax(worst, fabs(column_norm[j] - 1.0));
        cr_assert_leq(worst, 1e-12, "level %u: a column of T has squared norm 1 %+g", l, worst);
        free(column_norm);
        assert_galerkin(&amg, l);
    }
    cr_log_info("bracket, unsmoothed, strength %.2f: %u levels (rows %u, %u, %u), %u isolated nodes", o.strength,
                amg.levels, amg.L[0].A.rows, amg.L[1].A.rows, amg.L[2].A.rows, isolated);

    /* Smoothed: the same aggregates and candidate, P = (I - (4/3)/rho D^-1 A) T. */
    o.smooth = 1;
    const sinew_amg_options smoothed_options = o;
    sinew_amg smoothed = setup(&A, &o);
    cr_assert_eq(smoothed.L[0].rho, amg.L[0].rho);
    const uint32_t n = A.rows, c = amg.L[0].P.cols;
    cr_assert_eq(smoothed.L[0].P.cols, c);
    double *T = to_dense(&amg.L[0].P), *Ps = to_dense(&smoothed.L[0].P), *Ad = to_dense(&A);
    const double w = (4.0 / 3.0) / smoothed.L[0].rho;
    double worst = 0.0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < c; j++) {
            double at = 0.0;
            for (uint32_t k = 0; k < n; k++)
                at += Ad[(size_t)i * n + k] * T[(size_t)k * c + j];
            double want = T[(size_t)i * c + j] - w * at / Ad[(size_t)i * n + i];
            worst = fmax(worst, fabs(Ps[(size_t)i * c + j] - want));
        }
    cr_assert_leq(worst, 1e-12, "smoothed P differs from (I - (4/3)/rho D^-1 A) T by %g", worst);
    for (uint32_t l = 0; l + 1 < smoothed.levels; l++)
        assert_galerkin(&smoothed, l);

    /* rho: above the largest eigenvalue of D^-1 A, by at most the safety factor. */
    const double top = true_rho(&A);
    cr_log_info("bracket: rho estimate %.6g, largest eigenvalue of D^-1 A %.6g (ratio %.4f)", amg.L[0].rho, top,
                amg.L[0].rho / top);
    cr_assert_geq(amg.L[0].rho, top * (1.0 - 1e-9));
    cr_assert_leq(amg.L[0].rho, SINEW_AMG_RHO_SAFETY * top * (1.0 + 1e-9));

    /* Poisson on an n x n grid: the largest eigenvalue of D^-1 A is
     * 1 + cos(pi / (n + 1)), in a cluster that power iteration climbs slowly. */
    sinew_csr Q = poisson(64);
    sinew_amg q = setup(&Q, NULL);
    const double exact = 1.0 + cos(acos(-1.0) / 65.0);
    cr_log_info("poisson 64x64: rho estimate %.6g, largest eigenvalue of D^-1 A %.6g (ratio %.4f)", q.L[0].rho, exact,
                q.L[0].rho / exact);
    cr_assert_geq(q.L[0].rho, exact);
    cr_assert_leq(q.L[0].rho, SINEW_AMG_RHO_SAFETY * exact);
    sinew_amg_free(&q);
    /* Too strict a strength: the first coarse level has no strong
     * connection left, and the log says that coarsening stopped there. */
    o = sinew_amg_options_default();
    o.strength = 0.25;
    capture cap;
    sinew_logger lg = capture_logger(&cap);
    cr_assert_eq(sinew_amg_setup(&Q, &o, &q, &lg), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert_eq(q.levels, 2);
    cr_assert_not_null(strstr(cap.text, "level 1: "), "%s", cap.text);
    cr_assert_not_null(strstr(cap.text, "coarsening stops there"), "%s", cap.text);
    cr_assert_null(q.coarse_factor);
    sinew_amg_free(&q);
    sinew_csr_free(&Q);

    /* Deterministic: the same input gives the same bits. */
    o = smoothed_options;
    sinew_amg again = setup(&A, &o);
    cr_assert_eq(again.levels, smoothed.levels);
    for (uint32_t l = 0; l < again.levels; l++) {
        const sinew_csr *x = &again.L[l].A, *y = &smoothed.L[l].A;
        cr_assert_eq(x->rows, y->rows);
        cr_assert_eq(memcmp(x->row, y->row, sizeof *x->row * (x->rows + 1)), 0);
        cr_assert_eq(memcmp(x->col, y->col, sizeof *x->col * x->row[x->rows]), 0);
        cr_assert_eq(memcmp(x->val, y->val, sizeof *x->val * x->row[x->rows]), 0);
        cr_assert_eq(again.L[l].rho, smoothed.L[l].rho);
    }
    free(T);
    free(Ps);
    free(Ad);
    sinew_amg_free(&amg);
    sinew_amg_free(&smoothed);
    sinew_amg_free(&again);
    sinew_csr_free(&A);
    tet_problem_free(&p);
}

/* Every coarse operator's values, and rho per level, for comparisons. */
typedef struct snapshot {
    uint32_t levels;
    double *val[SINEW_AMG_MAX_LEVELS], rho[SINEW_AMG_MAX_LEVELS];
} snapshot;

static snapshot take(const sinew_amg *amg)
{
    snapshot s = {.levels = amg->levels};
    for (uint32_t l = 0; l < amg->levels; l++) {
        const sinew_csr *A = &amg->L[l].A;
        s.val[l] = malloc(sizeof *s.val[l] * (A->row[A->rows] + 1));
        memcpy(s.val[l], A->val, sizeof *s.val[l] * A->row[A->rows]);
        s.rho[l] = amg->L[l].rho;
    }
    return s;
}

static void drop(snapshot *s)
{
    for (uint32_t l = 0; l < s->levels; l++)
        free(s->val[l]);
}

Test(amg, update_reproduces_setup_and_scales)
{
    tet_problem p;
    sinew_csr A = bracket_matrix(&p, 0.1, 5);
    sinew_amg_options o = sinew_amg_options_default();
    o.coarse_size = 8;
    o.strength = 0.25;
    sinew_amg amg = setup(&A, &o);
    cr_assert_geq(amg.levels, 3);
    snapshot before = take(&amg);
    double factor[SINEW_AMG_DENSE_MAX * SINEW_AMG_DENSE_MAX];
    const uint32_t nc = amg.L[amg.levels - 1].A.rows;
    cr_assert_not_null(amg.coarse_factor);
    memcpy(factor, amg.coarse_factor, sizeof *factor * nc * nc);

    /* The same values: the same bits, on every level. */
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_amg_update(&amg, &A, &lg), SINEW_RESULT_OK, "%s", c.text);
    for (uint32_t l = 0; l < amg.levels; l++) {
        cr_assert_eq(memcmp(before.val[l], amg.L[l].A.val, sizeof *before.val[l] * amg.L[l].A.row[amg.L[l].A.rows]), 0,
                     "level %u changed", l);
        cr_assert_eq(before.rho[l], amg.L[l].rho);
    }
    cr_assert_eq(memcmp(factor, amg.coarse_factor, sizeof *factor * nc * nc), 0);

    /* Scaled by s: every coarse operator scales by s (exactly for a power of
     * two), rho does not (D^-1 A is unchanged). */
    const double scales[] = {4.0, 3.0};
    for (int k = 0; k < 2; k++) {
        sinew_csr As;
        cr_assert_eq(sinew_csr_copy(&A, &As, NULL), SINEW_RESULT_OK);
        for (uint32_t q = 0; q < As.row[As.rows]; q++)
            As.val[q] *= scales[k];
        cr_assert_eq(sinew_amg_update(&amg, &As, &lg), SINEW_RESULT_OK, "%s", c.text);
        const double tol = k == 0 ? 0.0 : 1e-13;
        for (uint32_t l = 0; l < amg.levels; l++) {
            const sinew_csr *M = &amg.L[l].A;
            const double big = max_abs(before.val[l], M->row[M->rows]);
            double worst = 0.0;
            for (uint32_t q = 0; q < M->row[M->rows]; q++)
                worst = fmax(worst, fabs(M->val[q] - scales[k] * before.val[l][q]));
            cr_assert_leq(worst, tol * scales[k] * big, "scale %g level %u: off by %g of %g", scales[k], l, worst,
                          scales[k] * big);
            cr_assert_leq(fabs(amg.L[l].rho - before.rho[l]), tol * before.rho[l] * 10, "scale %g level %u rho",
                          scales[k], l);
        }
        sinew_csr_free(&As);
    }
    drop(&before);
    sinew_amg_free(&amg);
    sinew_csr_free(&A);
    tet_problem_free(&p);
}

/* ------------------------------------------------------------ 3. iterations */

typedef struct counts {
    uint32_t cg, jacobi, amg_cheby, amg_jacobi, no_candidate, candidate, unsmoothed;
} counts;

/* Iterations to 1e-6 of plain CG, Jacobi-PCG and AMG-PCG (Chebyshev and
 * Jacobi smoothers, default options), then variants: candidate_sweeps 0 and
 * 4, unsmoothed aggregation. Every run must converge. */
static counts compare(const char *name, const sinew_csr *A, uint32_t max)
{
    counts k;
    double *b = random_vector(A->rows, 77);
    run r = solve(A, b, NULL, NULL, max);
    k.cg = r.iterations;
    cr_assert_lt(r.relative, 1e-5, "%s: CG did not converge (%g)", name, r.relative);
    r = solve(A, b, sinew_jacobi_precondition, (void *)A, max);
    k.jacobi = r.iterations;
    cr_assert_lt(r.relative, 1e-5, "%s: Jacobi-PCG did not converge (%g)", name, r.relative);

    sinew_amg_options o = sinew_amg_options_default();
    sinew_amg amg = setup(A, &o);
    sinew_amg_cycle cheby = sinew_amg_cycle_default(), jac = jacobi_cycle();
    r = solve_amg(A, b, &amg, &cheby, max);
    k.amg_cheby = r.iterations;
    cr_assert_lt(r.relative, 1e-5, "%s: AMG-PCG (Chebyshev) did not converge (%g)", name, r.relative);
    r = solve_amg(A, b, &amg, &jac, max);
    k.amg_jacobi = r.iterations;
    cr_assert_lt(r.relative, 1e-5, "%s: AMG-PCG (Jacobi) did not converge (%g)", name, r.relative);
    char rows[160] = "";
    for (uint32_t l = 0; l < amg.levels; l++)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), "%s%u", l ? " > " : "", amg.L[l].A.rows);
    cr_log_info("%s: %u rows, %u nonzeros; CG %u, Jacobi-PCG %u, AMG-PCG %u (Chebyshev %u) / %u (Jacobi 2+2); "
                "%u levels (%s), operator complexity %.3f, grid complexity %.3f, setup %.2f ms",
                name, A->rows, A->row[A->rows], k.cg, k.jacobi, k.amg_cheby, cheby.sweeps, k.amg_jacobi, amg.levels,
                rows, sinew_amg_operator_complexity(&amg), sinew_amg_grid_complexity(&amg), amg.setup_ms);
    sinew_amg_free(&amg);

    const uint32_t sweeps[2] = {0, 4};
    uint32_t with[2];
    for (int s = 0; s < 2; s++) {
        o = sinew_amg_options_default();
        o.candidate_sweeps = sweeps[s];
        amg = setup(A, &o);
        r = solve_amg(A, b, &amg, &cheby, max);
        cr_assert_lt(r.relative, 1e-5, "%s: candidate sweeps %u: no convergence", name, sweeps[s]);
        with[s] = r.iterations;
        sinew_amg_free(&amg);
    }
    k.no_candidate = with[0];
    k.candidate = with[1];
    o = sinew_amg_options_default();
    o.smooth = 0;
    amg = setup(A, &o);
    r = solve_amg(A, b, &amg, &cheby, max);
    cr_assert_lt(r.relative, 1e-5, "%s: unsmoothed: no convergence", name);
    k.unsmoothed = r.iterations;
    cr_log_info("%s: AMG-PCG (Chebyshev) with candidate_sweeps 0: %u, %u (the default): %u, 4: %u; unsmoothed "
                "aggregation: %u (operator complexity %.3f), smoothed: %u",
                name, k.no_candidate, sinew_amg_options_default().candidate_sweeps, k.amg_cheby, k.candidate,
                k.unsmoothed, sinew_amg_operator_complexity(&amg), k.amg_cheby);
    sinew_amg_free(&amg);
    free(b);
    return k;
}

Test(amg, fewer_iterations_on_a_constraint_space_matrix)
{
    tet_problem p;
    tet_problem_load(&p, SINEW_TEST_DATA_DIR "/bracket-v2.msh");
    /* The constraint gradient against central differences of C. */
    double *x = perturbed(&p, p.v.positions, 0.1, 5);
    for (uint32_t e = 0; e < 8; e++) {
        const uint32_t *t = p.v.tets + 4 * e;
        double g[4][3], gd[4][3];
        volume_constraint(x, t, p.dm_inv + 9 * e, g);
        for (int a = 0; a < 4; a++)
            for (int r = 0; r < 3; r++) {
                const double h = 1e-6 * p.edge, keep = x[3 * t[a] + r];
                x[3 * t[a] + r] = keep + h;
                double cp = volume_constraint(x, t, p.dm_inv + 9 * e, gd);
                x[3 * t[a] + r] = keep - h;
                double cm = volume_constraint(x, t, p.dm_inv + 9 * e, gd);
                x[3 * t[a] + r] = keep;
                cr_assert_float_eq(g[a][r], (cp - cm) / (2 * h), 1e-6 * (1 + fabs(g[a][r])), "tet %u vertex %d", e,
                                   a);
            }
    }
    sinew_csr A = constraint_matrix(&p, x);
    counts k = compare("bracket constraint space", &A, 5000);
    cr_assert_leq(3 * k.amg_cheby, k.jacobi, "AMG-PCG %u vs Jacobi-PCG %u", k.amg_cheby, k.jacobi);
    cr_assert_leq(2 * k.amg_jacobi, k.jacobi, "AMG-PCG (Jacobi) %u vs Jacobi-PCG %u", k.amg_jacobi, k.jacobi);
    sinew_csr_free(&A);
    free(x);
    tet_problem_free(&p);
}

Test(amg, fewer_iterations_on_poisson)
{
    sinew_csr A = poisson(64);
    counts k = compare("poisson 64x64", &A, 5000);
    cr_assert_leq(10 * k.amg_cheby, k.jacobi, "AMG-PCG %u vs Jacobi-PCG %u", k.amg_cheby, k.jacobi);
    cr_assert_leq(10 * k.amg_jacobi, k.jacobi, "AMG-PCG (Jacobi) %u vs Jacobi-PCG %u", k.amg_jacobi, k.jacobi);
    /* Smoothing the prolongation is what makes aggregation work on a Laplacian. */
    cr_assert_lt(k.amg_cheby, k.unsmoothed);
    sinew_csr_free(&A);
}

/* ------------------------------------------------------------ 4. lazy setup */

static void lazy(const char *name, tet_problem *p)
{
    double *x1 = perturbed(p, p->v.positions, 0.1, 5), *x2 = perturbed(p, x1, 0.1, 6);
    sinew_csr A1 = constraint_matrix(p, x1), A2 = constraint_matrix(p, x2);
    cr_assert_eq(memcmp(A1.col, A2.col, sizeof *A1.col * A1.row[A1.rows]), 0);
    double *b = random_vector(A2.rows, 31);
    sinew_amg_cycle c = sinew_amg_cycle_default();
    sinew_amg fresh = setup(&A2, NULL), updated = setup(&A1, NULL), stale = setup(&A1, NULL);
    capture cap;
    sinew_logger lg = capture_logger(&cap);
    cr_assert_eq(sinew_amg_update(&updated, &A2, &lg), SINEW_RESULT_OK, "%s", cap.text);
    run a = solve_amg(&A2, b, &fresh, &c, 5000), u = solve_amg(&A2, b, &updated, &c, 5000),
        s = solve_amg(&A2, b, &stale, &c, 5000);
    cr_log_info("%s, lazy setup: AMG-PCG on A2 with a fresh setup %u, A1's hierarchy updated %u (%.2f ms, setup "
                "%.2f ms), A1's hierarchy stale %u",
                name, a.iterations, u.iterations, updated.setup_ms, fresh.setup_ms, s.iterations);
    cr_assert_lt(a.relative, 1e-5);
    cr_assert_lt(u.relative, 1e-5);
    cr_assert_lt(s.relative, 1e-5);
    cr_assert_leq(u.iterations, (uint32_t)ceil(1.3 * a.iterations), "updated %u vs fresh %u", u.iterations,
                  a.iterations);
    sinew_amg_free(&fresh);
    sinew_amg_free(&updated);
    sinew_amg_free(&stale);
    sinew_csr_free(&A1);
    sinew_csr_free(&A2);
    free(x1);
    free(x2);
    free(b);
}

Test(amg, lazy_update_keeps_the_hierarchy_useful)
{
    tet_problem p;
    tet_problem_load(&p, SINEW_TEST_DATA_DIR "/bracket-v2.msh");
    lazy("bracket", &p);
    tet_problem_free(&p);
    tet_problem_box(&p, 9, 5, 5);
    lazy("box 8x4x4", &p);
    tet_problem_free(&p);
}

/* ------------------------------------------------------------ 6. symmetry */

static void assert_symmetric(const char *name, const sinew_amg *amg, const sinew_amg_cycle *c, uint32_t n)
{
    double worst = 0.0;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        double *u = random_vector(n, seed), *v = random_vector(n, seed + 50), *Mu = malloc(sizeof *Mu * n),
               *Mv = malloc(sizeof *Mv * n);
        sinew_amg_vcycle(amg, c, u, Mu);
        sinew_amg_vcycle(amg, c, v, Mv);
        double uMv = dot(u, Mv, n), vMu = dot(v, Mu, n);
        double scale = sqrt(dot(u, u, n) * dot(Mv, Mv, n)) + sqrt(dot(v, v, n) * dot(Mu, Mu, n));
        worst = fmax(worst, fabs(uMv - vMu) / scale);
        cr_assert_leq(fabs(uMv - vMu), 1e-11 * scale, "%s: u.Mv %.17g, v.Mu %.17g", name, uMv, vMu);
        cr_assert_gt(dot(u, Mu, n), 0.0, "%s: not positive", name);
        free(u);
        free(v);
        free(Mu);
        free(Mv);
    }
    cr_log_info("%s: |u.Mv - v.Mu| / (|u||Mv|) at most %.2e", name, worst);
}

Test(amg, vcycle_is_symmetric)
{
    tet_problem p;
    sinew_csr A = bracket_matrix(&p, 0.1, 5), Q = poisson(64);
    sinew_amg_options o = sinew_amg_options_default();
    o.strength = 0.25;
    o.coarse_size = 8;
    sinew_amg a = setup(&A, &o), q = setup(&Q, NULL);
    cr_assert_geq(a.levels, 3);
    /* Poisson cut at two levels: the coarsest, above SINEW_AMG_DENSE_MAX
     * rows, is smoothed rather than solved. */
    o = sinew_amg_options_default();
    o.max_levels = 2;
    sinew_amg q2 = setup(&Q, &o);
    cr_assert_eq(q2.levels, 2);
    cr_assert_gt(q2.L[1].A.rows, SINEW_AMG_DENSE_MAX);
    cr_assert_null(q2.coarse_factor);
    sinew_amg_cycle cheby = sinew_amg_cycle_default(), jac = jacobi_cycle();
    assert_symmetric("bracket, Chebyshev", &a, &cheby, A.rows);
    assert_symmetric("bracket, Jacobi", &a, &jac, A.rows);
    assert_symmetric("poisson, Chebyshev", &q, &cheby, Q.rows);
    assert_symmetric("poisson, Jacobi", &q, &jac, Q.rows);
    assert_symmetric("poisson two levels, Chebyshev", &q2, &cheby, Q.rows);
    assert_symmetric("poisson two levels, Jacobi", &q2, &jac, Q.rows);
    double *b = random_vector(Q.rows, 8);
    run r = solve_amg(&Q, b, &q2, &cheby, 500);
    cr_assert_lt(r.relative, 1e-5);
    cr_log_info("poisson, two levels with %u coarse Chebyshev applications: %u iterations", cheby.coarse_sweeps,
                r.iterations);
    free(b);
    sinew_amg_free(&a);
    sinew_amg_free(&q);
    sinew_amg_free(&q2);
    sinew_csr_free(&A);
    sinew_csr_free(&Q);
    tet_problem_free(&p);
}

/* One level: the V-cycle is the dense Cholesky solve, and CG needs one step. */
Test(amg, single_level_is_an_exact_solve)
{
    sinew_csr A = poisson(7);
    sinew_amg amg = setup(&A, NULL);
    cr_assert_eq(amg.levels, 1);
    cr_assert_not_null(amg.coarse_factor);
    double *r = random_vector(A.rows, 2), *z = malloc(sizeof *z * A.rows), *Az = malloc(sizeof *Az * A.rows);
    sinew_amg_cycle c = sinew_amg_cycle_default();
    sinew_amg_vcycle(&amg, &c, r, z);
    sinew_csr_spmv(&A, z, Az);
    for (uint32_t i = 0; i < A.rows; i++)
        cr_assert_float_eq(Az[i], r[i], 1e-13);
    run s = solve_amg(&A, r, &amg, &c, 10);
    cr_assert_eq(s.iterations, 1);
    /* b = 0: x = 0 at once. */
    double *x = random_vector(A.rows, 5), rel = -1.0;
    memset(r, 0, sizeof *r * A.rows);
    cr_assert_eq(sinew_pcg(&A, r, x, NULL, NULL, 1e-6, 10, NULL, 0, &rel), 0);
    cr_assert_eq(rel, 0.0);
    cr_assert_eq(max_abs(x, A.rows), 0.0);
    free(x);
    free(r);
    free(z);
    free(Az);
    sinew_amg_free(&amg);
    sinew_csr_free(&A);
}

/* The history holds the relative residual after each iteration, decreasing to tol. */
Test(amg, pcg_history)
{
    sinew_csr A = poisson(20);
    double *b = random_vector(A.rows, 9), *x = calloc(A.rows, sizeof *x), history[64], rel;
    uint32_t it = sinew_pcg(&A, b, x, sinew_jacobi_precondition, &A, 1e-8, 1000, history, 64, &rel);
    cr_assert_gt(it, 5);
    cr_assert_leq(it, 64);
    cr_assert_eq(history[it - 1], rel);
    cr_assert_leq(rel, 1e-8);
    cr_assert_gt(history[it - 2], 1e-8);
    free(b);
    free(x);
    sinew_csr_free(&A);
}
