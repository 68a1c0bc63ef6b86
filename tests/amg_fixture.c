/* The AMG tests' shared parts: logging, vectors and matrices, the constraint-space problem, solving with CG. */
#include <criterion/criterion.h>

#include "amg_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    c->errors += level == SINEW_LOG_ERROR;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s\n", message);
}

sinew_logger capture_logger(capture *c)
{
    memset(c, 0, sizeof *c);
    return (sinew_logger){capture_fn, c, SINEW_LOG_DEBUG};
}

static void ignore(void *user, sinew_log_level level, const char *id, const char *message) {}
const sinew_logger quiet = {ignore, NULL, SINEW_LOG_ERROR};

/* Uniform in [-1, 1). */
static double lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

double *random_vector(uint32_t n, uint64_t seed)
{
    double *v = malloc(sizeof *v * n);
    for (uint32_t i = 0; i < n; i++)
        v[i] = lcg(&seed);
    return v;
}

double dot(const double *x, const double *y, uint32_t n)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* Row-major dense copy. */
double *to_dense(const sinew_csr *a)
{
    double *d = calloc((size_t)a->rows * a->cols + 1, sizeof *d);
    for (uint32_t i = 0; i < a->rows; i++)
        for (uint32_t p = a->row[i]; p < a->row[i + 1]; p++)
            d[(size_t)i * a->cols + a->col[p]] = a->val[p];
    return d;
}

/* A rows x cols matrix keeping each entry with probability `density`. */
sinew_csr random_sparse(uint32_t rows, uint32_t cols, double density, uint64_t seed)
{
    sinew_csr m;
    cr_assert_eq(sinew_csr_alloc(rows, cols, rows * cols, &m, NULL), SINEW_RESULT_OK);
    uint32_t k = 0;
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t j = 0; j < cols; j++)
            if (0.5 * (lcg(&seed) + 1.0) < density) {
                m.col[k] = j;
                m.val[k++] = lcg(&seed);
            }
        m.row[i + 1] = k;
    }
    return m;
}

void assert_sorted(const sinew_csr *m)
{
    for (uint32_t i = 0; i < m->rows; i++)
        for (uint32_t p = m->row[i]; p < m->row[i + 1]; p++) {
            cr_assert_lt(m->col[p], m->cols);
            if (p > m->row[i])
                cr_assert_gt(m->col[p], m->col[p - 1], "row %u not strictly increasing", i);
        }
}

double max_abs(const double *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* 2D 5-point Poisson matrix on an n x n grid, Dirichlet boundary. */
sinew_csr poisson(uint32_t n)
{
    sinew_csr A;
    cr_assert_eq(sinew_csr_alloc(n * n, n * n, 5 * n * n, &A, NULL), SINEW_RESULT_OK);
    uint32_t k = 0;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            uint32_t i = y * n + x;
            if (y > 0)
                A.col[k] = i - n, A.val[k++] = -1.0;
            if (x > 0)
                A.col[k] = i - 1, A.val[k++] = -1.0;
            A.col[k] = i, A.val[k++] = 4.0;
            if (x + 1 < n)
                A.col[k] = i + 1, A.val[k++] = -1.0;
            if (y + 1 < n)
                A.col[k] = i + n, A.val[k++] = -1.0;
            A.row[i + 1] = k;
        }
    return A;
}

/* ------------------------------------------------------------ constraint space */

/* The material and time step of the constraint-space problem. */
static const double density = 1000.0, mu = 1e9, step = 0.01;

static double det3(const double m[9])
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* Edge matrix: column k is p_{k+1} - p_0. */
static void edges(const double *x, const uint32_t *t, double D[9])
{
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < 3; r++)
            D[3 * r + k] = x[3 * t[k + 1] + r] - x[3 * t[0] + r];
}

/* C = det(F) - 1 and its gradient: dC/dDs = cof(F) Dm^-T, whose column k is
 * the gradient at vertex k + 1; vertex 0 gets minus their sum, as Ds holds
 * differences from it. cof(F)'s columns are f1 x f2, f2 x f0, f0 x f1 for
 * F's columns f0 f1 f2 (the derivatives of det F = f0 . (f1 x f2)). */
