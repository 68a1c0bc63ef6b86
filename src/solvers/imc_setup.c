/* Implicit cloth's setup: each level's hinges, pattern (rows, columns,
 * diagonal), incidence lists and children built on the host from the
 * asset's multigrid sections (or a solid's tetrahedra), laid out into the
 * multigrid images (shared/layout.h, SINEW_MG_*) with their rest shapes,
 * masses and materials, and uploaded (sinew_imc_create, sinew_imc_destroy). */
#include "imc_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../math/xpbd_math.h"
#include "gpbd.h"

static int u32_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Hinges: the edges exactly two triangles share (sinew_triangle_hinges). */
static int find_hinges(level_host *L)
{
    return sinew_triangle_hinges(L->tri->v, L->t, &L->hinge, &L->h) == SINEW_RESULT_OK;
}

/* The block pattern (each triangle's and hinge's particles pairwise) and each
 * particle's incident elements. */
static int build_rows(level_host *L)
{
    const uint32_t n = L->n;
    uint32_t *count = calloc((size_t)n + 1, sizeof *count);
    L->inc_start = calloc((size_t)n + 1, sizeof *L->inc_start);
    L->inc = malloc(sizeof *L->inc * (3 * (size_t)L->t + 4 * (size_t)L->h + 4 * (size_t)L->tets + 1));
    L->row = calloc((size_t)n + 1, sizeof *L->row);
    L->diag = calloc((size_t)n + 1, sizeof *L->diag);
    if (!count || !L->inc_start || !L->inc || !L->row || !L->diag) {
        free(count);
        return 0;
    }
    for (uint32_t k = 0; k < L->t; k++)
        for (int c = 0; c < 3; c++) {
            count[L->tri[k].v[c] + 1] += 3;
            L->inc_start[L->tri[k].v[c] + 1]++;
        }
    for (uint32_t k = 0; k < 4 * L->h; k++) {
        count[L->hinge[k] + 1] += 4;
        L->inc_start[L->hinge[k] + 1]++;
    }
    for (uint32_t k = 0; k < L->tets; k++)
        for (int c = 0; c < 4; c++) {
            count[L->tet[k].v[c] + 1] += 4;
            L->inc_start[L->tet[k].v[c] + 1]++;
        }
    for (uint32_t i = 0; i < n; i++) {
        count[i + 1] += count[i] + 1; /* and the diagonal, should no element hold the particle */
        L->inc_start[i + 1] += L->inc_start[i];
    }
    uint32_t *all = malloc(sizeof *all * ((size_t)count[n] + 1)), *fill = malloc(sizeof *fill * ((size_t)n + 1)),
             *ifill = malloc(sizeof *ifill * ((size_t)n + 1));
    int ok = all && fill && ifill;
    if (ok) {
        memcpy(fill, count, sizeof *fill * n);
        memcpy(ifill, L->inc_start, sizeof *ifill * n);
        for (uint32_t i = 0; i < n; i++)
            all[fill[i]++] = i;
        for (uint32_t k = 0; k < L->t; k++)
            for (uint32_t a = 0; a < 3; a++) {
                uint32_t v = L->tri[k].v[a];
                L->inc[ifill[v]++] = 4 * k + a;
                for (int b = 0; b < 3; b++)
                    all[fill[v]++] = L->tri[k].v[b];
            }
        for (uint32_t k = 0; k < L->h; k++)
            for (uint32_t a = 0; a < 4; a++) {
                uint32_t v = L->hinge[4 * k + a];
                L->inc[ifill[v]++] = SINEW_MG_HINGE_BIT | (4 * k + a);
                for (int b = 0; b < 4; b++)
                    all[fill[v]++] = L->hinge[4 * k + b];
            }
        for (uint32_t k = 0; k < L->tets; k++)
            for (uint32_t a = 0; a < 4; a++) {
                uint32_t v = L->tet[k].v[a];
                L->inc[ifill[v]++] = SINEW_MG_TET_BIT | (4 * k + a);
                for (int b = 0; b < 4; b++)
                    all[fill[v]++] = L->tet[k].v[b];
            }
        L->col = malloc(sizeof *L->col * ((size_t)count[n] + 1));
        ok = L->col != NULL;
    }
    if (ok) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            qsort(all + count[i], count[i + 1] - count[i], sizeof *all, u32_cmp);
            L->row[i] = k;
            for (uint32_t j = count[i]; j < count[i + 1]; j++)
                if (j == count[i] || all[j] != all[j - 1]) {
                    if (all[j] == i)
                        L->diag[i] = k;
                    L->col[k++] = all[j];
                }
        }
        L->row[n] = k;
        L->nnz = k;
    }
    free(count);
    free(all);
    free(fill);
    free(ifill);
    return ok;
}

