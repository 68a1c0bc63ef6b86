/* Implicit cloth with constrainable multigrid on the GPU: the levels' layout
 * (shared/layout.h, SINEW_MG_*) built from an asset's multigrid sections, and
 * the kernels mg_assemble, mg_residual, mg_restrict and mg_prolong. A solid
 * (an asset of tetrahedra) is one level: its tetrahedra in the pattern and
 * the incidence lists, their records and materials the body's (ELEM,
 * MATERIAL), solved by PCG. */
#include "imc.h"

#include "shared/mg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../math/xpbd_math.h"
#include "gpbd.h"

typedef struct level_host {
    uint32_t n, t, h, nnz;
    const sinew_triangle_rec *tri;
    uint32_t tets;              /* a solid's level: its tetrahedra (the asset's elements) */
    const sinew_element_rec *tet;
    uint32_t *hinge;            /* 4 per hinge */
    uint32_t *row, *col, *diag;
    uint32_t *inc_start, *inc;
    uint32_t *child_start, *child;
    uint32_t field[SINEW_MG_FIELDS];
    uint32_t colours;
    uint32_t colour_at[64], colour_count[64]; /* each colour's particles: MG_INDEX offset and count */
} level_host;

struct sinew_imc {
    sinew_context *ctx;
    sinew_buffer own_body[SINEW_BODY_BINDINGS]; /* standalone: POS and VEL */
    sinew_buffer *body;         /* own_body, or a body's buffers (borrowed) */
    sinew_buffer mg[SINEW_MG_BINDINGS]; /* set 1: always the solver's own */
    int borrowed;
    sinew_workspace ws;         /* its sets: standalone its own, else the body's (sinew_imc_use_bindings) */
    sinew_imc_material mat;
    float contact, friction, pin; /* N/m */
    int filtered, device_constraints;
    uint32_t levels, n, globals, scalars, partial_groups; /* globals, scalars: MG_REAL indices */
    level_host L[SINEW_ASSET_MAX_MLEVELS];
    float *D;       /* finest: 3 vec4 rows per particle */
    float *target;  /* finest: 1 vec4 per particle */
    double *warp;   /* every level's triangles' material warps (sinew_imc_warps) */
};

/* ---------------------------------------------------------------- layout */

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

const sinew_buffer *sinew_imc_buffers(const sinew_imc *s, uint32_t *count)
{
    *count = SINEW_MG_BINDINGS;
    return s->mg;
}

sinew_buffer *sinew_imc_history_buffer(sinew_imc *s) { return &s->mg[SINEW_MG_BIND_HISTORY]; }

void sinew_imc_use_bindings(sinew_imc *s, const sinew_bindings *bindings)
{
    SINEW_ASSERT(s->borrowed);
    sinew_workspace_borrow(&s->ws, bindings);
}

void sinew_imc_set_contacts(sinew_imc *s, double contact, double friction, int filtered)
{
    s->contact = (float)contact;
    s->friction = (float)friction;
    s->filtered = filtered;
}

uint32_t sinew_imc_level_count(const sinew_imc *s) { return s->levels; }
uint32_t sinew_imc_particle_count(const sinew_imc *s, uint32_t level) { return s->L[level].n; }

void sinew_imc_pattern(const sinew_imc *s, uint32_t level, const uint32_t **row, const uint32_t **col)
{
    *row = s->L[level].row;
    *col = s->L[level].col;
}

sinew_result sinew_imc_set_state(sinew_imc *s, const float *x, const float *v)
{
    float *buf = malloc(sizeof *buf * 4 * ((size_t)s->n + 1));
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    sinew_result r = SINEW_RESULT_OK;
    for (int pass = 0; pass < 2 && r == SINEW_RESULT_OK; pass++) {
        const float *src = pass ? v : x;
        for (uint32_t i = 0; i < s->n; i++) {
            memcpy(&buf[4 * i], &src[3 * i], 3 * sizeof *buf);
            buf[4 * i + 3] = 0.0f;
        }
        r = sinew_buffer_upload(s->ctx, &s->body[pass ? SINEW_BIND_VEL : SINEW_BIND_POS], 0, buf, 16ull * s->n);
    }
    free(buf);
    return r;
}

