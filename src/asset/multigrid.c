/* The multigrid levels of an asset (format 1.4; docs/asset-format.md): their
 * allocation and every check the loader makes of them. */
#include "asset.h"

#include <stdlib.h>
#include <string.h>

#include "../core/log.h"

int sinew_asset_alloc_multigrid(sinew_asset *a, uint32_t levels, uint32_t triangles, uint32_t colours,
                                uint32_t vertices)
{
    SINEW_ASSERT(a);
    sinew_mlevel_rec *l = calloc(levels ? levels : 1, sizeof *l);
    sinew_triangle_rec *t = calloc(triangles ? triangles : 1, sizeof *t);
    sinew_parents_rec *p = levels ? calloc(a->particle_count ? a->particle_count : 1, sizeof *p) : NULL;
    sinew_range_rec *c = calloc(colours ? colours : 1, sizeof *c);
    uint32_t *v = calloc(vertices ? vertices : 1, sizeof *v);
    if (!l || !t || (levels && !p) || !c || !v) {
        free(l);
        free(t);
        free(p);
        free(c);
        free(v);
        return 0;
    }
    free(a->mlevels);
    free(a->mtriangles);
    free(a->parents);
    free(a->mcolours);
    free(a->mvertices);
    a->mlevels = l;
    a->mtriangles = t;
    a->parents = p;
    a->mcolours = c;
    a->mvertices = v;
    a->mlevel_count = levels;
    a->mtriangle_count = triangles;
    a->mcolour_count = colours;
    a->mvertex_count = vertices;
    return 1;
}

typedef struct hinge_edge {
    uint32_t lo, hi, corner; /* corner: 3 * triangle + which edge (0: v0 v1, 1: v1 v2, 2: v2 v0) */
} hinge_edge;

static int hinge_edge_cmp(const void *x, const void *y)
{
    const hinge_edge *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return (a->corner > b->corner) - (a->corner < b->corner);
}

sinew_result sinew_triangle_hinges(const uint32_t *tri, uint32_t t, uint32_t **hinges, uint32_t *count)
{
    *hinges = NULL;
    *count = 0;
    hinge_edge *e = malloc(sizeof *e * (3 * (size_t)t + 1));
    uint32_t *h = malloc(sizeof *h * (6 * (size_t)t + 4));
    if (!e || !h) {
        free(e);
        free(h);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t k = 0; k < t; k++)
        for (uint32_t c = 0; c < 3; c++) {
            uint32_t u = tri[3 * k + c], v = tri[3 * k + (c + 1) % 3];
            e[3 * k + c] = (hinge_edge){u < v ? u : v, u < v ? v : u, 3 * k + c};
        }
    qsort(e, 3 * (size_t)t, sizeof *e, hinge_edge_cmp);
    uint32_t n = 0;
    for (uint32_t i = 0; i + 1 < 3 * t; i++) {
        int pair = e[i].lo == e[i + 1].lo && e[i].hi == e[i + 1].hi;
        int more = (i + 2 < 3 * t && e[i + 2].lo == e[i].lo && e[i + 2].hi == e[i].hi) ||
                   (i > 0 && e[i - 1].lo == e[i].lo && e[i - 1].hi == e[i].hi);
        if (!pair || more)
            continue;
        const uint32_t *t1 = &tri[3 * (e[i].corner / 3)], c1 = e[i].corner % 3;
        const uint32_t *t2 = &tri[3 * (e[i + 1].corner / 3)], c2 = e[i + 1].corner % 3;
        h[4 * n] = t1[c1];
        h[4 * n + 1] = t1[(c1 + 1) % 3];
        h[4 * n + 2] = t1[(c1 + 2) % 3];
        h[4 * n + 3] = t2[(c2 + 2) % 3];
        n++;
    }
    free(e);
    *hinges = h;
    *count = n;
    return SINEW_RESULT_OK;
}

/* Level l's triangles: the coarse ones of MTRI, or the asset's own. */
static const sinew_triangle_rec *level_triangles(const sinew_asset *a, uint32_t l)
{
    return l + 1 == a->mlevel_count ? a->triangles : a->mtriangles + a->mlevels[l].triangle_begin;
}

