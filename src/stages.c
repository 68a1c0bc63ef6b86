/* The step as a list of stages, written once (docs/math.md section 1,
 * docs/architecture.md "One step"), after Box2D v3's solver stages
 * (b2SolverStage in solver.c: an enum of stages and one place that walks
 * them). The table below is every stage of a body's step in the order it
 * is recorded; sinew_body_record_stages walks it. The stages every body
 * has (the contact bodies' positions, the clearing, prediction, the
 * solver, velocities, health check, residual, statistics) are here; a
 * feature's stage is in its feature's file (stages.h). */
#include "stages.h"

#include "body.h"

/* Device traffic the body's kernels were designed to move, in bytes. */
#define BYTES_PREDICT 96u          /* pos, vel in; prev, vel, pos out */
#define BYTES_VELOCITY 48u         /* pos, prev in; vel out */
#define BYTES_VELOCITY_PREDICT 80u /* pos, prev in; prev, vel, pos out */

/* The health check of the particles, and of the tetrahedra among the
 * elements, in the velocity kernel (GpuRange.first2 = 1) or its own. */
static GpuRange health_range(const sinew_body *b, uint32_t *threads)
{
    const uint32_t n = b->particle_count, elements = b->tet_count ? b->element_count : 0;
    *threads = n > elements ? n : elements;
    return (GpuRange){0, n, 1, elements};
}

/* Designed traffic of the health check: per particle position and velocity,
 * per element the record 80 and four positions 64. */
static uint64_t health_bytes(const sinew_body *b, int with_velocity)
{
    const uint64_t elements = b->tet_count ? b->element_count : 0;
    return (with_velocity ? 0 : 32ull * b->particle_count) + 144ull * elements;
}

/* The other bodies' positions as their last steps left them, copied into
 * this one's self-collision buffer (body_contacts.c,
 * docs/self-collision.md). */
static void record_contact_positions(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    uint64_t ghost = b->self.ghost_offset;
    for (uint32_t k = 0; k < b->other_count; k++) {
        const uint64_t count = b->others[k]->particle_count;
        sinew_record_copy(r, &b->others[k]->buffers[SINEW_BIND_POS], 0, &b->buffers[SINEW_BIND_SELF_REAL], 16 * ghost,
                          16 * count);
        r->bytes += 32 * count;
        ghost += count;
    }
}

/* Unfused: the solver's per-substep state cleared by fills before the
 * prediction. Fused, the prediction clears it in its own pass (at->predict,
 * from record_reset). */
static void record_clear(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    const sinew_solver_ops *ops = sinew_body_ops(b);
    if (!ops->record_substep && ops->record_reset)
        ops->record_reset(b->state, &b->view, r, NULL);
}

/* The prediction, and, where the lead-in is carried, the velocities of the
 * substep before in the same pass (velocity_predict.comp). */
static void record_predict(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    if (sinew_body_ops(b)->record_substep)
        return;
    const uint64_t n = b->particle_count;
    if (at->carried) {
        sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY_PREDICT, at->predict_threads, &at->predict, sizeof at->predict);
        sinew_record_barrier(r);
        r->bytes += BYTES_VELOCITY_PREDICT * n + at->clear_bytes;
    } else {
        sinew_record_dispatch(r, SINEW_KERNEL_PREDICT, at->predict_threads, &at->predict, sizeof at->predict);
        sinew_record_barrier(r);
        r->bytes += BYTES_PREDICT * n + at->clear_bytes;
    }
}

/* The attachments' targets for this substep (attach.c). */
static void record_attachments(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    if (!sinew_body_ops(b)->record_substep)
        sinew_attach_record_substep(&b->attach, r, at->substep, at->substeps);
}

/* The solver: its iterations with their contacts, or its own substep. */
static void record_solver(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    const sinew_solver_ops *ops = sinew_body_ops(b);
    if (ops->record_substep)
        ops->record_substep(b->state, &b->view, r, at->substep);
    else
        ops->record_solve(b->state, &b->view, r);
}

/* The velocities no prediction carries: unfused, every substep's alone;
 * fused, the last substep's, with the health check when the body has one.
 * Fused, normals and residual follow without a barrier: they read
 * positions and write neither VEL nor STATS, and the residual's reduction,
 * which writes STATS, follows a barrier. */
