#version 450
#extension GL_GOOGLE_include_directive : require
// Projective dynamics, local step (docs/math.md 7; Pall et al., Algorithm 3): for
// each spring c joining a and b, d_c = L (p_a - p_b) / |p_a - p_b| from the
// current iterate, into DELTA[c]. A spring whose ends coincide keeps its
// previous d; a cut one (a == b) is skipped.
#include "common.glsl"
#include "pd.glsl"

void main()
{
    uint k = linear_id();
    if (k >= range.count)
        return;
    uint c = range.first + k;
    GpuDistance s = dist[c];
    if (s.a == s.b)
        return;
    vec3 e = pos[s.a].xyz - pos[s.b].xyz;
    float len = length(e);
    if (len <= 1e-12 * s.rest)
        return;
    delta[c] = vec4(e * (s.rest / len), 0.0);
}
