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

/* The arrays the functions below fill have room for the counts of
 * sinew_asset_info or sinew_render_info; one whose count is 0 may be NULL. */

/* The triangles of the surface (3 particle indices each), for rendering and
 * export. Owned by the asset, valid until it is destroyed. */
SINEW_API const uint32_t *sinew_asset_get_triangles(const sinew_asset *asset, uint32_t *triangle_count);

/* The tetrahedra among the elements (4 particle indices each, positively
 * oriented at rest), copied into tets (room for 4 * info.tet_count). */
SINEW_API void sinew_asset_get_tets(const sinew_asset *asset, uint32_t *tets);

/* The rest positions (3 floats per particle, room for 3 * info.particle_count),
 * relative to the asset's origin. */
SINEW_API void sinew_asset_get_positions(const sinew_asset *asset, float *xyz);

/* Each particle's inverse mass (1/kg; 0: pinned), room for
 * info.particle_count. */
SINEW_API void sinew_asset_get_inverse_masses(const sinew_asset *asset, float *w);

/* Where the asset's frame sits in the world (m, double; docs/asset-format.md,
 * section ORIG): its positions and bounds are relative to it, so they stay
 * small numbers however far out the asset was placed (sinew-prep
 * --translate). A body made from the asset starts there: its origin is this
 * plus desc.origin (sinew_body_desc). (0, 0, 0) for an asset without one,
 * and for every file older than format 1.7. */
SINEW_API void sinew_asset_get_origin(const sinew_asset *asset, double origin[3]);

/* Places the asset's frame at `origin` (m) without moving its positions
 * relative to it: the bodies made from it afterwards start there.
 * INVALID_ARGUMENT, naming the coordinate
 * and leaving the asset unchanged, for a coordinate that is not finite or
 * beyond 1e9 m. logger may be NULL (stderr). */
SINEW_API sinew_result sinew_asset_set_origin(sinew_asset *asset, const double origin[3],
                                              const sinew_logger *logger);

/* The particles each distance constraint joins (2 per constraint, room for
 * 2 * info.distance_count), in the asset's order: what sinew_body_cut takes. */
SINEW_API void sinew_asset_get_distances(const sinew_asset *asset, uint32_t *pairs);

/* Material `index` of the asset's table (elements name theirs by index). */
SINEW_API sinew_result sinew_asset_get_material(const sinew_asset *asset, uint32_t index, sinew_material *out);

/* The render mesh (docs/render-mesh.md): the source model's own vertices
 * (split at UV and normal seams, as an engine's importer makes them) and
 * index buffer, each render vertex tied to up to 4 particles by weights.
 * Present when the mesh the asset was built from had texture coordinates or
 * split vertices (sinew-prep keeps them). */
typedef struct sinew_render_info {
    uint32_t vertex_count;      /* render vertices; 0: the asset has no render mesh */
    uint32_t index_count;       /* 3 per triangle */
    int has_uvs;                /* the source gave texture coordinates */
    int embedded;               /* the vertices are embedded in tetrahedra (soft solids): their
                                   normals follow the tetrahedra's deformation */
} sinew_render_info;

SINEW_API sinew_render_info sinew_asset_get_render_info(const sinew_asset *asset);

/* The texture coordinates (u, v: 2 floats per render vertex, room for
 * 2 * vertex_count; (0, 0) where the source gave none). */
SINEW_API void sinew_asset_get_render_uvs(const sinew_asset *asset, float *uv);

/* The index buffer: triangles over render vertices (room for index_count). */
SINEW_API void sinew_asset_get_render_indices(const sinew_asset *asset, uint32_t *indices);

/* Each render vertex's 4 particles and 4 weights (room for 4 * vertex_count
 * each; either may be NULL): its position is sum weights[k] *
 * position[particles[k]], weights in [0, 1] summing to 1. */
SINEW_API void sinew_asset_get_render_map(const sinew_asset *asset, uint32_t *particles, float *weights);

/* The rest normals (3 floats per render vertex, unit) and the rest positions
 * the map gives (3 floats per render vertex); either may be NULL. */
SINEW_API void sinew_asset_get_render_rest(const sinew_asset *asset, float *positions, float *normals);

/* The render mesh's material groups (docs/render-mesh.md): the source's
 * materials (OBJ usemtl) in order of first use, each a run of the index
 * buffer; together they cover it. 0 groups: the source named none. */
typedef struct sinew_render_material {
    const char *name;     /* as the source names it; "" for the triangles before its first usemtl.
                             Valid while the asset lives. */
    uint32_t first_index; /* its triangles are indices [first_index, first_index + index_count) */
    uint32_t index_count;
} sinew_render_material;

SINEW_API uint32_t sinew_asset_get_render_material_count(const sinew_asset *asset);

/* Group `index` (ERROR_INVALID_ARGUMENT past the count). */
SINEW_API sinew_result sinew_asset_get_render_material(const sinew_asset *asset, uint32_t index,
                                                       sinew_render_material *out);

/* The source's material library (OBJ mtllib), carried in the asset: its file
 * name (no folder), or NULL when the asset has none. *text (NUL-terminated;
 * NULL when the library was named but not found beside the source, or empty)
 * and *size (bytes) its contents; either may be NULL. The pointers
 * are valid while the asset lives. */
SINEW_API const char *sinew_asset_get_material_library(const sinew_asset *asset, const char **text, size_t *size);

#ifdef __cplusplus
}
#endif
#endif
