/* The step of every position-based solver, MATH.md sections 1-4: XPBD
 * (Macklin, Müller and Chentanez 2016) and Generalized PBD element updates,
 * colour-batched Gauss-Seidel or Jacobi with per-particle gather, and the
 * coarse-to-fine sweep of Hierarchical PBD (Müller 2008, section 7). The
 * recording reads like the algorithm: dispatch, barrier, dispatch. */
#include "../body.h"

/* Device traffic each kernel was designed to move, in bytes (reads + writes):
 * distance: record 16, two positions read 32 and written 32, lambda 4 + 4;
 * bend: record 32, four positions read 64 and written 64, lambda 4 + 4,
 * hinge angle 4 + 4. */
#define BYTES_DISTANCE 88u
#define BYTES_BEND 176u
#define BYTES_PREDICT 96u   /* pos, vel in; prev, vel, pos out */
#define BYTES_COLLIDE 48u   /* pos, prev in; pos out */
#define BYTES_VELOCITY 48u  /* pos, prev in; vel out */
/* GPBD element: record 80, material 208 (cached in practice), per vertex
 * position 16 + 16 and z 16 + 16. */
#define BYTES_ELEMENT(nv) (288u + 64u * (nv))

/* Tetrahedra; an upper bound for the other kinds. */
static uint64_t element_bytes(uint32_t count) { return (uint64_t)BYTES_ELEMENT(4) * count; }

/* GPBD Gauss-Seidel: one dispatch per element colour. */
static void record_element_colours(sinew_body *b, sinew_recorder *r)
{
    for (uint32_t c = 0; c < b->element_colour_count; c++) {
        const sinew_element_colour_rec *col = &b->element_colours[c];
        GpuRange push = {col->begin, col->count};
        sinew_record_dispatch(r, SINEW_KERNEL_GPBD_COLOUR, col->count, &push, sizeof push);
        sinew_record_barrier(r);
        r->bytes += element_bytes(col->count);
    }
}

static void record_colour(sinew_body *b, sinew_recorder *r, uint32_t c)
{
    const sinew_colour_rec *col = &b->colours[c];
    GpuRange push = {col->distance_begin, col->distance_count, col->bend_begin, col->bend_count, b->distance_count};
    sinew_record_dispatch(r, SINEW_KERNEL_PROJECT_COLOUR, col->distance_count + col->bend_count, &push, sizeof push);
    sinew_record_barrier(r); /* the next colour reads what this one wrote */
    r->bytes += (uint64_t)BYTES_DISTANCE * col->distance_count + (uint64_t)BYTES_BEND * col->bend_count;
}

/* Forward over the colours; the symmetric solver then comes back, leaving out
 * the last colour, which a second projection in a row would not move. With
 * SINEW_SWEEP_ALTERNATING every second iteration runs backwards (HPBD's
 * default, the paper's: two iterations, the second in the opposite order). */
static void record_gauss_seidel(sinew_body *b, sinew_recorder *r, uint32_t iteration)
{
    if (b->desc.sweep_order == SINEW_SWEEP_ALTERNATING && iteration % 2 == 1) {
        for (uint32_t c = b->colour_count; c-- > 0;)
            record_colour(b, r, c);
        return;
    }
    for (uint32_t c = 0; c < b->colour_count; c++)
        record_colour(b, r, c);
    if (b->desc.solver == SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL && b->colour_count > 1)
        for (uint32_t c = b->colour_count - 1; c-- > 0;)
            record_colour(b, r, c);
}

