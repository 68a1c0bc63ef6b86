/* Set 1 of projective dynamics (the PD solvers, Pall et al.; src/solvers/pd.c).
 * Included by C and GLSL (pd.glsl).
 *
 *   Q         [n] vec4     the prediction y of the substep
 *   DELTA     [d (+ n (+ n))] vec4  the local solution d_c of spring
 *                          (distance constraint) c, pointing from its b to its
 *                          a; then the Jacobi iterate of particle i at d + i and
 *                          its previous iterate at d + n + i (Chebyshev)
 *   ADJ_START [n + 1] uint each particle's springs in ADJ
 *   ADJ       [2d] uint    the Jacobi slots: 2c where the particle is spring
 *                          c's a, 2c + 1 where it is its b
 *   ORDER     [n] uint     red-black: the red particles, then the black ones
 *
 * A spring's stiffness is 1/compliance.
 */
#ifndef SINEW_SHADER_PD_H
#define SINEW_SHADER_PD_H

#define SINEW_PD_Q 0
#define SINEW_PD_DELTA 1
#define SINEW_PD_ADJ_START 2
#define SINEW_PD_ADJ 3
#define SINEW_PD_ORDER 4
#define SINEW_PD_BINDINGS 5

#endif
