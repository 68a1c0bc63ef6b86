/* The particle hierarchy of Hierarchical PBD (src/prep/hierarchy.c), checked
 * against its definition rather than against numbers it once produced: on a
 * regular triangulated grid, an irregular triangle mesh and two disconnected
 * pieces, for k = 1, 2, 3 and both kinds of rest length, every fine particle
 * has >= k parents among its neighbours on its level, all on the next level,
 * weighted in (0, 1] to a sum of 1; coarse levels of a triangle mesh are
 * triangle meshes without isolated particles; no coarse constraint joins two
 * pieces; geodesic rest lengths are at least the rest-pose distance and
 * rest-pose ones equal it; colours are independent; the asset validates and
 * survives the file format. Also a particle at a parent's place, pinned
 * particles kept coarse, the options refused, and the quad split that makes
 * triangulated grids. */
#include <criterion/criterion.h>

#include "prep/cloth.h"
#include "prep/hierarchy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct capture {
    char text[4096];
    int errors;
} capture;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    c->errors += level == SINEW_LOG_ERROR;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "[%s] %s\n", id, message);
}

static sinew_logger capture_logger(capture *c)
{
    memset(c, 0, sizeof *c);
    return (sinew_logger){capture_fn, c, SINEW_LOG_WARNING};
}

static uint64_t rng_state;

/* A uniform number in [0, 1) (64-bit LCG, top 53 bits). */
static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* ---------------------------------------------------------------- meshes */

/* An nx x ny grid of 1 m x 1 m in the plane, its quads split in a checkerboard. */
static sinew_mesh triangulated_grid(uint32_t nx, uint32_t ny, sinew_grid_plane plane, const double origin[3])
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(nx, ny, 1.0, 1.0, plane, origin, &m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    return m;
}

/* An nx x ny grid of spacing h in the xz plane, every vertex moved by up to
 * 0.2 h along x and z, each quad split along a diagonal chosen at random. */
static sinew_mesh jittered_mesh(uint32_t nx, uint32_t ny, double h, uint64_t seed)
{
    rng_state = seed;
    sinew_mesh m = {nx * ny, malloc(sizeof(double) * 3 * nx * ny), 2 * (nx - 1) * (ny - 1), NULL, NULL};
    m.face_offsets = malloc(sizeof(uint32_t) * (m.face_count + 1));
    m.face_indices = malloc(sizeof(uint32_t) * 3 * m.face_count);
    cr_assert(m.positions && m.face_offsets && m.face_indices);
    for (uint32_t j = 0; j < ny; j++)
        for (uint32_t i = 0; i < nx; i++) {
            double *p = m.positions + 3 * (j * nx + i);
            p[0] = h * (i + 0.4 * (uniform() - 0.5));
            p[1] = 0.0;
            p[2] = h * (j + 0.4 * (uniform() - 0.5));
        }
    uint32_t *t = m.face_indices;
    for (uint32_t j = 0; j + 1 < ny; j++)
        for (uint32_t i = 0; i + 1 < nx; i++) {
            uint32_t a = j * nx + i, b = a + 1, c = a + nx + 1, d = a + nx;
            const uint32_t split[2][6] = {{a, d, c, a, c, b}, {a, d, b, d, c, b}};
            memcpy(t, split[uniform() < 0.5], sizeof split[0]);
            t += 6;
        }
    for (uint32_t f = 0; f <= m.face_count; f++)
        m.face_offsets[f] = 3 * f;
    return m;
}

/* Both meshes in one, the second's vertices numbered after the first's. */
static sinew_mesh join(sinew_mesh *x, sinew_mesh *y)
{
    uint32_t xi = x->face_offsets[x->face_count], yi = y->face_offsets[y->face_count];
    sinew_mesh m = {x->vertex_count + y->vertex_count, malloc(sizeof(double) * 3 * (x->vertex_count + y->vertex_count)),
                    x->face_count + y->face_count, malloc(sizeof(uint32_t) * (x->face_count + y->face_count + 1)),
                    malloc(sizeof(uint32_t) * (xi + yi))};
    cr_assert(m.positions && m.face_offsets && m.face_indices);
    memcpy(m.positions, x->positions, sizeof(double) * 3 * x->vertex_count);
    memcpy(m.positions + 3 * x->vertex_count, y->positions, sizeof(double) * 3 * y->vertex_count);
    memcpy(m.face_offsets, x->face_offsets, sizeof(uint32_t) * x->face_count);
    for (uint32_t f = 0; f <= y->face_count; f++)
        m.face_offsets[x->face_count + f] = xi + y->face_offsets[f];
    memcpy(m.face_indices, x->face_indices, sizeof(uint32_t) * xi);
    for (uint32_t k = 0; k < yi; k++)
        m.face_indices[xi + k] = x->vertex_count + y->face_indices[k];
    sinew_mesh_free(x);
    sinew_mesh_free(y);
    return m;
}

