/* The intersection counter (prep/intersect.c): pairs whose answer is known
 * (crossing, apart, adjacent, touching at a point and missing by one float,
 * coplanar), grids flat and folded through themselves with a count derived
 * by hand, the narrow phase against a separating-axis reference with a
 * margin, the grid against an O(n^2) count on random soups and on CGAL's
 * demo meshes, and the time a 257 x 257 grid takes. */
#include <criterion/criterion.h>

#include "core/clock.h"
#include "prep/intersect.h"
#include "prep/mesh.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct capture {
    char text[4096];
} capture;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s\n", message);
}

static sinew_logger capture_logger(capture *c)
{
    memset(c, 0, sizeof *c);
    return (sinew_logger){capture_fn, c, SINEW_LOG_DEBUG};
}

static void ignore(void *user, sinew_log_level level, const char *id, const char *message) {}

static const sinew_logger quiet = {ignore, NULL, SINEW_LOG_ERROR};

static sinew_intersect_report count(const float *xyz, uint32_t vertex_count, const uint32_t *tris,
                                    uint32_t triangle_count)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_intersect_report r;
    cr_assert_eq(sinew_count_intersections(xyz, vertex_count, tris, triangle_count, &lg, &r), SINEW_RESULT_OK, "%s",
                 c.text);
    return r;
}

/* xorshift64: the same numbers everywhere. */
static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double unit(uint64_t *s)
{
    return (double)(next(s) >> 11) * 0x1p-53;
}

/* Two triangles, vertices 0-2 and 3-5. */
static uint64_t pair_count(const float v[6][3])
{
    static const uint32_t tris[6] = {0, 1, 2, 3, 4, 5};
    return count(&v[0][0], 6, tris, 2).pairs;
}

static int meet(const float v[6][3])
{
    int ab = sinew_triangles_intersect(v[0], v[1], v[2], v[3], v[4], v[5]);
    int ba = sinew_triangles_intersect(v[3], v[4], v[5], v[0], v[1], v[2]);
    if (ab != ba) /* not cr_assert_eq: --full-stats would record each of the many */
        cr_assert_fail("the narrow phase is not symmetric: %d one way, %d the other", ab, ba);
    return ab;
}

Test(intersect, crossing_and_apart)
{
    /* B stands across A's middle. */
    float v[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0.5f, 0.5f, -1}, {0.5f, 0.5f, 1}, {1.5f, -1, 0.5f}};
    cr_assert_eq(pair_count(v), 1);
    sinew_intersect_report r = count(&v[0][0], 6, (const uint32_t[]){0, 1, 2, 3, 4, 5}, 2);
    cr_assert_eq(r.first_a, 0);
    cr_assert_eq(r.first_b, 1);
    cr_assert_eq(r.tested, 1);
    /* The same, lifted clear of A. */
    for (int i = 3; i < 6; i++)
        v[i][2] += 2.5f;
    cr_assert_eq(pair_count(v), 0);
    cr_assert_not(meet(v));
}

/* Triangles that share a vertex are adjacent by definition, however they
 * cross elsewhere. */
Test(intersect, sharing_a_vertex_is_excluded)
{
    const float xyz[5][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, 0.5f, 1}, {1, 0.5f, -1}};
    const uint32_t tris[6] = {0, 1, 2, 0, 3, 4}; /* B pierces A along (0,0,0)-(1,0.5,0) */
    sinew_intersect_report r = count(&xyz[0][0], 5, tris, 2);
    cr_assert_eq(r.pairs, 0);
    cr_assert_eq(r.tested, 0);
    cr_assert(sinew_triangles_intersect(xyz[0], xyz[1], xyz[2], xyz[0], xyz[3], xyz[4]));
    /* The same position under another index is not the same vertex. */
    const float apart[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0, 0, 0}, {1, 0.5f, 1}, {1, 0.5f, -1}};
    cr_assert_eq(pair_count(apart), 1);
}

/* A corner of B on A's face, then one float above it; an edge of B through
 * an edge of A, then A moved off by 2^-40 m. */
