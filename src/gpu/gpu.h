/* Vulkan plumbing shared by the runtime: the context, buffers, the kernel
 * table and command recording. Internal; the public API is include/sinew/. */
#ifndef SINEW_GPU_H
#define SINEW_GPU_H

#include <volk.h>

#include <sinew/context.h>

#include "../core/clock.h"
#include "../core/log.h"
#include "fault.h"
#include "shared/layout.h"

/* Every kernel, one .comp file each (shaders/NAME.comp). */
#define SINEW_KERNEL_LIST(X)  \
    X(PREDICT, predict, GpuRange)       \
    X(COLLIDE, collide, GpuRange)       \
    X(VELOCITY, velocity, GpuRange)     \
    X(VELOCITY_PREDICT, velocity_predict, GpuRange) \
    X(PROJECT_COLOUR, project_colour, GpuRange)     \
    X(PROJECT_CLUSTERS, project_clusters, GpuRange) \
    X(JACOBI_PROJECT, jacobi_project, GpuRange)     \
    X(JACOBI_APPLY, jacobi_apply, GpuRange)         \
    X(RESIDUAL, residual, GpuRange)                 \
    X(RESIDUAL_REDUCE, residual_reduce, GpuRange)   \
    X(PBD_RESIDUAL, pbd_residual, GpuRange)         \
    X(GPBD_RESIDUAL, gpbd_residual, GpuRange)       \
    X(PD_RESIDUAL, pd_residual, GpuRange)           \
    X(HEALTH, health, GpuRange)                     \
    X(GPBD_COLOUR, gpbd_colour, GpuRange)           \
    X(GPBD_JACOBI, gpbd_jacobi, GpuRange)           \
    X(GPBD_COLOUR_TET_NH, gpbd_colour_tet_nh, GpuRange)     \
    X(GPBD_COLOUR_TET_SNH, gpbd_colour_tet_snh, GpuRange)   \
    X(GPBD_JACOBI_TET_NH, gpbd_jacobi_tet_nh, GpuRange)     \
    X(GPBD_JACOBI_TET_SNH, gpbd_jacobi_tet_snh, GpuRange)   \
    X(HPBD_PROJECT, hpbd_project, GpuRange)         \
    X(HPBD_PROLONG, hpbd_prolong, GpuRange)         \
    X(PD_LOCAL, pd_local, GpuRange)                 \
    X(PD_GLOBAL, pd_global, GpuRange)               \
    X(PD_APPLY, pd_apply, GpuRange)                 \
    X(MG_ASSEMBLE, mg_assemble, GpuRange)           \
    X(MG_TET, mg_tet, GpuRange)                     \
    X(MG_RESIDUAL, mg_residual, GpuRange)           \
    X(MG_RESTRICT, mg_restrict, GpuRange)           \
    X(MG_PROLONG, mg_prolong, GpuRange)             \
    X(MG_PCG, mg_pcg, GpuRange)                     \
    X(MG_REDUCE, mg_reduce, GpuRange)               \
    X(MG_SMOOTH, mg_smooth, GpuRange)               \
    X(MG_ADVANCE, mg_advance, GpuRange)             \
    X(MG_CONSTRAIN, mg_constrain, GpuRange)         \
    X(MG_HISTORY, mg_history, GpuRange)             \
    X(MG_CONTROL, mg_control, GpuRange)             \
    X(MG_COARSE, mg_coarse, GpuRange)               \
    X(AMG_CONSTRAINT, amg_constraint, GpuAmgPush) \
    X(AMG_ASSEMBLE, amg_assemble, GpuAmgPush)     \
    X(AMG_SPMV, amg_spmv, GpuAmgPush)             \
    X(AMG_PRODUCT, amg_product, GpuAmgPush)       \
    X(AMG_GRAM, amg_gram, GpuAmgPush)             \
    X(AMG_VECTOR, amg_vector, GpuAmgPush)         \
    X(AMG_REDUCE, amg_reduce, GpuAmgPush)         \
    X(AMG_COARSE, amg_coarse, GpuAmgPush)         \
    X(AMG_APPLY, amg_apply, GpuAmgPush)           \
    X(NORMALS, normals, GpuRange)                   \
    X(RENDER, render, GpuRange)                     \
    X(SELF_BUILD, self_build, GpuRange)             \
    X(SELF_QUERY, self_query, GpuRange)             \
    X(SELF_PROJECT, self_project, GpuRange)         \
    X(SHAPES, shapes, GpuRange)                     \
    X(WIND, wind, GpuRange)                         \
    X(ATTACH_SUBSTEP, attach_substep, GpuRange)     \
    X(ATTACH_PROJECT, attach_project, GpuRange)     \
    X(COPY, copy, GpuRange)                         \
    X(EMPTY, empty, GpuRange)

