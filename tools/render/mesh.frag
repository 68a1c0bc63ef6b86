#version 450
// Lambert shading under a key light and a sky fill, gamma 2.2: two-sided for
// cloth, one-sided for solids in their own plain colour; only the ground is a
// 0.25 m checkerboard, fading with distance.
layout(push_constant) uniform Push {
    mat4 view_projection;
    vec4 offset;
    vec4 scale;
    vec4 colour;
} push;

layout(location = 0) in vec3 world;
layout(location = 1) in vec3 world_normal;
layout(location = 0) out vec4 out_colour;

void main()
{
    vec3 n = length(world_normal) > 0.0 ? normalize(world_normal) : vec3(0.0, 1.0, 0.0);
    vec3 key = normalize(vec3(0.4, 1.0, 0.6));
    vec3 base = push.colour.rgb;
    if (push.colour.w > 0.5 && push.colour.w < 1.5) { // the ground alone
        ivec2 cell = ivec2(floor(world.xz / 0.25));
        base = ((cell.x + cell.y) & 1) == 0 ? vec3(0.72) : vec3(0.58);
        base = mix(base, vec3(0.8, 0.85, 0.9), clamp(length(world.xz) / 12.0, 0.0, 1.0));
    }
    // cloth (w 0) is lit on both sides; solids (w 2) on their outside only
    float diffuse = push.colour.w > 1.5 ? max(dot(n, key), 0.0) : abs(dot(n, key));
    float light = 0.25 + 0.15 * (0.5 + 0.5 * n.y) + 0.7 * diffuse;
    out_colour = vec4(pow(base * light, vec3(1.0 / 2.2)), 1.0);
}
