#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: the coarsest level's exact solve, one workgroup, invocation i owning
// row i (pc.count <= SINEW_AMG_DENSE_ROWS rows):
//   FACTOR  the Cholesky factor L of matrix pc.matrix into FACTOR (row major,
//           lower triangle), made once per outer iteration
//   SOLVE   x = (L L^T)^-1 y by forward and back substitution, each V-cycle
// A pivot that single precision cancels to nothing or below (a nearly
// singular coarse operator) is replaced by 1e-6 of the row's diagonal, which
// keeps the preconditioner symmetric positive definite.
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

shared float L[SINEW_AMG_DENSE_ROWS * SINEW_AMG_DENSE_ROWS];
shared float v[SINEW_AMG_DENSE_ROWS];

void main()
{
    if (!amg_open())
        return;
    const uint N = SINEW_AMG_DENSE_ROWS;
    uint i = gl_LocalInvocationID.x, n = pc.count, f = amg_head(SINEW_AMG_FACTOR);
    if (pc.mode == SINEW_AMG_COARSE_FACTOR) {
        for (uint j = 0u; j < N; j++)
            L[i * N + j] = 0.0;
        float diag = 1.0;
        if (i < n) {
            uint rows = amg_mat(pc.matrix, SINEW_AMG_M_ROW), cols = amg_mat(pc.matrix, SINEW_AMG_M_COL);
            uint vals = amg_mat(pc.matrix, SINEW_AMG_M_VAL);
            for (uint e = amg_i(rows + i); e < amg_i(rows + i + 1u); e++)
                L[i * N + amg_i(cols + e)] = amg_r(vals + e);
            diag = abs(L[i * N + i]);
        }
        barrier();
        for (uint k = 0u; k < n; k++) {
            if (i == k) {
                float p = L[k * N + k];
                L[k * N + k] = sqrt(p > 1e-6 * diag ? p : 1e-6 * diag + 1e-30);
            }
            barrier();
            if (i > k && i < n)
                L[i * N + k] /= L[k * N + k];
            barrier();
            if (i > k && i < n)
                for (uint j = k + 1u; j <= i; j++)
                    L[i * N + j] -= L[i * N + k] * L[j * N + k];
            barrier();
        }
        if (i < n)
            for (uint j = 0u; j <= i; j++)
                amg_set(f + i * n + j, L[i * N + j]);
        return;
    }
    v[i] = i < n ? amg_r(pc.y + i) : 0.0;
    barrier();
    for (uint k = 0u; k < n; k++) { // L z = y
        if (i == k)
            v[k] /= amg_r(f + k * n + k);
        barrier();
        if (i > k && i < n)
            v[i] -= amg_r(f + i * n + k) * v[k];
        barrier();
    }
    for (uint k = n; k-- > 0u;) { // L^T x = z
        if (i == k)
            v[k] /= amg_r(f + k * n + k);
        barrier();
        if (i < k)
            v[i] -= amg_r(f + k * n + i) * v[k];
        barrier();
    }
    if (i < n)
        amg_set(pc.x + i, v[i]);
}
