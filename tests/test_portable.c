/* Portable limits mode (SINEW_LIMITS_PORTABLE): the profile's limits, what the
 * kernels ask of them read from their SPIR-V, refusals of what does not fit,
 * and every solver family stepping bit-identically in both modes. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu/gpu.h"
#include "gpu/limits.h"
#include "gpu_fixture.h"
#include "prep/hierarchy.h"
#include "shared/pbd.h"
#include "prep/redblack.h"
#include "prep/soft.h"
#include "prep/volume.h"

/* tests/portable/oversized.comp: 256 invocations, 36 000 bytes of shared
 * memory, 64-bit integers and subgroup operations. */
static const uint32_t oversized_spirv[] = {
#include "oversized.comp.inc"
};

TestSuite(portable, .init = gpu_setup, .fini = gpu_teardown, .timeout = 300);

/* An H100's compute limits (vulkaninfo, driver 550): far above the profile's. */
static VkPhysicalDeviceLimits large_device(void)
{
    VkPhysicalDeviceLimits l = {0};
    l.maxStorageBufferRange = 4294967295u;
    l.maxPushConstantsSize = 256;
    l.maxBoundDescriptorSets = 32;
    l.maxPerStageDescriptorStorageBuffers = 1048576;
    l.maxDescriptorSetStorageBuffers = 1048576;
    l.maxPerStageResources = 4294967295u;
    l.maxComputeSharedMemorySize = 49152;
    l.maxComputeWorkGroupInvocations = 1024;
    for (int i = 0; i < 3; i++)
        l.maxComputeWorkGroupCount[i] = 2147483647u;
    l.maxComputeWorkGroupSize[0] = l.maxComputeWorkGroupSize[1] = 1024;
    l.maxComputeWorkGroupSize[2] = 64;
    l.minStorageBufferOffsetAlignment = 16;
    l.nonCoherentAtomSize = 64;
    return l;
}

Test(portable, profile_lowers_a_large_device_to_the_baseline)
{
    VkPhysicalDeviceLimits l = large_device();
    sinew_limits_clamp_portable(&l);
    cr_expect_eq(l.maxStorageBufferRange, 268435456u);
    cr_expect_eq(l.maxPushConstantsSize, 128u);
    cr_expect_eq(l.maxBoundDescriptorSets, 4u);
    cr_expect_eq(l.maxPerStageDescriptorStorageBuffers, 35u);
    cr_expect_eq(l.maxDescriptorSetStorageBuffers, 72u);
    cr_expect_eq(l.maxPerStageResources, 79u);
    cr_expect_eq(l.maxComputeSharedMemorySize, 32768u);
    cr_expect_eq(l.maxComputeWorkGroupInvocations, 128u);
    cr_expect_eq(l.maxComputeWorkGroupCount[0], 65535u);
    cr_expect_eq(l.maxComputeWorkGroupSize[0], 128u);
    cr_expect_eq(l.maxComputeWorkGroupSize[2], 64u, "a limit already tighter stays");
    cr_expect_eq(l.minStorageBufferOffsetAlignment, 256u, "alignments rise to what the profile lets a device need");
}

Test(portable, context_keeps_the_lower_of_device_and_profile)
{
    sinew_context_desc d = sinew_context_desc_default();
    d.logger = *gpu_logger();
    d.validation = 1;
    sinew_context *native = NULL, *portable = NULL;
    d.limits = SINEW_LIMITS_DEVICE;
    cr_assert_eq(sinew_context_create(&d, &native), SINEW_RESULT_OK);
    d.limits = SINEW_LIMITS_PORTABLE;
    cr_assert_eq(sinew_context_create(&d, &portable), SINEW_RESULT_OK);
    sinew_device_info n = sinew_context_get_device_info(native), p = sinew_context_get_device_info(portable);
    cr_expect_eq(n.limits, SINEW_LIMITS_DEVICE);
    cr_expect_eq(p.limits, SINEW_LIMITS_PORTABLE);
    cr_expect_eq(n.max_workgroup_invocations, native->props.limits.maxComputeWorkGroupInvocations);
    cr_expect_eq(p.max_workgroup_invocations, n.max_workgroup_invocations < 128 ? n.max_workgroup_invocations : 128);
    uint64_t range = n.max_storage_buffer_range < 268435456u ? n.max_storage_buffer_range : 268435456u;
    cr_expect_eq(p.max_storage_buffer_range, range);
    cr_expect_leq(p.max_shared_memory, 32768u);
    cr_expect_leq(p.max_push_constants, 128u);
    cr_expect_leq(p.max_storage_buffers_per_stage, 35u);
    cr_expect_geq(p.max_storage_buffers_per_stage, (uint32_t)(SINEW_BODY_BINDINGS + SINEW_SOLVER_BINDINGS));
    cr_expect_eq(sinew_context_get_validation_message_count(native), 0);
    cr_expect_eq(sinew_context_get_validation_message_count(portable), 0);
    sinew_context_destroy(native);
    sinew_context_destroy(portable);
}

