#version 450
#extension GL_GOOGLE_include_directive : require
// Self-collision's broad phase at the step's start, up to the candidate
// lists: sweeps, the common sweep, boxes, buckets (modes SWEEP to SCATTER of
// shared/selfcol.h in range.first2). selfcol_kernels.glsl has the functions.
#include "common.glsl"
#include "selfcol.glsl"
#include "selfcol_kernels.glsl"

void main()
{
    uint k = linear_id();
    uint mode = range.first2;
    if (mode == SINEW_SELF_SWEEP) {
        sweep_partial(k);
    } else if (mode == SINEW_SELF_COMMON_SWEEP) {
        common_sweep(gl_LocalInvocationID.x);
    } else if (mode == SINEW_SELF_BOUNDS) {
        bounds(k);
    } else if (mode == SINEW_SELF_COUNT_ITEMS) {
        count_items(k);
    } else if (mode == SINEW_SELF_SCAN) {
        scan(gl_LocalInvocationID.x);
    } else {
        add_stats(0u, scatter(k), 0u);
    }
}
