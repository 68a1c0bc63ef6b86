/* MGPBD on the GPU (Li et al. 2025, "MGPBD: a multigrid accelerated global
 * XPBD solver"; docs/math.md 6; docs/mgpbd.md): the solver's lifetime. The desc
 * and its checks, the constraints taken from an asset (distances and
 * tetrahedra, their rest data and colours, each particle's constraints) or
 * a system given as a matrix, and the particles' state. The images' layout
 * is mgpbd_layout.c's; the recording of the outer loop, mgpbd_solve.c's;
 * the host's operations on the linear solve alone, mgpbd_host.c's. */
#include "mgpbd_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sinew_mgpbd_desc sinew_mgpbd_desc_default(void)
{
    sinew_mgpbd_desc d;
    memset(&d, 0, sizeof d);
    d.distances = 1;
    d.tets = 1;
    d.distance_compliance = 1e-8;
    d.amg = sinew_amg_options_default();
    /* The paper's hierarchy: unsmoothed aggregation with the near-kernel
     * vector in P. On the dual systems measured (docs/mgpbd.md) it takes
     * about as many CG iterations as smoothed aggregation, with coarse
     * operators several times sparser, which the lazy iterations' Galerkin
     * products pay for every outer iteration. */
    d.amg.smooth = 0;
    d.cycle = sinew_amg_cycle_default();
    d.precond = SINEW_MGPBD_PRECOND_AMG;
    d.setup_interval = 20;
    d.coarse = SINEW_MGPBD_COARSE_PRODUCT;
    d.rho = SINEW_MGPBD_RHO_DEVICE;
    d.pcg_iterations = 20;
    d.pcg_tolerance = 1e-3;
    d.pcg_batch = 5;
    d.omega = 1.0;
    d.line_search = 6;
    d.lambda_full = 0;
    d.max_iterations = 100;
    d.tolerance = 1e-2;
    d.cookie = SINEW_DESC_COOKIE;
    return d;
}

uint32_t sinew_mgpbd_constraint_count(const sinew_mgpbd *s) { return s->m; }
uint32_t sinew_mgpbd_particle_count(const sinew_mgpbd *s) { return s->n; }
const sinew_amg *sinew_mgpbd_amg(const sinew_mgpbd *s) { return &s->amg; }

uint32_t sinew_mgpbd_real_chunks(const sinew_mgpbd *s)
{
    uint32_t c = 0;
    while (c < SINEW_AMG_CHUNKS && s->own[SINEW_AMG_BIND_REAL + c].size > 16)
        c++;
    return c;
}

sinew_mgpbd_counters sinew_mgpbd_get_counters(const sinew_mgpbd *s) { return s->counters; }

uint64_t sinew_mgpbd_device_bytes(const sinew_mgpbd *s)
{
    uint64_t b = 0;
    for (int i = 0; i < SINEW_BODY_BINDINGS; i++)
        b += s->body[i].allocated;
    for (int i = 0; i < SINEW_AMG_BINDINGS; i++)
        b += s->own[i].allocated;
    return b;
}

uint32_t sinew_mgpbd_allocations(const sinew_mgpbd *s)
{
    const sinew_buffer *held[SINEW_BODY_BINDINGS + SINEW_AMG_BINDINGS];
    uint32_t count = 0, allocations = 0;
    for (int i = 0; i < SINEW_BODY_BINDINGS; i++)
        held[count++] = &s->body[i];
    for (int i = 0; i < SINEW_AMG_BINDINGS; i++)
        held[count++] = &s->own[i];
    for (uint32_t i = 0; i < count; i++) {
        int first = held[i]->block != NULL;
        for (uint32_t j = 0; j < i && first; j++)
            first = held[j]->block != held[i]->block;
        allocations += (uint32_t)first;
    }
    return allocations;
}

void sinew_mgpbd_destroy(sinew_mgpbd *s)
{
    if (!s)
        return;
    sinew_context *ctx = s->ctx;
    sinew_workspace_destroy(ctx, &s->ws);
    for (int i = 0; i < SINEW_BODY_BINDINGS; i++)
        sinew_buffer_destroy(ctx, &s->body[i]);
    for (int i = 0; i < SINEW_AMG_BINDINGS; i++)
        sinew_buffer_destroy(ctx, &s->own[i]);
    sinew_amg_free(&s->amg);
    sinew_csr_free(&s->pattern);
    sinew_csr_free(&s->x0);
    free(s->readback);
    free(s->setup_x);
    free(s->w);
    free(s->colours);
    free(s);
}

