/* Wind on a body's triangles (docs/math.md): whether a body has it, its
 * velocity changes' part of SHAPES, and the stage that computes them before
 * each prediction (wind.comp). */
#include "stages.h"

#include "body.h"

sinew_result sinew_wind_check(sinew_context *ctx, const sinew_body_desc *desc, const sinew_solver_ops *ops)
{
    if ((desc->drag > 0.0f || desc->lift > 0.0f) && ops->record_substep)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "wind (drag %g, lift %g) is not supported by the %s solver; set drag and lift to 0",
                          desc->drag, desc->lift, sinew_solver_name(desc->solver));
    return SINEW_RESULT_OK;
}

void sinew_wind_plan(sinew_body *b, const sinew_asset *asset)
{
    b->wind = (b->desc.drag > 0.0f || b->desc.lift > 0.0f) && asset->triangle_count > 0;
}

/* One velocity change a particle, after the collider list's part of SHAPES
 * (b->shapes_wind). */
uint64_t sinew_wind_vec4s(const sinew_body *b) { return b->wind ? b->particle_count : 0; }

/* The wind's velocity changes (wind.comp), for a body with wind, followed by
 * the barrier the prediction needs: velocities from VEL, or, where the
 * prediction carries the velocities of the substep before (at->carried),
 * from the positions the velocity kernel is about to turn into them. Per
 * particle its position, velocity (or two positions) and offsets in, its
 * change out, 72 bytes; per corner of a triangle a pair of indices and two
 * positions and velocities, 104 bytes; the prediction reads the change, 16
 * per particle. */
void sinew_wind_record(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    if (!b->wind)
        return;
    const uint32_t n = b->particle_count;
    GpuRange push = {0, n, at->carried ? 1u : 0u};
    sinew_record_dispatch(r, SINEW_KERNEL_WIND, n, &push, sizeof push);
    sinew_record_barrier(r);
    r->bytes += 88ull * n + 312ull * b->triangle_count;
}
