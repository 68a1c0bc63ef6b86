/* The pd suite of sinew-bench: figures 3 and 4 of Pall, Nylén and
 * Fratarcangeli, "Fast Quadrangular Mass-Spring Systems using Red-Black
 * Ordering" (tools/bench_pd.c). */
#ifndef SINEW_TOOLS_BENCH_PD_H
#define SINEW_TOOLS_BENCH_PD_H

#include <sinew/sinew.h>

typedef struct bench_pd_options {
    uint32_t n;          /* particles per side (the paper's 100: 19 800 springs) */
    uint32_t frames;     /* steps of every run */
    uint32_t iterations; /* per frame in the iteration comparison (the paper's 11) */
    double budget_ms;    /* per frame in the time-budget comparison; <= 0: the
                            time red-black Gauss-Seidel takes for `iterations` */
    double stiffness;    /* N/m of every spring */
    int plots;           /* call gnuplot */
} bench_pd_options;

bench_pd_options bench_pd_options_default(void);

/* Runs the suite on ctx and writes pd_error.csv, pd_timing.csv,
 * pd_chebyshev.csv, README.md, gnuplot scripts and data (pd_shrink.gp/.dat,
 * pd_hanging.gp/.dat) and, with plots, their pictures into out. 1 on
 * success. */
int bench_pd(sinew_context *ctx, const bench_pd_options *o, const char *out);

#endif
