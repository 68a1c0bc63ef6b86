/* A render mesh embedded in a tetrahedral simulation mesh (docs/render-mesh.md):
 * each render vertex tied to the tetrahedron that contains it by its
 * barycentric coordinates, as finer render meshes are driven by coarser
 * simulation cages in games and film (the "embedded deformation" of Sifakis
 * et al., "Finite element method for surgical simulation", and of most
 * engines' soft-body skinning).
 *
 * A uniform grid of the tetrahedra's bounding boxes finds the candidates of
 * a point. A point inside no tetrahedron (a surface vertex just outside a
 * lattice or a tetrahedralisation that rounded its corners) takes the one
 * whose clamped barycentric point is nearest, over all tetrahedra, with its
 * barycentrics clamped to [0, 1] and renormalised.
 */
#include "embed.h"

#include "core/log.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Barycentric coordinates of x in the tetrahedron p0..p3 (double); 0 when it
 * is degenerate. */
static int barycentric(const double p[4][3], const double x[3], double w[4])
{
    double a[3][3], r[3];
    for (int k = 0; k < 3; k++) {
        for (int c = 0; c < 3; c++)
            a[k][c] = p[c + 1][k] - p[0][k];
        r[k] = x[k] - p[0][k];
    }
    double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                 a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    if (!(fabs(det) > 0.0))
        return 0;
    /* Cramer's rule. */
    for (int c = 0; c < 3; c++) {
        double m[3][3];
        memcpy(m, a, sizeof m);
        for (int k = 0; k < 3; k++)
            m[k][c] = r[k];
        w[c + 1] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                    m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])) / det;
    }
    w[0] = 1.0 - w[1] - w[2] - w[3];
    return 1;
}

/* Clamps w to [0, 1], renormalised; the squared distance from x to the point
 * the clamped weights give. */
static double clamp_weights(const double p[4][3], const double x[3], double w[4])
{
    double sum = 0.0;
    for (int k = 0; k < 4; k++) {
        w[k] = w[k] > 0.0 ? w[k] : 0.0;
        sum += w[k];
    }
    for (int k = 0; k < 4; k++)
        w[k] = sum > 0.0 ? w[k] / sum : 0.25;
    double d2 = 0.0;
    for (int c = 0; c < 3; c++) {
        double y = 0.0;
        for (int k = 0; k < 4; k++)
            y += w[k] * p[k][c];
        d2 += (y - x[c]) * (y - x[c]);
    }
    return d2;
}

typedef struct tet_grid {
    double lo[3], cell;
    uint32_t dim[3];
    uint32_t *start, *items; /* CSR: cell -> tetrahedra */
} tet_grid;

static void cell_of(const tet_grid *g, const double x[3], uint32_t c[3])
{
    for (int k = 0; k < 3; k++) {
        double f = floor((x[k] - g->lo[k]) / g->cell);
        c[k] = f < 0.0 ? 0 : f >= g->dim[k] ? g->dim[k] - 1 : (uint32_t)f;
    }
}

static void tet_points(const sinew_asset *a, const uint32_t *v, double p[4][3])
{
    for (int k = 0; k < 4; k++) {
        p[k][0] = a->particles[v[k]].x;
        p[k][1] = a->particles[v[k]].y;
        p[k][2] = a->particles[v[k]].z;
    }
}

