#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// The residual of GPBD's system at the end of a substep (docs/math.md 9), as
// the strain one more update of each element would still change: thread e
// (e < count) takes element e's update objective at dy = 0 (its z and the
// positions as the iterations left them) and its Newton step p = -H^-1 g in
// strain space, whose entries are Green strains (a spring's: a length, here
// over its rest length). A gradient within its float rounding counts as 0.
// Each workgroup writes, in a fixed tree order, the sum of |p|^2 and the
// number of elements to partial[first + group].xy. Elements whose energy is
// not finite (inverted neo-Hookean ones, which the health check counts) and
// elements whose vertices are all pinned are left out.
#include "common.glsl"
#include "reduce.glsl"
#include "pbd.glsl"
#include "gpbd.glsl"

vec2 element_residual(uint ei)
{
    GpuElement e = elem[ei];
    float h = params.gravity.w;
    bool tet = GPBD_KIND_OF(e.kind) == SINEW_GPU_TET;
    int nv = tet ? 4 : GPBD_KIND_OF(e.kind) == SINEW_GPU_TRIANGLE ? 3 : 2;
    vec3 x[4], z[4];
    float W[4];
    [[unroll]] for (int j = 0; j < 4; j++) {
        vec4 p = j < nv ? pos[e.v[j]] : vec4(0.0);
        x[j] = p.xyz;
        W[j] = h * h * p.w;
        z[j] = j < nv ? zdisp[4u * ei + uint(j)].xyz : vec3(0.0);
    }
    if (W[0] + W[1] + W[2] + W[3] == 0.0)
        return vec2(0.0); // every vertex pinned: it cannot move
    law = Law(material[e.material].model, material[e.material].mu, material[e.material].lambda,
              material[e.material].extra);
    make_sub(e, x, W, z);
    if (GPBD_KIND_OF(e.kind) == SINEW_GPU_SPRING) { // the update's closed form (gpbd_update)
        float A = sub.A[0][0], al = law.extra;
        if (!(sub.len > 0.0 && A > 0.0 && sub.rest > 0.0))
            return vec2(0.0);
        float dy = -(al * sub.c[0] + A * (sub.len - sub.rest)) / (A * (al + A));
        float r = A * dy / sub.rest;   // the length change it makes, over the rest length
        return vec2(r * r, 1.0);
    }
    float dy[6] = float[6](0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    float g[6], H[6][6], p[6], noise;
    derivatives(dy, true, g, H, noise);
    if (norm6(g) <= noise)
        return vec2(0.0, 1.0);
    newton_direction(H, sub.k, g, p);
    float r2 = 0.0;
    [[unroll]] for (int k = 0; k < 6; k++)
        r2 += p[k] * p[k];
    return isinf(r2) || isnan(r2) ? vec2(0.0) : vec2(r2, 1.0);
}

void main()
{
    uint ei = linear_id();
    uint t = gl_LocalInvocationID.x;
    vec2 sum = workgroup_sum2(ei < range.count ? element_residual(ei) : vec2(0.0));
    if (t == 0u) {
        uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        partial[range.first + g] = vec4(sum, 0.0, 0.0);
    }
}
