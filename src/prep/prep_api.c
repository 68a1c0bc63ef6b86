/* The public asset-building library (include/sinew/prep.h): meshes a program
 * holds, checked as untrusted input, turned into the offline modules' own
 * meshes and volumes, and run through the stages sinew-prep runs (mesh
 * rework, subdivision, cloth or soft body, multigrid levels, hierarchy,
 * red-black partition), ending in the asset file's bytes. */
#include <sinew/prep.h>

#include "asset/asset.h"
#include "core/file.h"
#include "core/log.h"
#include "prep/cloth.h"
#include "prep/colouring.h"
#include "prep/estimate.h"
#include "prep/fabric.h"
#include "prep/hierarchy.h"
#include "prep/mesh.h"
#include "prep/mesh_text.h"
#include "prep/nested.h"
#include "prep/redblack.h"
#include "prep/soft.h"
#include "prep/volume.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID "prep"

_Static_assert(SINEW_PREP_MAX_VERTICES == SINEW_MESH_MAX_VERTICES, "the public limits are the readers'");
_Static_assert(SINEW_PREP_MAX_FACES == SINEW_MESH_MAX_FACES, "the public limits are the readers'");
_Static_assert((int)SINEW_PREP_HIERARCHY_REST_POSE == (int)SINEW_HIERARCHY_REST_POSE &&
                   (int)SINEW_PREP_HIERARCHY_REST_GEODESIC == (int)SINEW_HIERARCHY_REST_GEODESIC,
               "the public rest modes are the asset's");

/* ---------------------------------------------------------------- defaults */

sinew_prep_mesh sinew_prep_mesh_default(void)
{
    sinew_prep_mesh m;
    memset(&m, 0, sizeof m);
    return m;
}

sinew_prep_cloth_options sinew_prep_cloth_options_default(void)
{
    sinew_cloth_options c = sinew_cloth_options_default();
    sinew_hierarchy_options h = sinew_hierarchy_options_default();
    sinew_prep_cloth_options o;
    memset(&o, 0, sizeof o);
    o.cookie = SINEW_DESC_COOKIE;
    o.density = c.density;
    o.shear = c.shear;
    o.bending = c.bending;
    o.colouring = SINEW_PREP_COLOURING_BALANCED;
    o.cluster_particles = c.cluster_particles;
    o.membrane_material = c.membrane_material;
    o.warp[0] = c.warp[0];
    o.warp[1] = c.warp[1];
    o.warp[2] = c.warp[2];
    o.hierarchy_k = h.k;
    o.hierarchy_min_particles = h.min_particles;
    o.hierarchy_rest = (sinew_prep_hierarchy_rest)h.rest;
    o.max_memory = sinew_estimate_memory_default();
    return o;
}

sinew_prep_grid sinew_prep_grid_default(void)
{
    sinew_prep_grid g = {16, 16, 1.0, 1.0, 1.0, 0, 1};
    return g;
}

sinew_prep_soft_options sinew_prep_soft_options_default(void)
{
    sinew_soft_options s = sinew_soft_options_default();
    sinew_prep_soft_options o;
    memset(&o, 0, sizeof o);
    o.cookie = SINEW_DESC_COOKIE;
    o.model = s.model;
    o.youngs_modulus = s.youngs_modulus;
    o.poisson_ratio = s.poisson_ratio;
    o.density = s.density;
    o.colouring = SINEW_PREP_COLOURING_BALANCED;
    o.mesher = SINEW_PREP_MESHER_TETGEN;
    o.quality = 1.4; /* sinew-prep's --quality default */
    o.lattice_cells = 16;
    o.max_memory = sinew_estimate_memory_default();
    return o;
}

void sinew_prep_output_free(sinew_prep_output *out)
{
    if (!out)
        return;
    free(out->bytes);
    memset(out, 0, sizeof *out);
}

sinew_result sinew_prep_output_write(const sinew_prep_output *out, const char *path, const sinew_logger *lg)
{
    if (!out || !out->bytes || !out->size)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "sinew_prep_output_write: %s",
                          out ? "the output holds no asset" : "out is NULL");
    if (!path || !*path)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "sinew_prep_output_write: no path given");
    return sinew_file_write_replace(path, out->bytes, out->size, lg, "asset");
}

/* ---------------------------------------------------------------- input checks */

static sinew_result colouring_method(sinew_prep_colouring c, const char *name, const sinew_logger *lg,
                                     sinew_colouring_method *out)
{
    if (c == SINEW_PREP_COLOURING_BALANCED)
        *out = SINEW_COLOURING_BALANCED;
    else if (c == SINEW_PREP_COLOURING_GREEDY)
        *out = SINEW_COLOURING_GREEDY;
    else
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "%s: colouring %d is not SINEW_PREP_COLOURING_BALANCED or _GREEDY", name, (int)c);
    return SINEW_RESULT_OK;
}

/* Positions: exactly one array, every coordinate finite in single precision
 * (the device holds them so), copied into double. */
