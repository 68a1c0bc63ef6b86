/* Limits sinew computes within, and what a kernel's SPIR-V asks of them.
 * Internal; the public side is sinew_context_desc.limits (sinew/context.h). */
#ifndef SINEW_LIMITS_H
#define SINEW_LIMITS_H

#include <volk.h>

#include "../core/log.h"

/* Lowers every compute limit of l to what the Android Baseline 2022 profile
 * guarantees (and raises the alignments to what it lets a device require);
 * limits already tighter stay. */
void sinew_limits_clamp_portable(VkPhysicalDeviceLimits *l);

#define SINEW_SPIRV_MAX_CAPABILITIES 32

typedef struct sinew_spirv_info {
    uint32_t capabilities[SINEW_SPIRV_MAX_CAPABILITIES];
    uint32_t capability_count;
    uint32_t local_size[3];
    uint64_t shared_bytes; /* workgroup (shared) variables, laid out by std430's rules */
} sinew_spirv_info;

/* Reads a compute module's capabilities, workgroup size and shared memory.
 * ERROR_INVALID_ARGUMENT for a module it cannot read or without a LocalSize. */
sinew_result sinew_spirv_reflect(const uint32_t *code, size_t bytes, sinew_spirv_info *out);

/* Refuses (ERROR_UNSUPPORTED, one logged error per reason, then a summary) a
 * kernel needing a capability beyond core Vulkan 1.1, larger workgroups, more
 * shared memory or more push constants than l allows. `whose` names the
 * limits in messages ("this device's limits", "the portable limits"). */
sinew_result sinew_kernel_check(const sinew_logger *lg, const char *name, const uint32_t *code, size_t bytes,
                                uint32_t push_size, const VkPhysicalDeviceLimits *l, const char *whose);

#endif
