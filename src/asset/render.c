/* The render mesh of an asset (format 1.6; docs/render-mesh.md,
 * docs/asset-format.md): its allocation, every check the loader makes of it,
 * so that the render kernel never reads past the particles and never divides
 * by a weight sum far from 1, and the public getters. */
#include "asset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"

int sinew_asset_alloc_render(sinew_asset *a, uint32_t vertices, uint32_t triangles)
{
    SINEW_ASSERT(a);
    sinew_render_vertex_rec *v = calloc(vertices ? vertices : 1, sizeof *v);
    sinew_triangle_rec *t = calloc(triangles ? triangles : 1, sizeof *t);
    if (!v || !t) {
        free(v);
        free(t);
        return 0;
    }
    free(a->rvertices);
    free(a->rtriangles);
    a->rvertices = v;
    a->rtriangles = t;
    a->rvertex_count = vertices;
    a->rtriangle_count = triangles;
    return 1;
}

static sinew_result validate_vertex(const sinew_asset *a, uint32_t i, const char *name, const sinew_logger *lg)
{
    const sinew_render_vertex_rec *v = &a->rvertices[i];
    double sum = 0.0;
    for (int k = 0; k < 4; k++) {
        if (v->particle[k] >= a->particle_count)
            return sinew_asset_bad_record(lg, name, "RVTX", i, "particle index %u out of range (%u particles)",
                                          v->particle[k], a->particle_count);
        if (!(v->weight[k] >= 0.0f && v->weight[k] <= 1.0f))
            return sinew_asset_bad_record(lg, name, "RVTX", i, "weight %d is %g, outside [0, 1]", k,
                                          (double)v->weight[k]);
        sum += v->weight[k];
    }
    if (!(fabs(sum - 1.0) <= SINEW_RENDER_WEIGHT_TOLERANCE))
        return sinew_asset_bad_record(lg, name, "RVTX", i, "weights sum to %.9g, not 1", sum);
    if ((v->mode & SINEW_RENDER_NORMAL_MASK) >= SINEW_RENDER_NORMAL_COUNT ||
        (v->mode & ~(SINEW_RENDER_NORMAL_MASK | SINEW_RENDER_HAS_UV)) != 0)
        return sinew_asset_bad_record(lg, name, "RVTX", i, "unknown mode 0x%x", v->mode);
    if (v->reserved[0] || v->reserved[1])
        return sinew_asset_bad_record(lg, name, "RVTX", i, "reserved words are not zero");
    for (int k = 0; k < 3; k++)
        if (!isfinite(v->normal[k]))
            return sinew_asset_bad_record(lg, name, "RVTX", i, "non-finite rest normal");
    if (!isfinite(v->uv[0]) || !isfinite(v->uv[1]))
        return sinew_asset_bad_record(lg, name, "RVTX", i, "non-finite texture coordinate");
    return SINEW_RESULT_OK;
}

sinew_result sinew_asset_validate_render(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    if (a->rvertex_count > SINEW_ASSET_MAX_RECORDS || a->rtriangle_count > SINEW_ASSET_MAX_RECORDS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                          "%s: render mesh of %u vertices and %u triangles exceeds the limit of %u", name,
                          a->rvertex_count, a->rtriangle_count, SINEW_ASSET_MAX_RECORDS);
    if ((a->rvertex_count == 0) != (a->rtriangle_count == 0))
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                          "%s: render mesh of %u vertices and %u triangles (sections RVTX and RIDX are both "
                          "empty or both not)", name, a->rvertex_count, a->rtriangle_count);
    for (uint32_t i = 0; i < a->rvertex_count; i++) {
        sinew_result r = validate_vertex(a, i, name, lg);
        if (r != SINEW_RESULT_OK)
            return r;
    }
    for (uint32_t t = 0; t < a->rtriangle_count; t++)
        for (int c = 0; c < 3; c++)
            if (a->rtriangles[t].v[c] >= a->rvertex_count)
                return sinew_asset_bad_record(lg, name, "RIDX", t, "render vertex %u out of range (%u vertices)",
                                              a->rtriangles[t].v[c], a->rvertex_count);
    return SINEW_RESULT_OK;
}

sinew_render_info sinew_asset_get_render_info(const sinew_asset *a)
{
    SINEW_ASSERT(a);
    sinew_render_info info = {a->rvertex_count, 3 * a->rtriangle_count, 0, 0};
    for (uint32_t i = 0; i < a->rvertex_count; i++) {
        info.has_uvs |= (a->rvertices[i].mode & SINEW_RENDER_HAS_UV) != 0;
        info.embedded |= (a->rvertices[i].mode & SINEW_RENDER_NORMAL_MASK) == SINEW_RENDER_NORMAL_TET;
    }
    return info;
}

void sinew_asset_get_render_uvs(const sinew_asset *a, float *uv)
{
    SINEW_ASSERT(a && (uv || a->rvertex_count == 0));
    for (uint32_t i = 0; i < a->rvertex_count; i++)
        memcpy(uv + 2 * (size_t)i, a->rvertices[i].uv, 2 * sizeof *uv);
}

void sinew_asset_get_render_indices(const sinew_asset *a, uint32_t *indices)
{
    SINEW_ASSERT(a && (indices || a->rtriangle_count == 0));
    if (a->rtriangle_count)
        memcpy(indices, a->rtriangles, sizeof *a->rtriangles * a->rtriangle_count);
}

void sinew_asset_get_render_map(const sinew_asset *a, uint32_t *particles, float *weights)
{
    SINEW_ASSERT(a);
    for (uint32_t i = 0; i < a->rvertex_count; i++) {
        if (particles)
            memcpy(particles + 4 * (size_t)i, a->rvertices[i].particle, 4 * sizeof *particles);
        if (weights)
            memcpy(weights + 4 * (size_t)i, a->rvertices[i].weight, 4 * sizeof *weights);
    }
}

void sinew_asset_get_render_rest(const sinew_asset *a, float *positions, float *normals)
{
    SINEW_ASSERT(a);
    for (uint32_t i = 0; i < a->rvertex_count; i++) {
        const sinew_render_vertex_rec *v = &a->rvertices[i];
        if (normals)
            memcpy(normals + 3 * (size_t)i, v->normal, 3 * sizeof *normals);
        if (!positions)
            continue;
        double p[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++) {
            const sinew_particle_rec *q = &a->particles[v->particle[k]];
            p[0] += (double)v->weight[k] * q->x;
            p[1] += (double)v->weight[k] * q->y;
            p[2] += (double)v->weight[k] * q->z;
        }
        for (int c = 0; c < 3; c++)
            positions[3 * (size_t)i + c] = (float)p[c];
    }
}
