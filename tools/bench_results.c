/* sinew-bench's results of the measured suites: bench.json (every run, the
 * device, the host, the probe and the peers), the results page README.md
 * (also on stdout), the plots; a bench.json read back to make the page again
 * (--report) or to compare with (--compare). */
#define _POSIX_C_SOURCE 200809L
#include "bench_core.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ floors */

/* A run's cost per iteration (the step over substeps x iterations, every
 * phase included) and the two floors of its step: its dispatches at the
 * probe's cost of a dependent dispatch, and its designed bytes at the probe's
 * copy bandwidth. Which one is nearer its time says what bounds it. */
typedef struct floors {
    double iterations;             /* per step */
    double ms, dispatches, barriers; /* per iteration */
    double dispatch_ms, bandwidth_ms; /* per step; negative: no probe */
} floors;

static floors floors_of(const bench *b, const run *r)
{
    floors f;
    f.iterations = (double)r->substeps * r->iterations;
    f.ms = r->ms[5] >= 0 && f.iterations > 0 ? r->ms[5] / f.iterations : -1.0;
    f.dispatches = f.iterations > 0 ? r->dispatches / f.iterations : 0.0;
    f.barriers = f.iterations > 0 ? r->barriers / f.iterations : 0.0;
    f.dispatch_ms = b->probe.dispatch_us > 0 ? r->dispatches * b->probe.dispatch_us * 1e-3 : -1.0;
    f.bandwidth_ms = b->probe.copy_bytes_per_s > 0 ? r->bytes / b->probe.copy_bytes_per_s * 1e3 : -1.0;
    return f;
}

/* The measured runs the floors table lists: the timing runs of every scene. */
static int has_floors(const run *r)
{
    return !strcmp(r->impl, "sinew") && !r->diverged_step &&
           (!strcmp(r->kind, "timing") || !strcmp(r->kind, "impact") || !strcmp(r->kind, "stretch"));
}

static void report_floors(const bench *b, bench_text *t)
{
    add(t, "## Dispatches, bandwidth and their floors\n\n");
    add(t, "| scene | N | solver | substeps x iterations | GPU ms/iteration | dispatches/iteration | "
           "barriers/iteration | GPU ms/step | dispatch floor ms/step | bandwidth floor ms/step |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (!has_floors(r))
            continue;
        const floors f = floors_of(b, r);
        add(t, "| %s | %u | %s | %u x %u | %.4f | %.1f | %.1f | %.3f | %.3f | %.3f |\n", scene_names[r->scene], r->n,
            sinew_solver_name(r->solver), r->substeps, r->iterations, f.ms, f.dispatches, f.barriers, r->ms[5],
            f.dispatch_ms, f.bandwidth_ms);
    }
    add(t, "\nPer iteration is per step over substeps x iterations, every phase of the step included. The dispatch "
           "floor is the step's dispatches times the probe's dependent dispatch (%.2f us), the bandwidth floor its "
           "designed bytes over the probe's copy bandwidth (%.2f GB/s). A step near the larger floor is bound by it: by "
           "its dependent dispatches or by its memory traffic (the probe is timed as the runs are, and as noisy).\n\n",
        b->probe.dispatch_us, b->probe.copy_bytes_per_s * 1e-9);
}

/* ------------------------------------------------------------------ bench.json */

