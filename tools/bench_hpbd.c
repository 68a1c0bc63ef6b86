/* sinew-bench's HPBD sheet (the hpbd and all suites): figure 7 of
 * Hierarchical Position Based Dynamics (Müller 2008, section 9), a
 * triangulated cloth of 77 x 77 particles (11 552 triangles) hanging from its
 * top row at 60 steps per second, the hierarchy with 2 iterations against
 * plain Gauss-Seidel at 2, 5, 10, 20 iterations and on up until it is as
 * stiff: stretch and time per step, and the plain iteration count and time
 * ratio at equal stretch beside the paper's. */
#define _POSIX_C_SOURCE 200809L
#include "bench_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prep/cloth.h"
#include "prep/hierarchy.h"

/* The cloth of figure 7 of Hierarchical PBD (Müller 2008, section 9: 11 500
 * triangles at 60 frames/s; the hierarchy with 2 iterations, the second in
 * reverse order, as stiff as plain PBD with about 20, which ran at about 12
 * frames/s, a fifth of the rate; an Intel Core2 CPU at 2.66 GHz). The paper
 * gives neither the cloth's size nor its material; here, the cloth of
 * `sinew-prep --grid 77x77 --triangulate --no-shear --plane xy --height 1.5
 * --pin-top 0.001` (with --hierarchy 5 for HPBD): 1 m square in the XY plane,
 * centred 1.5 m up, its quads split into triangles in a checkerboard, stretch
 * and bending constraints, no shear, the top row pinned; one substep of
 * 1/60 s, damping 1/s, no ground. */
#define SHEET_HEIGHT 1.5    /* m, the cloth's centre */
#define SHEET_WINDOW 60u    /* steps at the end whose stretch is averaged: the last second */
#define HPBD_LEVELS 5u      /* levels of the hierarchy, level 0 included */
#define HPBD_ITERATIONS 2u  /* level-0 iterations after the coarse levels, the paper's */
_Static_assert(HPBD_LEVELS <= SHEET_MAX_LEVELS, "room for the levels in a run");
#define PAPER_SHEET_TRIANGLES 11500u
#define PAPER_SHEET_ITERATIONS 20u /* "about 20" */
#define PAPER_SHEET_RATIO 5.0      /* 60 frames/s against "about 12" */
/* Plain Gauss-Seidel: the paper's counts, then on up until as stiff as the hierarchy. */
static const uint32_t sheet_iterations[] = {2, 5, 10, 20, 24, 28, 32, 40, 48, 64, 80, 96, 128};
#define SHEET_ITERATION_COUNT 13
#define SHEET_PAPER_COUNTS 4 /* the first four always run: the paper's figure */

/* The sheet of n x n particles; with a hierarchy of HPBD_LEVELS levels when
 * hierarchy is set (report filled), else none. */
static sinew_asset *make_sheet(uint32_t n, int hierarchy, sinew_hierarchy_report *report)
{
    sinew_mesh mesh;
    const double origin[3] = {0.0, SHEET_HEIGHT, 0.0};
    if (sinew_mesh_grid(n, n, 1.0, 1.0, SINEW_GRID_XY, origin, &mesh) != SINEW_RESULT_OK)
        return NULL;
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    sinew_asset *asset = NULL;
    if (sinew_mesh_triangulate_quads(&mesh) == SINEW_RESULT_OK) {
        sinew_cloth_options opt = sinew_cloth_options_default();
        opt.shear = 0;
        opt.pin_top = 0.001;
        opt.source_name = "hpbd sheet";
        sinew_cloth_build(&mesh, &opt, &quiet, &asset, NULL);
    }
    sinew_mesh_free(&mesh);
    if (asset && hierarchy) {
        sinew_hierarchy_options h = sinew_hierarchy_options_default();
        h.max_levels = HPBD_LEVELS;
        h.k = HPBD_K;
        h.rest = SINEW_HIERARCHY_REST_POSE;
        if (sinew_hierarchy_build(asset, &h, &quiet, report) != SINEW_RESULT_OK) {
            sinew_asset_destroy(asset);
            return NULL;
        }
    }
    return asset;
}

