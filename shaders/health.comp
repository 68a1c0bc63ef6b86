#version 450
#extension GL_GOOGLE_include_directive : require
// The health check (health.glsl) on its own, for a step whose last substep
// the body's velocity kernel did not end (the implicit solvers): thread
// i < range.count looks at particle i, thread i < range.count2 at element i
// (the host passes count2 = 0 for a body without tetrahedra).
#include "common.glsl"
#include "measure.glsl"
#include "health.glsl"

void main()
{
    uint i = linear_id();
    health_begin();
    if (i < range.count)
        health_particle(i, pos[i], vel[i].xyz);
    if (i < range.count2)
        health_element(i);
    health_end();
}
