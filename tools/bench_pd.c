/* sinew-bench --suite pd: figures 3 and 4 of Pall, Nylén and Fratarcangeli,
 * "Fast Quadrangular Mass-Spring Systems using Red-Black Ordering", section 5.
 *
 * Two scenes of an n x n quad network (the paper's 100 x 100: 10 000
 * particles, 19 800 springs, 1 m across, 0.2 kg):
 *   shrink   (figure 3) stretched by half in both directions and let go with
 *            the integration disabled: every step starts from rest with no
 *            gravity (y = x), so only the springs move it back to its size;
 *   hanging  (figure 4) horizontal, pinned at the two corners of one edge,
 *            swinging down under gravity.
 * Each is run by red-black Gauss-Seidel, Jacobi and Chebyshev-accelerated
 * Jacobi on the device and by serial Gauss-Seidel on the CPU (the double
 * reference, one thread), once with the same iterations per frame (the
 * paper's 11) and once with the iterations each fits into the same time per
 * frame; the error (the paper's eq. 7, the sum over springs of the squared
 * length deviation) is recorded after every frame. Chebyshev's rho is picked
 * per scene from a sweep, as Wang (2015) tunes it. */
#define _POSIX_C_SOURCE 200809L
#include "bench_pd.h"
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prep/cloth.h"
#include "prep/redblack.h"
#include "ref/pd_ref.h"

enum { V_RBGS, V_JACOBI, V_CHEBYSHEV, V_SERIAL, V_COUNT };
static const char *const variant_keys[V_COUNT] = {"rbgs", "jacobi", "chebyshev", "serial"};
static const char *const variant_titles[V_COUNT] = {"red-black Gauss-Seidel", "Jacobi", "Chebyshev Jacobi",
                                                    "serial Gauss-Seidel (CPU)"};
static const sinew_solver variant_solvers[3] = {SINEW_SOLVER_PD_RED_BLACK, SINEW_SOLVER_PD_JACOBI,
                                                SINEW_SOLVER_PD_CHEBYSHEV};

enum { S_SHRINK, S_HANGING, S_COUNT };
static const char *const scene_keys[S_COUNT] = {"shrink", "hanging"};
static const char *const scene_titles[S_COUNT] = {"stretched network shrinking back (figure 3)",
                                                  "cloth hanging from two corners (figure 4)"};

static const double rhos[] = {0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999};
#define RHO_COUNT (sizeof rhos / sizeof rhos[0])
#define CHEBYSHEV_DELAY 1u
#define HANGING_DAMPING 0.1 /* 1/s */
#define DT (1.0 / 60.0)

bench_pd_options bench_pd_options_default(void)
{
    return (bench_pd_options){.n = 100, .frames = 300, .iterations = 11, .budget_ms = 0.0, .stiffness = 1e4,
                              .plots = 1};
}

