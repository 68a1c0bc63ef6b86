#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Thread c: the strain |C| / L of distance constraint c (c < count), and the
// relative change |V / V0 - 1| of the measure of GPBD element c (c < count2:
// volume of a tetrahedron, area of a triangle, length of a spring), each
// reduced per workgroup to (max, sum of squares) in a fixed tree order, into
// partial[g].
//
// The error estimate (docs/accuracy.md, docs/math.md 9): the virtual work,
// along the displacement u = x - X from the rest pose X (REST), of the
// forces the body's energy puts on its free particles (W_int: tetrahedron
// c), of gravity (W_g) and of the particles' inertia (W_a, m a with a from
// the positions of the last three steps' ends), thread c < first taking
// particle c; each workgroup's sums (W_int, W_g, W_a, 0) into
// partial[first2 + g], first2 the strain partials' count (zeros where
// first = 0: no estimate, REST a placeholder).
// Pinned particles (w = 0) are left out.
#include "common.glsl"
#include "measure.glsl"
#include "fem.glsl"

shared vec4 red[SINEW_WORKGROUP_SIZE];

vec3 displacement(uint i) { return pos[i].xyz - rest_state[3u * i].xyz; }

float element_work(uint c)
{
    GpuElement e = elem[c];
    uint model = material[e.material].model;
    if (e.kind != SINEW_GPU_TET ||
        (model != SINEW_GPU_MODEL_NEO_HOOKEAN && model != SINEW_GPU_MODEL_STABLE_NEO_HOOKEAN))
        return 0.0; // the host reports no estimate for bodies with others
    vec3 r[4] = vec3[4](-(e.r[0].xyz + e.r[1].xyz + e.r[2].xyz), e.r[0].xyz, e.r[1].xyz, e.r[2].xyz);
    mat3 F = mat3(0.0);
    for (int j = 0; j < 4; j++)
        F += outerProduct(pos[e.v[j]].xyz, r[j]);
    float g1, g2, f1, f2;
    fem_terms(e.material, dot(F[0], F[0]) + dot(F[1], F[1]) + dot(F[2], F[2]), determinant(F), g1, g2, f1, f2);
    mat3 P = fem_stress(F, g1, f1);
    float w = 0.0;
    for (int j = 0; j < 4; j++)
        if (pos[e.v[j]].w > 0.0)
            w -= e.measure * dot(P * r[j], displacement(e.v[j]));
    return w;
}

void main()
{
    uint c = linear_id();
    uint t = gl_LocalInvocationID.x;
    vec4 v = vec4(0.0), work = vec4(0.0);
    if (c < range.count) {
        GpuDistance d = dist[c];
        float s = d.a == d.b ? 0.0 : abs(length(pos[d.a].xyz - pos[d.b].xyz) - d.rest) / d.rest;  // a == b: cut
        v.xy = vec2(s, s * s);
    }
    if (c < range.count2) {
        float s = abs(measure_ratio(elem[c]) - 1.0);
        v.zw = vec2(s, s * s);
        if (range.first > 0u) // the body has an estimate (REST bound)
            work.x += element_work(c);
    }
    if (c < range.first) {
        vec4 x = pos[c];
        vec3 x1 = rest_state[3u * c + 1u].xyz, x2 = rest_state[3u * c + 2u].xyz;
        if (x.w > 0.0) {
            float dt = params.step_dt;
            vec3 u = x.xyz - rest_state[3u * c].xyz, a = (x.xyz - 2.0 * x1 + x2) / (dt * dt);
            work.y = dot(params.gravity.xyz, u) / x.w;
            work.z = dot(a, u) / x.w;
        }
        rest_state[3u * c + 2u] = vec4(x1, 0.0);
        rest_state[3u * c + 1u] = vec4(x.xyz, 0.0);
    }
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    red[t] = v;
    barrier();
    for (uint s = SINEW_WORKGROUP_SIZE / 2; s > 0u; s >>= 1) {
        if (t < s)
            red[t] = vec4(max(red[t].x, red[t + s].x), red[t].y + red[t + s].y, max(red[t].z, red[t + s].z),
                          red[t].w + red[t + s].w);
        barrier();
    }
    if (t == 0u)
        partial[g] = red[0];
    barrier();
    red[t] = work;
    barrier();
    for (uint s = SINEW_WORKGROUP_SIZE / 2; s > 0u; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        barrier();
    }
    if (t == 0u)
        partial[range.first2 + g] = red[0];
}
