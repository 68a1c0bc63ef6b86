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

#endif
