/* From a polygon mesh to a cloth asset: particles with lumped masses, distance
 * constraints (stretch along polygon edges, shear along quad diagonals),
 * dihedral bending across interior edges, colouring, and sorting by colour;
 * for the Generalized PBD solvers also finite elements (membrane triangles of
 * an StVK or tabulated material, springs), coloured and sorted likewise. */
#ifndef SINEW_PREP_CLOTH_H
#define SINEW_PREP_CLOTH_H

#include "../asset/asset.h"
#include "clusters.h"
#include "colouring.h"
#include "mesh.h"

typedef struct sinew_cloth_options {
    double density;             /* kg/m^2, areal density; > 0 */
    int shear;                  /* add diagonal (shear) constraints in polygons */
    int bending;                /* add dihedral bending across interior edges */
    sinew_colouring_method colouring;
    /* Clustered sweeps (clusters.h): clusters of at most this many particles
     * (SINEW_CLUSTER_MIN_PARTICLES..SINEW_CLUSTER_MAX_PARTICLES), or 0 for
     * none (a dispatch per colour). Default SINEW_CLUSTER_DEFAULT_PARTICLES. */
    uint32_t cluster_particles;
    /* Pins: particles get inverse mass 0. */
    const uint32_t *pin_indices;
    uint32_t pin_count;
    int pin_box;                /* pin every vertex inside [box_min, box_max]; min <= max */
    double box_min[3], box_max[3];
    const double *pin_boxes;    /* pin_box_count more boxes (pin_boxes.h); borrowed */
    uint32_t pin_box_count;
    double pin_top;             /* > 0: pin vertices within this fraction of the
                                   height below the highest y; refused where
                                   that band holds every vertex (a mesh flat
                                   along y has no top) */
    int free_parts;             /* connected parts without a pin are meant to fall:
                                   said at INFO level, not warned about */
    const char *source_name;    /* recorded in the asset's META section */

    /* Finite elements for the GPBD solvers (docs/math.md section 3). */
    /* 0: none. SINEW_MATERIAL_STVK or SINEW_MATERIAL_TABULATED: one TRIANGLE
     * element per triangle of the triangulation, of membrane_material, whose
     * model must be the same. Its density is replaced by `density`, which the
     * masses are built from. Default: 0, and an StVK material of a woven
     * cotton (sinew_cloth_options_default). */
    uint32_t membrane;
    sinew_material membrane_material;
    /* Every stretch and shear distance also as a SPRING element (v[0..1], rest
     * length) of one SPRING material of compliance spring_compliance (m/N, >= 0;
     * 0 = rigid), in the order the distances are built and coloured by the same
     * method: without bending and membrane its element colours are the
     * distances' colours, range for range. */
    int springs;
    double spring_compliance;
    /* With membrane or springs, the stretch and shear distances become elements
     * and are no longer DIST constraints, unless this is set. Bending (BEND)
     * stays an XPBD constraint either way. */
    int keep_distances;
    /* Material u (warp) axis of each membrane triangle: this direction projected
     * on the triangle's plane; where it is within 0.6 degrees of the normal, the
     * triangle's first edge instead (counted in the report). Default (1, 0, 0). */
    double warp[3];
} sinew_cloth_options;

sinew_cloth_options sinew_cloth_options_default(void);

typedef struct sinew_cloth_report {
    uint32_t dropped_faces;      /* degenerate faces skipped */
    uint32_t dropped_vertices;   /* unreferenced vertices removed */
    uint32_t nonmanifold_edges;  /* edges with > 2 faces: no bending across them */
    uint32_t stretch_count, shear_count, bend_count;
    uint32_t colour_count;
    uint32_t largest_colour, smallest_colour;
    uint32_t membrane_count, spring_count; /* elements */
    uint32_t element_colour_count;
    uint32_t warp_fallbacks;     /* triangles whose u axis is their first edge */
    uint32_t part_count;         /* connected parts (particles joined by triangles) */
    uint32_t unpinned_parts;     /* when anything is pinned: parts without a pin (a warning names them) */
    uint32_t unpinned_particles; /* and their particles */
    sinew_cluster_report clusters;
} sinew_cloth_report;

/* Builds the asset. Degenerate faces (repeated vertex, zero area) and unreferenced
 * vertices are dropped with a warning; inconsistent input (index out of range,
 * non-finite coordinates, no faces left) is refused with a message naming it. */
sinew_result sinew_cloth_build(const sinew_mesh *mesh, const sinew_cloth_options *opt,
                               const sinew_logger *lg, sinew_asset **out, sinew_cloth_report *report);

/* The material frame of the rest triangle p0 p1 p2, in double: n the unit
 * normal along (p1 - p0) x (p2 - p0); u the unit projection of warp on the
 * triangle's plane, or the unit first edge where that projection is shorter
 * than 1 % of |warp| (*fell_back = 1 then); v = n x u. dm_inv is the inverse of
 * Dm = [X1 - X0, X2 - X0] expressed in (u, v), column-major 2x2 (dm_inv[0],
 * [1] the first column). Returns the area (m^2), or 0 for a degenerate
 * triangle or a zero warp, leaving the outputs unspecified. */
double sinew_cloth_triangle_frame(const double p0[3], const double p1[3], const double p2[3], const double warp[3],
                                  double u[3], double v[3], double dm_inv[4], int *fell_back);

#endif
