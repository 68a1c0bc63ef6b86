/* Buffers: one allocation each (a body has about a dozen), staging when the
 * device memory is not host-visible or when the context forces it. */
#include "gpu.h"

#include <stdlib.h>
#include <string.h>

static int find_memory_type(const sinew_context *ctx, uint32_t type_bits, VkMemoryPropertyFlags want)
{
    const VkPhysicalDeviceMemoryProperties *mp = &ctx->memory_props;
    for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
        if ((type_bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

/* Vulkan has no empty buffers (an unused binding still needs one), and every
 * kernel reads whole vec4s. */
static VkDeviceSize buffer_size(VkDeviceSize size)
{
    return size < 16 ? 16 : (size + 15) & ~(VkDeviceSize)15;
}

sinew_result sinew_buffer_check_size(sinew_context *ctx, VkDeviceSize size, const char *what)
{
    size = buffer_size(size);
    if (size <= ctx->limits.maxStorageBufferRange)
        return SINEW_RESULT_OK;
    if (ctx->portable && ctx->limits.maxStorageBufferRange < ctx->props.limits.maxStorageBufferRange)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_LIMIT, "buffer",
                          "%s needs %llu bytes, more than the %u bytes per storage-buffer binding of the portable "
                          "limits (Android Baseline 2022; %s itself allows %u)", what, (unsigned long long)size,
                          ctx->limits.maxStorageBufferRange, ctx->props.deviceName,
                          ctx->props.limits.maxStorageBufferRange);
    return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_LIMIT, "buffer",
                      "%s needs %llu bytes, more than %s's maxStorageBufferRange (%u bytes per storage-buffer binding)",
                      what, (unsigned long long)size, ctx->props.deviceName, ctx->limits.maxStorageBufferRange);
}

sinew_result sinew_buffer_create(sinew_context *ctx, VkDeviceSize size, sinew_memory memory, const char *what,
                                 sinew_buffer *out)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    memset(out, 0, sizeof *out);
    sinew_result r = sinew_buffer_check_size(ctx, size, what);
    if (r != SINEW_RESULT_OK)
        return r;
    size = buffer_size(size);

    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_TRY(ctx, vk->vkCreateBuffer(ctx->device, &bi, NULL, &out->buffer));
    out->size = size;

    VkMemoryRequirements req;
    vk->vkGetBufferMemoryRequirements(ctx->device, out->buffer, &req);
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    int type = -1;
    int mappable = 0;
    if (memory == SINEW_MEMORY_HOST) {
        type = find_memory_type(ctx, req.memoryTypeBits, host);
        mappable = 1;
    } else {
        if (!ctx->force_staging) {
            type = find_memory_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | host);
            mappable = type >= 0;
        }
        if (type < 0)
            type = find_memory_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (type < 0)
            type = find_memory_type(ctx, req.memoryTypeBits, 0);
    }
    if (type < 0) {
        sinew_buffer_destroy(ctx, out);
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "buffer", "no memory type fits %s", what);
    }
    if (ctx->device_memory_limit && ctx->device_memory + req.size > ctx->device_memory_limit) {
        sinew_buffer_destroy(ctx, out);
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "buffer",
                          "%s needs %llu bytes; %llu of the context's limit of %llu are in use", what,
                          (unsigned long long)req.size, (unsigned long long)ctx->device_memory,
                          (unsigned long long)ctx->device_memory_limit);
    }
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = (uint32_t)type;
    VkResult vr = vk->vkAllocateMemory(ctx->device, &ai, NULL, &out->memory);
    if (vr == VK_SUCCESS)
        vr = vk->vkBindBufferMemory(ctx->device, out->buffer, out->memory, 0);
    if (vr == VK_SUCCESS && mappable)
        vr = vk->vkMapMemory(ctx->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
    if (vr != VK_SUCCESS) {
        sinew_buffer_destroy(ctx, out);
        sinew_logf(&ctx->logger, SINEW_LOG_ERROR, "buffer", "allocating %llu bytes for %s",
                   (unsigned long long)req.size, what);
        return sinew_vk_fail(ctx, vr, "vkAllocateMemory", __FILE__, __LINE__);
    }
    out->allocated = req.size;
    ctx->device_memory += req.size;
    return SINEW_RESULT_OK;
}

void sinew_buffer_destroy(sinew_context *ctx, sinew_buffer *buf)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    if (buf->buffer)
        vk->vkDestroyBuffer(ctx->device, buf->buffer, NULL);
    if (buf->memory)
        vk->vkFreeMemory(ctx->device, buf->memory, NULL);
    ctx->device_memory -= buf->allocated;
    memset(buf, 0, sizeof *buf);
}