sinew_result sinew_mgpbd_oom(const sinew_mgpbd *s)
{
    return sinew_fail(&s->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mgpbd", "out of host memory");
}

static sinew_result check_desc(sinew_context *ctx, const sinew_mgpbd_desc *d)
{
    if (d->cookie != SINEW_DESC_COOKIE)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the desc was not made by sinew_mgpbd_desc_default");
    if (!(d->omega > 0.0 && d->omega <= 2.0))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "omega is %g; it must be in (0, 2]", d->omega);
    if (!(d->pcg_tolerance >= 0.0) || !(d->tolerance >= 0.0) || !(d->time_budget_ms >= 0.0))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "a tolerance or the time budget is negative or NaN");
    if (d->pcg_iterations == 0 || d->pcg_batch == 0)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "pcg_iterations and pcg_batch must be at least 1");
    if (d->cycle.sweeps == 0 || !(d->cycle.cheby_lower > 0.0 && d->cycle.cheby_lower < d->cycle.cheby_upper) ||
        !(d->cycle.jacobi_weight > 0.0 && d->cycle.jacobi_weight < 2.0) || d->cycle.coarse_sweeps == 0)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the V-cycle's smoother settings are out of range (sweeps >= 1, 0 < lower < upper, "
                          "0 < jacobi_weight < 2, coarse_sweeps >= 1)");
    if (d->chunk_words && (d->chunk_words < 1024 || (d->chunk_words & (d->chunk_words - 1)) ||
                           4ull * d->chunk_words > ctx->limits.maxStorageBufferRange))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "chunk_words is %u; it must be 0 or a power of two >= 1024 within one storage buffer",
                          d->chunk_words);
    if ((unsigned)d->coarse > SINEW_MGPBD_COARSE_GRAM)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd", "unknown coarse operator form %d",
                          (int)d->coarse);
    if ((unsigned)d->rho > SINEW_MGPBD_RHO_DEVICE)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd", "unknown rho source %d",
                          (int)d->rho);
    if ((unsigned)d->precond > SINEW_MGPBD_PRECOND_AMG)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd", "unknown preconditioner %d",
                          (int)d->precond);
    return SINEW_RESULT_OK;
}

static sinew_mgpbd *alloc_solver(sinew_context *ctx, const sinew_mgpbd_desc *desc)
{
    sinew_mgpbd *s = calloc(1, sizeof *s);
    if (s) {
        s->ctx = ctx;
        s->desc = *desc;
        /* chunks of the largest power of two words one binding may hold */
        uint64_t words = desc->chunk_words ? desc->chunk_words : ctx->limits.maxStorageBufferRange / 4;
        s->chunk_shift = 10;
        while (s->chunk_shift < 30 && (2ull << s->chunk_shift) <= words)
            s->chunk_shift++;
    }
    return s;
}

sinew_result sinew_mgpbd_create_system(sinew_context *ctx, const sinew_csr *A, const sinew_mgpbd_desc *desc,
                                       sinew_mgpbd **out)
{
    *out = NULL;
    sinew_result r = check_desc(ctx, desc);
    if (r == SINEW_RESULT_OK)
        r = sinew_csr_check(A, "the system", &ctx->logger);
    if (r != SINEW_RESULT_OK)
        return r;
    if (A->rows == 0 || A->rows != A->cols)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the system is %u x %u; it must be square and not empty", A->rows, A->cols);
    sinew_mgpbd *s = alloc_solver(ctx, desc);
    if (!s)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mgpbd", "out of host memory");
    s->m = A->rows;
    r = sinew_mgpbd_lay_out(s, NULL, NULL, NULL, NULL, A);
    if (r != SINEW_RESULT_OK) {
        sinew_mgpbd_destroy(s);
        return r;
    }
    *out = s;
    return SINEW_RESULT_OK;
}

