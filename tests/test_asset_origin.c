/* The asset's origin (format 1.7, section ORIG; docs/asset-format.md): kept
 * in double bit for bit through memory and files, absent (and the file as
 * it always was) at the world's origin, 0 for every older file, and refused
 * when not finite or beyond 1e9 m, by the writer, the reader and the
 * setter. The layout is checked against the document's table, field by
 * field, with the fixture's independent byte helpers. */
#include <criterion/criterion.h>

#include "asset_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Far out, and with bits a float or a decimal print would lose. */
static const double far_origin[3] = {10000.000123456789, -0.1, -999999999.99999988};

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static int has_section(const uint8_t *file, const char *tag)
{
    for (uint32_t i = 0; i < rd32(file + 8); ++i)
        if (memcmp(file + HEADER + ENTRY * i, tag, 4) == 0)
            return 1;
    return 0;
}

static uint8_t *serialized(const sinew_asset *a, size_t *size)
{
    void *bytes = NULL;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, size, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s",
                 cap.text);
    return bytes;
}

static uint8_t *far_grid_file(size_t *size)
{
    sinew_asset *a = make_grid();
    cr_assert_eq(sinew_asset_set_origin(a, far_origin, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    uint8_t *bytes = serialized(a, size);
    sinew_asset_destroy(a);
    return bytes;
}

Test(asset_origin, round_trips_bit_for_bit)
{
    sinew_asset *a = make_grid(), *b;
    cr_assert_eq(sinew_asset_set_origin(a, far_origin, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    size_t size;
    uint8_t *bytes = serialized(a, &size);
    cr_assert_eq(load(bytes, size, &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b); /* the origin's bits too */
    double got[3];
    sinew_asset_get_origin(b, got);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(bits_of(got[k]), bits_of(far_origin[k]), "coordinate %d: %.17g", k, got[k]);
    cr_assert(strstr(cap.text, "origin at (10000.00012345679, -0.10000000000000001"), "%s", cap.text);
    sinew_asset_destroy(b);

    /* and through a file */
    const char *path = SINEW_TEST_OUT_DIR "/far_grid.snw";
    cr_assert_eq(sinew_asset_write(a, path, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert_eq(sinew_asset_load(path, capture_logger(SINEW_LOG_INFO), &b), SINEW_RESULT_OK, "%s", cap.text);
    assert_assets_equal(a, b);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
}

/* Version 1.7; every section of the older versions, then META, then ORIG:
 * one 24-byte record, x y z as little-endian binary64 (the document's
 * table). */
Test(asset_origin, layout_follows_the_document)
{
    size_t size;
    uint8_t *bytes = far_grid_file(&size);
    cr_assert_eq(rd32(bytes + 4), 0x00070001u, "version 1.7");
    test_section s[40];
    const uint32_t n = split(bytes, s);
    static const char *order[] = {"PART", "TRIS", "DIST", "BEND", "COLR", "ELEM", "ECOL", "MATL", "HLEV", "HNOD",
                                  "HLNK", "HDST", "HCOL", "PRED", "PBLK", "MLEV", "MTRI", "MPAR", "MCOL", "MVTX",
                                  "CPAS", "CLUS", "CPRT", "CCOL", "CITM", "RVTX", "RIDX", "META", "ORIG"};
    cr_assert_eq(n, sizeof order / sizeof order[0]);
    for (uint32_t i = 0; i < n; ++i)
        cr_assert_eq(memcmp(s[i].tag, order[i], 4), 0, "section %u is %.4s, not %s", i, s[i].tag, order[i]);
    const test_section *o = &s[n - 1];
    cr_assert_eq(o->version, 1);
    cr_assert_eq(o->count, 1);
    cr_assert_eq(o->size, 24);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(rd64(o->data + 8 * k), bits_of(far_origin[k]));
    /* the independent writer agrees byte for byte */
    size_t size2;
    uint8_t *again = assemble_version(s, n, 7, &size2);
    cr_assert_eq(size2, size);
    cr_assert_eq(memcmp(again, bytes, size), 0);
    free(again);
    free(bytes);
}

/* At the world's origin nothing changes: the same bytes as an asset that
 * never had one (1.0 for the grid, 1.1 for the solid). */
Test(asset_origin, none_keeps_the_file_as_it_was)
{
    static const double zero[3] = {0.0, 0.0, 0.0};
    sinew_asset *g = make_grid(), *s = make_solid();
    cr_assert_eq(sinew_asset_set_origin(g, zero, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    size_t size, want_size;
    uint8_t *bytes = serialized(g, &size), *want = grid_file(&want_size);
    cr_assert_eq(size, want_size);
    cr_assert_eq(memcmp(bytes, want, size), 0);
    cr_assert(!has_section(bytes, "ORIG"));
    free(bytes);
    free(want);
    bytes = serialized(s, &size);
    want = solid_file(&want_size);
    cr_assert_eq(size, want_size);
    cr_assert_eq(memcmp(bytes, want, size), 0);
    free(bytes);
    free(want);
    sinew_asset_destroy(g);
    sinew_asset_destroy(s);
}

/* Files of every older version (1.0 grid, 1.1 solid, 1.2 hierarchy) load
 * with the origin at 0, and so does an empty ORIG. */
Test(asset_origin, older_files_load_at_the_origin)
{
    uint8_t *(*files[])(size_t *) = {grid_file, solid_file, hierarchy_file};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t size;
        uint8_t *bytes = files[i](&size);
        cr_assert_lt(rd32(bytes + 4) >> 16, 7u);
        sinew_asset *a;
        cr_assert_eq(load(bytes, size, &a), SINEW_RESULT_OK, "%s", cap.text);
        double o[3] = {1, 1, 1};
        sinew_asset_get_origin(a, o);
        cr_assert(o[0] == 0.0 && o[1] == 0.0 && o[2] == 0.0);
        sinew_asset_destroy(a);
        free(bytes);
    }
    size_t size;
    uint8_t *bytes = far_grid_file(&size);
    uint8_t *e = entry_of(bytes, "ORIG");
    wr32(e + E_COUNT, 0);
    wr64(e + E_SIZE, 0);
    fix_crcs(bytes, size);
    sinew_asset *a;
    cr_assert_eq(load(bytes, size, &a), SINEW_RESULT_OK, "%s", cap.text);
    cr_assert(a->origin[0] == 0.0 && a->origin[1] == 0.0 && a->origin[2] == 0.0);
    sinew_asset_destroy(a);
    free(bytes);
}

/* Not finite or beyond 1e9 m: the reader refuses the file naming ORIG and
 * the coordinate, the writer refuses to write it, the setter leaves the
 * asset as it was; two records are past ORIG's limit of one. */
Test(asset_origin, bad_origins_are_refused)
{
    const double bad[][3] = {{NAN, 0, 0}, {0, INFINITY, 0}, {0, 0, -INFINITY}, {0, 0, 1.0000001e9}};
    const char *axis[] = {"its x coordinate", "its y coordinate", "its z coordinate", "its z coordinate"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t size;
        uint8_t *bytes = far_grid_file(&size);
        uint8_t *e = entry_of(bytes, "ORIG");
        for (int k = 0; k < 3; k++)
            wr64(bytes + rd64(e + E_OFFSET) + 8 * k, bits_of(bad[i][k]));
        assert_tampered_rejected(bytes, size, "section ORIG: origin", axis[i]);
        free(bytes);

        sinew_asset *a = make_grid();
        memcpy(a->origin, bad[i], sizeof a->origin);
        void *out = NULL;
        cr_assert_eq(sinew_asset_serialize(a, &out, &size, capture_logger(SINEW_LOG_INFO)),
                     SINEW_RESULT_ERROR_BAD_ASSET);
        assert_one_error("section ORIG: origin", "beyond 1e+09 m");
        cr_assert_null(out);

        cr_assert_eq(sinew_asset_set_origin(a, far_origin, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
        cr_assert_eq(sinew_asset_set_origin(a, bad[i], capture_logger(SINEW_LOG_INFO)),
                     SINEW_RESULT_ERROR_INVALID_ARGUMENT);
        assert_one_error(axis[i], "the asset's origin is unchanged");
        cr_assert_eq(memcmp(a->origin, far_origin, sizeof far_origin), 0);
        sinew_asset_destroy(a);
    }
    /* 1e9 m itself is a place */
    sinew_asset *a = make_grid();
    const double edge[3] = {1e9, -1e9, 0.0};
    cr_assert_eq(sinew_asset_set_origin(a, edge, capture_logger(SINEW_LOG_INFO)), SINEW_RESULT_OK);
    sinew_asset_destroy(a);

    size_t size;
    uint8_t *bytes = far_grid_file(&size);
    uint8_t *e = entry_of(bytes, "ORIG");
    wr32(e + E_COUNT, 2);
    assert_tampered_rejected(bytes, size, "section ORIG", "2 origins exceed the limit of 1");
    free(bytes);
}
