/* CPU double-precision reference of self-collision, mirroring
 * selfcol_kernels.glsl (see selfcol_ref.h). */
#include "selfcol_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "selfcol.h"
#include "shared/selfcol.h"

struct selfcol_ref {
    uint32_t V, T, E, I, K, n;
    /* other bodies' items after the body's own: GV + GT + GE = GI, over G
     * particles numbered from n (as on the device); own: the body's own
     * pairs collide */
    uint32_t GV, GT, GE, GI, G;
    uint32_t *gverts, *gtris, *gedges;
    int own;
    double *P, *X, *W;     /* (n + G): prev, positions and inverse masses, the others' after the body's */
    double *ghost;         /* 3G: the others' positions (selfcol_ref_set_others) */
    double thickness, friction;
    uint32_t *verts, *edges;
    const sinew_triangle_rec *tris;
    double *box;          /* 6 per item: min, max */
    double *mean, *spread; /* per item: its sweep (3), its spread */
    double hash_cell;      /* the device's cell size */
    double *rest;          /* 3n: the asset's rest positions */
    uint8_t *too_big;      /* per item: over more cells than the device takes */
    uint32_t *count, *list;
    double *delta;        /* 4 per slot: xyz, count */
    uint32_t *inc_start, *inc;
    uint64_t candidates, dropped, contacts;
};

static uint32_t particles_of(const selfcol_ref *s, uint32_t it, uint32_t p[3])
{
    if (it >= s->I) {
        it -= s->I;
        if (it < s->GV) {
            p[0] = p[1] = p[2] = s->gverts[it];
            return 1;
        }
        if (it < s->GV + s->GT) {
            memcpy(p, &s->gtris[3 * (it - s->GV)], 12);
            return 3;
        }
        const uint32_t *e = &s->gedges[2 * (it - s->GV - s->GT)];
        p[0] = e[0], p[1] = e[1], p[2] = e[0];
        return 2;
    }
    if (it < s->V) {
        p[0] = p[1] = p[2] = s->verts[it];
        return 1;
    }
    if (it < s->V + s->T) {
        memcpy(p, s->tris[it - s->V].v, 12);
        return 3;
    }
    const uint32_t *e = &s->edges[2 * (it - s->V - s->T)];
    p[0] = e[0], p[1] = e[1], p[2] = e[0];
    return 2;
}

static uint32_t kind_of(const selfcol_ref *s, uint32_t it)
{
    if (it >= s->I)
        return it - s->I < s->GV ? 0 : it - s->I < s->GV + s->GT ? 1 : 2;
    return it < s->V ? 0 : it < s->V + s->T ? 1 : 2;
}

selfcol_ref *selfcol_ref_create(const sinew_asset *a, const sinew_body_desc *d)
{
    return selfcol_ref_create_with(a, d, NULL, 0);
}

