/* From a polygon mesh to a cloth asset:
 *
 *   1. check the mesh; drop degenerate faces, then vertices no face uses;
 *   2. triangulate each polygon as a fan from its first vertex; stretch
 *      constraints on polygon edges, shear on polygon diagonals;
 *   3. a dihedral bending hinge (Bridson, Marino and Fedkiw 2003; formula in
 *      src/math/xpbd_math.h) across every triangulation edge that exactly two
 *      triangles share;
 *   4. lumped masses: each triangle's mass split equally among its corners;
 *   5. for the Generalized PBD solvers (docs/math.md section 3), finite elements:
 *      a membrane TRIANGLE per triangle, with its inverse rest shape in the
 *      material frame (u the warp's projection on the triangle's plane), and a
 *      SPRING per stretch or shear distance; elements that share a particle
 *      conflict, and the element dual graph is coloured like the constraints.
 *      Elements replace the stretch and shear distances unless kept;
 *   6. colour distances and bends together and lay them out colour by colour,
 *      as the asset format requires (src/asset/asset.h); elements likewise;
 *   7. the source's render mesh, where the mesh has one: each render vertex
 *      tied to the particle its vertex became (docs/render-mesh.md).
 *
 * Geometry is computed in double from the mesh and rounded to float once.
 */
#include "cloth.h"
#include "embed.h"
#include "pin_boxes.h"

#include "core/log.h"
#include "math/xpbd_math.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

sinew_cloth_options sinew_cloth_options_default(void)
{
    sinew_cloth_options o;
    memset(&o, 0, sizeof o);
    o.density = 0.2;
    o.shear = 1;
    o.bending = 1;
    o.colouring = SINEW_COLOURING_BALANCED;
    o.cluster_particles = SINEW_CLUSTER_DEFAULT_PARTICLES;
    /* A woven cotton shirting, for when membrane is set to STVK: E t = 9 kN/m
     * is about the secant stiffness at the 490 N/m (500 gf/cm) load of the
     * Kawabata KES-F tensile test, where such fabrics stretch some 5 %. */
    o.membrane_material = sinew_material_make(SINEW_MATERIAL_STVK, 3e7f, 0.3f);
    o.membrane_material.thickness = 3e-4f;
    o.membrane_material.density = (float)o.density;
    o.warp[0] = 1.0;
    return o;
}

/* ------------------------------------------------------------ edge map */

/* Undirected edge -> uint32, open addressing with linear probing. Keys are
 * (min << 32 | max) with min < max, so all ones never occurs and marks empty. */
typedef struct edge_map {
    uint64_t *keys;
    uint32_t *values;
    size_t mask;
} edge_map;

static int edge_map_init(edge_map *m, uint64_t max_entries)
{
    size_t cap = 16;
    while (cap < 2 * max_entries)
        cap *= 2;
    m->mask = cap - 1;
    m->keys = malloc(sizeof(uint64_t) * cap);
    m->values = malloc(sizeof(uint32_t) * cap);
    if (!m->keys || !m->values)
        return 0;
    memset(m->keys, 0xff, sizeof(uint64_t) * cap);
    return 1;
}

