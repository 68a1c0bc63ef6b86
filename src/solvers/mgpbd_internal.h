/* MGPBD's internals shared by its files: the solver's state, the layout of
 * its images (mgpbd_layout.c) and the chunked copies between them and the
 * host. Private to src/solvers/mgpbd*.c; the interface is mgpbd.h. */
#ifndef SINEW_MGPBD_INTERNAL_H
#define SINEW_MGPBD_INTERNAL_H

#include "mgpbd.h"

#include "shared/amg.h"

typedef struct level_gpu {
    uint32_t rows;
    uint32_t A, P, R, AP;   /* matrix records in AMG_INDEX (AP: PRODUCT only) */
    uint32_t X;             /* GRAM: the record of X_l (level 0: the static X_0), else NONE */
    uint32_t nnz, x_nnz, ap_nnz; /* nonzeros of A, X and AP */
    uint32_t a_mode, x_mode, ap_mode; /* amg_product's way (product_mode) for the products making A, X, AP */
    uint32_t a_val;         /* where A's values start in AMG_REAL */
    uint32_t x, f, r, d;    /* vectors in AMG_REAL (level 0: r and d only; x and f are the caller's) */
    uint32_t e;             /* the power iteration's vector (kept from one lazy iteration to the next) */
} level_gpu;

typedef struct colour_range { uint32_t first, count; } colour_range;

struct sinew_mgpbd {
    sinew_context *ctx;
    sinew_mgpbd_desc desc;
    sinew_buffer body[SINEW_BODY_BINDINGS]; /* set 0: POS, PREV, VEL */
    sinew_buffer own[SINEW_AMG_BINDINGS];   /* set 1 (shared/amg.h) */
    sinew_workspace ws;                     /* its own sets, over body and own */
    uint32_t n, d, t, m;
    float *w;                      /* inverse masses, n */
    sinew_csr pattern;             /* the finest operator's pattern (val unused) */
    sinew_csr x0;                  /* GRAM: X_0's pattern (val zero); else empty */
    int gram;                      /* coarse operators in the Gram form */
    uint32_t gram_levels;          /* levels 1..gram_levels are recomputed in the Gram form, the rest as products */
    float *readback;               /* refresh_rho_host (rho HOST): room for the largest level's values (set up with the hierarchy) */
    uint32_t static_words, static_floats;  /* where the hierarchy's part starts */
    uint64_t index_capacity, real_capacity; /* words, floats */
    uint32_t chunk_shift;          /* each image's chunks hold 2^chunk_shift words */
    uint32_t a0, a0_val, x0_rec;
    uint32_t vb, vx, vr, vz, vp, vq, vsr, vsd, vl, ve;  /* the finest level's vectors (vl: lambda at a line
                                                        search's base; ve: the power iteration's) */
    uint32_t partial, scalars, groups, lambda;
    colour_range *colours;
    uint32_t colour_count;
    sinew_amg amg;
    level_gpu L[SINEW_AMG_MAX_LEVELS];
    uint32_t levels, dense_rows;   /* dense_rows: the coarsest level's, when solved exactly; else 0 */
    uint64_t frame, setup_frame;
    uint32_t step_iteration;
    int have_setup;
    uint32_t gate;                 /* the scalar gating the dispatches being recorded (0: none) */
    int power_warm;                /* the power iteration's vectors have served a lazy iteration since the setup */
    float *setup_x;                /* the positions the hierarchy in use was set up from (4 n; mgpbd_lazy.c) */
    float setup_h;                 /* and the step size */
    int setup_kept;                /* setup_x and setup_h are the hierarchy's (its setup was sinew_mgpbd_setup_from's) */
    sinew_mgpbd_counters counters;
};

/* OUT_OF_HOST_MEMORY, logged. */
sinew_result sinew_mgpbd_oom(const sinew_mgpbd *s);

/* (mgpbd_layout.c) The finest operator's pattern (from the constraints, or
 * values' for a system solver), the static part of both images laid out and
 * uploaded, the particles' buffers and the workspace. cons, adj_start, adj,
 * rest: NULL for a system solver. */
