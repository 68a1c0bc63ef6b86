/* A body of a world's batch from the host: its particles are a range of the
 * batch's (merge map: particle_first), its bends scattered through the
 * batch's colours (bend_of). Each call here does what the body API does for
 * a body alone, on that range, through the batch's body. */
#include "body.h"

#include "math/xpbd_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static sinew_result out_of_memory(const sinew_body *b)
{
    return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
}

static sinew_result check_count(const sinew_body *b, uint32_t count, uint32_t want, const char *what)
{
    if (count != want)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "count %u does not match the body's %u %s", count, want, what);
    return SINEW_RESULT_OK;
}

/* The batch, its step finished. */
static sinew_body *settled_batch(sinew_body *b, sinew_result *r)
{
    sinew_body *t = sinew_member_batch(b, r);
    if (t && (*r = sinew_body_settle(t)) != SINEW_RESULT_OK)
        return NULL;
    return t;
}

sinew_result sinew_member_read(sinew_body *b, int binding, float *xyz, uint32_t count)
{
    sinew_result r = check_count(b, count, b->particle_count, "particles");
    sinew_body *t = r == SINEW_RESULT_OK ? settled_batch(b, &r) : NULL;
    if (!t)
        return r;
    const uint64_t p0 = b->map.particle_first;
    /* pins moved since the last step sit at their targets: those are the
     * batch's, by its particle indices */
    const int overlay = binding == SINEW_BIND_POS && t->attach.on;
    const uint64_t first = overlay ? 0 : p0, n = overlay ? t->particle_count : count;
    float *tmp = malloc(16 * n + 16);
    if (!tmp)
        return out_of_memory(b);
    r = sinew_buffer_download(b->ctx, &t->buffers[binding], 16 * first, tmp, 16 * n);
    if (overlay)
        sinew_attach_overlay(&t->attach, tmp, 4);
    const float *own = overlay ? tmp + 4 * p0 : tmp;
    for (uint32_t i = 0; r == SINEW_RESULT_OK && i < count; i++)
        memcpy(&xyz[3 * i], &own[4 * i], 12);
    free(tmp);
    return r;
}

sinew_result sinew_member_read_render(sinew_body *b, float *out, uint32_t count)
{
    sinew_result r = check_count(b, count, b->render_vertex_count, "render vertices");
    sinew_body *t = r == SINEW_RESULT_OK ? settled_batch(b, &r) : NULL;
    if (!t)
        return r;
    /* RENDER: the map (64 bytes a vertex), then the output */
    const uint64_t bytes = 4ull * SINEW_RENDER_OUTPUT_FLOATS;
    return sinew_buffer_download(b->ctx, &t->buffers[SINEW_BIND_RENDER],
                                 64ull * t->render_vertex_count + bytes * b->map.rvertex_first, out, bytes * count);
}

sinew_result sinew_member_write_positions(sinew_body *b, const float *xyz, uint32_t count)
{
    sinew_result r = check_count(b, count, b->particle_count, "particles");
    sinew_body *t = r == SINEW_RESULT_OK ? settled_batch(b, &r) : NULL;
    if (!t)
        return r;
    for (uint32_t i = 0; i < 3 * count; i++)
        if (!isfinite(xyz[i]))
            return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "position of particle %u is not finite", i / 3);
    const size_t n = t->particle_count, p0 = b->map.particle_first;
    float *state = malloc(4 * sinew_body_state_floats(t) + 4);
    if (!state)
        return out_of_memory(b);
    if ((r = sinew_body_download_state(t, state)) == SINEW_RESULT_OK) {
        for (uint32_t i = 0; i < count; i++) { /* at rest where written; inverse masses kept */
            memcpy(&state[4 * (p0 + i)], &xyz[3 * i], 12);
            memset(&state[4 * (n + p0 + i)], 0, 16);
        }
        /* each hinge's angle afresh, on the branch nearest its rest angle */
        for (uint32_t c = 0; c < b->bend_count; c++) {
            const sinew_bend_rec *e = &b->asset->bends[c];
            double p[4][3];
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < 3; k++)
                    p[j][k] = xyz[3 * e->v[j] + k];
            int ok = 0;
            const double theta = sinew_dihedral_angle(p[0], p[1], p[2], p[3], &ok);
            state[8 * n + b->map.bend_of[c]] = ok ? (float)sinew_unwrap_angle(theta, e->rest_angle) : e->rest_angle;
        }
        r = sinew_body_load_state(t, state, 0);
    }
    const sinew_solver_ops *ops = sinew_body_ops(t);
    if (r == SINEW_RESULT_OK && ops->moved)
        r = ops->moved(t->state, &t->view, (uint32_t)p0, count, &state[4 * p0], 1);
    free(state);
    return r;
}

