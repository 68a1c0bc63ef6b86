/* Implicit solids (SINEW_SOLVER_IMPLICIT_PCG on an asset of tetrahedra;
 * docs/implicit.md, "Solids" and "Integrators"): each tetrahedron's
 * stiffness is its energy's Hessian made positive semi-definite, and its
 * damping's that without the element's rotations, checked against the long
 * way round (tests/ref/fem_ref.c: central differences of the stress and a
 * full eigen-decomposition), with the forces in the right-hand side; a
 * cantilever comes to rest on the exact static equilibrium; a tumbling
 * block keeps its momenta and follows the CPU reference of its integrator
 * (tests/ref/imc_solid_ref.c); what the solver refuses. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_struct.h"
#include "gpu_fixture.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "ref/fem_ref.h"
#include "ref/imc_solid_ref.h"
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

/* The GPU's assembled A = M + h^2 K + h beta K_d and right-hand side
 * h^2 (f + M g) of a free block at rest stretched, sheared and jittered,
 * against the CPU's from the projected Hessian K and the damping's K_d
 * (the projected Hessian without the elements' rotations). */
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
    const double stiff = (double)h * h, damp = h * unused.damping;
    int clamped = 0;
    for (uint32_t e = 0; e < t; e++) {
        const sinew_element_rec *el = &a->elements[e];
        double r[4][3], F[9] = {0}, H[81], Hd[81];
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
        fem_ref_damping_hessian(&m, F, Hd);
        for (int qa = 0; qa < 4; qa++)
            for (int qb = 0; qb < 4; qb++) {
                uint32_t b = row[el->v[qa]];
                while (col[b] != el->v[qb])
                    b++;
                for (int d = 0; d < 3; d++)     /* row: vertex qa's component d */
                    for (int c = 0; c < 3; c++) /* column: vertex qb's component c */
                        for (int j = 0; j < 3; j++)
                            for (int l = 0; l < 3; l++)
                                cpu[9 * b + 3 * d + c] += el->rest_measure *
                                                          (stiff * H[9 * (3 * j + d) + 3 * l + c] +
                                                           damp * Hd[9 * (3 * j + d) + 3 * l + c]) *
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

/* A free block, 0.4 x 0.3 x 0.2 m of 4 x 4 x 4 vertices (stable neo-Hookean,
 * E 1e5 Pa, nu 0.3, 1000 kg/m^3), spun at (2, 3, 1) rad/s about its centre,
 * an axis along none of its symmetry axes, and moving at 0.1 m/s: no
 * gravity, no ground. */
static const double spin[3] = {2.0, 3.0, 1.0}, drift[3] = {0.1, 0.0, 0.0};

static sinew_asset *tumbling_block(void)
{
    const double size[3] = {0.4, 0.3, 0.2}, centre[3] = {0.0, 0.0, 0.0};
    return box(4, 4, 4, size, centre, SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 1e5, -INFINITY);
}

/* v = drift + spin x (x - centre) at the asset's positions, into v (3n). */
static void tumbling_velocities(const sinew_asset *a, double *v)
{
    double c[3] = {0, 0, 0}, mass = 0.0;
    for (uint32_t i = 0; i < a->particle_count; i++) {
        const sinew_particle_rec *p = &a->particles[i];
        c[0] += p->x / p->w, c[1] += p->y / p->w, c[2] += p->z / p->w;
        mass += 1.0 / p->w;
    }
    for (int k = 0; k < 3; k++)
        c[k] /= mass;
    for (uint32_t i = 0; i < a->particle_count; i++) {
        const sinew_particle_rec *p = &a->particles[i];
        const double d[3] = {p->x - c[0], p->y - c[1], p->z - c[2]};
        v[3 * i] = drift[0] + spin[1] * d[2] - spin[2] * d[1];
        v[3 * i + 1] = drift[1] + spin[2] * d[0] - spin[0] * d[2];
        v[3 * i + 2] = drift[2] + spin[0] * d[1] - spin[1] * d[0];
    }
}

/* The body's velocities set (no call of the API sets them: the body's VEL
 * buffer directly). */
static void set_velocities(sinew_body *b, const double *v, uint32_t n)
{
    float *buf = calloc(4 * (size_t)n, sizeof *buf);
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            buf[4 * i + k] = (float)v[3 * i + k];
    cr_assert_eq(sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_VEL], 0, buf, 16ull * n), SINEW_RESULT_OK);
    free(buf);
}

