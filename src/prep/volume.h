/* Volume meshes (tetrahedra) for soft bodies: readers for Gmsh MSH 2.2 and 4.1
 * (ASCII and binary) and TetGen .node/.ele, all safe for untrusted input, with
 * the region (material) of each tetrahedron when the file gives one; the
 * tetrahedralisation of a closed surface by TetGen, run as a child process, or
 * by a lattice; a box generator; and the checks and repairs a soft-body asset needs.
 */
#ifndef SINEW_PREP_VOLUME_H
#define SINEW_PREP_VOLUME_H

#include <sinew/core.h>

#include "mesh.h"

#include <signal.h>

typedef struct sinew_volume {
    uint32_t vertex_count;
    double *positions;  /* 3 per vertex, m */
    uint32_t tet_count;
    uint32_t *tets;     /* 4 vertex indices per tetrahedron */
    /* Region of each tetrahedron (Gmsh: physical group; TetGen: region
     * attribute), for materials per region (sinew_soft_build); NULL when the
     * file gives none or gives every tetrahedron region 0, which is what NULL
     * means. */
    uint32_t *regions;
} sinew_volume;

/* Reader limits: far below 32-bit overflow in every size computed from them. */
#define SINEW_VOLUME_MAX_VERTICES (1u << 26)
#define SINEW_VOLUME_MAX_TETS (1u << 26)

void sinew_volume_free(sinew_volume *v);

/* The readers' last step: regions, when every tetrahedron is in region 0, are
 * freed and become NULL, which means the same. */
void sinew_volume_drop_zero_regions(sinew_volume *v);

/* 1 when path names a volume mesh by its extension (.msh, .node, .ele; any case). */
int sinew_volume_is_volume_path(const char *path);

/* Reads a Gmsh .msh file (sinew_volume_read_msh_memory) or a TetGen pair: given
 * either X.node or X.ele, reads both (sinew_volume_read_tetgen_memory). The
 * readers check what they read (counts against the file size before anything is
 * allocated, indices, finite coordinates) but not the geometry: orientation and
 * degenerate tetrahedra are sinew_volume_check's. Fails with BAD_MESH naming
 * the file, line (or byte, in binary data) and problem, LIMIT beyond the limits
 * above, IO when a file cannot be read. *out is zeroed on failure; free it with
 * sinew_volume_free on success. */
sinew_result sinew_volume_read(const char *path, const sinew_logger *lg, sinew_volume *out);

/* Gmsh MSH 2.2 (2.0 and 2.1 read the same) and 4.1, ASCII or binary (the host's
 * byte order, as Gmsh writes it). 4-node tetrahedra (element type 4) are kept;
 * elements of other types are skipped with a warning that counts them, which
 * in binary data needs their node count: types 1 to 31, 92 and 93 are known,
 * others refused. Node tags may be sparse and in any order; vertices keep the
 * order of the file. Regions are physical groups: in 2.2 a tetrahedron's first
 * tag (none: 0); in 4.1 the first physical tag of the volume entity its element
 * block names, from $Entities (a warning when an entity has several; no
 * $Entities, or none for the entity: 0). A negative physical group, a block of
 * tetrahedra naming a volume that $Entities lacks, or one of another dimension
 * are refused; in a partitioned file ($PartitionedEntities) regions are not
 * read, with a warning. Sections other than $MeshFormat, $Entities, $Nodes and
 * $Elements are skipped. */
sinew_result sinew_volume_read_msh_memory(const void *data, size_t size, const char *name,
                                          const sinew_logger *lg, sinew_volume *out);

/* TetGen's .node (points: "N 3 attributes markers", then "index x y z ...") and
 * .ele ("T 4|10 attributes", then "index n0 n1 n2 n3 ..."): indices count from
 * the .node file's first point number (0 or 1), of 10-node tetrahedra the 4
 * corners are kept. A tetrahedron's first attribute is its region (tetgen -A
 * writes region attributes as reals): an integer in 0..2^32-1, within 1e-9 of
 * it, else refused; further attributes, the points' attributes and boundary
 * markers are skipped. '#' starts a comment. */
sinew_result sinew_volume_read_tetgen_memory(const char *node, size_t node_size, const char *node_name,
                                             const char *ele, size_t ele_size, const char *ele_name,
                                             const sinew_logger *lg, sinew_volume *out);

/* Signed volume of the tetrahedron p0 p1 p2 p3: det[p1-p0, p2-p0, p3-p0] / 6,
 * positive when positively oriented. */
double sinew_tet_signed_volume(const double *p0, const double *p1, const double *p2, const double *p3);

