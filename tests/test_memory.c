/* What a step costs the host, and where a body's memory lives: every solver's
 * submits, host waits, bytes read back and allocations per step, in the
 * device's own memory model and in the discrete-GPU one; the same bits in
 * both; allocation failures that name the heap; a body larger than the
 * discrete mode's host-visible heap. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu/gpu.h"
#include "gpu_fixture.h"
#include "prep/cloth.h"
#include "prep/hierarchy.h"
#include "prep/mesh.h"
#include "prep/nested.h"
#include "prep/redblack.h"
#include "prep/soft.h"
#include "prep/volume.h"

TestSuite(memory, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

static uint32_t positions_crc(sinew_body *body, uint32_t n)
{
    float *x = malloc(12ull * n);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    uint32_t crc = sinew_crc32(0, x, 12ull * n);
    free(x);
    return crc;
}

typedef struct step_cost {
    sinew_step_stats stats;
    uint32_t context_allocations; /* the context's, with the body alive */
    uint32_t hash;                /* of the positions after the steps */
} step_cost;

/* A context of memory model `model` with validation. */
static sinew_context *model_context(int model)
{
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger = *gpu_logger();
    cd.validation = 1;
    cd.memory = model;
    sinew_context *ctx = NULL;
    cr_assert_eq(sinew_context_create(&cd, &ctx), SINEW_RESULT_OK);
    return ctx;
}

/* Three steps of `solver` on its asset in `ctx`, which holds no other body
 * (health check and rollback on, no timestamps): the last step's stats. */
static step_cost run(sinew_context *ctx, sinew_solver solver)
{
    sinew_asset *a = gpu_make_solver_asset(solver);
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = solver;
    d.substeps = 2;
    d.iterations = 2;
    d.timestamps = 0;
    if (solver == SINEW_SOLVER_PD_RED_BLACK || solver == SINEW_SOLVER_PD_JACOBI || solver == SINEW_SOLVER_PD_CHEBYSHEV)
        d.stretch_compliance = d.shear_compliance = 1e-4f; /* springs of finite stiffness */
    gpu_log_clear();
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(ctx, a, &d, &body), SINEW_RESULT_OK, "%s: %s", sinew_solver_name(solver),
                 gpu_log_text());
    sinew_step_params p = sinew_step_params_default();
    for (int s = 0; s < 3; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "%s, step %d", sinew_solver_name(solver), s);
    step_cost c = {sinew_body_get_stats(body), sinew_context_get_allocation_count(ctx), 0};
    c.hash = positions_crc(body, a->particle_count);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
    cr_expect_eq(sinew_context_get_device_memory(ctx), 16, "%s: the body's memory was all freed (the empty "
                 "binding's 16 bytes stay)", sinew_solver_name(solver));
    cr_expect_eq(sinew_context_get_validation_message_count(ctx), 0, "%s", sinew_solver_name(solver));
    return c;
}

/* Every solver's step is one recorded command buffer (the implicit solvers'
 * convergence decided on the device): one submit, one wait, its statistics
 * alone read back, a handful of allocations; the same positions in both
 * memory models. One context of each model serves every solver in turn
 * (making one, its pipelines included, costs seconds on lavapipe), each
 * body's memory all returned to it before the next. */
Test(memory, a_step_is_one_submit_and_one_wait)
{
    sinew_context *device_ctx = model_context(SINEW_MEMORY_MODEL_DEVICE);
    sinew_context *discrete_ctx = model_context(SINEW_MEMORY_MODEL_DISCRETE);
    for (int s = 0; sinew_solver_name((sinew_solver)s); s++) {
        const sinew_solver solver = (sinew_solver)s;
        step_cost device = run(device_ctx, solver);
        step_cost discrete = run(discrete_ctx, solver);
        const step_cost *both[2] = {&device, &discrete};
        for (int m = 0; m < 2; m++) {
            const sinew_step_stats *st = &both[m]->stats;
            const char *model = m ? "discrete" : "device";
            cr_expect_eq(st->submits, 1, "%s (%s memory): %u submits a step", sinew_solver_name(solver), model,
                         st->submits);
            cr_expect_eq(st->host_waits, 1, "%s (%s memory): %u host waits a step", sinew_solver_name(solver), model,
                         st->host_waits);
            cr_expect_leq(st->readback_bytes, 256, "%s (%s memory): %llu bytes read back a step",
                          sinew_solver_name(solver), model, (unsigned long long)st->readback_bytes);
            /* MGPBD: its own particles' buffers and its two images' chunks,
             * made apart since each setup makes the hierarchy's anew */
            const uint32_t most = solver == SINEW_SOLVER_MGPBD ? 12 : 8;
            cr_expect_leq(st->device_allocations, most, "%s (%s memory): the body is in %u allocations",
                          sinew_solver_name(solver), model, st->device_allocations);
            cr_expect_geq(st->device_allocations, 1);
        }
        cr_expect_eq(device.hash, discrete.hash, "%s: positions differ between the memory models",
                     sinew_solver_name(solver));
        cr_expect_eq(device.stats.device_memory, discrete.stats.device_memory, "%s", sinew_solver_name(solver));
        if (solver == SINEW_SOLVER_IMPLICIT_MG || solver == SINEW_SOLVER_IMPLICIT_PCG) {
            cr_expect_gt(device.stats.linear_iterations, 0, "%s: the device's totals reach the stats",
                         sinew_solver_name(solver));
            cr_expect_eq(device.stats.linear_iterations, discrete.stats.linear_iterations);
        }
    }
    sinew_context_destroy(device_ctx);
    sinew_context_destroy(discrete_ctx);
}

