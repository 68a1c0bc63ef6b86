/* sinew-bench --suite stiff: the regime where the MGPBD paper says a global
 * solver matters (its poster's "XPBD soft / crash, MGPBD stiff / stable"):
 * a stiff cantilever (shear modulus 10 MPa, like the poster's muscle), one
 * as-rigid-as-possible constraint per tetrahedron, pinned at one end and
 * released under gravity, stepped at 10, 20 and 30 ms. MGPBD (a few outer
 * iterations a step) against XPBD Gauss-Seidel and Jacobi sweeps over the
 * same constraints given the same wall time per step (their sweeps a step
 * calibrated to MGPBD's measured step time), and MGPBD run to convergence
 * as the reference. Per run: stability, the tip's sag (largest, and its
 * mean over the second half, about the static sag), volume and edge-stretch
 * errors at the end, the dual residual at each step's end; a picture of
 * the last step of each run where sinew-bench draws (libpng). All through
 * MGPBD's solver interface (src/solvers/mgpbd.h), which has both XPBD
 * variants over its own constraints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "bench.h"
#include "core/clock.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "solvers/mgpbd.h"
#ifdef SINEW_HAVE_PNG
#include "render.h"
#endif

#define BAR_WIDTH 0.1  /* m, the square cross-section's side */
#define BAR_LENGTH 1.0 /* m, along z; pinned at z = 0 */
#define SHEAR 1e7      /* Pa, the default */
#define DENSITY 1000.0 /* kg/m^3, sinew_soft_options' default */
#define JACOBI_OMEGA 0.1 /* the paper's code's weight */

enum { MGPBD, XPBD_GS, XPBD_JACOBI, MGPBD_CONVERGED, SOLVERS };
static const char *const solver_names[SOLVERS] = {"mgpbd", "xpbd-gs", "xpbd-jacobi", "mgpbd-converged"};

typedef struct stiff_run {
    int solver;
    double dt;
    uint32_t steps, per_step; /* outer iterations or sweeps a step */
    double ms_step;           /* host wall time a step */
    int stable;
    double sag_max, sag_mean; /* m, the tip's */
    double volume_max, volume_rms, stretch_max;
    double residual_last, residual_mean; /* |b| at the step's end over |b| after its prediction */
    char picture[64];
} stiff_run;

static sinew_result bar(uint32_t cells, sinew_asset **out)
{
    const double size[3] = {BAR_WIDTH, BAR_WIDTH, BAR_LENGTH};
    const double origin[3] = {0.0, 0.5, 0.5 * BAR_LENGTH};
    sinew_volume v;
    sinew_result r = sinew_volume_box(cells + 1, cells + 1, 10 * cells + 1, size, origin, &v);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_soft_options so = sinew_soft_options_default();
    so.pin_box = 1; /* the z = 0 end face */
    so.box_min[0] = so.box_min[1] = -10.0;
    so.box_max[0] = so.box_max[1] = 10.0;
    so.box_min[2] = -1e-6;
    so.box_max[2] = 1e-6;
    so.source_name = "stiff bar";
    r = sinew_soft_build(&v, &so, NULL, out, NULL);
    sinew_volume_free(&v);
    return r;
}

static double tip_y(const sinew_asset *a, const float *x)
{
    double y = 0.0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < a->particle_count; i++)
        if (a->particles[i].z > BAR_LENGTH - 1e-6f) {
            y += x[3 * i + 1];
            count++;
        }
    return count ? y / count : 0.0;
}

static void errors(const sinew_asset *a, const float *x, stiff_run *rn)
{
    static const int edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    double sum = 0.0;
    uint32_t count = 0;
    for (uint32_t e = 0; e < a->element_count; e++) {
        const sinew_element_rec *E = &a->elements[e];
        if (E->kind != SINEW_ELEMENT_TET)
            continue;
        double p[4][3], q[4][3];
        for (int k = 0; k < 4; k++) {
            const sinew_particle_rec *r = &a->particles[E->v[k]];
            q[k][0] = r->x;
            q[k][1] = r->y;
            q[k][2] = r->z;
            for (int c = 0; c < 3; c++)
                p[k][c] = x[3 * E->v[k] + c];
        }
        double d[3][3], d0[3][3];
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++) {
                d[k][c] = p[k + 1][c] - p[0][c];
                d0[k][c] = q[k + 1][c] - q[0][c];
            }
#define DET(m) ((m)[0][0] * ((m)[1][1] * (m)[2][2] - (m)[1][2] * (m)[2][1]) - \
                (m)[0][1] * ((m)[1][0] * (m)[2][2] - (m)[1][2] * (m)[2][0]) + \
                (m)[0][2] * ((m)[1][0] * (m)[2][1] - (m)[1][1] * (m)[2][0]))
        const double v = DET(d), v0 = DET(d0);
