/* sinew/material.h: elastic materials of finite elements (Generalized PBD).
 *
 * An element (spring, membrane triangle or tetrahedron, built offline into the
 * asset) has an energy density Psi of its strain; the GPBD solvers update each
 * element by a small Newton solve in its strain space (docs/gpbd.md). A body
 * takes its materials from the asset's table, each element naming one (its
 * region), and the application may replace any of them at creation or later.
 *
 * Units: Pa for moduli and stresses, m for thickness, m/N for compliance.
 * Lame parameters: mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu)(1 - 2 nu)).
 */
#ifndef SINEW_MATERIAL_H
#define SINEW_MATERIAL_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sinew_material_model {
    /* Springs: Psi = eps^2 / (2 compliance), eps = length - rest length.
     * One Gauss-Newton step of this is exactly an XPBD distance projection. */
    SINEW_MATERIAL_SPRING = 0,
    /* Tetrahedra: Psi = mu/2 (I_C - 3) - mu log J + lambda/2 (log J)^2, with
     * the log barrier: infinite energy at zero volume, undefined inverted. */
    SINEW_MATERIAL_NEO_HOOKEAN = 1,
    /* Tetrahedra: stable neo-Hookean (Smith, de Goes, Kim 2018),
     * Psi = mu'/2 (I_C - 3) + lambda'/2 (J - a)^2 - mu'/2 log(I_C + 1),
     * a = 1 + 3 mu' / (4 lambda'): defined inverted, stress-free at rest.
     * Its paper's reparameterisation mu' = 4/3 mu, lambda' = lambda + 5/6 mu
     * of the Lame parameters of E and nu makes its small-strain response
     * that of E and nu, as neo-Hookean's is. */
    SINEW_MATERIAL_STABLE_NEO_HOOKEAN = 2,
    /* Triangles: St. Venant-Kirchhoff membrane of the Green strain E (2x2),
     * Psi = thickness (mu E:E + lambda2/2 tr(E)^2), plane stress
     * lambda2 = E nu / (1 - nu^2). */
    SINEW_MATERIAL_STVK = 3,
    /* Triangles: tabulated, anisotropic membrane. Stress against Green strain
     * along the element's warp (u) and weft (v) directions and in shear (uv),
     * each a piecewise-linear curve through SINEW_TABLE_POINTS measured
     * points (linear beyond the ends); Psi = thickness (int_0^Euu s_u +
     * int_0^Evv s_v + 2 int_0^Euv s_s). */
    SINEW_MATERIAL_TABULATED = 4,
    SINEW_MATERIAL_MODEL_COUNT
} sinew_material_model;

#define SINEW_TABLE_POINTS 8

typedef struct sinew_material {
    uint32_t model;          /* sinew_material_model */
    float youngs_modulus;    /* Pa (NEO_HOOKEAN, STABLE_NEO_HOOKEAN, STVK) */
    float poisson_ratio;     /* [0, 0.5) */
    float thickness;         /* m, membranes (STVK, TABULATED) */
    float compliance;        /* m/N, SPRING; 0 = rigid */
    float density;           /* kg/m^3 (kg/m^2 membranes): what the masses were built from */
    float reserved[2];       /* zero */
    /* TABULATED: curve k (0 warp, 1 weft, 2 shear) passes through
     * (table_strain[k][i], table_stress[k][i]); strains strictly increasing. */
    float table_strain[3][SINEW_TABLE_POINTS];
    float table_stress[3][SINEW_TABLE_POINTS];
} sinew_material;

/* A material of the model with the given Young's modulus and Poisson ratio
 * (thickness 1 mm for membranes, compliance 0 for springs, density 1000). */
SINEW_API sinew_material sinew_material_make(sinew_material_model model, float youngs_modulus, float poisson_ratio);

/* Checks a material: known model, finite values, E > 0 and 0 <= nu < 0.5
 * where used, thickness > 0 for membranes, compliance >= 0 for springs,
 * increasing table strains. where names it in the message ("material 3"). */
SINEW_API sinew_result sinew_material_check(const sinew_material *m, const char *where, const sinew_logger *logger);

#ifdef __cplusplus
}
#endif
#endif
