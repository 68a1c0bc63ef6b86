/* Bodies far from the world's origin (desc.origin, sinew_body_shift_origin):
 * a cloth on a sphere, a soft block landing, a cantilever and an implicit
 * cloth come to the same shape 10 km away as at home, and after their
 * frames are shifted mid-run; the naive way (world coordinates in floats)
 * does not. A block spinning freely 1 m up keeps its momentum when its
 * asset's origin puts it there, and sinks from float rounding when its
 * positions do. Bodies take their asset's origin plus desc.origin, and a
 * world's bodies share one. On lavapipe with validation. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sinew/prep.h>
#include <sinew/world.h>

#include "asset/asset.h"
#include "body.h"
#include "gpu_fixture.h"
#include "prep/soft.h"
#include "prep/volume.h"

TestSuite(origin, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

enum { CLOTH, BLOCK, CANTILEVER, IMPLICIT, SCENES };
static const char *scene_name[SCENES] = {"cloth on a sphere", "soft block landing", "cantilever", "implicit cloth"};
static const double far_away[3] = {1e4, 0.0, -1e4};
static const int steps = 40;

static sinew_asset *cantilever(void)
{
    sinew_volume v;
    const double size[3] = {0.4, 0.1, 0.1}, centre[3] = {0.0, 0.5, 0.0};
    cr_assert_eq(sinew_volume_box(9, 3, 3, size, centre, &v), SINEW_RESULT_OK);
    sinew_soft_options o = sinew_soft_options_default();
    o.youngs_modulus = 1e6;
    o.pin_box = 1;
    const double lo[3] = {-1.0, -1.0, -1.0}, hi[3] = {-0.2 + 1e-6, 2.0, 1.0};
    memcpy(o.box_min, lo, sizeof lo);
    memcpy(o.box_max, hi, sizeof hi);
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_soft_build(&v, &o, gpu_logger(), &a, NULL), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_volume_free(&v);
    return a;
}

static sinew_asset *make_scene(int scene)
{
    switch (scene) {
    case CLOTH: return gpu_make_cloth(16, 16, 0.6, 0.8, 1);
    case BLOCK: return gpu_make_solver_asset(SINEW_SOLVER_GPBD_GAUSS_SEIDEL);
    case CANTILEVER: return cantilever();
    default: return gpu_make_solver_asset(SINEW_SOLVER_IMPLICIT_MG);
    }
}

static sinew_body_desc scene_desc(int scene)
{
    sinew_body_desc d = sinew_body_desc_default();
    if (scene == BLOCK || scene == CANTILEVER)
        d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    if (scene == IMPLICIT)
        d.solver = SINEW_SOLVER_IMPLICIT_MG;
    return d;
}

/* The step parameters of the scene placed at `at` in the world (its ground
 * at height at[1], its sphere at at + c), seen from a body frame whose
 * origin is `origin`. */
static sinew_step_params scene_params(int scene, const double at[3], const double origin[3])
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = scene != CANTILEVER;
    p.ground_height = (float)(at[1] - origin[1]);
    if (scene == CLOTH || scene == IMPLICIT) {
        p.sphere = 1;
        const double c[3] = {0.1, 0.45, 0.05};
        for (int k = 0; k < 3; k++)
            p.sphere_center[k] = (float)(at[k] + c[k] - origin[k]);
        p.sphere_radius = 0.2f;
    }
    return p;
}

/* How a run places the scene. */
typedef enum placement {
    HOME,      /* origin 0, coordinates as built */
    FAR,       /* desc.origin far away, coordinates as built */
    NAIVE,     /* origin 0, the asset and the parameters moved far away in floats */
    SHIFTED,   /* origin 0, shifted by `shift` halfway through */
} placement;

static const double shift[3] = {0.37, -0.21, 0.55};