/* Two triangulated grids of different sizes, 0.5 m apart; the first has
 * particles [0, 20 * 17). */
enum { PIECE0 = 20 * 17 };
static sinew_mesh two_pieces(void)
{
    const double left[3] = {-1.0, 0.0, 0.0}, right[3] = {0.5, 0.0, 0.2};
    sinew_mesh a = triangulated_grid(20, 17, SINEW_GRID_XZ, left);
    sinew_mesh b = triangulated_grid(13, 25, SINEW_GRID_XZ, right);
    return join(&a, &b);
}

/* A cloth of the mesh's triangles (stretch constraints only, no bending),
 * without clustered sweeps: its file is format 1.2 with a hierarchy. */
static sinew_asset *cloth(const sinew_mesh *m, double pin_top)
{
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.cluster_particles = 0;
    opt.shear = 0;
    opt.bending = 0;
    opt.pin_top = pin_top;
    sinew_logger quiet = {.level = SINEW_LOG_ERROR};
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_cloth_build(m, &opt, &quiet, &a, NULL), SINEW_RESULT_OK);
    cr_assert_eq(a->particle_count, m->vertex_count, "every vertex is a particle, in order");
    return a;
}

/* ---------------------------------------------------------------- checks */

static uint64_t pair(uint32_t a, uint32_t b) { return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a; }

static int by_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* A level's edges as sorted pair keys: level 0 the asset's distances, others
 * its coarse constraints. */
typedef struct edge_set {
    uint64_t *keys;
    uint32_t count;
} edge_set;

static edge_set level_edges(const sinew_asset *a, uint32_t l)
{
    const sinew_distance_rec *d = l ? a->hdistances + a->levels[l].distance_begin : a->distances;
    uint32_t m = l ? a->levels[l].distance_count : a->distance_count;
    edge_set s = {malloc(sizeof(uint64_t) * (m + 1)), m};
    cr_assert(s.keys);
    for (uint32_t i = 0; i < m; i++)
        s.keys[i] = pair(d[i].a, d[i].b);
    qsort(s.keys, m, sizeof *s.keys, by_u64);
    return s;
}

static int has_edge(const edge_set *s, uint32_t a, uint32_t b)
{
    uint64_t key = pair(a, b);
    return bsearch(&key, s->keys, s->count, sizeof key, by_u64) != NULL;
}