#undef DET
        const double err = v0 != 0.0 ? fabs(v / v0 - 1.0) : 0.0;
        rn->volume_max = fmax(rn->volume_max, err);
        sum += err * err;
        count++;
        for (int k = 0; k < 6; k++) {
            double l = 0.0, l0 = 0.0;
            for (int c = 0; c < 3; c++) {
                const double a1 = p[edge[k][0]][c] - p[edge[k][1]][c], b1 = q[edge[k][0]][c] - q[edge[k][1]][c];
                l += a1 * a1;
                l0 += b1 * b1;
            }
            rn->stretch_max = fmax(rn->stretch_max, fabs(sqrt(l / l0) - 1.0));
        }
    }
    rn->volume_rms = count ? sqrt(sum / count) : 0.0;
}

/* Sweeps of XPBD a millisecond on this solver, measured over `sweeps`. */
static double sweeps_per_ms(sinew_mgpbd *s, const float *x0, int jacobi, float h, uint32_t sweeps)
{
    const float g[3] = {0.0f, -9.81f, 0.0f};
    if (sinew_mgpbd_set_state(s, x0, NULL) != SINEW_RESULT_OK || sinew_mgpbd_begin_step(s, h, g) != SINEW_RESULT_OK)
        return 0.0;
    const double t0 = sinew_host_ms();
    sinew_result r = jacobi ? sinew_mgpbd_xpbd_jacobi(s, h, sweeps, (float)JACOBI_OMEGA) : sinew_mgpbd_xpbd(s, h, sweeps);
    const double ms = sinew_host_ms() - t0;
    return r == SINEW_RESULT_OK && ms > 0.0 ? sweeps / ms : 0.0;
}

#ifdef SINEW_HAVE_PNG
/* The last step's shape through a body of the same asset (positions written
 * into it), drawn from the side. */
static void picture(sinew_context *ctx, const sinew_asset *a, const float *x, const char *path)
{
    sinew_body_desc bd = sinew_body_desc_default();
    bd.solver = SINEW_SOLVER_GPBD_JACOBI;
    sinew_body *b = NULL;
    if (sinew_body_create(ctx, a, &bd, &b) != SINEW_RESULT_OK)
        return;
    uint32_t tri_count = 0;
    const uint32_t *tris = sinew_asset_get_triangles(a, &tri_count);
    render *rd = NULL;
    if (sinew_body_write_positions(b, x, a->particle_count) == SINEW_RESULT_OK)
        rd = render_create(ctx, b, tris, tri_count, 640, 360);
    if (rd) {
        const float lo[3] = {-0.1f, -0.2f, 0.0f}, hi[3] = {0.1f, 0.6f, 1.0f};
        render_camera cam = render_camera_framing(lo, hi);
        cam.eye[0] = 1.3f;
        cam.eye[1] = 0.55f;
        cam.eye[2] = 0.5f;
        cam.target[0] = 0.0f;
        cam.target[1] = 0.42f;
        cam.target[2] = 0.5f;
        sinew_step_params p = sinew_step_params_default();
        p.ground = 0;
        render_frame(rd, &p, &cam, path);
        render_destroy(rd);
    }
    sinew_body_destroy(b);
}
#endif

