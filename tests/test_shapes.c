/* The collider list, the ground of any normal and wind (docs/colliders.md,
 * docs/wind.md), on the device: moving and turning shapes keep every
 * particle out (checked on the host in double from the shapes' poses), a
 * turning box carries the cloth resting on it, cloth lands on a tilted
 * ground, the wind's velocity change matches a double reference and blows
 * a flag downwind, a new list costs nothing but its upload, and bad input
 * is refused with a message, changing nothing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu_fixture.h"
#include "prep/cloth.h"
#include "prep/mesh.h"
#include "shapes.h"

TestSuite(shapes, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

#define PI 3.14159265358979323846

/* A shape's pose in double, moved on by the host as the step moves it. */
typedef struct pose {
    sinew_shape_kind kind;
    double c[3], q[4], v[3], w[3];
    double radius, half[3];
    uint32_t mesh;
} pose;

static void quat_mul(const double a[4], const double b[4], double out[4])
{
    double r[4] = {a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2],
                   a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++)
        out[k] = r[k] / len;
}

/* The pose t seconds on: c + v t, turned by w t about the world axes. */
static pose advance(pose p, double t)
{
    double rate = sqrt(p.w[0] * p.w[0] + p.w[1] * p.w[1] + p.w[2] * p.w[2]);
    for (int k = 0; k < 3; k++)
        p.c[k] += p.v[k] * t;
    if (rate > 0.0) {
        double s = sin(0.5 * rate * t) / rate;
        double dq[4] = {s * p.w[0], s * p.w[1], s * p.w[2], cos(0.5 * rate * t)};
        quat_mul(dq, p.q, p.q);
    }
    return p;
}

static sinew_shape to_shape(const pose *p)
{
    sinew_shape s = sinew_shape_default(p->kind);
    for (int k = 0; k < 3; k++) {
        s.position[k] = (float)p->c[k];
        s.velocity[k] = (float)p->v[k];
        s.angular_velocity[k] = (float)p->w[k];
        s.half_extents[k] = (float)p->half[k];
    }
    for (int k = 0; k < 4; k++)
        s.rotation[k] = (float)p->q[k];
    s.radius = (float)p->radius;
    s.mesh = p->mesh;
    return s;
}

/* World x into the shape's frame: R^T (x - c). */
static void to_local(const pose *p, const double x[3], double l[3])
{
    const double *q = p->q;
    double X = q[0], Y = q[1], Z = q[2], W = q[3];
    double R[3][3] = {{1 - 2 * (Y * Y + Z * Z), 2 * (X * Y - W * Z), 2 * (X * Z + W * Y)},
                      {2 * (X * Y + W * Z), 1 - 2 * (X * X + Z * Z), 2 * (Y * Z - W * X)},
                      {2 * (X * Z - W * Y), 2 * (Y * Z + W * X), 1 - 2 * (X * X + Y * Y)}};
    double d[3] = {x[0] - p->c[0], x[1] - p->c[1], x[2] - p->c[2]};
    for (int k = 0; k < 3; k++)
        l[k] = R[0][k] * d[0] + R[1][k] * d[1] + R[2][k] * d[2];
}

/* Signed distance of x from the shape (m, negative inside). */
static double distance(const pose *p, const double x[3], sinew_collider *const *meshes)
{
    double l[3];
    to_local(p, x, l);
    if (p->kind == SINEW_SHAPE_BOX) {
        double q[3], out = 0.0, in = -1e300;
        for (int k = 0; k < 3; k++) {
            q[k] = fabs(l[k]) - p->half[k];
            out += q[k] > 0.0 ? q[k] * q[k] : 0.0;
            in = fmax(in, q[k]);
        }
        return out > 0.0 ? sqrt(out) : in;
    }
    if (p->kind == SINEW_SHAPE_MESH) {
        float lf[3] = {(float)l[0], (float)l[1], (float)l[2]};
        return sinew_collider_distance(meshes[p->mesh], lf, NULL);
    }
    if (p->kind == SINEW_SHAPE_CAPSULE)
        l[1] -= fmin(fmax(l[1], -p->half[1]), p->half[1]);
    return sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) - p->radius;
}

