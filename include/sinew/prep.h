/* sinew/prep.h: building assets in memory, in a program of one's own.
 *
 * What the sinew-prep tool does to files, for meshes a program holds: a
 * surface mesh becomes a cloth asset (particles with lumped masses, distance
 * and bending constraints, a graph colouring for Gauss-Seidel, and on request
 * clustered sweeps, finite elements, the particle hierarchy of HPBD, the
 * nested levels of the implicit multigrid solver, a red-black partition); a
 * tetrahedral mesh, or a closed surface tetrahedralised on the way, becomes a
 * soft-body asset. The result is the asset file's bytes (what
 * sinew_asset_load_memory reads, or a .snw file once written) or a loaded
 * sinew_asset.
 *
 *     sinew_prep_mesh mesh = sinew_prep_mesh_default();
 *     mesh.vertex_count = n;  mesh.positions = xyz;
 *     mesh.triangle_count = t; mesh.triangles = tri;
 *     sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
 *     o.pins = top_row; o.pin_count = 2;
 *     sinew_asset *asset;
 *     sinew_prep_cloth_asset(&mesh, &o, NULL, &asset);   // then sinew_body_create
 *
 * A separate library (libsinew_prep; CMake: find_package(sinew COMPONENTS
 * prep), target sinew::prep; pkg-config: sinew-prep), built on the runtime
 * library and linking nothing else but libc and libm (cJSON where the build
 * found it, for sinew_prep_fabric_parse); docs/prep-library.md. Nothing here
 * needs Vulkan or a context. Every function is safe for untrusted input: a
 * mesh with a NaN, an index out of range, no face, a size past the limits or
 * a NULL where an array is needed is refused with a sinew_result and a
 * message naming what was wrong, sent to the logger (NULL: stderr, warnings
 * and errors), and nothing is returned. Building is deterministic: the same
 * input gives the same bytes. Functions may be called from several threads
 * at once on different data (tetrahedralisation by TetGen runs a child
 * process per call).
 */
#ifndef SINEW_PREP_H
#define SINEW_PREP_H

#include "asset.h"
#include "core.h"
#include "material.h"

/* The functions of this library (its shared library exports these alone). */
#if defined(_WIN32)
#if defined(SINEW_BUILDING_PREP_SHARED)
#define SINEW_PREP_API __declspec(dllexport)
#elif defined(SINEW_PREP_SHARED)
#define SINEW_PREP_API __declspec(dllimport)
#else
#define SINEW_PREP_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define SINEW_PREP_API __attribute__((visibility("default")))
#else
#define SINEW_PREP_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Size limits of a mesh given here (those of sinew-prep's readers). */
#define SINEW_PREP_MAX_VERTICES (1u << 26)
#define SINEW_PREP_MAX_FACES (1u << 26)

/* ---------------------------------------------------------------- meshes */

/* A surface mesh the program holds: borrowed for the call, never kept.
 * Positions in metres, as float or double (give exactly one). Faces are
 * triangles, quads, or both (a quad's four corners in order around it): a
 * quad's diagonals become shear constraints, its edges stretch ones, and the
 * red-black partition needs quads. Winding is kept; a mesh of several
 * unconnected parts is one asset of parts moving on their own.
 *
 * A mesh as a renderer holds it, split at its UV or normal seams (one
 * position, several vertices), is welded: vertices at identical positions
 * (bit for bit, but -0 == +0) become one particle, numbered where the first
 * of them was, the particles keeping the order of the vertices (vertices no
 * face uses are then dropped by the cloth builder; sinew_prep_report counts
 * both). So the
 * cloth holds together across its seams, and a mesh without coincident
 * vertices keeps its vertices as the particles, one to one, in order. A cut
 * meant to stay open needs its two sides apart.
 *
 * The vertices given are also the asset's render mesh (docs/render-mesh.md):
 * one render vertex per vertex given, in order, tied to the particle it was
 * welded into, with its UV and normal, and the faces as its index buffer
 * (triangles as given, then each quad (a, b, c, d) as (a, b, c), (a, c, d)).
 * A body writes it as a vertex buffer each step (sinew_vulkan_buffers'
 * render_vertices, render_indices), which the program draws with its own
 * textures. It is kept when uvs are given or a vertex was welded (otherwise
 * the particles are the mesh as given). A cloth's render normals follow its
 * particles' normals; a soft body's (sinew_prep_soft_from_surface, whose
 * render vertices are embedded in the tetrahedra) turn the rest normals with
 * the tetrahedra. */
