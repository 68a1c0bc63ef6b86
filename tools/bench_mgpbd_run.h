/* The mgpbd suite's records, shared by its runs (bench_mgpbd.c) and its
 * results (bench_mgpbd_report.c). */
#ifndef SINEW_TOOLS_BENCH_MGPBD_RUN_H
#define SINEW_TOOLS_BENCH_MGPBD_RUN_H

#include <cjson/cJSON.h>

#include "bench_mgpbd.h"
#include "solvers/amg.h"
#include "solvers/mgpbd.h"

#define SHEAR_MODULUS 1e9 /* Pa: the paper's stiff material */
#define STEP_H 0.01f      /* s */
#define TARGET 1e-2       /* the paper's |b| / |b_0| */
#define BAR_SIZE_X 0.1
#define BAR_SIZE_Z 0.5
#define GPU_BYTES 80e9    /* the memory of the GPUs the paper names (80 GB) */
#define MAX_OUTER 1000
#define MAX_SAMPLES 64
#define XPBD_CHUNK 200u   /* sweeps per submit */
#define HOST_TOL 1e-6     /* the AMG peers' tolerance (tools/peers/amg.sh) */
#define HOST_MAXITER 5000u

typedef struct outer_rec {
    double rel;      /* |b_k| / |b_0| at the iteration's start */
    double cum_ms;   /* wall time of the iterations before it */
    double ms;       /* its own wall time */
    double pcg_rel;  /* CG's |r| / |b| at its end */
    double step;     /* the line search's t (1: the whole step) */
    uint32_t pcg;    /* CG iterations */
    int setup;       /* the hierarchy was set up afresh */
    int indefinite;  /* sinew_mgpbd_iteration.indefinite: 1 lazy operators flagged (set up again), 2 flagged again */
    int coarse_diagonal; /* the flag came from a coarse diagonal <= 0, not from CG */
} outer_rec;

typedef struct sweep_rec {
    uint32_t sweeps;
    double rel, cum_ms;
} sweep_rec;

typedef struct host_rec {
    int done;
    uint32_t iterations, levels, level_rows[SINEW_AMG_MAX_LEVELS], level_nnz[SINEW_AMG_MAX_LEVELS];
    int converged;
    double setup_ms, solve_ms, operator_complexity, grid_complexity, final_relative;
} host_rec;

typedef struct run {
    char scene[32], name[64];
    uint32_t tets, particles, pinned, constraints, colours, nnz;
    double max_volume;   /* TetGen's -a (m^3; 0: none) */
    uint32_t lattice_cells; /* or the lattice's cubes along the longest side (0: TetGen) */
    double prep_ms;      /* meshing and building the asset */
    double b0;           /* |b_0| */
    outer_rec mg[MAX_OUTER + 1];
    uint32_t mg_count;   /* outer iterations done; mg[mg_count].rel is the residual after them */
    uint32_t mg_reach;   /* iterations to |b| <= TARGET |b_0| (0: not reached) */
    double mg_reach_ms;
    uint32_t mg_pcg_total, setups;
    uint32_t levels, level_rows[SINEW_AMG_MAX_LEVELS], level_nnz[SINEW_AMG_MAX_LEVELS];
    double operator_complexity, grid_complexity, setup_ms;
    uint64_t device_bytes;
    sweep_rec xp[MAX_SAMPLES];
    uint32_t xp_count;
    double xp_ms_per_sweep;
    host_rec amg, jacobi;
    host_rec variant[4];  /* the first system on the host: UA, UA + near kernel, SA, SA + near kernel */
    /* compare_old: the old lazy path's first (setup) and mean lazy iteration */
    uint32_t old_count;
    double old_first_ms, old_lazy_ms, new_lazy_ms;
    uint32_t old_pcg, new_pcg;
    sinew_mgpbd_profile profile; /* one more lazy iteration, part by part (profiled 1) */
    int profiled;
    uint64_t lazy_submits, lazy_readback, lazy_dispatches, lazy_barriers; /* per lazy iteration of the default run */
    int ok;
    char failure[256];
} run;

/* The solver's desc as the options set it. */
sinew_mgpbd_desc solver_desc(const bench_mgpbd_options *o);
/* One JSON object with the keys of tools/peers/amg_pyamg.py: the host's AMG
 * (jacobi 0) or Jacobi CG solve of the run's first system. */
cJSON *host_json(const run *rn, int jacobi);
/* bench.json, README.md, the plots and the key numbers on stderr; 0 when a
 * file could not be written or a run failed. */
int mgpbd_write(const bench_mgpbd_options *o, const char *out, const run *runs, uint32_t count,
                const sinew_device_info *di, double other, int cpus, double wall);

#endif
