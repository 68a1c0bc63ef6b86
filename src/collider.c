/* Triangle-mesh colliders: a signed distance field on a regular grid, built
 * once on the host and sampled by the contact kernels (docs/collider.md).
 *
 *   1. exact distances to the triangles from the nodes near each one
 *      (its bounds grown by two cells), remembering the closest triangle:
 *      every node within two cells of the surface is exact;
 *   2. sweeps in the eight diagonal orders, each node trying its
 *      neighbours' closest triangles: every node ends with the distance to
 *      a triangle close to, usually exactly, its closest;
 *   3. inside or outside by ray parity: along each axis, each row of nodes
 *      is crossed by the triangles it passes through; a node is inside for
 *      that axis when an odd number of crossings lie before it. Two axes of
 *      three decide, which forgives a ray grazing an edge. */
#include "collider.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

sinew_collider_desc sinew_collider_desc_default(void)
{
    sinew_collider_desc d = {0};
    d.cookie = SINEW_DESC_COOKIE;
    d.resolution = 64;
    return d;
}

/* ---------------------------------------------------------------- geometry */

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static double dist2_at(const double *p, const double *a, const double *d, double t)
{
    double r[3] = {p[0] - a[0] - t * d[0], p[1] - a[1] - t * d[1], p[2] - a[2] - t * d[2]};
    return dot3(r, r);
}

/* Squared distance from p to the segment a + t d, t in [0, 1]. */
static double segment_d2(const double *p, const double *a, const double *d)
{
    double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double dd = dot3(d, d), t = dd > 0.0 ? dot3(ap, d) / dd : 0.0;
    return dist2_at(p, a, d, t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t);
}

/* Squared distance from p to the triangle abc, by the Voronoi regions of its
 * vertices, edges and face (Ericson, Real-Time Collision Detection, 5.1.5). */
static double triangle_d2(const double *p, const double *a, const double *b, const double *c)
{
    double ab[3], ac[3], bc[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        bc[k] = c[k] - b[k];
        ap[k] = p[k] - a[k];
        bp[k] = p[k] - b[k];
        cp[k] = p[k] - c[k];
    }
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0)
        return dot3(ap, ap);
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0 && d4 <= d3)
        return dot3(bp, bp);
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
        return dist2_at(p, a, ab, d1 / (d1 - d3));
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0 && d5 <= d6)
        return dot3(cp, cp);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
        return dist2_at(p, a, ac, d2 / (d2 - d6));
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0)
        return dist2_at(p, b, bc, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    double sum = va + vb + vc;
    if (!(sum > 0.0)) { /* degenerate: a segment or a point */
        double e = segment_d2(p, a, ab), f = segment_d2(p, a, ac), g = segment_d2(p, b, bc);
        return e < f ? (e < g ? e : g) : (f < g ? f : g);
    }
    double v = vb / sum, w = vc / sum, r[3];
    for (int k = 0; k < 3; k++)
        r[k] = p[k] - a[k] - ab[k] * v - ac[k] * w;
    return dot3(r, r);
}

/* ---------------------------------------------------------------- building */

typedef struct build {
    const sinew_collider_desc *d;
    sinew_sdf *s;
    int32_t *closest;         /* per node: its closest triangle so far, -1: none */
    uint8_t *votes;           /* per node: axes whose ray says inside */
} build;

static void vertex(const build *B, uint32_t t, int corner, double out[3])
{
    const float *v = &B->d->vertices[3 * (size_t)B->d->triangles[3 * (size_t)t + corner]];
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
}

static size_t node_index(const sinew_sdf *s, uint32_t i, uint32_t j, uint32_t k)
{
    return i + (size_t)s->dims[0] * (j + (size_t)s->dims[1] * k);
}

static void node_position(const sinew_sdf *s, uint32_t i, uint32_t j, uint32_t k, double p[3])
{
    p[0] = s->origin[0] + s->cell * i;
    p[1] = s->origin[1] + s->cell * j;
    p[2] = s->origin[2] + s->cell * k;
}

