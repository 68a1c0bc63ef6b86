/* Small command-line helpers shared by the tools: strict number parsing with
 * messages that name the option, a table-driven option parser that also
 * writes --help, and --solver through the library's one list of solvers. */
#ifndef SINEW_TOOLS_CLI_H
#define SINEW_TOOLS_CLI_H

#include <sinew/sinew.h>

#include "core/file.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Parses a whole number in min..max. */
static inline int cli_uint_in(const char *tool, const char *opt, const char *text, unsigned long min,
                              unsigned long max, unsigned *out)
{
    if (!text)
        return cli_error(tool, "%s needs a value%s", opt, "");
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || text[0] == '-' || v < min || v > max) {
        fprintf(stderr, "%s: %s: \"%s\" is not a whole number in %lu..%lu\n(try %s --help)\n", tool, opt, text,
                min, max, tool);
        return 0;
    }
    *out = (unsigned)v;
    return 1;
}

static inline int cli_uint(const char *tool, const char *opt, const char *text, unsigned long max, unsigned *out)
{
    return cli_uint_in(tool, opt, text, 0, max, out);
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
        if (end != p && (errno == ERANGE || !isfinite(out[i]))) {
            fprintf(stderr, "%s: %s: number %d of \"%s\", \"%.*s\", is not finite\n(try %s --help)\n", tool, opt, i + 1,
                    text, (int)(end - p), p, tool);
            return 0;
        }
        if (end == p || (i + 1 < count ? *end != ',' : *end != '\0')) {
            fprintf(stderr, "%s: %s: \"%s\" is not %d comma-separated numbers\n(try %s --help)\n", tool, opt, text,
                    count, tool);
            return 0;
        }
        p = end + 1;
    }
    return 1;
}

/* Parses a size in bytes: a number, alone or followed by K, M, G or T
 * (powers of 1024; "iB" or "B" may follow): 4096, 512M, 1.5G, 2GiB. */
static inline int cli_bytes(const char *tool, const char *opt, const char *text, uint64_t *out)
{
    if (!text)
        return cli_error(tool, "%s needs a size%s", opt, "");
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    const char *units = "KMGT", *unit = *end ? strchr(units, *end) : NULL;
    if (unit)
        v = ldexp(v, 10 * (int)(unit - units + 1)), end++;
    if (unit && (!strcmp(end, "iB") || !strcmp(end, "B")))
        end += strlen(end);
    if (end == text || *end != '\0' || errno == ERANGE || !(v >= 0.0) || !(v < 1.8e19))
        return cli_error(tool, "%s: \"%s\" is not a size: bytes, or a number with K, M, G or T (512M, 1.5G)", opt,
                         text);
    *out = (uint64_t)v;
    return 1;
}

/* ------------------------------------------------------------ option tables
 *
 * A tool lists its options in an array of cli_option, each row naming the
 * option, the kind of its value, where the value goes, its limits and its help
 * text; cli_parse reads argv through the table and cli_help prints it. A value
 * always comes from the next argument, even one starting with '-' (--gravity
 * -9.81). */

typedef enum cli_kind {
    CLI_FLAG,    /* no value: sets the int at `value` to 1 */
    CLI_UINT,    /* a whole number (unsigned) in min..max (max 0: UINT_MAX) */
    CLI_DOUBLE,  /* a finite number within `limits` */
    CLI_STRING,  /* the text itself (const char *) */
    CLI_DOUBLES, /* exactly `count` comma-separated finite numbers (double[count]) */
    CLI_CUSTOM,  /* `parse` reads the text into `value` */
    CLI_TEXT,    /* no option: `help` printed as it is, e.g. a heading */
} cli_kind;

/* Which limits of a CLI_DOUBLE apply, and which of them exclude the bound
 * itself; the row macros below spell the usual ones. */
