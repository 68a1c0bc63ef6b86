/* Implicit cloth with constrainable multigrid on the GPU (docs/implicit.md):
 * the levels of an asset's multigrid sections laid out in MG_INDEX and
 * MG_REAL, and the kernels' operations on them. Internal: the building
 * blocks of the solver, tested against tests/ref/imc_ref.c. */
#ifndef SINEW_IMC_H
#define SINEW_IMC_H

#include "../asset/asset.h"
#include "../gpu/gpu.h"

typedef struct sinew_imc_material {
    double stretch, shear, bend; /* N/m, N/m, N m */
    double damping;              /* s, Rayleigh beta */
    double density;              /* kg/m^2 */
} sinew_imc_material;

typedef struct sinew_imc sinew_imc;

/* The material frame's warp of every triangle (src/solvers/imc_frame.c):
 * from the render mesh's UVs, the unit rest-plane direction along which u
 * grows; (0, 0, 0) where a triangle has none (no render mesh, no UVs,
 * degenerate UVs, particles no render triangle matches), which then takes
 * the projection (world x on its plane). 3 doubles per triangle, the levels'
 * triangles one level after another, coarsest first (the finest: the asset's
 * own; an asset without levels: its triangles alone). *found counts the
 * finest level's triangles with a warp. NULL when out of host memory;
 * the caller frees the array. */
double *sinew_imc_warps(const sinew_asset *asset, uint32_t *found);

/* The asset must have multigrid levels. Particles the asset pins (inverse
 * mass 0) get point constraints of pin_stiffness (N/m). The solver always
 * owns its set-1 buffers (shared/mg.h): the levels' INDEX and REAL, and with
 * `history` the step before of BDF2 (2n vec4s).
 *
 * body NULL: the solver owns its positions and velocities and its
 * descriptor sets, and its soft constraints are the host's
 * (sinew_imc_set_constraint). Otherwise body is a body's SINEW_BODY_BINDINGS
 * buffers (borrowed; POS, PREV, VEL, PARAMS, SDF used); the body makes the
 * descriptor sets from them and sinew_imc_buffers, and hands them over
 * (sinew_imc_use_bindings); every step's constraints then come from pins
 * and contacts on the device (mg_constrain: PREV holds the pins' anchors,
 * PARAMS the colliders). */
/* Whether the asset is a solid: tetrahedra (neo-Hookean or stable
 * neo-Hookean, the asset's materials or the body's), solved on one level by
 * PCG; its masses are the asset's. Otherwise a cloth with multigrid levels. */
int sinew_imc_solid(const sinew_asset *asset);

sinew_result sinew_imc_create(sinew_context *ctx, const sinew_asset *asset, const sinew_imc_material *m,
                              double pin_stiffness, sinew_buffer *body, int history, sinew_imc **out);
void sinew_imc_destroy(sinew_imc *s);
/* The solver's set-1 buffers, *count of them (owned by the solver). */
const sinew_buffer *sinew_imc_buffers(const sinew_imc *s, uint32_t *count);
/* BDF2's record of the step before (no VkBuffer without history). */
sinew_buffer *sinew_imc_history_buffer(sinew_imc *s);
/* The body's descriptor sets (borrowed; they must outlive the solver). */
void sinew_imc_use_bindings(sinew_imc *s, const sinew_bindings *bindings);

/* Contacts' sliding constraints: normal and tangential stiffness (N/m), and
 * whether PCG filters the constrained directions out (Baraff and Witkin's
 * modified PCG, the constraints hard; the V-cycle ignores it). */
void sinew_imc_set_contacts(sinew_imc *s, double contact, double friction, int filtered);

uint32_t sinew_imc_level_count(const sinew_imc *s);
uint32_t sinew_imc_particle_count(const sinew_imc *s, uint32_t level);
/* The block pattern of a level: rows (n + 1) and columns, borrowed. */
void sinew_imc_pattern(const sinew_imc *s, uint32_t level, const uint32_t **row, const uint32_t **col);

/* Positions and velocities of the finest level (3n floats each). */
sinew_result sinew_imc_set_state(sinew_imc *s, const float *x, const float *v);

/* Soft constraint of a particle of the finest level: D (9, symmetric) and
 * target displacement d (3). Kept on the host until the next assemble. */
void sinew_imc_set_constraint(sinew_imc *s, uint32_t i, const float D[9], const float d[3]);

/* What a step does first with the state of the step before (BDF2, the
 * solver's HISTORY buffer of 2n vec4s): nothing, record it, or blend with it (the state
 * becomes (4 x - x_prev) / 3, (4 v - v_prev) / 3 and the step that follows,
 * of 2h/3, is BDF2's; mg_history). */
typedef enum sinew_imc_history { SINEW_IMC_NO_HISTORY, SINEW_IMC_RECORD, SINEW_IMC_BLEND } sinew_imc_history;

/* Makes (on the device, for a body) and coarsens the soft constraints and
 * assembles every level's matrix and the finest level's right-hand side
 * (vector F) for a step of h s. The unknown is y = dx - h v (its solution in
 * U): A y = b - A h v. saved (or NULL): positions and velocities are copied
 * there first, a body's rollback copy; then the history. */
