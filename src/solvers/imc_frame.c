/* The material frame of implicit cloth's triangles (docs/implicit.md,
 * docs/math.md 5): each triangle's warp from the render mesh's UVs, the
 * rest-plane direction along which u grows (dX/du of the map from UV to rest
 * position, the tangent of normal mapping), where the asset has them.
 *
 * A triangle's UVs: those of a render triangle on the same three particles,
 * or, where none is (a quad split along its other diagonal), each corner's
 * particle's own UV where all its render vertices agree on one (no seam).
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
    uint32_t key[3]; /* the particles, sorted */
    uint32_t t;      /* render triangle */
} keyed;

typedef struct uv_map {
    const sinew_asset *a;
    keyed *tri;      /* render triangles on three particles, sorted by key */
    uint32_t count;
    float *uv;       /* 2 per particle: its UV where state is 1 */
    uint8_t *state;  /* 0 no render vertex, 1 one UV, 2 several (a seam) */
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
    m->uv = malloc(sizeof *m->uv * (2 * (size_t)a->particle_count + 1));
    m->state = calloc((size_t)a->particle_count + 1, 1);
    if (!m->tri || !m->uv || !m->state)
        return 0;
    for (uint32_t t = 0; t < a->rtriangle_count; t++) {
        keyed k = {{0}, t};
        for (int c = 0; c < 3; c++) {
            const sinew_render_vertex_rec *v = &a->rvertices[a->rtriangles[t].v[c]];
            const uint32_t p = k.key[c] = particle_of(v);
            if (p == NONE)
                continue;
            if (m->state[p] == 0) {
                memcpy(&m->uv[2 * (size_t)p], v->uv, sizeof v->uv);
                m->state[p] = 1;
            } else if (memcmp(&m->uv[2 * (size_t)p], v->uv, sizeof v->uv) != 0) {
                m->state[p] = 2;
            }
        }
        sort3(k.key);
        if (k.key[2] != NONE && k.key[0] != k.key[1] && k.key[1] != k.key[2])
            m->tri[m->count++] = k;
    }
    qsort(m->tri, m->count, sizeof *m->tri, keyed_cmp);
    return 1;
}

static void free_map(uv_map *m)
{
    free(m->tri);
    free(m->uv);
    free(m->state);
}

/* The UVs of particles p (sorted), from the render triangles on them (of
 * several, the least UVs in p's order: none depends on the numbering), or
 * their own; 0 when neither gives them. */
static int uvs_of(const uv_map *m, const uint32_t p[3], double uv[3][2])
{
    keyed k = {{p[0], p[1], p[2]}, 0};
    const keyed *hit = bsearch(&k, m->tri, m->count, sizeof *m->tri, key_cmp);
    if (hit) {
        while (hit > m->tri && key_cmp(hit - 1, &k) == 0)
            hit--;
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
    for (int c = 0; c < 3; c++) {
        if (m->state[p[c]] != 1)
            return 0;
        uv[c][0] = m->uv[2 * (size_t)p[c]];
        uv[c][1] = m->uv[2 * (size_t)p[c] + 1];
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