/* Colours of level l: every particle of the level once, no triangle with two
 * corners of one colour, no shared edge with both wings of one colour. */
static sinew_result check_colours(const sinew_asset *a, uint32_t l, uint32_t *colour, const char *name,
                                  const sinew_logger *lg)
{
    const sinew_mlevel_rec *L = &a->mlevels[l];
    const uint32_t n = L->vertex_count;
    for (uint32_t i = 0; i < n; i++)
        colour[i] = SINEW_NO_VERTEX;
    uint32_t covered = 0;
    for (uint32_t c = L->colour_begin; c < L->colour_begin + L->colour_count; c++) {
        const sinew_range_rec *range = &a->mcolours[c];
        if (range->begin > a->mvertex_count || range->count > a->mvertex_count - range->begin)
            return sinew_asset_bad_record(lg, name, "MCOL", c, "particles [%u, %u + %u) pass the %u of MVTX",
                                          range->begin, range->begin, range->count, a->mvertex_count);
        for (uint32_t k = range->begin; k < range->begin + range->count; k++) {
            uint32_t v = a->mvertices[k];
            if (v >= n)
                return sinew_asset_bad_record(lg, name, "MVTX", k, "particle %u is not on level %u (%u particles)",
                                              v, l, n);
            if (colour[v] != SINEW_NO_VERTEX)
                return sinew_asset_bad_record(lg, name, "MVTX", k, "particle %u of level %u is coloured twice", v, l);
            colour[v] = c - L->colour_begin;
            covered++;
        }
    }
    if (covered != n)
        return sinew_asset_bad_record(lg, name, "MLEV", l, "its colours hold %u of its %u particles", covered, n);
    const sinew_triangle_rec *t = level_triangles(a, l);
    for (uint32_t k = 0; k < L->triangle_count; k++)
        for (int c = 0; c < 3; c++) {
            uint32_t u = t[k].v[c], w = t[k].v[(c + 1) % 3];
            if (colour[u] == colour[w])
                return sinew_asset_bad_record(lg, name, "MLEV", l,
                                              "particles %u and %u share a triangle and colour %u", u, w, colour[u]);
        }
    uint32_t *h, hinge_count;
    if (sinew_triangle_hinges(t->v, L->triangle_count, &h, &hinge_count) != SINEW_RESULT_OK)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset", "%s: no memory to check MCOL", name);
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t k = 0; k < hinge_count && r == SINEW_RESULT_OK; k++)
        if (colour[h[4 * k + 2]] == colour[h[4 * k + 3]])
            r = sinew_asset_bad_record(lg, name, "MLEV", l,
                                       "particles %u and %u, the wings of edge (%u, %u), share colour %u",
                                       h[4 * k + 2], h[4 * k + 3], h[4 * k], h[4 * k + 1], colour[h[4 * k + 2]]);
    free(h);
    return r;
}

