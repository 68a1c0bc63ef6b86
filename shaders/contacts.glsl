// Contacts with the ground plane (any normal), a sphere, a capsule, the mesh
// collider's distance field, an axis-aligned box and the shapes of the
// collider list (spheres, capsules, oriented boxes, mesh colliders, each
// moving and turning; docs/colliders.md), projected as hard unilateral
// constraints on one particle, with position-level Coulomb friction against
// the motion since the start of the substep (relative to a collider's own
// motion at the contact: a moving or turning collider carries what rests on
// it). Included after common.glsl.

vec3 apply_friction(vec3 p, vec3 x0, vec3 n, float depth)
{
    vec3 dp = p - x0;
    vec3 t = dp - n * dot(dp, n);
    float lt = length(t);
    float limit = params.friction * depth;
    if (lt <= limit)
        return p - t;                 // static: the particle sticks
    return p - t * (limit / lt);      // kinetic: tangential motion reduced
}

// The point of the capsule's segment nearest to p.
vec3 capsule_closest(vec3 p)
{
    vec3 a = params.capsule_a.xyz, ab = params.capsule_b.xyz - a;
    float len2 = dot(ab, ab);
    float t = len2 > 0.0 ? clamp(dot(p - a, ab) / len2, 0.0, 1.0) : 0.0;
    return a + t * ab;
}

// Value k of a distance field: the mesh collider's (SDF) or, `listed`, one
// of the collider list's (floats of SHAPES).
float field_value(bool listed, uint k)
{
    return listed ? shape_data[k >> 2][k & 3u] : sdf[k];
}

// A distance field's signed distance at the point l of its own frame (m,
// negative inside) and its outward unit normal nl there (its frame): the
// field sampled trilinearly, the distance from the grid added beyond it; the
// normal is the gradient of the interpolant. As sinew_sdf_sample in
// src/collider.c. Values from field_value(listed, base + node).
float field_distance(vec3 l, uvec3 dims, vec3 origin, float cell, bool listed, uint base, out vec3 nl)
{
    vec3 g = (l - origin) / cell;
    vec3 gc = clamp(g, vec3(0.0), vec3(dims - 1u));
    uvec3 c = min(uvec3(gc), dims - 2u);
    vec3 f = gc - vec3(c), e = 1.0 - f;
    uint sy = dims.x, sz = dims.x * dims.y, b = base + c.x + sy * c.y + sz * c.z;
    float v000 = field_value(listed, b), v001 = field_value(listed, b + 1u);
    float v010 = field_value(listed, b + sy), v011 = field_value(listed, b + sy + 1u);
    float v100 = field_value(listed, b + sz), v101 = field_value(listed, b + sz + 1u);
    float v110 = field_value(listed, b + sz + sy), v111 = field_value(listed, b + sz + sy + 1u);
    // v[z][y][x]: interpolate along x, then y, then z.
    float x00 = e.x * v000 + f.x * v001, x10 = e.x * v010 + f.x * v011;
    float x01 = e.x * v100 + f.x * v101, x11 = e.x * v110 + f.x * v111;
    float y0 = e.y * x00 + f.y * x10, y1 = e.y * x01 + f.y * x11;
    vec3 grad = vec3(e.y * e.z * (v001 - v000) + f.y * e.z * (v011 - v010) + e.y * f.z * (v101 - v100)
                         + f.y * f.z * (v111 - v110),
                     e.z * (x10 - x00) + f.z * (x11 - x01),
                     y1 - y0);
    float len = length(grad);
    nl = len > 1e-12 ? grad / len : vec3(0.0, 1.0, 0.0);
    return e.z * y0 + f.z * y1 + length(g - gc) * cell;
}

// The mesh collider's signed distance at the world point p (m, negative
// inside) and its outward unit normal n (world).
float mesh_distance(vec3 p, out vec3 n)
{
    vec3 l = vec3(dot(params.sdf_frame[0].xyz, p) + params.sdf_frame[0].w,
                  dot(params.sdf_frame[1].xyz, p) + params.sdf_frame[1].w,
                  dot(params.sdf_frame[2].xyz, p) + params.sdf_frame[2].w);
    vec3 nl;
    float phi = field_distance(l, params.sdf_dims.xyz, params.sdf_origin.xyz, params.sdf_origin.w, false, 0u, nl);
    n = nl.x * params.sdf_frame[0].xyz + nl.y * params.sdf_frame[1].xyz + nl.z * params.sdf_frame[2].xyz;
    return phi;
}

// The first vec4 of shape k's record as it stands at the end of this
// substep (shapes.comp).
uint shape_at(uint k)
{
    return params.shapes.y + SINEW_SHAPE_VEC4S * k;
}

