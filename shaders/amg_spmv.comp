#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: a sparse matrix (pc.matrix) times a vector, one row per invocation:
//   SET y = M x, RESIDUAL y = z - M x, SUB y -= M x, ADD y += M x
// (x must not be y). The V-cycle's residuals, restriction (M = R) and
// prolongation (M = P, ADD), and PCG's A p.
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

void main()
{
    if (!amg_open())
        return;
    uint i = linear_id();
    if (i >= pc.count)
        return;
    float v = amg_row_dot(pc.matrix, i, pc.x);
    uint y = pc.y + i;
    if (pc.mode == SINEW_AMG_SPMV_SET)
        amg_set(y, v);
    else if (pc.mode == SINEW_AMG_SPMV_RESIDUAL)
        amg_set(y, amg_r(pc.z + i) - v);
    else if (pc.mode == SINEW_AMG_SPMV_SUB)
        amg_add(y, -(v));
    else
        amg_add(y, v);
}
