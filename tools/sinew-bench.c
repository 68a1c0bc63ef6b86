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
 * from JSONL files (tools/peers/), other simulators on the peer scene. The
 * suites are rows of the table below: the measured ones name their scenes and
 * sizes (bench_core.c: the cloth scenes in bench_cloth.c, the GPBD paper's
 * cube in bench_gpbd.c, the HPBD paper's sheet in bench_hpbd.c; bench.json,
 * README.md and plots from bench_results.c); the paper suites (bench_pd.c,
 * bench_implicit.c, bench_collider.c, bench_mgpbd.c) measure and write their
 * own files.
 *
 * main reads the options, picks the suite, runs it and writes the results. */
#define _POSIX_C_SOURCE 200809L
#include <sinew/sinew.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_core.h"
#include "cli.h"

static const bench_suite suites[] = {
    {"quick", "the cloth scenes on lavapipe, in minutes (the default)", "", &bench_quick, NULL},
    {"gpu", "the cloth scenes at the sizes of real GPUs", "", &bench_gpu, NULL},
    {"gpbd", "the GPBD paper's cube impact, 6^3 to 26^3 vertices", "--cube --steps", &bench_gpbd, NULL},
    {"hpbd",
     "the HPBD paper's figure 7: a 77 x 77 cloth, the hierarchy with 2 iterations against plain Gauss-Seidel at 2, "
     "5, 10, 20, ... iterations until as stiff",
     "", &bench_hpbd, NULL},
    {"pd",
     "the red-black mass-spring paper's figures 3 and 4: a 100 x 100 network shrinking back and hanging, red-black "
     "Gauss-Seidel, Jacobi, Chebyshev and serial CPU Gauss-Seidel at 11 iterations per frame and at equal time per "
     "frame; its own README.md, CSV files, plots",
     "--frames --budget-ms --pd-n --pd-stiffness", NULL, bench_pd_suite},
    {"implicit",
     "the constrainable multigrid paper's table 1: implicit cloth swinging and falling on a sphere, multigrid "
     "V-cycles against modified PCG to 1e-4, 2401 to 37 249 particles; own README.md, CSV, plot",
     "--subdivisions --steps", NULL, bench_implicit_suite},
    {"collider",
     "a mesh collider's distance field: build time and memory for an icosphere and CGAL's models at 32-128 cells, "
     "and its contacts' GPU time against the analytic sphere; own README.md, CSV; CGAL's models from "
     "SINEW_CGAL_DATA",
     "--steps", NULL, bench_collider_suite},
    {"overlap",
     "what desc.pipelined buys a game loop: 64^2 and 256^2 cloths, each step followed by 0, 2 and 8 ms of host work, "
     "waiting against pipelined steps, wall time per frame; own README.md, CSV",
     "", NULL, bench_overlap_suite},
    {"clusters",
     "XPBD Gauss-Seidel colour by colour against clustered passes on 64^2 and 256^2 hanging cloths: dispatches "
     "and barriers per step, time, strain at equal substeps and iterations; own README.md, CSV",
     "", NULL, bench_clusters_suite},
    {"selfcol",
     "self-collision's cost and effect: a vertical cloth (64^2 and 256^2) falling into folds on the ground, "
     "without and with self-collision: time per step and its share, candidates, contacts, dropped candidates, "
     "intersecting triangle pairs at the end; own README.md, CSV",
     "", NULL, bench_selfcol_suite},
    {"accuracy",
     "where bodies come to rest: a neo-Hookean cantilever of 99, 525 and 3321 vertices with GPBD at several "
     "substeps and iterations, and the implicit solver, against its exact static equilibrium (the CPU double reference): sag and field "
     "error, residual, cost per step; own README.md, CSV, plot",
     "", NULL, bench_accuracy_suite},
    {"accuracy-implicit",
     "the accuracy suite's cantilevers with the implicit solver (PCG capped at 10, 20, 40, 80 iterations a step) "
     "beside GPBD Gauss-Seidel 8 x 4, the default cost, only: error against GPU time a step; own README.md, CSV, "
     "plots",
     "", NULL, bench_accuracy_implicit_suite},
    {"accuracy-settle",
     "how long the implicit solver (1 x 40 PCG) takes to settle the accuracy suite's finest cantilever within 1 % "
     "of its exact sag, backward Euler and BDF2, up to 3000 steps; own README.md, CSV",
     "", NULL, bench_accuracy_settle_suite},
    {"accuracy-cloth",
     "the static error estimate of cloth against its true error: XPBD cloths hanging from two corners (24^2) "
     "and pinned on every edge (16^2) at 16 substeps and 2 to 16 iterations, against the exact equilibrium of "
     "the same energy (the CPU double reference); own README.md, CSV",
     "", NULL, bench_accuracy_cloth_suite},
    {"mgpbd",
     "the MGPBD paper's convergence: one stiff 10 ms step of a squashed CGAL model at several sizes and of a "
     "twisted bar, MGPBD's dual residual against outer iterations and time beside XPBD's against sweeps; memory "
     "per tet; own README.md, bench.json, plots",
     "--tets --model --quality --lambda-full --cheby-upper --keep-rho --host-rho --aggregation --near-kernel --compare-old --coarse-gram --lattice --squash "
     "--particle-mass --bar-cells --outer --outer-budget --xpbd-sweeps --xpbd-budget --xpbd-jacobi "
     "--pcg-iterations --pcg-tolerance --setup-interval --export-matrices",
     NULL, bench_mgpbd_suite},
    {"stiff",
     "the regime where MGPBD's paper says a global solver matters: a stiff cantilever (shear modulus 10 MPa) at "
     "10, 20 and 30 ms steps, MGPBD against XPBD Gauss-Seidel and Jacobi sweeps of the same constraints at equal "
     "wall time a step, and MGPBD converged: stability, sag, volume and stretch errors, dual residual, pictures; "
     "own README.md, CSV",
     "--bar-cells --outer --steps", NULL, bench_stiff_suite},
    {"world",
     "many bodies stepped as one world against each alone: 1, 4, 16 and 64 cloths of 32 x 32 (XPBD Gauss-Seidel, "
     "colours and clusters) and soft blocks of 5^3 (GPBD), dispatches, barriers, submits and host waits per step, "
     "wall and GPU time, world over separate; own README.md, CSV",
     "--steps", NULL, bench_world_suite},
    {"all", "every scene of the others but pd, implicit, collider, clusters, selfcol and mgpbd", "--cube --steps", &bench_all, NULL},
};
#define SUITE_COUNT (sizeof suites / sizeof suites[0])

