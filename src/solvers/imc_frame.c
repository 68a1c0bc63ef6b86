/* The material frame of implicit cloth's triangles (docs/implicit.md,
 * docs/math.md 5): each triangle's warp from the render mesh's UVs, the
 * rest-plane direction along which u grows (dX/du of the map from UV to rest
 * position, the tangent of normal mapping), where the asset has them.
 *
 * A triangle's UVs: those of a render triangle on the same three particles;
 * where none is (a quad the render mesh cuts along its other diagonal), each
 * corner's from the render triangles that share an edge with the triangle
 * and lie on its side of that edge (they overlap it, and a render triangle
 * across a seam does not), where they agree.
 * Subdivision (sinew-prep --subdivide) keeps the render mesh on the input's
 * particles, the coarsest level's: a finer triangle's corners are midpoints,
 * each a weighted sum of at most three coarsest particles (the corners of
 * the input triangle it lies in), so its UVs are those weights applied to
 * that input triangle's UVs, linear interpolation as at the midpoints of the
 * subdivision. Every level's triangle then takes the warp of the input
 * triangle it lies in (all of them coplanar with it), and the coarse levels
 * discretise the fine level's energy. */
#include "imc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE 0xFFFFFFFFu
/* A UV triangle thinner than this (|det| over the squared edges' sum; 0.43
 * equilateral) gives no direction worth trusting: the projection instead. */
#define SLIVER 1e-4

/* A particle as a weighted sum of at most three coarsest ones, sorted;
 * count 0: none (parents whose sums span more). */
typedef struct support {
    uint32_t p[3];
    double w[3];
    uint32_t count;
} support;

typedef struct keyed {
    uint32_t key[3]; /* the particles, sorted (an edge's two, then 0) */
    uint32_t t;      /* render triangle */
} keyed;

typedef struct uv_map {
    const sinew_asset *a;
    keyed *tri;      /* render triangles on three particles, sorted */
    keyed *edge;     /* their edges, three each, sorted */
    uint32_t count;  /* of tri; edge has 3 count */
} uv_map;

static int key_cmp(const void *x, const void *y)
{
    const uint32_t *a = ((const keyed *)x)->key, *b = ((const keyed *)y)->key;
    for (int c = 0; c < 3; c++)
        if (a[c] != b[c])
            return (a[c] > b[c]) - (a[c] < b[c]);
    return 0;
}

/* By key, then render triangle: an order of the library's own, not qsort's. */
static int keyed_cmp(const void *x, const void *y)
{
    const int c = key_cmp(x, y);
    const uint32_t a = ((const keyed *)x)->t, b = ((const keyed *)y)->t;
    return c ? c : (a > b) - (a < b);
}

static void sort3(uint32_t *k)
{
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && k[j - 1] > k[j]; j--) {
            uint32_t x = k[j];
            k[j] = k[j - 1];
            k[j - 1] = x;
        }
}

/* The particle a render vertex with a UV follows alone (a cloth's, weight
 * 1), or NONE (embedded in a tetrahedron, or without a UV). */
static uint32_t particle_of(const sinew_render_vertex_rec *v)
{
    if (!(v->mode & SINEW_RENDER_HAS_UV))
        return NONE;
    for (int k = 0; k < 4; k++)
        if (v->weight[k] >= 1.0f - (float)SINEW_RENDER_WEIGHT_TOLERANCE)
            return v->particle[k];
    return NONE;
}

static int build_map(const sinew_asset *a, uv_map *m)
{
    memset(m, 0, sizeof *m);
    m->a = a;
    m->tri = malloc(sizeof *m->tri * ((size_t)a->rtriangle_count + 1));
    m->edge = malloc(sizeof *m->edge * (3 * (size_t)a->rtriangle_count + 1));
    if (!m->tri || !m->edge)
        return 0;
    for (uint32_t t = 0; t < a->rtriangle_count; t++) {
        keyed k = {{0}, t};
        for (int c = 0; c < 3; c++)
            k.key[c] = particle_of(&a->rvertices[a->rtriangles[t].v[c]]);
        sort3(k.key);
        if (k.key[2] == NONE || k.key[0] == k.key[1] || k.key[1] == k.key[2])
            continue;
        for (int e = 0; e < 3; e++)
            m->edge[3 * m->count + e] = (keyed){{k.key[e == 2], k.key[e == 0 ? 1 : 2], 0}, t};
        m->tri[m->count++] = k;
    }
    qsort(m->tri, m->count, sizeof *m->tri, keyed_cmp);
    qsort(m->edge, 3 * (size_t)m->count, sizeof *m->edge, keyed_cmp);
    return 1;
}

static void free_map(uv_map *m)
{
    free(m->tri);
    free(m->edge);
}