static sinew_result copy_positions(const char *name, uint32_t n, const float *pf, const double *pd,
                                   const sinew_logger *lg, double **out)
{
    *out = NULL;
    if ((pf == NULL) == (pd == NULL))
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID, "%s: give positions (float) or positions_f64 (double), "
                          "exactly one of them (%s given)", name, pf ? "both" : "neither");
    if (n == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID, "%s: no vertices (vertex_count is 0)", name);
    if (n > SINEW_PREP_MAX_VERTICES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, ID, "%s: %u vertices exceed the limit of %u", name, n,
                          SINEW_PREP_MAX_VERTICES);
    double *p = malloc(sizeof *p * 3 * (size_t)n);
    if (!p)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: out of memory for %u vertices", name, n);
    for (size_t i = 0; i < 3 * (size_t)n; i++) {
        p[i] = pf ? (double)pf[i] : pd[i];
        if (!(fabs(p[i]) <= FLT_MAX)) {
            free(p);
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID,
                              "%s: vertex %zu: coordinate %c is %g, not finite in single precision", name, i / 3,
                              "xyz"[i % 3], pf ? (double)pf[i] : pd[i]);
        }
    }
    *out = p;
    return SINEW_RESULT_OK;
}

static sinew_result check_finite(const char *name, const char *what, const float *a, uint32_t n, uint32_t width,
                                 const sinew_logger *lg)
{
    for (size_t i = 0; a && i < (size_t)width * n; i++)
        if (!isfinite(a[i]))
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID, "%s: vertex %zu: %s component %zu is %g, not finite",
                              name, i / width, what, i % width, (double)a[i]);
    return SINEW_RESULT_OK;
}

/* The render mesh (mesh.h) of the mesh given, as the OBJ reader keeps a
 * file's v/vt/vn corners: each vertex given is a render vertex, with its UV
 * and normal, sitting on that vertex (the weld renumbers it); the faces
 * fanned from their first corner, triangles then quads. */
static int render_mesh(const sinew_prep_mesh *in, sinew_mesh *out)
{
    const uint32_t n = in->vertex_count, triangles = in->triangle_count + 2 * in->quad_count;
    out->render_vertex = malloc(sizeof *out->render_vertex * n);
    out->render_uv = in->uvs ? malloc(sizeof *out->render_uv * 2 * (size_t)n) : NULL;
    out->render_normal = in->normals ? malloc(sizeof *out->render_normal * 3 * (size_t)n) : NULL;
    out->render_triangles = malloc(sizeof *out->render_triangles * 3 * (size_t)triangles);
    if (!out->render_vertex || (in->uvs && !out->render_uv) || (in->normals && !out->render_normal) ||
        !out->render_triangles)
        return 0;
    for (uint32_t v = 0; v < n; v++)
        out->render_vertex[v] = v;
    if (in->uvs)
        memcpy(out->render_uv, in->uvs, sizeof *out->render_uv * 2 * (size_t)n);
    if (in->normals)
        memcpy(out->render_normal, in->normals, sizeof *out->render_normal * 3 * (size_t)n);
    uint32_t *t = out->render_triangles;
    if (in->triangle_count)
        memcpy(t, in->triangles, sizeof *t * 3 * (size_t)in->triangle_count);
    t += 3 * (size_t)in->triangle_count;
    for (uint32_t q = 0; q < in->quad_count; q++, t += 6) {
        const uint32_t *c = in->quads + 4 * (size_t)q;
        const uint32_t fan[6] = {c[0], c[1], c[2], c[0], c[2], c[3]};
        memcpy(t, fan, sizeof fan);
    }
    out->render_vertex_count = n;
    out->render_triangle_count = triangles;
    return 1;
}

/* A surface mesh into the offline modules' polygon mesh: triangles first,
 * then quads, in the order given; vertices at the same position welded into
 * one (sinew_mesh_weld), the vertices given kept as the render mesh (dropped
 * by sinew_mesh_render_finish when it adds nothing: no UVs, no vertex
 * split). old_to_new, when not NULL, receives each given vertex's number in
 * out (malloc'd; the caller frees it). */
