/* Gmsh MSH reader (2.2 and 4.1, ASCII and binary): scanning, sections, 2.2's nodes and elements. */

/* Safe for untrusted input. The file is a sequence of sections, each "$Name" ... "$EndName":
 *
 *   $MeshFormat  version file-type(0 ASCII, 1 binary) data-size [int 1]
 *   $Entities    4.1: points curves surfaces volumes, then per entity
 *                     tag, x y z (points) or a bounding box (6 reals),
 *                     n physical tags..., [n bounding entities...]
 *   $Nodes       2.2: N, then N x (tag x y z)
 *                4.1: blocks nodes min max, then per block
 *                     dim entity parametric n, n tags, n x (x y z [u v w])
 *   $Elements    2.2: M, then M x (tag type ntags tags... nodes...)
 *                     (binary: blocks of (type count ntags) and their elements)
 *                4.1: blocks elements min max, then per block
 *                     dim entity type n, n x (tag nodes...)
 *
 * Only 4-node tetrahedra (type 4) are kept; every other section is skipped.
 * A tetrahedron's region is its physical group: 2.2 gives it as the element's
 * first tag; 4.1 gives the element block's entity, whose physical tags
 * $Entities lists, so regions are filled in once the whole file is read.
 * In binary data, integers are 4-byte ints (2.2, and 4.1's entity and
 * physical tags) or data-size unsigned ints (4.1's counts, node and element
 * tags: Gmsh's size_t), reals 8-byte doubles, all in the host's byte order as
 * Gmsh writes them. Every count is checked against the bytes left before
 * anything is allocated for it, and every read against the end of the data.
 * Messages name the file and the line (ASCII) or byte offset (binary).
 * 4.1's node and element blocks and its $Entities are read in volume_msh4.c.
 */
#include "volume_msh.h"

#include "core/log.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define MAX_TAGS (1u << 20)      /* element tags of one element (2.2) */

/* Nodes of each element type Gmsh's manual lists; 0: unknown. */
uint32_t msh_type_nodes(int64_t type)
{
    static const uint8_t nodes[32] = {0,  2,  3,  4,  4,  8,  6, 5, 3, 6, 9,  10, 27, 18, 14, 1,
                                      8,  20, 15, 13, 9,  10, 12, 15, 15, 21, 4, 5, 6, 20, 35, 56};
    if (type >= 0 && type < 32)
        return nodes[type];
    return type == 92 ? 64 : type == 93 ? 125 : 0;
}

/* ------------------------------------------------------------ messages */

