/* The lattice tetrahedralisation of the solid a surface bounds: the cubes of
 * a regular lattice whose centres lie inside it, each split into
 * sinew_volume_box's six tetrahedra, the corners on the solid's boundary
 * moved onto the surface where the tetrahedra stay well shaped.
 *
 * Inside is the generalised winding number (Jacobson et al. 2013,
 * surface_tree.c) at the cube's centre, >= 1/2: a surface need not be closed,
 * manifold or free of self-intersections, as real scans and game models are
 * not. Faces are first oriented consistently (each part of the surface the
 * way most of its faces already run, then all of them outward when the
 * enclosed volume comes out negative). Away from the surface the winding
 * number changes slowly: a block of cubes that no triangle comes near takes
 * the value at its centre unless that is within 1/4 of 1/2 (an opening's
 * span), so the cost grows with the cubes the surface and its openings pass
 * through, not with all of them. */
#include "volume.h"
#include "surface_tree.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define BLOCK 4u             /* cubes per side of a block that may share one winding number */
#define SNAP_KEEP 0.25       /* a moved corner keeps its tetrahedra above this fraction of their volume */
/* A surface encloses a volume when the surface passes through at least this
 * fraction of the boundary faces of the cubes inside, and their winding
 * number is at least this on average: a box without its lid has 0.83 and
 * 0.83, a terrain with peaks 0.76 and 0.66, a mask 0.56 and 0.59. */
#define MIN_ENCLOSED 0.75

typedef struct lattice {
    double lo[3], h;  /* corner (i, j, k) = lo + (i, j, k) h */
    uint32_t n[3];    /* cubes along each axis */
} lattice;

/* ------------------------------------------------------------ orientation */

