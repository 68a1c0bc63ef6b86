/* sinew-bench: the measurements every performance claim of sinew rests on.
 *
 * For each suite scene and size and each solver it measures, on the device:
 *   timing    GPU time per step and per phase (timestamps), wall time, dispatches,
 *             barriers, designed bytes per step against the probe's bandwidth,
 *             device memory, strain reached;
 *   accuracy  strain after 2 s against time per step, sweeping substeps and
 *             iterations (time to accuracy);
 *   scaling   time per step against particle count, with the fitted slope;
 * plus the CPU double-precision reference (one thread) on the same scenes and,
 * from JSONL files (tools/peers/), other simulators on the peer scene.
 * The gpbd suite is the cube impact scene of Generalized PBD (Towards
 * Generalized Position-Based Dynamics, table 1: a neo-Hookean cube of 26^3
 * vertices hitting the ground, 3 GPBD and 3 Newton iterations) at that size
 * and smaller ones: time per step and per GPBD iteration, per tetrahedron and
 * Newton iteration, for both GPBD solvers, and the Newton iterations the CPU
 * reference takes on the small cubes.
 * The hpbd suite is figure 7 of Hierarchical Position Based Dynamics (Müller
 * 2008, section 9): a triangulated cloth of 77 x 77 particles (11 552
 * triangles) hanging from its top row at 60 steps per second, the hierarchy
 * with 2 iterations against plain Gauss-Seidel at 2, 5, 10, 20 iterations and
 * on up until it is as stiff: stretch and time per step, and the plain
 * iteration count and time ratio at equal stretch beside the paper's.
 * The pd suite is figures 3 and 4 of the red-black mass-spring paper (Pall et
 * al.; tools/bench_pd.c).
 * Writes a table, bench.json, gnuplot plots and README.md into the out folder.
 */
#define _POSIX_C_SOURCE 200809L
#include <sinew/sinew.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_implicit.h"
#include "bench_pd.h"
#include "cli.h"
#include "core/log.h"
#include "prep/cloth.h"
#include "prep/hierarchy.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "ref/xpbd_ref.h"
#include "bench_collider.h"
#include "bench_mgpbd.h"
#include "host_load.h"

static const char *const usage =
    "usage: sinew-bench [--suite quick|gpu|gpbd|hpbd|pd|implicit|collider|mgpbd|all] [options]\n"
    "\n"
    "Measures sinew's solvers on standard scenes: time per step and per phase on\n"
    "the GPU, strain reached, time to accuracy, scaling with particle count, the\n"
    "device's own bandwidth and dispatch cost; peers side by side.\n"
    "\n"
    "  --suite NAME       quick (lavapipe, minutes), gpu (real GPUs), gpbd (the GPBD paper's\n"
    "                     cube impact, 6^3 to 26^3 vertices), hpbd (the HPBD paper's figure 7:\n"
    "                     a 77 x 77 cloth, the hierarchy with 2 iterations against plain\n"
    "                     Gauss-Seidel at 2, 5, 10, 20, ... iterations until as stiff),\n"
    "                     pd (the red-black mass-spring paper's figures 3 and 4: a 100 x 100\n"
    "                     network shrinking back and hanging, red-black Gauss-Seidel, Jacobi,\n"
    "                     Chebyshev and serial CPU Gauss-Seidel at 11 iterations per frame\n"
    "                     and at equal time per frame; its own README.md, CSV files, plots),\n"
    "                     implicit (the constrainable multigrid paper's table 1: implicit\n"
    "                     cloth swinging and falling on a sphere, multigrid V-cycles against\n"
    "                     modified PCG to 1e-4, 2401 to 37 249 particles; own README.md,\n"
    "                     CSV, plot), collider (a mesh collider's distance field: build time\n"
    "                     and memory for an icosphere and CGAL's models at 32-128 cells, and\n"
    "                     its contacts' GPU time against the analytic sphere; own README.md,\n"
    "                     CSV; CGAL's models from SINEW_CGAL_DATA), mgpbd (the MGPBD paper's\n"
    "                     convergence: one stiff 10 ms step of a squashed CGAL model at several\n"
    "                     sizes and of a twisted bar, MGPBD's dual residual against outer\n"
    "                     iterations and time beside XPBD's against sweeps; memory per tet;\n"
    "                     own README.md, bench.json, plots), all (every scene of the others but\n"
    "                     pd, implicit, collider and mgpbd; default quick)\n"
    "  -o, --out DIR      where bench.json, plots and README.md go (default ./sinew-bench-out)\n"
    "  --peers FILE       JSONL of peer runs (tools/peers/run.sh); may repeat\n"
    "  --device NAME|INDEX  Vulkan device\n"
    "  --validation       run with validation layers (slow; for dry runs)\n"
    "  --no-plots         do not call gnuplot\n"
    "  --report FILE      make README.md and plots again from a bench.json (with any\n"
    "                     --peers added), e.g. one written on a GPU machine\n"
    "  --compare FILE     add a run-to-run table against an earlier bench.json\n"
    "  --dry-run          the suite's every scene, solver and sweep on tiny sizes, to\n"
    "                     check a set-up (e.g. the gpu suite on lavapipe) in seconds (hpbd:\n"
    "                     a 17 x 17 cloth, 30 steps, plain Gauss-Seidel up to 32 iterations)\n"
    "  --cube N           GPBD cube of N^3 vertices, in place of the suite's cube sizes;\n"
    "                     may repeat (e.g. --suite gpbd --cube 26: the paper's size only)\n"
    "  --steps N          measured impact steps per cube run (gpbd suite: 4); implicit: steps\n"
    "                     counted per run (default 10; dry run 2); collider: timed steps\n"
    "                     (default 60)\n"
    "  --subdivisions L   implicit: comma-separated subdivision counts of the 12 x 12-quad\n"
    "                     square, up to 4 (default 2,3,4: 2401, 9409, 37 249 particles)\n"
    "  --frames N         pd: frames of every run (default 300; dry run 8)\n"
    "  --budget-ms T      pd: time per frame of the equal-time runs (default: what red-black\n"
    "                     Gauss-Seidel takes for 11 iterations on the device)\n"
    "  --pd-n N           pd: particles per side (default 100; dry run 12)\n"
    "  --pd-stiffness K   pd: N/m of every spring (default 1e4)\n"
    "  --tets N           mgpbd: a target tetrahedron count of the model, met through TetGen's\n"
    "                     max volume (its surface alone sets a floor: 27 474 for elephant.off);\n"
    "                     may repeat, up to 8 (default 30000); 0: the bar alone\n"
    "  --model FILE       mgpbd: a closed surface, in SINEW_CGAL_DATA/meshes or a path with a\n"
    "                     '/' (default elephant.off; dry run ellipsoid.off)\n"
    "  --quality Q        mgpbd: TetGen's radius-edge bound (-q; default 2; dry run 0: none,\n"
    "                     which leaves slivers)\n"
    "  --lambda-full      mgpbd: lambda takes all of each dlambda; the line search halves the\n"
    "                     positions' step only (the paper's code)\n"
    "  --cheby-upper U    mgpbd: the Chebyshev smoother's upper bound, U times the estimate of\n"
    "                     rho(D^-1 A) made at setup (default 1.1)\n"
    "  --keep-rho         mgpbd: lazy iterations keep the setup's rho(D^-1 A) (refresh_rho 0)\n"
    "  --coarse-gram      mgpbd: lazy coarse operators in the Gram form X W X^T (default: the\n"
    "                     products R (A P))\n"
    "  --lattice          mgpbd: the model as lattice cubes of 6 tetrahedra (evenly sized; the\n"
    "                     cells from --tets), not by TetGen\n"
    "  --squash S         mgpbd: the model starts at S of its height (default 0.6; the\n"
    "                     paper's code flattens it: 0)\n"
    "  --particle-mass M  mgpbd: M kg every free particle (default 0: density 1000 kg/m^3;\n"
    "                     the paper's code, given no density, 1)\n"
    "  --bar-cells N      mgpbd: cells across the twisted bar, 5 N along it (default 8;\n"
    "                     0: no bar)\n"
    "  --outer N          mgpbd: most MGPBD outer iterations a run (default 100)\n"
    "  --outer-budget S   mgpbd: ... or until they have taken S seconds (default 300; 0: none)\n"
    "  --xpbd-sweeps N    mgpbd: most XPBD sweeps a run (default 10000)\n"
    "  --xpbd-budget S    mgpbd: ... or the first sample past S seconds (default 300; 0: none)\n"
    "  --xpbd-jacobi W    mgpbd: XPBD's Jacobi variant with weight W in (0, 1] (the paper's code:\n"
    "                     0.1) instead of Gauss-Seidel over the colours\n"
    "  --pcg-iterations N, --pcg-tolerance T, --setup-interval N  mgpbd: the solver's knobs\n"
    "                     (sinew_mgpbd_desc; default its defaults: 20, 1e-3, 20 frames)\n"
    "  --export-matrices DIR  mgpbd: each run's first dual system as DIR/NAME.mtx and\n"
    "                     NAME.b.mtx (for tools/peers/amg.sh), and sinew's AMG and Jacobi CG\n"
    "                     on it in double on the host, into DIR/sinew-amg.jsonl\n"
    "  -h, --help         this text\n";

