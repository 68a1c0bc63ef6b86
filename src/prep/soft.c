/* From a tetrahedral mesh to a soft-body asset (Generalized PBD, docs/math.md
 * section 3):
 *
 *   1. check the options and materials; copy the mesh and check it
 *      (sinew_volume_check: orientation repaired, unused vertices dropped);
 *      unless the options give a materials table, one material per region,
 *      the distinct region values in increasing order;
 *   2. per tetrahedron, in double: Dm = [X1-X0, X2-X0, X3-X0], its inverse and
 *      the rest volume det(Dm) / 6, rounded to float once;
 *   3. lumped masses: each tetrahedron gives a quarter of its mass (its own
 *      material's density x volume) to each corner; then the pins;
 *   4. colour the element dual graph (tetrahedra sharing a vertex conflict) and
 *      lay the elements out colour by colour, as the asset format requires;
 *   5. the boundary (faces of exactly one tetrahedron, outward) as triangles.
 */
#include "soft.h"

#include "embed.h"
#include "pin_boxes.h"

#include "core/log.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

sinew_soft_options sinew_soft_options_default(void)
{
    sinew_soft_options o;
    memset(&o, 0, sizeof o);
    o.model = SINEW_MATERIAL_NEO_HOOKEAN;
    o.youngs_modulus = 1e6;
    o.poisson_ratio = 0.45;
    o.density = 1000.0;
    o.colouring = SINEW_COLOURING_BALANCED;
    return o;
}

typedef struct soft_builder {
    const sinew_volume *in;
    const sinew_soft_options *opt;
    const sinew_logger *lg;
    const char *name;
    sinew_soft_report rep;
    sinew_volume v;             /* checked copy */
    uint32_t *original;         /* particle -> input vertex */
    sinew_material *materials;  /* the table the asset gets */
    uint32_t material_count;
    const uint32_t *tet_material; /* per tetrahedron; NULL: all material 0 */
    uint32_t *region_material;  /* owned tet_material, by region */
    sinew_soft_region *regions; /* by region: material k is region k; NULL with a table */
    int log_regions;            /* the mesh has regions, or the options name some */
    sinew_element_rec *elements;
    float *inv_mass;
    sinew_triangle_rec *tris;
    uint32_t tri_count;
    sinew_colouring colouring;
} soft_builder;

static sinew_result out_of_memory(const soft_builder *b)
{
    return sinew_fail(b->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", b->name);
}

static int tet_model(uint32_t model)
{
    return model == SINEW_MATERIAL_NEO_HOOKEAN || model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN;
}

static sinew_result check_material(const soft_builder *b, const sinew_material *m, uint32_t index)
{
    char where[96];
    if (b->regions && b->log_regions)
        snprintf(where, sizeof where, "%s: region %u (material %u)", b->name, b->regions[index].value, index);
    else
        snprintf(where, sizeof where, "%s: material %u", b->name, index);
    sinew_result r = sinew_material_check(m, where, b->lg);
    if (r != SINEW_RESULT_OK)
        return r;
    if (!tet_model(m->model))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: model %u is not one for tetrahedra (neo-Hookean %d, stable neo-Hookean %d)", where,
                          m->model, SINEW_MATERIAL_NEO_HOOKEAN, SINEW_MATERIAL_STABLE_NEO_HOOKEAN);
    if (!(m->density > 0.0f) || !isfinite(m->density))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: density %g kg/m^3 must be finite and > 0", where, (double)m->density);
    return SINEW_RESULT_OK;
}

/* The default material: model, E, nu, density. */
static sinew_result default_material(const soft_builder *b, sinew_material *m)
{
    const sinew_soft_options *o = b->opt;
    if (!(o->density > 0.0) || !(o->density <= FLT_MAX))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: density %g kg/m^3 must be finite and > 0", b->name, o->density);
    *m = sinew_material_make(o->model, (float)o->youngs_modulus, (float)o->poisson_ratio);
    m->density = (float)o->density;
    return SINEW_RESULT_OK;
}

/* The options' explicit materials table, checked with the per-tetrahedron
 * indices into it. */
