/* sinew-bench's GPBD cube (the gpbd and all suites): the cube impact of
 * Generalized PBD (Towards Generalized Position-Based Dynamics, table 1: a
 * neo-Hookean cube of 26^3 vertices hitting the ground, 3 GPBD and 3 Newton
 * iterations) at that size and smaller ones: time per step and per GPBD
 * iteration, per tetrahedron and Newton iteration, for both GPBD solvers, and
 * the Newton iterations the CPU reference takes on the small cubes. */
#define _POSIX_C_SOURCE 200809L
#include "bench_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prep/soft.h"
#include "prep/volume.h"
#include "ref/xpbd_ref.h"

/* The cube impact of the Generalized PBD paper (table 1: 26^3 vertices, 93 750
 * tetrahedra, neo-Hookean, 3 GPBD iterations of 3 Newton iterations at most,
 * 1.336 ms per step of CUDA kernels on an RTX 4080). The paper gives neither
 * the cube's size, its material nor its time step; here: a 1 m cube of
 * sinew_soft_options_default's material (E 1 MPa, nu 0.45, 1000 kg/m^3), one
 * substep of 1/60 s. Falling 0.5 m would take 19 steps, seconds each for the
 * full cube on lavapipe, so the fall is skipped: a first step ("launch", timed
 * apart: every element at rest) gives the cube the speed of a fall from
 * CUBE_DROP with a stronger gravity and leaves it CUBE_GAP above the ground,
 * and the measured steps are the impact that follows. */
#define CUBE_SIZE 1.0          /* m */
#define CUBE_DROP 0.5          /* m, the fall whose speed the launch gives */
#define CUBE_GAP 0.02          /* m, above the ground after the launch */
#define CUBE_SUBSTEPS 1u
#define CUBE_ITERATIONS 3u     /* GPBD iterations, the paper's */
#define CUBE_NEWTON 3u         /* Newton iterations at most, the paper's */
#define PAPER_CUBE_N 26u
#define PAPER_CUBE_MS 1.336    /* ms per step, RTX 4080 */
static const uint32_t cube_newton_bounds[] = {1, 2, 3, 20}; /* the sweep; 20 is sinew's default */
#define CUBE_NEWTON_SWEEP_COUNT 4

static const sinew_solver gpbd_solvers[2] = {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, SINEW_SOLVER_GPBD_JACOBI};

static double cube_speed(void) { return sqrt(2.0 * 9.81 * CUBE_DROP); }

/* The launch step moves the cube by v dt (s + 1) / (2 s) with s substeps
 * (velocity first, then position, every substep). */
static double cube_launch_drop(uint32_t substeps)
{
    return cube_speed() * DT * (substeps + 1.0) / (2.0 * substeps);
}

static sinew_asset *make_cube(uint32_t n, uint32_t substeps, sinew_soft_report *report)
{
    sinew_volume v;
    const double size[3] = {CUBE_SIZE, CUBE_SIZE, CUBE_SIZE};
    const double origin[3] = {0.0, CUBE_GAP + cube_launch_drop(substeps) + 0.5 * CUBE_SIZE, 0.0};
    if (sinew_volume_box(n, n, n, size, origin, &v) != SINEW_RESULT_OK)
        return NULL;
    sinew_soft_options opt = sinew_soft_options_default();
    opt.source_name = "gpbd cube";
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    sinew_asset *asset = NULL;
    sinew_soft_build(&v, &opt, &quiet, &asset, report);
    sinew_volume_free(&v);
    return asset;
}

/* Step parameters of the cube: the ground with the default friction; the
 * launch step's gravity gives the speed of the fall in one step. */
static sinew_step_params cube_params(int launch)
{
    sinew_step_params p = sinew_step_params_default();
    p.dt = DT;
    p.ground = 1;
    if (launch)
        p.gravity[1] = (float)(-cube_speed() / DT);
    return p;
}

/* Current volume over rest volume of the tetrahedra: 1 for a body that keeps
 * its volume; far from 1 for one that collapsed or blew up. */
static double cube_volume_ratio(const sinew_asset *a, const float *xyz)
{
    double now = 0.0, rest = 0.0;
    for (uint32_t e = 0; e < a->element_count; e++) {
        const sinew_element_rec *el = &a->elements[e];
        if (el->kind != SINEW_ELEMENT_TET)
            continue;
        double p[4][3];
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++)
                p[j][k] = xyz[3 * el->v[j] + k];
        now += sinew_tet_signed_volume(p[0], p[1], p[2], p[3]);
        rest += el->rest_measure;
    }
    return rest > 0 ? now / rest : 0.0;
}

