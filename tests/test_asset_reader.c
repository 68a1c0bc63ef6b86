/* The asset loader's refusals: truncation, structure, sections, records, elements, corruption and files. */
/* Each rejection test asserts that the one error message names what was
 * wrong; every single-byte corruption is answered OK or BAD_ASSET, never a
 * crash. */
#include <criterion/criterion.h>

#include "asset_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
