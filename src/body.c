/* Bodies: upload an asset, record the step once, replay it each frame. The
 * body keeps what every solver shares and reaches its solver through the
 * table (solvers/solver.h, docs/architecture.md). */
#include "body.h"

#include <sinew/vulkan.h>

#include "collider.h"
#include "selfcol.h"
#include "solvers/gpbd.h"

#include <math.h>
#include <stdarg.h>
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
    d.max_inverted = UINT32_MAX; /* report only: soft bodies may pass through inversion and recover */
    d.max_volume_error = INFINITY;
    d.rollback = 1;
    d.newton_iterations = 20; /* the paper's bound; most updates exit after a few */
    d.newton_tolerance = 1e-3f;
    d.level_iterations = 1; /* the paper's one sweep per coarse level */
    d.chebyshev_rho = 0.95f;
    d.chebyshev_delay = 1;
    d.normals = 1;
    d.self_thickness = 0.005f;
    d.self_friction = 0.3f;
    d.self_capacity = 16;
    d.implicit = (sinew_implicit_desc){
        .stretch = 5e3f, .shear = 500.0f, .bend = 1e-4f, .damping = 0.01f, .density = 0.2f,
        .pin_stiffness = 1e5f, .contact_stiffness = 1e5f, .friction_stiffness = 0.0f,
        .pre_smooth = 5, .post_smooth = 10, .coarse_iterations = 40, /* the paper's 5 and 10 */
        .tolerance = 1e-4f, .max_cycles = 20, .max_pcg_iterations = 1000,
        .fallback_iterations = 200};
    d.mgpbd_cg_iterations = 20;
    d.mgpbd_setup_interval = 20;
    d.render_mesh = 1;
    d.tether_scale = 1.0f;
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
    p.ground_normal[1] = 1.0f;
    p.air_density = 1.2f; /* kg/m^3, air at sea level and 20 C */
    return p;
}

sinew_shape sinew_shape_default(sinew_shape_kind kind)
{
    sinew_shape s = {0};
    s.kind = kind;
    s.rotation[3] = 1.0f;
    return s;
}

_Static_assert(SINEW_SHAPE_SPHERE == SINEW_GPU_SHAPE_SPHERE && SINEW_SHAPE_CAPSULE == SINEW_GPU_SHAPE_CAPSULE &&
                   SINEW_SHAPE_BOX == SINEW_GPU_SHAPE_BOX && SINEW_SHAPE_MESH == SINEW_GPU_SHAPE_MESH,
               "shape kinds as the kernels number them");

/* Most shapes a body's list may hold (a step's records stay within one
 * vkCmdUpdateBuffer's 65536 bytes). */
#define MAX_SHAPES 256u

static int finite_nonneg(float x) { return isfinite(x) && x >= 0.0f; }

static sinew_result check_desc(const sinew_context *ctx, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    if (!sinew_solver_row_of(d->solver))
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
    if (!(isfinite(d->origin[0]) && isfinite(d->origin[1]) && isfinite(d->origin[2])))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "origin (%g, %g, %g) is not finite",
                          d->origin[0], d->origin[1], d->origin[2]);
    if (!(d->max_volume_error >= 0.0f))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "max_volume_error %g is not >= 0 (INFINITY: no bound)", d->max_volume_error);
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
    if (d->sweep_layout != SINEW_SWEEP_LAYOUT_DEFAULT && d->sweep_layout != SINEW_SWEEP_LAYOUT_COLOURS &&
        d->sweep_layout != SINEW_SWEEP_LAYOUT_CLUSTERS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "unknown sweep layout %d",
                          (int)d->sweep_layout);
    if (d->level_iterations < 1 || d->level_iterations > 100)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "level_iterations (%u) must be in 1..100",
                          d->level_iterations);
    if (d->max_shapes > MAX_SHAPES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "max_shapes (%u) must be in 0..%u",
                          d->max_shapes, MAX_SHAPES);
    if (!finite_nonneg(d->drag) || !finite_nonneg(d->lift))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "drag (%g) and lift (%g) must be finite and >= 0", d->drag, d->lift);
    if (d->mesh_count && !d->meshes)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "mesh_count is %u but meshes is NULL",
                          d->mesh_count);
    for (uint32_t m = 0; m < d->mesh_count; m++) {
        if (!d->meshes[m])
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "meshes[%u] is NULL", m);
        if (d->meshes[m]->ctx != ctx)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "meshes[%u] '%s' was made on another context",
                              m, d->meshes[m]->name);
    }
    if (!(d->chebyshev_rho > 0.0f && d->chebyshev_rho < 1.0f) || d->chebyshev_delay > 1000)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "chebyshev_rho (%g) must be in (0, 1) and chebyshev_delay (%u) in 0..1000", d->chebyshev_rho,
                          d->chebyshev_delay);
    return SINEW_RESULT_OK;
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


/* RENDER (shared/layout.h): the map as the kernel reads it, the output as
 * the rest pose gives it (so that the buffer is drawable before the first
 * step), the indices. */
static sinew_result upload_render(sinew_body *b, const sinew_asset *a)
{
    const uint32_t r = b->render_vertex_count;
    const uint64_t size = 96ull * r + 4ull * b->render_index_count;
    uint8_t *bytes = malloc(size);
    if (!bytes)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    GpuRenderVertex *map = (GpuRenderVertex *)bytes;
    float *out = (float *)(bytes + 64ull * r);
    for (uint32_t i = 0; i < r; i++) {
        const sinew_render_vertex_rec *v = &a->rvertices[i];
        const int tet = (v->mode & SINEW_RENDER_NORMAL_MASK) == SINEW_RENDER_NORMAL_TET;
        GpuRenderVertex g = {{v->particle[0], v->particle[1], v->particle[2], v->particle[3]},
                             {v->weight[0], v->weight[1], v->weight[2], v->weight[3]},
                             {v->normal[0], v->normal[1], v->normal[2], tet ? 1.0f : 0.0f},
                             {v->uv[0], v->uv[1], 0.0f, 0.0f}};
        if (tet) { /* Dm^T n, Dm's columns the rest edges from particle[0] */
            const sinew_particle_rec *x0 = &a->particles[v->particle[0]];
            for (int c = 0; c < 3; c++) {
                const sinew_particle_rec *xc = &a->particles[v->particle[c + 1]];
                g.normal[c] = (float)(((double)xc->x - x0->x) * v->normal[0] + ((double)xc->y - x0->y) * v->normal[1] +
                                      ((double)xc->z - x0->z) * v->normal[2]);
            }
        }
        map[i] = g;
        float *o = out + SINEW_RENDER_OUTPUT_FLOATS * (size_t)i;
        double p[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++) {
            const sinew_particle_rec *q = &a->particles[v->particle[k]];
            p[0] += (double)v->weight[k] * q->x;
            p[1] += (double)v->weight[k] * q->y;
            p[2] += (double)v->weight[k] * q->z;
        }
        const float rest[8] = {(float)p[0], (float)p[1], (float)p[2], v->normal[0], v->normal[1], v->normal[2],
                               v->uv[0], v->uv[1]};
        memcpy(o, rest, sizeof rest);
    }
    memcpy(bytes + 96ull * r, a->rtriangles, 4ull * b->render_index_count);
    sinew_result res = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_RENDER], 0, bytes, size);
    free(bytes);
    return res;
}
/* The upload buffer: GpuParams, fresh GpuStats, the collider list
 * (max_shapes GpuShape), then the attachments' dynamic part (frames, pins'
 * targets; attach.h). */
#define UPLOAD_SHAPES (sizeof(GpuParams) + sizeof(GpuStats))
#define UPLOAD_ATTACH(b) (UPLOAD_SHAPES + sizeof(GpuShape) * (uint64_t)(b)->desc.max_shapes)
_Static_assert(UPLOAD_SHAPES % 16 == 0 && sizeof(GpuShape) % 16 == 0, "vec4 aligned");

/* Workgroups of a solver's residual at most (solver.h, record_residual):
 * one thread per constraint, element or particle. PARTIAL holds the strain
 * partials, then the solver's. */
