/* Polygon surface meshes for the offline tools: readers for OBJ and OFF (both
 * safe for untrusted input) and a regular grid generator.
 *
 * Faces are kept as polygons (CSR: face f has indices[offsets[f] .. offsets[f+1])),
 * so quads stay quads and later stages can tell edges from diagonals.
 */
#ifndef SINEW_PREP_MESH_H
#define SINEW_PREP_MESH_H

#include <sinew/core.h>

typedef struct sinew_mesh {
    uint32_t vertex_count;
    double *positions;      /* 3 per vertex */
    uint32_t face_count;
    uint32_t *face_offsets; /* face_count + 1 entries */
    uint32_t *face_indices; /* face_offsets[face_count] entries */
} sinew_mesh;

void sinew_mesh_free(sinew_mesh *m);

/* Reads OBJ (v and f records; f accepts v, v/t, v/t/n, v//n and negative
 * indices; other records ignored) or OFF (OFF, COFF, NOFF headers; comments).
 * The format is chosen by extension (.obj/.off, case-insensitive), else by
 * content. Errors name the file, line and problem. */
sinew_result sinew_mesh_read(const char *path, const sinew_logger *lg, sinew_mesh *out);
sinew_result sinew_mesh_read_obj_memory(const char *text, size_t size, const char *name,
                                        const sinew_logger *lg, sinew_mesh *out);
sinew_result sinew_mesh_read_off_memory(const char *text, size_t size, const char *name,
                                        const sinew_logger *lg, sinew_mesh *out);

/* Writes vertices and polygon faces as OBJ. */
sinew_result sinew_mesh_write_obj(const char *path, const double *positions, uint32_t vertex_count,
                                  const uint32_t *face_offsets, const uint32_t *face_indices,
                                  uint32_t face_count, const sinew_logger *lg);

typedef enum sinew_grid_plane { SINEW_GRID_XZ = 0, SINEW_GRID_XY = 1 } sinew_grid_plane;

/* A regular grid of nx x ny vertices (quads), size_x x size_y metres, centred on
 * origin in the chosen plane. Vertex (i, j) has index j * nx + i; i runs along x. */
sinew_result sinew_mesh_grid(uint32_t nx, uint32_t ny, double size_x, double size_y,
                             sinew_grid_plane plane, const double origin[3], sinew_mesh *out);

#endif
