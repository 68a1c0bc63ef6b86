#version 450
#extension GL_GOOGLE_include_directive : require
// Self-collision each iteration: each item's contacts into its correction
// slots (mode PROJECT of shared/selfcol.h), which collide.comp applies.
#include "common.glsl"
#include "selfcol.glsl"
#include "selfcol_kernels.glsl"

void main()
{
    uint k = linear_id();
    if (k == 0u)
        selfi[SINEW_SELF_CELL] = 0u; // read by nothing until the next step's bounds
    add_stats(project(k), 0u, 1u);
}
