/* Wavefront OBJ reader, safe for untrusted input (see mesh_text.h).
 *
 * Reads `v x y z [w]`, `vt u v [w]`, `vn x y z` and `f` records with a, a/t,
 * a/t/n and a//n vertices and negative (relative) indices, `usemtl` (each
 * face's material) and `mtllib` (the library's name: mesh.c reads it); groups
 * and smoothing groups are ignored, `l` polylines and unknown records skipped
 * with a debug message. Positive indices may refer to vertices defined later in
 * the file, as most exporters' readers allow; they are checked at the end.
 * Each distinct (v, vt, vn) corner becomes a render vertex, as an engine's
 * importer makes them (mesh.h, docs/render-mesh.md).
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
    /* Texture coordinates and normals, and each face corner's (NONE: none). */
    float *uv, *nrm;
    uint32_t uv_count, nrm_count;
    size_t uv_cap, nrm_cap, corner_cap;
    uint32_t *corner_t, *corner_n;
    int64_t max_t, max_n;       /* largest positive vt and vn indices seen, and their lines */
    uint64_t max_t_line, max_n_line;
    /* Materials: names in order of first use ("" for faces before any
     * usemtl), a hash of them, each face's, and the one in force. */
    char **mat_name;
    uint32_t mat_count, mat_current;
    size_t mat_cap, face_mat_cap;
    uint32_t *mat_slot;  /* open addressing over mat_name; NONE: empty */
    size_t mat_slot_mask;
    uint32_t *face_mat;
    int saw_usemtl;
    char *library;
} obj_reader;

#define NONE UINT32_MAX

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

/* vt u [v [w]] (2 floats kept) or vn x y z (3). */
static sinew_result read_attribute(obj_reader *r, int normal)
{
    uint32_t *count = normal ? &r->nrm_count : &r->uv_count;
    float **arr = normal ? &r->nrm : &r->uv;
    const int width = normal ? 3 : 2;
    if (*count == SINEW_MESH_MAX_VERTICES)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": more than %u %s", r->name,
                          r->t.line_no, SINEW_MESH_MAX_VERTICES, normal ? "normals" : "texture coordinates");
    if (!sinew_grow((void **)arr, normal ? &r->nrm_cap : &r->uv_cap, (size_t)width * (*count + 1), sizeof(float)))
        return out_of_memory(r);
    float *p = *arr + (size_t)width * *count;
    for (int k = 0; k < width; k++) {
        sinew_token tok;
        if (!sinew_text_token(&r->t, &tok)) {
            if (!normal && k == 1) { /* "vt u": v is 0 */
                p[1] = 0.0f;
                break;
            }
            return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": %s has %d values, needs %s",
                              r->name, r->t.line_no, normal ? "vn" : "vt", k, normal ? "3" : "1 or more");
        }
        double x;
        int ok = sinew_text_double(&r->t, tok, &x);
        if (ok < 0)
            return out_of_memory(r);
        if (!ok)
            return bad(r, "malformed number", tok);
        if (!isfinite(x) || fabs(x) > 3e38)
            return bad(r, normal ? "non-finite normal" : "non-finite texture coordinate", tok);
        p[k] = (float)x;
    }
    (*count)++;
    return SINEW_RESULT_OK;
}

/* The parts of a, a/t, a/t/n or a//n: t and n 0 when absent (OBJ counts
 * from 1, so 0 is never an index). */
