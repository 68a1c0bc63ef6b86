/* Bodies: upload an asset, record the step once, replay it each frame. */
#include "body.h"

#include <sinew/vulkan.h>

#include "collider.h"
#include "solvers/gpbd.h"
#include "solvers/imc.h"
#include "solvers/xpbd_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sinew_body_desc sinew_body_desc_default(void)
{
    sinew_body_desc d = {0};
    d.cookie = SINEW_DESC_COOKIE;
    d.solver = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    d.substeps = 8;  /* small steps: many substeps, one iteration each */
    d.iterations = 1;
    d.stretch_compliance = 0.0f;
    d.shear_compliance = 1e-6f;
    d.bend_compliance = 1e-2f;
    d.jacobi_omega = 1.5f; /* averaging under-relaxes; 1.5 is the usual remedy */
    d.residual = 1;
    d.timestamps = 1;
    d.health_check = 1;
    d.max_speed = 500.0f; /* m/s: far beyond any cloth, well short of a blow-up */
    d.rollback = 1;
    d.newton_iterations = 20; /* the paper's bound; most updates exit after a few */
    d.newton_tolerance = 1e-3f;
    d.level_iterations = 1; /* the paper's one sweep per coarse level */
    d.chebyshev_rho = 0.95f;
    d.chebyshev_delay = 1;
    d.normals = 1;
    d.implicit = (sinew_implicit_desc){
        .stretch = 5e3f, .shear = 500.0f, .bend = 1e-4f, .damping = 0.01f, .density = 0.2f,
        .pin_stiffness = 1e5f, .contact_stiffness = 1e5f, .friction_stiffness = 0.0f,
        .pre_smooth = 5, .post_smooth = 10, .coarse_iterations = 40, /* the paper's 5 and 10 */
        .tolerance = 1e-4f, .max_cycles = 50, .max_pcg_iterations = 100000};
    return d;
}

sinew_step_params sinew_step_params_default(void)
{
    sinew_step_params p = {0};
    p.dt = 1.0f / 60.0f;
    p.gravity[1] = -9.81f;
    p.ground = 1;
    p.sphere_radius = 0.0f;
    p.friction = 0.3f;
    p.contact_offset = 0.005f;
    p.collider_rotation[3] = 1.0f;
    return p;
}

static int finite_nonneg(float x) { return isfinite(x) && x >= 0.0f; }

static sinew_result check_desc(const sinew_context *ctx, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    if (d->solver != SINEW_SOLVER_XPBD_GAUSS_SEIDEL && d->solver != SINEW_SOLVER_XPBD_JACOBI &&
        d->solver != SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL && d->solver != SINEW_SOLVER_GPBD_GAUSS_SEIDEL &&
        d->solver != SINEW_SOLVER_GPBD_JACOBI && d->solver != SINEW_SOLVER_HPBD &&
        d->solver != SINEW_SOLVER_PD_RED_BLACK && d->solver != SINEW_SOLVER_PD_JACOBI &&
        d->solver != SINEW_SOLVER_PD_CHEBYSHEV && !sinew_solver_is_implicit(d->solver))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "unknown solver %d", (int)d->solver);
    if (d->substeps < 1 || d->substeps > 1000 || d->iterations < 1 || d->iterations > 1000)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "substeps (%u) and iterations (%u) must be in 1..1000", d->substeps, d->iterations);
    if (!finite_nonneg(d->stretch_compliance) || !finite_nonneg(d->shear_compliance) ||
        !finite_nonneg(d->bend_compliance))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "compliances must be finite and >= 0 (stretch %g, shear %g, bend %g)",
                          d->stretch_compliance, d->shear_compliance, d->bend_compliance);
    if (!(d->jacobi_omega > 0.0f && d->jacobi_omega <= 2.0f))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "jacobi_omega %g is not in (0, 2]",
                          d->jacobi_omega);
    if (!(isfinite(d->max_speed) && d->max_speed > 0.0f))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "max_speed %g is not finite and > 0",
                          d->max_speed);
    if (d->newton_iterations < 1 || d->newton_iterations > 1000)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "newton_iterations (%u) must be in 1..1000",
                          d->newton_iterations);
    if (!finite_nonneg(d->newton_tolerance) || d->newton_tolerance >= 1.0f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "newton_tolerance %g is not in [0, 1)",
                          d->newton_tolerance);
    if (d->sweep_order != SINEW_SWEEP_DEFAULT && d->sweep_order != SINEW_SWEEP_FORWARD &&
        d->sweep_order != SINEW_SWEEP_ALTERNATING)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "unknown sweep order %d",
                          (int)d->sweep_order);
    if (d->sweep_order == SINEW_SWEEP_ALTERNATING && d->solver != SINEW_SOLVER_XPBD_GAUSS_SEIDEL &&
        d->solver != SINEW_SOLVER_GPBD_GAUSS_SEIDEL && d->solver != SINEW_SOLVER_HPBD)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "alternating sweeps need a Gauss-Seidel solver (XPBD_GAUSS_SEIDEL, GPBD_GAUSS_SEIDEL or "
                          "HPBD)");
    if (d->level_iterations < 1 || d->level_iterations > 100)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "level_iterations (%u) must be in 1..100",
                          d->level_iterations);
    if (!(d->chebyshev_rho > 0.0f && d->chebyshev_rho < 1.0f) || d->chebyshev_delay > 1000)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "chebyshev_rho (%g) must be in (0, 1) and chebyshev_delay (%u) in 0..1000", d->chebyshev_rho,
                          d->chebyshev_delay);
    return SINEW_RESULT_OK;
}

static int is_gpbd(sinew_solver s) { return s == SINEW_SOLVER_GPBD_GAUSS_SEIDEL || s == SINEW_SOLVER_GPBD_JACOBI; }

static int is_jacobi(sinew_solver s) { return s == SINEW_SOLVER_XPBD_JACOBI || s == SINEW_SOLVER_GPBD_JACOBI; }

int sinew_solver_is_pd(sinew_solver s)
{
    return s == SINEW_SOLVER_PD_RED_BLACK || s == SINEW_SOLVER_PD_JACOBI || s == SINEW_SOLVER_PD_CHEBYSHEV;
}

/* What a PD body needs of its asset: springs of finite stiffness, nothing
 * else, and for red-black a partition that is one. */
static sinew_result check_pd_asset(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    if (a->bend_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "the PD solvers simulate springs only; the asset has %u bending hinges (build it with "
                          "sinew-prep --no-bending)", a->bend_count);
    for (uint32_t c = 0; c < a->distance_count; c++) {
        int shear = a->distances[c].kind == SINEW_KIND_SHEAR;
        float compliance = shear ? d->shear_compliance : d->stretch_compliance;
        if (!(compliance > 0.0f))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "the PD solvers need springs of finite stiffness (1/compliance): %s_compliance is 0",
                              shear ? "shear" : "stretch");
    }
    if (d->solver != SINEW_SOLVER_PD_RED_BLACK)
        return SINEW_RESULT_OK;
    if (a->red_count + a->black_count == 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "SINEW_SOLVER_PD_RED_BLACK needs an asset with a red-black partition (sinew-prep "
                          "--red-black); this one has none");
    return sinew_asset_validate_red_black(a, "asset", lg);
}

/* A material for slot `index`: valid, and of a model every element using it
 * can take (kinds_of[index]: bit k set when elements of kind k use it). */
static sinew_result check_material(const sinew_context *ctx, const uint8_t *kinds_of, uint32_t index,
                                   const sinew_material *m)
{
    char where[64];
    snprintf(where, sizeof where, "material %u", index);
    sinew_result r = sinew_material_check(m, where, &ctx->logger);
    if (r != SINEW_RESULT_OK)
        return r;
    for (uint32_t kind = 0; kind < SINEW_ELEMENT_KIND_COUNT; kind++)
        if ((kinds_of[index] >> kind & 1u) && !sinew_gpbd_model_fits(m->model, kind))
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "material %u: a %s material cannot drive the %s elements that use it", index,
                              sinew_material_model_name(m->model),
                              kind == SINEW_ELEMENT_TET ? "tetrahedron" : kind == SINEW_ELEMENT_TRIANGLE ? "triangle"
                                                                                                       : "spring");
    return SINEW_RESULT_OK;
}

/* Jacobi gather lists: particle i reads DELTA entries ADJ[start[i] .. start[i+1])
 * in constraint order, which fixes the summation order (determinism). */