static void edge_map_free(edge_map *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* The value slot of edge a-b; a new slot holds NONE. */
static uint32_t *edge_map_slot(edge_map *m, uint32_t a, uint32_t b)
{
    uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    /* splitmix64's finaliser: every key bit reaches the low bits, so edges
     * around a high-valence vertex do not pile up in one run of slots. */
    uint64_t h = key;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    size_t i = (size_t)(h ^ (h >> 31)) & m->mask;
    while (m->keys[i] != key && m->keys[i] != UINT64_MAX)
        i = (i + 1) & m->mask;
    if (m->keys[i] == UINT64_MAX) {
        m->keys[i] = key;
        m->values[i] = NONE;
    }
    return &m->values[i];
}

/* ------------------------------------------------------------ build state */

typedef struct triangle_edge {
    uint32_t a, b;          /* a < b */
    uint32_t t0, t1;        /* first two triangles, in triangle order */
    uint32_t count;
} triangle_edge;

typedef struct cloth_builder {
    const sinew_mesh *mesh;
    const sinew_cloth_options *opt;
    const sinew_logger *lg;
    const char *name;
    sinew_cloth_report rep;
    uint8_t *face_kept;
    uint32_t *remap;        /* mesh vertex -> particle, NONE if dropped */
    uint32_t *original;     /* particle -> mesh vertex */
    uint32_t n;
    sinew_triangle_rec *tris;
    uint32_t tri_count;
    sinew_distance_rec *dist;
    uint32_t dist_count;
    sinew_bend_rec *bends;
    uint32_t bend_count;
    float *inv_mass;
    uint32_t pinned_count;
    sinew_colouring colouring;
    sinew_element_rec *elems;   /* springs, then triangles; before colouring */
    uint32_t elem_count;
    sinew_material materials[2];
    uint32_t material_count;
    sinew_colouring elem_colouring;
} cloth_builder;

static const double *position(const cloth_builder *b, uint32_t particle)
{
    return b->mesh->positions + 3 * (size_t)b->original[particle];
}

static sinew_result out_of_memory(const cloth_builder *b)
{
    return sinew_fail(b->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", b->name);
}

static double triangle_area(const double *p0, const double *p1, const double *p2)
{
    double e1[3], e2[3], c[3];
    sinew_v3_sub(p1, p0, e1);
    sinew_v3_sub(p2, p0, e2);
    sinew_v3_cross(e1, e2, c);
    return 0.5 * sqrt(sinew_v3_dot(c, c));
}

static sinew_result check_options(const cloth_builder *b)
{
    const sinew_cloth_options *o = b->opt;
    if (!(o->density > 0.0) || !isfinite(o->density))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: density %g kg/m^2 must be finite and > 0", b->name, o->density);
    if (!(o->pin_top >= 0.0) || !isfinite(o->pin_top))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: pin_top %g must be finite and >= 0", b->name, o->pin_top);
    if (o->colouring != SINEW_COLOURING_GREEDY && o->colouring != SINEW_COLOURING_BALANCED)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep", "%s: unknown colouring method %d",
                          b->name, (int)o->colouring);
    if (o->cluster_particles &&
        (o->cluster_particles < SINEW_CLUSTER_MIN_PARTICLES || o->cluster_particles > SINEW_CLUSTER_MAX_PARTICLES))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep", "%s: clusters of %u particles: the "
                          "size must be %u to %u, or 0 for none", b->name, o->cluster_particles,
                          SINEW_CLUSTER_MIN_PARTICLES, SINEW_CLUSTER_MAX_PARTICLES);
    sinew_result boxes = sinew_pin_boxes_check(o->pin_box, o->box_min, o->box_max, o->pin_boxes, o->pin_box_count,
                                               b->lg, b->name);
    if (boxes != SINEW_RESULT_OK)
        return boxes;
    for (uint32_t i = 0; i < o->pin_count; i++)
        if (o->pin_indices[i] >= b->mesh->vertex_count)
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                              "%s: pin index %u (pin %u) out of range (%u vertices)", b->name, o->pin_indices[i],
                              i, b->mesh->vertex_count);
    if (o->membrane != 0) {
        if (o->membrane != SINEW_MATERIAL_STVK && o->membrane != SINEW_MATERIAL_TABULATED)
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                              "%s: membrane model %u is not STVK (%d) or TABULATED (%d)", b->name, o->membrane,
                              SINEW_MATERIAL_STVK, SINEW_MATERIAL_TABULATED);
        if (o->membrane_material.model != o->membrane)
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                              "%s: membrane is model %u but membrane_material is model %u", b->name, o->membrane,
                              o->membrane_material.model);
        sinew_material m = o->membrane_material;
        m.density = (float)o->density;
        char where[300];
        snprintf(where, sizeof where, "%s: membrane material", b->name);
        sinew_result r = sinew_material_check(&m, where, b->lg);
        if (r != SINEW_RESULT_OK)
            return r;
        double w = sinew_v3_dot(o->warp, o->warp);
        if (!(w > 0.0) || !isfinite(w))
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                              "%s: warp direction (%g, %g, %g) must be finite and not zero", b->name, o->warp[0],
                              o->warp[1], o->warp[2]);
    }
    if (o->springs && !(o->spring_compliance >= 0.0 && (float)o->spring_compliance <= FLT_MAX))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: spring compliance %g m/N must be finite and >= 0", b->name, o->spring_compliance);
    return SINEW_RESULT_OK;
}

/* Positions must survive the conversion to float; faces must index vertices. */
static sinew_result check_mesh(const cloth_builder *b)
{
    const sinew_mesh *m = b->mesh;
    if (m->vertex_count > SINEW_ASSET_MAX_PARTICLES)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u vertices exceed the limit of %u",
                          b->name, m->vertex_count, SINEW_ASSET_MAX_PARTICLES);
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            if (!(fabs(m->positions[3 * (size_t)v + k]) <= FLT_MAX))
                return sinew_fail(b->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                                  "%s: vertex %u has a coordinate that is not finite in single precision",
                                  b->name, v);
    for (uint32_t f = 0; f < m->face_count; f++) {
        if (m->face_offsets[f + 1] < m->face_offsets[f])
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: face %u has a decreasing offset",
                              b->name, f);
        for (uint32_t k = m->face_offsets[f]; k < m->face_offsets[f + 1]; k++)
            if (m->face_indices[k] >= m->vertex_count)
                return sinew_fail(b->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                                  "%s: face %u: vertex index %u out of range (%u vertices)", b->name, f,
                                  m->face_indices[k], m->vertex_count);
    }
    return SINEW_RESULT_OK;
}

/* A face is degenerate if it has fewer than 3 vertices, repeats one, or any of
 * its fan triangles has (near) zero area: then every vertex of every kept face
 * lies on a triangle of positive area and so gets a positive mass. */
static sinew_result drop_degenerate_faces(cloth_builder *b)
{
    const sinew_mesh *m = b->mesh;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            double x = m->positions[3 * (size_t)v + k];
            lo[k] = v == 0 || x < lo[k] ? x : lo[k];
            hi[k] = v == 0 || x > hi[k] ? x : hi[k];
        }
    double d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    double min_area = 1e-12 * sinew_v3_dot(d, d);

    b->face_kept = malloc((size_t)m->face_count + 1);
    b->remap = malloc(sizeof(uint32_t) * ((size_t)m->vertex_count + 1));
    if (!b->face_kept || !b->remap)
        return out_of_memory(b);
    /* remap doubles as a "seen in face f" stamp until the vertices are compacted. */
    memset(b->remap, 0xff, sizeof(uint32_t) * m->vertex_count);
    uint32_t first_dropped = NONE;
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *v = m->face_indices + m->face_offsets[f];
        uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
        int ok = k >= 3;
        for (uint32_t i = 0; ok && i < k; i++) {
            ok = b->remap[v[i]] != f;
            b->remap[v[i]] = f;
        }
        for (uint32_t i = 1; ok && i + 1 < k; i++) {
            const double *p = m->positions;
            double area = triangle_area(p + 3 * (size_t)v[0], p + 3 * (size_t)v[i], p + 3 * (size_t)v[i + 1]);
            ok = area > 0.0 && area >= min_area;
        }
        b->face_kept[f] = (uint8_t)ok;
        if (!ok && b->rep.dropped_faces++ == 0)
            first_dropped = f;
    }
    if (b->rep.dropped_faces)
        sinew_logf(b->lg, SINEW_LOG_WARNING, "prep",
                   "%s: dropped %u degenerate faces (repeated vertex or zero area), first: face %u", b->name,
                   b->rep.dropped_faces, first_dropped);
    if (b->rep.dropped_faces == m->face_count)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: no usable faces", b->name);
    return SINEW_RESULT_OK;
}

