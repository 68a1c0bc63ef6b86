/* Constraint colouring: valid (no particle twice in a colour) on cloth and random
 * graphs, balanced no worse than greedy, deterministic, and edge cases. */
#include <criterion/criterion.h>

#include "prep/cloth.h"
#include "prep/colouring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct capture {
    char text[4096];
} capture;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s\n", message);
}

/* Constraints in CSR form, as the colouring takes them. */
typedef struct csr {
    uint32_t count, particles;
    uint32_t *offsets, *indices;
} csr;

static void csr_free(csr *g)
{
    free(g->offsets);
    free(g->indices);
}

/* The distance and bending constraints of an nx x ny cloth grid (1 m square). */
static csr cloth_constraints(uint32_t nx, uint32_t ny)
{
    sinew_mesh mesh;
    cr_assert_eq(sinew_mesh_grid(nx, ny, 1.0, 1.0, SINEW_GRID_XZ, NULL, &mesh), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    sinew_logger lg = {.level = SINEW_LOG_WARNING};
    sinew_asset *a;
    cr_assert_eq(sinew_cloth_build(&mesh, &opt, &lg, &a, NULL), SINEW_RESULT_OK);
    csr g = {a->distance_count + a->bend_count, a->particle_count};
    g.offsets = malloc(sizeof(uint32_t) * (g.count + 1));
    g.indices = malloc(sizeof(uint32_t) * (2 * a->distance_count + 4 * a->bend_count));
    uint32_t k = 0;
    for (uint32_t i = 0; i < a->distance_count; i++) {
        g.offsets[i] = k;
        g.indices[k++] = a->distances[i].a;
        g.indices[k++] = a->distances[i].b;
    }
    for (uint32_t i = 0; i < a->bend_count; i++) {
        g.offsets[a->distance_count + i] = k;
        for (int j = 0; j < 4; j++)
            g.indices[k++] = a->bends[i].v[j];
    }
    g.offsets[g.count] = k;
    sinew_asset_destroy(a);
    sinew_mesh_free(&mesh);
    return g;
}

static uint32_t largest(const sinew_colouring *c)
{
    uint32_t m = 0;
    for (uint32_t k = 0; k < c->colour_count; k++)
        m = c->sizes[k] > m ? c->sizes[k] : m;
    return m;
}

static uint32_t smallest(const sinew_colouring *c)
{
    uint32_t m = UINT32_MAX;
    for (uint32_t k = 0; k < c->colour_count; k++)
        m = c->sizes[k] < m ? c->sizes[k] : m;
    return m;
}

static void print_sizes(const char *label, const sinew_colouring *c)
{
    printf("%s: %u colours, sizes", label, c->colour_count);
    for (uint32_t k = 0; k < c->colour_count; k++)
        printf(" %u", c->sizes[k]);
    printf(" (smallest %u, largest %u)\n", smallest(c), largest(c));
}

static sinew_colouring colour(const csr *g, sinew_colouring_method method)
{
    sinew_colouring c;
    cr_assert_eq(sinew_colour_constraints(g->count, g->offsets, g->indices, g->particles, method, NULL, &c),
                 SINEW_RESULT_OK);
    cr_assert(sinew_colouring_is_valid(&c, g->count, g->offsets, g->indices, g->particles));
    return c;
}

Test(colouring, cloth_grid_balanced_beats_greedy)
{
    csr g = cloth_constraints(64, 64);
    sinew_colouring greedy = colour(&g, SINEW_COLOURING_GREEDY);
    sinew_colouring balanced = colour(&g, SINEW_COLOURING_BALANCED);
    printf("64x64 cloth, %u constraints\n", g.count);
    print_sizes("greedy", &greedy);
    print_sizes("balanced", &balanced);
    cr_assert_leq(balanced.colour_count, greedy.colour_count);
    cr_assert_leq(largest(&balanced), largest(&greedy));
    cr_assert_geq(smallest(&balanced), smallest(&greedy));
    sinew_colouring_free(&greedy);
    sinew_colouring_free(&balanced);
    csr_free(&g);
}

static uint32_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* m constraints of 2 to 4 distinct-ish particles, some repeated on purpose. */
static csr random_graph(uint64_t seed, uint32_t particles, uint32_t m)
{
    csr g = {m, particles};
    g.offsets = malloc(sizeof(uint32_t) * (m + 1));
    g.indices = malloc(sizeof(uint32_t) * 4 * m);
    uint32_t k = 0;
    for (uint32_t c = 0; c < m; c++) {
        g.offsets[c] = k;
        uint32_t arity = 2 + lcg(&seed) % 3;
        for (uint32_t j = 0; j < arity; j++)
            g.indices[k++] = lcg(&seed) % particles;
    }
    g.offsets[m] = k;
    return g;
}

Test(colouring, random_graphs_valid_and_deterministic)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        csr g = random_graph(seed, 50 + (uint32_t)seed * 37, 200 + (uint32_t)seed * 211);
        for (int method = 0; method < 2; method++) {
            sinew_colouring a = colour(&g, (sinew_colouring_method)method);
            sinew_colouring b = colour(&g, (sinew_colouring_method)method);
            cr_assert_eq(a.colour_count, b.colour_count);
            cr_assert_arr_eq(a.colour_of, b.colour_of, sizeof(uint32_t) * g.count);
            uint32_t total = 0;
            for (uint32_t k = 0; k < a.colour_count; k++)
                total += a.sizes[k];
            cr_assert_eq(total, g.count);
            sinew_colouring_free(&a);
            sinew_colouring_free(&b);
        }
        csr_free(&g);
    }
}

