/* A mesh's render mesh (prep/mesh.h) through the pipe from the child process
 * that reads a mesh file to sinew-prep: counts, then the arrays, then the
 * material groups (count, each name's length and bytes, the offsets, the
 * library's name and text, each length first, UINT32_MAX: none). The parent
 * checks what arrives again (sinew_mesh_render_finish), as from any reader. */
#ifndef SINEW_TOOLS_MESH_PIPE_H
#define SINEW_TOOLS_MESH_PIPE_H

#include "cli.h"
#include "prep/mesh.h"
#include "prep/mesh_text.h"

static inline int mesh_pipe_send_string(int fd, const char *s, size_t len)
{
    uint32_t n = s ? (uint32_t)len : UINT32_MAX;
    return cli_write_all(fd, &n, sizeof n) && (!s || cli_write_all(fd, s, len));
}

/* A string of at most max bytes (UINT32_MAX sent: *out NULL), NUL-terminated. */
static inline int mesh_pipe_receive_string(int fd, uint32_t max, char **out, size_t *len)
{
    uint32_t n;
    *out = NULL;
    if (!cli_read_all(fd, &n, sizeof n) || (n != UINT32_MAX && n > max))
        return 0;
    if (n == UINT32_MAX)
        return 1;
    if (!(*out = malloc((size_t)n + 1)) || !cli_read_all(fd, *out, n))
        return 0;
    (*out)[n] = '\0';
    if (len)
        *len = n;
    return memchr(*out, 0, n) == NULL;
}

static inline int mesh_pipe_send_materials(int fd, const sinew_mesh_materials *g)
{
    int ok = cli_write_all(fd, &g->count, sizeof g->count);
    for (uint32_t i = 0; ok && i < g->count; i++)
        ok = mesh_pipe_send_string(fd, g->names[i], strlen(g->names[i]));
    return ok && (!g->count || cli_write_all(fd, g->first, sizeof *g->first * ((size_t)g->count + 1))) &&
           mesh_pipe_send_string(fd, g->library, g->library ? strlen(g->library) : 0) &&
           mesh_pipe_send_string(fd, g->library_text, g->library_size);
}

static inline int mesh_pipe_receive_materials(int fd, sinew_mesh_materials *g)
{
    uint32_t count;
    if (!cli_read_all(fd, &count, sizeof count) || count > SINEW_MESH_MAX_MATERIALS)
        return 0;
    int ok = 1;
    if (count) {
        g->names = calloc(count, sizeof *g->names);
        g->first = malloc(sizeof *g->first * ((size_t)count + 1));
        ok = g->names && g->first;
        if (ok)
            g->count = count;
    }
    for (uint32_t i = 0; ok && i < count; i++)
        ok = mesh_pipe_receive_string(fd, SINEW_MESH_MAX_MATERIAL_NAME, &g->names[i], NULL) && g->names[i];
    return ok && (!count || cli_read_all(fd, g->first, sizeof *g->first * ((size_t)count + 1))) &&
           mesh_pipe_receive_string(fd, SINEW_MESH_MAX_MATERIAL_NAME, &g->library, NULL) &&
           mesh_pipe_receive_string(fd, SINEW_MESH_MAX_LIBRARY, &g->library_text, &g->library_size);
}

static inline int mesh_pipe_send_render(int fd, const sinew_mesh *m)
{
    uint32_t head[3] = {m->render_vertex_count, m->render_triangle_count,
                        (m->render_uv ? 1u : 0u) | (m->render_normal ? 2u : 0u)};
    const size_t r = head[0];
    return cli_write_all(fd, head, sizeof head) && cli_write_all(fd, m->render_vertex, sizeof(uint32_t) * r) &&
           (!m->render_uv || cli_write_all(fd, m->render_uv, sizeof(float) * 2 * r)) &&
           (!m->render_normal || cli_write_all(fd, m->render_normal, sizeof(float) * 3 * r)) &&
           cli_write_all(fd, m->render_triangles, sizeof(uint32_t) * 3 * (size_t)head[1]) &&
           mesh_pipe_send_materials(fd, &m->materials);
}

/* 0 on a short read or out of memory (the render mesh is then freed). */
static inline int mesh_pipe_receive_render(int fd, sinew_mesh *m, const char *name, const sinew_logger *lg)
{
    uint32_t head[3];
    if (!cli_read_all(fd, head, sizeof head) || head[0] > SINEW_MESH_MAX_INDICES || head[1] > SINEW_MESH_MAX_INDICES)
        return 0;
    const size_t r = head[0];
    m->render_vertex = malloc(sizeof(uint32_t) * (r + 1));
    m->render_uv = head[2] & 1u ? malloc(sizeof(float) * (2 * r + 1)) : NULL;
    m->render_normal = head[2] & 2u ? malloc(sizeof(float) * (3 * r + 1)) : NULL;
    m->render_triangles = malloc(sizeof(uint32_t) * (3 * (size_t)head[1] + 1));
    m->render_vertex_count = head[0];
    m->render_triangle_count = head[1];
    int ok = m->render_vertex && m->render_triangles && (!(head[2] & 1u) || m->render_uv) &&
             (!(head[2] & 2u) || m->render_normal) && cli_read_all(fd, m->render_vertex, sizeof(uint32_t) * r) &&
             (!m->render_uv || cli_read_all(fd, m->render_uv, sizeof(float) * 2 * r)) &&
             (!m->render_normal || cli_read_all(fd, m->render_normal, sizeof(float) * 3 * r)) &&
             cli_read_all(fd, m->render_triangles, sizeof(uint32_t) * 3 * (size_t)head[1]) &&
             mesh_pipe_receive_materials(fd, &m->materials);
    if (!ok) {
        sinew_mesh_free_render(m);
        return 0;
    }
    return sinew_mesh_render_finish(m, name, lg) == SINEW_RESULT_OK;
}

#endif
