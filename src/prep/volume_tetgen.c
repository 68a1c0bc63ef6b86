/* TetGen (Si 2015, "TetGen, a Delaunay-based quality tetrahedral mesh
 * generator", ACM TOMS 41(2)): its .node/.ele files, read safely from untrusted
 * input, and the tetgen executable run on a closed surface.
 *
 *   X.node   N 3 A B                   points, dimension, attributes, markers (0|1)
 *            i x y z [A values] [B]    N lines, i = first, first + 1, ...
 *   X.ele    T K R                     tetrahedra, nodes per tet (4|10), attributes
 *            j n0 .. nK-1 [R values]   T lines
 *
 * '#' starts a comment. The first point's number (0 or 1) is where the
 * numbering starts, in both files. A tetrahedron's first attribute is its
 * region: tetgen -A gives each the attribute of the region (of the .poly's
 * region list) it lies in, written as a real.
 *
 * TetGen runs as a child process (posix_spawn, no shell) in a private
 * temporary directory (mkdtemp) holding the .smesh we write and what it
 * writes back; the directory is removed afterwards, whatever happened.
 */
#define _POSIX_C_SOURCE 200809L

#include "volume.h"
#include "mesh_text.h"

#include "core/file.h"
#include "core/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define NONE UINT32_MAX

/* ------------------------------------------------------------ reader */

typedef struct tetgen_reader {
    sinew_text t;
    const char *name;
    const sinew_logger *lg;
} tetgen_reader;

static sinew_result fail(tetgen_reader *r, const char *fmt, ...) SINEW_PRINTF(2, 3);
static sinew_result fail(tetgen_reader *r, const char *fmt, ...)
{
    char problem[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": %s", r->name, r->t.line_no,
                      problem);
}

static sinew_result out_of_memory(tetgen_reader *r)
{
    return sinew_fail(r->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s:%" PRIu64 ": out of memory", r->name,
                      r->t.line_no);
}

static int next_record(tetgen_reader *r, sinew_token *tok)
{
    while (sinew_text_next_line(&r->t))
        if (sinew_text_token(&r->t, tok))
            return 1;
    return 0;
}

static sinew_result parse_int(tetgen_reader *r, sinew_token tok, const char *what, int64_t lo, int64_t hi,
                              int64_t *out)
{
    char buf[40];
    if (tok.len == 0)
        return fail(r, "%s missing", what);
    if (!sinew_token_int(tok, out))
        return fail(r, "%s: '%s' is not an integer", what, sinew_token_printable(tok, buf));
    if (*out < lo || *out > hi)
        return fail(r, "%s %" PRId64 " out of range (%" PRId64 "..%" PRId64 ")", what, *out, lo, hi);
    return SINEW_RESULT_OK;
}

/* The header's fields after the first; missing trailing ones are 0. */
static sinew_result header_field(tetgen_reader *r, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    sinew_token tok;
    if (!sinew_text_token(&r->t, &tok)) {
        *out = 0;
        return lo <= 0 ? SINEW_RESULT_OK : fail(r, "the header has no %s", what);
    }
    return parse_int(r, tok, what, lo, hi, out);
}

/* Each record of `fields` tokens takes at least 2 bytes per token. */
static sinew_result check_fits(tetgen_reader *r, int64_t count, int64_t fields, const char *what)
{
    uint64_t left = r->t.size - r->t.next;
    if ((uint64_t)count > (left + 1) / (2 * (uint64_t)fields))
        return fail(r, "%" PRId64 " %s do not fit in the %" PRIu64 " bytes left", count, what, left);
    return SINEW_RESULT_OK;
}

/* TetGen stops at the count; more records mean the count is wrong. */
static sinew_result check_end(tetgen_reader *r, int64_t count, const char *what)
{
    sinew_token tok;
    if (next_record(r, &tok))
        return fail(r, "more lines after the %" PRId64 " %s the header counts", count, what);
    return SINEW_RESULT_OK;
}