selfcol_ref *selfcol_ref_create_with(const sinew_asset *a, const sinew_body_desc *d, const sinew_asset *const *others,
                                     uint32_t count)
{
    if (!d->self_collision && count == 0)
        return NULL;
    selfcol_ref *s = calloc(1, sizeof *s);
    const sinew_surface own = sinew_surface_of(a);
    if (!s || !sinew_selfcol_surface(&own, &s->verts, &s->V, &s->edges, &s->E)) {
        free(s);
        return NULL;
    }
    s->own = d->self_collision;
    /* the others' surfaces, numbered as selfcol.c numbers them */
    sinew_surface surf[SINEW_MAX_CONTACT_BODIES];
    uint32_t gv = 0, gt = 0, ge = 0;
    for (uint32_t k = 0; k < count; k++) {
        surf[k] = sinew_surface_of(others[k]);
        gv += others[k]->particle_count, gt += others[k]->triangle_count, ge += 3 * others[k]->triangle_count;
    }
    s->gverts = calloc(gv + 1, 4), s->gtris = calloc(3 * (size_t)gt + 1, 4), s->gedges = calloc(2 * (size_t)ge + 1, 4);
    uint32_t base = a->particle_count;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t *v, *e, cv, ce;
        if (!sinew_selfcol_surface(&surf[k], &v, &cv, &e, &ce))
            abort();
        for (uint32_t i = 0; i < cv; i++)
            s->gverts[s->GV++] = base + v[i];
        for (uint32_t t = 0; t < surf[k].triangle_count; t++)
            for (int c = 0; c < 3; c++)
                s->gtris[3 * (s->GT + t) + c] = base + surf[k].triangles[t].v[c];
        s->GT += surf[k].triangle_count;
        for (uint32_t i = 0; i < 2 * ce; i++)
            s->gedges[2 * s->GE + i] = base + e[i];
        s->GE += ce;
        base += surf[k].particle_count;
        free(v), free(e);
    }
    s->G = base - a->particle_count;
    s->GI = s->GV + s->GT + s->GE;
    s->T = a->triangle_count;
    s->tris = a->triangles;
    s->I = s->V + s->T + s->E;
    s->K = d->self_capacity;
    s->n = a->particle_count;
    s->thickness = d->self_thickness;
    s->friction = d->self_friction;
    uint32_t slots = s->V + 3 * s->T + 2 * s->E;
    const size_t all = (size_t)s->I + s->GI, np = (size_t)s->n + s->G;
    s->box = calloc(6 * all, sizeof *s->box);
    s->mean = calloc(3 * all + 1, sizeof *s->mean);
    s->spread = calloc(all + 1, sizeof *s->spread);
    s->too_big = calloc(all + 1, 1);
    s->P = calloc(3 * np, sizeof *s->P);
    s->X = calloc(3 * np, sizeof *s->X);
    s->W = calloc(np, sizeof *s->W);
    s->ghost = calloc(3 * (size_t)s->G + 1, sizeof *s->ghost);
    s->rest = calloc(3 * (size_t)s->n + 1, sizeof *s->rest);
    for (uint32_t i = 0; i < s->n; i++)
        for (int k = 0; k < 3; k++)
            s->rest[3 * i + k] = (&a->particles[i].x)[k];
    s->hash_cell = sinew_selfcol_cell_size(&own, surf, count, d->self_thickness);
    s->count = calloc(s->I, sizeof *s->count);
    s->list = calloc((size_t)s->I * s->K, sizeof *s->list);
    s->delta = calloc(4 * (size_t)slots, sizeof *s->delta);
    s->inc_start = calloc(s->n + 1, sizeof *s->inc_start);
    s->inc = calloc(slots, sizeof *s->inc);
    /* each particle's slots, as selfcol.c orders them */
    uint32_t *fill = calloc(s->n + 1, sizeof *fill);
    for (uint32_t it = 0; it < s->I; it++) {
        uint32_t p[3], m = particles_of(s, it, p);
        for (uint32_t j = 0; j < m; j++)
            s->inc_start[p[j] + 1]++;
    }
    for (uint32_t i = 0; i < s->n; i++)
        s->inc_start[i + 1] += s->inc_start[i];
    memcpy(fill, s->inc_start, 4 * (size_t)s->n);
    for (uint32_t it = 0; it < s->I; it++) {
        uint32_t p[3], m = particles_of(s, it, p);
        uint32_t slot0 = it < s->V ? it : it < s->V + s->T ? s->V + 3 * (it - s->V) : s->V + 3 * s->T + 2 * (it - s->V - s->T);
        for (uint32_t j = 0; j < m; j++)
            s->inc[fill[p[j]]++] = slot0 + j;
    }
    free(fill);
    return s;
}

void selfcol_ref_destroy(selfcol_ref *s)
{
    if (!s)
        return;
    free(s->verts), free(s->edges), free(s->box), free(s->mean), free(s->spread), free(s->too_big), free(s->rest), free(s->count), free(s->list);
    free(s->delta), free(s->inc_start), free(s->inc);
    free(s->gverts), free(s->gtris), free(s->gedges), free(s->P), free(s->X), free(s->W), free(s->ghost);
    free(s);
}

void selfcol_ref_set_others(selfcol_ref *s, const double *xyz)
{
    memcpy(s->ghost, xyz, 3 * (size_t)s->G * sizeof *xyz);
}

/* The body's prev, x and w and the others' still positions (inverse mass
 * 0) as one set of particles. */
