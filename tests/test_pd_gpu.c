/* Projective dynamics of quad mass-spring cloth on the GPU (docs/math.md 7, Pall et
 * al.): red-black Gauss-Seidel, Jacobi and Chebyshev against the CPU double
 * reference; error falling with iterations, red-black ahead of Jacobi; pins,
 * ground, sphere and a moving box; tearing without recolouring; refusals.
 * lavapipe, validation on. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu_fixture.h"
#include "prep/redblack.h"
#include "ref/pd_ref.h"

TestSuite(pd_gpu, .init = gpu_setup, .fini = gpu_teardown, .timeout = 300);

#define STIFFNESS 200.0 /* N/m */

/* An nx x ny quad grid of size m in the XZ plane at height 1, springs along
 * the edges only, with its red-black partition. */
static sinew_asset *quad_cloth(uint32_t nx, uint32_t ny, double size, int pin_corners)
{
    sinew_mesh mesh;
    double origin[3] = {0.0, 1.0, 0.0};
    cr_assert_eq(sinew_mesh_grid(nx, ny, size, size, SINEW_GRID_XZ, origin, &mesh), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.shear = 0;
    opt.bending = 0;
    uint32_t pins[2] = {0, nx - 1};
    if (pin_corners) {
        opt.pin_indices = pins;
        opt.pin_count = 2;
    }
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_cloth_build(&mesh, &opt, gpu_logger(), &a, NULL), SINEW_RESULT_OK);
    sinew_mesh_free(&mesh);
    cr_assert_eq(sinew_redblack_asset(a, "quad cloth", gpu_logger(), NULL), SINEW_RESULT_OK);
    return a;
}

static sinew_body_desc pd_desc(sinew_solver solver, uint32_t iterations)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = solver;
    d.substeps = 1;
    d.iterations = iterations;
    d.stretch_compliance = (float)(1.0 / STIFFNESS);
    d.shear_compliance = (float)(1.0 / STIFFNESS);
    d.chebyshev_rho = 0.9f;
    d.chebyshev_delay = 2;
    return d;
}

static sinew_step_params free_params(void)
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.damping = 0.0f;
    return p;
}

static pd_ref_variant ref_variant(sinew_solver s)
{
    return s == SINEW_SOLVER_PD_RED_BLACK ? PD_REF_RED_BLACK
           : s == SINEW_SOLVER_PD_JACOBI  ? PD_REF_JACOBI
                                          : PD_REF_CHEBYSHEV;
}

/* The reference of asset `a` (springs as a body with desc `d` sees them),
 * starting from positions x (3n floats) at rest. */
static pd_ref *make_ref(const sinew_asset *a, const sinew_body_desc *d, const float *x, const uint8_t *skip)
{
    uint32_t n = a->particle_count;
    double *pos = malloc(sizeof *pos * 3 * n), *w = malloc(sizeof *w * n);
    pd_ref_spring *springs = malloc(sizeof *springs * (a->distance_count + 1));
    uint8_t *colours = calloc(n, 1);
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            pos[3 * i + k] = x[3 * i + k];
        w[i] = a->particles[i].w;
    }
    for (uint32_t i = 0; i < a->black_count; i++)
        colours[a->blacks[i]] = 1;
    uint32_t count = 0;
    for (uint32_t c = 0; c < a->distance_count; c++)
        if (!skip || !skip[c])
            springs[count++] = (pd_ref_spring){a->distances[c].a, a->distances[c].b, a->distances[c].rest,
                                               1.0 / (double)d->stretch_compliance};
    pd_ref *r = pd_ref_create(n, pos, w, count, springs, colours);
    free(pos);
    free(w);
    free(springs);
    free(colours);
    return r;
}

static pd_ref_step_params ref_params(const sinew_body_desc *d, const sinew_step_params *p)
{
    pd_ref_step_params rp = pd_ref_step_params_default();
    rp.dt = p->dt;
    for (int k = 0; k < 3; k++)
        rp.gravity[k] = p->gravity[k];
    rp.iterations = d->iterations;
    rp.variant = ref_variant(d->solver);
    rp.rho = d->chebyshev_rho;
    rp.delay = d->chebyshev_delay;
    return rp;
}

