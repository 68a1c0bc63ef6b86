/* The tabulated fabric reader: shipped examples, curves kept, refined or simplified, and malformed files refused. */
#include <criterion/criterion.h>

#include "cloth_fixture.h"
#include "prep/cloth.h"
#include "prep/fabric.h"
#include "math/xpbd_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ fabrics */

#ifdef SINEW_HAVE_CJSON
#define NEED_CJSON()
#else
#define NEED_CJSON() cr_skip_test("built without cJSON")
#endif

#define FABRICS SINEW_TEST_DATA_DIR "/../../data/fabrics/"

static sinew_result parse(const char *text, capture *c, sinew_material *out)
{
    sinew_logger lg = capture_logger(c);
    return sinew_fabric_parse(text, strlen(text), "test.json", &lg, out);
}

/* Stress at x on a material's curve k, linear beyond the ends. */
static double table_stress(const sinew_material *m, int k, double x)
{
    const float *s = m->table_strain[k], *y = m->table_stress[k];
    int i = 1;
    while (i + 1 < SINEW_TABLE_POINTS && s[i] < x)
        i++;
    return y[i - 1] + (x - s[i - 1]) / (s[i] - s[i - 1]) * (y[i] - y[i - 1]);
}

static void check_table(const sinew_material *m)
{
    for (int k = 0; k < 3; k++)
        for (int i = 1; i < SINEW_TABLE_POINTS; i++) {
            cr_assert_gt(m->table_strain[k][i], m->table_strain[k][i - 1]);
            cr_assert_geq(m->table_stress[k][i], m->table_stress[k][i - 1]);
        }
}

Test(fabric, shipped_examples_load)
{
    NEED_CJSON();
    const char *names[] = {"woven_cotton", "knit_jersey", "denim"};
    const double thickness[] = {3e-4, 6e-4, 7e-4}, density[] = {0.12, 0.16, 0.40};
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, FABRICS "%s.json", names[i]);
        sinew_material f;
        capture c;
        sinew_logger lg = capture_logger(&c);
        cr_assert_eq(sinew_fabric_read(path, &lg, &f), SINEW_RESULT_OK, "%s: %s", path, c.text);
        cr_assert_eq(f.model, SINEW_MATERIAL_TABULATED);
        cr_assert_eq(f.thickness, (float)thickness[i]);
        cr_assert_eq(f.density, (float)density[i]);
        check_table(&f);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(f.table_strain[k][0], 0.0f);
    }
    /* The cotton's points as in the file, N/m divided by the thickness. */
    sinew_material f;
    cr_assert_eq(sinew_fabric_read(FABRICS "woven_cotton.json", NULL, &f), SINEW_RESULT_OK);
    const float warp_strain[8] = {0, 0.005f, 0.01f, 0.02f, 0.03f, 0.04f, 0.06f, 0.08f};
    const double warp_force[8] = {0, 15, 40, 120, 270, 470, 950, 1450};
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(f.table_strain[0][i], warp_strain[i]);
        cr_assert_eq(f.table_stress[0][i], (float)(warp_force[i] / 3e-4));
    }
    /* The knit's shear has 7 points: an eighth halfway along the longest interval. */
    cr_assert_eq(sinew_fabric_read(FABRICS "knit_jersey.json", NULL, &f), SINEW_RESULT_OK);
    cr_assert_eq(f.table_strain[2][2], 0.1f);
    cr_assert_eq(f.table_strain[2][3], 0.2f);
    cr_assert_float_eq(f.table_strain[2][7], 0.5f, 1e-7f);
    /* The knit is soft and anisotropic: the wales (warp) stiffer than the courses. */
    cr_assert_gt(table_stress(&f, 0, 0.3), 3.0 * table_stress(&f, 1, 0.3));
    /* It builds into a cloth asset with the fabric as its one material. */
    sinew_mesh m;
    bumpy_grid(&m);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.membrane = SINEW_MATERIAL_TABULATED;
    opt.membrane_material = f;
    opt.density = f.density;
    sinew_cloth_report rep;
    sinew_asset *a = build(&m, &opt, NULL, &rep);
    cr_assert_eq(a->material_count, 1);
    cr_assert_arr_eq(&a->materials[0], &f, sizeof f);
    cr_assert(strstr(a->meta, "membrane=tabulated\n"), "%s", a->meta);
    sinew_asset_destroy(a);
    sinew_mesh_free(&m);
}

