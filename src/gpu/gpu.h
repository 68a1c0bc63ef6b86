/* Vulkan plumbing shared by the runtime: the context, buffers, the kernel
 * table and command recording. Internal; the public API is include/sinew/. */
#ifndef SINEW_GPU_H
#define SINEW_GPU_H

#include <volk.h>

#include <sinew/context.h>

#include "../core/log.h"
#include "fault.h"
#include "shared/layout.h"

/* Every kernel, one .comp file each (shaders/NAME.comp). */
#define SINEW_KERNEL_LIST(X)  \
    X(PREDICT, predict, GpuRange)       \
    X(COLLIDE, collide, GpuRange)       \
    X(VELOCITY, velocity, GpuRange)     \
    X(PROJECT_COLOUR, project_colour, GpuRange)     \
    X(JACOBI_PROJECT, jacobi_project, GpuRange)     \
    X(JACOBI_APPLY, jacobi_apply, GpuRange)         \
    X(RESIDUAL, residual, GpuRange)                 \
    X(RESIDUAL_REDUCE, residual_reduce, GpuRange)   \
    X(HEALTH, health, GpuRange)                     \
    X(GPBD_COLOUR, gpbd_colour, GpuRange)           \
    X(GPBD_JACOBI, gpbd_jacobi, GpuRange)           \
    X(HPBD_PROJECT, hpbd_project, GpuRange)         \
    X(HPBD_PROLONG, hpbd_prolong, GpuRange)         \
    X(PD_LOCAL, pd_local, GpuRange)                 \
    X(PD_GLOBAL, pd_global, GpuRange)               \
    X(PD_APPLY, pd_apply, GpuRange)                 \
    X(MG_ASSEMBLE, mg_assemble, GpuRange)           \
    X(MG_RESIDUAL, mg_residual, GpuRange)           \
    X(MG_RESTRICT, mg_restrict, GpuRange)           \
    X(MG_PROLONG, mg_prolong, GpuRange)             \
    X(MG_PCG, mg_pcg, GpuRange)                     \
    X(MG_REDUCE, mg_reduce, GpuRange)               \
    X(MG_SMOOTH, mg_smooth, GpuRange)               \
    X(MG_ADVANCE, mg_advance, GpuRange)             \
    X(MG_CONSTRAIN, mg_constrain, GpuRange)         \
    X(MG_HISTORY, mg_history, GpuRange)             \
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

struct sinew_context {
    sinew_logger logger;
    int validation;
    int force_staging;
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
    PFN_vkGetInstanceProcAddr gipa; /* what the instance functions were loaded through */
    uint32_t queue_index;
    char driver[256];

    VkCommandPool command_pool;
    VkCommandBuffer transfer_cmd;   /* one-shot uploads and readbacks */
    VkFence transfer_fence;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipeline_layout;
    VkPipeline pipelines[SINEW_KERNEL_COUNT];

    uint64_t device_memory;         /* bytes allocated */
    uint64_t device_memory_limit;   /* 0: none */
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

/* Submits one command buffer and waits for its fence. Refuses at once (with
 * ERROR_DEVICE_LOST) once the device was lost. */
sinew_result sinew_submit_and_wait(sinew_context *ctx, VkCommandBuffer cmd, VkFence fence);


/* ---------------------------------------------------------------- buffers */

typedef enum sinew_memory {
    SINEW_MEMORY_DEVICE = 0, /* device-local; mapped only on unified memory */
    SINEW_MEMORY_HOST = 1,   /* host-visible, coherent, always mapped */
} sinew_memory;

typedef struct sinew_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    VkDeviceSize allocated;  /* bytes of device memory, for accounting */
    void *mapped;            /* non-NULL when the host can write it directly */
} sinew_buffer;

/* ERROR_LIMIT, with a message naming `what` and the limit, when a storage
 * buffer of size bytes would not fit one binding within the context's limits. */
sinew_result sinew_buffer_check_size(sinew_context *ctx, VkDeviceSize size, const char *what);