double volume_constraint(const double *x, const uint32_t *t, const double Dminv[9], double g[4][3])
{
    double Ds[9], F[9], cof[9];
    edges(x, t, Ds);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            F[3 * r + c] = Ds[3 * r] * Dminv[c] + Ds[3 * r + 1] * Dminv[3 + c] + Ds[3 * r + 2] * Dminv[6 + c];
    for (int c = 0; c < 3; c++) {
        int a = (c + 1) % 3, b = (c + 2) % 3;
        cof[0 + c] = F[3 * 1 + a] * F[3 * 2 + b] - F[3 * 2 + a] * F[3 * 1 + b];
        cof[3 + c] = F[3 * 2 + a] * F[3 * 0 + b] - F[3 * 0 + a] * F[3 * 2 + b];
        cof[6 + c] = F[3 * 0 + a] * F[3 * 1 + b] - F[3 * 1 + a] * F[3 * 0 + b];
    }
    for (int r = 0; r < 3; r++)
        g[0][r] = 0.0;
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < 3; r++) {
            /* (cof(F) Dm^-T)[r][k] = sum_j cof[r][j] Dminv[k][j] */
            double h = cof[3 * r] * Dminv[3 * k] + cof[3 * r + 1] * Dminv[3 * k + 1] + cof[3 * r + 2] * Dminv[3 * k + 2];
            g[k + 1][r] = h;
            g[0][r] -= h;
        }
    return det3(F) - 1.0;
}

static void invert3(const double m[9], double out[9])
{
    double d = det3(m);
    out[0] = (m[4] * m[8] - m[5] * m[7]) / d;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / d;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / d;
    out[3] = (m[5] * m[6] - m[3] * m[8]) / d;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / d;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / d;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / d;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / d;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / d;
}

/* Lumped masses (a quarter of each tetrahedron's), Dm^-1, compliances. */
static void tet_problem_init(tet_problem *p)
{
    const sinew_volume *v = &p->v;
    p->inv_mass = calloc(v->vertex_count, sizeof *p->inv_mass);
    p->dm_inv = malloc(sizeof *p->dm_inv * 9 * v->tet_count);
    p->alpha = malloc(sizeof *p->alpha * v->tet_count);
    double edge_sum = 0.0;
    for (uint32_t e = 0; e < v->tet_count; e++) {
        const uint32_t *t = v->tets + 4 * e;
        double Dm[9];
        edges(v->positions, t, Dm);
        double V = fabs(det3(Dm)) / 6.0;
        cr_assert_gt(V, 0.0);
        invert3(Dm, p->dm_inv + 9 * e);
        p->alpha[e] = 1.0 / (mu * V * step * step);
        for (int k = 0; k < 4; k++)
            p->inv_mass[t[k]] += density * V / 4.0;
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++) {
                double d2 = 0.0;
                for (int r = 0; r < 3; r++) {
                    double d = v->positions[3 * t[a] + r] - v->positions[3 * t[b] + r];
                    d2 += d * d;
                }
                edge_sum += sqrt(d2);
            }
    }
    p->edge = edge_sum / (6.0 * v->tet_count);
    for (uint32_t i = 0; i < v->vertex_count; i++) {
        cr_assert_gt(p->inv_mass[i], 0.0, "vertex %u in no tetrahedron", i);
        p->inv_mass[i] = 1.0 / p->inv_mass[i];
    }
}

void tet_problem_load(tet_problem *p, const char *path)
{
    memset(p, 0, sizeof *p);
    cr_assert_eq(sinew_volume_read(path, &quiet, &p->v), SINEW_RESULT_OK, "%s", path);
    tet_problem_init(p);
}

void tet_problem_box(tet_problem *p, uint32_t nx, uint32_t ny, uint32_t nz)
{
    memset(p, 0, sizeof *p);
    const double size[3] = {1.0, 0.5, 0.5};
    cr_assert_eq(sinew_volume_box(nx, ny, nz, size, NULL, &p->v), SINEW_RESULT_OK);
    tet_problem_init(p);
}

void tet_problem_free(tet_problem *p)
{
    sinew_volume_free(&p->v);
    free(p->inv_mass);
    free(p->dm_inv);
    free(p->alpha);
}

