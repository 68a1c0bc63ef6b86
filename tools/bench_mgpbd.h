/* The mgpbd suite of sinew-bench: the convergence claim of Li et al.,
 * "MGPBD: a multigrid accelerated global XPBD solver" (2025), on our code:
 * one stiff time step of a real model at several resolutions and of a
 * twisted bar, MGPBD's dual residual against outer iterations and wall time
 * beside XPBD Gauss-Seidel's against sweeps on the same constraints; device
 * memory per tetrahedron; and the first linear system of each scene exported
 * for the AMG peers (tools/bench_mgpbd.c). */
#ifndef SINEW_TOOLS_BENCH_MGPBD_H
#define SINEW_TOOLS_BENCH_MGPBD_H

#include <sinew/sinew.h>

#define BENCH_MGPBD_MAX_SIZES 8

typedef struct bench_mgpbd_options {
    const char *meshes;        /* folder of CGAL's demo meshes (SINEW_CGAL_DATA/meshes); NULL: the bar only */
    const char *model;         /* the model: a file in meshes, or a path (contains '/') */
    uint32_t tets[BENCH_MGPBD_MAX_SIZES]; /* target tetrahedron counts of the model, met through TetGen's -a */
    uint32_t size_count;
    double quality;            /* TetGen's radius-edge bound (-q); 0: none */
    int lattice;               /* the model as lattice cubes (sinew_volume_lattice), not by TetGen */
    uint32_t bar_cells;        /* cells across the bar (5 times as many along it); 0: no bar */
    double squash;             /* the model starts at this fraction of its height (0: flat, as the paper's code) */
    double particle_mass;      /* kg of every free particle; 0: the asset's (density 1000 kg/m^3) */
    double twist_deg;          /* the bar's free end starts turned by this much */
    double shear;              /* stiff: the cantilever's shear modulus (Pa); 0: 10 MPa */
    uint32_t outer;            /* most MGPBD outer iterations per run */
    double stop;               /* MGPBD stops at |b_k| <= stop |b_0| */
    double outer_budget_s;     /* ... or when its iterations have taken this much wall time (0: none) */
    uint32_t xpbd_sweeps;      /* most XPBD sweeps per run */
    double xpbd_jacobi;        /* > 0: XPBD's Jacobi variant with this weight (the paper's code: 0.1),
                                * else Gauss-Seidel over the colours */
    double xpbd_budget_s;      /* XPBD stops at the first sample past this much wall time (0: none) */
    /* The solver's knobs (sinew_mgpbd_desc); 0 / negative: its defaults. */
    uint32_t pcg_iterations;   /* most CG iterations per outer iteration */
    double pcg_tolerance;      /* CG's relative tolerance; negative: the default */
    int setup_interval;        /* frames between AMG setups; negative: the default; 0: every outer iteration */
    int lambda_full;           /* the paper's code's line search (sinew_mgpbd_desc.lambda_full) */
    double cheby_upper;        /* > 0: sinew_amg_cycle.cheby_upper */
    int coarse_gram;           /* lazy coarse operators in the Gram form (sinew_mgpbd_desc.coarse) */
    int keep_rho;              /* sinew_mgpbd_desc.rho = SINEW_MGPBD_RHO_KEEP */
    int host_rho;              /* ... SINEW_MGPBD_RHO_HOST (the default: DEVICE) */
    int smoothed;              /* sinew_amg_options.smooth: 0 unsmoothed, 1 smoothed aggregation; negative: default */
    int near_kernel;           /* sinew_amg_options.candidate_sweeps; negative: the default */
    uint32_t compare_old;      /* > 0: each scene's MGPBD run again for this many outer iterations the way
                                * lazy iterations ran before rho moved to the device (smoothed aggregation,
                                * rho on the host), timed beside the defaults */
    const char *export_dir;    /* NULL, or where NAME.mtx, NAME.b.mtx and sinew-amg.jsonl go */
    int dry_run;               /* tiny sizes, to check a set-up in seconds */
    int plots;                 /* call gnuplot */
} bench_mgpbd_options;

bench_mgpbd_options bench_mgpbd_options_default(void);

/* Runs the suite on ctx; writes bench.json, README.md, mgpbd_*.dat/.gp and,
 * with plots, mgpbd_*.png into out. 1 on success. */
int bench_mgpbd(sinew_context *ctx, const bench_mgpbd_options *o, const char *out);

#endif
