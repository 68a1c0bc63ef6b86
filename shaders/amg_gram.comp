#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: a coarse operator in the Gram form, C = X W X^T into C's pattern
// (pc.matrix C, pc.x X; pc.count C's nonzeros), one entry of C per
// invocation, which alone writes it:
//   C_ij = sum over the columns k rows i and j of X share of X_ik w_k X_jk
// by a merge of the two rows (columns increasing), with w_k the inverse mass
// of particle k / 3 for k < 3 n and 1 for the compliance columns past them.
// X_l = R_{l-1} ... R_0 X_0 with X_0 = [G | diag(sqrt alpha~)], so C is
// R A P without forming A first: its diagonal is a sum of squares and it is
// positive semidefinite whatever single precision does to X, where R (A P)
// loses the small entries of a near-kernel P to cancellation (docs/mgpbd.md).
// The merge runs over both rows: the host keeps X's rows within
// SINEW_AMG_GRAM_ROW_MAX (llvmpipe ends an invocation's loops after 65 535
// iterations) and uses the product form below a level where they are not.
// A diagonal that is not positive (a row of X all zero) still sets scalar
// SINEW_AMG_S_INDEFINITE, as amg_product's mode 1 does.
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

void main()
{
    if (!amg_open())
        return;
    uint e = linear_id();
    if (e >= pc.count)
        return;
    uint ccol = amg_mat(pc.matrix, SINEW_AMG_M_COL);
    uint xrow = amg_mat(pc.x, SINEW_AMG_M_ROW), xcol = amg_mat(pc.x, SINEW_AMG_M_COL), xval = amg_mat(pc.x, SINEW_AMG_M_VAL);
    uint dofs = 3u * amg_head(SINEW_AMG_PARTICLES);
    uint i = amg_row_of(pc.matrix, e), j = amg_i(ccol + e);
    uint a = amg_i(xrow + i), a1 = amg_i(xrow + i + 1u), b = amg_i(xrow + j), b1 = amg_i(xrow + j + 1u);
    float s = 0.0;
    while (a < a1 && b < b1) {
        uint ka = amg_i(xcol + a), kb = amg_i(xcol + b);
        if (ka == kb) {
            float w = ka < dofs ? pos[ka / 3u].w : 1.0;
            s += amg_r(xval + a) * w * amg_r(xval + b);
            a++;
            b++;
        } else if (ka < kb) {
            a++;
        } else {
            b++;
        }
    }
    amg_set(amg_mat(pc.matrix, SINEW_AMG_M_VAL) + e, s);
    if (i == j && !(s > 0.0))
    {
        amg_set(amg_head(SINEW_AMG_SCALARS) + SINEW_AMG_S_INDEFINITE, 1.0);
        amg_set(amg_head(SINEW_AMG_SCALARS) + SINEW_AMG_S_COARSE_DIAGONAL, 1.0);
    }
}
