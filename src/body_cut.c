/* Cuts: distance constraints removed at run time, the hinges that lose an
 * edge with them, and whatever the solver keeps of them (solvers/solver.h,
 * cut). */
#include "body.h"

#include <stdlib.h>
#include <string.h>

/* The distance constraint joining a and b, or UINT32_MAX. */
static uint32_t find_distance(const sinew_body *b, const uint32_t *start, const uint32_t *list, uint32_t p,
                              uint32_t q)
{
    for (uint32_t k = start[p]; k < start[p + 1]; k++) {
        const GpuDistance *d = &b->dist_host[list[k]];
        if ((d->a == p && d->b == q) || (d->a == q && d->b == p))
            return list[k];
    }
    return UINT32_MAX;
}

static sinew_result upload_cut(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    size_t dsize = sizeof(GpuDistance) * (size_t)b->distance_count, bsize = sizeof(GpuBend) * (size_t)b->bend_count;
    void *tmp = malloc((dsize > bsize ? dsize : bsize) + 1);
    if (!tmp)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    GpuDistance *dist = tmp;
    for (uint32_t c = 0; c < b->distance_count; c++) {
        dist[c] = b->dist_host[c];
        if (b->dist_cut[c])
            dist[c].b = dist[c].a;
    }
    sinew_result r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_DIST], 0, dist, dsize);
    GpuBend *bend = tmp;
    for (uint32_t c = 0; c < b->bend_count; c++) {
        bend[c] = b->bend_host[c];
        if (b->bend_cut[c])
            bend[c].v[2] = bend[c].v[0];
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_BEND], 0, bend, bsize);
    free(tmp);
    return r;
}

sinew_result sinew_body_cut(sinew_body *b, const uint32_t *pairs, uint32_t pair_count, uint32_t *cut)
{
    SINEW_ASSERT(b && (pairs || pair_count == 0));
    if (b->asset) /* its constraints lie among its batch's: cut, they would differ from its asset's */
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s' is in world '%s', batched with other bodies: it cannot be cut (cut a body of "
                          "its own)", b->name, b->world_name);
    sinew_result settled = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (settled != SINEW_RESULT_OK)
        return settled;
    const sinew_logger *lg = &b->ctx->logger;
    const uint32_t n = b->particle_count;
    if (cut)
        *cut = 0;
    const sinew_solver_ops *ops = sinew_body_ops(b);
    if (ops->uncuttable)
        return sinew_fail(lg, SINEW_RESULT_ERROR_UNSUPPORTED, "body", "%s: %s", b->name, ops->uncuttable);
    if (b->element_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_UNSUPPORTED, "body", "%s: a body with finite elements (GPBD) cannot "
                          "be cut", b->name);
    for (uint32_t k = 0; k < pair_count; k++)
        if (pairs[2 * k] >= n || pairs[2 * k + 1] >= n)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "%s: cut pair %u (%u, %u): particle "
                              "index out of range (%u particles)", b->name, k, pairs[2 * k], pairs[2 * k + 1], n);
    uint32_t *found = malloc(sizeof *found * ((size_t)pair_count + 1)), *start = NULL, *list = NULL;
    if (!found || !sinew_distance_incidence(n, b->distance_count, b->dist_host, &start, &list)) {
        free(found);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t k = 0; k < pair_count && r == SINEW_RESULT_OK; k++)
        if ((found[k] = find_distance(b, start, list, pairs[2 * k], pairs[2 * k + 1])) == UINT32_MAX)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "%s: cut pair %u: no distance "
                           "constraint joins particles %u and %u", b->name, k, pairs[2 * k], pairs[2 * k + 1]);
    /* Checked: the solver's structures follow first (it refuses, or runs out
     * of memory, leaving everything as it was), then the body's. */
    if (r == SINEW_RESULT_OK && ops->cut)
        r = ops->cut(b->state, &b->view, pairs, pair_count);
    if (r != SINEW_RESULT_OK) {
        free(found);
        free(start);
        free(list);
        return r;
    }
    uint32_t newly = 0;
    for (uint32_t k = 0; k < pair_count; k++)
        if (!b->dist_cut[found[k]]) {
            b->dist_cut[found[k]] = 1;
            newly++;
        }
    /* A hinge goes with its shared edge or an edge of either wing triangle. */
    static const int hinge_edges[5][2] = {{0, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}};
    for (uint32_t c = 0; c < b->bend_count; c++)
        for (int k = 0; k < 5 && !b->bend_cut[c]; k++) {
            const uint32_t *v = b->bend_host[c].v;
            uint32_t e = find_distance(b, start, list, v[hinge_edges[k][0]], v[hinge_edges[k][1]]);
            if (e != UINT32_MAX && b->dist_cut[e])
                b->bend_cut[c] = 1;
        }
    free(found);
    free(start);
    free(list);
    b->cut_count += newly;
    b->topology_crc = b->cut_count ? sinew_crc32(b->topology_base, b->dist_cut, b->distance_count)
                                   : b->topology_base; /* an uncut body's is the asset's */
    r = upload_cut(b);
    if (r == SINEW_RESULT_OK && cut)
        *cut = newly;
    return r;
}