static int build_adjacency(const sinew_asset *a, uint32_t **start_out, uint32_t **adj_out)
{
    uint32_t n = a->particle_count;
    uint32_t slots = 2 * a->distance_count + 4 * a->bend_count + 4 * a->element_count;
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *adj = malloc(((size_t)slots + 1) * sizeof *adj);
    uint32_t *fill = calloc((size_t)n + 1, sizeof *fill);
    if (!start || !adj || !fill) {
        free(start); free(adj); free(fill);
        return 0;
    }
    for (uint32_t c = 0; c < a->distance_count; c++) {
        start[a->distances[c].a + 1]++;
        start[a->distances[c].b + 1]++;
    }
    for (uint32_t c = 0; c < a->bend_count; c++)
        for (int j = 0; j < 4; j++)
            start[a->bends[c].v[j] + 1]++;
    for (uint32_t e = 0; e < a->element_count; e++)
        for (int j = 0; j < 4; j++)
            if (a->elements[e].v[j] != SINEW_NO_VERTEX)
                start[a->elements[e].v[j] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    memcpy(fill, start, (size_t)n * sizeof *fill);
    for (uint32_t c = 0; c < a->distance_count; c++) {
        adj[fill[a->distances[c].a]++] = 2 * c;
        adj[fill[a->distances[c].b]++] = 2 * c + 1;
    }
    for (uint32_t c = 0; c < a->bend_count; c++)
        for (uint32_t j = 0; j < 4; j++)
            adj[fill[a->bends[c].v[j]]++] = 2 * a->distance_count + 4 * c + j;
    for (uint32_t e = 0; e < a->element_count; e++)
        for (uint32_t j = 0; j < 4; j++)
            if (a->elements[e].v[j] != SINEW_NO_VERTEX)
                adj[fill[a->elements[e].v[j]]++] = 2 * a->distance_count + 4 * a->bend_count + 4 * e + j;
    free(fill);
    *start_out = start;
    *adj_out = adj;
    return 1;
}

static sinew_result upload_hierarchy(sinew_body *b);

/* PD: each spring's local solution from the rest pose (kept by a spring
 * whose ends ever coincide; L along x when they coincide at rest) and, for
 * red-black, the particles reds first. */
static sinew_result upload_pd(sinew_body *b, const sinew_asset *a)
{
    sinew_context *ctx = b->ctx;
    const uint32_t n = a->particle_count, count = a->distance_count;
    float *d = calloc(4 * (size_t)count + 4, sizeof *d);
    uint32_t *order = malloc(sizeof *order * ((size_t)n + 1));
    sinew_result r = d && order ? SINEW_RESULT_OK
                                : sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body",
                                             "out of host memory");
    for (uint32_t c = 0; c < count && r == SINEW_RESULT_OK; c++) {
        const sinew_distance_rec *s = &a->distances[c];
        const sinew_particle_rec *pa = &a->particles[s->a], *pb = &a->particles[s->b];
        double e[3] = {(double)pa->x - pb->x, (double)pa->y - pb->y, (double)pa->z - pb->z};
        double len = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        for (int k = 0; k < 3; k++)
            d[4 * c + k] = len > 1e-12 * s->rest ? (float)(s->rest * e[k] / len) : k == 0 ? s->rest : 0.0f;
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_DELTA], 0, d, 16ull * count);
    if (r == SINEW_RESULT_OK && b->desc.solver == SINEW_SOLVER_PD_RED_BLACK) {
        memcpy(order, a->reds, sizeof *order * a->red_count);
        memcpy(order + a->red_count, a->blacks, sizeof *order * a->black_count);
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_ORDER], 0, order, 4ull * n);
    }
    free(d);
    free(order);
    return r;
}

/* MESH: for each particle, the pairs (a, b) that close its triangles in
 * their winding order, after n + 1 offsets into the same array. */
static sinew_result upload_mesh(sinew_body *b, const sinew_asset *a)
{
    const uint32_t n = a->particle_count, t = a->triangle_count;
    uint32_t *mesh = calloc((size_t)n + 1 + 6 * (size_t)t, sizeof *mesh);
    uint32_t *fill = calloc((size_t)n + 1, sizeof *fill);
    sinew_result r = mesh && fill ? SINEW_RESULT_OK
                                  : sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body",
                                               "out of host memory");
    if (r == SINEW_RESULT_OK) {
        for (uint32_t k = 0; k < t; k++)
            for (int c = 0; c < 3; c++)
                mesh[a->triangles[k].v[c] + 1] += 2;
        mesh[0] = n + 1;
        for (uint32_t i = 0; i < n; i++)
            mesh[i + 1] += mesh[i];
        memcpy(fill, mesh, sizeof *fill * n);
        for (uint32_t k = 0; k < t; k++)
            for (int c = 0; c < 3; c++) {
                const uint32_t *v = a->triangles[k].v;
                uint32_t i = v[c];
                mesh[fill[i]++] = v[(c + 1) % 3];
                mesh[fill[i]++] = v[(c + 2) % 3];
            }
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_MESH], 0, mesh,
                                4ull * (n + 1ull + 6ull * t));
    }
    free(mesh);
    free(fill);
    return r;
}