/* ------------------------------------------------------------------ runs */

/* The cube: a warm-up, the launch step (timed apart), then r->steps impact steps, timed;
 * then the state: volume kept, lowest point, fastest particle. A step that
 * fails the health check is a result (diverged_step), as in the sweeps. */
static int measure_cube(bench *b, const sinew_asset *asset, run *r)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = r->solver;
    d.substeps = r->substeps;
    d.iterations = r->iterations;
    d.newton_iterations = r->newton;
    d.name = "gpbd cube";
    r->newton_tolerance = d.newton_tolerance;
    sinew_body *body;
    if (sinew_body_create(b->ctx, asset, &d, &body) != SINEW_RESULT_OK)
        return 0;
    const sinew_step_params launch = cube_params(1), p = cube_params(0);
    /* Warm-up: the launch step once, undone through a checkpoint, so that the
     * timed launch is not the body's first submission. (Should it fail the
     * health check, the timed launch below will too, and say so.) */
    size_t size = sinew_body_checkpoint_size(body);
    void *start = malloc(size);
    int ok = start && sinew_body_save_checkpoint(body, start, size) == SINEW_RESULT_OK;
    sinew_result warm = ok ? sinew_body_step(body, &launch) : SINEW_RESULT_OK;
    ok = ok && (warm == SINEW_RESULT_OK || warm == SINEW_RESULT_ERROR_UNSTABLE) &&
         sinew_body_load_checkpoint(body, start, size) == SINEW_RESULT_OK;
    free(start);
    if (!ok) {
        sinew_body_destroy(body);
        return 0;
    }
    double sum[6] = {0}, sq = 0.0, wall = 0.0, newton = 0.0;
    const double updates = (double)r->substeps * r->iterations * r->tets;
    uint32_t measured = 0;
    for (uint32_t s = 0; s <= r->steps; s++) {
        double t0 = bench_now_s();
        sinew_result sr = sinew_body_step(body, s ? &p : &launch);
        double t1 = bench_now_s();
        if (sr == SINEW_RESULT_ERROR_UNSTABLE) {
            r->diverged_step = s + 1;
            break;
        }
        if (sr != SINEW_RESULT_OK) {
            ok = 0;
            break;
        }
        sinew_step_stats st = sinew_body_get_stats(body);
        if (s == 0) {
            r->launch_ms[0] = st.ms_total;
            r->launch_ms[1] = st.ms_solve;
            r->launch_wall_ms = (t1 - t0) * 1e3;
            r->newton_launch = (double)st.newton_iterations / updates;
            continue;
        }
        newton += (double)st.newton_iterations;
        double ms[6] = {st.ms_predict, st.ms_solve, st.ms_contacts, st.ms_velocity, st.ms_residual, st.ms_total};
        for (int k = 0; k < 6; k++)
            sum[k] += ms[k];
        sq += st.ms_total * st.ms_total;
        wall += (t1 - t0) * 1e3;
        r->max_speed = st.max_speed > r->max_speed ? st.max_speed : r->max_speed;
        if (!measured || st.ms_total < r->fastest_ms[0]) {
            r->fastest_ms[0] = st.ms_total;
            r->fastest_ms[1] = st.ms_solve;
        }
        measured++;
    }
    sinew_step_stats st = sinew_body_get_stats(body);
    for (int k = 0; k < 6; k++)
        r->ms[k] = measured ? sum[k] / measured : -1.0;
    r->newton_taken = measured ? newton / (measured * updates) : 0.0; /* as the GPU counted them */
    if (!measured)
        r->fastest_ms[0] = r->fastest_ms[1] = -1.0;
    double var = measured ? sq / measured - r->ms[5] * r->ms[5] : 0.0;
    r->ms_std = var > 0 ? sqrt(var) : 0.0;
    r->wall_ms = measured ? wall / measured : -1.0;
    r->dispatches = st.dispatches;
    r->barriers = st.barriers;
    r->bytes = st.bytes;
    r->device_memory = st.device_memory;
    float *xyz = ok ? malloc(3ull * asset->particle_count * sizeof *xyz) : NULL;
    if (xyz && sinew_body_read_positions(body, xyz, asset->particle_count) == SINEW_RESULT_OK) {
        r->volume_ratio = cube_volume_ratio(asset, xyz);
        r->min_height = INFINITY;
        for (uint32_t i = 0; i < asset->particle_count; i++)
            r->min_height = xyz[3 * i + 1] < r->min_height ? xyz[3 * i + 1] : r->min_height;
    } else {
        ok = 0;
    }
    free(xyz);
    sinew_body_destroy(body);
    return ok;
}