Test(intersect, touching_at_a_point)
{
    float v[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0.5f, 0.5f, 0}, {1.5f, 0.5f, 1}, {0.5f, 1.5f, 1}};
    cr_assert_eq(pair_count(v), 1);
    cr_assert(meet(v));
    v[3][2] = nextafterf(0.0f, 1.0f);
    cr_assert_eq(pair_count(v), 0);
    cr_assert_not(meet(v));
    v[3][2] = -nextafterf(0.0f, 1.0f);
    cr_assert_eq(pair_count(v), 1, "B's corner just under A: they cross");

    /* B in the plane x = 1 meets z = 0 along y in [-2, 0]: A's edge y = 0 at (1, 0, 0). */
    float w[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, -1, 1}, {1, 1, -1}, {1, -3, -1}};
    cr_assert_eq(pair_count(w), 1);
    cr_assert(meet(w));
    w[0][1] = w[1][1] = 0x1p-40f;
    cr_assert_eq(pair_count(w), 0);
    cr_assert_not(meet(w));
}

Test(intersect, coplanar)
{
    /* Overlapping, edges crossing. */
    float v[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, 1, 0}, {-1, 1, 0}, {1, -1, 0}};
    cr_assert_eq(pair_count(v), 1);
    cr_assert(meet(v));
    /* One inside the other, no edges crossing. */
    const float inside[6][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}, {0.5f, 0.5f, 0}, {1, 0.5f, 0}, {0.5f, 1, 0}};
    cr_assert_eq(pair_count(inside), 1);
    cr_assert(meet(inside));
    /* A corner of B on A's hypotenuse x + y = 2. */
    const float corner[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, 1, 0}, {3, 1, 0}, {1, 3, 0}};
    cr_assert_eq(pair_count(corner), 1);
    /* Then a float beyond it. */
    const float beyond[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, nextafterf(1.0f, 2.0f), 0}, {3, 1.5f, 0},
                                {1, 3, 0}};
    cr_assert_eq(pair_count(beyond), 0);
    cr_assert_not(meet(beyond));
    /* Edges along one line, overlapping; then apart along it. */
    float line[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, 0, 0}, {3, 0, 0}, {2, -1, 0}};
    cr_assert_eq(pair_count(line), 1);
    line[3][0] = nextafterf(2.0f, 3.0f);
    cr_assert_eq(pair_count(line), 0);
    /* Not coplanar, but an edge of B lies in A's plane, inside A: B meets A
     * along that edge only (A's edges cross B's plane at x = 0 and 3, off B). */
    float edge[6][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}, {1, 1, 0}, {2, 1, 0}, {1.5f, 1.25f, 3}};
    cr_assert_eq(pair_count(edge), 1);
    cr_assert(meet(edge));
    edge[3][1] = edge[4][1] = -1; /* the edge below A, along y = -1 */
    cr_assert_eq(pair_count(edge), 0);
    /* In a tilted plane (exactly: z = x + y). */
    const float tilted[6][3] = {{0, 0, 0}, {2, 0, 2}, {0, 2, 2}, {1, 1, 2}, {-1, 1, 0}, {1, -1, 0}};
    cr_assert_eq(pair_count(tilted), 1);
}

/* Where double arithmetic alone is wrong: exact zeros that it rounds to
 * something else. A corner of B on A's edge along y = 3x at x = t, a float
 * near 2^-30: 3 - 3t and 3 (1 - t) round differently, so the 2-D
 * determinant comes out not quite zero; then the corner a float above the
 * line. */
Test(intersect, exact_on_a_line)
{
    uint64_t r = 5;
    for (int i = 0; i < 500; i++) {
        float t = ldexpf((float)(1 + 2 * (next(&r) >> 43)), -52); /* odd, 21 bits, times 2^-52 */
        float v[6][3] = {{0, 0, 0}, {1, 0, 0}, {1, 3, 0}, {t, 3 * t, 0}, {-1, 0, 0}, {0, 1, 0}};
        if (3 * t != 3.0 * t)
            cr_assert_fail("3t is not exact in float");
        if (!meet(v))
            cr_assert_fail("t = %a: B's corner on A's edge is not found", (double)t);
        v[3][1] = nextafterf(3 * t, 1.0f);
        if (meet(v))
            cr_assert_fail("t = %a: B's corner a float off A's edge is found", (double)t);
    }
}