Test(colouring, zero_constraints)
{
    const uint32_t offsets[1] = {0};
    sinew_colouring c;
    cr_assert_eq(sinew_colour_constraints(0, offsets, NULL, 10, SINEW_COLOURING_BALANCED, NULL, &c),
                 SINEW_RESULT_OK);
    cr_assert_eq(c.colour_count, 0);
    cr_assert(sinew_colouring_is_valid(&c, 0, offsets, NULL, 10));
    sinew_colouring_free(&c);
}

Test(colouring, out_of_range_index_names_constraint)
{
    const uint32_t offsets[4] = {0, 2, 4, 6};
    const uint32_t indices[6] = {0, 1, 1, 2, 2, 3};
    capture cap = {{0}};
    sinew_logger lg = {capture_fn, &cap, SINEW_LOG_DEBUG};
    sinew_colouring c;
    cr_assert_eq(sinew_colour_constraints(3, offsets, indices, 3, SINEW_COLOURING_GREEDY, &lg, &c),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(cap.text, "constraint 2: particle index 3 out of range (3 particles)"), "%s", cap.text);
    cr_assert_eq(c.colour_of, NULL);
}

/* A constraint listing a particle twice conflicts with its neighbours, not itself. */
Test(colouring, duplicate_index_in_constraint)
{
    const uint32_t offsets[4] = {0, 2, 4, 8};
    const uint32_t indices[8] = {1, 1, 1, 2, 3, 4, 3, 5};
    for (int method = 0; method < 2; method++) {
        sinew_colouring c;
        cr_assert_eq(sinew_colour_constraints(3, offsets, indices, 6, (sinew_colouring_method)method, NULL, &c),
                     SINEW_RESULT_OK);
        cr_assert(sinew_colouring_is_valid(&c, 3, offsets, indices, 6));
        cr_assert_neq(c.colour_of[0], c.colour_of[1]);
        cr_assert_eq(c.colour_count, 2);
        sinew_colouring_free(&c);
    }
}

Test(colouring, invalid_colouring_detected)
{
    const uint32_t offsets[3] = {0, 2, 4};
    const uint32_t indices[4] = {0, 1, 1, 2};
    uint32_t colour_of[2] = {0, 0}, sizes[1] = {2};
    sinew_colouring c = {1, colour_of, sizes};
    cr_assert_not(sinew_colouring_is_valid(&c, 2, offsets, indices, 3));
    uint32_t sizes2[2] = {1, 1};
    colour_of[1] = 1;
    c = (sinew_colouring){2, colour_of, sizes2};
    cr_assert(sinew_colouring_is_valid(&c, 2, offsets, indices, 3));
    colour_of[1] = 2;
    cr_assert_not(sinew_colouring_is_valid(&c, 2, offsets, indices, 3));
}

/* The tools colour meshes of a million constraints; this must stay interactive. */
Test(colouring, million_constraints_in_seconds, .timeout = 60)
{
    csr g = cloth_constraints(400, 400);
    for (int method = 0; method < 2; method++) {
        clock_t t0 = clock();
        sinew_colouring c = colour(&g, (sinew_colouring_method)method);
        double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
        printf("%s: %u constraints, %u colours in %.2f s (with validation)\n", method ? "balanced" : "greedy",
               g.count, c.colour_count, s);
        sinew_colouring_free(&c);
    }
    csr_free(&g);
}
