/* sinew-bench --suite world: what stepping many bodies as one world buys
 * (sinew/world.h). N bodies of one kind, N = 1, 4, 16 and 64, stepped as N
 * bodies of their own (sinew_body_step on each: N submits, N host waits) and
 * as one world (sinew_world_step: one submit, one wait, the bodies packed into
 * one batch), side by side in one run: dispatches, barriers, submits and host
 * waits a step, wall time a step (host clock around the step calls) and GPU
 * time a step (timestamps), the medians of the measured steps after warm-up
 * steps, and whether the two end in the same state. The kinds: 32 x 32 cloths
 * (XPBD Gauss-Seidel) swept colour by colour and in clustered passes, and
 * soft blocks of 5^3 vertices (GPBD Gauss-Seidel), every body its own asset,
 * placed apart so that none touches another. Writes world.csv and README.md,
 * and prints the table. */
#include <sinew/sinew.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "prep/cloth.h"
#include "prep/mesh.h"
#include "prep/soft.h"

#define MAX_BODIES 64u
#define WARMUP 2u  /* the world's first step builds its batch */
#define STEPS 3u   /* measured steps (--steps): on lavapipe N = 64 takes most of the run */
#define CPU_DEVICE 4 /* VK_PHYSICAL_DEVICE_TYPE_CPU */

static const uint32_t counts[] = {1, 4, 16, 64};

typedef struct kind {
    const char *name;
    sinew_solver solver;
    sinew_sweep_layout layout;
    int block; /* a soft block, else a cloth */
} kind;

static const kind kinds[] = {
    {"cloth, colours", SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SWEEP_LAYOUT_COLOURS, 0},
    {"cloth, clusters", SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SWEEP_LAYOUT_CLUSTERS, 0},
    {"block", SINEW_SOLVER_GPBD_GAUSS_SEIDEL, SINEW_SWEEP_LAYOUT_DEFAULT, 1},
};
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])

static const char *layout_name(const kind *kd)
{
    return kd->block ? "default" : kd->layout == SINEW_SWEEP_LAYOUT_COLOURS ? "colours" : "clusters";
}

typedef struct sizes {
    uint32_t cloth_side, block_side, steps, count_n;
} sizes;

/* Body k's place: an 8 x 8 grid in x and z, far enough apart that no two
 * touch (a cloth is 1 m square, hangs from two corners and swings). */
static void place(uint32_t k, double spacing, double y, double origin[3])
{
    origin[0] = spacing * (k % 8);
    origin[1] = y;
    origin[2] = spacing * (k / 8);
}

static sinew_asset *cloth(uint32_t side, uint32_t k)
{
    sinew_mesh m;
    double origin[3];
    place(k, 2.5, 1.0, origin);
    sinew_asset *a = NULL;
    if (sinew_mesh_grid(side, side, 1.0, 1.0, SINEW_GRID_XZ, origin, &m) != SINEW_RESULT_OK)
        return NULL;
    sinew_cloth_options opt = sinew_cloth_options_default(); /* with clusters: both layouts from one asset */
    uint32_t pins[2] = {0, side - 1};
    opt.pin_indices = pins;
    opt.pin_count = 2;
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    sinew_cloth_build(&m, &opt, &quiet, &a, NULL);
    sinew_mesh_free(&m);
    return a;
}

static sinew_asset *block(uint32_t side, uint32_t k)
{
    sinew_volume v;
    const double size[3] = {0.2, 0.2, 0.2};
    double origin[3];
    place(k, 0.5, 0.3, origin);
    if (sinew_volume_box(side, side, side, size, origin, &v) != SINEW_RESULT_OK)
        return NULL;
    sinew_soft_options opt = sinew_soft_options_default();
    opt.source_name = "world block";
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    sinew_asset *a = NULL;
    sinew_soft_build(&v, &opt, &quiet, &a, NULL);
    sinew_volume_free(&v);
    return a;
}

/* One way of stepping N bodies: per step as recorded and as submitted, and
 * the medians of the measured steps. */
typedef struct way {
    uint32_t dispatches, barriers, submits, host_waits, chains;
    double wall_ms, gpu_ms; /* medians per step; gpu_ms < 0: not timed */
    uint64_t hash;          /* the bodies' states at the end, as sinew_world_state_hash combines them */
} way;

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* FNV-1a over each body's state hash, as sinew_world_state_hash. */
static uint64_t combine(uint64_t h, uint64_t one)
{
    for (int k = 0; k < 8; k++) {
        h ^= (one >> 8 * k) & 0xffu;
        h *= 0x100000001b3ull;
    }
    return h;
}

