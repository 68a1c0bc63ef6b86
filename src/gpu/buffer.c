/* Buffers and the memory under them (docs/architecture.md, "Memory").
 *
 * Simulation state lives in device-local memory that the host does not map
 * wherever the device has such memory (discrete GPUs); the host reaches it
 * through the context's staging and readback buffers, by copies. Several
 * buffers made together (sinew_buffers_create) share one allocation per
 * memory type: a body holds a handful of allocations, not one per buffer.
 * When an allocation fails for want of memory the next suitable memory type
 * is tried before failing, and the failure names the heaps and sizes. */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The discrete-GPU mode's host-visible heap: what a GPU without resizable BAR
 * lets the host map. */
#define DISCRETE_HOST_VISIBLE (256ull << 20)
/* Staging and readback buffers of the context grow to at most this; larger
 * copies go in pieces. */
#define STAGING_CHUNK (8ull << 20)
/* One allocation holds at most this (Vulkan guarantees 1 GiB per allocation);
 * a larger buffer gets its own. */
#define BLOCK_MAX (1ull << 30)

/* One VkDeviceMemory shared by the buffers bound into it; freed with the
 * last of them. */
struct sinew_block {
    VkDeviceMemory memory;
    void *mapped;
    VkDeviceSize size;
    uint32_t refs;
    uint32_t type;
    sinew_memory kind;
};

static const char *kind_name(sinew_memory kind)
{
    return kind == SINEW_MEMORY_HOST ? "host-visible" : kind == SINEW_MEMORY_READBACK ? "readback" : "device";
}

/* How well memory type `flags` suits `kind`: 0 not at all, higher better. */
static int type_rank(const sinew_context *ctx, VkMemoryPropertyFlags flags, sinew_memory kind)
{
    const VkMemoryPropertyFlags dl = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                                hc = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    if (flags & (VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT | VK_MEMORY_PROPERTY_PROTECTED_BIT))
        return 0;
    switch (kind) {
    case SINEW_MEMORY_DEVICE: /* VRAM the host cannot see, then any device-local, then anything */
        return (flags & dl) && !(flags & hv) ? 3 : (flags & dl) ? 2 : 1;
    case SINEW_MEMORY_HOST: /* written by the host, read once by a copy */
        if ((flags & (hv | hc)) != (hv | hc))
            return 0;
        return ctx->memory_model == SINEW_MEMORY_MODEL_DISCRETE || !(flags & dl) ? 2 : 1;
    case SINEW_MEMORY_READBACK: /* written by a copy, read by the host: cached */
        if ((flags & (hv | hc)) != (hv | hc))
            return 0;
        return (flags & cached) ? 2 : 1;
    }
    return 0;
}

/* Memory types for `kind` allowed by type_bits, best first; returns how many. */
static uint32_t candidate_types(const sinew_context *ctx, uint32_t type_bits, sinew_memory kind,
                                uint32_t out[VK_MAX_MEMORY_TYPES])
{
    const VkPhysicalDeviceMemoryProperties *mp = &ctx->memory_props;
    uint32_t count = 0;
    for (int rank = 3; rank >= 1; rank--)
        for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
            if ((type_bits & (1u << i)) && type_rank(ctx, mp->memoryTypes[i].propertyFlags, kind) == rank)
                out[count++] = i;
    return count;
}

/* Whether the host maps memory of `type` for `kind`: never for device
 * buffers in the discrete-GPU mode. */
