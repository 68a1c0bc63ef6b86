/* Merging assets for a world (src/asset/merge.h): real assets from the
 * project's builders (cloth grids with and without clusters, with a
 * hierarchy, red-black, a render mesh; soft boxes of tetrahedra; the asset
 * fixture's hand-made solid and hierarchy) merged, then every record found at
 * its mapped place, rebased, and every colour, element colour, cluster pass
 * and hierarchy level holding each source's records in the source's order,
 * source 0's first. Misuse (count 0, a NULL asset) is a programmer error: the
 * assert. */
#include <criterion/criterion.h>

#include "asset/merge.h"
#include "asset_fixture.h"

#include <sinew/prep.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- building */

/* nx x ny vertices of quads in the xz plane, h apart, offset by x0; UVs (a
 * render mesh) on request. */
static sinew_asset *cloth(uint32_t nx, uint32_t ny, float x0, sinew_prep_cloth_options o, int uvs)
{
    const uint32_t n = nx * ny, q = (nx - 1) * (ny - 1);
    float *xyz = malloc(sizeof *xyz * 3 * n), *uv = malloc(sizeof *uv * 2 * n);
    uint32_t *quads = malloc(sizeof *quads * 4 * q);
    cr_assert(xyz && uv && quads);
    for (uint32_t j = 0; j < ny; j++)
        for (uint32_t i = 0; i < nx; i++) {
            const uint32_t v = j * nx + i;
            xyz[3 * v] = x0 + 0.1f * (float)i;
            xyz[3 * v + 1] = 1.0f;
            xyz[3 * v + 2] = 0.1f * (float)j;
            uv[2 * v] = (float)i / (float)(nx - 1);
            uv[2 * v + 1] = (float)j / (float)(ny - 1);
        }
    uint32_t *f = quads;
    for (uint32_t j = 0; j + 1 < ny; j++)
        for (uint32_t i = 0; i + 1 < nx; i++, f += 4) {
            const uint32_t a = j * nx + i;
            f[0] = a;
            f[1] = a + 1;
            f[2] = a + nx + 1;
            f[3] = a + nx;
        }
    sinew_prep_mesh m = sinew_prep_mesh_default();
    m.vertex_count = n;
    m.positions = xyz;
    m.quad_count = q;
    m.quads = quads;
    m.uvs = uvs ? uv : NULL;
    o.free_parts = 1;
    sinew_asset *a = NULL;
    const sinew_logger *lg = capture_logger(SINEW_LOG_ERROR);
    cr_assert_eq(sinew_prep_cloth_asset(&m, &o, lg, &a, NULL), SINEW_RESULT_OK, "%s", cap.text);
    free(xyz);
    free(uv);
    free(quads);
    return a;
}

static sinew_prep_cloth_options plain(void)
{
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    o.cluster_particles = 0;
    return o;
}

static sinew_prep_cloth_options clustered(uint32_t particles)
{
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    o.cluster_particles = particles;
    return o;
}

static sinew_prep_cloth_options hierarchical(uint32_t levels, sinew_prep_hierarchy_rest rest)
{
    sinew_prep_cloth_options o = plain();
    o.hierarchy_levels = levels;
    o.hierarchy_min_particles = 4;
    o.hierarchy_rest = rest;
    return o;
}

static sinew_prep_cloth_options red_black(void)
{
    sinew_prep_cloth_options o = plain();
    o.shear = 0;
    o.red_black = 1;
    return o;
}

/* A box of lattice cubes (cells along its longest side) of tetrahedra from a
 * cube's surface, side m long; UVs (an embedded render mesh) on request. */
static sinew_asset *soft_box(double side, uint32_t cells, int uvs)
{
    double xyz[8 * 3];
    float uv[8 * 2];
    for (int v = 0; v < 8; v++) {
        xyz[3 * v] = side * (v & 1);
        xyz[3 * v + 1] = side * (v >> 1 & 1);
        xyz[3 * v + 2] = side * (v >> 2 & 1);
        uv[2 * v] = (float)(v & 1);
        uv[2 * v + 1] = (float)(v >> 1 & 1);
    }
    /* Outward-facing triangles of the cube (vertex v = x | y << 1 | z << 2). */
    static const uint32_t faces[12 * 3] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                           2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    sinew_prep_mesh s = sinew_prep_mesh_default();
    s.vertex_count = 8;
    s.positions_f64 = xyz;
    s.triangle_count = 12;
    s.triangles = faces;
    s.uvs = uvs ? uv : NULL;
    sinew_prep_soft_options so = sinew_prep_soft_options_default();
    so.mesher = SINEW_PREP_MESHER_LATTICE;
    so.lattice_cells = cells;
    sinew_asset *a = NULL;
    const sinew_logger *lg = capture_logger(SINEW_LOG_ERROR);
    cr_assert_eq(sinew_prep_soft_asset(NULL, &s, &so, lg, &a, NULL), SINEW_RESULT_OK, "%s", cap.text);
    return a;
}