static sinew_step_params params(void)
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = 1; /* the blocks land on it; the cloths hang above it */
    p.ground_height = 0.0f;
    return p;
}

/* One step of the N bodies of their own, each by sinew_body_step: its cost
 * into w, its wall and GPU ms into *wall and *gpu (GPU < 0: not timed). */
static sinew_result step_separate(sinew_body *const *b, uint32_t n, const sinew_step_params *p, way *w, double *wall,
                                  double *gpu)
{
    sinew_result r = SINEW_RESULT_OK;
    const double t0 = bench_now_s();
    for (uint32_t k = 0; k < n && r == SINEW_RESULT_OK; k++)
        r = sinew_body_step(b[k], p);
    *wall = 1e3 * (bench_now_s() - t0);
    *w = (way){.chains = n};
    *gpu = 0.0;
    for (uint32_t k = 0; k < n && r == SINEW_RESULT_OK; k++) {
        const sinew_step_stats st = sinew_body_get_stats(b[k]);
        w->dispatches += st.dispatches;
        w->barriers += st.barriers;
        w->submits += st.submits;
        w->host_waits += st.host_waits;
        *gpu = st.ms_total < 0.0 || *gpu < 0.0 ? -1.0 : *gpu + st.ms_total;
    }
    return r;
}

/* One step of the world, by sinew_world_step. */
static sinew_result step_world(sinew_world *world, const sinew_step_params *p, way *w, double *wall, double *gpu)
{
    const double t0 = bench_now_s();
    const sinew_result r = sinew_world_step(world, p);
    *wall = 1e3 * (bench_now_s() - t0);
    const sinew_world_stats st = sinew_world_get_stats(world);
    *w = (way){st.dispatches, st.barriers, st.submits, st.host_waits, st.chain_count, 0, 0, 0};
    *gpu = st.ms_total;
    return r;
}

/* N bodies of their own and the same N in one world, made from the same
 * assets and stepped in turn, a step of one then a step of the other, so
 * that both meet the same load on a shared machine: their costs, the
 * medians of the measured steps, and their states at the end. */
static int measure(sinew_context *ctx, sinew_asset *const *assets, uint32_t n, sinew_body_desc d, uint32_t steps,
                   double *times, way *sep, way *wor)
{
    sinew_body *b[MAX_BODIES] = {0};
    sinew_world *world = NULL;
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t k = 0; k < n && r == SINEW_RESULT_OK; k++)
        r = sinew_body_create(ctx, assets[k], &d, &b[k]);
    sinew_world_desc wd = sinew_world_desc_default(); /* batched, no contacts between bodies */
    if (r == SINEW_RESULT_OK)
        r = sinew_world_create(ctx, &wd, &world);
    d.world = world;
    for (uint32_t k = 0; k < n && r == SINEW_RESULT_OK; k++) {
        sinew_body *in = NULL;
        r = sinew_body_create(ctx, assets[k], &d, &in);
    }
    const sinew_step_params p = params();
    double *wall[2] = {times, times + steps}, *gpu[2] = {times + 2 * steps, times + 3 * steps};
    int timed[2] = {1, 1};
    for (uint32_t s = 0; s < WARMUP + steps && r == SINEW_RESULT_OK; s++) {
        const uint32_t at = s < WARMUP ? 0 : s - WARMUP; /* warm-up steps are overwritten */
        r = step_separate(b, n, &p, sep, &wall[0][at], &gpu[0][at]);
        if (r == SINEW_RESULT_OK)
            r = step_world(world, &p, wor, &wall[1][at], &gpu[1][at]);
        timed[0] &= gpu[0][at] >= 0.0;
        timed[1] &= gpu[1][at] >= 0.0;
    }
    sep->hash = 0xcbf29ce484222325ull;
    for (uint32_t k = 0; k < n && r == SINEW_RESULT_OK; k++) {
        uint64_t one = 0;
        r = sinew_body_state_hash(b[k], &one);
        sep->hash = combine(sep->hash, one);
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_world_state_hash(world, &wor->hash);
    for (uint32_t k = 0; k < n; k++)
        if (b[k])
            sinew_body_destroy(b[k]);
    if (world)
        sinew_world_destroy(world);
    if (r != SINEW_RESULT_OK)
        return 0;
    way *ways[2] = {sep, wor};
    for (int m = 0; m < 2; m++) {
        ways[m]->wall_ms = median(wall[m], steps);
        ways[m]->gpu_ms = timed[m] ? median(gpu[m], steps) : -1.0;
    }
    return 1;
}

