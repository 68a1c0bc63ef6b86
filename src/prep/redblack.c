/* Red-black partition of a spring network by breadth-first search
 * (redblack.h). O(particles + springs). */
#include "redblack.h"

#include "asset/asset.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define ID "prep"

int sinew_redblack_is_valid(uint32_t spring_count, const uint32_t *ends, const uint8_t *colour)
{
    for (uint32_t k = 0; k < spring_count; k++)
        if (colour[ends[2 * k]] == colour[ends[2 * k + 1]])
            return 0;
    return 1;
}

/* The odd cycle closed by the spring a-b between two particles of one colour:
 * a's path up the search tree to the common ancestor, then down to b. Both
 * ends lie at the same depth or one apart (breadth-first), so climbing the
 * deeper one first meets the ancestor. */
static void odd_cycle(const uint32_t *parent, const uint32_t *depth, uint32_t a, uint32_t b,
                      sinew_redblack_report *rep)
{
    uint32_t up_a[SINEW_REDBLACK_CYCLE_MAX], na = 0, nb = 0;
    uint32_t x = a, y = b, total_a = 0, total_b = 0;
    uint32_t down_b[SINEW_REDBLACK_CYCLE_MAX];
    while (depth[x] > depth[y]) {
        if (na < SINEW_REDBLACK_CYCLE_MAX)
            up_a[na++] = x;
        total_a++;
        x = parent[x];
    }
    while (depth[y] > depth[x]) {
        if (nb < SINEW_REDBLACK_CYCLE_MAX)
            down_b[nb++] = y;
        total_b++;
        y = parent[y];
    }
    while (x != y) {
        if (na < SINEW_REDBLACK_CYCLE_MAX)
            up_a[na++] = x;
        if (nb < SINEW_REDBLACK_CYCLE_MAX)
            down_b[nb++] = y;
        total_a++;
        total_b++;
        x = parent[x];
        y = parent[y];
    }
    /* a ... (up) ... ancestor ... (down) ... b, then the spring b-a closes it. */
    rep->cycle_length = total_a + 1 + total_b;
    uint32_t k = 0;
    for (uint32_t i = 0; i < na && k < SINEW_REDBLACK_CYCLE_MAX; i++)
        rep->cycle[k++] = up_a[i];
    if (k < SINEW_REDBLACK_CYCLE_MAX)
        rep->cycle[k++] = x;
    /* down_b holds b's path bottom-up; the cycle goes down to b. Kept whole
     * only when the cycle fits. */
    for (uint32_t i = nb; i-- > 0 && k < SINEW_REDBLACK_CYCLE_MAX;)
        rep->cycle[k++] = down_b[i];
}

