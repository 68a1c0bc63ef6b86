#version 450
#extension GL_GOOGLE_include_directive : require
// Projective dynamics, global step for one particle (docs/math.md 7; Pall et al.,
// eq. 6), matrix-free: the minimiser of its inertia term and its springs' terms
// with the other particles held,
//
//     p_i = (m_i/h^2 y_i + sum_c s_c (p_j + d_c)) / (m_i/h^2 + sum_c s_c),
//
// with y in Q, d_c in DELTA[c] (from b to a: +d when i is the spring's a, -d
// when its b) and s_c = 1/compliance. Pinned particles stay.
//
// range.first2 == 0: Gauss-Seidel over one colour, particles
// ORDER[first, first + count), updated in place (no spring joins two of them)
// and their contacts resolved at once (contacts.glsl).
// range.first2 == 1: Jacobi over particles [first, first + count), the result
// to DELTA[slot_base + i] (pd_apply.comp takes it and resolves contacts).
#include "common.glsl"
#include "pd.glsl"
#include "contacts.glsl"

void main()
{
    uint k = linear_id();
    if (k >= range.count)
        return;
    bool jacobi = range.first2 != 0u;
    uint i = jacobi ? range.first + k : order[range.first + k];
    vec4 x = pos[i];
    vec3 p = x.xyz;
    if (x.w != 0.0) {
        float inertia = params.inv_h2 / x.w;
        vec3 num = inertia * q[i].xyz;
        float den = inertia;
        for (uint a = adj_start[i]; a < adj_start[i + 1u]; a++) {
            uint slot = adj[a];
            uint c = slot >> 1;
            GpuDistance s = dist[c];
            if (s.a == s.b)
                continue;
            float stiffness = 1.0 / s.compliance;
            vec3 d = delta[c].xyz;
            num += stiffness * ((slot & 1u) == 0u ? pos[s.b].xyz + d : pos[s.a].xyz - d);
            den += stiffness;
        }
        p = num / den;
    }
    if (jacobi)
        delta[range.slot_base + i] = vec4(p, x.w);
    else if (x.w != 0.0)
        pos[i] = vec4(resolve_contacts(p, prev[i].xyz), x.w);
}