/* The asset's positions scaled by `stretch` about the cloth's centre in x and
 * z, lifted a little by a deterministic pattern. */
static float *stretched(const sinew_asset *a, double stretch)
{
    uint32_t n = a->particle_count;
    float *x = malloc(sizeof *x * 3 * n);
    double cx = 0.0, cz = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        cx += a->particles[i].x / n;
        cz += a->particles[i].z / n;
    }
    for (uint32_t i = 0; i < n; i++) {
        x[3 * i] = (float)(cx + stretch * (a->particles[i].x - cx));
        x[3 * i + 1] = (float)(a->particles[i].y + 0.01 * sin(0.7 * i));
        x[3 * i + 2] = (float)(cz + stretch * (a->particles[i].z - cz));
    }
    return x;
}

static double max_difference(sinew_body *body, const pd_ref *ref, uint32_t n)
{
    float *x = malloc(3 * sizeof *x * n);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double worst = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const double *r = pd_ref_position(ref, i);
        for (int k = 0; k < 3; k++)
            worst = fmax(worst, fabs(x[3 * i + k] - r[k]));
    }
    free(x);
    return worst;
}

/* Sum over springs of (|p_a - p_b| - L)^2 (Pall et al. eq. 7) of the body. */
static double spring_error(sinew_body *body, const sinew_asset *a)
{
    uint32_t n = a->particle_count;
    float *x = malloc(3 * sizeof *x * n);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double sum = 0.0;
    for (uint32_t c = 0; c < a->distance_count; c++) {
        const float *pa = &x[3 * a->distances[c].a], *pb = &x[3 * a->distances[c].b];
        double e[3] = {(double)pa[0] - pb[0], (double)pa[1] - pb[1], (double)pa[2] - pb[2]};
        double dev = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) - a->distances[c].rest;
        sum += dev * dev;
    }
    free(x);
    return sum;
}

/* A stretched cloth hanging from two corners, 10 steps of every variant
 * against the double reference: float rounding only, after one step and as
 * the snapping, swinging cloth amplifies it. */
static void against_reference(sinew_solver solver)
{
    sinew_asset *a = quad_cloth(12, 12, 0.5, 1);
    sinew_body_desc d = pd_desc(solver, 6);
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    float *x = stretched(a, 1.3);
    cr_assert_eq(sinew_body_write_positions(body, x, a->particle_count), SINEW_RESULT_OK);
    pd_ref *ref = make_ref(a, &d, x, NULL);
    sinew_step_params p = free_params();
    pd_ref_step_params rp = ref_params(&d, &p);
    double first = 0.0, worst = 0.0;
    for (int step = 0; step < 10; step++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        pd_ref_step(ref, &rp);
        double diff = max_difference(body, ref, a->particle_count);
        if (step == 0)
            first = diff;
        worst = fmax(worst, diff);
    }
    const double *corner = pd_ref_position(ref, a->particle_count - 1);
    cr_log_info("solver %d: largest difference from the reference after one step %.3g m, over 10 steps %.3g m "
                "(the far corner fell %.3g m)", (int)solver, first, worst, 1.0 - corner[1]);
    cr_expect_gt(1.0 - corner[1], 0.05, "the cloth swings down");
    cr_expect_lt(first, 4e-6, "one step agrees to float rounding (%.3g m)", first);
    cr_expect_lt(worst, 5e-4, "ten steps agree to amplified float rounding (%.3g m)", worst);
    pd_ref_destroy(ref);
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
}

Test(pd_gpu, red_black_matches_reference) { against_reference(SINEW_SOLVER_PD_RED_BLACK); }
Test(pd_gpu, jacobi_matches_reference) { against_reference(SINEW_SOLVER_PD_JACOBI); }
Test(pd_gpu, chebyshev_matches_reference) { against_reference(SINEW_SOLVER_PD_CHEBYSHEV); }

/* One step from a network stretched by 40 %, no gravity: the spring error
 * after k iterations falls with k, and red-black Gauss-Seidel beats Jacobi
 * at equal iterations (Pall et al., figure 3). The step's residual
 * (docs/math.md 9) falls with them too, within (0, 1). */
