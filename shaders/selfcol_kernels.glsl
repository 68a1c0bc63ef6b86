// Self-collision (docs/self-collision.md): the broad phase each step and
// the contacts each iteration, one mode a dispatch (range.first2, the modes
// of shared/selfcol.h); threads [0, range.count). The functions of every
// mode; self_build.comp, self_query.comp and self_project.comp are the
// kernels, each with the modes it runs: a kernel's private arrays and
// shared memory cost every invocation on some devices, used or not. Deterministic: integer
// atomics only count, and every list is kept sorted, so the order in which
// items reach a bucket never shows. The CPU reference is
// tests/ref/selfcol_ref.c.

shared uint wg_a[SINEW_WORKGROUP_SIZE];
shared uint wg_b[SINEW_WORKGROUP_SIZE];
shared vec4 wg_v[SINEW_WORKGROUP_SIZE];

uint V() { return self_hdr(SINEW_SELF_V); }
uint T() { return self_hdr(SINEW_SELF_T); }
uint E() { return self_hdr(SINEW_SELF_E); }
uint I() { return V() + T() + E(); } // the body's own items
uint IA() { return I() + self_hdr(SINEW_SELF_GV) + self_hdr(SINEW_SELF_GT) + self_hdr(SINEW_SELF_GE); } // and others'
bool own_pairs() { return self_hdr(SINEW_SELF_OWN) != 0u; }
// The body of particle q (the chain's own or another chain's), 0 without a
// world's table.
uint body_of(uint q)
{
    uint o = self_hdr(SINEW_SELF_BODY);
    return o == 0u ? 0u : selfi[o + q];
}
// Whether particles p's and q's bodies collide (SINEW_SELF_FILTER): one body
// when it asks for its own pairs, two when each one's category meets the
// other's mask; without a table, always.
bool bodies_collide(uint p, uint q)
{
    uint o = self_hdr(SINEW_SELF_BODY);
    if (o == 0u)
        return true;
    uint a = selfi[o + p], b = selfi[o + q], f = self_hdr(SINEW_SELF_FILTER);
    if (a == b)
        return selfi[f + 3u * a + 2u] != 0u;
    return (selfi[f + 3u * a] & selfi[f + 3u * b + 1u]) != 0u && (selfi[f + 3u * b] & selfi[f + 3u * a + 1u]) != 0u;
}

// 0 vertex, 1 triangle, 2 edge.
uint kind_of(uint it)
{
    if (it < I())
        return it < V() ? 0u : it < V() + T() ? 1u : 2u;
    uint j = it - I(), gv = self_hdr(SINEW_SELF_GV);
    return j < gv ? 0u : j < gv + self_hdr(SINEW_SELF_GT) ? 1u : 2u;
}

// The particles of an item (count 1, 3 or 2; unused ones repeat the first);
// another body's items' particles are numbered from N.
uint item_particles(uint it, out uvec3 p)
{
    uint v = V(), t = T(), verts = SINEW_SELF_VERTS, tris = SINEW_SELF_TRIS, edges = SINEW_SELF_EDGES;
    if (it >= I()) {
        it -= I();
        v = self_hdr(SINEW_SELF_GV), t = self_hdr(SINEW_SELF_GT);
        verts = SINEW_SELF_GVERTS, tris = SINEW_SELF_GTRIS, edges = SINEW_SELF_GEDGES;
    }
    if (it < v) {
        uint a = selfi[self_hdr(verts) + it];
        p = uvec3(a);
        return 1u;
    }
    if (it < v + t) {
        uint b = self_hdr(tris) + 3u * (it - v);
        p = uvec3(selfi[b], selfi[b + 1u], selfi[b + 2u]);
        return 3u;
    }
    uint b = self_hdr(edges) + 2u * (it - v - t);
    p = uvec3(selfi[b], selfi[b + 1u], selfi[b]);
    return 2u;
}

// A particle's position (w its inverse mass) and its position when the
// substep began: the body's own, or another body's as copied when the step
// began, still and unyielding (inverse mass 0).
vec4 body_pos(uint q)
{
    uint n = self_hdr(SINEW_SELF_N);
    return q < n ? pos[q] : vec4(selfr[self_hdr(SINEW_SELF_REAL_GHOST) + q - n].xyz, 0.0);
}

