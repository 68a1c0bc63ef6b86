/* What sinew-bench's suites share: the options (one table in sinew-bench.c
 * reads them all; each suite reads its own), the suite table's row, a context
 * on the device the options name, timing, text and JSON helpers (bench.c). */
#ifndef SINEW_TOOLS_BENCH_H
#define SINEW_TOOLS_BENCH_H

#include <sinew/sinew.h>

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "bench_collider.h"
#include "bench_implicit.h"
#include "bench_mgpbd.h"
#include "bench_pd.h"

#if defined(__GNUC__) || defined(__clang__)
#define BENCH_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define BENCH_PRINTF(a, b)
#endif

#define BENCH_MAX_PEERS 16
#define BENCH_MAX_CUBES 6

typedef struct bench_args {
    const char *suite;  /* its name, as given to --suite */
    const char *out;    /* the folder the results go to */
    const char *device; /* NULL: SINEW_DEVICE, else the best */
    const char *report, *compare; /* bench.json files: the page made again from one, compared with one */
    const char *peers[BENCH_MAX_PEERS];
    int peer_count;
    int validation, no_plots, dry_run, help, out_given;
    uint32_t cubes[BENCH_MAX_CUBES], cube_count; /* --cube: GPBD cube sizes in place of the suite's */
    unsigned steps;                              /* --steps; 0: the suite's */
    /* The paper suites' options, their defaults replaced by those given. */
    bench_pd_options pd;
    bench_implicit_options implicit;
    bench_collider_options collider;
    bench_mgpbd_options mgpbd;
    unsigned setup_interval; /* --setup-interval, into mgpbd.setup_interval when given */
    int setup_interval_given, tets_given, model_given, quality_given;
} bench_args;

struct bench_sizes;

/* A row of the suite table: the measured suites (cloth, cube and sheet
 * scenes) name their scenes and sizes, whose runs bench_measure makes and
 * bench_write writes; the paper suites measure and write their own files in
 * `run`. */
typedef struct bench_suite {
    const char *name;
    const char *description; /* for --help */
    const char *options;     /* the options of its own it reads, space-separated */
    const struct bench_sizes *sizes;
    int (*run)(const bench_args *a); /* 1 on success, no validation message included */
} bench_suite;

/* The paper suites (bench_pd.c, bench_implicit.c, bench_collider.c, bench_mgpbd.c). */
int bench_pd_suite(const bench_args *a);
int bench_implicit_suite(const bench_args *a);
int bench_collider_suite(const bench_args *a);
int bench_overlap_suite(const bench_args *a);
int bench_clusters_suite(const bench_args *a); /* bench_clusters.c */
int bench_selfcol_suite(const bench_args *a);  /* bench_selfcol.c */
int bench_mgpbd_suite(const bench_args *a);
int bench_accuracy_suite(const bench_args *a); /* bench_accuracy.c */
int bench_accuracy_implicit_suite(const bench_args *a); /* bench_accuracy.c */
int bench_accuracy_cloth_suite(const bench_args *a); /* bench_accuracy_cloth.c */
int bench_accuracy_settle_suite(const bench_args *a); /* bench_accuracy.c */
int bench_stiff_suite(const bench_args *a);    /* bench_stiff.c */
int bench_world_suite(const bench_args *a);    /* bench_world.c */

/* Runs a paper suite's `fn(ctx, options, out)` on a context of the device and
 * validation the options ask for, in the out folder (made here); 1 when it
 * succeeded and the validation layers said nothing. */
int bench_on_device(const bench_args *a, const char *name, int (*fn)(sinew_context *, const void *, const char *),
                    const void *options);

/* Seconds on the monotonic clock. */
double bench_now_s(void);

/* Writes text to path; 0 with a message on failure. */
int bench_write_text(const char *path, const char *text);

/* A suite's results: opens OUT/csv_name and OUT/README.md for writing; 0
 * with a message (and neither left open) when either cannot be. */
int bench_open_results(const char *out, const char *csv_name, FILE **csv, FILE **md);

/* gnuplot on the script at path, with a message when it fails. */
void bench_gnuplot(const char *path);

/* Appends printf-formatted text to a growing buffer (the results pages). */
typedef struct bench_text {
    char *s;
    size_t len, cap;
} bench_text;
void add(bench_text *t, const char *fmt, ...) BENCH_PRINTF(2, 3);

/* A string or number member of a JSON object; "?" or NaN when it has none. */
const char *jstr(const cJSON *o, const char *k);
double jnum(const cJSON *o, const char *k);

#endif
