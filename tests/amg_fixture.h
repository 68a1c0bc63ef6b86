/* What the AMG tests share: logging, vectors and matrices, the constraint-space problem, solving with CG. */
#ifndef SINEW_AMG_FIXTURE_H
#define SINEW_AMG_FIXTURE_H

#include "prep/volume.h"
#include "solvers/amg.h"

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ logging */

typedef struct capture {
    char text[8192];
    int errors;
} capture;

sinew_logger capture_logger(capture *c);
extern const sinew_logger quiet;

/* ------------------------------------------------------------ vectors and matrices */

/* n values uniform in [-1, 1), from seed. */
double *random_vector(uint32_t n, uint64_t seed);
double dot(const double *x, const double *y, uint32_t n);
/* Row-major dense copy. */
double *to_dense(const sinew_csr *a);
/* A rows x cols matrix keeping each entry with probability `density`. */
sinew_csr random_sparse(uint32_t rows, uint32_t cols, double density, uint64_t seed);
void assert_sorted(const sinew_csr *m);
double max_abs(const double *x, size_t n);
/* 2D 5-point Poisson matrix on an n x n grid, Dirichlet boundary. */
sinew_csr poisson(uint32_t n);

/* ------------------------------------------------------------ constraint space */

/* MGPBD's system for one volume constraint per tetrahedron,
 * C_e = det(F) - 1 with F = Ds Dm^-1:  A = G M^-1 G^T + alpha~. */
typedef struct tet_problem {
    sinew_volume v;
    double *inv_mass;   /* per vertex, 1/kg */
    double *dm_inv;     /* 9 per tetrahedron, row-major */
    double *alpha;      /* alpha~_e = 1 / (mu V_e h^2) */
    double edge;        /* mean edge length, m */
} tet_problem;

/* C = det(F) - 1 of tetrahedron t at positions x, and its gradient at the four vertices. */
double volume_constraint(const double *x, const uint32_t *t, const double Dminv[9], double g[4][3]);
void tet_problem_load(tet_problem *p, const char *path);
void tet_problem_box(tet_problem *p, uint32_t nx, uint32_t ny, uint32_t nz);
void tet_problem_free(tet_problem *p);
/* The rest positions moved by a pseudo-random amount times the mean edge length. */
double *perturbed(const tet_problem *p, const double *from, double amount, uint64_t seed);
/* A = K K^T + alpha~ with K = G M^-1/2, exactly symmetric. */
sinew_csr constraint_matrix(const tet_problem *p, const double *x);
/* The constraint-space matrix of bracket-v2.msh, its rest shape perturbed. */
sinew_csr bracket_matrix(tet_problem *p, double amount, uint64_t seed);

/* ------------------------------------------------------------ solving */

typedef struct run {
    uint32_t iterations;
    double relative;    /* |b - A x| / |b|, recomputed */
} run;

run solve(const sinew_csr *A, const double *b, sinew_precondition_fn fn, void *user, uint32_t max);
run solve_amg(const sinew_csr *A, const double *b, const sinew_amg *amg, const sinew_amg_cycle *c, uint32_t max);
/* The hierarchy of A, its setup required to succeed. */
sinew_amg setup(const sinew_csr *A, const sinew_amg_options *o);
sinew_amg_cycle jacobi_cycle(void);

#endif