/* ------------------------------------------------------------------ runs */

/* Runs of the ladder of plain Gauss-Seidel iteration counts within the cap. */
static uint32_t sheet_ladder(const bench_sizes *su)
{
    uint32_t k = 0;
    while (k < SHEET_ITERATION_COUNT && sheet_iterations[k] <= su->sheet_iterations_max)
        k++;
    return k;
}

/* Figure 7 of Hierarchical PBD on the sheet of su->sheet particles a side:
 * the hierarchy with HPBD_ITERATIONS level-0 iterations, then plain
 * Gauss-Seidel at the paper's 2, 5, 10 and 20 iterations and on up the
 * ladder until its stretch is at or below the hierarchy's. Each run goes
 * su->sheet_steps steps from rest, the stretch averaged over the last
 * SHEET_WINDOW (a third of the run on shorter ones), the time over steps
 * 11 on. Then, as the cloth scenes' rounds do, every configuration is timed
 * again (20 steps after 3 warm-up) and the two folded together, so that the
 * noise a time states includes the drift of the machine over the runs. */
int bench_sheet(bench *b, const bench_sizes *su)
{
    const uint32_t n = su->sheet, ladder = sheet_ladder(su);
    const uint32_t tail = su->sheet_steps >= 3 * SHEET_WINDOW ? SHEET_WINDOW
                          : su->sheet_steps >= 3              ? su->sheet_steps / 3
                                                              : 1; /* the steps whose stretch is averaged */
    sinew_hierarchy_report h;
    memset(&h, 0, sizeof h);
    sinew_asset *assets[2] = {make_sheet(n, 0, NULL), make_sheet(n, 1, &h)}; /* plain, with the hierarchy */
    char what[96];
    snprintf(what, sizeof what, "sheet %u", n);
    if (!assets[0] || !assets[1]) {
        fprintf(stderr, "sinew-bench: cannot build the sheet %u x %u\n", n, n);
        sinew_asset_destroy(assets[0]);
        sinew_asset_destroy(assets[1]);
        return 0;
    }
    const size_t first = b->count;
    double target = -1.0; /* the hierarchy's stretch */
    uint32_t plain = 0;
    for (int k = -1; k < (int)ladder; k++) {
        const int hpbd = k < 0;
        if (k >= SHEET_PAPER_COUNTS) {
            const run *last = &b->runs[b->count - 1];
            if (!(target >= 0.0) || (!last->diverged_step && last->stretch <= target))
                break;
        }
        run *r = push_run(b);
        if (!r)
            goto fail;
        const sinew_solver solver = hpbd ? SINEW_SOLVER_HPBD : SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
        const uint32_t iterations = hpbd ? HPBD_ITERATIONS : sheet_iterations[k];
        describe(r, SCENE_SHEET, n, assets[hpbd], solver, "sinew", "stretch", 1, iterations, su->sheet_steps);
        r->window = tail;
        if (hpbd) {
            r->levels = h.level_count;
            for (uint32_t l = 0; l < h.level_count && l < SHEET_MAX_LEVELS; l++) {
                r->level_particles[l] = h.particles[l];
                r->level_constraints[l] = h.constraints[l];
            }
        }
        snprintf(what, sizeof what, "sheet %u %s %u iterations", n, sinew_solver_name(solver), iterations);
        if (!measure_gpu(b, assets[hpbd], r, 0))
            goto fail;
        if (hpbd && !r->diverged_step)
            target = r->stretch;
        plain += !hpbd;
        progress(b, what);
    }
    b->planned -= 2 * (size_t)(ladder - plain); /* the ladder stopped early */
    for (size_t i = first; i < b->count; i++) {
        run *r = &b->runs[i];
        snprintf(what, sizeof what, "sheet %u %s %u iterations again", n, sinew_solver_name(r->solver), r->iterations);
        if (r->diverged_step) { /* nothing to time */
            progress(b, what);
            continue;
        }
        run again;
        memset(&again, 0, sizeof again);
        const int hpbd = r->solver == SINEW_SOLVER_HPBD;
        describe(&again, SCENE_SHEET, n, assets[hpbd], r->solver, "sinew", "timing", 1, r->iterations, 20);
        if (!measure_gpu(b, assets[hpbd], &again, 3))
            goto fail;
        const uint32_t steps = r->steps; /* the run's length from rest, not the steps timed */
        merge_timing(r, &again);
        r->steps = steps;
        progress(b, what);
    }
    sinew_asset_destroy(assets[0]);
    sinew_asset_destroy(assets[1]);
    return 1;
fail:
    fprintf(stderr, "\nsinew-bench: %s failed\n", what);
    sinew_asset_destroy(assets[0]);
    sinew_asset_destroy(assets[1]);
    return 0;
}


