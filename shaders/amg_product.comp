#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: the values of a sparse product C = X Y into C's pattern, fixed by
// the AMG setup (lazy setup: the coarse operators recomputed each outer
// iteration while P is kept; A P and R (A P), or X_{l+1} = R_l X_l for the
// Gram form). One entry of C per invocation, which alone writes it: no
// atomics, the same bits every run:
//   C_i,col = sum over k in row i of X of X_ik Y_k,col
// with Y_k,col found by binary search in row k of Y. An invocation's loops
// are bounded by X's row length times log2 of Y's, and R's rows (one
// aggregate's smoothed support) stay short whatever the mesh: llvmpipe ends
// every loop of an invocation silently after 65 535 iterations in all, so a
// row of C per invocation (R_l X_l's rows are thousands of entries long)
// came out wrong there. Matrix records: pc.matrix C, pc.x X, pc.y Y;
// pc.count C's nonzeros. With pc.mode 1 C is a coarse operator, and a
// diagonal that is not positive sets scalar SINEW_AMG_S_INDEFINITE (every
// such invocation writes the same 1; docs/mgpbd.md).
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

void main()
{
    uint e = linear_id();
    if (e >= pc.count)
        return;
    uint crow = amg_mat(pc.matrix, SINEW_AMG_M_ROW), ccol = amg_mat(pc.matrix, SINEW_AMG_M_COL);
    uint xrow = amg_mat(pc.x, SINEW_AMG_M_ROW), xcol = amg_mat(pc.x, SINEW_AMG_M_COL), xval = amg_mat(pc.x, SINEW_AMG_M_VAL);
    uint yrow = amg_mat(pc.y, SINEW_AMG_M_ROW), ycol = amg_mat(pc.y, SINEW_AMG_M_COL), yval = amg_mat(pc.y, SINEW_AMG_M_VAL);
    uint i = amg_row_of(pc.matrix, e), col = amg_i(ccol + e);
    float s = 0.0;
    for (uint k = amg_i(xrow + i); k < amg_i(xrow + i + 1u); k++) {
        uint j = amg_i(xcol + k);
        uint at = amg_find(ycol, amg_i(yrow + j), amg_i(yrow + j + 1u), col);
        if (at != SINEW_AMG_NONE)
            s += amg_r(xval + k) * amg_r(yval + at);
    }
    amg_set(amg_mat(pc.matrix, SINEW_AMG_M_VAL) + e, s);
    if (pc.mode == 1u && col == i && !(s > 0.0))
        amg_set(amg_head(SINEW_AMG_SCALARS) + SINEW_AMG_S_INDEFINITE, 1.0);
}
