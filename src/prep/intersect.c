/* Intersecting pairs of triangles that share no vertex.
 *
 * Narrow phase: two triangles meet (as closed sets) when an edge of one meets
 * the other. For triangles in different planes the meeting set is a segment
 * of the planes' common line, and each end of it lies on an edge of one
 * triangle inside the other; for coplanar triangles either their edges cross
 * or one holds the other. Everything is decided by the signs of two
 * determinants of the input points, never by a constructed point:
 * orient3d (which side of a plane a point lies on; for a segment ab and an
 * edge cd, which way the line ab passes the edge, Pluecker's side product)
 * and orient2d on the points projected to a coordinate plane. An edge that
 * reaches the other triangle's plane meets the triangle where its line
 * passes the three edges with no two opposite signs; coplanar triangles are
 * tested in 2-D, on the coordinate plane nearest to parallel to theirs.
 *
 * Exact signs, as in Shewchuk, "Adaptive Precision Floating-Point Arithmetic
 * and Fast Robust Geometric Predicates" (1997): a determinant in double is
 * trusted when it exceeds his bound on its rounding error; otherwise it is
 * summed exactly as an expansion (a sum of doubles that do not overlap),
 * whose sign is its largest component's. The inputs are floats, so each term
 * of a determinant written out in the coordinates themselves (a product of
 * three floats, or two) is one double plus the rounding error an fma gives
 * back: no term is rounded, and the sign is the true one for the float
 * coordinates. Compiled without contraction of a * b + c into fma
 * (CMakeLists.txt), which the filter's error bound does not allow for.
 *
 * Broad phase: a uniform grid of cells about the median triangle's size
 * (doubled while the cells the triangles' boxes cover exceed a budget, so
 * a few huge triangles cannot blow it up). Each triangle is listed in every
 * cell its box touches, the list sorted by cell, and a pair whose boxes meet
 * is tested in one cell only, the one holding the corner where their boxes'
 * lower bounds meet, so no pair is tested twice and no set of pairs is kept.
 */
#include "intersect.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- exact signs */

/* a + b = s + e exactly (Knuth's two-sum, any order of magnitudes). */
static void two_sum(double a, double b, double *s, double *e)
{
    double x = a + b, bv = x - a, av = x - bv;
    *s = x;
    *e = (a - av) + (b - bv);
}

/* Adds b to the expansion e[0..n) (nonoverlapping, increasing magnitude),
 * dropping zero components (Shewchuk's Grow-Expansion); the new length. */
static int grow(double *e, int n, double b)
{
    int m = 0;
    double q = b;
    for (int i = 0; i < n; i++) {
        double s, h;
        two_sum(q, e[i], &s, &h);
        if (h != 0.0)
            e[m++] = h;
        q = s;
    }
    if (q != 0.0)
        e[m++] = q;
    return m;
}

static int expansion_sign(const double *e, int n)
{
    return n == 0 ? 0 : e[n - 1] > 0.0 ? 1 : -1;
}

/* Adds s * x * y * z, exactly: x * y of two floats is exact in double, and
 * fma gives the rounding error of its product with z. */
static int grow_product3(double *e, int n, double s, double x, double y, double z)
{
    double xy = x * y, hi = xy * z, lo = fma(xy, z, -hi);
    n = grow(e, n, s * hi);
    return grow(e, n, s * lo);
}

/* det [a - d; b - d; c - d] = det(a,b,c) - det(d,b,c) - det(a,d,c) - det(a,b,d):
 * the rows that hold d twice vanish. 24 products of three coordinates. */
static int orient3d_exact(const float *a, const float *b, const float *c, const float *d)
{
    static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}};
    const float *rows[4][3] = {{a, b, c}, {d, b, c}, {a, d, c}, {a, b, d}};
    double e[64];
    int n = 0;
    for (int r = 0; r < 4; r++)
        for (int p = 0; p < 6; p++) {
            double s = (r == 0 ? 1.0 : -1.0) * (p < 3 ? 1.0 : -1.0);
            n = grow_product3(e, n, s, rows[r][0][perm[p][0]], rows[r][1][perm[p][1]], rows[r][2][perm[p][2]]);
        }
    return expansion_sign(e, n);
}

/* Sign of det [a - d; b - d; c - d]: positive when d lies below the plane of
 * a, b, c seen with a, b, c counter-clockwise. */
