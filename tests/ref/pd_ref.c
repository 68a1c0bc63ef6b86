/* CPU double-precision reference of red-black projective dynamics for quad
 * mass-spring cloth (docs/math.md 7), following Pall et al., "Fast Quadrangular
 * Mass-Spring Systems using Red-Black Ordering", sections 3-4, and for the
 * Chebyshev variant Wang, "A Chebyshev semi-iterative approach for
 * accelerating projective and position-based dynamics" (2015).
 *
 * The global step minimises, for each particle with the others held,
 *
 *     m_i/(2h^2) |p_i - y_i|^2 + sum_j s_ij/2 |p_i - p_j - d_ij|^2,
 *
 * with d_ij the local solution oriented from j to i. Its gradient vanishes at
 *
 *     p_i = (m_i/h^2 y_i + sum_j s_ij (p_j + d_ij)) / (m_i/h^2 + sum_j s_ij),
 *
 * and a spring at rest length gives p_j + d_ij = p_j + (p_i - p_j) = p_i: a
 * body at rest with y = x is a fixed point. For spring (a, b) the reference
 * keeps d = L (p_a - p_b)/|p_a - p_b|; particle a adds p_b + d, particle b
 * adds p_a - d.
 *
 * The local step runs once per iteration, before both colours: Pall et al.'s
 * Algorithm 1 computes it at the top of each non-linear iteration and then
 * sweeps red and black in the inner loop without recomputing it (one inner
 * sweep per iteration here). Every variant uses this rule, so one red-black
 * iteration is one Gauss-Seidel sweep in the order reds, then blacks.
 *
 * A spring whose ends coincide (|p_a - p_b| <= 1e-12 L) keeps its previous
 * d, starting from the direction at creation, or L along x when that is
 * degenerate too: the term stays in numerator and denominator, so the
 * matrix of the global step never changes. */
#include "pd_ref.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct incidence {
    uint32_t spring;
    uint32_t other;
    double sign; /* +1: this particle is the spring's i (adds p_j + d), -1: its j */
} incidence;

struct pd_ref {
    uint32_t n, spring_count;
    double *x, *x_prev, *y, *p; /* 3n each: x(t), x(t-h), prediction, iterate */
    double *p_prev;             /* 3n: Chebyshev's x^{k-1} */
    double *tmp;                /* 3n: the Jacobi iterate */
    double *w;                  /* n: 1/kg, 0 = pinned */
    double *d;                  /* 3 per spring: local solution */
    pd_ref_spring *springs;
    uint8_t *colours;           /* n, or NULL */
    uint32_t *inc_start;        /* n + 1 */
    incidence *inc;             /* 2 per spring */
    double inertia_scale;       /* 1/h^2 of the current step */
    uint32_t k;                 /* iterations since begin_step */
    double omega;               /* Chebyshev weight of the last iteration */
};

pd_ref_step_params pd_ref_step_params_default(void)
{
    return (pd_ref_step_params){
        .dt = 1.0 / 60.0,
        .gravity = {0.0, -9.81, 0.0},
        .damping = 0.0,
        .iterations = 16,
        .variant = PD_REF_RED_BLACK,
        .rho = 0.95,
        .delay = 1,
    };
}

static double *dup_or_zero(const double *src, size_t count)
{
    double *dst = calloc(count + 1, sizeof(double));
    if (src)
        memcpy(dst, src, count * sizeof(double));
    return dst;
}

