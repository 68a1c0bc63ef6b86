/* Polygon surface meshes for the offline tools: readers for OBJ and OFF (both
 * safe for untrusted input), other formats through assimp where the build has
 * it, a regular grid generator, and the splitting of quads into triangles.
 *
 * Faces are kept as polygons (CSR: face f has indices[offsets[f] .. offsets[f+1])),
 * so quads stay quads and later stages can tell edges from diagonals.
 */
#ifndef SINEW_PREP_MESH_H
#define SINEW_PREP_MESH_H

#include <sinew/core.h>

/* The material groups of a render mesh (docs/render-mesh.md): the source's
 * usemtl names in order of first use, each over a run of render triangles
 * (group g is triangles [first[g], first[g + 1])), and the source's material
 * library, read from beside the source where it could be. Part of the render
 * mesh: freed, kept and moved with it. count 0: the source names none. */
typedef struct sinew_mesh_materials {
    uint32_t count;
    char **names;        /* count names; "" for the faces before the first usemtl */
    uint32_t *first;     /* count + 1 render-triangle offsets */
    char *library;       /* the library's file name (no folder), or NULL: none named */
    char *library_text;  /* its contents (NUL-terminated, no NUL inside), or NULL: not found */
    size_t library_size; /* bytes of library_text */
} sinew_mesh_materials;

#define SINEW_MESH_MAX_MATERIALS 65536u
#define SINEW_MESH_MAX_MATERIAL_NAME 1024u
#define SINEW_MESH_MAX_LIBRARY (1u << 20) /* bytes of a material library */

typedef struct sinew_mesh {
    uint32_t vertex_count;
    double *positions;      /* 3 per vertex */
    uint32_t face_count;
    uint32_t *face_offsets; /* face_count + 1 entries */
    uint32_t *face_indices; /* face_offsets[face_count] entries */
    /* The source's render mesh (docs/render-mesh.md), as an engine's importer
     * would see it: a vertex wherever the source splits one at a UV or normal
     * seam. Kept by the OBJ reader (a distinct v/vt/vn triple is a render
     * vertex) and the assimp one (its vertices before welding) when the source
     * has texture coordinates or splits a vertex; otherwise all 0 and NULL.
     * Mesh operations that keep the vertex numbering keep it; it travels to
     * the asset through sinew_cloth_build and sinew_soft_build. */
    uint32_t render_vertex_count;
    uint32_t *render_vertex;        /* the mesh vertex each render vertex sits on */
    float *render_uv;               /* 2 per render vertex (u, v), or NULL: no UVs */
    float *render_normal;           /* 3 per render vertex, or NULL: no normals */
    uint32_t render_triangle_count;
    uint32_t *render_triangles;     /* 3 per triangle, over render vertices; polygons fanned */
    sinew_mesh_materials materials; /* the source's material groups over render_triangles */
} sinew_mesh;

void sinew_mesh_free(sinew_mesh *m);

/* Frees m's render mesh alone (the fields above), leaving the rest. */
void sinew_mesh_free_render(sinew_mesh *m);

/* Moves src's render mesh (materials included) into dst, freeing dst's;
 * src is left without one. For a mesh rebuilt on the same first vertices
 * (subdivision numbers the input's vertices first). */
void sinew_mesh_move_render(sinew_mesh *dst, sinew_mesh *src);

/* Reads the material library an OBJ named (m->materials.library) from the
 * folder of the OBJ at obj_path, into m->materials.library_text. A library
 * that is not there, not a regular file, over SINEW_MESH_MAX_LIBRARY bytes,
 * holding a NUL, or named by a path that leaves that folder (absolute, or
 * through "..") is not read, with a warning naming it: the groups and the
 * name are kept. Fails only on out-of-memory. */
sinew_result sinew_mesh_read_library(sinew_mesh *m, const char *obj_path, const sinew_logger *lg);

/* Merges vertices at identical positions (bit for bit, but -0.0 == +0.0)
 * into the first of them, and renumbers the rest in their original order:
 * the faces and the render mesh's vertices follow, so a surface split at its
 * UV or normal seams (an importer's vertices, an STL's facets) becomes one
 * connected surface and its render mesh stays on it. old_to_new, NULL or
 * room for vertex_count entries, receives each old vertex's new number;
 * *merged how many vertices went. 0 on OOM, m unchanged. */
int sinew_mesh_weld(sinew_mesh *m, uint32_t *old_to_new, uint32_t *merged);

/* Ends a reader's render mesh: dropped (freed) when it has no UVs and each
 * render vertex sits on a vertex of its own (nothing an engine would draw
 * differently from the welded surface); otherwise checked (indices in range,
 * finite values). BAD_MESH naming the problem, leaving the render mesh
 * freed. */
sinew_result sinew_mesh_render_finish(sinew_mesh *m, const char *name, const sinew_logger *lg);

/* Gives m, when it has no render mesh, one of its own faces (fanned) over
 * render vertices one to one on its vertices, without UVs or normals: the
 * model drawn as it is where the particles are not its vertices (a lattice).
 * 0 when out of memory (m unchanged); 1 otherwise, also when m has one. */
int sinew_mesh_render_from_faces(sinew_mesh *m);

/* Rest vertex normals of the render mesh from its triangles (area-weighted,
 * unit; (0, 0, 1) where no triangle gives one): 3 floats per render vertex,
 * malloc'd (the caller frees). NULL on OOM. */
float *sinew_mesh_render_face_normals(const sinew_mesh *m);