void sinew_imc_set_constraint(sinew_imc *s, uint32_t i, const float D[9], const float d[3])
{
    for (int row = 0; row < 3; row++) {
        memcpy(&s->D[12 * i + 4 * row], &D[3 * row], 3 * sizeof *D);
        s->D[12 * i + 4 * row + 3] = 0.0f;
    }
    memcpy(&s->target[4 * i], d, 3 * sizeof *d);
}

/* ---------------------------------------------------------------- recording */

/* One dispatch of an mg kernel and the barrier after it. `gate` (0: none)
 * is the scalar that must be open for the kernel to work (mg_open). */
static void dispatch_at(sinew_recorder *r, sinew_kernel k, uint32_t first, uint32_t threads, uint32_t level,
                        uint32_t mode, uint32_t x, uint32_t y, uint32_t gate)
{
    GpuRange g = {0};
    g.first = first;
    g.count = threads;
    g.first2 = level;
    g.count2 = mode;
    g.distance_total = x;
    g.slot_base = y;
    g.gate = gate;
    sinew_record_dispatch(r, k, threads, &g, sizeof g);
    sinew_record_barrier(r);
}

static void dispatch(sinew_recorder *r, sinew_kernel k, uint32_t threads, uint32_t level, uint32_t mode,
                     uint32_t x, uint32_t y, uint32_t gate)
{
    dispatch_at(r, k, 0, threads, level, mode, x, y, gate);
}

/* The partial sums of a level's last mg_pcg dispatch into scalar `slot`. */
static void reduce(sinew_imc *s, sinew_recorder *r, uint32_t level, uint32_t slot, uint32_t gate)
{
    uint32_t groups = (s->L[level].n + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    dispatch(r, SINEW_KERNEL_MG_REDUCE, SINEW_WORKGROUP_SIZE, 0, 0, groups, slot, gate);
}

/* mg_control (one invocation) in `mode` on the control record at `at`. */
static void control(sinew_recorder *r, uint32_t mode, uint32_t at, uint32_t flags, uint32_t limit, uint32_t done,
                    double tolerance)
{
    GpuRange g = {0};
    g.first = limit;
    g.first2 = done;
    g.count2 = mode;
    g.distance_total = flags;
    g.slot_base = at;
    g.weight = (float)tolerance;
    sinew_record_dispatch(r, SINEW_KERNEL_MG_CONTROL, 1, &g, sizeof g);
    sinew_record_barrier(r);
}

/* Work behind scalar `gate` (shared/layout.h): skipped by the device where
 * it can (conditional rendering on the gate's x, 0.0 or 1.0), else by the
 * kernels. */
static void begin_gated(sinew_imc *s, sinew_recorder *r, uint32_t gate)
{
    sinew_record_if(r, &s->mg[SINEW_MG_BIND_REAL], 16ull * (s->scalars + gate));
}

/* PCG's iteration k on a level (after its START): r.z alternates between two
 * scalars by the iteration's parity. */
static void record_pcg_iteration(sinew_imc *s, sinew_recorder *r, uint32_t level, uint32_t k, uint32_t gate)
{
    const uint32_t n = s->L[level].n, parity = k & 1u;
    dispatch(r, SINEW_KERNEL_MG_PCG, n, level, SINEW_MG_PCG_Q, 0, parity, gate);
    reduce(s, r, level, SINEW_MG_S_PQ, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, level, SINEW_MG_PCG_UPDATE, 0, parity, gate);
    reduce(s, r, level, SINEW_MG_S_RZ + 1 - parity, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, level, SINEW_MG_PCG_DIRECTION, 0, parity, gate);
}

/* `iterations` of block-Jacobi PCG on a level from its U. */
static void record_pcg(sinew_imc *s, sinew_recorder *r, uint32_t level, uint32_t iterations, uint32_t gate)
{
    dispatch(r, SINEW_KERNEL_MG_PCG, s->L[level].n, level, SINEW_MG_PCG_START, 0, 0, gate);
    reduce(s, r, level, SINEW_MG_S_RZ, gate);
    for (uint32_t k = 0; k < iterations; k++)
        record_pcg_iteration(s, r, level, k, gate);
}

/* Whether the coarsest level's solve of `iterations` fits one workgroup
 * (mg_coarse): each invocation's loops within llvmpipe's 65 535 iterations
 * (common.glsl), with room to spare. */
static int coarse_fits(const sinew_imc *s, uint32_t iterations)
{
    const level_host *L = &s->L[0];
    uint32_t widest = 0;
    for (uint32_t i = 0; i < L->n; i++)
        if (L->row[i + 1] - L->row[i] > widest)
            widest = L->row[i + 1] - L->row[i];
    const uint64_t rows = (L->n + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
    const uint64_t per_iteration = rows * (widest + 3) + 3 * 8; /* three row loops, two sums */
    return (uint64_t)iterations * per_iteration + rows * widest < 50000;
}

static void record_vcycle(sinew_imc *s, sinew_recorder *r, uint32_t level, const sinew_imc_cycle *c, uint32_t gate)
{
    if (level == 0 && coarse_fits(s, c->coarse_iterations)) {
        GpuRange g = {0};
        g.count = c->coarse_iterations;
        g.gate = gate;
        sinew_record_dispatch(r, SINEW_KERNEL_MG_COARSE, SINEW_WORKGROUP_SIZE, &g, sizeof g);
        sinew_record_barrier(r);
        return;
    }
    if (level == 0) {
        record_pcg(s, r, 0, c->coarse_iterations, gate);
        return;
    }
    record_pcg(s, r, level, c->pre, gate);
    dispatch(r, SINEW_KERNEL_MG_RESIDUAL, s->L[level].n, level, 0, SINEW_MG_U, SINEW_MG_R, gate);
    dispatch(r, SINEW_KERNEL_MG_RESTRICT, s->L[level - 1].n, level - 1, 0, 0, 0, gate);
    record_vcycle(s, r, level - 1, c, gate);
    dispatch(r, SINEW_KERNEL_MG_PROLONG, s->L[level].n, level, 0, 0, 0, gate);
    const level_host *L = &s->L[level];
    for (uint32_t sweep = 0; sweep < c->post; sweep++)
        for (uint32_t k = 0; k < L->colours; k++)
            dispatch_at(r, SINEW_KERNEL_MG_SMOOTH, L->colour_at[k], L->colour_count[k], level, 0, 0, 0, gate);
}

/* |R|^2 of the finest level into its scalar (after R is computed). */
static void record_residual_norm(sinew_imc *s, sinew_recorder *r, uint32_t gate)
{
    const uint32_t top = s->levels - 1;
    dispatch(r, SINEW_KERNEL_MG_PCG, s->L[top].n, top, SINEW_MG_DOT, SINEW_MG_R, 0, gate);
    reduce(s, r, top, SINEW_MG_S_RR, gate);
}

/* The V-cycles' start: U = 0, |F|^2, their control record running. */
static void record_mg_start(sinew_imc *s, sinew_recorder *r)
{
    const uint32_t top = s->levels - 1, n = s->L[top].n;
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_PCG_INIT, 0, 0, 0);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_DOT, SINEW_MG_F, 0, 0);
    reduce(s, r, top, SINEW_MG_S_BB, 0);
    control(r, SINEW_MG_CONTROL_START, SINEW_MG_S_MG, 0, 0, 0, 0.0);
}

