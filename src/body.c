/* Bodies: upload an asset, record the step once, replay it each frame. The
 * body keeps what every solver shares and reaches its solver through the
 * table (solvers/solver.h, docs/architecture.md). This file holds a body's
 * life (create, destroy, references) and the step's entry points; the
 * upload, the recording, the parameters and the statistics have files of
 * their own (body_upload.c, step_record.c, step_params.c, body_stats.c). */
#include "body.h"

#include <sinew/vulkan.h>

#include "collider.h"
#include "selfcol.h"
#include "stages.h"

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
        .fallback_iterations = 200, .bdf2 = SINEW_IMPLICIT_BDF2_AUTO};
    d.mgpbd_cg_iterations = 20;
    d.mgpbd_setup_interval = 20;
    d.render_mesh = 1;
    d.tether_scale = 1.0f;
    d.collision_category = 1u;
    d.collision_mask = 0xFFFFFFFFu;
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

static sinew_result check_desc(const sinew_context *ctx, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    if (!sinew_solver_row_of(d->solver))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "unknown solver %d", (int)d->solver);
    if (d->substeps < 1 || d->substeps > 1000 || d->iterations < 1 || d->iterations > 1000)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "substeps (%u) and iterations (%u) must be in 1..1000", d->substeps, d->iterations);
    if (!sinew_finite_nonneg(d->stretch_compliance) || !sinew_finite_nonneg(d->shear_compliance) ||
        !sinew_finite_nonneg(d->bend_compliance))
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
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "origin (%g, %g, %g) (the asset's origin plus desc.origin) is not finite", d->origin[0],
                          d->origin[1], d->origin[2]);
    if (!(d->max_volume_error >= 0.0f))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "max_volume_error %g is not >= 0 (INFINITY: no bound)", d->max_volume_error);
    if (d->newton_iterations < 1 || d->newton_iterations > 1000)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "newton_iterations (%u) must be in 1..1000",
                          d->newton_iterations);
    if (!sinew_finite_nonneg(d->newton_tolerance) || d->newton_tolerance >= 1.0f)
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
    if (!sinew_finite_nonneg(d->drag) || !sinew_finite_nonneg(d->lift))
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

sinew_result sinew_body_record_unfused(sinew_body *b)
{
    sinew_result r = sinew_body_settle(b);
    if (r != SINEW_RESULT_OK)
        return r;
    b->unfused = 1;
    return sinew_body_rerecord(b);
}

/* Set 0 from the body's buffers (the mesh collider's field in place of the
 * empty one), set 1 from the solver's. */
sinew_result sinew_body_make_bindings(sinew_body *b)
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
uint64_t sinew_body_device_memory(const sinew_body *b, uint32_t *allocations)
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

sinew_result sinew_body_check(sinew_context *ctx, const sinew_asset *asset, const sinew_body_desc *desc)
{
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
    if ((r = sinew_wind_check(ctx, desc, row->ops)) != SINEW_RESULT_OK)
        return r;
    if (desc->materials && desc->material_count != asset->material_count)
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "desc gives %u materials; the asset's table has %u", desc->material_count,
                          asset->material_count);
    return SINEW_RESULT_OK;
}

