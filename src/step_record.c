/* The step's command buffer: made at creation, the copies of parameters,
 * statistics, the collider list, the attachments' targets and the rollback
 * copy that start it, then the stages (stages.c), and recording it again
 * when buffers or the solver's plan change. */
#include "body.h"

#include <stdlib.h>

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

/* Records the step again into a new command buffer (the body settled), and
 * its counts into the statistics. */
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
    sinew_result r = sinew_body_record_new(b);
    if (r == SINEW_RESULT_OK) {
        b->stats.dispatches = b->dispatches;
        b->stats.barriers = b->barriers;
        b->stats.bytes = b->bytes;
        b->stats.device_memory = sinew_body_device_memory(b, &b->stats.device_allocations);
    }
    return r;
}