static int maps(const sinew_context *ctx, uint32_t type, sinew_memory kind)
{
    if (!(ctx->memory_props.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        return 0;
    return kind != SINEW_MEMORY_DEVICE || ctx->memory_model != SINEW_MEMORY_MODEL_DISCRETE;
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

/* The heaps behind `types`, for a failure's message. */
static void describe_heaps(const sinew_context *ctx, const uint32_t *types, uint32_t count, char *out, size_t cap)
{
    const VkPhysicalDeviceMemoryProperties *mp = &ctx->memory_props;
    size_t len = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < count && len < cap; i++) {
        uint32_t heap = mp->memoryTypes[types[i]].heapIndex;
        int n = snprintf(out + len, cap - len, "%stype %u on heap %u of %llu MiB%s", i ? ", " : "", types[i], heap,
                         (unsigned long long)(mp->memoryHeaps[heap].size >> 20),
                         (mp->memoryHeaps[heap].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) ? " (device-local)" : "");
        len += n > 0 ? (size_t)n : 0;
    }
}

/* One allocation of `size` bytes for the buffers of `kind` allowed by
 * type_bits: the best memory type whose heap has room. */
static sinew_result allocate_block(sinew_context *ctx, uint32_t type_bits, VkDeviceSize size, sinew_memory kind,
                                   const char *what, struct sinew_block **out)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    *out = NULL;
    uint32_t types[VK_MAX_MEMORY_TYPES];
    const uint32_t count = candidate_types(ctx, type_bits, kind, types);
    if (count == 0)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "buffer", "no memory type fits %s (%s memory)",
                          what, kind_name(kind));
    if (kind == SINEW_MEMORY_DEVICE && ctx->device_memory_limit && ctx->device_memory + size > ctx->device_memory_limit)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "buffer",
                          "%s needs %llu bytes; %llu of the context's limit of %llu are in use", what,
                          (unsigned long long)size, (unsigned long long)ctx->device_memory,
                          (unsigned long long)ctx->device_memory_limit);
    if (kind != SINEW_MEMORY_DEVICE && ctx->memory_model == SINEW_MEMORY_MODEL_DISCRETE &&
        ctx->host_visible_memory + size > DISCRETE_HOST_VISIBLE)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "buffer",
                          "%s needs %llu bytes of host-visible memory; %llu of the %llu MiB the discrete-GPU memory "
                          "mode allows are in use", what, (unsigned long long)size,
                          (unsigned long long)ctx->host_visible_memory, DISCRETE_HOST_VISIBLE >> 20);
    for (uint32_t i = 0; i < count; i++) {
        VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = size;
        ai.memoryTypeIndex = types[i];
        VkDeviceMemory memory;
        VkResult vr = vk->vkAllocateMemory(ctx->device, &ai, NULL, &memory);
        if (vr == VK_ERROR_OUT_OF_DEVICE_MEMORY || vr == VK_ERROR_OUT_OF_HOST_MEMORY)
            continue; /* this heap is full: the next type may be on another */
        if (vr != VK_SUCCESS) {
            sinew_logf(&ctx->logger, SINEW_LOG_ERROR, "buffer", "allocating %llu bytes for %s",
                       (unsigned long long)size, what);
            return sinew_vk_fail(ctx, vr, "vkAllocateMemory", __FILE__, __LINE__);
        }
        void *mapped = NULL;
        if (maps(ctx, types[i], kind) && (vr = vk->vkMapMemory(ctx->device, memory, 0, VK_WHOLE_SIZE, 0, &mapped))) {
            vk->vkFreeMemory(ctx->device, memory, NULL);
            return sinew_vk_fail(ctx, vr, "vkMapMemory", __FILE__, __LINE__);
        }
        struct sinew_block *block = calloc(1, sizeof *block);
        if (!block) {
            vk->vkFreeMemory(ctx->device, memory, NULL);
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "buffer", "out of host memory");
        }
        *block = (struct sinew_block){memory, mapped, size, 0, types[i], kind};
        ctx->allocations++;
        if (kind == SINEW_MEMORY_DEVICE)
            ctx->device_memory += size;
        else
            ctx->host_visible_memory += size;
        *out = block;
        return SINEW_RESULT_OK;
    }
    char heaps[512];
    describe_heaps(ctx, types, count, heaps, sizeof heaps);
    return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "buffer",
                      "%s needs %llu bytes of %s memory and no memory type had room (%s)", what,
                      (unsigned long long)size, kind_name(kind), heaps);
}

static void release_block(sinew_context *ctx, struct sinew_block *block)
{
    if (!block || --block->refs > 0)
        return;
    ctx->vk.vkFreeMemory(ctx->device, block->memory, NULL);
    ctx->allocations--;
    if (block->kind == SINEW_MEMORY_DEVICE)
        ctx->device_memory -= block->size;
    else
        ctx->host_visible_memory -= block->size;
    free(block);
}

void sinew_buffer_destroy(sinew_context *ctx, sinew_buffer *buf)
{
    if (buf->buffer)
        ctx->vk.vkDestroyBuffer(ctx->device, buf->buffer, NULL);
    release_block(ctx, buf->block);
    memset(buf, 0, sizeof *buf);
}

/* Records a copy into the context's transfer command buffer and waits. */
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

/* The context's staging (uploads) or readback buffer, at least `want` bytes
 * (at most STAGING_CHUNK): made on first use, grown when too small. */