// Signed distance of the world point p from shape k of the list (m,
// negative inside) and its outward unit normal n there (world).
float shape_distance(uint k, vec3 p, out vec3 n)
{
    uint s = shape_at(k);
    vec4 c = shape_data[s], half_kind = shape_data[s + 2u];
    vec3 ax = shape_data[s + 5u].xyz, ay = shape_data[s + 6u].xyz, az = shape_data[s + 7u].xyz;
    vec3 d = p - c.xyz;
    vec3 l = vec3(dot(ax, d), dot(ay, d), dot(az, d));
    uint kind = uint(half_kind.w);
    vec3 nl;
    float phi;
    if (kind == SINEW_GPU_SHAPE_BOX) {
        vec3 q = abs(l) - half_kind.xyz;
        vec3 sg = vec3(l.x < 0.0 ? -1.0 : 1.0, l.y < 0.0 ? -1.0 : 1.0, l.z < 0.0 ? -1.0 : 1.0);
        float outside = length(max(q, vec3(0.0)));
        if (outside > 0.0) {
            nl = sg * max(q, vec3(0.0)) / outside;
            phi = outside;
        } else { // out through the face of least penetration
            int axis = q.x > q.y ? (q.x > q.z ? 0 : 2) : (q.y > q.z ? 1 : 2);
            nl = vec3(0.0);
            nl[axis] = sg[axis];
            phi = q[axis];
        }
    } else if (kind == SINEW_GPU_SHAPE_MESH) {
        uint m = params.shapes.z + 2u * uint(shape_data[s + 3u].w);
        vec4 o = shape_data[m];
        uvec4 dims = floatBitsToUint(shape_data[m + 1u]);
        phi = field_distance(l, dims.xyz, o.xyz, o.w, true, dims.w, nl);
    } else { // sphere; capsule: from the nearest point of its segment along local y
        vec3 r = l;
        if (kind == SINEW_GPU_SHAPE_CAPSULE)
            r.y -= clamp(l.y, -half_kind.y, half_kind.y);
        float len = length(r);
        nl = len > 1e-12 ? r / len : vec3(0.0, 1.0, 0.0);
        phi = len - c.w;
    }
    n = nl.x * ax + nl.y * ay + nl.z * az;
    return phi;
}

// Velocity of shape k's surface at the world point p: v + w x (p - c).
vec3 shape_point_velocity(uint k, vec3 p)
{
    uint s = shape_at(k);
    return shape_data[s + 3u].xyz + cross(shape_data[s + 4u].xyz, p - shape_data[s].xyz);
}

// Within rad of the point c: out along the line from c, then friction.
vec3 push_out(vec3 p, vec3 x0, vec3 c, float rad)
{
    vec3 d = p - c;
    float dist = length(d);
    if (dist >= rad)
        return p;
    vec3 n = dist > 1e-12 ? d / dist : vec3(0.0, 1.0, 0.0);
    return apply_friction(c + n * rad, x0, n, rad - dist);
}

// p: the particle's position now, x0: at the start of the substep.
vec3 resolve_contacts(vec3 p, vec3 x0)
{
    float off = params.contact_offset;

    // Ground: out along its normal (y-up exactly as a height).
    vec3 gn = params.ground_normal.xyz;
    float floor_h = params.ground + off, height = dot(gn, p);
    if (height < floor_h) {
        float depth = floor_h - height;
        if (gn == vec3(0.0, 1.0, 0.0))
            p.y = floor_h;
        else
            p += gn * depth;
        p = apply_friction(p, x0, gn, depth);
    }

    if (params.sphere.w >= 0.0)
        p = push_out(p, x0, params.sphere.xyz, params.sphere.w + off);

    // Capsule: out from the nearest point of its segment.
    if (params.capsule_a.w >= 0.0)
        p = push_out(p, x0, capsule_closest(p), params.capsule_a.w + off);

    // Mesh: out along the field's normal, by one linearised step.
    if (params.sdf_origin.w > 0.0) {
        vec3 n;
        float phi = mesh_distance(p, n);
        if (phi < off) {
            float depth = off - phi;
            p += n * depth;
            p = apply_friction(p, x0 + params.sdf_motion.xyz, n, depth);
        }
    }

    // Box: out through the face of least penetration.
    if (params.box_center.w > 0.0) {
        vec3 l = p - params.box_center.xyz;
        vec3 pen = params.box_half.xyz + off - abs(l);
        if (all(greaterThan(pen, vec3(0.0)))) {
            int axis = pen.x < pen.y ? (pen.x < pen.z ? 0 : 2) : (pen.y < pen.z ? 1 : 2);
            vec3 n = vec3(0.0);
            n[axis] = l[axis] >= 0.0 ? 1.0 : -1.0;
            float depth = pen[axis];
            p += n * depth;
            p = apply_friction(p, x0 + params.box_motion.xyz, n, depth);
        }
    }

    // The collider list: out along each shape's normal, friction against
    // the motion of its surface at the contact.
    for (uint k = 0u; k < params.shapes.x; k++) {
        vec3 n;
        float phi = shape_distance(k, p, n);
        if (phi < off) {
            float depth = off - phi;
            p += n * depth;
            p = apply_friction(p, x0 + shape_point_velocity(k, p) * params.gravity.w, n, depth);
        }
    }
    return p;
}
