#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: the partial sums of range.distance_total
// workgroups added in a fixed order into scalar range.slot_base (one
// workgroup).
#include "common.glsl"
#include "mg.glsl"

void main()
{
    if (!mg_open())
        return;
    uint lid = gl_LocalInvocationID.x, count = range.distance_total, part = mg_partials();
    float s = 0.0;
    for (uint k = lid; k < count; k += SINEW_WORKGROUP_SIZE)
        s += mg_real[part + k].x;
    float total = workgroup_sum(s);
    if (lid == 0u)
        mg_real[mg_scalars() + range.slot_base] = vec4(total, 0, 0, 0);
}
