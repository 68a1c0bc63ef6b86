/* Red-black partition of spring networks (Pall et al.): quad networks split
 * into two colours with every spring between them; diagonal springs and
 * triangles are refused naming an odd cycle that really is one; pieces,
 * tearing and real quad meshes. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "prep/mesh.h"
#include "prep/redblack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct capture {
    char text[4096];
} capture;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)level;
    capture *c = user;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "[%s] %s\n", id, message);
}

/* Springs along the polygon edges of a mesh, each pair once; with diagonals,
 * also both diagonals of every quad. */
typedef struct springs {
    uint32_t count, *ends;
} springs;

static int has_spring(const springs *s, uint32_t a, uint32_t b)
{
    for (uint32_t k = 0; k < s->count; k++)
        if ((s->ends[2 * k] == a && s->ends[2 * k + 1] == b) || (s->ends[2 * k] == b && s->ends[2 * k + 1] == a))
            return 1;
    return 0;
}

static void add_spring(springs *s, uint32_t a, uint32_t b, uint32_t cap)
{
    if (a == b || has_spring(s, a, b))
        return;
    cr_assert_lt(s->count, cap);
    s->ends[2 * s->count] = a;
    s->ends[2 * s->count + 1] = b;
    s->count++;
}

static springs mesh_springs(const sinew_mesh *m, int diagonals)
{
    uint32_t cap = 4 * m->face_offsets[m->face_count] + 1;
    springs s = {0, malloc(2 * sizeof(uint32_t) * cap)};
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *v = &m->face_indices[m->face_offsets[f]];
        uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
        for (uint32_t i = 0; i < k; i++)
            add_spring(&s, v[i], v[(i + 1) % k], cap);
        if (diagonals && k == 4) {
            add_spring(&s, v[0], v[2], cap);
            add_spring(&s, v[1], v[3], cap);
        }
    }
    return s;
}

static springs grid_springs(uint32_t nx, uint32_t ny, int diagonals)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_grid(nx, ny, 1.0, 1.0, SINEW_GRID_XZ, NULL, &m), SINEW_RESULT_OK);
    springs s = mesh_springs(&m, diagonals);
    sinew_mesh_free(&m);
    return s;
}

/* The reported cycle is odd, closed and made of springs. */
static void assert_odd_cycle(const springs *s, const sinew_redblack_report *rep)
{
    cr_assert(rep->cycle_length >= 3 && rep->cycle_length % 2 == 1, "cycle of %u springs", rep->cycle_length);
    cr_assert_leq(rep->cycle_length, SINEW_REDBLACK_CYCLE_MAX, "short enough to check whole");
    for (uint32_t k = 0; k < rep->cycle_length; k++) {
        uint32_t a = rep->cycle[k], b = rep->cycle[(k + 1) % rep->cycle_length];
        cr_assert(has_spring(s, a, b), "cycle step %u: no spring joins %u and %u", k, a, b);
    }
}

Test(redblack, quad_grid_is_two_coloured)
{
    springs s = grid_springs(100, 100, 0);
    cr_assert_eq(s.count, 19800, "the paper's network: 100 x 100 particles, 19 800 springs");
    uint8_t *colour = malloc(10000);
    sinew_redblack_report rep;
    cr_assert_eq(sinew_redblack_partition(10000, s.count, s.ends, "grid", NULL, colour, &rep), SINEW_RESULT_OK);
    cr_assert(sinew_redblack_is_valid(s.count, s.ends, colour));
    cr_assert_eq(rep.red, 5000);
    cr_assert_eq(rep.black, 5000);
    cr_assert_eq(rep.pieces, 1);
    cr_assert_eq(rep.cycle_length, 0);
    /* The checkerboard: (i + j) even is red, as the search from particle 0 finds. */
    for (uint32_t j = 0; j < 100; j++)
        for (uint32_t i = 0; i < 100; i++)
            cr_assert_eq(colour[j * 100 + i], (i + j) % 2);
    free(colour);
    free(s.ends);
}