/* Runs of the sheet: at most the hierarchy and the whole ladder, each timed
 * again; bench_sheet takes off what the ladder does not need. */
size_t sheet_planned(const bench_sizes *s) { return s->sheet ? 2 * (1 + (size_t)sheet_ladder(s)) : 0; }

/* ------------------------------------------------------------------ output */

/* The hierarchy's sheet run; NULL when there is none. */
static const run *sheet_hpbd(const bench *b)
{
    for (size_t i = 0; i < b->count; i++)
        if (b->runs[i].scene == SCENE_SHEET && b->runs[i].solver == SINEW_SOLVER_HPBD)
            return &b->runs[i];
    return NULL;
}

/* The plain sheet run of the fewest iterations with `iterations` at least
 * `from` whose stretch is at or below `target` (target < 0: any); NULL when
 * there is none. */
static const run *sheet_plain(const bench *b, uint32_t from, double target)
{
    const run *best = NULL;
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (r->scene != SCENE_SHEET || r->solver != SINEW_SOLVER_XPBD_GAUSS_SEIDEL || r->diverged_step ||
            r->iterations < from || (target >= 0.0 && !(r->stretch <= target)))
            continue;
        if (!best || r->iterations < best->iterations)
            best = r;
    }
    return best;
}

/* The plain run with the most iterations (the last of the ladder). */
static const run *sheet_plain_last(const bench *b)
{
    const run *last = NULL;
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (r->scene == SCENE_SHEET && r->solver == SINEW_SOLVER_XPBD_GAUSS_SEIDEL &&
            (!last || r->iterations > last->iterations))
            last = r;
    }
    return last;
}

/* The plain run of the largest count below `iterations`: the step before a match. */
static const run *sheet_plain_before(const bench *b, uint32_t iterations)
{
    const run *before = NULL;
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (r->scene == SCENE_SHEET && r->solver == SINEW_SOLVER_XPBD_GAUSS_SEIDEL && !r->diverged_step &&
            r->iterations < iterations && (!before || r->iterations > before->iterations))
            before = r;
    }
    return before;
}

/* Figure 7 of Hierarchical PBD: each run's stretch and time; the plain
 * iteration count that first matches the hierarchy's stretch and what it
 * costs, beside the paper's. */