static sinew_result to_mesh(const sinew_prep_mesh *in, const char *name, const sinew_logger *lg, sinew_mesh *out,
                            uint32_t **old_to_new)
{
    memset(out, 0, sizeof *out);
    if (old_to_new)
        *old_to_new = NULL;
    if (!in)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: the mesh is NULL", name);
    uint64_t faces = (uint64_t)in->triangle_count + in->quad_count;
    if (faces == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID, "%s: no faces (triangle_count and quad_count are 0)",
                          name);
    if (faces > SINEW_PREP_MAX_FACES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, ID, "%s: %llu faces exceed the limit of %u", name,
                          (unsigned long long)faces, SINEW_PREP_MAX_FACES);
    if ((in->triangle_count && !in->triangles) || (in->quad_count && !in->quads))
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID, "%s: %s is NULL but its count is %u", name,
                          in->triangle_count && !in->triangles ? "triangles" : "quads",
                          in->triangle_count && !in->triangles ? in->triangle_count : in->quad_count);
    sinew_result r = check_finite(name, "uv", in->uvs, in->vertex_count, 2, lg);
    if (r == SINEW_RESULT_OK)
        r = check_finite(name, "normal", in->normals, in->vertex_count, 3, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    uint32_t corners[2] = {3, 4};
    const uint32_t *lists[2] = {in->triangles, in->quads};
    uint32_t counts[2] = {in->triangle_count, in->quad_count};
    for (int kind = 0; kind < 2; kind++)
        for (size_t k = 0; k < (size_t)corners[kind] * counts[kind]; k++)
            if (lists[kind][k] >= in->vertex_count)
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID,
                                  "%s: %s %zu, corner %zu: vertex index %u out of range (%u vertices)", name,
                                  kind ? "quad" : "triangle", k / corners[kind], k % corners[kind], lists[kind][k],
                                  in->vertex_count);
    r = copy_positions(name, in->vertex_count, in->positions, in->positions_f64, lg, &out->positions);
    if (r != SINEW_RESULT_OK)
        return r;
    size_t indices = 3 * (size_t)in->triangle_count + 4 * (size_t)in->quad_count;
    out->face_offsets = malloc(sizeof *out->face_offsets * ((size_t)faces + 1));
    out->face_indices = malloc(sizeof *out->face_indices * indices);
    if (!out->face_offsets || !out->face_indices) {
        sinew_mesh_free(out);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: out of memory for %llu faces", name,
                          (unsigned long long)faces);
    }
    out->vertex_count = in->vertex_count;
    out->face_count = (uint32_t)faces;
    uint32_t f = 0, k = 0;
    for (int kind = 0; kind < 2; kind++)
        for (uint32_t i = 0; i < counts[kind]; i++) {
            out->face_offsets[f++] = k;
            for (uint32_t c = 0; c < corners[kind]; c++)
                out->face_indices[k++] = lists[kind][(size_t)corners[kind] * i + c];
        }
    out->face_offsets[f] = k;
    uint32_t *remap = malloc(sizeof *remap * in->vertex_count), merged = 0;
    if (!remap || !render_mesh(in, out) || !sinew_mesh_weld(out, remap, &merged)) {
        free(remap);
        sinew_mesh_free(out);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: out of memory for %u vertices", name,
                          in->vertex_count);
    }
    if (merged)
        sinew_logf(lg, SINEW_LOG_INFO, ID, "%s: welded %u vertices onto others at the same position", name, merged);
    r = sinew_mesh_render_finish(out, name, lg);
    if (r != SINEW_RESULT_OK) {
        free(remap);
        sinew_mesh_free(out);
        return r;
    }
    if (old_to_new)
        *old_to_new = remap;
    else
        free(remap);
    return SINEW_RESULT_OK;
}

/* ---------------------------------------------------------------- the result */

static sinew_result finish(sinew_asset *a, const char *name, const sinew_logger *lg, sinew_prep_output *out)
{
    sinew_asset_info info = sinew_asset_get_info(a);
    sinew_prep_report *rep = &out->report;
    rep->particle_count = info.particle_count;
    rep->pinned_count = info.pinned_count;
    rep->triangle_count = info.triangle_count;
    rep->tet_count = info.tet_count;
    rep->element_count = info.element_count;
    rep->hierarchy_levels = info.hierarchy_levels;
    rep->multigrid_levels = info.multigrid_levels;
    rep->cluster_passes = info.cluster_passes;
    rep->red_count = a->red_count;
    rep->black_count = a->black_count;
    rep->total_mass = info.total_mass;
    /* The loader's checks: what leaves here loads. */
    sinew_result r = sinew_asset_validate(a, name, lg);
    if (r == SINEW_RESULT_OK)
        r = sinew_asset_serialize(a, &out->bytes, &out->size, lg);
    return r;
}

static sinew_result load(sinew_result r, sinew_prep_output *out, const char *name, const sinew_logger *lg,
                         sinew_asset **asset, sinew_prep_report *report)
{
    if (r == SINEW_RESULT_OK)
        r = sinew_asset_load_memory(out->bytes, out->size, name, lg, asset);
    if (r == SINEW_RESULT_OK && report)
        *report = out->report;
    sinew_prep_output_free(out);
    return r;
}

/* ---------------------------------------------------------------- cloth */

/* options.origin: finite, within the asset's bound (the loader's check,
 * said as the option's). */
static sinew_result check_origin(const double o[3], const char *name, const sinew_logger *lg)
{
    for (int k = 0; k < 3; k++)
        if (!(fabs(o[k]) <= SINEW_ASSET_MAX_ORIGIN))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                              "%s: origin (%.17g, %.17g, %.17g) m: its %c coordinate is not finite or beyond %g m",
                              name, o[0], o[1], o[2], "xyz"[k], SINEW_ASSET_MAX_ORIGIN);
    return SINEW_RESULT_OK;
}