static const bench_suite *find_suite(const char *name)
{
    for (size_t k = 0; k < SUITE_COUNT; k++)
        if (!strcmp(suites[k].name, name))
            return &suites[k];
    return NULL;
}

/* Whether a space-separated list of option names holds `name`. */
static int names(const char *list, const char *name)
{
    const size_t len = strlen(name);
    for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------ options */

static const char *const usage_head =
    "usage: sinew-bench [--suite NAME] [options]\n"
    "\n"
    "Measures sinew's solvers on standard scenes: time per step and per phase on\n"
    "the GPU, strain reached, time to accuracy, scaling with particle count, the\n"
    "device's own bandwidth and dispatch cost; peers side by side.\n"
    "\n"
    "Suites (--suite NAME):\n";

static const char *const usage_suite_options =
    "\n"
    "Options of some suites (each suite above names those it reads):\n";

static int parse_suite(const char *tool, const char *opt, const char *text, void *value)
{
    const char *list[SUITE_COUNT];
    for (size_t k = 0; k < SUITE_COUNT; k++)
        list[k] = suites[k].name;
    if (cli_choice(tool, opt, text, list, (int)SUITE_COUNT) < 0)
        return 0;
    *(const char **)value = text;
    return 1;
}

static int parse_peers(const char *tool, const char *opt, const char *text, void *value)
{
    bench_args *a = value;
    if (a->peer_count == BENCH_MAX_PEERS)
        return cli_error(tool, "at most 16 %s files%s", opt, "");
    a->peers[a->peer_count++] = text;
    return 1;
}

static int parse_cube(const char *tool, const char *opt, const char *text, void *value)
{
    bench_args *a = value;
    unsigned n;
    if (!cli_uint(tool, opt, text, 400, &n))
        return 0;
    if (n < 2 || a->cube_count == BENCH_MAX_CUBES)
        return cli_error(tool, "%s: at most 6 sizes, each >= 2 (got %s)", opt, text);
    a->cubes[a->cube_count++] = n;
    return 1;
}

static int parse_subdivisions(const char *tool, const char *opt, const char *text, void *value)
{
    bench_implicit_options *imo = value;
    imo->size_count = 0;
    for (const char *c = text; *c && imo->size_count < 4;) {
        char *end;
        unsigned long k = strtoul(c, &end, 10);
        if (end == c || k < 1 || k > 9 || (*end && *end != ','))
            return cli_error(tool, "%s: \"%s\" is not a list of up to 4 counts in 1..9", opt, text);
        imo->subdivisions[imo->size_count++] = (uint32_t)k;
        c = *end ? end + 1 : end;
    }
    return 1;
}

static int parse_tets(const char *tool, const char *opt, const char *text, void *value)
{
    bench_args *a = value;
    bench_mgpbd_options *mgo = &a->mgpbd;
    unsigned n;
    if (!cli_uint(tool, opt, text, 1u << 26, &n))
        return 0;
    if (!a->tets_given) /* the first replaces the default size */
        mgo->size_count = 0;
    if (mgo->size_count == BENCH_MGPBD_MAX_SIZES)
        return cli_error(tool, "%s: at most 8 sizes (got %s)", opt, text);
    if (n) /* 0: no model, the bar alone */
        mgo->tets[mgo->size_count++] = n;
    return 1;
}

static int parse_quality(const char *tool, const char *opt, const char *text, void *value)
{
    double q;
    if (!cli_double(tool, opt, text, &q))
        return 0;
    if (q != 0 && !(q >= 1))
        return cli_error(tool, "%s must be 0 or >= 1%s", opt, "");
    *(double *)value = q;
    return 1;
}

/* The options: 1 to run, 0 when done (--help), -1 on a bad option (said why). */
static int parse(int argc, char **argv, bench_args *a)
{
    const char *t = "sinew-bench";
    memset(a, 0, sizeof *a);
    a->suite = "quick";
    a->out = "sinew-bench-out";
    a->pd = bench_pd_options_default();
    a->implicit = bench_implicit_options_default();
    a->collider = bench_collider_options_default();
    a->mgpbd = bench_mgpbd_options_default();
    bench_mgpbd_options *mg = &a->mgpbd;
    cli_option opts[] = {
        {"--suite", NULL, CLI_CUSTOM, &a->suite, "NAME", "the suite (above; default quick)", .parse = parse_suite},
        {"--out", "-o", CLI_STRING, &a->out, "DIR", "where bench.json, plots and README.md go (default "
         "./sinew-bench-out)", .given = &a->out_given},
        {"--peers", NULL, CLI_CUSTOM, a, "FILE", "JSONL of peer runs (tools/peers/run.sh); may repeat",
         .parse = parse_peers, .repeat = 1},
        {"--device", NULL, CLI_STRING, &a->device, "NAME|INDEX", "Vulkan device"},
        {"--validation", NULL, CLI_FLAG, &a->validation, NULL, "run with validation layers (slow; for dry runs)"},
        {"--no-plots", NULL, CLI_FLAG, &a->no_plots, NULL, "do not call gnuplot"},
        {"--report", NULL, CLI_STRING, &a->report, "FILE",
         "make README.md and plots again from a bench.json (with any --peers added), e.g. one written on a GPU "
         "machine"},
        {"--compare", NULL, CLI_STRING, &a->compare, "FILE", "add a run-to-run table against an earlier bench.json"},
        {"--dry-run", NULL, CLI_FLAG, &a->dry_run, NULL,
         "the suite's every scene, solver and sweep on tiny sizes, to check a set-up (e.g. the gpu suite on "
         "lavapipe) in seconds (hpbd: a 17 x 17 cloth, 30 steps, plain Gauss-Seidel up to 32 iterations)"},
        {"--help", "-h", CLI_FLAG, &a->help, NULL, "this text"},
        {.kind = CLI_TEXT, .help = usage_suite_options},
        {"--cube", NULL, CLI_CUSTOM, a, "N",
         "GPBD cube of N^3 vertices, in place of the suite's cube sizes; may repeat (e.g. --suite gpbd --cube 26: "
         "the paper's size only)",
         .parse = parse_cube, .repeat = 1},
        {"--steps", NULL, CLI_UINT, &a->steps, "N",
         "measured impact steps per cube run (gpbd suite: 4); implicit: steps counted per run (default 10; dry "
         "run 2); collider: timed steps (default 60); world: measured steps per configuration (default 3)",
         .min = 1, .max = 100000},
        {"--subdivisions", NULL, CLI_CUSTOM, &a->implicit, "L",
         "implicit: comma-separated subdivision counts of the 12 x 12-quad square, up to 4 (default 2,3,4: 2401, "
         "9409, 37 249 particles)",
         .parse = parse_subdivisions},
        {"--frames", NULL, CLI_UINT, &a->pd.frames, "N", "pd: frames of every run (default 300; dry run 8)",
         .min = 1, .max = 100000},
        {"--budget-ms", NULL, CLI_DOUBLE, &a->pd.budget_ms, "T",
         "pd: time per frame of the equal-time runs (default: what red-black Gauss-Seidel takes for 11 "
         "iterations on the device)",
         CLI_GT(0)},
        {"--pd-n", NULL, CLI_UINT, &a->pd.n, "N", "pd: particles per side (default 100; dry run 12)", .min = 2,
         .max = 4096},
        {"--pd-stiffness", NULL, CLI_DOUBLE, &a->pd.stiffness, "K", "pd: N/m of every spring (default 1e4)",
         CLI_GT(0)},
        {"--tets", NULL, CLI_CUSTOM, a, "N",
         "mgpbd: a target tetrahedron count of the model, met through TetGen's max volume (its surface alone sets "
         "a floor: 27 474 for elephant.off); may repeat, up to 8 (default 30000); 0: the bar alone",
         .parse = parse_tets, .given = &a->tets_given, .repeat = 1},
        {"--model", NULL, CLI_STRING, &mg->model, "FILE",
         "mgpbd: a closed surface, in SINEW_CGAL_DATA/meshes or a path with a '/' (default elephant.off; dry run "
         "ellipsoid.off)",
         .given = &a->model_given},
        {"--quality", NULL, CLI_CUSTOM, &mg->quality, "Q",
         "mgpbd: TetGen's radius-edge bound (-q; default 2; dry run 0: none, which leaves slivers)",
         .parse = parse_quality, .given = &a->quality_given},
        {"--lambda-full", NULL, CLI_FLAG, &mg->lambda_full, NULL,
         "mgpbd: lambda takes all of each dlambda; the line search halves the positions' step only (the paper's "
         "code)"},
        {"--cheby-upper", NULL, CLI_DOUBLE, &mg->cheby_upper, "U",
         "mgpbd: the Chebyshev smoother's upper bound, U times the estimate of rho(D^-1 A) made at setup (default "
         "1.1)",
         CLI_IN_OC(0.1, 10)},
        {"--keep-rho", NULL, CLI_FLAG, &mg->keep_rho, NULL,
         "mgpbd: lazy iterations keep the setup's rho(D^-1 A) (sinew_mgpbd_desc.rho KEEP)"},
        {"--host-rho", NULL, CLI_FLAG, &mg->host_rho, NULL,
         "mgpbd: lazy iterations read every level's operator back and estimate rho(D^-1 A) on the host (rho HOST; "
         "the default estimates it on the device)"},
        {"--aggregation", NULL, CLI_UINT, &mg->smoothed, "K",
         "mgpbd: 0 unsmoothed aggregation (the paper's), 1 smoothed (default: sinew_amg_options_default's)", .max = 1},
        {"--near-kernel", NULL, CLI_UINT, &mg->near_kernel, "N",
         "mgpbd: symmetric Gauss-Seidel sweeps on A x = 0 for the near-kernel vector (0: the constant; default: "
         "sinew_amg_options_default's)", .max = 100},
        {"--compare-old", NULL, CLI_UINT, &mg->compare_old, "N",
         "mgpbd: run each scene's first N outer iterations again the way lazy iterations ran before rho moved to "
         "the device (smoothed aggregation, rho on the host) and time both", .max = 1000},
        {"--coarse-gram", NULL, CLI_FLAG, &mg->coarse_gram, NULL,
         "mgpbd: lazy coarse operators in the Gram form X W X^T (default: the products R (A P))"},
        {"--lattice", NULL, CLI_FLAG, &mg->lattice, NULL,
         "mgpbd: the model as lattice cubes of 6 tetrahedra (evenly sized; the cells from --tets), not by TetGen"},
        {"--squash", NULL, CLI_DOUBLE, &mg->squash, "S",
         "mgpbd: the model starts at S of its height (default 0.6; the paper's code flattens it: 0)", CLI_IN(0, 1)},
        {"--particle-mass", NULL, CLI_DOUBLE, &mg->particle_mass, "M",
         "mgpbd: M kg every free particle (default 0: density 1000 kg/m^3; the paper's code, given no density, 1)",
         CLI_IN_CO(0, 1e12)},
        {"--bar-cells", NULL, CLI_UINT, &mg->bar_cells, "N",
         "mgpbd: cells across the twisted bar, 5 N along it (default 8; 0: no bar)", .max = 200},
        {"--shear", NULL, CLI_DOUBLE, &mg->shear, "PA",
         "stiff: the cantilever's shear modulus in Pa (default 1e7, the poster's muscle)", CLI_IN_OC(0, 1e12)},
        {"--outer", NULL, CLI_UINT, &mg->outer, "N", "mgpbd: most MGPBD outer iterations a run (default 100)",
         .min = 1, .max = 1000},
        {"--outer-budget", NULL, CLI_DOUBLE, &mg->outer_budget_s, "S",
         "mgpbd: ... or until they have taken S seconds (default 300; 0: none)", CLI_GE(0)},
        {"--xpbd-sweeps", NULL, CLI_UINT, &mg->xpbd_sweeps, "N", "mgpbd: most XPBD sweeps a run (default 10000)",
         .max = 100000},
        {"--xpbd-budget", NULL, CLI_DOUBLE, &mg->xpbd_budget_s, "S",
         "mgpbd: ... or the first sample past S seconds (default 300; 0: none)", CLI_GE(0)},
        {"--xpbd-jacobi", NULL, CLI_DOUBLE, &mg->xpbd_jacobi, "W",
         "mgpbd: XPBD's Jacobi variant with weight W in (0, 1] (the paper's code: 0.1) instead of Gauss-Seidel over "
         "the colours",
         CLI_IN_OC(0, 1)},
        {"--pcg-iterations", NULL, CLI_UINT, &mg->pcg_iterations, "N",
         "mgpbd: most CG iterations per outer iteration (sinew_mgpbd_desc; default 20)", .min = 1, .max = 100000},
        {"--pcg-tolerance", NULL, CLI_DOUBLE, &mg->pcg_tolerance, "T", "mgpbd: CG's relative tolerance (default 1e-3)",
         CLI_GE(0)},
        {"--setup-interval", NULL, CLI_UINT, &a->setup_interval, "N",
         "mgpbd: frames between AMG setups (default 20)", .max = 100000, .given = &a->setup_interval_given},
        {"--export-matrices", NULL, CLI_STRING, &mg->export_dir, "DIR",
         "mgpbd: each run's first dual system as DIR/NAME.mtx and NAME.b.mtx (for tools/peers/amg.sh), and "
         "sinew's AMG and Jacobi CG on it in double on the host, into DIR/sinew-amg.jsonl"},
    };
    const size_t count = sizeof opts / sizeof opts[0];
    if (!cli_parse(t, argc, argv, opts, count, NULL, NULL))
        return -1;
    if (a->help) {
        fputs(usage_head, stdout);
        for (size_t k = 0; k < SUITE_COUNT; k++) {
            char line[1024];
            snprintf(line, sizeof line, "%s%s%s%s", suites[k].description, *suites[k].options ? " (options: " : "",
                     suites[k].options, *suites[k].options ? ")" : "");
            /* a name past the column gets one space, the text wrapped below as usual */
            const int at = printf("  %-10s", suites[k].name) + (strlen(suites[k].name) >= 10);
            if (strlen(suites[k].name) >= 10)
                putchar(' ');
            cli_wrap(stdout, line, 12, at);
        }
        fputs("\nOptions:\n", stdout);
        cli_help(stdout, opts, count, 24);
        return 0;
    }
    /* An option no suite but another reads is most likely a slip: say so. */
    const bench_suite *s = find_suite(a->suite);
    for (size_t k = 0; k < count; k++) {
        if (!opts[k].seen || names(s->options, opts[k].name))
            continue;
        for (size_t j = 0; j < SUITE_COUNT; j++)
            if (names(suites[j].options, opts[k].name)) {
                fprintf(stderr, "sinew-bench: %s is not read by the %s suite (%s reads it)\n", opts[k].name, s->name,
                        suites[j].name);
                break;
            }
    }
    if (a->report && !a->out_given) {
        /* The page goes next to the JSON it is made from. */
        static char report_dir[2048];
        snprintf(report_dir, sizeof report_dir, "%s", a->report);
        char *slash = strrchr(report_dir, '/');
        a->out = slash ? (*slash = '\0', report_dir) : ".";
    }
    return 1;
}

/* The files given to read, before any suite runs or device is opened: each
 * a regular file that opens (a suite's own, such as --model, it checks). */
static int check_inputs(const bench_args *a)
{
    const char *t = "sinew-bench";
    for (int k = 0; k < a->peer_count; k++)
        if (!cli_input(t, "--peers", a->peers[k]))
            return 0;
    return (!a->report || cli_input(t, "--report", a->report)) &&
           (!a->compare || cli_input(t, "--compare", a->compare));
}

int main(int argc, char **argv)
{
    bench_args a;
    int go = parse(argc, argv, &a);
    if (go <= 0)
        return go < 0 ? 2 : 0;
    if (!check_inputs(&a))
        return 1;
    const bench_suite *s = find_suite(a.suite);
    bench b = {0};
    int ok = a.report   ? bench_load(a.report, &a, &b)
             : s->sizes ? bench_measure(&a, s->sizes, &b)
                        : s->run(&a);
    if (ok && b.sizes)
        ok = bench_write(&a, &b);
    bench_free(&b);
    return ok ? 0 : 1;
}
