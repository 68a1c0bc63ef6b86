#version 450
#extension GL_GOOGLE_include_directive : require
// Strain |C| / L of every distance constraint, reduced per workgroup to
// (max, sum of squares, count) in a fixed tree order.
#include "common.glsl"

shared vec2 red[SINEW_WORKGROUP_SIZE];

void main()
{
    uint c = linear_id();
    uint t = gl_LocalInvocationID.x;
    vec2 v = vec2(0.0);
    if (c < range.count) {
        GpuDistance d = dist[c];
        float s = abs(length(pos[d.a].xyz - pos[d.b].xyz) - d.rest) / d.rest;
        v = vec2(s, s * s);
    }
    red[t] = v;
    barrier();
    for (uint s = SINEW_WORKGROUP_SIZE / 2; s > 0u; s >>= 1) {
        if (t < s)
            red[t] = vec2(max(red[t].x, red[t + s].x), red[t].y + red[t + s].y);
        barrier();
    }
    if (t == 0u) {
        uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        partial[g] = vec4(red[0], 0.0, 0.0);
    }
}
