/* Matrix Market coordinate files (Boisvert, Pozo & Remington, "The Matrix
 * Market Exchange Formats: Initial Design", NIST IR 5935, 1996), read safely
 * from untrusted input and written exactly:
 *
 *   %%MatrixMarket matrix coordinate real general      header (banner)
 *   % any comment                                      comments
 *   rows cols entries                                  size line
 *   i j value                                          entries, 1-based
 *
 * Entries come as triplets in any order; they are sorted by row and column
 * into compressed rows, which finds entries given twice. Numbers go through
 * strtod (mesh_text.h says why the locale does not matter).
 */
#include "mtx.h"
#include "mesh_text.h"

#include "core/file.h"
#include "core/log.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows and columns beyond 2^26 (as many as a mesh has vertices) are refused
 * (LIMIT): the row offsets take 4 bytes a row whether or not the file lists
 * anything there, so a larger count in a 60-byte file would have it ask for
 * gigabytes. Every index and count below then fits a uint32_t. */
#define MAX_DIMENSION ((int64_t)1 << 26)
/* The shortest entry line, "1 1 1", and its newline. */
#define MIN_ENTRY_BYTES 6

typedef struct triplet {
    uint32_t i, j;
    uint32_t line;  /* where it was read, for messages */
    double v;
} triplet;

typedef struct reader {
    sinew_text t;
    const char *name;
    const sinew_logger *lg;
} reader;

SINEW_PRINTF(3, 4)
static sinew_result bad(reader *r, sinew_result code, const char *fmt, ...)
{
    char problem[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    return sinew_fail(r->lg, code, "mtx", "%s:%" PRIu64 ": %s", r->name, r->t.line_no, problem);
}

static int token_is(sinew_token tok, const char *word)
{
    size_t n = strlen(word);
    if (tok.len != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)tok.s[i]) != word[i])
            return 0;
    return 1;
}

/* The next line that is not blank (0 at the end of the text). */
static int next_content_line(reader *r)
{
    while (sinew_text_next_line(&r->t)) {
        const char *p = r->t.line;
        while (p < r->t.end && isspace((unsigned char)*p))
            p++;
        if (p < r->t.end)
            return 1;
    }
    return 0;
}

static int first_char_is(const reader *r, char c)
{
    const char *p = r->t.line;
    while (p < r->t.end && isspace((unsigned char)*p))
        p++;
    return p < r->t.end && *p == c;
}

/* The banner's five words; *symmetric and *integer from its last two. */
static sinew_result read_header(reader *r, int *symmetric, int *integer)
{
    sinew_token tok[6];
    char buf[40];
    int n = 0;
    if (!sinew_text_next_line(&r->t))
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "empty file: no %%%%MatrixMarket header");
    while (n < 6 && sinew_text_token(&r->t, &tok[n]))
        n++;
    if (n == 0 || !token_is(tok[0], "%%matrixmarket"))
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                   "not a Matrix Market file: the first line must start with %%%%MatrixMarket");
    if (n != 5)
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                   "header has %s words; expected \"%%%%MatrixMarket matrix coordinate real general\"",
                   n > 5 ? "more than 5" : n == 1 ? "1" : n == 2 ? "2" : n == 3 ? "3" : "4");
    if (!token_is(tok[1], "matrix"))
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "header: object \"%s\" is not \"matrix\"",
                   sinew_token_printable(tok[1], buf));
    if (!token_is(tok[2], "coordinate"))
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                   "header: format \"%s\" is not read (only \"coordinate\", the sparse one)",
                   sinew_token_printable(tok[2], buf));
    if (token_is(tok[3], "real"))
        *integer = 0;
    else if (token_is(tok[3], "integer"))
        *integer = 1;
    else
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                   "header: field \"%s\" is not read (only \"real\" and \"integer\")",
                   sinew_token_printable(tok[3], buf));
    if (token_is(tok[4], "general"))
        *symmetric = 0;
    else if (token_is(tok[4], "symmetric"))
        *symmetric = 1;
    else
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                   "header: symmetry \"%s\" is not read (only \"general\" and \"symmetric\")",
                   sinew_token_printable(tok[4], buf));
    return SINEW_RESULT_OK;
}

