/* The asset module: in-memory validation, round trips through memory and a
 * file, an independent writer built from docs/asset-format.md that must agree
 * byte for byte (the document's examples included, read from the page), and
 * the loader's refusal of every kind of corruption. Each rejection test asserts
 * the one error message names what was wrong. Three test assets: a cloth grid
 * (format 1.0), a small solid of finite elements with every material model
 * (format 1.1), and the grid with a particle hierarchy (format 1.2). */
#include <criterion/criterion.h>

#include "asset/asset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- log capture */

static struct capture {
    char text[16384]; /* every message, one per line, "[id] text" */
    int errors;
} cap;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    struct capture *c = user;
    if (level == SINEW_LOG_ERROR)
        c->errors++;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "[%s] %s\n", id, message);
}

/* A logger into cap, emptied. */
static const sinew_logger *capture_logger(sinew_log_level level)
{
    static sinew_logger lg;
    memset(&cap, 0, sizeof cap);
    lg.fn = capture_fn;
    lg.user = &cap;
    lg.level = level;
    return &lg;
}

/* Exactly one error, from the asset module, containing every needle. */
static void assert_one_error(const char *needle1, const char *needle2)
{
    cr_assert_eq(cap.errors, 1, "expected one error, got %d:\n%s", cap.errors, cap.text);
    cr_assert(strstr(cap.text, "[asset] "), "message id is not \"asset\":\n%s", cap.text);
    cr_assert(strstr(cap.text, needle1), "message lacks \"%s\":\n%s", needle1, cap.text);
    if (needle2)
        cr_assert(strstr(cap.text, needle2), "message lacks \"%s\":\n%s", needle2, cap.text);
}

/* ---------------------------------------------------------------- bytes */

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static void wr32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = (uint8_t)(v >> 8 * k);
}

static void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

static void wrf32(uint8_t *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    wr32(p, v);
}

/* Layout constants from docs/asset-format.md, written here independently. */
enum { HEADER = 32, ENTRY = 32 };
enum { E_VERSION = 4, E_OFFSET = 8, E_SIZE = 16, E_COUNT = 24, E_CRC = 28 };

static uint8_t *entry_of(uint8_t *file, const char *tag)
{
    uint32_t n = rd32(file + 8);
    for (uint32_t i = 0; i < n; ++i)
        if (memcmp(file + HEADER + ENTRY * i, tag, 4) == 0)
            return file + HEADER + ENTRY * i;
    cr_assert_fail("no section %s", tag);
    return NULL;
}

/* Field at byte `field` of record `index` of the section. */
static uint8_t *field_of(uint8_t *file, const char *tag, uint32_t record_size, uint32_t index, uint32_t field)
{
    return file + rd64(entry_of(file, tag) + E_OFFSET) + (size_t)record_size * index + field;
}

/* Recomputes every payload CRC that lies inside the file, then the header CRC,
 * so that a tampered file gets past the checksums to the check under test. */
static void fix_crcs(uint8_t *file, size_t size)
{
    if (size < HEADER)
        return;
    uint64_t n = rd32(file + 8);
    if (HEADER + ENTRY * n > size)
        return;
    for (uint64_t i = 0; i < n; ++i) {
        uint8_t *e = file + HEADER + ENTRY * i;
        uint64_t off = rd64(e + E_OFFSET), len = rd64(e + E_SIZE);
        if (off <= size && len <= size - off)
            wr32(e + E_CRC, sinew_crc32(0, file + off, (size_t)len));
    }
    wr32(file + 12, 0);
    wr32(file + 12, sinew_crc32(0, file, HEADER + ENTRY * n));
}

/* ---------------------------------------------------------------- an independent writer */

typedef struct test_section {
    char tag[4];
    uint32_t version, count;
    const uint8_t *data;
    uint64_t size;
} test_section;

/* Lays the sections out as the document says: header, table, then payloads in
 * table order, each at the next multiple of 16 with zero padding. */
static uint8_t *assemble_version(const test_section *s, uint32_t n, uint16_t minor, size_t *size)
{
    uint64_t total = HEADER + (uint64_t)ENTRY * n;
    for (uint32_t i = 0; i < n; ++i)
        total += (s[i].size + 15) / 16 * 16;
    uint8_t *f = calloc(total, 1);
    cr_assert(f);
    memcpy(f, "SNWA", 4);
    f[4] = 1; /* major 1 */
    f[6] = (uint8_t)minor;
    wr32(f + 8, n);
    wr64(f + 16, total);
    uint64_t off = HEADER + (uint64_t)ENTRY * n;
    for (uint32_t i = 0; i < n; ++i) {
        uint8_t *e = f + HEADER + ENTRY * i;
        memcpy(e, s[i].tag, 4);
        wr32(e + E_VERSION, s[i].version);
        wr64(e + E_OFFSET, off);
        wr64(e + E_SIZE, s[i].size);
        wr32(e + E_COUNT, s[i].count);
        if (s[i].size)
            memcpy(f + off, s[i].data, s[i].size);
        wr32(e + E_CRC, sinew_crc32(0, f + off, s[i].size));
        off += (s[i].size + 15) / 16 * 16;
    }
    wr32(f + 12, sinew_crc32(0, f, HEADER + ENTRY * n)); /* CRC field still zero */
    *size = total;
    return f;
}

static uint8_t *assemble(const test_section *s, uint32_t n, size_t *size) { return assemble_version(s, n, 0, size); }

/* The sections of a file, pointing into it. */
static uint32_t split(const uint8_t *file, test_section *s)
{
    uint32_t n = rd32(file + 8);
    for (uint32_t i = 0; i < n; ++i) {
        const uint8_t *e = file + HEADER + ENTRY * i;
        memcpy(s[i].tag, e, 4);
        s[i].version = rd32(e + E_VERSION);
        s[i].count = rd32(e + E_COUNT);
        s[i].data = file + rd64(e + E_OFFSET);
        s[i].size = rd64(e + E_SIZE);
    }
    return n;
}

/* ---------------------------------------------------------------- the test asset */

enum { GRID = 4, GRID_N = GRID * GRID };
static const char grid_meta[] = "name=grid4\nsource=test_asset.c\n";

static uint32_t at(uint32_t i, uint32_t j) { return j * GRID + i; }

/* A 4x4 grid, 0.25 m apart at height 2 m: two pinned corners, one particle of
 * 2 kg, the rest 1 kg. Stretch edges in four colours (even/odd columns of
 * horizontal edges, then even/odd rows of vertical ones), and a fifth colour
 * holding one shear diagonal and one bend whose particles it does not share. */
static sinew_asset *make_grid(void)
{
    sinew_asset *a = sinew_asset_alloc(GRID_N, 2 * 9, 25, 1, 5);
    cr_assert(a);
    for (uint32_t j = 0; j < GRID; ++j)
        for (uint32_t i = 0; i < GRID; ++i)
            a->particles[at(i, j)] = (sinew_particle_rec){0.25f * i, 2.0f, 0.25f * j, 1.0f};
    a->particles[at(0, 3)].w = 0.0f;
    a->particles[at(3, 3)].w = 0.0f;
    a->particles[at(1, 1)].w = 0.5f;

    uint32_t t = 0;
    for (uint32_t j = 0; j + 1 < GRID; ++j)
        for (uint32_t i = 0; i + 1 < GRID; ++i) {
            a->triangles[t++] = (sinew_triangle_rec){{at(i, j), at(i + 1, j), at(i + 1, j + 1)}};
            a->triangles[t++] = (sinew_triangle_rec){{at(i, j), at(i + 1, j + 1), at(i, j + 1)}};
        }

    uint32_t d = 0, c = 0;
    for (uint32_t parity = 0; parity < 2; ++parity, ++c) {
        a->colours[c].distance_begin = d;
        for (uint32_t j = 0; j < GRID; ++j)
            for (uint32_t i = parity; i + 1 < GRID; i += 2)
                a->distances[d++] = (sinew_distance_rec){at(i, j), at(i + 1, j), 0.25f, SINEW_KIND_STRETCH};
        a->colours[c].distance_count = d - a->colours[c].distance_begin;
    }
    for (uint32_t parity = 0; parity < 2; ++parity, ++c) {
        a->colours[c].distance_begin = d;
        for (uint32_t j = parity; j + 1 < GRID; j += 2)
            for (uint32_t i = 0; i < GRID; ++i)
                a->distances[d++] = (sinew_distance_rec){at(i, j), at(i, j + 1), 0.25f, SINEW_KIND_STRETCH};
        a->colours[c].distance_count = d - a->colours[c].distance_begin;
    }
    a->colours[c] = (sinew_colour_rec){d, 1, 0, 1};
    a->distances[d++] = (sinew_distance_rec){at(2, 2), at(3, 3), 0.35355339f, SINEW_KIND_SHEAR};
    a->bends[0] = (sinew_bend_rec){{at(0, 0), at(1, 1), at(1, 0), at(0, 1)}, 0.0f, SINEW_KIND_BEND};
    cr_assert_eq(d, 25);
    cr_assert_eq(c, 4);

    a->meta = malloc(sizeof grid_meta);
    cr_assert(a->meta);
    memcpy(a->meta, grid_meta, sizeof grid_meta);
    return a;
}

static uint8_t *grid_file(size_t *size)
{
    sinew_asset *a = make_grid();
    void *bytes;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s",
                 cap.text);
    sinew_asset_destroy(a);
    return bytes;
}

/* ---------------------------------------------------------------- the finite-element test asset */

static const char solid_meta[] = "name=solid\n";

enum { SOLID_N = 9, SOLID_ELEMENTS = 6, SOLID_COLOURS = 3, SOLID_MATERIALS = 5 };

static void position(const sinew_asset *a, uint32_t v, double x[3])
{
    x[0] = a->particles[v].x;
    x[1] = a->particles[v].y;
    x[2] = a->particles[v].z;
}

/* A tetrahedron element from the rest positions: Dm = [X1-X0, X2-X0, X3-X0],
 * inverted by its adjugate, stored column-major; positively oriented. */
static sinew_element_rec tet(const sinew_asset *a, uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3,
                             uint32_t material)
{
    sinew_element_rec e = {{v0, v1, v2, v3}, SINEW_ELEMENT_TET, material, 0.0f, {0}};
    double x[4][3], d[3][3];
    for (int k = 0; k < 4; ++k)
        position(a, e.v[k], x[k]);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            d[r][c] = x[c + 1][r] - x[0][r];
    double det = d[0][0] * (d[1][1] * d[2][2] - d[2][1] * d[1][2]) -
                 d[0][1] * (d[1][0] * d[2][2] - d[2][0] * d[1][2]) +
                 d[0][2] * (d[1][0] * d[2][1] - d[2][0] * d[1][1]);
    cr_assert_gt(det, 0.0, "test tetrahedron %u %u %u %u is inverted", v0, v1, v2, v3);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            /* inverse[r][c] = cofactor[c][r] / det */
            int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            e.inv_rest[3 * c + r] = (float)((d[r1][c1] * d[r2][c2] - d[r1][c2] * d[r2][c1]) / det);
        }
    e.rest_measure = (float)(det / 6.0);
    return e;
}

/* A membrane triangle lying in a plane y = const, with warp u = x and weft
 * v = z: Dm is 2x2, its inverse in inv_rest[0, 1, 3, 4]. */
static sinew_element_rec membrane(const sinew_asset *a, uint32_t v0, uint32_t v1, uint32_t v2, uint32_t material)
{
    sinew_element_rec e = {{v0, v1, v2, SINEW_NO_VERTEX}, SINEW_ELEMENT_TRIANGLE, material, 0.0f, {0}};
    double x[3][3];
    for (int k = 0; k < 3; ++k)
        position(a, e.v[k], x[k]);
    double d00 = x[1][0] - x[0][0], d01 = x[2][0] - x[0][0], d10 = x[1][2] - x[0][2], d11 = x[2][2] - x[0][2];
    double det = d00 * d11 - d01 * d10;
    cr_assert_neq(det, 0.0);
    e.inv_rest[0] = (float)(d11 / det);
    e.inv_rest[1] = (float)(-d10 / det);
    e.inv_rest[3] = (float)(-d01 / det);
    e.inv_rest[4] = (float)(d00 / det);
    e.rest_measure = (float)(fabs(det) / 2.0);
    return e;
}