/* sinew-prep's checks of what the stages after the cloth builder take. */
static sinew_result check_cloth_options(const sinew_prep_cloth_options *o, const char *name, const sinew_logger *lg)
{
    if (!o)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: the options are NULL", name);
    if (o->cookie != SINEW_DESC_COOKIE)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "%s: the options must come from sinew_prep_cloth_options_default", name);
    if (o->pin_count && !o->pins)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: pins is NULL but pin_count is %u", name,
                          o->pin_count);
    if (o->triangulate && o->quadrangulate)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "%s: triangulate and quadrangulate undo each other: set one", name);
    if (o->hierarchy_levels && (o->hierarchy_levels < 2 || o->hierarchy_levels > SINEW_ASSET_MAX_LEVELS))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "%s: hierarchy_levels %u must be 2..%u (level 0 included), or 0 for none", name,
                          o->hierarchy_levels, SINEW_ASSET_MAX_LEVELS);
    if (o->subdivisions > SINEW_ASSET_MAX_MLEVELS - 1)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "%s: subdivisions %u must be 1..%u, or 0 for no multigrid levels", name, o->subdivisions,
                          SINEW_ASSET_MAX_MLEVELS - 1);
    if (o->hierarchy_rest != SINEW_PREP_HIERARCHY_REST_POSE && o->hierarchy_rest != SINEW_PREP_HIERARCHY_REST_GEODESIC)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: hierarchy_rest %d is not POSE or GEODESIC",
                          name, (int)o->hierarchy_rest);
    return check_origin(o->origin, name, lg);
}

/* --triangulate or --quadrangulate keep the mesh within the limits. */
static sinew_result check_rework(const sinew_mesh *m, int quadrangulate, const char *name, const sinew_logger *lg)
{
    uint64_t quads = 0, corners = m->face_offsets[m->face_count];
    for (uint32_t f = 0; f < m->face_count; f++)
        quads += m->face_offsets[f + 1] - m->face_offsets[f] == 4;
    uint64_t faces = quadrangulate ? corners : m->face_count + quads;
    uint64_t vertices = quadrangulate ? m->vertex_count + corners + m->face_count : m->vertex_count;
    if (faces <= SINEW_MESH_MAX_FACES && vertices <= SINEW_MESH_MAX_VERTICES)
        return SINEW_RESULT_OK;
    return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, ID, "%s: %s would make %llu vertices and %llu faces, past the "
                      "limits of %u and %u", name, quadrangulate ? "quadrangulate" : "triangulate",
                      (unsigned long long)vertices, (unsigned long long)faces, SINEW_MESH_MAX_VERTICES,
                      SINEW_MESH_MAX_FACES);
}