static sinew_result check_options(soft_builder *b)
{
    const sinew_soft_options *o = b->opt;
    const sinew_volume *in = b->in;
    if (!(o->pin_bottom >= 0.0) || !isfinite(o->pin_bottom))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: pin_bottom %g must be finite and >= 0", b->name, o->pin_bottom);
    if (o->colouring != SINEW_COLOURING_GREEDY && o->colouring != SINEW_COLOURING_BALANCED)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep", "%s: unknown colouring method %d",
                          b->name, (int)o->colouring);
    for (uint32_t i = 0; i < o->pin_count; i++)
        if (o->pin_indices[i] >= in->vertex_count)
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                              "%s: pin index %u (pin %u) out of range (%u vertices)", b->name, o->pin_indices[i], i,
                              in->vertex_count);
    sinew_result boxes = sinew_pin_boxes_check(o->pin_box, o->box_min, o->box_max, o->pin_boxes, o->pin_box_count,
                                               b->lg, b->name);
    if (boxes != SINEW_RESULT_OK)
        return boxes;
    if (o->tet_materials && o->material_count == 0)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: per-tetrahedron material indices without a materials table", b->name);
    if (o->material_count == 0) {
        /* Materials by region, once the mesh is checked; the default first. */
        sinew_material m;
        return default_material(b, &m);
    }
    if (o->region_material_count)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: materials by region and a materials table both given: one or the other", b->name);
    if (o->material_count > SINEW_ASSET_MAX_MATERIALS)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u materials exceed the limit of %u", b->name,
                          o->material_count, SINEW_ASSET_MAX_MATERIALS);
    if (in->regions)
        sinew_logf(b->lg, SINEW_LOG_INFO, "prep",
                   "%s: the mesh's regions are not used: the options give the materials table", b->name);
    b->material_count = o->material_count;
    b->materials = malloc(sizeof(sinew_material) * b->material_count);
    if (!b->materials)
        return out_of_memory(b);
    memcpy(b->materials, o->materials, sizeof(sinew_material) * o->material_count);
    b->tet_material = o->tet_materials;
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t m = 0; m < b->material_count && r == SINEW_RESULT_OK; m++)
        r = check_material(b, &b->materials[m], m);
    for (uint32_t t = 0; o->tet_materials && t < in->tet_count && r == SINEW_RESULT_OK; t++)
        if (o->tet_materials[t] >= b->material_count)
            r = sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                           "%s: tetrahedron %u: material %u out of range (%u materials)", b->name, t,
                           o->tet_materials[t], b->material_count);
    return r;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Index of the region of this value (regions increase by value), or NONE. */
static uint32_t find_region(const soft_builder *b, uint32_t value)
{
    uint32_t lo = 0, hi = b->material_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->regions[mid].value < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->material_count && b->regions[lo].value == value ? lo : NONE;
}

/* Materials by region (of the checked copy, whose tetrahedra are the
 * input's): the distinct values, increasing, are materials 0, 1, ...; each
 * the options name gets theirs, the others the default. */
