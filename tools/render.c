/* sinew-sim's offscreen renderer (render.h). One render pass into a colour
 * and a depth image; one pipeline for everything: the body from sinew's
 * position and normal buffers with the renderer's index buffer; the ground,
 * the colliders (spheres, capsules, boxes, meshes) from the renderer's own
 * meshes scaled, turned and placed by push constants.
 * The picture is copied to a host buffer and written by libpng. Vulkan is
 * called through a device table of the renderer's own. */
#include "render.h"

#include "core/file.h"

#define PI 3.14159265358979323846

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <volk.h>

#include <sinew/vulkan.h>

static const uint32_t mesh_vert[] = {
#include "mesh.vert.inc"
};
static const uint32_t mesh_frag[] = {
#include "mesh.frag.inc"
};

typedef struct push {
    float view_projection[16]; /* column-major */
    float offset[4];
    float scale[4];
    float colour[4]; /* w: 0 cloth (two-sided), 1 ground checkerboard, 2 solid */
    float rotation[4]; /* unit quaternion x y z w: turns the scaled mesh before the offset */
} push;
_Static_assert(sizeof(push) == 128, "push constants <= 128 bytes");

typedef struct buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *mapped;
} buffer;

/* A mesh of the renderer's: vec4 positions and normals, 32-bit indices. */
typedef struct mesh {
    buffer positions, normals, indices;
    uint32_t index_count;
} mesh;

struct render {
    struct VolkDeviceTable vk;
    VkDevice device;
    VkQueue queue;
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t width, height;
    VkImage colour, depth;
    VkDeviceMemory colour_memory, depth_memory;
    VkImageView colour_view, depth_view;
    VkRenderPass pass;
    VkFramebuffer framebuffer;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkPipeline textured;                /* the body's render mesh (docs/render-mesh.md): 32-byte vertices */
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    buffer pixels;
    sinew_vulkan_buffers body_buffers;
    buffer body_indices;
    uint32_t body_index_count;
    mesh ground, sphere, box, cylinder;
    mesh collider;                      /* the mesh collider's triangles, when given */
    mesh shape_meshes[RENDER_MAX_MESHES]; /* the list's mesh colliders (render_add_mesh) */
    uint32_t shape_mesh_count;
    struct { /* more bodies (render_add_body): their buffers and triangles */
        sinew_vulkan_buffers buffers;
        buffer indices;
        uint32_t index_count;
    } others[RENDER_MAX_BODIES];
    uint32_t other_count;
};