static cJSON *run_json(const bench *b, const run *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "impl", r->impl);
    cJSON_AddStringToObject(o, "kind", r->kind);
    cJSON_AddStringToObject(o, "scene", scene_names[r->scene]);
    cJSON_AddNumberToObject(o, "n", r->n);
    cJSON_AddNumberToObject(o, "particles", r->particles);
    cJSON_AddNumberToObject(o, "constraints", r->constraints);
    cJSON_AddNumberToObject(o, "colours", r->colours);
    cJSON_AddStringToObject(o, "solver", sinew_solver_name(r->solver));
    cJSON_AddNumberToObject(o, "substeps", r->substeps);
    cJSON_AddNumberToObject(o, "iterations", r->iterations);
    cJSON_AddNumberToObject(o, "steps", r->steps);
    if (!strcmp(r->impl, "sinew")) {
        cJSON *ms = cJSON_AddObjectToObject(o, "gpu_ms_per_step");
        const char *names[] = {"predict", "solve", "contacts", "velocity", "residual", "total"};
        for (int k = 0; k < 6; k++)
            cJSON_AddNumberToObject(ms, names[k], r->ms[k]);
        cJSON_AddNumberToObject(ms, "total_std", r->ms_std);
        cJSON_AddNumberToObject(o, "dispatches_per_step", r->dispatches);
        cJSON_AddNumberToObject(o, "barriers_per_step", r->barriers);
        cJSON_AddNumberToObject(o, "submits_per_step", r->submits);
        cJSON_AddNumberToObject(o, "host_waits_per_step", r->host_waits);
        cJSON_AddNumberToObject(o, "readback_bytes_per_step", (double)r->readback_bytes);
        cJSON_AddNumberToObject(o, "device_allocations", r->allocations);
        cJSON_AddNumberToObject(o, "bytes_per_step", (double)r->bytes);
        double bps = r->ms[5] > 0 ? r->bytes / (r->ms[5] * 1e-3) : 0.0;
        cJSON_AddNumberToObject(o, "achieved_bytes_per_s", bps);
        cJSON_AddNumberToObject(o, "fraction_of_probe_bandwidth",
                                b->probe.copy_bytes_per_s > 0 ? bps / b->probe.copy_bytes_per_s : 0.0);
        cJSON_AddNumberToObject(o, "device_memory", (double)r->device_memory);
        const floors f = floors_of(b, r);
        cJSON_AddNumberToObject(o, "dispatch_floor_ms_per_step", f.dispatch_ms);
        cJSON_AddNumberToObject(o, "bandwidth_floor_ms_per_step", f.bandwidth_ms);
        cJSON *it = cJSON_AddObjectToObject(o, "per_iteration"); /* the step over substeps x iterations */
        cJSON_AddNumberToObject(it, "gpu_ms", f.ms);
        cJSON_AddNumberToObject(it, "dispatches", f.dispatches);
        cJSON_AddNumberToObject(it, "barriers", f.barriers);
    }
    cJSON_AddNumberToObject(o, "wall_ms_per_step", r->wall_ms);
    if (r->scene == SCENE_CUBE) {
        const double iters = (double)r->substeps * r->iterations;
        cJSON_AddNumberToObject(o, "tets", r->tets);
        cJSON_AddNumberToObject(o, "element_colours", r->colours);
        cJSON_AddNumberToObject(o, "newton_iterations", r->newton);
        cJSON_AddNumberToObject(o, "newton_tolerance", r->newton_tolerance);
        cJSON_AddNumberToObject(o, "wall_ms_per_iteration", r->wall_ms > 0 ? r->wall_ms / iters : -1.0);
        if (!strcmp(r->impl, "sinew")) {
            /* Solve time only: predict, contacts, velocities and the checks are apart. */
            cJSON_AddNumberToObject(o, "gpu_ms_per_iteration", r->ms[1] >= 0 ? r->ms[1] / iters : -1.0);
            cJSON_AddNumberToObject(o, "ns_per_tet_iteration",
                                    r->ms[1] >= 0 ? r->ms[1] * 1e6 / (iters * r->tets) : -1.0);
            cJSON_AddNumberToObject(o, "ns_per_tet_newton_bound",
                                    r->ms[1] >= 0 ? r->ms[1] * 1e6 / (iters * r->tets * r->newton) : -1.0);
            cJSON *fast = cJSON_AddObjectToObject(o, "fastest_step");
            cJSON_AddNumberToObject(fast, "gpu_ms", r->fastest_ms[0]);
            cJSON_AddNumberToObject(fast, "gpu_ms_solve", r->fastest_ms[1]);
            cJSON_AddNumberToObject(fast, "ns_per_tet_iteration",
                                    r->fastest_ms[1] >= 0 ? r->fastest_ms[1] * 1e6 / (iters * r->tets) : -1.0);
            cJSON *l = cJSON_AddObjectToObject(o, "launch");
            cJSON_AddNumberToObject(l, "gpu_ms", r->launch_ms[0]);
            cJSON_AddNumberToObject(l, "gpu_ms_solve", r->launch_ms[1]);
            cJSON_AddNumberToObject(l, "wall_ms", r->launch_wall_ms);
            cJSON_AddNumberToObject(o, "newton_taken", r->newton_taken);
            cJSON_AddNumberToObject(o, "newton_taken_launch", r->newton_launch);
        } else {
            cJSON_AddNumberToObject(o, "newton_taken", r->newton_taken);
            cJSON_AddNumberToObject(o, "newton_taken_launch", r->newton_launch);
            cJSON_AddNumberToObject(o, "launch_wall_ms", r->launch_wall_ms);
        }
        cJSON_AddNumberToObject(o, "volume_ratio", r->volume_ratio);
        cJSON_AddNumberToObject(o, "min_height", r->min_height);
        cJSON_AddNumberToObject(o, "max_speed", r->max_speed);
        cJSON_AddBoolToObject(o, "diverged", r->diverged_step != 0);
        if (r->diverged_step)
            cJSON_AddNumberToObject(o, "diverged_step", r->diverged_step);
        return o;
    }
    if (r->scene == SCENE_SHEET) {
        cJSON_AddNumberToObject(o, "stretch", r->stretch);
        cJSON_AddNumberToObject(o, "largest_elongation", r->largest);
        cJSON_AddNumberToObject(o, "window_steps", r->window);
        if (r->levels) {
            cJSON *h = cJSON_AddObjectToObject(o, "hierarchy");
            cJSON_AddNumberToObject(h, "levels", r->levels);
            cJSON_AddNumberToObject(h, "k", HPBD_K);
            cJSON_AddStringToObject(h, "rest", "pose");
            uint32_t count = r->levels < SHEET_MAX_LEVELS ? r->levels : SHEET_MAX_LEVELS;
            cJSON *p = cJSON_AddArrayToObject(h, "particles"), *c = cJSON_AddArrayToObject(h, "constraints");
            for (uint32_t l = 0; l < count; l++) {
                cJSON_AddItemToArray(p, cJSON_CreateNumber(r->level_particles[l]));
                cJSON_AddItemToArray(c, cJSON_CreateNumber(r->level_constraints[l]));
            }
        }
    }
    cJSON_AddNumberToObject(o, "max_strain", r->max_strain);
    cJSON_AddNumberToObject(o, "rms_strain", r->rms_strain);
    cJSON_AddBoolToObject(o, "diverged", r->diverged_step != 0);
    if (r->diverged_step)
        cJSON_AddNumberToObject(o, "diverged_step", r->diverged_step);
    return o;
}

