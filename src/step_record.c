/* The step's recording: the stages of docs/math.md section 1 (prediction,
 * the solver's iterations with contacts, velocities, or the solver's own
 * substep), the step's end (normals, residual, health check, render mesh),
 * the copies of parameters and statistics around them, and recording it
 * again when buffers or the solver's plan change. */
#include "body.h"

#include <stdlib.h>

/* Device traffic the body's kernels were designed to move, in bytes. */
#define BYTES_PREDICT 96u          /* pos, vel in; prev, vel, pos out */
#define BYTES_VELOCITY 48u         /* pos, prev in; vel out */
#define BYTES_VELOCITY_PREDICT 80u /* pos, prev in; prev, vel, pos out */

/* The health check of the particles, and of the tetrahedra among the
 * elements, in the velocity kernel (GpuRange.first2 = 1) or its own. */
static GpuRange health_range(const sinew_body *b, uint32_t *threads)
{
    const uint32_t n = b->particle_count, elements = b->tet_count ? b->element_count : 0;
    *threads = n > elements ? n : elements;
    return (GpuRange){0, n, 1, elements};
}

/* Designed traffic of the health check: per particle position and velocity,
 * per element the record 80 and four positions 64. */
static uint64_t health_bytes(const sinew_body *b, int with_velocity)
{
    const uint64_t elements = b->tet_count ? b->element_count : 0;
    return (with_velocity ? 0 : 32ull * b->particle_count) + 144ull * elements;
}

/* What ends every step: normals, residual, the health check unless the last
 * substep's velocity kernel ran it (`checked`), the host barrier. Recorded
 * dispatch by dispatch (b->unfused) each waits for the one before; fused,
 * the health check, normals and residual read positions, velocities and
 * elements and write STATS (by integer atomics), NORMAL and PARTIAL: none
 * waits for another, nor for the last substep's velocities, and one barrier
 * before the residual's reduction (which writes STATS too) orders them all. */
static void record_step_end(sinew_body *b, sinew_recorder *r, int checked)
{
    const uint32_t n = b->particle_count;
    const int fused = !b->unfused;
    GpuRange particles = {0, n};
    uint32_t health_threads;
    GpuRange health = health_range(b, &health_threads);
    health.first2 = 0;
    if (b->desc.health_check && !checked && fused) {
        sinew_record_dispatch(r, SINEW_KERNEL_HEALTH, health_threads, &health, sizeof health);
        sinew_record_independent(r);
        r->bytes += health_bytes(b, 0);
    }
    if (b->normals) {
        sinew_record_dispatch(r, SINEW_KERNEL_NORMALS, n, &particles, sizeof particles);
        if (fused)
            sinew_record_independent(r);
        else
            sinew_record_barrier(r);
        /* per particle: offsets 8, position 16, normal 16; per corner: pair 8, two positions 32 */
        r->bytes += 40ull * n + 3ull * 40 * b->triangle_count;
    }
    if (b->desc.residual) {
        uint32_t items = b->distance_count > b->element_count ? b->distance_count : b->element_count;
        uint32_t groups = (items + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
        GpuRange residual = {0, b->distance_count, 0, b->element_count};
        GpuRange reduce = {groups, b->distance_count, 0, b->element_count};
        sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL, items, &residual, sizeof residual);
        /* the solver's residual at the end, beside it: both read positions
         * and write their own parts of PARTIAL */
        const sinew_solver_ops *ops = sinew_body_ops(b);
        if (ops->record_residual) {
            sinew_record_independent(r);
            reduce.first2 = ops->record_residual(b->state, &b->view, r, groups);
        }
        sinew_record_barrier(r);
        sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL_REDUCE, SINEW_REDUCE_SIZE, &reduce, sizeof reduce);
        r->bytes += 48ull * b->distance_count + 144ull * b->element_count + 32ull * groups;
    }
    if (b->desc.health_check && !checked && !fused) {
        if (b->desc.residual)
            sinew_record_barrier(r); /* both write STATS */
        sinew_record_dispatch(r, SINEW_KERNEL_HEALTH, health_threads, &health, sizeof health);
        r->bytes += health_bytes(b, 0);
    }
    if (b->render_vertex_count) {
        /* after the positions' last writer and the normals */
        sinew_record_barrier(r);
        GpuRange render = {4u * b->render_vertex_count, b->render_vertex_count};
        sinew_record_dispatch(r, SINEW_KERNEL_RENDER, b->render_vertex_count, &render, sizeof render);
        /* per render vertex: map 64, output 32; cloth: one position and one
         * normal 32, solids: four positions 64 (what render.comp reads) */
        r->bytes += b->render_bytes;
    }
    if (b->desc.residual || b->desc.health_check)
        sinew_record_timestamp(r, SINEW_PHASE_RESIDUAL);
    sinew_record_copy(r, &b->buffers[SINEW_BIND_STATS], 0, &b->readback, 0, sizeof(GpuStats));
    sinew_record_host_barrier(r); /* positions and stats are read by the host */
}

