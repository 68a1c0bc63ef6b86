/* The render mesh of an asset (format 1.6, its materials 1.8;
 * docs/render-mesh.md, docs/asset-format.md): its allocation, every check
 * the loader makes of it,
 * so that the render kernel never reads past the particles and never divides
 * by a weight sum far from 1, and the public getters. */
#include "asset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"

int sinew_asset_alloc_render(sinew_asset *a, uint32_t vertices, uint32_t triangles)
{
    SINEW_ASSERT(a);
    sinew_render_vertex_rec *v = calloc(vertices ? vertices : 1, sizeof *v);
    sinew_triangle_rec *t = calloc(triangles ? triangles : 1, sizeof *t);
    if (!v || !t) {
        free(v);
        free(t);
        return 0;
    }
    free(a->rvertices);
    free(a->rtriangles);
    a->rvertices = v;
    a->rtriangles = t;
    a->rvertex_count = vertices;
    a->rtriangle_count = triangles;
    return 1;
}

void sinew_asset_free_render_materials(sinew_asset *a)
{
    free(a->rmaterials);
    free(a->rnames);
    free(a->rlibrary);
    a->rmaterials = NULL;
    a->rnames = a->rlibrary = NULL;
    a->rmaterial_count = a->rname_size = a->rlibrary_size = 0;
}

int sinew_asset_set_render_materials(sinew_asset *a, uint32_t count, char *const *names, const uint32_t *first,
                                     const char *library, const char *text, size_t text_size)
{
    SINEW_ASSERT(a && (count == 0 || (names && first)));
    size_t name_bytes = 0;
    for (uint32_t g = 0; g < count; g++)
        name_bytes += strlen(names[g]) + 1;
    size_t library_bytes = library ? strlen(library) + 1 + (text ? text_size : 0) : 0;
    if (name_bytes > UINT32_MAX || library_bytes > UINT32_MAX)
        return 0;
    sinew_render_material_rec *rec = calloc(count ? count : 1, sizeof *rec);
    char *pool = malloc(name_bytes + 1), *lib = malloc(library_bytes + 1);
    if (!rec || !pool || !lib) {
        free(rec);
        free(pool);
        free(lib);
        return 0;
    }
    size_t at = 0;
    for (uint32_t g = 0; g < count; g++) {
        size_t len = strlen(names[g]);
        rec[g] = (sinew_render_material_rec){first[g], first[g + 1] - first[g], (uint32_t)at, (uint32_t)len};
        memcpy(pool + at, names[g], len + 1);
        at += len + 1;
    }
    pool[name_bytes] = '\0';
    if (library) {
        size_t len = strlen(library);
        memcpy(lib, library, len + 1);
        if (text)
            memcpy(lib + len + 1, text, text_size);
    }
    lib[library_bytes] = '\0';
    sinew_asset_free_render_materials(a);
    a->rmaterials = rec;
    a->rnames = pool;
    a->rlibrary = lib;
    a->rmaterial_count = count;
    a->rname_size = (uint32_t)name_bytes;
    a->rlibrary_size = (uint32_t)library_bytes;
    return 1;
}

/* Printable text: no byte below 0x20 and no DEL. */
static int printable(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7F)
            return 0;
    return 1;
}

int sinew_asset_library_name_ok(const char *name, size_t len)
{
    return len > 0 && len <= SINEW_ASSET_MAX_LIBRARY_NAME && printable(name, len) && !memchr(name, '/', len) &&
           !memchr(name, '\\', len) && !(len == 1 && name[0] == '.') && !(len == 2 && name[0] == '.' && name[1] == '.');
}