enum { CLI_MIN = 1, CLI_MAX = 2, CLI_MIN_OPEN = 4, CLI_MAX_OPEN = 8 };
#define CLI_GT(a) .min = (a), .limits = CLI_MIN | CLI_MIN_OPEN                    /* > a */
#define CLI_GE(a) .min = (a), .limits = CLI_MIN                                   /* >= a */
#define CLI_IN(a, b) .min = (a), .max = (b), .limits = CLI_MIN | CLI_MAX          /* [a, b] */
#define CLI_IN_CO(a, b) .min = (a), .max = (b), .limits = CLI_MIN | CLI_MAX | CLI_MAX_OPEN /* [a, b) */
#define CLI_IN_OC(a, b) .min = (a), .max = (b), .limits = CLI_MIN | CLI_MAX | CLI_MIN_OPEN /* (a, b] */
#define CLI_IN_OO(a, b) .min = (a), .max = (b), .limits = CLI_MIN | CLI_MAX | CLI_MIN_OPEN | CLI_MAX_OPEN

typedef struct cli_option {
    const char *name;  /* "--frames" */
    const char *alias; /* "-n", or NULL */
    cli_kind kind;
    void *value;       /* where the value goes: int, unsigned, double, const char * or parse's own */
    const char *arg;   /* the value's name in --help ("N", "FILE") */
    const char *help;  /* wrapped to the terminal's 80 columns; '\n' breaks a line */
    double min, max;   /* CLI_UINT: the range; CLI_DOUBLE: the bounds `limits` names */
    unsigned limits;
    int count;         /* CLI_DOUBLES */
    /* CLI_CUSTOM: reads text (never NULL) for option opt into value; 0, having
     * said why (naming the option), when the text is not a value. */
    int (*parse)(const char *tool, const char *opt, const char *text, void *value);
    int *given;        /* set to 1 when the option appears; NULL: not wanted */
    int repeat;        /* may appear more than once, each adding (a shape, a body, a pin box); any other
                          option given twice is refused, naming it */
    int seen;          /* set by cli_parse: the option appeared */
} cli_option;

/* The number's limits as a message reads them: "> 0", "in [0, 0.5)". */
static inline void cli_limits_text(const cli_option *o, char *buf, size_t size)
{
    if ((o->limits & CLI_MIN) && (o->limits & CLI_MAX))
        snprintf(buf, size, "in %c%g, %g%c", o->limits & CLI_MIN_OPEN ? '(' : '[', o->min, o->max,
                 o->limits & CLI_MAX_OPEN ? ')' : ']');
    else if (o->limits & CLI_MIN)
        snprintf(buf, size, "%s %g", o->limits & CLI_MIN_OPEN ? ">" : ">=", o->min);
    else
        snprintf(buf, size, "%s %g", o->limits & CLI_MAX_OPEN ? "<" : "<=", o->max);
}

/* One value for row o from text (NULL: the argument list ended); 0 with a message on failure. */
static inline int cli_read_value(const char *tool, cli_option *o, const char *text)
{
    if (!text)
        return cli_error(tool, "%s needs %s", o->name, o->arg ? o->arg : "a value");
    switch (o->kind) {
    case CLI_UINT:
        return cli_uint_in(tool, o->name, text, (unsigned long)o->min, o->max > 0 ? (unsigned long)o->max : UINT_MAX,
                           o->value);
    case CLI_DOUBLE: {
        double v;
        if (!cli_double(tool, o->name, text, &v))
            return 0;
        int below = (o->limits & CLI_MIN) && ((o->limits & CLI_MIN_OPEN) ? !(v > o->min) : !(v >= o->min));
        int above = (o->limits & CLI_MAX) && ((o->limits & CLI_MAX_OPEN) ? !(v < o->max) : !(v <= o->max));
        if (below || above) {
            char limits[64];
            cli_limits_text(o, limits, sizeof limits);
            return cli_error(tool, "%s must be %s", o->name, limits);
        }
        *(double *)o->value = v;
        return 1;
    }
    case CLI_STRING:
        *(const char **)o->value = text;
        return 1;
    case CLI_DOUBLES:
        return cli_doubles(tool, o->name, text, o->count, o->value);
    case CLI_CUSTOM:
        return o->parse(tool, o->name, text, o->value);
    default:
        return 0;
    }
}

/* Reads argv[1..] through the table: options and their values into the rows'
 * places, other arguments into *operand (one at most; NULL: none allowed),
 * which the messages call operand_name. 1, or 0 having said why. */
