/* Clustered Gauss-Seidel sweeps (clusters.h; docs/colouring.md).
 *
 *   pass 0        recursive coordinate bisection of the particles into tiles
 *                 of at most P; a constraint whose particles lie in one tile
 *                 belongs to that tile's cluster
 *   pass 1, 2 ..  the constraints left run along the tiles' borders: clusters
 *                 grown breadth first over them, P particles at most, take
 *                 those that fall inside one
 *   then          what is left is coloured; each colour is a pass of chunks
 *
 * A cluster keeps the asset's colouring: it runs the asset's colours that hold
 * any of its constraints, in the asset's order, so the first pass is the
 * colour-by-colour sweep restricted to each tile. Items in a colour go by
 * constraint index: distances before bends, neighbours in memory. Everything is in index order or sorted
 * with the index as the last key, so the same asset gives the same clusters.
 */
#include "clusters.h"

#include "colouring.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define MAX_GROWN_PASSES 8u
/* Constraints of one colour a workgroup of a coloured pass takes. */
#define CHUNK_ITEMS 256u

typedef struct keyed { double key; uint32_t p; } keyed;

typedef struct builder {
    const sinew_asset *a;
    const sinew_logger *lg;
    const char *name;
    uint32_t n, m, P;
    uint32_t *offsets, *indices; /* constraint c touches indices[offsets[c] .. offsets[c + 1]) */
    /* The output, sized for the worst case. */
    sinew_range_rec *passes;
    sinew_cluster_rec *clusters;
    uint32_t *cparticles;
    sinew_range_rec *ccolours;
    sinew_citem_rec *citems;
    uint32_t pass_count, cluster_count, cparticle_count, ccolour_count, citem_count;
    /* Scratch. */
    uint32_t *group_of;   /* n: the particle's tile or grown cluster in this pass */
    uint32_t *local_of;   /* n: its index in the cluster being made, NONE outside */
    uint32_t *order;      /* particles with constraints, tile by tile */
    uint32_t order_count;
    keyed *keys;          /* n */
    uint32_t *inc_begin, *inc; /* particle -> remaining constraints */
    uint32_t *queue;      /* n */
    uint32_t *pass_of;    /* m */
    uint32_t *members;    /* m: a cluster's constraints */
    uint32_t *inside;     /* m: a pass's constraints, in order */
    uint32_t *group_start, *group_fill; /* per group, counting sort of the constraints */
    uint32_t *lofs, *lidx;              /* a cluster's local CSR */
    uint32_t *colour_of;                /* m: each constraint's colour in the asset */
    uint32_t *colour_rank;              /* per asset colour: 1 + its rank in the cluster, 0 if absent */
} builder;

static sinew_result out_of_memory(const builder *b)
{
    return sinew_fail(b->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of host memory for the "
                      "clusters", b->name);
}

static uint32_t arity(const builder *b, uint32_t c) { return b->offsets[c + 1] - b->offsets[c]; }

static int keyed_cmp(const void *x, const void *y)
{
    const keyed *u = x, *v = y;
    if (u->key != v->key)
        return u->key < v->key ? -1 : 1;
    return (u->p > v->p) - (u->p < v->p);
}

static double coordinate(const builder *b, uint32_t p, int axis)
{
    const sinew_particle_rec *q = &b->a->particles[p];
    return axis == 0 ? q->x : axis == 1 ? q->y : q->z;
}

/* Tiles idx[0, count) into groups of at most P along the longest side,
 * splitting the count in proportion to the tiles each side will hold. */
static void bisect(builder *b, uint32_t *idx, uint32_t count, uint32_t *group_count)
{
    if (count <= b->P) {
        for (uint32_t i = 0; i < count; i++)
            b->group_of[idx[i]] = *group_count;
        (*group_count)++;
        return;
    }
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++)
        lo[k] = hi[k] = coordinate(b, idx[0], k);
    for (uint32_t i = 1; i < count; i++)
        for (int k = 0; k < 3; k++) {
            double x = coordinate(b, idx[i], k);
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (hi[k] - lo[k] > hi[axis] - lo[axis])
            axis = k;
    for (uint32_t i = 0; i < count; i++)
        b->keys[i] = (keyed){coordinate(b, idx[i], axis), idx[i]};
    qsort(b->keys, count, sizeof *b->keys, keyed_cmp);
    for (uint32_t i = 0; i < count; i++)
        idx[i] = b->keys[i].p;
    uint64_t tiles = (count + (uint64_t)b->P - 1) / b->P;
    uint32_t left = (uint32_t)((uint64_t)count * (tiles / 2) / tiles);
    bisect(b, idx, left, group_count);
    bisect(b, idx + left, count - left, group_count);
}