static int run_one(sinew_context *ctx, const sinew_asset *a, const float *x0, int solver, double dt, double seconds,
                   uint32_t outer, double shear, double match_ms, const char *out, stiff_run *rn)
{
    memset(rn, 0, sizeof *rn);
    rn->solver = solver;
    rn->dt = dt;
    rn->steps = (uint32_t)ceil(seconds / dt - 1e-9);
    const float h = (float)dt, g[3] = {0.0f, -9.81f, 0.0f};
    const uint32_t n = a->particle_count;
    sinew_mgpbd_desc md = sinew_mgpbd_desc_default();
    md.distances = 0;
    md.shear_modulus = shear;
    if (solver == MGPBD_CONVERGED) {
        md.tolerance = 1e-3;
        md.max_iterations = 4 * outer;
    }
    sinew_mgpbd *s = NULL;
    if (sinew_mgpbd_create(ctx, a, &md, &s) != SINEW_RESULT_OK)
        return 0;
    if (solver == XPBD_GS || solver == XPBD_JACOBI) { /* as many sweeps as fit in MGPBD's step time */
        const double rate = sweeps_per_ms(s, x0, solver == XPBD_JACOBI, h, 100);
        rn->per_step = (uint32_t)fmax(1.0, round(rate * match_ms));
    } else {
        rn->per_step = solver == MGPBD ? outer : md.max_iterations;
    }
    float *x = malloc(sizeof *x * 3 * (size_t)n);
    int ok = x != NULL;
    /* the first hierarchy as a body's (at the rest shape dilated by 1 %:
     * at rest, and in the prediction's rigid fall of all but the pinned end,
     * F = R and A is diagonal) */
    if (ok && (solver == MGPBD || solver == MGPBD_CONVERGED))
        ok = sinew_mgpbd_setup_at_rest(s, a, h) == SINEW_RESULT_OK;
    ok = ok && sinew_mgpbd_set_state(s, x0, NULL) == SINEW_RESULT_OK;
    const double y_rest = tip_y(a, x0);
    double ms = 0.0, sag_sum = 0.0, res_sum = 0.0;
    uint32_t sag_count = 0, res_count = 0, done = 0;
    rn->stable = 1;
    for (uint32_t k = 0; ok && k < rn->steps; k++) {
        double b0 = 0.0, b1 = 0.0;
        const double t0 = sinew_host_ms();
        if (solver == MGPBD || solver == MGPBD_CONVERGED) {
            ok = sinew_mgpbd_begin_step(s, h, g) == SINEW_RESULT_OK;
            double first = 0.0, last = 0.0;
            uint32_t it_count = solver == MGPBD ? outer : md.max_iterations;
            for (uint32_t it = 0; ok && it < it_count; it++) {
                sinew_mgpbd_iteration iter;
                ok = sinew_mgpbd_iterate(s, h, &iter) == SINEW_RESULT_OK;
                if (!ok)
                    break;
                if (it == 0)
                    first = iter.dual_residual;
                last = iter.dual_after;
                if (solver == MGPBD_CONVERGED && first > 0.0 && last <= md.tolerance * first)
                    break;
                if (iter.line_search_failed)
                    break;
            }
            ok = ok && sinew_mgpbd_end_step(s, h) == SINEW_RESULT_OK;
            b0 = first;
            b1 = last;
        } else {
            ok = sinew_mgpbd_begin_step(s, h, g) == SINEW_RESULT_OK;
            const double pause = sinew_host_ms(); /* |b| after the prediction, outside the timing */
            ok = ok && sinew_mgpbd_dual_residual(s, h, &b0) == SINEW_RESULT_OK;
            const double resume = sinew_host_ms();
            ms -= resume - pause;
            ok = ok && (solver == XPBD_JACOBI ? sinew_mgpbd_xpbd_jacobi(s, h, rn->per_step, (float)JACOBI_OMEGA)
                                              : sinew_mgpbd_xpbd(s, h, rn->per_step)) == SINEW_RESULT_OK;
            const double pause2 = sinew_host_ms();
            ok = ok && sinew_mgpbd_dual_residual(s, h, &b1) == SINEW_RESULT_OK;
            ms -= sinew_host_ms() - pause2;
            ok = ok && sinew_mgpbd_end_step(s, h) == SINEW_RESULT_OK;
        }
        ms += sinew_host_ms() - t0;
        if (!ok)
            break;
        done++;
        ok = sinew_mgpbd_read_state(s, x, NULL) == SINEW_RESULT_OK;
        const double sag = y_rest - tip_y(a, x);
        int finite = isfinite(sag) && fabs(sag) < 10.0;
        for (uint32_t i = 0; finite && i < 3 * n; i++)
            finite = isfinite(x[i]);
        if (!finite) {
            rn->stable = 0;
            break;
        }
        rn->sag_max = fmax(rn->sag_max, sag);
        if (k >= rn->steps / 2) {
            sag_sum += sag;
            sag_count++;
        }
        const double rel = b0 > 0.0 ? b1 / b0 : 0.0;
        if (isfinite(rel)) {
            res_sum += rel;
            res_count++;
            rn->residual_last = rel;
        }
    }
    rn->ms_step = done ? ms / done : 0.0;
    rn->sag_mean = sag_count ? sag_sum / sag_count : NAN;
    rn->residual_mean = res_count ? res_sum / res_count : NAN;
    if (!ok && rn->stable && done < rn->steps)
        rn->stable = 0; /* a failed solve (NaN, a refused state) counts as a crash */
    if (rn->stable)
        errors(a, x, rn);
#ifdef SINEW_HAVE_PNG
    if (rn->stable) {
        char path[1024];
        snprintf(rn->picture, sizeof rn->picture, "stiff-%s-%02.0fms.png", solver_names[solver], dt * 1e3);
        snprintf(path, sizeof path, "%s/%s", out, rn->picture);
        picture(ctx, a, x, path);
    }
#else
    (void)out;
#endif
    free(x);
    sinew_mgpbd_destroy(s);
    return 1;
}