static void ms_cell(char *s, size_t size, double ms)
{
    if (ms < 0.0)
        snprintf(s, size, "-");
    else
        snprintf(s, size, "%.2f", ms);
}

static void ratio_cell(char *s, size_t size, double a, double b)
{
    if (a < 0.0 || b <= 0.0)
        snprintf(s, size, "-");
    else
        snprintf(s, size, "%.2f", a / b);
}

static int run_world(sinew_context *ctx, const void *options, const char *out)
{
    const sizes *z = options;
    char path[1024];
    snprintf(path, sizeof path, "%s/world.csv", out);
    FILE *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/README.md", out);
    FILE *md = fopen(path, "w");
    double *times = malloc(sizeof *times * 4 * z->steps); /* wall and GPU ms of each way's steps */
    if (!csv || !md || !times) {
        fprintf(stderr, "sinew-bench: cannot write into %s\n", out);
        if (csv)
            fclose(csv);
        if (md)
            fclose(md);
        free(times);
        return 0;
    }
    const sinew_device_info info = sinew_context_get_device_info(ctx);
    sinew_device_probe probe = {0};
    if (sinew_context_probe(ctx, &probe) != SINEW_RESULT_OK)
        probe.dispatch_us = 0.0;
    const sinew_body_desc defaults = sinew_body_desc_default();
    fprintf(csv, "kind,solver,layout,bodies,particles_per_body,mode,chains,dispatches_per_step,barriers_per_step,"
                 "submits_per_step,host_waits_per_step,ms_wall_per_step,ms_gpu_per_step,dispatch_floor_ms,"
                 "same_state\n");
    bench_text t = {0};
    add(&t, "# sinew-bench: world suite on %s\n\n", info.name);
    add(&t, "N bodies of one kind stepped as N bodies of their own (`sinew_body_step` on each: N submits, N host "
            "waits) and as one world (`sinew_world_step`: one submit, one wait; bodies of one solver and one "
            "description packed into one batch, whose step records each stage once). Kinds: %u x %u cloths, 1 m "
            "square, hanging from two corners (XPBD Gauss-Seidel swept colour by colour and in clustered passes; "
            "%s is this device's default layout), and soft blocks of %u^3 vertices, 0.2 m, dropped 0.2 m onto the "
            "ground (GPBD Gauss-Seidel, neo-Hookean); every body its own asset, placed apart so none touches "
            "another (world contacts off). The default description: %u substeps x %u iteration, timestamps, "
            "health check and rollback copy on; 1/60 s steps.\n\n",
        z->cloth_side, z->cloth_side, info.type == CPU_DEVICE ? "colours" : "clusters", z->block_side,
        defaults.substeps, defaults.iterations);
    add(&t, "Per step: dispatches and barriers as recorded (summed over the bodies or the world's chains), queue "
            "submits and host waits; wall ms, the host clock around the step calls (all N `sinew_body_step` "
            "calls, or the one `sinew_world_step`); GPU ms from timestamps (summed over the bodies, or the "
            "world's `ms_total`, summed over its chains). Both ways are made from the same assets and stepped "
            "in turn, a step of the N bodies then one of the world, so that both meet the same load; times are "
            "medians of %u steps after %u warm-up steps (the world builds its batch in its first). The dispatch floor is the dispatches times the probe's "
            "dependent dispatch (%.2f us here): what the step's chain of dependent dispatches costs with no work "
            "in them. Same state: every body's state hash after the steps equal in both ways.%s\n\n",
        z->steps, WARMUP, probe.dispatch_us,
        info.type == CPU_DEVICE ? " This device is a CPU (lavapipe): its \"GPU\" times are CPU times, the shaders "
                                  "run on the host's cores, shared with the host code and with other work."
                                : "");
    add(&t, "| kind | N | dispatches separate | world | world/separate | barriers separate | world | submits "
            "separate | world | host waits separate | world | chains | wall ms separate | world | world/separate "
            "| GPU ms separate | world | world/separate | floor ms separate | world | same state |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int ok = 1;
    for (size_t kk = 0; kk < KIND_COUNT && ok; kk++) {
        const kind *kd = &kinds[kk];
        const uint32_t most = counts[z->count_n - 1];
        sinew_asset *assets[MAX_BODIES] = {0};
        for (uint32_t k = 0; k < most && ok; k++) {
            assets[k] = kd->block ? block(z->block_side, k) : cloth(z->cloth_side, k);
            ok = assets[k] != NULL;
        }
        sinew_body_desc d = sinew_body_desc_default();
        d.solver = kd->solver;
        d.sweep_layout = kd->layout;
        for (uint32_t c = 0; c < z->count_n && ok; c++) {
            const uint32_t n = counts[c];
            way sep = {0}, wor = {0};
            ok = measure(ctx, assets, n, d, z->steps, times, &sep, &wor);
            if (!ok) {
                fprintf(stderr, "sinew-bench: world %s, %u bodies: a step failed\n", kd->name, n);
                break;
            }
            const uint32_t particles = assets[0]->particle_count;
            const double floor_sep = sep.dispatches * probe.dispatch_us * 1e-3;
            const double floor_wor = wor.dispatches * probe.dispatch_us * 1e-3;
            const int same = sep.hash == wor.hash;
            const way *ws[2] = {&sep, &wor};
            for (int m = 0; m < 2; m++)
                fprintf(csv, "%s,%s,%s,%u,%u,%s,%u,%u,%u,%u,%u,%.4f,%.4f,%.4f,%d\n", kd->block ? "block" : "cloth",
                        sinew_solver_name(kd->solver), layout_name(kd), n, particles, m ? "world" : "separate", ws[m]->chains, ws[m]->dispatches, ws[m]->barriers,
                        ws[m]->submits, ws[m]->host_waits, ws[m]->wall_ms, ws[m]->gpu_ms, m ? floor_wor : floor_sep,
                        same);
            char g[2][32], rd[32], rw[32], rg[32];
            ms_cell(g[0], sizeof g[0], sep.gpu_ms);
            ms_cell(g[1], sizeof g[1], wor.gpu_ms);
            ratio_cell(rd, sizeof rd, wor.dispatches, sep.dispatches);
            ratio_cell(rw, sizeof rw, wor.wall_ms, sep.wall_ms);
            ratio_cell(rg, sizeof rg, wor.gpu_ms, sep.gpu_ms);
            add(&t, "| %s (%u) | %u | %u | %u | %s | %u | %u | %u | %u | %u | %u | %u | %.2f | %.2f | %s | %s | %s | %s "
                    "| %.2f | %.2f | %s |\n",
                kd->name, particles, n, sep.dispatches, wor.dispatches, rd, sep.barriers, wor.barriers, sep.submits,
                wor.submits, sep.host_waits, wor.host_waits, wor.chains, sep.wall_ms, wor.wall_ms, rw, g[0], g[1], rg,
                floor_sep, floor_wor, same ? "yes" : "NO");
            fprintf(stderr, "sinew-bench: world %-16s %2u bodies: %5u / %4u dispatches, wall %8.2f / %8.2f ms, "
                    "GPU %s / %s ms (separate / world)%s\n", kd->name, n, sep.dispatches, wor.dispatches,
                    sep.wall_ms, wor.wall_ms, g[0], g[1], same ? "" : ", states differ");
            ok = same;
        }
        for (uint32_t k = 0; k < most; k++)
            if (assets[k])
                sinew_asset_destroy(assets[k]);
    }
    add(&t, "\nThe number after the kind: particles per body. Ratios are world over separate: below 1 the "
            "world is cheaper.\n");
    if (t.s) {
        fputs(t.s, md);
        fputs(t.s, stdout);
    }
    free(t.s);
    free(times);
    fclose(csv);
    fclose(md);
    return ok;
}

int bench_world_suite(const bench_args *a)
{
    static sizes z;
    z = (sizes){32, 5, STEPS, sizeof counts / sizeof counts[0]};
    if (a->dry_run) /* every kind and both ways, on small bodies, N = 1 and 4 */
        z = (sizes){8, 3, 2, 2};
    if (a->steps)
        z.steps = a->steps;
    return bench_on_device(a, "world", run_world, &z);
}
