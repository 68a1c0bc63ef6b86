/* GPU XPBD against the CPU double reference, on lavapipe with validation. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "collider.h"
#include "gpu_fixture.h"
#include "math/xpbd_math.h"
#include "ref/xpbd_ref.h"
#include "shapes.h"

TestSuite(xpbd, .init = gpu_setup, .fini = gpu_teardown, .timeout = 300);

static sinew_step_params hanging_params(void)
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0; /* no contacts: a smooth problem to compare float with double */
    p.damping = 0.5f;
    return p;
}

/* Runs `steps` on the GPU and the reference; returns max position difference
 * divided by the cloth's size. Clusters of at most cluster_particles (0: a
 * dispatch per colour); 64 makes several passes of several clusters. */
static double compare_clustered(sinew_solver solver, uint32_t steps, sinew_step_params p, uint32_t cluster_particles)
{
    const double size = 0.5;
    sinew_asset *asset = gpu_make_cloth_clustered(16, 16, size, 1.0, 1, cluster_particles);
    cr_assert(cluster_particles == 0 || asset->cpass_count > 1, "%u passes", asset->cpass_count);
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = solver;
    if (cluster_particles)
        d.sweep_layout = SINEW_SWEEP_LAYOUT_CLUSTERS; /* lavapipe's default is a dispatch per colour */
    d.stretch_compliance = 1e-7f;
    d.jacobi_omega = 1.5f;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    gpu_resolve_layout(asset, &d);
    xpbd_ref *ref = xpbd_ref_create(asset, &d);
    for (uint32_t s = 0; s < steps; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        xpbd_ref_step(ref, &p);
    }
    uint32_t n = asset->particle_count;
    float *x = malloc(3 * n * sizeof *x);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double worst = 0.0, travel = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const double *r = xpbd_ref_position(ref, i);
        for (int k = 0; k < 3; k++) {
            worst = fmax(worst, fabs(x[3 * i + k] - r[k]));
            travel = fmax(travel, fabs(r[k] - (&asset->particles[i].x)[k]));
        }
    }
    cr_assert(travel > 0.1 * size, "the cloth should have moved (%g m)", travel);
    free(x);
    xpbd_ref_destroy(ref);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
    return worst / size;
}

static double compare_with_reference(sinew_solver solver, uint32_t steps, sinew_step_params p)
{
    return compare_clustered(solver, steps, p, 0);
}

Test(xpbd, gauss_seidel_matches_reference)
{
    double err = compare_with_reference(SINEW_SOLVER_XPBD_GAUSS_SEIDEL, 60, hanging_params());
    cr_log_info("Gauss-Seidel: max |x_gpu - x_ref| / size = %.3g after 60 steps", err);
    cr_assert_lt(err, 1e-4);
}

Test(xpbd, clustered_gauss_seidel_matches_reference)
{
    double err = compare_clustered(SINEW_SOLVER_XPBD_GAUSS_SEIDEL, 60, hanging_params(), 64);
    cr_log_info("clustered Gauss-Seidel: max |x_gpu - x_ref| / size = %.3g after 60 steps", err);
    cr_assert_lt(err, 1e-4);
}

/* The dispatches a step records follow the layout: a pass or a colour per
 * dispatch; the default on a CPU device (lavapipe) is a colour per dispatch;
 * clusters are refused for an asset without them. */
