/* CPU double-precision reference of self-collision (docs/self-collision.md):
 * the candidate lists each substep and the contacts each iteration, as
 * selfcol_kernels.glsl and collide.comp compute them. The broad phase here is a
 * sorted grid, not the device's hash: both find every pair whose boxes
 * overlap, so the lists are the same sets. */
#ifndef SINEW_SELFCOL_REF_H
#define SINEW_SELFCOL_REF_H

#include <sinew/sinew.h>

typedef struct selfcol_ref selfcol_ref;

/* NULL when desc->self_collision is 0 (or out of memory); with other bodies,
 * selfcol_ref_create_with below. */
selfcol_ref *selfcol_ref_create(const sinew_asset *asset, const sinew_body_desc *desc);
/* With collision against other bodies (sinew_body_set_contact_bodies):
 * their surfaces' items after the body's own, still positions given by
 * selfcol_ref_set_others before each step; NULL when the body has neither. */
selfcol_ref *selfcol_ref_create_with(const sinew_asset *asset, const sinew_body_desc *desc,
                                     const sinew_asset *const *others, uint32_t count);
/* The others' positions, 3 doubles per particle, one body after another. */
void selfcol_ref_set_others(selfcol_ref *s, const double *xyz);
void selfcol_ref_destroy(selfcol_ref *s);

/* The substep's candidate lists from the positions at its start (prev) and
 * its prediction (x), 3 doubles per particle, and the inverse masses w (0:
 * pinned). */
void selfcol_ref_build(selfcol_ref *s, const double *prev, const double *x, const double *w);
/* One iteration's contacts: each free particle (w > 0) moves by the mean
 * correction of its active contacts. */
void selfcol_ref_project(selfcol_ref *s, const double *prev, double *x, const double *w);

/* Since the last selfcol_ref_reset_counts: candidates kept, dropped, and
 * contact projections (as sinew_step_stats counts them). */
void selfcol_ref_reset_counts(selfcol_ref *s);
void selfcol_ref_counts(const selfcol_ref *s, uint64_t *candidates, uint64_t *dropped, uint64_t *contacts);

/* Candidate list of item k (surface vertices, triangles, edges numbered as
 * on the device): count, and entries (item | side << SINEW_SELF_SIDE_SHIFT). */
uint32_t selfcol_ref_list(const selfcol_ref *s, uint32_t k, const uint32_t **entries);

#endif
