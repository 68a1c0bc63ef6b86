#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: the partial sums of range.distance_total
// workgroups added in a fixed order into scalar range.slot_base (one
// workgroup).
#include "common.glsl"
#include "mg.glsl"

void main()
{
    uint lid = gl_LocalInvocationID.x, count = range.distance_total, part = mg_partials();
    float s = 0.0;
    for (uint k = lid; k < count; k += SINEW_WORKGROUP_SIZE)
        s += mg_real[part + k].x;
    mg_red[lid] = s;
    barrier();
    for (uint h = SINEW_WORKGROUP_SIZE / 2u; h > 0u; h >>= 1u) {
        if (lid < h)
            mg_red[lid] += mg_red[lid + h];
        barrier();
    }
    if (lid == 0u)
        mg_real[mg_scalars() + range.slot_base] = vec4(mg_red[0], 0, 0, 0);
}
