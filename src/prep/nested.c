/* Nested triangle meshes by 1 -> 4 subdivision (nested.h). */
#include "nested.h"

#include <stdlib.h>
#include <string.h>

#include "../asset/asset.h"
#include "../core/log.h"
#include "cloth.h"

#define NESTED_MAX (1u << 26)

typedef struct nested_edge {
    uint32_t lo, hi, corner; /* corner: 3 * triangle + which edge (ab, bc, ca) */
} nested_edge;

static int edge_cmp(const void *x, const void *y)
{
    const nested_edge *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return (a->corner > b->corner) - (a->corner < b->corner);
}

void sinew_nested_free(sinew_nested *n)
{
    if (!n)
        return;
    for (uint32_t l = 0; l < SINEW_NESTED_MAX_LEVELS; l++) {
        free(n->levels[l].triangles);
        free(n->levels[l].colour_offsets);
        free(n->levels[l].colour_vertices);
    }
    free(n->positions);
    free(n->parents);
    memset(n, 0, sizeof *n);
}

/* The sorted edges of t triangles; *unique gets the number of distinct ones
 * and mid[corner] the rank of each corner's edge among them. */
static nested_edge *sorted_edges(const uint32_t *tri, uint32_t t, uint32_t *mid, uint32_t *unique)
{
    nested_edge *e = malloc(sizeof *e * (3 * (size_t)t + 1));
    if (!e)
        return NULL;
    for (uint32_t k = 0; k < t; k++)
        for (uint32_t c = 0; c < 3; c++) {
            uint32_t u = tri[3 * k + c], v = tri[3 * k + (c + 1) % 3];
            e[3 * k + c] = (nested_edge){u < v ? u : v, u < v ? v : u, 3 * k + c};
        }
    qsort(e, 3 * (size_t)t, sizeof *e, edge_cmp);
    uint32_t count = 0;
    for (uint32_t i = 0; i < 3 * t; i++) {
        if (i == 0 || e[i].lo != e[i - 1].lo || e[i].hi != e[i - 1].hi)
            count++;
        mid[e[i].corner] = count - 1;
    }
    *unique = count;
    return e;
}

/* Greedy distance-1 colouring of the level's vertices over the graph of the
 * cloth's system matrix: the triangles' edges, and the two wing vertices of
 * each edge two triangles share (a bending hinge couples them). */