static uint64_t solver_residual_groups(const sinew_asset *a)
{
    uint64_t items = (uint64_t)a->distance_count + a->bend_count;
    items = items > a->element_count ? items : a->element_count;
    items = items > a->particle_count ? items : a->particle_count;
    return (items + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
}

/* SHAPES (shared/layout.h): where the current records, the mesh headers,
 * the meshes' values and the wind's velocity changes start (vec4 indices),
 * and its vec4s in all. */
static uint64_t plan_shapes(sinew_body *b)
{
    const sinew_body_desc *d = &b->desc;
    uint64_t values = 0; /* floats */
    for (uint32_t m = 0; m < d->mesh_count; m++) {
        const uint32_t *dims = d->meshes[m]->sdf.dims;
        values += (uint64_t)dims[0] * dims[1] * dims[2];
    }
    const uint64_t current = (uint64_t)SINEW_SHAPE_VEC4S * d->max_shapes;
    const uint64_t meshes = 2 * current, first_value = meshes + 2ull * d->mesh_count;
    const uint64_t wind = first_value + (values + 3) / 4;
    b->shapes_current = (uint32_t)current;
    b->shapes_meshes = (uint32_t)meshes;
    b->shapes_values = (uint32_t)first_value;
    b->shapes_wind = (uint32_t)wind;
    return wind + (b->wind ? b->particle_count : 0);
}

/* The mesh colliders' headers and values into SHAPES. */
static sinew_result upload_shape_meshes(sinew_body *b)
{
    const sinew_body_desc *d = &b->desc;
    sinew_result r = SINEW_RESULT_OK;
    uint64_t value = 0; /* float index from shapes_values */
    for (uint32_t m = 0; m < d->mesh_count && r == SINEW_RESULT_OK; m++) {
        const sinew_sdf *sdf = &d->meshes[m]->sdf;
        const uint64_t count = (uint64_t)sdf->dims[0] * sdf->dims[1] * sdf->dims[2];
        const uint32_t first = (uint32_t)(4ull * b->shapes_values + value);
        float header[8] = {(float)sdf->origin[0], (float)sdf->origin[1], (float)sdf->origin[2], (float)sdf->cell};
        const uint32_t words[4] = {sdf->dims[0], sdf->dims[1], sdf->dims[2], first};
        memcpy(&header[4], words, sizeof words);
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_SHAPES], 16ull * (b->shapes_meshes + 2ull * m), header,
                                sizeof header);
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_SHAPES], 4ull * first, sdf->phi, 4 * count);
        value += count;
    }
    return r;
}

/* The body's buffers (set 0, shared/layout.h): sized from the asset alone,
 * created only where there is something to hold (the rest bind the
 * context's empty buffer), then filled from the asset. */
