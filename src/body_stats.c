/* After a step: its timestamps, statistics and health read back into the
 * body's sinew_step_stats, and a failed health check rolled back and
 * reported. */
#include "body.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sinew_body_read_timestamps(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    uint64_t *t = b->query_results;
    uint32_t count = b->query_count;
    if (count < 2 || ctx->vk.vkGetQueryPoolResults(ctx->device, b->queries, 0, count, count * sizeof *t, t, sizeof *t,
                                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
        return;
    ctx->counters.readback_bytes += count * sizeof *t;
    double phase[SINEW_PHASE_COUNT] = {0};
    for (uint32_t i = 1; i < count; i++)
        phase[b->query_phase[i]] += sinew_timestamp_ms(ctx, t[i - 1], t[i]);
    sinew_step_stats *s = &b->stats;
    s->ms_predict = phase[SINEW_PHASE_PREDICT];
    s->ms_solve = phase[SINEW_PHASE_SOLVE];
    s->ms_contacts = phase[SINEW_PHASE_CONTACTS];
    s->ms_velocity = phase[SINEW_PHASE_VELOCITY];
    s->ms_residual = b->desc.residual || b->desc.health_check ? phase[SINEW_PHASE_RESIDUAL] : -1.0;
    s->ms_total = sinew_timestamp_ms(ctx, t[0], t[count - 1]);
}

/* printf onto the end of the string in buf[size], truncating. */
static SINEW_PRINTF(3, 4) void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* The last step's tetrahedra are past desc.max_inverted or max_volume_error. */
static int elements_unhealthy(const sinew_body *b)
{
    const sinew_step_stats *s = &b->stats;
    return b->tet_count &&
           (s->inverted_elements > b->desc.max_inverted || s->max_volume_error > b->desc.max_volume_error);
}

/* The health check failed: undo the step if we can, and say what went wrong. */
static sinew_result unhealthy(sinew_body *b, int can_roll_back)
{
    sinew_context *ctx = b->ctx;
    sinew_step_stats *s = &b->stats;
    const uint64_t n = b->particle_count;
    if (b->desc.rollback && can_roll_back) {
        sinew_result r = sinew_buffer_copy(ctx, &b->saved, 0, &b->buffers[SINEW_BIND_POS], 0, 16 * n);
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_copy(ctx, &b->saved, 16 * n, &b->buffers[SINEW_BIND_VEL], 0, 16 * n);
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_copy(ctx, &b->saved, 32 * n, &b->buffers[SINEW_BIND_ANGLE], 0, 4ull * b->bend_count);
        if (r != SINEW_RESULT_OK)
            return r;
        s->rolled_back = 1;
        sinew_attach_rolled_back(&b->attach);
        if (sinew_body_ops(b)->rolled_back)
            sinew_body_ops(b)->rolled_back(b->state);
    } else {
        s->step_index++; /* the step happened, for better or worse */
    }
    /* what failed: the particles, the tetrahedra, or both */
    char what[512] = "";
    if (s->bad_particles)
        append(what, sizeof what,
               "%u of %u particles are not finite or faster than %g m/s (particles %u..%u; fastest finite %g m/s); ",
               s->bad_particles, b->particle_count, b->desc.max_speed, s->first_bad, s->last_bad, s->max_speed);
    if (b->tet_count && s->inverted_elements > b->desc.max_inverted)
        append(what, sizeof what,
               "%u of %u tetrahedra are inverted (det F <= 0; first: element %u), more than max_inverted %u; ",
               s->inverted_elements, b->tet_count, s->first_inverted, b->desc.max_inverted);
    if (b->tet_count && s->max_volume_error > b->desc.max_volume_error)
        append(what, sizeof what,
               "a tetrahedron's volume is off its rest volume by %g (|V/V0 - 1|), more than max_volume_error %g "
               "(%u inverted, first: element %u); ",
               s->max_volume_error, b->desc.max_volume_error, s->inverted_elements, s->first_inverted);
    return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "health", "body '%s', step %llu: %s%s", b->name,
                      (unsigned long long)s->step_index + s->rolled_back, what,
                      s->rolled_back ? "rolled back to the state before the step"
                      : can_roll_back ? "no rollback copy (desc.rollback = 0): the state is as the step left it"
                                      : "a recorded step is not rolled back: the state is as the step left it");
}

/* The step's submits, host waits and bytes read back, from the context's
 * counters before it. */
void sinew_body_count_step(sinew_body *b, const sinew_counters *before)
{
    const sinew_counters *now = &b->ctx->counters;
    sinew_step_stats *s = &b->stats;
    s->submits = (uint32_t)(now->submits - before->submits);
    s->host_waits = (uint32_t)(now->host_waits - before->host_waits);
    s->readback_bytes = now->readback_bytes - before->readback_bytes;
}

