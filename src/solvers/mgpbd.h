/* MGPBD: global XPBD solved by algebraic-multigrid-preconditioned CG on the
 * GPU (Li et al. 2025; docs/math.md 6; docs/mgpbd.md). Each outer iteration
 * linearises every constraint at once and solves the dual system
 *
 *     (G M^-1 G^T + alpha~) dlambda = -C - alpha~ lambda
 *
 * by CG preconditioned with one V-cycle of an aggregation hierarchy
 * (unsmoothed with the near kernel by default, as the paper builds it)
 * (src/solvers/amg.h), set up on the host every setup_interval frames and
 * whose coarse operators are recomputed on the device in between (lazy
 * setup). Internal: the solver the benchmarks and tests drive, on its own
 * buffers; tests/ref/mgpbd_ref.c is its CPU double-precision reference. */
#ifndef SINEW_MGPBD_H
#define SINEW_MGPBD_H

#include "../asset/asset.h"
#include "../gpu/gpu.h"
#include "amg.h"
#include "mgpbd_lazy.h"

typedef enum sinew_mgpbd_precond {
    SINEW_MGPBD_PRECOND_NONE = 0,   /* plain CG */
    SINEW_MGPBD_PRECOND_JACOBI = 1, /* z = D^-1 r */
    SINEW_MGPBD_PRECOND_AMG = 2,    /* one V-cycle */
} sinew_mgpbd_precond;

/* How a lazy outer iteration recomputes the coarse operators from the kept
 * prolongators (docs/mgpbd.md, "Single precision"). */
typedef enum sinew_mgpbd_coarse {
    /* A_{l+1} = R_l (A_l P_l), the paper's (default). */
    SINEW_MGPBD_COARSE_PRODUCT = 0,
    /* A_l = X_l W X_l^T with X_0 = [G | diag(sqrt alpha~)], W = diag(M^-1, 1)
     * and X_{l+1} = R_l X_l: the Gram form, positive semidefinite by
     * construction, its diagonal a sum of squares; never cancels the large
     * entries of A against each other. Costs X_l's memory (a level's X has
     * about as many entries as G times the aggregates' overlap); levels whose
     * X would have a row longer than SINEW_AMG_GRAM_ROW_MAX, and solvers
     * made from a matrix (no G), use the products. */
    SINEW_MGPBD_COARSE_GRAM = 1,
} sinew_mgpbd_coarse;

/* Where a lazy outer iteration takes the smoothers' rho(D^-1 A) of each
 * level (docs/mgpbd.md, "The smoothers' rho"). A setup estimates it on the
 * host (Lanczos); as A changes between setups, its top eigenvalue can pass
 * the Chebyshev interval's end, which makes the V-cycle indefinite. */
typedef enum sinew_mgpbd_rho {
    SINEW_MGPBD_RHO_KEEP = 0,   /* the setup's, stale between setups */
    SINEW_MGPBD_RHO_HOST = 1,   /* every level's operator read back and Lanczos on the host (a wait and the
                                   operators' bytes an iteration; for comparison) */
    SINEW_MGPBD_RHO_DEVICE = 2, /* power iteration on the device, warm-started from the last iteration's
                                   vector, SINEW_MGPBD_POWER_STEPS steps a level (four times as many in the
                                   first lazy iteration after a setup); rho never falls below the setup's
                                   within a setup interval (default) */
} sinew_mgpbd_rho;

/* The device's power iteration: steps per level and lazy iteration. */
#define SINEW_MGPBD_POWER_STEPS 4

