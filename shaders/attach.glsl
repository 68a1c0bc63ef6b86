// Attachments to frames (docs/attachments.md, docs/math.md 12): a frame's
// pose within the step, and where it puts an attached particle. Include
// after common.glsl.

// v rotated by the unit quaternion q (x, y, z, w).
vec3 quat_rotate(vec4 q, vec3 v)
{
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// Frame f's pose at fraction t of the step (0: its start, 1: its end):
// position by linear interpolation, rotation by nlerp along the shorter arc.
void frame_pose(uint f, float t, out vec3 position, out vec4 rotation)
{
    vec4 p0 = attach[4u * f], q0 = attach[4u * f + 1u];
    vec4 p1 = attach[4u * f + 2u], q1 = attach[4u * f + 3u];
    if (dot(q0, q1) < 0.0)
        q1 = -q1;
    position = t >= 1.0 ? p1.xyz : mix(p0.xyz, p1.xyz, t);
    rotation = t >= 1.0 ? q1 : normalize(mix(q0, q1, t));
}

// Attachment k's record (records start at vec4 `base`): offset in its frame
// and compliance; particle and frame.
vec4 attachment_offset(uint base, uint k) { return attach[base + 2u * k]; }
uvec2 attachment_ids(uint base, uint k) { return floatBitsToUint(attach[base + 2u * k + 1u].xy); }
