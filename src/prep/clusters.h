/* Clustered Gauss-Seidel sweeps (docs/colouring.md): the distance and bending
 * constraints split into passes, each pass into clusters of at most
 * max_particles particles that share no particle, each cluster running the
 * asset's colours that hold its constraints. On the device a pass is one dispatch, a cluster one workgroup that
 * holds its particles in shared memory and runs its colours with workgroup
 * barriers between them; a sweep costs a dispatch per pass instead of one per
 * colour.
 *
 * The first pass tiles the rest shape (recursive coordinate bisection); the
 * next ones grow clusters along the constraints the passes before them cut
 * (breadth first over what is left); what the grown passes leave is coloured
 * as before, each colour a pass of clusters that are chunks of it. The
 * number of grown passes is the one that makes the fewest passes in all.
 */
#ifndef SINEW_PREP_CLUSTERS_H
#define SINEW_PREP_CLUSTERS_H

#include "../asset/asset.h"

#define SINEW_CLUSTER_DEFAULT_PARTICLES 256u
#define SINEW_CLUSTER_MIN_PARTICLES 16u

typedef struct sinew_cluster_report {
    uint32_t pass_count;        /* dispatches per sweep */
    uint32_t grown_passes;      /* of them, passes of grown clusters */
    uint32_t cluster_count;
    uint32_t smallest, largest; /* particles per cluster */
    uint32_t most_colours;      /* colours of the cluster with the most */
    uint32_t leftover;          /* constraints in the coloured passes */
    uint32_t first_pass;        /* constraints in the first pass */
    uint32_t constraint_count;  /* distances + bends */
    uint32_t colour_count;      /* the asset's colours: dispatches per sweep without clusters */
} sinew_cluster_report;

/* Adds (or replaces) the asset's clustered sweeps, clusters of at most
 * max_particles (SINEW_CLUSTER_MIN_PARTICLES..SINEW_CLUSTER_MAX_PARTICLES)
 * particles. An asset without distances or bends gets none. INVALID_ARGUMENT
 * for a size out of range, BAD_ASSET for an asset sinew_asset_validate
 * refuses, OUT_OF_HOST_MEMORY, LIMIT past the asset's limits;
 * the asset is unchanged on failure. Deterministic. */
sinew_result sinew_cluster_asset(sinew_asset *a, uint32_t max_particles, const char *name, const sinew_logger *lg,
                                 sinew_cluster_report *report);

#endif
