/* The particle hierarchy of Hierarchical PBD, built offline: Müller 2008,
 * "Hierarchical Position Based Dynamics", sections 6.1 to 6.3 (docs/math.md
 * section 4). Each step from level l to level l + 1 works on level l's edges:
 * on level 0 the asset's distance constraints of every kind, each pair of
 * particles once (with the smallest rest length where a pair repeats), on
 * coarser levels the coarse constraints made one step before.
 *
 *   1. selection (6.2): the level's particles all start coarse, each counting
 *      its neighbours as coarse ones; visited in increasing index, pinned ones
 *      (w = 0) after all others so that they tend to stay coarse, a particle
 *      turns fine when it has >= k coarse neighbours and every fine neighbour
 *      has > k; its neighbours then count one coarse neighbour less. So every
 *      fine particle keeps >= k coarse neighbours, and every connected piece
 *      keeps a coarse particle, whatever the number of pieces;
 *   2. a level that would keep more than 90 % of the one before is not added;
 *   3. parents: a fine particle's coarse neighbours, weighted 1 / (d + eps)
 *      by rest-pose distance d and normalised; eps is opt->epsilon times the
 *      mean rest length of the asset's distances. Computed as
 *      (d_min + eps) / (d + eps), which cannot overflow however small eps is,
 *      rounded to float, none below FLT_MIN, and the largest set to 1 minus
 *      the others so that the float weights sum to 1 within float rounding;
 *   4. constraints (6.3): the level's edges, then each fine particle i in
 *      increasing index collapsed into the coarse neighbour j (of the level's
 *      own adjacency, so j is a parent) nearest the mean rest position of its
 *      coarse neighbours: edge i-j goes, and each other edge i-k as it stands
 *      after the earlier collapses goes if k already touches j, and becomes
 *      k-j otherwise, of length rest(k, i) + rest(i, j). Only coarse particles
 *      keep edges. The paper has edge collapses keep a triangle mesh one, but
 *      pulling a boundary particle into an interior one can leave an edge on
 *      no triangle (a boundary particle whose two boundary neighbours both
 *      collapse into the same interior one hangs from it by a single edge);
 *      so the nearest coarse neighbour whose collapse keeps every edge on a
 *      triangle is taken, the nearest of all only where none does (pieces of
 *      a few particles, which may fold into a lone edge whatever is done).
 *      With SINEW_HIERARCHY_REST_POSE every coarse edge then takes its
 *      rest-pose length |X_a - X_b| instead, copied edges too; two coarse
 *      particles at one place keep the summed length, as a rest length must
 *      be positive;
 *   5. each coarse level's constraints are coloured (src/prep/colouring.c)
 *      and laid out colour by colour, in endpoint order within a colour.
 *
 * Lengths are summed in double and rounded to float once. Per level: a sort
 * of its edges, then the collapses, which look neighbours up by scanning
 * adjacency lists: O(edges * degree), times the degree again for the triangle
 * check of each candidate target.
 */
#include "hierarchy.h"

#include "core/log.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define ID "prep"

sinew_hierarchy_options sinew_hierarchy_options_default(void)
{
    sinew_hierarchy_options o;
    memset(&o, 0, sizeof o);
    o.k = 2;
    o.max_levels = 5;
    o.min_particles = 16;
    o.rest = SINEW_HIERARCHY_REST_POSE;
    o.epsilon = 1e-4;
    o.colouring = SINEW_COLOURING_BALANCED;
    return o;
}

/* ------------------------------------------------------------ edges */

typedef struct edge {
    uint32_t a, b; /* a < b */
    double rest;   /* m */
} edge;

static int by_endpoints(const void *pa, const void *pb)
{
    const edge *x = pa, *y = pb;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return (x->rest > y->rest) - (x->rest < y->rest);
}

/* Sorts by endpoints and keeps each pair once, with its smallest rest length. */
static uint32_t sort_unique(edge *e, uint32_t m)
{
    if (m)
        qsort(e, m, sizeof *e, by_endpoints);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m; i++)
        if (kept == 0 || e[i].a != e[kept - 1].a || e[i].b != e[kept - 1].b)
            e[kept++] = e[i];
    return kept;
}

