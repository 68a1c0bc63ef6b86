/* The implicit cloth bodies through the public API (SINEW_SOLVER_IMPLICIT_MG
 * and IMPLICIT_PCG, docs/implicit.md): pins and contacts as soft
 * constraints made on the device, their error against the stiffness (the
 * paper's table 2), the modified-PCG baseline holding them hard, the solves'
 * counts, checkpoints, and what is refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h" /* volk first: sinew/vulkan.h then finds the Vulkan headers included */
#include "gpu_fixture.h"
#include <sinew/vulkan.h>
#include "prep/cloth.h"
#include "prep/nested.h"
#include "ref/imc_ref.h"
#include "shapes.h"

TestSuite(implicit, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

/* A square of `size` m centred above the origin at height y in the XZ plane,
 * from 2 x 2 quads subdivided `subdivisions` times ((2^(s+1) + 1)^2
 * particles), pinned at the two corners of its first row or not at all. */
static sinew_asset *make_cloth(uint32_t subdivisions, double size, double y, int pinned)
{
    sinew_mesh m;
    double origin[3] = {0.0, y, 0.0};
    cr_assert_eq(sinew_mesh_grid(3, 3, size, size, SINEW_GRID_XZ, origin, &m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    uint32_t pins[2] = {0, 2}; /* the coarse mesh's (and so the nested one's) first row's corners */
    opt.pin_indices = pins;
    opt.pin_count = pinned ? 2 : 0;
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_nested_cloth(&m, subdivisions, &opt, gpu_logger(), NULL, &a), SINEW_RESULT_OK);
    sinew_mesh_free(&m);
    return a;
}

static sinew_body_desc implicit_desc(sinew_solver solver)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = solver;
    d.substeps = 1;
    return d;
}

static sinew_step_params no_ground(void)
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    return p;
}

static double dist3(const float *a, const float *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* The largest distance of a pinned particle from where it started, over
 * `steps` steps of a cloth hanging from two corners. */
static double pin_deviation(sinew_solver solver, float k_pin, uint32_t steps, sinew_step_stats *last)
{
    sinew_asset *a = make_cloth(3, 1.0, 1.0, 1);
    sinew_body_desc d = implicit_desc(solver);
    d.implicit.pin_stiffness = k_pin;
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    const uint32_t n = sinew_body_get_particle_count(b);
    float *x0 = malloc(12ull * n), *x = malloc(12ull * n);
    cr_assert_eq(sinew_body_read_positions(b, x0, n), SINEW_RESULT_OK);
    sinew_step_params p = no_ground();
    double worst = 0.0;
    for (uint32_t s = 0; s < steps; s++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "step %u", s);
        cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++)
            if (a->particles[i].w == 0.0f && dist3(&x[3 * i], &x0[3 * i]) > worst)
                worst = dist3(&x[3 * i], &x0[3 * i]);
    }
    if (last)
        *last = sinew_body_get_stats(b);
    free(x0);
    free(x);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
    return worst;
}

/* Table 2 of the paper, point constraints: a pinned particle's largest
 * deviation from its anchor over a run falls about as 1/k_c. */
Test(implicit, pin_error_falls_as_one_over_stiffness)
{
    const float k[4] = {10.0f, 100.0f, 1000.0f, 10000.0f};
    double e[4];
    for (int j = 0; j < 4; j++) {
        e[j] = pin_deviation(SINEW_SOLVER_IMPLICIT_MG, k[j], 30, NULL);
        printf("  k_pin %6.0f N/m: largest pin deviation %.3e m\n", k[j], e[j]);
    }
    for (int j = 1; j < 4; j++)
        cr_expect(e[j] < 0.25 * e[j - 1] && e[j] > 0.02 * e[j - 1],
                  "k %g -> %g: deviation %.3e -> %.3e is not about a tenth", k[j - 1], k[j], e[j - 1], e[j]);
}

/* The baseline's filter makes pins hard: they stay where they were to
 * float's rounding, whatever the stiffness; and it needs many more
 * iterations than the multigrid needs V-cycles. */