Test(pd_gpu, error_falls_with_iterations)
{
    sinew_asset *a = quad_cloth(16, 16, 0.5, 0);
    float *x = stretched(a, 1.4);
    const sinew_solver solvers[] = {SINEW_SOLVER_PD_RED_BLACK, SINEW_SOLVER_PD_JACOBI, SINEW_SOLVER_PD_CHEBYSHEV};
    const uint32_t iterations[] = {1, 4, 16, 64};
    double error[3][4];
    float residual[3][4];
    sinew_step_params p = free_params();
    p.gravity[1] = 0.0f;
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 4; k++) {
            sinew_body_desc d = pd_desc(solvers[s], iterations[k]);
            d.stretch_compliance = 1e-4f; /* stiff: the springs, not inertia, decide */
            sinew_body *body = NULL;
            cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
            cr_assert_eq(sinew_body_write_positions(body, x, a->particle_count), SINEW_RESULT_OK);
            cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
            error[s][k] = spring_error(body, a);
            residual[s][k] = sinew_body_get_stats(body).residual;
            sinew_body_destroy(body);
        }
    for (int s = 0; s < 3; s++) {
        cr_log_info("solver %d: error after 1/4/16/64 iterations %.4g %.4g %.4g %.4g m^2", (int)solvers[s],
                    error[s][0], error[s][1], error[s][2], error[s][3]);
        cr_log_info("solver %d: residual after 1/4/16/64 iterations %.4g %.4g %.4g %.4g", (int)solvers[s],
                    residual[s][0], residual[s][1], residual[s][2], residual[s][3]);
        for (int k = 1; k < 4; k++) {
            cr_expect_lt(error[s][k], error[s][k - 1], "solver %d: more iterations, less error", (int)solvers[s]);
            cr_expect_lt(residual[s][k], residual[s][k - 1], "solver %d: more iterations, lower residual",
                         (int)solvers[s]);
        }
        for (int k = 0; k < 4; k++)
            cr_expect(residual[s][k] > 0.0f && residual[s][k] < 1.0f, "residual %g", residual[s][k]);
    }
    for (int k = 1; k < 4; k++)
        cr_expect_lt(error[0][k], error[1][k], "red-black ahead of Jacobi at %u iterations", iterations[k]);
    cr_expect_lt(error[2][3], error[1][3], "Chebyshev ahead of Jacobi at 64 iterations");
    free(x);
    sinew_asset_destroy(a);
}

/* Pinned corners stay exactly where they are; a cloth dropped onto a sphere
 * and the ground ends outside both. */
Test(pd_gpu, pins_sphere_and_ground)
{
    sinew_asset *a = quad_cloth(16, 16, 1.0, 1);
    sinew_body_desc d = pd_desc(SINEW_SOLVER_PD_RED_BLACK, 8);
    d.substeps = 2;
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = free_params();
    p.ground = 1;
    p.ground_height = 0.0f;
    p.sphere = 1;
    p.sphere_center[0] = 0.5f;
    p.sphere_center[1] = 0.6f;
    p.sphere_center[2] = 0.8f;
    p.sphere_radius = 0.25f;
    for (int step = 0; step < 90; step++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    uint32_t n = a->particle_count;
    float *x = malloc(3 * sizeof *x * n);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double deepest = 0.0, lowest = 1.0;
    for (uint32_t i = 0; i < n; i++) {
        if (a->particles[i].w == 0.0f) {
            cr_expect_eq(x[3 * i], a->particles[i].x, "pinned particle %u stays", i);
            cr_expect_eq(x[3 * i + 1], a->particles[i].y);
            cr_expect_eq(x[3 * i + 2], a->particles[i].z);
            continue;
        }
        double r[3] = {x[3 * i] - p.sphere_center[0], x[3 * i + 1] - p.sphere_center[1],
                       x[3 * i + 2] - p.sphere_center[2]};
        deepest = fmax(deepest, p.sphere_radius - sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]));
        lowest = fmin(lowest, x[3 * i + 1]);
    }
    cr_log_info("hanging over a sphere: deepest inside the sphere %.3g m, lowest particle %.3g m", deepest, lowest);
    cr_expect_leq(deepest, 1e-5, "no particle inside the sphere");
    cr_expect_geq(lowest, -1e-5, "no particle below the ground");
    cr_expect_lt(lowest, 0.2, "the cloth hangs down to the ground");
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
}

