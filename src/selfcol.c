/* Self-collision: the surface's numbering, the buffers' layout and the
 * recorded dispatches (selfcol.h; docs/self-collision.md). */
#include "selfcol.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "shared/selfcol.h"

static int pbd_family(sinew_solver s)
{
    return s == SINEW_SOLVER_XPBD_GAUSS_SEIDEL || s == SINEW_SOLVER_XPBD_JACOBI ||
           s == SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL || s == SINEW_SOLVER_GPBD_GAUSS_SEIDEL ||
           s == SINEW_SOLVER_GPBD_JACOBI || s == SINEW_SOLVER_HPBD;
}

sinew_result sinew_selfcol_check(const sinew_context *ctx, uint32_t triangle_count, const sinew_body_desc *d,
                                 int always, const char *what)
{
    const sinew_logger *lg = &ctx->logger;
    if (!d->self_collision && !always)
        return SINEW_RESULT_OK;
    if (!always)
        what = "self-collision";
    if (!pbd_family(d->solver))
        return sinew_fail(lg, SINEW_RESULT_ERROR_UNSUPPORTED, "body",
                          "%s is not available with the %s solver (%s): only the position-based ones "
                          "(xpbd-gs, xpbd-jacobi, xpbd-sgs, gpbd-gs, gpbd-jacobi, hpbd) project its contacts",
                          what, sinew_solver_name(d->solver), sinew_solver_label(d->solver));
    if (triangle_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "%s needs surface triangles; the asset has none",
                          what);
    if (!(isfinite(d->self_thickness) && d->self_thickness > 0.0f))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "self_thickness %g is not finite and > 0 (m)", d->self_thickness);
    if (!(isfinite(d->self_friction) && d->self_friction >= 0.0f))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "self_friction %g is not finite and >= 0",
                          d->self_friction);
    if (d->self_capacity < 1 || d->self_capacity > SINEW_SELF_MAX_CAPACITY)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "self_capacity %u is not in 1..%u",
                          d->self_capacity, SINEW_SELF_MAX_CAPACITY);
    return SINEW_RESULT_OK;
}

static int cmp_pair(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : a[1] > b[1]);
}

int sinew_selfcol_surface(const sinew_surface *a, uint32_t **verts, uint32_t *vertex_count, uint32_t **edges,
                          uint32_t *edge_count)
{
    const uint32_t n = a->particle_count, t = a->triangle_count;
    uint8_t *on = calloc(n ? n : 1, 1);
    uint32_t *v = malloc(sizeof *v * (n ? n : 1));
    uint32_t *e = malloc(sizeof *e * 6 * (size_t)(t ? t : 1));
    if (!on || !v || !e) {
        free(on), free(v), free(e);
        return 0;
    }
    for (uint32_t k = 0; k < t; k++)
        for (int c = 0; c < 3; c++) {
            uint32_t p = a->triangles[k].v[c], q = a->triangles[k].v[(c + 1) % 3];
            on[p] = 1;
            e[6 * k + 2 * c] = p < q ? p : q;
            e[6 * k + 2 * c + 1] = p < q ? q : p;
        }
    uint32_t nv = 0;
    for (uint32_t i = 0; i < n; i++)
        if (on[i])
            v[nv++] = i;
    qsort(e, 3 * (size_t)t, 2 * sizeof *e, cmp_pair);
    uint32_t ne = 0;
    for (uint32_t k = 0; k < 3 * t; k++)
        if (ne == 0 || e[2 * k] != e[2 * (ne - 1)] || e[2 * k + 1] != e[2 * (ne - 1) + 1]) {
            e[2 * ne] = e[2 * k];
            e[2 * ne + 1] = e[2 * k + 1];
            ne++;
        }
    free(on);
    *verts = v, *vertex_count = nv, *edges = e, *edge_count = ne;
    return 1;
}

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return a < b ? -1 : a > b;
}

