/* Context: Vulkan instance and device, validation, the kernel pipelines. */
#include "gpu.h"
#include "limits.h"

#include <sinew/vulkan.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sinew_result sinew_vk_fail(sinew_context *ctx, VkResult vr, const char *call, const char *file, int line)
{
    sinew_result r = SINEW_RESULT_ERROR_VULKAN;
    if (vr == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        r = SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    else if (vr == VK_ERROR_OUT_OF_HOST_MEMORY)
        r = SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    else if (vr == VK_ERROR_DEVICE_LOST) {
        r = SINEW_RESULT_ERROR_DEVICE_LOST;
        if (ctx)
            ctx->lost = 1;
    }
    return sinew_fail(ctx ? &ctx->logger : NULL, r, "vulkan", "%s failed with VkResult %d (%s:%d)", call,
                      (int)vr, file, line);
}

sinew_context_desc sinew_context_desc_default(void)
{
    sinew_context_desc d = {0};
    d.cookie = SINEW_DESC_COOKIE;
    d.logger = sinew_logger_default();
    return d;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                   void *user)
{
    sinew_context *ctx = user;
    sinew_log_level level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? SINEW_LOG_ERROR
                                                                                       : SINEW_LOG_WARNING;
    ctx->validation_messages++;
    sinew_logf(&ctx->logger, level, data->pMessageIdName ? data->pMessageIdName : "vulkan", "%s",
               data->pMessage ? data->pMessage : "(no text)");
    return VK_FALSE;
}

static int has_layer(const char *name)
{
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, NULL);
    VkLayerProperties *layers = calloc(n ? n : 1, sizeof *layers);
    if (!layers)
        return 0;
    vkEnumerateInstanceLayerProperties(&n, layers);
    int found = 0;
    for (uint32_t i = 0; i < n; i++)
        found |= strcmp(layers[i].layerName, name) == 0;
    free(layers);
    return found;
}

static void load_instance_functions(sinew_context *ctx, PFN_vkGetInstanceProcAddr gipa);

static sinew_result create_instance(sinew_context *ctx)
{
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "sinew";
    app.pEngineName = "sinew";
    app.apiVersion = VK_API_VERSION_1_1;

    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;

    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    VkDebugUtilsMessengerCreateInfoEXT mi = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = on_validation;
    mi.pUserData = ctx;

    if (ctx->validation) {
        if (!has_layer(layers[0]))
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "context",
                              "validation requested but VK_LAYER_KHRONOS_validation is not installed "
                              "(Debian: vulkan-validationlayers)");
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = layers;
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = extensions;
        features.pNext = &mi; /* also catches messages of instance creation itself */
        ci.pNext = &features;
    }
    VK_TRY(ctx, vkCreateInstance(&ci, NULL, &ctx->instance));
    load_instance_functions(ctx, vkGetInstanceProcAddr);
    if (ctx->validation)
        VK_TRY(ctx, ctx->vki.CreateDebugUtilsMessengerEXT(ctx->instance, &mi, NULL, &ctx->messenger));
    return SINEW_RESULT_OK;
}

/* This context's instance functions, through gipa: volk's globals are not used. */
static void load_instance_functions(sinew_context *ctx, PFN_vkGetInstanceProcAddr gipa)
{
    ctx->gipa = gipa;
#define SINEW_LOAD(name) ctx->vki.name = (PFN_vk##name)gipa(ctx->instance, "vk" #name)
    SINEW_LOAD(DestroyInstance);
    SINEW_LOAD(EnumeratePhysicalDevices);
    SINEW_LOAD(GetPhysicalDeviceProperties);
    SINEW_LOAD(GetPhysicalDeviceProperties2);
    SINEW_LOAD(GetPhysicalDeviceQueueFamilyProperties);
    SINEW_LOAD(GetPhysicalDeviceMemoryProperties);
    SINEW_LOAD(CreateDevice);
    SINEW_LOAD(EnumerateDeviceExtensionProperties);
    SINEW_LOAD(GetPhysicalDeviceFeatures2);
    SINEW_LOAD(GetDeviceProcAddr);
    SINEW_LOAD(CreateDebugUtilsMessengerEXT);
    SINEW_LOAD(DestroyDebugUtilsMessengerEXT);
#undef SINEW_LOAD
}

