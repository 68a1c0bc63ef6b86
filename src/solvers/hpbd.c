/* Hierarchical PBD (Müller 2008, "Hierarchical Position Based Dynamics";
 * docs/math.md section 4, docs/hpbd.md): the hierarchy's host copies and
 * device records, the coarse-to-fine sweep of each substep (section 7 of
 * the paper) and the hierarchy's part of a cut (section 8). */
#include "pbd.h"

#include <stdlib.h>
#include <string.h>

sinew_result sinew_hpbd_copy(sinew_pbd *s, const sinew_asset *a, const sinew_logger *lg)
{
    s->level_count = a->level_count;
    s->hdistance_count = a->hdistance_count;
    s->link_count = a->link_count;
    s->levels = malloc(sizeof *s->levels * a->level_count);
    s->hcolours = malloc(sizeof *s->hcolours * ((size_t)a->hcolour_count + 1));
    s->hdist_host = malloc(sizeof *s->hdist_host * ((size_t)a->hdistance_count + 1));
    s->nodes = malloc(sizeof *s->nodes * a->particle_count);
    s->links = malloc(sizeof *s->links * ((size_t)a->link_count + 1));
    if (!s->levels || !s->hcolours || !s->hdist_host || !s->nodes || !s->links)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    memcpy(s->levels, a->levels, sizeof *s->levels * a->level_count);
    if (a->hcolour_count)
        memcpy(s->hcolours, a->hcolours, sizeof *s->hcolours * a->hcolour_count);
    for (uint32_t c = 0; c < a->hdistance_count; c++) {
        const sinew_distance_rec *d = &a->hdistances[c];
        s->hdist_host[c] = (GpuDistance){d->a, d->b, d->rest, 0.0f};
    }
    for (uint32_t i = 0; i < a->particle_count; i++) {
        const sinew_node_rec *v = &a->nodes[i];
        s->nodes[i] = (GpuNode){v->particle, v->link_begin, v->link_count, v->level};
    }
    for (uint32_t k = 0; k < a->link_count; k++)
        s->links[k] = (GpuLink){a->links[k].parent, a->links[k].weight};
    return SINEW_RESULT_OK;
}

void sinew_hpbd_free(sinew_pbd *s)
{
    free(s->levels);
    free(s->hcolours);
    free(s->hdist_host);
    free(s->nodes);
    free(s->links);
}

sinew_result sinew_hpbd_upload(sinew_pbd *s, sinew_context *ctx, uint32_t particle_count)
{
    sinew_result r = sinew_buffer_upload(ctx, &s->own[SINEW_PBD_HDIST], 0, s->hdist_host,
                                         sizeof(GpuDistance) * (uint64_t)s->hdistance_count);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &s->own[SINEW_PBD_HNODE], 0, s->nodes, sizeof(GpuNode) * (uint64_t)particle_count);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &s->own[SINEW_PBD_HLINK], 0, s->links, sizeof(GpuLink) * (uint64_t)s->link_count);
    return r;
}

/* Contacts of the particles of one level: HNODE[0, count). */
static void record_level_contacts(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r, uint32_t count)
{
    GpuRange range = {0, count, 1};
    sinew_record_dispatch(r, SINEW_KERNEL_COLLIDE, count, &range, sizeof range);
    sinew_record_barrier(r);
    r->bytes += (uint64_t)(SINEW_BYTES_COLLIDE + 16) * count;
}

/* Particles of `level` that no coarser level holds take their parents'
 * corrections. */
static void record_prolongation(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r, uint32_t level)
{
    uint32_t first = s->levels[level + 1].particle_count;
    GpuRange range = {first, s->levels[level].particle_count - first};
    sinew_record_dispatch(r, SINEW_KERNEL_HPBD_PROLONG, range.count, &range, sizeof range);
    sinew_record_barrier(r);
    /* node 16, own position 16 + 16, per link 8 + parent's position and q 32 */
    uint64_t links = 0;
    for (uint32_t i = first; i < first + range.count; i++)
        links += s->nodes[i].count;
    r->bytes += 48ull * range.count + 40ull * links;
}

/* Müller 2008, section 7: save q, then from the coarsest level down to level 1
 * sweep the level's coarse constraints colour by colour with its particles'
 * contacts, prolongating the corrections to each finer level, and finally to
 * level 0 (whose own iterations follow). */
void sinew_hpbd_record(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r)
{
    const uint64_t n = v->particle_count;
    sinew_record_copy(r, &v->buffers[SINEW_BIND_POS], 0, (sinew_buffer *)&s->own[SINEW_PBD_Q], 0, 16 * n);
    r->bytes += 32 * n;
    for (uint32_t level = s->level_count - 1; level >= 1; level--) {
        const sinew_level_rec *lv = &s->levels[level];
        if (level + 1 < s->level_count)
            record_prolongation(s, v, r, level);
        for (uint32_t it = 0; it < v->desc->level_iterations; it++)
            for (uint32_t c = lv->colour_begin; c < lv->colour_begin + lv->colour_count; c++) {
                GpuRange range = {s->hcolours[c].begin, s->hcolours[c].count};
                sinew_record_dispatch(r, SINEW_KERNEL_HPBD_PROJECT, range.count, &range, sizeof range);
                sinew_record_barrier(r);
                r->bytes += (uint64_t)(SINEW_BYTES_DISTANCE - 8) * range.count;
            }
        record_level_contacts(s, v, r, lv->particle_count);
    }
    record_prolongation(s, v, r, 0);
}

