// Contacts with the ground plane, a sphere, a capsule, the mesh collider's
// distance field and an axis-aligned box, projected
// as hard unilateral constraints on one particle, with position-level Coulomb
// friction against the motion since the start of the substep (relative to the
// box's own motion on the box: a moving box carries what rests on it).
// Included after common.glsl.

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

// The mesh collider's signed distance at the world point p (m, negative
// inside) and its outward unit normal n (world): the field sampled
// trilinearly in the collider's frame, the distance from the grid added
// beyond it; the normal is the gradient of the interpolant. As
// sinew_sdf_sample in src/collider.c.
float mesh_distance(vec3 p, out vec3 n)
{
    vec3 l = vec3(dot(params.sdf_frame[0].xyz, p) + params.sdf_frame[0].w,
                  dot(params.sdf_frame[1].xyz, p) + params.sdf_frame[1].w,
                  dot(params.sdf_frame[2].xyz, p) + params.sdf_frame[2].w);
    uvec3 dims = params.sdf_dims.xyz;
    vec3 g = (l - params.sdf_origin.xyz) / params.sdf_origin.w;
    vec3 gc = clamp(g, vec3(0.0), vec3(dims - 1u));
    uvec3 c = min(uvec3(gc), dims - 2u);
    vec3 f = gc - vec3(c), e = 1.0 - f;
    uint sy = dims.x, sz = dims.x * dims.y, b = c.x + sy * c.y + sz * c.z;
    float v000 = sdf[b], v001 = sdf[b + 1u], v010 = sdf[b + sy], v011 = sdf[b + sy + 1u];
    float v100 = sdf[b + sz], v101 = sdf[b + sz + 1u], v110 = sdf[b + sz + sy], v111 = sdf[b + sz + sy + 1u];
    // v[z][y][x]: interpolate along x, then y, then z.
    float x00 = e.x * v000 + f.x * v001, x10 = e.x * v010 + f.x * v011;
    float x01 = e.x * v100 + f.x * v101, x11 = e.x * v110 + f.x * v111;
    float y0 = e.y * x00 + f.y * x10, y1 = e.y * x01 + f.y * x11;
    vec3 grad = vec3(e.y * e.z * (v001 - v000) + f.y * e.z * (v011 - v010) + e.y * f.z * (v101 - v100)
                         + f.y * f.z * (v111 - v110),
                     e.z * (x10 - x00) + f.z * (x11 - x01),
                     y1 - y0);
    float len = length(grad);
    vec3 nl = len > 1e-12 ? grad / len : vec3(0.0, 1.0, 0.0);
    n = nl.x * params.sdf_frame[0].xyz + nl.y * params.sdf_frame[1].xyz + nl.z * params.sdf_frame[2].xyz;
    return e.z * y0 + f.z * y1 + length(g - gc) * params.sdf_origin.w;
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

    float floor_y = params.ground + off;
    if (p.y < floor_y) {
        float depth = floor_y - p.y;
        p.y = floor_y;
        p = apply_friction(p, x0, vec3(0.0, 1.0, 0.0), depth);
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
    return p;
}
