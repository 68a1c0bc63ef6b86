/* sinew-sim's command line: the option table (cli.h), its --help, and the
 * settings a soft-body scene brings where no option gave one. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "prep/estimate.h"
#include "scene.h"
#include "sim.h"
#include "soft_scenes.h"

static const char *const usage_head =
    "usage: sinew-sim [ASSET.snw] [options]\n"
    "\n"
    "Simulates an asset (made by sinew-prep) or, with no asset, a scene: by default\n"
    "a 64 x 64 cloth pinned at two corners falling past a sphere onto the ground.\n"
    "Prints progress and a summary; writes the final mesh as OBJ and, for the\n"
    "default scene or with --png, a picture of it (final.png).\n"
    "\n";

static const char *const usage_soft =
    "\n"
    "Soft-body scenes (Generalized PBD, docs/gpbd-scenes.md), boxes of N^3 vertices\n"
    "with 6 tetrahedra per cell, built in memory:\n";

static const char *const usage_scenes =
    "        cube-drop           1 m cube of 26^3 vertices dropped from 0.5 m onto the\n"
    "                            ground; dt 1/60 s, 4 substeps x 3 iterations, 120 steps\n"
    "        bar-stretch         2 x 1 x 1 m bar of 16^3 vertices, both end faces pinned\n"
    "                            and pulled apart to --scale (1.5) times its length\n"
    "        bar-compress        21^3 vertices, ends pushed together to --scale (0.5)\n"
    "        bar-twist           16^3 vertices, one end turned by --turns (2) turns\n"
    "                            bars: no gravity, dt 1 ms, 1 x 3 iterations, 2000 steps\n"
    "                            (2 s); the ends move over the first --ramp (1) s\n"
    "        block-flat          1 m block of 21^3 vertices started with every y at the\n"
    "                            bottom; no gravity, damping 2/s, dt 10 ms, 1 x 6\n"
    "                            iterations, 200 steps\n"
    "        block-random        the same started from random positions; 1 x 8\n"
    "        crowd               4 soft blocks of 4^3 vertices (0.4 m, E 2e5 Pa) two by two\n"
    "                            on the ground and 4 cloths of 14 x 14 (1.2 m, bend\n"
    "                            compliance 100) dropped onto them from 0.46 to 0.64 m,\n"
    "                            each turned 22.5 deg from the one below: one world, the\n"
    "                            blocks one batch (GPBD Gauss-Seidel, --solver), the cloths\n"
    "                            another (XPBD Gauss-Seidel), contacts on (--thickness 0.01,\n"
    "                            the blocks half); dt 1/60 s, 4 x 2 iterations, 45 steps;\n"
    "                            a picture (final.png).\n"
    "                            --cells N: blocks of N^3, cloths of (3N+2)^2 vertices\n";

static const char *const usage_tail =
    "\n"
    "Every input and output is checked before the run, before any Vulkan device is\n"
    "opened: each input must be a file that opens; no output may be an input (a\n"
    "checkpoint may replace the one --resume read), a device, FIFO, socket or folder\n"
    "(a symbolic link is written through to its file), each must be writable,\n"
    "--video needs ffmpeg.\n"
    "\n"
    "Ctrl-C (SIGINT), SIGTERM or SIGHUP (unless ignored, as under nohup) ends the\n"
    "run after the step in progress: the summary, --json (\"status\": \"interrupted\",\n"
    "with the signal and the last step), the final mesh and picture and the\n"
    "--checkpoint of that step are written as at the end of a run, and sinew-sim\n"
    "exits with 128 + the signal's number. A second signal of the same kind ends it\n"
    "at once, without them.\n"
    "\n"
    "Exit status: 0 done, 1 failure (an input among them), 2 bad options or outputs,\n"
    "3 a check failed or a step was unstable (summary printed), 130 stopped by\n"
    "SIGINT, 143 by SIGTERM, 129 by SIGHUP (outputs written).\n";

static int is_gpbd(sinew_solver s) { return s == SINEW_SOLVER_GPBD_GAUSS_SEIDEL || s == SINEW_SOLVER_GPBD_JACOBI; }

static int parse_sweep(const char *tool, const char *opt, const char *text, void *value)
{
    static const char *const names[] = {"forward", "alternating"};
    int k = cli_choice(tool, opt, text, names, 2);
    if (k >= 0)
        *(int *)value = k ? SINEW_SWEEP_ALTERNATING : SINEW_SWEEP_FORWARD;
    return k >= 0;
}

static int parse_edge(const char *tool, const char *opt, const char *text, void *value)
{
    static const char *const names[] = {"x-", "x+", "y-", "y+", "z-", "z+"};
    int k = cli_choice(tool, opt, text, names, 6);
    if (k >= 0)
        *(int *)value = k;
    return k >= 0;
}

/* still | circle:R,T | rotate:W into kind (options.frame_kind) and the two numbers after it. */
static int parse_motion(const char *tool, const char *opt, const char *text, void *value)
{
    options *o = (options *)((char *)value - offsetof(options, frame_kind));
    double a = 0.0, b = 0.0;
    int ok = 1;
    if (strcmp(text, "still") == 0)
        o->frame_kind = 0;
    else if (sscanf(text, "circle:%lf,%lf", &a, &b) == 2 && isfinite(a) && a >= 0.0 && isfinite(b) && b > 0.0)
        o->frame_kind = 1;
    else if (sscanf(text, "rotate:%lf", &a) == 1 && isfinite(a))
        o->frame_kind = 2;
    else
        ok = 0;
    if (!ok) {
        fprintf(stderr, "%s: %s takes still, circle:R,PERIOD (m, s > 0) or rotate:W (rad/s), not '%s'\n", tool, opt,
                text);
        return 0;
    }
    o->frame_motion[0] = a;
    o->frame_motion[1] = b;
    return 1;
}

static int parse_layout(const char *tool, const char *opt, const char *text, void *value)
{
    static const char *const names[] = {"colours", "clusters"};
    int k = cli_choice(tool, opt, text, names, 2);
    if (k >= 0)
        *(int *)value = k ? SINEW_SWEEP_LAYOUT_CLUSTERS : SINEW_SWEEP_LAYOUT_COLOURS;
    return k >= 0;
}

static int parse_material(const char *tool, const char *opt, const char *text, void *value)
{
    static const char *const names[] = {"nh", "snh"};
    int k = cli_choice(tool, opt, text, names, 2);
    if (k >= 0)
        *(int *)value = k ? SINEW_MATERIAL_STABLE_NEO_HOOKEAN : SINEW_MATERIAL_NEO_HOOKEAN;
    return k >= 0;
}