static sinew_result upload_asset(sinew_body *b, const sinew_asset *a)
{
    sinew_context *ctx = b->ctx;
    const sinew_body_desc *d = &b->desc;
    const uint32_t n = a->particle_count;
    const uint64_t items = a->distance_count > a->element_count ? a->distance_count : a->element_count;
    const sinew_buffer_plan plan[] = {
        {SINEW_BIND_POS, 16ull * n, SINEW_MEMORY_DEVICE, "positions"},
        {SINEW_BIND_PREV, 16ull * n, SINEW_MEMORY_DEVICE, "previous positions"},
        {SINEW_BIND_VEL, 16ull * n, SINEW_MEMORY_DEVICE, "velocities"},
        {SINEW_BIND_PARAMS, sizeof(GpuParams), SINEW_MEMORY_DEVICE, "step parameters"},
        {SINEW_BIND_STATS, sizeof(GpuStats), SINEW_MEMORY_DEVICE, "step statistics"},
        {SINEW_BIND_PARTIAL,
         16ull * ((items + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE + solver_residual_groups(a)),
         SINEW_MEMORY_DEVICE, "residual partials"},
        {SINEW_BIND_DIST, sizeof(GpuDistance) * (uint64_t)a->distance_count, SINEW_MEMORY_DEVICE, "distance constraints"},
        {SINEW_BIND_BEND, sizeof(GpuBend) * (uint64_t)a->bend_count, SINEW_MEMORY_DEVICE, "bending constraints"},
        {SINEW_BIND_ANGLE, 4ull * a->bend_count, SINEW_MEMORY_DEVICE, "hinge angles"},
        {SINEW_BIND_ELEM, sizeof(GpuElement) * (uint64_t)a->element_count, SINEW_MEMORY_DEVICE, "elements"},
        {SINEW_BIND_MATERIAL, sizeof(GpuMaterial) * (uint64_t)b->material_count, SINEW_MEMORY_DEVICE, "materials"},
        {SINEW_BIND_MESH, b->normals || b->wind ? 4ull * (n + 1ull + 6ull * a->triangle_count) : 0, SINEW_MEMORY_DEVICE,
         "triangles around each particle"},
        {SINEW_BIND_NORMAL, b->normals ? 16ull * n : 0, SINEW_MEMORY_DEVICE, "vertex normals"},
        {SINEW_BIND_SELF_INDEX, 4 * b->self.index_words, SINEW_MEMORY_DEVICE, "self-collision indices"},
        {SINEW_BIND_SELF_REAL, 16 * b->self.real_vec4s, SINEW_MEMORY_DEVICE, "self-collision boxes and corrections"},
        {SINEW_BIND_RENDER, 96ull * b->render_vertex_count + 4ull * b->render_index_count, SINEW_MEMORY_DEVICE,
         "render mesh"},
        {SINEW_BIND_SHAPES, 16 * plan_shapes(b), SINEW_MEMORY_DEVICE, "collider list, mesh colliders and wind"},
        {SINEW_BIND_ATTACH, sinew_attach_bytes(&b->attach), SINEW_MEMORY_DEVICE, "attachments and pins"},
        /* SDF: the collider's own, bound in its place */
        {0, d->rollback ? 32ull * n + 4ull * a->bend_count : 0, SINEW_MEMORY_DEVICE, "rollback copy", 0, &b->saved},
        {0, UPLOAD_ATTACH(b) + sinew_attach_dynamic_bytes(&b->attach), SINEW_MEMORY_HOST, "step parameters (host)", 0,
         &b->upload},
        {0, sizeof(GpuStats), SINEW_MEMORY_READBACK, "step statistics (host)", 0, &b->readback},
    };
    sinew_result r = sinew_buffers_create(ctx, plan, sizeof plan / sizeof plan[0], b->buffers);
    if (r != SINEW_RESULT_OK)
        return r;
    size_t scratch_size = 16;
    for (int i = 0; i < SINEW_BODY_BINDINGS; i++)
        if (i != SINEW_BIND_SHAPES && b->buffers[i].size > scratch_size) /* SHAPES: uploaded from the colliders */
            scratch_size = (size_t)b->buffers[i].size;
    void *scratch = calloc(1, scratch_size);
    if (!scratch)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");

    float *pos = scratch;
    for (uint32_t i = 0; i < n && r == SINEW_RESULT_OK; i++)
        memcpy(&pos[4 * i], &a->particles[i], 16);
    sinew_attach_masses(&b->attach, pos, n); /* held particles are kinematic */
    if (r == SINEW_RESULT_OK && b->attach.on)
        r = sinew_attach_upload(&b->attach, ctx, &b->buffers[SINEW_BIND_ATTACH]);
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
    if (r == SINEW_RESULT_OK && (b->normals || b->wind))
        r = upload_mesh(b, a);
    if (r == SINEW_RESULT_OK && b->render_vertex_count)
        r = upload_render(b, a);
    if (r == SINEW_RESULT_OK)
        r = upload_shape_meshes(b);
    if (r == SINEW_RESULT_OK && b->desc.self_collision) {
        const sinew_surface own = sinew_surface_of(a);
        r = sinew_selfcol_upload(ctx, &b->self, &own, &b->buffers[SINEW_BIND_SELF_INDEX],
                                 &b->buffers[SINEW_BIND_SELF_REAL]);
    }
    return r;
}

/* Host copies of the constraints, for cuts. */
static sinew_result copy_constraints(sinew_body *b, const sinew_asset *a)
{
    b->dist_host = malloc(sizeof *b->dist_host * ((size_t)a->distance_count + 1));
    b->bend_host = malloc(sizeof *b->bend_host * ((size_t)a->bend_count + 1));
    b->dist_cut = calloc((size_t)a->distance_count + 1, 1);
    b->bend_cut = calloc((size_t)a->bend_count + 1, 1);
    if (!b->dist_host || !b->bend_host || !b->dist_cut || !b->bend_cut)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    return SINEW_RESULT_OK;
}

/* Host copies of what set_material needs: the materials (the asset's or the
 * desc's, checked) and which element kinds use each material. */
static sinew_result copy_elements(sinew_body *b, const sinew_asset *a)
{
    const sinew_logger *lg = &b->ctx->logger;
    b->element_count = a->element_count;
    b->material_count = a->material_count;
    b->materials = malloc(sizeof *b->materials * ((size_t)a->material_count + 1));
    b->material_kinds = calloc((size_t)a->material_count + 1, 1);
    if (!b->materials || !b->material_kinds)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    const sinew_material *src = b->desc.materials ? b->desc.materials : a->materials;
    if (a->material_count)
        memcpy(b->materials, src, sizeof *b->materials * a->material_count);
    b->desc.materials = NULL; /* borrowed for the call only */
    for (uint32_t e = 0; e < a->element_count; e++) {
        b->material_kinds[a->elements[e].material] |= (uint8_t)(1u << a->elements[e].kind);
        b->tet_count += a->elements[e].kind == SINEW_ELEMENT_TET;
    }
    for (uint32_t m = 0; m < a->material_count; m++) {
        sinew_result r = check_material(b->ctx, b->material_kinds, m, &b->materials[m]);
        if (r != SINEW_RESULT_OK)
            return r;
    }
    return SINEW_RESULT_OK;
}

sinew_element_set sinew_body_element_set(const sinew_body *b)
{
    sinew_element_set set = SINEW_ELEMENTS_MIXED;
    for (uint32_t m = 0; m < b->material_count; m++) {
        if (!b->material_kinds[m])
            continue; /* used by no element */
        const sinew_material_model model = b->materials[m].model;
        const sinew_element_set this_one = b->material_kinds[m] != 1u << SINEW_ELEMENT_TET ? SINEW_ELEMENTS_MIXED
                                           : model == SINEW_MATERIAL_NEO_HOOKEAN          ? SINEW_ELEMENTS_TET_NH
                                           : model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN   ? SINEW_ELEMENTS_TET_SNH
                                                                                          : SINEW_ELEMENTS_MIXED;
        if (this_one == SINEW_ELEMENTS_MIXED || (set != SINEW_ELEMENTS_MIXED && set != this_one))
            return SINEW_ELEMENTS_MIXED;
        set = this_one;
    }
    return set;
}

sinew_result sinew_body_check_material(const sinew_body *b, uint32_t index, const sinew_material *m)
{
    return check_material(b->ctx, b->material_kinds, index, m);
}

/* ---------------------------------------------------------------- the step */

/* Device traffic the body's kernels were designed to move, in bytes. */
#define BYTES_PREDICT 96u          /* pos, vel in; prev, vel, pos out */
#define BYTES_VELOCITY 48u         /* pos, prev in; vel out */
#define BYTES_VELOCITY_PREDICT 80u /* pos, prev in; prev, vel, pos out */

/* The health check of the particles, and of the tetrahedra among the
 * elements, in the velocity kernel (GpuRange.first2 = 1) or its own. */
static GpuRange health_range(const sinew_body *b, uint32_t *threads)
{
    const uint32_t n = b->particle_count, elements = b->tet_count ? b->element_count : 0;
    *threads = n > elements ? n : elements;
    return (GpuRange){0, n, 1, elements};
}

/* Designed traffic of the health check: per particle position and velocity,
 * per element the record 80 and four positions 64. */
static uint64_t health_bytes(const sinew_body *b, int with_velocity)
{
    const uint64_t elements = b->tet_count ? b->element_count : 0;
    return (with_velocity ? 0 : 32ull * b->particle_count) + 144ull * elements;
}

/* What ends every step: normals, residual, the health check unless the last
 * substep's velocity kernel ran it (`checked`), the host barrier. Recorded
 * dispatch by dispatch (b->unfused) each waits for the one before; fused,
 * the health check, normals and residual read positions, velocities and
 * elements and write STATS (by integer atomics), NORMAL and PARTIAL: none
 * waits for another, nor for the last substep's velocities, and one barrier
 * before the residual's reduction (which writes STATS too) orders them all. */
static void record_step_end(sinew_body *b, sinew_recorder *r, int checked)
{
    const uint32_t n = b->particle_count;
    const int fused = !b->unfused;
    GpuRange particles = {0, n};
    uint32_t health_threads;
    GpuRange health = health_range(b, &health_threads);
    health.first2 = 0;
    if (b->desc.health_check && !checked && fused) {
        sinew_record_dispatch(r, SINEW_KERNEL_HEALTH, health_threads, &health, sizeof health);
        sinew_record_independent(r);
        r->bytes += health_bytes(b, 0);
    }
    if (b->normals) {
        sinew_record_dispatch(r, SINEW_KERNEL_NORMALS, n, &particles, sizeof particles);
        if (fused)
            sinew_record_independent(r);
        else
            sinew_record_barrier(r);
        /* per particle: offsets 8, position 16, normal 16; per corner: pair 8, two positions 32 */
        r->bytes += 40ull * n + 3ull * 40 * b->triangle_count;
    }
    if (b->desc.residual) {
        uint32_t items = b->distance_count > b->element_count ? b->distance_count : b->element_count;
        uint32_t groups = (items + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
        GpuRange residual = {0, b->distance_count, 0, b->element_count};
        GpuRange reduce = {groups, b->distance_count, 0, b->element_count};
        sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL, items, &residual, sizeof residual);
        /* the solver's residual at the end, beside it: both read positions
         * and write their own parts of PARTIAL */
        const sinew_solver_ops *ops = sinew_body_ops(b);
        if (ops->record_residual) {
            sinew_record_independent(r);
            reduce.first2 = ops->record_residual(b->state, &b->view, r, groups);
        }
        sinew_record_barrier(r);
        sinew_record_dispatch(r, SINEW_KERNEL_RESIDUAL_REDUCE, SINEW_REDUCE_SIZE, &reduce, sizeof reduce);
        r->bytes += 48ull * b->distance_count + 144ull * b->element_count + 32ull * groups;
    }
    if (b->desc.health_check && !checked && !fused) {
        if (b->desc.residual)
            sinew_record_barrier(r); /* both write STATS */
        sinew_record_dispatch(r, SINEW_KERNEL_HEALTH, health_threads, &health, sizeof health);
        r->bytes += health_bytes(b, 0);
    }
    if (b->render_vertex_count) {
        /* after the positions' last writer and the normals */
        sinew_record_barrier(r);
        GpuRange render = {4u * b->render_vertex_count, b->render_vertex_count};
        sinew_record_dispatch(r, SINEW_KERNEL_RENDER, b->render_vertex_count, &render, sizeof render);
        /* per render vertex: map 64, output 32; cloth: one position and one
         * normal 32, solids: four positions 64 (what render.comp reads) */
        r->bytes += b->render_bytes;
    }
    if (b->desc.residual || b->desc.health_check)
        sinew_record_timestamp(r, SINEW_PHASE_RESIDUAL);
    sinew_record_copy(r, &b->buffers[SINEW_BIND_STATS], 0, &b->readback, 0, sizeof(GpuStats));
    sinew_record_host_barrier(r); /* positions and stats are read by the host */
}

/* The collider list's poses at the end of substep s (shapes.comp), for a
 * body with a list, and the barrier the kernels after it need (they read
 * SHAPES, which it writes). Per shape the record in (80 bytes) and out
 * (128). */
static void record_shapes(sinew_body *b, sinew_recorder *r, uint32_t s)
{
    const uint32_t count = b->desc.max_shapes;
    if (!count)
        return;
    GpuRange push = {s, count};
    sinew_record_dispatch(r, SINEW_KERNEL_SHAPES, count, &push, sizeof push);
    sinew_record_barrier(r);
    r->bytes += 208ull * count;
}

/* The wind's velocity changes (wind.comp), for a body with wind, followed by
 * the barrier the prediction needs: velocities from VEL, or (`from_positions`)
 * from the positions the velocity kernel is about to turn into them. Per
 * particle its position, velocity (or two positions) and offsets in, its
 * change out, 72 bytes; per corner of a triangle a pair of indices and two
 * positions and velocities, 104 bytes; the prediction reads the change, 16
 * per particle. */
static void record_wind(sinew_body *b, sinew_recorder *r, int from_positions)
{
    if (!b->wind)
        return;
    const uint32_t n = b->particle_count;
    GpuRange push = {0, n, from_positions ? 1u : 0u};
    sinew_record_dispatch(r, SINEW_KERNEL_WIND, n, &push, sizeof push);
    sinew_record_barrier(r);
    r->bytes += 88ull * n + 312ull * b->triangle_count;
}

/* docs/math.md section 1: per substep the prediction, the solver's
 * iterations with contacts, the velocities (or the solver's own substep,
 * record_substep); then the step's end. The prediction, the velocities and
 * the health check work on each particle alone, so the step runs them in as
 * few dispatches as the solver's work between them allows: the first
 * substep's prediction clears the solver's per-substep state in the same
 * pass (record_reset), each substep's velocities run with the next one's
 * prediction, and the last substep's with the health check. Each particle
 * sees the same operations in the same order as when every stage is a
 * dispatch of its own (b->unfused), so both give the same bits. */
static void record_stages(sinew_body *b, sinew_recorder *r)
{
    const sinew_solver_ops *ops = sinew_body_ops(b);
    const uint32_t n = b->particle_count, substeps = b->desc.substeps;
    const int fused = !b->unfused;
    GpuRange predict = {0, n}; /* and, fused, what the solver clears each substep */
    if (fused && ops->record_reset)
        ops->record_reset(b->state, &b->view, r, &predict);
    const uint32_t cleared = predict.count2 > predict.slot_base ? predict.count2 : predict.slot_base;
    const uint32_t predict_threads = n > cleared ? n : cleared;
    const uint64_t clear_bytes = 4ull * predict.count2 + 16ull * predict.slot_base;
    int predicted = 0; /* this substep's prediction ran with the velocities of the one before */
    int checked = 0;   /* the last velocities ran the health check */
    /* the other bodies' positions as their last steps left them, still
     * through this one (docs/self-collision.md) */
    uint64_t ghost = b->self.ghost_offset;
    for (uint32_t k = 0; k < b->other_count; k++) {
        const uint64_t count = b->others[k]->particle_count;
        sinew_record_copy(r, &b->others[k]->buffers[SINEW_BIND_POS], 0, &b->buffers[SINEW_BIND_SELF_REAL], 16 * ghost,
                          16 * count);
        r->bytes += 32 * count;
        ghost += count;
    }
    sinew_record_timestamp(r, SINEW_PHASE_START);
    for (uint32_t s = 0; s < substeps; s++) {
        if (ops->record_substep) {
            record_shapes(b, r, s);
            ops->record_substep(b->state, &b->view, r, s);
            sinew_record_timestamp(r, SINEW_PHASE_VELOCITY);
            continue;
        }
        if (!predicted) {
            if (!fused && ops->record_reset)
                ops->record_reset(b->state, &b->view, r, NULL);
            record_shapes(b, r, s);
            record_wind(b, r, 0);
            sinew_record_dispatch(r, SINEW_KERNEL_PREDICT, predict_threads, &predict, sizeof predict);
            sinew_record_barrier(r);
            r->bytes += (uint64_t)BYTES_PREDICT * n + clear_bytes;
        }
        sinew_attach_record_substep(&b->attach, r, s, substeps);
        ops->record_solve(b->state, &b->view, r);
        const int last = s + 1 == substeps;
        if (fused && !last) {
            record_shapes(b, r, s + 1);
            record_wind(b, r, 1);
            sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY_PREDICT, predict_threads, &predict, sizeof predict);
            sinew_record_barrier(r);
            r->bytes += (uint64_t)BYTES_VELOCITY_PREDICT * n + clear_bytes;
        } else if (fused && b->desc.health_check) {
            uint32_t threads;
            GpuRange velocity = health_range(b, &threads);
            sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY, threads, &velocity, sizeof velocity);
            /* normals and residual read positions and write neither VEL nor
             * STATS; the reduction, which writes STATS, follows a barrier */
            sinew_record_independent(r);
            r->bytes += (uint64_t)BYTES_VELOCITY * n + health_bytes(b, 1);
            checked = 1;
        } else {
            GpuRange particles = {0, n};
            sinew_record_dispatch(r, SINEW_KERNEL_VELOCITY, n, &particles, sizeof particles);
            if (fused)
                sinew_record_independent(r);
            else
                sinew_record_barrier(r);
            r->bytes += (uint64_t)BYTES_VELOCITY * n;
        }
        predicted = fused && !last;
        sinew_record_timestamp(r, SINEW_PHASE_VELOCITY);
    }
    record_step_end(b, r, checked);
}

