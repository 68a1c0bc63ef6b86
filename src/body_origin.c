/* A body's origin (desc.origin): read, and shifted by moving every
 * position its state holds (the particles', the pins' anchors, the solver's
 * positions) the other way. */
#include "body.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* sinew_body_shift_origin's work: every position the state holds (the
 * particles', the pins' anchors, the step before's positions) less `by`. */
static sinew_result sinew_body_translate_state(sinew_body *b, const float by[3])
{
    sinew_result r = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (r != SINEW_RESULT_OK)
        return r;
    const uint64_t n = b->particle_count;
    sinew_state_part parts[SINEW_STATE_MAX_PARTS];
    const uint32_t count = sinew_body_state_parts(b, parts);
    float *x = malloc(16 * n);
    if (!x)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    /* the positions, then each part holding positions: its first n vec4s */
    for (int32_t i = -1; i < (int32_t)count && r == SINEW_RESULT_OK; i++) {
        sinew_buffer *buf = i < 0 ? &b->buffers[SINEW_BIND_POS] : parts[i].buffer;
        if (i >= 0 && !(parts[i].present &&
                        (parts[i].flag == SINEW_STATE_ANCHORS || parts[i].flag == SINEW_STATE_HISTORY)))
            continue;
        r = sinew_buffer_download(b->ctx, buf, 0, x, 16 * n);
        for (uint64_t j = 0; j < n && r == SINEW_RESULT_OK; j++)
            for (int k = 0; k < 3; k++)
                x[4 * j + k] -= by[k];
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_upload(b->ctx, buf, 0, x, 16 * n);
    }
    free(x);
    if (r == SINEW_RESULT_OK)
        sinew_attach_translate(&b->attach, by);
    return r;
}

void sinew_body_get_origin(const sinew_body *b, double origin[3])
{
    SINEW_ASSERT(b && origin);
    memcpy(origin, b->desc.origin, sizeof b->desc.origin);
}

sinew_result sinew_body_shift_origin(sinew_body *b, const double by[3])
{
    SINEW_ASSERT(b && by);
    if (b->world)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s' is in world '%s': its bodies share one origin (a world origin is not yet "
                          "supported); nothing was changed", b->name, b->world_name);
    for (int k = 0; k < 3; k++)
        if (!(fabs(by[k]) <= 1e9))
            return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': origin shift (%g, %g, %g) is not finite or beyond 1e9 m; nothing was changed",
                              b->name, by[0], by[1], by[2]);
    const float f[3] = {(float)by[0], (float)by[1], (float)by[2]};
    sinew_result r = sinew_body_translate_state(b, f);
    if (r != SINEW_RESULT_OK)
        return r;
    for (int k = 0; k < 3; k++)
        b->desc.origin[k] += (double)f[k];
    return SINEW_RESULT_OK;
}