static void combine(selfcol_ref *s, const double *prev, const double *x, const double *w)
{
    const size_t n = s->n;
    memcpy(s->P, prev, 3 * n * sizeof *prev);
    memcpy(s->X, x, 3 * n * sizeof *x);
    memcpy(s->W, w, n * sizeof *w);
    memcpy(s->P + 3 * n, s->ghost, 3 * (size_t)s->G * sizeof *s->ghost);
    memcpy(s->X + 3 * n, s->ghost, 3 * (size_t)s->G * sizeof *s->ghost);
    memset(s->W + n, 0, (size_t)s->G * sizeof *s->W);
}

/* ---------------------------------------------------------------- geometry */

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void sub3(const double *a, const double *b, double *o) { o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2]; }
static void cross3(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}
static double clamp01(double x) { return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

static double point_triangle_dist2(const double *p, const double *a, const double *b, const double *c)
{
    double ab[3], ac[3], ap[3], bp[3], cp[3], q[3];
    sub3(b, a, ab), sub3(c, a, ac), sub3(p, a, ap);
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return dot3(ap, ap);
    sub3(p, b, bp);
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return dot3(bp, bp);
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double f = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + ab[k] * f - p[k];
        return dot3(q, q);
    }
    sub3(p, c, cp);
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return dot3(cp, cp);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double f = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + ac[k] * f - p[k];
        return dot3(q, q);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        double f = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + (c[k] - b[k]) * f - p[k];
        return dot3(q, q);
    }
    double den = 1.0 / (va + vb + vc);
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + ab[k] * (vb * den) + ac[k] * (vc * den) - p[k];
    return dot3(q, q);
}

static double segment_dist2(const double *p1, const double *q1, const double *p2, const double *q2)
{
    double d1[3], d2[3], r[3], q[3];
    sub3(q1, p1, d1), sub3(q2, p2, d2), sub3(p1, p2, r);
    double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r), s = 0, t = 0;
    if (a <= 1e-20 && e <= 1e-20)
        return dot3(r, r);
    if (a <= 1e-20) {
        t = clamp01(f / e);
    } else {
        double c = dot3(d1, r);
        if (e <= 1e-20) {
            s = clamp01(-c / a);
        } else {
            double b = dot3(d1, d2), den = a * e - b * b;
            s = den > 0 ? clamp01((b * f - c * e) / den) : 0;
            t = (b * s + f) / e;
            if (t < 0) {
                t = 0;
                s = clamp01(-c / a);
            } else if (t > 1) {
                t = 1;
                s = clamp01((b - c) / a);
            }
        }
    }
    for (int k = 0; k < 3; k++)
        q[k] = p1[k] + d1[k] * s - (p2[k] + d2[k] * t);
    return dot3(q, q);
}

/* Where the lines of edges (x0, x1) and (x2, x3) come nearest (s, t); 0 when
 * near parallel. As edge_params() in selfcol_kernels.glsl. */
static int edge_params(const double *x0, const double *x1, const double *x2, const double *x3, double *sp, double *t)
{
    double ea[3], eb[3], r[3];
    sub3(x1, x0, ea), sub3(x3, x2, eb), sub3(x0, x2, r);
    double a = dot3(ea, ea), b = dot3(ea, eb), c = dot3(eb, eb), dd = dot3(ea, r), e = dot3(eb, r);
    double den = a * c - b * b;
    *sp = *t = 0;
    if (!(den > 1e-6 * a * c))
        return 0;
    *sp = (b * e - c * dd) / den;
    *t = (a * e - b * dd) / den;
    return 1;
}

/* Barycentrics of x's projection on (x1, x2, x3), the unit normal, x's height
 * along it; 0 for no area. As triangle_coords(). */
