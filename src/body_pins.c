/* Pin slots: the attachments' pins grown to more slots (new buffers, the
 * step recorded again) and made to match a state's inverse masses (a
 * checkpoint loaded). */
#include "body.h"

#include <string.h>

sinew_result sinew_body_grow_pins(sinew_body *b, uint32_t capacity)
{
    sinew_context *ctx = b->ctx;
    sinew_attach *at = &b->attach;
    const uint32_t old_capacity = at->pin_capacity;
    sinew_result r = sinew_attach_grow(at, &ctx->logger, capacity);
    if (r != SINEW_RESULT_OK)
        return r;
    /* the new buffers first: on failure the old ones stay, and the host keeps
     * the slots they hold (its larger arrays unused; the pins that did not
     * get a slot held where they are by inverse mass 0) */
    sinew_buffer fresh[SINEW_BODY_BINDINGS], upload = {0};
    memset(fresh, 0, sizeof fresh);
    const sinew_buffer_plan plan[] = {
        {SINEW_BIND_ATTACH, sinew_attach_bytes(at), SINEW_MEMORY_DEVICE, "attachments and pins"},
        {0, UPLOAD_ATTACH(b) + sinew_attach_dynamic_bytes(at), SINEW_MEMORY_HOST, "step parameters (host)", 0, &upload},
    };
    r = sinew_buffers_create(ctx, plan, 2, fresh);
    if (r == SINEW_RESULT_OK)
        r = sinew_attach_upload(at, ctx, &fresh[SINEW_BIND_ATTACH]);
    if (r != SINEW_RESULT_OK) {
        sinew_buffer_destroy(ctx, &fresh[SINEW_BIND_ATTACH]);
        sinew_buffer_destroy(ctx, &upload);
        at->pin_capacity = old_capacity;
        return r;
    }
    sinew_buffer_destroy(ctx, &b->buffers[SINEW_BIND_ATTACH]);
    sinew_buffer_destroy(ctx, &b->upload);
    b->buffers[SINEW_BIND_ATTACH] = fresh[SINEW_BIND_ATTACH];
    b->upload = upload;
    sinew_bindings_destroy(ctx, &b->bindings);
    if ((r = sinew_body_make_bindings(b)) != SINEW_RESULT_OK || (r = sinew_body_rerecord(b)) != SINEW_RESULT_OK) {
        b->unrecorded = r;
        return r;
    }
    return SINEW_RESULT_OK;
}

/* The pins of xyzw (inverse mass 0, held by no attachment). */
static uint32_t pins_wanted(const sinew_body *b, const float *xyzw)
{
    uint32_t wanted = 0;
    for (uint32_t i = 0; i < b->particle_count; i++)
        wanted += xyzw[4 * i + 3] == 0.0f && b->attach.attached[i] == SINEW_ATTACH_NONE;
    return wanted;
}

sinew_result sinew_body_reserve_pins(sinew_body *b, const float *xyzw)
{
    if (!b->attach.on)
        return SINEW_RESULT_OK;
    const uint32_t wanted = pins_wanted(b, xyzw);
    return wanted > b->attach.pin_capacity ? sinew_body_grow_pins(b, wanted + 8) : SINEW_RESULT_OK;
}

sinew_result sinew_body_sync_pins(sinew_body *b, const float *xyzw)
{
    sinew_attach *at = &b->attach;
    if (!at->on)
        return SINEW_RESULT_OK;
    const uint32_t wanted = pins_wanted(b, xyzw);
    for (uint32_t i = 0; i < b->particle_count; i++)
        if (!(xyzw[4 * i + 3] == 0.0f && at->attached[i] == SINEW_ATTACH_NONE))
            sinew_attach_unpin(at, i);
    sinew_result r = SINEW_RESULT_OK;
    if (wanted > at->pin_capacity)
        r = sinew_body_grow_pins(b, wanted + 8);
    for (uint32_t i = 0; i < b->particle_count && r == SINEW_RESULT_OK; i++)
        if (xyzw[4 * i + 3] == 0.0f && at->attached[i] == SINEW_ATTACH_NONE) {
            int full;
            sinew_attach_pin(at, i, &xyzw[4 * i], &full);
        }
    return r;
}
