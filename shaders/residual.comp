#version 450
#extension GL_GOOGLE_include_directive : require
// Thread c: the strain |C| / L of distance constraint c (c < count), and the
// relative change |V / V0 - 1| of the measure of GPBD element c (c < count2:
// volume of a tetrahedron, area of a triangle, length of a spring), each
// reduced per workgroup to (max, sum of squares) in a fixed tree order.
#include "common.glsl"
#include "measure.glsl"

shared vec4 red[SINEW_WORKGROUP_SIZE];

void main()
{
    uint c = linear_id();
    uint t = gl_LocalInvocationID.x;
    vec4 v = vec4(0.0);
    if (c < range.count) {
        GpuDistance d = dist[c];
        float s = d.a == d.b ? 0.0 : abs(length(pos[d.a].xyz - pos[d.b].xyz) - d.rest) / d.rest;  // a == b: cut
        v.xy = vec2(s, s * s);
    }
    if (c < range.count2) {
        float s = abs(measure_ratio(elem[c]) - 1.0);
        v.zw = vec2(s, s * s);
    }
    red[t] = v;
    barrier();
    for (uint s = SINEW_WORKGROUP_SIZE / 2; s > 0u; s >>= 1) {
        if (t < s)
            red[t] = vec4(max(red[t].x, red[t + s].x), red[t].y + red[t + s].y, max(red[t].z, red[t + s].z),
                          red[t].w + red[t + s].w);
        barrier();
    }
    if (t == 0u) {
        uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        partial[g] = red[0];
    }
}
