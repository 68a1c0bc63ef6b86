#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth, linear interpolation from level range.first2 - 1
// to level range.first2, added to U, one fine particle per invocation:
//   U_f[i] += U_c[i] for a particle of the coarser level,
//   U_f[m] += (U_c[p0] + U_c[p1]) / 2 for a midpoint of parents p0, p1.
#include "common.glsl"
#include "mg.glsl"

void main()
{
    if (!mg_open())
        return;
    uint level = range.first2, coarse = level - 1u;
    uint i = linear_id();
    if (i >= mg_field(level, SINEW_MG_N))
        return;
    uint uc = mg_vec(coarse, SINEW_MG_U, 0u);
    vec3 e;
    if (i < mg_field(coarse, SINEW_MG_N)) {
        e = mg_real[uc + i].xyz;
    } else {
        uint p = mg_parents() + 2u * i;
        e = 0.5 * (mg_real[uc + mg_index[p]].xyz + mg_real[uc + mg_index[p + 1u]].xyz);
    }
    mg_real[mg_vec(level, SINEW_MG_U, i)].xyz += e;
}