typedef struct sinew_mgpbd_desc {
    /* Constraints taken from the asset. */
    int distances;                /* its distance constraints */
    int tets;                     /* its tetrahedra, as-rigid-as-possible: C = |F - R|_F */
    double distance_compliance;   /* m/N (> 0: the dual system must stay positive definite) */
    /* Each distance constraint's compliance (m/N, > 0; the asset's order),
     * borrowed for sinew_mgpbd_create only; NULL: distance_compliance for all. */
    const float *distance_compliances;
    double shear_modulus;         /* Pa; 0: each tetrahedron's material's (mu = E / (2 (1 + nu))) */
    /* The solve. */
    sinew_amg_options amg;
    sinew_amg_cycle cycle;
    sinew_mgpbd_precond precond;
    uint32_t setup_interval;      /* frames between AMG setups (lazy setup; the paper's 20); 0: every outer iteration */
    sinew_mgpbd_coarse coarse;    /* the lazy iterations' coarse operators (default PRODUCT) */
    sinew_mgpbd_rho rho;          /* where lazy iterations take each level's rho(D^-1 A) (default DEVICE) */
    uint32_t pcg_iterations;      /* most CG iterations per outer iteration */
    double pcg_tolerance;         /* stop CG at |r| <= tol |b| (checked every pcg_batch iterations); 0: run them all */
    uint32_t pcg_batch;
    double omega;                 /* x += omega dx */
    /* Backtracking on |b| after each solve: the step (x, lambda) += t (omega
     * dx, dlambda) is halved while |b| does not fall, at most this many times
     * (0: no line search; the step is taken whole); when none makes it fall,
     * no step is taken. An inexact CG solve of a stiff, over-constrained mesh
     * otherwise can make |b| grow. */
    uint32_t line_search;
    /* 1: the paper's code's variant: lambda takes all of dlambda whatever the
     * line search does; only the positions' step is halved, while |b| at the
     * new lambda does not fall below its value at the old positions (and when
     * none does, the positions stay and lambda still moves). 0 (default):
     * lambda and the positions take the same fraction. */
    int lambda_full;
    /* The outer loop's stopping rule (sinew_mgpbd_solve_step): */
    uint32_t max_iterations;      /* outer iterations per step */
    double tolerance;             /* stop when |b| <= tolerance |b of the first iteration| */
    double time_budget_ms;        /* or when this much wall time has passed (0: none) */
    /* Words of each storage buffer the two images are split into
     * (SINEW_AMG_CHUNKS each): 0, the largest power of two within the
     * device's maxStorageBufferRange; a smaller power of two (>= 1024) makes
     * small meshes span several, for tests. */
    uint32_t chunk_words;
    uint32_t cookie;
} sinew_mgpbd_desc;

sinew_mgpbd_desc sinew_mgpbd_desc_default(void);

typedef struct sinew_mgpbd sinew_mgpbd;

/* From an asset's distances and/or tetrahedra (elements of kind TET), the
 * particles at the asset's rest positions. Fails with INVALID_ARGUMENT naming
 * the problem for a desc not made by sinew_mgpbd_desc_default, settings out
 * of range, an asset without such constraints, a non-positive or non-finite
 * compliance or shear modulus (naming the tetrahedron); LIMIT when the layout
 * would not fit 32-bit offsets or two storage buffers per image. A
 * constraint on pinned particles only is allowed (its row of A is alpha~). */
sinew_result sinew_mgpbd_create(sinew_context *ctx, const sinew_asset *asset, const sinew_mgpbd_desc *desc,
                                sinew_mgpbd **out);
/* A solver of a fixed symmetric positive definite system A (no particles):
 * for the tests and benchmarks of the linear solve alone. */
sinew_result sinew_mgpbd_create_system(sinew_context *ctx, const sinew_csr *A, const sinew_mgpbd_desc *desc,
                                       sinew_mgpbd **out);
void sinew_mgpbd_destroy(sinew_mgpbd *s);

uint32_t sinew_mgpbd_constraint_count(const sinew_mgpbd *s);
uint32_t sinew_mgpbd_particle_count(const sinew_mgpbd *s);
/* The hierarchy of the last setup (levels 0 until the first). */
const sinew_amg *sinew_mgpbd_amg(const sinew_mgpbd *s);
/* Storage buffers in use by the values' image (AMG_REAL), 1 ..
 * SINEW_AMG_CHUNKS. */
uint32_t sinew_mgpbd_real_chunks(const sinew_mgpbd *s);
/* Bytes of device memory the solver holds now. */
uint64_t sinew_mgpbd_device_bytes(const sinew_mgpbd *s);
/* Memory allocations its buffers are bound into. */
uint32_t sinew_mgpbd_allocations(const sinew_mgpbd *s);

