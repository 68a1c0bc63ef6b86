#version 450
#extension GL_GOOGLE_include_directive : require
// Gauss-Seidel GPBD, one element colour per dispatch: elements [first, +count).
// No two elements of a colour share a particle, so the writes never race.
// Newton iterations are summed per workgroup, then once into STATS.
#include "common.glsl"
#include "gpbd.glsl"

shared uint wg_newton;

int update(uint ei)
{
    GpuElement e = elem[ei];
    int nv = e.kind == SINEW_GPU_TET ? 4 : e.kind == SINEW_GPU_TRIANGLE ? 3 : 2;
    vec3 x[4], z[4], dx[4], dz[4];
    float w[4];
    for (int j = 0; j < 4; j++) {
        vec4 p = j < nv ? pos[e.v[j]] : vec4(0.0);
        x[j] = p.xyz;
        w[j] = p.w;
        z[j] = zdisp[4u * ei + uint(j)].xyz;
    }
    int iterations = gpbd_update(e, x, w, z, dx, dz);
    for (int j = 0; j < nv; j++) {
        pos[e.v[j]] = vec4(x[j], w[j]);
        zdisp[4u * ei + uint(j)] = vec4(z[j] + dz[j], 0.0);
    }
    return iterations;
}

void main()
{
    if (gl_LocalInvocationIndex == 0u)
        wg_newton = 0u;
    barrier();
    uint k = linear_id();
    int iterations = k < range.count ? update(range.first + k) : 0;
    if (iterations > 0)
        atomicAdd(wg_newton, uint(iterations));
    barrier();
    if (gl_LocalInvocationIndex == 0u && wg_newton > 0u)
        atomicAdd(stats.newton, wg_newton);
}
