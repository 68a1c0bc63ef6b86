/* Attachments to moving frames, pins moved through the step's upload, and
 * long-range tethers (docs/attachments.md): held particles follow a moving,
 * rotating frame exactly; a compliant attachment sags by its force times
 * its compliance; moving pins and frames costs no readback, allocation,
 * dispatch or submit of its own; tethers bound each particle's distance to
 * an anchor by its rest geodesic distance and cut a hanging cloth's
 * stretch; bad inputs are refused, changing nothing; a checkpoint round
 * trip stays bit for bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "gpu_fixture.h"
#include "prep/cloth.h"
#include "prep/mesh.h"

TestSuite(attach, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

/* An nx x nx cloth `size` m wide about (0, 1, 0): horizontal (XZ), or
 * hanging (XY, turned so that its first row is on top), its first row
 * pinned when pin_row. */
static sinew_asset *cloth(uint32_t nx, double size, sinew_grid_plane plane, int pin_row)
{
    sinew_mesh mesh;
    double origin[3] = {0.0, 1.0, 0.0};
    cr_assert_eq(sinew_mesh_grid(nx, nx, size, size, plane, origin, &mesh), SINEW_RESULT_OK);
    for (uint32_t i = 0; plane == SINEW_GRID_XY && i < mesh.vertex_count; i++)
        mesh.positions[3 * i + 1] = 2.0 * origin[1] - mesh.positions[3 * i + 1];
    sinew_cloth_options opt = sinew_cloth_options_default();
    uint32_t *pins = malloc(sizeof *pins * nx);
    for (uint32_t i = 0; i < nx; i++)
        pins[i] = i;
    if (pin_row) {
        opt.pin_indices = pins;
        opt.pin_count = nx;
    }
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_cloth_build(&mesh, &opt, gpu_logger(), &a, NULL), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_mesh_free(&mesh);
    free(pins);
    return a;
}

static sinew_step_params no_ground(void)
{
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    return p;
}

/* A frame turning about y by `angle` rad, at `at`. */
static sinew_frame frame_at(const float at[3], double angle)
{
    sinew_frame f = {{at[0], at[1], at[2]}, {0.0f, (float)sin(angle / 2), 0.0f, (float)cos(angle / 2)}};
    return f;
}

static void apply(const sinew_frame *f, const float local[3], double out[3])
{
    const double q[4] = {f->rotation[0], f->rotation[1], f->rotation[2], f->rotation[3]};
    const double v[3] = {local[0], local[1], local[2]};
    double t[3] = {2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]), 2 * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]) + f->position[0];
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]) + f->position[1];
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]) + f->position[2];
}

/* The first row of a 16 x 16 cloth held by a frame that walks a circle and
 * turns: at the end of every step each held particle is where the frame's
 * pose puts its offset (its asset position: the frame starts at the origin
 * unturned), within float round-off; the frame's updates cost no readback,
 * allocation or dispatch beyond the step's own, one submit a step. */