Test(implicit, modified_pcg_holds_pins_exactly)
{
    sinew_step_stats pcg, mg;
    double e = pin_deviation(SINEW_SOLVER_IMPLICIT_PCG, 10.0f, 10, &pcg);
    pin_deviation(SINEW_SOLVER_IMPLICIT_MG, 10.0f, 10, &mg);
    printf("  modified PCG: pins within %.3e m; last step %u iterations (residual %.2e); multigrid %u V-cycles "
           "(residual %.2e)\n",
           e, pcg.linear_iterations, pcg.linear_residual, mg.linear_iterations, mg.linear_residual);
    cr_expect_lt(e, 1e-6);
    cr_expect_leq(pcg.linear_residual, 1e-4);
    cr_expect_leq(mg.linear_residual, 1e-4);
    cr_expect_eq(pcg.linear_unconverged, 0);
    cr_expect_eq(mg.linear_unconverged, 0);
    cr_expect_gt(pcg.linear_iterations, 4 * mg.linear_iterations);
    cr_expect_gt(mg.ms_linear, 0.0);
}

/* A cloth dropped on a sphere. Table 2 of the paper, sliding constraints:
 * each step the particles the solver constrains (those whose position moved
 * on at its velocity lies within contact_offset of the sphere) end the step
 * off their target surface (the sphere grown by the offset) by about their
 * force over k_c: the largest such deviation over the run is returned. A
 * tangential stiffness of k_c / 10 holds the contacts where they touch, so
 * the cloth stays on the sphere. */
static double sphere_run(sinew_solver solver, float k_c, uint32_t steps, float *draped_low)
{
    sinew_asset *a = make_cloth(3, 1.0, 0.4, 0);
    sinew_body_desc d = implicit_desc(solver);
    d.implicit.contact_stiffness = k_c;
    d.implicit.friction_stiffness = 0.1f * k_c;
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    const uint32_t n = sinew_body_get_particle_count(b);
    float *x = malloc(12ull * n), *v = malloc(12ull * n);
    uint8_t *constrained = malloc(n);
    sinew_step_params p = no_ground();
    p.sphere = 1;
    p.sphere_radius = 0.3f;
    p.contact_offset = 0.005f;
    const double surface = p.sphere_radius + p.contact_offset;
    double worst = 0.0;
    uint32_t touching = 0;
    for (uint32_t s = 0; s < steps; s++) {
        cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_read_velocities(b, v, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++) {
            double q[3];
            for (int c = 0; c < 3; c++)
                q[c] = x[3 * i + c] + p.dt * v[3 * i + c];
            constrained[i] = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) < surface;
        }
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "step %u", s);
        cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++)
            if (constrained[i]) {
                double r = sqrt(x[3 * i] * x[3 * i] + x[3 * i + 1] * x[3 * i + 1] + x[3 * i + 2] * x[3 * i + 2]);
                worst = fabs(r - surface) > worst ? fabs(r - surface) : worst;
                touching++;
            }
    }
    cr_expect_gt(touching, steps, "particles touched the sphere");
    float low = 1e9f;
    for (uint32_t i = 0; i < n; i++)
        low = x[3 * i + 1] < low ? x[3 * i + 1] : low;
    *draped_low = low;
    free(x);
    free(v);
    free(constrained);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
    return worst;
}

Test(implicit, contacts_error_falls_as_one_over_stiffness)
{
    const float k[3] = {100.0f, 1000.0f, 10000.0f};
    double e[3];
    float low;
    for (int j = 0; j < 3; j++) {
        e[j] = sphere_run(SINEW_SOLVER_IMPLICIT_MG, k[j], 40, &low);
        printf("  k_c %6.0f N/m: largest deviation of a sliding-constrained particle %.3e m; lowest particle at "
               "y = %.3f m\n",
               k[j], e[j], low);
        cr_expect(low < 0.0f && low > -0.3f, "the cloth drapes over the sphere below its equator (%.3f m)", low);
    }
    for (int j = 1; j < 3; j++)
        cr_expect(e[j] < 0.3 * e[j - 1], "k %g -> %g: deviation %.3e -> %.3e", k[j - 1], k[j], e[j - 1], e[j]);
    double hard = sphere_run(SINEW_SOLVER_IMPLICIT_PCG, 100.0f, 40, &low);
    printf("  modified PCG (k_c 100 N/m, filtered): largest deviation %.3e m\n", hard);
    cr_expect_lt(hard, 0.1 * e[0], "the filter holds contacts whatever k_c");
}