static sinew_result upload_asset(sinew_body *b, const sinew_asset *a)
{
    sinew_context *ctx = b->ctx;
    const sinew_body_desc *d = &b->desc;
    const uint32_t n = a->particle_count;
    const int jacobi = is_jacobi(d->solver);
    const int pd = sinew_solver_is_pd(d->solver);
    const int gather = jacobi || pd; /* per-particle lists of constraints */
    const uint64_t slots = 2ull * a->distance_count + 4ull * a->bend_count + 4ull * a->element_count;
    /* PD: the springs' local solutions, then (Jacobi) the iterate and
     * (Chebyshev) the previous one. */
    const uint64_t pd_vectors = a->distance_count + (uint64_t)n * (d->solver == SINEW_SOLVER_PD_JACOBI ? 1
                                                                   : d->solver == SINEW_SOLVER_PD_CHEBYSHEV ? 2 : 0);
    struct { int bind; uint64_t size; sinew_memory memory; const char *what; } plan[] = {
        {SINEW_BIND_POS, 16ull * n, SINEW_MEMORY_DEVICE, "positions"},
        {SINEW_BIND_PREV, 16ull * n, SINEW_MEMORY_DEVICE, "previous positions"},
        {SINEW_BIND_VEL, 16ull * n, SINEW_MEMORY_DEVICE, "velocities"},
        {SINEW_BIND_DIST, sizeof(GpuDistance) * (uint64_t)a->distance_count, SINEW_MEMORY_DEVICE, "distance constraints"},
        {SINEW_BIND_BEND, sizeof(GpuBend) * (uint64_t)a->bend_count, SINEW_MEMORY_DEVICE, "bending constraints"},
        {SINEW_BIND_LAMBDA, pd ? 0 : 4ull * (a->distance_count + (uint64_t)a->bend_count), SINEW_MEMORY_DEVICE,
         "multipliers"},
        {SINEW_BIND_DELTA, jacobi ? 16ull * slots : pd ? 16ull * pd_vectors : 0, SINEW_MEMORY_DEVICE,
         pd ? "local solutions and iterates" : "Jacobi corrections"},
        {SINEW_BIND_ADJ_START, gather ? 4ull * (n + 1ull) : 0, SINEW_MEMORY_DEVICE, "gather offsets"},
        {SINEW_BIND_ADJ, gather ? 4ull * slots : 0, SINEW_MEMORY_DEVICE, "gather lists"},
        {SINEW_BIND_PARAMS, sizeof(GpuParams), SINEW_MEMORY_HOST, "step parameters"},
        {SINEW_BIND_PARTIAL,
         16ull * (((a->distance_count > a->element_count ? a->distance_count : a->element_count) +
                   SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE),
         SINEW_MEMORY_DEVICE, "residual partials"},
        {SINEW_BIND_STATS, sizeof(GpuStats), SINEW_MEMORY_HOST, "residual"},
        {SINEW_BIND_ANGLE, 4ull * a->bend_count, SINEW_MEMORY_DEVICE, "hinge angles"},
        {SINEW_BIND_ELEM, sizeof(GpuElement) * (uint64_t)a->element_count, SINEW_MEMORY_DEVICE, "elements"},
        {SINEW_BIND_ZDISP, 64ull * a->element_count, SINEW_MEMORY_DEVICE, "element displacements"},
        {SINEW_BIND_MATERIAL, sizeof(GpuMaterial) * (uint64_t)b->material_count, SINEW_MEMORY_DEVICE, "materials"},
        {SINEW_BIND_Q,
         sinew_solver_is_implicit(d->solver) && d->implicit.bdf2 ? 32ull * n : b->level_count || pd ? 16ull * n : 0,
         SINEW_MEMORY_DEVICE,
         pd ? "predicted positions" : sinew_solver_is_implicit(d->solver) ? "the step before (BDF2)"
                                                                           : "hierarchy start positions"},
        {SINEW_BIND_HDIST, sizeof(GpuDistance) * (uint64_t)b->hdistance_count, SINEW_MEMORY_DEVICE,
         "coarse constraints"},
        {SINEW_BIND_HNODE, b->level_count ? sizeof(GpuNode) * (uint64_t)n : 0, SINEW_MEMORY_DEVICE,
         "hierarchy nodes"},
        {SINEW_BIND_HLINK, sizeof(GpuLink) * (uint64_t)b->link_count, SINEW_MEMORY_DEVICE, "parent links"},
        {SINEW_BIND_ORDER, d->solver == SINEW_SOLVER_PD_RED_BLACK ? 4ull * n : 0, SINEW_MEMORY_DEVICE,
         "red-black order"},
        {SINEW_BIND_MESH, b->normals ? 4ull * (n + 1ull + 6ull * a->triangle_count) : 0, SINEW_MEMORY_DEVICE,
         "triangles around each particle"},
        {SINEW_BIND_NORMAL, b->normals ? 16ull * n : 0, SINEW_MEMORY_DEVICE, "vertex normals"},
        {SINEW_BIND_MG_INDEX, 0, SINEW_MEMORY_DEVICE, "multigrid indices"},
        {SINEW_BIND_MG_REAL, 0, SINEW_MEMORY_DEVICE, "multigrid matrices and vectors"},
        {SINEW_BIND_SDF, 0, SINEW_MEMORY_DEVICE, "no mesh collider"}, /* the collider's own, when given */
        {SINEW_BIND_AMG_INDEX, 0, SINEW_MEMORY_DEVICE, "MGPBD indices"},
        {SINEW_BIND_AMG_INDEX + 1, 0, SINEW_MEMORY_DEVICE, "MGPBD indices"},
        {SINEW_BIND_AMG_REAL, 0, SINEW_MEMORY_DEVICE, "MGPBD values"},
        {SINEW_BIND_AMG_REAL + 1, 0, SINEW_MEMORY_DEVICE, "MGPBD values"},
    };
    _Static_assert(sizeof plan / sizeof plan[0] == SINEW_BIND_COUNT, "one buffer per binding");
    sinew_result r;
    for (int i = 0; i < SINEW_BIND_COUNT; i++) /* refused before anything is allocated */
        if ((r = sinew_buffer_check_size(ctx, plan[i].size, plan[i].what)) != SINEW_RESULT_OK)
            return r;
    for (int i = 0; i < SINEW_BIND_COUNT; i++)
        if ((r = sinew_buffer_create(ctx, plan[i].size, plan[i].memory, plan[i].what,
                                     &b->buffers[plan[i].bind])) != SINEW_RESULT_OK)
            return r;

    /* Fill every buffer once so nothing is ever read uninitialised. */
    size_t scratch_size = 0;
    for (int i = 0; i < SINEW_BIND_COUNT; i++)
        if (b->buffers[i].size > scratch_size)
            scratch_size = (size_t)b->buffers[i].size;
    void *scratch = calloc(1, scratch_size);
    if (!scratch)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    for (int i = 0; i < SINEW_BIND_COUNT && r == SINEW_RESULT_OK; i++)
        r = sinew_buffer_upload(ctx, &b->buffers[i], 0, scratch, b->buffers[i].size);

    float *pos = scratch;
    for (uint32_t i = 0; i < n && r == SINEW_RESULT_OK; i++)
        memcpy(&pos[4 * i], &a->particles[i], 16);
    if (r == SINEW_RESULT_OK) {
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_POS], 0, pos, 16ull * n);
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_PREV], 0, pos, 16ull * n);
    }
    GpuDistance *dist = b->dist_host;
    for (uint32_t c = 0; c < a->distance_count; c++) {
        const sinew_distance_rec *s = &a->distances[c];
        float alpha = s->kind == SINEW_KIND_SHEAR ? d->shear_compliance : d->stretch_compliance;
        dist[c] = (GpuDistance){s->a, s->b, s->rest, alpha};
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_DIST], 0, dist,
                                sizeof(GpuDistance) * (uint64_t)a->distance_count);
    GpuBend *bend = b->bend_host;
    for (uint32_t c = 0; c < a->bend_count; c++) {
        const sinew_bend_rec *s = &a->bends[c];
        bend[c] = (GpuBend){{s->v[0], s->v[1], s->v[2], s->v[3]}, s->rest_angle, d->bend_compliance, 0, 0};
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_BEND], 0, bend,
                                sizeof(GpuBend) * (uint64_t)a->bend_count);
    if (r == SINEW_RESULT_OK && b->level_count)
        r = upload_hierarchy(b);
    float *angle = scratch; /* the asset's positions are its rest pose */
    for (uint32_t c = 0; c < a->bend_count && r == SINEW_RESULT_OK; c++)
        angle[c] = a->bends[c].rest_angle;
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_ANGLE], 0, angle, 4ull * a->bend_count);
    GpuElement *elem = scratch;
    for (uint32_t e = 0; e < a->element_count && r == SINEW_RESULT_OK; e++)
        elem[e] = sinew_gpbd_element(&a->elements[e]);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_ELEM], 0, elem,
                                sizeof(GpuElement) * (uint64_t)a->element_count);
    GpuMaterial *mat = scratch;
    for (uint32_t m = 0; m < b->material_count && r == SINEW_RESULT_OK; m++)
        mat[m] = sinew_gpbd_material(&b->materials[m]);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_MATERIAL], 0, mat,
                                sizeof(GpuMaterial) * (uint64_t)b->material_count);
    free(scratch);
    b->topology_crc = sinew_crc32(0, &n, sizeof n);
    b->topology_crc = sinew_crc32(b->topology_crc, a->distances, sizeof *a->distances * a->distance_count);
    b->topology_crc = sinew_crc32(b->topology_crc, a->bends, sizeof *a->bends * a->bend_count);
    if (a->element_count)
        b->topology_crc = sinew_crc32(b->topology_crc, a->elements, sizeof *a->elements * a->element_count);
    b->topology_base = b->topology_crc;
    if (r == SINEW_RESULT_OK && d->rollback)
        r = sinew_buffer_create(ctx, 32ull * n + 4ull * a->bend_count, SINEW_MEMORY_DEVICE, "rollback copy",
                                &b->saved);
    if (r == SINEW_RESULT_OK && pd)
        r = upload_pd(b, a);
    if (r == SINEW_RESULT_OK && b->normals)
        r = upload_mesh(b, a);
    if (r != SINEW_RESULT_OK || !gather)
        return r;

    uint32_t *start, *adj;
    if (!build_adjacency(a, &start, &adj))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_ADJ_START], 0, start, 4ull * (n + 1ull));
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_ADJ], 0, adj, 4ull * slots);
    free(start);
    free(adj);
    return r;
}

static sinew_result upload_hierarchy(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    sinew_result r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_HDIST], 0, b->hdist_host,
                                         sizeof(GpuDistance) * (uint64_t)b->hdistance_count);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_HNODE], 0, b->nodes,
                                sizeof(GpuNode) * (uint64_t)b->particle_count);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_HLINK], 0, b->links,
                                sizeof(GpuLink) * (uint64_t)b->link_count);
    return r;
}

/* Host copies of the constraints (for cuts) and, for HPBD, of the hierarchy as
 * the device holds it. */
static sinew_result copy_constraints(sinew_body *b, const sinew_asset *a)
{
    b->dist_host = malloc(sizeof *b->dist_host * ((size_t)a->distance_count + 1));
    b->bend_host = malloc(sizeof *b->bend_host * ((size_t)a->bend_count + 1));
    b->dist_cut = calloc((size_t)a->distance_count + 1, 1);
    b->bend_cut = calloc((size_t)a->bend_count + 1, 1);
    int ok = b->dist_host && b->bend_host && b->dist_cut && b->bend_cut;
    if (ok && b->desc.solver == SINEW_SOLVER_HPBD) {
        b->level_count = a->level_count;
        b->hdistance_count = a->hdistance_count;
        b->link_count = a->link_count;
        b->levels = malloc(sizeof *b->levels * a->level_count);
        b->hcolours = malloc(sizeof *b->hcolours * ((size_t)a->hcolour_count + 1));
        b->hdist_host = malloc(sizeof *b->hdist_host * ((size_t)a->hdistance_count + 1));
        b->nodes = malloc(sizeof *b->nodes * a->particle_count);
        b->links = malloc(sizeof *b->links * ((size_t)a->link_count + 1));
        ok = b->levels && b->hcolours && b->hdist_host && b->nodes && b->links;
        if (ok) {
            memcpy(b->levels, a->levels, sizeof *b->levels * a->level_count);
            if (a->hcolour_count)
                memcpy(b->hcolours, a->hcolours, sizeof *b->hcolours * a->hcolour_count);
            for (uint32_t c = 0; c < a->hdistance_count; c++) {
                const sinew_distance_rec *s = &a->hdistances[c];
                b->hdist_host[c] = (GpuDistance){s->a, s->b, s->rest, 0.0f};
            }
            for (uint32_t i = 0; i < a->particle_count; i++) {
                const sinew_node_rec *v = &a->nodes[i];
                b->nodes[i] = (GpuNode){v->particle, v->link_begin, v->link_count, v->level};
            }
            for (uint32_t k = 0; k < a->link_count; k++)
                b->links[k] = (GpuLink){a->links[k].parent, a->links[k].weight};
        }
    }
    if (!ok)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    return SINEW_RESULT_OK;
}