Test(xpbd, sweep_layout_dispatches)
{
    sinew_asset *asset = gpu_make_cloth_clustered(24, 24, 0.5, 1.0, 1, 64);
    sinew_asset *plain = gpu_make_cloth_clustered(24, 24, 0.5, 1.0, 1, 0);
    cr_assert_gt(asset->cpass_count, 1);
    cr_assert_lt(asset->cpass_count, asset->colour_count);
    uint32_t dispatches[3];
    for (int layout = 0; layout < 3; layout++) {
        sinew_body_desc d = sinew_body_desc_default();
        d.sweep_layout = (sinew_sweep_layout)layout;
        sinew_body *body;
        cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
        sinew_step_params p = hanging_params();
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        dispatches[layout] = sinew_body_get_stats(body).dispatches;
        sinew_body_destroy(body);
    }
    sinew_body_desc d = sinew_body_desc_default();
    cr_assert_eq(dispatches[SINEW_SWEEP_LAYOUT_COLOURS] - dispatches[SINEW_SWEEP_LAYOUT_CLUSTERS],
                 (asset->colour_count - asset->cpass_count) * d.substeps * d.iterations);
    int cpu = sinew_context_get_device_info(gpu_ctx).type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    cr_assert_eq(dispatches[SINEW_SWEEP_LAYOUT_DEFAULT],
                 dispatches[cpu ? SINEW_SWEEP_LAYOUT_COLOURS : SINEW_SWEEP_LAYOUT_CLUSTERS]);
    d.sweep_layout = SINEW_SWEEP_LAYOUT_CLUSTERS;
    sinew_body *body = NULL;
    gpu_log_clear();
    cr_assert_eq(sinew_body_create(gpu_ctx, plain, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("needs an asset with clustered sweeps"));
    d.sweep_layout = (sinew_sweep_layout)7;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("unknown sweep layout 7"));
    sinew_asset_destroy(asset);
    sinew_asset_destroy(plain);
}

Test(xpbd, symmetric_gauss_seidel_matches_reference)
{
    double err = compare_with_reference(SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL, 60, hanging_params());
    cr_log_info("symmetric Gauss-Seidel: max |x_gpu - x_ref| / size = %.3g after 60 steps", err);
    cr_assert_lt(err, 1e-4);
}

