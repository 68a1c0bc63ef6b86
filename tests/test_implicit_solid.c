/* Implicit solids (SINEW_SOLVER_IMPLICIT_PCG on an asset of tetrahedra;
 * docs/implicit.md, "Solids"): each tetrahedron's stiffness is its energy's
 * Hessian made positive semi-definite, checked against the long way round
 * (tests/ref/fem_ref.c: central differences of the stress and a full
 * eigen-decomposition), with the forces in the right-hand side; a cantilever
 * comes to rest on the exact static equilibrium; what the solver refuses. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_fixture.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "ref/fem_ref.h"
#include "solvers/gpbd.h"
#include "solvers/imc.h"

TestSuite(implicit_solid, .init = gpu_setup, .fini = gpu_teardown, .timeout = 300);

static double lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* A box of nx x ny x nz vertices, size (m), centred at `centre`, of the
 * model; pinned where x < pin_x (none if pin_x is -inf). */
static sinew_asset *box(uint32_t nx, uint32_t ny, uint32_t nz, const double size[3], const double centre[3],
                        sinew_material_model model, double E, double pin_x)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(nx, ny, nz, size, centre, &v), SINEW_RESULT_OK);
    sinew_soft_options o = sinew_soft_options_default();
    o.model = model;
    o.youngs_modulus = E;
    o.poisson_ratio = 0.3;
    o.density = 1000.0;
    if (isfinite(pin_x)) {
        o.pin_box = 1;
        const double lo[3] = {-1e9, -1e9, -1e9}, hi[3] = {pin_x, 1e9, 1e9};
        memcpy(o.box_min, lo, sizeof lo);
        memcpy(o.box_max, hi, sizeof hi);
    }
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_soft_build(&v, &o, gpu_logger(), &a, NULL), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_volume_free(&v);
    return a;
}

static fem_ref_problem problem_of(const sinew_asset *a, double *rest, uint32_t *tets, fem_ref_material *m)
{
    for (uint32_t i = 0; i < a->particle_count; i++) {
        rest[3 * i] = a->particles[i].x;
        rest[3 * i + 1] = a->particles[i].y;
        rest[3 * i + 2] = a->particles[i].z;
    }
    for (uint32_t e = 0; e < a->element_count; e++)
        memcpy(&tets[4 * e], a->elements[e].v, 4 * sizeof *tets);
    GpuMaterial g = sinew_gpbd_material(&a->materials[0]);
    *m = fem_ref_material_device(&g);
    return (fem_ref_problem){a->particle_count, rest, a->element_count, tets, m, NULL, NULL, NULL};
}

/* The GPU's assembled A = M + (h beta + h^2) K and right-hand side
 * h^2 (f + M g) of a free block stretched, sheared and jittered, against
 * the CPU's from the projected Hessian. */
