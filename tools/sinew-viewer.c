/* sinew-viewer: a window on a running simulation (GLFW, optional build).
 *
 * The viewer is the application: it creates the Vulkan instance (with the
 * window system's extensions), a device with a swapchain, and lends them to
 * sinew (sinew_context_create_from_vulkan); every frame it steps the body and
 * draws it from sinew's buffers (tools/render.c) into the window.
 *
 *   right mouse drag   orbit        wheel    zoom
 *   left mouse drag    pull a particle (held where the mouse puts it)
 *   space              pause / run  N        one step
 *   1 2 3              XPBD Gauss-Seidel, symmetric Gauss-Seidel, Jacobi
 *                      (finite elements: 1 2 3 GPBD Gauss-Seidel, Jacobi, MGPBD)
 *   Q, Esc             quit
 *
 * An asset with an origin (sinew-prep --translate) is shown in the body's
 * own frame, its ground a quarter of its size below it as for any asset:
 * the window follows the body wherever its origin puts it in the world, as
 * an engine draws camera-relative, and the float positions stay precise.
 *
 * A soft body is drawn by its boundary triangles, which the asset carries
 * beside its tetrahedra, as sinew-sim draws it; the default scene, an asset's
 * solver and ground are sinew-sim's (scene.h).
 */
#define _POSIX_C_SOURCE 200809L
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sinew/sinew.h>
#include <sinew/vulkan.h>

#include "asset/asset.h"
#include "cli.h"
#include "render.h"
#include "scene.h"

/* GLFW's declaration, written out: glfw3.h declares it only with vulkan.h,
 * whose prototypes volk replaces. */
VkResult glfwCreateWindowSurface(VkInstance instance, GLFWwindow *window, const VkAllocationCallbacks *allocator,
                                 VkSurfaceKHR *surface);

static const char *const usage =
    "usage: sinew-viewer [ASSET.snw] [options]\n"
    "\n"
    "Shows a simulation in a window: the asset (cloth or a soft body), or the\n"
    "default scene (a 64 x 64 cloth pinned at two corners falling onto a sphere\n"
    "and the ground). Right drag orbits, the wheel zooms, left drag pulls a\n"
    "particle, space pauses, N steps once, 1/2/3 switch between XPBD\n"
    "Gauss-Seidel, symmetric Gauss-Seidel and Jacobi (finite elements: 1/2/3\n"
    "between GPBD Gauss-Seidel, Jacobi and MGPBD, tetrahedra only), Q quits.\n"
    "\n";

/* The solvers keys 1, 2 and 3 switch to: for cloth and spring networks, and
 * for finite elements (soft bodies, membranes), which GPBD simulates (and
 * MGPBD, tetrahedra only). */
static const sinew_solver key_solvers[3] = {SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL,
                                            SINEW_SOLVER_XPBD_JACOBI};
static const sinew_solver key_solvers_elements[3] = {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, SINEW_SOLVER_GPBD_JACOBI,
                                                     SINEW_SOLVER_MGPBD};

typedef struct viewer {
    GLFWwindow *window;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkSurfaceKHR surface;
    VkPhysicalDevice physical;
    uint32_t family;
    VkDevice device;
    VkQueue queue;
    VkSwapchainKHR swapchain;
    VkImage images[8];
    uint32_t image_count, width, height;
    VkSemaphore acquired, rendered;
    sinew_context *ctx;
    const sinew_asset *asset;
    sinew_body *body;
    render *renderer;
    sinew_solver solver;
    render_camera camera;
    float yaw, pitch, distance;
    int paused, step_once;
    double mouse[2];
    int orbiting;
    int held;          /* particle pulled with the mouse, -1: none */
    int elements;      /* the asset has finite elements: GPBD solvers (and MGPBD for tetrahedra) only */
    int membrane;      /* ... of other kinds than tetrahedra: GPBD only */
    const char *screenshot; /* the window's last image goes there */
    int bgra;          /* the window's images hold blue first */
    float held_depth;  /* its depth along the view direction */
} viewer;

static unsigned messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    messages++;
    fprintf(stderr, "sinew-viewer: validation: %s\n", data->pMessage);
    return VK_FALSE;
}

