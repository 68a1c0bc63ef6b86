/* sinew-bench's cloth scenes (the quick, gpu and all suites): a cloth hanging
 * from two corners, one dropped on a sphere and a quad mass-spring network,
 * each with XPBD Gauss-Seidel and Jacobi; time per step and per phase, the
 * health check's cost, scaling with particle count, and on the hanging cloth
 * strain against cost over swept substeps and iterations, with the CPU
 * reference and the peers beside it. */
#define _POSIX_C_SOURCE 200809L
#include "bench_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prep/cloth.h"

static const sinew_solver cloth_solvers[2] = {SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SOLVER_XPBD_JACOBI};

static sinew_asset *make_scene(scene_kind kind, uint32_t n)
{
    sinew_mesh mesh;
    double origin[3] = {0.0, 1.0, 0.0};
    if (sinew_mesh_grid(n, n, 1.0, 1.0, SINEW_GRID_XZ, origin, &mesh) != SINEW_RESULT_OK)
        return NULL;
    sinew_cloth_options opt = sinew_cloth_options_default();
    uint32_t pins[2] = {0, n - 1};
    if (kind != SCENE_SPHERE) {
        opt.pin_indices = pins;
        opt.pin_count = 2;
    }
    if (kind == SCENE_QUADNET) {
        opt.shear = 0;
        opt.bending = 0;
    }
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    sinew_asset *asset = NULL;
    sinew_cloth_build(&mesh, &opt, &quiet, &asset, NULL);
    sinew_mesh_free(&mesh);
    return asset;
}

static const uint32_t sweep_values[] = {1, 2, 4, 8, 16, 32};
#define SWEEP_COUNT 6

static run *find_timing(bench *b, scene_kind scene, uint32_t n, sinew_solver solver)
{
    for (size_t i = 0; i < b->count; i++) {
        run *r = &b->runs[i];
        if (!strcmp(r->kind, "timing") && r->scene == scene && r->n == n && r->solver == solver)
            return r;
    }
    return NULL;
}