static inline int cli_parse(const char *tool, int argc, char **argv, cli_option *opts, size_t count,
                            const char **operand, const char *operand_name)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        cli_option *o = NULL;
        for (size_t k = 0; k < count && !o; k++)
            if (opts[k].kind != CLI_TEXT && (!strcmp(a, opts[k].name) || (opts[k].alias && !strcmp(a, opts[k].alias))))
                o = &opts[k];
        if (!o && a[0] == '-' && a[1] != '\0')
            return cli_error(tool, "unknown option %s%s", a, "");
        if (!o) {
            if (!operand)
                return cli_error(tool, "unexpected argument \"%s\"%s", a, "");
            if (*operand) {
                fprintf(stderr, "%s: only one %s may be given (\"%s\", then \"%s\")\n(try %s --help)\n", tool,
                        operand_name, *operand, a, tool);
                return 0;
            }
            *operand = a;
            continue;
        }
        if (o->seen && !o->repeat) {
            fprintf(stderr, "%s: %s%s%s%s is given twice: it takes one value, and the second would replace the "
                            "first\n(try %s --help)\n", tool, o->name, o->alias ? " (" : "", o->alias ? o->alias : "",
                    o->alias ? ")" : "", tool);
            return 0;
        }
        if (o->kind == CLI_FLAG)
            *(int *)o->value = 1;
        else if (!cli_read_value(tool, o, i + 1 < argc ? argv[++i] : NULL))
            return 0;
        o->seen = 1;
        if (o->given)
            *o->given = 1;
    }
    return 1;
}

/* For the hand-written parsers (sinew-prep's): 0 with a message when
 * option a (its long name: -o is --out) was seen before and is not among
 * `repeatable` (NULL-terminated); else records it. seen holds up to 128
 * names; an option past that is not checked. */
static inline int cli_once(const char *tool, const char *a, const char *const *repeatable, const char **seen,
                           unsigned *count)
{
    static const char *const aliases[][2] = {{"-o", "--out"}, {"-q", "--quiet"}, {"-h", "--help"},
                                             {"--tetrahedralize", "--tetrahedralise"}};
    for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; k++)
        if (!strcmp(a, aliases[k][0]))
            a = aliases[k][1];
    for (const char *const *r = repeatable; *r; r++)
        if (!strcmp(a, *r))
            return 1;
    for (unsigned k = 0; k < *count; k++)
        if (!strcmp(seen[k], a)) {
            fprintf(stderr, "%s: %s is given twice: it takes one value, and the second would replace the first\n"
                            "(try %s --help)\n", tool, a, tool);
            return 0;
        }
    if (*count < 128)
        seen[(*count)++] = a;
    return 1;
}

/* A tool's logger (sinew_logger.fn, user: a text naming the tool's flags,
 * such as its --help): the library's messages name its fields
 * ("self_capacity"), the user typed flags, so each snake_case word whose
 * dashed form is a flag of the text gets the flag beside it,
 * "self_capacity (--self-capacity)". Written as the library's own logger
 * writes (to stderr). */
static inline int cli_text_has_flag(const char *text, const char *flag)
{
    const size_t len = strlen(flag);
    for (const char *p = strstr(text, flag); p; p = strstr(p + 1, flag))
        if ((p == text || !strchr("abcdefghijklmnopqrstuvwxyz0123456789-", p[-1])) &&
            !strchr("abcdefghijklmnopqrstuvwxyz0123456789-", p[len] ? p[len] : ' '))
            return 1;
    return 0;
}