static int triangle_coords(const double *x, const double *x1, const double *x2, const double *x3, double bary[3],
                           double n[3], double *h)
{
    double e0[3], e1[3], r[3];
    sub3(x2, x1, e0), sub3(x3, x1, e1), sub3(x, x1, r);
    cross3(e0, e1, n);
    double area2 = dot3(n, n);
    if (!(area2 > 0))
        return 0;
    double l = sqrt(area2);
    for (int k = 0; k < 3; k++)
        n[k] /= l;
    *h = dot3(r, n);
    double d00 = dot3(e0, e0), d01 = dot3(e0, e1), d11 = dot3(e1, e1), d20 = dot3(r, e0), d21 = dot3(r, e1);
    double den = d00 * d11 - d01 * d01;
    bary[1] = (d11 * d20 - d01 * d21) / den;
    bary[2] = (d00 * d21 - d01 * d20) / den;
    bary[0] = 1 - bary[1] - bary[2];
    return 1;
}

/* ---------------------------------------------------------------- broad phase */

static int candidate(const selfcol_ref *s, const double *prev, uint32_t a, uint32_t b, uint32_t *side, double *dist2)
{
    *dist2 = 0;
    uint32_t pa[3], pb[3], ma = particles_of(s, a, pa), mb = particles_of(s, b, pb);
    *side = 0;
    for (uint32_t i = 0; i < ma; i++)
        for (uint32_t j = 0; j < mb; j++)
            if (pa[i] == pb[j])
                return 0;
    const double *ba = &s->box[6 * a], *bb = &s->box[6 * b];
    for (int k = 0; k < 3; k++)
        if (ba[k] > bb[3 + k] || bb[k] > ba[3 + k])
            return 0;
    double dd[3];
    sub3(&s->mean[3 * a], &s->mean[3 * b], dd);
    double reach = SINEW_SELF_REACH * s->thickness + s->spread[a] + s->spread[b] + sqrt(dot3(dd, dd)), n[3], e0[3], e1[3], r[3];
    if (ma == 2) {
        const double *a0 = &prev[3 * pa[0]], *a1 = &prev[3 * pa[1]], *b0 = &prev[3 * pb[0]], *b1 = &prev[3 * pb[1]];
        *dist2 = segment_dist2(a0, a1, b0, b1);
        if (*dist2 >= reach * reach)
            return 0;
        const double *R = s->rest;
        if (b < s->I && segment_dist2(&R[3 * pa[0]], &R[3 * pa[1]], &R[3 * pb[0]], &R[3 * pb[1]]) < s->thickness * s->thickness)
            return 0;
        double sp, t;
        int facing = edge_params(a0, a1, b0, b1, &sp, &t) && sp >= 0 && sp <= 1 && t >= 0 && t <= 1;
        sub3(a1, a0, e0), sub3(b1, b0, e1), sub3(a0, b0, r), cross3(e0, e1, n);
        *side = !facing ? SINEW_SELF_SIDE_FREE : dot3(r, n) < 0 ? SINEW_SELF_SIDE_BELOW : SINEW_SELF_SIDE_ABOVE;
        return 1;
    }
    uint32_t v = ma == 1 ? pa[0] : pb[0];
    const uint32_t *t = ma == 1 ? pb : pa;
    const double *xv = &prev[3 * v], *t0 = &prev[3 * t[0]], *t1 = &prev[3 * t[1]], *t2 = &prev[3 * t[2]];
    *dist2 = point_triangle_dist2(xv, t0, t1, t2);
    if (*dist2 >= reach * reach)
        return 0;
    const double *R = s->rest;
    if (b < s->I && point_triangle_dist2(&R[3 * v], &R[3 * t[0]], &R[3 * t[1]], &R[3 * t[2]]) < s->thickness * s->thickness)
        return 0;
    double bary[3], h;
    int facing = triangle_coords(xv, t0, t1, t2, bary, n, &h) && bary[0] >= -SINEW_SELF_BARY_SLACK && bary[1] >= -SINEW_SELF_BARY_SLACK && bary[2] >= -SINEW_SELF_BARY_SLACK;
    (void)e0, (void)e1, (void)r;
    *side = !facing ? SINEW_SELF_SIDE_FREE : h < 0 ? SINEW_SELF_SIDE_BELOW : SINEW_SELF_SIDE_ABOVE;
    return 1;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* A cell and kind as one sortable key (cells within +-2^19). */
static uint64_t cell_key(const int64_t c[3], uint32_t kind)
{
    return ((uint64_t)(c[0] + (1 << 19)) & 0xFFFFF) << 42 | ((uint64_t)(c[1] + (1 << 19)) & 0xFFFFF) << 22 |
           ((uint64_t)(c[2] + (1 << 19)) & 0xFFFFF) << 2 | kind;
}

void selfcol_ref_build(selfcol_ref *s, const double *prev_own, const double *x_own, const double *w_own)
{
    combine(s, prev_own, x_own, w_own);
    const double *prev = s->P, *x = s->X, *w = s->W;
    const uint32_t all = s->I + s->GI;
    double *sweep = malloc(sizeof *sweep * (3 * ((size_t)s->n + s->G) + 1));
    for (uint32_t i = 0; i < 3 * (s->n + s->G); i++)
        sweep[i] = w[i / 3] != 0.0 ? x[i] - prev[i] : 0.0;
    /* the common sweep: the free particles' mean */
    double common[3] = {0, 0, 0}, free_count = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (w[i] != 0.0) {
            for (int k = 0; k < 3; k++)
                common[k] += sweep[3 * i + k];
            free_count += 1;
        }
    for (int k = 0; k < 3 && free_count > 0; k++)
        common[k] /= free_count;
    double cell = 0;
    for (uint32_t it = 0; it < all; it++) {
        uint32_t p[3], m = particles_of(s, it, p);
        double *mean = &s->mean[3 * it], *b = &s->box[6 * it];
        for (int k = 0; k < 3; k++) {
            mean[k] = 0;
            for (uint32_t j = 0; j < m; j++)
                mean[k] += sweep[3 * p[j] + k] / m;
        }
        double spread = 0;
        for (uint32_t j = 0; j < m; j++) {
            double e[3];
            sub3(&sweep[3 * p[j]], mean, e);
            spread = fmax(spread, sqrt(dot3(e, e)));
        }
        s->spread[it] = spread;
        for (int k = 0; k < 3; k++) {
            b[k] = INFINITY, b[3 + k] = -INFINITY;
            for (uint32_t j = 0; j < m; j++) {
                double x0 = prev[3 * p[j] + k], x1 = x0 + (sweep[3 * p[j] + k] - common[k]);
                b[k] = fmin(b[k], fmin(x0, x1));
                b[3 + k] = fmax(b[3 + k], fmax(x0, x1));
            }
            b[k] -= 0.5 * SINEW_SELF_REACH * s->thickness;
            b[3 + k] += 0.5 * SINEW_SELF_REACH * s->thickness;
            cell = fmax(cell, b[3 + k] - b[k]);
        }
        /* as the device: an item over more than SINEW_SELF_MAX_CELLS cells of
         * its hash goes in none, and is dropped */
        double cells = 1;
        for (int k = 0; k < 3; k++) {
            double span = floor(b[3 + k] / s->hash_cell) - floor(b[k] / s->hash_cell) + 1;
            cells *= span > SINEW_SELF_MAX_CELLS ? 1e30 : span;
        }
        s->too_big[it] = cells > SINEW_SELF_MAX_CELLS;
    }
    /* (cell key, item) pairs sorted: each cell's items of a kind together;
     * the others' items, and the body's own when its own pairs collide */
    uint64_t *pair = malloc(sizeof *pair * 2 * (all ? all : 1));
    uint32_t hashed = 0;
    for (uint32_t it = s->own ? 0 : s->I; it < all; it++) {
        const double *b = &s->box[6 * it];
        int64_t c[3];
        for (int k = 0; k < 3; k++)
            c[k] = (int64_t)floor(0.5 * (b[k] + b[3 + k]) / cell);
        pair[2 * hashed] = cell_key(c, kind_of(s, it));
        pair[2 * hashed + 1] = it;
        hashed++;
    }
    qsort(pair, hashed, 2 * sizeof *pair, cmp_u64);
    for (uint32_t it = 0; it < s->I; it++) {
        uint32_t want = kind_of(s, it) == 0 ? 1 : kind_of(s, it) == 1 ? 0 : 2;
        const double *b = &s->box[6 * it];
        int64_t c[3];
        for (int k = 0; k < 3; k++)
            c[k] = (int64_t)floor(0.5 * (b[k] + b[3 + k]) / cell);
        uint32_t *list = &s->list[(size_t)it * s->K], n = 0;
        double keys[SINEW_SELF_MAX_CAPACITY];
        uint64_t found = 0;
        for (int q = 0; q < 27 && !s->too_big[it]; q++) {
            int64_t o[3] = {c[0] + q % 3 - 1, c[1] + (q / 3) % 3 - 1, c[2] + q / 9 - 1};
            uint64_t key = cell_key(o, want);
            /* first pair with this key */
            size_t lo = 0, hi = hashed;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (pair[2 * mid] < key)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t j = lo; j < hashed && pair[2 * j] == key; j++) {
                uint32_t other = (uint32_t)pair[2 * j + 1], side;
                double dist2;
                if (other == it || s->too_big[other] || !candidate(s, prev, it, other, &side, &dist2))
                    continue;
                found++;
                /* nearest first, by (distance, item) */
                if (n == s->K && (dist2 > keys[s->K - 1] ||
                                  (dist2 == keys[s->K - 1] && other > (list[s->K - 1] & SINEW_SELF_ITEM_MASK))))
                    continue;
                uint32_t at = n < s->K ? n : s->K - 1;
                while (at > 0 && (keys[at - 1] > dist2 || (keys[at - 1] == dist2 && (list[at - 1] & SINEW_SELF_ITEM_MASK) > other))) {
                    list[at] = list[at - 1];
                    keys[at] = keys[at - 1];
                    at--;
                }
                list[at] = other | side << SINEW_SELF_SIDE_SHIFT;
                keys[at] = dist2;
                n = n + 1 < s->K ? n + 1 : s->K;
            }
        }
        s->count[it] = n;
        s->candidates += n;
        s->dropped += found - n + s->too_big[it];
    }
    free(pair);
    free(sweep);
}

