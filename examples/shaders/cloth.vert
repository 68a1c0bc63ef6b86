#version 450
// cloth_in_renderer's vertex shader. Two vertex streams, straight from
// sinew's buffers (sinew_body_get_vulkan_buffers): particle positions
// (x, y, z, inverse mass) and unit normals (x, y, z, 0), 16 bytes a particle;
// the attributes read the first three floats of each.
layout(location = 0) in vec3 position; // m
layout(location = 1) in vec3 normal;

layout(push_constant) uniform View {
    mat4 view_projection; // world (m) to clip space
} view;

layout(location = 0) out vec3 world_normal;

void main()
{
    gl_Position = view.view_projection * vec4(position, 1.0);
    world_normal = normal;
}