/* ------------------------------------------------------------------ scenes */

typedef enum scene_kind { SCENE_HANGING, SCENE_SPHERE, SCENE_QUADNET, SCENE_CUBE, SCENE_SHEET } scene_kind;
static const char *const scene_names[] = {"hanging", "sphere", "quadnet", "cube", "sheet"};
static const char *const scene_titles[] = {
    "cloth hanging from two corners (stretch, shear, bending)",
    "cloth dropped on a sphere (contacts and friction)",
    "quad mass-spring network hanging from two corners (stretch only)",
    "neo-Hookean cube of N^3 vertices hitting the ground (GPBD)",
    "triangulated cloth hanging from its top row (HPBD, Mueller 2008 figure 7)",
};

typedef struct suite {
    const char *name;
    uint32_t hanging[8], sphere[4], quadnet[2]; /* sizes N (N x N particles), 0-terminated */
    uint32_t sweep[4];                          /* hanging sizes with accuracy sweeps */
    uint32_t reference[4];                      /* hanging sizes with the CPU reference */
    uint32_t sweep_max;                         /* largest substep / iteration count swept */
    uint32_t cube[6];                           /* GPBD cube sizes N (N^3 vertices), 0-terminated */
    uint32_t cube_steps;                        /* measured impact steps per cube run */
    uint32_t cube_reference_max;                /* the CPU reference runs on cubes up to this N */
    uint32_t cube_newton_sweep;                 /* the cube size with the Newton bound sweep; 0: none */
    uint32_t sheet;                             /* HPBD figure 7 cloth of N x N particles; 0: none */
    uint32_t sheet_steps;                       /* steps of each sheet run from rest */
    uint32_t sheet_iterations_max;              /* plain Gauss-Seidel iterations tried at most */
} suite;

#define CUBE_STEPS 4u /* measured impact steps of the gpbd suite (--steps) */
#define SHEET_N 77u        /* particles per side: 76 rows of quads, 11 552 triangles */
#define SHEET_STEPS 180u   /* 3 s from rest */
#define SHEET_MAX 128u     /* plain Gauss-Seidel iterations tried at most */

static const suite suites[] = {
    {"quick", {32, 64, 128, 256}, {64}, {100}, {32, 64}, {32, 64}, 32, {0}, 0, 0, 0, 0, 0, 0},
    {"gpu", {32, 64, 128, 256, 512}, {128, 256}, {100}, {64, 128, 256}, {32, 64}, 32, {0}, 0, 0, 0, 0, 0, 0},
    {"gpbd", {0}, {0}, {0}, {0}, {0}, 0, {6, 11, 16, 26}, CUBE_STEPS, 26, 11, 0, 0, 0},
    {"hpbd", {0}, {0}, {0}, {0}, {0}, 0, {0}, 0, 0, 0, SHEET_N, SHEET_STEPS, SHEET_MAX},
    {"all", {32, 64, 128, 256, 512}, {64, 128, 256}, {100}, {32, 64, 128, 256}, {32, 64}, 32, {6, 11, 16, 26},
     CUBE_STEPS, 26, 11, SHEET_N, SHEET_STEPS, SHEET_MAX},
};

static const float DT = 1.0f / 60.0f;
static const uint32_t ACCURACY_STEPS = 120; /* the peer scene: 2 s */

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
#define SHEET_DAMPING 1.0f  /* 1/s */
#define SHEET_WINDOW 60u    /* steps at the end whose stretch is averaged: the last second */
#define HPBD_LEVELS 5u      /* levels of the hierarchy, level 0 included */
#define HPBD_K 2u           /* parents of each fine particle */
#define HPBD_ITERATIONS 2u  /* level-0 iterations after the coarse levels, the paper's */
#define SHEET_MAX_LEVELS 8
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

static sinew_step_params scene_params(scene_kind kind)
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

/* Accuracy runs report the strain over the last second rather than at one
 * instant: a swinging cloth's momentary strain swings with it. */
#define ERROR_WINDOW 60u

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

/* ------------------------------------------------------------------ runs */

struct run;
static int is_sweep(const struct run *r);

typedef struct run {
    const char *impl;        /* "sinew" (GPU) or "reference" (CPU double, 1 thread) */
    const char *kind;        /* "timing", "substeps", "iterations"; "unguarded": timing without the
                                health check and rollback copy, to measure what they cost; "impact":
                                the GPBD cube (and "newton": the same sweeping the Newton bound); "stretch":
                                the HPBD sheet */
    scene_kind scene;
    uint32_t n, particles, constraints, colours;
    sinew_solver solver;
    uint32_t substeps, iterations, steps;
    double ms[6], ms_std;    /* predict solve contacts velocity residual total; std of total */
    double wall_ms;
    uint32_t dispatches, barriers;
    uint64_t bytes, device_memory;
    double max_strain, rms_strain;
    uint32_t diverged_step;  /* the step that failed the health check; 0: none */
    /* GPBD cube runs */
    uint32_t tets, newton;   /* tetrahedra; Newton iterations at most per element update */
    double newton_tolerance;
    double launch_ms[2], launch_wall_ms; /* the launch step (free flight): GPU total and solve; wall */
    double fastest_ms[2];    /* the fastest measured step: GPU total and solve (on a shared CPU
                                device, the least disturbed) */
    double newton_taken;     /* mean Newton iterations per element update (GPU: its count; reference: its
                                own); 0: not measured */
    double newton_launch;    /* the same in the launch step (free flight) */
    double volume_ratio, min_height, max_speed; /* after the measured steps */
    /* HPBD sheet runs */
    double stretch, largest;  /* mean and largest elongation, each averaged over the window */
    uint32_t window;          /* the last steps whose elongation is averaged */
    uint32_t levels;          /* hierarchy levels, level 0 included; 0: no hierarchy */
    uint32_t level_particles[SHEET_MAX_LEVELS], level_constraints[SHEET_MAX_LEVELS];
} run;

