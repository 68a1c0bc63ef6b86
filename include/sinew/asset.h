/* sinew/asset.h: loading preprocessed asset files (.snw).
 *
 * An asset holds what the offline tool built from a mesh: rest positions and
 * inverse masses, triangles, constraints sorted by colour, and later solvers'
 * sections. The loader treats the file as untrusted: every count, offset, index
 * and checksum is checked, and any problem is reported through the logger with
 * the section and record at fault. A failed load leaves nothing allocated.
 * Assets do not need a Vulkan context; bodies are created from them.
 * The file format is described in docs/asset-format.md.
 */
#ifndef SINEW_ASSET_H
#define SINEW_ASSET_H

#include "core.h"
#include "material.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_asset sinew_asset;

typedef struct sinew_asset_info {
    uint32_t particle_count;
    uint32_t triangle_count;
    uint32_t distance_count;   /* stretch + shear distance constraints */
    uint32_t bend_count;       /* dihedral bending constraints */
    uint32_t colour_count;     /* Gauss-Seidel colours */
    uint32_t pinned_count;     /* particles with inverse mass 0 */
    float bounds_min[3];       /* m, rest pose */
    float bounds_max[3];
    float total_mass;          /* kg, pinned particles excluded */
    /* Finite elements for the GPBD solvers (docs/gpbd.md). */
    uint32_t element_count;         /* all kinds */
    uint32_t tet_count, membrane_count, spring_count;
    uint32_t element_colour_count;  /* Gauss-Seidel colours of the element dual graph */
    uint32_t material_count;
    float rest_volume;              /* m^3, sum over tetrahedra */
    /* Hierarchical PBD (docs/hpbd.md): levels including level 0 (0: no
     * hierarchy), particles on the coarsest level, coarse constraints of all
     * levels. */
    uint32_t hierarchy_levels, coarsest_particles, coarse_distance_count;
    /* Implicit multigrid cloth (docs/implicit.md): nested levels including
     * the finest (0: none) and the coarsest level's particles. */
    uint32_t multigrid_levels, multigrid_coarsest_particles;
    /* Clustered Gauss-Seidel sweeps (docs/colouring.md): passes of one
     * dispatch each (0: none, a dispatch per colour) and their clusters. */
    uint32_t cluster_passes, cluster_count;
} sinew_asset_info;

/* Reads and validates an asset file. On success *out owns the asset; free it with
 * sinew_asset_destroy. logger may be NULL: warnings and errors go to stderr. */
SINEW_API sinew_result sinew_asset_load(const char *path, const sinew_logger *logger, sinew_asset **out);

/* Same, from memory. bytes is borrowed for the call only; name appears in messages. */
SINEW_API sinew_result sinew_asset_load_memory(const void *bytes, size_t size, const char *name,
                                               const sinew_logger *logger, sinew_asset **out);

SINEW_API void sinew_asset_destroy(sinew_asset *asset);

SINEW_API sinew_asset_info sinew_asset_get_info(const sinew_asset *asset);

/* The triangles of the surface (3 particle indices each), for rendering and
 * export. Owned by the asset, valid until it is destroyed. */
SINEW_API const uint32_t *sinew_asset_get_triangles(const sinew_asset *asset, uint32_t *triangle_count);

/* The tetrahedra among the elements (4 particle indices each, positively
 * oriented at rest), copied into tets (room for 4 * info.tet_count). */
SINEW_API void sinew_asset_get_tets(const sinew_asset *asset, uint32_t *tets);

/* The rest positions (3 floats per particle, room for 3 * info.particle_count). */
SINEW_API void sinew_asset_get_positions(const sinew_asset *asset, float *xyz);

/* The particles each distance constraint joins (2 per constraint, room for
 * 2 * info.distance_count), in the asset's order: what sinew_body_cut takes. */
SINEW_API void sinew_asset_get_distances(const sinew_asset *asset, uint32_t *pairs);

/* Material `index` of the asset's table (elements name theirs by index). */
SINEW_API sinew_result sinew_asset_get_material(const sinew_asset *asset, uint32_t index, sinew_material *out);

#ifdef __cplusplus
}
#endif
#endif
