/* The measured suites of sinew-bench (quick, gpu, gpbd, hpbd, all): their
 * scenes and sizes, the record of a run, the measurements every scene shares
 * (bench_core.c), and the parts each kind of scene adds: the cloth scenes
 * (bench_cloth.c), the GPBD cube (bench_gpbd.c) and the HPBD sheet
 * (bench_hpbd.c); bench_results.c writes bench.json and the page. */
#ifndef SINEW_TOOLS_BENCH_CORE_H
#define SINEW_TOOLS_BENCH_CORE_H

#include "asset/asset.h"
#include "bench.h"

typedef enum scene_kind { SCENE_HANGING, SCENE_SPHERE, SCENE_QUADNET, SCENE_CUBE, SCENE_SHEET } scene_kind;
extern const char *const scene_names[];
extern const char *const scene_titles[];

/* A measured suite's scenes and sizes. */
typedef struct bench_sizes {
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
} bench_sizes;

extern const bench_sizes bench_quick, bench_gpu, bench_gpbd, bench_hpbd, bench_all;
/* The measured suite of that name (a bench.json's "suite"); NULL: none. */
const bench_sizes *bench_sizes_find(const char *name);

#define CUBE_STEPS 4u      /* measured impact steps of the gpbd suite (--steps) */
#define SHEET_N 77u        /* particles per side: 76 rows of quads, 11 552 triangles */
#define SHEET_STEPS 180u   /* 3 s from rest */
#define SHEET_MAX 128u     /* plain Gauss-Seidel iterations tried at most */
#define SHEET_MAX_LEVELS 8 /* hierarchy levels a sheet run records */
#define HPBD_K 2u          /* parents of each fine particle in the sheet's hierarchy */
#define SHEET_DAMPING 1.0f /* 1/s */

#define DT (1.0f / 60.0f)
#define ACCURACY_STEPS 120u /* the peer scene: 2 s */
/* Accuracy runs report the strain over the last second rather than at one
 * instant: a swinging cloth's momentary strain swings with it. */
#define ERROR_WINDOW 60u

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
    uint32_t submits, host_waits, allocations; /* per step; the body's allocations */
    uint64_t readback_bytes;                   /* per step */
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

int is_sweep(const run *r);

/* A measured suite's runs and what they ran on: filled by bench_measure, or
 * read back from a bench.json by bench_load. */
typedef struct bench {
    const bench_sizes *sizes; /* NULL until measured or loaded */
    sinew_context *ctx;
    sinew_device_probe probe;
    sinew_device_info di;
    run *runs;
    size_t count, cap;
    size_t planned, done;
    /* The host: its CPUs, and how many of them other processes kept busy on
     * average while the runs went (negative: unknown). On a CPU device
     * (lavapipe) the times grow with that share. */
    int cpus;
    double other_cpus;
    uint32_t messages; /* validation messages */
    char date[64];
    cJSON *peers;      /* peer results (tools/peers/) */
    bench_sizes own;   /* the sizes as --cube, --steps and --dry-run make them */
} bench;

/* Runs the suite's scenes (b->sizes from `sizes` and the options), the
 * peers read; 1 on success. */
int bench_measure(const bench_args *a, const bench_sizes *sizes, bench *b);
/* The runs, suite and peers of the bench.json at path (with the options'
 * peers added), for the page again; 1 on success. */
int bench_load(const char *path, const bench_args *a, bench *b);
/* bench.json, README.md (with --compare's table), the plots and the page on
 * stdout; 1 when written and no validation message was counted. */
int bench_write(const bench_args *a, bench *b);
void bench_free(bench *b);
/* Peer results: one JSON object per line in each file (tools/peers/SCENE.md). */
cJSON *read_peers(const char *const *files, int count);

/* The shared measurements (bench_core.c). */
run *push_run(bench *b);
void progress(bench *b, const char *what);
void describe(run *r, scene_kind scene, uint32_t n, const sinew_asset *a, sinew_solver solver, const char *impl,
              const char *kind, uint32_t substeps, uint32_t iterations, uint32_t steps);
/* Steps a GPU body; timing runs measure `steps` steps after a warm-up. */
int measure_gpu(bench *b, const sinew_asset *asset, run *r, uint32_t warmup);
/* The same on the CPU double reference (one thread). */
void measure_reference(const sinew_asset *asset, run *r);
void merge_timing(run *first, const run *again);
sinew_step_params scene_params(scene_kind kind);

/* The cloth scenes (bench_cloth.c): hanging, sphere and quadnet. */
typedef enum round_kind { ROUND_TIMING, ROUND_SWEEPS, ROUND_TIMING_AGAIN } round_kind;
size_t cloth_planned(const bench_sizes *s);
int bench_cloth_round(bench *b, const bench_sizes *s, round_kind round);
double scaling_slope(const bench *b, sinew_solver solver, int *points);
void report_cloth(const bench *b, const cJSON *peers, const bench_sizes *s, bench_text *t);
void plot_cloth(const bench *b, const cJSON *peers, const char *out, const bench_sizes *s);
void cloth_json(const bench *b, cJSON *root);

/* The GPBD cube (bench_gpbd.c). */
size_t cube_planned(const bench_sizes *s);
int bench_cube(bench *b, const bench_sizes *s, uint32_t n);
void report_cube(const bench *b, bench_text *t);
void plot_cube(const bench *b, const char *out);
void cube_json(const bench *b, cJSON *root);

/* The HPBD sheet (bench_hpbd.c). */
size_t sheet_planned(const bench_sizes *s);
int bench_sheet(bench *b, const bench_sizes *s);
void report_sheet(const bench *b, const sinew_device_info *di, bench_text *t);
void plot_sheet(const bench *b, const char *out);
void sheet_json(const bench *b, cJSON *root);

#endif