/* Triangles in the plane z = x + y, whose points have 22 bits after the
 * point in x and y (so z = x + y is a float) but no float grid of their
 * own: orient3d in double gives every one of their products rounded, and
 * signs at random where the truth is 0. Coplanar pairs against a 2-D test
 * in x and y, exact in double for these coordinates; then a corner of B
 * on the plane inside A, the rest of B above it (touching), and that corner
 * a float below (crossing) and above (apart). */
static float plane_point(uint64_t *r)
{
    return 1.0f + ldexpf((float)(next(r) >> 42), -22);
}

static double orient_xy(const float *a, const float *b, const float *c)
{
    return ((double)a[0] - c[0]) * ((double)b[1] - c[1]) - ((double)a[1] - c[1]) * ((double)b[0] - c[0]);
}

static int reference_overlap_xy(const float p[3][3], const float q[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const float *a = p[i], *b = p[(i + 1) % 3], *c = q[j], *d = q[(j + 1) % 3];
            double o1 = orient_xy(a, b, c), o2 = orient_xy(a, b, d), o3 = orient_xy(c, d, a), o4 = orient_xy(c, d, b);
            if (o1 * o2 <= 0 && o3 * o4 <= 0 && (o1 != 0 || o2 != 0 || o3 != 0 || o4 != 0))
                return 1;
        }
    for (int s = 0; s < 2; s++) {
        const float(*t)[3] = s ? p : q, *x = s ? q[0] : p[0];
        double o = orient_xy(t[0], t[1], t[2]);
        int in = 1;
        for (int k = 0; k < 3; k++)
            in &= orient_xy(t[k], t[(k + 1) % 3], x) * o >= 0;
        if (in)
            return 1;
    }
    return 0;
}

Test(intersect, exact_on_a_plane)
{
    uint64_t r = 11;
    uint32_t meeting = 0;
    for (int i = 0; i < 20000; i++) {
        float v[6][3];
        for (int k = 0; k < 6; k++) {
            v[k][0] = plane_point(&r);
            v[k][1] = plane_point(&r);
            v[k][2] = v[k][0] + v[k][1];
            if ((double)v[k][2] != (double)v[k][0] + v[k][1])
                cr_assert_fail("z = x + y is not exact in float");
        }
        float p[3][3], q[3][3];
        memcpy(p, v, sizeof p);
        memcpy(q, v[3], sizeof q);
        if (orient_xy(p[0], p[1], p[2]) == 0 || orient_xy(q[0], q[1], q[2]) == 0)
            continue; /* zero area: the narrow phase leaves it out */
        int ref = reference_overlap_xy(p, q);
        if (meet(v) != ref)
            cr_assert_fail("pair %d in z = x + y: the narrow phase says %d, the 2-D test %d", i, !ref, ref);
        meeting += ref;

        /* B's first corner at A's centroid, rounded onto the plane's points. */
        v[3][0] = (v[0][0] + v[1][0] + v[2][0]) / 3;
        v[3][1] = (v[0][1] + v[1][1] + v[2][1]) / 3;
        v[3][0] = 1.0f + ldexpf(roundf(ldexpf(v[3][0] - 1.0f, 22)), -22);
        v[3][1] = 1.0f + ldexpf(roundf(ldexpf(v[3][1] - 1.0f, 22)), -22);
        v[3][2] = v[3][0] + v[3][1];
        int inside = 1;
        double o = orient_xy(p[0], p[1], p[2]);
        for (int k = 0; k < 3; k++)
            inside &= orient_xy(p[k], p[(k + 1) % 3], v[3]) * o > 0;
        if (!inside)
            continue;
        for (int k = 4; k < 6; k++)
            v[k][2] = v[k][0] + v[k][1] + 1.0f;
        if (!meet(v))
            cr_assert_fail("pair %d: B's corner on A is not found", i);
        float z = v[3][2];
        v[3][2] = nextafterf(z, 0.0f);
        if (!meet(v))
            cr_assert_fail("pair %d: B's corner a float under A does not cross it", i);
        v[3][2] = nextafterf(z, 8.0f);
        if (meet(v))
            cr_assert_fail("pair %d: B a float above A is found to meet it", i);
    }
    cr_assert_gt(meeting, 2000);
}

