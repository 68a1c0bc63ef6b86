/* Elastic materials of finite elements: the default of each model and the check
 * every material passes before an asset holding it is loaded or written, or a
 * body uses it. The models and their energies are in include/sinew/material.h;
 * the admissible ranges are those where the energies are defined: E > 0 and
 * 0 <= nu < 0.5 keep both Lame parameters finite and non-negative (lambda
 * has 1 - 2 nu in its denominator), a membrane needs a thickness to turn its
 * stress into force, and a tabulated curve must be a function of the strain. */
#include "asset.h"

#include "../core/log.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MEMBRANE_THICKNESS 1e-3f /* m */
#define DEFAULT_DENSITY 1000.0f  /* kg/m^3, water */

static const char *const model_names[SINEW_MATERIAL_MODEL_COUNT] = {
    [SINEW_MATERIAL_SPRING] = "spring",
    [SINEW_MATERIAL_NEO_HOOKEAN] = "neo-Hookean",
    [SINEW_MATERIAL_STABLE_NEO_HOOKEAN] = "stable neo-Hookean",
    [SINEW_MATERIAL_STVK] = "StVK",
    [SINEW_MATERIAL_TABULATED] = "tabulated",
};

static const char *const curve_names[3] = {"warp", "weft", "shear"};

const char *sinew_material_model_name(uint32_t model)
{
    return model < SINEW_MATERIAL_MODEL_COUNT ? model_names[model] : "unknown";
}

static int is_membrane(uint32_t model) { return model == SINEW_MATERIAL_STVK || model == SINEW_MATERIAL_TABULATED; }

static int is_elastic(uint32_t model)
{
    return model == SINEW_MATERIAL_NEO_HOOKEAN || model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN ||
           model == SINEW_MATERIAL_STVK;
}

sinew_material sinew_material_make(sinew_material_model model, float youngs_modulus, float poisson_ratio)
{
    sinew_material m;
    memset(&m, 0, sizeof m); /* reserved words and tables, padding-free but zero all the same */
    m.model = (uint32_t)model;
    m.youngs_modulus = youngs_modulus;
    m.poisson_ratio = poisson_ratio;
    m.thickness = is_membrane(m.model) ? MEMBRANE_THICKNESS : 0.0f;
    m.compliance = 0.0f;
    m.density = DEFAULT_DENSITY;
    return m;
}

static sinew_result bad(const sinew_logger *lg, const char *where, const char *fmt, ...) SINEW_PRINTF(3, 4);

static sinew_result bad(const sinew_logger *lg, const char *where, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "material", "%s: %s", where, what);
}

/* The first non-finite field, by name, or NULL. The reserved words are not
 * read: they have no meaning yet. */
static const char *non_finite_field(const sinew_material *m, char *name, size_t size, float *value)
{
    const struct { const char *name; float value; } scalars[] = {
        {"youngs_modulus", m->youngs_modulus}, {"poisson_ratio", m->poisson_ratio},
        {"thickness", m->thickness},           {"compliance", m->compliance},
        {"density", m->density},
    };
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; ++i)
        if (!isfinite(scalars[i].value)) {
            *value = scalars[i].value;
            return scalars[i].name;
        }
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < SINEW_TABLE_POINTS; ++i) {
            if (!isfinite(m->table_strain[k][i])) {
                snprintf(name, size, "table_strain[%d][%d]", k, i);
                *value = m->table_strain[k][i];
                return name;
            }
            if (!isfinite(m->table_stress[k][i])) {
                snprintf(name, size, "table_stress[%d][%d]", k, i);
                *value = m->table_stress[k][i];
                return name;
            }
        }
    return NULL;
}

sinew_result sinew_material_check(const sinew_material *m, const char *where, const sinew_logger *logger)
{
    SINEW_ASSERT(m && where);
    if (m->model >= SINEW_MATERIAL_MODEL_COUNT)
        return bad(logger, where, "model %u is not a known model (0 to %d)", m->model,
                   SINEW_MATERIAL_MODEL_COUNT - 1);
    char name[48]; /* "table_stress[k][i]" */
    float value;
    const char *field = non_finite_field(m, name, sizeof name, &value);
    if (field)
        return bad(logger, where, "%s %g is not finite", field, (double)value);
    if (is_elastic(m->model)) {
        if (!(m->youngs_modulus > 0.0f))
            return bad(logger, where, "youngs_modulus %g is not > 0 (%s)", (double)m->youngs_modulus,
                       model_names[m->model]);
        if (!(m->poisson_ratio >= 0.0f && m->poisson_ratio < 0.5f))
            return bad(logger, where, "poisson_ratio %g is not in [0, 0.5)", (double)m->poisson_ratio);
        double nu = m->poisson_ratio, E = m->youngs_modulus;
        double lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
        if (!(lambda + E < 1e30)) /* the kernels hold lambda and mu (stable neo-Hookean: up to E) as floats */
            return bad(logger, where, "youngs_modulus %g and poisson_ratio %g give a Lame lambda of %g, too large",
                       E, nu, lambda);
    }
    if (is_membrane(m->model) && !(m->thickness > 0.0f))
        return bad(logger, where, "thickness %g is not > 0 (%s membrane)", (double)m->thickness,
                   model_names[m->model]);
    if (m->model == SINEW_MATERIAL_SPRING && !(m->compliance >= 0.0f))
        return bad(logger, where, "compliance %g is not >= 0", (double)m->compliance);
    if (m->model == SINEW_MATERIAL_TABULATED)
        for (int k = 0; k < 3; ++k)
            for (int i = 1; i < SINEW_TABLE_POINTS; ++i)
                if (!(m->table_strain[k][i] > m->table_strain[k][i - 1]))
                    return bad(logger, where,
                               "table_strain[%d][%d] %g is not above table_strain[%d][%d] %g (the %s curve's "
                               "strains must increase strictly)",
                               k, i, (double)m->table_strain[k][i], k, i - 1, (double)m->table_strain[k][i - 1],
                               curve_names[k]);
    return SINEW_RESULT_OK;
}
