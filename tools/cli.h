/* Small command-line helpers shared by the tools: strict number parsing with
 * messages that name the option. */
#ifndef SINEW_TOOLS_CLI_H
#define SINEW_TOOLS_CLI_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int cli_error(const char *tool, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", tool);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(try %s --help)\n", tool);
    return 0;
}

/* Parses a finite double; 0 and a message on failure. */
static inline int cli_double(const char *tool, const char *opt, const char *text, double *out)
{
    if (!text)
        return cli_error(tool, "%s needs a value%s", opt, "");
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
        return cli_error(tool, "%s: \"%s\" is not a finite number", opt, text);
    *out = v;
    return 1;
}

static inline int cli_uint(const char *tool, const char *opt, const char *text, unsigned long max, unsigned *out)
{
    if (!text)
        return cli_error(tool, "%s needs a value%s", opt, "");
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || text[0] == '-' || v > max) {
        fprintf(stderr, "%s: %s: \"%s\" is not a whole number in 0..%lu\n(try %s --help)\n", tool, opt, text,
                max, tool);
        return 0;
    }
    *out = (unsigned)v;
    return 1;
}

/* Parses exactly `count` comma-separated finite numbers. */
static inline int cli_doubles(const char *tool, const char *opt, const char *text, int count, double *out)
{
    if (!text)
        return cli_error(tool, "%s needs a value%s", opt, "");
    const char *p = text;
    for (int i = 0; i < count; i++) {
        char *end;
        errno = 0;
        out[i] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(out[i]) || (i + 1 < count ? *end != ',' : *end != '\0')) {
            char want[48];
            snprintf(want, sizeof want, "%d comma-separated numbers", count);
            return cli_error(tool, "%s: expected %s", opt, want);
        }
        p = end + 1;
    }
    return 1;
}

/* Whole writes and reads through a pipe (retried on EINTR); 0 on failure or EOF. */
static inline int cli_write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n;
        size -= (size_t)n;
    }
    return 1;
}

static inline int cli_read_all(int fd, void *data, size_t size)
{
    char *p = data;
    while (size > 0) {
        ssize_t n = read(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n;
        size -= (size_t)n;
    }
    return 1;
}

#endif
