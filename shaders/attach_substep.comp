#version 450
#extension GL_GOOGLE_include_directive : require
// The start of a substep, after the prediction (docs/attachments.md): each
// pin goes to its target (threads [0, range.count): pin slots from vec4
// range.first), each attachment's target is its frame's pose at the
// substep's end (fraction range.weight of the step) applied to its offset
// (threads [range.count, + range.count2): records from vec4 range.first2,
// targets from vec4 range.slot_base), its multiplier reset; a held
// attachment's particle (inverse mass 0) goes there. Each thread writes its
// own particle: no particle is in two slots (attach.c checks).
#include "common.glsl"
#include "attach.glsl"

void main()
{
    uint k = linear_id();
    if (k < range.count) {
        vec4 pin = attach[range.first + k];
        uint i = floatBitsToUint(pin.w);
        if (i != SINEW_ATTACH_NONE)
            pos[i] = vec4(pin.xyz, 0.0);
        return;
    }
    k -= range.count;
    if (k >= range.count2)
        return;
    vec4 offset = attachment_offset(range.first2, k);
    uvec2 ids = attachment_ids(range.first2, k);
    vec3 p;
    vec4 q;
    frame_pose(ids.y, range.weight, p, q);
    vec3 target = p + quat_rotate(q, offset.xyz);
    attach[range.slot_base + k] = vec4(target, 0.0);
    if (offset.w == 0.0)
        pos[ids.x] = vec4(target, 0.0);
}
