/* CPU double-precision reference of one Generalized PBD element update
 * (docs/math.md 3, docs/gpbd.md): the same algorithm as shaders/gpbd.glsl, written
 * independently, in double. Elements and materials are the device records, so
 * the reference and the kernels solve exactly the same problem. */
#ifndef SINEW_GPBD_REF_H
#define SINEW_GPBD_REF_H

#include <stdint.h>

#include "shared/layout.h"

typedef struct gpbd_ref_stats {
    int newton_iterations;  /* Newton steps taken */
    int flipped;            /* the tetrahedron was inverted (or flat) and was flipped first */
    double grad0, grad;     /* |gradient| of the objective at the start and at the end */
} gpbd_ref_stats;

/* Updates element e once: x (positions of its vertices), z (its displacement
 * at each vertex) in place; w are the vertices' inverse masses, h the substep.
 * Returns the vertex displacements in dx (what Jacobi averages). */
void gpbd_ref_update(const GpuElement *e, const GpuMaterial *m, double h, int max_newton, double tol,
                     double x[4][3], const double w[4], double z[4][3], double dx[4][3], gpbd_ref_stats *st);

/* Energy density Psi of the tetrahedron/triangle model at deformation
 * gradient F (3x3 column-major; triangles use the first two columns); +inf
 * where undefined (neo-Hookean with J <= 0). */
double gpbd_ref_energy(const GpuMaterial *m, int kind, const double F[9]);

/* The objective of one update as a function of the strain-space step dy
 * (docs/math.md 3), its gradient (k entries) and Hessian (k x k), for tests. k = 6 (tet), 3
 * (triangle) or 1 (spring). */
int gpbd_ref_dimension(const GpuElement *e);
double gpbd_ref_objective(const GpuElement *e, const GpuMaterial *m, double h, const double x[4][3],
                          const double w[4], const double z[4][3], const double *dy, double *grad,
                          double hess[6][6]);

/* Eigenvectors (columns of V, column-major, a proper rotation) and
 * eigenvalues, decreasing, of a symmetric 3x3 S by cyclic Jacobi rotations. */
void gpbd_ref_eigen_sym3(const double S[9], double V[9], double ev[3]);

#endif