static int colour_level(sinew_nested_level *L)
{
    const uint32_t n = L->vertex_count, t = L->triangle_count;
    uint32_t *hinge = NULL, hinges = 0;
    sinew_result hr = sinew_triangle_hinges(L->triangles, t, &hinge, &hinges);
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *adj = malloc(sizeof *adj * (6 * (size_t)t + 2 * (size_t)hinges + 1));
    uint32_t *fill = malloc(sizeof *fill * ((size_t)n + 1));
    uint32_t *colour = malloc(sizeof *colour * ((size_t)n + 1));
    uint8_t *used = calloc(65, 1);
    int ok = hr == SINEW_RESULT_OK && start && adj && fill && colour && used;
    if (ok) {
        for (uint32_t k = 0; k < 3 * t; k++)
            start[L->triangles[k] + 1] += 2;
        for (uint32_t k = 0; k < hinges; k++) {
            start[hinge[4 * k + 2] + 1]++;
            start[hinge[4 * k + 3] + 1]++;
        }
        for (uint32_t i = 0; i < n; i++)
            start[i + 1] += start[i];
        memcpy(fill, start, sizeof *fill * n);
        for (uint32_t k = 0; k < t; k++)
            for (uint32_t c = 0; c < 3; c++) {
                uint32_t v = L->triangles[3 * k + c];
                adj[fill[v]++] = L->triangles[3 * k + (c + 1) % 3];
                adj[fill[v]++] = L->triangles[3 * k + (c + 2) % 3];
            }
        for (uint32_t k = 0; k < hinges; k++) { /* the wings a bending hinge couples */
            adj[fill[hinge[4 * k + 2]]++] = hinge[4 * k + 3];
            adj[fill[hinge[4 * k + 3]]++] = hinge[4 * k + 2];
        }
        /* Breadth-first order from vertex 0 (then from each vertex not yet
         * reached): on a regular lattice greedy colouring in that order finds
         * few colours, where index order finds the degree's bound. */
        uint32_t *order = fill; /* reused: the queue */
        for (uint32_t v = 0; v < n; v++)
            colour[v] = UINT32_MAX;
        uint32_t head = 0, tail = 0;
        for (uint32_t s = 0; s < n; s++) {
            if (colour[s] == UINT32_MAX) {
                colour[s] = UINT32_MAX - 1; /* queued */
                order[tail++] = s;
            }
            while (head < tail) {
                uint32_t v = order[head++];
                for (uint32_t j = start[v]; j < start[v + 1]; j++)
                    if (colour[adj[j]] == UINT32_MAX) {
                        colour[adj[j]] = UINT32_MAX - 1;
                        order[tail++] = adj[j];
                    }
            }
        }
        uint32_t colours = 0;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t v = order[k];
            memset(used, 0, 65);
            for (uint32_t j = start[v]; j < start[v + 1]; j++)
                if (colour[adj[j]] < 64)
                    used[colour[adj[j]]] = 1;
            uint32_t c = 0;
            while (c < 64 && used[c])
                c++;
            colour[v] = c; /* 64 would need a vertex of 64 neighbours: refused below */
            if (c + 1 > colours)
                colours = c + 1;
        }
        ok = colours <= 64;
        L->colour_offsets = ok ? calloc(colours + 1, sizeof *L->colour_offsets) : NULL;
        L->colour_vertices = ok ? malloc(sizeof *L->colour_vertices * ((size_t)n + 1)) : NULL;
        ok = L->colour_offsets && L->colour_vertices;
        if (ok) {
            L->colour_count = colours;
            for (uint32_t v = 0; v < n; v++)
                L->colour_offsets[colour[v] + 1]++;
            for (uint32_t c = 0; c < colours; c++)
                L->colour_offsets[c + 1] += L->colour_offsets[c];
            memcpy(fill, L->colour_offsets, sizeof *fill * colours);
            for (uint32_t v = 0; v < n; v++)
                L->colour_vertices[fill[colour[v]]++] = v;
        }
    }
    free(hinge);
    free(start);
    free(adj);
    free(fill);
    free(colour);
    free(used);
    return ok;
}

static sinew_result check_coarse(const sinew_mesh *m, const sinew_logger *lg)
{
    if (m->vertex_count == 0 || m->face_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "nested", "the coarse mesh has no triangles");
    uint8_t *used = calloc(m->vertex_count, 1);
    if (!used)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "nested", "out of host memory");
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t f = 0; f < m->face_count && r == SINEW_RESULT_OK; f++) {
        uint32_t b = m->face_offsets[f], e = m->face_offsets[f + 1];
        if (e < b || e - b != 3) {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "nested",
                           "face %u has %d corners; the coarse mesh must be triangles (split quads first)", f,
                           e < b ? -1 : (int)(e - b));
            break;
        }
        const uint32_t *v = &m->face_indices[b];
        for (int c = 0; c < 3; c++)
            if (v[c] >= m->vertex_count) {
                r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "nested", "triangle %u names vertex %u of %u", f,
                               v[c], m->vertex_count);
                break;
            }
        if (r != SINEW_RESULT_OK)
            break;
        const double *a = &m->positions[3 * v[0]], *p = &m->positions[3 * v[1]], *q = &m->positions[3 * v[2]];
        double e1[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]}, e2[3] = {q[0] - a[0], q[1] - a[1], q[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double area2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        double scale = (e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]) * (e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
        if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2] || !(area2 > 1e-24 * scale) || !(scale > 0.0))
            r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "nested", "triangle %u (%u %u %u) is degenerate", f,
                           v[0], v[1], v[2]);
        for (int c = 0; c < 3; c++)
            used[v[c]] = 1;
    }
    for (uint32_t i = 0; i < m->vertex_count && r == SINEW_RESULT_OK; i++)
        if (!used[i])
            r = sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "nested", "vertex %u is on no triangle", i);
    free(used);
    return r;
}