static sinew_result validate_materials(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    if (a->rmaterial_count > SINEW_ASSET_MAX_RENDER_MATERIALS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: %u render materials exceed the limit "
                          "of %u", name, a->rmaterial_count, SINEW_ASSET_MAX_RENDER_MATERIALS);
    if ((a->rmaterial_count || a->rlibrary_size) && a->rtriangle_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: render materials without a render mesh "
                          "(sections RMAT and RLIB need RIDX)", name);
    if (a->rlibrary_size && a->rmaterial_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: a material library without material "
                          "groups (section RLIB needs RMAT)", name);
    uint64_t next = 0;
    for (uint32_t g = 0; g < a->rmaterial_count; g++) {
        const sinew_render_material_rec *m = &a->rmaterials[g];
        if (m->first_triangle != next || (uint64_t)m->first_triangle + m->triangle_count > a->rtriangle_count)
            return sinew_asset_bad_record(lg, name, "RMAT", g, "triangles [%u, +%u) do not follow the group before "
                                          "(at %llu) within the %u render triangles", m->first_triangle,
                                          m->triangle_count, (unsigned long long)next, a->rtriangle_count);
        next += m->triangle_count;
        if (m->name_length > SINEW_ASSET_MAX_MATERIAL_NAME ||
            (uint64_t)m->name_offset + m->name_length >= a->rname_size)
            return sinew_asset_bad_record(lg, name, "RMAT", g, "name of %u bytes at %u outside the %u bytes of "
                                          "section RMNM (or over %u bytes)", m->name_length, m->name_offset,
                                          a->rname_size, SINEW_ASSET_MAX_MATERIAL_NAME);
        const char *s = a->rnames + m->name_offset;
        if (s[m->name_length] != '\0' || !printable(s, m->name_length))
            return sinew_asset_bad_record(lg, name, "RMAT", g, "name is not printable text ended by a NUL");
    }
    if (next != a->rtriangle_count && a->rmaterial_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: render materials cover %llu of %u render "
                          "triangles", name, (unsigned long long)next, a->rtriangle_count);
    if (a->rlibrary_size) {
        const char *end = memchr(a->rlibrary, 0, a->rlibrary_size);
        const size_t len = end ? (size_t)(end - a->rlibrary) : 0;
        if (!end || !sinew_asset_library_name_ok(a->rlibrary, len))
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: section RLIB: the library's name is "
                              "not a file name of 1 to %u printable bytes without a folder, ended by a NUL", name,
                              SINEW_ASSET_MAX_LIBRARY_NAME);
        if (memchr(end + 1, 0, a->rlibrary_size - len - 1))
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: section RLIB: the library's text "
                              "holds a NUL byte", name);
    }
    return SINEW_RESULT_OK;
}

static sinew_result validate_vertex(const sinew_asset *a, uint32_t i, const char *name, const sinew_logger *lg)
{
    const sinew_render_vertex_rec *v = &a->rvertices[i];
    double sum = 0.0;
    for (int k = 0; k < 4; k++) {
        if (v->particle[k] >= a->particle_count)
            return sinew_asset_bad_record(lg, name, "RVTX", i, "particle index %u out of range (%u particles)",
                                          v->particle[k], a->particle_count);
        if (!(v->weight[k] >= 0.0f && v->weight[k] <= 1.0f))
            return sinew_asset_bad_record(lg, name, "RVTX", i, "weight %d is %g, outside [0, 1]", k,
                                          (double)v->weight[k]);
        sum += v->weight[k];
    }
    if (!(fabs(sum - 1.0) <= SINEW_RENDER_WEIGHT_TOLERANCE))
        return sinew_asset_bad_record(lg, name, "RVTX", i, "weights sum to %.9g, not 1", sum);
    if ((v->mode & SINEW_RENDER_NORMAL_MASK) >= SINEW_RENDER_NORMAL_COUNT ||
        (v->mode & ~(SINEW_RENDER_NORMAL_MASK | SINEW_RENDER_HAS_UV)) != 0)
        return sinew_asset_bad_record(lg, name, "RVTX", i, "unknown mode 0x%x", v->mode);
    if (v->reserved[0] || v->reserved[1])
        return sinew_asset_bad_record(lg, name, "RVTX", i, "reserved words are not zero");
    for (int k = 0; k < 3; k++)
        if (!isfinite(v->normal[k]))
            return sinew_asset_bad_record(lg, name, "RVTX", i, "non-finite rest normal");
    if (!isfinite(v->uv[0]) || !isfinite(v->uv[1]))
        return sinew_asset_bad_record(lg, name, "RVTX", i, "non-finite texture coordinate");
    return SINEW_RESULT_OK;
}

sinew_result sinew_asset_validate_render(const sinew_asset *a, const char *name, const sinew_logger *lg)
{
    if (a->rvertex_count > SINEW_ASSET_MAX_RECORDS || a->rtriangle_count > SINEW_ASSET_MAX_RECORDS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                          "%s: render mesh of %u vertices and %u triangles exceeds the limit of %u", name,
                          a->rvertex_count, a->rtriangle_count, SINEW_ASSET_MAX_RECORDS);
    if ((a->rvertex_count == 0) != (a->rtriangle_count == 0))
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                          "%s: render mesh of %u vertices and %u triangles (sections RVTX and RIDX are both "
                          "empty or both not)", name, a->rvertex_count, a->rtriangle_count);
    for (uint32_t i = 0; i < a->rvertex_count; i++) {
        sinew_result r = validate_vertex(a, i, name, lg);
        if (r != SINEW_RESULT_OK)
            return r;
    }
    for (uint32_t t = 0; t < a->rtriangle_count; t++)
        for (int c = 0; c < 3; c++)
            if (a->rtriangles[t].v[c] >= a->rvertex_count)
                return sinew_asset_bad_record(lg, name, "RIDX", t, "render vertex %u out of range (%u vertices)",
                                              a->rtriangles[t].v[c], a->rvertex_count);
    return validate_materials(a, name, lg);
}