/* The capsule as a sliding constraint: a cloth dropped across a horizontal
 * one drapes over it. Contacts are decided before each step's solve, so a
 * particle its neighbours pull in during a step is caught at the next: none
 * gets further in than the contact offset (5 mm). */
Test(implicit, cloth_drapes_over_a_capsule)
{
    sinew_asset *a = make_cloth(3, 1.0, 0.3, 0);
    sinew_body_desc d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    d.implicit.bdf2 = 1;
    d.implicit.friction_stiffness = 1e4f;
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    const uint32_t n = sinew_body_get_particle_count(b);
    float *x = malloc(12ull * n);
    sinew_step_params p = no_ground();
    p.capsule = 1;
    p.capsule_a[0] = -0.8f;
    p.capsule_b[0] = 0.8f;
    p.capsule_a[1] = p.capsule_b[1] = 0.1f;
    p.capsule_radius = 0.1f;
    double deepest = 0.0;
    float lowest = 1e9f;
    for (int s = 0; s < 40; s++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "step %d", s);
        cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++) {
            double dy = x[3 * i + 1] - 0.1, dz = x[3 * i + 2];
            deepest = fmax(deepest, p.capsule_radius - sqrt(dy * dy + dz * dz));
            lowest = fminf(lowest, x[3 * i + 1]);
        }
    }
    printf("  capsule: deepest %.2e m inside it; lowest particle %.3f m\n", deepest, lowest);
    cr_expect_lt(deepest, p.contact_offset);
    cr_expect_lt(lowest, 0.0f, "the cloth drapes below the capsule");
    free(x);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
}

typedef struct ball_result {
    float *landed;        /* positions after step 10, just after the cloth lands */
    uint32_t count;
    double mean_y[40];    /* the cloth's mean height after each step */
    double deepest;       /* furthest any particle got inside the ball (m) */
    float lowest;         /* at the end */
} ball_result;

/* A cloth dropped on a ball of radius 0.3 m for 40 steps: the analytic
 * sphere, or (mesh not NULL) a triangle mesh of it. */
static ball_result ball_run(sinew_collider *mesh)
{
    sinew_asset *a = make_cloth(3, 1.0, 0.4, 0);
    sinew_body_desc d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    d.implicit.contact_stiffness = 1e4f;
    d.implicit.friction_stiffness = 1e3f;
    d.collider = mesh;
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    const uint32_t n = sinew_body_get_particle_count(b);
    ball_result r = {malloc(12ull * n), n, {0}, -1.0, 1e9f};
    float *x = malloc(12ull * n);
    sinew_step_params p = no_ground();
    p.sphere = mesh == NULL;
    p.collider = mesh != NULL;
    p.sphere_radius = 0.3f;
    for (int s = 0; s < 40; s++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "step %d", s);
        cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < n; i++) {
            const float *q = &x[3 * i];
            double inside = mesh ? -sinew_collider_distance(mesh, q, NULL)
                                 : 0.3 - sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
            r.deepest = fmax(r.deepest, inside);
            r.mean_y[s] += q[1] / n;
            if (s == 39)
                r.lowest = fminf(r.lowest, q[1]);
        }
        if (s == 10)
            memcpy(r.landed, x, 12ull * n);
    }
    free(x);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
    return r;
}

/* The mesh collider as sliding constraints: a cloth dropped on a triangle
 * mesh of a ball (an icosphere, 5 120 triangles, a 48-cell field) lands as it
 * lands on the analytic ball and settles to the same height (its folds, a
 * matter of tiny differences, are its own); contacts are decided before each
 * step's solve, so no particle goes further in than the contact offset, on
 * either. */
