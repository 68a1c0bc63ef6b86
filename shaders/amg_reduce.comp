#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: the pc.groups partial sums of the last dot product added in a fixed
// order into scalar pc.slot (one workgroup).
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

void main()
{
    if (!amg_open())
        return;
    uint lid = gl_LocalInvocationID.x, part = amg_head(SINEW_AMG_PARTIAL);
    float s = 0.0;
    for (uint k = lid; k < pc.groups; k += SINEW_WORKGROUP_SIZE)
        s += amg_r(part + k);
    float total = workgroup_sum(s);
    if (lid == 0u)
        amg_set(amg_head(SINEW_AMG_SCALARS) + pc.slot, total);
}
