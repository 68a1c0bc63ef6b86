/* Volume meshes: reading a file and choosing its reader (volume_msh.c for Gmsh,
 * volume_tetgen.c for TetGen), the box generator (each cube cell split into 6
 * tetrahedra around its main diagonal: Kuhn's triangulation, Freudenthal 1942),
 * the checks and repairs before a soft body is built, and the checks of a
 * closed surface before it is tetrahedralised. */
#include "volume.h"
#include "mesh_text.h"

#include "core/file.h"
#include "core/log.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

void sinew_volume_free(sinew_volume *v)
{
    if (!v)
        return;
    free(v->positions);
    free(v->tets);
    free(v->regions);
    memset(v, 0, sizeof *v);
}

void sinew_volume_drop_zero_regions(sinew_volume *v)
{
    for (uint32_t t = 0; v->regions && t < v->tet_count; t++)
        if (v->regions[t] != 0)
            return;
    free(v->regions);
    v->regions = NULL;
}

int sinew_volume_is_volume_path(const char *path)
{
    return sinew_path_has_extension(path, ".msh") || sinew_path_has_extension(path, ".node") ||
           sinew_path_has_extension(path, ".ele");
}

/* ------------------------------------------------------------ files */

static sinew_result read_whole(const char *path, const sinew_logger *lg, uint8_t **bytes, size_t *size)
{
    return sinew_file_read(path, SINEW_MESH_MAX_FILE, lg, "mesh", bytes, size);
}

/* X.node <-> X.ele: the same path with the other extension (of the same case). */
static char *sibling(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.');
    size_t stem = (size_t)(dot - path), n = strlen(ext);
    char *s = malloc(stem + n + 1);
    if (!s)
        return NULL;
    memcpy(s, path, stem);
    int upper = dot[1] >= 'A' && dot[1] <= 'Z';
    for (size_t i = 0; i <= n; i++)
        s[stem + i] = (char)(upper && ext[i] >= 'a' && ext[i] <= 'z' ? ext[i] - 'a' + 'A' : ext[i]);
    return s;
}

static sinew_result read_tetgen(const char *path, const sinew_logger *lg, sinew_volume *out)
{
    int given_node = sinew_path_has_extension(path, ".node");
    char *other = sibling(path, given_node ? ".ele" : ".node");
    if (!other)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mesh", "%s: out of memory", path);
    const char *node_path = given_node ? path : other, *ele_path = given_node ? other : path;
    uint8_t *node = NULL, *ele = NULL;
    size_t node_size = 0, ele_size = 0;
    sinew_result r = read_whole(node_path, lg, &node, &node_size);
    if (r == SINEW_RESULT_OK)
        r = read_whole(ele_path, lg, &ele, &ele_size);
    if (r == SINEW_RESULT_OK)
        r = sinew_volume_read_tetgen_memory((const char *)node, node_size, node_path, (const char *)ele, ele_size,
                                            ele_path, lg, out);
    free(node);
    free(ele);
    free(other);
    return r;
}

sinew_result sinew_volume_read(const char *path, const sinew_logger *lg, sinew_volume *out)
{
    SINEW_ASSERT(path && out);
    memset(out, 0, sizeof *out);
    if (sinew_path_has_extension(path, ".node") || sinew_path_has_extension(path, ".ele"))
        return read_tetgen(path, lg, out);
    if (!sinew_path_has_extension(path, ".msh"))
        return sinew_fail(lg, SINEW_RESULT_ERROR_UNSUPPORTED, "mesh",
                          "%s: not a volume mesh (Gmsh .msh, TetGen .node/.ele)", path);
    uint8_t *bytes;
    size_t size;
    sinew_result r = read_whole(path, lg, &bytes, &size);
    if (r != SINEW_RESULT_OK)
        return r;
    r = sinew_volume_read_msh_memory(bytes, size, path, lg, out);
    free(bytes);
    return r;
}

/* ------------------------------------------------------------ geometry */