/* The body's state in double, and its momenta (imc_solid_momenta). */
static void body_momenta(sinew_body *b, const sinew_asset *a, double p[3], double L[3])
{
    const uint32_t n = a->particle_count;
    float *xf = malloc(sizeof *xf * 3 * n), *vf = malloc(sizeof *vf * 3 * n);
    double *x = malloc(sizeof *x * 3 * n), *v = malloc(sizeof *v * 3 * n), *w = malloc(sizeof *w * n);
    cr_assert_eq(sinew_body_read_positions(b, xf, n), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_velocities(b, vf, n), SINEW_RESULT_OK);
    for (uint32_t k = 0; k < 3 * n; k++)
        x[k] = xf[k], v[k] = vf[k];
    for (uint32_t i = 0; i < n; i++)
        w[i] = a->particles[i].w;
    imc_solid_momenta(n, x, v, w, p, L);
    free(xf), free(vf), free(x), free(v), free(w);
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* |L(1 s)| / |L(0)| of the tumbling block with the implicit solver at dt
 * 1/60 s, the desc's defaults but the integrator (bdf2) and substeps;
 * the linear momentum's change relative to its start into *dp. */
static double angular_kept(const sinew_asset *a, int bdf2, uint32_t substeps, double *dp)
{
    const uint32_t n = a->particle_count;
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_IMPLICIT_PCG;
    d.substeps = substeps;
    d.implicit.bdf2 = bdf2;
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    double *v = malloc(sizeof *v * 3 * n);
    tumbling_velocities(a, v);
    set_velocities(b, v, n);
    double p0[3], L0[3], p[3], L[3];
    body_momenta(b, a, p0, L0);
    sinew_step_params sp = sinew_step_params_default();
    sp.ground = 0;
    sp.gravity[1] = 0.0f;
    for (int s = 0; s < 60; s++)
        cr_assert_eq(sinew_body_step(b, &sp), SINEW_RESULT_OK, "%s", gpu_log_text());
    body_momenta(b, a, p, L);
    const double change[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]};
    *dp = norm3(change) / norm3(p0);
    const sinew_step_stats st = sinew_body_get_stats(b);
    cr_expect_eq(st.inverted_elements, 0u);
    sinew_body_destroy(b);
    free(v);
    return norm3(L) / norm3(L0);
}

/* The measure: a free tumbling block keeps its angular momentum
 * through a second at dt 1/60 s, one substep, with the desc's defaults
 * (BDF2 for a solid, Rayleigh damping 0.01 s without the elements'
 * rotations), and its linear momentum; backward Euler keeps less, and more
 * with substeps. */
Test(implicit_solid, tumbling_block_keeps_its_momenta)
{
    sinew_asset *a = tumbling_block();
    double dp_default, dp_be, dp_be8;
    const double kept = angular_kept(a, SINEW_IMPLICIT_BDF2_AUTO, 1, &dp_default);
    const double be = angular_kept(a, 0, 1, &dp_be), be8 = angular_kept(a, 0, 8, &dp_be8);
    cr_log_info("tumbling block, 1 s at dt 1/60 s: |L| kept %.4f by default (BDF2), backward Euler %.4f, with 8 "
                "substeps %.4f; linear momentum changed by %.1e, %.1e, %.1e of itself",
                kept, be, be8, dp_default, dp_be, dp_be8);
    cr_expect(kept >= 0.9, "the default kept %.3f of its angular momentum", kept);
    cr_expect(kept <= 1.01, "the default gained angular momentum: %.3f", kept);
    cr_expect(be < kept && be < be8, "backward Euler %.3f, with 8 substeps %.3f, BDF2 %.3f", be, be8, kept);
    cr_expect(dp_default < 1e-4 && dp_be < 1e-4 && dp_be8 < 1e-4, "linear momentum changed by %g, %g, %g",
              dp_default, dp_be, dp_be8);
    sinew_asset_destroy(a);
}