/* The stages of sinew-prep after the mesh is in hand; takes the mesh. */
static sinew_result build_cloth(sinew_mesh *mesh, const sinew_prep_cloth_options *o, const uint32_t *pins,
                                uint32_t pin_count, const char *name, const sinew_logger *lg, sinew_prep_output *out)
{
    sinew_cloth_options c = sinew_cloth_options_default();
    sinew_result r = colouring_method(o->colouring, name, lg, &c.colouring);
    c.density = o->density;
    c.shear = o->shear;
    c.bending = o->bending;
    c.cluster_particles = o->cluster_particles;
    c.pin_indices = pins;
    c.pin_count = pin_count;
    c.pin_box = o->pin_box;
    memcpy(c.box_min, o->box_min, sizeof c.box_min);
    memcpy(c.box_max, o->box_max, sizeof c.box_max);
    c.pin_boxes = o->pin_boxes;
    c.pin_box_count = o->pin_box_count;
    c.pin_top = o->pin_top;
    c.free_parts = o->free_parts;
    c.source_name = name;
    c.membrane = o->membrane;
    c.membrane_material = o->membrane_material;
    c.springs = o->springs;
    c.spring_compliance = o->spring_compliance;
    c.keep_distances = o->keep_distances;
    memcpy(c.warp, o->warp, sizeof c.warp);

    if (r == SINEW_RESULT_OK && (o->triangulate || o->quadrangulate))
        r = check_rework(mesh, o->quadrangulate, name, lg);
    if (r == SINEW_RESULT_OK && o->triangulate)
        r = sinew_mesh_triangulate_quads(mesh);
    if (r == SINEW_RESULT_OK && o->quadrangulate)
        r = sinew_mesh_quadrangulate(mesh);
    if (r == SINEW_RESULT_OK) {
        char job[64] = "the cloth";
        if (o->subdivisions)
            snprintf(job, sizeof job, "subdivisions %u", o->subdivisions);
        const sinew_estimate e = sinew_estimate_cloth_mesh(mesh, o->subdivisions);
        r = sinew_estimate_check(&e, o->max_memory, name, job, "options.max_memory", lg);
    }
    /* Subdivision numbers the input's vertices first, so pins keep naming them. */
    sinew_nested nested = {0};
    if (r == SINEW_RESULT_OK && o->subdivisions) {
        for (uint32_t k = 0; k < pin_count; k++)
            if (pins[k] >= mesh->vertex_count) {
                sinew_mesh_free(mesh);
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                                  "%s: pin %u names vertex %u; the mesh has %u (with subdivisions, pins name the "
                                  "given mesh's vertices)", name, k, pins[k], mesh->vertex_count);
            }
        r = sinew_mesh_triangulate_quads(mesh);
        if (r == SINEW_RESULT_OK)
            r = sinew_nested_subdivide(mesh, o->subdivisions, lg, &nested);
        /* The finest mesh numbers the input's vertices first: the render
         * mesh stays on them. */
        sinew_mesh render = {0};
        sinew_mesh_move_render(&render, mesh);
        sinew_mesh_free(mesh);
        if (r == SINEW_RESULT_OK)
            r = sinew_nested_finest_mesh(&nested, mesh);
        if (r == SINEW_RESULT_OK)
            sinew_mesh_move_render(mesh, &render);
        sinew_mesh_free_render(&render);
    }
    sinew_asset *a = NULL;
    sinew_cloth_report rep;
    memset(&rep, 0, sizeof rep);
    if (r == SINEW_RESULT_OK)
        r = sinew_cloth_build(mesh, &c, lg, &a, &rep);
    sinew_mesh_free(mesh);
    if (r == SINEW_RESULT_OK && o->subdivisions)
        r = sinew_nested_attach(a, &nested, lg);
    sinew_nested_free(&nested);
    if (r == SINEW_RESULT_OK && o->hierarchy_levels) {
        sinew_hierarchy_options h = sinew_hierarchy_options_default();
        h.max_levels = o->hierarchy_levels;
        h.k = o->hierarchy_k;
        h.min_particles = o->hierarchy_min_particles;
        h.rest = (uint32_t)o->hierarchy_rest;
        h.colouring = c.colouring;
        r = sinew_hierarchy_build(a, &h, lg, NULL);
    }
    if (r == SINEW_RESULT_OK && o->red_black)
        r = sinew_redblack_asset(a, name, lg, NULL);
    if (r == SINEW_RESULT_OK) {
        sinew_prep_report *p = &out->report;
        p->stretch_count = rep.stretch_count;
        p->shear_count = rep.shear_count;
        p->bend_count = rep.bend_count;
        p->colour_count = rep.colour_count;
        p->dropped_faces = rep.dropped_faces;
        p->dropped_vertices = rep.dropped_vertices;
        p->part_count = rep.part_count;
        p->unpinned_parts = rep.unpinned_parts;
        memcpy(a->origin, o->origin, sizeof a->origin);
        r = finish(a, name, lg, out);
    }
    sinew_asset_destroy(a);
    return r;
}

sinew_result sinew_prep_cloth(const sinew_prep_mesh *mesh, const sinew_prep_cloth_options *options,
                              const sinew_logger *lg, sinew_prep_output *out)
{
    if (!out)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "sinew_prep_cloth: out is NULL");
    memset(out, 0, sizeof *out);
    const char *name = options && options->name ? options->name : "cloth";
    sinew_result r = check_cloth_options(options, name, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_mesh m;
    uint32_t *old_to_new = NULL, *pins = NULL;
    r = to_mesh(mesh, name, lg, &m, &old_to_new);
    /* Pins name the vertices given; the weld renumbered them. */
    if (r == SINEW_RESULT_OK && options->pin_count) {
        pins = malloc(sizeof *pins * options->pin_count);
        if (!pins)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: out of memory", name);
        for (uint32_t i = 0; pins && r == SINEW_RESULT_OK && i < options->pin_count; i++) {
            if (options->pins[i] >= mesh->vertex_count)
                r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                               "%s: pin index %u (pin %u) out of range (%u vertices)", name, options->pins[i], i,
                               mesh->vertex_count);
            else
                pins[i] = old_to_new[options->pins[i]];
        }
        if (r != SINEW_RESULT_OK)
            sinew_mesh_free(&m);
    }
    free(old_to_new);
    if (r == SINEW_RESULT_OK) {
        const uint32_t welded = mesh->vertex_count - m.vertex_count;
        r = build_cloth(&m, options, pins, options->pin_count, name, lg, out);
        out->report.welded_vertices = welded;
    }
    free(pins);
    if (r != SINEW_RESULT_OK)
        sinew_prep_output_free(out);
    return r;
}

sinew_result sinew_prep_cloth_asset(const sinew_prep_mesh *mesh, const sinew_prep_cloth_options *options,
                                    const sinew_logger *lg, sinew_asset **asset, sinew_prep_report *report)
{
    if (!asset)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "sinew_prep_cloth_asset: asset is NULL");
    *asset = NULL;
    sinew_prep_output out;
    sinew_result r = sinew_prep_cloth(mesh, options, lg, &out);
    return load(r, &out, options && options->name ? options->name : "cloth", lg, asset, report);
}