/* The one of `names` equal to v, which outlives the parsed JSON; NULL: none. */
static const char *intern(const char *v, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(v, names[i]))
            return names[i];
    return NULL;
}

/* Reads a bench.json back (e.g. one written on a GPU machine without gnuplot)
 * so that the page and plots can be made again: its runs, device, host and
 * probe into b, its peers appended to b->peers. */
static int load_json(const char *path, bench *b)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "sinew-bench: cannot read %s: %s\n", path, strerror(errno));
        return 0;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    char chunk[65536];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = (len + got + 1) * 2;
            char *t = realloc(buf, cap);
            if (!t) {
                free(buf);
                fclose(f);
                return 0;
            }
            buf = t;
        }
        memcpy(buf + len, chunk, got);
        len += got;
    }
    fclose(f);
    cJSON *root = buf ? (buf[len] = '\0', cJSON_Parse(buf)) : NULL;
    free(buf);
    const cJSON *runs = cJSON_GetObjectItem(root, "runs");
    if (!root || !cJSON_IsArray(runs)) {
        fprintf(stderr, "sinew-bench: %s is not a bench.json\n", path);
        cJSON_Delete(root);
        return 0;
    }
    const cJSON *dev = cJSON_GetObjectItem(root, "device");
    sinew_device_info *di = &b->di;
    snprintf(di->name, sizeof di->name, "%s", jstr(dev, "name"));
    snprintf(di->driver, sizeof di->driver, "%s", jstr(dev, "driver"));
    di->api_version = (uint32_t)jnum(dev, "api_version");
    di->type = cJSON_IsNumber(cJSON_GetObjectItem(dev, "type")) ? (int)jnum(dev, "type") : -1;
    snprintf(b->date, sizeof b->date, "%s", jstr(root, "date"));
    b->messages = (uint32_t)jnum(root, "validation_messages");
    const cJSON *host = cJSON_GetObjectItem(root, "host");
    b->cpus = host ? (int)jnum(host, "cpus") : 0;
    b->other_cpus = host ? jnum(host, "other_cpus_busy") : -1.0;
    b->sizes = bench_sizes_find(jstr(root, "suite"));
    const cJSON *probe = cJSON_GetObjectItem(root, "probe");
    b->probe.copy_bytes_per_s = jnum(probe, "copy_bytes_per_s");
    b->probe.copy_bytes = (uint64_t)jnum(probe, "copy_bytes");
    b->probe.dispatch_us = jnum(probe, "dispatch_us");
    b->probe.gpu_timed = cJSON_IsTrue(cJSON_GetObjectItem(probe, "gpu_timed"));
    static const char *const impls[] = {"sinew", "reference"};
    static const char *const kinds[] = {"timing", "substeps", "iterations", "unguarded", "impact", "newton", "stretch"};
    const cJSON *o;
    cJSON_ArrayForEach(o, runs)
    {
        run *r = push_run(b);
        if (!r)
            break;
        r->impl = intern(jstr(o, "impl"), impls, 2);
        r->kind = intern(jstr(o, "kind"), kinds, 7);
        const char *scene = jstr(o, "scene");
        r->scene = !strcmp(scene, "sphere")    ? SCENE_SPHERE
                   : !strcmp(scene, "quadnet") ? SCENE_QUADNET
                   : !strcmp(scene, "cube")    ? SCENE_CUBE
                   : !strcmp(scene, "sheet")   ? SCENE_SHEET
                                               : SCENE_HANGING;
        if (sinew_solver_from_name(jstr(o, "solver"), &r->solver) != SINEW_RESULT_OK)
            r->solver = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
        if (!r->impl || !r->kind) {
            b->count--;
            continue;
        }
        r->n = (uint32_t)jnum(o, "n");
        r->particles = (uint32_t)jnum(o, "particles");
        r->constraints = (uint32_t)jnum(o, "constraints");
        r->colours = (uint32_t)jnum(o, "colours");
        r->substeps = (uint32_t)jnum(o, "substeps");
        r->iterations = (uint32_t)jnum(o, "iterations");
        r->steps = (uint32_t)jnum(o, "steps");
        const cJSON *ms = cJSON_GetObjectItem(o, "gpu_ms_per_step");
        const char *names[] = {"predict", "solve", "contacts", "velocity", "residual", "total"};
        for (int k = 0; k < 6; k++)
            r->ms[k] = ms ? jnum(ms, names[k]) : -1.0;
        r->ms_std = ms ? jnum(ms, "total_std") : 0.0;
        r->dispatches = (uint32_t)jnum(o, "dispatches_per_step");
        r->barriers = (uint32_t)jnum(o, "barriers_per_step");
        r->submits = (uint32_t)fmax(0.0, jnum(o, "submits_per_step"));
        r->host_waits = (uint32_t)fmax(0.0, jnum(o, "host_waits_per_step"));
        r->readback_bytes = (uint64_t)fmax(0.0, jnum(o, "readback_bytes_per_step"));
        r->allocations = (uint32_t)fmax(0.0, jnum(o, "device_allocations"));
        r->bytes = (uint64_t)jnum(o, "bytes_per_step");
        r->device_memory = (uint64_t)jnum(o, "device_memory");
        r->wall_ms = jnum(o, "wall_ms_per_step");
        r->max_strain = jnum(o, "max_strain");
        r->rms_strain = jnum(o, "rms_strain");
        double diverged = jnum(o, "diverged_step");
        r->diverged_step = diverged > 0 ? (uint32_t)diverged : 0;
        if (r->scene == SCENE_CUBE) {
            r->tets = (uint32_t)jnum(o, "tets");
            r->newton = (uint32_t)jnum(o, "newton_iterations");
            r->newton_tolerance = jnum(o, "newton_tolerance");
            const cJSON *fast = cJSON_GetObjectItem(o, "fastest_step");
            r->fastest_ms[0] = fast ? jnum(fast, "gpu_ms") : -1.0;
            r->fastest_ms[1] = fast ? jnum(fast, "gpu_ms_solve") : -1.0;
            const cJSON *l = cJSON_GetObjectItem(o, "launch");
            r->launch_ms[0] = l ? jnum(l, "gpu_ms") : -1.0;
            r->launch_ms[1] = l ? jnum(l, "gpu_ms_solve") : -1.0;
            r->launch_wall_ms = l ? jnum(l, "wall_ms") : jnum(o, "launch_wall_ms");
            r->newton_taken = cJSON_GetObjectItem(o, "newton_taken") ? jnum(o, "newton_taken") : 0.0;
            r->newton_launch = cJSON_GetObjectItem(o, "newton_taken_launch") ? jnum(o, "newton_taken_launch") : 0.0;
            r->volume_ratio = jnum(o, "volume_ratio");
            r->min_height = jnum(o, "min_height");
            r->max_speed = jnum(o, "max_speed");
        }
        if (r->scene == SCENE_SHEET) {
            r->stretch = jnum(o, "stretch");
            r->largest = jnum(o, "largest_elongation");
            r->window = (uint32_t)jnum(o, "window_steps");
            const cJSON *h = cJSON_GetObjectItem(o, "hierarchy");
            if (h) {
                r->levels = (uint32_t)jnum(h, "levels");
                const cJSON *p = cJSON_GetObjectItem(h, "particles"), *c = cJSON_GetObjectItem(h, "constraints");
                for (int l = 0; l < SHEET_MAX_LEVELS && l < cJSON_GetArraySize(p); l++)
                    r->level_particles[l] = (uint32_t)cJSON_GetArrayItem(p, l)->valuedouble;
                for (int l = 0; l < SHEET_MAX_LEVELS && l < cJSON_GetArraySize(c); l++)
                    r->level_constraints[l] = (uint32_t)cJSON_GetArrayItem(c, l)->valuedouble;
            }
        }
    }
    const cJSON *old_peers = cJSON_GetObjectItem(root, "peers");
    cJSON_ArrayForEach(o, old_peers) cJSON_AddItemToArray(b->peers, cJSON_Duplicate(o, 1));
    cJSON_Delete(root);
    if (!b->sizes) {
        fprintf(stderr, "sinew-bench: %s: unknown suite\n", path);
        return 0;
    }
    return 1;
}