static int is_sweep(const run *r) { return !strcmp(r->kind, "substeps") || !strcmp(r->kind, "iterations"); }

static void window_result(const window *w, run *r)
{
    r->max_strain = w->max;
    r->rms_strain = w->count ? w->rms_sum / w->count : 0.0;
}

typedef struct bench {
    sinew_context *ctx;
    sinew_device_probe probe;
    run *runs;
    size_t count, cap;
    size_t planned, done;
    /* The host: its CPUs, and how many of them other processes kept busy on
     * average while the runs went (negative: unknown). On a CPU device
     * (lavapipe) the times grow with that share. */
    int cpus;
    double other_cpus;
} bench;


static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Messages of the library, as the default logger prints them; except that a
 * failed health check (id "health") is a result here, recorded in the run. */
static void on_log(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    if (!strcmp(id, "health"))
        return;
    fprintf(stderr, "\nsinew %s [%s]: %s\n", level == SINEW_LOG_ERROR ? "error" : "warning", id, message);
}

static void progress(bench *b, const char *what)
{
    b->done++;
    int width = 30, bar = b->planned ? (int)(width * b->done / b->planned) : width;
    fprintf(stderr, "\r[%.*s%*s] %3zu/%zu %-48.48s", bar, "##############################", width - bar, "", b->done,
            b->planned, what);
    if (b->done == b->planned)
        fprintf(stderr, "\n");
    fflush(stderr);
}

static run *push_run(bench *b)
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

static const char *const solver_names[] = {"xpbd-gs", "xpbd-jacobi", "xpbd-sgs", "gpbd-gs", "gpbd-jacobi", "hpbd"};

static const char *solver_name(sinew_solver s)
{
    return (unsigned)s < sizeof solver_names / sizeof solver_names[0] ? solver_names[s] : "?";
}

static sinew_solver solver_from_name(const char *name)
{
    for (size_t k = 0; k < sizeof solver_names / sizeof solver_names[0]; k++)
        if (!strcmp(name, solver_names[k]))
            return (sinew_solver)k;
    return SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
}

/* Steps a GPU body; timing runs measure `steps` steps after a warm-up. */
static int measure_gpu(bench *b, const sinew_asset *asset, run *r, uint32_t warmup)
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
        double t0 = now_s();
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
        double t1 = now_s();
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

static void measure_reference(const sinew_asset *asset, run *r)
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
        double t0 = now_s();
        xpbd_ref_step(ref, &p);
        if (s >= 10)
            wall += (now_s() - t0) * 1e3;
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
        double t0 = now_s();
        sinew_result sr = sinew_body_step(body, s ? &p : &launch);
        double t1 = now_s();
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
        double t0 = now_s();
        xpbd_ref_step(ref, s ? &p : &launch);
        double t1 = now_s();
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

static void describe(run *r, scene_kind scene, uint32_t n, const sinew_asset *a, sinew_solver solver,
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

static void describe_cube(run *r, uint32_t n, const sinew_asset *a, sinew_solver solver, const char *impl,
                          const char *kind, uint32_t newton, uint32_t steps)
{
    describe(r, SCENE_CUBE, n, a, solver, impl, kind, CUBE_SUBSTEPS, CUBE_ITERATIONS, steps);
    r->constraints = a->element_count;
    r->colours = a->element_colour_count;
    r->tets = a->element_count;
    r->newton = newton;
}

static const uint32_t sweep_values[] = {1, 2, 4, 8, 16, 32};
#define SWEEP_COUNT 6

/* Everything measured on one scene and size. */
/* The rounds of a suite: the timing runs twice, before and after the
 * accuracy sweeps, so that the noise a timing states includes the drift of
 * the machine over the minutes a suite takes, not only the scatter of steps. */
typedef enum round_kind { ROUND_TIMING, ROUND_SWEEPS, ROUND_TIMING_AGAIN } round_kind;

static run *find_timing(bench *b, scene_kind scene, uint32_t n, sinew_solver solver)
{
    for (size_t i = 0; i < b->count; i++) {
        run *r = &b->runs[i];
        if (!strcmp(r->kind, "timing") && r->scene == scene && r->n == n && r->solver == solver)
            return r;
    }
    return NULL;
}

/* Folds a second timing of the same configuration into the first: the mean of
 * the two, and a noise that adds the spread between them to the scatter
 * within them. */
static void merge_timing(run *first, const run *again)
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

static int bench_scene(bench *b, const suite *su, round_kind round, scene_kind scene, uint32_t n, int sweep,
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
        sinew_solver solver = s ? SINEW_SOLVER_XPBD_JACOBI : SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
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
            snprintf(what, sizeof what, "%s %u %s timing", scene_names[scene], n, solver_name(solver));
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
                snprintf(what, sizeof what, "%s %u %s unguarded", scene_names[scene], n, solver_name(solver));
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
                snprintf(what, sizeof what, "%s %u %s %ux%u", scene_names[scene], n, solver_name(solver), sub, it);
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

/* The cube of size n with both GPBD solvers: the impact at the paper's
 * Newton bound, the CPU reference on small cubes, and on one size the Newton
 * bound swept, to separate the cost of a Newton iteration from the rest. */
static int bench_cube(bench *b, const suite *su, uint32_t n)
{
    sinew_asset *asset = make_cube(n, CUBE_SUBSTEPS, NULL);
    char what[96];
    snprintf(what, sizeof what, "cube %u", n);
    if (!asset) {
        fprintf(stderr, "sinew-bench: cannot build the cube %u^3\n", n);
        return 0;
    }
    for (int s = 0; s < 2; s++) {
        sinew_solver solver = s ? SINEW_SOLVER_GPBD_JACOBI : SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
        for (int v = -1; v < CUBE_NEWTON_SWEEP_COUNT; v++) {
            uint32_t newton = v < 0 ? CUBE_NEWTON : cube_newton_bounds[v];
            if (v >= 0 && (n != su->cube_newton_sweep || newton == CUBE_NEWTON))
                continue;
            run *r = push_run(b);
            if (!r)
                goto fail;
            describe_cube(r, n, asset, solver, "sinew", v < 0 ? "impact" : "newton", newton, su->cube_steps);
            snprintf(what, sizeof what, "cube %u %s newton %u", n, solver_name(solver), newton);
            if (!measure_cube(b, asset, r))
                goto fail;
            progress(b, what);
        }
        if (n <= su->cube_reference_max) {
            run *r = push_run(b);
            if (!r)
                goto fail;
            describe_cube(r, n, asset, solver, "reference", "impact", CUBE_NEWTON, su->cube_steps);
            snprintf(what, sizeof what, "cube %u %s reference", n, solver_name(solver));
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

/* Runs of the ladder of plain Gauss-Seidel iteration counts within the cap. */
static uint32_t sheet_ladder(const suite *su)
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
static int bench_sheet(bench *b, const suite *su)
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
        snprintf(what, sizeof what, "sheet %u %s %u iterations", n, solver_name(solver), iterations);
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
        snprintf(what, sizeof what, "sheet %u %s %u iterations again", n, solver_name(r->solver), r->iterations);
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

/* ------------------------------------------------------------------ output */

static int contains(const uint32_t *list, size_t len, uint32_t v)
{
    for (size_t i = 0; i < len && list[i]; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

/* Least-squares slope of log(ms) against log(particles), timing runs of one
 * solver on the hanging scene. */
static double scaling_slope(const bench *b, sinew_solver solver, int *points)
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
    cJSON_AddStringToObject(o, "solver", solver_name(r->solver));
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
        cJSON_AddNumberToObject(o, "bytes_per_step", (double)r->bytes);
        double bps = r->ms[5] > 0 ? r->bytes / (r->ms[5] * 1e-3) : 0.0;
        cJSON_AddNumberToObject(o, "achieved_bytes_per_s", bps);
        cJSON_AddNumberToObject(o, "fraction_of_probe_bandwidth",
                                b->probe.copy_bytes_per_s > 0 ? bps / b->probe.copy_bytes_per_s : 0.0);
        cJSON_AddNumberToObject(o, "device_memory", (double)r->device_memory);
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

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "sinew-bench: cannot write %s: %s\n", path, strerror(errno));
        if (f)
            fclose(f);
        return 0;
    }
    return 1;
}

/* Peers: one JSON object per line, as tools/peers/SCENE.md defines. */
static cJSON *read_peers(const char *const *files, int count)
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

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsString(v) ? v->valuestring : "?";
}
static double jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* gnuplot: strain against time per step on the hanging scene, one curve per
 * implementation, solver and sweep; and the scaling plot. */
static void plot(const bench *b, const cJSON *peers, const char *out, const suite *s)
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
                            strcmp(r->kind, kinds[ki]) || (int)r->solver != sv)
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
                                            solver_name((sinew_solver)sv), kinds[ki]);
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
        if (block && write_text(path, script)) {
            char cmd[4200];
            snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", path);
            if (system(cmd) != 0)
                fprintf(stderr, "sinew-bench: gnuplot failed on %s (is gnuplot installed?)\n", path);
        }
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
                (int)r->solver == sv)
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
             "plot '%s' index 0 with linespoints title 'XPBD Gauss-Seidel (slope %.2f)', "
             "'%s' index 1 with linespoints title 'XPBD Jacobi (slope %.2f)'\n",
             out, path, scaling_slope(b, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, &k), path,
             scaling_slope(b, SINEW_SOLVER_XPBD_JACOBI, &k));
    snprintf(path, sizeof path, "%s/scaling.gp", out);
    if (write_text(path, script)) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", path);
        if (system(cmd) != 0)
            fprintf(stderr, "sinew-bench: gnuplot failed on %s (is gnuplot installed?)\n", path);
    }
}