Test(xpbd, clustered_symmetric_and_alternating_match_reference)
{
    double err = compare_clustered(SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL, 60, hanging_params(), 64);
    cr_log_info("clustered symmetric Gauss-Seidel: max |x_gpu - x_ref| / size = %.3g after 60 steps", err);
    cr_assert_lt(err, 1e-4);
    /* Alternating sweeps run every second iteration's passes and colours backwards. */
    sinew_asset *asset = gpu_make_cloth_clustered(16, 16, 0.5, 1.0, 1, 64);
    sinew_body_desc d = sinew_body_desc_default();
    d.sweep_order = SINEW_SWEEP_ALTERNATING;
    d.sweep_layout = SINEW_SWEEP_LAYOUT_CLUSTERS;
    d.iterations = 3;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    gpu_resolve_layout(asset, &d);
    xpbd_ref *ref = xpbd_ref_create(asset, &d);
    sinew_step_params p = hanging_params();
    for (int s = 0; s < 40; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        xpbd_ref_step(ref, &p);
    }
    uint32_t n = asset->particle_count;
    float *x = malloc(3 * n * sizeof *x);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double worst = 0.0;
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            worst = fmax(worst, fabs(x[3 * i + k] - xpbd_ref_position(ref, i)[k]));
    cr_assert_lt(worst / 0.5, 1e-4, "alternating: %g", worst / 0.5);
    free(x);
    xpbd_ref_destroy(ref);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

Test(xpbd, jacobi_matches_reference)
{
    double err = compare_with_reference(SINEW_SOLVER_XPBD_JACOBI, 60, hanging_params());
    cr_log_info("Jacobi: max |x_gpu - x_ref| / size = %.3g after 60 steps", err);
    cr_assert_lt(err, 1e-4);
}

/* Strain after a few steps of a hanging cloth, for a number of iterations
 * (and the solver's residual into *residual when not NULL). */
static float strain_after_with(sinew_asset *asset, sinew_solver solver, uint32_t iterations, float *residual)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = solver;
    d.substeps = 1;
    d.iterations = iterations;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = hanging_params();
    for (int s = 0; s < 10; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    float rms = sinew_body_get_stats(body).rms_strain;
    if (residual)
        *residual = sinew_body_get_stats(body).residual;
    sinew_body_destroy(body);
    return rms;
}

static float strain_after(sinew_asset *asset, sinew_solver solver, uint32_t iterations)
{
    return strain_after_with(asset, solver, iterations, NULL);
}

/* The solver's residual (docs/math.md 9) says how far the iterations got: on
 * a hanging cloth at the same step it falls with them for every XPBD order
 * (halved from 1 to 64). GPBD's: test_elasticity. */
Test(xpbd, solver_residual_falls_with_iterations)
{
    sinew_asset *asset = gpu_make_cloth(24, 24, 1.0, 1.0, 1);
    const sinew_solver solvers[] = {SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL,
                                    SINEW_SOLVER_XPBD_JACOBI};
    const char *names[] = {"Gauss-Seidel", "symmetric Gauss-Seidel", "Jacobi"};
    for (int s = 0; s < 3; s++) {
        float prev = INFINITY, first = 0.0f, res = 0.0f;
        for (uint32_t it = 1; it <= 64; it *= 4) {
            strain_after_with(asset, solvers[s], it, &res);
            cr_log_info("%s, %2u iterations: residual %.3e", names[s], it, res);
            cr_assert(res > 0.0f && res < 1.0f, "%s, %u iterations: residual %g", names[s], it, res);
            cr_assert_lt(res, prev, "%u iterations should reduce the residual", it);
            if (it == 1)
                first = res;
            prev = res;
        }
        cr_assert_lt(prev, 0.5f * first, "%s: 64 iterations should halve the residual of one", names[s]);
    }
    sinew_asset_destroy(asset);
}

Test(xpbd, violation_falls_with_iterations)
{
    sinew_asset *asset = gpu_make_cloth(24, 24, 1.0, 1.0, 1);
    const sinew_solver solvers[] = {SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL,
                                    SINEW_SOLVER_XPBD_JACOBI};
    const char *names[] = {"Gauss-Seidel", "symmetric Gauss-Seidel", "Jacobi"};
    for (int s = 0; s < 3; s++) {
        float prev = INFINITY;
        for (uint32_t it = 1; it <= 16; it *= 2) {
            float rms = strain_after(asset, solvers[s], it);
            cr_log_info("%s, %2u iterations: RMS strain %.3e", names[s], it, rms);
            cr_assert_lt(rms, prev, "%u iterations should reduce the strain", it);
            prev = rms;
        }
    }
    sinew_asset_destroy(asset);
}

/* pbd_residual against the host in double: with every compliance 0 the
 * residual of a constraint is its violation alone (C / L for a distance, the
 * hinge's angle less its rest angle), so the step's residual is their RMS
 * over the constraints that can move, computed here from the positions read
 * back. */
Test(xpbd, solver_residual_matches_the_host)
{
    sinew_asset *asset = gpu_make_cloth(12, 12, 0.5, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.stretch_compliance = d.shear_compliance = d.bend_compliance = 0.0f;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = hanging_params();
    for (int s = 0; s < 5; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    const uint32_t n = asset->particle_count;
    float *x = malloc(3 * sizeof *x * n);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double sum = 0.0;
    uint32_t counted = 0;
    for (uint32_t c = 0; c < asset->distance_count; c++) {
        const sinew_distance_rec *dr = &asset->distances[c];
        if (dr->a == dr->b || asset->particles[dr->a].w + asset->particles[dr->b].w == 0.0f)
            continue;
        double e[3];
        for (int k = 0; k < 3; k++)
            e[k] = (double)x[3 * dr->a + k] - x[3 * dr->b + k];
        double r = (sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) - dr->rest) / dr->rest;
        sum += r * r;
        counted++;
    }
    for (uint32_t c = 0; c < asset->bend_count; c++) {
        const sinew_bend_rec *b = &asset->bends[c];
        double q[4][3], w = 0.0;
        for (int j = 0; j < 4; j++) {
            w += asset->particles[b->v[j]].w;
            for (int k = 0; k < 3; k++)
                q[j][k] = x[3 * b->v[j] + k];
        }
        int good = 0;
        double theta = sinew_dihedral_angle(q[0], q[1], q[2], q[3], &good);
        if (w == 0.0f || !good)
            continue;
        double r = theta - b->rest_angle;
        sum += r * r;
        counted++;
    }
    const double host = sqrt(sum / counted);
    const float gpu = sinew_body_get_stats(body).residual;
    cr_log_info("residual: GPU %.6g, host %.6g over %u constraints", gpu, host, counted);
    cr_assert_gt(host, 1e-5, "the hanging cloth should violate its constraints");
    cr_assert(fabs(gpu - host) <= 1e-3 * host, "GPU %g, host %g", gpu, host);
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

Test(xpbd, pinned_particles_stay_and_contacts_hold)
{
    const uint32_t nx = 20;
    sinew_asset *asset = gpu_make_cloth(nx, nx, 1.0, 0.4, 1);
    sinew_body_desc d = sinew_body_desc_default();
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    p.sphere = 1;
    p.sphere_center[0] = 0.1f;
    p.sphere_center[1] = 0.25f;
    p.sphere_radius = 0.2f;
    uint32_t n = asset->particle_count;
    float *x = malloc(3 * n * sizeof *x);
    for (int s = 0; s < 120; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        if (s % 30 != 29)
            continue;
        cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++) {
            const float *q = &x[3 * i];
            if (asset->particles[i].w == 0.0f) {
                cr_assert(q[0] == asset->particles[i].x && q[1] == asset->particles[i].y &&
                          q[2] == asset->particles[i].z, "pinned particle %u moved", i);
                continue;
            }
            cr_assert_geq(q[1], p.ground_height, "particle %u below the ground: y = %g", i, q[1]);
            float dx = q[0] - p.sphere_center[0], dy = q[1] - p.sphere_center[1], dz = q[2] - p.sphere_center[2];
            float dist = sqrtf(dx * dx + dy * dy + dz * dz);
            cr_assert_geq(dist, p.sphere_radius, "particle %u inside the sphere: distance %g", i, dist);
        }
    }
    /* The cloth reached both colliders: something rests on the ground. */
    int on_ground = 0;
    for (uint32_t i = 0; i < n; i++)
        on_ground += x[3 * i + 1] < p.ground_height + 2.0f * p.contact_offset;
    cr_assert_gt(on_ground, 0);
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

/* The reference takes the step the body has taken: the largest difference of
 * a coordinate after it (x: scratch for the body's positions). */
static double ref_step_and_compare(sinew_body *body, xpbd_ref *ref, const sinew_step_params *p, float *x)
{
    xpbd_ref_step(ref, p);
    uint32_t n = sinew_body_get_particle_count(body);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double worst = 0.0;
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            worst = fmax(worst, fabs(x[3 * i + k] - xpbd_ref_position(ref, i)[k]));
    return worst;
}

/* A cloth dropped across a horizontal capsule drapes over it, no particle
 * inside it, the GPU's contacts the reference's on the first steps of
 * contact (before the two drift apart through the non-smooth friction). */
Test(xpbd, cloth_drapes_over_a_capsule)
{
    sinew_asset *asset = gpu_make_cloth(20, 20, 1.0, 0.3, 0);
    sinew_body_desc d = sinew_body_desc_default();
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    gpu_resolve_layout(asset, &d);
    xpbd_ref *ref = xpbd_ref_create(asset, &d);
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.capsule = 1;
    const float a[3] = {-0.8f, 0.1f, 0.0f}, b[3] = {0.8f, 0.1f, 0.0f};
    memcpy(p.capsule_a, a, sizeof a);
    memcpy(p.capsule_b, b, sizeof b);
    p.capsule_radius = 0.1f;
    uint32_t n = asset->particle_count;
    float *x = malloc(3 * n * sizeof *x);
    double early = 0.0;
    for (int s = 0; s < 90; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        if (s < 12) { /* it lands in step 9 */
            early = fmax(early, ref_step_and_compare(body, ref, &p, x));
        }
    }
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    float lowest = 1e9f;
    for (uint32_t i = 0; i < n; i++) {
        const float *q = &x[3 * i];
        float dy = q[1] - a[1], dz = q[2] - a[2]; /* the segment runs along x, past the cloth */
        float dist = sqrtf(dy * dy + dz * dz);
        cr_assert_geq(dist, p.capsule_radius * 0.999f, "particle %u inside the capsule: %g m from its axis", i, dist);
        lowest = fminf(lowest, q[1]);
    }
    cr_log_info("capsule: lowest particle %.3f m, GPU within %.2e m of the reference for 12 steps", lowest, early);
    cr_expect_lt(lowest, a[1] - p.capsule_radius, "the cloth drapes below the capsule");
    cr_expect_lt(early, 1e-3);
    free(x);
    xpbd_ref_destroy(ref);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

/* The world point x in the collider's frame, placed as p says. */
static void to_collider(const sinew_step_params *p, const float *x, float l[3])
{
    double R[3][3], t[3];
    sinew_collider_placement(p, R, t);
    for (int r = 0; r < 3; r++)
        l[r] = (float)(R[0][r] * (x[0] - t[0]) + R[1][r] * (x[1] - t[1]) + R[2][r] * (x[2] - t[2]));
}

/* A cloth falls on a triangle-mesh collider (an icosphere, 1 280 triangles)
 * that is rotated, moved and moving: the GPU's contacts are the reference's on
 * the first steps of contact, and at the end no particle is inside the mesh,
 * the cloth hangs below the ball's equator and friction has carried it along
 * the mesh's velocity. The collider's handle is let
 * go right after the body is made: the body keeps it alive. */
Test(xpbd, cloth_drapes_over_a_mesh)
{
    sinew_collider *mesh = shape_ball_collider(gpu_ctx, 3, 0.25, 32);
    cr_assert_not_null(mesh);
    sinew_asset *asset = gpu_make_cloth(20, 20, 1.0, 0.3, 0);
    sinew_body_desc d = sinew_body_desc_default();
    d.collider = mesh;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    gpu_resolve_layout(asset, &d);
    xpbd_ref *ref = xpbd_ref_create(asset, &d);
    sinew_collider_destroy(mesh);
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.collider = 1;
    const float at[3] = {0.0f, -0.02f, 0.0f}, axis[3] = {0.6f, 0.0f, 0.8f}, angle = 0.5f;
    p.friction = 0.5f;
    memcpy(p.collider_position, at, sizeof at);
    for (int k = 0; k < 3; k++)
        p.collider_rotation[k] = axis[k] * sinf(angle / 2);
    p.collider_rotation[3] = cosf(angle / 2);
    p.collider_velocity[0] = 0.05f;
    uint32_t n = asset->particle_count;
    float *x = malloc(3 * n * sizeof *x);
    double early = 0.0;
    for (int s = 0; s < 60; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        if (s < 14) { /* it lands in step 8 */
            early = fmax(early, ref_step_and_compare(body, ref, &p, x));
        }
    }
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    float lowest = 1e9f, nearest = 1e9f;
    double mean_x = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        float l[3];
        to_collider(&p, &x[3 * i], l);
        float phi = sinew_collider_distance(mesh, l, NULL);
        nearest = fminf(nearest, phi);
        lowest = fminf(lowest, x[3 * i + 1]);
        mean_x += x[3 * i] / n;
    }
    cr_log_info("mesh collider: nearest particle %.2e m from the mesh (offset %.0e m), lowest %.3f m, carried "
                "%.3f m along x, GPU within %.2e m of the reference for 14 steps", nearest, p.contact_offset, lowest,
                mean_x, early);
    cr_expect_gt(nearest, 0.0f, "no particle inside the mesh");
    cr_expect_lt(nearest, p.contact_offset * 1.5f, "the cloth rests on the mesh");
    cr_expect_lt(lowest, at[1], "the cloth hangs below the ball's equator");
    cr_expect_gt(mean_x, 0.015, "friction carries the cloth along with the mesh's velocity (0.05 m/s for 1 s)");
    cr_expect_lt(early, 1e-3);
    free(x);
    xpbd_ref_destroy(ref);
    sinew_body_destroy(body); /* the last to hold the collider */
    sinew_asset_destroy(asset);
}

/* Making a collider under every device-memory limit short of what it needs
 * fails cleanly, naming the limit, leaking nothing; a body refuses a collider
 * made on another context. */
Test(xpbd, mesh_collider_out_of_memory_and_wrong_context)
{
    sinew_context *ctx = gpu_make_staged_context();
    const uint64_t base = sinew_context_get_device_memory(ctx);
    const double centre[3] = {0, 0, 0};
    shape ball = shape_icosphere(1, 0.3, centre);
    sinew_collider_desc desc = shape_desc(&ball, 16);
    sinew_collider *mesh = NULL;
    sinew_result r = SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    int failures = 0;
    for (uint64_t limit = 1; r != SINEW_RESULT_OK; limit += 4096) {
        sinew_context_set_device_memory_limit(ctx, base + limit);
        gpu_log_clear();
        r = sinew_collider_create(ctx, &desc, &mesh);
        if (r == SINEW_RESULT_OK)
            break;
        cr_assert_eq(r, SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "%s", sinew_result_string(r));
        cr_assert_null(mesh);
        cr_assert(gpu_log_contains("of the context's limit"));
        cr_assert_eq(sinew_context_get_device_memory(ctx), base, "limit %llu leaked", (unsigned long long)limit);
        failures++;
    }
    cr_expect_gt(failures, 2);
    cr_expect_gt(sinew_collider_get_info(mesh).device_memory, 0);
    sinew_asset *asset = gpu_make_cloth(8, 8, 0.5, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.collider = mesh;
    sinew_body *body = NULL;
    gpu_log_clear();
    cr_expect_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("was made on another context"));
    cr_expect_null(body);
    sinew_collider_destroy(mesh);
    cr_expect_eq(sinew_context_get_device_memory(ctx), base);
    gpu_log_clear();
    sinew_context_destroy(ctx);
    cr_expect_eq(gpu_error_count(), 0, "messages at context destruction (leaked objects?)");
    sinew_asset_destroy(asset);
    shape_free(&ball);
}

Test(xpbd, residual_and_timings_reported)
{
    sinew_asset *asset = gpu_make_cloth(16, 16, 0.5, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.stretch_compliance = 1e-4f; /* visibly stretchy, so the strain is not tiny */
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = hanging_params();
    for (int s = 0; s < 20; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    sinew_step_stats st = sinew_body_get_stats(body);

    /* The GPU reduction agrees with the strain of the positions it read back. */
    uint32_t n = asset->particle_count;
    float *x = malloc(3 * n * sizeof *x);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double mx = 0.0, ss = 0.0;
    for (uint32_t c = 0; c < asset->distance_count; c++) {
        const sinew_distance_rec *dr = &asset->distances[c];
        double e[3];
        for (int k = 0; k < 3; k++)
            e[k] = (double)x[3 * dr->a + k] - x[3 * dr->b + k];
        double s = fabs(sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) - dr->rest) / dr->rest;
        mx = fmax(mx, s);
        ss += s * s;
    }
    double rms = sqrt(ss / asset->distance_count);
    cr_assert_gt(mx, 1e-4);
    cr_assert(fabs(st.max_strain - mx) <= 1e-3 * mx + 1e-6, "max strain %g vs %g", st.max_strain, mx);
    cr_assert(fabs(st.rms_strain - rms) <= 1e-3 * rms + 1e-6, "rms strain %g vs %g", st.rms_strain, rms);
    cr_assert_eq(st.step_index, 20);
    uint32_t sweep = asset->cpass_count ? asset->cpass_count : asset->colour_count; /* dispatches */
    cr_assert_gt(st.dispatches, sweep * d.substeps * d.iterations);
    cr_assert_gt(st.device_memory, 0);
    /* Designed traffic: at least each constraint's record read once per iteration. */
    cr_assert_geq(st.bytes, 16ull * asset->distance_count * d.substeps * d.iterations);
    if (sinew_context_get_device_info(gpu_ctx).timestamp_period_ns > 0.0f) {
        cr_assert_gt(st.ms_solve, 0.0);
        cr_assert_gt(st.ms_contacts, 0.0);
        double sum = st.ms_predict + st.ms_solve + st.ms_contacts + st.ms_velocity + st.ms_residual;
        cr_assert(fabs(st.ms_total - sum) <= 1e-6 * st.ms_total + 1e-6, "phases %g ms, total %g ms", sum,
                  st.ms_total);
    }
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

Test(xpbd, bad_parameters_rejected)
{
    sinew_asset *asset = gpu_make_cloth(8, 8, 0.5, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.substeps = 0;
    sinew_body *body = NULL;
    gpu_log_clear();
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("substeps (0)"));
    cr_assert_null(body);
    d = sinew_body_desc_default();
    d.bend_compliance = NAN;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("compliances must be finite"));

    d = sinew_body_desc_default();
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    p.dt = NAN;
    cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("dt is not finite"));
    p = sinew_step_params_default();
    p.sphere = 1;
    p.sphere_radius = -1.0f;
    cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("sphere_radius (-1)"));
    p = sinew_step_params_default();
    p.capsule = 1;
    p.capsule_b[2] = NAN;
    cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("capsule_b.z is not finite"));
    p = sinew_step_params_default();
    p.collider = 1;
    cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("made without a mesh collider"));
    p = sinew_step_params_default();
    p.collider_rotation[1] = INFINITY;
    cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("collider_rotation.y is not finite"));
    float wrong[3];
    cr_assert_eq(sinew_body_read_positions(body, wrong, 1), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    /* Nothing was lost: the body still steps. */
    p = sinew_step_params_default();
    cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
    gpu_log_clear(); /* the errors above were expected */
}