/* ------------------------------------------------------------ a level's adjacency
 * CSR over all particles of the asset: neighbours of v are
 * nb[begin[v] .. begin[v + 1]), in increasing index when built from sorted
 * edges (those below v come from edges (u, v), which sort before (v, w)). */
typedef struct graph {
    uint32_t *begin; /* n + 1 */
    uint32_t *nb;
} graph;

static void graph_free(graph *g)
{
    free(g->begin);
    free(g->nb);
    memset(g, 0, sizeof *g);
}

static int graph_build(graph *g, uint32_t n, const edge *e, uint32_t m)
{
    g->begin = calloc((size_t)n + 1, sizeof *g->begin);
    g->nb = malloc(sizeof *g->nb * (2 * (size_t)m + 1));
    if (!g->begin || !g->nb) {
        graph_free(g);
        return 0;
    }
    for (uint32_t i = 0; i < m; i++) {
        g->begin[e[i].a + 1]++;
        g->begin[e[i].b + 1]++;
    }
    for (uint32_t v = 0; v < n; v++)
        g->begin[v + 1] += g->begin[v];
    /* Filled through a moving cursor per particle, then shifted back. */
    for (uint32_t i = 0; i < m; i++) {
        g->nb[g->begin[e[i].a]++] = e[i].b;
        g->nb[g->begin[e[i].b]++] = e[i].a;
    }
    for (uint32_t v = n; v > 0; v--)
        g->begin[v] = g->begin[v - 1];
    g->begin[0] = 0;
    return 1;
}

/* ------------------------------------------------------------ the edges being collapsed
 * Adjacency lists that grow and shrink: each particle's list is a run of the
 * pool; a full list moves to the end of the pool with twice the room. Only
 * indices into the pool are kept, as it may move when it grows. */
typedef struct adjacent {
    double rest; /* m */
    uint32_t v;
} adjacent;

typedef struct dyn_graph {
    uint32_t n;
    adjacent *pool;
    size_t used, cap;
    size_t *start;     /* per particle */
    uint32_t *count, *room;
} dyn_graph;

static void dyn_free(dyn_graph *d)
{
    free(d->pool);
    free(d->start);
    free(d->count);
    free(d->room);
    memset(d, 0, sizeof *d);
}

/* Level l's edges, each particle's list in the room its CSR row takes. */
static int dyn_build(dyn_graph *d, uint32_t n, const graph *g, const edge *e, uint32_t m)
{
    d->n = n;
    d->cap = 2 * (size_t)m + 2 * (size_t)m / 2 + 16;
    d->used = 2 * (size_t)m;
    d->pool = malloc(sizeof *d->pool * d->cap);
    d->start = malloc(sizeof *d->start * ((size_t)n + 1));
    d->count = calloc((size_t)n + 1, sizeof *d->count);
    d->room = malloc(sizeof *d->room * ((size_t)n + 1));
    if (!d->pool || !d->start || !d->count || !d->room) {
        dyn_free(d);
        return 0;
    }
    for (uint32_t v = 0; v < n; v++) {
        d->start[v] = g->begin[v];
        d->room[v] = g->begin[v + 1] - g->begin[v];
    }
    for (uint32_t i = 0; i < m; i++) {
        d->pool[d->start[e[i].a] + d->count[e[i].a]++] = (adjacent){e[i].rest, e[i].b};
        d->pool[d->start[e[i].b] + d->count[e[i].b]++] = (adjacent){e[i].rest, e[i].a};
    }
    return 1;
}

static uint32_t dyn_find(const dyn_graph *d, uint32_t u, uint32_t v)
{
    const adjacent *list = d->pool + d->start[u];
    for (uint32_t q = 0; q < d->count[u]; q++)
        if (list[q].v == v)
            return q;
    return NONE;
}

static int dyn_linked(const dyn_graph *d, uint32_t u, uint32_t v)
{
    return d->count[u] <= d->count[v] ? dyn_find(d, u, v) != NONE : dyn_find(d, v, u) != NONE;
}

static void dyn_remove(dyn_graph *d, uint32_t u, uint32_t v)
{
    uint32_t q = dyn_find(d, u, v);
    SINEW_ASSERT(q != NONE);
    adjacent *list = d->pool + d->start[u];
    list[q] = list[--d->count[u]];
}

