/* Context creation, device choice and memory accounting. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "gpu_fixture.h"

TestSuite(context, .init = gpu_setup, .fini = gpu_teardown, .timeout = 120);

Test(context, device_info_and_choice_by_name)
{
    sinew_device_info info = sinew_context_get_device_info(gpu_ctx);
    cr_assert_gt(strlen(info.name), 0);
    cr_assert_geq(info.api_version, (1u << 22) | (1u << 12));
    cr_assert_gt(info.max_storage_buffer_range, 0);

    /* The same device again, chosen by part of its name and by index 0..n. */
    char part[8];
    snprintf(part, sizeof part, "%.5s", info.name);
    sinew_context_desc d = sinew_context_desc_default();
    d.logger = *gpu_logger();
    d.device = part;
    sinew_context *again;
    cr_assert_eq(sinew_context_create(&d, &again), SINEW_RESULT_OK);
    cr_assert_str_eq(sinew_context_get_device_info(again).name, info.name);
    sinew_context_destroy(again);
}

Test(context, unknown_device_is_refused_with_its_name)
{
    sinew_context_desc d = sinew_context_desc_default();
    d.logger = *gpu_logger();
    d.device = "no-such-gpu-9000";
    sinew_context *ctx = (sinew_context *)&d; /* must be reset to NULL */
    cr_assert_eq(sinew_context_create(&d, &ctx), SINEW_RESULT_ERROR_NO_DEVICE);
    cr_assert_null(ctx);
    cr_assert(gpu_log_contains("no-such-gpu-9000"));
    gpu_log_clear();
}

Test(context, device_memory_is_accounted_and_released)
{
    uint64_t before = sinew_context_get_device_memory(gpu_ctx);
    sinew_asset *asset = gpu_make_cloth(32, 32, 1.0, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    uint64_t body_bytes = sinew_body_get_stats(body).device_memory;
    /* At least positions, previous positions, velocities and the constraints. */
    uint64_t minimum = 48ull * 1024 + 16ull * asset->distance_count + 32ull * asset->bend_count;
    cr_assert_geq(body_bytes, minimum);
    cr_assert_eq(sinew_context_get_device_memory(gpu_ctx) - before, body_bytes);
    sinew_body_destroy(body);
    cr_assert_eq(sinew_context_get_device_memory(gpu_ctx), before);
    sinew_asset_destroy(asset);
}

Test(context, probe_measures_bandwidth_and_dispatch_cost)
{
    sinew_device_probe probe;
    cr_assert_eq(sinew_context_probe(gpu_ctx, &probe), SINEW_RESULT_OK);
    cr_log_info("copy %.2f GB/s, %.2f us per dependent dispatch (%s)", probe.copy_bytes_per_s * 1e-9,
                probe.dispatch_us, probe.gpu_timed ? "GPU timestamps" : "wall clock");
    cr_assert_gt(probe.copy_bytes, 1u << 20);
    /* Between a slow CPU and any GPU made so far. */
    cr_assert(probe.copy_bytes_per_s > 1e8 && probe.copy_bytes_per_s < 1e14, "%g B/s", probe.copy_bytes_per_s);
    cr_assert(probe.dispatch_us > 0.0 && probe.dispatch_us < 1e5, "%g us", probe.dispatch_us);
}
