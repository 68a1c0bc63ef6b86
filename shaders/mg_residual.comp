#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: y = F - A x (range.count2 = 0) or y = A x (1) on
// a level, one row per invocation (mg_row_times). range.first2: the level;
// range.distance_total: x's vector; range.slot_base: y's.
#include "common.glsl"
#include "mg.glsl"

void main()
{
    if (!mg_open())
        return;
    uint level = range.first2;
    uint i = linear_id();
    if (i >= mg_field(level, SINEW_MG_N))
        return;
    vec3 y = mg_row_times(level, range.distance_total, i);
    if (range.count2 == 0u)
        y = mg_real[mg_vec(level, SINEW_MG_F, i)].xyz - y;
    mg_real[mg_vec(level, range.slot_base, i)] = vec4(y, 0.0);
}