Test(attach, held_particles_follow_a_moving_turning_frame)
{
    const uint32_t nx = 16;
    sinew_asset *a = cloth(nx, 0.5, SINEW_GRID_XZ, 0);
    uint32_t row[16];
    for (uint32_t i = 0; i < nx; i++)
        row[i] = i;
    const float zero[3] = {0, 0, 0};
    sinew_frame frame = frame_at(zero, 0.0);
    sinew_attachment att = {row, nx, 0, 0.0f};
    sinew_body_desc d = sinew_body_desc_default();
    d.attachments = &att;
    d.attachment_count = 1;
    d.frames = &frame;
    d.frame_count = 1;
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    const uint32_t n = a->particle_count;
    float *x = malloc(12ull * n);
    sinew_step_params p = no_ground();
    sinew_step_stats first = {0};
    double worst = 0.0;
    for (int s = 0; s < 30; s++) {
        const double t = (s + 1) * p.dt;
        const float at[3] = {(float)(0.3 * sin(2.0 * t)), (float)(0.1 * t), (float)(0.3 - 0.3 * cos(2.0 * t))};
        frame = frame_at(at, 1.5 * t);
        p.frames = &frame;
        p.frame_count = 1;
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
        sinew_step_stats st = sinew_body_get_stats(b);
        if (s == 0)
            first = st;
        cr_assert_eq(st.dispatches, first.dispatches);
        cr_assert_eq(st.device_allocations, first.device_allocations);
        cr_assert_eq(st.readback_bytes, first.readback_bytes, "no readback beyond the step's statistics");
        cr_assert_eq(st.submits, 1);
        cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
        for (uint32_t k = 0; k < nx; k++) {
            double want[3];
            const float local[3] = {a->particles[row[k]].x, a->particles[row[k]].y, a->particles[row[k]].z};
            apply(&frame, local, want);
            for (int c = 0; c < 3; c++)
                worst = fmax(worst, fabs(x[3 * row[k] + c] - want[c]));
        }
    }
    cr_log_info("held particles off their frame's transform by at most %.2e m", worst);
    cr_expect_lt(worst, 2e-6, "within float round-off (%.2e m)", worst);
    /* the rest of the cloth hangs below, not torn away */
    cr_expect_lt(x[3 * (n - 1) + 1], x[1] - 0.1f, "far corner at y %.3f, the held row at %.3f", x[3 * (n - 1) + 1],
                 x[1]);
    free(x);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
}

/* Every particle of a cloth attached compliantly where it is: it settles
 * below its target by its weight times the compliance (XPBD's point
 * constraint has that equilibrium); held the same, it does not move. */
Test(attach, compliant_attachment_sags_by_force_times_compliance)
{
    const uint32_t nx = 16;
    sinew_asset *a = cloth(nx, 0.5, SINEW_GRID_XZ, 0);
    const uint32_t n = a->particle_count;
    uint32_t *all = malloc(sizeof *all * n);
    double mass = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        all[i] = i;
        mass += 1.0 / a->particles[i].w;
    }
    mass /= n;
    const double g = 9.81, sag = 0.02, compliance = sag / (mass * g);
    sinew_frame frame = {{0, 0, 0}, {0, 0, 0, 1}};
    sinew_attachment att = {all, n, 0, (float)compliance};
    sinew_body_desc d = sinew_body_desc_default();
    d.attachments = &att;
    d.attachment_count = 1;
    d.frames = &frame;
    d.frame_count = 1;
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_step_params p = no_ground();
    p.damping = 5.0f;
    for (int s = 0; s < 90; s++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    float *x = malloc(12ull * n);
    cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
    double mean = 0.0;
    for (uint32_t i = 0; i < n; i++)
        mean += a->particles[i].y - x[3 * i + 1];
    mean /= n;
    cr_log_info("compliant attachment: mean sag %.4f m, m g compliance %.4f m", mean, sag);
    cr_expect(fabs(mean - sag) < 0.1 * sag, "mean sag %.4f m, expected %.4f m", mean, sag);
    free(x);
    free(all);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
}

/* move_pinned keeps the move on the host: no submit, wait or readback of
 * its own, nothing allocated; read_positions shows the pins moved at once;
 * the next step costs what the one before did and leaves the pins exactly
 * at their targets. Refusals change nothing. */