static double pose_distance(const sinew_asset *a, uint32_t u, uint32_t v)
{
    const sinew_particle_rec *p = &a->particles[u], *q = &a->particles[v];
    double dx = (double)p->x - q->x, dy = (double)p->y - q->y, dz = (double)p->z - q->z;
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Particle -> the coarsest level holding it, from the nodes. */
static uint32_t *levels_of(const sinew_asset *a)
{
    uint32_t *level_of = malloc(sizeof(uint32_t) * a->particle_count);
    cr_assert(level_of);
    memset(level_of, 0xff, sizeof(uint32_t) * a->particle_count);
    for (uint32_t x = 0; x < a->particle_count; x++) {
        cr_assert_eq(level_of[a->nodes[x].particle], UINT32_MAX);
        level_of[a->nodes[x].particle] = a->nodes[x].level;
    }
    return level_of;
}

/* memcmp of empty arrays, which may be NULL. */
static void assert_same_array(const void *x, const void *y, size_t bytes)
{
    if (bytes)
        cr_assert_eq(memcmp(x, y, bytes), 0);
}

static void assert_same_hierarchy(const sinew_asset *x, const sinew_asset *y)
{
    cr_assert_eq(x->level_count, y->level_count);
    cr_assert_eq(x->link_count, y->link_count);
    cr_assert_eq(x->hdistance_count, y->hdistance_count);
    cr_assert_eq(x->hcolour_count, y->hcolour_count);
    assert_same_array(x->levels, y->levels, sizeof(sinew_level_rec) * x->level_count);
    assert_same_array(x->nodes, y->nodes, sizeof(sinew_node_rec) * (x->level_count ? x->particle_count : 0));
    assert_same_array(x->links, y->links, sizeof(sinew_link_rec) * x->link_count);
    assert_same_array(x->hdistances, y->hdistances, sizeof(sinew_distance_rec) * x->hdistance_count);
    assert_same_array(x->hcolours, y->hcolours, sizeof(sinew_range_rec) * x->hcolour_count);
}

static void print_levels(const char *what, const sinew_hierarchy_report *r)
{
    printf("%s:", what);
    for (uint32_t l = 0; l < r->level_count; l++)
        printf(" %u/%u/%u", r->particles[l], r->constraints[l], r->colours[l]);
    printf(" (particles/constraints/colours), %u links\n", r->links);
}

/* Everything the hierarchy promises, checked from the asset's records. */
static void check_hierarchy(const sinew_asset *a, const sinew_hierarchy_options *opt,
                            const sinew_hierarchy_report *rep, const char *what)
{
    capture log;
    sinew_logger lg = capture_logger(&log);
    cr_assert_eq(sinew_asset_validate(a, what, &lg), SINEW_RESULT_OK, "%s: %s", what, log.text);
    const uint32_t n = a->particle_count, levels = a->level_count;
    cr_assert_geq(levels, 2, "%s", what);
    cr_assert_leq(levels, opt->max_levels, "%s", what);

    /* The report is the asset's; each level at most 90 % of the one before,
     * and only the last one at or below min_particles. */
    cr_assert_eq(rep->level_count, levels, "%s", what);
    cr_assert_eq(rep->links, a->link_count, "%s", what);
    cr_assert_eq(rep->constraints[0], a->distance_count);
    cr_assert_eq(rep->colours[0], a->colour_count);
    for (uint32_t l = 0; l < levels; l++) {
        const sinew_level_rec *v = &a->levels[l];
        cr_assert_eq(rep->particles[l], v->particle_count, "%s level %u", what, l);
        cr_assert_eq(v->rest, opt->rest);
        if (l) {
            cr_assert_eq(rep->constraints[l], v->distance_count, "%s level %u", what, l);
            cr_assert_eq(rep->colours[l], v->colour_count, "%s level %u", what, l);
            cr_assert_leq(10ull * v->particle_count, 9ull * a->levels[l - 1].particle_count, "%s level %u", what, l);
        }
        if (l > 0 && l + 1 < levels)
            cr_assert_gt(v->particle_count, opt->min_particles, "%s level %u", what, l);
    }

    /* Parents: >= k of them, each a neighbour on the child's level and a
     * particle of the next one; weights in (0, 1] summing to 1. */
    uint32_t *level_of = levels_of(a);
    edge_set edges[SINEW_ASSET_MAX_LEVELS];
    for (uint32_t l = 0; l < levels; l++)
        edges[l] = level_edges(a, l);
    for (uint32_t x = 0; x < n; x++) {
        const sinew_node_rec *v = &a->nodes[x];
        if (v->level + 1 == levels) {
            cr_assert_eq(v->link_count, 0);
            continue;
        }
        cr_assert_geq(v->link_count, opt->k, "%s: particle %u has %u parents", what, v->particle, v->link_count);
        double sum = 0.0;
        for (uint32_t q = v->link_begin; q < v->link_begin + v->link_count; q++) {
            const sinew_link_rec *p = &a->links[q];
            cr_assert_gt(level_of[p->parent], v->level, "%s: parent %u of %u", what, p->parent, v->particle);
            cr_assert(has_edge(&edges[v->level], v->particle, p->parent), "%s: parent %u of %u is no neighbour on "
                      "level %u", what, p->parent, v->particle, v->level);
            cr_assert(p->weight > 0.0f && p->weight <= 1.0f, "%s: weight %g", what, (double)p->weight);
            sum += p->weight;
        }
        cr_assert_float_eq(sum, 1.0, 1e-6, "%s: weights of %u sum to %.9f", what, v->particle, sum);
    }

    /* Coarse constraints: on their level, once each; rest lengths as the kind
     * says; no particle twice in a colour. */
    uint32_t *stamp = calloc(n, sizeof *stamp);
    cr_assert(stamp);
    for (uint32_t l = 1; l < levels; l++) {
        const sinew_level_rec *v = &a->levels[l];
        for (uint32_t i = 1; i < edges[l].count; i++)
            cr_assert_neq(edges[l].keys[i - 1], edges[l].keys[i], "%s: a pair twice on level %u", what, l);
        for (uint32_t c = v->colour_begin; c < v->colour_begin + v->colour_count; c++) {
            const sinew_range_rec *r = &a->hcolours[c];
            for (uint32_t k = r->begin; k < r->begin + r->count; k++) {
                const sinew_distance_rec *d = &a->hdistances[k];
                cr_assert(level_of[d->a] >= l && level_of[d->b] >= l);
                cr_assert_eq(d->kind, SINEW_KIND_STRETCH);
                cr_assert(stamp[d->a] != c + 1 && stamp[d->b] != c + 1, "%s: colour %u", what, c);
                stamp[d->a] = stamp[d->b] = c + 1;
                double pose = pose_distance(a, d->a, d->b);
                if (opt->rest == SINEW_HIERARCHY_REST_POSE)
                    cr_assert_eq(d->rest, (float)pose, "%s: %u-%u rest %.9g, rest pose %.9g", what, d->a, d->b,
                                 (double)d->rest, pose);
                else /* within the rounding of positions of about 1 m to float */
                    cr_assert_geq(d->rest, pose - 2e-7, "%s: %u-%u geodesic %.9g, rest pose %.9g", what, d->a, d->b,
                                  (double)d->rest, pose);
            }
        }
    }
    free(stamp);

    /* The file format keeps it all. */
    void *bytes;
    size_t size;
    sinew_asset *b;
    lg = capture_logger(&log);
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, &lg), SINEW_RESULT_OK, "%s", log.text);
    cr_assert_eq(((uint8_t *)bytes)[6], 2, "format 1.2");
    cr_assert_eq(sinew_asset_load_memory(bytes, size, what, &lg, &b), SINEW_RESULT_OK, "%s", log.text);
    assert_same_hierarchy(a, b);
    assert_same_array(a->particles, b->particles, sizeof(sinew_particle_rec) * n);
    assert_same_array(a->distances, b->distances, sizeof(sinew_distance_rec) * a->distance_count);
    sinew_asset_destroy(b);
    free(bytes);

    for (uint32_t l = 0; l < levels; l++)
        free(edges[l].keys);
    free(level_of);
}

