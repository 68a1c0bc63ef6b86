/* A body's creation on the device: its buffers (set 0) sized from the
 * asset and filled from it (particles, constraints, elements, materials,
 * the triangles around each particle; the render mesh and the mesh
 * colliders through their own files, render_map.c and shapes.c), and the
 * host copies of the constraints that cuts need. */
#include "body.h"

#include "stages.h"
#include "solvers/gpbd.h"

#include <stdlib.h>
#include <string.h>

/* MESH: for each particle, the pairs (a, b) that close its triangles in
 * their winding order, after n + 1 offsets into the same array. */
static sinew_result upload_mesh(sinew_body *b, const sinew_asset *a)
{
    const uint32_t n = a->particle_count, t = a->triangle_count;
    uint32_t *mesh = calloc((size_t)n + 1 + 6 * (size_t)t, sizeof *mesh);
    uint32_t *fill = calloc((size_t)n + 1, sizeof *fill);
    sinew_result r = mesh && fill ? SINEW_RESULT_OK
                                  : sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body",
                                               "out of host memory");
    if (r == SINEW_RESULT_OK) {
        for (uint32_t k = 0; k < t; k++)
            for (int c = 0; c < 3; c++)
                mesh[a->triangles[k].v[c] + 1] += 2;
        mesh[0] = n + 1;
        for (uint32_t i = 0; i < n; i++)
            mesh[i + 1] += mesh[i];
        memcpy(fill, mesh, sizeof *fill * n);
        for (uint32_t k = 0; k < t; k++)
            for (int c = 0; c < 3; c++) {
                const uint32_t *v = a->triangles[k].v;
                uint32_t i = v[c];
                mesh[fill[i]++] = v[(c + 1) % 3];
                mesh[fill[i]++] = v[(c + 2) % 3];
            }
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_MESH], 0, mesh,
                                4ull * (n + 1ull + 6ull * t));
    }
    free(mesh);
    free(fill);
    return r;
}

/* Workgroups of a solver's residual at most (solver.h, record_residual):
 * one thread per constraint, element or particle. PARTIAL holds the strain
 * partials, then the solver's. */