Test(intersect, degenerate_and_empty)
{
    /* A triangle of collinear corners has no plane: never counted, reported. */
    const float v[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, 1, -1}, {1, 1, 1}, {1, 1, 3}};
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_intersect_report r;
    cr_assert_eq(sinew_count_intersections(&v[0][0], 6, (const uint32_t[]){0, 1, 2, 3, 4, 5}, 2, &lg, &r),
                 SINEW_RESULT_OK);
    cr_assert_eq(r.pairs, 0);
    cr_assert_eq(r.degenerate, 1);
    cr_assert(strstr(c.text, "1 of 2 triangles have zero area (the first: triangle 1)"), "%s", c.text);
    cr_assert_not(meet(v));
    /* A repeated index is one too. */
    r = count(&v[0][0], 6, (const uint32_t[]){0, 1, 2, 3, 3, 4}, 2);
    cr_assert_eq(r.degenerate, 1);
    /* Nothing to count. */
    r = count(NULL, 0, NULL, 0);
    cr_assert_eq(r.pairs + r.tested + r.degenerate, 0);
    r = count(&v[0][0], 6, (const uint32_t[]){0, 1, 2}, 1);
    cr_assert_eq(r.pairs + r.tested, 0);
}

Test(intersect, bad_input_named)
{
    float v[6][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0.5f, 0.5f, -1}, {0.5f, 0.5f, 1}, {1.5f, -1, 0.5f}};
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_intersect_report r;
    cr_assert_eq(sinew_count_intersections(&v[0][0], 6, (const uint32_t[]){0, 1, 2, 3, 4, 6}, 2, &lg, &r),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "triangle 1: vertex index 6 out of range (6 vertices)"), "%s", c.text);
    v[4][1] = NAN;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_count_intersections(&v[0][0], 6, (const uint32_t[]){0, 1, 2, 3, 4, 5}, 2, &lg, &r),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "vertex 4: coordinate y is nan, not a finite number"), "%s", c.text);
    cr_assert_eq(r.pairs + r.tested, 0);
    v[4][1] = INFINITY;
    cr_assert_eq(sinew_count_intersections(&v[0][0], 6, (const uint32_t[]){0, 1, 2, 3, 4, 5}, 2, &quiet, &r),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------- grids */

typedef struct soup {
    float *xyz;
    uint32_t *tris;
    uint32_t vertex_count, triangle_count;
} soup;

static void soup_free(soup *s)
{
    free(s->xyz);
    free(s->tris);
}

/* sinew_mesh_grid's nx x ny grid, its quads split with diagonals in a
 * checkerboard, as sinew-prep --triangulate makes it; positions as given,
 * vertex (i, j) at pos[3 (j nx + i)], or the grid's own (1 m, xz) when NULL. */
static soup grid_soup(uint32_t nx, uint32_t ny, const double *pos)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(nx, ny, 1.0, 1.0, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_OK);
    if (pos)
        memcpy(m.positions, pos, sizeof(double) * 3 * nx * ny);
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    soup s = {.vertex_count = m.vertex_count};
    cr_assert_eq(sinew_mesh_triangle_arrays(&m, &s.xyz, &s.tris, &s.triangle_count), SINEW_RESULT_OK);
    sinew_mesh_free(&m);
    return s;
}

/* The grid folded through itself: columns 0..k flat (y = 0, x = i), up
 * a wall at x = k for p columns, then back down a slope (x falls 0.75 and
 * y 1.25 a column) through the flat part; z = j. Every coordinate is exact
 * in float. */
static double *folded_positions(uint32_t nx, uint32_t ny, uint32_t k, uint32_t p)
{
    double *pos = malloc(sizeof(double) * 3 * nx * ny);
    cr_assert(pos);
    for (uint32_t j = 0; j < ny; j++)
        for (uint32_t i = 0; i < nx; i++) {
            double *x = pos + 3 * ((size_t)j * nx + i), s = (double)i - k - p;
            x[0] = i <= k ? i : i <= k + p ? k : k - 0.75 * s;
            x[1] = i <= k ? 0 : i <= k + p ? (double)(i - k) : p - 1.25 * s;
            x[2] = j;
        }
    return pos;
}

