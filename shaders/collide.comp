#version 450
#extension GL_GOOGLE_include_directive : require
// Contacts (contacts.glsl) of all particles, or (HPBD) of those of one level
// of the hierarchy.
#include "common.glsl"
#include "pbd.glsl"
#include "contacts.glsl"

void main()
{
    uint k = linear_id();
    if (k >= range.count)
        return;
    uint i = range.first2 != 0u ? hnode[range.first + k].particle : range.first + k;
    vec4 x = pos[i];
    if (x.w == 0.0)
        return;
    pos[i] = vec4(resolve_contacts(x.xyz, prev[i].xyz), x.w);
}