/* The rest of a record must be exactly `extra` tokens (attributes, markers);
 * `have` of them already read. */
static sinew_result skip_fields(tetgen_reader *r, const char *what, uint32_t index, int64_t extra, int64_t have)
{
    sinew_token tok;
    while (sinew_text_token(&r->t, &tok))
        have++;
    if (have != extra)
        return fail(r, "%s %u has %" PRId64 " values after its %s, the header says %" PRId64, what, index, have,
                    what[0] == 'p' ? "coordinates" : "nodes", extra);
    return SINEW_RESULT_OK;
}

/* The line of record k (0: the header) of the text r reads: found again
 * only when a message needs it. */
static uint64_t record_line(const tetgen_reader *r, uint64_t k)
{
    tetgen_reader again = {.lg = r->lg};
    sinew_token tok;
    sinew_text_init(&again.t, r->t.data, r->t.size);
    for (uint64_t i = 0; i <= k && next_record(&again, &tok); i++)
        ;
    uint64_t line = again.t.line_no;
    sinew_text_free(&again.t);
    return line;
}

/* Point i's number must be first + i. One already given names both lines
 * (TetGen would take the second for the next point, and the tetrahedra
 * that name it would get the wrong one). */
static sinew_result point_number(tetgen_reader *r, sinew_token tok, uint32_t i, int64_t *first, int64_t *number)
{
    if (i == 0)
        return parse_int(r, tok, "point number", 0, 1, number);
    sinew_result res = parse_int(r, tok, "point number", INT64_MIN, INT64_MAX, number);
    if (res || *number == *first + i)
        return res;
    if (*number >= *first && *number < *first + i)
        return fail(r, "point number %" PRId64 " again: line %" PRIu64 " gave it already (points are numbered "
                    "%" PRId64 ", %" PRId64 ", ... in order; this one should be %" PRId64 ")",
                    *number, record_line(r, (uint64_t)(*number - *first) + 1), *first, *first + 1, *first + i);
    return fail(r, "point number %" PRId64 " out of order: this one should be %" PRId64 " (points are numbered "
                "%" PRId64 ", %" PRId64 ", ... in order)", *number, *first + i, *first, *first + 1);
}

static sinew_result read_points(tetgen_reader *r, sinew_volume *v, int64_t *first)
{
    sinew_token tok;
    int64_t count, dim, attributes, markers;
    sinew_result res;
    if (!next_record(r, &tok))
        return fail(r, "empty file");
    if ((res = parse_int(r, tok, "point count", 0, (int64_t)1 << 40, &count)) ||
        (res = header_field(r, "dimension", 3, 3, &dim)) ||
        (res = header_field(r, "attribute count", 0, 1 << 20, &attributes)) ||
        (res = header_field(r, "boundary marker count", 0, 1, &markers)))
        return res;
    if (count == 0)
        return fail(r, "no points");
    if (count > SINEW_VOLUME_MAX_VERTICES)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_LIMIT, "mesh", "%s: %" PRId64 " points exceed the limit of %u",
                          r->name, count, SINEW_VOLUME_MAX_VERTICES);
    if ((res = check_fits(r, count, 4, "points")))
        return res;
    v->positions = malloc(sizeof(double) * 3 * (size_t)count);
    if (!v->positions)
        return out_of_memory(r);
    for (uint32_t i = 0; i < count; i++) {
        int64_t number;
        if (!next_record(r, &tok))
            return fail(r, "file ends after %u of %" PRId64 " points", i, count);
        if ((res = point_number(r, tok, i, first, &number)))
            return res;
        if (i == 0)
            *first = number;
        double *p = v->positions + 3 * (size_t)i;
        for (int k = 0; k < 3; k++) {
            char buf[40];
            if (!sinew_text_token(&r->t, &tok))
                return fail(r, "point %" PRId64 " has %d coordinates, needs 3", number, k);
            int ok = sinew_text_double(&r->t, tok, &p[k]);
            if (ok < 0)
                return out_of_memory(r);
            if (!ok)
                return fail(r, "point %" PRId64 ": malformed number '%s'", number, sinew_token_printable(tok, buf));
            if (!isfinite(p[k]))
                return fail(r, "point %" PRId64 " has a non-finite coordinate", number);
        }
        if ((res = skip_fields(r, "point", (uint32_t)number, attributes + markers, 0)))
            return res;
    }
    v->vertex_count = (uint32_t)count;
    return check_end(r, count, "points");
}