static sinew_result record_step(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    const sinew_solver_ops *ops = sinew_body_ops(b);
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = ctx->command_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VK_TRY(ctx, vk->vkAllocateCommandBuffers(ctx->device, &ai, &b->cmd));
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fi.flags = VK_FENCE_CREATE_SIGNALED_BIT; /* "no step in flight" */
    VK_TRY(ctx, vk->vkCreateFence(ctx->device, &fi, NULL, &b->fence));
    /* Timestamps: one at the start, per substep the solver's and one after
     * velocities, one after the residual and health check. */
    const uint64_t per_substep = 1ull + ops->timestamps(b->state, &b->view);
    uint64_t wanted = 1 + (uint64_t)b->desc.substeps * per_substep + 1;
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
    return sinew_body_record_commands(b);
}

sinew_result sinew_body_record_commands(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    const sinew_solver_ops *ops = sinew_body_ops(b);
    const uint64_t per_substep = 1ull + ops->timestamps(b->state, &b->view);
    const uint64_t wanted = 1 + (uint64_t)b->desc.substeps * per_substep + 1;
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_TRY(ctx, vk->vkBeginCommandBuffer(b->cmd, &bi));
    if (b->queries)
        vk->vkCmdResetQueryPool(b->cmd, b->queries, 0, (uint32_t)wanted);
    sinew_bindings_bind(ctx, b->cmd, &b->bindings);
    sinew_recorder rec = {ctx, b->cmd};
    rec.queries = b->queries;
    rec.query_capacity = b->queries ? (uint32_t)wanted : 0;
    rec.phase_of = b->query_phase;
    const uint64_t n = b->particle_count;
    /* the step's parameters and fresh statistics, as the host wrote them */
    sinew_record_copy(&rec, &b->upload, 0, &b->buffers[SINEW_BIND_PARAMS], 0, sizeof(GpuParams));
    sinew_record_copy(&rec, &b->upload, sizeof(GpuParams), &b->buffers[SINEW_BIND_STATS], 0, sizeof(GpuStats));
    if (b->desc.max_shapes) /* the collider list as the step starts */
        sinew_record_copy(&rec, &b->upload, UPLOAD_SHAPES, &b->buffers[SINEW_BIND_SHAPES], 0,
                          sizeof(GpuShape) * (uint64_t)b->desc.max_shapes);
    const uint64_t dynamic = sinew_attach_dynamic_bytes(&b->attach);
    if (dynamic) { /* frames and pins' targets */
        sinew_record_copy(&rec, &b->upload, UPLOAD_ATTACH(b), &b->buffers[SINEW_BIND_ATTACH], 0, dynamic);
        rec.bytes += 2 * dynamic;
    }
    if (b->desc.rollback) {
        const uint64_t bends = b->bend_count;
        sinew_record_copy(&rec, &b->buffers[SINEW_BIND_POS], 0, &b->saved, 0, 16 * n);
        sinew_record_copy(&rec, &b->buffers[SINEW_BIND_VEL], 0, &b->saved, 16 * n, 16 * n);
        sinew_record_copy(&rec, &b->buffers[SINEW_BIND_ANGLE], 0, &b->saved, 32 * n, 4 * bends);
        rec.bytes += 64 * n + 8 * bends;
    }
    record_stages(b, &rec);
    VK_TRY(ctx, vk->vkEndCommandBuffer(b->cmd));
    b->dispatches = rec.dispatches;
    b->barriers = rec.barriers;
    b->bytes = rec.bytes;
    b->query_count = rec.query_count;
    return SINEW_RESULT_OK;
}

/* Records the step again into a new command buffer (the body settled). */
static sinew_result rerecord(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    vk->vkDestroyFence(ctx->device, b->fence, NULL);
    vk->vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &b->cmd);
    if (b->queries)
        vk->vkDestroyQueryPool(ctx->device, b->queries, NULL);
    free(b->query_results);
    free(b->query_phase);
    b->fence = VK_NULL_HANDLE;
    b->cmd = VK_NULL_HANDLE;
    b->queries = VK_NULL_HANDLE;
    b->query_results = NULL;
    b->query_phase = NULL;
    return record_step(b);
}

sinew_result sinew_body_record_unfused(sinew_body *b)
{
    sinew_result r = sinew_body_settle(b);
    if (r != SINEW_RESULT_OK)
        return r;
    b->unfused = 1;
    if ((r = rerecord(b)) != SINEW_RESULT_OK)
        return r;
    b->stats.dispatches = b->dispatches;
    b->stats.barriers = b->barriers;
    b->stats.bytes = b->bytes;
    return SINEW_RESULT_OK;
}

/* Set 0 from the body's buffers (the mesh collider's field in place of the
 * empty one), set 1 from the solver's. */
static sinew_result make_bindings(sinew_body *b)
{
    sinew_buffer bound[SINEW_BODY_BINDINGS];
    memcpy(bound, b->buffers, sizeof bound);
    if (b->collider)
        bound[SINEW_BIND_SDF] = b->collider->grid;
    const sinew_solver_ops *ops = sinew_body_ops(b);
    uint32_t count = 0;
    const sinew_buffer *own = ops->buffers(b->state, &count);
    sinew_result r = sinew_bindings_create(b->ctx, bound, own, count, &b->bindings);
    if (r == SINEW_RESULT_OK && ops->bound)
        ops->bound(b->state, &b->bindings);
    return r;
}

