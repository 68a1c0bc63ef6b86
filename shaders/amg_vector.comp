#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: the element-wise steps of the smoothers and of PCG, one entry per
// invocation (pc.count entries; D the diagonal of matrix pc.matrix):
//   CHEB_FIRST      w = a D^-1 y; x = w, or x += w when b != 0
//   CHEB_NEXT       w = a w + c D^-1 y; x += w
//   JACOBI          x = a D^-1 y, or x += a D^-1 y when b != 0
//   PCG_UPDATE      alpha = rz / pq; x += alpha z; y -= alpha w (rz < 0, or
//                   pq <= 0 while rz > 0, raise SINEW_AMG_S_INDEFINITE: CG
//                   has broken down and alpha is 0)
//   PCG_DIRECTION   beta = rz_new / rz; z = y + beta z
//   DOT             partial sums of x . y, one per workgroup
//   COPY            y = x
//   AXPY            y += a x
//   ZERO            y = 0
// rz is scalar SINEW_AMG_S_RZ + pc.slot, rz_new SINEW_AMG_S_RZ + 1 - pc.slot
// (PCG's iterations alternate). The smoothers' coefficients come from the
// host (Chebyshev: Saad's recurrence with Jacobi preconditioning).
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

void main()
{
    uint i = linear_id();
    bool live = i < pc.count;
    uint mode = pc.mode;
    if (mode == SINEW_AMG_VEC_DOT) {
        float v = live ? amg_r(pc.x + i) * amg_r(pc.y + i) : 0.0;
        float s = workgroup_sum(v);
        if (gl_LocalInvocationID.x == 0u)
            amg_set(amg_head(SINEW_AMG_PARTIAL) + gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x, s);
        return;
    }
    if (!live)
        return;
    if (mode == SINEW_AMG_VEC_CHEB_FIRST) {
        float d = pc.a * amg_r(pc.y + i) / amg_diag(pc.matrix, i);
        amg_set(pc.w + i, d);
        amg_set(pc.x + i, pc.b != 0.0 ? amg_r(pc.x + i) + d : d);
    } else if (mode == SINEW_AMG_VEC_CHEB_NEXT) {
        float d = pc.a * amg_r(pc.w + i) + pc.c * amg_r(pc.y + i) / amg_diag(pc.matrix, i);
        amg_set(pc.w + i, d);
        amg_add(pc.x + i, d);
    } else if (mode == SINEW_AMG_VEC_JACOBI) {
        float d = pc.a * amg_r(pc.y + i) / amg_diag(pc.matrix, i);
        amg_set(pc.x + i, pc.b != 0.0 ? amg_r(pc.x + i) + d : d);
    } else if (mode == SINEW_AMG_VEC_PCG_UPDATE) {
        float rz = amg_scalar(SINEW_AMG_S_RZ + pc.slot), pq = amg_scalar(SINEW_AMG_S_PQ);
        float alpha = pq > 0.0 ? rz / pq : 0.0;
        if (i == 0u && (rz < 0.0 || (rz > 0.0 && !(pq > 0.0)))) // A or the V-cycle is not positive definite
            amg_set(amg_head(SINEW_AMG_SCALARS) + SINEW_AMG_S_INDEFINITE, 1.0);
        amg_add(pc.x + i, alpha * amg_r(pc.z + i));
        amg_add(pc.y + i, -(alpha * amg_r(pc.w + i)));
    } else if (mode == SINEW_AMG_VEC_PCG_DIRECTION) {
        float rz = amg_scalar(SINEW_AMG_S_RZ + pc.slot), rz_new = amg_scalar(SINEW_AMG_S_RZ + 1u - pc.slot);
        float beta = rz > 0.0 ? rz_new / rz : 0.0;
        amg_set(pc.z + i, amg_r(pc.y + i) + beta * amg_r(pc.z + i));
    } else if (mode == SINEW_AMG_VEC_COPY) {
        amg_set(pc.y + i, amg_r(pc.x + i));
    } else if (mode == SINEW_AMG_VEC_AXPY) {
        amg_add(pc.y + i, pc.a * amg_r(pc.x + i));
    } else if (mode == SINEW_AMG_VEC_ZERO) {
        amg_set(pc.y + i, 0.0);
    }
}