vec3 body_prev(uint q)
{
    uint n = self_hdr(SINEW_SELF_N);
    return q < n ? prev[q].xyz : selfr[self_hdr(SINEW_SELF_REAL_GHOST) + q - n].xyz;
}

float cell_size() { return uintBitsToFloat(selfi[SINEW_SELF_CELL]); }

ivec3 cell_of(vec3 c)
{
    vec3 g = clamp(floor(c / cell_size()), vec3(-1073741824.0), vec3(1073741823.0));
    return ivec3(g);
}

// A cell and kind's hash: its bucket is the low bits, the whole marks the
// bucket's entries of that cell (others share the bucket by collision).
uint cell_hash(ivec3 c, uint kind)
{
    return uint(c.x) * 73856093u ^ uint(c.y) * 19349663u ^ uint(c.z) * 83492791u ^ (kind + 1u) * 2654435761u;
}

uint bucket_of(uint hash) { return hash & (self_hdr(SINEW_SELF_H) - 1u); }

// The cells a box overlaps, lo .. hi inclusive, and how many: 0 past
// SINEW_SELF_MAX_CELLS (such an item is counted as dropped).
uint cell_range(vec3 lo, vec3 hi, out ivec3 a, out ivec3 b)
{
    a = cell_of(lo);
    b = cell_of(hi);
    ivec3 span = b - a + 1;
    if (any(greaterThan(span, ivec3(SINEW_SELF_MAX_CELLS))))
        return 0u;
    uint cells = uint(span.x * span.y * span.z);
    return cells <= SINEW_SELF_MAX_CELLS ? cells : 0u;
}

// ---------------------------------------------------------------- geometry
// The same operations as selfcol_ref.c, in float.

// Squared distance from p to the triangle (a, b, c): the closest point by
// its Voronoi region.
float point_triangle_dist2(vec3 p, vec3 a, vec3 b, vec3 c)
{
    vec3 ab = b - a, ac = c - a, ap = p - a;
    float d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0)
        return dot(ap, ap);
    vec3 bp = p - b;
    float d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3)
        return dot(bp, bp);
    float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        vec3 q = a + ab * (d1 / (d1 - d3)) - p;
        return dot(q, q);
    }
    vec3 cp = p - c;
    float d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6)
        return dot(cp, cp);
    float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        vec3 q = a + ac * (d2 / (d2 - d6)) - p;
        return dot(q, q);
    }
    float va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        vec3 q = b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))) - p;
        return dot(q, q);
    }
    float den = 1.0 / (va + vb + vc);
    vec3 q = a + ab * (vb * den) + ac * (vc * den) - p;
    return dot(q, q);
}

// Squared distance between the segments p1-q1 and p2-q2.
float segment_dist2(vec3 p1, vec3 q1, vec3 p2, vec3 q2)
{
    vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
    float a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    float s = 0.0, t = 0.0;
    if (a <= 1e-20 && e <= 1e-20) {
        return dot(r, r);
    }
    if (a <= 1e-20) {
        t = clamp(f / e, 0.0, 1.0);
    } else {
        float c = dot(d1, r);
        if (e <= 1e-20) {
            s = clamp(-c / a, 0.0, 1.0);
        } else {
            float b = dot(d1, d2), den = a * e - b * b;
            s = den > 0.0 ? clamp((b * f - c * e) / den, 0.0, 1.0) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clamp(-c / a, 0.0, 1.0);
            } else if (t > 1.0) {
                t = 1.0;
                s = clamp((b - c) / a, 0.0, 1.0);
            }
        }
    }
    vec3 q = p1 + d1 * s - (p2 + d2 * t);
    return dot(q, q);
}

// ---------------------------------------------------------------- broad phase

// How far particle q moves in the substep as predicted (PREV to POS, h v +
// h^2 g), nothing for a pinned one.
vec3 sweep(uint q)
{
    vec4 x = body_pos(q);
    return x.w == 0.0 ? vec3(0.0) : x.xyz - body_prev(q);
}

// v summed over the workgroup in a fixed tree order (reduce.glsl's, for
// vec4s): the same bits every run. Every invocation calls it; all get the sum.
vec4 workgroup_sum4(vec4 v)
{
    uint lane = gl_LocalInvocationID.x;
    wg_v[lane] = v;
    barrier();
    for (uint s = SINEW_WORKGROUP_SIZE / 2u; s > 0u; s >>= 1u) {
        if (lane < s)
            wg_v[lane] += wg_v[lane + s];
        barrier();
    }
    return wg_v[0];
}

