/* sinew/vulkan.h: sinew inside an application that has its own Vulkan device.
 *
 * For engines: the application lends its instance, physical device, device and
 * a queue; sinew creates its pipelines, pools, buffers and fences on that
 * device (and destroys only those), calls Vulkan through its own function
 * table (loaded through the application's vkGetInstanceProcAddr, or the
 * loader's), and records a body's step into a command buffer the application
 * owns, between the barriers that order it against the application's work.
 * This header needs the Vulkan headers; sinew.h does not.
 */
#ifndef SINEW_VULKAN_H
#define SINEW_VULKAN_H

#include <vulkan/vulkan_core.h>

#include "sinew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the application lends. The device must be Vulkan 1.1 or later and have
 * been created with at least queue_index + 1 queues of queue_family, a family
 * with compute. */
typedef struct sinew_vulkan_device {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* the application's; NULL: the Vulkan loader's */
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    uint32_t queue_index;
} sinew_vulkan_device;

/* A context on the application's device. desc.device and desc.validation do
 * not apply (the application chose the device and its layers; validation
 * messages go to the application's messenger). sinew submits to the lent
 * queue in sinew_body_step and in uploads and readbacks, and waits for its own
 * fences only: the application must not use the queue from another thread
 * during those calls (Vulkan's external synchronization of queues).
 * sinew_context_destroy destroys what sinew created and nothing lent; the
 * application must have finished the work it recorded with sinew's bodies. */
SINEW_API sinew_result sinew_context_create_from_vulkan(const sinew_context_desc *desc,
                                                        const sinew_vulkan_device *vk, sinew_context **out);

/* The Vulkan objects a context computes on, its own or lent: for an
 * application that lets sinew create the device and then draws from sinew's
 * buffers on it (no copy). They stay sinew's: do not destroy them, and do not
 * use the queue from another thread while sinew submits to it. */
SINEW_API sinew_vulkan_device sinew_context_get_vulkan(const sinew_context *ctx);

/* Records one step of the body into the application's command buffer (a
 * primary command buffer in the recording state, from a pool of the
 * context's queue family), with the step parameters copied into it
 * (vkCmdUpdateBuffer): a command buffer recorded once may be submitted again
 * and steps with the same parameters. Around the step:
 *
 *   before  the application's earlier writes to sinew's buffers (shader or
 *           transfer writes) and its earlier reads of them (vertex input,
 *           shaders, transfers) finish before the step touches them;
 *   after   the step's writes are visible to vertex input (positions or
 *           the render mesh as a vertex buffer, its indices as an index
 *           buffer: sinew_body_get_vulkan_buffers), shaders, transfers and
 *           the host.
 *
 * On a queue family without graphics, the vertex-input and graphics-shader
 * stages are left out of both barriers. The health check and residual run as
 * in sinew_body_step; sinew_body_collect_stats reads their results once the
 * application knows the step has completed. Not recorded: the rollback copy
 * and timestamps. The body's own step (sinew_body_step) and recorded steps
 * must not be in flight at the same time. A body of SINEW_SOLVER_MGPBD
 * embeds its multigrid hierarchy in what it records: every
 * mgpbd_setup_interval calls (and after a checkpoint is saved or loaded)
 * this call first sets the hierarchy up afresh (a submit of its own, a wait
 * and a read-back), which must not overlap a recorded step in flight, and
 * command buffers recorded before such a call must not be submitted after
 * it. The command buffer is left with
 * sinew's compute pipeline, descriptor set 0 and push constants bound: bind
 * your own compute state again after it. Refuses non-finite parameters as
 * sinew_body_step does, recording nothing. */
SINEW_API sinew_result sinew_body_record_step(sinew_body *body, VkCommandBuffer cmd, const sinew_step_params *params);

/* After a recorded step has completed (the application waited for its
 * fence): takes the step's statistics (strain, health) into
 * sinew_body_get_stats and counts the step. Returns SINEW_RESULT_ERROR_UNSTABLE
 * with a message when its health check failed (nothing is rolled back). */
SINEW_API sinew_result sinew_body_collect_stats(sinew_body *body);

/* The device buffers a renderer may read, one vec4 per particle, 16 bytes
 * apart, created with vertex-buffer and storage-buffer usage: positions
 * (x, y, z, inverse mass) and unit vertex normals (x, y, z, 0; see
 * desc.normals); and the render mesh's vertices and indices where the body
 * has one. Valid until the body is destroyed; the application reads
 * them only after a step's "after" barrier and before the next step. */
typedef struct sinew_vulkan_buffers {
    VkBuffer positions;
    VkDeviceSize positions_size; /* bytes: 16 per particle */
    VkBuffer normals;            /* VK_NULL_HANDLE when the body computes none */
    VkDeviceSize normals_size;
    /* Where the body's particles start in both buffers (bytes): 0 for a
     * body alone; a body of a world's batch shares its batch's buffers, its
     * particles at these offsets, its render vertices and indices at the
     * offsets below (its indices numbered from its own first vertex, as
     * alone). */
    VkDeviceSize positions_offset;
    VkDeviceSize normals_offset;
    /* The render mesh (docs/render-mesh.md; desc.render_mesh): the artist's
     * vertices, rewritten at the end of every step, and their index buffer.
     * Both lie in one buffer, with vertex-, index- and storage-buffer usage;
     * bind them at these offsets. */
    VkBuffer render_vertices;            /* VK_NULL_HANDLE: no render mesh */
    VkDeviceSize render_vertices_offset; /* bytes; 32 bytes per vertex: position xyz, normal xyz, uv */
    uint32_t render_vertex_count;
    VkBuffer render_indices;             /* uint32 triangle list, VK_INDEX_TYPE_UINT32 */
    VkDeviceSize render_indices_offset;
    uint32_t render_index_count;         /* indices (3 per triangle) */
} sinew_vulkan_buffers;

SINEW_API sinew_vulkan_buffers sinew_body_get_vulkan_buffers(const sinew_body *body);

/* A world's step (sinew/world.h) into an application's command buffer:
 * builds the batches that changed (which may submit and wait, outside the
 * command buffer), then records every chain's step as
 * sinew_body_record_step does, each between its barriers; no submit, no
 * wait. After the command buffer has completed, sinew_world_collect_stats
 * takes every chain's statistics. */
SINEW_API sinew_result sinew_world_record_step(sinew_world *world, VkCommandBuffer cmd, const sinew_step_params *params);
SINEW_API sinew_result sinew_world_collect_stats(sinew_world *world);

#ifdef __cplusplus
}
#endif
#endif
