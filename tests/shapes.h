/* Closed triangle meshes for the collider tests: an icosphere, and any mesh
 * file as the arrays a sinew_collider_desc takes. */
#ifndef SINEW_TEST_SHAPES_H
#define SINEW_TEST_SHAPES_H

#include <sinew/sinew.h>

typedef struct shape {
    float *xyz;
    uint32_t vertex_count;
    uint32_t *triangles;
    uint32_t triangle_count;
} shape;

/* An icosahedron subdivided 1 -> 4 `subdivisions` times, its vertices on the
 * sphere of `radius` about `centre`; outward winding. */
shape shape_icosphere(uint32_t subdivisions, double radius, const double centre[3]);
/* How far the shape's face centroids get inside the sphere of `radius` about
 * the origin: an icosphere's largest distance from its sphere. */
double shape_sphere_sag(const shape *s, double radius);
/* The collider of an icosphere about the origin, made on ctx; NULL on failure. */
sinew_collider *shape_ball_collider(sinew_context *ctx, uint32_t subdivisions, double radius, uint32_t resolution);
/* A mesh file (OFF, OBJ); vertex_count 0 when it cannot be read. */
shape shape_read(const char *path);
void shape_free(shape *s);
/* The collider desc of the shape (arrays borrowed). */
sinew_collider_desc shape_desc(const shape *s, uint32_t resolution);
/* Exact distance from p to the nearest triangle, by brute force, and whether
 * p is inside by the winding number (solid angles summed). */
double shape_distance(const shape *s, const double p[3]);
int shape_inside(const shape *s, const double p[3]);

/* The shape as a surface mesh for the volume mesher (sinew_mesh_free frees). */
struct sinew_mesh shape_mesh(const shape *s);

#endif
