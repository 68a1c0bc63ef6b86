/* The asset in memory: allocation, the summary the public API reports, and the
 * semantic checks every asset passes before it is loaded or written (the list
 * is docs/asset-format.md, "Validation"). The checks run in O(n + m): the
 * colour-independence tests (constraint colours and element colours) stamp
 * each particle with the colour that last touched it instead of comparing
 * pairs. */
#include "asset.h"

#include "../core/log.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The float nearest pi (0x40490FDB) is a little above pi; a rest angle computed
 * in single precision may equal it, so that is the bound. */
#define ANGLE_LIMIT 3.14159265358979323846f

sinew_asset *sinew_asset_alloc(uint32_t particles, uint32_t triangles, uint32_t distances,
                               uint32_t bends, uint32_t colours)
{
    sinew_asset *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->particle_count = particles;
    a->triangle_count = triangles;
    a->distance_count = distances;
    a->bend_count = bends;
    a->colour_count = colours;
    /* Empty arrays stay NULL; calloc checks count * size for overflow. */
    if ((particles && !(a->particles = calloc(particles, sizeof *a->particles))) ||
        (triangles && !(a->triangles = calloc(triangles, sizeof *a->triangles))) ||
        (distances && !(a->distances = calloc(distances, sizeof *a->distances))) ||
        (bends && !(a->bends = calloc(bends, sizeof *a->bends))) ||
        (colours && !(a->colours = calloc(colours, sizeof *a->colours)))) {
        sinew_asset_destroy(a);
        return NULL;
    }
    return a;
}

int sinew_asset_alloc_elements(sinew_asset *a, uint32_t elements, uint32_t element_colours, uint32_t materials)
{
    SINEW_ASSERT(a);
    sinew_element_rec *e = NULL;
    sinew_element_colour_rec *c = NULL;
    sinew_material_rec *m = NULL;
    if ((elements && !(e = calloc(elements, sizeof *e))) ||
        (element_colours && !(c = calloc(element_colours, sizeof *c))) ||
        (materials && !(m = calloc(materials, sizeof *m)))) {
        free(e);
        free(c);
        free(m);
        return 0;
    }
    free(a->elements);
    free(a->element_colours);
    free(a->materials);
    a->elements = e;
    a->element_colours = c;
    a->materials = m;
    a->element_count = elements;
    a->element_colour_count = element_colours;
    a->material_count = materials;
    return 1;
}

void sinew_asset_destroy(sinew_asset *asset)
{
    if (!asset)
        return;
    free(asset->particles);
    free(asset->triangles);
    free(asset->distances);
    free(asset->bends);
    free(asset->colours);
    free(asset->elements);
    free(asset->element_colours);
    free(asset->materials);
    free(asset->levels);
    free(asset->nodes);
    free(asset->links);
    free(asset->hdistances);
    free(asset->hcolours);
    free(asset->reds);
    free(asset->blacks);
    free(asset->mlevels);
    free(asset->mtriangles);
    free(asset->parents);
    free(asset->mcolours);
    free(asset->mvertices);
    free(asset->cpasses);
    free(asset->clusters);
    free(asset->cparticles);
    free(asset->ccolours);
    free(asset->citems);
    free(asset->meta);
    free(asset->rvertices);
    free(asset->rtriangles);
    sinew_asset_free_render_materials(asset);
    free(asset);
}