/* Device memory the body holds (bytes), and the allocations it is in. */
static uint64_t device_memory(const sinew_body *b, uint32_t *allocations)
{
    const sinew_buffer *held[SINEW_BODY_BINDINGS + SINEW_SOLVER_BINDINGS + 3];
    uint32_t count = 0, held_count = 0;
    const sinew_buffer *own = b->state ? sinew_body_ops(b)->buffers(b->state, &count) : NULL;
    for (int i = 0; i < SINEW_BODY_BINDINGS; i++)
        held[held_count++] = &b->buffers[i];
    for (uint32_t i = 0; i < count && i < SINEW_SOLVER_BINDINGS; i++)
        held[held_count++] = &own[i];
    held[held_count++] = &b->saved;
    held[held_count++] = &b->upload;
    held[held_count++] = &b->readback;
    uint64_t bytes = 0;
    *allocations = 0;
    for (uint32_t i = 0; i < held_count; i++) {
        if (held[i]->kind == SINEW_MEMORY_DEVICE && held[i]->block)
            bytes += held[i]->allocated;
        int first = held[i]->block != NULL;
        for (uint32_t j = 0; j < i && first; j++)
            first = held[j]->block != held[i]->block;
        *allocations += (uint32_t)first;
    }
    if (b->state && sinew_body_ops(b)->memory)
        bytes += sinew_body_ops(b)->memory(b->state, allocations);
    return bytes;
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
    const sinew_solver_row *row = sinew_solver_row_of(desc->solver);
    if (asset->particle_count == 0)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "asset has no particles");
    if ((r = sinew_attach_check(ctx, asset, desc)) != SINEW_RESULT_OK ||
        (r = sinew_selfcol_check(ctx, asset->triangle_count, desc, 0, NULL)) != SINEW_RESULT_OK ||
        (r = row->ops->check(ctx, asset, desc)) != SINEW_RESULT_OK)
        return r;
    if (desc->collider && desc->collider->ctx != ctx)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "desc.collider '%s' was made on another context", desc->collider->name);
    if ((desc->drag > 0.0f || desc->lift > 0.0f) && row->ops->record_substep)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "wind (drag %g, lift %g) is not supported by the %s solver; set drag and lift to 0",
                          desc->drag, desc->lift, sinew_solver_name(desc->solver));
    if (desc->materials && desc->material_count != asset->material_count)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "desc gives %u materials; the asset's table has %u", desc->material_count,
                          asset->material_count);
    sinew_body *b = calloc(1, sizeof *b);
    if (!b)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    b->refs = 1;
    b->ctx = ctx;
    b->desc = *desc;
    b->solver = row;
    b->collider = desc->collider;
    if (b->collider)
        sinew_collider_retain(b->collider);
    snprintf(b->name, sizeof b->name, "%s", desc->name ? desc->name : "body");
    b->desc.name = b->name;
    b->particle_count = asset->particle_count;
    b->distance_count = asset->distance_count;
    b->bend_count = asset->bend_count;
    b->render_vertex_count = desc->render_mesh ? asset->rvertex_count : 0;
    b->render_index_count = desc->render_mesh ? 3 * asset->rtriangle_count : 0;
    int particle_normals = 0;
    for (uint32_t i = 0; i < b->render_vertex_count; i++) {
        const sinew_render_vertex_rec *v = &asset->rvertices[i];
        int tet = (v->mode & SINEW_RENDER_NORMAL_MASK) == SINEW_RENDER_NORMAL_TET;
        particle_normals |= !tet;
        for (int k = 0; k < 4 && !tet; k++)
            b->render_bytes += v->weight[k] != 0.0f ? 32u : 0u;
        b->render_bytes += tet ? 64u : 0u;
    }
    b->render_bytes += 96ull * b->render_vertex_count;
    b->normals = (desc->normals || particle_normals) && asset->triangle_count > 0;
    if (particle_normals && asset->triangle_count == 0) {
        sinew_body_destroy(b);
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "the asset's render mesh takes its normals from the particles' but the asset has no "
                          "triangles to make them from (desc.render_mesh = 0 goes without it)");
    }
    b->triangle_count = asset->triangle_count;
    b->wind = (desc->drag > 0.0f || desc->lift > 0.0f) && asset->triangle_count > 0;
    b->view = (sinew_body_view){ctx, &b->desc, b->name, b->particle_count, b->distance_count, b->bend_count,
                                asset->element_count, b->buffers, &b->saved, &b->stats};
    if (asset->triangle_count) { /* the surface, for collision with other bodies */
        b->rest = malloc(sizeof *b->rest * asset->particle_count);
        b->surface = malloc(sizeof *b->surface * asset->triangle_count);
        if (!b->rest || !b->surface) {
            sinew_body_destroy(b);
            return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
        }
        memcpy(b->rest, asset->particles, sizeof *b->rest * asset->particle_count);
        memcpy(b->surface, asset->triangles, sizeof *b->surface * asset->triangle_count);
    }
    const sinew_surface own = sinew_surface_of(asset);
    if (desc->self_collision && (r = sinew_selfcol_plan(ctx, &own, desc, NULL, 0, &b->self)) != SINEW_RESULT_OK) {
        sinew_body_destroy(b);
        return r;
    }
    b->view.selfcol = desc->self_collision ? &b->self : NULL;
    if ((r = copy_elements(b, asset)) == SINEW_RESULT_OK)
        b->view.elements = sinew_body_element_set(b);
    if (r == SINEW_RESULT_OK)
        r = sinew_attach_plan(&b->attach, &ctx->logger, asset, desc, row->ops->record_solve != NULL);
    b->view.attach = &b->attach;
    b->desc.attachments = NULL; /* borrowed for the call only */
    b->desc.frames = NULL;
    b->desc.frame_names = NULL;
    if (r != SINEW_RESULT_OK || (r = copy_constraints(b, asset)) != SINEW_RESULT_OK ||
        (r = upload_asset(b, asset)) != SINEW_RESULT_OK ||
        (r = row->ops->create(&b->view, asset, &b->state)) != SINEW_RESULT_OK ||
        (r = make_bindings(b)) != SINEW_RESULT_OK || (r = record_step(b)) != SINEW_RESULT_OK) {
        sinew_body_destroy(b);
        return r;
    }
    b->desc.meshes = NULL; /* borrowed for the call: copied into SHAPES */
    b->stats.max_strain = b->stats.rms_strain = -1.0f;
    b->stats.max_measure_error = b->stats.rms_measure_error = -1.0f;
    b->stats.max_speed = -1.0f;
    b->stats.max_volume_error = -1.0f;
    b->stats.ms_predict = b->stats.ms_solve = b->stats.ms_contacts = b->stats.ms_velocity = -1.0;
    b->stats.ms_residual = b->stats.ms_total = -1.0;
    b->stats.dispatches = b->dispatches;
    b->stats.barriers = b->barriers;
    b->stats.bytes = b->bytes;
    b->stats.device_memory = device_memory(b, &b->stats.device_allocations);
    *out = b;
    return SINEW_RESULT_OK;
}

static void release_others(sinew_body *b);

static void body_free(sinew_body *b)
{
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
    if (b->state)
        sinew_body_ops(b)->destroy(b->state, ctx);
    sinew_bindings_destroy(ctx, &b->bindings);
    for (int i = 0; i < SINEW_BODY_BINDINGS; i++)
        sinew_buffer_destroy(ctx, &b->buffers[i]);
    sinew_buffer_destroy(ctx, &b->saved);
    sinew_buffer_destroy(ctx, &b->upload);
    sinew_buffer_destroy(ctx, &b->readback);
    free(b->query_results);
    free(b->query_phase);
    free(b->materials);
    free(b->material_kinds);
    free(b->dist_host);
    free(b->bend_host);
    free(b->dist_cut);
    free(b->bend_cut);
    free(b->unpinned_w);
    sinew_attach_free(&b->attach);
    sinew_selfcol_free(&b->self);
    sinew_collider_destroy(b->collider);
    release_others(b);
    free(b->rest);
    free(b->surface);
    free(b);
}

static void body_release(sinew_body *b)
{
    if (--b->refs == 0)
        body_free(b);
}

/* Drops the contact list (the body's step must not be in flight). */
static void release_others(sinew_body *b)
{
    sinew_body **others = b->others;
    const uint32_t count = b->other_count;
    b->others = NULL;
    b->other_count = 0;
    for (uint32_t k = 0; k < count; k++)
        body_release(others[k]);
    free(others);
}

/* The application's reference goes; bodies that collide with this one keep
 * its buffers (its last positions, still) until they drop it. */
void sinew_body_destroy(sinew_body *b)
{
    if (!b)
        return;
    if (b->fence && !b->ctx->lost) /* its step, which may read the bodies it collides with */
        b->ctx->vk.vkWaitForFences(b->ctx->device, 1, &b->fence, VK_TRUE, UINT64_MAX);
    release_others(b);
    body_release(b);
}

static sinew_surface surface_of_body(const sinew_body *b)
{
    return (sinew_surface){b->rest, b->particle_count, b->surface, b->triangle_count};
}