static void destroy_all(sinew_asset **a, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++)
        sinew_asset_destroy(a[k]);
}

/* ---------------------------------------------------------------- checking */

static uint64_t sum(const sinew_asset *const *src, uint32_t count, size_t offset)
{
    uint64_t s = 0;
    for (uint32_t k = 0; k < count; k++)
        s += *(const uint32_t *)((const char *)src[k] + offset);
    return s;
}
#define SUM(field) sum(src, count, offsetof(sinew_asset, field))

static uint32_t most(const sinew_asset *const *src, uint32_t count, size_t offset)
{
    uint32_t s = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t v = *(const uint32_t *)((const char *)src[k] + offset);
        s = v > s ? v : s;
    }
    return s;
}
#define MOST(field) most(src, count, offsetof(sinew_asset, field))

static void check_counts(const sinew_asset *m, const sinew_asset *const *src, uint32_t count)
{
    cr_assert_eq(m->particle_count, SUM(particle_count));
    cr_assert_eq(m->triangle_count, SUM(triangle_count));
    cr_assert_eq(m->distance_count, SUM(distance_count));
    cr_assert_eq(m->bend_count, SUM(bend_count));
    cr_assert_eq(m->colour_count, MOST(colour_count));
    cr_assert_eq(m->element_count, SUM(element_count));
    cr_assert_eq(m->element_colour_count, MOST(element_colour_count));
    cr_assert_eq(m->material_count, SUM(material_count));
    cr_assert_eq(m->level_count, src[0]->level_count);
    cr_assert_eq(m->link_count, SUM(link_count));
    cr_assert_eq(m->hdistance_count, SUM(hdistance_count));
    cr_assert_eq(m->red_count, SUM(red_count));
    cr_assert_eq(m->black_count, SUM(black_count));
    cr_assert_eq(m->cpass_count, MOST(cpass_count));
    cr_assert_eq(m->cluster_count, SUM(cluster_count));
    cr_assert_eq(m->cparticle_count, SUM(cparticle_count));
    cr_assert_eq(m->ccolour_count, SUM(ccolour_count));
    cr_assert_eq(m->citem_count, SUM(citem_count));
    cr_assert_eq(m->rvertex_count, SUM(rvertex_count));
    cr_assert_eq(m->rtriangle_count, SUM(rtriangle_count));
    cr_assert_eq(m->mlevel_count, 0);
    cr_assert_null(m->meta);
}

/* Particles, triangles, materials, red-black lists, render mesh: concatenated. */
static void check_concatenated(const sinew_asset *m, const sinew_asset *const *src, uint32_t count,
                               const sinew_merge_map *maps)
{
    uint32_t p = 0, t = 0, mat = 0, rv = 0, rt = 0, red = 0, black = 0;
    for (uint32_t k = 0; k < count; k++) {
        const sinew_asset *s = src[k];
        const sinew_merge_map *map = &maps[k];
        cr_assert_eq(map->particle_first, p);
        cr_assert_eq(map->triangle_first, t);
        cr_assert_eq(map->material_first, mat);
        cr_assert_eq(map->rvertex_first, rv);
        cr_assert_eq(map->rtriangle_first, rt);
        const uint32_t p0 = map->particle_first;
        if (s->particle_count)
            cr_assert_arr_eq(&m->particles[p0], s->particles, sizeof *s->particles * s->particle_count);
        for (uint32_t i = 0; i < s->triangle_count; i++)
            for (int j = 0; j < 3; j++)
                cr_assert_eq(m->triangles[t + i].v[j], s->triangles[i].v[j] + p0);
        if (s->material_count)
            cr_assert_arr_eq(&m->materials[mat], s->materials, sizeof *s->materials * s->material_count);
        for (uint32_t i = 0; i < s->red_count; i++)
            cr_assert_eq(m->reds[red + i], s->reds[i] + p0);
        for (uint32_t i = 0; i < s->black_count; i++)
            cr_assert_eq(m->blacks[black + i], s->blacks[i] + p0);
        for (uint32_t i = 0; i < s->rvertex_count; i++) {
            sinew_render_vertex_rec v = s->rvertices[i];
            for (int j = 0; j < 4; j++)
                v.particle[j] += p0;
            cr_assert_arr_eq(&m->rvertices[rv + i], &v, sizeof v);
        }
        for (uint32_t i = 0; i < s->rtriangle_count; i++)
            for (int j = 0; j < 3; j++)
                cr_assert_eq(m->rtriangles[rt + i].v[j], s->rtriangles[i].v[j]); /* its own numbering */
        p += s->particle_count;
        t += s->triangle_count;
        mat += s->material_count;
        rv += s->rvertex_count;
        rt += s->rtriangle_count;
        red += s->red_count;
        black += s->black_count;
    }
}

