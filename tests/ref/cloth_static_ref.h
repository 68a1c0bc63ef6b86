/* CPU double-precision reference: the static equilibrium of a body of
 * distance constraints and bending hinges under gravity, for the energy
 * sum C^2 / (2 alpha) of docs/math.md section 9 (distances C = |xa - xb| - L,
 * hinges C = theta - theta0), pinned particles (inverse mass 0) held. Solved
 * by Newton's method on the full Hessian, taken by central differences of
 * the analytic gradient and factored densely (Cholesky, shifted until
 * positive definite), with a backtracking line search on the energy: a
 * different Hessian and solver from the library's estimate
 * (src/body_error.c), for bodies of up to a few hundred particles. */
#ifndef SINEW_CLOTH_STATIC_REF_H
#define SINEW_CLOTH_STATIC_REF_H

#include "asset/asset.h"

/* alpha: compliance of stretch (distance kind 0), shear (kind 1) and
 * bending; x: 3 doubles a particle, the start on entry (pinned particles
 * where they are held), the equilibrium on return. Returns the Newton
 * iterations taken, or -1 when the gradient did not fall below tolerance
 * times the weight within max_iterations. */
int cloth_static_ref_solve(const sinew_asset *a, const double alpha[3], const double gravity[3], double tolerance,
                           int max_iterations, double *x);

#endif