pd_ref *pd_ref_create(uint32_t n, const double *positions, const double *inv_mass,
                      uint32_t spring_count, const pd_ref_spring *springs, const uint8_t *colours)
{
    pd_ref *r = calloc(1, sizeof *r);
    r->n = n;
    r->spring_count = spring_count;
    r->x = dup_or_zero(positions, 3 * (size_t)n);
    r->x_prev = dup_or_zero(positions, 3 * (size_t)n);
    r->y = dup_or_zero(positions, 3 * (size_t)n);
    r->p = dup_or_zero(positions, 3 * (size_t)n);
    r->p_prev = dup_or_zero(positions, 3 * (size_t)n);
    r->tmp = dup_or_zero(positions, 3 * (size_t)n);
    r->w = dup_or_zero(inv_mass, n);
    r->d = calloc(3 * (size_t)spring_count + 1, sizeof(double));
    r->springs = calloc(spring_count + 1, sizeof *r->springs);
    memcpy(r->springs, springs, spring_count * sizeof *springs);
    if (colours) {
        r->colours = malloc(n + 1);
        memcpy(r->colours, colours, n);
        for (uint32_t i = 0; i < n; i++)
            assert(colours[i] <= 1 && "colour 0 = red, 1 = black");
    }
    r->inc_start = calloc(n + 1, sizeof(uint32_t));
    r->inc = calloc(2 * (size_t)spring_count + 1, sizeof *r->inc);
    for (uint32_t s = 0; s < spring_count; s++) {
        assert(springs[s].i < n && springs[s].j < n && springs[s].i != springs[s].j);
        r->inc_start[springs[s].i]++;
        r->inc_start[springs[s].j]++;
    }
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = r->inc_start[i];
        r->inc_start[i] = sum;
        sum += c;
    }
    r->inc_start[n] = sum;
    uint32_t *fill = calloc(n + 1, sizeof(uint32_t));
    for (uint32_t s = 0; s < spring_count; s++) {
        uint32_t a = springs[s].i, b = springs[s].j;
        r->inc[r->inc_start[a] + fill[a]++] = (incidence){s, b, 1.0};
        r->inc[r->inc_start[b] + fill[b]++] = (incidence){s, a, -1.0};
        r->d[3 * s] = springs[s].rest; /* replaced below unless the ends coincide */
    }
    free(fill);
    r->inertia_scale = 3600.0;
    for (uint32_t s = 0; s < spring_count; s++) {
        const pd_ref_spring *sp = &springs[s];
        const double *pa = &r->x[3 * sp->i], *pb = &r->x[3 * sp->j];
        double e[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
        double len = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        if (len > 1e-12 * sp->rest)
            for (int c = 0; c < 3; c++)
                r->d[3 * s + c] = sp->rest * e[c] / len;
    }
    return r;
}

void pd_ref_destroy(pd_ref *r)
{
    if (!r)
        return;
    free(r->x);
    free(r->x_prev);
    free(r->y);
    free(r->p);
    free(r->p_prev);
    free(r->tmp);
    free(r->w);
    free(r->d);
    free(r->springs);
    free(r->colours);
    free(r->inc_start);
    free(r->inc);
    free(r);
}