sinew_result sinew_mgpbd_create(sinew_context *ctx, const sinew_asset *a, const sinew_mgpbd_desc *desc,
                                sinew_mgpbd **out)
{
    *out = NULL;
    sinew_result r = check_desc(ctx, desc);
    if (r != SINEW_RESULT_OK)
        return r;
    const sinew_logger *lg = &ctx->logger;
    uint32_t d = desc->distances ? a->distance_count : 0, t = 0;
    if (desc->tets)
        for (uint32_t e = 0; e < a->element_count; e++)
            t += a->elements[e].kind == SINEW_ELEMENT_TET;
    if (d + t == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "the asset has no %s for MGPBD", desc->tets && desc->distances ? "distance constraints or tetrahedra"
                                                            : desc->tets ? "tetrahedra" : "distance constraints");
    if (d && !desc->distance_compliances && !(desc->distance_compliance > 0.0 && isfinite(desc->distance_compliance)))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                          "distance_compliance is %g; MGPBD's dual system needs it > 0 and finite",
                          desc->distance_compliance);
    if (!(desc->shear_modulus >= 0.0 && isfinite(desc->shear_modulus)))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd", "shear_modulus is %g",
                          desc->shear_modulus);
    sinew_mgpbd *s = alloc_solver(ctx, desc);
    if (!s)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mgpbd", "out of host memory");
    const uint32_t n = a->particle_count, m = d + t;
    s->n = n;
    s->d = d;
    s->t = t;
    s->m = m;
    s->w = malloc(sizeof *s->w * ((size_t)n + 1));
    uint32_t *cons = malloc(16 * ((size_t)m + 1)), *adj_start = calloc((size_t)n + 1, sizeof *adj_start);
    uint32_t *adj = malloc(4 * (2 * (size_t)d + 4 * (size_t)t + 1)), *fill = malloc(4 * ((size_t)n + 1));
    float *rest = calloc(12 * (size_t)m + 1, sizeof *rest);
    uint32_t ncol = (desc->distances ? a->colour_count : 0) + (desc->tets ? a->element_colour_count : 0);
    s->colours = calloc((size_t)ncol + 1, sizeof *s->colours);
    if (!s->w || !cons || !adj_start || !adj || !fill || !rest || !s->colours) {
        r = sinew_mgpbd_oom(s);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++)
        s->w[i] = a->particles[i].w;
    for (uint32_t c = 0; c < d; c++) {
        const sinew_distance_rec *D = &a->distances[c];
        uint32_t v[4] = {D->a, D->b, SINEW_AMG_NONE, SINEW_AMG_NONE};
        memcpy(&cons[4 * c], v, sizeof v);
        rest[12 * c] = D->rest;
        rest[12 * c + 1] = desc->distance_compliances ? desc->distance_compliances[c] : (float)desc->distance_compliance;
        if (!(rest[12 * c + 1] > 0.0f && isfinite(rest[12 * c + 1]))) {
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                           "distance constraint %u has compliance %g; MGPBD's dual system needs it > 0 and finite", c,
                           (double)rest[12 * c + 1]);
            goto done;
        }
    }
    if (d)
        for (uint32_t k = 0; k < a->colour_count; k++)
            if (a->colours[k].distance_count)
                s->colours[s->colour_count++] = (colour_range){a->colours[k].distance_begin, a->colours[k].distance_count};
    uint32_t c = d;
    for (uint32_t k = 0; desc->tets && k < a->element_colour_count; k++) {
        uint32_t first = c;
        const sinew_element_colour_rec *ec = &a->element_colours[k];
        for (uint32_t e = ec->begin; e < ec->begin + ec->count; e++) {
            const sinew_element_rec *E = &a->elements[e];
            if (E->kind != SINEW_ELEMENT_TET)
                continue;
            double mu = desc->shear_modulus;
            if (mu == 0.0) {
                const sinew_material_rec *M = &a->materials[E->material];
                mu = M->youngs_modulus / (2.0 * (1.0 + M->poisson_ratio));
            }
            if (!(mu > 0.0 && isfinite(mu))) {
                r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mgpbd",
                               "tetrahedron %u (element %u) has shear modulus %g; it must be > 0 (its material's "
                               "Young's modulus, or desc.shear_modulus)", c - d, e, mu);
                goto done;
            }
            memcpy(&cons[4 * c], E->v, 16);
            for (int j = 0; j < 3; j++) /* row j of Dm^-1 (stored column-major) */
                for (int k2 = 0; k2 < 3; k2++)
                    rest[12 * c + 3 * j + k2] = E->inv_rest[3 * k2 + j];
            rest[12 * c + 9] = (float)(1.0 / (mu * E->rest_measure));
            c++;
        }
        if (c > first)
            s->colours[s->colour_count++] = (colour_range){first, c - first};
    }
    SINEW_ASSERT(c == m);
    for (uint32_t k = 0; k < m; k++)
        for (int j = 0; j < 4; j++)
            if (cons[4 * k + j] != SINEW_AMG_NONE)
                adj_start[cons[4 * k + j] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        adj_start[i + 1] += adj_start[i];
    memcpy(fill, adj_start, 4ull * n);
    for (uint32_t k = 0; k < m; k++)
        for (uint32_t j = 0; j < 4; j++)
            if (cons[4 * k + j] != SINEW_AMG_NONE)
                adj[fill[cons[4 * k + j]]++] = 4 * k + j;
    r = sinew_mgpbd_lay_out(s, cons, adj_start, adj, rest, NULL);
done:
    free(cons);
    free(adj_start);
    free(adj);
    free(fill);
    free(rest);
    if (r != SINEW_RESULT_OK) {
        sinew_mgpbd_destroy(s);
        return r;
    }
    *out = s;
    return SINEW_RESULT_OK;
}

