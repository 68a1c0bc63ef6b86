#version 450
#extension GL_GOOGLE_include_directive : require
// The collider list's poses at the end of substep range.first
// (docs/colliders.md): each shape, written by the host at the step's start,
// moved on at its velocity and turned at its angular velocity (about its
// centre, in the world frame) for t = (range.first + 1) h,
//
//     c(t) = c + v t,    q(t) = (sin(|w| t / 2) w / |w|, cos(|w| t / 2)) q,
//
// with its local axes (the columns of q(t)'s rotation) for the contact
// kernels. Shapes [0, params.shapes.x) of the range.count recorded.
#include "common.glsl"

// q1 q2 (x y z w).
vec4 quat_mul(vec4 a, vec4 b)
{
    return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

void main()
{
    uint k = linear_id();
    if (k >= range.count || k >= params.shapes.x)
        return;
    uint src = SINEW_SHAPE_VEC4S * k, dst = params.shapes.y + src;
    float t = float(range.first + 1u) * params.gravity.w;
    vec4 c = shape_data[src], q = shape_data[src + 1u], v = shape_data[src + 3u], w = shape_data[src + 4u];
    float rate = length(w.xyz);
    if (rate > 0.0) {
        float half_angle = 0.5 * rate * t;
        q = quat_mul(vec4(sin(half_angle) * w.xyz / rate, cos(half_angle)), q);
    }
    q = normalize(q);
    float x = q.x, y = q.y, z = q.z, s = q.w;
    shape_data[dst] = vec4(c.xyz + v.xyz * t, c.w);
    shape_data[dst + 1u] = q;
    shape_data[dst + 2u] = shape_data[src + 2u];
    shape_data[dst + 3u] = v;
    shape_data[dst + 4u] = w;
    shape_data[dst + 5u] = vec4(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + s * z), 2.0 * (x * z - s * y), 0.0);
    shape_data[dst + 6u] = vec4(2.0 * (x * y - s * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + s * x), 0.0);
    shape_data[dst + 7u] = vec4(2.0 * (x * z + s * y), 2.0 * (y * z - s * x), 1.0 - 2.0 * (x * x + y * y), 0.0);
}