/* Node index range [lo, hi] covering [a, b] grown by `grow` nodes, clamped. */
static void node_range(const sinew_sdf *s, int axis, double a, double b, int grow, uint32_t *lo, uint32_t *hi)
{
    double fa = floor((a - s->origin[axis]) / s->cell) - grow, fb = ceil((b - s->origin[axis]) / s->cell) + grow;
    double top = s->dims[axis] - 1.0;
    *lo = (uint32_t)(fa < 0.0 ? 0.0 : fa > top ? top : fa);
    *hi = (uint32_t)(fb < 0.0 ? 0.0 : fb > top ? top : fb);
}

static void try_triangle(build *B, size_t at, const double p[3], int32_t t)
{
    double a[3], b[3], c[3];
    vertex(B, (uint32_t)t, 0, a);
    vertex(B, (uint32_t)t, 1, b);
    vertex(B, (uint32_t)t, 2, c);
    float d = (float)sqrt(triangle_d2(p, a, b, c));
    if (d < B->s->phi[at]) {
        B->s->phi[at] = d;
        B->closest[at] = t;
    }
}

static void exact_band(build *B)
{
    sinew_sdf *s = B->s;
    for (uint32_t t = 0; t < B->d->triangle_count; t++) {
        double v[3][3];
        uint32_t lo[3], hi[3];
        for (int c = 0; c < 3; c++)
            vertex(B, t, c, v[c]);
        for (int a = 0; a < 3; a++) {
            double mn = fmin(v[0][a], fmin(v[1][a], v[2][a])), mx = fmax(v[0][a], fmax(v[1][a], v[2][a]));
            node_range(s, a, mn, mx, 2, &lo[a], &hi[a]);
        }
        for (uint32_t k = lo[2]; k <= hi[2]; k++)
            for (uint32_t j = lo[1]; j <= hi[1]; j++)
                for (uint32_t i = lo[0]; i <= hi[0]; i++) {
                    double p[3];
                    node_position(s, i, j, k, p);
                    try_triangle(B, node_index(s, i, j, k), p, (int32_t)t);
                }
    }
}

/* One sweep in the order given by the signs: each node tries the closest
 * triangles of its seven neighbours behind it. */
