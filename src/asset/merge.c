/* Merging assets into one (merge.h): each colour, element colour, cluster pass
 * and hierarchy level of the merged asset is the same one of every source in
 * turn, so that a body's constraints keep the order they have alone. Sizes are
 * summed in 64 bits and held to the asset limits before anything is
 * allocated; every record is then written once, in O(total records). */
#include "merge.h"

#include <stdlib.h>
#include <string.h>

#include "../core/log.h"

static int has_constraints(const sinew_asset *a) { return a->distance_count > 0 || a->bend_count > 0; }
static int has_red_black(const sinew_asset *a) { return a->red_count > 0 || a->black_count > 0; }

const char *sinew_asset_merge_conflict(const sinew_asset *a, const sinew_asset *b)
{
    SINEW_ASSERT(a && b);
    if ((a->level_count > 0) != (b->level_count > 0))
        return "one has a hierarchy, the other not";
    if (a->level_count != b->level_count)
        return "their hierarchies have different numbers of levels";
    if (a->level_count > 0 && a->levels[0].rest != b->levels[0].rest)
        return "their hierarchies' coarse rest lengths are of different kinds (rest pose, geodesic)";
    if ((a->cpass_count > 0) != (b->cpass_count > 0))
        return "one has clustered sweeps, the other not";
    if (has_red_black(a) != has_red_black(b))
        return "one has a red-black partition, the other not";
    if ((a->rvertex_count > 0) != (b->rvertex_count > 0))
        return "one has a render mesh, the other not";
    if (has_constraints(a) && has_constraints(b) && (a->colour_count > 0) != (b->colour_count > 0))
        return "one has coloured constraints, the other uncoloured ones";
    if (a->element_count > 0 && b->element_count > 0 &&
        (a->element_colour_count > 0) != (b->element_colour_count > 0))
        return "one has coloured elements, the other uncoloured ones";
    return NULL;
}

/* ---------------------------------------------------------------- sizes */

/* The merged asset's sizes, summed where they could pass 32 bits. */
typedef struct merged_sizes {
    uint64_t particles, triangles, distances, bends, elements, materials;
    uint64_t links, hdistances, hcolours, reds, blacks;
    uint64_t clusters, cparticles, ccolours, citems, rvertices, rtriangles;
    uint32_t colours, element_colours, levels, cpasses; /* the most of any source (levels: all alike) */
} merged_sizes;

static uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* Where a source's concatenated records begin, in 64 bits until the limits
 * are checked. */
typedef struct source_firsts {
    uint64_t particle, triangle, material, rvertex, rtriangle;
} source_firsts;

/* Sizes, and each source's firsts. */
static merged_sizes merged_sizes_of(const sinew_asset *const *src, uint32_t count, source_firsts *first)
{
    merged_sizes z = {0};
    z.levels = src[0]->level_count;
    for (uint32_t k = 0; k < count; k++) {
        const sinew_asset *s = src[k];
        first[k] = (source_firsts){z.particles, z.triangles, z.materials, z.rvertices, z.rtriangles};
        z.particles += s->particle_count;
        z.triangles += s->triangle_count;
        z.distances += s->distance_count;
        z.bends += s->bend_count;
        z.elements += s->element_count;
        z.materials += s->material_count;
        z.hdistances += s->hdistance_count;
        z.reds += s->red_count;
        z.blacks += s->black_count;
        z.clusters += s->cluster_count;
        z.cparticles += s->cparticle_count;
        z.ccolours += s->ccolour_count;
        z.citems += s->citem_count;
        z.rvertices += s->rvertex_count;
        z.rtriangles += s->rtriangle_count;
        z.colours = max_u32(z.colours, s->colour_count);
        z.element_colours = max_u32(z.element_colours, s->element_colour_count);
        z.cpasses = max_u32(z.cpasses, s->cpass_count);
        /* The links the nodes use, laid out again in node order. */
        for (uint32_t i = 0; s->level_count > 0 && i < s->particle_count; i++)
            z.links += s->nodes[i].link_count;
    }
    /* Level l's colour c is every source's level-l colour c. */
    for (uint32_t l = 1; l < z.levels; l++) {
        uint32_t colours = 0;
        for (uint32_t k = 0; k < count; k++)
            colours = max_u32(colours, src[k]->levels[l].colour_count);
        z.hcolours += colours;
    }
    return z;
}