/* --scene NAME: a soft-body scene of soft_scenes.h, or crowd (options.crowd). */
static int parse_scene(const char *tool, const char *opt, const char *text, void *value)
{
    options *o = (options *)((char *)value - offsetof(options, scene));
    const char *names[SCENE_COUNT + 1];
    for (int s = 0; s < SCENE_COUNT; s++)
        names[s] = soft_scenes[s].name;
    names[SCENE_COUNT] = "crowd";
    int k = cli_choice(tool, opt, text, names, SCENE_COUNT + 1);
    if (k >= 0) {
        o->crowd = k == SCENE_COUNT;
        o->scene = o->crowd ? SCENE_CLOTH : k;
    }
    return k >= 0;
}

/* ---------------------------------------------------------- the collider list
 *
 * Each --sphere, --capsule, --box and --collider is one more shape of the
 * list; --velocity and --spin set the motion of the shape given last,
 * --collider-at, --collider-size and --collider-resolution the pose and
 * field of the --collider given last. */

/* The comma-separated numbers text holds. */
static int field_count(const char *text)
{
    int n = 1;
    for (const char *c = text; *c; c++)
        n += *c == ',';
    return n;
}

/* Exactly `a` or (b > 0) `b` comma-separated finite numbers into out: how
 * many, or 0 having said why (naming what each field is). */
static int read_fields(const char *tool, const char *opt, const char *text, int a, int b, const char *names,
                       double *out)
{
    const int n = field_count(text);
    if (n != a && n != b) {
        char counts[32];
        snprintf(counts, sizeof counts, b ? "%d or %d" : "%d", a, b);
        fprintf(stderr, "%s: %s: \"%s\" has %d numbers; it takes %s: %s\n(try %s --help)\n", tool, opt, text, n,
                counts, names, tool);
        return 0;
    }
    return cli_doubles(tool, opt, text, n, out) ? n : 0;
}

/* One more shape of the list, of no motion; NULL, having said why, when full. */
static sinew_shape *add_shape(const char *tool, const char *opt, options *o, sinew_shape_kind kind)
{
    if (o->shape_count == SIM_MAX_SHAPES) {
        fprintf(stderr, "%s: %s: at most %d colliders (--sphere, --capsule, --box, --collider)\n(try %s --help)\n",
                tool, opt, SIM_MAX_SHAPES, tool);
        return NULL;
    }
    memset(o->shape_at[o->shape_count], 0, sizeof o->shape_at[0]);
    sinew_shape *s = &o->shapes[o->shape_count++];
    *s = sinew_shape_default(kind);
    return s;
}

/* Where shape s of the options goes in the world: kept in double, the
 * float position taken from it in the body's frame once the origin is
 * known (sim_scene.c). */
static void place_shape(options *o, sinew_shape *s, const double at[3])
{
    for (int k = 0; k < 3; k++) {
        o->shape_at[s - o->shapes][k] = at[k];
        s->position[k] = (float)at[k];
    }
}

/* The rotation of --box and --collider-at from AX,AY,AZ,DEG; 0, having said
 * why, for a zero axis with a turn. */
static int read_turn(const char *tool, const char *opt, const char *text, const double *f, float q[4])
{
    if (sim_axis_angle(f, f[3], q))
        return 1;
    fprintf(stderr, "%s: %s: \"%s\" turns by %g degrees about the axis 0,0,0; the axis must not be zero\n"
                    "(try %s --help)\n", tool, opt, text, f[3], tool);
    return 0;
}

static int non_negative(const char *tool, const char *opt, const char *what, double v)
{
    if (v >= 0.0)
        return 1;
    return cli_error(tool, "%s: %s must be >= 0", opt, what);
}

/* --sphere X,Y,Z,R */
static int parse_sphere(const char *tool, const char *opt, const char *text, void *value)
{
    double f[4];
    if (!read_fields(tool, opt, text, 4, 0, "X,Y,Z,R", f) || !non_negative(tool, opt, "the radius", f[3]))
        return 0;
    sinew_shape *s = add_shape(tool, opt, value, SINEW_SHAPE_SPHERE);
    if (!s)
        return 0;
    place_shape(value, s, f);
    s->radius = (float)f[3];
    return 1;
}

/* --capsule AX,AY,AZ,BX,BY,BZ,R: centred between A and B, its local y axis
 * along B - A (turned from y about y x (B - A)). */
static int parse_capsule(const char *tool, const char *opt, const char *text, void *value)
{
    double f[7];
    if (!read_fields(tool, opt, text, 7, 0, "AX,AY,AZ,BX,BY,BZ,R", f) || !non_negative(tool, opt, "the radius", f[6]))
        return 0;
    const double d[3] = {f[3] - f[0], f[4] - f[1], f[5] - f[2]};
    const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    sinew_shape *s = add_shape(tool, opt, value, SINEW_SHAPE_CAPSULE);
    if (!s)
        return 0;
    const double centre[3] = {0.5 * (f[0] + f[3]), 0.5 * (f[1] + f[4]), 0.5 * (f[2] + f[5])};
    place_shape(value, s, centre);
    s->radius = (float)f[6];
    s->half_extents[1] = (float)(0.5 * len);
    if (len > 0.0) {
        const double cosine = fmax(-1.0, fmin(1.0, d[1] / len));
        double axis[3] = {d[2], 0.0, -d[0]};
        if (fabs(axis[0]) + fabs(axis[2]) <= 1e-12 * len) /* along y or -y */
            axis[0] = 1.0, axis[2] = 0.0;
        sim_axis_angle(axis, acos(cosine) * 180.0 / 3.14159265358979323846, s->rotation);
    }
    return 1;
}

/* --box X,Y,Z,HX,HY,HZ[,AX,AY,AZ,DEG] */
static int parse_box(const char *tool, const char *opt, const char *text, void *value)
{
    double f[10];
    const int n = read_fields(tool, opt, text, 6, 10, "X,Y,Z,HX,HY,HZ[,AX,AY,AZ,DEG]", f);
    if (!n || !non_negative(tool, opt, "the half extents", fmin(f[3], fmin(f[4], f[5]))))
        return 0;
    float q[4];
    if (n == 10 && !read_turn(tool, opt, text, f + 6, q))
        return 0;
    sinew_shape *s = add_shape(tool, opt, value, SINEW_SHAPE_BOX);
    if (!s)
        return 0;
    place_shape(value, s, f);
    for (int k = 0; k < 3; k++)
        s->half_extents[k] = (float)f[3 + k];
    if (n == 10)
        memcpy(s->rotation, q, sizeof q);
    return 1;
}

