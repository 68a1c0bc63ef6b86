/* sinew-bench --suite accuracy: where a body comes to rest against where it
 * should (docs/accuracy.md). A neo-Hookean cantilever (1 x 0.2 x 0.2 m,
 * E 10 MPa, nu 0.3, 1000 kg/m^3, clamped at x = 0) on meshes of 99, 525 and
 * 3 321 vertices hangs under gravity with GPBD at several substeps and
 * iterations, and with the implicit solver (a Newton step a substep, PCG of
 * at most so many iterations), until it is at rest; its resting shape is compared with the
 * exact static equilibrium of the same mesh, masses and material (the CPU
 * double reference tests/ref/fem_ref.c, solved to 1e-8 of the load): the tip's
 * sag relative to the exact one, the whole displacement field's error, the
 * solver's residual (sinew_step_stats.residual) and the cost per step, side
 * by side in one run. Writes accuracy.csv, accuracy.dat, accuracy.gp (and
 * its plot) and README.md. */
#include <sinew/sinew.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "bench.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "ref/fem_ref.h"
#include "solvers/gpbd.h"

typedef struct mesh { uint32_t nx, nyz; } mesh;
static const mesh meshes[] = {{11, 3}, {21, 5}, {41, 9}}; /* 99, 525, 3 321 vertices */

typedef struct config {
    sinew_solver solver;
    uint32_t substeps, iterations; /* the implicit solver: PCG iterations a substep at most */
    int largest; /* also on the largest mesh (lavapipe: the cheaper ones only) */
} config;

/* 8 x 4 Gauss-Seidel is the default cost; 16 x 2 and 32 x 1 cost the same
 * (32 element sweeps a step); the rest spend more. The implicit solver's
 * cost is its assembly and its PCG iterations (to 1e-6, so the cap binds):
 * compare the GPU time a step. */
static const config configs[] = {
    {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, 8, 4, 1},  {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, 16, 2, 1},
    {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, 32, 1, 1}, {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, 8, 16, 1},
    {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, 64, 1, 1}, {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, 8, 64, 0},
    {SINEW_SOLVER_GPBD_JACOBI, 8, 4, 1},        {SINEW_SOLVER_GPBD_JACOBI, 8, 64, 0},
    {SINEW_SOLVER_IMPLICIT_PCG, 1, 10, 1},      {SINEW_SOLVER_IMPLICIT_PCG, 1, 20, 1},
    {SINEW_SOLVER_IMPLICIT_PCG, 1, 40, 1},      {SINEW_SOLVER_IMPLICIT_PCG, 1, 80, 1},
};
#define CONFIGS (sizeof configs / sizeof configs[0])

static const double E = 1e7, NU = 0.3, LENGTH = 1.0, SIDE = 0.2;

static sinew_asset *cantilever(const mesh *m, const sinew_logger *lg)
{
    sinew_volume v;
    const double size[3] = {LENGTH, SIDE, SIDE}, centre[3] = {LENGTH / 2, 1.0, 0.0};
    if (sinew_volume_box(m->nx, m->nyz, m->nyz, size, centre, &v) != SINEW_RESULT_OK)
        return NULL;
    sinew_soft_options o = sinew_soft_options_default();
    o.youngs_modulus = E;
    o.poisson_ratio = NU;
    o.density = 1000.0;
    o.pin_box = 1;
    const double lo[3] = {-1.0, 0.0, -1.0}, hi[3] = {1e-6, 2.0, 1.0};
    memcpy(o.box_min, lo, sizeof lo);
    memcpy(o.box_max, hi, sizeof hi);
    sinew_asset *a = NULL;
    sinew_soft_build(&v, &o, lg, &a, NULL);
    sinew_volume_free(&v);
    return a;
}

