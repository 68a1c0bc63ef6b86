/* The asset in memory, and the writer used by the offline tools.
 *
 * Layout of the arrays (file layout in docs/asset-format.md is the same records,
 * little-endian):
 *
 *   particles  [n]  { x, y, z (m), w (1/kg, 0 = pinned) }           16 B
 *   triangles  [t]  { v0, v1, v2 }                                  12 B
 *   distances  [d]  { a, b, rest (m), kind }                        16 B
 *   bends      [b]  { v0, v1 (shared edge), v2, v3 (wings),
 *                     rest angle (rad), kind }                      24 B
 *   colours    [c]  { distance_begin, distance_count,
 *                     bend_begin, bend_count }                      16 B
 *   elements   [e]  { v[4], kind, material, rest_measure,
 *                     inv_rest[9] }                                 64 B
 *   element colours [k] { begin, count }                            8 B
 *   materials  [m]  sinew_material (include/sinew/material.h)      224 B
 *
 * Hierarchical PBD (docs/hpbd.md), all present or all empty:
 *   levels     [L]  { particle_count, distance_begin, distance_count,
 *                     colour_begin, colour_count, rest, 0, 0 }      32 B
 *   nodes      [n]  { particle, link_begin, link_count, level }     16 B
 *   links      [l]  { parent, weight }                               8 B
 *   hdistances [h]  { a, b, rest (m), kind = STRETCH }              16 B
 *   hcolours   [k]  { begin, count }                                 8 B
 *
 * Red-black partition (quad mass-spring networks, Pall et al.), both present
 * or both empty:
 *   reds       [r]  particle index                                   4 B
 *   blacks     [s]  particle index                                   4 B
 * r + s is the particle count, every particle in one of them once, and every
 * distance constraint joins a red and a black particle.
 *
 * Clustered sweeps (format 1.5; docs/colouring.md), all present or all empty:
 *   cpasses    [p]  { begin, count } into clusters                   8 B
 *   clusters   [k]  { particle_begin, particle_count,
 *                     colour_begin, colour_count }                  16 B
 *   cparticles [m]  particle index                                   4 B
 *   ccolours   [j]  { begin, count } into citems                     8 B
 *   citems     [i]  { constraint, local0 | local1 << 16,
 *                     local2 | local3 << 16 }                       12 B
 * The passes tile the clusters in order, the clusters tile cparticles and
 * ccolours, the cluster colours tile citems. A cluster's particles are
 * cparticles[particle_begin, +particle_count), at most
 * SINEW_CLUSTER_MAX_PARTICLES, no particle twice among the clusters of one
 * pass. An item's constraint is a distance (index < distance_count) or the
 * bend index - distance_count; its locals index the cluster's particles, one
 * per vertex of the constraint (2 or 4; unused ones 0xFFFF), and name the
 * constraint's own particles. Every constraint is in exactly one item, and no
 * local particle twice in one cluster colour. A sweep runs the passes in
 * order, each one dispatch; a cluster runs its colours in order.
 *
 * Origin (format 1.7): where the asset's frame sits in the world (m, double):
 * the positions above are relative to it, so they stay small however far
 * out the body is; bodies start there (sinew_body_desc.origin adds to it).
 * Finite, each coordinate within SINEW_ASSET_MAX_ORIGIN; (0, 0, 0): none.
 *
 * Render mesh (format 1.6; docs/render-mesh.md), both present or both empty:
 *   rvertices  [r]  { particle[4], weight[4], normal xyz, mode,
 *                     u, v, 0, 0 }                                  64 B
 *   rtriangles [i]  { v0, v1, v2 } over rvertices                   12 B
 * A render vertex sits at sum weight[k] * particle[k]: weights in [0, 1]
 * summing to 1, unused slots weight 0 (their particle any valid index).
 * mode's low byte says how its normal is made (SINEW_RENDER_NORMAL_*), bit
 * SINEW_RENDER_HAS_UV that u, v came from the source; normal is the unit
 * rest normal.
 *
 * Render materials (format 1.8; docs/render-mesh.md), only with a render mesh:
 *   rmaterials [g]  { first_triangle, triangle_count, name_offset,
 *                     name_length }                                 16 B
 *   rnames          the names, each followed by a NUL byte
 *   rlibrary        "<file name>" NUL "<text>": the source's material library
 * The groups follow each other over rtriangles without gaps and cover them
 * all; a name is printable text of at most SINEW_ASSET_MAX_MATERIAL_NAME
 * bytes ("" for the source's triangles before its first usemtl); the
 * library's file name has no folder.
 *
 * distances and bends are sorted by colour: colour k owns
 * distances[distance_begin, +distance_count) and bends[bend_begin, +bend_count),
 * the ranges follow each other without gaps, and no particle appears twice among
 * the constraints of one colour.
 *
 * Elements (Generalized PBD) are sorted by element colour the same way: element
 * colour k owns elements[begin, +count), ranges without gaps, no particle twice
 * in one colour. An element of kind SPRING uses v[0..1], TRIANGLE v[0..2], TET
 * v[0..3]; unused slots hold SINEW_NO_VERTEX. rest_measure is the rest length
 * (m), area (m^2) or volume (m^3), > 0. inv_rest is the inverse rest shape
 * matrix Dm^-1, column-major 3x3: for a tetrahedron Dm = [X1-X0, X2-X0, X3-X0];
 * for a triangle Dm is 2x2 (stored in inv_rest[0], [1], [3], [4], i.e. the
 * upper-left block), the columns of Dm being the rest edges X1-X0, X2-X0 in the
 * element's material frame (u = warp, v = weft, a right-handed frame in the
 * triangle's plane); for a spring inv_rest is all zero. Tetrahedra are
 * positively oriented (det Dm > 0). material indexes the materials table.
 *
 * A hierarchy has L >= 2 levels; level 0 is the whole body (its constraints are
 * the distances and bends above), each coarser level a proper subset of the
 * particles of the one before it. A particle's level is the coarsest level that
 * holds it. nodes lists every particle once, coarsest level first, so the
 * particles of level l are nodes[0, levels[l].particle_count). A node below the
 * coarsest level has link_count >= 1 parents, links[link_begin, +link_count),
 * each on level node.level + 1, with weights in (0, 1] that sum to 1; nodes of
 * the coarsest level have none. Level l >= 1 owns the unilateral distance
 * constraints hdistances[distance_begin, +distance_count) between its
 * particles, sorted by colour: hcolours[colour_begin, +colour_count) tile that
 * range in order, no particle twice in one colour. Level 0 owns no hdistances
 * and no hcolours. rest (enum sinew_hierarchy_rest) says how the coarse rest
 * lengths were made and is the same on every level.
 */
