/* What every solver provides, and the part of its body it may use.
 *
 * A body (src/body.c) owns what all solvers share: the particles, the
 * asset's constraints and elements, the step's parameters and statistics,
 * contacts, the health check, rollback and checkpoints. A solver owns its
 * own buffers (descriptor set 1, numbered in its shaders/shared/ header)
 * and state, and sees the body only through a sinew_body_view. The step,
 * as the body records it (the stage table in src/stages.c,
 * docs/architecture.md):
 *
 *     rollback copy of positions, velocities, hinge angles
 *     per substep:  predict           (the body's kernel; it clears the solver's
 *                                      per-substep state as well, record_reset)
 *                   record_solve      (iterations, contacts; writes the PREDICT
 *                                      timestamp when its prediction work ends)
 *                   velocities        (the body's kernel; with the next substep's
 *                                      prediction, or with the health check after
 *                                      the last substep)
 *     normals, residual
 *
 * A solver that integrates its substeps itself (the implicit solvers) has
 * record_substep in place of the prediction, record_solve and the
 * velocities. Every solver's step is one command buffer: nothing is decided
 * on the host inside it.
 *
 * table.c lists every solver with its ops; it is the only place naming
 * them all.
 */
#ifndef SINEW_SOLVERS_SOLVER_H
#define SINEW_SOLVERS_SOLVER_H

#include <sinew/body.h>

#include "../asset/asset.h"
#include "../checkpoint.h"
#include "../gpu/gpu.h"

/* What a solver may use of its body. Filled by the body; valid for the
 * body's life (the pointers are the body's). */
/* What a body's elements are, for the GPBD element update (gpbd.c): all
 * tetrahedra of neo-Hookean or all of stable neo-Hookean materials get a
 * kernel with the other kinds and models compiled out. */
typedef enum sinew_element_set {
    SINEW_ELEMENTS_MIXED = 0,   /* anything else, or no elements */
    SINEW_ELEMENTS_TET_NH,
    SINEW_ELEMENTS_TET_SNH,
} sinew_element_set;

typedef struct sinew_body_view {
    sinew_context *ctx;
    const sinew_body_desc *desc; /* checked; sweep_order resolved */
    const char *name;            /* for messages */
    uint32_t particle_count, distance_count, bend_count, element_count;
    sinew_buffer *buffers;       /* the body's, SINEW_BODY_BINDINGS, at their set-0 bindings */
    sinew_buffer *saved;         /* rollback copy (positions, velocities, hinge angles); no VkBuffer: none */
    sinew_step_stats *stats;     /* where a solver's own statistics go */
    sinew_element_set elements;  /* as the materials are now: set_material may change it */
    const struct sinew_selfcol *selfcol; /* self-collision (selfcol.h), NULL: off */
    const struct sinew_attach *attach;   /* attachments and tethers (attach.h) */
} sinew_body_view;

/* A part of a solver's state that checkpoints carry after the body's
 * (docs/checkpoint-format.md): vec4s in a buffer, marked by a header flag. */
typedef struct sinew_state_part {
    uint32_t flag;          /* SINEW_STATE_* */
    int required;           /* every checkpoint of this body has it */
    int present;            /* this body has it now (saved when present) */
    sinew_buffer *buffer;
    uint64_t bytes;
    const char *what;       /* "anchor": in "the anchor of particle 3 is not finite" */
} sinew_state_part;

/* The flags (SINEW_STATE_*) are the checkpoint format's (checkpoint.h). */

