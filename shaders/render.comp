#version 450
#extension GL_GOOGLE_include_directive : require
// The render mesh's vertex buffer (docs/render-mesh.md): for each render
// vertex its position, the weighted sum of its particles, and its normal:
// cloth (mode 0) the weighted particle vertex normals (normals.comp, run
// before), soft solids (mode 1) F^-T n of its tetrahedron, as Ds^-T (Dm^T n)
// with Dm^T n prepared by the host and Ds^-T = cof(Ds) / det(Ds); then its
// UV. One invocation a render vertex; range.count render vertices, the
// output at vec4 range.first of RENDER (layout.h). Particles of weight 0 are
// not read (a cloth vertex reads one).
#include "common.glsl"

void main()
{
    uint i = linear_id();
    if (i >= range.count)
        return;
    uvec4 p = floatBitsToUint(render[4u * i]);
    vec4 w = render[4u * i + 1u];
    vec4 nm = render[4u * i + 2u];
    vec4 uv = render[4u * i + 3u];
    vec3 x = vec3(0.0);
    for (int k = 0; k < 4; k++)
        if (w[k] != 0.0)
            x += w[k] * pos[p[k]].xyz;
    vec3 n;
    if (nm.w == 0.0) {
        n = vec3(0.0);
        for (int k = 0; k < 4; k++)
            if (w[k] != 0.0)
                n += w[k] * normal[p[k]].xyz;
    } else {
        vec3 x0 = pos[p.x].xyz;
        vec3 a0 = pos[p.y].xyz - x0, a1 = pos[p.z].xyz - x0, a2 = pos[p.w].xyz - x0;
        // Ds^-T m = (m.x (a1 x a2) + m.y (a2 x a0) + m.z (a0 x a1)) / det(Ds)
        n = nm.x * cross(a1, a2) + nm.y * cross(a2, a0) + nm.z * cross(a0, a1);
        if (dot(a0, cross(a1, a2)) < 0.0)
            n = -n;
    }
    float len = length(n);
    n = len > 0.0 ? n / len : (length(nm.xyz) > 0.0 ? normalize(nm.xyz) : vec3(0.0, 0.0, 1.0));
    uint o = range.first + 2u * i;
    render[o] = vec4(x, n.x);
    render[o + 1u] = vec4(n.y, n.z, uv.x, uv.y);
}