/* Children: the particles of the next finer level whose parent each is. */
static int build_children(level_host *L, const level_host *F, const sinew_parents_rec *parents)
{
    L->child_start = calloc((size_t)L->n + 1, sizeof *L->child_start);
    L->child = malloc(sizeof *L->child * (2 * (size_t)(F->n - L->n) + 1));
    uint32_t *fill = malloc(sizeof *fill * ((size_t)L->n + 1));
    if (!L->child_start || !L->child || !fill) {
        free(fill);
        return 0;
    }
    for (uint32_t m = L->n; m < F->n; m++) {
        L->child_start[parents[m].a + 1]++;
        L->child_start[parents[m].b + 1]++;
    }
    for (uint32_t i = 0; i < L->n; i++)
        L->child_start[i + 1] += L->child_start[i];
    memcpy(fill, L->child_start, sizeof *fill * L->n);
    for (uint32_t m = L->n; m < F->n; m++) {
        L->child[fill[parents[m].a]++] = m;
        L->child[fill[parents[m].b]++] = m;
    }
    free(fill);
    return 1;
}

static void free_levels(sinew_imc *s)
{
    for (uint32_t l = 0; l < SINEW_ASSET_MAX_MLEVELS; l++) {
        level_host *L = &s->L[l];
        void *ps[] = {L->hinge, L->row, L->col, L->diag, L->inc_start, L->inc, L->child_start, L->child};
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
            free(ps[i]);
    }
}

void sinew_imc_destroy(sinew_imc *s)
{
    if (!s)
        return;
    sinew_context *ctx = s->ctx;
    sinew_workspace_destroy(ctx, &s->ws);
    for (int i = 0; i < SINEW_BODY_BINDINGS; i++)
        sinew_buffer_destroy(ctx, &s->own_body[i]);
    for (int i = 0; i < SINEW_MG_BINDINGS; i++)
        sinew_buffer_destroy(ctx, &s->mg[i]);
    free_levels(s);
    free(s->D);
    free(s->target);
    free(s->warp);
    free(s);
}

/* The warp triangle k of level l takes from the UVs, (0, 0, 0) for none. */
static const double *uv_warp(const sinew_imc *s, uint32_t l, uint32_t k)
{
    size_t at = k;
    for (uint32_t below = 0; below < l; below++)
        at += s->L[below].t;
    return &s->warp[3 * at];
}

