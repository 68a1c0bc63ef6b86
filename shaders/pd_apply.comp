#version 450
#extension GL_GOOGLE_include_directive : require
// Projective dynamics, Jacobi: the iterate computed into DELTA[slot_base + i]
// becomes the position. range.first2 == 1: Chebyshev semi-iterative
// acceleration (Wang 2015, eq. 12) with weight omega = range.weight,
//
//     p^{k+1} = omega (p_jacobi - p^{k-1}) + p^{k-1},
//
// keeping p^k as the next p^{k-1} in DELTA[distance_total + i]. Then the
// particle's contacts (contacts.glsl).
#include "common.glsl"
#include "pd.glsl"
#include "contacts.glsl"

void main()
{
    uint k = linear_id();
    if (k >= range.count)
        return;
    uint i = range.first + k;
    vec4 x = pos[i];
    if (x.w == 0.0)
        return;
    vec3 p = delta[range.slot_base + i].xyz;
    if (range.first2 != 0u) {
        vec3 older = delta[range.distance_total + i].xyz;
        p = range.weight * (p - older) + older;
        delta[range.distance_total + i] = x;
    }
    pos[i] = vec4(resolve_contacts(p, prev[i].xyz), x.w);
}