/* The boundary of tetrahedra (4 vertex indices each, positively oriented):
 * the faces of exactly one of them, counter-clockwise seen from outside,
 * into tris (room for 3 * 4 * tet_count), in the order of their sorted
 * vertex triples so that the result does not depend on how the sort orders
 * ties. *count the triangles, *overshared (may be NULL) the faces shared by
 * more than two tetrahedra (a mesh overlapping itself). 0 on OOM. */
int sinew_tet_boundary(const uint32_t *tets, uint32_t tet_count, uint32_t *tris, uint32_t *count,
                       uint32_t *overshared);

/* A box of nx x ny x nz vertices (each >= 2), size[0] x size[1] x size[2] m,
 * centred on origin (NULL: 0). Each cell is split into 6 tetrahedra around its
 * diagonal from the lowest to the highest corner (Kuhn / Freudenthal), the same
 * in every cell, so that faces match across cells; all positively oriented.
 * Vertex (i, j, k) has index (k * ny + j) * nx + i. INVALID_ARGUMENT for bad
 * sizes, LIMIT beyond the limits above. */
sinew_result sinew_volume_box(uint32_t nx, uint32_t ny, uint32_t nz, const double size[3],
                              const double origin[3], sinew_volume *out);

/* The solid a surface bounds as the cubes of a regular lattice whose centres
 * lie inside it, `cells` cubes along the bounding box's longest side (the
 * lattice centred on the box), each split into sinew_volume_box's six
 * tetrahedra (faces match across cubes); corners no kept cube uses are left
 * out. Inside: the generalised winding number at the centre is >= 1/2
 * (surface_tree.h), after the faces are oriented consistently, so the
 * surface need not be closed, manifold or free of self-intersections. With
 * `follow` (SINEW_LATTICE_FOLLOW), each corner on the solid's boundary moves onto the surface's
 * closest point within a cube's edge (or half or a quarter of the way)
 * where every tetrahedron it belongs to keeps at least a quarter of its
 * volume; with SINEW_LATTICE_COVER the cube of every vertex a face uses is
 * kept too, and a corner moves only as far as the tetrahedra still hold
 * every vertex (volume_lattice.c: none outside, some volume beyond), and parts
 * thinner than a cube keep the cubes the surface passes through there and
 * those back to the cubes inside (volume_lattice.c); without, the boundary
 * is a staircase. The log says how many
 * of the surface's vertices stay outside, and how far. Cubes touching only along
 * an edge or at a corner stay as they are (sinew_volume_pieces counts the
 * parts). BAD_MESH for a face of fewer than 3 vertices, an index out of
 * range, a coordinate that is not finite, or a surface that encloses no
 * cube (an open sheet; the message gives the largest winding number),
 * INVALID_ARGUMENT for cells outside 1..1024, LIMIT beyond the limits
 * above. name labels the messages. */
enum {
    SINEW_LATTICE_FOLLOW = 1, /* the boundary onto the surface, thin parts kept */
    SINEW_LATTICE_COVER = 2,  /* with FOLLOW: holding every vertex of the surface */
};
sinew_result sinew_volume_lattice(const sinew_mesh *surface, uint32_t cells, int follow, const char *name,
                                  const sinew_logger *lg, sinew_volume *out);

/* Whether tetrahedron t is degenerate, with no meaningful orientation or
 * inverse rest shape: 1 when flat for its size (|V| <= 1e-9 l^3, l its
 * longest edge; a regular one has 0.118 l^3), 2 when so flat that rounding
 * its corners to single precision, as the device holds them, could turn it
 * over (|V| <= 2 eps_float extent l^2, extent the mesh's largest coordinate),
 * 0 otherwise. Its signed volume, longest edge and the floor it was held to
 * into the pointers that are not NULL. */
int sinew_tet_degenerate(const sinew_volume *v, uint32_t t, double extent, double *volume, double *longest,
                         double *floor);

/* Removes the degenerate tetrahedra (sinew_tet_degenerate) a mesher made:
 * returns how many, the first one's index into *first (may be NULL). */
uint32_t sinew_volume_drop_degenerate(sinew_volume *v, uint32_t *first);

typedef struct sinew_volume_fixes {
    uint32_t flipped_tets;      /* negatively oriented: two vertices swapped */
    uint32_t dropped_vertices;  /* no tetrahedron uses them: removed */
} sinew_volume_fixes;

/* Checks a volume mesh before it becomes a soft body, repairing in place what
 * can be repaired: negatively oriented tetrahedra get two vertices swapped, and
 * vertices no tetrahedron uses are removed (tetrahedra renumbered); a warning
 * counts each. Refused (BAD_MESH, naming the first offender): no tetrahedra, a
 * vertex index out of range, a tetrahedron with a repeated vertex, a
 * coordinate that is not finite in single precision, a degenerate
 * tetrahedron (sinew_tet_degenerate). Nothing is changed before all of these pass. LIMIT beyond the limits
 * above. fixes may be NULL; old_index, NULL or room for vertex_count entries,
 * receives for each vertex kept its index before. Tetrahedra are neither
 * dropped nor reordered, so regions stay with their tetrahedra. */
