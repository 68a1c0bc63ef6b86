#version 450
#extension GL_GOOGLE_include_directive : require
// Hierarchical PBD (Müller 2008, section 7, step 3): one colour of a coarse
// level's distance constraints, HDIST[first, +count). Coarse constraints are
// unilateral, resisting stretch only ("they only grip when the material
// between the particles is fully stretched"), and rigid: a stretched one is
// projected to its rest length with the PBD step dp = -C / (w_a + w_b) n.
// No two constraints of a colour share a particle.
#include "common.glsl"
#include "pbd.glsl"

void main()
{
    uint k = linear_id();
    if (k >= range.count)
        return;
    GpuDistance d = hdist[range.first + k];
    if (d.a == d.b)
        return;  // removed by a cut
    vec4 pa = pos[d.a];
    vec4 pb = pos[d.b];
    float w = pa.w + pb.w;
    vec3 e = pa.xyz - pb.xyz;
    float len = length(e);
    float c = len - d.rest;
    if (c <= 0.0 || w == 0.0 || len < 1e-9)
        return;
    vec3 n = e / len;
    float s = c / w;
    pos[d.a] = vec4(pa.xyz - (pa.w * s) * n, pa.w);
    pos[d.b] = vec4(pb.xyz + (pb.w * s) * n, pb.w);
}