sinew_result sinew_nested_subdivide(const sinew_mesh *coarse, uint32_t subdivisions, const sinew_logger *lg,
                                    sinew_nested *out)
{
    SINEW_ASSERT(coarse && out);
    memset(out, 0, sizeof *out);
    if (subdivisions >= SINEW_NESTED_MAX_LEVELS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "nested", "%u subdivisions; at most %u", subdivisions,
                          SINEW_NESTED_MAX_LEVELS - 1);
    sinew_result r = check_coarse(coarse, lg);
    if (r != SINEW_RESULT_OK)
        return r;

    /* Sizes of every level first: T' = 4T, E' = 2E + 3T, V' = V + E. */
    const uint32_t t0 = coarse->face_count;
    uint32_t *mid = malloc(sizeof *mid * (3 * (size_t)t0 + 1));
    uint32_t e0 = 0;
    nested_edge *e = NULL;
    uint32_t *tri = malloc(sizeof *tri * 3 * (size_t)t0);
    int counted = 0;
    if (tri && mid) {
        for (uint32_t f = 0; f < t0; f++)
            memcpy(&tri[3 * f], &coarse->face_indices[coarse->face_offsets[f]], sizeof *tri * 3);
        e = sorted_edges(tri, t0, mid, &e0);
        counted = e != NULL;
    }
    free(e);
    free(mid);
    if (!counted) {
        free(tri);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "nested", "out of host memory");
    }
    uint64_t v = coarse->vertex_count, t = t0, edges = e0;
    for (uint32_t l = 0; l < subdivisions; l++) {
        v += edges;
        edges = 2 * edges + 3 * t;
        t *= 4;
        if (v > NESTED_MAX || t > NESTED_MAX) {
            free(tri);
            return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "nested",
                              "%u subdivisions of %u triangles pass %u vertices or triangles", subdivisions, t0,
                              NESTED_MAX);
        }
    }
    out->level_count = subdivisions + 1;
    out->positions = malloc(sizeof *out->positions * 3 * v);
    out->parents = malloc(sizeof *out->parents * 2 * v);
    sinew_nested_level *L0 = &out->levels[0];
    L0->vertex_count = coarse->vertex_count;
    L0->triangle_count = t0;
    L0->triangles = tri; /* the input's triangles, consecutive */
    if (!out->positions || !out->parents || !L0->triangles) {
        sinew_nested_free(out);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "nested", "out of host memory");
    }
    memcpy(out->positions, coarse->positions, sizeof *out->positions * 3 * coarse->vertex_count);
    for (uint32_t i = 0; i < 2 * coarse->vertex_count; i++)
        out->parents[i] = UINT32_MAX;

    for (uint32_t l = 1; l < out->level_count; l++) {
        const sinew_nested_level *P = &out->levels[l - 1];
        sinew_nested_level *L = &out->levels[l];
        uint32_t unique = 0;
        mid = malloc(sizeof *mid * (3 * (size_t)P->triangle_count + 1));
        e = mid ? sorted_edges(P->triangles, P->triangle_count, mid, &unique) : NULL;
        L->triangle_count = 4 * P->triangle_count;
        L->vertex_count = P->vertex_count + unique;
        L->triangles = malloc(sizeof *L->triangles * 3 * (size_t)L->triangle_count);
        if (!e || !L->triangles) {
            free(mid);
            free(e);
            sinew_nested_free(out);
            return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "nested", "out of host memory");
        }
        for (uint32_t i = 0; i < 3 * P->triangle_count; i++) {
            uint32_t m = P->vertex_count + mid[e[i].corner];
            out->parents[2 * m] = e[i].lo;
            out->parents[2 * m + 1] = e[i].hi;
            for (int d = 0; d < 3; d++)
                out->positions[3 * m + d] = 0.5 * (out->positions[3 * e[i].lo + d] + out->positions[3 * e[i].hi + d]);
        }
        for (uint32_t k = 0; k < P->triangle_count; k++) {
            const uint32_t *c = &P->triangles[3 * k];
            uint32_t ab = P->vertex_count + mid[3 * k], bc = P->vertex_count + mid[3 * k + 1],
                     ca = P->vertex_count + mid[3 * k + 2];
            const uint32_t four[12] = {c[0], ab, ca, ab, c[1], bc, ca, bc, c[2], ab, bc, ca};
            memcpy(&L->triangles[12 * (size_t)k], four, sizeof four);
        }
        free(mid);
        free(e);
    }
    for (uint32_t l = 0; l < out->level_count; l++)
        if (!colour_level(&out->levels[l])) {
            sinew_nested_free(out);
            return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_MESH, "nested",
                              "level %u could not be coloured in 64 colours (a vertex on very many triangles?)", l);
        }
    return SINEW_RESULT_OK;
}

