/* The asset's particle hierarchy (format 1.2) and red-black partition (1.3): validation, round trips, the writer. */
#include <criterion/criterion.h>

#include "asset_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
