/* The asset's particle structures for the multilevel and two-colour solvers:
 * the hierarchy of Hierarchical PBD (Müller 2008; docs/hpbd.md) and the
 * red-black partition of quad mass-spring networks (Pall et al.). Allocation
 * and the checks that make them safe to upload: the invariants are listed in
 * asset.h; every index is bounded before it is used, and the checks run in
 * O(n + links + constraints). */
#include "asset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sinew_asset_alloc_hierarchy(sinew_asset *a, uint32_t levels, uint32_t links, uint32_t hdistances,
                                uint32_t hcolours)
{
    SINEW_ASSERT(a);
    sinew_level_rec *lv = NULL;
    sinew_node_rec *nodes = NULL;
    sinew_link_rec *ln = NULL;
    sinew_distance_rec *hd = NULL;
    sinew_range_rec *hc = NULL;
    uint32_t n = levels ? a->particle_count : 0;
    if ((levels && !(lv = calloc(levels, sizeof *lv))) || (n && !(nodes = calloc(n, sizeof *nodes))) ||
        (links && !(ln = calloc(links, sizeof *ln))) || (hdistances && !(hd = calloc(hdistances, sizeof *hd))) ||
        (hcolours && !(hc = calloc(hcolours, sizeof *hc)))) {
        free(lv);
        free(nodes);
        free(ln);
        free(hd);
        free(hc);
        return 0;
    }
    free(a->levels);
    free(a->nodes);
    free(a->links);
    free(a->hdistances);
    free(a->hcolours);
    a->levels = lv;
    a->nodes = nodes;
    a->links = ln;
    a->hdistances = hd;
    a->hcolours = hc;
    a->level_count = levels;
    a->link_count = links;
    a->hdistance_count = hdistances;
    a->hcolour_count = hcolours;
    return 1;
}

static sinew_result bad_hierarchy(const sinew_logger *lg, const char *name, const char *what)
{
    return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: hierarchy: %s", name, what);
}

/* Level sizes, constraint and colour ranges: each level's ranges follow the
 * previous level's without gaps. */
static sinew_result check_levels(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    const uint32_t n = a->particle_count;
    uint32_t d_end = 0, c_end = 0;
    for (uint32_t l = 0; l < a->level_count; ++l) {
        const sinew_level_rec *v = &a->levels[l];
        if (v->rest >= SINEW_HIERARCHY_REST_COUNT || v->rest != a->levels[0].rest)
            return sinew_asset_bad_record(lg, name, "HLEV", l, "rest-length kind %u (expected %u, the same on "
                                          "every level, 0 rest pose or 1 geodesic)", v->rest, a->levels[0].rest);
        if (l == 0 ? v->particle_count != n : v->particle_count == 0 || v->particle_count > a->levels[l - 1].particle_count)
            return sinew_asset_bad_record(lg, name, "HLEV", l, "%u particles (level 0 holds all %u; each coarser "
                                          "level between 1 and the level before it)", v->particle_count, n);
        if (l == 0 && (v->distance_count || v->colour_count))
            return sinew_asset_bad_record(lg, name, "HLEV", 0, "level 0 owns %u coarse constraints and %u colours "
                                          "(it uses the body's own)", v->distance_count, v->colour_count);
        if (v->distance_begin != d_end || v->colour_begin != c_end)
            return sinew_asset_bad_record(lg, name, "HLEV", l, "ranges begin at constraint %u, colour %u instead "
                                          "of %u, %u (levels follow each other without gaps)", v->distance_begin,
                                          v->colour_begin, d_end, c_end);
        if (v->distance_count > a->hdistance_count - d_end || v->colour_count > a->hcolour_count - c_end)
            return sinew_asset_bad_record(lg, name, "HLEV", l, "ranges run past the end (%u constraints, %u "
                                          "colours)", a->hdistance_count, a->hcolour_count);
        uint32_t k_end = v->distance_begin;
        for (uint32_t c = v->colour_begin; c < v->colour_begin + v->colour_count; ++c) {
            const sinew_range_rec *r = &a->hcolours[c];
            if (r->begin != k_end || r->count > v->distance_begin + v->distance_count - k_end)
                return sinew_asset_bad_record(lg, name, "HCOL", c, "range [%u, +%u) does not continue level %u's "
                                              "constraints [%u, +%u) at %u", r->begin, r->count, l,
                                              v->distance_begin, v->distance_count, k_end);
            k_end += r->count;
        }
        if (k_end != v->distance_begin + v->distance_count)
            return sinew_asset_bad_record(lg, name, "HLEV", l, "colours cover %u of %u constraints",
                                          k_end - v->distance_begin, v->distance_count);
        d_end += v->distance_count;
        c_end += v->colour_count;
    }
    if (d_end != a->hdistance_count || c_end != a->hcolour_count)
        return bad_hierarchy(lg, name, "levels leave coarse constraints or colours unowned");
    return SINEW_RESULT_OK;
}