sinew_result sinew_prep_cloth_grid(const sinew_prep_grid *grid, const sinew_prep_cloth_options *options,
                                   const sinew_logger *lg, sinew_prep_output *out)
{
    if (!out)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "sinew_prep_cloth_grid: out is NULL");
    memset(out, 0, sizeof *out);
    const char *name = options && options->name ? options->name : "grid";
    sinew_result r = check_cloth_options(options, name, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    if (!grid)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: the grid is NULL", name);
    if (grid->nx < 2 || grid->ny < 2 || grid->nx > 2048 || grid->ny > 2048 || !(grid->size_x > 0.0) ||
        !(grid->size_y > 0.0) || !(grid->size_x <= FLT_MAX) || !(grid->size_y <= FLT_MAX) ||
        !(fabs(grid->height) <= FLT_MAX))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "%s: a grid of %u x %u vertices, %g x %g m at height %g m: give 2..2048 vertices a side and "
                          "finite sizes > 0", name, grid->nx, grid->ny, grid->size_x, grid->size_y, grid->height);
    sinew_mesh m;
    const double origin[3] = {0.0, grid->height, 0.0};
    r = sinew_mesh_grid(grid->nx, grid->ny, grid->size_x, grid->size_y, grid->vertical ? SINEW_GRID_XY : SINEW_GRID_XZ,
                        origin, &m);
    if (r != SINEW_RESULT_OK)
        return sinew_fail(lg, r, ID, "%s: %u x %u grid: %s", name, grid->nx, grid->ny, sinew_result_string(r));
    const uint64_t count = (uint64_t)options->pin_count + (grid->pin_corners ? 2 : 0);
    uint32_t *pins = count < UINT32_MAX ? malloc(sizeof *pins * ((size_t)count + 1)) : NULL;
    if (!pins) {
        sinew_mesh_free(&m);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: out of memory", name);
    }
    if (options->pin_count)
        memcpy(pins, options->pins, sizeof *pins * options->pin_count);
    if (grid->pin_corners) {
        pins[options->pin_count] = 0;
        pins[options->pin_count + 1] = grid->nx - 1;
    }
    r = build_cloth(&m, options, pins, (uint32_t)count, name, lg, out);
    free(pins);
    if (r != SINEW_RESULT_OK)
        sinew_prep_output_free(out);
    return r;
}

sinew_result sinew_prep_fabric_parse(const char *text, size_t size, const char *name, const sinew_logger *lg,
                                     sinew_material *material)
{
    name = name ? name : "fabric";
    if (!text || !material)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: %s is NULL", name,
                          text ? "material" : "text");
    return sinew_fabric_parse(text, size, name, lg, material);
}

/* ---------------------------------------------------------------- soft bodies */

static sinew_result check_soft_options(const sinew_prep_soft_options *o, const char *name, const sinew_logger *lg)
{
    if (!o)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: the options are NULL", name);
    if (o->cookie != SINEW_DESC_COOKIE)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "%s: the options must come from sinew_prep_soft_options_default", name);
    if (o->pin_count && !o->pins)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: pins is NULL but pin_count is %u", name,
                          o->pin_count);
    if (o->region_count && !o->regions)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: regions is NULL but region_count is %u",
                          name, o->region_count);
    if (o->model != SINEW_MATERIAL_NEO_HOOKEAN && o->model != SINEW_MATERIAL_STABLE_NEO_HOOKEAN)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "%s: model %d is not NEO_HOOKEAN or STABLE_NEO_HOOKEAN", name, (int)o->model);
    if (!(o->pin_bottom >= 0.0 && o->pin_bottom <= 1.0))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: pin_bottom %g must be in [0, 1]", name,
                          o->pin_bottom);
    return check_origin(o->origin, name, lg);
}

/* Parts joined by no face: warned about (as sinew-prep does), only the
 * largest kept when asked. */
static sinew_result pieces(sinew_volume *v, int largest_only, const char *name, const sinew_logger *lg)
{
    uint32_t *piece = malloc(sizeof *piece * ((size_t)v->tet_count + 1));
    uint32_t count = piece ? sinew_volume_pieces(v, piece) : 0;
    uint32_t *size = count ? calloc(count, sizeof *size) : NULL;
    uint8_t *keep = size && count > 1 && largest_only ? malloc((size_t)v->tet_count + 1) : NULL;
    if (!size || (count > 1 && largest_only && !keep)) {
        free(piece);
        free(size);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: out of memory", name);
    }
    uint32_t largest = 0;
    for (uint32_t t = 0; t < v->tet_count; t++)
        size[piece[t]]++;
    for (uint32_t p = 1; p < count; p++)
        largest = size[p] > size[largest] ? p : largest;
    if (count > 1)
        sinew_logf(lg, SINEW_LOG_WARNING, ID, "%s: %u pieces joined by no face (largest %u of %u tetrahedra); %s",
                   name, count, size[largest], v->tet_count,
                   largest_only ? "keeping the largest" : "each moves on its own (largest_piece keeps the largest)");
    if (keep) {
        for (uint32_t t = 0; t < v->tet_count; t++)
            keep[t] = piece[t] == largest;
        sinew_volume_keep_tets(v, keep);
    }
    free(keep);
    free(piece);
    free(size);
    return SINEW_RESULT_OK;
}