static int grid_build(tet_grid *g, const sinew_asset *a, const uint32_t *tets, uint32_t t)
{
    double hi[3];
    for (int k = 0; k < 3; k++) {
        g->lo[k] = DBL_MAX;
        hi[k] = -DBL_MAX;
    }
    for (uint32_t i = 0; i < a->particle_count; i++) {
        const float *q = &a->particles[i].x;
        for (int k = 0; k < 3; k++) {
            g->lo[k] = q[k] < g->lo[k] ? q[k] : g->lo[k];
            hi[k] = q[k] > hi[k] ? q[k] : hi[k];
        }
    }
    double extent = 0.0;
    for (int k = 0; k < 3; k++)
        extent = hi[k] - g->lo[k] > extent ? hi[k] - g->lo[k] : extent;
    /* About one tetrahedron a cell along the longest side's cube root. */
    double side = cbrt((double)t) + 1.0;
    g->cell = extent > 0.0 ? extent / side : 1.0;
    size_t cells = 1;
    for (int k = 0; k < 3; k++) {
        double d = floor((hi[k] - g->lo[k]) / g->cell) + 1.0;
        g->dim[k] = d > 256.0 ? 256u : (uint32_t)d;
        cells *= g->dim[k];
    }
    g->start = calloc(cells + 1, sizeof *g->start);
    if (!g->start)
        return 0;
    /* Two passes: count, then fill; the counts (and the CSR offsets) in
     * 32 bits, so a total past them is refused as memory would be. */
    uint64_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < t; i++) {
            double p[4][3], lo[3], up[3];
            tet_points(a, tets + 4 * (size_t)i, p);
            for (int k = 0; k < 3; k++) {
                lo[k] = up[k] = p[0][k];
                for (int c = 1; c < 4; c++) {
                    lo[k] = p[c][k] < lo[k] ? p[c][k] : lo[k];
                    up[k] = p[c][k] > up[k] ? p[c][k] : up[k];
                }
            }
            uint32_t c0[3], c1[3];
            cell_of(g, lo, c0);
            cell_of(g, up, c1);
            for (uint32_t z = c0[2]; z <= c1[2]; z++)
                for (uint32_t y = c0[1]; y <= c1[1]; y++)
                    for (uint32_t x = c0[0]; x <= c1[0]; x++) {
                        size_t c = x + (size_t)g->dim[0] * (y + (size_t)g->dim[1] * z);
                        if (pass == 0) {
                            if (++total >= UINT32_MAX)
                                return 0;
                            g->start[c + 1]++;
                        }
                        else
                            g->items[g->start[c]++] = i;
                    }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; c++)
                g->start[c + 1] += g->start[c];
            g->items = malloc(sizeof *g->items * ((size_t)g->start[cells] + 1));
            if (!g->items)
                return 0;
        } else {
            for (size_t c = cells; c > 0; c--)
                g->start[c] = g->start[c - 1];
            g->start[0] = 0;
        }
    }
    return 1;
}

/* The library's file name as the asset keeps it: the source's without its
 * folder, or NULL where that is no name the asset can keep. */
static const char *library_file_name(const char *library)
{
    if (!library)
        return NULL;
    const char *base = library;
    for (const char *c = library; *c; c++)
        if (*c == '/' || *c == '\\')
            base = c + 1;
    return sinew_asset_library_name_ok(base, strlen(base)) ? base : NULL;
}

int sinew_render_copy_materials(sinew_asset *a, const sinew_mesh *m)
{
    const sinew_mesh_materials *g = &m->materials;
    if (g->count == 0)
        return 1;
    const char *library = library_file_name(g->library);
    if (sinew_asset_set_render_materials(a, g->count, g->names, g->first, library,
                                         library ? g->library_text : NULL, library ? g->library_size : 0))
        return 1;
    sinew_asset_alloc_render(a, 0, 0);
    return 0;
}

void sinew_render_vertex_surface(sinew_render_vertex_rec *r, const sinew_mesh *m, const float *face_normals, uint32_t i)
{
    const float *n = m->render_normal ? m->render_normal + 3 * (size_t)i : NULL;
    double len = n ? sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]) : 0.0;
    for (int k = 0; k < 3; k++)
        r->normal[k] = len > 0.0 ? (float)(n[k] / len) : face_normals[3 * (size_t)i + k];
    if (m->render_uv) {
        r->mode |= SINEW_RENDER_HAS_UV;
        r->uv[0] = m->render_uv[2 * (size_t)i];
        r->uv[1] = m->render_uv[2 * (size_t)i + 1];
    }
}