/* The exact static displacement of the asset's body (3 per particle). */
static double *exact(const sinew_asset *a, const double g[3], fem_ref_stats *st)
{
    GpuMaterial gm = sinew_gpbd_material(&a->materials[0]);
    fem_ref_material m = fem_ref_material_device(&gm);
    double *u = malloc(sizeof *u * 3 * a->particle_count);
    if (u && fem_ref_asset_displacement(a, &m, g, 1e-8, 100, u, st) == 1)
        return u;
    free(u);
    return NULL;
}

/* The mean vertical displacement of the free end's vertices (x = LENGTH). */
static double tip_sag(const sinew_asset *a, const double *u)
{
    double s = 0.0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < a->particle_count; i++)
        if (a->particles[i].x > LENGTH - 1e-6) {
            s += -u[3 * i + 1];
            count++;
        }
    return count ? s / count : 0.0;
}

typedef struct result {
    double sag, sag_error, field_error, residual, estimate, ms_gpu, ms_wall;
    uint32_t steps;
    int rested, stable;
} result;

static int run(sinew_context *ctx, const sinew_asset *a, const config *c, const double *ref, uint32_t max_steps,
               result *out)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = c->solver;
    d.substeps = c->substeps;
    d.iterations = c->iterations;
    d.implicit.max_pcg_iterations = c->iterations;
    d.implicit.tolerance = 1e-6f;
    /* Backward Euler, not a solid's default BDF2: with a capped solve the
     * beam's smooth bending modes move as the truncated PCG leaves them,
     * and BDF2, which keeps motion, rings for hundreds of steps where
     * backward Euler's numerical damping settles them (docs/accuracy.md,
     * "Implicit dynamics: rotation and settling"). */
    d.implicit.bdf2 = 0;
    d.timestamps = 1;
    sinew_body *b = NULL;
    if (sinew_body_create(ctx, a, &d, &b) != SINEW_RESULT_OK)
        return 0;
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.damping = 10.0f;
    const uint32_t n = a->particle_count;
    float *xyz = malloc(sizeof *xyz * 3 * n);
    double *u = malloc(sizeof *u * 3 * n);
    sinew_result r = SINEW_RESULT_OK;
    double gpu = 0.0, last = INFINITY;
    uint32_t s = 0;
    const double t0 = bench_now_s();
    out->rested = 0;
    /* at rest: the tip moved less than 1e-4 of its sag (and 1 um) over the
     * last 10 steps; float positions near 1 m jitter by about 1e-7 m */
    for (; s < max_steps && r == SINEW_RESULT_OK && !out->rested; s++) {
        r = sinew_body_step(b, &p);
        gpu += sinew_body_get_stats(b).ms_total;
        if (r == SINEW_RESULT_OK && (s + 1) % 10 == 0) {
            r = sinew_body_read_positions(b, xyz, n);
            for (uint32_t i = 0; i < n; i++)
                for (int k = 0; k < 3; k++)
                    u[3 * i + k] = (double)xyz[3 * i + k] - (&a->particles[i].x)[k];
            double sag = tip_sag(a, u);
            out->rested = fabs(sag - last) < fmax(1e-4 * fabs(sag), 1e-6);
            last = sag;
        }
    }
    out->ms_wall = 1e3 * (bench_now_s() - t0) / s;
    out->ms_gpu = gpu / s;
    out->steps = s;
    out->stable = r == SINEW_RESULT_OK;
    out->residual = sinew_body_get_stats(b).residual;
    out->estimate = sinew_body_get_stats(b).error_estimate;
    if (sinew_body_read_positions(b, xyz, n) != SINEW_RESULT_OK)
        out->stable = 0;
    double du = 0.0, dr = 0.0;
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            u[3 * i + k] = (double)xyz[3 * i + k] - (&a->particles[i].x)[k];
            du += (u[3 * i + k] - ref[3 * i + k]) * (u[3 * i + k] - ref[3 * i + k]);
            dr += ref[3 * i + k] * ref[3 * i + k];
        }
    out->sag = tip_sag(a, u);
    out->sag_error = out->sag / tip_sag(a, ref) - 1.0;
    out->field_error = sqrt(du / dr);
    free(xyz);
    free(u);
    sinew_body_destroy(b);
    return 1;
}