static int face_vertex_index(sinew_token tok, int64_t *index, int64_t *t, int64_t *n)
{
    *t = *n = 0;
    size_t start[3] = {0, 0, 0}, len[3] = {0, 0, 0};
    int part = 0;
    for (size_t i = 0; i < tok.len; i++) {
        char c = tok.s[i];
        if (c == '/') {
            if (++part > 2)
                return 0;
            start[part] = i + 1;
            continue;
        }
        if (c != '-' && c != '+' && (c < '0' || c > '9'))
            return 0;
        len[part]++;
    }
    sinew_token vtok = {tok.s, len[0]};
    if (!sinew_token_int(vtok, index))
        return 0;
    if (len[1] && !sinew_token_int((sinew_token){tok.s + start[1], len[1]}, t))
        return 0;
    if (len[2] && !sinew_token_int((sinew_token){tok.s + start[2], len[2]}, n))
        return 0;
    /* An empty part ("a/", "a//") is an absent one, as before; 0 is no index. */
    return (*t != 0 || !len[1]) && (*n != 0 || !len[2]);
}

/* A corner's vt or vn index (count of them so far) resolved to 0-based, or
 * NONE for 0 (absent); -1 when out of range. */
static int64_t resolve(int64_t a, uint32_t count, int64_t *max, uint64_t *max_line, uint64_t line)
{
    if (a == 0)
        return NONE;
    if (a > 0) {
        if (a > *max) {
            *max = a;
            *max_line = line;
        }
        return a - 1 < SINEW_MESH_MAX_VERTICES ? a - 1 : -1;
    }
    int64_t i = (int64_t)count + a;
    return i >= 0 ? i : -1;
}

static uint64_t name_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

/* The material named by tok (len 0: ""), added at the end when new; NONE on OOM
 * or past the limit (r->mat_count says which). */
static uint32_t material_index(obj_reader *r, const char *s, size_t len)
{
    if (2 * ((size_t)r->mat_count + 1) > r->mat_slot_mask) { /* rehash at half full */
        size_t cap = r->mat_slot_mask ? 2 * (r->mat_slot_mask + 1) : 64;
        uint32_t *slot = malloc(sizeof *slot * cap);
        if (!slot)
            return NONE;
        for (size_t i = 0; i < cap; i++)
            slot[i] = NONE;
        for (uint32_t m = 0; m < r->mat_count; m++) {
            size_t i = (size_t)name_hash(r->mat_name[m], strlen(r->mat_name[m])) & (cap - 1);
            while (slot[i] != NONE)
                i = (i + 1) & (cap - 1);
            slot[i] = m;
        }
        free(r->mat_slot);
        r->mat_slot = slot;
        r->mat_slot_mask = cap - 1;
    }
    size_t i = (size_t)name_hash(s, len) & r->mat_slot_mask;
    for (; r->mat_slot[i] != NONE; i = (i + 1) & r->mat_slot_mask) {
        const char *n = r->mat_name[r->mat_slot[i]];
        if (strlen(n) == len && memcmp(n, s, len) == 0)
            return r->mat_slot[i];
    }
    if (r->mat_count == SINEW_MESH_MAX_MATERIALS ||
        !sinew_grow((void **)&r->mat_name, &r->mat_cap, (size_t)r->mat_count + 1, sizeof(char *)))
        return NONE;
    char *copy = malloc(len + 1);
    if (!copy)
        return NONE;
    memcpy(copy, s, len);
    copy[len] = '\0';
    r->mat_name[r->mat_count] = copy;
    r->mat_slot[i] = r->mat_count;
    return r->mat_count++;
}

/* A material or library name: printable, at most SINEW_MESH_MAX_MATERIAL_NAME bytes. */
static sinew_result check_name(obj_reader *r, sinew_token tok, const char *what)
{
    if (tok.len > SINEW_MESH_MAX_MATERIAL_NAME)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": %s of %zu bytes (at most %u)",
                          r->name, r->t.line_no, what, tok.len, SINEW_MESH_MAX_MATERIAL_NAME);
    for (size_t i = 0; i < tok.len; i++)
        if ((uint8_t)tok.s[i] < 0x20 || tok.s[i] == 0x7F)
            return bad(r, what, tok);
    return SINEW_RESULT_OK;
}

/* usemtl NAME: the rest of the line, its words joined by one space (some
 * exporters write "Dark Oak"). */