static sinew_result check_sizes(const merged_sizes *z, const sinew_logger *lg)
{
    const struct {
        uint64_t count;
        uint32_t limit;
        const char *what;
    } limits[] = {
        {z->particles, SINEW_ASSET_MAX_PARTICLES, "particles"},
        {z->triangles, SINEW_ASSET_MAX_RECORDS, "triangles"},
        {z->distances, SINEW_ASSET_MAX_RECORDS, "distance constraints"},
        {z->bends, SINEW_ASSET_MAX_RECORDS, "bending constraints"},
        {z->colours, SINEW_ASSET_MAX_COLOURS, "colours"},
        {z->elements, SINEW_ASSET_MAX_RECORDS, "elements"},
        {z->element_colours, SINEW_ASSET_MAX_COLOURS, "element colours"},
        {z->materials, SINEW_ASSET_MAX_MATERIALS, "materials"},
        {z->links, SINEW_ASSET_MAX_RECORDS, "hierarchy links"},
        {z->hdistances, SINEW_ASSET_MAX_RECORDS, "coarse constraints"},
        {z->hcolours, SINEW_ASSET_MAX_COLOURS, "coarse colours"},
        {z->reds + z->blacks, SINEW_ASSET_MAX_PARTICLES, "red and black particles"},
        {z->clusters, SINEW_ASSET_MAX_RECORDS, "clusters"},
        {z->cparticles, SINEW_ASSET_MAX_RECORDS, "cluster particles"},
        {z->ccolours, SINEW_ASSET_MAX_RECORDS, "cluster colours"},
        {z->citems, SINEW_ASSET_MAX_RECORDS, "cluster items"},
        {z->rvertices, SINEW_ASSET_MAX_RECORDS, "render vertices"},
        {z->rtriangles, SINEW_ASSET_MAX_RECORDS, "render triangles"},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        if (limits[i].count > limits[i].limit)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "asset",
                              "merge: %llu %s in all exceed an asset's limit of %u",
                              (unsigned long long)limits[i].count, limits[i].what, limits[i].limit);
    return SINEW_RESULT_OK;
}

/* ---------------------------------------------------------------- allocation */

static void free_maps(sinew_merge_map *maps, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++)
        sinew_merge_map_free(&maps[k]);
}

void sinew_merge_map_free(sinew_merge_map *m)
{
    if (!m)
        return;
    free(m->distance_of);
    free(m->bend_of);
    free(m->element_of);
    memset(m, 0, sizeof *m);
}

/* The merged asset's arrays (zeroed) and the maps' (firsts filled in); NULL
 * on OOM, with nothing left allocated. */
static sinew_asset *alloc_merged(const merged_sizes *z, const sinew_asset *const *src, uint32_t count,
                                 const source_firsts *first, sinew_merge_map *maps)
{
    sinew_asset *m = sinew_asset_alloc((uint32_t)z->particles, (uint32_t)z->triangles, (uint32_t)z->distances,
                                       (uint32_t)z->bends, z->colours);
    int ok = m && sinew_asset_alloc_elements(m, (uint32_t)z->elements, z->element_colours, (uint32_t)z->materials) &&
             (z->levels == 0 || sinew_asset_alloc_hierarchy(m, z->levels, (uint32_t)z->links,
                                                            (uint32_t)z->hdistances, (uint32_t)z->hcolours)) &&
             (z->reds + z->blacks == 0 || sinew_asset_alloc_red_black(m, (uint32_t)z->reds, (uint32_t)z->blacks)) &&
             (z->cpasses == 0 || sinew_asset_alloc_clusters(m, z->cpasses, (uint32_t)z->clusters,
                                                            (uint32_t)z->cparticles, (uint32_t)z->ccolours,
                                                            (uint32_t)z->citems)) &&
             (z->rvertices == 0 || sinew_asset_alloc_render(m, (uint32_t)z->rvertices, (uint32_t)z->rtriangles));
    for (uint32_t k = 0; ok && k < count; k++) {
        const sinew_asset *s = src[k];
        sinew_merge_map *map = &maps[k];
        map->particle_first = (uint32_t)first[k].particle;
        map->triangle_first = (uint32_t)first[k].triangle;
        map->material_first = (uint32_t)first[k].material;
        map->rvertex_first = (uint32_t)first[k].rvertex;
        map->rtriangle_first = (uint32_t)first[k].rtriangle;
        ok = (s->distance_count == 0 || (map->distance_of = malloc(sizeof *map->distance_of * s->distance_count))) &&
             (s->bend_count == 0 || (map->bend_of = malloc(sizeof *map->bend_of * s->bend_count))) &&
             (s->element_count == 0 || (map->element_of = malloc(sizeof *map->element_of * s->element_count)));
    }
    if (!ok) {
        free_maps(maps, count);
        sinew_asset_destroy(m);
        return NULL;
    }
    return m;
}