static int dyn_push(dyn_graph *d, uint32_t u, uint32_t v, double rest)
{
    if (d->count[u] == d->room[u]) {
        uint32_t room = d->room[u] < 4 ? 8 : 2 * d->room[u];
        if (d->used + room > d->cap) {
            size_t cap = 2 * d->cap + room;
            adjacent *pool = realloc(d->pool, sizeof *pool * cap);
            if (!pool)
                return 0;
            d->pool = pool;
            d->cap = cap;
        }
        memcpy(d->pool + d->used, d->pool + d->start[u], sizeof *d->pool * d->count[u]);
        d->start[u] = d->used;
        d->used += room;
        d->room[u] = room;
    }
    d->pool[d->start[u] + d->count[u]++] = (adjacent){rest, v};
    return 1;
}

/* Collapses fine particle i into its coarse neighbour j (section 6.3). The
 * other edges k-i are read from i's list as it stands; redirecting one adds
 * k-j, which no later k' of this collapse looks at, so the order of i's list
 * does not matter. */
static int collapse(dyn_graph *d, uint32_t i, uint32_t j)
{
    uint32_t q = dyn_find(d, i, j);
    SINEW_ASSERT(q != NONE);
    double rest_ij = d->pool[d->start[i] + q].rest;
    for (uint32_t p = 0; p < d->count[i]; p++) {
        adjacent e = d->pool[d->start[i] + p];
        if (e.v == j)
            continue;
        dyn_remove(d, e.v, i);
        double rest = e.rest + rest_ij;
        if (!dyn_linked(d, e.v, j) && !(dyn_push(d, e.v, j, rest) && dyn_push(d, j, e.v, rest)))
            return 0;
    }
    dyn_remove(d, j, i);
    d->count[i] = 0;
    return 1;
}

/* ------------------------------------------------------------ the builder */

typedef struct builder {
    const sinew_asset *a;
    const sinew_hierarchy_options *opt;
    const sinew_logger *lg;
    uint32_t n;
    double eps; /* m */
    uint32_t level_count;
    uint32_t particles[SINEW_ASSET_MAX_LEVELS];
    edge *edges[SINEW_ASSET_MAX_LEVELS]; /* each level's constraints, sorted; [0]: the asset's, unique */
    uint32_t edge_count[SINEW_ASSET_MAX_LEVELS];
    sinew_colouring colouring[SINEW_ASSET_MAX_LEVELS]; /* levels >= 1 */
    /* Per particle. */
    uint32_t *level_of;   /* the coarsest level holding it */
    uint32_t *link_begin; /* into links, in the order they were made */
    uint32_t *link_count;
    uint32_t *members;    /* the current level's particles, increasing */
    uint32_t *order;      /* the order of selection */
    uint32_t *coarse_nb;  /* coarse neighbours */
    uint8_t *fine;
    sinew_link_rec *links;
    size_t link_used, link_cap;
} builder;

static void builder_free(builder *b)
{
    for (uint32_t l = 0; l < SINEW_ASSET_MAX_LEVELS; l++) {
        free(b->edges[l]);
        sinew_colouring_free(&b->colouring[l]);
    }
    free(b->level_of);
    free(b->link_begin);
    free(b->link_count);
    free(b->members);
    free(b->order);
    free(b->coarse_nb);
    free(b->fine);
    free(b->links);
}

static sinew_result out_of_memory(const builder *b)
{
    return sinew_fail(b->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "hierarchy of %u particles: out of memory",
                      b->n);
}

