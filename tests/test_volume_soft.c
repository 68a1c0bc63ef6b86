/* The soft builder: masses, rest shapes, colouring and boundary of soft-body assets, and materials by region. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include "prep/soft.h"
#include "prep/volume.h"
#include "shapes.h"
#include "volume_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ soft builder */

static double det3(const float *m) /* column-major */
{
    return m[0] * ((double)m[4] * m[8] - (double)m[7] * m[5]) - m[3] * ((double)m[1] * m[8] - (double)m[7] * m[2]) +
           m[6] * ((double)m[1] * m[5] - (double)m[4] * m[2]);
}

/* Masses, rest shapes and the colour layout of a body from the Gmsh file. */
Test(soft, bracket_masses_rest_shapes_colours)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/bracket-v2.msh", &quiet, &v), SINEW_RESULT_OK);
    sinew_soft_options o = sinew_soft_options_default();
    o.density = 800.0;
    o.source_name = "bracket";
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(c.warnings, 0, "%s", c.text);
    cr_assert_eq(sinew_asset_validate(a, "bracket", &lg), SINEW_RESULT_OK, "%s", c.text);
    double volume = total_volume(&v);
    cr_assert_float_eq(rep.volume, volume, 1e-12);
    cr_assert_float_eq(rep.total_mass, 800.0 * volume, 1e-9);
    double mass = 0.0;
    for (uint32_t i = 0; i < a->particle_count; i++) {
        cr_assert_gt(a->particles[i].w, 0.0f);
        mass += 1.0 / a->particles[i].w;
    }
    cr_assert_float_eq(mass, 800.0 * volume, 1e-4 * mass);
    cr_assert_eq(a->element_count, 258);
    cr_assert_eq(a->material_count, 1);
    cr_assert_eq(a->materials[0].model, SINEW_MATERIAL_NEO_HOOKEAN);
    cr_assert_float_eq(a->materials[0].youngs_modulus, 1e6f, 1.0f);
    cr_assert_float_eq(a->materials[0].poisson_ratio, 0.45f, 1e-7f);
    cr_assert_float_eq(a->materials[0].density, 800.0f, 1e-3f);
    double rest = 0.0;
    for (uint32_t e = 0; e < a->element_count; e++) {
        const sinew_element_rec *el = &a->elements[e];
        cr_assert_eq(el->kind, SINEW_ELEMENT_TET);
        cr_assert_eq(el->material, 0);
        cr_assert_gt(el->rest_measure, 0.0f);
        /* det(Dm^-1) = 1 / det(Dm) = 1 / (6 V) > 0 */
        double d = det3(el->inv_rest);
        cr_assert_gt(d, 0.0, "element %u", e);
        cr_assert_float_eq(d * 6.0 * el->rest_measure, 1.0, 1e-4, "element %u", e);
        /* Dm^-1 Dm = I from the particle positions. */
        const sinew_particle_rec *p0 = &a->particles[el->v[0]];
        for (int col = 0; col < 3; col++) {
            const sinew_particle_rec *pc = &a->particles[el->v[col + 1]];
            double dm[3] = {pc->x - p0->x, pc->y - p0->y, pc->z - p0->z};
            for (int row = 0; row < 3; row++) {
                double s = 0.0;
                for (int k = 0; k < 3; k++)
                    s += el->inv_rest[3 * k + row] * dm[k];
                cr_assert_float_eq(s, row == col ? 1.0 : 0.0, 1e-4, "element %u (%d, %d)", e, row, col);
            }
        }
        rest += el->rest_measure;
    }
    cr_assert_float_eq(rest, volume, 1e-5);
    /* Colours: ranges back to back, no particle twice in one. */
    cr_assert_eq(a->element_colour_count, rep.colour_count);
    uint32_t *stamp = malloc(sizeof(uint32_t) * a->particle_count);
    memset(stamp, 0xff, sizeof(uint32_t) * a->particle_count);
    uint32_t next = 0;
    for (uint32_t k = 0; k < a->element_colour_count; k++) {
        cr_assert_eq(a->element_colours[k].begin, next);
        cr_assert_gt(a->element_colours[k].count, 0);
        cr_assert_leq(a->element_colours[k].count, rep.largest_colour);
        cr_assert_geq(a->element_colours[k].count, rep.smallest_colour);
        next += a->element_colours[k].count;
        for (uint32_t e = a->element_colours[k].begin; e < next; e++)
            for (int j = 0; j < 4; j++) {
                cr_assert_neq(stamp[a->elements[e].v[j]], k, "colour %u: particle %u twice", k, a->elements[e].v[j]);
                stamp[a->elements[e].v[j]] = k;
            }
    }
    cr_assert_eq(next, a->element_count);
    free(stamp);
    /* The same check by the colouring module, on the sorted elements. */
    uint32_t *offsets = malloc(sizeof(uint32_t) * (a->element_count + 1)), *idx = malloc(16 * a->element_count);
    sinew_colouring col = {a->element_colour_count, malloc(4 * a->element_count), malloc(4 * a->element_colour_count)};
    for (uint32_t k = 0; k < a->element_colour_count; k++) {
        col.sizes[k] = a->element_colours[k].count;
        for (uint32_t e = a->element_colours[k].begin; e < a->element_colours[k].begin + a->element_colours[k].count;
             e++)
            col.colour_of[e] = k;
    }
    for (uint32_t e = 0; e <= a->element_count; e++)
        offsets[e] = 4 * e;
    for (uint32_t e = 0; e < a->element_count; e++)
        memcpy(idx + 4 * e, a->elements[e].v, 16);
    cr_assert(sinew_colouring_is_valid(&col, a->element_count, offsets, idx, a->particle_count));
    sinew_colouring_free(&col);
    free(offsets);
    free(idx);
    /* The boundary: Gmsh's 196 surface triangles, enclosing the volume. */
    cr_assert_eq(a->triangle_count, 196);
    cr_assert(strstr(a->meta, "kind=soft\n") && strstr(a->meta, "model=neo_hookean\n") &&
                  strstr(a->meta, "source=bracket\n"),
              "%s", a->meta);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

