/* Geomview OFF reader, safe for untrusted input (see mesh_text.h).
 *
 *     [ST][C][N]OFF [V F E]        header keyword, optional; counts may share its line
 *     V F E                        counts (E is ignored)
 *     x y z [...]                  V vertex lines; normals, colours, texture ignored
 *     k i0 ... ik-1 [colour...]    F face lines, 0-based indices
 *
 * '#' starts a comment anywhere. The 4D and n-dimensional variants (4OFF, nOFF)
 * are refused. Counts are checked against the file size before anything is
 * allocated, so a hostile header cannot ask for gigabytes.
 */
#include "mesh.h"
#include "mesh_text.h"

#include "core/log.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct off_reader {
    sinew_text t;
    const char *name;
    const sinew_logger *lg;
    sinew_mesh *m;
} off_reader;

/* Prefixes the problem with file name and line. */
static sinew_result fail(off_reader *r, const char *fmt, ...) SINEW_PRINTF(2, 3);
static sinew_result fail(off_reader *r, const char *fmt, ...)
{
    char problem[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": %s", r->name, r->t.line_no,
                      problem);
}

static sinew_result fail_token(off_reader *r, const char *what, uint32_t record, sinew_token tok)
{
    char buf[40];
    return fail(r, "%s %u: malformed number '%s'", what, record, sinew_token_printable(tok, buf));
}

static sinew_result out_of_memory(off_reader *r)
{
    return sinew_fail(r->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s:%" PRIu64 ": out of memory",
                      r->name, r->t.line_no);
}

/* Moves to the next line with a token on it and returns that token. */
static int next_record(off_reader *r, sinew_token *tok)
{
    while (sinew_text_next_line(&r->t))
        if (sinew_text_token(&r->t, tok))
            return 1;
    return 0;
}

static int is_header(sinew_token tok)
{
    return tok.len >= 3 && memcmp(tok.s + tok.len - 3, "OFF", 3) == 0;
}

/* ST, C and N prefixes only add per-vertex values, which are ignored. */
static int supported_header(sinew_token tok)
{
    size_t i = 0, n = tok.len - 3;
    if (n - i >= 2 && memcmp(tok.s + i, "ST", 2) == 0)
        i += 2;
    if (n - i >= 1 && tok.s[i] == 'C')
        i++;
    if (n - i >= 1 && tok.s[i] == 'N')
        i++;
    return i == n;
}

static sinew_result read_counts(off_reader *r, uint32_t *vcount, uint32_t *fcount)
{
    sinew_token tok;
    if (!next_record(r, &tok))
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: empty file", r->name);
    if (is_header(tok)) {
        char buf[40];
        if (!supported_header(tok))
            return fail(r, "unsupported OFF variant '%s'", sinew_token_printable(tok, buf));
        if (!sinew_text_token(&r->t, &tok) && !next_record(r, &tok))
            return fail(r, "file ends before the vertex and face counts");
    }
    int64_t v, f;
    sinew_token ftok;
    if (!sinew_token_int(tok, &v) || !sinew_text_token(&r->t, &ftok) || !sinew_token_int(ftok, &f) || v < 0 ||
        f < 0)
        return fail(r, "expected vertex and face counts");
    if (v == 0)
        return fail(r, "no vertices");
    if (f == 0)
        return fail(r, "no faces");
    /* Every record takes at least two bytes (the last may lack its newline):
     * a loose bound, so that a file cut short is reported as such, yet the
     * allocations stay within a small multiple of the file size. */
    uint64_t rest = r->t.size - r->t.next;
    if (v > SINEW_MESH_MAX_VERTICES || f > SINEW_MESH_MAX_FACES || 2 * (uint64_t)(v + f) > rest + 1)
        return fail(r, "counts of %" PRId64 " vertices and %" PRId64 " faces do not fit the file", v, f);
    *vcount = (uint32_t)v;
    *fcount = (uint32_t)f;
    return SINEW_RESULT_OK;
}

