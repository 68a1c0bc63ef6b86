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
//   DOT_DINV        partial sums of x . D^-1 y
//   POWER           x = D^-1 y / sqrt(S_POWER): the power iteration's next
//                   vector, D-normalised (x^T D x = 1 when S_POWER is
//                   y^T D^-1 y)
// and, one invocation each, the decisions the host took between submits
// before (shared/layout.h has each mode's rule):
//   SET, RHO, CG_CHECK, LS_BEGIN, LS_CHECK, LS_FAIL, FALLBACK
// rz is scalar SINEW_AMG_S_RZ + pc.slot, rz_new SINEW_AMG_S_RZ + 1 - pc.slot
// (PCG's iterations alternate). The smoothers' coefficients come from the
// host for rho = 1 (Chebyshev: Saad's recurrence with Jacobi
// preconditioning); a smoother's pc.slot names its level's rho, which
// divides a (c for CHEB_NEXT), so that rho can change on the device.
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

// The one-invocation modes (shared/layout.h).
void decide(uint mode)
{
    if (mode == SINEW_AMG_VEC_SET) {
        amg_set_scalar(pc.slot, pc.a);
    } else if (mode == SINEW_AMG_VEC_RHO) {
        float rq = amg_scalar(SINEW_AMG_S_POWER + 1u), rho = pc.a * rq;
        if (rq > 0.0 && !isinf(rho) && rho > amg_scalar(pc.slot))
            amg_set_scalar(pc.slot, rho);
    } else if (mode == SINEW_AMG_VEC_CG_CHECK) {
        float rr = amg_scalar(SINEW_AMG_S_RR), bb = amg_scalar(SINEW_AMG_S_BB);
        amg_set_scalar(SINEW_AMG_S_CG_ITERATIONS, amg_scalar(SINEW_AMG_S_CG_ITERATIONS) + pc.b);
        amg_set_scalar(SINEW_AMG_S_RR_END, rr);
        uint h = uint(amg_scalar(SINEW_AMG_S_HISTORY_COUNT));
        if (h < SINEW_AMG_HISTORY) {
            amg_set_scalar(SINEW_AMG_S_HISTORY + h, bb > 0.0 ? sqrt(rr / bb) : 0.0);
            amg_set_scalar(SINEW_AMG_S_HISTORY_COUNT, float(h + 1u));
        }
        // CG at its tolerance: a breakdown of its own (rz < 0 or p.Ap <= 0
        // at round-off, once r is tiny) is no sign of an indefinite
        // V-cycle; a coarse operator's diagonal <= 0 still is
        bool converged = rr <= pc.a * bb;
        if (converged && amg_scalar(SINEW_AMG_S_COARSE_DIAGONAL) == 0.0)
            amg_set_scalar(SINEW_AMG_S_INDEFINITE, 0.0);
        if (converged || !(rr == rr) || amg_scalar(SINEW_AMG_S_INDEFINITE) != 0.0)
            amg_set_scalar(SINEW_AMG_S_CG_OPEN, 0.0);
    } else if (mode == SINEW_AMG_VEC_LS_BEGIN) {
        float rr = amg_scalar(SINEW_AMG_S_RR_END);
        bool redo = pc.a != 0.0 && amg_scalar(SINEW_AMG_S_INDEFINITE) != 0.0;
        amg_set_scalar(SINEW_AMG_S_LS_OPEN, redo || !(rr == rr) ? 0.0 : 1.0);
        amg_set_scalar(SINEW_AMG_S_STEP, 0.0);
        amg_set_scalar(SINEW_AMG_S_AFTER, sqrt(amg_scalar(SINEW_AMG_S_BB0)));
    } else if (mode == SINEW_AMG_VEC_LS_CHECK) {
        float bb = amg_scalar(SINEW_AMG_S_BB);
        amg_set_scalar(SINEW_AMG_S_AFTER, sqrt(bb));
        if (pc.b < 0.0 || bb < pc.b * pc.b * amg_scalar(pc.slot)) {
            amg_set_scalar(SINEW_AMG_S_STEP, pc.a);
            amg_set_scalar(SINEW_AMG_S_LS_OPEN, 0.0);
        }
    } else if (mode == SINEW_AMG_VEC_FALLBACK) {
        bool redo = amg_scalar(SINEW_AMG_S_INDEFINITE) != 0.0;
        amg_set_scalar(SINEW_AMG_S_CG_OPEN, redo ? 1.0 : 0.0);
        if (redo) {
            amg_set_scalar(SINEW_AMG_S_INDEFINITE, 0.0);
            amg_set_scalar(SINEW_AMG_S_COARSE_DIAGONAL, 0.0);
        }
    } else if (mode == SINEW_AMG_VEC_LS_FAIL) {
        amg_set_scalar(SINEW_AMG_S_STEP, 0.0);
        amg_set_scalar(SINEW_AMG_S_AFTER, sqrt(amg_scalar(pc.slot)));
        amg_set_scalar(SINEW_AMG_S_LS_OPEN, 0.0);
    }
}

void main()
{
    if (!amg_open())
        return;
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
    if (mode == SINEW_AMG_VEC_DOT_DINV) {
        float v = live ? amg_r(pc.x + i) * amg_r(pc.y + i) / amg_diag(pc.matrix, i) : 0.0;
        float s = workgroup_sum(v);
        if (gl_LocalInvocationID.x == 0u)
            amg_set(amg_head(SINEW_AMG_PARTIAL) + gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x, s);
        return;
    }
    if (!live)
        return;
    if (mode >= SINEW_AMG_VEC_SET) {
        decide(mode);
        return;
    }
    // A smoother's coefficient over its level's rho (pc.slot); 0: none.
    float unit = pc.slot != 0u && mode <= SINEW_AMG_VEC_JACOBI ? 1.0 / amg_scalar(pc.slot) : 1.0;
    if (mode == SINEW_AMG_VEC_POWER) {
        // A norm of 0 or not finite (an operator gone non-finite) keeps the
        // vector, so that a later A can resume from it.
        float norm2 = amg_scalar(SINEW_AMG_S_POWER);
        if (norm2 > 0.0 && !isinf(norm2))
            amg_set(pc.x + i, amg_r(pc.y + i) / amg_diag(pc.matrix, i) * inversesqrt(norm2));
    } else if (mode == SINEW_AMG_VEC_CHEB_FIRST) {
        float d = pc.a * unit * amg_r(pc.y + i) / amg_diag(pc.matrix, i);
        amg_set(pc.w + i, d);
        amg_set(pc.x + i, pc.b != 0.0 ? amg_r(pc.x + i) + d : d);
    } else if (mode == SINEW_AMG_VEC_CHEB_NEXT) {
        float d = pc.a * amg_r(pc.w + i) + pc.c * unit * amg_r(pc.y + i) / amg_diag(pc.matrix, i);
        amg_set(pc.w + i, d);
        amg_add(pc.x + i, d);
    } else if (mode == SINEW_AMG_VEC_JACOBI) {
        float d = pc.a * unit * amg_r(pc.y + i) / amg_diag(pc.matrix, i);
        amg_set(pc.x + i, pc.b != 0.0 ? amg_r(pc.x + i) + d : d);
    } else if (mode == SINEW_AMG_VEC_PCG_UPDATE) {
        float rz = amg_scalar(SINEW_AMG_S_RZ + pc.slot), pq = amg_scalar(SINEW_AMG_S_PQ);
        float alpha = rz > 0.0 && pq > 0.0 ? rz / pq : 0.0;
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
