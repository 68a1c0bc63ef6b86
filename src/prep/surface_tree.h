/* A tree of a surface's triangles for the questions the volume mesher asks of
 * surfaces that need not be clean: the generalised winding number of a point
 * (inside or outside, robust to holes, self-intersections and overlapping
 * parts; faces must be oriented consistently, which
 * sinew_surface_orient repairs), and the closest point of the surface. */
#ifndef SINEW_PREP_SURFACE_TREE_H
#define SINEW_PREP_SURFACE_TREE_H

#include "mesh.h"

#include <sinew/core.h>

typedef struct sinew_surface_tree sinew_surface_tree;

/* Builds the tree of a surface's polygons (each fanned into triangles from its
 * first corner; degenerate ones kept, they weigh nothing). The surface must
 * have valid indices (every mesh a reader returns has). NULL when out of
 * memory or when the surface has no faces. */
sinew_surface_tree *sinew_surface_tree_build(const sinew_mesh *surface);
void sinew_surface_tree_destroy(sinew_surface_tree *tree);

/* The generalised winding number at p (Jacobson, Kavan and Sorkine-Hornung
 * 2013): the signed solid angle the triangles subtend, over 4 pi. 1 inside a
 * closed surface whose faces are counter-clockwise seen from outside, 0
 * outside, smooth and near 1 inside a surface with holes, 2 where two parts
 * overlap. Clusters of triangles far from p (beyond three times their
 * radius) count by their dipole, as Barill et al. 2018 do to first order: an
 * error of about a hundredth (test_surface_tree), where exact sums cost the
 * triangles times the points. */
double sinew_surface_winding(const sinew_surface_tree *tree, const double p[3]);

/* The point of the surface closest to p, when one lies within max_distance
 * (1; 0 otherwise): into q, its distance into *distance. */
int sinew_surface_closest(const sinew_surface_tree *tree, const double p[3], double max_distance, double q[3],
                          double *distance);

/* The same, with the triangle q lies on (the surface's polygons fanned into
 * triangles in face order: triangle i of an all-triangle surface is its
 * face i) into *triangle, when it is not NULL. */
int sinew_surface_closest_triangle(const sinew_surface_tree *tree, const double p[3], double max_distance,
                                   double q[3], double *distance, uint32_t *triangle);

/* Whether the segment from a to b meets a triangle of the surface. */
int sinew_surface_crosses(const sinew_surface_tree *tree, const double a[3], const double b[3]);

/* Whether any triangle's bounding box meets the box lo..hi. */
int sinew_surface_touches_box(const sinew_surface_tree *tree, const double lo[3], const double hi[3]);

#endif