/* A region attribute: a real within 1e-9 of an integer in 0..2^32-1 (tetgen
 * writes them with %g-like formats; a region is a whole number). */
static sinew_result parse_region(tetgen_reader *r, int64_t number, sinew_token tok, uint32_t *region)
{
    char buf[40];
    double x = 0.0;
    int ok = sinew_text_double(&r->t, tok, &x);
    if (ok < 0)
        return out_of_memory(r);
    if (!ok)
        return fail(r, "tetrahedron %" PRId64 ": region attribute '%s' is not a number", number,
                    sinew_token_printable(tok, buf));
    double whole = nearbyint(x);
    if (!(fabs(x - whole) <= 1e-9))
        return fail(r, "tetrahedron %" PRId64 ": region attribute %.17g is not a whole number", number, x);
    if (!(whole >= 0.0 && whole <= (double)UINT32_MAX))
        return fail(r, "tetrahedron %" PRId64 ": region attribute %.17g out of range (0..%u)", number, x,
                    UINT32_MAX);
    *region = (uint32_t)whole;
    return SINEW_RESULT_OK;
}

static sinew_result read_tets(tetgen_reader *r, sinew_volume *v, int64_t first)
{
    sinew_token tok;
    int64_t count, corners, attributes;
    sinew_result res;
    if (!next_record(r, &tok))
        return fail(r, "empty file");
    if ((res = parse_int(r, tok, "tetrahedron count", 0, (int64_t)1 << 40, &count)) ||
        (res = header_field(r, "nodes per tetrahedron", 4, 10, &corners)) ||
        (res = header_field(r, "attribute count", 0, 1 << 20, &attributes)))
        return res;
    if (corners != 4 && corners != 10)
        return fail(r, "%" PRId64 " nodes per tetrahedron: 4 or 10 expected", corners);
    if (count == 0)
        return fail(r, "no tetrahedra");
    if (count > SINEW_VOLUME_MAX_TETS)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_LIMIT, "mesh", "%s: %" PRId64 " tetrahedra exceed the limit of %u",
                          r->name, count, SINEW_VOLUME_MAX_TETS);
    if ((res = check_fits(r, count, 1 + corners, "tetrahedra")))
        return res;
    v->tets = malloc(sizeof(uint32_t) * 4 * (size_t)count);
    if (attributes > 0)
        v->regions = malloc(sizeof(uint32_t) * (size_t)count);
    if (!v->tets || (attributes > 0 && !v->regions))
        return out_of_memory(r);
    for (uint32_t i = 0; i < count; i++) {
        int64_t number, node;
        if (!next_record(r, &tok))
            return fail(r, "file ends after %u of %" PRId64 " tetrahedra", i, count);
        if ((res = parse_int(r, tok, "tetrahedron number", -((int64_t)1 << 40), (int64_t)1 << 40, &number)))
            return res;
        for (int64_t k = 0; k < corners; k++) {
            if (!sinew_text_token(&r->t, &tok))
                return fail(r, "tetrahedron %" PRId64 " has %" PRId64 " nodes, the header says %" PRId64, number, k,
                            corners);
            if ((res = parse_int(r, tok, "node", -((int64_t)1 << 40), (int64_t)1 << 40, &node)))
                return res;
            if (node < first || node - first >= v->vertex_count)
                return fail(r, "tetrahedron %" PRId64 ": node %" PRId64 " out of range (points %" PRId64 "..%" PRId64
                               ")", number, node, first, first + v->vertex_count - 1);
            /* Of 10-node tetrahedra, the corners come first. */
            if (k < 4)
                v->tets[4 * (size_t)i + k] = (uint32_t)(node - first);
        }
        if (attributes > 0) {
            if (!sinew_text_token(&r->t, &tok))
                return skip_fields(r, "tetrahedron", i, attributes, 0);
            if ((res = parse_region(r, number, tok, &v->regions[i])))
                return res;
        }
        if ((res = skip_fields(r, "tetrahedron", i, attributes, attributes > 0)))
            return res;
    }
    v->tet_count = (uint32_t)count;
    return check_end(r, count, "tetrahedra");
}