sinew_asset_info sinew_asset_get_info(const sinew_asset *asset)
{
    SINEW_ASSERT(asset);
    sinew_asset_info info = {0};
    info.particle_count = asset->particle_count;
    info.triangle_count = asset->triangle_count;
    info.distance_count = asset->distance_count;
    info.bend_count = asset->bend_count;
    info.colour_count = asset->colour_count;
    /* Summed in double so a million small masses do not lose their tail. */
    double mass = 0.0;
    for (uint32_t i = 0; i < asset->particle_count; ++i) {
        const sinew_particle_rec *p = &asset->particles[i];
        const float pos[3] = {p->x, p->y, p->z};
        for (int k = 0; k < 3; ++k) {
            if (i == 0 || pos[k] < info.bounds_min[k])
                info.bounds_min[k] = pos[k];
            if (i == 0 || pos[k] > info.bounds_max[k])
                info.bounds_max[k] = pos[k];
        }
        if (p->w == 0.0f)
            info.pinned_count++;
        else
            mass += 1.0 / p->w;
    }
    info.total_mass = (float)mass;

    info.element_count = asset->element_count;
    info.element_colour_count = asset->element_colour_count;
    info.material_count = asset->material_count;
    double volume = 0.0;
    for (uint32_t i = 0; i < asset->element_count; ++i) {
        const sinew_element_rec *e = &asset->elements[i];
        if (e->kind == SINEW_ELEMENT_TET) {
            info.tet_count++;
            volume += e->rest_measure;
        } else if (e->kind == SINEW_ELEMENT_TRIANGLE) {
            info.membrane_count++;
        } else if (e->kind == SINEW_ELEMENT_SPRING) {
            info.spring_count++;
        }
    }
    info.rest_volume = (float)volume;
    info.hierarchy_levels = asset->level_count;
    info.coarsest_particles = asset->level_count ? asset->levels[asset->level_count - 1].particle_count : 0;
    info.coarse_distance_count = asset->hdistance_count;
    info.multigrid_levels = asset->mlevel_count;
    info.multigrid_coarsest_particles = asset->mlevel_count ? asset->mlevels[0].vertex_count : 0;
    info.cluster_passes = asset->cpass_count;
    info.cluster_count = asset->cluster_count;
    return info;
}

const uint32_t *sinew_asset_get_triangles(const sinew_asset *asset, uint32_t *triangle_count)
{
    SINEW_ASSERT(asset && triangle_count);
    *triangle_count = asset->triangle_count;
    return asset->triangle_count ? asset->triangles[0].v : NULL;
}

void sinew_asset_get_tets(const sinew_asset *asset, uint32_t *tets)
{
    SINEW_ASSERT(asset);
    uint32_t t = 0;
    for (uint32_t i = 0; i < asset->element_count; ++i)
        if (asset->elements[i].kind == SINEW_ELEMENT_TET) {
            SINEW_ASSERT(tets);
            memcpy(tets + 4 * (size_t)t++, asset->elements[i].v, 4 * sizeof *tets);
        }
}

void sinew_asset_get_inverse_masses(const sinew_asset *asset, float *w)
{
    SINEW_ASSERT(asset && (w || asset->particle_count == 0));
    for (uint32_t i = 0; i < asset->particle_count; ++i)
        w[i] = asset->particles[i].w;
}

void sinew_asset_get_positions(const sinew_asset *asset, float *xyz)
{
    SINEW_ASSERT(asset && (xyz || asset->particle_count == 0));
    for (uint32_t i = 0; i < asset->particle_count; ++i) {
        xyz[3 * i] = asset->particles[i].x;
        xyz[3 * i + 1] = asset->particles[i].y;
        xyz[3 * i + 2] = asset->particles[i].z;
    }
}

void sinew_asset_get_distances(const sinew_asset *asset, uint32_t *pairs)
{
    SINEW_ASSERT(asset && (pairs || asset->distance_count == 0));
    for (uint32_t c = 0; c < asset->distance_count; ++c) {
        pairs[2 * c] = asset->distances[c].a;
        pairs[2 * c + 1] = asset->distances[c].b;
    }
}

sinew_result sinew_asset_get_material(const sinew_asset *asset, uint32_t index, sinew_material *out)
{
    SINEW_ASSERT(asset && out);
    /* The asset keeps no logger: the message goes to stderr. */
    if (index >= asset->material_count)
        return sinew_fail(NULL, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "asset",
                          "material index %u out of range (the asset has %u materials)", index,
                          asset->material_count);
    *out = asset->materials[index];
    return SINEW_RESULT_OK;
}

/* Every defect of one record: BAD_ASSET, naming the asset, section and record. */
#define bad_record sinew_asset_bad_record
sinew_result sinew_asset_bad_record(const sinew_logger *lg, const char *name, const char *tag, uint32_t record,
                                    const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: section %s, record %u: %s", name, tag,
                      record, what);
}