#ifndef SINEW_ASSET_INTERNAL_H
#define SINEW_ASSET_INTERNAL_H

#include <sinew/asset.h>
#include <sinew/material.h>

#include "../core/log.h"

enum sinew_constraint_kind {
    SINEW_KIND_STRETCH = 0, /* distance along a polygon edge */
    SINEW_KIND_SHEAR = 1,   /* distance along a polygon diagonal */
    SINEW_KIND_BEND = 2,    /* dihedral angle across an interior edge */
    SINEW_KIND_COUNT
};

typedef struct sinew_particle_rec { float x, y, z, w; } sinew_particle_rec;
typedef struct sinew_triangle_rec { uint32_t v[3]; } sinew_triangle_rec;
typedef struct sinew_distance_rec { uint32_t a, b; float rest; uint32_t kind; } sinew_distance_rec;
typedef struct sinew_bend_rec { uint32_t v[4]; float rest_angle; uint32_t kind; } sinew_bend_rec;
typedef struct sinew_colour_rec {
    uint32_t distance_begin, distance_count, bend_begin, bend_count;
} sinew_colour_rec;

enum sinew_element_kind {
    SINEW_ELEMENT_SPRING = 0,
    SINEW_ELEMENT_TRIANGLE = 1,
    SINEW_ELEMENT_TET = 2,
    SINEW_ELEMENT_KIND_COUNT
};
#define SINEW_NO_VERTEX 0xFFFFFFFFu

typedef struct sinew_element_rec {
    uint32_t v[4];
    uint32_t kind;         /* enum sinew_element_kind */
    uint32_t material;     /* index into materials */
    float rest_measure;    /* m, m^2 or m^3 */
    float inv_rest[9];     /* Dm^-1, column-major */
} sinew_element_rec;
typedef struct sinew_element_colour_rec { uint32_t begin, count; } sinew_element_colour_rec;
typedef sinew_material sinew_material_rec;