static sinew_asset *vertical_cloth(uint32_t nx, double size, int pin_edge)
{
    sinew_mesh mesh;
    double origin[3] = {0.0, 0.5, 0.0};
    cr_assert_eq(sinew_mesh_grid(nx, nx, size, size, SINEW_GRID_XY, origin, &mesh), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    if (pin_edge) { /* the pole: the edge at the lowest x */
        opt.pin_box = 1;
        opt.box_min[0] = -1e9, opt.box_min[1] = -1e9, opt.box_min[2] = -1e9;
        opt.box_max[0] = -0.5 * size + 1e-6, opt.box_max[1] = 1e9, opt.box_max[2] = 1e9;
    }
    opt.free_parts = !pin_edge;
    sinew_asset *asset = NULL;
    cr_assert_eq(sinew_cloth_build(&mesh, &opt, gpu_logger(), &asset, NULL), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_mesh_free(&mesh);
    return asset;
}

static sinew_body *make_body(sinew_asset *asset, sinew_body_desc *d)
{
    gpu_resolve_layout(asset, d);
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, d, &body), SINEW_RESULT_OK, "%s", gpu_log_text());
    return body;
}

/* (a) A box turning about a tilted axis and ten spheres rising fast through
 * the falling cloth, with a mesh ball gliding beside them: after every step
 * no particle is inside any of them, at the poses the step ended at. */
Test(shapes, moving_shapes_keep_particles_out)
{
    sinew_asset *asset = gpu_make_cloth(20, 20, 1.0, 1.0, 0);
    const uint32_t n = sinew_asset_get_info(asset).particle_count;
    sinew_collider *ball = shape_ball_collider(gpu_ctx, 2, 0.08, 24);
    sinew_body_desc d = sinew_body_desc_default();
    d.meshes = &ball;
    d.mesh_count = 1;
    d.max_shapes = 16;
    sinew_body *body = make_body(asset, &d);

    enum { SPHERES = 10, COUNT = SPHERES + 2 };
    pose poses[COUNT];
    memset(poses, 0, sizeof poses);
    double turn = 0.5;
    poses[0] = (pose){SINEW_SHAPE_BOX, {0.0, 0.8, 0.0}, {sin(turn / 2) * 0.6, 0, sin(turn / 2) * 0.8, cos(turn / 2)},
                      {0, 0.5, 0}, {0.5, 4.0, 0.0}, 0, {0.12, 0.05, 0.12}, 0};
    for (int k = 0; k < SPHERES; k++) {
        double a = 2 * PI * k / SPHERES;
        poses[1 + k] = (pose){SINEW_SHAPE_SPHERE, {0.36 * cos(a), 0.7, 0.36 * sin(a)}, {0, 0, 0, 1},
                              {-0.3 * sin(a), 3.0, 0.3 * cos(a)}, {0}, 0.06, {0}, 0};
    }
    poses[COUNT - 1] = (pose){SINEW_SHAPE_MESH, {0.0, 0.7, 0.0}, {0, 0, 0, 1}, {0, 1.5, 0}, {0, 0, 2.0}, 0, {0}, 0};
    /* the ball's centre rises through the box's: keep it apart, to one side */
    poses[COUNT - 1].c[0] = 0.32;
    poses[COUNT - 1].c[2] = -0.3;

    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    sinew_shape shapes[COUNT];
    p.shapes = shapes;
    p.shape_count = COUNT;
    float *x = malloc(sizeof *x * 3 * n);
    double worst = 1e300;
    uint32_t touching = 0;
    for (int step = 0; step < 20; step++) {
        for (int k = 0; k < COUNT; k++)
            shapes[k] = to_shape(&poses[k]);
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
        for (int k = 0; k < COUNT; k++)
            poses[k] = advance(poses[k], p.dt);
        cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++) {
            const double xi[3] = {x[3 * i], x[3 * i + 1], x[3 * i + 2]};
            for (int k = 0; k < COUNT; k++) {
                double phi = distance(&poses[k], xi, &ball);
                cr_assert_geq(phi, -1e-3, "step %d: particle %u is %g m inside shape %d", step, i, -phi, k);
                worst = fmin(worst, phi);
                touching += phi < 2.0 * p.contact_offset;
            }
        }
    }
    cr_log_info("moving shapes: nearest particle %g m from a shape; %u particle-shape contacts over 20 steps", worst,
                touching);
    cr_assert_gt(touching, 100, "the shapes must meet the cloth for the test to mean anything");
    free(x);
    sinew_body_destroy(body);
    sinew_collider_destroy(ball);
    sinew_asset_destroy(asset);
}