static void rest_of_triangle(const sinew_asset *a, const uint32_t *v, const double *warp, float *out)
{
    double X[3][3];
    for (int c = 0; c < 3; c++) {
        const sinew_particle_rec *p = &a->particles[v[c]];
        X[c][0] = p->x;
        X[c][1] = p->y;
        X[c][2] = p->z;
    }
    double e1[3], e2[3], nrm[3], u[3], w[3];
    sinew_v3_sub(X[1], X[0], e1);
    sinew_v3_sub(X[2], X[0], e2);
    sinew_v3_cross(e1, e2, nrm);
    const double ln = sqrt(sinew_v3_dot(nrm, nrm));
    for (int d = 0; d < 3; d++)
        nrm[d] /= ln;
    /* The material frame (docs/math.md 5): u, the warp, is the direction
     * along which the UVs' u grows (sinew_imc_warps), projected on the
     * triangle's plane; where the triangle has no UVs (warp 0), world x
     * projected on the plane, or world z where x is within 0.1 rad of the
     * normal. v = n x u the weft. Neither depends on how the triangles are
     * numbered, nor does the energy. */
    static const double axes[2][3] = {{1.0, 0.0, 0.0}, {0.0, 0.0, 1.0}};
    double lu = 0.0;
    if (warp) {
        const double along = sinew_v3_dot(warp, nrm);
        for (int d = 0; d < 3; d++)
            u[d] = warp[d] - along * nrm[d];
        lu = sqrt(sinew_v3_dot(u, u));
    }
    for (int k = 0; k < 2 && !(lu >= 0.1); k++) {
        const double along = sinew_v3_dot(axes[k], nrm);
        for (int d = 0; d < 3; d++)
            u[d] = axes[k][d] - along * nrm[d];
        lu = sqrt(sinew_v3_dot(u, u));
    }
    for (int d = 0; d < 3; d++)
        u[d] /= lu;
    sinew_v3_cross(nrm, u, w);
    /* Dm: the edges' coordinates in (u, w); out: Dm^-1 row-major */
    const double m00 = sinew_v3_dot(e1, u), m01 = sinew_v3_dot(e2, u), m10 = sinew_v3_dot(e1, w),
                 m11 = sinew_v3_dot(e2, w);
    const double det = m00 * m11 - m01 * m10;
    out[0] = (float)(m11 / det);
    out[1] = (float)(-m01 / det);
    out[2] = (float)(-m10 / det);
    out[3] = (float)(m00 / det);
    out[4] = (float)(0.5 * ln); /* rest area */
}

/* A hinge's rest angle and bending weight 3 |e|^2 / (A1 + A2). */
static void rest_of_hinge(const sinew_asset *a, const uint32_t *h, float *out)
{
    double p[4][3], e[3], a1[3], a2[3], n1[3], n2[3];
    for (int c = 0; c < 4; c++) {
        p[c][0] = a->particles[h[c]].x;
        p[c][1] = a->particles[h[c]].y;
        p[c][2] = a->particles[h[c]].z;
    }
    int good;
    double theta = sinew_dihedral_angle(p[0], p[1], p[2], p[3], &good);
    sinew_v3_sub(p[1], p[0], e);
    sinew_v3_sub(p[2], p[0], a1);
    sinew_v3_sub(p[3], p[0], a2);
    sinew_v3_cross(e, a1, n1);
    sinew_v3_cross(e, a2, n2);
    double areas = 0.5 * (sqrt(sinew_v3_dot(n1, n1)) + sqrt(sinew_v3_dot(n2, n2)));
    out[0] = (float)theta;
    out[1] = (float)(3.0 * sinew_v3_dot(e, e) / areas);
}

/* A solid's lumped masses: the asset's (1 / inverse mass); a pinned
 * particle's, which the asset leaves out, a quarter of each of its
 * tetrahedra's (density times rest volume), or 1 kg when it has none (its
 * point constraint fixes it either way). */
static void solid_masses(const sinew_asset *a, const level_host *L, float *mass)
{
    for (uint32_t k = 0; k < L->tets; k++)
        for (int c = 0; c < 4; c++) {
            const sinew_element_rec *e = &L->tet[k];
            mass[e->v[c]] += 0.25f * a->materials[e->material].density * e->rest_measure;
        }
    for (uint32_t i = 0; i < L->n; i++)
        mass[i] = a->particles[i].w > 0.0f ? 1.0f / a->particles[i].w : mass[i] > 0.0f ? mass[i] : 1.0f;
}

/* Level l into both images: its fields (returned in L->field) and its
 * regions, the lumped masses from the rest areas (mass: room for L->n). */