enum sinew_hierarchy_rest {
    SINEW_HIERARCHY_REST_POSE = 0,     /* distance in the rest pose */
    SINEW_HIERARCHY_REST_GEODESIC = 1, /* sum of the collapsed fine rest lengths */
    SINEW_HIERARCHY_REST_COUNT
};
typedef struct sinew_level_rec {
    uint32_t particle_count;
    uint32_t distance_begin, distance_count;
    uint32_t colour_begin, colour_count;
    uint32_t rest;
    uint32_t reserved[2];
} sinew_level_rec;
typedef struct sinew_node_rec { uint32_t particle, link_begin, link_count, level; } sinew_node_rec;
typedef struct sinew_link_rec { uint32_t parent; float weight; } sinew_link_rec;
typedef struct sinew_range_rec { uint32_t begin, count; } sinew_range_rec;
typedef struct sinew_cluster_rec {
    uint32_t particle_begin, particle_count, colour_begin, colour_count;
} sinew_cluster_rec;
typedef struct sinew_citem_rec { uint32_t constraint, local01, local23; } sinew_citem_rec;
#define SINEW_CLUSTER_NO_LOCAL 0xFFFFu
/* Multigrid levels (implicit cloth; format 1.4): nested meshes by 1 -> 4
 * subdivision, coarsest first. Level l is the first vertex_count particles;
 * the last level is the asset's own particles and triangles (TRIS). */
typedef struct sinew_mlevel_rec {
    uint32_t vertex_count;
    uint32_t triangle_begin, triangle_count; /* into mtriangles; the last level: 0 and TRIS' count */
    uint32_t colour_begin, colour_count;     /* into mcolours */
    uint32_t reserved[3];
} sinew_mlevel_rec;
/* The ends of the edge a particle is the midpoint of (SINEW_NO_VERTEX twice
 * for the coarsest level's particles). */
typedef struct sinew_parents_rec { uint32_t a, b; } sinew_parents_rec;

_Static_assert(sizeof(sinew_particle_rec) == 16, "file layout");
_Static_assert(sizeof(sinew_triangle_rec) == 12, "file layout");
_Static_assert(sizeof(sinew_distance_rec) == 16, "file layout");
_Static_assert(sizeof(sinew_bend_rec) == 24, "file layout");
_Static_assert(sizeof(sinew_colour_rec) == 16, "file layout");
_Static_assert(sizeof(sinew_element_rec) == 64, "file layout");
_Static_assert(sizeof(sinew_element_colour_rec) == 8, "file layout");
_Static_assert(sizeof(sinew_material_rec) == 224, "file layout");
_Static_assert(sizeof(sinew_level_rec) == 32, "file layout");
_Static_assert(sizeof(sinew_node_rec) == 16, "file layout");
_Static_assert(sizeof(sinew_link_rec) == 8, "file layout");
_Static_assert(sizeof(sinew_range_rec) == 8, "file layout");
_Static_assert(sizeof(sinew_mlevel_rec) == 32, "file layout");
_Static_assert(sizeof(sinew_parents_rec) == 8, "file layout");
_Static_assert(sizeof(sinew_cluster_rec) == 16, "file layout");
_Static_assert(sizeof(sinew_citem_rec) == 12, "file layout");

/* How a render vertex's normal is made (mode & SINEW_RENDER_NORMAL_MASK). */
enum sinew_render_normal {
    SINEW_RENDER_NORMAL_PARTICLES = 0, /* the weighted particle vertex normals (cloth) */
    SINEW_RENDER_NORMAL_TET = 1,       /* the rest normal by the tetrahedron's F^-T (soft solids) */
    SINEW_RENDER_NORMAL_COUNT
};
#define SINEW_RENDER_NORMAL_MASK 0xFFu
#define SINEW_RENDER_HAS_UV 0x100u
typedef struct sinew_render_vertex_rec {
    uint32_t particle[4];
    float weight[4];
    float normal[3];
    uint32_t mode;
    float uv[2];
    uint32_t reserved[2];
} sinew_render_vertex_rec;

typedef struct sinew_render_material_rec {
    uint32_t first_triangle, triangle_count, name_offset, name_length;
} sinew_render_material_rec;
_Static_assert(sizeof(sinew_render_material_rec) == 16, "file layout");
#define SINEW_ASSET_MAX_RENDER_MATERIALS 65536u
#define SINEW_ASSET_MAX_MATERIAL_NAME 1024u
#define SINEW_ASSET_MAX_LIBRARY_NAME 255u
#define SINEW_ASSET_MAX_LIBRARY ((1u << 20) + SINEW_ASSET_MAX_LIBRARY_NAME + 1u) /* bytes of RLIB */
_Static_assert(sizeof(sinew_render_vertex_rec) == 64, "file layout");
/* Weights of a render vertex sum to 1 within this. */
#define SINEW_RENDER_WEIGHT_TOLERANCE 1e-4

/* Limits the loader enforces so that sizes stay far from overflow and within
 * 32-bit indices on the device. */