static sinew_result map_regions(soft_builder *b)
{
    const sinew_soft_options *o = b->opt;
    const uint32_t *regions = b->v.regions;
    uint32_t n = b->v.tet_count, count = 1;
    uint32_t *values = malloc(sizeof(uint32_t) * ((size_t)n + 1));
    if (!values)
        return out_of_memory(b);
    values[0] = 0;
    if (regions && n) {
        memcpy(values, regions, sizeof(uint32_t) * n);
        qsort(values, n, sizeof(uint32_t), compare_u32);
        count = 1;
        for (uint32_t t = 1; t < n; t++)
            if (values[t] != values[count - 1])
                values[count++] = values[t];
    }
    sinew_result r = SINEW_RESULT_OK;
    if (count > SINEW_ASSET_MAX_MATERIALS)
        r = sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u regions exceed the limit of %u materials",
                       b->name, count, SINEW_ASSET_MAX_MATERIALS);
    if (r == SINEW_RESULT_OK) {
        b->materials = malloc(sizeof(sinew_material) * count);
        b->regions = calloc(count, sizeof(sinew_soft_region));
        if (!b->materials || !b->regions)
            r = out_of_memory(b);
    }
    if (r == SINEW_RESULT_OK)
        r = default_material(b, &b->materials[0]);
    if (r != SINEW_RESULT_OK) {
        free(values);
        return r;
    }
    b->material_count = count;
    for (uint32_t k = 0; k < count; k++) {
        b->materials[k] = b->materials[0];
        b->regions[k] = (sinew_soft_region){.value = values[k], .material = k};
    }
    /* given[k]: the entry that named region k, or NONE. */
    uint32_t *given = values;
    memset(given, 0xff, sizeof(uint32_t) * count);
    uint32_t absent = 0, first_absent = 0;
    for (uint32_t i = 0; i < o->region_material_count && r == SINEW_RESULT_OK; i++) {
        uint32_t value = o->region_materials[i].region;
        uint32_t k = find_region(b, value);
        if (k == NONE) {
            first_absent = absent++ == 0 ? value : first_absent;
        } else if (given[k] != NONE) {
            r = sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                           "%s: region %u is given two materials (region materials %u and %u)", b->name, value,
                           given[k], i);
        } else {
            given[k] = i;
            b->materials[k] = o->region_materials[i].material;
        }
    }
    free(values);
    if (absent) {
        char have[128] = ""; /* 8 values of up to 10 digits */
        for (uint32_t k = 0, n_have = 0; k < count && k < 8; k++)
            n_have += (uint32_t)snprintf(have + n_have, sizeof have - n_have, "%s%u", k ? ", " : "",
                                         b->regions[k].value);
        sinew_logf(b->lg, SINEW_LOG_WARNING, "prep",
                   "%s: %u regions given a material have no tetrahedra in the mesh, first: region %u (the mesh's "
                   "regions: %s%s)",
                   b->name, absent, first_absent, have, count > 8 ? ", ..." : "");
    }
    for (uint32_t k = 0; k < count && r == SINEW_RESULT_OK; k++)
        r = check_material(b, &b->materials[k], k);
    if (r != SINEW_RESULT_OK || !regions)
        return r;
    b->region_material = malloc(sizeof(uint32_t) * ((size_t)n + 1));
    if (!b->region_material)
        return out_of_memory(b);
    for (uint32_t t = 0; t < n; t++)
        b->region_material[t] = find_region(b, regions[t]);
    b->tet_material = b->region_material;
    return SINEW_RESULT_OK;
}

static sinew_result copy_and_check(soft_builder *b)
{
    const sinew_volume *in = b->in;
    b->v.positions = malloc(sizeof(double) * 3 * ((size_t)in->vertex_count + 1));
    b->v.tets = malloc(sizeof(uint32_t) * 4 * ((size_t)in->tet_count + 1));
    b->original = malloc(sizeof(uint32_t) * ((size_t)in->vertex_count + 1));
    if (in->regions)
        b->v.regions = malloc(sizeof(uint32_t) * ((size_t)in->tet_count + 1));
    if (!b->v.positions || !b->v.tets || !b->original || (in->regions && !b->v.regions))
        return out_of_memory(b);
    if (in->vertex_count)
        memcpy(b->v.positions, in->positions, sizeof(double) * 3 * in->vertex_count);
    if (in->tet_count)
        memcpy(b->v.tets, in->tets, sizeof(uint32_t) * 4 * in->tet_count);
    if (in->regions && in->tet_count)
        memcpy(b->v.regions, in->regions, sizeof(uint32_t) * in->tet_count);
    b->v.vertex_count = in->vertex_count;
    b->v.tet_count = in->tet_count;
    sinew_volume_fixes fixes;
    sinew_result r = sinew_volume_check(&b->v, b->name, b->lg, &fixes, b->original);
    b->rep.flipped_tets = fixes.flipped_tets;
    b->rep.dropped_vertices = fixes.dropped_vertices;
    if (r == SINEW_RESULT_OK && b->v.vertex_count > SINEW_ASSET_MAX_PARTICLES)
        r = sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u vertices exceed the limit of %u", b->name,
                       b->v.vertex_count, SINEW_ASSET_MAX_PARTICLES);
    if (r == SINEW_RESULT_OK && b->v.tet_count > SINEW_ASSET_MAX_RECORDS)
        r = sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u tetrahedra exceed the limit of %u", b->name,
                       b->v.tet_count, SINEW_ASSET_MAX_RECORDS);
    return r;
}

static const double *position(const soft_builder *b, uint32_t particle)
{
    return b->v.positions + 3 * (size_t)particle;
}