sinew_result sinew_render_embed(sinew_asset *a, const sinew_mesh *m, const char *name, const sinew_logger *lg)
{
    SINEW_ASSERT(a && m && name);
    if (m->render_vertex_count == 0)
        return SINEW_RESULT_OK;
    uint32_t t = 0;
    for (uint32_t e = 0; e < a->element_count; e++)
        t += a->elements[e].kind == SINEW_ELEMENT_TET;
    if (t == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                          "%s: no tetrahedra to embed the render mesh in", name);
    uint32_t *tets = malloc(sizeof *tets * 4 * (size_t)t);
    float *face_normals = sinew_mesh_render_face_normals(m);
    tet_grid g = {0};
    int ok = tets && face_normals;
    if (ok) {
        sinew_asset_get_tets(a, tets);
        ok = grid_build(&g, a, tets, t) && sinew_asset_alloc_render(a, m->render_vertex_count, m->render_triangle_count);
    }
    if (!ok) {
        free(tets);
        free(face_normals);
        free(g.start);
        free(g.items);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
    }
    uint32_t outside = 0;
    double worst = 0.0;
    for (uint32_t i = 0; i < m->render_vertex_count; i++) {
        uint32_t v = m->render_vertex[i];
        const double *x = m->positions + 3 * (size_t)(v < m->vertex_count ? v : 0);
        uint32_t c[3];
        cell_of(&g, x, c);
        size_t cell = c[0] + (size_t)g.dim[0] * (c[1] + (size_t)g.dim[1] * c[2]);
        uint32_t best = UINT32_MAX;
        double best_w[4] = {0.25, 0.25, 0.25, 0.25}, best_min = -INFINITY;
        /* Inside: the candidate whose smallest barycentric is largest. */
        for (uint32_t k = g.start[cell]; k < g.start[cell + 1]; k++) {
            double p[4][3], w[4];
            tet_points(a, tets + 4 * (size_t)g.items[k], p);
            if (!barycentric(p, x, w))
                continue;
            double lo = fmin(fmin(w[0], w[1]), fmin(w[2], w[3]));
            if (lo > best_min) {
                best_min = lo;
                best = g.items[k];
                memcpy(best_w, w, sizeof w);
            }
        }
        if (best_min < -1e-9) {
            /* Outside every candidate: the nearest clamped point of all. */
            double best_d2 = INFINITY;
            for (uint32_t k = 0; k < t; k++) {
                double p[4][3], w[4];
                tet_points(a, tets + 4 * (size_t)k, p);
                if (!barycentric(p, x, w))
                    continue;
                double d2 = clamp_weights(p, x, w);
                if (d2 < best_d2) {
                    best_d2 = d2;
                    best = k;
                    memcpy(best_w, w, sizeof w);
                }
            }
            /* Within the particles' single-precision rounding of a face is on it. */
            double p[4][3], extent = 0.0;
            tet_points(a, tets + 4 * (size_t)(best == UINT32_MAX ? 0 : best), p);
            for (int k = 0; k < 12; k++)
                extent = fmax(extent, fabs(p[k / 3][k % 3]));
            if (sqrt(best_d2) > 4.0 * FLT_EPSILON * extent) {
                outside++;
                worst = sqrt(best_d2) > worst ? sqrt(best_d2) : worst;
            }
        } else {
            double p[4][3];
            tet_points(a, tets + 4 * (size_t)best, p);
            clamp_weights(p, x, best_w); /* round-off below 0 */
        }
        if (best == UINT32_MAX)
            best = 0;
        sinew_render_vertex_rec *r = &a->rvertices[i];
        memset(r, 0, sizeof *r);
        memcpy(r->particle, tets + 4 * (size_t)best, sizeof r->particle);
        float sum = 0.0f;
        for (int k = 0; k < 3; k++) {
            r->weight[k + 1] = (float)best_w[k + 1];
            sum += r->weight[k + 1];
        }
        r->weight[0] = 1.0f - sum > 0.0f ? 1.0f - sum : 0.0f;
        r->mode = SINEW_RENDER_NORMAL_TET;
        sinew_render_vertex_surface(r, m, face_normals, i);
    }
    memcpy(a->rtriangles, m->render_triangles, sizeof(uint32_t) * 3 * (size_t)m->render_triangle_count);
    free(tets);
    free(face_normals);
    free(g.start);
    free(g.items);
    if (!sinew_render_copy_materials(a, m))
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "prep", "%s: out of memory", name);
    if (outside)
        sinew_logf(lg, SINEW_LOG_INFO, "prep",
                   "%s: %u of %u render vertices lie outside the tetrahedra (at most %.3g m): each follows its "
                   "nearest tetrahedron", name, outside, m->render_vertex_count, worst);
    sinew_logf(lg, SINEW_LOG_INFO, "prep", "%s: render mesh of %u vertices, %u triangles embedded in %u tetrahedra%s, %u material group%s",
               name, m->render_vertex_count, m->render_triangle_count, t, m->render_uv ? ", with UVs" : "",
               m->materials.count, m->materials.count == 1 ? "" : "s");
    return SINEW_RESULT_OK;
}