/* Whether the error estimate holds for the body
 * (sinew_step_stats.error_estimate, docs/accuracy.md): solids of
 * tetrahedra (b->estimate: the kernel ran) of the neo-Hookean materials.
 * Not MGPBD (its model is its own); not cloth or spring networks: their
 * deformation is mostly bending and turning, which the estimate's
 * projection on the displacement does not separate from their stiff
 * stretch (it over-reports a hanging cloth's error by some 300 times). */
static int error_measured(const sinew_body *b)
{
    if (!b->estimate)
        return 0;
    for (uint32_t m = 0; m < b->material_count; m++) {
        const sinew_material *mat = &b->materials[m];
        if (b->material_kinds[m] &&
            mat->model != SINEW_MATERIAL_NEO_HOOKEAN && mat->model != SINEW_MATERIAL_STABLE_NEO_HOOKEAN)
            return 0;
    }
    return 1;
}

/* The finished step's statistics into b->stats; a failed health check rolls
 * back (when the step may be and desc.rollback) and says so. */
sinew_result sinew_body_take_stats(sinew_body *b, int can_roll_back)
{
    GpuStats gs;
    memcpy(&gs, b->readback.mapped, sizeof gs);
    b->ctx->counters.readback_bytes += sizeof gs;
    sinew_step_stats *s = &b->stats;
    s->newton_iterations = gs.newton;
    s->loops_cut = gs.loops_cut;
    /* the implicit solvers' system is the substep's linear one */
    s->residual = sinew_body_ops(b)->record_substep && b->desc.residual ? (float)gs.linear_residual : gs.residual;
    s->linear_iterations = gs.linear_iterations;
    s->linear_residual = gs.linear_residual;
    s->linear_unconverged = gs.linear_unconverged;
    s->linear_fallback_iterations = gs.linear_fallback;
    s->self_candidates = gs.self_candidates;
    s->self_dropped = gs.self_dropped;
    s->self_contacts = gs.self_contacts;
    if (gs.self_dropped && !b->warned_self_dropped) {
        b->warned_self_dropped = 1;
        sinew_logf(&b->ctx->logger, SINEW_LOG_WARNING, "self-collision",
                   "body '%s': %u self-collision candidates did not fit in self_capacity (%u) in step %llu and "
                   "were not projected; raise self_capacity or lower the speed", b->name, gs.self_dropped,
                   b->desc.self_capacity, (unsigned long long)b->stats.step_index);
    }
    s->ms_linear = sinew_body_ops(b)->record_substep ? s->ms_solve : 0.0; /* the implicit solvers' solve phase */
    if (gs.loops_cut && !b->warned_loops_cut) {
        b->warned_loops_cut = 1;
        sinew_logf(&b->ctx->logger, SINEW_LOG_WARNING, "body",
                  "%u element updates ran past this device's loop limit (llvmpipe ends an invocation's loops after "
                  "65535 iterations) and were skipped; lower newton_iterations (%u) on this device", gs.loops_cut,
                  b->desc.newton_iterations);
    }
    if (b->desc.residual) {
        s->max_strain = gs.max_strain;
        s->rms_strain = gs.rms_strain;
        s->max_measure_error = b->element_count ? gs.max_measure_error : -1.0f;
        s->rms_measure_error = b->element_count ? gs.rms_measure_error : -1.0f;
        s->error_estimate = error_measured(b) ? gs.error : -1.0f;
    }
    s->rolled_back = 0;
    if (b->desc.health_check) {
        s->bad_particles = gs.bad_count;
        s->first_bad = gs.bad_count ? gs.first_bad : 0;
        s->last_bad = gs.last_bad;
        memcpy(&s->max_speed, &gs.max_speed, sizeof s->max_speed);
        if (b->tet_count) {
            s->inverted_elements = gs.inverted;
            s->first_inverted = gs.inverted ? gs.first_inverted : 0;
            memcpy(&s->max_volume_error, &gs.volume_error, sizeof s->max_volume_error);
        }
        if (gs.bad_count || elements_unhealthy(b))
            return unhealthy(b, can_roll_back);
    }
    s->step_index++;
    return SINEW_RESULT_OK;
}

void sinew_body_unmeasured(sinew_step_stats *s)
{
    s->max_strain = s->rms_strain = -1.0f;
    s->max_measure_error = s->rms_measure_error = -1.0f;
    s->error_estimate = -1.0f;
    s->max_speed = -1.0f;
    s->max_volume_error = -1.0f;
    s->ms_predict = s->ms_solve = s->ms_contacts = s->ms_velocity = -1.0;
    s->ms_residual = s->ms_total = -1.0;
}
