#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: one colour of block Gauss-Seidel on a level
// (range.first2): the particles MG_INDEX[range.first .. + range.count), none
// coupled to another of them, each correcting its U by its own 3x3 block
// against the residual of its row with its neighbours' latest U:
//   U_i += A_ii^-1 (F_i - (A U)_i)
// the row applied as mg_row_times does, so the sweeps' fixed point is the
// solution of the system the residual measures.
#include "common.glsl"
#include "mg.glsl"

void main()
{
    if (!mg_open())
        return;
    uint level = range.first2;
    uint k = linear_id();
    if (k >= range.count)
        return;
    uint i = mg_index[range.first + k];
    uint u = mg_vec(level, SINEW_MG_U, i);
    vec3 r = mg_real[mg_vec(level, SINEW_MG_F, i)].xyz - mg_row_times(level, SINEW_MG_U, i);
    uint diag = mg_field(level, SINEW_MG_BLOCKS) + 3u * mg_index[mg_field(level, SINEW_MG_DIAG) + i];
    mg_real[u] = vec4(mg_real[u].xyz + mg_block_solve(diag, r), 0.0);
}
