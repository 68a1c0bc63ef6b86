/* Mesh files and the grid generator: reading a file and choosing its reader
 * (ours for OBJ and OFF, assimp for the rest where built with it), writing OBJ,
 * a regular quad grid, copies of a mesh stacked in layers, quads split into
 * triangles, and the text scanning both readers share. */
#include "mesh.h"
#include "mesh_text.h"

#include "core/file.h"
#include "core/log.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Larger files are refused rather than read: a surface mesh that big is a mistake. */

void sinew_mesh_free(sinew_mesh *m)
{
    if (!m)
        return;
    sinew_mesh_free_render(m);
    free(m->positions);
    free(m->face_offsets);
    free(m->face_indices);
    memset(m, 0, sizeof *m);
}

static void free_materials(sinew_mesh_materials *g)
{
    for (uint32_t i = 0; g->names && i < g->count; i++)
        free(g->names[i]);
    free(g->names);
    free(g->first);
    free(g->library);
    free(g->library_text);
    memset(g, 0, sizeof *g);
}

void sinew_mesh_free_render(sinew_mesh *m)
{
    free_materials(&m->materials);
    free(m->render_vertex);
    free(m->render_uv);
    free(m->render_normal);
    free(m->render_triangles);
    m->render_vertex_count = m->render_triangle_count = 0;
    m->render_vertex = m->render_triangles = NULL;
    m->render_uv = m->render_normal = NULL;
}

void sinew_mesh_move_render(sinew_mesh *dst, sinew_mesh *src)
{
    sinew_mesh_free_render(dst);
    dst->render_vertex_count = src->render_vertex_count;
    dst->render_vertex = src->render_vertex;
    dst->render_uv = src->render_uv;
    dst->render_normal = src->render_normal;
    dst->render_triangle_count = src->render_triangle_count;
    dst->render_triangles = src->render_triangles;
    dst->materials = src->materials;
    src->render_vertex_count = src->render_triangle_count = 0;
    src->render_vertex = src->render_triangles = NULL;
    src->render_uv = src->render_normal = NULL;
    memset(&src->materials, 0, sizeof src->materials);
}

/* ------------------------------------------------------------ materials */

typedef struct last_message {
    char text[512];
} last_message;

static void keep_message(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)level;
    (void)id;
    snprintf(((last_message *)user)->text, sizeof ((last_message *)user)->text, "%s", message);
}

sinew_result sinew_mesh_read_library(sinew_mesh *m, const char *obj_path, const sinew_logger *lg)
{
    sinew_mesh_materials *g = &m->materials;
    if (!g->library || g->library_text)
        return SINEW_RESULT_OK;
    const char *name = g->library;
    /* Only what lies in the source's folder or below it: a model from a
     * stranger must not carry /etc/passwd into an asset. */
    int leaves = name[0] == '/' || name[0] == '\\' || strstr(name, "..") != NULL || strchr(name, ':') != NULL;
    if (leaves) {
        sinew_logf(lg, SINEW_LOG_WARNING, "mesh", "%s: material library \"%s\" not read: it is outside the model's "
                   "folder; its usemtl groups are kept", obj_path, name);
        return SINEW_RESULT_OK;
    }
    const char *slash = strrchr(obj_path, '/');
    size_t dir = slash ? (size_t)(slash - obj_path) + 1 : 0;
    char *path = malloc(dir + strlen(name) + 1);
    if (!path)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s: out of memory", obj_path);
    memcpy(path, obj_path, dir);
    strcpy(path + dir, name);
    last_message why = {""};
    sinew_logger quiet = {keep_message, &why, SINEW_LOG_ERROR};
    uint8_t *bytes = NULL;
    size_t size = 0;
    sinew_result r = sinew_file_read(path, SINEW_MESH_MAX_LIBRARY, &quiet, "mesh", &bytes, &size);
    if (r == SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY) {
        free(path);
        return sinew_fail(lg, r, "mesh", "%s: out of memory", obj_path);
    }
    const void *nul = r == SINEW_RESULT_OK ? memchr(bytes, 0, size) : NULL;
    if (r != SINEW_RESULT_OK || nul)
        sinew_logf(lg, SINEW_LOG_WARNING, "mesh", "%s: material library %s not kept (%s); its usemtl groups are kept "
                   "and the meshes written will name it", obj_path, path,
                   nul ? "it holds a NUL byte: not a text file" : why.text[0] ? why.text : sinew_result_string(r));
    char *text = r == SINEW_RESULT_OK && !nul ? realloc(bytes, size + 1) : NULL;
    if (r == SINEW_RESULT_OK && !nul && !text) {
        free(bytes);
        free(path);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s: out of memory", obj_path);
    }
    if (!text)
        free(bytes);
    else {
        text[size] = '\0';
        g->library_text = text;
        g->library_size = size;
        sinew_logf(lg, SINEW_LOG_INFO, "mesh", "%s: material library %s (%zu bytes) kept", obj_path, path, size);
    }
    free(path);
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------ welding */

typedef struct weld_key {
    uint64_t bits[3];
    uint32_t vertex;
} weld_key;

/* By position, then by vertex, so the first of equal positions sorts first. */
static int weld_compare(const void *pa, const void *pb)
{
    const weld_key *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a->bits[k] != b->bits[k])
            return a->bits[k] < b->bits[k] ? -1 : 1;
    return (a->vertex > b->vertex) - (a->vertex < b->vertex);
}