static void record_velocities(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    if (sinew_body_ops(b)->record_substep)
        return;
    const uint32_t n = b->particle_count;
    if (at->fused && b->desc.health_check) {
        uint32_t threads;
        GpuRange velocity = health_range(b, &threads);
        sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY, threads, &velocity, sizeof velocity);
        sinew_record_independent(r);
        r->bytes += (uint64_t)BYTES_VELOCITY * n + health_bytes(b, 1);
        at->checked = 1;
        return;
    }
    GpuRange particles = {0, n};
    sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY, n, &particles, sizeof particles);
    if (at->fused)
        sinew_record_independent(r);
    else
        sinew_record_barrier(r);
    r->bytes += (uint64_t)BYTES_VELOCITY * n;
}

/* The health check in a dispatch of its own, unless the last velocities
 * ran it. Fused it comes first at the step's end and waits for nothing
 * (it writes STATS by integer atomics, beside normals and residual);
 * unfused it comes after the residual, behind a barrier (both write
 * STATS). */
static void record_health(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    if (!b->desc.health_check || at->checked)
        return;
    uint32_t threads;
    GpuRange health = health_range(b, &threads);
    health.first2 = 0;
    if (!at->fused && b->desc.residual)
        sinew_record_barrier(r);
    sinew_record_dispatch(r, SINEW_KERNEL_HEALTH, threads, &health, sizeof health);
    if (at->fused)
        sinew_record_independent(r);
    r->bytes += health_bytes(b, 0);
}

/* The strain residual, the error estimate's virtual works (where the body
 * has one, b->estimate) and the solver's own residual beside them (all read
 * positions and write their own parts of PARTIAL; the error estimate also
 * the step's end positions in REST), then, behind one barrier that also
 * orders the health check and normals before it, their reduction into
 * STATS. */
static void record_residual(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    if (!b->desc.residual)
        return;
    const uint32_t n = b->particle_count;
    const uint32_t groups = (uint32_t)sinew_residual_groups(b->distance_count, b->element_count, n);
    GpuRange residual = {b->estimate ? n : 0, b->distance_count, groups, b->element_count};
    GpuRange reduce = {groups, b->distance_count, 0, b->element_count};
    sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL, groups * SINEW_WORKGROUP_SIZE, &residual, sizeof residual);
    const sinew_solver_ops *ops = sinew_body_ops(b);
    if (ops->record_residual) {
        sinew_record_independent(r);
        reduce.first2 = ops->record_residual(b->state, &b->view, r, 2 * groups);
    }
    sinew_record_barrier(r);
    sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL_REDUCE, SINEW_REDUCE_SIZE, &reduce, sizeof reduce);
    r->bytes += 48ull * b->distance_count + 144ull * b->element_count + 64ull * groups +
                (b->estimate ? 80ull * n + 64ull * b->element_count : 0);
}

/* The residual and health phase's end, STATS to the body's readback
 * buffer, and the host barrier: positions and stats are read by the
 * host. */
static void record_statistics(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    if (b->desc.residual || b->desc.health_check)
        sinew_record_timestamp(r, SINEW_PHASE_RESIDUAL);
    sinew_record_copy(r, &b->buffers[SINEW_BIND_STATS], 0, &b->readback, 0, sizeof(GpuStats));
    sinew_record_host_barrier(r);
}

/* Every stage of the step, in recording order within each `when`. Fusion
 * is in the rows and in the walk:
 * - the solver's per-substep clearing is a stage of its own only unfused;
 *   fused, the prediction clears in its pass (at->predict, record_reset);
 * - fused, a substep's velocities run in the next substep's lead-in: its
 *   prediction becomes velocity_predict and the wind reads the velocities
 *   from the positions (at->carried, the walk);
 * - fused, the last velocities run the health check (at->checked), and the
 *   health check, normals and residual run without barriers between them
 *   (the health check first); unfused the health check comes after the
 *   residual, as its own `unfused` row. */