// Each workgroup's sum of its free particles' sweeps (a fixed order: the
// same bits every run); the table cleared.
void sweep_partial(uint k)
{
    if (k < self_hdr(SINEW_SELF_H))
        selfi[self_hdr(SINEW_SELF_TABLE) + k] = 0u;
    uint lane = gl_LocalInvocationID.x;
    vec4 mine = vec4(0.0);
    if (k < self_hdr(SINEW_SELF_N) && pos[k].w != 0.0)
        mine = vec4(sweep(k), 1.0);
    vec4 total = workgroup_sum4(mine);
    uint group = k / SINEW_WORKGROUP_SIZE;
    if (lane == 0u && group < (self_hdr(SINEW_SELF_N) + SINEW_WORKGROUP_SIZE - 1u) / SINEW_WORKGROUP_SIZE)
        selfr[self_hdr(SINEW_SELF_REAL_PARTIAL) + group] = total;
}

// One workgroup: the partial sums in a fixed order, their mean into the
// header.
void common_sweep(uint lane)
{
    uint groups = (self_hdr(SINEW_SELF_N) + SINEW_WORKGROUP_SIZE - 1u) / SINEW_WORKGROUP_SIZE;
    uint partial = self_hdr(SINEW_SELF_REAL_PARTIAL);
    vec4 sum = vec4(0.0);
    for (uint g = lane; g < groups; g += SINEW_WORKGROUP_SIZE)
        sum += selfr[partial + g];
    vec4 total = workgroup_sum4(sum);
    if (lane == 0u) {
        vec3 c = total.w > 0.0 ? total.xyz / total.w : vec3(0.0);
        selfi[SINEW_SELF_COMMON] = floatBitsToUint(c.x);
        selfi[SINEW_SELF_COMMON + 1u] = floatBitsToUint(c.y);
        selfi[SINEW_SELF_COMMON + 2u] = floatBitsToUint(c.z);
    }
}

vec3 common_sweep_value()
{
    return vec3(uintBitsToFloat(selfi[SINEW_SELF_COMMON]), uintBitsToFloat(selfi[SINEW_SELF_COMMON + 1u]),
                uintBitsToFloat(selfi[SINEW_SELF_COMMON + 2u]));
}

// Each item's box over its particles now and moved by their sweeps less the
// common one, grown by the thickness: two items moving as swept can come
// within the reach in the substep only if their boxes overlap
// (docs/self-collision.md). Its spread and sweep for the distance test.
void bounds(uint k)
{
    if (k >= IA())
        return;
    uvec3 p;
    uint m = item_particles(k, p);
    vec3 d0 = sweep(p.x), d1 = sweep(p.y), d2 = sweep(p.z);
    vec3 mean = m == 1u ? d0 : m == 2u ? 0.5 * (d0 + d1) : (d0 + d1 + d2) / 3.0;
    float spread = max(length(d0 - mean), max(length(d1 - mean), length(d2 - mean)));
    vec3 c = common_sweep_value();
    vec3 x0 = body_prev(p.x), x1 = body_prev(p.y), x2 = body_prev(p.z);
    vec3 y0 = x0 + (d0 - c), y1 = x1 + (d1 - c), y2 = x2 + (d2 - c);
    float grow = 0.5 * SINEW_SELF_REACH * self_thickness();
    vec3 lo = min(min(min(x0, y0), min(x1, y1)), min(x2, y2)) - vec3(grow);
    vec3 hi = max(max(max(x0, y0), max(x1, y1)), max(x2, y2)) + vec3(grow);
    selfr[SINEW_SELF_ITEM_VEC4S * k] = vec4(lo, spread);
    selfr[SINEW_SELF_ITEM_VEC4S * k + 1u] = vec4(hi, 0.0);
    selfr[SINEW_SELF_ITEM_VEC4S * k + 2u] = vec4(mean, 0.0);
    // a ball around its particles at PREV, for a cheap first distance test
    vec3 centre = m == 1u ? x0 : m == 2u ? 0.5 * (x0 + x1) : (x0 + x1 + x2) / 3.0;
    float radius = max(length(x0 - centre), max(length(x1 - centre), length(x2 - centre)));
    selfr[SINEW_SELF_ITEM_VEC4S * k + 3u] = vec4(centre, radius);
}