double sinew_tet_signed_volume(const double *p0, const double *p1, const double *p2, const double *p3)
{
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; k++) {
        a[k] = p1[k] - p0[k];
        b[k] = p2[k] - p0[k];
        c[k] = p3[k] - p0[k];
    }
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
            a[2] * (b[0] * c[1] - b[1] * c[0])) /
           6.0;
}

/* ------------------------------------------------------------ boundary */

typedef struct face_key {
    uint32_t sorted[3];
    uint32_t tet, local;
} face_key;

static int compare_faces(const void *a, const void *b)
{
    const face_key *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x->sorted[k] != y->sorted[k])
            return x->sorted[k] < y->sorted[k] ? -1 : 1;
    if (x->tet != y->tet)
        return x->tet < y->tet ? -1 : 1;
    return x->local < y->local ? -1 : x->local > y->local;
}

/* Faces of a positively oriented tetrahedron, counter-clockwise seen from outside. */
static const int tet_faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

/* The 4 tet_count faces of the tetrahedra, sorted so that a shared face's
 * keys are neighbours (malloc'd; NULL when out of memory). */
static face_key *sorted_faces(const uint32_t *tets, uint32_t tet_count)
{
    const size_t n = 4 * (size_t)tet_count;
    face_key *f = malloc(sizeof *f * (n + 1));
    if (!f)
        return NULL;
    for (uint32_t t = 0; t < tet_count; t++)
        for (uint32_t l = 0; l < 4; l++) {
            const uint32_t *q = tets + 4 * (size_t)t;
            uint32_t a = q[tet_faces[l][0]], c = q[tet_faces[l][1]], d = q[tet_faces[l][2]], s;
            if (a > c) { s = a; a = c; c = s; }
            if (c > d) { s = c; c = d; d = s; }
            if (a > c) { s = a; a = c; c = s; }
            f[4 * (size_t)t + l] = (face_key){{a, c, d}, t, l};
        }
    qsort(f, n, sizeof *f, compare_faces);
    return f;
}

int sinew_tet_boundary(const uint32_t *tets, uint32_t tet_count, uint32_t *tris, uint32_t *count,
                       uint32_t *overshared)
{
    const size_t n = 4 * (size_t)tet_count;
    face_key *f = sorted_faces(tets, tet_count);
    if (!f)
        return 0;
    uint32_t made = 0, shared = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && memcmp(f[j].sorted, f[i].sorted, sizeof f[i].sorted) == 0)
            j++;
        if (j - i == 1) {
            const uint32_t *q = tets + 4 * (size_t)f[i].tet;
            const int *l = tet_faces[f[i].local];
            for (int k = 0; k < 3; k++)
                tris[3 * (size_t)made + k] = q[l[k]];
            made++;
        }
        shared += j - i > 2;
        i = j;
    }
    free(f);
    *count = made;
    if (overshared)
        *overshared = shared;
    return 1;
}

double sinew_surface_enclosed_volume(const sinew_mesh *m)
{
    static const double zero[3] = {0, 0, 0};
    double v = 0.0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        const uint32_t *idx = m->face_indices + m->face_offsets[f];
        uint32_t k = m->face_offsets[f + 1] - m->face_offsets[f];
        const double *p0 = m->positions + 3 * (size_t)idx[0];
        for (uint32_t i = 1; i + 1 < k; i++)
            v += sinew_tet_signed_volume(zero, p0, m->positions + 3 * (size_t)idx[i],
                                         m->positions + 3 * (size_t)idx[i + 1]);
    }
    return v;
}

/* ------------------------------------------------------------ box */

