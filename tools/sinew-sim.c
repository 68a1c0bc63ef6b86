/* sinew-sim: runs a scene and writes its meshes. With no asset it runs the
 * embedded default scene: a 64 x 64 cloth pinned at two corners, falling under
 * gravity past a sphere onto the ground. */
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

static const char *const usage =
    "usage: sinew-sim [ASSET.snw] [options]\n"
    "\n"
    "Simulates a cloth asset (made by sinew-prep) or, with no asset, the default\n"
    "scene: a 64 x 64 cloth pinned at two corners falling past a sphere onto the\n"
    "ground. Prints progress and a summary; writes the final mesh as OBJ.\n"
    "\n"
    "  -n, --frames N            steps to simulate (default 240)\n"
    "      --dt S                step length in seconds (default 1/60)\n"
    "      --solver gs|sgs|jacobi  XPBD Gauss-Seidel over colours (default), symmetric\n"
    "                            Gauss-Seidel (forward then back over the colours) or\n"
    "                            Jacobi\n"
    "      --substeps N          substeps per step (default 16)\n"
    "      --iterations N        solver iterations per substep (default 1)\n"
    "      --stretch-compliance A  m/N (default 0: inextensible)\n"
    "      --shear-compliance A    m/N (default 1e-6)\n"
    "      --bend-compliance A     1/(N m) (default 1e-2)\n"
    "      --omega W             Jacobi over-relaxation in (0, 2] (default 1.5)\n"
    "      --damping D           velocity decay rate in 1/s (default 0)\n"
    "      --friction MU         contact friction (default 0.3)\n"
    "      --ground Y | --no-ground   ground plane height in m (default: 0 for the\n"
    "                            default scene, a quarter of the asset's size below it)\n"
    "      --sphere X,Y,Z,R | --no-sphere   sphere collider (default scene: one)\n"
    "      --check-strain S      exit with status 3 if the RMS strain of any step exceeds\n"
    "                            S (e.g. 0.05), or a position stops being finite\n"
    "      --max-speed V         health check: a step leaving a particle non-finite or\n"
    "                            faster than V m/s fails and is rolled back (default 500)\n"
    "      --checkpoint FILE     save the body's state to FILE after the last step\n"
    "      --checkpoint-every N  and every N steps\n"
    "      --resume FILE         start from a checkpoint saved from the same asset and\n"
    "                            options; --frames more steps are taken\n"
    "      --hash                print a hash of the final state (positions, velocities)\n"
    "  -o, --out DIR             output folder (default ./sinew-out)\n"
    "      --every N             also write every N-th frame as frame_NNNNN.obj\n"
    "      --device NAME|INDEX   Vulkan device (default: SINEW_DEVICE, else the best)\n"
    "      --validation          enable Vulkan validation layers\n"
    "  -q, --quiet               only the summary\n"
    "  -h, --help                this text\n";

typedef struct options {
    const char *asset_path, *out_dir, *device, *checkpoint, *resume;
    unsigned frames, every, substeps, iterations, checkpoint_every;
    int solver, validation, quiet, hash;
    double dt, stretch, shear, bend, omega, damping, friction, ground, sphere[4], check_strain, max_speed;
    int ground_set, no_ground, sphere_set, no_sphere;
} options;

static int parse(int argc, char **argv, options *o)
{
    const char *t = "sinew-sim";
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
    o->max_speed = sinew_body_desc_default().max_speed;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1, used = 1;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            exit(0);
        } else if (!strcmp(a, "-n") || !strcmp(a, "--frames")) {
            ok = cli_uint(t, a, v, 10000000, &o->frames);
        } else if (!strcmp(a, "--dt")) {
            ok = cli_double(t, a, v, &o->dt) && (o->dt > 0 || cli_error(t, "%s must be > 0%s", a, ""));
        } else if (!strcmp(a, "--solver")) {
            if (v && !strcmp(v, "gs"))
                o->solver = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
            else if (v && !strcmp(v, "sgs"))
                o->solver = SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL;
            else if (v && !strcmp(v, "jacobi"))
                o->solver = SINEW_SOLVER_XPBD_JACOBI;
            else
                ok = cli_error(t, "--solver: \"%s\" is not gs, sgs or jacobi%s", v ? v : "", "");
        } else if (!strcmp(a, "--substeps")) {
            ok = cli_uint(t, a, v, 1000, &o->substeps);
        } else if (!strcmp(a, "--iterations")) {
            ok = cli_uint(t, a, v, 1000, &o->iterations);
        } else if (!strcmp(a, "--stretch-compliance")) {
            ok = cli_double(t, a, v, &o->stretch);
        } else if (!strcmp(a, "--shear-compliance")) {
            ok = cli_double(t, a, v, &o->shear);
        } else if (!strcmp(a, "--bend-compliance")) {
            ok = cli_double(t, a, v, &o->bend);
        } else if (!strcmp(a, "--omega")) {
            ok = cli_double(t, a, v, &o->omega);
        } else if (!strcmp(a, "--damping")) {
            ok = cli_double(t, a, v, &o->damping);
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
        } else if (!strcmp(a, "--no-sphere")) {
            o->no_sphere = 1;
            used = 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            ok = v != NULL || cli_error(t, "%s needs a folder%s", a, "");
            o->out_dir = v;
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
        } else if (!strcmp(a, "--every")) {
            ok = cli_uint(t, a, v, 10000000, &o->every);
        } else if (!strcmp(a, "--device")) {
            ok = v != NULL || cli_error(t, "%s needs a name or index%s", a, "");
            o->device = v;
        } else if (!strcmp(a, "--validation")) {
            o->validation = 1;
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
    return 1;
}