#define GOOD_HEAD "{\"thickness\": 0.001, \"areal_density\": 0.2, "
#define CURVE8 "[[0, 0], [0.01, 1e4], [0.02, 3e4], [0.03, 6e4], [0.05, 1.2e5], [0.1, 3e5], [0.2, 7e5], [0.4, 1.6e6]]"

Test(fabric, eight_points_in_pascal_kept_exactly)
{
    NEED_CJSON();
    sinew_material f;
    capture c;
    cr_assert_eq(parse(GOOD_HEAD "\"warp\": " CURVE8 ", \"weft\": " CURVE8 ", \"shear\": " CURVE8 "}", &c, &f),
                 SINEW_RESULT_OK, "%s", c.text);
    const float x[8] = {0, 0.01f, 0.02f, 0.03f, 0.05f, 0.1f, 0.2f, 0.4f};
    const float y[8] = {0, 1e4f, 3e4f, 6e4f, 1.2e5f, 3e5f, 7e5f, 1.6e6f};
    for (int k = 0; k < 3; k++) {
        cr_assert_arr_eq(f.table_strain[k], x, sizeof x);
        cr_assert_arr_eq(f.table_stress[k], y, sizeof y);
    }
    cr_assert_eq(f.thickness, 0.001f);
    cr_assert_eq(f.density, 0.2f);
}

/* Fewer points are refined without changing the curve; a curve through zero
 * strain without a point there gets one, at stress 0. */
Test(fabric, short_curves_refined_exactly)
{
    NEED_CJSON();
    sinew_material f;
    capture c;
    cr_assert_eq(parse(GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1e5]], \"weft\": [[-0.2, -1e3], [0, 0], [0.05, 2e3], "
                                 "[0.5, 9e4]], \"shear\": [[-0.3, -3e3], [0.3, 3e3]]}",
                       &c, &f),
                 SINEW_RESULT_OK, "%s", c.text);
    check_table(&f);
    cr_assert_eq(f.table_strain[0][0], 0.0f);
    cr_assert_eq(f.table_strain[0][7], 0.1f);
    cr_assert_eq(f.table_strain[1][0], -0.2f);
    cr_assert_eq(f.table_strain[1][7], 0.5f);
    cr_assert_eq(f.table_strain[2][0], -0.3f);
    cr_assert_eq(f.table_strain[2][7], 0.3f);
    int zero = 0;
    for (int i = 0; i < 8; i++)
        if (f.table_strain[2][i] == 0.0f)
            zero += f.table_stress[2][i] == 0.0f;
    cr_assert_eq(zero, 1);
    const double weft_x[4] = {-0.2, 0, 0.05, 0.5}, weft_y[4] = {-1e3, 0, 2e3, 9e4};
    for (double x = -0.2; x <= 0.5; x += 0.01) {
        cr_assert_float_eq(table_stress(&f, 0, x < 0 ? 0 : x > 0.1 ? 0.1 : x), 1e6 * (x < 0 ? 0 : x > 0.1 ? 0.1 : x),
                           1.0);
        cr_assert_float_eq(table_stress(&f, 2, x), 1e4 * x, 0.01);
        int i = x < 0 ? 1 : x < 0.05 ? 2 : 3;
        double expect = weft_y[i - 1] + (x - weft_x[i - 1]) / (weft_x[i] - weft_x[i - 1]) * (weft_y[i] - weft_y[i - 1]);
        cr_assert_float_eq(table_stress(&f, 1, x), expect, 0.05);
    }
}

/* A long curve: the ends and zero kept, the other points among the file's,
 * chosen so the curve through them stays close. */
