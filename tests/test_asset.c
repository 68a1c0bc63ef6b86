/* The asset module: in-memory validation, round trips through memory and a
 * file, an independent writer built from docs/asset-format.md that must agree
 * byte for byte, and the loader's refusal of every kind of corruption. Each
 * rejection test asserts the one error message names what was wrong. */
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
static uint8_t *assemble(const test_section *s, uint32_t n, size_t *size)
{
    uint64_t total = HEADER + (uint64_t)ENTRY * n;
    for (uint32_t i = 0; i < n; ++i)
        total += (s[i].size + 15) / 16 * 16;
    uint8_t *f = calloc(total, 1);
    cr_assert(f);
    memcpy(f, "SNWA", 4);
    f[4] = 1; /* major 1, minor 0 */
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

/* ---------------------------------------------------------------- rejection: structure */

Test(asset, every_truncation_is_rejected)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
    for (size_t len = 0; len < size; ++len) {
        sinew_asset *a = (sinew_asset *)1;
        cr_assert_eq(load(bytes, len, &a), SINEW_RESULT_ERROR_BAD_ASSET, "length %zu", len);
        cr_assert_null(a);
        cr_assert_eq(cap.errors, 1, "length %zu: %s", len, cap.text);
        cr_assert(strstr(cap.text, len < 32 ? "too short" : "truncated"), "length %zu: %s", len, cap.text);
    }
    free(bytes);
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
    s[3] = (test_section){{'E', 'L', 'E', 'M'}, 9, 5, payload, sizeof payload};
    uint8_t *more = assemble(s, n + 1, &size2);

    sinew_asset *a = make_grid(), *b;
    uint8_t *copy = malloc(size2);
    memcpy(copy, more, size2);
    cr_assert_eq(sinew_asset_load_memory(copy, size2, "grid.snw", capture_logger(SINEW_LOG_DEBUG), &b),
                 SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    cr_assert(strstr(cap.text, "skipping unknown section ELEM (40 bytes)"), "%s", cap.text);
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

/* Every byte of the file changed three ways with the CRCs repaired, so the
 * deeper checks see it: the loader answers OK or BAD_ASSET, never crashes,
 * never reads out of bounds (the sanitizers watch), never leaks. */
Test(asset, single_byte_corruption_is_handled)
{
    size_t size;
    uint8_t *bytes = grid_file(&size);
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
