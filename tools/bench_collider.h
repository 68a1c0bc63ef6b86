/* The collider suite of sinew-bench: what a triangle-mesh collider costs,
 * its distance field's build on the host and its contacts on the device,
 * against the analytic sphere it stands in for (tools/bench_collider.c). */
#ifndef SINEW_TOOLS_BENCH_COLLIDER_H
#define SINEW_TOOLS_BENCH_COLLIDER_H

#include <sinew/sinew.h>

typedef struct bench_collider_options {
    const char *meshes;   /* folder of CGAL's demo meshes (SINEW_CGAL_DATA/meshes); NULL: the icosphere only */
    uint32_t steps;       /* timed steps of each cloth run, after as many to land */
    uint32_t cloth;       /* particles per side of the cloth */
    int dry_run;          /* small sizes, to check a set-up */
} bench_collider_options;

bench_collider_options bench_collider_options_default(void);

/* Runs the suite on ctx; writes collider.csv and README.md into out. 1 on success. */
int bench_collider(sinew_context *ctx, const bench_collider_options *o, const char *out);

#endif
