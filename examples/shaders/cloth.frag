#version 450
// cloth_in_renderer's fragment shader: an 8 x 8 checker of light and dark
// blue on the cloth's UVs, where an engine would sample its texture, lit from
// one direction on both sides (a cloth has no inside).
layout(location = 0) in vec3 world_normal;
layout(location = 1) in vec2 texcoord;
layout(location = 0) out vec4 colour;

void main()
{
    ivec2 cell = ivec2(floor(texcoord * 8.0));
    vec3 base = (cell.x + cell.y) % 2 == 0 ? vec3(0.85, 0.9, 1.0) : vec3(0.1, 0.25, 0.75);
    vec3 n = normalize(world_normal);
    vec3 light = normalize(vec3(0.4, 0.8, 0.6));
    float lit = abs(dot(n, light));
    colour = vec4(base * (0.25 + 0.75 * lit), 1.0);
}
