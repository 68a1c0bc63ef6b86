#version 450
#extension GL_GOOGLE_include_directive : require
// Vertex normals of the surface for renderers: for each particle the sum of
// its triangles' cross products (each twice the triangle's area times its
// normal, so larger triangles weigh more), normalised. Gathered per particle
// from MESH, so no atomics and the same bits every run. A particle on no
// triangle, or whose triangles cancel, gets (0, 0, 0).
#include "common.glsl"

void main()
{
    uint i = linear_id();
    if (i >= range.count)
        return;
    vec3 p = pos[i].xyz;
    vec3 sum = vec3(0.0);
    for (uint k = mesh[i]; k < mesh[i + 1u]; k += 2u)
        sum += cross(pos[mesh[k]].xyz - p, pos[mesh[k + 1u]].xyz - p);
    float len = length(sum);
    normal[i] = vec4(len > 0.0 ? sum / len : vec3(0.0), 0.0);
}
