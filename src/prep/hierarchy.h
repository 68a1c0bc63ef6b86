/* The particle hierarchy of Hierarchical PBD (Müller 2008, "Hierarchical
 * Position Based Dynamics", section 6; docs/math.md section 4; docs/hpbd.md),
 * built offline from a cloth asset's distance constraints and stored in the
 * asset (asset.h lists the invariants).
 *
 * Level 0 is every particle, neighbours being particles that share a distance
 * constraint. Each coarser level keeps a subset: all particles start coarse and
 * are visited once (pinned particles last, so they tend to stay coarse); one
 * becomes fine when it has >= k coarse neighbours and every fine neighbour
 * keeps > k. A fine particle's parents are its coarse neighbours, weighted
 * 1 / (d + eps) by rest distance and normalised. Coarse constraints: the
 * level's edges with each fine particle collapsed into the coarse neighbour
 * nearest the average of its coarse neighbours (rest positions), among those
 * whose collapse leaves every edge on a triangle when there are such (the
 * paper's rule alone can strand a boundary edge; hierarchy.c); an edge to a
 * particle the target already touches is dropped, others are redirected, with
 * the rest length the sum of the two collapsed ones (geodesic) or the rest-pose
 * distance. Disconnected pieces are handled in the same sweep. Levels are added
 * until max_levels, a level of min_particles or fewer, or one that would keep
 * more than 90 % of the particles before it. Each level's constraints are
 * coloured (no particle twice in a colour).
 */
#ifndef SINEW_PREP_HIERARCHY_H
#define SINEW_PREP_HIERARCHY_H

#include "../asset/asset.h"
#include "colouring.h"

typedef struct sinew_hierarchy_options {
    uint32_t k;               /* parents each fine particle keeps, >= 1 (default 2) */
    uint32_t max_levels;      /* levels including level 0, 2..SINEW_ASSET_MAX_LEVELS (default 5) */
    uint32_t min_particles;   /* stop once a level has this many particles or fewer (default 16) */
    /* enum sinew_hierarchy_rest (default REST_POSE: on a flat hanging cloth the
     * geodesic lengths, longer than the straight ones, grip late; docs/hpbd.md) */
    uint32_t rest;
    /* eps of the weights, as a fraction of the mean rest length of the level-0
     * constraints (default 1e-4): a particle at a parent's place gives that
     * parent a weight of at least 1 - about 1e-4. */
    double epsilon;
    sinew_colouring_method colouring;
} sinew_hierarchy_options;

sinew_hierarchy_options sinew_hierarchy_options_default(void);

typedef struct sinew_hierarchy_report {
    uint32_t level_count;
    uint32_t particles[SINEW_ASSET_MAX_LEVELS];   /* per level */
    uint32_t constraints[SINEW_ASSET_MAX_LEVELS]; /* level 0: the asset's distances */
    uint32_t colours[SINEW_ASSET_MAX_LEVELS];     /* level 0: the asset's colours */
    uint32_t links;                               /* parent links in all */
} sinew_hierarchy_report;

/* Builds the hierarchy of asset a from its particles (rest positions, inverse
 * masses) and distance constraints, replacing any it had. Refuses, naming the
 * problem and leaving the asset unchanged, options out of range or an asset
 * without distance constraints; an asset that cannot be coarsened at all
 * (every particle needed on level 1) is refused too. report may be NULL. */
sinew_result sinew_hierarchy_build(sinew_asset *a, const sinew_hierarchy_options *opt, const sinew_logger *lg,
                                   sinew_hierarchy_report *report);

#endif