typedef enum sinew_kernel {
#define SINEW_X_KERNEL(id, file, push) SINEW_KERNEL_##id,
    SINEW_KERNEL_LIST(SINEW_X_KERNEL)
#undef SINEW_X_KERNEL
    SINEW_KERNEL_COUNT
} sinew_kernel;

typedef struct sinew_kernel_info {
    const char *name;
    const uint32_t *spirv;
    size_t spirv_size;      /* bytes */
    uint32_t push_size;     /* bytes of push constants the kernel reads */
} sinew_kernel_info;

extern const sinew_kernel_info sinew_kernels[SINEW_KERNEL_COUNT];

/* The pipeline layout's push-constant range: the largest struct a kernel reads. */
#define SINEW_PUSH_BYTES (sizeof(GpuAmgPush) > sizeof(GpuRange) ? sizeof(GpuAmgPush) : sizeof(GpuRange))

/* What the context has done since it was made: sinew_step_stats reports a
 * step's share. */
typedef struct sinew_counters {
    uint64_t submits;        /* vkQueueSubmit calls */
    uint64_t host_waits;     /* waits of the host for the device */
    uint64_t readback_bytes; /* bytes of device results the host read */
} sinew_counters;

struct sinew_context {
    sinew_logger logger;
    int validation;
    int memory_model;               /* SINEW_MEMORY_MODEL_DEVICE or _DISCRETE */
    uint32_t validation_messages;   /* warnings and errors reported by the layer */

    VkInstance instance;
    /* Instance functions of this instance: volk's globals are left alone, so
     * several contexts (and the application's own Vulkan use) never clash. */
    struct {
        PFN_vkDestroyInstance DestroyInstance;
        PFN_vkEnumeratePhysicalDevices EnumeratePhysicalDevices;
        PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
        PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2;
        PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
        PFN_vkGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties;
        PFN_vkCreateDevice CreateDevice;
        PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
        PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2;
        PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
        PFN_vkCreateDebugUtilsMessengerEXT CreateDebugUtilsMessengerEXT;
        PFN_vkDestroyDebugUtilsMessengerEXT DestroyDebugUtilsMessengerEXT;
    } vki;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties memory_props;
    /* The limits sinew keeps to: props.limits, clamped in portable mode. Every
     * check and dispatch shape reads these, never props.limits. */
    VkPhysicalDeviceLimits limits;
    int portable;                   /* SINEW_LIMITS_PORTABLE in effect */
    VkDevice device;
    struct VolkDeviceTable vk;             /* this device's functions; globals untouched */
    VkQueue queue;
    uint32_t queue_family;
    uint32_t timestamp_bits;        /* 0: no timestamps on this queue */
    VkQueueFlags queue_flags;       /* of queue_family */
    int borrowed;                   /* instance, device and queue are the application's */
    int conditional;                /* VK_EXT_conditional_rendering is on: sinew_record_if skips
                                       dispatches on the device (not on a lent device, nor within
                                       the portable limits) */
    PFN_vkGetInstanceProcAddr gipa; /* what the instance functions were loaded through */
    uint32_t queue_index;
    char driver[256];

