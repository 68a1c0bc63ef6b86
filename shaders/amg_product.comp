#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: the values of a sparse product C = X Y into C's pattern, fixed by
// the AMG setup (the Galerkin operators A P and R (A P) recomputed each outer
// iteration while P is reused: lazy setup). One row of C per invocation,
// which alone writes it: no atomics, the same bits every run. Matrix records:
// pc.matrix C, pc.x X, pc.y Y. With pc.mode 1 C is a coarse operator, and
// a diagonal of it that is not positive sets scalar SINEW_AMG_S_INDEFINITE
// (every such invocation writes the same 1): P's columns lie near A's kernel,
// so A P is far smaller than the entries it is made of, and single precision
// can lose it (docs/mgpbd.md); the host then sets the hierarchy up afresh.
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

void main()
{
    uint i = linear_id();
    if (i >= pc.count)
        return;
    uint crow = amg_mat(pc.matrix, SINEW_AMG_M_ROW), ccol = amg_mat(pc.matrix, SINEW_AMG_M_COL);
    uint cval = amg_mat(pc.matrix, SINEW_AMG_M_VAL);
    uint xrow = amg_mat(pc.x, SINEW_AMG_M_ROW), xcol = amg_mat(pc.x, SINEW_AMG_M_COL), xval = amg_mat(pc.x, SINEW_AMG_M_VAL);
    uint yrow = amg_mat(pc.y, SINEW_AMG_M_ROW), ycol = amg_mat(pc.y, SINEW_AMG_M_COL), yval = amg_mat(pc.y, SINEW_AMG_M_VAL);
    uint c0 = amg_i(crow + i), c1 = amg_i(crow + i + 1u);
    for (uint e = c0; e < c1; e++)
        amg_set(cval + e, 0.0);
    for (uint k = amg_i(xrow + i); k < amg_i(xrow + i + 1u); k++) {
        uint j = amg_i(xcol + k);
        float xv = amg_r(xval + k);
        for (uint l = amg_i(yrow + j); l < amg_i(yrow + j + 1u); l++) {
            uint col = amg_i(ycol + l);
            uint lo = c0, hi = c1; // the column's entry in C's row: binary search
            while (hi - lo > 1u) {
                uint mid = (lo + hi) >> 1u;
                if (amg_i(ccol + mid) <= col)
                    lo = mid;
                else
                    hi = mid;
            }
            if (lo < c1 && amg_i(ccol + lo) == col)
                amg_add(cval + lo, xv * amg_r(yval + l));
        }
    }
    if (pc.mode == 1u && !(amg_diag(pc.matrix, i) > 0.0))
        amg_set(amg_head(SINEW_AMG_SCALARS) + SINEW_AMG_S_INDEFINITE, 1.0);
}