/* --collider MESH */
static int parse_collider(const char *tool, const char *opt, const char *text, void *value)
{
    options *o = value;
    if (o->mesh_count == SIM_MAX_MESHES) {
        fprintf(stderr, "%s: %s: at most %d mesh colliders\n(try %s --help)\n", tool, opt, SIM_MAX_MESHES, tool);
        return 0;
    }
    sinew_shape *s = add_shape(tool, opt, o, SINEW_SHAPE_MESH);
    if (!s)
        return 0;
    s->mesh = o->mesh_count;
    o->meshes[o->mesh_count++] = (sim_mesh){text, 0.0, 64};
    return 1;
}

/* The shape --velocity or --spin (mesh: --collider-at, --collider-size,
 * --collider-resolution) sets: the one given last; NULL, having said why. */
static sinew_shape *last_shape(const char *tool, const char *opt, options *o, int mesh)
{
    sinew_shape *s = o->shape_count ? &o->shapes[o->shape_count - 1] : NULL;
    if (s && (!mesh || s->kind == SINEW_SHAPE_MESH))
        return s;
    if (mesh)
        fprintf(stderr, "%s: %s applies to the --collider given just before it; %s\n(try %s --help)\n", tool, opt,
                s ? "the collider before it is not a mesh" : "none was given", tool);
    else
        fprintf(stderr, "%s: %s sets the motion of the collider given before it (--sphere, --capsule, --box or "
                        "--collider); none was given\n(try %s --help)\n", tool, opt, tool);
    return NULL;
}

/* --velocity VX,VY,VZ and --spin WX,WY,WZ */
static int parse_motion3(const char *tool, const char *opt, const char *text, void *value, int spin)
{
    double f[3];
    sinew_shape *s = read_fields(tool, opt, text, 3, 0, spin ? "WX,WY,WZ" : "VX,VY,VZ", f)
                         ? last_shape(tool, opt, value, 0)
                         : NULL;
    for (int k = 0; s && k < 3; k++)
        (spin ? s->angular_velocity : s->velocity)[k] = (float)f[k];
    return s != NULL;
}

static int parse_velocity(const char *tool, const char *opt, const char *text, void *value)
{
    return parse_motion3(tool, opt, text, value, 0);
}

static int parse_spin(const char *tool, const char *opt, const char *text, void *value)
{
    return parse_motion3(tool, opt, text, value, 1);
}

/* --collider-at X,Y,Z[,AX,AY,AZ,DEG] */
static int parse_collider_at(const char *tool, const char *opt, const char *text, void *value)
{
    double f[7];
    float q[4] = {0, 0, 0, 1};
    const int n = read_fields(tool, opt, text, 3, 7, "X,Y,Z[,AX,AY,AZ,DEG]", f);
    sinew_shape *s = n && (n == 3 || read_turn(tool, opt, text, f + 3, q)) ? last_shape(tool, opt, value, 1) : NULL;
    if (!s)
        return 0;
    place_shape(value, s, f);
    memcpy(s->rotation, q, sizeof q);
    return 1;
}

/* --collider-size S (> 0) */
static int parse_collider_size(const char *tool, const char *opt, const char *text, void *value)
{
    options *o = value;
    double v;
    if (!cli_double(tool, opt, text, &v))
        return 0;
    if (!(v > 0.0))
        return cli_error(tool, "%s must be > 0%s", opt, "");
    sinew_shape *s = last_shape(tool, opt, o, 1);
    if (s)
        o->meshes[s->mesh].size = v;
    return s != NULL;
}

/* --add ASSET[@X,Y,Z] (and --with ASSET, its old name): one more body. */
static int parse_add(const char *tool, const char *opt, const char *text, void *value)
{
    options *o = value;
    if (o->add_count == SIM_MAX_ADDS) {
        fprintf(stderr, "%s: %s: at most %d bodies can be added\n", tool, opt, SIM_MAX_ADDS);
        return 0;
    }
    sim_add *a = &o->adds[o->add_count];
    memset(a, 0, sizeof *a);
    const char *at = strcmp(opt, "--add") == 0 ? strrchr(text, '@') : NULL;
    const size_t len = at ? (size_t)(at - text) : strlen(text);
    double f[3] = {0, 0, 0};
    char tail;
    if (at && (sscanf(at + 1, "%lf,%lf,%lf%c", &f[0], &f[1], &f[2], &tail) != 3 || !isfinite(f[0]) ||
               !isfinite(f[1]) || !isfinite(f[2]))) {
        fprintf(stderr, "%s: %s takes ASSET or ASSET@X,Y,Z (m), not '%s'\n", tool, opt, text);
        return 0;
    }
    if (len == 0 || len >= sizeof a->path) {
        fprintf(stderr, "%s: %s: the asset's path is %s\n", tool, opt, len ? "too long" : "empty");
        return 0;
    }
    memcpy(a->path, text, len);
    a->path[len] = '\0';
    memcpy(a->at, f, sizeof f);
    o->add_count++;
    return 1;
}

/* --add-solver NAME: the solver of the body the last --add made. */
static int parse_add_solver(const char *tool, const char *opt, const char *text, void *value)
{
    options *o = value;
    if (!o->add_count) {
        fprintf(stderr, "%s: %s names the solver of the body of the --add before it: give --add first\n", tool,
                opt);
        return 0;
    }
    sim_add *a = &o->adds[o->add_count - 1];
    return (a->solver_set = cli_solver(tool, opt, text, &a->solver));
}

/* --collider-resolution N (2..4096) */
static int parse_collider_resolution(const char *tool, const char *opt, const char *text, void *value)
{
    options *o = value;
    unsigned v;
    sinew_shape *s = cli_uint_in(tool, opt, text, 2, 4096, &v) ? last_shape(tool, opt, o, 1) : NULL;
    if (s)
        o->meshes[s->mesh].resolution = v;
    return s != NULL;
}

/* The cape and flag scenes' settings where no option gave one (--help
 * lists them); 0, having said why, for options they cannot go with. */