    VkCommandPool command_pool;
    VkCommandBuffer transfer_cmd;   /* one-shot uploads and readbacks */
    VkFence transfer_fence;
    VkDescriptorSetLayout set_layouts[2]; /* SINEW_SET_BODY, SINEW_SET_SOLVER */
    VkPipelineLayout pipeline_layout;
    struct sinew_buffer *empty;     /* 16 bytes, bound wherever a set has nothing to bind */
    VkPipeline pipelines[SINEW_KERNEL_COUNT];

    uint64_t device_memory;         /* bytes allocated as device memory */
    uint64_t host_visible_memory;   /* bytes allocated as staging, readback and other host-visible memory */
    uint64_t device_memory_limit;   /* 0: none */
    uint32_t allocations;           /* VkDeviceMemory objects alive */
    struct sinew_buffer *staging;   /* uploads to unmapped buffers go through it (made on first use) */
    struct sinew_buffer *readback;  /* readbacks from unmapped buffers */
    sinew_counters counters;
    int lost;                       /* VK_ERROR_DEVICE_LOST was seen */
    int inject_device_loss;         /* tests: the next submit reports device loss */
};

/* Turns a failed VkResult into a sinew_result, logging the call's text. */
sinew_result sinew_vk_fail(sinew_context *ctx, VkResult vr, const char *call, const char *file, int line);