sinew_result sinew_body_make(sinew_context *ctx, const sinew_asset *asset, const sinew_body_desc *desc,
                             sinew_body **out)
{
    *out = NULL;
    sinew_result r = sinew_body_check(ctx, asset, desc);
    if (r != SINEW_RESULT_OK)
        return r;
    const sinew_solver_row *row = sinew_solver_row_of(desc->solver);
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
    b->triangle_count = asset->triangle_count;
    if ((r = sinew_render_map_plan(b, asset)) != SINEW_RESULT_OK) {
        sinew_body_unmake(b);
        return r;
    }
    sinew_wind_plan(b, asset);
    b->view = (sinew_body_view){ctx, &b->desc, b->name, b->particle_count, b->distance_count, b->bend_count,
                                asset->element_count, b->buffers, &b->saved, &b->stats};
    /* the rest pose (the static error estimate, body_error.c) and the
     * surface (collision with other bodies) */
    b->rest = malloc(sizeof *b->rest * asset->particle_count + 1);
    b->surface = asset->triangle_count ? malloc(sizeof *b->surface * asset->triangle_count) : NULL;
    if (!b->rest || (asset->triangle_count && !b->surface)) {
        sinew_body_unmake(b);
        return sinew_fail(&ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    memcpy(b->rest, asset->particles, sizeof *b->rest * asset->particle_count);
    if (asset->triangle_count)
        memcpy(b->surface, asset->triangles, sizeof *b->surface * asset->triangle_count);
    const sinew_surface own = sinew_surface_of(asset);
    if (desc->self_collision && (r = sinew_selfcol_plan(ctx, &own, desc, NULL, 0, NULL, &b->self)) != SINEW_RESULT_OK) {
        sinew_body_unmake(b);
        return r;
    }
    b->view.selfcol = desc->self_collision ? &b->self : NULL;
    if ((r = sinew_body_copy_elements(b, asset)) == SINEW_RESULT_OK)
        b->view.elements = sinew_body_element_set(b);
    if (r == SINEW_RESULT_OK)
        r = sinew_attach_plan(&b->attach, &ctx->logger, asset, desc, row->ops->record_solve != NULL);
    b->view.attach = &b->attach;
    b->desc.attachments = NULL; /* borrowed for the call only */
    b->desc.frames = NULL;
    b->desc.frame_names = NULL;
    if (r != SINEW_RESULT_OK || (r = sinew_body_copy_constraints(b, asset)) != SINEW_RESULT_OK ||
        (r = sinew_body_upload_asset(b, asset)) != SINEW_RESULT_OK ||
        (r = row->ops->create(&b->view, asset, &b->state)) != SINEW_RESULT_OK ||
        (r = sinew_body_make_bindings(b)) != SINEW_RESULT_OK || (r = sinew_body_record_new(b)) != SINEW_RESULT_OK) {
        sinew_body_unmake(b);
        return r;
    }
    b->desc.meshes = NULL; /* borrowed for the call: copied into SHAPES */
    sinew_body_unmeasured(&b->stats);
    b->stats.dispatches = b->dispatches;
    b->stats.barriers = b->barriers;
    b->stats.bytes = b->bytes;
    b->stats.device_memory = sinew_body_device_memory(b, &b->stats.device_allocations);
    *out = b;
    return SINEW_RESULT_OK;
}

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
    if (b->world_bodies) {
        free(b->world_bodies->body_of);
        free(b->world_bodies->filter);
        free(b->world_bodies);
    }
    sinew_collider_destroy(b->collider);
    sinew_body_release_others(b);
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
void sinew_body_release_others(sinew_body *b)
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
void sinew_body_unmake(sinew_body *b)
{
    if (!b)
        return;
    if (b->fence && !b->ctx->lost) /* its step, which may read the bodies it collides with */
        b->ctx->vk.vkWaitForFences(b->ctx->device, 1, &b->fence, VK_TRUE, UINT64_MAX);
    sinew_body_release_others(b);
    body_release(b);
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
        sinew_body_read_timestamps(b);
    return sinew_body_take_stats(b, 1);
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
    if (b->asset) /* a member: its batch steps with its world, which waits */
        return SINEW_RESULT_OK;
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
        r = sinew_body_rerecord(b);
    }
    return r;
}

/* The step's checks and host work before its submit, its parameters
 * written into the upload buffer (sinew_body_begin_step, sinew_body_step). */
static sinew_result begin_step(sinew_body *b, const sinew_step_params *p, const sinew_counters *before)
{
    sinew_result r = sinew_body_check_params(b, p);
    if (r != SINEW_RESULT_OK)
        return r;
    if (b->unrecorded)
        return refuse_unrecorded(b);
    if ((r = check_origins(b)) != SINEW_RESULT_OK)
        return r;
    if ((r = sinew_body_wait(b)) != SINEW_RESULT_OK) { /* pipelined: the step before failed */
        sinew_body_count_step(b, before);
        return r;
    }
    if ((r = solver_before_step(b, p, 1)) != SINEW_RESULT_OK) {
        sinew_body_count_step(b, before);
        return r;
    }
    GpuParams gp = sinew_body_gpu_params(b, p);
    GpuStats gs = sinew_body_fresh_stats();
    memcpy(b->upload.mapped, &gp, sizeof gp);
    memcpy((char *)b->upload.mapped + sizeof gp, &gs, sizeof gs);
    sinew_body_shape_records(p, (GpuShape *)((char *)b->upload.mapped + sizeof gp + sizeof gs));
    sinew_attach_write(&b->attach, p->frame_count ? p->frames : NULL);
    if (sinew_attach_dynamic_bytes(&b->attach))
        memcpy((char *)b->upload.mapped + UPLOAD_ATTACH(b), b->attach.staging, sinew_attach_dynamic_bytes(&b->attach));
    return SINEW_RESULT_OK;
}

/* A body in a world is stepped by its world. */
static sinew_result refuse_in_world(const sinew_body *b, const char *call)
{
    return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                      "body '%s' is in world '%s': %s steps the world's bodies together (sinew_world_step, "
                      "sinew_world_record_step)", b->name, b->world_name, call);
}

