/* sinew-bench --suite implicit: table 1 of Jeon, Choi, Kim, Ko and Kim,
 * "Constrainable Multigrid for Cloth" (2013), on our code.
 *
 * A 1 m square of 12 x 12 quads subdivided s times into nested levels
 * ((12 2^s + 1)^2 particles; the coarsest level keeps 169, as the paper's
 * garments keep a few hundred: docs/implicit.md), in two scenes:
 *   swinging  pinned at the two corners of one edge, let go horizontal;
 *   sphere    dropped from 2 cm above a sphere of radius 0.3 m.
 * Each is stepped by SINEW_SOLVER_IMPLICIT_MG and by IMPLICIT_PCG (the
 * paper's baseline: Baraff and Witkin's modified PCG) at dt = 1/60 s with
 * BDF2 (the paper's integrator), every
 * solve to the same relative residual (the paper's 1e-4); per step: the
 * V-cycles or PCG iterations and the solve's wall-clock time (submits and
 * the host's residual reads included), then the speed-up of the multigrid.
 * The first step of each run is a warm-up and is not counted. */
#include "bench_implicit.h"
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prep/cloth.h"
#include "prep/nested.h"

enum { SC_SWINGING, SC_SPHERE, SC_COUNT };
static const char *const scene_keys[SC_COUNT] = {"swinging", "sphere"};
static const char *const scene_titles[SC_COUNT] = {"swinging cloth (pinned at two corners)",
                                                   "cloth falling on a sphere"};
enum { V_MG, V_PCG, V_COUNT };
static const char *const variant_keys[V_COUNT] = {"mg", "mpcg"};

bench_implicit_options bench_implicit_options_default(void)
{
    return (bench_implicit_options){.subdivisions = {2, 3, 4}, .size_count = 3, .steps = 10, .tolerance = 1e-4f,
                                    .plots = 1};
}

typedef struct run {
    uint32_t particles, steps, unconverged;
    double iterations, ms;  /* per step, averaged over the counted steps */
    double fallback;        /* MG: PCG iterations after diverging V-cycles, per step */
    double worst_residual;
} run;

static sinew_asset *make_square(uint32_t subdivisions, double y, int pinned)
{
    sinew_mesh m = {0};
    double origin[3] = {0.0, y, 0.0};
    sinew_asset *a = NULL;
    sinew_cloth_options opt = sinew_cloth_options_default();
    uint32_t pins[2] = {0, 12};
    opt.pin_indices = pins;
    opt.pin_count = pinned ? 2 : 0;
    if (sinew_mesh_grid(13, 13, 1.0, 1.0, SINEW_GRID_XZ, origin, &m) == SINEW_RESULT_OK &&
        sinew_mesh_triangulate_quads(&m) == SINEW_RESULT_OK)
        sinew_nested_cloth(&m, subdivisions, &opt, NULL, NULL, &a);
    sinew_mesh_free(&m);
    return a;
}

static int run_one(sinew_context *ctx, int scene, int variant, uint32_t subdivisions, const bench_implicit_options *o,
                   run *out)
{
    memset(out, 0, sizeof *out);
    sinew_asset *a = make_square(subdivisions, scene == SC_SPHERE ? 0.325 : 1.0, scene == SC_SWINGING);
    if (!a)
        return 0;
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = variant == V_MG ? SINEW_SOLVER_IMPLICIT_MG : SINEW_SOLVER_IMPLICIT_PCG;
    d.substeps = 1;
    d.implicit.tolerance = o->tolerance;
    d.implicit.bdf2 = 1;
    d.implicit.friction_stiffness = 1e4f; /* contacts hold where they touch: the cloth stays on the sphere */
    if (variant != V_MG)
        d.implicit.max_pcg_iterations = 8000; /* the 37 249-particle cloth takes about 2 200 */
    sinew_body *b = NULL;
    sinew_result r = sinew_body_create(ctx, a, &d, &b);
    sinew_asset_destroy(a);
    if (r != SINEW_RESULT_OK)
        return 0;
    out->particles = sinew_body_get_particle_count(b);
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    if (scene == SC_SPHERE) {
        p.sphere = 1;
        p.sphere_radius = 0.3f;
    }
    for (uint32_t s = 0; s <= o->steps && r == SINEW_RESULT_OK; s++) {
        const double t0 = bench_now_s();
        r = sinew_body_step(b, &p);
        const double wall = 1e3 * (bench_now_s() - t0);
        sinew_step_stats st = sinew_body_get_stats(b);
        if (s == 0 || r != SINEW_RESULT_OK)
            continue; /* warm-up */
        out->steps++;
        out->iterations += st.linear_iterations;
        out->fallback += st.linear_fallback_iterations;
        out->ms += wall;
        out->unconverged += st.linear_unconverged;
        if (st.linear_residual > out->worst_residual)
            out->worst_residual = st.linear_residual;
    }
    sinew_body_destroy(b);
    if (out->steps) {
        out->iterations /= out->steps;
        out->fallback /= out->steps;
        out->ms /= out->steps;
    }
    return r == SINEW_RESULT_OK;
}

