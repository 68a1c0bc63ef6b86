#version 450
#extension GL_GOOGLE_include_directive : require
// Contacts (contacts.glsl) of all particles, or (HPBD) of those of one level
// of the hierarchy. With range.slot_base != 0 each particle first takes its
// self-contacts' mean correction (selfcol_kernels.glsl's PROJECT).
#include "common.glsl"
#include "pbd.glsl"
#include "contacts.glsl"
#include "selfcol.glsl"

void main()
{
    uint k = linear_id();
    if (k >= range.count)
        return;
    uint i = range.first2 != 0u ? hnode[range.first + k].particle : range.first + k;
    vec4 x = pos[i];
    if (x.w == 0.0)
        return;
    vec3 p = range.slot_base != 0u ? x.xyz + self_correction(i) : x.xyz;
    pos[i] = vec4(resolve_contacts(p, prev[i].xyz), x.w);
}