/* `count` more V-cycles, each with its residual and the device's decision
 * on the next; those after the solve stopped do nothing. */
static void record_mg_cycles(sinew_imc *s, sinew_recorder *r, const sinew_imc_cycle *c, uint32_t count)
{
    const uint32_t top = s->levels - 1, n = s->L[top].n;
    for (uint32_t k = 0; k < count; k++) {
        begin_gated(s, r, SINEW_MG_S_MG);
        record_vcycle(s, r, top, c, SINEW_MG_S_MG);
        dispatch(r, SINEW_KERNEL_MG_RESIDUAL, n, top, 0, SINEW_MG_U, SINEW_MG_R, SINEW_MG_S_MG);
        record_residual_norm(s, r, SINEW_MG_S_MG);
        control(r, SINEW_MG_CONTROL_CHECK, SINEW_MG_S_MG, SINEW_MG_CONTROL_VCYCLES, c->max_cycles, 1, c->tolerance);
        sinew_record_end_if(r);
    }
}

static void record_mg_end(sinew_recorder *r, const sinew_imc_cycle *c)
{
    control(r, SINEW_MG_CONTROL_END, SINEW_MG_S_MG,
            SINEW_MG_CONTROL_VCYCLES | (c->fallback_iterations ? SINEW_MG_CONTROL_MAY_FALL_BACK : 0u), 0, 0,
            c->tolerance);
}

/* PCG's start from U = 0 (modified PCG: the constrained part of the
 * solution), its first step, the norm of its right-hand side (F, or for
 * modified PCG the filtered residual at the start); as the V-cycles'
 * fallback, only if they called for it. */