static sinew_element_rec spring(const sinew_asset *a, uint32_t v0, uint32_t v1, uint32_t material)
{
    sinew_element_rec e = {{v0, v1, SINEW_NO_VERTEX, SINEW_NO_VERTEX}, SINEW_ELEMENT_SPRING, material, 0.0f, {0}};
    double x[2][3];
    position(a, v0, x[0]);
    position(a, v1, x[1]);
    e.rest_measure = (float)sqrt((x[1][0] - x[0][0]) * (x[1][0] - x[0][0]) + (x[1][1] - x[0][1]) * (x[1][1] - x[0][1]) +
                                 (x[1][2] - x[0][2]) * (x[1][2] - x[0][2]));
    return e;
}

/* A tabulated membrane: warp stiffening, weft linear, shear soft. */
static sinew_material tabulated(void)
{
    sinew_material m = sinew_material_make(SINEW_MATERIAL_TABULATED, 0.0f, 0.0f);
    m.thickness = 4e-4f;
    m.density = 300.0f;
    for (int i = 0; i < SINEW_TABLE_POINTS; ++i) {
        float e = -0.1f + 0.05f * (float)i;
        m.table_strain[0][i] = e;
        m.table_stress[0][i] = 1e6f * e + (e > 0 ? 4e7f * e * e : 0.0f);
        m.table_strain[1][i] = e;
        m.table_stress[1][i] = 2e5f * e;
        m.table_strain[2][i] = e;
        m.table_stress[2][i] = 5e4f * e;
    }
    return m;
}

/* Two tetrahedra sharing a face (particles 0-4), two membrane triangles above
 * them (5-8) and two springs tying the parts together, one of each material
 * model. Element colours: {tet 0, triangle 1}, {tet 2, triangle 3},
 * {spring 4, spring 5}. Rest volume 1/6 + 1/3 m^3.
 *
 *   element  kind      particles     material
 *   0        tet       0 1 2 3       0 stable neo-Hookean
 *   1        triangle  5 6 7         2 StVK
 *   2        tet       1 2 3 4       1 neo-Hookean
 *   3        triangle  6 8 7         3 tabulated
 *   4        spring    4 5           4 spring
 *   5        spring    0 8           4 spring
 */
static sinew_asset *make_solid(void)
{
    sinew_asset *a = sinew_asset_alloc(SOLID_N, 0, 0, 0, 0);
    cr_assert(a);
    cr_assert(sinew_asset_alloc_elements(a, SOLID_ELEMENTS, SOLID_COLOURS, SOLID_MATERIALS));
    static const float x[SOLID_N][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1},
                                        {0, 2, 0}, {1, 2, 0}, {0, 2, 1}, {1, 2, 1}};
    for (uint32_t i = 0; i < SOLID_N; ++i)
        a->particles[i] = (sinew_particle_rec){x[i][0], x[i][1], x[i][2], i == 5 ? 0.0f : 2.0f};
    a->materials[0] = sinew_material_make(SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 1e6f, 0.45f);
    a->materials[1] = sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 5e5f, 0.3f);
    a->materials[2] = sinew_material_make(SINEW_MATERIAL_STVK, 2e6f, 0.25f);
    a->materials[3] = tabulated();
    a->materials[4] = sinew_material_make(SINEW_MATERIAL_SPRING, 0.0f, 0.0f);
    a->materials[4].compliance = 1e-6f;
    a->elements[0] = tet(a, 0, 1, 2, 3, 0);
    a->elements[1] = membrane(a, 5, 6, 7, 2);
    a->elements[2] = tet(a, 1, 2, 3, 4, 1);
    a->elements[3] = membrane(a, 6, 8, 7, 3);
    a->elements[4] = spring(a, 4, 5, 4);
    a->elements[5] = spring(a, 0, 8, 4);
    for (uint32_t c = 0; c < SOLID_COLOURS; ++c)
        a->element_colours[c] = (sinew_element_colour_rec){2 * c, 2};
    a->meta = malloc(sizeof solid_meta);
    cr_assert(a->meta);
    memcpy(a->meta, solid_meta, sizeof solid_meta);
    return a;
}

static uint8_t *solid_file(size_t *size)
{
    sinew_asset *a = make_solid();
    void *bytes;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s",
                 cap.text);
    sinew_asset_destroy(a);
    return bytes;
}

/* ---------------------------------------------------------------- the hierarchy test asset */

/* The grid with a hierarchy of three levels (asset.h lists the invariants):
 *
 *   level 2   0 15                     coarse constraint 0-15
 *   level 1   0 15 3 5 10 12           0-5, 10-15, 3-12 | 5-10, 0-3, 12-15
 *   level 0   all 16
 *
 * Nodes coarsest first: 0 15 | 3 5 10 12 | 1 2 4 6 7 8 9 11 13 14; each node's
 * links follow in node order: 4 nodes of level 1 with 2 parents on level 2,
 * 10 of level 0 with 2 parents (particle 6: 3) on level 1 or 2, 29 links. */
enum { H_LEVELS = 3, H_LINKS = 29, H_DISTANCES = 7, H_COLOURS = 3 };

static sinew_asset *make_hierarchy(void)
{
    sinew_asset *a = make_grid();
    cr_assert(sinew_asset_alloc_hierarchy(a, H_LEVELS, H_LINKS, H_DISTANCES, H_COLOURS));
    const uint32_t rest = SINEW_HIERARCHY_REST_GEODESIC;
    a->levels[0] = (sinew_level_rec){GRID_N, 0, 0, 0, 0, rest, {0, 0}};
    a->levels[1] = (sinew_level_rec){6, 0, 6, 0, 2, rest, {0, 0}};
    a->levels[2] = (sinew_level_rec){2, 6, 1, 2, 1, rest, {0, 0}};
    static const uint32_t order[GRID_N] = {0, 15, 3, 5, 10, 12, 1, 2, 4, 6, 7, 8, 9, 11, 13, 14};
    static const struct {
        uint32_t count, parent[3];
        float weight[3];
    } parents[GRID_N] = {
        [3] = {2, {0, 15}, {0.5f, 0.5f}},        [5] = {2, {0, 15}, {0.75f, 0.25f}},
        [10] = {2, {15, 0}, {0.75f, 0.25f}},     [12] = {2, {0, 15}, {0.5f, 0.5f}},
        [1] = {2, {0, 5}, {0.5f, 0.5f}},         [2] = {2, {3, 5}, {0.5f, 0.5f}},
        [4] = {2, {0, 5}, {0.5f, 0.5f}},         [6] = {3, {5, 10, 3}, {0.25f, 0.25f, 0.5f}},
        [7] = {2, {3, 10}, {0.5f, 0.5f}},        [8] = {2, {12, 5}, {0.5f, 0.5f}},
        [9] = {2, {5, 10}, {0.5f, 0.5f}},        [11] = {2, {10, 15}, {0.5f, 0.5f}},
        [13] = {2, {12, 10}, {0.5f, 0.5f}},      [14] = {2, {15, 10}, {0.5f, 0.5f}},
    };
    uint32_t link = 0;
    for (uint32_t x = 0; x < GRID_N; ++x) {
        uint32_t p = order[x], level = x < 2 ? 2 : x < 6 ? 1 : 0;
        a->nodes[x] = (sinew_node_rec){p, link, parents[p].count, level};
        for (uint32_t k = 0; k < parents[p].count; ++k)
            a->links[link++] = (sinew_link_rec){parents[p].parent[k], parents[p].weight[k]};
    }
    cr_assert_eq(link, H_LINKS);
    const float diagonal = 0.35355339f, long_diagonal = 1.06066017f;
    a->hdistances[0] = (sinew_distance_rec){0, 5, diagonal, SINEW_KIND_STRETCH};
    a->hdistances[1] = (sinew_distance_rec){10, 15, diagonal, SINEW_KIND_STRETCH};
    a->hdistances[2] = (sinew_distance_rec){3, 12, long_diagonal, SINEW_KIND_STRETCH};
    a->hdistances[3] = (sinew_distance_rec){5, 10, diagonal, SINEW_KIND_STRETCH};
    a->hdistances[4] = (sinew_distance_rec){0, 3, 0.75f, SINEW_KIND_STRETCH};
    a->hdistances[5] = (sinew_distance_rec){12, 15, 0.75f, SINEW_KIND_STRETCH};
    a->hdistances[6] = (sinew_distance_rec){0, 15, long_diagonal, SINEW_KIND_STRETCH};
    a->hcolours[0] = (sinew_range_rec){0, 3};
    a->hcolours[1] = (sinew_range_rec){3, 3};
    a->hcolours[2] = (sinew_range_rec){6, 1};
    return a;
}

static uint8_t *hierarchy_file(size_t *size)
{
    sinew_asset *a = make_hierarchy();
    void *bytes;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s",
                 cap.text);
    sinew_asset_destroy(a);
    return bytes;
}

/* Loads from a copy of exactly size bytes, so that the sanitizer catches any
 * read past the end. */
static sinew_result load(const uint8_t *bytes, size_t size, sinew_asset **out)
{
    uint8_t *copy = malloc(size ? size : 1);
    cr_assert(copy);
    if (size)
        memcpy(copy, bytes, size);
    sinew_result r = sinew_asset_load_memory(copy, size, "grid.snw", capture_logger(SINEW_LOG_INFO), out);
    free(copy);
    return r;
}

static void assert_rejected(const uint8_t *bytes, size_t size, const char *needle1, const char *needle2)
{
    sinew_asset *a = (sinew_asset *)1;
    cr_assert_eq(load(bytes, size, &a), SINEW_RESULT_ERROR_BAD_ASSET, "%s", cap.text);
    cr_assert_null(a);
    assert_one_error(needle1, needle2);
}

/* For a file patched on purpose: repairs its CRCs so that the loader gets past
 * the checksums to the check under test. */
static void assert_tampered_rejected(uint8_t *bytes, size_t size, const char *needle1, const char *needle2)
{
    fix_crcs(bytes, size);
    assert_rejected(bytes, size, needle1, needle2);
}

static void assert_same_array(const void *x, const void *y, size_t bytes)
{
    if (bytes)
        cr_assert_eq(memcmp(x, y, bytes), 0);
}

static void assert_assets_equal(const sinew_asset *x, const sinew_asset *y)
{
    cr_assert_eq(x->particle_count, y->particle_count);
    cr_assert_eq(x->triangle_count, y->triangle_count);
    cr_assert_eq(x->distance_count, y->distance_count);
    cr_assert_eq(x->bend_count, y->bend_count);
    cr_assert_eq(x->colour_count, y->colour_count);
    assert_same_array(x->particles, y->particles, x->particle_count * sizeof *x->particles);
    assert_same_array(x->triangles, y->triangles, x->triangle_count * sizeof *x->triangles);
    assert_same_array(x->distances, y->distances, x->distance_count * sizeof *x->distances);
    assert_same_array(x->bends, y->bends, x->bend_count * sizeof *x->bends);
    assert_same_array(x->colours, y->colours, x->colour_count * sizeof *x->colours);
    cr_assert_eq(x->element_count, y->element_count);
    cr_assert_eq(x->element_colour_count, y->element_colour_count);
    cr_assert_eq(x->material_count, y->material_count);
    assert_same_array(x->elements, y->elements, x->element_count * sizeof *x->elements);
    assert_same_array(x->element_colours, y->element_colours, x->element_colour_count * sizeof *x->element_colours);
    assert_same_array(x->materials, y->materials, x->material_count * sizeof *x->materials);
    cr_assert_eq(x->level_count, y->level_count);
    cr_assert_eq(x->link_count, y->link_count);
    cr_assert_eq(x->hdistance_count, y->hdistance_count);
    cr_assert_eq(x->hcolour_count, y->hcolour_count);
    assert_same_array(x->levels, y->levels, x->level_count * sizeof *x->levels);
    assert_same_array(x->nodes, y->nodes, (x->level_count ? x->particle_count : 0) * sizeof *x->nodes);
    assert_same_array(x->links, y->links, x->link_count * sizeof *x->links);
    assert_same_array(x->hdistances, y->hdistances, x->hdistance_count * sizeof *x->hdistances);
    assert_same_array(x->hcolours, y->hcolours, x->hcolour_count * sizeof *x->hcolours);
    cr_assert_eq(x->red_count, y->red_count);
    cr_assert_eq(x->black_count, y->black_count);
    assert_same_array(x->reds, y->reds, x->red_count * sizeof *x->reds);
    assert_same_array(x->blacks, y->blacks, x->black_count * sizeof *x->blacks);
    cr_assert_eq(!x->meta, !y->meta);
    if (x->meta)
        cr_assert_str_eq(x->meta, y->meta);
}