/* Appends printf-formatted text to a growing buffer. */
typedef struct text { char *s; size_t len, cap; } text;
static void add(text *t, const char *fmt, ...) SINEW_PRINTF(2, 3);
static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap + (size_t)n + 1) * 2;
        char *s = realloc(t->s, cap);
        if (!s)
            return;
        t->s = s;
        t->cap = cap;
    }
}

/* The cloth scenes: time per step, health check cost, scaling, accuracy. */
static void report_cloth(const bench *b, const cJSON *peers, const suite *s, text *t)
{
    add(t, "- time step 1/60 s; timing runs: 8 substeps x 1 iteration, 20 steps after 3 warm-up steps (8 from "
           "256 x 256), measured twice, before and after the accuracy sweeps; the time is the mean of the two, the "
           "noise the standard deviation of a step time including the drift between the two\n\n");

    add(t, "## Time per step\n\n");
    add(t, "| scene | N x N | solver | colours | GPU ms/step | noise | predict | solve | contacts | velocity | "
           "dispatches | barriers | MB/step | GB/s | of probe | memory MiB | max strain | RMS strain |\n");
    add(t, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < b->count; i++) {
        const run *r = &b->runs[i];
        if (strcmp(r->impl, "sinew") || strcmp(r->kind, "timing"))
            continue;
        double bps = r->ms[5] > 0 ? r->bytes / (r->ms[5] * 1e-3) : 0.0;
        add(t,
            "| %s | %u | %s | %u | %.3f | %.1f%% | %.3f | %.3f | %.3f | %.3f | %u | %u | %.2f | %.2f | %.0f%% | %.2f | "
            "%.2e | %.2e |\n",
            scene_names[r->scene], r->n, solver_name(r->solver), r->colours, r->ms[5],
            r->ms[5] > 0 ? 100.0 * r->ms_std / r->ms[5] : 0.0, r->ms[0], r->ms[1], r->ms[2], r->ms[3], r->dispatches,
            r->barriers, r->bytes * 1e-6, bps * 1e-9,
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
                    strcmp(r->impl, "sinew") ? "CPU reference" : "sinew GPU", solver_name(r->solver), r->substeps,
                    r->iterations, r->diverged_step);
            else
                add(t, "| %s | %s | %u | %u | %.3f | %.2e | %.2e |\n",
                    strcmp(r->impl, "sinew") ? "CPU reference" : "sinew GPU", solver_name(r->solver), r->substeps,
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
                            strcmp(r->impl, impls[ii]) || (int)r->solver != sv)
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
                        solver_name((sinew_solver)sv), cells[0], cells[1], cells[2], cells[3]);
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

static const sinew_solver gpbd_solvers[2] = {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, SINEW_SOLVER_GPBD_JACOBI};

/* The GPBD cube: time per step and per GPBD iteration, per tetrahedron; the
 * Newton iterations the reference takes; the Newton bound sweep; the paper. */
static void report_cube(const bench *b, text *t)
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
                r->tets, solver_name(r->solver), r->colours, r->diverged_step, r->dispatches, r->barriers,
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
            r->n, r->tets, solver_name(r->solver), r->colours, r->ms[5],
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
                add(t, "| %u | %u | %s | diverged at step %u | | | | |\n", r->n, r->tets, solver_name(r->solver),
                    r->diverged_step);
            else
                add(t, "| %u | %u | %s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", r->n, r->tets, solver_name(r->solver),
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
                    add(t, "| %s | %u | diverged at step %u | | | | |\n", solver_name(r->solver), bound,
                        r->diverged_step);
                    continue;
                }
                double iters = (double)r->substeps * r->iterations;
                add(t, "| %s | %u | %.3f | %.1f%% | %.0f | %.3f | %.0f |\n", solver_name(r->solver), bound, r->ms[5],
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
        add(t, "| %s | %.3f | %.3f | %.0f |\n", solver_name(r->solver), r->ms[5], PAPER_CUBE_MS,
            r->ms[5] / PAPER_CUBE_MS);
    }
    add(t, "%sThe devices differ by orders of magnitude, so the ratio measures the devices more than the "
           "implementations; the costs per tetrahedron above, times the tetrahedra and GPBD iterations of a scene, "
           "plus the fixed cost of a step (predict, contacts, velocities, checks: the GPU ms/step less the solve), "
           "extrapolate to other sizes on the same device.\n\n", any26 ? "\n" : "");
}

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
static void report_sheet(const bench *b, const sinew_device_info *di, text *t)
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
            add(t, "| %s | %u | %u | diverged at step %u | | | | | %u | %.2f |\n", solver_name(r->solver),
                r->levels ? r->levels : 1, r->iterations, r->diverged_step, r->dispatches,
                r->device_memory / 1048576.0);
            continue;
        }
        add(t, "| %s | %u | %u | %.3e | %.3e | %.3f | %.1f%% | %.3f | %u | %.2f |\n", solver_name(r->solver),
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

/* The terminal table and the results page share this text. */
static void report(const bench *b, const cJSON *peers, const suite *s, const sinew_device_info *di, text *t,
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

/* gnuplot: GPU ms per GPBD iteration (solve phase) against tetrahedra, both
 * GPBD solvers, and the paper's point. */
static void plot_cube(const bench *b, const char *out)
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
                        block++, sv ? "GPBD Jacobi" : "GPBD Gauss-Seidel");
    }
    snprintf(script + len, sizeof script - (size_t)len,
             "'%s' index %d with points pt 7 ps 1.5 title 'paper, RTX 4080 (whole step / 3)'\n", dat, blocks);
    snprintf(path, sizeof path, "%s/cube_scaling.gp", out);
    if (write_text(path, script)) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", path);
        if (system(cmd) != 0)
            fprintf(stderr, "sinew-bench: gnuplot failed on %s (is gnuplot installed?)\n", path);
    }
}