sinew_result sinew_volume_box(uint32_t nx, uint32_t ny, uint32_t nz, const double size[3],
                              const double origin[3], sinew_volume *out)
{
    SINEW_ASSERT(out && size);
    memset(out, 0, sizeof *out);
    if (nx < 2 || ny < 2 || nz < 2)
        return SINEW_RESULT_ERROR_INVALID_ARGUMENT;
    for (int k = 0; k < 3; k++)
        if (!(size[k] > 0.0) || !isfinite(size[k]) || (origin && !isfinite(origin[k])))
            return SINEW_RESULT_ERROR_INVALID_ARGUMENT;
    uint64_t vcount = (uint64_t)nx * ny * nz, tcount = 6 * (uint64_t)(nx - 1) * (ny - 1) * (nz - 1);
    if (vcount > SINEW_VOLUME_MAX_VERTICES || tcount > SINEW_VOLUME_MAX_TETS)
        return SINEW_RESULT_ERROR_LIMIT;
    out->positions = malloc(sizeof(double) * 3 * vcount);
    out->tets = malloc(sizeof(uint32_t) * 4 * tcount);
    if (!out->positions || !out->tets) {
        sinew_volume_free(out);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    const double zero[3] = {0, 0, 0};
    const double *o = origin ? origin : zero;
    const uint32_t n[3] = {nx, ny, nz};
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t j = 0; j < ny; j++)
            for (uint32_t i = 0; i < nx; i++) {
                const uint32_t ijk[3] = {i, j, k};
                double *p = out->positions + 3 * (((size_t)k * ny + j) * nx + i);
                for (int a = 0; a < 3; a++)
                    p[a] = o[a] + ((double)ijk[a] / (n[a] - 1) - 0.5) * size[a];
            }
    /* The six paths from corner 000 to 111 along the axes, one per permutation
     * (a, b, c): tetrahedron 0, e_a, e_a + e_b, 111. Its orientation is the
     * permutation's sign, det[e_a, e_b, e_c]; odd ones swap their middle
     * vertices. Every cell uses the same diagonal, so the triangulations of
     * neighbouring cells agree on their shared face. */
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    const uint32_t stride[3] = {1, nx, nx * ny};
    uint32_t *t = out->tets;
    for (uint32_t k = 0; k + 1 < nz; k++)
        for (uint32_t j = 0; j + 1 < ny; j++)
            for (uint32_t i = 0; i + 1 < nx; i++) {
                uint32_t base = (k * ny + j) * nx + i;
                for (int p = 0; p < 6; p++) {
                    uint32_t v1 = base + stride[perms[p][0]], v2 = v1 + stride[perms[p][1]];
                    uint32_t v3 = base + stride[0] + stride[1] + stride[2];
                    int odd = p >= 3;
                    t[0] = base;
                    t[1] = odd ? v2 : v1;
                    t[2] = odd ? v1 : v2;
                    t[3] = v3;
                    t += 4;
                }
            }
    out->vertex_count = (uint32_t)vcount;
    out->tet_count = (uint32_t)tcount;
    return SINEW_RESULT_OK;
}

/* ------------------------------------------------------------ checks */

static sinew_result check_indices(const sinew_volume *v, const char *name, const sinew_logger *lg, uint32_t *used)
{
    for (uint32_t t = 0; t < v->tet_count; t++) {
        const uint32_t *q = v->tets + 4 * (size_t)t;
        for (int a = 0; a < 4; a++) {
            if (q[a] >= v->vertex_count)
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                                  "%s: tetrahedron %u: vertex index %u out of range (%u vertices)", name, t, q[a],
                                  v->vertex_count);
            for (int b = 0; b < a; b++)
                if (q[a] == q[b])
                    return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                                      "%s: tetrahedron %u (%u %u %u %u) repeats vertex %u", name, t, q[0], q[1],
                                      q[2], q[3], q[a]);
            used[q[a]] = 0;
        }
    }
    return SINEW_RESULT_OK;
}

/* The largest coordinate of the vertices in use (all when used is NULL). */
static double largest_coordinate(const sinew_volume *v, const uint32_t *used)
{
    double extent = 0.0;
    for (uint32_t i = 0; i < v->vertex_count; i++)
        for (int k = 0; (!used || used[i] != NONE) && k < 3; k++)
            extent = fmax(extent, fabs(v->positions[3 * (size_t)i + k]));
    return extent;
}

