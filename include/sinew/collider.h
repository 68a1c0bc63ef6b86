/* sinew/collider.h: a rigid triangle mesh that bodies collide with.
 *
 * The mesh becomes a signed distance field on a regular grid, computed once on
 * the host when the collider is made (exact distances to the triangles near
 * the surface, carried outwards by sweeping closest triangles; inside and
 * outside by ray parity along the three axes, two of three deciding) and
 * uploaded to the device. A body given the collider (sinew_body_desc.collider)
 * samples it trilinearly in its contact kernels, every solver alike; the step
 * parameters place it (rotation, translation) and say how fast it moves. See
 * docs/collider.md.
 *
 *     sinew_collider_desc cd = sinew_collider_desc_default();
 *     cd.vertices = xyz;  cd.vertex_count = nv;
 *     cd.triangles = tri; cd.triangle_count = nt;
 *     sinew_collider *mesh;  sinew_collider_create(ctx, &cd, &mesh);
 *     bd.collider = mesh;  sinew_body_create(ctx, asset, &bd, &body);
 *     p.collider = 1;      sinew_body_step(body, &p);
 *
 * A closed (watertight) mesh has a well-defined inside. On an open one, the
 * three rays may disagree near a hole: creation warns, naming how many edges
 * are open.
 */
#ifndef SINEW_COLLIDER_H
#define SINEW_COLLIDER_H

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_collider sinew_collider;

typedef struct sinew_collider_desc {
    uint32_t cookie;               /* set by sinew_collider_desc_default */
    const float *vertices;         /* xyz per vertex (m), the collider's own frame */
    uint32_t vertex_count;
    const uint32_t *triangles;     /* 3 vertex indices each, outward by right-hand rule or not: sign is by parity */
    uint32_t triangle_count;
    /* Grid spacing (m); 0: the longest side of the mesh's bounds divided by
     * resolution. */
    float cell_size;
    uint32_t resolution;           /* default 64 */
    /* How far the grid reaches beyond the mesh's bounds (m); 0: four cells.
     * Outside the grid the distance grows with the distance from it. */
    float margin;
    const char *name;              /* in messages; copied */
} sinew_collider_desc;

SINEW_API sinew_collider_desc sinew_collider_desc_default(void);

/* Builds the distance field and uploads it. The desc's arrays are borrowed for
 * the call. Refuses, naming what is wrong, non-finite vertices, an index out
 * of range, no triangles, bounds of no extent, a grid of more than 2^24 nodes
 * or larger than one storage-buffer binding. */
SINEW_API sinew_result sinew_collider_create(sinew_context *ctx, const sinew_collider_desc *desc,
                                             sinew_collider **out);

/* Bodies made with the collider keep it alive: it is freed when the last of
 * them and this call have let go. */
SINEW_API void sinew_collider_destroy(sinew_collider *collider);

typedef struct sinew_collider_info {
    uint32_t dims[3];              /* grid nodes along x, y, z */
    float origin[3];               /* m, node (0, 0, 0) in the collider's frame */
    float cell_size;               /* m */
    uint32_t inside_nodes;         /* nodes with a negative distance */
    uint32_t open_edges;           /* edges with other than two triangles (0: closed) */
    uint64_t device_memory;        /* bytes */
    double build_ms;               /* host time to build the field */
} sinew_collider_info;

SINEW_API sinew_collider_info sinew_collider_get_info(const sinew_collider *collider);

/* The field as the kernels sample it, at a point of the collider's own frame:
 * the signed distance (m, negative inside) and, when normal is not NULL, the
 * unit outward normal there. */
SINEW_API float sinew_collider_distance(const sinew_collider *collider, const float point[3], float normal[3]);

#ifdef __cplusplus
}
#endif
#endif