static sinew_result staging(sinew_context *ctx, sinew_memory kind, VkDeviceSize want, sinew_buffer **out)
{
    sinew_buffer **slot = kind == SINEW_MEMORY_READBACK ? &ctx->readback : &ctx->staging;
    if (!*slot && !(*slot = calloc(1, sizeof **slot)))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "buffer", "out of host memory");
    *out = *slot;
    if ((*slot)->size >= want)
        return SINEW_RESULT_OK;
    VkDeviceSize size = 64 * 1024;
    while (size < want)
        size *= 2;
    sinew_buffer_destroy(ctx, *slot);
    return sinew_buffer_create(ctx, size, kind, kind == SINEW_MEMORY_READBACK ? "readback buffer" : "staging buffer",
                               *slot);
}

void sinew_staging_destroy(sinew_context *ctx)
{
    sinew_buffer **slots[2] = {&ctx->staging, &ctx->readback};
    for (int i = 0; i < 2; i++)
        if (*slots[i]) {
            sinew_buffer_destroy(ctx, *slots[i]);
            free(*slots[i]);
            *slots[i] = NULL;
        }
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
    for (VkDeviceSize done = 0; done < size;) {
        VkDeviceSize piece = size - done < STAGING_CHUNK ? size - done : STAGING_CHUNK;
        sinew_buffer *stage = NULL;
        sinew_result r = staging(ctx, SINEW_MEMORY_HOST, piece, &stage);
        if (r != SINEW_RESULT_OK)
            return r;
        memcpy(stage->mapped, (const char *)data + done, piece);
        if ((r = one_shot_copy(ctx, stage->buffer, 0, buf->buffer, offset + done, piece)) != SINEW_RESULT_OK)
            return r;
        done += piece;
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_buffer_download(sinew_context *ctx, sinew_buffer *buf, VkDeviceSize offset, void *data,
                                   VkDeviceSize size)
{
    SINEW_ASSERT(offset + size <= buf->size);
    if (ctx->lost) /* mapped memory of a lost device holds undefined values */
        return sinew_context_refuse_lost(ctx);
    if (size == 0)
        return SINEW_RESULT_OK;
    ctx->counters.readback_bytes += size;
    if (buf->mapped) {
        memcpy(data, (const char *)buf->mapped + offset, size);
        return SINEW_RESULT_OK;
    }
    for (VkDeviceSize done = 0; done < size;) {
        VkDeviceSize piece = size - done < STAGING_CHUNK ? size - done : STAGING_CHUNK;
        sinew_buffer *back = NULL;
        sinew_result r = staging(ctx, SINEW_MEMORY_READBACK, piece, &back);
        if (r != SINEW_RESULT_OK)
            return r;
        if ((r = one_shot_copy(ctx, buf->buffer, offset + done, back->buffer, 0, piece)) != SINEW_RESULT_OK)
            return r;
        memcpy((char *)data + done, back->mapped, piece);
        done += piece;
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_buffer_copy(sinew_context *ctx, const sinew_buffer *src, VkDeviceSize src_offset,
                               sinew_buffer *dst, VkDeviceSize dst_offset, VkDeviceSize size)
{
    SINEW_ASSERT(src_offset + size <= src->size && dst_offset + size <= dst->size);
    if (size == 0)
        return SINEW_RESULT_OK;
    return one_shot_copy(ctx, src->buffer, src_offset, dst->buffer, dst_offset, size);
}

/* Zeros: mapped buffers by the host, the rest by fills in one submit. */
static sinew_result zero_fill(sinew_context *ctx, sinew_buffer *const *bufs, uint32_t count)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    uint32_t fills = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (bufs[i]->mapped)
            memset(bufs[i]->mapped, 0, bufs[i]->size);
        else
            fills++;
    }
    if (fills == 0)
        return SINEW_RESULT_OK;
    if (ctx->lost)
        return sinew_context_refuse_lost(ctx);
    VkCommandBuffer cmd = ctx->transfer_cmd;
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_TRY(ctx, vk->vkResetCommandBuffer(cmd, 0));
    VK_TRY(ctx, vk->vkBeginCommandBuffer(cmd, &bi));
    for (uint32_t i = 0; i < count; i++)
        if (!bufs[i]->mapped)
            vk->vkCmdFillBuffer(cmd, bufs[i]->buffer, 0, VK_WHOLE_SIZE, 0);
    VkMemoryBarrier after = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                             VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                                 VK_ACCESS_TRANSFER_WRITE_BIT};
    vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &after, 0,
                             NULL, 0, NULL);
    VK_TRY(ctx, vk->vkEndCommandBuffer(cmd));
    return sinew_submit_and_wait(ctx, cmd, ctx->transfer_fence);
}

