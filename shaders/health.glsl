// Numerical health after a step, as one workgroup's share: a particle
// counts when its position, inverse mass or velocity is not finite, or its
// speed exceeds params.max_speed (keeping the lowest and highest such index
// and the largest finite speed); a tetrahedron counts inverted when
// V / V0 = det F <= 0 (keeping the lowest inverted index and the largest
// |V / V0 - 1|, measure.glsl, as the residual measures it). Finiteness is
// read from the exponent bits, which no fast-math setting can fold away.
// One atomic per workgroup per field, integers only (a float >= 0 orders as
// its bits): the results (counts, min, max) do not depend on the order the
// atomics land in. health_begin and health_end hold workgroup barriers: call
// them from uniform control flow. Include after common.glsl and measure.glsl.

shared uint g_bad, g_first, g_last, g_speed;
shared uint g_inverted, g_first_inverted, g_volume_error;

bool finite4(vec4 v)
{
    uvec4 e = floatBitsToUint(v) & 0x7f800000u;
    return all(notEqual(e, uvec4(0x7f800000u)));
}

void health_begin()
{
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
}

// Particle i at position x with velocity v.
void health_particle(uint i, vec4 x, vec3 velocity)
{
    vec4 v = vec4(velocity, 0.0);
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

// Element i, if it is a tetrahedron.
void health_element(uint i)
{
    if (elem[i].kind != SINEW_GPU_TET)
        return;
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

// The workgroup's results into STATS.
void health_end()
{
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
