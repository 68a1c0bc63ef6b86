/* A body's state from the host: positions, velocities and normals read
 * back or written, pins moved, set and released, materials changed. */
#include "body.h"

#include <sinew/vulkan.h>

#include "math/xpbd_math.h"
#include "solvers/gpbd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A member of a world's batch: its batch's body, with its particles'
 * first index there (in *first) and `index` checked against its own count;
 * a body alone: itself, first 0. */
static sinew_body *target(sinew_body *b, uint32_t index, uint32_t *first, sinew_result *r)
{
    *first = 0;
    *r = SINEW_RESULT_OK;
    if (index != UINT32_MAX && index >= b->particle_count) {
        *r = sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                        "body '%s': particle %u of %u is out of range", b->name, index, b->particle_count);
        return NULL;
    }
    if (!b->asset)
        return b;
    sinew_body *t = sinew_member_batch(b, r);
    *first = t ? b->map.particle_first : 0;
    return t;
}

sinew_vulkan_buffers sinew_body_get_vulkan_buffers(const sinew_body *b)
{
    SINEW_ASSERT(b);
    if (b->asset) { /* a member: its range of its batch's buffers */
        sinew_result r;
        const sinew_body *t = sinew_member_batch((sinew_body *)b, &r);
        sinew_vulkan_buffers v = {0};
        if (!t)
            return v;
        v = sinew_body_get_vulkan_buffers(t);
        v.positions_offset = 16ull * b->map.particle_first;
        v.positions_size = 16ull * b->particle_count;
        v.normals_offset = v.normals ? 16ull * b->map.particle_first : 0;
        v.normals_size = v.normals ? 16ull * b->particle_count : 0;
        if (v.render_vertices) { /* its own vertices and indices, numbered from its first vertex */
            v.render_vertices_offset += 4ull * SINEW_RENDER_OUTPUT_FLOATS * b->map.rvertex_first;
            v.render_vertex_count = b->render_vertex_count;
            v.render_indices_offset += 4ull * 3 * b->map.rtriangle_first;
            v.render_index_count = b->render_index_count;
        }
        return v;
    }
    sinew_vulkan_buffers v = {b->buffers[SINEW_BIND_POS].buffer, 16ull * b->particle_count,
                              b->normals ? b->buffers[SINEW_BIND_NORMAL].buffer : VK_NULL_HANDLE,
                              b->normals ? 16ull * b->particle_count : 0};
    if (b->render_vertex_count) { /* RENDER: map, output, indices (shared/layout.h) */
        v.render_vertices = v.render_indices = b->buffers[SINEW_BIND_RENDER].buffer;
        v.render_vertices_offset = 64ull * b->render_vertex_count;
        v.render_vertex_count = b->render_vertex_count;
        v.render_indices_offset = 96ull * b->render_vertex_count;
        v.render_index_count = b->render_index_count;
    }
    return v;
}

sinew_result sinew_body_read_render_vertices(sinew_body *b, float *out, uint32_t count)
{
    SINEW_ASSERT(b && (out || count == 0));
    if (!b->render_vertex_count)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "body",
                          "body '%s' has no render mesh (desc.render_mesh = 0, or an asset without one)", b->name);
    if (count != b->render_vertex_count)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "count %u does not match the body's %u render vertices", count, b->render_vertex_count);
    if (b->asset)
        return sinew_member_read_render(b, out, count);
    sinew_result settled = sinew_body_settle(b);
    if (settled != SINEW_RESULT_OK)
        return settled;
    return sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_RENDER], 64ull * count, out,
                                 4ull * SINEW_RENDER_OUTPUT_FLOATS * count);
}

static sinew_result check_count(const sinew_body *b, uint32_t count)
{
    if (count != b->particle_count)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "count %u does not match the body's %u particles", count, b->particle_count);
    return SINEW_RESULT_OK;
}

static sinew_result read_vec4s(sinew_body *b, int binding, float *xyz, uint32_t count)
{
    SINEW_ASSERT(b && (xyz || count == 0));
    if (b->asset)
        return sinew_member_read(b, binding, xyz, count);
    sinew_result settled = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (settled != SINEW_RESULT_OK)
        return settled;
    sinew_result r = check_count(b, count);
    if (r != SINEW_RESULT_OK)
        return r;
    float *tmp = malloc(16ull * count);
    if (!tmp)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    r = sinew_buffer_download(b->ctx, &b->buffers[binding], 0, tmp, 16ull * count);
    if (binding == SINEW_BIND_POS) /* pins moved since the last step: where the next puts them */
        sinew_attach_overlay(&b->attach, tmp, 4);
    for (uint32_t i = 0; r == SINEW_RESULT_OK && i < count; i++)
        memcpy(&xyz[3 * i], &tmp[4 * i], 12);
    free(tmp);
    return r;
}