/* An integer token in [lo, hi], named `what` in messages; one above hi is
 * refused with the code `above` (LIMIT for a count beyond what is read). */
static sinew_result read_index(reader *r, const char *what, int64_t lo, int64_t hi, sinew_result above,
                               int64_t *out)
{
    sinew_token tok;
    char buf[40];
    if (!sinew_text_token(&r->t, &tok))
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "%s missing", what);
    if (!sinew_token_int(tok, out))
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "%s \"%s\" is not an integer", what,
                   sinew_token_printable(tok, buf));
    if (*out < lo || *out > hi) /* the token, not *out: beyond 2^40 that saturates */
        return bad(r, *out > hi ? above : SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                   "%s %s is out of range [%" PRId64 ", %" PRId64 "]", what, sinew_token_printable(tok, buf), lo, hi);
    return SINEW_RESULT_OK;
}

static sinew_result no_more_tokens(reader *r, const char *line_kind)
{
    sinew_token tok;
    char buf[40];
    if (sinew_text_token(&r->t, &tok))
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "unexpected \"%s\" after the %s",
                   sinew_token_printable(tok, buf), line_kind);
    return SINEW_RESULT_OK;
}

static int triplet_cmp(const void *x, const void *y)
{
    const triplet *a = x, *b = y;
    if (a->i != b->i)
        return (a->i > b->i) - (a->i < b->i);
    return (a->j > b->j) - (a->j < b->j);
}

/* The entries after the size line; count of them, mirrored when symmetric. */
static sinew_result read_entries(reader *r, int64_t rows, int64_t cols, int64_t declared, int symmetric, int integer,
                                 triplet *e, uint32_t *count)
{
    uint32_t k = 0;
    char buf[40];
    for (int64_t n = 0; n < declared; n++) {
        if (!next_content_line(r))
            return sinew_fail(r->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mtx",
                              "%s:%" PRIu64 ": the file ends after %" PRId64 " of the %" PRId64 " entries declared",
                              r->name, r->t.line_no, n, declared);
        if (first_char_is(r, '%'))
            return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "a comment among the entries (entry %" PRId64
                       " of %" PRId64 " expected)", n + 1, declared);
        int64_t i, j;
        sinew_result res = read_index(r, "row index", 1, rows, SINEW_RESULT_ERROR_INVALID_ARGUMENT, &i);
        if (res == SINEW_RESULT_OK)
            res = read_index(r, "column index", 1, cols, SINEW_RESULT_ERROR_INVALID_ARGUMENT, &j);
        if (res != SINEW_RESULT_OK)
            return res;
        sinew_token tok;
        double v;
        int64_t whole;
        if (!sinew_text_token(&r->t, &tok))
            return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "value missing");
        int parsed = integer ? sinew_token_int(tok, &whole) : sinew_text_double(&r->t, tok, &v);
        if (parsed < 0)
            return bad(r, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
        if (parsed == 0)
            return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "value \"%s\" is not %s",
                       sinew_token_printable(tok, buf), integer ? "an integer" : "a number");
        if (integer) {
            if (whole <= -((int64_t)1 << 40) || whole >= ((int64_t)1 << 40))
                return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "integer value \"%s\" is out of range",
                           sinew_token_printable(tok, buf));
            v = (double)whole;
        }
        if (!isfinite(v))
            return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "value \"%s\" is not finite",
                       sinew_token_printable(tok, buf));
        res = no_more_tokens(r, "value");
        if (res != SINEW_RESULT_OK)
            return res;
        if (symmetric && i < j)
            return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                       "entry (%" PRId64 ", %" PRId64 ") is above the diagonal: a symmetric file lists the lower "
                       "triangle only",
                       i, j);
        const uint32_t line = r->t.line_no > UINT32_MAX ? UINT32_MAX : (uint32_t)r->t.line_no;
        e[k++] = (triplet){(uint32_t)(i - 1), (uint32_t)(j - 1), line, v};
        if (symmetric && i != j)
            e[k++] = (triplet){(uint32_t)(j - 1), (uint32_t)(i - 1), line, v};
    }
    if (next_content_line(r))
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "more lines than the %" PRId64 " entries declared",
                   declared);
    *count = k;
    return SINEW_RESULT_OK;
}