static void check_stiffness(sinew_material_model model)
{
    const double size[3] = {0.3, 0.2, 0.2}, centre[3] = {0.0, 0.0, 0.0};
    sinew_asset *a = box(4, 3, 3, size, centre, model, 1e6, -INFINITY);
    const uint32_t n = a->particle_count, t = a->element_count;
    double *rest = malloc(3 * sizeof *rest * n), *x = malloc(3 * sizeof *x * n), *force = malloc(3 * sizeof *force * n);
    uint32_t *tets = malloc(4 * sizeof *tets * t);
    float *xf = malloc(3 * sizeof *xf * n), *vf = calloc(3 * n, sizeof *vf);
    fem_ref_material m;
    fem_ref_problem p = problem_of(a, rest, tets, &m);
    uint64_t seed = 7;
    for (uint32_t i = 0; i < n; i++) { /* stretch x by 20 %, squash z by 25 %, shear, jitter 1 cm */
        const double *X = &rest[3 * i];
        const double y[3] = {1.2 * X[0] + 0.3 * X[1], X[1], 0.75 * X[2]};
        for (int k = 0; k < 3; k++)
            xf[3 * i + k] = (float)(y[k] + 0.01 * lcg(&seed));
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = xf[3 * i + k];
    }
    const float h = 0.01f, gravity[3] = {0.0f, 0.0f, 0.0f};
    const sinew_imc_material unused = {5e3, 500.0, 0.0, 0.01, 0.2}; /* membranes: none here */
    sinew_imc *s;
    cr_assert_eq(sinew_imc_create(gpu_ctx, a, &unused, 1e4, NULL, 0, &s), SINEW_RESULT_OK, "%s", gpu_log_text());
    cr_assert_eq(sinew_imc_level_count(s), 1);
    cr_assert_eq(sinew_imc_set_state(s, xf, vf), SINEW_RESULT_OK);
    cr_assert_eq(sinew_imc_assemble(s, h, gravity, NULL, SINEW_IMC_NO_HISTORY), SINEW_RESULT_OK, "%s", gpu_log_text());
    const uint32_t *row, *col;
    sinew_imc_pattern(s, 0, &row, &col);
    const uint32_t blocks = row[n];
    float *gpu = malloc(9 * sizeof *gpu * blocks), *rhs = malloc(3 * sizeof *rhs * n);
    cr_assert_eq(sinew_imc_read_blocks(s, 0, gpu), SINEW_RESULT_OK);
    cr_assert_eq(sinew_imc_read_vector(s, 0, 1 /* SINEW_MG_F */, rhs), SINEW_RESULT_OK);

    /* the CPU's A: masses, then each tetrahedron's 4 x 4 blocks */
    double *cpu = calloc(9 * (size_t)blocks, sizeof *cpu);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t b = row[i]; b < row[i + 1]; b++)
            if (col[b] == i)
                for (int d = 0; d < 3; d++)
                    cpu[9 * b + 4 * d] += 1.0 / a->particles[i].w;
    const double scale = h * unused.damping + (double)h * h;
    int clamped = 0;
    for (uint32_t e = 0; e < t; e++) {
        const sinew_element_rec *el = &a->elements[e];
        double r[4][3], F[9] = {0}, H[81];
        for (int j = 0; j < 3; j++)
            for (int c = 0; c < 3; c++)
                r[j + 1][c] = el->inv_rest[3 * c + j];
        for (int c = 0; c < 3; c++)
            r[0][c] = -(r[1][c] + r[2][c] + r[3][c]);
        for (int j = 1; j < 4; j++)
            for (int col_ = 0; col_ < 3; col_++)
                for (int row_ = 0; row_ < 3; row_++)
                    F[3 * col_ + row_] += (x[3 * el->v[j] + row_] - x[3 * el->v[0] + row_]) * r[j][col_];
        clamped += fem_ref_projected_hessian(&m, F, H) > 0;
        for (int qa = 0; qa < 4; qa++)
            for (int qb = 0; qb < 4; qb++) {
                uint32_t b = row[el->v[qa]];
                while (col[b] != el->v[qb])
                    b++;
                for (int d = 0; d < 3; d++)     /* row: vertex qa's component d */
                    for (int c = 0; c < 3; c++) /* column: vertex qb's component c */
                        for (int j = 0; j < 3; j++)
                            for (int l = 0; l < 3; l++)
                                cpu[9 * b + 3 * d + c] += scale * el->rest_measure * H[9 * (3 * j + d) + 3 * l + c] *
                                                          r[qa][j] * r[qb][l];
            }
    }
    double worst = 0.0, largest = 0.0;
    for (uint32_t k = 0; k < 9 * blocks; k++) {
        worst = fmax(worst, fabs(gpu[k] - cpu[k]));
        largest = fmax(largest, fabs(cpu[k]));
    }
    fem_ref_energy(&p, x, force);
    double fworst = 0.0, flargest = 0.0;
    for (uint32_t k = 0; k < 3 * n; k++) {
        fworst = fmax(fworst, fabs(rhs[k] - (double)h * h * force[k]));
        flargest = fmax(flargest, fabs((double)h * h * force[k]));
    }
    cr_log_info("%s: %u tetrahedra (%d with a negative eigenvalue clamped), matrix %.2e of %.2e apart, "
                "right-hand side %.2e of %.2e", model == SINEW_MATERIAL_NEO_HOOKEAN ? "neo-Hookean" : "stable "
                "neo-Hookean", t, clamped, worst, largest, fworst, flargest);
    cr_expect(clamped > 0, "the deformation leaves no eigenvalue to clamp: the test does not test the projection");
    cr_expect(worst < 2e-4 * largest, "matrix %g of %g apart", worst, largest);
    cr_expect(fworst < 1e-4 * flargest, "right-hand side %g of %g apart", fworst, flargest);
    sinew_imc_destroy(s);
    sinew_asset_destroy(a);
    free(rest), free(x), free(force), free(tets), free(xf), free(vf), free(gpu), free(rhs), free(cpu);
}

Test(implicit_solid, stiffness_is_the_projected_hessian_nh) { check_stiffness(SINEW_MATERIAL_NEO_HOOKEAN); }
Test(implicit_solid, stiffness_is_the_projected_hessian_snh) { check_stiffness(SINEW_MATERIAL_STABLE_NEO_HOOKEAN); }

/* The mean vertical displacement of the particles at x = x_end. */
static double tip_sag(const sinew_asset *a, const float *xyz, const double *u, double x_end)
{
    double s = 0.0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < a->particle_count; i++)
        if (a->particles[i].x > x_end - 1e-6) {
            s -= xyz ? xyz[3 * i + 1] - a->particles[i].y : u[3 * i + 1];
            count++;
        }
    return s / count;
}

/* A 1 m neo-Hookean cantilever of 99 vertices (E 10 MPa) hangs from its
 * clamp: with PCG to 1e-6 it comes to rest on the exact static equilibrium
 * of its mesh (GPBD Gauss-Seidel at 8 x 4 rests 44 % too low,
 * docs/accuracy.md). */
