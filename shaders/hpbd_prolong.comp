#version 450
#extension GL_GOOGLE_include_directive : require
// Hierarchical PBD (Müller 2008, section 7, step 5): the particles of one level
// that no coarser level holds, HNODE[first, +count), take the weighted
// correction of their parents, p_i += sum_j w_ij (p_j - q_j). Q holds every
// position from before the coarsest level's sweep, so p_j - q_j is all a
// parent moved on the coarser levels; these particles have not moved yet.
// Parents and children are different particles: no races. Pinned particles
// stay put.
#include "common.glsl"
#include "pbd.glsl"

void main()
{
    uint k = linear_id();
    if (k >= range.count)
        return;
    GpuNode node = hnode[range.first + k];
    vec4 p = pos[node.particle];
    if (p.w == 0.0 || node.count == 0u)
        return;
    vec3 dp = vec3(0.0);
    for (uint j = node.first; j < node.first + node.count; j++) {
        GpuLink l = hlink[j];
        dp += l.weight * (pos[l.parent].xyz - q[l.parent].xyz);
    }
    pos[node.particle] = vec4(p.xyz + dp, p.w);
}