/* What the solver has asked of the device since its creation: command
 * buffers submitted (each waited for), the dispatches and barriers recorded
 * in them (dispatches behind a closed gate included: conditional rendering
 * skips them on the device), bytes read back to the host, bytes written
 * from it. */
typedef struct sinew_mgpbd_counters {
    uint64_t submits;
    uint64_t dispatches, barriers;
    uint64_t readback_bytes;
    uint64_t upload_bytes;
} sinew_mgpbd_counters;
sinew_mgpbd_counters sinew_mgpbd_get_counters(const sinew_mgpbd *s);
/* Each level's rho(D^-1 A) as the smoothers use it now (safety included;
 * the device's values after a lazy iteration with SINEW_MGPBD_RHO_DEVICE):
 * levels entries into rho. */
sinew_result sinew_mgpbd_read_rho(sinew_mgpbd *s, double *rho);

/* Positions (3n floats), velocities (3n, or NULL: zero). Inverse masses stay the asset's. */
sinew_result sinew_mgpbd_set_state(sinew_mgpbd *s, const float *x, const float *v);
sinew_result sinew_mgpbd_read_state(sinew_mgpbd *s, float *x, float *v);

typedef struct sinew_mgpbd_iteration {
    double dual_residual;   /* |b| = |-C - alpha~ lambda| at the iteration's start */
    uint32_t pcg_iterations;
    double pcg_relative;    /* |r| / |b| of CG at its end (NaN when not read back) */
    int setup;              /* the AMG hierarchy was set up afresh */
    int indefinite;         /* CG found A or the V-cycle not positive definite (a coarse diagonal
                             * <= 0, rz < 0 or p.Ap <= 0; e.g. a smoother's stale rho,
                             * docs/mgpbd.md) and stopped at that batch: 1 once (with lazy
                             * coarse operators the hierarchy was then set up afresh and CG run
                             * again), 2 again after that */
    int coarse_diagonal;    /* the first solve's flag came from a lazy coarse operator's diagonal <= 0,
                             * not from CG's rz or p.Ap */
    double step;            /* the line search's t (1: the whole step) */
    double dual_after;      /* |b| after the step */
    int line_search_failed; /* no step of the line search made |b| fall: none was taken */
    double ms;              /* host wall time of the iteration (setup included) */
} sinew_mgpbd_iteration;

/* A step's start: lambda = 0; with h > 0 also the prediction (prev = x,
 * v += h g, x += h v), with h = 0 none; any other h (negative, NaN) is
 * refused. Counts a frame for the lazy setup. */
sinew_result sinew_mgpbd_begin_step(sinew_mgpbd *s, float h, const float gravity[3]);
/* One outer iteration of MGPBD (Algorithm 1, lines 4-11) with step size h. */
sinew_result sinew_mgpbd_iterate(sinew_mgpbd *s, float h, sinew_mgpbd_iteration *it);
/* One XPBD Gauss-Seidel sweep over the same constraints, colour by colour
 * (the local solver MGPBD is compared with); sweeps of them. */
sinew_result sinew_mgpbd_xpbd(sinew_mgpbd *s, float h, uint32_t sweeps);
/* XPBD's Jacobi variant, the paper's baseline: each sweep computes every
 * constraint's dlambda = b / (sum_j w_j |grad_j|^2 + alpha~) from the same
 * positions, adds all of it to lambda and moves the particles by omega of
 * it (x += omega M^-1 G^T dlambda), omega in (0, 1]. */
sinew_result sinew_mgpbd_xpbd_jacobi(sinew_mgpbd *s, float h, uint32_t sweeps, float omega);
/* C, gradients, b and A at the current positions and multipliers, nothing
 * solved (sinew_mgpbd_read_matrix then reads A). */
sinew_result sinew_mgpbd_assemble(sinew_mgpbd *s, float h);
/* b = -C - alpha~ lambda as last computed (m floats). */
sinew_result sinew_mgpbd_read_rhs(sinew_mgpbd *s, float *b);
/* |b| at the current positions and multipliers. */
sinew_result sinew_mgpbd_dual_residual(sinew_mgpbd *s, float h, double *norm);
/* v = (x - prev) / h: a step's end. */
sinew_result sinew_mgpbd_end_step(sinew_mgpbd *s, float h);

