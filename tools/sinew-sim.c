/* sinew-sim: runs a scene and writes its meshes. With no asset it runs the
 * embedded default scene: a 64 x 64 cloth pinned at two corners, falling under
 * gravity past a sphere onto the ground. --scene picks one of the soft-body
 * scenes of the Generalized PBD paper instead (soft_scenes.h). */
#define _POSIX_C_SOURCE 200809L
#include <sinew/sinew.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "prep/cloth.h"
#include "prep/mesh.h"
#include "soft_scenes.h"
#ifdef SINEW_HAVE_PNG
#include "render.h"
#endif

static const char *const usage =
    "usage: sinew-sim [ASSET.snw] [options]\n"
    "\n"
    "Simulates an asset (made by sinew-prep) or, with no asset, a scene: by default\n"
    "a 64 x 64 cloth pinned at two corners falling past a sphere onto the ground.\n"
    "Prints progress and a summary; writes the final mesh as OBJ and, for the\n"
    "default scene or with --png, a picture of it (final.png).\n"
    "\n"
    "  -n, --frames N            steps to simulate (default 240; soft scenes: below)\n"
    "      --dt S                step length in seconds (default 1/60)\n"
    "      --solver NAME         gs: XPBD Gauss-Seidel over colours (default for cloth),\n"
    "                            sgs: symmetric Gauss-Seidel (forward then back over the\n"
    "                            colours), jacobi: XPBD Jacobi; gpbd-gs: Generalized PBD,\n"
    "                            Gauss-Seidel over element colours (default for soft\n"
    "                            bodies), gpbd-jacobi: GPBD all elements at once;\n"
    "                            hpbd: Hierarchical PBD, coarse levels first, then\n"
    "                            the iterations (assets built with --hierarchy);\n"
    "                            pd-rbgs: projective dynamics of a spring network,\n"
    "                            red-black Gauss-Seidel (assets built with --red-black\n"
    "                            --no-bending), pd-jacobi, pd-chebyshev: the same with\n"
    "                            Jacobi or Chebyshev-accelerated Jacobi global steps;\n"
    "                            implicit-mg: backward-Euler cloth solved by the\n"
    "                            constrainable multigrid (assets built with --subdivide;\n"
    "                            use --substeps 1), implicit-pcg: the same by modified PCG\n"
    "      --bdf2                implicit solvers: second-order BDF rather than backward Euler\n"
    "      --rho R               pd-chebyshev: spectral radius estimate in (0, 1)\n"
    "                            (default 0.95)\n"
    "      --delay N             pd-chebyshev: plain iterations first (default 1)\n"
    "      --substeps N          substeps per step (default 16)\n"
    "      --iterations N        solver iterations per substep (default 1)\n"
    "      --sweep forward|alternating  colour order of Gauss-Seidel iterations: each\n"
    "                            forward, or every second one backwards (default:\n"
    "                            alternating for hpbd, forward otherwise)\n"
    "      --level-iterations N  HPBD: sweeps over each coarse level per substep\n"
    "                            (default 1)\n"
    "      --cut-y Y             tear: cut every distance constraint whose rest end\n"
    "                            points lie on both sides of height Y (m), ...\n"
    "      --cut-frame F         ... before step F (default 1)\n"
    "      --newton N            GPBD: at most N Newton iterations per element update\n"
    "                            (default 20)\n"
    "      --newton-tol T        GPBD: Newton stops once |gradient| <= T times its first\n"
    "                            value, in [0, 1) (default 1e-3)\n"
    "      --stretch-compliance A  m/N (default 0: inextensible)\n"
    "      --shear-compliance A    m/N (default 1e-6)\n"
    "      --bend-compliance A     1/(N m) (default 1e-2)\n"
    "      --omega W             Jacobi over-relaxation in (0, 2] (default 1.5)\n"
    "      --damping D           velocity decay rate in 1/s (default 0; blocks 2)\n"
    "      --gravity G           m/s^2 downwards (default 9.81; bars and blocks 0)\n"
    "      --friction MU         contact friction (default 0.3)\n"
    "      --ground Y | --no-ground   ground plane height in m (default: 0 for the\n"
    "                            scenes that have one, a quarter of the asset's size\n"
    "                            below an asset)\n"
    "      --sphere X,Y,Z,R | --no-sphere   sphere collider (default scene: one)\n"
    "      --box X,Y,Z,HX,HY,HZ  axis-aligned box collider: centre and half extents (m)\n"
    "      --box-velocity VX,VY,VZ  the box moves at this velocity (m/s)\n"
    "      --collider MESH       a triangle-mesh collider (OFF, OBJ, ...; closed meshes)\n"
    "      --collider-at X,Y,Z   where its origin goes (m; default 0,0,0)\n"
    "      --collider-size S     scale it so its longest side is S m, its bounds' bottom\n"
    "                            centre at its origin (default: the file's coordinates)\n"
    "      --collider-resolution N  distance-field cells along its longest side (default 64)\n"
    "      --check-strain S      exit with status 3 if the RMS strain of any step exceeds\n"
    "                            S (e.g. 0.05), or a position stops being finite\n"
    "      --max-speed V         health check: a step leaving a particle non-finite or\n"
    "                            faster than V m/s fails, is rolled back and ends the run\n"
    "                            as unstable (exit status 3) (default 500)\n"
    "      --checkpoint FILE     save the body's state to FILE after the last step\n"
    "      --checkpoint-every N  and every N steps\n"
    "      --resume FILE         start from a checkpoint saved from the same asset and\n"
    "                            options; --frames more steps are taken\n"
    "      --hash                print a hash of the final state (positions, velocities)\n"
    "  -o, --out DIR             output folder (default ./sinew-out)\n"
    "      --every N             also write every N-th frame as frame_NNNNN.obj (and .png)\n"
    "      --png | --no-png      pictures of the last frame and of every --every-th one,\n"
    "                            drawn on the device (default: on for the default scene)\n"
    "      --picture WxH         picture size in pixels (default 960x720)\n"
    "      --camera EX,EY,EZ,TX,TY,TZ   eye and target (m); default: framing the scene\n"
    "      --video FILE          join the --every pictures into FILE with ffmpeg\n"
    "      --json FILE           write the summary as JSON\n"
    "      --log FILE            write one CSV line per step (time, volume error, ...)\n"
    "      --device NAME|INDEX   Vulkan device (default: SINEW_DEVICE, else the best)\n"
    "      --validation          enable Vulkan validation layers\n"
    "      --portable            stay within the Android Baseline 2022 compute limits\n"
    "                            (default: SINEW_LIMITS=portable|device, else device)\n"
    "  -q, --quiet               only the summary\n"
    "  -h, --help                this text\n";

/* Two strings: C11 compilers need only take 4095 characters in one literal. */
static const char *const usage_soft =
    "\n"
    "Soft-body scenes (Generalized PBD, docs/gpbd-scenes.md), boxes of N^3 vertices\n"
    "with 6 tetrahedra per cell, built in memory:\n"
    "      --scene NAME          cloth (default), cube-drop, bar-stretch, bar-compress,\n"
    "                            bar-twist, block-flat, block-random\n"
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
    "      --cells N             N vertices per side instead of the scene's (>= 2)\n"
    "      --size L              scale the scene's box by L (default 1: sizes above)\n"
    "      --material nh|snh     neo-Hookean (default) or stable neo-Hookean\n"
    "      --youngs E            Young's modulus in Pa (default 1e6)\n"
    "      --poisson NU          Poisson ratio in [0, 0.5) (default 0.45)\n"
    "      --scale F             bar-stretch/-compress: final length / rest length\n"
    "      --turns T             bar-twist: turns of the moving end\n"
    "      --ramp T              bars: seconds over which the ends move (default 1)\n"
    "      --seed N              block-random: seed of the start positions (default 1)\n"
    "      --check-recovered     blocks: exit with status 3 unless the last step has no\n"
    "                            inverted tetrahedra and a Green strain under 1%\n"
    "\n"
    "Exit status: 0 done, 1 failure, 2 bad options, 3 a check failed or a step was\n"
    "unstable (summary printed).\n";