static void sweep(build *B, int di, int dj, int dk)
{
    const sinew_sdf *s = B->s;
    const int64_t n[3] = {s->dims[0], s->dims[1], s->dims[2]};
    for (int64_t kk = 0; kk < n[2]; kk++) {
        int64_t k = dk > 0 ? kk : n[2] - 1 - kk;
        for (int64_t jj = 0; jj < n[1]; jj++) {
            int64_t j = dj > 0 ? jj : n[1] - 1 - jj;
            for (int64_t ii = 0; ii < n[0]; ii++) {
                int64_t i = di > 0 ? ii : n[0] - 1 - ii;
                size_t at = node_index(s, (uint32_t)i, (uint32_t)j, (uint32_t)k);
                double p[3];
                int have_p = 0;
                for (int m = 1; m < 8; m++) {
                    int64_t ni = i - ((m & 1) ? di : 0), nj = j - ((m & 2) ? dj : 0), nk = k - ((m & 4) ? dk : 0);
                    if (ni < 0 || nj < 0 || nk < 0 || ni >= n[0] || nj >= n[1] || nk >= n[2])
                        continue;
                    int32_t t = B->closest[node_index(s, (uint32_t)ni, (uint32_t)nj, (uint32_t)nk)];
                    if (t < 0 || t == B->closest[at])
                        continue;
                    if (!have_p) {
                        node_position(s, (uint32_t)i, (uint32_t)j, (uint32_t)k, p);
                        have_p = 1;
                    }
                    try_triangle(B, at, p, t);
                }
            }
        }
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Rays along `axis` through each row of nodes, moved off the node lines by a
 * tiny irrational fraction of a cell so that they do not run exactly through
 * the edges and vertices of meshes made on a grid. Returns 0 when out of
 * memory. */
static int cast_rays(build *B, int axis)
{
    sinew_sdf *s = B->s;
    const int a = axis, b = (axis + 1) % 3, c = (axis + 2) % 3;
    const uint32_t nb = s->dims[b], nc = s->dims[c];
    const size_t rows = (size_t)nb * nc;
    const double eb = 1.1547e-5 * s->cell, ec = 0.7071e-5 * s->cell;
    size_t *start = calloc(rows + 1, sizeof *start);
    if (!start)
        return 0;
    double *hits = NULL;
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        for (uint32_t t = 0; t < B->d->triangle_count; t++) {
            double v[3][3];
            for (int k = 0; k < 3; k++)
                vertex(B, t, k, v[k]);
            double minb = fmin(v[0][b], fmin(v[1][b], v[2][b])), maxb = fmax(v[0][b], fmax(v[1][b], v[2][b]));
            double minc = fmin(v[0][c], fmin(v[1][c], v[2][c])), maxc = fmax(v[0][c], fmax(v[1][c], v[2][c]));
            double j0 = ceil((minb - s->origin[b] - eb) / s->cell), j1 = floor((maxb - s->origin[b] - eb) / s->cell);
            double k0 = ceil((minc - s->origin[c] - ec) / s->cell), k1 = floor((maxc - s->origin[c] - ec) / s->cell);
            if (j0 < 0.0) j0 = 0.0;
            if (k0 < 0.0) k0 = 0.0;
            if (j1 > nb - 1.0) j1 = nb - 1.0;
            if (k1 > nc - 1.0) k1 = nc - 1.0;
            for (double kk = k0; kk <= k1; kk++)
                for (double jj = j0; jj <= j1; jj++) {
                    double qb = s->origin[b] + jj * s->cell + eb, qc = s->origin[c] + kk * s->cell + ec;
                    double w[3];
                    for (int e = 0; e < 3; e++) { /* twice the signed area opposite vertex e */
                        const double *p = v[(e + 1) % 3], *q = v[(e + 2) % 3];
                        w[e] = (q[b] - p[b]) * (qc - p[c]) - (q[c] - p[c]) * (qb - p[b]);
                    }
                    int pos = w[0] >= 0.0 && w[1] >= 0.0 && w[2] >= 0.0;
                    int neg = w[0] <= 0.0 && w[1] <= 0.0 && w[2] <= 0.0;
                    double sum = w[0] + w[1] + w[2];
                    if (!(pos || neg) || sum == 0.0)
                        continue;
                    size_t row = (size_t)jj + (size_t)nb * (size_t)kk;
                    if (pass == 0) {
                        start[row + 1]++;
                    } else {
                        double x = (w[0] * v[0][a] + w[1] * v[1][a] + w[2] * v[2][a]) / sum;
                        hits[start[row]++] = (x - s->origin[a]) / s->cell;
                    }
                }
        }
        if (pass == 0) {
            for (size_t r = 0; r < rows; r++)
                start[r + 1] += start[r];
            hits = malloc((start[rows] ? start[rows] : 1) * sizeof *hits);
            if (!hits) {
                free(start);
                return 0;
            }
        } else { /* filling advanced each start to the next row's */
            memmove(start + 1, start, rows * sizeof *start);
            start[0] = 0;
        }
    }
    for (size_t r = 0; r < rows; r++) {
        size_t h0 = start[r], h1 = start[r + 1];
        qsort(hits + h0, h1 - h0, sizeof *hits, compare_double);
        uint32_t idx[3];
        idx[b] = (uint32_t)(r % nb);
        idx[c] = (uint32_t)(r / nb);
        size_t before = h0;
        for (uint32_t i = 0; i < s->dims[a]; i++) {
            while (before < h1 && hits[before] < (double)i)
                before++;
            idx[a] = i;
            if ((before - h0) & 1u)
                B->votes[node_index(s, idx[0], idx[1], idx[2])]++;
        }
    }
    free(hits);
    free(start);
    return 1;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Edges used by other than two triangles; UINT32_MAX when out of memory. */
static uint32_t open_edges(const sinew_collider_desc *d)
{
    size_t m = 3 * (size_t)d->triangle_count;
    uint64_t *e = malloc(m * sizeof *e);
    if (!e)
        return UINT32_MAX;
    for (size_t t = 0; t < d->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            uint64_t u = d->triangles[3 * t + k], v = d->triangles[3 * t + (k + 1) % 3];
            e[3 * t + k] = u < v ? u << 32 | v : v << 32 | u;
        }
    qsort(e, m, sizeof *e, compare_u64);
    uint32_t open = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && e[j] == e[i])
            j++;
        open += j - i != 2;
        i = j;
    }
    free(e);
    return open;
}

