/* sinew-bench's shared helpers (bench.h): a context for a paper suite, files,
 * gnuplot, the text of the results pages, JSON members. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int bench_on_device(const bench_args *a, const char *name, int (*fn)(sinew_context *, const void *, const char *),
                    const void *options)
{
    const char *t = "sinew-bench";
    if (mkdir(a->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create %s: %s\n", t, a->out, strerror(errno));
        return 0;
    }
    sinew_context_desc cd = sinew_context_desc_default();
    cd.device = a->device;
    cd.validation = a->validation;
    sinew_context *ctx = NULL;
    if (sinew_context_create(&cd, &ctx) != SINEW_RESULT_OK) {
        fprintf(stderr, "%s: no Vulkan context\n", t);
        return 0;
    }
    fprintf(stderr, "sinew-bench: %s suite on %s\n", name, sinew_context_get_device_info(ctx).name);
    int done = fn(ctx, options, a->out);
    uint32_t messages = sinew_context_get_validation_message_count(ctx);
    sinew_context_destroy(ctx);
    if (messages)
        fprintf(stderr, "sinew-bench: %u validation messages\n", messages);
    return done && !messages;
}

double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int bench_write_text(const char *path, const char *text)
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

int bench_open_results(const char *out, const char *csv_name, FILE **csv, FILE **md)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", out, csv_name);
    *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/README.md", out);
    *md = fopen(path, "w");
    if (*csv && *md)
        return 1;
    fprintf(stderr, "sinew-bench: cannot write into %s: %s\n", out, strerror(errno));
    if (*csv)
        fclose(*csv);
    if (*md)
        fclose(*md);
    *csv = *md = NULL;
    return 0;
}

void bench_gnuplot(const char *path)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", path);
    if (system(cmd) != 0)
        fprintf(stderr, "sinew-bench: gnuplot failed on %s (is gnuplot installed?)\n", path);
}

void add(bench_text *t, const char *fmt, ...)
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

const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsString(v) ? v->valuestring : "?";
}

double jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}