Test(implicit, mesh_collider_stands_in_for_the_sphere)
{
    sinew_collider *mesh = shape_ball_collider(gpu_ctx, 4, 0.3, 48);
    cr_assert_not_null(mesh);
    ball_result m = ball_run(mesh), s = ball_run(NULL);
    double landed = 0.0, height = 0.0;
    for (uint32_t i = 0; i < m.count; i++)
        landed = fmax(landed, dist3(&m.landed[3 * i], &s.landed[3 * i]));
    for (int k = 0; k < 40; k++)
        height = fmax(height, fabs(m.mean_y[k] - s.mean_y[k]));
    printf("  mesh collider against the analytic sphere: landed (step 10) within %.2e m, mean height within "
           "%.2e m over 40 steps; deepest particle %.2e m inside the mesh, %.2e m inside the sphere; lowest "
           "y = %.3f m, %.3f m\n", landed, height, m.deepest, s.deepest, m.lowest, s.lowest);
    cr_expect_lt(landed, 5e-3, "within the contact offset: a particle at the edge of contact may be"
                 " constrained on one and not yet on the other");
    cr_expect_lt(height, 5e-3);
    cr_expect_lt(m.deepest, 0.005, "no particle further in than the contact offset");
    cr_expect(m.lowest < 0.0f && m.lowest > -0.3f, "the cloth drapes over the ball below its equator");
    free(m.landed);
    free(s.landed);
    sinew_collider_destroy(mesh);
}

/* Moving the anchors drags the cloth; a checkpoint holds the anchors, so a
 * body restored from one continues as the original did, bit for bit. */
Test(implicit, anchors_move_and_checkpoint)
{
    sinew_asset *a = make_cloth(2, 1.0, 1.0, 1);
    sinew_body_desc d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    const uint32_t n = sinew_body_get_particle_count(b);
    float *x = malloc(12ull * n);
    sinew_step_params p = no_ground();
    uint32_t pins[2] = {0, 2};
    cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
    float moved[6] = {x[0], x[1] + 0.3f, x[2], x[6], x[7] + 0.3f, x[8]};
    cr_assert_eq(sinew_body_move_pinned(b, pins, 2, moved), SINEW_RESULT_OK);
    for (int s = 0; s < 5; s++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    size_t size = sinew_body_checkpoint_size(b);
    void *cp = malloc(size);
    cr_assert_eq(sinew_body_save_checkpoint(b, cp, size), SINEW_RESULT_OK);
    uint64_t h1, h2;
    for (int s = 0; s < 5; s++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_state_hash(b, &h1), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
    cr_expect_lt(dist3(&x[0], &moved[0]), 1e-3, "pin 0 follows its anchor");
    cr_expect_gt(x[3 * (n - 1) + 1], 0.5f, "the cloth hangs from the lifted pins");

    sinew_body *c = NULL; /* a second body, from the checkpoint */
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &c), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_load_checkpoint(c, cp, size), SINEW_RESULT_OK);
    for (int s = 0; s < 5; s++)
        cr_assert_eq(sinew_body_step(c, &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_state_hash(c, &h2), SINEW_RESULT_OK);
    cr_expect_eq(h1, h2, "restored body continues bit for bit");
    /* An XPBD body's checkpoint has no anchors: refused by name. */
    sinew_body_desc xd = sinew_body_desc_default();
    sinew_body *xb = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &xd, &xb), SINEW_RESULT_OK);
    size_t xsize = sinew_body_checkpoint_size(xb);
    void *xcp = malloc(xsize);
    cr_assert_eq(sinew_body_save_checkpoint(xb, xcp, xsize), SINEW_RESULT_OK);
    gpu_log_clear();
    cr_expect_eq(sinew_body_load_checkpoint(c, xcp, xsize), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("flags"));
    gpu_log_clear();
    free(xcp);
    free(cp);
    free(x);
    sinew_body_destroy(xb);
    sinew_body_destroy(c);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
}

/* BDF2 on the device against the CPU double reference doing the same: the
 * first step backward Euler, then each a backward Euler step of 2h/3 from
 * (4 x - x_prev) / 3, (4 v - v_prev) / 3, pins soft with the same k, the
 * reference solving to 1e-8, the device to 1e-4: the trajectories of a
 * cloth swinging down from two corners stay together. */
