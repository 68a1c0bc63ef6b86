/* The asset module: CRC-32, validation in memory, materials, round trips, and the writer against the document. */
/* An independent writer built from docs/asset-format.md must agree byte for
 * byte (the document's examples included, read from the page). The loader's
 * refusals: test_asset_reader.c; the hierarchy and red-black sections:
 * test_asset_hierarchy.c; the test assets and helpers: asset_fixture.c. */
#include <criterion/criterion.h>

#include "asset_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