sinew_result sinew_mgpbd_lay_out(sinew_mgpbd *s, const uint32_t *cons, const uint32_t *adj_start, const uint32_t *adj,
                                 const float *rest, const sinew_csr *values);
/* (mgpbd_layout.c) Lays the hierarchy s->amg out after the static part and
 * uploads it. */
sinew_result sinew_mgpbd_upload_hierarchy(sinew_mgpbd *s);
/* (mgpbd_layout.c) Copies count words between the host and an image,
 * AMG_INDEX (real 0) or AMG_REAL (real 1), at word offset at, chunk by chunk. */
sinew_result sinew_mgpbd_upload(sinew_mgpbd *s, int real, uint64_t at, const void *data, uint64_t count);
sinew_result sinew_mgpbd_download(sinew_mgpbd *s, int real, uint64_t at, void *data, uint64_t count);
/* (mgpbd_layout.c) Submits r's commands and waits for them, counted. */
sinew_result sinew_mgpbd_submit(sinew_mgpbd *s, sinew_recorder *r);

/* (mgpbd_solve.c) A setup in its parts: the finest operator assembled on
 * the device at positions pos (n vec4s, copied into the solver's own) with
 * step size h; a hierarchy set up on the host from it, not in use yet; that
 * hierarchy taken into use (uploaded, its rho and power vectors afresh;
 * fresh is the solver's then, freed on failure). */
sinew_result sinew_mgpbd_assemble_at(sinew_mgpbd *s, const sinew_buffer *pos, float h);
sinew_result sinew_mgpbd_setup_fresh(sinew_mgpbd *s, sinew_amg *fresh);
sinew_result sinew_mgpbd_take_hierarchy(sinew_mgpbd *s, sinew_amg *fresh);
/* (mgpbd_lazy.c) After a setup from the solver's positions with step size
 * h: keeps both, for the lazy setup's record. */
sinew_result sinew_mgpbd_keep_setup(sinew_mgpbd *s, float h);

/* (mgpbd_solve.c) The recording the host's operations (mgpbd_host.c) share
 * with the outer loop. */
/* A push block for count items in mode, with s's chunk shifts and gate. */
GpuAmgPush sinew_mgpbd_push(const sinew_mgpbd *s, uint32_t count, uint32_t mode);
#define push(count, mode) sinew_mgpbd_push(s, (count), (mode))
/* One dispatch and the barrier after it. */
void sinew_mgpbd_run(sinew_recorder *r, sinew_kernel k, uint32_t threads, const GpuAmgPush *p);
/* amg_spmv of the matrix record `matrix` (rows rows) on vector x into y,
 * as mode says (z: its other vector). */
void sinew_mgpbd_record_spmv(const sinew_mgpbd *s, sinew_recorder *r, uint32_t mode, uint32_t matrix, uint32_t rows,
                             uint32_t x, uint32_t y, uint32_t z);
/* x = V-cycle of level l applied to f, from x = 0 (amg.h). */
void sinew_mgpbd_record_vcycle(sinew_mgpbd *s, sinew_recorder *r, uint32_t l, uint32_t x, uint32_t f);
/* The coarse operators from the finest by the fixed P. */
void sinew_mgpbd_record_galerkin(sinew_mgpbd *s, sinew_recorder *r);
/* PCG's start, and its iterations k0..k1 of max_iterations checked every
 * batch. */
void sinew_mgpbd_record_pcg_start(sinew_mgpbd *s, sinew_recorder *r, int lazy);
void sinew_mgpbd_record_pcg_iterations(sinew_mgpbd *s, sinew_recorder *r, double tol, uint32_t k0, uint32_t k1,
                                       uint32_t max_iterations, uint32_t batch);
/* The scalars read back: the first count, or count from first. */
sinew_result sinew_mgpbd_read_scalars(sinew_mgpbd *s, float *out, uint32_t count);
sinew_result sinew_mgpbd_read_scalars_at(sinew_mgpbd *s, uint32_t first, float *out, uint32_t count);
/* CG's outcome from the scalars read back. */
sinew_result sinew_mgpbd_pcg_outcome(sinew_mgpbd *s, const float *sc, sinew_mgpbd_solve_stats *st);

#endif