#define VK_CHECK(call)                                                           \
    do {                                                                         \
        VkResult check_ = (call);                                                \
        if (check_ != VK_SUCCESS) {                                              \
            fprintf(stderr, "sinew-viewer: %s failed (%d)\n", #call, check_);    \
            return 0;                                                            \
        }                                                                        \
    } while (0)

static int create_vulkan(viewer *v, int validation)
{
    if (volkInitialize() != VK_SUCCESS) {
        fprintf(stderr, "sinew-viewer: no Vulkan loader (libvulkan1)\n");
        return 0;
    }
    uint32_t glfw_count = 0;
    const char **glfw_ext = glfwGetRequiredInstanceExtensions(&glfw_count);
    if (!glfw_ext) {
        fprintf(stderr, "sinew-viewer: the window system offers no Vulkan surface\n");
        return 0;
    }
    const char *ext[16];
    uint32_t count = 0;
    for (uint32_t i = 0; i < glfw_count && count < 15; i++)
        ext[count++] = glfw_ext[i];
    if (validation)
        ext[count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    VkApplicationInfo ai = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    ai.pApplicationName = "sinew-viewer";
    ai.apiVersion = VK_API_VERSION_1_1;
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &ai;
    ci.enabledExtensionCount = count;
    ci.ppEnabledExtensionNames = ext;
    if (validation) {
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = layers;
        ci.pNext = &features;
    }
    VK_CHECK(vkCreateInstance(&ci, NULL, &v->instance));
    volkLoadInstanceOnly(v->instance);
    if (validation) {
        VkDebugUtilsMessengerCreateInfoEXT mi = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        mi.messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
        mi.pfnUserCallback = on_message;
        VK_CHECK(vkCreateDebugUtilsMessengerEXT(v->instance, &mi, NULL, &v->messenger));
    }
    VK_CHECK(glfwCreateWindowSurface(v->instance, v->window, NULL, &v->surface));

    VkPhysicalDevice devices[8];
    uint32_t n = 8;
    VkResult vr = vkEnumeratePhysicalDevices(v->instance, &n, devices);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE)
        return 0;
    v->physical = VK_NULL_HANDLE;
    for (uint32_t d = 0; d < n && !v->physical; d++) {
        VkQueueFamilyProperties q[16];
        uint32_t qn = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &qn, q);
        for (uint32_t f = 0; f < qn && !v->physical; f++) {
            VkBool32 present = VK_FALSE;
            vkGetPhysicalDeviceSurfaceSupportKHR(devices[d], f, v->surface, &present);
            if (present && (q[f].queueFlags & VK_QUEUE_GRAPHICS_BIT) && (q[f].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
                v->physical = devices[d];
                v->family = f;
            }
        }
    }
    if (!v->physical) {
        fprintf(stderr, "sinew-viewer: no device can draw into this window and compute\n");
        return 0;
    }
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = v->family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    const char *device_ext[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
    VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.enabledExtensionCount = 1;
    di.ppEnabledExtensionNames = device_ext;
    VK_CHECK(vkCreateDevice(v->physical, &di, NULL, &v->device));
    volkLoadDevice(v->device);
    vkGetDeviceQueue(v->device, v->family, 0, &v->queue);

    VkSurfaceCapabilitiesKHR caps;
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(v->physical, v->surface, &caps));
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT) ||
        (v->screenshot && !(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT))) {
        fprintf(stderr, "sinew-viewer: the window's images cannot be drawn into by a blit%s\n",
                v->screenshot ? " and read back" : "");
        return 0;
    }
    VkSurfaceFormatKHR formats[32];
    uint32_t fn = 32;
    vr = vkGetPhysicalDeviceSurfaceFormatsKHR(v->physical, v->surface, &fn, formats);
    if ((vr != VK_SUCCESS && vr != VK_INCOMPLETE) || fn == 0)
        return 0;
    VkSurfaceFormatKHR format = formats[0];
    for (uint32_t i = 0; i < fn; i++)
        if (formats[i].format == VK_FORMAT_B8G8R8A8_UNORM || formats[i].format == VK_FORMAT_R8G8B8A8_UNORM)
            format = formats[i];
    if (caps.currentExtent.width != UINT32_MAX) {
        v->width = caps.currentExtent.width;
        v->height = caps.currentExtent.height;
    }
    VkSwapchainCreateInfoKHR si = {VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    si.surface = v->surface;
    si.minImageCount = caps.minImageCount + 1 <= caps.maxImageCount || !caps.maxImageCount ? caps.minImageCount + 1
                                                                                           : caps.minImageCount;
    si.imageFormat = format.format;
    si.imageColorSpace = format.colorSpace;
    si.imageExtent = (VkExtent2D){v->width, v->height};
    si.imageArrayLayers = 1;
    si.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | (v->screenshot ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0);
    v->bgra = format.format == VK_FORMAT_B8G8R8A8_UNORM || format.format == VK_FORMAT_B8G8R8A8_SRGB;
    si.preTransform = caps.currentTransform;
    si.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    si.presentMode = VK_PRESENT_MODE_FIFO_KHR;
    si.clipped = VK_TRUE;
    VK_CHECK(vkCreateSwapchainKHR(v->device, &si, NULL, &v->swapchain));
    v->image_count = 8;
    VK_CHECK(vkGetSwapchainImagesKHR(v->device, v->swapchain, &v->image_count, v->images));
    VkSemaphoreCreateInfo sci = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VK_CHECK(vkCreateSemaphore(v->device, &sci, NULL, &v->acquired));
    VK_CHECK(vkCreateSemaphore(v->device, &sci, NULL, &v->rendered));
    return 1;
}