/* A cloth dropped onto a box that then slides along x at 0.5 m/s: with
 * friction it rides along, without it stays behind; never inside the box. */
static double ride_on_box(float friction, double *inside)
{
    sinew_asset *a = quad_cloth(12, 12, 0.4, 0);
    sinew_body_desc d = pd_desc(SINEW_SOLVER_PD_RED_BLACK, 8);
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    sinew_step_params p = free_params();
    p.friction = friction;
    p.box = 1;
    const float half[3] = {1.0f, 0.4f, 1.0f}; /* wide: the cloth never reaches an edge */
    float centre[3] = {0.2f, 0.5f, 0.2f};
    memcpy(p.box_half_extents, half, sizeof half);
    uint32_t n = a->particle_count;
    float *x = malloc(3 * sizeof *x * n);
    double start = 0.0, end = 0.0, travel = 0.0;
    *inside = 0.0;
    for (int step = 0; step < 60; step++) {
        int moving = step >= 20;
        p.box_velocity[0] = moving ? 0.5f : 0.0f;
        memcpy(p.box_center, centre, sizeof centre);
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        if (moving)
            centre[0] += 0.5f * p.dt;
        cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
        double mean = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            mean += x[3 * i] / n;
            double pen = INFINITY;
            for (int k = 0; k < 3; k++)
                pen = fmin(pen, half[k] - fabs(x[3 * i + k] - p.box_center[k]));
            *inside = fmax(*inside, pen);
        }
        if (step == 19)
            start = mean;
        end = mean;
    }
    travel = 0.5 * 40 * p.dt;
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
    return (end - start) / travel;
}

Test(pd_gpu, moving_box_carries_the_cloth)
{
    double inside_sticky, inside_slippery;
    double sticky = ride_on_box(1.0f, &inside_sticky);
    double slippery = ride_on_box(0.0f, &inside_slippery);
    cr_log_info("cloth on a box moving 0.33 m: carried %.0f %% of the way with friction 1, %.0f %% without; "
                "deepest inside the box %.2g m",
                100 * sticky, 100 * slippery, fmax(inside_sticky, inside_slippery));
    cr_expect_gt(sticky, 0.8, "friction carries the cloth with the box");
    cr_expect_lt(slippery, 0.1, "without friction the box slides under it");
    cr_expect_leq(fmax(inside_sticky, inside_slippery), 1e-5, "no particle inside the box");
}

/* Cutting the springs across a hanging cloth keeps the red-black partition
 * valid (no recolouring): the body matches the reference without those
 * springs, and the lower piece falls away. */