/* The default scene, built in memory by the same code sinew-prep uses. */
static sinew_result default_scene(sinew_asset **out)
{
    const uint32_t n = 64;
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o))
        return 2;

    sinew_asset *asset = NULL;
    sinew_result r = o.asset_path ? sinew_asset_load(o.asset_path, NULL, &asset) : default_scene(&asset);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: %s: %s\n", o.asset_path ? o.asset_path : "default scene",
                sinew_result_string(r));
        return 1;
    }
    sinew_asset_info ai = sinew_asset_get_info(asset);

    sinew_step_params p = sinew_step_params_default();
    p.dt = (float)o.dt;
    p.damping = (float)o.damping;
    p.friction = (float)o.friction;
    float extent = 0.0f;
    for (int k = 0; k < 3; k++)
        extent = ai.bounds_max[k] - ai.bounds_min[k] > extent ? ai.bounds_max[k] - ai.bounds_min[k] : extent;
    p.ground = !o.no_ground;
    p.ground_height = o.ground_set ? (float)o.ground : o.asset_path ? ai.bounds_min[1] - 0.25f * extent : 0.0f;
    if (o.sphere_set || (!o.asset_path && !o.no_sphere)) {
        double def[4] = {0.0, 0.45, -0.35, 0.3};
        const double *s = o.sphere_set ? o.sphere : def;
        p.sphere = 1;
        for (int k = 0; k < 3; k++)
            p.sphere_center[k] = (float)s[k];
        p.sphere_radius = (float)s[3];
    }
    if (o.no_sphere)
        p.sphere = 0;

    sinew_context_desc cd = sinew_context_desc_default();
    cd.device = o.device;
    cd.validation = o.validation;
    sinew_context *ctx = NULL;
    if ((r = sinew_context_create(&cd, &ctx)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: no Vulkan context: %s\n", sinew_result_string(r));
        sinew_asset_destroy(asset);
        return 1;
    }
    sinew_body_desc bd = sinew_body_desc_default();
    bd.solver = (sinew_solver)o.solver;
    bd.substeps = o.substeps;
    bd.iterations = o.iterations;
    bd.stretch_compliance = (float)o.stretch;
    bd.shear_compliance = (float)o.shear;
    bd.bend_compliance = (float)o.bend;
    bd.jacobi_omega = (float)o.omega;
    bd.max_speed = (float)o.max_speed;
    bd.name = o.asset_path ? o.asset_path : "default scene";
    sinew_body *body = NULL;
    int status = 1;
    float *xyz = malloc(3ull * ai.particle_count * sizeof *xyz);
    uint32_t tri_count = 0;
    const uint32_t *tris = sinew_asset_get_triangles(asset, &tri_count);
    if (!xyz || (r = sinew_body_create(ctx, asset, &bd, &body)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: cannot create the body: %s\n", sinew_result_string(xyz ? r : SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY));
        goto done;
    }
    if (o.checkpoint_every && !o.checkpoint) {
        fprintf(stderr, "sinew-sim: --checkpoint-every needs --checkpoint FILE\n");
        goto done;
    }
    if (o.resume && sinew_body_load_checkpoint_file(body, o.resume) != SINEW_RESULT_OK)
        goto done; /* the library said why */
    if (mkdir(o.out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "sinew-sim: cannot create %s: %s\n", o.out_dir, strerror(errno));
        goto done;
    }

    sinew_device_info di = sinew_context_get_device_info(ctx);
    if (!o.quiet)
        printf("sinew-sim: %s on %s\n  %u particles, %u triangles, %u distance + %u bending constraints in %u colours\n",
               o.asset_path ? o.asset_path : "default scene", di.name, ai.particle_count, ai.triangle_count,
               ai.distance_count, ai.bend_count, ai.colour_count);
    if (!o.quiet && o.resume)
        printf("  resumed at step %llu from %s\n", (unsigned long long)sinew_body_get_stats(body).step_index,
               o.resume);
    double gpu_ms = 0.0, worst_strain = 0.0, worst_rms = 0.0, t0 = now_s();
    int tty = isatty(fileno(stdout));
    char path[4096];
    for (unsigned f = 1; f <= o.frames; f++) {
        if ((r = sinew_body_step(body, &p)) != SINEW_RESULT_OK) {
            fprintf(stderr, "sinew-sim: step %u failed: %s\n", f, sinew_result_string(r));
            goto done;
        }
        sinew_step_stats st = sinew_body_get_stats(body);
        gpu_ms += st.ms_total > 0 ? st.ms_total : 0.0;
        worst_strain = st.max_strain > worst_strain ? st.max_strain : worst_strain;
        /* NaN compares false: a non-finite strain counts as the worst. */
        worst_rms = !(st.rms_strain <= worst_rms) ? st.rms_strain : worst_rms;
        if (o.every && f % o.every == 0) {
            snprintf(path, sizeof path, "%s/frame_%05u.obj", o.out_dir, f);
            if (sinew_body_read_positions(body, xyz, ai.particle_count) != SINEW_RESULT_OK ||
                !write_obj(path, xyz, ai.particle_count, tris, tri_count))
                goto done;
        }
        if (o.checkpoint && (f == o.frames || (o.checkpoint_every && f % o.checkpoint_every == 0)) &&
            sinew_body_save_checkpoint_file(body, o.checkpoint) != SINEW_RESULT_OK)
            goto done;
        if (!o.quiet && (f % (o.frames / 10 ? o.frames / 10 : 1) == 0 || f == o.frames)) {
            int bar = (int)(30.0 * f / o.frames);
            printf("%s  [%.*s%*s] %3u%%  step %u  max strain %.3f%%%s", tty ? "\r" : "", bar,
                   "##############################", 30 - bar, "", 100 * f / o.frames, f, 100.0 * st.max_strain,
                   tty ? "" : "\n");
            fflush(stdout);
        }
    }
    if (!o.quiet && tty)
        printf("\n");
    double wall = now_s() - t0;
    snprintf(path, sizeof path, "%s/final.obj", o.out_dir);
    if (sinew_body_read_positions(body, xyz, ai.particle_count) != SINEW_RESULT_OK ||
        !write_obj(path, xyz, ai.particle_count, tris, tri_count))
        goto done;
    sinew_step_stats st = sinew_body_get_stats(body);
    printf("summary\n");
    printf("  device          %s (%s)\n", di.name, di.driver);
    printf("  solver          XPBD %s, %u substeps x %u iterations, %u dispatches per step\n",
           o.solver == SINEW_SOLVER_XPBD_JACOBI                     ? "Jacobi"
           : o.solver == SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL ? "symmetric Gauss-Seidel"
                                                                  : "Gauss-Seidel",
           o.substeps, o.iterations, st.dispatches);
    printf("  steps           %u of %.4g s\n", o.frames, o.dt);
    printf("  time per step   %.3f ms GPU, %.3f ms wall\n", o.frames ? gpu_ms / o.frames : 0.0,
           o.frames ? 1e3 * wall / o.frames : 0.0);
    printf("  max stretch     %.3f%% last step, %.3f%% worst step (RMS %.3f%%)\n", 100.0 * st.max_strain,
           100.0 * worst_strain, 100.0 * st.rms_strain);
    printf("  device memory   %.2f MiB body, %.2f MiB context\n", st.device_memory / 1048576.0,
           sinew_context_get_device_memory(ctx) / 1048576.0);
    printf("  final mesh      %s\n", path);
    if (o.checkpoint)
        printf("  checkpoint      %s (step %llu)\n", o.checkpoint, (unsigned long long)st.step_index);
    if (o.hash) {
        uint64_t h;
        if (sinew_body_state_hash(body, &h) != SINEW_RESULT_OK)
            goto done;
        printf("  state hash      %016llx\n", (unsigned long long)h);
    }
    status = 0;
    if (o.check_strain > 0 && !(worst_rms <= o.check_strain)) {
        printf("  check           FAILED: RMS strain reached %.3g, above %.3g\n", worst_rms, o.check_strain);
        status = 3;
    } else if (o.check_strain > 0) {
        printf("  check           passed: RMS strain at most %.3g (limit %.3g)\n", worst_rms, o.check_strain);
    }
done:
    fflush(stdout); /* before any exit-time report a sanitizer may end the process with */
    free(xyz);
    sinew_body_destroy(body);
    sinew_context_destroy(ctx);
    sinew_asset_destroy(asset);
    return status;
}