/* The first of n sorted records with k's key, or NULL. */
static const keyed *first_of(const keyed *all, size_t n, const keyed *k)
{
    const keyed *hit = bsearch(k, all, n, sizeof *all, key_cmp);
    while (hit && hit > all && key_cmp(hit - 1, k) == 0)
        hit--;
    return hit;
}

/* Whether rest positions c and d lie on one side of the line through a and b. */
static int same_side(const sinew_asset *a, uint32_t pa, uint32_t pb, uint32_t pc, uint32_t pd)
{
    const sinew_particle_rec *q[4] = {&a->particles[pa], &a->particles[pb], &a->particles[pc], &a->particles[pd]};
    double e[3][3], n1[3], n2[3];
    for (int k = 0; k < 3; k++) {
        e[k][0] = (double)q[k + 1]->x - q[0]->x;
        e[k][1] = (double)q[k + 1]->y - q[0]->y;
        e[k][2] = (double)q[k + 1]->z - q[0]->z;
    }
    for (int k = 0; k < 2; k++) {
        double *n = k ? n2 : n1;
        const double *f = e[k + 1];
        n[0] = e[0][1] * f[2] - e[0][2] * f[1];
        n[1] = e[0][2] * f[0] - e[0][0] * f[2];
        n[2] = e[0][0] * f[1] - e[0][1] * f[0];
    }
    return n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2] > 0.0;
}

/* The UVs of particles p (sorted), from the render triangles on them (of
 * several, the least UVs in p's order: none depends on the numbering), or
 * from those that overlap them across an edge; 0 when neither gives them. */
static int uvs_of(const uv_map *m, const uint32_t p[3], double uv[3][2])
{
    keyed k = {{p[0], p[1], p[2]}, 0};
    const keyed *hit = first_of(m->tri, m->count, &k);
    if (hit) {
        float best[6] = {0};
        for (int first = 1; hit < m->tri + m->count && key_cmp(hit, &k) == 0; hit++, first = 0) {
            float own[6];
            for (int c = 0; c < 3; c++) {
                const sinew_render_vertex_rec *v = &m->a->rvertices[m->a->rtriangles[hit->t].v[c]];
                const uint32_t q = particle_of(v);
                const int at = q == p[0] ? 0 : q == p[1] ? 1 : 2;
                memcpy(&own[2 * at], v->uv, sizeof v->uv);
            }
            int less = first;
            for (int i = 0; i < 6 && !first; i++)
                if (own[i] != best[i]) {
                    less = own[i] < best[i];
                    break;
                }
            if (less)
                memcpy(best, own, sizeof best);
        }
        for (int c = 0; c < 6; c++)
            uv[c / 2][c % 2] = best[c];
        return 1;
    }
    float own[3][2];
    int have[3] = {0, 0, 0};
    for (int e = 0; e < 3; e++) { /* edge (p[i], p[j]) of p, p[o] the corner off it */
        const int i = e == 2, j = e == 0 ? 1 : 2, o = 3 - i - j;
        const keyed ek = {{p[i], p[j], 0}, 0}, *end = m->edge + 3 * (size_t)m->count;
        for (hit = first_of(m->edge, 3 * (size_t)m->count, &ek); hit && hit < end && !key_cmp(hit, &ek); hit++) {
            const sinew_triangle_rec *r = &m->a->rtriangles[hit->t];
            uint32_t off = NONE;
            for (int c = 0; c < 3; c++) {
                const uint32_t q = particle_of(&m->a->rvertices[r->v[c]]);
                off = q != p[i] && q != p[j] ? q : off;
            }
            if (!same_side(m->a, p[i], p[j], p[o], off))
                continue;
            for (int c = 0; c < 3; c++) {
                const sinew_render_vertex_rec *v = &m->a->rvertices[r->v[c]];
                const uint32_t q = particle_of(v);
                const int at = q == p[i] ? i : q == p[j] ? j : -1;
                if (at < 0)
                    continue;
                if (have[at] && memcmp(own[at], v->uv, sizeof v->uv) != 0)
                    return 0; /* a seam through the triangle: no one chart */
                memcpy(own[at], v->uv, sizeof v->uv);
                have[at] = 1;
            }
        }
    }
    for (int c = 0; c < 3; c++) {
        if (!have[c])
            return 0;
        uv[c][0] = own[c][0];
        uv[c][1] = own[c][1];
    }
    return 1;
}

/* Each particle's support: a coarsest particle itself, a midpoint half of
 * each parent's. */
