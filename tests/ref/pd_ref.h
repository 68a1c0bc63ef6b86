/* CPU double-precision reference of projective dynamics for quad mass-spring
 * cloth (docs/math.md 7), following Pall et al., "Fast Quadrangular Mass-Spring
 * Systems using Red-Black Ordering": Verlet prediction, a local step per
 * spring and a matrix-free global step per particle, iterated as red-black
 * Gauss-Seidel, Jacobi, Chebyshev-accelerated Jacobi (Wang 2015) or serial
 * Gauss-Seidel in particle index order. */
#ifndef SINEW_PD_REF_H
#define SINEW_PD_REF_H

#include <stdint.h>

typedef struct pd_ref pd_ref;

typedef struct pd_ref_spring {
    uint32_t i, j;
    double rest;      /* m */
    double stiffness; /* N/m, the weight s_ij of the spring in the global step */
} pd_ref_spring;

typedef enum pd_ref_variant {
    PD_REF_RED_BLACK, /* reds from the current blacks, then blacks from the new reds */
    PD_REF_JACOBI,    /* every particle from the previous iterate */
    PD_REF_CHEBYSHEV, /* Jacobi with Wang's Chebyshev semi-iterative weights */
    PD_REF_SERIAL,    /* Gauss-Seidel in particle index order, latest positions */
} pd_ref_variant;

typedef struct pd_ref_step_params {
    double dt;               /* s */
    double gravity[3];       /* m/s^2 */
    double damping;          /* in [0, 1]: fraction of the Verlet velocity removed per step */
    uint32_t iterations;     /* local/global iterations per step */
    pd_ref_variant variant;
    double rho;              /* Chebyshev: spectral radius estimate of the Jacobi iteration */
    uint32_t delay;          /* Chebyshev: plain Jacobi iterations before acceleration */
} pd_ref_step_params;

/* dt 1/60 s, gravity -9.81 m/s^2 along y, no damping, 16 red-black iterations,
 * rho 0.95 and a delay of 1 for Chebyshev. */
pd_ref_step_params pd_ref_step_params_default(void);

/* Copies every array: positions (3n doubles, m), inverse masses (n, 1/kg;
 * 0 = pinned), springs (count) and colours (n, 0 = red, 1 = black; NULL when
 * the red-black variant will not be used). The positions are x(t) and x(t-h):
 * the body starts at rest. Destroy with pd_ref_destroy. */
pd_ref *pd_ref_create(uint32_t n, const double *positions, const double *inv_mass,
                      uint32_t spring_count, const pd_ref_spring *springs, const uint8_t *colours);
void pd_ref_destroy(pd_ref *r);

/* One time step: Verlet prediction, p.iterations local/global iterations from
 * p = y, then x(t+h) = p with x(t) kept for the next prediction. */
void pd_ref_step(pd_ref *r, const pd_ref_step_params *p);

/* The pieces of pd_ref_step, for tests: pd_ref_begin_step predicts y and sets
 * p = y; each pd_ref_iterate is one local step and one global sweep (the
 * Chebyshev weights count from begin_step); pd_ref_end_step takes x(t+h) = p. */
void pd_ref_begin_step(pd_ref *r, const pd_ref_step_params *p);
void pd_ref_iterate(pd_ref *r, const pd_ref_step_params *p);
void pd_ref_end_step(pd_ref *r);

/* xyz of particle i (3 doubles): the current iterate p during a step, x(t)
 * otherwise. Valid until the next call that changes the state. */
const double *pd_ref_position(const pd_ref *r, uint32_t i);
/* Sets particle i's iterate and x(t) and x(t-h) to xyz (at rest there). */
void pd_ref_set_position(pd_ref *r, uint32_t i, const double xyz[3]);
/* Sum over springs of (|p_i - p_j| - L_ij)^2 (m^2), Pall et al. eq. 7. */
double pd_ref_error(const pd_ref *r);
/* Springs whose two particles have one colour (0 for a valid red-black
 * colouring); all of them when the reference has no colours. */
uint32_t pd_ref_monochrome_springs(const pd_ref *r);

#endif