static sinew_result read_usemtl(obj_reader *r)
{
    char name[SINEW_MESH_MAX_MATERIAL_NAME + 1];
    size_t len = 0;
    sinew_token tok;
    while (sinew_text_token(&r->t, &tok)) {
        sinew_result res = check_name(r, tok, "material name with a control character");
        if (res != SINEW_RESULT_OK)
            return res;
        if (len + (len > 0) + tok.len > SINEW_MESH_MAX_MATERIAL_NAME)
            return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": a material name over %u "
                              "bytes", r->name, r->t.line_no, SINEW_MESH_MAX_MATERIAL_NAME);
        if (len)
            name[len++] = ' ';
        memcpy(name + len, tok.s, tok.len);
        len += tok.len;
    }
    r->saw_usemtl = 1;
    r->mat_current = material_index(r, name, len);
    if (r->mat_current == NONE)
        return r->mat_count == SINEW_MESH_MAX_MATERIALS
                   ? sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s:%" PRIu64 ": more than %u materials",
                                r->name, r->t.line_no, SINEW_MESH_MAX_MATERIALS)
                   : out_of_memory(r);
    return SINEW_RESULT_OK;
}

/* The first library named (mesh.c reads it); later ones are noted and left. */
static sinew_result read_mtllib(obj_reader *r)
{
    sinew_token tok;
    while (sinew_text_token(&r->t, &tok)) {
        sinew_result res = check_name(r, tok, "material library name with a control character");
        if (res != SINEW_RESULT_OK)
            return res;
        if (r->library) {
            char buf[40];
            sinew_logf(r->lg, SINEW_LOG_WARNING, "mesh", "%s:%" PRIu64 ": material library '%s' left out: only "
                       "the first one (%s) is kept", r->name, r->t.line_no, sinew_token_printable(tok, buf),
                       r->library);
            continue;
        }
        if (!(r->library = malloc(tok.len + 1)))
            return out_of_memory(r);
        memcpy(r->library, tok.s, tok.len);
        r->library[tok.len] = '\0';
    }
    return SINEW_RESULT_OK;
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
        int64_t a, at, an;
        if (!face_vertex_index(tok, &a, &at, &an))
            return bad(r, "malformed face vertex", tok);
        int64_t ti = resolve(at, r->uv_count, &r->max_t, &r->max_t_line, r->t.line_no);
        int64_t ni = resolve(an, r->nrm_count, &r->max_n, &r->max_n_line, r->t.line_no);
        if (ti < 0 || ni < 0)
            return bad(r, ti < 0 ? "texture coordinate index out of range" : "normal index out of range", tok);
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
        size_t corner_cap = r->corner_cap;
        if (!sinew_grow((void **)&m->face_indices, &r->idx_cap, (size_t)r->index_count + 1, sizeof(uint32_t)) ||
            !sinew_grow((void **)&r->corner_t, &r->corner_cap, (size_t)r->index_count + 1, sizeof(uint32_t)) ||
            !sinew_grow((void **)&r->corner_n, &corner_cap, (size_t)r->index_count + 1, sizeof(uint32_t)))
            return out_of_memory(r);
        r->corner_t[r->index_count] = (uint32_t)ti;
        r->corner_n[r->index_count] = (uint32_t)ni;
        m->face_indices[r->index_count++] = (uint32_t)index;
    }
    uint32_t k = r->index_count - first;
    if (k < 3)
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s:%" PRIu64 ": face has %u vertices, needs at least 3", r->name, r->t.line_no, k);
    if (r->mat_current == NONE && (r->mat_current = material_index(r, "", 0)) == NONE)
        return out_of_memory(r);
    if (!sinew_grow((void **)&r->face_mat, &r->face_mat_cap, (size_t)m->face_count + 1, sizeof(uint32_t)))
        return out_of_memory(r);
    r->face_mat[m->face_count] = r->mat_current;
    m->face_offsets[m->face_count] = first;
    m->face_offsets[++m->face_count] = r->index_count;
    return SINEW_RESULT_OK;
}

