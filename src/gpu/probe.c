/* Device probe: achievable copy bandwidth and the cost of a dependent dispatch,
 * measured with the same binding model and barriers the solvers use. */
#include "gpu.h"

#include <string.h>

#define PROBE_COPIES 16u
#define PROBE_EMPTIES 2000u

static double now_s(void) { return 1e-3 * sinew_host_ms(); }

/* The copy kernel reads POS and writes PREV; the empty one names STATS. */
static const int probe_binding[] = {SINEW_BIND_POS, SINEW_BIND_PREV, SINEW_BIND_STATS};
#define PROBE_BUFFERS (sizeof probe_binding / sizeof probe_binding[0])

typedef struct probe {
    sinew_buffer buffers[PROBE_BUFFERS];
    sinew_bindings bindings;
    VkCommandBuffer cmd;
    VkQueryPool queries;
    VkFence fence;
} probe;

static void probe_free(sinew_context *ctx, probe *p)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    if (p->fence)
        vk->vkDestroyFence(ctx->device, p->fence, NULL);
    if (p->queries)
        vk->vkDestroyQueryPool(ctx->device, p->queries, NULL);
    if (p->cmd)
        vk->vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &p->cmd);
    sinew_bindings_destroy(ctx, &p->bindings);
    for (size_t i = 0; i < PROBE_BUFFERS; i++)
        sinew_buffer_destroy(ctx, &p->buffers[i]);
}

/* Records both measurements; queries 0-1 bracket the copies, 2-3 the chain. */
static sinew_result record(sinew_context *ctx, probe *p, uint32_t vec4s)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_TRY(ctx, vk->vkBeginCommandBuffer(p->cmd, &bi));
    if (p->queries)
        vk->vkCmdResetQueryPool(p->cmd, p->queries, 0, 4);
    sinew_bindings_bind(ctx, p->cmd, &p->bindings);
    sinew_recorder r = {ctx, p->cmd};
    r.queries = p->queries;
    r.query_capacity = p->queries ? 4 : 0;
    uint8_t phases[4];
    r.phase_of = phases;
    GpuRange copy = {0, vec4s};
    sinew_record_timestamp(&r, SINEW_PHASE_START);
    for (uint32_t i = 0; i < PROBE_COPIES; i++) {
        sinew_record_dispatch(&r, SINEW_KERNEL_COPY, vec4s, &copy, sizeof copy);
        sinew_record_barrier(&r);
    }
    sinew_record_timestamp(&r, SINEW_PHASE_SOLVE);
    GpuRange empty = {0, 1};
    sinew_record_timestamp(&r, SINEW_PHASE_START);
    for (uint32_t i = 0; i < PROBE_EMPTIES; i++) {
        sinew_record_dispatch(&r, SINEW_KERNEL_EMPTY, 1, &empty, sizeof empty);
        sinew_record_barrier(&r);
    }
    sinew_record_timestamp(&r, SINEW_PHASE_SOLVE);
    VK_TRY(ctx, vk->vkEndCommandBuffer(p->cmd));
    return SINEW_RESULT_OK;
}

static sinew_result run(sinew_context *ctx, probe *p, sinew_device_probe *out)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    /* Up to 64 MiB each way: past the caches of most devices, within every
     * device's storage-buffer range. */
    uint64_t size = 64ull << 20;
    if (size > ctx->limits.maxStorageBufferRange)
        size = ctx->limits.maxStorageBufferRange & ~15ull;
    uint32_t vec4s = (uint32_t)(size / 16);
    sinew_result r;
    sinew_buffer body[SINEW_BODY_BINDINGS] = {{0}};
    for (size_t i = 0; i < PROBE_BUFFERS; i++) {
        uint64_t bytes = probe_binding[i] == SINEW_BIND_STATS ? sizeof(GpuStats) : size;
        if ((r = sinew_buffer_create(ctx, bytes, SINEW_MEMORY_DEVICE, "probe buffer", &p->buffers[i])) != SINEW_RESULT_OK)
            return r;
        body[probe_binding[i]] = p->buffers[i];
    }
    if ((r = sinew_bindings_create(ctx, body, NULL, 0, &p->bindings)) != SINEW_RESULT_OK)
        return r;
    VkCommandBufferAllocateInfo ci = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ci.commandPool = ctx->command_pool;
    ci.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ci.commandBufferCount = 1;
    VK_TRY(ctx, vk->vkAllocateCommandBuffers(ctx->device, &ci, &p->cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_TRY(ctx, vk->vkCreateFence(ctx->device, &fi, NULL, &p->fence));
    if (ctx->timestamp_bits) {
        VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 4;
        VK_TRY(ctx, vk->vkCreateQueryPool(ctx->device, &qi, NULL, &p->queries));
    }
    /* Buffers start defined: the copy reads POS. */
    for (size_t i = 0; i < PROBE_BUFFERS; i++) {
        static const uint8_t zero[16];
        if (p->buffers[i].mapped)
            memset(p->buffers[i].mapped, 0, p->buffers[i].size);
        else if ((r = sinew_buffer_upload(ctx, &p->buffers[i], 0, zero, 16)) != SINEW_RESULT_OK)
            return r;
    }
    if ((r = record(ctx, p, vec4s)) != SINEW_RESULT_OK || (r = sinew_submit_and_wait(ctx, p->cmd, p->fence)) != SINEW_RESULT_OK)
        return r; /* the first run warms caches and pipelines up */
    double t0 = now_s();
    if ((r = sinew_submit_and_wait(ctx, p->cmd, p->fence)) != SINEW_RESULT_OK)
        return r;
    double wall = now_s() - t0;

    double copy_s = wall / 2, chain_s = wall / 2;
    out->gpu_timed = 0;
    uint64_t t[4];
    if (p->queries && vk->vkGetQueryPoolResults(ctx->device, p->queries, 0, 4, sizeof t, t, sizeof t[0],
                                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS) {
        copy_s = sinew_timestamp_ms(ctx, t[0], t[1]) * 1e-3;
        chain_s = sinew_timestamp_ms(ctx, t[2], t[3]) * 1e-3;
        out->gpu_timed = 1;
    }
    out->copy_bytes = 2 * size;
    out->copy_bytes_per_s = copy_s > 0 ? (double)out->copy_bytes * PROBE_COPIES / copy_s : 0.0;
    out->dispatch_us = chain_s * 1e6 / PROBE_EMPTIES;
    return SINEW_RESULT_OK;
}

sinew_result sinew_context_probe(sinew_context *ctx, sinew_device_probe *out)
{
    SINEW_ASSERT(ctx && out);
    memset(out, 0, sizeof *out);
    probe p = {0};
    sinew_result r = run(ctx, &p, out);
    probe_free(ctx, &p);
    return r;
}