/* Host copies of what the recording and set_material need: element colour
 * ranges, the materials (the asset's or the desc's, checked) and which element
 * kinds use each material. */
static sinew_result copy_elements(sinew_body *b, const sinew_asset *a)
{
    const sinew_logger *lg = &b->ctx->logger;
    b->element_count = a->element_count;
    b->element_colour_count = a->element_colour_count;
    b->material_count = a->material_count;
    b->element_colours = malloc(sizeof *b->element_colours * ((size_t)a->element_colour_count + 1));
    b->materials = malloc(sizeof *b->materials * ((size_t)a->material_count + 1));
    b->material_kinds = calloc((size_t)a->material_count + 1, 1);
    if (!b->element_colours || !b->materials || !b->material_kinds)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    if (a->element_colour_count)
        memcpy(b->element_colours, a->element_colours, sizeof *b->element_colours * a->element_colour_count);
    const sinew_material *src = b->desc.materials ? b->desc.materials : a->materials;
    if (a->material_count)
        memcpy(b->materials, src, sizeof *b->materials * a->material_count);
    b->desc.materials = NULL; /* borrowed for the call only */
    for (uint32_t e = 0; e < a->element_count; e++)
        b->material_kinds[a->elements[e].material] |= (uint8_t)(1u << a->elements[e].kind);
    for (uint32_t m = 0; m < a->material_count; m++) {
        sinew_result r = check_material(b->ctx, b->material_kinds, m, &b->materials[m]);
        if (r != SINEW_RESULT_OK)
            return r;
    }
    return SINEW_RESULT_OK;
}

static sinew_result record_step(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = ctx->command_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VK_TRY(ctx, vk->vkAllocateCommandBuffers(ctx->device, &ai, &b->cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fi.flags = VK_FENCE_CREATE_SIGNALED_BIT; /* "no step in flight" */
    VK_TRY(ctx, vk->vkCreateFence(ctx->device, &fi, NULL, &b->fence));
    /* Timestamps: one at the start, then per substep after predict, after
     * each iteration's solve and contacts, after velocities; one after the
     * residual and health check. */
    uint64_t wanted = 1 + (uint64_t)b->desc.substeps * (2 + 2ull * b->desc.iterations + (b->level_count > 0)) + 1;
    if (b->desc.timestamps && ctx->timestamp_bits && wanted > SINEW_MAX_TIMESTAMPS)
        sinew_logf(&ctx->logger, SINEW_LOG_INFO, "body", "%llu timestamps per step are too many: phases not timed",
                   (unsigned long long)wanted);
    if (b->desc.timestamps && ctx->timestamp_bits && wanted <= SINEW_MAX_TIMESTAMPS) {
        VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = (uint32_t)wanted;
        VK_TRY(ctx, vk->vkCreateQueryPool(ctx->device, &qi, NULL, &b->queries));
        b->query_results = calloc(wanted, sizeof *b->query_results);
        b->query_phase = calloc(wanted, sizeof *b->query_phase);
        if (!b->query_results || !b->query_phase)
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }

    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_TRY(ctx, vk->vkBeginCommandBuffer(b->cmd, &bi));
    if (b->queries)
        vk->vkCmdResetQueryPool(b->cmd, b->queries, 0, (uint32_t)wanted);
    vk->vkCmdBindDescriptorSets(b->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipeline_layout, 0, 1, &b->set, 0,
                                NULL);
    sinew_recorder rec = {ctx, b->cmd};
    rec.queries = b->queries;
    rec.query_capacity = b->queries ? (uint32_t)wanted : 0;
    rec.phase_of = b->query_phase;
    const uint64_t n = b->particle_count;
    if (sinew_solver_is_implicit(b->desc.solver)) { /* the solves come first, each its own submit */
        sinew_record_timestamp(&rec, SINEW_PHASE_START);
        sinew_record_step_end(b, &rec);
    } else if (b->desc.rollback) {
        const uint64_t bends = b->bend_count;
        sinew_record_copy(&rec, &b->buffers[SINEW_BIND_POS], 0, &b->saved, 0, 16 * n);
        sinew_record_copy(&rec, &b->buffers[SINEW_BIND_VEL], 0, &b->saved, 16 * n, 16 * n);
        sinew_record_copy(&rec, &b->buffers[SINEW_BIND_ANGLE], 0, &b->saved, 32 * n, 4 * bends);
        rec.bytes += 64 * n + 8 * bends;
    }
    if (!sinew_solver_is_implicit(b->desc.solver))
        sinew_xpbd_record(b, &rec);
    VK_TRY(ctx, vk->vkEndCommandBuffer(b->cmd));
    b->dispatches = rec.dispatches;
    b->barriers = rec.barriers;
    b->bytes = rec.bytes;
    b->query_count = rec.query_count;
    return SINEW_RESULT_OK;
}

/* The body's buffers, the mesh collider's field in place of the empty one. */
static sinew_result descriptor_set(sinew_body *b)
{
    sinew_buffer bound[SINEW_BIND_COUNT];
    memcpy(bound, b->buffers, sizeof bound);
    if (b->collider)
        bound[SINEW_BIND_SDF] = b->collider->grid;
    return sinew_descriptor_set_create(b->ctx, bound, &b->descriptor_pool, &b->set);
}

sinew_result sinew_body_create(sinew_context *ctx, const sinew_asset *asset, const sinew_body_desc *desc,
                               sinew_body **out)
{
    SINEW_ASSERT(ctx && asset && desc && out);
    SINEW_ASSERT(desc->cookie == SINEW_DESC_COOKIE && "desc must come from sinew_body_desc_default");
    *out = NULL;
    sinew_result r = check_desc(ctx, desc);
    if (r != SINEW_RESULT_OK)
        return r;
    if (asset->particle_count == 0)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "asset has no particles");
    if (asset->element_count && !is_gpbd(desc->solver))
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "the asset has %u finite elements, which only the GPBD solvers simulate "
                          "(SINEW_SOLVER_GPBD_GAUSS_SEIDEL or SINEW_SOLVER_GPBD_JACOBI)", asset->element_count);
    if (desc->solver == SINEW_SOLVER_HPBD && asset->level_count < 2)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "SINEW_SOLVER_HPBD needs an asset with a hierarchy (sinew-prep --hierarchy LEVELS); this "
                          "one has none");
    if (sinew_solver_is_pd(desc->solver) && (r = check_pd_asset(ctx, asset, desc)) != SINEW_RESULT_OK)
        return r;
    if (sinew_solver_is_implicit(desc->solver) && (r = sinew_implicit_check(ctx, asset, desc)) != SINEW_RESULT_OK)
        return r;
    if (desc->collider && desc->collider->ctx != ctx)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "desc.collider '%s' was made on another context", desc->collider->name);
    if (desc->materials && desc->material_count != asset->material_count)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "desc gives %u materials; the asset's table has %u", desc->material_count,
                          asset->material_count);
    sinew_body *b = calloc(1, sizeof *b);
    if (!b)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    b->ctx = ctx;
    b->desc = *desc;
    b->collider = desc->collider;
    if (b->collider)
        sinew_collider_retain(b->collider);
    if (b->desc.sweep_order == SINEW_SWEEP_DEFAULT)
        b->desc.sweep_order = desc->solver == SINEW_SOLVER_HPBD ? SINEW_SWEEP_ALTERNATING : SINEW_SWEEP_FORWARD;
    snprintf(b->name, sizeof b->name, "%s", desc->name ? desc->name : "body");
    b->desc.name = b->name;
    b->particle_count = asset->particle_count;
    b->distance_count = asset->distance_count;
    b->bend_count = asset->bend_count;
    b->colour_count = asset->colour_count;
    b->red_count = asset->red_count;
    b->normals = desc->normals && asset->triangle_count > 0;
    b->triangle_count = asset->triangle_count;
    b->colours = malloc((asset->colour_count + 1) * sizeof *b->colours);
    if (!b->colours) {
        free(b);
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    if (asset->colour_count)
        memcpy(b->colours, asset->colours, asset->colour_count * sizeof *b->colours);
    if ((r = copy_elements(b, asset)) != SINEW_RESULT_OK || (r = copy_constraints(b, asset)) != SINEW_RESULT_OK ||
        (r = upload_asset(b, asset)) != SINEW_RESULT_OK ||
        (sinew_solver_is_implicit(desc->solver) && (r = sinew_implicit_create(b, asset)) != SINEW_RESULT_OK) ||
        (r = descriptor_set(b)) != SINEW_RESULT_OK ||
        (r = record_step(b)) != SINEW_RESULT_OK) {
        sinew_body_destroy(b);
        return r;
    }
    if (b->imc)
        sinew_imc_use_set(b->imc, b->set);
    b->stats.max_strain = b->stats.rms_strain = -1.0f;
    b->stats.max_measure_error = b->stats.rms_measure_error = -1.0f;
    b->stats.max_speed = -1.0f;
    b->stats.ms_predict = b->stats.ms_solve = b->stats.ms_contacts = b->stats.ms_velocity = -1.0;
    b->stats.ms_residual = b->stats.ms_total = -1.0;
    b->stats.dispatches = b->dispatches;
    b->stats.barriers = b->barriers;
    b->stats.bytes = b->bytes;
    for (int i = 0; i < SINEW_BIND_COUNT; i++)
        b->stats.device_memory += b->buffers[i].allocated;
    b->stats.device_memory += b->saved.allocated;
    *out = b;
    return SINEW_RESULT_OK;
}