static int compute_family(const sinew_context *ctx, VkPhysicalDevice pd, uint32_t *family)
{
    uint32_t n = 0;
    ctx->vki.GetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties q[32];
    if (n > 32)
        n = 32;
    ctx->vki.GetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
    /* Prefer a family with timestamps; any compute family will do. */
    int best = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(q[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
            continue;
        if (best < 0 || (q[i].timestampValidBits && !q[best].timestampValidBits))
            best = (int)i;
    }
    if (best < 0)
        return 0;
    *family = (uint32_t)best;
    return 1;
}

static int type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

static void describe_device(sinew_context *ctx);

static sinew_result pick_device(sinew_context *ctx, const char *want)
{
    uint32_t n = 0;
    VK_TRY(ctx, ctx->vki.EnumeratePhysicalDevices(ctx->instance, &n, NULL));
    if (n == 0)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_NO_DEVICE, "context", "no Vulkan device found");
    if (n > 16)
        n = 16;
    VkPhysicalDevice pds[16];
    VkResult vr = ctx->vki.EnumeratePhysicalDevices(ctx->instance, &n, pds);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE)
        return sinew_vk_fail(ctx, vr, "vkEnumeratePhysicalDevices", __FILE__, __LINE__);

    char *end = NULL;
    long index = (want && *want) ? strtol(want, &end, 10) : -1;
    int by_index = want && *want && end && *end == '\0';
    int chosen = -1;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        ctx->vki.GetPhysicalDeviceProperties(pds[i], &p);
        uint32_t family;
        int usable = p.apiVersion >= VK_API_VERSION_1_1 && compute_family(ctx, pds[i], &family);
        sinew_logf(&ctx->logger, SINEW_LOG_DEBUG, "context", "device %u: %s%s", i, p.deviceName,
                   usable ? "" : " (unusable: needs Vulkan 1.1 and a compute queue)");
        if (!usable)
            continue;
        if (want && *want) {
            if ((by_index && (long)i == index) || (!by_index && strstr(p.deviceName, want))) {
                chosen = (int)i;
                break;
            }
            continue;
        }
        if (chosen < 0) {
            chosen = (int)i;
        } else {
            VkPhysicalDeviceProperties best;
            ctx->vki.GetPhysicalDeviceProperties(pds[chosen], &best);
            if (type_rank(p.deviceType) < type_rank(best.deviceType))
                chosen = (int)i;
        }
    }
    if (chosen < 0)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_NO_DEVICE, "context",
                          want && *want ? "no usable Vulkan device matches \"%s\" (%u devices present)"
                                        : "no Vulkan 1.1 device with a compute queue%s (%u devices present)",
                          want && *want ? want : "", n);
    ctx->physical = pds[chosen];
    compute_family(ctx, ctx->physical, &ctx->queue_family);
    describe_device(ctx);
    return SINEW_RESULT_OK;
}

/* Properties, memory types, the queue family's flags and timestamps, and the
 * driver's name, of ctx->physical and ctx->queue_family. */
static void describe_device(sinew_context *ctx)
{
    ctx->vki.GetPhysicalDeviceProperties(ctx->physical, &ctx->props);
    ctx->vki.GetPhysicalDeviceMemoryProperties(ctx->physical, &ctx->memory_props);
    ctx->limits = ctx->props.limits;
    if (ctx->portable)
        sinew_limits_clamp_portable(&ctx->limits);
    uint32_t qn = 0;
    ctx->vki.GetPhysicalDeviceQueueFamilyProperties(ctx->physical, &qn, NULL);
    VkQueueFamilyProperties q[32];
    if (qn > 32)
        qn = 32;
    ctx->vki.GetPhysicalDeviceQueueFamilyProperties(ctx->physical, &qn, q);
    ctx->timestamp_bits = ctx->queue_family < qn ? q[ctx->queue_family].timestampValidBits : 0;
    ctx->queue_flags = ctx->queue_family < qn ? q[ctx->queue_family].queueFlags : 0;

    snprintf(ctx->driver, sizeof ctx->driver, "%u.%u.%u", VK_API_VERSION_MAJOR(ctx->props.driverVersion),
             VK_API_VERSION_MINOR(ctx->props.driverVersion), VK_API_VERSION_PATCH(ctx->props.driverVersion));
    if (ctx->props.apiVersion >= VK_API_VERSION_1_2) {
        VkPhysicalDeviceDriverProperties dp = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
        VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &dp};
        ctx->vki.GetPhysicalDeviceProperties2(ctx->physical, &p2);
        snprintf(ctx->driver, sizeof ctx->driver, "%.120s %.120s", dp.driverName, dp.driverInfo);
    }
    sinew_logf(&ctx->logger, SINEW_LOG_INFO, "context", "device: %s (%s)%s%s", ctx->props.deviceName, ctx->driver,
               ctx->borrowed ? ", the application's" : "",
               ctx->portable ? ", within the portable limits (Android Baseline 2022)" : "");
}

