/* Projective dynamics for quad mass-spring cloth (tests/ref/pd_ref.c, docs/math.md
 * 7, Pall et al.): on quad grids with springs along the edges only, the
 * colouring (i + j) even = red is a valid red-black colouring; one red-black
 * iteration is one serial Gauss-Seidel sweep over reds then blacks; the
 * spring error falls with iterations for every variant, red-black faster than
 * Jacobi and Chebyshev faster than Jacobi; a network at rest stays at rest and
 * pinned particles never move. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "ref/pd_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct grid {
    uint32_t n, count, spring_count;
    double *x, *w;
    pd_ref_spring *springs;
    uint8_t *colours;
} grid;

/* side x side particles spaced 1 m apart in the xy plane, row-major, springs
 * along the grid edges (no diagonals), red = (row + col) even. */
static grid grid_make(uint32_t side, double stiffness)
{
    grid g = {.n = side, .count = side * side};
    g.x = calloc(3 * g.count, sizeof(double));
    g.w = calloc(g.count, sizeof(double));
    g.colours = calloc(g.count, 1);
    g.springs = calloc(2 * side * (side - 1) + 1, sizeof *g.springs); /* + a diagonal */
    for (uint32_t r = 0; r < side; r++)
        for (uint32_t c = 0; c < side; c++) {
            uint32_t i = r * side + c;
            g.x[3 * i] = c;
            g.x[3 * i + 1] = -(double)r;
            g.w[i] = 1.0;
            g.colours[i] = (r + c) % 2;
            if (c + 1 < side)
                g.springs[g.spring_count++] = (pd_ref_spring){i, i + 1, 1.0, stiffness};
            if (r + 1 < side)
                g.springs[g.spring_count++] = (pd_ref_spring){i, i + side, 1.0, stiffness};
        }
    return g;
}

static void grid_free(grid *g)
{
    free(g->x);
    free(g->w);
    free(g->colours);
    free(g->springs);
}

/* Deterministic in [-1, 1). */
static double noise(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / 4503599627370496.0 - 1.0;
}

/* Scales positions about the grid's centre by `stretch` and adds up to
 * `jitter` m in each coordinate. */
static void grid_perturb(grid *g, double stretch, double jitter, uint64_t seed)
{
    double centre = 0.5 * (g->n - 1);
    for (uint32_t i = 0; i < g->count; i++) {
        g->x[3 * i] = centre + stretch * (g->x[3 * i] - centre) + jitter * noise(&seed);
        g->x[3 * i + 1] = -centre + stretch * (g->x[3 * i + 1] + centre) + jitter * noise(&seed);
        g->x[3 * i + 2] += jitter * noise(&seed);
    }
}

static pd_ref *grid_ref(const grid *g)
{
    return pd_ref_create(g->count, g->x, g->w, g->spring_count, g->springs, g->colours);
}

static pd_ref_step_params params(pd_ref_variant v, double gravity)
{
    pd_ref_step_params p = pd_ref_step_params_default();
    p.variant = v;
    p.gravity[1] = -gravity;
    return p;
}

static const char *variant_name[] = {"red-black", "Jacobi", "Chebyshev", "serial GS"};

Test(pd, quad_grid_colouring_is_red_black)
{
    for (uint32_t side = 2; side <= 21; side += 19) {
        grid g = grid_make(side, 1000.0);
        pd_ref *r = grid_ref(&g);
        cr_expect_eq(pd_ref_monochrome_springs(r), 0, "side %u", side);
        uint32_t red = 0;
        for (uint32_t i = 0; i < g.count; i++)
            red += g.colours[i] == 0;
        cr_expect_eq(red, (g.count + 1) / 2, "side %u: reds %u", side, red);
        pd_ref_destroy(r);

        /* A diagonal joins two particles of one colour: the check sees it. */
        g.springs[g.spring_count++] = (pd_ref_spring){0, side + 1, sqrt(2.0), 1000.0};
        r = grid_ref(&g);
        cr_expect_eq(pd_ref_monochrome_springs(r), 1, "side %u with a diagonal", side);
        pd_ref_destroy(r);
        grid_free(&g);
    }
}

static double rel_diff(const double *a, const double *b)
{
    double worst = 0.0;
    for (int c = 0; c < 3; c++) {
        double scale = fmax(1.0, fmax(fabs(a[c]), fabs(b[c])));
        worst = fmax(worst, fabs(a[c] - b[c]) / scale);
    }
    return worst;
}