static void destroy_vulkan(viewer *v)
{
    if (v->device) {
        vkDeviceWaitIdle(v->device);
        if (v->acquired)
            vkDestroySemaphore(v->device, v->acquired, NULL);
        if (v->rendered)
            vkDestroySemaphore(v->device, v->rendered, NULL);
        if (v->swapchain)
            vkDestroySwapchainKHR(v->device, v->swapchain, NULL);
        vkDestroyDevice(v->device, NULL);
    }
    if (v->surface)
        vkDestroySurfaceKHR(v->instance, v->surface, NULL);
    if (v->messenger)
        vkDestroyDebugUtilsMessengerEXT(v->instance, v->messenger, NULL);
    if (v->instance)
        vkDestroyInstance(v->instance, NULL);
}

/* The body (and its renderer) with v->solver, from positions xyz if given. */
static int make_body(viewer *v, const float *xyz)
{
    render_destroy(v->renderer);
    sinew_body_destroy(v->body);
    v->renderer = NULL;
    v->body = NULL;
    v->held = -1;
    sinew_body_desc bd = sinew_body_desc_default();
    bd.solver = v->solver;
    bd.substeps = 16;
    bd.health_check = 1;
    sinew_result r = sinew_body_create(v->ctx, v->asset, &bd, &v->body);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-viewer: cannot create the body: %s\n", sinew_result_string(r));
        return 0;
    }
    uint32_t n = sinew_body_get_particle_count(v->body);
    if (xyz && sinew_body_write_positions(v->body, xyz, n) != SINEW_RESULT_OK)
        return 0;
    uint32_t tri_count = 0;
    const uint32_t *tris = sinew_asset_get_triangles(v->asset, &tri_count);
    v->renderer = render_create(v->ctx, v->body, tris, tri_count, v->width, v->height);
    return v->renderer != NULL;
}

static void update_camera(viewer *v)
{
    v->camera.eye[0] = v->camera.target[0] + v->distance * cosf(v->pitch) * sinf(v->yaw);
    v->camera.eye[1] = v->camera.target[1] + v->distance * sinf(v->pitch);
    v->camera.eye[2] = v->camera.target[2] + v->distance * cosf(v->pitch) * cosf(v->yaw);
}

/* Window coordinates of world point p; 0 when behind the camera. */
static int project(const viewer *v, const float p[3], float out[2], float *depth)
{
    float m[16];
    render_view_projection(&v->camera, (float)v->width / (float)v->height, m);
    float c[4];
    for (int row = 0; row < 4; row++)
        c[row] = m[row] * p[0] + m[4 + row] * p[1] + m[8 + row] * p[2] + m[12 + row];
    if (c[3] <= 0)
        return 0;
    out[0] = (c[0] / c[3] * 0.5f + 0.5f) * v->width;
    out[1] = (c[1] / c[3] * 0.5f + 0.5f) * v->height;
    *depth = c[3];
    return 1;
}