int sinew_tet_degenerate(const sinew_volume *v, uint32_t t, double extent, double *volume, double *longest,
                         double *floor)
{
    const uint32_t *q = v->tets + 4 * (size_t)t;
    const double *p = v->positions;
    const double *x[4] = {p + 3 * (size_t)q[0], p + 3 * (size_t)q[1], p + 3 * (size_t)q[2], p + 3 * (size_t)q[3]};
    double vol = sinew_tet_signed_volume(x[0], x[1], x[2], x[3]), longest2 = 0.0;
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++) {
            double d2 = 0.0;
            for (int k = 0; k < 3; k++)
                d2 += (x[a][k] - x[b][k]) * (x[a][k] - x[b][k]);
            longest2 = fmax(longest2, d2);
        }
    const double shape_floor = 1e-9 * longest2 * sqrt(longest2);
    const double float_floor = 2.0 * FLT_EPSILON * extent * longest2;
    if (volume)
        *volume = vol;
    if (longest)
        *longest = sqrt(longest2);
    if (floor)
        *floor = fmax(shape_floor, float_floor);
    return !(fabs(vol) > shape_floor) ? 1 : !(fabs(vol) > float_floor) ? 2 : 0;
}

/* Every tetrahedron checked by sinew_tet_degenerate: both tests are relative,
 * so a small, well-shaped tetrahedron in a large mesh is kept. */
static sinew_result check_volumes(sinew_volume *v, const char *name, const sinew_logger *lg, const uint32_t *used,
                                  uint32_t *flipped)
{
    const double extent = largest_coordinate(v, used);
    uint32_t first_flipped = NONE;
    for (uint32_t t = 0; t < v->tet_count; t++) {
        uint32_t *q = v->tets + 4 * (size_t)t;
        double vol, longest, floor;
        int why = sinew_tet_degenerate(v, t, extent, &vol, &longest, &floor);
        if (why)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                              "%s: tetrahedron %u (%u %u %u %u) has volume %.3g m^3 with a longest edge of %.3g m: "
                              "degenerate (%s, %.3g m^3)",
                              name, t, q[0], q[1], q[2], q[3], vol, longest,
                              why == 1 ? "flat: at most 1e-9 of its longest edge cubed"
                                       : "its orientation is lost when its corners are rounded to single precision",
                              floor);
        if (vol < 0.0) {
            uint32_t s = q[2];
            q[2] = q[3];
            q[3] = s;
            if ((*flipped)++ == 0)
                first_flipped = t;
        }
    }
    if (*flipped)
        sinew_logf(lg, SINEW_LOG_WARNING, "prep",
                   "%s: %u tetrahedra were negatively oriented and had two vertices swapped, first: tetrahedron %u",
                   name, *flipped, first_flipped);
    return SINEW_RESULT_OK;
}

uint32_t sinew_volume_drop_degenerate(sinew_volume *v, uint32_t *first)
{
    const double extent = largest_coordinate(v, NULL);
    uint8_t *keep = malloc((size_t)v->tet_count + 1);
    uint32_t dropped = 0;
    if (!keep)
        return 0;
    for (uint32_t t = 0; t < v->tet_count; t++) {
        keep[t] = !sinew_tet_degenerate(v, t, extent, NULL, NULL, NULL);
        if (!keep[t] && dropped++ == 0 && first)
            *first = t;
    }
    if (dropped)
        sinew_volume_keep_tets(v, keep);
    free(keep);
    return dropped;
}

/* used[i] becomes vertex i's new index, or NONE. */
static void drop_unused(sinew_volume *v, const char *name, const sinew_logger *lg, uint32_t *used,
                        uint32_t *old_index, uint32_t *dropped)
{
    uint32_t n = 0, first = NONE;
    for (uint32_t i = 0; i < v->vertex_count; i++) {
        if (used[i] == NONE) {
            if ((*dropped)++ == 0)
                first = i;
            continue;
        }
        if (old_index)
            old_index[n] = i;
        if (n != i)
            memcpy(v->positions + 3 * (size_t)n, v->positions + 3 * (size_t)i, 3 * sizeof(double));
        used[i] = n++;
    }
    for (size_t k = 0; *dropped && k < 4 * (size_t)v->tet_count; k++)
        v->tets[k] = used[v->tets[k]];
    if (*dropped)
        sinew_logf(lg, SINEW_LOG_WARNING, "prep", "%s: removed %u vertices that no tetrahedron uses, first: vertex %u",
                   name, *dropped, first);
    v->vertex_count = n;
}

