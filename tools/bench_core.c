/* sinew-bench's measured suites: their scenes and sizes, the measurements
 * every scene shares (a GPU body stepped and timed, the CPU double reference
 * on the same steps, the strain reached), and the order the runs go in
 * (bench_measure). */
#define _POSIX_C_SOURCE 200809L
#include "bench_core.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_load.h"
#include "ref/xpbd_ref.h"

const char *const scene_names[] = {"hanging", "sphere", "quadnet", "cube", "sheet"};
const char *const scene_titles[] = {
    "cloth hanging from two corners (stretch, shear, bending)",
    "cloth dropped on a sphere (contacts and friction)",
    "quad mass-spring network hanging from two corners (stretch only)",
    "neo-Hookean cube of N^3 vertices hitting the ground (GPBD)",
    "triangulated cloth hanging from its top row (HPBD, Mueller 2008 figure 7)",
};

/* ------------------------------------------------------------------ suites */

const bench_sizes bench_quick = {"quick", {32, 64, 128, 256}, {64}, {100}, {32, 64}, {32, 64}, 32, {0}, 0, 0, 0, 0, 0, 0};
const bench_sizes bench_gpu = {"gpu", {32, 64, 128, 256, 512}, {128, 256}, {100}, {64, 128, 256}, {32, 64}, 32, {0},
                               0, 0, 0, 0, 0, 0};
const bench_sizes bench_gpbd = {"gpbd", {0}, {0}, {0}, {0}, {0}, 0, {6, 11, 16, 26}, CUBE_STEPS, 26, 11, 0, 0, 0};
const bench_sizes bench_hpbd = {"hpbd", {0}, {0}, {0}, {0}, {0}, 0, {0}, 0, 0, 0, SHEET_N, SHEET_STEPS, SHEET_MAX};
const bench_sizes bench_all = {"all", {32, 64, 128, 256, 512}, {64, 128, 256}, {100}, {32, 64, 128, 256}, {32, 64},
                               32, {6, 11, 16, 26}, CUBE_STEPS, 26, 11, SHEET_N, SHEET_STEPS, SHEET_MAX};

const bench_sizes *bench_sizes_find(const char *name)
{
    const bench_sizes *const all[] = {&bench_quick, &bench_gpu, &bench_gpbd, &bench_hpbd, &bench_all};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        if (!strcmp(all[k]->name, name))
            return all[k];
    return NULL;
}

/* ------------------------------------------------------------------ measures */

sinew_step_params scene_params(scene_kind kind)
{
    sinew_step_params p = sinew_step_params_default();
    p.dt = DT;
    p.ground = 0;
    if (kind == SCENE_SHEET)
        p.damping = SHEET_DAMPING;
    if (kind == SCENE_SPHERE) {
        p.ground = 1;
        p.sphere = 1;
        p.sphere_center[1] = 0.5f;
        p.sphere_radius = 0.3f;
    }
    return p;
}

/* Max and RMS strain |len - L| / L over the stretch constraints (grid edges):
 * the error measure every implementation, peers included, reports. */
static void stretch_strain(const sinew_asset *a, const float *xyz, const double *xyz_d, double *mx, double *rms)
{
    double m = 0.0, ss = 0.0;
    uint32_t count = 0;
    for (uint32_t c = 0; c < a->distance_count; c++) {
        const sinew_distance_rec *d = &a->distances[c];
        if (d->kind != SINEW_KIND_STRETCH)
            continue;
        double e[3];
        for (int k = 0; k < 3; k++)
            e[k] = xyz ? (double)xyz[3 * d->a + k] - xyz[3 * d->b + k] : xyz_d[3 * d->a + k] - xyz_d[3 * d->b + k];
        double s = fabs(sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) - d->rest) / d->rest;
        m = s > m ? s : m;
        ss += s * s;
        count++;
    }
    *mx = m;
    *rms = count ? sqrt(ss / count) : 0.0;
}

typedef struct window { double max, rms_sum; uint32_t count; } window;