/* ---------------------------------------------------------------- cuts */

/* Everything a cut needs, allocated before anything changes so that running
 * out of memory leaves the body as it was. */
typedef struct cut_scratch {
    uint32_t *hstart, *hlist;             /* coarse constraints by particle */
    uint32_t *stack, *node_of;            /* particles to visit; node of each particle */
    uint32_t *child_start, *child_links;  /* links by parent, as CSR */
    uint32_t *child_of;                   /* node owning each link */
    uint8_t *done;
} cut_scratch;

/* Müller 2008, section 8: the particles at the cut lose their parent links
 * and coarse constraints, and so, recursively, do their parents. A particle
 * removed this way is no one's parent any more either: its children keep
 * their other parents (weights renormalised) or, with none left, take no
 * coarse correction. s->stack[0, top) holds the particles still to visit;
 * s->done marks those visited or queued. */
static void cut_hierarchy(sinew_pbd *b, cut_scratch *s, uint32_t top)
{
    while (top > 0) {
        uint32_t p = s->stack[--top];
        for (uint32_t k = s->hstart[p]; k < s->hstart[p + 1]; k++) {
            GpuDistance *d = &b->hdist_host[s->hlist[k]];
            d->b = d->a;
        }
        GpuNode *v = &b->nodes[s->node_of[p]];
        for (uint32_t k = v->first; k < v->first + v->count; k++) {
            uint32_t parent = b->links[k].parent;
            if (!s->done[parent]) {
                s->done[parent] = 1;
                s->stack[top++] = parent;
            }
        }
        v->count = 0;
        for (uint32_t k = s->child_start[p]; k < s->child_start[p + 1]; k++) {
            GpuNode *child = &b->nodes[s->child_of[s->child_links[k]]];
            b->links[s->child_links[k]].weight = 0.0f;
            double sum = 0.0;
            for (uint32_t j = child->first; j < child->first + child->count; j++)
                sum += b->links[j].weight;
            for (uint32_t j = child->first; j < child->first + child->count; j++)
                b->links[j].weight = sum > 0.0 ? (float)(b->links[j].weight / sum) : 0.0f;
            if (sum == 0.0)
                child->count = 0;
        }
    }
}

static void cut_scratch_free(cut_scratch *s)
{
    free(s->hstart);
    free(s->hlist);
    free(s->stack);
    free(s->node_of);
    free(s->child_start);
    free(s->child_links);
    free(s->child_of);
    free(s->done);
}

static int cut_scratch_alloc(const sinew_pbd *b, uint32_t n, cut_scratch *s)
{
    memset(s, 0, sizeof *s);
    s->stack = malloc(sizeof *s->stack * ((size_t)n + 1));
    s->node_of = malloc(sizeof *s->node_of * n);
    s->child_start = calloc((size_t)n + 1, sizeof *s->child_start);
    s->child_links = malloc(sizeof *s->child_links * ((size_t)b->link_count + 1));
    s->child_of = malloc(sizeof *s->child_of * ((size_t)b->link_count + 1));
    s->done = calloc(n, 1);
    int ok = s->stack && s->node_of && s->child_start && s->child_links && s->child_of && s->done &&
             sinew_distance_incidence(n, b->hdistance_count, b->hdist_host, &s->hstart, &s->hlist);
    if (!ok)
        cut_scratch_free(s);
    return ok;
}

/* Each particle's node, and the links naming each particle as parent. */
static void index_links(const sinew_pbd *b, uint32_t n, cut_scratch *s)
{
    for (uint32_t i = 0; i < n; i++) {
        s->node_of[b->nodes[i].particle] = i;
        for (uint32_t k = b->nodes[i].first; k < b->nodes[i].first + b->nodes[i].count; k++) {
            s->child_of[k] = i;
            s->child_start[b->links[k].parent + 1]++;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        s->child_start[i + 1] += s->child_start[i];
    for (uint32_t i = 0; i < n; i++) /* filling moves each start to the next one's */
        for (uint32_t k = b->nodes[i].first; k < b->nodes[i].first + b->nodes[i].count; k++)
            s->child_links[s->child_start[b->links[k].parent]++] = k;
    for (uint32_t i = n; i > 0; i--)
        s->child_start[i] = s->child_start[i - 1];
    s->child_start[0] = 0;
}

sinew_result sinew_hpbd_cut(sinew_pbd *s, const sinew_body_view *v, const uint32_t *pairs, uint32_t pair_count)
{
    const uint32_t n = v->particle_count;
    cut_scratch c;
    if (!cut_scratch_alloc(s, n, &c))
        return sinew_fail(&v->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    index_links(s, n, &c);
    uint32_t top = 0;
    for (uint32_t k = 0; k < 2 * pair_count; k++)
        if (!c.done[pairs[k]]) {
            c.done[pairs[k]] = 1;
            c.stack[top++] = pairs[k];
        }
    cut_hierarchy(s, &c, top);
    cut_scratch_free(&c);
    return sinew_hpbd_upload(s, v->ctx, n);
}