/* A coarse level of a triangle mesh is a triangle mesh: each edge has a
 * common neighbour of its ends, on every level of at least `strict`
 * particles; below that, pieces of a few particles may fold into a lone edge
 * (four particles, two triangles, k = 2: the two outer ones turn fine), and
 * those edges are only counted. No level has a particle without an edge. */
static void check_triangle_levels(const sinew_asset *a, uint32_t strict, const char *what)
{
    const uint32_t n = a->particle_count;
    uint32_t *begin = malloc(sizeof(uint32_t) * (n + 1)), *fill = malloc(sizeof(uint32_t) * (n + 1)), *nb = NULL;
    cr_assert(begin && fill);
    for (uint32_t l = 1; l < a->level_count; l++) {
        const sinew_level_rec *v = &a->levels[l];
        const sinew_distance_rec *d = a->hdistances + v->distance_begin;
        memset(begin, 0, sizeof(uint32_t) * (n + 1));
        for (uint32_t i = 0; i < v->distance_count; i++) {
            begin[d[i].a + 1]++;
            begin[d[i].b + 1]++;
        }
        for (uint32_t p = 0; p < n; p++)
            begin[p + 1] += begin[p];
        nb = realloc(nb, sizeof(uint32_t) * (2 * v->distance_count + 1));
        cr_assert(nb);
        memcpy(fill, begin, sizeof(uint32_t) * (n + 1));
        for (uint32_t i = 0; i < v->distance_count; i++) {
            nb[fill[d[i].a]++] = d[i].b;
            nb[fill[d[i].b]++] = d[i].a;
        }
        for (uint32_t x = 0; x < v->particle_count; x++) {
            uint32_t p = a->nodes[x].particle;
            cr_assert_gt(begin[p + 1] - begin[p], 0, "%s: particle %u isolated on level %u", what, p, l);
        }
        uint32_t folded = 0;
        for (uint32_t i = 0; i < v->distance_count; i++) {
            int triangle = 0;
            for (uint32_t q = begin[d[i].a]; !triangle && q < begin[d[i].a + 1]; q++)
                for (uint32_t r = begin[d[i].b]; !triangle && r < begin[d[i].b + 1]; r++)
                    triangle = nb[q] == nb[r];
            cr_assert(triangle || v->particle_count < strict, "%s: level %u (%u particles): edge %u-%u is on no "
                      "triangle", what, l, v->particle_count, d[i].a, d[i].b);
            folded += !triangle;
        }
        if (folded)
            printf("%s: level %u of %u particles: %u of %u edges on no triangle\n", what, l, v->particle_count,
                   folded, v->distance_count);
    }
    free(begin);
    free(fill);
    free(nb);
}

/* Particles [0, split) and [split, n) are two pieces: both keep particles on
 * every level, and no coarse constraint joins them. */
static void check_pieces(const sinew_asset *a, uint32_t split, const char *what)
{
    for (uint32_t l = 1; l < a->level_count; l++) {
        const sinew_level_rec *v = &a->levels[l];
        uint32_t left = 0;
        for (uint32_t x = 0; x < v->particle_count; x++)
            left += a->nodes[x].particle < split;
        cr_assert(left > 0 && left < v->particle_count, "%s: level %u keeps %u of its %u particles on the left",
                  what, l, left, v->particle_count);
        for (uint32_t k = v->distance_begin; k < v->distance_begin + v->distance_count; k++)
            cr_assert_eq(a->hdistances[k].a < split, a->hdistances[k].b < split, "%s: level %u joins %u and %u",
                         what, l, a->hdistances[k].a, a->hdistances[k].b);
    }
}