static int scene_presets(const char *t, options *o)
{
    if (o->cape && o->flag) {
        cli_error(t, "--cape and --flag are two scenes: give one%s%s", "", "");
        return 0;
    }
    if ((o->cape || o->flag) && (o->asset_path || o->scene != SCENE_CLOTH)) {
        cli_error(t, "%s is a scene of its own: give no asset and no --scene%s", o->cape ? "--cape" : "--flag", "");
        return 0;
    }
    if (o->check_downwind > 0 && !o->flag) {
        cli_error(t, "--check-downwind measures the flag of --flag%s%s", "", "");
        return 0;
    }
    if (o->shapes_on_frame && !o->cape && o->attach_edge < 0) {
        cli_error(t, "--shapes-on-frame moves the colliders with the frame of --attach-edge: give it%s%s", "", "");
        return 0;
    }
    if (!o->cape && !o->flag)
        return 1;
    if (!o->bend_set)
        o->bend = 2e4; /* 1/(N m): hinges of these cloths fold under their own weight */
    if (!o->cells_set)
        o->cells = 32;
    if (o->flag) {
        if (!o->wind_set)
            o->wind[0] = 8.0, o->wind[1] = 0.0, o->wind[2] = 3.0;
        if (!o->drag_set)
            o->drag = 1.2;
        if (!o->lift_set)
            o->lift = 0.4;
        if (!o->shape_count) { /* the pole */
            sinew_shape *pole = add_shape(t, "--flag", o, SINEW_SHAPE_CAPSULE);
            *pole = scene_capsule(scene_flag_pole, scene_flag_pole + 3, scene_flag_pole[6]);
        }
        return 1;
    }
    if (o->attach_edge < 0)
        o->attach_edge = 3; /* y+: the top edge */
    if (!o->frame_set)
        o->frame_kind = 1, o->frame_motion[0] = 2.0, o->frame_motion[1] = 7.0;
    if (!o->drag_set) /* still air: the drag of walking through it */
        o->drag = 0.8;
    if (!o->lift_set)
        o->lift = 0.3;
    if (!o->frames_set)
        o->frames = 240;
    o->tethers = 1;
    o->shapes_on_frame = 1;
    if (!o->shape_count) {
        scene_cape_figure(o->shapes);
        o->shape_count = SCENE_FIGURE_SHAPES;
        for (unsigned k = 0; k < o->shape_count; k++) /* where they are in the world, as --sphere's */
            for (int c = 0; c < 3; c++)
                o->shape_at[k][c] = o->shapes[k].position[c];
    }
    return 1;
}

/* Several bodies (--add, --scene crowd): what they cannot go with, and the
 * crowd scene's settings where no option gave one; 0, having said why. */
static int world_presets(const char *t, options *o)
{
    if (o->crowd && o->asset_path) {
        cli_error(t, "--scene crowd is a scene of its own: give no asset%s%s", "", "");
        return 0;
    }
    if (!o->add_count && !o->crowd)
        return 1;
    const char *no = o->cut_set ? "--cut-y (cut a body alone)"
                     : o->cape || o->flag || o->attach_edge >= 0
                         ? "--cape, --flag and --attach-edge (a frame of the step moves one body)"
                         : NULL;
    if (no) {
        cli_error(t, "%s cannot go with several bodies: %s", o->crowd ? "--scene crowd" : "--add", no);
        return 0;
    }
    if (!o->crowd)
        return 1;
    if (!o->solver_set)
        o->solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL, o->solver_set = 1;
    if (!o->frames_set)
        o->frames = 45;
    if (!o->substeps_set)
        o->substeps = 4;
    if (!o->iterations_set)
        o->iterations = 2;
    if (!o->cells_set)
        o->cells = 4;
    if (!o->bend_set)
        o->bend = 100.0; /* the cloths drape (the blocks have no bending) */
    if (!o->thickness_set)
        o->thickness = 0.01;
    if (!o->youngs_set)
        o->youngs = 2e5;
    if (!o->poisson_set)
        o->poisson = 0.3;
    o->no_sphere = 1;
    o->youngs_set = o->poisson_set = o->cells_set = 1; /* not the cloth scene's below */
    return 1;
}

static int parse_bytes(const char *tool, const char *opt, const char *text, void *value)
{
    return cli_bytes(tool, opt, text, value);
}

/* The options' names, one after another, for the messages (sim_log). */
static char flag_text[8192];

void sim_log(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    cli_log_flags(flag_text, level, id, message);
}