static int orient3d(const float *a, const float *b, const float *c, const float *d)
{
    double adx = (double)a[0] - d[0], ady = (double)a[1] - d[1], adz = (double)a[2] - d[2];
    double bdx = (double)b[0] - d[0], bdy = (double)b[1] - d[1], bdz = (double)b[2] - d[2];
    double cdx = (double)c[0] - d[0], cdy = (double)c[1] - d[1], cdz = (double)c[2] - d[2];
    double bdxcdy = bdx * cdy, cdxbdy = cdx * bdy, cdxady = cdx * ady;
    double adxcdy = adx * cdy, adxbdy = adx * bdy, bdxady = bdx * ady;
    double det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady);
    double permanent = (fabs(bdxcdy) + fabs(cdxbdy)) * fabs(adz) + (fabs(cdxady) + fabs(adxcdy)) * fabs(bdz) +
                       (fabs(adxbdy) + fabs(bdxady)) * fabs(cdz);
    /* Shewchuk's bound for this evaluation is (7 + 56 eps) eps, eps = 2^-53. */
    double bound = 1e-15 * permanent;
    if (det > bound)
        return 1;
    if (det < -bound)
        return -1;
    /* Every product has a factor that is exactly zero (a difference of two
     * floats rounds to zero only when they are equal, and no product of
     * float-sized differences underflows): so is the determinant. Coplanar
     * grids end here, not in the expansions. */
    if (permanent == 0.0)
        return 0;
    return orient3d_exact(a, b, c, d);
}

/* Sign of det [a - c; b - c] of the points' coordinates u and v: positive when
 * a, b, c turn counter-clockwise in the (u, v) plane. */
static int orient2d(const float *a, const float *b, const float *c, int u, int v)
{
    double l = ((double)a[u] - c[u]) * ((double)b[v] - c[v]);
    double r = ((double)a[v] - c[v]) * ((double)b[u] - c[u]);
    double det = l - r, bound = 1e-15 * (fabs(l) + fabs(r)); /* Shewchuk: (3 + 16 eps) eps */
    if (det > bound)
        return 1;
    if (det < -bound)
        return -1;
    if (l == 0.0 && r == 0.0)
        return 0;
    /* a_u b_v - a_u c_v - c_u b_v - a_v b_u + a_v c_u + c_v b_u: products of
     * two floats, each exact in double. */
    double e[8];
    int n = 0;
    n = grow(e, n, (double)a[u] * b[v]);
    n = grow(e, n, -(double)a[u] * c[v]);
    n = grow(e, n, -(double)c[u] * b[v]);
    n = grow(e, n, -(double)a[v] * b[u]);
    n = grow(e, n, (double)a[v] * c[u]);
    n = grow(e, n, (double)c[v] * b[u]);
    return expansion_sign(e, n);
}

/* ---------------------------------------------------------------- narrow phase */

static int same_strict_sign(int a, int b)
{
    return (a > 0 && b > 0) || (a < 0 && b < 0);
}

/* The coordinate to drop so that the triangle projects onto the other two
 * without collapsing (its normal's component along it is not zero), the
 * largest component first; -1 where the normal is zero: collinear corners. */
