/* cloth_in_renderer: a world of bodies inside an application's own Vulkan
 * renderer.
 *
 * An engine owns its Vulkan instance and device. Here the application creates
 * them (through the Vulkan loader; volk would do as well), lends them to sinew
 * (sinew/vulkan.h), and makes a world (sinew/world.h) of three cloths hanging
 * side by side: two stepped by XPBD Gauss-Seidel, which share one batch (one
 * set of device buffers, one recorded chain of dispatches for both), and one
 * by XPBD Jacobi, which steps as a chain of its own. Each frame it records
 * the world's whole step and its own drawing of the three into one command
 * buffer. The cloths are built from the application's own mesh with texture
 * coordinates (sinew/prep.h), so their asset keeps that mesh as a render
 * mesh: at the end of each step sinew writes, on the device, a vertex buffer
 * of the mesh's vertices (position, normal, uv: 32 bytes a vertex) for every
 * body, and the draw reads each body's from its offsets with its index
 * buffer, as it would any model, shading a UV checker
 * (docs/render-mesh.md). Nothing is copied to the host but the final picture,
 * written as a PPM file. Headless: the picture is an offscreen image.
 *
 *     cloth_in_renderer [OUT.ppm] [--no-validation]      (default cloth.ppm)
 *
 * Exits 0 when every call succeeded, each cloth covers its third of the
 * picture with both colours of its checker (its UVs reached the draw), and
 * the validation layer (on, with synchronization validation, unless
 * --no-validation) reported nothing. */
#include <sinew/prep.h>
#include <sinew/vulkan.h>
#include <sinew/world.h>
#include <vulkan/vulkan.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shaders (shaders/cloth.vert, .frag), compiled to SPIR-V by the build. */
static const uint32_t vert_spv[] = {
#include "cloth.vert.inc"
};
static const uint32_t frag_spv[] = {
#include "cloth.frag.inc"
};

#define WIDTH 512 /* pixels across the picture */
#define HEIGHT 256
#define BODIES 3  /* in the world */
#define FRAMES 60 /* one sinew step a frame: one second */
#define SIDE 24   /* vertices along each side of the cloth */
#define CHECK(call) do { VkResult vr_ = (call); if (vr_ != VK_SUCCESS) { \
    fprintf(stderr, "cloth_in_renderer: %s failed (%d)\n", #call, (int)vr_); exit(1); } } while (0)

static unsigned messages; /* the validation layer's and sinew's warnings and errors */
static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT type,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    messages++;
    fprintf(stderr, "validation: %s\n", data->pMessage);
    return VK_FALSE;
}
static void on_sinew_log(void *user, sinew_log_level level, const char *id, const char *message)
{
    messages += level <= SINEW_LOG_WARNING;
    fprintf(stderr, "sinew [%s]: %s\n", id, message);
}

/* ---------------------------------------------------------------- the application's device */

typedef struct app {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    uint32_t family; /* one queue family for graphics and compute */
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
} app;