/* gnuplot: stretch against GPU ms per step on the HPBD sheet, plain
 * Gauss-Seidel as a line through its iteration counts (labelled), and the
 * hierarchy's point. */
static void plot_sheet(const bench *b, const char *out)
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
                        "'%s' index 0 using 1:2 with linespoints title 'XPBD Gauss-Seidel (iterations labelled)', "
                        "'' index 0 using 1:2:(sprintf('%%d', $3)) with labels offset 1.2,0.8 notitle%s",
                        dat, hierarchy ? ", " : "");
    if (hierarchy)
        snprintf(script + len, sizeof script - (size_t)len,
                 "'%s' index %d using 1:2 with points pt 7 ps 1.5 title 'HPBD, %u levels, %u iterations'\n", dat,
                 plain, h->levels, h->iterations);
    else
        snprintf(script + len, sizeof script - (size_t)len, "\n");
    snprintf(path, sizeof path, "%s/hpbd_stretch.gp", out);
    if (write_text(path, script)) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", path);
        if (system(cmd) != 0)
            fprintf(stderr, "sinew-bench: gnuplot failed on %s (is gnuplot installed?)\n", path);
    }
}

/* Reads a bench.json back (e.g. one written on a GPU machine without gnuplot)
 * so that the page and plots can be made again, with more peers if given. */
static const char *intern(const char *v, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(v, names[i]))
            return names[i];
    return NULL;
}

static int load_report(const char *path, bench *b, sinew_device_info *di, const suite **s, char *date,
                       size_t date_size, uint32_t *messages, cJSON *peers)
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
    snprintf(di->name, sizeof di->name, "%s", jstr(dev, "name"));
    snprintf(di->driver, sizeof di->driver, "%s", jstr(dev, "driver"));
    di->api_version = (uint32_t)jnum(dev, "api_version");
    di->type = cJSON_IsNumber(cJSON_GetObjectItem(dev, "type")) ? (int)jnum(dev, "type") : -1;
    snprintf(date, date_size, "%s", jstr(root, "date"));
    *messages = (uint32_t)jnum(root, "validation_messages");
    const cJSON *host = cJSON_GetObjectItem(root, "host");
    b->cpus = host ? (int)jnum(host, "cpus") : 0;
    b->other_cpus = host ? jnum(host, "other_cpus_busy") : -1.0;
    *s = NULL;
    for (size_t k = 0; k < sizeof suites / sizeof suites[0]; k++)
        if (!strcmp(suites[k].name, jstr(root, "suite")))
            *s = &suites[k];
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
        r->solver = solver_from_name(jstr(o, "solver"));
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
    cJSON_ArrayForEach(o, old_peers) cJSON_AddItemToArray(peers, cJSON_Duplicate(o, 1));
    cJSON_Delete(root);
    if (!*s) {
        fprintf(stderr, "sinew-bench: %s: unknown suite\n", path);
        return 0;
    }
    return 1;
}

/* Run to run: this run's timing results against an earlier bench.json of the
 * same suite, each difference set against the noise the runs state. */
static void compare(const bench *now, const bench *before, const char *before_path, text *t)
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
                snprintf(solver, sizeof solver, "%s, %u iterations", solver_name(r->solver), r->iterations);
            else
                snprintf(solver, sizeof solver, "%s", solver_name(r->solver));
            add(t, "| %s | %u | %s | %.3f | %.3f | %+.1f%% | %.1f%% | %.1f%% | %s |\n", scene_names[r->scene], r->n,
                solver, q->ms[5], r->ms[5], 100.0 * diff / q->ms[5], 100.0 * q->ms_std / q->ms[5],
                100.0 * r->ms_std / r->ms[5], ok ? "yes" : "no");
            break;
        }
    }
    add(t, "\n%d of %d timing results agree within twice the stated noise.\n", within, total);
}

/* The suites with pages of their own (pd, implicit): the out folder, a
 * context, the suite, and its validation messages counted as a failure. */
static int run_pd(sinew_context *ctx, const void *o, const char *out) { return bench_pd(ctx, o, out); }
static int run_implicit(sinew_context *ctx, const void *o, const char *out) { return bench_implicit(ctx, o, out); }
static int run_collider(sinew_context *ctx, const void *o, const char *out) { return bench_collider(ctx, o, out); }
static int run_mgpbd(sinew_context *ctx, const void *o, const char *out) { return bench_mgpbd(ctx, o, out); }