void sinew_nested_restrict(const sinew_nested *n, uint32_t level, uint32_t width, const double *fine, double *coarse)
{
    SINEW_ASSERT(level >= 1 && level < n->level_count);
    const uint32_t nc = n->levels[level - 1].vertex_count, nf = n->levels[level].vertex_count;
    memcpy(coarse, fine, sizeof *coarse * width * nc);
    for (uint32_t m = nc; m < nf; m++)
        for (int p = 0; p < 2; p++) {
            uint32_t i = n->parents[2 * m + p];
            for (uint32_t d = 0; d < width; d++)
                coarse[width * i + d] += 0.5 * fine[width * m + d];
        }
}

void sinew_nested_prolong(const sinew_nested *n, uint32_t level, uint32_t width, const double *coarse, double *fine)
{
    SINEW_ASSERT(level >= 1 && level < n->level_count);
    const uint32_t nc = n->levels[level - 1].vertex_count, nf = n->levels[level].vertex_count;
    memcpy(fine, coarse, sizeof *fine * width * nc);
    for (uint32_t m = nc; m < nf; m++) {
        uint32_t a = n->parents[2 * m], b = n->parents[2 * m + 1];
        for (uint32_t d = 0; d < width; d++)
            fine[width * m + d] = 0.5 * (coarse[width * a + d] + coarse[width * b + d]);
    }
}

int sinew_nested_colouring_is_valid(const sinew_nested *n)
{
    for (uint32_t l = 0; l < n->level_count; l++) {
        const sinew_nested_level *L = &n->levels[l];
        uint32_t *colour = malloc(sizeof *colour * ((size_t)L->vertex_count + 1));
        if (!colour)
            return 0;
        for (uint32_t v = 0; v < L->vertex_count; v++)
            colour[v] = UINT32_MAX;
        int ok = L->colour_count > 0 && L->colour_offsets[0] == 0 &&
                 L->colour_offsets[L->colour_count] == L->vertex_count;
        for (uint32_t c = 0; ok && c < L->colour_count; c++)
            for (uint32_t j = L->colour_offsets[c]; ok && j < L->colour_offsets[c + 1]; j++) {
                uint32_t v = L->colour_vertices[j];
                ok = v < L->vertex_count && colour[v] == UINT32_MAX;
                if (ok)
                    colour[v] = c;
            }
        for (uint32_t k = 0; ok && k < L->triangle_count; k++) {
            const uint32_t *t = &L->triangles[3 * k];
            ok = colour[t[0]] != colour[t[1]] && colour[t[1]] != colour[t[2]] && colour[t[0]] != colour[t[2]];
        }
        /* The wings of each edge two triangles share. */
        uint32_t *h = NULL, hinges = 0;
        ok = ok && sinew_triangle_hinges(L->triangles, L->triangle_count, &h, &hinges) == SINEW_RESULT_OK;
        for (uint32_t k = 0; ok && k < hinges; k++)
            ok = colour[h[4 * k + 2]] != colour[h[4 * k + 3]];
        free(h);
        free(colour);
        if (!ok)
            return 0;
    }
    return 1;
}

sinew_result sinew_nested_hinges(const sinew_nested_level *L, uint32_t **hinges, uint32_t *count)
{
    return sinew_triangle_hinges(L->triangles, L->triangle_count, hinges, count);
}

