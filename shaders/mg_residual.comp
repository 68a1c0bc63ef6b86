#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: y = F - A x (range.count2 = 0) or y = A x (1) on
// a level, one row per invocation. range.first2: the level;
// range.distance_total: x's vector; range.slot_base: y's.
#include "common.glsl"
#include "mg.glsl"

void main()
{
    uint level = range.first2;
    uint i = linear_id();
    if (i >= mg_field(level, SINEW_MG_N))
        return;
    uint rows = mg_field(level, SINEW_MG_ROW), cols = mg_field(level, SINEW_MG_COL);
    uint blocks = mg_field(level, SINEW_MG_BLOCKS), x = mg_vec(level, range.distance_total, 0u);
    vec3 y = vec3(0.0);
    for (uint b = mg_index[rows + i]; b < mg_index[rows + i + 1u]; b++)
        y += mg_block_mul(blocks + 3u * b, mg_real[x + mg_index[cols + b]].xyz);
    if (range.count2 == 0u)
        y = mg_real[mg_vec(level, SINEW_MG_F, i)].xyz - y;
    mg_real[mg_vec(level, range.slot_base, i)] = vec4(y, 0.0);
}
