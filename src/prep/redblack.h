/* The red-black partition of a spring network (Pall, Nylén and Fratarcangeli,
 * "Fast Quadrangular Mass-Spring Systems using Red-Black Ordering"; docs/math.md
 * section 7): particles in two sets such that every spring joins a red and a
 * black particle, so that each Gauss-Seidel iteration of the global step is two
 * parallel passes. A quad mesh's edge graph has one; diagonal (shear) springs
 * or a triangle close an odd cycle and break it.
 *
 * Breadth-first search from each unvisited particle colours its piece,
 * alternating with the distance from the start; a spring between two
 * particles of one colour closes an odd cycle, which is reported: the two
 * search-tree paths from its ends up to their common ancestor, joined by the
 * spring. Disconnected pieces and isolated particles (red) need nothing
 * special. Removing springs (tearing) keeps a partition valid.
 */
#ifndef SINEW_PREP_REDBLACK_H
#define SINEW_PREP_REDBLACK_H

#include <sinew/core.h>

#define SINEW_REDBLACK_RED 0u
#define SINEW_REDBLACK_BLACK 1u
/* Longest odd cycle the report keeps whole (longer ones: their first particles). */
#define SINEW_REDBLACK_CYCLE_MAX 64u

typedef struct sinew_redblack_report {
    uint32_t red, black;          /* particles of each colour */
    uint32_t pieces;              /* connected pieces */
    /* When the network is not bipartite: an odd cycle, cycle[0] ... cycle[k-1]
     * with consecutive particles (and the last and the first) joined by a
     * spring; cycle_length is its true length, of which the first
     * SINEW_REDBLACK_CYCLE_MAX are stored. 0 when bipartite. */
    uint32_t cycle_length;
    uint32_t cycle[SINEW_REDBLACK_CYCLE_MAX];
} sinew_redblack_report;

/* Partitions particles [0, particle_count) joined by springs (ends[2k],
 * ends[2k + 1]) into colour[i] = SINEW_REDBLACK_RED or _BLACK. A network with
 * an odd cycle is refused with SINEW_RESULT_ERROR_BAD_MESH and a message
 * naming the cycle (and the report holding it); an end out of range or a
 * spring joining a particle to itself with INVALID_ARGUMENT. name appears in
 * messages. report may be NULL. */
sinew_result sinew_redblack_partition(uint32_t particle_count, uint32_t spring_count, const uint32_t *ends,
                                      const char *name, const sinew_logger *lg, uint8_t *colour,
                                      sinew_redblack_report *report);

/* The partition of an asset's distance constraints, stored in it (the PRED and
 * PBLK sections, asset format 1.3), replacing any; refused as above, leaving
 * the asset unchanged. */
struct sinew_asset;
sinew_result sinew_redblack_asset(struct sinew_asset *a, const char *name, const sinew_logger *lg,
                                  sinew_redblack_report *report);

/* 1 when every spring joins particles of two colours. */
int sinew_redblack_is_valid(uint32_t spring_count, const uint32_t *ends, const uint8_t *colour);

#endif