static uint64_t solver_residual_groups(const sinew_asset *a)
{
    uint64_t items = (uint64_t)a->distance_count + a->bend_count;
    items = items > a->element_count ? items : a->element_count;
    items = items > a->particle_count ? items : a->particle_count;
    return (items + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
}

/* The body's buffers (set 0, shared/layout.h): sized from the asset alone,
 * created only where there is something to hold (the rest bind the
 * context's empty buffer), then filled from the asset. */
sinew_result sinew_body_upload_asset(sinew_body *b, const sinew_asset *a)
{
    sinew_context *ctx = b->ctx;
    const sinew_body_desc *d = &b->desc;
    const uint32_t n = a->particle_count;
    /* the strain partials, then the error estimate's as many (stages.c) */
    const uint64_t groups = sinew_residual_groups(a->distance_count, a->element_count, n);
    b->estimate = d->residual && d->solver != SINEW_SOLVER_MGPBD && !a->distance_count && !a->bend_count &&
                  b->tet_count && b->tet_count == a->element_count;
    const sinew_buffer_plan plan[] = {
        {SINEW_BIND_POS, 16ull * n, SINEW_MEMORY_DEVICE, "positions"},
        {SINEW_BIND_PREV, 16ull * n, SINEW_MEMORY_DEVICE, "previous positions"},
        {SINEW_BIND_VEL, 16ull * n, SINEW_MEMORY_DEVICE, "velocities"},
        {SINEW_BIND_PARAMS, sizeof(GpuParams), SINEW_MEMORY_DEVICE, "step parameters"},
        {SINEW_BIND_STATS, sizeof(GpuStats), SINEW_MEMORY_DEVICE, "step statistics"},
        {SINEW_BIND_PARTIAL,
         16ull * (groups * (d->residual ? 2 : 1) + solver_residual_groups(a)),
         SINEW_MEMORY_DEVICE, "residual partials"},
        {SINEW_BIND_DIST, sizeof(GpuDistance) * (uint64_t)a->distance_count, SINEW_MEMORY_DEVICE, "distance constraints"},
        {SINEW_BIND_BEND, sizeof(GpuBend) * (uint64_t)a->bend_count, SINEW_MEMORY_DEVICE, "bending constraints"},
        {SINEW_BIND_ANGLE, 4ull * a->bend_count, SINEW_MEMORY_DEVICE, "hinge angles"},
        {SINEW_BIND_ELEM, sizeof(GpuElement) * (uint64_t)a->element_count, SINEW_MEMORY_DEVICE, "elements"},
        {SINEW_BIND_MATERIAL, sizeof(GpuMaterial) * (uint64_t)b->material_count, SINEW_MEMORY_DEVICE, "materials"},
        {SINEW_BIND_MESH, b->normals || b->wind ? 4ull * (n + 1ull + 6ull * a->triangle_count) : 0, SINEW_MEMORY_DEVICE,
         "triangles around each particle"},
        {SINEW_BIND_NORMAL, b->normals ? 16ull * n : 0, SINEW_MEMORY_DEVICE, "vertex normals"},
        {SINEW_BIND_SELF_INDEX, 4 * b->self.index_words, SINEW_MEMORY_DEVICE, "self-collision indices"},
        {SINEW_BIND_SELF_REAL, 16 * b->self.real_vec4s, SINEW_MEMORY_DEVICE, "self-collision boxes and corrections"},
        {SINEW_BIND_RENDER, 96ull * b->render_vertex_count + 4ull * b->render_index_count, SINEW_MEMORY_DEVICE,
         "render mesh"},
        {SINEW_BIND_SHAPES, 16 * sinew_shapes_plan(b), SINEW_MEMORY_DEVICE, "collider list, mesh colliders and wind"},
        {SINEW_BIND_ATTACH, sinew_attach_bytes(&b->attach), SINEW_MEMORY_DEVICE, "attachments and pins"},
        /* REST: the residual kernel writes it (where the body has an estimate), so every body with a
         * residual holds its own, not the context's shared empty buffer */
        {SINEW_BIND_REST, b->estimate ? 48ull * n : d->residual ? 16 : 0, SINEW_MEMORY_DEVICE,
         "rest pose (error estimate)"},
        /* SDF: the collider's own, bound in its place */
        {0, d->rollback ? 32ull * n + 4ull * a->bend_count : 0, SINEW_MEMORY_DEVICE, "rollback copy", 0, &b->saved},
        {0, UPLOAD_ATTACH(b) + sinew_attach_dynamic_bytes(&b->attach), SINEW_MEMORY_HOST, "step parameters (host)", 0,
         &b->upload},
        {0, sizeof(GpuStats), SINEW_MEMORY_READBACK, "step statistics (host)", 0, &b->readback},
    };
    sinew_result r = sinew_buffers_create(ctx, plan, sizeof plan / sizeof plan[0], b->buffers);
    if (r != SINEW_RESULT_OK)
        return r;
    size_t scratch_size = 16;
    for (int i = 0; i < SINEW_BODY_BINDINGS; i++)
        if (i != SINEW_BIND_SHAPES && b->buffers[i].size > scratch_size) /* SHAPES: uploaded from the colliders */
            scratch_size = (size_t)b->buffers[i].size;
    void *scratch = calloc(1, scratch_size);
    if (!scratch)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");

    float *pos = scratch;
    for (uint32_t i = 0; i < n && r == SINEW_RESULT_OK; i++)
        memcpy(&pos[4 * i], &a->particles[i], 16);
    sinew_attach_masses(&b->attach, pos, n); /* held particles are kinematic */
    if (r == SINEW_RESULT_OK && b->attach.on)
        r = sinew_attach_upload(&b->attach, ctx, &b->buffers[SINEW_BIND_ATTACH]);
    if (r == SINEW_RESULT_OK) {
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_POS], 0, pos, 16ull * n);
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_PREV], 0, pos, 16ull * n);
    }
    if (r == SINEW_RESULT_OK && b->estimate) { /* the rest pose, still there for two steps */
        float *rest = scratch;
        memset(rest, 0, 48ull * n);
        for (uint32_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                memcpy(&rest[12 * i + 4 * k], &a->particles[i], 12);
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_REST], 0, rest, 48ull * n);
    }
    GpuDistance *dist = b->dist_host;
    for (uint32_t c = 0; c < a->distance_count; c++) {
        const sinew_distance_rec *s = &a->distances[c];
        float alpha = s->kind == SINEW_KIND_SHEAR ? d->shear_compliance : d->stretch_compliance;
        dist[c] = (GpuDistance){s->a, s->b, s->rest, alpha};
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_DIST], 0, dist,
                                sizeof(GpuDistance) * (uint64_t)a->distance_count);
    GpuBend *bend = b->bend_host;
    for (uint32_t c = 0; c < a->bend_count; c++) {
        const sinew_bend_rec *s = &a->bends[c];
        bend[c] = (GpuBend){{s->v[0], s->v[1], s->v[2], s->v[3]}, s->rest_angle, d->bend_compliance, 0, 0};
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_BEND], 0, bend,
                                sizeof(GpuBend) * (uint64_t)a->bend_count);
    float *angle = scratch; /* the asset's positions are its rest pose */
    for (uint32_t c = 0; c < a->bend_count && r == SINEW_RESULT_OK; c++)
        angle[c] = a->bends[c].rest_angle;
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_ANGLE], 0, angle, 4ull * a->bend_count);
    GpuElement *elem = scratch;
    for (uint32_t e = 0; e < a->element_count && r == SINEW_RESULT_OK; e++)
        elem[e] = sinew_gpbd_element(&a->elements[e]);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_ELEM], 0, elem,
                                sizeof(GpuElement) * (uint64_t)a->element_count);
    GpuMaterial *mat = scratch;
    for (uint32_t m = 0; m < b->material_count && r == SINEW_RESULT_OK; m++)
        mat[m] = sinew_gpbd_material(&b->materials[m]);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_MATERIAL], 0, mat,
                                sizeof(GpuMaterial) * (uint64_t)b->material_count);
    free(scratch);
    b->topology_crc = sinew_crc32(0, &n, sizeof n);
    b->topology_crc = sinew_crc32(b->topology_crc, a->distances, sizeof *a->distances * a->distance_count);
    b->topology_crc = sinew_crc32(b->topology_crc, a->bends, sizeof *a->bends * a->bend_count);
    if (a->element_count)
        b->topology_crc = sinew_crc32(b->topology_crc, a->elements, sizeof *a->elements * a->element_count);
    b->topology_base = b->topology_crc;
    if (r == SINEW_RESULT_OK && (b->normals || b->wind))
        r = upload_mesh(b, a);
    if (r == SINEW_RESULT_OK && b->render_vertex_count)
        r = sinew_render_map_upload(b, a);
    if (r == SINEW_RESULT_OK)
        r = sinew_shapes_upload(b);
    if (r == SINEW_RESULT_OK && b->desc.self_collision) {
        const sinew_surface own = sinew_surface_of(a);
        r = sinew_selfcol_upload(ctx, &b->self, &own, &b->buffers[SINEW_BIND_SELF_INDEX],
                                 &b->buffers[SINEW_BIND_SELF_REAL]);
    }
    return r;
}

/* Host copies of the constraints, for cuts. */
sinew_result sinew_body_copy_constraints(sinew_body *b, const sinew_asset *a)
{
    b->dist_host = malloc(sizeof *b->dist_host * ((size_t)a->distance_count + 1));
    b->bend_host = malloc(sizeof *b->bend_host * ((size_t)a->bend_count + 1));
    b->dist_cut = calloc((size_t)a->distance_count + 1, 1);
    b->bend_cut = calloc((size_t)a->bend_count + 1, 1);
    if (!b->dist_host || !b->bend_host || !b->dist_cut || !b->bend_cut)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    return SINEW_RESULT_OK;
}