void sinew_body_destroy(sinew_body *b)
{
    if (!b)
        return;
    sinew_context *ctx = b->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    if (b->fence) {
        if (!ctx->lost)
            vk->vkWaitForFences(ctx->device, 1, &b->fence, VK_TRUE, UINT64_MAX);
        vk->vkDestroyFence(ctx->device, b->fence, NULL);
    }
    if (b->cmd)
        vk->vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &b->cmd);
    if (b->queries)
        vk->vkDestroyQueryPool(ctx->device, b->queries, NULL);
    sinew_imc_destroy(b->imc);
    if (b->descriptor_pool)
        vk->vkDestroyDescriptorPool(ctx->device, b->descriptor_pool, NULL);
    for (int i = 0; i < SINEW_BIND_COUNT; i++)
        sinew_buffer_destroy(ctx, &b->buffers[i]);
    sinew_buffer_destroy(ctx, &b->saved);
    free(b->query_results);
    free(b->query_phase);
    free(b->colours);
    free(b->element_colours);
    free(b->materials);
    free(b->material_kinds);
    free(b->dist_host);
    free(b->bend_host);
    free(b->dist_cut);
    free(b->bend_cut);
    free(b->levels);
    free(b->hcolours);
    free(b->hdist_host);
    free(b->nodes);
    free(b->links);
    free(b->unpinned_w);
    sinew_collider_destroy(b->collider);
    free(b);
}

static sinew_result check_params(const sinew_body *b, const sinew_step_params *p)
{
    const sinew_logger *lg = &b->ctx->logger;
    const float v[] = {p->dt, p->gravity[0], p->gravity[1], p->gravity[2], p->damping, p->ground_height,
                       p->sphere_center[0], p->sphere_center[1], p->sphere_center[2], p->sphere_radius,
                       p->friction, p->contact_offset, p->box_center[0], p->box_center[1], p->box_center[2],
                       p->box_half_extents[0], p->box_half_extents[1], p->box_half_extents[2],
                       p->box_velocity[0], p->box_velocity[1], p->box_velocity[2], p->capsule_a[0],
                       p->capsule_a[1], p->capsule_a[2], p->capsule_b[0], p->capsule_b[1], p->capsule_b[2],
                       p->capsule_radius, p->collider_position[0], p->collider_position[1],
                       p->collider_position[2], p->collider_rotation[0], p->collider_rotation[1],
                       p->collider_rotation[2], p->collider_rotation[3], p->collider_velocity[0],
                       p->collider_velocity[1], p->collider_velocity[2]};
    const char *names[] = {"dt", "gravity.x", "gravity.y", "gravity.z", "damping", "ground_height",
                           "sphere_center.x", "sphere_center.y", "sphere_center.z", "sphere_radius",
                           "friction", "contact_offset", "box_center.x", "box_center.y", "box_center.z",
                           "box_half_extents.x", "box_half_extents.y", "box_half_extents.z",
                           "box_velocity.x", "box_velocity.y", "box_velocity.z", "capsule_a.x", "capsule_a.y",
                           "capsule_a.z", "capsule_b.x", "capsule_b.y", "capsule_b.z", "capsule_radius",
                           "collider_position.x", "collider_position.y", "collider_position.z",
                           "collider_rotation.x", "collider_rotation.y", "collider_rotation.z",
                           "collider_rotation.w", "collider_velocity.x", "collider_velocity.y",
                           "collider_velocity.z"};
    _Static_assert(sizeof v / sizeof v[0] == sizeof names / sizeof names[0], "a name per value");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i]))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "step parameter %s is not finite",
                              names[i]);
    if (!(p->dt > 0.0f))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "dt must be > 0 (got %g)", p->dt);
    const float nonneg[] = {p->damping, p->friction, p->contact_offset, p->sphere_radius, p->capsule_radius};
    const char *nonneg_names[] = {"damping", "friction", "contact_offset", "sphere_radius", "capsule_radius"};
    for (size_t i = 0; i < sizeof nonneg / sizeof nonneg[0]; i++)
        if (nonneg[i] < 0.0f)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "step parameter %s (%g) must be >= 0",
                              nonneg_names[i], nonneg[i]);
    if (p->box_half_extents[0] < 0.0f || p->box_half_extents[1] < 0.0f || p->box_half_extents[2] < 0.0f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "box_half_extents (%g, %g, %g) must be >= 0", p->box_half_extents[0],
                          p->box_half_extents[1], p->box_half_extents[2]);
    if (p->collider && !b->collider)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "step parameter collider is set but body '%s' was made without a mesh collider "
                          "(sinew_body_desc.collider)", b->name);
    const float *q = p->collider_rotation;
    double q2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    if (p->collider && !(q2 > 1e-12))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "collider_rotation (%g, %g, %g, %g) is not a rotation: a quaternion of length %g", q[0], q[1],
                          q[2], q[3], sqrt(q2));
    return SINEW_RESULT_OK;
}