/* Keeps the vertices the remaining faces use, in their original order. */
static sinew_result compact_vertices(cloth_builder *b)
{
    const sinew_mesh *m = b->mesh;
    memset(b->remap, 0xff, sizeof(uint32_t) * m->vertex_count);
    for (uint32_t f = 0; f < m->face_count; f++)
        if (b->face_kept[f])
            for (uint32_t k = m->face_offsets[f]; k < m->face_offsets[f + 1]; k++)
                b->remap[m->face_indices[k]] = 0;
    b->original = malloc(sizeof(uint32_t) * m->vertex_count);
    if (!b->original)
        return out_of_memory(b);
    uint32_t first_dropped = NONE;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        if (b->remap[v] == NONE) {
            if (b->rep.dropped_vertices++ == 0)
                first_dropped = v;
            continue;
        }
        b->remap[v] = b->n;
        b->original[b->n++] = v;
    }
    if (b->rep.dropped_vertices)
        sinew_logf(b->lg, SINEW_LOG_WARNING, "prep", "%s: removed %u vertices that no face uses, first: vertex %u",
                   b->name, b->rep.dropped_vertices, first_dropped);
    return SINEW_RESULT_OK;
}

static sinew_result add_distance(cloth_builder *b, edge_map *map, uint32_t u, uint32_t v, uint32_t kind)
{
    uint32_t *slot = edge_map_slot(map, u, v);
    if (*slot != NONE)
        return SINEW_RESULT_OK;
    *slot = b->dist_count;
    double e[3];
    sinew_v3_sub(position(b, u), position(b, v), e);
    float rest = (float)sqrt(sinew_v3_dot(e, e));
    if (!(rest > 0.0f) || !isfinite(rest))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                          "%s: edge %u-%u has length %g, not representable in single precision", b->name,
                          b->original[u], b->original[v], (double)rest);
    b->dist[b->dist_count++] = (sinew_distance_rec){u < v ? u : v, u < v ? v : u, rest, kind};
    return SINEW_RESULT_OK;
}

/* Fan triangles, then stretch on polygon edges and shear on diagonals: all
 * stretch edges go in first, so a diagonal of one face that is an edge of
 * another stays a stretch constraint. */
static sinew_result triangulate(cloth_builder *b)
{
    const sinew_mesh *m = b->mesh;
    uint64_t tris = 0, corners = 0;
    for (uint32_t f = 0; f < m->face_count; f++)
        if (b->face_kept[f]) {
            uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
            tris += k - 2;
            corners += k;
        }
    /* Edges plus diagonals of a k-gon: at most 2k distance constraints. */
    if (tris > SINEW_ASSET_MAX_RECORDS || 2 * corners > SINEW_ASSET_MAX_RECORDS)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep",
                          "%s: %llu triangles and up to %llu distance constraints exceed the limit of %u", b->name,
                          (unsigned long long)tris, (unsigned long long)(2 * corners), SINEW_ASSET_MAX_RECORDS);
    b->tris = malloc(sizeof(sinew_triangle_rec) * tris);
    b->dist = malloc(sizeof(sinew_distance_rec) * 2 * corners);
    edge_map map = {0};
    if (!b->tris || !b->dist || !edge_map_init(&map, 2 * corners)) {
        edge_map_free(&map);
        return out_of_memory(b);
    }
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t f = 0; f < m->face_count && r == SINEW_RESULT_OK; f++) {
        if (!b->face_kept[f])
            continue;
        const uint32_t *v = m->face_indices + m->face_offsets[f];
        uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
        for (uint32_t i = 1; i + 1 < k; i++)
            b->tris[b->tri_count++] = (sinew_triangle_rec){{b->remap[v[0]], b->remap[v[i]], b->remap[v[i + 1]]}};
        for (uint32_t i = 0; i < k && r == SINEW_RESULT_OK; i++)
            r = add_distance(b, &map, b->remap[v[i]], b->remap[v[(i + 1) % k]], SINEW_KIND_STRETCH);
    }
    b->rep.stretch_count = b->dist_count;
    for (uint32_t f = 0; f < m->face_count && b->opt->shear && r == SINEW_RESULT_OK; f++) {
        const uint32_t *v = m->face_indices + m->face_offsets[f];
        uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
        if (!b->face_kept[f] || k < 4)
            continue;
        if (k == 4)
            r = add_distance(b, &map, b->remap[v[1]], b->remap[v[3]], SINEW_KIND_SHEAR);
        /* For a quad this is its other diagonal; beyond, the fan's diagonals. */
        for (uint32_t i = 2; i + 1 < k && r == SINEW_RESULT_OK; i++)
            r = add_distance(b, &map, b->remap[v[0]], b->remap[v[i]], SINEW_KIND_SHEAR);
    }
    b->rep.shear_count = b->dist_count - b->rep.stretch_count;
    edge_map_free(&map);
    return r;
}

static uint32_t opposite(const sinew_triangle_rec *t, uint32_t a, uint32_t b)
{
    for (int k = 0; k < 3; k++)
        if (t->v[k] != a && t->v[k] != b)
            return t->v[k];
    return NONE;
}