static int projection_axis(const float *p0, const float *p1, const float *p2)
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)p1[k] - p0[k];
        e2[k] = (double)p2[k] - p0[k];
    }
    double n[3] = {fabs(e1[1] * e2[2] - e1[2] * e2[1]), fabs(e1[2] * e2[0] - e1[0] * e2[2]),
                   fabs(e1[0] * e2[1] - e1[1] * e2[0])};
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (n[order[j]] > n[order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    for (int i = 0; i < 3; i++) {
        int k = order[i];
        if (orient2d(p0, p1, p2, (k + 1) % 3, (k + 2) % 3) != 0)
            return k;
    }
    return -1;
}

/* Whether segments ab and cd of the (u, v) plane meet (closed; ab and cd of
 * nonzero length). */
static int segments_meet_2d(const float *a, const float *b, const float *c, const float *d, int u, int v)
{
    int o1 = orient2d(a, b, c, u, v), o2 = orient2d(a, b, d, u, v);
    if (same_strict_sign(o1, o2))
        return 0;
    int o3 = orient2d(c, d, a, u, v), o4 = orient2d(c, d, b, u, v);
    if (same_strict_sign(o3, o4))
        return 0;
    if (o1 || o2 || o3 || o4)
        return 1;
    /* On one line: they meet where their extents overlap along both axes. */
    for (int k = 0; k < 2; k++) {
        int w = k ? v : u;
        float lo = fmaxf(fminf(a[w], b[w]), fminf(c[w], d[w]));
        float hi = fminf(fmaxf(a[w], b[w]), fmaxf(c[w], d[w]));
        if (lo > hi)
            return 0;
    }
    return 1;
}

/* Whether p lies in the closed triangle t of the (u, v) plane, which turns
 * the way `turn` (nonzero) says. */
static int point_in_triangle_2d(const float *p, const float *const t[3], int turn, int u, int v)
{
    for (int k = 0; k < 3; k++) {
        int s = orient2d(t[k], t[(k + 1) % 3], p, u, v);
        if (s != 0 && s != turn)
            return 0;
    }
    return 1;
}

/* Edge ab of a triangle not in t's plane against t, given which side of
 * t's plane a and b lie on. */
static int edge_meets_triangle(const float *a, const float *b, int sa, int sb, const float *const t[3])
{
    /* An edge lying in t's plane needs no test of its own: where it meets t,
     * so does one of its ends (then the other edge there, which leaves the
     * plane at that end, finds it) or an edge of t (which finds it). */
    if (same_strict_sign(sa, sb) || (sa == 0 && sb == 0))
        return 0;
    /* ab meets t's plane in one point of the segment; it lies in t when the
     * line ab passes no two of t's edges on opposite sides (zero: through an
     * edge or a corner). All three are zero only for a line in the plane. */
    int s0 = orient3d(a, b, t[0], t[1]), s1 = orient3d(a, b, t[1], t[2]), s2 = orient3d(a, b, t[2], t[0]);
    return !((s0 > 0 || s1 > 0 || s2 > 0) && (s0 < 0 || s1 < 0 || s2 < 0));
}

/* Triangles p and q of nonzero area, p's axis from projection_axis. */
static int triangles_meet(const float *const p[3], int axis_p, const float *const q[3])
{
    int dq[3], dp[3];
    for (int k = 0; k < 3; k++)
        dq[k] = orient3d(p[0], p[1], p[2], q[k]);
    if ((dq[0] > 0 && dq[1] > 0 && dq[2] > 0) || (dq[0] < 0 && dq[1] < 0 && dq[2] < 0))
        return 0;
    for (int k = 0; k < 3; k++)
        dp[k] = orient3d(q[0], q[1], q[2], p[k]);
    if ((dp[0] > 0 && dp[1] > 0 && dp[2] > 0) || (dp[0] < 0 && dp[1] < 0 && dp[2] < 0))
        return 0;
    if (dq[0] == 0 && dq[1] == 0 && dq[2] == 0) {
        /* One plane: edges crossing, or one triangle holding the other (then
         * it holds any of its corners). The projection along p's axis keeps
         * q's area too: it maps the common plane one to one. */
        int u = (axis_p + 1) % 3, v = (axis_p + 2) % 3;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                if (segments_meet_2d(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3], u, v))
                    return 1;
        return point_in_triangle_2d(p[0], q, orient2d(q[0], q[1], q[2], u, v), u, v) ||
               point_in_triangle_2d(q[0], p, orient2d(p[0], p[1], p[2], u, v), u, v);
    }
    for (int k = 0; k < 3; k++)
        if (edge_meets_triangle(p[k], p[(k + 1) % 3], dp[k], dp[(k + 1) % 3], q))
            return 1;
    for (int k = 0; k < 3; k++)
        if (edge_meets_triangle(q[k], q[(k + 1) % 3], dq[k], dq[(k + 1) % 3], p))
            return 1;
    return 0;
}

int sinew_triangles_intersect(const float *a0, const float *a1, const float *a2, const float *b0, const float *b1,
                              const float *b2)
{
    const float *const p[3] = {a0, a1, a2}, *const q[3] = {b0, b1, b2};
    int axis_p = projection_axis(a0, a1, a2), axis_q = projection_axis(b0, b1, b2);
    return axis_p >= 0 && axis_q >= 0 && triangles_meet(p, axis_p, q);
}

/* ---------------------------------------------------------------- broad phase */

#define CELL_BITS 21
#define CELL_MAX (1u << CELL_BITS) /* cells along an axis */

typedef struct triangle_box {
    float lo[3], hi[3];
    int axis; /* projection_axis; -1: zero area, left out */
} triangle_box;

typedef struct cell_entry {
    uint64_t cell; /* x | y << 21 | z << 42 */
    uint32_t tri;
} cell_entry;

typedef struct cell_grid {
    double origin[3], inv_size;
    uint32_t dims[3];
} cell_grid;

/* Monotone in x, so that a box's cells and the owner cell of a pair agree. */
static uint32_t cell_along(const cell_grid *g, int k, float x)
{
    double c = floor(((double)x - g->origin[k]) * g->inv_size);
    if (!(c > 0.0))
        return 0;
    return c >= (double)(g->dims[k] - 1) ? g->dims[k] - 1 : (uint32_t)c;
}