static uint32_t material_of(const soft_builder *b, uint32_t t)
{
    return b->tet_material ? b->tet_material[t] : 0;
}

/* Dm^-1 by the adjugate, in double; column-major as the asset stores it. */
static sinew_result rest_shape(soft_builder *b, uint32_t t, sinew_element_rec *e)
{
    const uint32_t *q = b->v.tets + 4 * (size_t)t;
    double d[3][3]; /* d[col][row] */
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            d[c][k] = position(b, q[c + 1])[k] - position(b, q[0])[k];
    /* m[r][c] = Dm(r, c) = d[c][r] */
#define M(r, c) d[c][r]
    double det = M(0, 0) * (M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) - M(0, 1) * (M(1, 0) * M(2, 2) - M(1, 2) * M(2, 0)) +
                 M(0, 2) * (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0));
    double inv[3][3]; /* inv[r][c] */
    inv[0][0] = (M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) / det;
    inv[0][1] = (M(0, 2) * M(2, 1) - M(0, 1) * M(2, 2)) / det;
    inv[0][2] = (M(0, 1) * M(1, 2) - M(0, 2) * M(1, 1)) / det;
    inv[1][0] = (M(1, 2) * M(2, 0) - M(1, 0) * M(2, 2)) / det;
    inv[1][1] = (M(0, 0) * M(2, 2) - M(0, 2) * M(2, 0)) / det;
    inv[1][2] = (M(0, 2) * M(1, 0) - M(0, 0) * M(1, 2)) / det;
    inv[2][0] = (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0)) / det;
    inv[2][1] = (M(0, 1) * M(2, 0) - M(0, 0) * M(2, 1)) / det;
    inv[2][2] = (M(0, 0) * M(1, 1) - M(0, 1) * M(1, 0)) / det;
#undef M
    memcpy(e->v, q, sizeof e->v);
    e->kind = SINEW_ELEMENT_TET;
    e->material = material_of(b, t);
    e->rest_measure = (float)(det / 6.0);
    int ok = e->rest_measure > 0.0f && isfinite(e->rest_measure);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) {
            e->inv_rest[3 * c + r] = (float)inv[r][c];
            ok = ok && isfinite(e->inv_rest[3 * c + r]);
        }
    /* Rounding may flatten a thin tetrahedron's inverse: the loader checks its
     * determinant, in double from the floats, as here. */
    const float *f = e->inv_rest;
    double fdet = (double)f[0] * ((double)f[4] * f[8] - (double)f[7] * f[5]) -
                  (double)f[3] * ((double)f[1] * f[8] - (double)f[7] * f[2]) +
                  (double)f[6] * ((double)f[1] * f[5] - (double)f[4] * f[2]);
    ok = ok && fdet > 0.0 && isfinite(fdet);
    if (!ok)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                          "%s: tetrahedron %u (volume %g m^3) is too thin for single precision: its inverse rest "
                          "shape does not survive rounding to float",
                          b->name, t, det / 6.0);
    return SINEW_RESULT_OK;
}

static sinew_result build_elements(soft_builder *b)
{
    b->elements = malloc(sizeof(sinew_element_rec) * b->v.tet_count);
    double *mass = calloc(b->v.vertex_count, sizeof(double));
    b->inv_mass = malloc(sizeof(float) * b->v.vertex_count);
    if (!b->elements || !mass || !b->inv_mass) {
        free(mass);
        return out_of_memory(b);
    }
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t t = 0; t < b->v.tet_count && r == SINEW_RESULT_OK; t++) {
        sinew_element_rec *e = &b->elements[t];
        r = rest_shape(b, t, e);
        if (r != SINEW_RESULT_OK)
            break;
        const uint32_t *q = b->v.tets + 4 * (size_t)t;
        const double *p = b->v.positions;
        double vol = sinew_tet_signed_volume(p + 3 * (size_t)q[0], p + 3 * (size_t)q[1], p + 3 * (size_t)q[2],
                                             p + 3 * (size_t)q[3]);
        double share = vol * (double)b->materials[e->material].density / 4.0;
        b->rep.volume += vol;
        for (int k = 0; k < 4; k++)
            mass[q[k]] += share;
        if (b->regions) {
            sinew_soft_region *g = &b->regions[e->material];
            g->tet_count++;
            g->volume += vol;
            g->mass += 4.0 * share;
        }
    }
    for (uint32_t i = 0; i < b->v.vertex_count && r == SINEW_RESULT_OK; i++) {
        b->rep.total_mass += mass[i];
        b->inv_mass[i] = (float)(1.0 / mass[i]);
        if (!(mass[i] > 0.0) || !isfinite(b->inv_mass[i]) || !(b->inv_mass[i] > 0.0f))
            r = sinew_fail(b->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                           "%s: vertex %u has mass %g kg, whose inverse is not a positive float", b->name,
                           b->original[i], mass[i]);
    }
    free(mass);
    return r;
}