/* The stretch of the HPBD paper: the elongation max(0, l / L - 1) of every
 * distance constraint (L its length in the rest pose; compression does not
 * count, cloth buckles instead), its mean over the constraints and its
 * largest, each summed over the steps of the window (as sinew-sim --log
 * reports them). */
typedef struct elongation { double mean_sum, largest_sum; uint32_t count; } elongation;

static void elongation_add(elongation *w, const sinew_asset *a, const float *xyz)
{
    double sum = 0.0, largest = 0.0;
    for (uint32_t c = 0; c < a->distance_count; c++) {
        const sinew_distance_rec *d = &a->distances[c];
        const sinew_particle_rec *p = &a->particles[d->a], *q = &a->particles[d->b];
        double rest = sqrt(pow((double)p->x - q->x, 2) + pow((double)p->y - q->y, 2) + pow((double)p->z - q->z, 2));
        const float *u = &xyz[3 * d->a], *v = &xyz[3 * d->b];
        double l = sqrt(pow((double)u[0] - v[0], 2) + pow((double)u[1] - v[1], 2) + pow((double)u[2] - v[2], 2));
        double e = rest > 0.0 ? l / rest - 1.0 : 0.0;
        if (e > 0.0) {
            sum += e;
            largest = e > largest ? e : largest;
        }
    }
    w->mean_sum += a->distance_count ? sum / a->distance_count : 0.0;
    w->largest_sum += largest;
    w->count++;
}

static void window_add(window *w, const sinew_asset *a, const float *xyz, const double *xyz_d)
{
    double mx, rms;
    stretch_strain(a, xyz, xyz_d, &mx, &rms);
    w->max = mx > w->max ? mx : w->max;
    w->rms_sum += rms;
    w->count++;
}

int is_sweep(const run *r) { return !strcmp(r->kind, "substeps") || !strcmp(r->kind, "iterations"); }

static void window_result(const window *w, run *r)
{
    r->max_strain = w->max;
    r->rms_strain = w->count ? w->rms_sum / w->count : 0.0;
}

/* ------------------------------------------------------------------ runs */

/* Messages of the library, as the default logger prints them; except that a
 * failed health check (id "health") is a result here, recorded in the run. */
static void on_log(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    if (!strcmp(id, "health"))
        return;
    fprintf(stderr, "\nsinew %s [%s]: %s\n", level == SINEW_LOG_ERROR ? "error" : "warning", id, message);
}

void progress(bench *b, const char *what)
{
    b->done++;
    int width = 30, bar = b->planned ? (int)(width * b->done / b->planned) : width;
    fprintf(stderr, "\r[%.*s%*s] %3zu/%zu %-48.48s", bar, "##############################", width - bar, "", b->done,
            b->planned, what);
    if (b->done == b->planned)
        fprintf(stderr, "\n");
    fflush(stderr);
}

run *push_run(bench *b)
{
    if (b->count == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        run *r = realloc(b->runs, cap * sizeof *r);
        if (!r)
            return NULL;
        b->runs = r;
        b->cap = cap;
    }
    run *r = &b->runs[b->count++];
    memset(r, 0, sizeof *r);
    return r;
}