/* Every record at its mapped index, rebased, and each merged colour (element
 * colour) exactly source 0's records of it in order, then source 1's, ... */
static void check_constraints(const sinew_asset *m, const sinew_asset *const *src, uint32_t count,
                              const sinew_merge_map *maps)
{
    for (uint32_t k = 0; k < count; k++) {
        const sinew_asset *s = src[k];
        const uint32_t p0 = maps[k].particle_first;
        for (uint32_t d = 0; d < s->distance_count; d++) {
            const sinew_distance_rec *x = &m->distances[maps[k].distance_of[d]], *y = &s->distances[d];
            cr_assert(x->a == y->a + p0 && x->b == y->b + p0 && x->rest == y->rest && x->kind == y->kind,
                      "source %u distance %u", k, d);
        }
        for (uint32_t b = 0; b < s->bend_count; b++) {
            const sinew_bend_rec *x = &m->bends[maps[k].bend_of[b]], *y = &s->bends[b];
            for (int j = 0; j < 4; j++)
                cr_assert_eq(x->v[j], y->v[j] + p0);
            cr_assert(x->rest_angle == y->rest_angle && x->kind == y->kind);
        }
        for (uint32_t e = 0; e < s->element_count; e++) {
            const sinew_element_rec *x = &m->elements[maps[k].element_of[e]], *y = &s->elements[e];
            for (int j = 0; j < 4; j++)
                cr_assert_eq(x->v[j], y->v[j] == SINEW_NO_VERTEX ? SINEW_NO_VERTEX : y->v[j] + p0);
            cr_assert_eq(x->material, y->material + maps[k].material_first);
            cr_assert(x->kind == y->kind && x->rest_measure == y->rest_measure);
            cr_assert_arr_eq(x->inv_rest, y->inv_rest, sizeof x->inv_rest);
        }
    }
    for (uint32_t c = 0; c < m->colour_count; c++) {
        uint32_t d = m->colours[c].distance_begin, b = m->colours[c].bend_begin;
        for (uint32_t k = 0; k < count; k++) {
            const sinew_asset *s = src[k];
            if (c >= s->colour_count)
                continue;
            const sinew_colour_rec *r = &s->colours[c];
            for (uint32_t i = r->distance_begin; i < r->distance_begin + r->distance_count; i++)
                cr_assert_eq(maps[k].distance_of[i], d++, "colour %u: source %u's distance %u out of place", c, k, i);
            for (uint32_t i = r->bend_begin; i < r->bend_begin + r->bend_count; i++)
                cr_assert_eq(maps[k].bend_of[i], b++, "colour %u: source %u's bend %u out of place", c, k, i);
        }
        cr_assert_eq(d, m->colours[c].distance_begin + m->colours[c].distance_count);
        cr_assert_eq(b, m->colours[c].bend_begin + m->colours[c].bend_count);
    }
    for (uint32_t c = 0; c < m->element_colour_count; c++) {
        uint32_t e = m->element_colours[c].begin;
        for (uint32_t k = 0; k < count; k++)
            if (c < src[k]->element_colour_count)
                for (uint32_t i = src[k]->element_colours[c].begin;
                     i < src[k]->element_colours[c].begin + src[k]->element_colours[c].count; i++)
                    cr_assert_eq(maps[k].element_of[i], e++, "element colour %u: source %u's element %u", c, k, i);
        cr_assert_eq(e, m->element_colours[c].begin + m->element_colours[c].count);
    }
}

