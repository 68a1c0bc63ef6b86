/* Command recording: the dispatch helper (checked against the kernel table) and
 * the barriers the data flow needs, nothing hidden. */
#include "gpu.h"

#include <string.h>

void sinew_record_begin(sinew_recorder *r, sinew_context *ctx, VkCommandBuffer cmd, const sinew_bindings *bindings)
{
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->cmd = cmd;
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    r->failed = ctx->vk.vkBeginCommandBuffer(cmd, &bi);
    if (!r->failed)
        sinew_bindings_bind(ctx, cmd, bindings);
}

sinew_result sinew_record_submit(sinew_recorder *r, VkFence fence)
{
    if (r->failed)
        return sinew_vk_fail(r->ctx, r->failed, "vkBeginCommandBuffer", __FILE__, __LINE__);
    VK_TRY(r->ctx, r->ctx->vk.vkEndCommandBuffer(r->cmd));
    return sinew_submit_and_wait(r->ctx, r->cmd, fence);
}

void sinew_record_dispatch(sinew_recorder *r, sinew_kernel kernel, uint32_t threads, const void *push,
                           uint32_t push_size)
{
    SINEW_ASSERT(kernel < SINEW_KERNEL_COUNT);
    SINEW_ASSERT(push_size == sinew_kernels[kernel].push_size);
    if (threads == 0 || r->failed)
        return;
    SINEW_ASSERT(!r->unsynced && "a dispatch depends on the previous one: record a barrier between them");
    r->unsynced = 1;
    const struct VolkDeviceTable *vk = &r->ctx->vk;
    uint32_t groups = (threads + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    uint32_t max_x = r->ctx->limits.maxComputeWorkGroupCount[0];
    uint32_t gx = groups <= max_x ? groups : max_x;
    uint32_t gy = (groups + gx - 1) / gx;
    vk->vkCmdBindPipeline(r->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->ctx->pipelines[kernel]);
    vk->vkCmdPushConstants(r->cmd, r->ctx->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
    vk->vkCmdDispatch(r->cmd, gx, gy, 1);
    r->dispatches++;
}

void sinew_record_barrier(sinew_recorder *r)
{
    if (r->failed)
        return;
    VkMemoryBarrier b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    r->ctx->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b, 0, NULL, 0, NULL);
    r->barriers++;
    r->unsynced = 0;
}

void sinew_record_independent(sinew_recorder *r) { r->unsynced = 0; }

void sinew_record_if(sinew_recorder *r, const sinew_buffer *buf, VkDeviceSize offset)
{
    if (r->failed || !r->ctx->conditional)
        return;
    VkMemoryBarrier b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_ACCESS_CONDITIONAL_RENDERING_READ_BIT_EXT};
    r->ctx->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                    VK_PIPELINE_STAGE_CONDITIONAL_RENDERING_BIT_EXT, 0, 1, &b, 0, NULL, 0, NULL);
    r->barriers++;
    VkConditionalRenderingBeginInfoEXT ci = {VK_STRUCTURE_TYPE_CONDITIONAL_RENDERING_BEGIN_INFO_EXT};
    ci.buffer = buf->buffer;
    ci.offset = offset;
    r->ctx->vk.vkCmdBeginConditionalRenderingEXT(r->cmd, &ci);
}

void sinew_record_end_if(sinew_recorder *r)
{
    if (r->failed || !r->ctx->conditional)
        return;
    r->ctx->vk.vkCmdEndConditionalRenderingEXT(r->cmd);
}

/* Earlier compute and transfer work ends before a transfer command... */
static void before_transfer(sinew_recorder *r)
{
    if (r->failed)
        return;
    VkMemoryBarrier b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                         VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                         VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    r->ctx->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                    VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &b, 0, NULL, 0, NULL);
    r->barriers++;
}

/* ...and later kernels see what it wrote. */
static void after_transfer(sinew_recorder *r)
{
    if (r->failed)
        return;
    VkMemoryBarrier b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    r->ctx->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                                    1, &b, 0, NULL, 0, NULL);
    r->barriers++;
    r->unsynced = 0;
}

void sinew_record_fill(sinew_recorder *r, sinew_buffer *buf, uint32_t value)
{
    before_transfer(r);
    r->ctx->vk.vkCmdFillBuffer(r->cmd, buf->buffer, 0, VK_WHOLE_SIZE, value);
    after_transfer(r);
}