/* Run to run: this run's timing results against an earlier bench.json of the
 * same suite, each difference set against the noise the runs state. */
static void compare(const bench *now, const bench *before, const char *before_path, bench_text *t)
{
    const char *slash = strrchr(before_path, '/');
    add(t, "\n## Run to run\n\nAgainst %s (the previous run): GPU ms per step of the timing runs, the difference, and the "
           "noise each run states (standard deviation of its step times).\n\n", slash ? slash + 1 : before_path);
    add(t, "| scene | N x N | solver | before | now | difference | noise before | noise now | within noise |\n");
    add(t, "|---|---|---|---|---|---|---|---|---|\n");
    int within = 0, total = 0;
    for (size_t i = 0; i < now->count; i++) {
        const run *r = &now->runs[i];
        if (strcmp(r->impl, "sinew") ||
            (strcmp(r->kind, "timing") && strcmp(r->kind, "impact") && strcmp(r->kind, "stretch")) ||
            r->diverged_step)
            continue;
        for (size_t j = 0; j < before->count; j++) {
            const run *q = &before->runs[j];
            if (strcmp(q->impl, "sinew") || strcmp(q->kind, r->kind) || q->scene != r->scene || q->n != r->n ||
                q->solver != r->solver || q->newton != r->newton || q->iterations != r->iterations ||
                q->diverged_step)
                continue;
            double diff = r->ms[5] - q->ms[5];
            /* Two means of noisy samples: within noise when the difference is
             * under twice the larger of the two stated deviations. */
            double noise = 2.0 * (r->ms_std > q->ms_std ? r->ms_std : q->ms_std);
            int ok = fabs(diff) <= noise;
            within += ok;
            total++;
            char solver[48]; /* sheet runs differ in iterations */
            if (r->scene == SCENE_SHEET)
                snprintf(solver, sizeof solver, "%s, %u iterations", sinew_solver_name(r->solver), r->iterations);
            else
                snprintf(solver, sizeof solver, "%s", sinew_solver_name(r->solver));
            add(t, "| %s | %u | %s | %.3f | %.3f | %+.1f%% | %.1f%% | %.1f%% | %s |\n", scene_names[r->scene], r->n,
                solver, q->ms[5], r->ms[5], 100.0 * diff / q->ms[5], 100.0 * q->ms_std / q->ms[5],
                100.0 * r->ms_std / r->ms[5], ok ? "yes" : "no");
            break;
        }
    }
    add(t, "\n%d of %d timing results agree within twice the stated noise.\n", within, total);
}