// Whether item k goes into the hash: the others' items, and the body's own
// when its own pairs collide.
bool hashed(uint k) { return k < IA() && (k >= I() || own_pairs()); }

// Each item into every cell its box overlaps: the buckets' counts. An
// item past SINEW_SELF_MAX_CELLS goes in none (its query counts it dropped).
void count_items(uint k)
{
    if (!hashed(k))
        return;
    ivec3 a, b;
    uint cells = cell_range(selfr[SINEW_SELF_ITEM_VEC4S * k].xyz, selfr[SINEW_SELF_ITEM_VEC4S * k + 1u].xyz, a, b);
    uint table = self_hdr(SINEW_SELF_TABLE), kind = kind_of(k);
    for (int z = a.z; z <= b.z && cells != 0u; z++)
        for (int y = a.y; y <= b.y; y++)
            for (int x = a.x; x <= b.x; x++)
                atomicAdd(selfi[table + bucket_of(cell_hash(ivec3(x, y, z), kind))], 1u);
}

// One workgroup: each thread a contiguous run of buckets; counts become ends.
void scan(uint lane)
{
    uint H = self_hdr(SINEW_SELF_H), table = self_hdr(SINEW_SELF_TABLE);
    uint run = (H + SINEW_WORKGROUP_SIZE - 1u) / SINEW_WORKGROUP_SIZE;
    uint first = min(lane * run, H), last = min(first + run, H);
    uint sum = 0u;
    for (uint j = first; j < last; j++)
        sum += selfi[table + j];
    wg_a[lane] = sum;
    barrier();
    if (lane == 0u) {
        uint acc = 0u;
        for (uint l = 0u; l < SINEW_WORKGROUP_SIZE; l++) {
            uint s = wg_a[l];
            wg_a[l] = acc;
            acc += s;
        }
    }
    barrier();
    uint acc = wg_a[lane];
    for (uint j = first; j < last; j++) {
        acc += selfi[table + j];
        selfi[table + j] = acc;
    }
    if (lane == SINEW_WORKGROUP_SIZE - 1u)
        selfi[SINEW_SELF_TOTAL] = acc; // entries in all
}

// The items into their buckets' entries (any order within a bucket), each
// entry with its cell's hash; entries past the room (SELF_ENTRIES) are not
// written and counted as dropped.
uint scatter(uint k)
{
    if (!hashed(k))
        return 0u;
    ivec3 a, b;
    uint cells = cell_range(selfr[SINEW_SELF_ITEM_VEC4S * k].xyz, selfr[SINEW_SELF_ITEM_VEC4S * k + 1u].xyz, a, b);
    uint table = self_hdr(SINEW_SELF_TABLE), kind = kind_of(k), room = self_hdr(SINEW_SELF_ENTRIES);
    uint items = self_hdr(SINEW_SELF_ITEMS), keys = self_hdr(SINEW_SELF_KEYS), lost = 0u;
    for (int z = a.z; z <= b.z && cells != 0u; z++)
        for (int y = a.y; y <= b.y; y++)
            for (int x = a.x; x <= b.x; x++) {
                uint h = cell_hash(ivec3(x, y, z), kind);
                uint slot = atomicAdd(selfi[table + bucket_of(h)], 0xFFFFFFFFu) - 1u;
                if (slot < room) {
                    selfi[items + slot] = k;
                    selfi[keys + slot] = h;
                } else {
                    lost++;
                }
            }
    return lost;
}

// The kind of item an item looks for: vertices triangles, triangles
// vertices, edges edges.
uint wanted(uint kind) { return kind == 0u ? 1u : kind == 1u ? 0u : 2u; }

// Where the lines of edges (x0, x1) and (x2, x3) come nearest: the
// parameters (s, t) along each; false when near parallel (no such place).
bool edge_params(vec3 x0, vec3 x1, vec3 x2, vec3 x3, out float s, out float t)
{
    vec3 ea = x1 - x0, eb = x3 - x2, r = x0 - x2;
    float a = dot(ea, ea), b = dot(ea, eb), c = dot(eb, eb), dd = dot(ea, r), e = dot(eb, r);
    float den = a * c - b * b;
    s = t = 0.0;
    if (!(den > 1e-6 * a * c))
        return false;
    s = (b * e - c * dd) / den;
    t = (a * e - b * dd) / den;
    return true;
}