/* The world positions (double, 3 per particle) after the run. */
static double *run(int scene, placement how, uint32_t *count)
{
    sinew_asset *a = make_scene(scene);
    const uint32_t n = a->particle_count;
    if (how == NAIVE)
        for (uint32_t i = 0; i < n; i++) {
            a->particles[i].x = (float)(a->particles[i].x + far_away[0]);
            a->particles[i].y = (float)(a->particles[i].y + far_away[1]);
            a->particles[i].z = (float)(a->particles[i].z + far_away[2]);
        }
    sinew_body_desc d = scene_desc(scene);
    if (how == FAR)
        memcpy(d.origin, far_away, sizeof d.origin);
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &body), SINEW_RESULT_OK, "%s", gpu_log_text());
    const double home[3] = {0, 0, 0};
    const double *at = how == FAR || how == NAIVE ? far_away : home; /* where the scene is */
    for (int s = 0; s < steps; s++) {
        if (how == SHIFTED && s == steps / 2)
            cr_assert_eq(sinew_body_shift_origin(body, shift), SINEW_RESULT_OK);
        double origin[3];
        sinew_body_get_origin(body, origin);
        sinew_step_params p = scene_params(scene, at, origin);
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "%s, step %d: %s", scene_name[scene], s,
                     gpu_log_text());
    }
    float *x = malloc(sizeof *x * 3 * n);
    cr_assert_eq(sinew_body_read_positions(body, x, n), SINEW_RESULT_OK);
    double origin[3], *world = malloc(sizeof *world * 3 * n);
    sinew_body_get_origin(body, origin);
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            world[3 * i + k] = origin[k] + x[3 * i + k] - (how == FAR || how == NAIVE ? far_away[k] : 0.0);
    free(x);
    sinew_body_destroy(body);
    sinew_asset_destroy(a);
    *count = n;
    return world;
}

/* Largest distance between two runs' particles, and the home run's largest
 * displacement from the rest shape. */
static double largest_gap(const double *a, const double *b, uint32_t n)
{
    double g = 0.0;
    for (uint32_t i = 0; i < 3 * n; i++)
        g = fmax(g, fabs(a[i] - b[i]));
    return g;
}

