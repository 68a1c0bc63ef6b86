#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: the values of a sparse product C = X Y into C's pattern, fixed by
// the AMG setup (lazy setup: the coarse operators recomputed each outer
// iteration while P is kept; A P and R (A P), or X_{l+1} = R_l X_l for the
// Gram form). Each entry of C is written by one invocation, summed in a
// fixed order: no atomics, the same bits every run. Two ways:
//   ROWS (pc.mode bit 1): a row of C per invocation, C's row zeroed, then
//        every term X_ik Y_kj added to its entry (found by binary search in
//        C's row): each term once, the cheap way when rows are short;
//   else an entry of C per invocation: C_ij = sum over k in row i of X of
//        X_ik Y_kj, Y_kj found by binary search in row k of Y: bounded by
//        X's row length whatever the length of C's rows.
// The host picks per product (mgpbd_layout.c, product_mode): llvmpipe ends every
// loop of an invocation silently after 65 535 iterations in all, and a row
// of R (A P) at the coarse levels needs more than that. Matrix records:
// pc.matrix C, pc.x X, pc.y Y; pc.count C's rows (ROWS) or nonzeros. With
// pc.mode bit 0, C is a coarse operator and a diagonal that is not positive
// raises SINEW_AMG_S_INDEFINITE and SINEW_AMG_S_COARSE_DIAGONAL (every such
// invocation writes the same 1; docs/mgpbd.md).
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

void flag()
{
    amg_set(amg_head(SINEW_AMG_SCALARS) + SINEW_AMG_S_INDEFINITE, 1.0);
    amg_set(amg_head(SINEW_AMG_SCALARS) + SINEW_AMG_S_COARSE_DIAGONAL, 1.0);
}

void main()
{
    if (!amg_open())
        return;
    uint id = linear_id();
    if (id >= pc.count)
        return;
    uint crow = amg_mat(pc.matrix, SINEW_AMG_M_ROW), ccol = amg_mat(pc.matrix, SINEW_AMG_M_COL);
    uint cval = amg_mat(pc.matrix, SINEW_AMG_M_VAL);
    uint xrow = amg_mat(pc.x, SINEW_AMG_M_ROW), xcol = amg_mat(pc.x, SINEW_AMG_M_COL), xval = amg_mat(pc.x, SINEW_AMG_M_VAL);
    uint yrow = amg_mat(pc.y, SINEW_AMG_M_ROW), ycol = amg_mat(pc.y, SINEW_AMG_M_COL), yval = amg_mat(pc.y, SINEW_AMG_M_VAL);
    if ((pc.mode & 2u) != 0u) {
        uint i = id, c0 = amg_i(crow + i), c1 = amg_i(crow + i + 1u);
        for (uint e = c0; e < c1; e++)
            amg_set(cval + e, 0.0);
        for (uint k = amg_i(xrow + i); k < amg_i(xrow + i + 1u); k++) {
            uint j = amg_i(xcol + k);
            float xv = amg_r(xval + k);
            for (uint l = amg_i(yrow + j); l < amg_i(yrow + j + 1u); l++) {
                uint at = amg_find(ccol, c0, c1, amg_i(ycol + l));
                if (at != SINEW_AMG_NONE)
                    amg_add(cval + at, xv * amg_r(yval + l));
            }
        }
        if ((pc.mode & 1u) != 0u && !(amg_diag(pc.matrix, i) > 0.0))
            flag();
        return;
    }
    uint e = id, i = amg_row_of(pc.matrix, e), col = amg_i(ccol + e);
    float s = 0.0;
    for (uint k = amg_i(xrow + i); k < amg_i(xrow + i + 1u); k++) {
        uint j = amg_i(xcol + k);
        uint at = amg_find(ycol, amg_i(yrow + j), amg_i(yrow + j + 1u), col);
        if (at != SINEW_AMG_NONE)
            s += amg_r(xval + k) * amg_r(yval + at);
    }
    amg_set(cval + e, s);
    if ((pc.mode & 1u) != 0u && col == i && !(s > 0.0))
        flag();
}