/* Takes the volume. render_source: the surface whose render mesh the asset
 * keeps, embedded in the tetrahedra (NULL: none). */
static sinew_result build_soft(sinew_volume *v, const sinew_prep_soft_options *o, const sinew_mesh *render_source,
                               const char *name, const sinew_logger *lg, sinew_prep_output *out)
{
    sinew_soft_options s = sinew_soft_options_default();
    sinew_result r = colouring_method(o->colouring, name, lg, &s.colouring);
    s.model = o->model;
    s.youngs_modulus = o->youngs_modulus;
    s.poisson_ratio = o->poisson_ratio;
    s.density = o->density;
    s.pin_indices = o->pins;
    s.pin_count = o->pin_count;
    s.pin_box = o->pin_box;
    memcpy(s.box_min, o->box_min, sizeof s.box_min);
    memcpy(s.box_max, o->box_max, sizeof s.box_max);
    s.pin_boxes = o->pin_boxes;
    s.pin_box_count = o->pin_box_count;
    s.pin_bottom = o->pin_bottom;
    s.source_name = name;
    s.render_source = render_source;
    sinew_soft_region_material *regions = NULL;
    if (r == SINEW_RESULT_OK && o->region_count) {
        regions = malloc(sizeof *regions * o->region_count);
        if (!regions)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: out of memory", name);
        for (uint32_t i = 0; regions && i < o->region_count; i++) {
            regions[i].region = o->regions[i].region;
            regions[i].material = o->regions[i].material;
        }
        s.region_materials = regions;
        s.region_material_count = o->region_count;
    }
    if (r == SINEW_RESULT_OK)
        r = pieces(v, o->largest_piece, name, lg);
    sinew_asset *a = NULL;
    sinew_soft_report rep;
    memset(&rep, 0, sizeof rep);
    if (r == SINEW_RESULT_OK)
        r = sinew_soft_build(v, &s, lg, &a, &rep);
    sinew_volume_free(v);
    free(regions);
    if (r == SINEW_RESULT_OK) {
        out->report.colour_count = rep.colour_count;
        out->report.dropped_vertices = rep.dropped_vertices;
        out->report.flipped_tets = rep.flipped_tets;
        memcpy(a->origin, o->origin, sizeof a->origin);
        r = finish(a, name, lg, out);
    }
    sinew_asset_destroy(a);
    return r;
}

sinew_result sinew_prep_soft(const sinew_prep_volume *volume, const sinew_prep_soft_options *options,
                             const sinew_logger *lg, sinew_prep_output *out)
{
    if (!out)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "sinew_prep_soft: out is NULL");
    memset(out, 0, sizeof *out);
    const char *name = options && options->name ? options->name : "soft body";
    sinew_result r = check_soft_options(options, name, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    if (!volume)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: the volume is NULL", name);
    if (volume->tet_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID, "%s: no tetrahedra (tet_count is 0)", name);
    if (volume->tet_count > SINEW_VOLUME_MAX_TETS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, ID, "%s: %u tetrahedra exceed the limit of %u", name,
                          volume->tet_count, SINEW_VOLUME_MAX_TETS);
    if (!volume->tets)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, ID, "%s: tets is NULL but tet_count is %u", name,
                          volume->tet_count);
    const sinew_estimate e = sinew_estimate_soft(volume->vertex_count, volume->tet_count);
    r = sinew_estimate_check(&e, options->max_memory, name, "the soft body", "options.max_memory", lg);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_volume v = {0};
    r = copy_positions(name, volume->vertex_count, volume->positions, volume->positions_f64, lg, &v.positions);
    if (r != SINEW_RESULT_OK)
        return r;
    v.vertex_count = volume->vertex_count;
    v.tet_count = volume->tet_count;
    v.tets = malloc(sizeof *v.tets * 4 * (size_t)v.tet_count);
    v.regions = volume->regions ? malloc(sizeof *v.regions * (size_t)v.tet_count) : NULL;
    if (!v.tets || (volume->regions && !v.regions)) {
        sinew_volume_free(&v);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, ID, "%s: out of memory", name);
    }
    memcpy(v.tets, volume->tets, sizeof *v.tets * 4 * (size_t)v.tet_count);
    if (v.regions) {
        memcpy(v.regions, volume->regions, sizeof *v.regions * (size_t)v.tet_count);
        sinew_volume_drop_zero_regions(&v);
    }
    /* Indices are sinew_volume_check's (in sinew_soft_build) to refuse. */
    r = build_soft(&v, options, NULL, name, lg, out);
    if (r != SINEW_RESULT_OK)
        sinew_prep_output_free(out);
    return r;
}