const sinew_stage sinew_stages[] = {
    {"contact bodies' positions", SINEW_STAGE_STEP_START, SINEW_STAGE_ALWAYS, record_contact_positions},
    {"clear", SINEW_STAGE_LEAD_IN, SINEW_STAGE_UNFUSED, record_clear},
    {"collider list", SINEW_STAGE_LEAD_IN, SINEW_STAGE_ALWAYS, sinew_shapes_record},
    {"wind", SINEW_STAGE_LEAD_IN, SINEW_STAGE_ALWAYS, sinew_wind_record},
    {"predict", SINEW_STAGE_LEAD_IN, SINEW_STAGE_ALWAYS, record_predict},
    {"attachments", SINEW_STAGE_SUBSTEP, SINEW_STAGE_ALWAYS, record_attachments},
    {"solver", SINEW_STAGE_SUBSTEP, SINEW_STAGE_ALWAYS, record_solver},
    {"velocities", SINEW_STAGE_VELOCITIES, SINEW_STAGE_ALWAYS, record_velocities},
    {"health", SINEW_STAGE_STEP_END, SINEW_STAGE_FUSED, record_health},
    {"normals", SINEW_STAGE_STEP_END, SINEW_STAGE_ALWAYS, sinew_normals_record},
    {"residual", SINEW_STAGE_STEP_END, SINEW_STAGE_ALWAYS, record_residual},
    {"health", SINEW_STAGE_STEP_END, SINEW_STAGE_UNFUSED, record_health},
    {"render mapping", SINEW_STAGE_STEP_END, SINEW_STAGE_ALWAYS, sinew_render_map_record},
    {"statistics", SINEW_STAGE_STEP_END, SINEW_STAGE_ALWAYS, record_statistics},
};
const uint32_t sinew_stage_count = sizeof sinew_stages / sizeof sinew_stages[0];

/* The stages of one `when`, those of this recording's fusion. */
static void walk(sinew_body *b, sinew_recorder *r, sinew_stage_at *at, sinew_stage_when when)
{
    for (uint32_t k = 0; k < sinew_stage_count; k++) {
        const sinew_stage *st = &sinew_stages[k];
        if (st->when == when &&
            (st->fusion == SINEW_STAGE_ALWAYS || (st->fusion == SINEW_STAGE_FUSED) == (at->fused != 0)))
            st->record(b, r, at);
    }
}

/* The prediction, the velocities and the health check work on each
 * particle alone, so the step runs them in as few dispatches as the
 * solver's work between them allows. Each particle sees the same
 * operations in the same order as when every stage is a dispatch of its
 * own (b->unfused), so both give the same bits. A solver with its own
 * substep (record_substep) has no prediction or velocities to carry. */
void sinew_body_record_stages(sinew_body *b, sinew_recorder *r)
{
    const sinew_solver_ops *ops = sinew_body_ops(b);
    const uint32_t n = b->particle_count, substeps = b->desc.substeps;
    sinew_stage_at at = {0, substeps, !b->unfused};
    at.predict = (GpuRange){0, n};
    if (at.fused && ops->record_reset)
        ops->record_reset(b->state, &b->view, r, &at.predict);
    const uint32_t cleared = at.predict.count2 > at.predict.slot_base ? at.predict.count2 : at.predict.slot_base;
    at.predict_threads = n > cleared ? n : cleared;
    at.clear_bytes = 4ull * at.predict.count2 + 16ull * at.predict.slot_base;
    const int carry = at.fused && !ops->record_substep;

    walk(b, r, &at, SINEW_STAGE_STEP_START);
    sinew_record_timestamp(r, SINEW_PHASE_START);
    for (uint32_t s = 0; s < substeps; s++) {
        at.substep = s;
        if (!at.carried)
            walk(b, r, &at, SINEW_STAGE_LEAD_IN);
        walk(b, r, &at, SINEW_STAGE_SUBSTEP);
        at.carried = carry && s + 1 < substeps;
        if (at.carried) { /* the next substep's lead-in, its prediction with these velocities */
            at.substep = s + 1;
            walk(b, r, &at, SINEW_STAGE_LEAD_IN);
        } else {
            walk(b, r, &at, SINEW_STAGE_VELOCITIES);
        }
        sinew_record_timestamp(r, SINEW_PHASE_VELOCITY);
    }
    walk(b, r, &at, SINEW_STAGE_STEP_END);
}