static const char *solver_label(sinew_solver s)
{
    return s == SINEW_SOLVER_GPBD_JACOBI ? "Jacobi" : s == SINEW_SOLVER_IMPLICIT_PCG ? "implicit PCG" : "Gauss-Seidel";
}

/* The plots' data sets: 0 Gauss-Seidel, 1 Jacobi, 2 the implicit solver. */
static int solver_set(sinew_solver s)
{
    return s == SINEW_SOLVER_GPBD_JACOBI ? 1 : s == SINEW_SOLVER_IMPLICIT_PCG ? 2 : 0;
}

typedef struct options { int dry, plots, implicit_only; } options;

static int run_accuracy(sinew_context *ctx, const void *opt, const char *out)
{
    const options *o = opt;
    const int dry = o->dry;
    uint32_t vertices[sizeof meshes / sizeof meshes[0]], mesh_runs = 0;
    char path[1024];
    FILE *f[3];
    const char *names[3] = {"accuracy.csv", "accuracy.dat", "README.md"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", out, names[k]);
        f[k] = fopen(path, "w");
    }
    FILE *csv = f[0], *dat = f[1], *md = f[2];
    if (!csv || !dat || !md) {
        fprintf(stderr, "sinew-bench: cannot write into %s\n", out);
        for (int k = 0; k < 3; k++)
            if (f[k])
                fclose(f[k]);
        return 0;
    }
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    const double g[3] = {0.0, -9.81, 0.0};
    const char *device = sinew_context_get_device_info(ctx).name;
    fprintf(csv, "vertices,tets,solver,substeps,iterations,sweeps_per_step,steps,rested,exact_sag_m,sag_m,sag_error,"
                 "field_error,residual,error_estimate,ms_gpu_per_step,ms_wall_per_step,stable\n");
    fprintf(md, "# sinew-bench: accuracy suite on %s\n\n", device);
    fprintf(md, "A neo-Hookean cantilever, %g x %g x %g m, E %g Pa, nu %g, 1000 kg/m^3, clamped at x = 0, hangs "
                "under gravity (dt 1/60 s, damping 10/s, no ground) until its tip moves less than 1e-4 of its sag "
                "in 10 steps (or 400 steps); its resting shape against the exact static equilibrium of the same mesh, "
                "lumped masses and material (tests/ref/fem_ref.c, Newton to 1e-8 of the load): the tip's sag "
                "relative to the exact sag, the displacement field's relative error |u - u*| / |u*|, the "
                "solver's residual after the last step (docs/math.md section 9), and the cost per step (GPU "
                "timestamps; wall clock beside it), all in one run. GPBD's sweeps per step = substeps x iterations: "
                "8 x 4, 16 x 2 and 32 x 1 cost the same. The implicit solver (docs/implicit.md, \"Solids\") takes "
                "a Newton step a substep (backward Euler), its linear system solved by block-Jacobi PCG to 1e-6 but "
                "at most the iterations given (its column: substeps x PCG iterations); its cost is the GPU time "
                "beside it.\n\n",
            LENGTH, SIDE, SIDE, E, NU);
    int ok = 1;
    for (size_t mi = 0; mi < sizeof meshes / sizeof meshes[0] && ok; mi++) {
        mesh m = meshes[mi];
        if (dry && mi > 0)
            break;
        sinew_asset *a = cantilever(&m, &quiet);
        fem_ref_stats fst = {0};
        double *ref = a ? exact(a, g, &fst) : NULL;
        if (!ref) {
            fprintf(stderr, "sinew-bench: accuracy: the %u-vertex cantilever or its static solve failed\n",
                    a ? a->particle_count : 0);
            sinew_asset_destroy(a);
            ok = 0;
            break;
        }
        const double sag0 = tip_sag(a, ref);
        vertices[mesh_runs++] = a->particle_count;
        const int largest = mi + 1 == sizeof meshes / sizeof meshes[0];
        fprintf(md, "## %u vertices, %u tetrahedra\n\nExact tip sag %.4f mm (static solve: %d Newton steps, "
                    "net force %.1e of %.1e N).\n\n",
                a->particle_count, a->element_count, 1e3 * sag0, fst.newton_iterations, fst.gradient,
                fst.gradient0);
        fprintf(md, "| solver | substeps x iterations | sweeps or PCG iterations / step | steps | at rest | tip sag mm | sag error | "
                    "field error | error estimate | residual | GPU ms / step | wall ms / step |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        fprintf(dat, "# %u vertices: sweeps substeps iterations sag_error residual set ms_gpu (set 0 Gauss-Seidel, "
                     "1 Jacobi, 2 implicit)\n", a->particle_count);
        double default_ms = 0.0, best_error = INFINITY, best_ms = 0.0;
        const config *best = NULL;
        for (size_t ci = 0; ci < CONFIGS && ok; ci++) {
            const config *c = &configs[ci];
            if (largest && !c->largest)
                continue;
            if (o->implicit_only && ci > 0 && c->solver != SINEW_SOLVER_IMPLICIT_PCG)
                continue;
            result res = {0};
            ok = run(ctx, a, c, ref, dry ? 3 : 400, &res);
            if (!ok)
                break;
            const uint32_t sweeps = c->substeps * c->iterations;
            fprintf(csv, "%u,%u,%s,%u,%u,%u,%u,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4f,%.4f,%d\n", a->particle_count,
                    a->element_count, solver_label(c->solver), c->substeps, c->iterations, sweeps, res.steps,
                    res.rested, sag0, res.sag, res.sag_error, res.field_error, res.residual, res.estimate, res.ms_gpu,
                    res.ms_wall,
                    res.stable);
            fprintf(md, "| %s | %u x %u | %u | %u | %s | %.4f | %+.1f %% | %.3g | %.3g | %.3g | %.1f | %.1f |\n",
                    solver_label(c->solver), c->substeps, c->iterations, sweeps, res.steps,
                    res.stable ? (res.rested ? "yes" : "no") : "UNSTABLE", 1e3 * res.sag, 100.0 * res.sag_error,
                    res.field_error, res.estimate, res.residual, res.ms_gpu, res.ms_wall);
            fprintf(dat, "%u %u %u %.6g %.6g %d %.4f\n", sweeps, c->substeps, c->iterations, res.sag_error,
                    res.residual, solver_set(c->solver), res.ms_gpu);
            if (ci == 0)
                default_ms = res.ms_gpu;
            else if (res.stable && res.ms_gpu <= 1.1 * default_ms && fabs(res.sag_error) < best_error) {
                best = c;
                best_error = fabs(res.sag_error);
                best_ms = res.ms_gpu;
            }
            fprintf(stderr, "sinew-bench: accuracy %5u vertices %-12s %2u x %2u: sag %+7.1f %%, field %.3g, estimate %.3g, "
                    "residual %.3g, %.1f ms GPU a step, %u steps%s\n", a->particle_count, solver_label(c->solver),
                    c->substeps, c->iterations, 100.0 * res.sag_error, res.field_error, res.estimate, res.residual,
                    res.ms_gpu,
                    res.steps, res.rested ? "" : " (not at rest)");
        }
        fprintf(md, "\n");
        if (best)
            fprintf(md, "At the cost of GPBD Gauss-Seidel 8 x 4 (%.1f ms a step; within 10 %% of it) the most "
                        "accurate is %s %u x %u: %.1f ms a step, sag error %.1f %%.\n\n",
                    default_ms, solver_label(best->solver), best->substeps, best->iterations, best_ms,
                    100.0 * best_error);
        fprintf(dat, "\n\n");
        free(ref);
        sinew_asset_destroy(a);
    }
    fprintf(md, "![sag error against sweeps per step](accuracy.png)\n\n"
                "![sag error against GPU time per step](accuracy-cost.png)\n");
    fclose(csv);
    fclose(dat);
    fclose(md);
    snprintf(path, sizeof path, "%s/accuracy.gp", out);
    FILE *gp = fopen(path, "w");
    if (!gp)
        return 0;
    fprintf(gp, "set terminal pngcairo size 900,550\nset output 'accuracy.png'\n"
                "set title 'GPBD Gauss-Seidel cantilever at rest, %s'\n"
                "set logscale xy\nset grid\nset xlabel 'element sweeps per step (substeps x iterations)'\n"
                "set ylabel '|tip sag / exact sag - 1|'\nset key outside right\nplot ",
            device);
    for (uint32_t k = 0; k < mesh_runs; k++)
        fprintf(gp, "%s'accuracy.dat' index %u using 1:($6 == 0 && $2 == 8 ? abs($4) : 1/0) with points pt 7 "
                    "ps 1.6 lc %u title '%u vertices, 8 x k', '' index %u using 1:($6 == 0 && $3 == 1 ? abs($4) : "
                    "1/0) with points pt 5 ps 1.6 lc %u title '%u vertices, k x 1'",
                k ? ", " : "", k, k + 1, vertices[k], k, k + 1, vertices[k]);
    fprintf(gp, "\nset output 'accuracy-cost.png'\n"
                "set title 'Cantilever at rest: error against cost, %s'\n"
                "set xlabel 'GPU ms per step'\nplot ",
            device);
    for (uint32_t k = 0; k < mesh_runs; k++)
        fprintf(gp, "%s'accuracy.dat' index %u using 7:($6 == 0 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc %u "
                    "title '%u vertices, GPBD Gauss-Seidel', '' index %u using 7:($6 == 2 ? abs($4) : 1/0) with "
                    "points pt 9 ps 1.8 lc %u title '%u vertices, implicit PCG'",
                k ? ", " : "", k, k + 1, vertices[k], k, k + 1, vertices[k]);
    fprintf(gp, "\n");
    fclose(gp);
    if (o->plots && ok) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot accuracy.gp 2>/dev/null", out);
        if (system(cmd) != 0)
            fprintf(stderr, "sinew-bench: gnuplot failed on %s/accuracy.gp (is gnuplot installed?)\n", out);
    }
    return ok;
}