void report_sheet(const bench *b, const sinew_device_info *di, bench_text *t)
{
    const run *h = sheet_hpbd(b);
    const run *any = h ? h : sheet_plain_last(b);
    if (!any)
        return;
    const uint32_t n = any->n, triangles = 2 * (n - 1) * (n - 1);
    add(t, "## HPBD: figure 7 of Hierarchical Position Based Dynamics\n\n"
           "A cloth of %u x %u particles, %u triangles (%u rows of quads, each split in two, the diagonals in a "
           "checkerboard), 1 m square in the XY plane, hangs from its top row under gravity: stretch (inextensible) "
           "and bending constraints, no shear, one substep of 1/60 s, damping 1/s, no ground, %u steps from rest "
           "(the cloth of `sinew-prep --grid %ux%u --triangulate --no-shear --plane xy --height %g --pin-top "
           "0.001`). ",
        n, n, triangles, n - 1, any->steps, n, n, SHEET_HEIGHT);
    if (h && h->levels) {
        add(t, "The hierarchy: %u levels (rest-pose coarse lengths, k = %u), particles ", h->levels, HPBD_K);
        for (uint32_t l = 0; l < h->levels && l < SHEET_MAX_LEVELS; l++)
            add(t, "%s%u", l ? ", " : "", h->level_particles[l]);
        add(t, ", distance constraints ");
        for (uint32_t l = 0; l < h->levels && l < SHEET_MAX_LEVELS; l++)
            add(t, "%s%u", l ? ", " : "", h->level_constraints[l]);
        add(t, "; each substep sweeps the coarse levels once, coarsest first, then %u level-0 iterations, the "
               "second in reverse colour order, as in the paper. ", HPBD_ITERATIONS);
    }
    add(t, "Plain XPBD Gauss-Seidel sweeps the colours as the hierarchy's level 0 does, every second iteration "
           "backwards (the paper switches the hierarchy off keeping the iterations): 2, 5, 10 and 20 iterations (the "
           "paper's figure) and on up (24, 28, 32, 40, 48, 64, 80, 96, 128) until its stretch is at or below the "
           "hierarchy's.\n\n"
           "Stretch: the elongation max(0, l / L - 1) of every distance constraint (L its rest-pose length; "
           "compression does not count), its mean over the constraints and its largest, each averaged over the last "
           "%u steps. GPU time from timestamps over steps 11-%u of the run, and again over 20 steps after 3 "
           "warm-up once every run was done: the mean of the two; the noise the standard deviation of a step time "
           "including the drift between the two. Health check and rollback copy on.\n\n",
        any->window, any->steps);
    add(t, "| solver | levels | iterations | stretch | largest elongation | GPU ms/step | noise | wall ms/step | "
           "dispatches | memory MiB |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (r->scene != SCENE_SHEET)
            continue;
        if (r->diverged_step) {
            add(t, "| %s | %u | %u | diverged at step %u | | | | | %u | %.2f |\n", sinew_solver_name(r->solver),
                r->levels ? r->levels : 1, r->iterations, r->diverged_step, r->dispatches,
                r->device_memory / 1048576.0);
            continue;
        }
        add(t, "| %s | %u | %u | %.3e | %.3e | %.3f | %.1f%% | %.3f | %u | %.2f |\n", sinew_solver_name(r->solver),
            r->levels ? r->levels : 1, r->iterations, r->stretch, r->largest, r->ms[5],
            r->ms[5] > 0 ? 100.0 * r->ms_std / r->ms[5] : 0.0, r->wall_ms, r->dispatches,
            r->device_memory / 1048576.0);
    }
    add(t, "\n![stretch against time](hpbd_stretch.png)\n\n");

    /* The match. */
    const run *m = h && !h->diverged_step ? sheet_plain(b, 0, h->stretch) : NULL;
    if (!h || h->diverged_step) {
        add(t, "Matching the hierarchy: nothing to match; %s.\n\n",
            h ? "the hierarchy's run diverged" : "the hierarchy did not run");
    } else if (m) {
        const run *before = sheet_plain_before(b, m->iterations);
        add(t, "Matching the hierarchy: plain XPBD Gauss-Seidel first reaches the hierarchy's stretch (%.3e with %u "
               "iterations) at %u iterations (%.3e", h->stretch, h->iterations, m->iterations, m->stretch);
        if (before)
            add(t, "; %.3e at %u", before->stretch, before->iterations);
        add(t, "), where a step takes %.3f ms of GPU time against the hierarchy's %.3f ms: %.2fx the time, on %s.\n\n",
            m->ms[5], h->ms[5], h->ms[5] > 0 ? m->ms[5] / h->ms[5] : 0.0, di->name);
    } else {
        const run *last = sheet_plain_last(b);
        add(t, "Matching the hierarchy: plain XPBD Gauss-Seidel does not reach the hierarchy's stretch (%.3e with %u "
               "iterations) within %u iterations",
            h->stretch, h->iterations, last ? last->iterations : 0);
        if (last && !last->diverged_step)
            add(t, " (%.3e there, %.3f ms of GPU time per step against the hierarchy's %.3f ms: %.2fx the time)",
                last->stretch, last->ms[5], h->ms[5], h->ms[5] > 0 ? last->ms[5] / h->ms[5] : 0.0);
        add(t, ", on %s.\n\n", di->name);
    }
    if (h && !h->diverged_step) {
        add(t, "| | cloth | plain iterations as stiff as the hierarchy | time, plain / hierarchy | device |\n"
               "|---|---|---|---|---|\n");
        if (m)
            add(t, "| sinew | %u triangles | %u | %.2fx (GPU time per step) | %s |\n", triangles, m->iterations,
                h->ms[5] > 0 ? m->ms[5] / h->ms[5] : 0.0, di->name);
        else
            add(t, "| sinew | %u triangles | more than %u | | %s |\n", triangles,
                sheet_plain_last(b) ? sheet_plain_last(b)->iterations : 0, di->name);
        const run *p20 = sheet_plain(b, PAPER_SHEET_ITERATIONS, -1.0);
        if (p20 && p20->iterations == PAPER_SHEET_ITERATIONS)
            add(t, "| sinew, plain at the paper's %u | %u triangles | %u: stretch %.2fx the hierarchy's | %.2fx | %s |\n",
                PAPER_SHEET_ITERATIONS, triangles, p20->iterations, h->stretch > 0 ? p20->stretch / h->stretch : 0.0,
                h->ms[5] > 0 ? p20->ms[5] / h->ms[5] : 0.0, di->name);
        add(t, "| paper (figure 7) | %u triangles | about %u | about %.0fx (60 frames/s against about 12) | Intel Core2 "
               "2.66 GHz with a GeForce 8800 GTX (the paper's machine) |\n\n",
            PAPER_SHEET_TRIANGLES, PAPER_SHEET_ITERATIONS, PAPER_SHEET_RATIO);
        add(t, "The paper's ratio is of frame rates, its cloth's size, material and measure of stiffness not given; "
               "sinew's is of GPU time per step, in which every colour of every level is a dispatch and a barrier "
               "(the dispatches column): on a cloth this small the time may follow the dispatches more than the "
               "constraints.\n\n");
    }
}