sinew_result sinew_body_step(sinew_body *b, const sinew_step_params *p)
{
    SINEW_ASSERT(b && p);
    if (b->world)
        return refuse_in_world(b, "sinew_body_step");
    sinew_context *ctx = b->ctx;
    const sinew_counters before = ctx->counters;
    sinew_result r = begin_step(b, p, &before);
    if (r != SINEW_RESULT_OK)
        return r;
    if ((r = sinew_submit(ctx, b->cmd, b->fence)) != SINEW_RESULT_OK)
        return r;
    b->in_flight = 1;
    if (!b->desc.pipelined)
        r = finish(b, 1);
    sinew_body_count_step(b, &before);
    return r;
}

sinew_result sinew_body_begin_step(sinew_body *b, const sinew_step_params *p)
{
    const sinew_counters before = b->ctx->counters;
    return begin_step(b, p, &before);
}

sinew_result sinew_body_end_step(sinew_body *b)
{
    if (b->queries)
        sinew_body_read_timestamps(b);
    return sinew_body_take_stats(b, 1);
}

sinew_result sinew_body_record_step(sinew_body *b, VkCommandBuffer cmd, const sinew_step_params *p)
{
    SINEW_ASSERT(b && cmd && p);
    return b->world ? refuse_in_world(b, "sinew_body_record_step") : sinew_body_record_into(b, cmd, p);
}

sinew_result sinew_body_record_into(sinew_body *b, VkCommandBuffer cmd, const sinew_step_params *p)
{
    sinew_context *ctx = b->ctx;
    sinew_result r = sinew_body_check_params(b, p);
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
    GpuParams gp = sinew_body_gpu_params(b, p);
    GpuStats gs = sinew_body_fresh_stats();
    vk->vkCmdUpdateBuffer(cmd, b->buffers[SINEW_BIND_PARAMS].buffer, 0, sizeof gp, &gp);
    vk->vkCmdUpdateBuffer(cmd, b->buffers[SINEW_BIND_STATS].buffer, 0, sizeof gs, &gs);
    if (p->shapes && p->shape_count) { /* within 65536 bytes: MAX_SHAPES */
        GpuShape shapes[MAX_SHAPES];
        sinew_body_shape_records(p, shapes);
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
    sinew_body_record_stages(b, &rec); /* ends with compute -> host */
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
    return b->world ? refuse_in_world(b, "sinew_body_collect_stats") : sinew_body_collect_from(b);
}

sinew_result sinew_body_collect_from(sinew_body *b)
{
    if (!b->recorded)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "body '%s': no recorded step to collect (sinew_body_record_step)", b->name);
    b->recorded = 0;
    return sinew_body_take_stats(b, 0);
}