typedef struct scene {
    int kind;
    sinew_asset *asset;
    sinew_asset_info info;
    float *start;      /* 3n: positions at frame 0 */
    uint32_t *ends;    /* 2 per spring */
    float *rest;       /* rest pose, 3n */
    double *length;    /* rest length per spring */
} scene;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int scene_make(int kind, uint32_t n, scene *s)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    double origin[3] = {0.0, 1.0, 0.0};
    sinew_mesh mesh;
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_WARNING;
    if (sinew_mesh_grid(n, n, 1.0, 1.0, SINEW_GRID_XZ, origin, &mesh) != SINEW_RESULT_OK)
        return 0;
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.shear = 0;
    opt.bending = 0;
    uint32_t pins[2] = {0, n - 1};
    if (kind == S_HANGING) {
        opt.pin_indices = pins;
        opt.pin_count = 2;
    }
    sinew_result r = sinew_cloth_build(&mesh, &opt, &quiet, &s->asset, NULL);
    sinew_mesh_free(&mesh);
    if (r != SINEW_RESULT_OK || sinew_redblack_asset(s->asset, "pd network", &quiet, NULL) != SINEW_RESULT_OK)
        return 0;
    s->info = sinew_asset_get_info(s->asset);
    const uint32_t np = s->info.particle_count, springs = s->info.distance_count;
    s->start = malloc(sizeof *s->start * 3 * np);
    s->rest = malloc(sizeof *s->rest * 3 * np);
    s->ends = malloc(sizeof *s->ends * 2 * springs);
    s->length = malloc(sizeof *s->length * springs);
    if (!s->start || !s->rest || !s->ends || !s->length)
        return 0;
    sinew_asset_get_positions(s->asset, s->rest);
    sinew_asset_get_distances(s->asset, s->ends);
    for (uint32_t c = 0; c < springs; c++) {
        const float *a = &s->rest[3 * s->ends[2 * c]], *b = &s->rest[3 * s->ends[2 * c + 1]];
        s->length[c] = sqrt(pow((double)a[0] - b[0], 2) + pow((double)a[1] - b[1], 2) + pow((double)a[2] - b[2], 2));
    }
    memcpy(s->start, s->rest, sizeof *s->start * 3 * np);
    if (kind == S_SHRINK) /* half as large again in both directions, about the centre */
        for (uint32_t i = 0; i < np; i++) {
            s->start[3 * i] = (float)(0.5 + 1.5 * (s->rest[3 * i] - 0.5));
            s->start[3 * i + 2] = (float)(0.5 + 1.5 * (s->rest[3 * i + 2] - 0.5));
        }
    return 1;
}

static void scene_free(scene *s)
{
    sinew_asset_destroy(s->asset);
    free(s->start);
    free(s->rest);
    free(s->ends);
    free(s->length);
}

/* Pall et al., eq. 7. */
static double spring_error_f(const scene *s, const float *x)
{
    double sum = 0.0;
    for (uint32_t c = 0; c < s->info.distance_count; c++) {
        const float *a = &x[3 * s->ends[2 * c]], *b = &x[3 * s->ends[2 * c + 1]];
        double l = sqrt(pow((double)a[0] - b[0], 2) + pow((double)a[1] - b[1], 2) + pow((double)a[2] - b[2], 2));
        sum += (l - s->length[c]) * (l - s->length[c]);
    }
    return sum;
}

static sinew_step_params scene_params(const scene *s)
{
    sinew_step_params p = sinew_step_params_default();
    p.dt = (float)DT;
    p.ground = 0;
    if (s->kind == S_SHRINK) {
        p.gravity[1] = 0.0f;
        p.damping = 1e9f; /* the velocity factor exp(-damping h) is 0: y = x */
    } else {
        p.damping = (float)HANGING_DAMPING;
    }
    return p;
}

typedef struct result {
    uint32_t iterations;
    double *error;       /* per frame */
    double ms_iteration; /* median over frames */
    double ms_fixed;     /* per frame, outside the iterations */
    uint32_t failed_frame; /* 0: none; else the frame the health check failed */
} result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, uint32_t count)
{
    if (!count)
        return -1.0;
    qsort(v, count, sizeof *v, cmp_double);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

static int run_gpu(sinew_context *ctx, const scene *s, const bench_pd_options *o, int variant, uint32_t iterations,
                   double rho, result *res)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = variant_solvers[variant];
    d.substeps = 1;
    d.iterations = iterations;
    d.stretch_compliance = (float)(1.0 / o->stiffness);
    d.residual = 0;
    d.rollback = 0;
    d.chebyshev_rho = (float)rho;
    d.chebyshev_delay = CHEBYSHEV_DELAY;
    d.name = variant_keys[variant];
    sinew_body *body = NULL;
    const uint32_t np = s->info.particle_count;
    float *x = malloc(sizeof *x * 3 * np);
    double *solve = malloc(sizeof *solve * o->frames), *fixed = malloc(sizeof *fixed * o->frames);
    res->iterations = iterations;
    res->failed_frame = 0;
    res->error = calloc(o->frames, sizeof *res->error);
    int ok = x && solve && fixed && res->error && sinew_body_create(ctx, s->asset, &d, &body) == SINEW_RESULT_OK &&
             sinew_body_write_positions(body, s->start, np) == SINEW_RESULT_OK;
    sinew_step_params p = scene_params(s);
    uint32_t timed = 0;
    for (uint32_t f = 0; ok && f < o->frames; f++) {
        sinew_result r = sinew_body_step(body, &p);
        if (r == SINEW_RESULT_ERROR_UNSTABLE) {
            res->failed_frame = f + 1;
            for (uint32_t g = f; g < o->frames; g++)
                res->error[g] = NAN;
            break;
        }
        ok = r == SINEW_RESULT_OK && sinew_body_read_positions(body, x, np) == SINEW_RESULT_OK;
        if (!ok)
            break;
        res->error[f] = spring_error_f(s, x);
        sinew_step_stats st = sinew_body_get_stats(body);
        if (st.ms_total > 0 && f > 0) { /* the first frame warms caches */
            solve[timed] = st.ms_solve / iterations;
            fixed[timed++] = st.ms_total - st.ms_solve;
        }
    }
    res->ms_iteration = median(solve, timed);
    res->ms_fixed = median(fixed, timed);
    sinew_body_destroy(body);
    free(x);
    free(solve);
    free(fixed);
    return ok;
}