/* The world point under window position (x, y) at clip depth w. */
static void unproject(const viewer *v, double x, double y, float w, float out[3])
{
    /* The camera's frame: the view ray through the pixel, scaled to depth w
     * along the view direction. */
    float f[3] = {v->camera.target[0] - v->camera.eye[0], v->camera.target[1] - v->camera.eye[1],
                  v->camera.target[2] - v->camera.eye[2]};
    float len = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int k = 0; k < 3; k++)
        f[k] /= len;
    float s[3] = {f[1] * 0 - f[2] * 1, f[2] * 0 - f[0] * 0, f[0] * 1 - f[1] * 0}; /* f x up */
    float sl = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int k = 0; k < 3; k++)
        s[k] /= sl;
    float u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
    float t = tanf(v->camera.fov_deg * 3.14159265f / 360.0f), aspect = (float)v->width / (float)v->height;
    float nx = (float)(x / v->width * 2 - 1), ny = (float)(y / v->height * 2 - 1);
    for (int k = 0; k < 3; k++)
        out[k] = v->camera.eye[k] + w * (f[k] + nx * t * aspect * s[k] - ny * t * u[k]);
}

static void grab(viewer *v, double x, double y)
{
    uint32_t n = sinew_body_get_particle_count(v->body);
    float *xyz = malloc(sizeof *xyz * 3 * n);
    if (!xyz || sinew_body_read_positions(v->body, xyz, n) != SINEW_RESULT_OK) {
        free(xyz);
        return;
    }
    float best = 20.0f * 20.0f; /* pixels squared */
    for (uint32_t i = 0; i < n; i++) {
        float s[2], depth;
        /* the asset's own pins stay where it put them (a body frees only
         * what sinew_body_set_pinned pinned) */
        if (v->asset->particles[i].w == 0.0f || !project(v, &xyz[3 * i], s, &depth))
            continue;
        float d = (s[0] - (float)x) * (s[0] - (float)x) + (s[1] - (float)y) * (s[1] - (float)y);
        if (d < best) {
            best = d;
            v->held = (int)i;
            v->held_depth = depth;
        }
    }
    if (v->held >= 0 && sinew_body_set_pinned(v->body, (uint32_t)v->held, 1) != SINEW_RESULT_OK)
        v->held = -1;
    if (v->held >= 0)
        printf("sinew-viewer: holding particle %d at (%.3f, %.3f, %.3f)\n", v->held, (double)xyz[3 * v->held],
               (double)xyz[3 * v->held + 1], (double)xyz[3 * v->held + 2]);
    free(xyz);
}

/* Lets go of the particle held, saying where it was left. */
static void release(viewer *v)
{
    float at[3] = {0, 0, 0};
    uint32_t n = sinew_body_get_particle_count(v->body);
    float *xyz = malloc(sizeof *xyz * 3 * n);
    if (xyz && sinew_body_read_positions(v->body, xyz, n) == SINEW_RESULT_OK)
        memcpy(at, &xyz[3 * v->held], sizeof at);
    free(xyz);
    sinew_body_set_pinned(v->body, (uint32_t)v->held, 0);
    printf("sinew-viewer: let go of particle %d at (%.3f, %.3f, %.3f)\n", v->held, (double)at[0], (double)at[1],
           (double)at[2]);
    v->held = -1;
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    viewer *v = glfwGetWindowUserPointer(w);
    v->distance *= powf(0.9f, (float)dy);
    update_camera(v);
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    viewer *v = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS)
        return;
    if (key == GLFW_KEY_Q || key == GLFW_KEY_ESCAPE)
        glfwSetWindowShouldClose(w, 1);
    else if (key == GLFW_KEY_SPACE) {
        v->paused = !v->paused;
        printf("sinew-viewer: %s\n", v->paused ? "paused" : "running");
    } else if (key == GLFW_KEY_N) {
        v->step_once = 1;
        printf("sinew-viewer: one step\n");
    }
    else if (key >= GLFW_KEY_1 && key <= GLFW_KEY_3) {
        const int k = key - GLFW_KEY_1;
        if (v->elements && k >= 2 && v->membrane) {
            printf("sinew-viewer: membrane elements: 1 and 2 switch between the GPBD solvers\n");
            return;
        }
        uint32_t n = sinew_body_get_particle_count(v->body);
        float *xyz = malloc(sizeof *xyz * 3 * n);
        if (xyz && sinew_body_read_positions(v->body, xyz, n) == SINEW_RESULT_OK) {
            v->solver = v->elements ? key_solvers_elements[k] : key_solvers[k];
            v->held = -1; /* the new body has the asset's pins only */
            if (!make_body(v, xyz))
                glfwSetWindowShouldClose(w, 1);
            else
                printf("sinew-viewer: solver %s\n", sinew_solver_label(v->solver));
        }
        free(xyz);
    }
}