Test(pd_gpu, tearing_keeps_the_partition)
{
    const uint32_t nx = 12;
    sinew_asset *a = quad_cloth(nx, nx, 0.5, 1);
    sinew_body_desc d = pd_desc(SINEW_SOLVER_PD_RED_BLACK, 6);
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    /* Between rows 5 and 6: every spring joining them. */
    uint32_t pairs[2 * 12], count = 0;
    uint8_t *skip = calloc(a->distance_count, 1);
    for (uint32_t c = 0; c < a->distance_count; c++) {
        uint32_t ra = a->distances[c].a / nx, rb = a->distances[c].b / nx;
        if ((ra == 5 && rb == 6) || (ra == 6 && rb == 5)) {
            pairs[2 * count] = a->distances[c].a;
            pairs[2 * count + 1] = a->distances[c].b;
            skip[c] = 1;
            count++;
        }
    }
    cr_assert_eq(count, nx);
    uint32_t cut = 0;
    cr_assert_eq(sinew_body_cut(body, pairs, count, &cut), SINEW_RESULT_OK);
    cr_assert_eq(cut, nx);

    uint32_t *ends = malloc(sizeof *ends * 2 * a->distance_count);
    uint8_t *colour = calloc(a->particle_count, 1);
    for (uint32_t i = 0; i < a->black_count; i++)
        colour[a->blacks[i]] = 1;
    uint32_t kept = 0;
    for (uint32_t c = 0; c < a->distance_count; c++)
        if (!skip[c]) {
            ends[2 * kept] = a->distances[c].a;
            ends[2 * kept + 1] = a->distances[c].b;
            kept++;
        }
    cr_expect(sinew_redblack_is_valid(kept, ends, colour), "the torn network is still red-black");

    float *x = malloc(3 * sizeof *x * a->particle_count);
    for (uint32_t i = 0; i < a->particle_count; i++)
        memcpy(&x[3 * i], &a->particles[i].x, 3 * sizeof(float));
    pd_ref *ref = make_ref(a, &d, x, skip);
    sinew_step_params p = free_params();
    pd_ref_step_params rp = ref_params(&d, &p);
    for (int step = 0; step < 30; step++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        pd_ref_step(ref, &rp);
    }
    double worst = max_difference(body, ref, a->particle_count);
    cr_assert_eq(sinew_body_read_positions(body, x, a->particle_count), SINEW_RESULT_OK);
    /* Free fall for 0.5 s from rest: 1.23 m; attached particles hang within
     * a stretched half cloth of the pins. */
    double drop = 1.0 - x[3 * (nx * nx - 1) + 1];
    cr_log_info("torn cloth: lower piece fell %.3g m in 0.5 s; largest difference from the reference %.3g m", drop,
                worst);
    cr_expect_gt(drop, 1.0, "the lower piece falls free");
    /* Float rounding against the double reference grows about linearly,
     * 1.7e-6 m a step on lavapipe (5e-5 after 30). A conforming device may
     * round differently and less tightly: FMA contraction is the compiler's
     * choice, and Vulkan allows 2.5 ULP for a division (the global step
     * divides once a particle an iteration), so NVIDIA's H100 and H200 ended
     * past the 2e-4 this bound once was. A cut that broke the partition or
     * left a spring joining the pieces shows in centimetres (the lower piece
     * falls 1.27 m), so 1e-3 m still catches it with margin for any device's
     * rounding. */
    cr_expect_lt(worst, 1e-3, "largest difference from the reference %.3g m", worst);
    pd_ref_destroy(ref);
    free(x);
    free(ends);
    free(colour);
    free(skip);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
}

