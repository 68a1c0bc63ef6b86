/* CPU double-precision reference of the XPBD and GPBD step (docs/math.md 1-3): the same
 * algorithm, order of constraints and contacts as the GPU kernels. */
#ifndef SINEW_XPBD_REF_H
#define SINEW_XPBD_REF_H

#include <sinew/sinew.h>

typedef struct xpbd_ref xpbd_ref;

/* desc.sweep_layout DEFAULT is taken as on a GPU: the asset's clusters where
 * it has them (a CPU device sweeps colours: resolve the layout first). */
xpbd_ref *xpbd_ref_create(const sinew_asset *asset, const sinew_body_desc *desc);
void xpbd_ref_destroy(xpbd_ref *r);
void xpbd_ref_step(xpbd_ref *r, const sinew_step_params *p);
/* xyz of particle i (3 doubles). */
const double *xpbd_ref_position(const xpbd_ref *r, uint32_t i);
/* Max and RMS strain |C|/L over distance constraints, as the GPU residual. */
void xpbd_ref_strain(const xpbd_ref *r, double *max_strain, double *rms_strain);
/* Sum of squared violations: distance C (m) and bending C (rad), for convergence. */
double xpbd_ref_violation(const xpbd_ref *r);
/* Newton iterations of all GPBD element updates in the last step. */
long long xpbd_ref_newton_iterations(const xpbd_ref *r);
/* Self-collision's counts in the last step (desc.self_collision; 0 without):
 * as sinew_step_stats' self_candidates, self_dropped, self_contacts. */
void xpbd_ref_self_counts(const xpbd_ref *r, uint64_t *candidates, uint64_t *dropped, uint64_t *contacts);
/* Collision with other bodies as sinew_body_set_contact_bodies makes it:
 * their assets, then before each step their positions (3 doubles per
 * particle, one body after another), still through the step. */
void xpbd_ref_set_contact_bodies(xpbd_ref *r, const sinew_asset *const *others, uint32_t count);
void xpbd_ref_set_others(xpbd_ref *r, const double *xyz);
/* Largest particle speed (m/s); infinity when a position or velocity is not finite. */
double xpbd_ref_max_speed(const xpbd_ref *r);

#endif