static sinew_result add_bending(cloth_builder *b)
{
    size_t max_edges = 3 * (size_t)b->tri_count;
    triangle_edge *edges = malloc(sizeof(triangle_edge) * max_edges);
    b->bends = malloc(sizeof(sinew_bend_rec) * max_edges);
    edge_map map = {0};
    if (!edges || !b->bends || !edge_map_init(&map, max_edges)) {
        free(edges);
        edge_map_free(&map);
        return out_of_memory(b);
    }
    uint32_t edge_count = 0;
    for (uint32_t t = 0; t < b->tri_count; t++) {
        for (int k = 0; k < 3; k++) {
            uint32_t u = b->tris[t].v[k], v = b->tris[t].v[(k + 1) % 3];
            uint32_t *slot = edge_map_slot(&map, u, v);
            if (*slot == NONE) {
                *slot = edge_count;
                edges[edge_count++] = (triangle_edge){u < v ? u : v, u < v ? v : u, t, NONE, 1};
            } else if (edges[*slot].count++ == 1) {
                edges[*slot].t1 = t;
            }
        }
    }
    edge_map_free(&map);
    uint32_t degenerate = 0, first_nonmanifold = NONE;
    for (uint32_t i = 0; i < edge_count; i++) {
        const triangle_edge *e = &edges[i];
        if (e->count > 2 && b->rep.nonmanifold_edges++ == 0)
            first_nonmanifold = i;
        if (e->count != 2)
            continue;
        uint32_t w0 = opposite(&b->tris[e->t0], e->a, e->b), w1 = opposite(&b->tris[e->t1], e->a, e->b);
        int ok = 0;
        double angle = sinew_dihedral_angle(position(b, e->a), position(b, e->b), position(b, w0), position(b, w1),
                                            &ok);
        /* w0 == w1: the same triangle twice (a double-sided sheet); no hinge. */
        if (!ok || w0 == w1) {
            degenerate++;
            continue;
        }
        b->bends[b->bend_count++] = (sinew_bend_rec){{e->a, e->b, w0, w1}, (float)angle, SINEW_KIND_BEND};
    }
    if (b->rep.nonmanifold_edges) {
        const triangle_edge *e = &edges[first_nonmanifold];
        sinew_logf(b->lg, SINEW_LOG_WARNING, "prep",
                   "%s: %u non-manifold edges (shared by more than two triangles) get no bending, first: %u-%u",
                   b->name, b->rep.nonmanifold_edges, b->original[e->a], b->original[e->b]);
    }
    if (degenerate)
        sinew_logf(b->lg, SINEW_LOG_WARNING, "prep", "%s: skipped %u degenerate bending hinges", b->name,
                   degenerate);
    b->rep.bend_count = b->bend_count;
    free(edges);
    return SINEW_RESULT_OK;
}

static void pin(cloth_builder *b, uint32_t particle)
{
    if (b->inv_mass[particle] != 0.0f) {
        b->inv_mass[particle] = 0.0f;
        b->pinned_count++;
    }
}

static sinew_result compute_masses(cloth_builder *b)
{
    double *mass = calloc(b->n, sizeof(double));
    b->inv_mass = malloc(sizeof(float) * b->n);
    if (!mass || !b->inv_mass) {
        free(mass);
        return out_of_memory(b);
    }
    for (uint32_t t = 0; t < b->tri_count; t++) {
        const uint32_t *v = b->tris[t].v;
        double share = triangle_area(position(b, v[0]), position(b, v[1]), position(b, v[2])) * b->opt->density / 3.0;
        for (int k = 0; k < 3; k++)
            mass[v[k]] += share;
    }
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t i = 0; i < b->n && r == SINEW_RESULT_OK; i++) {
        b->inv_mass[i] = (float)(1.0 / mass[i]);
        if (!(mass[i] > 0.0) || !isfinite(b->inv_mass[i]) || !(b->inv_mass[i] > 0.0f))
            r = sinew_fail(b->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                           "%s: vertex %u has mass %g kg, whose inverse is not a positive float", b->name,
                           b->original[i], mass[i]);
    }
    free(mass);
    return r;
}

/* Pins by index, box and top band. A top band that takes every particle is
 * refused: a mesh flat along y has no top edge, and a cloth with every
 * particle pinned never moves. */
static sinew_result apply_pins(cloth_builder *b)
{
    const sinew_cloth_options *o = b->opt;
    uint32_t on_removed = 0, first_removed = NONE;
    for (uint32_t i = 0; i < o->pin_count; i++) {
        uint32_t p = b->remap[o->pin_indices[i]];
        if (p != NONE)
            pin(b, p);
        else if (on_removed++ == 0)
            first_removed = o->pin_indices[i];
    }
    if (on_removed)
        sinew_logf(b->lg, SINEW_LOG_WARNING, "prep", "%s: %u pins are on removed vertices, first: vertex %u",
                   b->name, on_removed, first_removed);
    double ymin = position(b, 0)[1], ymax = ymin;
    for (uint32_t i = 1; i < b->n; i++) {
        double y = position(b, i)[1];
        ymin = y < ymin ? y : ymin;
        ymax = y > ymax ? y : ymax;
    }
    double top = ymax - o->pin_top * (ymax - ymin);
    uint32_t in_top = 0;
    for (uint32_t i = 0; i < b->n && o->pin_top > 0.0; i++)
        in_top += position(b, i)[1] >= top;
    if (in_top == b->n && b->n > 0) {
        if (ymax == ymin)
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                              "%s: pin_top %g would pin all %u particles: the mesh is flat along y (every vertex "
                              "at y = %g m), so it has no top edge; pin by index or box instead, or turn the "
                              "mesh upright", b->name, o->pin_top, b->n, ymax);
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: pin_top %g would pin all %u particles (the band below the top y = %g m reaches the "
                          "lowest, y = %g m); give a fraction below 1", b->name, o->pin_top, b->n, ymax, ymin);
    }
    for (uint32_t i = 0; i < b->n; i++) {
        const double *p = position(b, i);
        const int in_box = sinew_pin_boxes_contain(o->pin_box, o->box_min, o->box_max, o->pin_boxes,
                                                   o->pin_box_count, p);
        if (in_box || (o->pin_top > 0.0 && p[1] >= top))
            pin(b, i);
    }
    return SINEW_RESULT_OK;
}