static sinew_result read_vertices(off_reader *r, uint32_t vcount)
{
    for (uint32_t i = 0; i < vcount; i++) {
        sinew_token tok;
        if (!next_record(r, &tok))
            return fail(r, "file ends after %u of %u vertices", i, vcount);
        double *p = r->m->positions + 3 * (size_t)i;
        for (int k = 0; k < 3; k++) {
            if (k > 0 && !sinew_text_token(&r->t, &tok))
                return fail(r, "vertex %u has %d coordinates, needs 3", i, k);
            int ok = sinew_text_double(&r->t, tok, &p[k]);
            if (ok < 0)
                return out_of_memory(r);
            if (!ok)
                return fail_token(r, "vertex", i, tok);
            if (!isfinite(p[k]))
                return fail(r, "vertex %u has a non-finite coordinate", i);
        }
    }
    r->m->vertex_count = vcount;
    return SINEW_RESULT_OK;
}

static sinew_result read_faces(off_reader *r, uint32_t vcount, uint32_t fcount, size_t *idx_cap)
{
    sinew_mesh *m = r->m;
    uint32_t total = 0;
    m->face_offsets[0] = 0;
    for (uint32_t i = 0; i < fcount; i++) {
        sinew_token tok;
        int64_t k;
        if (!next_record(r, &tok))
            return fail(r, "file ends after %u of %u faces", i, fcount);
        if (!sinew_token_int(tok, &k))
            return fail_token(r, "face", i, tok);
        if (k < 3)
            return fail(r, "face %u has %" PRId64 " vertices, needs at least 3", i, k);
        if (k > SINEW_MESH_MAX_INDICES - total)
            return fail(r, "face %u: more than %u face indices in the file", i, SINEW_MESH_MAX_INDICES);
        for (int64_t j = 0; j < k; j++) {
            int64_t index;
            if (!sinew_text_token(&r->t, &tok))
                return fail(r, "face %u ends after %" PRId64 " of %" PRId64 " vertex indices", i, j, k);
            if (!sinew_token_int(tok, &index))
                return fail_token(r, "face", i, tok);
            if (index < 0 || index >= vcount)
                return fail(r, "face %u: vertex index %" PRId64 " out of range (%u vertices)", i, index, vcount);
            /* Grown per index: k is only trusted as far as the line backs it. */
            if (!sinew_grow((void **)&m->face_indices, idx_cap, (size_t)total + 1, sizeof(uint32_t)))
                return out_of_memory(r);
            m->face_indices[total++] = (uint32_t)index;
        }
        m->face_offsets[i + 1] = total;
    }
    m->face_count = fcount;
    return SINEW_RESULT_OK;
}

sinew_result sinew_mesh_read_off_memory(const char *text, size_t size, const char *name,
                                        const sinew_logger *lg, sinew_mesh *out)
{
    SINEW_ASSERT(out && (text || size == 0));
    memset(out, 0, sizeof *out);
    off_reader r = {.name = name ? name : "<memory>", .lg = lg, .m = out};
    sinew_text_init(&r.t, text, size);
    uint32_t vcount = 0, fcount = 0;
    size_t idx_cap = 0;
    sinew_result res = read_counts(&r, &vcount, &fcount);
    if (res == SINEW_RESULT_OK) {
        out->positions = malloc(sizeof(double) * 3 * vcount);
        out->face_offsets = malloc(sizeof(uint32_t) * ((size_t)fcount + 1));
        res = out->positions && out->face_offsets ? read_vertices(&r, vcount) : out_of_memory(&r);
    }
    if (res == SINEW_RESULT_OK)
        res = read_faces(&r, vcount, fcount, &idx_cap);
    sinew_text_free(&r.t);
    if (res != SINEW_RESULT_OK)
        sinew_mesh_free(out);
    return res;
}