#define TRY(call)                                                                      \
    do {                                                                               \
        VkResult try_result_ = (call);                                                 \
        if (try_result_ != VK_SUCCESS) {                                               \
            fprintf(stderr, "sinew-sim: render: %s failed (%d)\n", #call, try_result_); \
            return 0;                                                                  \
        }                                                                              \
    } while (0)

static int memory_type(const render *r, uint32_t bits, VkMemoryPropertyFlags want, uint32_t *out)
{
    for (uint32_t i = 0; i < r->memory.memoryTypeCount; i++)
        if ((bits >> i & 1u) && (r->memory.memoryTypes[i].propertyFlags & want) == want) {
            *out = i;
            return 1;
        }
    fprintf(stderr, "sinew-sim: render: no memory type with flags %#x\n", (unsigned)want);
    return 0;
}

static int buffer_create(render *r, VkDeviceSize size, VkBufferUsageFlags usage, const void *data, buffer *b)
{
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size ? size : 16;
    bi.usage = usage;
    TRY(r->vk.vkCreateBuffer(r->device, &bi, NULL, &b->buffer));
    VkMemoryRequirements req;
    r->vk.vkGetBufferMemoryRequirements(r->device, b->buffer, &req);
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    if (!memory_type(r, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     &ai.memoryTypeIndex))
        return 0;
    TRY(r->vk.vkAllocateMemory(r->device, &ai, NULL, &b->memory));
    TRY(r->vk.vkBindBufferMemory(r->device, b->buffer, b->memory, 0));
    TRY(r->vk.vkMapMemory(r->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped));
    if (data)
        memcpy(b->mapped, data, size);
    return 1;
}

static void buffer_destroy(render *r, buffer *b)
{
    if (b->buffer)
        r->vk.vkDestroyBuffer(r->device, b->buffer, NULL);
    if (b->memory)
        r->vk.vkFreeMemory(r->device, b->memory, NULL);
}

static int mesh_create(render *r, const float *pos, const float *nrm, uint32_t vertices, const uint32_t *idx,
                       uint32_t indices, mesh *m)
{
    m->index_count = indices;
    return buffer_create(r, 16ull * vertices, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, pos, &m->positions) &&
           buffer_create(r, 16ull * vertices, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, nrm, &m->normals) &&
           buffer_create(r, 4ull * indices, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, idx, &m->indices);
}

static void mesh_destroy(render *r, mesh *m)
{
    buffer_destroy(r, &m->positions);
    buffer_destroy(r, &m->normals);
    buffer_destroy(r, &m->indices);
}

/* A unit square in y = 0 (the ground, scaled), a unit sphere, a cube [-1, 1]^3. */
static int make_meshes(render *r)
{
    float gp[16] = {-1, 0, -1, 1, 1, 0, -1, 1, 1, 0, 1, 1, -1, 0, 1, 1};
    float gn[16] = {0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0};
    uint32_t gi[6] = {0, 2, 1, 0, 3, 2};
    if (!mesh_create(r, gp, gn, 4, gi, 6, &r->ground))
        return 0;

    enum { SLICES = 32, STACKS = 16 };
    float sp[(SLICES + 1) * (STACKS + 1) * 4];
    uint32_t si[SLICES * STACKS * 6], k = 0;
    for (int j = 0; j <= STACKS; j++)
        for (int i = 0; i <= SLICES; i++) {
            double th = PI * j / STACKS, ph = 2 * PI * i / SLICES;
            float *v = &sp[4 * (j * (SLICES + 1) + i)];
            v[0] = (float)(sin(th) * cos(ph));
            v[1] = (float)cos(th);
            v[2] = (float)(sin(th) * sin(ph));
            v[3] = 0.0f;
        }
    for (int j = 0; j < STACKS; j++)
        for (int i = 0; i < SLICES; i++) {
            uint32_t a = j * (SLICES + 1) + i, b = a + SLICES + 1;
            uint32_t q[6] = {a, b, a + 1, a + 1, b, b + 1};
            memcpy(&si[k], q, sizeof q);
            k += 6;
        }
    if (!mesh_create(r, sp, sp, (SLICES + 1) * (STACKS + 1), si, k, &r->sphere))
        return 0;

    float bp[24 * 4], bn[24 * 4];
    uint32_t bi[36];
    for (int f = 0; f < 6; f++) {
        int axis = f / 2;
        float sign = f % 2 ? -1.0f : 1.0f;
        int u = (axis + 1) % 3, w = (axis + 2) % 3;
        const float corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int c = 0; c < 4; c++) {
            float *v = &bp[4 * (4 * f + c)], *n = &bn[4 * (4 * f + c)];
            memset(v, 0, 16);
            memset(n, 0, 16);
            v[axis] = sign;
            v[u] = corner[c][0];
            v[w] = corner[c][1];
            n[axis] = sign;
        }
        uint32_t q[6] = {0, 1, 2, 0, 2, 3};
        for (int c = 0; c < 6; c++)
            bi[6 * f + c] = 4 * f + q[c];
    }
    if (!mesh_create(r, bp, bn, 24, bi, 36, &r->box))
        return 0;

    /* An open cylinder of radius 1 from y = -1 to 1 (a capsule's side). */
    float cp[(SLICES + 1) * 2 * 4], cn[(SLICES + 1) * 2 * 4];
    uint32_t ci[SLICES * 6];
    for (int i = 0; i <= SLICES; i++)
        for (int e = 0; e < 2; e++) {
            double ph = 2 * PI * i / SLICES;
            float *v = &cp[4 * (2 * i + e)], *n = &cn[4 * (2 * i + e)];
            v[0] = n[0] = (float)cos(ph);
            v[2] = n[2] = (float)sin(ph);
            v[1] = e ? 1.0f : -1.0f;
            n[1] = v[3] = n[3] = 0.0f;
        }
    for (int i = 0; i < SLICES; i++) {
        uint32_t a = 2 * i, q[6] = {a, a + 1, a + 2, a + 2, a + 1, a + 3};
        memcpy(&ci[6 * i], q, sizeof q);
    }
    return mesh_create(r, cp, cn, 2 * (SLICES + 1), ci, 6 * SLICES, &r->cylinder);
}

static int image_create(render *r, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, VkImage *image,
                        VkDeviceMemory *memory, VkImageView *view)
{
    VkImageCreateInfo ii = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = format;
    ii.extent = (VkExtent3D){r->width, r->height, 1};
    ii.mipLevels = ii.arrayLayers = 1;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.usage = usage;
    TRY(r->vk.vkCreateImage(r->device, &ii, NULL, image));
    VkMemoryRequirements req;
    r->vk.vkGetImageMemoryRequirements(r->device, *image, &req);
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    if (!memory_type(r, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &ai.memoryTypeIndex))
        return 0;
    TRY(r->vk.vkAllocateMemory(r->device, &ai, NULL, memory));
    TRY(r->vk.vkBindImageMemory(r->device, *image, *memory, 0));
    VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = *image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = format;
    vi.subresourceRange = (VkImageSubresourceRange){aspect, 0, 1, 0, 1};
    TRY(r->vk.vkCreateImageView(r->device, &vi, NULL, view));
    return 1;
}