Test(redblack, diagonal_springs_refused_naming_an_odd_cycle)
{
    springs s = grid_springs(7, 5, 1);
    uint8_t colour[35];
    sinew_redblack_report rep;
    capture c = {{0}};
    sinew_logger lg = {capture_fn, &c, SINEW_LOG_WARNING};
    cr_assert_eq(sinew_redblack_partition(35, s.count, s.ends, "sheared", &lg, colour, &rep), SINEW_RESULT_ERROR_BAD_MESH);
    assert_odd_cycle(&s, &rep);
    cr_assert_eq(rep.cycle_length, 3, "a diagonal closes a triangle with two edges");
    cr_assert(strstr(c.text, "sheared: the springs do not split into red and black particles: 3 springs close an odd "
                             "cycle"), "%s", c.text);
    free(s.ends);
}

/* A long odd cycle: a ring of 2m + 1 particles. */
Test(redblack, long_odd_ring_reported_whole)
{
    const uint32_t n = 41;
    uint32_t ends[2 * 41];
    for (uint32_t k = 0; k < n; k++) {
        ends[2 * k] = k;
        ends[2 * k + 1] = (k + 1) % n;
    }
    springs s = {n, ends};
    uint8_t colour[41];
    sinew_redblack_report rep;
    cr_assert_eq(sinew_redblack_partition(n, n, ends, "ring", NULL, colour, &rep), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert_eq(rep.cycle_length, 41);
    assert_odd_cycle(&s, &rep);
    /* An even ring is fine. */
    ends[2 * 39 + 1] = 0;
    cr_assert_eq(sinew_redblack_partition(40, 40, ends, "ring", NULL, colour, &rep), SINEW_RESULT_OK);
    cr_assert(sinew_redblack_is_valid(40, ends, colour));
}

/* Two grids side by side (indices of the second after the first), and
 * isolated particles: every piece coloured, the odd cycle found in the second
 * piece when only it has diagonals. */
Test(redblack, pieces_and_isolated_particles)
{
    springs a = grid_springs(6, 4, 0), b = grid_springs(5, 5, 0), d = grid_springs(5, 5, 1);
    uint32_t n = 24 + 25 + 3;
    springs s = {a.count + b.count, malloc(2 * sizeof(uint32_t) * (a.count + d.count))};
    memcpy(s.ends, a.ends, 2 * sizeof(uint32_t) * a.count);
    for (uint32_t k = 0; k < 2 * b.count; k++)
        s.ends[2 * a.count + k] = b.ends[k] + 24;
    uint8_t colour[52];
    sinew_redblack_report rep;
    cr_assert_eq(sinew_redblack_partition(n, s.count, s.ends, "pieces", NULL, colour, &rep), SINEW_RESULT_OK);
    cr_assert(sinew_redblack_is_valid(s.count, s.ends, colour));
    cr_assert_eq(rep.pieces, 5, "two grids and three isolated particles");
    cr_assert_eq(rep.red + rep.black, n);
    s.count = a.count + d.count;
    for (uint32_t k = 0; k < 2 * d.count; k++)
        s.ends[2 * a.count + k] = d.ends[k] + 24;
    cr_assert_eq(sinew_redblack_partition(n, s.count, s.ends, "pieces", NULL, colour, &rep), SINEW_RESULT_ERROR_BAD_MESH);
    assert_odd_cycle(&s, &rep);
    for (uint32_t k = 0; k < rep.cycle_length; k++)
        cr_assert_geq(rep.cycle[k], 24, "the cycle lies in the second piece");
    free(a.ends);
    free(b.ends);
    free(d.ends);
    free(s.ends);
}

/* Tearing removes springs: the partition made before stays valid for any subset. */
Test(redblack, tearing_keeps_the_partition)
{
    springs s = grid_springs(30, 30, 0);
    uint8_t colour[900];
    cr_assert_eq(sinew_redblack_partition(900, s.count, s.ends, "grid", NULL, colour, NULL), SINEW_RESULT_OK);
    unsigned state = 7;
    for (int round = 0; round < 20; round++) {
        for (uint32_t k = 0; k < s.count && s.count > 1;) {
            state = state * 1664525u + 1013904223u;
            if ((state >> 24) % 10 == 0) { /* cut: the last spring takes its place */
                s.ends[2 * k] = s.ends[2 * (s.count - 1)];
                s.ends[2 * k + 1] = s.ends[2 * (s.count - 1) + 1];
                s.count--;
            } else {
                k++;
            }
        }
        cr_assert(sinew_redblack_is_valid(s.count, s.ends, colour));
    }
    free(s.ends);
}

Test(redblack, bad_springs_refused)
{
    uint32_t ends[4] = {0, 1, 2, 2};
    uint8_t colour[3];
    capture c = {{0}};
    sinew_logger lg = {capture_fn, &c, SINEW_LOG_WARNING};
    cr_assert_eq(sinew_redblack_partition(3, 2, ends, "bad", &lg, colour, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "spring 1 joins particles 2 and 2"), "%s", c.text);
    ends[3] = 9;
    cr_assert_eq(sinew_redblack_partition(3, 2, ends, "bad", &lg, colour, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
}

/* Real quad meshes no one here wrote (Debian's CGAL demo data): a quad cube
 * is bipartite, and not with its diagonals; a quad torus of 5 segments around
 * one way is not at all: the ring of 5 is reported. */
Test(redblack, real_quad_meshes)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir || !*dir)
        cr_skip_test("SINEW_CGAL_DATA not set");
    const struct { const char *name; int bipartite; } models[] = {{"cube_quad.off", 1}, {"torus_quad.off", 0}};
    for (int m = 0; m < 2; m++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/meshes/%s", dir, models[m].name);
        sinew_mesh mesh;
        if (sinew_mesh_read(path, NULL, &mesh) != SINEW_RESULT_OK)
            cr_skip_test("%s not readable", path);
        for (uint32_t f = 0; f < mesh.face_count; f++)
            cr_assert_eq(mesh.face_offsets[f + 1] - mesh.face_offsets[f], 4, "%s is all quads", models[m].name);
        springs s = mesh_springs(&mesh, 0);
        uint8_t *colour = malloc(mesh.vertex_count);
        sinew_redblack_report rep;
        sinew_result r = sinew_redblack_partition(mesh.vertex_count, s.count, s.ends, models[m].name, NULL, colour, &rep);
        if (models[m].bipartite) {
            cr_assert_eq(r, SINEW_RESULT_OK, "%s", models[m].name);
            cr_assert(sinew_redblack_is_valid(s.count, s.ends, colour));
            cr_log_info("%s: %u particles, %u springs, %u red, %u black", models[m].name, mesh.vertex_count, s.count,
                        rep.red, rep.black);
        } else {
            cr_assert_eq(r, SINEW_RESULT_ERROR_BAD_MESH, "%s", models[m].name);
            assert_odd_cycle(&s, &rep);
            cr_log_info("%s: an odd cycle of %u springs", models[m].name, rep.cycle_length);
        }
        free(s.ends);
        s = mesh_springs(&mesh, 1);
        cr_assert_eq(sinew_redblack_partition(mesh.vertex_count, s.count, s.ends, models[m].name, NULL, colour, &rep),
                     SINEW_RESULT_ERROR_BAD_MESH);
        assert_odd_cycle(&s, &rep);
        free(s.ends);
        free(colour);
        sinew_mesh_free(&mesh);
    }
}

/* Quadrangulation (one Catmull-Clark step's topology, no smoothing): a
 * triangle becomes 3 quads, a quad 4; the surface keeps its shape (every new
 * vertex is a midpoint or a centroid); the result is bipartite for any input,
 * here the odd-cycled quad torus and a real triangle mesh (CGAL's mask). */
static void assert_quadrangulated(sinew_mesh *m, const char *name)
{
    uint32_t v0 = m->vertex_count, f0 = m->face_count, corners = m->face_offsets[f0];
    double *before = malloc(sizeof *before * 3 * v0);
    memcpy(before, m->positions, sizeof *before * 3 * v0);
    cr_assert_eq(sinew_mesh_quadrangulate(m), SINEW_RESULT_OK, "%s", name);
    cr_assert_eq(m->face_count, corners, "%s: one quad per corner", name);
    for (uint32_t f = 0; f < m->face_count; f++)
        cr_assert_eq(m->face_offsets[f + 1] - m->face_offsets[f], 4, "%s: all quads", name);
    cr_assert_eq(memcmp(m->positions, before, sizeof *before * 3 * v0), 0, "%s: the old vertices stay", name);
    springs s = mesh_springs(m, 0);
    uint8_t *colour = malloc(m->vertex_count);
    sinew_redblack_report rep;
    cr_assert_eq(sinew_redblack_partition(m->vertex_count, s.count, s.ends, name, NULL, colour, &rep), SINEW_RESULT_OK,
                 "%s: bipartite", name);
    cr_assert(sinew_redblack_is_valid(s.count, s.ends, colour));
    /* Every spring joins an old vertex or a centre to a midpoint (v0 .. v0 + edges). */
    uint32_t edges = m->vertex_count - v0 - f0;
    for (uint32_t k = 0; k < s.count; k++) {
        uint32_t a = s.ends[2 * k], b = s.ends[2 * k + 1];
        int mid_a = a >= v0 && a < v0 + edges, mid_b = b >= v0 && b < v0 + edges;
        cr_assert(mid_a != mid_b, "%s: spring %u - %u", name, a, b);
    }
    cr_log_info("%s: %u vertices, %u faces -> %u vertices, %u quads, %u springs (%u red, %u black)", name, v0, f0,
                m->vertex_count, m->face_count, s.count, rep.red, rep.black);
    free(s.ends);
    free(colour);
    free(before);
}

Test(redblack, quadrangulation_is_bipartite)
{
    /* One triangle: 3 + 3 + 1 vertices, 3 quads, 9 springs; the centroid. */
    double p[9] = {0, 0, 0, 3, 0, 0, 0, 3, 0};
    uint32_t off[2] = {0, 3}, idx[3] = {0, 1, 2};
    sinew_mesh tri = {3, malloc(sizeof p), 1, malloc(sizeof off), malloc(sizeof idx)};
    memcpy(tri.positions, p, sizeof p);
    memcpy(tri.face_offsets, off, sizeof off);
    memcpy(tri.face_indices, idx, sizeof idx);
    assert_quadrangulated(&tri, "triangle");
    cr_assert_eq(tri.vertex_count, 7);
    cr_assert_float_eq(tri.positions[3 * 6], 1.0, 1e-12, "the centre is the centroid");
    cr_assert_float_eq(tri.positions[3 * 6 + 1], 1.0, 1e-12);
    sinew_mesh_free(&tri);

    sinew_mesh grid;
    cr_assert_eq(sinew_mesh_grid(5, 4, 1.0, 1.0, SINEW_GRID_XZ, NULL, &grid), SINEW_RESULT_OK);
    assert_quadrangulated(&grid, "5 x 4 grid");
    cr_assert_eq(grid.vertex_count, 9u * 7u, "the grid refined once: 9 x 7");
    sinew_mesh_free(&grid);

    /* A face of two vertices is refused, the mesh unchanged. */
    uint32_t bad_off[2] = {0, 2};
    sinew_mesh bad = {3, malloc(sizeof p), 1, malloc(sizeof bad_off), malloc(sizeof idx)};
    memcpy(bad.positions, p, sizeof p);
    memcpy(bad.face_offsets, bad_off, sizeof bad_off);
    memcpy(bad.face_indices, idx, sizeof idx);
    cr_assert_eq(sinew_mesh_quadrangulate(&bad), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert_eq(bad.vertex_count, 3);
    sinew_mesh_free(&bad);

    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir || !*dir)
        cr_skip_test("SINEW_CGAL_DATA not set: the real meshes are not checked");
    const char *models[] = {"torus_quad.off", "mask_cone.off"};
    for (int k = 0; k < 2; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/meshes/%s", dir, models[k]);
        sinew_mesh mesh;
        if (sinew_mesh_read(path, NULL, &mesh) != SINEW_RESULT_OK)
            cr_skip_test("%s not readable", path);
        assert_quadrangulated(&mesh, models[k]);
        sinew_mesh_free(&mesh);
    }
}
