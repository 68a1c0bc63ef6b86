/* Particle-to-constraint lists the solvers and cuts share, built on the
 * host in constraint order (which fixes every sum's order: determinism). */
#include "solver.h"

#include <stdlib.h>
#include <string.h>

/* Jacobi gather lists: particle i reads DELTA entries ADJ[start[i] .. start[i+1])
 * in constraint order, which fixes the summation order (determinism). */
int sinew_gather_lists(const sinew_asset *a, uint32_t **start_out, uint32_t **adj_out)
{
    uint32_t n = a->particle_count;
    uint32_t slots = 2 * a->distance_count + 4 * a->bend_count + 4 * a->element_count;
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *adj = malloc(((size_t)slots + 1) * sizeof *adj);
    uint32_t *fill = calloc((size_t)n + 1, sizeof *fill);
    if (!start || !adj || !fill) {
        free(start); free(adj); free(fill);
        return 0;
    }
    for (uint32_t c = 0; c < a->distance_count; c++) {
        start[a->distances[c].a + 1]++;
        start[a->distances[c].b + 1]++;
    }
    for (uint32_t c = 0; c < a->bend_count; c++)
        for (int j = 0; j < 4; j++)
            start[a->bends[c].v[j] + 1]++;
    for (uint32_t e = 0; e < a->element_count; e++)
        for (int j = 0; j < 4; j++)
            if (a->elements[e].v[j] != SINEW_NO_VERTEX)
                start[a->elements[e].v[j] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    memcpy(fill, start, (size_t)n * sizeof *fill);
    for (uint32_t c = 0; c < a->distance_count; c++) {
        adj[fill[a->distances[c].a]++] = 2 * c;
        adj[fill[a->distances[c].b]++] = 2 * c + 1;
    }
    for (uint32_t c = 0; c < a->bend_count; c++)
        for (uint32_t j = 0; j < 4; j++)
            adj[fill[a->bends[c].v[j]]++] = 2 * a->distance_count + 4 * c + j;
    for (uint32_t e = 0; e < a->element_count; e++)
        for (uint32_t j = 0; j < 4; j++)
            if (a->elements[e].v[j] != SINEW_NO_VERTEX)
                adj[fill[a->elements[e].v[j]]++] = 2 * a->distance_count + 4 * a->bend_count + 4 * e + j;
    free(fill);
    *start_out = start;
    *adj_out = adj;
    return 1;
}

/* Particle -> the distance records that touch it, as CSR: records of particle
 * p are list[start[p] .. start[p + 1]). */
int sinew_distance_incidence(uint32_t n, uint32_t count, const GpuDistance *d, uint32_t **start_out, uint32_t **list_out)
{
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *list = malloc(sizeof *list * (2 * (size_t)count + 1));
    if (!start || !list) {
        free(start);
        free(list);
        return 0;
    }
    for (uint32_t c = 0; c < count; c++) {
        start[d[c].a + 1]++;
        start[d[c].b + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (uint32_t c = 0; c < count; c++) {
        list[start[d[c].a]++] = c;
        list[start[d[c].b]++] = c;
    }
    for (uint32_t i = n; i > 0; i--) /* back to the starts */
        start[i] = start[i - 1];
    start[0] = 0;
    *start_out = start;
    *list_out = list;
    return 1;
}

