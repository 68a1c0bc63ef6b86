// The workgroup sum every reduction uses: v added over the workgroup in a
// fixed tree order, so the same inputs give the same bits on every run.
// Every invocation must call it, once per dispatch; every invocation gets
// the sum.
#ifndef SINEW_REDUCE_GLSL
#define SINEW_REDUCE_GLSL
shared float wg_red[SINEW_WORKGROUP_SIZE];
float workgroup_sum(float v)
{
    uint lid = gl_LocalInvocationID.x;
    wg_red[lid] = v;
    barrier();
    for (uint h = SINEW_WORKGROUP_SIZE / 2u; h > 0u; h >>= 1u) {
        if (lid < h)
            wg_red[lid] += wg_red[lid + h];
        barrier();
    }
    return wg_red[0];
}

// The same for two sums at once (a sum and a count, say).
shared vec2 wg_red2[SINEW_WORKGROUP_SIZE];
vec2 workgroup_sum2(vec2 v)
{
    uint lid = gl_LocalInvocationID.x;
    wg_red2[lid] = v;
    barrier();
    for (uint h = SINEW_WORKGROUP_SIZE / 2u; h > 0u; h >>= 1u) {
        if (lid < h)
            wg_red2[lid] += wg_red2[lid + h];
        barrier();
    }
    return wg_red2[0];
}
#endif