static sinew_result failv(msh_reader *r, sinew_result code, const char *fmt, va_list ap)
{
    char problem[256];
    vsnprintf(problem, sizeof problem, fmt, ap);
    if (r->binary)
        return sinew_fail(r->lg, code, "mesh", "%s: byte %zu: %s", r->name, r->mark, problem);
    uint64_t line = 1;
    for (const char *p = r->data, *end = r->data + r->mark; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        line++;
    return sinew_fail(r->lg, code, "mesh", "%s:%" PRIu64 ": %s", r->name, line, problem);
}

sinew_result msh_fail(msh_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sinew_result res = failv(r, SINEW_RESULT_ERROR_BAD_MESH, fmt, ap);
    va_end(ap);
    return res;
}

static sinew_result fail_code(msh_reader *r, sinew_result code, const char *fmt, ...) SINEW_PRINTF(3, 4);
static sinew_result fail_code(msh_reader *r, sinew_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sinew_result res = failv(r, code, fmt, ap);
    va_end(ap);
    return res;
}

sinew_result msh_out_of_memory(msh_reader *r)
{
    return fail_code(r, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
}

/* ------------------------------------------------------------ ASCII scanning */

int msh_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static size_t rest(const msh_reader *r)
{
    return r->size - r->pos;
}

/* Next whitespace-separated token, across lines. */
static int token(msh_reader *r, sinew_token *tok)
{
    while (r->pos < r->size && msh_is_space(r->data[r->pos]))
        r->pos++;
    r->mark = r->pos;
    size_t start = r->pos;
    while (r->pos < r->size && !msh_is_space(r->data[r->pos]))
        r->pos++;
    tok->s = r->data + start;
    tok->len = r->pos - start;
    return tok->len > 0;
}

static int token_is(sinew_token tok, const char *s)
{
    return tok.len == strlen(s) && memcmp(tok.s, s, tok.len) == 0;
}

/* An integer in [lo, hi]; what names it in the message. */
static sinew_result parse_int(msh_reader *r, sinew_token tok, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    char buf[40];
    if (tok.len == 0)
        return msh_fail(r, "file ends where %s was expected", what);
    if (tok.s[0] == '$')
        return msh_fail(r, "the section ends early: '%s' where %s was expected", sinew_token_printable(tok, buf), what);
    if (!sinew_token_int(tok, out))
        return msh_fail(r, "%s: '%s' is not an integer", what, sinew_token_printable(tok, buf));
    if (*out < lo || *out > hi)
        return msh_fail(r, "%s %" PRId64 " out of range (%" PRId64 "..%" PRId64 ")", what, *out, lo, hi);
    return SINEW_RESULT_OK;
}

sinew_result msh_ascii_int(msh_reader *r, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    sinew_token tok;
    token(r, &tok);
    return parse_int(r, tok, what, lo, hi, out);
}

sinew_result msh_ascii_double(msh_reader *r, const char *what, uint64_t index, double *out)
{
    sinew_token tok;
    char buf[40];
    if (!token(r, &tok))
        return msh_fail(r, "file ends in the coordinates of %s %" PRIu64, what, index);
    int ok = sinew_text_double(&r->scratch, tok, out);
    if (ok < 0)
        return msh_out_of_memory(r);
    if (!ok)
        return msh_fail(r, "%s %" PRIu64 ": malformed number '%s'", what, index, sinew_token_printable(tok, buf));
    return SINEW_RESULT_OK;
}

/* Element records are one per line (their length depends on their type, which
 * may be unknown): line_begin finds the next non-blank line, line_token reads
 * within it. */
static int line_begin(msh_reader *r)
{
    while (r->pos < r->size && msh_is_space(r->data[r->pos]))
        r->pos++;
    r->mark = r->pos;
    const char *nl = memchr(r->data + r->pos, '\n', rest(r));
    r->line_end = nl ? (size_t)(nl - r->data) : r->size;
    return r->pos < r->size;
}

static int line_token(msh_reader *r, sinew_token *tok)
{
    while (r->pos < r->line_end && msh_is_space(r->data[r->pos]))
        r->pos++;
    size_t start = r->pos;
    while (r->pos < r->line_end && !msh_is_space(r->data[r->pos]))
        r->pos++;
    tok->s = r->data + start;
    tok->len = r->pos - start;
    return tok->len > 0;
}

/* The rest of the line must be empty; the position moves past it. */
static sinew_result line_finish(msh_reader *r, const char *what, uint64_t index, uint32_t expected)
{
    sinew_token tok;
    if (line_token(r, &tok))
        return msh_fail(r, "%s %" PRIu64 " has more than the %u values its type needs", what, index, expected);
    r->pos = r->line_end;
    return SINEW_RESULT_OK;
}

/* Binary data starts after the newline that ends the current text line. */
sinew_result msh_end_line(msh_reader *r)
{
    while (r->pos < r->size && (r->data[r->pos] == ' ' || r->data[r->pos] == '\t' || r->data[r->pos] == '\r'))
        r->pos++;
    r->mark = r->pos;
    if (r->pos >= r->size || r->data[r->pos] != '\n')
        return msh_fail(r, "expected the end of the line before binary data");
    r->pos++;
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------ binary reading */

sinew_result msh_take(msh_reader *r, void *dst, size_t n, const char *what)
{
    r->mark = r->pos;
    if (rest(r) < n)
        return msh_fail(r, "file ends in %s", what);
    memcpy(dst, r->data + r->pos, n);
    r->pos += n;
    return SINEW_RESULT_OK;
}

sinew_result msh_bin_int(msh_reader *r, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    int32_t x = 0;
    sinew_result res = msh_take(r, &x, sizeof x, what);
    if (res)
        return res;
    if (x < lo || x > hi)
        return msh_fail(r, "%s %" PRId32 " out of range (%" PRId64 "..%" PRId64 ")", what, x, lo, hi);
    *out = x;
    return SINEW_RESULT_OK;
}

/* 4.1's unsigned integers (size_t of the writer). */
sinew_result msh_bin_size(msh_reader *r, const char *what, uint64_t *out)
{
    if (r->tag_size == 4) {
        uint32_t x = 0;
        sinew_result res = msh_take(r, &x, sizeof x, what);
        *out = x;
        return res;
    }
    return msh_take(r, out, sizeof *out, what);
}

/* An integer of either encoding, for the fields both share. */
sinew_result msh_read_count(msh_reader *r, const char *what, uint64_t max, uint64_t *out)
{
    int64_t v = 0;
    sinew_result res;
    if (!r->binary || r->version == 2) {
        /* 2.2 keeps its counts in text even in binary files. */
        if ((res = msh_ascii_int(r, what, 0, (int64_t)1 << 40, &v)))
            return res;
        *out = (uint64_t)v;
    } else if ((res = msh_bin_size(r, what, out))) {
        return res;
    }
    if (*out > max)
        return fail_code(r, SINEW_RESULT_ERROR_LIMIT, "%s %" PRIu64 " exceeds the limit of %" PRIu64, what, *out,
                         max);
    return SINEW_RESULT_OK;
}

/* A count of records of at least `bytes` bytes each must fit the rest of the
 * file (the last ASCII record may lack its separator, hence the + 1). In
 * binary data the bound is exact: what passes may be skipped unread. */
sinew_result msh_check_fits(msh_reader *r, uint64_t count, uint64_t bytes, const char *what)
{
    if (count > 0 && bytes > 0 && count > ((uint64_t)rest(r) + !r->binary) / bytes)
        return msh_fail(r, "%" PRIu64 " %s do not fit in the %zu bytes left", count, what, rest(r));
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------ sections */

/* Finds "\n$EndName" (name without its '$') from the current position and moves
 * past it. */
static sinew_result skip_section(msh_reader *r, sinew_token name)
{
    char end[80];
    char buf[40];
    if (name.len > sizeof end - 6)
        return msh_fail(r, "section name '%s' is too long", sinew_token_printable(name, buf));
    int n = snprintf(end, sizeof end, "$End%.*s", (int)(name.len - 1), name.s + 1);
    for (size_t p = r->pos; p + (size_t)n <= r->size; p++) {
        const char *hit = memchr(r->data + p, '$', r->size - p);
        if (!hit)
            break;
        p = (size_t)(hit - r->data);
        if (p + (size_t)n <= r->size && memcmp(hit, end, (size_t)n) == 0 && p > 0 && r->data[p - 1] == '\n' &&
            (p + (size_t)n == r->size || msh_is_space(r->data[p + (size_t)n]))) {
            r->pos = p + (size_t)n;
            return SINEW_RESULT_OK;
        }
    }
    return msh_fail(r, "section %s has no %s", sinew_token_printable(name, buf), end);
}

static sinew_result expect_end(msh_reader *r, const char *end)
{
    sinew_token tok;
    char buf[40];
    if (!token(r, &tok))
        return msh_fail(r, "file ends before %s", end);
    if (!token_is(tok, end))
        return msh_fail(r, "expected %s, found '%s'", end, sinew_token_printable(tok, buf));
    return SINEW_RESULT_OK;
}

static sinew_result read_format(msh_reader *r)
{
    sinew_token tok;
    char buf[40];
    if (!token(r, &tok))
        return msh_fail(r, "empty file");
    if (!token_is(tok, "$MeshFormat"))
        return msh_fail(r, "not a Gmsh mesh: starts with '%s', not $MeshFormat", sinew_token_printable(tok, buf));
    token(r, &tok);
    if (token_is(tok, "4.1"))
        r->version = 4;
    else if (token_is(tok, "2.2") || token_is(tok, "2.1") || token_is(tok, "2.0") || token_is(tok, "2"))
        r->version = 2;
    else
        return msh_fail(r, "MSH version '%s' is not supported: 2.2 and 4.1 are (gmsh -format msh22 or msh41)",
                        sinew_token_printable(tok, buf));
    int64_t type = 0, data_size = 0;
    sinew_result res;
    if ((res = msh_ascii_int(r, "file type", 0, 1, &type)) || (res = msh_ascii_int(r, "data size", 1, 64, &data_size)))
        return res;
    if (type == 1) {
        if (r->version == 2 && data_size != 8)
            return msh_fail(r, "data size %" PRId64 ": binary MSH 2.2 needs 8-byte reals", data_size);
        if (r->version == 4 && data_size != 4 && data_size != 8)
            return msh_fail(r, "data size %" PRId64 ": binary MSH 4.1 needs 4- or 8-byte integers", data_size);
        r->tag_size = (size_t)data_size;
        int32_t one = 0;
        if ((res = msh_end_line(r)) || (res = msh_take(r, &one, sizeof one, "the binary marker")))
            return res;
        /* Set after the text before it has been read, so that those messages
         * give lines; from here on they give byte offsets. */
        r->binary = 1;
        if (one == 0x01000000)
            return msh_fail(r, "binary data in the other byte order (big-endian) is not supported");
        if (one != 1)
            return msh_fail(r, "binary marker is %" PRId32 ", expected 1", one);
    }
    return expect_end(r, "$EndMeshFormat");
}

/* Dense tags (first, first + 1, ...) map by subtraction; others through a
 * sorted table, where a repeated tag is refused. */
static int compare_tags(const void *a, const void *b)
{
    const tag_pair *x = a, *y = b;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static sinew_result build_tag_map(msh_reader *r)
{
    uint32_t n = r->v->vertex_count;
    int dense = 1;
    for (uint32_t i = 1; i < n && dense; i++)
        dense = r->tags[i] == r->tags[0] + i;
    r->first_tag = n ? r->tags[0] : 0;
    if (dense)
        return SINEW_RESULT_OK;
    r->sorted = malloc(sizeof *r->sorted * n);
    if (!r->sorted)
        return msh_out_of_memory(r);
    for (uint32_t i = 0; i < n; i++)
        r->sorted[i] = (tag_pair){r->tags[i], i};
    qsort(r->sorted, n, sizeof *r->sorted, compare_tags);
    for (uint32_t i = 1; i < n; i++)
        if (r->sorted[i].tag == r->sorted[i - 1].tag)
            return msh_fail(r, "node tag %" PRIu64 " is given twice (nodes %u and %u in file order)", r->sorted[i].tag,
                            r->sorted[i - 1].index, r->sorted[i].index);
    return SINEW_RESULT_OK;
}

static uint32_t vertex_of(const msh_reader *r, uint64_t tag)
{
    uint32_t n = r->v->vertex_count;
    if (!r->sorted)
        return tag >= r->first_tag && tag - r->first_tag < n ? (uint32_t)(tag - r->first_tag) : NONE;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->sorted[mid].tag < tag)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && r->sorted[lo].tag == tag ? r->sorted[lo].index : NONE;
}

/* Room for all nodes; what is read is checked before anything is stored. */
sinew_result msh_alloc_nodes(msh_reader *r, uint64_t count)
{
    r->v->positions = malloc(sizeof(double) * 3 * (count ? count : 1));
    r->tags = malloc(sizeof(uint64_t) * (count ? count : 1));
    if (!r->v->positions || !r->tags)
        return msh_out_of_memory(r);
    return SINEW_RESULT_OK;
}

sinew_result msh_store_node(msh_reader *r, uint32_t i, uint64_t tag, const double p[3])
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(p[k]))
            return msh_fail(r, "node %" PRIu64 " has a non-finite coordinate", tag);
    memcpy(r->v->positions + 3 * (size_t)i, p, 3 * sizeof(double));
    r->tags[i] = tag;
    return SINEW_RESULT_OK;
}

static sinew_result read_nodes_2(msh_reader *r)
{
    uint64_t count = 0;
    sinew_result res;
    if ((res = msh_read_count(r, "node count", SINEW_VOLUME_MAX_VERTICES, &count)))
        return res;
    if (r->binary && (res = msh_end_line(r)))
        return res;
    /* ASCII: "t x y z" takes at least 8 bytes; binary: an int and three doubles. */
    if ((res = msh_check_fits(r, count, r->binary ? 28 : 8, "nodes")) || (res = msh_alloc_nodes(r, count)))
        return res;
    for (uint32_t i = 0; i < count; i++) {
        int64_t tag = 0;
        double p[3];
        if (r->binary) {
            if ((res = msh_bin_int(r, "node tag", 0, INT32_MAX, &tag)) || (res = msh_take(r, p, sizeof p, "a node")))
                return res;
        } else if ((res = msh_ascii_int(r, "node tag", 0, (int64_t)1 << 40, &tag)) ||
                   (res = msh_ascii_double(r, "node", (uint64_t)tag, &p[0])) ||
                   (res = msh_ascii_double(r, "node", (uint64_t)tag, &p[1])) ||
                   (res = msh_ascii_double(r, "node", (uint64_t)tag, &p[2]))) {
            return res;
        }
        if ((res = msh_store_node(r, i, (uint64_t)tag, p)))
            return res;
    }
    r->v->vertex_count = (uint32_t)count;
    return SINEW_RESULT_OK;
}

/* A tetrahedron's node tags become vertex indices. */
sinew_result msh_add_tet(msh_reader *r, uint64_t element, const uint64_t nodes[4], uint32_t region)
{
    sinew_volume *v = r->v;
    if (v->tet_count >= SINEW_VOLUME_MAX_TETS)
        return fail_code(r, SINEW_RESULT_ERROR_LIMIT, "more than %u tetrahedra", SINEW_VOLUME_MAX_TETS);
    if (!sinew_grow((void **)&v->tets, &r->tet_cap, 4 * ((size_t)v->tet_count + 1), sizeof(uint32_t)) ||
        !sinew_grow((void **)&v->regions, &r->region_cap, (size_t)v->tet_count + 1, sizeof(uint32_t)))
        return msh_out_of_memory(r);
    v->regions[v->tet_count] = region;
    for (int k = 0; k < 4; k++) {
        uint32_t index = vertex_of(r, nodes[k]);
        if (index == NONE)
            return msh_fail(r, "element %" PRIu64 ": node %" PRIu64 " is not in $Nodes", element, nodes[k]);
        v->tets[4 * (size_t)v->tet_count + k] = index;
    }
    v->tet_count++;
    return SINEW_RESULT_OK;
}

/* 2.2: a tetrahedron's first tag, its physical group, is its region. Gmsh's
 * groups are positive, 0 meaning none. */
static sinew_result check_physical(msh_reader *r, int64_t element, int64_t physical)
{
    if (physical < 0)
        return msh_fail(r, "element %" PRId64 ": physical group %" PRId64 " is negative (regions are 0 or more)",
                        element, physical);
    return SINEW_RESULT_OK;
}

void msh_skipped(msh_reader *r, int64_t type, uint64_t count)
{
    if (r->skipped == 0)
        r->first_skipped_type = type;
    r->skipped += count;
    r->saw_tet10 |= type == 11;
}

/* One ASCII element line: tag [type ntags tags...] (2.2) or tag (4.1), then nodes. */
sinew_result msh_ascii_element(msh_reader *r, int64_t block_type)
{
    sinew_token tok;
    int64_t tag = 0, type = block_type, ntags = 0, x = 0, physical = 0;
    sinew_result res;
    if (!line_begin(r))
        return msh_fail(r, "file ends in $Elements");
    line_token(r, &tok);
    if ((res = parse_int(r, tok, "element tag", 0, (int64_t)1 << 40, &tag)))
        return res;
    if (r->version == 2) {
        line_token(r, &tok);
        if ((res = parse_int(r, tok, "element type", 1, INT32_MAX, &type)))
            return res;
        line_token(r, &tok);
        if ((res = parse_int(r, tok, "element tag count", 0, MAX_TAGS, &ntags)))
            return res;
        for (int64_t i = 0; i < ntags; i++) {
            if (!line_token(r, &tok))
                return msh_fail(r, "element %" PRId64 " ends in its %" PRId64 " tags", tag, ntags);
            if ((res = parse_int(r, tok, "element tag", INT32_MIN, INT32_MAX, &x)))
                return res;
            physical = i == 0 ? x : physical;
        }
        if (type == 4 && (res = check_physical(r, tag, physical)))
            return res;
    }
    uint32_t need = msh_type_nodes(type);
    if (type != 4) {
        msh_skipped(r, type, 1);
        /* Unknown types cannot be checked; known ones must have their nodes. */
        uint32_t have = 0;
        while (line_token(r, &tok))
            have++;
        if (need && have != need)
            return msh_fail(r, "element %" PRId64 " of type %" PRId64 " has %u nodes, needs %u", tag, type, have, need);
        r->pos = r->line_end;
        return SINEW_RESULT_OK;
    }
    uint64_t nodes[4];
    for (int k = 0; k < 4; k++) {
        if (!line_token(r, &tok))
            return msh_fail(r, "element %" PRId64 " has %d nodes, a tetrahedron needs 4", tag, k);
        if ((res = parse_int(r, tok, "node tag", 0, (int64_t)1 << 40, &x)))
            return res;
        nodes[k] = (uint64_t)x;
    }
    if ((res = line_finish(r, "element", (uint64_t)tag, 4)))
        return res;
    return msh_add_tet(r, (uint64_t)tag, nodes, (uint32_t)physical);
}

/* Binary 2.2 elements come in blocks of one type: (type, count, ntags), then
 * count x (tag, tags..., nodes...) as 4-byte ints. */
static sinew_result read_elements_2_binary(msh_reader *r, uint64_t count)
{
    sinew_result res;
    for (uint64_t done = 0; done < count;) {
        int64_t type = 0, n = 0, ntags = 0;
        if ((res = msh_bin_int(r, "element type", 1, INT32_MAX, &type)) ||
            (res = msh_bin_int(r, "block element count", 1, INT32_MAX, &n)) ||
            (res = msh_bin_int(r, "element tag count", 0, MAX_TAGS, &ntags)))
            return res;
        if ((uint64_t)n > count - done)
            return msh_fail(r, "element block of %" PRId64 " elements, more than the %" PRIu64 " the header has left",
                            n, count - done);
        uint32_t nodes = msh_type_nodes(type);
        if (nodes == 0)
            return msh_fail(r, "element type %" PRId64 " is unknown: its size in binary data cannot be told", type);
        uint64_t ints = 1 + (uint64_t)ntags + nodes;
        if ((res = msh_check_fits(r, (uint64_t)n, 4 * ints, "elements")))
            return res;
        if (type != 4) {
            msh_skipped(r, type, (uint64_t)n);
            r->pos += (size_t)((uint64_t)n * 4 * ints);
        } else {
            for (int64_t i = 0; i < n; i++) {
                int64_t tag = 0, x = 0, physical = 0;
                uint64_t v[4];
                if ((res = msh_bin_int(r, "element tag", 0, INT32_MAX, &tag)))
                    return res;
                for (int64_t t = 0; t < ntags; t++) {
                    if ((res = msh_bin_int(r, "element tag", INT32_MIN, INT32_MAX, &x)))
                        return res;
                    physical = t == 0 ? x : physical;
                    if (t == 0 && (res = check_physical(r, tag, physical)))
                        return res;
                }
                for (int k = 0; k < 4; k++) {
                    if ((res = msh_bin_int(r, "node tag", 0, INT32_MAX, &x)))
                        return res;
                    v[k] = (uint64_t)x;
                }
                if ((res = msh_add_tet(r, (uint64_t)tag, v, (uint32_t)physical)))
                    return res;
            }
        }
        done += (uint64_t)n;
    }
    return SINEW_RESULT_OK;
}

static sinew_result read_elements_2(msh_reader *r)
{
    uint64_t count = 0;
    sinew_result res;
    if ((res = msh_read_count(r, "element count", MAX_ELEMENTS, &count)))
        return res;
    if (r->binary)
        return (res = msh_end_line(r)) ? res : read_elements_2_binary(r, count);
    /* "t 4 0 a b c d": 3 values and a node at least, 8 bytes. */
    if ((res = msh_check_fits(r, count, 8, "elements")))
        return res;
    for (uint64_t i = 0; i < count; i++)
        if ((res = msh_ascii_element(r, 0)))
            return res;
    return SINEW_RESULT_OK;
}

static sinew_result read_sections(msh_reader *r)
{
    sinew_result res = read_format(r);
    int have_nodes = 0, have_elements = 0;
    sinew_token tok;
    char buf[40];
    while (res == SINEW_RESULT_OK && token(r, &tok)) {
        if (tok.s[0] != '$')
            return msh_fail(r, "expected a section ($Name), found '%s'", sinew_token_printable(tok, buf));
        if (token_is(tok, "$Entities") && r->version == 4) {
            res = msh_read_entities(r);
            if (res == SINEW_RESULT_OK)
                res = expect_end(r, "$EndEntities");
        } else if (token_is(tok, "$Nodes")) {
            if (have_nodes)
                return msh_fail(r, "a second $Nodes section");
            have_nodes = 1;
            res = r->version == 2 ? read_nodes_2(r) : msh_read_nodes_4(r);
            if (res == SINEW_RESULT_OK)
                res = build_tag_map(r);
            if (res == SINEW_RESULT_OK)
                res = expect_end(r, "$EndNodes");
        } else if (token_is(tok, "$Elements")) {
            if (!have_nodes)
                return msh_fail(r, "$Elements before $Nodes");
            if (have_elements)
                return msh_fail(r, "a second $Elements section");
            have_elements = 1;
            res = r->version == 2 ? read_elements_2(r) : msh_read_elements_4(r);
            if (res == SINEW_RESULT_OK)
                res = expect_end(r, "$EndElements");
        } else if (tok.len < 2) {
            return msh_fail(r, "a section without a name");
        } else {
            r->partitioned |= token_is(tok, "$PartitionedEntities");
            res = skip_section(r, tok);
        }
    }
    if (res != SINEW_RESULT_OK)
        return res;
    r->mark = r->size;
    if (!have_nodes || !have_elements)
        return msh_fail(r, "no %s section", have_nodes ? "$Elements" : "$Nodes");
    return msh_resolve_regions(r);
}

sinew_result sinew_volume_read_msh_memory(const void *data, size_t size, const char *name,
                                          const sinew_logger *lg, sinew_volume *out)
{
    SINEW_ASSERT(out && (data || size == 0));
    memset(out, 0, sizeof *out);
    msh_reader r = {.data = data, .size = size, .name = name ? name : "<memory>", .lg = lg, .v = out};
    sinew_text_init(&r.scratch, NULL, 0);
    sinew_result res = read_sections(&r);
    if (res == SINEW_RESULT_OK && r.skipped)
        sinew_logf(lg, SINEW_LOG_WARNING, "mesh",
                   "%s: skipped %" PRIu64 " elements that are not 4-node tetrahedra (first of type %" PRId64 ")%s",
                   r.name, r.skipped, r.first_skipped_type,
                   r.saw_tet10 ? "; 10-node tetrahedra (type 11) among them: mesh with Mesh.ElementOrder = 1" : "");
    if (res == SINEW_RESULT_OK && out->tet_count == 0)
        res = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: no 4-node tetrahedra (element type 4)%s",
                         r.name, r.saw_tet10 ? ", only 10-node ones (type 11): mesh with Mesh.ElementOrder = 1" : "");
    sinew_text_free(&r.scratch);
    free(r.tags);
    free(r.sorted);
    free(r.volumes);
    free(r.blocks);
    if (res != SINEW_RESULT_OK)
        sinew_volume_free(out);
    else
        sinew_volume_drop_zero_regions(out);
    return res;
}