/* TetGen's tiny pair: the second tetrahedron reoriented, one vertex unused;
 * materials by region; pins through the dropped vertex's renumbering. */
Test(soft, repairs_regions_pins)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/tiny.node", &quiet, &v), SINEW_RESULT_OK);
    /* Vertex 5, unused, far away. */
    v.positions = realloc(v.positions, sizeof(double) * 18);
    v.positions[15] = v.positions[16] = v.positions[17] = 50.0;
    v.vertex_count = 6;
    sinew_material mats[2] = {sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e5f, 0.3f),
                              sinew_material_make(SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 2e6f, 0.49f)};
    mats[0].density = 1000.0f;
    mats[1].density = 3000.0f;
    const uint32_t regions[2] = {1, 0};
    const uint32_t pins[2] = {4, 5};
    sinew_soft_options o = sinew_soft_options_default();
    o.materials = mats;
    o.material_count = 2;
    o.tet_materials = regions;
    o.pin_indices = pins;
    o.pin_count = 2;
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(rep.flipped_tets, 1);
    cr_assert_eq(rep.dropped_vertices, 1);
    cr_assert(strstr(c.text, "1 tetrahedra were negatively oriented"), "%s", c.text);
    cr_assert(strstr(c.text, "removed 1 vertices that no tetrahedron uses, first: vertex 5"), "%s", c.text);
    cr_assert(strstr(c.text, "1 pins are on removed vertices, first: vertex 5"), "%s", c.text);
    cr_assert_eq(a->particle_count, 5);
    cr_assert_eq(rep.pinned_count, 1);
    cr_assert_eq(a->particles[4].w, 0.0f);
    cr_assert_eq(a->material_count, 2);
    cr_assert_eq(a->materials[1].model, SINEW_MATERIAL_STABLE_NEO_HOOKEAN);
    /* Volumes 1/6 (material 1, 3000) and 1/3 (material 0, 1000). */
    cr_assert_float_eq(rep.volume, 0.5, 1e-12);
    cr_assert_float_eq(rep.total_mass, 3000.0 / 6 + 1000.0 / 3, 1e-9);
    /* Two tetrahedra sharing a face conflict: two colours of one each. */
    cr_assert_eq(a->element_colour_count, 2);
    for (uint32_t e = 0; e < 2; e++) {
        cr_assert_gt(det3(a->elements[e].inv_rest), 0.0);
        int first = a->elements[e].v[0] == 0 && a->elements[e].v[1] == 1;
        cr_assert_eq(a->elements[e].material, first ? 1u : 0u);
    }
    /* The boundary: 6 outer faces of the pair. */
    cr_assert_eq(a->triangle_count, 6);
    cr_assert_eq(sinew_asset_validate(a, "tiny", &lg), SINEW_RESULT_OK, "%s", c.text);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