static uint64_t cells_covered(const cell_grid *g, const triangle_box *b)
{
    uint64_t count = 1;
    for (int k = 0; k < 3; k++)
        count *= cell_along(g, k, b->hi[k]) - cell_along(g, k, b->lo[k]) + 1u;
    return count;
}

static void set_cell_size(cell_grid *g, const double extent[3], double size)
{
    g->inv_size = 1.0 / size;
    for (int k = 0; k < 3; k++) {
        double d = floor(extent[k] * g->inv_size) + 1.0;
        g->dims[k] = d >= (double)CELL_MAX ? CELL_MAX : (uint32_t)d;
    }
}

static int compare_floats(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

static int compare_entries(const void *x, const void *y)
{
    const cell_entry *a = x, *b = y;
    if (a->cell != b->cell)
        return a->cell < b->cell ? -1 : 1;
    return (a->tri > b->tri) - (a->tri < b->tri);
}

static int boxes_meet(const triangle_box *a, const triangle_box *b)
{
    for (int k = 0; k < 3; k++)
        if (a->lo[k] > b->hi[k] || b->lo[k] > a->hi[k])
            return 0;
    return 1;
}

static int share_vertex(const uint32_t *a, const uint32_t *b)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (a[i] == b[j])
                return 1;
    return 0;
}

static sinew_result check_input(const float *xyz, uint32_t vertex_count, const uint32_t *tris,
                                uint32_t triangle_count, const sinew_logger *lg)
{
    for (uint32_t i = 0; i < vertex_count; i++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(xyz[3 * (size_t)i + k]))
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                                  "intersections: vertex %u: coordinate %c is %g, not a finite number", i, "xyz"[k],
                                  (double)xyz[3 * (size_t)i + k]);
    for (uint32_t t = 0; t < triangle_count; t++)
        for (int k = 0; k < 3; k++)
            if (tris[3 * (size_t)t + k] >= vertex_count)
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                                  "intersections: triangle %u: vertex index %u out of range (%u vertices)", t,
                                  tris[3 * (size_t)t + k], vertex_count);
    return SINEW_RESULT_OK;
}

