/* The implicit suite of sinew-bench: table 1 of Jeon et al., "Constrainable
 * Multigrid for Cloth" (2013): the multigrid V-cycle against Baraff and
 * Witkin's modified PCG on the same implicit step (tools/bench_implicit.c). */
#ifndef SINEW_TOOLS_BENCH_IMPLICIT_H
#define SINEW_TOOLS_BENCH_IMPLICIT_H

#include <sinew/sinew.h>

typedef struct bench_implicit_options {
    uint32_t subdivisions[4]; /* of a 12 x 12-quad square: (12 2^s + 1)^2 particles each */
    uint32_t size_count;
    uint32_t steps;           /* of each run */
    float tolerance;          /* relative residual of every solve (the paper's 1e-4) */
    int plots;                /* call gnuplot */
} bench_implicit_options;

bench_implicit_options bench_implicit_options_default(void);

/* Runs the suite on ctx; writes implicit.csv, README.md, implicit.gp/.dat
 * and, with plots, implicit.png into out. 1 on success. */
int bench_implicit(sinew_context *ctx, const bench_implicit_options *o, const char *out);

#endif