static void read_timestamps(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    uint64_t *t = b->query_results;
    uint32_t count = b->query_count;
    if (count < 2 || ctx->vk.vkGetQueryPoolResults(ctx->device, b->queries, 0, count, count * sizeof *t, t, sizeof *t,
                                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
        return;
    double phase[SINEW_PHASE_COUNT] = {0};
    for (uint32_t i = 1; i < count; i++)
        phase[b->query_phase[i]] += sinew_timestamp_ms(ctx, t[i - 1], t[i]);
    sinew_step_stats *s = &b->stats;
    s->ms_predict = phase[SINEW_PHASE_PREDICT];
    s->ms_solve = phase[SINEW_PHASE_SOLVE];
    s->ms_contacts = phase[SINEW_PHASE_CONTACTS];
    s->ms_velocity = phase[SINEW_PHASE_VELOCITY];
    s->ms_residual = b->desc.residual || b->desc.health_check ? phase[SINEW_PHASE_RESIDUAL] : -1.0;
    s->ms_total = sinew_timestamp_ms(ctx, t[0], t[count - 1]);
}

/* The health check failed: undo the step if we can, and say what went wrong. */
static sinew_result unhealthy(sinew_body *b, int can_roll_back)
{
    sinew_context *ctx = b->ctx;
    sinew_step_stats *s = &b->stats;
    const uint64_t n = b->particle_count;
    if (b->desc.rollback && can_roll_back) {
        sinew_result r = sinew_buffer_copy(ctx, &b->saved, 0, &b->buffers[SINEW_BIND_POS], 0, 16 * n);
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_copy(ctx, &b->saved, 16 * n, &b->buffers[SINEW_BIND_VEL], 0, 16 * n);
        if (r == SINEW_RESULT_OK && !b->imc) /* the implicit solvers keep no hinge angles */
            r = sinew_buffer_copy(ctx, &b->saved, 32 * n, &b->buffers[SINEW_BIND_ANGLE], 0, 4ull * b->bend_count);
        if (r != SINEW_RESULT_OK)
            return r;
        s->rolled_back = 1;
        b->history = 0; /* the step before is gone: the next is backward Euler */
    } else {
        s->step_index++; /* the step happened, for better or worse */
    }
    return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "health",
                      "body '%s', step %llu: %u of %u particles are not finite or faster than %g m/s "
                      "(particles %u..%u; fastest finite %g m/s); %s",
                      b->name, (unsigned long long)s->step_index + s->rolled_back, s->bad_particles, b->particle_count,
                      b->desc.max_speed, s->first_bad, s->last_bad, s->max_speed,
                      s->rolled_back ? "rolled back to the state before the step"
                      : can_roll_back ? "no rollback copy (desc.rollback = 0): the state is as the step left it"
                                      : "a recorded step is not rolled back: the state is as the step left it");
}

/* The step's values as the kernels read them. */
static GpuParams gpu_params(const sinew_body *b, const sinew_step_params *p)
{
    const float h = p->dt / (float)b->desc.substeps;
    GpuParams gp = {{p->gravity[0], p->gravity[1], p->gravity[2], h},
                    {p->sphere_center[0], p->sphere_center[1], p->sphere_center[2], p->sphere ? p->sphere_radius : -1.0f},
                    {p->box_center[0], p->box_center[1], p->box_center[2], p->box ? 1.0f : 0.0f},
                    {p->box_half_extents[0], p->box_half_extents[1], p->box_half_extents[2], 0.0f},
                    {p->box_velocity[0] * h, p->box_velocity[1] * h, p->box_velocity[2] * h, 0.0f},
                    1.0f / h, 1.0f / (h * h), expf(-p->damping * h), p->ground ? p->ground_height : -3e38f,
                    p->friction, p->contact_offset, b->desc.jacobi_omega, b->desc.max_speed,
                    b->desc.newton_iterations, b->desc.newton_tolerance, 0.0f, 0.0f,
                    {p->capsule_a[0], p->capsule_a[1], p->capsule_a[2], p->capsule ? p->capsule_radius : -1.0f},
                    {p->capsule_b[0], p->capsule_b[1], p->capsule_b[2], 0.0f}};
    if (p->collider) { /* local = R^T (x - t) */
        const sinew_sdf *s = &b->collider->sdf;
        double R[3][3], t[3];
        sinew_collider_placement(p, R, t);
        for (int r = 0; r < 3; r++) {
            gp.sdf_frame[r][0] = (float)R[0][r];
            gp.sdf_frame[r][1] = (float)R[1][r];
            gp.sdf_frame[r][2] = (float)R[2][r];
            gp.sdf_frame[r][3] = (float)-(R[0][r] * t[0] + R[1][r] * t[1] + R[2][r] * t[2]);
            gp.sdf_origin[r] = (float)s->origin[r];
            gp.sdf_dims[r] = s->dims[r];
            gp.sdf_motion[r] = p->collider_velocity[r] * h;
        }
        gp.sdf_origin[3] = (float)s->cell;
    }
    return gp;
}

/* The statistics and health counters as each step starts. */
static GpuStats fresh_stats(void)
{
    GpuStats gs = {0};
    gs.first_bad = UINT32_MAX;
    return gs;
}

/* The finished step's statistics into b->stats; a failed health check rolls
 * back (when the step may be and desc.rollback) and says so. */
static sinew_result take_stats(sinew_body *b, int can_roll_back)
{
    GpuStats gs;
    memcpy(&gs, b->buffers[SINEW_BIND_STATS].mapped, sizeof gs);
    sinew_step_stats *s = &b->stats;
    s->newton_iterations = gs.newton;
    s->loops_cut = gs.loops_cut;
    if (gs.loops_cut && !b->warned_loops_cut) {
        b->warned_loops_cut = 1;
        sinew_logf(&b->ctx->logger, SINEW_LOG_WARNING, "body",
                  "%u element updates ran past this device's loop limit (llvmpipe ends an invocation's loops after "
                  "65535 iterations) and were skipped; lower newton_iterations (%u) on this device", gs.loops_cut,
                  b->desc.newton_iterations);
    }
    if (b->desc.residual) {
        s->max_strain = gs.max_strain;
        s->rms_strain = gs.rms_strain;
        s->max_measure_error = b->element_count ? gs.max_measure_error : -1.0f;
        s->rms_measure_error = b->element_count ? gs.rms_measure_error : -1.0f;
    }
    s->rolled_back = 0;
    if (b->desc.health_check) {
        s->bad_particles = gs.bad_count;
        s->first_bad = gs.bad_count ? gs.first_bad : 0;
        s->last_bad = gs.last_bad;
        memcpy(&s->max_speed, &gs.max_speed, sizeof s->max_speed);
        if (gs.bad_count)
            return unhealthy(b, can_roll_back);
    }
    s->step_index++;
    return SINEW_RESULT_OK;
}

sinew_result sinew_body_step(sinew_body *b, const sinew_step_params *p)
{
    SINEW_ASSERT(b && p);
    sinew_context *ctx = b->ctx;
    sinew_result r = check_params(b, p);
    if (r != SINEW_RESULT_OK)
        return r;
    GpuParams gp = gpu_params(b, p);
    GpuStats gs = fresh_stats();
    memcpy(b->buffers[SINEW_BIND_PARAMS].mapped, &gp, sizeof gp);
    memcpy(b->buffers[SINEW_BIND_STATS].mapped, &gs, sizeof gs);
    if (b->imc && (r = sinew_implicit_step(b, p)) != SINEW_RESULT_OK)
        return r;
    if ((r = sinew_submit_and_wait(ctx, b->cmd, b->fence)) != SINEW_RESULT_OK)
        return r;
    if (b->queries)
        read_timestamps(b);
    return take_stats(b, 1);
}

sinew_result sinew_body_record_step(sinew_body *b, VkCommandBuffer cmd, const sinew_step_params *p)
{
    SINEW_ASSERT(b && cmd && p);
    sinew_context *ctx = b->ctx;
    sinew_result r = check_params(b, p);
    if (r != SINEW_RESULT_OK)
        return r;
    if (ctx->lost)
        return sinew_context_refuse_lost(ctx);
    if (b->imc)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "body",
                          "body '%s': an implicit solver's step is many submits, each V-cycle's decided by the "
                          "last one's residual: it cannot be recorded into one command buffer (sinew_body_step)",
                          b->name);
    const struct VolkDeviceTable *vk = &ctx->vk;
    const int graphics = (ctx->queue_flags & VK_QUEUE_GRAPHICS_BIT) != 0;
    /* The stages in which the application may use sinew's buffers. */
    const VkPipelineStageFlags app = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                                     (graphics ? VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                                                     VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT
                                               : 0);
    VkMemoryBarrier before = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vk->vkCmdPipelineBarrier(cmd, app, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                             &before, 0, NULL, 0, NULL);
    GpuParams gp = gpu_params(b, p);
    GpuStats gs = fresh_stats();
    vk->vkCmdUpdateBuffer(cmd, b->buffers[SINEW_BIND_PARAMS].buffer, 0, sizeof gp, &gp);
    vk->vkCmdUpdateBuffer(cmd, b->buffers[SINEW_BIND_STATS].buffer, 0, sizeof gs, &gs);
    VkMemoryBarrier updated = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                               VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &updated,
                             0, NULL, 0, NULL);
    vk->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipeline_layout, 0, 1, &b->set, 0, NULL);
    sinew_recorder rec = {ctx, cmd};
    sinew_xpbd_record(b, &rec); /* ends with compute -> host */
    VkMemoryBarrier after = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                             VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                                 (graphics ? VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT : 0)};
    vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, app, 0, 1, &after, 0, NULL, 0, NULL);
    b->recorded = 1;
    return SINEW_RESULT_OK;
}

sinew_result sinew_body_collect_stats(sinew_body *b)
{
    SINEW_ASSERT(b);
    if (!b->recorded)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s': no recorded step to collect (sinew_body_record_step)", b->name);
    b->recorded = 0;
    return take_stats(b, 0);
}

sinew_vulkan_buffers sinew_body_get_vulkan_buffers(const sinew_body *b)
{
    SINEW_ASSERT(b);
    return (sinew_vulkan_buffers){b->buffers[SINEW_BIND_POS].buffer, 16ull * b->particle_count,
                                  b->normals ? b->buffers[SINEW_BIND_NORMAL].buffer : VK_NULL_HANDLE,
                                  b->normals ? 16ull * b->particle_count : 0};
}

static sinew_result check_count(const sinew_body *b, uint32_t count)
{
    if (count != b->particle_count)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "count %u does not match the body's %u particles", count, b->particle_count);
    return SINEW_RESULT_OK;
}