sinew_render_info sinew_asset_get_render_info(const sinew_asset *a)
{
    SINEW_ASSERT(a);
    sinew_render_info info = {a->rvertex_count, 3 * a->rtriangle_count, 0, 0};
    for (uint32_t i = 0; i < a->rvertex_count; i++) {
        info.has_uvs |= (a->rvertices[i].mode & SINEW_RENDER_HAS_UV) != 0;
        info.embedded |= (a->rvertices[i].mode & SINEW_RENDER_NORMAL_MASK) == SINEW_RENDER_NORMAL_TET;
    }
    return info;
}

void sinew_asset_get_render_uvs(const sinew_asset *a, float *uv)
{
    SINEW_ASSERT(a && (uv || a->rvertex_count == 0));
    for (uint32_t i = 0; i < a->rvertex_count; i++)
        memcpy(uv + 2 * (size_t)i, a->rvertices[i].uv, 2 * sizeof *uv);
}

void sinew_asset_get_render_indices(const sinew_asset *a, uint32_t *indices)
{
    SINEW_ASSERT(a && (indices || a->rtriangle_count == 0));
    if (a->rtriangle_count)
        memcpy(indices, a->rtriangles, sizeof *a->rtriangles * a->rtriangle_count);
}

void sinew_asset_get_render_map(const sinew_asset *a, uint32_t *particles, float *weights)
{
    SINEW_ASSERT(a);
    for (uint32_t i = 0; i < a->rvertex_count; i++) {
        if (particles)
            memcpy(particles + 4 * (size_t)i, a->rvertices[i].particle, 4 * sizeof *particles);
        if (weights)
            memcpy(weights + 4 * (size_t)i, a->rvertices[i].weight, 4 * sizeof *weights);
    }
}

void sinew_asset_get_render_rest(const sinew_asset *a, float *positions, float *normals)
{
    SINEW_ASSERT(a);
    for (uint32_t i = 0; i < a->rvertex_count; i++) {
        const sinew_render_vertex_rec *v = &a->rvertices[i];
        if (normals)
            memcpy(normals + 3 * (size_t)i, v->normal, 3 * sizeof *normals);
        if (!positions)
            continue;
        double p[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++) {
            const sinew_particle_rec *q = &a->particles[v->particle[k]];
            p[0] += (double)v->weight[k] * q->x;
            p[1] += (double)v->weight[k] * q->y;
            p[2] += (double)v->weight[k] * q->z;
        }
        for (int c = 0; c < 3; c++)
            positions[3 * (size_t)i + c] = (float)p[c];
    }
}

uint32_t sinew_asset_get_render_material_count(const sinew_asset *a)
{
    SINEW_ASSERT(a);
    return a->rmaterial_count;
}

sinew_result sinew_asset_get_render_material(const sinew_asset *a, uint32_t index, sinew_render_material *out)
{
    SINEW_ASSERT(a && out);
    /* The asset keeps no logger: the message goes to stderr. */
    if (index >= a->rmaterial_count)
        return sinew_fail(NULL, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "asset",
                          "render material %u out of range (the asset has %u)", index, a->rmaterial_count);
    const sinew_render_material_rec *m = &a->rmaterials[index];
    *out = (sinew_render_material){a->rnames + m->name_offset, 3 * m->first_triangle, 3 * m->triangle_count};
    return SINEW_RESULT_OK;
}

const char *sinew_asset_get_material_library(const sinew_asset *a, const char **text, size_t *size)
{
    SINEW_ASSERT(a);
    const char *name = a->rlibrary_size ? a->rlibrary : NULL;
    size_t len = name ? strlen(name) : 0;
    if (text)
        *text = name && a->rlibrary_size > len + 1 ? a->rlibrary + len + 1 : NULL;
    if (size)
        *size = name ? a->rlibrary_size - len - 1 : 0;
    return name;
}
