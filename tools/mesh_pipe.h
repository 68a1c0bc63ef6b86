/* A mesh's render mesh (prep/mesh.h) through the pipe from the child process
 * that reads a mesh file to sinew-prep: counts, then the arrays. The parent
 * checks what arrives again (sinew_mesh_render_finish), as from any reader. */
#ifndef SINEW_TOOLS_MESH_PIPE_H
#define SINEW_TOOLS_MESH_PIPE_H

#include "cli.h"
#include "prep/mesh.h"
#include "prep/mesh_text.h"

static inline int mesh_pipe_send_render(int fd, const sinew_mesh *m)
{
    uint32_t head[3] = {m->render_vertex_count, m->render_triangle_count,
                        (m->render_uv ? 1u : 0u) | (m->render_normal ? 2u : 0u)};
    const size_t r = head[0];
    return cli_write_all(fd, head, sizeof head) && cli_write_all(fd, m->render_vertex, sizeof(uint32_t) * r) &&
           (!m->render_uv || cli_write_all(fd, m->render_uv, sizeof(float) * 2 * r)) &&
           (!m->render_normal || cli_write_all(fd, m->render_normal, sizeof(float) * 3 * r)) &&
           cli_write_all(fd, m->render_triangles, sizeof(uint32_t) * 3 * (size_t)head[1]);
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
             cli_read_all(fd, m->render_triangles, sizeof(uint32_t) * 3 * (size_t)head[1]);
    if (!ok) {
        sinew_mesh_free_render(m);
        return 0;
    }
    return sinew_mesh_render_finish(m, name, lg) == SINEW_RESULT_OK;
}

#endif