/* The same steps on the CPU double reference (one thread): its wall time, and
 * the Newton iterations its element updates take, which the GPU does not
 * report. */
static void measure_cube_reference(const sinew_asset *asset, run *r)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = r->solver;
    d.substeps = r->substeps;
    d.iterations = r->iterations;
    d.newton_iterations = r->newton;
    r->newton_tolerance = d.newton_tolerance;
    xpbd_ref *ref = xpbd_ref_create(asset, &d);
    const sinew_step_params launch = cube_params(1), p = cube_params(0);
    double wall = 0.0, newton = 0.0;
    uint32_t measured = 0;
    for (uint32_t s = 0; s <= r->steps; s++) {
        double t0 = bench_now_s();
        xpbd_ref_step(ref, s ? &p : &launch);
        double t1 = bench_now_s();
        if (!(xpbd_ref_max_speed(ref) <= d.max_speed)) {
            r->diverged_step = s + 1;
            break;
        }
        if (s == 0) {
            r->launch_wall_ms = (t1 - t0) * 1e3;
            r->newton_launch =
                (double)xpbd_ref_newton_iterations(ref) / ((double)r->substeps * r->iterations * r->tets);
            continue;
        }
        wall += (t1 - t0) * 1e3;
        newton += (double)xpbd_ref_newton_iterations(ref);
        double v = xpbd_ref_max_speed(ref);
        r->max_speed = v > r->max_speed ? v : r->max_speed;
        measured++;
    }
    for (int k = 0; k < 6; k++)
        r->ms[k] = -1.0;
    r->launch_ms[0] = r->launch_ms[1] = -1.0;
    r->wall_ms = measured ? wall / measured : -1.0;
    r->newton_taken = measured ? newton / ((double)measured * r->substeps * r->iterations * r->tets) : 0.0;
    float *xyz = malloc(3ull * asset->particle_count * sizeof *xyz);
    if (xyz) {
        r->min_height = INFINITY;
        for (uint32_t i = 0; i < asset->particle_count; i++) {
            for (int k = 0; k < 3; k++)
                xyz[3 * i + k] = (float)xpbd_ref_position(ref, i)[k];
            r->min_height = xyz[3 * i + 1] < r->min_height ? xyz[3 * i + 1] : r->min_height;
        }
        r->volume_ratio = cube_volume_ratio(asset, xyz);
    }
    free(xyz);
    xpbd_ref_destroy(ref);
}

static void describe_cube(run *r, uint32_t n, const sinew_asset *a, sinew_solver solver, const char *impl,
                          const char *kind, uint32_t newton, uint32_t steps)
{
    describe(r, SCENE_CUBE, n, a, solver, impl, kind, CUBE_SUBSTEPS, CUBE_ITERATIONS, steps);
    r->constraints = a->element_count;
    r->colours = a->element_colour_count;
    r->tets = a->element_count;
    r->newton = newton;
}

/* The cube of size n with both GPBD solvers: the impact at the paper's
 * Newton bound, the CPU reference on small cubes, and on one size the Newton
 * bound swept, to separate the cost of a Newton iteration from the rest. */
