#version 450
#extension GL_GOOGLE_include_directive : require
// The velocities at the end of a substep and the next substep's prediction
// (integrate.glsl), particle by particle in one pass: each reads and writes
// its own particle only, so the two need no barrier between them and the
// particle sees the same operations in the same order as in two dispatches.
// Particles [0, range.count); the next substep's clearing of LAMBDA[0,
// range.count2) and ZDISP[0, range.slot_base) as in predict.comp.
#include "common.glsl"
#include "pbd.glsl"
#include "integrate.glsl"

void main()
{
    uint i = linear_id();
    if (i >= clear_threads())
        return;
    if (i < range.count) {
        velocity_particle(i);
        predict_particle(i);
    }
    clear_substep(i);
}
