/* Graph colouring of constraints: constraints that share a particle get different
 * colours, so each colour is one parallel Gauss-Seidel dispatch.
 *
 * GREEDY is first fit in input order. BALANCED is first fit in decreasing
 * conflict-degree order (largest first, as Welsh and Powell 1967), then the
 * shuffling pass of Lu, Halappanavar and Kalyanaraman, "Balanced coloring for
 * parallel computing applications" (IPDPS 2015): constraints leave colours larger
 * than ceil(m / colours) for the smallest colour that admits them. It never adds
 * a colour; it evens out the dispatch sizes so no colour leaves the GPU idle.
 *
 * Both passes use the particle -> constraint incidence (CSR) and a "forbidden"
 * array stamped with the id of the constraint being placed, so it never needs
 * clearing: placing a constraint costs its arity times its particles' degrees.
 */
#include "colouring.h"

#include "core/log.h"

#include <stdlib.h>
#include <string.h>

#define NO_COLOUR UINT32_MAX

typedef struct colouring_ctx {
    uint32_t m, n;
    const uint32_t *offsets, *indices;
    uint32_t *inc_begin;    /* n + 1: particle p is touched by inc[inc_begin[p] .. inc_begin[p+1]) */
    uint32_t *inc;
    uint32_t *forbidden;    /* per colour: the last constraint that found it taken */
    uint32_t *colour_of;
    uint32_t *sizes;
    uint32_t colour_count;
} colouring_ctx;

static sinew_result check_input(const colouring_ctx *x, const sinew_logger *lg)
{
    for (uint32_t c = 0; c < x->m; c++) {
        if (x->offsets[c + 1] < x->offsets[c])
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                              "colouring: constraint %u has a decreasing offset", c);
        for (uint32_t k = x->offsets[c]; k < x->offsets[c + 1]; k++)
            if (x->indices[k] >= x->n)
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                                  "colouring: constraint %u: particle index %u out of range (%u particles)", c,
                                  x->indices[k], x->n);
    }
    return SINEW_RESULT_OK;
}

static int build_incidence(colouring_ctx *x)
{
    uint32_t first = x->offsets[0], nnz = x->offsets[x->m] - first;
    x->inc_begin = calloc((size_t)x->n + 1, sizeof(uint32_t));
    x->inc = malloc(sizeof(uint32_t) * ((size_t)nnz + 1));
    if (!x->inc_begin || !x->inc)
        return 0;
    for (uint32_t k = first; k < first + nnz; k++)
        x->inc_begin[x->indices[k] + 1]++;
    for (uint32_t p = 0; p < x->n; p++)
        x->inc_begin[p + 1] += x->inc_begin[p];
    /* Filled through a moving cursor per particle, then shifted back. */
    for (uint32_t c = 0; c < x->m; c++)
        for (uint32_t k = x->offsets[c]; k < x->offsets[c + 1]; k++)
            x->inc[x->inc_begin[x->indices[k]]++] = c;
    for (uint32_t p = x->n; p > 0; p--)
        x->inc_begin[p] = x->inc_begin[p - 1];
    x->inc_begin[0] = 0;
    return 1;
}

/* Marks the colours of c's neighbours as forbidden for c. A duplicate particle
 * inside c only finds c itself, which is skipped. */
static void forbid_neighbour_colours(colouring_ctx *x, uint32_t c)
{
    for (uint32_t k = x->offsets[c]; k < x->offsets[c + 1]; k++) {
        uint32_t p = x->indices[k];
        for (uint32_t j = x->inc_begin[p]; j < x->inc_begin[p + 1]; j++) {
            uint32_t d = x->inc[j];
            if (d != c && x->colour_of[d] != NO_COLOUR)
                x->forbidden[x->colour_of[d]] = c;
        }
    }
}

static void first_fit(colouring_ctx *x, uint32_t c)
{
    forbid_neighbour_colours(x, c);
    uint32_t k = 0;
    while (x->forbidden[k] == c)
        k++;
    if (k == x->colour_count)
        x->sizes[x->colour_count++] = 0;
    x->colour_of[c] = k;
    x->sizes[k]++;
}

typedef struct degree_key {
    uint64_t degree;
    uint32_t constraint;
} degree_key;

static int by_degree_desc(const void *pa, const void *pb)
{
    const degree_key *a = pa, *b = pb;
    if (a->degree != b->degree)
        return a->degree > b->degree ? -1 : 1;
    return a->constraint < b->constraint ? -1 : a->constraint > b->constraint;
}

/* Conflict degree: for each of the constraint's particles, how many constraints
 * touch it. Ties keep input order, so the result is the same on every platform. */
static int colour_largest_first(colouring_ctx *x)
{
    degree_key *keys = malloc(sizeof(degree_key) * x->m);
    if (!keys)
        return 0;
    for (uint32_t c = 0; c < x->m; c++) {
        uint64_t degree = 0;
        for (uint32_t k = x->offsets[c]; k < x->offsets[c + 1]; k++)
            degree += x->inc_begin[x->indices[k] + 1] - x->inc_begin[x->indices[k]];
        keys[c] = (degree_key){degree, c};
    }
    qsort(keys, x->m, sizeof *keys, by_degree_desc);
    for (uint32_t i = 0; i < x->m; i++)
        first_fit(x, keys[i].constraint);
    free(keys);
    return 1;
}

/* Lu et al.'s shuffling. Colours only ever receive constraints while below the
 * target, so a constraint that finds no room cannot find any later: one pass
 * over the constraints reaches the fixed point. */