sinew_result sinew_sdf_build(const sinew_logger *lg, const sinew_collider_desc *d, const char *name, sinew_sdf *out)
{
    SINEW_ASSERT(d && out);
    memset(out, 0, sizeof *out);
    if (d->triangle_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "collider", "collider '%s' has no triangles",
                          name);
    SINEW_ASSERT(d->vertices && d->triangles);
    if (!isfinite(d->cell_size) || d->cell_size < 0.0f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "collider",
                          "collider '%s': cell_size (%g) must be finite and >= 0", name, d->cell_size);
    if (!isfinite(d->margin) || d->margin < 0.0f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "collider",
                          "collider '%s': margin (%g) must be finite and >= 0", name, d->margin);
    if (d->cell_size == 0.0f && (d->resolution < 2 || d->resolution > 4096))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "collider",
                          "collider '%s': resolution (%u) must be in 2..4096", name, d->resolution);
    for (uint32_t t = 0; t < d->triangle_count; t++)
        for (int k = 0; k < 3; k++)
            if (d->triangles[3 * (size_t)t + k] >= d->vertex_count)
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "collider",
                                  "collider '%s': triangle %u names vertex %u; there are %u", name, t,
                                  d->triangles[3 * (size_t)t + k], d->vertex_count);
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (uint32_t v = 0; v < d->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            double x = d->vertices[3 * (size_t)v + k];
            if (!isfinite(x))
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "collider",
                                  "collider '%s': vertex %u is not finite", name, v);
            lo[k] = fmin(lo[k], x);
            hi[k] = fmax(hi[k], x);
        }
    double longest = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (!(longest > 0.0))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "collider",
                          "collider '%s': the mesh's bounds have no extent (every vertex at one point)", name);
    double h = d->cell_size > 0.0f ? d->cell_size : longest / d->resolution;
    double margin = d->margin > 0.0f ? d->margin : 4.0 * h;
    double nodes = 1.0;
    double dims[3];
    for (int k = 0; k < 3; k++) {
        dims[k] = ceil((hi[k] - lo[k] + 2.0 * margin) / h) + 1.0;
        nodes *= dims[k];
    }
    if (nodes > SINEW_SDF_MAX_NODES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "collider",
                          "collider '%s': a grid of %.0f x %.0f x %.0f nodes (cell %g m) is more than the %u allowed; "
                          "use a larger cell_size or a lower resolution", name, dims[0], dims[1], dims[2], h,
                          SINEW_SDF_MAX_NODES);
    sinew_sdf *s = out;
    for (int k = 0; k < 3; k++) {
        s->dims[k] = (uint32_t)dims[k];
        s->origin[k] = lo[k] - margin;
    }
    s->cell = h;
    size_t count = (size_t)nodes;
    build B = {d, s, malloc(count * sizeof *B.closest), calloc(count, 1)};
    s->phi = malloc(count * sizeof *s->phi);
    int ok = B.closest && B.votes && s->phi;
    if (ok) {
        for (size_t i = 0; i < count; i++) {
            s->phi[i] = FLT_MAX;
            B.closest[i] = -1;
        }
        exact_band(&B);
        for (int m = 0; m < 8; m++) /* a second round leaves the tests' largest errors as they are */
            sweep(&B, m & 1 ? -1 : 1, m & 2 ? -1 : 1, m & 4 ? -1 : 1);
        for (int a = 0; a < 3 && ok; a++)
            ok = cast_rays(&B, a);
    }
    if (ok) {
        for (size_t i = 0; i < count; i++)
            if (B.votes[i] >= 2) {
                s->phi[i] = -s->phi[i];
                s->inside_nodes++;
            }
        s->open_edges = open_edges(d);
        ok = s->open_edges != UINT32_MAX;
    }
    free(B.closest);
    free(B.votes);
    if (!ok) {
        sinew_sdf_free(s);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "collider",
                          "collider '%s': out of host memory for a grid of %zu nodes", name, count);
    }
    return SINEW_RESULT_OK;
}