Test(attach, move_pinned_costs_no_readback_submit_or_allocation)
{
    sinew_asset *a = gpu_make_cloth(16, 16, 0.5, 1.0, 1);
    sinew_body_desc d = sinew_body_desc_default();
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    const uint32_t n = a->particle_count;
    float *x = malloc(12ull * n);
    sinew_step_params p = no_ground();
    cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    const sinew_step_stats before = sinew_body_get_stats(b);
    const sinew_counters c0 = gpu_ctx->counters;
    const uint32_t allocations = gpu_ctx->allocations;
    const uint32_t pins[2] = {0, 15};
    const float moved[6] = {0.1f, 1.3f, -0.2f, 0.4f, 1.2f, 0.1f};
    cr_assert_eq(sinew_body_move_pinned(b, pins, 2, moved), SINEW_RESULT_OK);
    cr_assert_eq(gpu_ctx->counters.submits, c0.submits, "no submit of its own");
    cr_assert_eq(gpu_ctx->counters.host_waits, c0.host_waits, "no wait");
    cr_assert_eq(gpu_ctx->counters.readback_bytes, c0.readback_bytes, "no readback");
    cr_assert_eq(gpu_ctx->allocations, allocations, "no allocation");
    cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
    cr_assert(memcmp(&x[0], &moved[0], 12) == 0 && memcmp(&x[45], &moved[3], 12) == 0, "read shows the move");
    /* refused: out of range, free, not finite; nothing changes */
    const uint32_t bad[2] = {0, n};
    const uint32_t free_one[1] = {20};
    const float nan3[3] = {NAN, 0, 0};
    cr_assert_eq(sinew_body_move_pinned(b, bad, 2, moved), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("out of range"));
    cr_assert_eq(sinew_body_move_pinned(b, free_one, 1, moved), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("is not pinned"));
    cr_assert_eq(sinew_body_move_pinned(b, pins, 1, nan3), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(gpu_log_contains("not finite"));
    gpu_log_clear();
    cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    const sinew_step_stats after = sinew_body_get_stats(b);
    cr_assert_eq(after.dispatches, before.dispatches);
    cr_assert_eq(after.device_allocations, before.device_allocations);
    cr_assert_eq(after.readback_bytes, before.readback_bytes);
    cr_assert_eq(after.submits, 1);
    cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
    cr_assert(memcmp(&x[0], &moved[0], 12) == 0 && memcmp(&x[45], &moved[3], 12) == 0, "pins at their targets");
    free(x);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
}

/* Rest geodesic distances (over the distance constraints) from particle s. */
static double *geodesic(const sinew_asset *a, uint32_t s)
{
    const uint32_t n = a->particle_count;
    double *d = malloc(sizeof *d * n);
    for (uint32_t i = 0; i < n; i++)
        d[i] = INFINITY;
    d[s] = 0.0;
    for (int changed = 1; changed;) { /* Bellman-Ford: small meshes */
        changed = 0;
        for (uint32_t c = 0; c < a->distance_count; c++) {
            const sinew_distance_rec *e = &a->distances[c];
            if (d[e->a] + e->rest < d[e->b] - 1e-12)
                d[e->b] = d[e->a] + e->rest, changed = 1;
            if (d[e->b] + e->rest < d[e->a] - 1e-12)
                d[e->a] = d[e->b] + e->rest, changed = 1;
        }
    }
    return d;
}

/* A 20 x 20 cloth hanging from its top row, XPBD at one iteration of 4
 * substeps: largest strain over 60 steps, and (tethers on) the largest
 * excess of a particle's distance from every pin over its geodesic one. */
static float hang(const sinew_asset *a, int tethers, double *excess)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.substeps = 4;
    d.iterations = 1;
    d.tethers = tethers;
    sinew_body *b = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    const uint32_t n = a->particle_count, nx = 20;
    double **geo = malloc(sizeof *geo * nx);
    for (uint32_t k = 0; k < nx; k++)
        geo[k] = geodesic(a, k);
    float *x = malloc(12ull * n);
    sinew_step_params p = no_ground();
    float worst = 0.0f;
    *excess = -INFINITY;
    for (int s = 0; s < 60; s++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
        worst = fmaxf(worst, sinew_body_get_stats(b).max_strain);
        if (s % 10 != 9)
            continue;
        cr_assert_eq(sinew_body_read_positions(b, x, n), SINEW_RESULT_OK);
        for (uint32_t i = nx; i < n; i++) { /* the nearest pin's bound holds: the best over the pins <= 0 */
            double best = INFINITY;
            for (uint32_t k = 0; k < nx; k++) {
                double dx = x[3 * i] - x[3 * k], dy = x[3 * i + 1] - x[3 * k + 1], dz = x[3 * i + 2] - x[3 * k + 2];
                best = fmin(best, sqrt(dx * dx + dy * dy + dz * dz) - geo[k][i]);
            }
            *excess = fmax(*excess, best);
        }
    }
    for (uint32_t k = 0; k < nx; k++)
        free(geo[k]);
    free(geo);
    free(x);
    sinew_body_destroy(b);
    return worst;
}