typedef struct sinew_prep_mesh {
    uint32_t vertex_count;
    const float *positions;      /* 3 per vertex (x, y, z), or NULL when positions_f64 is given */
    const double *positions_f64; /* 3 per vertex, or NULL when positions is given */
    uint32_t triangle_count;
    const uint32_t *triangles;   /* 3 vertex indices per triangle; NULL when triangle_count is 0 */
    uint32_t quad_count;
    const uint32_t *quads;       /* 4 vertex indices per quad; NULL when quad_count is 0 */
    const float *uvs;            /* optional, 2 per vertex (u, v), finite: the render mesh's */
    const float *normals;        /* optional, 3 per vertex, finite: the render mesh's rest normals (NULL: the faces') */
} sinew_prep_mesh;

/* All zero: no vertices, no faces. */
SINEW_PREP_API sinew_prep_mesh sinew_prep_mesh_default(void);

/* A tetrahedral mesh (a soft body's volume): borrowed for the call. Positions
 * as in sinew_prep_mesh; each tetrahedron's four corners in either
 * orientation (negatively oriented ones are turned over, with a warning).
 * regions, optional, gives each tetrahedron's region (material: see
 * sinew_prep_soft_options.regions). */
typedef struct sinew_prep_volume {
    uint32_t vertex_count;
    const float *positions;      /* 3 per vertex, or NULL when positions_f64 is given */
    const double *positions_f64;
    uint32_t tet_count;
    const uint32_t *tets;        /* 4 vertex indices per tetrahedron */
    const uint32_t *regions;     /* NULL, or one per tetrahedron */
} sinew_prep_volume;

/* ---------------------------------------------------------------- the result */

/* What a build made, beyond sinew_asset_get_info's counts. */
typedef struct sinew_prep_report {
    uint32_t particle_count;
    uint32_t pinned_count;
    uint32_t triangle_count;     /* cloth: the surface; soft body: the boundary faces */
    uint32_t tet_count;          /* soft bodies */
    uint32_t stretch_count, shear_count, bend_count; /* cloth constraints */
    uint32_t colour_count;       /* Gauss-Seidel colours (cloth: constraints; soft body: elements) */
    uint32_t element_count;      /* finite elements (membranes, springs, tetrahedra) */
    uint32_t dropped_faces;      /* degenerate faces skipped (cloth) */
    uint32_t dropped_vertices;   /* vertices no face or tetrahedron uses, removed */
    uint32_t flipped_tets;       /* negatively oriented tetrahedra turned over */
    uint32_t part_count;         /* cloth: connected parts */
    uint32_t unpinned_parts;     /* cloth with pins: parts without one (warned about unless free_parts) */
    uint32_t hierarchy_levels;   /* HPBD levels, level 0 included; 0: none */
    uint32_t multigrid_levels;   /* implicit multigrid levels, the finest included; 0: none */
    uint32_t cluster_passes;     /* clustered sweeps: dispatches per sweep; 0: none */
    uint32_t red_count, black_count; /* red-black partition; both 0: none */
    double total_mass;           /* kg, of the particles not pinned (sinew_asset_info.total_mass) */
    uint32_t welded_vertices;    /* vertices of the mesh given welded onto others at the same position */
} sinew_prep_report;

/* An asset built in memory: the bytes of its file (format: docs/asset-format.md). */
typedef struct sinew_prep_output {
    void *bytes;                 /* owned: free with sinew_prep_output_free */
    size_t size;
    sinew_prep_report report;
} sinew_prep_output;