static int contains(const uint32_t *list, size_t len, uint32_t v)
{
    for (size_t i = 0; i < len && list[i]; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

/* Least-squares slope of log(ms) against log(particles), timing runs of one
 * solver on the hanging scene. */
double scaling_slope(const bench *b, sinew_solver solver, int *points)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (strcmp(r->impl, "sinew") || strcmp(r->kind, "timing") || r->scene != SCENE_HANGING || r->solver != solver)
            continue;
        double x = log((double)r->particles), y = log(r->ms[5]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        k++;
    }
    *points = k;
    return k >= 2 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : NAN;
}

/* Everything measured on one scene and size in one round. */
static int bench_scene(bench *b, const bench_sizes *su, round_kind round, scene_kind scene, uint32_t n, int sweep,
                       int reference)
{
    if (round == ROUND_SWEEPS && !sweep)
        return 1;
    sinew_asset *asset = make_scene(scene, n);
    if (!asset) {
        fprintf(stderr, "sinew-bench: cannot build scene %s %u\n", scene_names[scene], n);
        return 0;
    }
    char what[96];
    for (int s = 0; s < 2; s++) {
        const sinew_solver solver = cloth_solvers[s];
        run *r;
        if (round != ROUND_SWEEPS) {
            run again;
            memset(&again, 0, sizeof again);
            r = round == ROUND_TIMING ? push_run(b) : &again;
            if (!r)
                goto fail;
            /* Fewer measured steps on big scenes: their per-step noise is smaller. */
            uint32_t steps = n >= 256 ? 8 : 20;
            describe(r, scene, n, asset, solver, "sinew", "timing", 8, 1, steps);
            snprintf(what, sizeof what, "%s %u %s timing", scene_names[scene], n, sinew_solver_name(solver));
            if (!measure_gpu(b, asset, r, 3))
                goto fail;
            run *first = round == ROUND_TIMING_AGAIN ? find_timing(b, scene, n, solver) : NULL;
            if (first)
                merge_timing(first, &again);
            progress(b, what);
            if (round == ROUND_TIMING && scene == SCENE_HANGING && solver == SINEW_SOLVER_XPBD_GAUSS_SEIDEL) {
                r = push_run(b); /* the same without the health check and rollback copy */
                if (!r)
                    goto fail;
                describe(r, scene, n, asset, solver, "sinew", "unguarded", 8, 1, steps);
                snprintf(what, sizeof what, "%s %u %s unguarded", scene_names[scene], n, sinew_solver_name(solver));
                if (!measure_gpu(b, asset, r, 3))
                    goto fail;
                progress(b, what);
            }
            continue;
        }
        for (int axis = 0; axis < 2; axis++) {
            for (int v = 0; v < SWEEP_COUNT && sweep_values[v] <= su->sweep_max; v++) {
                r = push_run(b);
                if (!r)
                    goto fail;
                uint32_t sub = axis ? 1 : sweep_values[v], it = axis ? sweep_values[v] : 1;
                describe(r, scene, n, asset, solver, "sinew", axis ? "iterations" : "substeps", sub, it,
                         ACCURACY_STEPS);
                snprintf(what, sizeof what, "%s %u %s %ux%u", scene_names[scene], n, sinew_solver_name(solver), sub, it);
                if (!measure_gpu(b, asset, r, 0))
                    goto fail;
                progress(b, what);
                if (!reference)
                    continue;
                const char *kind = r->kind; /* r moves when push_run grows the array */
                run *cpu = push_run(b);
                if (!cpu)
                    goto fail;
                describe(cpu, scene, n, asset, solver, "reference", kind, sub, it, ACCURACY_STEPS);
                measure_reference(asset, cpu);
                progress(b, what);
            }
        }
    }
    sinew_asset_destroy(asset);
    return 1;
fail:
    fprintf(stderr, "\nsinew-bench: %s failed\n", what);
    sinew_asset_destroy(asset);
    return 0;
}

/* Runs of the cloth scenes: per solver, two timing rounds (and an unguarded
 * run on the hanging cloth) and the sweeps, with the reference beside each. */
size_t cloth_planned(const bench_sizes *s)
{
    size_t planned = 0;
    for (int k = 0; k < 8 && s->hanging[k]; k++) {
        int sweep = contains(s->sweep, 4, s->hanging[k]), ref = contains(s->reference, 4, s->hanging[k]);
        int swept = 0;
        for (int v = 0; v < SWEEP_COUNT; v++)
            swept += sweep_values[v] <= s->sweep_max;
        planned += 2 * (2 + (sweep ? 2 * swept * (ref ? 2 : 1) : 0)) + 1;
    }
    for (int k = 0; k < 4 && s->sphere[k]; k++)
        planned += 4;
    for (int k = 0; k < 2 && s->quadnet[k]; k++)
        planned += 4;
    return planned;
}

/* One round over every cloth scene and size. The rounds of a suite: the
 * timing runs twice, before and after the accuracy sweeps, so that the noise
 * a timing states includes the drift of the machine over the minutes a suite
 * takes, not only the scatter of steps. */
int bench_cloth_round(bench *b, const bench_sizes *s, round_kind round)
{
    int ok = 1;
    for (int k = 0; ok && k < 8 && s->hanging[k]; k++)
        ok = bench_scene(b, s, round, SCENE_HANGING, s->hanging[k], contains(s->sweep, 4, s->hanging[k]),
                         contains(s->reference, 4, s->hanging[k]));
    for (int k = 0; ok && k < 4 && s->sphere[k]; k++)
        ok = bench_scene(b, s, round, SCENE_SPHERE, s->sphere[k], 0, 0);
    for (int k = 0; ok && k < 2 && s->quadnet[k]; k++)
        ok = bench_scene(b, s, round, SCENE_QUADNET, s->quadnet[k], 0, 0);
    return ok;
}

/* bench.json: the scaling slope of each solver, keyed by its name. */
void cloth_json(const bench *b, cJSON *root)
{
    int points;
    cJSON *scaling = cJSON_AddObjectToObject(root, "scaling_slope");
    for (int sv = 0; sv < 2; sv++)
        cJSON_AddNumberToObject(scaling, sinew_solver_name(cloth_solvers[sv]), scaling_slope(b, cloth_solvers[sv], &points));
}

/* ------------------------------------------------------------------ output */

/* The cloth scenes: time per step, health check cost, scaling, accuracy. */
void report_cloth(const bench *b, const cJSON *peers, const bench_sizes *s, bench_text *t)
{
    add(t, "- time step 1/60 s; timing runs: 8 substeps x 1 iteration, 20 steps after 3 warm-up steps (8 from "
           "256 x 256), measured twice, before and after the accuracy sweeps; the time is the mean of the two, the "
           "noise the standard deviation of a step time including the drift between the two\n\n");

    add(t, "## Time per step\n\n");
    add(t, "| scene | N x N | solver | colours | GPU ms/step | noise | predict | solve | contacts | velocity | "
           "dispatches | barriers | submits | host waits | bytes read back | allocations | MB/step | GB/s | of probe | "
           "memory MiB | max strain | RMS strain |\n");
    add(t, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (strcmp(r->impl, "sinew") || strcmp(r->kind, "timing"))
            continue;
        double bps = r->ms[5] > 0 ? r->bytes / (r->ms[5] * 1e-3) : 0.0;
        add(t,
            "| %s | %u | %s | %u | %.3f | %.1f%% | %.3f | %.3f | %.3f | %.3f | %u | %u | %u | %u | %llu | %u | %.2f | "
            "%.2f | %.0f%% | %.2f | %.2e | %.2e |\n",
            scene_names[r->scene], r->n, sinew_solver_name(r->solver), r->colours, r->ms[5],
            r->ms[5] > 0 ? 100.0 * r->ms_std / r->ms[5] : 0.0, r->ms[0], r->ms[1], r->ms[2], r->ms[3], r->dispatches,
            r->barriers, r->submits, r->host_waits, (unsigned long long)r->readback_bytes, r->allocations,
            r->bytes * 1e-6, bps * 1e-9,
            b->probe.copy_bytes_per_s > 0 ? 100.0 * bps / b->probe.copy_bytes_per_s : 0.0,
            r->device_memory / 1048576.0, r->max_strain, r->rms_strain);
    }
    add(t, "\nMB/step is the traffic the kernels are designed to move (reads + writes); GB/s is that over the GPU "
           "time, and \"of probe\" that against the probe's copy of 64 MiB, which is past every cache: above 100%% "
           "the working set is served from caches.\n\nScenes: ");
    for (int k = 0; k < 3; k++)
        add(t, "%s%s = %s", k ? "; " : "", scene_names[k], scene_titles[k]);
    add(t, ". Strain is |len - L| / L over the stretch (grid) edges after the measured steps.\n\n");

    add(t, "## Health check and rollback copy\n\nThe hanging cloth, Gauss-Seidel, 8 substeps x 1 iteration, with "
           "and without the health check (one dispatch per step) and the rollback copy (positions, velocities "
           "and hinge angles copied at the start of each step):\n\n");
    add(t, "| N x N | GPU ms/step guarded | unguarded | cost | memory MiB guarded | unguarded |\n"
           "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < b->count; i++) {
        const run *u = &b->runs[i];
        if (strcmp(u->kind, "unguarded"))
            continue;
        const run *g = NULL;
        for (size_t j = 0; j < b->count && !g; j++)
            if (!strcmp(b->runs[j].kind, "timing") && !strcmp(b->runs[j].impl, "sinew") &&
                b->runs[j].scene == u->scene && b->runs[j].n == u->n && b->runs[j].solver == u->solver)
                g = &b->runs[j];
        if (g)
            add(t, "| %u | %.3f | %.3f | %+.1f%% | %.2f | %.2f |\n", u->n, g->ms[5], u->ms[5],
                u->ms[5] > 0 ? 100.0 * (g->ms[5] - u->ms[5]) / u->ms[5] : 0.0, g->device_memory / 1048576.0,
                u->device_memory / 1048576.0);
    }
    add(t, "\n");

    int points;
    double gs = scaling_slope(b, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, &points);
    double jac = scaling_slope(b, SINEW_SOLVER_XPBD_JACOBI, &points);
    add(t, "## Scaling\n\nGPU time per step against particle count on the hanging cloth, least-squares slope of "
           "log(ms) on log(particles) over %d sizes: Gauss-Seidel %.2f, Jacobi %.2f (1 = linear; below 1 while "
           "fixed per-dispatch costs dominate).\n\n![scaling](scaling.png)\n\n",
        points, gs, jac);

    add(t, "## Accuracy against cost\n\nHanging cloth, 120 steps (2 s) from rest; time per step averaged over steps "
           "11-120; strain over the stretch edges in the second second (steps 61-120): RMS averaged over the "
           "steps, max the largest seen. Substeps sweep: 1 iteration, 1-%u substeps; iterations sweep: 1 substep, 1-%u iterations. "
           "sinew times are GPU time; the CPU reference (double precision, one thread) is wall time.\n\n",
        s->sweep_max, s->sweep_max);
    for (int si = 0; si < 4 && s->sweep[si]; si++) {
        uint32_t n = s->sweep[si];
        add(t, "### %u x %u\n\n![accuracy](accuracy_%u.png)\n\n", n, n, n);
        add(t, "| implementation | solver | substeps | iterations | ms/step | max strain | RMS strain |\n");
        add(t, "|---|---|---|---|---|---|---|\n");
        for (size_t i = 0; i < b->count; i++) {
            const run *r = &b->runs[i];
            if (r->n != n || r->scene != SCENE_HANGING || !is_sweep(r))
                continue;
            if (r->diverged_step)
                add(t, "| %s | %s | %u | %u | | diverged at step %u | |\n",
                    strcmp(r->impl, "sinew") ? "CPU reference" : "sinew GPU", sinew_solver_name(r->solver), r->substeps,
                    r->iterations, r->diverged_step);
            else
                add(t, "| %s | %s | %u | %u | %.3f | %.2e | %.2e |\n",
                    strcmp(r->impl, "sinew") ? "CPU reference" : "sinew GPU", sinew_solver_name(r->solver), r->substeps,
                    r->iterations, strcmp(r->impl, "sinew") ? r->wall_ms : r->ms[5], r->max_strain, r->rms_strain);
        }
        /* Time to accuracy: the cheapest configuration of each implementation
         * and solver that reaches each target. */
        const double targets[] = {1e-1, 3e-2, 1e-2, 3e-3};
        add(t, "\nTime to reach an RMS strain (cheapest measured configuration):\n\n");
        add(t, "| implementation | solver | <= 1e-1 | <= 3e-2 | <= 1e-2 | <= 3e-3 |\n|---|---|---|---|---|---|\n");
        const char *impls[] = {"sinew", "reference"};
        for (int ii = 0; ii < 2; ii++)
            for (int sv = 0; sv < 2; sv++) {
                int any = 0;
                char cells[4][64];
                for (int k = 0; k < 4; k++) {
                    double best = INFINITY;
                    const run *br = NULL;
                    for (size_t i = 0; i < b->count; i++) {
                        const run *r = &b->runs[i];
                        if (r->n != n || r->scene != SCENE_HANGING || !is_sweep(r) ||
                            strcmp(r->impl, impls[ii]) || r->solver != cloth_solvers[sv])
                            continue;
                        any = 1;
                        double ms = ii ? r->wall_ms : r->ms[5];
                        if (!r->diverged_step && r->rms_strain <= targets[k] && ms < best) {
                            best = ms;
                            br = r;
                        }
                    }
                    if (br)
                        snprintf(cells[k], sizeof cells[k], "%.3f ms (%ux%u)", best, br->substeps, br->iterations);
                    else
                        snprintf(cells[k], sizeof cells[k], "not reached");
                }
                if (any)
                    add(t, "| %s | %s | %s | %s | %s | %s |\n", ii ? "CPU reference" : "sinew GPU",
                        sinew_solver_name(cloth_solvers[sv]), cells[0], cells[1], cells[2], cells[3]);
            }
        /* The peers at equal error: their cheapest run reaching each target. */
        int pc = cJSON_GetArraySize(peers);
        for (int p = 0; p < pc; p++) {
            const cJSON *first = cJSON_GetArrayItem(peers, p);
            int seen = 0, any = 0;
            for (int q = 0; q < p && !seen; q++) {
                const cJSON *o = cJSON_GetArrayItem(peers, q);
                seen = !strcmp(jstr(o, "peer"), jstr(first, "peer")) && !strcmp(jstr(o, "method"), jstr(first, "method"));
            }
            if (seen)
                continue;
            char cells[4][64];
            for (int k = 0; k < 4; k++) {
                double best = INFINITY;
                const cJSON *bo = NULL;
                for (int q = p; q < pc; q++) {
                    const cJSON *o = cJSON_GetArrayItem(peers, q);
                    if ((uint32_t)jnum(o, "n") != n || strcmp(jstr(o, "peer"), jstr(first, "peer")) ||
                        strcmp(jstr(o, "method"), jstr(first, "method")))
                        continue;
                    any = 1;
                    if (!cJSON_IsTrue(cJSON_GetObjectItem(o, "diverged")) && jnum(o, "rms_strain") <= targets[k] &&
                        jnum(o, "ms_per_step") < best) {
                        best = jnum(o, "ms_per_step");
                        bo = o;
                    }
                }
                if (bo)
                    snprintf(cells[k], sizeof cells[k], "%.3f ms (%dx%d)", best, (int)jnum(bo, "substeps"),
                             (int)jnum(bo, "iterations"));
                else
                    snprintf(cells[k], sizeof cells[k], "not reached");
            }
            const char *peer = jstr(first, "peer"), *version = jstr(first, "version");
            int named = !strncmp(version, peer, strlen(peer)); /* "newton 1.8.0, warp-lang ..." */
            if (any)
                add(t, "| %s%s%s (CPU) | %s | %s | %s | %s | %s |\n", named ? "" : peer, named ? "" : " ", version,
                    jstr(first, "method"), cells[0], cells[1], cells[2], cells[3]);
        }
        add(t, "\n");
    }
}

/* gnuplot: strain against time per step on the hanging scene, one curve per
 * implementation, solver and sweep; and the scaling plot. */
void plot_cloth(const bench *b, const cJSON *peers, const char *out, const bench_sizes *s)
{
    char path[4096];
    for (int si = 0; si < 4 && s->sweep[si]; si++) {
        uint32_t n = s->sweep[si];
        snprintf(path, sizeof path, "%s/accuracy_%u.dat", out, n);
        FILE *f = fopen(path, "w");
        if (!f)
            return;
        char script[16384];
        size_t len = (size_t)snprintf(script, sizeof script,
                                      "set terminal pngcairo size 1000,900\nset output '%s/accuracy_%u.png'\n"
                                      "set logscale xy\nset xlabel 'time per step (ms): GPU for sinew, CPU wall for others'\n"
                                      "set ylabel 'RMS stretch strain, mean over the 2nd second'\nset key below maxcols 2\nset grid\n"
                                      "set title 'hanging cloth %ux%u: error against cost'\nplot ",
                                      out, n, n, n);
        int block = 0;
        const char *impls[] = {"sinew", "reference"};
        const char *kinds[] = {"substeps", "iterations"};
        for (int ii = 0; ii < 2; ii++)
            for (int sv = 0; sv < 2; sv++)
                for (int ki = 0; ki < 2; ki++) {
                    int any = 0;
                    for (size_t i = 0; i < b->count; i++) {
                        const run *r = &b->runs[i];
                        if (r->n != n || r->scene != SCENE_HANGING || strcmp(r->impl, impls[ii]) ||
                            strcmp(r->kind, kinds[ki]) || r->solver != cloth_solvers[sv])
                            continue;
                        if (r->diverged_step)
                            continue;
                        double t = ii == 0 ? r->ms[5] : r->wall_ms;
                        fprintf(f, "%g %g\n", t, r->rms_strain);
                        any = 1;
                    }
                    if (!any)
                        continue;
                    fprintf(f, "\n\n");
                    len += (size_t)snprintf(script + len, sizeof script - len,
                                            "%s'%s' index %d with linespoints title '%s %s, %s sweep'", block ? ", " : "",
                                            path, block, ii ? "CPU reference" : "sinew GPU",
                                            sinew_solver_name(cloth_solvers[sv]), kinds[ki]);
                    block++;
                }
        /* Peers: one curve per peer, method and sweep, like sinew's. */
        int peer_count = cJSON_GetArraySize(peers);
        for (int p = 0; p < peer_count; p++) {
            const cJSON *first = cJSON_GetArrayItem(peers, p);
            int seen = 0; /* this peer and method were plotted already */
            for (int q = 0; q < p && !seen; q++) {
                const cJSON *o = cJSON_GetArrayItem(peers, q);
                seen = !strcmp(jstr(o, "peer"), jstr(first, "peer")) && !strcmp(jstr(o, "method"), jstr(first, "method"));
            }
            if (seen)
                continue;
            for (int ki = 0; ki < 2; ki++) {
                int any = 0;
                for (uint32_t v = 1; v <= 64; v *= 2) {
                    for (int q = p; q < peer_count; q++) {
                        const cJSON *o = cJSON_GetArrayItem(peers, q);
                        int sub = (int)jnum(o, "substeps"), it = (int)jnum(o, "iterations");
                        if ((uint32_t)jnum(o, "n") != n || strcmp(jstr(o, "peer"), jstr(first, "peer")) ||
                            strcmp(jstr(o, "method"), jstr(first, "method")) ||
                            cJSON_IsTrue(cJSON_GetObjectItem(o, "diverged")) || /* no error to plot */
                            (ki ? (sub != 1 || it != (int)v) : (it != 1 || sub != (int)v)))
                            continue;
                        fprintf(f, "%g %g\n", jnum(o, "ms_per_step"), jnum(o, "rms_strain"));
                        any = 1;
                        break;
                    }
                }
                if (!any)
                    continue;
                fprintf(f, "\n\n");
                len += (size_t)snprintf(script + len, sizeof script - len,
                                        "%s'%s' index %d with linespoints dt 2 title '%s %s, %s sweep'", block ? ", " : "",
                                        path, block, jstr(first, "peer"), jstr(first, "method"), kinds[ki]);
                block++;
            }
        }
        fclose(f);
        snprintf(script + len, sizeof script - len, "\n");
        snprintf(path, sizeof path, "%s/accuracy_%u.gp", out, n);
        if (block && bench_write_text(path, script))
            bench_gnuplot(path);
    }
    int hanging = 0;
    for (size_t i = 0; i < b->count; i++)
        hanging |= b->runs[i].scene == SCENE_HANGING && !strcmp(b->runs[i].kind, "timing");
    if (!hanging)
        return;
    snprintf(path, sizeof path, "%s/scaling.dat", out);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    for (int sv = 0; sv < 2; sv++) {
        for (size_t i = 0; i < b->count; i++) {
            const run *r = &b->runs[i];
            if (!strcmp(r->impl, "sinew") && !strcmp(r->kind, "timing") && r->scene == SCENE_HANGING &&
                r->solver == cloth_solvers[sv])
                fprintf(f, "%u %g\n", r->particles, r->ms[5]);
        }
        fprintf(f, "\n\n");
    }
    fclose(f);
    int k;
    char script[12288];
    snprintf(script, sizeof script,
             "set terminal pngcairo size 800,560\nset output '%s/scaling.png'\nset logscale xy\n"
             "set xlabel 'particles'\nset ylabel 'GPU ms per step (8 substeps x 1 iteration)'\nset grid\n"
             "set key left top\nset title 'hanging cloth: cost against size'\n"
             "plot '%s' index 0 with linespoints title '%s (slope %.2f)', "
             "'%s' index 1 with linespoints title '%s (slope %.2f)'\n",
             out, path, sinew_solver_label(cloth_solvers[0]), scaling_slope(b, cloth_solvers[0], &k), path,
             sinew_solver_label(cloth_solvers[1]), scaling_slope(b, cloth_solvers[1], &k));
    snprintf(path, sizeof path, "%s/scaling.gp", out);
    if (bench_write_text(path, script))
        bench_gnuplot(path);
}
