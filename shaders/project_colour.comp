#version 450
#extension GL_GOOGLE_include_directive : require
// Gauss-Seidel XPBD, one colour per dispatch: distances [first, +count) then
// bends [first2, +count2). No two constraints of a colour share a particle, so
// the writes never race; the next colour runs after a barrier.
#include "common.glsl"
#include "pbd.glsl"
#include "constraints.glsl"

void main()
{
    uint k = linear_id();
    if (k < range.count) {
        uint c = range.first + k;
        GpuDistance d = dist[c];
        vec4 pa = pos[d.a];
        vec4 pb = pos[d.b];
        float l = lambda[c];
        vec3 da, db;
        if (project_distance(d, pa, pb, l, da, db) != 0.0) {
            lambda[c] = l;
            pos[d.a] = vec4(pa.xyz + da, pa.w);
            pos[d.b] = vec4(pb.xyz + db, pb.w);
        }
    } else if (k - range.count < range.count2) {
        uint c = range.first2 + (k - range.count);
        GpuBend b = bend[c];
        vec4 p[4] = vec4[4](pos[b.v.x], pos[b.v.y], pos[b.v.z], pos[b.v.w]);
        uint li = range.distance_total + c;
        float l = lambda[li];
        float last = angle[c];
        vec3 dp[4];
        bool moved = project_bend(b, p, l, last, dp) != 0.0;
        angle[c] = last;
        if (moved) {
            lambda[li] = l;
            pos[b.v.x] = vec4(p[0].xyz + dp[0], p[0].w);
            pos[b.v.y] = vec4(p[1].xyz + dp[1], p[1].w);
            pos[b.v.z] = vec4(p[2].xyz + dp[2], p[2].w);
            pos[b.v.w] = vec4(p[3].xyz + dp[3], p[3].w);
        }
    }
}
