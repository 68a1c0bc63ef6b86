/* What a job will cost, from the sizes of its inputs (estimate.h). Every rate
 * below is a measured one: the peak resident memory (GNU time's %M) and the
 * wall time of sinew-prep's builds on one core of a 2-core x86-64 machine,
 * per element made beside the process's own few MiB, rounded up;
 * docs/prep-library.md#estimates lists the builds and what the estimates
 * say of them. */
#define _DEFAULT_SOURCE /* _SC_PHYS_PAGES */
#include "estimate.h"
#include "mesh_text.h" /* the mesh limits, the multigrid levels' too */
#include "volume.h"

#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

/* The process itself: its code, libraries and buffers. */
#define BASE_BYTES (8.0 * 1048576.0)
/* A cloth, every multigrid level kept: per triangle of the finest level
 * (--grid 16x16 --subdivide 6: 1.84 M triangles, 854 MiB, 10.3 s;
 * --grid 512x512: 0.52 M triangles, 256 MiB, 1.3 s). */
#define CLOTH_BYTES_PER_TRIANGLE 520.0
#define CLOTH_SECONDS_PER_TRIANGLE 5.6e-6
/* A soft body of a tetrahedral mesh (--box 80 80 80: 2.96 M tetrahedra on
 * 0.51 M particles, 673 MiB, 8.3 s; --lattice 100 of data/pebble.off: 1.16 M
 * on 0.21 M, 273 MiB). */
#define SOFT_BYTES_PER_TET 220.0
#define SOFT_BYTES_PER_PARTICLE 240.0
#define SOFT_SECONDS_PER_TET 3.0e-6
/* The lattice's own arrays over all its cubes and corners, and the
 * winding-number tree over the surface's triangles. */
#define LATTICE_BYTES_PER_CORNER 6.0
#define LATTICE_BYTES_PER_CUBE 1.0
#define LATTICE_BYTES_PER_FACE 200.0
#define LATTICE_PARTICLES_PER_CUBE 1.2
/* TetGen -q1.4 made 2.0 to 3.7 times the enclosed volume over the bound
 * (data/pebble.off at 1e-8 to 1e-6 m^3), 5.4 per surface triangle without a
 * bound, about 5 per point; its process took 180 bytes and 6.6 us a
 * tetrahedron. Its files read back take some 40 bytes a tetrahedron and 70 a
 * point beside the build. */
#define TETGEN_PER_VOLUME 2.5
#define TETGEN_PER_FACE 6.0
#define TETGEN_TETS_PER_PARTICLE 5.0
#define TETGEN_BYTES_PER_TET 180.0
#define TETGEN_SECONDS_PER_TET 6.6e-6
#define TETGEN_FILE_BYTES_PER_TET 40.0
#define TETGEN_FILE_BYTES_PER_PARTICLE 70.0

/* Counts past 2^64 do not arise from 32-bit inputs; doubles carry them. */
static uint64_t whole(double x) { return x >= 1.8e19 ? UINT64_MAX : (uint64_t)ceil(x); }

sinew_estimate sinew_estimate_cloth(uint64_t vertices, uint64_t triangles, uint64_t quads, uint32_t subdivisions)
{
    /* Subdivision splits quads first (one more edge each); T' = 4T, E' = 2E + 3T, V' = V + E. */
    double v = (double)vertices, t = (double)triangles + 2.0 * (double)quads;
    double e = 1.5 * t;
    for (uint32_t l = 0; l < subdivisions; l++) {
        v += e;
        e = 2.0 * e + 3.0 * t;
        t *= 4.0;
    }
    const double bytes = BASE_BYTES + CLOTH_BYTES_PER_TRIANGLE * t;
    return (sinew_estimate){whole(bytes), CLOTH_SECONDS_PER_TRIANGLE * t, whole(v), whole(t), "triangles",
                            v > SINEW_MESH_MAX_VERTICES || t > SINEW_MESH_MAX_FACES};
}

/* A face of k corners as k - 2 triangles: quads apart, the rest fanned. */
static void face_counts(const sinew_mesh *m, uint64_t *triangles, uint64_t *quads)
{
    *triangles = *quads = 0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
        if (k == 4)
            (*quads)++;
        else if (k >= 3)
            *triangles += k - 2;
    }
}

sinew_estimate sinew_estimate_cloth_mesh(const sinew_mesh *m, uint32_t subdivisions)
{
    uint64_t triangles, quads;
    face_counts(m, &triangles, &quads);
    return sinew_estimate_cloth(m->vertex_count, triangles, quads, subdivisions);
}

sinew_estimate sinew_estimate_soft(uint64_t vertices, uint64_t tets)
{
    const double bytes = BASE_BYTES + SOFT_BYTES_PER_TET * (double)tets + SOFT_BYTES_PER_PARTICLE * (double)vertices;
    return (sinew_estimate){whole(bytes), SOFT_SECONDS_PER_TET * (double)tets, vertices, tets, "tetrahedra",
                            vertices > SINEW_VOLUME_MAX_VERTICES || tets > SINEW_VOLUME_MAX_TETS};
}

/* The surface's bounds; 0 when it has no finite extent. */
static int bounds(const sinew_mesh *m, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; a++)
        lo[a] = HUGE_VAL, hi[a] = -HUGE_VAL;
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], m->positions[3 * (size_t)v + a]);
            hi[a] = fmax(hi[a], m->positions[3 * (size_t)v + a]);
        }
    return m->vertex_count && isfinite(hi[0] - lo[0]) && isfinite(hi[1] - lo[1]) && isfinite(hi[2] - lo[2]);
}