/* ---------------------------------------------------------------- the state */

sinew_result sinew_mgpbd_set_state(sinew_mgpbd *s, const float *x, const float *v)
{
    float *buf = malloc(sizeof *buf * 4 * ((size_t)s->n + 1));
    if (!buf)
        return sinew_mgpbd_oom(s);
    sinew_result r = SINEW_RESULT_OK;
    for (int pass = 0; pass < 2 && r == SINEW_RESULT_OK; pass++) {
        const float *src = pass ? v : x;
        for (uint32_t i = 0; i < s->n; i++) {
            for (int k = 0; k < 3; k++)
                buf[4 * i + k] = src ? src[3 * i + k] : 0.0f;
            buf[4 * i + 3] = pass ? 0.0f : s->w[i];
        }
        r = sinew_buffer_upload(s->ctx, &s->body[pass ? SINEW_BIND_VEL : SINEW_BIND_POS], 0, buf, 16ull * s->n);
    }
    free(buf);
    return r;
}

sinew_result sinew_mgpbd_setup_at_rest(sinew_mgpbd *s, const sinew_asset *a, float h)
{
    const uint32_t n = a->particle_count;
    SINEW_ASSERT(n == s->n);
    float *x = malloc(sizeof *x * (3 * (size_t)n + 1));
    if (!x)
        return sinew_mgpbd_oom(s);
    double c[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        c[0] += a->particles[i].x / n;
        c[1] += a->particles[i].y / n;
        c[2] += a->particles[i].z / n;
    }
    for (int pass = 0; pass < 2; pass++) {
        const double scale = pass ? 1.0 : 1.01;
        for (uint32_t i = 0; i < n; i++) {
            const sinew_particle_rec *p = &a->particles[i];
            x[3 * i] = (float)(c[0] + scale * (p->x - c[0]));
            x[3 * i + 1] = (float)(c[1] + scale * (p->y - c[1]));
            x[3 * i + 2] = (float)(c[2] + scale * (p->z - c[2]));
        }
        sinew_result r = sinew_mgpbd_set_state(s, x, NULL);
        if (r == SINEW_RESULT_OK && !pass)
            r = sinew_mgpbd_setup_from(s, &s->body[SINEW_BIND_POS], h);
        if (r != SINEW_RESULT_OK) {
            free(x);
            return r;
        }
    }
    free(x);
    return SINEW_RESULT_OK;
}

sinew_result sinew_mgpbd_read_state(sinew_mgpbd *s, float *x, float *v)
{
    float *buf = malloc(sizeof *buf * 4 * ((size_t)s->n + 1));
    if (!buf)
        return sinew_mgpbd_oom(s);
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