static double distance(const builder *b, uint32_t u, uint32_t v)
{
    const sinew_particle_rec *p = &b->a->particles[u], *q = &b->a->particles[v];
    double dx = (double)p->x - q->x, dy = (double)p->y - q->y, dz = (double)p->z - q->z;
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static sinew_result check_input(const sinew_asset *a, const sinew_hierarchy_options *o, const sinew_logger *lg)
{
    if (o->k == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "hierarchy: k is 0; each fine particle needs k >= 1 parents");
    if (o->max_levels < 2 || o->max_levels > SINEW_ASSET_MAX_LEVELS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "hierarchy: max_levels %u is not in 2..%u (levels including level 0)", o->max_levels,
                          SINEW_ASSET_MAX_LEVELS);
    if (o->rest >= SINEW_HIERARCHY_REST_COUNT)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "hierarchy: rest-length kind %u is not rest pose (0) or geodesic (1)", o->rest);
    if (!(isfinite(o->epsilon) && o->epsilon > 0.0 && o->epsilon < 1.0))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "hierarchy: epsilon %g is not in (0, 1) (a fraction of the mean rest length)", o->epsilon);
    if (o->colouring != SINEW_COLOURING_GREEDY && o->colouring != SINEW_COLOURING_BALANCED)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "hierarchy: unknown colouring method %d",
                          (int)o->colouring);
    if (a->distance_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "hierarchy: the asset has no distance constraints to build levels from (%u particles)",
                          a->particle_count);
    for (uint32_t i = 0; i < a->distance_count; i++) {
        const sinew_distance_rec *d = &a->distances[i];
        if (d->a >= a->particle_count || d->b >= a->particle_count || d->a == d->b ||
            !(isfinite(d->rest) && d->rest > 0.0f))
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, ID,
                              "hierarchy: distance constraint %u (particles %u, %u of %u, rest %g) is malformed", i,
                              d->a, d->b, a->particle_count, (double)d->rest);
    }
    return SINEW_RESULT_OK;
}

static int builder_init(builder *b)
{
    const sinew_asset *a = b->a;
    size_t n = b->n;
    b->level_of = calloc(n, sizeof *b->level_of);
    b->link_begin = calloc(n, sizeof *b->link_begin);
    b->link_count = calloc(n, sizeof *b->link_count);
    b->members = malloc(sizeof *b->members * n);
    b->order = malloc(sizeof *b->order * n);
    b->coarse_nb = malloc(sizeof *b->coarse_nb * n);
    b->fine = calloc(n, 1);
    b->edges[0] = malloc(sizeof(edge) * a->distance_count);
    if (!b->level_of || !b->link_begin || !b->link_count || !b->members || !b->order || !b->coarse_nb || !b->fine ||
        !b->edges[0])
        return 0;
    double sum = 0.0;
    for (uint32_t i = 0; i < a->distance_count; i++) {
        const sinew_distance_rec *d = &a->distances[i];
        b->edges[0][i] = (edge){d->a < d->b ? d->a : d->b, d->a < d->b ? d->b : d->a, d->rest};
        sum += d->rest;
    }
    b->eps = b->opt->epsilon * sum / a->distance_count;
    b->edge_count[0] = sort_unique(b->edges[0], a->distance_count);
    for (uint32_t i = 0; i < b->n; i++)
        b->members[i] = i;
    b->particles[0] = b->n;
    b->level_count = 1;
    return 1;
}

/* Section 6.2 on the current level; returns how many stay coarse. */
static uint32_t select_coarse(builder *b, const graph *g, uint32_t count)
{
    const uint32_t k = b->opt->k;
    uint32_t o = 0;
    for (int pinned = 0; pinned < 2; pinned++)
        for (uint32_t i = 0; i < count; i++)
            if ((b->a->particles[b->members[i]].w == 0.0f) == pinned)
                b->order[o++] = b->members[i];
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = b->members[i];
        b->fine[v] = 0;
        b->coarse_nb[v] = g->begin[v + 1] - g->begin[v];
    }
    uint32_t fine_count = 0;
    for (uint32_t x = 0; x < count; x++) {
        uint32_t v = b->order[x];
        if (b->coarse_nb[v] < k)
            continue;
        int allowed = 1;
        for (uint32_t q = g->begin[v]; allowed && q < g->begin[v + 1]; q++)
            allowed = !b->fine[g->nb[q]] || b->coarse_nb[g->nb[q]] > k;
        if (!allowed)
            continue;
        b->fine[v] = 1;
        fine_count++;
        for (uint32_t q = g->begin[v]; q < g->begin[v + 1]; q++)
            b->coarse_nb[g->nb[q]]--;
    }
    return count - fine_count;
}

