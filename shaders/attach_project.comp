#version 450
#extension GL_GOOGLE_include_directive : require
// Once an iteration, before the contacts (docs/attachments.md, docs/math.md
// 12): each compliant attachment's XPBD point constraint C = |x - target|
// (threads [0, range.count): records from vec4 range.first, targets and
// multipliers from vec4 range.slot_base), then each tether's unilateral
// constraint |x - x_anchor| <= L (threads [range.count, + range.count2):
// tethers from vec4 range.first2). A particle is in one item at most and an
// anchor (inverse mass 0) is never moved here: no thread reads what another
// writes.
#include "common.glsl"
#include "attach.glsl"

void main()
{
    uint k = linear_id();
    if (k < range.count) {
        vec4 offset = attachment_offset(range.first, k);
        if (offset.w == 0.0)
            return; /* held: placed by attach_substep */
        uint i = attachment_ids(range.first, k).x;
        vec4 x = pos[i];
        vec4 target = attach[range.slot_base + k];
        vec3 d = x.xyz - target.xyz;
        float c = length(d);
        if (x.w == 0.0 || c <= 0.0)
            return;
        float alpha = offset.w * params.inv_h2;
        float dlambda = (-c - alpha * target.w) / (x.w + alpha);
        pos[i] = vec4(x.xyz + x.w * dlambda * (d / c), x.w);
        attach[range.slot_base + k].w = target.w + dlambda;
        return;
    }
    k -= range.count;
    if (k >= range.count2)
        return;
    vec4 t = attach[range.first2 + k];
    uint i = floatBitsToUint(t.x), a = floatBitsToUint(t.y);
    vec4 x = pos[i];
    if (x.w == 0.0)
        return;
    vec3 d = x.xyz - pos[a].xyz;
    float len = length(d);
    if (len > t.z)
        pos[i] = vec4(pos[a].xyz + d * (t.z / len), x.w);
}