static void load_device_functions(sinew_context *ctx, uint32_t queue_index);

static int has_device_extension(const sinew_context *ctx, const char *name)
{
    uint32_t n = 0;
    if (ctx->vki.EnumerateDeviceExtensionProperties(ctx->physical, NULL, &n, NULL) != VK_SUCCESS || n == 0)
        return 0;
    VkExtensionProperties *e = malloc(sizeof *e * n);
    int found = 0;
    if (e && ctx->vki.EnumerateDeviceExtensionProperties(ctx->physical, NULL, &n, e) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(e[i].extensionName, name) == 0;
    free(e);
    return found;
}

static sinew_result create_device(sinew_context *ctx)
{
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = ctx->queue_family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo ci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qi;
    /* Conditional rendering, where the device has it (not within the
     * portable limits: the Android baseline lacks it): a converged solve's
     * remaining dispatches are skipped by the device rather than launched. */
    VkPhysicalDeviceConditionalRenderingFeaturesEXT cond = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CONDITIONAL_RENDERING_FEATURES_EXT};
    const char *extensions[] = {VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME};
    if (!ctx->portable && has_device_extension(ctx, VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME)) {
        VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &cond};
        ctx->vki.GetPhysicalDeviceFeatures2(ctx->physical, &f2);
        if (cond.conditionalRendering) {
            cond.inheritedConditionalRendering = VK_FALSE;
            ci.pNext = &cond;
            ci.enabledExtensionCount = 1;
            ci.ppEnabledExtensionNames = extensions;
            ctx->conditional = 1;
        }
    }
    VK_TRY(ctx, ctx->vki.CreateDevice(ctx->physical, &ci, NULL, &ctx->device));
    load_device_functions(ctx, 0);
    return SINEW_RESULT_OK;
}

/* This context's device functions and its queue. volkLoadDeviceTable
 * resolves through volk's global vkGetDeviceProcAddr (sinew's own copy of
 * volk; the application's is never touched): set to this instance's for the
 * call. */
static void load_device_functions(sinew_context *ctx, uint32_t queue_index)
{
    PFN_vkGetDeviceProcAddr saved = vkGetDeviceProcAddr;
    vkGetDeviceProcAddr = ctx->vki.GetDeviceProcAddr;
    volkLoadDeviceTable(&ctx->vk, ctx->device);
    vkGetDeviceProcAddr = saved ? saved : ctx->vki.GetDeviceProcAddr;
    ctx->queue_index = queue_index;
    ctx->vk.vkGetDeviceQueue(ctx->device, ctx->queue_family, queue_index, &ctx->queue);
}

/* How messages name the limits in effect. */
static const char *limits_name(const sinew_context *ctx)
{
    return ctx->portable ? "the portable limits (Android Baseline 2022, or this device's where lower)"
                         : "this device's limits";
}

/* desc.memory, or for SINEW_MEMORY_MODEL_DEFAULT the SINEW_MEMORY environment
 * variable; -1 (logged) when neither names a model. */
static int resolve_memory(const sinew_context_desc *desc)
{
    if (desc->memory == SINEW_MEMORY_MODEL_DEVICE || desc->memory == SINEW_MEMORY_MODEL_DISCRETE)
        return desc->memory;
    if (desc->memory != SINEW_MEMORY_MODEL_DEFAULT) {
        sinew_fail(&desc->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "context",
                   "desc.memory is %d; expected SINEW_MEMORY_MODEL_DEFAULT, _DEVICE or _DISCRETE", desc->memory);
        return -1;
    }
    const char *env = getenv("SINEW_MEMORY");
    if (!env || !*env || strcmp(env, "device") == 0)
        return SINEW_MEMORY_MODEL_DEVICE;
    if (strcmp(env, "discrete") == 0)
        return SINEW_MEMORY_MODEL_DISCRETE;
    sinew_fail(&desc->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "context",
               "SINEW_MEMORY is \"%s\"; expected \"discrete\" or \"device\"", env);
    return -1;
}