/* (b) A wide box turning about the vertical carries the cloth lying on it
 * round by friction. */
Test(shapes, turning_box_carries_cloth)
{
    sinew_asset *asset = gpu_make_cloth(16, 16, 0.5, 0.556, 0);
    const uint32_t n = sinew_asset_get_info(asset).particle_count;
    sinew_body_desc d = sinew_body_desc_default();
    d.max_shapes = 1;
    sinew_body *body = make_body(asset, &d);
    const double rate = 2.0;
    pose box = {SINEW_SHAPE_BOX, {0.0, 0.5, 0.0}, {0, 0, 0, 1}, {0}, {0, rate, 0}, 0, {0.6, 0.05, 0.6}, 0};
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.friction = 2.0;
    sinew_shape turning;
    p.shapes = &turning;
    p.shape_count = 1;
    float *x0 = malloc(sizeof *x0 * 3 * n), *x = malloc(sizeof *x * 3 * n);
    cr_assert_eq(sinew_body_read_positions(body, x0, n), SINEW_RESULT_OK);
    const int steps = 30;
    for (int step = 0; step < steps; step++) {
        turning = to_shape(&box);
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
        box = advance(box, p.dt);
    }
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    /* each particle's turn about the box's axis, weighted by its distance */
    double turned = 0.0, weight = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double ax = x0[3 * i], az = x0[3 * i + 2], bx = x[3 * i], bz = x[3 * i + 2];
        double r = sqrt(ax * ax + az * az);
        if (r < 0.05)
            continue;
        turned += r * atan2(ax * bz - az * bx, ax * bx + az * bz);
        weight += r;
    }
    /* about y, positive rate turns x towards -z: the angle from (x, z) is -rate t */
    const double expected = -rate * steps * p.dt, mean = turned / weight;
    cr_log_info("turning box: cloth turned %g rad, the box %g rad", mean, expected);
    cr_assert_lt(fabs(mean - expected), 0.15 * fabs(expected), "cloth turned %g rad, the box %g", mean, expected);
    free(x0);
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