static void lay_out_level(sinew_imc *s, const sinew_asset *a, const sinew_imc_material *m, uint32_t l,
                          sinew_image *index, sinew_image *real, float *mass)
{
    level_host *L = &s->L[l];
    uint32_t *f = L->field;
    f[SINEW_MG_N] = L->n;
    f[SINEW_MG_ROW] = sinew_image_put(index, L->row, L->n + 1);
    f[SINEW_MG_COL] = sinew_image_put(index, L->col, L->nnz);
    f[SINEW_MG_DIAG] = sinew_image_put(index, L->diag, L->n);
    f[SINEW_MG_TRI] = sinew_image_next(index);
    for (uint32_t k = 0; k < L->t; k++) {
        const uint32_t v[4] = {L->tri[k].v[0], L->tri[k].v[1], L->tri[k].v[2], 0};
        sinew_image_put(index, v, 4);
    }
    f[SINEW_MG_TRI_COUNT] = L->t;
    f[SINEW_MG_HINGE] = sinew_image_put(index, L->hinge, 4ull * L->h);
    f[SINEW_MG_HINGE_COUNT] = L->h;
    f[SINEW_MG_INC_START] = sinew_image_put(index, L->inc_start, L->n + 1ull);
    f[SINEW_MG_INC] = sinew_image_put(index, L->inc, L->inc_start[L->n]);
    if (l + 1 < s->levels) {
        f[SINEW_MG_CHILD_START] = sinew_image_put(index, L->child_start, L->n + 1ull);
        f[SINEW_MG_CHILD] = sinew_image_put(index, L->child, L->child_start[L->n]);
    }

    f[SINEW_MG_BLOCKS] = sinew_image_reserve(real, 3ull * L->nnz);
    f[SINEW_MG_D] = sinew_image_reserve(real, 3ull * L->n);
    f[SINEW_MG_REST] = sinew_image_next(real);
    memset(mass, 0, sizeof *mass * L->n);
    for (uint32_t k = 0; k < L->t; k++) {
        float rest[8] = {0}; /* Bm^-1 (4), then the rest area in a vec4 of its own */
        rest_of_triangle(a, L->tri[k].v, uv_warp(s, l, k), rest);
        sinew_image_put(real, rest, 2);
        for (int c = 0; c < 3; c++) /* summed in the triangles' order: float sums depend on it */
            mass[L->tri[k].v[c]] += (float)(m->density * rest[4] / 3.0);
    }
    for (uint32_t k = 0; k < L->h; k++) {
        float hinge[4] = {0};
        rest_of_hinge(a, &L->hinge[4 * k], hinge);
        sinew_image_put(real, hinge, 1);
    }
    if (L->tets) /* a solid: the asset's masses; pinned particles their tetrahedra's share */
        solid_masses(a, L, mass);
    f[SINEW_MG_VEC] = sinew_image_reserve(real, (uint64_t)SINEW_MG_VECTORS * L->n);
    for (uint32_t i = 0; i < L->n; i++) {
        const float x[4] = {mass[i], 0.0f, 0.0f, 0.0f};
        sinew_image_write(real, f[SINEW_MG_VEC] + SINEW_MG_MASS * L->n + i, x, 1);
    }
}

/* Both images (shared/layout.h, SINEW_MG_*). MG_INDEX: the header and the
 * levels' fields (written last, when every offset is known), the parents,
 * the colours' particles, then each level's regions; MG_REAL: the globals,
 * partial sums and scalars, then each level's. */
static void lay_out(sinew_imc *s, const sinew_asset *a, const sinew_imc_material *m, sinew_image *index,
                    sinew_image *real, float *mass)
{
    uint32_t header[SINEW_MG_HEADER] = {0};
    const uint32_t fields = sinew_image_reserve(index, SINEW_MG_HEADER + (uint64_t)SINEW_MG_FIELDS * s->levels) +
                            SINEW_MG_HEADER;
    header[0] = s->levels;
    header[1] = s->globals = sinew_image_reserve(real, SINEW_MG_GLOBALS);
    header[2] = a->parents ? sinew_image_put(index, a->parents, 2ull * s->n) /* a, b of each particle */
                           : sinew_image_next(index);
    header[3] = sinew_image_reserve(real, s->partial_groups);
    header[4] = s->scalars = sinew_image_reserve(real, SINEW_MG_SCALARS);
    if (s->L[0].tets) /* a solid's element scratch (mg_tet.comp) */
        header[SINEW_MG_H_TETS] = sinew_image_reserve(real, 34ull * s->L[0].tets);
    const uint32_t colours_at =
        a->mvertex_count ? sinew_image_put(index, a->mvertices, a->mvertex_count) : sinew_image_next(index);
    for (uint32_t l = 0; l < s->levels && l < a->mlevel_count; l++) {
        const sinew_mlevel_rec *M = &a->mlevels[l];
        level_host *L = &s->L[l];
        L->colours = M->colour_count;
        for (uint32_t c = 0; c < M->colour_count; c++) {
            L->colour_at[c] = colours_at + a->mcolours[M->colour_begin + c].begin;
            L->colour_count[c] = a->mcolours[M->colour_begin + c].count;
        }
    }
    for (uint32_t l = 0; l < s->levels; l++) {
        lay_out_level(s, a, m, l, index, real, mass);
        sinew_image_write(index, fields + SINEW_MG_FIELDS * l, s->L[l].field, SINEW_MG_FIELDS);
    }
    sinew_image_write(index, 0, header, SINEW_MG_HEADER);
}