/* Parents and weights of fine particle i (section 6.2, equation 1). */
static int add_parents(builder *b, const graph *g, uint32_t i)
{
    uint32_t count = 0;
    double d_min = INFINITY;
    for (uint32_t q = g->begin[i]; q < g->begin[i + 1]; q++)
        if (!b->fine[g->nb[q]]) {
            double d = distance(b, i, g->nb[q]);
            d_min = d < d_min ? d : d_min;
            count++;
        }
    SINEW_ASSERT(count >= b->opt->k);
    if (b->link_used + count > b->link_cap) {
        size_t cap = 2 * b->link_cap + count + 64;
        sinew_link_rec *links = realloc(b->links, sizeof *links * cap);
        if (!links)
            return 0;
        b->links = links;
        b->link_cap = cap;
    }
    sinew_link_rec *out = b->links + b->link_used;
    double w[64], *weights = count <= 64 ? w : malloc(sizeof *weights * count);
    if (!weights)
        return 0;
    double sum = 0.0;
    uint32_t c = 0;
    for (uint32_t q = g->begin[i]; q < g->begin[i + 1]; q++)
        if (!b->fine[g->nb[q]]) {
            weights[c] = (d_min + b->eps) / (distance(b, i, g->nb[q]) + b->eps);
            sum += weights[c];
            out[c++].parent = g->nb[q];
        }
    uint32_t largest = 0;
    double others = 0.0;
    for (c = 0; c < count; c++) {
        float f = (float)(weights[c] / sum);
        out[c].weight = f < FLT_MIN ? FLT_MIN : f;
        largest = out[c].weight > out[largest].weight ? c : largest;
    }
    for (c = 0; c < count; c++)
        others += c == largest ? 0.0 : out[c].weight;
    float top = (float)(1.0 - others);
    out[largest].weight = top > 1.0f ? 1.0f : top;
    if (weights != w)
        free(weights);
    b->link_begin[i] = (uint32_t)b->link_used;
    b->link_count[i] = count;
    b->link_used += count;
    return 1;
}

/* Scratch of the collapses: the marks of N(i) and N(j) (stamped, so never
 * cleared) and the candidate targets of one fine particle. */
typedef struct candidate {
    double d2; /* m^2 from the mean of the coarse neighbours */
    uint32_t v;
} candidate;

typedef struct collapse_scratch {
    uint32_t *in_i, *in_j;
    uint32_t stamp;
    candidate *cand;
} collapse_scratch;