typedef struct sinew_solver_ops {
    /* Accepts the asset and desc or refuses them, naming what is wrong.
     * Called before anything is made. */
    sinew_result (*check)(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d);
    /* Makes the solver's state and buffers, uploads what it needs of the
     * asset (borrowed for the call). The body's buffers exist and hold the
     * asset already. */
    sinew_result (*create)(const sinew_body_view *v, const sinew_asset *a, void **state);
    void (*destroy)(void *state, sinew_context *ctx);
    /* The solver's set-1 buffers (owned by the solver), *count of them. */
    const sinew_buffer *(*buffers)(const void *state, uint32_t *count);
    /* Device memory the solver holds outside its set-1 buffers (bytes; its
     * allocations added to *allocations). NULL: none. */
    uint64_t (*memory)(const void *state, uint32_t *allocations);
    /* The body's descriptor sets are made (NULL: the solver needs no note). */
    void (*bound)(void *state, const sinew_bindings *bindings);
    /* Timestamps record_solve writes per substep at most. */
    uint32_t (*timestamps)(const void *state, const sinew_body_view *v);
    /* The solver's per-substep state, cleared before each substep's
     * prediction (NULL: none). With `clear`, the push constants of the
     * body's prediction kernels, which clear it in the same pass: the
     * solver sets how much of its set-1 LAMBDA (clear->count2 floats) and
     * ZDISP (clear->slot_base vec4s) they zero, once, and records nothing.
     * Without, it records the clearing itself (called each substep; the
     * step recorded dispatch by dispatch, sinew_body_record_unfused). */
    void (*record_reset)(void *state, const sinew_body_view *v, sinew_recorder *r, GpuRange *clear);
    /* The residual of the solver's own system at the step's end (docs/math.md
     * 9; NULL: none): records the dispatch writing, per workgroup, the sum
     * of the squared residuals (each made dimensionless) and their number
     * into PARTIAL[first + group].xy. Records no barrier. Returns the
     * workgroups written (0: nothing recorded, no residual to offer), at
     * most one per SINEW_WORKGROUP_SIZE distance and bending constraints,
     * elements or particles. */
    uint32_t (*record_residual)(void *state, const sinew_body_view *v, sinew_recorder *r, uint32_t first);
    /* After it: the substep's iterations with their contacts. */
    void (*record_solve)(void *state, const sinew_body_view *v, sinew_recorder *r);
    /* In place of the prediction, record_solve and the velocities: the
     * whole substep `substep` (0 .. desc.substeps - 1), writing the PREDICT
     * timestamp where its prediction ends. NULL for the others. */
    void (*record_substep)(void *state, const sinew_body_view *v, sinew_recorder *r, uint32_t substep);
    /* PARAMS.solver_flags of the step about to be submitted or recorded
     * (NULL: 0); the solver notes that it is. */
    uint32_t (*step_flags)(void *state);
    /* Why a body of this solver cannot be cut ("a body of ... cannot be cut
     * (reason)"); NULL: it can. */
    const char *uncuttable;
    /* The body cut these distance constraints (pairs of particles, checked):
     * the solver's own structures follow. Allocates before it changes
     * anything. NULL: nothing to follow. */
    sinew_result (*cut)(void *state, const sinew_body_view *v, const uint32_t *pairs, uint32_t pair_count);
    /* Particles [first, first + count) are at xyzw (vec4s) by the host's
     * hand: written (teleport 1: the motion so far is void) or pins moved
     * (0). NULL: nothing to follow. */
    sinew_result (*moved)(void *state, const sinew_body_view *v, uint32_t first, uint32_t count,
                          const float *xyzw, int teleport);
    /* Before each step is submitted (sinew_body_step) or recorded
     * (sinew_body_record_step), with its parameters, the step before
     * finished: host work between steps (MGPBD's hierarchy setups). Sets
     * *rerecord when the body's recorded step no longer fits (buffers or
     * constants recorded in it changed). NULL: nothing. */
    sinew_result (*before_step)(void *state, const sinew_body_view *v, const sinew_step_params *p, int *rerecord);
    /* The step was rolled back (NULL: nothing to follow). */
    void (*rolled_back)(void *state);
    /* Checkpoints: the solver's parts (NULL: none), and what a loaded
     * checkpoint held (flags). */
    uint32_t (*state_parts)(void *state, const sinew_body_view *v, sinew_state_part parts[SINEW_STATE_MAX_PARTS]);
    void (*state_loaded)(void *state, uint32_t flags);
    /* The solver's record (NULL: none; docs/checkpoint-format.md): its size
     * in bytes now (0: nothing to record), and the record written into dst
     * (that many bytes). */
    size_t (*record_size)(void *state);
    sinew_result (*save_record)(void *state, const sinew_body_view *v, uint8_t *dst);
    /* A checkpoint's record, checked and taken before the body's state is
     * written (a refusal, with a message, leaves the solver as it was);
     * state_loaded follows with the flags. */
    sinew_result (*load_record)(void *state, const sinew_body_view *v, const uint8_t *src, size_t size);
} sinew_solver_ops;

typedef struct sinew_solver_row {
    sinew_solver id;
    const char *name;   /* as the tools spell it */
    const char *label;  /* in a few words */
    const sinew_solver_ops *ops;
} sinew_solver_row;

/* The row of a solver, or NULL. */
const sinew_solver_row *sinew_solver_row_of(sinew_solver solver);

/* What every check refuses alike: finite elements for a solver that does
 * not simulate them (elements 0), alternating sweeps for one that does not
 * sweep colours (gauss_seidel 0). */
sinew_result sinew_solver_check_fit(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d,
                                    int elements, int gauss_seidel);

/* graph.c: Jacobi gather lists, particle i's DELTA slots
 * adj[start[i] .. start[i+1]) (2 per distance, 4 per bend and element, in
 * that order), and distance records by particle, list[start[p] ..
 * start[p+1]). Both allocate (the caller frees); 0 when out of memory. */
int sinew_gather_lists(const sinew_asset *a, uint32_t **start, uint32_t **adj);
int sinew_distance_incidence(uint32_t n, uint32_t count, const GpuDistance *d, uint32_t **start, uint32_t **list);

/* The families (one file or folder each under src/solvers/). */
extern const sinew_solver_ops sinew_pbd_ops;      /* pbd.c: XPBD, GPBD, HPBD */
extern const sinew_solver_ops sinew_pd_ops;       /* pd.c */
extern const sinew_solver_ops sinew_implicit_ops; /* implicit.c */
extern const sinew_solver_ops sinew_mgpbd_ops;    /* mgpbd_body.c */

#endif