/* Creates a storage buffer (also transfer src/dst) of at least 16 bytes;
 * refuses sizes sinew_buffer_check_size refuses. */
sinew_result sinew_buffer_create(sinew_context *ctx, VkDeviceSize size, sinew_memory memory,
                                 const char *what, sinew_buffer *out);
void sinew_buffer_destroy(sinew_context *ctx, sinew_buffer *buf);
/* Copies host data in, directly when mapped, else through a staging buffer
 * (waits for the copy). */
sinew_result sinew_buffer_upload(sinew_context *ctx, sinew_buffer *buf, VkDeviceSize offset,
                                 const void *data, VkDeviceSize size);
/* Copies device data out (waits). */
sinew_result sinew_buffer_download(sinew_context *ctx, sinew_buffer *buf, VkDeviceSize offset,
                                   void *data, VkDeviceSize size);

/* Copies between two device buffers (waits). */
sinew_result sinew_buffer_copy(sinew_context *ctx, const sinew_buffer *src, VkDeviceSize src_offset,
                               sinew_buffer *dst, VkDeviceSize dst_offset, VkDeviceSize size);

/* Creates a descriptor pool holding one set of the binding model, with
 * buffers[i] bound at binding i. */
sinew_result sinew_descriptor_set_create(sinew_context *ctx, const sinew_buffer buffers[SINEW_BIND_COUNT],
                                         VkDescriptorPool *pool, VkDescriptorSet *set);

/* The host's monotonic clock in milliseconds, for wall-clock spans. */
double sinew_host_ms(void);

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
    /* A dispatch was recorded and no barrier yet. Every kernel of a step
     * depends on the one before it, so a second dispatch in this state is a
     * missing barrier: asserted, because the validation layer shipped with
     * Debian 12 (1.3.239) does not report dispatch-to-dispatch hazards. */
    int unsynced;
    VkResult failed;           /* sinew_record_begin failed: nothing is recorded */
} sinew_recorder;

/* Starts one submission: resets r, begins cmd and binds `set`. When
 * vkBeginCommandBuffer fails nothing more is recorded and sinew_record_submit
 * returns the failure. */
void sinew_record_begin(sinew_recorder *r, sinew_context *ctx, VkCommandBuffer cmd, VkDescriptorSet set);
/* Ends r's command buffer, submits it and waits on fence. */
sinew_result sinew_record_submit(sinew_recorder *r, VkFence fence);

/* One dispatch of kernel over `threads` invocations (0: nothing recorded). Checks
 * the push size against the kernel table; spills past maxComputeWorkGroupCount.x
 * into y. */
void sinew_record_dispatch(sinew_recorder *r, sinew_kernel kernel, uint32_t threads,
                           const void *push, uint32_t push_size);
/* Compute writes -> compute reads and writes: between dependent dispatches. */
void sinew_record_barrier(sinew_recorder *r);
/* vkCmdFillBuffer, followed by the transfer -> compute barrier it needs. */
void sinew_record_fill(sinew_recorder *r, sinew_buffer *buf, uint32_t value);
/* Writes size bytes (<= 65536, a multiple of 4) of data into buf at offset. */
void sinew_record_update(sinew_recorder *r, sinew_buffer *buf, VkDeviceSize offset, const void *data,
                         VkDeviceSize size);
/* vkCmdCopyBuffer between barriers: earlier compute and transfer work on the
 * buffers ends before it, later compute work sees its result. Nothing for size 0. */
void sinew_record_copy(sinew_recorder *r, const sinew_buffer *src, VkDeviceSize src_offset, sinew_buffer *dst,
                       VkDeviceSize dst_offset, VkDeviceSize size);
/* Compute writes -> host reads: at the end of a step whose results the host reads. */
void sinew_record_host_barrier(sinew_recorder *r);
/* Writes a timestamp ending a span of `phase` (nothing when not timing). */
void sinew_record_timestamp(sinew_recorder *r, sinew_phase phase);

#endif