#define SINEW_ASSET_MAX_PARTICLES (1u << 26)
#define SINEW_ASSET_MAX_RECORDS (1u << 28)
#define SINEW_ASSET_MAX_COLOURS 4096u
#define SINEW_ASSET_MAX_MATERIALS 65536u
#define SINEW_ASSET_MAX_LEVELS 32u
#define SINEW_ASSET_MAX_MLEVELS 12u
/* A cluster's particles live in a workgroup's shared memory (16 B each). */
#define SINEW_CLUSTER_MAX_PARTICLES 512u
/* Weights of a node's parents sum to 1 within this. */
#define SINEW_HIERARCHY_WEIGHT_TOLERANCE 1e-4
/* The farthest an origin's coordinate may lie from the world's (m): past it
 * (a million km) a double resolves no better than the float positions it
 * carries, and such a number is a unit or parsing error, not a place. */
#define SINEW_ASSET_MAX_ORIGIN 1e9

struct sinew_asset {
    uint32_t particle_count, triangle_count, distance_count, bend_count, colour_count;
    sinew_particle_rec *particles;
    sinew_triangle_rec *triangles;
    sinew_distance_rec *distances;
    sinew_bend_rec *bends;
    sinew_colour_rec *colours;
    uint32_t element_count, element_colour_count, material_count;
    sinew_element_rec *elements;                /* sorted by element colour */
    sinew_element_colour_rec *element_colours;
    sinew_material_rec *materials;
    /* Hierarchy (HPBD); level_count == 0: none. nodes has particle_count
     * records when there is one. */
    uint32_t level_count, link_count, hdistance_count, hcolour_count;
    sinew_level_rec *levels;
    sinew_node_rec *nodes;
    sinew_link_rec *links;
    sinew_distance_rec *hdistances;
    sinew_range_rec *hcolours;
    /* Red-black partition; red_count + black_count == 0: none. */
    uint32_t red_count, black_count;
    uint32_t *reds, *blacks;
    /* Multigrid levels; mlevel_count == 0: none. parents has particle_count
     * records when there are levels. mcolours are ranges of mvertices: each
     * level's particles grouped by colour (no two of a triangle, nor the two
     * wings of an edge two triangles share, in one colour). */
    uint32_t mlevel_count, mtriangle_count, mcolour_count, mvertex_count;
    sinew_mlevel_rec *mlevels;
    sinew_triangle_rec *mtriangles;
    sinew_parents_rec *parents;
    sinew_range_rec *mcolours;
    uint32_t *mvertices;
    /* Clustered sweeps; cpass_count == 0: none. */
    uint32_t cpass_count, cluster_count, cparticle_count, ccolour_count, citem_count;
    sinew_range_rec *cpasses;
    sinew_cluster_rec *clusters;
    uint32_t *cparticles;
    sinew_range_rec *ccolours;
    sinew_citem_rec *citems;
    char *meta; /* NUL-terminated "key=value\n" text, may be NULL */
    /* Render mesh; rvertex_count == 0: none. */
    uint32_t rvertex_count, rtriangle_count;
    sinew_render_vertex_rec *rvertices;
    sinew_triangle_rec *rtriangles;
    /* Render materials; rmaterial_count == 0: none. rnames and rlibrary hold
     * one byte more than their size, a NUL. */
    uint32_t rmaterial_count, rname_size, rlibrary_size;
    sinew_render_material_rec *rmaterials;
    char *rnames;
    char *rlibrary;
    /* Where the frame of the positions sits in the world (m); 0: at its origin. */
    double origin[3];
};

/* Allocates an empty asset with arrays of the given sizes (zeroed). NULL on OOM. */
sinew_asset *sinew_asset_alloc(uint32_t particles, uint32_t triangles, uint32_t distances,
                               uint32_t bends, uint32_t colours);

/* Gives the asset arrays of elements, element colours and materials (zeroed),
 * replacing any it had. 0 on OOM (the asset is unchanged then). */
int sinew_asset_alloc_elements(sinew_asset *a, uint32_t elements, uint32_t element_colours, uint32_t materials);

/* Gives the asset hierarchy arrays of these sizes (zeroed; nodes: one per
 * particle, none when levels is 0), replacing any it had. 0 on OOM (the asset
 * is unchanged then). */
int sinew_asset_alloc_hierarchy(sinew_asset *a, uint32_t levels, uint32_t links, uint32_t hdistances,
                                uint32_t hcolours);

/* Gives the asset red and black particle lists of these sizes (zeroed),
 * replacing any it had. 0 on OOM (the asset is unchanged then). */
int sinew_asset_alloc_red_black(sinew_asset *a, uint32_t reds, uint32_t blacks);