/* (c) A ground tilted by 25 degrees: the cloth lands on it and stays above it. */
Test(shapes, tilted_ground)
{
    sinew_asset *asset = gpu_make_cloth(16, 16, 0.6, 0.6, 0);
    const uint32_t n = sinew_asset_get_info(asset).particle_count;
    sinew_body_desc d = sinew_body_desc_default();
    sinew_body *body = make_body(asset, &d);
    const double tilt = 25.0 * PI / 180.0, nrm[3] = {sin(tilt), cos(tilt), 0.0};
    sinew_step_params p = sinew_step_params_default();
    p.ground_height = 0.1f;
    p.friction = 1.0f; /* more than tan(25 deg): it stays where it lands */
    for (int k = 0; k < 3; k++)
        p.ground_normal[k] = (float)(2.0 * nrm[k]); /* not unit: normalised by the step */
    float *x = malloc(sizeof *x * 3 * n);
    double lowest = 1e300, highest = -1e300;
    for (int step = 0; step < 60; step++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
        cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
        lowest = 1e300, highest = -1e300;
        for (uint32_t i = 0; i < n; i++) {
            double h = nrm[0] * x[3 * i] + nrm[1] * x[3 * i + 1] + nrm[2] * x[3 * i + 2] - p.ground_height;
            lowest = fmin(lowest, h);
            highest = fmax(highest, h);
        }
        cr_assert_geq(lowest, -1e-3, "step %d: a particle is %g m below the tilted ground", step, -lowest);
    }
    cr_log_info("tilted ground: the cloth lies %g to %g m above it", lowest, highest);
    cr_assert_lt(highest, 0.05, "the cloth has landed flat on the plane (highest %g m above it)", highest);
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

/* The wind's velocity change of every particle (docs/math.md 12), in double:
 * from positions x and velocities v, over time h. */
static void wind_reference(const sinew_asset *a, const double *x, const double *v, const double wind[3], double rho,
                           double cd, double cl, double h, double *dv)
{
    const uint32_t n = a->particle_count;
    memset(dv, 0, sizeof *dv * 3 * n);
    for (uint32_t t = 0; t < a->triangle_count; t++) {
        const uint32_t *tv = a->triangles[t].v;
        double e1[3], e2[3], c[3], u[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = x[3 * tv[1] + k] - x[3 * tv[0] + k];
            e2[k] = x[3 * tv[2] + k] - x[3 * tv[0] + k];
            u[k] = wind[k] - (v[3 * tv[0] + k] + v[3 * tv[1] + k] + v[3 * tv[2] + k]) / 3.0;
        }
        c[0] = e1[1] * e2[2] - e1[2] * e2[1];
        c[1] = e1[2] * e2[0] - e1[0] * e2[2];
        c[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double len = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), speed = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        double area = 0.5 * len, un = (c[0] * u[0] + c[1] * u[1] + c[2] * u[2]) / len;
        for (int k = 0; k < 3; k++) {
            double f = 0.5 * rho * area * un * ((cd + cl) * speed * c[k] / len - cl * un * u[k] / speed);
            for (int j = 0; j < 3; j++)
                dv[3 * tv[j] + k] += h * a->particles[tv[j]].w * f / 3.0;
        }
    }
}

/* (d) Two substeps of a cloth in wind, free of gravity and of any stiffness
 * to speak of: its velocities are the wind's changes alone, from rest and
 * then from the first substep's velocities, as the double reference gives. */
Test(shapes, wind_matches_reference)
{
    sinew_asset *asset = gpu_make_cloth(8, 8, 0.5, 1.0, 0);
    const uint32_t n = asset->particle_count;
    /* a bump, so that the triangles face many ways */
    float *x0 = malloc(sizeof *x0 * 3 * n);
    for (uint32_t i = 0; i < n; i++) {
        const sinew_particle_rec *q = &asset->particles[i];
        x0[3 * i] = q->x, x0[3 * i + 2] = q->z;
        x0[3 * i + 1] = q->y + 0.2f * sinf(6.0f * q->x) * cosf(5.0f * q->z);
    }
    sinew_body_desc d = sinew_body_desc_default();
    d.substeps = 2;
    d.stretch_compliance = d.shear_compliance = 1e8f; /* so soft that the bump's strains move nothing */
    d.bend_compliance = 1e8f;
    d.drag = 1.1f;
    d.lift = 0.4f;
    sinew_body *body = make_body(asset, &d);
    cr_assert_eq(sinew_body_write_positions(body, x0, n), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    p.gravity[1] = 0.0f;
    p.ground = 0;
    p.wind[0] = 6.0f, p.wind[1] = -2.0f, p.wind[2] = 3.0f;
    cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
    float *v = malloc(sizeof *v * 3 * n);
    cr_assert_eq(sinew_body_read_velocities(body, v, n), SINEW_RESULT_OK);

    const double h = p.dt / 2.0, wind[3] = {p.wind[0], p.wind[1], p.wind[2]};
    double *x = calloc(3 * n, sizeof *x), *vr = calloc(3 * n, sizeof *vr), *dv = calloc(3 * n, sizeof *dv);
    for (uint32_t i = 0; i < 3 * n; i++)
        x[i] = x0[i];
    for (int s = 0; s < 2; s++) {
        wind_reference(asset, x, vr, wind, p.air_density, d.drag, d.lift, h, dv);
        for (uint32_t i = 0; i < 3 * n; i++) {
            vr[i] += dv[i];
            x[i] += h * vr[i];
        }
    }
    double largest = 0.0, error = 0.0;
    for (uint32_t i = 0; i < 3 * n; i++) {
        largest = fmax(largest, fabs(vr[i]));
        error = fmax(error, fabs(v[i] - vr[i]));
    }
    cr_log_info("wind: largest velocity %g m/s, largest difference from the reference %g m/s", largest, error);
    cr_assert_gt(largest, 1e-3, "the wind must move the cloth");
    cr_assert_lt(error, 2e-3 * largest, "GPU %g m/s off the reference (largest %g)", error, largest);
    free(x0), free(v), free(x), free(vr), free(dv);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

/* Mean displacement of the particles along dir after `steps` steps of a flag
 * in wind of air_density rho. */
static double flag_drift(double rho, uint32_t *dispatches)
{
    sinew_asset *asset = vertical_cloth(16, 0.6, 1);
    const uint32_t n = asset->particle_count;
    sinew_body_desc d = sinew_body_desc_default();
    d.drag = 1.0f;
    d.lift = 0.3f;
    sinew_body *body = make_body(asset, &d);
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.wind[0] = 8.0f, p.wind[2] = 4.0f;
    p.air_density = (float)rho;
    float *x0 = malloc(sizeof *x0 * 3 * n), *x = malloc(sizeof *x * 3 * n);
    cr_assert_eq(sinew_body_read_positions(body, x0, n), SINEW_RESULT_OK);
    for (int step = 0; step < 30; step++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double along = 0.0;
    for (uint32_t i = 0; i < n; i++)
        along += (x[3 * i + 2] - x0[3 * i + 2]) / n;
    *dispatches = sinew_body_get_stats(body).dispatches;
    free(x0), free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
    return along;
}

/* (d) A flag on its pole, the wind blowing across it: it moves downwind (+z);
 * without air it hangs in its plane. */
Test(shapes, flag_moves_downwind)
{
    uint32_t with_wind = 0, without = 0;
    const double blown = flag_drift(1.2, &with_wind), still = flag_drift(0.0, &without);
    cr_log_info("flag: %g m downwind in wind, %g m without air", blown, still);
    cr_assert_gt(blown, 0.05, "the flag moved %g m downwind", blown);
    cr_assert_lt(fabs(still), 1e-3, "without air the flag moved %g m across", still);
    cr_assert_eq(with_wind, without, "air density is a step parameter: the same dispatches");
}

/* (e) Lists of different lengths and kinds, and a different ground, cost
 * nothing but the step's own upload: the same readback, allocations,
 * dispatches, barriers and traffic, one submit and one wait. */
Test(shapes, new_list_costs_no_readback_allocation_or_recording)
{
    sinew_asset *asset = gpu_make_cloth(16, 16, 0.6, 0.6, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.timestamps = 0;
    d.max_shapes = 16;
    sinew_body *body = make_body(asset, &d);
    const uint64_t memory = sinew_context_get_device_memory(gpu_ctx);
    sinew_step_params p = sinew_step_params_default();
    sinew_shape list[12];
    for (int k = 0; k < 12; k++) {
        list[k] = sinew_shape_default(k % 3 == 0 ? SINEW_SHAPE_BOX : k % 3 == 1 ? SINEW_SHAPE_SPHERE : SINEW_SHAPE_CAPSULE);
        list[k].position[0] = 0.05f * k;
        list[k].radius = 0.03f;
        list[k].half_extents[0] = list[k].half_extents[1] = list[k].half_extents[2] = 0.04f;
        list[k].angular_velocity[1] = 1.0f;
    }
    sinew_step_stats first = {0};
    for (int step = 0; step < 4; step++) {
        p.shapes = step ? list : NULL;
        p.shape_count = step == 0 ? 0 : step == 1 ? 12 : (uint32_t)step;
        p.ground_normal[0] = 0.1f * step;
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
        sinew_step_stats s = sinew_body_get_stats(body);
        if (step == 0) {
            first = s;
            continue;
        }
        cr_assert_eq(s.readback_bytes, first.readback_bytes);
        cr_assert_eq(s.device_allocations, first.device_allocations);
        cr_assert_eq(s.dispatches, first.dispatches);
        cr_assert_eq(s.barriers, first.barriers);
        cr_assert_eq(s.bytes, first.bytes);
        cr_assert_eq(s.submits, 1);
        cr_assert_eq(s.host_waits, 1);
        cr_assert_eq(s.device_memory, first.device_memory);
    }
    cr_assert_eq(sinew_context_get_device_memory(gpu_ctx), memory, "no device memory allocated by a step");
    cr_log_info("a list update: %llu bytes read back per step, %u dispatches, %u barriers",
                (unsigned long long)first.readback_bytes, first.dispatches, first.barriers);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

/* (f) Bad lists and grounds are refused with a message naming what is wrong,
 * and the body is as it was. */
Test(shapes, refused_inputs_change_nothing)
{
    sinew_asset *asset = gpu_make_cloth(8, 8, 0.5, 0.6, 1);
    const uint32_t n = asset->particle_count;
    sinew_body_desc d = sinew_body_desc_default();
    d.max_shapes = 4;
    sinew_body *body = make_body(asset, &d);
    sinew_step_params good = sinew_step_params_default();
    cr_assert_eq(sinew_body_step(body, &good), SINEW_RESULT_OK);
    float *before = malloc(sizeof *before * 3 * n), *after = malloc(sizeof *after * 3 * n);
    cr_assert_eq(sinew_body_read_positions(body, before, n), SINEW_RESULT_OK);
    const uint64_t steps = sinew_body_get_stats(body).step_index;

    sinew_shape five[5];
    for (int k = 0; k < 5; k++)
        five[k] = sinew_shape_default(SINEW_SHAPE_SPHERE);
    struct {
        const char *what, *message;
        sinew_step_params p;
        sinew_shape shape;
        uint32_t count;
    } cases[6];
    for (int c = 0; c < 6; c++) {
        cases[c].p = good;
        cases[c].shape = sinew_shape_default(SINEW_SHAPE_SPHERE);
        cases[c].count = 1;
    }
    cases[0].what = "too many shapes", cases[0].message = "more than its max_shapes", cases[0].count = 5;
    cases[1].what = "NaN position", cases[1].message = "position.y is not finite";
    cases[1].shape.position[1] = NAN;
    cases[2].what = "zero quaternion", cases[2].message = "not a unit quaternion";
    cases[2].shape.rotation[3] = 0.0f;
    cases[3].what = "bad mesh index", cases[3].message = "mesh 0 is out of range";
    cases[3].shape.kind = SINEW_SHAPE_MESH;
    cases[4].what = "zero ground normal", cases[4].message = "ground_normal";
    cases[4].p.ground_normal[1] = 0.0f;
    cases[5].what = "NaN wind", cases[5].message = "wind";
    cases[5].p.wind[2] = NAN;
    for (int c = 0; c < 6; c++) {
        sinew_step_params p = cases[c].p;
        p.shapes = cases[c].count == 5 ? five : &cases[c].shape;
        p.shape_count = cases[c].count;
        gpu_log_clear();
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "%s accepted", cases[c].what);
        cr_assert(gpu_log_contains(cases[c].message), "%s: message '%s' expected, got:\n%s", cases[c].what,
                  cases[c].message, gpu_log_text());
        cr_assert_eq(sinew_body_read_positions(body, after, n), SINEW_RESULT_OK);
        cr_assert(!memcmp(before, after, sizeof *before * 3 * n), "%s changed the positions", cases[c].what);
        cr_assert_eq(sinew_body_get_stats(body).step_index, steps, "%s took a step", cases[c].what);
    }
    free(before), free(after);
    sinew_body_destroy(body);

    /* wind on an implicit solver, and more shapes than a body may hold, at creation */
    sinew_body_desc bad = sinew_body_desc_default();
    bad.max_shapes = 1000;
    sinew_body *none = NULL;
    gpu_log_clear();
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &bad, &none), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("max_shapes"), "%s", gpu_log_text());
    cr_assert_null(none);
    sinew_asset_destroy(asset);
    sinew_asset *nested = gpu_make_solver_asset(SINEW_SOLVER_IMPLICIT_MG);
    bad = sinew_body_desc_default();
    bad.solver = SINEW_SOLVER_IMPLICIT_MG;
    bad.drag = 1.0f;
    gpu_log_clear();
    cr_assert_eq(sinew_body_create(gpu_ctx, nested, &bad, &none), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("wind"), "%s", gpu_log_text());
    sinew_asset_destroy(nested);
}