sinew_result sinew_body_set_contact_bodies(sinew_body *b, sinew_body *const *others, uint32_t count)
{
    SINEW_ASSERT(b && (others || count == 0));
    sinew_context *ctx = b->ctx;
    const sinew_logger *lg = &ctx->logger;
    if (count > SINEW_MAX_CONTACT_BODIES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s': %u contact bodies are more than %u", b->name, count, SINEW_MAX_CONTACT_BODIES);
    for (uint32_t k = 0; k < count; k++) {
        const sinew_body *o = others[k];
        if (!o)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "body '%s': contact body %u is NULL",
                              b->name, k);
        if (o == b)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s' is in its own contact list (its own pairs: desc.self_collision)", b->name);
        if (o->ctx != ctx)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': contact body '%s' was made on another context", b->name, o->name);
        if (!o->surface)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': contact body '%s' has no surface triangles", b->name, o->name);
        for (uint32_t j = 0; j < k; j++)
            if (others[j] == o)
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                                  "body '%s': contact body '%s' is listed twice", b->name, o->name);
    }
    sinew_result r = count ? sinew_selfcol_check(ctx, b->triangle_count, &b->desc, 1, "collision with other bodies")
                           : SINEW_RESULT_OK;
    if (r != SINEW_RESULT_OK)
        return r;
    if (ctx->lost)
        return sinew_context_refuse_lost(ctx);
    if ((r = sinew_body_settle(b)) != SINEW_RESULT_OK)
        return r;
    /* the new surfaces and buffers first: on failure nothing has changed */
    sinew_surface own = surface_of_body(b), surfaces[SINEW_MAX_CONTACT_BODIES];
    for (uint32_t k = 0; k < count; k++)
        surfaces[k] = surface_of_body(others[k]);
    sinew_body **list = count ? malloc(sizeof *list * count) : NULL;
    if (count && !list)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    sinew_selfcol plan = {0};
    const int on = b->desc.self_collision || count;
    if (on && (r = sinew_selfcol_plan(ctx, &own, &b->desc, surfaces, count, &plan)) != SINEW_RESULT_OK) {
        free(list);
        return r;
    }
    sinew_buffer fresh[SINEW_BODY_BINDINGS];
    memset(fresh, 0, sizeof fresh);
    const sinew_buffer_plan bp[] = {
        {SINEW_BIND_SELF_INDEX, 4 * plan.index_words, SINEW_MEMORY_DEVICE, "self-collision indices"},
        {SINEW_BIND_SELF_REAL, 16 * plan.real_vec4s, SINEW_MEMORY_DEVICE, "self-collision boxes and corrections"},
    };
    r = sinew_buffers_create(ctx, bp, 2, fresh);
    if (r == SINEW_RESULT_OK && on)
        r = sinew_selfcol_upload(ctx, &plan, &own, &fresh[SINEW_BIND_SELF_INDEX], &fresh[SINEW_BIND_SELF_REAL]);
    if (r != SINEW_RESULT_OK) {
        sinew_buffer_destroy(ctx, &fresh[SINEW_BIND_SELF_INDEX]);
        sinew_buffer_destroy(ctx, &fresh[SINEW_BIND_SELF_REAL]);
        sinew_selfcol_free(&plan);
        free(list);
        return r;
    }
    for (int i = SINEW_BIND_SELF_INDEX; i <= SINEW_BIND_SELF_REAL; i++) {
        sinew_buffer_destroy(ctx, &b->buffers[i]);
        b->buffers[i] = fresh[i];
    }
    sinew_selfcol_free(&b->self);
    b->self = plan;
    b->view.selfcol = on ? &b->self : NULL;
    /* the new list held before the old one is dropped (they may share bodies) */
    for (uint32_t k = 0; k < count; k++) {
        list[k] = others[k];
        list[k]->refs++;
    }
    release_others(b);
    b->others = list;
    b->other_count = count;
    sinew_bindings_destroy(ctx, &b->bindings);
    if ((r = make_bindings(b)) != SINEW_RESULT_OK || (r = rerecord(b)) != SINEW_RESULT_OK) {
        b->unrecorded = r;
        return r;
    }
    b->unrecorded = SINEW_RESULT_OK;
    b->stats.dispatches = b->dispatches;
    b->stats.barriers = b->barriers;
    b->stats.bytes = b->bytes;
    b->stats.device_memory = device_memory(b, &b->stats.device_allocations);
    return SINEW_RESULT_OK;
}

/* The collider list, the ground's normal and the wind. */
static sinew_result check_new_params(const sinew_body *b, const sinew_step_params *p)
{
    const sinew_logger *lg = &b->ctx->logger;
    const float *g = p->ground_normal;
    const double g2 = (double)g[0] * g[0] + (double)g[1] * g[1] + (double)g[2] * g[2];
    if (!(g2 > 1e-12) || !isfinite(g2))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "ground_normal (%g, %g, %g) is not a direction: it must be finite and not zero", g[0], g[1],
                          g[2]);
    if (!(isfinite(p->wind[0]) && isfinite(p->wind[1]) && isfinite(p->wind[2])))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "wind (%g, %g, %g) is not finite", p->wind[0],
                          p->wind[1], p->wind[2]);
    if (!finite_nonneg(p->air_density))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "air_density %g must be finite and >= 0",
                          p->air_density);
    if (p->shape_count && !p->shapes)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "shape_count is %u but shapes is NULL",
                          p->shape_count);
    if (p->shapes && p->shape_count > b->desc.max_shapes)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s': %u shapes are more than its max_shapes (%u)", b->name, p->shape_count,
                          b->desc.max_shapes);
    for (uint32_t k = 0; p->shapes && k < p->shape_count; k++) {
        const sinew_shape *s = &p->shapes[k];
        const float v[] = {s->position[0], s->position[1], s->position[2], s->rotation[0], s->rotation[1],
                           s->rotation[2], s->rotation[3], s->velocity[0], s->velocity[1], s->velocity[2],
                           s->angular_velocity[0], s->angular_velocity[1], s->angular_velocity[2], s->radius,
                           s->half_extents[0], s->half_extents[1], s->half_extents[2]};
        const char *names[] = {"position.x", "position.y", "position.z", "rotation.x", "rotation.y", "rotation.z",
                               "rotation.w", "velocity.x", "velocity.y", "velocity.z", "angular_velocity.x",
                               "angular_velocity.y", "angular_velocity.z", "radius", "half_extents.x",
                               "half_extents.y", "half_extents.z"};
        _Static_assert(sizeof v / sizeof v[0] == sizeof names / sizeof names[0], "a name per value");
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            if (!isfinite(v[i]))
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "shapes[%u].%s is not finite", k,
                                  names[i]);
        if (s->kind < SINEW_SHAPE_SPHERE || s->kind > SINEW_SHAPE_MESH)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "shapes[%u].kind %d is no shape kind",
                              k, (int)s->kind);
        if (s->radius < 0.0f || s->half_extents[0] < 0.0f || s->half_extents[1] < 0.0f || s->half_extents[2] < 0.0f)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "shapes[%u]: radius (%g) and half_extents (%g, %g, %g) must be >= 0", k, s->radius,
                              s->half_extents[0], s->half_extents[1], s->half_extents[2]);
        const float *q = s->rotation;
        const double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
        if (!(fabs(len - 1.0) <= 1e-3))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "shapes[%u].rotation (%g, %g, %g, %g) is not a unit quaternion (length %g)", k, q[0], q[1],
                              q[2], q[3], len);
        if (s->kind == SINEW_SHAPE_MESH && s->mesh >= b->desc.mesh_count)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "shapes[%u].mesh %u is out of range: body '%s' has %u mesh colliders (desc.meshes)", k,
                              s->mesh, b->name, b->desc.mesh_count);
    }
    return SINEW_RESULT_OK;
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
    sinew_result r = check_new_params(b, p);
    if (r != SINEW_RESULT_OK)
        return r;
    return sinew_attach_check_frames(&b->attach, lg, b->name, p->frames, p->frame_count);
}