Test(attach, tethers_bound_geodesic_distance_and_cut_stretch)
{
    sinew_asset *a = cloth(20, 0.6, SINEW_GRID_XY, 1);
    double excess_free, excess_tethered;
    const float free_strain = hang(a, 0, &excess_free);
    const float tethered = hang(a, 1, &excess_tethered);
    cr_log_info("hanging 20x20 cloth, XPBD-GS 4 substeps x 1 iteration, 60 steps: max strain %.4f without "
                "tethers, %.4f with; largest excess over the geodesic distance %.2e m without, %.2e m with",
                free_strain, tethered, excess_free, excess_tethered);
    cr_expect_lt(excess_tethered, 1e-5, "every particle within its rest geodesic distance of a pin");
    cr_expect_lt(tethered, 0.5f * free_strain, "tethers cut the stretch");
    sinew_asset_destroy(a);
}

/* Bad attachments and frames: a message, and nothing made or changed. */
Test(attach, refused_inputs_change_nothing)
{
    sinew_asset *a = gpu_make_cloth(16, 16, 0.5, 1.0, 1);
    const uint32_t n = a->particle_count;
    uint32_t row[3] = {16, 17, 18};
    sinew_frame frame = {{0, 0, 0}, {0, 0, 0, 1}};
    sinew_attachment att = {row, 3, 0, 0.0f};
    sinew_body *b = NULL;
    struct {
        sinew_attachment att;
        sinew_frame frame;
        sinew_solver solver;
        const char *message;
    } cases[] = {
        {{row, 3, 1, 0.0f}, frame, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, "follows frame 1; the desc has 1 frames"},
        {att, {{NAN, 0, 0}, {0, 0, 0, 1}}, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, "is not finite"},
        {att, {{0, 0, 0}, {0, 0, 0, 0}}, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, "rotation of length 0"},
        {{(const uint32_t[]){16, n}, 2, 0, 0.0f}, frame, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, "is out of range"},
        {{(const uint32_t[]){16, 16}, 2, 0, 0.0f}, frame, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, "attached twice"},
        {{row, 3, 0, -1.0f}, frame, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, "not finite and >= 0"},
        {{(const uint32_t[]){0}, 1, 0, 1e-3f}, frame, SINEW_SOLVER_XPBD_GAUSS_SEIDEL, "pinned by its asset"},
        {{row, 3, 0, 1e-3f}, frame, SINEW_SOLVER_PD_JACOBI, "only the position-based solvers"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sinew_body_desc d = sinew_body_desc_default();
        d.solver = cases[k].solver;
        d.attachments = &cases[k].att;
        d.attachment_count = 1;
        d.frames = &cases[k].frame;
        d.frame_count = 1;
        gpu_log_clear();
        cr_expect_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "case %zu", k);
        cr_expect_null(b);
        cr_expect(gpu_log_contains(cases[k].message), "case %zu: %s", k, gpu_log_text());
    }
    /* a good body; bad step frames are refused with its state unchanged */
    sinew_body_desc d = sinew_body_desc_default();
    d.attachments = &att;
    d.attachment_count = 1;
    d.frames = &frame;
    d.frame_count = 1;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    sinew_step_params p = no_ground();
    cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    uint64_t h0, h1;
    cr_assert_eq(sinew_body_state_hash(b, &h0), SINEW_RESULT_OK);
    sinew_frame two[2] = {frame, frame}, nan_pose = {{0, 0, 0}, {0, NAN, 0, 1}}, zero_q = {{0, 0, 0}, {0, 0, 0, 0}};
    const struct {
        const sinew_frame *frames;
        uint32_t count;
        const char *message;
    } steps[] = {{two, 2, "give 2 frames"}, {&nan_pose, 1, "is not finite"}, {&zero_q, 1, "rotation of length 0"}};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        p.frames = steps[k].frames;
        p.frame_count = steps[k].count;
        gpu_log_clear();
        cr_expect_eq(sinew_body_step(b, &p), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "step case %zu", k);
        cr_expect(gpu_log_contains(steps[k].message), "step case %zu: %s", k, gpu_log_text());
    }
    cr_assert_eq(sinew_body_state_hash(b, &h1), SINEW_RESULT_OK);
    cr_expect_eq(h0, h1, "refused steps changed the body");
    gpu_log_clear();
    cr_expect_eq(sinew_body_set_pinned(b, 16, 0), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("attached to a frame"));
    gpu_log_clear();
    sinew_body_destroy(b);
    /* the implicit solvers take no attachments */
    d.solver = SINEW_SOLVER_IMPLICIT_PCG;
    cr_expect_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(gpu_log_contains("implicit solvers take no attachments"));
    gpu_log_clear();
    sinew_asset_destroy(a);
}

