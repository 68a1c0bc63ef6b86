#version 450
#extension GL_GOOGLE_include_directive : require
// docs/math.md 1: v += h g;  x_prev = x;  x += h v.  Pinned particles (w = 0) stay.
#include "common.glsl"

void main()
{
    uint i = linear_id();
    if (i >= range.count)
        return;
    vec4 x = pos[i];
    prev[i] = x;
    if (x.w == 0.0) {
        vel[i] = vec4(0.0);
        return;
    }
    float h = params.gravity.w;
    vec3 v = vel[i].xyz + h * params.gravity.xyz;
    vel[i] = vec4(v, 0.0);
    pos[i] = vec4(x.xyz + h * v, x.w);
}
