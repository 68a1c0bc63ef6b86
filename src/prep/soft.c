/* From a tetrahedral mesh to a soft-body asset (Generalized PBD, MATH.md
 * section 3):
 *
 *   1. check the options and materials; copy the mesh and check it
 *      (sinew_volume_check: orientation repaired, unused vertices dropped);
 *   2. per tetrahedron, in double: Dm = [X1-X0, X2-X0, X3-X0], its inverse and
 *      the rest volume det(Dm) / 6, rounded to float once;
 *   3. lumped masses: each tetrahedron gives a quarter of its mass to each
 *      corner; then the pins;
 *   4. colour the element dual graph (tetrahedra sharing a vertex conflict) and
 *      lay the elements out colour by colour, as the asset format requires;
 *   5. the boundary (faces of exactly one tetrahedron, outward) as triangles.
 */
#include "soft.h"

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
    char where[64];
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

/* The materials table: the options' array, or one made of model, E, nu, density. */
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
    if (o->tet_materials && o->material_count == 0)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: per-tetrahedron material indices without a materials table", b->name);
    if (o->material_count > SINEW_ASSET_MAX_MATERIALS)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u materials exceed the limit of %u", b->name,
                          o->material_count, SINEW_ASSET_MAX_MATERIALS);
    b->material_count = o->material_count ? o->material_count : 1;
    b->materials = malloc(sizeof(sinew_material) * b->material_count);
    if (!b->materials)
        return out_of_memory(b);
    if (o->material_count) {
        memcpy(b->materials, o->materials, sizeof(sinew_material) * o->material_count);
    } else {
        if (!(o->density > 0.0) || !(o->density <= FLT_MAX))
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                              "%s: density %g kg/m^3 must be finite and > 0", b->name, o->density);
        b->materials[0] = sinew_material_make(o->model, (float)o->youngs_modulus, (float)o->poisson_ratio);
        b->materials[0].density = (float)o->density;
    }
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

static sinew_result copy_and_check(soft_builder *b)
{
    const sinew_volume *in = b->in;
    b->v.positions = malloc(sizeof(double) * 3 * ((size_t)in->vertex_count + 1));
    b->v.tets = malloc(sizeof(uint32_t) * 4 * ((size_t)in->tet_count + 1));
    b->original = malloc(sizeof(uint32_t) * ((size_t)in->vertex_count + 1));
    if (!b->v.positions || !b->v.tets || !b->original)
        return out_of_memory(b);
    if (in->vertex_count)
        memcpy(b->v.positions, in->positions, sizeof(double) * 3 * in->vertex_count);
    if (in->tet_count)
        memcpy(b->v.tets, in->tets, sizeof(uint32_t) * 4 * in->tet_count);
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
    return b->opt->tet_materials ? b->opt->tet_materials[t] : 0;
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
        int in_box = o->pin_box;
        for (int k = 0; k < 3; k++)
            in_box = in_box && p[k] >= o->box_min[k] && p[k] <= o->box_max[k];
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

typedef struct face_key {
    uint32_t sorted[3];
    uint32_t tet, local;
} face_key;

static int compare_faces(const void *a, const void *b)
{
    const face_key *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x->sorted[k] != y->sorted[k])
            return x->sorted[k] < y->sorted[k] ? -1 : 1;
    if (x->tet != y->tet)
        return x->tet < y->tet ? -1 : 1;
    return x->local < y->local ? -1 : x->local > y->local;
}

/* Faces of a positively oriented tetrahedron, counter-clockwise seen from outside. */
static const int tet_faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

/* A face of exactly one tetrahedron is on the boundary; the triangles come out
 * in the order of their sorted vertex triples, so the result does not depend on
 * how the sort orders ties. */
