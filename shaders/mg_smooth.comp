#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: one colour of block Gauss-Seidel on a level
// (range.first2): the particles MG_INDEX[range.first .. + range.count), none
// coupled to another of them, each solving its own 3x3 block against its
// neighbours' latest U:  U_i = A_ii^-1 (F_i - sum over j != i of A_ij U_j).
#include "common.glsl"
#include "mg.glsl"

void main()
{
    uint level = range.first2;
    uint k = linear_id();
    if (k >= range.count)
        return;
    uint i = mg_index[range.first + k];
    uint rows = mg_field(level, SINEW_MG_ROW), cols = mg_field(level, SINEW_MG_COL);
    uint blocks = mg_field(level, SINEW_MG_BLOCKS), u = mg_vec(level, SINEW_MG_U, 0u);
    vec3 s = mg_real[mg_vec(level, SINEW_MG_F, i)].xyz;
    uint diag = 0u;
    for (uint b = mg_index[rows + i]; b < mg_index[rows + i + 1u]; b++) {
        uint j = mg_index[cols + b];
        if (j == i)
            diag = blocks + 3u * b;
        else
            s -= mg_block_mul(blocks + 3u * b, mg_real[u + j].xyz);
    }
    mg_real[u + i] = vec4(mg_block_solve(diag, s), 0.0);
}