void sinew_sdf_free(sinew_sdf *s)
{
    free(s->phi);
    memset(s, 0, sizeof *s);
}

double sinew_sdf_sample(const sinew_sdf *s, const double p[3], double n[3])
{
    uint32_t c[3];
    double f[3], outside2 = 0.0;
    for (int a = 0; a < 3; a++) {
        double g = (p[a] - s->origin[a]) / s->cell, top = s->dims[a] - 1.0;
        double gc = g >= 0.0 ? (g <= top ? g : top) : 0.0; /* NaN: 0, and the result NaN */
        outside2 += (g - gc) * (g - gc);
        c[a] = (uint32_t)gc;
        if (c[a] > s->dims[a] - 2)
            c[a] = s->dims[a] - 2;
        f[a] = gc - c[a];
    }
    const size_t sx = 1, sy = s->dims[0], sz = (size_t)s->dims[0] * s->dims[1];
    const size_t base = node_index(s, c[0], c[1], c[2]);
    double v[2][2][2]; /* [z][y][x] */
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++)
                v[z][y][x] = s->phi[base + x * sx + y * sy + z * sz];
    const double fx = f[0], fy = f[1], fz = f[2], gx = 1.0 - fx, gy = 1.0 - fy, gz = 1.0 - fz;
    double x00 = gx * v[0][0][0] + fx * v[0][0][1], x10 = gx * v[0][1][0] + fx * v[0][1][1];
    double x01 = gx * v[1][0][0] + fx * v[1][0][1], x11 = gx * v[1][1][0] + fx * v[1][1][1];
    double y0 = gy * x00 + fy * x10, y1 = gy * x01 + fy * x11;
    double phi = gz * y0 + fz * y1;
    if (n) {
        double dx = gy * gz * (v[0][0][1] - v[0][0][0]) + fy * gz * (v[0][1][1] - v[0][1][0]) +
                    gy * fz * (v[1][0][1] - v[1][0][0]) + fy * fz * (v[1][1][1] - v[1][1][0]);
        double dy = gz * (x10 - x00) + fz * (x11 - x01);
        double dz = y1 - y0;
        double len = sqrt(dx * dx + dy * dy + dz * dz);
        if (len > 1e-12) {
            n[0] = dx / len;
            n[1] = dy / len;
            n[2] = dz / len;
        } else {
            n[0] = 0.0;
            n[1] = 1.0;
            n[2] = 0.0;
        }
    }
    return phi + sqrt(outside2) * s->cell;
}

/* ---------------------------------------------------------------- colliders */