static void read_timestamps(sinew_body *b)
{
    sinew_context *ctx = b->ctx;
    uint64_t *t = b->query_results;
    uint32_t count = b->query_count;
    if (count < 2 || ctx->vk.vkGetQueryPoolResults(ctx->device, b->queries, 0, count, count * sizeof *t, t, sizeof *t,
                                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
        return;
    ctx->counters.readback_bytes += count * sizeof *t;
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

/* printf onto the end of the string in buf[size], truncating. */
static SINEW_PRINTF(3, 4) void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* The last step's tetrahedra are past desc.max_inverted or max_volume_error. */
static int elements_unhealthy(const sinew_body *b)
{
    const sinew_step_stats *s = &b->stats;
    return b->tet_count &&
           (s->inverted_elements > b->desc.max_inverted || s->max_volume_error > b->desc.max_volume_error);
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
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_copy(ctx, &b->saved, 32 * n, &b->buffers[SINEW_BIND_ANGLE], 0, 4ull * b->bend_count);
        if (r != SINEW_RESULT_OK)
            return r;
        s->rolled_back = 1;
        sinew_attach_rolled_back(&b->attach);
        if (sinew_body_ops(b)->rolled_back)
            sinew_body_ops(b)->rolled_back(b->state);
    } else {
        s->step_index++; /* the step happened, for better or worse */
    }
    /* what failed: the particles, the tetrahedra, or both */
    char what[512] = "";
    if (s->bad_particles)
        append(what, sizeof what,
               "%u of %u particles are not finite or faster than %g m/s (particles %u..%u; fastest finite %g m/s); ",
               s->bad_particles, b->particle_count, b->desc.max_speed, s->first_bad, s->last_bad, s->max_speed);
    if (b->tet_count && s->inverted_elements > b->desc.max_inverted)
        append(what, sizeof what,
               "%u of %u tetrahedra are inverted (det F <= 0; first: element %u), more than max_inverted %u; ",
               s->inverted_elements, b->tet_count, s->first_inverted, b->desc.max_inverted);
    if (b->tet_count && s->max_volume_error > b->desc.max_volume_error)
        append(what, sizeof what,
               "a tetrahedron's volume is off its rest volume by %g (|V/V0 - 1|), more than max_volume_error %g "
               "(%u inverted, first: element %u); ",
               s->max_volume_error, b->desc.max_volume_error, s->inverted_elements, s->first_inverted);
    return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_UNSTABLE, "health", "body '%s', step %llu: %s%s", b->name,
                      (unsigned long long)s->step_index + s->rolled_back, what,
                      s->rolled_back ? "rolled back to the state before the step"
                      : can_roll_back ? "no rollback copy (desc.rollback = 0): the state is as the step left it"
                                      : "a recorded step is not rolled back: the state is as the step left it");
}

/* The step's values as the kernels read them, for a step about to be
 * submitted or recorded. */
static GpuParams gpu_params(sinew_body *b, const sinew_step_params *p)
{
    const float h = p->dt / (float)b->desc.substeps;
    GpuParams gp = {{p->gravity[0], p->gravity[1], p->gravity[2], h},
                    {p->sphere_center[0], p->sphere_center[1], p->sphere_center[2], p->sphere ? p->sphere_radius : -1.0f},
                    {p->box_center[0], p->box_center[1], p->box_center[2], p->box ? 1.0f : 0.0f},
                    {p->box_half_extents[0], p->box_half_extents[1], p->box_half_extents[2], 0.0f},
                    {p->box_velocity[0] * h, p->box_velocity[1] * h, p->box_velocity[2] * h, 0.0f},
                    1.0f / h, 1.0f / (h * h), expf(-p->damping * h), p->ground ? p->ground_height : -3e38f,
                    p->friction, p->contact_offset, b->desc.jacobi_omega, b->desc.max_speed,
                    b->desc.newton_iterations, b->desc.newton_tolerance, 0u, 0.0f,
                    {p->capsule_a[0], p->capsule_a[1], p->capsule_a[2], p->capsule ? p->capsule_radius : -1.0f},
                    {p->capsule_b[0], p->capsule_b[1], p->capsule_b[2], 0.0f}};
    if (sinew_body_ops(b)->step_flags)
        gp.solver_flags = sinew_body_ops(b)->step_flags(b->state);
    const double g[3] = {p->ground_normal[0], p->ground_normal[1], p->ground_normal[2]};
    const double glen = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    for (int k = 0; k < 3; k++) /* (0, 1, 0) stays exact: the kernels test for it */
        gp.ground_normal[k] = (float)(g[k] / glen);
    gp.shapes[0] = p->shapes ? p->shape_count : 0;
    gp.shapes[1] = b->shapes_current;
    gp.shapes[2] = b->shapes_meshes;
    gp.shapes[3] = b->shapes_wind;
    gp.wind[0] = p->wind[0];
    gp.wind[1] = p->wind[1];
    gp.wind[2] = p->wind[2];
    gp.wind[3] = p->air_density;
    gp.aero[0] = b->desc.drag;
    gp.aero[1] = b->desc.lift;
    gp.aero[2] = b->wind ? 1.0f : 0.0f;
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

/* The collider list as the kernels read it (shared/layout.h, GpuShape): the
 * pose at the step's start, the quaternion normalised. */
static void shape_records(const sinew_step_params *p, GpuShape *out)
{
    for (uint32_t k = 0; p->shapes && k < p->shape_count; k++) {
        const sinew_shape *sh = &p->shapes[k];
        const float *q = sh->rotation;
        const double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
        GpuShape g = {{sh->position[0], sh->position[1], sh->position[2], sh->radius},
                      {(float)(q[0] / len), (float)(q[1] / len), (float)(q[2] / len), (float)(q[3] / len)},
                      {sh->half_extents[0], sh->half_extents[1], sh->half_extents[2], (float)sh->kind},
                      {sh->velocity[0], sh->velocity[1], sh->velocity[2], (float)sh->mesh},
                      {sh->angular_velocity[0], sh->angular_velocity[1], sh->angular_velocity[2], 0.0f},
                      {{0}}};
        out[k] = g;
    }
}

/* The step's submits, host waits and bytes read back, from the context's
 * counters before it. */
static void count_step(sinew_body *b, const sinew_counters *before)
{
    const sinew_counters *now = &b->ctx->counters;
    sinew_step_stats *s = &b->stats;
    s->submits = (uint32_t)(now->submits - before->submits);
    s->host_waits = (uint32_t)(now->host_waits - before->host_waits);
    s->readback_bytes = now->readback_bytes - before->readback_bytes;
}

/* The statistics and health counters as each step starts. */
static GpuStats fresh_stats(void)
{
    GpuStats gs = {0};
    gs.first_bad = UINT32_MAX;
    gs.first_inverted = UINT32_MAX;
    gs.residual = -1.0f;
    return gs;
}

/* The finished step's statistics into b->stats; a failed health check rolls
 * back (when the step may be and desc.rollback) and says so. */
static sinew_result take_stats(sinew_body *b, int can_roll_back)
{
    GpuStats gs;
    memcpy(&gs, b->readback.mapped, sizeof gs);
    b->ctx->counters.readback_bytes += sizeof gs;
    sinew_step_stats *s = &b->stats;
    s->newton_iterations = gs.newton;
    s->loops_cut = gs.loops_cut;
    /* the implicit solvers' system is the substep's linear one */
    s->residual = sinew_body_ops(b)->record_substep && b->desc.residual ? (float)gs.linear_residual : gs.residual;
    s->linear_iterations = gs.linear_iterations;
    s->linear_residual = gs.linear_residual;
    s->linear_unconverged = gs.linear_unconverged;
    s->linear_fallback_iterations = gs.linear_fallback;
    s->self_candidates = gs.self_candidates;
    s->self_dropped = gs.self_dropped;
    s->self_contacts = gs.self_contacts;
    if (gs.self_dropped && !b->warned_self_dropped) {
        b->warned_self_dropped = 1;
        sinew_logf(&b->ctx->logger, SINEW_LOG_WARNING, "self-collision",
                   "body '%s': %u self-collision candidates did not fit in self_capacity (%u) in step %llu and "
                   "were not projected; raise self_capacity or lower the speed", b->name, gs.self_dropped,
                   b->desc.self_capacity, (unsigned long long)b->stats.step_index);
    }
    s->ms_linear = sinew_body_ops(b)->record_substep ? s->ms_solve : 0.0; /* the implicit solvers' solve phase */
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
        if (b->tet_count) {
            s->inverted_elements = gs.inverted;
            s->first_inverted = gs.inverted ? gs.first_inverted : 0;
            memcpy(&s->max_volume_error, &gs.volume_error, sizeof s->max_volume_error);
        }
        if (gs.bad_count || elements_unhealthy(b))
            return unhealthy(b, can_roll_back);
    }
    s->step_index++;
    return SINEW_RESULT_OK;
}

/* Finishes the step in flight: waits for its fence (counted as a host wait
 * when it had not signalled yet, or always when `count_wait`), reads its
 * timestamps and statistics; a failed health check rolls back and returns
 * UNSTABLE. */
static sinew_result finish(sinew_body *b, int count_wait)
{
    if (!b->in_flight)
        return SINEW_RESULT_OK;
    sinew_context *ctx = b->ctx;
    const struct VolkDeviceTable *vk = &ctx->vk;
    b->in_flight = 0;
    VkResult vr = vk->vkGetFenceStatus(ctx->device, b->fence);
    if (vr == VK_NOT_READY || (vr == VK_SUCCESS && count_wait)) {
        vr = vk->vkWaitForFences(ctx->device, 1, &b->fence, VK_TRUE, UINT64_MAX);
        ctx->counters.host_waits++;
    }
    if (vr != VK_SUCCESS)
        return sinew_vk_fail(ctx, vr, "vkWaitForFences", __FILE__, __LINE__);
    if (b->queries)
        read_timestamps(b);
    return take_stats(b, 1);
}

sinew_result sinew_body_settle(sinew_body *b)
{
    sinew_result r = finish(b, 0);
    if (r == SINEW_RESULT_ERROR_UNSTABLE) { /* the next step or wait reports it */
        b->deferred = r;
        return SINEW_RESULT_OK;
    }
    return r;
}

sinew_result sinew_body_wait(sinew_body *b)
{
    SINEW_ASSERT(b);
    sinew_result r = b->deferred != SINEW_RESULT_OK ? b->deferred : finish(b, 0);
    b->deferred = SINEW_RESULT_OK;
    return r;
}

/* A body whose step could not be recorded again takes no step. */
static sinew_result refuse_unrecorded(const sinew_body *b)
{
    return sinew_fail(&b->ctx->logger, b->unrecorded, "body",
                      "body '%s' has no recorded step: setting its contact list failed (%s); set it again or destroy "
                      "the body", b->name, sinew_result_string(b->unrecorded));
}

/* The bodies a body collides with hand it their positions as they are:
 * their frames must be its own. */
static sinew_result check_origins(const sinew_body *b)
{
    for (uint32_t k = 0; k < b->other_count; k++) {
        const double *o = b->others[k]->desc.origin, *m = b->desc.origin;
        if (o[0] != m[0] || o[1] != m[1] || o[2] != m[2])
            return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s' (origin %.17g, %.17g, %.17g) collides with body '%s' (origin %.17g, %.17g, "
                              "%.17g): bodies in contact must share an origin; shift them together", b->name, m[0],
                              m[1], m[2], b->others[k]->name, o[0], o[1], o[2]);
    }
    return SINEW_RESULT_OK;
}

void sinew_body_get_origin(const sinew_body *b, double origin[3])
{
    SINEW_ASSERT(b && origin);
    memcpy(origin, b->desc.origin, sizeof b->desc.origin);
}

