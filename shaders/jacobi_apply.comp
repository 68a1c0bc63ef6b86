#version 450
#extension GL_GOOGLE_include_directive : require
// Jacobi gather: each particle sums the corrections of its constraints in a fixed
// order (deterministic, no atomics), averages and over-relaxes by omega.
#include "common.glsl"
#include "pbd.glsl"

void main()
{
    uint i = linear_id();
    if (i >= range.count)
        return;
    vec4 x = pos[i];
    uint begin = adj_start[i];
    uint end = adj_start[i + 1u];
    if (x.w == 0.0 || end == begin)
        return;
    vec3 sum = vec3(0.0);
    for (uint k = begin; k < end; k++)
        sum += delta[adj[k]].xyz;
    pos[i] = vec4(x.xyz + (params.omega / float(end - begin)) * sum, x.w);
}