// The barycentrics (alpha, beta, gamma) of x's projection on the triangle
// (x1, x2, x3), and x's height above its plane along the unit normal n;
// false for a triangle of no area.
bool triangle_coords(vec3 x, vec3 x1, vec3 x2, vec3 x3, out vec3 bary, out vec3 n, out float h)
{
    vec3 e0 = x2 - x1, e1 = x3 - x1, r = x - x1;
    vec3 nn = cross(e0, e1);
    float area2 = dot(nn, nn);
    bary = vec3(0.0);
    n = vec3(0.0);
    h = 0.0;
    if (!(area2 > 0.0))
        return false;
    n = nn * inversesqrt(area2);
    h = dot(r, n);
    float d00 = dot(e0, e0), d01 = dot(e0, e1), d11 = dot(e1, e1), d20 = dot(r, e0), d21 = dot(r, e1);
    float den = d00 * d11 - d01 * d01;
    float beta = (d11 * d20 - d01 * d21) / den, gamma = (d00 * d21 - d01 * d20) / den;
    bary = vec3(1.0 - beta - gamma, beta, gamma);
    return true;
}

// The reach of items a and b (a's spread alo.w and sweep da): how near at
// the substep's start they must be to be candidates.
float pair_reach(vec4 alo, vec3 da, uint b)
{
    return SINEW_SELF_REACH * self_thickness() + alo.w + selfr[SINEW_SELF_ITEM_VEC4S * b].w +
           length(da - selfr[SINEW_SELF_ITEM_VEC4S * b + 2u].xyz);
}

// The cheap tests of item a (looking; its box alo-ahi, its spread in alo.w,
// its sweep da, its ball, its particles pa) against item b (found in cell
// `cell`): boxes overlap, `cell` holds the overlap's lowest corner (so that
// a pair is met in one of the cells both are in), no particle shared
// (neighbours in the mesh never collide), and their balls within the reach.
// Only what passes them meets the exact test (candidate), a few at a time:
// on SIMD devices every lane of a loop runs its body, taken or not.
bool near(vec4 alo, vec3 ahi, vec3 da, vec4 aball, uvec3 pa, uint b, ivec3 cell)
{
    vec4 blo = selfr[SINEW_SELF_ITEM_VEC4S * b];
    vec3 bhi = selfr[SINEW_SELF_ITEM_VEC4S * b + 1u].xyz;
    if (!(all(lessThanEqual(alo.xyz, bhi)) && all(lessThanEqual(blo.xyz, ahi))))
        return false;
    if (cell_of(max(alo.xyz, blo.xyz)) != cell)
        return false;
    uvec3 pb;
    item_particles(b, pb);
    if (any(equal(pa, pb.xxx)) || any(equal(pa, pb.yyy)) || any(equal(pa, pb.zzz)))
        return false; // (unused slots repeat the first particle)
    if (!bodies_collide(pa.x, pb.x))
        return false; // a world's filter
    // the two balls' distance is at most the items': a pair that far apart
    // is no candidate (a relative margin keeps the test from ruling out, by
    // rounding, a pair the exact test would keep)
    vec4 bball = selfr[SINEW_SELF_ITEM_VEC4S * b + 3u];
    return length(aball.xyz - bball.xyz) - aball.w - bball.w <= pair_reach(alo, da, b) * 1.001;
}