/* The collider list's poses at the end of substep s (shapes.comp), for a
 * body with a list, and the barrier the kernels after it need (they read
 * SHAPES, which it writes). Per shape the record in (80 bytes) and out
 * (128). */
static void record_shapes(sinew_body *b, sinew_recorder *r, uint32_t s)
{
    const uint32_t count = b->desc.max_shapes;
    if (!count)
        return;
    GpuRange push = {s, count};
    sinew_record_dispatch(r, SINEW_KERNEL_SHAPES, count, &push, sizeof push);
    sinew_record_barrier(r);
    r->bytes += 208ull * count;
}

/* The wind's velocity changes (wind.comp), for a body with wind, followed by
 * the barrier the prediction needs: velocities from VEL, or (`from_positions`)
 * from the positions the velocity kernel is about to turn into them. Per
 * particle its position, velocity (or two positions) and offsets in, its
 * change out, 72 bytes; per corner of a triangle a pair of indices and two
 * positions and velocities, 104 bytes; the prediction reads the change, 16
 * per particle. */
static void record_wind(sinew_body *b, sinew_recorder *r, int from_positions)
{
    if (!b->wind)
        return;
    const uint32_t n = b->particle_count;
    GpuRange push = {0, n, from_positions ? 1u : 0u};
    sinew_record_dispatch(r, SINEW_KERNEL_WIND, n, &push, sizeof push);
    sinew_record_barrier(r);
    r->bytes += 88ull * n + 312ull * b->triangle_count;
}

/* docs/math.md section 1: per substep the prediction, the solver's
 * iterations with contacts, the velocities (or the solver's own substep,
 * record_substep); then the step's end. The prediction, the velocities and
 * the health check work on each particle alone, so the step runs them in as
 * few dispatches as the solver's work between them allows: the first
 * substep's prediction clears the solver's per-substep state in the same
 * pass (record_reset), each substep's velocities run with the next one's
 * prediction, and the last substep's with the health check. Each particle
 * sees the same operations in the same order as when every stage is a
 * dispatch of its own (b->unfused), so both give the same bits. */