static sinew_asset *build_checked(const sinew_mesh *m, const sinew_hierarchy_options *opt, const char *what,
                                  sinew_hierarchy_report *rep)
{
    sinew_asset *a = cloth(m, 0.0);
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_hierarchy_build(a, opt, &lg, rep), SINEW_RESULT_OK, "%s: %s", what, c.text);
    cr_assert_eq(c.text[0], '\0', "%s: %s", what, c.text);
    check_hierarchy(a, opt, rep, what);
    return a;
}

/* ---------------------------------------------------------------- the three meshes */

static void each_k_and_rest(const sinew_mesh *m, const char *name, uint32_t split)
{
    for (uint32_t k = 1; k <= 3; k++)
        for (uint32_t rest = 0; rest < SINEW_HIERARCHY_REST_COUNT; rest++) {
            sinew_hierarchy_options opt = sinew_hierarchy_options_default();
            opt.k = k;
            opt.rest = rest;
            opt.max_levels = 8;
            char what[96];
            snprintf(what, sizeof what, "%s, k = %u, %s", name, k, rest ? "geodesic" : "rest pose");
            sinew_hierarchy_report rep;
            sinew_asset *a = build_checked(m, &opt, what, &rep);
            print_levels(what, &rep);
            check_triangle_levels(a, split ? 64 : 32, what);
            if (split)
                check_pieces(a, split, what);
            sinew_asset_destroy(a);
        }
}

Test(hierarchy, regular_grid)
{
    sinew_mesh m = triangulated_grid(33, 33, SINEW_GRID_XZ, NULL);
    each_k_and_rest(&m, "33x33 grid", 0);
    sinew_mesh_free(&m);
}

Test(hierarchy, irregular_mesh)
{
    sinew_mesh m = jittered_mesh(31, 27, 0.03, 0x5eed);
    each_k_and_rest(&m, "jittered 31x27", 0);
    sinew_mesh_free(&m);
}

Test(hierarchy, two_pieces)
{
    sinew_mesh m = two_pieces();
    each_k_and_rest(&m, "two pieces", PIECE0);
    sinew_mesh_free(&m);
}

/* ---------------------------------------------------------------- weights, pins, determinism */

/* A particle a hair (1e-7 of the mean edge length) from one of its parents
 * gives that parent a weight of at least 0.999 (eps is 1e-4 of the mean). The
 * selection depends on the graph alone, so moving a particle after a first
 * build keeps who is fine and who its parents are. The grid is centred on the
 * origin, whose particle has position 0 exactly, so that the offset is exact
 * in float. */
Test(hierarchy, particle_at_a_parent)
{
    sinew_mesh m = triangulated_grid(33, 33, SINEW_GRID_XZ, NULL);
    sinew_asset *a = cloth(&m, 0.0);
    sinew_mesh_free(&m);
    sinew_hierarchy_options opt = sinew_hierarchy_options_default();
    sinew_hierarchy_report rep;
    cr_assert_eq(sinew_hierarchy_build(a, &opt, NULL, &rep), SINEW_RESULT_OK);
    const uint32_t centre = 16 * 33 + 16;
    cr_assert(a->particles[centre].x == 0.0f && a->particles[centre].z == 0.0f);
    uint32_t *level_of = levels_of(a);

    /* The pair: the centre and a parent of it, or a fine neighbour and the
     * centre as its parent; the one that is not the centre moves. */
    uint32_t fine = UINT32_MAX, parent = UINT32_MAX;
    for (uint32_t x = 0; x < a->particle_count && fine == UINT32_MAX; x++) {
        const sinew_node_rec *v = &a->nodes[x];
        for (uint32_t q = v->link_begin; q < v->link_begin + v->link_count && v->level == 0; q++)
            if (v->particle == centre || a->links[q].parent == centre) {
                fine = v->particle;
                parent = a->links[q].parent;
                break;
            }
    }
    cr_assert_neq(fine, UINT32_MAX);
    double mean = 0.0;
    for (uint32_t i = 0; i < a->distance_count; i++)
        mean += a->distances[i].rest;
    mean /= a->distance_count;
    const float offset = (float)(1e-7 * mean);
    uint32_t moved = fine == centre ? parent : fine;
    a->particles[moved] = (sinew_particle_rec){offset, 0.0f, 0.0f, a->particles[moved].w};
    for (uint32_t i = 0; i < a->distance_count; i++) { /* the moved particle's edges at their new lengths */
        sinew_distance_rec *d = &a->distances[i];
        if (d->a == moved || d->b == moved)
            d->rest = (float)pose_distance(a, d->a, d->b);
        if ((d->a == fine && d->b == parent) || (d->a == parent && d->b == fine))
            cr_assert_eq(d->rest, offset);
    }

    for (uint32_t rest = 0; rest < SINEW_HIERARCHY_REST_COUNT; rest++) {
        opt.rest = rest;
        cr_assert_eq(sinew_hierarchy_build(a, &opt, NULL, &rep), SINEW_RESULT_OK);
        check_hierarchy(a, &opt, &rep, "particle at a parent");
        uint32_t *again = levels_of(a);
        for (uint32_t i = 0; i < a->particle_count; i++)
            cr_assert_eq(again[i] == 0, level_of[i] == 0, "the same level-0 selection");
        free(again);
        int found = 0;
        for (uint32_t x = 0; x < a->particle_count; x++) {
            const sinew_node_rec *v = &a->nodes[x];
            if (v->particle != fine)
                continue;
            cr_assert_gt(v->link_count, 1);
            for (uint32_t q = v->link_begin; q < v->link_begin + v->link_count; q++) {
                const sinew_link_rec *p = &a->links[q];
                if (p->parent == parent) {
                    found = 1;
                    cr_assert_geq(p->weight, 0.999f, "weight %.6f", (double)p->weight);
                } else {
                    cr_assert_lt(p->weight, 1e-3f);
                }
            }
        }
        cr_assert(found);
    }
    free(level_of);
    sinew_asset_destroy(a);
}