sinew_result sinew_volume_read_tetgen_memory(const char *node, size_t node_size, const char *node_name,
                                             const char *ele, size_t ele_size, const char *ele_name,
                                             const sinew_logger *lg, sinew_volume *out)
{
    SINEW_ASSERT(out && (node || node_size == 0) && (ele || ele_size == 0));
    memset(out, 0, sizeof *out);
    tetgen_reader r = {.name = node_name ? node_name : "<node>", .lg = lg};
    sinew_text_init(&r.t, node, node_size);
    int64_t first = 0;
    sinew_result res = read_points(&r, out, &first);
    sinew_text_free(&r.t);
    if (res == SINEW_RESULT_OK) {
        r.name = ele_name ? ele_name : "<ele>";
        sinew_text_init(&r.t, ele, ele_size);
        res = read_tets(&r, out, first);
        sinew_text_free(&r.t);
    }
    if (res != SINEW_RESULT_OK)
        sinew_volume_free(out);
    else
        sinew_volume_drop_zero_regions(out);
    return res;
}

/* ------------------------------------------------------------ running tetgen */

typedef struct tetgen_run {
    const char *name;
    const sinew_logger *lg;
    char dir[4096];
} tetgen_run;

static sinew_result oom(const tetgen_run *t)
{
    return sinew_fail(t->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", t->name);
}

static void path_in(const tetgen_run *t, const char *file, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", t->dir, file);
}

/* The used vertices and the faces, 0-based, as TetGen's .smesh:
 * points, facets (polygons), no holes, no regions. */
static sinew_result write_smesh(const tetgen_run *t, const sinew_mesh *m, const char *path)
{
    uint32_t *remap = malloc(sizeof(uint32_t) * ((size_t)m->vertex_count + 1));
    if (!remap)
        return oom(t);
    memset(remap, 0xff, sizeof(uint32_t) * m->vertex_count);
    for (uint32_t k = 0; k < m->face_offsets[m->face_count]; k++)
        remap[m->face_indices[k]] = 0;
    uint32_t used = 0, dropped = 0;
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        if (remap[i] == NONE)
            dropped++;
        else
            remap[i] = used++;
    }
    if (dropped)
        sinew_logf(t->lg, SINEW_LOG_INFO, "prep", "%s: %u vertices no face uses are left out", t->name, dropped);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(remap);
        return sinew_fail(t->lg, SINEW_RESULT_ERROR_IO, "prep", "cannot create %s: %s", path, strerror(errno));
    }
    fprintf(f, "# written by sinew: %u points, %u facets\n%u 3 0 0\n", used, m->face_count, used);
    for (uint32_t i = 0; i < m->vertex_count; i++)
        if (remap[i] != NONE) {
            const double *p = m->positions + 3 * (size_t)i;
            fprintf(f, "%u %.17g %.17g %.17g\n", remap[i], p[0], p[1], p[2]);
        }
    fprintf(f, "%u 0\n", m->face_count);
    for (uint32_t fi = 0; fi < m->face_count; fi++) {
        fprintf(f, "%u", m->face_offsets[fi + 1] - m->face_offsets[fi]);
        for (uint32_t k = m->face_offsets[fi]; k < m->face_offsets[fi + 1]; k++)
            fprintf(f, " %u", remap[m->face_indices[k]]);
        fputc('\n', f);
    }
    fprintf(f, "0\n0\n");
    free(remap);
    int failed = ferror(f);
    failed |= fclose(f) != 0;
    if (failed)
        return sinew_fail(t->lg, SINEW_RESULT_ERROR_IO, "prep", "cannot write %s: %s", path, strerror(errno));
    return SINEW_RESULT_OK;
}

