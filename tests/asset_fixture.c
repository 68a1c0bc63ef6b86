/* The asset tests' shared parts: log capture, byte access, an independent writer and the three test assets. */
#include <criterion/criterion.h>

#include "asset_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- log capture */

struct capture cap;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    struct capture *c = user;
    if (level == SINEW_LOG_ERROR)
        c->errors++;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "[%s] %s\n", id, message);
}

/* A logger into cap, emptied. */
const sinew_logger *capture_logger(sinew_log_level level)
{
    static sinew_logger lg;
    memset(&cap, 0, sizeof cap);
    lg.fn = capture_fn;
    lg.user = &cap;
    lg.level = level;
    return &lg;
}

/* Exactly one error, from the asset module, containing every needle. */
void assert_one_error(const char *needle1, const char *needle2)
{
    cr_assert_eq(cap.errors, 1, "expected one error, got %d:\n%s", cap.errors, cap.text);
    cr_assert(strstr(cap.text, "[asset] "), "message id is not \"asset\":\n%s", cap.text);
    cr_assert(strstr(cap.text, needle1), "message lacks \"%s\":\n%s", needle1, cap.text);
    if (needle2)
        cr_assert(strstr(cap.text, needle2), "message lacks \"%s\":\n%s", needle2, cap.text);
}

/* ---------------------------------------------------------------- bytes */

uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

void wr32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = (uint8_t)(v >> 8 * k);
}

void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

void wrf32(uint8_t *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    wr32(p, v);
}


uint8_t *entry_of(uint8_t *file, const char *tag)
{
    uint32_t n = rd32(file + 8);
    for (uint32_t i = 0; i < n; ++i)
        if (memcmp(file + HEADER + ENTRY * i, tag, 4) == 0)
            return file + HEADER + ENTRY * i;
    cr_assert_fail("no section %s", tag);
    return NULL;
}

/* Field at byte `field` of record `index` of the section. */
uint8_t *field_of(uint8_t *file, const char *tag, uint32_t record_size, uint32_t index, uint32_t field)
{
    return file + rd64(entry_of(file, tag) + E_OFFSET) + (size_t)record_size * index + field;
}

/* Recomputes every payload CRC that lies inside the file, then the header CRC,
 * so that a tampered file gets past the checksums to the check under test. */
void fix_crcs(uint8_t *file, size_t size)
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

/* Lays the sections out as the document says: header, table, then payloads in
 * table order, each at the next multiple of 16 with zero padding. */
uint8_t *assemble_version(const test_section *s, uint32_t n, uint16_t minor, size_t *size)
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

uint8_t *assemble(const test_section *s, uint32_t n, size_t *size) { return assemble_version(s, n, 0, size); }

/* The sections of a file, pointing into it. */
uint32_t split(const uint8_t *file, test_section *s)
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

const char grid_meta[] = "name=grid4\nsource=test_asset.c\n";

uint32_t at(uint32_t i, uint32_t j) { return j * GRID + i; }

/* A 4x4 grid, 0.25 m apart at height 2 m: two pinned corners, one particle of
 * 2 kg, the rest 1 kg. Stretch edges in four colours (even/odd columns of
 * horizontal edges, then even/odd rows of vertical ones), and a fifth colour
 * holding one shear diagonal and one bend whose particles it does not share. */
sinew_asset *make_grid(void)
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

uint8_t *grid_file(size_t *size)
{
    sinew_asset *a = make_grid();
    void *bytes;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s",
                 cap.text);
    sinew_asset_destroy(a);
    return bytes;
}

/* ---------------------------------------------------------------- the finite-element test asset */

const char solid_meta[] = "name=solid\n";

void position(const sinew_asset *a, uint32_t v, double x[3])
{
    x[0] = a->particles[v].x;
    x[1] = a->particles[v].y;
    x[2] = a->particles[v].z;
}

/* A tetrahedron element from the rest positions: Dm = [X1-X0, X2-X0, X3-X0],
 * inverted by its adjugate, stored column-major; positively oriented. */
sinew_element_rec tet(const sinew_asset *a, uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3, uint32_t material)
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
sinew_material tabulated(void)
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
sinew_asset *make_solid(void)
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

uint8_t *solid_file(size_t *size)
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
sinew_asset *make_hierarchy(void)
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

uint8_t *hierarchy_file(size_t *size)
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
sinew_result load(const uint8_t *bytes, size_t size, sinew_asset **out)
{
    uint8_t *copy = malloc(size ? size : 1);
    cr_assert(copy);
    if (size)
        memcpy(copy, bytes, size);
    sinew_result r = sinew_asset_load_memory(copy, size, "grid.snw", capture_logger(SINEW_LOG_INFO), out);
    free(copy);
    return r;
}

void assert_rejected(const uint8_t *bytes, size_t size, const char *needle1, const char *needle2)
{
    sinew_asset *a = (sinew_asset *)1;
    cr_assert_eq(load(bytes, size, &a), SINEW_RESULT_ERROR_BAD_ASSET, "%s", cap.text);
    cr_assert_null(a);
    assert_one_error(needle1, needle2);
}

/* For a file patched on purpose: repairs its CRCs so that the loader gets past
 * the checksums to the check under test. */
void assert_tampered_rejected(uint8_t *bytes, size_t size, const char *needle1, const char *needle2)
{
    fix_crcs(bytes, size);
    assert_rejected(bytes, size, needle1, needle2);
}

static void assert_same_array(const void *x, const void *y, size_t bytes)
{
    if (bytes)
        cr_assert_eq(memcmp(x, y, bytes), 0);
}

void assert_assets_equal(const sinew_asset *x, const sinew_asset *y)
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
    cr_assert_eq(memcmp(x->origin, y->origin, sizeof x->origin), 0, "the origins differ in their bits");
    cr_assert_eq(!x->meta, !y->meta);
    if (x->meta)
        cr_assert_str_eq(x->meta, y->meta);
}