static uint64_t run_and_hash(sinew_context *ctx, sinew_asset *asset, sinew_solver solver)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = solver;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(ctx, asset, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    p.sphere = 1;
    p.sphere_center[1] = 0.3f;
    p.sphere_radius = 0.2f;
    for (int s = 0; s < 40; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    uint64_t h = 0;
    cr_assert_eq(sinew_body_state_hash(body, &h), SINEW_RESULT_OK);
    sinew_body_destroy(body);
    return h;
}

/* Same inputs, same bits: twice on one context, and once more through the
 * staging path a discrete GPU takes. */
Test(xpbd, deterministic_and_staging_path_identical)
{
    sinew_asset *asset = gpu_make_cloth(16, 16, 0.6, 0.5, 1);
    const sinew_solver solvers[] = {SINEW_SOLVER_XPBD_GAUSS_SEIDEL, SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL,
                                    SINEW_SOLVER_XPBD_JACOBI};
    const char *names[] = {"Gauss-Seidel", "symmetric Gauss-Seidel", "Jacobi"};
    for (int s = 0; s < 3; s++) {
        sinew_solver solver = solvers[s];
        uint64_t a = run_and_hash(gpu_ctx, asset, solver);
        uint64_t b = run_and_hash(gpu_ctx, asset, solver);
        cr_assert_eq(a, b, "run-to-run bits differ");

        sinew_context *staged = gpu_make_staged_context();
        uint64_t c = run_and_hash(staged, asset, solver);
        cr_assert_eq(sinew_context_get_validation_message_count(staged), 0);
        sinew_context_destroy(staged);
        cr_assert_eq(a, c, "staging path gives different bits");
        cr_log_info("%s final-state hash %016llx", names[s], (unsigned long long)a);
    }
    sinew_asset_destroy(asset);
}