static void record_pcg_start(sinew_imc *s, sinew_recorder *r, int fallback)
{
    const uint32_t top = s->levels - 1, n = s->L[top].n, gate = fallback ? SINEW_MG_S_FALLBACK : 0;
    if (fallback)
        begin_gated(s, r, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_PCG_INIT, 0, 0, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_PCG_START, 0, 0, gate);
    reduce(s, r, top, SINEW_MG_S_RZ, gate);
    dispatch(r, SINEW_KERNEL_MG_PCG, n, top, SINEW_MG_DOT, s->filtered ? SINEW_MG_R : SINEW_MG_F, 0, gate);
    reduce(s, r, top, SINEW_MG_S_BB, gate);
    if (fallback)
        sinew_record_end_if(r);
    control(r, SINEW_MG_CONTROL_START, SINEW_MG_S_PCG, fallback ? SINEW_MG_CONTROL_FALLBACK : 0u, 0, 0, 0.0);
}

/* PCG's iterations [from, to) of at most `limit`, the device deciding after
 * every `batch` (counted from 0) whether to go on. */
static void record_pcg_iterations(sinew_imc *s, sinew_recorder *r, double tolerance, uint32_t limit, uint32_t batch,
                                  uint32_t from, uint32_t to)
{
    const uint32_t top = s->levels - 1;
    for (uint32_t k = from; k < to; k++) {
        if (k == from || k % batch == 0)
            begin_gated(s, r, SINEW_MG_S_PCG);
        record_pcg_iteration(s, r, top, k, SINEW_MG_S_PCG);
        if ((k + 1) % batch == 0 || k + 1 == limit) {
            record_residual_norm(s, r, SINEW_MG_S_PCG);
            control(r, SINEW_MG_CONTROL_CHECK, SINEW_MG_S_PCG, 0, limit, k % batch + 1, tolerance);
        }
        if ((k + 1) % batch == 0 || k + 1 == to)
            sinew_record_end_if(r);
    }
}

static void record_pcg_end(sinew_recorder *r, double tolerance, int fallback)
{
    control(r, SINEW_MG_CONTROL_END, SINEW_MG_S_PCG, fallback ? SINEW_MG_CONTROL_FALLBACK : 0u, 0, 0, tolerance);
}

/* The control records and totals as the host reads them: MG_REAL from
 * scalar S_MG to the end of the history. */
typedef struct control_record {
    float mg[2][4], pcg[2][4], fallback[4], blend[4], total[4], unused[4][4], history[64];
} control_record;

static sinew_result read_control(sinew_imc *s, control_record *c)
{
    _Static_assert(sizeof(control_record) == 16 * (SINEW_MG_SCALARS - SINEW_MG_S_MG), "scalars' layout");
    return sinew_buffer_download(s->ctx, &s->mg[SINEW_MG_BIND_REAL], 16ull * (s->scalars + SINEW_MG_S_MG), c,
                                 sizeof *c);
}

/* The constraints (a body's, made on the device), restricted to every
 * level, and every level's assembly; the globals are in place. */
static void record_assembly(sinew_imc *s, sinew_recorder *r)
{
    if (s->device_constraints)
        dispatch(r, SINEW_KERNEL_MG_CONSTRAIN, s->n, s->levels - 1, 0, 0, 0, 0);
    for (uint32_t l = s->levels - 1; l-- > 0;)
        dispatch(r, SINEW_KERNEL_MG_RESTRICT, s->L[l].n, l, 1, 0, 0, 0);
    if (s->L[0].tets) /* a solid's elements, once each */
        dispatch(r, SINEW_KERNEL_MG_TET, s->L[0].tets, 0, 0, 0, 0, 0);
    for (uint32_t l = 0; l < s->levels; l++)
        dispatch(r, SINEW_KERNEL_MG_ASSEMBLE, s->L[l].n, l, l + 1 == s->levels, 0, 0, 0);
}

/* The globals (shared/layout.h), h and gravity as given. */
static void globals_of(const sinew_imc *s, float h, const float gravity[3], float out[4 * SINEW_MG_GLOBALS])
{
    const float g[4 * SINEW_MG_GLOBALS] = {h, (float)s->mat.damping, (float)s->mat.stretch, (float)s->mat.shear,
                                           (float)s->mat.bend, gravity[0], gravity[1], gravity[2],
                                           s->contact, s->friction, s->pin, s->filtered ? 1.0f : 0.0f};
    memcpy(out, g, sizeof g);
}

