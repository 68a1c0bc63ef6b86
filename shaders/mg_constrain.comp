#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: the soft constraints of the finest level
// (range.first2), one particle per invocation, from its pin and the step's
// colliders (docs/implicit.md, "The bodies"):
//   pinned (inverse mass 0)  point constraint   D = k_pin I, d = anchor - x
//                            (the anchor is PREV, moved by move_pinned)
//   in contact               sliding constraint D = k_c n n^T + k_f (I - n n^T)
// A particle is in contact when its position moved on at its velocity,
// p = x + h v, lies within contact_offset of the ground (along its normal),
// the sphere, the capsule, the mesh collider, the box or a shape of the
// collider list (the nearest of them, at its pose at the substep's end); n is
// that collider's outward normal at p and the target puts the particle back
// at contact_offset along n, linearised at p (phi(x + dx) ~ phi(p) + n.(dx -
// h v)), and carries it along the tangent with the mesh's, the box's or the
// shape's motion (at p). Writes D, TARGET and FILTER.
#include "common.glsl"
#include "contacts.glsl"
#include "mg.glsl"

// Signed distance from the box and its outward normal at p.
float box_distance(vec3 p, out vec3 n)
{
    vec3 l = p - params.box_center.xyz;
    vec3 q = abs(l) - params.box_half.xyz;
    vec3 s = vec3(l.x < 0.0 ? -1.0 : 1.0, l.y < 0.0 ? -1.0 : 1.0, l.z < 0.0 ? -1.0 : 1.0);
    float outside = length(max(q, vec3(0.0)));
    if (outside > 0.0) {
        n = s * max(q, vec3(0.0)) / outside;
        return outside;
    }
    int axis = q.x > q.y ? (q.x > q.z ? 0 : 2) : (q.y > q.z ? 1 : 2);
    n = vec3(0.0);
    n[axis] = s[axis];
    return q[axis];
}

void main()
{
    uint level = range.first2;
    uint i = linear_id();
    if (i >= mg_field(level, SINEW_MG_N))
        return;
    uint g = mg_globals();
    float h = mg_real[g].x;
    vec4 k = mg_real[g + 2u]; // k_contact, k_friction, k_pin
    vec3 x = pos[i].xyz, v = vel[i].xyz;
    mat3 D = mat3(0.0);
    vec3 d = vec3(0.0);
    vec4 filt = vec4(0.0, 0.0, 0.0, SINEW_MG_FREE);
    if (pos[i].w == 0.0) {
        D = mat3(k.z);
        d = prev[i].xyz - x;
        filt.w = SINEW_MG_POINT;
    } else {
        vec3 p = x + h * v;
        float off = params.contact_offset, phi = off, dist;
        vec3 n = vec3(0.0), nc, motion = vec3(0.0);
        dist = dot(params.ground_normal.xyz, p) - params.ground;
        if (dist < phi) {
            phi = dist;
            n = params.ground_normal.xyz;
        }
        if (params.sphere.w >= 0.0) {
            vec3 r = p - params.sphere.xyz;
            float len = length(r);
            dist = len - params.sphere.w;
            if (dist < phi) {
                phi = dist;
                n = len > 1e-12 ? r / len : vec3(0.0, 1.0, 0.0);
            }
        }
        if (params.capsule_a.w >= 0.0) {
            vec3 r = p - capsule_closest(p);
            float len = length(r);
            dist = len - params.capsule_a.w;
            if (dist < phi) {
                phi = dist;
                n = len > 1e-12 ? r / len : vec3(0.0, 1.0, 0.0);
            }
        }
        if (params.sdf_origin.w > 0.0) {
            dist = mesh_distance(p, nc);
            if (dist < phi) {
                phi = dist;
                n = nc;
                motion = params.sdf_motion.xyz;
            }
        }
        if (params.box_center.w > 0.0) {
            dist = box_distance(p, nc);
            if (dist < phi) {
                phi = dist;
                n = nc;
                motion = params.box_motion.xyz;
            }
        }
        for (uint s = 0u; s < params.shapes.x; s++) {
            dist = shape_distance(s, p, nc);
            if (dist < phi) {
                phi = dist;
                n = nc;
                motion = h * shape_point_velocity(s, p);
            }
        }
        if (n != vec3(0.0)) {
            mat3 nn = outerProduct(n, n);
            D = k.x * nn + k.y * (mat3(1.0) - nn);
            d = n * (off - phi + h * dot(n, v)) + motion;
            filt = vec4(n, SINEW_MG_SLIDING);
        }
    }
    uint dat = mg_field(level, SINEW_MG_D) + 3u * i;
    for (int r = 0; r < 3; r++)
        mg_real[dat + uint(r)] = vec4(D[0][r], D[1][r], D[2][r], 0.0);
    mg_real[mg_vec(level, SINEW_MG_TARGET, i)] = vec4(d, 0.0);
    mg_real[mg_vec(level, SINEW_MG_FILTER, i)] = filt;
}