/* gnuplot: stretch against GPU ms per step on the HPBD sheet, plain
 * Gauss-Seidel as a line through its iteration counts (labelled), and the
 * hierarchy's point. */
void plot_sheet(const bench *b, const char *out)
{
    const run *h = sheet_hpbd(b), *any = h ? h : sheet_plain_last(b);
    if (!any)
        return;
    char path[4096], dat[4096];
    snprintf(dat, sizeof dat, "%s/hpbd_stretch.dat", out);
    FILE *f = fopen(dat, "w");
    if (!f)
        return;
    int plain = 0;
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (r->scene != SCENE_SHEET || r->solver != SINEW_SOLVER_XPBD_GAUSS_SEIDEL || r->diverged_step ||
            !(r->ms[5] > 0) || !(r->stretch > 0))
            continue;
        fprintf(f, "%g %g %u\n", r->ms[5], r->stretch, r->iterations);
        plain = 1;
    }
    const int hierarchy = h && !h->diverged_step && h->ms[5] > 0 && h->stretch > 0;
    if (hierarchy)
        fprintf(f, "%s%g %g %u\n", plain ? "\n\n" : "", h->ms[5], h->stretch, h->iterations);
    fclose(f);
    if (!plain && !hierarchy)
        return;
    char script[4096];
    int len = snprintf(script, sizeof script,
                       "set terminal pngcairo size 800,560\nset output '%s/hpbd_stretch.png'\nset logscale xy\n"
                       "set xlabel 'GPU ms per step'\nset ylabel 'stretch: mean elongation over the last %u steps'\n"
                       "set grid\nset key right top\nset offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n"
                       "set title 'HPBD figure 7: %u x %u cloth, stretch against cost'\nplot ",
                       out, any->window, any->n, any->n);
    if (plain)
        len += snprintf(script + len, sizeof script - (size_t)len,
                        "'%s' index 0 using 1:2 with linespoints title '%s (iterations labelled)', "
                        "'' index 0 using 1:2:(sprintf('%%d', $3)) with labels offset 1.2,0.8 notitle%s",
                        dat, sinew_solver_label(SINEW_SOLVER_XPBD_GAUSS_SEIDEL), hierarchy ? ", " : "");
    if (hierarchy)
        snprintf(script + len, sizeof script - (size_t)len,
                 "'%s' index %d using 1:2 with points pt 7 ps 1.5 title 'HPBD, %u levels, %u iterations'\n", dat,
                 plain, h->levels, h->iterations);
    else
        snprintf(script + len, sizeof script - (size_t)len, "\n");
    snprintf(path, sizeof path, "%s/hpbd_stretch.gp", out);
    if (bench_write_text(path, script))
        bench_gnuplot(path);
}


