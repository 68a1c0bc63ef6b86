/* The position-based family (XPBD, GPBD, HPBD: docs/math.md sections 1-4):
 * its state, shared by xpbd.c (the family's operations, XPBD sweeps),
 * gpbd.c (element sweeps) and hpbd.c (the hierarchy). Internal. */
#ifndef SINEW_SOLVERS_PBD_H
#define SINEW_SOLVERS_PBD_H

#include "solver.h"

#include "shared/pbd.h"

typedef struct sinew_pbd {
    sinew_solver solver;
    sinew_sweep_order sweep_order;      /* resolved: never DEFAULT */
    sinew_buffer own[SINEW_PBD_BINDINGS];
    uint32_t colour_count;
    sinew_colour_rec *colours;          /* the asset's colour ranges */
    uint32_t element_colour_count;
    sinew_element_colour_rec *element_colours;
    /* Clustered sweeps (cpass_count 0: none, a dispatch per colour): the
     * asset's passes, and per pass the constraints and particles it moves. */
    uint32_t cpass_count;
    sinew_range_rec *cpasses;
    uint32_t *cpass_items, *cpass_particles;
    /* HPBD hierarchy (level_count 0: none); nodes and links as on the device. */
    uint32_t level_count, hdistance_count, link_count;
    sinew_level_rec *levels;
    sinew_range_rec *hcolours;
    GpuDistance *hdist_host;
    GpuNode *nodes;
    GpuLink *links;
} sinew_pbd;

/* Device traffic each kernel was designed to move, in bytes (reads + writes):
 * distance: record 16, two positions read 32 and written 32, lambda 4 + 4;
 * bend: record 32, four positions read 64 and written 64, lambda 4 + 4,
 * hinge angle 4 + 4. */
#define SINEW_BYTES_DISTANCE 88u
#define SINEW_BYTES_BEND 176u
#define SINEW_BYTES_COLLIDE 48u /* pos, prev in; pos out */

/* gpbd.c: one dispatch per element colour (Gauss-Seidel); all elements at
 * once into the Jacobi corrections (the caller applies them). */
void sinew_gpbd_record_colours(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r);
void sinew_gpbd_record_jacobi(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r);
/* Designed traffic of `count` element updates. */
uint64_t sinew_gpbd_bytes(uint32_t count);

/* hpbd.c: the hierarchy's host copies from the asset, its upload, the
 * coarse-to-fine sweep of a substep, and its part of a cut. */
sinew_result sinew_hpbd_copy(sinew_pbd *s, const sinew_asset *a, const sinew_logger *lg);
sinew_result sinew_hpbd_upload(sinew_pbd *s, sinew_context *ctx, uint32_t particle_count);
void sinew_hpbd_free(sinew_pbd *s);
void sinew_hpbd_record(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r);
sinew_result sinew_hpbd_cut(sinew_pbd *s, const sinew_body_view *v, const uint32_t *pairs, uint32_t pair_count);

#endif