static int run_cpu(const scene *s, const bench_pd_options *o, uint32_t iterations, result *res)
{
    const uint32_t np = s->info.particle_count, springs = s->info.distance_count;
    double *x = malloc(sizeof *x * 3 * np), *w = malloc(sizeof *w * np);
    pd_ref_spring *sp = malloc(sizeof *sp * springs);
    double *solve = malloc(sizeof *solve * o->frames), *fixed = malloc(sizeof *fixed * o->frames);
    res->iterations = iterations;
    res->failed_frame = 0;
    res->error = calloc(o->frames, sizeof *res->error);
    if (!x || !w || !sp || !solve || !fixed || !res->error) {
        free(x); free(w); free(sp); free(solve); free(fixed);
        return 0;
    }
    for (uint32_t i = 0; i < 3 * np; i++)
        x[i] = s->start[i];
    for (uint32_t i = 0; i < np; i++)
        w[i] = s->asset->particles[i].w;
    for (uint32_t c = 0; c < springs; c++)
        sp[c] = (pd_ref_spring){s->ends[2 * c], s->ends[2 * c + 1], s->asset->distances[c].rest,
                                1.0 / (double)(float)(1.0 / o->stiffness)};
    pd_ref *ref = pd_ref_create(np, x, w, springs, sp, NULL);
    pd_ref_step_params rp = pd_ref_step_params_default();
    sinew_step_params gp = scene_params(s);
    rp.dt = DT;
    for (int k = 0; k < 3; k++)
        rp.gravity[k] = gp.gravity[k];
    rp.damping = s->kind == S_SHRINK ? 1.0 : 1.0 - exp(-HANGING_DAMPING * DT);
    rp.iterations = iterations;
    rp.variant = PD_REF_SERIAL;
    for (uint32_t f = 0; f < o->frames; f++) {
        double t0 = now_s();
        pd_ref_begin_step(ref, &rp);
        double t1 = now_s();
        for (uint32_t it = 0; it < iterations; it++)
            pd_ref_iterate(ref, &rp);
        double t2 = now_s();
        pd_ref_end_step(ref);
        double t3 = now_s();
        solve[f] = (t2 - t1) * 1e3 / iterations;
        fixed[f] = (t1 - t0 + t3 - t2) * 1e3;
        res->error[f] = pd_ref_error(ref);
    }
    res->ms_iteration = median(solve, o->frames);
    res->ms_fixed = median(fixed, o->frames);
    pd_ref_destroy(ref);
    free(x); free(w); free(sp); free(solve); free(fixed);
    return 1;
}

/* Geometric mean of the error over the frames: the rho sweep's score. */
static double score(const result *r, uint32_t frames)
{
    double sum = 0.0;
    for (uint32_t f = 0; f < frames; f++) {
        if (!isfinite(r->error[f]) || r->error[f] <= 0)
            return INFINITY;
        sum += log(r->error[f]);
    }
    return exp(sum / frames);
}

typedef struct scene_results {
    double rho;
    double rho_score[RHO_COUNT];
    result by_iterations[V_COUNT];
    result by_budget[V_COUNT];
    double budget_ms;
} scene_results;

