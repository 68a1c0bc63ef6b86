/* sinew-sim: runs a scene and writes its meshes. With no asset it runs the
 * embedded default scene: a 64 x 64 cloth pinned at two corners, falling under
 * gravity past a sphere onto the ground. --scene picks one of the soft-body
 * scenes of the Generalized PBD paper instead (soft_scenes.h).
 *
 * main reads the options, builds the scene (asset, context, body, outputs:
 * sim_scene.c), runs the steps (below) and reports (sim_report.c). */
#define _POSIX_C_SOURCE 200809L
#include <sinew/sinew.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "prep/intersect.h"
#include "scene.h"
#include "sim_run.h"
#include "stop.h"

/* ------------------------------------------------------------------ helpers */

/* Digits a coordinate in the world needs: a float's 9 at the world's
 * origin (the files stay what they were), a double's 17 elsewhere. */
static int world_digits(const double origin[3])
{
    return origin[0] != 0.0 || origin[1] != 0.0 || origin[2] != 0.0 ? 17 : 9;
}

int sim_write_obj(const char *path, const float *xyz, uint32_t n, const uint32_t *tris, uint32_t t,
                  const double origin[3])
{
    FILE *f = cli_open_output("sinew-sim", "the mesh", path);
    if (!f)
        return 0;
    fprintf(f, "# sinew-sim\n");
    const int digits = world_digits(origin);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "v %.*g %.*g %.*g\n", digits, origin[0] + xyz[3 * i], digits, origin[1] + xyz[3 * i + 1], digits,
                origin[2] + xyz[3 * i + 2]);
    for (uint32_t i = 0; i < t; i++)
        fprintf(f, "f %u %u %u\n", tris[3 * i] + 1, tris[3 * i + 1] + 1, tris[3 * i + 2] + 1);
    int ok = fclose(f) == 0;
    if (!ok)
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", path, strerror(errno));
    return ok;
}

/* The render mesh (docs/render-mesh.md) as OBJ: 8 floats per render vertex
 * (position, normal, uv), faces v/vt/vn over the render indices; v//vn and
 * no vt lines when the source had no texture coordinates (uvs 0). The
 * asset's material groups as usemtl lines (none for the group ""), its
 * library as mtllib. */
static int write_render_obj(const char *path, const float *v, uint32_t n, const uint32_t *idx, uint32_t count,
                            const double origin[3], const sinew_asset *asset)
{
    const int uvs = sinew_asset_get_render_info(asset).has_uvs;
    FILE *f = cli_open_output("sinew-sim", "the mesh", path);
    if (!f)
        return 0;
    fprintf(f, "# sinew-sim: the asset's render mesh\n");
    const char *library = sinew_asset_get_material_library(asset, NULL, NULL);
    if (library)
        fprintf(f, "mtllib %s\n", library);
    const int digits = world_digits(origin);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "v %.*g %.*g %.*g\n", digits, origin[0] + v[8 * i], digits, origin[1] + v[8 * i + 1], digits,
                origin[2] + v[8 * i + 2]);
    for (uint32_t i = 0; uvs && i < n; i++)
        fprintf(f, "vt %.9g %.9g\n", v[8 * i + 6], v[8 * i + 7]);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "vn %.6g %.6g %.6g\n", v[8 * i + 3], v[8 * i + 4], v[8 * i + 5]);
    const uint32_t groups = sinew_asset_get_render_material_count(asset);
    for (uint32_t g = 0; g < (groups ? groups : 1); g++) {
        sinew_render_material m = {"", 0, count};
        if (groups && sinew_asset_get_render_material(asset, g, &m) != SINEW_RESULT_OK)
            break;
        if (m.name[0] && m.index_count)
            fprintf(f, "usemtl %s\n", m.name);
        for (uint32_t i = m.first_index; i + 2 < m.first_index + m.index_count; i += 3) {
            const uint32_t a = idx[i] + 1, b = idx[i + 1] + 1, c = idx[i + 2] + 1;
            if (uvs)
                fprintf(f, "f %u/%u/%u %u/%u/%u %u/%u/%u\n", a, a, a, b, b, b, c, c, c);
            else
                fprintf(f, "f %u//%u %u//%u %u//%u\n", a, a, b, b, c, c);
        }
    }
    int ok = fclose(f) == 0;
    if (!ok)
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", path, strerror(errno));
    return ok;
}