Test(implicit_solid, cantilever_rests_at_its_equilibrium)
{
    const double size[3] = {1.0, 0.2, 0.2}, centre[3] = {0.5, 1.0, 0.0};
    sinew_asset *a = box(11, 3, 3, size, centre, SINEW_MATERIAL_NEO_HOOKEAN, 1e7, 1e-6);
    GpuMaterial g = sinew_gpbd_material(&a->materials[0]);
    fem_ref_material m = fem_ref_material_device(&g);
    const double gravity[3] = {0.0, -9.81, 0.0};
    double *u = malloc(3 * sizeof *u * a->particle_count);
    fem_ref_stats st;
    cr_assert_eq(fem_ref_asset_displacement(a, &m, gravity, 1e-8, 50, u, &st), 1);
    const double exact = tip_sag(a, NULL, u, 1.0);

    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_IMPLICIT_PCG;
    d.substeps = 1;
    d.implicit.tolerance = 1e-6f;
    d.implicit.max_pcg_iterations = 200;
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    float *xyz = malloc(3 * sizeof *xyz * a->particle_count);
    double sag = 0.0, last = INFINITY;
    int steps = 0, rested = 0;
    for (; steps < 300 && !rested; steps++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
        if ((steps + 1) % 10 == 0) {
            cr_assert_eq(sinew_body_read_positions(b, xyz, a->particle_count), SINEW_RESULT_OK);
            sag = tip_sag(a, xyz, NULL, 1.0);
            rested = fabs(sag - last) < 1e-4 * fabs(sag);
            last = sag;
        }
    }
    const sinew_step_stats s = sinew_body_get_stats(b);
    cr_log_info("cantilever: tip sag %.6f m after %d steps, exact %.6f m (%+.3f %%); last step %u PCG iterations, "
                "residual %.2e", sag, steps, exact, 100.0 * (sag / exact - 1.0), (unsigned)s.linear_iterations,
                s.residual);
    cr_expect(rested, "still moving after %d steps", steps);
    cr_expect(fabs(sag / exact - 1.0) < 5e-3, "tip sag %g m, exact %g m", sag, exact);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
    free(u);
    free(xyz);
}

/* What an implicit body of tetrahedra refuses: the multigrid (its levels are
 * a cloth's). */
Test(implicit_solid, refusals)
{
    const double size[3] = {0.3, 0.2, 0.2}, centre[3] = {0.0, 0.0, 0.0};
    sinew_asset *a = box(3, 3, 3, size, centre, SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 1e6, -INFINITY);
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_IMPLICIT_MG;
    sinew_body *b = NULL;
    gpu_log_clear();
    cr_expect_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect_null(b);
    cr_expect(strstr(gpu_log_text(), "SINEW_SOLVER_IMPLICIT_PCG") != NULL, "%s", gpu_log_text());
    gpu_log_clear();
    sinew_asset_destroy(a);
}

/* A soft block landing on the ground with the implicit solver: a checkpoint
 * taken mid-fall and loaded into a new body continues bit for bit, and the
 * block ends whole (no tetrahedron inverted). */
Test(implicit_solid, checkpoint_continues_bit_for_bit)
{
    const double size[3] = {0.3, 0.3, 0.3}, centre[3] = {0.0, 0.3, 0.0};
    sinew_asset *a = box(4, 4, 4, size, centre, SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 1e5, -INFINITY);
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_IMPLICIT_PCG;
    d.substeps = 1;
    d.implicit.max_pcg_iterations = 50;
    d.health_check = 1;
    sinew_body *b, *c;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &c), SINEW_RESULT_OK, "%s", gpu_log_text());
    const sinew_step_params p = sinew_step_params_default(); /* the ground at y = 0 */
    for (int k = 0; k < 10; k++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
    const size_t bytes = sinew_body_checkpoint_size(b);
    void *saved = malloc(bytes);
    cr_assert_eq(sinew_body_save_checkpoint(b, saved, bytes), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_load_checkpoint(c, saved, bytes), SINEW_RESULT_OK, "%s", gpu_log_text());
    uint64_t hb = 0, hc = 1;
    for (int k = 0; k < 30; k++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
        cr_assert_eq(sinew_body_step(c, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
    }
    cr_assert_eq(sinew_body_state_hash(b, &hb), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_state_hash(c, &hc), SINEW_RESULT_OK);
    cr_expect_eq(hb, hc, "the loaded body parted from the saved one");
    const sinew_step_stats s = sinew_body_get_stats(b);
    float lowest = INFINITY;
    float *xyz = malloc(3 * sizeof *xyz * a->particle_count);
    cr_assert_eq(sinew_body_read_positions(b, xyz, a->particle_count), SINEW_RESULT_OK);
    for (uint32_t i = 0; i < a->particle_count; i++)
        lowest = fminf(lowest, xyz[3 * i + 1]);
    cr_log_info("block after 40 steps: lowest particle at %.4f m, %u tetrahedra inverted, volume error %.3g, "
                "%u PCG iterations in the last step", lowest, s.inverted_elements, s.max_volume_error,
                (unsigned)s.linear_iterations);
    cr_expect_eq(s.inverted_elements, 0u);
    cr_expect(lowest > -0.01f, "the block sank to %g m", lowest);
    free(saved);
    free(xyz);
    sinew_body_destroy(b);
    sinew_body_destroy(c);
    sinew_asset_destroy(a);
}