static void record_jacobi(sinew_body *b, sinew_recorder *r)
{
    GpuRange project = {0, b->distance_count, 0, b->bend_count, b->distance_count};
    if (b->distance_count + b->bend_count) {
        sinew_record_dispatch(r, SINEW_KERNEL_JACOBI_PROJECT, b->distance_count + b->bend_count, &project,
                              sizeof project);
        sinew_record_barrier(r);
    }
    if (b->element_count) {
        GpuRange elements = {0, b->element_count};
        elements.slot_base = 2 * b->distance_count + 4 * b->bend_count;
        sinew_record_dispatch(r, SINEW_KERNEL_GPBD_JACOBI, b->element_count, &elements, sizeof elements);
        sinew_record_barrier(r);
        r->bytes += element_bytes(b->element_count);
    }
    GpuRange apply = {0, b->particle_count};
    sinew_record_dispatch(r, SINEW_KERNEL_JACOBI_APPLY, b->particle_count, &apply, sizeof apply);
    sinew_record_barrier(r);
    /* Project: as Gauss-Seidel but corrections go to DELTA (16 B per vertex)
     * instead of positions. Apply: per particle pos in/out, two offsets, and
     * per incident slot an index and a correction. */
    uint64_t slots = 2ull * b->distance_count + 4ull * b->bend_count + 4ull * b->element_count;
    r->bytes += (uint64_t)(BYTES_DISTANCE - 32) * b->distance_count + (uint64_t)(BYTES_BEND - 64) * b->bend_count +
                16ull * slots + (16ull + 16 + 8) * b->particle_count + 20ull * slots;
}

/* Contacts of the particles of one level: HNODE[0, count). */
static void record_level_contacts(sinew_body *b, sinew_recorder *r, uint32_t count)
{
    GpuRange range = {0, count, 1};
    sinew_record_dispatch(r, SINEW_KERNEL_COLLIDE, count, &range, sizeof range);
    sinew_record_barrier(r);
    r->bytes += (uint64_t)(BYTES_COLLIDE + 16) * count;
}

/* Particles of `level` that no coarser level holds take their parents'
 * corrections. */
static void record_prolongation(sinew_body *b, sinew_recorder *r, uint32_t level)
{
    uint32_t first = b->levels[level + 1].particle_count;
    GpuRange range = {first, b->levels[level].particle_count - first};
    sinew_record_dispatch(r, SINEW_KERNEL_HPBD_PROLONG, range.count, &range, sizeof range);
    sinew_record_barrier(r);
    /* node 16, own position 16 + 16, per link 8 + parent's position and q 32 */
    uint64_t links = 0;
    for (uint32_t i = first; i < first + range.count; i++)
        links += b->nodes[i].count;
    r->bytes += 48ull * range.count + 40ull * links;
}

/* Müller 2008, section 7: save q, then from the coarsest level down to level 1
 * sweep the level's coarse constraints colour by colour with its particles'
 * contacts, prolongating the corrections to each finer level, and finally to
 * level 0 (whose own iterations follow). */
static void record_hierarchy(sinew_body *b, sinew_recorder *r)
{
    const uint64_t n = b->particle_count;
    sinew_record_copy(r, &b->buffers[SINEW_BIND_POS], 0, &b->buffers[SINEW_BIND_Q], 0, 16 * n);
    r->bytes += 32 * n;
    for (uint32_t level = b->level_count - 1; level >= 1; level--) {
        const sinew_level_rec *lv = &b->levels[level];
        if (level + 1 < b->level_count)
            record_prolongation(b, r, level);
        for (uint32_t it = 0; it < b->desc.level_iterations; it++)
            for (uint32_t c = lv->colour_begin; c < lv->colour_begin + lv->colour_count; c++) {
                GpuRange range = {b->hcolours[c].begin, b->hcolours[c].count};
                sinew_record_dispatch(r, SINEW_KERNEL_HPBD_PROJECT, range.count, &range, sizeof range);
                sinew_record_barrier(r);
                r->bytes += (uint64_t)(BYTES_DISTANCE - 8) * range.count;
            }
        record_level_contacts(b, r, lv->particle_count);
    }
    record_prolongation(b, r, 0);
}