/* The top row's share of level 1, pinned or not. The grid is mirrored so
 * that its top row has the lowest indices, which the selection would visit
 * first were pinned particles not put last. */
static void top_row_kept(uint32_t k, int pinned, uint32_t *kept, uint32_t *level1)
{
    sinew_mesh m = triangulated_grid(33, 33, SINEW_GRID_XY, NULL);
    for (uint32_t v = 0; v < m.vertex_count; v++)
        m.positions[3 * v + 1] = -m.positions[3 * v + 1];
    for (uint32_t f = 0; f < m.face_count; f++) { /* the winding, for the mirrored normal */
        uint32_t *t = m.face_indices + m.face_offsets[f], swap = t[1];
        t[1] = t[2];
        t[2] = swap;
    }
    sinew_asset *a = cloth(&m, pinned ? 0.01 : 0.0);
    sinew_mesh_free(&m);
    uint32_t pins = 0;
    for (uint32_t i = 0; i < a->particle_count; i++)
        pins += a->particles[i].w == 0.0f && i < 33;
    cr_assert_eq(pins, pinned ? 33 : 0, "the top row, particles 0 to 32");
    sinew_hierarchy_options opt = sinew_hierarchy_options_default();
    opt.k = k;
    sinew_hierarchy_report rep;
    cr_assert_eq(sinew_hierarchy_build(a, &opt, NULL, &rep), SINEW_RESULT_OK);
    check_hierarchy(a, &opt, &rep, "hanging");
    *kept = 0;
    for (uint32_t x = 0; x < a->levels[1].particle_count; x++)
        *kept += a->nodes[x].particle < 33;
    *level1 = rep.particles[1];
    sinew_asset_destroy(a);
}

/* Pinned particles are visited last, so level 1 keeps a far larger share of
 * them than of all particles, and more of the row than when it is free. */
Test(hierarchy, pinned_particles_stay_coarse)
{
    for (uint32_t k = 1; k <= 3; k++) {
        uint32_t kept, level1, kept_free, level1_free;
        top_row_kept(k, 1, &kept, &level1);
        top_row_kept(k, 0, &kept_free, &level1_free);
        double pinned_share = kept / 33.0, all_share = level1 / 1089.0;
        printf("k = %u: level 1 keeps %u of the 33 pinned particles (%.0f %%; %u when free), %u of 1089 in all "
               "(%.0f %%)\n", k, kept, 100 * pinned_share, kept_free, level1, 100 * all_share);
        cr_assert_geq(pinned_share, 1.5 * all_share, "k = %u", k);
        cr_assert_gt(kept, kept_free, "k = %u", k);
    }
}