Test(soft, pin_bottom_and_box)
{
    const double size[3] = {1, 2, 1};
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(3, 5, 3, size, NULL, &v), SINEW_RESULT_OK);
    sinew_soft_options o = sinew_soft_options_default();
    o.pin_bottom = 0.1; /* the lowest layer, y = -1 */
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &quiet, &a, &rep), SINEW_RESULT_OK);
    cr_assert_eq(rep.pinned_count, 9);
    for (uint32_t i = 0; i < a->particle_count; i++)
        cr_assert_eq(a->particles[i].w == 0.0f, a->particles[i].y < -0.9f, "particle %u", i);
    sinew_asset_destroy(a);
    o = sinew_soft_options_default();
    o.pin_box = 1;
    o.box_min[0] = o.box_min[1] = o.box_min[2] = 0.4;
    o.box_max[0] = o.box_max[1] = o.box_max[2] = 10;
    cr_assert_eq(sinew_soft_build(&v, &o, &quiet, &a, &rep), SINEW_RESULT_OK);
    /* x, z = 0.5 and y in {0.5, 1}: 2 vertices. */
    cr_assert_eq(rep.pinned_count, 2);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

Test(soft, options_refused)
{
    const double size[3] = {1, 1, 1};
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(2, 2, 2, size, NULL, &v), SINEW_RESULT_OK);
    sinew_asset *a;
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_soft_options o = sinew_soft_options_default();
    o.model = SINEW_MATERIAL_STVK;
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "material 0: model 3 is not one for tetrahedra"), "%s", c.text);
    cr_assert_null(a);
    o = sinew_soft_options_default();
    o.youngs_modulus = -1;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "material 0"), "%s", c.text);
    o = sinew_soft_options_default();
    o.density = 0;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "density 0 kg/m^3 must be finite and > 0"), "%s", c.text);
    sinew_material mat = sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e6f, 0.4f);
    uint32_t regions[6] = {0, 0, 0, 1, 0, 0};
    o = sinew_soft_options_default();
    o.materials = &mat;
    o.material_count = 1;
    o.tet_materials = regions;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "tetrahedron 3: material 1 out of range (1 materials)"), "%s", c.text);
    const uint32_t pin = 8;
    o = sinew_soft_options_default();
    o.pin_indices = &pin;
    o.pin_count = 1;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "pin index 8 (pin 0) out of range (8 vertices)"), "%s", c.text);
    sinew_volume_free(&v);
}

/* Found by fuzz_msh: slivers whose inverse rest shapes round to floats of
 * determinant <= 0, which the loader would refuse. They used to pass the
 * volume check (then a bound on the mesh's size) and were caught by the
 * builder's own test of the rounded inverse; the volume check, now judging
 * each tetrahedron by its own edges, refuses the first of them, naming it. */
Test(soft, rest_shape_flattened_by_rounding_refused)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/../fuzz/regressions/msh/thin-tetrahedron-float-inverse.msh",
                                   &quiet, &v),
                 SINEW_RESULT_OK);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a;
    cr_assert_eq(sinew_soft_build(&v, NULL, &lg, &a, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert_null(a);
    cr_assert(strstr(c.text, "tetrahedron 5 (0 8 2 13) has volume 3.88e-11 m^3 with a longest edge of 0.707 m: "
                             "degenerate (flat: at most 1e-9 of its longest edge cubed"),
              "%s", c.text);
    sinew_volume_free(&v);
}

/* The asset survives the file format, elements and materials included. */
Test(soft, round_trip_through_the_file_format)
{
    const double size[3] = {1, 1, 1};
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(4, 4, 4, size, NULL, &v), SINEW_RESULT_OK);
    sinew_asset *a, *b;
    cr_assert_eq(sinew_soft_build(&v, NULL, &quiet, &a, NULL), SINEW_RESULT_OK);
    void *bytes;
    size_t n;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &n, NULL), SINEW_RESULT_OK);
    cr_assert_eq(sinew_asset_load_memory(bytes, n, "box", NULL, &b), SINEW_RESULT_OK);
    cr_assert_eq(b->element_count, a->element_count);
    cr_assert_eq(b->element_colour_count, a->element_colour_count);
    cr_assert_arr_eq(b->elements, a->elements, sizeof(sinew_element_rec) * a->element_count);
    cr_assert_arr_eq(b->materials, a->materials, sizeof(sinew_material_rec) * a->material_count);
    sinew_asset_info info = sinew_asset_get_info(b);
    cr_assert_eq(info.tet_count, 162);
    cr_assert_float_eq(info.rest_volume, 1.0f, 1e-5f);
    free(bytes);
    sinew_asset_destroy(a);
    sinew_asset_destroy(b);
    sinew_volume_free(&v);
}