static void reverse_face(sinew_mesh *m, uint32_t f)
{
    uint32_t *idx = m->face_indices + m->face_offsets[f];
    for (uint32_t i = 1, j = m->face_offsets[f + 1] - m->face_offsets[f] - 1; i < j; i++, j--) {
        uint32_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

/* Orients m's faces in place: across every edge of exactly two faces the two
 * run it in opposite directions where the surface allows (a Moebius band
 * does not); each connected part keeps the orientation most of its faces
 * had; then all faces turn over if the enclosed volume is negative. Counts
 * the faces turned. 0 when out of memory. */
static int orient(sinew_mesh *m, uint32_t *turned)
{
    const size_t n = m->face_offsets[m->face_count];
    sinew_half_edge *h = malloc(sizeof *h * (n + 1));
    uint32_t *adj_start = calloc((size_t)m->face_count + 1, sizeof *adj_start);
    uint32_t *adj = malloc(sizeof *adj * 2 * (n + 1)), *queue = malloc(sizeof *queue * ((size_t)m->face_count + 1));
    uint8_t *flip = calloc((size_t)m->face_count + 1, 1), *seen = calloc((size_t)m->face_count + 1, 1);
    int ok = h && adj_start && adj && queue && flip && seen;
    *turned = 0;
    if (ok) {
        const size_t e = sinew_surface_half_edges(m, h);
        /* Faces across manifold edges, CSR; bit 31 of an entry: same direction. */
        for (int pass = 0; pass < 2; pass++) {
            for (size_t i = 0; i + 1 < e; i++) {
                if (h[i].key != h[i + 1].key || (i > 0 && h[i - 1].key == h[i].key) ||
                    (i + 2 < e && h[i + 2].key == h[i].key) || h[i].face == h[i + 1].face)
                    continue;
                uint32_t same = h[i].forward == h[i + 1].forward ? 1u << 31 : 0u;
                if (pass == 0) {
                    adj_start[h[i].face + 1]++;
                    adj_start[h[i + 1].face + 1]++;
                } else {
                    adj[adj_start[h[i].face]++] = h[i + 1].face | same;
                    adj[adj_start[h[i + 1].face]++] = h[i].face | same;
                }
            }
            if (pass == 0)
                for (uint32_t f = 0; f < m->face_count; f++)
                    adj_start[f + 1] += adj_start[f];
            else
                for (uint32_t f = m->face_count; f > 0; f--)
                    adj_start[f] = adj_start[f - 1];
            if (pass == 1)
                adj_start[0] = 0;
        }
        for (uint32_t seed = 0; seed < m->face_count; seed++) {
            if (seen[seed])
                continue;
            uint32_t head = 0, tail = 0, flipped = 0;
            queue[tail++] = seed;
            seen[seed] = 1;
            while (head < tail) {
                uint32_t f = queue[head++];
                flipped += flip[f];
                for (uint32_t j = adj_start[f]; j < adj_start[f + 1]; j++) {
                    uint32_t g = adj[j] & 0x7fffffffu;
                    if (!seen[g]) {
                        seen[g] = 1;
                        flip[g] = (uint8_t)(flip[f] ^ (adj[j] >> 31));
                        queue[tail++] = g;
                    }
                }
            }
            if (2 * flipped > tail) /* the part's majority keeps its orientation */
                for (uint32_t i = 0; i < tail; i++)
                    flip[queue[i]] ^= 1u;
        }
        for (uint32_t f = 0; f < m->face_count; f++)
            if (flip[f]) {
                reverse_face(m, f);
                (*turned)++;
            }
        if (sinew_surface_enclosed_volume(m) < 0.0) {
            for (uint32_t f = 0; f < m->face_count; f++)
                reverse_face(m, f);
            *turned = m->face_count - *turned;
        }
    }
    free(h);
    free(adj_start);
    free(adj);
    free(queue);
    free(flip);
    free(seen);
    return ok;
}

/* ------------------------------------------------------------ inside */

/* A cube's centre, nudged off it by fixed irrational fractions of a cube's
 * edge: a flat or axis-aligned surface (a sheet in a lattice one cube thick,
 * a box on the lattice's planes) would otherwise pass exactly through
 * centres, where the winding number is +-1/2 by rounding alone. */
static void cube_centre(const lattice *L, uint32_t i, uint32_t j, uint32_t k, double c[3])
{
    c[0] = L->lo[0] + (i + 0.5 + 0.000577350269190) * L->h;
    c[1] = L->lo[1] + (j + 0.5 + 0.000414213562373) * L->h;
    c[2] = L->lo[2] + (k + 0.5 + 0.000732050807569) * L->h;
}

/* inside[cube] = winding number >= 1/2 at its centre; the largest winding
 * number met into *largest, the mean over the cubes inside into *mean.
 * Returns the cubes inside. */
static uint64_t mark_inside(const sinew_surface_tree *tree, const lattice *L, uint8_t *inside, double *largest,
                            double *mean)
{
    uint64_t count = 0;
    double sum = 0.0;
    *largest = -HUGE_VAL;
    for (uint32_t bk = 0; bk < L->n[2]; bk += BLOCK)
        for (uint32_t bj = 0; bj < L->n[1]; bj += BLOCK)
            for (uint32_t bi = 0; bi < L->n[0]; bi += BLOCK) {
                const uint32_t b0[3] = {bi, bj, bk};
                uint32_t b1[3];
                double lo[3], hi[3];
                for (int a = 0; a < 3; a++) {
                    b1[a] = b0[a] + BLOCK < L->n[a] ? b0[a] + BLOCK : L->n[a];
                    lo[a] = L->lo[a] + (b0[a] - 0.5) * L->h;
                    hi[a] = L->lo[a] + (b1[a] + 0.5) * L->h;
                }
                int near = sinew_surface_touches_box(tree, lo, hi);
                double shared = 0.0;
                if (!near) {
                    const double c[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
                    shared = sinew_surface_winding(tree, c);
                    /* Across an opening the level 1/2 passes far from any
                     * triangle: there each cube decides for itself. */
                    near = fabs(shared - 0.5) < 0.25;
                }
                for (uint32_t k = b0[2]; k < b1[2]; k++)
                    for (uint32_t j = b0[1]; j < b1[1]; j++)
                        for (uint32_t i = b0[0]; i < b1[0]; i++) {
                            double w = shared;
                            if (near) {
                                double c[3];
                                cube_centre(L, i, j, k, c);
                                w = sinew_surface_winding(tree, c);
                            }
                            *largest = fmax(*largest, w);
                            uint8_t in = w >= 0.5;
                            inside[((size_t)k * L->n[1] + j) * L->n[0] + i] = in;
                            count += in;
                            sum += in ? w : 0.0;
                        }
            }
    *mean = count ? sum / (double)count : 0.0;
    return count;
}

/* The fraction of the kept cubes' boundary faces that the surface passes
 * through: it meets the segment from the kept cube's centre to the left-out
 * neighbour's. Where the winding number's solid is bounded by no surface
 * (spanning a hole, the open side of a bowl, the hollow under a sheet), it
 * does not. */
static double coverage(const sinew_surface_tree *tree, const lattice *L, const uint8_t *inside)
{
    uint64_t faces = 0, near = 0;
    for (uint32_t k = 0; k < L->n[2]; k++)
        for (uint32_t j = 0; j < L->n[1]; j++)
            for (uint32_t i = 0; i < L->n[0]; i++) {
                if (!inside[((size_t)k * L->n[1] + j) * L->n[0] + i])
                    continue;
                const uint32_t ijk[3] = {i, j, k};
                for (int a = 0; a < 3; a++)
                    for (int side = -1; side <= 1; side += 2) {
                        uint32_t n[3] = {i, j, k};
                        int beyond = (side < 0 && ijk[a] == 0) || (side > 0 && ijk[a] + 1 == L->n[a]);
                        n[a] += (uint32_t)side;
                        if (!beyond && inside[((size_t)n[2] * L->n[1] + n[1]) * L->n[0] + n[0]])
                            continue;
                        double c[3], d[3];
                        cube_centre(L, i, j, k, c);
                        memcpy(d, c, sizeof d);
                        d[a] += side * L->h;
                        faces++;
                        near += sinew_surface_crosses(tree, c, d);
                    }
            }
    return faces ? (double)near / (double)faces : 0.0;
}

/* ------------------------------------------------------------ following the surface */

/* Each corner with kept and left-out cubes around it (in index order) moves
 * to the surface's closest point within a cube's edge, or half or a quarter
 * of the way there, whichever first keeps every tetrahedron it belongs to
 * above SNAP_KEEP of its volume. Returns the corners moved. */
static uint32_t follow_surface(const sinew_surface_tree *tree, const lattice *L, const uint8_t *boundary,
                               sinew_volume *v, int *ok)
{
    const uint32_t nv = v->vertex_count, nt = v->tet_count;
    uint32_t *start = calloc((size_t)nv + 1, sizeof *start), *list = malloc(sizeof *list * 4 * (size_t)nt + 1);
    *ok = start && list;
    uint32_t moved = 0;
    if (*ok) {
        for (size_t q = 0; q < 4 * (size_t)nt; q++)
            start[v->tets[q] + 1]++;
        for (uint32_t i = 0; i < nv; i++)
            start[i + 1] += start[i];
        for (size_t q = 0; q < 4 * (size_t)nt; q++)
            list[start[v->tets[q]]++] = (uint32_t)(q / 4);
        for (uint32_t i = nv; i > 0; i--)
            start[i] = start[i - 1];
        start[0] = 0;
        const double floor_volume = SNAP_KEEP * L->h * L->h * L->h / 6.0;
        for (uint32_t i = 0; i < nv; i++) {
            if (!boundary[i])
                continue;
            double *p = v->positions + 3 * (size_t)i, q[3], was[3];
            if (!sinew_surface_closest(tree, p, L->h, q, NULL))
                continue;
            memcpy(was, p, sizeof was);
            static const double fractions[3] = {1.0, 0.5, 0.25};
            int kept = 0;
            for (int f = 0; f < 3 && !kept; f++) {
                for (int a = 0; a < 3; a++)
                    p[a] = was[a] + fractions[f] * (q[a] - was[a]);
                kept = 1;
                for (uint32_t j = start[i]; j < start[i + 1] && kept; j++) {
                    const uint32_t *t = v->tets + 4 * (size_t)list[j];
                    const double *x = v->positions;
                    kept = sinew_tet_signed_volume(x + 3 * (size_t)t[0], x + 3 * (size_t)t[1], x + 3 * (size_t)t[2],
                                                   x + 3 * (size_t)t[3]) >= floor_volume;
                }
            }
            if (kept)
                moved++;
            else
                memcpy(p, was, sizeof was);
        }
    }
    free(start);
    free(list);
    return moved;
}

/* ------------------------------------------------------------ the lattice */

sinew_result sinew_volume_lattice(const sinew_mesh *surface, uint32_t cells, int follow, const char *name,
                                  const sinew_logger *lg, sinew_volume *out)
{
    SINEW_ASSERT(surface && out && (surface->positions || surface->vertex_count == 0) &&
                 (surface->face_offsets || surface->face_count == 0));
    memset(out, 0, sizeof *out);
    name = name ? name : "surface";
    if (cells == 0 || cells > 1024)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: %u lattice cells along the longest side; 1 to 1024", name, cells);
    if (surface->face_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: no faces", name);
    for (uint32_t f = 0; f < surface->face_count; f++) {
        uint32_t begin = surface->face_offsets[f], end = surface->face_offsets[f + 1];
        if (end < begin + 3)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: face %u has fewer than 3 vertices", name,
                              f);
        for (uint32_t k = begin; k < end; k++)
            if (surface->face_indices[k] >= surface->vertex_count)
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                                  "%s: face %u: vertex index %u out of range (%u vertices)", name, f,
                                  surface->face_indices[k], surface->vertex_count);
    }
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t v = 0; v < surface->vertex_count; v++)
        for (int a = 0; a < 3; a++) {
            double x = surface->positions[3 * (size_t)v + a];
            if (!isfinite(x))
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: vertex %u has a non-finite coordinate",
                                  name, v);
            lo[a] = fmin(lo[a], x);
            hi[a] = fmax(hi[a], x);
        }
    lattice L;
    L.h = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])) / cells;
    if (!(L.h > 0.0) || !isfinite(L.h))
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: the surface has no extent", name);
    for (int a = 0; a < 3; a++) { /* the lattice centred on the bounding box */
        double n = ceil((hi[a] - lo[a]) / L.h - 1e-9);
        L.n[a] = n < 1.0 ? 1 : (uint32_t)n;
        L.lo[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * L.n[a] * L.h;
    }
    const uint32_t nx = L.n[0] + 1, ny = L.n[1] + 1, nz = L.n[2] + 1;
    const size_t cubes_all = (size_t)L.n[0] * L.n[1] * L.n[2], corners = (size_t)nx * ny * nz;
    if (corners > SINEW_VOLUME_MAX_VERTICES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep",
                          "%s: a lattice of %u x %u x %u cubes is too large (%zu corners, limit %u)", name, L.n[0],
                          L.n[1], L.n[2], corners, SINEW_VOLUME_MAX_VERTICES);
    sinew_mesh oriented = {surface->vertex_count, surface->positions, surface->face_count, surface->face_offsets,
                           malloc(sizeof(uint32_t) * ((size_t)surface->face_offsets[surface->face_count] + 1))};
    uint32_t *map = malloc(sizeof *map * corners);
    uint8_t *inside = calloc(cubes_all + 1, 1), *around = calloc(corners + 1, 1), *boundary = NULL;
    sinew_surface_tree *tree = NULL;
    sinew_result r = SINEW_RESULT_OK;
    uint32_t turned = 0;
    if (oriented.face_indices)
        memcpy(oriented.face_indices, surface->face_indices,
               sizeof(uint32_t) * surface->face_offsets[surface->face_count]);
    if (!oriented.face_indices || !map || !inside || !around || !orient(&oriented, &turned) ||
        !(tree = sinew_surface_tree_build(&oriented))) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    if (turned)
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: %u of %u faces turned over to orient the surface consistently",
                   name, turned, surface->face_count);
    double largest, mean;
    uint64_t cubes = mark_inside(tree, &L, inside, &largest, &mean);
    if (cubes == 0) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                       "%s: encloses no volume: no cube of a %u x %u x %u lattice has its centre inside (the largest "
                       "winding number there is %.2f, where a closed surface gives 1 inside and an open sheet less "
                       "than 0.5); %s",
                       name, L.n[0], L.n[1], L.n[2], largest,
                       cells < 1024 ? "an open sheet is cloth: leave out --tetrahedralise / --lattice, or try more cubes"
                                    : "an open sheet is cloth: leave out --tetrahedralise / --lattice");
        goto done;
    }
    const double covered = coverage(tree, &L, inside);
    if (covered < MIN_ENCLOSED || mean < MIN_ENCLOSED) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                       "%s: encloses no volume: it is open, and of the solid its winding number outlines (%llu of "
                       "%u x %u x %u lattice cubes) %.0f%% of the boundary lies on it, the rest spanning its "
                       "openings, with a winding number of %.2f on average inside (a closed surface or one with "
                       "small holes: %.0f%% and %.2f or more); an open sheet is cloth: leave out --tetrahedralise / "
                       "--lattice",
                       name, (unsigned long long)cubes, L.n[0], L.n[1], L.n[2], 100.0 * covered, mean,
                       100.0 * MIN_ENCLOSED, MIN_ENCLOSED);
        goto done;
    }
    if (6 * cubes > SINEW_VOLUME_MAX_TETS) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %llu lattice cubes make %llu tetrahedra, limit %u",
                       name, (unsigned long long)cubes, 6ull * cubes, SINEW_VOLUME_MAX_TETS);
        goto done;
    }
    /* The corners the kept cubes use, numbered in lattice order, and how
     * many kept cubes each has around it (8: an interior corner). */
    memset(map, 0xff, sizeof *map * corners);
    uint32_t vertices = 0;
    for (uint32_t k = 0; k < L.n[2]; k++)
        for (uint32_t j = 0; j < L.n[1]; j++)
            for (uint32_t i = 0; i < L.n[0]; i++)
                if (inside[((size_t)k * L.n[1] + j) * L.n[0] + i])
                    for (uint32_t c = 0; c < 8; c++) {
                        size_t q = ((size_t)(k + (c >> 2)) * ny + j + ((c >> 1) & 1u)) * nx + i + (c & 1u);
                        map[q] = 0;
                        around[q]++;
                    }
    for (size_t c = 0; c < corners; c++)
        if (map[c] == 0)
            map[c] = vertices++;
    out->positions = malloc(sizeof *out->positions * 3 * (size_t)vertices);
    out->tets = malloc(sizeof *out->tets * 4 * 6 * (size_t)cubes);
    boundary = malloc((size_t)vertices + 1);
    if (!out->positions || !out->tets || !boundary) {
        sinew_volume_free(out);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t j = 0; j < ny; j++)
            for (uint32_t i = 0; i < nx; i++) {
                size_t q = ((size_t)k * ny + j) * nx + i;
                uint32_t v = map[q];
                if (v == NONE)
                    continue;
                out->positions[3 * (size_t)v] = L.lo[0] + i * L.h;
                out->positions[3 * (size_t)v + 1] = L.lo[1] + j * L.h;
                out->positions[3 * (size_t)v + 2] = L.lo[2] + k * L.h;
                boundary[v] = around[q] < 8;
            }
    /* sinew_volume_box's six tetrahedra a cube (see there), through map. */
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    const size_t stride[3] = {1, nx, (size_t)nx * ny};
    uint32_t *t = out->tets;
    for (uint32_t k = 0; k < L.n[2]; k++)
        for (uint32_t j = 0; j < L.n[1]; j++)
            for (uint32_t i = 0; i < L.n[0]; i++) {
                if (!inside[((size_t)k * L.n[1] + j) * L.n[0] + i])
                    continue;
                size_t base = ((size_t)k * ny + j) * nx + i;
                for (int p = 0; p < 6; p++) {
                    size_t v1 = base + stride[perms[p][0]], v2 = v1 + stride[perms[p][1]];
                    size_t v3 = base + stride[0] + stride[1] + stride[2];
                    int odd = p >= 3;
                    t[0] = map[base];
                    t[1] = map[odd ? v2 : v1];
                    t[2] = map[odd ? v1 : v2];
                    t[3] = map[v3];
                    t += 4;
                }
            }
    out->vertex_count = vertices;
    out->tet_count = (uint32_t)(6 * cubes);
    uint32_t moved = 0;
    if (follow) {
        int ok;
        moved = follow_surface(tree, &L, boundary, out, &ok);
        if (!ok) {
            sinew_volume_free(out);
            r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
            goto done;
        }
    }
    sinew_logf(lg, SINEW_LOG_INFO, "prep",
               "%s: %llu of %u x %u x %u lattice cubes (edge %.3g m) inside by winding number (%.2f on average); "
               "%.0f%% of their boundary on the surface",
               name, (unsigned long long)cubes, L.n[0], L.n[1], L.n[2], L.h, mean, 100.0 * covered);
    if (follow) {
        uint32_t on_boundary = 0;
        for (uint32_t v = 0; v < vertices; v++)
            on_boundary += boundary[v];
        sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: %u of %u boundary corners moved onto the surface", name, moved,
                   on_boundary);
    }
done:
    sinew_surface_tree_destroy(tree);
    free(oriented.face_indices);
    free(map);
    free(inside);
    free(around);
    free(boundary);
    return r;
}
