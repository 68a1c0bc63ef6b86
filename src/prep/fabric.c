/* Tabulated fabrics from JSON (format and rules in fabric.h), parsed with
 * Debian's cJSON: every value is type-checked and bounded before use, sizes
 * are limited before anything is allocated for them, and a syntax error (or
 * nesting deeper than any fabric needs) is reported with its line, column and
 * the key it falls in (json.h). The resampling to
 * SINEW_TABLE_POINTS is a greedy top-down polyline simplification (Douglas and
 * Peucker 1973, with the vertical distance and a fixed point budget).
 */
#include "fabric.h"

#include "core/file.h"
#include "core/log.h"
#include "json.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sinew_result sinew_fabric_read(const char *path, const sinew_logger *lg, sinew_material *out)
{
    SINEW_ASSERT(path && out);
    uint8_t *bytes = NULL;
    size_t size = 0;
    sinew_result r = sinew_file_read(path, SINEW_FABRIC_MAX_BYTES, lg, "fabric", &bytes, &size);
    if (r != SINEW_RESULT_OK)
        return r;
    r = sinew_fabric_parse((const char *)bytes, size, path, lg, out);
    free(bytes);
    return r;
}

#ifndef SINEW_HAVE_CJSON

sinew_result sinew_fabric_parse(const char *text, size_t size, const char *name, const sinew_logger *lg,
                                sinew_material *out)
{
    SINEW_ASSERT((text || size == 0) && name && out);
    return sinew_fail(lg, SINEW_RESULT_ERROR_UNSUPPORTED, "fabric",
                      "%s: this build reads no fabric files (it was built without cJSON; Debian: libcjson-dev)",
                      name);
}

#else

#define STRAIN_LIMIT 100.0   /* |Green strain|: a stretch of about 14 */
#define STRESS_LIMIT 1e12    /* |stress| (Pa), well above any fibre */
#define NO_POINT UINT32_MAX

typedef struct reader {
    const char *name;
    const sinew_logger *lg;
} reader;

static sinew_result refuse(const reader *rd, const char *key, const char *fmt, ...) SINEW_PRINTF(3, 4);

