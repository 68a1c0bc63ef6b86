/* Attachments to moving frames, pins' targets and long-range tethers
 * (docs/attachments.md): the host side of the ATTACH binding. Internal. */
#ifndef SINEW_ATTACH_H
#define SINEW_ATTACH_H

#include <sinew/body.h>

#include "asset/asset.h"
#include "gpu/gpu.h"

/* What the body keeps of its attachments. Counts in records; the ATTACH
 * buffer's regions in vec4s (shared/layout.h):
 *
 *   frames 4F | pins P | records 2A | targets A | tethers T
 *   \______ dynamic: from the host each step _/
 */
typedef struct sinew_attach {
    int on;                   /* the solver predicts (record_solve): pins' targets and frames on the
                                 device; 0 (implicit solvers): pins as before, nothing attached */
    uint32_t frame_count, attachment_count, pin_capacity, tether_count;
    uint32_t compliant_count; /* attachments with compliance > 0 */
    uint32_t pin_count;       /* slots in use */
    float *frames;            /* 8 per frame: position xyz, 0, unit rotation xyzw: as last set */
    float *pins;              /* 4 per slot: target xyz, particle's bits (SINEW_ATTACH_NONE: free) */
    uint32_t *pin_of;         /* per particle: its pin slot, or SINEW_ATTACH_NONE */
    uint32_t *attached;       /* per particle: its attachment, or SINEW_ATTACH_NONE */
    float *records;           /* 8 per attachment: offset xyz, compliance; particle, frame bits, 0, 0 */
    float *tethers;           /* 4 per tether: particle, anchor bits, rest length, 0 */
    float *staging;           /* the dynamic region as the host writes it (vkCmdUpdateBuffer's source) */
} sinew_attach;

/* Refuses (naming what is wrong) attachments, frames and tethers the desc
 * gives that the asset or solver cannot take. */
sinew_result sinew_attach_check(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d);
/* Builds the host side from the checked desc and asset: records with their
 * offsets, the pins (the asset's, less the held attachments'), the tethers
 * (Dijkstra from every anchor). `on`: the solver has a prediction. */
sinew_result sinew_attach_plan(sinew_attach *at, const sinew_logger *lg, const sinew_asset *a,
                               const sinew_body_desc *d, int on);
void sinew_attach_free(sinew_attach *at);
/* Inverse masses as the body starts: held particles 0 (xyzw, n vec4s). */
void sinew_attach_masses(const sinew_attach *at, float *xyzw, uint32_t n);

/* Bytes of the ATTACH buffer and of its dynamic part (0: none). */
uint64_t sinew_attach_bytes(const sinew_attach *at);
uint64_t sinew_attach_dynamic_bytes(const sinew_attach *at);
/* Uploads the records and tethers (the static part). */
sinew_result sinew_attach_upload(const sinew_attach *at, sinew_context *ctx, sinew_buffer *buf);
/* The dynamic part for the next step into at->staging: the frames from their
 * last poses to `frames` (NULL: they stay), the pins' targets. The new poses
 * become the last. `frames` are checked (sinew_attach_check_frames). */
void sinew_attach_write(sinew_attach *at, const sinew_frame *frames);
/* The step just written was rolled back: the frames return to the poses it
 * started from (still in the staging copy). */
void sinew_attach_rolled_back(sinew_attach *at);
/* Refuses a step's frames that are not finite, or a rotation of length 0,
 * or a count other than the body's. */
sinew_result sinew_attach_check_frames(const sinew_attach *at, const sinew_logger *lg, const char *body,
                                       const sinew_frame *frames, uint32_t count);

/* The step's dispatches: after each substep's prediction (pins, targets,
 * held particles), and in each iteration before the contacts (compliant
 * attachments and tethers; the position-based solvers). Each records its
 * barrier; nothing when there is nothing to do. */
void sinew_attach_record_substep(const sinew_attach *at, sinew_recorder *r, uint32_t substep, uint32_t substeps);
void sinew_attach_record_project(const sinew_attach *at, sinew_recorder *r);

/* Pins: particle i pinned at x (slot taken; *full when no slot is free:
 * grow first), set free, moved (checked by the caller). */
void sinew_attach_pin(sinew_attach *at, uint32_t i, const float x[3], int *full);
void sinew_attach_unpin(sinew_attach *at, uint32_t i);
/* Overwrites each pinned particle's position in xyz (stride floats apart)
 * with its target: what the next step puts it at. */
void sinew_attach_overlay(const sinew_attach *at, float *xyz, uint32_t stride);
/* Every position the attachments hold (frames, pins' targets) less `by`. */
void sinew_attach_translate(sinew_attach *at, const float by[3]);
/* Grows the pin slots to `capacity` (host side; the body makes the buffers). */
sinew_result sinew_attach_grow(sinew_attach *at, const sinew_logger *lg, uint32_t capacity);

#endif
