/* Mesh files and the grid generator: reading a file and choosing its reader
 * (ours for OBJ and OFF, assimp for the rest where built with it), writing OBJ,
 * a regular quad grid, and the text scanning both readers share. */
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
    free(m->positions);
    free(m->face_offsets);
    free(m->face_indices);
    memset(m, 0, sizeof *m);
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
    FILE *f = fopen(path, "w");
    if (!f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_IO, "mesh", "cannot create %s: %s", path, strerror(errno));
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
