#version 450
#extension GL_GOOGLE_include_directive : require
// The residual of projective dynamics' system at the end of a substep
// (docs/math.md 9), as the move one more global step would make: for free
// particle i (i < count), the gradient of the substep's energy (Pall et al.,
// eq. 3),
//
//     g_i = m_i/h^2 (x_i - y_i) + sum_c s_c (|x_a - x_b| - L_c) n_c,
//
// (n_c the unit direction from the spring's other end to i, s_c =
// 1/compliance, y in Q) gives the global step's move of i with its
// neighbours held, g_i / (m_i/h^2 + sum_c s_c); over the mean rest length of
// its springs, a strain. Each workgroup writes, in a fixed tree order, the
// sum of its squares and the number of particles to partial[first +
// group].xy. Contacts move particles after the solve, so a body pressed on a
// collider keeps a residual there.
#include "common.glsl"
#include "reduce.glsl"
#include "pd.glsl"

vec2 particle_residual(uint i)
{
    vec4 x = pos[i];
    if (x.w == 0.0)
        return vec2(0.0);
    float inertia = params.inv_h2 / x.w, stiffness = 0.0, rest = 0.0, springs = 0.0;
    vec3 g = inertia * (x.xyz - q[i].xyz);
    for (uint a = adj_start[i]; a < adj_start[i + 1u]; a++) {
        uint slot = adj[a];
        GpuDistance s = dist[slot >> 1];
        if (s.a == s.b)
            continue;
        vec3 e = ((slot & 1u) == 0u ? 1.0 : -1.0) * (pos[s.a].xyz - pos[s.b].xyz);
        float len = length(e);
        if (len > 0.0)
            g += ((len - s.rest) / (s.compliance * len)) * e;
        stiffness += 1.0 / s.compliance;
        rest += s.rest;
        springs += 1.0;
    }
    if (springs == 0.0)
        return vec2(0.0);
    float r = length(g) / (inertia + stiffness) / (rest / springs);
    return vec2(r * r, 1.0);
}

void main()
{
    uint i = linear_id();
    uint t = gl_LocalInvocationID.x;
    vec2 sum = workgroup_sum2(i < range.count ? particle_residual(i) : vec2(0.0));
    if (t == 0u) {
        uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        partial[range.first + g] = vec4(sum, 0.0, 0.0);
    }
}