static double displacement(int scene, const double *x)
{
    sinew_asset *a = make_scene(scene);
    double most = 0.0;
    for (uint32_t i = 0; i < a->particle_count; i++) {
        const double d[3] = {x[3 * i] - a->particles[i].x, x[3 * i + 1] - a->particles[i].y,
                             x[3 * i + 2] - a->particles[i].z};
        most = fmax(most, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    sinew_asset_destroy(a);
    return most;
}

/* 10 km away through desc.origin the run is the home run, the same floats
 * in its own frame. Shifted halfway by (0.37, -0.21, 0.55) m, it ends within
 * 1e-3 of the displacement (measured 1.0 to 1.7e-4: the shift rounds each
 * position once, by about 3e-8 m, and the dynamics grow that). Moved 10 km
 * away in float world coordinates instead, the scenes do not rest alike (19
 * to 98 % of the displacement apart): at 10 km a float resolves 1 mm, more
 * than a substep's fall. */
Test(origin, far_away_rests_as_at_home)
{
    for (int scene = 0; scene < SCENES; scene++) {
        uint32_t n;
        double *home = run(scene, HOME, &n), *far = run(scene, FAR, &n), *shifted = run(scene, SHIFTED, &n),
               *naive = run(scene, NAIVE, &n);
        const double moved = displacement(scene, home);
        const double far_gap = largest_gap(home, far, n), shift_gap = largest_gap(home, shifted, n),
                     naive_gap = largest_gap(home, naive, n);
        cr_log_info("%s: displacement %.4g m; 10 km away by origin %.3g m apart, shifted %.3g, in float world "
                    "coordinates %.3g", scene_name[scene], moved, far_gap, shift_gap, naive_gap);
        cr_assert_gt(moved, 1e-3, "%s barely moved", scene_name[scene]);
        /* the same floats in the body's frame; 1e-9 m: the double sums that
         * take them to the world and back at 10 km */
        cr_expect_leq(far_gap, 1e-9, "%s: %g m apart", scene_name[scene], far_gap);
        cr_expect_leq(shift_gap, 1e-3 * moved, "%s shifted: %g m apart", scene_name[scene], shift_gap);
        cr_expect_gt(naive_gap, 1e-2 * moved, "%s in float world coordinates: only %g m apart", scene_name[scene],
                     naive_gap);
        free(home), free(far), free(shifted), free(naive);
    }
}

/* Bodies in contact share a frame: one shifted alone steps no more (the
 * step refused, naming both), both shifted alike step again; a shift that
 * is not finite or too large is refused and changes nothing. */
Test(origin, contact_bodies_shift_together_and_bad_shifts_are_refused)
{
    sinew_asset *a = gpu_make_cloth(8, 8, 0.5, 0.6, 1), *b = gpu_make_cloth(8, 8, 0.5, 0.4, 1);
    sinew_body_desc d = sinew_body_desc_default();
    d.name = "upper";
    sinew_body *upper, *lower;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &upper), SINEW_RESULT_OK);
    d.name = "lower";
    cr_assert_eq(sinew_body_create(gpu_ctx, b, &d, &lower), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_set_contact_bodies(upper, &lower, 1), SINEW_RESULT_OK);
    sinew_step_params p = sinew_step_params_default();
    cr_assert_eq(sinew_body_step(upper, &p), SINEW_RESULT_OK);
    const double by[3] = {1.0, 0.0, 0.0};
    cr_assert_eq(sinew_body_shift_origin(upper, by), SINEW_RESULT_OK);
    gpu_log_clear();
    cr_assert_eq(sinew_body_step(upper, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("must share an origin") && gpu_log_contains("'lower'"), "%s", gpu_log_text());
    cr_assert_eq(sinew_body_shift_origin(lower, by), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_step(upper, &p), SINEW_RESULT_OK);
    double origin[3];
    sinew_body_get_origin(upper, origin);
    cr_assert(origin[0] == 1.0 && origin[1] == 0.0 && origin[2] == 0.0);
    const double bad[3][3] = {{NAN, 0, 0}, {0, INFINITY, 0}, {0, 0, 2e9}};
    for (int k = 0; k < 3; k++) {
        gpu_log_clear();
        cr_assert_eq(sinew_body_shift_origin(upper, bad[k]), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
        cr_assert(gpu_log_contains("nothing was changed"), "%s", gpu_log_text());
    }
    sinew_body_get_origin(upper, origin);
    cr_assert(origin[0] == 1.0 && origin[1] == 0.0 && origin[2] == 0.0);
    sinew_body_desc bad_desc = sinew_body_desc_default();
    bad_desc.origin[1] = NAN;
    sinew_body *none = NULL;
    gpu_log_clear();
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &bad_desc, &none), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(none == NULL && gpu_log_contains("origin"), "%s", gpu_log_text());
    gpu_log_clear();
    sinew_body_destroy(upper);
    sinew_body_destroy(lower);
    sinew_asset_destroy(a);
    sinew_asset_destroy(b);
}

/* ------------------------------------------------------------ a block spinning 1 m up */

/* A GPBD block of 5^3 vertices (0.2 m, 8 kg), built through the public prep
 * API with its origin at `origin` and its float positions centred on
 * (0, y, 0). */
static sinew_asset *spinning_block(double y, const double origin[3])
{
    sinew_volume v;
    const double size[3] = {0.2, 0.2, 0.2}, centre[3] = {0.0, y, 0.0};
    cr_assert_eq(sinew_volume_box(5, 5, 5, size, centre, &v), SINEW_RESULT_OK);
    const sinew_prep_volume pv = {v.vertex_count, NULL, v.positions, v.tet_count, v.tets, NULL};
    sinew_prep_soft_options o = sinew_prep_soft_options_default();
    o.youngs_modulus = 1e6;
    memcpy(o.origin, origin, sizeof o.origin);
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_prep_soft_asset(&pv, NULL, &o, gpu_logger(), &a, NULL), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_volume_free(&v);
    return a;
}

/* The block's linear momentum (kg m/s), from its velocities and masses. */
static void momentum(sinew_body *b, const sinew_asset *a, double p[3])
{
    const uint32_t n = a->particle_count;
    float *v = malloc(sizeof *v * 3 * n);
    cr_assert_eq(sinew_body_read_velocities(b, v, n), SINEW_RESULT_OK);
    p[0] = p[1] = p[2] = 0.0;
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            p[k] += v[3 * i + k] / (double)a->particles[i].w;
    free(v);
}

/* 5 s at 60 Hz, gravity off, no ground, the block moving at 0.5 m/s along x
 * and spinning at 2 pi rad/s about z; the change of its momentum's y part
 * over |P|. Velocities are written into the device's state (there is no
 * public velocity setter). */
static double spin_drift(const sinew_asset *a, double *p_norm)
{
    const uint32_t n = a->particle_count;
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    d.substeps = 8;
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    double centre[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        centre[0] += a->particles[i].x / n;
        centre[1] += a->particles[i].y / n;
        centre[2] += a->particles[i].z / n;
    }
    float *v = malloc(16 * (size_t)n);
    cr_assert_eq(sinew_buffer_download(gpu_ctx, &b->buffers[SINEW_BIND_VEL], 0, v, 16 * (size_t)n), SINEW_RESULT_OK);
    const double omega = 2.0 * 3.14159265358979323846;
    for (uint32_t i = 0; i < n; i++) { /* v0 + omega z x (x - c) */
        const double rx = a->particles[i].x - centre[0], ry = a->particles[i].y - centre[1];
        v[4 * i] = (float)(0.5 - omega * ry);
        v[4 * i + 1] = (float)(omega * rx);
        v[4 * i + 2] = 0.0f;
    }
    cr_assert_eq(sinew_buffer_upload(gpu_ctx, &b->buffers[SINEW_BIND_VEL], 0, v, 16 * (size_t)n), SINEW_RESULT_OK);
    free(v);
    double p0[3], p1[3];
    momentum(b, a, p0);
    sinew_step_params p = sinew_step_params_default();
    p.gravity[1] = 0.0f;
    p.ground = 0;
    for (int s = 0; s < 300; s++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "step %d: %s", s, gpu_log_text());
    momentum(b, a, p1);
    sinew_body_destroy(b);
    *p_norm = sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]);
    return (p1[1] - p0[1]) / *p_norm;
}