typedef struct stiff_options {
    uint32_t cells, outer;
    double seconds, shear;
} stiff_options;

static int run_stiff(sinew_context *ctx, const void *options, const char *out)
{
    const stiff_options *o = options;
    sinew_asset *a = NULL;
    if (bar(o->cells, &a) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-bench: stiff: the bar could not be built\n");
        return 0;
    }
    const uint32_t n = a->particle_count;
    float *x0 = malloc(sizeof *x0 * 3 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) {
        x0[3 * i] = a->particles[i].x;
        x0[3 * i + 1] = a->particles[i].y;
        x0[3 * i + 2] = a->particles[i].z;
    }
    const double dts[3] = {0.01, 0.02, 0.03};
    stiff_run runs[3][SOLVERS];
    FILE *csv, *md;
    if (!bench_open_results(out, "stiff.csv", &csv, &md)) {
        free(x0);
        sinew_asset_destroy(a);
        return 0;
    }
    const sinew_device_info di = sinew_context_get_device_info(ctx);
    fprintf(csv, "dt_ms,solver,steps,per_step,ms_step,stable,sag_max_m,sag_mean_m,volume_max,volume_rms,stretch_max,"
                 "residual_last,residual_mean\n");
    int ok = 1;
    for (int k = 0; k < 3 && ok; k++) {
        ok = run_one(ctx, a, x0, MGPBD, dts[k], o->seconds, o->outer, o->shear, 0.0, out, &runs[k][MGPBD]);
        for (int sv = XPBD_GS; sv < SOLVERS && ok; sv++)
            ok = run_one(ctx, a, x0, sv, dts[k], o->seconds, o->outer, o->shear, runs[k][MGPBD].ms_step, out,
                         &runs[k][sv]);
        for (int sv = 0; sv < SOLVERS && ok; sv++) {
            const stiff_run *r = &runs[k][sv];
            fprintf(csv, "%.0f,%s,%u,%u,%.3f,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", r->dt * 1e3, solver_names[sv],
                    r->steps, r->per_step, r->ms_step, r->stable, r->sag_max, r->sag_mean, r->volume_max,
                    r->volume_rms, r->stretch_max, r->residual_last, r->residual_mean);
            fprintf(stderr, "sinew-bench: stiff %2.0f ms %-16s %5u a step, %8.2f ms a step, %s, sag max %.4g mean %.4g m, "
                            "volume max %.3g, stretch max %.3g, |b| end/start %.3g\n",
                    r->dt * 1e3, solver_names[sv], r->per_step, r->ms_step, r->stable ? "stable" : "CRASHED",
                    r->sag_max, r->sag_mean, r->volume_max, r->stretch_max, r->residual_mean);
        }
    }
    fprintf(md, "# sinew-bench: stiff suite on %s\n\n", di.name);
    fprintf(md, "A cantilever %g m long with a %g m square cross-section, %u tetrahedra (%u particles; lattice cubes of "
                "six), one as-rigid-as-possible constraint each (C = |F - R|, shear modulus %g Pa, 1000 kg/m^3), "
                "pinned at one end and released under gravity from rest, %g s of simulated time at each time step. "
                "MGPBD: %u outer iterations a step (CG of at most 20 iterations to 1e-3, the lazy hierarchy set up "
                "every 20 steps). XPBD Gauss-Seidel (colour by colour) and Jacobi (weight %g, the paper's code's) over "
                "the same constraints, given as many sweeps a step as fit in MGPBD's measured wall time per step "
                "(calibrated on 100 sweeps). MGPBD converged: outer iterations until |b| <= 1e-3 |b_0| (at most %u), "
                "the reference. Sag: the free end face's mean drop, largest over the run and mean over its second "
                "half (about the static sag, the bar swinging about it); errors at the last step; |b|: the dual "
                "residual at each step's end over its value after the prediction, mean over the steps. Host wall "
                "time (each outer iteration one submit and a wait; XPBD's sweeps one submit). Made by `sinew-bench "
                "--suite stiff --bar-cells %u`.\n\n",
            BAR_LENGTH, BAR_WIDTH, a->element_count, n, o->shear, o->seconds, o->outer, JACOBI_OMEGA, 4 * o->outer,
            o->cells);
    const double L = BAR_WIDTH / o->cells;
    fprintf(md, "The element's stiffness over its inertia, kappa = h^2 mu / (rho L^2) with L = %g m the lattice's "
                "cube: %.3g, %.3g and %.3g at 10, 20 and 30 ms. MGPBD's outer iteration (Gauss-Newton on the dual "
                "system) converges where kappa is small and stalls where it is large, whatever the linear solver "
                "(docs/mgpbd.md, \"Where the global step converges\").\n\n",
            L, dts[0] * dts[0] * o->shear / (DENSITY * L * L), dts[1] * dts[1] * o->shear / (DENSITY * L * L),
            dts[2] * dts[2] * o->shear / (DENSITY * L * L));
    fprintf(md, "| time step | solver | iterations or sweeps a step | ms a step | stable | largest sag (m) | mean sag, second "
                "half (m) | max volume error | max edge stretch | mean end |b| / start |b| | picture |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < 3 && ok; k++)
        for (int sv = 0; sv < SOLVERS; sv++) {
            const stiff_run *r = &runs[k][sv];
            char pic[96] = "";
            if (*r->picture)
                snprintf(pic, sizeof pic, "![](%s)", r->picture);
            fprintf(md, "| %.0f ms | %s | %u | %.1f | %s | %.4g | %.4g | %.3g | %.3g | %.3g | %s |\n", r->dt * 1e3,
                    solver_names[sv], r->per_step, r->ms_step, r->stable ? "yes" : "**crashed**", r->sag_max,
                    r->sag_mean, r->volume_max, r->stretch_max, r->residual_mean, pic);
        }
    fclose(csv);
    fclose(md);
    free(x0);
    sinew_asset_destroy(a);
    return ok;
}

/* sinew-bench --suite stiff [--bar-cells C] [--outer K] [--steps S] [--shear PA]: C cells
 * across the bar (10 C along it, 60 C^3 tetrahedra; default 4, 12 for the
 * paper's 100K), K MGPBD outer iterations a step (default 4), S steps of 10
 * ms simulated (default 60: 0.6 s), shear modulus PA (default 10 MPa). A dry
 * run: C 2, 0.03 s. */
int bench_stiff_suite(const bench_args *a)
{
    stiff_options o = {4, 4, 0.6, SHEAR};
    if (a->mgpbd.shear > 0.0)
        o.shear = a->mgpbd.shear;
    if (a->mgpbd.bar_cells && a->mgpbd.bar_cells != bench_mgpbd_options_default().bar_cells)
        o.cells = a->mgpbd.bar_cells;
    if (a->mgpbd.outer != bench_mgpbd_options_default().outer)
        o.outer = a->mgpbd.outer;
    if (a->steps)
        o.seconds = 0.01 * a->steps;
    if (a->dry_run) {
        o.cells = 2;
        o.seconds = 0.03;
    }
    return bench_on_device(a, "stiff", run_stiff, &o);
}