/* ---------------------------------------------------------------- records */

static void copy_distances(sinew_asset *m, const sinew_asset *s, uint32_t begin, uint32_t n, sinew_merge_map *map,
                           uint32_t *next)
{
    for (uint32_t i = begin; i < begin + n; i++) {
        sinew_distance_rec d = s->distances[i];
        d.a += map->particle_first;
        d.b += map->particle_first;
        m->distances[*next] = d;
        map->distance_of[i] = (*next)++;
    }
}

static void copy_bends(sinew_asset *m, const sinew_asset *s, uint32_t begin, uint32_t n, sinew_merge_map *map,
                       uint32_t *next)
{
    for (uint32_t i = begin; i < begin + n; i++) {
        sinew_bend_rec b = s->bends[i];
        for (int k = 0; k < 4; k++)
            b.v[k] += map->particle_first;
        m->bends[*next] = b;
        map->bend_of[i] = (*next)++;
    }
}

/* Merged colour c: every source's colour-c distances in turn, and apart from
 * them every source's colour-c bends. Without colours, concatenated. */
static void merge_constraints(sinew_asset *m, const sinew_asset *const *src, uint32_t count, sinew_merge_map *maps)
{
    uint32_t d = 0, b = 0;
    if (m->colour_count == 0) {
        for (uint32_t k = 0; k < count; k++) {
            copy_distances(m, src[k], 0, src[k]->distance_count, &maps[k], &d);
            copy_bends(m, src[k], 0, src[k]->bend_count, &maps[k], &b);
        }
        return;
    }
    for (uint32_t c = 0; c < m->colour_count; c++) {
        sinew_colour_rec *out = &m->colours[c];
        out->distance_begin = d;
        out->bend_begin = b;
        for (uint32_t k = 0; k < count; k++)
            if (c < src[k]->colour_count)
                copy_distances(m, src[k], src[k]->colours[c].distance_begin, src[k]->colours[c].distance_count,
                               &maps[k], &d);
        for (uint32_t k = 0; k < count; k++)
            if (c < src[k]->colour_count)
                copy_bends(m, src[k], src[k]->colours[c].bend_begin, src[k]->colours[c].bend_count, &maps[k], &b);
        out->distance_count = d - out->distance_begin;
        out->bend_count = b - out->bend_begin;
    }
}

static void copy_elements(sinew_asset *m, const sinew_asset *s, uint32_t begin, uint32_t n, sinew_merge_map *map,
                          uint32_t *next)
{
    for (uint32_t i = begin; i < begin + n; i++) {
        sinew_element_rec e = s->elements[i];
        for (int k = 0; k < 4; k++)
            if (e.v[k] != SINEW_NO_VERTEX)
                e.v[k] += map->particle_first;
        e.material += map->material_first;
        m->elements[*next] = e;
        map->element_of[i] = (*next)++;
    }
}

/* Elements by element colour as constraints by colour; materials concatenated. */
static void merge_elements(sinew_asset *m, const sinew_asset *const *src, uint32_t count, sinew_merge_map *maps)
{
    for (uint32_t k = 0; k < count; k++)
        if (src[k]->material_count > 0)
            memcpy(&m->materials[maps[k].material_first], src[k]->materials,
                   sizeof *m->materials * src[k]->material_count);
    uint32_t e = 0;
    if (m->element_colour_count == 0) {
        for (uint32_t k = 0; k < count; k++)
            copy_elements(m, src[k], 0, src[k]->element_count, &maps[k], &e);
        return;
    }
    for (uint32_t c = 0; c < m->element_colour_count; c++) {
        m->element_colours[c].begin = e;
        for (uint32_t k = 0; k < count; k++)
            if (c < src[k]->element_colour_count)
                copy_elements(m, src[k], src[k]->element_colours[c].begin, src[k]->element_colours[c].count,
                              &maps[k], &e);
        m->element_colours[c].count = e - m->element_colours[c].begin;
    }
}

/* Particles, surface triangles, the red-black lists and the render mesh:
 * concatenated, indices rebased. */