typedef struct sinew_mgpbd_step_stats {
    uint32_t iterations;        /* outer iterations done */
    double residual0;           /* |b| at the first */
    double relative[256];       /* |b| after each outer iteration / residual0 (the first 256) */
    uint32_t pcg_iterations;    /* in all */
    uint32_t setups;            /* AMG setups */
    int stopped_by;             /* 0: tolerance, 1: time budget, 2: max_iterations, 3: the line
                                   search found no step that made |b| fall (CG too inexact) */
    double ms;
} sinew_mgpbd_step_stats;

/* A whole step (the paper's Algorithm 1): prediction, lambda = 0, outer
 * iterations until |b| <= desc.tolerance |b_0|, desc.time_budget_ms has
 * passed or desc.max_iterations, then v = (x - prev) / h. */
sinew_result sinew_mgpbd_solve_step(sinew_mgpbd *s, float h, const float gravity[3], sinew_mgpbd_step_stats *st);

/* ------------------------------------------------------------ inside a body's step */

/* The solver's positions (n vec4s: xyz and the inverse mass), which a body
 * copies its own into before record_substep and back after. */
sinew_buffer *sinew_mgpbd_positions(sinew_mgpbd *s);
/* Sets the hierarchy up afresh from the operator at positions `pos` (n vec4s
 * on the device, e.g. a body's, copied in; or the solver's own, as
 * sinew_mgpbd_set_state left them) and step size h: one submit and the
 * finest operator read back. The lazy iterations after it take
 * SINEW_MGPBD_POWER_STEPS power steps a level from the first on (the
 * setups of sinew_mgpbd_iterate give their first four times as many). */
sinew_result sinew_mgpbd_setup_from(sinew_mgpbd *s, const sinew_buffer *pos, float h);
/* The first hierarchy of a body: set up (as sinew_mgpbd_setup_from) at the
 * asset's rest shape dilated by 1 % about its centre, where every
 * constraint has a gradient (at rest an as-rigid-as-possible constraint has
 * F = R and none, and A is alpha~ alone, which aggregates nothing); the
 * solver's positions are left at the rest shape, its velocities zero. */
sinew_result sinew_mgpbd_setup_at_rest(sinew_mgpbd *s, const sinew_asset *asset, float h);
/* Records into r (an open recorder of the caller's command buffer, whose
 * sets it binds: the caller binds its own again after) one substep's solve
 * with step size h on the solver's positions: lambda = 0, then `iterations`
 * outer iterations as the lazy ones of sinew_mgpbd_iterate (assembly, the
 * coarse operators from the kept prolongators, rho, CG and the line search),
 * nothing decided on the host: where sinew_mgpbd_iterate would set up afresh
 * (CG found the V-cycle indefinite), CG runs again with the Jacobi
 * preconditioner (skipped by the device otherwise). Needs a hierarchy (sinew_mgpbd_setup_from);
 * recorded again after each setup, which replaces the buffers it names. */
void sinew_mgpbd_record_substep(sinew_mgpbd *s, sinew_recorder *r, float h, uint32_t iterations);
/* Records into r (binding the solver's sets) the evaluation of |b| at the
 * solver's positions and multipliers, and copies |b|^2 there and at the
 * first outer iteration of the last substep recorded into two floats of
 * dst at offset: a body's residual partial (their ratio's root is the
 * relative dual residual). */
void sinew_mgpbd_record_residual(sinew_mgpbd *s, sinew_recorder *r, float h, sinew_buffer *dst, VkDeviceSize offset);

/* ------------------------------------------------------------ the lazy setup as bytes */

/* (The record read from bytes: mgpbd_lazy.h.) */
/* Bytes of the record now; 0 when the hierarchy in use was not set up by
 * sinew_mgpbd_setup_from (none to record). */