Test(portable, bad_limits_value_is_refused)
{
    sinew_context_desc d = sinew_context_desc_default();
    d.logger = *gpu_logger();
    d.limits = 7;
    sinew_context *ctx = NULL;
    cr_expect_eq(sinew_context_create(&d, &ctx), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect_null(ctx);
    cr_expect(gpu_log_contains("desc.limits is 7"));

    /* The environment is read only when desc.limits is left at its default. */
    setenv("SINEW_LIMITS", "bogus", 1);
    d.limits = SINEW_LIMITS_DEFAULT;
    cr_expect_eq(sinew_context_create(&d, &ctx), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("SINEW_LIMITS is \"bogus\"; expected \"portable\" or \"device\""));
    d.limits = SINEW_LIMITS_PORTABLE;
    cr_assert_eq(sinew_context_create(&d, &ctx), SINEW_RESULT_OK);
    cr_expect_eq(sinew_context_get_device_info(ctx).limits, SINEW_LIMITS_PORTABLE);
    sinew_context_destroy(ctx);
    unsetenv("SINEW_LIMITS");
    gpu_log_clear();
}

/* What each of sinew's kernels asks for, read from its SPIR-V against what
 * its GLSL says: 64 invocations; shared memory only in the reductions and a
 * cluster's positions. */
Test(portable, every_kernel_fits_the_profile)
{
    VkPhysicalDeviceLimits profile = large_device();
    sinew_limits_clamp_portable(&profile);
    for (int k = 0; k < SINEW_KERNEL_COUNT; k++) {
        const sinew_kernel_info *ki = &sinew_kernels[k];
        sinew_spirv_info info;
        cr_assert_eq(sinew_spirv_reflect(ki->spirv, ki->spirv_size, &info), SINEW_RESULT_OK, "%s", ki->name);
        cr_expect_eq(info.local_size[0] * info.local_size[1] * info.local_size[2], SINEW_WORKGROUP_SIZE, "%s",
                     ki->name);
        for (uint32_t c = 0; c < info.capability_count; c++)
            cr_expect(info.capabilities[c] <= 1, "%s declares capability %u", ki->name, info.capabilities[c]);
        uint64_t shared = 0;
        if (!strcmp(ki->name, "residual") || !strcmp(ki->name, "residual_reduce"))
            shared = 16u * SINEW_WORKGROUP_SIZE; /* vec4 red[SINEW_WORKGROUP_SIZE] */
        else if (!strcmp(ki->name, "pbd_residual") || !strcmp(ki->name, "gpbd_residual") ||
                 !strcmp(ki->name, "pd_residual"))
            shared = 8u * SINEW_WORKGROUP_SIZE; /* vec2 red[SINEW_WORKGROUP_SIZE] */
        else if (!strcmp(ki->name, "health") || !strcmp(ki->name, "velocity"))
            shared = 28; /* the health check's seven uints: four for the particles, three for the tetrahedra */
        else if (!strncmp(ki->name, "gpbd_colour", 11) || !strncmp(ki->name, "gpbd_jacobi", 11))
            shared = 4; /* one uint */
        else if (!strcmp(ki->name, "mg_pcg") || !strcmp(ki->name, "mg_reduce") || !strcmp(ki->name, "mg_coarse"))
            shared = 4u * SINEW_WORKGROUP_SIZE; /* float mg_red[SINEW_WORKGROUP_SIZE] */
        else if (!strcmp(ki->name, "amg_vector") || !strcmp(ki->name, "amg_reduce"))
            shared = 4u * SINEW_WORKGROUP_SIZE; /* float amg_red[SINEW_WORKGROUP_SIZE] */
        else if (!strcmp(ki->name, "project_clusters")) /* a cluster's positions */
            shared = 16u * SINEW_CLUSTER_SHARED_PARTICLES;
        else if (!strcmp(ki->name, "self_build")) /* two uint sums and the sweeps' vec4 sum */
            shared = (4u + 4u + 16u) * SINEW_WORKGROUP_SIZE;
        else if (!strcmp(ki->name, "self_query")) /* the kept and dropped candidates' sums */
            shared = (4u + 4u) * SINEW_WORKGROUP_SIZE;
        else if (!strcmp(ki->name, "self_project")) /* the contacts' sum (the second sum is 0 there) */
            shared = 4u * SINEW_WORKGROUP_SIZE;
        else if (!strcmp(ki->name, "amg_coarse")) /* the dense factor and a vector */
            shared = 4u * (SINEW_AMG_DENSE_ROWS * SINEW_AMG_DENSE_ROWS + SINEW_AMG_DENSE_ROWS);
        cr_expect_eq(info.shared_bytes, shared, "%s: %llu bytes of shared memory", ki->name,
                     (unsigned long long)info.shared_bytes);
        cr_expect_eq(sinew_kernel_check(gpu_logger(), ki->name, ki->spirv, ki->spirv_size, ki->push_size, &profile,
                                        "the profile"),
                     SINEW_RESULT_OK, "%s", ki->name);
    }
}

Test(portable, oversized_kernel_is_refused_with_every_reason)
{
    sinew_spirv_info info;
    cr_assert_eq(sinew_spirv_reflect(oversized_spirv, sizeof oversized_spirv, &info), SINEW_RESULT_OK);
    cr_expect_eq(info.local_size[0], 256u);
    cr_expect_eq(info.shared_bytes, 36000u);

    VkPhysicalDeviceLimits profile = large_device();
    sinew_limits_clamp_portable(&profile);
    gpu_log_clear();
    cr_expect_eq(sinew_kernel_check(gpu_logger(), "oversized", oversized_spirv, sizeof oversized_spirv, 8, &profile,
                                    "the portable limits"),
                 SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_expect(gpu_log_contains("kernel oversized uses SPIR-V capability Int64"));
    cr_expect(gpu_log_contains("kernel oversized uses SPIR-V capability GroupNonUniform"));
    cr_expect(gpu_log_contains("256 x 1 x 1 = 256 invocations; the portable limits allow 128"));
    cr_expect(gpu_log_contains("36000 bytes of shared memory; the portable limits allow 32768"));
    cr_expect(gpu_log_contains("does not fit the portable limits (4 reasons above)"));

    /* The large device takes its size but not its capabilities (sinew enables
     * no optional feature) nor, with more push constants than it has, that. */
    VkPhysicalDeviceLimits large = large_device();
    gpu_log_clear();
    cr_expect_eq(sinew_kernel_check(gpu_logger(), "oversized", oversized_spirv, sizeof oversized_spirv, 512, &large,
                                    "this device's limits"),
                 SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_expect(!gpu_log_contains("invocations;"));
    cr_expect(!gpu_log_contains("bytes of shared memory;"));
    cr_expect(gpu_log_contains("reads 512 bytes of push constants; this device's limits allow 256"));
    cr_expect(gpu_log_contains("(3 reasons above)"));

    /* Not SPIR-V, cut short, or without a workgroup size: refused, not read past. */
    cr_expect_eq(sinew_spirv_reflect(oversized_spirv, 16, &info), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(sinew_spirv_reflect(oversized_spirv, sizeof oversized_spirv - 2, &info),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    uint32_t *cut = malloc(sizeof oversized_spirv);
    memcpy(cut, oversized_spirv, sizeof oversized_spirv);
    cut[0] ^= 1u;
    cr_expect_eq(sinew_spirv_reflect(cut, sizeof oversized_spirv, &info), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    memcpy(cut, oversized_spirv, sizeof oversized_spirv);
    cut[5] = 0; /* an instruction of zero words */
    cr_expect_eq(sinew_spirv_reflect(cut, sizeof oversized_spirv, &info), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    free(cut);
    gpu_log_clear();
}

/* A body with more particles than one binding holds is refused before any
 * memory is allocated, naming the buffer and the limit; a body already on the
 * context is untouched and steps on. */
Test(portable, body_past_a_binding_is_refused_and_nothing_is_lost)
{
    sinew_context_desc d = sinew_context_desc_default();
    d.logger = *gpu_logger();
    d.validation = 1;
    d.limits = SINEW_LIMITS_PORTABLE;
    sinew_context *ctx = NULL;
    cr_assert_eq(sinew_context_create(&d, &ctx), SINEW_RESULT_OK);
    sinew_device_info info = sinew_context_get_device_info(ctx);

    sinew_asset *small = gpu_make_cloth(8, 8, 0.5, 1.0, 1);
    sinew_body_desc bd = sinew_body_desc_default();
    sinew_body *kept = NULL;
    cr_assert_eq(sinew_body_create(ctx, small, &bd, &kept), SINEW_RESULT_OK);
    sinew_step_params sp = sinew_step_params_default();
    cr_assert_eq(sinew_body_step(kept, &sp), SINEW_RESULT_OK);
    float before[3 * 64];
    cr_assert_eq(sinew_body_read_positions(kept, before, 64), SINEW_RESULT_OK);

    /* 16 bytes a particle: one more particle than a binding of positions holds. */
    uint32_t n = (uint32_t)(info.max_storage_buffer_range / 16 + 1);
    sinew_asset *big = sinew_asset_alloc(n, 0, 0, 0, 0);
    cr_assert_not_null(big);
    for (uint32_t i = 0; i < n; i++)
        big->particles[i] = (sinew_particle_rec){(float)(i % 1000) * 0.01f, 1.0f, (float)(i / 1000) * 0.01f, 1.0f};
    uint64_t memory = sinew_context_get_device_memory(ctx);
    gpu_log_clear();
    sinew_body *body = NULL;
    cr_expect_eq(sinew_body_create(ctx, big, &bd, &body), SINEW_RESULT_ERROR_LIMIT);
    cr_expect_null(body);
    char want[160];
    snprintf(want, sizeof want, "positions needs %llu bytes", 16ull * n);
    cr_expect(gpu_log_contains(want), "expected \"%s\"", want);
    cr_expect(gpu_log_contains("per storage-buffer binding"));
    cr_expect_eq(sinew_context_get_device_memory(ctx), memory, "nothing allocated, nothing leaked");
    gpu_log_clear();
    sinew_asset_destroy(big);

    float after[3 * 64];
    cr_assert_eq(sinew_body_read_positions(kept, after, 64), SINEW_RESULT_OK);
    cr_expect_eq(memcmp(before, after, sizeof before), 0, "the body already there is untouched");
    cr_expect_eq(sinew_body_step(kept, &sp), SINEW_RESULT_OK);
    sinew_body_destroy(kept);
    sinew_asset_destroy(small);
    cr_expect_eq(sinew_context_get_validation_message_count(ctx), 0);
    sinew_context_destroy(ctx);
}

/* ------------------------------------------------ native against portable */

static sinew_asset *cloth(void) { return gpu_make_cloth(14, 14, 0.6, 1.0, 1); }

static sinew_asset *cloth_hierarchy(void)
{
    sinew_asset *a = gpu_make_cloth(16, 16, 0.6, 1.0, 1);
    sinew_hierarchy_options o = sinew_hierarchy_options_default();
    o.min_particles = 8;
    cr_assert_eq(sinew_hierarchy_build(a, &o, gpu_logger(), NULL), SINEW_RESULT_OK);
    cr_assert_gt(a->level_count, 1);
    return a;
}

static sinew_asset *quad_cloth(void)
{
    sinew_mesh mesh;
    double origin[3] = {0.0, 1.0, 0.0};
    cr_assert_eq(sinew_mesh_grid(14, 14, 0.6, 0.6, SINEW_GRID_XZ, origin, &mesh), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.shear = 0;
    opt.bending = 0;
    uint32_t pins[2] = {0, 13};
    opt.pin_indices = pins;
    opt.pin_count = 2;
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_cloth_build(&mesh, &opt, gpu_logger(), &a, NULL), SINEW_RESULT_OK);
    sinew_mesh_free(&mesh);
    cr_assert_eq(sinew_redblack_asset(a, "quad cloth", gpu_logger(), NULL), SINEW_RESULT_OK);
    return a;
}

static sinew_asset *block(void)
{
    sinew_volume v;
    const double size[3] = {0.3, 0.15, 0.15}, origin[3] = {-0.15, 0.6, -0.075};
    cr_assert_eq(sinew_volume_box(9, 5, 5, size, origin, &v), SINEW_RESULT_OK);
    sinew_soft_options o = sinew_soft_options_default();
    o.youngs_modulus = 2e5;
    o.poisson_ratio = 0.3;
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_soft_build(&v, &o, gpu_logger(), &a, NULL), SINEW_RESULT_OK);
    sinew_volume_free(&v);
    return a;
}

/* Steps the asset 25 times on a context of each mode, with ground, sphere
 * and a moving box in the way, and compares the positions bit for bit. */
static void agree(sinew_solver solver, sinew_asset *(*make)(void))
{
    sinew_asset *a = make();
    const uint32_t n = sinew_asset_get_info(a).particle_count;
    float *x[2];
    for (int mode = 0; mode < 2; mode++) {
        sinew_context_desc d = sinew_context_desc_default();
        d.logger = *gpu_logger();
        d.validation = 1;
        d.limits = mode ? SINEW_LIMITS_PORTABLE : SINEW_LIMITS_DEVICE;
        sinew_context *ctx = NULL;
        cr_assert_eq(sinew_context_create(&d, &ctx), SINEW_RESULT_OK);
        sinew_body_desc bd = sinew_body_desc_default();
        bd.solver = solver;
        bd.substeps = 2;
        bd.iterations = 8;
        if (solver >= SINEW_SOLVER_PD_RED_BLACK) {
            bd.stretch_compliance = bd.shear_compliance = 1.0f / 300.0f;
            bd.chebyshev_rho = 0.9f;
        }
        sinew_body *b = NULL;
        cr_assert_eq(sinew_body_create(ctx, a, &bd, &b), SINEW_RESULT_OK, "solver %d", (int)solver);
        sinew_step_params sp = sinew_step_params_default();
        sp.ground = 1;
        sp.ground_height = 0.2f;
        sp.sphere = 1;
        sp.sphere_center[0] = 0.3f;
        sp.sphere_center[1] = 0.55f;
        sp.sphere_center[2] = 0.3f;
        sp.sphere_radius = 0.2f;
        sp.box = 1;
        sp.box_half_extents[0] = sp.box_half_extents[1] = sp.box_half_extents[2] = 0.1f;
        sp.box_velocity[0] = 0.5f;
        sp.friction = 0.4f;
        for (int s = 0; s < 25; s++) {
            sp.box_center[0] = -0.2f + 0.5f * sp.dt * (float)s;
            sp.box_center[1] = 0.45f;
            sp.box_center[2] = 0.3f;
            cr_assert_eq(sinew_body_step(b, &sp), SINEW_RESULT_OK);
        }
        x[mode] = malloc(12u * n);
        cr_assert_eq(sinew_body_read_positions(b, x[mode], n), SINEW_RESULT_OK);
        sinew_body_destroy(b);
        cr_expect_eq(sinew_context_get_validation_message_count(ctx), 0);
        sinew_context_destroy(ctx);
    }
    uint32_t differ = 0;
    for (uint32_t i = 0; i < 3 * n; i++)
        differ += memcmp(&x[0][i], &x[1][i], sizeof(float)) != 0;
    cr_expect_eq(differ, 0, "solver %d: %u of %u coordinates differ between native and portable", (int)solver,
                 differ, 3 * n);
    float moved = 0.0f; /* the scene did something */
    for (uint32_t i = 0; i < n; i++)
        moved = fmaxf(moved, fabsf(x[0][3 * i + 1] - a->particles[i].y));
    cr_expect_gt(moved, 0.01f, "solver %d: the body moved %g m", (int)solver, (double)moved);
    free(x[0]);
    free(x[1]);
    sinew_asset_destroy(a);
}

Test(portable, xpbd_gauss_seidel_agrees) { agree(SINEW_SOLVER_XPBD_GAUSS_SEIDEL, cloth); }
Test(portable, xpbd_jacobi_agrees) { agree(SINEW_SOLVER_XPBD_JACOBI, cloth); }
Test(portable, xpbd_symmetric_agrees) { agree(SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL, cloth); }
Test(portable, gpbd_gauss_seidel_agrees) { agree(SINEW_SOLVER_GPBD_GAUSS_SEIDEL, block); }
Test(portable, gpbd_jacobi_agrees) { agree(SINEW_SOLVER_GPBD_JACOBI, block); }
Test(portable, hpbd_agrees) { agree(SINEW_SOLVER_HPBD, cloth_hierarchy); }
Test(portable, pd_red_black_agrees) { agree(SINEW_SOLVER_PD_RED_BLACK, quad_cloth); }
Test(portable, pd_chebyshev_agrees) { agree(SINEW_SOLVER_PD_CHEBYSHEV, quad_cloth); }