/* Gives the asset multigrid arrays of these sizes (zeroed; parents: one per
 * particle, none when levels is 0), replacing any it had. 0 on OOM (the asset
 * is unchanged then). */
int sinew_asset_alloc_multigrid(sinew_asset *a, uint32_t levels, uint32_t triangles, uint32_t colours,
                                uint32_t vertices);

/* Gives the asset cluster arrays of these sizes (zeroed), replacing any it
 * had; all zero removes them. 0 on OOM (the asset is unchanged then). */
int sinew_asset_alloc_clusters(sinew_asset *a, uint32_t passes, uint32_t clusters, uint32_t particles,
                               uint32_t colours, uint32_t items);

/* Gives the asset render mesh arrays of these sizes (zeroed), replacing any
 * it had; both zero removes them. 0 on OOM (the asset is unchanged then). */
int sinew_asset_alloc_render(sinew_asset *a, uint32_t vertices, uint32_t triangles);

/* Gives the asset render materials (replacing any it had): count groups over
 * its render triangles (group g is triangles [first[g], first[g + 1])), named
 * names[g], and the material library library (a file name; NULL: none) with
 * text (text_size bytes; NULL: none). 0 on OOM (the asset is unchanged). */
int sinew_asset_set_render_materials(sinew_asset *a, uint32_t count, char *const *names, const uint32_t *first,
                                     const char *library, const char *text, size_t text_size);

/* Whether name[0, len) is a material library's file name the asset keeps
 * (RLIB): 1 to SINEW_ASSET_MAX_LIBRARY_NAME printable bytes, no folder, not
 * "." or "..". */
int sinew_asset_library_name_ok(const char *name, size_t len);

/* Frees the render materials' arrays. */
void sinew_asset_free_render_materials(sinew_asset *a);

/* Whether the asset has an origin other than (0, 0, 0) (an ORIG section). */
int sinew_asset_has_origin(const sinew_asset *a);

/* The render mesh's checks (part of sinew_asset_validate; src/asset/render.c). */
sinew_result sinew_asset_validate_render(const sinew_asset *a, const char *name, const sinew_logger *lg);

/* The bending hinges of t triangles (3 indices each): every edge exactly two
 * of them share, as 4 indices (p0, p1) the edge as the first triangle runs it,
 * p2 that triangle's third vertex, p3 the other's (sinew_dihedral_angle's
 * order). *hinges is malloc'd (the caller frees it). OUT_OF_HOST_MEMORY. */
sinew_result sinew_triangle_hinges(const uint32_t *tri, uint32_t t, uint32_t **hinges, uint32_t *count);

/* The multigrid levels' checks (part of sinew_asset_validate; src/asset/multigrid.c). */
sinew_result sinew_asset_validate_multigrid(const sinew_asset *a, const char *name, const sinew_logger *lg);

/* The clustered sweeps' checks (part of sinew_asset_validate; src/asset/cluster.c). */
sinew_result sinew_asset_validate_clusters(const sinew_asset *a, const char *name, const sinew_logger *lg);

/* The red-black partition's checks (part of sinew_asset_validate). */
sinew_result sinew_asset_validate_red_black(const sinew_asset *a, const char *name, const sinew_logger *lg);

/* Every defect of one record: BAD_ASSET, naming the asset, section and record. */
sinew_result sinew_asset_bad_record(const sinew_logger *lg, const char *name, const char *tag, uint32_t record,
                                    const char *fmt, ...) SINEW_PRINTF(5, 6);

/* The hierarchy's checks (part of sinew_asset_validate; src/asset/hierarchy.c). */
sinew_result sinew_asset_validate_hierarchy(const sinew_asset *a, const char *name, const sinew_logger *lg);

/* Checks the semantic invariants above (indices, finiteness, colour ranges and
 * their independence). name is used in messages. */
sinew_result sinew_asset_validate(const sinew_asset *a, const char *name, const sinew_logger *lg);

/* Serialises to the v1 file format. *bytes is malloc'd; caller frees. */
sinew_result sinew_asset_serialize(const sinew_asset *a, void **bytes, size_t *size, const sinew_logger *lg);

/* Serialises and writes to path. */
sinew_result sinew_asset_write(const sinew_asset *a, const char *path, const sinew_logger *lg);

/* Short name of a material model ("neo-Hookean"), "unknown" past the last one;
 * static storage. For messages and tools. */
const char *sinew_material_model_name(uint32_t model);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32). */
uint32_t sinew_crc32(uint32_t crc, const void *data, size_t size);

#endif