/* Frees out's bytes and zeroes it; NULL or an empty output does nothing. */
SINEW_PREP_API void sinew_prep_output_free(sinew_prep_output *out);

/* Writes the bytes to path (the file sinew_asset_load and every sinew tool
 * read). IO with a message naming the path and the system's reason. */
SINEW_PREP_API sinew_result sinew_prep_output_write(const sinew_prep_output *out, const char *path,
                                                    const sinew_logger *logger);

/* ---------------------------------------------------------------- cloth */

typedef enum sinew_prep_colouring {
    /* First fit in decreasing conflict-degree order, then balancing: fewer,
     * more even colours (the default). */
    SINEW_PREP_COLOURING_BALANCED = 0,
    /* First fit in input order. */
    SINEW_PREP_COLOURING_GREEDY = 1,
} sinew_prep_colouring;

typedef enum sinew_prep_hierarchy_rest {
    SINEW_PREP_HIERARCHY_REST_POSE = 0,     /* coarse rest length: the distance in the rest pose */
    SINEW_PREP_HIERARCHY_REST_GEODESIC = 1, /* the sum of the collapsed fine rest lengths */
} sinew_prep_hierarchy_rest;

/* The cloth builder's options: sinew-prep's command line (its flag in
 * brackets). Take them from sinew_prep_cloth_options_default. Stretch and
 * bending compliances are the body's (sinew_body_desc), not the asset's. */
typedef struct sinew_prep_cloth_options {
    uint32_t cookie;             /* set by sinew_prep_cloth_options_default; checked */
    const char *name;            /* names the asset in messages and its META section; NULL: "cloth" */
    double density;              /* kg/m^2, areal, > 0 [--density] (default 0.2) */
    int shear;                   /* distance constraints along quad diagonals (default 1) [--no-shear] */
    int bending;                 /* dihedral bending across interior edges (default 1) [--no-bending] */
    int triangulate;             /* split quads into triangles first, diagonals in a checkerboard [--triangulate] */
    int quadrangulate;           /* split every face into quads around its centre (always red-black) [--quadrangulate] */
    sinew_prep_colouring colouring; /* [--colouring] */
    /* Clustered Gauss-Seidel sweeps: clusters of at most this many particles
     * (16..512; default 256), one dispatch a pass; 0: one dispatch a colour
     * [--clusters N|none]. */
    uint32_t cluster_particles;
    /* Pins (inverse mass 0), by vertex index of the mesh given (pinning a
     * welded vertex pins its particle) [--pin]; borrowed. */
    const uint32_t *pins;
    uint32_t pin_count;
    int pin_box;                 /* pin every vertex inside [box_min, box_max] [--pin-box] */
    double box_min[3], box_max[3];
    /* More pin boxes, 6 doubles each (min x, y, z, then max x, y, z): a
     * vertex inside any box is pinned [--pin-box given again]; borrowed. */
    const double *pin_boxes;
    uint32_t pin_box_count;
    double pin_top;              /* > 0: pin vertices within this fraction of the height below the top [--pin-top] */
    int free_parts;              /* parts without a pin are meant to fall: no warning [--free-parts] */

    /* Finite elements for the GPBD solvers (docs/gpbd.md). */
    /* 0: none; SINEW_MATERIAL_STVK or SINEW_MATERIAL_TABULATED: a membrane
     * triangle per triangle, of membrane_material (whose model must match;
     * default an StVK woven cotton, E 3e7 Pa, nu 0.3, 0.3 mm) [--membrane]. */
    uint32_t membrane;
    sinew_material membrane_material;
    int springs;                 /* every stretch and shear distance also a spring element [--springs] */
    double spring_compliance;    /* m/N, >= 0 */
    int keep_distances;          /* with elements, keep the distance constraints too [--keep-distances] */
    double warp[3];              /* material u direction, projected on each triangle (default 1, 0, 0) [--warp] */

    /* Hierarchical PBD (docs/hpbd.md) [--hierarchy ...]. */
    uint32_t hierarchy_levels;   /* 0: none; else 2..32, level 0 included */
    uint32_t hierarchy_k;        /* parents of each fine particle, >= 1 (default 2) */
    uint32_t hierarchy_min_particles; /* stop after a level this small (default 16) */
    sinew_prep_hierarchy_rest hierarchy_rest; /* default REST_POSE */

    /* Implicit multigrid (docs/implicit.md): subdivide the mesh 1 -> 4 this
     * many times (1..11; 0: no levels) and keep every level; quads are split
     * into triangles first. Pins name the given mesh's vertices [--subdivide]. */
    uint32_t subdivisions;
    /* Red-black partition of the distance constraints for the mass-spring
     * solvers: needs a quad network without diagonals (shear = 0, or
     * quadrangulate); refused, naming an odd cycle, otherwise [--red-black]. */
    int red_black;
    /* Bytes of host memory the build may take: one whose estimate, made from
     * the mesh's counts and the subdivisions before any work, passes it is
     * refused (LIMIT, naming both). Default: half the machine's physical
     * memory; 0: no bound [--max-memory]. docs/prep-library.md#estimates. */
    uint64_t max_memory;
    /* Where the asset's frame sits in the world (m, double; the asset's
     * ORIG section, docs/asset-format.md): the positions are kept as given,
     * relative to it, and bodies made from the asset start there
     * (sinew_asset_get_origin). Finite, each coordinate within 1e9 m
     * (INVALID_ARGUMENT otherwise). Default (0, 0, 0): the file is then
     * byte for byte what it was before origins [--translate]. */
    double origin[3];
} sinew_prep_cloth_options;