/* Writes pd_KIND.dat and pd_KIND.gp; runs gnuplot on them when o->plots. */
static void write_plot(const char *out, int kind, const scene_results *sr, const bench_pd_options *o,
                       const char *device)
{
    char dat[4096], gp[4096], cmd[8400];
    snprintf(dat, sizeof dat, "%s/pd_%s.dat", out, scene_keys[kind]);
    FILE *f = fopen(dat, "w");
    if (!f)
        return;
    for (int mode = 0; mode < 2; mode++)
        for (int v = 0; v < V_COUNT; v++) {
            const result *r = mode ? &sr->by_budget[v] : &sr->by_iterations[v];
            for (uint32_t fr = 0; fr < o->frames; fr++)
                if (isfinite(r->error[fr]) && r->error[fr] > 0)
                    fprintf(f, "%u %.9g\n", fr + 1, r->error[fr]);
            fprintf(f, "\n\n");
        }
    fclose(f);
    snprintf(gp, sizeof gp, "%s/pd_%s.gp", out, scene_keys[kind]);
    f = fopen(gp, "w");
    if (!f)
        return;
    /* Names relative to the folder, where gnuplot runs: the script and data move with it. */
    fprintf(f, "set terminal pngcairo size 900,900\nset output 'pd_%s.png'\nset multiplot layout 2,1 title "
               "'%u x %u network, %s\\n%s'\nset logscale y\nset grid\nset xlabel 'frame'\n"
               "set ylabel 'error (m^2)'\nset format y '10^{%%T}'\nset key right top\n",
            scene_keys[kind], o->n, o->n, scene_titles[kind], device);
    for (int mode = 0; mode < 2; mode++) {
        if (mode == 0)
            fprintf(f, "set title '%u iterations per frame'\nplot ", o->iterations);
        else
            fprintf(f, "set title 'time budget of %.3g ms per frame (iterations in brackets)'\nplot ", sr->budget_ms);
        for (int v = 0; v < V_COUNT; v++) {
            const result *r = mode ? &sr->by_budget[v] : &sr->by_iterations[v];
            fprintf(f, "'pd_%s.dat' index %d using 1:2 with lines lw 2 title '%s", scene_keys[kind], mode * V_COUNT + v,
                    variant_titles[v]);
            if (mode)
                fprintf(f, " (%u)", r->iterations);
            fprintf(f, "'%s", v + 1 < V_COUNT ? ", " : "\n");
        }
    }
    fprintf(f, "unset multiplot\n");
    fclose(f);
    if (!o->plots)
        return;
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot 'pd_%s.gp' 2>/dev/null", out, scene_keys[kind]);
    if (system(cmd) != 0)
        fprintf(stderr, "sinew-bench: gnuplot failed on %s (is gnuplot installed?)\n", gp);
}

static uint32_t fit(double budget, const result *timing)
{
    double k = floor((budget - timing->ms_fixed) / timing->ms_iteration);
    return k < 1 ? 1u : k > 1000 ? 1000u : (uint32_t)k;
}