/* Algorithm 3: d = L (p_a - p_b)/|p_a - p_b| from the current iterate. */
static void local_step(pd_ref *r)
{
    for (uint32_t s = 0; s < r->spring_count; s++) {
        const pd_ref_spring *sp = &r->springs[s];
        const double *pa = &r->p[3 * sp->i], *pb = &r->p[3 * sp->j];
        double e[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
        double len = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        if (len <= 1e-12 * sp->rest)
            continue; /* ends coincide: keep the previous direction */
        for (int c = 0; c < 3; c++)
            r->d[3 * s + c] = sp->rest * e[c] / len;
    }
}

/* Equation 6 for particle i, neighbours read from src, result to dst. */
static void global_particle(const pd_ref *r, uint32_t i, const double *src, double *dst)
{
    if (r->w[i] == 0.0) {
        memcpy(&dst[3 * i], &r->p[3 * i], 3 * sizeof(double));
        return;
    }
    double inertia = r->inertia_scale / r->w[i];
    double num[3] = {inertia * r->y[3 * i], inertia * r->y[3 * i + 1], inertia * r->y[3 * i + 2]};
    double den = inertia;
    for (uint32_t k = r->inc_start[i]; k < r->inc_start[i + 1]; k++) {
        const incidence *in = &r->inc[k];
        double s = r->springs[in->spring].stiffness;
        const double *pj = &src[3 * in->other], *d = &r->d[3 * in->spring];
        for (int c = 0; c < 3; c++)
            num[c] += s * (pj[c] + in->sign * d[c]);
        den += s;
    }
    for (int c = 0; c < 3; c++)
        dst[3 * i + c] = num[c] / den;
}

void pd_ref_begin_step(pd_ref *r, const pd_ref_step_params *p)
{
    assert(p->dt > 0.0);
    double h2 = p->dt * p->dt;
    r->inertia_scale = 1.0 / h2;
    for (uint32_t i = 0; i < r->n; i++)
        for (int c = 0; c < 3; c++) {
            size_t e = 3 * (size_t)i + c;
            /* Algorithm 2 with f_ext = m g: pinned particles keep x(t). */
            r->y[e] = r->w[i] == 0.0
                          ? r->x[e]
                          : r->x[e] + (1.0 - p->damping) * (r->x[e] - r->x_prev[e]) + h2 * p->gravity[c];
        }
    memcpy(r->p, r->y, 3 * (size_t)r->n * sizeof(double));
    memcpy(r->p_prev, r->y, 3 * (size_t)r->n * sizeof(double));
    r->k = 0;
    r->omega = 1.0;
}

/* Wang 2015, eq. 12, with the acceleration starting after `delay` iterations. */
static double chebyshev_omega(uint32_t k, uint32_t delay, double rho, double prev_omega)
{
    if (k < delay)
        return 1.0;
    if (k == delay)
        return 2.0 / (2.0 - rho * rho);
    return 4.0 / (4.0 - rho * rho * prev_omega);
}

void pd_ref_iterate(pd_ref *r, const pd_ref_step_params *p)
{
    size_t bytes = 3 * (size_t)r->n * sizeof(double);
    local_step(r);
    switch (p->variant) {
    case PD_REF_RED_BLACK:
        assert(r->colours && "red-black needs colours");
        /* In place within a colour is the parallel update: no spring joins
         * two particles of one colour. */
        for (uint8_t colour = 0; colour < 2; colour++)
            for (uint32_t i = 0; i < r->n; i++)
                if (r->colours[i] == colour)
                    global_particle(r, i, r->p, r->p);
        break;
    case PD_REF_SERIAL:
        for (uint32_t i = 0; i < r->n; i++)
            global_particle(r, i, r->p, r->p);
        break;
    case PD_REF_JACOBI:
        for (uint32_t i = 0; i < r->n; i++)
            global_particle(r, i, r->p, r->tmp);
        memcpy(r->p, r->tmp, bytes);
        break;
    case PD_REF_CHEBYSHEV: {
        for (uint32_t i = 0; i < r->n; i++)
            global_particle(r, i, r->p, r->tmp);
        double omega = chebyshev_omega(r->k, p->delay, p->rho, r->omega);
        r->omega = omega;
        for (uint32_t i = 0; i < r->n; i++) {
            if (r->w[i] == 0.0)
                continue;
            for (int c = 0; c < 3; c++) {
                size_t e = 3 * (size_t)i + c;
                double next = omega * (r->tmp[e] - r->p_prev[e]) + r->p_prev[e];
                r->p_prev[e] = r->p[e];
                r->p[e] = next;
            }
        }
        break;
    }
    }
    r->k++;
}

void pd_ref_end_step(pd_ref *r)
{
    size_t bytes = 3 * (size_t)r->n * sizeof(double);
    memcpy(r->x_prev, r->x, bytes);
    memcpy(r->x, r->p, bytes);
}

void pd_ref_step(pd_ref *r, const pd_ref_step_params *p)
{
    pd_ref_begin_step(r, p);
    for (uint32_t it = 0; it < p->iterations; it++)
        pd_ref_iterate(r, p);
    pd_ref_end_step(r);
}

const double *pd_ref_position(const pd_ref *r, uint32_t i)
{
    assert(i < r->n);
    return &r->p[3 * i];
}

void pd_ref_set_position(pd_ref *r, uint32_t i, const double xyz[3])
{
    assert(i < r->n);
    for (int c = 0; c < 3; c++)
        r->x[3 * i + c] = r->x_prev[3 * i + c] = r->y[3 * i + c] = r->p[3 * i + c] =
            r->p_prev[3 * i + c] = xyz[c];
}

double pd_ref_error(const pd_ref *r)
{
    double sum = 0.0;
    for (uint32_t s = 0; s < r->spring_count; s++) {
        const pd_ref_spring *sp = &r->springs[s];
        const double *pa = &r->p[3 * sp->i], *pb = &r->p[3 * sp->j];
        double e[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
        double c = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) - sp->rest;
        sum += c * c;
    }
    return sum;
}

uint32_t pd_ref_monochrome_springs(const pd_ref *r)
{
    if (!r->colours)
        return r->spring_count;
    uint32_t bad = 0;
    for (uint32_t s = 0; s < r->spring_count; s++)
        bad += r->colours[r->springs[s].i] == r->colours[r->springs[s].j];
    return bad;
}