Test(pd, red_black_is_gauss_seidel_reds_then_blacks)
{
    grid g = grid_make(12, 2000.0);
    for (uint32_t c = 0; c < g.n; c++)
        g.w[c] = 0.0; /* pinned top row */
    grid_perturb(&g, 1.3, 0.2, 7);

    /* The same network renumbered: reds by index, then blacks by index. */
    uint32_t *to = calloc(g.count, sizeof(uint32_t));
    uint32_t next = 0;
    for (uint8_t colour = 0; colour < 2; colour++)
        for (uint32_t i = 0; i < g.count; i++)
            if (g.colours[i] == colour)
                to[i] = next++;
    double *x = calloc(3 * g.count, sizeof(double));
    double *w = calloc(g.count, sizeof(double));
    pd_ref_spring *springs = calloc(g.spring_count, sizeof *springs);
    for (uint32_t i = 0; i < g.count; i++) {
        memcpy(&x[3 * to[i]], &g.x[3 * i], 3 * sizeof(double));
        w[to[i]] = g.w[i];
    }
    for (uint32_t s = 0; s < g.spring_count; s++) {
        springs[s] = g.springs[s];
        springs[s].i = to[g.springs[s].i];
        springs[s].j = to[g.springs[s].j];
    }

    pd_ref *rb = grid_ref(&g);
    pd_ref *jacobi = grid_ref(&g);
    pd_ref *serial = pd_ref_create(g.count, x, w, g.spring_count, springs, NULL);
    pd_ref_step_params prb = params(PD_REF_RED_BLACK, 9.81), pgs = params(PD_REF_SERIAL, 9.81),
                       pj = params(PD_REF_JACOBI, 9.81);
    pd_ref_begin_step(rb, &prb);
    pd_ref_begin_step(serial, &pgs);
    pd_ref_begin_step(jacobi, &pj);
    for (int it = 1; it <= 3; it++) {
        pd_ref_iterate(rb, &prb);
        pd_ref_iterate(serial, &pgs);
        pd_ref_iterate(jacobi, &pj);
        double worst = 0.0, from_jacobi = 0.0;
        for (uint32_t i = 0; i < g.count; i++) {
            worst = fmax(worst, rel_diff(pd_ref_position(rb, i), pd_ref_position(serial, to[i])));
            from_jacobi = fmax(from_jacobi, rel_diff(pd_ref_position(rb, i), pd_ref_position(jacobi, i)));
        }
        cr_log_info("pd: after %d iteration(s) red-black vs serial GS (reds, then blacks): "
                    "%.3g relative; vs Jacobi: %.3g",
                    it, worst, from_jacobi);
        cr_expect_leq(worst, 1e-12, "iteration %d: %.3g", it, worst);
        /* The comparison can tell the two orders apart. */
        cr_expect_geq(from_jacobi, 1e-3, "iteration %d: red-black equals Jacobi (%.3g)", it, from_jacobi);
    }
    pd_ref_destroy(rb);
    pd_ref_destroy(serial);
    pd_ref_destroy(jacobi);
    free(springs);
    free(w);
    free(x);
    free(to);
    grid_free(&g);
}

/* The paper's first scenario on 20 x 20: a network stretched by 1.5 (with a
 * little noise), no gravity, nothing pinned, shrinking back within one step;
 * err[k] is the spring error after k iterations. */
enum { MAX_ITERS = 64 };
static const double SHRINK_STIFFNESS = 1e6; /* N/m: 280 times m/h^2, so the step nearly restores the rest lengths */

static void shrink_errors(pd_ref_variant v, double rho, uint32_t delay, double err[MAX_ITERS + 1])
{
    grid g = grid_make(20, SHRINK_STIFFNESS);
    grid_perturb(&g, 1.5, 0.01, 3);
    pd_ref *r = grid_ref(&g);
    pd_ref_step_params p = params(v, 0.0);
    p.rho = rho;
    p.delay = delay;
    pd_ref_begin_step(r, &p);
    err[0] = pd_ref_error(r);
    for (int k = 1; k <= MAX_ITERS; k++) {
        pd_ref_iterate(r, &p);
        err[k] = pd_ref_error(r);
    }
    pd_ref_destroy(r);
    grid_free(&g);
}

static const double CHEB_RHO = 0.99; /* 0.995 overshoots: error 1.18 at 32 iterations, 2.58 at 64 */
static const uint32_t CHEB_DELAY = 4;