void sinew_body_record_stages(sinew_body *b, sinew_recorder *r)
{
    const sinew_solver_ops *ops = sinew_body_ops(b);
    const uint32_t n = b->particle_count, substeps = b->desc.substeps;
    const int fused = !b->unfused;
    GpuRange predict = {0, n}; /* and, fused, what the solver clears each substep */
    if (fused && ops->record_reset)
        ops->record_reset(b->state, &b->view, r, &predict);
    const uint32_t cleared = predict.count2 > predict.slot_base ? predict.count2 : predict.slot_base;
    const uint32_t predict_threads = n > cleared ? n : cleared;
    const uint64_t clear_bytes = 4ull * predict.count2 + 16ull * predict.slot_base;
    int predicted = 0; /* this substep's prediction ran with the velocities of the one before */
    int checked = 0;   /* the last velocities ran the health check */
    /* the other bodies' positions as their last steps left them, still
     * through this one (docs/self-collision.md) */
    uint64_t ghost = b->self.ghost_offset;
    for (uint32_t k = 0; k < b->other_count; k++) {
        const uint64_t count = b->others[k]->particle_count;
        sinew_record_copy(r, &b->others[k]->buffers[SINEW_BIND_POS], 0, &b->buffers[SINEW_BIND_SELF_REAL], 16 * ghost,
                          16 * count);
        r->bytes += 32 * count;
        ghost += count;
    }
    sinew_record_timestamp(r, SINEW_PHASE_START);
    for (uint32_t s = 0; s < substeps; s++) {
        if (ops->record_substep) {
            record_shapes(b, r, s);
            ops->record_substep(b->state, &b->view, r, s);
            sinew_record_timestamp(r, SINEW_PHASE_VELOCITY);
            continue;
        }
        if (!predicted) {
            if (!fused && ops->record_reset)
                ops->record_reset(b->state, &b->view, r, NULL);
            record_shapes(b, r, s);
            record_wind(b, r, 0);
            sinew_record_dispatch(r, SINEW_KERNEL_PREDICT, predict_threads, &predict, sizeof predict);
            sinew_record_barrier(r);
            r->bytes += (uint64_t)BYTES_PREDICT * n + clear_bytes;
        }
        sinew_attach_record_substep(&b->attach, r, s, substeps);
        ops->record_solve(b->state, &b->view, r);
        const int last = s + 1 == substeps;
        if (fused && !last) {
            record_shapes(b, r, s + 1);
            record_wind(b, r, 1);
            sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY_PREDICT, predict_threads, &predict, sizeof predict);
            sinew_record_barrier(r);
            r->bytes += (uint64_t)BYTES_VELOCITY_PREDICT * n + clear_bytes;
        } else if (fused && b->desc.health_check) {
            uint32_t threads;
            GpuRange velocity = health_range(b, &threads);
            sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY, threads, &velocity, sizeof velocity);
            /* normals and residual read positions and write neither VEL nor
             * STATS; the reduction, which writes STATS, follows a barrier */
            sinew_record_independent(r);
            r->bytes += (uint64_t)BYTES_VELOCITY * n + health_bytes(b, 1);
            checked = 1;
        } else {
            GpuRange particles = {0, n};
            sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY, n, &particles, sizeof particles);
            if (fused)
                sinew_record_independent(r);
            else
                sinew_record_barrier(r);
            r->bytes += (uint64_t)BYTES_VELOCITY * n;
        }
        predicted = fused && !last;
        sinew_record_timestamp(r, SINEW_PHASE_VELOCITY);
    }
    record_step_end(b, r, checked);
}

