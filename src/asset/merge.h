/* Merging assets into one, so that a world steps many bodies of one solver
 * family and one set of settings as one internal body: one dispatch per
 * colour (cluster pass, element colour, hierarchy level) covers them all.
 *
 * Within every colour, element colour, cluster pass and hierarchy level the
 * merged asset holds asset 0's records of it, then asset 1's, and so on, each
 * asset's in its own order, so that every body's constraints are projected in
 * exactly the order they are when it is alone (results bit-identical):
 *
 *   merged colour c:  | asset 0's colour c | asset 1's colour c | ... |
 *                       (distances and bends, each its own range)
 *
 * Particles, triangles, materials, links, red and black lists and the render
 * mesh are concatenated, their indices rebased, except the render
 * triangles: each source's count from its own first render vertex, so that
 * a body of a batch is drawn from there as it is alone. Multigrid levels and meta
 * text are not carried (the solvers that need levels are never batched).
 */
#ifndef SINEW_ASSET_MERGE_H
#define SINEW_ASSET_MERGE_H

#include "asset.h"

/* Where each source asset's records went in the merged asset. */
typedef struct sinew_merge_map {
    uint32_t particle_first;   /* source particle i is merged particle particle_first + i */
    uint32_t triangle_first;   /* surface triangles (asset->triangles) */
    uint32_t material_first;
    uint32_t rvertex_first, rtriangle_first; /* render mesh */
    uint32_t *distance_of;     /* distance_count entries: the merged index of source distance d */
    uint32_t *bend_of;         /* bend_count entries */
    uint32_t *element_of;      /* element_count entries */
} sinew_merge_map;

/* Why assets a and b cannot share one merged asset (a static English phrase
 * such as "one has a hierarchy, the other not"), or NULL when they can. They
 * can when both or neither have each of: a hierarchy (then of as many levels
 * and the same rest-length kind), clustered sweeps, a red-black partition, a
 * render mesh; and when their constraints (elements) are coloured in both or
 * in neither of those that have any. a and b are borrowed. */
const char *sinew_asset_merge_conflict(const sinew_asset *a, const sinew_asset *b);

/* Merges count >= 1 valid assets (pairwise without conflict; every loaded or
 * built asset is valid) into *out, a new asset that passes
 * sinew_asset_validate (free it with sinew_asset_destroy). The assets are
 * borrowed for the call. maps (count entries) says where each asset's records
 * went; free each with sinew_merge_map_free.
 * NULL assets, out or maps, count 0 or a NULL asset among them are programmer
 * errors (SINEW_ASSERT). Returns INVALID_ARGUMENT for a conflict, or for more
 * than SINEW_ASSET_MAX_PARTICLES particles, SINEW_ASSET_MAX_RECORDS records of
 * one kind, SINEW_ASSET_MAX_COLOURS coarse colours or SINEW_ASSET_MAX_MATERIALS
 * materials in all, and OUT_OF_HOST_MEMORY, each with a message through lg
 * (NULL: stderr) naming what was wrong. On failure nothing is allocated: *out
 * is NULL and every map zeroed. */
sinew_result sinew_asset_merge(const sinew_asset *const *assets, uint32_t count, const sinew_logger *lg,
                               sinew_asset **out, sinew_merge_map *maps);

/* Frees a map's arrays and zeroes it; NULL or a zeroed map does nothing. */
void sinew_merge_map_free(sinew_merge_map *m);

#endif
