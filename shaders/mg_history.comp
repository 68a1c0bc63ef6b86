#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit cloth, BDF2 (docs/implicit.md): one particle per invocation,
// range.count particles. Q holds the state of the step before: positions
// at Q[i], velocities at Q[n + i].
//   range.count2 = 0  record: Q = (x, v), before a step with no history
//                     (the first, by backward Euler)
//   range.count2 = 1  blend: x = (4 x - x_prev) / 3, v = (4 v - v_prev) / 3
//                     and Q = (x, v) as they were: the step that follows is
//                     backward Euler of 2h/3 from the blend, which is BDF2
// Positions keep their inverse mass (w).
#include "common.glsl"
#include "mg.glsl"

void main()
{
    uint i = linear_id(), n = range.count;
    if (i >= n)
        return;
    vec4 x = pos[i], v = vel[i];
    bool blend = range.count2 == 2u ? mg_real[mg_scalars() + SINEW_MG_S_BLEND].x > 0.0 : range.count2 == 1u;
    if (blend) {
        pos[i].xyz = (4.0 * x.xyz - q[i].xyz) / 3.0;
        vel[i].xyz = (4.0 * v.xyz - q[n + i].xyz) / 3.0;
    }
    q[i] = x;
    q[n + i] = v;
}
