/* A step's parameters: checked (finite, in range, the collider list, the
 * frames) and turned into what the kernels read (GpuParams, the collider
 * list's records, the statistics as a step starts). */
#include "body.h"

#include "collider.h"

#include <math.h>

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
    if (!sinew_finite_nonneg(p->air_density))
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

sinew_result sinew_body_check_params(const sinew_body *b, const sinew_step_params *p)
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

/* The step's values as the kernels read them, for a step about to be
 * submitted or recorded. */
GpuParams sinew_body_gpu_params(sinew_body *b, const sinew_step_params *p)
{
    const float h = p->dt / (float)b->desc.substeps;
    GpuParams gp = {{p->gravity[0], p->gravity[1], p->gravity[2], h},
                    {p->sphere_center[0], p->sphere_center[1], p->sphere_center[2], p->sphere ? p->sphere_radius : -1.0f},
                    {p->box_center[0], p->box_center[1], p->box_center[2], p->box ? 1.0f : 0.0f},
                    {p->box_half_extents[0], p->box_half_extents[1], p->box_half_extents[2], 0.0f},
                    {p->box_velocity[0] * h, p->box_velocity[1] * h, p->box_velocity[2] * h, 0.0f},
                    1.0f / h, 1.0f / (h * h), expf(-p->damping * h), p->ground ? p->ground_height : -3e38f,
                    p->friction, p->contact_offset, b->desc.jacobi_omega, b->desc.max_speed,
                    b->desc.newton_iterations, b->desc.newton_tolerance, 0u, p->dt,
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
void sinew_body_shape_records(const sinew_step_params *p, GpuShape *out)
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

/* The statistics and health counters as each step starts. */
GpuStats sinew_body_fresh_stats(void)
{
    GpuStats gs = {0};
    gs.first_bad = UINT32_MAX;
    gs.first_inverted = UINT32_MAX;
    gs.residual = -1.0f;
    return gs;
}