static sinew_result bad_index(const sinew_logger *lg, const char *name, const char *tag, uint32_t record,
                              uint32_t index, uint32_t n)
{
    return bad_record(lg, name, tag, record, "particle index %u out of range (%u particles)", index, n);
}

static sinew_result check_limit(const sinew_logger *lg, const char *name, const char *tag, uint32_t count,
                                uint32_t limit, const char *what)
{
    if (count <= limit)
        return SINEW_RESULT_OK;
    return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: section %s: %u %s exceed the limit of %u",
                      name, tag, count, what, limit);
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if there is none. */
static size_t utf8_sequence(const unsigned char *s, size_t left)
{
    if (s[0] < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        len = 2;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        len = 3;
        if (s[0] == 0xE0)
            lo = 0xA0;
        else if (s[0] == 0xED)
            hi = 0x9F;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        len = 4;
        if (s[0] == 0xF0)
            lo = 0x90;
        else if (s[0] == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (left < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; ++k)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return len;
}

static sinew_result validate_particles(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    for (uint32_t i = 0; i < a->particle_count; ++i) {
        const sinew_particle_rec *p = &a->particles[i];
        if (!isfinite(p->x) || !isfinite(p->y) || !isfinite(p->z))
            return bad_record(lg, name, "PART", i, "position is not finite");
        if (!isfinite(p->w) || p->w < 0.0f)
            return bad_record(lg, name, "PART", i, "inverse mass %g is not finite and >= 0", (double)p->w);
    }
    return SINEW_RESULT_OK;
}

static sinew_result validate_triangles(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    for (uint32_t i = 0; i < a->triangle_count; ++i)
        for (int k = 0; k < 3; ++k)
            if (a->triangles[i].v[k] >= a->particle_count)
                return bad_index(lg, name, "TRIS", i, a->triangles[i].v[k], a->particle_count);
    return SINEW_RESULT_OK;
}

static sinew_result validate_distances(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    for (uint32_t i = 0; i < a->distance_count; ++i) {
        const sinew_distance_rec *d = &a->distances[i];
        if (d->a >= a->particle_count)
            return bad_index(lg, name, "DIST", i, d->a, a->particle_count);
        if (d->b >= a->particle_count)
            return bad_index(lg, name, "DIST", i, d->b, a->particle_count);
        if (d->a == d->b)
            return bad_record(lg, name, "DIST", i, "both ends are particle %u", d->a);
        if (!isfinite(d->rest) || d->rest <= 0.0f)
            return bad_record(lg, name, "DIST", i, "rest length %g is not finite and > 0", (double)d->rest);
        if (d->kind != SINEW_KIND_STRETCH && d->kind != SINEW_KIND_SHEAR)
            return bad_record(lg, name, "DIST", i, "kind %u is not stretch (0) or shear (1)", d->kind);
    }
    return SINEW_RESULT_OK;
}

static sinew_result validate_bends(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    for (uint32_t i = 0; i < a->bend_count; ++i) {
        const sinew_bend_rec *b = &a->bends[i];
        for (int k = 0; k < 4; ++k) {
            if (b->v[k] >= a->particle_count)
                return bad_index(lg, name, "BEND", i, b->v[k], a->particle_count);
            for (int j = 0; j < k; ++j)
                if (b->v[j] == b->v[k])
                    return bad_record(lg, name, "BEND", i, "particle %u appears twice", b->v[k]);
        }
        if (!isfinite(b->rest_angle) || b->rest_angle < -ANGLE_LIMIT || b->rest_angle > ANGLE_LIMIT)
            return bad_record(lg, name, "BEND", i, "rest angle %g is not within [-pi, pi]", (double)b->rest_angle);
        if (b->kind != SINEW_KIND_BEND)
            return bad_record(lg, name, "BEND", i, "kind %u is not bend (2)", b->kind);
    }
    return SINEW_RESULT_OK;
}

/* The colour ranges tile distances and bends from 0 to the end, in order. */
static sinew_result validate_colour_ranges(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    uint32_t d_end = 0, b_end = 0;
    for (uint32_t c = 0; c < a->colour_count; ++c) {
        const sinew_colour_rec *r = &a->colours[c];
        if (r->distance_begin != d_end || r->bend_begin != b_end)
            return bad_record(lg, name, "COLR", c,
                              "ranges begin at distance %u, bend %u instead of distance %u, bend %u (colours "
                              "follow each other from 0 without gaps)",
                              r->distance_begin, r->bend_begin, d_end, b_end);
        /* Compared as remainders so a huge count cannot wrap the sum. */
        if (r->distance_count > a->distance_count - d_end || r->bend_count > a->bend_count - b_end)
            return bad_record(lg, name, "COLR", c, "ranges run past the end (%u distances, %u bends)",
                              a->distance_count, a->bend_count);
        d_end += r->distance_count;
        b_end += r->bend_count;
    }
    if (d_end != a->distance_count || b_end != a->bend_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                          "%s: section COLR: colours cover %u of %u distances and %u of %u bends", name, d_end,
                          a->distance_count, b_end, a->bend_count);
    return SINEW_RESULT_OK;
}

/* Stamps the particles of one constraint with colour + 1 (so the zeroed array
 * means "no colour yet"). Returns the first particle that another constraint of
 * the same colour already holds, or UINT32_MAX. */
static uint32_t stamp_constraint(uint32_t *stamp, const uint32_t *v, int count, uint32_t colour)
{
    for (int k = 0; k < count; ++k) {
        if (stamp[v[k]] == colour + 1)
            return v[k];
        stamp[v[k]] = colour + 1;
    }
    return UINT32_MAX;
}

static sinew_result validate_colour(const sinew_asset *a, uint32_t *stamp, uint32_t colour, const char *name,
                                    const sinew_logger *lg)
{
    const sinew_colour_rec *c = &a->colours[colour];
    for (uint32_t i = c->distance_begin; i < c->distance_begin + c->distance_count; ++i) {
        const uint32_t ends[2] = {a->distances[i].a, a->distances[i].b};
        uint32_t p = stamp_constraint(stamp, ends, 2, colour);
        if (p != UINT32_MAX)
            return bad_record(lg, name, "DIST", i, "particle %u is already used by another constraint of colour %u",
                              p, colour);
    }
    for (uint32_t i = c->bend_begin; i < c->bend_begin + c->bend_count; ++i) {
        uint32_t p = stamp_constraint(stamp, a->bends[i].v, 4, colour);
        if (p != UINT32_MAX)
            return bad_record(lg, name, "BEND", i, "particle %u is already used by another constraint of colour %u",
                              p, colour);
    }
    return SINEW_RESULT_OK;
}

/* Needs indices and colour ranges already checked. Without particles there can
 * be no constraints, so nothing to check (and calloc(0) may return NULL). */
static sinew_result validate_independence(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    if (a->colour_count == 0 || a->particle_count == 0)
        return SINEW_RESULT_OK;
    uint32_t *stamp = calloc(a->particle_count, sizeof *stamp);
    if (!stamp)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset",
                          "%s: no memory to check the colours of %u particles", name, a->particle_count);
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t colour = 0; colour < a->colour_count && r == SINEW_RESULT_OK; ++colour)
        r = validate_colour(a, stamp, colour, name, lg);
    free(stamp);
    return r;
}

