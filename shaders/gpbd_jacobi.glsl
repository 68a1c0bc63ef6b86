// The body of gpbd_jacobi.comp and its variants for one element kind and
// material model (gpbd_jacobi_tet_nh.comp, gpbd_jacobi_tet_snh.comp; gpbd.glsl).
// Jacobi GPBD: every element reads the same positions and writes its vertex
// displacements to DELTA (element e, vertex j at slot_base + 4e + j), where
// jacobi_apply gathers them, averaged per particle and scaled by omega. Each
// element's z grows by the share of its displacement that will be applied,
// so that x = x~ + sum z holds after the gather. Newton iterations are summed
// per workgroup, then once into STATS; an update whose loops llvmpipe cut
// short is counted and gathers as no move (zeros in its slots, written
// without a loop: loops make one pass once cut).
#include "common.glsl"
#include "pbd.glsl"
#include "gpbd.glsl"

shared uint wg_newton;

// Vertex slot j's results; called once per slot, not in a loop (see update).
void put(uint ei, GpuElement e, int j, int nv, vec3 zj, vec3 dzj, vec3 dxj)
{
    uint slot = range.slot_base + 4u * ei + uint(j);
    if (j < nv) {
        uint v = e.v[j];
        float share = params.omega / float(adj_start[v + 1u] - adj_start[v]);
        zdisp[4u * ei + uint(j)] = vec4(zj + share * dzj, 0.0);
    }
    delta[slot] = vec4(j < nv ? dxj : vec3(0.0), 0.0);
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
    if (!gpbd_loops_intact()) {
        uint slot = range.slot_base + 4u * ei; // llvmpipe cut the update's loops short: no move, counted
        delta[slot] = vec4(0.0);
        delta[slot + 1u] = vec4(0.0);
        delta[slot + 2u] = vec4(0.0);
        delta[slot + 3u] = vec4(0.0);
        return -1;
    }
    // written without a loop, so that a budget spent by the check itself
    // cannot cut the write short
    put(ei, e, 0, nv, z[0], dz[0], dx[0]);
    put(ei, e, 1, nv, z[1], dz[1], dx[1]);
    put(ei, e, 2, nv, z[2], dz[2], dx[2]);
    put(ei, e, 3, nv, z[3], dz[3], dx[3]);
    return iterations;
}

void main()
{
    if (gl_LocalInvocationIndex == 0u)
        wg_newton = 0u;
    barrier();
    uint ei = linear_id();
    int iterations = ei < range.count ? update(ei) : 0;
    if (iterations > 0)
        atomicAdd(wg_newton, uint(iterations));
    if (iterations < 0)
        atomicAdd(stats.loops_cut, 1u);
    barrier();
    if (gl_LocalInvocationIndex == 0u && wg_newton > 0u)
        atomicAdd(stats.newton, wg_newton);
}