enum { MATERIAL_UNSET = -1 };

typedef struct options {
    const char *asset_path, *out_dir, *device, *checkpoint, *resume, *json, *log;
    unsigned frames, every, substeps, iterations, checkpoint_every, newton, cells, seed, level_iterations, cut_frame;
    double cut_y;
    int cut_set, sweep;
    int solver, validation, portable, quiet, hash, scene, material, check_recovered, bdf2;
    double dt, stretch, shear, bend, omega, damping, friction, ground, sphere[4], check_strain, max_speed;
    double newton_tol, youngs, poisson, scale, turns, ramp, gravity, size, rho, box[6], box_velocity[3];
    unsigned delay;
    int box_set;
    int png, no_png, camera_set;
    unsigned picture[2];
    double camera[6];
    const char *video;
    const char *collider;
    double collider_at[3], collider_size;
    unsigned collider_resolution;
    int ground_set, no_ground, sphere_set, no_sphere, frames_set, dt_set, substeps_set, iterations_set;
    int damping_set, solver_set, youngs_set, poisson_set, gravity_set, cells_set, scale_set, turns_set, ramp_set;
} options;

static int is_gpbd(int solver) { return solver == SINEW_SOLVER_GPBD_GAUSS_SEIDEL || solver == SINEW_SOLVER_GPBD_JACOBI; }