/* Pass 0's groups: tiles of the particles that have constraints. */
static uint32_t tile(builder *b)
{
    b->order_count = 0;
    for (uint32_t p = 0; p < b->n; p++)
        if (b->inc_begin[p + 1] > b->inc_begin[p])
            b->order[b->order_count++] = p;
    uint32_t groups = 0;
    if (b->order_count)
        bisect(b, b->order, b->order_count, &groups);
    return groups;
}

/* The incidence of the remaining constraints. */
static void incidence(builder *b, const uint32_t *remaining, uint32_t count)
{
    memset(b->inc_begin, 0, sizeof *b->inc_begin * ((size_t)b->n + 1));
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = b->offsets[remaining[i]]; k < b->offsets[remaining[i] + 1]; k++)
            b->inc_begin[b->indices[k] + 1]++;
    for (uint32_t p = 0; p < b->n; p++)
        b->inc_begin[p + 1] += b->inc_begin[p];
    memcpy(b->queue, b->inc_begin, sizeof *b->queue * b->n); /* fill pointers */
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = b->offsets[remaining[i]]; k < b->offsets[remaining[i] + 1]; k++)
            b->inc[b->queue[b->indices[k]]++] = remaining[i];
}

/* Later passes' groups: breadth first from the particles in tile order, over
 * the remaining constraints, P particles each. */
static uint32_t grow(builder *b)
{
    uint32_t groups = 0;
    for (uint32_t s = 0; s < b->order_count; s++) {
        uint32_t seed = b->order[s];
        if (b->group_of[seed] != NONE || b->inc_begin[seed + 1] == b->inc_begin[seed])
            continue;
        uint32_t head = 0, tail = 0, size = 1;
        b->group_of[seed] = groups;
        b->queue[tail++] = seed;
        while (head < tail && size < b->P) {
            uint32_t p = b->queue[head++];
            for (uint32_t k = b->inc_begin[p]; k < b->inc_begin[p + 1] && size < b->P; k++) {
                uint32_t c = b->inc[k];
                for (uint32_t j = b->offsets[c]; j < b->offsets[c + 1] && size < b->P; j++) {
                    uint32_t q = b->indices[j];
                    if (b->group_of[q] == NONE) {
                        b->group_of[q] = groups;
                        b->queue[tail++] = q;
                        size++;
                    }
                }
            }
        }
        groups++;
    }
    return groups;
}

static int u32_cmp(const void *x, const void *y)
{
    uint32_t u = *(const uint32_t *)x, v = *(const uint32_t *)y;
    return (u > v) - (u < v);
}

/* One cluster of the constraints members[0, count) (increasing indices) and
 * their particles, in the asset's colours (one colour when colour_them is 0). */
