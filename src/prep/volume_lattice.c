/* The lattice tetrahedralisation of a closed surface: the cubes of a regular
 * lattice whose centres lie inside it, each split into sinew_volume_box's six
 * tetrahedra. Inside or not is the parity of the surface's crossings of the
 * line along x through a row of centres; each triangle is visited once, for
 * the rows its projection on the yz plane covers, so the cost is the
 * triangles plus the crossings, not triangles times cells. */
#include "volume.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rows' lines sit this fraction of a cell off the centres (different
 * irrational fractions in y and z), so that a line through a lattice plane
 * the surface's vertices or edges happen to lie on (an axis-aligned model,
 * a symmetric one) does not graze them. */
#define NUDGE_Y 0.000414213562373
#define NUDGE_Z 0.000732050807569

/* Far beyond any real surface (a row crosses it an even number of times, a
 * few for most shapes), low enough that a folded, hostile one is refused
 * before it exhausts memory. */
#define SINEW_LATTICE_MAX_CROSSINGS (1u << 28)

typedef struct lattice {
    double lo[3], h;  /* corner (i, j, k) = lo + (i, j, k) h */
    uint32_t n[3];    /* cubes along each axis */
} lattice;

static double row_y(const lattice *L, uint32_t j) { return L->lo[1] + (j + 0.5 + NUDGE_Y) * L->h; }
static double row_z(const lattice *L, uint32_t k) { return L->lo[2] + (k + 0.5 + NUDGE_Z) * L->h; }

/* The first and one past the last row index whose line lies in [a, b]. */
static void row_range(double a, double b, double lo, double h, double nudge, uint32_t n, uint32_t *first,
                      uint32_t *end)
{
    double f = ceil((a - lo) / h - 0.5 - nudge), e = floor((b - lo) / h - 0.5 - nudge) + 1.0;
    *first = f < 0.0 ? 0 : f > n ? n : (uint32_t)f;
    *end = e < 0.0 ? 0 : e > n ? n : (uint32_t)e;
}

/* Where the line along x through (y, z) crosses triangle abc, when it does
 * (strictly inside its projection; a line exactly on an edge counts for
 * neither triangle, which the nudge makes as good as impossible). */
static int crossing(const double *a, const double *b, const double *c, double y, double z, double *x)
{
    double e0 = (b[1] - a[1]) * (z - a[2]) - (b[2] - a[2]) * (y - a[1]);
    double e1 = (c[1] - b[1]) * (z - b[2]) - (c[2] - b[2]) * (y - b[1]);
    double e2 = (a[1] - c[1]) * (z - c[2]) - (a[2] - c[2]) * (y - c[1]);
    if (!((e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0)))
        return 0;
    double s = e0 + e1 + e2; /* twice the projected area, signed */
    *x = (e1 * a[0] + e2 * b[0] + e0 * c[0]) / s;
    return 1;
}

/* Visits every (triangle, row) crossing: counts them per row (xs NULL) or
 * stores them at at[row]++ (xs given). */
static void crossings(const sinew_mesh *m, const lattice *L, uint32_t *at, double *xs)
{
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *idx = m->face_indices + m->face_offsets[f];
        const uint32_t corners = m->face_offsets[f + 1] - m->face_offsets[f];
        for (uint32_t t = 1; t + 1 < corners; t++) { /* a fan from the face's first corner */
            const double *a = m->positions + 3 * (size_t)idx[0], *b = m->positions + 3 * (size_t)idx[t],
                         *c = m->positions + 3 * (size_t)idx[t + 1];
            uint32_t j0, j1, k0, k1;
            row_range(fmin(a[1], fmin(b[1], c[1])), fmax(a[1], fmax(b[1], c[1])), L->lo[1], L->h, NUDGE_Y, L->n[1],
                      &j0, &j1);
            row_range(fmin(a[2], fmin(b[2], c[2])), fmax(a[2], fmax(b[2], c[2])), L->lo[2], L->h, NUDGE_Z, L->n[2],
                      &k0, &k1);
            for (uint32_t k = k0; k < k1; k++)
                for (uint32_t j = j0; j < j1; j++) {
                    double x;
                    if (!crossing(a, b, c, row_y(L, j), row_z(L, k), &x))
                        continue;
                    uint32_t row = k * L->n[1] + j;
                    if (xs)
                        xs[at[row]] = x;
                    at[row]++;
                }
        }
    }
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