static int parse(int argc, char **argv, options *o)
{
    const char *t = "sinew-sim";
    sinew_body_desc bd = sinew_body_desc_default();
    memset(o, 0, sizeof *o);
    o->out_dir = "sinew-out";
    o->frames = 240;
    o->substeps = 16;
    o->iterations = 1;
    o->dt = 1.0 / 60.0;
    o->shear = 1e-6;
    o->bend = 1e-2;
    o->omega = 1.5;
    o->friction = 0.3;
    o->max_speed = bd.max_speed;
    o->newton = bd.newton_iterations;
    o->newton_tol = bd.newton_tolerance;
    o->level_iterations = bd.level_iterations;
    o->picture[0] = 960;
    o->picture[1] = 720;
    o->rho = bd.chebyshev_rho;
    o->delay = bd.chebyshev_delay;
    o->cut_frame = 1;
    o->material = MATERIAL_UNSET;
    o->seed = 1;
    o->ramp = 1.0;
    o->gravity = 9.81;
    o->size = 1.0;
    o->collider_resolution = 64;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1, used = 1;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            fputs(usage_soft, stdout);
            exit(0);
        } else if (!strcmp(a, "-n") || !strcmp(a, "--frames")) {
            ok = cli_uint(t, a, v, 10000000, &o->frames);
            o->frames_set = 1;
        } else if (!strcmp(a, "--dt")) {
            ok = cli_double(t, a, v, &o->dt) && (o->dt > 0 || cli_error(t, "%s must be > 0%s", a, ""));
            o->dt_set = 1;
        } else if (!strcmp(a, "--solver")) {
            static const struct { const char *name; int solver; } solvers[] = {
                {"gs", SINEW_SOLVER_XPBD_GAUSS_SEIDEL},
                {"sgs", SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL},
                {"jacobi", SINEW_SOLVER_XPBD_JACOBI},
                {"gpbd-gs", SINEW_SOLVER_GPBD_GAUSS_SEIDEL},
                {"gpbd-jacobi", SINEW_SOLVER_GPBD_JACOBI},
                {"hpbd", SINEW_SOLVER_HPBD},
                {"pd-rbgs", SINEW_SOLVER_PD_RED_BLACK},
                {"pd-jacobi", SINEW_SOLVER_PD_JACOBI},
                {"pd-chebyshev", SINEW_SOLVER_PD_CHEBYSHEV},
                {"implicit-mg", SINEW_SOLVER_IMPLICIT_MG},
                {"implicit-pcg", SINEW_SOLVER_IMPLICIT_PCG},
            };
            ok = 0;
            for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; k++)
                if (v && !strcmp(v, solvers[k].name)) {
                    o->solver = solvers[k].solver;
                    ok = 1;
                }
            if (!ok)
                cli_error(t, "--solver: \"%s\" is not gs, sgs, jacobi, gpbd-gs, gpbd-jacobi, hpbd, pd-rbgs, "
                             "pd-jacobi, pd-chebyshev, implicit-mg or implicit-pcg%s", v ? v : "", "");
            o->solver_set = 1;
        } else if (!strcmp(a, "--substeps")) {
            ok = cli_uint(t, a, v, 1000, &o->substeps) && (o->substeps > 0 || cli_error(t, "%s must be >= 1%s", a, ""));
            o->substeps_set = 1;
        } else if (!strcmp(a, "--iterations")) {
            ok = cli_uint(t, a, v, 1000, &o->iterations) &&
                 (o->iterations > 0 || cli_error(t, "%s must be >= 1%s", a, ""));
            o->iterations_set = 1;
        } else if (!strcmp(a, "--newton")) {
            ok = cli_uint(t, a, v, 1000, &o->newton) && (o->newton > 0 || cli_error(t, "%s must be >= 1%s", a, ""));
        } else if (!strcmp(a, "--sweep")) {
            ok = v && (!strcmp(v, "forward") || !strcmp(v, "alternating"));
            if (!ok)
                cli_error(t, "--sweep: \"%s\" is not forward or alternating%s", v ? v : "", "");
            else
                o->sweep = !strcmp(v, "forward") ? SINEW_SWEEP_FORWARD : SINEW_SWEEP_ALTERNATING;
        } else if (!strcmp(a, "--level-iterations")) {
            ok = cli_uint(t, a, v, 100, &o->level_iterations) &&
                 (o->level_iterations > 0 || cli_error(t, "%s must be in 1..100%s", a, ""));
        } else if (!strcmp(a, "--cut-y")) {
            ok = cli_double(t, a, v, &o->cut_y);
            o->cut_set = 1;
        } else if (!strcmp(a, "--cut-frame")) {
            ok = cli_uint(t, a, v, 10000000, &o->cut_frame) && (o->cut_frame > 0 || cli_error(t, "%s must be >= 1%s", a, ""));
        } else if (!strcmp(a, "--newton-tol")) {
            ok = cli_double(t, a, v, &o->newton_tol) &&
                 ((o->newton_tol >= 0 && o->newton_tol < 1) || cli_error(t, "%s must be in [0, 1)%s", a, ""));
        } else if (!strcmp(a, "--stretch-compliance")) {
            ok = cli_double(t, a, v, &o->stretch);
        } else if (!strcmp(a, "--shear-compliance")) {
            ok = cli_double(t, a, v, &o->shear);
        } else if (!strcmp(a, "--bend-compliance")) {
            ok = cli_double(t, a, v, &o->bend);
        } else if (!strcmp(a, "--omega")) {
            ok = cli_double(t, a, v, &o->omega);
        } else if (!strcmp(a, "--damping")) {
            ok = cli_double(t, a, v, &o->damping) && (o->damping >= 0 || cli_error(t, "%s must be >= 0%s", a, ""));
            o->damping_set = 1;
        } else if (!strcmp(a, "--gravity")) {
            ok = cli_double(t, a, v, &o->gravity);
            o->gravity_set = 1;
        } else if (!strcmp(a, "--friction")) {
            ok = cli_double(t, a, v, &o->friction);
        } else if (!strcmp(a, "--ground")) {
            ok = cli_double(t, a, v, &o->ground);
            o->ground_set = 1;
        } else if (!strcmp(a, "--no-ground")) {
            o->no_ground = 1;
            used = 0;
        } else if (!strcmp(a, "--sphere")) {
            ok = cli_doubles(t, a, v, 4, o->sphere);
            o->sphere_set = 1;
        } else if (!strcmp(a, "--box")) {
            ok = cli_doubles(t, a, v, 6, o->box) &&
                 ((o->box[3] >= 0 && o->box[4] >= 0 && o->box[5] >= 0) ||
                  cli_error(t, "%s: half extents must be >= 0%s", a, ""));
            o->box_set = 1;
        } else if (!strcmp(a, "--box-velocity")) {
            ok = cli_doubles(t, a, v, 3, o->box_velocity);
        } else if (!strcmp(a, "--collider")) {
            o->collider = v;
            ok = v != NULL || cli_error(t, "%s needs a mesh file%s", a, "");
        } else if (!strcmp(a, "--collider-at")) {
            ok = cli_doubles(t, a, v, 3, o->collider_at);
        } else if (!strcmp(a, "--collider-size")) {
            ok = cli_double(t, a, v, &o->collider_size) &&
                 (o->collider_size > 0 || cli_error(t, "%s must be > 0%s", a, ""));
        } else if (!strcmp(a, "--collider-resolution")) {
            ok = cli_uint(t, a, v, 4096, &o->collider_resolution) &&
                 (o->collider_resolution >= 2 || cli_error(t, "%s must be >= 2%s", a, ""));
        } else if (!strcmp(a, "--rho")) {
            ok = cli_double(t, a, v, &o->rho) && ((o->rho > 0 && o->rho < 1) || cli_error(t, "%s must be in (0, 1)%s", a, ""));
        } else if (!strcmp(a, "--delay")) {
            ok = cli_uint(t, a, v, 1000, &o->delay);
        } else if (!strcmp(a, "--no-sphere")) {
            o->no_sphere = 1;
            used = 0;
        } else if (!strcmp(a, "--scene")) {
            o->scene = soft_scene_find(v);
            ok = o->scene >= 0 || cli_error(t, "--scene: \"%s\" is not cloth, cube-drop, bar-stretch, bar-compress, "
                                               "bar-twist, block-flat or block-random%s", v ? v : "", "");
        } else if (!strcmp(a, "--cells")) {
            ok = cli_uint(t, a, v, 400, &o->cells) && (o->cells >= 2 || cli_error(t, "%s must be >= 2%s", a, ""));
            o->cells_set = 1;
        } else if (!strcmp(a, "--size")) {
            ok = cli_double(t, a, v, &o->size) && (o->size > 0 || cli_error(t, "%s must be > 0%s", a, ""));
        } else if (!strcmp(a, "--material")) {
            o->material = v && !strcmp(v, "nh") ? SINEW_MATERIAL_NEO_HOOKEAN
                          : v && !strcmp(v, "snh") ? SINEW_MATERIAL_STABLE_NEO_HOOKEAN : MATERIAL_UNSET;
            ok = o->material != MATERIAL_UNSET || cli_error(t, "--material: \"%s\" is not nh or snh%s", v ? v : "", "");
        } else if (!strcmp(a, "--youngs")) {
            ok = cli_double(t, a, v, &o->youngs) && (o->youngs > 0 || cli_error(t, "%s must be > 0%s", a, ""));
            o->youngs_set = 1;
        } else if (!strcmp(a, "--poisson")) {
            ok = cli_double(t, a, v, &o->poisson) &&
                 ((o->poisson >= 0 && o->poisson < 0.5) || cli_error(t, "%s must be in [0, 0.5)%s", a, ""));
            o->poisson_set = 1;
        } else if (!strcmp(a, "--scale")) {
            ok = cli_double(t, a, v, &o->scale) && (o->scale > 0 || cli_error(t, "%s must be > 0%s", a, ""));
            o->scale_set = 1;
        } else if (!strcmp(a, "--turns")) {
            ok = cli_double(t, a, v, &o->turns);
            o->turns_set = 1;
        } else if (!strcmp(a, "--ramp")) {
            ok = cli_double(t, a, v, &o->ramp) && (o->ramp > 0 || cli_error(t, "%s must be > 0%s", a, ""));
            o->ramp_set = 1;
        } else if (!strcmp(a, "--seed")) {
            ok = cli_uint(t, a, v, 0xffffffffu, &o->seed);
        } else if (!strcmp(a, "--check-recovered")) {
            o->check_recovered = 1;
            used = 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            ok = v != NULL || cli_error(t, "%s needs a folder%s", a, "");
            o->out_dir = v;
        } else if (!strcmp(a, "--json")) {
            ok = v != NULL || cli_error(t, "%s needs a file%s", a, "");
            o->json = v;
        } else if (!strcmp(a, "--log")) {
            ok = v != NULL || cli_error(t, "%s needs a file%s", a, "");
            o->log = v;
        } else if (!strcmp(a, "--check-strain")) {
            ok = cli_double(t, a, v, &o->check_strain) &&
                 (o->check_strain > 0 || cli_error(t, "%s must be > 0%s", a, ""));
        } else if (!strcmp(a, "--max-speed")) {
            ok = cli_double(t, a, v, &o->max_speed) && (o->max_speed > 0 || cli_error(t, "%s must be > 0%s", a, ""));
        } else if (!strcmp(a, "--checkpoint")) {
            ok = v != NULL || cli_error(t, "%s needs a file%s", a, "");
            o->checkpoint = v;
        } else if (!strcmp(a, "--checkpoint-every")) {
            ok = cli_uint(t, a, v, 10000000, &o->checkpoint_every);
        } else if (!strcmp(a, "--resume")) {
            ok = v != NULL || cli_error(t, "%s needs a file%s", a, "");
            o->resume = v;
        } else if (!strcmp(a, "--hash")) {
            o->hash = 1;
            used = 0;
        } else if (!strcmp(a, "--png")) {
            o->png = 1;
            used = 0;
        } else if (!strcmp(a, "--no-png")) {
            o->no_png = 1;
            used = 0;
        } else if (!strcmp(a, "--picture")) {
            ok = v && sscanf(v, "%ux%u", &o->picture[0], &o->picture[1]) == 2 && o->picture[0] >= 16 &&
                 o->picture[1] >= 16 && o->picture[0] <= 8192 && o->picture[1] <= 8192;
            if (!ok)
                cli_error(t, "--picture: \"%s\" is not WxH with each in 16..8192%s", v ? v : "", "");
        } else if (!strcmp(a, "--camera")) {
            ok = cli_doubles(t, a, v, 6, o->camera);
            o->camera_set = 1;
        } else if (!strcmp(a, "--video")) {
            ok = v != NULL || cli_error(t, "%s needs a file%s", a, "");
            o->video = v;
        } else if (!strcmp(a, "--every")) {
            ok = cli_uint(t, a, v, 10000000, &o->every);
        } else if (!strcmp(a, "--device")) {
            ok = v != NULL || cli_error(t, "%s needs a name or index%s", a, "");
            o->device = v;
        } else if (!strcmp(a, "--validation")) {
            o->validation = 1;
            used = 0;
        } else if (!strcmp(a, "--portable")) {
            o->portable = 1;
            used = 0;
        } else if (!strcmp(a, "--bdf2")) {
            o->bdf2 = 1;
            used = 0;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = 1;
            used = 0;
        } else if (a[0] == '-') {
            return cli_error(t, "unknown option %s%s", a, "");
        } else {
            if (o->asset_path)
                return cli_error(t, "only one asset may be given (\"%s\", then \"%s\")", o->asset_path, a);
            o->asset_path = a;
            used = 0;
        }
        if (!ok)
            return 0;
        i += used;
    }
    if (o->video && (!o->every || o->no_png))
        return cli_error(t, "--video joins the pictures of --every N: give --every and not --no-png%s%s", "", "");
    if (o->asset_path && o->scene != SCENE_CLOTH)
        return cli_error(t, "give an asset or --scene %s, not both%s", soft_scenes[o->scene].name, "");
    /* The scene's settings where no option gave one. */
    const soft_scene_def *d = &soft_scenes[o->scene];
    if (o->scene != SCENE_CLOTH) {
        if (o->solver_set && !is_gpbd(o->solver))
            return cli_error(t, "--scene %s is a soft body: it needs --solver gpbd-gs or gpbd-jacobi%s", d->name, "");
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
    if (!o->cells_set)
        o->cells = d->cells;
    if (!o->youngs_set)
        o->youngs = d->youngs ? d->youngs : 1e6;
    if (!o->poisson_set)
        o->poisson = d->poisson ? d->poisson : 0.45;
    return 1;
}