/* A body with a moving frame, tethers and a pin moved just before the save:
 * restored into a fresh body from the checkpoint, it continues bit for bit. */
Test(attach, checkpoint_round_trip_bit_for_bit)
{
    sinew_asset *a = gpu_make_cloth(16, 16, 0.5, 1.0, 1);
    uint32_t row[6] = {5, 6, 7, 8, 9, 10};
    sinew_frame frame = {{0, 0, 0}, {0, 0, 0, 1}};
    sinew_attachment att[2] = {{row, 3, 0, 0.0f}, {row + 3, 3, 0, 1e-4f}};
    sinew_body_desc d = sinew_body_desc_default();
    d.attachments = att;
    d.attachment_count = 2;
    d.frames = &frame;
    d.frame_count = 1;
    d.tethers = 1;
    sinew_body *b = NULL, *c = NULL;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &c), SINEW_RESULT_OK);
    sinew_step_params p = no_ground();
    p.frames = &frame;
    p.frame_count = 1;
    const float zero[3] = {0, 0, 0};
    for (int s = 0; s < 5; s++) {
        frame = frame_at(zero, 0.2 * s);
        frame.position[1] = 0.05f * s;
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    }
    const uint32_t pin = 15;
    const float to[3] = {0.6f, 1.2f, 0.0f};
    cr_assert_eq(sinew_body_move_pinned(b, &pin, 1, to), SINEW_RESULT_OK);
    size_t size = sinew_body_checkpoint_size(b);
    void *cp = malloc(size);
    cr_assert_eq(sinew_body_save_checkpoint(b, cp, size), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_load_checkpoint(c, cp, size), SINEW_RESULT_OK, "%s", gpu_log_text());
    p.frame_count = 0; /* the frame stays as last set: the restored body must know where that was */
    uint64_t hb, hc;
    for (int s = 0; s < 5; s++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_step(c, &p), SINEW_RESULT_OK);
    }
    p.frame_count = 1;
    frame = frame_at(zero, 1.5);
    for (int s = 0; s < 5; s++) {
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
        cr_assert_eq(sinew_body_step(c, &p), SINEW_RESULT_OK);
    }
    cr_assert_eq(sinew_body_state_hash(b, &hb), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_state_hash(c, &hc), SINEW_RESULT_OK);
    cr_expect_eq(hb, hc, "restored body continues bit for bit");
    float x[3 * 256];
    cr_assert_eq(sinew_body_read_positions(c, x, 256), SINEW_RESULT_OK);
    cr_expect(memcmp(&x[3 * pin], to, 12) == 0, "the moved pin travelled with the checkpoint");
    free(cp);
    sinew_body_destroy(b);
    sinew_body_destroy(c);
    sinew_asset_destroy(a);
}