int sinew_imc_solid(const sinew_asset *a) { return a->element_count > 0; }

/* Standalone, a solid's element records and materials as a body has them. */
static sinew_result upload_elements(sinew_imc *s, const sinew_asset *a)
{
    sinew_context *ctx = s->ctx;
    const uint64_t eb = sizeof(GpuElement) * (uint64_t)a->element_count,
                   mb = sizeof(GpuMaterial) * (uint64_t)a->material_count;
    void *host = malloc(eb > mb ? eb : mb);
    if (!host)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    sinew_result r = sinew_buffer_create(ctx, eb, SINEW_MEMORY_DEVICE, "elements", &s->body[SINEW_BIND_ELEM]);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_create(ctx, mb, SINEW_MEMORY_DEVICE, "materials", &s->body[SINEW_BIND_MATERIAL]);
    GpuElement *e = host;
    for (uint32_t k = 0; k < a->element_count; k++)
        e[k] = sinew_gpbd_element(&a->elements[k]);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &s->body[SINEW_BIND_ELEM], 0, e, eb);
    GpuMaterial *m = host;
    for (uint32_t k = 0; k < a->material_count; k++)
        m[k] = sinew_gpbd_material(&a->materials[k]);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &s->body[SINEW_BIND_MATERIAL], 0, m, mb);
    free(host);
    return r;
}