sinew_result sinew_body_record_new(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    const sinew_solver_ops *ops = sinew_body_ops(b);
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = ctx->command_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VK_TRY(ctx, vk->vkAllocateCommandBuffers(ctx->device, &ai, &b->cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fi.flags = VK_FENCE_CREATE_SIGNALED_BIT; /* "no step in flight" */
    VK_TRY(ctx, vk->vkCreateFence(ctx->device, &fi, NULL, &b->fence));
    /* Timestamps: one at the start, per substep the solver's and one after
     * velocities, one after the residual and health check. */
    const uint64_t per_substep = 1ull + ops->timestamps(b->state, &b->view);
    uint64_t wanted = 1 + (uint64_t)b->desc.substeps * per_substep + 1;
    if (b->desc.timestamps && ctx->timestamp_bits && wanted > SINEW_MAX_TIMESTAMPS)
        sinew_logf(&ctx->logger, SINEW_LOG_INFO, "body", "%llu timestamps per step are too many: phases not timed",
                   (unsigned long long)wanted);
    if (b->desc.timestamps && ctx->timestamp_bits && wanted <= SINEW_MAX_TIMESTAMPS) {
        VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = (uint32_t)wanted;
        VK_TRY(ctx, vk->vkCreateQueryPool(ctx->device, &qi, NULL, &b->queries));
        b->query_results = calloc(wanted, sizeof *b->query_results);
        b->query_phase = calloc(wanted, sizeof *b->query_phase);
        if (!b->query_results || !b->query_phase)
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    return sinew_body_record_commands(b);
}

sinew_result sinew_body_record_commands(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    const sinew_solver_ops *ops = sinew_body_ops(b);
    const uint64_t per_substep = 1ull + ops->timestamps(b->state, &b->view);
    const uint64_t wanted = 1 + (uint64_t)b->desc.substeps * per_substep + 1;
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_TRY(ctx, vk->vkBeginCommandBuffer(b->cmd, &bi));
    if (b->queries)
        vk->vkCmdResetQueryPool(b->cmd, b->queries, 0, (uint32_t)wanted);
    sinew_bindings_bind(ctx, b->cmd, &b->bindings);
    sinew_recorder rec = {ctx, b->cmd};
    rec.queries = b->queries;
    rec.query_capacity = b->queries ? (uint32_t)wanted : 0;
    rec.phase_of = b->query_phase;
    const uint64_t n = b->particle_count;
    /* the step's parameters and fresh statistics, as the host wrote them */
    sinew_record_copy(&rec, &b->upload, 0, &b->buffers[SINEW_BIND_PARAMS], 0, sizeof(GpuParams));
    sinew_record_copy(&rec, &b->upload, sizeof(GpuParams), &b->buffers[SINEW_BIND_STATS], 0, sizeof(GpuStats));
    if (b->desc.max_shapes) /* the collider list as the step starts */
        sinew_record_copy(&rec, &b->upload, UPLOAD_SHAPES, &b->buffers[SINEW_BIND_SHAPES], 0,
                          sizeof(GpuShape) * (uint64_t)b->desc.max_shapes);
    const uint64_t dynamic = sinew_attach_dynamic_bytes(&b->attach);
    if (dynamic) { /* frames and pins' targets */
        sinew_record_copy(&rec, &b->upload, UPLOAD_ATTACH(b), &b->buffers[SINEW_BIND_ATTACH], 0, dynamic);
        rec.bytes += 2 * dynamic;
    }
    if (b->desc.rollback) {
        const uint64_t bends = b->bend_count;
        sinew_record_copy(&rec, &b->buffers[SINEW_BIND_POS], 0, &b->saved, 0, 16 * n);
        sinew_record_copy(&rec, &b->buffers[SINEW_BIND_VEL], 0, &b->saved, 16 * n, 16 * n);
        sinew_record_copy(&rec, &b->buffers[SINEW_BIND_ANGLE], 0, &b->saved, 32 * n, 4 * bends);
        rec.bytes += 64 * n + 8 * bends;
    }
    sinew_body_record_stages(b, &rec);
    VK_TRY(ctx, vk->vkEndCommandBuffer(b->cmd));
    b->dispatches = rec.dispatches;
    b->barriers = rec.barriers;
    b->bytes = rec.bytes;
    b->query_count = rec.query_count;
    return SINEW_RESULT_OK;
}

/* Records the step again into a new command buffer (the body settled). */
sinew_result sinew_body_rerecord(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    vk->vkDestroyFence(ctx->device, b->fence, NULL);
    vk->vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &b->cmd);
    if (b->queries)
        vk->vkDestroyQueryPool(ctx->device, b->queries, NULL);
    free(b->query_results);
    free(b->query_phase);
    b->fence = VK_NULL_HANDLE;
    b->cmd = VK_NULL_HANDLE;
    b->queries = VK_NULL_HANDLE;
    b->query_results = NULL;
    b->query_phase = NULL;
    return sinew_body_record_new(b);
}