Test(implicit, bdf2_follows_the_reference)
{
    sinew_mesh m;
    sinew_nested nested;
    double origin[3] = {0.0, 1.0, 0.0};
    cr_assert_eq(sinew_mesh_grid(3, 3, 1.0, 1.0, SINEW_GRID_XZ, origin, &m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    uint32_t pins[2] = {0, 2};
    opt.pin_indices = pins;
    opt.pin_count = 2;
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_nested_cloth(&m, 3, &opt, gpu_logger(), &nested, &a), SINEW_RESULT_OK);
    const uint32_t n = a->particle_count, m3 = 3 * n;
    for (uint32_t i = 0; i < n; i++) { /* the reference's rest shape is the asset's, in float */
        nested.positions[3 * i] = a->particles[i].x;
        nested.positions[3 * i + 1] = a->particles[i].y;
        nested.positions[3 * i + 2] = a->particles[i].z;
    }
    const float k_pin = 1e4f;
    sinew_body_desc d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    d.implicit.bdf2 = 1;
    d.implicit.pin_stiffness = k_pin;
    const imc_material cloth = {d.implicit.stretch, d.implicit.shear, d.implicit.bend, d.implicit.damping,
                                d.implicit.density};
    imc_ref *ref = imc_ref_create(&nested, 0, &cloth);
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    sinew_step_params p = no_ground();
    const double h = p.dt, g[3] = {0, -9.81, 0};
    double *x = imc_ref_positions(ref), *v = imc_ref_velocities(ref);
    double *xp = malloc(sizeof *xp * m3), *vp = malloc(sizeof *vp * m3), *dx = malloc(sizeof *dx * m3);
    double *anchor = malloc(sizeof *anchor * m3), D[9];
    memcpy(anchor, x, sizeof *anchor * m3);
    imc_ref_point_constraint(k_pin, D);
    float *gx = malloc(sizeof *gx * m3);
    double worst = 0.0, fall = 0.0;
    for (int step = 0; step < 20; step++) {
        double hs = h;
        if (step > 0) { /* blend with the step before */
            for (uint32_t i = 0; i < m3; i++) {
                double xn = x[i], vn = v[i];
                x[i] = (4.0 * xn - xp[i]) / 3.0;
                v[i] = (4.0 * vn - vp[i]) / 3.0;
                xp[i] = xn;
                vp[i] = vn;
            }
            hs = 2.0 * h / 3.0;
        } else {
            memcpy(xp, x, sizeof *xp * m3);
            memcpy(vp, v, sizeof *vp * m3);
        }
        for (uint32_t k = 0; k < 2; k++) {
            uint32_t i = pins[k];
            double target[3] = {anchor[3 * i] - x[3 * i], anchor[3 * i + 1] - x[3 * i + 1],
                                anchor[3 * i + 2] - x[3 * i + 2]};
            imc_ref_set_constraint(ref, i, D, target);
        }
        imc_ref_assemble(ref, hs, g);
        imc_stats st;
        memset(dx, 0, sizeof *dx * m3);
        imc_ref_solve_mg(ref, dx, 1e-8, 100, 5, 10, &st);
        imc_ref_advance(ref, dx, hs);
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "step %d", step);
        cr_assert_eq(sinew_body_read_positions(b, gx, n), SINEW_RESULT_OK);
        for (uint32_t i = 0; i < m3; i++)
            worst = fmax(worst, fabs(gx[i] - x[i]));
        for (uint32_t i = 0; i < n; i++)
            fall = fmax(fall, 1.0 - x[3 * i + 1]);
    }
    printf("  BDF2, 20 steps: positions within %.2e m of the reference's; the cloth fell %.3f m\n", worst, fall);
    cr_expect_gt(fall, 0.3);
    cr_expect_lt(worst, 2e-3 * fall, "the trajectories parted by %.2e m in a fall of %.3f m", worst, fall);
    /* A checkpoint carries the step before: a restored body continues bit for bit. */
    size_t size = sinew_body_checkpoint_size(b);
    void *cp = malloc(size);
    cr_assert_eq(sinew_body_save_checkpoint(b, cp, size), SINEW_RESULT_OK);
    sinew_body *c = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &c), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_load_checkpoint(c, cp, size), SINEW_RESULT_OK);
    uint64_t h1, h2;
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_step(c, &p), SINEW_RESULT_OK);
    }
    cr_assert_eq(sinew_body_state_hash(b, &h1), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_state_hash(c, &h2), SINEW_RESULT_OK);
    cr_expect_eq(h1, h2);
    free(cp);
    free(gx);
    free(xp);
    free(vp);
    free(dx);
    free(anchor);
    imc_ref_destroy(ref);
    sinew_body_destroy(c);
    sinew_body_destroy(b);
    sinew_nested_free(&nested);
    sinew_mesh_free(&m);
    sinew_asset_destroy(a);
}