static sinew_result boundary(soft_builder *b)
{
    size_t n = 4 * (size_t)b->v.tet_count;
    face_key *f = malloc(sizeof(face_key) * n);
    b->tris = malloc(sizeof(sinew_triangle_rec) * n);
    if (!f || !b->tris) {
        free(f);
        return out_of_memory(b);
    }
    for (uint32_t t = 0; t < b->v.tet_count; t++)
        for (uint32_t l = 0; l < 4; l++) {
            const uint32_t *q = b->v.tets + 4 * (size_t)t;
            uint32_t a = q[tet_faces[l][0]], c = q[tet_faces[l][1]], d = q[tet_faces[l][2]], s;
            if (a > c) { s = a; a = c; c = s; }
            if (c > d) { s = c; c = d; d = s; }
            if (a > c) { s = a; a = c; c = s; }
            f[4 * (size_t)t + l] = (face_key){{a, c, d}, t, l};
        }
    qsort(f, n, sizeof *f, compare_faces);
    uint32_t overshared = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && memcmp(f[j].sorted, f[i].sorted, sizeof f[i].sorted) == 0)
            j++;
        if (j - i == 1) {
            const uint32_t *q = b->v.tets + 4 * (size_t)f[i].tet;
            const int *l = tet_faces[f[i].local];
            b->tris[b->tri_count++] = (sinew_triangle_rec){{q[l[0]], q[l[1]], q[l[2]]}};
        }
        overshared += j - i > 2;
        i = j;
    }
    free(f);
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
    size_t cap = strlen(source) + 512;
    char *meta = malloc(cap);
    if (!meta)
        return NULL;
    int n = snprintf(meta, cap, "generator=sinew-prep\nsource=%s\n", source);
    for (int i = (int)strlen("generator=sinew-prep\nsource="); i < n - 1; i++)
        if ((unsigned char)meta[i] < 0x20 || (unsigned char)meta[i] >= 0x7f)
            meta[i] = '?';
    const sinew_material *m = &b->materials[0];
    snprintf(meta + n, cap - (size_t)n,
             "kind=soft\nmaterials=%u\nmodel=%s\nyoungs_modulus=%.9g\npoisson_ratio=%.9g\ndensity=%.9g\n"
             "pin_bottom=%.17g\ncolouring=%s\n",
             b->material_count, model_key(m->model), (double)m->youngs_modulus, (double)m->poisson_ratio,
             (double)m->density, o->pin_bottom, o->colouring == SINEW_COLOURING_GREEDY ? "greedy" : "balanced");
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
}

static sinew_result build(soft_builder *b, sinew_asset **out)
{
    sinew_result r;
    if ((r = check_options(b)) || (r = copy_and_check(b)) || (r = build_elements(b)) || (r = apply_pins(b)) ||
        (r = colour(b)) || (r = boundary(b)) || (r = lay_out(b, out)))
        return r;
    summarise(b);
    return SINEW_RESULT_OK;
}

sinew_result sinew_soft_build(const sinew_volume *volume, const sinew_soft_options *opt, const sinew_logger *lg,
                              sinew_asset **out, sinew_soft_report *report)
{
    SINEW_ASSERT(volume && out && (volume->positions || volume->vertex_count == 0));
    SINEW_ASSERT(volume->tets || volume->tet_count == 0);
    SINEW_ASSERT(!opt || opt->pin_indices || opt->pin_count == 0);
    SINEW_ASSERT(!opt || opt->materials || opt->material_count == 0);
    *out = NULL;
    sinew_soft_options defaults = sinew_soft_options_default();
    soft_builder b = {.in = volume, .opt = opt ? opt : &defaults, .lg = lg};
    b.name = b.opt->source_name ? b.opt->source_name : "soft body";
    sinew_result r = build(&b, out);
    if (report)
        *report = b.rep;
    sinew_volume_free(&b.v);
    free(b.original);
    free(b.materials);
    free(b.elements);
    free(b.inv_mass);
    free(b.tris);
    sinew_colouring_free(&b.colouring);
    return r;
}