sinew_result sinew_redblack_partition(uint32_t particle_count, uint32_t spring_count, const uint32_t *ends,
                                      const char *name, const sinew_logger *lg, uint8_t *colour,
                                      sinew_redblack_report *report)
{
    SINEW_ASSERT(colour && (ends || spring_count == 0));
    sinew_redblack_report local;
    sinew_redblack_report *rep = report ? report : &local;
    memset(rep, 0, sizeof *rep);
    const uint32_t n = particle_count;
    for (uint32_t k = 0; k < spring_count; k++) {
        uint32_t a = ends[2 * k], b = ends[2 * k + 1];
        if (a >= n || b >= n || a == b)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                              "%s: spring %u joins particles %u and %u (%u particles; two distinct ones needed)",
                              name, k, a, b, n);
    }
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *adj = malloc(sizeof *adj * (2 * (size_t)spring_count + 1));
    uint32_t *parent = malloc(sizeof *parent * ((size_t)n + 1));
    uint32_t *depth = malloc(sizeof *depth * ((size_t)n + 1));
    uint32_t *queue = malloc(sizeof *queue * ((size_t)n + 1));
    if (!start || !adj || !parent || !depth || !queue) {
        free(start);
        free(adj);
        free(parent);
        free(depth);
        free(queue);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: no memory for the partition", name);
    }
    for (uint32_t k = 0; k < 2 * spring_count; k++)
        start[ends[k] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (uint32_t k = 0; k < spring_count; k++) {
        adj[start[ends[2 * k]]++] = ends[2 * k + 1];
        adj[start[ends[2 * k + 1]]++] = ends[2 * k];
    }
    for (uint32_t i = n; i > 0; i--) /* filling moved each start to the next one's */
        start[i] = start[i - 1];
    start[0] = 0;

    for (uint32_t i = 0; i < n; i++)
        parent[i] = NONE;
    uint32_t conflict_a = NONE, conflict_b = NONE;
    for (uint32_t root = 0; root < n && conflict_a == NONE; root++) {
        if (parent[root] != NONE)
            continue;
        rep->pieces++;
        parent[root] = root;
        depth[root] = 0;
        colour[root] = SINEW_REDBLACK_RED;
        uint32_t head = 0, tail = 0;
        queue[tail++] = root;
        while (head < tail && conflict_a == NONE) {
            uint32_t p = queue[head++];
            for (uint32_t k = start[p]; k < start[p + 1]; k++) {
                uint32_t q = adj[k];
                if (parent[q] == NONE) {
                    parent[q] = p;
                    depth[q] = depth[p] + 1;
                    colour[q] = (uint8_t)(colour[p] ^ 1u);
                    queue[tail++] = q;
                } else if (colour[q] == colour[p]) {
                    conflict_a = p;
                    conflict_b = q;
                    break;
                }
            }
        }
    }
    sinew_result r = SINEW_RESULT_OK;
    if (conflict_a != NONE) {
        odd_cycle(parent, depth, conflict_a, conflict_b, rep);
        char list[512];
        int used = 0;
        uint32_t shown = rep->cycle_length < 12 ? rep->cycle_length : 12;
        for (uint32_t k = 0; k < shown && used < (int)sizeof list - 16; k++)
            used += snprintf(list + used, sizeof list - (size_t)used, "%u - ", rep->cycle[k]);
        snprintf(list + used, sizeof list - (size_t)used, rep->cycle_length > shown ? "..." : "%u", rep->cycle[0]);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID,
                       "%s: the springs do not split into red and black particles: %u springs close an odd cycle, "
                       "%s (diagonal springs or triangles do this: red-black needs a quad network)",
                       name, rep->cycle_length, list);
    } else {
        for (uint32_t i = 0; i < n; i++)
            rep->black += colour[i];
        rep->red = n - rep->black;
    }
    free(start);
    free(adj);
    free(parent);
    free(depth);
    free(queue);
    return r;
}

sinew_result sinew_redblack_asset(sinew_asset *a, const char *name, const sinew_logger *lg,
                                  sinew_redblack_report *report)
{
    SINEW_ASSERT(a && name);
    const uint32_t n = a->particle_count, d = a->distance_count;
    uint32_t *ends = malloc(sizeof *ends * (2 * (size_t)d + 1));
    uint8_t *colour = malloc((size_t)n + 1);
    if (!ends || !colour) {
        free(ends);
        free(colour);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: no memory for the partition", name);
    }
    for (uint32_t c = 0; c < d; c++) {
        ends[2 * c] = a->distances[c].a;
        ends[2 * c + 1] = a->distances[c].b;
    }
    sinew_redblack_report local;
    sinew_redblack_report *rep = report ? report : &local;
    sinew_result r = sinew_redblack_partition(n, d, ends, name, lg, colour, rep);
    if (r == SINEW_RESULT_OK && !sinew_asset_alloc_red_black(a, rep->red, rep->black))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: no memory for the partition", name);
    if (r == SINEW_RESULT_OK) {
        uint32_t red = 0, black = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (colour[i] == SINEW_REDBLACK_RED)
                a->reds[red++] = i;
            else
                a->blacks[black++] = i;
        }
    }
    free(ends);
    free(colour);
    return r;
}