/* The folded grid's count, by hand. The slope crosses the flat part's plane
 * along the line y = 0, x = x* (z free), inside one flat column and one slope
 * column, at fractions f and g of their widths, and crosses nothing else
 * (wall and flat part, wall and slope meet only along shared edges). Every
 * crossing pair meets on that line, where each triangle of the two columns
 * holds an interval: each row of quads is cut by its diagonal into two
 * intervals [j, j + t] and [j + t, j + 1], t = f or 1 - f for the flat
 * column, g or 1 - g for the slope, whichever way the checkerboard turns the
 * diagonal. With the t of the two never equal, a row gives 3 overlapping
 * pairs (its first two, its last two, and one of the mixed ones), and each of
 * the R - 1 row lines between two rows 2 pairs touching at a point: a flat
 * triangle with the row line as an edge and the slope triangle above or
 * below it with that line as an edge, both through (x*, 0, j). 5 R - 2 in
 * all, R the rows of quads.
 *
 * 19 x 6 (k = 8, p = 4): the slope reaches y = 0 at s = 3.2 (g = 0.2, so t
 * is 0.2 or 0.8), x* = 8 - 2.4 = 5.6 (f = 0.6: 0.6 or 0.4); R = 5: 23 pairs.
 * 257 x 257 (k = 128, p = 32): s = 25.6 (g = 0.6), x* = 108.8 (f = 0.8);
 * R = 256: 1278 pairs. */
Test(intersect, flat_and_folded_grids)
{
    soup flat = grid_soup(64, 64, NULL);
    sinew_intersect_report r = count(flat.xyz, flat.vertex_count, flat.tris, flat.triangle_count);
    cr_assert_eq(r.pairs, 0);
    cr_assert_gt(r.tested, 0, "diagonal neighbours' boxes touch at a corner: they are tested");
    /* Turned about (1, 2, 3) by 0.7 rad: no longer exactly flat in float. */
    double c = cos(0.7), s = sin(0.7), ax[3] = {1 / sqrt(14), 2 / sqrt(14), 3 / sqrt(14)};
    for (uint32_t i = 0; i < flat.vertex_count; i++) {
        double p[3] = {flat.xyz[3 * i], flat.xyz[3 * i + 1], flat.xyz[3 * i + 2]}, d = 0, x[3];
        for (int k = 0; k < 3; k++)
            d += ax[k] * p[k];
        double cross[3] = {ax[1] * p[2] - ax[2] * p[1], ax[2] * p[0] - ax[0] * p[2], ax[0] * p[1] - ax[1] * p[0]};
        for (int k = 0; k < 3; k++)
            x[k] = p[k] * c + cross[k] * s + ax[k] * d * (1 - c);
        for (int k = 0; k < 3; k++)
            flat.xyz[3 * i + k] = (float)x[k];
    }
    r = count(flat.xyz, flat.vertex_count, flat.tris, flat.triangle_count);
    cr_assert_eq(r.pairs, 0);
    soup_free(&flat);

    double *pos = folded_positions(19, 6, 8, 4);
    soup folded = grid_soup(19, 6, pos);
    r = count(folded.xyz, folded.vertex_count, folded.tris, folded.triangle_count);
    cr_assert_eq(r.pairs, 23);
    cr_assert_eq(r.degenerate, 0);
    soup_free(&folded);
    free(pos);
}

/* ---------------------------------------------------------------- O(n^2) */

static int boxes_apart(const float *const p[3], const float *const q[3])
{
    for (int k = 0; k < 3; k++) {
        float plo = fminf(fminf(p[0][k], p[1][k]), p[2][k]), phi = fmaxf(fmaxf(p[0][k], p[1][k]), p[2][k]);
        float qlo = fminf(fminf(q[0][k], q[1][k]), q[2][k]), qhi = fmaxf(fmaxf(q[0][k], q[1][k]), q[2][k]);
        if (plo > qhi || qlo > phi)
            return 1;
    }
    return 0;
}

