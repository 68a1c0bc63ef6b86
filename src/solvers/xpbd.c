/* XPBD (Macklin, Müller and Chentanez 2016), colour-batched Gauss-Seidel or
 * Jacobi with per-particle gather; MATH.md sections 1 and 2. The recording
 * reads like the algorithm: dispatch, barrier, dispatch. */
#include "../body.h"

static void timestamp(sinew_body *b, sinew_recorder *r, uint32_t index)
{
    if (b->queries)
        r->ctx->vk.vkCmdWriteTimestamp(r->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, b->queries, index);
}

static void record_gauss_seidel(sinew_body *b, sinew_recorder *r)
{
    for (uint32_t c = 0; c < b->colour_count; c++) {
        const sinew_colour_rec *col = &b->colours[c];
        GpuRange push = {col->distance_begin, col->distance_count, col->bend_begin, col->bend_count,
                         b->distance_count};
        sinew_record_dispatch(r, SINEW_KERNEL_PROJECT_COLOUR, col->distance_count + col->bend_count, &push,
                              sizeof push);
        sinew_record_barrier(r); /* the next colour reads what this one wrote */
    }
}

static void record_jacobi(sinew_body *b, sinew_recorder *r)
{
    GpuRange project = {0, b->distance_count, 0, b->bend_count, b->distance_count};
    sinew_record_dispatch(r, SINEW_KERNEL_JACOBI_PROJECT, b->distance_count + b->bend_count, &project,
                          sizeof project);
    sinew_record_barrier(r);
    GpuRange apply = {0, b->particle_count};
    sinew_record_dispatch(r, SINEW_KERNEL_JACOBI_APPLY, b->particle_count, &apply, sizeof apply);
    sinew_record_barrier(r);
}

void sinew_xpbd_record(sinew_body *b, sinew_recorder *r)
{
    const uint32_t n = b->particle_count;
    GpuRange particles = {0, n};
    for (uint32_t s = 0; s < b->desc.substeps; s++) {
        uint32_t q = s * SINEW_TIMESTAMPS_PER_SUBSTEP;
        sinew_record_fill(r, &b->buffers[SINEW_BIND_LAMBDA], 0); /* lambda = 0 each substep */
        timestamp(b, r, q + 0);
        sinew_record_dispatch(r, SINEW_KERNEL_PREDICT, n, &particles, sizeof particles);
        sinew_record_barrier(r);
        timestamp(b, r, q + 1);
        for (uint32_t it = 0; it < b->desc.iterations; it++) {
            if (b->desc.solver == SINEW_SOLVER_XPBD_JACOBI)
                record_jacobi(b, r);
            else
                record_gauss_seidel(b, r);
            sinew_record_dispatch(r, SINEW_KERNEL_COLLIDE, n, &particles, sizeof particles);
            sinew_record_barrier(r);
        }
        timestamp(b, r, q + 2);
        sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY, n, &particles, sizeof particles);
        sinew_record_barrier(r);
        timestamp(b, r, q + 3);
    }
    if (b->desc.residual) {
        uint32_t q = b->desc.substeps * SINEW_TIMESTAMPS_PER_SUBSTEP;
        uint32_t groups = (b->distance_count + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
        GpuRange residual = {0, b->distance_count};
        GpuRange reduce = {groups, b->distance_count};
        timestamp(b, r, q + 0);
        sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL, b->distance_count, &residual, sizeof residual);
        sinew_record_barrier(r);
        sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL_REDUCE, SINEW_REDUCE_SIZE, &reduce, sizeof reduce);
        timestamp(b, r, q + 1);
    }
    sinew_record_host_barrier(r); /* positions and stats are read by the host */
}