/* ---------------------------------------------------------------- CRC-32 */

Test(asset, crc32_check_value)
{
    cr_assert_eq(sinew_crc32(0, "123456789", 9), 0xCBF43926u);
    cr_assert_eq(sinew_crc32(0, NULL, 0), 0u);
    cr_assert_eq(sinew_crc32(sinew_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u, "chaining as zlib does");
}

/* The table-driven CRC against the bitwise definition, on every byte value. */
Test(asset, crc32_matches_bitwise_definition)
{
    uint8_t data[1024];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof data; ++i) {
        x = x * 1664525u + 1013904223u;
        data[i] = i < 256 ? (uint8_t)i : (uint8_t)(x >> 24);
    }
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < sizeof data; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k)
            crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    cr_assert_eq(sinew_crc32(0, data, sizeof data), ~crc);
}

/* ---------------------------------------------------------------- the asset in memory */

Test(asset, grid_is_valid)
{
    sinew_asset *a = make_grid();
    cr_assert_eq(sinew_asset_validate(a, "grid", capture_logger(SINEW_LOG_DEBUG)), SINEW_RESULT_OK, "%s",
                 cap.text);
    cr_assert_eq(cap.text[0], '\0', "validation of a good asset says nothing:\n%s", cap.text);
    sinew_asset_destroy(a);
}

Test(asset, get_info)
{
    sinew_asset *a = make_grid();
    sinew_asset_info info = sinew_asset_get_info(a);
    cr_assert_eq(info.particle_count, 16);
    cr_assert_eq(info.triangle_count, 18);
    cr_assert_eq(info.distance_count, 25);
    cr_assert_eq(info.bend_count, 1);
    cr_assert_eq(info.colour_count, 5);
    cr_assert_eq(info.pinned_count, 2);
    cr_assert_float_eq(info.total_mass, 15.0f, 1e-6f); /* 13 particles of 1 kg, one of 2 kg */
    const float lo[3] = {0.0f, 2.0f, 0.0f}, hi[3] = {0.75f, 2.0f, 0.75f};
    for (int k = 0; k < 3; ++k) {
        cr_assert_eq(info.bounds_min[k], lo[k]);
        cr_assert_eq(info.bounds_max[k], hi[k]);
    }
    sinew_asset_destroy(a);
}

Test(asset, get_info_of_empty_asset)
{
    sinew_asset *a = sinew_asset_alloc(0, 0, 0, 0, 0);
    cr_assert(a);
    sinew_asset_info info = sinew_asset_get_info(a);
    cr_assert_eq(info.particle_count, 0);
    cr_assert_eq(info.total_mass, 0.0f);
    cr_assert_eq(info.bounds_min[0], 0.0f);
    cr_assert_eq(info.bounds_max[2], 0.0f);
    sinew_asset_destroy(a);
}