int bench_cube(bench *b, const bench_sizes *su, uint32_t n)
{
    sinew_asset *asset = make_cube(n, CUBE_SUBSTEPS, NULL);
    char what[96];
    snprintf(what, sizeof what, "cube %u", n);
    if (!asset) {
        fprintf(stderr, "sinew-bench: cannot build the cube %u^3\n", n);
        return 0;
    }
    for (int s = 0; s < 2; s++) {
        const sinew_solver solver = gpbd_solvers[s];
        for (int v = -1; v < CUBE_NEWTON_SWEEP_COUNT; v++) {
            uint32_t newton = v < 0 ? CUBE_NEWTON : cube_newton_bounds[v];
            if (v >= 0 && (n != su->cube_newton_sweep || newton == CUBE_NEWTON))
                continue;
            run *r = push_run(b);
            if (!r)
                goto fail;
            describe_cube(r, n, asset, solver, "sinew", v < 0 ? "impact" : "newton", newton, su->cube_steps);
            snprintf(what, sizeof what, "cube %u %s newton %u", n, sinew_solver_name(solver), newton);
            if (!measure_cube(b, asset, r))
                goto fail;
            progress(b, what);
        }
        if (n <= su->cube_reference_max) {
            run *r = push_run(b);
            if (!r)
                goto fail;
            describe_cube(r, n, asset, solver, "reference", "impact", CUBE_NEWTON, su->cube_steps);
            snprintf(what, sizeof what, "cube %u %s reference", n, sinew_solver_name(solver));
            measure_cube_reference(asset, r);
            progress(b, what);
        }
    }
    sinew_asset_destroy(asset);
    return 1;
fail:
    fprintf(stderr, "\nsinew-bench: %s failed\n", what);
    sinew_asset_destroy(asset);
    return 0;
}


/* Runs of the cube sizes: per solver the impact, the reference on the small
 * cubes and the Newton bound sweep on one size. */
size_t cube_planned(const bench_sizes *s)
{
    size_t planned = 0;
    for (int k = 0; k < 6 && s->cube[k]; k++)
        planned += 2 * (1 + (s->cube[k] <= s->cube_reference_max) +
                        (s->cube[k] == s->cube_newton_sweep ? CUBE_NEWTON_SWEEP_COUNT - 1 : 0));
    return planned;
}

/* ------------------------------------------------------------------ output */

/* A cube run of size n, solver, implementation, kind and Newton bound. */
static const run *find_cube(const bench *b, uint32_t n, sinew_solver solver, const char *impl, const char *kind,
                            uint32_t newton)
{
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (r->scene == SCENE_CUBE && r->n == n && r->solver == solver && !strcmp(r->impl, impl) &&
            !strcmp(r->kind, kind) && r->newton == newton)
            return r;
    }
    return NULL;
}

/* GPU solve time per tetrahedron and GPBD iteration, ns; negative without timestamps. */
static double cube_ns_per_tet_iteration(const run *r)
{
    return r->ms[1] >= 0 && r->tets ? r->ms[1] * 1e6 / ((double)r->substeps * r->iterations * r->tets) : -1.0;
}

/* Least-squares slope of log(GPU ms per step) on log(tetrahedra), the
 * cube's impact runs of one solver. */
static double cube_scaling_slope(const bench *b, sinew_solver solver, int *points)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (r->scene != SCENE_CUBE || strcmp(r->impl, "sinew") || strcmp(r->kind, "impact") || r->solver != solver ||
            r->diverged_step || !(r->ms[5] > 0))
            continue;
        double x = log((double)r->tets), y = log(r->ms[5]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        k++;
    }
    *points = k;
    return k >= 2 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : NAN;
}

/* The GPBD cube: time per step and per GPBD iteration, per tetrahedron; the
 * Newton iterations the reference takes; the Newton bound sweep; the paper. */