sinew_result sinew_body_shift_origin(sinew_body *b, const double by[3])
{
    SINEW_ASSERT(b && by);
    for (int k = 0; k < 3; k++)
        if (!(fabs(by[k]) <= 1e9))
            return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': origin shift (%g, %g, %g) is not finite or beyond 1e9 m; nothing was changed",
                              b->name, by[0], by[1], by[2]);
    const float f[3] = {(float)by[0], (float)by[1], (float)by[2]};
    sinew_result r = sinew_body_translate_state(b, f);
    if (r != SINEW_RESULT_OK)
        return r;
    for (int k = 0; k < 3; k++)
        b->desc.origin[k] += (double)f[k];
    return SINEW_RESULT_OK;
}

/* The solver's host work between steps (solver.h, before_step), with the
 * step before finished; the step recorded again when it asks. */
static sinew_result solver_before_step(sinew_body *b, const sinew_step_params *p, int can_rerecord)
{
    const sinew_solver_ops *ops = sinew_body_ops(b);
    if (!ops->before_step)
        return SINEW_RESULT_OK;
    int again = 0;
    sinew_result r = ops->before_step(b->state, &b->view, p, &again);
    if (r == SINEW_RESULT_OK && again && can_rerecord) {
        r = rerecord(b);
        b->stats.dispatches = b->dispatches;
        b->stats.barriers = b->barriers;
        b->stats.bytes = b->bytes;
        b->stats.device_memory = device_memory(b, &b->stats.device_allocations);
    }
    return r;
}

sinew_result sinew_body_step(sinew_body *b, const sinew_step_params *p)
{
    SINEW_ASSERT(b && p);
    sinew_context *ctx = b->ctx;
    sinew_result r = check_params(b, p);
    if (r != SINEW_RESULT_OK)
        return r;
    if (b->unrecorded)
        return refuse_unrecorded(b);
    if ((r = check_origins(b)) != SINEW_RESULT_OK)
        return r;
    const sinew_counters before = ctx->counters;
    if ((r = sinew_body_wait(b)) != SINEW_RESULT_OK) { /* pipelined: the step before failed */
        count_step(b, &before);
        return r;
    }
    if ((r = solver_before_step(b, p, 1)) != SINEW_RESULT_OK) {
        count_step(b, &before);
        return r;
    }
    GpuParams gp = gpu_params(b, p);
    GpuStats gs = fresh_stats();
    memcpy(b->upload.mapped, &gp, sizeof gp);
    memcpy((char *)b->upload.mapped + sizeof gp, &gs, sizeof gs);
    shape_records(p, (GpuShape *)((char *)b->upload.mapped + sizeof gp + sizeof gs));
    sinew_attach_write(&b->attach, p->frame_count ? p->frames : NULL);
    if (sinew_attach_dynamic_bytes(&b->attach))
        memcpy((char *)b->upload.mapped + UPLOAD_ATTACH(b), b->attach.staging, sinew_attach_dynamic_bytes(&b->attach));
    if ((r = sinew_submit(ctx, b->cmd, b->fence)) != SINEW_RESULT_OK)
        return r;
    b->in_flight = 1;
    if (!b->desc.pipelined)
        r = finish(b, 1);
    count_step(b, &before);
    return r;
}

sinew_result sinew_body_record_step(sinew_body *b, VkCommandBuffer cmd, const sinew_step_params *p)
{
    SINEW_ASSERT(b && cmd && p);
    sinew_context *ctx = b->ctx;
    sinew_result r = check_params(b, p);
    if (r != SINEW_RESULT_OK)
        return r;
    if (b->unrecorded)
        return refuse_unrecorded(b);
    if ((r = check_origins(b)) != SINEW_RESULT_OK)
        return r;
    if (ctx->lost)
        return sinew_context_refuse_lost(ctx);
    if ((r = sinew_body_settle(b)) != SINEW_RESULT_OK)
        return r;
    if ((r = solver_before_step(b, p, 0)) != SINEW_RESULT_OK)
        return r;
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
    if (p->shapes && p->shape_count) { /* within 65536 bytes: MAX_SHAPES */
        GpuShape shapes[MAX_SHAPES];
        shape_records(p, shapes);
        vk->vkCmdUpdateBuffer(cmd, b->buffers[SINEW_BIND_SHAPES].buffer, 0, sizeof *shapes * p->shape_count, shapes);
    }
    sinew_attach_write(&b->attach, p->frame_count ? p->frames : NULL);
    const uint64_t dynamic = sinew_attach_dynamic_bytes(&b->attach);
    for (uint64_t at = 0; at < dynamic; at += 65536) /* vkCmdUpdateBuffer's limit */
        vk->vkCmdUpdateBuffer(cmd, b->buffers[SINEW_BIND_ATTACH].buffer, at, dynamic - at < 65536 ? dynamic - at : 65536,
                              (const char *)b->attach.staging + at);
    VkMemoryBarrier updated = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                               VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &updated,
                             0, NULL, 0, NULL);
    sinew_bindings_bind(ctx, cmd, &b->bindings);
    sinew_recorder rec = {ctx, cmd};
    record_stages(b, &rec); /* ends with compute -> host */
    /* Index reads too: the render mesh's indices share the buffer its
     * kernel writes (SINEW_BIND_RENDER). */
    VkMemoryBarrier after = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                             VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                                 (graphics ? VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_INDEX_READ_BIT : 0)};
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


sinew_result sinew_body_grow_pins(sinew_body *b, uint32_t capacity)
{
    sinew_context *ctx = b->ctx;
    sinew_attach *at = &b->attach;
    const uint32_t old_capacity = at->pin_capacity;
    sinew_result r = sinew_attach_grow(at, &ctx->logger, capacity);
    if (r != SINEW_RESULT_OK)
        return r;
    /* the new buffers first: on failure the old ones stay, and the host keeps
     * the slots they hold (its larger arrays unused; the pins that did not
     * get a slot held where they are by inverse mass 0) */
    sinew_buffer fresh[SINEW_BODY_BINDINGS], upload = {0};
    memset(fresh, 0, sizeof fresh);
    const sinew_buffer_plan plan[] = {
        {SINEW_BIND_ATTACH, sinew_attach_bytes(at), SINEW_MEMORY_DEVICE, "attachments and pins"},
        {0, UPLOAD_ATTACH(b) + sinew_attach_dynamic_bytes(at), SINEW_MEMORY_HOST, "step parameters (host)", 0, &upload},
    };
    r = sinew_buffers_create(ctx, plan, 2, fresh);
    if (r == SINEW_RESULT_OK)
        r = sinew_attach_upload(at, ctx, &fresh[SINEW_BIND_ATTACH]);
    if (r != SINEW_RESULT_OK) {
        sinew_buffer_destroy(ctx, &fresh[SINEW_BIND_ATTACH]);
        sinew_buffer_destroy(ctx, &upload);
        at->pin_capacity = old_capacity;
        return r;
    }
    sinew_buffer_destroy(ctx, &b->buffers[SINEW_BIND_ATTACH]);
    sinew_buffer_destroy(ctx, &b->upload);
    b->buffers[SINEW_BIND_ATTACH] = fresh[SINEW_BIND_ATTACH];
    b->upload = upload;
    sinew_bindings_destroy(ctx, &b->bindings);
    if ((r = make_bindings(b)) != SINEW_RESULT_OK || (r = rerecord(b)) != SINEW_RESULT_OK) {
        b->unrecorded = r;
        return r;
    }
    b->stats.dispatches = b->dispatches;
    b->stats.barriers = b->barriers;
    b->stats.bytes = b->bytes;
    b->stats.device_memory = device_memory(b, &b->stats.device_allocations);
    return SINEW_RESULT_OK;
}

/* The pins of xyzw (inverse mass 0, held by no attachment). */
static uint32_t pins_wanted(const sinew_body *b, const float *xyzw)
{
    uint32_t wanted = 0;
    for (uint32_t i = 0; i < b->particle_count; i++)
        wanted += xyzw[4 * i + 3] == 0.0f && b->attach.attached[i] == SINEW_ATTACH_NONE;
    return wanted;
}

sinew_result sinew_body_reserve_pins(sinew_body *b, const float *xyzw)
{
    if (!b->attach.on)
        return SINEW_RESULT_OK;
    const uint32_t wanted = pins_wanted(b, xyzw);
    return wanted > b->attach.pin_capacity ? sinew_body_grow_pins(b, wanted + 8) : SINEW_RESULT_OK;
}

sinew_result sinew_body_sync_pins(sinew_body *b, const float *xyzw)
{
    sinew_attach *at = &b->attach;
    if (!at->on)
        return SINEW_RESULT_OK;
    const uint32_t wanted = pins_wanted(b, xyzw);
    for (uint32_t i = 0; i < b->particle_count; i++)
        if (!(xyzw[4 * i + 3] == 0.0f && at->attached[i] == SINEW_ATTACH_NONE))
            sinew_attach_unpin(at, i);
    sinew_result r = SINEW_RESULT_OK;
    if (wanted > at->pin_capacity)
        r = sinew_body_grow_pins(b, wanted + 8);
    for (uint32_t i = 0; i < b->particle_count && r == SINEW_RESULT_OK; i++)
        if (xyzw[4 * i + 3] == 0.0f && at->attached[i] == SINEW_ATTACH_NONE) {
            int full;
            sinew_attach_pin(at, i, &xyzw[4 * i], &full);
        }
    return r;
}