/* Union-find root of particle i, halving the path on the way. */
static uint32_t part_root(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* The connected parts (particles joined by triangles) and, when anything is
 * pinned, the parts without a pin: they fall on their own, which a user
 * pinning the cloth rarely means, so they are reported. */
static sinew_result count_parts(cloth_builder *b)
{
    uint32_t *parent = malloc(sizeof *parent * ((size_t)b->n + 1));
    uint8_t *pinned = calloc((size_t)b->n + 1, 1);
    if (!parent || !pinned) {
        free(parent);
        free(pinned);
        return out_of_memory(b);
    }
    for (uint32_t i = 0; i < b->n; i++)
        parent[i] = i;
    for (uint32_t t = 0; t < b->tri_count; t++)
        for (int k = 1; k < 3; k++) {
            uint32_t x = part_root(parent, b->tris[t].v[0]), y = part_root(parent, b->tris[t].v[k]);
            if (x != y)
                parent[x > y ? x : y] = x < y ? x : y;
        }
    sinew_cloth_report *rep = &b->rep;
    for (uint32_t i = 0; i < b->n; i++) {
        uint32_t root = part_root(parent, i);
        rep->part_count += root == i;
        pinned[root] |= b->inv_mass[i] == 0.0f;
    }
    for (uint32_t i = 0; i < b->n && b->pinned_count; i++) {
        uint32_t root = part_root(parent, i);
        rep->unpinned_parts += root == i && !pinned[i];
        rep->unpinned_particles += !pinned[root];
    }
    if (rep->unpinned_parts)
        sinew_logf(b->lg, b->opt->free_parts ? SINEW_LOG_INFO : SINEW_LOG_WARNING, "prep",
                   "%s: %u connected parts, %u of them without a pin (%u of %u particles): those fall on their "
                   "own%s",
                   b->name, rep->part_count, rep->unpinned_parts, rep->unpinned_particles, b->n,
                   b->opt->free_parts ? " (--free-parts)" : "; pin them, or --free-parts if that is meant");
    free(parent);
    free(pinned);
    return SINEW_RESULT_OK;
}

/* Colours records given as CSR (record i touches indices[offsets[i] ..
 * offsets[i + 1])) by the builder's method, within the asset's colour limit. */
static sinew_result colour_csr(cloth_builder *b, uint32_t count, const uint32_t *offsets, const uint32_t *indices,
                               const char *what, sinew_colouring *out)
{
    sinew_result r = sinew_colour_constraints(count, offsets, indices, b->n, b->opt->colouring, b->lg, out);
    if (r == SINEW_RESULT_OK && out->colour_count > SINEW_ASSET_MAX_COLOURS)
        r = sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %u colours of %s exceed the limit of %u",
                       b->name, out->colour_count, what, SINEW_ASSET_MAX_COLOURS);
    return r;
}

static sinew_result colour(cloth_builder *b)
{
    uint64_t entries = 2 * (uint64_t)b->dist_count + 4 * (uint64_t)b->bend_count;
    if (entries > UINT32_MAX)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: too many constraints to colour", b->name);
    uint32_t count = b->dist_count + b->bend_count;
    uint32_t *offsets = malloc(sizeof(uint32_t) * ((size_t)count + 1));
    uint32_t *indices = malloc(sizeof(uint32_t) * (entries + 1));
    if (!offsets || !indices) {
        free(offsets);
        free(indices);
        return out_of_memory(b);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < b->dist_count; i++) {
        offsets[i] = k;
        indices[k++] = b->dist[i].a;
        indices[k++] = b->dist[i].b;
    }
    for (uint32_t i = 0; i < b->bend_count; i++) {
        offsets[b->dist_count + i] = k;
        for (int j = 0; j < 4; j++)
            indices[k++] = b->bends[i].v[j];
    }
    offsets[count] = k;
    sinew_result r = colour_csr(b, count, offsets, indices, "constraints", &b->colouring);
    free(offsets);
    free(indices);
    return r;
}

/* ------------------------------------------------------------ elements */

double sinew_cloth_triangle_frame(const double p0[3], const double p1[3], const double p2[3], const double warp[3],
                                  double u[3], double v[3], double dm_inv[4], int *fell_back)
{
    double e1[3], e2[3], n[3];
    sinew_v3_sub(p1, p0, e1);
    sinew_v3_sub(p2, p0, e2);
    sinew_v3_cross(e1, e2, n);
    double twice_area = sqrt(sinew_v3_dot(n, n)), warp_length = sqrt(sinew_v3_dot(warp, warp));
    *fell_back = 0;
    if (!(twice_area > 0.0) || !isfinite(twice_area) || !(warp_length > 0.0) || !isfinite(warp_length))
        return 0.0;
    for (int k = 0; k < 3; k++)
        n[k] /= twice_area;
    /* Projected twice: the second pass removes what cancellation left of the
     * normal component when the warp is nearly normal. */
    double along = sinew_v3_dot(warp, n);
    for (int k = 0; k < 3; k++)
        u[k] = warp[k] - along * n[k];
    along = sinew_v3_dot(u, n);
    for (int k = 0; k < 3; k++)
        u[k] -= along * n[k];
    double length = sqrt(sinew_v3_dot(u, u));
    if (!(length >= 0.01 * warp_length)) {
        memcpy(u, e1, sizeof e1);
        length = sqrt(sinew_v3_dot(u, u));
        *fell_back = 1;
    }
    if (!(length > 0.0))
        return 0.0;
    for (int k = 0; k < 3; k++)
        u[k] /= length;
    sinew_v3_cross(n, u, v);
    /* Dm = [a b; c d]: the edges' coordinates along u (first row) and v. */
    double a = sinew_v3_dot(e1, u), b = sinew_v3_dot(e2, u), c = sinew_v3_dot(e1, v), d = sinew_v3_dot(e2, v);
    double det = a * d - b * c;
    if (!(det > 0.0) || !isfinite(det))
        return 0.0;
    dm_inv[0] = d / det;
    dm_inv[1] = -c / det;
    dm_inv[2] = -b / det;
    dm_inv[3] = a / det;
    return 0.5 * twice_area;
}