void report_cube(const bench *b, bench_text *t)
{
    uint32_t steps = 0;
    for (size_t i = 0; i < b->count && !steps; i++)
        if (b->runs[i].scene == SCENE_CUBE)
            steps = b->runs[i].steps;
    add(t, "## GPBD: the cube impact of the Generalized PBD paper\n\n"
           "A cube of N^3 vertices and %g m sides, cut into 6 (N-1)^3 tetrahedra (`sinew_volume_box`), neo-Hookean "
           "(E 1 MPa, nu 0.45, 1000 kg/m^3; `sinew_soft_build`, balanced element colouring), falls onto the ground "
           "(friction 0.3): a launch step gives it the speed of a %g m fall (%.2f m/s) and leaves it %g m above the "
           "ground, and the %u steps that follow, the impact, are measured (mean; noise: standard deviation of a "
           "step). Time step 1/60 s, %u substep, %u GPBD iterations, Newton at most %u iterations per element update "
           "(early exit once |gradient| <= 1e-3 of its value at the start), as in the paper's table 1; health check "
           "and rollback copy on. GPU times are timestamps; ms/iteration and the costs per tetrahedron divide the "
           "solve phase only (no predict, contacts, velocities or checks). \"Free flight\" is the launch step: every "
           "element at rest.\n\n",
        CUBE_SIZE, CUBE_DROP, cube_speed(), CUBE_GAP, steps, CUBE_SUBSTEPS, CUBE_ITERATIONS, CUBE_NEWTON);
    add(t, "| N^3 | tets | solver | element colours | GPU ms/step | noise | fastest step | GPU ms/iteration | "
           "ns/tet/iteration | fastest step | ns/tet/Newton (bound) | ns/tet/Newton (taken) | wall ms/step | "
           "free flight GPU ms/step | dispatches | barriers | memory MiB | volume | max speed m/s |\n");
    add(t, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (r->scene != SCENE_CUBE || strcmp(r->impl, "sinew") || strcmp(r->kind, "impact"))
            continue;
        if (r->diverged_step) {
            add(t, "| %u | %u | %s | %u | diverged at step %u | | | | | | | | | | %u | %u | %.2f | | |\n", r->n,
                r->tets, sinew_solver_name(r->solver), r->colours, r->diverged_step, r->dispatches, r->barriers,
                r->device_memory / 1048576.0);
            continue;
        }
        const run *ref = find_cube(b, r->n, r->solver, "reference", "impact", r->newton);
        double ns = cube_ns_per_tet_iteration(r);
        char taken[32] = "";
        if (r->newton_taken > 0) /* the GPU's own count (sinew_step_stats.newton_iterations) */
            snprintf(taken, sizeof taken, "%.0f", ns / r->newton_taken);
        else if (ref && !ref->diverged_step && ref->newton_taken > 0)
            snprintf(taken, sizeof taken, "%.0f (ref)", ns / ref->newton_taken);
        double iters = (double)r->substeps * r->iterations;
        add(t, "| %u | %u | %s | %u | %.3f | %.1f%% | %.3f | %.3f | %.0f | %.0f | %.0f | %s | %.3f | %.3f | %u | %u | "
               "%.2f | %.3f | %.2f |\n",
            r->n, r->tets, sinew_solver_name(r->solver), r->colours, r->ms[5],
            r->ms[5] > 0 ? 100.0 * r->ms_std / r->ms[5] : 0.0, r->fastest_ms[0], r->ms[1] / iters, ns,
            r->fastest_ms[1] * 1e6 / (iters * r->tets), ns / r->newton, taken, r->wall_ms, r->launch_ms[0],
            r->dispatches, r->barriers, r->device_memory / 1048576.0, r->volume_ratio, r->max_speed);
    }
    int points;
    add(t, "\nFastest step: the GPU time of the fastest measured step, and its cost per tetrahedron and GPBD "
           "iteration: on a CPU device shared with other work, the least disturbed estimate. ns/tet/Newton divides "
           "the (mean) time per tetrahedron and GPBD iteration by the Newton bound (%u: a lower "
           "bound of the cost of one, since an update may exit early) or by the mean count the GPU took in the "
           "same steps (sinew_step_stats.newton_iterations; the CPU reference's count, below, marked ref, where "
           "the GPU's is missing). "
           "Volume: the tetrahedra's volume after the measured steps over their rest volume. Scaling, "
           "least-squares slope of log(GPU ms/step) on log(tets): Gauss-Seidel %.2f, ",
        CUBE_NEWTON, cube_scaling_slope(b, SINEW_SOLVER_GPBD_GAUSS_SEIDEL, &points));
    add(t, "Jacobi %.2f (1 = linear).\n\n![cube scaling](cube_scaling.png)\n\n",
        cube_scaling_slope(b, SINEW_SOLVER_GPBD_JACOBI, &points));

    int any_ref = 0;
    for (size_t i = 0; i < b->count; i++)
        any_ref |= b->runs[i].scene == SCENE_CUBE && !strcmp(b->runs[i].impl, "reference");
    if (any_ref) {
        add(t, "### Newton iterations taken (CPU double reference)\n\nThe same steps on the CPU reference (double "
               "precision, one thread; `tests/ref`): the mean Newton iterations per element update (bound %u), "
               "in the impact steps and in free flight, and its wall time.\n\n", CUBE_NEWTON);
        add(t, "| N^3 | tets | solver | Newton per update, impact | free flight | CPU ms/step | volume | "
               "max speed m/s |\n|---|---|---|---|---|---|---|---|\n");
        for (size_t i = 0; i < b->count; i++) {
            const run *r = &b->runs[i];
            if (r->scene != SCENE_CUBE || strcmp(r->impl, "reference"))
                continue;
            if (r->diverged_step)
                add(t, "| %u | %u | %s | diverged at step %u | | | | |\n", r->n, r->tets, sinew_solver_name(r->solver),
                    r->diverged_step);
            else
                add(t, "| %u | %u | %s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", r->n, r->tets, sinew_solver_name(r->solver),
                    r->newton_taken, r->newton_launch, r->wall_ms, r->volume_ratio, r->max_speed);
        }
        add(t, "\n");
    }

    uint32_t n = 0; /* the size with the Newton bound sweep */
    for (size_t i = 0; i < b->count && !n; i++)
        if (b->runs[i].scene == SCENE_CUBE && !strcmp(b->runs[i].kind, "newton"))
            n = b->runs[i].n;
    if (n) {
        add(t, "### Newton bound (%u^3)\n\nThe same impact with the Newton bound swept (%u is the paper's, %u "
               "sinew's default): what a Newton iteration costs next to the rest of an element update.\n\n",
            n, CUBE_NEWTON, sinew_body_desc_default().newton_iterations);
        add(t, "| solver | Newton bound | GPU ms/step | noise | ns/tet/iteration | free flight GPU ms/step | "
               "free flight ns/tet/iteration |\n|---|---|---|---|---|---|---|\n");
        for (int sv = 0; sv < 2; sv++)
            for (int v = 0; v < CUBE_NEWTON_SWEEP_COUNT; v++) {
                uint32_t bound = cube_newton_bounds[v];
                const run *r = find_cube(b, n, gpbd_solvers[sv], "sinew", bound == CUBE_NEWTON ? "impact" : "newton",
                                         bound);
                if (!r)
                    continue;
                if (r->diverged_step) {
                    add(t, "| %s | %u | diverged at step %u | | | | |\n", sinew_solver_name(r->solver), bound,
                        r->diverged_step);
                    continue;
                }
                double iters = (double)r->substeps * r->iterations;
                add(t, "| %s | %u | %.3f | %.1f%% | %.0f | %.3f | %.0f |\n", sinew_solver_name(r->solver), bound, r->ms[5],
                    r->ms[5] > 0 ? 100.0 * r->ms_std / r->ms[5] : 0.0, cube_ns_per_tet_iteration(r), r->launch_ms[0],
                    r->launch_ms[1] >= 0 ? r->launch_ms[1] * 1e6 / (iters * r->tets) : -1.0);
            }
        add(t, "\n");
    }

    add(t, "### Against the paper\n\nThe paper (Towards Generalized Position-Based Dynamics, table 1) reports "
           "%.3f ms per step for this scene at %u^3 (93 750 tetrahedra, 3 GPBD / 3 Newton iterations): CUDA "
           "kernels only, on an NVIDIA RTX 4080, that is %.2f ns per tetrahedron and GPBD iteration. Its cube's "
           "size, material and time step are not given, so the scenes agree in mesh and iteration counts only.\n\n",
        PAPER_CUBE_MS, PAPER_CUBE_N, PAPER_CUBE_MS * 1e6 / (3.0 * 93750.0));
    int any26 = 0;
    for (int sv = 0; sv < 2; sv++) {
        const run *r = find_cube(b, PAPER_CUBE_N, gpbd_solvers[sv], "sinew", "impact", CUBE_NEWTON);
        if (!r || r->diverged_step || !(r->ms[5] > 0))
            continue;
        if (!any26)
            add(t, "| solver | GPU ms/step here | paper | here / paper |\n|---|---|---|---|\n");
        any26 = 1;
        add(t, "| %s | %.3f | %.3f | %.0f |\n", sinew_solver_name(r->solver), r->ms[5], PAPER_CUBE_MS,
            r->ms[5] / PAPER_CUBE_MS);
    }
    add(t, "%sThe devices differ by orders of magnitude, so the ratio measures the devices more than the "
           "implementations; the costs per tetrahedron above, times the tetrahedra and GPBD iterations of a scene, "
           "plus the fixed cost of a step (predict, contacts, velocities, checks: the GPU ms/step less the solve), "
           "extrapolate to other sizes on the same device.\n\n", any26 ? "\n" : "");
}

