/* Workspaces: what a solver that submits its own work needs to record and
 * wait for it (a command buffer and a fence) and the descriptor sets its
 * kernels see, either its own or a body's lent to it. One create and one
 * destroy, so that every such solver frees the same things the same way. */
#include "gpu.h"

#include <stdio.h>
#include <string.h>

sinew_result sinew_workspace_create(sinew_context *ctx, const char *what, sinew_workspace *out)
{
    memset(out, 0, sizeof *out);
    const struct VolkDeviceTable *vk = &ctx->vk;
    char call[128];
    VkCommandBufferAllocateInfo ci = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ci.commandPool = ctx->command_pool;
    ci.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ci.commandBufferCount = 1;
    VkResult vr = vk->vkAllocateCommandBuffers(ctx->device, &ci, &out->cmd);
    if (vr != VK_SUCCESS) {
        out->cmd = VK_NULL_HANDLE;
        snprintf(call, sizeof call, "vkAllocateCommandBuffers (%s)", what);
        return sinew_vk_fail(ctx, vr, call, __FILE__, __LINE__);
    }
    /* Unsignalled: sinew_submit_and_wait resets it before each submit anyway. */
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vr = vk->vkCreateFence(ctx->device, &fi, NULL, &out->fence);
    if (vr != VK_SUCCESS) {
        out->fence = VK_NULL_HANDLE;
        snprintf(call, sizeof call, "vkCreateFence (%s)", what);
        return sinew_vk_fail(ctx, vr, call, __FILE__, __LINE__);
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_workspace_bind(sinew_context *ctx, sinew_workspace *ws, const sinew_buffer *body,
                                  const sinew_buffer *solver, uint32_t solver_count)
{
    SINEW_ASSERT(!ws->borrowed && "a workspace binds its own sets or a body's, not both");
    /* The old sets go first: a solver binds again after replacing buffers,
     * and every submission that used them has been waited for. */
    sinew_bindings_destroy(ctx, &ws->own);
    return sinew_bindings_create(ctx, body, solver, solver_count, &ws->own);
}

void sinew_workspace_borrow(sinew_workspace *ws, const sinew_bindings *bindings)
{
    SINEW_ASSERT(!ws->own.pool && "a workspace binds its own sets or a body's, not both");
    ws->borrowed = bindings;
}

void sinew_workspace_destroy(sinew_context *ctx, sinew_workspace *ws)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    if (ws->fence)
        vk->vkDestroyFence(ctx->device, ws->fence, NULL);
    if (ws->cmd)
        vk->vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &ws->cmd);
    sinew_bindings_destroy(ctx, &ws->own);
    memset(ws, 0, sizeof *ws);
}

void sinew_workspace_begin(sinew_recorder *r, sinew_context *ctx, const sinew_workspace *ws)
{
    SINEW_ASSERT((ws->borrowed || ws->own.pool) && "the workspace has no descriptor sets to bind");
    sinew_record_begin(r, ctx, ws->cmd, ws->borrowed ? ws->borrowed : &ws->own);
}

sinew_result sinew_workspace_submit(sinew_recorder *r, const sinew_workspace *ws)
{
    return sinew_record_submit(r, ws->fence);
}
