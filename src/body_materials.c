/* A body's materials: the host copy of its table (the asset's or the
 * desc's), which element kinds use each material, the check a material
 * passes before it drives them, and the element update they allow. */
#include "body.h"

#include "solvers/gpbd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A material for slot `index`: valid, and of a model every element using it
 * can take (kinds_of[index]: bit k set when elements of kind k use it). */
static sinew_result check_material(const sinew_context *ctx, const uint8_t *kinds_of, uint32_t index,
                                   const sinew_material *m)
{
    char where[64];
    snprintf(where, sizeof where, "material %u", index);
    sinew_result r = sinew_material_check(m, where, &ctx->logger);
    if (r != SINEW_RESULT_OK)
        return r;
    for (uint32_t kind = 0; kind < SINEW_ELEMENT_KIND_COUNT; kind++)
        if ((kinds_of[index] >> kind & 1u) && !sinew_gpbd_model_fits(m->model, kind))
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "material %u: a %s material cannot drive the %s elements that use it", index,
                              sinew_material_model_name(m->model),
                              kind == SINEW_ELEMENT_TET ? "tetrahedron" : kind == SINEW_ELEMENT_TRIANGLE ? "triangle"
                                                                                                       : "spring");
    return SINEW_RESULT_OK;
}

/* Host copies of what set_material needs: the materials (the asset's or the
 * desc's, checked) and which element kinds use each material. */
sinew_result sinew_body_copy_elements(sinew_body *b, const sinew_asset *a)
{
    const sinew_logger *lg = &b->ctx->logger;
    b->element_count = a->element_count;
    b->material_count = a->material_count;
    b->materials = malloc(sizeof *b->materials * ((size_t)a->material_count + 1));
    b->material_kinds = calloc((size_t)a->material_count + 1, 1);
    if (!b->materials || !b->material_kinds)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    const sinew_material *src = b->desc.materials ? b->desc.materials : a->materials;
    if (a->material_count)
        memcpy(b->materials, src, sizeof *b->materials * a->material_count);
    b->desc.materials = NULL; /* borrowed for the call only */
    for (uint32_t e = 0; e < a->element_count; e++) {
        b->material_kinds[a->elements[e].material] |= (uint8_t)(1u << a->elements[e].kind);
        b->tet_count += a->elements[e].kind == SINEW_ELEMENT_TET;
    }
    for (uint32_t m = 0; m < a->material_count; m++) {
        sinew_result r = check_material(b->ctx, b->material_kinds, m, &b->materials[m]);
        if (r != SINEW_RESULT_OK)
            return r;
    }
    return SINEW_RESULT_OK;
}

sinew_element_set sinew_body_element_set(const sinew_body *b)
{
    sinew_element_set set = SINEW_ELEMENTS_MIXED;
    for (uint32_t m = 0; m < b->material_count; m++) {
        if (!b->material_kinds[m])
            continue; /* used by no element */
        const sinew_material_model model = b->materials[m].model;
        const sinew_element_set this_one = b->material_kinds[m] != 1u << SINEW_ELEMENT_TET ? SINEW_ELEMENTS_MIXED
                                           : model == SINEW_MATERIAL_NEO_HOOKEAN          ? SINEW_ELEMENTS_TET_NH
                                           : model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN   ? SINEW_ELEMENTS_TET_SNH
                                                                                          : SINEW_ELEMENTS_MIXED;
        if (this_one == SINEW_ELEMENTS_MIXED || (set != SINEW_ELEMENTS_MIXED && set != this_one))
            return SINEW_ELEMENTS_MIXED;
        set = this_one;
    }
    return set;
}

sinew_result sinew_body_check_material(const sinew_body *b, uint32_t index, const sinew_material *m)
{
    return check_material(b->ctx, b->material_kinds, index, m);
}