/* nodes: a permutation of the particles ordered coarsest first, the level of
 * each the coarsest holding it; fills level_of. */
static sinew_result check_nodes(const sinew_asset *a, uint32_t *level_of, const char *name, const sinew_logger *lg)
{
    const uint32_t n = a->particle_count;
    for (uint32_t i = 0; i < n; ++i)
        level_of[i] = UINT32_MAX;
    uint32_t level = a->level_count - 1;
    for (uint32_t i = 0; i < n; ++i) {
        while (level > 0 && i >= a->levels[level].particle_count)
            level--;
        const sinew_node_rec *v = &a->nodes[i];
        if (v->particle >= n)
            return sinew_asset_bad_record(lg, name, "HNOD", i, "particle index %u out of range (%u particles)",
                                          v->particle, n);
        if (level_of[v->particle] != UINT32_MAX)
            return sinew_asset_bad_record(lg, name, "HNOD", i, "particle %u listed twice", v->particle);
        if (v->level != level)
            return sinew_asset_bad_record(lg, name, "HNOD", i, "level %u, but its place in the list puts it on "
                                          "level %u", v->level, level);
        level_of[v->particle] = level;
    }
    return SINEW_RESULT_OK;
}

static sinew_result check_links(const sinew_asset *a, const uint32_t *level_of, const char *name,
                                const sinew_logger *lg)
{
    const uint32_t top = a->level_count - 1;
    for (uint32_t i = 0; i < a->particle_count; ++i) {
        const sinew_node_rec *v = &a->nodes[i];
        if (v->level == top ? v->link_count != 0 : v->link_count == 0)
            return sinew_asset_bad_record(lg, name, "HNOD", i, "%u parents (particles of the coarsest level have "
                                          "none, all others at least one)", v->link_count);
        if (v->link_begin > a->link_count || v->link_count > a->link_count - v->link_begin)
            return sinew_asset_bad_record(lg, name, "HNOD", i, "parents [%u, +%u) run past the %u links",
                                          v->link_begin, v->link_count, a->link_count);
        double sum = 0.0;
        for (uint32_t k = v->link_begin; k < v->link_begin + v->link_count; ++k) {
            const sinew_link_rec *p = &a->links[k];
            if (p->parent >= a->particle_count || level_of[p->parent] <= v->level)
                return sinew_asset_bad_record(lg, name, "HLNK", k, "parent %u of particle %u is not a particle of "
                                              "level %u", p->parent, v->particle, v->level + 1);
            if (!(p->weight > 0.0f && p->weight <= 1.0f))
                return sinew_asset_bad_record(lg, name, "HLNK", k, "weight %g is not in (0, 1]", (double)p->weight);
            sum += p->weight;
        }
        if (v->link_count && fabs(sum - 1.0) > SINEW_HIERARCHY_WEIGHT_TOLERANCE)
            return sinew_asset_bad_record(lg, name, "HNOD", i, "weights of particle %u's parents sum to %.6f, not 1",
                                          v->particle, sum);
    }
    return SINEW_RESULT_OK;
}

/* Endpoints on the constraint's level, lengths positive, no particle twice in
 * a colour (stamped with the colour's index + 1). */