Test(pd, error_falls_with_iterations)
{
    static const int at[] = {1, 4, 16, 64};
    double err[4][MAX_ITERS + 1];
    for (int v = 0; v < 4; v++) {
        shrink_errors((pd_ref_variant)v, CHEB_RHO, CHEB_DELAY, err[v]);
        cr_log_info("pd: 20x20 stretched 1.5, %-9s error: start %.4g, 1 it %.4g, 4 it %.4g, 16 it %.4g, 64 it %.4g",
                    variant_name[v], err[v][0], err[v][1], err[v][4], err[v][16], err[v][64]);
        cr_expect_lt(err[v][1], err[v][0], "%s", variant_name[v]);
        for (int k = 1; k < 4; k++)
            cr_expect_lt(err[v][at[k]], err[v][at[k - 1]], "%s: %d iterations %.6g, %d iterations %.6g",
                         variant_name[v], at[k], err[v][at[k]], at[k - 1], err[v][at[k - 1]]);
    }
    cr_expect_lt(err[PD_REF_RED_BLACK][16], err[PD_REF_JACOBI][16], "red-black %.6g, Jacobi %.6g",
                 err[PD_REF_RED_BLACK][16], err[PD_REF_JACOBI][16]);
    cr_expect_lt(err[PD_REF_SERIAL][16], err[PD_REF_JACOBI][16]);
}

Test(pd, chebyshev_beats_jacobi_past_its_delay)
{
    double jac[MAX_ITERS + 1], cheb[MAX_ITERS + 1];
    shrink_errors(PD_REF_JACOBI, CHEB_RHO, CHEB_DELAY, jac);
    shrink_errors(PD_REF_CHEBYSHEV, CHEB_RHO, CHEB_DELAY, cheb);
    /* Identical until the acceleration starts. */
    for (uint32_t k = 0; k <= CHEB_DELAY; k++)
        cr_expect_eq(cheb[k], jac[k], "iteration %u", k);
    for (int k = 8; k <= MAX_ITERS; k *= 2) {
        cr_log_info("pd: rho %.2f delay %u, %2d iterations: Chebyshev %.4g, Jacobi %.4g (ratio %.3g)", CHEB_RHO,
                    CHEB_DELAY, k, cheb[k], jac[k], cheb[k] / jac[k]);
        cr_expect_lt(cheb[k], jac[k], "%d iterations: Chebyshev %.6g, Jacobi %.6g", k, cheb[k], jac[k]);
    }
}

Test(pd, rest_is_a_fixed_point)
{
    for (int v = 0; v < 4; v++) {
        /* Rotated out of the grid's axes and scaled by 0.37, rest lengths
         * taken from the positions: no rounding-free coordinates. */
        grid g = grid_make(10, 5000.0);
        double ca = cos(0.7), sa = sin(0.7), cb = cos(1.1), sb = sin(1.1);
        for (uint32_t i = 0; i < g.count; i++) {
            double *q = &g.x[3 * i], a = 0.37 * q[0], b = 0.37 * q[1];
            q[0] = ca * a - sa * cb * b;
            q[1] = sa * a + ca * cb * b;
            q[2] = sb * b;
        }
        for (uint32_t s = 0; s < g.spring_count; s++) {
            const double *a = &g.x[3 * g.springs[s].i], *b = &g.x[3 * g.springs[s].j];
            g.springs[s].rest = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                                     (a[2] - b[2]) * (a[2] - b[2]));
        }
        pd_ref *r = grid_ref(&g);
        pd_ref_step_params p = params((pd_ref_variant)v, 0.0);
        p.iterations = 8;
        for (int step = 0; step < 20; step++)
            pd_ref_step(r, &p);
        double worst = 0.0;
        for (uint32_t i = 0; i < g.count; i++)
            for (int c = 0; c < 3; c++)
                worst = fmax(worst, fabs(pd_ref_position(r, i)[c] - g.x[3 * i + c]));
        cr_log_info("pd: %s, 20 steps at rest: largest drift %.3g m, error %.3g", variant_name[v], worst,
                    pd_ref_error(r));
        cr_expect_leq(worst, 1e-12, "%s drifts %.3g m", variant_name[v], worst);
        cr_expect_leq(pd_ref_error(r), 1e-24, "%s", variant_name[v]);
        pd_ref_destroy(r);
        grid_free(&g);
    }
}