/* Every pair, boxes that are apart skipped (they cannot meet). */
static sinew_intersect_report brute_force(const soup *s)
{
    sinew_intersect_report r = {0};
    for (uint32_t a = 0; a < s->triangle_count; a++) {
        const uint32_t *va = s->tris + 3 * (size_t)a;
        const float *p[3] = {s->xyz + 3 * va[0], s->xyz + 3 * va[1], s->xyz + 3 * va[2]};
        for (uint32_t b = a + 1; b < s->triangle_count; b++) {
            const uint32_t *vb = s->tris + 3 * (size_t)b;
            int shared = 0;
            for (int i = 0; i < 9; i++)
                shared |= va[i / 3] == vb[i % 3];
            const float *q[3] = {s->xyz + 3 * vb[0], s->xyz + 3 * vb[1], s->xyz + 3 * vb[2]};
            if (shared || boxes_apart(p, q) || !sinew_triangles_intersect(p[0], p[1], p[2], q[0], q[1], q[2]))
                continue;
            if (!r.pairs++) {
                r.first_a = a;
                r.first_b = b;
            }
        }
    }
    return r;
}

/* n triangles of about `size` m in the unit cube, each centred a step of
 * about `size` from the one before, one in 50 anywhere; a corner in five
 * taken from one of the 30 triangles before (so pairs share vertices, and
 * after a jump a triangle stretches across the cube), coordinates on a
 * lattice of `lattice` per m when that is not 0 (so that many pairs are
 * coplanar, touch, or have zero area). */
static soup random_soup(uint64_t seed, uint32_t n, double size, double lattice)
{
    soup s = {.xyz = malloc(sizeof(float) * 9 * n), .tris = malloc(sizeof(uint32_t) * 3 * n)};
    cr_assert(s.xyz && s.tris);
    uint64_t r = seed * 0x9e3779b97f4a7c15ull + 1;
    double c[3] = {0.5, 0.5, 0.5};
    for (uint32_t t = 0; t < n; t++) {
        int jump = next(&r) % 50 == 0;
        for (int k = 0; k < 3; k++)
            c[k] = jump ? unit(&r) : fmin(1.0, fmax(0.0, c[k] + size * (unit(&r) - 0.5)));
        for (int k = 0; k < 3; k++) {
            if (t > 0 && next(&r) % 5 == 0) {
                uint32_t back = 1 + (uint32_t)(next(&r) % (t < 30 ? t : 30));
                s.tris[3 * t + k] = s.tris[3 * (t - back) + next(&r) % 3];
                continue;
            }
            float *x = s.xyz + 3 * s.vertex_count;
            for (int d = 0; d < 3; d++) {
                double v = c[d] + size * (unit(&r) - 0.5);
                x[d] = (float)(lattice ? round(v * lattice) / lattice : v);
            }
            s.tris[3 * t + k] = s.vertex_count++;
        }
    }
    s.triangle_count = n;
    return s;
}

Test(intersect, grid_matches_brute_force_on_random_soups, .timeout = 300)
{
    const double lattices[2] = {0, 32};
    uint64_t total = 0, degenerate = 0;
    for (int l = 0; l < 2; l++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            soup s = random_soup(seed, 2000, 0.12, lattices[l]);
            sinew_intersect_report g, b = brute_force(&s);
            cr_assert_eq(sinew_count_intersections(s.xyz, s.vertex_count, s.tris, s.triangle_count, &quiet, &g),
                         SINEW_RESULT_OK);
            cr_assert_eq(g.pairs, b.pairs, "seed %llu, lattice %g: %llu pairs in the grid, %llu by brute force",
                         (unsigned long long)seed, lattices[l], (unsigned long long)g.pairs,
                         (unsigned long long)b.pairs);
            cr_assert_gt(b.pairs, 100, "seed %llu: too few pairs to tell anything", (unsigned long long)seed);
            cr_assert_eq(g.first_a, b.first_a);
            cr_assert_eq(g.first_b, b.first_b);
            cr_assert_geq(g.tested, g.pairs);
            total += g.pairs;
            degenerate += g.degenerate;
            soup_free(&s);
        }
    cr_assert_gt(degenerate, 0, "the lattice soups have triangles of zero area");
    cr_log_info("random soups: %llu intersecting pairs in all, the same by brute force; %llu degenerate triangles",
                (unsigned long long)total, (unsigned long long)degenerate);
}

/* Layers of a grid 2 cm apart (sinew-prep --layers): nothing meets; moved
 * into one another (the second layer 3 cells along x and down onto the
 * first), every triangle of the overlap meets its neighbours of the other
 * layer, and the brute force agrees on how many. */