/* Creates plan's buffers: each a VkBuffer, then one allocation per memory
 * kind and type mask (and per BLOCK_MAX bytes) that they are bound into. */
static sinew_result create_set(sinew_context *ctx, const sinew_buffer_plan *plan, uint32_t count, sinew_buffer *out,
                               int zero)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t i = 0; i < count; i++)
        if (plan[i].size || plan[i].always)
            memset(plan[i].target ? plan[i].target : &out[plan[i].binding], 0, sizeof(sinew_buffer));
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++)
        r = sinew_buffer_check_size(ctx, plan[i].size, plan[i].what);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_buffer **bufs = calloc(count + 1, sizeof *bufs);
    const char **whats = calloc(count + 1, sizeof *whats);
    VkMemoryRequirements *req = calloc(count + 1, sizeof *req);
    uint8_t *placed = calloc(count + 1, 1);
    if (!bufs || !whats || !req || !placed) {
        free(bufs), free(whats), free(req), free(placed);
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "buffer", "out of host memory");
    }
    uint32_t made = 0;
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++) {
        if (!plan[i].size && !plan[i].always)
            continue;
        sinew_buffer *b = plan[i].target ? plan[i].target : &out[plan[i].binding];
        b->size = buffer_size(plan[i].size);
        b->kind = plan[i].memory;
        VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = b->size;
        bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                   VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                   VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
                   (ctx->conditional ? VK_BUFFER_USAGE_CONDITIONAL_RENDERING_BIT_EXT : 0);
        bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        VkResult vr = vk->vkCreateBuffer(ctx->device, &bi, NULL, &b->buffer);
        if (vr != VK_SUCCESS) {
            r = sinew_vk_fail(ctx, vr, "vkCreateBuffer", __FILE__, __LINE__);
            break;
        }
        vk->vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req[made]);
        whats[made] = plan[i].what;
        bufs[made++] = b;
    }
    /* Group by kind and allowed types, in plan order; a block closes at BLOCK_MAX. */
    for (uint32_t i = 0; i < made && r == SINEW_RESULT_OK; i++) {
        if (placed[i])
            continue;
        VkDeviceSize size = 0;
        uint32_t members[64], n = 0;
        for (uint32_t j = i; j < made && n < 64; j++) {
            if (placed[j] || bufs[j]->kind != bufs[i]->kind || req[j].memoryTypeBits != req[i].memoryTypeBits)
                continue;
            VkDeviceSize at = (size + req[j].alignment - 1) / req[j].alignment * req[j].alignment;
            if (n > 0 && at + req[j].size > BLOCK_MAX)
                continue;
            bufs[j]->offset = at;
            size = at + req[j].size;
            members[n++] = j;
            placed[j] = 1;
        }
        struct sinew_block *block;
        char what[160];
        snprintf(what, sizeof what, n == 1 ? "%s" : "%s and %u other buffers", whats[i], n - 1);
        r = allocate_block(ctx, req[i].memoryTypeBits, size, bufs[i]->kind, what, &block);
        for (uint32_t k = 0; k < n && r == SINEW_RESULT_OK; k++) {
            sinew_buffer *b = bufs[members[k]];
            VkResult vr = vk->vkBindBufferMemory(ctx->device, b->buffer, block->memory, b->offset);
            if (vr != VK_SUCCESS) {
                r = sinew_vk_fail(ctx, vr, "vkBindBufferMemory", __FILE__, __LINE__);
                break;
            }
            b->block = block;
            block->refs++;
            /* Its bytes up to the next member's (the padding included): the
             * members' add up to the allocation. */
            b->allocated = (k + 1 < n ? bufs[members[k + 1]]->offset : size) - b->offset;
            b->mapped = block->mapped ? (char *)block->mapped + b->offset : NULL;
        }
        if (r != SINEW_RESULT_OK && block && block->refs == 0) {
            block->refs = 1;
            release_block(ctx, block);
        }
    }
    if (r == SINEW_RESULT_OK && zero)
        r = zero_fill(ctx, bufs, made);
    free(bufs), free(whats), free(req), free(placed);
    return r;
}

sinew_result sinew_buffers_create(sinew_context *ctx, const sinew_buffer_plan *plan, uint32_t count,
                                  sinew_buffer *out)
{
    return create_set(ctx, plan, count, out, 1);
}

sinew_result sinew_buffer_create(sinew_context *ctx, VkDeviceSize size, sinew_memory memory, const char *what,
                                 sinew_buffer *out)
{
    sinew_buffer_plan one = {0, size, memory, what, 1, out};
    return create_set(ctx, &one, 1, NULL, 0);
}
