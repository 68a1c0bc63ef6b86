// The body of gpbd_colour.comp and its variants for one element kind and
// material model (gpbd_colour_tet_nh.comp, gpbd_colour_tet_snh.comp; gpbd.glsl).
// Gauss-Seidel GPBD, one element colour per dispatch: elements [first, +count).
// No two elements of a colour share a particle, so the writes never race.
// Newton iterations are summed per workgroup, then once into STATS; an
// update whose loops llvmpipe cut short writes nothing and is counted.
#include "common.glsl"
#include "pbd.glsl"
#include "gpbd.glsl"

shared uint wg_newton;

// Vertex j's results, j < nv; called once per vertex, not in a loop (see update).
void put(uint ei, GpuElement e, int j, int nv, vec3 x, float w, vec3 zj)
{
    if (j < nv) {
        pos[e.v[j]] = vec4(x, w);
        zdisp[4u * ei + uint(j)] = vec4(zj, 0.0);
    }
}

int update(uint ei)
{
    GpuElement e = elem[ei];
    int nv = GPBD_KIND_OF(e.kind) == SINEW_GPU_TET ? 4 : GPBD_KIND_OF(e.kind) == SINEW_GPU_TRIANGLE ? 3 : 2;
    vec3 x[4], z[4], dx[4], dz[4];
    float w[4];
    [[unroll]] for (int j = 0; j < 4; j++) {
        vec4 p = j < nv ? pos[e.v[j]] : vec4(0.0);
        x[j] = p.xyz;
        w[j] = p.w;
        z[j] = zdisp[4u * ei + uint(j)].xyz;
    }
    int iterations = gpbd_update(e, x, w, z, dx, dz);
    if (!gpbd_loops_intact())
        return -1; // llvmpipe cut the update's loops short: skipped, counted
    // written without a loop, so that a budget spent by the check itself
    // cannot cut the write short
    put(ei, e, 0, nv, x[0], w[0], z[0] + dz[0]);
    put(ei, e, 1, nv, x[1], w[1], z[1] + dz[1]);
    put(ei, e, 2, nv, x[2], w[2], z[2] + dz[2]);
    put(ei, e, 3, nv, x[3], w[3], z[3] + dz[3]);
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
    if (iterations < 0)
        atomicAdd(stats.loops_cut, 1u);
    barrier();
    if (gl_LocalInvocationIndex == 0u && wg_newton > 0u)
        atomicAdd(stats.newton, wg_newton);
}