sinew_result sinew_volume_lattice(const sinew_mesh *surface, uint32_t cells, const char *name,
                                  const sinew_logger *lg, sinew_volume *out)
{
    SINEW_ASSERT(surface && out);
    memset(out, 0, sizeof *out);
    name = name ? name : "surface";
    if (cells == 0 || cells > 1024)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: %u lattice cells along the longest side; 1 to 1024", name, cells);
    sinew_result r = sinew_surface_check_closed(surface, name, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t v = 0; v < surface->vertex_count; v++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], surface->positions[3 * (size_t)v + a]);
            hi[a] = fmax(hi[a], surface->positions[3 * (size_t)v + a]);
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
    const size_t rows = (size_t)L.n[1] * L.n[2], corners = (size_t)nx * ny * nz;
    if (corners > SINEW_VOLUME_MAX_VERTICES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: a lattice of %u x %u x %u cubes is too large",
                          name, L.n[0], L.n[1], L.n[2]);
    uint32_t *start = calloc(rows + 1, sizeof *start), *at = calloc(rows + 1, sizeof *at);
    uint32_t *map = malloc(sizeof *map * corners);
    uint8_t *inside = calloc((size_t)L.n[0] * rows + 1, 1);
    double *xs = NULL;
    if (!start || !at || !map || !inside) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    /* Crossings, row by row (CSR), sorted along x. */
    crossings(surface, &L, at, NULL);
    uint64_t total = 0;
    for (size_t q = 0; q < rows; q++) {
        total += at[q];
        if (total > SINEW_LATTICE_MAX_CROSSINGS) {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep",
                           "%s: more than %u crossings of the lattice's rows with the surface", name,
                           SINEW_LATTICE_MAX_CROSSINGS);
            goto done;
        }
        start[q + 1] = (uint32_t)total;
    }
    xs = malloc(sizeof *xs * ((size_t)start[rows] + 1));
    if (!xs) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    memcpy(at, start, sizeof *at * rows);
    crossings(surface, &L, at, xs);
    /* A cube is inside when an odd number of crossings lie before its centre. */
    uint64_t cubes = 0;
    for (size_t q = 0; q < rows; q++) {
        const double *x = xs + start[q];
        const uint32_t count = start[q + 1] - start[q];
        qsort(xs + start[q], count, sizeof *xs, compare_doubles);
        uint32_t before = 0;
        for (uint32_t i = 0; i < L.n[0]; i++) {
            const double cx = L.lo[0] + (i + 0.5) * L.h;
            while (before < count && x[before] < cx)
                before++;
            inside[q * L.n[0] + i] = before & 1u;
            cubes += before & 1u;
        }
    }
    if (cubes == 0) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                       "%s: no lattice cube of %u along the longest side has its centre inside the surface", name,
                       cells);
        goto done;
    }
    if (6 * cubes > SINEW_VOLUME_MAX_TETS) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep", "%s: %llu lattice cubes is too many", name,
                       (unsigned long long)cubes);
        goto done;
    }
    /* The corners the kept cubes use, numbered in lattice order. */
    memset(map, 0xff, sizeof *map * corners);
    uint32_t vertices = 0;
    for (uint32_t k = 0; k < L.n[2]; k++)
        for (uint32_t j = 0; j < L.n[1]; j++)
            for (uint32_t i = 0; i < L.n[0]; i++)
                if (inside[((size_t)k * L.n[1] + j) * L.n[0] + i])
                    for (uint32_t c = 0; c < 8; c++)
                        map[((size_t)(k + (c >> 2)) * ny + j + ((c >> 1) & 1u)) * nx + i + (c & 1u)] = 0;
    for (size_t c = 0; c < corners; c++)
        if (map[c] == 0)
            map[c] = vertices++;
    out->positions = malloc(sizeof *out->positions * 3 * (size_t)vertices);
    out->tets = malloc(sizeof *out->tets * 4 * 6 * (size_t)cubes);
    if (!out->positions || !out->tets) {
        sinew_volume_free(out);
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
        goto done;
    }
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t j = 0; j < ny; j++)
            for (uint32_t i = 0; i < nx; i++) {
                uint32_t v = map[((size_t)k * ny + j) * nx + i];
                if (v == UINT32_MAX)
                    continue;
                out->positions[3 * (size_t)v] = L.lo[0] + i * L.h;
                out->positions[3 * (size_t)v + 1] = L.lo[1] + j * L.h;
                out->positions[3 * (size_t)v + 2] = L.lo[2] + k * L.h;
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
done:
    free(start);
    free(at);
    free(map);
    free(inside);
    free(xs);
    return r;
}