/* BDF2 damps far less than backward Euler: a cloth swinging from two
 * corners at dt = 1/30 s keeps more of its motion. */
Test(implicit, bdf2_damps_less_than_backward_euler)
{
    sinew_asset *a = make_cloth(3, 1.0, 1.0, 1);
    double energy[2];
    for (int bdf2 = 0; bdf2 < 2; bdf2++) {
        sinew_body_desc d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
        d.implicit.bdf2 = bdf2;
        d.implicit.damping = 0.0f;
        sinew_body *b = NULL;
        cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
        const uint32_t n = sinew_body_get_particle_count(b);
        float *v = malloc(12ull * n);
        sinew_step_params p = no_ground();
        p.dt = 1.0f / 30.0f;
        energy[bdf2] = 0.0;
        for (int s = 0; s < 45; s++) {
            cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
            if (s < 30)
                continue; /* the largest kinetic energy over the second half second */
            cr_assert_eq(sinew_body_read_velocities(b, v, n), SINEW_RESULT_OK);
            double e = 0.0;
            for (uint32_t i = 0; i < 3 * n; i++)
                e += 0.5 * (0.2 / n) * v[i] * v[i];
            energy[bdf2] = fmax(energy[bdf2], e);
        }
        free(v);
        sinew_body_destroy(b);
    }
    printf("  largest kinetic energy in steps 30-45: backward Euler %.4e J, BDF2 %.4e J\n", energy[0], energy[1]);
    cr_expect_gt(energy[1], 1.2 * energy[0]);
    sinew_asset_destroy(a);
}

/* Every device allocation of an implicit body (the body's buffers, the
 * multigrid's two, staging) fails in turn through the context's limit: each
 * failure says so and frees everything. */
Test(implicit, out_of_memory_at_every_allocation_leaks_nothing)
{
    sinew_asset *a = make_cloth(2, 1.0, 1.0, 1);
    sinew_context *ctx = gpu_make_staged_context();
    const uint64_t base = sinew_context_get_device_memory(ctx);
    sinew_body_desc d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    d.implicit.bdf2 = 1;
    sinew_body *b = NULL;
    sinew_result r = SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    int failures = 0;
    for (uint64_t limit = 1; r != SINEW_RESULT_OK; limit += 1024) {
        sinew_context_set_device_memory_limit(ctx, base + limit);
        gpu_log_clear();
        r = sinew_body_create(ctx, a, &d, &b);
        if (r == SINEW_RESULT_OK)
            break;
        cr_assert_eq(r, SINEW_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "limit %llu: %s", (unsigned long long)limit,
                     sinew_result_string(r));
        cr_assert_null(b);
        cr_assert(gpu_log_contains("of the context's limit"));
        cr_assert_eq(sinew_context_get_device_memory(ctx), base, "limit %llu leaked device memory",
                     (unsigned long long)limit);
        failures++;
    }
    cr_expect_gt(failures, 10);
    sinew_step_params p = no_ground();
    cr_expect_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    sinew_body_destroy(b);
    cr_expect_eq(sinew_context_get_device_memory(ctx), base);
    gpu_log_clear();
    cr_expect_eq(sinew_context_get_validation_message_count(ctx), 0);
    sinew_context_destroy(ctx);
    cr_expect_eq(gpu_error_count(), 0, "messages at context destruction (leaked objects?)");
    sinew_asset_destroy(a);
}