/* The mesher's work on the surface, estimated before it starts. */
static sinew_result check_surface_estimate(const sinew_mesh *m, const sinew_prep_soft_options *o, const char *name,
                                           const sinew_logger *lg)
{
    char job[64];
    const int lattice = o->mesher == SINEW_PREP_MESHER_LATTICE;
    if (lattice)
        snprintf(job, sizeof job, "lattice_cells %u", o->lattice_cells);
    else if (o->max_volume > 0.0)
        snprintf(job, sizeof job, "max_volume %g m^3", o->max_volume);
    else
        snprintf(job, sizeof job, "TetGen's mesh");
    const sinew_estimate e = lattice ? sinew_estimate_lattice(m, o->lattice_cells) : sinew_estimate_tetgen(m, o->max_volume);
    return sinew_estimate_check(&e, o->max_memory, name, job, "options.max_memory", lg);
}

sinew_result sinew_prep_soft_from_surface(const sinew_prep_mesh *surface, const sinew_prep_soft_options *options,
                                          const sinew_logger *lg, sinew_prep_output *out)
{
    if (!out)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "sinew_prep_soft_from_surface: out is NULL");
    memset(out, 0, sizeof *out);
    const char *name = options && options->name ? options->name : "soft body";
    sinew_result r = check_soft_options(options, name, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    if (options->mesher != SINEW_PREP_MESHER_TETGEN && options->mesher != SINEW_PREP_MESHER_LATTICE)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: mesher %d is not TETGEN or LATTICE", name,
                          (int)options->mesher);
    sinew_mesh m;
    r = to_mesh(surface, name, lg, &m, NULL);
    if (r == SINEW_RESULT_OK)
        r = check_surface_estimate(&m, options, name, lg);
    if (r != SINEW_RESULT_OK) {
        sinew_mesh_free(&m);
        return r;
    }
    sinew_volume v = {0};
    /* A lattice following the surface holds every vertex of it, and the
     * model is drawn as it is (its render mesh, or its own faces). */
    int by_lattice = options->mesher == SINEW_PREP_MESHER_LATTICE && options->follow_surface;
    if (options->mesher == SINEW_PREP_MESHER_LATTICE)
        r = sinew_volume_lattice(&m, options->lattice_cells,
                                 options->follow_surface ? SINEW_LATTICE_FOLLOW | SINEW_LATTICE_COVER : 0, name, lg, &v);
    else
        r = sinew_volume_tetrahedralise_cover(&m, options->max_volume, options->quality, options->tetgen, 1, name, lg,
                                              &v, &by_lattice);
    if (r == SINEW_RESULT_OK && by_lattice && !sinew_mesh_render_from_faces(&m)) {
        sinew_volume_free(&v);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
    }
    /* The surface's render vertices are embedded in the tetrahedra. */
    if (r == SINEW_RESULT_OK)
        r = build_soft(&v, options, m.render_vertex_count ? &m : NULL, name, lg, out);
    if (r == SINEW_RESULT_OK)
        out->report.welded_vertices = surface->vertex_count - m.vertex_count;
    sinew_mesh_free(&m);
    if (r != SINEW_RESULT_OK)
        sinew_prep_output_free(out);
    return r;
}

sinew_result sinew_prep_soft_asset(const sinew_prep_volume *volume, const sinew_prep_mesh *surface,
                                   const sinew_prep_soft_options *options, const sinew_logger *lg,
                                   sinew_asset **asset, sinew_prep_report *report)
{
    if (!asset)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "sinew_prep_soft_asset: asset is NULL");
    *asset = NULL;
    if ((volume == NULL) == (surface == NULL))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID,
                          "sinew_prep_soft_asset: give a volume or a surface, exactly one (%s given)",
                          volume ? "both" : "neither");
    sinew_prep_output out;
    sinew_result r = volume ? sinew_prep_soft(volume, options, lg, &out)
                            : sinew_prep_soft_from_surface(surface, options, lg, &out);
    return load(r, &out, options && options->name ? options->name : "soft body", lg, asset, report);
}

/* ---------------------------------------------------------------- colouring */

sinew_result sinew_prep_colour(uint32_t constraint_count, const uint32_t *offsets, const uint32_t *indices,
                               uint32_t particle_count, sinew_prep_colouring method, const sinew_logger *lg,
                               uint32_t *colour_of, uint32_t *colour_count)
{
    const char *name = "sinew_prep_colour";
    if (!offsets || !colour_count || (constraint_count && (!colour_of || !indices)))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: %s is NULL", name,
                          !offsets ? "offsets" : !colour_count ? "colour_count" : !colour_of ? "colour_of" : "indices");
    if (offsets[0] != 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, ID, "%s: offsets[0] is %u, not 0", name, offsets[0]);
    sinew_colouring_method m = SINEW_COLOURING_BALANCED;
    sinew_result r = colouring_method(method, name, lg, &m);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_colouring c;
    r = sinew_colour_constraints(constraint_count, offsets, indices, particle_count, m, lg, &c);
    if (r != SINEW_RESULT_OK)
        return r;
    if (constraint_count)
        memcpy(colour_of, c.colour_of, sizeof *colour_of * constraint_count);
    *colour_count = c.colour_count;
    sinew_colouring_free(&c);
    return SINEW_RESULT_OK;
}