SINEW_PREP_API sinew_prep_cloth_options sinew_prep_cloth_options_default(void);

/* Builds a cloth asset from a surface mesh. Degenerate faces (a repeated
 * vertex, zero area) and vertices no face uses are dropped with a warning
 * (counted in the report). Refused, with a message: NULL mesh, options or
 * out; options not from sinew_prep_cloth_options_default, or out of range
 * (INVALID_ARGUMENT); both or neither positions arrays, a face array NULL
 * where its count is not 0, no face, an index out of range, a non-finite
 * coordinate, UV or normal (BAD_MESH); sizes past SINEW_PREP_MAX_VERTICES or
 * SINEW_PREP_MAX_FACES, or past the asset's limits (LIMIT); each stage's own
 * refusals (a pin out of range, an odd cycle for red_black, ...), named.
 * On success out holds the bytes (free with sinew_prep_output_free); on
 * failure it is zeroed. */
SINEW_PREP_API sinew_result sinew_prep_cloth(const sinew_prep_mesh *mesh, const sinew_prep_cloth_options *options,
                                             const sinew_logger *logger, sinew_prep_output *out);

/* The same, loaded: *asset owns the asset (sinew_asset_destroy frees it),
 * ready for sinew_body_create. report may be NULL. *asset is NULL on failure. */
SINEW_PREP_API sinew_result sinew_prep_cloth_asset(const sinew_prep_mesh *mesh,
                                                   const sinew_prep_cloth_options *options,
                                                   const sinew_logger *logger, sinew_asset **asset,
                                                   sinew_prep_report *report);

/* A regular grid of quads, as sinew-prep --grid makes it: nx x ny vertices
 * (2..2048 each), size_x x size_y m, centred on x = z = 0 at height y
 * (horizontal, in the xz plane) or, vertical, in the xy plane centred at
 * y = height. Vertex (i, j) is j * nx + i, i along x, j along z (vertical:
 * along y, upwards). pin_corners pins the two ends of the first row (j = 0:
 * the edge at the least z; vertical, the bottom edge) besides the options'
 * own pins, as sinew-prep --pin-corners does. */
typedef struct sinew_prep_grid {
    uint32_t nx, ny;
    double size_x, size_y;       /* m, > 0 */
    double height;               /* m */
    int vertical;                /* 0: xz plane (lying), 1: xy plane (hanging) */
    int pin_corners;
} sinew_prep_grid;