/* desc.limits, or for SINEW_LIMITS_DEFAULT the SINEW_LIMITS environment
 * variable: 1 portable, 0 the device's, -1 (logged) neither. */
static int resolve_limits(const sinew_context_desc *desc)
{
    if (desc->limits == SINEW_LIMITS_DEVICE || desc->limits == SINEW_LIMITS_PORTABLE)
        return desc->limits == SINEW_LIMITS_PORTABLE;
    if (desc->limits != SINEW_LIMITS_DEFAULT) {
        sinew_fail(&desc->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "context",
                   "desc.limits is %d; expected SINEW_LIMITS_DEFAULT, _DEVICE or _PORTABLE", desc->limits);
        return -1;
    }
    const char *env = getenv("SINEW_LIMITS");
    if (!env || !*env || strcmp(env, "device") == 0)
        return 0;
    if (strcmp(env, "portable") == 0)
        return 1;
    sinew_fail(&desc->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "context",
               "SINEW_LIMITS is \"%s\"; expected \"portable\" or \"device\"", env);
    return -1;
}

static sinew_result create_pipelines(sinew_context *ctx)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = ctx->queue_family;
    VK_TRY(ctx, vk->vkCreateCommandPool(ctx->device, &pi, NULL, &ctx->command_pool));
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = ctx->command_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VK_TRY(ctx, vk->vkAllocateCommandBuffers(ctx->device, &ai, &ctx->transfer_cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_TRY(ctx, vk->vkCreateFence(ctx->device, &fi, NULL, &ctx->transfer_fence));

    /* One binding model for every kernel: the body's set, the solver's set,
     * one push range. */
    const VkPhysicalDeviceLimits *lim = &ctx->limits;
    const char *whose = limits_name(ctx);
    const uint32_t bound = SINEW_BODY_BINDINGS + SINEW_SOLVER_BINDINGS;
    if (lim->maxPerStageDescriptorStorageBuffers < bound || lim->maxDescriptorSetStorageBuffers < bound ||
        lim->maxPerStageResources < bound || lim->maxBoundDescriptorSets < 2)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "context",
                          "%s allow %u storage buffers per stage, %u in all sets, %u resources per stage and %u "
                          "bound sets; sinew's kernels bind %u in 2 sets (%s)", whose,
                          lim->maxPerStageDescriptorStorageBuffers, lim->maxDescriptorSetStorageBuffers,
                          lim->maxPerStageResources, lim->maxBoundDescriptorSets, bound, ctx->props.deviceName);
    if (lim->maxPushConstantsSize < SINEW_PUSH_BYTES)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "context",
                          "%s allow %u bytes of push constants; sinew's kernels read %u", whose,
                          lim->maxPushConstantsSize, (unsigned)SINEW_PUSH_BYTES);
    for (int k = 0; k < SINEW_KERNEL_COUNT; k++) {
        const sinew_kernel_info *ki = &sinew_kernels[k];
        sinew_result r = sinew_kernel_check(&ctx->logger, ki->name, ki->spirv, ki->spirv_size, ki->push_size, lim,
                                            whose);
        if (r != SINEW_RESULT_OK)
            return r;
    }
    const uint32_t set_size[2] = {SINEW_BODY_BINDINGS, SINEW_SOLVER_BINDINGS};
    for (int set = 0; set < 2; set++) {
        VkDescriptorSetLayoutBinding bindings[SINEW_BODY_BINDINGS + SINEW_SOLVER_BINDINGS];
        for (uint32_t i = 0; i < set_size[set]; i++)
            bindings[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                         VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        VkDescriptorSetLayoutCreateInfo li = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        li.bindingCount = set_size[set];
        li.pBindings = bindings;
        VK_TRY(ctx, vk->vkCreateDescriptorSetLayout(ctx->device, &li, NULL, &ctx->set_layouts[set]));
    }
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, SINEW_PUSH_BYTES};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 2;
    pli.pSetLayouts = ctx->set_layouts;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &push;
    VK_TRY(ctx, vk->vkCreatePipelineLayout(ctx->device, &pli, NULL, &ctx->pipeline_layout));

    for (int k = 0; k < SINEW_KERNEL_COUNT; k++) {
        VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        mi.codeSize = sinew_kernels[k].spirv_size;
        mi.pCode = sinew_kernels[k].spirv;
        VkShaderModule module;
        VK_TRY(ctx, vk->vkCreateShaderModule(ctx->device, &mi, NULL, &module));
        VkComputePipelineCreateInfo ci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        ci.stage = (VkPipelineShaderStageCreateInfo){VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci.stage.module = module;
        ci.stage.pName = "main";
        ci.layout = ctx->pipeline_layout;
        VkResult vr = vk->vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &ci, NULL, &ctx->pipelines[k]);
        vk->vkDestroyShaderModule(ctx->device, module, NULL);
        if (vr != VK_SUCCESS) {
            sinew_logf(&ctx->logger, SINEW_LOG_ERROR, "context", "pipeline for kernel %s", sinew_kernels[k].name);
            return sinew_vk_fail(ctx, vr, "vkCreateComputePipelines", __FILE__, __LINE__);
        }
    }
    ctx->empty = calloc(1, sizeof *ctx->empty);
    if (!ctx->empty)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "context", "out of host memory");
    static const uint8_t zero[16];
    sinew_result r = sinew_buffer_create(ctx, 16, SINEW_MEMORY_DEVICE, "empty binding", ctx->empty);
    return r == SINEW_RESULT_OK ? sinew_buffer_upload(ctx, ctx->empty, 0, zero, sizeof zero) : r;
}