sinew_result sinew_imc_create(sinew_context *ctx, const sinew_asset *a, const sinew_imc_material *m,
                              double pin_stiffness, sinew_buffer *borrowed, int history, sinew_imc **out)
{
    *out = NULL;
    const int solid = sinew_imc_solid(a);
    if (!solid && a->mlevel_count < 2)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "imc",
                          "the asset has no multigrid levels (sinew-prep --subdivide)");
    for (uint32_t e = 0; solid && e < a->element_count; e++)
        if (a->elements[e].kind != SINEW_ELEMENT_TET ||
            (a->materials[a->elements[e].material].model != SINEW_MATERIAL_NEO_HOOKEAN &&
             a->materials[a->elements[e].material].model != SINEW_MATERIAL_STABLE_NEO_HOOKEAN))
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "imc",
                              "element %u is not a neo-Hookean or stable neo-Hookean tetrahedron: the implicit "
                              "solvers take cloth (triangles) or such solids", e);
    for (uint32_t l = 0; l < a->mlevel_count; l++)
        if (a->mlevels[l].colour_count > 64)
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_LIMIT, "imc",
                              "level %u has %u colours; the solver takes at most 64", l, a->mlevels[l].colour_count);
    sinew_imc *s = calloc(1, sizeof *s);
    if (!s)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    s->ctx = ctx;
    s->body = borrowed ? borrowed : s->own_body;
    s->borrowed = borrowed != NULL;
    s->device_constraints = s->borrowed;
    s->pin = (float)pin_stiffness;
    s->mat = *m;
    s->levels = solid ? 1 : a->mlevel_count;
    s->n = a->particle_count;
    s->partial_groups = (s->n + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    int ok = 1;
    for (uint32_t l = 0; l < s->levels && ok; l++) {
        level_host *L = &s->L[l];
        if (solid) { /* its tetrahedra only: its surface triangles are not membranes */
            L->n = a->particle_count;
            L->tri = a->triangles;
            L->tets = a->element_count;
            L->tet = a->elements;
        } else {
            L->n = a->mlevels[l].vertex_count;
            L->t = a->mlevels[l].triangle_count;
            L->tri = l + 1 == s->levels ? a->triangles : a->mtriangles + a->mlevels[l].triangle_begin;
        }
        ok = find_hinges(L) && build_rows(L);
    }
    for (uint32_t l = 0; l + 1 < s->levels && ok; l++)
        ok = build_children(&s->L[l], &s->L[l + 1], a->parents);
    uint32_t framed = 0;
    ok = ok && (s->warp = sinew_imc_warps(a, &framed)) != NULL;
    if (ok && a->rtriangle_count)
        sinew_logf(&ctx->logger, SINEW_LOG_INFO, "imc",
                   "%u of the %u triangles take their warp from the render mesh's UVs, the others world x on "
                   "their plane", framed, a->triangle_count);
    s->D = calloc(12 * (size_t)s->n + 1, sizeof *s->D);
    s->target = calloc(4 * (size_t)s->n + 1, sizeof *s->target);
    float *mass = malloc(sizeof *mass * ((size_t)s->n + 1)); /* the finest level has the most particles */
    if (!ok || !s->D || !s->target || !mass) {
        free(mass);
        sinew_imc_destroy(s);
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    }
    for (uint32_t i = 0; i < s->n; i++)
        if (a->particles[i].w == 0.0f) { /* pinned: a point constraint */
            float *D = &s->D[12 * i];
            D[0] = D[5] = D[10] = (float)pin_stiffness;
        }

    sinew_image index, real;
    sinew_image_init(&index, 4, 0);
    sinew_image_init(&real, 16, 0);
    lay_out(s, a, m, &index, &real, mass);
    free(mass);
    sinew_result r = sinew_image_check(&index, &ctx->logger, "imc", "multigrid indices");
    if (r == SINEW_RESULT_OK)
        r = sinew_image_check(&real, &ctx->logger, "imc", "multigrid matrices and vectors");
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_check_size(ctx, sinew_image_size(&index), "multigrid indices");
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_check_size(ctx, sinew_image_size(&real), "multigrid matrices and vectors");
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_create(ctx, sinew_image_size(&index), SINEW_MEMORY_DEVICE, "multigrid indices",
                                &s->mg[SINEW_MG_BIND_INDEX]);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_create(ctx, sinew_image_size(&real), SINEW_MEMORY_DEVICE, "multigrid matrices and vectors",
                                &s->mg[SINEW_MG_BIND_REAL]);
    if (r == SINEW_RESULT_OK && history)
        r = sinew_buffer_create(ctx, 32ull * s->n, SINEW_MEMORY_DEVICE, "the step before (BDF2)",
                                &s->mg[SINEW_MG_BIND_HISTORY]);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &s->mg[SINEW_MG_BIND_INDEX], 0, index.bytes, sinew_image_size(&index));
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &s->mg[SINEW_MG_BIND_REAL], 0, real.bytes, sinew_image_size(&real));
    sinew_image_free(&index);
    sinew_image_free(&real);
    const int particles[] = {SINEW_BIND_POS, SINEW_BIND_VEL};
    for (int i = 0; i < 2 && r == SINEW_RESULT_OK && !s->borrowed; i++)
        r = sinew_buffer_create(ctx, 16ull * s->n, SINEW_MEMORY_DEVICE, "multigrid cloth", &s->body[particles[i]]);
    if (r == SINEW_RESULT_OK && solid && !s->borrowed)
        r = upload_elements(s, a);
    if (r == SINEW_RESULT_OK)
        r = sinew_workspace_create(ctx, "multigrid cloth", &s->ws);
    if (r == SINEW_RESULT_OK && !s->borrowed) /* a body hands its sets over later (sinew_imc_use_bindings) */
        r = sinew_workspace_bind(ctx, &s->ws, s->body, s->mg, SINEW_MG_BINDINGS);
    if (r != SINEW_RESULT_OK) {
        sinew_imc_destroy(s);
        return r;
    }
    *out = s;
    return SINEW_RESULT_OK;
}
