/* CPU double-precision reference of MGPBD (docs/math.md 6; src/solvers/mgpbd*.c):
 * the constraints (distances; as-rigid-as-possible tetrahedra C = |F - R|_F),
 * their gradients, the dual system A = G M^-1 G^T + alpha~, b = -C -
 * alpha~ lambda, dense, and an outer iteration solved exactly. Written from
 * the equations, not from the kernels, so that the two check each other. */
#ifndef SINEW_MGPBD_REF_H
#define SINEW_MGPBD_REF_H

#include <stdint.h>

#include "asset/asset.h"

typedef struct mgpbd_ref {
    uint32_t n, d, t, m;
    uint32_t *cons;     /* 4 particles per constraint (UINT32_MAX past a distance's two) */
    double *rest;       /* distance: rest length; tetrahedron: Dm^-1 (column-major, 9) */
    double *alpha;      /* compliance per constraint */
    double *w;          /* inverse masses */
} mgpbd_ref;

/* Distances first, then tetrahedra, in the asset's order (as the solver). */
int mgpbd_ref_make(const sinew_asset *a, int distances, int tets, double distance_compliance, double shear_modulus,
                   mgpbd_ref *out);
void mgpbd_ref_free(mgpbd_ref *r);

/* The nearest rotation to F (column-major 3x3): R = U V^T of the rotation-
 * variant SVD (an inverted F's smallest singular value negative). */
void mgpbd_ref_rotation(const double F[9], double R[9]);

/* C of constraint c at positions x (3n) and its gradient at its 4 slots
 * (zero when C <= 1e-12 for a tetrahedron, or for a zero-length distance). */
double mgpbd_ref_constraint(const mgpbd_ref *r, uint32_t c, const double *x, double g[4][3]);

/* A (m x m, row major; NULL: not made) and b at x, lambda, step h. */
void mgpbd_ref_system(const mgpbd_ref *r, const double *x, const double *lambda, double h, double *A, double *b);

/* The outer iteration's system at x, lambda solved exactly (dense
 * Cholesky): dl (m) = A^-1 b. Returns |b|. */
double mgpbd_ref_solve(const mgpbd_ref *r, const double *x, const double *lambda, double h, double *dl);

/* The step t dl from x, lambda: x += t omega M^-1 G^T dl (G at x), lambda +=
 * t dl. */
void mgpbd_ref_step(const mgpbd_ref *r, double *x, double *lambda, const double *dl, double omega, double t);

/* One outer iteration solved exactly (dense Cholesky): x += omega M^-1 G^T dl,
 * lambda += dl. Returns |b| at its start. */
double mgpbd_ref_iterate(const mgpbd_ref *r, double *x, double *lambda, double h, double omega);

/* One XPBD Jacobi sweep: every constraint's dl = b / (sum w |g|^2 + alpha~)
 * from the same x; lambda += dl; x += omega M^-1 G^T dl. */
void mgpbd_ref_xpbd_jacobi(const mgpbd_ref *r, double *x, double *lambda, double h, double omega);

#endif