/* Placed 1 m up by its asset's origin (sinew-prep --translate's way), the
 * spinning block's momentum keeps its y part within 1e-3 of |P| over 5 s;
 * with its float positions 1 m up (origin 0) it drifts, the rounding of
 * floats just above and below 1.0 not cancelling (the issue measured
 * P_y -0.065 |P|, a 2.5 cm sink, with its block). 8 substeps a step;
 * measured on lavapipe: 1.6e-5 by the origin, -1.1e-3 by the floats (4
 * substeps: 4e-6 and -5e-5; 16: 4.3e-5 and -5.8e-3: the bias grows with
 * the substeps, each rounding the positions once more). */
Test(origin, spinning_block_keeps_its_momentum_by_its_origin)
{
    const double up[3] = {0.0, 1.0, 0.0}, none[3] = {0.0, 0.0, 0.0};
    sinew_asset *by_origin = spinning_block(0.0, up), *by_floats = spinning_block(1.0, none);
    double origin[3];
    sinew_asset_get_origin(by_origin, origin);
    cr_assert(origin[0] == 0.0 && origin[1] == 1.0 && origin[2] == 0.0);
    double norm_origin, norm_floats;
    const double drift_origin = spin_drift(by_origin, &norm_origin), drift_floats = spin_drift(by_floats, &norm_floats);
    cr_log_info("spinning block 1 m up, 5 s: dP_y / |P| = %.3g by its origin, %.3g by its float positions "
                "(|P| %.4g kg m/s)", drift_origin, drift_floats, norm_origin);
    cr_expect_lt(fabs(drift_origin), 1e-3, "by its origin: dP_y = %g |P|", drift_origin);
    cr_expect_gt(fabs(drift_floats), 10.0 * fabs(drift_origin), "by floats: %g, by origin: %g", drift_floats,
                 drift_origin);
    sinew_asset_destroy(by_origin);
    sinew_asset_destroy(by_floats);
}

/* A body takes its asset's origin plus desc.origin; a world's bodies share
 * one (another is refused, naming both). */
Test(origin, bodies_start_at_their_assets_origin)
{
    const double at[3] = {1e4, 2.0, -1e4}, extra[3] = {0.25, -0.5, 1.0};
    sinew_asset *a = spinning_block(0.0, at), *home = spinning_block(0.0, (const double[3]){0, 0, 0});
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    memcpy(d.origin, extra, sizeof d.origin);
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    double o[3];
    sinew_body_get_origin(b, o);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(o[k], at[k] + extra[k]);
    sinew_body_destroy(b);

    sinew_world *w;
    sinew_world_desc wd = sinew_world_desc_default();
    cr_assert_eq(sinew_world_create(gpu_ctx, &wd, &w), SINEW_RESULT_OK);
    sinew_body_desc in_world = sinew_body_desc_default();
    in_world.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    in_world.world = w;
    in_world.name = "first";
    sinew_body *first, *second = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &in_world, &first), SINEW_RESULT_OK, "%s", gpu_log_text());
    in_world.name = "second";
    gpu_log_clear();
    cr_assert_eq(sinew_body_create(gpu_ctx, home, &in_world, &second), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(second == NULL && gpu_log_contains("'second'") && gpu_log_contains("share one origin"), "%s",
              gpu_log_text());
    gpu_log_clear();
    for (int k = 0; k < 3; k++) /* brought to the world's origin: accepted */
        in_world.origin[k] = at[k];
    cr_assert_eq(sinew_body_create(gpu_ctx, home, &in_world, &second), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_world_destroy(w);
    sinew_asset_destroy(a);
    sinew_asset_destroy(home);
}
