/* Nested triangle meshes for geometric multigrid (Jeon et al. 2013, docs/math.md
 * 5): a coarse triangle mesh subdivided 1 -> 4 again and again, each new
 * vertex at the midpoint of an edge of the level before, its two parents (the
 * edge's ends) recorded.
 *
 * Numbering is nested: level l's vertices are the first vertex_count[l] of
 * the finest level, so a vertex keeps its index on every level it belongs to,
 * and the vertices new on level l are [vertex_count[l-1], vertex_count[l]).
 * Level 0 is the coarse input. With that, the transfers between levels l-1
 * and l are:
 *
 *   restriction (full weighting)   r_c[i] = r_f[i] + 1/2 sum of r_f[m] over the
 *                                  new vertices m of level l with i a parent
 *   prolongation (linear)          e_f[i] = e_c[i] for an old vertex,
 *                                  e_f[m] = (e_c[p0] + e_c[p1]) / 2 for a new one
 *
 * Each level's vertices are also coloured for block Gauss-Seidel, colour by
 * colour: distance 1 over the graph of the cloth's system matrix, so two
 * vertices of one triangle, or the two wings of an edge two triangles share
 * (a bending hinge couples them), never share a colour.
 */
#ifndef SINEW_PREP_NESTED_H
#define SINEW_PREP_NESTED_H

#include <sinew/asset.h>
#include <sinew/core.h>

#include "mesh.h"

#define SINEW_NESTED_MAX_LEVELS 12

typedef struct sinew_nested_level {
    uint32_t vertex_count;      /* the first vertex_count vertices of the finest level */
    uint32_t triangle_count;
    uint32_t *triangles;        /* 3 per triangle, winding of the input */
    uint32_t colour_count;
    uint32_t *colour_offsets;   /* colour_count + 1 */
    uint32_t *colour_vertices;  /* this level's vertices, colour by colour, increasing within a colour */
} sinew_nested_level;

typedef struct sinew_nested {
    uint32_t level_count;       /* 1 + subdivisions; level 0 coarsest */
    sinew_nested_level levels[SINEW_NESTED_MAX_LEVELS];
    double *positions;          /* 3 per vertex of the finest level */
    /* 2 per vertex of the finest level: the ends of the edge it is the
     * midpoint of, both on the level before its own; UINT32_MAX for the
     * vertices of level 0. */
    uint32_t *parents;
} sinew_nested;

/* Subdivides the triangles of coarse `subdivisions` times (0 .. MAX_LEVELS-1).
 * The coarse mesh must be all triangles (sinew_mesh_triangulate_quads splits
 * quads) with every vertex on a triangle and no degenerate triangle.
 * BAD_MESH (named) otherwise, LIMIT when the finest level would pass 2^26
 * vertices or triangles, OUT_OF_HOST_MEMORY; out is zeroed on failure. */
sinew_result sinew_nested_subdivide(const sinew_mesh *coarse, uint32_t subdivisions, const sinew_logger *lg,
                                    sinew_nested *out);

void sinew_nested_free(sinew_nested *n);

/* The transfers between level - 1 and level (1 .. level_count-1), on
 * `width` doubles per vertex (3 for vectors). restrict_ adds nothing: it
 * writes coarse[0 .. vertex_count[level-1]). */
void sinew_nested_restrict(const sinew_nested *n, uint32_t level, uint32_t width, const double *fine, double *coarse);
void sinew_nested_prolong(const sinew_nested *n, uint32_t level, uint32_t width, const double *coarse, double *fine);

/* The level's bending hinges: 4 vertices per edge shared by exactly two
 * triangles, (p0, p1) the edge as the first triangle runs it, p2 that
 * triangle's third vertex, p3 the other's (sinew_dihedral_angle's order).
 * *hinges is malloc'd (the caller frees it). OUT_OF_HOST_MEMORY. */
sinew_result sinew_nested_hinges(const sinew_nested_level *L, uint32_t **hinges, uint32_t *count);

/* 1 when the colouring of each level is a partition of its vertices with no
 * triangle holding two vertices of one colour and no shared edge's two wings
 * of one colour. */
int sinew_nested_colouring_is_valid(const sinew_nested *n);

/* The finest level as a mesh of triangles (for sinew_cloth_build). */
sinew_result sinew_nested_finest_mesh(const sinew_nested *n, sinew_mesh *out);

/* Stores the levels in an asset built from the finest level's mesh (its
 * particles and triangles exactly those, in order): the multigrid sections of
 * format 1.4. INVALID_ARGUMENT if the asset does not match, LIMIT past
 * SINEW_ASSET_MAX_MLEVELS levels or below 2, OUT_OF_HOST_MEMORY. */
sinew_result sinew_nested_attach(sinew_asset *a, const sinew_nested *n, const sinew_logger *lg);

/* The whole way from a coarse mesh of triangles to a multigrid cloth asset:
 * subdivided `subdivisions` times, the cloth of the finest level built with
 * opt (pin indices of the coarse mesh stay theirs: numbering is nested), the
 * levels attached. nested (or NULL) receives the levels, for the caller to
 * free. Any step's failure, named; *out NULL then. */
struct sinew_cloth_options;
sinew_result sinew_nested_cloth(const sinew_mesh *coarse, uint32_t subdivisions,
                                const struct sinew_cloth_options *opt, const sinew_logger *lg, sinew_nested *nested,
                                sinew_asset **out);

#endif
