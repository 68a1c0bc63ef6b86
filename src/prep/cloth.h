/* From a polygon mesh to a cloth asset: particles with lumped masses, distance
 * constraints (stretch along polygon edges, shear along quad diagonals),
 * dihedral bending across interior edges, colouring, and sorting by colour. */
#ifndef SINEW_PREP_CLOTH_H
#define SINEW_PREP_CLOTH_H

#include "../asset/asset.h"
#include "colouring.h"
#include "mesh.h"

typedef struct sinew_cloth_options {
    double density;             /* kg/m^2, areal density; > 0 */
    int shear;                  /* add diagonal (shear) constraints in polygons */
    int bending;                /* add dihedral bending across interior edges */
    sinew_colouring_method colouring;
    /* Pins: particles get inverse mass 0. */
    const uint32_t *pin_indices;
    uint32_t pin_count;
    int pin_box;                /* pin every vertex inside [box_min, box_max] */
    double box_min[3], box_max[3];
    double pin_top;             /* > 0: pin vertices within this fraction of the
                                   height below the highest y */
    const char *source_name;    /* recorded in the asset's META section */
} sinew_cloth_options;

sinew_cloth_options sinew_cloth_options_default(void);

typedef struct sinew_cloth_report {
    uint32_t dropped_faces;      /* degenerate faces skipped */
    uint32_t dropped_vertices;   /* unreferenced vertices removed */
    uint32_t nonmanifold_edges;  /* edges with > 2 faces: no bending across them */
    uint32_t stretch_count, shear_count, bend_count;
    uint32_t colour_count;
    uint32_t largest_colour, smallest_colour;
} sinew_cloth_report;

/* Builds the asset. Degenerate faces (repeated vertex, zero area) and unreferenced
 * vertices are dropped with a warning; inconsistent input (index out of range,
 * non-finite coordinates, no faces left) is refused with a message naming it. */
sinew_result sinew_cloth_build(const sinew_mesh *mesh, const sinew_cloth_options *opt,
                               const sinew_logger *lg, sinew_asset **out, sinew_cloth_report *report);

#endif