/* The rest positions moved by a pseudo-random amount times the mean edge length. */
double *perturbed(const tet_problem *p, const double *from, double amount, uint64_t seed)
{
    const uint32_t n = 3 * p->v.vertex_count;
    double *x = malloc(sizeof *x * n);
    for (uint32_t i = 0; i < n; i++)
        x[i] = from[i] + amount * p->edge * lcg(&seed);
    return x;
}

/* A = K K^T + alpha~ with K = G M^-1/2, which makes A exactly symmetric:
 * both triangles sum the same products in the same order. */
sinew_csr constraint_matrix(const tet_problem *p, const double *x)
{
    const uint32_t m = p->v.tet_count;
    sinew_csr K, Kt, A;
    cr_assert_eq(sinew_csr_alloc(m, 3 * p->v.vertex_count, 12 * m, &K, NULL), SINEW_RESULT_OK);
    for (uint32_t e = 0; e < m; e++) {
        const uint32_t *t = p->v.tets + 4 * e;
        double g[4][3];
        volume_constraint(x, t, p->dm_inv + 9 * e, g);
        uint32_t order[4] = {0, 1, 2, 3};
        for (int a = 1; a < 4; a++)
            for (int b = a; b > 0 && t[order[b]] < t[order[b - 1]]; b--) {
                uint32_t s = order[b];
                order[b] = order[b - 1];
                order[b - 1] = s;
            }
        for (int a = 0; a < 4; a++)
            for (int r = 0; r < 3; r++) {
                uint32_t q = 12 * e + 3 * a + r, vtx = t[order[a]];
                K.col[q] = 3 * vtx + r;
                K.val[q] = g[order[a]][r] * sqrt(p->inv_mass[vtx]);
            }
        K.row[e + 1] = 12 * (e + 1);
    }
    cr_assert_eq(sinew_csr_transpose(&K, &Kt, NULL), SINEW_RESULT_OK);
    cr_assert_eq(sinew_csr_multiply(&K, &Kt, &A, NULL), SINEW_RESULT_OK);
    for (uint32_t e = 0; e < m; e++) {
        uint32_t p0 = A.row[e];
        while (A.col[p0] != e)
            p0++;
        A.val[p0] += p->alpha[e];
    }
    sinew_csr_free(&K);
    sinew_csr_free(&Kt);
    return A;
}

/* ------------------------------------------------------------ solving */

run solve(const sinew_csr *A, const double *b, sinew_precondition_fn fn, void *user, uint32_t max)
{
    const uint32_t n = A->rows;
    double *x = calloc(n, sizeof *x), *Ax = malloc(sizeof *Ax * n), rel;
    run r;
    r.iterations = sinew_pcg(A, b, x, fn, user, 1e-6, max, NULL, 0, &rel);
    cr_assert_neq(r.iterations, SINEW_PCG_OUT_OF_MEMORY);
    sinew_csr_spmv(A, x, Ax);
    double e = 0.0;
    for (uint32_t i = 0; i < n; i++)
        e += (b[i] - Ax[i]) * (b[i] - Ax[i]);
    r.relative = sqrt(e / dot(b, b, n));
    free(x);
    free(Ax);
    return r;
}

run solve_amg(const sinew_csr *A, const double *b, const sinew_amg *amg, const sinew_amg_cycle *c, uint32_t max)
{
    sinew_amg_preconditioner pc = {amg, c};
    return solve(A, b, sinew_amg_precondition, &pc, max);
}

sinew_amg setup(const sinew_csr *A, const sinew_amg_options *o)
{
    sinew_amg amg;
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_amg_setup(A, o, &amg, &lg), SINEW_RESULT_OK, "%s", c.text);
    return amg;
}

sinew_amg_cycle jacobi_cycle(void)
{
    sinew_amg_cycle c = sinew_amg_cycle_default();
    c.smoother = SINEW_AMG_JACOBI;
    c.sweeps = 2;
    return c;
}


/* The constraint-space matrix of bracket-v2.msh, its rest shape perturbed. */
sinew_csr bracket_matrix(tet_problem *p, double amount, uint64_t seed)
{
    tet_problem_load(p, SINEW_TEST_DATA_DIR "/bracket-v2.msh");
    double *x = perturbed(p, p->v.positions, amount, seed);
    sinew_csr A = constraint_matrix(p, x);
    free(x);
    return A;
}
