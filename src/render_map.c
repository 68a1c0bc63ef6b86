/* The render mesh (desc.render_mesh): the asset's render vertices mapped
 * onto the particles, planned and uploaded at creation, and the stage at
 * the step's end that writes their positions and normals (render.comp);
 * with it the vertex normals of the particles (normals.comp), which it
 * reads and which the host may read too (sinew_body_read_normals). */
#include "stages.h"

#include "body.h"

#include <stdlib.h>
#include <string.h>

/* The render mesh's counts and what its kernel moves a step, and whether
 * the body computes normals: when asked (desc.normals) or when the render
 * mesh takes its normals from the particles', given triangles to make
 * them from. */
sinew_result sinew_render_map_plan(sinew_body *b, const sinew_asset *asset)
{
    const sinew_body_desc *desc = &b->desc;
    b->render_vertex_count = desc->render_mesh ? asset->rvertex_count : 0;
    b->render_index_count = desc->render_mesh ? 3 * asset->rtriangle_count : 0;
    int particle_normals = 0;
    for (uint32_t i = 0; i < b->render_vertex_count; i++) {
        const sinew_render_vertex_rec *v = &asset->rvertices[i];
        int tet = (v->mode & SINEW_RENDER_NORMAL_MASK) == SINEW_RENDER_NORMAL_TET;
        particle_normals |= !tet;
        for (int k = 0; k < 4 && !tet; k++)
            b->render_bytes += v->weight[k] != 0.0f ? 32u : 0u;
        b->render_bytes += tet ? 64u : 0u;
    }
    b->render_bytes += 96ull * b->render_vertex_count;
    b->normals = (desc->normals || particle_normals) && asset->triangle_count > 0;
    if (particle_normals && asset->triangle_count == 0)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "the asset's render mesh takes its normals from the particles' but the asset has no "
                          "triangles to make them from (desc.render_mesh = 0 goes without it)");
    return SINEW_RESULT_OK;
}

/* RENDER (shared/layout.h), at creation: the map as the kernel reads it, the output as
 * the rest pose gives it (so that the buffer is drawable before the first
 * step), the indices. */
sinew_result sinew_render_map_upload(sinew_body *b, const sinew_asset *a)
{
    const uint32_t r = b->render_vertex_count;
    const uint64_t size = 96ull * r + 4ull * b->render_index_count;
    uint8_t *bytes = malloc(size);
    if (!bytes)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    GpuRenderVertex *map = (GpuRenderVertex *)bytes;
    float *out = (float *)(bytes + 64ull * r);
    for (uint32_t i = 0; i < r; i++) {
        const sinew_render_vertex_rec *v = &a->rvertices[i];
        const int tet = (v->mode & SINEW_RENDER_NORMAL_MASK) == SINEW_RENDER_NORMAL_TET;
        GpuRenderVertex g = {{v->particle[0], v->particle[1], v->particle[2], v->particle[3]},
                             {v->weight[0], v->weight[1], v->weight[2], v->weight[3]},
                             {v->normal[0], v->normal[1], v->normal[2], tet ? 1.0f : 0.0f},
                             {v->uv[0], v->uv[1], 0.0f, 0.0f}};
        if (tet) { /* Dm^T n, Dm's columns the rest edges from particle[0] */
            const sinew_particle_rec *x0 = &a->particles[v->particle[0]];
            for (int c = 0; c < 3; c++) {
                const sinew_particle_rec *xc = &a->particles[v->particle[c + 1]];
                g.normal[c] = (float)(((double)xc->x - x0->x) * v->normal[0] + ((double)xc->y - x0->y) * v->normal[1] +
                                      ((double)xc->z - x0->z) * v->normal[2]);
            }
        }
        map[i] = g;
        float *o = out + SINEW_RENDER_OUTPUT_FLOATS * (size_t)i;
        double p[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++) {
            const sinew_particle_rec *q = &a->particles[v->particle[k]];
            p[0] += (double)v->weight[k] * q->x;
            p[1] += (double)v->weight[k] * q->y;
            p[2] += (double)v->weight[k] * q->z;
        }
        const float rest[8] = {(float)p[0], (float)p[1], (float)p[2], v->normal[0], v->normal[1], v->normal[2],
                               v->uv[0], v->uv[1]};
        memcpy(o, rest, sizeof rest);
    }
    memcpy(bytes + 96ull * r, a->rtriangles, 4ull * b->render_index_count);
    sinew_result res = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_RENDER], 0, bytes, size);
    free(bytes);
    return res;
}

/* The vertex normals (normals.comp), at the step's end beside the health
 * check and residual when fused (they read positions and write NORMAL
 * alone), followed by a barrier unfused. Per particle: offsets 8, position
 * 16, normal 16; per corner: pair 8, two positions 32. */
void sinew_normals_record(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    if (!b->normals)
        return;
    const uint32_t n = b->particle_count;
    GpuRange particles = {0, n};
    sinew_record_dispatch(r, SINEW_KERNEL_NORMALS, n, &particles, sizeof particles);
    if (at->fused)
        sinew_record_independent(r);
    else
        sinew_record_barrier(r);
    r->bytes += 40ull * n + 3ull * 40 * b->triangle_count;
}

/* The render vertices (render.comp), after a barrier: they read the
 * positions' last writer and the normals. Per render vertex: map 64,
 * output 32; cloth: one position and one normal 32, solids: four
 * positions 64 (what render.comp reads; b->render_bytes). */
void sinew_render_map_record(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    if (!b->render_vertex_count)
        return;
    sinew_record_barrier(r);
    GpuRange render = {4u * b->render_vertex_count, b->render_vertex_count};
    sinew_record_dispatch(r, SINEW_KERNEL_RENDER, b->render_vertex_count, &render, sizeof render);
    r->bytes += b->render_bytes;
}
