/* Projective dynamics of quad mass-spring networks, MATH.md section 7: Pall,
 * Nylén and Fratarcangeli, "Fast Quadrangular Mass-Spring Systems using
 * Red-Black Ordering", Algorithm 1, with the Jacobi and
 * Chebyshev-accelerated Jacobi (Wang 2015) global steps it is measured
 * against. One substep after the Verlet prediction:
 *
 *     y = prediction (Q)
 *     iterations x:  local step (every spring) -> global step with contacts
 *
 * The global step of red-black Gauss-Seidel is two dispatches, all red
 * particles then all black ones, in place; Jacobi's is one dispatch into a
 * second buffer and one that takes it (with Chebyshev's weight). Each
 * particle's contacts are resolved where it is updated, so every variant
 * takes three dispatches per iteration. */
#include "../body.h"

/* Designed traffic in bytes: local step per spring: record 16, two positions
 * 32, d 16. Global step per particle: position 16 in and 16 out, y 16, start
 * of the substep 16 (contacts), order 4, gather offsets 8; per spring end:
 * slot 4, record 16, other position 16, d 16. Apply per particle: iterate 16,
 * position 16 + 16, start of the substep 16, Chebyshev's previous iterate
 * 16 + 16. */
#define BYTES_LOCAL 64u
#define BYTES_GLOBAL_PARTICLE 76u
#define BYTES_GLOBAL_END 52u

/* Wang 2015, eq. 12: omega for iteration k (counted from 0 each substep),
 * plain Jacobi (omega 1) for the first `delay`. The CPU reference computes
 * the same sequence (tests/ref/pd_ref.c). */
static float chebyshev_omega(uint32_t k, uint32_t delay, double rho, double *omega)
{
    if (k < delay)
        *omega = 1.0;
    else if (k == delay)
        *omega = 2.0 / (2.0 - rho * rho);
    else
        *omega = 4.0 / (4.0 - rho * rho * *omega);
    return (float)*omega;
}

static void record_global(sinew_recorder *r, GpuRange range)
{
    sinew_record_dispatch(r, SINEW_KERNEL_PD_GLOBAL, range.count, &range, sizeof range);
    sinew_record_barrier(r);
    r->bytes += (uint64_t)BYTES_GLOBAL_PARTICLE * range.count;
}

void sinew_pd_record_substep(sinew_body *b, sinew_recorder *r)
{
    const uint32_t n = b->particle_count, d = b->distance_count;
    const sinew_solver solver = b->desc.solver;
    const int chebyshev = solver == SINEW_SOLVER_PD_CHEBYSHEV;
    sinew_record_copy(r, &b->buffers[SINEW_BIND_POS], 0, &b->buffers[SINEW_BIND_Q], 0, 16ull * n);
    r->bytes += 32ull * n;
    if (chebyshev) { /* the iterate before the first is y as well */
        sinew_record_copy(r, &b->buffers[SINEW_BIND_POS], 0, &b->buffers[SINEW_BIND_DELTA], 16ull * (d + n), 16ull * n);
        r->bytes += 32ull * n;
    }
    sinew_record_timestamp(r, SINEW_PHASE_PREDICT);
    double omega = 1.0;
    for (uint32_t it = 0; it < b->desc.iterations; it++) {
        GpuRange springs = {0, d};
        sinew_record_dispatch(r, SINEW_KERNEL_PD_LOCAL, d, &springs, sizeof springs);
        sinew_record_barrier(r);
        r->bytes += (uint64_t)BYTES_LOCAL * d;
        if (solver == SINEW_SOLVER_PD_RED_BLACK) {
            uint32_t reds = b->red_count;
            record_global(r, (GpuRange){0, reds});
            record_global(r, (GpuRange){reds, n - reds});
        } else {
            GpuRange global = {0, n, 1};
            global.slot_base = d;
            record_global(r, global);
            GpuRange apply = {0, n, (uint32_t)chebyshev};
            apply.slot_base = d;
            apply.distance_total = d + n;
            apply.weight = chebyshev ? chebyshev_omega(it, b->desc.chebyshev_delay, b->desc.chebyshev_rho, &omega) : 1.0f;
            sinew_record_dispatch(r, SINEW_KERNEL_PD_APPLY, n, &apply, sizeof apply);
            sinew_record_barrier(r);
            r->bytes += (chebyshev ? 96ull : 64ull) * n;
        }
        r->bytes += (uint64_t)BYTES_GLOBAL_END * 2 * d;
        sinew_record_timestamp(r, SINEW_PHASE_SOLVE); /* contacts included */
    }
}
