#version 450
// sinew-sim's pictures: a mesh whose positions and normals come straight from
// sinew's buffers (the cloth) or from the renderer's own (ground, colliders,
// placed by offset and scale). Push constants: tools/render.c.
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 normal;
layout(location = 2) in vec2 uv;     // the render mesh's (colour.w 3); unused otherwise

layout(push_constant) uniform Push {
    mat4 view_projection;
    vec4 offset;  // xyz: added to the scaled position
    vec4 scale;   // xyz: per-axis scale
    vec4 colour;  // rgb; w: 0 cloth (two-sided), 1 ground checkerboard, 2 solid,
                  // 3 render mesh (two-sided, a checker texture on its UVs)
} push;

layout(location = 0) out vec3 world;
layout(location = 1) out vec3 world_normal;
layout(location = 2) out vec2 texcoord;

void main()
{
    world = position.xyz * push.scale.xyz + push.offset.xyz;
    world_normal = normalize(normal.xyz / push.scale.xyz);
    texcoord = uv;
    gl_Position = push.view_projection * vec4(world, 1.0);
}