/* Records cmd's copy into the context's transfer command buffer and waits. */
static sinew_result one_shot_copy(sinew_context *ctx, VkBuffer src, VkDeviceSize src_offset, VkBuffer dst,
                                  VkDeviceSize dst_offset, VkDeviceSize size)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    VkCommandBuffer cmd = ctx->transfer_cmd;
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_TRY(ctx, vk->vkResetCommandBuffer(cmd, 0));
    VK_TRY(ctx, vk->vkBeginCommandBuffer(cmd, &bi));
    /* Earlier compute work on either buffer finishes before the copy; the copy
     * is visible to later compute work and to the host. */
    VkMemoryBarrier before = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
                              VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                             VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0, NULL, 0, NULL);
    VkBufferCopy region = {src_offset, dst_offset, size};
    vk->vkCmdCopyBuffer(cmd, src, dst, 1, &region);
    VkMemoryBarrier after = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                             VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT};
    vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0,
                             NULL, 0, NULL);
    VK_TRY(ctx, vk->vkEndCommandBuffer(cmd));
    return sinew_submit_and_wait(ctx, cmd, ctx->transfer_fence);
}

sinew_result sinew_buffer_upload(sinew_context *ctx, sinew_buffer *buf, VkDeviceSize offset, const void *data,
                                 VkDeviceSize size)
{
    SINEW_ASSERT(offset + size <= buf->size);
    if (ctx->lost)
        return sinew_context_refuse_lost(ctx);
    if (size == 0)
        return SINEW_RESULT_OK;
    if (buf->mapped) {
        memcpy((char *)buf->mapped + offset, data, size);
        return SINEW_RESULT_OK;
    }
    sinew_buffer staging;
    sinew_result r = sinew_buffer_create(ctx, size, SINEW_MEMORY_HOST, "staging buffer", &staging);
    if (r != SINEW_RESULT_OK)
        return r;
    memcpy(staging.mapped, data, size);
    r = one_shot_copy(ctx, staging.buffer, 0, buf->buffer, offset, size);
    sinew_buffer_destroy(ctx, &staging);
    return r;
}

sinew_result sinew_buffer_download(sinew_context *ctx, sinew_buffer *buf, VkDeviceSize offset, void *data,
                                   VkDeviceSize size)
{
    SINEW_ASSERT(offset + size <= buf->size);
    if (ctx->lost) /* mapped memory of a lost device holds undefined values */
        return sinew_context_refuse_lost(ctx);
    if (size == 0)
        return SINEW_RESULT_OK;
    if (buf->mapped) {
        memcpy(data, (const char *)buf->mapped + offset, size);
        return SINEW_RESULT_OK;
    }
    sinew_buffer staging;
    sinew_result r = sinew_buffer_create(ctx, size, SINEW_MEMORY_HOST, "staging buffer", &staging);
    if (r != SINEW_RESULT_OK)
        return r;
    r = one_shot_copy(ctx, buf->buffer, offset, staging.buffer, 0, size);
    if (r == SINEW_RESULT_OK)
        memcpy(data, staging.mapped, size);
    sinew_buffer_destroy(ctx, &staging);
    return r;
}

sinew_result sinew_buffer_copy(sinew_context *ctx, const sinew_buffer *src, VkDeviceSize src_offset,
                               sinew_buffer *dst, VkDeviceSize dst_offset, VkDeviceSize size)
{
    SINEW_ASSERT(src_offset + size <= src->size && dst_offset + size <= dst->size);
    if (size == 0)
        return SINEW_RESULT_OK;
    return one_shot_copy(ctx, src->buffer, src_offset, dst->buffer, dst_offset, size);
}

sinew_result sinew_buffers_create(sinew_context *ctx, const sinew_buffer_plan *plan, uint32_t count,
                                  sinew_buffer *out)
{
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++)
        r = sinew_buffer_check_size(ctx, plan[i].size, plan[i].what);
    size_t largest = 16;
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++)
        if (plan[i].size || plan[i].always) {
            r = sinew_buffer_create(ctx, plan[i].size, plan[i].memory, plan[i].what, &out[plan[i].binding]);
            if (out[plan[i].binding].size > largest)
                largest = (size_t)out[plan[i].binding].size;
        }
    void *zero = r == SINEW_RESULT_OK ? calloc(1, largest) : NULL;
    if (r == SINEW_RESULT_OK && !zero)
        r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "buffer", "out of host memory");
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++)
        if (out[plan[i].binding].buffer)
            r = sinew_buffer_upload(ctx, &out[plan[i].binding], 0, zero, out[plan[i].binding].size);
    free(zero);
    return r;
}