Test(intersect, stacked_layers)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(32, 32, 1.0, 1.0, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_stack(&m, 3, (const double[3]){0, 0.02, 0}), SINEW_RESULT_OK);
    soup s = {.vertex_count = m.vertex_count};
    cr_assert_eq(sinew_mesh_triangle_arrays(&m, &s.xyz, &s.tris, &s.triangle_count), SINEW_RESULT_OK);
    sinew_intersect_report r = count(s.xyz, s.vertex_count, s.tris, s.triangle_count);
    cr_assert_eq(r.pairs, 0);
    soup_free(&s);
    sinew_mesh_free(&m);

    cr_assert_eq(sinew_mesh_grid(32, 32, 1.0, 1.0, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_stack(&m, 2, (const double[3]){3.0 / 31.0, 0, 0}), SINEW_RESULT_OK);
    s = (soup){.vertex_count = m.vertex_count};
    cr_assert_eq(sinew_mesh_triangle_arrays(&m, &s.xyz, &s.tris, &s.triangle_count), SINEW_RESULT_OK);
    r = count(s.xyz, s.vertex_count, s.tris, s.triangle_count);
    sinew_intersect_report b = brute_force(&s);
    cr_assert_geq(r.pairs, 28 * 31 * 2, /* each triangle of the overlap meets its copy */ "%llu pairs", (unsigned long long)r.pairs);
    cr_assert_eq(r.pairs, b.pairs);
    cr_assert_eq(r.first_a, b.first_a);
    cr_assert_eq(r.first_b, b.first_b);
    soup_free(&s);
    sinew_mesh_free(&m);
}

/* ---------------------------------------------------------------- reference */

static void sub(const double *a, const double *b, double *o)
{
    for (int k = 0; k < 3; k++)
        o[k] = a[k] - b[k];
}

static void crs(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Separating axes (the normals, the edges' cross products, each normal
 * crossed with its own edges: complete for two triangles): +1 when every
 * axis overlaps by more than tol, -1 when one separates by more than tol,
 * 0 when it is too close to call. */
static int separating_axes(const double p[3][3], const double q[3][3], double tol)
{
    double ep[3][3], eq[3][3], axes[17][3], np[3], nq[3];
    for (int i = 0; i < 3; i++) {
        sub(p[(i + 1) % 3], p[i], ep[i]);
        sub(q[(i + 1) % 3], q[i], eq[i]);
    }
    crs(ep[0], ep[1], np);
    crs(eq[0], eq[1], nq);
    int n = 0;
    memcpy(axes[n++], np, sizeof np);
    memcpy(axes[n++], nq, sizeof nq);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            crs(ep[i], eq[j], axes[n++]);
        crs(np, ep[i], axes[n++]);
        crs(nq, eq[i], axes[n++]);
    }
    int all_overlap = 1;
    for (int a = 0; a < n; a++) {
        double len = sqrt(axes[a][0] * axes[a][0] + axes[a][1] * axes[a][1] + axes[a][2] * axes[a][2]);
        if (len < 1e-6)
            continue; /* parallel edges: other axes decide */
        double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
        for (int i = 0; i < 3; i++) {
            double dp = 0, dq = 0;
            for (int k = 0; k < 3; k++) {
                dp += p[i][k] * axes[a][k] / len;
                dq += q[i][k] * axes[a][k] / len;
            }
            lo[0] = fmin(lo[0], dp), hi[0] = fmax(hi[0], dp);
            lo[1] = fmin(lo[1], dq), hi[1] = fmax(hi[1], dq);
        }
        double gap = fmax(lo[1] - hi[0], lo[0] - hi[1]);
        if (gap > tol)
            return -1;
        all_overlap &= gap < -tol;
    }
    return all_overlap ? 1 : 0;
}

/* The narrow phase against the separating-axis test wherever that one is sure. */
Test(intersect, narrow_phase_matches_separating_axes)
{
    uint64_t r = 77;
    uint32_t agree[2] = {0, 0}, unsure = 0;
    for (int t = 0; t < 200000; t++) {
        float f[6][3];
        double d[2][3][3];
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < 3; k++) {
                f[i][k] = (float)unit(&r);
                d[i / 3][i % 3][k] = f[i][k];
            }
        int ref = separating_axes(d[0], d[1], 1e-7);
        if (ref == 0) {
            unsure++;
            continue;
        }
        int got = sinew_triangles_intersect(f[0], f[1], f[2], f[3], f[4], f[5]);
        if (got != (ref > 0))
            cr_assert_fail("pair %d: the narrow phase says %d, separating axes %d", t, got, ref);
        agree[ref > 0]++;
    }
    cr_log_info("narrow phase: %u meeting and %u apart pairs agree with separating axes (%u too close to call)",
                agree[1], agree[0], unsure);
    cr_assert_gt(agree[0], 10000);
    cr_assert_gt(agree[1], 10000);
    cr_assert_lt(unsure, 2000);
}