/* ---------------------------------------------------------------- elements */

static const struct element_kind {
    int vertices; /* used slots of v[] */
    const char *name, *plural, *measure;
} element_kinds[SINEW_ELEMENT_KIND_COUNT] = {
    [SINEW_ELEMENT_SPRING] = {2, "spring", "springs", "length"},
    [SINEW_ELEMENT_TRIANGLE] = {3, "triangle", "triangles", "area"},
    [SINEW_ELEMENT_TET] = {4, "tetrahedron", "tetrahedra", "volume"},
};

/* In double: the products of float entries are exact there, so a triangle's
 * determinant is 0 only when the two products are equal. */
static double det3(const float *m)
{
    return (double)m[0] * ((double)m[4] * m[8] - (double)m[7] * m[5]) -
           (double)m[3] * ((double)m[1] * m[8] - (double)m[7] * m[2]) +
           (double)m[6] * ((double)m[1] * m[5] - (double)m[4] * m[2]);
}

static double det2(const float *m) { return (double)m[0] * m[4] - (double)m[3] * m[1]; }

/* inv_rest entries a triangle leaves zero: the third row and column. */
static const int triangle_zeros[] = {2, 5, 6, 7, 8};

static sinew_result validate_element(const sinew_asset *a, uint32_t i, const char *name, const sinew_logger *lg)
{
    const sinew_element_rec *e = &a->elements[i];
    if (e->kind >= SINEW_ELEMENT_KIND_COUNT)
        return bad_record(lg, name, "ELEM", i, "kind %u is not spring (0), triangle (1) or tetrahedron (2)",
                          e->kind);
    const struct element_kind *k = &element_kinds[e->kind];
    for (int s = 0; s < k->vertices; ++s) {
        if (e->v[s] >= a->particle_count)
            return bad_index(lg, name, "ELEM", i, e->v[s], a->particle_count);
        for (int t = 0; t < s; ++t)
            if (e->v[t] == e->v[s])
                return bad_record(lg, name, "ELEM", i, "particle %u appears twice", e->v[s]);
    }
    for (int s = k->vertices; s < 4; ++s)
        if (e->v[s] != SINEW_NO_VERTEX)
            return bad_record(lg, name, "ELEM", i, "unused vertex slot %d of a %s holds %u, not 0xFFFFFFFF (no vertex)",
                              s, k->name, e->v[s]);
    if (e->material >= a->material_count)
        return bad_record(lg, name, "ELEM", i, "material %u out of range (%u materials)", e->material,
                          a->material_count);
    if (!isfinite(e->rest_measure) || e->rest_measure <= 0.0f)
        return bad_record(lg, name, "ELEM", i, "rest %s %g is not finite and > 0", k->measure,
                          (double)e->rest_measure);
    for (int j = 0; j < 9; ++j)
        if (!isfinite(e->inv_rest[j]))
            return bad_record(lg, name, "ELEM", i, "inv_rest[%d] %g is not finite", j, (double)e->inv_rest[j]);
    switch (e->kind) {
    case SINEW_ELEMENT_TET: {
        double det = det3(e->inv_rest);
        if (!(det > 0.0))
            return bad_record(lg, name, "ELEM", i,
                              "inverse rest shape has determinant %g: the tetrahedron is not positively oriented "
                              "(det > 0)", det);
        break;
    }
    case SINEW_ELEMENT_TRIANGLE:
        for (size_t j = 0; j < sizeof triangle_zeros / sizeof triangle_zeros[0]; ++j)
            if (e->inv_rest[triangle_zeros[j]] != 0.0f)
                return bad_record(lg, name, "ELEM", i,
                                  "inv_rest[%d] %g is not 0 (a triangle's rest shape is the 2x2 block "
                                  "inv_rest[0, 1, 3, 4])", triangle_zeros[j], (double)e->inv_rest[triangle_zeros[j]]);
        if (det2(e->inv_rest) == 0.0)
            return bad_record(lg, name, "ELEM", i, "inverse rest shape has determinant 0: degenerate triangle");
        break;
    default: /* spring */
        for (int j = 0; j < 9; ++j)
            if (e->inv_rest[j] != 0.0f)
                return bad_record(lg, name, "ELEM", i, "inv_rest[%d] %g is not 0 (a spring has no rest shape matrix)",
                                  j, (double)e->inv_rest[j]);
        break;
    }
    return SINEW_RESULT_OK;
}

