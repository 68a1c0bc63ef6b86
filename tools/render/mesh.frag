#version 450
// Lambert shading under a key light and a sky fill, gamma 2.2: two-sided for
// cloth, one-sided for solids in their own plain colour; the ground is a
// 0.25 m checkerboard in its own plane, fading with distance, and a render mesh (colour.w 3)
// a checker of 8 x 8 cells on its UVs, the cells along u = 0 tinted, so a
// seam whose UVs were lost shows as a smear.
layout(push_constant) uniform Push {
    mat4 view_projection;
    vec4 offset;
    vec4 scale;
    vec4 colour;
    vec4 rotation;
} push;

layout(location = 0) in vec3 local;
layout(location = 1) in vec3 world_normal;
layout(location = 2) in vec2 texcoord;
layout(location = 0) out vec4 out_colour;

void main()
{
    vec3 n = length(world_normal) > 0.0 ? normalize(world_normal) : vec3(0.0, 1.0, 0.0);
    vec3 key = normalize(vec3(0.4, 1.0, 0.6));
    vec3 base = push.colour.rgb;
    if (push.colour.w > 0.5 && push.colour.w < 1.5) { // the ground alone
        ivec2 cell = ivec2(floor(local.xz / 0.25)); // in its own plane, however it is turned
        base = ((cell.x + cell.y) & 1) == 0 ? vec3(0.72) : vec3(0.58);
        base = mix(base, vec3(0.8, 0.85, 0.9), clamp(length(local.xz) / 12.0, 0.0, 1.0));
    }
    if (push.colour.w > 2.5) { // a render mesh: its UVs
        ivec2 cell = ivec2(floor(texcoord * 8.0));
        base = ((cell.x + cell.y) & 1) == 0 ? push.colour.rgb : vec3(0.25, 0.35, 0.7);
        if (cell.x == 0)
            base = mix(base, vec3(0.8, 0.2, 0.2), 0.5);
    }
    // cloth (w 0) is lit on both sides; solids (w 2) on their outside only
    float diffuse = push.colour.w > 1.5 && push.colour.w < 2.5 ? max(dot(n, key), 0.0) : abs(dot(n, key));
    float light = 0.25 + 0.15 * (0.5 + 0.5 * n.y) + 0.7 * diffuse;
    out_colour = vec4(pow(base * light, vec3(1.0 / 2.2)), 1.0);
}