/* Each merged pass: every source's clusters of it in order, the same
 * particles (rebased), colours and items, each item naming the merged index
 * of its source constraint. */
static void check_clusters(const sinew_asset *m, const sinew_asset *const *src, uint32_t count,
                           const sinew_merge_map *maps)
{
    for (uint32_t p = 0; p < m->cpass_count; p++) {
        uint32_t q = m->cpasses[p].begin;
        for (uint32_t k = 0; k < count; k++) {
            const sinew_asset *s = src[k];
            if (p >= s->cpass_count)
                continue;
            for (uint32_t sq = s->cpasses[p].begin; sq < s->cpasses[p].begin + s->cpasses[p].count; sq++, q++) {
                const sinew_cluster_rec *x = &m->clusters[q], *y = &s->clusters[sq];
                cr_assert(q < m->cpasses[p].begin + m->cpasses[p].count, "pass %u ends early", p);
                cr_assert_eq(x->particle_count, y->particle_count);
                cr_assert_eq(x->colour_count, y->colour_count);
                for (uint32_t j = 0; j < y->particle_count; j++)
                    cr_assert_eq(m->cparticles[x->particle_begin + j],
                                 s->cparticles[y->particle_begin + j] + maps[k].particle_first);
                for (uint32_t j = 0; j < y->colour_count; j++) {
                    const sinew_range_rec *cx = &m->ccolours[x->colour_begin + j];
                    const sinew_range_rec *cy = &s->ccolours[y->colour_begin + j];
                    cr_assert_eq(cx->count, cy->count);
                    for (uint32_t i = 0; i < cy->count; i++) {
                        const sinew_citem_rec *ix = &m->citems[cx->begin + i], *iy = &s->citems[cy->begin + i];
                        uint32_t want = iy->constraint < s->distance_count
                                            ? maps[k].distance_of[iy->constraint]
                                            : m->distance_count + maps[k].bend_of[iy->constraint - s->distance_count];
                        cr_assert_eq(ix->constraint, want, "source %u's item %u", k, cy->begin + i);
                        cr_assert_eq(ix->local01, iy->local01);
                        cr_assert_eq(ix->local23, iy->local23);
                    }
                }
            }
        }
        cr_assert_eq(q, m->cpasses[p].begin + m->cpasses[p].count, "pass %u holds other clusters", p);
    }
}

/* Nodes level by level from the coarsest, each source's of exactly that level
 * in order; links in node order; coarse colours per level and colour. */
static void check_hierarchy(const sinew_asset *m, const sinew_asset *const *src, uint32_t count,
                            const sinew_merge_map *maps)
{
    const uint32_t levels = m->level_count;
    uint32_t node = 0, link = 0;
    for (uint32_t l = levels; l-- > 0;) {
        uint32_t particles = 0;
        for (uint32_t k = 0; k < count; k++) {
            const sinew_asset *s = src[k];
            const uint32_t p0 = maps[k].particle_first;
            particles += s->levels[l].particle_count;
            cr_assert_eq(m->levels[l].rest, s->levels[l].rest);
            for (uint32_t i = l + 1 < levels ? s->levels[l + 1].particle_count : 0; i < s->levels[l].particle_count;
                 i++, node++) {
                const sinew_node_rec *x = &m->nodes[node], *y = &s->nodes[i];
                cr_assert(x->particle == y->particle + p0 && x->level == y->level && x->level == l &&
                          x->link_count == y->link_count && x->link_begin == link, "source %u node %u", k, i);
                for (uint32_t j = 0; j < y->link_count; j++, link++) {
                    cr_assert_eq(m->links[link].parent, s->links[y->link_begin + j].parent + p0);
                    cr_assert_eq(m->links[link].weight, s->links[y->link_begin + j].weight);
                }
            }
        }
        cr_assert_eq(m->levels[l].particle_count, particles);
        cr_assert_eq(node, particles, "level %u's particles are the first nodes", l);
    }
    for (uint32_t l = 1; l < levels; l++) {
        const sinew_level_rec *v = &m->levels[l];
        for (uint32_t c = 0; c < v->colour_count; c++) {
            const sinew_range_rec *r = &m->hcolours[v->colour_begin + c];
            uint32_t h = r->begin;
            for (uint32_t k = 0; k < count; k++) {
                const sinew_asset *s = src[k];
                if (c >= s->levels[l].colour_count)
                    continue;
                const sinew_range_rec *sr = &s->hcolours[s->levels[l].colour_begin + c];
                for (uint32_t i = sr->begin; i < sr->begin + sr->count; i++, h++) {
                    const sinew_distance_rec *x = &m->hdistances[h], *y = &s->hdistances[i];
                    cr_assert(x->a == y->a + maps[k].particle_first && x->b == y->b + maps[k].particle_first &&
                              x->rest == y->rest && x->kind == y->kind, "level %u colour %u, source %u", l, c, k);
                }
            }
            cr_assert_eq(h, r->begin + r->count);
        }
    }
}