/* The same input, the same hierarchy; building again replaces the old one. */
Test(hierarchy, deterministic_and_replaced)
{
    sinew_mesh m = jittered_mesh(21, 19, 0.05, 7);
    sinew_asset *a = cloth(&m, 0.0), *b = cloth(&m, 0.0);
    sinew_mesh_free(&m);
    sinew_hierarchy_options opt = sinew_hierarchy_options_default();
    sinew_hierarchy_report rep;
    cr_assert_eq(sinew_hierarchy_build(a, &opt, NULL, &rep), SINEW_RESULT_OK);
    opt.k = 3;
    opt.rest = SINEW_HIERARCHY_REST_POSE;
    cr_assert_eq(sinew_hierarchy_build(b, &opt, NULL, &rep), SINEW_RESULT_OK);
    opt = sinew_hierarchy_options_default();
    cr_assert_eq(sinew_hierarchy_build(b, &opt, NULL, &rep), SINEW_RESULT_OK);
    check_hierarchy(b, &opt, &rep, "rebuilt");
    assert_same_hierarchy(a, b);
    sinew_asset_destroy(a);
    sinew_asset_destroy(b);
}

/* ---------------------------------------------------------------- refusals */

static void assert_refused(sinew_asset *a, const sinew_hierarchy_options *opt, sinew_result code, const char *needle)
{
    sinew_asset *before = NULL;
    void *bytes;
    size_t size;
    int had = a->level_count > 0;
    if (had) { /* a copy of what it had, to compare */
        cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, NULL), SINEW_RESULT_OK);
        cr_assert_eq(sinew_asset_load_memory(bytes, size, "before", NULL, &before), SINEW_RESULT_OK);
        free(bytes);
    }
    const sinew_level_rec *levels = a->levels;
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_hierarchy_report rep;
    memset(&rep, 0xab, sizeof rep);
    cr_assert_eq(sinew_hierarchy_build(a, opt, &lg, &rep), code, "%s", needle);
    cr_assert_eq(c.errors, 1, "%s", c.text);
    cr_assert(strstr(c.text, "[prep] hierarchy: "), "%s", c.text);
    cr_assert(strstr(c.text, needle), "expected \"%s\" in:\n%s", needle, c.text);
    cr_assert_eq(rep.level_count, 0);
    cr_assert_eq(a->levels, levels, "the asset keeps its arrays");
    if (had) {
        assert_same_hierarchy(a, before);
        sinew_asset_destroy(before);
    } else {
        cr_assert_eq(a->level_count + a->link_count + a->hdistance_count + a->hcolour_count, 0);
    }
}

Test(hierarchy, options_refused)
{
    sinew_mesh m = triangulated_grid(9, 9, SINEW_GRID_XZ, NULL);
    sinew_asset *a = cloth(&m, 0.0);
    sinew_mesh_free(&m);
    sinew_hierarchy_options opt = sinew_hierarchy_options_default();
    sinew_hierarchy_report rep;
    for (int had = 0; had < 2; had++) {
        if (had)
            cr_assert_eq(sinew_hierarchy_build(a, &opt, NULL, &rep), SINEW_RESULT_OK);
        sinew_hierarchy_options bad = opt;
        bad.k = 0;
        assert_refused(a, &bad, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "k is 0");
        bad = opt;
        bad.max_levels = 1;
        assert_refused(a, &bad, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "max_levels 1 is not in 2..32");
        bad.max_levels = 33;
        assert_refused(a, &bad, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "max_levels 33 is not in 2..32");
        bad = opt;
        bad.epsilon = NAN;
        assert_refused(a, &bad, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "epsilon nan is not in (0, 1)");
        bad.epsilon = 0.0;
        assert_refused(a, &bad, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "epsilon 0 is not in (0, 1)");
        bad.epsilon = 1.0;
        assert_refused(a, &bad, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "epsilon 1 is not in (0, 1)");
        bad = opt;
        bad.rest = SINEW_HIERARCHY_REST_COUNT;
        assert_refused(a, &bad, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "rest-length kind 2");
        bad = opt;
        bad.colouring = (sinew_colouring_method)7;
        assert_refused(a, &bad, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "unknown colouring method 7");
    }
    sinew_asset_destroy(a);
}

Test(hierarchy, asset_without_distances_refused)
{
    sinew_asset *a = sinew_asset_alloc(3, 0, 0, 0, 0);
    cr_assert(a);
    for (uint32_t i = 0; i < 3; i++)
        a->particles[i] = (sinew_particle_rec){(float)i, 0.0f, 0.0f, 1.0f};
    sinew_hierarchy_options opt = sinew_hierarchy_options_default();
    assert_refused(a, &opt, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "the asset has no distance constraints");
    sinew_asset_destroy(a);
}

/* A chain of two particles: with k = 2 neither can turn fine (each has one
 * neighbour), so there is no level 1. With k = 1 one can. */
