/* Triangle-mesh colliders (docs/collider.md): the signed distance field, built
 * and sampled on the host, and the collider that holds it on the device. */
#ifndef SINEW_COLLIDER_INTERNAL_H
#define SINEW_COLLIDER_INTERNAL_H

#include <sinew/body.h>
#include <sinew/collider.h>

#include "gpu/gpu.h"

/* Grids larger than this are refused (64 MiB of floats). */
#define SINEW_SDF_MAX_NODES (1u << 24)

/* Node (i, j, k) at origin + cell * (i, j, k), its value at
 * phi[i + dims[0] * (j + dims[1] * k)]. */
typedef struct sinew_sdf {
    uint32_t dims[3];
    double origin[3];
    double cell;
    float *phi;               /* m, negative inside */
    uint32_t inside_nodes;
    uint32_t open_edges;      /* edges with other than two triangles */
} sinew_sdf;

/* Builds the field of the desc's mesh; name appears in messages. Refuses bad
 * input by name, leaving *out empty. */
sinew_result sinew_sdf_build(const sinew_logger *lg, const sinew_collider_desc *desc, const char *name,
                             sinew_sdf *out);
void sinew_sdf_free(sinew_sdf *s);

/* Trilinear sample at p (the collider's frame): the signed distance, and the
 * unit gradient of the interpolant in n (when not NULL). Beyond the grid, the
 * distance from the grid is added. The kernels do the same in fp32
 * (shaders/contacts.glsl, mesh_distance). */
double sinew_sdf_sample(const sinew_sdf *s, const double p[3], double n[3]);

struct sinew_collider {
    sinew_context *ctx;
    char name[64];
    uint32_t refs;            /* the application's, and one per body */
    sinew_sdf sdf;
    sinew_buffer grid;        /* the field's values, bound at SINEW_BIND_SDF */
    sinew_collider_info info;
};

void sinew_collider_retain(sinew_collider *c);
/* The step parameters' placement as a rotation (collider frame to world,
 * row-major) and a translation; the quaternion normalised. */
void sinew_collider_placement(const sinew_step_params *p, double rot[3][3], double t[3]);
/* The distance and outward normal at a world point x, placed as p says. */
double sinew_collider_sample_world(const sinew_collider *c, const sinew_step_params *p, const double x[3],
                                   double n[3]);

#endif