int measure_gpu(bench *b, const sinew_asset *asset, run *r, uint32_t warmup)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = r->solver;
    d.substeps = r->substeps;
    d.iterations = r->iterations;
    d.health_check = d.rollback = strcmp(r->kind, "unguarded") != 0;
    /* HPBD's sheet: plain Gauss-Seidel sweeps as the hierarchy's level 0 does
     * (the paper switches the hierarchy off keeping the iterations). */
    if (r->scene == SCENE_SHEET)
        d.sweep_order = SINEW_SWEEP_ALTERNATING;
    sinew_body *body;
    if (sinew_body_create(b->ctx, asset, &d, &body) != SINEW_RESULT_OK)
        return 0;
    sinew_step_params p = scene_params(r->scene);
    double sum[6] = {0}, sq = 0.0, wall = 0.0;
    uint32_t measured = 0;
    /* Sheet runs: the stretch over the window at the end, timed from step 11 as
     * the accuracy sweeps are. */
    const int sheet = r->scene == SCENE_SHEET && !strcmp(r->kind, "stretch");
    const int accuracy = is_sweep(r) || sheet;
    float *xyz = malloc(3ull * asset->particle_count * sizeof *xyz);
    window w = {0};
    elongation el = {0};
    for (uint32_t s = 0; xyz && s < warmup + r->steps; s++) {
        double t0 = bench_now_s();
        sinew_result sr = sinew_body_step(body, &p);
        if (sr == SINEW_RESULT_ERROR_UNSTABLE && accuracy) {
            r->diverged_step = s + 1; /* a result too: this configuration is unstable */
            break;
        }
        if (sr != SINEW_RESULT_OK) {
            free(xyz);
            sinew_body_destroy(body);
            return 0;
        }
        double t1 = bench_now_s();
        if (accuracy && s + (sheet ? r->window : ERROR_WINDOW) >= r->steps) {
            if (sinew_body_read_positions(body, xyz, asset->particle_count) != SINEW_RESULT_OK)
                break;
            if (sheet)
                elongation_add(&el, asset, xyz);
            else
                window_add(&w, asset, xyz, NULL);
        }
        if (s < warmup || (accuracy && s < 10))
            continue; /* accuracy runs: time steps 11.. as the peers do */
        sinew_step_stats st = sinew_body_get_stats(body);
        double ms[6] = {st.ms_predict, st.ms_solve, st.ms_contacts, st.ms_velocity, st.ms_residual, st.ms_total};
        for (int k = 0; k < 6; k++)
            sum[k] += ms[k];
        sq += st.ms_total * st.ms_total;
        wall += (t1 - t0) * 1e3;
        measured++;
    }
    sinew_step_stats st = sinew_body_get_stats(body);
    if (r->diverged_step) {
        for (int k = 0; k < 6; k++)
            r->ms[k] = measured ? sum[k] / measured : -1.0;
        r->wall_ms = measured ? wall / measured : -1.0;
        r->max_strain = r->rms_strain = r->stretch = r->largest = -1.0;
        free(xyz);
        sinew_body_destroy(body);
        return 1;
    }
    for (int k = 0; k < 6; k++)
        r->ms[k] = sum[k] / measured;
    double var = sq / measured - r->ms[5] * r->ms[5];
    r->ms_std = var > 0 ? sqrt(var) : 0.0;
    r->wall_ms = wall / measured;
    r->dispatches = st.dispatches;
    r->barriers = st.barriers;
    r->submits = st.submits;
    r->host_waits = st.host_waits;
    r->readback_bytes = st.readback_bytes;
    r->allocations = st.device_allocations;
    r->bytes = st.bytes;
    r->device_memory = st.device_memory;
    int ok = xyz && measured > 0 && sinew_body_read_positions(body, xyz, asset->particle_count) == SINEW_RESULT_OK;
    if (ok && sheet) {
        r->stretch = el.count ? el.mean_sum / el.count : -1.0;
        r->largest = el.count ? el.largest_sum / el.count : -1.0;
    }
    if (ok && accuracy && !sheet)
        window_result(&w, r);
    else if (ok)
        stretch_strain(asset, xyz, NULL, &r->max_strain, &r->rms_strain);
    free(xyz);
    sinew_body_destroy(body);
    return ok;
}

void measure_reference(const sinew_asset *asset, run *r)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = r->solver;
    d.substeps = r->substeps;
    d.iterations = r->iterations;
    xpbd_ref *ref = xpbd_ref_create(asset, &d);
    sinew_step_params p = scene_params(r->scene);
    double wall = 0.0;
    window w = {0};
    double *xyz = malloc(3ull * asset->particle_count * sizeof *xyz);
    for (uint32_t s = 0; xyz && s < r->steps; s++) {
        double t0 = bench_now_s();
        xpbd_ref_step(ref, &p);
        if (s >= 10)
            wall += (bench_now_s() - t0) * 1e3;
        /* The runtime's health check, with its default speed limit. */
        if (!(xpbd_ref_max_speed(ref) <= sinew_body_desc_default().max_speed)) {
            r->diverged_step = s + 1;
            break;
        }
        if (s >= r->steps - ERROR_WINDOW) {
            for (uint32_t i = 0; i < asset->particle_count; i++)
                memcpy(&xyz[3 * i], xpbd_ref_position(ref, i), 3 * sizeof(double));
            window_add(&w, asset, NULL, xyz);
        }
    }
    r->wall_ms = wall / (r->steps - 10);
    for (int k = 0; k < 6; k++)
        r->ms[k] = -1.0;
    window_result(&w, r);
    if (r->diverged_step) {
        r->wall_ms = r->diverged_step > 10 ? wall / (r->diverged_step - 10) : -1.0;
        r->max_strain = r->rms_strain = -1.0;
    }
    free(xyz);
    xpbd_ref_destroy(ref);
}

