/* Materials mean what they say: at small strain, neo-Hookean and stable
 * neo-Hookean made from the same Young's modulus and Poisson's ratio deform
 * as linear elasticity does, at rest (static equilibria of the CPU reference,
 * tests/ref/fem_ref.c) and as GPBD bodies come to rest on the device. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu/gpu.h"
#include "gpu_fixture.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "ref/fem_ref.h"
#include "solvers/gpbd.h"

/* A cantilever 0.4 x 0.1 x 0.1 m along x, vertices 9 x 3 x 3, clamped at
 * x = -0.2, loaded by its weight (1000 kg/m^3, lumped per tetrahedron). */
typedef struct beam {
    sinew_volume v;
    double *force;
    unsigned char *pinned;
} beam;

static beam make_beam(uint32_t nx, uint32_t ny)
{
    beam b = {0};
    const double size[3] = {0.4, 0.1, 0.1};
    cr_assert_eq(sinew_volume_box(nx, ny, ny, size, NULL, &b.v), SINEW_RESULT_OK);
    b.force = calloc(3 * b.v.vertex_count, sizeof *b.force);
    b.pinned = calloc(b.v.vertex_count, 1);
    for (uint32_t t = 0; t < b.v.tet_count; t++) {
        const uint32_t *q = &b.v.tets[4 * t];
        double w = 1000.0 * 9.81 *
                   sinew_tet_signed_volume(&b.v.positions[3 * q[0]], &b.v.positions[3 * q[1]],
                                           &b.v.positions[3 * q[2]], &b.v.positions[3 * q[3]]);
        cr_assert(w > 0.0);
        for (int k = 0; k < 4; k++)
            b.force[3 * q[k] + 1] -= w / 4.0;
    }
    for (uint32_t i = 0; i < b.v.vertex_count; i++)
        b.pinned[i] = b.v.positions[3 * i] < -0.2 + 1e-9;
    return b;
}

static void free_beam(beam *b)
{
    sinew_volume_free(&b->v);
    free(b->force);
    free(b->pinned);
}

/* The static displacement of the beam made of m. */
static double *rest_displacement(const beam *b, fem_ref_material m)
{
    fem_ref_problem p = {b->v.vertex_count, b->v.positions, b->v.tet_count, b->v.tets, &m, NULL, b->force, b->pinned};
    const uint32_t n3 = 3 * b->v.vertex_count;
    double *x = malloc(n3 * sizeof *x);
    memcpy(x, b->v.positions, n3 * sizeof *x);
    fem_ref_stats st;
    cr_assert_eq(fem_ref_solve(&p, 1e-8, 50, x, &st), 1, "static solve: net force %g of %g after %d Newton steps",
                 st.gradient, st.gradient0, st.newton_iterations);
    for (uint32_t k = 0; k < n3; k++)
        x[k] -= b->v.positions[k];
    return x;
}

static double norm(const double *a, uint32_t n)
{
    double s = 0.0;
    for (uint32_t k = 0; k < n; k++)
        s += a[k] * a[k];
    return sqrt(s);
}

/* |a - b| / |b| over the whole displacement field. */
static double field_difference(const double *a, const double *b, uint32_t n)
{
    double d = 0.0;
    for (uint32_t k = 0; k < n; k++)
        d += (a[k] - b[k]) * (a[k] - b[k]);
    return sqrt(d) / norm(b, n);
}

static fem_ref_material device_material(sinew_material_model model, double E, double nu)
{
    sinew_material m = sinew_material_make(model, (float)E, (float)nu);
    GpuMaterial g = sinew_gpbd_material(&m);
    return fem_ref_material_device(&g);
}

/* The static reference itself: linear elasticity's equilibrium satisfies its
 * linear system in one Newton step, and the cantilever's tip deflection is
 * within the beam theory's (Timoshenko, shear included) of a coarse mesh. */
Test(elasticity, static_reference_converges)
{
    beam b = make_beam(9, 3);
    fem_ref_material lin = fem_ref_material_linear(1e8, 0.3);
    fem_ref_problem p = {b.v.vertex_count, b.v.positions, b.v.tet_count, b.v.tets, &lin, NULL, b.force, b.pinned};
    double *x = malloc(3 * sizeof *x * b.v.vertex_count);
    memcpy(x, b.v.positions, 3 * sizeof *x * b.v.vertex_count);
    fem_ref_stats st;
    cr_assert_eq(fem_ref_solve(&p, 1e-8, 50, x, &st), 1);
    cr_log_info("linear: %d Newton steps, %d CG iterations, net force %.3g of %.3g N", st.newton_iterations,
                st.cg_iterations, st.gradient, st.gradient0);
    cr_assert(st.newton_iterations <= 4, "%d Newton steps for a quadratic energy (CG to 1e-2 of the net force, then 1e-4...)", st.newton_iterations);
    double tip = 0.0;
    for (uint32_t i = 0; i < b.v.vertex_count; i++)
        if (b.v.positions[3 * i] > 0.2 - 1e-9)
            tip = fmin(tip, x[3 * i + 1] - b.v.positions[3 * i + 1]);
    /* Euler-Bernoulli q L^4 / (8 E I); linear tetrahedra on so coarse a mesh
     * are stiffer (shear locking), never softer. */
    const double q = 1000.0 * 9.81 * 0.01, I = pow(0.1, 4) / 12.0, beam_theory = q * pow(0.4, 4) / (8.0 * 1e8 * I);
    cr_log_info("tip deflection %.4g m, beam theory %.4g m", -tip, beam_theory);
    cr_assert(-tip > 0.2 * beam_theory && -tip < 1.05 * beam_theory, "tip %g against %g", -tip, beam_theory);
    free(x);
    free_beam(&b);
}