sinew_result sinew_context_create(const sinew_context_desc *desc, sinew_context **out)
{
    SINEW_ASSERT(desc && out);
    SINEW_ASSERT(desc->cookie == SINEW_DESC_COOKIE && "desc must come from sinew_context_desc_default");
    *out = NULL;
    const int portable = resolve_limits(desc), memory = resolve_memory(desc);
    if (portable < 0 || memory < 0)
        return SINEW_RESULT_ERROR_INVALID_ARGUMENT;
    sinew_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return sinew_fail(&desc->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "context", "out of host memory");
    ctx->portable = portable;
    ctx->logger = desc->logger;
    ctx->validation = desc->validation;
    ctx->memory_model = memory;
    ctx->device_memory_limit = desc->device_memory_limit;

    sinew_result r;
    if (volkInitialize() != VK_SUCCESS) {
        r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_NO_VULKAN, "context",
                       "could not load the Vulkan loader (libvulkan.so.1; Debian: libvulkan1)");
        free(ctx);
        return r;
    }
    if (volkGetInstanceVersion() < VK_API_VERSION_1_1) {
        r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "context", "the Vulkan loader is older than 1.1");
        free(ctx);
        return r;
    }
    const char *want = desc->device && *desc->device ? desc->device : getenv("SINEW_DEVICE");
    if ((r = create_instance(ctx)) != SINEW_RESULT_OK || (r = pick_device(ctx, want)) != SINEW_RESULT_OK ||
        (r = create_device(ctx)) != SINEW_RESULT_OK || (r = create_pipelines(ctx)) != SINEW_RESULT_OK) {
        sinew_context_destroy(ctx);
        return r;
    }
    *out = ctx;
    return SINEW_RESULT_OK;
}

