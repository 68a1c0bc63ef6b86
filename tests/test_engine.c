/* sinew inside an application that owns the Vulkan device (sinew/vulkan.h).
 * This file is the application: it links the Vulkan loader itself and sinew's
 * installed-style static library (hidden symbols local, so its own Vulkan
 * pointers cannot stand in for the loader's), creates an instance with
 * validation and synchronization validation and its own messenger, a device, a
 * queue and a command buffer; lends them to sinew; records sinew's steps into
 * its command buffer, copies the positions out and draws them as a vertex
 * buffer; checks that the steps equal sinew's own; destroys sinew and goes on
 * using its device. Any validation message fails. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include <sinew/vulkan.h>
#include <sinew/world.h>

static const uint32_t vert_spv[] = {
#include "points.vert.inc"
};
static const uint32_t frag_spv[] = {
#include "points.frag.inc"
};

#define IMAGE 64 /* pixels per side of the picture */
#define STEPS 30

typedef struct app {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    uint32_t family;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkPhysicalDeviceMemoryProperties memory;
} app;

static uint32_t app_messages;
static char app_first_message[1024];

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    if (!app_messages++)
        snprintf(app_first_message, sizeof app_first_message, "%s", data->pMessage);
    fprintf(stderr, "application's validation: %s\n", data->pMessage);
    return VK_FALSE;
}

static uint32_t sinew_errors;
static void on_sinew_log(void *user, sinew_log_level level, const char *id, const char *message)
{
    if (level <= SINEW_LOG_WARNING)
        sinew_errors++;
    fprintf(stderr, "sinew %s [%s]: %s\n", level <= SINEW_LOG_WARNING ? "warning" : "info", id, message);
}

#define VK_OK(call) cr_assert_eq((call), VK_SUCCESS, "%s", #call)