sinew_result sinew_asset_validate_multigrid(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    if (a->mlevel_count == 0) {
        if (a->mtriangle_count || a->mcolour_count || a->mvertex_count)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                              "%s: sections MTRI, MCOL, MVTX hold records but MLEV has no levels", name);
        return SINEW_RESULT_OK;
    }
    if (a->mlevel_count > SINEW_ASSET_MAX_MLEVELS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: section MLEV: %u levels exceed the limit of %u",
                          name, a->mlevel_count, SINEW_ASSET_MAX_MLEVELS);
    const uint32_t last = a->mlevel_count - 1;
    uint32_t triangles = 0, colours = 0, vertices = 0;
    for (uint32_t l = 0; l <= last; l++) {
        const sinew_mlevel_rec *L = &a->mlevels[l];
        const uint32_t below = l ? a->mlevels[l - 1].vertex_count : 0;
        if (L->reserved[0] || L->reserved[1] || L->reserved[2])
            return sinew_asset_bad_record(lg, name, "MLEV", l, "reserved fields are not zero");
        if (L->vertex_count <= below || (l == last && L->vertex_count != a->particle_count) ||
            (l < last && L->vertex_count >= a->particle_count))
            return sinew_asset_bad_record(lg, name, "MLEV", l,
                                          "%u particles: levels must grow, the last holding all %u", L->vertex_count,
                                          a->particle_count);
        if (l == last ? (L->triangle_begin != 0 || L->triangle_count != a->triangle_count)
                      : (L->triangle_begin != triangles || L->triangle_count == 0 ||
                         L->triangle_count > a->mtriangle_count - triangles))
            return sinew_asset_bad_record(lg, name, "MLEV", l,
                                          "triangles [%u, %u + %u): expected %s", L->triangle_begin,
                                          L->triangle_begin, L->triangle_count,
                                          l == last ? "0 and TRIS' count (the last level is the asset's own)"
                                                    : "the next ones of MTRI, at least one");
        if (L->colour_begin != colours || L->colour_count == 0 || L->colour_count > a->mcolour_count - colours)
            return sinew_asset_bad_record(lg, name, "MLEV", l, "colours [%u, %u + %u): expected the next ones of MCOL",
                                          L->colour_begin, L->colour_begin, L->colour_count);
        if (l < last)
            triangles += L->triangle_count;
        colours += L->colour_count;
        vertices += L->vertex_count;
        const sinew_triangle_rec *t = level_triangles(a, l);
        for (uint32_t k = 0; k < L->triangle_count; k++) {
            const uint32_t *v = t[k].v;
            if (v[0] >= L->vertex_count || v[1] >= L->vertex_count || v[2] >= L->vertex_count ||
                v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
                return sinew_asset_bad_record(lg, name, l == last ? "TRIS" : "MTRI",
                                              l == last ? k : L->triangle_begin + k,
                                              "triangle (%u %u %u) of level %u (%u particles)", v[0], v[1], v[2], l,
                                              L->vertex_count);
        }
        for (uint32_t i = below; i < L->vertex_count; i++) {
            const sinew_parents_rec *p = &a->parents[i];
            if (l == 0 ? (p->a != SINEW_NO_VERTEX || p->b != SINEW_NO_VERTEX)
                       : (p->a >= below || p->b >= below || p->a == p->b))
                return sinew_asset_bad_record(lg, name, "MPAR", i,
                                              l == 0 ? "parents (%u, %u) of a coarsest particle: expected none"
                                                     : "parents (%u, %u) of a particle of level %u: expected two "
                                                       "distinct particles of the level below",
                                              p->a, p->b, l);
        }
    }
    if (triangles != a->mtriangle_count || colours != a->mcolour_count || vertices != a->mvertex_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                          "%s: sections MTRI, MCOL, MVTX hold %u, %u and %u records; the levels use %u, %u and %u",
                          name, a->mtriangle_count, a->mcolour_count, a->mvertex_count, triangles, colours, vertices);
    for (uint32_t l = 0; l <= last; l++) /* each level's particles are the MVTX run after the one below's */
        for (uint32_t c = a->mlevels[l].colour_begin; c < a->mlevels[l].colour_begin + a->mlevels[l].colour_count; c++) {
            uint32_t start = 0;
            for (uint32_t k = 0; k < l; k++)
                start += a->mlevels[k].vertex_count;
            const sinew_range_rec *range = &a->mcolours[c];
            uint32_t expect = c == a->mlevels[l].colour_begin ? start
                                                               : a->mcolours[c - 1].begin + a->mcolours[c - 1].count;
            if (range->begin != expect)
                return sinew_asset_bad_record(lg, name, "MCOL", c, "begins at %u; expected %u (the colours of each "
                                              "level follow one another in MVTX)", range->begin, expect);
        }
    uint32_t *colour = malloc(sizeof *colour * ((size_t)a->particle_count + 1));
    if (!colour)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset", "%s: no memory to check MCOL", name);
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t l = 0; l <= last && r == SINEW_RESULT_OK; l++)
        r = check_colours(a, l, colour, name, lg);
    free(colour);
    return r;
}
