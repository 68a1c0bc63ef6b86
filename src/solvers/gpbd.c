/* Generalized PBD (Towards Generalized Position-Based Dynamics; docs/math.md
 * section 3): device records of elements and materials, and the recording of
 * the element sweeps, coloured (Gauss-Seidel) or all at once (Jacobi). The
 * Newton solve itself is shaders/gpbd.glsl. */
#include "gpbd.h"

#include "pbd.h"

/* GPBD element: record 80, material 208 (cached in practice), per vertex
 * position 16 + 16 and z 16 + 16: tetrahedra, an upper bound for the other
 * kinds. */
uint64_t sinew_gpbd_bytes(uint32_t count) { return (288ull + 64ull * 4) * count; }

/* The element update for the body's elements: the general kernel, or one
 * with the other element kinds and material models compiled out (on llvmpipe
 * their code costs as if it ran; docs/gpbd.md). */
static sinew_kernel colour_kernel(const sinew_body_view *v)
{
    return v->elements == SINEW_ELEMENTS_TET_NH    ? SINEW_KERNEL_GPBD_COLOUR_TET_NH
           : v->elements == SINEW_ELEMENTS_TET_SNH ? SINEW_KERNEL_GPBD_COLOUR_TET_SNH
                                                   : SINEW_KERNEL_GPBD_COLOUR;
}

static sinew_kernel jacobi_kernel(const sinew_body_view *v)
{
    return v->elements == SINEW_ELEMENTS_TET_NH    ? SINEW_KERNEL_GPBD_JACOBI_TET_NH
           : v->elements == SINEW_ELEMENTS_TET_SNH ? SINEW_KERNEL_GPBD_JACOBI_TET_SNH
                                                   : SINEW_KERNEL_GPBD_JACOBI;
}

void sinew_gpbd_record_colours(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r)
{
    const sinew_kernel kernel = colour_kernel(v);
    for (uint32_t c = 0; c < s->element_colour_count; c++) {
        const sinew_element_colour_rec *col = &s->element_colours[c];
        GpuRange push = {col->begin, col->count};
        sinew_record_dispatch(r, kernel, col->count, &push, sizeof push);
        sinew_record_barrier(r);
        r->bytes += sinew_gpbd_bytes(col->count);
    }
}

void sinew_gpbd_record_jacobi(const sinew_pbd *s, const sinew_body_view *v, sinew_recorder *r)
{
    (void)s;
    if (!v->element_count)
        return;
    GpuRange elements = {0, v->element_count};
    elements.slot_base = 2 * v->distance_count + 4 * v->bend_count;
    sinew_record_dispatch(r, jacobi_kernel(v), v->element_count, &elements, sizeof elements);
    sinew_record_barrier(r);
    r->bytes += sinew_gpbd_bytes(v->element_count);
}

GpuMaterial sinew_gpbd_material(const sinew_material *m)
{
    GpuMaterial g = {0};
    g.model = m->model;
    const double E = m->youngs_modulus, nu = m->poisson_ratio;
    const double mu = E / (2.0 * (1.0 + nu));
    switch (m->model) {
    case SINEW_MATERIAL_SPRING:
        g.extra = m->compliance;
        break;
    case SINEW_MATERIAL_NEO_HOOKEAN:
        g.mu = (float)mu;
        g.lambda = (float)(E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)));
        g.extra = 1.0f;
        break;
    case SINEW_MATERIAL_STABLE_NEO_HOOKEAN: {
        /* Smith et al.'s reparameterisation (docs/math.md 3): the energy's
         * small-strain Lame parameters are 3/4 mu' and lambda' - 5/8 mu', so
         * mu' = 4/3 mu and lambda' = lambda + 5/6 mu give E and nu their
         * meaning; a = 1 + 3 mu' / (4 lambda') keeps the rest state
         * stress-free (lambda' > 0 for every nu in [0, 0.5)). */
        const double lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
        const double mu_snh = 4.0 / 3.0 * mu, lambda_snh = lambda + 5.0 / 6.0 * mu;
        g.mu = (float)mu_snh;
        g.lambda = (float)lambda_snh;
        g.extra = (float)(1.0 + 3.0 * mu_snh / (4.0 * lambda_snh));
        break;
    }
    case SINEW_MATERIAL_STVK:
        g.mu = (float)(m->thickness * mu);
        g.lambda = (float)(m->thickness * E * nu / (1.0 - nu * nu));
        break;
    case SINEW_MATERIAL_TABULATED:
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < SINEW_TABLE_POINTS; i++) {
                g.table_strain[k * SINEW_GPU_TABLE_POINTS + i] = m->table_strain[k][i];
                g.table_stress[k * SINEW_GPU_TABLE_POINTS + i] = m->thickness * m->table_stress[k][i];
            }
        break;
    default:
        break;
    }
    return g;
}

GpuElement sinew_gpbd_element(const sinew_element_rec *e)
{
    GpuElement g = {{0}};
    for (int j = 0; j < 4; j++)
        g.v[j] = e->v[j];
    g.kind = e->kind;
    g.material = e->material;
    if (e->kind == SINEW_ELEMENT_SPRING) {
        g.measure = 1.0f;
        g.r[0][0] = e->rest_measure;
        return g;
    }
    g.measure = e->rest_measure;
    const int dim = e->kind == SINEW_ELEMENT_TET ? 3 : 2;
    for (int j = 0; j < dim; j++)      /* row j of Dm^-1 (column-major) */
        for (int c = 0; c < dim; c++)
            g.r[j][c] = e->inv_rest[3 * c + j];
    return g;
}

int sinew_gpbd_model_fits(uint32_t model, uint32_t kind)
{
    switch (model) {
    case SINEW_MATERIAL_SPRING: return kind == SINEW_ELEMENT_SPRING;
    case SINEW_MATERIAL_NEO_HOOKEAN:
    case SINEW_MATERIAL_STABLE_NEO_HOOKEAN: return kind == SINEW_ELEMENT_TET;
    case SINEW_MATERIAL_STVK:
    case SINEW_MATERIAL_TABULATED: return kind == SINEW_ELEMENT_TRIANGLE;
    default: return 0;
    }
}