/* ------------------------------------------------------------------ the page */

/* The terminal table and the results page share this text. */
static void page(const bench *b, const cJSON *peers, const bench_sizes *s, const sinew_device_info *di, bench_text *t,
                 const char *date)
{
    add(t, "# sinew-bench: %s suite on %s\n\n", s->name, di->name);
    add(t, "- device: %s, driver %s, Vulkan %u.%u.%u%s\n", di->name, di->driver, di->api_version >> 22,
        (di->api_version >> 12) & 0x3ff, di->api_version & 0xfff,
        di->type == 4 ? "; a CPU device (Vulkan run on the host's CPU cores), no GPU" : "");
    add(t, "- date: %s; sinew %d.%d.%d\n", date, SINEW_VERSION_MAJOR, SINEW_VERSION_MINOR, SINEW_VERSION_PATCH);
    add(t, "- probe: copy kernel %.2f GB/s (reads + writes), %.2f us per dependent dispatch (%s)\n",
        b->probe.copy_bytes_per_s * 1e-9, b->probe.dispatch_us, b->probe.gpu_timed ? "GPU timestamps" : "wall clock");
    if (b->cpus > 0 && b->other_cpus >= 0)
        add(t, "- host: %d CPUs; other processes kept %.2f of them busy on average while the runs went%s\n", b->cpus,
            b->other_cpus,
            b->other_cpus >= 0.1 ? " (a shared machine: on a CPU device such as lavapipe the times grow with it)" : "");
    int cloth = 0, cube = 0, sheet = 0;
    for (size_t i = 0; i < b->count; i++)
        *(b->runs[i].scene == SCENE_CUBE ? &cube : b->runs[i].scene == SCENE_SHEET ? &sheet : &cloth) = 1;
    if (cloth)
        report_cloth(b, peers, s, t);
    else
        add(t, "\n");
    if (cube)
        report_cube(b, t);
    if (sheet)
        report_sheet(b, di, t);
    report_floors(b, t);

    int peer_count = cJSON_GetArraySize(peers);
    if (peer_count) {
        add(t, "## Peers\n\nThe peer scene (tools/peers/SCENE.md) is the hanging cloth above; each peer's own "
               "solver, timed on the CPU (wall clock).\n\n");
        add(t, "| peer | version | method | backend | N | substeps | iterations | ms/step | max strain | RMS strain | |\n");
        add(t, "|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int p = 0; p < peer_count; p++) {
            const cJSON *o = cJSON_GetArrayItem(peers, p);
            add(t, "| %s | %s | %s | %s | %d | %d | %d | %.3f | %.2e | %.2e | %s |\n", jstr(o, "peer"),
                jstr(o, "version"), jstr(o, "method"), jstr(o, "backend"), (int)jnum(o, "n"), (int)jnum(o, "substeps"),
                (int)jnum(o, "iterations"), jnum(o, "ms_per_step"), jnum(o, "max_strain"), jnum(o, "rms_strain"),
                cJSON_IsTrue(cJSON_GetObjectItem(o, "diverged")) ? "diverged" : "");
        }
        add(t, "\nSettings of each peer run are in bench.json.\n");
    }
}