int bench_pd(sinew_context *ctx, const bench_pd_options *o, const char *out)
{
    sinew_device_info di = sinew_context_get_device_info(ctx);
    scene_results sr[S_COUNT];
    memset(sr, 0, sizeof sr);
    int ok = 1;
    for (int k = 0; ok && k < S_COUNT; k++) {
        scene s;
        if (!scene_make(k, o->n, &s)) {
            fprintf(stderr, "sinew-bench: cannot build the %s scene\n", scene_keys[k]);
            scene_free(&s);
            return 0;
        }
        /* Chebyshev's rho: the best geometric-mean error at the paper's iterations. */
        double best = INFINITY;
        sr[k].rho = rhos[0];
        for (size_t i = 0; ok && i < RHO_COUNT; i++) {
            result r = {0};
            fprintf(stderr, "pd %s: Chebyshev rho %.3g\n", scene_keys[k], rhos[i]);
            ok = run_gpu(ctx, &s, o, V_CHEBYSHEV, o->iterations, rhos[i], &r);
            sr[k].rho_score[i] = score(&r, o->frames);
            if (sr[k].rho_score[i] < best) {
                best = sr[k].rho_score[i];
                sr[k].rho = rhos[i];
            }
            free(r.error);
        }
        /* Equal iterations; these runs also time an iteration of each. */
        for (int v = 0; ok && v < V_COUNT; v++) {
            fprintf(stderr, "pd %s: %s, %u iterations per frame\n", scene_keys[k], variant_keys[v], o->iterations);
            ok = v == V_SERIAL ? run_cpu(&s, o, o->iterations, &sr[k].by_iterations[v])
                               : run_gpu(ctx, &s, o, v, o->iterations, sr[k].rho, &sr[k].by_iterations[v]);
        }
        /* Equal time: what red-black takes for the paper's iterations unless given. */
        const result *rb = &sr[k].by_iterations[V_RBGS];
        sr[k].budget_ms = o->budget_ms > 0 ? o->budget_ms : rb->ms_fixed + o->iterations * rb->ms_iteration;
        for (int v = 0; ok && v < V_COUNT; v++) {
            uint32_t it = fit(sr[k].budget_ms, &sr[k].by_iterations[v]);
            fprintf(stderr, "pd %s: %s, %u iterations in %.3g ms\n", scene_keys[k], variant_keys[v], it,
                    sr[k].budget_ms);
            ok = v == V_SERIAL ? run_cpu(&s, o, it, &sr[k].by_budget[v])
                               : run_gpu(ctx, &s, o, v, it, sr[k].rho, &sr[k].by_budget[v]);
        }
        scene_free(&s);
    }
    char path[4096];
    FILE *csv = NULL;
    if (ok) {
        snprintf(path, sizeof path, "%s/pd_error.csv", out);
        ok = (csv = fopen(path, "w")) != NULL;
    }
    if (ok) {
        fprintf(csv, "scene,comparison,variant,iterations,frame,error_m2\n");
        for (int k = 0; k < S_COUNT; k++)
            for (int mode = 0; mode < 2; mode++)
                for (int v = 0; v < V_COUNT; v++) {
                    const result *r = mode ? &sr[k].by_budget[v] : &sr[k].by_iterations[v];
                    for (uint32_t f = 0; f < o->frames; f++)
                        fprintf(csv, "%s,%s,%s,%u,%u,%.9g\n", scene_keys[k], mode ? "budget" : "iterations",
                                variant_keys[v], r->iterations, f + 1, r->error[f]);
                }
        ok = fclose(csv) == 0;
        snprintf(path, sizeof path, "%s/pd_timing.csv", out);
        ok = ok && (csv = fopen(path, "w")) != NULL;
    }
    if (ok) {
        fprintf(csv, "scene,variant,ms_per_iteration,ms_per_frame_outside_iterations,budget_ms,budget_iterations\n");
        for (int k = 0; k < S_COUNT; k++)
            for (int v = 0; v < V_COUNT; v++)
                fprintf(csv, "%s,%s,%.4f,%.4f,%.4f,%u\n", scene_keys[k], variant_keys[v],
                        sr[k].by_iterations[v].ms_iteration, sr[k].by_iterations[v].ms_fixed, sr[k].budget_ms,
                        sr[k].by_budget[v].iterations);
        ok = fclose(csv) == 0;
        snprintf(path, sizeof path, "%s/pd_chebyshev.csv", out);
        ok = ok && (csv = fopen(path, "w")) != NULL;
    }
    if (ok) {
        fprintf(csv, "scene,rho,geometric_mean_error_m2\n");
        for (int k = 0; k < S_COUNT; k++)
            for (size_t i = 0; i < RHO_COUNT; i++)
                fprintf(csv, "%s,%g,%.6g\n", scene_keys[k], rhos[i], sr[k].rho_score[i]);
        ok = fclose(csv) == 0;
        snprintf(path, sizeof path, "%s/README.md", out);
        ok = ok && (csv = fopen(path, "w")) != NULL;
    }
    if (ok) {
        time_t now = time(NULL);
        char date[64];
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
        fprintf(csv, "# Red-black projective dynamics: Pall et al. figures 3 and 4\n\n");
        fprintf(csv, "Device: **%s** (%s); CPU baseline: serial Gauss-Seidel, the double-precision reference "
                     "(tests/ref/pd_ref.c) on one thread of this host. %s. `sinew-bench --suite pd",
                di.name, di.driver, date);
        if (o->n != 100)
            fprintf(csv, " --pd-n %u", o->n);
        if (o->frames != 300)
            fprintf(csv, " --frames %u", o->frames);
        if (o->budget_ms > 0)
            fprintf(csv, " --budget-ms %g", o->budget_ms);
        if (o->stiffness != 1e4)
            fprintf(csv, " --pd-stiffness %g", o->stiffness);
        fprintf(csv, "`.\n\n%u x %u particles, %u springs of %g N/m, 1 m across, 0.2 kg in all, dt 1/60 s, "
                     "%u frames; Chebyshev with delay %u and the rho of the sweep below.\n",
                o->n, o->n, 2 * o->n * (o->n - 1), o->stiffness, o->frames, CHEBYSHEV_DELAY);
        const uint32_t marks[] = {1, 10, 30, 100, 300};
        for (int k = 0; k < S_COUNT; k++) {
            fprintf(csv, "\n## %s\n\n", scene_titles[k]);
            fprintf(csv, "Chebyshev rho %g. Time per iteration and error (m^2) after frames:\n\n", sr[k].rho);
            fprintf(csv, "| comparison | solver | iterations/frame | ms/iteration |");
            for (size_t m = 0; m < 5; m++)
                if (marks[m] <= o->frames)
                    fprintf(csv, " frame %u |", marks[m]);
            fprintf(csv, "\n|---|---|---|---|");
            for (size_t m = 0; m < 5; m++)
                if (marks[m] <= o->frames)
                    fprintf(csv, "---|");
            fprintf(csv, "\n");
            for (int mode = 0; mode < 2; mode++)
                for (int v = 0; v < V_COUNT; v++) {
                    const result *r = mode ? &sr[k].by_budget[v] : &sr[k].by_iterations[v];
                    if (mode)
                        fprintf(csv, "| %.3g ms budget | %s | %u | %.3f |", sr[k].budget_ms, variant_titles[v],
                                r->iterations, sr[k].by_iterations[v].ms_iteration);
                    else
                        fprintf(csv, "| %u iterations | %s | %u | %.3f |", o->iterations, variant_titles[v],
                                r->iterations, r->ms_iteration);
                    for (size_t m = 0; m < 5; m++)
                        if (marks[m] <= o->frames)
                            fprintf(csv, " %.4g |", r->error[marks[m] - 1]);
                    fprintf(csv, "\n");
                }
            if (o->plots)
                fprintf(csv, "\n![%s](pd_%s.png)\n", scene_titles[k], scene_keys[k]);
        }
        ok = fclose(csv) == 0;
    }
    if (ok)
        for (int k = 0; k < S_COUNT; k++)
            write_plot(out, k, &sr[k], o, di.name);
    for (int k = 0; k < S_COUNT; k++)
        for (int v = 0; v < V_COUNT; v++) {
            free(sr[k].by_iterations[v].error);
            free(sr[k].by_budget[v].error);
        }
    if (ok) {
        snprintf(path, sizeof path, "%s/README.md", out);
        FILE *f = fopen(path, "r");
        char buf[4096];
        size_t got;
        while (f && (got = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, got, stdout);
        if (f)
            fclose(f);
    }
    return ok;
}

static int run_pd(sinew_context *ctx, const void *o, const char *out) { return bench_pd(ctx, o, out); }

/* sinew-bench --suite pd: a dry run on a 12 x 12 network for 8 frames. */
int bench_pd_suite(const bench_args *a)
{
    bench_pd_options o = a->pd;
    if (a->dry_run) {
        o.n = o.n == 100 ? 12 : o.n;
        o.frames = o.frames == 300 ? 8 : o.frames;
    }
    o.plots = !a->no_plots;
    return bench_on_device(a, "pd", run_pd, &o);
}
