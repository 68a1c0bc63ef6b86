#version 450
#extension GL_GOOGLE_include_directive : require
// Self-collision each iteration: each item's contacts into its correction
// slots (mode PROJECT of shared/selfcol.h), which collide.comp applies.
#include "common.glsl"
#include "selfcol.glsl"
#include "selfcol_kernels.glsl"

void main()
{
    add_stats(project(linear_id()), 0u, 1u);
}