static sinew_result validate_elements(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t i = 0; i < a->element_count && r == SINEW_RESULT_OK; ++i)
        r = validate_element(a, i, name, lg);
    return r;
}

/* The element colour ranges tile the elements from 0 to the end, in order. */
static sinew_result validate_element_colour_ranges(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    uint32_t end = 0;
    for (uint32_t c = 0; c < a->element_colour_count; ++c) {
        const sinew_element_colour_rec *r = &a->element_colours[c];
        if (r->begin != end)
            return bad_record(lg, name, "ECOL", c,
                              "range begins at element %u instead of %u (element colours follow each other from 0 "
                              "without gaps)", r->begin, end);
        if (r->count > a->element_count - end) /* as a remainder: a huge count cannot wrap */
            return bad_record(lg, name, "ECOL", c, "range of %u elements from %u runs past the end (%u elements)",
                              r->count, r->begin, a->element_count);
        end += r->count;
    }
    if (end != a->element_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                          "%s: section ECOL: element colours cover %u of %u elements", name, end, a->element_count);
    return SINEW_RESULT_OK;
}

/* Needs the elements and the element colour ranges already checked. */
static sinew_result validate_element_independence(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    if (a->element_count == 0)
        return SINEW_RESULT_OK;
    uint32_t *stamp = calloc(a->particle_count, sizeof *stamp); /* elements imply particles */
    if (!stamp)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset",
                          "%s: no memory to check the element colours of %u particles", name, a->particle_count);
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t c = 0; c < a->element_colour_count && r == SINEW_RESULT_OK; ++c) {
        const sinew_element_colour_rec *range = &a->element_colours[c];
        for (uint32_t i = range->begin; i < range->begin + range->count; ++i) {
            const sinew_element_rec *e = &a->elements[i];
            uint32_t p = stamp_constraint(stamp, e->v, element_kinds[e->kind].vertices, c);
            if (p != UINT32_MAX) {
                r = bad_record(lg, name, "ELEM", i, "particle %u is already used by another element of colour %u",
                               p, c);
                break;
            }
        }
    }
    free(stamp);
    return r;
}