/* gnuplot: GPU ms per GPBD iteration (solve phase) against tetrahedra, both
 * GPBD solvers, and the paper's point. */
void plot_cube(const bench *b, const char *out)
{
    char path[4096], dat[4096];
    snprintf(dat, sizeof dat, "%s/cube_scaling.dat", out);
    FILE *f = NULL;
    int blocks = 0;
    for (int sv = 0; sv < 2; sv++) {
        int any = 0;
        for (size_t i = 0; i < b->count; i++) {
            const run *r = &b->runs[i];
            if (r->scene != SCENE_CUBE || strcmp(r->impl, "sinew") || strcmp(r->kind, "impact") ||
                r->solver != gpbd_solvers[sv] || r->diverged_step || !(r->ms[1] > 0))
                continue;
            if (!f && !(f = fopen(dat, "w")))
                return;
            fprintf(f, "%u %g\n", r->tets, r->ms[1] / (r->substeps * r->iterations));
            any = 1;
        }
        if (any)
            fprintf(f, "\n\n");
        blocks += any;
    }
    if (!f)
        return;
    fprintf(f, "%u %g\n", 93750u, PAPER_CUBE_MS / 3.0); /* the whole step over 3 iterations */
    fclose(f);
    char script[4096];
    int len = snprintf(script, sizeof script,
                       "set terminal pngcairo size 800,560\nset output '%s/cube_scaling.png'\nset logscale xy\n"
                       "set xlabel 'tetrahedra'\nset ylabel 'GPU ms per GPBD iteration (solve)'\nset grid\n"
                       "set key left top\nset offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n"
                       "set title 'GPBD cube impact: cost against size'\nplot ",
                       out);
    int block = 0;
    for (int sv = 0; sv < 2; sv++) {
        int any = 0;
        for (size_t i = 0; i < b->count && !any; i++)
            any = b->runs[i].scene == SCENE_CUBE && !strcmp(b->runs[i].impl, "sinew") &&
                  !strcmp(b->runs[i].kind, "impact") && b->runs[i].solver == gpbd_solvers[sv] &&
                  !b->runs[i].diverged_step && b->runs[i].ms[1] > 0;
        if (!any)
            continue;
        len += snprintf(script + len, sizeof script - (size_t)len, "'%s' index %d with linespoints title '%s', ", dat,
                        block++, sinew_solver_label(gpbd_solvers[sv]));
    }
    snprintf(script + len, sizeof script - (size_t)len,
             "'%s' index %d with points pt 7 ps 1.5 title 'paper, RTX 4080 (whole step / 3)'\n", dat, blocks);
    snprintf(path, sizeof path, "%s/cube_scaling.gp", out);
    if (bench_write_text(path, script))
        bench_gnuplot(path);
}

