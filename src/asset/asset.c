/* The asset in memory: allocation, the summary the public API reports, and the
 * semantic checks every asset passes before it is loaded or written (the list
 * is docs/asset-format.md, "Validation"). The checks run in O(n + m): the
 * colour-independence test stamps each particle with the colour that last
 * touched it instead of comparing constraint pairs. */
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

void sinew_asset_destroy(sinew_asset *asset)
{
    if (!asset)
        return;
    free(asset->particles);
    free(asset->triangles);
    free(asset->distances);
    free(asset->bends);
    free(asset->colours);
    free(asset->meta);
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
    return info;
}

const uint32_t *sinew_asset_get_triangles(const sinew_asset *asset, uint32_t *triangle_count)
{
    *triangle_count = asset->triangle_count;
    return asset->triangle_count ? asset->triangles[0].v : NULL;
}

/* Every defect of one record: BAD_ASSET, naming the asset, section and record. */
static sinew_result bad_record(const sinew_logger *lg, const char *name, const char *tag, uint32_t record,
                               const char *fmt, ...) SINEW_PRINTF(5, 6);

static sinew_result bad_record(const sinew_logger *lg, const char *name, const char *tag, uint32_t record,
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

sinew_result sinew_asset_validate(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    SINEW_ASSERT(a && name);
    sinew_result r;
    if ((r = check_limit(lg, name, "PART", a->particle_count, SINEW_ASSET_MAX_PARTICLES, "particles")) ||
        (r = check_limit(lg, name, "TRIS", a->triangle_count, SINEW_ASSET_MAX_RECORDS, "triangles")) ||
        (r = check_limit(lg, name, "DIST", a->distance_count, SINEW_ASSET_MAX_RECORDS, "distance constraints")) ||
        (r = check_limit(lg, name, "BEND", a->bend_count, SINEW_ASSET_MAX_RECORDS, "bending constraints")) ||
        (r = check_limit(lg, name, "COLR", a->colour_count, SINEW_ASSET_MAX_COLOURS, "colours")) ||
        (r = validate_particles(a, name, lg)) || (r = validate_triangles(a, name, lg)) ||
        (r = validate_distances(a, name, lg)) || (r = validate_bends(a, name, lg)) ||
        (r = validate_colour_ranges(a, name, lg)) || (r = validate_independence(a, name, lg)) ||
        (r = validate_meta(a, name, lg)))
        return r;
    return SINEW_RESULT_OK;
}