static sinew_result read_records(obj_reader *r)
{
    static const char *const ignored[] = {"vp", "o", "g", "s"};
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
        else if (token_is(kw, "vt"))
            res = read_attribute(r, 0);
        else if (token_is(kw, "vn"))
            res = read_attribute(r, 1);
        else if (token_is(kw, "usemtl"))
            res = read_usemtl(r);
        else if (token_is(kw, "mtllib"))
            res = read_mtllib(r);
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
    if (r->max_t > (int64_t)r->uv_count || r->max_n > (int64_t)r->nrm_count) {
        int t = r->max_t > (int64_t)r->uv_count;
        return sinew_fail(r->lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                          "%s:%" PRIu64 ": %s index %" PRId64 " out of range (file has %u)", r->name,
                          t ? r->max_t_line : r->max_n_line, t ? "texture coordinate" : "normal",
                          t ? r->max_t : r->max_n, t ? r->uv_count : r->nrm_count);
    }
    return SINEW_RESULT_OK;
}

/* Corner key -> render vertex, open addressing; keys are (v, t, n). */
typedef struct corner_map {
    uint32_t *key;   /* 3 per slot; key[0] == NONE: empty */
    uint32_t *value;
    size_t mask;
} corner_map;

static uint32_t *corner_slot(corner_map *c, const uint32_t k[3])
{
    uint64_t h = (uint64_t)k[0] * 0x9e3779b97f4a7c15ull ^ ((uint64_t)k[1] << 21) * 0xbf58476d1ce4e5b9ull ^
                 ((uint64_t)k[2] << 42 | k[2]) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    size_t i = (size_t)h & c->mask;
    while (c->key[3 * i] != NONE && memcmp(c->key + 3 * i, k, 12) != 0)
        i = (i + 1) & c->mask;
    if (c->key[3 * i] == NONE) {
        memcpy(c->key + 3 * i, k, 12);
        c->value[i] = NONE;
    }
    return &c->value[i];
}

/* The render mesh (mesh.h): one render vertex per distinct corner, in order
 * of first use; each face fanned from its first corner. */