static sinew_result emit_cluster(builder *b, const uint32_t *members, uint32_t count, int colour_them)
{
    sinew_cluster_rec *cl = &b->clusters[b->cluster_count];
    uint32_t *parts = &b->cparticles[b->cparticle_count];
    uint32_t np = 0;
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = b->offsets[members[i]]; k < b->offsets[members[i] + 1]; k++)
            if (b->local_of[b->indices[k]] == NONE) {
                b->local_of[b->indices[k]] = 0;
                parts[np++] = b->indices[k];
            }
    qsort(parts, np, sizeof *parts, u32_cmp);
    for (uint32_t i = 0; i < np; i++)
        b->local_of[parts[i]] = i;
    b->lofs[0] = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t c = members[i], base = b->lofs[i];
        for (uint32_t k = 0; k < arity(b, c); k++)
            b->lidx[base + k] = b->local_of[b->indices[b->offsets[c] + k]];
        b->lofs[i + 1] = base + arity(b, c);
    }
    /* The asset's own colours, those present in order: the sweep inside a
     * cluster is the asset's colour-by-colour sweep restricted to it. */
    uint32_t colours = 0;
    if (colour_them) {
        for (uint32_t i = 0; i < count; i++)
            b->colour_rank[b->colour_of[members[i]]] = 1;
        for (uint32_t k = 0; k < b->a->colour_count; k++)
            if (b->colour_rank[k])
                b->colour_rank[k] = ++colours;
    }
    sinew_result r = SINEW_RESULT_OK;
    if (r == SINEW_RESULT_OK) {
        colours = colour_them ? colours : 1;
        *cl = (sinew_cluster_rec){b->cparticle_count, np, b->ccolour_count, colours};
        /* Items colour by colour, each in constraint order. */
        for (uint32_t q = 0; q < colours; q++) {
            sinew_range_rec *cc = &b->ccolours[b->ccolour_count++];
            cc->begin = b->citem_count;
            for (uint32_t i = 0; i < count; i++) {
                if (colour_them && b->colour_rank[b->colour_of[members[i]]] - 1 != q)
                    continue;
                uint16_t l[4] = {SINEW_CLUSTER_NO_LOCAL, SINEW_CLUSTER_NO_LOCAL, SINEW_CLUSTER_NO_LOCAL,
                                 SINEW_CLUSTER_NO_LOCAL};
                for (uint32_t k = b->lofs[i]; k < b->lofs[i + 1]; k++)
                    l[k - b->lofs[i]] = (uint16_t)b->lidx[k];
                b->citems[b->citem_count++] = (sinew_citem_rec){members[i], l[0] | (uint32_t)l[1] << 16,
                                                                l[2] | (uint32_t)l[3] << 16};
            }
            cc->count = b->citem_count - cc->begin;
        }
        b->cparticle_count += np;
        b->cluster_count++;
    }
    for (uint32_t i = 0; i < np; i++)
        b->local_of[parts[i]] = NONE;
    if (colour_them)
        memset(b->colour_rank, 0, sizeof *b->colour_rank * b->a->colour_count);
    return r;
}

/* A pass of the groups in group_of: each group's constraints that lie inside
 * it. remaining keeps the others, in order; *taken counts the rest. */
static sinew_result emit_grown_pass(builder *b, uint32_t groups, uint32_t *remaining, uint32_t *count,
                                    uint32_t *taken)
{
    uint32_t kept = 0, inside = 0;
    memset(b->group_start, 0, sizeof *b->group_start * ((size_t)groups + 1));
    for (uint32_t i = 0; i < *count; i++) {
        uint32_t c = remaining[i], g = b->group_of[b->indices[b->offsets[c]]];
        for (uint32_t k = b->offsets[c] + 1; k < b->offsets[c + 1] && g != NONE; k++)
            if (b->group_of[b->indices[k]] != g)
                g = NONE;
        if (g == NONE) {
            remaining[kept++] = c;
        } else {
            b->pass_of[c] = b->pass_count;
            b->group_start[g + 1]++;
            b->inside[inside++] = c;
        }
    }
    *taken = inside;
    if (!inside) {
        *count = kept;
        return SINEW_RESULT_OK;
    }
    for (uint32_t g = 0; g < groups; g++)
        b->group_start[g + 1] += b->group_start[g];
    memcpy(b->group_fill, b->group_start, sizeof *b->group_fill * groups);
    for (uint32_t i = 0; i < inside; i++) {
        uint32_t c = b->inside[i];
        b->members[b->group_fill[b->group_of[b->indices[b->offsets[c]]]]++] = c;
    }
    *count = kept;
    sinew_range_rec *pass = &b->passes[b->pass_count];
    pass->begin = b->cluster_count;
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t g = 0; g < groups && r == SINEW_RESULT_OK; g++)
        if (b->group_start[g + 1] > b->group_start[g])
            r = emit_cluster(b, &b->members[b->group_start[g]], b->group_start[g + 1] - b->group_start[g], 1);
    pass->count = b->cluster_count - pass->begin;
    b->pass_count++;
    return r;
}