Test(fabric, long_curves_simplified)
{
    NEED_CJSON();
    char text[8192];
    int n = snprintf(text, sizeof text, GOOD_HEAD "\"warp\": [");
    double xs[41], ys[41];
    for (int i = 0; i < 41; i++) {
        xs[i] = -0.1 + 0.01 * i;
        ys[i] = xs[i] < 0 ? 2e5 * xs[i] : 1e6 * xs[i] + 3e7 * xs[i] * xs[i] * xs[i];
        n += snprintf(text + n, sizeof text - (size_t)n, "%s[%.17g, %.17g]", i ? ", " : "", xs[i], ys[i]);
    }
    snprintf(text + n, sizeof text - (size_t)n, "], \"weft\": " CURVE8 ", \"shear\": " CURVE8 "}");
    sinew_material f;
    capture c;
    cr_assert_eq(parse(text, &c, &f), SINEW_RESULT_OK, "%s", c.text);
    check_table(&f);
    cr_assert_eq(f.table_strain[0][0], (float)xs[0]);
    cr_assert_eq(f.table_strain[0][7], (float)xs[40]);
    int has_zero = 0;
    for (int i = 0; i < 8; i++) {
        int found = 0;
        for (int j = 0; j < 41; j++)
            found |= f.table_strain[0][i] == (float)xs[j] &&
                     (f.table_stress[0][i] == (float)ys[j] || (xs[j] == 0.0 && f.table_stress[0][i] == 0.0f));
        cr_assert(found, "point %d (%g, %g) is not one of the file's", i, f.table_strain[0][i], f.table_stress[0][i]);
        has_zero |= f.table_strain[0][i] == 0.0f && f.table_stress[0][i] == 0.0f;
    }
    cr_assert(has_zero);
    double worst = 0.0;
    for (int j = 0; j < 41; j++)
        worst = fmax(worst, fabs(table_stress(&f, 0, xs[j]) - ys[j]));
    /* The largest stress is 1.2e6 Pa; the cubic is kept to within 3 % of it. */
    cr_assert_lt(worst, 0.03 * ys[40], "worst %g", worst);
}

Test(fabric, stress_in_newton_per_metre_divided_by_thickness)
{
    NEED_CJSON();
    sinew_material f;
    capture c;
    cr_assert_eq(parse("{\"thickness\": 0.0005, \"areal_density\": 0.1, \"stress_unit\": \"N/m\", \"warp\": "
                       "[[0, 0], [0.1, 50]], \"weft\": [[0, 0], [0.1, 50]], \"shear\": [[0, 0], [0.1, 5]]}",
                       &c, &f),
                 SINEW_RESULT_OK, "%s", c.text);
    cr_assert_float_eq(f.table_stress[0][7], 1e5f, 1e-1f);
    cr_assert_float_eq(f.table_stress[2][7], 1e4f, 1e-2f);
}

#define CURVE2 "[[0, 0], [0.1, 1e5]]"
#define REST "\"weft\": " CURVE2 ", \"shear\": " CURVE2 "}"