/* ---------------------------------------------------------------- contacts */

/* As contact() in selfcol_kernels.glsl. */
static int contact(const selfcol_ref *s, const uint32_t p[4], int edges, uint32_t side, const double *prev,
                   const double *x, const double *w, double dx[4][3])
{
    memset(dx, 0, 12 * sizeof(double));
    const double *X[4], *X0[4];
    double W4[4], g[4], n[3], d;
    for (int j = 0; j < 4; j++)
        X[j] = &x[3 * p[j]], X0[j] = &prev[3 * p[j]], W4[j] = w[p[j]];
    const int free_side = side == SINEW_SELF_SIDE_FREE;
    if (edges) {
        double sp, t, ea[3], eb[3], sa[3], sb[3], ns[3], r[3];
        if (!edge_params(X[0], X[1], X[2], X[3], &sp, &t) || sp < 0 || sp > 1 || t < 0 || t > 1)
            return 0;
        sub3(X[1], X[0], ea), sub3(X[3], X[2], eb), sub3(X[0], X[2], r);
        sub3(X0[1], X0[0], sa), sub3(X0[3], X0[2], sb);
        cross3(sa, sb, ns);
        cross3(ea, eb, n);
        double l = sqrt(dot3(n, n));
        if (dot3(n, ns) < 0)
            l = -l; /* the orientation of the substep's start */
        for (int k = 0; k < 3; k++)
            n[k] /= l;
        d = dot3(r, n);
        g[0] = 1 - sp, g[1] = sp, g[2] = -(1 - t), g[3] = -t;
    } else {
        double bary[3];
        if (!triangle_coords(X[0], X[1], X[2], X[3], bary, n, &d) ||
            !(bary[0] >= -SINEW_SELF_BARY_SLACK && bary[1] >= -SINEW_SELF_BARY_SLACK && bary[2] >= -SINEW_SELF_BARY_SLACK))
            return 0;
        g[0] = 1, g[1] = -bary[0], g[2] = -bary[1], g[3] = -bary[2];
    }
    if (free_side)
        side = d < 0 ? SINEW_SELF_SIDE_BELOW : SINEW_SELF_SIDE_ABOVE;
    if (side == SINEW_SELF_SIDE_BELOW) {
        for (int k = 0; k < 3; k++)
            n[k] = -n[k];
        d = -d;
    }
    double C = d - s->thickness;
    if (!(C < 0))
        return 0;
    double Wt = 0;
    for (int j = 0; j < 4; j++)
        Wt += W4[j] * g[j] * g[j];
    if (!(Wt > 0))
        return 0;
    double dl = -C / Wt, rel[3] = {0, 0, 0};
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            rel[k] += g[j] * (X[j][k] - X0[j][k]);
    double rn = dot3(rel, n), tan[3];
    for (int k = 0; k < 3; k++)
        tan[k] = rel[k] - n[k] * rn;
    double lt = sqrt(dot3(tan, tan)), limit = s->friction * -C, f = lt <= limit ? 1.0 : limit / lt;
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            dx[j][k] = W4[j] * g[j] * (n[k] * dl - tan[k] * f / Wt);
    return 1;
}