sinew_result sinew_context_create_from_vulkan(const sinew_context_desc *desc, const sinew_vulkan_device *app,
                                              sinew_context **out)
{
    SINEW_ASSERT(desc && app && out);
    SINEW_ASSERT(desc->cookie == SINEW_DESC_COOKIE && "desc must come from sinew_context_desc_default");
    *out = NULL;
    if (!app->instance || !app->physical_device || !app->device)
        return sinew_fail(&desc->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "context",
                          "the lent Vulkan objects lack %s", !app->instance ? "the instance"
                                                             : !app->physical_device ? "the physical device"
                                                                                     : "the device");
    PFN_vkGetInstanceProcAddr gipa = app->get_instance_proc_addr;
    if (!gipa) {
        if (volkInitialize() != VK_SUCCESS)
            return sinew_fail(&desc->logger, SINEW_RESULT_ERROR_NO_VULKAN, "context",
                              "could not load the Vulkan loader (libvulkan.so.1; Debian: libvulkan1), and no "
                              "get_instance_proc_addr was given");
        gipa = vkGetInstanceProcAddr;
    }
    const int portable = resolve_limits(desc), memory = resolve_memory(desc);
    if (portable < 0 || memory < 0)
        return SINEW_RESULT_ERROR_INVALID_ARGUMENT;
    sinew_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return sinew_fail(&desc->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "context", "out of host memory");
    ctx->portable = portable;
    ctx->logger = desc->logger;
    ctx->memory_model = memory;
    ctx->device_memory_limit = desc->device_memory_limit;
    ctx->borrowed = 1;
    ctx->instance = app->instance;
    ctx->physical = app->physical_device;
    ctx->device = app->device;
    ctx->queue_family = app->queue_family;
    load_instance_functions(ctx, gipa);
    sinew_result r = SINEW_RESULT_OK;
    if (!ctx->vki.GetPhysicalDeviceProperties || !ctx->vki.GetDeviceProcAddr)
        r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "context",
                       "get_instance_proc_addr gives no vkGetPhysicalDeviceProperties for the lent instance");
    if (r == SINEW_RESULT_OK) {
        describe_device(ctx);
        uint32_t families = 0;
        ctx->vki.GetPhysicalDeviceQueueFamilyProperties(ctx->physical, &families, NULL);
        if (ctx->props.apiVersion < VK_API_VERSION_1_1)
            r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "context",
                           "the lent device %s is Vulkan %u.%u; sinew needs 1.1", ctx->props.deviceName,
                           VK_API_VERSION_MAJOR(ctx->props.apiVersion), VK_API_VERSION_MINOR(ctx->props.apiVersion));
        else if (app->queue_family >= families || !(ctx->queue_flags & VK_QUEUE_COMPUTE_BIT))
            r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "context",
                           "queue family %u of %s %s", app->queue_family, ctx->props.deviceName,
                           app->queue_family >= families ? "does not exist" : "has no compute");
    }
    if (r == SINEW_RESULT_OK) {
        load_device_functions(ctx, app->queue_index);
        if (!ctx->queue)
            r = sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "context",
                           "the lent device has no queue %u in family %u", app->queue_index, app->queue_family);
    }
    if (r == SINEW_RESULT_OK)
        r = create_pipelines(ctx);
    if (r != SINEW_RESULT_OK) {
        sinew_context_destroy(ctx);
        return r;
    }
    if (desc->validation || (desc->device && *desc->device))
        sinew_logf(&ctx->logger, SINEW_LOG_INFO, "context",
                   "desc.validation and desc.device do not apply to a lent device: the application's layers and "
                   "choice stand");
    *out = ctx;
    return SINEW_RESULT_OK;
}

sinew_vulkan_device sinew_context_get_vulkan(const sinew_context *ctx)
{
    SINEW_ASSERT(ctx);
    return (sinew_vulkan_device){ctx->gipa, ctx->instance, ctx->physical, ctx->device, ctx->queue_family,
                                 ctx->queue_index};
}

void sinew_context_destroy(sinew_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->device) {
        const struct VolkDeviceTable *vk = &ctx->vk;
        if (!ctx->lost && !ctx->borrowed)
            vk->vkDeviceWaitIdle(ctx->device); /* a lent device runs the application's work too */
        for (int k = 0; k < SINEW_KERNEL_COUNT; k++)
            if (ctx->pipelines[k])
                vk->vkDestroyPipeline(ctx->device, ctx->pipelines[k], NULL);
        if (ctx->pipeline_layout)
            vk->vkDestroyPipelineLayout(ctx->device, ctx->pipeline_layout, NULL);
        for (int set = 0; set < 2; set++)
            if (ctx->set_layouts[set])
                vk->vkDestroyDescriptorSetLayout(ctx->device, ctx->set_layouts[set], NULL);
        if (ctx->empty) {
            sinew_buffer_destroy(ctx, ctx->empty);
            free(ctx->empty);
        }
        sinew_staging_destroy(ctx);
        if (ctx->transfer_fence)
            vk->vkDestroyFence(ctx->device, ctx->transfer_fence, NULL);
        if (ctx->command_pool)
            vk->vkDestroyCommandPool(ctx->device, ctx->command_pool, NULL);
        if (!ctx->borrowed)
            vk->vkDestroyDevice(ctx->device, NULL);
    }
    if (ctx->messenger)
        ctx->vki.DestroyDebugUtilsMessengerEXT(ctx->instance, ctx->messenger, NULL);
    if (ctx->instance && !ctx->borrowed)
        ctx->vki.DestroyInstance(ctx->instance, NULL);
    free(ctx);
}