/* The default scene, built in memory by the same code sinew-prep uses. */
static sinew_result default_scene(uint32_t n, sinew_asset **out)
{
    double origin[3] = {0.0, 1.2, 0.0};
    sinew_mesh mesh;
    sinew_result r = sinew_mesh_grid(n, n, 1.6, 1.6, SINEW_GRID_XZ, origin, &mesh);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_cloth_options opt = sinew_cloth_options_default();
    uint32_t pins[2] = {0, n - 1};
    opt.pin_indices = pins;
    opt.pin_count = 2;
    opt.source_name = "default scene (64 x 64 grid)";
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_WARNING;
    r = sinew_cloth_build(&mesh, &opt, &quiet, out, NULL);
    sinew_mesh_free(&mesh);
    return r;
}

static int write_obj(const char *path, const float *xyz, uint32_t n, const uint32_t *tris, uint32_t t)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", path, strerror(errno));
        return 0;
    }
    fprintf(f, "# sinew-sim\n");
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "v %.6g %.6g %.6g\n", xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
    for (uint32_t i = 0; i < t; i++)
        fprintf(f, "f %u %u %u\n", tris[3 * i] + 1, tris[3 * i + 1] + 1, tris[3 * i + 2] + 1);
    int ok = fclose(f) == 0;
    if (!ok)
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", path, strerror(errno));
    return ok;
}