int sinew_mesh_weld(sinew_mesh *m, uint32_t *old_to_new, uint32_t *merged)
{
    uint32_t n = m->vertex_count;
    weld_key *keys = malloc(sizeof *keys * ((size_t)n + 1));
    uint32_t *remap = old_to_new ? old_to_new : malloc(sizeof *remap * ((size_t)n + 1));
    if (!keys || !remap) {
        free(keys);
        if (remap != old_to_new)
            free(remap);
        return 0;
    }
    for (uint32_t v = 0; v < n; v++) {
        for (int k = 0; k < 3; k++) {
            double x = m->positions[3 * (size_t)v + k] + 0.0; /* -0.0 becomes +0.0 */
            memcpy(&keys[v].bits[k], &x, sizeof x);
        }
        keys[v].vertex = v;
    }
    qsort(keys, n, sizeof *keys, weld_compare);
    for (uint32_t i = 0, j; i < n; i = j)
        for (j = i; j < n && memcmp(keys[j].bits, keys[i].bits, sizeof keys[i].bits) == 0; j++)
            remap[keys[j].vertex] = keys[i].vertex;
    /* remap[v] holds v's first twin, whose new number is already known. */
    uint32_t kept = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (remap[v] == v) {
            memmove(m->positions + 3 * (size_t)kept, m->positions + 3 * (size_t)v, 3 * sizeof(double));
            remap[v] = kept++;
        } else {
            remap[v] = remap[remap[v]];
        }
    }
    for (uint32_t i = 0; m->face_count && i < m->face_offsets[m->face_count]; i++)
        m->face_indices[i] = remap[m->face_indices[i]];
    for (uint32_t i = 0; i < m->render_vertex_count; i++)
        m->render_vertex[i] = remap[m->render_vertex[i]];
    m->vertex_count = kept;
    *merged = n - kept;
    free(keys);
    if (remap != old_to_new)
        free(remap);
    return 1;
}

int sinew_mesh_render_from_faces(sinew_mesh *m)
{
    if (m->render_vertex_count)
        return 1;
    uint64_t triangles = 0;
    for (uint32_t f = 0; f < m->face_count; f++)
        triangles += m->face_offsets[f + 1] - m->face_offsets[f] - 2;
    if (m->vertex_count == 0 || triangles == 0 || triangles > UINT32_MAX / 3)
        return 1;
    /* Render vertices for the vertices faces use, in order. */
    uint32_t *of = malloc(sizeof *of * m->vertex_count), *vertex = malloc(sizeof *vertex * m->vertex_count),
             *tri = malloc(sizeof *tri * 3 * triangles), count = 0;
    if (!of || !vertex || !tri) {
        free(of);
        free(vertex);
        free(tri);
        return 0;
    }
    memset(of, 0xff, sizeof *of * m->vertex_count);
    for (uint32_t k = 0; k < m->face_offsets[m->face_count]; k++)
        of[m->face_indices[k]] = 0;
    for (uint32_t i = 0; i < m->vertex_count; i++)
        if (of[i] == 0) {
            of[i] = count;
            vertex[count++] = i;
        }
    uint32_t *t = tri;
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *idx = m->face_indices + m->face_offsets[f];
        for (uint32_t k = 1; k + 1 < m->face_offsets[f + 1] - m->face_offsets[f]; k++, t += 3) {
            t[0] = of[idx[0]];
            t[1] = of[idx[k]];
            t[2] = of[idx[k + 1]];
        }
    }
    free(of);
    m->render_vertex = vertex;
    m->render_vertex_count = count;
    m->render_triangles = tri;
    m->render_triangle_count = (uint32_t)triangles;
    return 1;
}