void selfcol_ref_project(selfcol_ref *s, const double *prev_own, double *x, const double *w_own)
{
    combine(s, prev_own, x, w_own);
    const double *prev = s->P, *X = s->X, *w = s->W;
    const uint32_t V = s->V, T = s->T;
    for (uint32_t k = 0; k < s->I; k++) {
        uint32_t pk[3], kind = kind_of(s, k);
        particles_of(s, k, pk);
        double acc[3][4] = {{0}};
        for (uint32_t j = 0; j < s->count[k]; j++) {
            uint32_t entry = s->list[(size_t)k * s->K + j], other = entry & SINEW_SELF_ITEM_MASK, side = entry >> SINEW_SELF_SIDE_SHIFT, po[3];
            particles_of(s, other, po);
            double dx[4][3];
            if (kind == 0) {
                uint32_t p[4] = {pk[0], po[0], po[1], po[2]};
                if (contact(s, p, 0, side, prev, X, w, dx)) {
                    for (int q = 0; q < 3; q++)
                        acc[0][q] += dx[0][q];
                    acc[0][3] += 1;
                    s->contacts++;
                }
            } else if (kind == 1) {
                uint32_t p[4] = {po[0], pk[0], pk[1], pk[2]};
                if (contact(s, p, 0, side, prev, X, w, dx))
                    for (int c = 0; c < 3; c++) {
                        for (int q = 0; q < 3; q++)
                            acc[c][q] += dx[c + 1][q];
                        acc[c][3] += 1;
                    }
            } else {
                uint32_t p[4] = {pk[0], pk[1], po[0], po[1]};
                if (contact(s, p, 1, side, prev, X, w, dx)) {
                    for (int c = 0; c < 2; c++) {
                        for (int q = 0; q < 3; q++)
                            acc[c][q] += dx[c][q];
                        acc[c][3] += 1;
                    }
                    s->contacts += other > k;
                }
            }
        }
        uint32_t slot0 = kind == 0 ? k : kind == 1 ? V + 3 * (k - V) : V + 3 * T + 2 * (k - V - T);
        uint32_t m = kind == 0 ? 1 : kind == 1 ? 3 : 2;
        for (uint32_t c = 0; c < m; c++)
            memcpy(&s->delta[4 * (size_t)(slot0 + c)], acc[c], sizeof acc[c]);
    }
    for (uint32_t i = 0; i < s->n; i++) {
        if (w[i] == 0.0)
            continue;
        double sum[4] = {0, 0, 0, 0};
        for (uint32_t k = s->inc_start[i]; k < s->inc_start[i + 1]; k++)
            for (int q = 0; q < 4; q++)
                sum[q] += s->delta[4 * (size_t)s->inc[k] + q];
        if (sum[3] > 0)
            for (int q = 0; q < 3; q++)
                x[3 * i + q] += sum[q] / sum[3];
    }
}

void selfcol_ref_reset_counts(selfcol_ref *s) { s->candidates = s->dropped = s->contacts = 0; }

void selfcol_ref_counts(const selfcol_ref *s, uint64_t *candidates, uint64_t *dropped, uint64_t *contacts)
{
    *candidates = s->candidates, *dropped = s->dropped, *contacts = s->contacts;
}

uint32_t selfcol_ref_list(const selfcol_ref *s, uint32_t k, const uint32_t **entries)
{
    *entries = &s->list[(size_t)k * s->K];
    return s->count[k];
}