int main(int argc, char **argv)
{
    const char *t = "sinew-viewer", *asset_path = NULL, *screenshot = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0); /* events as they happen, also into a pipe */
    unsigned frames = 0, size[2] = {960, 720};
    int validation = 0, help = 0, solver_set = 0;
    sinew_solver solver = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    char solver_help[2048], solver_intro[128];
    snprintf(solver_intro, sizeof solver_intro, "the solver at the start (default %s; finite elements: %s), one of:",
             sinew_solver_name(solver), sinew_solver_name(SINEW_SOLVER_GPBD_GAUSS_SEIDEL));
    cli_solver_help(solver_help, sizeof solver_help, solver_intro);
    cli_option opts[] = {
        {"--frames", NULL, CLI_UINT, &frames, "N", "quit after N frames (default: when the window closes)",
         .max = 100000000},
        {"--screenshot", NULL, CLI_STRING, &screenshot, "FILE", "write the last frame as PNG when quitting"},
        {"--size", NULL, CLI_CUSTOM, size, "WxH", "window size (default 960x720)", .parse = cli_pixels},
        {"--solver", NULL, CLI_CUSTOM, &solver, "NAME", solver_help, .parse = cli_solver,
         .given = &solver_set},
        {"--validation", NULL, CLI_FLAG, &validation, NULL,
         "Vulkan validation layers (messages make the exit status 1)"},
        {"--help", "-h", CLI_FLAG, &help, NULL, "this text"},
    };
    if (!cli_parse(t, argc, argv, opts, sizeof opts / sizeof opts[0], &asset_path, "asset"))
        return 2;
    if (help) {
        fputs(usage, stdout);
        cli_help(stdout, opts, sizeof opts / sizeof opts[0], 22);
        return 0;
    }
    /* The files before the window and the device: a bad path fails at once. */
    if (screenshot && !cli_output(t, "--screenshot", screenshot))
        return 2;
    sinew_asset *asset = NULL;
    if (asset_path) {
        if (sinew_asset_load(asset_path, NULL, &asset) != SINEW_RESULT_OK)
            return 1; /* it said why */
    } else if (scene_default_cloth(64, &asset) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-viewer: cannot build the default scene\n");
        return 1;
    }
    if (!glfwInit()) {
        fprintf(stderr, "sinew-viewer: no window system (is DISPLAY set? try xvfb-run)\n");
        sinew_asset_destroy(asset);
        return 1;
    }
    viewer v = {0};
    v.width = size[0];
    v.height = size[1];
    v.held = -1;
    v.screenshot = screenshot;
    v.solver = solver;
    int status = 1;
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
    v.window = glfwCreateWindow((int)v.width, (int)v.height, "sinew", NULL, NULL);
    if (!v.window || !glfwVulkanSupported()) {
        fprintf(stderr, "sinew-viewer: no window with Vulkan\n");
        goto done;
    }
    glfwSetWindowUserPointer(v.window, &v);
    glfwSetScrollCallback(v.window, on_scroll);
    glfwSetKeyCallback(v.window, on_key);
    if (!create_vulkan(&v, validation))
        goto done;
    v.asset = asset;
    sinew_asset_info ai = sinew_asset_get_info(asset);
    v.elements = ai.element_count > 0;
    v.membrane = ai.membrane_count + ai.spring_count > 0;
    if (!solver_set)
        v.solver = scene_solver(&ai, v.solver);
    sinew_vulkan_device lent = {vkGetInstanceProcAddr, v.instance, v.physical, v.device, v.family, 0};
    sinew_context_desc cd = sinew_context_desc_default();
    if (sinew_context_create_from_vulkan(&cd, &lent, &v.ctx) != SINEW_RESULT_OK || !make_body(&v, NULL))
        goto done;
    sinew_step_params p = sinew_step_params_default();
    p.ground_height = asset_path ? scene_ground_height(&ai) : 0.0f;
    float lo[3] = {ai.bounds_min[0], fminf(ai.bounds_min[1], p.ground_height), ai.bounds_min[2]};
    v.camera = render_camera_framing(lo, ai.bounds_max);
    if (!asset_path) {
        p.sphere = 1;
        for (int k = 0; k < 3; k++) {
            p.sphere_center[k] = (float)scene_default_sphere[k];
            v.camera.eye[k] = scene_default_eye[k];
            v.camera.target[k] = scene_default_target[k];
        }
        p.sphere_radius = (float)scene_default_sphere[3];
    }
    float d[3] = {v.camera.eye[0] - v.camera.target[0], v.camera.eye[1] - v.camera.target[1],
                  v.camera.eye[2] - v.camera.target[2]};
    v.distance = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    v.yaw = atan2f(d[0], d[2]);
    v.pitch = asinf(d[1] / v.distance);

    for (unsigned frame = 1; !glfwWindowShouldClose(v.window); frame++) {
        glfwPollEvents();
        double x, y;
        glfwGetCursorPos(v.window, &x, &y);
        if (glfwGetMouseButton(v.window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS) {
            if (v.orbiting) {
                v.yaw -= 0.01f * (float)(x - v.mouse[0]);
                v.pitch = fmaxf(-1.5f, fminf(1.5f, v.pitch + 0.01f * (float)(y - v.mouse[1])));
                update_camera(&v);
            }
            v.orbiting = 1;
        } else if (v.orbiting) {
            v.orbiting = 0;
            printf("sinew-viewer: orbited to yaw %.2f, pitch %.2f rad\n", (double)v.yaw, (double)v.pitch);
        }
        int left = glfwGetMouseButton(v.window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
        if (left && v.held < 0)
            grab(&v, x, y);
        if (left && v.held >= 0) {
            float target[3];
            uint32_t index = (uint32_t)v.held;
            unproject(&v, x, y, v.held_depth, target);
            sinew_body_move_pinned(v.body, &index, 1, target);
        }
        if (!left && v.held >= 0)
            release(&v);
        v.mouse[0] = x;
        v.mouse[1] = y;
        if (!v.paused || v.step_once) {
            sinew_result r = sinew_body_step(v.body, &p);
            if (r != SINEW_RESULT_OK && r != SINEW_RESULT_ERROR_UNSTABLE) {
                fprintf(stderr, "sinew-viewer: step failed: %s\n", sinew_result_string(r));
                goto done;
            }
            v.step_once = 0;
        }
        uint32_t image;
        VkResult vr = vkAcquireNextImageKHR(v.device, v.swapchain, UINT64_MAX, v.acquired, VK_NULL_HANDLE, &image);
        if (vr != VK_SUCCESS && vr != VK_SUBOPTIMAL_KHR) {
            fprintf(stderr, "sinew-viewer: the window's image could not be acquired (%d)\n", vr);
            goto done;
        }
        const int last = frames && frame >= frames;
        if (!render_present(v.renderer, &p, &v.camera, v.images[image], v.width, v.height, v.acquired, v.rendered,
                            last ? v.screenshot : NULL, v.bgra))
            goto done;
        if (last && v.screenshot)
            printf("sinew-viewer: the window after %u frames: %s\n", frame, v.screenshot);
        VkPresentInfoKHR pi = {VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
        pi.waitSemaphoreCount = 1;
        pi.pWaitSemaphores = &v.rendered;
        pi.swapchainCount = 1;
        pi.pSwapchains = &v.swapchain;
        pi.pImageIndices = &image;
        vr = vkQueuePresentKHR(v.queue, &pi);
        if (vr != VK_SUCCESS && vr != VK_SUBOPTIMAL_KHR) {
            fprintf(stderr, "sinew-viewer: present failed (%d)\n", vr);
            goto done;
        }
        if (frames && frame >= frames)
            break;
    }
    vkQueueWaitIdle(v.queue);
    if (screenshot && !frames) /* closed by the user: the last picture as drawn */
        if (!render_frame(v.renderer, &p, &v.camera, screenshot))
            goto done;
    status = messages ? 1 : 0;
done:
    if (v.device)
        vkDeviceWaitIdle(v.device);
    render_destroy(v.renderer);
    sinew_body_destroy(v.body);
    sinew_context_destroy(v.ctx);
    sinew_asset_destroy(asset);
    destroy_vulkan(&v);
    if (v.window)
        glfwDestroyWindow(v.window);
    glfwTerminate();
    if (messages)
        fprintf(stderr, "sinew-viewer: %u validation messages\n", messages);
    return status;
}