sinew_result sinew_nested_finest_mesh(const sinew_nested *n, sinew_mesh *out)
{
    memset(out, 0, sizeof *out);
    const sinew_nested_level *F = &n->levels[n->level_count - 1];
    out->positions = malloc(sizeof *out->positions * 3 * (size_t)F->vertex_count);
    out->face_offsets = malloc(sizeof *out->face_offsets * ((size_t)F->triangle_count + 1));
    out->face_indices = malloc(sizeof *out->face_indices * 3 * (size_t)F->triangle_count);
    if (!out->positions || !out->face_offsets || !out->face_indices) {
        sinew_mesh_free(out);
        return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    out->vertex_count = F->vertex_count;
    out->face_count = F->triangle_count;
    memcpy(out->positions, n->positions, sizeof *out->positions * 3 * F->vertex_count);
    memcpy(out->face_indices, F->triangles, sizeof *out->face_indices * 3 * F->triangle_count);
    for (uint32_t f = 0; f <= F->triangle_count; f++)
        out->face_offsets[f] = 3 * f;
    return SINEW_RESULT_OK;
}

sinew_result sinew_nested_cloth(const sinew_mesh *coarse, uint32_t subdivisions, const sinew_cloth_options *opt,
                                const sinew_logger *lg, sinew_nested *nested, sinew_asset **out)
{
    *out = NULL;
    sinew_nested n;
    sinew_mesh fine = {0};
    sinew_result r = sinew_nested_subdivide(coarse, subdivisions, lg, &n);
    if (r != SINEW_RESULT_OK)
        return r;
    r = sinew_nested_finest_mesh(&n, &fine);
    if (r == SINEW_RESULT_OK)
        r = sinew_cloth_build(&fine, opt, lg, out, NULL);
    if (r == SINEW_RESULT_OK && (r = sinew_nested_attach(*out, &n, lg)) != SINEW_RESULT_OK) {
        sinew_asset_destroy(*out);
        *out = NULL;
    }
    sinew_mesh_free(&fine);
    if (nested && r == SINEW_RESULT_OK)
        *nested = n;
    else
        sinew_nested_free(&n);
    return r;
}

sinew_result sinew_nested_attach(sinew_asset *a, const sinew_nested *n, const sinew_logger *lg)
{
    const uint32_t L = n->level_count;
    const sinew_nested_level *F = &n->levels[L - 1];
    if (L < 2 || L > SINEW_ASSET_MAX_MLEVELS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "nested", "%u levels; an asset holds 2 to %u", L,
                          SINEW_ASSET_MAX_MLEVELS);
    int same = a->particle_count == F->vertex_count && a->triangle_count == F->triangle_count;
    for (uint32_t k = 0; same && k < F->triangle_count; k++)
        same = !memcmp(a->triangles[k].v, &F->triangles[3 * k], sizeof a->triangles[k].v);
    if (!same)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "nested",
                          "the asset's %u particles and %u triangles are not the finest level's %u and %u, in order",
                          a->particle_count, a->triangle_count, F->vertex_count, F->triangle_count);
    uint32_t triangles = 0, colours = 0, vertices = 0;
    for (uint32_t l = 0; l < L; l++) {
        if (l + 1 < L)
            triangles += n->levels[l].triangle_count;
        colours += n->levels[l].colour_count;
        vertices += n->levels[l].vertex_count;
    }
    if (!sinew_asset_alloc_multigrid(a, L, triangles, colours, vertices))
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "nested", "out of host memory");
    uint32_t t = 0, c = 0, v = 0;
    for (uint32_t l = 0; l < L; l++) {
        const sinew_nested_level *N = &n->levels[l];
        sinew_mlevel_rec *rec = &a->mlevels[l];
        rec->vertex_count = N->vertex_count;
        rec->triangle_begin = l + 1 < L ? t : 0;
        rec->triangle_count = N->triangle_count;
        if (l + 1 < L) {
            memcpy(&a->mtriangles[t], N->triangles, sizeof *a->mtriangles * N->triangle_count);
            t += N->triangle_count;
        }
        rec->colour_begin = c;
        rec->colour_count = N->colour_count;
        for (uint32_t k = 0; k < N->colour_count; k++) {
            a->mcolours[c + k].begin = v + N->colour_offsets[k];
            a->mcolours[c + k].count = N->colour_offsets[k + 1] - N->colour_offsets[k];
        }
        memcpy(&a->mvertices[v], N->colour_vertices, sizeof *a->mvertices * N->vertex_count);
        c += N->colour_count;
        v += N->vertex_count;
    }
    for (uint32_t i = 0; i < F->vertex_count; i++)
        a->parents[i] = (sinew_parents_rec){n->parents[2 * i], n->parents[2 * i + 1]};
    return sinew_asset_validate_multigrid(a, "the subdivided mesh", lg);
}