/* sinew_material_check's message, kept to be sent again as the asset's own. */
struct material_message {
    char text[512];
};

static void keep_message(void *user, sinew_log_level level, const char *id, const char *message)
{
    struct material_message *m = user;
    snprintf(m->text, sizeof m->text, "%s", message);
}

/* Which element kind each model is for. */
static uint32_t model_element_kind(uint32_t model)
{
    switch (model) {
    case SINEW_MATERIAL_SPRING: return SINEW_ELEMENT_SPRING;
    case SINEW_MATERIAL_NEO_HOOKEAN:
    case SINEW_MATERIAL_STABLE_NEO_HOOKEAN: return SINEW_ELEMENT_TET;
    default: return SINEW_ELEMENT_TRIANGLE; /* STVK, TABULATED: membranes */
    }
}

/* Every material is valid, and every element's kind is the one its material's
 * model is for. Needs the elements already checked. */
static sinew_result validate_materials(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    for (uint32_t k = 0; k < a->material_count; ++k) {
        char where[64];
        snprintf(where, sizeof where, "section MATL, record %u", k);
        struct material_message m = {""};
        const sinew_logger keep = {keep_message, &m, SINEW_LOG_ERROR};
        if (sinew_material_check(&a->materials[k], where, &keep) != SINEW_RESULT_OK)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: %s", name, m.text);
    }
    for (uint32_t i = 0; i < a->element_count; ++i) {
        const sinew_element_rec *e = &a->elements[i];
        uint32_t model = a->materials[e->material].model, kind = model_element_kind(model);
        if (e->kind != kind)
            return bad_record(lg, name, "MATL", e->material, "model %s is for %s, but element %u is a %s",
                              sinew_material_model_name(model), element_kinds[kind].plural, i,
                              element_kinds[e->kind].name);
    }
    return SINEW_RESULT_OK;
}

static sinew_result validate_meta(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    if (!a->meta)
        return SINEW_RESULT_OK;
    const unsigned char *s = (const unsigned char *)a->meta;
    size_t len = strlen(a->meta);
    for (size_t i = 0; i < len;) {
        size_t step = utf8_sequence(s + i, len - i);
        if (step == 0)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                              "%s: section META, byte %zu: text is not well-formed UTF-8", name, i);
        i += step;
    }
    return SINEW_RESULT_OK;
}