/* Each in-memory defect, found by sinew_asset_validate and named. */
Test(asset, validate_names_each_defect)
{
    static const struct {
        const char *needle1, *needle2;
    } cases[] = {
        {"section PART, record 3", "position is not finite"},
        {"section PART, record 4", "inverse mass"},
        {"section TRIS, record 2", "particle index 16 out of range (16 particles)"},
        {"section DIST, record 5", "both ends are particle"},
        {"section DIST, record 6", "rest length"},
        {"section DIST, record 7", "kind 2"},
        {"section BEND, record 0", "appears twice"},
        {"section BEND, record 0", "rest angle"},
        {"section BEND, record 0", "kind 0"},
        {"section COLR, record 1", "ranges begin at distance 9, bend 0 instead of distance 8"},
        {"section COLR, record 4", "run past the end"},
        {"section META, byte 5", "UTF-8"},
        {"section COLR", "exceed the limit of 4096"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        sinew_asset *a = make_grid();
        switch (i) {
        case 0: a->particles[3].y = INFINITY; break;
        case 1: a->particles[4].w = NAN; break;
        case 2: a->triangles[2].v[1] = 16; break;
        case 3: a->distances[5].b = a->distances[5].a; break;
        case 4: a->distances[6].rest = 0.0f; break;
        case 5: a->distances[7].kind = SINEW_KIND_BEND; break;
        case 6: a->bends[0].v[3] = a->bends[0].v[0]; break;
        case 7: a->bends[0].rest_angle = 3.2f; break;
        case 8: a->bends[0].kind = SINEW_KIND_STRETCH; break;
        case 9: a->colours[1].distance_begin++; break;
        case 10: a->colours[4].bend_count = 2; break;
        case 11: a->meta[5] = (char)0xC0; break; /* an overlong lead byte */
        case 12: a->colour_count = SINEW_ASSET_MAX_COLOURS + 1; break;
        }
        cr_assert_eq(sinew_asset_validate(a, "grid", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_ERROR_BAD_ASSET,
                     "case %zu", i);
        assert_one_error(cases[i].needle1, cases[i].needle2);
        cr_assert(strstr(cap.text, "grid: section"), "names the asset: %s", cap.text);
        if (i == 12)
            a->colour_count = 5; /* so destroy sees the real array */
        sinew_asset_destroy(a);
    }
}

/* The float nearest pi is slightly above pi; a single-precision angle may equal it. */
Test(asset, bend_angle_of_float_pi_is_valid)
{
    sinew_asset *a = make_grid();
    a->bends[0].rest_angle = 3.14159265358979f;
    cr_assert_eq(sinew_asset_validate(a, "grid", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    a->bends[0].rest_angle = -3.14159265358979f;
    cr_assert_eq(sinew_asset_validate(a, "grid", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    sinew_asset_destroy(a);
}

Test(asset, serialize_refuses_invalid_asset)
{
    sinew_asset *a = make_grid();
    a->distances[3].a = 99;
    void *bytes = (void *)1;
    size_t size = 1;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, capture_logger(SINEW_LOG_INFO)),
                 SINEW_RESULT_ERROR_BAD_ASSET);
    cr_assert_null(bytes);
    cr_assert_eq(size, 0);
    assert_one_error("section DIST, record 3: particle index 99 out of range", NULL);
    sinew_asset_destroy(a);
}

/* ---------------------------------------------------------------- materials */

Test(material, make_gives_each_model_its_defaults)
{
    for (uint32_t model = 0; model < SINEW_MATERIAL_MODEL_COUNT; ++model) {
        sinew_material m = sinew_material_make((sinew_material_model)model, 3e5f, 0.2f);
        cr_assert_eq(m.model, model);
        cr_assert_eq(m.youngs_modulus, 3e5f);
        cr_assert_eq(m.poisson_ratio, 0.2f);
        int membrane = model == SINEW_MATERIAL_STVK || model == SINEW_MATERIAL_TABULATED;
        cr_assert_eq(m.thickness, membrane ? 1e-3f : 0.0f, "model %u", model);
        cr_assert_eq(m.compliance, 0.0f);
        cr_assert_eq(m.density, 1000.0f);
        cr_assert_eq(m.reserved[0], 0.0f);
        cr_assert_eq(m.reserved[1], 0.0f);
        for (int k = 0; k < 3; ++k)
            for (int i = 0; i < SINEW_TABLE_POINTS; ++i)
                cr_assert(m.table_strain[k][i] == 0.0f && m.table_stress[k][i] == 0.0f);
        /* Every model but the tabulated one is valid as made; its curves are
         * the caller's to fill. */
        sinew_result r = sinew_material_check(&m, "made", capture_logger(SINEW_LOG_DEBUG));
        cr_assert_eq(r, model == SINEW_MATERIAL_TABULATED ? SINEW_RESULT_ERROR_INVALID_ARGUMENT : SINEW_RESULT_OK,
                     "model %u: %s", model, cap.text);
    }
    sinew_material t = tabulated();
    cr_assert_eq(sinew_material_check(&t, "tabulated", capture_logger(SINEW_LOG_DEBUG)), SINEW_RESULT_OK, "%s",
                 cap.text);
    cr_assert_eq(cap.text[0], '\0');
}

/* Each defect, with the message the header promises: where, the field, the value. */
Test(material, check_names_where_field_and_value)
{
    static const struct {
        uint32_t model;
        const char *message;
    } cases[] = {
        {SINEW_MATERIAL_NEO_HOOKEAN, "material 3: poisson_ratio 0.5 is not in [0, 0.5)"},
        {SINEW_MATERIAL_STABLE_NEO_HOOKEAN, "material 3: poisson_ratio -0.1 is not in [0, 0.5)"},
        {SINEW_MATERIAL_STVK, "material 3: youngs_modulus 0 is not > 0"},
        {SINEW_MATERIAL_NEO_HOOKEAN, "material 3: youngs_modulus -5 is not > 0"},
        {SINEW_MATERIAL_STVK, "material 3: thickness 0 is not > 0"},
        {SINEW_MATERIAL_TABULATED, "material 3: thickness -0.001 is not > 0"},
        {SINEW_MATERIAL_SPRING, "material 3: compliance -1e-06 is not >= 0"},
        {SINEW_MATERIAL_TABULATED, "material 3: table_strain[1][4] 0.05 is not above table_strain[1][3] 0.05"},
        {SINEW_MATERIAL_TABULATED, "material 3: table_stress[2][0] nan is not finite"},
        {SINEW_MATERIAL_SPRING, "material 3: density inf is not finite"},
        {SINEW_MATERIAL_NEO_HOOKEAN, "material 3: youngs_modulus nan is not finite"},
        {SINEW_MATERIAL_MODEL_COUNT, "material 3: model 5 is not a known model (0 to 4)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        sinew_material m = cases[i].model == SINEW_MATERIAL_TABULATED
                               ? tabulated()
                               : sinew_material_make((sinew_material_model)cases[i].model, 1e6f, 0.3f);
        switch (i) {
        case 0: m.poisson_ratio = 0.5f; break;
        case 1: m.poisson_ratio = -0.1f; break;
        case 2: m.youngs_modulus = 0.0f; break;
        case 3: m.youngs_modulus = -5.0f; break;
        case 4: m.thickness = 0.0f; break;
        case 5: m.thickness = -1e-3f; break;
        case 6: m.compliance = -1e-6f; break;
        case 7: m.table_strain[1][4] = m.table_strain[1][3]; break;
        case 8: m.table_stress[2][0] = NAN; break;
        case 9: m.density = INFINITY; break;
        case 10: m.youngs_modulus = NAN; break;
        case 11: break;
        }
        cr_assert_eq(sinew_material_check(&m, "material 3", capture_logger(SINEW_LOG_INFO)),
                     SINEW_RESULT_ERROR_INVALID_ARGUMENT, "case %zu", i);
        cr_assert_eq(cap.errors, 1, "case %zu: %s", i, cap.text);
        cr_assert(strstr(cap.text, "[material] "), "case %zu: %s", i, cap.text);
        cr_assert(strstr(cap.text, cases[i].message), "case %zu: expected \"%s\" in:\n%s", i, cases[i].message,
                  cap.text);
    }
}

/* What a model does not use is not checked (beyond being finite), nor are the
 * reserved words. */
Test(material, unused_fields_are_free)
{
    sinew_material m = sinew_material_make(SINEW_MATERIAL_SPRING, -1.0f, 0.7f); /* E, nu: not a spring's */
    m.compliance = 0.0f;
    m.thickness = -2.0f;
    m.reserved[0] = NAN;
    m.reserved[1] = 12.0f;
    cr_assert_eq(sinew_material_check(&m, "spring", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s",
                 cap.text);
    m = sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e6f, 0.0f);
    m.compliance = -1.0f;
    m.table_strain[0][0] = 1.0f; /* tables are the tabulated model's */
    cr_assert_eq(sinew_material_check(&m, "tet", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
}

/* ---------------------------------------------------------------- finite elements in memory */

Test(asset, solid_is_valid)
{
    sinew_asset *a = make_solid();
    cr_assert_eq(sinew_asset_validate(a, "solid", capture_logger(SINEW_LOG_DEBUG)), SINEW_RESULT_OK, "%s",
                 cap.text);
    cr_assert_eq(cap.text[0], '\0', "validation of a good asset says nothing:\n%s", cap.text);
    /* The test's own geometry: inv_rest times Dm is the identity. */
    const sinew_element_rec *e = &a->elements[2];
    double x[4][3];
    for (int k = 0; k < 4; ++k)
        position(a, e->v[k], x[k]);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            double sum = 0.0;
            for (int k = 0; k < 3; ++k)
                sum += e->inv_rest[3 * k + r] * (x[c + 1][k] - x[0][k]);
            cr_assert_float_eq(sum, r == c ? 1.0 : 0.0, 1e-6, "(%d, %d)", r, c);
        }
    sinew_asset_destroy(a);
}

Test(asset, get_info_of_elements)
{
    sinew_asset *a = make_solid();
    sinew_asset_info info = sinew_asset_get_info(a);
    cr_assert_eq(info.particle_count, SOLID_N);
    cr_assert_eq(info.element_count, 6);
    cr_assert_eq(info.tet_count, 2);
    cr_assert_eq(info.membrane_count, 2);
    cr_assert_eq(info.spring_count, 2);
    cr_assert_eq(info.element_colour_count, 3);
    cr_assert_eq(info.material_count, 5);
    cr_assert_float_eq(info.rest_volume, 0.5f, 1e-6f);
    cr_assert_eq(info.distance_count + info.bend_count + info.colour_count, 0);

    uint32_t tets[8];
    sinew_asset_get_tets(a, tets);
    static const uint32_t expected[8] = {0, 1, 2, 3, 1, 2, 3, 4};
    cr_assert_eq(memcmp(tets, expected, sizeof tets), 0);

    sinew_material m;
    cr_assert_eq(sinew_asset_get_material(a, 3, &m), SINEW_RESULT_OK);
    cr_assert_eq(memcmp(&m, &a->materials[3], sizeof m), 0);
    cr_assert_eq(m.model, SINEW_MATERIAL_TABULATED);
    cr_assert_eq(sinew_asset_get_material(a, 5, &m), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    sinew_asset_destroy(a);

    /* Without elements: zeros, and no tetrahedra to copy. */
    a = make_grid();
    info = sinew_asset_get_info(a);
    cr_assert_eq(info.element_count + info.tet_count + info.membrane_count + info.spring_count, 0);
    cr_assert_eq(info.element_colour_count + info.material_count, 0);
    cr_assert_eq(info.rest_volume, 0.0f);
    sinew_asset_get_tets(a, NULL);
    cr_assert_eq(sinew_asset_get_material(a, 0, &m), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    sinew_asset_destroy(a);
}

Test(asset, alloc_elements_replaces_arrays)
{
    sinew_asset *a = make_solid();
    cr_assert(sinew_asset_alloc_elements(a, 2, 1, 1));
    cr_assert_eq(a->element_count, 2);
    cr_assert_eq(a->element_colour_count, 1);
    cr_assert_eq(a->material_count, 1);
    cr_assert_eq(a->elements[1].v[3], 0, "zeroed");
    cr_assert_eq(a->materials[0].model, 0);
    cr_assert(sinew_asset_alloc_elements(a, 0, 0, 0));
    cr_assert_null(a->elements);
    cr_assert_null(a->element_colours);
    cr_assert_null(a->materials);
    cr_assert_eq(sinew_asset_validate(a, "solid", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    sinew_asset_destroy(a);
}

/* Each defect of the ELEM, ECOL and MATL records, found by sinew_asset_validate
 * and named by section and record. */
Test(asset, validate_names_each_element_defect)
{
    static const struct {
        const char *needle1, *needle2;
    } cases[] = {
        /* ELEM */
        {"section ELEM, record 1", "kind 3 is not spring (0), triangle (1) or tetrahedron (2)"},
        {"section ELEM, record 2", "particle index 9 out of range (9 particles)"},
        {"section ELEM, record 0", "particle 0 appears twice"},
        {"section ELEM, record 4", "particle 5 appears twice"},
        {"section ELEM, record 4", "unused vertex slot 2 of a spring holds 0, not 0xFFFFFFFF"},
        {"section ELEM, record 3", "unused vertex slot 3 of a triangle holds 4294967294"},
        {"section ELEM, record 3", "material 5 out of range (5 materials)"},
        {"section ELEM, record 0", "rest volume 0 is not finite and > 0"},
        {"section ELEM, record 4", "rest length -1 is not finite and > 0"},
        {"section ELEM, record 1", "rest area nan is not finite and > 0"},
        {"section ELEM, record 2", "inv_rest[4] inf is not finite"},
        {"section ELEM, record 2", "determinant -0.5: the tetrahedron is not positively oriented"},
        {"section ELEM, record 0", "determinant 0: the tetrahedron is not positively oriented"},
        {"section ELEM, record 1", "inv_rest[8] 1 is not 0"},
        {"section ELEM, record 3", "determinant 0: degenerate triangle"},
        {"section ELEM, record 5", "inv_rest[0] 1 is not 0 (a spring has no rest shape matrix)"},
        {"section ELEM", "exceed the limit of 268435456"},
        /* ECOL */
        {"section ECOL, record 1", "range begins at element 3 instead of 2"}, /* a gap */
        {"section ECOL, record 2", "range begins at element 4 instead of 5"}, /* an overlap */
        {"section ECOL, record 2", "range of 3 elements from 4 runs past the end (6 elements)"},
        {"section ECOL: element colours cover 5 of 6 elements", NULL},
        {"section ECOL: element colours cover 0 of 6 elements", NULL},
        {"section ELEM, record 1", "particle 3 is already used by another element of colour 0"},
        {"section ELEM, record 5", "particle 4 is already used by another element of colour 2"},
        {"section ECOL", "exceed the limit of 4096"},
        /* MATL */
        {"section MATL, record 0", "poisson_ratio 0.5 is not in [0, 0.5)"},
        {"section MATL, record 1", "youngs_modulus 0 is not > 0"},
        {"section MATL, record 2", "thickness 0 is not > 0"},
        {"section MATL, record 3", "table_strain[0][7]"},
        {"section MATL, record 4", "compliance -1 is not >= 0"},
        {"section MATL, record 3", "table_stress[1][2] inf is not finite"},
        {"section MATL, record 4", "model 7 is not a known model"},
        {"section MATL, record 0", "model stable neo-Hookean is for tetrahedra, but element 1 is a triangle"},
        {"section MATL, record 2", "model StVK is for triangles, but element 4 is a spring"},
        {"section MATL, record 4", "model spring is for springs, but element 2 is a tetrahedron"},
        {"section MATL, record 1", "model neo-Hookean is for tetrahedra, but element 3 is a triangle"},
        {"section MATL", "exceed the limit of 65536"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        sinew_asset *a = make_solid();
        sinew_element_rec *e = a->elements;
        sinew_element_colour_rec *ec = a->element_colours;
        sinew_material_rec *m = a->materials;
        uint32_t real_count = 0;
        switch (i) {
        case 0: e[1].kind = 3; break;
        case 1: e[2].v[3] = 9; break;
        case 2: e[0].v[2] = 0; break;
        case 3: e[4].v[0] = 5; break;
        case 4: e[4].v[2] = 0; break;
        case 5: e[3].v[3] = 0xFFFFFFFEu; break;
        case 6: e[3].material = 5; break;
        case 7: e[0].rest_measure = 0.0f; break;
        case 8: e[4].rest_measure = -1.0f; break;
        case 9: e[1].rest_measure = NAN; break;
        case 10: e[2].inv_rest[4] = INFINITY; break;
        case 11: /* inverted: every entry negated, det(-M) = -det(M) = -1 / det(Dm) */
            for (int k = 0; k < 9; ++k)
                e[2].inv_rest[k] = -e[2].inv_rest[k];
            break;
        case 12: memset(e[0].inv_rest, 0, sizeof e[0].inv_rest); break;
        case 13: e[1].inv_rest[8] = 1.0f; break;
        case 14: e[3].inv_rest[0] = e[3].inv_rest[1] = 0.0f; break;
        case 15: e[5].inv_rest[0] = 1.0f; break;
        case 16: real_count = a->element_count, a->element_count = SINEW_ASSET_MAX_RECORDS + 1; break;
        case 17: ec[1].begin = 3, ec[1].count = 1; break;
        case 18: ec[1].count = 3; break;
        case 19: ec[2].count = 3; break;
        case 20: ec[2].count = 1; break;
        case 21: a->element_colour_count = 0; break;
        case 22: e[1].v[2] = 3; break; /* the triangle onto tet 0's particle 3 */
        case 23: e[5].v[0] = 4; break; /* the second spring onto the first one's particle 4 */
        case 24: real_count = a->element_colour_count, a->element_colour_count = SINEW_ASSET_MAX_COLOURS + 1; break;
        case 25: m[0].poisson_ratio = 0.5f; break;
        case 26: m[1].youngs_modulus = 0.0f; break;
        case 27: m[2].thickness = 0.0f; break;
        case 28: m[3].table_strain[0][7] = -1.0f; break;
        case 29: m[4].compliance = -1.0f; break;
        case 30: m[3].table_stress[1][2] = INFINITY; break;
        case 31: m[4].model = 7; break;
        case 32: e[1].material = 0; break;
        case 33: e[4].material = 2; break;
        case 34: e[2].material = 4; break;
        case 35: e[3].material = 1; break;
        case 36: real_count = a->material_count, a->material_count = SINEW_ASSET_MAX_MATERIALS + 1; break;
        }
        cr_assert_eq(sinew_asset_validate(a, "solid", capture_logger(SINEW_LOG_INFO)),
                     SINEW_RESULT_ERROR_BAD_ASSET, "case %zu", i);
        cr_assert_eq(cap.errors, 1, "case %zu: %s", i, cap.text);
        cr_assert(strstr(cap.text, "[asset] solid: section "), "case %zu names the asset: %s", i, cap.text);
        cr_assert(strstr(cap.text, cases[i].needle1), "case %zu: expected \"%s\" in:\n%s", i, cases[i].needle1,
                  cap.text);
        if (cases[i].needle2)
            cr_assert(strstr(cap.text, cases[i].needle2), "case %zu: expected \"%s\" in:\n%s", i,
                      cases[i].needle2, cap.text);
        (void)real_count; /* destroy frees by pointer; the counts do not matter to it */
        sinew_asset_destroy(a);
    }
}

/* Element colours with no elements are empty colours, which a colouring may
 * have; elements without colours are not. */
Test(asset, empty_element_colours_without_elements)
{
    sinew_asset *a = sinew_asset_alloc(1, 0, 0, 0, 0);
    cr_assert(a);
    cr_assert(sinew_asset_alloc_elements(a, 0, 2, 0));
    cr_assert_eq(sinew_asset_validate(a, "empty", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    void *bytes;
    size_t size;
    sinew_asset *b;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    cr_assert_eq(((uint8_t *)bytes)[6], 1, "element colours alone make a 1.1 file");
    cr_assert_eq(load(bytes, size, &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
}

/* ---------------------------------------------------------------- round trips */

Test(asset, round_trip_memory)
{
    sinew_asset *a = make_grid(), *b;
    size_t size;
    uint8_t *bytes = grid_file(&size);
    cr_assert_eq(size % 16, 0);
    cr_assert_eq(load(bytes, size, &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    cr_assert_eq(cap.errors, 0);
    cr_assert(strstr(cap.text, "grid.snw: loaded 16 particles (2 pinned), 18 triangles, 25 distance and 1 "
                               "bending constraints in 5 colours"),
              "%s", cap.text);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
}

Test(asset, round_trip_file)
{
    const char *path = SINEW_TEST_OUT_DIR "/grid.snw";
    sinew_asset *a = make_grid(), *b;
    remove(path);
    cr_assert_eq(sinew_asset_write(a, path, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    FILE *tmp = fopen(SINEW_TEST_OUT_DIR "/grid.snw.tmp", "rb");
    cr_assert_null(tmp, "the temporary file was renamed away");
    /* Writing again replaces the file. */
    cr_assert_eq(sinew_asset_write(a, path, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert_eq(sinew_asset_load(path, capture_logger(SINEW_LOG_INFO), &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    cr_assert(strstr(cap.text, "grid.snw: loaded 16 particles"), "%s", cap.text);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
}

/* No particles, no meta: PART is present with zero records, META absent. */
Test(asset, round_trip_empty_asset)
{
    sinew_asset *a = sinew_asset_alloc(0, 0, 0, 0, 0), *b;
    cr_assert(a);
    void *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    cr_assert_eq(size, 32 + 5 * 32);
    cr_assert_eq(load(bytes, size, &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    cr_assert_null(b->meta);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
}

/* Empty text is kept apart from no text. */
Test(asset, round_trip_empty_meta)
{
    sinew_asset *a = sinew_asset_alloc(1, 0, 0, 0, 0), *b;
    cr_assert(a);
    a->meta = calloc(1, 1);
    void *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    cr_assert_eq(load(bytes, size, &b), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert_str_eq(b->meta, "");
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
}

/* The writer and a layout built from the document alone agree byte for byte. */
Test(asset, writer_matches_document)
{
    size_t size, size2;
    uint8_t *bytes = grid_file(&size);
    test_section s[8];
    uint32_t n = split(bytes, s);
    cr_assert_eq(n, 6);
    static const char *order[] = {"PART", "TRIS", "DIST", "BEND", "COLR", "META"};
    static const uint32_t record_size[] = {16, 12, 16, 24, 16, 1};
    for (uint32_t i = 0; i < n; ++i) {
        cr_assert_eq(memcmp(s[i].tag, order[i], 4), 0);
        cr_assert_eq(s[i].version, 1);
        cr_assert_eq(s[i].size, (uint64_t)s[i].count * record_size[i]);
    }
    cr_assert_eq(s[5].count, strlen(grid_meta));
    uint8_t *again = assemble(s, n, &size2);
    cr_assert_eq(size2, size);
    cr_assert_eq(memcmp(again, bytes, size), 0);
    /* Spot-check a record against the little-endian bytes the document gives. */
    const uint8_t *d17 = s[2].data + 17 * 16;
    cr_assert_eq(rd32(d17), at(1, 2)); /* colour 2: vertical edges of rows 0 and 2 */
    cr_assert_eq(rd32(d17 + 4), at(1, 3));
    cr_assert_eq(rd32(d17 + 8), 0x3E800000u); /* 0.25f */
    cr_assert_eq(rd32(d17 + 12), SINEW_KIND_STRETCH);
    free(again);
    free(bytes);
}

/* Field by field at the offsets of the document's record tables. */
static void encode_particle(uint8_t *p, const sinew_particle_rec *r)
{
    wrf32(p, r->x);
    wrf32(p + 4, r->y);
    wrf32(p + 8, r->z);
    wrf32(p + 12, r->w);
}

static void encode_element(uint8_t *p, const sinew_element_rec *e)
{
    for (int k = 0; k < 4; ++k)
        wr32(p + 4 * k, e->v[k]);
    wr32(p + 16, e->kind);
    wr32(p + 20, e->material);
    wrf32(p + 24, e->rest_measure);
    for (int k = 0; k < 9; ++k)
        wrf32(p + 28 + 4 * k, e->inv_rest[k]);
}

static void encode_material(uint8_t *p, const sinew_material *m)
{
    wr32(p, m->model);
    wrf32(p + 4, m->youngs_modulus);
    wrf32(p + 8, m->poisson_ratio);
    wrf32(p + 12, m->thickness);
    wrf32(p + 16, m->compliance);
    wrf32(p + 20, m->density);
    wrf32(p + 24, m->reserved[0]);
    wrf32(p + 28, m->reserved[1]);
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < SINEW_TABLE_POINTS; ++i) {
            wrf32(p + 32 + 32 * k + 4 * i, m->table_strain[k][i]);
            wrf32(p + 128 + 32 * k + 4 * i, m->table_stress[k][i]);
        }
}

/* A 1.1 file built from the document alone, every payload encoded here from
 * the asset's fields, and the writer's file: the same bytes. */
Test(asset, writer_matches_document_with_elements)
{
    sinew_asset *a = make_solid();
    static uint8_t part[SOLID_N * 16], elem[SOLID_ELEMENTS * 64], ecol[SOLID_COLOURS * 8], matl[SOLID_MATERIALS * 224];
    for (uint32_t i = 0; i < SOLID_N; ++i)
        encode_particle(part + 16 * i, &a->particles[i]);
    for (uint32_t i = 0; i < SOLID_ELEMENTS; ++i)
        encode_element(elem + 64 * i, &a->elements[i]);
    for (uint32_t i = 0; i < SOLID_COLOURS; ++i) {
        wr32(ecol + 8 * i, a->element_colours[i].begin);
        wr32(ecol + 8 * i + 4, a->element_colours[i].count);
    }
    for (uint32_t i = 0; i < SOLID_MATERIALS; ++i)
        encode_material(matl + 224 * i, &a->materials[i]);
    /* The writer's order: the five sections of 1.0, the three of 1.1, META. */
    const test_section s[] = {
        {{'P', 'A', 'R', 'T'}, 1, SOLID_N, part, sizeof part},
        {{'T', 'R', 'I', 'S'}, 1, 0, NULL, 0},
        {{'D', 'I', 'S', 'T'}, 1, 0, NULL, 0},
        {{'B', 'E', 'N', 'D'}, 1, 0, NULL, 0},
        {{'C', 'O', 'L', 'R'}, 1, 0, NULL, 0},
        {{'E', 'L', 'E', 'M'}, 1, SOLID_ELEMENTS, elem, sizeof elem},
        {{'E', 'C', 'O', 'L'}, 1, SOLID_COLOURS, ecol, sizeof ecol},
        {{'M', 'A', 'T', 'L'}, 1, SOLID_MATERIALS, matl, sizeof matl},
        {{'M', 'E', 'T', 'A'}, 1, (uint32_t)strlen(solid_meta), (const uint8_t *)solid_meta, strlen(solid_meta)},
    };
    size_t size, size2;
    uint8_t *mine = assemble_version(s, sizeof s / sizeof s[0], 1, &size2);
    uint8_t *bytes = solid_file(&size);
    cr_assert_eq(rd32(bytes + 4), 0x00010001u, "version 1.1");
    cr_assert_eq(size2, size);
    for (size_t i = 0; i < size; ++i)
        cr_assert_eq(mine[i], bytes[i], "byte %zu: 0x%02x from the document, 0x%02x from the writer", i, mine[i],
                     bytes[i]);
    /* Spot checks against the numbers, not only against the encoder above. */
    cr_assert_eq(rd32(elem + 64 * 2 + 12), 4);                      /* tet 2's fourth particle */
    cr_assert_eq(rd32(elem + 64 * 4 + 8), 0xFFFFFFFFu);             /* a spring's unused slot */
    cr_assert_eq(rd32(elem + 64 * 3 + 16), SINEW_ELEMENT_TRIANGLE); /* kind */
    cr_assert_eq(rd32(matl + 224 * 0), SINEW_MATERIAL_STABLE_NEO_HOOKEAN);
    cr_assert_eq(rd32(matl + 224 * 0 + 4), 0x49742400u); /* 1e6f */
    free(mine);
    free(bytes);
    sinew_asset_destroy(a);
}

Test(asset, round_trip_elements)
{
    sinew_asset *a = make_solid(), *b;
    size_t size;
    uint8_t *bytes = solid_file(&size);
    cr_assert_eq(size % 16, 0);
    cr_assert_eq(load(bytes, size, &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    cr_assert_eq(cap.errors, 0);
    cr_assert(strstr(cap.text, "grid.snw: 6 finite elements in 3 colours, 5 materials"), "%s", cap.text);
    /* Written again: the same bytes. */
    void *again;
    size_t again_size;
    cr_assert_eq(sinew_asset_serialize(b, &again, &again_size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    cr_assert_eq(again_size, size);
    cr_assert_eq(memcmp(again, bytes, size), 0);
    free(again);
    sinew_asset_destroy(b);

    const char *path = SINEW_TEST_OUT_DIR "/solid.snw";
    cr_assert_eq(sinew_asset_write(a, path, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert_eq(sinew_asset_load(path, capture_logger(SINEW_LOG_INFO), &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    sinew_material m;
    cr_assert_eq(sinew_asset_get_material(b, 3, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.table_stress[0][7], a->materials[3].table_stress[0][7]);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
}

/* Materials without elements (a library of them) are kept; they make a 1.1 file. */
Test(asset, round_trip_materials_alone)
{
    sinew_asset *a = sinew_asset_alloc(2, 0, 0, 0, 0), *b;
    cr_assert(a);
    cr_assert(sinew_asset_alloc_elements(a, 0, 0, 1));
    a->materials[0] = tabulated();
    void *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s",
                 cap.text);
    cr_assert_eq(((uint8_t *)bytes)[6], 1);
    cr_assert_eq(size, 32 + 8 * 32 + 32 + 224);
    cr_assert_eq(load(bytes, size, &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
}

/* Without elements and materials the writer writes 1.0 as before 1.1 existed:
 * the same six sections, the same bytes (writer_matches_document, the
 * document's example below), and such a file loads. */
Test(asset, version_1_0_without_elements)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    cr_assert_eq(rd32(bytes + 4), 0x00000001u, "version 1.0");
    cr_assert_eq(rd32(bytes + 8), 6);
    sinew_asset *a;
    cr_assert_eq(load(bytes, size, &a), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert_eq(a->element_count + a->element_colour_count + a->material_count, 0);
    cr_assert_null(a->elements);
    cr_assert_null(a->materials);
    sinew_asset_destroy(a);
    free(bytes);
}

/* A reader knows a section by its tag: ELEM in a file that says 1.0, or a
 * newer minor version, is read all the same. */
Test(asset, sections_are_known_by_tag_not_minor_version)
{
    static const uint16_t minors[] = {0, 2, 0xFFFF};
    sinew_asset *want = make_solid();
    for (size_t i = 0; i < sizeof minors / sizeof minors[0]; ++i) {
        size_t size;
        uint8_t *bytes = solid_file(&size);
        bytes[6] = (uint8_t)minors[i];
        bytes[7] = (uint8_t)(minors[i] >> 8);
        fix_crcs(bytes, size);
        sinew_asset *a;
        cr_assert_eq(load(bytes, size, &a), SINEW_RESULT_OK, "minor %u: %s", minors[i], cap.text);
        assert_assets_equal(want, a);
        sinew_asset_destroy(a);
        free(bytes);
    }
    sinew_asset_destroy(want);
}

/* ---------------------------------------------------------------- the document's examples */

/* The bytes of the hex dump that follows `heading` in docs/asset-format.md:
 * lines "OFFSET: 16 hex bytes   comment". */
static uint8_t *document_example(const char *heading, size_t *size)
{
    FILE *f = fopen(SINEW_TEST_DATA_DIR "/../../docs/asset-format.md", "rb");
    cr_assert(f, "docs/asset-format.md");
    static char text[1 << 17];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    const char *p = strstr(text, heading);
    cr_assert(p, "no heading \"%s\"", heading);
    p = strstr(p, "```");
    cr_assert(p);
    const char *end = strstr(p + 3, "```");
    cr_assert(end);
    uint8_t *bytes = malloc(4096);
    size_t n = 0;
    for (const char *line = p; line && line < end; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        unsigned offset;
        int used = 0;
        if (sscanf(line, "%8x: %n", &offset, &used) != 1 || used != 10)
            continue; /* a caption */
        cr_assert_eq(offset, n, "dump line at 0x%08x, expected 0x%08zx", offset, n);
        for (int k = 0; k < 16; ++k) {
            unsigned byte;
            cr_assert_eq(sscanf(line + used + 3 * k, "%2x", &byte), 1, "line 0x%08x, byte %d", offset, k);
            cr_assert_lt(n, 4096);
            bytes[n++] = (uint8_t)byte;
        }
    }
    cr_assert_gt(n, 0);
    *size = n;
    return bytes;
}

static void assert_writes_document_example(sinew_asset *a, const char *heading)
{
    size_t doc_size, size;
    uint8_t *doc = document_example(heading, &doc_size);
    void *bytes;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s",
                 cap.text);
    cr_assert_eq(size, doc_size, "%s: the writer writes %zu bytes, the page shows %zu", heading, size, doc_size);
    for (size_t i = 0; i < size; ++i)
        cr_assert_eq(((uint8_t *)bytes)[i], doc[i], "%s: byte 0x%zx is 0x%02x, the page says 0x%02x", heading, i,
                     ((uint8_t *)bytes)[i], doc[i]);
    sinew_asset *b;
    cr_assert_eq(load(doc, doc_size, &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    sinew_asset_destroy(b);
    free(bytes);
    free(doc);
}

/* "## Example": a triangle of three particles, format 1.0. */
Test(asset, document_example_1_0)
{
    sinew_asset *a = sinew_asset_alloc(3, 1, 3, 0, 3);
    cr_assert(a);
    a->particles[0] = (sinew_particle_rec){0, 1, 0, 0};
    a->particles[1] = (sinew_particle_rec){1, 1, 0, 1};
    a->particles[2] = (sinew_particle_rec){0, 1, 1, 1};
    a->triangles[0] = (sinew_triangle_rec){{0, 1, 2}};
    a->distances[0] = (sinew_distance_rec){0, 1, 1.0f, SINEW_KIND_STRETCH};
    a->distances[1] = (sinew_distance_rec){1, 2, sqrtf(2.0f), SINEW_KIND_STRETCH};
    a->distances[2] = (sinew_distance_rec){2, 0, 1.0f, SINEW_KIND_STRETCH};
    for (uint32_t c = 0; c < 3; ++c)
        a->colours[c] = (sinew_colour_rec){c, 1, 0, 0};
    a->meta = malloc(sizeof "name=tri\n");
    memcpy(a->meta, "name=tri\n", sizeof "name=tri\n");
    assert_writes_document_example(a, "\n## Example\n");
    sinew_asset_destroy(a);
}

/* "## Example with finite elements": one tetrahedron, format 1.1. */
Test(asset, document_example_1_1)
{
    sinew_asset *a = sinew_asset_alloc(4, 0, 0, 0, 0);
    cr_assert(a);
    cr_assert(sinew_asset_alloc_elements(a, 1, 1, 1));
    a->particles[0] = (sinew_particle_rec){0, 0, 0, 24};
    a->particles[1] = (sinew_particle_rec){0.1f, 0, 0, 24};
    a->particles[2] = (sinew_particle_rec){0, 0.1f, 0, 24};
    a->particles[3] = (sinew_particle_rec){0, 0, 0.1f, 24};
    a->elements[0] = tet(a, 0, 1, 2, 3, 0);
    cr_assert_eq(a->elements[0].inv_rest[0], 10.0f);
    a->element_colours[0] = (sinew_element_colour_rec){0, 1};
    a->materials[0] = sinew_material_make(SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 1e6f, 0.45f);
    assert_writes_document_example(a, "\n## Example with finite elements\n");
    sinew_asset_destroy(a);
}

/* ---------------------------------------------------------------- rejection: structure */

static void assert_every_truncation_rejected(uint8_t *(*make_file)(size_t *))
{
    size_t size;
    uint8_t *bytes = make_file(&size);
    for (size_t len = 0; len < size; ++len) {
        sinew_asset *a = (sinew_asset *)1;
        cr_assert_eq(load(bytes, len, &a), SINEW_RESULT_ERROR_BAD_ASSET, "length %zu", len);
        cr_assert_null(a);
        cr_assert_eq(cap.errors, 1, "length %zu: %s", len, cap.text);
        cr_assert(strstr(cap.text, len < 32 ? "too short" : "truncated"), "length %zu: %s", len, cap.text);
    }
    free(bytes);
}

Test(asset, every_truncation_is_rejected)
{
    assert_every_truncation_rejected(grid_file);
    assert_every_truncation_rejected(solid_file);
    assert_every_truncation_rejected(hierarchy_file);
}

Test(asset, null_bytes_of_size_zero)
{
    sinew_asset *a = (sinew_asset *)1;
    cr_assert_eq(sinew_asset_load_memory(NULL, 0, "nothing", capture_logger(SINEW_LOG_INFO), &a),
                 SINEW_RESULT_ERROR_BAD_ASSET);
    cr_assert_null(a);
    assert_one_error("nothing: 0 bytes is too short", NULL);
}

Test(asset, payload_bit_flip_names_section)
{
    static const char *tags[] = {"PART", "TRIS", "DIST", "BEND", "COLR", "META"};
    size_t size;
    uint8_t *bytes = grid_file(&size);
    for (size_t i = 0; i < 6; ++i) {
        char needle[64];
        uint8_t *payload = bytes + rd64(entry_of(bytes, tags[i]) + E_OFFSET);
        payload[3] ^= 0x10;
        snprintf(needle, sizeof needle, "section %s: payload CRC-32 mismatch", tags[i]);
        assert_rejected(bytes, size, needle, NULL);
        payload[3] ^= 0x10;
    }
    free(bytes);
}

Test(asset, header_crc_mismatch)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    bytes[27] ^= 0x01; /* a reserved header byte: only the CRC notices */
    assert_rejected(bytes, size, "header CRC-32 mismatch", NULL);
    bytes[27] ^= 0x01;
    entry_of(bytes, "COLR")[E_CRC] ^= 0x01; /* the table is covered too */
    assert_rejected(bytes, size, "header CRC-32 mismatch", NULL);
    free(bytes);
}

Test(asset, bad_magic)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    memcpy(bytes, "glTF", 4);
    assert_tampered_rejected(bytes, size, "bad magic", "not a sinew asset");
    free(bytes);
}

Test(asset, major_version_2_is_refused)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    bytes[4] = 2;
    assert_tampered_rejected(bytes, size, "format version 2.0 is not supported", NULL);
    free(bytes);
}

Test(asset, newer_minor_version_is_read)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    bytes[6] = 7;
    fix_crcs(bytes, size);
    sinew_asset *a;
    cr_assert_eq(load(bytes, size, &a), SINEW_RESULT_OK, "%s", cap.text);
    sinew_asset_destroy(a);
    free(bytes);
}

Test(asset, file_size_field_mismatch)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr64(bytes + 16, size + 16);
    assert_tampered_rejected(bytes, size, "header gives a file size of", "truncated");

    /* Bytes appended to a good file. */
    wr64(bytes + 16, size);
    fix_crcs(bytes, size);
    uint8_t *longer = calloc(size + 16, 1);
    memcpy(longer, bytes, size);
    assert_rejected(longer, size + 16, "header gives a file size of", "trailing bytes");
    free(longer);
    free(bytes);
}

Test(asset, too_many_sections)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr32(bytes + 8, 0x10000000u);
    assert_rejected(bytes, size, "section count 268435456 exceeds the limit", NULL);
    wr32(bytes + 8, 200); /* within the limit, but the table would pass the end */
    assert_rejected(bytes, size, "section table of 200 entries", "past the end of the file");
    free(bytes);
}

Test(asset, section_outside_file)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr64(entry_of(bytes, "DIST") + E_OFFSET, size + 16);
    assert_tampered_rejected(bytes, size, "section DIST", "outside the file");

    /* A size so large that offset + size would wrap around 64 bits. */
    free(bytes);
    bytes = grid_file(&size);
    wr64(entry_of(bytes, "TRIS") + E_SIZE, UINT64_MAX - 8);
    assert_tampered_rejected(bytes, size, "section TRIS", "outside the file");
    free(bytes);
}

Test(asset, section_inside_table)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr64(entry_of(bytes, "BEND") + E_OFFSET, 32);
    assert_tampered_rejected(bytes, size, "section BEND: offset 32 lies inside the header or section table", NULL);
    free(bytes);
}

Test(asset, misaligned_section)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    uint8_t *e = entry_of(bytes, "COLR");
    wr64(e + E_OFFSET, rd64(e + E_OFFSET) + 4);
    assert_tampered_rejected(bytes, size, "section COLR", "is not a multiple of 16");
    free(bytes);
}

Test(asset, overlapping_sections)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr64(entry_of(bytes, "TRIS") + E_OFFSET, rd64(entry_of(bytes, "PART") + E_OFFSET) + 16);
    assert_tampered_rejected(bytes, size, "sections PART", "and TRIS");
    cr_assert(strstr(cap.text, "overlap"), "%s", cap.text);
    free(bytes);
}

Test(asset, size_not_a_multiple_of_record_size)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    uint8_t *e = entry_of(bytes, "DIST");
    wr64(e + E_SIZE, rd64(e + E_SIZE) - 4);
    assert_tampered_rejected(bytes, size, "section DIST: size 396 bytes is not 25 records of 16 bytes", NULL);
    free(bytes);
}

/* The count is refused by its limit before anything is allocated from it. */
Test(asset, absurd_count)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr32(entry_of(bytes, "PART") + E_COUNT, 1u << 31);
    assert_tampered_rejected(bytes, size, "section PART: 2147483648 particles exceed the limit of 67108864", NULL);
    free(bytes);
}

Test(asset, unsupported_section_version)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr32(entry_of(bytes, "BEND") + E_VERSION, 2);
    assert_tampered_rejected(bytes, size, "section BEND: version 2 is not supported", NULL);
    free(bytes);
}

Test(asset, meta_with_nul_byte)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    *field_of(bytes, "META", 1, 4, 0) = 0;
    assert_tampered_rejected(bytes, size, "section META, byte 4: text contains a NUL byte", NULL);
    free(bytes);
}

/* ---------------------------------------------------------------- rejection: sections present or not */

Test(asset, unknown_section_is_skipped)
{
    size_t size, size2;
    uint8_t *bytes = grid_file(&size);
    test_section s[8];
    uint32_t n = split(bytes, s);
    static const uint8_t payload[40] = {1, 2, 3};
    /* Between DIST and BEND, with a version this reader never heard of. */
    memmove(&s[4], &s[3], (n - 3) * sizeof s[0]);
    s[3] = (test_section){{'T', 'E', 'T', 'S'}, 9, 5, payload, sizeof payload}; /* reserved, unknown to 1.1 */
    uint8_t *more = assemble(s, n + 1, &size2);

    sinew_asset *a = make_grid(), *b;
    uint8_t *copy = malloc(size2);
    memcpy(copy, more, size2);
    cr_assert_eq(sinew_asset_load_memory(copy, size2, "grid.snw", capture_logger(SINEW_LOG_DEBUG), &b),
                 SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    cr_assert(strstr(cap.text, "skipping unknown section TETS (40 bytes)"), "%s", cap.text);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(copy);
    free(more);
    free(bytes);
}

Test(asset, duplicate_known_section)
{
    size_t size, size2;
    uint8_t *bytes = grid_file(&size);
    test_section s[8];
    uint32_t n = split(bytes, s);
    s[n] = s[2]; /* DIST again */
    uint8_t *more = assemble(s, n + 1, &size2);
    assert_rejected(more, size2, "section DIST appears twice", NULL);
    free(more);
    free(bytes);
}

Test(asset, missing_part)
{
    size_t size, size2;
    uint8_t *bytes = grid_file(&size);
    test_section s[8];
    uint32_t n = split(bytes, s);
    uint8_t *fewer = assemble(s + 1, n - 1, &size2);
    assert_rejected(fewer, size2, "required section PART is missing", NULL);
    free(fewer);
    free(bytes);
}

/* Optional sections may be absent: then they hold zero records. */
Test(asset, part_alone)
{
    size_t size, size2;
    uint8_t *bytes = grid_file(&size);
    test_section s[8];
    split(bytes, s);
    uint8_t *fewer = assemble(s, 1, &size2);
    sinew_asset *a;
    cr_assert_eq(load(fewer, size2, &a), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert_eq(a->particle_count, 16);
    cr_assert_eq(a->triangle_count + a->distance_count + a->bend_count + a->colour_count, 0);
    cr_assert_null(a->meta);
    sinew_asset_destroy(a);
    free(fewer);
    free(bytes);
}

/* ---------------------------------------------------------------- rejection: records, with CRCs repaired */

Test(asset, distance_index_out_of_range)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr32(field_of(bytes, "DIST", 16, 17, 0), 5000);
    assert_tampered_rejected(bytes, size, "grid.snw: section DIST, record 17: particle index 5000 out of range",
                             "(16 particles)");
    free(bytes);
}

Test(asset, colours_not_covering)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr32(field_of(bytes, "COLR", 16, 4, 4), 0); /* the last colour drops its distance */
    assert_tampered_rejected(bytes, size, "section COLR: colours cover 24 of 25 distances", NULL);
    free(bytes);
}

Test(asset, colour_shares_particle)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    /* Colour 0 starts with edges 0-1 and 2-3; make the second 1-3. */
    wr32(field_of(bytes, "DIST", 16, 1, 0), 1);
    assert_tampered_rejected(bytes, size, "section DIST, record 1: particle 1 is already used",
                             "by another constraint of colour 0");
    free(bytes);
}

Test(asset, bend_shares_particle_with_distance_of_its_colour)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr32(field_of(bytes, "BEND", 24, 0, 12), at(2, 2)); /* a wing onto the shear diagonal's end */
    assert_tampered_rejected(bytes, size, "section BEND, record 0: particle 10 is already used",
                             "by another constraint of colour 4");
    free(bytes);
}

Test(asset, nan_position)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wr32(field_of(bytes, "PART", 16, 5, 0), 0x7FC00000u);
    assert_tampered_rejected(bytes, size, "section PART, record 5: position is not finite", NULL);
    free(bytes);
}

Test(asset, negative_inverse_mass)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    wrf32(field_of(bytes, "PART", 16, 6, 12), -1.0f);
    assert_tampered_rejected(bytes, size, "section PART, record 6: inverse mass -1", NULL);
    free(bytes);
}

/* ---------------------------------------------------------------- rejection: finite elements in the file */

Test(asset, element_payload_bit_flip_names_section)
{
    static const char *tags[] = {"ELEM", "ECOL", "MATL"};
    size_t size;
    uint8_t *bytes = solid_file(&size);
    for (size_t i = 0; i < 3; ++i) {
        char needle[64];
        uint8_t *payload = bytes + rd64(entry_of(bytes, tags[i]) + E_OFFSET);
        payload[5] ^= 0x04;
        snprintf(needle, sizeof needle, "section %s: payload CRC-32 mismatch", tags[i]);
        assert_rejected(bytes, size, needle, NULL);
        payload[5] ^= 0x04;
    }
    free(bytes);
}

Test(asset, element_sections_structure)
{
    size_t size;
    uint8_t *bytes = solid_file(&size);
    uint8_t *e = entry_of(bytes, "ELEM");
    wr64(e + E_SIZE, rd64(e + E_SIZE) - 4);
    assert_tampered_rejected(bytes, size, "section ELEM: size 380 bytes is not 6 records of 64 bytes", NULL);
    free(bytes);

    bytes = solid_file(&size);
    wr32(entry_of(bytes, "MATL") + E_COUNT, 1u << 20);
    assert_tampered_rejected(bytes, size, "section MATL: 1048576 materials exceed the limit of 65536", NULL);
    free(bytes);

    bytes = solid_file(&size);
    wr32(entry_of(bytes, "ECOL") + E_COUNT, 4097);
    assert_tampered_rejected(bytes, size, "section ECOL: 4097 element colours exceed the limit of 4096", NULL);
    free(bytes);

    bytes = solid_file(&size);
    wr32(entry_of(bytes, "ECOL") + E_VERSION, 2);
    assert_tampered_rejected(bytes, size, "section ECOL: version 2 is not supported", NULL);
    free(bytes);
}

Test(asset, duplicate_element_section)
{
    size_t size, size2;
    uint8_t *bytes = solid_file(&size);
    test_section s[12];
    uint32_t n = split(bytes, s);
    s[n] = s[7]; /* MATL again */
    uint8_t *more = assemble_version(s, n + 1, 1, &size2);
    assert_rejected(more, size2, "section MATL appears twice", NULL);
    free(more);
    free(bytes);
}

/* Elements without their materials: every material index is out of range. */
Test(asset, elements_without_materials)
{
    size_t size, size2;
    uint8_t *bytes = solid_file(&size);
    test_section s[12];
    uint32_t n = split(bytes, s);
    cr_assert_eq(memcmp(s[7].tag, "MATL", 4), 0);
    memmove(&s[7], &s[8], (n - 8) * sizeof s[0]);
    uint8_t *fewer = assemble_version(s, n - 1, 1, &size2);
    assert_rejected(fewer, size2, "section ELEM, record 0: material 0 out of range (0 materials)", NULL);
    free(fewer);
    free(bytes);
}

Test(asset, element_records_in_file)
{
    size_t size;
    uint8_t *bytes = solid_file(&size);
    wr32(field_of(bytes, "ELEM", 64, 2, 12), 500);
    assert_tampered_rejected(bytes, size, "grid.snw: section ELEM, record 2: particle index 500 out of range",
                             "(9 particles)");
    free(bytes);

    /* Tetrahedron 0 mirrored: the first column of its inverse rest shape negated. */
    bytes = solid_file(&size);
    wrf32(field_of(bytes, "ELEM", 64, 0, 28), -1.0f);
    assert_tampered_rejected(bytes, size, "section ELEM, record 0: inverse rest shape has determinant -1",
                             "not positively oriented");
    free(bytes);

    bytes = solid_file(&size);
    wr32(field_of(bytes, "ECOL", 8, 1, 0), 3);
    assert_tampered_rejected(bytes, size, "section ECOL, record 1: range begins at element 3 instead of 2", NULL);
    free(bytes);

    bytes = solid_file(&size);
    wrf32(field_of(bytes, "MATL", 224, 0, 8), 0.5f);
    assert_tampered_rejected(bytes, size, "section MATL, record 0: poisson_ratio 0.5 is not in [0, 0.5)", NULL);
    free(bytes);

    bytes = solid_file(&size);
    wr32(field_of(bytes, "MATL", 224, 2, 0), SINEW_MATERIAL_SPRING); /* the StVK membrane's material */
    assert_tampered_rejected(bytes, size, "section MATL, record 2: model spring is for springs",
                             "element 1 is a triangle");
    free(bytes);
}

/* ---------------------------------------------------------------- the hierarchy (format 1.2) */

Test(asset, hierarchy_is_valid)
{
    sinew_asset *a = make_hierarchy();
    cr_assert_eq(sinew_asset_validate(a, "hierarchy", capture_logger(SINEW_LOG_DEBUG)), SINEW_RESULT_OK, "%s",
                 cap.text);
    cr_assert_eq(cap.text[0], '\0', "validation of a good asset says nothing:\n%s", cap.text);
    sinew_asset_info info = sinew_asset_get_info(a);
    cr_assert_eq(info.hierarchy_levels, 3);
    cr_assert_eq(info.coarsest_particles, 2);
    cr_assert_eq(info.coarse_distance_count, 7);
    sinew_asset_destroy(a);
}

/* Written as 1.2 with the five sections after the elements' three (empty),
 * read back the same, written again to the same bytes. */
Test(asset, round_trip_hierarchy)
{
    sinew_asset *a = make_hierarchy(), *b;
    size_t size;
    uint8_t *bytes = hierarchy_file(&size);
    cr_assert_eq(rd32(bytes + 4), 0x00020001u, "version 1.2");
    cr_assert_eq(rd32(bytes + 8), 14);
    test_section s[16];
    cr_assert_eq(split(bytes, s), 14);
    static const char *order[] = {"PART", "TRIS", "DIST", "BEND", "COLR", "ELEM", "ECOL",
                                  "MATL", "HLEV", "HNOD", "HLNK", "HDST", "HCOL", "META"};
    static const uint32_t counts[] = {GRID_N, 18, 25, 1, 5, 0, 0, 0, H_LEVELS, GRID_N, H_LINKS, H_DISTANCES,
                                      H_COLOURS};
    for (uint32_t i = 0; i < 14; ++i) {
        cr_assert_eq(memcmp(s[i].tag, order[i], 4), 0, "section %u", i);
        if (i < 13)
            cr_assert_eq(s[i].count, counts[i], "section %s", order[i]);
    }
    cr_assert_eq(load(bytes, size, &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    cr_assert(strstr(cap.text, "grid.snw: hierarchy of 3 levels, 7 coarse constraints"), "%s", cap.text);
    void *again;
    size_t again_size;
    cr_assert_eq(sinew_asset_serialize(b, &again, &again_size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    cr_assert_eq(again_size, size);
    cr_assert_eq(memcmp(again, bytes, size), 0);
    free(again);
    sinew_asset_destroy(b);

    const char *path = SINEW_TEST_OUT_DIR "/hierarchy.snw";
    cr_assert_eq(sinew_asset_write(a, path, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert_eq(sinew_asset_load(path, capture_logger(SINEW_LOG_INFO), &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
}

/* The five sections encoded here field by field from the record tables of
 * docs/asset-format.md: the writer's bytes. */
Test(asset, writer_matches_document_with_hierarchy)
{
    sinew_asset *a = make_hierarchy();
    static uint8_t hlev[H_LEVELS * 32], hnod[GRID_N * 16], hlnk[H_LINKS * 8], hdst[H_DISTANCES * 16],
        hcol[H_COLOURS * 8];
    for (uint32_t i = 0; i < H_LEVELS; ++i) {
        const sinew_level_rec *v = &a->levels[i];
        const uint32_t fields[8] = {v->particle_count, v->distance_begin, v->distance_count, v->colour_begin,
                                    v->colour_count, v->rest, 0, 0};
        for (int k = 0; k < 8; ++k)
            wr32(hlev + 32 * i + 4 * k, fields[k]);
    }
    for (uint32_t i = 0; i < GRID_N; ++i) {
        const sinew_node_rec *v = &a->nodes[i];
        wr32(hnod + 16 * i, v->particle);
        wr32(hnod + 16 * i + 4, v->link_begin);
        wr32(hnod + 16 * i + 8, v->link_count);
        wr32(hnod + 16 * i + 12, v->level);
    }
    for (uint32_t i = 0; i < H_LINKS; ++i) {
        wr32(hlnk + 8 * i, a->links[i].parent);
        wrf32(hlnk + 8 * i + 4, a->links[i].weight);
    }
    for (uint32_t i = 0; i < H_DISTANCES; ++i) {
        const sinew_distance_rec *d = &a->hdistances[i];
        wr32(hdst + 16 * i, d->a);
        wr32(hdst + 16 * i + 4, d->b);
        wrf32(hdst + 16 * i + 8, d->rest);
        wr32(hdst + 16 * i + 12, d->kind);
    }
    for (uint32_t i = 0; i < H_COLOURS; ++i) {
        wr32(hcol + 8 * i, a->hcolours[i].begin);
        wr32(hcol + 8 * i + 4, a->hcolours[i].count);
    }
    size_t size, size2;
    uint8_t *bytes = hierarchy_file(&size);
    test_section s[16];
    uint32_t n = split(bytes, s);
    cr_assert_eq(n, 14);
    const test_section mine[5] = {
        {{'H', 'L', 'E', 'V'}, 1, H_LEVELS, hlev, sizeof hlev},
        {{'H', 'N', 'O', 'D'}, 1, GRID_N, hnod, sizeof hnod},
        {{'H', 'L', 'N', 'K'}, 1, H_LINKS, hlnk, sizeof hlnk},
        {{'H', 'D', 'S', 'T'}, 1, H_DISTANCES, hdst, sizeof hdst},
        {{'H', 'C', 'O', 'L'}, 1, H_COLOURS, hcol, sizeof hcol},
    };
    memcpy(&s[8], mine, sizeof mine); /* after PART TRIS DIST BEND COLR ELEM ECOL MATL, before META */
    uint8_t *doc = assemble_version(s, n, 2, &size2);
    cr_assert_eq(size2, size);
    for (size_t i = 0; i < size; ++i)
        cr_assert_eq(doc[i], bytes[i], "byte %zu: 0x%02x from the document, 0x%02x from the writer", i, doc[i],
                     bytes[i]);
    cr_assert_eq(rd32(hnod + 16 * 9), 6, "node 9 is particle 6");
    cr_assert_eq(rd32(hnod + 16 * 9 + 8), 3, "with three parents");
    cr_assert_eq(rd32(hlnk + 8 * 16 + 4), 0x3F000000u, "the third of weight 0.5");
    free(doc);
    free(bytes);
    sinew_asset_destroy(a);
}

/* Each kind of broken hierarchy in a file, refused naming the section and the
 * record: the CRCs repaired, so the loader's checks see the defect. */
Test(asset, hierarchy_defects_in_file)
{
    static const struct {
        const char *needle1, *needle2;
    } cases[] = {
        {"grid.snw: section HNOD, record 6", "weights of particle 1's parents sum to 1.100000, not 1"},
        {"grid.snw: section HLNK, record 2", "parent 3 of particle 5 is not a particle of level 2"},
        {"grid.snw: section HNOD, record 7", "particle 1 listed twice"},
        {"grid.snw: section HDST, record 1", "shares a particle with another constraint of colour 0"},
        {"grid.snw: section HDST, record 6", "joins particles 0, 5, not both on its level 2"},
        {"grid.snw: section HLNK, record 17", "weight 0 is not in (0, 1]"},
        {"grid.snw: section HLEV, record 1", "ranges begin at constraint 1, colour 0 instead of 0, 0"},
        {"grid.snw: section HNOD, record 2", "level 0, but its place in the list puts it on level 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        size_t size;
        uint8_t *bytes = hierarchy_file(&size);
        switch (i) {
        case 0: wrf32(field_of(bytes, "HLNK", 8, 8, 4), 0.6f); break;  /* particle 1: 0.6 + 0.5 */
        case 1: wr32(field_of(bytes, "HLNK", 8, 2, 0), 3); break;      /* particle 5 onto level 1's 3 */
        case 2: wr32(field_of(bytes, "HNOD", 16, 7, 0), 1); break;     /* particle 2's node says 1 */
        case 3: wr32(field_of(bytes, "HDST", 16, 1, 4), 5); break;     /* 10-15 becomes 10-5, beside 0-5 */
        case 4: wr32(field_of(bytes, "HDST", 16, 6, 4), 5); break;     /* level 2's 0-15 becomes 0-5 */
        case 5: wrf32(field_of(bytes, "HLNK", 8, 17, 4), 0.0f); break; /* particle 7's first parent */
        case 6: wr32(field_of(bytes, "HLEV", 32, 1, 4), 1); break;     /* a gap before level 1's constraints */
        case 7: wr32(field_of(bytes, "HNOD", 16, 2, 12), 0); break;    /* particle 3 is on level 1 */
        }
        assert_tampered_rejected(bytes, size, cases[i].needle1, cases[i].needle2);
        free(bytes);
    }
}

/* One node per particle: a file whose HNOD has one record fewer than PART. */
Test(asset, hierarchy_nodes_not_one_per_particle)
{
    size_t size, size2;
    uint8_t *bytes = hierarchy_file(&size);
    test_section s[16];
    uint32_t n = split(bytes, s);
    cr_assert_eq(memcmp(s[9].tag, "HNOD", 4), 0);
    s[9].count--;
    s[9].size -= 16;
    uint8_t *fewer = assemble_version(s, n, 2, &size2);
    assert_rejected(fewer, size2, "grid.snw: section HNOD: 15 hierarchy nodes for 3 levels and 16 particles", NULL);
    free(fewer);

    /* Nodes without levels, too. */
    s[9].count++;
    s[9].size += 16;
    memmove(&s[8], &s[9], (n - 9) * sizeof s[0]);
    fewer = assemble_version(s, n - 1, 2, &size2);
    assert_rejected(fewer, size2, "section HNOD: 16 hierarchy nodes for 0 levels and 16 particles", NULL);
    free(fewer);
    free(bytes);
}

/* In memory, sinew_asset_validate names the hierarchy's defects alike; the
 * writer refuses them. */
Test(asset, validate_names_each_hierarchy_defect)
{
    static const struct {
        const char *needle1, *needle2;
    } cases[] = {
        {"section HLEV: 1 levels", "a hierarchy has 2 to 32"},
        {"section HLEV, record 2", "rest-length kind 0 (expected 1"},
        {"section HLEV, record 1", "17 particles (level 0 holds all 16"},
        {"section HLEV, record 0", "level 0 owns 1 coarse constraints"},
        {"section HCOL, record 1", "does not continue level 1's constraints"},
        {"section HNOD, record 4", "particle index 16 out of range (16 particles)"},
        {"section HNOD, record 0", "2 parents (particles of the coarsest level have none"},
        {"section HNOD, record 6", "parents [28, +2) run past the 29 links"},
        {"section HDST, record 3", "rest length 0 is not positive and finite"},
        {"section HDST, record 4", "kind 1 (coarse constraints are stretch, 0)"},
        {"section HDST, record 5", "particles 12, 12 (need two distinct of 16)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        sinew_asset *a = make_hierarchy();
        uint32_t levels = a->level_count;
        switch (i) {
        case 0: a->level_count = 1; break;
        case 1: a->levels[2].rest = SINEW_HIERARCHY_REST_POSE; break;
        case 2: a->levels[1].particle_count = 17; break;
        case 3: a->levels[0].distance_count = 1; break;
        case 4: a->hcolours[1].begin = 4; break;
        case 5: a->nodes[4].particle = 16; break;
        case 6: a->nodes[0].link_count = 2; break;
        case 7: a->nodes[6].link_begin = 28; break;
        case 8: a->hdistances[3].rest = 0.0f; break;
        case 9: a->hdistances[4].kind = SINEW_KIND_SHEAR; break;
        case 10: a->hdistances[5].b = 12; break;
        }
        cr_assert_eq(sinew_asset_validate(a, "grid", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_ERROR_BAD_ASSET,
                     "case %zu", i);
        cr_assert_eq(cap.errors, 1, "case %zu: %s", i, cap.text);
        cr_assert(strstr(cap.text, "[asset] grid: "), "case %zu names the asset: %s", i, cap.text);
        cr_assert(strstr(cap.text, cases[i].needle1), "case %zu: expected \"%s\" in:\n%s", i, cases[i].needle1,
                  cap.text);
        cr_assert(strstr(cap.text, cases[i].needle2), "case %zu: expected \"%s\" in:\n%s", i, cases[i].needle2,
                  cap.text);
        void *bytes = (void *)1;
        size_t size = 1;
        cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, capture_logger(SINEW_LOG_INFO)),
                     SINEW_RESULT_ERROR_BAD_ASSET, "case %zu", i);
        cr_assert_null(bytes);
        a->level_count = levels; /* so destroy sees the real arrays */
        sinew_asset_destroy(a);
    }
}

/* Every byte of the file changed three ways with the CRCs repaired, so the
 * deeper checks see it: the loader answers OK or BAD_ASSET, never crashes,
 * never reads out of bounds (the sanitizers watch), never leaks. */
static void assert_single_byte_corruption_handled(uint8_t *(*make_file)(size_t *))
{
    size_t size;
    uint8_t *bytes = make_file(&size);
    uint8_t *bad = malloc(size);
    static const uint8_t masks[] = {0x01, 0x80, 0xFF};
    int rejected = 0;
    for (size_t i = 0; i < size; ++i)
        for (size_t m = 0; m < sizeof masks; ++m) {
            memcpy(bad, bytes, size);
            bad[i] ^= masks[m];
            fix_crcs(bad, size);
            sinew_asset *a = (sinew_asset *)1;
            sinew_result r = load(bad, size, &a);
            cr_assert(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_ASSET, "byte %zu: %s", i,
                      sinew_result_string(r));
            cr_assert_eq(r == SINEW_RESULT_OK, a != NULL, "byte %zu", i);
            cr_assert_eq(cap.errors, r != SINEW_RESULT_OK, "byte %zu: %s", i, cap.text);
            rejected += r != SINEW_RESULT_OK;
            sinew_asset_destroy(a);
        }
    cr_assert_gt(rejected, 0);
    free(bad);
    free(bytes);
}

/* The grid without its shear diagonal, partitioned red (i + j even) and black:
 * a quad network, as the red-black solver takes it. */
static sinew_asset *make_red_black(void)
{
    sinew_asset *a = make_grid();
    a->distance_count = 24; /* the diagonal was last, alone in colour 4 */
    a->colours[4].distance_count = 0;
    cr_assert(sinew_asset_alloc_red_black(a, GRID_N / 2, GRID_N / 2));
    uint32_t r = 0, b = 0;
    for (uint32_t j = 0; j < GRID; ++j)
        for (uint32_t i = 0; i < GRID; ++i) {
            if ((i + j) % 2 == 0)
                a->reds[r++] = at(i, j);
            else
                a->blacks[b++] = at(i, j);
        }
    return a;
}

Test(asset, round_trip_red_black)
{
    sinew_asset *a = make_red_black(), *b;
    cr_assert_eq(sinew_asset_validate(a, "grid.snw", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    void *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    cr_assert_eq(rd32((uint8_t *)bytes + 4), 0x00030001u, "version 1.3");
    test_section s[20];
    uint32_t n = split(bytes, s);
    cr_assert_eq(memcmp(s[n - 3].tag, "PRED", 4), 0);
    cr_assert_eq(memcmp(s[n - 2].tag, "PBLK", 4), 0);
    cr_assert_eq(s[n - 3].count, GRID_N / 2);
    cr_assert_eq(load(bytes, size, &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    sinew_asset_destroy(b);
    free(bytes);
    sinew_asset_destroy(a);
}

/* A partition that is not one: refused naming the section and record. */
Test(asset, red_black_defects)
{
    struct { const char *needle1, *needle2; } cases[] = {
        {"section PRED, record 1", "particle 0 is already red"},
        {"section PBLK, record 0", "particle index 16 out of range (16 particles)"},
        {"section DIST, record 0", "joins particles 0 and 1, both red: not a red-black partition"},
        {"sections PRED, PBLK: 8 red and 7 black particles for 16 particles", NULL},
    };
    for (int k = 0; k < 4; ++k) {
        sinew_asset *a = make_red_black();
        if (k == 0)
            a->reds[1] = a->reds[0];
        else if (k == 1)
            a->blacks[0] = GRID_N;
        else if (k == 2) { /* particle 1 (black) swapped with red particle 2's place */
            a->reds[1] = at(1, 0);
            a->blacks[0] = at(2, 0);
        } else {
            a->black_count = 7;
        }
        cr_assert_eq(sinew_asset_validate(a, "grid.snw", capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_ERROR_BAD_ASSET);
        assert_one_error(cases[k].needle1, cases[k].needle2);
        if (k == 3)
            a->black_count = 8;
        sinew_asset_destroy(a);
    }
}

Test(asset, single_byte_corruption_is_handled)
{
    assert_single_byte_corruption_handled(grid_file);
    assert_single_byte_corruption_handled(solid_file);
    assert_single_byte_corruption_handled(hierarchy_file);
}

/* ---------------------------------------------------------------- files */

Test(asset, missing_file)
{
    const char *path = SINEW_TEST_OUT_DIR "/no-such-asset.snw";
    sinew_asset *a = (sinew_asset *)1;
    cr_assert_eq(sinew_asset_load(path, capture_logger(SINEW_LOG_INFO), &a), SINEW_RESULT_ERROR_IO);
    cr_assert_null(a);
    assert_one_error(path, "cannot open");
}

Test(asset, directory_is_not_an_asset)
{
    sinew_asset *a = (sinew_asset *)1;
    sinew_result r = sinew_asset_load(SINEW_TEST_OUT_DIR, capture_logger(SINEW_LOG_INFO), &a);
    cr_assert(r == SINEW_RESULT_ERROR_IO || r == SINEW_RESULT_ERROR_BAD_ASSET, "%s", sinew_result_string(r));
    cr_assert_null(a);
    assert_one_error(SINEW_TEST_OUT_DIR, NULL);
}

Test(asset, write_into_missing_directory)
{
    const char *path = SINEW_TEST_OUT_DIR "/no/such/dir/grid.snw";
    sinew_asset *a = make_grid();
    cr_assert_eq(sinew_asset_write(a, path, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_ERROR_IO);
    assert_one_error(path, "cannot create");
    sinew_asset_destroy(a);
}