void describe(run *r, scene_kind scene, uint32_t n, const sinew_asset *a, sinew_solver solver,
                     const char *impl, const char *kind, uint32_t substeps, uint32_t iterations, uint32_t steps)
{
    r->impl = impl;
    r->kind = kind;
    r->scene = scene;
    r->n = n;
    r->particles = a->particle_count;
    r->constraints = a->distance_count + a->bend_count;
    r->colours = a->colour_count;
    r->solver = solver;
    r->substeps = substeps;
    r->iterations = iterations;
    r->steps = steps;
}

/* Folds a second timing of the same configuration into the first: the mean of
 * the two, and a noise that adds the spread between them to the scatter
 * within them. */
void merge_timing(run *first, const run *again)
{
    double m1 = first->ms[5], m2 = again->ms[5];
    double within = 0.5 * (first->ms_std * first->ms_std + again->ms_std * again->ms_std);
    double between = 0.5 * (m1 - m2) * (m1 - m2); /* variance of two samples */
    for (int k = 0; k < 6; k++)
        first->ms[k] = 0.5 * (first->ms[k] + again->ms[k]);
    first->ms_std = sqrt(within + between);
    first->wall_ms = 0.5 * (first->wall_ms + again->wall_ms);
    first->steps += again->steps;
}

/* ------------------------------------------------------------------ the suite */

/* The suite's sizes as the options make them: --cube and --steps in place of
 * its cubes and impact steps; --dry-run: each size replaced by a tiny one
 * that keeps its place. */
static void own_sizes(const bench_args *a, const bench_sizes *sizes, bench_sizes *own)
{
    *own = *sizes;
    if (a->cube_count || a->steps) {
        if (a->cube_count) {
            memset(own->cube, 0, sizeof own->cube);
            memcpy(own->cube, a->cubes, a->cube_count * sizeof a->cubes[0]);
        }
        if (a->steps)
            own->cube_steps = a->steps;
        else if (!own->cube_steps)
            own->cube_steps = CUBE_STEPS;
    }
    if (!a->dry_run)
        return;
    const bench_sizes s = *own;
    uint32_t *lists[] = {own->hanging, own->sphere, own->quadnet, own->sweep, own->reference};
    const size_t lens[] = {8, 4, 2, 4, 4};
    for (int l = 0; l < 5; l++)
        for (size_t k = 0; k < lens[l] && lists[l][k]; k++)
            lists[l][k] = 6 + 2 * (uint32_t)(log2((double)lists[l][k]) - 4);
    own->sweep_max = 2;
    /* Cubes of 3^3, 4^3, ... vertices, two impact steps. */
    own->cube_reference_max = own->cube_newton_sweep = 0;
    for (size_t k = 0; k < 6 && own->cube[k]; k++) {
        if (s.cube[k] <= s.cube_reference_max)
            own->cube_reference_max = 3 + (uint32_t)k;
        if (s.cube[k] == s.cube_newton_sweep)
            own->cube_newton_sweep = 3 + (uint32_t)k;
        own->cube[k] = 3 + (uint32_t)k;
    }
    own->cube_steps = own->cube_steps < 2 ? own->cube_steps : 2;
    /* The sheet: 17 x 17 particles, 30 steps (the stretch over the last
     * 10), plain Gauss-Seidel up to 32 iterations. */
    if (own->sheet) {
        own->sheet = 17;
        own->sheet_steps = 30;
        own->sheet_iterations_max = 32;
    }
}