static sinew_result parse(reader *r, sinew_csr *out)
{
    int symmetric = 0, integer = 0;
    sinew_result res = read_header(r, &symmetric, &integer);
    if (res != SINEW_RESULT_OK)
        return res;
    do {
        if (!next_content_line(r))
            return sinew_fail(r->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mtx",
                              "%s:%" PRIu64 ": the file ends before the size line (rows cols entries)", r->name,
                              r->t.line_no);
    } while (first_char_is(r, '%'));
    int64_t rows, cols, declared;
    res = read_index(r, "row count", 0, MAX_DIMENSION, SINEW_RESULT_ERROR_LIMIT, &rows);
    if (res == SINEW_RESULT_OK)
        res = read_index(r, "column count", 0, MAX_DIMENSION, SINEW_RESULT_ERROR_LIMIT, &cols);
    if (res == SINEW_RESULT_OK)
        res = read_index(r, "entry count", 0, (int64_t)1 << 40, SINEW_RESULT_ERROR_LIMIT, &declared);
    if (res == SINEW_RESULT_OK)
        res = no_more_tokens(r, "size line");
    if (res != SINEW_RESULT_OK)
        return res;
    if (symmetric && rows != cols)
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "a symmetric matrix of %" PRId64 " x %" PRId64
                   " is not square", rows, cols);
    if (declared > rows * cols)
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                   "%" PRId64 " entries declared for a %" PRId64 " x %" PRId64 " matrix", declared, rows, cols);
    const int64_t stored = symmetric ? 2 * declared : declared;
    if (stored > SINEW_CSR_MAX_NNZ)
        return bad(r, SINEW_RESULT_ERROR_LIMIT, "%" PRId64 " entries exceed the limit of %u", stored,
                   SINEW_CSR_MAX_NNZ);
    /* Each entry takes a line of at least MIN_ENTRY_BYTES (the last one may
     * lack its newline): a count the rest cannot hold is a lie, refused
     * before it sizes an allocation. */
    const size_t left = r->t.size - r->t.next;
    if ((uint64_t)declared > (left + 1) / MIN_ENTRY_BYTES)
        return bad(r, SINEW_RESULT_ERROR_INVALID_ARGUMENT,
                   "%" PRId64 " entries declared, but the %zu bytes after this line hold at most %zu", declared, left,
                   (left + 1) / MIN_ENTRY_BYTES);
    triplet *e = malloc(sizeof *e * ((size_t)stored + 1));
    if (!e)
        return bad(r, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no memory for %" PRId64 " entries", stored);
    uint32_t count = 0;
    res = read_entries(r, rows, cols, declared, symmetric, integer, e, &count);
    if (res == SINEW_RESULT_OK) {
        qsort(e, count, sizeof *e, triplet_cmp);
        for (uint32_t k = 1; k < count && res == SINEW_RESULT_OK; k++)
            if (e[k].i == e[k - 1].i && e[k].j == e[k - 1].j) {
                uint32_t a = e[k].line < e[k - 1].line ? e[k].line : e[k - 1].line;
                uint32_t b = e[k].line < e[k - 1].line ? e[k - 1].line : e[k].line;
                res = sinew_fail(r->lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mtx",
                                 "%s:%u: entry (%u, %u) is given again, first at line %u", r->name, b, e[k].i + 1,
                                 e[k].j + 1, a);
            }
    }
    if (res == SINEW_RESULT_OK)
        res = sinew_csr_alloc((uint32_t)rows, (uint32_t)cols, count, out, r->lg);
    if (res == SINEW_RESULT_OK) {
        for (uint32_t k = 0; k < count; k++) {
            out->row[e[k].i + 1]++;
            out->col[k] = e[k].j;
            out->val[k] = e[k].v;
        }
        for (uint32_t i = 0; i < out->rows; i++)
            out->row[i + 1] += out->row[i];
    }
    free(e);
    return res;
}

