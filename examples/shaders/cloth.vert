#version 450
// cloth_in_renderer's vertex shader. One vertex stream, straight from sinew's
// render mesh (sinew_vulkan_buffers.render_vertices): 32 bytes a vertex,
// position xyz (m), unit normal xyz, uv, written by the body every step.
layout(location = 0) in vec3 position; // m
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;

layout(push_constant) uniform View {
    mat4 view_projection; // world (m) to clip space
} view;

layout(location = 0) out vec3 world_normal;
layout(location = 1) out vec2 texcoord;

void main()
{
    gl_Position = view.view_projection * vec4(position, 1.0);
    world_normal = normal;
    texcoord = uv;
}
