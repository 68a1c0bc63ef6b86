/* CPU double-precision reference of the implicit solver's step on a solid of
 * tetrahedra (SINEW_SOLVER_IMPLICIT_PCG; docs/implicit.md, "Solids" and
 * "Integrators"): the specification the GPU's solid step is tested against,
 * and the bench on which its integrators were chosen.
 *
 * A step of h from (x, v) is one Newton step (or more, for comparison) of
 * backward Euler of some h' from some (x', v'), in position form with
 * y = dx - h' v':
 *
 *   x'' = x' + h' v' + y,   v'' = v' + y / h'
 *
 * K = -df/dx, each tetrahedron's Hessian of its energy made positive
 * semi-definite (fem_ref_projected_hessian; or not, for comparison), f the
 * elastic forces, both at the predictor x' + h' v' (or at x', for
 * comparison: f(x' + dx) ~ f(x') - K dx); beta Rayleigh damping (s), its
 * stiffness K_d the projected Hessian without the elements' rotations
 * (fem_ref_damping_hessian; or K, for comparison):
 *
 *   (M + h'^2 K + h' beta K_d) y = h'^2 (f + M g) - h' beta K_d h' v'
 *
 * The integrators:
 *
 *   backward Euler   h' = h from (x, v); the state is (x'', v'')
 *   BDF2             h' = 2h/3 from ((4 x - x_prev) / 3, (4 v - v_prev) / 3)
 *                    (the step before's state), backward Euler when there is
 *                    no step before; the state is (x'', v'')
 *   implicit midpoint  h' = h/2 from (x, v), then the state is
 *                    (2 x'' - x, 2 v'' - v): (x'', v'') is the midpoint
 *
 * Pinned particles (inverse mass 0) stay where they are (their rows and
 * columns filtered out, as the modified PCG does). */
#ifndef SINEW_IMC_SOLID_REF_H
#define SINEW_IMC_SOLID_REF_H

#include <stdint.h>

#include "ref/fem_ref.h"

struct sinew_asset;

typedef enum imc_solid_integrator {
    IMC_SOLID_BACKWARD_EULER,
    IMC_SOLID_BDF2,
    IMC_SOLID_MIDPOINT,
} imc_solid_integrator;

typedef struct imc_solid_options {
    imc_solid_integrator integrator;
    double damping;          /* s, Rayleigh beta */
    double tolerance;        /* each linear solve to |b - A y| <= tolerance |b| */
    uint32_t max_iterations; /* block-Jacobi PCG iterations at most (0: 20 per unknown) */
    uint32_t newton;         /* Newton steps a step (0 or 1: one, the solver's) */
    int exact_hessian;       /* 1: K unprojected (indefinite where the energy is) */
    int predictor;           /* 1: f and K at x' + h' v' (the first Newton step's start); 0: at x' */
    int damp_rotations;      /* 1: Rayleigh damping's K is the stiffness's; 0: without the elements'
                                rotations (fem_ref_damping_hessian), the solver's */
} imc_solid_options;

typedef struct imc_solid_ref imc_solid_ref;

/* A solid of the asset's tetrahedra (its rest data, inverse rest shapes and
 * volumes as stored, in double), masses 1 / w, material m for all; positions
 * start at the asset's, velocities at zero. NULL when out of memory or the
 * asset has elements other than tetrahedra. */
imc_solid_ref *imc_solid_ref_create(const struct sinew_asset *a, const fem_ref_material *m);
void imc_solid_ref_destroy(imc_solid_ref *r);

uint32_t imc_solid_ref_particle_count(const imc_solid_ref *r);
double *imc_solid_ref_positions(imc_solid_ref *r);  /* 3n, writable */
double *imc_solid_ref_velocities(imc_solid_ref *r); /* 3n, writable */
/* Forgets the step before (BDF2's next step is backward Euler), as after
 * writing the state. */
void imc_solid_ref_forget(imc_solid_ref *r);

/* One step of h s under gravity (m/s^2); the linear solves' iterations
 * (all Newton steps) into *iterations when not NULL. */
void imc_solid_ref_step(imc_solid_ref *r, double h, const double gravity[3], const imc_solid_options *o,
                        uint32_t *iterations);

/* Of the free particles: linear momentum (kg m/s), angular momentum about
 * their centre of mass (kg m^2/s), and kinetic and elastic energy (J). */
void imc_solid_ref_momenta(const imc_solid_ref *r, double p[3], double L[3]);
double imc_solid_ref_kinetic(const imc_solid_ref *r);
double imc_solid_ref_elastic(const imc_solid_ref *r);

/* The same measures of any state (x, v: 3n; inverse masses w: n, 0 pinned),
 * for a GPU's read-back. */
void imc_solid_momenta(uint32_t n, const double *x, const double *v, const double *w, double p[3], double L[3]);

#endif
