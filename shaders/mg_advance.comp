#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: the step's solution applied, one particle of the
// finest level (range.first2) per invocation. U is y = dx - h v:
// x += h v + y, v += y / h.
#include "common.glsl"
#include "mg.glsl"

void main()
{
    uint level = range.first2;
    uint i = linear_id();
    if (i >= mg_field(level, SINEW_MG_N))
        return;
    vec3 y = mg_real[mg_vec(level, SINEW_MG_U, i)].xyz;
    float h = mg_real[mg_globals()].x;
    pos[i].xyz += h * vel[i].xyz + y;
    vel[i].xyz += y / h;
}