sinew_result sinew_mesh_render_finish(sinew_mesh *m, const char *name, const sinew_logger *lg)
{
    const uint32_t r = m->render_vertex_count;
    if (r == 0 || m->render_triangle_count == 0) {
        sinew_mesh_free_render(m);
        return SINEW_RESULT_OK;
    }
    const char *problem = NULL;
    uint32_t at = 0;
    for (uint32_t i = 0; i < r && !problem; i++) {
        at = i;
        if (m->render_vertex[i] >= m->vertex_count)
            problem = "sits on a vertex out of range";
        for (int k = 0; k < 2 && m->render_uv && !problem; k++)
            if (!isfinite(m->render_uv[2 * (size_t)i + k]))
                problem = "has a non-finite texture coordinate";
        for (int k = 0; k < 3 && m->render_normal && !problem; k++)
            if (!isfinite(m->render_normal[3 * (size_t)i + k]))
                problem = "has a non-finite normal";
    }
    if (problem) {
        sinew_mesh_free_render(m);
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: render vertex %u %s", name, at, problem);
    }
    for (uint64_t k = 0; k < 3ull * m->render_triangle_count; k++)
        if (m->render_triangles[k] >= r) {
            uint32_t bad = m->render_triangles[k];
            sinew_mesh_free_render(m);
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh",
                              "%s: render triangle %llu names render vertex %u of %u", name,
                              (unsigned long long)(k / 3), bad, r);
        }
    const sinew_mesh_materials *g = &m->materials;
    for (uint32_t i = 0; i < g->count; i++)
        if (g->first[i] > g->first[i + 1] || (i == 0 && g->first[0] != 0)) {
            sinew_mesh_free_render(m);
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: material group %u out of order", name, i);
        }
    if (g->count && g->first[g->count] != m->render_triangle_count) {
        sinew_mesh_free_render(m);
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "mesh", "%s: material groups cover %u of %u render "
                          "triangles", name, g->first[g->count], m->render_triangle_count);
    }
    if (m->render_uv || g->count)
        return SINEW_RESULT_OK;
    /* Without UVs or materials the render mesh matters only where it splits a vertex. */
    uint8_t *seen = calloc((size_t)m->vertex_count + 1, 1);
    if (!seen) {
        sinew_mesh_free_render(m);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s: out of memory", name);
    }
    int split = 0;
    for (uint32_t i = 0; i < r && !split; i++) {
        split = seen[m->render_vertex[i]];
        seen[m->render_vertex[i]] = 1;
    }
    free(seen);
    if (!split)
        sinew_mesh_free_render(m);
    return SINEW_RESULT_OK;
}

float *sinew_mesh_render_face_normals(const sinew_mesh *m)
{
    const uint32_t r = m->render_vertex_count;
    double *sum = calloc(3 * (size_t)r + 1, sizeof *sum);
    float *out = malloc(sizeof *out * (3 * (size_t)r + 1));
    if (!sum || !out) {
        free(sum);
        free(out);
        return NULL;
    }
    for (uint32_t t = 0; t < m->render_triangle_count; t++) {
        const uint32_t *v = m->render_triangles + 3 * (size_t)t;
        const double *p[3];
        for (int c = 0; c < 3; c++)
            p[c] = m->positions + 3 * (size_t)m->render_vertex[v[c]];
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = p[1][k] - p[0][k];
            e2[k] = p[2][k] - p[0][k];
        }
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                sum[3 * (size_t)v[c] + k] += n[k];
    }
    for (uint32_t i = 0; i < r; i++) {
        double *n = sum + 3 * (size_t)i;
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++)
            out[3 * (size_t)i + k] = len > 0.0 ? (float)(n[k] / len) : (float)(k == 2);
    }
    free(sum);
    return out;
}

/* ------------------------------------------------------------ text scanning */

void sinew_text_init(sinew_text *t, const char *data, size_t size)
{
    memset(t, 0, sizeof *t);
    t->data = data;
    t->size = size;
}

void sinew_text_free(sinew_text *t)
{
    free(t->scratch);
    t->scratch = NULL;
    t->scratch_cap = 0;
}