/* Joins the --every pictures into o->video with ffmpeg, if there is one. */
static int make_video(const options *o)
{
    if (system("command -v ffmpeg > /dev/null 2>&1") != 0) {
        fprintf(stderr, "sinew-sim: --video needs ffmpeg (Debian: ffmpeg); the pictures are in %s\n", o->out_dir);
        return 0;
    }
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

static const char *solver_name(int s)
{
    switch (s) {
    case SINEW_SOLVER_XPBD_JACOBI: return "XPBD Jacobi";
    case SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL: return "XPBD symmetric Gauss-Seidel";
    case SINEW_SOLVER_GPBD_GAUSS_SEIDEL: return "GPBD Gauss-Seidel";
    case SINEW_SOLVER_GPBD_JACOBI: return "GPBD Jacobi";
    case SINEW_SOLVER_HPBD: return "Hierarchical PBD";
    case SINEW_SOLVER_PD_RED_BLACK: return "PD red-black Gauss-Seidel";
    case SINEW_SOLVER_PD_JACOBI: return "PD Jacobi";
    case SINEW_SOLVER_PD_CHEBYSHEV: return "PD Chebyshev";
    case SINEW_SOLVER_IMPLICIT_MG: return "implicit, constrainable multigrid";
    case SINEW_SOLVER_IMPLICIT_PCG: return "implicit, modified PCG";
    default: return "XPBD Gauss-Seidel";
    }
}

static const char *solver_option(int s)
{
    switch (s) {
    case SINEW_SOLVER_XPBD_JACOBI: return "jacobi";
    case SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL: return "sgs";
    case SINEW_SOLVER_GPBD_GAUSS_SEIDEL: return "gpbd-gs";
    case SINEW_SOLVER_GPBD_JACOBI: return "gpbd-jacobi";
    case SINEW_SOLVER_HPBD: return "hpbd";
    case SINEW_SOLVER_PD_RED_BLACK: return "pd-rbgs";
    case SINEW_SOLVER_PD_JACOBI: return "pd-jacobi";
    case SINEW_SOLVER_PD_CHEBYSHEV: return "pd-chebyshev";
    case SINEW_SOLVER_IMPLICIT_MG: return "implicit-mg";
    case SINEW_SOLVER_IMPLICIT_PCG: return "implicit-pcg";
    default: return "gs";
    }
}

/* A number for JSON: non-finite values become null. */
static void json_num(FILE *f, const char *key, double v, const char *sep)
{
    if (isfinite(v))
        fprintf(f, "\"%s\": %.9g%s", key, v, sep);
    else
        fprintf(f, "\"%s\": null%s", key, sep);
}

static void json_shape(FILE *f, const char *key, const soft_shape *s, long step, const char *sep)
{
    fprintf(f, "  \"%s\": {", key);
    if (step >= 0)
        fprintf(f, "\"step\": %ld, ", step);
    json_num(f, "max_volume_error", s->max_error, ", ");
    json_num(f, "rms_volume_error", s->rms_error, ", ");
    json_num(f, "total_volume_error", s->total_error, ", ");
    json_num(f, "max_green_strain", s->max_green, ", ");
    fprintf(f, "\"inverted_tets\": %u, \"finite\": %s}%s\n", s->inverted, s->finite ? "true" : "false", sep);
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

/* Tears the body: cuts the distance constraints whose rest end points lie on
 * both sides of the plane y = cut_y. */
static int cut_across(sinew_body *body, const sinew_asset *asset, double cut_y, int quiet)
{
    sinew_asset_info ai = sinew_asset_get_info(asset);
    float *rest = malloc(sizeof *rest * 3 * ((size_t)ai.particle_count + 1));
    uint32_t *ends = malloc(sizeof *ends * 2 * ((size_t)ai.distance_count + 1)), count = 0;
    if (!rest || !ends) {
        free(rest);
        free(ends);
        fprintf(stderr, "sinew-sim: out of memory\n");
        return 0;
    }
    sinew_asset_get_positions(asset, rest);
    sinew_asset_get_distances(asset, ends);
    for (uint32_t c = 0; c < ai.distance_count; c++) {
        uint32_t a = ends[2 * c], b = ends[2 * c + 1];
        if ((rest[3 * a + 1] < cut_y) != (rest[3 * b + 1] < cut_y)) {
            ends[2 * count] = a; /* compacted in place: count <= c */
            ends[2 * count + 1] = b;
            count++;
        }
    }
    uint32_t cut = 0;
    sinew_result r = sinew_body_cut(body, ends, count, &cut);
    if (r != SINEW_RESULT_OK)
        fprintf(stderr, "sinew-sim: cutting at y = %g failed: %s\n", cut_y, sinew_result_string(r));
    else if (!quiet)
        printf("  cut %u distance constraints across y = %g m\n", cut, cut_y);
    free(rest);
    free(ends);
    return r == SINEW_RESULT_OK;
}

/* --collider: the mesh read, scaled and placed as the options say, and its
 * distance field made on the context. 0, having said why, on failure. */
static int load_collider(sinew_context *ctx, const options *o, sinew_collider **out, float **xyz, uint32_t *vertex_count,
                         uint32_t **tris, uint32_t *tri_count)
{
    sinew_mesh m;
    sinew_logger lg = sinew_logger_default();
    sinew_result r = sinew_mesh_read(o->collider, &lg, &m);
    if (r != SINEW_RESULT_OK)
        return 0; /* the reader named the file and line */
    r = sinew_mesh_triangle_arrays(&m, xyz, tris, tri_count);
    *vertex_count = m.vertex_count;
    sinew_mesh_free(&m);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: %s: %s\n", o->collider, sinew_result_string(r));
        return 0;
    }
    if (o->collider_size > 0 && *vertex_count) {
        float lo[3], hi[3];
        for (int k = 0; k < 3; k++)
            lo[k] = hi[k] = (*xyz)[k];
        for (uint32_t v = 0; v < *vertex_count; v++)
            for (int k = 0; k < 3; k++) {
                float x = (*xyz)[3 * v + k];
                lo[k] = x < lo[k] ? x : lo[k];
                hi[k] = x > hi[k] ? x : hi[k];
            }
        float longest = 0.0f;
        for (int k = 0; k < 3; k++)
            longest = hi[k] - lo[k] > longest ? hi[k] - lo[k] : longest;
        float scale = longest > 0.0f ? (float)o->collider_size / longest : 1.0f;
        const float base[3] = {0.5f * (lo[0] + hi[0]), lo[1], 0.5f * (lo[2] + hi[2])};
        for (uint32_t v = 0; v < *vertex_count; v++)
            for (int k = 0; k < 3; k++)
                (*xyz)[3 * v + k] = ((*xyz)[3 * v + k] - base[k]) * scale;
    }
    sinew_collider_desc cd = sinew_collider_desc_default();
    cd.vertices = *xyz;
    cd.vertex_count = *vertex_count;
    cd.triangles = *tris;
    cd.triangle_count = *tri_count;
    cd.resolution = o->collider_resolution;
    cd.name = o->collider;
    if ((r = sinew_collider_create(ctx, &cd, out)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: no collider from %s: %s\n", o->collider, sinew_result_string(r));
        return 0; /* the library said why */
    }
    if (!o->quiet) {
        sinew_collider_info ci = sinew_collider_get_info(*out);
        printf("  collider %s: %u triangles, a %u x %u x %u distance field (cell %.3g m) built in %.0f ms\n",
               o->collider, *tri_count, ci.dims[0], ci.dims[1], ci.dims[2], ci.cell_size, ci.build_ms);
    }
    return 1;
}

/* A block has recovered its rest shape: nothing inverted, Green strain under 1 %. */
static int shape_recovered(const soft_shape *s) { return s->finite && s->inverted == 0 && s->max_green < 0.01; }

int main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o))
        return 2;
    const soft_scene_def *scene = &soft_scenes[o.scene];
    const char *scene_name = o.asset_path ? o.asset_path : o.scene == SCENE_CLOTH ? "default scene" : scene->name;

    sinew_logger quiet_log = sinew_logger_default();
    quiet_log.level = SINEW_LOG_WARNING;
    sinew_asset *asset = NULL;
    uint32_t *pins = NULL, pin_count = 0;
    sinew_soft_report rep = {0};
    sinew_material_model model = o.material == MATERIAL_UNSET ? SINEW_MATERIAL_NEO_HOOKEAN : (sinew_material_model)o.material;
    sinew_result r = o.asset_path ? sinew_asset_load(o.asset_path, NULL, &asset)
                     : o.scene == SCENE_CLOTH
                         ? default_scene(o.cells, &asset)
                         : soft_scene_build(o.scene, o.cells, o.size, model, o.youngs, o.poisson, &quiet_log, &asset, &pins,
                                            &pin_count, &rep);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: %s: %s\n", scene_name, sinew_result_string(r));
        return 1;
    }
    sinew_asset_info ai = sinew_asset_get_info(asset);
    const int soft = ai.tet_count > 0;
    if (ai.element_count && !o.solver_set)
        o.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL; /* an asset of finite elements */

    sinew_step_params p = sinew_step_params_default();
    p.dt = (float)o.dt;
    p.damping = (float)o.damping;
    p.friction = (float)o.friction;
    p.gravity[1] = (float)-o.gravity;
    float extent = 0.0f;
    for (int k = 0; k < 3; k++)
        extent = ai.bounds_max[k] - ai.bounds_min[k] > extent ? ai.bounds_max[k] - ai.bounds_min[k] : extent;
    p.ground = !o.no_ground;
    p.ground_height = o.ground_set ? (float)o.ground : o.asset_path ? ai.bounds_min[1] - 0.25f * extent : 0.0f;
    if (o.sphere_set || (!o.asset_path && o.scene == SCENE_CLOTH && !o.no_sphere)) {
        double def[4] = {0.0, 0.45, -0.35, 0.3};
        const double *s = o.sphere_set ? o.sphere : def;
        p.sphere = 1;
        for (int k = 0; k < 3; k++)
            p.sphere_center[k] = (float)s[k];
        p.sphere_radius = (float)s[3];
    }
    if (o.no_sphere)
        p.sphere = 0;
    if (o.box_set) {
        p.box = 1;
        for (int k = 0; k < 3; k++) {
            p.box_center[k] = (float)o.box[k];
            p.box_half_extents[k] = (float)o.box[3 + k];
            p.box_velocity[k] = (float)o.box_velocity[k];
        }
    }

    /* Material options given with an asset file replace each of its materials. */
    sinew_material *materials = NULL;
    if (o.asset_path && ai.tet_count && (o.material != MATERIAL_UNSET || o.youngs_set || o.poisson_set)) {
        materials = calloc(ai.material_count + 1, sizeof *materials);
        for (uint32_t m = 0; materials && m < ai.material_count; m++) {
            sinew_material old;
            if (sinew_asset_get_material(asset, m, &old) != SINEW_RESULT_OK)
                continue;
            materials[m] = old;
            if (old.model == SINEW_MATERIAL_NEO_HOOKEAN || old.model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN) {
                materials[m].model = o.material != MATERIAL_UNSET ? (uint32_t)o.material : old.model;
                materials[m].youngs_modulus = o.youngs_set ? (float)o.youngs : old.youngs_modulus;
                materials[m].poisson_ratio = o.poisson_set ? (float)o.poisson : old.poisson_ratio;
            }
        }
    }

    sinew_context_desc cd = sinew_context_desc_default();
    cd.device = o.device;
    cd.validation = o.validation;
    if (o.portable)
        cd.limits = SINEW_LIMITS_PORTABLE;
    sinew_context *ctx = NULL;
    if ((r = sinew_context_create(&cd, &ctx)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: no Vulkan context: %s\n", sinew_result_string(r));
        sinew_asset_destroy(asset);
        free(pins);
        free(materials);
        return 1;
    }
    float *collider_xyz = NULL;
    uint32_t *collider_tris = NULL, collider_tri_count = 0, collider_vertex_count = 0;
    sinew_collider *collider = NULL;
    if (o.collider && !load_collider(ctx, &o, &collider, &collider_xyz, &collider_vertex_count, &collider_tris,
                                     &collider_tri_count)) {
        sinew_context_destroy(ctx);
        sinew_asset_destroy(asset);
        free(pins);
        free(materials);
        return 1;
    }
    if (collider) {
        p.collider = 1;
        for (int k = 0; k < 3; k++)
            p.collider_position[k] = (float)o.collider_at[k];
    }
    sinew_body_desc bd = sinew_body_desc_default();
    bd.collider = collider;
    bd.solver = (sinew_solver)o.solver;
    bd.substeps = o.substeps;
    bd.iterations = o.iterations;
    bd.stretch_compliance = (float)o.stretch;
    bd.shear_compliance = (float)o.shear;
    bd.bend_compliance = (float)o.bend;
    bd.jacobi_omega = (float)o.omega;
    bd.max_speed = (float)o.max_speed;
    bd.newton_iterations = o.newton;
    bd.newton_tolerance = (float)o.newton_tol;
    bd.level_iterations = o.level_iterations;
    bd.sweep_order = (sinew_sweep_order)o.sweep;
    bd.chebyshev_rho = (float)o.rho;
    bd.implicit.bdf2 = o.bdf2;
    bd.chebyshev_delay = o.delay;
    bd.name = scene_name;
    if (materials) {
        bd.materials = materials;
        bd.material_count = ai.material_count;
    }
    sinew_body *body = NULL;
#ifdef SINEW_HAVE_PNG
    render *renderer = NULL;
#endif
    int status = 1;
    FILE *log = NULL;
    soft_measure measure = {0};
    float *xyz = malloc(3ull * ai.particle_count * sizeof *xyz);
    float *rest = malloc(3ull * ai.particle_count * sizeof *rest);
    float *pin_xyz = malloc(3ull * pin_count * sizeof *pin_xyz + 1);
    uint32_t tri_count = 0;
    const uint32_t *tris = sinew_asset_get_triangles(asset, &tri_count);
    uint32_t *shown_tris = NULL; /* after a cut: the triangles that do not cross it */
    /* Cloth logs: each distance constraint's ends and rest-pose length. */
    uint32_t *ends = malloc(sizeof *ends * 2 * ((size_t)ai.distance_count + 1));
    double *rest_length = malloc(sizeof *rest_length * ((size_t)ai.distance_count + 1));
    if (ends && rest_length && rest) {
        sinew_asset_get_positions(asset, rest);
        sinew_asset_get_distances(asset, ends);
        for (uint32_t c = 0; c < ai.distance_count; c++) {
            const float *a = &rest[3 * ends[2 * c]], *b = &rest[3 * ends[2 * c + 1]];
            rest_length[c] = sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
        }
    }
    if (!xyz || !rest || !pin_xyz || !ends || !rest_length || (o.asset_path && ai.tet_count && (o.material != MATERIAL_UNSET || o.youngs_set ||
                                                                       o.poisson_set) && !materials)) {
        fprintf(stderr, "sinew-sim: out of host memory\n");
        goto done;
    }
    if ((r = sinew_body_create(ctx, asset, &bd, &body)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: cannot create the body: %s\n", sinew_result_string(r));
        goto done;
    }
    if (o.checkpoint_every && !o.checkpoint) {
        fprintf(stderr, "sinew-sim: --checkpoint-every needs --checkpoint FILE\n");
        goto done;
    }
    /* Rest shapes from the positions at creation, before any start pose. */
    if (soft) {
        if (sinew_body_read_positions(body, rest, ai.particle_count) != SINEW_RESULT_OK)
            goto done;
        if (!soft_measure_init(&measure, asset, rest)) {
            fprintf(stderr, "sinew-sim: out of host memory (or a degenerate rest tetrahedron)\n");
            goto done;
        }
    }
    if (o.scene == SCENE_BLOCK_FLAT || o.scene == SCENE_BLOCK_RANDOM) {
        soft_block_start(o.scene, rest, ai.particle_count, o.seed, xyz);
        if (sinew_body_write_positions(body, xyz, ai.particle_count) != SINEW_RESULT_OK)
            goto done;
    }
    if (o.resume && sinew_body_load_checkpoint_file(body, o.resume) != SINEW_RESULT_OK)
        goto done; /* the library said why */
    if (mkdir(o.out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "sinew-sim: cannot create %s: %s\n", o.out_dir, strerror(errno));
        goto done;
    }
    const int pictures = !o.no_png && (o.png || o.video || (!o.asset_path && o.scene == SCENE_CLOTH));
#ifdef SINEW_HAVE_PNG
    render_camera camera;
    if (pictures) {
        float lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = ai.bounds_min[k];
            hi[k] = ai.bounds_max[k];
        }
        if (p.ground)
            lo[1] = lo[1] < p.ground_height ? lo[1] : p.ground_height;
        camera = render_camera_framing(lo, hi);
        if (o.camera_set)
            for (int k = 0; k < 3; k++) {
                camera.eye[k] = (float)o.camera[k];
                camera.target[k] = (float)o.camera[3 + k];
            }
        renderer = render_create(ctx, body, tris, tri_count, o.picture[0], o.picture[1]);
        if (!renderer && (o.png || o.video))
            goto done; /* it said why */
        if (renderer && collider &&
            !render_set_collider(renderer, collider_xyz, collider_vertex_count, collider_tris, collider_tri_count))
            goto done;
    }
#else
    if (pictures && (o.png || o.video)) {
        fprintf(stderr, "sinew-sim: built without libpng (Debian: libpng-dev): no pictures\n");
        goto done;
    }
#endif
    if (o.log && !(log = fopen(o.log, "w"))) {
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", o.log, strerror(errno));
        goto done;
    }
    if (log)
        fprintf(log, soft ? "step,wall_ms,gpu_ms,max_volume_error,rms_volume_error,total_volume_error,inverted_tets,"
                            "max_green_strain,max_speed,newton_mean\n"
                          : "step,wall_ms,gpu_ms,max_strain,rms_strain,max_speed,max_stretch,mean_stretch\n");

    sinew_device_info di = sinew_context_get_device_info(ctx);
    if (!o.quiet && !soft)
        printf("sinew-sim: %s on %s\n  %u particles, %u triangles, %u distance + %u bending constraints in %u colours\n",
               scene_name, di.name, ai.particle_count, ai.triangle_count, ai.distance_count, ai.bend_count,
               ai.colour_count);
    else if (!o.quiet)
        printf("sinew-sim: %s on %s\n  %u particles (%u pinned), %u tetrahedra in %u colours, %u boundary triangles\n",
               scene_name, di.name, ai.particle_count, ai.pinned_count, ai.tet_count, ai.element_colour_count,
               ai.triangle_count);
    if (!o.quiet && o.resume)
        printf("  resumed at step %llu from %s\n", (unsigned long long)sinew_body_get_stats(body).step_index,
               o.resume);

    soft_shape start = {0}, last = {0}, worst = {0};
    long worst_step = -1, worst_inverted_step = -1, recovered_step = -1;
    uint32_t most_inverted = 0;
    if (soft) {
        if (sinew_body_read_positions(body, xyz, ai.particle_count) != SINEW_RESULT_OK)
            goto done;
        start = last = soft_measure_shape(&measure, xyz, ai.particle_count);
        if (!o.quiet && (o.scene == SCENE_BLOCK_FLAT || o.scene == SCENE_BLOCK_RANDOM))
            printf("  start: %u inverted tetrahedra, max |V/V0 - 1| %.3g, max Green strain %.3g\n", start.inverted,
                   start.max_error, start.max_green);
    }
    float x_max = -INFINITY;
    for (uint32_t k = 0; k < pin_count; k++)
        x_max = fmaxf(x_max, rest[3 * pins[k]]);
    double gpu_ms = 0.0, step_wall = 0.0, worst_strain = 0.0, worst_rms = 0.0, fastest = 0.0, t0 = now_s();
    unsigned gpu_steps = 0, steps_done = 0, unstable_step = 0;
    /* Element updates per step, to turn the step's Newton iterations into a mean. */
    const double updates = (double)ai.element_count * o.substeps * o.iterations;
    double newton_sum = 0.0, linear_ms = 0.0, linear_worst = 0.0;
    uint64_t linear_sum = 0;
    uint32_t linear_unconverged = 0;
    double last_s = 0.0;
    int tty = isatty(fileno(stdout));
    char path[4096];
    for (unsigned f = 1; f <= o.frames; f++) {
        if (pin_count) {
            /* The ends are where they should be at the end of this step. */
            double s = soft_ramp(f * o.dt / o.ramp);
            if (s != last_s) {
                soft_bar_pins(o.scene, s, o.scale, o.turns, rest, pins, pin_count, x_max, pin_xyz);
                if ((r = sinew_body_move_pinned(body, pins, pin_count, pin_xyz)) != SINEW_RESULT_OK) {
                    fprintf(stderr, "sinew-sim: moving the pins before step %u failed: %s\n", f, sinew_result_string(r));
                    goto done;
                }
                last_s = s;
            }
        }
        if (o.cut_set && f == o.cut_frame) {
            if (!cut_across(body, asset, o.cut_y, o.quiet))
                goto done;
            /* The surface parts there too: triangles across the cut are shown no more. */
            free(shown_tris);
            shown_tris = malloc(sizeof *shown_tris * 3 * ((size_t)tri_count + 1));
            if (!shown_tris) {
                fprintf(stderr, "sinew-sim: out of host memory\n");
                goto done;
            }
            uint32_t kept = 0;
            for (uint32_t k = 0; k < tri_count; k++) {
                int below = 0;
                for (int c = 0; c < 3; c++)
                    below += rest[3 * tris[3 * k + c] + 1] < o.cut_y;
                if (below == 0 || below == 3)
                    memcpy(&shown_tris[3 * kept++], &tris[3 * k], 3 * sizeof *tris);
            }
            tris = shown_tris;
            tri_count = kept;
#ifdef SINEW_HAVE_PNG
            if (renderer && !render_set_triangles(renderer, tris, tri_count))
                goto done;
#endif
        }
        double ts = now_s();
        r = sinew_body_step(body, &p);
        double step_s = now_s() - ts;
        if (r == SINEW_RESULT_ERROR_UNSTABLE) {
            fprintf(stderr, "sinew-sim: step %u was unstable (the health check failed; rolled back to the state "
                            "before it): the run ends here\n", f);
            unstable_step = f;
            break;
        }
        if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "sinew-sim: step %u failed: %s\n", f, sinew_result_string(r));
            goto done;
        }
        steps_done = f;
        step_wall += step_s;
        for (int k = 0; k < 3; k++) /* where the box is for the next step */
            p.box_center[k] += p.box_velocity[k] * p.dt;
        sinew_step_stats st = sinew_body_get_stats(body);
        if (st.ms_total > 0) {
            gpu_ms += st.ms_total;
            gpu_steps++;
        }
        fastest = st.max_speed > fastest ? st.max_speed : fastest;
        newton_sum += (double)st.newton_iterations;
        linear_sum += st.linear_iterations;
        linear_ms += st.ms_linear;
        linear_worst = st.linear_residual > linear_worst ? st.linear_residual : linear_worst;
        linear_unconverged += st.linear_unconverged;
        worst_strain = st.max_strain > worst_strain ? st.max_strain : worst_strain;
        /* NaN compares false: a non-finite strain counts as the worst. */
        worst_rms = !(st.rms_strain <= worst_rms) ? st.rms_strain : worst_rms;
        if (soft) {
            if (sinew_body_read_positions(body, xyz, ai.particle_count) != SINEW_RESULT_OK)
                goto done;
            last = soft_measure_shape(&measure, xyz, ai.particle_count);
            if (!(last.max_error <= worst.max_error) || worst_step < 0) {
                worst = last;
                worst_step = f;
            }
            if (last.inverted > most_inverted || worst_inverted_step < 0) {
                most_inverted = last.inverted;
                worst_inverted_step = f;
            }
            if (recovered_step < 0 && shape_recovered(&last))
                recovered_step = f;
        }
        if (log && soft)
            fprintf(log, "%u,%.4f,%.4f,%.6g,%.6g,%.6g,%u,%.6g,%.6g,%.4g\n", f, 1e3 * step_s, st.ms_total, last.max_error,
                    last.rms_error, last.total_error, last.inverted, last.max_green, st.max_speed,
                    updates > 0 ? st.newton_iterations / updates : 0.0);
        else if (log) {
            double most = 0.0, mean = 0.0;
            if (sinew_body_read_positions(body, xyz, ai.particle_count) != SINEW_RESULT_OK)
                goto done;
            cloth_stretch(xyz, ends, rest_length, ai.distance_count, &most, &mean);
            fprintf(log, "%u,%.4f,%.4f,%.6g,%.6g,%.6g,%.6g,%.6g\n", f, 1e3 * step_s, st.ms_total, st.max_strain,
                    st.rms_strain, st.max_speed, most, mean);
        }
        if (o.every && f % o.every == 0) {
            snprintf(path, sizeof path, "%s/frame_%05u.obj", o.out_dir, f);
            if (sinew_body_read_positions(body, xyz, ai.particle_count) != SINEW_RESULT_OK ||
                !write_obj(path, xyz, ai.particle_count, tris, tri_count))
                goto done;
#ifdef SINEW_HAVE_PNG
            snprintf(path, sizeof path, "%s/frame_%05u.png", o.out_dir, f);
            if (renderer && !render_frame(renderer, &p, &camera, path))
                goto done;
#endif
        }
        if (o.checkpoint && (f == o.frames || (o.checkpoint_every && f % o.checkpoint_every == 0)) &&
            sinew_body_save_checkpoint_file(body, o.checkpoint) != SINEW_RESULT_OK)
            goto done;
        if (!o.quiet && (f % (o.frames / 10 ? o.frames / 10 : 1) == 0 || f == o.frames)) {
            int bar = (int)(30.0 * f / o.frames);
            printf("%s  [%.*s%*s] %3u%%  step %u  ", tty ? "\r" : "", bar, "##############################", 30 - bar,
                   "", 100 * f / o.frames, f);
            if (soft)
                printf("max |V/V0 - 1| %.3f%%  RMS %.3f%%  inverted %u%s", 100.0 * last.max_error,
                       100.0 * last.rms_error, last.inverted, tty ? "" : "\n");
            else
                printf("max strain %.3f%%%s", 100.0 * st.max_strain, tty ? "" : "\n");
            fflush(stdout);
        }
    }
    if (!o.quiet && tty)
        printf("\n");
    double wall = now_s() - t0;
    char picture[4096] = "";