sinew_result sinew_body_read_positions(sinew_body *b, float *xyz, uint32_t count)
{
    return read_vec4s(b, SINEW_BIND_POS, xyz, count);
}

sinew_result sinew_body_read_normals(sinew_body *b, float *xyz, uint32_t count)
{
    SINEW_ASSERT(b && (xyz || count == 0));
    if (!b->normals)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "body",
                          "body '%s' computes no normals (desc.normals = 0, or an asset without triangles)", b->name);
    return read_vec4s(b, SINEW_BIND_NORMAL, xyz, count);
}

sinew_result sinew_body_read_velocities(sinew_body *b, float *xyz, uint32_t count)
{
    return read_vec4s(b, SINEW_BIND_VEL, xyz, count);
}

/* A new pose starts each hinge's continuous angle afresh: its angle in the
 * pose, on the branch nearest its rest angle (as if it had never folded). */
static sinew_result reset_hinge_angles(sinew_body *b, const float *xyz)
{
    const uint32_t bends = b->bend_count;
    GpuBend *rec = malloc(sizeof *rec * ((size_t)bends + 1));
    float *angle = malloc(sizeof *angle * ((size_t)bends + 1));
    sinew_result r = rec && angle ? SINEW_RESULT_OK
                                  : sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body",
                                               "out of host memory");
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_BEND], 0, rec, sizeof *rec * bends);
    for (uint32_t c = 0; r == SINEW_RESULT_OK && c < bends; c++) {
        double p[4][3];
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++)
                p[j][k] = xyz[3 * rec[c].v[j] + k];
        int ok = 0;
        double theta = sinew_dihedral_angle(p[0], p[1], p[2], p[3], &ok);
        angle[c] = ok ? (float)sinew_unwrap_angle(theta, rec[c].rest_angle) : rec[c].rest_angle;
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_ANGLE], 0, angle, 4ull * bends);
    free(rec);
    free(angle);
    return r;
}

sinew_result sinew_body_write_positions(sinew_body *b, const float *xyz, uint32_t count)
{
    SINEW_ASSERT(b && (xyz || count == 0));
    if (b->asset)
        return sinew_member_write_positions(b, xyz, count);
    sinew_result settled = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (settled != SINEW_RESULT_OK)
        return settled;
    sinew_result r = check_count(b, count);
    if (r != SINEW_RESULT_OK)
        return r;
    for (uint32_t i = 0; i < 3 * count; i++)
        if (!isfinite(xyz[i]))
            return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "position of particle %u is not finite", i / 3);
    float *tmp = malloc(16ull * count);
    if (!tmp)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_POS], 0, tmp, 16ull * count);
    for (uint32_t i = 0; r == SINEW_RESULT_OK && i < count; i++)
        memcpy(&tmp[4 * i], &xyz[3 * i], 12);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_POS], 0, tmp, 16ull * count);
    if (r == SINEW_RESULT_OK && sinew_body_ops(b)->moved) /* e.g. pins anchored where they now are */
        r = sinew_body_ops(b)->moved(b->state, &b->view, 0, count, tmp, 1);
    for (uint32_t i = 0; r == SINEW_RESULT_OK && b->attach.on && i < count; i++)
        if (b->attach.pin_of[i] != SINEW_ATTACH_NONE) { /* pins stay where they are written */
            int full;
            sinew_attach_pin(&b->attach, i, &xyz[3 * i], &full);
        }
    if (r == SINEW_RESULT_OK) {
        memset(tmp, 0, 16ull * count);
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_VEL], 0, tmp, 16ull * count);
    }
    free(tmp);
    if (r == SINEW_RESULT_OK)
        r = reset_hinge_angles(b, xyz);
    return r;
}

sinew_step_stats sinew_body_get_stats(const sinew_body *b)
{
    SINEW_ASSERT(b);
    return b->stats;
}

uint32_t sinew_body_get_particle_count(const sinew_body *b)
{
    SINEW_ASSERT(b);
    return b->particle_count;
}

