/* What a job will cost, told before it starts from the sizes of its inputs:
 * the peak host memory (and a rough time) of building an asset, so that a
 * build past the machine's memory is refused in a moment rather than found
 * out after minutes of swapping; and the broad phase's load of a
 * self-collision thickness. The rates are measured on sinew-prep's own
 * builds (docs/prep-library.md#estimates); an estimate is meant to come out
 * above the peak rather than below, within about a third. */
#ifndef SINEW_PREP_ESTIMATE_H
#define SINEW_PREP_ESTIMATE_H

#include <sinew/core.h>

#include "mesh.h"

typedef struct sinew_estimate {
    uint64_t bytes;     /* peak host memory of the whole build */
    double seconds;     /* on one core of the machine the rates were measured on: a scale, not a promise */
    uint64_t particles; /* what the build is expected to make */
    uint64_t elements;  /* of the kind named: */
    const char *kind;   /* "triangles" (cloth) or "tetrahedra" (soft bodies) */
    /* Past the size limits its builder refuses it by, naming them, before
     * it allocates: sinew_estimate_check leaves it to that refusal. */
    int past_limits;
} sinew_estimate;

/* A cloth of a mesh of these counts, its faces triangles or quads, subdivided
 * 1 -> 4 `subdivisions` times (quads split first; 0: not subdivided). */
sinew_estimate sinew_estimate_cloth(uint64_t vertices, uint64_t triangles, uint64_t quads, uint32_t subdivisions);
/* The same for a mesh in hand (faces of more than four corners count as a
 * fan of triangles). */
sinew_estimate sinew_estimate_cloth_mesh(const sinew_mesh *m, uint32_t subdivisions);
/* A soft body of a tetrahedral mesh of these counts. */
sinew_estimate sinew_estimate_soft(uint64_t vertices, uint64_t tets);
/* The solid a surface bounds as lattice cubes, `cells` along the longest
 * side of its bounds: the cubes inside from the volume it encloses (the whole
 * lattice where that is not positive), six tetrahedra each. */
sinew_estimate sinew_estimate_lattice(const sinew_mesh *surface, uint32_t cells);
/* Tetrahedralised by TetGen with tetrahedra of at most max_volume m^3 (0: no
 * bound): the tetrahedra from the enclosed volume and the surface's faces;
 * TetGen's own process and the build after it, whichever is larger. */
sinew_estimate sinew_estimate_tetgen(const sinew_mesh *surface, double max_volume);

/* Half the machine's physical memory (0 where the system does not say): the
 * default bound of the tools' --max-memory and the prep library's options. */
uint64_t sinew_estimate_memory_default(void);

/* "512 MiB", "2.1 GiB": a size as people read it, into buf. */
const char *sinew_estimate_size_text(uint64_t bytes, char *buf, size_t size);

/* Refuses a job whose estimate passes limit bytes (0: no bound): LIMIT and
 * an error "NAME: JOB needs about ... of memory (an estimate: ...), past the
 * limit of ...; OPTION raises it", job saying what was asked ("--lattice 200")
 * and option what sets the limit ("--max-memory SIZE"). A job within it
 * whose time passes a minute is warned about, naming job. OK otherwise, and
 * for a job past the size limits (e->past_limits). */
sinew_result sinew_estimate_check(const sinew_estimate *e, uint64_t limit, const char *name, const char *job,
                                  const char *option, const sinew_logger *lg);

/* Self-collision (docs/self-collision.md) at a thickness on a surface whose
 * edges are mean_edge long on average, surface_vertices of them: the items
 * (vertices, triangles, edges) that come within the reach (1.5 thicknesses)
 * of a vertex on a flat sheet, which its query finds as candidates; the
 * spatial hash's entries each query scans; and that scan over the one at a
 * thickness of one edge length, the broad phase's time relative to it. */
typedef struct sinew_self_estimate {
    double candidates, scanned, cost;
} sinew_self_estimate;

sinew_self_estimate sinew_estimate_self_collision(double thickness, double mean_edge, uint64_t surface_vertices);

/* A thickness past this many mean edge lengths, whose broad phase costs
 * more than this many times the one at one edge length, is worth a warning. */
#define SINEW_ESTIMATE_THICK_EDGES 3.0
#define SINEW_ESTIMATE_THICK_COST 4.0

#endif