/* A step faster than max_speed fails the health check and is rolled back:
 * the body is as it was before it, and BDF2 starts again by backward Euler
 * (the step before is gone). */
Test(implicit, unhealthy_step_rolls_back)
{
    sinew_asset *a = make_cloth(2, 1.0, 1.0, 1);
    sinew_body_desc d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    d.implicit.bdf2 = 1;
    d.max_speed = 0.3f; /* m/s: the swing passes it within a few steps */
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    const uint32_t n = sinew_body_get_particle_count(b);
    float *before = malloc(12ull * n), *after = malloc(12ull * n);
    sinew_step_params p = no_ground();
    sinew_result r = SINEW_RESULT_OK;
    int s = 0;
    for (; s < 30 && r == SINEW_RESULT_OK; s++) {
        cr_assert_eq(sinew_body_read_positions(b, before, n), SINEW_RESULT_OK);
        gpu_log_clear();
        r = sinew_body_step(b, &p);
    }
    cr_assert_eq(r, SINEW_RESULT_ERROR_UNSTABLE, "no step failed the health check in %d", s);
    cr_expect(gpu_log_contains("rolled back"));
    gpu_log_clear();
    sinew_step_stats st = sinew_body_get_stats(b);
    cr_expect(st.rolled_back);
    cr_expect_gt(st.bad_particles, 0);
    cr_assert_eq(sinew_body_read_positions(b, after, n), SINEW_RESULT_OK);
    cr_expect_eq(memcmp(before, after, 12ull * n), 0, "positions as before the failed step");
    /* The step before is gone: the checkpoint is a fresh BDF2 body's size (no step before). */
    sinew_body *c = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &c), SINEW_RESULT_OK);
    cr_expect_eq(sinew_body_checkpoint_size(b), sinew_body_checkpoint_size(c));
    cr_assert_eq(sinew_body_step(c, &p), SINEW_RESULT_OK);
    cr_expect_gt(sinew_body_checkpoint_size(c), sinew_body_checkpoint_size(b), "after a step, the step before");
    free(before);
    free(after);
    sinew_body_destroy(c);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
}

/* What the implicit solvers refuse, each by name, with the body untouched. */
Test(implicit, refusals)
{
    sinew_asset *flat = gpu_make_cloth(8, 8, 1.0, 1.0, 1); /* no multigrid levels */
    sinew_body_desc d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    sinew_body *b = NULL;
    cr_expect_eq(sinew_body_create(gpu_ctx, flat, &d, &b), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("--subdivide"));
    cr_expect_null(b);
    sinew_asset *a = make_cloth(2, 1.0, 1.0, 1);
    d.implicit.stretch = NAN;
    cr_expect_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("stretch (nan)"));
    d = implicit_desc(SINEW_SOLVER_IMPLICIT_PCG);
    d.implicit.tolerance = 0.0f;
    cr_expect_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("tolerance"));
    d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    d.implicit.pre_smooth = d.implicit.post_smooth = 0;
    cr_expect_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    uint32_t pair[2] = {0, 1}, cut = 7;
    cr_expect_eq(sinew_body_cut(b, pair, 1, &cut), SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_expect_eq(cut, 0);
    sinew_step_params p = no_ground();
    p.dt = NAN;
    cr_expect_eq(sinew_body_step(b, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(sinew_body_get_stats(b).step_index, 0);
    gpu_log_clear();
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
    sinew_asset_destroy(flat);
}

/* A budget that would record too many dispatches a step is refused, naming
 * the fields. */
Test(implicit, oversized_budgets_are_refused)
{
    sinew_asset *a = make_cloth(2, 1.0, 1.0, 1);
    sinew_body_desc d = implicit_desc(SINEW_SOLVER_IMPLICIT_MG);
    d.implicit.max_cycles = 5000;
    sinew_body *b = NULL;
    cr_expect_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_ERROR_LIMIT);
    cr_expect(gpu_log_contains("max_cycles 5000"));
    cr_expect_null(b);
    d = implicit_desc(SINEW_SOLVER_IMPLICIT_PCG);
    d.implicit.max_pcg_iterations = 60000;
    cr_expect_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_ERROR_LIMIT);
    cr_expect(gpu_log_contains("lower them"));
    gpu_log_clear();
    sinew_asset_destroy(a);
}