static inline void cli_log_flags(void *user, sinew_log_level level, const char *id, const char *message)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    const char *flags = user ? (const char *)user : "";
    char out[4096];
    size_t n = 0;
    for (const char *p = message; *p && n + 1 < sizeof out;) {
        size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
        const int word =
            len && (p == message || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", p[-1]));
        if (!len)
            len = 1;
        char dashed[64] = "--";
        int flag = 0;
        if (word && memchr(p, '_', len) && len + 3 < sizeof dashed) {
            for (size_t k = 0; k < len; k++)
                dashed[2 + k] = p[k] == '_' ? '-' : p[k];
            dashed[2 + len] = '\0';
            flag = cli_text_has_flag(flags, dashed);
        }
        n += (size_t)snprintf(out + n, sizeof out - n, "%.*s", (int)len, p);
        if (flag && n + 1 < sizeof out)
            n += (size_t)snprintf(out + n, sizeof out - n, " (%s)", dashed);
        p += len;
    }
    fprintf(stderr, "sinew %s [%s]: %s\n", names[level <= SINEW_LOG_DEBUG ? level : SINEW_LOG_DEBUG], id, out);
}

/* Prints text from column `at` on, continuation lines from column `col`,
 * wrapped at 80 columns; '\n' breaks a line, the spaces opening a line
 * indent its continuations too, and runs of spaces within a line stay. */
static inline void cli_wrap(FILE *f, const char *text, int col, int at)
{
    for (int first = 1; first || *text; first = 0) {
        const char *end = text + strcspn(text, "\n");
        int indent = (int)strspn(text, " ");
        if (!first)
            at = fprintf(f, "\n%*s", col, "") - 1;
        const char *p = text;
        for (int start = 1; p < end;) {
            const int gap = (int)strspn(p, " "), len = (int)strcspn(p + gap, " \n");
            int spaces = gap;
            if (!start && at + gap + len > 80) {
                at = fprintf(f, "\n%*s", col + indent, "") - 1;
                spaces = 0;
            }
            at += fprintf(f, "%*s%.*s", spaces, "", len, p + gap);
            p += gap + len;
            start = 0;
        }
        text = *end ? end + 1 : end;
    }
    fputc('\n', f);
}

/* The options' help, aligned at column `col`. */
static inline void cli_help(FILE *f, const cli_option *opts, size_t count, int col)
{
    for (size_t k = 0; k < count; k++) {
        const cli_option *o = &opts[k];
        if (o->kind == CLI_TEXT) {
            fputs(o->help, f);
            continue;
        }
        char head[96];
        int at = snprintf(head, sizeof head, "  %s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "    ",
                          o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fputs(head, f);
        if (at < col - 1)
            at += fprintf(f, "%*s", col - at, "");
        else
            at += fprintf(f, "  ");
        cli_wrap(f, o->help, col, at);
    }
}

/* One of `count` names: its index, or -1 with a message listing them. */
static inline int cli_choice(const char *tool, const char *opt, const char *text, const char *const *names, int count)
{
    for (int k = 0; k < count; k++)
        if (!strcmp(text, names[k]))
            return k;
    fprintf(stderr, "%s: %s: \"%s\" is not ", tool, opt, text);
    for (int k = 0; k < count; k++)
        fprintf(stderr, "%s%s", k == 0 ? "" : k + 1 < count ? ", " : " or ", names[k]);
    fprintf(stderr, "\n(try %s --help)\n", tool);
    return -1;
}

/* A CLI_CUSTOM parse for a picture or window size WxH, each in 16..8192
 * pixels, into unsigned[2]. */
static inline int cli_pixels(const char *tool, const char *opt, const char *text, void *value)
{
    unsigned *wh = value, w, h;
    char end;
    if (sscanf(text, "%ux%u%c", &w, &h, &end) != 2 || w < 16 || h < 16 || w > 8192 || h > 8192)
        return cli_error(tool, "%s: \"%s\" is not WxH with each in 16..8192", opt, text);
    wh[0] = w;
    wh[1] = h;
    return 1;
}

/* ------------------------------------------------------------------ solvers
 *
 * The tools take and print solver names only through the library's table
 * (sinew_solver_name, sinew_solver_from_name): a solver added there is on
 * every command line. */

/* The names, "xpbd-gs, xpbd-jacobi, ... or implicit-pcg", into buf. */
static inline void cli_solver_names(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int s = 0; sinew_solver_name((sinew_solver)s) && len < size; s++) {
        const char *sep = s == 0 ? "" : sinew_solver_name((sinew_solver)(s + 1)) ? ", " : " or ";
        int n = snprintf(buf + len, size - len, "%s%s", sep, sinew_solver_name((sinew_solver)s));
        len += n > 0 ? (size_t)n : 0;
    }
}