static sinew_result make_render_mesh(obj_reader *r)
{
    sinew_mesh *m = r->m;
    const uint32_t corners = r->index_count;
    int has_uv = 0, has_n = 0;
    for (uint32_t k = 0; k < corners; k++) {
        has_uv |= r->corner_t[k] != NONE;
        has_n |= r->corner_n[k] != NONE;
    }
    /* Materials only where the file names one: faces before any usemtl are
     * then the group "". */
    const uint32_t groups = r->saw_usemtl ? r->mat_count : 0;
    if (!has_uv && !has_n && !groups)
        return SINEW_RESULT_OK;
    size_t cap = 16;
    while (cap < 2 * (size_t)corners)
        cap *= 2;
    corner_map c = {malloc(12 * cap), malloc(4 * cap), cap - 1};
    uint32_t *rv = malloc(sizeof *rv * corners);
    m->render_vertex = malloc(sizeof(uint32_t) * corners);
    m->render_uv = has_uv ? malloc(sizeof(float) * 2 * corners) : NULL;
    m->render_normal = has_n ? malloc(sizeof(float) * 3 * corners) : NULL;
    m->render_triangles = malloc(sizeof(uint32_t) * 3 * ((size_t)corners - 2 * (size_t)m->face_count + 1));
    sinew_result res = SINEW_RESULT_OK;
    if (!c.key || !c.value || !rv || !m->render_vertex || (has_uv && !m->render_uv) ||
        (has_n && !m->render_normal) || !m->render_triangles)
        res = out_of_memory(r);
    for (size_t i = 0; i <= c.mask && res == SINEW_RESULT_OK; i++)
        c.key[3 * i] = NONE;
    uint32_t count = 0;
    for (uint32_t k = 0; k < corners && res == SINEW_RESULT_OK; k++) {
        const uint32_t key[3] = {m->face_indices[k], r->corner_t[k], r->corner_n[k]};
        uint32_t *slot = corner_slot(&c, key);
        if (*slot == NONE) {
            *slot = count;
            m->render_vertex[count] = key[0];
            if (has_uv) {
                /* A corner without vt in a file with UVs gets (0, 0). */
                m->render_uv[2 * (size_t)count] = key[1] != NONE ? r->uv[2 * (size_t)key[1]] : 0.0f;
                m->render_uv[2 * (size_t)count + 1] = key[1] != NONE ? r->uv[2 * (size_t)key[1] + 1] : 0.0f;
            }
            for (int d = 0; d < 3 && has_n; d++)
                m->render_normal[3 * (size_t)count + d] = key[2] != NONE ? r->nrm[3 * (size_t)key[2] + d] : 0.0f;
            count++;
        }
        rv[k] = *slot;
    }
    /* The triangles by material, in order of first use (a counting sort);
     * without materials, in the file's order. */
    uint32_t *first = calloc((size_t)groups + 2, sizeof *first);
    if (!first && res == SINEW_RESULT_OK)
        res = out_of_memory(r);
    for (uint32_t f = 0; f < m->face_count && groups && res == SINEW_RESULT_OK; f++)
        first[r->face_mat[f] + 1] += m->face_offsets[f + 1] - m->face_offsets[f] - 2;
    for (uint32_t g = 0; g < groups && res == SINEW_RESULT_OK; g++)
        first[g + 1] += first[g];
    uint32_t t = 0;
    for (uint32_t f = 0; f < m->face_count && res == SINEW_RESULT_OK; f++) {
        uint32_t *at = groups ? &first[r->face_mat[f]] : &t;
        for (uint32_t k = m->face_offsets[f] + 1; k + 1 < m->face_offsets[f + 1]; k++, (*at)++) {
            m->render_triangles[3 * (size_t)*at] = rv[m->face_offsets[f]];
            m->render_triangles[3 * (size_t)*at + 1] = rv[k];
            m->render_triangles[3 * (size_t)*at + 2] = rv[k + 1];
        }
    }
    if (groups && res == SINEW_RESULT_OK) { /* first[g] now ends group g: shift back */
        t = first[groups - 1];
        memmove(first + 1, first, sizeof *first * groups);
        first[0] = 0;
        m->materials = (sinew_mesh_materials){groups, r->mat_name, first, r->library, NULL, 0};
        r->mat_name = NULL;
        r->mat_count = 0;
        r->library = NULL;
        first = NULL;
    }
    free(first);
    m->render_vertex_count = count;
    m->render_triangle_count = t;
    free(c.key);
    free(c.value);
    free(rv);
    if (res == SINEW_RESULT_OK)
        res = sinew_mesh_render_finish(m, r->name, r->lg);
    return res;
}

sinew_result sinew_mesh_read_obj_memory(const char *text, size_t size, const char *name,
                                        const sinew_logger *lg, sinew_mesh *out)
{
    SINEW_ASSERT(out && (text || size == 0));
    memset(out, 0, sizeof *out);
    obj_reader r = {.name = name ? name : "<memory>", .lg = lg, .m = out, .mat_current = NONE};
    sinew_text_init(&r.t, text, size);
    sinew_result res = read_records(&r);
    if (res == SINEW_RESULT_OK)
        res = make_render_mesh(&r);
    sinew_text_free(&r.t);
    free(r.uv);
    free(r.nrm);
    free(r.corner_t);
    free(r.corner_n);
    for (uint32_t i = 0; i < r.mat_count; i++)
        free(r.mat_name[i]);
    free(r.mat_name);
    free(r.mat_slot);
    free(r.face_mat);
    free(r.library);
    if (res != SINEW_RESULT_OK)
        sinew_mesh_free(out);
    return res;
}