int bench_load(const char *path, const bench_args *a, bench *b)
{
    if (mkdir(a->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "sinew-bench: cannot create %s: %s\n", a->out, strerror(errno));
        return 0;
    }
    b->peers = read_peers(a->peers, a->peer_count);
    return load_json(path, b);
}

int bench_write(const bench_args *a, bench *b)
{
    const sinew_device_info di = b->di;
    cJSON *root = cJSON_CreateObject();
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(dev, "name", di.name);
    cJSON_AddStringToObject(dev, "driver", di.driver);
    cJSON_AddNumberToObject(dev, "vendor_id", di.vendor_id);
    cJSON_AddNumberToObject(dev, "device_id", di.device_id);
    cJSON_AddNumberToObject(dev, "api_version", di.api_version);
    cJSON_AddNumberToObject(dev, "type", di.type); /* VkPhysicalDeviceType: 4 = CPU */
    cJSON *build = cJSON_AddObjectToObject(root, "build");
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", SINEW_VERSION_MAJOR, SINEW_VERSION_MINOR, SINEW_VERSION_PATCH);
    cJSON_AddStringToObject(build, "sinew", version);
    cJSON_AddStringToObject(build, "compiler", __VERSION__);
#ifdef NDEBUG
    cJSON_AddStringToObject(build, "type", "release");
#else
    cJSON_AddStringToObject(build, "type", "debug");
#endif
    cJSON_AddStringToObject(root, "date", b->date);
    cJSON_AddStringToObject(root, "suite", b->sizes->name);
    cJSON_AddNumberToObject(root, "validation_messages", b->messages);
    cJSON *host = cJSON_AddObjectToObject(root, "host");
    cJSON_AddNumberToObject(host, "cpus", b->cpus);
    cJSON_AddNumberToObject(host, "other_cpus_busy", b->other_cpus); /* mean, while the runs went */
    cJSON *probe = cJSON_AddObjectToObject(root, "probe");
    cJSON_AddNumberToObject(probe, "copy_bytes_per_s", b->probe.copy_bytes_per_s);
    cJSON_AddNumberToObject(probe, "copy_bytes", (double)b->probe.copy_bytes);
    cJSON_AddNumberToObject(probe, "dispatch_us", b->probe.dispatch_us);
    cJSON_AddBoolToObject(probe, "gpu_timed", b->probe.gpu_timed);
    cJSON *runs = cJSON_AddArrayToObject(root, "runs");
    for (size_t i = 0; i < b->count; i++)
        cJSON_AddItemToArray(runs, run_json(b, &b->runs[i]));
    cloth_json(b, root);
    cube_json(b, root);
    sheet_json(b, root);
    cJSON_AddItemReferenceToObject(root, "peers", b->peers);

    char path[4096];
    snprintf(path, sizeof path, "%s/bench.json", a->out);
    char *json = cJSON_Print(root);
    int ok = json && bench_write_text(path, json);
    free(json);

    bench_text t = {0};
    page(b, b->peers, b->sizes, &di, &t, b->date);
    if (a->compare) {
        bench before = {0};
        before.peers = cJSON_CreateArray(); /* not compared */
        if (load_json(a->compare, &before))
            compare(b, &before, a->compare, &t);
        bench_free(&before);
    }
    snprintf(path, sizeof path, "%s/README.md", a->out);
    ok = ok && t.s && bench_write_text(path, t.s);
    if (!a->no_plots) {
        plot_cloth(b, b->peers, a->out, b->sizes);
        plot_cube(b, a->out);
        plot_sheet(b, a->out);
    }
    if (t.s)
        fputs(t.s, stdout);
    fflush(stdout); /* before any exit-time report a sanitizer may end the process with */
    fprintf(stderr, "sinew-bench: wrote %s/bench.json, %s/README.md%s\n", a->out, a->out, a->no_plots ? "" : " and plots");
    if (b->messages)
        fprintf(stderr, "sinew-bench: %u validation messages\n", b->messages);
    free(t.s);
    cJSON_Delete(root);
    return ok && !b->messages;
}