static sinew_result read_vec4s(sinew_body *b, int binding, float *xyz, uint32_t count)
{
    sinew_result r = check_count(b, count);
    if (r != SINEW_RESULT_OK)
        return r;
    float *tmp = malloc(16ull * count);
    if (!tmp)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    r = sinew_buffer_download(b->ctx, &b->buffers[binding], 0, tmp, 16ull * count);
    for (uint32_t i = 0; r == SINEW_RESULT_OK && i < count; i++)
        memcpy(&xyz[3 * i], &tmp[4 * i], 12);
    free(tmp);
    return r;
}

sinew_result sinew_body_read_positions(sinew_body *b, float *xyz, uint32_t count)
{
    return read_vec4s(b, SINEW_BIND_POS, xyz, count);
}

sinew_result sinew_body_read_normals(sinew_body *b, float *xyz, uint32_t count)
{
    if (!b->normals)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_UNSUPPORTED, "body",
                          "body '%s' computes no normals (desc.normals = 0, or an asset without triangles)", b->name);
    return read_vec4s(b, SINEW_BIND_NORMAL, xyz, count);
}

sinew_result sinew_body_read_velocities(sinew_body *b, float *xyz, uint32_t count)
{
    return read_vec4s(b, SINEW_BIND_VEL, xyz, count);
}

/* A new pose starts each hinge's continuous angle afresh: its angle in the
 * pose, on the branch nearest its rest angle (as if it had never folded). */
static sinew_result reset_hinge_angles(sinew_body *b, const float *xyz)
{
    const uint32_t bends = b->bend_count;
    GpuBend *rec = malloc(sizeof *rec * ((size_t)bends + 1));
    float *angle = malloc(sizeof *angle * ((size_t)bends + 1));
    sinew_result r = rec && angle ? SINEW_RESULT_OK
                                  : sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body",
                                               "out of host memory");
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_BEND], 0, rec, sizeof *rec * bends);
    for (uint32_t c = 0; r == SINEW_RESULT_OK && c < bends; c++) {
        double p[4][3];
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++)
                p[j][k] = xyz[3 * rec[c].v[j] + k];
        int ok = 0;
        double theta = sinew_dihedral_angle(p[0], p[1], p[2], p[3], &ok);
        angle[c] = ok ? (float)sinew_unwrap_angle(theta, rec[c].rest_angle) : rec[c].rest_angle;
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_ANGLE], 0, angle, 4ull * bends);
    free(rec);
    free(angle);
    return r;
}

sinew_result sinew_body_write_positions(sinew_body *b, const float *xyz, uint32_t count)
{
    sinew_result r = check_count(b, count);
    if (r != SINEW_RESULT_OK)
        return r;
    SINEW_ASSERT(xyz);
    for (uint32_t i = 0; i < 3 * count; i++)
        if (!isfinite(xyz[i]))
            return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "position of particle %u is not finite", i / 3);
    float *tmp = malloc(16ull * count);
    if (!tmp)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_POS], 0, tmp, 16ull * count);
    for (uint32_t i = 0; r == SINEW_RESULT_OK && i < count; i++)
        memcpy(&tmp[4 * i], &xyz[3 * i], 12);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_POS], 0, tmp, 16ull * count);
    if (r == SINEW_RESULT_OK && b->imc) /* pins anchored where they now are */
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_PREV], 0, tmp, 16ull * count);
    b->history = 0;
    if (r == SINEW_RESULT_OK) {
        memset(tmp, 0, 16ull * count);
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_VEL], 0, tmp, 16ull * count);
    }
    free(tmp);
    if (r == SINEW_RESULT_OK)
        r = reset_hinge_angles(b, xyz);
    return r;
}

sinew_step_stats sinew_body_get_stats(const sinew_body *b) { return b->stats; }

uint32_t sinew_body_get_particle_count(const sinew_body *b) { return b->particle_count; }

sinew_result sinew_body_move_pinned(sinew_body *b, const uint32_t *indices, uint32_t count, const float *xyz)
{
    SINEW_ASSERT(b && (count == 0 || (indices && xyz)));
    const sinew_logger *lg = &b->ctx->logger;
    const uint64_t n = b->particle_count;
    float *pos = malloc(16 * n);
    if (!pos)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    sinew_result r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_POS], 0, pos, 16 * n);
    for (uint32_t k = 0; r == SINEW_RESULT_OK && k < count; k++) {
        uint32_t i = indices[k];
        if (i >= n)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "body '%s': particle %u of %llu is out of range",
                           b->name, i, (unsigned long long)n);
        else if (pos[4 * i + 3] != 0.0f)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                           "body '%s': particle %u is not pinned (inverse mass %g); only pinned particles can be moved",
                           b->name, i, pos[4 * i + 3]);
        else if (!isfinite(xyz[3 * k]) || !isfinite(xyz[3 * k + 1]) || !isfinite(xyz[3 * k + 2]))
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "body '%s': new position of particle %u is not finite",
                           b->name, i);
        else
            memcpy(&pos[4 * i], &xyz[3 * k], 12);
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_POS], 0, pos, 16 * n);
    if (r == SINEW_RESULT_OK && b->imc) /* the implicit solvers' anchors */
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_PREV], 0, pos, 16 * n);
    free(pos);
    return r;
}

sinew_result sinew_body_set_pinned(sinew_body *b, uint32_t index, int pinned)
{
    SINEW_ASSERT(b);
    const sinew_logger *lg = &b->ctx->logger;
    if (index >= b->particle_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "body '%s': particle %u of %u is out of range",
                          b->name, index, b->particle_count);
    if (!b->unpinned_w) {
        b->unpinned_w = calloc(b->particle_count, sizeof *b->unpinned_w);
        if (!b->unpinned_w)
            return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    float x[4];
    sinew_result r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_POS], 16ull * index, x, 16);
    if (r != SINEW_RESULT_OK)
        return r;
    if (pinned) {
        if (x[3] == 0.0f)
            return SINEW_RESULT_OK; /* pinned already */
        b->unpinned_w[index] = x[3];
        x[3] = 0.0f;
        if (b->imc && (r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_PREV], 16ull * index, x, 16)) !=
                          SINEW_RESULT_OK) /* anchored where it is */
            return r;
    } else {
        if (x[3] != 0.0f)
            return SINEW_RESULT_OK; /* free already */
        if (b->unpinned_w[index] == 0.0f)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': particle %u is pinned by its asset; only particles pinned by "
                              "sinew_body_set_pinned can be set free", b->name, index);
        x[3] = b->unpinned_w[index];
        b->unpinned_w[index] = 0.0f;
    }
    return sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_POS], 16ull * index, x, 16);
}

sinew_result sinew_body_set_material(sinew_body *b, uint32_t index, const sinew_material *m)
{
    SINEW_ASSERT(b && m);
    sinew_context *ctx = b->ctx;
    if (index >= b->material_count)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s': material %u out of range (%u materials)", b->name, index, b->material_count);
    sinew_result r = check_material(ctx, b->material_kinds, index, m);
    if (r != SINEW_RESULT_OK)
        return r;
    GpuMaterial g = sinew_gpbd_material(m);
    r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_MATERIAL], sizeof g * (uint64_t)index, &g, sizeof g);
    if (r == SINEW_RESULT_OK)
        b->materials[index] = *m;
    return r;
}

/* ---------------------------------------------------------------- cuts */

/* Particle -> the distance records that touch it, as CSR: records of particle
 * p are list[start[p] .. start[p + 1]). */
