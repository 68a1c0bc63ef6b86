/* Real models as soft bodies: surfaces no one here made (Debian's CGAL demo
 * data), clean and closed, self-intersecting, with holes or with faces turned
 * inside out, each made a soft body by sinew_volume_tetrahedralise (TetGen
 * for the clean ones, lattice cubes inside by winding number and holding
 * every vertex of the surface for the rest),
 * scaled to 0.3 m, dropped 5 cm onto the ground and left for a second.
 * Every step passes the health check; at the end no tetrahedron is inverted,
 * none has changed its volume by half, nothing is below the ground and
 * nothing flies off. Skipped when the data is not there (tools/run.sh
 * fetches it). */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include "gpu_fixture.h"
#include "prep/soft.h"
#include "prep/volume.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(real_solids, .init = gpu_setup, .fini = gpu_teardown, .timeout = 900);

typedef struct real_model {
    const char *file;
    const char *kind; /* what is wrong with it, if anything */
    int tetgen;       /* clean: TetGen meshes it from its own vertices (no volume bound) */
} real_model;

static const real_model models[] = {
    {"sphere.off", "closed and clean", 1},
    {"3torus.off", "closed, genus 3", 1},
    {"cow.off", "self-intersecting: 205 pairs of faces", 0},
    {"bones.off", "self-intersecting: 1 974 pairs of faces", 0},
    {"elk.off", "self-intersecting: 57 pairs of faces", 0},
    {"elephant-with-holes.off", "1 353 open edges", 0},
    {"pig.off", "55 open edges", 0},
    {"blob.off", "a hole of 4 edges", 0},
    {"open_cube.off", "a box without a lid", 0},
    {"cube-shuffled.off", "faces inconsistently oriented", 0},
    {"tet-shuffled.off", "faces inconsistently oriented", 0},
};

#define SIZE 0.3        /* m, the longest side after scaling */
#define DROP 0.05       /* m, the lowest point above the ground */
#define CELLS 6.0       /* lattice cubes along the longest side */
#define STEPS 60        /* 1 s at 60 Hz */

/* The model scaled to SIZE, centred over the origin, its lowest point DROP
 * above the ground. */
static void place(sinew_mesh *m)
{
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m->positions[3 * i + k]);
            hi[k] = fmax(hi[k], m->positions[3 * i + k]);
        }
    double s = SIZE / fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            double x = m->positions[3 * i + k];
            m->positions[3 * i + k] = k == 1 ? (x - lo[1]) * s + DROP : (x - 0.5 * (lo[k] + hi[k])) * s;
        }
}

/* Keeps the first warning (sinew_volume_tetrahedralise's fallback to lattice cubes). */
static void keep_warning(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)id;
    char *kept = user;
    if (level == SINEW_LOG_WARNING && !*kept)
        snprintf(kept, 512, "%s", message);
}

static void drop(const char *dir, const real_model *model)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/%s", dir, model->file);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, gpu_logger(), &m), SINEW_RESULT_OK, "%s", path);
    place(&m);
    /* Lattice cubes of CELLS along the longest side where TetGen cannot
     * mesh it (the bound also goes to TetGen, which refuses it first). */
    const double h = SIZE / CELLS, max_volume = model->tetgen ? 0.0 : h * h * h / 6.0;
    sinew_volume v;
    sinew_logger quiet = {0};
    quiet.level = SINEW_LOG_ERROR;
    char fallback[512] = "";
    sinew_logger watch = {keep_warning, fallback, SINEW_LOG_WARNING};
    /* Covering, as sinew-prep and sinew/prep.h mesh a model they draw. */
    cr_assert_eq(sinew_volume_tetrahedralise_cover(&m, max_volume, 1.4, NULL, 1, model->file, &watch, &v, NULL),
                 SINEW_RESULT_OK, "%s (%s)", model->file, model->kind);
    /* A clean model that TetGen did not mesh (TetGen missing or unable to
     * run: sinew_volume_tetrahedralise falls back to lattice cubes with a
     * warning) would test another mesh than the one named. */
    cr_assert(!model->tetgen || !*fallback, "%s is clean, yet not meshed by TetGen: %s", model->file, fallback);
    sinew_mesh_free(&m);
    sinew_soft_options opt = sinew_soft_options_default();
    opt.youngs_modulus = 2e5;
    opt.poisson_ratio = 0.4;
    sinew_asset *asset;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &opt, &quiet, &asset, &rep), SINEW_RESULT_OK, "%s", model->file);
    sinew_volume_free(&v);
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    d.substeps = 8;
    d.iterations = 2;
    d.residual = 1;
    d.name = model->file;
    sinew_body *body;
    cr_assert_eq(sinew_body_create(gpu_ctx, asset, &d, &body), SINEW_RESULT_OK, "%s", model->file);
    sinew_step_params p = sinew_step_params_default();
    p.ground = 1;
    p.ground_height = 0.0f;
    p.friction = 0.5f;
    uint32_t worst_inverted = 0;
    float worst_error = 0.0f;
    for (int s = 0; s < STEPS; s++) {
        cr_assert_eq(sinew_body_step(body, &p), SINEW_RESULT_OK, "%s: step %d", model->file, s);
        sinew_step_stats st = sinew_body_get_stats(body);
        worst_inverted = st.inverted_elements > worst_inverted ? st.inverted_elements : worst_inverted;
        worst_error = fmaxf(worst_error, st.max_volume_error);
    }
    sinew_step_stats st = sinew_body_get_stats(body);
    const uint32_t n = asset->particle_count;
    float *xyz = malloc(sizeof(float) * 3 * n);
    cr_assert_eq(sinew_body_read_positions(body, xyz, n), SINEW_RESULT_OK);
    float lowest = FLT_MAX;
    for (uint32_t i = 0; i < n; i++)
        lowest = fminf(lowest, xyz[3 * i + 1]);
    cr_log_info("%-24s %-40s %5u tetrahedra: at most %u inverted and max |V/V0 - 1| %.3f in a step; at the end "
                "%u inverted, max |V/V0 - 1| %.3f, RMS %.3f, lowest point %.4f m, fastest %.3f m/s",
                model->file, model->kind, rep.tet_count, worst_inverted, (double)worst_error, st.inverted_elements,
                (double)st.max_volume_error, (double)st.rms_measure_error, (double)lowest,
                (double)st.max_speed);
    cr_expect_eq(st.inverted_elements, 0, "%s: %u tetrahedra inverted at the end", model->file,
                 st.inverted_elements);
    cr_expect_lt(st.max_volume_error, 0.5f, "%s: max |V/V0 - 1| %g at the end", model->file,
                 (double)st.max_volume_error);
    cr_expect_geq(lowest, -0.005f, "%s: %g m below the ground", model->file, (double)lowest);
    /* Nothing flies off (a ball may still roll: the fall itself ends at 1 m/s). */
    cr_expect_lt(st.max_speed, 0.5f, "%s: moving at %g m/s", model->file, (double)st.max_speed);
    free(xyz);
    sinew_body_destroy(body);
    sinew_asset_destroy(asset);
}

Test(real_solids, cgal_models_dropped_on_the_ground)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        cr_skip_test("SINEW_CGAL_DATA is not set (tools/run.sh fetches Debian's CGAL demo data)");
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/meshes/cow.off", dir);
    FILE *f = fopen(probe, "rb");
    if (!f)
        cr_skip_test("%s is missing", probe);
    fclose(f);
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        drop(dir, &models[i]);
}
