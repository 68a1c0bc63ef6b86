#version 450
// sinew-sim's pictures: a mesh whose positions and normals come straight from
// sinew's buffers (the cloth) or from the renderer's own (ground, colliders,
// placed by scale, rotation and offset). Push constants: tools/render.c.
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 normal;
layout(location = 2) in vec2 uv;     // the render mesh's (colour.w 3); unused otherwise

layout(push_constant) uniform Push {
    mat4 view_projection;
    vec4 offset;  // xyz: added to the scaled position
    vec4 scale;   // xyz: per-axis scale
    vec4 colour;  // rgb; w: 0 cloth (two-sided), 1 ground checkerboard, 2 solid,
                  // 3 render mesh (two-sided, a checker texture on its UVs)
    vec4 rotation; // unit quaternion x y z w, turning the scaled position about the origin
} push;

layout(location = 0) out vec3 local;  // the scaled position before the turn (the ground's checkerboard)
layout(location = 1) out vec3 world_normal;
layout(location = 2) out vec2 texcoord;

// v turned by the unit quaternion q.
vec3 turn(vec4 q, vec3 v)
{
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

void main()
{
    local = position.xyz * push.scale.xyz;
    vec3 world = turn(push.rotation, local) + push.offset.xyz;
    world_normal = turn(push.rotation, normalize(normal.xyz / push.scale.xyz));
    texcoord = uv;
    gl_Position = push.view_projection * vec4(world, 1.0);
}