static int by_distance(const void *pa, const void *pb)
{
    const candidate *x = pa, *y = pb;
    if (x->d2 != y->d2)
        return x->d2 < y->d2 ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* Whether collapsing i into j keeps every edge on a triangle that was on one.
 * Only the triangles (i, j, b) fold: edge j-b survives, and has lost that
 * triangle, so it needs another: a neighbour x of b other than i and j that
 * is, or through the collapse becomes, a neighbour of j (in N(i) or N(j)).
 * Every other edge keeps its triangles: (a, b, i) becomes (a, b, j). */
static int keeps_triangles(const dyn_graph *d, collapse_scratch *s, uint32_t i, uint32_t j)
{
    if (++s->stamp == 0) {
        memset(s->in_i, 0, sizeof *s->in_i * d->n);
        memset(s->in_j, 0, sizeof *s->in_j * d->n);
        s->stamp = 1;
    }
    const adjacent *ni = d->pool + d->start[i], *nj = d->pool + d->start[j];
    for (uint32_t q = 0; q < d->count[i]; q++)
        s->in_i[ni[q].v] = s->stamp;
    for (uint32_t q = 0; q < d->count[j]; q++)
        s->in_j[nj[q].v] = s->stamp;
    for (uint32_t q = 0; q < d->count[i]; q++) {
        uint32_t b = ni[q].v;
        if (b == j || s->in_j[b] != s->stamp)
            continue;
        const adjacent *nb = d->pool + d->start[b];
        int found = 0;
        for (uint32_t r = 0; !found && r < d->count[b]; r++) {
            uint32_t x = nb[r].v;
            found = x != i && x != j && (s->in_i[x] == s->stamp || s->in_j[x] == s->stamp);
        }
        if (!found)
            return 0;
    }
    return 1;
}

/* Where fine i collapses (section 6.3): the coarse neighbour (of the level's
 * own adjacency) nearest the mean rest position of them all, ties to the lower
 * index; but passing over those whose collapse would leave an edge on no
 * triangle, as the paper's rule does where a boundary particle is pulled into
 * an interior one and a boundary neighbour loses both its boundary edges: a
 * triangle mesh stays one. Where every coarse neighbour would, the nearest. */
static uint32_t collapse_target(const builder *b, const graph *g, const dyn_graph *d, collapse_scratch *s,
                                uint32_t i)
{
    double mean[3] = {0, 0, 0};
    uint32_t count = 0;
    for (uint32_t q = g->begin[i]; q < g->begin[i + 1]; q++)
        if (!b->fine[g->nb[q]]) {
            const sinew_particle_rec *p = &b->a->particles[g->nb[q]];
            mean[0] += p->x;
            mean[1] += p->y;
            mean[2] += p->z;
            s->cand[count++].v = g->nb[q];
        }
    for (int k = 0; k < 3; k++)
        mean[k] /= count;
    for (uint32_t c = 0; c < count; c++) {
        const sinew_particle_rec *p = &b->a->particles[s->cand[c].v];
        double dx = p->x - mean[0], dy = p->y - mean[1], dz = p->z - mean[2];
        s->cand[c].d2 = dx * dx + dy * dy + dz * dz;
    }
    qsort(s->cand, count, sizeof *s->cand, by_distance);
    for (uint32_t c = 0; c < count; c++)
        if (keeps_triangles(d, s, i, s->cand[c].v))
            return s->cand[c].v;
    return s->cand[0].v;
}

/* Section 6.3: level l + 1's constraints from level l's edges, into
 * b->edges[l + 1], sorted. */
static int restrict_constraints(builder *b, const graph *g, uint32_t l, uint32_t count)
{
    dyn_graph d = {0};
    collapse_scratch s = {calloc(b->n, sizeof *s.in_i), calloc(b->n, sizeof *s.in_j), 0,
                          malloc(sizeof *s.cand * b->n)};
    int ok = s.in_i && s.in_j && s.cand && dyn_build(&d, b->n, g, b->edges[l], b->edge_count[l]);
    for (uint32_t x = 0; ok && x < count; x++) {
        uint32_t i = b->members[x];
        if (b->fine[i])
            ok = collapse(&d, i, collapse_target(b, g, &d, &s, i));
    }
    free(s.in_i);
    free(s.in_j);
    free(s.cand);
    if (!ok) {
        dyn_free(&d);
        return 0;
    }
    size_t m = 0;
    for (uint32_t x = 0; x < count; x++)
        m += d.count[b->members[x]];
    m /= 2;
    edge *e = malloc(sizeof *e * (m + 1));
    if (!e) {
        dyn_free(&d);
        return 0;
    }
    uint32_t kept = 0;
    for (uint32_t x = 0; x < count; x++) {
        uint32_t u = b->members[x];
        for (uint32_t q = 0; q < d.count[u]; q++) {
            adjacent a = d.pool[d.start[u] + q];
            SINEW_ASSERT(!b->fine[u] && !b->fine[a.v]);
            if (u < a.v) {
                double rest = a.rest;
                if (b->opt->rest == SINEW_HIERARCHY_REST_POSE && (float)distance(b, u, a.v) > 0.0f)
                    rest = distance(b, u, a.v);
                e[kept++] = (edge){u, a.v, rest};
            }
        }
    }
    dyn_free(&d);
    SINEW_ASSERT(kept == m);
    qsort(e, kept, sizeof *e, by_endpoints);
    b->edges[l + 1] = e;
    b->edge_count[l + 1] = kept;
    return 1;
}

/* Adds levels until a stop rule holds; the first is required. */
static sinew_result build_levels(builder *b)
{
    const sinew_hierarchy_options *o = b->opt;
    while (b->level_count < o->max_levels) {
        uint32_t l = b->level_count - 1, count = b->particles[l];
        graph g = {0};
        if (!graph_build(&g, b->n, b->edges[l], b->edge_count[l]))
            return out_of_memory(b);
        uint32_t coarse = select_coarse(b, &g, count);
        if ((uint64_t)coarse * 10 > (uint64_t)count * 9) {
            graph_free(&g);
            if (l == 0)
                return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                                  "hierarchy: the asset cannot be coarsened: level 1 would keep %u of its %u "
                                  "particles (more than 90 %%) with k = %u parents per fine particle",
                                  coarse, count, o->k);
            break;
        }
        int ok = 1;
        for (uint32_t x = 0; ok && x < count; x++)
            if (b->fine[b->members[x]])
                ok = add_parents(b, &g, b->members[x]);
        ok = ok && restrict_constraints(b, &g, l, count);
        graph_free(&g);
        if (!ok)
            return out_of_memory(b);
        if (b->link_used > SINEW_ASSET_MAX_RECORDS)
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, ID, "hierarchy: %zu parent links exceed the limit of %u",
                              b->link_used, SINEW_ASSET_MAX_RECORDS);
        uint32_t kept = 0;
        for (uint32_t x = 0; x < count; x++) {
            uint32_t v = b->members[x];
            if (b->fine[v])
                b->level_of[v] = l;
            else
                b->members[kept++] = v;
        }
        b->particles[l + 1] = kept;
        b->level_count++;
        if (kept <= o->min_particles)
            break;
    }
    for (uint32_t x = 0; x < b->particles[b->level_count - 1]; x++)
        b->level_of[b->members[x]] = b->level_count - 1;
    return SINEW_RESULT_OK;
}