sinew_result sinew_mtx_read_memory(const void *data, size_t size, const char *name, const sinew_logger *lg,
                                   sinew_csr *out)
{
    memset(out, 0, sizeof *out);
    reader r = {.name = name, .lg = lg};
    sinew_text_init(&r.t, data, size);
    sinew_result res = parse(&r, out);
    sinew_text_free(&r.t);
    if (res != SINEW_RESULT_OK)
        sinew_csr_free(out);
    return res;
}

sinew_result sinew_mtx_read(const char *path, const sinew_logger *lg, sinew_csr *out)
{
    memset(out, 0, sizeof *out);
    uint8_t *bytes;
    size_t size;
    sinew_result res = sinew_file_read(path, SINEW_MTX_MAX_FILE, lg, "mtx", &bytes, &size);
    if (res != SINEW_RESULT_OK)
        return res;
    res = sinew_mtx_read_memory(bytes, size, path, lg, out);
    free(bytes);
    return res;
}

/* ------------------------------------------------------------ writing */

/* Longest entry line: two 10-digit indices and a %.17g value (24 chars), spaces, newline. */
#define MAX_ENTRY_LINE 64

sinew_result sinew_mtx_write(const char *path, const sinew_csr *m, int symmetric, const sinew_logger *lg)
{
    sinew_result res = sinew_csr_check(m, path, lg);
    if (res != SINEW_RESULT_OK)
        return res;
    const uint32_t nnz = m->row[m->rows];
    uint32_t written = 0;
    if (symmetric) {
        sinew_csr t;
        if (m->rows != m->cols)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mtx",
                              "%s: a %u x %u matrix written as symmetric is not square", path, m->rows, m->cols);
        res = sinew_csr_transpose(m, &t, lg);
        if (res != SINEW_RESULT_OK)
            return res;
        int same = memcmp(t.row, m->row, sizeof *t.row * ((size_t)m->rows + 1)) == 0 &&
                   (nnz == 0 || (memcmp(t.col, m->col, sizeof *t.col * nnz) == 0 &&
                                 memcmp(t.val, m->val, sizeof *t.val * nnz) == 0));
        sinew_csr_free(&t);
        if (!same)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mtx",
                              "%s: the matrix is not exactly symmetric, so it cannot be written as symmetric", path);
        for (uint32_t i = 0; i < m->rows; i++)
            for (uint32_t p = m->row[i]; p < m->row[i + 1] && m->col[p] <= i; p++)
                written++;
    } else {
        written = nnz;
    }
    const size_t cap = 256 + (size_t)written * MAX_ENTRY_LINE;
    char *text = malloc(cap);
    if (!text)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mtx", "%s: no memory for %zu bytes", path, cap);
    size_t len = (size_t)snprintf(text, cap,
                                  "%%%%MatrixMarket matrix coordinate real %s\n%% written by sinew\n%u %u %u\n",
                                  symmetric ? "symmetric" : "general", m->rows, m->cols, written);
    for (uint32_t i = 0; i < m->rows; i++)
        for (uint32_t p = m->row[i]; p < m->row[i + 1]; p++) {
            if (symmetric && m->col[p] > i)
                break;
            len += (size_t)snprintf(text + len, cap - len, "%u %u %.17g\n", i + 1, m->col[p] + 1, m->val[p]);
        }
    res = sinew_file_write_replace(path, text, len, lg, "mtx");
    free(text);
    return res;
}