void sinew_xpbd_record(sinew_body *b, sinew_recorder *r)
{
    const uint32_t n = b->particle_count;
    GpuRange particles = {0, n};
    sinew_record_timestamp(r, SINEW_PHASE_START);
    const int pd = sinew_solver_is_pd(b->desc.solver);
    for (uint32_t s = 0; s < b->desc.substeps; s++) {
        if (!pd)
            sinew_record_fill(r, &b->buffers[SINEW_BIND_LAMBDA], 0); /* lambda = 0 each substep */
        if (b->element_count)
            sinew_record_fill(r, &b->buffers[SINEW_BIND_ZDISP], 0); /* and z */
        sinew_record_dispatch(r, SINEW_KERNEL_PREDICT, n, &particles, sizeof particles);
        sinew_record_barrier(r);
        r->bytes += (pd ? 0 : 4ull * (b->distance_count + b->bend_count)) + (uint64_t)BYTES_PREDICT * n;
        if (pd) {
            sinew_pd_record_substep(b, r); /* with its own timestamps */
        } else {
            sinew_record_timestamp(r, SINEW_PHASE_PREDICT);
            if (b->level_count) {
                record_hierarchy(b, r);
                sinew_record_timestamp(r, SINEW_PHASE_SOLVE);
            }
        }
        for (uint32_t it = 0; it < b->desc.iterations && !pd; it++) {
            if (b->desc.solver == SINEW_SOLVER_XPBD_JACOBI || b->desc.solver == SINEW_SOLVER_GPBD_JACOBI) {
                record_jacobi(b, r);
            } else {
                record_element_colours(b, r);
                record_gauss_seidel(b, r, it);
            }
            sinew_record_timestamp(r, SINEW_PHASE_SOLVE);
            sinew_record_dispatch(r, SINEW_KERNEL_COLLIDE, n, &particles, sizeof particles);
            sinew_record_barrier(r);
            r->bytes += (uint64_t)BYTES_COLLIDE * n;
            sinew_record_timestamp(r, SINEW_PHASE_CONTACTS);
        }
        sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY, n, &particles, sizeof particles);
        sinew_record_barrier(r);
        r->bytes += (uint64_t)BYTES_VELOCITY * n;
        sinew_record_timestamp(r, SINEW_PHASE_VELOCITY);
    }
    sinew_record_step_end(b, r);
}

void sinew_record_step_end(sinew_body *b, sinew_recorder *r)
{
    const uint32_t n = b->particle_count;
    GpuRange particles = {0, n};
    if (b->normals) {
        sinew_record_dispatch(r, SINEW_KERNEL_NORMALS, n, &particles, sizeof particles);
        sinew_record_barrier(r);
        /* per particle: offsets 8, position 16, normal 16; per corner: pair 8, two positions 32 */
        r->bytes += 40ull * n + 3ull * 40 * b->triangle_count;
    }
    if (b->desc.residual) {
        uint32_t items = b->distance_count > b->element_count ? b->distance_count : b->element_count;
        uint32_t groups = (items + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
        GpuRange residual = {0, b->distance_count, 0, b->element_count};
        GpuRange reduce = {groups, b->distance_count, 0, b->element_count};
        sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL, items, &residual, sizeof residual);
        sinew_record_barrier(r);
        sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL_REDUCE, SINEW_REDUCE_SIZE, &reduce, sizeof reduce);
        r->bytes += 48ull * b->distance_count + 144ull * b->element_count + 32ull * groups;
    }
    if (b->desc.health_check) {
        if (b->desc.residual)
            sinew_record_barrier(r); /* both write STATS */
        sinew_record_dispatch(r, SINEW_KERNEL_HEALTH, n, &particles, sizeof particles);
        r->bytes += 32ull * n;
    }
    if (b->desc.residual || b->desc.health_check)
        sinew_record_timestamp(r, SINEW_PHASE_RESIDUAL);
    sinew_record_host_barrier(r); /* positions and stats are read by the host */
}