/* Under the same small load (strains about 1e-5), neo-Hookean and stable
 * neo-Hookean of the same E and nu come to rest within 2 % of each other
 * and of linear elasticity, for nu from 0 to 0.45. With the Lame parameters
 * used as given (no reparameterisation), stable neo-Hookean parts from them
 * by far more: the test can tell. */
Test(elasticity, small_strain_models_agree_with_linear_elasticity)
{
    beam b = make_beam(9, 3);
    const uint32_t n3 = 3 * b.v.vertex_count;
    const double E = 1e8, nus[] = {0.0, 0.3, 0.45};
    for (size_t k = 0; k < sizeof nus / sizeof nus[0]; k++) {
        const double nu = nus[k];
        double *lin = rest_displacement(&b, fem_ref_material_linear(E, nu));
        double *nh = rest_displacement(&b, device_material(SINEW_MATERIAL_NEO_HOOKEAN, E, nu));
        double *snh = rest_displacement(&b, device_material(SINEW_MATERIAL_STABLE_NEO_HOOKEAN, E, nu));
        /* the Lame parameters as given */
        fem_ref_material raw = fem_ref_material_linear(E, nu);
        raw.model = FEM_REF_STABLE_NEO_HOOKEAN;
        raw.a = 1.0 + 3.0 * raw.mu / (4.0 * raw.lambda);
        double *as_given = nu > 0.0 ? rest_displacement(&b, raw) : NULL;
        double d_nh = field_difference(nh, lin, n3), d_snh = field_difference(snh, lin, n3),
               d_pair = field_difference(snh, nh, n3), d_raw = as_given ? field_difference(as_given, lin, n3) : NAN;
        cr_log_info("nu %.2f: |u| %.4g m; neo-Hookean %.3g, stable neo-Hookean %.3g from linear, %.3g apart; "
                    "Lame parameters as given %.3g",
                    nu, norm(lin, n3), d_nh, d_snh, d_pair, d_raw);
        cr_assert(d_nh < 0.02 && d_snh < 0.02 && d_pair < 0.02, "nu %g: %g, %g, %g", nu, d_nh, d_snh, d_pair);
        cr_assert(!as_given || d_raw > 0.1, "nu %g: the Lame parameters as given part by only %g", nu, d_raw);
        free(lin), free(nh), free(snh), free(as_given);
    }
    free_beam(&b);
}

/* ------------------------------------------------------------ on the device */

TestSuite(elasticity_gpu, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

/* The beam as a soft asset, clamped at x = -0.2. */
static sinew_asset *beam_asset(sinew_material_model model, double E, double nu)
{
    beam b = make_beam(9, 3);
    sinew_soft_options o = sinew_soft_options_default();
    o.model = model;
    o.youngs_modulus = E;
    o.poisson_ratio = nu;
    o.pin_box = 1;
    const double lo[3] = {-1.0, -1.0, -1.0}, hi[3] = {-0.2 + 1e-6, 1.0, 1.0};
    memcpy(o.box_min, lo, sizeof lo);
    memcpy(o.box_max, hi, sizeof hi);
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_soft_build(&b.v, &o, gpu_logger(), &a, NULL), SINEW_RESULT_OK, "%s", gpu_log_text());
    free_beam(&b);
    return a;
}

/* The static equilibrium of the asset's own body: its particles, elements,
 * pins and masses under gravity, the material as the device holds it.
 * Returns the displacement from rest. */
static double *asset_rest_displacement(const sinew_asset *a, const sinew_body_desc *d)
{
    GpuMaterial g = sinew_gpbd_material(d->materials ? &d->materials[0] : &a->materials[0]);
    fem_ref_material m = fem_ref_material_device(&g);
    const double gravity[3] = {0.0, -9.81, 0.0};
    double *u = malloc(3 * sizeof *u * a->particle_count);
    fem_ref_stats st;
    cr_assert_eq(fem_ref_asset_displacement(a, &m, gravity, 1e-8, 50, u, &st), 1);
    return u;
}

/* The beam as a GPBD body after `steps` steps of 8 substeps x iterations:
 * its displacement, and the step's residual into *residual. */
