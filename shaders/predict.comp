#version 450
#extension GL_GOOGLE_include_directive : require
// The first substep's prediction (integrate.glsl) of particles [0, range.count),
// and the clearing of the solver's per-substep state: LAMBDA[0, range.count2)
// and ZDISP[0, range.slot_base). No thread reads what another writes.
#include "common.glsl"
#include "pbd.glsl"
#include "integrate.glsl"

void main()
{
    uint i = linear_id();
    if (i >= clear_threads())
        return;
    if (i < range.count)
        predict_particle(i);
    clear_substep(i);
}
