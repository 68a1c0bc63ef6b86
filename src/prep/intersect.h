/* Intersecting triangle pairs of a surface: the measure behind "no two
 * non-adjacent triangles of the settled cloth intersect". Geometry in exact
 * predicates on the single-precision input (a double filter, exact
 * expansions where it cannot decide), a uniform grid of cells as the broad
 * phase. */
#ifndef SINEW_PREP_INTERSECT_H
#define SINEW_PREP_INTERSECT_H

#include <sinew/core.h>

typedef struct sinew_intersect_report {
    uint64_t pairs;            /* intersecting non-adjacent triangle pairs */
    uint32_t first_a, first_b; /* the lowest pair (a < b, lexicographic) found, when pairs > 0 */
    uint64_t tested;           /* candidate pairs tested after the broad phase */
    uint32_t degenerate;       /* triangles of zero area (collinear corners, exactly): never counted */
} sinew_intersect_report;

/* Counts pairs of triangles that share no vertex (by index) and intersect
 * (touching counts; exactly coplanar overlapping pairs count too). xyz: 3
 * floats per vertex; tris: 3 indices per triangle; both borrowed for the call.
 * The triangles are closed sets and the answer is exact for the float
 * coordinates given: a pair one float ulp apart is apart, a pair touching at a
 * point in real arithmetic touches. A triangle whose corners are collinear
 * (two of them the same vertex or position included) has no plane and is left
 * out of every pair; their number is reported, and warned about. Deterministic:
 * the same input gives the same report.
 * Returns OK, or INVALID_ARGUMENT naming an index out of range or a non-finite
 * coordinate (every vertex is checked, used or not), OUT_OF_HOST_MEMORY; *out
 * is zeroed on failure. */
sinew_result sinew_count_intersections(const float *xyz, uint32_t vertex_count, const uint32_t *tris,
                                       uint32_t triangle_count, const sinew_logger *lg,
                                       sinew_intersect_report *out);

/* The narrow phase alone: whether triangles (a0, a1, a2) and (b0, b1, b2),
 * 3 floats each, finite, intersect as closed sets; 0 where either has zero
 * area. Shared corners are not excluded here: two triangles sharing a vertex
 * touch. Symmetric in its two triangles and exact, as above. */
int sinew_triangles_intersect(const float *a0, const float *a1, const float *a2, const float *b0, const float *b1,
                              const float *b2);

#endif