/* sinew-bench --suite accuracy-settle: how many steps the implicit solver
 * (1 x 40 PCG, the accuracy suite's settings) takes to settle the finest
 * cantilever from rest in its undeformed pose: the step from which the
 * tip's sag stays within 1 % of the exact sag for 50 steps, with backward
 * Euler (the suite's integrator) and with BDF2 (a solid's default), up to
 * 3 000 steps. Writes accuracy-settle.csv (the sag every 10 steps) and
 * README.md. */
static int run_settle(sinew_context *ctx, const void *opt, const char *out)
{
    const options *o = opt;
    FILE *csv, *md;
    if (!bench_open_results(out, "accuracy-settle.csv", &csv, &md))
        return 0;
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    const mesh m = meshes[o->dry ? 0 : sizeof meshes / sizeof meshes[0] - 1];
    sinew_asset *a = cantilever(&m, &quiet);
    const double g[3] = {0.0, -9.81, 0.0};
    fem_ref_stats fst = {0};
    double *ref = a ? exact(a, g, &fst) : NULL;
    int ok = ref != NULL;
    const uint32_t n = ok ? a->particle_count : 0, max_steps = o->dry ? 100 : 3000, window = 50;
    float *xyz = malloc(sizeof *xyz * 3 * n + 4);
    double *u = malloc(sizeof *u * 3 * n + 8);
    const double sag0 = ok ? tip_sag(a, ref) : 0.0;
    fprintf(csv, "integrator,step,sag_error\n");
    fprintf(md, "# sinew-bench: accuracy-settle suite on %s\n\n", sinew_context_get_device_info(ctx).name);
    fprintf(md, "The accuracy suite's cantilever of %u vertices (exact tip sag %.4f mm) with the implicit solver, 1 "
                "substep, PCG to 1e-6 but at most 40 iterations a step, dt 1/60 s, from rest in its undeformed pose: "
                "the step from which its tip's sag stays within 1 %% of the exact sag for %u steps (checked every "
                "10), up to %u steps; the sag every 10 steps in accuracy-settle.csv.\n\n| integrator | settled by step | "
                "sag error then |\n|---|---|---|\n",
            n, 1e3 * sag0, window, max_steps);
    for (int bdf2 = 0; bdf2 < 2 && ok; bdf2++) {
        sinew_body_desc d = sinew_body_desc_default();
        d.solver = SINEW_SOLVER_IMPLICIT_PCG;
        d.substeps = 1;
        d.implicit.max_pcg_iterations = 40;
        d.implicit.tolerance = 1e-6f;
        d.implicit.bdf2 = bdf2;
        sinew_body *b = NULL;
        if (sinew_body_create(ctx, a, &d, &b) != SINEW_RESULT_OK) {
            ok = 0;
            break;
        }
        sinew_step_params p = sinew_step_params_default();
        p.ground = 0;
        uint32_t within = 0, settled = 0;
        double err = NAN;
        for (uint32_t s = 1; s <= max_steps && ok && !settled; s++) {
            ok = sinew_body_step(b, &p) == SINEW_RESULT_OK;
            if (!ok || s % 10)
                continue;
            ok = sinew_body_read_positions(b, xyz, n) == SINEW_RESULT_OK;
            for (uint32_t i = 0; i < n; i++)
                for (int k = 0; k < 3; k++)
                    u[3 * i + k] = (double)xyz[3 * i + k] - (&a->particles[i].x)[k];
            err = tip_sag(a, u) / sag0 - 1.0;
            fprintf(csv, "%s,%u,%.6g\n", bdf2 ? "BDF2" : "backward Euler", s, err);
            within = fabs(err) < 0.01 ? within + 10 : 0;
            if (within >= window)
                settled = s - window + 10;
        }
        sinew_body_destroy(b);
        if (!ok)
            break;
        fprintf(md, settled ? "| %s | %u | %+.2f %% |\n" : "| %s | not within %u steps | %+.2f %% |\n",
                bdf2 ? "BDF2" : "backward Euler", settled ? settled : max_steps, 100.0 * err);
        fprintf(stderr, "sinew-bench: accuracy-settle %s: %s %u steps (sag error %+.2f %% then)\n",
                bdf2 ? "BDF2" : "backward Euler", settled ? "settled by" : "not settled in", settled ? settled : max_steps,
                100.0 * err);
    }
    if (!ok)
        fprintf(stderr, "sinew-bench: accuracy-settle: the cantilever, its static solve or a step failed\n");
    free(xyz), free(u), free(ref);
    sinew_asset_destroy(a);
    fclose(csv);
    fclose(md);
    return ok;
}

int bench_accuracy_settle_suite(const bench_args *a)
{
    static options o;
    o.dry = a->dry_run;
    return bench_on_device(a, "accuracy-settle", run_settle, &o);
}

int bench_accuracy_suite(const bench_args *a)
{
    static options o;
    o.dry = a->dry_run;
    o.plots = !a->no_plots;
    return bench_on_device(a, "accuracy", run_accuracy, &o);
}

int bench_accuracy_implicit_suite(const bench_args *a)
{
    static options o;
    o.dry = a->dry_run;
    o.plots = !a->no_plots;
    o.implicit_only = 1;
    return bench_on_device(a, "accuracy-implicit", run_accuracy, &o);
}
