/* Wavefront OBJ reader, safe for untrusted input (see mesh_text.h).
 *
 * Reads `v x y z [w]` and `f` records with a, a/t, a/t/n and a//n vertices and
 * negative (relative) indices; texture coordinates, normals, groups, materials
 * and smoothing groups are ignored, `l` polylines and unknown records skipped
 * with a debug message. Positive indices may refer to vertices defined later in
 * the file, as most exporters' readers allow; they are checked at the end.
 */
#include "mesh.h"
#include "mesh_text.h"

#include "core/log.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct obj_reader {
    sinew_text t;
    const char *name;
    const sinew_logger *lg;
    sinew_mesh *m;
    size_t pos_cap, off_cap, idx_cap;
    uint32_t index_count;
    int64_t max_index;          /* largest positive index seen, and its line */
    uint64_t max_index_line;
} obj_reader;

static int token_is(sinew_token tok, const char *s)
{
    return tok.len == strlen(s) && memcmp(tok.s, s, tok.len) == 0;
}

static sinew_result bad(obj_reader *r, const char *problem, sinew_token tok)
{
    char buf[40];
    return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": %s '%s'", r->name,
                      r->t.line_no, problem, sinew_token_printable(tok, buf));
}

static sinew_result out_of_memory(obj_reader *r)
{
    return sinew_fail(r->lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s:%" PRIu64 ": out of memory",
                      r->name, r->t.line_no);
}

static sinew_result read_vertex(obj_reader *r)
{
    sinew_mesh *m = r->m;
    if (m->vertex_count == SINEW_MESH_MAX_VERTICES)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": more than %u vertices",
                          r->name, r->t.line_no, SINEW_MESH_MAX_VERTICES);
    if (!sinew_grow((void **)&m->positions, &r->pos_cap, 3 * ((size_t)m->vertex_count + 1), sizeof(double)))
        return out_of_memory(r);
    double *p = m->positions + 3 * (size_t)m->vertex_count;
    /* Values after z (w, or the vertex colours some exporters add) are ignored. */
    for (int k = 0; k < 3; k++) {
        sinew_token tok;
        if (!sinew_text_token(&r->t, &tok))
            return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                              "%s:%" PRIu64 ": vertex has %d coordinates, needs 3", r->name, r->t.line_no, k);
        int ok = sinew_text_double(&r->t, tok, &p[k]);
        if (ok < 0)
            return out_of_memory(r);
        if (!ok)
            return bad(r, "malformed number", tok);
        if (!isfinite(p[k]))
            return bad(r, "non-finite coordinate", tok);
    }
    m->vertex_count++;
    return SINEW_RESULT_OK;
}

/* The vertex part of a, a/t, a/t/n or a//n; t and n may only be integers. */
static int face_vertex_index(sinew_token tok, int64_t *index)
{
    const char *slash = memchr(tok.s, '/', tok.len);
    size_t head = slash ? (size_t)(slash - tok.s) : tok.len;
    int slashes = 0;
    for (size_t i = head; i < tok.len; i++) {
        char c = tok.s[i];
        slashes += c == '/';
        if (c != '/' && c != '-' && c != '+' && (c < '0' || c > '9'))
            return 0;
    }
    sinew_token vtok = {tok.s, head};
    return slashes <= 2 && sinew_token_int(vtok, index);
}

static sinew_result read_face(obj_reader *r)
{
    sinew_mesh *m = r->m;
    if (m->face_count == SINEW_MESH_MAX_FACES)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": more than %u faces",
                          r->name, r->t.line_no, SINEW_MESH_MAX_FACES);
    if (!sinew_grow((void **)&m->face_offsets, &r->off_cap, (size_t)m->face_count + 2, sizeof(uint32_t)))
        return out_of_memory(r);
    uint32_t first = r->index_count;
    sinew_token tok;
    while (sinew_text_token(&r->t, &tok)) {
        int64_t a;
        if (!face_vertex_index(tok, &a))
            return bad(r, "malformed face vertex", tok);
        int64_t index;
        if (a > 0) {
            index = a - 1;
            if (a > r->max_index) {
                r->max_index = a;
                r->max_index_line = r->t.line_no;
            }
        } else {
            /* -1 is the latest vertex defined. */
            index = (int64_t)m->vertex_count + a;
        }
        if (a == 0 || index < 0 || index >= SINEW_MESH_MAX_VERTICES)
            return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                              "%s:%" PRIu64 ": vertex index %" PRId64 " out of range (%u vertices so far%s)",
                              r->name, r->t.line_no, a, m->vertex_count, a == 0 ? "; OBJ counts from 1" : "");
        if (r->index_count == SINEW_MESH_MAX_INDICES)
            return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                              "%s:%" PRIu64 ": more than %u face indices", r->name, r->t.line_no,
                              SINEW_MESH_MAX_INDICES);
        if (!sinew_grow((void **)&m->face_indices, &r->idx_cap, (size_t)r->index_count + 1, sizeof(uint32_t)))
            return out_of_memory(r);
        m->face_indices[r->index_count++] = (uint32_t)index;
    }
    uint32_t k = r->index_count - first;
    if (k < 3)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s:%" PRIu64 ": face has %u vertices, needs at least 3", r->name, r->t.line_no, k);
    m->face_offsets[m->face_count] = first;
    m->face_offsets[++m->face_count] = r->index_count;
    return SINEW_RESULT_OK;
}

static sinew_result read_records(obj_reader *r)
{
    static const char *const ignored[] = {"vt", "vn", "vp", "o", "g", "s", "usemtl", "mtllib"};
    uint64_t skipped = 0, first_skipped = 0;
    while (sinew_text_next_line(&r->t)) {
        sinew_token kw;
        if (!sinew_text_token(&r->t, &kw))
            continue;
        sinew_result res = SINEW_RESULT_OK;
        if (token_is(kw, "v"))
            res = read_vertex(r);
        else if (token_is(kw, "f"))
            res = read_face(r);
        else {
            int known = 0;
            for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
                known |= token_is(kw, ignored[i]);
            if (!known && skipped++ == 0)
                first_skipped = r->t.line_no;
        }
        if (res != SINEW_RESULT_OK)
            return res;
    }
    if (skipped)
        sinew_logf(r->lg, SINEW_LOG_DEBUG, "mesh", "%s: skipped %" PRIu64 " unsupported records (l, ...), first at line %" PRIu64,
                   r->name, skipped, first_skipped);
    sinew_mesh *m = r->m;
    if (m->vertex_count == 0)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: no vertices", r->name);
    if (m->face_count == 0)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: no faces", r->name);
    if (r->max_index > (int64_t)m->vertex_count)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s:%" PRIu64 ": vertex index %" PRId64 " out of range (file has %u vertices)", r->name,
                          r->max_index_line, r->max_index, m->vertex_count);
    return SINEW_RESULT_OK;
}

sinew_result sinew_mesh_read_obj_memory(const char *text, size_t size, const char *name,
                                        const sinew_logger *lg, sinew_mesh *out)
{
    SINEW_ASSERT(out && (text || size == 0));
    memset(out, 0, sizeof *out);
    obj_reader r = {.name = name ? name : "<memory>", .lg = lg, .m = out};
    sinew_text_init(&r.t, text, size);
    sinew_result res = read_records(&r);
    sinew_text_free(&r.t);
    if (res != SINEW_RESULT_OK)
        sinew_mesh_free(out);
    return res;
}