sinew_device_info sinew_context_get_device_info(const sinew_context *ctx)
{
    SINEW_ASSERT(ctx);
    sinew_device_info info = {0};
    snprintf(info.name, sizeof info.name, "%s", ctx->props.deviceName);
    snprintf(info.driver, sizeof info.driver, "%s", ctx->driver);
    info.vendor_id = ctx->props.vendorID;
    info.device_id = ctx->props.deviceID;
    info.api_version = ctx->props.apiVersion;
    info.type = (int)ctx->props.deviceType;
    info.timestamp_period_ns = ctx->timestamp_bits ? ctx->props.limits.timestampPeriod : 0.0f;
    info.limits = ctx->portable ? SINEW_LIMITS_PORTABLE : SINEW_LIMITS_DEVICE;
    info.max_storage_buffer_range = ctx->limits.maxStorageBufferRange;
    info.max_workgroup_invocations = ctx->limits.maxComputeWorkGroupInvocations;
    info.max_shared_memory = ctx->limits.maxComputeSharedMemorySize;
    info.max_push_constants = ctx->limits.maxPushConstantsSize;
    info.max_storage_buffers_per_stage = ctx->limits.maxPerStageDescriptorStorageBuffers;
    info.max_workgroup_count = ctx->limits.maxComputeWorkGroupCount[0];
    return info;
}

void sinew_context_set_device_memory_limit(sinew_context *ctx, uint64_t bytes)
{
    SINEW_ASSERT(ctx);
    ctx->device_memory_limit = bytes;
}

int sinew_context_is_lost(const sinew_context *ctx)
{
    SINEW_ASSERT(ctx);
    return ctx->lost;
}

void sinew_context_inject_device_loss(sinew_context *ctx) { ctx->inject_device_loss = 1; }

sinew_result sinew_context_refuse_lost(sinew_context *ctx)
{
    return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_DEVICE_LOST, "context",
                      "the device was lost earlier: destroy this context and restore on a new one");
}

sinew_result sinew_submit_many(sinew_context *ctx, const VkCommandBuffer *cmds, uint32_t count, VkFence fence)
{
    const struct VolkDeviceTable *vk = &ctx->vk;
    if (ctx->lost)
        return sinew_context_refuse_lost(ctx);
    if (ctx->inject_device_loss) {
        ctx->inject_device_loss = 0;
        return sinew_vk_fail(ctx, VK_ERROR_DEVICE_LOST, "vkQueueSubmit (injected fault)", __FILE__, __LINE__);
    }
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = count;
    si.pCommandBuffers = cmds;
    VK_TRY(ctx, vk->vkResetFences(ctx->device, 1, &fence));
    VK_TRY(ctx, vk->vkQueueSubmit(ctx->queue, 1, &si, fence));
    ctx->counters.submits++;
    return SINEW_RESULT_OK;
}

sinew_result sinew_submit(sinew_context *ctx, VkCommandBuffer cmd, VkFence fence)
{
    return sinew_submit_many(ctx, &cmd, 1, fence);
}

sinew_result sinew_submit_and_wait(sinew_context *ctx, VkCommandBuffer cmd, VkFence fence)
{
    sinew_result r = sinew_submit(ctx, cmd, fence);
    if (r != SINEW_RESULT_OK)
        return r;
    VK_TRY(ctx, ctx->vk.vkWaitForFences(ctx->device, 1, &fence, VK_TRUE, UINT64_MAX));
    ctx->counters.host_waits++;
    return SINEW_RESULT_OK;
}

uint64_t sinew_context_get_device_memory(const sinew_context *ctx)
{
    SINEW_ASSERT(ctx);
    return ctx->device_memory;
}

uint32_t sinew_context_get_allocation_count(const sinew_context *ctx)
{
    SINEW_ASSERT(ctx);
    return ctx->allocations;
}

uint32_t sinew_context_get_validation_message_count(const sinew_context *ctx)
{
    SINEW_ASSERT(ctx);
    return ctx->validation_messages;
}