/* The last bytes of a log TetGen wrote, on one line, printable, for a message. */
static void output_tail(const tetgen_run *t, const char *log, char *out, size_t size)
{
    char path[4200], buf[512];
    path_in(t, log, path, sizeof path);
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    long end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : 0;
    long from = end > (long)sizeof buf - 1 ? end - (long)sizeof buf + 1 : 0;
    size_t n = fseek(f, from, SEEK_SET) == 0 ? fread(buf, 1, sizeof buf - 1, f) : 0;
    fclose(f);
    size_t j = 0;
    int space = 1;
    for (size_t i = 0; i < n && j + 1 < size; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\n' || c == '\r' || c == ' ' || c == '\t') {
            if (!space)
                out[j++] = ' ';
            space = 1;
        } else {
            out[j++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
            space = 0;
        }
    }
    while (j > 0 && out[j - 1] == ' ')
        j--;
    out[j] = '\0';
}

/* Runs exe with argv, stdin from /dev/null, stdout and stderr into log in the
 * directory. The spawn's error (ENOENT: not found; EINTR: interrupted before
 * it started) or 0 with *status set. */
static int spawn(const tetgen_run *t, const char *exe, char *const argv[], const char *log, int *status)
{
    if (sinew_prep_interrupted) /* before TetGen started: it never does */
        return EINTR;
    char log_path[4200];
    path_in(t, log, log_path, sizeof log_path);
    posix_spawn_file_actions_t actions;
    int e = posix_spawn_file_actions_init(&actions);
    if (e != 0)
        return e;
    e = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (e == 0)
        e = posix_spawn_file_actions_addopen(&actions, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (e == 0)
        e = posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    if (e == 0)
        e = posix_spawnp(&pid, exe, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (e != 0)
        return e;
    int stopped = 0;
    while (waitpid(pid, status, 0) < 0) {
        if (errno != EINTR)
            return errno;
        if (sinew_prep_interrupted && !stopped++)
            kill(pid, SIGTERM);
    }
    return 0;
}

/* TetGen 1.5 stops on a self-intersecting surface by throwing, without a
 * message that survives (its output is lost in the abort). Its -d run, which
 * detects intersecting facets and exits normally, says which: facets are
 * numbered from 1 in the order written, one per face of the surface. */
static int find_intersection(const tetgen_run *t, const char *exe, const char *input, uint32_t *fa, uint32_t *fb,
                             uint32_t *pairs)
{
    char *argv[] = {(char *)exe, "-pzd", (char *)input, NULL};
    int status = 0;
    if (spawn(t, exe, argv, "diagnosis.log", &status) != 0 || !WIFEXITED(status))
        return 0;
    char path[4200], line[256];
    path_in(t, "diagnosis.log", path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    *pairs = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned a, b;
        if (sscanf(line, " Facet #%u intersects facet #%u", &a, &b) == 2 && a > 0 && b > 0 && (*pairs)++ == 0) {
            *fa = a - 1;
            *fb = b - 1;
        }
    }
    fclose(f);
    return *pairs > 0;
}

static int crash_signal(int sig)
{
    return sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

static sinew_result run_tetgen(const tetgen_run *t, const char *exe, double max_volume, double quality,
                               const char *input)
{
    char quality_arg[64], volume_arg[64];
    char *argv[6];
    int argc = 0;
    argv[argc++] = (char *)exe;
    /* p: the input is a piecewise linear complex; z: number from 0; Q: quiet. */
    argv[argc++] = "-pzQ";
    if (quality > 0.0) {
        snprintf(quality_arg, sizeof quality_arg, "-q%.9g", quality);
        argv[argc++] = quality_arg;
    }
    if (max_volume > 0.0) {
        snprintf(volume_arg, sizeof volume_arg, "-a%.9g", max_volume);
        argv[argc++] = volume_arg;
    }
    argv[argc++] = (char *)input;
    argv[argc] = NULL;
    int status = 0, e = spawn(t, exe, argv, "tetgen.log", &status);
    if (sinew_prep_interrupted)
        return sinew_fail(t->lg, SINEW_RESULT_ERROR_IO, "prep", "%s: interrupted while %s was meshing it", t->name,
                          exe);
    char tail[400];
    output_tail(t, "tetgen.log", tail, sizeof tail);
    /* 127: a shell's "not found", in case the C library reports exec failures so. */
    if (e == ENOENT || (e == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127 && !tail[0]))
        return sinew_fail(t->lg, SINEW_RESULT_ERROR_UNSUPPORTED, "prep",
                          "%s: %s not found: install Debian's tetgen package", t->name, exe);
    if (e != 0)
        return sinew_fail(t->lg, SINEW_RESULT_ERROR_IO, "prep", "%s: cannot run %s: %s", t->name, exe, strerror(e));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return SINEW_RESULT_OK;
    char failure[128];
    if (WIFSIGNALED(status))
        snprintf(failure, sizeof failure, "%s %s (signal %d, %s)", exe,
                 crash_signal(WTERMSIG(status)) ? "crashed" : "was killed", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(failure, sizeof failure, "%s failed (exit status %d)", exe,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    uint32_t fa = 0, fb = 0, pairs = 0;
    if (find_intersection(t, exe, input, &fa, &fb, &pairs))
        return sinew_fail(t->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                          "%s: the surface intersects itself: faces %u and %u (%u intersecting pairs, as tetgen -d "
                          "finds them); %s",
                          t->name, fa, fb, pairs, failure);
    /* A crash on this input is the input's problem; a kill from outside is not. */
    int killed = WIFSIGNALED(status) && !crash_signal(WTERMSIG(status));
    return sinew_fail(t->lg, killed ? SINEW_RESULT_ERROR_IO : SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: %s%s%s",
                      t->name, failure, tail[0] ? "; its output ends: " : "", tail);
}

/* TetGen writes X.1.node and X.1.ele beside X.smesh; it reports some failures
 * only by writing nothing. */
static sinew_result read_result(const tetgen_run *t, sinew_volume *out)
{
    char node_path[4200], ele_path[4200], tail[400];
    path_in(t, "surface.1.node", node_path, sizeof node_path);
    path_in(t, "surface.1.ele", ele_path, sizeof ele_path);
    struct stat st;
    if (stat(node_path, &st) != 0 || stat(ele_path, &st) != 0) {
        output_tail(t, "tetgen.log", tail, sizeof tail);
        return sinew_fail(t->lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: tetgen wrote no tetrahedra%s%s", t->name,
                          tail[0] ? ": " : "", tail);
    }
    uint8_t *node = NULL, *ele = NULL;
    size_t node_size = 0, ele_size = 0;
    sinew_result r = sinew_file_read(node_path, SINEW_MESH_MAX_FILE, t->lg, "prep", &node, &node_size);
    if (r == SINEW_RESULT_OK)
        r = sinew_file_read(ele_path, SINEW_MESH_MAX_FILE, t->lg, "prep", &ele, &ele_size);
    if (r == SINEW_RESULT_OK)
        r = sinew_volume_read_tetgen_memory((const char *)node, node_size, node_path, (const char *)ele, ele_size,
                                            ele_path, t->lg, out);
    free(node);
    free(ele);
    return r;
}

/* The directory holds only what we and TetGen wrote: plain files. */
static void remove_dir(const tetgen_run *t)
{
    DIR *d = opendir(t->dir);
    if (d) {
        struct dirent *e;
        char path[8192];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                snprintf(path, sizeof path, "%s/%s", t->dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    if (rmdir(t->dir) != 0)
        sinew_logf(t->lg, SINEW_LOG_WARNING, "prep", "cannot remove the temporary directory %s: %s", t->dir,
                   strerror(errno));
}

volatile sig_atomic_t sinew_prep_interrupted;

/* A logger that holds the last error instead of printing it: why TetGen
 * could not mesh a surface becomes part of a warning when the lattice
 * meshes it instead. */
typedef struct held_message {
    char text[1024];
} held_message;

static void hold_message(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)id;
    if (level == SINEW_LOG_ERROR)
        snprintf(((held_message *)user)->text, sizeof ((held_message *)user)->text, "%s", message);
}

/* The lattice's cubes along the longest side: from the volume bound (each
 * cube is six tetrahedra of h^3 / 6), else from the surface's median edge,
 * 8 to 32. 0 (and a message) when the bound asks for more than 256. */
static uint32_t lattice_cells(const sinew_mesh *m, double max_volume, const char *name, const sinew_logger *lg)
{
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], m->positions[3 * (size_t)v + a]);
            hi[a] = fmax(hi[a], m->positions[3 * (size_t)v + a]);
        }
    double longest = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (max_volume > 0.0) {
        double cells = ceil(longest / cbrt(6.0 * max_volume));
        if (!(cells <= 256.0)) {
            sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep",
                       "%s: a maximum volume of %g m^3 needs lattice cubes of %.3g m, %.0f along the longest side "
                       "(%.3g m); at most 256",
                       name, max_volume, cbrt(6.0 * max_volume), cells, longest);
            return 0;
        }
        return cells < 1.0 ? 1 : (uint32_t)cells;
    }
    /* The median of (up to 4096 of) the polygons' first edges, evenly picked. */
    double edges[4096];
    uint32_t n = 0, step = m->face_count / 4096 + 1;
    for (uint32_t f = 0; f < m->face_count && n < 4096; f += step) {
        const double *a = m->positions + 3 * (size_t)m->face_indices[m->face_offsets[f]],
                     *b = m->positions + 3 * (size_t)m->face_indices[m->face_offsets[f] + 1];
        edges[n++] = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    }
    for (uint32_t i = 1; i < n; i++) /* insertion sort: n is small */
        for (uint32_t j = i; j > 0 && edges[j - 1] > edges[j]; j--) {
            double x = edges[j];
            edges[j] = edges[j - 1];
            edges[j - 1] = x;
        }
    double median = n ? edges[n / 2] : 0.0, cells = median > 0.0 ? longest / median : 32.0;
    return cells < 8.0 ? 8 : cells > 32.0 ? 32 : (uint32_t)cells;
}

static sinew_result tetgen_mesh(const sinew_mesh *surface, double max_volume, double quality, const char *exe,
                                const char *name, const sinew_logger *lg, sinew_volume *out)
{
    tetgen_run t = {.name = name, .lg = lg};
    const char *tmp = getenv("TMPDIR");
    snprintf(t.dir, sizeof t.dir, "%s/sinew-tetgen-XXXXXX", tmp && tmp[0] && strlen(tmp) < 3000 ? tmp : "/tmp");
    if (!mkdtemp(t.dir))
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, "prep", "%s: cannot create a temporary directory %s: %s", t.name,
                          t.dir, strerror(errno));
    char input[4200];
    path_in(&t, "surface.smesh", input, sizeof input);
    sinew_result r = write_smesh(&t, surface, input);
    if (r == SINEW_RESULT_OK)
        r = run_tetgen(&t, exe, max_volume, quality, input);
    if (r == SINEW_RESULT_OK)
        r = read_result(&t, out);
    remove_dir(&t);
    return r;
}

sinew_result sinew_volume_tetrahedralise(const sinew_mesh *surface, double max_volume, double quality,
                                         const char *tetgen, const char *name, const sinew_logger *lg,
                                         sinew_volume *out)
{
    SINEW_ASSERT(surface);
    return sinew_volume_tetrahedralise_cover(surface, max_volume, quality, tetgen, surface->render_vertex_count > 0,
                                             name, lg, out, NULL);
}

sinew_result sinew_volume_tetrahedralise_cover(const sinew_mesh *surface, double max_volume, double quality,
                                               const char *tetgen, int cover, const char *name,
                                               const sinew_logger *lg, sinew_volume *out, int *by_lattice)
{
    SINEW_ASSERT(surface && out);
    memset(out, 0, sizeof *out);
    if (by_lattice)
        *by_lattice = 0;
    name = name ? name : "surface";
    const char *exe = tetgen ? tetgen : "tetgen";
    if (!(max_volume >= 0.0) || !isfinite(max_volume))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: maximum volume %g must be finite and >= 0 (0: none)", name, max_volume);
    if (!(quality == 0.0 || (quality >= 1.0 && isfinite(quality))))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: quality %g: TetGen's radius-edge bound must be finite and >= 1 (1.4 is a good one; "
                          "0: none)",
                          name, quality);
    held_message why = {{0}};
    sinew_logger holding = {hold_message, &why, SINEW_LOG_ERROR};
    sinew_result r = sinew_surface_check_closed(surface, name, &holding);
    if (r == SINEW_RESULT_OK && max_volume > 0.0) {
        /* Bounded work: TetGen needs at least this many tetrahedra. */
        double least = sinew_surface_enclosed_volume(surface) / max_volume;
        if (!(least <= SINEW_VOLUME_MAX_TETS))
            return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep",
                              "%s: a maximum volume of %g m^3 needs at least %.3g tetrahedra for the %.3g m^3 the "
                              "surface encloses; the limit is %u",
                              name, max_volume, least, sinew_surface_enclosed_volume(surface), SINEW_VOLUME_MAX_TETS);
    }
    if (r == SINEW_RESULT_OK) {
        r = tetgen_mesh(surface, max_volume, quality, exe, name, &holding, out);
        if (r == SINEW_RESULT_OK) {
            sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: tetgen made %u tetrahedra on %u points", name, out->tet_count,
                       out->vertex_count);
            /* TetGen's quality bound limits the radius-edge ratio, which
             * slivers satisfy: those with no orientation go. */
            uint32_t first = 0, made = out->tet_count, dropped = sinew_volume_drop_degenerate(out, &first);
            if (dropped)
                sinew_logf(lg, SINEW_LOG_WARNING, "prep",
                           "%s: dropped %u of the %u tetrahedra tetgen made: slivers too flat to keep an orientation "
                           "(first: tetrahedron %u of its output)",
                           name, dropped, made, first);
            return r;
        }
        /* Killed, interrupted, out of memory: not the surface's fault. */
        if (r != SINEW_RESULT_ERROR_BAD_MESH && r != SINEW_RESULT_ERROR_UNSUPPORTED)
            return sinew_fail(lg, r, "prep", "%s", why.text);
    } else if (r != SINEW_RESULT_ERROR_BAD_MESH) {
        return sinew_fail(lg, r, "prep", "%s", why.text);
    }
    uint32_t cells = lattice_cells(surface, max_volume, name, lg);
    if (cells == 0)
        return SINEW_RESULT_ERROR_LIMIT;
    sinew_logf(lg, SINEW_LOG_WARNING, "prep", "%s; the solid is meshed instead as lattice cubes (%u along the longest "
               "side) inside by generalised winding number, moved onto the surface", why.text, cells);
    if (by_lattice)
        *by_lattice = 1;
    return sinew_volume_lattice(surface, cells, SINEW_LATTICE_FOLLOW | (cover ? SINEW_LATTICE_COVER : 0), name, lg,
                                out);
}