Test(fabric, malformed_files_refused)
{
    NEED_CJSON();
    static char huge[200000];
    int n = snprintf(huge, sizeof huge, GOOD_HEAD "\"warp\": [");
    for (int i = 0; i < 5000; i++)
        n += snprintf(huge + n, sizeof huge - (size_t)n, "%s[%d, %d]", i ? "," : "", i, i);
    snprintf(huge + n, sizeof huge - (size_t)n, "], " REST);
    struct {
        const char *text, *message;
    } cases[] = {
        {"{\"areal_density\": 0.2, \"warp\": " CURVE2 ", " REST, "key \"thickness\": missing (m)"},
        {"{\"thickness\": 0.001, \"warp\": " CURVE2 ", " REST, "key \"areal_density\": missing (kg/m^2)"},
        {GOOD_HEAD REST, "key \"warp\": missing (an array of [strain, stress] pairs)"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"shear\": " CURVE2 "}", "key \"weft\": missing"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": " CURVE2 "}", "key \"shear\": missing"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": [[0, 0], [0.02, 1], [0.01, 2]], \"shear\": " CURVE2 "}",
         "key \"weft\": point 2: strain 0.01 does not increase (the previous is 0.02)"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1], [0.1, 2]], " REST, "key \"warp\": point 2: strain 0.1 does not increase"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, NaN]], " REST, "key \"warp\": not valid JSON at line 1, column 6"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": [[0, 0], [nan, 1]], \"shear\": " CURVE2 "}",
         "key \"weft\": not valid JSON"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1e999]], " REST, "key \"warp\": point 1: stress inf Pa is not in"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": " CURVE2 ", \"shear\": [[0, 0]]}",
         "key \"shear\": 1 points; a curve needs at least 2"},
        {GOOD_HEAD "\"warp\": [], " REST, "key \"warp\": 0 points; a curve needs at least 2"},
        {"{\"thickness\": \"0.001\", \"areal_density\": 0.2, \"warp\": " CURVE2 ", " REST,
         "key \"thickness\": not a number (m)"},
        {"{\"thickness\": 0.3, \"areal_density\": 0.2, \"warp\": " CURVE2 ", " REST,
         "key \"thickness\": 0.3 m is not in (0, 0.1]"},
        {"{\"thickness\": 0.001, \"areal_density\": 150, \"warp\": " CURVE2 ", " REST,
         "key \"areal_density\": 150 kg/m^2 is not in (0, 100]"},
        {"{\"thickness\": 1e-50, \"areal_density\": 0.2, \"warp\": " CURVE2 ", " REST,
         "key \"thickness\": 1e-50 m is zero in single precision"},
        {"{\"thickness\": 0.001, \"areal_density\": 1e-39, \"warp\": " CURVE2 ", " REST,
         "key \"areal_density\": 1e-39 kg/m^2 is zero in single precision"},
        {GOOD_HEAD "\"warp\": {\"0\": 0}, " REST, "key \"warp\": not an array of [strain, stress] pairs"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, \"1\"]], " REST, "key \"warp\": point 1 is not a pair of numbers"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1, 2]], " REST, "key \"warp\": point 1 is not a pair of numbers"},
        {GOOD_HEAD "\"warp\": [[0, 0], 0.1], " REST, "key \"warp\": point 1 is not a pair of numbers"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1]], " REST, "key \"warp\": point 1 is not a pair of numbers"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1e5], [0.2, 1e4]], " REST,
         "key \"warp\": point 2: stress 10000 Pa decreases (the previous is 100000 Pa)"},
        {GOOD_HEAD "\"warp\": [[0, 10], [0.1, 1e5]], " REST,
         "key \"warp\": stress at zero strain is 10 Pa, not 0: the rest shape would not be at rest"},
        {GOOD_HEAD "\"warp\": [[0.01, 0], [0.1, 1e5]], " REST,
         "key \"warp\": strains run from 0.01 to 0.1; the curve must include zero strain"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 0]], " REST, "key \"warp\": stress never rises above 0"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": [[-0.6, -1], [0, 0], [0.1, 1]], \"shear\": " CURVE2 "}",
         "key \"weft\": point 0: strain -0.6 is not in (-0.5, 100]"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"weft\": " CURVE2 ", \"shear\": [[0, 0], [1000, 1]]}",
         "key \"shear\": point 1: strain 1000 is not in (-100, 100]"},
        {GOOD_HEAD "\"warp\": [[0, 0], [1e-9, 1], [1.000000001e-9, 2]], " REST,
         "key \"warp\": strains 1e-09 and 1.000000001e-09 are the same in single precision"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", \"warp\": " CURVE2 ", " REST, "key \"warp\": appears 2 times"},
        {GOOD_HEAD "\"stress_unit\": \"kPa\", \"warp\": " CURVE2 ", " REST,
         "key \"stress_unit\": not \"Pa\" or \"N/m\""},
        {GOOD_HEAD "\"stress_unit\": 1, \"warp\": " CURVE2 ", " REST, "key \"stress_unit\": not \"Pa\" or \"N/m\""},
        {GOOD_HEAD "\"name\": 7, \"warp\": " CURVE2 ", " REST, "key \"name\": not a string"},
        {huge, "key \"warp\": more than 4096 points"},
        {"[" CURVE2 "]", "test.json: the top level is not a JSON object"},
        {GOOD_HEAD "\"warp\": " CURVE2 ", " REST " {}", "key \"shear\": text after the JSON value at line 1"},
        {GOOD_HEAD "\"warp\": [[0, 0], [0.1, 1e5]", "key \"warp\": not valid JSON"},
        {"", "test.json: empty: not valid JSON at line 1, column 1"},
        {"{\n\"thickness\":\n 0.001,\n \"areal_density\": 0.2,\n \"warp\": [[0, 0], [0.1 1e5]]}",
         "key \"warp\": not valid JSON at line 5, column"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sinew_material f;
        memset(&f, 0x5a, sizeof f);
        capture c;
        cr_assert_eq(parse(cases[i].text, &c, &f), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "case %zu: %s", i, c.text);
        cr_assert(strstr(c.text, cases[i].message), "case %zu: expected \"%s\", got: %s", i, cases[i].message, c.text);
        cr_assert(!strncmp(c.text, "test.json: ", 11), "case %zu: %s", i, c.text);
        cr_assert_eq(f.model, 0x5a5a5a5au, "case %zu wrote its output", i);
    }
    /* A NUL byte, too large a text, a missing file. */
    sinew_material f;
    capture c;
    sinew_logger lg = capture_logger(&c);
    const char nul[] = GOOD_HEAD "\0\"warp\": []}";
    cr_assert_eq(sinew_fabric_parse(nul, sizeof nul - 1, "nul.json", &lg, &f), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "nul.json: key \"areal_density\": a NUL byte at line 1, column 44"), "%s", c.text);
    /* Nested deeper than any fabric needs: named with where it first goes too
     * deep (cJSON used to say "not valid JSON" past its own limit of 1000
     * levels, and to recurse a C level each until then). */
    static char deep[8000];
    n = snprintf(deep, sizeof deep, GOOD_HEAD "\"warp\": ");
    for (int i = 0; i < 3000; i++)
        deep[n++] = '[';
    deep[n] = '\0';
    lg = capture_logger(&c);
    cr_assert_eq(sinew_fabric_parse(deep, strlen(deep), "deep.json", &lg, &f), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "deep.json: key \"warp\": arrays and objects nested deeper than 64 at line 1, column 115"),
              "%s", c.text);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_fabric_parse(huge, SINEW_FABRIC_MAX_BYTES + 1, "big.json", &lg, &f), SINEW_RESULT_ERROR_LIMIT);
    cr_assert(strstr(c.text, "big.json: larger than the reader's limit of 1048576 bytes"), "%s", c.text);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_fabric_read("/nonexistent/fabric.json", &lg, &f), SINEW_RESULT_ERROR_IO);
    cr_assert(strstr(c.text, "/nonexistent/fabric.json: cannot open"), "%s", c.text);
}

