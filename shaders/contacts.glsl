// Contacts with the ground plane, a sphere, a capsule and an axis-aligned box, projected
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