static sinew_result colour_levels(builder *b)
{
    uint32_t total = 0;
    for (uint32_t l = 1; l < b->level_count; l++) {
        uint32_t m = b->edge_count[l];
        uint32_t *offsets = malloc(sizeof *offsets * ((size_t)m + 1));
        uint32_t *indices = malloc(sizeof *indices * (2 * (size_t)m + 1));
        if (!offsets || !indices) {
            free(offsets);
            free(indices);
            return out_of_memory(b);
        }
        for (uint32_t i = 0; i < m; i++) {
            offsets[i] = 2 * i;
            indices[2 * i] = b->edges[l][i].a;
            indices[2 * i + 1] = b->edges[l][i].b;
        }
        offsets[m] = 2 * m;
        sinew_result r = sinew_colour_constraints(m, offsets, indices, b->n, b->opt->colouring, b->lg,
                                                  &b->colouring[l]);
        free(offsets);
        free(indices);
        if (r != SINEW_RESULT_OK)
            return r;
        total += b->colouring[l].colour_count;
        if (total > SINEW_ASSET_MAX_COLOURS)
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, ID,
                              "hierarchy: %u colours of coarse constraints by level %u exceed the limit of %u", total,
                              l, SINEW_ASSET_MAX_COLOURS);
    }
    return SINEW_RESULT_OK;
}

/* The hierarchy arrays of an asset, to build, install and swap back. */
typedef struct hierarchy_arrays {
    uint32_t level_count, link_count, hdistance_count, hcolour_count;
    sinew_level_rec *levels;
    sinew_node_rec *nodes;
    sinew_link_rec *links;
    sinew_distance_rec *hdistances;
    sinew_range_rec *hcolours;
} hierarchy_arrays;

static void arrays_free(hierarchy_arrays *h)
{
    free(h->levels);
    free(h->nodes);
    free(h->links);
    free(h->hdistances);
    free(h->hcolours);
}

static void arrays_swap(sinew_asset *a, hierarchy_arrays *h)
{
    hierarchy_arrays old = {a->level_count, a->link_count, a->hdistance_count, a->hcolour_count,
                            a->levels,      a->nodes,      a->links,           a->hdistances,
                            a->hcolours};
    a->level_count = h->level_count;
    a->link_count = h->link_count;
    a->hdistance_count = h->hdistance_count;
    a->hcolour_count = h->hcolour_count;
    a->levels = h->levels;
    a->nodes = h->nodes;
    a->links = h->links;
    a->hdistances = h->hdistances;
    a->hcolours = h->hcolours;
    *h = old;
}

/* The asset's records (asset.h): nodes coarsest level first and by index
 * within a level, each node's links contiguous in node order; each coarse
 * level's constraints colour by colour, the levels' ranges in level order. */