sinew_result sinew_volume_check(sinew_volume *v, const char *name, const sinew_logger *lg, sinew_volume_fixes *fixes,
                                uint32_t *old_index)
{
    SINEW_ASSERT(v && (v->positions || v->vertex_count == 0) && (v->tets || v->tet_count == 0));
    sinew_volume_fixes fx = {0};
    if (fixes)
        *fixes = fx;
    name = name ? name : "volume";
    if (v->vertex_count > SINEW_VOLUME_MAX_VERTICES || v->tet_count > SINEW_VOLUME_MAX_TETS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep",
                          "%s: %u vertices and %u tetrahedra exceed the limits of %u and %u", name, v->vertex_count,
                          v->tet_count, SINEW_VOLUME_MAX_VERTICES, SINEW_VOLUME_MAX_TETS);
    if (v->tet_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: no tetrahedra", name);
    for (uint32_t i = 0; i < v->vertex_count; i++)
        for (int k = 0; k < 3; k++)
            if (!(fabs(v->positions[3 * (size_t)i + k]) <= FLT_MAX))
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                                  "%s: vertex %u has a coordinate (%g) that is not finite in single precision", name,
                                  i, v->positions[3 * (size_t)i + k]);
    uint32_t *used = malloc(sizeof(uint32_t) * ((size_t)v->vertex_count + 1));
    if (!used)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
    memset(used, 0xff, sizeof(uint32_t) * v->vertex_count);
    sinew_result r = check_indices(v, name, lg, used);
    if (r == SINEW_RESULT_OK)
        r = check_volumes(v, name, lg, used, &fx.flipped_tets);
    if (r == SINEW_RESULT_OK)
        drop_unused(v, name, lg, used, old_index, &fx.dropped_vertices);
    free(used);
    if (fixes)
        *fixes = fx;
    return r;
}

/* ------------------------------------------------------------ closed surfaces */

static int compare_half_edges(const void *a, const void *b)
{
    const sinew_half_edge *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->face < y->face ? -1 : x->face > y->face;
}

size_t sinew_surface_half_edges(const sinew_mesh *m, sinew_half_edge *h)
{
    size_t n = 0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        uint32_t begin = m->face_offsets[f], k = m->face_offsets[f + 1] - begin;
        for (uint32_t i = 0; i < k; i++) {
            uint32_t a = m->face_indices[begin + i], b = m->face_indices[begin + (i + 1) % k];
            h[n++] = (sinew_half_edge){a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a, f, a < b};
        }
    }
    qsort(h, n, sizeof *h, compare_half_edges);
    return n;
}

static sinew_result check_faces(const sinew_mesh *m, const char *name, const sinew_logger *lg, uint32_t *stamp)
{
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(m->positions[3 * (size_t)i + k]))
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: vertex %u has a non-finite coordinate",
                                  name, i);
    for (uint32_t f = 0; f < m->face_count; f++) {
        uint32_t begin = m->face_offsets[f], end = m->face_offsets[f + 1];
        if (end < begin + 3)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: face %u has fewer than 3 vertices", name,
                              f);
        for (uint32_t k = begin; k < end; k++) {
            uint32_t v = m->face_indices[k];
            if (v >= m->vertex_count)
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                                  "%s: face %u: vertex index %u out of range (%u vertices)", name, f, v,
                                  m->vertex_count);
            if (stamp[v] == f)
                return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: face %u repeats vertex %u", name, f,
                                  v);
            stamp[v] = f;
        }
    }
    return SINEW_RESULT_OK;
}

/* Sorted half-edges come in runs of one edge: a closed, manifold, consistently
 * oriented surface has exactly two per edge, in opposite directions. */