void sinew_record_update(sinew_recorder *r, sinew_buffer *buf, VkDeviceSize offset, const void *data,
                         VkDeviceSize size)
{
    SINEW_ASSERT(size > 0 && size <= 65536 && size % 4 == 0 && offset % 4 == 0);
    before_transfer(r);
    r->ctx->vk.vkCmdUpdateBuffer(r->cmd, buf->buffer, offset, size, data);
    after_transfer(r);
}

void sinew_record_copy(sinew_recorder *r, const sinew_buffer *src, VkDeviceSize src_offset, sinew_buffer *dst,
                       VkDeviceSize dst_offset, VkDeviceSize size)
{
    if (size == 0)
        return; /* Vulkan has no empty copies */
    before_transfer(r);
    VkBufferCopy region = {src_offset, dst_offset, size};
    r->ctx->vk.vkCmdCopyBuffer(r->cmd, src->buffer, dst->buffer, 1, &region);
    after_transfer(r);
}

void sinew_record_host_barrier(sinew_recorder *r)
{
    if (r->failed)
        return;
    VkMemoryBarrier b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                         VK_ACCESS_HOST_READ_BIT};
    r->ctx->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                    VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, NULL, 0, NULL);
    r->barriers++;
    r->unsynced = 0;
}

void sinew_record_timestamp(sinew_recorder *r, sinew_phase phase)
{
    if (!r->queries || r->query_count >= r->query_capacity || r->failed)
        return;
    r->ctx->vk.vkCmdWriteTimestamp(r->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, r->queries, r->query_count);
    r->phase_of[r->query_count++] = (uint8_t)phase;
}

sinew_result sinew_bindings_create(sinew_context *ctx, const sinew_buffer *body, const sinew_buffer *solver,
                                   uint32_t solver_count, sinew_bindings *out)
{
    SINEW_ASSERT(solver_count <= SINEW_SOLVER_BINDINGS);
    const struct VolkDeviceTable *vk = &ctx->vk;
    memset(out, 0, sizeof *out);
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, SINEW_BODY_BINDINGS + SINEW_SOLVER_BINDINGS};
    VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = 2;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    VK_TRY(ctx, vk->vkCreateDescriptorPool(ctx->device, &pi, NULL, &out->pool));
    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = out->pool;
    ai.descriptorSetCount = 2;
    ai.pSetLayouts = ctx->set_layouts;
    VK_TRY(ctx, vk->vkAllocateDescriptorSets(ctx->device, &ai, out->sets));
    enum { TOTAL = SINEW_BODY_BINDINGS + SINEW_SOLVER_BINDINGS };
    VkDescriptorBufferInfo infos[TOTAL];
    VkWriteDescriptorSet writes[TOTAL];
    for (uint32_t i = 0; i < TOTAL; i++) {
        const int in_body = i < SINEW_BODY_BINDINGS;
        const uint32_t binding = in_body ? i : i - SINEW_BODY_BINDINGS;
        const sinew_buffer *buf = in_body ? (body ? &body[binding] : NULL)
                                          : binding < solver_count ? &solver[binding] : NULL;
        if (!buf || !buf->buffer)
            buf = ctx->empty;
        infos[i] = (VkDescriptorBufferInfo){buf->buffer, 0, VK_WHOLE_SIZE};
        writes[i] = (VkWriteDescriptorSet){VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = out->sets[in_body ? SINEW_SET_BODY : SINEW_SET_SOLVER];
        writes[i].dstBinding = binding;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    vk->vkUpdateDescriptorSets(ctx->device, TOTAL, writes, 0, NULL);
    return SINEW_RESULT_OK;
}

void sinew_bindings_destroy(sinew_context *ctx, sinew_bindings *b)
{
    if (b->pool)
        ctx->vk.vkDestroyDescriptorPool(ctx->device, b->pool, NULL);
    memset(b, 0, sizeof *b);
}

void sinew_bindings_bind(const sinew_context *ctx, VkCommandBuffer cmd, const sinew_bindings *b)
{
    ctx->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipeline_layout, 0, 2, b->sets, 0,
                                    NULL);
}

double sinew_timestamp_ms(const sinew_context *ctx, uint64_t begin, uint64_t end)
{
    const uint64_t mask = ctx->timestamp_bits >= 64 ? ~0ull : (1ull << ctx->timestamp_bits) - 1;
    return (double)((end - begin) & mask) * ctx->props.limits.timestampPeriod * 1e-6;
}