/* 16 x 16 vertices, 1 m x 1 m, lying 1 m up, the two corners of its first row pinned. */
SINEW_PREP_API sinew_prep_grid sinew_prep_grid_default(void);

/* sinew_prep_cloth of that grid. */
SINEW_PREP_API sinew_result sinew_prep_cloth_grid(const sinew_prep_grid *grid, const sinew_prep_cloth_options *options,
                                                  const sinew_logger *logger, sinew_prep_output *out);

/* A tabulated fabric from the text of a fabric file (JSON; data/fabrics/,
 * docs/gpbd.md) into a material of model TABULATED whose density is the
 * fabric's areal density (kg/m^2): for membrane_material, with membrane =
 * SINEW_MATERIAL_TABULATED and density = material.density. text need not be
 * NUL-terminated; name stands for it in messages. INVALID_ARGUMENT naming
 * the key at fault, LIMIT past 1 MiB, UNSUPPORTED in a build without cJSON. */
SINEW_PREP_API sinew_result sinew_prep_fabric_parse(const char *text, size_t size, const char *name,
                                                    const sinew_logger *logger, sinew_material *material);

/* ---------------------------------------------------------------- soft bodies */

/* One region's material. */
typedef struct sinew_prep_region_material {
    uint32_t region;             /* a value of sinew_prep_volume.regions */
    sinew_material material;     /* NEO_HOOKEAN or STABLE_NEO_HOOKEAN; its density (kg/m^3) gives the masses */
} sinew_prep_region_material;

typedef enum sinew_prep_mesher {
    /* A closed, manifold, consistently oriented surface goes to TetGen (the
     * `tetgen` executable, Debian's tetgen package, run as a child process);
     * any other surface, or every surface when TetGen is missing or refuses
     * it, is meshed as lattice cubes following the surface, with a warning
     * saying why [--tetrahedralise]. Lattice cubes following the surface
     * hold every vertex of it (docs/gpbd.md), and the surface is the
     * asset's render mesh, embedded in them: its own render mesh, or its
     * faces as they are. */
    SINEW_PREP_MESHER_TETGEN = 0,
    /* Lattice cubes whose centres are inside (generalised winding number),
     * lattice_cells along the longest side; follow_surface moves the
     * boundary's corners onto the surface, holding every vertex of it as
     * above [--lattice N]. */
    SINEW_PREP_MESHER_LATTICE = 1,
} sinew_prep_mesher;

/* The soft-body builder's options (sinew-prep's soft-body flags in brackets). */
typedef struct sinew_prep_soft_options {
    uint32_t cookie;             /* set by sinew_prep_soft_options_default; checked */
    const char *name;            /* NULL: "soft body" */
    /* The material of the body, or of every region regions does not name. */
    sinew_material_model model;  /* NEO_HOOKEAN (default) or STABLE_NEO_HOOKEAN [--material] */
    double youngs_modulus;       /* Pa, > 0 [--youngs] */
    double poisson_ratio;        /* [0, 0.5) [--poisson] */
    double density;              /* kg/m^3, > 0 [--density] */
    /* Regions' own materials [--region]; each distinct region value becomes a
     * material, in increasing order of value. Borrowed. */
    const sinew_prep_region_material *regions;
    uint32_t region_count;
    sinew_prep_colouring colouring;
    const uint32_t *pins;        /* vertex indices of the mesh given [--pin]; borrowed */
    uint32_t pin_count;
    int pin_box;                 /* [--pin-box] */
    double box_min[3], box_max[3];
    const double *pin_boxes;     /* more boxes, as the cloth options' [--pin-box again]; borrowed */
    uint32_t pin_box_count;
    double pin_bottom;           /* > 0: pin vertices within this fraction of the height above the lowest [--pin-bottom] */
    int largest_piece;           /* keep only the largest of parts joined by no face [--pieces largest] */

    /* sinew_prep_soft_from_surface only. */
    sinew_prep_mesher mesher;
    double max_volume;           /* TetGen: largest tetrahedron, m^3; 0: no bound [--max-volume] */
    double quality;              /* TetGen: radius-edge bound, >= 1, 0: none (default 1.4) [--quality] */
    const char *tetgen;          /* the tetgen executable; NULL: "tetgen" on PATH [--tetgen] */
    uint32_t lattice_cells;      /* LATTICE: cubes along the longest side, 1..1024 (default 16) [--lattice] */
    int follow_surface;          /* LATTICE: boundary corners onto the surface [--follow-surface] */
    /* Bytes of host memory the build may take, as max_memory of the cloth's
     * options: estimated from the tetrahedra given, or before meshing a
     * surface from its bounds, enclosed volume and faces with lattice_cells or
     * max_volume [--max-memory]. */
    uint64_t max_memory;
    double origin[3];            /* m, as the cloth options' origin [--translate] */
} sinew_prep_soft_options;

