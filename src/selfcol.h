/* Self-collision of a body's surface (docs/self-collision.md): vertex
 * against triangle and edge against edge, as unilateral constraints with
 * friction, from candidate lists rebuilt each substep by a spatial hash on
 * the device. What the body and the position-based solvers call; the
 * kernels are selfcol_kernels.glsl (and collide.comp, which applies the
 * corrections), the layout shared/selfcol.h. Internal.
 *
 * Each substep after its prediction (7 dispatches, each followed by a
 * barrier):
 *     sweep    each workgroup's sum of its particles' sweeps (PREV to the
 *              prediction); the table cleared
 *     common   one workgroup: their mean, the common sweep
 *     bounds   each item's box over its particles at PREV and moved by their
 *              sweeps less the common one, grown by the thickness
 *     count    entries per bucket: an item in every cell its box overlaps
 *              (the cell size fixed from the rest shape)
 *     scan     buckets' ends (one workgroup)
 *     scatter  the entries into buckets
 *     query    each item's candidates in the cells its box overlaps: the K
 *              nearest among those whose boxes overlap and which are nearer
 *              at PREV than the reach (1.5 thicknesses) plus how far their sweeps may bring
 *              them together; the side each pair is on
 * Each iteration, after the solver's sweeps:
 *     project  each item's contacts into its correction slots
 *     (barrier; then the collide dispatch adds each particle's mean
 *     correction before its collider contacts)
 */
#ifndef SINEW_SELFCOL_H
#define SINEW_SELFCOL_H

#include <sinew/body.h>

#include "asset/asset.h"
#include "gpu/gpu.h"

/* A surface: rest positions (x, y, z of each record) and triangles. */
typedef struct sinew_surface {
    const sinew_particle_rec *particles;
    uint32_t particle_count;
    const sinew_triangle_rec *triangles;
    uint32_t triangle_count;
} sinew_surface;

static inline sinew_surface sinew_surface_of(const sinew_asset *a)
{
    return (sinew_surface){a->particles, a->particle_count, a->triangles, a->triangle_count};
}

typedef struct sinew_selfcol {
    uint32_t vertices, triangles, edges; /* the body's own items: V + T + E */
    uint32_t other_items;                /* other bodies' items: GV + GT + GE */
    uint64_t ghost_offset;               /* SELF_REAL's other bodies' positions (vec4s) */
    uint32_t capacity;                   /* K */
    uint32_t table;                      /* H, buckets */
    uint32_t particles;
    uint64_t index_words;                /* SELF_INDEX */
    uint64_t real_vec4s;                 /* SELF_REAL */
    uint64_t rest_offset;                /* SELF_REAL's rest positions (vec4s) */
    uint32_t *image;                     /* SELF_INDEX's fixed part, until uploaded */
    uint64_t image_words;
} sinew_selfcol;

/* The bodies of a world's chain (world.c): each particle's body index, the
 * chain's own particles then the other chains' as they follow in the
 * surfaces given, and each body's filter (category bits, mask bits, 1 when
 * its own pairs collide; shared/selfcol.h, SINEW_SELF_FILTER). */
typedef struct sinew_selfcol_bodies {
    uint32_t *body_of;       /* own particles + the other bodies' particles */
    uint32_t particle_count;
    uint32_t *filter;        /* 3 per body */
    uint32_t body_count;
} sinew_selfcol_bodies;

/* Refuses what self-collision cannot take (no triangles, a solver without
 * it, parameters out of range), naming it. OK when desc->self_collision is 0
 * and `always` is 0 (1: the checks of collision with other bodies, which
 * uses the same desc fields, `what` naming it in messages). */
sinew_result sinew_selfcol_check(const sinew_context *ctx, uint32_t triangle_count, const sinew_body_desc *d,
                                 int always, const char *what);

/* The surface, its edges and each particle's slots, the other bodies'
 * surfaces after it (their particles numbered from own->particle_count, one
 * body after another), and the sizes of the two buffers; the body's own
 * pairs collide when d->self_collision is set, and, given a world's
 * `bodies` (NULL: none; its particle count must be the own and the other
 * surfaces' together), only the pairs of bodies its filter lets collide.
 * Refuses sizes past the device's bindings. */
sinew_result sinew_selfcol_plan(const sinew_context *ctx, const sinew_surface *own, const sinew_body_desc *d,
                                const sinew_surface *others, uint32_t other_count,
                                const sinew_selfcol_bodies *bodies, sinew_selfcol *s);
/* Writes the fixed part into SELF_INDEX (made from the plan's sizes), the
 * body's rest positions into SELF_REAL, and frees the host image. */
sinew_result sinew_selfcol_upload(sinew_context *ctx, sinew_selfcol *s, const sinew_surface *own,
                                  sinew_buffer *index, sinew_buffer *real);
void sinew_selfcol_free(sinew_selfcol *s);

void sinew_selfcol_record_build(const sinew_selfcol *s, sinew_recorder *r);
void sinew_selfcol_record_project(const sinew_selfcol *s, sinew_recorder *r);

/* The hash's cell size (m): the 90th percentile of the surface triangles'
 * rest extents (their bounding boxes' longest side), the largest of the
 * body's and the other bodies', plus the reach (SINEW_SELF_REACH
 * thicknesses); 0 when out of memory. */
float sinew_selfcol_cell_size(const sinew_surface *own, const sinew_surface *others, uint32_t other_count,
                              float thickness);

/* The surface as the kernels number it: surface vertices (particles on a
 * triangle, ascending) and edges (each once, lower particle first,
 * ascending), for the CPU reference. Allocates; 0 when out of memory. */
int sinew_selfcol_surface(const sinew_surface *a, uint32_t **verts, uint32_t *vertex_count, uint32_t **edges,
                          uint32_t *edge_count);

#endif