/* Merges, checks everything, frees. Returns nothing: the sources stay the caller's. */
static void merge_and_check(const sinew_asset *const *src, uint32_t count)
{
    sinew_asset *m = NULL;
    sinew_merge_map maps[8];
    cr_assert(count <= 8);
    const sinew_logger *lg = capture_logger(SINEW_LOG_WARNING);
    cr_assert_eq(sinew_asset_merge(src, count, lg, &m, maps), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert_not_null(m);
    cr_assert_eq(sinew_asset_validate(m, "merged", lg), SINEW_RESULT_OK, "%s", cap.text);
    check_counts(m, src, count);
    check_concatenated(m, src, count, maps);
    check_constraints(m, src, count, maps);
    check_clusters(m, src, count, maps);
    check_hierarchy(m, src, count, maps);
    cr_assert_eq(cap.errors, 0, "%s", cap.text);
    for (uint32_t k = 0; k < count; k++)
        sinew_merge_map_free(&maps[k]);
    sinew_asset_destroy(m);
}

/* Record by record, every section but multigrid levels and meta. */
#define SAME(count, array)                                                                                           \
    do {                                                                                                             \
        cr_assert_eq(x->count, y->count, #count);                                                                    \
        if (x->count)                                                                                                \
            cr_assert_arr_eq(x->array, y->array, sizeof *x->array * x->count, #array);                                \
    } while (0)

static void assert_same_records(const sinew_asset *x, const sinew_asset *y)
{
    SAME(particle_count, particles);
    SAME(triangle_count, triangles);
    SAME(distance_count, distances);
    SAME(bend_count, bends);
    SAME(colour_count, colours);
    SAME(element_count, elements);
    SAME(element_colour_count, element_colours);
    SAME(material_count, materials);
    SAME(level_count, levels);
    if (x->level_count)
        cr_assert_arr_eq(x->nodes, y->nodes, sizeof *x->nodes * x->particle_count);
    SAME(link_count, links);
    SAME(hdistance_count, hdistances);
    SAME(hcolour_count, hcolours);
    SAME(red_count, reds);
    SAME(black_count, blacks);
    SAME(cpass_count, cpasses);
    SAME(cluster_count, clusters);
    SAME(cparticle_count, cparticles);
    SAME(ccolour_count, ccolours);
    SAME(citem_count, citems);
    SAME(rvertex_count, rvertices);
    SAME(rtriangle_count, rtriangles);
}

/* ---------------------------------------------------------------- merging */

Test(merge, cloth_grids_of_several_sizes_and_colour_counts)
{
    sinew_prep_cloth_options bare = plain();
    bare.shear = 0;
    bare.bending = 0; /* fewer colours: it contributes nothing to the later ones */
    sinew_asset *a[3] = {cloth(5, 4, 0, plain(), 0), cloth(9, 7, 2, plain(), 0), cloth(6, 6, 4, bare, 0)};
    cr_assert(a[2]->colour_count < a[1]->colour_count, "%u, %u colours", a[2]->colour_count, a[1]->colour_count);
    merge_and_check((const sinew_asset *const *)a, 3);
    /* the other order too: the biggest last */
    sinew_asset *b[3] = {a[2], a[0], a[1]};
    merge_and_check((const sinew_asset *const *)b, 3);
    destroy_all(a, 3);
}

Test(merge, clustered_grids)
{
    sinew_asset *a[3] = {cloth(12, 12, 0, clustered(16), 0), cloth(5, 9, 2, clustered(16), 0),
                         cloth(20, 4, 4, clustered(32), 0)};
    for (int k = 0; k < 3; k++)
        cr_assert_gt(a[k]->cpass_count, 0);
    cr_log_info("passes: %u, %u, %u", a[0]->cpass_count, a[1]->cpass_count, a[2]->cpass_count);
    merge_and_check((const sinew_asset *const *)a, 3);
    destroy_all(a, 3);
}

Test(merge, hierarchies)
{
    sinew_asset *a[3] = {cloth(8, 8, 0, hierarchical(3, SINEW_PREP_HIERARCHY_REST_POSE), 0),
                         cloth(6, 9, 2, hierarchical(3, SINEW_PREP_HIERARCHY_REST_POSE), 0),
                         cloth(11, 5, 4, hierarchical(3, SINEW_PREP_HIERARCHY_REST_POSE), 0)};
    for (int k = 0; k < 3; k++)
        cr_assert_eq(a[k]->level_count, 3);
    merge_and_check((const sinew_asset *const *)a, 3);
    destroy_all(a, 3);
    /* the fixture's hand-made hierarchy (geodesic) beside a built one */
    sinew_asset *b[3] = {make_hierarchy(), cloth(7, 7, 2, hierarchical(3, SINEW_PREP_HIERARCHY_REST_GEODESIC), 0),
                         make_hierarchy()};
    cr_assert_eq(b[1]->level_count, 3);
    merge_and_check((const sinew_asset *const *)b, 3);
    destroy_all(b, 3);
}

Test(merge, red_black_grids)
{
    sinew_asset *a[2] = {cloth(5, 5, 0, red_black(), 0), cloth(8, 3, 2, red_black(), 0)};
    for (int k = 0; k < 2; k++)
        cr_assert_gt(a[k]->red_count, 0);
    merge_and_check((const sinew_asset *const *)a, 2);
    destroy_all(a, 2);
}

Test(merge, soft_boxes_and_elements_with_materials)
{
    sinew_asset *a[3] = {soft_box(1.0, 2, 0), make_solid(), soft_box(0.5, 3, 0)};
    cr_assert_gt(a[0]->element_count, 0);
    cr_assert_gt(a[2]->element_colour_count, 0);
    merge_and_check((const sinew_asset *const *)a, 3);
    destroy_all(a, 3);
}

Test(merge, render_meshes)
{
    sinew_asset *cloths[2] = {cloth(4, 4, 0, plain(), 1), cloth(7, 5, 2, plain(), 1)};
    sinew_asset *boxes[2] = {soft_box(1.0, 2, 1), soft_box(0.5, 2, 1)};
    for (int k = 0; k < 2; k++) {
        cr_assert_gt(cloths[k]->rvertex_count, 0);
        cr_assert_gt(boxes[k]->rvertex_count, 0);
    }
    merge_and_check((const sinew_asset *const *)cloths, 2);
    merge_and_check((const sinew_asset *const *)boxes, 2);
    destroy_all(cloths, 2);
    destroy_all(boxes, 2);
}

Test(merge, one_asset_is_itself)
{
    sinew_asset *a[] = {cloth(6, 5, 0, plain(), 0),
                        cloth(12, 12, 0, clustered(16), 1),
                        cloth(8, 8, 0, hierarchical(3, SINEW_PREP_HIERARCHY_REST_POSE), 0),
                        make_hierarchy(),
                        cloth(5, 5, 0, red_black(), 0),
                        soft_box(1.0, 2, 1),
                        make_solid()};
    const uint32_t n = sizeof a / sizeof a[0];
    for (uint32_t k = 0; k < n; k++) {
        sinew_asset *m = NULL;
        sinew_merge_map map;
        const sinew_asset *one = a[k];
        cr_assert_eq(sinew_asset_merge(&one, 1, capture_logger(SINEW_LOG_WARNING), &m, &map), SINEW_RESULT_OK, "%s",
                     cap.text);
        assert_same_records(m, a[k]);
        for (uint32_t d = 0; d < a[k]->distance_count; d++)
            cr_assert_eq(map.distance_of[d], d);
        for (uint32_t b = 0; b < a[k]->bend_count; b++)
            cr_assert_eq(map.bend_of[b], b);
        for (uint32_t e = 0; e < a[k]->element_count; e++)
            cr_assert_eq(map.element_of[e], e);
        sinew_merge_map_free(&map);
        cr_assert_null(map.distance_of);
        sinew_asset_destroy(m);
    }
    destroy_all(a, n);
}

/* ---------------------------------------------------------------- refusals */

/* INVALID_ARGUMENT, one message naming the two assets and the reason, *out
 * NULL and every map zeroed (nothing allocated). */
static void assert_conflict(const sinew_asset *x, const sinew_asset *y, const char *reason)
{
    cr_assert_str_eq(sinew_asset_merge_conflict(x, y), reason);
    cr_assert_str_eq(sinew_asset_merge_conflict(y, x), reason);
    const sinew_asset *pair[3] = {x, x, y};
    sinew_asset *m = (sinew_asset *)&m; /* anything but NULL */
    sinew_merge_map maps[3];
    memset(maps, 0xAB, sizeof maps);
    cr_assert_eq(sinew_asset_merge(pair, 3, capture_logger(SINEW_LOG_WARNING), &m, maps),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    assert_one_error("assets 0 and 2", reason);
    cr_assert_null(m);
    const sinew_merge_map zero = {0};
    for (int k = 0; k < 3; k++)
        cr_assert_arr_eq(&maps[k], &zero, sizeof zero);
}

Test(merge, conflicts_are_refused)
{
    sinew_asset *flat = cloth(6, 6, 0, plain(), 0), *flat2 = cloth(4, 7, 0, plain(), 0);
    sinew_asset *h3 = cloth(8, 8, 0, hierarchical(3, SINEW_PREP_HIERARCHY_REST_POSE), 0);
    sinew_asset *h2 = cloth(8, 8, 0, hierarchical(2, SINEW_PREP_HIERARCHY_REST_POSE), 0);
    sinew_asset *geodesic = make_hierarchy();
    sinew_asset *clusters = cloth(8, 8, 0, clustered(16), 0), *rb = cloth(5, 5, 0, red_black(), 0);
    sinew_asset *render = cloth(5, 5, 0, plain(), 1);
    cr_assert_eq(h3->level_count, 3);
    cr_assert_eq(h2->level_count, 2);
    cr_assert_null(sinew_asset_merge_conflict(flat, flat2));
    cr_assert_null(sinew_asset_merge_conflict(h3, h3));
    assert_conflict(h3, flat, "one has a hierarchy, the other not");
    assert_conflict(h3, h2, "their hierarchies have different numbers of levels");
    assert_conflict(h3, geodesic,
                    "their hierarchies' coarse rest lengths are of different kinds (rest pose, geodesic)");
    assert_conflict(clusters, flat, "one has clustered sweeps, the other not");
    assert_conflict(rb, flat, "one has a red-black partition, the other not");
    assert_conflict(render, flat, "one has a render mesh, the other not");

    /* Found with a third asset too. */
    const sinew_asset *three[3] = {flat, flat2, h3};
    sinew_asset *m = NULL;
    sinew_merge_map maps[3];
    cr_assert_eq(sinew_asset_merge(three, 3, capture_logger(SINEW_LOG_WARNING), &m, maps),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(m);
    sinew_asset *all[] = {flat, flat2, h3, h2, geodesic, clusters, rb, render};
    destroy_all(all, sizeof all / sizeof all[0]);
}

/* Colouring conflicts only arise between assets the validation refuses (an
 * asset with constraints has colours): made up here, as a world would never
 * get them. An asset without constraints merges with either kind. */
Test(merge, colouring_conflicts)
{
    sinew_asset coloured = {0}, uncoloured = {0}, empty = {0};
    coloured.distance_count = uncoloured.distance_count = 1;
    coloured.colour_count = 1;
    cr_assert_str_eq(sinew_asset_merge_conflict(&coloured, &uncoloured),
                     "one has coloured constraints, the other uncoloured ones");
    cr_assert_null(sinew_asset_merge_conflict(&coloured, &empty));
    cr_assert_null(sinew_asset_merge_conflict(&empty, &uncoloured));
    /* empty first: the conflict between 1 and 2 is still found */
    const sinew_asset *three[3] = {&empty, &coloured, &uncoloured};
    sinew_asset *m = NULL;
    sinew_merge_map maps[3];
    cr_assert_eq(sinew_asset_merge(three, 3, capture_logger(SINEW_LOG_WARNING), &m, maps),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    assert_one_error("assets 1 and 2", "coloured constraints");
    sinew_asset elements = {0}, plain_elements = {0};
    elements.element_count = plain_elements.element_count = 1;
    elements.element_colour_count = 1;
    cr_assert_str_eq(sinew_asset_merge_conflict(&elements, &plain_elements),
                     "one has coloured elements, the other uncoloured ones");
}

/* Past the limits in all: refused before anything is read or allocated (the
 * made-up assets have counts but no arrays). */
Test(merge, limits)
{
    sinew_asset big = {0};
    big.particle_count = SINEW_ASSET_MAX_PARTICLES / 2 + 1;
    const sinew_asset *two[2] = {&big, &big};
    sinew_asset *m = NULL;
    sinew_merge_map maps[2];
    cr_assert_eq(sinew_asset_merge(two, 2, capture_logger(SINEW_LOG_WARNING), &m, maps),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    assert_one_error("particles", "limit");
    cr_assert_null(m);

    sinew_asset mats = {0};
    mats.material_count = SINEW_ASSET_MAX_MATERIALS / 2 + 1;
    const sinew_asset *pair[2] = {&mats, &mats};
    cr_assert_eq(sinew_asset_merge(pair, 2, capture_logger(SINEW_LOG_WARNING), &m, maps),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    assert_one_error("materials", "limit");

    sinew_asset records = {0};
    records.triangle_count = SINEW_ASSET_MAX_RECORDS / 2 + 1;
    const sinew_asset *pair2[2] = {&records, &records};
    cr_assert_eq(sinew_asset_merge(pair2, 2, capture_logger(SINEW_LOG_WARNING), &m, maps),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    assert_one_error("triangles", "limit");
}

/* Out of memory: OUT_OF_HOST_MEMORY with a message, nothing left allocated.
 * The address space is capped a GiB above what the test uses, and two made-up
 * assets within the limits ask for 16 GiB of elements (after the merged
 * asset's other arrays were allocated: they are freed again). Not under
 * AddressSanitizer, whose allocator reserves its own address space. */
#if defined(__SANITIZE_ADDRESS__)
#define MERGE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MERGE_ASAN 1
#endif
#endif
#if defined(__linux__) && !defined(MERGE_ASAN)
#include <sys/resource.h>
#include <unistd.h>

Test(merge, out_of_memory)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    cr_assert(f && fscanf(f, "%lu", &pages) == 1);
    fclose(f);
    const rlim_t room = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)1 << 30);
    const struct rlimit limit = {room, room};
    cr_assert_eq(setrlimit(RLIMIT_AS, &limit), 0);
    sinew_asset big = {0};
    big.particle_count = 8;
    big.element_count = SINEW_ASSET_MAX_RECORDS / 2;
    big.element_colour_count = 1;
    const sinew_asset *two[2] = {&big, &big};
    sinew_asset *m = (sinew_asset *)&m;
    sinew_merge_map maps[2];
    cr_assert_eq(sinew_asset_merge(two, 2, capture_logger(SINEW_LOG_WARNING), &m, maps),
                 SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    assert_one_error("merge", "no memory");
    cr_assert_null(m);
    const sinew_merge_map zero = {0};
    cr_assert_arr_eq(&maps[0], &zero, sizeof zero);
    cr_assert_arr_eq(&maps[1], &zero, sizeof zero);
}
#endif

/* Misuse is a programmer error: the assert (hooked to exit with 42). */
static void exit_on_assert(const char *expression, const char *file, int line)
{
    (void)expression;
    (void)file;
    (void)line;
    fflush(stderr);
    _Exit(42);
}

static void hook(void) { sinew_set_assert_hook(exit_on_assert); }

Test(merge_misuse, count_zero, .init = hook, .exit_code = 42)
{
    sinew_asset *a = make_solid();
    const sinew_asset *one = a;
    sinew_asset *m = NULL;
    sinew_merge_map map;
    sinew_asset_merge(&one, 0, NULL, &m, &map);
}

Test(merge_misuse, null_asset, .init = hook, .exit_code = 42)
{
    sinew_asset *a = make_solid();
    const sinew_asset *two[2] = {a, NULL};
    sinew_asset *m = NULL;
    sinew_merge_map maps[2];
    sinew_asset_merge(two, 2, NULL, &m, maps);
}

Test(merge_misuse, null_out, .init = hook, .exit_code = 42)
{
    sinew_asset *a = make_solid();
    const sinew_asset *one = a;
    sinew_merge_map map;
    sinew_asset_merge(&one, 1, NULL, NULL, &map);
}