#define VK_TRY(ctx, call)                                                     \
    do {                                                                      \
        VkResult vk_try_result_ = (call);                                     \
        if (vk_try_result_ != VK_SUCCESS)                                     \
            return sinew_vk_fail((ctx), vk_try_result_, #call, __FILE__, __LINE__); \
    } while (0)

/* ERROR_DEVICE_LOST with a message saying what to do: for every call that
 * needs the device once ctx->lost is set. */
sinew_result sinew_context_refuse_lost(sinew_context *ctx);

/* Submits one command buffer, signalling fence (reset first). Refuses at once
 * (with ERROR_DEVICE_LOST) once the device was lost. */
sinew_result sinew_submit(sinew_context *ctx, VkCommandBuffer cmd, VkFence fence);
/* Submits count command buffers in one submit signalling one fence (a
 * world's step). */
sinew_result sinew_submit_many(sinew_context *ctx, const VkCommandBuffer *cmds, uint32_t count, VkFence fence);
/* sinew_submit, then waits for the fence. */
sinew_result sinew_submit_and_wait(sinew_context *ctx, VkCommandBuffer cmd, VkFence fence);


/* ---------------------------------------------------------------- buffers */

typedef enum sinew_memory {
    SINEW_MEMORY_DEVICE = 0,   /* device-local; mapped only on unified memory outside the discrete mode */
    SINEW_MEMORY_HOST = 1,     /* host-visible, coherent, always mapped: written by the host */
    SINEW_MEMORY_READBACK = 2, /* host-visible, coherent, cached where the device offers it: read by the host */
} sinew_memory;

struct sinew_block; /* one allocation, shared by the buffers bound into it (buffer.c) */

typedef struct sinew_buffer {
    VkBuffer buffer;
    struct sinew_block *block;
    VkDeviceSize offset;     /* within the block */
    VkDeviceSize size;
    VkDeviceSize allocated;  /* bytes of the block this buffer takes, for accounting */
    void *mapped;            /* non-NULL when the host can write it directly */
    sinew_memory kind;
} sinew_buffer;

/* ERROR_LIMIT, with a message naming `what` and the limit, when a storage
 * buffer of size bytes would not fit one binding within the context's limits. */
sinew_result sinew_buffer_check_size(sinew_context *ctx, VkDeviceSize size, const char *what);

/* Creates a storage buffer (also transfer src/dst) of at least 16 bytes;
 * refuses sizes sinew_buffer_check_size refuses. */
sinew_result sinew_buffer_create(sinew_context *ctx, VkDeviceSize size, sinew_memory memory,
                                 const char *what, sinew_buffer *out);
void sinew_buffer_destroy(sinew_context *ctx, sinew_buffer *buf);
/* Copies host data in, directly when mapped, else through the context's
 * staging buffer (waits for each copy of up to 8 MiB). */
sinew_result sinew_buffer_upload(sinew_context *ctx, sinew_buffer *buf, VkDeviceSize offset,
                                 const void *data, VkDeviceSize size);
/* Copies device data out, directly when mapped, else through the context's
 * readback buffer (waits); counted in the context's readback bytes. */
sinew_result sinew_buffer_download(sinew_context *ctx, sinew_buffer *buf, VkDeviceSize offset,
                                   void *data, VkDeviceSize size);
/* Frees the context's staging and readback buffers. */
void sinew_staging_destroy(sinew_context *ctx);

/* One buffer of a plan: made at out[binding] (or *target) when size > 0 (or always). */
typedef struct sinew_buffer_plan {
    int binding;
    uint64_t size;         /* bytes */
    sinew_memory memory;
    const char *what;      /* for messages */
    int always;            /* made (16 bytes at least) even when size is 0 */
    sinew_buffer *target;  /* where it goes, in place of out[binding]; NULL: out[binding] */
} sinew_buffer_plan;

/* Makes a set of buffers: refuses any size sinew_buffer_check_size refuses
 * before anything is allocated, then creates each planned buffer at
 * out[plan[i].binding] (or plan[i].target), bound into one allocation per
 * memory kind (and per GiB), and fills it with zeros, so nothing is ever read
 * uninitialised. On failure what was made stays in out for the caller's
 * destroy; an allocation is freed with the last buffer bound into it. */
sinew_result sinew_buffers_create(sinew_context *ctx, const sinew_buffer_plan *plan, uint32_t count,
                                  sinew_buffer *out);

/* Copies between two device buffers (waits). */
sinew_result sinew_buffer_copy(sinew_context *ctx, const sinew_buffer *src, VkDeviceSize src_offset,
                               sinew_buffer *dst, VkDeviceSize dst_offset, VkDeviceSize size);

/* The two descriptor sets every kernel sees (shared/layout.h): the body's
 * buffers (set 0) and a solver's own (set 1), from one pool. */
typedef struct sinew_bindings {
    VkDescriptorPool pool;
    VkDescriptorSet sets[2];
} sinew_bindings;

/* Writes body[i] at binding i of set 0 (SINEW_BODY_BINDINGS entries, or
 * NULL) and solver[i] at binding i of set 1 (solver_count <=
 * SINEW_SOLVER_BINDINGS entries). Every binding left out, and every buffer
 * never created (no VkBuffer), gets the context's empty buffer. The
 * buffers are borrowed: they must outlive the sets. */
sinew_result sinew_bindings_create(sinew_context *ctx, const sinew_buffer *body, const sinew_buffer *solver,
                                   uint32_t solver_count, sinew_bindings *out);
void sinew_bindings_destroy(sinew_context *ctx, sinew_bindings *b);
/* Binds both sets for the compute kernels recorded next into cmd. */
void sinew_bindings_bind(const sinew_context *ctx, VkCommandBuffer cmd, const sinew_bindings *b);

/* Milliseconds between two raw timestamps of this context's queue. */
double sinew_timestamp_ms(const sinew_context *ctx, uint64_t begin, uint64_t end);

/* ---------------------------------------------------------------- recording */

/* What a span between two timestamps was spent on. */
typedef enum sinew_phase {
    SINEW_PHASE_PREDICT = 0,   /* lambda reset, prediction */
    SINEW_PHASE_SOLVE,         /* constraint projections */
    SINEW_PHASE_CONTACTS,      /* collider projections */
    SINEW_PHASE_VELOCITY,      /* velocity update */
    SINEW_PHASE_RESIDUAL,      /* residual reduction and health check */
    SINEW_PHASE_COUNT,
    SINEW_PHASE_START = SINEW_PHASE_COUNT, /* the first timestamp ends no span */
} sinew_phase;

typedef struct sinew_recorder {
    sinew_context *ctx;
    VkCommandBuffer cmd;
    uint32_t dispatches;
    uint32_t barriers;
    uint64_t bytes;            /* device memory traffic as designed by the kernels */
    /* Timestamps (optional): query i ends a span of phase phase_of[i]. */
    VkQueryPool queries;
    uint32_t query_count, query_capacity;
    uint8_t *phase_of;
    /* A dispatch was recorded and no barrier yet. A kernel of a step depends
     * on the one before it unless the recording says otherwise
     * (sinew_record_independent), so a second dispatch in this state is a
     * missing barrier: asserted, because the validation layer shipped with
     * Debian 12 (1.3.239) does not report dispatch-to-dispatch hazards. */
    int unsynced;
    VkResult failed;           /* sinew_record_begin failed: nothing is recorded */
} sinew_recorder;

/* Starts one submission: resets r, begins cmd and binds `bindings`. When
 * vkBeginCommandBuffer fails nothing more is recorded and sinew_record_submit
 * returns the failure. */
void sinew_record_begin(sinew_recorder *r, sinew_context *ctx, VkCommandBuffer cmd, const sinew_bindings *bindings);
/* Ends r's command buffer, submits it and waits on fence. */
sinew_result sinew_record_submit(sinew_recorder *r, VkFence fence);

/* One dispatch of kernel over `threads` invocations (0: nothing recorded). Checks
 * the push size against the kernel table; spills past maxComputeWorkGroupCount.x
 * into y. */
void sinew_record_dispatch(sinew_recorder *r, sinew_kernel kernel, uint32_t threads,
                           const void *push, uint32_t push_size);
/* Compute writes -> compute reads and writes: between dependent dispatches. */
void sinew_record_barrier(sinew_recorder *r);
/* No barrier: the next dispatch reads nothing the last one wrote and writes
 * nothing it read or wrote, so the two may overlap. A barrier after the
 * second orders both before what follows. */
void sinew_record_independent(sinew_recorder *r);
/* vkCmdFillBuffer, followed by the transfer -> compute barrier it needs. */
void sinew_record_fill(sinew_recorder *r, sinew_buffer *buf, uint32_t value);
/* Writes size bytes (<= 65536, a multiple of 4) of data into buf at offset. */
void sinew_record_update(sinew_recorder *r, sinew_buffer *buf, VkDeviceSize offset, const void *data,
                         VkDeviceSize size);
/* vkCmdCopyBuffer between barriers: earlier compute and transfer work on the
 * buffers ends before it, later compute work sees its result. Nothing for size 0. */
void sinew_record_copy(sinew_recorder *r, const sinew_buffer *src, VkDeviceSize src_offset, sinew_buffer *dst,
                       VkDeviceSize dst_offset, VkDeviceSize size);
/* Compute and transfer writes -> host reads: at the end of a step whose results the host reads. */
void sinew_record_host_barrier(sinew_recorder *r);
/* Dispatches between sinew_record_if and sinew_record_end_if are skipped when
 * the 32-bit word at `offset` of buf is 0, as the commands before left it:
 * by the device itself with conditional rendering (ctx->conditional),
 * else by the kernels' own gates (the caller's). Not nested; barriers in
 * between are kept. */
void sinew_record_if(sinew_recorder *r, const sinew_buffer *buf, VkDeviceSize offset);
void sinew_record_end_if(sinew_recorder *r);
/* Writes a timestamp ending a span of `phase` (nothing when not timing). */
void sinew_record_timestamp(sinew_recorder *r, sinew_phase phase);

/* ---------------------------------------------------------------- workspaces */

/* What a solver that submits its own work holds (workspace.c): a command
 * buffer and a fence, and the descriptor sets its kernels see: its own
 * (sinew_workspace_bind), or a body's lent to it (sinew_workspace_borrow). */
typedef struct sinew_workspace {
    VkCommandBuffer cmd;
    VkFence fence;
    sinew_bindings own;              /* no pool until sinew_workspace_bind */
    const sinew_bindings *borrowed;  /* a body's sets (borrowed: they outlive the workspace), or NULL */
} sinew_workspace;

/* Allocates the command buffer from ctx's pool and an unsignalled fence;
 * `what` names the owner in a failure's message. On failure *out holds what
 * was made: sinew_workspace_destroy frees it. */
sinew_result sinew_workspace_create(sinew_context *ctx, const char *what, sinew_workspace *out);
/* Makes the workspace's own sets (sinew_bindings_create's arguments; the
 * buffers are borrowed and must outlive them), destroying those it had:
 * call again after replacing a buffer. Not for a workspace that borrows. */
sinew_result sinew_workspace_bind(sinew_context *ctx, sinew_workspace *ws, const sinew_buffer *body,
                                  const sinew_buffer *solver, uint32_t solver_count);
/* Records with a body's sets from now on (not for one that has its own). */
void sinew_workspace_borrow(sinew_workspace *ws, const sinew_bindings *bindings);
/* Frees the command buffer, the fence and the own sets; zeroes *ws. Safe on a
 * zeroed or partly created workspace. */
void sinew_workspace_destroy(sinew_context *ctx, sinew_workspace *ws);
/* sinew_record_begin on the workspace's command buffer with its sets. */
void sinew_workspace_begin(sinew_recorder *r, sinew_context *ctx, const sinew_workspace *ws);
/* sinew_record_submit with the workspace's fence: ends, submits and waits. */
sinew_result sinew_workspace_submit(sinew_recorder *r, const sinew_workspace *ws);

/* ---------------------------------------------------------------- packed images */

/* The host copy of a buffer packing many regions (image.c), built by
 * appending: each append returns its region's offset, so sizes are never
 * counted ahead of the filling. Offsets are in elements of `unit` bytes (4:
 * words or floats; 16: vec4s) from `base`, the element of the buffer the
 * image starts at (0, or where an earlier upload ends). A failed allocation,
 * or an image past 2^32 - 1 elements, sets `failed` and drops every later
 * append and write: the builder checks once, at the end (sinew_image_check).
 *
 *     sinew_image idx;
 *     sinew_image_init(&idx, 4, 0);
 *     uint32_t header = sinew_image_reserve(&idx, HEADER);   zeroed room
 *     uint32_t rows = sinew_image_put(&idx, row, n + 1);       a copy
 *     sinew_image_write(&idx, header, &rows, 1);               into room already there
 *     r = sinew_image_check(&idx, lg, "id", "indices");       once
 *     ... upload sinew_image_size(&idx) bytes of idx.bytes ...
 *     sinew_image_free(&idx);
 */
typedef struct sinew_image {
    uint8_t *bytes;
    uint64_t count, capacity;  /* elements */
    uint32_t unit;             /* bytes per element */
    uint32_t base;             /* the buffer's element where bytes[0] goes */
    sinew_result failed;       /* OK, or why appends were dropped: OUT_OF_HOST_MEMORY or LIMIT */
} sinew_image;

void sinew_image_init(sinew_image *img, uint32_t unit, uint32_t base);
void sinew_image_free(sinew_image *img);
/* Appends n elements copied from data (zeros when data is NULL); returns the
 * offset of the first (where it would have gone, once failed). */
uint32_t sinew_image_put(sinew_image *img, const void *data, uint64_t n);
/* Appends n zeroed elements; returns the offset of the first. */
uint32_t sinew_image_reserve(sinew_image *img, uint64_t n);
/* The offset the next append gets. */
uint32_t sinew_image_next(const sinew_image *img);
/* Overwrites n elements at offset at, within what was appended. */
void sinew_image_write(sinew_image *img, uint32_t at, const void *data, uint64_t n);
/* Bytes appended. */
uint64_t sinew_image_size(const sinew_image *img);
/* OK, or the failure (id and `what` name the image in its message). */
sinew_result sinew_image_check(const sinew_image *img, const sinew_logger *lg, const char *id, const char *what);

#endif