static void pin(soft_builder *b, uint32_t particle)
{
    if (b->inv_mass[particle] != 0.0f) {
        b->inv_mass[particle] = 0.0f;
        b->rep.pinned_count++;
    }
}

static sinew_result apply_pins(soft_builder *b)
{
    const sinew_soft_options *o = b->opt;
    uint32_t n = b->v.vertex_count;
    if (o->pin_count) {
        /* The input's vertex numbers, as the user gave them. */
        uint32_t *remap = malloc(sizeof(uint32_t) * ((size_t)b->in->vertex_count + 1));
        if (!remap)
            return out_of_memory(b);
        memset(remap, 0xff, sizeof(uint32_t) * b->in->vertex_count);
        for (uint32_t i = 0; i < n; i++)
            remap[b->original[i]] = i;
        uint32_t on_removed = 0, first_removed = NONE;
        for (uint32_t i = 0; i < o->pin_count; i++) {
            uint32_t p = remap[o->pin_indices[i]];
            if (p != NONE)
                pin(b, p);
            else if (on_removed++ == 0)
                first_removed = o->pin_indices[i];
        }
        free(remap);
        if (on_removed)
            sinew_logf(b->lg, SINEW_LOG_WARNING, "prep", "%s: %u pins are on removed vertices, first: vertex %u",
                       b->name, on_removed, first_removed);
    }
    double ymin = position(b, 0)[1], ymax = ymin;
    for (uint32_t i = 1; i < n; i++) {
        double y = position(b, i)[1];
        ymin = y < ymin ? y : ymin;
        ymax = y > ymax ? y : ymax;
    }
    double bottom = ymin + o->pin_bottom * (ymax - ymin);
    for (uint32_t i = 0; i < n; i++) {
        const double *p = position(b, i);
        const int in_box = sinew_pin_boxes_contain(o->pin_box, o->box_min, o->box_max, o->pin_boxes,
                                                   o->pin_box_count, p);
        if (in_box || (o->pin_bottom > 0.0 && p[1] <= bottom))
            pin(b, i);
    }
    return SINEW_RESULT_OK;
}

static sinew_result colour(soft_builder *b)
{
    uint32_t count = b->v.tet_count;
    uint32_t *offsets = malloc(sizeof(uint32_t) * ((size_t)count + 1));
    if (!offsets)
        return out_of_memory(b);
    for (uint32_t t = 0; t <= count; t++)
        offsets[t] = 4 * t;
    sinew_result r = sinew_colour_constraints(count, offsets, b->v.tets, b->v.vertex_count, b->opt->colouring, b->lg,
                                              &b->colouring);
    free(offsets);
    if (r == SINEW_RESULT_OK && b->colouring.colour_count > SINEW_ASSET_MAX_COLOURS)
        r = sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u colours exceed the limit of %u", b->name,
                       b->colouring.colour_count, SINEW_ASSET_MAX_COLOURS);
    return r;
}

/* ------------------------------------------------------------ boundary */