static void merge_particles(sinew_asset *m, const sinew_asset *const *src, uint32_t count,
                            const sinew_merge_map *maps)
{
    uint32_t red = 0, black = 0;
    for (uint32_t k = 0; k < count; k++) {
        const sinew_asset *s = src[k];
        const uint32_t p0 = maps[k].particle_first;
        if (s->particle_count > 0)
            memcpy(&m->particles[p0], s->particles, sizeof *m->particles * s->particle_count);
        for (uint32_t t = 0; t < s->triangle_count; t++)
            for (int j = 0; j < 3; j++)
                m->triangles[maps[k].triangle_first + t].v[j] = s->triangles[t].v[j] + p0;
        for (uint32_t i = 0; i < s->red_count; i++)
            m->reds[red++] = s->reds[i] + p0;
        for (uint32_t i = 0; i < s->black_count; i++)
            m->blacks[black++] = s->blacks[i] + p0;
        /* Unused slots (weight 0) hold a valid particle too: all four rebased. */
        for (uint32_t i = 0; i < s->rvertex_count; i++) {
            sinew_render_vertex_rec v = s->rvertices[i];
            for (int j = 0; j < 4; j++)
                v.particle[j] += p0;
            m->rvertices[maps[k].rvertex_first + i] = v;
        }
        /* each source's render triangles keep their own numbering: a body of
         * a batch is drawn from its first render vertex, as it is alone */
        for (uint32_t t = 0; t < s->rtriangle_count; t++)
            m->rtriangles[maps[k].rtriangle_first + t] = s->rtriangles[t];
    }
}

/* A source's cluster constraint (a distance, or a bend after the distances)
 * as the merged asset's. */
static uint32_t merged_constraint(const sinew_asset *m, const sinew_asset *s, const sinew_merge_map *map,
                                  uint32_t c)
{
    return c < s->distance_count ? map->distance_of[c] : m->distance_count + map->bend_of[c - s->distance_count];
}

/* Merged pass p: every source's clusters of pass p in turn. cparticles and
 * ccolours are laid out in merged cluster order, citems in merged ccolour
 * order (as the validation requires). Needs the constraints merged. */
static void merge_clusters(sinew_asset *m, const sinew_asset *const *src, uint32_t count,
                           const sinew_merge_map *maps)
{
    uint32_t cluster = 0, particle = 0, colour = 0, item = 0;
    for (uint32_t p = 0; p < m->cpass_count; p++) {
        m->cpasses[p].begin = cluster;
        for (uint32_t k = 0; k < count; k++) {
            const sinew_asset *s = src[k];
            if (p >= s->cpass_count)
                continue;
            for (uint32_t q = s->cpasses[p].begin; q < s->cpasses[p].begin + s->cpasses[p].count; q++) {
                const sinew_cluster_rec *c = &s->clusters[q];
                m->clusters[cluster++] = (sinew_cluster_rec){particle, c->particle_count, colour, c->colour_count};
                for (uint32_t j = 0; j < c->particle_count; j++)
                    m->cparticles[particle++] = s->cparticles[c->particle_begin + j] + maps[k].particle_first;
                for (uint32_t j = c->colour_begin; j < c->colour_begin + c->colour_count; j++) {
                    const sinew_range_rec *r = &s->ccolours[j];
                    m->ccolours[colour++] = (sinew_range_rec){item, r->count};
                    for (uint32_t i = r->begin; i < r->begin + r->count; i++) {
                        sinew_citem_rec it = s->citems[i];
                        it.constraint = merged_constraint(m, s, &maps[k], it.constraint);
                        m->citems[item++] = it;
                    }
                }
            }
        }
        m->cpasses[p].count = cluster - m->cpasses[p].begin;
    }
}

/* nodes: for each level from the coarsest down, every source's nodes of
 * exactly that level in turn (so the first levels[l].particle_count are the
 * particles of level l and coarser, as in each source); links in merged node
 * order. Level l's coarse colour c: every source's level-l colour c. */