/* ------------------------------------------------------------ materials by region */

static double element_centroid_x(const sinew_asset *a, const sinew_element_rec *e)
{
    double x = 0.0;
    for (int k = 0; k < 4; k++)
        x += a->particles[e->v[k]].x / 4.0;
    return x;
}

/* The bar's regions become materials in increasing order of value: region 3
 * (x > 0.5) is material 0, given its own material and density; region 7
 * (x < 0.5) is material 1, the default. Each half's mass is its own density
 * times its volume, and the asset's META records the mapping. */
Test(soft, regions_become_materials)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/bar-v4-bin.msh", &quiet, &v), SINEW_RESULT_OK);
    sinew_soft_region_material stiff = {3, sinew_material_make(SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 2e7f, 0.3f)};
    stiff.material.density = 3000.0f;
    sinew_soft_options o = sinew_soft_options_default();
    o.density = 500.0;
    o.region_materials = &stiff;
    o.region_material_count = 1;
    o.source_name = "bar";
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a;
    sinew_soft_report rep;
    sinew_soft_region *regions;
    uint32_t count;
    cr_assert_eq(sinew_soft_build_with_regions(&v, &o, &lg, &a, &rep, &regions, &count), SINEW_RESULT_OK, "%s",
                 c.text);
    cr_assert_eq(c.warnings, 0, "%s", c.text);
    cr_assert_eq(sinew_asset_validate(a, "bar", &lg), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(rep.region_count, 2);
    cr_assert_eq(count, 2);
    cr_assert_eq(a->material_count, 2);
    cr_assert_eq(a->materials[0].model, SINEW_MATERIAL_STABLE_NEO_HOOKEAN);
    cr_assert_eq(a->materials[0].youngs_modulus, 2e7f);
    cr_assert_eq(a->materials[0].density, 3000.0f);
    cr_assert_eq(a->materials[1].model, SINEW_MATERIAL_NEO_HOOKEAN);
    cr_assert_eq(a->materials[1].youngs_modulus, 1e6f);
    cr_assert_eq(a->materials[1].density, 500.0f);
    for (uint32_t e = 0; e < a->element_count; e++)
        cr_assert_eq(a->elements[e].material, element_centroid_x(a, &a->elements[e]) > 0.5 ? 0u : 1u, "element %u",
                     e);
    /* Two halves of 0.5 x 0.2 x 0.2 m. */
    const double values[2] = {3, 7}, masses[2] = {0.02 * 3000, 0.02 * 500};
    for (uint32_t k = 0; k < 2; k++) {
        cr_assert_eq(regions[k].value, values[k]);
        cr_assert_eq(regions[k].material, k);
        cr_assert_eq(regions[k].tet_count, 60);
        cr_assert_float_eq(regions[k].volume, 0.02, 1e-12);
        cr_assert_float_eq(regions[k].mass, masses[k], 1e-9);
    }
    cr_assert_float_eq(rep.total_mass, 70.0, 1e-9);
    double mass = 0.0;
    for (uint32_t i = 0; i < a->particle_count; i++)
        mass += 1.0 / a->particles[i].w;
    cr_assert_float_eq(mass, 70.0, 1e-4 * 70.0);
    cr_assert(strstr(a->meta, "\nregions=3:0,7:1\n"), "%s", a->meta);
    cr_assert(strstr(c.text, "bar: region 3 -> material 0 (stable_neo_hookean, E 2e+07 Pa, nu 0.3, 3000 kg/m^3): 60 "
                             "tetrahedra, 0.02 m^3, 60 kg"),
              "%s", c.text);
    cr_assert(strstr(c.text, "bar: region 7 -> material 1 (neo_hookean, E 1e+06 Pa, nu 0.45, 500 kg/m^3)"), "%s",
              c.text);
    /* Through the file format. */
    void *bytes;
    size_t n;
    sinew_asset *b;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &n, NULL), SINEW_RESULT_OK);
    cr_assert_eq(sinew_asset_load_memory(bytes, n, "bar", NULL, &b), SINEW_RESULT_OK);
    cr_assert_arr_eq(b->elements, a->elements, sizeof(sinew_element_rec) * a->element_count);
    cr_assert_arr_eq(b->materials, a->materials, sizeof(sinew_material_rec) * a->material_count);
    cr_assert(strstr(b->meta, "\nregions=3:0,7:1\n"), "%s", b->meta);
    free(bytes);
    sinew_asset_destroy(b);
    free(regions);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