static sinew_result boundary(soft_builder *b)
{
    b->tris = malloc(sizeof(sinew_triangle_rec) * 4 * ((size_t)b->v.tet_count + 1));
    uint32_t overshared = 0;
    if (!b->tris || !sinew_tet_boundary(b->v.tets, b->v.tet_count, (uint32_t *)b->tris, &b->tri_count, &overshared))
        return out_of_memory(b);
    if (overshared)
        sinew_logf(b->lg, SINEW_LOG_WARNING, "prep",
                   "%s: %u faces are shared by more than two tetrahedra: the mesh overlaps itself", b->name,
                   overshared);
    b->rep.triangle_count = b->tri_count;
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------ the asset */

static const char *model_key(uint32_t model)
{
    return model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN ? "stable_neo_hookean" : "neo_hookean";
}

/* "key=value\n" lines; the source name is reduced to printable ASCII so the
 * text stays one line per key and valid UTF-8. */
static char *make_meta(const soft_builder *b)
{
    const sinew_soft_options *o = b->opt;
    const char *source = o->source_name ? o->source_name : "";
    size_t cap = strlen(source) + 512 + (b->log_regions ? 24 * (size_t)b->material_count : 0);
    char *meta = malloc(cap);
    if (!meta)
        return NULL;
    int n = snprintf(meta, cap, "generator=sinew-prep\nsource=%s\n", source);
    for (int i = (int)strlen("generator=sinew-prep\nsource="); i < n - 1; i++)
        if ((unsigned char)meta[i] < 0x20 || (unsigned char)meta[i] >= 0x7f)
            meta[i] = '?';
    const sinew_material *m = &b->materials[0];
    n += snprintf(meta + n, cap - (size_t)n,
                  "kind=soft\nmaterials=%u\nmodel=%s\nyoungs_modulus=%.9g\npoisson_ratio=%.9g\ndensity=%.9g\n"
                  "pin_bottom=%.17g\ncolouring=%s\n",
                  b->material_count, model_key(m->model), (double)m->youngs_modulus, (double)m->poisson_ratio,
                  (double)m->density, o->pin_bottom, o->colouring == SINEW_COLOURING_GREEDY ? "greedy" : "balanced");
    /* Materials by region: region value, then material index. */
    if (b->log_regions) {
        n += snprintf(meta + n, cap - (size_t)n, "regions=");
        for (uint32_t k = 0; k < b->material_count; k++)
            n += snprintf(meta + n, cap - (size_t)n, "%s%u:%u", k ? "," : "", b->regions[k].value,
                          b->regions[k].material);
        snprintf(meta + n, cap - (size_t)n, "\n");
    }
    return meta;
}

/* Elements in colour order (stable within a colour). */
static sinew_result lay_out(soft_builder *b, sinew_asset **out)
{
    const sinew_colouring *c = &b->colouring;
    sinew_asset *a = sinew_asset_alloc(b->v.vertex_count, b->tri_count, 0, 0, 0);
    if (!a || !sinew_asset_alloc_elements(a, b->v.tet_count, c->colour_count, b->material_count)) {
        sinew_asset_destroy(a);
        return out_of_memory(b);
    }
    a->meta = make_meta(b);
    if (!a->meta) {
        sinew_asset_destroy(a);
        return out_of_memory(b);
    }
    for (uint32_t i = 0; i < b->v.vertex_count; i++) {
        const double *p = position(b, i);
        a->particles[i] = (sinew_particle_rec){(float)p[0], (float)p[1], (float)p[2], b->inv_mass[i]};
    }
    if (b->tri_count)
        memcpy(a->triangles, b->tris, sizeof(sinew_triangle_rec) * b->tri_count);
    memcpy(a->materials, b->materials, sizeof(sinew_material) * b->material_count);
    uint32_t begin = 0;
    for (uint32_t k = 0; k < c->colour_count; k++) {
        a->element_colours[k] = (sinew_element_colour_rec){begin, 0};
        begin += c->sizes[k];
    }
    for (uint32_t t = 0; t < b->v.tet_count; t++) {
        sinew_element_colour_rec *ec = &a->element_colours[c->colour_of[t]];
        a->elements[ec->begin + ec->count++] = b->elements[t];
    }
    *out = a;
    return SINEW_RESULT_OK;
}

static void summarise(soft_builder *b)
{
    sinew_soft_report *rep = &b->rep;
    rep->vertex_count = b->v.vertex_count;
    rep->tet_count = b->v.tet_count;
    rep->colour_count = b->colouring.colour_count;
    for (uint32_t k = 0; k < rep->colour_count; k++) {
        uint32_t size = b->colouring.sizes[k];
        rep->largest_colour = k == 0 || size > rep->largest_colour ? size : rep->largest_colour;
        rep->smallest_colour = k == 0 || size < rep->smallest_colour ? size : rep->smallest_colour;
    }
    sinew_logf(b->lg, SINEW_LOG_INFO, "prep",
               "%s: %u particles (%u pinned), %u tetrahedra, %u boundary triangles, %u colours of %u to %u "
               "tetrahedra, %.6g kg, %.6g m^3",
               b->name, rep->vertex_count, rep->pinned_count, rep->tet_count, rep->triangle_count, rep->colour_count,
               rep->smallest_colour, rep->largest_colour, rep->total_mass, rep->volume);
    if (!b->log_regions)
        return;
    /* The mapping, as the tool prints it; a mesh of many regions in part. */
    const uint32_t shown = 64;
    sinew_logf(b->lg, SINEW_LOG_INFO, "prep", "%s: %u regions, materials 0..%u in increasing order of region",
               b->name, b->material_count, b->material_count - 1);
    for (uint32_t k = 0; k < b->material_count && k < shown; k++) {
        const sinew_soft_region *g = &b->regions[k];
        const sinew_material *m = &b->materials[k];
        sinew_logf(b->lg, SINEW_LOG_INFO, "prep",
                   "%s: region %u -> material %u (%s, E %g Pa, nu %g, %g kg/m^3): %u tetrahedra, %.6g m^3, %.6g kg",
                   b->name, g->value, k, model_key(m->model), (double)m->youngs_modulus, (double)m->poisson_ratio,
                   (double)m->density, g->tet_count, g->volume, g->mass);
    }
    if (b->material_count > shown)
        sinew_logf(b->lg, SINEW_LOG_INFO, "prep", "%s: ... and %u more regions (the asset's META lists them all)",
                   b->name, b->material_count - shown);
}

static sinew_result build(soft_builder *b, sinew_asset **out)
{
    sinew_result r;
    if ((r = check_options(b)) || (r = copy_and_check(b)))
        return r;
    if (!b->opt->material_count) {
        b->log_regions = b->v.regions != NULL || b->opt->region_material_count > 0;
        if ((r = map_regions(b)))
            return r;
    }
    if ((r = build_elements(b)) || (r = apply_pins(b)) || (r = colour(b)) || (r = boundary(b)) ||
        (r = lay_out(b, out)))
        return r;
    if (b->opt->render_source && (r = sinew_render_embed(*out, b->opt->render_source, b->name, b->lg))) {
        sinew_asset_destroy(*out);
        *out = NULL;
        return r;
    }
    b->rep.region_count = b->regions ? b->material_count : 0;
    summarise(b);
    return SINEW_RESULT_OK;
}

sinew_result sinew_soft_build(const sinew_volume *volume, const sinew_soft_options *opt, const sinew_logger *lg,
                              sinew_asset **out, sinew_soft_report *report)
{
    return sinew_soft_build_with_regions(volume, opt, lg, out, report, NULL, NULL);
}

sinew_result sinew_soft_build_with_regions(const sinew_volume *volume, const sinew_soft_options *opt,
                                           const sinew_logger *lg, sinew_asset **out, sinew_soft_report *report,
                                           sinew_soft_region **regions, uint32_t *region_count)
{
    SINEW_ASSERT(volume && out && (volume->positions || volume->vertex_count == 0));
    SINEW_ASSERT(volume->tets || volume->tet_count == 0);
    SINEW_ASSERT(!opt || opt->pin_indices || opt->pin_count == 0);
    SINEW_ASSERT(!opt || opt->materials || opt->material_count == 0);
    SINEW_ASSERT(!opt || opt->region_materials || opt->region_material_count == 0);
    SINEW_ASSERT(!regions == !region_count);
    *out = NULL;
    if (regions) {
        *regions = NULL;
        *region_count = 0;
    }
    sinew_soft_options defaults = sinew_soft_options_default();
    soft_builder b = {.in = volume, .opt = opt ? opt : &defaults, .lg = lg};
    b.name = b.opt->source_name ? b.opt->source_name : "soft body";
    sinew_result r = build(&b, out);
    if (report)
        *report = b.rep;
    if (r == SINEW_RESULT_OK && regions && b.regions) {
        *regions = b.regions;
        *region_count = b.material_count;
        b.regions = NULL;
    }
    sinew_volume_free(&b.v);
    free(b.original);
    free(b.materials);
    free(b.region_material);
    free(b.regions);
    free(b.elements);
    free(b.inv_mass);
    free(b.tris);
    sinew_colouring_free(&b.colouring);
    return r;
}