static void merge_hierarchy(sinew_asset *m, const sinew_asset *const *src, uint32_t count,
                            const sinew_merge_map *maps)
{
    const uint32_t levels = m->level_count;
    uint32_t node = 0, link = 0;
    for (uint32_t l = levels; l-- > 0;) {
        sinew_level_rec *out = &m->levels[l];
        out->rest = src[0]->levels[0].rest;
        for (uint32_t k = 0; k < count; k++) {
            const sinew_asset *s = src[k];
            const uint32_t p0 = maps[k].particle_first;
            /* Source nodes [begin, end) are exactly level l's. */
            const uint32_t begin = l + 1 < levels ? s->levels[l + 1].particle_count : 0;
            const uint32_t end = s->levels[l].particle_count;
            out->particle_count += end;
            for (uint32_t i = begin; i < end; i++) {
                const sinew_node_rec *v = &s->nodes[i];
                m->nodes[node++] = (sinew_node_rec){v->particle + p0, link, v->link_count, v->level};
                for (uint32_t j = v->link_begin; j < v->link_begin + v->link_count; j++)
                    m->links[link++] = (sinew_link_rec){s->links[j].parent + p0, s->links[j].weight};
            }
        }
    }
    uint32_t hd = 0, hc = 0;
    for (uint32_t l = 0; l < levels; l++) {
        sinew_level_rec *out = &m->levels[l];
        out->distance_begin = hd;
        out->colour_begin = hc;
        uint32_t colours = 0;
        for (uint32_t k = 0; k < count; k++)
            colours = max_u32(colours, src[k]->levels[l].colour_count);
        for (uint32_t c = 0; c < colours; c++) {
            m->hcolours[hc].begin = hd;
            for (uint32_t k = 0; k < count; k++) {
                const sinew_asset *s = src[k];
                if (c >= s->levels[l].colour_count)
                    continue;
                const sinew_range_rec *r = &s->hcolours[s->levels[l].colour_begin + c];
                for (uint32_t i = r->begin; i < r->begin + r->count; i++) {
                    sinew_distance_rec d = s->hdistances[i];
                    d.a += maps[k].particle_first;
                    d.b += maps[k].particle_first;
                    m->hdistances[hd++] = d;
                }
            }
            m->hcolours[hc].count = hd - m->hcolours[hc].begin;
            hc++;
        }
        out->distance_count = hd - out->distance_begin;
        out->colour_count = colours;
    }
}

/* ---------------------------------------------------------------- merging */

sinew_result sinew_asset_merge(const sinew_asset *const *assets, uint32_t count, const sinew_logger *lg,
                               sinew_asset **out, sinew_merge_map *maps)
{
    SINEW_ASSERT(assets && count >= 1 && out && maps);
    *out = NULL;
    for (uint32_t k = 0; k < count; k++) {
        SINEW_ASSERT(assets[k]);
        memset(&maps[k], 0, sizeof maps[k]);
    }
    /* Every property but the colouring is alike in all or none, so comparing
     * with asset 0 finds it; a colouring conflict is between one coloured
     * and one uncoloured asset of those with constraints (elements), one of
     * which conflicts with the first of them. */
    uint32_t with_constraints = 0, with_elements = 0;
    for (uint32_t k = count; k-- > 0;) {
        if (has_constraints(assets[k]))
            with_constraints = k;
        if (assets[k]->element_count > 0)
            with_elements = k;
    }
    const uint32_t refs[3] = {0, with_constraints, with_elements};
    for (uint32_t k = 1; k < count; k++)
        for (int j = 0; j < 3; j++) {
            const uint32_t ref = refs[j];
            const char *why = sinew_asset_merge_conflict(assets[ref], assets[k]);
            if (why)
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "asset",
                                  "merge: assets %u and %u cannot share one merged asset: %s", ref < k ? ref : k,
                                  ref < k ? k : ref, why);
        }

    source_firsts *first = malloc(sizeof *first * count);
    if (!first)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset", "merge: no memory for %u assets",
                          count);
    const merged_sizes z = merged_sizes_of(assets, count, first);
    sinew_result r = check_sizes(&z, lg);
    sinew_asset *m = NULL;
    if (r == SINEW_RESULT_OK && !(m = alloc_merged(&z, assets, count, first, maps)))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset",
                       "merge: no memory for a merged asset of %llu particles", (unsigned long long)z.particles);
    free(first);
    if (r != SINEW_RESULT_OK)
        return r;

    merge_particles(m, assets, count, maps);
    merge_constraints(m, assets, count, maps);
    merge_elements(m, assets, count, maps);
    if (m->cpass_count > 0)
        merge_clusters(m, assets, count, maps);
    if (m->level_count > 0)
        merge_hierarchy(m, assets, count, maps);
    *out = m;
    return SINEW_RESULT_OK;
}