/* The device's step against the CPU double reference of the same
 * integrator (imc_solid_ref: one Newton step a step, linearised at
 * x + h v, Rayleigh damping without rotations), the tumbling block with
 * damping 0.05 s, both solved tightly: 10 steps of BDF2 (the first backward
 * Euler) and of backward Euler stay within a small fraction of the motion. */
static void follows_reference(int bdf2)
{
    sinew_asset *a = tumbling_block();
    const uint32_t n = a->particle_count;
    GpuMaterial gm = sinew_gpbd_material(&a->materials[0]);
    fem_ref_material m = fem_ref_material_device(&gm);
    imc_solid_ref *ref = imc_solid_ref_create(a, &m);
    cr_assert_not_null(ref);
    const double beta = 0.05;
    imc_solid_options o = {bdf2 ? IMC_SOLID_BDF2 : IMC_SOLID_BACKWARD_EULER, beta, 1e-10, 0, 1, 0, 1, 0};
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_IMPLICIT_PCG;
    d.substeps = 1;
    d.implicit.bdf2 = bdf2;
    d.implicit.damping = (float)beta;
    d.implicit.tolerance = 1e-6f;
    d.implicit.max_pcg_iterations = 300;
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    double *v = imc_solid_ref_velocities(ref), *x = imc_solid_ref_positions(ref);
    tumbling_velocities(a, v);
    for (uint32_t k = 0; k < 3 * n; k++) /* the device's start, in float */
        v[k] = (float)v[k];
    set_velocities(b, v, n);
    double *x0 = malloc(sizeof *x0 * 3 * n);
    memcpy(x0, x, sizeof *x0 * 3 * n);
    sinew_step_params sp = sinew_step_params_default();
    sp.ground = 0;
    sp.gravity[1] = 0.0f;
    const double g[3] = {0.0, 0.0, 0.0};
    float *xf = malloc(sizeof *xf * 3 * n), *vf = malloc(sizeof *vf * 3 * n);
    double worst = 0.0, worst_v = 0.0, moved = 0.0, speed = 0.0;
    for (int s = 0; s < 10; s++) {
        imc_solid_ref_step(ref, sp.dt, g, &o, NULL);
        cr_assert_eq(sinew_body_step(b, &sp), SINEW_RESULT_OK, "%s", gpu_log_text());
        cr_assert_eq(sinew_body_read_positions(b, xf, n), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_read_velocities(b, vf, n), SINEW_RESULT_OK);
        for (uint32_t k = 0; k < 3 * n; k++) {
            worst = fmax(worst, fabs(xf[k] - x[k]));
            worst_v = fmax(worst_v, fabs(vf[k] - v[k]));
            moved = fmax(moved, fabs(x[k] - x0[k]));
            speed = fmax(speed, fabs(v[k]));
        }
    }
    cr_log_info("%s, 10 steps of the tumbling block: positions within %.2e m of the reference's (largest "
                "motion %.3f m), velocities within %.2e m/s (largest %.3f m/s)",
                bdf2 ? "BDF2" : "backward Euler", worst, moved, worst_v, speed);
    cr_expect_gt(moved, 0.05);
    cr_expect_lt(worst, 1e-3 * moved, "positions parted by %g m in a motion of %g m", worst, moved);
    cr_expect_lt(worst_v, 1e-2 * speed, "velocities parted by %g m/s of %g m/s", worst_v, speed);
    sinew_body_destroy(b);
    imc_solid_ref_destroy(ref);
    sinew_asset_destroy(a);
    free(x0), free(xf), free(vf);
}

Test(implicit_solid, bdf2_follows_the_reference) { follows_reference(1); }
Test(implicit_solid, backward_euler_follows_the_reference) { follows_reference(0); }