static void app_create(app *a)
{
    memset(a, 0, sizeof *a);
    VkApplicationInfo ai = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    ai.pApplicationName = "engine";
    ai.apiVersion = VK_API_VERSION_1_1;
    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    VkDebugUtilsMessengerCreateInfoEXT mi = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = on_message;
    features.pNext = &mi;
    VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, &features};
    ci.pApplicationInfo = &ai;
    ci.enabledLayerCount = 1;
    ci.ppEnabledLayerNames = layers;
    ci.enabledExtensionCount = 1;
    ci.ppEnabledExtensionNames = extensions;
    VK_OK(vkCreateInstance(&ci, NULL, &a->instance));
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkCreateDebugUtilsMessengerEXT");
    VK_OK(create_messenger(a->instance, &mi, NULL, &a->messenger));

    uint32_t n = 1;
    VkResult vr = vkEnumeratePhysicalDevices(a->instance, &n, &a->physical);
    cr_assert(n == 1 && (vr == VK_SUCCESS || vr == VK_INCOMPLETE), "a Vulkan device");
    VkQueueFamilyProperties q[16];
    uint32_t qn = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(a->physical, &qn, q);
    a->family = UINT32_MAX;
    for (uint32_t i = 0; i < qn && a->family == UINT32_MAX; i++)
        if ((q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
            a->family = i;
    cr_assert_neq(a->family, UINT32_MAX, "a graphics and compute queue family");
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = a->family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    VK_OK(vkCreateDevice(a->physical, &di, NULL, &a->device));
    vkGetDeviceQueue(a->device, a->family, 0, &a->queue);
    vkGetPhysicalDeviceMemoryProperties(a->physical, &a->memory);
    VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = a->family;
    VK_OK(vkCreateCommandPool(a->device, &pi, NULL, &a->pool));
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = a->pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VK_OK(vkAllocateCommandBuffers(a->device, &cai, &a->cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_OK(vkCreateFence(a->device, &fi, NULL, &a->fence));
}

static void app_destroy(app *a)
{
    vkDestroyFence(a->device, a->fence, NULL);
    vkDestroyCommandPool(a->device, a->pool, NULL);
    vkDestroyDevice(a->device, NULL);
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkDestroyDebugUtilsMessengerEXT");
    destroy_messenger(a->instance, a->messenger, NULL);
    vkDestroyInstance(a->instance, NULL);
}

static uint32_t memory_type(const app *a, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < a->memory.memoryTypeCount; i++)
        if ((bits >> i & 1u) && (a->memory.memoryTypes[i].propertyFlags & want) == want)
            return i;
    cr_assert_fail("no memory type with flags %#x", want);
    return 0;
}

/* A host-visible buffer of the application's, mapped. */
typedef struct host_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *mapped;
} host_buffer;

static host_buffer host_buffer_create(const app *a, VkDeviceSize size, VkBufferUsageFlags usage)
{
    host_buffer h;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = usage;
    VK_OK(vkCreateBuffer(a->device, &bi, NULL, &h.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(a->device, h.buffer, &req);
    VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = memory_type(a, req.memoryTypeBits,
                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VK_OK(vkAllocateMemory(a->device, &mai, NULL, &h.memory));
    VK_OK(vkBindBufferMemory(a->device, h.buffer, h.memory, 0));
    VK_OK(vkMapMemory(a->device, h.memory, 0, VK_WHOLE_SIZE, 0, &h.mapped));
    return h;
}

static void host_buffer_destroy(const app *a, host_buffer *h)
{
    vkDestroyBuffer(a->device, h->buffer, NULL);
    vkFreeMemory(a->device, h->memory, NULL);
}

static void submit_and_wait(const app *a)
{
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &a->cmd;
    VK_OK(vkQueueSubmit(a->queue, 1, &si, a->fence));
    VK_OK(vkWaitForFences(a->device, 1, &a->fence, VK_TRUE, UINT64_MAX));
    VK_OK(vkResetFences(a->device, 1, &a->fence));
}

/* The renderer: points from a vertex buffer into an IMAGE x IMAGE picture. */
typedef struct renderer {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
    VkRenderPass pass;
    VkFramebuffer framebuffer;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    host_buffer pixels;
} renderer;

static VkShaderModule shader(const app *a, const uint32_t *code, size_t size)
{
    VkShaderModuleCreateInfo si = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    si.codeSize = size;
    si.pCode = code;
    VkShaderModule m;
    VK_OK(vkCreateShaderModule(a->device, &si, NULL, &m));
    return m;
}

static void renderer_create(const app *a, renderer *r)
{
    VkImageCreateInfo ii = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = VK_FORMAT_R8G8B8A8_UNORM;
    ii.extent = (VkExtent3D){IMAGE, IMAGE, 1};
    ii.mipLevels = ii.arrayLayers = 1;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    VK_OK(vkCreateImage(a->device, &ii, NULL, &r->image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(a->device, r->image, &req);
    VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = memory_type(a, req.memoryTypeBits, 0);
    VK_OK(vkAllocateMemory(a->device, &mai, NULL, &r->memory));
    VK_OK(vkBindImageMemory(a->device, r->image, r->memory, 0));
    VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = r->image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = ii.format;
    vi.subresourceRange = (VkImageSubresourceRange){VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VK_OK(vkCreateImageView(a->device, &vi, NULL, &r->view));

    VkAttachmentDescription att = {0};
    att.format = ii.format;
    att.samples = VK_SAMPLE_COUNT_1_BIT;
    att.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    att.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkAttachmentReference ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub = {0};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &ref;
    /* The picture is copied out after the pass. */
    VkSubpassDependency dep = {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                               VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                               VK_ACCESS_TRANSFER_READ_BIT, 0};
    VkRenderPassCreateInfo rpi = {VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rpi.attachmentCount = 1;
    rpi.pAttachments = &att;
    rpi.subpassCount = 1;
    rpi.pSubpasses = &sub;
    rpi.dependencyCount = 1;
    rpi.pDependencies = &dep;
    VK_OK(vkCreateRenderPass(a->device, &rpi, NULL, &r->pass));
    VkFramebufferCreateInfo fbi = {VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fbi.renderPass = r->pass;
    fbi.attachmentCount = 1;
    fbi.pAttachments = &r->view;
    fbi.width = fbi.height = IMAGE;
    fbi.layers = 1;
    VK_OK(vkCreateFramebuffer(a->device, &fbi, NULL, &r->framebuffer));

    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    VK_OK(vkCreatePipelineLayout(a->device, &pli, NULL, &r->layout));
    VkShaderModule vs = shader(a, vert_spv, sizeof vert_spv), fs = shader(a, frag_spv, sizeof frag_spv);
    VkPipelineShaderStageCreateInfo stages[2] = {
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT, vs, "main", NULL},
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_FRAGMENT_BIT, fs, "main", NULL},
    };
    VkVertexInputBindingDescription binding = {0, 16, VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription attribute = {0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0};
    VkPipelineVertexInputStateCreateInfo input = {VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    input.vertexBindingDescriptionCount = 1;
    input.pVertexBindingDescriptions = &binding;
    input.vertexAttributeDescriptionCount = 1;
    input.pVertexAttributeDescriptions = &attribute;
    VkPipelineInputAssemblyStateCreateInfo assembly = {VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
    VkViewport viewport = {0, 0, IMAGE, IMAGE, 0, 1};
    VkRect2D scissor = {{0, 0}, {IMAGE, IMAGE}};
    VkPipelineViewportStateCreateInfo vps = {VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vps.viewportCount = 1;
    vps.pViewports = &viewport;
    vps.scissorCount = 1;
    vps.pScissors = &scissor;
    VkPipelineRasterizationStateCreateInfo raster = {VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms = {VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
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
    gi.pColorBlendState = &cb;
    gi.layout = r->layout;
    gi.renderPass = r->pass;
    VK_OK(vkCreateGraphicsPipelines(a->device, VK_NULL_HANDLE, 1, &gi, NULL, &r->pipeline));
    vkDestroyShaderModule(a->device, vs, NULL);
    vkDestroyShaderModule(a->device, fs, NULL);
    r->pixels = host_buffer_create(a, 4 * IMAGE * IMAGE, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
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

/* Draws count points from `positions` and copies the picture to r->pixels. */
static void record_draw(const app *a, const renderer *r, VkBuffer positions, uint32_t count)
{
    VkClearValue clear = {{{0.0f, 0.0f, 0.0f, 1.0f}}};
    VkRenderPassBeginInfo rb = {VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rb.renderPass = r->pass;
    rb.framebuffer = r->framebuffer;
    rb.renderArea.extent = (VkExtent2D){IMAGE, IMAGE};
    rb.clearValueCount = 1;
    rb.pClearValues = &clear;
    vkCmdBeginRenderPass(a->cmd, &rb, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(a->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(a->cmd, 0, 1, &positions, &offset);
    vkCmdDraw(a->cmd, count, 1, 0, 0);
    vkCmdEndRenderPass(a->cmd);
    VkBufferImageCopy region = {0};
    region.imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = (VkExtent3D){IMAGE, IMAGE, 1};
    vkCmdCopyImageToBuffer(a->cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->pixels.buffer, 1, &region);
    VkMemoryBarrier host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(a->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL, 0,
                         NULL);
}

static const char *asset_path(void)
{
    const char *p = getenv("SINEW_ENGINE_ASSET");
    cr_assert(p && *p, "SINEW_ENGINE_ASSET names the asset (ctest sets it)");
    return p;
}

/* positions after STEPS steps of sinew's own context and sinew_body_step */
static float *reference_positions(const sinew_asset *asset, const sinew_step_params *p, uint32_t *n)
{
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger.fn = on_sinew_log;
    sinew_context *ctx = NULL;
    cr_assert_eq(sinew_context_create(&cd, &ctx), SINEW_RESULT_OK);
    sinew_body_desc bd = sinew_body_desc_default();
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(ctx, asset, &bd, &body), SINEW_RESULT_OK);
    for (int s = 0; s < STEPS; s++)
        cr_assert_eq(sinew_body_step(body, p), SINEW_RESULT_OK);
    *n = sinew_body_get_particle_count(body);
    float *xyz = malloc(sizeof *xyz * 3 * *n);
    cr_assert_eq(sinew_body_read_positions(body, xyz, *n), SINEW_RESULT_OK);
    sinew_body_destroy(body);
    sinew_context_destroy(ctx);
    return xyz;
}

Test(engine, lent_device_records_steps_renders_and_survives, .timeout = 300)
{
    sinew_asset *asset = NULL;
    cr_assert_eq(sinew_asset_load(asset_path(), NULL, &asset), SINEW_RESULT_OK);
    sinew_step_params params = sinew_step_params_default();
    uint32_t n = 0;
    float *expected = reference_positions(asset, &params, &n);

    app a;
    app_create(&a);
    sinew_vulkan_device lent = {vkGetInstanceProcAddr, a.instance, a.physical, a.device, a.family, 0};
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger.fn = on_sinew_log;
    sinew_context *ctx = NULL;
    cr_assert_eq(sinew_context_create_from_vulkan(&cd, &lent, &ctx), SINEW_RESULT_OK);
    const char *limits = getenv("SINEW_LIMITS"); /* ctest runs this test in both modes */
    cr_assert_eq(sinew_context_get_device_info(ctx).limits,
                 limits && !strcmp(limits, "portable") ? SINEW_LIMITS_PORTABLE : SINEW_LIMITS_DEVICE);
    sinew_body_desc bd = sinew_body_desc_default();
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(ctx, asset, &bd, &body), SINEW_RESULT_OK);
    sinew_vulkan_buffers vb = sinew_body_get_vulkan_buffers(body);
    cr_assert_eq(vb.positions_size, 16ull * n);

    renderer r;
    renderer_create(&a, &r);
    cr_assert_neq(vb.normals, VK_NULL_HANDLE, "a cloth body computes normals");
    host_buffer copy = host_buffer_create(&a, vb.positions_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    host_buffer normals = host_buffer_create(&a, vb.normals_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    for (int s = 0; s < STEPS; s++) {
        VK_OK(vkBeginCommandBuffer(a.cmd, &begin));
        cr_assert_eq(sinew_body_record_step(body, a.cmd, &params), SINEW_RESULT_OK);
        /* The application's own use of sinew's positions after the step. */
        VkBufferCopy region = {0, 0, vb.positions_size};
        vkCmdCopyBuffer(a.cmd, vb.positions, copy.buffer, 1, &region);
        vkCmdCopyBuffer(a.cmd, vb.normals, normals.buffer, 1, &region);
        if (s == STEPS - 1)
            record_draw(&a, &r, vb.positions, n);
        VkMemoryBarrier host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                                VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(a.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL,
                             0, NULL);
        VK_OK(vkEndCommandBuffer(a.cmd));
        submit_and_wait(&a);
        cr_assert_eq(sinew_body_collect_stats(body), SINEW_RESULT_OK, "step %d healthy", s);
    }
    sinew_step_stats st = sinew_body_get_stats(body);
    cr_expect_eq(st.step_index, STEPS);
    cr_expect_geq(st.max_strain, 0.0f, "the residual ran in the recorded step");

    /* The recorded steps are sinew's own steps, bit for bit. */
    const float *got = copy.mapped;
    uint32_t differ = 0;
    double lowest = INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        differ += memcmp(&got[4 * i], &expected[3 * i], 3 * sizeof(float)) != 0;
        lowest = fmin(lowest, got[4 * i + 1]);
    }
    cr_expect_eq(differ, 0, "%u of %u particles differ from sinew_body_step's", differ, n);
    cr_expect_lt(lowest, 0.9, "the cloth fell (lowest %.3f m)", lowest);

    /* The normals are the surface's: area-weighted, unit, from the positions. */
    uint32_t tri_count = 0;
    const uint32_t *tri = sinew_asset_get_triangles(asset, &tri_count);
    double *sum = calloc(3 * n, sizeof *sum);
    for (uint32_t t = 0; t < tri_count; t++) {
        const float *p0 = &got[4 * tri[3 * t]], *p1 = &got[4 * tri[3 * t + 1]], *p2 = &got[4 * tri[3 * t + 2]];
        double e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        double e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++)
                sum[3 * tri[3 * t + k] + j] += c[j];
    }
    const float *nrm = normals.mapped;
    double worst_normal = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double len = sqrt(sum[3 * i] * sum[3 * i] + sum[3 * i + 1] * sum[3 * i + 1] + sum[3 * i + 2] * sum[3 * i + 2]);
        for (int j = 0; j < 3; j++)
            worst_normal = fmax(worst_normal, fabs(nrm[4 * i + j] - sum[3 * i + j] / len));
    }
    free(sum);
    cr_expect_lt(worst_normal, 1e-4, "GPU normals match the CPU's (largest difference %.3g)", worst_normal);

    /* The picture shows the cloth: lit pixels where particles project. */
    const uint8_t *px = r.pixels.mapped;
    uint32_t lit = 0;
    for (uint32_t i = 0; i < IMAGE * IMAGE; i++)
        lit += px[4 * i] == 255;
    /* The pixels the particles fall in, as the viewport maps them. */
    uint8_t covered[IMAGE * IMAGE] = {0};
    uint32_t inside = 0;
    for (uint32_t i = 0; i < n; i++) {
        int x = (int)floor((got[4 * i] * 1.8 + 1.0) * 0.5 * IMAGE);
        int y = (int)floor((got[4 * i + 2] * 1.8 + 1.0) * 0.5 * IMAGE);
        if (x >= 0 && x < IMAGE && y >= 0 && y < IMAGE && !covered[y * IMAGE + x]++)
            inside++;
    }
    cr_log_info("lent device: %u particles, %d recorded steps equal to sinew_body_step's, lowest %.3f m; "
                "normals within %.2g of the CPU's; picture: %u lit pixels where the particles fall in %u",
                n, STEPS, lowest, worst_normal, lit, inside);
    cr_expect_gt(inside, 50u, "the cloth is in view");
    cr_expect_leq(abs((int)lit - (int)inside), (int)inside / 20, "the drawn cloth lights the pixels it covers");

    /* sinew goes; the application's device stays usable. */
    sinew_body_destroy(body);
    sinew_context_destroy(ctx);
    host_buffer mine = host_buffer_create(&a, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    VK_OK(vkBeginCommandBuffer(a.cmd, &begin));
    vkCmdFillBuffer(a.cmd, mine.buffer, 0, 256, 0x5157u);
    VkMemoryBarrier host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(a.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL, 0,
                         NULL);
    VK_OK(vkEndCommandBuffer(a.cmd));
    submit_and_wait(&a);
    cr_expect_eq(((const uint32_t *)mine.mapped)[63], 0x5157u, "the application's device works after sinew");
    host_buffer_destroy(&a, &mine);
    host_buffer_destroy(&a, &copy);
    host_buffer_destroy(&a, &normals);
    renderer_destroy(&a, &r);
    app_destroy(&a);
    cr_expect_eq(app_messages, 0, "validation: %u messages, the first: %s", app_messages, app_first_message);
    cr_expect_eq(sinew_errors, 0, "sinew logged %u warnings or errors", sinew_errors);
    free(expected);
    sinew_asset_destroy(asset);
}

/* Lending incomplete objects is refused with a message. */
Test(engine, incomplete_objects_refused)
{
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger.fn = on_sinew_log;
    sinew_vulkan_device lent = {0};
    sinew_context *ctx = NULL;
    uint32_t before = sinew_errors;
    cr_expect_eq(sinew_context_create_from_vulkan(&cd, &lent, &ctx), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect_null(ctx);
    cr_expect_eq(sinew_errors, before + 1, "one message names what is missing");
}

/* A world of three bodies recorded into the application's command buffer:
 * two of the asset's cloth (one batch) and one stepped by XPBD Jacobi (a
 * chain of its own), apart. Each body's state after the recorded steps is
 * its state stepped alone by sinew_body_step, to the bit; the batched
 * body's positions are read by the application at their offset in the
 * batch's buffer; validation reports nothing. */
Test(engine, lent_device_records_a_world, .timeout = 300)
{
    sinew_asset *asset = NULL;
    cr_assert_eq(sinew_asset_load(asset_path(), NULL, &asset), SINEW_RESULT_OK);
    const sinew_step_params params = sinew_step_params_default();
    const uint32_t n = sinew_asset_get_info(asset).particle_count;
    app a;
    app_create(&a);
    sinew_vulkan_device lent = {vkGetInstanceProcAddr, a.instance, a.physical, a.device, a.family, 0};
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger.fn = on_sinew_log;
    sinew_context *ctx = NULL;
    cr_assert_eq(sinew_context_create_from_vulkan(&cd, &lent, &ctx), SINEW_RESULT_OK);
    const sinew_solver solvers[3] = {SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SOLVER_XPBD_GAUSS_SEIDEL,
                                     SINEW_SOLVER_XPBD_JACOBI};
    float *xyz = malloc(sizeof *xyz * 3 * n);
    uint64_t alone[3];
    for (int k = 0; k < 3; k++) { /* each body alone, sinew_body_step */
        sinew_body_desc bd = sinew_body_desc_default();
        bd.solver = solvers[k];
        sinew_body *b = NULL;
        cr_assert_eq(sinew_body_create(ctx, asset, &bd, &b), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_read_positions(b, xyz, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++)
            xyz[3 * i] += 3.0f * k;
        cr_assert_eq(sinew_body_write_positions(b, xyz, n), SINEW_RESULT_OK);
        for (int s = 0; s < STEPS; s++)
            cr_assert_eq(sinew_body_step(b, &params), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_state_hash(b, &alone[k]), SINEW_RESULT_OK);
        sinew_body_destroy(b);
    }
    sinew_world *w = NULL;
    sinew_world_desc wd = sinew_world_desc_default();
    cr_assert_eq(sinew_world_create(ctx, &wd, &w), SINEW_RESULT_OK);
    sinew_body *body[3];
    for (int k = 0; k < 3; k++) {
        sinew_body_desc bd = sinew_body_desc_default();
        bd.solver = solvers[k];
        bd.world = w;
        cr_assert_eq(sinew_body_create(ctx, asset, &bd, &body[k]), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_read_positions(body[k], xyz, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++)
            xyz[3 * i] += 3.0f * k;
        cr_assert_eq(sinew_body_write_positions(body[k], xyz, n), SINEW_RESULT_OK);
    }
    const sinew_vulkan_buffers vb = sinew_body_get_vulkan_buffers(body[1]);
    cr_assert_eq(vb.positions_size, 16ull * n);
    cr_expect_eq(vb.positions_offset, 16ull * n, "the second cloth follows the first in their batch's buffer");
    host_buffer copy = host_buffer_create(&a, vb.positions_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    for (int s = 0; s < STEPS; s++) {
        VK_OK(vkBeginCommandBuffer(a.cmd, &begin));
        cr_assert_eq(sinew_world_record_step(w, a.cmd, &params), SINEW_RESULT_OK);
        VkBufferCopy region = {vb.positions_offset, 0, vb.positions_size};
        vkCmdCopyBuffer(a.cmd, vb.positions, copy.buffer, 1, &region);
        VkMemoryBarrier host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                                VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(a.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL,
                             0, NULL);
        VK_OK(vkEndCommandBuffer(a.cmd));
        submit_and_wait(&a);
        cr_assert_eq(sinew_world_collect_stats(w), SINEW_RESULT_OK, "step %d healthy", s);
    }
    const sinew_world_stats ws = sinew_world_get_stats(w);
    cr_expect_eq(ws.step_index, STEPS);
    cr_expect_eq(ws.chain_count, 2, "the two cloths batched, the Jacobi one its own");
    for (int k = 0; k < 3; k++) {
        uint64_t h;
        cr_assert_eq(sinew_body_state_hash(body[k], &h), SINEW_RESULT_OK);
        cr_expect_eq(h, alone[k], "body %d: %016llx recorded in a world, %016llx alone", k, (unsigned long long)h,
                     (unsigned long long)alone[k]);
    }
    cr_assert_eq(sinew_body_read_positions(body[1], xyz, n), SINEW_RESULT_OK);
    const float *got = copy.mapped;
    uint32_t differ = 0;
    for (uint32_t i = 0; i < n; i++)
        differ += memcmp(&got[4 * i], &xyz[3 * i], 12) != 0;
    cr_expect_eq(differ, 0, "the application's copy at the offset is the body's (%u of %u differ)", differ, n);
    sinew_world_destroy(w);
    sinew_context_destroy(ctx);
    host_buffer_destroy(&a, &copy);
    app_destroy(&a);
    cr_expect_eq(app_messages, 0, "validation: %u messages, the first: %s", app_messages, app_first_message);
    cr_expect_eq(sinew_errors, 0, "sinew logged %u warnings or errors", sinew_errors);
    free(xyz);
    sinew_asset_destroy(asset);
}