/* Peers: one JSON object per line, as tools/peers/SCENE.md defines. */
cJSON *read_peers(const char *const *files, int count)
{
    cJSON *all = cJSON_CreateArray();
    for (int i = 0; i < count; i++) {
        FILE *f = fopen(files[i], "r");
        if (!f) {
            fprintf(stderr, "sinew-bench: cannot read peers %s: %s\n", files[i], strerror(errno));
            continue;
        }
        char line[8192];
        int number = 0;
        while (fgets(line, sizeof line, f)) {
            number++;
            if (line[strspn(line, " \t\r\n")] == '\0')
                continue;
            cJSON *o = cJSON_Parse(line);
            if (!o || !cJSON_IsObject(o) || !cJSON_IsString(cJSON_GetObjectItem(o, "peer")) ||
                !cJSON_IsNumber(cJSON_GetObjectItem(o, "ms_per_step")) ||
                !cJSON_IsNumber(cJSON_GetObjectItem(o, "rms_strain"))) {
                fprintf(stderr, "sinew-bench: %s:%d: not a peer result, skipped\n", files[i], number);
                cJSON_Delete(o);
                continue;
            }
            cJSON_AddItemToArray(all, o);
        }
        fclose(f);
    }
    return all;
}

int bench_measure(const bench_args *a, const bench_sizes *sizes, bench *b)
{
    const char *t = "sinew-bench";
    own_sizes(a, sizes, &b->own);
    const bench_sizes *s = b->sizes = &b->own;
    if (mkdir(a->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create %s: %s\n", t, a->out, strerror(errno));
        return 0;
    }
    b->peers = read_peers(a->peers, a->peer_count);
    b->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    b->other_cpus = -1.0;
    const double busy0 = host_busy_s(), own0 = own_cpu_s(), wall0 = bench_now_s();
    sinew_context_desc cd = sinew_context_desc_default();
    cd.device = a->device;
    cd.validation = a->validation;
    cd.logger.fn = on_log;
    cd.logger.level = SINEW_LOG_WARNING;
    if (sinew_context_create(&cd, &b->ctx) != SINEW_RESULT_OK) {
        fprintf(stderr, "%s: no Vulkan context\n", t);
        return 0;
    }
    b->di = sinew_context_get_device_info(b->ctx);
    fprintf(stderr, "sinew-bench: %s suite on %s\n", s->name, b->di.name);
    if (sinew_context_probe(b->ctx, &b->probe) != SINEW_RESULT_OK) {
        fprintf(stderr, "%s: device probe failed\n", t);
        sinew_context_destroy(b->ctx);
        b->ctx = NULL;
        return 0;
    }
    fprintf(stderr, "probe: copy %.2f GB/s, %.2f us per dependent dispatch\n", b->probe.copy_bytes_per_s * 1e-9,
            b->probe.dispatch_us);

    /* Count the runs first so the progress bar is honest. */
    b->planned = cloth_planned(s) + cube_planned(s) + sheet_planned(s);
    int ok = 1;
    for (int round = ROUND_TIMING; ok && round <= ROUND_TIMING_AGAIN; round++)
        ok = bench_cloth_round(b, s, (round_kind)round);
    if (ok && s->sheet)
        ok = bench_sheet(b, s);
    for (int k = 0; ok && k < 6 && s->cube[k]; k++)
        ok = bench_cube(b, s, s->cube[k]);
    if (busy0 >= 0 && own0 >= 0) {
        double busy = host_busy_s() - busy0, own = own_cpu_s() - own0, wall = bench_now_s() - wall0;
        b->other_cpus = wall > 0 && busy >= 0 ? fmax(busy - own, 0.0) / wall : -1.0;
    }
    b->messages = sinew_context_get_validation_message_count(b->ctx);
    sinew_context_destroy(b->ctx);
    b->ctx = NULL;
    time_t now = time(NULL);
    strftime(b->date, sizeof b->date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    return ok;
}

void bench_free(bench *b)
{
    cJSON_Delete(b->peers);
    free(b->runs);
    memset(b, 0, sizeof *b);
}