static void supports_of(const sinew_asset *a, support *s)
{
    for (uint32_t i = 0; i < a->particle_count; i++) {
        support *o = &s[i];
        memset(o, 0, sizeof *o);
        if (!a->parents || a->parents[i].a == NONE) {
            *o = (support){{i, 0, 0}, {1.0, 0.0, 0.0}, 1};
            continue;
        }
        const support *h[2] = {&s[a->parents[i].a], &s[a->parents[i].b]};
        if (!h[0]->count || !h[1]->count)
            continue;
        for (int k = 0; k < 2; k++)
            for (uint32_t j = 0; j < h[k]->count && o->count <= 3; j++) {
                uint32_t at = 0;
                while (at < o->count && o->p[at] < h[k]->p[j])
                    at++;
                if (at < o->count && o->p[at] == h[k]->p[j]) {
                    o->w[at] += 0.5 * h[k]->w[j];
                    continue;
                }
                if (o->count == 3) {
                    o->count = 4; /* more than three: none */
                    break;
                }
                memmove(&o->p[at + 1], &o->p[at], sizeof *o->p * (o->count - at));
                memmove(&o->w[at + 1], &o->w[at], sizeof *o->w * (o->count - at));
                o->p[at] = h[k]->p[j];
                o->w[at] = 0.5 * h[k]->w[j];
                o->count++;
            }
        if (o->count > 3)
            o->count = 0;
    }
}

/* dX/du over a triangle (rest positions X, UVs uv), normalised; 0 when the
 * UVs are degenerate. */
static int warp_of(const double X[3][3], const double uv[3][2], double out[3])
{
    const double du1 = uv[1][0] - uv[0][0], dv1 = uv[1][1] - uv[0][1];
    const double du2 = uv[2][0] - uv[0][0], dv2 = uv[2][1] - uv[0][1];
    const double det = du1 * dv2 - du2 * dv1;
    if (!(fabs(det) > SLIVER * (du1 * du1 + dv1 * dv1 + du2 * du2 + dv2 * dv2)))
        return 0;
    /* [e1 e2] = J [du; dv], so J's first column is (e1 dv2 - e2 dv1) / det */
    double w[3], l = 0.0;
    for (int d = 0; d < 3; d++) {
        w[d] = ((X[1][d] - X[0][d]) * dv2 - (X[2][d] - X[0][d]) * dv1) / det;
        l += w[d] * w[d];
    }
    l = sqrt(l);
    if (!(l > 0.0 && l < INFINITY))
        return 0;
    for (int d = 0; d < 3; d++)
        out[d] = w[d] / l;
    return 1;
}

/* One triangle's warp: its corners' supports on one input triangle with UVs. */
static int triangle_warp(const uv_map *m, const support *s, const uint32_t *v, double out[3])
{
    uint32_t p[9], n = 0;
    for (int c = 0; c < 3; c++) {
        if (!s[v[c]].count)
            return 0;
        for (uint32_t j = 0; j < s[v[c]].count; j++) {
            uint32_t k = 0;
            while (k < n && p[k] != s[v[c]].p[j])
                k++;
            if (k == n)
                p[n++] = s[v[c]].p[j];
        }
    }
    double base[3][2], uv[3][2] = {{0}}, X[3][3];
    if (n != 3)
        return 0;
    sort3(p);
    if (!uvs_of(m, p, base))
        return 0;
    for (int c = 0; c < 3; c++) {
        const support *o = &s[v[c]];
        for (uint32_t j = 0; j < o->count; j++) {
            const int at = o->p[j] == p[0] ? 0 : o->p[j] == p[1] ? 1 : 2;
            uv[c][0] += o->w[j] * base[at][0];
            uv[c][1] += o->w[j] * base[at][1];
        }
        const sinew_particle_rec *q = &m->a->particles[v[c]];
        X[c][0] = q->x;
        X[c][1] = q->y;
        X[c][2] = q->z;
    }
    return warp_of(X, uv, out);
}

double *sinew_imc_warps(const sinew_asset *a, uint32_t *found)
{
    const uint32_t levels = a->mlevel_count ? a->mlevel_count : 1;
    size_t total = 0;
    for (uint32_t l = 0; l < levels; l++)
        total += a->mlevel_count ? a->mlevels[l].triangle_count : a->triangle_count;
    double *warp = calloc(3 * total + 1, sizeof *warp);
    support *s = malloc(sizeof *s * ((size_t)a->particle_count + 1));
    uv_map m;
    int ok = build_map(a, &m) && warp && s;
    *found = 0;
    if (ok && a->rtriangle_count > 0) { /* else no UVs: every warp 0 */
        supports_of(a, s);
        size_t at = 0;
        for (uint32_t l = 0; l < levels; l++) {
            const int finest = l + 1 == levels;
            const uint32_t t = finest ? a->triangle_count : a->mlevels[l].triangle_count;
            const sinew_triangle_rec *tri = finest ? a->triangles : a->mtriangles + a->mlevels[l].triangle_begin;
            for (uint32_t k = 0; k < t; k++, at++)
                if (triangle_warp(&m, s, tri[k].v, &warp[3 * at]))
                    *found += (uint32_t)finest;
        }
    }
    free_map(&m);
    free(s);
    if (!ok) {
        free(warp);
        return NULL;
    }
    return warp;
}