/* Colours the constraints remaining[0, count): sinew_colouring, caller frees. */
static sinew_result colour_remaining(builder *b, const uint32_t *remaining, uint32_t count, sinew_colouring *out)
{
    b->lofs[0] = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t c = remaining[i];
        memcpy(&b->lidx[b->lofs[i]], &b->indices[b->offsets[c]], sizeof *b->lidx * arity(b, c));
        b->lofs[i + 1] = b->lofs[i] + arity(b, c);
    }
    return sinew_colour_constraints(count, b->lofs, b->lidx, b->n, SINEW_COLOURING_BALANCED, b->lg, out);
}

/* The coloured passes: each colour's constraints in chunks of at most P
 * particles and CHUNK_ITEMS constraints, one cluster of one colour each. */
static sinew_result emit_coloured_passes(builder *b, const uint32_t *remaining, uint32_t count)
{
    sinew_colouring col = {0};
    sinew_result r = colour_remaining(b, remaining, count, &col);
    if (r == SINEW_RESULT_OK && b->pass_count + (uint64_t)col.colour_count > SINEW_ASSET_MAX_COLOURS)
        r = sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u grown and %u coloured cluster passes exceed "
                       "the limit of %u", b->name, b->pass_count, col.colour_count, SINEW_ASSET_MAX_COLOURS);
    for (uint32_t q = 0; q < col.colour_count && r == SINEW_RESULT_OK; q++) {
        sinew_range_rec *pass = &b->passes[b->pass_count++];
        pass->begin = b->cluster_count;
        uint32_t chunk = 0, particles = 0;
        for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++) {
            if (col.colour_of[i] != q)
                continue;
            uint32_t c = remaining[i];
            if (chunk && (chunk == CHUNK_ITEMS || particles + arity(b, c) > b->P)) {
                r = emit_cluster(b, b->members, chunk, 0);
                chunk = particles = 0;
            }
            b->members[chunk++] = c;
            particles += arity(b, c);
        }
        if (chunk && r == SINEW_RESULT_OK)
            r = emit_cluster(b, b->members, chunk, 0);
        pass->count = b->cluster_count - pass->begin;
    }
    sinew_colouring_free(&col);
    return r;
}

/* Grown passes while they help: after each, the passes a colouring of what is
 * left would add; the count of grown passes with the fewest in all is kept. */
static sinew_result build(builder *b, uint32_t *remaining, sinew_cluster_report *rep)
{
    uint32_t count = b->m;
    for (uint32_t c = 0; c < b->m; c++)
        remaining[c] = c;
    incidence(b, remaining, count);
    memset(b->group_of, 0xFF, sizeof *b->group_of * b->n);
    uint32_t groups = tile(b);
    uint32_t best = NONE, best_passes = 0;
    uint32_t state[MAX_GROWN_PASSES + 1][4] = {{0}};
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t k = 0; k < MAX_GROWN_PASSES && count; k++) {
        if (k > 0) {
            incidence(b, remaining, count);
            memset(b->group_of, 0xFF, sizeof *b->group_of * b->n);
            groups = grow(b);
        }
        uint32_t taken;
        if ((r = emit_grown_pass(b, groups, remaining, &count, &taken)) != SINEW_RESULT_OK)
            return r;
        if (k == 0)
            rep->first_pass = taken;
        if (!taken)
            break;
        state[b->pass_count][0] = b->cluster_count;
        state[b->pass_count][1] = b->cparticle_count;
        state[b->pass_count][2] = b->ccolour_count;
        state[b->pass_count][3] = b->citem_count;
        sinew_colouring col = {0};
        if ((r = colour_remaining(b, remaining, count, &col)) != SINEW_RESULT_OK)
            return r;
        uint32_t total = b->pass_count + col.colour_count;
        sinew_colouring_free(&col);
        if (total < best) {
            best = total;
            best_passes = b->pass_count;
        }
    }
    /* Back to the best count of grown passes. */
    b->pass_count = best_passes;
    b->cluster_count = state[best_passes][0];
    b->cparticle_count = state[best_passes][1];
    b->ccolour_count = state[best_passes][2];
    b->citem_count = state[best_passes][3];
    count = 0;
    for (uint32_t c = 0; c < b->m; c++)
        if (b->pass_of[c] >= best_passes)
            remaining[count++] = c;
    rep->grown_passes = best_passes;
    rep->leftover = count;
    return emit_coloured_passes(b, remaining, count);
}