/* Joins the --every pictures into o->video with ffmpeg (check_outputs found it). */
static int make_video(const options *o)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -loglevel error -y -framerate %g -pattern_type glob -i '%s/frame_*.png' -pix_fmt yuv420p "
             "-vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' '%s'",
             1.0 / (o->dt * o->every), o->out_dir, o->video);
    if (system(cmd) != 0) {
        fprintf(stderr, "sinew-sim: ffmpeg could not make %s\n", o->video);
        return 0;
    }
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Elongation l / L - 1 of the cloth's distance constraints at positions xyz
 * (L: the rest pose's length): the largest, and the mean of the positive ones
 * over all constraints. Compression does not count: cloth buckles instead. */
static void cloth_stretch(const float *xyz, const uint32_t *ends, const double *rest_length, uint32_t count,
                          double *most, double *mean)
{
    *most = *mean = 0.0;
    for (uint32_t c = 0; c < count; c++) {
        const float *a = &xyz[3 * ends[2 * c]], *b = &xyz[3 * ends[2 * c + 1]];
        double l = sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
        double e = rest_length[c] > 0.0 ? l / rest_length[c] - 1.0 : 0.0;
        if (e > 0.0) {
            *most = e > *most ? e : *most;
            *mean += e;
        }
    }
    if (count)
        *mean /= count;
}

typedef struct named_path {
    const char *what, *path; /* what the path is to the run ("--resume"); NULL: not given */
} named_path;

/* The run's input files into in (the asset and --resume first); their count. */
static int input_paths(const options *o, named_path in[2 + SIM_MAX_MESHES + SIM_MAX_ADDS])
{
    int n = 0;
    in[n++] = (named_path){"the asset", o->asset_path};
    in[n++] = (named_path){"--resume", o->resume};
    for (unsigned m = 0; m < o->mesh_count; m++)
        in[n++] = (named_path){"--collider", o->meshes[m].path};
    for (unsigned a = 0; a < o->add_count; a++)
        in[n++] = (named_path){"--add", o->adds[a].path};
    return n;
}

/* Every input, before anything runs: each a regular file that opens. 0,
 * having said why. */
static int check_inputs(const options *o)
{
    named_path in[2 + SIM_MAX_MESHES + SIM_MAX_ADDS];
    const int ins = input_paths(o, in);
    for (int i = 0; i < ins; i++)
        if (in[i].path && !cli_input("sinew-sim", in[i].what, in[i].path))
            return 0;
    return 1;
}

/* Every output, before anything runs: the folder exists (made with any
 * folders above it), no output is an input or another output, each can be
 * written (core/file.h's rules: never a device, FIFO, socket or folder; a
 * symbolic link written through), and --video has ffmpeg. 0, having said
 * why. */
static int check_outputs(const options *o)
{
    const char *t = "sinew-sim";
    struct stat st;
    if (stat(o->out_dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: -o %s is a file; -o names the folder the results go to\n", t, o->out_dir);
        return 0;
    }
    if (!cli_mkdir_p(o->out_dir)) {
        fprintf(stderr, "%s: cannot create the folder %s: %s\n", t, o->out_dir, strerror(errno));
        return 0;
    }
    char mesh[4096];
    snprintf(mesh, sizeof mesh, "%s/final.obj", o->out_dir);
    named_path in[2 + SIM_MAX_MESHES + SIM_MAX_ADDS];
    const int ins = input_paths(o, in);
    const named_path out[] = {{"--checkpoint", o->checkpoint}, {"--json", o->json}, {"--log", o->log},
                              {"--video", o->video}, {"the final mesh", mesh}};
    const int outs = sizeof out / sizeof out[0];
    for (int k = 0; k < outs; k++) {
        if (!out[k].path)
            continue;
        for (int i = 0; i < ins; i++) /* a checkpoint may go on replacing the one resumed from */
            if (in[i].path && !(k == 0 && i == 1) && cli_same_file(out[k].path, in[i].path)) {
                fprintf(stderr, "%s: %s %s is %s %s: an output never overwrites an input\n", t, out[k].what,
                        out[k].path, in[i].what, in[i].path);
                return 0;
            }
        for (int j = 0; j < k; j++)
            if (out[j].path && cli_same_file(out[k].path, out[j].path)) {
                fprintf(stderr, "%s: %s and %s both name %s\n", t, out[j].what, out[k].what, out[k].path);
                return 0;
            }
        if (!cli_output(t, out[k].what, out[k].path))
            return 0;
    }
    if (o->video && system("command -v ffmpeg > /dev/null 2>&1") != 0) {
        fprintf(stderr, "%s: --video needs ffmpeg on PATH (Debian: ffmpeg); none found\n", t);
        return 0;
    }
    return 1;
}

/* The body as OBJ: its render mesh where it has one, else its particles and
 * the triangles shown. */
static int write_body_obj(sim *s, const char *path)
{
    if (s->render_count)
        return sinew_body_read_render_vertices(s->body, s->render_out, s->render_count) == SINEW_RESULT_OK &&
               write_render_obj(path, s->render_out, s->render_count, s->render_indices, s->render_index_count,
                                s->origin, s->asset);
    return sinew_body_read_positions(s->body, s->xyz, s->ai.particle_count) == SINEW_RESULT_OK &&
           sim_write_obj(path, s->xyz, s->ai.particle_count, s->tris, s->tri_count, s->origin);
}

/* ------------------------------------------------------------------ the run */

#ifdef SINEW_HAVE_PNG
/* A picture of the step: every body, the others (--add) each in a colour of
 * its own. */
static int picture(sim *s, const char *path)
{
    if (s->follow) /* the cape scene's camera, placed in the frame as it is now */
        for (int k = 0; k < 2; k++) {
            float turned[3];
            sim_rotate(s->frame.rotation, k ? scene_cape_target : scene_cape_eye, turned);
            for (int c = 0; c < 3; c++)
                (k ? s->camera.target : s->camera.eye)[c] = s->frame.position[c] + turned[c];
        }
    return render_frame(s->renderer, &s->p, &s->camera, path);
}
#endif

/* Step f's measures: the tally, the log line, the meshes, pictures and
 * checkpoints it asks for, and the progress line. f counts from the start of
 * the scene, a resumed run's steps after the checkpoint's. */
static int after_step(const options *o, sim *s, tally *t, unsigned f, double step_s, int tty)
{
    const uint32_t n = s->ai.particle_count;
    const unsigned k = f - t->first, last = t->first + o->frames; /* this run's k-th step of o->frames */
    sinew_step_stats st = sinew_body_get_stats(s->body);
    if (st.ms_total > 0) {
        t->gpu_ms += st.ms_total;
        t->gpu_steps++;
    }
    t->fastest = st.max_speed > t->fastest ? st.max_speed : t->fastest;
    t->health_inverted = st.inverted_elements > t->health_inverted ? st.inverted_elements : t->health_inverted;
    t->health_volume_error = fmax(t->health_volume_error, st.max_volume_error);
    t->newton_sum += (double)st.newton_iterations;
    t->linear_sum += st.linear_iterations;
    t->linear_ms += st.ms_linear;
    t->linear_worst = st.linear_residual > t->linear_worst ? st.linear_residual : t->linear_worst;
    t->linear_unconverged += st.linear_unconverged;
    t->self_candidates += st.self_candidates;
    t->self_contacts += st.self_contacts;
    t->self_dropped += st.self_dropped;
    t->residual = st.residual;
    t->error_estimate = st.error_estimate;
    /* NaN compares false: a non-finite residual counts as the worst */
    if (!(st.residual <= t->worst_residual))
        t->worst_residual = st.residual;
    t->worst_strain = st.max_strain > t->worst_strain ? st.max_strain : t->worst_strain;
    /* NaN compares false: a non-finite strain counts as the worst. */
    t->worst_rms = !(st.rms_strain <= t->worst_rms) ? st.rms_strain : t->worst_rms;
    if (s->soft) {
        if (sinew_body_read_positions(s->body, s->xyz, n) != SINEW_RESULT_OK)
            return 0;
        t->last = soft_measure_shape(&s->measure, s->xyz, n);
        if (!(t->last.max_error <= t->worst.max_error) || t->worst_step < 0) {
            t->worst = t->last;
            t->worst_step = f;
        }
        if (t->last.inverted > t->most_inverted || t->worst_inverted_step < 0) {
            t->most_inverted = t->last.inverted;
            t->worst_inverted_step = f;
        }
        if (t->recovered_step < 0 && shape_recovered(&t->last))
            t->recovered_step = f;
    }
    const double updates = element_updates(o, s);
    if (s->log && s->soft)
        fprintf(s->log, "%u,%.4f,%.4f,%.6g,%.6g,%.6g,%u,%.6g,%.6g,%.4g,%.6g\n", f, 1e3 * step_s, st.ms_total,
                t->last.max_error, t->last.rms_error, t->last.total_error, t->last.inverted, t->last.max_green,
                st.max_speed, updates > 0 ? st.newton_iterations / updates : 0.0, st.residual);
    else if (s->log) {
        double most = 0.0, mean = 0.0;
        if (sinew_body_read_positions(s->body, s->xyz, n) != SINEW_RESULT_OK)
            return 0;
        cloth_stretch(s->xyz, s->ends, s->rest_length, s->ai.distance_count, &most, &mean);
        fprintf(s->log, "%u,%.4f,%.4f,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", f, 1e3 * step_s, st.ms_total,
                st.max_strain, st.rms_strain, st.max_speed, most, mean, st.residual);
    }
    if (o->every && f % o->every == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/frame_%05u.obj", o->out_dir, f);
        if (!write_body_obj(s, path))
            return 0;
#ifdef SINEW_HAVE_PNG
        snprintf(path, sizeof path, "%s/frame_%05u.png", o->out_dir, f);
        if (s->renderer && !picture(s, path))
            return 0;
#endif
    }
    if (o->checkpoint && (f == last || (o->checkpoint_every && f % o->checkpoint_every == 0)) &&
        sim_save_checkpoint(s, o->checkpoint) != SINEW_RESULT_OK)
        return 0;
    if (!o->quiet && (k % (o->frames / 10 ? o->frames / 10 : 1) == 0 || k == o->frames)) {
        int bar = (int)(30.0 * k / o->frames);
        printf("%s  [%.*s%*s] %3u%%  step %u  ", tty ? "\r" : "", bar, "##############################", 30 - bar, "",
               (unsigned)(100.0 * k / o->frames), f);
        if (s->soft)
            printf("max |V/V0 - 1| %.3f%%  RMS %.3f%%  inverted %u%s", 100.0 * t->last.max_error,
                   100.0 * t->last.rms_error, t->last.inverted, tty ? "" : "\n");
        else
            printf("max strain %.3f%%%s", 100.0 * st.max_strain, tty ? "" : "\n");
        fflush(stdout);
    }
    return 1;
}

/* --check-outside: each particle (s->xyz, after the last step) against each
 * shape of the list where the last step left it. */
static void outside_colliders(const options *o, const sim *s, tally *t)
{
    t->nearest = INFINITY;
    for (uint32_t i = 0; i < s->ai.particle_count; i++) {
        float least = INFINITY;
        for (unsigned k = 0; k < o->shape_count; k++) {
            const float phi = sim_shape_distance(&s->shapes[k], &s->xyz[3 * i], s->meshes);
            if (phi < t->nearest)
                t->nearest = phi, t->nearest_particle = i, t->nearest_shape = k;
            least = fminf(least, phi);
        }
        t->inside += !(least >= (float)-o->check_outside); /* NaN counts as inside */
    }
}

/* --flag: where the fly end is (s->xyz, after the last step) from the
 * hoist: the middles of the rest pose's two vertical edges. */
static void flag_fly_end(const sim *s, tally *t)
{
    const float lo = s->ai.bounds_min[0], hi = s->ai.bounds_max[0], tol = 1e-3f * (hi - lo);
    double hoist[3] = {0, 0, 0}, fly[3] = {0, 0, 0};
    unsigned nh = 0, nf = 0;
    for (uint32_t i = 0; i < s->ai.particle_count; i++) {
        const float x = s->rest[3 * i];
        double *sum = x <= lo + tol ? hoist : x >= hi - tol ? fly : NULL;
        if (!sum)
            continue;
        nh += sum == hoist;
        nf += sum == fly;
        for (int k = 0; k < 3; k++)
            sum[k] += s->xyz[3 * i + k];
    }
    const float *w = s->p.wind;
    const double wh = sqrt((double)w[0] * w[0] + (double)w[2] * w[2]);
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = fly[k] / (nf ? nf : 1) - hoist[k] / (nh ? nh : 1);
    t->fly_downwind = wh > 0.0 ? (d[0] * w[0] + d[2] * w[2]) / wh : NAN;
    t->fly_drop = -d[1];
}

/* --frame-motion: the frame's pose at the end of step f (step 0: at
 * creation). circle: its centre walks the circle of radius R from frame0
 * along +x, turning left (about +y) with its direction of travel; rotate:
 * it turns about +y where it stands. */
static sinew_frame frame_at(const options *o, const sim *s, unsigned f)
{
    const double time = f * o->dt, *m = o->frame_motion;
    const double turn = o->frame_kind == 1 ? 6.283185307179586 * time / m[1] : o->frame_kind == 2 ? m[0] * time : 0.0;
    const double radius = o->frame_kind == 1 ? m[0] : 0.0;
    sinew_frame frame = s->frame0;
    /* the rotation by `turn` about +y takes +x to (cos, 0, -sin): the path's direction */
    frame.position[0] += (float)(radius * sin(turn));
    frame.position[2] -= (float)(radius * (1.0 - cos(turn)));
    frame.rotation[1] = (float)sin(0.5 * turn);
    frame.rotation[3] = (float)cos(0.5 * turn);
    return frame;
}

/* The quaternion product a b (x y z w). */
static void quat_mul(const float a[4], const float b[4], float out[4])
{
    out[0] = a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2];
    out[2] = a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* The pose frame gives shape k of the options: its pose at the start
 * (the options' world pose, with the frame at frame0) carried rigidly. */
static void shape_on_frame(const sim *s, const sinew_shape *start, const sinew_frame *frame, sinew_shape *out)
{
    const float d[3] = {start->position[0] - s->frame0.position[0], start->position[1] - s->frame0.position[1],
                        start->position[2] - s->frame0.position[2]};
    const float *q0 = s->frame0.rotation, inverse0[4] = {-q0[0], -q0[1], -q0[2], q0[3]};
    float turn[4], world[3];
    quat_mul(frame->rotation, inverse0, turn); /* frame0 to frame */
    sim_rotate(turn, d, world);
    for (int k = 0; k < 3; k++)
        out->position[k] = frame->position[k] + world[k];
    quat_mul(turn, start->rotation, out->rotation);
}

/* --shapes-on-frame: each shape of the list at the frame's pose before the
 * step, moving and turning through the step to where the frame's pose after
 * it puts it (the step moves a shape on a straight line at constant angular
 * velocity: the chord of the frame's arc). */
static void shapes_on_frame(const options *o, sim *s, const sinew_frame *before, const sinew_frame *after)
{
    const float dt = s->p.dt;
    for (unsigned k = 0; k < o->shape_count; k++) {
        sinew_shape *sh = &s->shapes[k], end = o->shapes[k];
        shape_on_frame(s, &o->shapes[k], before, sh);
        shape_on_frame(s, &o->shapes[k], after, &end);
        /* the turn from the start to the end pose, end q start^-1, as an angular velocity */
        const float inverse[4] = {-sh->rotation[0], -sh->rotation[1], -sh->rotation[2], sh->rotation[3]};
        float delta[4];
        quat_mul(end.rotation, inverse, delta);
        if (delta[3] < 0.0f)
            for (int c = 0; c < 4; c++)
                delta[c] = -delta[c];
        const float sine = sqrtf(delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]);
        const float angle = 2.0f * atan2f(sine, delta[3]);
        for (int c = 0; c < 3; c++) {
            sh->velocity[c] = (end.position[c] - sh->position[c]) / dt;
            sh->angular_velocity[c] = sine > 0.0f ? delta[c] / sine * angle / dt : 0.0f;
        }
    }
}

/* A signal (stop.h) before step f: the run ends after the step before it,
 * and writes what a finished run writes. */
static void stopped(const options *o, tally *t, int tty)
{
    t->interrupted = stop_signal();
    if (!o->quiet && tty)
        printf("\n");
    fflush(stdout);
    fprintf(stderr, "sinew-sim: %s: stopping after step %u; writing the outputs (a second %s ends at once, without "
            "them)\n", stop_name(), t->first + t->steps_done, stop_name());
}

/* The state after a step, kept in memory for --retries (s->kept): the
 * body's checkpoint and the colliders. */
typedef struct good_state {
    size_t size;
    unsigned step;
    sinew_shape shapes[SIM_MAX_SHAPES];
    unsigned char bytes[]; /* size bytes */
} good_state;
#define RETRY_EVERY 8 /* steps between kept states: a retry goes back at most this far */
#define STUCK_WINDOWS 3 /* windows of RETRY_EVERY steps in a row with a tetrahedron inverted: a failed landing */

/* A landing's course, for --retries: the last good state and the window of
 * steps since the last look at it. */
typedef struct landing {
    good_state *good;
    unsigned window_start, bad_windows;
    uint32_t window_inverted; /* the most inverted in a step since window_start */
} landing;

static good_state *keep_good_state(sim *s, unsigned step)
{
    const size_t size = sinew_body_checkpoint_size(s->body);
    good_state *g = s->kept;
    if (!g || size > g->size) {
        g = realloc(s->kept, sizeof *g + size);
        if (!g) {
            fprintf(stderr, "sinew-sim: out of host memory\n");
            return NULL;
        }
        s->kept = g;
    }
    g->size = size;
    g->step = step;
    memcpy(g->shapes, s->shapes, sizeof g->shapes);
    sinew_result r = sinew_body_save_checkpoint(s->body, g->bytes, size);
    if (r != SINEW_RESULT_OK)
        fprintf(stderr, "sinew-sim: keeping the state after step %u failed: %s\n", step, sinew_result_string(r));
    return r == SINEW_RESULT_OK ? g : NULL;
}

/* Goes back to the kept state `good` and on at twice the substeps, when
 * --retries allows another: step f failed the health check (inverted 0), or
 * tetrahedra stayed inverted up to it (as many as `inverted` in a step). 1 when it went back, 0 when
 * not, -1 (said) when going back failed. */
static int retry(options *o, sim *s, tally *t, landing *l, unsigned f, uint32_t inverted)
{
    const good_state *good = l->good;
    if (t->retry_count >= o->retries || 2 * o->substeps > 1000 ||
        sinew_body_set_substeps(s->body, 2 * o->substeps) != SINEW_RESULT_OK)
        return 0;
    const unsigned from = o->substeps;
    o->substeps *= 2;
    if (t->retry_count < SIM_MAX_RETRIES_KEPT)
        t->retries[t->retry_count] = (sim_retry){f, from, o->substeps, good->step};
    t->retry_count++;
    if (!o->quiet && isatty(fileno(stdout)))
        printf("\n");
    if (!inverted)
        fprintf(stderr, "sinew-sim: step %u failed the health check at %u substeps: back to step %u, on at %u\n", f,
                from, good->step, o->substeps);
    else if (f == t->first + o->frames)
        fprintf(stderr, "sinew-sim: %u tetrahedra inverted at the last step, %u, at %u substeps: back to step %u, on "
                "at %u\n", inverted, f, from, good->step, o->substeps);
    else
        fprintf(stderr, "sinew-sim: tetrahedra inverted (up to %u in a step) in each of the %u windows of %u steps "
                "to step %u at %u substeps: back to step %u, on at %u\n", inverted, STUCK_WINDOWS, RETRY_EVERY, f,
                from, good->step, o->substeps);
    sinew_result r = sinew_body_load_checkpoint(s->body, good->bytes, good->size);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: going back to step %u failed: %s\n", good->step, sinew_result_string(r));
        return -1;
    }
    memcpy(s->shapes, good->shapes, sizeof good->shapes);
    l->window_start = good->step;
    l->window_inverted = l->bad_windows = 0;
    return 1;
}

/* The steps, until --frames, an unstable one or a signal (stop.h), then the
 * last frame's picture, the video, the final mesh and, after a signal, the
 * checkpoint. 0, having said why, on a failure. */
static int run(options *o, sim *s, tally *t)
{
    const sinew_asset_info ai = s->ai;
    s->di = sinew_context_get_device_info(s->ctx);
    if (!o->quiet && !s->soft)
        printf("sinew-sim: %s on %s\n  %u particles, %u triangles, %u distance + %u bending constraints in %u colours\n",
               s->name, s->di.name, ai.particle_count, ai.triangle_count, ai.distance_count, ai.bend_count,
               ai.colour_count);
    else if (!o->quiet)
        printf("sinew-sim: %s on %s\n  %u particles (%u pinned), %u tetrahedra in %u colours, %u boundary triangles\n",
               s->name, s->di.name, ai.particle_count, ai.pinned_count, ai.tet_count, ai.element_colour_count,
               ai.triangle_count);
    if (!o->quiet && world_digits(s->origin) > 9)
        printf("  origin %.17g, %.17g, %.17g m (the asset's plus --origin): the body works in its own frame there; "
               "the meshes are written in the world\n", s->origin[0], s->origin[1], s->origin[2]);
    if (!o->quiet && o->resume)
        printf("  resumed at step %llu from %s\n", (unsigned long long)sinew_body_get_stats(s->body).step_index,
               o->resume);
    if (s->soft) {
        if (sinew_body_read_positions(s->body, s->xyz, ai.particle_count) != SINEW_RESULT_OK)
            return 0;
        t->start = t->last = soft_measure_shape(&s->measure, s->xyz, ai.particle_count);
        if (!o->quiet && (o->scene == SCENE_BLOCK_FLAT || o->scene == SCENE_BLOCK_RANDOM))
            printf("  start: %u inverted tetrahedra, max |V/V0 - 1| %.3g, max Green strain %.3g\n", t->start.inverted,
                   t->start.max_error, t->start.max_green);
    }
    float x_max = -INFINITY;
    for (uint32_t k = 0; k < s->pin_count; k++)
        x_max = fmaxf(x_max, s->rest[3 * s->pins[k]]);
    /* A resumed run goes on where the checkpoint's left off: its frames
     * (one step each) count on from the checkpoint's step, so the pins' ramp,
     * the cut and the moving box are where the uninterrupted run has them. */
    const uint64_t before = sinew_body_get_stats(s->body).step_index;
    if (before > UINT_MAX - o->frames) {
        fprintf(stderr, "sinew-sim: %s was saved after %llu steps: %u more pass the limit of %u\n", o->resume,
                (unsigned long long)before, o->frames, UINT_MAX);
        return 0;
    }
    t->first = (unsigned)before;
    for (uint64_t k = 0; k < before; k++) /* the colliders as the steps before moved them, bit for bit */
        for (unsigned c = 0; c < o->shape_count; c++)
            sim_shape_advance(&s->shapes[c], s->p.dt);
    double last_s = 0.0, t0 = now_s();
    const int tty = isatty(fileno(stdout));
    /* The last good state, for --retries: a soft body from an asset (a
     * landing), one body, no cut. */
    landing l = {0};
    const int keep_good = o->retries && s->soft && o->asset_path && !s->world && !o->cut_set;
    for (unsigned f = t->first + 1; f <= t->first + o->frames; f++) {
        if (stop_signal()) {
            stopped(o, t, tty);
            break;
        }
        /* A state is kept when no tetrahedron was inverted in the RETRY_EVERY
         * steps before it. STUCK_WINDOWS such windows in a row with some
         * inverted (a part flipping back and forth, within the health
         * check's bounds in every step; an impact's lasts a few steps) are a
         * landing that failed: back, as below. */
        if (keep_good && (!l.good || f - 1 >= l.window_start + RETRY_EVERY)) {
            const int back = l.window_inverted && ++l.bad_windows >= STUCK_WINDOWS
                                 ? retry(o, s, t, &l, f - 1, l.window_inverted)
                                 : 0;
            if (back) {
                if (back < 0)
                    return 0;
                f = l.good->step; /* the loop's next step is the one after it */
                continue;
            }
            if (!l.window_inverted) {
                if (!(l.good = keep_good_state(s, f - 1)))
                    return 0;
                l.bad_windows = 0;
            }
            l.window_start = f - 1;
            l.window_inverted = 0;
        }
        if (s->pin_count) {
            /* The ends are where they should be at the end of this step. */
            double ramp = soft_ramp(f * o->dt / o->ramp);
            if (ramp != last_s) {
                soft_bar_pins(o->scene, ramp, o->scale, o->turns, s->rest, s->pins, s->pin_count, x_max, s->pin_xyz);
                sinew_result r = sinew_body_move_pinned(s->body, s->pins, s->pin_count, s->pin_xyz);
                if (r != SINEW_RESULT_OK) {
                    fprintf(stderr, "sinew-sim: moving the pins before step %u failed: %s\n", f,
                            sinew_result_string(r));
                    return 0;
                }
                last_s = ramp;
            }
        }
        if (o->cut_set && f == o->cut_frame && !sim_cut(o, s))
            return 0;
        if (s->attached_count) { /* the frame where it is at the end of this step */
            const sinew_frame before_step = frame_at(o, s, f - 1);
            s->frame = frame_at(o, s, f);
            s->p.frames = &s->frame;
            s->p.frame_count = 1;
            if (o->shapes_on_frame)
                shapes_on_frame(o, s, &before_step, &s->frame);
        }
        double ts = now_s();
        sinew_result r = sim_step(s); /* the world's bodies all in one submit */
        double step_s = now_s() - ts;
        for (unsigned c = 0; c < o->shape_count; c++) /* the colliders where the step left them */
            sim_shape_advance(&s->shapes[c], s->p.dt);
        /* A step the health check rolled back, or a last step with
         * tetrahedra inverted (a run ends stable only with none: a second
         * impact, a part still flipping): the run goes back to the last good
         * state and on from there at twice the substeps (--retries),
         * colliders as they were. */
        const uint32_t inverted = r == SINEW_RESULT_OK ? sinew_body_get_stats(s->body).inverted_elements : 0;
        const int last = inverted && f == t->first + o->frames;
        const int back = l.good && (r == SINEW_RESULT_ERROR_UNSTABLE || last)
                             ? retry(o, s, t, &l, f, last ? inverted : 0)
                             : 0;
        if (back) {
            if (back < 0)
                return 0;
            f = l.good->step;
            continue;
        }
        if (r == SINEW_RESULT_ERROR_UNSTABLE) {
            fprintf(stderr, "sinew-sim: step %u was unstable (the health check failed; rolled back to the state "
                            "before it): the run ends here\n", f);
            t->unstable_step = f;
            break;
        }
        if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "sinew-sim: step %u failed: %s\n", f, sinew_result_string(r));
            return 0;
        }
        t->steps_done = f - t->first;
        l.window_inverted = inverted > l.window_inverted ? inverted : l.window_inverted;
        t->step_wall += step_s;
        if (!after_step(o, s, t, f, step_s, tty))
            return 0;
    }
    if (!o->quiet && tty && !t->interrupted)
        printf("\n");
    t->wall = now_s() - t0;
    /* a body of constraints has no estimate in its steps: its static one,
     * once, after the last, where nothing but its energy and gravity holds
     * it (docs/accuracy.md; the library says why where it has none) */
    const sinew_step_params *p = &s->p;
    const int contacts = p->ground || p->sphere || p->box || p->capsule || p->collider || p->shape_count || s->world;
    if (o->check_residual > 0 && t->error_estimate < 0 && t->steps_done && !s->soft && !contacts &&
        sinew_body_estimate_error(s->body, p, &t->static_error) != SINEW_RESULT_OK)
        t->static_error.error = -1.0;
    /* the state the run stopped at, to go on from (after_step saved the last step's) */
    if (t->interrupted && o->checkpoint && sim_save_checkpoint(s, o->checkpoint) != SINEW_RESULT_OK)
        return 0;