size_t sinew_mgpbd_lazy_size(const sinew_mgpbd *s);
/* Writes the record (sinew_mgpbd_lazy_size bytes, not 0) into dst: a read-back of rho and the power vectors. */
sinew_result sinew_mgpbd_lazy_save(sinew_mgpbd *s, uint8_t *dst);
/* Sets the hierarchy up again from the record's positions and step size
 * and takes its rho and power vectors. INVALID_ARGUMENT (the hierarchy in
 * use kept) when the hierarchy set up has other levels or rows than the
 * record says: it was written on another device, or by a solver of
 * another asset or desc. */
sinew_result sinew_mgpbd_lazy_load(sinew_mgpbd *s, const sinew_mgpbd_lazy *lazy, const char *name);

/* ------------------------------------------------------------ the linear solve alone */

/* Sets the finest operator's values (system solvers; entries in A's pattern). */
sinew_result sinew_mgpbd_write_matrix(sinew_mgpbd *s, const sinew_csr *A);
/* Reads a level's operator (values as the device holds them) into out (allocated). */
sinew_result sinew_mgpbd_read_matrix(sinew_mgpbd *s, uint32_t level, sinew_csr *out);
/* Reads a level's Gram factor X_l (coarse operators in the Gram form, after
 * sinew_mgpbd_galerkin; level 0 after an assembly) into out (allocated);
 * INVALID_ARGUMENT when the solver does not use the Gram form. */
sinew_result sinew_mgpbd_read_gram_factor(sinew_mgpbd *s, uint32_t level, sinew_csr *out);
/* Sets up the hierarchy afresh from the device's finest operator. */
sinew_result sinew_mgpbd_setup(sinew_mgpbd *s);
/* Recomputes the coarse operators on the device from the finest (P kept). */
sinew_result sinew_mgpbd_galerkin(sinew_mgpbd *s);
/* y = M x on the device, M level's A (which 0), P (1) or R (2). */
sinew_result sinew_mgpbd_spmv(sinew_mgpbd *s, uint32_t level, int which, const float *x, float *y);
/* z = one V-cycle applied to r on the device (finest level's rows). */
sinew_result sinew_mgpbd_vcycle(sinew_mgpbd *s, const float *r, float *z);

typedef struct sinew_mgpbd_solve_stats {
    uint32_t iterations;
    double residual0, residual;  /* |b|, |b - A x| (the recursive residual) */
    int indefinite;              /* CG stopped: SINEW_AMG_S_INDEFINITE was raised */
    int coarse_diagonal;         /* ... by a lazy coarse operator's diagonal <= 0 (else by CG itself) */
    double history[256];         /* relative residual after each of the first 256 batches of pcg_batch iterations */
    uint32_t history_count;
    double ms;
} sinew_mgpbd_solve_stats;
/* Solves A x = b from x = 0 by CG with desc.precond until |r| <= tolerance
 * |b| (checked every pcg_batch iterations) or max_iterations. */
sinew_result sinew_mgpbd_solve(sinew_mgpbd *s, const float *b, float *x, double tolerance, uint32_t max_iterations,
                               sinew_mgpbd_solve_stats *stats);

/* Where a lazy outer iteration's time goes: the iteration's parts, each
 * submitted on its own and waited for (host wall time of each submit, which
 * adds a submit's and a wait's overhead to each part). CG runs all of
 * desc.pcg_iterations (its gate kept open); the line search as the
 * iteration does it. Moves the state on like sinew_mgpbd_iterate; needs a
 * hierarchy (INVALID_ARGUMENT before the first setup, or without the AMG
 * preconditioner). */
typedef struct sinew_mgpbd_profile {
    double assemble_ms;   /* C, gradients, b and A */
    double products_ms;   /* the coarse operators from the kept prolongators */
    double rho_ms;        /* each level's rho by the power iteration */
    double cg_ms;         /* CG with one V-cycle a iteration */
    double line_search_ms;
    uint32_t dispatches[5]; /* recorded by each part, in the order above */
} sinew_mgpbd_profile;
sinew_result sinew_mgpbd_profile_iteration(sinew_mgpbd *s, float h, sinew_mgpbd_profile *out);

#endif