/* The TetGen bar: both regions given densities; the total mass is theirs. A
 * box, without regions, is one region, 0, which may be given a material. */
Test(soft, region_densities_give_the_mass)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/bar-tetgen.ele", &quiet, &v), SINEW_RESULT_OK);
    sinew_soft_region_material rm[2] = {{5, sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e5f, 0.45f)},
                                        {2, sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e7f, 0.3f)}};
    rm[0].material.density = 100.0f;
    rm[1].material.density = 900.0f;
    sinew_soft_options o = sinew_soft_options_default();
    o.region_materials = rm;
    o.region_material_count = 2;
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &quiet, &a, &rep), SINEW_RESULT_OK);
    cr_assert_eq(rep.region_count, 2);
    cr_assert_eq(a->material_count, 2);
    /* Region 2 (x > 0.5) is material 0. */
    cr_assert_eq(a->materials[0].density, 900.0f);
    cr_assert_eq(a->materials[1].density, 100.0f);
    for (uint32_t e = 0; e < a->element_count; e++)
        cr_assert_eq(a->elements[e].material, element_centroid_x(a, &a->elements[e]) > 0.5 ? 0u : 1u, "element %u",
                     e);
    cr_assert_float_eq(rep.total_mass, 0.02 * 900 + 0.02 * 100, 1e-9);
    cr_assert(strstr(a->meta, "\nregions=2:0,5:1\n"), "%s", a->meta);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);

    const double size[3] = {1, 1, 1};
    cr_assert_eq(sinew_volume_box(3, 3, 3, size, NULL, &v), SINEW_RESULT_OK);
    sinew_soft_region_material zero = {0, sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e5f, 0.4f)};
    zero.material.density = 250.0f;
    o = sinew_soft_options_default();
    o.region_materials = &zero;
    o.region_material_count = 1;
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(c.warnings, 0, "%s", c.text);
    cr_assert_eq(a->material_count, 1);
    cr_assert_eq(a->materials[0].youngs_modulus, 1e5f);
    cr_assert_float_eq(rep.total_mass, 250.0, 1e-9);
    cr_assert(strstr(a->meta, "\nregions=0:0\n"), "%s", a->meta);
    sinew_asset_destroy(a);
    /* No regions, none named: no mapping in META. */
    cr_assert_eq(sinew_soft_build(&v, NULL, &quiet, &a, &rep), SINEW_RESULT_OK);
    cr_assert_eq(rep.region_count, 1);
    cr_assert_null(strstr(a->meta, "regions="), "%s", a->meta);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

/* What the builder refuses, or warns about, in materials by region. */
Test(soft, region_materials_refused)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/bar-v2.msh", &quiet, &v), SINEW_RESULT_OK);
    sinew_material nh = sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e6f, 0.4f);
    sinew_soft_region_material rm[2] = {{3, nh}, {3, nh}};
    sinew_soft_options o = sinew_soft_options_default();
    o.source_name = "bar";
    o.region_materials = rm;
    o.region_material_count = 2;
    sinew_asset *a;
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(a);
    cr_assert(strstr(c.text, "bar: region 3 is given two materials (region materials 0 and 1)"), "%s", c.text);

    o.region_material_count = 1;
    o.materials = &nh;
    o.material_count = 1;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "materials by region and a materials table both given"), "%s", c.text);

    /* An explicit table takes the place of the regions. */
    o.region_material_count = 0;
    lg = capture_logger(&c);
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert(strstr(c.text, "bar: the mesh's regions are not used: the options give the materials table"), "%s",
              c.text);
    cr_assert_eq(rep.region_count, 0);
    cr_assert_eq(a->material_count, 1);
    sinew_asset_destroy(a);

    o = sinew_soft_options_default();
    o.source_name = "bar";
    rm[1].region = 7;
    rm[1].material = sinew_material_make(SINEW_MATERIAL_STVK, 1e6f, 0.3f);
    o.region_materials = rm;
    o.region_material_count = 2;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "bar: region 7 (material 1): model 3 is not one for tetrahedra"), "%s", c.text);
    rm[1].material = nh;
    rm[1].material.density = 0.0f;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "bar: region 7 (material 1): density 0 kg/m^3 must be finite and > 0"), "%s", c.text);

    /* A region the mesh lacks: warned about, the rest built. */
    rm[1].material = nh;
    rm[1].region = 9;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert(strstr(c.text, "bar: 1 regions given a material have no tetrahedra in the mesh, first: region 9 (the "
                             "mesh's regions: 3, 7)"),
              "%s", c.text);
    cr_assert_eq(a->material_count, 2);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}