#ifdef SINEW_HAVE_PNG
    if (s->renderer) {
        snprintf(t->picture, sizeof t->picture, "%s/final.png", o->out_dir);
        if (!picture(s, t->picture))
            return 0;
    }
#endif
    if (o->video && !make_video(o))
        return 0;
    snprintf(t->mesh, sizeof t->mesh, "%s/final.obj", o->out_dir);
    if (!write_body_obj(s, t->mesh) || sinew_body_read_positions(s->body, s->xyz, ai.particle_count) != SINEW_RESULT_OK)
        return 0;
    if (o->check_outside > 0)
        outside_colliders(o, s, t);
    if (o->flag)
        flag_fly_end(s, t);
    if (o->intersections) {
        sinew_logger lg = sinew_logger_default();
        lg.level = SINEW_LOG_WARNING;
        if (sinew_count_intersections(s->xyz, ai.particle_count, s->tris, s->tri_count, &lg, &t->crossings) !=
            SINEW_RESULT_OK)
            return 0;
    }
    if (!sim_world_write_meshes(o, s) || (s->world && o->intersections && !sim_world_crossings(s, &t->between)))
        return 0;
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    int go = sim_parse(argc, argv, &o);
    if (go <= 0)
        return go < 0 ? 2 : 0;
    if (!check_inputs(&o))
        return 1;
    if (!check_outputs(&o))
        return 2;
    stop_catch(1); /* the steps end at a signal; the outputs are written (stop.h) */
    sim s;
    memset(&s, 0, sizeof s);
    tally t = {.worst_step = -1, .worst_inverted_step = -1, .recovered_step = -1, .residual = -1.0,
               .worst_residual = -1.0, .error_estimate = -1.0, .static_error = {.error = -1.0}};
    int status = sim_build(&o, &s) && run(&o, &s, &t) ? sim_report(&o, &s, &t) : 1;
    fflush(stdout); /* before any exit-time report a sanitizer may end the process with */
    if (!sim_free(&o, &s))
        status = 1;
    return status;
}