static int run_paper_suite(const char *t, const char *out, const char *device, int validation, const char *name,
                           int (*suite_fn)(sinew_context *, const void *, const char *), const void *options)
{
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create %s: %s\n", t, out, strerror(errno));
        return 1;
    }
    sinew_context_desc cd = sinew_context_desc_default();
    cd.device = device;
    cd.validation = validation;
    sinew_context *ctx = NULL;
    if (sinew_context_create(&cd, &ctx) != SINEW_RESULT_OK) {
        fprintf(stderr, "%s: no Vulkan context\n", t);
        return 1;
    }
    fprintf(stderr, "sinew-bench: %s suite on %s\n", name, sinew_context_get_device_info(ctx).name);
    int done = suite_fn(ctx, options, out);
    uint32_t messages = sinew_context_get_validation_message_count(ctx);
    sinew_context_destroy(ctx);
    if (messages)
        fprintf(stderr, "sinew-bench: %u validation messages\n", messages);
    return done && !messages ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *t = "sinew-bench", *out = "sinew-bench-out", *device = NULL;
    const char *peer_files[16];
    int peer_count = 0, validation = 0, plots = 1, dry_run = 0;
    const char *report_path = NULL, *compare_path = NULL;
    int out_given = 0;
    uint32_t cubes[6] = {0}, cube_count = 0;
    unsigned cube_steps = 0;
    char report_dir[2048];
    const suite *s = &suites[0];
    int pd = 0, implicit = 0, collider = 0, mgpbd = 0;
    bench_collider_options clo = bench_collider_options_default();
    bench_mgpbd_options mgo = bench_mgpbd_options_default();
    uint32_t mg_tets = 0;
    int mg_model = 0, mg_sizes = 0, mg_quality = 0;
    bench_pd_options pdo = bench_pd_options_default();
    bench_implicit_options imo = bench_implicit_options_default();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--suite") && v && !strcmp(v, "pd")) {
            pd = 1;
            i++;
        } else if (!strcmp(a, "--suite") && v && !strcmp(v, "implicit")) {
            implicit = 1;
            i++;
        } else if (!strcmp(a, "--suite") && v && !strcmp(v, "collider")) {
            collider = 1;
            i++;
        } else if (!strcmp(a, "--suite") && v && !strcmp(v, "mgpbd")) {
            mgpbd = 1;
            i++;
        } else if (!strcmp(a, "--tets") && v) {
            unsigned n;
            if (!cli_uint(t, a, v, 1u << 26, &n))
                return 2;
            if (mg_tets == BENCH_MGPBD_MAX_SIZES) {
                cli_error(t, "--tets: at most 8 sizes (got %s)%s", v, "");
                return 2;
            }
            if (n) /* 0: no model, the bar alone */
                mgo.tets[mg_tets++] = n;
            mgo.size_count = mg_tets;
            mg_sizes = 1;
            i++;
        } else if (!strcmp(a, "--model") && v) {
            mgo.model = v;
            mg_model = 1;
            i++;
        } else if (!strcmp(a, "--quality") && v) {
            if (!cli_double(t, a, v, &mgo.quality) ||
                (mgo.quality != 0 && !(mgo.quality >= 1) && !cli_error(t, "--quality must be 0 or >= 1%s%s", "", "")))
                return 2;
            mg_quality = 1;
            i++;
        } else if (!strcmp(a, "--xpbd-jacobi") && v) {
            if (!cli_double(t, a, v, &mgo.xpbd_jacobi) ||
                (!(mgo.xpbd_jacobi > 0 && mgo.xpbd_jacobi <= 1) &&
                 !cli_error(t, "--xpbd-jacobi must be in (0, 1]%s%s", "", "")))
                return 2;
            i++;
        } else if (!strcmp(a, "--lambda-full")) {
            mgo.lambda_full = 1;
        } else if (!strcmp(a, "--coarse-gram")) {
            mgo.coarse_gram = 1;
        } else if (!strcmp(a, "--keep-rho")) {
            mgo.keep_rho = 1;
        } else if (!strcmp(a, "--lattice")) {
            mgo.lattice = 1;
        } else if (!strcmp(a, "--squash") && v) {
            if (!cli_double(t, a, v, &mgo.squash) ||
                (!(mgo.squash >= 0 && mgo.squash <= 1) && !cli_error(t, "--squash must be in [0, 1]%s%s", "", "")))
                return 2;
            i++;
        } else if (!strcmp(a, "--particle-mass") && v) {
            if (!cli_double(t, a, v, &mgo.particle_mass) ||
                (!(mgo.particle_mass >= 0 && mgo.particle_mass < 1e12) &&
                 !cli_error(t, "--particle-mass must be in [0, 1e12) kg%s%s", "", "")))
                return 2;
            i++;
        } else if (!strcmp(a, "--bar-cells") && v) {
            unsigned n;
            if (!cli_uint(t, a, v, 200, &n))
                return 2;
            mgo.bar_cells = n;
            i++;
        } else if (!strcmp(a, "--outer") && v) {
            unsigned n;
            if (!cli_uint(t, a, v, 1000, &n) || (n < 1 && !cli_error(t, "--outer must be >= 1%s%s", "", "")))
                return 2;
            mgo.outer = n;
            i++;
        } else if (!strcmp(a, "--outer-budget") && v) {
            if (!cli_double(t, a, v, &mgo.outer_budget_s) ||
                (!(mgo.outer_budget_s >= 0) && !cli_error(t, "--outer-budget must be >= 0%s%s", "", "")))
                return 2;
            i++;
        } else if (!strcmp(a, "--xpbd-sweeps") && v) {
            unsigned n;
            if (!cli_uint(t, a, v, 100000, &n))
                return 2;
            mgo.xpbd_sweeps = n;
            i++;
        } else if (!strcmp(a, "--xpbd-budget") && v) {
            if (!cli_double(t, a, v, &mgo.xpbd_budget_s) ||
                (!(mgo.xpbd_budget_s >= 0) && !cli_error(t, "--xpbd-budget must be >= 0%s%s", "", "")))
                return 2;
            i++;
        } else if (!strcmp(a, "--cheby-upper") && v) {
            if (!cli_double(t, a, v, &mgo.cheby_upper) ||
                (!(mgo.cheby_upper > 0.1 && mgo.cheby_upper <= 10) &&
                 !cli_error(t, "--cheby-upper must be in (0.1, 10]%s%s", "", "")))
                return 2;
            i++;
        } else if (!strcmp(a, "--pcg-iterations") && v) {
            unsigned n;
            if (!cli_uint(t, a, v, 100000, &n) || (n < 1 && !cli_error(t, "--pcg-iterations must be >= 1%s%s", "", "")))
                return 2;
            mgo.pcg_iterations = n;
            i++;
        } else if (!strcmp(a, "--pcg-tolerance") && v) {
            if (!cli_double(t, a, v, &mgo.pcg_tolerance) ||
                (!(mgo.pcg_tolerance >= 0) && !cli_error(t, "--pcg-tolerance must be >= 0%s%s", "", "")))
                return 2;
            i++;
        } else if (!strcmp(a, "--setup-interval") && v) {
            unsigned n;
            if (!cli_uint(t, a, v, 100000, &n))
                return 2;
            mgo.setup_interval = (int)n;
            i++;
        } else if (!strcmp(a, "--export-matrices") && v) {
            mgo.export_dir = v;
            i++;
        } else if (!strcmp(a, "--subdivisions") && v) {
            imo.size_count = 0;
            for (const char *c = v; *c && imo.size_count < 4;) {
                char *end;
                unsigned long k = strtoul(c, &end, 10);
                if (end == c || k < 1 || k > 9 || (*end && *end != ',')) {
                    cli_error(t, "--subdivisions: \"%s\" is not a list of up to 4 counts in 1..9%s", v, "");
                    return 2;
                }
                imo.subdivisions[imo.size_count++] = (uint32_t)k;
                c = *end ? end + 1 : end;
            }
            i++;
        } else if (!strcmp(a, "--frames") && v) {
            unsigned f;
            if (!cli_uint(t, a, v, 100000, &f) || (f < 1 && !cli_error(t, "--frames must be >= 1%s%s", "", "")))
                return 2;
            pdo.frames = f;
            i++;
        } else if (!strcmp(a, "--pd-n") && v) {
            unsigned n;
            if (!cli_uint(t, a, v, 4096, &n) || (n < 2 && !cli_error(t, "--pd-n must be >= 2%s%s", "", "")))
                return 2;
            pdo.n = n;
            i++;
        } else if (!strcmp(a, "--pd-stiffness") && v) {
            if (!cli_double(t, a, v, &pdo.stiffness) ||
                (!(pdo.stiffness > 0) && !cli_error(t, "--pd-stiffness must be > 0%s%s", "", "")))
                return 2;
            i++;
        } else if (!strcmp(a, "--budget-ms") && v) {
            if (!cli_double(t, a, v, &pdo.budget_ms) ||
                (!(pdo.budget_ms > 0) && !cli_error(t, "--budget-ms must be > 0%s%s", "", "")))
                return 2;
            i++;
        } else if (!strcmp(a, "--suite") && v) {
            s = NULL;
            for (size_t k = 0; k < sizeof suites / sizeof suites[0]; k++)
                if (!strcmp(suites[k].name, v))
                    s = &suites[k];
            if (!s) {
                cli_error(t, "--suite: \"%s\" is not quick, gpu, gpbd, hpbd, pd or all%s", v, "");
                return 2;
            }
            i++;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--out")) && v) {
            out = v;
            out_given = 1;
            i++;
        } else if (!strcmp(a, "--peers") && v) {
            if (peer_count == 16) {
                cli_error(t, "at most 16 --peers files%s%s", "", "");
                return 2;
            }
            peer_files[peer_count++] = v;
            i++;
        } else if (!strcmp(a, "--device") && v) {
            device = v;
            i++;
        } else if (!strcmp(a, "--validation")) {
            validation = 1;
        } else if (!strcmp(a, "--no-plots")) {
            plots = 0;
        } else if (!strcmp(a, "--compare") && v) {
            compare_path = v;
            i++;
        } else if (!strcmp(a, "--report") && v) {
            report_path = v;
            i++;
        } else if (!strcmp(a, "--dry-run")) {
            dry_run = 1;
        } else if (!strcmp(a, "--cube") && v) {
            unsigned n;
            if (!cli_uint(t, a, v, 400, &n))
                return 2;
            if (n < 2 || cube_count == 6) {
                cli_error(t, "--cube: at most 6 sizes, each >= 2 (got %s)%s", v, "");
                return 2;
            }
            cubes[cube_count++] = n;
            i++;
        } else if (!strcmp(a, "--steps") && v) {
            if (!cli_uint(t, a, v, 100000, &cube_steps))
                return 2;
            if (cube_steps < 1) {
                cli_error(t, "--steps must be >= 1%s%s", "", "");
                return 2;
            }
            i++;
        } else {
            cli_error(t, "unknown option or missing value: %s%s", a, "");
            return 2;
        }
    }
    if (report_path && !out_given) {
        /* The page goes next to the JSON it is made from. */
        snprintf(report_dir, sizeof report_dir, "%s", report_path);
        char *slash = strrchr(report_dir, '/');
        out = slash ? (*slash = '\0', report_dir) : ".";
    }
    if (implicit) {
        if (dry_run) {
            imo.subdivisions[0] = 1;
            imo.subdivisions[1] = 2; /* 625, 2401 particles */
            imo.size_count = 2;
            imo.steps = 2;
        } else if (cube_steps) {
            imo.steps = cube_steps;
        }
        imo.plots = plots;
        return run_paper_suite(t, out, device, validation, "implicit", run_implicit, &imo);
    }
    if (collider) {
        char meshes[1024];
        const char *cgal = getenv("SINEW_CGAL_DATA");
        if (cgal && *cgal) {
            snprintf(meshes, sizeof meshes, "%s/meshes", cgal);
            clo.meshes = meshes;
        }
        clo.dry_run = dry_run;
        if (dry_run)
            clo.steps = 4;
        else if (cube_steps)
            clo.steps = cube_steps;
        return run_paper_suite(t, out, device, validation, "collider", run_collider, &clo);
    }
    if (mgpbd) {
        char meshes[1024];
        const char *cgal = getenv("SINEW_CGAL_DATA");
        if (cgal && *cgal) {
            snprintf(meshes, sizeof meshes, "%s/meshes", cgal);
            mgo.meshes = meshes;
        }
        if (dry_run) {
            /* A small model at its floor (its surface alone, no quality
             * bound: 568 tets for the ellipsoid), a 2 x 2 x 10-cell bar, a
             * few iterations. */
            if (!mg_model)
                mgo.model = "ellipsoid.off";
            if (!mg_quality)
                mgo.quality = 0.0;
            if (!mg_sizes) {
                mgo.tets[0] = 1;
                mgo.size_count = 1;
            }
            mgo.bar_cells = 2;
            mgo.outer = mgo.outer == 100 ? 8 : mgo.outer;
            mgo.xpbd_sweeps = mgo.xpbd_sweeps == 10000 ? 50 : mgo.xpbd_sweeps;
        }
        mgo.plots = plots;
        return run_paper_suite(t, out, device, validation, "mgpbd", run_mgpbd, &mgo);
    }
    if (pd) {
        if (dry_run) {
            pdo.n = pdo.n == 100 ? 12 : pdo.n;
            pdo.frames = pdo.frames == 300 ? 8 : pdo.frames;
        }
        pdo.plots = plots;
        return run_paper_suite(t, out, device, validation, "pd", run_pd, &pdo);
    }
    suite custom;
    if (cube_count || cube_steps) {
        custom = *s;
        if (cube_count) {
            memset(custom.cube, 0, sizeof custom.cube);
            memcpy(custom.cube, cubes, cube_count * sizeof cubes[0]);
        }
        if (cube_steps)
            custom.cube_steps = cube_steps;
        else if (!custom.cube_steps)
            custom.cube_steps = CUBE_STEPS;
        s = &custom;
    }
    suite dry;
    if (dry_run) {
        /* Same lists, each size replaced by a tiny one that keeps its place. */
        dry = *s;
        uint32_t *lists[] = {dry.hanging, dry.sphere, dry.quadnet, dry.sweep, dry.reference};
        const size_t lens[] = {8, 4, 2, 4, 4};
        for (int l = 0; l < 5; l++)
            for (size_t k = 0; k < lens[l] && lists[l][k]; k++)
                lists[l][k] = 6 + 2 * (uint32_t)(log2((double)lists[l][k]) - 4);
        dry.sweep_max = 2;
        /* Cubes of 3^3, 4^3, ... vertices, two impact steps. */
        dry.cube_reference_max = dry.cube_newton_sweep = 0;
        for (size_t k = 0; k < 6 && dry.cube[k]; k++) {
            if (s->cube[k] <= s->cube_reference_max)
                dry.cube_reference_max = 3 + (uint32_t)k;
            if (s->cube[k] == s->cube_newton_sweep)
                dry.cube_newton_sweep = 3 + (uint32_t)k;
            dry.cube[k] = 3 + (uint32_t)k;
        }
        dry.cube_steps = dry.cube_steps < 2 ? dry.cube_steps : 2;
        /* The sheet: 17 x 17 particles, 30 steps (the stretch over the last
         * 10), plain Gauss-Seidel up to 32 iterations. */
        if (dry.sheet) {
            dry.sheet = 17;
            dry.sheet_steps = 30;
            dry.sheet_iterations_max = 32;
        }
        s = &dry;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create %s: %s\n", t, out, strerror(errno));
        return 1;
    }

    bench b = {0};
    sinew_device_info di = {0};
    uint32_t messages = 0;
    char date[64];
    cJSON *peers = read_peers(peer_files, peer_count);
    int ok = 1;
    if (report_path) {
        if (!load_report(report_path, &b, &di, &s, date, sizeof date, &messages, peers)) {
            cJSON_Delete(peers);
            free(b.runs);
            return 1;
        }
        goto output;
    }
    b.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    b.other_cpus = -1.0;
    const double busy0 = host_busy_s(), own0 = own_cpu_s(), wall0 = now_s();
    sinew_context_desc cd = sinew_context_desc_default();
    cd.device = device;
    cd.validation = validation;
    cd.logger.fn = on_log;
    cd.logger.level = SINEW_LOG_WARNING;
    if (sinew_context_create(&cd, &b.ctx) != SINEW_RESULT_OK) {
        fprintf(stderr, "%s: no Vulkan context\n", t);
        cJSON_Delete(peers);
        return 1;
    }
    di = sinew_context_get_device_info(b.ctx);
    fprintf(stderr, "sinew-bench: %s suite on %s\n", s->name, di.name);
    if (sinew_context_probe(b.ctx, &b.probe) != SINEW_RESULT_OK) {
        fprintf(stderr, "%s: device probe failed\n", t);
        sinew_context_destroy(b.ctx);
        cJSON_Delete(peers);
        return 1;
    }
    fprintf(stderr, "probe: copy %.2f GB/s, %.2f us per dependent dispatch\n", b.probe.copy_bytes_per_s * 1e-9,
            b.probe.dispatch_us);

    /* Count the runs first so the progress bar is honest. */
    for (int k = 0; k < 8 && s->hanging[k]; k++) {
        int sweep = contains(s->sweep, 4, s->hanging[k]), ref = contains(s->reference, 4, s->hanging[k]);
        int swept = 0;
        for (int v = 0; v < SWEEP_COUNT; v++)
            swept += sweep_values[v] <= s->sweep_max;
        b.planned += 2 * (2 + (sweep ? 2 * swept * (ref ? 2 : 1) : 0)) + 1;
    }
    for (int k = 0; k < 4 && s->sphere[k]; k++)
        b.planned += 4;
    for (int k = 0; k < 2 && s->quadnet[k]; k++)
        b.planned += 4;
    for (int k = 0; k < 6 && s->cube[k]; k++)
        b.planned += 2 * (1 + (s->cube[k] <= s->cube_reference_max) +
                          (s->cube[k] == s->cube_newton_sweep ? CUBE_NEWTON_SWEEP_COUNT - 1 : 0));
    if (s->sheet) /* at most: bench_sheet takes off what the ladder does not need */
        b.planned += 2 * (1 + (size_t)sheet_ladder(s));

    for (int round = ROUND_TIMING; ok && round <= ROUND_TIMING_AGAIN; round++) {
        for (int k = 0; ok && k < 8 && s->hanging[k]; k++)
            ok = bench_scene(&b, s, (round_kind)round, SCENE_HANGING, s->hanging[k],
                             contains(s->sweep, 4, s->hanging[k]), contains(s->reference, 4, s->hanging[k]));
        for (int k = 0; ok && k < 4 && s->sphere[k]; k++)
            ok = bench_scene(&b, s, (round_kind)round, SCENE_SPHERE, s->sphere[k], 0, 0);
        for (int k = 0; ok && k < 2 && s->quadnet[k]; k++)
            ok = bench_scene(&b, s, (round_kind)round, SCENE_QUADNET, s->quadnet[k], 0, 0);
    }
    if (ok && s->sheet)
        ok = bench_sheet(&b, s);
    for (int k = 0; ok && k < 6 && s->cube[k]; k++)
        ok = bench_cube(&b, s, s->cube[k]);
    if (busy0 >= 0 && own0 >= 0) {
        double busy = host_busy_s() - busy0, own = own_cpu_s() - own0, wall = now_s() - wall0;
        b.other_cpus = wall > 0 && busy >= 0 ? fmax(busy - own, 0.0) / wall : -1.0;
    }
    messages = sinew_context_get_validation_message_count(b.ctx);
    sinew_context_destroy(b.ctx);
    if (!ok) {
        cJSON_Delete(peers);
        free(b.runs);
        return 1;
    }
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
output:;
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
    cJSON_AddStringToObject(root, "date", date);
    cJSON_AddStringToObject(root, "suite", s->name);
    cJSON_AddNumberToObject(root, "validation_messages", messages);
    cJSON *host = cJSON_AddObjectToObject(root, "host");
    cJSON_AddNumberToObject(host, "cpus", b.cpus);
    cJSON_AddNumberToObject(host, "other_cpus_busy", b.other_cpus); /* mean, while the runs went */
    cJSON *probe = cJSON_AddObjectToObject(root, "probe");
    cJSON_AddNumberToObject(probe, "copy_bytes_per_s", b.probe.copy_bytes_per_s);
    cJSON_AddNumberToObject(probe, "copy_bytes", (double)b.probe.copy_bytes);
    cJSON_AddNumberToObject(probe, "dispatch_us", b.probe.dispatch_us);
    cJSON_AddBoolToObject(probe, "gpu_timed", b.probe.gpu_timed);
    cJSON *runs = cJSON_AddArrayToObject(root, "runs");
    for (size_t i = 0; i < b.count; i++)
        cJSON_AddItemToArray(runs, run_json(&b, &b.runs[i]));
    int points;
    cJSON *scaling = cJSON_AddObjectToObject(root, "scaling_slope");
    cJSON_AddNumberToObject(scaling, "xpbd-gs", scaling_slope(&b, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, &points));
    cJSON_AddNumberToObject(scaling, "xpbd-jacobi", scaling_slope(&b, SINEW_SOLVER_XPBD_JACOBI, &points));
    int cubes_run = 0;
    for (size_t i = 0; i < b.count; i++)
        cubes_run |= b.runs[i].scene == SCENE_CUBE;
    if (cubes_run) {
        cJSON *cs = cJSON_AddObjectToObject(root, "cube_scaling_slope"); /* log ms/step on log tets */
        cJSON_AddNumberToObject(cs, "gpbd-gs", cube_scaling_slope(&b, SINEW_SOLVER_GPBD_GAUSS_SEIDEL, &points));
        cJSON_AddNumberToObject(cs, "gpbd-jacobi", cube_scaling_slope(&b, SINEW_SOLVER_GPBD_JACOBI, &points));
        cJSON *paper = cJSON_AddObjectToObject(root, "paper_cube");
        cJSON_AddStringToObject(paper, "source", "Towards Generalized Position-Based Dynamics, table 1");
        cJSON_AddStringToObject(paper, "device", "NVIDIA RTX 4080 (CUDA kernels only)");
        cJSON_AddNumberToObject(paper, "n", PAPER_CUBE_N);
        cJSON_AddNumberToObject(paper, "tets", 93750);
        cJSON_AddNumberToObject(paper, "gpbd_iterations", 3);
        cJSON_AddNumberToObject(paper, "newton_iterations", 3);
        cJSON_AddNumberToObject(paper, "ms_per_step", PAPER_CUBE_MS);
    }
    const run *sheet = sheet_hpbd(&b);
    if (sheet) {
        /* Figure 7: the plain count that first matches the hierarchy's stretch. */
        cJSON *hm = cJSON_AddObjectToObject(root, "hpbd_match");
        const run *m = sheet->diverged_step ? NULL : sheet_plain(&b, 0, sheet->stretch);
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
        cJSON_AddStringToObject(hm, "device", di.name);
        cJSON *paper = cJSON_AddObjectToObject(hm, "paper");
        cJSON_AddStringToObject(paper, "source", "Hierarchical Position Based Dynamics (Mueller 2008), figure 7");
        cJSON_AddStringToObject(paper, "device", "Intel Core2 2.66 GHz, NVIDIA GeForce 8800 GTX");
        cJSON_AddNumberToObject(paper, "triangles", PAPER_SHEET_TRIANGLES);
        cJSON_AddNumberToObject(paper, "plain_iterations", PAPER_SHEET_ITERATIONS);
        cJSON_AddNumberToObject(paper, "time_ratio", PAPER_SHEET_RATIO);
    }
    cJSON_AddItemReferenceToObject(root, "peers", peers);

    char path[4096];
    snprintf(path, sizeof path, "%s/bench.json", out);
    char *json = cJSON_Print(root);
    ok = json && write_text(path, json);
    free(json);

    text page = {0};
    report(&b, peers, s, &di, &page, date);
    if (compare_path) {
        bench before = {0};
        sinew_device_info bdi;
        const suite *bs;
        char bdate[64];
        uint32_t bmessages;
        cJSON *ignored = cJSON_CreateArray();
        if (load_report(compare_path, &before, &bdi, &bs, bdate, sizeof bdate, &bmessages, ignored))
            compare(&b, &before, compare_path, &page);
        cJSON_Delete(ignored);
        free(before.runs);
    }
    snprintf(path, sizeof path, "%s/README.md", out);
    ok = ok && page.s && write_text(path, page.s);
    if (plots) {
        plot(&b, peers, out, s);
        plot_cube(&b, out);
        plot_sheet(&b, out);
    }
    if (page.s)
        fputs(page.s, stdout);
    fflush(stdout); /* before any exit-time report a sanitizer may end the process with */
    fprintf(stderr, "sinew-bench: wrote %s/bench.json, %s/README.md%s\n", out, out, plots ? " and plots" : "");
    if (messages)
        fprintf(stderr, "sinew-bench: %u validation messages\n", messages);
    free(page.s);
    cJSON_Delete(root);
    cJSON_Delete(peers);
    free(b.runs);
    return ok && !messages ? 0 : 1;
}
