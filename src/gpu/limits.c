/* The limits sinew computes within: the device's own, or (portable mode) no
 * more than the Android Baseline 2022 profile guarantees. And what each kernel
 * asks of them, read from its SPIR-V, so a kernel that would not fit is
 * refused by name at context creation instead of failing somewhere later. */
#include "limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* VP_ANDROID_baseline_2022 (Khronos Vulkan-Profiles), the limits compute
 * reaches. Each is a minimum the profile guarantees, except the alignment,
 * which is a maximum a device may require. */
#define PROFILE_STORAGE_BUFFER_RANGE 268435456u
#define PROFILE_PUSH_CONSTANTS 128u
#define PROFILE_BOUND_SETS 4u
#define PROFILE_STORAGE_BUFFERS_PER_STAGE 35u
#define PROFILE_STORAGE_BUFFERS_PER_SET 72u
#define PROFILE_RESOURCES_PER_STAGE 79u
#define PROFILE_SHARED_MEMORY 32768u
#define PROFILE_WORKGROUP_COUNT 65535u /* the profile says 65536; Vulkan's own minimum is 65535 */
#define PROFILE_WORKGROUP_INVOCATIONS 128u
#define PROFILE_WORKGROUP_SIZE 128u
#define PROFILE_STORAGE_OFFSET_ALIGNMENT 256u
#define PROFILE_NON_COHERENT_ATOM 64u

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

void sinew_limits_clamp_portable(VkPhysicalDeviceLimits *l)
{
    l->maxStorageBufferRange = min_u32(l->maxStorageBufferRange, PROFILE_STORAGE_BUFFER_RANGE);
    l->maxPushConstantsSize = min_u32(l->maxPushConstantsSize, PROFILE_PUSH_CONSTANTS);
    l->maxBoundDescriptorSets = min_u32(l->maxBoundDescriptorSets, PROFILE_BOUND_SETS);
    l->maxPerStageDescriptorStorageBuffers =
        min_u32(l->maxPerStageDescriptorStorageBuffers, PROFILE_STORAGE_BUFFERS_PER_STAGE);
    l->maxDescriptorSetStorageBuffers = min_u32(l->maxDescriptorSetStorageBuffers, PROFILE_STORAGE_BUFFERS_PER_SET);
    l->maxPerStageResources = min_u32(l->maxPerStageResources, PROFILE_RESOURCES_PER_STAGE);
    l->maxComputeSharedMemorySize = min_u32(l->maxComputeSharedMemorySize, PROFILE_SHARED_MEMORY);
    l->maxComputeWorkGroupInvocations = min_u32(l->maxComputeWorkGroupInvocations, PROFILE_WORKGROUP_INVOCATIONS);
    for (int i = 0; i < 3; i++) {
        l->maxComputeWorkGroupCount[i] = min_u32(l->maxComputeWorkGroupCount[i], PROFILE_WORKGROUP_COUNT);
        l->maxComputeWorkGroupSize[i] = min_u32(l->maxComputeWorkGroupSize[i], PROFILE_WORKGROUP_SIZE);
    }
    if (l->minStorageBufferOffsetAlignment < PROFILE_STORAGE_OFFSET_ALIGNMENT)
        l->minStorageBufferOffsetAlignment = PROFILE_STORAGE_OFFSET_ALIGNMENT;
    if (l->nonCoherentAtomSize < PROFILE_NON_COHERENT_ATOM)
        l->nonCoherentAtomSize = PROFILE_NON_COHERENT_ATOM;
}

/* ---------------------------------------------------------------- SPIR-V */

enum {
    OP_EXECUTION_MODE = 16,
    OP_CAPABILITY = 17,
    OP_TYPE_BOOL = 20,
    OP_TYPE_INT = 21,
    OP_TYPE_FLOAT = 22,
    OP_TYPE_VECTOR = 23,
    OP_TYPE_MATRIX = 24,
    OP_TYPE_ARRAY = 28,
    OP_TYPE_STRUCT = 30,
    OP_TYPE_POINTER = 32,
    OP_CONSTANT = 43,
    OP_VARIABLE = 59,
    OP_EXECUTION_MODE_ID = 331,
    MODE_LOCAL_SIZE = 17,
    MODE_LOCAL_SIZE_ID = 38,
    STORAGE_WORKGROUP = 4,
    CAP_MATRIX = 0,
    CAP_SHADER = 1,
};

#define SPIRV_MAGIC 0x07230203u
#define SPIRV_MAX_BOUND (1u << 20)

typedef struct spirv_type {
    uint64_t size;  /* bytes; 0: not a sized data type */
    uint32_t align;
    uint32_t pointee, storage; /* pointers */
} spirv_type;