/* What a PD body cannot take is refused with a message saying why. */
Test(pd_gpu, refusals)
{
    sinew_body *body = NULL;
    sinew_asset *plain = gpu_make_cloth(8, 8, 0.5, 1.0, 0); /* hinges, diagonals, no partition */
    sinew_body_desc d = pd_desc(SINEW_SOLVER_PD_JACOBI, 4);
    cr_expect_eq(sinew_body_create(gpu_ctx, plain, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("bending hinges"), "names the hinges");
    gpu_log_clear();

    sinew_asset *quads = quad_cloth(8, 8, 0.5, 0);
    d = pd_desc(SINEW_SOLVER_PD_RED_BLACK, 4);
    d.stretch_compliance = 0.0f;
    cr_expect_eq(sinew_body_create(gpu_ctx, quads, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("stretch_compliance is 0"), "names the infinite stiffness");
    gpu_log_clear();

    free(quads->reds);
    free(quads->blacks);
    quads->reds = quads->blacks = NULL;
    quads->red_count = quads->black_count = 0;
    d = pd_desc(SINEW_SOLVER_PD_RED_BLACK, 4);
    cr_expect_eq(sinew_body_create(gpu_ctx, quads, &d, &body), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("red-black partition"), "asks for the partition");
    gpu_log_clear();
    d = pd_desc(SINEW_SOLVER_PD_JACOBI, 4); /* Jacobi needs none */
    cr_assert_eq(sinew_body_create(gpu_ctx, quads, &d, &body), SINEW_RESULT_OK);

    d.chebyshev_rho = 1.0f;
    sinew_body *other = NULL;
    cr_expect_eq(sinew_body_create(gpu_ctx, quads, &d, &other), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("chebyshev_rho"));
    gpu_log_clear();

    sinew_step_params p = free_params();
    p.box = 1;
    p.box_half_extents[1] = -1.0f;
    cr_expect_eq(sinew_body_step(body, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("box_half_extents"));
    p.box_half_extents[1] = 1.0f;
    p.box_center[2] = NAN;
    cr_expect_eq(sinew_body_step(body, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("box_center.z"));
    gpu_log_clear();
    p.box_center[2] = 0.0f;
    cr_expect_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "the body still steps");
    sinew_body_destroy(body);
    sinew_asset_destroy(plain);
    sinew_asset_destroy(quads);
}

/* A PD body's state is its positions and velocities (the Verlet step keeps
 * x(t - h) as x - h v): a checkpoint after 10 steps, loaded into a new body,
 * continues bit for bit as the saved body does, on the red-black and the
 * Chebyshev solver (whose previous iterate restarts every substep). */
static void checkpoint_continues(sinew_solver solver)
{
    sinew_asset *a = quad_cloth(10, 10, 0.5, 1);
    sinew_body_desc d = pd_desc(solver, 5);
    sinew_body *first = NULL, *second = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &first), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &second), SINEW_RESULT_OK);
    sinew_step_params p = free_params();
    p.ground = 1;
    p.ground_height = 0.6f;
    for (int s = 0; s < 10; s++)
        cr_assert_eq(sinew_body_step(first, &p), SINEW_RESULT_OK);
    size_t size = sinew_body_checkpoint_size(first);
    void *blob = malloc(size);
    cr_assert_eq(sinew_body_save_checkpoint(first, blob, size), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_load_checkpoint(second, blob, size), SINEW_RESULT_OK);
    for (int s = 0; s < 10; s++) {
        cr_assert_eq(sinew_body_step(first, &p), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_step(second, &p), SINEW_RESULT_OK);
    }
    uint64_t h1 = 0, h2 = 0;
    cr_assert_eq(sinew_body_state_hash(first, &h1), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_state_hash(second, &h2), SINEW_RESULT_OK);
    cr_expect_eq(h1, h2, "solver %d: the loaded body continues bit for bit", (int)solver);
    free(blob);
    sinew_body_destroy(first);
    sinew_body_destroy(second);
    sinew_asset_destroy(a);
}

Test(pd_gpu, checkpoint_continues_red_black) { checkpoint_continues(SINEW_SOLVER_PD_RED_BLACK); }
Test(pd_gpu, checkpoint_continues_chebyshev) { checkpoint_continues(SINEW_SOLVER_PD_CHEBYSHEV); }

/* A particle held by the user (sinew_body_set_pinned, then move_pinned) stays
 * exactly where it is put, falls again once set free, and an asset's own pin
 * cannot be set free. */
Test(pd_gpu, grab_and_release_a_particle)
{
    sinew_asset *a = quad_cloth(10, 10, 0.5, 1);
    sinew_body_desc d = pd_desc(SINEW_SOLVER_PD_RED_BLACK, 5);
    sinew_body *body = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK);
    const uint32_t held = a->particle_count - 1; /* the free far corner */
    cr_assert_eq(sinew_body_set_pinned(body, held, 1), SINEW_RESULT_OK);
    const float target[3] = {0.6f, 1.3f, 0.7f};
    cr_assert_eq(sinew_body_move_pinned(body, &held, 1, target), SINEW_RESULT_OK);
    sinew_step_params p = free_params();
    for (int s = 0; s < 10; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    float *x = malloc(sizeof *x * 3 * a->particle_count);
    cr_assert_eq(sinew_body_read_positions(body, x, a->particle_count), SINEW_RESULT_OK);
    cr_expect(memcmp(&x[3 * held], target, sizeof target) == 0, "held where it was put");
    cr_assert_eq(sinew_body_set_pinned(body, held, 0), SINEW_RESULT_OK);
    for (int s = 0; s < 10; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(body, x, a->particle_count), SINEW_RESULT_OK);
    cr_expect_lt(x[3 * held + 1], target[1] - 0.05f, "set free, it falls (y %.3f)", x[3 * held + 1]);
    cr_expect_eq(sinew_body_set_pinned(body, 0, 0), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "the asset's pin stays");
    cr_expect(gpu_log_contains("pinned by its asset"));
    cr_expect_eq(sinew_body_set_pinned(body, a->particle_count, 1), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    gpu_log_clear();
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
}