/* bench.json: the plain count that first matches the hierarchy's stretch
 * (figure 7), beside the paper's. */
void sheet_json(const bench *b, cJSON *root)
{
    const run *sheet = sheet_hpbd(b);
    if (!sheet)
        return;
    cJSON *hm = cJSON_AddObjectToObject(root, "hpbd_match");
    const run *m = sheet->diverged_step ? NULL : sheet_plain(b, 0, sheet->stretch);
    cJSON_AddNumberToObject(hm, "n", sheet->n);
    cJSON_AddNumberToObject(hm, "triangles", 2.0 * (sheet->n - 1) * (sheet->n - 1));
    cJSON_AddNumberToObject(hm, "hierarchy_iterations", sheet->iterations);
    cJSON_AddNumberToObject(hm, "hierarchy_stretch", sheet->stretch);
    cJSON_AddNumberToObject(hm, "hierarchy_gpu_ms_per_step", sheet->ms[5]);
    if (m) {
        cJSON_AddNumberToObject(hm, "plain_iterations", m->iterations);
        cJSON_AddNumberToObject(hm, "plain_stretch", m->stretch);
        cJSON_AddNumberToObject(hm, "plain_gpu_ms_per_step", m->ms[5]);
        cJSON_AddNumberToObject(hm, "time_ratio", sheet->ms[5] > 0 ? m->ms[5] / sheet->ms[5] : -1.0);
    } else {
        cJSON_AddNullToObject(hm, "plain_iterations"); /* not matched within the ladder */
    }
    cJSON_AddStringToObject(hm, "device", b->di.name);
    cJSON *paper = cJSON_AddObjectToObject(hm, "paper");
    cJSON_AddStringToObject(paper, "source", "Hierarchical Position Based Dynamics (Mueller 2008), figure 7");
    cJSON_AddStringToObject(paper, "device", "Intel Core2 2.66 GHz, NVIDIA GeForce 8800 GTX");
    cJSON_AddNumberToObject(paper, "triangles", PAPER_SHEET_TRIANGLES);
    cJSON_AddNumberToObject(paper, "plain_iterations", PAPER_SHEET_ITERATIONS);
    cJSON_AddNumberToObject(paper, "time_ratio", PAPER_SHEET_RATIO);
}