sinew_result sinew_imc_assemble(sinew_imc *s, float h, const float gravity[3], sinew_buffer *saved,
                                sinew_imc_history history)
{
    SINEW_ASSERT(history == SINEW_IMC_NO_HISTORY || s->borrowed);
    const level_host *F = &s->L[s->levels - 1];
    float globals[4 * SINEW_MG_GLOBALS];
    globals_of(s, h, gravity, globals);
    sinew_buffer *real = &s->mg[SINEW_MG_BIND_REAL];
    sinew_result r = SINEW_RESULT_OK;
    if (!s->device_constraints) {
        r = sinew_buffer_upload(s->ctx, real, 16ull * F->field[SINEW_MG_D], s->D, 48ull * s->n);
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_upload(s->ctx, real, 16ull * (F->field[SINEW_MG_VEC] + SINEW_MG_TARGET * s->n),
                                    s->target, 16ull * s->n);
    }
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    if (saved) { /* the body's rollback copy of the step's start */
        sinew_record_copy(&rec, &s->body[SINEW_BIND_POS], 0, saved, 0, 16ull * s->n);
        sinew_record_copy(&rec, &s->body[SINEW_BIND_VEL], 0, saved, 16ull * s->n, 16ull * s->n);
    }
    if (history != SINEW_IMC_NO_HISTORY) {
        GpuRange g = {0, s->n, 0, history == SINEW_IMC_BLEND};
        sinew_record_dispatch(&rec, SINEW_KERNEL_MG_HISTORY, s->n, &g, sizeof g);
        sinew_record_barrier(&rec);
    }
    sinew_record_update(&rec, real, 16ull * s->globals, globals, sizeof globals);
    record_assembly(s, &rec);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_residual(sinew_imc *s, uint32_t level, uint32_t x, uint32_t y, int subtract)
{
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    dispatch(&rec, SINEW_KERNEL_MG_RESIDUAL, s->L[level].n, level, subtract ? 0 : 1, x, y, 0);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_restrict(sinew_imc *s, uint32_t level)
{
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    dispatch(&rec, SINEW_KERNEL_MG_RESTRICT, s->L[level].n, level, 0, 0, 0, 0);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_prolong(sinew_imc *s, uint32_t level)
{
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    dispatch(&rec, SINEW_KERNEL_MG_PROLONG, s->L[level].n, level, 0, 0, 0, 0);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_read_blocks(sinew_imc *s, uint32_t level, float *out)
{
    const level_host *L = &s->L[level];
    float *buf = malloc(sizeof *buf * 12 * ((size_t)L->nnz + 1));
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    sinew_result r = sinew_buffer_download(s->ctx, &s->mg[SINEW_MG_BIND_REAL], 16ull * L->field[SINEW_MG_BLOCKS],
                                           buf, 48ull * L->nnz);
    for (uint32_t b = 0; b < L->nnz && r == SINEW_RESULT_OK; b++)
        for (int row = 0; row < 3; row++)
            memcpy(&out[9 * b + 3 * row], &buf[12 * b + 4 * row], 3 * sizeof *out);
    free(buf);
    return r;
}

sinew_result sinew_imc_read_vector(sinew_imc *s, uint32_t level, uint32_t vector, float *out)
{
    const level_host *L = &s->L[level];
    float *buf = malloc(sizeof *buf * 4 * ((size_t)L->n + 1));
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    sinew_result r = sinew_buffer_download(s->ctx, &s->mg[SINEW_MG_BIND_REAL],
                                           16ull * (L->field[SINEW_MG_VEC] + vector * L->n), buf, 16ull * L->n);
    for (uint32_t i = 0; i < L->n && r == SINEW_RESULT_OK; i++)
        memcpy(&out[3 * i], &buf[4 * i], 3 * sizeof *out);
    free(buf);
    return r;
}

sinew_result sinew_imc_write_vector(sinew_imc *s, uint32_t level, uint32_t vector, const float *in)
{
    const level_host *L = &s->L[level];
    float *buf = calloc(4 * ((size_t)L->n + 1), sizeof *buf);
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    for (uint32_t i = 0; i < L->n; i++)
        memcpy(&buf[4 * i], &in[3 * i], 3 * sizeof *buf);
    sinew_result r = sinew_buffer_upload(s->ctx, &s->mg[SINEW_MG_BIND_REAL],
                                         16ull * (L->field[SINEW_MG_VEC] + vector * L->n), buf, 16ull * L->n);
    free(buf);
    return r;
}

sinew_result sinew_imc_write_blocks(sinew_imc *s, uint32_t level, const float *in)
{
    const level_host *L = &s->L[level];
    float *buf = calloc(12 * ((size_t)L->nnz + 1), sizeof *buf);
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    for (uint32_t b = 0; b < L->nnz; b++)
        for (int row = 0; row < 3; row++)
            memcpy(&buf[12 * b + 4 * row], &in[9 * b + 3 * row], 3 * sizeof *in);
    sinew_result r = sinew_buffer_upload(s->ctx, &s->mg[SINEW_MG_BIND_REAL], 16ull * L->field[SINEW_MG_BLOCKS],
                                         buf, 48ull * L->nnz);
    free(buf);
    return r;
}

/* ---------------------------------------------------------------- solves */

/* The standalone solves submit their budget in pieces, reading the control
 * record after each: the device decides when a solve stops (as in a body's
 * step, one submit), the host only whether to submit more. */
#define CHUNK_CYCLES 8u
#define CHUNK_PCG 200u

static sinew_result submit_and_read(sinew_imc *s, sinew_recorder *rec, control_record *cr)
{
    sinew_result r = sinew_workspace_submit(rec, &s->ws);
    return r == SINEW_RESULT_OK ? read_control(s, cr) : r;
}

/* PCG from its start until the device stops it or `limit` iterations;
 * as the V-cycles' fallback, only if they called for it. */
static sinew_result run_pcg(sinew_imc *s, double tolerance, uint32_t limit, uint32_t batch, int fallback,
                            control_record *cr)
{
    const uint32_t chunk = batch * ((CHUNK_PCG + batch - 1) / batch);
    sinew_recorder rec;
    sinew_result r;
    uint32_t done = 0;
    do {
        const uint32_t to = limit - done < chunk ? limit : done + chunk;
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
        if (done == 0)
            record_pcg_start(s, &rec, fallback);
        record_pcg_iterations(s, &rec, tolerance, limit, batch, done, to);
        done = to;
        r = submit_and_read(s, &rec, cr);
    } while (r == SINEW_RESULT_OK && cr->pcg[0][0] > 0.0f && done < limit);
    if (r == SINEW_RESULT_OK) {
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
        record_pcg_end(&rec, tolerance, fallback);
        r = submit_and_read(s, &rec, cr);
    }
    return r;
}

sinew_result sinew_imc_solve(sinew_imc *s, const sinew_imc_cycle *c, sinew_imc_solve_stats *st)
{
    memset(st, 0, sizeof *st);
    control_record cr;
    sinew_recorder rec;
    sinew_result r;
    uint32_t done = 0;
    do {
        const uint32_t count = c->max_cycles - done < CHUNK_CYCLES ? c->max_cycles - done : CHUNK_CYCLES;
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
        if (done == 0)
            record_mg_start(s, &rec);
        record_mg_cycles(s, &rec, c, count);
        done += count;
        r = submit_and_read(s, &rec, &cr);
    } while (r == SINEW_RESULT_OK && cr.mg[0][0] > 0.0f && done < c->max_cycles);
    if (r == SINEW_RESULT_OK) {
        sinew_workspace_begin(&rec, s->ctx, &s->ws);
        record_mg_end(&rec, c);
        r = submit_and_read(s, &rec, &cr);
    }
    if (r != SINEW_RESULT_OK)
        return r;
    st->cycles = (uint32_t)cr.mg[0][1];
    st->residual0 = cr.mg[1][0];
    double rel = cr.mg[0][2];
    st->residual = rel * st->residual0;
    for (uint32_t k = 0; k < st->cycles && k < 64; k++)
        st->history[k] = cr.history[k];
    st->stalled = cr.mg[1][1] >= 3.0f;
    st->diverged = cr.mg[1][2] > 0.0f;
    if (st->diverged && c->fallback_iterations > 0) {
        r = run_pcg(s, c->tolerance, c->fallback_iterations, 10, 1, &cr);
        st->fallback = (uint32_t)cr.pcg[0][1];
        st->residual = (double)cr.pcg[0][2] * cr.pcg[1][0];
        rel = cr.pcg[0][2];
    }
    if (r == SINEW_RESULT_OK && !(rel == rel))
        r = sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "imc", "the multigrid solve produced NaN");
    return r;
}

sinew_result sinew_imc_solve_pcg(sinew_imc *s, double tolerance, uint32_t max_iterations, uint32_t batch,
                                 sinew_imc_solve_stats *st)
{
    memset(st, 0, sizeof *st);
    control_record cr;
    sinew_result r = run_pcg(s, tolerance, max_iterations, batch, 0, &cr);
    if (r != SINEW_RESULT_OK)
        return r;
    st->cycles = (uint32_t)cr.pcg[0][1];
    st->residual0 = cr.pcg[1][0];
    st->residual = (double)cr.pcg[0][2] * st->residual0;
    return r;
}

void sinew_imc_record_substep(sinew_imc *s, sinew_recorder *r, const sinew_imc_solve_plan *p, uint32_t substep)
{
    SINEW_ASSERT(s->borrowed && s->device_constraints);
    if (substep == 0) { /* the globals but h and gravity, which mg_control takes from PARAMS */
        float globals[4 * SINEW_MG_GLOBALS];
        const float none[3] = {0.0f, 0.0f, 0.0f};
        globals_of(s, 0.0f, none, globals);
        sinew_record_update(r, &s->mg[SINEW_MG_BIND_REAL], 16ull * s->globals, globals, sizeof globals);
    }
    GpuRange g = {0};
    g.first = substep;
    g.count = p->bdf2 ? 1u : 0u;
    g.count2 = SINEW_MG_CONTROL_SUBSTEP;
    sinew_record_dispatch(r, SINEW_KERNEL_MG_CONTROL, 1, &g, sizeof g);
    sinew_record_barrier(r);
    if (p->bdf2) {
        GpuRange hg = {0, s->n, 0, 2}; /* blend or record, as mg_control decided */
        sinew_record_dispatch(r, SINEW_KERNEL_MG_HISTORY, s->n, &hg, sizeof hg);
        sinew_record_barrier(r);
    }
    record_assembly(s, r);
    sinew_record_timestamp(r, SINEW_PHASE_PREDICT);
    if (p->vcycles) {
        record_mg_start(s, r);
        record_mg_cycles(s, r, &p->cycle, p->cycle.max_cycles);
        record_mg_end(r, &p->cycle);
    }
    if (!p->vcycles || p->cycle.fallback_iterations) {
        const int fallback = p->vcycles;
        const uint32_t limit = fallback ? p->cycle.fallback_iterations : p->pcg_iterations;
        record_pcg_start(s, r, fallback);
        record_pcg_iterations(s, r, p->cycle.tolerance, limit, p->pcg_batch, 0, limit);
        record_pcg_end(r, p->cycle.tolerance, fallback);
    }
    sinew_record_timestamp(r, SINEW_PHASE_SOLVE);
    dispatch(r, SINEW_KERNEL_MG_ADVANCE, s->n, s->levels - 1, 0, 0, 0, 0);
    if (substep + 1 == p->substeps)
        control(r, SINEW_MG_CONTROL_STATS, 0, 0, 0, 0, 0.0);
}

sinew_result sinew_imc_advance(sinew_imc *s)
{
    sinew_recorder rec;
    sinew_workspace_begin(&rec, s->ctx, &s->ws);
    dispatch(&rec, SINEW_KERNEL_MG_ADVANCE, s->n, s->levels - 1, 0, 0, 0, 0);
    return sinew_workspace_submit(&rec, &s->ws);
}

sinew_result sinew_imc_read_state(sinew_imc *s, float *x, float *v)
{
    float *buf = malloc(sizeof *buf * 4 * ((size_t)s->n + 1));
    if (!buf)
        return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "imc", "out of host memory");
    sinew_result r = SINEW_RESULT_OK;
    for (int pass = 0; pass < 2 && r == SINEW_RESULT_OK; pass++) {
        float *dst = pass ? v : x;
        if (!dst)
            continue;
        r = sinew_buffer_download(s->ctx, &s->body[pass ? SINEW_BIND_VEL : SINEW_BIND_POS], 0, buf, 16ull * s->n);
        for (uint32_t i = 0; i < s->n && r == SINEW_RESULT_OK; i++)
            memcpy(&dst[3 * i], &buf[4 * i], 3 * sizeof *dst);
    }
    free(buf);
    return r;
}