/* ---------------------------------------------------------------- CGAL */

/* Debian's CGAL demo data (SINEW_CGAL_DATA): every model counted without a
 * fault, and the small ones (under 5000 triangles) the same by brute force. */
Test(intersect, cgal_models, .timeout = 600)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/meshes", dir ? dir : "");
    DIR *d = dir ? opendir(path) : NULL;
    if (!d)
        cr_skip_test("SINEW_CGAL_DATA is not set (tools/run.sh fetches Debian's CGAL demo data)");
    struct dirent *e;
    uint32_t models = 0, compared = 0, intersecting = 0;
    char worst[256] = "";
    uint64_t worst_pairs = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".off"))
            continue;
        snprintf(path, sizeof path, "%s/meshes/%s", dir, e->d_name);
        sinew_mesh m;
        if (sinew_mesh_read(path, &quiet, &m) != SINEW_RESULT_OK)
            continue;
        soup s = {.vertex_count = m.vertex_count};
        sinew_result res = sinew_mesh_triangle_arrays(&m, &s.xyz, &s.tris, &s.triangle_count);
        sinew_mesh_free(&m);
        if (res != SINEW_RESULT_OK)
            continue;
        sinew_intersect_report g;
        cr_assert_eq(sinew_count_intersections(s.xyz, s.vertex_count, s.tris, s.triangle_count, &quiet, &g),
                     SINEW_RESULT_OK, "%s", e->d_name);
        models++;
        intersecting += g.pairs > 0;
        if (g.pairs > worst_pairs) {
            worst_pairs = g.pairs;
            snprintf(worst, sizeof worst, "%s", e->d_name);
        }
        if (s.triangle_count < 5000) {
            sinew_intersect_report b = brute_force(&s);
            cr_assert_eq(g.pairs, b.pairs, "%s: %llu pairs in the grid, %llu by brute force", e->d_name,
                         (unsigned long long)g.pairs, (unsigned long long)b.pairs);
            cr_assert_eq(g.first_a, b.first_a, "%s", e->d_name);
            cr_assert_eq(g.first_b, b.first_b, "%s", e->d_name);
            compared++;
        }
        soup_free(&s);
    }
    closedir(d);
    cr_log_info("%u CGAL models counted, %u of them by brute force too; %u intersect themselves (most: %s, %llu "
                "pairs)", models, compared, intersecting, worst, (unsigned long long)worst_pairs);
    cr_assert_gt(models, 50);
    cr_assert_gt(compared, 20);
}

/* ---------------------------------------------------------------- time */

/* The claim is checked on cloths of this size: 131 072 triangles. */
Test(intersect, grid_257, .timeout = 120)
{
    soup flat = grid_soup(257, 257, NULL);
    cr_assert_eq(flat.triangle_count, 131072);
    double t0 = sinew_host_ms();
    sinew_intersect_report r = count(flat.xyz, flat.vertex_count, flat.tris, flat.triangle_count);
    double t1 = sinew_host_ms();
    cr_assert_eq(r.pairs, 0);
    uint64_t flat_tested = r.tested;
    soup_free(&flat);

    double *pos = folded_positions(257, 257, 128, 32);
    soup folded = grid_soup(257, 257, pos);
    free(pos);
    double t2 = sinew_host_ms();
    r = count(folded.xyz, folded.vertex_count, folded.tris, folded.triangle_count);
    double t3 = sinew_host_ms();
    cr_assert_eq(r.pairs, 1278);
    soup_free(&folded);
    cr_log_info("257 x 257 grid, 131072 triangles: flat %.1f ms (%llu pairs tested), folded %.1f ms (%llu tested, "
                "1278 intersecting)", t1 - t0, (unsigned long long)flat_tested, t3 - t2,
                (unsigned long long)r.tested);
}