/* move_pinned where the step keeps the pins' targets (attach.h): checked,
 * then kept on the host for the next step. */
static sinew_result move_targets(sinew_body *b, const uint32_t *indices, uint32_t count, const float *xyz)
{
    const sinew_logger *lg = &b->ctx->logger;
    sinew_attach *at = &b->attach;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t i = indices[k];
        if (i >= b->particle_count)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': particle %u of %u is out of range", b->name, i, b->particle_count);
        if (at->attached[i] != SINEW_ATTACH_NONE)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': particle %u is not pinned but attached to a frame: move the frame (step "
                              "parameter frames)", b->name, i);
        if (at->pin_of[i] == SINEW_ATTACH_NONE)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': particle %u is not pinned; only pinned particles can be moved", b->name, i);
        if (!isfinite(xyz[3 * k]) || !isfinite(xyz[3 * k + 1]) || !isfinite(xyz[3 * k + 2]))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': new position of particle %u is not finite", b->name, i);
    }
    for (uint32_t k = 0; k < count; k++) {
        int full;
        sinew_attach_pin(at, indices[k], &xyz[3 * k], &full);
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_body_move_pinned(sinew_body *b, const uint32_t *indices, uint32_t count, const float *xyz)
{
    SINEW_ASSERT(b && (count == 0 || (indices && xyz)));
    if (b->asset) { /* a member: the same pins of its batch */
        uint32_t first, *at = malloc(sizeof *at * ((size_t)count + 1));
        if (!at)
            return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
        sinew_result r = SINEW_RESULT_OK;
        sinew_body *t = NULL;
        for (uint32_t k = 0; k < count && r == SINEW_RESULT_OK; k++)
            if ((t = target(b, indices[k], &first, &r)) != NULL)
                at[k] = first + indices[k];
        if (r == SINEW_RESULT_OK && (t || (t = target(b, UINT32_MAX, &first, &r)) != NULL))
            r = sinew_body_move_pinned(t, at, count, xyz);
        free(at);
        return r;
    }
    if (b->attach.on)
        return move_targets(b, indices, count, xyz);
    sinew_result settled = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (settled != SINEW_RESULT_OK)
        return settled;
    const sinew_logger *lg = &b->ctx->logger;
    const uint64_t n = b->particle_count;
    float *pos = malloc(16 * n);
    if (!pos)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    sinew_result r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_POS], 0, pos, 16 * n);
    for (uint32_t k = 0; r == SINEW_RESULT_OK && k < count; k++) {
        uint32_t i = indices[k];
        if (i >= n)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "body '%s': particle %u of %llu is out of range",
                           b->name, i, (unsigned long long)n);
        else if (pos[4 * i + 3] != 0.0f)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                           "body '%s': particle %u is not pinned (inverse mass %g); only pinned particles can be moved",
                           b->name, i, pos[4 * i + 3]);
        else if (!isfinite(xyz[3 * k]) || !isfinite(xyz[3 * k + 1]) || !isfinite(xyz[3 * k + 2]))
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "body '%s': new position of particle %u is not finite",
                           b->name, i);
        else
            memcpy(&pos[4 * i], &xyz[3 * k], 12);
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_POS], 0, pos, 16 * n);
    if (r == SINEW_RESULT_OK && sinew_body_ops(b)->moved)
        r = sinew_body_ops(b)->moved(b->state, &b->view, 0, (uint32_t)n, pos, 0);
    free(pos);
    return r;
}

sinew_result sinew_body_set_substeps(sinew_body *b, uint32_t substeps)
{
    SINEW_ASSERT(b);
    const sinew_logger *lg = &b->ctx->logger;
    if (b->world || b->asset)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s' is in a world: its substeps are its batch's (sinew_world_desc)", b->name);
    if (substeps < 1 || substeps > 1000)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "body '%s': substeps %u: must be in 1..1000",
                          b->name, substeps);
    if (b->desc.solver == SINEW_SOLVER_IMPLICIT_MG || b->desc.solver == SINEW_SOLVER_IMPLICIT_PCG)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s': the implicit solvers take one substep; their budgets are sized by it", b->name);
    if (substeps == b->desc.substeps)
        return SINEW_RESULT_OK;
    sinew_result r = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (r != SINEW_RESULT_OK)
        return r;
    const uint32_t was = b->desc.substeps;
    b->desc.substeps = substeps;
    if ((r = sinew_body_rerecord(b)) != SINEW_RESULT_OK) {
        b->desc.substeps = was;
        sinew_result back = sinew_body_rerecord(b);
        if (back != SINEW_RESULT_OK)
            b->unrecorded = back;
    }
    return r;
}