/* Nothing of an implicit step is decided on the host any more, so it can be
 * recorded into an application's command buffer (sinew/vulkan.h): recorded
 * and submitted by the caller, the steps (BDF2, both solvers) land on the
 * same bits as sinew_body_step's, and the device's totals reach the stats. */
Test(implicit, recorded_steps_match_sinew_body_step)
{
    sinew_asset *a = make_cloth(2, 1.0, 1.0, 1);
    const sinew_solver solvers[2] = {SINEW_SOLVER_IMPLICIT_MG, SINEW_SOLVER_IMPLICIT_PCG};
    const sinew_step_params p = no_ground();
    for (int k = 0; k < 2; k++) {
        sinew_body_desc d = implicit_desc(solvers[k]);
        d.implicit.bdf2 = 1;
        sinew_body *own = NULL, *recorded = NULL;
        cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &own), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &recorded), SINEW_RESULT_OK);
        const struct VolkDeviceTable *vk = &gpu_ctx->vk;
        VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL,
                                          gpu_ctx->command_pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
        VkCommandBuffer cmd;
        cr_assert_eq(vk->vkAllocateCommandBuffers(gpu_ctx->device, &ai, &cmd), VK_SUCCESS);
        VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkFence fence;
        cr_assert_eq(vk->vkCreateFence(gpu_ctx->device, &fi, NULL, &fence), VK_SUCCESS);
        for (int s = 0; s < 4; s++) {
            cr_assert_eq(sinew_body_step(own, &p), SINEW_RESULT_OK);
            VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
            cr_assert_eq(vk->vkBeginCommandBuffer(cmd, &bi), VK_SUCCESS);
            cr_assert_eq(sinew_body_record_step(recorded, cmd, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
            cr_assert_eq(vk->vkEndCommandBuffer(cmd), VK_SUCCESS);
            VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
            si.commandBufferCount = 1;
            si.pCommandBuffers = &cmd;
            cr_assert_eq(vk->vkQueueSubmit(gpu_ctx->queue, 1, &si, fence), VK_SUCCESS);
            cr_assert_eq(vk->vkWaitForFences(gpu_ctx->device, 1, &fence, VK_TRUE, UINT64_MAX), VK_SUCCESS);
            cr_assert_eq(vk->vkResetFences(gpu_ctx->device, 1, &fence), VK_SUCCESS);
            cr_assert_eq(sinew_body_collect_stats(recorded), SINEW_RESULT_OK);
        }
        const sinew_step_stats so = sinew_body_get_stats(own), sr = sinew_body_get_stats(recorded);
        cr_expect_gt(sr.linear_iterations, 0, "%s: the device's totals reach the stats", sinew_solver_name(solvers[k]));
        cr_expect_eq(sr.linear_iterations, so.linear_iterations, "%s", sinew_solver_name(solvers[k]));
        const uint32_t n = a->particle_count;
        float *x[2] = {malloc(12ull * n), malloc(12ull * n)};
        cr_assert_eq(sinew_body_read_positions(own, x[0], n), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_read_positions(recorded, x[1], n), SINEW_RESULT_OK);
        cr_expect_arr_eq(x[0], x[1], 12ull * n, "%s: recorded steps differ from sinew_body_step's",
                         sinew_solver_name(solvers[k]));
        free(x[0]);
        free(x[1]);
        vk->vkDestroyFence(gpu_ctx->device, fence, NULL);
        vk->vkFreeCommandBuffers(gpu_ctx->device, gpu_ctx->command_pool, 1, &cmd);
        sinew_body_destroy(own);
        sinew_body_destroy(recorded);
    }
    sinew_asset_destroy(a);
}