Test(pd, pinned_particles_never_move)
{
    for (int v = 0; v < 4; v++) {
        for (int layout = 0; layout < 2; layout++) {
            grid g = grid_make(10, 5000.0);
            uint32_t corner[2] = {0, g.n - 1};
            if (layout == 0)
                for (uint32_t c = 0; c < g.n; c++)
                    g.w[c] = 0.0; /* top row */
            else
                g.w[corner[0]] = g.w[corner[1]] = 0.0; /* top corners */
            pd_ref *r = grid_ref(&g);
            pd_ref_step_params p = params((pd_ref_variant)v, 9.81);
            p.damping = 0.01;
            p.iterations = 8;
            for (int step = 0; step < 60; step++) {
                pd_ref_step(r, &p);
                for (uint32_t i = 0; i < g.count; i++)
                    if (g.w[i] == 0.0)
                        for (int c = 0; c < 3; c++)
                            cr_assert_eq(pd_ref_position(r, i)[c], g.x[3 * i + c], "%s: particle %u moved at step %d",
                                         variant_name[v], i, step);
            }
            /* The rest of the cloth fell and stayed finite. */
            double drop = 0.0;
            for (uint32_t i = 0; i < g.count; i++)
                drop += (g.x[3 * i + 1] - pd_ref_position(r, i)[1]) / g.count;
            cr_expect(isfinite(drop) && drop > 1e-3, "%s layout %d: the cloth's mean drop %.3g m", variant_name[v],
                      layout, drop);
            pd_ref_destroy(r);
            grid_free(&g);
        }
    }
}

Test(pd, coincident_ends_stay_finite)
{
    /* Two particles at one place: the spring keeps its direction at creation. */
    double x[6] = {0, 0, 0, 1, 0, 0};
    double w[2] = {1, 1};
    pd_ref_spring s = {0, 1, 1.0, 1000.0};
    pd_ref *r = pd_ref_create(2, x, w, 1, &s, NULL);
    double origin[3] = {0, 0, 0};
    pd_ref_set_position(r, 1, origin);
    pd_ref_step_params p = params(PD_REF_JACOBI, 0.0);
    p.iterations = 32;
    for (int step = 0; step < 10; step++)
        pd_ref_step(r, &p);
    const double *a = pd_ref_position(r, 0), *b = pd_ref_position(r, 1);
    cr_log_info("pd: coincident ends after 10 steps: separation %.6g m along x, error %.3g", b[0] - a[0],
                pd_ref_error(r));
    cr_expect(isfinite(a[0]) && isfinite(b[0]));
    cr_expect_gt(b[0] - a[0], 0.5, "the spring pushed its ends apart along its old direction");
    pd_ref_destroy(r);
}

/* The paper's hanging cloth (figure 4) at 11 iterations per frame: a 100 x
 * 100 network 1 m across, 0.2 kg, springs of 1e4 N/m, pinned at two corners
 * of one edge, damping 0.1/s. Jacobi this far from convergence feeds the
 * Verlet step energy and blows up within 100 frames, while red-black
 * Gauss-Seidel stays bounded: the instability sinew-bench --suite pd shows on
 * the GPU is the method's. */
Test(pd, jacobi_blows_up_where_red_black_holds, .timeout = 120)
{
    const uint32_t side = 100;
    grid g = grid_make(side, 1e4);
    const double spacing = 1.0 / (side - 1), mass = 0.2 / (side * side);
    for (uint32_t i = 0; i < g.count; i++) {
        g.x[3 * i] *= spacing; /* the xy grid of 1 m springs laid flat in xz, 1 m across */
        g.x[3 * i + 2] = -g.x[3 * i + 1] * spacing;
        g.x[3 * i + 1] = 1.0;
        g.w[i] = 1.0 / mass;
    }
    g.w[0] = g.w[side - 1] = 0.0;
    for (uint32_t c = 0; c < g.spring_count; c++)
        g.springs[c].rest = spacing;
    double worst[2] = {0.0, 0.0};
    const pd_ref_variant variants[2] = {PD_REF_RED_BLACK, PD_REF_JACOBI};
    for (int v = 0; v < 2; v++) {
        pd_ref *r = grid_ref(&g);
        pd_ref_step_params p = params(variants[v], 9.81);
        p.iterations = 11;
        p.damping = 1.0 - exp(-0.1 / 60.0);
        for (int frame = 0; frame < 100 && isfinite(worst[v]) && worst[v] < 1e6; frame++) {
            pd_ref_step(r, &p);
            worst[v] = fmax(worst[v], pd_ref_error(r));
        }
        pd_ref_destroy(r);
    }
    cr_log_info("hanging 100 x 100 network, 11 iterations per frame, 100 frames: largest error %.3g m^2 "
                "(red-black), %.3g m^2 (Jacobi)", worst[0], worst[1]);
    cr_expect_lt(worst[0], 1e3, "red-black stays bounded");
    cr_expect(!(worst[1] < 1e6), "Jacobi blows up");
    grid_free(&g);
}