int sinew_asset_has_origin(const sinew_asset *a)
{
    return a->origin[0] != 0.0 || a->origin[1] != 0.0 || a->origin[2] != 0.0;
}

/* The first coordinate of o that is not finite or lies past
 * SINEW_ASSET_MAX_ORIGIN (a unit or parsing error, not a place); -1: none.
 * NaN fails the comparison too. */
static int bad_origin_axis(const double o[3])
{
    for (int k = 0; k < 3; ++k)
        if (!(fabs(o[k]) <= SINEW_ASSET_MAX_ORIGIN))
            return k;
    return -1;
}

static sinew_result validate_origin(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    const double *o = a->origin;
    const int k = bad_origin_axis(o);
    if (k < 0)
        return SINEW_RESULT_OK;
    return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                      "%s: section ORIG: origin (%.17g, %.17g, %.17g) m: its %c coordinate is not finite or beyond "
                      "%g m", name, o[0], o[1], o[2], "xyz"[k], SINEW_ASSET_MAX_ORIGIN);
}

void sinew_asset_get_origin(const sinew_asset *asset, double origin[3])
{
    SINEW_ASSERT(asset && origin);
    memcpy(origin, asset->origin, sizeof asset->origin);
}

sinew_result sinew_asset_set_origin(sinew_asset *asset, const double origin[3], const sinew_logger *lg)
{
    SINEW_ASSERT(asset && origin);
    const int k = bad_origin_axis(origin);
    if (k >= 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "asset",
                          "origin (%.17g, %.17g, %.17g) m: its %c coordinate is not finite or beyond %g m; the "
                          "asset's origin is unchanged", origin[0], origin[1], origin[2], "xyz"[k],
                          SINEW_ASSET_MAX_ORIGIN);
    memcpy(asset->origin, origin, sizeof asset->origin);
    return SINEW_RESULT_OK;
}

sinew_result sinew_asset_validate(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    SINEW_ASSERT(a && name);
    sinew_result r;
    if ((r = check_limit(lg, name, "PART", a->particle_count, SINEW_ASSET_MAX_PARTICLES, "particles")) ||
        (r = check_limit(lg, name, "TRIS", a->triangle_count, SINEW_ASSET_MAX_RECORDS, "triangles")) ||
        (r = check_limit(lg, name, "DIST", a->distance_count, SINEW_ASSET_MAX_RECORDS, "distance constraints")) ||
        (r = check_limit(lg, name, "BEND", a->bend_count, SINEW_ASSET_MAX_RECORDS, "bending constraints")) ||
        (r = check_limit(lg, name, "COLR", a->colour_count, SINEW_ASSET_MAX_COLOURS, "colours")) ||
        (r = check_limit(lg, name, "ELEM", a->element_count, SINEW_ASSET_MAX_RECORDS, "elements")) ||
        (r = check_limit(lg, name, "ECOL", a->element_colour_count, SINEW_ASSET_MAX_COLOURS, "element colours")) ||
        (r = check_limit(lg, name, "MATL", a->material_count, SINEW_ASSET_MAX_MATERIALS, "materials")) ||
        (r = validate_particles(a, name, lg)) || (r = validate_origin(a, name, lg)) ||
        (r = validate_triangles(a, name, lg)) ||
        (r = validate_distances(a, name, lg)) || (r = validate_bends(a, name, lg)) ||
        (r = validate_colour_ranges(a, name, lg)) || (r = validate_independence(a, name, lg)) ||
        (r = validate_elements(a, name, lg)) || (r = validate_element_colour_ranges(a, name, lg)) ||
        (r = validate_element_independence(a, name, lg)) || (r = validate_materials(a, name, lg)) ||
        (r = sinew_asset_validate_hierarchy(a, name, lg)) || (r = sinew_asset_validate_red_black(a, name, lg)) ||
        (r = sinew_asset_validate_multigrid(a, name, lg)) || (r = sinew_asset_validate_clusters(a, name, lg)) ||
        (r = validate_meta(a, name, lg)) || (r = sinew_asset_validate_render(a, name, lg)))
        return r;
    return SINEW_RESULT_OK;
}