// Whether items a and b, near(), are a candidate pair: nearer at the
// substep's start than the reach plus how far their sweeps may bring them
// together, and (two of the body's own) not that near at rest. side: on
// which side the pair is (SINEW_SELF_SIDE_*), vertex-triangle pairs by the
// vertex against the triangle's plane, edge pairs by a0 - b0 against
// ea x eb; a pair that is not face to face now (the vertex's projection
// outside the triangle, the edges' nearest points outside either or the
// edges near parallel) has no side worth keeping: FREE, the side it is on
// when projected.
bool candidate(vec4 alo, vec3 da, uvec3 pa, uint ma, uint b, out uint side, out float dist2)
{
    side = 0u;
    dist2 = 0.0;
    uvec3 pb;
    item_particles(b, pb);
    float th = self_thickness(), reach = pair_reach(alo, da, b);
    uint rest = self_hdr(SINEW_SELF_REAL_REST);
    bool own = b < I() && body_of(pa.x) == body_of(pb.x); // two items of one body: its rest shape counts
    if (ma == 2u) {
        vec3 a0 = body_prev(pa.x), a1 = body_prev(pa.y), b0 = body_prev(pb.x), b1 = body_prev(pb.y);
        dist2 = segment_dist2(a0, a1, b0, b1);
        if (dist2 >= reach * reach)
            return false;
        if (own && segment_dist2(selfr[rest + pa.x].xyz, selfr[rest + pa.y].xyz, selfr[rest + pb.x].xyz,
                          selfr[rest + pb.y].xyz) < th * th)
            return false; // this near at rest: the rest shape, not a collision
        float s, t;
        bool facing = edge_params(a0, a1, b0, b1, s, t) && s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0;
        side = !facing ? SINEW_SELF_SIDE_FREE
             : dot(a0 - b0, cross(a1 - a0, b1 - b0)) < 0.0 ? SINEW_SELF_SIDE_BELOW : SINEW_SELF_SIDE_ABOVE;
        return true;
    }
    // a vertex and a triangle, either way round
    uint v = ma == 1u ? pa.x : pb.x;
    uvec3 t = ma == 1u ? pb : pa;
    vec3 x = body_prev(v), t0 = body_prev(t.x), t1 = body_prev(t.y), t2 = body_prev(t.z);
    dist2 = point_triangle_dist2(x, t0, t1, t2);
    if (dist2 >= reach * reach)
        return false;
    if (own && point_triangle_dist2(selfr[rest + v].xyz, selfr[rest + t.x].xyz, selfr[rest + t.y].xyz,
                             selfr[rest + t.z].xyz) < th * th)
        return false;
    vec3 bary, n;
    float h;
    bool facing = triangle_coords(x, t0, t1, t2, bary, n, h) && all(greaterThanEqual(bary, vec3(-SINEW_SELF_BARY_SLACK)));
    side = !facing ? SINEW_SELF_SIDE_FREE : h < 0.0 ? SINEW_SELF_SIDE_BELOW : SINEW_SELF_SIDE_ABOVE;
    return true;
}

// Items the query gathers by the cheap tests before it runs the exact one.
#define SINEW_SELF_BATCH 16u