/* Size and alignment of data in workgroup memory: scalars natural, vec3 as
 * vec4 (std430's rules, what drivers lay shared variables out by). */
static void vector_layout(spirv_type *t, const spirv_type *c, uint32_t n)
{
    t->size = c->size * n;
    t->align = c->align * (n == 3 ? 4 : n);
}

sinew_result sinew_spirv_reflect(const uint32_t *code, size_t bytes, sinew_spirv_info *out)
{
    memset(out, 0, sizeof *out);
    if (!code || bytes < 20 || bytes % 4 || code[0] != SPIRV_MAGIC || code[3] == 0 || code[3] > SPIRV_MAX_BOUND)
        return SINEW_RESULT_ERROR_INVALID_ARGUMENT;
    const size_t words = bytes / 4;
    const uint32_t bound = code[3];
    spirv_type *types = calloc(bound, sizeof *types);
    uint64_t *constants = calloc(bound, sizeof *constants);
    if (!types || !constants) {
        free(types);
        free(constants);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    sinew_result r = SINEW_RESULT_OK;
    for (size_t at = 5; at < words && r == SINEW_RESULT_OK;) {
        const uint32_t count = code[at] >> 16, op = code[at] & 0xffffu;
        const uint32_t *w = code + at;
        if (count == 0 || at + count > words) {
            r = SINEW_RESULT_ERROR_INVALID_ARGUMENT;
            break;
        }
        /* Every id operand read below is checked against the bound. */
#define ID_OK(i) ((i) < bound)
        switch (op) {
        case OP_CAPABILITY:
            if (count >= 2 && out->capability_count < SINEW_SPIRV_MAX_CAPABILITIES)
                out->capabilities[out->capability_count++] = w[1];
            break;
        case OP_EXECUTION_MODE:
            if (count >= 6 && w[2] == MODE_LOCAL_SIZE) {
                out->local_size[0] = w[3];
                out->local_size[1] = w[4];
                out->local_size[2] = w[5];
            }
            break;
        case OP_EXECUTION_MODE_ID:
            if (count >= 6 && w[2] == MODE_LOCAL_SIZE_ID && ID_OK(w[3]) && ID_OK(w[4]) && ID_OK(w[5])) {
                for (int i = 0; i < 3; i++)
                    out->local_size[i] = (uint32_t)constants[w[3 + i]];
            }
            break;
        case OP_TYPE_BOOL:
            if (count >= 2 && ID_OK(w[1]))
                types[w[1]] = (spirv_type){4, 4, 0, 0};
            break;
        case OP_TYPE_INT:
        case OP_TYPE_FLOAT:
            if (count >= 3 && ID_OK(w[1]))
                types[w[1]] = (spirv_type){w[2] / 8, w[2] / 8, 0, 0};
            break;
        case OP_TYPE_VECTOR:
        case OP_TYPE_MATRIX:
            if (count >= 4 && ID_OK(w[1]) && ID_OK(w[2])) {
                if (op == OP_TYPE_VECTOR) {
                    vector_layout(&types[w[1]], &types[w[2]], w[3]);
                } else { /* columns laid out as arrays of their vector */
                    uint64_t stride = (types[w[2]].size + types[w[2]].align - 1) / types[w[2]].align * types[w[2]].align;
                    types[w[1]] = (spirv_type){stride * w[3], types[w[2]].align, 0, 0};
                }
            }
            break;
        case OP_TYPE_ARRAY:
            if (count >= 4 && ID_OK(w[1]) && ID_OK(w[2]) && ID_OK(w[3])) {
                const spirv_type *e = &types[w[2]];
                uint64_t stride = e->align ? (e->size + e->align - 1) / e->align * e->align : e->size;
                types[w[1]] = (spirv_type){stride * constants[w[3]], e->align, 0, 0};
            }
            break;
        case OP_TYPE_STRUCT:
            if (count >= 2 && ID_OK(w[1])) {
                uint64_t size = 0;
                uint32_t align = 1;
                for (uint32_t m = 2; m < count; m++) {
                    if (!ID_OK(w[m]))
                        continue;
                    const spirv_type *e = &types[w[m]];
                    uint32_t a = e->align ? e->align : 1;
                    size = (size + a - 1) / a * a + e->size;
                    if (a > align)
                        align = a;
                }
                types[w[1]] = (spirv_type){(size + align - 1) / align * align, align, 0, 0};
            }
            break;
        case OP_TYPE_POINTER:
            if (count >= 4 && ID_OK(w[1]) && ID_OK(w[3]))
                types[w[1]] = (spirv_type){0, 0, w[3], w[2]};
            break;
        case OP_CONSTANT:
            if (count >= 4 && ID_OK(w[2]))
                constants[w[2]] = w[3] | (count >= 5 ? (uint64_t)w[4] << 32 : 0);
            break;
        case OP_VARIABLE:
            if (count >= 4 && w[3] == STORAGE_WORKGROUP && ID_OK(w[1])) {
                const spirv_type *p = &types[w[1]];
                if (ID_OK(p->pointee))
                    out->shared_bytes += types[p->pointee].size;
            }
            break;
        default:
            break;
        }
#undef ID_OK
        at += count;
    }
    free(types);
    free(constants);
    if (r == SINEW_RESULT_OK && out->local_size[0] == 0)
        r = SINEW_RESULT_ERROR_INVALID_ARGUMENT; /* no LocalSize: not one of our compute kernels */
    return r;
}

static const char *capability_name(uint32_t c)
{
    switch (c) {
    case 9: return "Float16";
    case 10: return "Float64";
    case 11: return "Int64";
    case 12: return "Int64Atomics";
    case 22: return "Int16";
    case 39: return "Int8";
    case 61: return "GroupNonUniform";
    case 62: return "GroupNonUniformVote";
    case 63: return "GroupNonUniformArithmetic";
    case 64: return "GroupNonUniformBallot";
    case 65: return "GroupNonUniformShuffle";
    case 66: return "GroupNonUniformShuffleRelative";
    case 67: return "GroupNonUniformClustered";
    case 68: return "GroupNonUniformQuad";
    case 4433: return "StorageBuffer16BitAccess";
    case 4448: return "StorageBuffer8BitAccess";
    case 5345: return "VulkanMemoryModel";
    case 5347: return "PhysicalStorageBufferAddresses";
    case 5612: return "AtomicFloat32MinMaxEXT";
    case 6033: return "AtomicFloat32AddEXT";
    case 6034: return "AtomicFloat64AddEXT";
    default: return NULL;
    }
}

sinew_result sinew_kernel_check(const sinew_logger *lg, const char *name, const uint32_t *code, size_t bytes,
                                uint32_t push_size, const VkPhysicalDeviceLimits *l, const char *whose)
{
    sinew_spirv_info info;
    sinew_result r = sinew_spirv_reflect(code, bytes, &info);
    if (r != SINEW_RESULT_OK)
        return sinew_fail(lg, r, "context", "kernel %s: its SPIR-V could not be read (%s)", name,
                          sinew_result_string(r));
    int bad = 0;
    for (uint32_t i = 0; i < info.capability_count; i++) {
        uint32_t c = info.capabilities[i];
        if (c == CAP_MATRIX || c == CAP_SHADER)
            continue;
        const char *cn = capability_name(c);
        char number[16];
        if (!cn) {
            snprintf(number, sizeof number, "%u", c);
            cn = number;
        }
        sinew_logf(lg, SINEW_LOG_ERROR, "context",
                   "kernel %s uses SPIR-V capability %s, beyond core Vulkan 1.1 (sinew's kernels need no optional "
                   "device feature)", name, cn);
        bad++;
    }
    const uint64_t invocations = (uint64_t)info.local_size[0] * info.local_size[1] * info.local_size[2];
    if (invocations > l->maxComputeWorkGroupInvocations || info.local_size[0] > l->maxComputeWorkGroupSize[0] ||
        info.local_size[1] > l->maxComputeWorkGroupSize[1] || info.local_size[2] > l->maxComputeWorkGroupSize[2]) {
        sinew_logf(lg, SINEW_LOG_ERROR, "context",
                   "kernel %s has workgroups of %u x %u x %u = %llu invocations; %s allow %u (at most %u x %u x %u)",
                   name, info.local_size[0], info.local_size[1], info.local_size[2], (unsigned long long)invocations,
                   whose, l->maxComputeWorkGroupInvocations, l->maxComputeWorkGroupSize[0],
                   l->maxComputeWorkGroupSize[1], l->maxComputeWorkGroupSize[2]);
        bad++;
    }
    if (info.shared_bytes > l->maxComputeSharedMemorySize) {
        sinew_logf(lg, SINEW_LOG_ERROR, "context", "kernel %s uses %llu bytes of shared memory; %s allow %u", name,
                   (unsigned long long)info.shared_bytes, whose, l->maxComputeSharedMemorySize);
        bad++;
    }
    if (push_size > l->maxPushConstantsSize) {
        sinew_logf(lg, SINEW_LOG_ERROR, "context", "kernel %s reads %u bytes of push constants; %s allow %u", name,
                   push_size, whose, l->maxPushConstantsSize);
        bad++;
    }
    if (bad)
        return sinew_fail(lg, SINEW_RESULT_ERROR_UNSUPPORTED, "context", "kernel %s does not fit %s (%d reasons above)",
                          name, whose, bad);
    return SINEW_RESULT_OK;
}
