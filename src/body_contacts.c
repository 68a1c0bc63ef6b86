/* Contact bodies: the other bodies a body collides with
 * (sinew_body_set_contact_bodies), their surfaces planned into its
 * self-collision buffers and their positions copied in by its step. */
#include "body.h"

#include <stdlib.h>
#include <string.h>

static sinew_surface surface_of_body(const sinew_body *b)
{
    return (sinew_surface){b->rest, b->particle_count, b->surface, b->triangle_count};
}

sinew_result sinew_body_set_contact_bodies(sinew_body *b, sinew_body *const *others, uint32_t count)
{
    SINEW_ASSERT(b && (others || count == 0));
    if (b->world)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s' is in world '%s': contacts between its bodies are the world's "
                          "(sinew_world_desc.contacts)", b->name, b->world_name);
    return sinew_body_set_contacts(b, others, count);
}

sinew_result sinew_body_set_contacts(sinew_body *b, sinew_body *const *others, uint32_t count)
{
    sinew_context *ctx = b->ctx;
    const sinew_logger *lg = &ctx->logger;
    if (count > SINEW_MAX_CONTACT_BODIES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s': %u contact bodies are more than %u", b->name, count, SINEW_MAX_CONTACT_BODIES);
    for (uint32_t k = 0; k < count; k++) {
        const sinew_body *o = others[k];
        if (!o)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "body '%s': contact body %u is NULL",
                              b->name, k);
        if (o == b)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s' is in its own contact list (its own pairs: desc.self_collision)", b->name);
        if (o->ctx != ctx)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': contact body '%s' was made on another context", b->name, o->name);
        if (!o->surface)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': contact body '%s' has no surface triangles", b->name, o->name);
        for (uint32_t j = 0; j < k; j++)
            if (others[j] == o)
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                                  "body '%s': contact body '%s' is listed twice", b->name, o->name);
    }
    sinew_result r = count ? sinew_selfcol_check(ctx, b->triangle_count, &b->desc, 1, "collision with other bodies")
                           : SINEW_RESULT_OK;
    if (r != SINEW_RESULT_OK)
        return r;
    if (ctx->lost)
        return sinew_context_refuse_lost(ctx);
    if ((r = sinew_body_settle(b)) != SINEW_RESULT_OK)
        return r;
    /* the new surfaces and buffers first: on failure nothing has changed */
    sinew_surface own = surface_of_body(b), surfaces[SINEW_MAX_CONTACT_BODIES];
    for (uint32_t k = 0; k < count; k++)
        surfaces[k] = surface_of_body(others[k]);
    sinew_body **list = count ? malloc(sizeof *list * count) : NULL;
    if (count && !list)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    sinew_selfcol plan = {0};
    const int on = b->desc.self_collision || count;
    if (on && (r = sinew_selfcol_plan(ctx, &own, &b->desc, surfaces, count, b->world_bodies, &plan)) != SINEW_RESULT_OK) {
        free(list);
        return r;
    }
    sinew_buffer fresh[SINEW_BODY_BINDINGS];
    memset(fresh, 0, sizeof fresh);
    const sinew_buffer_plan bp[] = {
        {SINEW_BIND_SELF_INDEX, 4 * plan.index_words, SINEW_MEMORY_DEVICE, "self-collision indices"},
        {SINEW_BIND_SELF_REAL, 16 * plan.real_vec4s, SINEW_MEMORY_DEVICE, "self-collision boxes and corrections"},
    };
    r = sinew_buffers_create(ctx, bp, 2, fresh);
    if (r == SINEW_RESULT_OK && on)
        r = sinew_selfcol_upload(ctx, &plan, &own, &fresh[SINEW_BIND_SELF_INDEX], &fresh[SINEW_BIND_SELF_REAL]);
    if (r != SINEW_RESULT_OK) {
        sinew_buffer_destroy(ctx, &fresh[SINEW_BIND_SELF_INDEX]);
        sinew_buffer_destroy(ctx, &fresh[SINEW_BIND_SELF_REAL]);
        sinew_selfcol_free(&plan);
        free(list);
        return r;
    }
    for (int i = SINEW_BIND_SELF_INDEX; i <= SINEW_BIND_SELF_REAL; i++) {
        sinew_buffer_destroy(ctx, &b->buffers[i]);
        b->buffers[i] = fresh[i];
    }
    sinew_selfcol_free(&b->self);
    b->self = plan;
    b->view.selfcol = on ? &b->self : NULL;
    /* the new list held before the old one is dropped (they may share bodies) */
    for (uint32_t k = 0; k < count; k++) {
        list[k] = others[k];
        list[k]->refs++;
    }
    sinew_body_release_others(b);
    b->others = list;
    b->other_count = count;
    sinew_bindings_destroy(ctx, &b->bindings);
    if ((r = sinew_body_make_bindings(b)) != SINEW_RESULT_OK || (r = sinew_body_rerecord(b)) != SINEW_RESULT_OK) {
        b->unrecorded = r;
        return r;
    }
    b->unrecorded = SINEW_RESULT_OK;
    return SINEW_RESULT_OK;
}