/* The discrete mode maps no device buffer; the host-visible heap it allows
 * is 256 MiB, and a failure names what asked and the heaps tried. */
Test(memory, discrete_mode_keeps_state_unmapped_and_caps_host_memory)
{
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger = *gpu_logger();
    cd.validation = 1;
    cd.memory = SINEW_MEMORY_MODEL_DISCRETE;
    sinew_context *ctx = NULL;
    cr_assert_eq(sinew_context_create(&cd, &ctx), SINEW_RESULT_OK);
    sinew_buffer dev, host, big;
    cr_assert_eq(sinew_buffer_create(ctx, 1024, SINEW_MEMORY_DEVICE, "state", &dev), SINEW_RESULT_OK);
    cr_expect_null(dev.mapped, "device buffers are not mapped in the discrete mode");
    cr_assert_eq(sinew_buffer_create(ctx, 1024, SINEW_MEMORY_HOST, "staging", &host), SINEW_RESULT_OK);
    cr_expect_not_null(host.mapped);
    /* Through staging, both ways. */
    uint32_t in[256], out[256];
    for (int i = 0; i < 256; i++)
        in[i] = 0x9e3779b9u * (uint32_t)i;
    cr_assert_eq(sinew_buffer_upload(ctx, &dev, 0, in, sizeof in), SINEW_RESULT_OK);
    cr_assert_eq(sinew_buffer_download(ctx, &dev, 0, out, sizeof out), SINEW_RESULT_OK);
    cr_expect_arr_eq(in, out, sizeof in);
    gpu_log_clear();
    sinew_buffer areas[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(sinew_buffer_create(ctx, 100ull << 20, SINEW_MEMORY_HOST, "an upload area", &areas[i]),
                     SINEW_RESULT_OK);
    cr_expect_eq(sinew_buffer_create(ctx, 100ull << 20, SINEW_MEMORY_HOST, "a third upload area", &big),
                 SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    cr_expect(gpu_log_contains("a third upload area needs 104857600 bytes of host-visible memory"), "%s",
              gpu_log_text());
    cr_expect(gpu_log_contains("of the 256 MiB the discrete-GPU memory mode allows are in use"), "%s",
              gpu_log_text());
    gpu_log_clear();
    sinew_buffer_destroy(ctx, &big);
    for (int i = 0; i < 2; i++)
        sinew_buffer_destroy(ctx, &areas[i]);
    sinew_buffer_destroy(ctx, &dev);
    sinew_buffer_destroy(ctx, &host);
    cr_expect_eq(sinew_context_get_allocation_count(ctx), 3,
                 "the empty binding's allocation and the staging and readback buffers' are left");
    sinew_context_destroy(ctx);
}

/* A body's buffers share allocations: a cloth body is a few allocations,
 * not one per buffer, and destroying it returns every one. */
Test(memory, a_body_is_a_few_allocations)
{
    sinew_asset *a = gpu_make_cloth(16, 16, 1.0, 1.0, 1);
    const uint32_t before = sinew_context_get_allocation_count(gpu_ctx);
    sinew_body_desc d = sinew_body_desc_default();
    d.normals = 1;
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    const sinew_step_stats st = sinew_body_get_stats(body);
    const uint32_t during = sinew_context_get_allocation_count(gpu_ctx);
    cr_expect_leq(st.device_allocations, 4, "a Gauss-Seidel cloth body in %u allocations", st.device_allocations);
    cr_expect_leq(during - before, st.device_allocations + 2,
                  "the context holds %u more allocations (the body says %u; staging and readback buffers are the "
                  "context's)", during - before, st.device_allocations);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
    cr_expect_leq(sinew_context_get_allocation_count(gpu_ctx), before + 2);
}

/* A body larger than the discrete mode's 256 MiB host-visible heap is made,
 * uploaded through the staging buffer in pieces, stepped and read back. */
Test(memory, a_body_past_the_host_visible_heap)
{
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger = *gpu_logger();
    cd.validation = 1;
    cd.memory = SINEW_MEMORY_MODEL_DISCRETE;
    sinew_context *ctx = NULL;
    cr_assert_eq(sinew_context_create(&cd, &ctx), SINEW_RESULT_OK);
    /* 1100 x 1100 particles: positions, velocities, constraints, hinge
     * angles and multipliers are about 300 MiB of device memory, each buffer
     * within lavapipe's 128 MiB a binding. */
    const uint32_t n = 1100;
    sinew_asset *a = gpu_make_cloth(n, n, 10.0, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    d.substeps = 1;
    d.iterations = 1;
    d.rollback = 0;
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(ctx, a, &d, &body), SINEW_RESULT_OK);
    sinew_step_stats st = sinew_body_get_stats(body);
    cr_expect_gt(st.device_memory, 256ull << 20, "%llu bytes", (unsigned long long)st.device_memory);
    sinew_step_params p = sinew_step_params_default();
    cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    float *x = malloc(12ull * n * n);
    cr_assert_eq(sinew_body_read_positions(body, x, n * n), SINEW_RESULT_OK);
    /* The last particle fell by one step of gravity (it is not pinned). */
    const float y0 = a->particles[n * n - 1].y;
    cr_expect(x[3ull * (n * n - 1) + 1] < y0 && x[3ull * (n * n - 1) + 1] > y0 - 0.01f, "%g from %g",
              x[3ull * (n * n - 1) + 1], y0);
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
    sinew_context_destroy(ctx);
}

/* A pipelined body steps to the same bits as a waiting one, each step one
 * submit and at most one wait (for the step before, if it is still running),
 * and its statistics are those of the last finished step. */
Test(memory, pipelined_steps_match_waiting_ones)
{
    sinew_asset *a = gpu_make_cloth(16, 16, 1.0, 1.0, 1);
    sinew_body *body[2];
    for (int k = 0; k < 2; k++) {
        sinew_body_desc d = sinew_body_desc_default();
        d.pipelined = k;
        cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body[k]), SINEW_RESULT_OK);
    }
    sinew_step_params p = sinew_step_params_default();
    for (int s = 0; s < 10; s++) {
        for (int k = 0; k < 2; k++)
            cr_assert_eq(sinew_body_step(body[k], &p), SINEW_RESULT_OK, "step %d, pipelined %d", s, k);
        sinew_step_stats st = sinew_body_get_stats(body[1]);
        cr_expect_eq(st.submits, 1, "step %d: %u submits", s, st.submits);
        cr_expect_leq(st.host_waits, 1, "step %d: %u waits", s, st.host_waits);
        cr_expect_eq(st.step_index, (uint64_t)s, "the statistics are the step before's: %llu at step %d",
                     (unsigned long long)st.step_index, s);
    }
    cr_assert_eq(sinew_body_wait(body[1]), SINEW_RESULT_OK);
    cr_expect_eq(sinew_body_get_stats(body[1]).step_index, 10);
    cr_expect_eq(sinew_body_wait(body[1]), SINEW_RESULT_OK, "nothing in flight: OK at once");
    cr_expect_eq(positions_crc(body[0], a->particle_count), positions_crc(body[1], a->particle_count));
    /* A read while a step runs finishes it first. */
    cr_assert_eq(sinew_body_step(body[1], &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_step(body[0], &p), SINEW_RESULT_OK);
    cr_expect_eq(positions_crc(body[0], a->particle_count), positions_crc(body[1], a->particle_count));
    cr_expect_eq(sinew_body_get_stats(body[1]).step_index, 11);
    for (int k = 0; k < 2; k++)
        sinew_body_destroy(body[k]);
    sinew_asset_destroy(a);
}

/* A pipelined step that fails its health check is reported by the next call,
 * which submits nothing, and is rolled back as a waiting body's is. */
Test(memory, a_pipelined_failure_is_reported_by_the_next_call)
{
    sinew_asset *a = gpu_make_cloth(8, 8, 0.5, 1.0, 1);
    sinew_body *body[2];
    for (int k = 0; k < 2; k++) {
        sinew_body_desc d = sinew_body_desc_default();
        d.pipelined = k;
        d.max_speed = 0.05f; /* the first step's fall is faster */
        cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body[k]), SINEW_RESULT_OK);
    }
    const uint32_t start = positions_crc(body[0], a->particle_count);
    sinew_step_params p = sinew_step_params_default();
    cr_expect_eq(sinew_body_step(body[0], &p), SINEW_RESULT_ERROR_UNSTABLE);
    const uint32_t waiting_submits = sinew_body_get_stats(body[0]).submits; /* the step and the rollback's copies */
    cr_expect_eq(sinew_body_step(body[1], &p), SINEW_RESULT_OK, "submitted, not yet known");
    cr_expect_eq(sinew_body_step(body[1], &p), SINEW_RESULT_ERROR_UNSTABLE, "the step before failed");
    sinew_step_stats st = sinew_body_get_stats(body[1]);
    cr_expect_eq(st.submits + 1, waiting_submits, "the failed step's successor is not submitted (%u, %u)",
                 st.submits, waiting_submits);
    cr_expect(st.rolled_back);
    cr_expect_eq(sinew_body_wait(body[1]), SINEW_RESULT_OK, "reported once");
    cr_expect_eq(positions_crc(body[1], a->particle_count), start, "rolled back to the state before the step");
    cr_expect_eq(positions_crc(body[0], a->particle_count), start);
    gpu_log_clear(); /* the health check's messages */
    for (int k = 0; k < 2; k++)
        sinew_body_destroy(body[k]);
    sinew_asset_destroy(a);
}