static sinew_result add_membrane(cloth_builder *b, uint32_t material)
{
    uint32_t first_fallback = NONE;
    for (uint32_t t = 0; t < b->tri_count; t++) {
        const uint32_t *v = b->tris[t].v;
        double u[3], w[3], dm_inv[4];
        int fell_back = 0;
        double area = sinew_cloth_triangle_frame(position(b, v[0]), position(b, v[1]), position(b, v[2]),
                                                 b->opt->warp, u, w, dm_inv, &fell_back);
        sinew_element_rec *e = &b->elems[b->elem_count++];
        *e = (sinew_element_rec){{v[0], v[1], v[2], SINEW_NO_VERTEX}, SINEW_ELEMENT_TRIANGLE, material, (float)area,
                                 {0}};
        e->inv_rest[0] = (float)dm_inv[0];
        e->inv_rest[1] = (float)dm_inv[1];
        e->inv_rest[3] = (float)dm_inv[2];
        e->inv_rest[4] = (float)dm_inv[3];
        /* The builder dropped faces of (near) zero area; this refuses what
         * single precision cannot hold (a tiny mesh, a needle). */
        int ok = area > 0.0 && e->rest_measure > 0.0f && e->rest_measure <= FLT_MAX;
        for (int k = 0; k < 9; k++)
            ok = ok && fabsf(e->inv_rest[k]) <= FLT_MAX;
        if (!ok)
            return sinew_fail(b->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                              "%s: triangle %u-%u-%u: area %g m^2 and inverse rest shape not representable in "
                              "single precision",
                              b->name, b->original[v[0]], b->original[v[1]], b->original[v[2]], area);
        if (fell_back && b->rep.warp_fallbacks++ == 0)
            first_fallback = t;
    }
    if (b->rep.warp_fallbacks) {
        const uint32_t *v = b->tris[first_fallback].v;
        sinew_logf(b->lg, SINEW_LOG_WARNING, "prep",
                   "%s: the warp direction is within 0.6 degrees of the normal of %u triangles, whose u axis is "
                   "their first edge instead, first: %u-%u-%u",
                   b->name, b->rep.warp_fallbacks, b->original[v[0]], b->original[v[1]], b->original[v[2]]);
    }
    return SINEW_RESULT_OK;
}

/* Springs first, in the order of the distances, so that their colouring is
 * the distances' own when nothing else is coloured with either. */
static sinew_result make_elements(cloth_builder *b)
{
    const sinew_cloth_options *o = b->opt;
    uint64_t count = (o->springs ? (uint64_t)b->dist_count : 0) + (o->membrane ? (uint64_t)b->tri_count : 0);
    if (count == 0)
        return SINEW_RESULT_OK;
    if (count > SINEW_ASSET_MAX_RECORDS)
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %llu elements exceed the limit of %u",
                          b->name, (unsigned long long)count, SINEW_ASSET_MAX_RECORDS);
    b->elems = malloc(sizeof(sinew_element_rec) * count);
    if (!b->elems)
        return out_of_memory(b);
    uint32_t spring_material = NONE;
    if (o->membrane) {
        b->materials[b->material_count] = o->membrane_material;
        b->materials[b->material_count++].density = (float)o->density;
    }
    if (o->springs) {
        sinew_material m;
        memset(&m, 0, sizeof m);
        m.model = SINEW_MATERIAL_SPRING;
        m.compliance = (float)o->spring_compliance;
        m.density = (float)o->density;
        spring_material = b->material_count;
        b->materials[b->material_count++] = m;
        for (uint32_t i = 0; i < b->dist_count; i++)
            b->elems[b->elem_count++] = (sinew_element_rec){
                {b->dist[i].a, b->dist[i].b, SINEW_NO_VERTEX, SINEW_NO_VERTEX},
                SINEW_ELEMENT_SPRING, spring_material, b->dist[i].rest, {0}};
        b->rep.spring_count = b->dist_count;
    }
    if (o->membrane) {
        sinew_result r = add_membrane(b, 0);
        if (r != SINEW_RESULT_OK)
            return r;
        b->rep.membrane_count = b->tri_count;
    }
    if (!o->keep_distances) {
        b->dist_count = 0;
        b->rep.stretch_count = b->rep.shear_count = 0;
    }
    return SINEW_RESULT_OK;
}

static sinew_result colour_elements(cloth_builder *b)
{
    if (b->elem_count == 0)
        return SINEW_RESULT_OK;
    /* At most 3 particles per element and SINEW_ASSET_MAX_RECORDS elements. */
    uint32_t *offsets = malloc(sizeof(uint32_t) * ((size_t)b->elem_count + 1));
    uint32_t *indices = malloc(sizeof(uint32_t) * 3 * (size_t)b->elem_count);
    if (!offsets || !indices) {
        free(offsets);
        free(indices);
        return out_of_memory(b);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < b->elem_count; i++) {
        offsets[i] = k;
        int arity = b->elems[i].kind == SINEW_ELEMENT_SPRING ? 2 : 3;
        for (int j = 0; j < arity; j++)
            indices[k++] = b->elems[i].v[j];
    }
    offsets[b->elem_count] = k;
    sinew_result r = colour_csr(b, b->elem_count, offsets, indices, "elements", &b->elem_colouring);
    free(offsets);
    free(indices);
    b->rep.element_colour_count = b->elem_colouring.colour_count;
    return r;
}