static void app_create(app *a, int validation)
{
    VkApplicationInfo ai = {VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "cloth_in_renderer",
                            .apiVersion = VK_API_VERSION_1_1}; /* sinew needs 1.1 */
    const char *layer = "VK_LAYER_KHRONOS_validation", *extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkDebugUtilsMessengerCreateInfoEXT mi = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        .pfnUserCallback = on_validation};
    VkValidationFeaturesEXT features = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, &mi, 1, &sync};
    VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, validation ? &features : NULL,
                               .pApplicationInfo = &ai, .enabledLayerCount = validation ? 1 : 0,
                               .ppEnabledLayerNames = &layer, .enabledExtensionCount = validation ? 1 : 0,
                               .ppEnabledExtensionNames = &extension};
    CHECK(vkCreateInstance(&ci, NULL, &a->instance));
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            a->instance, "vkCreateDebugUtilsMessengerEXT");
        CHECK(create(a->instance, &mi, NULL, &a->messenger));
    }
    uint32_t count = 1;
    VkResult vr = vkEnumeratePhysicalDevices(a->instance, &count, &a->physical);
    if (count == 0 || (vr != VK_SUCCESS && vr != VK_INCOMPLETE)) {
        fprintf(stderr, "cloth_in_renderer: no Vulkan device\n");
        exit(1);
    }
    VkQueueFamilyProperties families[16];
    uint32_t family_count = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(a->physical, &family_count, families);
    a->family = UINT32_MAX;
    for (uint32_t i = family_count; i-- > 0;)
        if (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT && families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            a->family = i;
    if (a->family == UINT32_MAX) {
        fprintf(stderr, "cloth_in_renderer: no queue family does graphics and compute\n");
        exit(1);
    }
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = a->family,
                                  .queueCount = 1, .pQueuePriorities = &priority};
    VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi};
    CHECK(vkCreateDevice(a->physical, &di, NULL, &a->device));
    vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
    VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = a->family};
    CHECK(vkCreateCommandPool(a->device, &pi, NULL, &a->pool));
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = a->pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    CHECK(vkAllocateCommandBuffers(a->device, &cai, &a->cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CHECK(vkCreateFence(a->device, &fi, NULL, &a->fence));
}

/* Memory the host can read (enough for the picture's copy). */
typedef struct host_buffer { VkBuffer buffer; VkDeviceMemory memory; void *mapped; } host_buffer;

static host_buffer host_buffer_create(const app *a, VkDeviceSize size, VkBufferUsageFlags usage)
{
    host_buffer h;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage};
    CHECK(vkCreateBuffer(a->device, &bi, NULL, &h.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a->device, h.buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(a->physical, &mp);
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = 0;
    while (type < mp.memoryTypeCount &&
           !((req.memoryTypeBits >> type & 1u) && (mp.memoryTypes[type].propertyFlags & want) == want))
        type++;
    VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = type};
    CHECK(vkAllocateMemory(a->device, &mai, NULL, &h.memory));
    CHECK(vkBindBufferMemory(a->device, h.buffer, h.memory, 0));
    CHECK(vkMapMemory(a->device, h.memory, 0, VK_WHOLE_SIZE, 0, &h.mapped));
    return h;
}

static void host_buffer_destroy(const app *a, host_buffer *h)
{
    vkDestroyBuffer(a->device, h->buffer, NULL);
    vkFreeMemory(a->device, h->memory, NULL);
}

/* ---------------------------------------------------------------- the application's renderer */

/* What the draw reads of one body: its render mesh (sinew_vulkan_buffers),
 * one interleaved vertex stream and a uint32 index buffer, both in sinew's
 * buffer at the offsets it gives. Bodies of one batch share the buffer,
 * each at its own offsets, its indices counting from its own first vertex,
 * as for a body alone. Any model of the engine's own has the same shape. */
typedef struct cloth_mesh {
    VkBuffer vertices;
    VkDeviceSize vertices_offset;
    VkBuffer indices;
    VkDeviceSize indices_offset;
    uint32_t index_count;
} cloth_mesh;

static const VkVertexInputBindingDescription bindings[] = {
    {0, 32, VK_VERTEX_INPUT_RATE_VERTEX}, /* 32 bytes a vertex: position, normal, uv */
};
static const VkVertexInputAttributeDescription attributes[] = {
    {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},  /* location 0: position xyz, m */
    {1, 0, VK_FORMAT_R32G32B32_SFLOAT, 12}, /* location 1: unit normal xyz */
    {2, 0, VK_FORMAT_R32G32_SFLOAT, 24},    /* location 2: uv */
};

typedef struct renderer {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
    VkRenderPass pass;
    VkFramebuffer framebuffer;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    host_buffer pixels; /* the picture, copied out after the last frame */
} renderer;

static VkShaderModule shader_module(const app *a, const uint32_t *code, size_t size)
{
    VkShaderModuleCreateInfo si = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
    VkShaderModule m;
    CHECK(vkCreateShaderModule(a->device, &si, NULL, &m));
    return m;
}

static void renderer_create(const app *a, renderer *r)
{
    /* An offscreen colour image, as a swapchain's image would be. */
    VkImageCreateInfo ii = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                            .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {WIDTH, HEIGHT, 1}, .mipLevels = 1,
                            .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
                            .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT};
    CHECK(vkCreateImage(a->device, &ii, NULL, &r->image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(a->device, r->image, &req);
    uint32_t type = 0;
    while (!(req.memoryTypeBits >> type & 1u))
        type++;
    VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    CHECK(vkAllocateMemory(a->device, &mai, NULL, &r->memory));
    CHECK(vkBindImageMemory(a->device, r->image, r->memory, 0));
    VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = r->image,
                                .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = ii.format,
                                .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    CHECK(vkCreateImageView(a->device, &vi, NULL, &r->view));

    /* One pass: clear, draw the cloth, leave the image ready to be copied. */
    VkAttachmentDescription colour = {0, ii.format, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
                                      VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                      VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
                                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
    VkAttachmentReference ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub = {0, VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1, .pColorAttachments = &ref};
    VkSubpassDependency deps[2] = {
        /* the frame before copied the image out: that read ends before this pass writes */
        {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0,
         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0},
        /* the picture is copied out after the pass */
        {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, 0},
    };
    VkRenderPassCreateInfo rpi = {VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 1,
                                  .pAttachments = &colour, .subpassCount = 1, .pSubpasses = &sub,
                                  .dependencyCount = 2, .pDependencies = deps};
    CHECK(vkCreateRenderPass(a->device, &rpi, NULL, &r->pass));
    VkFramebufferCreateInfo fbi = {VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = r->pass,
                                   .attachmentCount = 1, .pAttachments = &r->view, .width = WIDTH, .height = HEIGHT,
                                   .layers = 1};
    CHECK(vkCreateFramebuffer(a->device, &fbi, NULL, &r->framebuffer));

    /* The pipeline: the view matrix as push constants, triangles from the
     * vertex stream above, both faces drawn (no depth buffer: enough for one
     * cloth seen from the front). */
    VkPushConstantRange push = {VK_SHADER_STAGE_VERTEX_BIT, 0, 16 * sizeof(float)};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &push};
    CHECK(vkCreatePipelineLayout(a->device, &pli, NULL, &r->layout));
    VkShaderModule vs = shader_module(a, vert_spv, sizeof vert_spv), fs = shader_module(a, frag_spv, sizeof frag_spv);
    VkPipelineShaderStageCreateInfo stages[2] = {
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vs, .pName = "main"},
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT, .module = fs, .pName = "main"},
    };
    VkPipelineVertexInputStateCreateInfo input = {VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = sizeof bindings / sizeof *bindings, .pVertexBindingDescriptions = bindings,
        .vertexAttributeDescriptionCount = sizeof attributes / sizeof *attributes, .pVertexAttributeDescriptions = attributes};
    VkPipelineInputAssemblyStateCreateInfo assembly = {VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                       .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkViewport viewport = {0, 0, WIDTH, HEIGHT, 0, 1};
    VkRect2D scissor = {{0, 0}, {WIDTH, HEIGHT}};
    VkPipelineViewportStateCreateInfo vps = {VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO, .viewportCount = 1,
                                             .pViewports = &viewport, .scissorCount = 1, .pScissors = &scissor};
    VkPipelineRasterizationStateCreateInfo raster = {VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE, .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo ms = {VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                               .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
    VkPipelineColorBlendAttachmentState blend = {.colorWriteMask = 0xf};
    VkPipelineColorBlendStateCreateInfo cb = {VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                              .attachmentCount = 1, .pAttachments = &blend};
    VkGraphicsPipelineCreateInfo gi = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2,
        .pStages = stages, .pVertexInputState = &input, .pInputAssemblyState = &assembly, .pViewportState = &vps,
        .pRasterizationState = &raster, .pMultisampleState = &ms, .pColorBlendState = &cb, .layout = r->layout,
        .renderPass = r->pass};
    CHECK(vkCreateGraphicsPipelines(a->device, VK_NULL_HANDLE, 1, &gi, NULL, &r->pipeline));
    vkDestroyShaderModule(a->device, vs, NULL);
    vkDestroyShaderModule(a->device, fs, NULL);
    r->pixels = host_buffer_create(a, 4 * WIDTH * HEIGHT, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
}

static void renderer_destroy(const app *a, renderer *r)
{
    vkDestroyPipeline(a->device, r->pipeline, NULL);
    vkDestroyPipelineLayout(a->device, r->layout, NULL);
    vkDestroyFramebuffer(a->device, r->framebuffer, NULL);
    vkDestroyRenderPass(a->device, r->pass, NULL);
    vkDestroyImageView(a->device, r->view, NULL);
    vkDestroyImage(a->device, r->image, NULL);
    vkFreeMemory(a->device, r->memory, NULL);
    host_buffer_destroy(a, &r->pixels);
}

/* An orthographic camera from the front (+z), a little to the right and
 * above, 4.6 m across and 2.3 m high, looking at where the three cloths are
 * after a second: each swings down from its pinned edge at z = -0.5 m, the
 * Gauss-Seidel ones through the vertical to the far side, the Jacobi one
 * about as far as the vertical. Column-major, as GLSL reads it. */
static void view_projection(float m[16])
{
    const float right[3] = {0.894f, 0.0f, -0.447f}, up[3] = {-0.149f, 0.943f, -0.298f};
    const float target[3] = {0.0f, 0.55f, -0.7f}, half_width = 2.3f, half_height = 1.15f; /* m */
    memset(m, 0, 16 * sizeof *m);
    for (int k = 0; k < 3; k++) {
        m[4 * k + 0] = right[k] / half_width;
        m[4 * k + 1] = -up[k] / half_height; /* Vulkan's clip space has y down */
        m[12] -= right[k] * target[k] / half_width;
        m[13] += up[k] * target[k] / half_height;
    }
    m[14] = 0.5f; /* depth: the middle of the range */
    m[15] = 1.0f;
}

/* One frame's drawing of every body, recorded after sinew's step in the same
 * command buffer. */
static void record_draw(const app *a, const renderer *r, const cloth_mesh meshes[BODIES], int copy_out)
{
    VkClearValue clear = {{{0.9f, 0.9f, 0.9f, 1.0f}}};
    VkRenderPassBeginInfo rb = {VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = r->pass,
                                .framebuffer = r->framebuffer, .renderArea = {{0, 0}, {WIDTH, HEIGHT}},
                                .clearValueCount = 1, .pClearValues = &clear};
    float m[16];
    view_projection(m);
    vkCmdBeginRenderPass(a->cmd, &rb, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(a->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline);
    vkCmdPushConstants(a->cmd, r->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof m, m);
    for (int k = 0; k < BODIES; k++) {
        const cloth_mesh *mesh = &meshes[k];
        vkCmdBindVertexBuffers(a->cmd, 0, 1, &mesh->vertices, &mesh->vertices_offset);
        vkCmdBindIndexBuffer(a->cmd, mesh->indices, mesh->indices_offset, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexed(a->cmd, mesh->index_count, 1, 0, 0, 0);
    }
    vkCmdEndRenderPass(a->cmd);
    if (!copy_out)
        return;
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {WIDTH, HEIGHT, 1}};
    vkCmdCopyImageToBuffer(a->cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->pixels.buffer, 1, &region);
    VkMemoryBarrier host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(a->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL, 0, NULL);
}

/* Writes the picture as a binary PPM; counts the pixels the cloths cover, in
 * the checker's light and dark cells (cloth.frag's colours), in each third of
 * the picture (a cloth's, left to right). */
static int write_ppm(const char *path, const uint8_t *rgba, unsigned light[BODIES], unsigned dark[BODIES])
{
    memset(light, 0, BODIES * sizeof *light);
    memset(dark, 0, BODIES * sizeof *dark);
    FILE *f = fopen(path, "wb");
    if (f)
        fprintf(f, "P6\n%d %d\n255\n", WIDTH, HEIGHT);
    for (int i = 0; i < WIDTH * HEIGHT; i++) {
        const uint8_t *p = &rgba[4 * i];
        int third = i % WIDTH * BODIES / WIDTH;
        if (p[2] > p[0]) /* blue, not the grey background */
            (2 * p[0] > p[2] ? light : dark)[third]++;
        if (f)
            fwrite(p, 1, 3, f);
    }
    if (!f || fclose(f) != 0) {
        fprintf(stderr, "cloth_in_renderer: cannot write %s\n", path);
        return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------- the application's cloth */

/* The application's mesh, as it holds it for drawing: a SIDE x SIDE grid of
 * quads, 1 m square, lying in the xz plane 1 m up, with texture coordinates
 * (u along x, v along z). Vertex (i, j) is j * SIDE + i. */
typedef struct grid_mesh {
    float xyz[3 * SIDE * SIDE];
    float uv[2 * SIDE * SIDE];
    uint32_t quads[4 * (SIDE - 1) * (SIDE - 1)];
} grid_mesh;

static void grid_make(grid_mesh *g)
{
    for (uint32_t j = 0; j < SIDE; j++)
        for (uint32_t i = 0; i < SIDE; i++) {
            uint32_t v = j * SIDE + i;
            float u = (float)i / (SIDE - 1), w = (float)j / (SIDE - 1);
            g->xyz[3 * v + 0] = u - 0.5f;
            g->xyz[3 * v + 1] = 1.0f;
            g->xyz[3 * v + 2] = w - 0.5f;
            g->uv[2 * v + 0] = u;
            g->uv[2 * v + 1] = w;
        }
    uint32_t *q = g->quads;
    for (uint32_t j = 0; j + 1 < SIDE; j++)
        for (uint32_t i = 0; i + 1 < SIDE; i++) {
            uint32_t a = j * SIDE + i; /* counter-clockwise seen from above */
            *q++ = a, *q++ = a + SIDE, *q++ = a + SIDE + 1, *q++ = a + 1;
        }
}

/* The cloth asset, built in memory (sinew/prep.h): the grid hanging from the
 * two ends of its first row (z = -0.5 m). The mesh's vertices, with their
 * UVs, become the asset's render mesh. */
static sinew_result cloth_asset(const sinew_logger *logger, sinew_asset **asset)
{
    grid_mesh g;
    grid_make(&g);
    sinew_prep_mesh mesh = sinew_prep_mesh_default();
    mesh.vertex_count = SIDE * SIDE;
    mesh.positions = g.xyz;
    mesh.quad_count = (SIDE - 1) * (SIDE - 1);
    mesh.quads = g.quads;
    mesh.uvs = g.uv;
    const uint32_t pins[2] = {0, SIDE - 1};
    sinew_prep_cloth_options options = sinew_prep_cloth_options_default();
    options.pins = pins;
    options.pin_count = 2;
    return sinew_prep_cloth_asset(&mesh, &options, logger, asset, NULL);
}

/* ---------------------------------------------------------------- the world's bodies */

/* Three bodies of the one cloth asset, left to right. Bodies of one solver
 * family whose descriptions agree (all but name, materials and world) share
 * a batch: the two Gauss-Seidel cloths lie side by side in one set of device
 * buffers and step as one chain of dispatches. The Jacobi cloth's solver
 * differs, so it steps as a chain of its own, in the same recorded step. */
static const struct {
    const char *name;
    sinew_solver solver;
    float x; /* m: where the application places it along x */
} bodies[BODIES] = {
    {"left cloth", SINEW_SOLVER_XPBD_GAUSS_SEIDEL, -1.6f},
    {"middle cloth", SINEW_SOLVER_XPBD_GAUSS_SEIDEL, 0.0f},
    {"right cloth", SINEW_SOLVER_XPBD_JACOBI, 1.6f},
};

/* Moves a new body's particles, pinned ones too, x metres along x. */
static sinew_result place(sinew_body *body, float x)
{
    uint32_t n = sinew_body_get_particle_count(body);
    float *xyz = malloc(sizeof *xyz * 3 * n);
    if (!xyz)
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sinew_result r = sinew_body_read_positions(body, xyz, n);
    for (uint32_t i = 0; i < n; i++)
        xyz[3 * i] += x;
    if (r == SINEW_RESULT_OK)
        r = sinew_body_write_positions(body, xyz, n);
    free(xyz);
    return r;
}

/* ---------------------------------------------------------------- the frame loop */

int main(int argc, char **argv)
{
    const char *out = NULL;
    int validation = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-validation"))
            validation = 0;
        else if (argv[i][0] != '-' && !out)
            out = argv[i];
        else {
            fprintf(stderr, "usage: cloth_in_renderer [OUT.ppm] [--no-validation]\n");
            return 2;
        }
    }
    app a = {0};
    app_create(&a, validation);

    sinew_logger logger = sinew_logger_default();
    logger.fn = on_sinew_log;
    logger.level = SINEW_LOG_WARNING;
    sinew_asset *asset = NULL;
    sinew_result r = cloth_asset(&logger, &asset);

    /* Lend the device to sinew: it creates its pipelines and buffers on it,
     * and its validation messages arrive at the application's messenger. */
    sinew_vulkan_device lent = {vkGetInstanceProcAddr, a.instance, a.physical, a.device, a.family, 0};
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger = logger;
    sinew_context *ctx = NULL;
    if (r == SINEW_RESULT_OK)
        r = sinew_context_create_from_vulkan(&cd, &lent, &ctx);

    /* The world, and its bodies: each joins it as it is made (desc.world). */
    sinew_world *world = NULL;
    sinew_world_desc wd = sinew_world_desc_default();
    if (r == SINEW_RESULT_OK)
        r = sinew_world_create(ctx, &wd, &world);
    sinew_body *body[BODIES] = {0};
    for (int k = 0; k < BODIES && r == SINEW_RESULT_OK; k++) {
        sinew_body_desc bd = sinew_body_desc_default(); /* render_mesh = 1: write the render mesh */
        bd.name = bodies[k].name;
        bd.solver = bodies[k].solver;
        bd.world = world;
        r = sinew_body_create(ctx, asset, &bd, &body[k]);
        if (r == SINEW_RESULT_OK)
            r = place(body[k], bodies[k].x);
    }
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "cloth_in_renderer: %s\n", sinew_result_string(r));
        return 1;
    }

    /* The draw's inputs: each body's render mesh, vertex and index buffers
     * that sinew owns. Asked for once every body has joined: a batch is
     * built again, buffers and all, after a body joins or leaves it. The
     * vertices are rewritten by every step; the indices never change. */
    cloth_mesh meshes[BODIES];
    for (int k = 0; k < BODIES; k++) {
        sinew_vulkan_buffers vb = sinew_body_get_vulkan_buffers(body[k]);
        if (vb.render_vertices == VK_NULL_HANDLE) {
            fprintf(stderr, "cloth_in_renderer: %s has no render mesh\n", bodies[k].name);
            return 1;
        }
        meshes[k] = (cloth_mesh){vb.render_vertices, vb.render_vertices_offset, vb.render_indices,
                                 vb.render_indices_offset, vb.render_index_count};
    }
    renderer ren;
    renderer_create(&a, &ren);

    /* Each frame: the world's step (every chain, each between its barriers),
     * then the draws, in one command buffer; the step's barriers order it
     * against the draws before and after it. */
    sinew_step_params params = sinew_step_params_default();
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    for (int frame = 0; frame < FRAMES && r == SINEW_RESULT_OK; frame++) {
        CHECK(vkBeginCommandBuffer(a.cmd, &begin));
        r = sinew_world_record_step(world, a.cmd, &params);
        record_draw(&a, &ren, meshes, frame == FRAMES - 1);
        CHECK(vkEndCommandBuffer(a.cmd));
        VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &a.cmd};
        CHECK(vkQueueSubmit(a.queue, 1, &si, a.fence));
        CHECK(vkWaitForFences(a.device, 1, &a.fence, VK_TRUE, UINT64_MAX));
        CHECK(vkResetFences(a.device, 1, &a.fence));
        if (r == SINEW_RESULT_OK)
            r = sinew_world_collect_stats(world); /* every chain's health check, once it has run */
    }
    const char *path = out ? out : "cloth.ppm";
    unsigned light[BODIES] = {0}, dark[BODIES] = {0}, covered = 0;
    int written = r == SINEW_RESULT_OK && write_ppm(path, ren.pixels.mapped, light, dark);
    /* An 8 x 8 checker shows about as much of each colour; UVs lost on the
     * way would show one, and a body drawn from the wrong offsets none. */
    int checker = written;
    for (int k = 0; k < BODIES; k++) {
        unsigned mine = light[k] + dark[k];
        covered += mine;
        checker &= mine > WIDTH * HEIGHT / 60 && light[k] > mine / 5 && dark[k] > mine / 5;
    }
    const sinew_world_stats ws = sinew_world_get_stats(world);
    const sinew_render_info cloth = sinew_asset_get_render_info(asset);
    printf("cloth_in_renderer: %u particles, %u render vertices, %u triangles a cloth; a world of %u bodies in %u "
           "chains, %u dispatches per step; %d frames of a world step and %d draws; %s: %u of %d pixels show the cloths "
           "(light/dark checker cells, left to right: %u/%u, %u/%u, %u/%u); %u validation messages\n",
           sinew_body_get_particle_count(body[0]), cloth.vertex_count, cloth.index_count / 3, ws.body_count,
           ws.chain_count, ws.dispatches, FRAMES, BODIES, path, covered, WIDTH * HEIGHT, light[0], dark[0],
           light[1], dark[1], light[2], dark[2], messages);
    if (r != SINEW_RESULT_OK)
        fprintf(stderr, "cloth_in_renderer: %s\n", sinew_result_string(r));

    /* sinew goes first (it destroys only what it created; the world destroys
     * its bodies), then the renderer and the device. */
    sinew_world_destroy(world);
    sinew_context_destroy(ctx);
    sinew_asset_destroy(asset);
    renderer_destroy(&a, &ren);
    vkDestroyFence(a.device, a.fence, NULL);
    vkDestroyCommandPool(a.device, a.pool, NULL);
    vkDestroyDevice(a.device, NULL);
    if (a.messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            a.instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy(a.instance, a.messenger, NULL);
    }
    vkDestroyInstance(a.instance, NULL);
    return written && checker && messages == 0 ? 0 : 1;
}