static int lay_out(const builder *b, hierarchy_arrays *h)
{
    const uint32_t n = b->n, levels = b->level_count;
    h->level_count = levels;
    h->link_count = (uint32_t)b->link_used;
    for (uint32_t l = 1; l < levels; l++) {
        h->hdistance_count += b->edge_count[l];
        h->hcolour_count += b->colouring[l].colour_count;
    }
    h->levels = calloc(levels, sizeof *h->levels);
    h->nodes = calloc(n, sizeof *h->nodes);
    h->links = malloc(sizeof *h->links * (b->link_used + 1));
    h->hdistances = malloc(sizeof *h->hdistances * ((size_t)h->hdistance_count + 1));
    h->hcolours = malloc(sizeof *h->hcolours * ((size_t)h->hcolour_count + 1));
    if (!h->levels || !h->nodes || !h->links || !h->hdistances || !h->hcolours)
        return 0;

    /* Nodes by a counting sort on the level, coarsest first. */
    uint32_t next[SINEW_ASSET_MAX_LEVELS];
    for (uint32_t l = 0; l < levels; l++)
        next[l] = l + 1 < levels ? b->particles[l + 1] : 0;
    uint32_t link = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l = b->level_of[i];
        h->nodes[next[l]++] = (sinew_node_rec){i, 0, b->link_count[i], l};
    }
    for (uint32_t x = 0; x < n; x++) {
        sinew_node_rec *v = &h->nodes[x];
        v->link_begin = link;
        if (v->link_count)
            memcpy(h->links + link, b->links + b->link_begin[v->particle], sizeof *h->links * v->link_count);
        link += v->link_count;
    }

    uint32_t d = 0, c = 0;
    for (uint32_t l = 0; l < levels; l++) {
        sinew_level_rec *v = &h->levels[l];
        const sinew_colouring *col = &b->colouring[l];
        *v = (sinew_level_rec){b->particles[l], d, l ? b->edge_count[l] : 0, c, l ? col->colour_count : 0,
                               b->opt->rest, {0, 0}};
        if (l == 0)
            continue;
        for (uint32_t k = 0; k < col->colour_count; k++) {
            h->hcolours[c + k] = (sinew_range_rec){d, col->sizes[k]};
            d += col->sizes[k];
        }
        /* Counting sort, stable; the begins advance and are restored afterwards. */
        for (uint32_t i = 0; i < b->edge_count[l]; i++) {
            const edge *e = &b->edges[l][i];
            h->hdistances[h->hcolours[c + col->colour_of[i]].begin++] =
                (sinew_distance_rec){e->a, e->b, (float)e->rest, SINEW_KIND_STRETCH};
        }
        for (uint32_t k = 0; k < col->colour_count; k++)
            h->hcolours[c + k].begin -= h->hcolours[c + k].count;
        c += col->colour_count;
    }
    return 1;
}

sinew_result sinew_hierarchy_build(sinew_asset *a, const sinew_hierarchy_options *opt, const sinew_logger *lg,
                                   sinew_hierarchy_report *report)
{
    SINEW_ASSERT(a && opt);
    if (report)
        memset(report, 0, sizeof *report);
    sinew_result r = check_input(a, opt, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    builder b = {.a = a, .opt = opt, .lg = lg, .n = a->particle_count};
    hierarchy_arrays h = {0};
    if (!builder_init(&b))
        r = out_of_memory(&b);
    if (r == SINEW_RESULT_OK)
        r = build_levels(&b);
    if (r == SINEW_RESULT_OK)
        r = colour_levels(&b);
    if (r == SINEW_RESULT_OK && !lay_out(&b, &h))
        r = out_of_memory(&b);
    if (r == SINEW_RESULT_OK) {
        /* Checked in place, and swapped back out should it fail. */
        arrays_swap(a, &h);
        r = sinew_asset_validate(a, "hierarchy", lg);
        if (r != SINEW_RESULT_OK) {
            arrays_swap(a, &h);
            sinew_fail(lg, r, ID, "hierarchy: the levels built fail the asset's checks; the asset keeps what it had");
        }
    }
    if (r == SINEW_RESULT_OK) {
        if (report) {
            report->level_count = b.level_count;
            report->links = (uint32_t)b.link_used;
            for (uint32_t l = 0; l < b.level_count; l++) {
                report->particles[l] = b.particles[l];
                report->constraints[l] = l ? b.edge_count[l] : a->distance_count;
                report->colours[l] = l ? b.colouring[l].colour_count : a->colour_count;
            }
        }
        sinew_logf(lg, SINEW_LOG_INFO, ID, "hierarchy: %u levels, %u to %u particles, %u coarse constraints, %u "
                   "parent links (k = %u, %s rest lengths)", b.level_count, b.particles[0],
                   b.particles[b.level_count - 1], a->hdistance_count, a->link_count, opt->k,
                   opt->rest == SINEW_HIERARCHY_REST_GEODESIC ? "geodesic" : "rest-pose");
    }
    arrays_free(&h); /* the asset's old arrays, or the new ones refused */
    builder_free(&b);
    return r;
}