/* Mutations of a good file (bytes replaced, inserted, cut): each is read or
 * refused with a message, never crashes (the sanitizer build checks the rest),
 * and what is read is a valid table. */
Test(fabric, mutated_files_read_or_refused)
{
    NEED_CJSON();
    char *good = NULL;
    size_t size = 0;
    FILE *file = fopen(FABRICS "woven_cotton.json", "rb");
    cr_assert(file);
    good = malloc(1 << 16);
    size = fread(good, 1, 1 << 16, file);
    fclose(file);
    char *text = malloc(size + 16);
    static const char alphabet[] = "[]{},:\"0123456789.-eE \nNatrue";
    uint64_t s = 7;
    int ok = 0, refused = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(text, good, size);
        size_t n = size;
        int edits = 1 + round % 4;
        for (int e = 0; e < edits; e++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(s >> 33) % n;
            char byte = alphabet[(s >> 20) % (sizeof alphabet - 1)];
            switch ((s >> 10) % 3) {
            case 0:
                text[at] = byte;
                break;
            case 1:
                memmove(text + at + 1, text + at, n - at);
                text[at] = byte;
                n++;
                break;
            default:
                n = at + 1;
                break;
            }
            if (n > size + 8)
                break;
        }
        sinew_material f;
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_result r = sinew_fabric_parse(text, n, "mutant.json", &lg, &f);
        if (r == SINEW_RESULT_OK) {
            check_table(&f);
            ok++;
        } else {
            cr_assert_eq(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "round %d", round);
            cr_assert(strstr(c.text, "mutant.json: "), "round %d: %s", round, c.text);
            refused++;
        }
    }
    cr_assert_gt(ok, 0);
    cr_assert_gt(refused, 0);
    free(text);
    free(good);
}
