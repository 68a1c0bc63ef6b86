#version 450
// cloth_in_renderer's fragment shader: a blue cloth lit from one direction,
// on both of its sides (a cloth has no inside).
layout(location = 0) in vec3 world_normal;
layout(location = 0) out vec4 colour;

void main()
{
    vec3 n = normalize(world_normal);
    vec3 light = normalize(vec3(0.4, 0.8, 0.6));
    float lit = abs(dot(n, light));
    colour = vec4(vec3(0.15, 0.35, 0.8) * (0.25 + 0.75 * lit), 1.0);
}