static int make_pass(render *r)
{
    VkAttachmentDescription att[2] = {{0}, {0}};
    att[0].format = VK_FORMAT_R8G8B8A8_UNORM;
    att[0].samples = VK_SAMPLE_COUNT_1_BIT;
    att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    att[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    att[1] = att[0];
    att[1].format = VK_FORMAT_D32_SFLOAT;
    att[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentReference colour = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference depth = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub = {0};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &colour;
    sub.pDepthStencilAttachment = &depth;
    /* Each frame: the previous frame's copy-out and depth use end before this
     * one clears; the picture is copied out after the pass. */
    VkSubpassDependency deps[2] = {
        {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
         VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
         VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
             VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
         0},
        {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, 0},
    };
    VkRenderPassCreateInfo ri = {VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    ri.attachmentCount = 2;
    ri.pAttachments = att;
    ri.subpassCount = 1;
    ri.pSubpasses = &sub;
    ri.dependencyCount = 2;
    ri.pDependencies = deps;
    TRY(r->vk.vkCreateRenderPass(r->device, &ri, NULL, &r->pass));
    VkImageView views[2] = {r->colour_view, r->depth_view};
    VkFramebufferCreateInfo fi = {VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fi.renderPass = r->pass;
    fi.attachmentCount = 2;
    fi.pAttachments = views;
    fi.width = r->width;
    fi.height = r->height;
    fi.layers = 1;
    TRY(r->vk.vkCreateFramebuffer(r->device, &fi, NULL, &r->framebuffer));
    return 1;
}

static int make_pipeline(render *r)
{
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(push)};
    VkPipelineLayoutCreateInfo li = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    li.pushConstantRangeCount = 1;
    li.pPushConstantRanges = &range;
    TRY(r->vk.vkCreatePipelineLayout(r->device, &li, NULL, &r->layout));
    VkShaderModule modules[2];
    const uint32_t *code[2] = {mesh_vert, mesh_frag};
    const size_t sizes[2] = {sizeof mesh_vert, sizeof mesh_frag};
    for (int i = 0; i < 2; i++) {
        VkShaderModuleCreateInfo si = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        si.codeSize = sizes[i];
        si.pCode = code[i];
        TRY(r->vk.vkCreateShaderModule(r->device, &si, NULL, &modules[i]));
    }
    VkPipelineShaderStageCreateInfo stages[2] = {
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT, modules[0], "main",
         NULL},
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_FRAGMENT_BIT, modules[1], "main",
         NULL},
    };
    /* vec4 positions and normals in two buffers; the uv (location 2) only
     * the textured mode reads, fed from the normals there. */
    VkVertexInputBindingDescription bindings[2] = {{0, 16, VK_VERTEX_INPUT_RATE_VERTEX},
                                                   {1, 16, VK_VERTEX_INPUT_RATE_VERTEX}};
    VkVertexInputAttributeDescription attributes[3] = {{0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0},
                                                       {1, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 0},
                                                       {2, 1, VK_FORMAT_R32G32_SFLOAT, 0}};
    VkPipelineVertexInputStateCreateInfo input = {VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    input.vertexBindingDescriptionCount = 2;
    input.pVertexBindingDescriptions = bindings;
    input.vertexAttributeDescriptionCount = 3;
    input.pVertexAttributeDescriptions = attributes;
    /* The render mesh: position xyz, normal xyz, uv in one 32-byte vertex. */
    VkVertexInputBindingDescription interleaved = {0, 32, VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription fields[3] = {{0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                   {1, 0, VK_FORMAT_R32G32B32_SFLOAT, 12},
                                                   {2, 0, VK_FORMAT_R32G32_SFLOAT, 24}};
    VkPipelineVertexInputStateCreateInfo input_textured = {VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    input_textured.vertexBindingDescriptionCount = 1;
    input_textured.pVertexBindingDescriptions = &interleaved;
    input_textured.vertexAttributeDescriptionCount = 3;
    input_textured.pVertexAttributeDescriptions = fields;
    VkPipelineInputAssemblyStateCreateInfo assembly = {VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkViewport viewport = {0, 0, (float)r->width, (float)r->height, 0, 1};
    VkRect2D scissor = {{0, 0}, {r->width, r->height}};
    VkPipelineViewportStateCreateInfo vps = {VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vps.viewportCount = 1;
    vps.pViewports = &viewport;
    vps.scissorCount = 1;
    vps.pScissors = &scissor;
    VkPipelineRasterizationStateCreateInfo raster = {VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE; /* cloth has two sides */
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms = {VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo ds = {VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    ds.depthTestEnable = VK_TRUE;
    ds.depthWriteEnable = VK_TRUE;
    ds.depthCompareOp = VK_COMPARE_OP_LESS;
    VkPipelineColorBlendAttachmentState blend = {0};
    blend.colorWriteMask = 0xf;
    VkPipelineColorBlendStateCreateInfo cb = {VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cb.attachmentCount = 1;
    cb.pAttachments = &blend;
    VkGraphicsPipelineCreateInfo gi = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    gi.stageCount = 2;
    gi.pStages = stages;
    gi.pVertexInputState = &input;
    gi.pInputAssemblyState = &assembly;
    gi.pViewportState = &vps;
    gi.pRasterizationState = &raster;
    gi.pMultisampleState = &ms;
    gi.pDepthStencilState = &ds;
    gi.pColorBlendState = &cb;
    gi.layout = r->layout;
    gi.renderPass = r->pass;
    VkResult vr = r->vk.vkCreateGraphicsPipelines(r->device, VK_NULL_HANDLE, 1, &gi, NULL, &r->pipeline);
    if (vr == VK_SUCCESS) {
        gi.pVertexInputState = &input_textured;
        vr = r->vk.vkCreateGraphicsPipelines(r->device, VK_NULL_HANDLE, 1, &gi, NULL, &r->textured);
    }
    r->vk.vkDestroyShaderModule(r->device, modules[0], NULL);
    r->vk.vkDestroyShaderModule(r->device, modules[1], NULL);
    TRY(vr);
    return 1;
}

static int setup(render *r, sinew_context *ctx, const uint32_t *triangles, uint32_t triangle_count)
{
    sinew_vulkan_device v = sinew_context_get_vulkan(ctx);
    PFN_vkGetPhysicalDeviceMemoryProperties memory_properties =
        (PFN_vkGetPhysicalDeviceMemoryProperties)v.get_instance_proc_addr(v.instance,
                                                                            "vkGetPhysicalDeviceMemoryProperties");
    PFN_vkGetPhysicalDeviceQueueFamilyProperties families =
        (PFN_vkGetPhysicalDeviceQueueFamilyProperties)v.get_instance_proc_addr(
            v.instance, "vkGetPhysicalDeviceQueueFamilyProperties");
    PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)v.get_instance_proc_addr(v.instance, "vkGetDeviceProcAddr");
    if (!memory_properties || !families || !gdpa) {
        fprintf(stderr, "sinew-sim: render: the Vulkan instance functions are missing\n");
        return 0;
    }
    VkQueueFamilyProperties q[32];
    uint32_t qn = 32;
    families(v.physical_device, &qn, q);
    if (v.queue_family >= qn || !(q[v.queue_family].queueFlags & VK_QUEUE_GRAPHICS_BIT)) {
        fprintf(stderr, "sinew-sim: render: the device's compute queue cannot draw: no pictures\n");
        return 0;
    }
    memory_properties(v.physical_device, &r->memory);
    /* A device table of the renderer's own, through this instance's vkGetDeviceProcAddr. */
    PFN_vkGetDeviceProcAddr saved = vkGetDeviceProcAddr;
    vkGetDeviceProcAddr = gdpa;
    volkLoadDeviceTable(&r->vk, v.device);
    vkGetDeviceProcAddr = saved;
    r->device = v.device;
    r->vk.vkGetDeviceQueue(v.device, v.queue_family, v.queue_index, &r->queue);

    VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = v.queue_family;
    TRY(r->vk.vkCreateCommandPool(r->device, &pi, NULL, &r->pool));
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = r->pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    TRY(r->vk.vkAllocateCommandBuffers(r->device, &ai, &r->cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    TRY(r->vk.vkCreateFence(r->device, &fi, NULL, &r->fence));

    return image_create(r, VK_FORMAT_R8G8B8A8_UNORM,
                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                        VK_IMAGE_ASPECT_COLOR_BIT, &r->colour, &r->colour_memory, &r->colour_view) &&
           image_create(r, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                        &r->depth, &r->depth_memory, &r->depth_view) &&
           make_pass(r) && make_pipeline(r) && make_meshes(r) &&
           buffer_create(r, 4ull * r->width * r->height, VK_BUFFER_USAGE_TRANSFER_DST_BIT, NULL, &r->pixels) &&
           buffer_create(r, 12ull * triangle_count, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, triangles, &r->body_indices);
}

render *render_create(sinew_context *ctx, sinew_body *body, const uint32_t *triangles, uint32_t triangle_count,
                      uint32_t width, uint32_t height)
{
    render *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->width = width;
    r->height = height;
    r->body_buffers = sinew_body_get_vulkan_buffers(body);
    r->body_index_count = 3 * triangle_count;
    if (!r->body_buffers.normals) {
        fprintf(stderr, "sinew-sim: render: the body computes no normals (it has no triangles): no pictures\n");
        free(r);
        return NULL;
    }
    if (!setup(r, ctx, triangles, triangle_count)) {
        render_destroy(r);
        return NULL;
    }
    return r;
}

int render_add_body(render *r, sinew_body *body, const uint32_t *triangles, uint32_t triangle_count)
{
    if (r->other_count == RENDER_MAX_BODIES) {
        fprintf(stderr, "sinew-sim: render: at most %d bodies besides the first\n", RENDER_MAX_BODIES);
        return 0;
    }
    const sinew_vulkan_buffers b = sinew_body_get_vulkan_buffers(body);
    if (!b.normals) {
        fprintf(stderr, "sinew-sim: render: a body computes no normals (it has no triangles): not drawn\n");
        return 1;
    }
    r->others[r->other_count].buffers = b;
    r->others[r->other_count].index_count = 3 * triangle_count;
    if (!buffer_create(r, 12ull * triangle_count, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, triangles,
                       &r->others[r->other_count].indices))
        return 0;
    r->other_count++;
    return 1;
}

int render_set_triangles(render *r, const uint32_t *triangles, uint32_t triangle_count)
{
    TRY(r->vk.vkQueueWaitIdle(r->queue));
    buffer_destroy(r, &r->body_indices);
    memset(&r->body_indices, 0, sizeof r->body_indices);
    r->body_index_count = 3 * triangle_count;
    return buffer_create(r, 12ull * triangle_count, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, triangles, &r->body_indices);
}

/* A mesh of the renderer's from triangles (3 floats per vertex), with
 * area-weighted vertex normals. */
static int mesh_from_triangles(render *r, const float *xyz, uint32_t vertex_count, const uint32_t *triangles,
                               uint32_t triangle_count, mesh *out)
{
    float *pos = calloc(4ull * vertex_count + 4, sizeof *pos), *nrm = calloc(4ull * vertex_count + 4, sizeof *nrm);
    int ok = pos && nrm;
    for (uint32_t v = 0; ok && v < vertex_count; v++)
        memcpy(&pos[4 * v], &xyz[3 * v], 3 * sizeof *pos);
    for (uint32_t t = 0; ok && t < triangle_count; t++) {
        const uint32_t *f = &triangles[3 * t];
        const float *a = &xyz[3 * f[0]], *b = &xyz[3 * f[1]], *c = &xyz[3 * f[2]];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++)
            for (int q = 0; q < 3; q++)
                nrm[4 * f[k] + q] += n[q];
    }
    for (uint32_t v = 0; ok && v < vertex_count; v++) {
        float *n = &nrm[4 * v], len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int q = 0; q < 3 && len > 0.0f; q++)
            n[q] /= len;
    }
    if (ok)
        ok = mesh_create(r, pos, nrm, vertex_count, triangles, 3 * triangle_count, out);
    else
        fprintf(stderr, "sinew-sim: render: out of host memory\n");
    free(pos);
    free(nrm);
    return ok;
}

int render_set_collider(render *r, const float *xyz, uint32_t vertex_count, const uint32_t *triangles,
                        uint32_t triangle_count)
{
    mesh m;
    memset(&m, 0, sizeof m);
    if (!mesh_from_triangles(r, xyz, vertex_count, triangles, triangle_count, &m)) {
        mesh_destroy(r, &m);
        return 0;
    }
    mesh_destroy(r, &r->collider);
    r->collider = m;
    return 1;
}

int render_add_mesh(render *r, const float *xyz, uint32_t vertex_count, const uint32_t *triangles,
                    uint32_t triangle_count)
{
    if (r->shape_mesh_count == RENDER_MAX_MESHES) {
        fprintf(stderr, "sinew-sim: render: at most %d mesh colliders\n", RENDER_MAX_MESHES);
        return 0;
    }
    mesh *m = &r->shape_meshes[r->shape_mesh_count];
    memset(m, 0, sizeof *m);
    if (!mesh_from_triangles(r, xyz, vertex_count, triangles, triangle_count, m)) {
        mesh_destroy(r, m);
        return 0;
    }
    r->shape_mesh_count++;
    return 1;
}

void render_destroy(render *r)
{
    if (!r)
        return;
    if (r->device) {
        r->vk.vkQueueWaitIdle(r->queue);
        mesh_destroy(r, &r->ground);
        mesh_destroy(r, &r->sphere);
        mesh_destroy(r, &r->box);
        mesh_destroy(r, &r->cylinder);
        mesh_destroy(r, &r->collider);
        for (uint32_t k = 0; k < r->shape_mesh_count; k++)
            mesh_destroy(r, &r->shape_meshes[k]);
        for (uint32_t k = 0; k < r->other_count; k++)
            buffer_destroy(r, &r->others[k].indices);
        buffer_destroy(r, &r->pixels);
        buffer_destroy(r, &r->body_indices);
        if (r->pipeline)
            r->vk.vkDestroyPipeline(r->device, r->pipeline, NULL);
        if (r->textured)
            r->vk.vkDestroyPipeline(r->device, r->textured, NULL);
        if (r->layout)
            r->vk.vkDestroyPipelineLayout(r->device, r->layout, NULL);
        if (r->framebuffer)
            r->vk.vkDestroyFramebuffer(r->device, r->framebuffer, NULL);
        if (r->pass)
            r->vk.vkDestroyRenderPass(r->device, r->pass, NULL);
        VkImageView views[2] = {r->colour_view, r->depth_view};
        VkImage images[2] = {r->colour, r->depth};
        VkDeviceMemory memories[2] = {r->colour_memory, r->depth_memory};
        for (int i = 0; i < 2; i++) {
            if (views[i])
                r->vk.vkDestroyImageView(r->device, views[i], NULL);
            if (images[i])
                r->vk.vkDestroyImage(r->device, images[i], NULL);
            if (memories[i])
                r->vk.vkFreeMemory(r->device, memories[i], NULL);
        }
        if (r->fence)
            r->vk.vkDestroyFence(r->device, r->fence, NULL);
        if (r->pool)
            r->vk.vkDestroyCommandPool(r->device, r->pool, NULL);
    }
    free(r);
}

/* ------------------------------------------------------------ camera */

static void normalise(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
        v[k] /= l > 0 ? l : 1;
}

static void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Vulkan clip space: y down, depth 0..1. Column-major. */
void render_view_projection(const render_camera *c, float aspect, float m[16])
{
    float f[3] = {c->target[0] - c->eye[0], c->target[1] - c->eye[1], c->target[2] - c->eye[2]};
    normalise(f);
    const float up[3] = {0, 1, 0};
    float s[3], u[3];
    cross3(f, up, s);
    normalise(s);
    cross3(s, f, u);
    float view[16] = {s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0, 0, 0, 0, 1};
    view[12] = -(s[0] * c->eye[0] + s[1] * c->eye[1] + s[2] * c->eye[2]);
    view[13] = -(u[0] * c->eye[0] + u[1] * c->eye[1] + u[2] * c->eye[2]);
    view[14] = f[0] * c->eye[0] + f[1] * c->eye[1] + f[2] * c->eye[2];
    const float n = 0.05f, fa = 100.0f, t = 1.0f / tanf(c->fov_deg * (float)PI / 360.0f);
    float proj[16] = {0};
    proj[0] = t / aspect;
    proj[5] = -t;
    proj[10] = fa / (n - fa);
    proj[11] = -1.0f;
    proj[14] = n * fa / (n - fa);
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            float sum = 0;
            for (int k = 0; k < 4; k++)
                sum += proj[k * 4 + row] * view[col * 4 + k];
            m[col * 4 + row] = sum;
        }
}

render_camera render_camera_framing(const float lo[3], const float hi[3])
{
    float size = 0;
    for (int k = 0; k < 3; k++)
        size = fmaxf(size, hi[k] - lo[k]);
    size = fmaxf(size, 0.5f);
    render_camera c;
    c.target[0] = 0.5f * (lo[0] + hi[0]);
    c.target[1] = 0.5f * lo[1] + 0.5f * hi[1] - 0.25f * size;
    c.target[2] = 0.5f * (lo[2] + hi[2]);
    c.eye[0] = c.target[0] + 1.1f * size;
    c.eye[1] = c.target[1] + 0.9f * size;
    c.eye[2] = c.target[2] + 1.6f * size;
    c.fov_deg = 40.0f;
    return c;
}

/* ------------------------------------------------------------ a frame */

/* Triangles over positions and normals, both from `offsets` (bytes: a body
 * of a world's batch starts within its batch's buffers). */
static void draw_at(render *r, const push *pc, VkBuffer positions, VkBuffer normals, const VkDeviceSize offsets[2],
                    VkBuffer indices, uint32_t count)
{
    VkBuffer vb[2] = {positions, normals};
    r->vk.vkCmdPushConstants(r->cmd, r->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                             sizeof *pc, pc);
    r->vk.vkCmdBindVertexBuffers(r->cmd, 0, 2, vb, offsets);
    r->vk.vkCmdBindIndexBuffer(r->cmd, indices, 0, VK_INDEX_TYPE_UINT32);
    r->vk.vkCmdDrawIndexed(r->cmd, count, 1, 0, 0, 0);
}

static void draw(render *r, const push *pc, VkBuffer positions, VkBuffer normals, VkBuffer indices, uint32_t count)
{
    const VkDeviceSize zero[2] = {0, 0};
    draw_at(r, pc, positions, normals, zero, indices, count);
}

static void place(push *pc, float x, float y, float z, float sx, float sy, float sz, float red, float green,
                  float blue, float mode)
{
    const float o[4] = {x, y, z, 0}, s[4] = {sx, sy, sz, 0}, c[4] = {red, green, blue, mode}, q[4] = {0, 0, 0, 1};
    memcpy(pc->offset, o, sizeof o);
    memcpy(pc->scale, s, sizeof s);
    memcpy(pc->colour, c, sizeof c);
    memcpy(pc->rotation, q, sizeof q);
}

/* The quaternion q normalised into the push constants (a zero one: unturned). */
static void turn(push *pc, const float q[4])
{
    const float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++)
        pc->rotation[k] = len > 0.0f ? q[k] / len : k == 3;
}

static void draw_mesh(render *r, const push *pc, const mesh *m)
{
    draw(r, pc, m->positions.buffer, m->normals.buffer, m->indices.buffer, m->index_count);
}

/* A capsule of radius rad about the segment of half length h along the local
 * y axis of the pose (c, q): a cylinder and a sphere at each end. */
static void draw_capsule(render *r, push *pc, const float c[3], const float q[4], float h, float rad)
{
    const float colour[3] = {0.7f, 0.5f, 0.75f};
    place(pc, c[0], c[1], c[2], rad, h, rad, colour[0], colour[1], colour[2], 2);
    turn(pc, q);
    draw_mesh(r, pc, &r->cylinder);
    for (int e = -1; e <= 1; e += 2) {
        float axis[3] = {2.0f * (q[0] * q[1] - q[3] * q[2]), 1.0f - 2.0f * (q[0] * q[0] + q[2] * q[2]),
                         2.0f * (q[1] * q[2] + q[3] * q[0])}; /* q's local y in the world (q unit) */
        place(pc, c[0] + e * h * axis[0], c[1] + e * h * axis[1], c[2] + e * h * axis[2], rad, rad, rad, colour[0],
              colour[1], colour[2], 2);
        draw_mesh(r, pc, &r->sphere);
    }
}

/* The collider list of the step (p->shapes), each where its pose says. */
static void draw_shapes(render *r, push *pc, const sinew_step_params *p)
{
    for (uint32_t k = 0; p->shapes && k < p->shape_count; k++) {
        const sinew_shape *sh = &p->shapes[k];
        const float *c = sh->position, *he = sh->half_extents;
        float q[4];
        memcpy(q, sh->rotation, sizeof q);
        const float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int i = 0; i < 4 && len > 0.0f; i++)
            q[i] /= len;
        if (sh->kind == SINEW_SHAPE_SPHERE) {
            place(pc, c[0], c[1], c[2], sh->radius, sh->radius, sh->radius, 0.85f, 0.45f, 0.25f, 2);
            turn(pc, q);
            draw_mesh(r, pc, &r->sphere);
        } else if (sh->kind == SINEW_SHAPE_BOX) {
            place(pc, c[0], c[1], c[2], he[0], he[1], he[2], 0.35f, 0.55f, 0.8f, 2);
            turn(pc, q);
            draw_mesh(r, pc, &r->box);
        } else if (sh->kind == SINEW_SHAPE_CAPSULE) {
            draw_capsule(r, pc, c, q, he[1], sh->radius);
        } else if (sh->kind == SINEW_SHAPE_MESH && sh->mesh < r->shape_mesh_count) {
            place(pc, c[0], c[1], c[2], 1, 1, 1, 0.55f, 0.7f, 0.45f, 2);
            turn(pc, q);
            draw_mesh(r, pc, &r->shape_meshes[sh->mesh]);
        }
    }
}

/* Begins r->cmd and records the scene into the colour image, which the pass
 * leaves in TRANSFER_SRC_OPTIMAL. */
static int record_scene(render *r, const sinew_step_params *p, const render_camera *camera)
{
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    TRY(r->vk.vkResetCommandBuffer(r->cmd, 0));
    TRY(r->vk.vkBeginCommandBuffer(r->cmd, &bi));
    /* sinew's last step wrote the positions and normals in compute shaders
     * (an earlier submission on this queue): visible to vertex input. */
    VkMemoryBarrier step = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT};
    r->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0, 1,
                               &step, 0, NULL, 0, NULL);
    VkClearValue clear[2];
    clear[0].color = (VkClearColorValue){{0.80f, 0.86f, 0.93f, 1.0f}};
    clear[1].depthStencil = (VkClearDepthStencilValue){1.0f, 0};
    VkRenderPassBeginInfo rb = {VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rb.renderPass = r->pass;
    rb.framebuffer = r->framebuffer;
    rb.renderArea.extent = (VkExtent2D){r->width, r->height};
    rb.clearValueCount = 2;
    rb.pClearValues = clear;
    r->vk.vkCmdBeginRenderPass(r->cmd, &rb, VK_SUBPASS_CONTENTS_INLINE);
    r->vk.vkCmdBindPipeline(r->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline);
    push pc;
    render_view_projection(camera, (float)r->width / (float)r->height, pc.view_projection);
    if (p->ground) { /* the plane {x : n.x = h}: the unit square turned from y to n, moved to h n */
        const float *gn = p->ground_normal;
        const float len = sqrtf(gn[0] * gn[0] + gn[1] * gn[1] + gn[2] * gn[2]);
        const float n[3] = {len > 0.0f ? gn[0] / len : 0.0f, len > 0.0f ? gn[1] / len : 1.0f,
                            len > 0.0f ? gn[2] / len : 0.0f};
        const float h = p->ground_height;
        /* the turn from y to n: (y x n, 1 + y.n) normalised; about x when n is -y */
        const float q[4] = {n[2], 0.0f, -n[0], 1.0f + n[1]}, flip[4] = {1, 0, 0, 0};
        place(&pc, h * n[0], h * n[1], h * n[2], 30, 1, 30, 1, 1, 1, 1);
        turn(&pc, 1.0f + n[1] > 1e-6f ? q : flip);
        draw_mesh(r, &pc, &r->ground);
    }
    if (p->sphere) {
        float rad = p->sphere_radius;
        place(&pc, p->sphere_center[0], p->sphere_center[1], p->sphere_center[2], rad, rad, rad, 0.85f, 0.45f, 0.25f,
              2);
        draw_mesh(r, &pc, &r->sphere);
    }
    if (p->capsule) { /* from a to b: its pose as the list's capsules have it */
        const float *a = p->capsule_a, *b = p->capsule_b;
        const float c[3] = {0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]), 0.5f * (a[2] + b[2])};
        float d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        float q[4] = {0, 0, 0, 1};
        if (len > 0.0f) {
            for (int k = 0; k < 3; k++)
                d[k] /= len;
            const float y_to_d[4] = {d[2], 0.0f, -d[0], 1.0f + d[1]}, flip[4] = {1, 0, 0, 0};
            memcpy(q, 1.0f + d[1] > 1e-6f ? y_to_d : flip, sizeof q);
            const float ql = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            for (int k = 0; k < 4; k++)
                q[k] /= ql;
        }
        draw_capsule(r, &pc, c, q, 0.5f * len, p->capsule_radius);
    }
    if (p->box) {
        place(&pc, p->box_center[0], p->box_center[1], p->box_center[2], p->box_half_extents[0],
              p->box_half_extents[1], p->box_half_extents[2], 0.35f, 0.55f, 0.8f, 2);
        draw_mesh(r, &pc, &r->box);
    }
    if (p->collider && r->collider.index_count) {
        place(&pc, p->collider_position[0], p->collider_position[1], p->collider_position[2], 1, 1, 1, 0.55f, 0.7f,
              0.45f, 2);
        turn(&pc, p->collider_rotation);
        draw_mesh(r, &pc, &r->collider);
    }
    draw_shapes(r, &pc, p);
    const sinew_vulkan_buffers *bb = &r->body_buffers;
    if (bb->render_vertices) { /* the artist's mesh, a checker texture on its UVs */
        place(&pc, 0, 0, 0, 1, 1, 1, 0.93f, 0.78f, 0.32f, 3);
        r->vk.vkCmdBindPipeline(r->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->textured);
        r->vk.vkCmdPushConstants(r->cmd, r->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                                 sizeof pc, &pc);
        r->vk.vkCmdBindVertexBuffers(r->cmd, 0, 1, &bb->render_vertices, &bb->render_vertices_offset);
        r->vk.vkCmdBindIndexBuffer(r->cmd, bb->render_indices, bb->render_indices_offset, VK_INDEX_TYPE_UINT32);
        r->vk.vkCmdDrawIndexed(r->cmd, bb->render_index_count, 1, 0, 0, 0);
    } else {
        place(&pc, 0, 0, 0, 1, 1, 1, 0.93f, 0.78f, 0.32f, 0);
        const VkDeviceSize at[2] = {bb->positions_offset, bb->normals_offset};
        draw_at(r, &pc, bb->positions, bb->normals, at, r->body_indices.buffer, r->body_index_count);
    }
    static const float palette[6][3] = {{0.45f, 0.62f, 0.85f}, {0.85f, 0.45f, 0.40f}, {0.50f, 0.75f, 0.50f},
                                        {0.75f, 0.55f, 0.80f}, {0.90f, 0.62f, 0.30f}, {0.45f, 0.75f, 0.78f}};
    for (uint32_t k = 0; k < r->other_count; k++) {
        const sinew_vulkan_buffers *ob = &r->others[k].buffers;
        const float *c = palette[k % 6];
        const VkDeviceSize at[2] = {ob->positions_offset, ob->normals_offset};
        place(&pc, 0, 0, 0, 1, 1, 1, c[0], c[1], c[2], 0);
        draw_at(r, &pc, ob->positions, ob->normals, at, r->others[k].indices.buffer, r->others[k].index_count);
    }
    r->vk.vkCmdEndRenderPass(r->cmd);
    return 1;
}

static int submit(render *r, VkSemaphore wait, VkSemaphore signal)
{
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.waitSemaphoreCount = wait ? 1 : 0;
    si.pWaitSemaphores = &wait;
    si.pWaitDstStageMask = &stage;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &r->cmd;
    si.signalSemaphoreCount = signal ? 1 : 0;
    si.pSignalSemaphores = &signal;
    TRY(r->vk.vkQueueSubmit(r->queue, 1, &si, r->fence));
    TRY(r->vk.vkWaitForFences(r->device, 1, &r->fence, VK_TRUE, UINT64_MAX));
    TRY(r->vk.vkResetFences(r->device, 1, &r->fence));
    return 1;
}

static int write_png(render *r, const char *path, uint32_t width, uint32_t height, int bgra)
{
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = bgra ? PNG_FORMAT_BGRA : PNG_FORMAT_RGBA;
    /* Opened by the library's rules for outputs (core/file.h): never a
     * device, FIFO or folder, a symbolic link written through. */
    sinew_logger lg = sinew_logger_default();
    FILE *f;
    if (sinew_file_open_output(path, &lg, "picture", &f) != SINEW_RESULT_OK)
        return 0;
    int ok = png_image_write_to_stdio(&image, f, 0, r->pixels.mapped, 0, NULL);
    if (fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", path,
                image.warning_or_error ? image.message : strerror(errno));
    return ok;
}

int render_present(render *r, const sinew_step_params *p, const render_camera *camera, VkImage target,
                   uint32_t width, uint32_t height, VkSemaphore acquired, VkSemaphore rendered, const char *screenshot,
                   int bgra)
{
    if (screenshot && width * height > r->width * r->height) {
        fprintf(stderr, "sinew-sim: render: a %ux%u screenshot does not fit the picture buffer\n", width, height);
        return 0;
    }
    if (!record_scene(r, p, camera))
        return 0;
    VkImageSubresourceRange all = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageMemoryBarrier to_dst = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    to_dst.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_dst.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    to_dst.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    to_dst.srcQueueFamilyIndex = to_dst.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_dst.image = target;
    to_dst.subresourceRange = all;
    r->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0,
                               NULL, 1, &to_dst);
    VkImageBlit blit = {0};
    blit.srcSubresource = blit.dstSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    blit.srcOffsets[1] = (VkOffset3D){(int32_t)r->width, (int32_t)r->height, 1};
    blit.dstOffsets[1] = (VkOffset3D){(int32_t)width, (int32_t)height, 1};
    r->vk.vkCmdBlitImage(r->cmd, r->colour, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
    VkImageMemoryBarrier to_present = to_dst;
    if (screenshot) { /* what the window will show, read back */
        VkImageMemoryBarrier to_src = to_dst;
        to_src.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        to_src.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
        to_src.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        to_src.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        r->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL,
                                   0, NULL, 1, &to_src);
        VkBufferImageCopy region = {0};
        region.imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = (VkExtent3D){width, height, 1};
        r->vk.vkCmdCopyImageToBuffer(r->cmd, target, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->pixels.buffer, 1,
                                     &region);
        VkMemoryBarrier host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                                VK_ACCESS_HOST_READ_BIT};
        r->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0,
                                   NULL, 0, NULL);
        to_present.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        to_present.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    } else {
        to_present.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        to_present.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    }
    to_present.dstAccessMask = 0;
    to_present.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    r->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL,
                               0, NULL, 1, &to_present);
    TRY(r->vk.vkEndCommandBuffer(r->cmd));
    if (!submit(r, acquired, rendered))
        return 0;
    return !screenshot || write_png(r, screenshot, width, height, bgra);
}

int render_frame(render *r, const sinew_step_params *p, const render_camera *camera, const char *path)
{
    if (!record_scene(r, p, camera))
        return 0;
    VkBufferImageCopy region = {0};
    region.imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = (VkExtent3D){r->width, r->height, 1};
    r->vk.vkCmdCopyImageToBuffer(r->cmd, r->colour, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->pixels.buffer, 1, &region);
    VkMemoryBarrier host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_ACCESS_HOST_READ_BIT};
    r->vk.vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL,
                               0, NULL);
    TRY(r->vk.vkEndCommandBuffer(r->cmd));
    if (!submit(r, VK_NULL_HANDLE, VK_NULL_HANDLE))
        return 0;
    return write_png(r, path, r->width, r->height, 0);
}