#ifdef SINEW_HAVE_PNG
    if (renderer) {
        snprintf(picture, sizeof picture, "%s/final.png", o.out_dir);
        if (!render_frame(renderer, &p, &camera, picture))
            goto done;
    }
#endif
    if (o.video && !make_video(&o))
        goto done;
    snprintf(path, sizeof path, "%s/final.obj", o.out_dir);
    if (sinew_body_read_positions(body, xyz, ai.particle_count) != SINEW_RESULT_OK ||
        !write_obj(path, xyz, ai.particle_count, tris, tri_count))
        goto done;
    sinew_step_stats st = sinew_body_get_stats(body);
    const double wall_ms = steps_done ? 1e3 * step_wall / steps_done : 0.0;
    const double gpu_step_ms = gpu_steps ? gpu_ms / gpu_steps : -1.0;
    const double newton_mean = updates > 0 && steps_done ? newton_sum / (updates * steps_done) : 0.0;
    const double newton_last = updates > 0 ? st.newton_iterations / updates : 0.0;
    sinew_material mat0 = {0};
    if (soft)
        sinew_asset_get_material(asset, 0, &mat0);
    if (materials)
        mat0 = materials[0];
    const int is_block = o.scene == SCENE_BLOCK_FLAT || o.scene == SCENE_BLOCK_RANDOM;
    printf("summary\n");
    printf("  device          %s (%s)\n", di.name, di.driver);
    if (soft) {
        printf("  scene           %s: %u particles (%u pinned), %u tetrahedra", scene_name, ai.particle_count,
               ai.pinned_count, ai.tet_count);
        if (!o.asset_path)
            printf(", %u^3 vertices", o.cells);
        printf("\n  material        %s, E %g Pa, nu %g, %g kg/m^3\n",
               mat0.model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN ? "stable neo-Hookean" : "neo-Hookean",
               (double)mat0.youngs_modulus, (double)mat0.poisson_ratio, (double)mat0.density);
        printf("  solver          %s, %u substeps x %u iterations, Newton <= %u (tolerance %g), %u dispatches per step\n",
               solver_name(o.solver), o.substeps, o.iterations, o.newton, o.newton_tol, st.dispatches);
        printf("  steps           %u of %.4g s (%u asked), gravity %g m/s^2, %s\n", steps_done, o.dt, o.frames,
               o.gravity, p.ground ? "ground" : "no ground");
        printf("  Newton          %.2f iterations per element update on average, %.2f in the last step "
               "(bound %u)\n", newton_mean, newton_last, o.newton);
        if (unstable_step)
            printf("  stability       UNSTABLE at step %u: %u particles not finite or faster than %g m/s\n",
                   unstable_step, st.bad_particles, o.max_speed);
        else
            printf("  stability       stable: every step passed the health check (fastest particle %.3g m/s)\n",
                   fastest);
    } else {
        printf("  solver          %s, %u substeps x %u iterations, %u dispatches per step\n", solver_name(o.solver),
               o.substeps, o.iterations, st.dispatches);
        printf("  steps           %u of %.4g s\n", steps_done, o.dt);
        if (unstable_step)
            printf("  stability       UNSTABLE at step %u\n", unstable_step);
    }
    if ((o.solver == SINEW_SOLVER_IMPLICIT_MG || o.solver == SINEW_SOLVER_IMPLICIT_PCG) && steps_done)
        printf("  linear solve    %.1f %s and %.1f ms per step; worst relative residual %.2e; %u solves above "
               "the tolerance\n",
               (double)linear_sum / steps_done, o.solver == SINEW_SOLVER_IMPLICIT_MG ? "V-cycles" : "PCG iterations",
               linear_ms / steps_done, linear_worst, linear_unconverged);
    if (gpu_step_ms >= 0)
        printf("  time per step   %.3f ms GPU, %.3f ms wall\n", gpu_step_ms, wall_ms);
    else
        printf("  time per step   %.3f ms wall (no GPU timestamps)\n", wall_ms);
    if (soft) {
        printf("  volume error    last step: max %.3g%%, RMS %.3g%%, total %.3g%%; worst step %ld: max %.3g%%\n",
               100.0 * last.max_error, 100.0 * last.rms_error, 100.0 * last.total_error, worst_step,
               100.0 * worst.max_error);
        printf("  inverted tets   %u last step, at most %u (step %ld); max Green strain %.3g last step\n", last.inverted,
               most_inverted, worst_inverted_step, last.max_green);
        if (is_block) {
            printf("  start           %u inverted, max |V/V0 - 1| %.3g, max Green strain %.3g\n", start.inverted,
                   start.max_error, start.max_green);
            if (recovered_step >= 0)
                printf("  recovered       at step %ld (%.3g s): no inverted tetrahedra, Green strain < 1%%; %s at "
                       "the last step\n",
                       recovered_step, recovered_step * o.dt, shape_recovered(&last) ? "still" : "NOT");
            else
                printf("  recovered       no: not within %u steps\n", steps_done);
        }
    } else {
        printf("  max stretch     %.3f%% last step, %.3f%% worst step (RMS %.3f%%)\n", 100.0 * st.max_strain,
               100.0 * worst_strain, 100.0 * st.rms_strain);
    }
    printf("  device memory   %.2f MiB body, %.2f MiB context\n", st.device_memory / 1048576.0,
           sinew_context_get_device_memory(ctx) / 1048576.0);
    printf("  run time        %.1f s\n", wall);
    printf("  final mesh      %s\n", path);
    if (*picture)
        printf("  picture         %s\n", picture);
    if (o.video)
        printf("  video           %s\n", o.video);
    if (o.checkpoint)
        printf("  checkpoint      %s (step %llu)\n", o.checkpoint, (unsigned long long)st.step_index);
    if (o.hash) {
        uint64_t h;
        if (sinew_body_state_hash(body, &h) != SINEW_RESULT_OK)
            goto done;
        printf("  state hash      %016llx\n", (unsigned long long)h);
    }
    status = unstable_step ? 3 : 0;
    if (o.check_strain > 0 && !(worst_rms <= o.check_strain)) {
        printf("  check           FAILED: RMS strain reached %.3g, above %.3g\n", worst_rms, o.check_strain);
        status = 3;
    } else if (o.check_strain > 0) {
        printf("  check           passed: RMS strain at most %.3g (limit %.3g)\n", worst_rms, o.check_strain);
    }
    if (o.check_recovered && !(soft && !unstable_step && shape_recovered(&last))) {
        printf("  check           FAILED: not recovered at the last step\n");
        status = 3;
    } else if (o.check_recovered) {
        printf("  check           passed: recovered\n");
    }
    if (o.json) {
        FILE *j = fopen(o.json, "w");
        if (!j) {
            fprintf(stderr, "sinew-sim: cannot write %s: %s\n", o.json, strerror(errno));
            status = 1;
            goto done;
        }
        fprintf(j, "{\n  \"scene\": \"%s\",\n", o.asset_path ? "asset" : scene->name);
        fprintf(j, "  \"device\": \"%s\",\n  \"driver\": \"%s\",\n", di.name, di.driver);
        fprintf(j, "  \"particles\": %u, \"pinned\": %u, \"tets\": %u, \"cells\": %u,\n", ai.particle_count,
                ai.pinned_count, ai.tet_count, o.asset_path ? 0 : o.cells);
        if (soft)
            fprintf(j, "  \"material\": \"%s\", \"youngs\": %g, \"poisson\": %g, \"density\": %g,\n",
                    mat0.model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN ? "snh" : "nh", (double)mat0.youngs_modulus,
                    (double)mat0.poisson_ratio, (double)mat0.density);
        fprintf(j, "  \"solver\": \"%s\", \"substeps\": %u, \"iterations\": %u, \"newton_iterations\": %u, "
                   "\"newton_tolerance\": %g,\n",
                solver_option(o.solver), o.substeps, o.iterations, o.newton, o.newton_tol);
        fprintf(j, "  \"dt\": %g, \"frames\": %u, \"steps\": %u, \"gravity\": %g, \"ground\": %s, \"damping\": %g,\n",
                o.dt, o.frames, steps_done, o.gravity, p.ground ? "true" : "false", o.damping);
        if (soft_scene_is_bar(o.scene))
            fprintf(j, "  \"scale\": %g, \"turns\": %g, \"ramp\": %g,\n", o.scene == SCENE_BAR_TWIST ? 1.0 : o.scale,
                    o.scene == SCENE_BAR_TWIST ? o.turns : 0.0, o.ramp);
        fprintf(j, "  \"stable\": %s, \"unstable_step\": ", unstable_step ? "false" : "true");
        if (unstable_step)
            fprintf(j, "%u,\n", unstable_step);
        else
            fprintf(j, "null,\n");
        fprintf(j, "  \"dispatches_per_step\": %u, ", st.dispatches);
        json_num(j, "ms_per_step_wall", wall_ms, ", ");
        json_num(j, "ms_per_step_gpu", gpu_step_ms >= 0 ? gpu_step_ms : NAN, ", ");
        json_num(j, "max_speed", fastest, ", ");
        if (ai.element_count) {
            json_num(j, "newton_mean", newton_mean, ", ");
            json_num(j, "newton_last_step", newton_last, ", ");
        }
        json_num(j, "run_seconds", wall, ",\n");
        if (soft) {
            json_shape(j, "start", &start, -1, ",");
            json_shape(j, "final", &last, steps_done, ",");
            json_shape(j, "worst", &worst, worst_step, ",");
            fprintf(j, "  \"most_inverted_tets\": %u,\n", most_inverted);
            if (is_block && recovered_step >= 0)
                fprintf(j, "  \"recovered_step\": %ld, \"recovered_at_end\": %s,\n", recovered_step,
                        shape_recovered(&last) ? "true" : "false");
            else if (is_block)
                fprintf(j, "  \"recovered_step\": null, \"recovered_at_end\": false,\n");
        } else {
            json_num(j, "max_strain", st.max_strain, ", ");
            json_num(j, "worst_max_strain", worst_strain, ", ");
            json_num(j, "worst_rms_strain", worst_rms, ",\n");
        }
        fprintf(j, "  \"exit_status\": %d\n}\n", status);
        if (fclose(j) != 0) {
            fprintf(stderr, "sinew-sim: cannot write %s: %s\n", o.json, strerror(errno));
            status = 1;
        }
    }
done:
    fflush(stdout); /* before any exit-time report a sanitizer may end the process with */
#ifdef SINEW_HAVE_PNG
    render_destroy(renderer);
#endif
    if (log && fclose(log) != 0) {
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", o.log, strerror(errno));
        status = 1;
    }
    soft_measure_free(&measure);
    free(xyz);
    free(ends);
    free(rest_length);
    free(rest);
    free(pin_xyz);
    free(pins);
    free(shown_tris);
    free(materials);
    free(collider_xyz);
    free(collider_tris);
    sinew_body_destroy(body);
    sinew_collider_destroy(collider);
    sinew_context_destroy(ctx);
    sinew_asset_destroy(asset);
    return status;
}