static void summarise(const builder *b, sinew_cluster_report *rep)
{
    rep->pass_count = b->pass_count;
    rep->cluster_count = b->cluster_count;
    rep->constraint_count = b->m;
    rep->colour_count = b->a->colour_count;
    for (uint32_t k = 0; k < b->cluster_count; k++) {
        const sinew_cluster_rec *c = &b->clusters[k];
        rep->smallest = k == 0 || c->particle_count < rep->smallest ? c->particle_count : rep->smallest;
        rep->largest = c->particle_count > rep->largest ? c->particle_count : rep->largest;
        rep->most_colours = c->colour_count > rep->most_colours ? c->colour_count : rep->most_colours;
    }
}

/* The constraints as CSR over particles: distances, then bends. */
static int make_csr(builder *b)
{
    const sinew_asset *a = b->a;
    uint64_t slots = 2ull * a->distance_count + 4ull * a->bend_count;
    b->offsets = malloc(sizeof *b->offsets * ((size_t)b->m + 1));
    b->indices = malloc(sizeof *b->indices * (size_t)(slots + 1));
    if (!b->offsets || !b->indices)
        return 0;
    uint32_t k = 0;
    for (uint32_t c = 0; c < a->distance_count; c++) {
        b->offsets[c] = k;
        b->indices[k++] = a->distances[c].a;
        b->indices[k++] = a->distances[c].b;
    }
    for (uint32_t c = 0; c < a->bend_count; c++) {
        b->offsets[a->distance_count + c] = k;
        for (int j = 0; j < 4; j++)
            b->indices[k++] = a->bends[c].v[j];
    }
    b->offsets[b->m] = k;
    for (uint32_t q = 0; q < a->colour_count; q++) {
        const sinew_colour_rec *c = &a->colours[q];
        for (uint32_t i = c->distance_begin; i < c->distance_begin + c->distance_count; i++)
            b->colour_of[i] = q;
        for (uint32_t i = c->bend_begin; i < c->bend_begin + c->bend_count; i++)
            b->colour_of[a->distance_count + i] = q;
    }
    return 1;
}