/* bench.json: each solver's scaling slope, keyed by its name, and the paper's cube. */
void cube_json(const bench *b, cJSON *root)
{
    int points, cubes_run = 0;
    for (size_t i = 0; i < b->count; i++)
        cubes_run |= b->runs[i].scene == SCENE_CUBE;
    if (!cubes_run)
        return;
    cJSON *cs = cJSON_AddObjectToObject(root, "cube_scaling_slope"); /* log ms/step on log tets */
    for (int sv = 0; sv < 2; sv++)
        cJSON_AddNumberToObject(cs, sinew_solver_name(gpbd_solvers[sv]), cube_scaling_slope(b, gpbd_solvers[sv], &points));
    cJSON *paper = cJSON_AddObjectToObject(root, "paper_cube");
    cJSON_AddStringToObject(paper, "source", "Towards Generalized Position-Based Dynamics, table 1");
    cJSON_AddStringToObject(paper, "device", "NVIDIA RTX 4080 (CUDA kernels only)");
    cJSON_AddNumberToObject(paper, "n", PAPER_CUBE_N);
    cJSON_AddNumberToObject(paper, "tets", 93750);
    cJSON_AddNumberToObject(paper, "gpbd_iterations", 3);
    cJSON_AddNumberToObject(paper, "newton_iterations", 3);
    cJSON_AddNumberToObject(paper, "ms_per_step", PAPER_CUBE_MS);
}