static void balance(colouring_ctx *x)
{
    uint32_t target = (uint32_t)(((uint64_t)x->m + x->colour_count - 1) / x->colour_count);
    for (uint32_t k = 0; k < x->colour_count; k++)
        x->forbidden[k] = NO_COLOUR;
    for (uint32_t c = 0; c < x->m; c++) {
        uint32_t from = x->colour_of[c];
        if (x->sizes[from] <= target)
            continue;
        forbid_neighbour_colours(x, c);
        uint32_t best = NO_COLOUR;
        for (uint32_t k = 0; k < x->colour_count; k++)
            if (x->sizes[k] < target && x->forbidden[k] != c && (best == NO_COLOUR || x->sizes[k] < x->sizes[best]))
                best = k;
        if (best != NO_COLOUR) {
            x->colour_of[c] = best;
            x->sizes[from]--;
            x->sizes[best]++;
        }
    }
}

sinew_result sinew_colour_constraints(uint32_t constraint_count, const uint32_t *offsets,
                                      const uint32_t *indices, uint32_t particle_count,
                                      sinew_colouring_method method, const sinew_logger *lg,
                                      sinew_colouring *out)
{
    SINEW_ASSERT(out && offsets && (indices || offsets[constraint_count] == offsets[0]));
    SINEW_ASSERT(method == SINEW_COLOURING_GREEDY || method == SINEW_COLOURING_BALANCED);
    memset(out, 0, sizeof *out);
    if (constraint_count == 0)
        return SINEW_RESULT_OK;
    colouring_ctx x = {.m = constraint_count, .n = particle_count, .offsets = offsets, .indices = indices};
    sinew_result r = check_input(&x, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    /* At most one colour per constraint. */
    x.colour_of = malloc(sizeof(uint32_t) * x.m);
    x.sizes = malloc(sizeof(uint32_t) * x.m);
    x.forbidden = malloc(sizeof(uint32_t) * x.m);
    int ok = x.colour_of && x.sizes && x.forbidden && build_incidence(&x);
    if (ok) {
        memset(x.colour_of, 0xff, sizeof(uint32_t) * x.m);
        memset(x.forbidden, 0xff, sizeof(uint32_t) * x.m);
        if (method == SINEW_COLOURING_GREEDY) {
            for (uint32_t c = 0; c < x.m; c++)
                first_fit(&x, c);
        } else {
            ok = colour_largest_first(&x);
            if (ok)
                balance(&x);
        }
    }
    free(x.inc_begin);
    free(x.inc);
    free(x.forbidden);
    if (!ok) {
        free(x.colour_of);
        free(x.sizes);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "colouring %u constraints: out of memory",
                          x.m);
    }
    out->colour_count = x.colour_count;
    out->colour_of = x.colour_of;
    /* Trimmed from one slot per constraint to one per colour; keeping the larger
     * block is harmless if realloc declines. */
    uint32_t *sizes = realloc(x.sizes, sizeof(uint32_t) * x.colour_count);
    out->sizes = sizes ? sizes : x.sizes;
    return SINEW_RESULT_OK;
}

/* Also checks sizes[] against the colours' member counts. Without memory for
 * its scratch arrays it cannot vouch for the colouring and answers 0. */
int sinew_colouring_is_valid(const sinew_colouring *c, uint32_t constraint_count, const uint32_t *offsets,
                             const uint32_t *indices, uint32_t particle_count)
{
    if (!c || constraint_count == 0)
        return c != NULL;
    if (!c->colour_of || !c->sizes)
        return 0;
    uint32_t kc = c->colour_count;
    /* Constraints bucketed by colour, then each particle stamped with the colour
     * (+1) and constraint that last used it. */
    uint32_t *begin = calloc((size_t)kc + 1, sizeof(uint32_t));
    uint32_t *order = malloc(sizeof(uint32_t) * constraint_count);
    uint32_t *seen_colour = calloc(particle_count ? particle_count : 1, sizeof(uint32_t));
    uint32_t *seen_by = malloc(sizeof(uint32_t) * (particle_count ? particle_count : 1));
    int valid = begin && order && seen_colour && seen_by;
    for (uint32_t i = 0; valid && i < constraint_count; i++)
        valid = c->colour_of[i] < kc && offsets[i] <= offsets[i + 1];
    for (uint32_t i = 0; valid && i < constraint_count; i++)
        begin[c->colour_of[i] + 1]++;
    for (uint32_t k = 0; valid && k < kc; k++) {
        valid = begin[k + 1] == c->sizes[k];
        begin[k + 1] += begin[k];
    }
    for (uint32_t i = 0; valid && i < constraint_count; i++)
        order[begin[c->colour_of[i]]++] = i;
    /* begin[k] now ends colour k, and colours are consecutive in order[]. */
    for (uint32_t j = 0, k = 0; valid && j < constraint_count; j++) {
        uint32_t i = order[j];
        while (j >= begin[k])
            k++;
        for (uint32_t q = offsets[i]; valid && q < offsets[i + 1]; q++) {
            uint32_t p = indices[q];
            valid = p < particle_count && (seen_colour[p] != k + 1 || seen_by[p] == i);
            if (valid) {
                seen_colour[p] = k + 1;
                seen_by[p] = i;
            }
        }
    }
    free(begin);
    free(order);
    free(seen_colour);
    free(seen_by);
    return valid;
}

void sinew_colouring_free(sinew_colouring *c)
{
    if (!c)
        return;
    free(c->colour_of);
    free(c->sizes);
    memset(c, 0, sizeof *c);
}