int bench_implicit(sinew_context *ctx, const bench_implicit_options *o, const char *out)
{
    const char *device = sinew_context_get_device_info(ctx).name;
    run runs[SC_COUNT][4][V_COUNT];
    for (int sc = 0; sc < SC_COUNT; sc++)
        for (uint32_t k = 0; k < o->size_count; k++)
            for (int v = 0; v < V_COUNT; v++) {
                if (!run_one(ctx, sc, v, o->subdivisions[k], o, &runs[sc][k][v])) {
                    fprintf(stderr, "sinew-bench: implicit %s, %u subdivisions, %s failed\n", scene_keys[sc],
                            o->subdivisions[k], variant_keys[v]);
                    return 0;
                }
                const run *r = &runs[sc][k][v];
                fprintf(stderr, "sinew-bench: %-8s %6u particles %-4s %8.1f per step %10.2f ms per step\n",
                        scene_keys[sc], r->particles, variant_keys[v], r->iterations, r->ms);
            }

    char path[4096];
    snprintf(path, sizeof path, "%s/implicit.csv", out);
    FILE *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/implicit.dat", out);
    FILE *dat = fopen(path, "w");
    snprintf(path, sizeof path, "%s/README.md", out);
    FILE *md = fopen(path, "w");
    if (!csv || !dat || !md) {
        fprintf(stderr, "sinew-bench: cannot write into %s\n", out);
        if (csv)
            fclose(csv);
        if (dat)
            fclose(dat);
        if (md)
            fclose(md);
        return 0;
    }
    fprintf(csv, "scene,particles,solver,steps,iterations_per_step,fallback_pcg_per_step,ms_per_step,"
                 "worst_relative_residual,unconverged\n");
    fprintf(md, "# sinew-bench: implicit suite on %s\n\n", device);
    fprintf(md, "Table 1 of Jeon et al. 2013 (docs/implicit.md): the constrainable multigrid (`IMPLICIT_MG`) "
                "against Baraff and Witkin's modified PCG (`IMPLICIT_PCG`) on the same BDF2 step, "
                "every solve to a relative residual of %.0e; dt = 1/60 s, %u steps counted after one warm-up. "
                "Time is the step's wall clock on the host (one submit and one wait: the device decides when "
                "a solve has converged, the budget's rest skipped). When a V-cycle makes the residual grow "
                "past twice its best, or V-cycles stall above ten times the tolerance, the multigrid's solve starts again by block-Jacobi PCG (docs/implicit.md): "
                "those iterations per step are in brackets, their time in MG's.\n\n",
            o->tolerance, o->steps);
    for (int sc = 0; sc < SC_COUNT; sc++) {
        fprintf(md, "## %s\n\n", scene_titles[sc]);
        fprintf(md, "| particles | V-cycles / step | MG ms / step | PCG iterations / step | PCG ms / step | "
                    "speed-up |\n|---|---|---|---|---|---|\n");
        fprintf(dat, "# %s: particles, mg ms, pcg ms, speed-up, mg cycles, pcg iterations\n", scene_keys[sc]);
        for (uint32_t k = 0; k < o->size_count; k++) {
            const run *mg = &runs[sc][k][V_MG], *pcg = &runs[sc][k][V_PCG];
            double speedup = mg->ms > 0.0 ? pcg->ms / mg->ms : 0.0;
            char fb[32] = "";
            if (mg->fallback > 0.0)
                snprintf(fb, sizeof fb, " (%.0f)", mg->fallback);
            fprintf(md, "| %u | %.1f%s | %.1f | %.0f | %.1f | %.1fx |\n", mg->particles, mg->iterations, fb, mg->ms,
                    pcg->iterations, pcg->ms, speedup);
            fprintf(dat, "%u %.3f %.3f %.3f %.2f %.1f\n", mg->particles, mg->ms, pcg->ms, speedup, mg->iterations,
                    pcg->iterations);
            for (int v = 0; v < V_COUNT; v++) {
                const run *r = &runs[sc][k][v];
                fprintf(csv, "%s,%u,%s,%u,%.3f,%.3f,%.3f,%.3e,%u\n", scene_keys[sc], r->particles, variant_keys[v],
                        r->steps, r->iterations, r->fallback, r->ms, r->worst_residual, r->unconverged);
            }
        }
        uint32_t unconverged = 0;
        for (uint32_t k = 0; k < o->size_count; k++)
            unconverged += runs[sc][k][V_MG].unconverged + runs[sc][k][V_PCG].unconverged;
        fprintf(md, "\nSolves that stopped above the tolerance (stall or limit): %u.\n\n", unconverged);
        fprintf(dat, "\n\n");
    }
    fprintf(md, "![speed-up and time per step against particles](implicit.png)\n");
    fclose(csv);
    fclose(dat);
    fclose(md);

    snprintf(path, sizeof path, "%s/implicit.gp", out);
    FILE *gp = fopen(path, "w");
    if (!gp)
        return 0;
    fprintf(gp, "set terminal pngcairo size 1200,500\nset output 'implicit.png'\nset multiplot layout 1,2 title "
                "'multigrid against modified PCG to %.0e, %s'\nset logscale xy\nset grid\n"
                "set xlabel 'particles'\nset ylabel 'solve ms per step'\nset key left top\n"
                "plot 'implicit.dat' index 0 using 1:2 with linespoints lw 2 title 'MG, swinging', "
                "'' index 0 using 1:3 with linespoints lw 2 title 'MPCG, swinging', "
                "'' index 1 using 1:2 with linespoints lw 2 title 'MG, sphere', "
                "'' index 1 using 1:3 with linespoints lw 2 title 'MPCG, sphere'\n"
                "unset logscale y\nset ylabel 'speed-up of MG'\n"
                "plot 'implicit.dat' index 0 using 1:4 with linespoints lw 2 title 'swinging', "
                "'' index 1 using 1:4 with linespoints lw 2 title 'sphere'\nunset multiplot\n",
            o->tolerance, device);
    fclose(gp);
    if (o->plots) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot implicit.gp 2>/dev/null", out);
        if (system(cmd) != 0)
            fprintf(stderr, "sinew-bench: gnuplot failed on %s/implicit.gp (is gnuplot installed?)\n", out);
    }
    return 1;
}

static int run_implicit(sinew_context *ctx, const void *o, const char *out) { return bench_implicit(ctx, o, out); }

/* sinew-bench --suite implicit: --steps counted per run; a dry run on 625
 * and 2401 particles, 2 steps each. */
int bench_implicit_suite(const bench_args *a)
{
    bench_implicit_options o = a->implicit;
    if (a->dry_run) {
        o.subdivisions[0] = 1;
        o.subdivisions[1] = 2; /* 625, 2401 particles */
        o.size_count = 2;
        o.steps = 2;
    } else if (a->steps) {
        o.steps = a->steps;
    }
    o.plots = !a->no_plots;
    return bench_on_device(a, "implicit", run_implicit, &o);
}