/* Reads OBJ (v, vt, vn and f records; f accepts v, v/t, v/t/n, v//n and
 * negative indices; other records ignored; the render mesh kept as above) or OFF (OFF, COFF, NOFF headers; comments)
 * with sinew's own readers, and any other extension (PLY, STL, glTF, ...)
 * through sinew_mesh_read_assimp. .obj and .off are case-insensitive; a file
 * without an extension is OFF or OBJ by content. Errors name the file, line
 * and problem. */
sinew_result sinew_mesh_read(const char *path, const sinew_logger *lg, sinew_mesh *out);

/* Reads any surface format assimp knows (PLY, STL, glTF 2.0 .gltf/.glb, ...):
 * polygons kept as they are, node transforms applied, the polygon faces of all
 * meshes gathered into one (points and lines skipped with a warning), and
 * vertices at identical positions welded, since formats split a vertex at
 * normal or UV seams (STL at every face) and a cloth must not tear there.
 * Fails with BAD_MESH (assimp's message, or the problem found in a PLY file's
 * structure, counts or missing faces, a binary STL file's triangle count or
 * a binary glTF file's header, a glTF file's JSON or the range of an
 * accessor or bufferView, with the path), ERROR_LIMIT
 * beyond 2^26 vertices (counted before welding) or faces, IO when the file
 * cannot be read. In builds without assimp (SINEW_HAVE_ASSIMP undefined) it
 * returns ERROR_UNSUPPORTED, saying so. *out is zeroed on failure; free it
 * with sinew_mesh_free on success. PLY and STL survive fuzzing; glTF does
 * not: assimp's importer crashes on a few known files (docs/fuzzing.md), so
 * do not feed it glTF from strangers. */
sinew_result sinew_mesh_read_assimp(const char *path, const sinew_logger *lg, sinew_mesh *out);
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

/* The folding scenes' cloth (sinew-bench --suite selfcol, the tests): a 1 m
 * square of side x side vertices (quads) hanging in the XY plane, its lower
 * edge 5 cm above the ground, with 2.5 waves across it along z, 3 cm deep at
 * the top and 0.9 cm at the bottom, so that it buckles and folds as it lands
 * rather than standing on its edge. Vertex (i, j) is j * side + i, i along
 * x. INVALID_ARGUMENT for side < 2 or past 4096, OUT_OF_HOST_MEMORY. */
sinew_result sinew_mesh_curtain(uint32_t side, sinew_mesh *out);

/* Stacks `count` copies of m into m, copy l moved by l * step (m) from m:
 * copy l's vertex v is l * vertex_count + v, and its faces follow copy
 * l - 1's in the same order, so m's vertex numbering and face order repeat
 * in every copy. The copies share no vertex: each is a connected part of its
 * own (sinew-prep --layers stacks grids so). count 1 leaves m as it is;
 * count > 1 drops its render mesh.
 * Fails with INVALID_ARGUMENT for count 0 or a step that is not finite,
 * LIMIT past 2^26 vertices or faces or 2^28 indices, BAD_MESH for decreasing
 * face offsets, OUT_OF_HOST_MEMORY, leaving m unchanged. */
sinew_result sinew_mesh_stack(sinew_mesh *m, uint32_t count, const double step[3]);

/* Splits every quad of m into two triangles along one of its diagonals, the
 * diagonals alternating from quad to quad across shared edges, so that a grid
 * of sinew_mesh_grid becomes a checkerboard of diagonals rather than one of
 * diagonals all leaning the same way. Quad (v0 v1 v2 v3) becomes (v0 v1 v2),
 * (v0 v2 v3) or (v0 v1 v3), (v1 v2 v3), keeping its winding; which one, by a
 * breadth-first two-colouring of the quads through their shared edges from
 * the first quad of each connected patch. Where the quads' adjacency has odd
 * cycles (around a vertex shared by an odd number of quads) the first colour
 * given stands. The pattern, not the shape, picks the diagonal: a concave quad
 * may be split outside itself. Triangles and other polygons are kept as they
 * are, in place. Fails with OUT_OF_HOST_MEMORY, LIMIT past 2^26 faces, or
 * BAD_MESH for decreasing face offsets, leaving m unchanged. */
sinew_result sinew_mesh_triangulate_quads(sinew_mesh *m);

/* Splits every polygon of k vertices into k quads around a new vertex at its
 * centroid, through new vertices at its edges' midpoints: the topology of one
 * Catmull-Clark subdivision step without its smoothing, so the surface keeps
 * its shape. Polygon (v0 .. vk-1), with centre c and m_i the midpoint of
 * (v_i, v_i+1), becomes the quads (v_i, m_i, c, m_i-1), keeping its winding.
 * Every edge of the result joins a midpoint to an original vertex or to a
 * centre, so its edge graph is bipartite (midpoints against the rest): any
 * polygon mesh becomes a quad mass-spring network for red-black Gauss-Seidel.
 * Vertices: the original ones, then the midpoints (by their edges' ends),
 * then the centres (one per face). Fails with OUT_OF_HOST_MEMORY, LIMIT past
 * 2^26 vertices or faces, or BAD_MESH for a face of fewer than 3 vertices or
 * decreasing face offsets, leaving m unchanged. */
sinew_result sinew_mesh_quadrangulate(sinew_mesh *m);

/* The mesh as triangles in single precision, for a collider
 * (sinew_collider_desc): xyz 3 floats per vertex, every polygon of k vertices
 * fanned into k - 2 triangles from its first. Both arrays malloc'd (the
 * caller frees them). BAD_MESH for a face of fewer than 3 vertices, LIMIT
 * past 2^26 triangles, OUT_OF_HOST_MEMORY; nothing allocated on failure. */
sinew_result sinew_mesh_triangle_arrays(const sinew_mesh *m, float **xyz, uint32_t **triangles,
                                        uint32_t *triangle_count);

#endif