sinew_result sinew_collider_create(sinew_context *ctx, const sinew_collider_desc *desc, sinew_collider **out)
{
    SINEW_ASSERT(ctx && desc && out);
    SINEW_ASSERT(desc->cookie == SINEW_DESC_COOKIE && "desc must come from sinew_collider_desc_default");
    *out = NULL;
    sinew_collider *c = calloc(1, sizeof *c);
    if (!c)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "collider", "out of host memory");
    c->ctx = ctx;
    c->refs = 1;
    snprintf(c->name, sizeof c->name, "%s", desc->name ? desc->name : "collider");
    double t0 = sinew_host_ms();
    sinew_result r = sinew_sdf_build(&ctx->logger, desc, c->name, &c->sdf);
    const sinew_sdf *s = &c->sdf;
    const uint64_t bytes = 4ull * s->dims[0] * s->dims[1] * s->dims[2];
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_check_size(ctx, bytes, "collider distance field");
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_create(ctx, bytes, SINEW_MEMORY_DEVICE, "collider distance field", &c->grid);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &c->grid, 0, s->phi, bytes);
    if (r != SINEW_RESULT_OK) {
        sinew_collider_destroy(c);
        return r;
    }
    sinew_collider_info *info = &c->info;
    for (int k = 0; k < 3; k++) {
        info->dims[k] = s->dims[k];
        info->origin[k] = (float)s->origin[k];
    }
    info->cell_size = (float)s->cell;
    info->inside_nodes = s->inside_nodes;
    info->open_edges = s->open_edges;
    info->device_memory = c->grid.allocated;
    info->build_ms = sinew_host_ms() - t0;
    if (s->open_edges)
        sinew_logf(&ctx->logger, SINEW_LOG_WARNING, "collider",
                   "collider '%s' is not closed: %u edges have other than two triangles; near them inside and "
                   "outside are a vote of three rays and may be wrong", c->name, s->open_edges);
    if (s->inside_nodes == 0)
        sinew_logf(&ctx->logger, SINEW_LOG_WARNING, "collider",
                   "collider '%s' encloses no grid node: it collides only by its distance field's sign, which is "
                   "positive everywhere (a thin or open mesh); make the cell smaller", c->name);
    sinew_logf(&ctx->logger, SINEW_LOG_DEBUG, "collider", "collider '%s': %u x %u x %u nodes, cell %g m, %.1f ms",
               c->name, s->dims[0], s->dims[1], s->dims[2], s->cell, info->build_ms);
    *out = c;
    return SINEW_RESULT_OK;
}

void sinew_collider_retain(sinew_collider *c) { c->refs++; }

void sinew_collider_destroy(sinew_collider *c)
{
    if (!c || --c->refs > 0)
        return;
    sinew_buffer_destroy(c->ctx, &c->grid);
    sinew_sdf_free(&c->sdf);
    free(c);
}

sinew_collider_info sinew_collider_get_info(const sinew_collider *c)
{
    SINEW_ASSERT(c);
    return c->info;
}

float sinew_collider_distance(const sinew_collider *c, const float point[3], float normal[3])
{
    SINEW_ASSERT(c && point);
    double p[3] = {point[0], point[1], point[2]}, n[3];
    double phi = sinew_sdf_sample(&c->sdf, p, n);
    if (normal)
        for (int k = 0; k < 3; k++)
            normal[k] = (float)n[k];
    return (float)phi;
}

void sinew_collider_placement(const sinew_step_params *p, double rot[3][3], double t[3])
{
    double x = p->collider_rotation[0], y = p->collider_rotation[1], z = p->collider_rotation[2];
    double w = p->collider_rotation[3], len = sqrt(x * x + y * y + z * z + w * w);
    x /= len;
    y /= len;
    z /= len;
    w /= len;
    rot[0][0] = 1 - 2 * (y * y + z * z);
    rot[0][1] = 2 * (x * y - z * w);
    rot[0][2] = 2 * (x * z + y * w);
    rot[1][0] = 2 * (x * y + z * w);
    rot[1][1] = 1 - 2 * (x * x + z * z);
    rot[1][2] = 2 * (y * z - x * w);
    rot[2][0] = 2 * (x * z - y * w);
    rot[2][1] = 2 * (y * z + x * w);
    rot[2][2] = 1 - 2 * (x * x + y * y);
    for (int k = 0; k < 3; k++)
        t[k] = p->collider_position[k];
}

double sinew_collider_sample_world(const sinew_collider *c, const sinew_step_params *p, const double x[3],
                                   double n[3])
{
    double R[3][3], t[3], l[3], nl[3];
    sinew_collider_placement(p, R, t);
    for (int r = 0; r < 3; r++) /* l = R^T (x - t) */
        l[r] = R[0][r] * (x[0] - t[0]) + R[1][r] * (x[1] - t[1]) + R[2][r] * (x[2] - t[2]);
    double phi = sinew_sdf_sample(&c->sdf, l, nl);
    for (int r = 0; r < 3; r++)
        n[r] = R[r][0] * nl[0] + R[r][1] * nl[1] + R[r][2] * nl[2];
    return phi;
}