/* The 90th percentile of a surface's triangles' extents; -1 when out of
 * memory. */
static float extent_p90(const sinew_surface *a)
{
    const uint32_t t = a->triangle_count;
    float *ext = malloc(sizeof *ext * (t ? t : 1));
    if (!ext)
        return -1.0f;
    for (uint32_t k = 0; k < t; k++) {
        float lo[3], hi[3];
        for (int c = 0; c < 3; c++) {
            const float *x = &a->particles[a->triangles[k].v[c]].x;
            for (int q = 0; q < 3; q++) {
                lo[q] = c == 0 || x[q] < lo[q] ? x[q] : lo[q];
                hi[q] = c == 0 || x[q] > hi[q] ? x[q] : hi[q];
            }
        }
        ext[k] = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    }
    qsort(ext, t, sizeof *ext, cmp_float);
    float cell = t ? ext[(uint32_t)(0.9 * (t - 1))] : 0.0f;
    free(ext);
    return cell;
}

float sinew_selfcol_cell_size(const sinew_surface *own, const sinew_surface *others, uint32_t other_count,
                              float thickness)
{
    float cell = extent_p90(own);
    for (uint32_t k = 0; k < other_count && cell >= 0.0f; k++) {
        float c = extent_p90(&others[k]);
        cell = c < 0.0f ? c : fmaxf(cell, c);
    }
    return cell < 0.0f ? 0.0f : cell + (float)SINEW_SELF_REACH * thickness;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The other bodies' surfaces as one, their particles numbered from n: the
 * vertices, triangles and edges of each body after those of the one before. */
typedef struct ghosts {
    uint32_t *verts, *tris, *edges;
    uint32_t nv, nt, ne, particles;
} ghosts;

static int gather_ghosts(const sinew_surface *others, uint32_t count, uint32_t n, ghosts *g)
{
    memset(g, 0, sizeof *g);
    uint64_t nv = 0, nt = 0, ne = 0, np = 0;
    for (uint32_t k = 0; k < count; k++) {
        nv += others[k].particle_count;
        nt += others[k].triangle_count;
        ne += 3ull * others[k].triangle_count;
        np += others[k].particle_count;
    }
    if (np + n >= (1u << 30) || nt >= (1u << 28))
        return -1;
    g->verts = malloc(4 * (nv ? nv : 1));
    g->tris = malloc(12 * (nt ? nt : 1));
    g->edges = malloc(8 * (ne ? ne : 1));
    if (!g->verts || !g->tris || !g->edges)
        return 0;
    uint32_t base = n;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t *v = NULL, *e = NULL, cv = 0, ce = 0;
        if (!sinew_selfcol_surface(&others[k], &v, &cv, &e, &ce))
            return 0;
        for (uint32_t i = 0; i < cv; i++)
            g->verts[g->nv++] = base + v[i];
        for (uint32_t t = 0; t < others[k].triangle_count; t++)
            for (int c = 0; c < 3; c++)
                g->tris[3 * g->nt + 3 * t + c] = base + others[k].triangles[t].v[c];
        g->nt += others[k].triangle_count;
        for (uint32_t i = 0; i < 2 * ce; i++)
            g->edges[2 * g->ne + i] = base + e[i];
        g->ne += ce;
        base += others[k].particle_count;
        free(v), free(e);
    }
    g->particles = base - n;
    return 1;
}

static void free_ghosts(ghosts *g) { free(g->verts), free(g->tris), free(g->edges); }