int sinew_text_next_line(sinew_text *t)
{
    if (t->next >= t->size)
        return 0;
    const char *line = t->data + t->next;
    size_t rest = t->size - t->next;
    const char *nl = memchr(line, '\n', rest);
    size_t len = nl ? (size_t)(nl - line) : rest;
    const char *hash = memchr(line, '#', len);
    t->line = line;
    t->end = hash ? hash : line + len;
    t->cursor = line;
    t->next += nl ? len + 1 : len;
    t->line_no++;
    return 1;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int sinew_text_token(sinew_text *t, sinew_token *tok)
{
    const char *p = t->cursor;
    while (p < t->end && is_space(*p))
        p++;
    const char *s = p;
    while (p < t->end && !is_space(*p))
        p++;
    t->cursor = p;
    tok->s = s;
    tok->len = (size_t)(p - s);
    return tok->len > 0;
}

int sinew_text_double(sinew_text *t, sinew_token tok, double *out)
{
    /* strtod needs a NUL terminator, which the input does not promise. */
    if (!sinew_grow((void **)&t->scratch, &t->scratch_cap, tok.len + 1, 1))
        return -1;
    memcpy(t->scratch, tok.s, tok.len);
    t->scratch[tok.len] = '\0';
    char *end;
    *out = strtod(t->scratch, &end);
    return end == t->scratch + tok.len && tok.len > 0;
}

int sinew_token_int(sinew_token tok, int64_t *out)
{
    const int64_t cap = (int64_t)1 << 40;
    size_t i = 0;
    int negative = 0;
    if (i < tok.len && (tok.s[i] == '+' || tok.s[i] == '-'))
        negative = tok.s[i++] == '-';
    if (i == tok.len)
        return 0;
    int64_t v = 0;
    for (; i < tok.len; i++) {
        if (tok.s[i] < '0' || tok.s[i] > '9')
            return 0;
        v = v < cap ? v * 10 + (tok.s[i] - '0') : cap;
    }
    *out = negative ? -v : v;
    return 1;
}

const char *sinew_token_printable(sinew_token tok, char buf[40])
{
    size_t n = tok.len < 32 ? tok.len : 32;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)tok.s[i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    strcpy(buf + n, tok.len > n ? "..." : "");
    return buf;
}

int sinew_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    size_t n = *cap > 16 ? *cap : 16;
    while (n < need)
        n = n > SIZE_MAX / 2 ? need : n * 2;
    if (elem == 0 || n > SIZE_MAX / elem)
        return 0;
    void *q = realloc(*p, n * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

/* ------------------------------------------------------------ files */

int sinew_path_has_extension(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    if (n < e)
        return 0;
    for (size_t i = 0; i < e; i++)
        if (tolower((unsigned char)path[n - e + i]) != ext[i])
            return 0;
    return 1;
}

/* OFF files open with a keyword ending in "OFF" ([ST][C][N][4][n]OFF); the OFF
 * reader itself decides which variants it supports. */
static int looks_like_off(const char *text, size_t size)
{
    sinew_text t;
    sinew_text_init(&t, text, size);
    sinew_token tok;
    while (sinew_text_next_line(&t))
        if (sinew_text_token(&t, &tok))
            return tok.len >= 3 && memcmp(tok.s + tok.len - 3, "OFF", 3) == 0;
    return 0;
}

/* A dot in the last path component, not at its start: "a/b.ply", not "a.d/b" or ".b". */
static int has_any_extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    return dot && dot != name;
}

sinew_result sinew_mesh_read(const char *path, const sinew_logger *lg, sinew_mesh *out)
{
    SINEW_ASSERT(path && out);
    memset(out, 0, sizeof *out);
    int obj = sinew_path_has_extension(path, ".obj"), off = sinew_path_has_extension(path, ".off");
    if (!obj && !off && has_any_extension(path))
        return sinew_mesh_read_assimp(path, lg, out);
    uint8_t *bytes;
    size_t size;
    sinew_result r = sinew_file_read(path, SINEW_MESH_MAX_FILE, lg, "mesh", &bytes, &size);
    if (r != SINEW_RESULT_OK)
        return r;
    const char *data = (const char *)bytes;
    off = off || (!obj && looks_like_off(data, size));
    r = off ? sinew_mesh_read_off_memory(data, size, path, lg, out)
            : sinew_mesh_read_obj_memory(data, size, path, lg, out);
    free(bytes);
    if (r == SINEW_RESULT_OK && (r = sinew_mesh_read_library(out, path, lg)) != SINEW_RESULT_OK)
        sinew_mesh_free(out);
    return r;
}

#ifndef SINEW_HAVE_ASSIMP
sinew_result sinew_mesh_read_assimp(const char *path, const sinew_logger *lg, sinew_mesh *out)
{
    SINEW_ASSERT(path && out);
    memset(out, 0, sizeof *out);
    return sinew_fail(lg, SINEW_RESULT_ERROR_UNSUPPORTED, "mesh",
                      "%s: format not supported in this build (rebuild with libassimp-dev for PLY, STL, glTF)",
                      path);
}
#endif

sinew_result sinew_mesh_write_obj(const char *path, const double *positions, uint32_t vertex_count,
                                  const uint32_t *face_offsets, const uint32_t *face_indices,
                                  uint32_t face_count, const sinew_logger *lg)
{
    SINEW_ASSERT(path && (positions || vertex_count == 0) && (face_offsets || face_count == 0));
    FILE *f;
    sinew_result r = sinew_file_open_output(path, lg, "mesh", &f);
    if (r != SINEW_RESULT_OK)
        return r;
    fprintf(f, "# written by sinew\n");
    /* %.17g: doubles survive the round trip exactly. */
    for (uint32_t v = 0; v < vertex_count; v++) {
        const double *p = positions + 3 * (size_t)v;
        fprintf(f, "v %.17g %.17g %.17g\n", p[0], p[1], p[2]);
    }
    for (uint32_t fi = 0; fi < face_count; fi++) {
        fputc('f', f);
        for (uint32_t k = face_offsets[fi]; k < face_offsets[fi + 1]; k++)
            fprintf(f, " %lu", (unsigned long)face_indices[k] + 1);
        fputc('\n', f);
    }
    int failed = ferror(f);
    failed |= fclose(f) != 0;
    if (failed)
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, "mesh", "cannot write %s: %s", path, strerror(errno));
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------ grid */

sinew_result sinew_mesh_grid(uint32_t nx, uint32_t ny, double size_x, double size_y,
                             sinew_grid_plane plane, const double origin[3], sinew_mesh *out)
{
    SINEW_ASSERT(out);
    memset(out, 0, sizeof *out);
    if (nx < 2 || ny < 2 || !(size_x > 0.0) || !(size_y > 0.0) || !isfinite(size_x) ||
        !isfinite(size_y) || (plane != SINEW_GRID_XZ && plane != SINEW_GRID_XY))
        return SINEW_RESULT_ERROR_INVALID_ARGUMENT;
    if ((uint64_t)nx * ny > SINEW_MESH_MAX_VERTICES)
        return SINEW_RESULT_ERROR_LIMIT;
    const double zero[3] = {0, 0, 0};
    const double *o = origin ? origin : zero;
    uint32_t vcount = nx * ny, fcount = (nx - 1) * (ny - 1);
    out->positions = malloc(sizeof(double) * 3 * vcount);
    out->face_offsets = malloc(sizeof(uint32_t) * (fcount + 1));
    out->face_indices = malloc(sizeof(uint32_t) * 4 * fcount);
    if (!out->positions || !out->face_offsets || !out->face_indices) {
        sinew_mesh_free(out);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    out->vertex_count = vcount;
    out->face_count = fcount;
    for (uint32_t j = 0; j < ny; j++) {
        for (uint32_t i = 0; i < nx; i++) {
            double u = ((double)i / (nx - 1) - 0.5) * size_x;
            double v = ((double)j / (ny - 1) - 0.5) * size_y;
            double *p = out->positions + 3 * ((size_t)j * nx + i);
            p[0] = o[0] + u;
            p[1] = plane == SINEW_GRID_XZ ? o[1] : o[1] + v;
            p[2] = plane == SINEW_GRID_XZ ? o[2] + v : o[2];
        }
    }
    /* Counter-clockwise seen from +y (XZ) or +z (XY), so normals point up / out. */
    uint32_t f = 0;
    for (uint32_t j = 0; j + 1 < ny; j++) {
        for (uint32_t i = 0; i + 1 < nx; i++, f++) {
            uint32_t a = j * nx + i, b = a + 1, c = a + nx + 1, d = a + nx;
            uint32_t *q = out->face_indices + 4 * (size_t)f;
            out->face_offsets[f] = 4 * f;
            if (plane == SINEW_GRID_XZ) {
                q[0] = a; q[1] = d; q[2] = c; q[3] = b;
            } else {
                q[0] = a; q[1] = b; q[2] = c; q[3] = d;
            }
        }
    }
    out->face_offsets[fcount] = 4 * fcount;
    return SINEW_RESULT_OK;
}

sinew_result sinew_mesh_curtain(uint32_t side, sinew_mesh *out)
{
    memset(out, 0, sizeof *out);
    if (side < 2 || side > 4096)
        return SINEW_RESULT_ERROR_INVALID_ARGUMENT;
    sinew_mesh m = {0};
    m.vertex_count = side * side;
    m.face_count = (side - 1) * (side - 1);
    m.positions = malloc(sizeof *m.positions * 3 * m.vertex_count);
    m.face_offsets = malloc(sizeof *m.face_offsets * (m.face_count + 1));
    m.face_indices = malloc(sizeof *m.face_indices * 4 * m.face_count);
    if (!m.positions || !m.face_offsets || !m.face_indices) {
        sinew_mesh_free(&m);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t j = 0; j < side; j++)
        for (uint32_t i = 0; i < side; i++) {
            double u = (double)i / (side - 1) - 0.5, v = (double)j / (side - 1);
            double *q = &m.positions[3 * (j * side + i)];
            q[0] = u;
            q[1] = 0.05 + v;
            q[2] = 0.03 * sin(2.0 * 3.14159265358979 * 2.5 * (u + 0.5)) * (0.3 + 0.7 * v);
        }
    m.face_offsets[0] = 0;
    for (uint32_t f = 0, j = 0; j + 1 < side; j++)
        for (uint32_t i = 0; i + 1 < side; i++, f++) {
            uint32_t a = j * side + i;
            uint32_t quad[4] = {a, a + 1, a + side + 1, a + side};
            memcpy(&m.face_indices[4 * f], quad, sizeof quad);
            m.face_offsets[f + 1] = 4 * (f + 1);
        }
    *out = m;
    return SINEW_RESULT_OK;
}

sinew_result sinew_mesh_stack(sinew_mesh *m, uint32_t count, const double step[3])
{
    SINEW_ASSERT(m && step);
    if (count == 0 || !isfinite(step[0]) || !isfinite(step[1]) || !isfinite(step[2]))
        return SINEW_RESULT_ERROR_INVALID_ARGUMENT;
    for (uint32_t f = 0; f < m->face_count; f++)
        if (m->face_offsets[f + 1] < m->face_offsets[f])
            return SINEW_RESULT_ERROR_BAD_MESH;
    if (count == 1)
        return SINEW_RESULT_OK;
    uint32_t nv = m->vertex_count, nf = m->face_count, ni = nf ? m->face_offsets[nf] : 0;
    if ((uint64_t)nv * count > SINEW_MESH_MAX_VERTICES || (uint64_t)nf * count > SINEW_MESH_MAX_FACES ||
        (uint64_t)ni * count > SINEW_MESH_MAX_INDICES)
        return SINEW_RESULT_ERROR_LIMIT;
    double *positions = malloc(sizeof *positions * 3 * (size_t)nv * count);
    uint32_t *offsets = malloc(sizeof *offsets * ((size_t)nf * count + 1));
    uint32_t *indices = malloc(sizeof *indices * ((size_t)ni * count + 1));
    if (!positions || !offsets || !indices) {
        free(positions);
        free(offsets);
        free(indices);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t l = 0; l < count; l++) {
        double *p = positions + 3 * (size_t)nv * l;
        for (size_t i = 0; i < 3 * (size_t)nv; i++)
            p[i] = m->positions[i] + l * step[i % 3];
        uint32_t base = nf ? m->face_offsets[0] : 0;
        for (uint32_t f = 0; f < nf; f++)
            offsets[(size_t)nf * l + f] = m->face_offsets[f] - base + ni * l;
        for (uint32_t k = 0; k < ni; k++)
            indices[(size_t)ni * l + k] = m->face_indices[base + k] + nv * l;
    }
    offsets[(size_t)nf * count] = ni * count;
    free(m->positions);
    free(m->face_offsets);
    free(m->face_indices);
    m->positions = positions;
    m->face_offsets = offsets;
    m->face_indices = indices;
    m->vertex_count = nv * count;
    m->face_count = nf * count;
    sinew_mesh_free_render(m); /* the copies would share one source's render vertices */
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------ quads to triangles */

typedef struct quad_edge {
    uint64_t key; /* min << 32 | max of the edge's vertices */
    uint32_t quad;
} quad_edge;

static int by_key(const void *pa, const void *pb)
{
    const quad_edge *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->quad > b->quad) - (a->quad < b->quad);
}

/* Two-colours the quads breadth first through their shared edges: quads
 * sorted by edge find their neighbours in runs of equal keys, each entry
 * joined to the next one of its run. colour[q] is 0 or 1. */
static int colour_quads(const sinew_mesh *m, const uint32_t *quad_face, uint32_t quads, uint8_t *colour)
{
    quad_edge *e = malloc(sizeof *e * 4 * (size_t)quads);
    uint32_t *begin = calloc((size_t)quads + 1, sizeof *begin);
    uint32_t *next = malloc(sizeof *next * 8 * (size_t)quads);
    uint32_t *queue = malloc(sizeof *queue * (size_t)quads);
    int ok = e && begin && next && queue;
    if (ok) {
        for (uint32_t q = 0; q < quads; q++) {
            const uint32_t *v = m->face_indices + m->face_offsets[quad_face[q]];
            for (int k = 0; k < 4; k++) {
                uint32_t a = v[k], b = v[(k + 1) % 4];
                e[4 * q + k] = (quad_edge){a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a, q};
            }
        }
        qsort(e, 4 * (size_t)quads, sizeof *e, by_key);
        /* Neighbour lists in CSR: counted, then filled through moving cursors. */
        for (int fill = 0; fill < 2; fill++) {
            for (size_t i = 0; i + 1 < 4 * (size_t)quads; i++) {
                uint32_t p = e[i].quad, q = e[i + 1].quad;
                if (e[i].key != e[i + 1].key || p == q)
                    continue;
                if (fill) {
                    next[begin[p]++] = q;
                    next[begin[q]++] = p;
                } else {
                    begin[p + 1]++;
                    begin[q + 1]++;
                }
            }
            if (!fill)
                for (uint32_t q = 0; q < quads; q++)
                    begin[q + 1] += begin[q];
        }
        for (uint32_t q = quads; q > 0; q--)
            begin[q] = begin[q - 1];
        begin[0] = 0;
        memset(colour, 0xff, quads);
        for (uint32_t s = 0; s < quads; s++) {
            if (colour[s] != 0xff)
                continue;
            uint32_t head = 0, tail = 0;
            colour[s] = 0;
            queue[tail++] = s;
            while (head < tail) {
                uint32_t q = queue[head++];
                for (uint32_t k = begin[q]; k < begin[q + 1]; k++)
                    if (colour[next[k]] == 0xff) {
                        colour[next[k]] = (uint8_t)(1 - colour[q]);
                        queue[tail++] = next[k];
                    }
            }
        }
    }
    free(e);
    free(begin);
    free(next);
    free(queue);
    return ok;
}

sinew_result sinew_mesh_triangulate_quads(sinew_mesh *m)
{
    SINEW_ASSERT(m);
    uint32_t quads = 0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        if (m->face_offsets[f + 1] < m->face_offsets[f])
            return SINEW_RESULT_ERROR_BAD_MESH;
        quads += m->face_offsets[f + 1] - m->face_offsets[f] == 4;
    }
    if (quads == 0)
        return SINEW_RESULT_OK;
    if ((uint64_t)m->face_count + quads > SINEW_MESH_MAX_FACES)
        return SINEW_RESULT_ERROR_LIMIT;
    uint32_t faces = m->face_count + quads, indices = m->face_offsets[m->face_count] + 2 * quads;
    uint32_t *quad_face = malloc(sizeof *quad_face * quads);
    uint8_t *colour = malloc(quads);
    uint32_t *offsets = malloc(sizeof *offsets * ((size_t)faces + 1));
    uint32_t *out = malloc(sizeof *out * (size_t)indices);
    int ok = quad_face && colour && offsets && out;
    if (ok) {
        uint32_t q = 0;
        for (uint32_t f = 0; f < m->face_count; f++)
            if (m->face_offsets[f + 1] - m->face_offsets[f] == 4)
                quad_face[q++] = f;
        ok = colour_quads(m, quad_face, quads, colour);
    }
    if (!ok) {
        free(quad_face);
        free(colour);
        free(offsets);
        free(out);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    /* Colour 0 splits along v0-v2, colour 1 along v1-v3. */
    static const uint8_t split[2][6] = {{0, 1, 2, 0, 2, 3}, {0, 1, 3, 1, 2, 3}};
    uint32_t g = 0, k = 0, q = 0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *v = m->face_indices + m->face_offsets[f];
        uint32_t count = m->face_offsets[f + 1] - m->face_offsets[f];
        if (count == 4) {
            const uint8_t *s = split[colour[q++]];
            for (int t = 0; t < 2; t++) {
                offsets[g++] = k;
                for (int c = 0; c < 3; c++)
                    out[k++] = v[s[3 * t + c]];
            }
        } else {
            offsets[g++] = k;
            memcpy(out + k, v, sizeof *out * count);
            k += count;
        }
    }
    offsets[g] = k;
    free(quad_face);
    free(colour);
    free(m->face_offsets);
    free(m->face_indices);
    m->face_offsets = offsets;
    m->face_indices = out;
    m->face_count = faces;
    return SINEW_RESULT_OK;
}

typedef struct half_edge {
    uint32_t lo, hi; /* the edge's ends, lo < hi */
    uint32_t corner; /* index into face_indices of its first end */
} half_edge;

static int half_edge_cmp(const void *x, const void *y)
{
    const half_edge *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return (a->corner > b->corner) - (a->corner < b->corner);
}

sinew_result sinew_mesh_quadrangulate(sinew_mesh *m)
{
    SINEW_ASSERT(m);
    const uint32_t corners = m->face_count ? m->face_offsets[m->face_count] : 0;
    for (uint32_t f = 0; f < m->face_count; f++)
        if (m->face_offsets[f + 1] < m->face_offsets[f] || m->face_offsets[f + 1] - m->face_offsets[f] < 3)
            return SINEW_RESULT_ERROR_BAD_MESH;
    if ((uint64_t)corners > SINEW_MESH_MAX_FACES ||
        (uint64_t)m->vertex_count + corners + m->face_count > SINEW_MESH_MAX_VERTICES)
        return SINEW_RESULT_ERROR_LIMIT;
    /* Each corner's edge to the next corner, sorted to find shared edges. */
    half_edge *edges = malloc(sizeof *edges * ((size_t)corners + 1));
    uint32_t *midpoint = malloc(sizeof *midpoint * ((size_t)corners + 1)); /* per corner */
    uint32_t *offsets = malloc(sizeof *offsets * ((size_t)corners + 1));
    uint32_t *out = malloc(sizeof *out * (4 * (size_t)corners + 1));
    double *pos = NULL;
    if (edges && midpoint && offsets && out) {
        uint32_t k = 0;
        for (uint32_t f = 0; f < m->face_count; f++) {
            uint32_t b = m->face_offsets[f], e = m->face_offsets[f + 1];
            for (uint32_t c = b; c < e; c++) {
                uint32_t u = m->face_indices[c], v = m->face_indices[c + 1 < e ? c + 1 : b];
                edges[k++] = (half_edge){u < v ? u : v, u < v ? v : u, c};
            }
        }
        qsort(edges, corners, sizeof *edges, half_edge_cmp);
        uint32_t unique = 0;
        for (uint32_t i = 0; i < corners; i++) {
            if (i == 0 || edges[i].lo != edges[i - 1].lo || edges[i].hi != edges[i - 1].hi)
                unique++;
            midpoint[edges[i].corner] = m->vertex_count + unique - 1;
        }
        pos = malloc(sizeof *pos * 3 * ((size_t)m->vertex_count + unique + m->face_count));
        if (pos) {
            memcpy(pos, m->positions, sizeof *pos * 3 * m->vertex_count);
            for (uint32_t i = 0; i < corners; i++) {
                uint32_t id = midpoint[edges[i].corner];
                for (int d = 0; d < 3; d++)
                    pos[3 * id + d] = 0.5 * (m->positions[3 * edges[i].lo + d] + m->positions[3 * edges[i].hi + d]);
            }
            uint32_t centre0 = m->vertex_count + unique, g = 0;
            k = 0;
            for (uint32_t f = 0; f < m->face_count; f++) {
                uint32_t b = m->face_offsets[f], e = m->face_offsets[f + 1], centre = centre0 + f;
                for (int d = 0; d < 3; d++) {
                    double sum = 0.0;
                    for (uint32_t c = b; c < e; c++)
                        sum += m->positions[3 * m->face_indices[c] + d];
                    pos[3 * centre + d] = sum / (e - b);
                }
                for (uint32_t c = b; c < e; c++) {
                    offsets[g++] = k;
                    out[k++] = m->face_indices[c];
                    out[k++] = midpoint[c];
                    out[k++] = centre;
                    out[k++] = midpoint[c > b ? c - 1 : e - 1];
                }
            }
            offsets[g] = k;
            free(m->positions);
            free(m->face_offsets);
            free(m->face_indices);
            m->positions = pos;
            m->vertex_count = centre0 + m->face_count;
            m->face_offsets = offsets;
            m->face_indices = out;
            m->face_count = corners;
            free(edges);
            free(midpoint);
            return SINEW_RESULT_OK;
        }
    }
    free(edges);
    free(midpoint);
    free(offsets);
    free(out);
    return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

sinew_result sinew_mesh_triangle_arrays(const sinew_mesh *m, float **xyz, uint32_t **triangles,
                                        uint32_t *triangle_count)
{
    SINEW_ASSERT(m && xyz && triangles && triangle_count);
    *xyz = NULL;
    *triangles = NULL;
    *triangle_count = 0;
    uint64_t count = 0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        if (m->face_offsets[f + 1] < m->face_offsets[f] + 3)
            return SINEW_RESULT_ERROR_BAD_MESH;
        count += m->face_offsets[f + 1] - m->face_offsets[f] - 2;
    }
    if (count > SINEW_MESH_MAX_FACES)
        return SINEW_RESULT_ERROR_LIMIT;
    float *x = malloc(3 * sizeof *x * (m->vertex_count ? m->vertex_count : 1));
    uint32_t *t = malloc(3 * sizeof *t * (count ? count : 1));
    if (!x || !t) {
        free(x);
        free(t);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (size_t i = 0; i < 3 * (size_t)m->vertex_count; i++)
        x[i] = (float)m->positions[i];
    size_t k = 0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *v = m->face_indices + m->face_offsets[f];
        for (uint32_t j = 2; j < m->face_offsets[f + 1] - m->face_offsets[f]; j++) {
            t[k++] = v[0];
            t[k++] = v[j - 1];
            t[k++] = v[j];
        }
    }
    *xyz = x;
    *triangles = t;
    *triangle_count = (uint32_t)count;
    return SINEW_RESULT_OK;
}