SINEW_PREP_API sinew_prep_soft_options sinew_prep_soft_options_default(void);

/* A soft-body asset from a tetrahedral mesh: a TET element per tetrahedron
 * (inverse rest shape, rest volume), masses lumped from each tetrahedron's
 * material's density, the elements coloured, the boundary faces as the
 * asset's triangles. Negatively oriented tetrahedra are turned over and
 * vertices no tetrahedron uses removed (warned about, counted); degenerate
 * (flat) tetrahedra, repeated corners, indices out of range and non-finite
 * coordinates are refused (BAD_MESH), as are bad options and materials
 * (INVALID_ARGUMENT). out as sinew_prep_cloth's. */
SINEW_PREP_API sinew_result sinew_prep_soft(const sinew_prep_volume *volume, const sinew_prep_soft_options *options,
                                            const sinew_logger *logger, sinew_prep_output *out);

/* The solid a closed surface bounds, tetrahedralised by options.mesher, then
 * sinew_prep_soft. The surface's faces may be triangles or quads, its
 * vertices split at seams (welded, as in sinew_prep_mesh); its render mesh,
 * where it has one, is embedded in the tetrahedra. Pins by
 * index name the tetrahedral mesh's vertices, which the mesher numbers:
 * pin_box and pin_bottom suit a surface better. BAD_MESH for a surface that
 * encloses nothing (an open sheet); IO when TetGen was found but could not be
 * run to the end (killed, interrupted), which does not fall back. */
SINEW_PREP_API sinew_result sinew_prep_soft_from_surface(const sinew_prep_mesh *surface,
                                                         const sinew_prep_soft_options *options,
                                                         const sinew_logger *logger, sinew_prep_output *out);

/* Either of them, loaded (surface NULL: from volume; else volume NULL). */
SINEW_PREP_API sinew_result sinew_prep_soft_asset(const sinew_prep_volume *volume, const sinew_prep_mesh *surface,
                                                  const sinew_prep_soft_options *options,
                                                  const sinew_logger *logger, sinew_asset **asset,
                                                  sinew_prep_report *report);

/* ---------------------------------------------------------------- colouring */

/* Colours a constraint graph for parallel Gauss-Seidel: constraint c touches
 * the particles indices[offsets[c] .. offsets[c + 1]) (offsets has
 * constraint_count + 1 entries, non-decreasing, offsets[0] = 0), and two
 * constraints sharing a particle never share a colour. colour_of (room for
 * constraint_count) receives each constraint's colour, *colour_count their
 * number. INVALID_ARGUMENT, with a message, for NULL arrays, decreasing
 * offsets or a particle index out of range. */
SINEW_PREP_API sinew_result sinew_prep_colour(uint32_t constraint_count, const uint32_t *offsets,
                                              const uint32_t *indices, uint32_t particle_count,
                                              sinew_prep_colouring method, const sinew_logger *logger,
                                              uint32_t *colour_of, uint32_t *colour_count);

#ifdef __cplusplus
}
#endif
#endif
