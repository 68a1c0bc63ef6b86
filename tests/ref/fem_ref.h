/* CPU double-precision static equilibrium of a tetrahedral solid
 * (docs/math.md 3, the materials' energies): minimises
 *     sum over tetrahedra of V0 Psi(F) - f . x
 * over the free vertices by Newton's method with a backtracking line search,
 * the tangent assembled per element and the linear system solved by
 * block-Jacobi preconditioned CG. It answers "where does this body come to
 * rest?" to round-off, independently of any solver of the library, so that
 * the solvers' resting shapes and the materials' parameters can be checked
 * against it. Rest shapes, Dm^-1 and volumes are computed here in double from
 * the rest positions given. */
#ifndef SINEW_FEM_REF_H
#define SINEW_FEM_REF_H

#include <stdint.h>

#include "shared/layout.h"

typedef enum fem_ref_model {
    FEM_REF_NEO_HOOKEAN,        /* mu/2 (I_C - 3) - mu ln J + lambda/2 (ln J)^2 */
    FEM_REF_STABLE_NEO_HOOKEAN, /* mu/2 (I_C - 3) + lambda/2 (J - a)^2 - mu/2 ln(I_C + 1) */
    FEM_REF_LINEAR,             /* mu eps:eps + lambda/2 (tr eps)^2, eps = sym(F) - I */
} fem_ref_model;

typedef struct fem_ref_material {
    fem_ref_model model;
    double mu, lambda; /* Pa: the energy's own parameters */
    double a;          /* stable neo-Hookean's rest offset; unused otherwise */
} fem_ref_material;

/* The device's parameters of a neo-Hookean or stable neo-Hookean material
 * (what sinew_gpbd_material made of the user's E and nu). */
fem_ref_material fem_ref_material_device(const GpuMaterial *m);
/* Linear elasticity with the Lame parameters of Young's modulus E (Pa) and
 * Poisson's ratio nu. */
fem_ref_material fem_ref_material_linear(double E, double nu);

typedef struct fem_ref_problem {
    uint32_t vertex_count;
    const double *rest;          /* 3 per vertex, m */
    uint32_t tet_count;
    const uint32_t *tets;        /* 4 per tetrahedron, positively oriented at rest */
    const fem_ref_material *materials;
    const uint32_t *material_of; /* per tetrahedron; NULL: materials[0] for all */
    const double *force;         /* 3 per vertex, N; NULL: none */
    const unsigned char *pinned; /* per vertex, non-zero stays where x starts; NULL: none */
    const unsigned char *held;   /* per vertex, bit a set: coordinate a stays where x starts (a vertex on
                                    a frictionless plane); NULL: none */
} fem_ref_problem;

typedef struct fem_ref_stats {
    int newton_iterations;
    int cg_iterations;  /* all Newton steps together */
    double gradient0;   /* |gradient| over the free vertices at the start, N */
    double gradient;    /* ... at the end */
    double energy;      /* J, at the end */
} fem_ref_stats;

/* Solves from x (3 per vertex; the rest shape is a good start) until the
 * free vertices' net force is at most tolerance times the external forces'
 * norm (or than 1 N without forces), in at most max_newton Newton steps.
 * Returns 1 when converged, 0 otherwise (x holds the last iterate), -1 on a
 * rest shape with a tetrahedron of no volume or negative orientation. */
int fem_ref_solve(const fem_ref_problem *p, double tolerance, int max_newton, double *x, fem_ref_stats *stats);

/* The static displacement (3 per particle, into u) of a body made of an
 * asset's tetrahedra (one material, `m`), its pins (inverse mass 0) held,
 * loaded by gravity g (m/s^2) on its particles' masses: fem_ref_solve from
 * the rest shape to `tolerance`. Returns fem_ref_solve's result (-1 also
 * when out of memory or the asset has elements other than tetrahedra). */
struct sinew_asset;
int fem_ref_asset_displacement(const struct sinew_asset *a, const fem_ref_material *m, const double g[3],
                               double tolerance, int max_newton, double *u, fem_ref_stats *stats);

/* Total elastic energy plus potential of the forces at x (+inf where a
 * neo-Hookean tetrahedron is inverted), and the net force on each vertex
 * (-gradient; pinned vertices included) into force_out when not NULL. */
double fem_ref_energy(const fem_ref_problem *p, const double *x, double *force_out);

/* The energy density Psi(F) of a material (J/m^3; +inf where a neo-Hookean
 * F is inverted), F as below. */
double fem_ref_psi(const fem_ref_material *m, const double F[9]);

/* The first Piola stress dPsi/dF of a material at F (9, column-major:
 * F[3 c + r] row r, column c). */
void fem_ref_stress(const fem_ref_material *m, const double F[9], double P[9]);

/* The Hessian d^2 Psi / dF^2 at F, central differences of the stress,
 * symmetrised: H[9 i + k], i and k indices of F as above. */
void fem_ref_hessian(const fem_ref_material *m, const double F[9], double H[81]);

/* The Hessian d^2 Psi / dF^2 at F (central differences of the stress,
 * symmetrised) made positive semi-definite by a full eigen-decomposition
 * with its negative eigenvalues set to 0: H[9 i + k], i and k indices of F as
 * above. Returns how many eigenvalues were negative. What the implicit solvers' stiffness of a tetrahedron is (their
 * analytic eigensystem, shaders/fem.glsl), computed the long way. */
int fem_ref_projected_hessian(const fem_ref_material *m, const double F[9], double H[81]);

/* Rayleigh damping's stiffness of the implicit solvers (docs/implicit.md,
 * "Integrators"): the projected Hessian (above) with the infinitesimal
 * rotations of F, W F for every skew W, projected out on both sides,
 * (I - Q Q^T) H (I - Q Q^T) with Q an orthonormal basis of them, so that a
 * rigid rotation is not damped. H as above. */
void fem_ref_damping_hessian(const fem_ref_material *m, const double F[9], double H[81]);

#endif
