#version 450
#extension GL_GOOGLE_include_directive : require
// Jacobi XPBD: every constraint reads the same positions and writes its
// corrections to DELTA (distance c: 2c, 2c+1; bend c: 2D + 4c + j), where
// jacobi_apply gathers them. Threads [0, D) distances, [D, D + B) bends.
#include "common.glsl"
#include "pbd.glsl"
#include "constraints.glsl"

void main()
{
    uint k = linear_id();
    if (k < range.count) {
        GpuDistance d = dist[k];
        float l = lambda[k];
        vec3 da, db;
        if (project_distance(d, pos[d.a], pos[d.b], l, da, db) != 0.0)
            lambda[k] = l;
        delta[2u * k] = vec4(da, 0.0);
        delta[2u * k + 1u] = vec4(db, 0.0);
    } else if (k - range.count < range.count2) {
        uint c = k - range.count;
        GpuBend b = bend[c];
        vec4 p[4] = vec4[4](pos[b.v.x], pos[b.v.y], pos[b.v.z], pos[b.v.w]);
        uint li = range.count + c;
        float l = lambda[li];
        float last = angle[c];
        vec3 dp[4];
        if (project_bend(b, p, l, last, dp) != 0.0)
            lambda[li] = l;
        angle[c] = last;
        uint o = 2u * range.count + 4u * c;
        for (uint j = 0u; j < 4u; j++)
            delta[o + j] = vec4(dp[j], 0.0);
    }
}