static sinew_result check_edges(const sinew_mesh *m, const char *name, const sinew_logger *lg, sinew_half_edge *h)
{
    size_t n = sinew_surface_half_edges(m, h);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && h[j].key == h[i].key)
            j++;
        uint32_t a = (uint32_t)(h[i].key >> 32), b = (uint32_t)h[i].key;
        if (j - i == 1)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                              "%s: edge %u-%u is on one face only (face %u): the surface is not closed", name, a, b,
                              h[i].face);
        if (j - i > 2)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                              "%s: edge %u-%u is shared by %zu faces (%u, %u, %u%s): the surface is not manifold",
                              name, a, b, j - i, h[i].face, h[i + 1].face, h[i + 2].face, j - i > 3 ? ", ..." : "");
        if (h[i].forward == h[i + 1].forward)
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep",
                              "%s: faces %u and %u both run along edge %u-%u from %u to %u: the faces are not "
                              "consistently oriented",
                              name, h[i].face, h[i + 1].face, a, b, h[i].forward ? a : b, h[i].forward ? b : a);
        i = j;
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_surface_check_closed(const sinew_mesh *m, const char *name, const sinew_logger *lg)
{
    SINEW_ASSERT(m && (m->positions || m->vertex_count == 0) && (m->face_offsets || m->face_count == 0));
    name = name ? name : "surface";
    if (m->face_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "prep", "%s: no faces", name);
    uint32_t *stamp = malloc(sizeof(uint32_t) * ((size_t)m->vertex_count + 1));
    sinew_half_edge *h = malloc(sizeof *h * ((size_t)m->face_offsets[m->face_count] + 1));
    sinew_result r = SINEW_RESULT_OK;
    if (!stamp || !h)
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
    if (r == SINEW_RESULT_OK) {
        memset(stamp, 0xff, sizeof(uint32_t) * m->vertex_count);
        r = check_faces(m, name, lg, stamp);
    }
    if (r == SINEW_RESULT_OK)
        r = check_edges(m, name, lg, h);
    free(stamp);
    free(h);
    return r;
}

/* ------------------------------------------------------------ pieces */

static uint32_t find_root(uint32_t *parent, uint32_t t)
{
    while (parent[t] != t) {
        parent[t] = parent[parent[t]];
        t = parent[t];
    }
    return t;
}

uint32_t sinew_volume_pieces(const sinew_volume *v, uint32_t *piece)
{
    SINEW_ASSERT(v && piece && (v->tets || v->tet_count == 0));
    const size_t faces = 4 * (size_t)v->tet_count;
    face_key *f = sorted_faces(v->tets, v->tet_count);
    uint32_t *parent = malloc(sizeof *parent * ((size_t)v->tet_count + 1));
    if (!f || !parent) {
        free(f);
        free(parent);
        return 0;
    }
    for (uint32_t t = 0; t < v->tet_count; t++)
        parent[t] = t;
    for (size_t i = 1; i < faces; i++)
        if (!memcmp(f[i].sorted, f[i - 1].sorted, sizeof f[i].sorted)) {
            uint32_t a = find_root(parent, f[i].tet), b = find_root(parent, f[i - 1].tet);
            if (a != b)
                parent[a > b ? a : b] = a < b ? a : b; /* the lower index is the root: a fixed numbering */
        }
    uint32_t count = 0;
    for (uint32_t t = 0; t < v->tet_count; t++) {
        uint32_t root = find_root(parent, t);
        piece[t] = root == t ? count++ : piece[root];
    }
    free(f);
    free(parent);
    return count;
}

void sinew_volume_keep_tets(sinew_volume *v, const uint8_t *keep)
{
    SINEW_ASSERT(v && keep);
    uint32_t kept = 0;
    for (uint32_t t = 0; t < v->tet_count; t++) {
        if (!keep[t])
            continue;
        memmove(v->tets + 4 * (size_t)kept, v->tets + 4 * (size_t)t, 4 * sizeof(uint32_t));
        if (v->regions)
            v->regions[kept] = v->regions[t];
        kept++;
    }
    v->tet_count = kept;
}