sinew_result sinew_imc_assemble(sinew_imc *s, float h, const float gravity[3], sinew_buffer *saved,
                                sinew_imc_history history);

/* y = F - A x (subtract 1) or y = A x (0) on a level, x and y vectors. */
sinew_result sinew_imc_residual(sinew_imc *s, uint32_t level, uint32_t x, uint32_t y, int subtract);
/* F and U of level from R of level + 1 (U zeroed). */
sinew_result sinew_imc_restrict(sinew_imc *s, uint32_t level);
/* U of level += the prolongation of U of level - 1. */
sinew_result sinew_imc_prolong(sinew_imc *s, uint32_t level);

/* The V-cycle (the paper's defaults: 5 PCG iterations down, 10 Gauss-Seidel
 * sweeps up) and when V-cycles stop. */
typedef struct sinew_imc_cycle {
    uint32_t pre, post;
    uint32_t coarse_iterations; /* block-Jacobi PCG on the coarsest level */
    double tolerance;           /* stop at |b - A dx| <= tolerance |b| */
    uint32_t max_cycles;
    uint32_t fallback_iterations; /* block-Jacobi PCG after diverging V-cycles, at most (0: none) */
} sinew_imc_cycle;

typedef struct sinew_imc_solve_stats {
    uint32_t cycles;
    double residual0, residual; /* |b|, |b - A dx| at the end */
    double history[64];         /* relative residual after each cycle */
    int stalled;                /* stopped after 3 cycles gaining less than 5 % each: single
                                   precision's floor (near 1e-6 relative) above the tolerance */
    int diverged;               /* a cycle left the residual above twice the best so far, or
                                   the cycles stalled above 10 times the tolerance */
    uint32_t fallback;          /* then: PCG iterations of the solve started again */
} sinew_imc_solve_stats;

/* Solves A y = F after sinew_imc_assemble by V-cycles from y = 0 (y is the
 * finest level's U), the device deciding after each cycle from its residual
 * norm whether to go on (mg_control): until the tolerance, max_cycles, or a
 * stall. When a cycle makes the residual grow past twice the best so far,
 * or the cycles stall above 10 times the tolerance (the coarse levels,
 * discretised from the cloth's own coarse triangles, can misrepresent a
 * finely crumpled cloth), the solve starts again from y = 0 by block-Jacobi
 * PCG, at most c->fallback_iterations. The host submits the budget in
 * pieces and stops submitting once the device has stopped. UNSTABLE when a
 * NaN appears. */
sinew_result sinew_imc_solve(sinew_imc *s, const sinew_imc_cycle *c, sinew_imc_solve_stats *stats);

/* The baseline: block-Jacobi PCG on the finest level from y = 0, the device
 * deciding after every `batch` iterations whether |F - A y| <= tolerance |F|
 * (the recursive residual), at most max_iterations; stats->cycles counts
 * iterations. */
sinew_result sinew_imc_solve_pcg(sinew_imc *s, double tolerance, uint32_t max_iterations, uint32_t batch,
                                 sinew_imc_solve_stats *stats);

/* A body's solve, recorded whole: V-cycles (vcycles 1, `cycle`, its
 * fallback included) or modified PCG of pcg_iterations in batches of
 * pcg_batch (to cycle.tolerance), each substep of `substeps`. */
typedef struct sinew_imc_solve_plan {
    int vcycles;
    sinew_imc_cycle cycle;
    uint32_t pcg_iterations, pcg_batch;
    uint32_t substeps;
    int bdf2;
} sinew_imc_solve_plan;

/* Records substep `substep` of a body's step (one submit for the whole
 * step, nothing decided on the host): h and gravity from PARAMS, BDF2's
 * blend with the step before (the first substep blends when
 * PARAMS.solver_flags says the record of the step before is valid), the
 * constraints and assembly, the solve within its recorded budget (the work
 * after it stops is skipped by the kernels), x += h v + y, v += y / h; after
 * the last substep the step's totals into STATS. */
void sinew_imc_record_substep(sinew_imc *s, sinew_recorder *r, const sinew_imc_solve_plan *plan, uint32_t substep);

/* x += h v + y, v += y / h on the device; and the state read back (3n
 * each; either may be NULL). */
sinew_result sinew_imc_advance(sinew_imc *s);
sinew_result sinew_imc_read_state(sinew_imc *s, float *x, float *v);

/* Copies a level's blocks (9 floats each, row major) or vector (3 per particle). */
sinew_result sinew_imc_read_blocks(sinew_imc *s, uint32_t level, float *out);
sinew_result sinew_imc_read_vector(sinew_imc *s, uint32_t level, uint32_t vector, float *out);
sinew_result sinew_imc_write_vector(sinew_imc *s, uint32_t level, uint32_t vector, const float *in);
/* Overwrites a level's blocks (9 floats each, row major), e.g. to test what
 * a bad coarse operator does. */
sinew_result sinew_imc_write_blocks(sinew_imc *s, uint32_t level, const float *in);

#endif