static double *gpbd_displacement(const sinew_asset *a, sinew_solver solver, uint32_t iterations, int steps,
                                 float *residual)
{
    const uint32_t n3 = 3 * a->particle_count;
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = solver;
    d.substeps = 8;
    d.iterations = iterations;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.damping = 20.0f;
    for (int s = 0; s < steps; s++)
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
    float *xyz = malloc(n3 * sizeof *xyz);
    cr_assert_eq(sinew_body_read_positions(body, xyz, a->particle_count), SINEW_RESULT_OK);
    double *u = malloc(n3 * sizeof *u);
    for (uint32_t i = 0; i < a->particle_count; i++)
        for (int c = 0; c < 3; c++)
            u[3 * i + c] = (double)xyz[3 * i + c] - (&a->particles[i].x)[c];
    *residual = sinew_body_get_stats(body).residual;
    free(xyz);
    sinew_body_destroy(body);
    return u;
}

/* GPBD's residual (docs/math.md 9) tells a body resting in the wrong place:
 * a stiff beam (E 20 MPa) at 8 substeps of 1, 4 and 16 iterations comes to
 * rest farther from its static equilibrium the fewer the iterations, and the
 * residual says so, falling with the error. */
Test(elasticity_gpu, gpbd_residual_falls_with_the_error)
{
    sinew_asset *a = beam_asset(SINEW_MATERIAL_NEO_HOOKEAN, 2e7, 0.3);
    sinew_body_desc d = sinew_body_desc_default();
    double *ref = asset_rest_displacement(a, &d);
    const uint32_t n3 = 3 * a->particle_count;
    const sinew_solver solvers[2] = {SINEW_SOLVER_GPBD_GAUSS_SEIDEL, SINEW_SOLVER_GPBD_JACOBI};
    for (int k = 0; k < 2; k++) {
        double prev_error = INFINITY;
        float prev = INFINITY;
        for (uint32_t it = 1; it <= 16; it *= 4) {
            float res;
            double *u = gpbd_displacement(a, solvers[k], it, 40, &res);
            double error = field_difference(u, ref, n3);
            cr_log_info("%s, 8 x %2u: %.3g from the equilibrium, residual %.3g", k ? "Jacobi" : "Gauss-Seidel", it,
                        error, res);
            cr_assert(res > 0.0f && isfinite(res), "residual %g", res);
            cr_assert_lt(res, prev, "%u iterations should lower the residual", it);
            cr_assert_lt(error, prev_error, "%u iterations should come nearer the equilibrium", it);
            prev = res, prev_error = error;
            free(u);
        }
    }
    free(ref);
    sinew_asset_destroy(a);
}

/* GPBD bodies of either model come to rest under their weight: the same
 * material parameters give the same sag, within 2 % of each other, and each
 * near its own static equilibrium. */
Test(elasticity_gpu, gpbd_models_rest_alike)
{
    const double E = 1e6, nu = 0.3;
    const sinew_material_model models[2] = {SINEW_MATERIAL_NEO_HOOKEAN, SINEW_MATERIAL_STABLE_NEO_HOOKEAN};
    double *u[2] = {NULL, NULL};
    uint32_t n3 = 0;
    for (int k = 0; k < 2; k++) {
        sinew_asset *a = beam_asset(models[k], E, nu);
        n3 = 3 * a->particle_count;
        sinew_body_desc d = sinew_body_desc_default();
        d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
        d.substeps = 8;
        d.iterations = 8;
        sinew_body *body;
        cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK, "%s", gpu_log_text());
        sinew_step_params p = sinew_step_params_default();
        p.ground = 0;
        p.damping = 20.0f;
        for (int s = 0; s < 60; s++)
            cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK);
        float *xyz = malloc(n3 * sizeof *xyz);
        cr_assert_eq(sinew_body_read_positions(body, xyz, a->particle_count), SINEW_RESULT_OK);
        u[k] = malloc(n3 * sizeof *u[k]);
        const float *rest = &a->particles[0].x;
        for (uint32_t i = 0; i < a->particle_count; i++)
            for (int c = 0; c < 3; c++)
                u[k][3 * i + c] = (double)xyz[3 * i + c] - rest[4 * i + c];
        double *ref = asset_rest_displacement(a, &d);
        double off = field_difference(u[k], ref, n3);
        cr_log_info("%s: |u| %.4g m on the device, %.4g m at static equilibrium, %.3g apart", k ? "stable neo-Hookean" : "neo-Hookean",
                    norm(u[k], n3), norm(ref, n3), off);
        cr_assert(off < 0.1, "%s rests %g from its equilibrium", k ? "stable neo-Hookean" : "neo-Hookean", off);
        free(ref), free(xyz);
        sinew_body_destroy(body);
        sinew_asset_destroy(a);
    }
    double apart = field_difference(u[1], u[0], n3);
    cr_log_info("stable neo-Hookean and neo-Hookean rest %.3g apart", apart);
    cr_assert(apart < 0.02, "%g apart", apart);
    free(u[0]), free(u[1]);
}
