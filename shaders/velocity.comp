#version 450
#extension GL_GOOGLE_include_directive : require
// docs/math.md 1: v = (x - x_prev) / h, then damping.
#include "common.glsl"

void main()
{
    uint i = linear_id();
    if (i >= range.count)
        return;
    vec4 x = pos[i];
    vec3 v = x.w == 0.0 ? vec3(0.0) : (x.xyz - prev[i].xyz) * params.inv_h * params.damping;
    vel[i] = vec4(v, 0.0);
}
