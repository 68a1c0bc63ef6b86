#version 450
#extension GL_GOOGLE_include_directive : require
// Numerical health after a step. Thread i < range.count looks at particle i:
// counts particles whose position, inverse mass or velocity is not finite, or
// whose speed exceeds params.max_speed, and keeps the lowest and highest such
// index and the largest finite speed. Thread i < range.count2 looks at element
// i, if it is a tetrahedron: counts it inverted when V / V0 = det F <= 0,
// keeps the lowest inverted index and the largest |V / V0 - 1| (measure.glsl,
// as the residual measures it). The host passes count2 = 0 for a body without
// tetrahedra. Finiteness is read from the exponent bits, which no fast-math
// setting can fold away. One atomic per workgroup per field, integers only
// (a float >= 0 orders as its bits): the results (counts, min, max) do not
// depend on the order the atomics land in.
#include "common.glsl"
#include "measure.glsl"

shared uint g_bad, g_first, g_last, g_speed;
shared uint g_inverted, g_first_inverted, g_volume_error;

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
        g_inverted = 0u;
        g_first_inverted = 0xffffffffu;
        g_volume_error = 0u;
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
    if (i < range.count2 && elem[i].kind == SINEW_GPU_TET) {
        float ratio = measure_ratio(elem[i]);
        if (ratio <= 0.0) {
            atomicAdd(g_inverted, 1u);
            atomicMin(g_first_inverted, i);
        }
        // |V / V0 - 1| as bits without the sign; NaN (above +inf's bits) is
        // left to the particle check, which a non-finite position fails.
        uint error = floatBitsToUint(ratio - 1.0) & 0x7fffffffu;
        if (error <= 0x7f800000u)
            atomicMax(g_volume_error, error);
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u && g_bad > 0u) {
        atomicAdd(stats.bad_count, g_bad);
        atomicMin(stats.first_bad, g_first);
        atomicMax(stats.last_bad, g_last);
    }
    if (gl_LocalInvocationIndex == 0u && g_inverted > 0u) {
        atomicAdd(stats.inverted, g_inverted);
        atomicMin(stats.first_inverted, g_first_inverted);
    }
    if (gl_LocalInvocationIndex == 0u) {
        atomicMax(stats.max_speed, g_speed);
        atomicMax(stats.volume_error, g_volume_error);
    }
}
