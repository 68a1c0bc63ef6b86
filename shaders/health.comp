#version 450
#extension GL_GOOGLE_include_directive : require
// Numerical health after a step: counts particles whose position, inverse mass
// or velocity is not finite, or whose speed exceeds params.max_speed, and keeps
// the lowest and highest such index and the largest finite speed. Finiteness
// is read from the exponent bits, which no fast-math setting can fold away.
// One atomic per workgroup per field: the results (count, min, max) do not
// depend on the order the atomics land in.
#include "common.glsl"

shared uint g_bad, g_first, g_last, g_speed;

bool finite4(vec4 v)
{
    uvec4 e = floatBitsToUint(v) & 0x7f800000u;
    return all(notEqual(e, uvec4(0x7f800000u)));
}

void main()
{
    uint i = linear_id();
    if (gl_LocalInvocationIndex == 0u) {
        g_bad = 0u;
        g_first = 0xffffffffu;
        g_last = 0u;
        g_speed = 0u;
    }
    barrier();
    if (i < range.count) {
        vec4 x = pos[i];
        vec4 v = vec4(vel[i].xyz, 0.0);
        bool ok = finite4(x) && finite4(v);
        float speed = ok ? length(v.xyz) : 0.0;
        ok = ok && finite4(vec4(speed));       // length can overflow
        if (ok)
            atomicMax(g_speed, floatBitsToUint(speed));
        if (!ok || speed > params.max_speed) {
            atomicAdd(g_bad, 1u);
            atomicMin(g_first, i);
            atomicMax(g_last, i);
        }
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u && g_bad > 0u) {
        atomicAdd(stats.bad_count, g_bad);
        atomicMin(stats.first_bad, g_first);
        atomicMax(stats.last_bad, g_last);
    }
    if (gl_LocalInvocationIndex == 0u)
        atomicMax(stats.max_speed, g_speed);
}