/* "key=value\n" lines; the source name is reduced to printable ASCII so the
 * text stays one line per key and valid UTF-8. */
static char *make_meta(const cloth_builder *b)
{
    const sinew_cloth_options *o = b->opt;
    const char *source = o->source_name ? o->source_name : "";
    size_t cap = strlen(source) + 512;
    char *meta = malloc(cap);
    if (!meta)
        return NULL;
    int n = snprintf(meta, cap, "generator=sinew-prep\nsource=%s\n", source);
    for (int i = (int)strlen("generator=sinew-prep\nsource="); i < n - 1; i++)
        if ((unsigned char)meta[i] < 0x20 || (unsigned char)meta[i] >= 0x7f)
            meta[i] = '?';
    n += snprintf(meta + n, cap - (size_t)n, "density=%.17g\nshear=%d\nbending=%d\ncolouring=%s\n", o->density,
                  o->shear != 0, o->bending != 0, o->colouring == SINEW_COLOURING_GREEDY ? "greedy" : "balanced");
    if (o->membrane)
        n += snprintf(meta + n, cap - (size_t)n, "membrane=%s\nwarp=%.17g,%.17g,%.17g\n",
                      o->membrane == SINEW_MATERIAL_STVK ? "stvk" : "tabulated", o->warp[0], o->warp[1], o->warp[2]);
    if (o->springs)
        n += snprintf(meta + n, cap - (size_t)n, "spring_compliance=%.17g\n", o->spring_compliance);
    if (b->elem_count)
        snprintf(meta + n, cap - (size_t)n, "keep_distances=%d\n", o->keep_distances != 0);
    return meta;
}

/* Colours in index order; within one, distances then bends, each in build order. */
static sinew_result lay_out(cloth_builder *b, sinew_asset **out)
{
    const sinew_colouring *c = &b->colouring;
    sinew_asset *a = sinew_asset_alloc(b->n, b->tri_count, b->dist_count, b->bend_count, c->colour_count);
    if (!a)
        return out_of_memory(b);
    a->meta = make_meta(b);
    if (!a->meta) {
        sinew_asset_destroy(a);
        return out_of_memory(b);
    }
    for (uint32_t i = 0; i < b->n; i++) {
        const double *p = position(b, i);
        a->particles[i] = (sinew_particle_rec){(float)p[0], (float)p[1], (float)p[2], b->inv_mass[i]};
    }
    if (b->tri_count)
        memcpy(a->triangles, b->tris, sizeof(sinew_triangle_rec) * b->tri_count);
    for (uint32_t i = 0; i < b->dist_count; i++)
        a->colours[c->colour_of[i]].distance_count++;
    for (uint32_t i = 0; i < b->bend_count; i++)
        a->colours[c->colour_of[b->dist_count + i]].bend_count++;
    uint32_t d = 0, e = 0;
    for (uint32_t k = 0; k < c->colour_count; k++) {
        a->colours[k].distance_begin = d;
        a->colours[k].bend_begin = e;
        d += a->colours[k].distance_count;
        e += a->colours[k].bend_count;
    }
    /* Counting sort, stable; the begins advance and are restored afterwards. */
    for (uint32_t i = 0; i < b->dist_count; i++)
        a->distances[a->colours[c->colour_of[i]].distance_begin++] = b->dist[i];
    for (uint32_t i = 0; i < b->bend_count; i++)
        a->bends[a->colours[c->colour_of[b->dist_count + i]].bend_begin++] = b->bends[i];
    for (uint32_t k = 0; k < c->colour_count; k++) {
        a->colours[k].distance_begin -= a->colours[k].distance_count;
        a->colours[k].bend_begin -= a->colours[k].bend_count;
    }
    if (b->elem_count) {
        const sinew_colouring *ec = &b->elem_colouring;
        if (!sinew_asset_alloc_elements(a, b->elem_count, ec->colour_count, b->material_count)) {
            sinew_asset_destroy(a);
            return out_of_memory(b);
        }
        memcpy(a->materials, b->materials, sizeof(sinew_material) * b->material_count);
        uint32_t begin = 0;
        for (uint32_t k = 0; k < ec->colour_count; k++) {
            a->element_colours[k] = (sinew_element_colour_rec){begin, ec->sizes[k]};
            begin += ec->sizes[k];
        }
        for (uint32_t i = 0; i < b->elem_count; i++)
            a->elements[a->element_colours[ec->colour_of[i]].begin++] = b->elems[i];
        for (uint32_t k = 0; k < ec->colour_count; k++)
            a->element_colours[k].begin -= a->element_colours[k].count;
    }
    *out = a;
    return SINEW_RESULT_OK;
}

/* Render vertex -> the particle of its mesh vertex, weight 1; a vertex only
 * dropped faces used has no particle, and takes the nearest one. Normals:
 * the source's, or the render triangles' at rest where it gave none. */