sinew_result sinew_selfcol_plan(const sinew_context *ctx, const sinew_surface *a, const sinew_body_desc *d,
                                const sinew_surface *others, uint32_t other_count,
                                const sinew_selfcol_bodies *bodies, sinew_selfcol *s)
{
    const sinew_logger *lg = &ctx->logger;
    memset(s, 0, sizeof *s);
    uint32_t *verts = NULL, *edges = NULL, nv = 0, ne = 0;
    ghosts g;
    int got = gather_ghosts(others, other_count, a->particle_count, &g);
    if (got < 0) {
        free_ghosts(&g);
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "body", "the other bodies' surfaces are past 2^28 triangles");
    }
    if (!got || !sinew_selfcol_surface(a, &verts, &nv, &edges, &ne)) {
        free_ghosts(&g);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    const uint32_t n = a->particle_count, nt = a->triangle_count, K = d->self_capacity;
    const uint64_t own_items = (uint64_t)nv + nt + ne, other_items = (uint64_t)g.nv + g.nt + g.ne;
    const uint64_t items = own_items + other_items;
    uint64_t H = 64;
    while (H < 2 * items)
        H *= 2;
    const uint64_t room = (uint64_t)SINEW_SELF_ENTRIES_PER_ITEM * items;
    const float cell = sinew_selfcol_cell_size(a, others, other_count, d->self_thickness);
    sinew_result r = SINEW_RESULT_OK;
    const uint64_t slots = (uint64_t)nv + 3ull * nt + 2ull * ne;
    const uint64_t list_words = own_items * K;
    if (!(cell > 0.0f))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    else if (items >= (1u << 27) || list_words > UINT32_MAX / 2)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "body",
                       "collision of %llu surface items with %u candidates each is past 2^31 words",
                       (unsigned long long)items, K);
    /* the fixed part first, then the per-substep arrays */
    uint64_t at = SINEW_SELF_HEADER;
    uint64_t o_verts = at;   at += nv;
    uint64_t o_tris = at;    at += 3ull * nt;
    uint64_t o_edges = at;   at += 2ull * ne;
    uint64_t o_gverts = at;  at += g.nv;
    uint64_t o_gtris = at;   at += 3ull * g.nt;
    uint64_t o_gedges = at;  at += 2ull * g.ne;
    uint64_t o_start = at;   at += n + 1ull;
    uint64_t o_inc = at;     at += slots;
    SINEW_ASSERT(!bodies || bodies->particle_count == (uint64_t)n + g.particles);
    uint64_t o_body = bodies ? at : 0; at += bodies ? bodies->particle_count : 0;
    uint64_t o_filter = bodies ? at : 0; at += bodies ? 3ull * bodies->body_count : 0;
    const uint64_t fixed = at;
    uint64_t o_table = at;   at += H;
    uint64_t o_items = at;   at += room;
    uint64_t o_keys = at;    at += room;
    uint64_t o_count = at;   at += own_items;
    uint64_t o_list = at;    at += list_words;
    if (r == SINEW_RESULT_OK && at > UINT32_MAX)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "body", "collision needs %llu words of indices",
                       (unsigned long long)at);
    uint32_t *img = r == SINEW_RESULT_OK ? calloc(fixed, sizeof *img) : NULL;
    uint32_t *fill = r == SINEW_RESULT_OK ? calloc(n + 1ull, sizeof *fill) : NULL;
    if (r == SINEW_RESULT_OK && (!img || !fill))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    if (r != SINEW_RESULT_OK) {
        free(verts), free(edges), free(img), free(fill), free_ghosts(&g);
        return r;
    }
    const uint64_t groups = (n + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    const uint64_t o_partial = SINEW_SELF_ITEM_VEC4S * items, o_rest = o_partial + groups, o_delta = o_rest + n;
    const uint64_t o_ghost = o_delta + slots;
    img[SINEW_SELF_V] = nv;
    img[SINEW_SELF_T] = nt;
    img[SINEW_SELF_E] = ne;
    img[SINEW_SELF_K] = K;
    img[SINEW_SELF_H] = (uint32_t)H;
    img[SINEW_SELF_N] = n;
    img[SINEW_SELF_THICKNESS] = float_bits(d->self_thickness);
    img[SINEW_SELF_FRICTION] = float_bits(d->self_friction);
    img[SINEW_SELF_CELL] = float_bits(cell);
    img[SINEW_SELF_ENTRIES] = (uint32_t)room;
    img[SINEW_SELF_VERTS] = (uint32_t)o_verts;
    img[SINEW_SELF_TRIS] = (uint32_t)o_tris;
    img[SINEW_SELF_EDGES] = (uint32_t)o_edges;
    img[SINEW_SELF_TABLE] = (uint32_t)o_table;
    img[SINEW_SELF_ITEMS] = (uint32_t)o_items;
    img[SINEW_SELF_KEYS] = (uint32_t)o_keys;
    img[SINEW_SELF_COUNT] = (uint32_t)o_count;
    img[SINEW_SELF_LIST] = (uint32_t)o_list;
    img[SINEW_SELF_INC_START] = (uint32_t)o_start;
    img[SINEW_SELF_INC] = (uint32_t)o_inc;
    img[SINEW_SELF_REAL_PARTIAL] = (uint32_t)o_partial;
    img[SINEW_SELF_REAL_REST] = (uint32_t)o_rest;
    img[SINEW_SELF_REAL_DELTA] = (uint32_t)o_delta;
    img[SINEW_SELF_OWN] = d->self_collision ? 1u : 0u;
    img[SINEW_SELF_GV] = g.nv;
    img[SINEW_SELF_GT] = g.nt;
    img[SINEW_SELF_GE] = g.ne;
    img[SINEW_SELF_GVERTS] = (uint32_t)o_gverts;
    img[SINEW_SELF_GTRIS] = (uint32_t)o_gtris;
    img[SINEW_SELF_GEDGES] = (uint32_t)o_gedges;
    img[SINEW_SELF_REAL_GHOST] = (uint32_t)o_ghost;
    img[SINEW_SELF_GN] = g.particles;
    img[SINEW_SELF_BODY] = (uint32_t)o_body;
    img[SINEW_SELF_FILTER] = (uint32_t)o_filter;
    if (bodies) {
        memcpy(img + o_body, bodies->body_of, 4ull * bodies->particle_count);
        memcpy(img + o_filter, bodies->filter, 12ull * bodies->body_count);
    }
    memcpy(img + o_verts, verts, 4ull * nv);
    for (uint32_t k = 0; k < nt; k++)
        memcpy(img + o_tris + 3ull * k, a->triangles[k].v, 12);
    memcpy(img + o_edges, edges, 8ull * ne);
    memcpy(img + o_gverts, g.verts, 4ull * g.nv);
    memcpy(img + o_gtris, g.tris, 12ull * g.nt);
    memcpy(img + o_gedges, g.edges, 8ull * g.ne);
    /* each particle's slots: its vertex, its triangles' corners, its edges'
     * ends, in that order */
    uint32_t *start = img + o_start, *inc = img + o_inc;
    for (uint32_t k = 0; k < nv; k++)
        start[verts[k] + 1]++;
    for (uint32_t k = 0; k < nt; k++)
        for (int c = 0; c < 3; c++)
            start[a->triangles[k].v[c] + 1]++;
    for (uint32_t k = 0; k < 2 * ne; k++)
        start[edges[k] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (uint32_t i = 0; i < n; i++)
        fill[i] = start[i];
    for (uint32_t k = 0; k < nv; k++)
        inc[fill[verts[k]]++] = k;
    for (uint32_t k = 0; k < nt; k++)
        for (uint32_t c = 0; c < 3; c++)
            inc[fill[a->triangles[k].v[c]]++] = nv + 3 * k + c;
    for (uint32_t k = 0; k < ne; k++)
        for (uint32_t j = 0; j < 2; j++)
            inc[fill[edges[2 * k + j]]++] = nv + 3 * nt + 2 * k + j;
    free(fill), free(verts), free(edges), free_ghosts(&g);
    s->vertices = nv, s->triangles = nt, s->edges = ne;
    s->other_items = (uint32_t)other_items;
    s->capacity = K;
    s->table = (uint32_t)H;
    s->particles = n;
    s->index_words = at;
    s->ghost_offset = o_ghost;
    s->real_vec4s = o_ghost + g.particles;
    s->rest_offset = o_rest;
    s->image = img;
    s->image_words = fixed;
    return SINEW_RESULT_OK;
}

sinew_result sinew_selfcol_upload(sinew_context *ctx, sinew_selfcol *s, const sinew_surface *a, sinew_buffer *index,
                                  sinew_buffer *real)
{
    sinew_result r = sinew_buffer_upload(ctx, index, 0, s->image, 4 * s->image_words);
    free(s->image);
    s->image = NULL;
    float *rest = r == SINEW_RESULT_OK ? calloc(4 * (size_t)s->particles + 4, sizeof *rest) : NULL;
    if (r == SINEW_RESULT_OK && !rest)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    for (uint32_t i = 0; rest && i < s->particles; i++)
        memcpy(&rest[4 * i], &a->particles[i].x, 12);
    if (rest)
        r = sinew_buffer_upload(ctx, real, 16 * s->rest_offset, rest, 16ull * s->particles);
    free(rest);
    return r;
}

void sinew_selfcol_free(sinew_selfcol *s)
{
    free(s->image);
    s->image = NULL;
}

static void dispatch(sinew_recorder *r, uint32_t mode, uint32_t threads)
{
    GpuRange push = {0, threads, mode};
    sinew_kernel kernel = mode == SINEW_SELF_QUERY     ? SINEW_KERNEL_SELF_QUERY
                          : mode == SINEW_SELF_PROJECT ? SINEW_KERNEL_SELF_PROJECT
                                                       : SINEW_KERNEL_SELF_BUILD;
    sinew_record_dispatch(r, kernel, threads, &push, sizeof push);
    sinew_record_barrier(r);
}

void sinew_selfcol_record_build(const sinew_selfcol *s, sinew_recorder *r)
{
    const uint32_t items = s->vertices + s->triangles + s->edges, all = items + s->other_items;
    dispatch(r, SINEW_SELF_SWEEP, s->particles > s->table ? s->particles : s->table);
    dispatch(r, SINEW_SELF_COMMON_SWEEP, SINEW_WORKGROUP_SIZE);
    dispatch(r, SINEW_SELF_BOUNDS, all);
    dispatch(r, SINEW_SELF_COUNT_ITEMS, all);
    dispatch(r, SINEW_SELF_SCAN, SINEW_WORKGROUP_SIZE);
    dispatch(r, SINEW_SELF_SCATTER, all);
    dispatch(r, SINEW_SELF_QUERY, items);
    /* as designed: bounds reads 2 positions a particle of each item and
     * writes its box, sweep and ball (64 B); count, scan, scatter move a few words an item and
     * bucket; query reads the boxes and particles of the items it meets
     * (about 27 buckets' worth, counted as 8 items) and writes its list */
    const uint64_t particle_refs = (uint64_t)s->vertices + 3ull * s->triangles + 2ull * s->edges;
    r->bytes += 32ull * particle_refs + 64ull * all + 4ull * s->table + 16ull * all + 12ull * s->table +
                12ull * all + (8ull * (32 + 48) + 4ull * s->capacity) * items;
}

void sinew_selfcol_record_project(const sinew_selfcol *s, sinew_recorder *r)
{
    const uint32_t items = s->vertices + s->triangles + s->edges;
    dispatch(r, SINEW_SELF_PROJECT, items);
    /* each candidate: its entry and 4 particles' positions and PREV (128 B);
     * each slot written once (16 B) */
    const uint64_t slots = (uint64_t)s->vertices + 3ull * s->triangles + 2ull * s->edges;
    r->bytes += (uint64_t)items * s->capacity / 4 * 132 + 16ull * slots;
}
