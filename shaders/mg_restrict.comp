#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth, full weighting from level range.first2 + 1 to
// level range.first2, one coarse particle per invocation, gathering from its
// children (the finer level's particles it is a parent of):
//   range.count2 = 0:  F_c[i] = R_f[i] + 1/2 sum R_f[m], and U_c[i] = 0
//   range.count2 = 1:  D_c[i] = D_f[i] + 1/2 sum D_f[m]   (the soft constraints)
#include "common.glsl"
#include "mg.glsl"

void main()
{
    if (!mg_open())
        return;
    uint level = range.first2, fine = level + 1u;
    uint i = linear_id();
    if (i >= mg_field(level, SINEW_MG_N))
        return;
    uint start = mg_field(level, SINEW_MG_CHILD_START), child = mg_field(level, SINEW_MG_CHILD);
    if (range.count2 == 0u) {
        uint r = mg_vec(fine, SINEW_MG_R, 0u);
        vec3 s = mg_real[r + i].xyz;
        for (uint k = mg_index[start + i]; k < mg_index[start + i + 1u]; k++)
            s += 0.5 * mg_real[r + mg_index[child + k]].xyz;
        mg_real[mg_vec(level, SINEW_MG_F, i)] = vec4(s, 0.0);
        mg_real[mg_vec(level, SINEW_MG_U, i)] = vec4(0.0);
    } else {
        uint df = mg_field(fine, SINEW_MG_D), dc = mg_field(level, SINEW_MG_D);
        for (uint row = 0u; row < 3u; row++) {
            vec3 s = mg_real[df + 3u * i + row].xyz;
            for (uint k = mg_index[start + i]; k < mg_index[start + i + 1u]; k++)
                s += 0.5 * mg_real[df + 3u * mg_index[child + k] + row].xyz;
            mg_real[dc + 3u * i + row] = vec4(s, 0.0);
        }
    }
}
