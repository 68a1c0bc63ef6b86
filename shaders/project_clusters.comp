#version 450
#extension GL_GOOGLE_include_directive : require
// Gauss-Seidel XPBD, one pass of clusters per dispatch (docs/colouring.md): a
// workgroup per cluster [first, +count) loads the cluster's particles into
// shared memory, runs its colours in order (first2: forward, backward, or
// backward leaving out the last colour, which just ran) with a workgroup
// barrier after each, and writes the particles back. The clusters of a pass
// share no particle, so workgroups never race; the next pass runs after a
// buffer barrier. Each constraint's multiplier and hinge angle belong to it
// alone. A constraint cut at run time (a == b; a bend's v.z == v.x) is
// skipped, as the colour kernel's degenerate test does.
#include "common.glsl"
#include "pbd.glsl"
#include "constraints.glsl"

shared vec4 p_local[SINEW_CLUSTER_SHARED_PARTICLES];

void project_item(uvec3 it)
{
    uint c = it.x;
    if (c < range.distance_total) {
        GpuDistance d = dist[c];
        if (d.a == d.b)
            return;
        uint ia = it.y & 0xFFFFu, ib = it.y >> 16;
        vec4 pa = p_local[ia];
        vec4 pb = p_local[ib];
        float l = lambda[c];
        vec3 da, db;
        if (project_distance(d, pa, pb, l, da, db) != 0.0) {
            lambda[c] = l;
            p_local[ia] = vec4(pa.xyz + da, pa.w);
            p_local[ib] = vec4(pb.xyz + db, pb.w);
        }
        return;
    }
    uint k = c - range.distance_total;
    GpuBend b = bend[k];
    if (b.v.z == b.v.x)
        return;
    uint i0 = it.y & 0xFFFFu, i1 = it.y >> 16, i2 = it.z & 0xFFFFu, i3 = it.z >> 16;
    vec4 p[4] = vec4[4](p_local[i0], p_local[i1], p_local[i2], p_local[i3]);
    float l = lambda[c];
    float last = angle[k];
    vec3 dp[4];
    bool moved = project_bend(b, p, l, last, dp) != 0.0;
    angle[k] = last;
    if (moved) {
        lambda[c] = l;
        p_local[i0] = vec4(p[0].xyz + dp[0], p[0].w);
        p_local[i1] = vec4(p[1].xyz + dp[1], p[1].w);
        p_local[i2] = vec4(p[2].xyz + dp[2], p[2].w);
        p_local[i3] = vec4(p[3].xyz + dp[3], p[3].w);
    }
}

void main()
{
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (g >= range.count)
        return; // the whole workgroup: no barrier is left waiting
    uint lane = gl_LocalInvocationID.x;
    uint at = cdata[0] + 4u * (range.first + g);
    uint pbegin = cdata[2] + cdata[at], pcount = cdata[at + 1];
    uint cbegin = cdata[at + 2], ccount = cdata[at + 3];
    for (uint i = lane; i < pcount; i += SINEW_WORKGROUP_SIZE)
        p_local[i] = pos[cdata[pbegin + i]];
    memoryBarrierShared();
    barrier();
    uint runs = range.first2 == SINEW_CLUSTER_BACKWARD_AFTER ? ccount - 1u : ccount;
    for (uint q = 0u; q < runs; q++) {
        uint colour = range.first2 == SINEW_CLUSTER_FORWARD ? q : ccount - 1u - q - (runs < ccount ? 1u : 0u);
        uint cat = cdata[1] + 2u * (cbegin + colour);
        uint ibegin = cdata[3] + 3u * cdata[cat], icount = cdata[cat + 1];
        for (uint j = lane; j < icount; j += SINEW_WORKGROUP_SIZE) {
            uint w = ibegin + 3u * j;
            project_item(uvec3(cdata[w], cdata[w + 1], cdata[w + 2]));
        }
        memoryBarrierShared();
        barrier();
    }
    for (uint i = lane; i < pcount; i += SINEW_WORKGROUP_SIZE)
        pos[cdata[pbegin + i]] = p_local[i];
}
