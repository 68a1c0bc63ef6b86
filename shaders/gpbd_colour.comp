#version 450
#extension GL_GOOGLE_include_directive : require
// Gauss-Seidel GPBD, one element colour per dispatch: elements [first, +count).
// No two elements of a colour share a particle, so the writes never race.
#include "common.glsl"
#include "gpbd.glsl"

void main()
{
    uint k = linear_id();
    if (k >= range.count)
        return;
    uint ei = range.first + k;
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
    gpbd_update(e, x, w, z, dx, dz);
    for (int j = 0; j < nv; j++) {
        pos[e.v[j]] = vec4(x[j], w[j]);
        zdisp[4u * ei + uint(j)] = vec4(z[j] + dz[j], 0.0);
    }
}
