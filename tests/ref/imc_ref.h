/* CPU double-precision reference of implicit cloth solved by constrainable
 * multigrid (Jeon et al. 2013; docs/math.md 5), on a nested hierarchy
 * (src/prep/nested.h). The specification the GPU solver is tested against.
 *
 * One step (backward Euler, position form; K = -df/dx, Gauss-Newton where the
 * exact Hessian is indefinite; Rayleigh damping -df/dv = beta K):
 *
 *   A dx = b,   A = M + (h beta + h^2) K + h^2 D,   b = h M v + h^2 (f + D d)
 *
 * Energies, per unit rest area of each triangle (w_u, w_v the deformation
 * gradient's columns) and per hinge:
 *
 *   stretch  1/2 k_stretch a ((|w_u| - 1)^2 + (|w_v| - 1)^2)
 *   shear    1/2 k_shear a (w_u . w_v)^2
 *   bend     1/2 k_bend (3 |e|^2 / (a_1 + a_2)) (theta - theta_rest)^2
 *
 * Soft constraints: D_i (3 x 3, symmetric PSD) and target displacement d_i per
 * particle of the finest level. Coarse levels are discretised again on their
 * own triangles (rest shape: the same vertices' rest positions; masses from
 * their areas; Jacobians at the same vertices' current positions), and
 * D_c,i = D_i + 1/2 sum of D_m over the midpoints m whose parent i is (its
 * one-ring on the finer level). Transfers: nested.h's full weighting and
 * linear interpolation.
 */
#ifndef SINEW_IMC_REF_H
#define SINEW_IMC_REF_H

#include <stdint.h>

#include "prep/nested.h"

typedef struct imc_material {
    double stretch;   /* N/m */
    double shear;     /* N/m */
    double bend;      /* N m */
    double damping;   /* s, Rayleigh beta */
    double density;   /* kg/m^2 */
} imc_material;

/* A 3x3 block sparse symmetric matrix, rows of blocks by column. */
typedef struct imc_matrix {
    uint32_t n;            /* block rows */
    uint32_t *row;         /* n + 1 */
    uint32_t *col;         /* row[n] */
    uint32_t *diag;        /* n: index of the diagonal block */
    double *val;           /* 9 per block, row major */
} imc_matrix;

typedef struct imc_stats {
    uint32_t iterations;      /* V-cycles or PCG iterations */
    double residual0;         /* |b| */
    double residual;          /* |b - A dx| at the end */
    double history[256];      /* relative residual after each iteration (first 256) */
} imc_stats;

typedef struct imc_ref imc_ref;

/* Uses levels [first_level, nested->level_count) of the hierarchy (the
 * finest is the last); the hierarchy is borrowed for the reference's life.
 * Positions start at the hierarchy's, which are also the rest shape. */
imc_ref *imc_ref_create(const sinew_nested *nested, uint32_t first_level, const imc_material *m);
/* The same with the material frames given: warp[k] (borrowed for the call)
 * holds level first_level + k's triangles' warps (u), 3 per triangle in the
 * level's order, each projected on its triangle's rest plane; a NULL level,
 * or a triangle's (0, 0, 0), takes the projection of imc_ref_create (world
 * x on the plane, world z where x is within 0.1 rad of the normal). The
 * weft is n x u. */
imc_ref *imc_ref_create_framed(const sinew_nested *nested, uint32_t first_level, const imc_material *m,
                               const double *const *warp);
void imc_ref_destroy(imc_ref *r);

uint32_t imc_ref_particle_count(const imc_ref *r);  /* of the finest level */
uint32_t imc_ref_level_count(const imc_ref *r);
double *imc_ref_positions(imc_ref *r);              /* 3n, writable */
double *imc_ref_velocities(imc_ref *r);             /* 3n, writable */

/* Soft constraint of particle i: D (9, symmetric) and target displacement d
 * (3) for the next step. Zero D frees it. */
void imc_ref_set_constraint(imc_ref *r, uint32_t i, const double D[9], const double d[3]);
void imc_ref_point_constraint(double k_c, double D[9]);
void imc_ref_sliding_constraint(double k_c, double k_f, const double normal[3], double D[9]);

/* Coarse operators by Galerkin products P^T A P instead (a comparison). */
void imc_ref_set_galerkin(imc_ref *r, int on);

/* Builds A on every level and b on the finest for a step of h seconds
 * (gravity: m/s^2). */
void imc_ref_assemble(imc_ref *r, double h, const double gravity[3]);

/* After assemble: the finest level's matrix (level_count - 1) or a coarser
 * one, and the right-hand side. */
const imc_matrix *imc_ref_matrix(const imc_ref *r, uint32_t level);
const double *imc_ref_rhs(const imc_ref *r);

/* Elastic energy and forces (3n) of the finest level at its positions. */
double imc_ref_energy(const imc_ref *r);
void imc_ref_forces(const imc_ref *r, double *f);

/* y = A x on a level. */
void imc_ref_spmv(const imc_matrix *A, const double *x, double *y);

/* Solves A dx = b (dx: 3n, in: the initial guess) by V-cycles until
 * |b - A dx| <= tol |b| or max_cycles; pre and post smoothing counts (the
 * paper: 5 block-Jacobi PCG iterations down, 10 coloured block Gauss-Seidel
 * sweeps up), the coarsest level by block-Jacobi PCG to 1e-10. */
void imc_ref_solve_mg(imc_ref *r, double *dx, double tol, uint32_t max_cycles, uint32_t pre, uint32_t post,
                      imc_stats *stats);

/* The baseline: block-Jacobi preconditioned CG on the finest level. */
void imc_ref_solve_pcg(imc_ref *r, double *dx, double tol, uint32_t max_iterations, imc_stats *stats);

/* Applies a solution: x += dx, v = dx / h. */
void imc_ref_advance(imc_ref *r, const double *dx, double h);

#endif
