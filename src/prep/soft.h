/* From a tetrahedral mesh to a soft-body asset for the Generalized PBD solvers:
 * particles with lumped masses, one TET element per tetrahedron (inverse rest
 * shape and rest volume), materials (one per region of the mesh), a colouring
 * of the element dual graph, elements sorted by colour, and the boundary faces
 * as the asset's triangles (for rendering). */
#ifndef SINEW_PREP_SOFT_H
#define SINEW_PREP_SOFT_H

#include "../asset/asset.h"
#include "colouring.h"
#include "mesh.h"
#include "volume.h"

/* The material of one region of the mesh (sinew_volume.regions). */
typedef struct sinew_soft_region_material {
    uint32_t region;             /* a region value: Gmsh physical group, TetGen region attribute */
    sinew_material material;     /* its density (kg/m^3) gives the masses of the region's tetrahedra */
} sinew_soft_region_material;

typedef struct sinew_soft_options {
    /* The default material: of the whole body, or of each region that
     * region_materials does not name. Unused when materials is given. */
    sinew_material_model model;  /* SINEW_MATERIAL_NEO_HOOKEAN or _STABLE_NEO_HOOKEAN */
    double youngs_modulus;       /* Pa; > 0 */
    double poisson_ratio;        /* [0, 0.5) */
    double density;              /* kg/m^3; > 0 */
    /* Materials by region (unless materials is given): the distinct region
     * values of the volume become materials 0, 1, ... in increasing order of
     * value (a volume without regions is one region, 0); a region named here
     * gets this material, the others the default one. Each tetrahedron's mass
     * comes from its own region's density. A region named twice is refused, one
     * the mesh lacks warned about. Borrowed for the call. */
    const sinew_soft_region_material *region_materials;
    uint32_t region_material_count;
    /* An explicit table instead of regions: tetrahedron t (of the input volume)
     * is made of materials[tet_materials[t]] (tet_materials NULL: all of
     * materials[0]), and its mass comes from that material's density; the
     * volume's regions are not used, and region_materials must be empty.
     * Borrowed for the call. */
    const sinew_material *materials;
    uint32_t material_count;
    const uint32_t *tet_materials;
    sinew_colouring_method colouring;
    /* Pins: particles get inverse mass 0. Indices are the input's vertices. */
    const uint32_t *pin_indices;
    uint32_t pin_count;
    int pin_box;                 /* pin every vertex inside [box_min, box_max] */
    double box_min[3], box_max[3];
    const double *pin_boxes;     /* pin_box_count more boxes (pin_boxes.h); borrowed */
    uint32_t pin_box_count;
    double pin_bottom;           /* > 0: pin vertices within this fraction of the
                                    height above the lowest y */
    const char *source_name;     /* recorded in the asset's META section */
    /* Render mesh (docs/render-mesh.md): a surface whose render vertices are
     * embedded in the tetrahedra (sinew_render_embed), usually the surface the
     * volume was made from; NULL, or one without a render mesh: none.
     * Borrowed for the call. */
    const sinew_mesh *render_source;
} sinew_soft_options;

/* Neo-Hookean, E = 1 MPa, nu = 0.45, 1000 kg/m^3, balanced colouring, no pins. */
sinew_soft_options sinew_soft_options_default(void);

typedef struct sinew_soft_report {
    uint32_t vertex_count;       /* particles */
    uint32_t tet_count;
    uint32_t triangle_count;     /* boundary faces */
    uint32_t pinned_count;
    uint32_t flipped_tets;       /* negatively oriented, repaired */
    uint32_t dropped_vertices;   /* unreferenced, removed */
    uint32_t colour_count;
    uint32_t largest_colour, smallest_colour;
    double total_mass;           /* kg, pinned particles included */
    double volume;               /* m^3, rest volume of all tetrahedra */
    uint32_t region_count;       /* materials made from regions; 0 with an explicit table */
} sinew_soft_report;

/* One region of a body built by regions: what it became and what it holds. */
typedef struct sinew_soft_region {
    uint32_t value;              /* the region's value in the mesh */
    uint32_t material;           /* its index in the asset's materials table */
    uint32_t tet_count;
    double volume;               /* m^3, rest volume of its tetrahedra */
    double mass;                 /* kg: its density x its volume */
} sinew_soft_region;

/* Builds the asset from a volume mesh, which is not changed: it is checked and
 * repaired on a copy (sinew_volume_check: orientation fixed, unreferenced
 * vertices dropped, degenerate tetrahedra and bad indices refused). Each
 * tetrahedron gives a quarter of its mass (its material's density x rest
 * volume) to each vertex. Elements have Dm^-1 and the rest volume computed in
 * double, rounded to float once. Materials by region are logged (info: region,
 * material, tetrahedra, volume, mass), and the asset's META records them as
 * "regions=VALUE:MATERIAL,..." in increasing order of value. Refused with
 * INVALID_ARGUMENT: bad options or materials (sinew_material_check; models
 * other than the two for tetrahedra), material or pin indices out of range, a
 * region given two materials, region materials with an explicit table;
 * BAD_MESH as sinew_volume_check says, or when a rest shape or mass does not
 * survive the conversion to float; LIMIT beyond the asset's limits (more
 * regions than materials it may hold, among them). report may be NULL. */
sinew_result sinew_soft_build(const sinew_volume *volume, const sinew_soft_options *opt, const sinew_logger *lg,
                              sinew_asset **out, sinew_soft_report *report);

/* sinew_soft_build, also giving the regions: on success with materials by
 * region, *regions receives report.region_count entries in increasing order of
 * value (malloc'd: the caller frees it) and *region_count their number;
 * otherwise NULL and 0. */
sinew_result sinew_soft_build_with_regions(const sinew_volume *volume, const sinew_soft_options *opt,
                                           const sinew_logger *lg, sinew_asset **out, sinew_soft_report *report,
                                           sinew_soft_region **regions, uint32_t *region_count);

#endif