static int incidence(uint32_t n, uint32_t count, const GpuDistance *d, uint32_t **start_out, uint32_t **list_out)
{
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *list = malloc(sizeof *list * (2 * (size_t)count + 1));
    if (!start || !list) {
        free(start);
        free(list);
        return 0;
    }
    for (uint32_t c = 0; c < count; c++) {
        start[d[c].a + 1]++;
        start[d[c].b + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (uint32_t c = 0; c < count; c++) {
        list[start[d[c].a]++] = c;
        list[start[d[c].b]++] = c;
    }
    for (uint32_t i = n; i > 0; i--) /* back to the starts */
        start[i] = start[i - 1];
    start[0] = 0;
    *start_out = start;
    *list_out = list;
    return 1;
}

/* The distance constraint joining a and b, or UINT32_MAX. */
static uint32_t find_distance(const sinew_body *b, const uint32_t *start, const uint32_t *list, uint32_t p,
                              uint32_t q)
{
    for (uint32_t k = start[p]; k < start[p + 1]; k++) {
        const GpuDistance *d = &b->dist_host[list[k]];
        if ((d->a == p && d->b == q) || (d->a == q && d->b == p))
            return list[k];
    }
    return UINT32_MAX;
}

/* Everything a cut needs, allocated before anything changes so that running
 * out of memory leaves the body as it was. */
typedef struct cut_scratch {
    uint32_t *found;                      /* the constraint of each pair */
    uint32_t *start, *list;               /* distances by particle */
    uint32_t *hstart, *hlist;             /* coarse constraints by particle */
    uint32_t *stack, *node_of;            /* particles to visit; node of each particle */
    uint32_t *child_start, *child_links;  /* links by parent, as CSR */
    uint32_t *child_of;                   /* node owning each link */
    uint8_t *done;
} cut_scratch;

/* Müller 2008, section 8: the particles at the cut lose their parent links
 * and coarse constraints, and so, recursively, do their parents. A particle
 * removed this way is no one's parent any more either: its children keep
 * their other parents (weights renormalised) or, with none left, take no
 * coarse correction. s->stack[0, top) holds the particles still to visit;
 * s->done marks those visited or queued. */
static void cut_hierarchy(sinew_body *b, cut_scratch *s, uint32_t top)
{
    while (top > 0) {
        uint32_t p = s->stack[--top];
        for (uint32_t k = s->hstart[p]; k < s->hstart[p + 1]; k++) {
            GpuDistance *d = &b->hdist_host[s->hlist[k]];
            d->b = d->a;
        }
        GpuNode *v = &b->nodes[s->node_of[p]];
        for (uint32_t k = v->first; k < v->first + v->count; k++) {
            uint32_t parent = b->links[k].parent;
            if (!s->done[parent]) {
                s->done[parent] = 1;
                s->stack[top++] = parent;
            }
        }
        v->count = 0;
        for (uint32_t k = s->child_start[p]; k < s->child_start[p + 1]; k++) {
            GpuNode *child = &b->nodes[s->child_of[s->child_links[k]]];
            b->links[s->child_links[k]].weight = 0.0f;
            double sum = 0.0;
            for (uint32_t j = child->first; j < child->first + child->count; j++)
                sum += b->links[j].weight;
            for (uint32_t j = child->first; j < child->first + child->count; j++)
                b->links[j].weight = sum > 0.0 ? (float)(b->links[j].weight / sum) : 0.0f;
            if (sum == 0.0)
                child->count = 0;
        }
    }
}

static sinew_result upload_cut(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    size_t dsize = sizeof(GpuDistance) * (size_t)b->distance_count, bsize = sizeof(GpuBend) * (size_t)b->bend_count;
    void *tmp = malloc((dsize > bsize ? dsize : bsize) + 1);
    if (!tmp)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    GpuDistance *dist = tmp;
    for (uint32_t c = 0; c < b->distance_count; c++) {
        dist[c] = b->dist_host[c];
        if (b->dist_cut[c])
            dist[c].b = dist[c].a;
    }
    sinew_result r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_DIST], 0, dist, dsize);
    GpuBend *bend = tmp;
    for (uint32_t c = 0; c < b->bend_count; c++) {
        bend[c] = b->bend_host[c];
        if (b->bend_cut[c])
            bend[c].v[2] = bend[c].v[0];
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(ctx, &b->buffers[SINEW_BIND_BEND], 0, bend, bsize);
    free(tmp);
    if (r == SINEW_RESULT_OK && b->level_count)
        r = upload_hierarchy(b);
    return r;
}


static void cut_scratch_free(cut_scratch *s)
{
    free(s->found);
    free(s->start);
    free(s->list);
    free(s->hstart);
    free(s->hlist);
    free(s->stack);
    free(s->node_of);
    free(s->child_start);
    free(s->child_links);
    free(s->child_of);
    free(s->done);
}

static int cut_scratch_alloc(const sinew_body *b, uint32_t pair_count, cut_scratch *s)
{
    const uint32_t n = b->particle_count;
    memset(s, 0, sizeof *s);
    int ok = (s->found = malloc(sizeof *s->found * ((size_t)pair_count + 1))) != NULL &&
             incidence(n, b->distance_count, b->dist_host, &s->start, &s->list);
    if (ok && b->level_count) {
        s->stack = malloc(sizeof *s->stack * ((size_t)n + 1));
        s->node_of = malloc(sizeof *s->node_of * n);
        s->child_start = calloc((size_t)n + 1, sizeof *s->child_start);
        s->child_links = malloc(sizeof *s->child_links * ((size_t)b->link_count + 1));
        s->child_of = malloc(sizeof *s->child_of * ((size_t)b->link_count + 1));
        s->done = calloc(n, 1);
        ok = s->stack && s->node_of && s->child_start && s->child_links && s->child_of && s->done &&
             incidence(n, b->hdistance_count, b->hdist_host, &s->hstart, &s->hlist);
    }
    if (!ok)
        cut_scratch_free(s);
    return ok;
}

/* Each particle's node, and the links naming each particle as parent. */
static void index_links(const sinew_body *b, cut_scratch *s)
{
    const uint32_t n = b->particle_count;
    for (uint32_t i = 0; i < n; i++) {
        s->node_of[b->nodes[i].particle] = i;
        for (uint32_t k = b->nodes[i].first; k < b->nodes[i].first + b->nodes[i].count; k++) {
            s->child_of[k] = i;
            s->child_start[b->links[k].parent + 1]++;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        s->child_start[i + 1] += s->child_start[i];
    for (uint32_t i = 0; i < n; i++) /* filling moves each start to the next one's */
        for (uint32_t k = b->nodes[i].first; k < b->nodes[i].first + b->nodes[i].count; k++)
            s->child_links[s->child_start[b->links[k].parent]++] = k;
    for (uint32_t i = n; i > 0; i--)
        s->child_start[i] = s->child_start[i - 1];
    s->child_start[0] = 0;
}

sinew_result sinew_body_cut(sinew_body *b, const uint32_t *pairs, uint32_t pair_count, uint32_t *cut)
{
    SINEW_ASSERT(b && (pairs || pair_count == 0));
    const sinew_logger *lg = &b->ctx->logger;
    const uint32_t n = b->particle_count;
    if (cut)
        *cut = 0;
    if (b->element_count)
        return sinew_fail(lg, SINEW_RESULT_ERROR_UNSUPPORTED, "body", "%s: a body with finite elements (GPBD) cannot "
                          "be cut", b->name);
    if (b->imc)
        return sinew_fail(lg, SINEW_RESULT_ERROR_UNSUPPORTED, "body", "%s: a body of an implicit solver cannot be "
                          "cut (its multigrid levels are nested meshes)", b->name);
    for (uint32_t k = 0; k < pair_count; k++)
        if (pairs[2 * k] >= n || pairs[2 * k + 1] >= n)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "%s: cut pair %u (%u, %u): particle "
                              "index out of range (%u particles)", b->name, k, pairs[2 * k], pairs[2 * k + 1], n);
    cut_scratch s;
    if (!cut_scratch_alloc(b, pair_count, &s))
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    for (uint32_t k = 0; k < pair_count; k++)
        if ((s.found[k] = find_distance(b, s.start, s.list, pairs[2 * k], pairs[2 * k + 1])) == UINT32_MAX) {
            cut_scratch_free(&s);
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "%s: cut pair %u: no distance "
                              "constraint joins particles %u and %u", b->name, k, pairs[2 * k], pairs[2 * k + 1]);
        }

    /* Everything checked and allocated: now the host copies change. */
    uint32_t newly = 0;
    for (uint32_t k = 0; k < pair_count; k++)
        if (!b->dist_cut[s.found[k]]) {
            b->dist_cut[s.found[k]] = 1;
            newly++;
        }
    /* A hinge goes with its shared edge or an edge of either wing triangle. */
    static const int hinge_edges[5][2] = {{0, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}};
    for (uint32_t c = 0; c < b->bend_count; c++)
        for (int k = 0; k < 5 && !b->bend_cut[c]; k++) {
            const uint32_t *v = b->bend_host[c].v;
            uint32_t e = find_distance(b, s.start, s.list, v[hinge_edges[k][0]], v[hinge_edges[k][1]]);
            if (e != UINT32_MAX && b->dist_cut[e])
                b->bend_cut[c] = 1;
        }
    if (b->level_count) {
        index_links(b, &s);
        uint32_t top = 0;
        for (uint32_t k = 0; k < 2 * pair_count; k++)
            if (!s.done[pairs[k]]) {
                s.done[pairs[k]] = 1;
                s.stack[top++] = pairs[k];
            }
        cut_hierarchy(b, &s, top);
    }
    cut_scratch_free(&s);
    b->cut_count += newly;
    b->topology_crc = b->cut_count ? sinew_crc32(b->topology_base, b->dist_cut, b->distance_count)
                                   : b->topology_base; /* an uncut body's is the asset's */
    sinew_result r = upload_cut(b);
    if (r == SINEW_RESULT_OK && cut)
        *cut = newly;
    return r;
}