int sim_parse(int argc, char **argv, options *o)
{
    const char *t = "sinew-sim";
    /* The library's defaults, which an asset file given with no other
     * option steps with (as a program calling the library, or the Python
     * package, does); the scenes change some below. */
    const sinew_body_desc bd = sinew_body_desc_default();
    const sinew_step_params pd = sinew_step_params_default();
    memset(o, 0, sizeof *o);
    o->out_dir = "sinew-out";
    o->frames = 240;
    o->substeps = bd.substeps;
    o->iterations = bd.iterations;
    o->dt = pd.dt;
    o->stretch = bd.stretch_compliance;
    o->shear = bd.shear_compliance;
    o->bend = bd.bend_compliance;
    o->omega = bd.jacobi_omega;
    o->friction = pd.friction;
    o->damping = pd.damping;
    o->max_speed = bd.max_speed;
    o->max_inverted = bd.max_inverted;
    o->max_volume_error = bd.max_volume_error;
    o->retries = 5;
    o->newton = bd.newton_iterations;
    o->cg_iterations = bd.mgpbd_cg_iterations;
    o->setup_interval = bd.mgpbd_setup_interval;
    o->newton_tol = bd.newton_tolerance;
    o->level_iterations = bd.level_iterations;
    o->attach_edge = -1;
    o->tether_scale = bd.tether_scale;
    o->picture[0] = 960;
    o->picture[1] = 720;
    o->rho = bd.chebyshev_rho;
    o->delay = bd.chebyshev_delay;
    o->cut_frame = 1;
    o->material = MATERIAL_UNSET;
    o->seed = 1;
    o->ramp = 1.0;
    o->gravity = -pd.gravity[1];
    o->size = 1.0;
    o->max_memory = sinew_estimate_memory_default();
    o->thickness = bd.self_thickness;
    o->self_friction = bd.self_friction;
    o->self_capacity = bd.self_capacity;
    o->solver = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    for (int k = 0; k < 3; k++)
        o->ground_normal[k] = pd.ground_normal[k];
    o->air_density = pd.air_density;

    char solver_help[2048], solver_intro[512];
    snprintf(solver_intro, sizeof solver_intro,
             "the solver: %s for cloth and %s for soft bodies unless given. Hierarchical PBD needs an asset built "
             "with --hierarchy; the PD solvers one built with --no-bending (red-black Gauss-Seidel also "
             "--red-black); the implicit ones one built with --subdivide (implicit-pcg also takes a soft body), and --substeps 1. NAME "
             "is one of:",
             sinew_solver_name(SINEW_SOLVER_XPBD_GAUSS_SEIDEL), sinew_solver_name(SINEW_SOLVER_GPBD_GAUSS_SEIDEL));
    cli_solver_help(solver_help, sizeof solver_help, solver_intro);
    cli_option opts[] = {
        /* 0 steps ran nothing and reported strain as -100% and progress
         * divided by zero. */
        {"--frames", "-n", CLI_UINT, &o->frames, "N", "steps to simulate (default 240; soft scenes: below)",
         .min = 1, .max = 10000000, .given = &o->frames_set},
        {"--dt", NULL, CLI_DOUBLE, &o->dt, "S", "step length in seconds (default 1/60)", CLI_GT(0),
         .given = &o->dt_set},
        {"--solver", NULL, CLI_CUSTOM, &o->solver, "NAME", solver_help, .parse = cli_solver, .given = &o->solver_set},
        {"--bdf2", NULL, CLI_FLAG, &o->bdf2, NULL,
         "implicit solvers: second-order BDF (default for solids; cloth: backward Euler)"},
        {"--backward-euler", NULL, CLI_FLAG, &o->backward_euler, NULL,
         "implicit solvers: backward Euler (default for cloth; solids: BDF2)"},
        {"--rho", NULL, CLI_DOUBLE, &o->rho, "R", "PD Chebyshev: spectral radius estimate in (0, 1) (default 0.95)",
         CLI_IN_OO(0, 1)},
        {"--delay", NULL, CLI_UINT, &o->delay, "N", "PD Chebyshev: plain iterations first (default 1)", .max = 1000},
        {"--substeps", NULL, CLI_UINT, &o->substeps, "N", "substeps per step (default 8, the library's; the default scene 16)", .min = 1, .max = 1000,
         .given = &o->substeps_set},
        {"--iterations", NULL, CLI_UINT, &o->iterations, "N", "solver iterations per substep (default 1)", .min = 1,
         .max = 1000, .given = &o->iterations_set},
        {"--sweep", NULL, CLI_CUSTOM, &o->sweep, "forward|alternating",
         "colour order of Gauss-Seidel iterations: each forward, or every second one backwards (default: "
         "alternating for Hierarchical PBD, forward otherwise)",
         .parse = parse_sweep},
        {"--sweep-layout", NULL, CLI_CUSTOM, &o->sweep_layout, "colours|clusters",
         "Gauss-Seidel dispatches: one per colour, or one per pass of the asset's clusters (default: clusters "
         "where the asset has them, except on a CPU device; docs/colouring.md)",
         .parse = parse_layout},
        {"--level-iterations", NULL, CLI_UINT, &o->level_iterations, "N",
         "Hierarchical PBD: sweeps over each coarse level per substep (default 1)", .min = 1, .max = 100},
        {"--cut-y", NULL, CLI_DOUBLE, &o->cut_y, "Y",
         "tear: cut every distance constraint whose rest end points lie on both sides of height Y (m), ...",
         .given = &o->cut_set},
        {"--cut-frame", NULL, CLI_UINT, &o->cut_frame, "F", "... before step F (default 1)", .min = 1,
         .max = 10000000},
        {"--cg-iterations", NULL, CLI_UINT, &o->cg_iterations, "N",
         "MGPBD: at most N CG iterations per outer iteration (default 20)", .min = 1, .max = 1000},
        {"--setup-interval", NULL, CLI_UINT, &o->setup_interval, "N",
         "MGPBD: steps between the multigrid hierarchy's host setups (default 20)", .min = 1, .max = 1000000},
        {"--newton", NULL, CLI_UINT, &o->newton, "N",
         "GPBD: at most N Newton iterations per element update (default 20)", .min = 1, .max = 1000},
        {"--newton-tol", NULL, CLI_DOUBLE, &o->newton_tol, "T",
         "GPBD: Newton stops once |gradient| <= T times its first value, in [0, 1) (default 1e-3)", CLI_IN_CO(0, 1)},
        {"--stretch-compliance", NULL, CLI_DOUBLE, &o->stretch, "A", "m/N (default 0: inextensible)"},
        {"--shear-compliance", NULL, CLI_DOUBLE, &o->shear, "A", "m/N (default 1e-6)"},
        {"--bend-compliance", NULL, CLI_DOUBLE, &o->bend, "A",
         "1/(N m) (default 1e-2: a stiff hinge at the default cloth's masses; the cape and flag scenes: 2e4, soft "
         "as cloth)",
         .given = &o->bend_set},
        {"--omega", NULL, CLI_DOUBLE, &o->omega, "W", "Jacobi over-relaxation in (0, 2] (default 1.5)"},
        {"--damping", NULL, CLI_DOUBLE, &o->damping, "D", "velocity decay rate in 1/s (default 0; blocks 2)",
         CLI_GE(0), .given = &o->damping_set},
        {"--gravity", NULL, CLI_DOUBLE, &o->gravity, "G", "m/s^2 downwards (default 9.81; bars and blocks 0)",
         .given = &o->gravity_set},
        {"--friction", NULL, CLI_DOUBLE, &o->friction, "MU", "contact friction (default 0.3)"},
        {"--ground", NULL, CLI_DOUBLE, &o->ground, "Y",
         "ground plane height in m (default 0, the library's; an asset reaching below it: a quarter of the "
         "asset's size below it)",
         .given = &o->ground_set},
        {"--no-ground", NULL, CLI_FLAG, &o->no_ground, NULL, "no ground plane"},
        {"--origin", NULL, CLI_DOUBLES, o->origin, "X,Y,Z",
         "where the body goes (m): added to the asset's origin (sinew-prep --translate; 0 for an asset without "
         "one). The body's particles stay small numbers in its own frame; the ground, the colliders, --cut-y and "
         "--camera are given in the world and taken into that frame in double, and final.obj, the frames and the "
         "JSON's positions are written in the world (docs/api.md, large worlds). With --add, the world's bodies "
         "share the first body's origin",
         .count = 3},
        {"--sphere", NULL, CLI_CUSTOM, o, "X,Y,Z,R",
         "a sphere collider: centre and radius (m). Repeatable, as each collider below: each is one more shape of "
         "the collider list (docs/colliders.md), up to 64 in all. The default scene has a sphere of its own at "
         "0,0.45,-0.35,0.3 unless --sphere or --no-sphere is given",
         .parse = parse_sphere, .repeat = 1},
        {"--no-sphere", NULL, CLI_FLAG, &o->no_sphere, NULL, "not the default scene's sphere"},
        {"--capsule", NULL, CLI_CUSTOM, o, "AX,AY,AZ,BX,BY,BZ,R",
         "a capsule collider: the points within R of the segment from A to B (m)", .parse = parse_capsule, .repeat = 1},
        {"--box", NULL, CLI_CUSTOM, o, "X,Y,Z,HX,HY,HZ[,AX,AY,AZ,DEG]",
         "a box collider: centre and half extents (m), turned by DEG degrees about the axis AX,AY,AZ (default: "
         "axis-aligned)",
         .parse = parse_box, .repeat = 1},
        {"--collider", NULL, CLI_CUSTOM, o, "MESH",
         "a triangle-mesh collider (OFF, OBJ, ...; closed meshes), placed and sized by the three options after "
         "it, up to 16",
         .parse = parse_collider, .repeat = 1},
        {"--collider-at", NULL, CLI_CUSTOM, o, "X,Y,Z[,AX,AY,AZ,DEG]",
         "where its origin goes (m; default 0,0,0) and its turn, as --box's", .parse = parse_collider_at, .repeat = 1},
        {"--collider-size", NULL, CLI_CUSTOM, o, "S",
         "scale it so its longest side is S m, its bounds' bottom centre at its origin (default: the file's "
         "coordinates)",
         .parse = parse_collider_size, .repeat = 1},
        {"--collider-resolution", NULL, CLI_CUSTOM, o, "N",
         "distance-field cells along its longest side, 2..4096 (default 64)", .parse = parse_collider_resolution, .repeat = 1},
        {"--velocity", NULL, CLI_CUSTOM, o, "VX,VY,VZ",
         "the collider given last moves at this velocity (m/s), through each step and from step to step",
         .parse = parse_velocity, .repeat = 1},
        {"--spin", NULL, CLI_CUSTOM, o, "WX,WY,WZ",
         "and turns at this angular velocity (rad/s, world axes, about its centre), carrying what rests on it "
         "by friction (a turning box: a drum)",
         .parse = parse_spin, .repeat = 1},
        {"--ground-normal", NULL, CLI_DOUBLES, o->ground_normal, "NX,NY,NZ",
         "the ground plane's normal: the plane is {x : n.x = --ground} (default 0,1,0)", .count = 3},
        {"--wind", NULL, CLI_DOUBLES, o->wind, "X,Y,Z", "wind velocity (m/s; acts with --drag or --lift)", .count = 3,
         .given = &o->wind_set},
        {"--drag", NULL, CLI_DOUBLE, &o->drag, "CD", "drag coefficient of the cloth's triangles (default 0: no wind)",
         CLI_GE(0), .given = &o->drag_set},
        {"--lift", NULL, CLI_DOUBLE, &o->lift, "CL", "lift coefficient (default 0)", CLI_GE(0), .given = &o->lift_set},
        {"--air-density", NULL, CLI_DOUBLE, &o->air_density, "RHO", "kg/m^3 (default 1.2)", CLI_GE(0)},
        {"--flag", NULL, CLI_FLAG, &o->flag, NULL,
         "the flag scene: a 1.5 x 1 m flag of 48 x 32 vertices (--cells N: 3N/2 x N) pinned along its hoist to a "
         "pole (a capsule of the collider list) 2.8 m high, in wind; each unless given: --wind 8,0,3 --drag 1.2 "
         "--lift 0.4 --bend-compliance 2e4, no sphere (docs/wind.md)"},
        {"--check-downwind", NULL, CLI_DOUBLE, &o->check_downwind, "D",
         "the flag scene: exit with status 3 unless the flag's fly end (the edge opposite the pole) ends at least "
         "D m downwind of its hoist, along the horizontal wind",
         CLI_GT(0)},
        {"--cape", NULL, CLI_FLAG, &o->cape, NULL,
         "the cape scene: a figure of the collider list's shapes (head, neck, shoulders, chest, hips, arms, legs; "
         "1.7 m) walking a circle on the ground, wearing a cape of 40 x 32 vertices (--cells N: 5N/4 x N), half a "
         "cone held along its top edge behind the neck; each unless given: --attach-edge y+ --frame-motion "
         "circle:2,7 --bend-compliance 2e4 --drag 0.8 --lift 0.3 --frames 240, and --tethers --shapes-on-frame; the "
         "camera follows the figure unless --camera is given (docs/attachments.md)"},
        {"--shapes-on-frame", NULL, CLI_FLAG, &o->shapes_on_frame, NULL,
         "the collider list rides on the attachment's frame: each shape keeps its place and turn relative to the "
         "frame as given at the start (their --velocity and --spin are replaced by the frame's motion)"},
        {"--self-collision", NULL, CLI_FLAG, &o->self_collision, NULL,
         "the surface collides with itself: vertices with triangles, edges with edges (position-based solvers; "
         "docs/self-collision.md)"},
        {"--thickness", NULL, CLI_DOUBLE, &o->thickness, "T",
         "self-collision: distance kept between two layers in m (default 0.005, the crowd scene 0.01; below the "
         "edge lengths)",
         CLI_GT(0), .given = &o->thickness_set},
        {"--self-friction", NULL, CLI_DOUBLE, &o->self_friction, "MU", "self-collision: friction (default 0.3)",
         CLI_GE(0)},
        {"--self-capacity", NULL, CLI_UINT, &o->self_capacity, "K",
         "self-collision: candidates kept per vertex, triangle and edge, 1..32 (default 16); what does not fit is "
         "counted in the summary",
         .min = 1, .max = 32},
        {"--add", NULL, CLI_CUSTOM, o, "ASSET[@X,Y,Z]",
         "one more body from ASSET (made by sinew-prep), its particles moved by X,Y,Z m after loading (written "
         "before the first step); repeatable, up to 64. Its solver: --add-solver, else as below; everything else "
         "as the first body's, so that bodies of one solver share a batch. With any --add every body is stepped "
         "in one world, one submit a step (docs/world.md), and the bodies collide with each other (--thickness, "
         "--self-friction, --self-capacity; a body with itself only with --self-collision) unless --no-contacts: "
         "within a batch by its self-collision, across batches by contact lists. A body whose solver is not given "
         "takes GPBD Gauss-Seidel when it has tetrahedra and XPBD Gauss-Seidel otherwise. "
         "Writes final-K.obj for the K-th added body",
         .parse = parse_add, .repeat = 1},
        {"--add-solver", NULL, CLI_CUSTOM, o, "NAME", "the solver of the body of the last --add (names as --solver)",
         .parse = parse_add_solver, .repeat = 1},
        {"--no-contacts", NULL, CLI_FLAG, &o->no_contacts, NULL,
         "with --add or --scene crowd: the bodies do not touch each other (still one world, one submit)"},
        {"--with", NULL, CLI_CUSTOM, o, "ASSET", "deprecated: the same as --add ASSET", .parse = parse_add, .repeat = 1},
        {"--intersections", NULL, CLI_FLAG, &o->intersections, NULL,
         "count the pairs of surface triangles sharing no vertex that intersect after the last step (the summary "
         "and --json)"},
        {"--attach-edge", NULL, CLI_CUSTOM, &o->attach_edge, "x-|x+|y-|y+|z-|z+",
         "attach the particles at that end of the asset (within 0.1 % of its size) to a frame (docs/attachments.md)",
         .parse = parse_edge},
        {"--attach-compliance", NULL, CLI_DOUBLE, &o->attach_compliance, "C",
         "the attachment's compliance in m/N (default 0: held exactly)", CLI_GE(0)},
        {"--frame-motion", NULL, CLI_CUSTOM, &o->frame_kind, "still|circle:R,T|rotate:W",
         "the frame walks a horizontal circle of radius R m once every T s facing along it (starting along +x, "
         "turning left, towards -z), or turns about the vertical at W rad/s (default still)",
         .parse = parse_motion, .given = &o->frame_set},
        {"--tethers", NULL, CLI_FLAG, &o->tethers, NULL,
         "long-range tethers: each free particle within its rest geodesic distance of the nearest pinned or held "
         "particle (position-based solvers)"},
        {"--tether-scale", NULL, CLI_DOUBLE, &o->tether_scale, "S", "tethers' slack factor, 1..100 (default 1)",
         CLI_GE(1)},
        {"--check-strain", NULL, CLI_DOUBLE, &o->check_strain, "S",
         "exit with status 3 if the RMS strain of any step exceeds S (e.g. 0.05), or a position stops being finite",
         CLI_GT(0)},
        {"--check-residual", NULL, CLI_DOUBLE, &o->check_residual, "R",
         "exit with status 3 if the last step's error estimate (the summary's) exceeds R, e.g. 0.1: a body "
         "resting more than about a tenth of its deformation from where its equations put it (too few "
         "iterations); for cloth and spring networks (XPBD, HPBD, PD) the static estimate after the last step, "
         "without contacts (run without ground and colliders); a body with neither (MGPBD, implicit cloth: "
         "docs/accuracy.md) is held to its solver's residual in every step instead",
         CLI_GT(0)},
        {"--check-outside", NULL, CLI_DOUBLE, &o->check_outside, "D",
         "exit with status 3 if a particle ends the run deeper than D m (e.g. 0.01) inside a collider of the list "
         "(--sphere, --capsule, --box, --collider, where the last step left them)",
         CLI_GT(0)},
        {"--max-speed", NULL, CLI_DOUBLE, &o->max_speed, "V",
         "health check: a step leaving a particle non-finite or faster than V m/s fails, is rolled back and ends "
         "the run as unstable (exit status 3) (default 500)",
         CLI_GT(0)},
        {"--max-inverted", NULL, CLI_UINT, &o->max_inverted, "N",
         "health check, soft bodies: a step leaving more than N tetrahedra inverted fails likewise (default: for a "
         "soft body from an asset the larger of 16 and 0.2% of its tetrahedra; no bound for the scenes; the "
         "summary reports them)",
         .max = 0xffffffffu, .given = &o->max_inverted_set},
        {"--max-volume-error", NULL, CLI_DOUBLE, &o->max_volume_error, "E",
         "health check, soft bodies: a step leaving a tetrahedron's |V/V0 - 1| above E fails likewise (e.g. 0.5; "
         "default: 2 for a soft body from an asset, where a landing that blows up is caught and retried; no bound "
         "for the scenes)",
         CLI_GE(0), .given = &o->max_volume_error_set},
        {"--retries", NULL, CLI_UINT, &o->retries, "N",
         "a step that fails the health check, tetrahedra inverted through three windows of 8 steps in a row, or "
         "any inverted at the last step send the run back to the last state kept (after 8 steps with none "
         "inverted) and on at twice the substeps, up to N times (default 5: from 8 substeps up to 256; 0: the run "
         "ends at a failed step); the run goes on at the substeps that passed",
         .max = 10},
        {"--checkpoint", NULL, CLI_STRING, &o->checkpoint, "FILE", "save the body's state to FILE after the last step, or the step a signal stopped the run at"},
        {"--checkpoint-every", NULL, CLI_UINT, &o->checkpoint_every, "N", "and every N steps", .max = 10000000},
        {"--resume", NULL, CLI_STRING, &o->resume, "FILE",
         "start from a checkpoint saved from the same asset and options; --frames more steps are taken, "
         "counted on from the checkpoint's step (pin ramps, --cut-frame, frame_NNNNN and the moving box go on "
         "where they were)"},
        {"--hash", NULL, CLI_FLAG, &o->hash, NULL, "print a hash of the final state (positions, velocities)"},
        {"--out", "-o", CLI_STRING, &o->out_dir, "DIR",
         "output folder, made with any missing folders above it (default ./sinew-out)"},
        {"--every", NULL, CLI_UINT, &o->every, "N", "also write every N-th frame as frame_NNNNN.obj (and .png)",
         .max = 10000000},
        {"--png", NULL, CLI_FLAG, &o->png, NULL,
         "pictures of the last frame and of every --every-th one, drawn on the device (default: on for the default "
         "scene)"},
        {"--no-png", NULL, CLI_FLAG, &o->no_png, NULL, "no pictures"},
        {"--picture", NULL, CLI_CUSTOM, o->picture, "WxH", "picture size in pixels (default 960x720)",
         .parse = cli_pixels},
        {"--camera", NULL, CLI_DOUBLES, o->camera, "EX,EY,EZ,TX,TY,TZ",
         "eye and target (m, world); default: framing the scene", .count = 6, .given = &o->camera_set},
        {"--video", NULL, CLI_STRING, &o->video, "FILE", "join the --every pictures into FILE with ffmpeg"},
        {"--json", NULL, CLI_STRING, &o->json, "FILE",
         "write the summary as JSON, with the asset, sinew's version, the device, the command line and every "
         "option's value (\"settings\"); needs a build with libcjson"},
        {"--log", NULL, CLI_STRING, &o->log, "FILE", "write one CSV line per step (time, volume error, ...)"},
        {"--device", NULL, CLI_STRING, &o->device, "NAME|INDEX",
         "Vulkan device (default: SINEW_DEVICE, else the best)"},
        {"--validation", NULL, CLI_FLAG, &o->validation, NULL, "enable Vulkan validation layers"},
        {"--portable", NULL, CLI_FLAG, &o->portable, NULL,
         "stay within the Android Baseline 2022 compute limits (default: SINEW_LIMITS=portable|device, else "
         "device)"},
        {"--quiet", "-q", CLI_FLAG, &o->quiet, NULL, "only the summary"},
        {"--help", "-h", CLI_FLAG, &o->help, NULL, "this text"},
        {.kind = CLI_TEXT, .help = usage_soft},
        {"--scene", NULL, CLI_CUSTOM, &o->scene, "NAME",
         "cloth (default), cube-drop, bar-stretch, bar-compress, bar-twist, block-flat, block-random, crowd",
         .parse = parse_scene},
        {.kind = CLI_TEXT, .help = usage_scenes},
        {"--cells", NULL, CLI_UINT, &o->cells, "N", "N vertices per side instead of the scene's", .min = 2,
         .max = 400, .given = &o->cells_set},
        {"--size", NULL, CLI_DOUBLE, &o->size, "L", "scale the scene's box by L (default 1: sizes above)", CLI_GT(0)},
        {"--max-memory", NULL, CLI_CUSTOM, &o->max_memory, "SIZE",
         "refuse a scene whose box is estimated to take more host memory than SIZE to build: bytes, or 512M, 4G "
         "(default: half of this machine's memory; 0: no bound; docs/prep-library.md#estimates)",
         .parse = parse_bytes},
        {"--material", NULL, CLI_CUSTOM, &o->material, "nh|snh", "neo-Hookean (default) or stable neo-Hookean",
         .parse = parse_material},
        {"--youngs", NULL, CLI_DOUBLE, &o->youngs, "E", "Young's modulus in Pa (default 1e6)", CLI_GT(0),
         .given = &o->youngs_set},
        {"--poisson", NULL, CLI_DOUBLE, &o->poisson, "NU", "Poisson ratio in [0, 0.5) (default 0.45)",
         CLI_IN_CO(0, 0.5), .given = &o->poisson_set},
        {"--scale", NULL, CLI_DOUBLE, &o->scale, "F", "bar-stretch/-compress: final length / rest length", CLI_GT(0),
         .given = &o->scale_set},
        {"--turns", NULL, CLI_DOUBLE, &o->turns, "T", "bar-twist: turns of the moving end", .given = &o->turns_set},
        {"--ramp", NULL, CLI_DOUBLE, &o->ramp, "T", "bars: seconds over which the ends move (default 1)", CLI_GT(0),
         .given = &o->ramp_set},
        {"--seed", NULL, CLI_UINT, &o->seed, "N", "block-random: seed of the start positions (default 1)",
         .max = 0xffffffffu},
        {"--check-recovered", NULL, CLI_FLAG, &o->check_recovered, NULL,
         "blocks: exit with status 3 unless the last step has no inverted tetrahedra and a Green strain under 1%"},
    };
    const size_t count = sizeof opts / sizeof opts[0];
    for (size_t k = 0, n = 0; k < count; k++) /* the flags, not the help's headings */
        if (opts[k].kind != CLI_TEXT && opts[k].name && n + strlen(opts[k].name) + 2 < sizeof flag_text)
            n += (size_t)snprintf(flag_text + n, sizeof flag_text - n, "%s ", opts[k].name);
    if (!cli_parse(t, argc, argv, opts, count, &o->asset_path, "asset"))
        return -1;
    o->argc = argc;
    o->argv = argv;
    for (size_t k = 0; k < count && o->setting_count < SIM_MAX_SETTINGS; k++)
        if (opts[k].kind != CLI_TEXT && opts[k].name && opts[k].value)
            o->settings[o->setting_count++] =
                (sim_setting){opts[k].name, (int)opts[k].kind, opts[k].count, opts[k].seen, opts[k].value};
#ifndef SINEW_HAVE_CJSON
    if (o->json) {
        cli_error(t, "built without libcjson (Debian: libcjson-dev): no --json%s%s", "", "");
        return -1;
    }
#endif
    if (o->help) {
        fputs(usage_head, stdout);
        cli_help(stdout, opts, count, 28);
        fputs(usage_tail, stdout);
        return 0;
    }
    if (o->checkpoint_every && !o->checkpoint) {
        cli_error(t, "--checkpoint-every needs --checkpoint FILE%s%s", "", "");
        return -1;
    }
#ifndef SINEW_HAVE_PNG
    if (o->png || o->video) {
        cli_error(t, "built without libpng (Debian: libpng-dev): no pictures, so no %s%s", o->png ? "--png" : "--video",
                  "");
        return -1;
    }
#endif
    if (o->video && (!o->every || o->no_png)) {
        cli_error(t, "--video joins the pictures of --every N: give --every and not --no-png%s%s", "", "");
        return -1;
    }
    if (!scene_presets(t, o) || !world_presets(t, o))
        return -1;
    if (o->check_outside > 0 && !o->shape_count) {
        cli_error(t, "--check-outside checks the colliders of the list: give --sphere, --capsule, --box or "
                     "--collider%s%s", "", "");
        return -1;
    }
    if (o->asset_path && o->scene != SCENE_CLOTH) {
        cli_error(t, "give an asset or --scene %s, not both%s", soft_scenes[o->scene].name, "");
        return -1;
    }
    /* The scene's settings where no option gave one. */
    const soft_scene_def *d = &soft_scenes[o->scene];
    if (o->scene != SCENE_CLOTH) {
        if (o->solver_set && !is_gpbd(o->solver) && o->solver != SINEW_SOLVER_IMPLICIT_PCG) {
            fprintf(stderr, "%s: --scene %s is a soft body: it needs --solver %s, %s or %s\n(try %s --help)\n", t,
                    d->name, sinew_solver_name(SINEW_SOLVER_GPBD_GAUSS_SEIDEL),
                    sinew_solver_name(SINEW_SOLVER_GPBD_JACOBI), sinew_solver_name(SINEW_SOLVER_IMPLICIT_PCG), t);
            return -1;
        }
        if (!o->solver_set)
            o->solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
        o->frames = o->frames_set ? o->frames : d->frames;
        o->dt = o->dt_set ? o->dt : d->dt;
        o->substeps = o->substeps_set ? o->substeps : d->substeps;
        o->iterations = o->iterations_set ? o->iterations : d->iterations;
        o->gravity = o->gravity_set ? o->gravity : d->gravity ? 9.81 : 0.0;
        o->damping = o->damping_set ? o->damping : d->damping;
        o->no_ground = o->no_ground || (!d->ground && !o->ground_set);
        if (!o->scale_set)
            o->scale = o->scene == SCENE_BAR_COMPRESS ? 0.5 : 1.5;
        if (!o->turns_set)
            o->turns = 2.0;
    }
    /* The cloth scenes (the default one, --cape, --flag) take 16 substeps. */
    if (!o->asset_path && o->scene == SCENE_CLOTH && !o->crowd && !o->substeps_set)
        o->substeps = 16;
    if (!o->cells_set && !o->cape && !o->flag)
        o->cells = d->cells;
    if (!o->youngs_set)
        o->youngs = d->youngs ? d->youngs : 1e6;
    if (!o->poisson_set)
        o->poisson = d->poisson ? d->poisson : 0.45;
    /* -o dir/ writes dir/final.obj, not dir//final.obj */
    size_t len = strlen(o->out_dir);
    while (len > 1 && o->out_dir[len - 1] == '/')
        len--;
    if (len < strlen(o->out_dir)) {
        if (len >= sizeof o->out_buf) {
            fprintf(stderr, "%s: -o: the folder's name is longer than %zu characters\n", t, sizeof o->out_buf - 1);
            return -1;
        }
        memcpy(o->out_buf, o->out_dir, len);
        o->out_buf[len] = '\0';
        o->out_dir = o->out_buf;
    }
    return 1;
}

