/* GPU test fixture: a context on the default device (lavapipe here) with
 * validation and synchronization validation on. Every message the layer sends
 * is recorded; gpu_teardown fails the test if any arrived. */
#ifndef SINEW_GPU_FIXTURE_H
#define SINEW_GPU_FIXTURE_H

#include <sinew/sinew.h>

#include "prep/cloth.h"

extern sinew_context *gpu_ctx;

void gpu_setup(void);
void gpu_teardown(void);

/* Messages logged so far at WARNING or worse (any origin), and whether one
 * contains text. */
int gpu_error_count(void);
int gpu_log_contains(const char *text);
const char *gpu_log_text(void); /* everything logged since the last clear */
void gpu_log_clear(void);
const sinew_logger *gpu_logger(void);

/* A second context on the default device, validation on, in the discrete-GPU
 * memory model (every upload and readback through staging), its messages to
 * the fixture's log. */
sinew_context *gpu_make_staged_context(void);

/* A cloth grid nx x ny in the XZ plane at height y, size metres, pinned at the
 * two corners of its first row. Caller destroys. */
sinew_asset *gpu_make_cloth(uint32_t nx, uint32_t ny, double size, double y, int pin_corners);
/* Sets d->sweep_layout DEFAULT to what the library picks for the asset on
 * gpu_ctx's device, so that a CPU reference (tests/ref) follows the same
 * sweep. */
void gpu_resolve_layout(const sinew_asset *asset, sinew_body_desc *d);

/* The same with clusters of at most cluster_particles particles (0: none, a
 * dispatch per colour). */
sinew_asset *gpu_make_cloth_clustered(uint32_t nx, uint32_t ny, double size, double y, int pin_corners,
                                      uint32_t cluster_particles);

/* The kind of asset `solver` steps: a small cloth (with a hierarchy for
 * HPBD, red-black for PD, nested levels for the implicit solvers) or a soft
 * block (GPBD, MGPBD). Caller destroys. */
sinew_asset *gpu_make_solver_asset(sinew_solver solver);

/* `layers` square grids of nx x nx particles, `size` m wide, horizontal,
 * the lowest at height y, each `gap` above the one before, turned by
 * `twist` rad each about the vertical; one cloth asset (parts free). */
sinew_asset *gpu_layered_cloth(uint32_t nx, double size, double y, uint32_t layers, double gap, double twist);
/* One such grid turned by `turn` rad about the vertical. */
sinew_asset *gpu_turned_cloth(uint32_t nx, double size, double y, double turn);

/* Triangle pairs of body a's surface (asset aa) and body b's that
 * intersect at their current positions; pairs within one body not counted. */
uint64_t gpu_crossings(sinew_body *a, const sinew_asset *aa, sinew_body *b, const sinew_asset *ab);

#endif