sinew_result sinew_count_intersections(const float *xyz, uint32_t vertex_count, const uint32_t *tris,
                                       uint32_t triangle_count, const sinew_logger *lg,
                                       sinew_intersect_report *out)
{
    SINEW_ASSERT(out);
    SINEW_ASSERT(xyz || vertex_count == 0);
    SINEW_ASSERT(tris || triangle_count == 0);
    memset(out, 0, sizeof *out);
    sinew_result r = check_input(xyz, vertex_count, tris, triangle_count, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    if (triangle_count < 2)
        return SINEW_RESULT_OK;

    triangle_box *boxes = malloc(sizeof *boxes * triangle_count);
    float *sizes = malloc(sizeof *sizes * triangle_count);
    cell_entry *entries = NULL;
    if (!boxes || !sizes) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "intersections: %u triangles: out of memory",
                       triangle_count);
        goto done;
    }
    /* Boxes, and the bounds of those of nonzero area. */
    uint32_t kept = 0, first_degenerate = 0;
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t t = 0; t < triangle_count; t++) {
        const uint32_t *v = tris + 3 * (size_t)t;
        const float *p[3] = {xyz + 3 * (size_t)v[0], xyz + 3 * (size_t)v[1], xyz + 3 * (size_t)v[2]};
        triangle_box *b = &boxes[t];
        b->axis = projection_axis(p[0], p[1], p[2]);
        if (b->axis < 0) {
            if (!out->degenerate++)
                first_degenerate = t;
            continue;
        }
        float size = 0.0f;
        for (int k = 0; k < 3; k++) {
            b->lo[k] = fminf(fminf(p[0][k], p[1][k]), p[2][k]);
            b->hi[k] = fmaxf(fmaxf(p[0][k], p[1][k]), p[2][k]);
            lo[k] = b->lo[k] < lo[k] ? b->lo[k] : lo[k];
            hi[k] = b->hi[k] > hi[k] ? b->hi[k] : hi[k];
            size = fmaxf(size, b->hi[k] - b->lo[k]);
        }
        sizes[kept++] = size;
    }
    if (out->degenerate)
        sinew_logf(lg, SINEW_LOG_WARNING, "prep",
                   "intersections: %u of %u triangles have zero area (the first: triangle %u) and are left out",
                   out->degenerate, triangle_count, first_degenerate);
    if (kept < 2)
        goto done;

    /* Cells of the median triangle's size, larger while the boxes would be
     * listed in more than the budget's cells. */
    qsort(sizes, kept, sizeof *sizes, compare_floats);
    double extent[3], cell_size = sizes[kept / 2];
    cell_grid g;
    for (int k = 0; k < 3; k++) {
        g.origin[k] = lo[k];
        extent[k] = hi[k] - lo[k];
        /* at most CELL_MAX cells along an axis, and never a size of zero */
        double fit = extent[k] / (CELL_MAX - 1);
        cell_size = cell_size > fit ? cell_size : fit;
    }
    if (!(cell_size > 0.0))
        cell_size = 1.0;
    uint64_t budget = 16ull * kept + 4096, listed;
    for (;;) {
        set_cell_size(&g, extent, cell_size);
        listed = 0;
        for (uint32_t t = 0; t < triangle_count && listed <= budget; t++)
            if (boxes[t].axis >= 0)
                listed += cells_covered(&g, &boxes[t]);
        if (listed <= budget)
            break;
        cell_size *= 2.0;
    }
    if (listed > SIZE_MAX / sizeof *entries || !(entries = malloc(sizeof *entries * (size_t)listed))) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep",
                       "intersections: %u triangles in %llu cells: out of memory", triangle_count,
                       (unsigned long long)listed);
        goto done;
    }
    size_t n = 0;
    for (uint32_t t = 0; t < triangle_count; t++) {
        const triangle_box *b = &boxes[t];
        if (b->axis < 0)
            continue;
        uint32_t c0[3], c1[3];
        for (int k = 0; k < 3; k++) {
            c0[k] = cell_along(&g, k, b->lo[k]);
            c1[k] = cell_along(&g, k, b->hi[k]);
        }
        for (uint64_t z = c0[2]; z <= c1[2]; z++)
            for (uint64_t y = c0[1]; y <= c1[1]; y++)
                for (uint64_t x = c0[0]; x <= c1[0]; x++)
                    entries[n++] = (cell_entry){x | y << CELL_BITS | z << (2 * CELL_BITS), t};
    }
    qsort(entries, n, sizeof *entries, compare_entries);

    for (size_t run = 0; run < n;) {
        size_t end = run + 1;
        while (end < n && entries[end].cell == entries[run].cell)
            end++;
        uint64_t cell = entries[run].cell;
        uint32_t here[3] = {(uint32_t)(cell & (CELL_MAX - 1)), (uint32_t)(cell >> CELL_BITS & (CELL_MAX - 1)),
                            (uint32_t)(cell >> (2 * CELL_BITS))};
        for (size_t i = run; i < end; i++) {
            uint32_t a = entries[i].tri;
            const triangle_box *ba = &boxes[a];
            for (size_t j = i + 1; j < end; j++) {
                uint32_t b = entries[j].tri; /* > a: the run is sorted by triangle */
                const triangle_box *bb = &boxes[b];
                if (!boxes_meet(ba, bb))
                    continue;
                /* Tested in the cell of the boxes' common lower corner only. */
                int owner = 1;
                for (int k = 0; k < 3 && owner; k++)
                    owner = cell_along(&g, k, fmaxf(ba->lo[k], bb->lo[k])) == here[k];
                const uint32_t *va = tris + 3 * (size_t)a, *vb = tris + 3 * (size_t)b;
                if (!owner || share_vertex(va, vb))
                    continue;
                out->tested++;
                const float *p[3] = {xyz + 3 * (size_t)va[0], xyz + 3 * (size_t)va[1], xyz + 3 * (size_t)va[2]};
                const float *q[3] = {xyz + 3 * (size_t)vb[0], xyz + 3 * (size_t)vb[1], xyz + 3 * (size_t)vb[2]};
                if (!triangles_meet(p, ba->axis, q))
                    continue;
                if (!out->pairs++ || a < out->first_a || (a == out->first_a && b < out->first_b)) {
                    out->first_a = a;
                    out->first_b = b;
                }
            }
        }
        run = end;
    }
    sinew_logf(lg, SINEW_LOG_DEBUG, "prep",
               "intersections: %llu pairs of %u triangles intersect; %llu tested, %u x %u x %u cells of %g m, "
               "%llu listings",
               (unsigned long long)out->pairs, triangle_count, (unsigned long long)out->tested, g.dims[0], g.dims[1],
               g.dims[2], cell_size, (unsigned long long)n);
done:
    free(boxes);
    free(sizes);
    free(entries);
    if (r != SINEW_RESULT_OK)
        memset(out, 0, sizeof *out);
    return r;
}