sinew_result sinew_volume_check(sinew_volume *v, const char *name, const sinew_logger *lg,
                                sinew_volume_fixes *fixes, uint32_t *old_index);

/* The parts of a volume mesh that hold together: tetrahedra sharing a
 * triangle are in one piece (touching along an edge or at a corner is not
 * enough: such a joint is a hinge). piece[t] (room for tet_count) numbers the
 * pieces from 0 in the order of their first tetrahedron. Returns the count, 0
 * when out of memory (or without tetrahedra). */
uint32_t sinew_volume_pieces(const sinew_volume *v, uint32_t *piece);

/* Keeps the tetrahedra whose keep[t] is set, in order, with their regions.
 * Vertices stay as they are (sinew_volume_check removes those left unused),
 * so indices into the file's vertices keep their meaning. */
void sinew_volume_keep_tets(sinew_volume *v, const uint8_t *keep);

/* Volume enclosed by a closed surface (divergence theorem over its polygons,
 * each fanned from its first vertex): positive when the faces are
 * counter-clockwise seen from outside. */
double sinew_surface_enclosed_volume(const sinew_mesh *surface);

/* A polygon's edge as one face runs it: key = min << 32 | max of its two
 * vertices, the face, and whether the face runs it from min to max. */
typedef struct sinew_half_edge {
    uint64_t key;
    uint32_t face;
    uint32_t forward;
} sinew_half_edge;

/* Every face's edges into h (room for face_offsets[face_count]), sorted by
 * key, then face: the faces around one edge are neighbours. Returns the
 * count. Indices must be in range. */
size_t sinew_surface_half_edges(const sinew_mesh *surface, sinew_half_edge *h);

/* Checks that a surface can be tetrahedralised: faces of at least 3 distinct
 * vertices, indices in range, finite coordinates, and every edge in exactly two
 * faces that use it in opposite directions (closed, manifold, consistently
 * oriented). BAD_MESH naming the first offending face or edge. */
sinew_result sinew_surface_check_closed(const sinew_mesh *surface, const char *name, const sinew_logger *lg);

/* Tetrahedralises the solid a surface bounds. A closed, manifold,
 * consistently oriented surface (sinew_surface_check_closed) goes to TetGen
 * (Si 2015), running the executable `tetgen` (NULL: "tetgen" on PATH;
 * Debian's tetgen package) as a child process without a shell: the surface
 * goes, without the vertices no face uses, to a .smesh file in a private
 * temporary directory, TetGen meshes it (-p; -q quality when quality > 0,
 * the bound on the radius-edge ratio, 1.4 is a good one; -a max_volume in
 * m^3 when > 0), and its .node/.ele come back through
 * sinew_volume_read_tetgen_memory; the directory is removed on every path.
 * Before TetGen runs, the enclosed volume over max_volume (the fewest
 * tetrahedra it could make) is checked against SINEW_VOLUME_MAX_TETS (LIMIT).
 * A surface that is not closed, or that TetGen refuses (a self-intersecting
 * one: the faces named), or TetGen missing, is meshed instead by
 * sinew_volume_lattice following the surface (and holding its vertices
 * where the surface has a render mesh, which is embedded), with a warning saying why:
 * cubes of edge (6 max_volume)^(1/3), at most 256 along the longest side
 * (LIMIT beyond), or without a bound as many as the surface's median edge
 * suggests, 8 to 32. Fails with BAD_MESH for a surface that encloses no
 * volume (an open sheet), IO when TetGen cannot be run, was killed or
 * interrupted (sinew_prep_interrupted), INVALID_ARGUMENT for bad bounds.
 * name labels the messages. */
sinew_result sinew_volume_tetrahedralise(const sinew_mesh *surface, double max_volume, double quality,
                                         const char *tetgen, const char *name, const sinew_logger *lg,
                                         sinew_volume *out);

/* The same, the lattice covering the surface when `cover` is set (the call
 * above: when the surface has a render mesh); *by_lattice (when not NULL)
 * says whether the lattice made it: the surface's vertices are then not the
 * particles, and a caller keeping the model as drawn gives it a render mesh
 * (sinew_mesh_render_from_faces). */
sinew_result sinew_volume_tetrahedralise_cover(const sinew_mesh *surface, double max_volume, double quality,
                                               const char *tetgen, int cover, const char *name,
                                               const sinew_logger *lg, sinew_volume *out, int *by_lattice);

/* A program's SIGINT/SIGTERM handler sets this (sinew-prep's does): a TetGen
 * run in progress is stopped, its temporary files are removed, and the call
 * fails with IO, "interrupted". */
extern volatile sig_atomic_t sinew_prep_interrupted;

#endif