/* A CLI_CUSTOM parse for --solver NAME into a sinew_solver. */
static inline int cli_solver(const char *tool, const char *opt, const char *text, void *value)
{
    if (sinew_solver_from_name(text, (sinew_solver *)value) == SINEW_RESULT_OK)
        return 1;
    char names[1024];
    cli_solver_names(names, sizeof names);
    fprintf(stderr, "%s: %s: \"%s\" is not %s\n(try %s --help)\n", tool, opt, text, names, tool);
    return 0;
}

/* Help text for --solver: `intro`, then each name and what it is, a line each. */
static inline void cli_solver_help(char *buf, size_t size, const char *intro)
{
    size_t len = (size_t)snprintf(buf, size, "%s", intro);
    for (int s = 0; sinew_solver_name((sinew_solver)s) && len < size; s++) {
        int n = snprintf(buf + len, size - len, "\n  %-13s %s", sinew_solver_name((sinew_solver)s),
                         sinew_solver_label((sinew_solver)s));
        len += n > 0 ? (size_t)n : 0;
    }
}

/* ------------------------------------------------------------------ paths
 *
 * Outputs are checked before a run starts, so that a long run never ends in a
 * message that it could not write its results, and no output overwrites an
 * input. */

/* path's folder (".", or the text before its last '/') into dir; its last
 * part returned. */
static inline const char *cli_split_path(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    else
        snprintf(dir, size, ".");
    return slash ? slash + 1 : path;
}

/* Whether paths a and b name one file: the same device and inode where both
 * exist; where neither does yet (outputs), the same name in the same folder. */
static inline int cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb)
        return 0;
    char da[4096], db[4096];
    const char *na = cli_split_path(a, da, sizeof da), *nb = cli_split_path(b, db, sizeof db);
    if (strcmp(na, nb) != 0)
        return 0;
    if (stat(da, &sa) == 0 && stat(db, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return !strcmp(a, b);
}

/* Creates folder path and any missing folders above it (mkdir -p); 0 with
 * errno set on failure, ENOTDIR where a part is a file. */
static inline int cli_mkdir_p(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return 0;
    }
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        struct stat st;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return 0;
        if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return 0;
        }
        *p = c;
        if (c == '\0' || p[1] == '\0')
            return 1;
    }
}

/* A logger for the checks below, whose id is what the path is to the tool
 * ("--json", "the mesh"): "TOOL: ID MESSAGE" on stderr. */
static inline void cli_log(void *tool, sinew_log_level level, const char *id, const char *message)
{
    (void)level;
    fprintf(stderr, "%s: %s %s\n", (const char *)tool, id, message);
}

/* Whether input `what` ("the asset", "--resume") can be read at path, by the
 * library's rules for inputs (core/file.h: a regular file that opens); 0,
 * having said why, if not. Nothing is read. */
static inline int cli_input(const char *tool, const char *what, const char *path)
{
    sinew_logger lg = {cli_log, (void *)tool, SINEW_LOG_ERROR};
    return sinew_file_check_input(path, &lg, what) == SINEW_RESULT_OK;
}

/* Whether output `what` can be written at path, by the library's rules for
 * outputs (core/file.h: nothing there yet or a regular file, a symbolic link
 * written through, never a folder, device, FIFO or socket); 0, having said
 * why, if not. Nothing is created. */
static inline int cli_output(const char *tool, const char *what, const char *path)
{
    sinew_logger lg = {cli_log, (void *)tool, SINEW_LOG_ERROR};
    return sinew_file_check_output(path, &lg, what) == SINEW_RESULT_OK;
}

/* Output `what` opened at path to write from its start, by the same rules
 * (sinew_file_open_output); NULL, having said why. */
static inline FILE *cli_open_output(const char *tool, const char *what, const char *path)
{
    sinew_logger lg = {cli_log, (void *)tool, SINEW_LOG_ERROR};
    FILE *f = NULL;
    sinew_file_open_output(path, &lg, what, &f);
    return f;
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