static sinew_result check_constraints(const sinew_asset *a, const uint32_t *level_of, uint32_t *stamp,
                                      const char *name, const sinew_logger *lg)
{
    for (uint32_t l = 1; l < a->level_count; ++l) {
        const sinew_level_rec *v = &a->levels[l];
        for (uint32_t c = v->colour_begin; c < v->colour_begin + v->colour_count; ++c) {
            const sinew_range_rec *r = &a->hcolours[c];
            for (uint32_t k = r->begin; k < r->begin + r->count; ++k) {
                const sinew_distance_rec *d = &a->hdistances[k];
                if (d->a >= a->particle_count || d->b >= a->particle_count || d->a == d->b)
                    return sinew_asset_bad_record(lg, name, "HDST", k, "particles %u, %u (need two distinct of %u)",
                                                  d->a, d->b, a->particle_count);
                if (level_of[d->a] < l || level_of[d->b] < l)
                    return sinew_asset_bad_record(lg, name, "HDST", k, "joins particles %u, %u, not both on its "
                                                  "level %u", d->a, d->b, l);
                if (!(d->rest > 0.0f && isfinite(d->rest)))
                    return sinew_asset_bad_record(lg, name, "HDST", k, "rest length %g is not positive and finite",
                                                  (double)d->rest);
                if (d->kind != SINEW_KIND_STRETCH)
                    return sinew_asset_bad_record(lg, name, "HDST", k, "kind %u (coarse constraints are stretch, 0)",
                                                  d->kind);
                if (stamp[d->a] == c + 1 || stamp[d->b] == c + 1)
                    return sinew_asset_bad_record(lg, name, "HDST", k, "shares a particle with another constraint "
                                                  "of colour %u", c);
                stamp[d->a] = stamp[d->b] = c + 1;
            }
        }
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_asset_validate_hierarchy(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    if (a->level_count == 0) {
        if (a->link_count || a->hdistance_count || a->hcolour_count)
            return bad_hierarchy(lg, name, "links, coarse constraints or colours without levels (section HLEV)");
        return SINEW_RESULT_OK;
    }
    if (a->level_count < 2 || a->level_count > SINEW_ASSET_MAX_LEVELS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: section HLEV: %u levels (a hierarchy has "
                          "2 to %u)", name, a->level_count, SINEW_ASSET_MAX_LEVELS);
    if (a->particle_count == 0)
        return bad_hierarchy(lg, name, "levels without particles");
    if (a->hcolour_count > SINEW_ASSET_MAX_COLOURS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: section HCOL: %u colours exceed the limit "
                          "of %u", name, a->hcolour_count, SINEW_ASSET_MAX_COLOURS);
    sinew_result r = check_levels(a, name, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    uint32_t *level_of = malloc((size_t)a->particle_count * sizeof *level_of);
    uint32_t *stamp = calloc(a->particle_count, sizeof *stamp);
    if (!level_of || !stamp)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset", "%s: no memory to check the hierarchy",
                       name);
    if (r == SINEW_RESULT_OK && (r = check_nodes(a, level_of, name, lg)) == SINEW_RESULT_OK &&
        (r = check_links(a, level_of, name, lg)) == SINEW_RESULT_OK)
        r = check_constraints(a, level_of, stamp, name, lg);
    free(level_of);
    free(stamp);
    return r;
}

int sinew_asset_alloc_red_black(sinew_asset *a, uint32_t reds, uint32_t blacks)
{
    SINEW_ASSERT(a);
    uint32_t *r = NULL, *b = NULL;
    if ((reds && !(r = calloc(reds, sizeof *r))) || (blacks && !(b = calloc(blacks, sizeof *b)))) {
        free(r);
        free(b);
        return 0;
    }
    free(a->reds);
    free(a->blacks);
    a->reds = r;
    a->blacks = b;
    a->red_count = reds;
    a->black_count = blacks;
    return 1;
}

sinew_result sinew_asset_validate_red_black(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    if (a->red_count == 0 && a->black_count == 0)
        return SINEW_RESULT_OK;
    const uint32_t n = a->particle_count;
    if (a->red_count > n || a->black_count != n - a->red_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: sections PRED, PBLK: %u red and %u black "
                          "particles for %u particles (each particle in one of them once)", name, a->red_count,
                          a->black_count, n);
    uint8_t *colour = malloc(n);
    if (!colour)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset", "%s: no memory to check the red-black "
                          "partition", name);
    memset(colour, 0xFF, n);
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t side = 0; side < 2 && r == SINEW_RESULT_OK; side++) {
        const uint32_t *list = side ? a->blacks : a->reds;
        const uint32_t count = side ? a->black_count : a->red_count;
        const char *tag = side ? "PBLK" : "PRED";
        for (uint32_t k = 0; k < count && r == SINEW_RESULT_OK; k++) {
            if (list[k] >= n)
                r = sinew_asset_bad_record(lg, name, tag, k, "particle index %u out of range (%u particles)", list[k], n);
            else if (colour[list[k]] != 0xFF)
                r = sinew_asset_bad_record(lg, name, tag, k, "particle %u is already %s", list[k],
                                           colour[list[k]] ? "black" : "red");
            else
                colour[list[k]] = (uint8_t)side;
        }
    }
    for (uint32_t c = 0; c < a->distance_count && r == SINEW_RESULT_OK; c++)
        if (colour[a->distances[c].a] == colour[a->distances[c].b])
            r = sinew_asset_bad_record(lg, name, "DIST", c, "joins particles %u and %u, both %s: not a red-black "
                                       "partition", a->distances[c].a, a->distances[c].b,
                                       colour[a->distances[c].a] ? "black" : "red");
    free(colour);
    return r;
}