void query(uint k, out uint kept, out uint dropped)
{
    kept = 0u;
    dropped = 0u;
    if (k >= I())
        return;
    uint K = self_hdr(SINEW_SELF_K), H = self_hdr(SINEW_SELF_H);
    uint table = self_hdr(SINEW_SELF_TABLE), items = self_hdr(SINEW_SELF_ITEMS);
    uint want = wanted(kind_of(k));
    uvec3 pk;
    uint mk = item_particles(k, pk);
    vec4 alo = selfr[SINEW_SELF_ITEM_VEC4S * k];
    vec3 ahi = selfr[SINEW_SELF_ITEM_VEC4S * k + 1u].xyz, da = selfr[SINEW_SELF_ITEM_VEC4S * k + 2u].xyz;
    vec4 aball = selfr[SINEW_SELF_ITEM_VEC4S * k + 3u];
    uint list[SINEW_SELF_MAX_CAPACITY], keys[SINEW_SELF_MAX_CAPACITY], batch[SINEW_SELF_BATCH];
    uint n = 0u, found = 0u, looked = 0u;
    bool truncated = false;
    ivec3 ca, cb;
    uint cells = cell_range(alo.xyz, ahi, ca, cb);
    uint room = self_hdr(SINEW_SELF_ENTRIES), hashes = self_hdr(SINEW_SELF_KEYS);
    ivec3 span = cb - ca + 1;
    // the cells' entries in order, q the cell, s the entry, end its bucket's end
    uint q = 0u, s = 0u, end = 0u, h = 0u;
    ivec3 c = ca;
    bool open = false;
    while (true) {
        // gather up to a batch of items passing the cheap tests
        uint got = 0u;
        while (got < SINEW_SELF_BATCH && q < cells && !truncated) {
            if (!open) {
                c = ca + ivec3(int(q) % span.x, (int(q) / span.x) % span.y, int(q) / (span.x * span.y));
                h = cell_hash(c, want);
                uint b = bucket_of(h);
                s = selfi[table + b];
                end = min(b + 1u < H ? selfi[table + b + 1u] : selfi[SINEW_SELF_TOTAL], room);
                open = true;
            }
            if (s >= end) {
                q++;
                open = false;
                continue;
            }
            uint e = s++;
            if (selfi[hashes + e] != h)
                continue; // another cell's entry in this bucket
            if (++looked > SINEW_SELF_SCAN_LIMIT) {
                truncated = true;
                break;
            }
            uint other = selfi[items + e];
            if (other != k && near(alo, ahi, da, aball, pk, other, c))
                batch[got++] = other;
        }
        // the exact test on them, each kept nearest first, by (distance,
        // item): the bits of floats >= 0 order as their values
        for (uint j = 0u; j < got; j++) {
            uint other = batch[j], side;
            float dist2;
            if (!candidate(alo, da, pk, mk, other, side, dist2))
                continue;
            found++;
            uint key = floatBitsToUint(dist2);
            if (n == K && (key > keys[K - 1u] || (key == keys[K - 1u] && other > (list[K - 1u] & SINEW_SELF_ITEM_MASK))))
                continue;
            uint at = n < K ? n : K - 1u;
            while (at > 0u &&
                   (keys[at - 1u] > key || (keys[at - 1u] == key && (list[at - 1u] & SINEW_SELF_ITEM_MASK) > other))) {
                list[at] = list[at - 1u];
                keys[at] = keys[at - 1u];
                at--;
            }
            list[at] = other | (side << SINEW_SELF_SIDE_SHIFT);
            keys[at] = key;
            n = min(n + 1u, K);
        }
        if (got < SINEW_SELF_BATCH)
            break; // every cell scanned (or the scan cut short)
    }
    uint base = self_hdr(SINEW_SELF_LIST) + k * K;
    for (uint j = 0u; j < n; j++)
        selfi[base + j] = list[j];
    selfi[self_hdr(SINEW_SELF_COUNT) + k] = n;
    kept = n;
    dropped = found - n + (truncated || cells == 0u ? 1u : 0u);
}

// ---------------------------------------------------------------- contacts

// One contact projected from the current positions: the corrections d0-d3 of its
// four particles (vertex, then the triangle's corners; or a0, a1, b0, b1),
// the constraint side * (signed distance) >= thickness pushed along the
// normal, then Coulomb friction against the pair's relative motion since the
// substep began. false: not active (apart, outside the triangle, edges near
// parallel or meeting outside both).
bool contact(uvec4 p, bool edges, uint side, out vec3 d0, out vec3 d1, out vec3 d2, out vec3 d3)
{
    d0 = d1 = d2 = d3 = vec3(0.0);
    vec4 y0 = body_pos(p.x), y1 = body_pos(p.y), y2 = body_pos(p.z), y3 = body_pos(p.w);
    vec3 x0 = y0.xyz, x1 = y1.xyz, x2 = y2.xyz, x3 = y3.xyz;
    vec4 w = vec4(y0.w, y1.w, y2.w, y3.w);
    vec4 g; // the gradient's weights along n
    vec3 n;
    float d;
    bool free_side = side == SINEW_SELF_SIDE_FREE;
    if (edges) {
        float s, t;
        if (!edge_params(x0, x1, x2, x3, s, t) || s < 0.0 || s > 1.0 || t < 0.0 || t > 1.0)
            return false; // near parallel, or nearest outside: the vertex-triangle contacts hold them
        // ea x eb turns through 0 when the edges pass parallel: its
        // orientation is kept from the substep's start, which the side
        // refers to
        vec3 ns = cross(body_prev(p.y) - body_prev(p.x), body_prev(p.w) - body_prev(p.z));
        n = normalize(cross(x1 - x0, x3 - x2));
        if (dot(n, ns) < 0.0)
            n = -n;
        d = dot(x0 - x2, n);
        g = vec4(1.0 - s, s, -(1.0 - t), -t);
    } else {
        vec3 bary;
        if (!triangle_coords(x0, x1, x2, x3, bary, n, d) || !all(greaterThanEqual(bary, vec3(-SINEW_SELF_BARY_SLACK))))
            return false;
        g = vec4(1.0, -bary);
    }
    if (free_side) // not face to face when the substep began: the side it is on now
        side = d < 0.0 ? SINEW_SELF_SIDE_BELOW : SINEW_SELF_SIDE_ABOVE;
    if (side == SINEW_SELF_SIDE_BELOW) {
        n = -n;
        d = -d;
    }
    float C = d - self_thickness();
    if (!(C < 0.0))
        return false;
    float W = dot(w * g, g);
    if (!(W > 0.0))
        return false;
    float dl = -C / W;
    // friction: the relative motion of the two contact points since the
    // substep began, across n, removed up to mu times the push
    vec3 rel = g.x * (x0 - body_prev(p.x)) + g.y * (x1 - body_prev(p.y)) + g.z * (x2 - body_prev(p.z))
             + g.w * (x3 - body_prev(p.w));
    vec3 tan = rel - n * dot(rel, n);
    float lt = length(tan), limit = uintBitsToFloat(selfi[SINEW_SELF_FRICTION]) * -C;
    vec3 slip = lt <= limit ? tan : tan * (limit / lt);
    vec3 step = n * dl - slip / W;
    vec4 wg = w * g;
    d0 = wg.x * step;
    d1 = wg.y * step;
    d2 = wg.z * step;
    d3 = wg.w * step;
    return true;
}