static sinew_result add_render_mesh(cloth_builder *b, sinew_asset *a)
{
    const sinew_mesh *m = b->mesh;
    if (m->render_vertex_count == 0)
        return SINEW_RESULT_OK;
    float *face_normals = sinew_mesh_render_face_normals(m);
    if (!face_normals || !sinew_asset_alloc_render(a, m->render_vertex_count, m->render_triangle_count)) {
        free(face_normals);
        return out_of_memory(b);
    }
    uint32_t orphans = 0;
    for (uint32_t i = 0; i < m->render_vertex_count; i++) {
        uint32_t v = m->render_vertex[i], p = v < m->vertex_count ? b->remap[v] : NONE;
        if (p == NONE) {
            const double *x = m->positions + 3 * (size_t)(v < m->vertex_count ? v : 0);
            double best = INFINITY;
            for (uint32_t q = 0; q < b->n; q++) {
                double d[3];
                sinew_v3_sub(position(b, q), x, d);
                if (sinew_v3_dot(d, d) < best) {
                    best = sinew_v3_dot(d, d);
                    p = q;
                }
            }
            orphans++;
        }
        sinew_render_vertex_rec *r = &a->rvertices[i];
        *r = (sinew_render_vertex_rec){{p, p, p, p}, {1.0f, 0.0f, 0.0f, 0.0f}, {0, 0, 0},
                                       SINEW_RENDER_NORMAL_PARTICLES, {0, 0}, {0, 0}};
        sinew_render_vertex_surface(r, m, face_normals, i);
    }
    memcpy(a->rtriangles, m->render_triangles, sizeof(uint32_t) * 3 * (size_t)m->render_triangle_count);
    free(face_normals);
    if (!sinew_render_copy_materials(a, m))
        return sinew_fail(b->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", b->name);
    if (orphans)
        sinew_logf(b->lg, SINEW_LOG_WARNING, "prep",
                   "%s: %u render vertices lie only on dropped faces: each follows its nearest particle", b->name,
                   orphans);
    sinew_logf(b->lg, SINEW_LOG_INFO, "prep", "%s: render mesh of %u vertices, %u triangles%s, %u material group%s", b->name,
               m->render_vertex_count, m->render_triangle_count, m->render_uv ? ", with UVs" : "",
               m->materials.count, m->materials.count == 1 ? "" : "s");
    return SINEW_RESULT_OK;
}

static void summarise(cloth_builder *b)
{
    sinew_cloth_report *rep = &b->rep;
    rep->colour_count = b->colouring.colour_count;
    for (uint32_t k = 0; k < rep->colour_count; k++) {
        uint32_t size = b->colouring.sizes[k];
        rep->largest_colour = k == 0 || size > rep->largest_colour ? size : rep->largest_colour;
        rep->smallest_colour = k == 0 || size < rep->smallest_colour ? size : rep->smallest_colour;
    }
    sinew_logf(b->lg, SINEW_LOG_INFO, "prep",
               "%s: %u particles (%u pinned), %u triangles, %u stretch, %u shear, %u bend constraints, "
               "%u colours of %u to %u constraints",
               b->name, b->n, b->pinned_count, b->tri_count, rep->stretch_count, rep->shear_count, rep->bend_count,
               rep->colour_count, rep->smallest_colour, rep->largest_colour);
    if (b->elem_count) {
        uint32_t lo = 0, hi = 0;
        for (uint32_t k = 0; k < b->elem_colouring.colour_count; k++) {
            uint32_t size = b->elem_colouring.sizes[k];
            lo = k == 0 || size < lo ? size : lo;
            hi = size > hi ? size : hi;
        }
        sinew_logf(b->lg, SINEW_LOG_INFO, "prep",
                   "%s: %u membrane and %u spring elements, %u materials, %u element colours of %u to %u elements; "
                   "stretch and shear distances %s",
                   b->name, rep->membrane_count, rep->spring_count, b->material_count, rep->element_colour_count, lo,
                   hi, b->opt->keep_distances ? "kept" : "replaced by the elements");
    }
}

static sinew_result build(cloth_builder *b, sinew_asset **out)
{
    sinew_result r;
    if ((r = check_options(b)) || (r = check_mesh(b)) || (r = drop_degenerate_faces(b)) ||
        (r = compact_vertices(b)) || (r = triangulate(b)) || (r = compute_masses(b)))
        return r;
    if ((r = apply_pins(b)) || (r = count_parts(b)))
        return r;
    if ((b->opt->bending && (r = add_bending(b))) || (r = make_elements(b)) || (r = colour(b)) ||
        (r = colour_elements(b)) || (r = lay_out(b, out)))
        return r;
    if ((r = add_render_mesh(b, *out)) != SINEW_RESULT_OK) {
        sinew_asset_destroy(*out);
        *out = NULL;
        return r;
    }
    if (b->opt->cluster_particles &&
        (r = sinew_cluster_asset(*out, b->opt->cluster_particles, b->name, b->lg, &b->rep.clusters)) != SINEW_RESULT_OK) {
        sinew_asset_destroy(*out);
        *out = NULL;
        return r;
    }
    summarise(b);
    return SINEW_RESULT_OK;
}

sinew_result sinew_cloth_build(const sinew_mesh *mesh, const sinew_cloth_options *opt, const sinew_logger *lg,
                               sinew_asset **out, sinew_cloth_report *report)
{
    SINEW_ASSERT(mesh && out && (mesh->positions || mesh->vertex_count == 0));
    SINEW_ASSERT(mesh->face_offsets || mesh->face_count == 0);
    SINEW_ASSERT(!opt || opt->pin_indices || opt->pin_count == 0);
    *out = NULL;
    sinew_cloth_options defaults = sinew_cloth_options_default();
    cloth_builder b = {.mesh = mesh, .opt = opt ? opt : &defaults, .lg = lg};
    b.name = b.opt->source_name ? b.opt->source_name : "cloth";
    sinew_result r = build(&b, out);
    if (report)
        *report = b.rep;
    free(b.face_kept);
    free(b.remap);
    free(b.original);
    free(b.tris);
    free(b.dist);
    free(b.bends);
    free(b.inv_mass);
    free(b.elems);
    sinew_colouring_free(&b.colouring);
    sinew_colouring_free(&b.elem_colouring);
    return r;
}
