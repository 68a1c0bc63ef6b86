/* sinew/context.h: a Vulkan device sinew computes on.
 *
 * A context owns (or, later, borrows) a VkInstance, VkDevice and compute queue,
 * every compute pipeline sinew has (all created up front from embedded SPIR-V),
 * and the logger. Vulkan is reached through volk with a per-context function
 * table, so the application's own Vulkan function pointers are never touched.
 */
#ifndef SINEW_CONTEXT_H
#define SINEW_CONTEXT_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_context sinew_context;

/* Which limits sinew computes within (sinew_context_desc.limits). */
typedef enum sinew_limits_mode {
    /* The SINEW_LIMITS environment variable if set ("portable" or "device"),
     * else SINEW_LIMITS_DEVICE. */
    SINEW_LIMITS_DEFAULT = 0,
    /* The device's own limits. */
    SINEW_LIMITS_DEVICE = 1,
    /* No more than the Android Baseline 2022 profile guarantees for compute:
     * core Vulkan 1.1 with no optional feature, workgroups of at most 128
     * invocations, 32 KiB of shared memory, 128 bytes of push constants,
     * 256 MiB per storage-buffer binding, 35 storage buffers per stage, no
     * 64-bit types, float atomics or subgroup operations; each limit the
     * device's own where that is lower. Kernels and bodies that do not fit are
     * refused with a message naming what did not. What runs in this mode on a
     * desktop GPU fits a phone's; the kernels are the same in both modes, so
     * results on one device are bit-identical. */
    SINEW_LIMITS_PORTABLE = 2,
} sinew_limits_mode;

/* How sinew uses the device's memory (sinew_context_desc.memory). */
typedef enum sinew_memory_model {
    /* The SINEW_MEMORY environment variable if set ("discrete" or "device"),
     * else SINEW_MEMORY_MODEL_DEVICE. */
    SINEW_MEMORY_MODEL_DEFAULT = 0,
    /* As the device offers it: simulation state in device-local memory that
     * the host cannot map where the device has such memory (a discrete GPU),
     * else (unified memory, lavapipe) in device-local memory the host maps. */
    SINEW_MEMORY_MODEL_DEVICE = 1,
    /* As a discrete GPU without resizable BAR, on any device: simulation state
     * is never mapped (every upload and readback is a recorded copy through
     * staging memory), and host-visible memory is capped at 256 MiB. Results
     * are bit-identical to the device's own mode; what differs is the path
     * the data takes, which this mode tests on a unified-memory device. */
    SINEW_MEMORY_MODEL_DISCRETE = 2,
} sinew_memory_model;

typedef struct sinew_context_desc {
    uint32_t cookie;          /* set by sinew_context_desc_default; checked by create */
    sinew_logger logger;
    /* Enable VK_LAYER_KHRONOS_validation with synchronization validation; every
     * message of the layer goes to the logger. Creation fails if the layer is absent. */
    int validation;
    /* Which physical device: NULL or "" = the SINEW_DEVICE environment variable if
     * set, else the first discrete GPU, else integrated, else virtual, else CPU.
     * A decimal number picks by enumeration index; other text picks the first
     * device whose name contains it. */
    const char *device;
    /* sinew_memory_model. */
    int memory;
    /* Most device memory (bytes) this context may allocate; 0 = no cap beyond
     * the device's own. An allocation past it fails with OUT_OF_DEVICE_MEMORY,
     * exactly as when the device runs out: a way to keep sinew within an
     * engine's budget, and to test every out-of-memory path. */
    uint64_t device_memory_limit;
    /* sinew_limits_mode; also applies to sinew_context_create_from_vulkan. */
    int limits;
} sinew_context_desc;

SINEW_API sinew_context_desc sinew_context_desc_default(void);

SINEW_API sinew_result sinew_context_create(const sinew_context_desc *desc, sinew_context **out);

/* Waits for the device to be idle, destroys everything the context created.
 * Bodies must have been destroyed first. Safe after device loss. */
SINEW_API void sinew_context_destroy(sinew_context *ctx);

/* 1 once the device was lost (VK_ERROR_DEVICE_LOST from any call). From then
 * on every call that would use the device returns SINEW_RESULT_ERROR_DEVICE_LOST
 * at once; destroying bodies and the context still works. To go on, create a
 * new context and bodies and load their last checkpoints (sinew/body.h). */
SINEW_API int sinew_context_is_lost(const sinew_context *ctx);

typedef struct sinew_device_info {
    char name[256];
    char driver[256];          /* driver name and info, when the driver reports them */
    uint32_t vendor_id, device_id;
    uint32_t api_version;      /* VK_MAKE_API_VERSION form */
    int type;                  /* VkPhysicalDeviceType */
    float timestamp_period_ns; /* 0 when the queue has no timestamps */
    /* The limits sinew computes within (the device's, or the portable ones
     * where lower): */
    int limits;                        /* SINEW_LIMITS_DEVICE or SINEW_LIMITS_PORTABLE */
    uint64_t max_storage_buffer_range; /* bytes per storage-buffer binding */
    uint32_t max_workgroup_invocations;
    uint32_t max_shared_memory;        /* bytes per workgroup */
    uint32_t max_push_constants;       /* bytes */
    uint32_t max_storage_buffers_per_stage;
    uint32_t max_workgroup_count;      /* per dimension (x) */
} sinew_device_info;

SINEW_API sinew_device_info sinew_context_get_device_info(const sinew_context *ctx);

/* Device memory currently allocated by this context, in bytes (staging and
 * readback memory, host-visible, not counted). */
SINEW_API uint64_t sinew_context_get_device_memory(const sinew_context *ctx);

/* Memory allocations (VkDeviceMemory objects) this context holds now:
 * drivers allow as few as 4096 in all. */
SINEW_API uint32_t sinew_context_get_allocation_count(const sinew_context *ctx);

/* Changes the cap of sinew_context_desc.device_memory_limit (0 = none). Memory
 * already allocated stays; later allocations are checked against it. */
SINEW_API void sinew_context_set_device_memory_limit(sinew_context *ctx, uint64_t bytes);

/* Warnings and errors the validation layer has reported so far (0 without
 * validation). Tests fail on any. */
SINEW_API uint32_t sinew_context_get_validation_message_count(const sinew_context *ctx);

/* The device's own limits, measured so that solver timings can be read
 * against them. */
typedef struct sinew_device_probe {
    double copy_bytes_per_s;  /* a storage-buffer copy kernel, reads + writes counted */
    uint64_t copy_bytes;      /* traffic of one copy (bytes) */
    double dispatch_us;       /* one dispatch plus the barrier after it, in a chain
                                 of dependent empty dispatches */
    int gpu_timed;            /* 1: measured with GPU timestamps, 0: wall clock */
} sinew_device_probe;

/* Runs the probe (about 30 copies of up to 64 MiB and 2000 empty dispatches;
 * well under a second on a GPU, a few seconds on lavapipe). */
SINEW_API sinew_result sinew_context_probe(sinew_context *ctx, sinew_device_probe *out);

#ifdef __cplusplus
}
#endif
#endif