static sinew_result refuse(const reader *rd, const char *key, const char *fmt, ...)
{
    char text[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return sinew_fail(rd->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "fabric", "%s: key \"%s\": %s", rd->name, key,
                      text);
}

/* The member named key, refusing a repeated key (cJSON would take the first
 * silently). *item is NULL if it is absent. */
static sinew_result member(const reader *rd, const cJSON *root, const char *key, const cJSON **item)
{
    *item = NULL;
    unsigned count = 0;
    for (const cJSON *c = root->child; c; c = c->next)
        if (c->string && !strcmp(c->string, key) && count++ == 0)
            *item = c;
    if (count > 1)
        return refuse(rd, key, "appears %u times", count);
    return SINEW_RESULT_OK;
}

static sinew_result number(const reader *rd, const cJSON *root, const char *key, double lo, double hi,
                           const char *unit, double *out)
{
    const cJSON *item;
    sinew_result r = member(rd, root, key, &item);
    if (r != SINEW_RESULT_OK)
        return r;
    if (!item)
        return refuse(rd, key, "missing (%s)", unit);
    if (!cJSON_IsNumber(item))
        return refuse(rd, key, "not a number (%s)", unit);
    double v = item->valuedouble;
    if (!(v > lo && v <= hi))
        return refuse(rd, key, "%g %s is not in (%g, %g]", v, unit, lo, hi);
    if (!((float)v >= FLT_MIN))
        return refuse(rd, key, "%g %s is zero in single precision", v, unit);
    *out = v;
    return SINEW_RESULT_OK;
}

/* Stress at strain x on the piecewise-linear curve, x within its range. */
static double stress_at(const double *x, const double *y, uint32_t n, double at)
{
    uint32_t i = 1;
    while (i + 1 < n && x[i] < at)
        i++;
    double t = (at - x[i - 1]) / (x[i] - x[i - 1]);
    return y[i - 1] + t * (y[i] - y[i - 1]);
}

/* Makes zero strain a point of the curve, with stress exactly 0 (the stresses
 * around it, within the tolerance of read_pairs of 0, stay monotonic).
 * Returns its index; x and y have room for one more point. */
static uint32_t insert_zero(double *x, double *y, uint32_t *n)
{
    uint32_t i = 0;
    while (x[i] < 0.0)
        i++;
    if (x[i] != 0.0) {
        memmove(x + i + 1, x + i, sizeof *x * (*n - i));
        memmove(y + i + 1, y + i, sizeof *y * (*n - i));
        x[i] = 0.0;
        (*n)++;
    }
    y[i] = 0.0;
    for (uint32_t j = 0; j < *n; j++)
        y[j] = j < i ? fmin(y[j], 0.0) : fmax(y[j], 0.0);
    return i;
}

/* Keeps SINEW_TABLE_POINTS of the n > SINEW_TABLE_POINTS points: the ends,
 * the point `must`, then one at a time the point farthest in stress from the
 * curve through those kept (the first of equals). Compacts x and y. */
static int simplify(double *x, double *y, uint32_t *n, uint32_t must)
{
    uint8_t *keep = calloc(*n, 1);
    if (!keep)
        return 0;
    keep[0] = keep[*n - 1] = keep[must] = 1;
    uint32_t kept = 2 + (must != 0 && must != *n - 1);
    while (kept < SINEW_TABLE_POINTS) {
        uint32_t best = NO_POINT, p = 0;
        double worst = -1.0;
        for (uint32_t i = 1; i < *n; i++) {
            if (keep[i]) {
                p = i;
                continue;
            }
            uint32_t q = i + 1;
            while (!keep[q])
                q++;
            double t = (x[i] - x[p]) / (x[q] - x[p]);
            double e = fabs(y[i] - (y[p] + t * (y[q] - y[p])));
            if (e > worst) {
                worst = e;
                best = i;
            }
        }
        keep[best] = 1;
        kept++;
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < *n; i++)
        if (keep[i]) {
            x[m] = x[i];
            y[m++] = y[i];
        }
    *n = m;
    free(keep);
    return 1;
}

/* Adds points halfway along the longest interval until there are
 * SINEW_TABLE_POINTS; the curve stays the same. */
static void refine(double *x, double *y, uint32_t *n)
{
    while (*n < SINEW_TABLE_POINTS) {
        uint32_t longest = 0;
        for (uint32_t i = 1; i + 1 < *n; i++)
            if (x[i + 1] - x[i] > x[longest + 1] - x[longest])
                longest = i;
        uint32_t i = longest + 1;
        memmove(x + i + 1, x + i, sizeof *x * (*n - i));
        memmove(y + i + 1, y + i, sizeof *y * (*n - i));
        x[i] = 0.5 * (x[i - 1] + x[i + 1]);
        y[i] = 0.5 * (y[i - 1] + y[i + 1]);
        (*n)++;
    }
}

/* The pairs of one curve, checked, in x and y (room for n + 1). */
static sinew_result read_pairs(const reader *rd, const char *key, const cJSON *array, uint32_t n, double lowest,
                               double scale, double *x, double *y)
{
    uint32_t i = 0;
    for (const cJSON *p = array->child; p; p = p->next, i++) {
        const cJSON *s = p->child, *t = s ? s->next : NULL;
        if (!cJSON_IsArray(p) || !cJSON_IsNumber(s) || !cJSON_IsNumber(t) || t->next)
            return refuse(rd, key, "point %u is not a pair of numbers [strain, stress]", i);
        x[i] = s->valuedouble;
        y[i] = t->valuedouble * scale;
        if (!(x[i] > lowest && x[i] <= STRAIN_LIMIT))
            return refuse(rd, key, "point %u: strain %g is not in (%g, %g]", i, x[i], lowest, STRAIN_LIMIT);
        if (!(fabs(y[i]) <= STRESS_LIMIT))
            return refuse(rd, key, "point %u: stress %g Pa is not in [%g, %g]", i, y[i], -STRESS_LIMIT,
                          STRESS_LIMIT);
        if (i > 0 && !(x[i] > x[i - 1]))
            return refuse(rd, key, "point %u: strain %g does not increase (the previous is %g)", i, x[i], x[i - 1]);
        if (i > 0 && y[i] < y[i - 1])
            return refuse(rd, key, "point %u: stress %g Pa decreases (the previous is %g Pa)", i, y[i], y[i - 1]);
    }
    SINEW_ASSERT(i == n);
    if (!(x[0] <= 0.0 && x[n - 1] >= 0.0))
        return refuse(rd, key, "strains run from %g to %g; the curve must include zero strain, the rest state",
                      x[0], x[n - 1]);
    double largest = fmax(fabs(y[0]), fabs(y[n - 1]));
    double rest = stress_at(x, y, n, 0.0);
    if (fabs(rest) > 1e-6 * largest)
        return refuse(rd, key, "stress at zero strain is %g Pa, not 0: the rest shape would not be at rest", rest);
    if (!(y[n - 1] > 0.0))
        return refuse(rd, key, "stress never rises above 0: the fabric would not resist stretching");
    return SINEW_RESULT_OK;
}

static sinew_result curve(const reader *rd, const cJSON *root, const char *key, double lowest, double scale,
                          float *strain, float *stress)
{
    const cJSON *array;
    sinew_result r = member(rd, root, key, &array);
    if (r != SINEW_RESULT_OK)
        return r;
    if (!array)
        return refuse(rd, key, "missing (an array of [strain, stress] pairs)");
    if (!cJSON_IsArray(array))
        return refuse(rd, key, "not an array of [strain, stress] pairs");
    uint32_t n = 0;
    for (const cJSON *p = array->child; p && n <= SINEW_FABRIC_MAX_POINTS; p = p->next)
        n++;
    if (n > SINEW_FABRIC_MAX_POINTS)
        return refuse(rd, key, "more than %u points", SINEW_FABRIC_MAX_POINTS);
    if (n < 2)
        return refuse(rd, key, "%u points; a curve needs at least 2", n);
    uint32_t cap = n + 1 > SINEW_TABLE_POINTS ? n + 1 : SINEW_TABLE_POINTS;
    double *x = malloc(sizeof *x * cap), *y = malloc(sizeof *y * cap);
    if (!x || !y) {
        free(x);
        free(y);
        return sinew_fail(rd->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "fabric", "%s: out of memory", rd->name);
    }
    r = read_pairs(rd, key, array, n, lowest, scale, x, y);
    if (r == SINEW_RESULT_OK) {
        uint32_t zero = insert_zero(x, y, &n);
        if (n > SINEW_TABLE_POINTS && !simplify(x, y, &n, zero))
            r = sinew_fail(rd->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "fabric", "%s: out of memory", rd->name);
        else if (n < SINEW_TABLE_POINTS)
            refine(x, y, &n);
    }
    for (uint32_t i = 0; r == SINEW_RESULT_OK && i < SINEW_TABLE_POINTS; i++) {
        strain[i] = (float)x[i];
        stress[i] = (float)y[i];
        if (i > 0 && !(strain[i] > strain[i - 1]))
            r = refuse(rd, key, "strains %.10g and %.10g are the same in single precision", x[i - 1], x[i]);
    }
    free(x);
    free(y);
    return r;
}

static sinew_result parse_root(const reader *rd, const cJSON *root, sinew_material *out)
{
    if (!cJSON_IsObject(root))
        return sinew_fail(rd->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "fabric",
                          "%s: the top level is not a JSON object", rd->name);
    sinew_material m;
    memset(&m, 0, sizeof m);
    m.model = SINEW_MATERIAL_TABULATED;
    double thickness = 0.0, density = 0.0, scale = 1.0;
    const cJSON *name, *unit, *comment;
    sinew_result r;
    if ((r = member(rd, root, "name", &name)) || (r = member(rd, root, "comment", &comment)) ||
        (r = member(rd, root, "stress_unit", &unit)))
        return r;
    if (name && !cJSON_IsString(name))
        return refuse(rd, "name", "not a string");
    if ((r = number(rd, root, "thickness", 0.0, 0.1, "m", &thickness)) ||
        (r = number(rd, root, "areal_density", 0.0, 100.0, "kg/m^2", &density)))
        return r;
    if (unit && !(cJSON_IsString(unit) && (!strcmp(unit->valuestring, "Pa") || !strcmp(unit->valuestring, "N/m"))))
        return refuse(rd, "stress_unit", "not \"Pa\" or \"N/m\"");
    if (unit && !strcmp(unit->valuestring, "N/m"))
        scale = 1.0 / thickness;
    m.thickness = (float)thickness;
    m.density = (float)density;
    static const char *const keys[3] = {"warp", "weft", "shear"};
    for (int k = 0; k < 3 && r == SINEW_RESULT_OK; k++)
        r = curve(rd, root, keys[k], k < 2 ? -0.5 : -STRAIN_LIMIT, scale, m.table_strain[k],
                  m.table_stress[k]);
    if (r == SINEW_RESULT_OK)
        r = sinew_material_check(&m, rd->name, rd->lg);
    if (r == SINEW_RESULT_OK)
        *out = m;
    return r;
}

sinew_result sinew_fabric_parse(const char *text, size_t size, const char *name, const sinew_logger *lg,
                                sinew_material *out)
{
    SINEW_ASSERT((text || size == 0) && name && out);
    reader rd = {name, lg};
    if (size > SINEW_FABRIC_MAX_BYTES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "fabric", "%s: larger than the reader's limit of %u bytes",
                          name, SINEW_FABRIC_MAX_BYTES);
    cJSON *root = NULL;
    sinew_result r =
        sinew_json_parse(text, size, name, lg, "fabric", SINEW_RESULT_ERROR_INVALID_ARGUMENT, &root);
    if (r == SINEW_RESULT_OK)
        r = parse_root(&rd, root, out);
    cJSON_Delete(root);
    return r;
}

#endif