sinew_result sinew_body_set_pinned(sinew_body *b, uint32_t index, int pinned)
{
    SINEW_ASSERT(b);
    if (b->asset) { /* a member: the same particle of its batch */
        uint32_t first;
        sinew_result r;
        sinew_body *t = target(b, index, &first, &r);
        return t ? sinew_body_set_pinned(t, first + index, pinned) : r;
    }
    sinew_result settled = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (settled != SINEW_RESULT_OK)
        return settled;
    const sinew_logger *lg = &b->ctx->logger;
    if (index >= b->particle_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "body '%s': particle %u of %u is out of range",
                          b->name, index, b->particle_count);
    if (!b->unpinned_w) {
        b->unpinned_w = calloc(b->particle_count, sizeof *b->unpinned_w);
        if (!b->unpinned_w)
            return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    sinew_attach *at = &b->attach;
    if (at->on && at->attached[index] != SINEW_ATTACH_NONE)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s': particle %u is attached to a frame; it cannot be pinned or set free", b->name,
                          index);
    float x[4];
    sinew_result r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_POS], 16ull * index, x, 16);
    if (r != SINEW_RESULT_OK)
        return r;
    if (at->on && at->pin_of[index] != SINEW_ATTACH_NONE) /* a move not yet stepped */
        memcpy(x, &at->pins[4 * at->pin_of[index]], 12);
    if (pinned) {
        if (x[3] == 0.0f)
            return SINEW_RESULT_OK; /* pinned already */
        if (at->on) { /* a target slot, the slots grown when all are taken */
            int full;
            sinew_attach_pin(at, index, x, &full);
            if (full && (r = sinew_body_grow_pins(b, 2 * at->pin_capacity + 8)) != SINEW_RESULT_OK)
                return r;
            if (full)
                sinew_attach_pin(at, index, x, &full);
        }
        b->unpinned_w[index] = x[3];
        x[3] = 0.0f;
        if (sinew_body_ops(b)->moved && (r = sinew_body_ops(b)->moved(b->state, &b->view, index, 1, x, 0)) !=
                                              SINEW_RESULT_OK) /* e.g. anchored where it is */
            return r;
    } else {
        if (x[3] != 0.0f)
            return SINEW_RESULT_OK; /* free already */
        if (b->unpinned_w[index] == 0.0f)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': particle %u is pinned by its asset; only particles pinned by "
                              "sinew_body_set_pinned can be set free", b->name, index);
        x[3] = b->unpinned_w[index];
        b->unpinned_w[index] = 0.0f;
        if (at->on)
            sinew_attach_unpin(at, index);
    }
    return sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_POS], 16ull * index, x, 16);
}

sinew_result sinew_body_set_material(sinew_body *b, uint32_t index, const sinew_material *m)
{
    SINEW_ASSERT(b && m);
    if (b->asset) { /* a member: its material in its batch's table, and kept for a rebuild */
        if (index >= b->material_count)
            return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': material %u out of range (%u materials)", b->name, index,
                              b->material_count);
        uint32_t first;
        sinew_result r;
        sinew_body *t = target(b, UINT32_MAX, &first, &r);
        if (t && (r = sinew_body_set_material(t, b->map.material_first + index, m)) == SINEW_RESULT_OK)
            b->asset->materials[index] = *m;
        return r;
    }
    sinew_result settled = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (settled != SINEW_RESULT_OK)
        return settled;
    sinew_context *ctx = b->ctx;
    if (index >= b->material_count)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s': material %u out of range (%u materials)", b->name, index, b->material_count);
    sinew_result r = sinew_body_check_material(b, index, m);
    if (r != SINEW_RESULT_OK)
        return r;
    GpuMaterial g = sinew_gpbd_material(m);
    r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_MATERIAL], sizeof g * (uint64_t)index, &g, sizeof g);
    if (r != SINEW_RESULT_OK)
        return r;
    b->materials[index] = *m;
    const sinew_element_set elements = sinew_body_element_set(b);
    if (elements != b->view.elements) { /* another element update kernel: the step is recorded again */
        b->view.elements = elements;
        VK_TRY(ctx, ctx->vk.vkResetCommandBuffer(b->cmd, 0));
        r = sinew_body_record_commands(b);
    }
    return r;
}

