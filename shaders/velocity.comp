#version 450
#extension GL_GOOGLE_include_directive : require
// The last substep's velocities (integrate.glsl) of particles
// [0, range.count); with range.first2 != 0 the health check (health.glsl) in
// the same pass: of each particle with the velocity just computed, and of
// elements [0, range.count2), whose positions the substep's last dispatch
// before this one left final.
#include "common.glsl"
#include "pbd.glsl"
#include "measure.glsl"
#include "health.glsl"
#include "integrate.glsl"

void main()
{
    uint i = linear_id();
    bool health = range.first2 != 0u;
    if (health)
        health_begin();
    if (i < range.count) {
        vec3 v = velocity_particle(i);
        if (health)
            health_particle(i, pos[i], v);
    }
    if (health) {
        if (i < range.count2)
            health_element(i);
        health_end();
    }
}