Test(hierarchy, asset_that_cannot_be_coarsened_refused)
{
    sinew_asset *a = sinew_asset_alloc(2, 0, 1, 0, 1);
    cr_assert(a);
    a->particles[0] = (sinew_particle_rec){0.0f, 0.0f, 0.0f, 1.0f};
    a->particles[1] = (sinew_particle_rec){0.5f, 0.0f, 0.0f, 1.0f};
    a->distances[0] = (sinew_distance_rec){0, 1, 0.5f, SINEW_KIND_STRETCH};
    a->colours[0] = (sinew_colour_rec){0, 1, 0, 0};
    sinew_hierarchy_options opt = sinew_hierarchy_options_default();
    assert_refused(a, &opt, SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                   "cannot be coarsened: level 1 would keep 2 of its 2 particles (more than 90 %) with k = 2");
    opt.k = 1;
    sinew_hierarchy_report rep;
    cr_assert_eq(sinew_hierarchy_build(a, &opt, NULL, &rep), SINEW_RESULT_OK);
    check_hierarchy(a, &opt, &rep, "chain");
    cr_assert_eq(rep.level_count, 2);
    cr_assert_eq(rep.particles[1], 1);
    cr_assert_eq(a->nodes[0].particle, 1, "particle 0 is visited first and turns fine");
    cr_assert_eq(a->links[0].weight, 1.0f);
    sinew_asset_destroy(a);
}

/* ---------------------------------------------------------------- the quad split */

/* A 5 x 4 grid: 12 quads become 24 triangles; quads sharing an edge are cut
 * along opposite diagonals (a checkerboard), and the winding is kept. */
Test(hierarchy, quads_split_in_a_checkerboard)
{
    const uint32_t nx = 5, ny = 4;
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(nx, ny, 1.0, 1.0, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    cr_assert_eq(m.face_count, 2 * (nx - 1) * (ny - 1));
    for (uint32_t j = 0; j + 1 < ny; j++)
        for (uint32_t i = 0; i + 1 < nx; i++) {
            uint32_t f = 2 * (j * (nx - 1) + i);
            cr_assert_eq(m.face_offsets[f], 3 * f);
            const uint32_t *t = m.face_indices + 3 * f;
            uint32_t a = j * nx + i, c = a + nx + 1;
            /* The first triangle holds the quad's first corner a; along the
             * diagonal a-c it also holds c. */
            int along_ac = (t[0] == a || t[1] == a || t[2] == a) && (t[0] == c || t[1] == c || t[2] == c);
            cr_assert_eq(along_ac, (i + j) % 2 == 0, "quad (%u, %u)", i, j);
            for (int h = 0; h < 2; h++) {
                const double *p0 = m.positions + 3 * t[3 * h], *p1 = m.positions + 3 * t[3 * h + 1],
                             *p2 = m.positions + 3 * t[3 * h + 2];
                double ny_ = (p1[2] - p0[2]) * (p2[0] - p0[0]) - (p1[0] - p0[0]) * (p2[2] - p0[2]);
                cr_assert_gt(ny_, 0.0, "quad (%u, %u) triangle %d faces up, as the quad", i, j, h);
            }
        }
    cr_assert_eq(m.face_offsets[m.face_count], 3 * m.face_count);
    /* Triangles alone are left as they are. */
    uint32_t *before = malloc(sizeof(uint32_t) * 3 * m.face_count);
    memcpy(before, m.face_indices, sizeof(uint32_t) * 3 * m.face_count);
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    cr_assert_eq(m.face_count, 2 * (nx - 1) * (ny - 1));
    cr_assert_arr_eq(m.face_indices, before, sizeof(uint32_t) * 3 * m.face_count);
    free(before);
    sinew_mesh_free(&m);

    /* A pentagon and a triangle around a quad keep their places and sizes. */
    double p[7 * 3] = {0};
    for (int v = 0; v < 7; v++)
        p[3 * v] = v, p[3 * v + 2] = v % 2;
    const uint32_t off[] = {0, 3, 7, 12}, idx[] = {0, 1, 2, 1, 2, 3, 4, 2, 3, 4, 5, 6};
    sinew_mesh mixed = {7, malloc(sizeof p), 3, malloc(sizeof off), malloc(sizeof idx)};
    memcpy(mixed.positions, p, sizeof p);
    memcpy(mixed.face_offsets, off, sizeof off);
    memcpy(mixed.face_indices, idx, sizeof idx);
    cr_assert_eq(sinew_mesh_triangulate_quads(&mixed), SINEW_RESULT_OK);
    const uint32_t want_off[] = {0, 3, 6, 9, 14}, want_idx[] = {0, 1, 2, 1, 2, 3, 1, 3, 4, 2, 3, 4, 5, 6};
    cr_assert_eq(mixed.face_count, 4);
    cr_assert_arr_eq(mixed.face_offsets, want_off, sizeof want_off);
    cr_assert_arr_eq(mixed.face_indices, want_idx, sizeof want_idx);
    sinew_mesh_free(&mixed);
}