sinew_estimate sinew_estimate_lattice(const sinew_mesh *surface, uint32_t cells)
{
    double lo[3], hi[3];
    if (!bounds(surface, lo, hi) || cells == 0)
        return sinew_estimate_soft(0, 0);
    const double h = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])) / cells;
    double n[3], cubes_all = 1.0, corners = 1.0;
    for (int a = 0; a < 3; a++) { /* as sinew_volume_lattice sizes it */
        n[a] = h > 0.0 ? fmax(1.0, ceil((hi[a] - lo[a]) / h - 1e-9)) : 1.0;
        cubes_all *= n[a];
        corners *= n[a] + 1.0;
    }
    const double enclosed = fabs(sinew_surface_enclosed_volume(surface)) / (h * h * h);
    const double inside = enclosed > 0.0 && enclosed < cubes_all ? enclosed : cubes_all;
    uint64_t triangles, quads;
    face_counts(surface, &triangles, &quads);
    sinew_estimate e = sinew_estimate_soft(whole(LATTICE_PARTICLES_PER_CUBE * inside), whole(6.0 * inside));
    e.bytes += whole(LATTICE_BYTES_PER_CORNER * corners + LATTICE_BYTES_PER_CUBE * cubes_all +
                     LATTICE_BYTES_PER_FACE * (double)(triangles + 2 * quads));
    e.past_limits = corners > SINEW_VOLUME_MAX_VERTICES;
    return e;
}

sinew_estimate sinew_estimate_tetgen(const sinew_mesh *surface, double max_volume)
{
    uint64_t triangles, quads;
    face_counts(surface, &triangles, &quads);
    const double faces = (double)(triangles + 2 * quads);
    const double enclosed = fabs(sinew_surface_enclosed_volume(surface));
    double tets = TETGEN_PER_FACE * faces + (max_volume > 0.0 ? TETGEN_PER_VOLUME * enclosed / max_volume : 0.0);
    const double particles = tets / TETGEN_TETS_PER_PARTICLE + (double)surface->vertex_count;
    sinew_estimate e = sinew_estimate_soft(whole(particles), whole(tets));
    const double ours = (double)e.bytes + TETGEN_FILE_BYTES_PER_TET * tets + TETGEN_FILE_BYTES_PER_PARTICLE * particles;
    e.bytes = whole(fmax(ours, TETGEN_BYTES_PER_TET * tets));
    e.seconds += TETGEN_SECONDS_PER_TET * tets;
    /* sinew_volume_tetrahedralise's own bound: the fewest TetGen could make */
    e.past_limits = max_volume > 0.0 && !(enclosed / max_volume <= SINEW_VOLUME_MAX_TETS);
    return e;
}

uint64_t sinew_estimate_memory_default(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : 0;
}

const char *sinew_estimate_size_text(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double x = (double)bytes;
    int u = 0;
    while (x >= 1024.0 && u < 6)
        x /= 1024.0, u++;
    snprintf(buf, size, u == 0 ? "%.0f %s" : x < 10.0 ? "%.1f %s" : "%.0f %s", x, units[u]);
    return buf;
}

/* "9.2 million", "35 thousand", "420" */
static const char *count_text(uint64_t n, char *buf, size_t size)
{
    const double x = (double)n;
    if (x >= 1e9)
        snprintf(buf, size, "%.3g billion", x / 1e9);
    else if (x >= 1e6)
        snprintf(buf, size, "%.3g million", x / 1e6);
    else if (x >= 1e4)
        snprintf(buf, size, "%.0f thousand", x / 1e3);
    else
        snprintf(buf, size, "%llu", (unsigned long long)n);
    return buf;
}

sinew_result sinew_estimate_check(const sinew_estimate *e, uint64_t limit, const char *name, const char *job,
                                  const char *option, const sinew_logger *lg)
{
    if (e->past_limits)
        return SINEW_RESULT_OK;
    char need[32], most[32], elements[32], particles[32];
    sinew_estimate_size_text(e->bytes, need, sizeof need);
    count_text(e->elements, elements, sizeof elements);
    count_text(e->particles, particles, sizeof particles);
    if (limit && e->bytes > limit)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep",
                          "%s: %s needs about %s of memory (an estimate: %s %s on %s particles), past the limit of "
                          "%s; %s raises it",
                          name, job, need, elements, e->kind, particles,
                          sinew_estimate_size_text(limit, most, sizeof most), option);
    if (e->seconds > 60.0)
        sinew_logf(lg, SINEW_LOG_WARNING, "prep",
                   "%s: %s will take some %.0f minutes and %s of memory (an estimate: %s %s on %s particles)", name,
                   job, ceil(e->seconds / 60.0), need, elements, e->kind, particles);
    return SINEW_RESULT_OK;
}

sinew_self_estimate sinew_estimate_self_collision(double thickness, double mean_edge, uint64_t surface_vertices)
{
    /* A flat sheet: each vertex owns about sqrt(3)/2 e^2 of it and six items
     * (itself, two triangles, three edges); a query overlaps some four cells
     * of the hash, each the size of an item plus the reach, and scans what
     * overlaps them, but never more than every item there is. */
    const double e = mean_edge > 0.0 ? mean_edge : 1.0, area = 0.866 * e * e, reach = 1.5 * thickness;
    const double all = 6.0 * (double)surface_vertices;
    const double near = 6.0 * 3.14159265358979 * reach * reach / area;
    const double cell = e + reach, one = e + 1.5 * e;
    const double scanned = fmin(4.0 * 6.0 * 4.0 * cell * cell / area, all > 0.0 ? all : HUGE_VAL);
    const double scanned_one = fmin(4.0 * 6.0 * 4.0 * one * one / area, all > 0.0 ? all : HUGE_VAL);
    return (sinew_self_estimate){fmin(near, all), scanned, scanned / scanned_one};
}