// The contacts an item owns: a vertex's correction from its triangles, a
// triangle's corners' from its vertices, an edge's ends' from its edges.
uint project(uint k)
{
    if (k >= I())
        return 0u;
    uint K = self_hdr(SINEW_SELF_K), base = self_hdr(SINEW_SELF_LIST) + k * K;
    uint n = selfi[self_hdr(SINEW_SELF_COUNT) + k], kind = kind_of(k);
    uint delta = self_hdr(SINEW_SELF_REAL_DELTA);
    uvec3 pk;
    item_particles(k, pk);
    vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0);
    uint counted = 0u;
    for (uint j = 0u; j < n; j++) {
        uint entry = selfi[base + j], other = entry & SINEW_SELF_ITEM_MASK, side = entry >> SINEW_SELF_SIDE_SHIFT;
        uvec3 po;
        item_particles(other, po);
        vec3 d0, d1, d2, d3;
        if (kind == 0u) {
            if (contact(uvec4(pk.x, po), false, side, d0, d1, d2, d3)) {
                acc0 += vec4(d0, 1.0);
                counted++;
            }
        } else if (kind == 1u) {
            if (contact(uvec4(po.x, pk), false, side, d0, d1, d2, d3)) {
                acc0 += vec4(d1, 1.0);
                acc1 += vec4(d2, 1.0);
                acc2 += vec4(d3, 1.0);
            }
        } else if (contact(uvec4(pk.xy, po.xy), true, side, d0, d1, d2, d3)) {
            acc0 += vec4(d0, 1.0);
            acc1 += vec4(d1, 1.0);
            counted += other > k ? 1u : 0u;
        }
    }
    uint Vn = V(), Tn = T();
    if (kind == 0u) {
        selfr[delta + k] = acc0;
    } else if (kind == 1u) {
        uint t = delta + Vn + 3u * (k - Vn);
        selfr[t] = acc0;
        selfr[t + 1u] = acc1;
        selfr[t + 2u] = acc2;
    } else {
        uint e = delta + Vn + 3u * Tn + 2u * (k - Vn - Tn);
        selfr[e] = acc0;
        selfr[e + 1u] = acc1;
    }
    return counted;
}

// Adds a and b over the workgroup into two of the body's statistics.
void add_stats(uint a, uint b, uint which)
{
    uint lane = gl_LocalInvocationID.x;
    wg_a[lane] = a;
    wg_b[lane] = b;
    barrier();
    for (uint s = SINEW_WORKGROUP_SIZE / 2u; s > 0u; s >>= 1u) {
        if (lane < s) {
            wg_a[lane] += wg_a[lane + s];
            wg_b[lane] += wg_b[lane + s];
        }
        barrier();
    }
    if (lane == 0u) {
        if (which == 0u) {
            if (wg_a[0] != 0u)
                atomicAdd(stats.self_candidates, wg_a[0]);
            if (wg_b[0] != 0u)
                atomicAdd(stats.self_dropped, wg_b[0]);
        } else if (wg_a[0] != 0u) {
            atomicAdd(stats.self_contacts, wg_a[0]);
        }
    }
}