sinew_result sinew_cluster_asset(sinew_asset *a, uint32_t max_particles, const char *name, const sinew_logger *lg,
                                 sinew_cluster_report *report)
{
    SINEW_ASSERT(a && name);
    sinew_cluster_report rep = {0};
    if (report)
        *report = rep;
    if (max_particles < SINEW_CLUSTER_MIN_PARTICLES || max_particles > SINEW_CLUSTER_MAX_PARTICLES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep", "%s: clusters of %u particles: the size "
                          "must be %u to %u", name, max_particles, SINEW_CLUSTER_MIN_PARTICLES,
                          SINEW_CLUSTER_MAX_PARTICLES);
    /* The colours the clusters keep must be the asset's valid ones. */
    sinew_result valid = sinew_asset_validate(a, name, lg);
    if (valid != SINEW_RESULT_OK)
        return valid;
    builder b = {.a = a, .lg = lg, .name = name, .n = a->particle_count, .P = max_particles};
    if ((uint64_t)a->distance_count + a->bend_count > SINEW_ASSET_MAX_RECORDS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: too many constraints to cluster", name);
    b.m = a->distance_count + a->bend_count;
    if (b.m == 0)
        return sinew_asset_alloc_clusters(a, 0, 0, 0, 0, 0) ? SINEW_RESULT_OK : out_of_memory(&b);
    size_t n1 = (size_t)b.n + 1, m1 = (size_t)b.m + 1;
    uint64_t slots = 2ull * a->distance_count + 4ull * a->bend_count;
    uint32_t *remaining = malloc(sizeof *remaining * m1);
    b.passes = malloc(sizeof *b.passes * (MAX_GROWN_PASSES + SINEW_ASSET_MAX_COLOURS + 1ull));
    b.clusters = malloc(sizeof *b.clusters * m1);
    b.cparticles = malloc(sizeof *b.cparticles * (size_t)(slots + 1));
    b.ccolours = malloc(sizeof *b.ccolours * m1);
    b.citems = malloc(sizeof *b.citems * m1);
    b.group_of = malloc(sizeof *b.group_of * n1);
    b.local_of = malloc(sizeof *b.local_of * n1);
    b.order = malloc(sizeof *b.order * n1);
    b.keys = malloc(sizeof *b.keys * n1);
    b.inc_begin = malloc(sizeof *b.inc_begin * n1);
    b.inc = malloc(sizeof *b.inc * (size_t)(slots + 1));
    b.queue = malloc(sizeof *b.queue * n1);
    b.pass_of = malloc(sizeof *b.pass_of * m1);
    b.members = malloc(sizeof *b.members * m1);
    b.inside = malloc(sizeof *b.inside * m1);
    b.group_start = malloc(sizeof *b.group_start * (n1 + 1));
    b.group_fill = malloc(sizeof *b.group_fill * n1);
    b.lofs = malloc(sizeof *b.lofs * m1);
    b.lidx = malloc(sizeof *b.lidx * (size_t)(slots + 1));
    b.colour_of = malloc(sizeof *b.colour_of * m1);
    b.colour_rank = calloc((size_t)a->colour_count + 1, sizeof *b.colour_rank);
    sinew_result r = SINEW_RESULT_OK;
    if (!remaining || !b.passes || !b.clusters || !b.cparticles || !b.ccolours || !b.citems || !b.group_of ||
        !b.local_of || !b.order || !b.keys || !b.inc_begin || !b.inc || !b.queue || !b.pass_of || !b.members || !b.inside ||
        !b.group_start || !b.group_fill || !b.lofs || !b.lidx || !b.colour_of || !b.colour_rank ||
        !make_csr(&b))
        r = out_of_memory(&b);
    if (r == SINEW_RESULT_OK) {
        memset(b.local_of, 0xFF, sizeof *b.local_of * b.n);
        memset(b.pass_of, 0xFF, sizeof *b.pass_of * b.m);
        r = build(&b, remaining, &rep);
    }
    if (r == SINEW_RESULT_OK && b.pass_count > SINEW_ASSET_MAX_COLOURS)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u cluster passes exceed the limit of %u", name,
                       b.pass_count, SINEW_ASSET_MAX_COLOURS);
    if (r == SINEW_RESULT_OK && !sinew_asset_alloc_clusters(a, b.pass_count, b.cluster_count, b.cparticle_count,
                                                            b.ccolour_count, b.citem_count))
        r = out_of_memory(&b);
    if (r == SINEW_RESULT_OK) {
        memcpy(a->cpasses, b.passes, sizeof *b.passes * b.pass_count);
        memcpy(a->clusters, b.clusters, sizeof *b.clusters * b.cluster_count);
        memcpy(a->cparticles, b.cparticles, sizeof *b.cparticles * b.cparticle_count);
        memcpy(a->ccolours, b.ccolours, sizeof *b.ccolours * b.ccolour_count);
        memcpy(a->citems, b.citems, sizeof *b.citems * b.citem_count);
        summarise(&b, &rep);
        if (report)
            *report = rep;
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: %u clusters of %u to %u particles in %u passes (%u grown, %u "
                   "coloured: %u of %u constraints) in place of %u colours", name, rep.cluster_count, rep.smallest,
                   rep.largest, rep.pass_count, rep.grown_passes, rep.pass_count - rep.grown_passes, rep.leftover,
                   rep.constraint_count, rep.colour_count);
    }
    free(remaining);
    free(b.passes);
    free(b.clusters);
    free(b.cparticles);
    free(b.ccolours);
    free(b.citems);
    free(b.group_of);
    free(b.local_of);
    free(b.order);
    free(b.keys);
    free(b.inc_begin);
    free(b.inc);
    free(b.queue);
    free(b.pass_of);
    free(b.members);
    free(b.inside);
    free(b.group_start);
    free(b.group_fill);
    free(b.lofs);
    free(b.lidx);
    free(b.colour_of);
    free(b.colour_rank);
    free(b.offsets);
    free(b.indices);
    return r;
}
