/* sinew-sim: runs a scene and writes its meshes. With no asset it runs the
 * embedded default scene: a 64 x 64 cloth pinned at two corners, falling under
 * gravity past a sphere onto the ground. --scene picks one of the soft-body
 * scenes of the Generalized PBD paper instead (soft_scenes.h).
 *
 * main reads the options, builds the scene (asset, context, body, outputs),
 * runs the steps and reports: each a function below. */
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
#include "prep/cloth.h"
#include "prep/mesh.h"
#include "scene.h"
#include "sim.h"
#include "soft_scenes.h"
#ifdef SINEW_HAVE_PNG
#include "render.h"
#endif

/* ------------------------------------------------------------------ helpers */

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

/* The render mesh (docs/render-mesh.md) as OBJ: 8 floats per render vertex
 * (position, normal, uv), faces v/vt/vn over the render indices. */
static int write_render_obj(const char *path, const float *v, uint32_t n, const uint32_t *idx, uint32_t count)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", path, strerror(errno));
        return 0;
    }
    fprintf(f, "# sinew-sim: the asset's render mesh\n");
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "v %.6g %.6g %.6g\n", v[8 * i], v[8 * i + 1], v[8 * i + 2]);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "vt %.9g %.9g\n", v[8 * i + 6], v[8 * i + 7]);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "vn %.6g %.6g %.6g\n", v[8 * i + 3], v[8 * i + 4], v[8 * i + 5]);
    for (uint32_t i = 0; i + 2 < count; i += 3)
        fprintf(f, "f %u/%u/%u %u/%u/%u %u/%u/%u\n", idx[i] + 1, idx[i] + 1, idx[i] + 1, idx[i + 1] + 1,
                idx[i + 1] + 1, idx[i + 1] + 1, idx[i + 2] + 1, idx[i + 2] + 1, idx[i + 2] + 1);
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

/* The stretch the summary reports: elongation l / L - 1 of the distance
 * constraints at positions xyz (L: the rest pose's length; compression does
 * not count, cloth buckles). Edges shorter than a tenth of the median rest
 * length are left out of the largest and reported apart: a scaled CAD mesh
 * has micrometre edges whose relative stretch says nothing of the cloth. The
 * length-weighted mean is the total elongation over the total rest length. */
typedef struct stretch_report {
    double median;             /* m, of the rest lengths */
    double most, weighted;     /* over the edges of at least a tenth of the median */
    uint32_t worst, counted;   /* the constraint of the largest; how many count */
    double short_most;         /* over the shorter ones */
    uint32_t short_worst, short_count;
} stretch_report;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stretch_report measure_stretch(const float *xyz, const uint32_t *ends, const double *rest_length, uint32_t count)
{
    stretch_report r = {0};
    r.worst = r.short_worst = UINT32_MAX;
    double *sorted = malloc(sizeof *sorted * ((size_t)count + 1));
    if (!sorted || count == 0) {
        free(sorted);
        return r;
    }
    memcpy(sorted, rest_length, sizeof *sorted * count);
    qsort(sorted, count, sizeof *sorted, compare_doubles);
    r.median = sorted[count / 2];
    free(sorted);
    double elongation = 0.0, length = 0.0;
    for (uint32_t c = 0; c < count; c++) {
        const float *a = &xyz[3 * ends[2 * c]], *b = &xyz[3 * ends[2 * c + 1]];
        double l = sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2)), L = rest_length[c];
        double e = L > 0.0 ? l / L - 1.0 : 0.0;
        if (L < 0.1 * r.median) {
            r.short_count++;
            if (e > r.short_most || r.short_worst == UINT32_MAX) {
                r.short_most = e;
                r.short_worst = c;
            }
            continue;
        }
        r.counted++;
        elongation += l > L ? l - L : 0.0;
        length += L;
        if (e > r.most || r.worst == UINT32_MAX) {
            r.most = e;
            r.worst = c;
        }
    }
    r.weighted = length > 0.0 ? elongation / length : 0.0;
    r.most = r.most > 0.0 ? r.most : 0.0;
    r.short_most = r.short_most > 0.0 ? r.short_most : 0.0;
    return r;
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

/* A --collider: the mesh read and scaled as the options say, and its
 * distance field made on the context. 0, having said why, on failure. */
static int load_collider(sinew_context *ctx, const sim_mesh *o, int quiet, sinew_collider **out, float **xyz,
                         uint32_t *vertex_count, uint32_t **tris, uint32_t *tri_count)
{
    sinew_mesh m;
    sinew_logger lg = sinew_logger_default();
    sinew_result r = sinew_mesh_read(o->path, &lg, &m);
    if (r != SINEW_RESULT_OK)
        return 0; /* the reader named the file and line */
    r = sinew_mesh_triangle_arrays(&m, xyz, tris, tri_count);
    *vertex_count = m.vertex_count;
    sinew_mesh_free(&m);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: %s: %s\n", o->path, sinew_result_string(r));
        return 0;
    }
    if (o->size > 0 && *vertex_count) {
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
        float scale = longest > 0.0f ? (float)o->size / longest : 1.0f;
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
    cd.resolution = o->resolution;
    cd.name = o->path;
    if ((r = sinew_collider_create(ctx, &cd, out)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: no collider from %s: %s\n", o->path, sinew_result_string(r));
        return 0; /* the library said why */
    }
    if (!quiet) {
        sinew_collider_info ci = sinew_collider_get_info(*out);
        printf("  collider %s: %u triangles, a %u x %u x %u distance field (cell %.3g m) built in %.0f ms\n",
               o->path, *tri_count, ci.dims[0], ci.dims[1], ci.dims[2], ci.cell_size, ci.build_ms);
    }
    return 1;
}

/* A block has recovered its rest shape: nothing inverted, Green strain under 1 %. */
static int shape_recovered(const soft_shape *s) { return s->finite && s->inverted == 0 && s->max_green < 0.01; }


/* Every output, before anything runs: the folder exists (made with any
 * folders above it), no output is an input or another output, each can be
 * written, and --video has ffmpeg. 0, having said why. */
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
    struct { const char *what, *path; } in[2 + SIM_MAX_MESHES] = {{"the asset", o->asset_path},
                                                                  {"--resume", o->resume}};
    for (unsigned m = 0; m < o->mesh_count; m++)
        in[2 + m].what = "--collider", in[2 + m].path = o->meshes[m].path;
    const struct { const char *what, *path; } out[] = {
        {"--checkpoint", o->checkpoint}, {"--json", o->json}, {"--log", o->log}, {"--video", o->video},
        {"the final mesh", mesh}};
    const int ins = 2 + (int)o->mesh_count, outs = sizeof out / sizeof out[0];
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
        if (!cli_writable(out[k].path)) {
            fprintf(stderr, "%s: cannot write %s %s: %s\n", t, out[k].what, out[k].path, strerror(errno));
            return 0;
        }
    }
    if (o->video && system("command -v ffmpeg > /dev/null 2>&1") != 0) {
        fprintf(stderr, "%s: --video needs ffmpeg on PATH (Debian: ffmpeg); none found\n", t);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ the scene */

/* What a run works on: the asset and its body on a context, the colliders,
 * the host copies the measures need, and the outputs. */
typedef struct sim {
    const char *name; /* in messages: the asset's path or the scene's name */
    sinew_asset *asset;
    sinew_asset_info ai;
    int soft;                  /* tetrahedra: volume measures rather than strain */
    uint32_t *pins, pin_count; /* bars: the end faces, moved every step */
    sinew_material *materials; /* an asset's materials as the options replace them; NULL: its own */
    sinew_context *ctx;
    sinew_device_info di;
    /* The collider list: its shapes as the next step starts them, and its
     * mesh colliders (each made once; the mesh shapes name them by index)
     * with their triangles for the pictures. */
    sinew_shape shapes[SIM_MAX_SHAPES];
    sinew_collider *meshes[SIM_MAX_MESHES];
    float *mesh_xyz[SIM_MAX_MESHES];
    uint32_t *mesh_tris[SIM_MAX_MESHES], mesh_tri_count[SIM_MAX_MESHES], mesh_vertex_count[SIM_MAX_MESHES];
    sinew_body *body;
    sinew_step_params p;
#ifdef SINEW_HAVE_PNG
    render *renderer;
    render_camera camera;
    int follow; /* the camera follows the frame (the cape scene without --camera) */
#endif
    FILE *log;
    soft_measure measure;
    float *xyz, *rest, *pin_xyz;     /* positions read back, the rest shape, the pins' targets */
    uint32_t *attached, attached_count; /* --attach-edge: the particles on the frame */
    sinew_frame frame, frame0;       /* its pose now and at creation */
    const uint32_t *tris;            /* the surface drawn and written */
    uint32_t tri_count, *shown_tris; /* after a cut: the triangles that do not cross it */
    uint32_t *ends;                  /* cloth logs: each distance constraint's ends */
    double *rest_length;             /* and its rest-pose length */
    /* --with: the second body, its positions read back and its triangles */
    sinew_asset *with_asset;
    sinew_body *with_body;
    float *with_xyz;
    const uint32_t *with_tris;
    uint32_t with_n, with_tri_count;
    /* The asset's render mesh (0 vertices: none): what the OBJ files hold */
    uint32_t render_count, render_index_count, *render_indices;
    float *render_out;
} sim;

/* The asset (a file, the default cloth or a soft-body scene), the materials
 * the options give it, and the step's parameters. */
static int load_scene(options *o, sim *s)
{
    s->name = o->asset_path             ? o->asset_path
              : o->cape                 ? "cape scene"
              : o->flag                 ? "flag scene"
              : o->scene == SCENE_CLOTH ? "default scene"
                                        : soft_scenes[o->scene].name;
    sinew_logger quiet_log = sinew_logger_default();
    quiet_log.level = SINEW_LOG_WARNING;
    sinew_soft_report rep = {0};
    sinew_material_model model =
        o->material == MATERIAL_UNSET ? SINEW_MATERIAL_NEO_HOOKEAN : (sinew_material_model)o->material;
    sinew_result r = o->asset_path ? sinew_asset_load(o->asset_path, NULL, &s->asset)
                     : o->scene == SCENE_CLOTH
                         ? (o->flag   ? scene_flag_cloth(o->cells * 3 / 2, o->cells, &s->asset)
                            : o->cape ? scene_cape_cloth(o->cells * 5 / 4, o->cells, &s->asset)
                                      : scene_default_cloth(o->cells, &s->asset))
                         : soft_scene_build(o->scene, o->cells, o->size, model, o->youngs, o->poisson, &quiet_log,
                                            &s->asset, &s->pins, &s->pin_count, &rep);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: %s: %s\n", s->name, sinew_result_string(r));
        return 0;
    }
    const sinew_asset_info ai = s->ai = sinew_asset_get_info(s->asset);
    s->soft = ai.tet_count > 0;
    if (!o->solver_set)
        o->solver = scene_solver(&ai, o->solver);

    sinew_step_params *p = &s->p;
    *p = sinew_step_params_default();
    p->dt = (float)o->dt;
    p->damping = (float)o->damping;
    p->friction = (float)o->friction;
    p->gravity[1] = (float)-o->gravity;
    float extent = 0.0f;
    for (int k = 0; k < 3; k++)
        extent = ai.bounds_max[k] - ai.bounds_min[k] > extent ? ai.bounds_max[k] - ai.bounds_min[k] : extent;
    p->ground = !o->no_ground;
    /* Without a ground its height is never computed (nor checked). */
    p->ground_height = o->no_ground || !o->asset_path ? 0.0f : ai.bounds_min[1] - 0.25f * extent;
    if (o->ground_set)
        p->ground_height = (float)o->ground;
    if (p->ground && !isfinite(p->ground_height)) {
        fprintf(stderr, "sinew-sim: %s spans %g m from y = %g m: a ground %s at y = %g m is not a finite float; "
                "give --ground Y or --no-ground\n", s->name, (double)extent, (double)ai.bounds_min[1],
                o->ground_set ? "given" : "a quarter of its size below it", (double)p->ground_height);
        return 0;
    }
    for (int k = 0; k < 3; k++) {
        p->ground_normal[k] = (float)o->ground_normal[k];
        p->wind[k] = (float)o->wind[k];
    }
    p->air_density = (float)o->air_density;
    /* Every collider of the options is a shape of the list; the default
     * scene's own sphere is the step's sphere, unless a --sphere replaces it. */
    int spheres = 0;
    for (unsigned k = 0; k < o->shape_count; k++) {
        s->shapes[k] = o->shapes[k];
        spheres += o->shapes[k].kind == SINEW_SHAPE_SPHERE;
    }
    p->shapes = o->shape_count ? s->shapes : NULL;
    p->shape_count = o->shape_count;
    if (!spheres && !o->asset_path && o->scene == SCENE_CLOTH && !o->no_sphere && !o->flag && !o->cape) {
        p->sphere = 1;
        for (int k = 0; k < 3; k++)
            p->sphere_center[k] = (float)scene_default_sphere[k];
        p->sphere_radius = (float)scene_default_sphere[3];
    }

    /* Material options given with an asset file replace each of its materials. */
    if (o->asset_path && ai.tet_count && (o->material != MATERIAL_UNSET || o->youngs_set || o->poisson_set)) {
        s->materials = calloc(ai.material_count + 1, sizeof *s->materials);
        if (!s->materials) {
            fprintf(stderr, "sinew-sim: out of host memory\n");
            return 0;
        }
        for (uint32_t m = 0; m < ai.material_count; m++) {
            sinew_material old;
            if (sinew_asset_get_material(s->asset, m, &old) != SINEW_RESULT_OK)
                continue;
            s->materials[m] = old;
            if (old.model == SINEW_MATERIAL_NEO_HOOKEAN || old.model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN) {
                s->materials[m].model = o->material != MATERIAL_UNSET ? (uint32_t)o->material : old.model;
                s->materials[m].youngs_modulus = o->youngs_set ? (float)o->youngs : old.youngs_modulus;
                s->materials[m].poisson_ratio = o->poisson_set ? (float)o->poisson : old.poisson_ratio;
            }
        }
    }
    return 1;
}

static int cut(const options *o, sim *s);

/* The step a checkpoint file was saved at (docs/checkpoint-format.md: the
 * u64 at byte 32 of its 64-byte header), before the body reads the rest. */
static int checkpoint_step(const char *path, uint64_t *step)
{
    uint8_t h[64];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(h, 1, sizeof h, f) : 0;
    if (f)
        fclose(f);
    if (!f || got != sizeof h || memcmp(h, "SNWC", 4) != 0) {
        fprintf(stderr, "sinew-sim: %s: %s\n", path, !f ? strerror(errno) : "not a checkpoint (no SNWC header)");
        return 0;
    }
    *step = 0;
    for (int k = 7; k >= 0; k--)
        *step = *step << 8 | h[32 + k];
    return 1;
}

/* --with: the second body, as the first but with its own asset and a
 * solver that fits it, each in the other's contact list. */
static int create_with(const options *o, sim *s, const sinew_body_desc *first)
{
    sinew_result r = sinew_asset_load(o->with, NULL, &s->with_asset);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: --with %s: %s\n", o->with, sinew_result_string(r));
        return 0;
    }
    const sinew_asset_info wi = sinew_asset_get_info(s->with_asset);
    sinew_body_desc d = *first;
    d.solver = wi.tet_count ? SINEW_SOLVER_GPBD_GAUSS_SEIDEL : SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    d.materials = NULL;
    d.material_count = 0;
    d.sweep_layout = SINEW_SWEEP_LAYOUT_DEFAULT;
    d.name = o->with;
    s->with_n = wi.particle_count;
    s->with_tris = sinew_asset_get_triangles(s->with_asset, &s->with_tri_count);
    s->with_xyz = malloc(3ull * wi.particle_count * sizeof *s->with_xyz + 1);
    if (!s->with_xyz) {
        fprintf(stderr, "sinew-sim: out of host memory\n");
        return 0;
    }
    if ((r = sinew_body_create(s->ctx, s->with_asset, &d, &s->with_body)) != SINEW_RESULT_OK ||
        (r = sinew_body_set_contact_bodies(s->body, &s->with_body, 1)) != SINEW_RESULT_OK ||
        (r = sinew_body_set_contact_bodies(s->with_body, &s->body, 1)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: --with %s: %s\n", o->with, sinew_result_string(r));
        return 0;
    }
    return 1;
}

/* The context, the mesh collider and the body, and the host arrays the
 * measures read positions into. */
static int create_body(const options *o, sim *s)
{
    const sinew_asset_info ai = s->ai;
    sinew_context_desc cd = sinew_context_desc_default();
    cd.device = o->device;
    cd.validation = o->validation;
    if (o->portable)
        cd.limits = SINEW_LIMITS_PORTABLE;
    sinew_result r = sinew_context_create(&cd, &s->ctx);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: no Vulkan context: %s\n", sinew_result_string(r));
        return 0;
    }
    for (unsigned m = 0; m < o->mesh_count; m++)
        if (!load_collider(s->ctx, &o->meshes[m], o->quiet, &s->meshes[m], &s->mesh_xyz[m], &s->mesh_vertex_count[m],
                           &s->mesh_tris[m], &s->mesh_tri_count[m]))
            return 0;
    sinew_body_desc bd = sinew_body_desc_default();
    bd.max_shapes = o->shape_count;
    bd.meshes = o->mesh_count ? s->meshes : NULL;
    bd.mesh_count = o->mesh_count;
    bd.drag = (float)o->drag;
    bd.lift = (float)o->lift;
    bd.solver = o->solver;
    bd.substeps = o->substeps;
    bd.iterations = o->iterations;
    bd.stretch_compliance = (float)o->stretch;
    bd.shear_compliance = (float)o->shear;
    bd.bend_compliance = (float)o->bend;
    bd.jacobi_omega = (float)o->omega;
    bd.max_speed = (float)o->max_speed;
    bd.max_inverted = o->max_inverted;
    bd.max_volume_error = (float)o->max_volume_error;
    bd.newton_iterations = o->newton;
    bd.newton_tolerance = (float)o->newton_tol;
    bd.mgpbd_cg_iterations = o->cg_iterations;
    bd.mgpbd_setup_interval = o->setup_interval;
    bd.level_iterations = o->level_iterations;
    bd.sweep_order = (sinew_sweep_order)o->sweep;
    bd.sweep_layout = (sinew_sweep_layout)o->sweep_layout;
    bd.chebyshev_rho = (float)o->rho;
    bd.implicit.bdf2 = o->bdf2;
    bd.chebyshev_delay = o->delay;
    bd.self_collision = o->self_collision;
    bd.self_thickness = (float)o->thickness;
    bd.self_friction = (float)o->self_friction;
    bd.self_capacity = o->self_capacity;
    bd.name = s->name;
    if (s->materials) {
        bd.materials = s->materials;
        bd.material_count = ai.material_count;
    }
    s->xyz = malloc(3ull * ai.particle_count * sizeof *s->xyz);
    s->rest = malloc(3ull * ai.particle_count * sizeof *s->rest);
    s->pin_xyz = malloc(3ull * s->pin_count * sizeof *s->pin_xyz + 1);
    s->tris = sinew_asset_get_triangles(s->asset, &s->tri_count);
    s->ends = malloc(sizeof *s->ends * 2 * ((size_t)ai.distance_count + 1));
    s->rest_length = malloc(sizeof *s->rest_length * ((size_t)ai.distance_count + 1));
    if (!s->xyz || !s->rest || !s->pin_xyz || !s->ends || !s->rest_length) {
        fprintf(stderr, "sinew-sim: out of host memory\n");
        return 0;
    }
    sinew_asset_get_positions(s->asset, s->rest);
    sinew_asset_get_distances(s->asset, s->ends);
    for (uint32_t c = 0; c < ai.distance_count; c++) {
        const float *a = &s->rest[3 * s->ends[2 * c]], *b = &s->rest[3 * s->ends[2 * c + 1]];
        s->rest_length[c] = sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
    }
    sinew_attachment attachment = {0};
    if (o->attach_edge >= 0) { /* the particles at that end of the asset, on a frame at their centre */
        const int axis = o->attach_edge / 2, top = o->attach_edge % 2;
        const float bound = top ? ai.bounds_max[axis] : ai.bounds_min[axis];
        float extent = 0.0f;
        for (int k = 0; k < 3; k++)
            extent = fmaxf(extent, ai.bounds_max[k] - ai.bounds_min[k]);
        s->attached = malloc(sizeof *s->attached * ((size_t)ai.particle_count + 1));
        if (!s->attached) {
            fprintf(stderr, "sinew-sim: out of host memory\n");
            return 0;
        }
        double centre[3] = {0, 0, 0};
        for (uint32_t i = 0; i < ai.particle_count; i++)
            if (fabsf(s->rest[3 * i + axis] - bound) <= 1e-3f * extent) {
                s->attached[s->attached_count++] = i;
                for (int k = 0; k < 3; k++)
                    centre[k] += s->rest[3 * i + k];
            }
        for (int k = 0; k < 3; k++)
            s->frame0.position[k] = (float)(centre[k] / s->attached_count);
        s->frame0.rotation[3] = 1.0f;
        s->frame = s->frame0;
        attachment = (sinew_attachment){s->attached, s->attached_count, 0, (float)o->attach_compliance};
        bd.attachments = &attachment;
        bd.attachment_count = 1;
        bd.frames = &s->frame0;
        bd.frame_count = 1;
    }
    bd.tethers = o->tethers;
    bd.tether_scale = (float)o->tether_scale;
    if ((r = sinew_body_create(s->ctx, s->asset, &bd, &s->body)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: cannot create the body: %s\n", sinew_result_string(r));
        return 0;
    }
    if (o->with && !create_with(o, s, &bd))
        return 0;
    if (o->checkpoint_every && !o->checkpoint) {
        fprintf(stderr, "sinew-sim: --checkpoint-every needs --checkpoint FILE\n");
        return 0;
    }
    /* Rest shapes from the positions at creation, before any start pose. */
    if (s->soft) {
        if (sinew_body_read_positions(s->body, s->rest, ai.particle_count) != SINEW_RESULT_OK)
            return 0;
        if (!soft_measure_init(&s->measure, s->asset, s->rest)) {
            fprintf(stderr, "sinew-sim: out of host memory (or a degenerate rest tetrahedron)\n");
            return 0;
        }
    }
    if (o->scene == SCENE_BLOCK_FLAT || o->scene == SCENE_BLOCK_RANDOM) {
        soft_block_start(o->scene, s->rest, ai.particle_count, o->seed, s->xyz);
        if (sinew_body_write_positions(s->body, s->xyz, ai.particle_count) != SINEW_RESULT_OK)
            return 0;
    }
    /* A checkpoint saved after the cut holds the cut body's constraints: the
     * cut comes first. */
    uint64_t saved_step = 0;
    if (o->resume && o->cut_set && !checkpoint_step(o->resume, &saved_step))
        return 0;
    if (o->resume && o->cut_set && o->cut_frame <= saved_step && !cut(o, s))
        return 0;
    if (o->resume && sinew_body_load_checkpoint_file(s->body, o->resume) != SINEW_RESULT_OK)
        return 0; /* the library said why */
    return 1;
}

/* The renderer of the pictures and the per-step log. */
static int open_outputs(const options *o, sim *s)
{
    const int pictures = !o->no_png && (o->png || o->video || (!o->asset_path && o->scene == SCENE_CLOTH));
#ifdef SINEW_HAVE_PNG
    if (pictures) {
        float lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = s->ai.bounds_min[k];
            hi[k] = s->ai.bounds_max[k];
        }
        if (s->with_asset) {
            const sinew_asset_info wi = sinew_asset_get_info(s->with_asset);
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(lo[k], wi.bounds_min[k]);
                hi[k] = fmaxf(hi[k], wi.bounds_max[k]);
            }
        }
        if (s->p.ground)
            lo[1] = lo[1] < s->p.ground_height ? lo[1] : s->p.ground_height;
        s->camera = render_camera_framing(lo, hi);
        if (!o->asset_path && o->scene == SCENE_CLOTH)
            for (int k = 0; k < 3; k++) {
                s->camera.eye[k] = o->flag ? scene_flag_eye[k] : scene_default_eye[k];
                s->camera.target[k] = o->flag ? scene_flag_target[k] : scene_default_target[k];
            }
        s->follow = o->cape && !o->camera_set;
        if (o->camera_set)
            for (int k = 0; k < 3; k++) {
                s->camera.eye[k] = (float)o->camera[k];
                s->camera.target[k] = (float)o->camera[3 + k];
            }
        s->renderer = render_create(s->ctx, s->body, s->tris, s->tri_count, o->picture[0], o->picture[1]);
        if (!s->renderer && (o->png || o->video))
            return 0; /* it said why */
        for (unsigned m = 0; s->renderer && m < o->mesh_count; m++)
            if (!render_add_mesh(s->renderer, s->mesh_xyz[m], s->mesh_vertex_count[m], s->mesh_tris[m],
                                 s->mesh_tri_count[m]))
                return 0;
    }
#else
    if (pictures && (o->png || o->video)) {
        fprintf(stderr, "sinew-sim: built without libpng (Debian: libpng-dev): no pictures\n");
        return 0;
    }
#endif
    if (o->log && !(s->log = fopen(o->log, "w"))) {
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", o->log, strerror(errno));
        return 0;
    }
    if (s->log)
        fprintf(s->log, s->soft ? "step,wall_ms,gpu_ms,max_volume_error,rms_volume_error,total_volume_error,"
                                  "inverted_tets,max_green_strain,max_speed,newton_mean,residual\n"
                                : "step,wall_ms,gpu_ms,max_strain,rms_strain,max_speed,max_stretch,mean_stretch,"
                                  "residual\n");
    return 1;
}

/* The asset's render mesh, when it has one: the OBJ files are written from it. */
static int load_render_mesh(sim *s)
{
    sinew_render_info ri = sinew_asset_get_render_info(s->asset);
    if (!ri.vertex_count)
        return 1;
    s->render_indices = malloc(sizeof *s->render_indices * ri.index_count);
    s->render_out = malloc(sizeof *s->render_out * 8 * (size_t)ri.vertex_count);
    if (!s->render_indices || !s->render_out) {
        fprintf(stderr, "sinew-sim: out of host memory\n");
        return 0;
    }
    sinew_asset_get_render_indices(s->asset, s->render_indices);
    s->render_count = ri.vertex_count;
    s->render_index_count = ri.index_count;
    return 1;
}

/* The body as OBJ: its render mesh where it has one, else its particles and
 * the triangles shown. */
static int write_body_obj(sim *s, const char *path)
{
    if (s->render_count)
        return sinew_body_read_render_vertices(s->body, s->render_out, s->render_count) == SINEW_RESULT_OK &&
               write_render_obj(path, s->render_out, s->render_count, s->render_indices, s->render_index_count);
    return sinew_body_read_positions(s->body, s->xyz, s->ai.particle_count) == SINEW_RESULT_OK &&
           write_obj(path, s->xyz, s->ai.particle_count, s->tris, s->tri_count);
}

static int build(options *o, sim *s)
{
    return load_scene(o, s) && create_body(o, s) && load_render_mesh(s) && open_outputs(o, s);
}

static int sim_free(const options *o, sim *s)
{
    int ok = 1;
#ifdef SINEW_HAVE_PNG
    render_destroy(s->renderer);
#endif
    if (s->log && fclose(s->log) != 0) {
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", o->log, strerror(errno));
        ok = 0;
    }
    soft_measure_free(&s->measure);
    free(s->xyz);
    free(s->ends);
    free(s->rest_length);
    free(s->rest);
    free(s->pin_xyz);
    free(s->attached);
    free(s->pins);
    free(s->shown_tris);
    free(s->materials);
    for (unsigned m = 0; m < SIM_MAX_MESHES; m++) {
        free(s->mesh_xyz[m]);
        free(s->mesh_tris[m]);
    }
    free(s->with_xyz);
    free(s->render_indices);
    free(s->render_out);
    sinew_body_destroy(s->with_body);
    sinew_asset_destroy(s->with_asset);
    sinew_body_destroy(s->body);
    for (unsigned m = 0; m < SIM_MAX_MESHES; m++)
        sinew_collider_destroy(s->meshes[m]);
    sinew_context_destroy(s->ctx);
    sinew_asset_destroy(s->asset);
    return ok;
}

/* ------------------------------------------------------------------ the run */

#ifdef SINEW_HAVE_PNG
/* A picture of the step: with --with, the second body is drawn as the step's
 * mesh collider would be (sinew-sim's colliders are all in the list), where
 * it is and in that colour. */
static int picture(sim *s, const char *path)
{
    sinew_step_params p = s->p;
    if (s->follow) /* the cape scene's camera, placed in the frame as it is now */
        for (int k = 0; k < 2; k++) {
            float turned[3];
            sim_rotate(s->frame.rotation, k ? scene_cape_target : scene_cape_eye, turned);
            for (int c = 0; c < 3; c++)
                (k ? s->camera.target : s->camera.eye)[c] = s->frame.position[c] + turned[c];
        }
    if (s->with_body) {
        float *xyz = malloc(sizeof *xyz * 3 * ((size_t)s->with_n + 1));
        int ok = xyz && sinew_body_read_positions(s->with_body, xyz, s->with_n) == SINEW_RESULT_OK &&
                 render_set_collider(s->renderer, xyz, s->with_n, s->with_tris, s->with_tri_count);
        free(xyz);
        if (!ok)
            return 0;
        p.collider = 1;
        memset(p.collider_position, 0, sizeof p.collider_position);
        const float unturned[4] = {0, 0, 0, 1};
        memcpy(p.collider_rotation, unturned, sizeof unturned);
    }
    return render_frame(s->renderer, &p, &s->camera, path);
}
#endif

/* What the steps measured, for the summary. */
typedef struct tally {
    soft_shape start, last, worst;
    long worst_step, worst_inverted_step, recovered_step;
    uint32_t most_inverted;
    unsigned first;       /* steps taken before this run: a resumed checkpoint's */
    unsigned gpu_steps, steps_done, unstable_step;
    double gpu_ms, step_wall, worst_strain, worst_rms, fastest, wall;
    double newton_sum, linear_ms, linear_worst;
    double residual, worst_residual; /* the solver's residual: last step, largest (negative: not measured) */
    uint64_t linear_sum;
    uint32_t linear_unconverged;
    uint64_t self_candidates, self_contacts, self_dropped; /* self-collision, summed over the steps */
    uint32_t health_inverted;     /* the health check's most inverted tetrahedra in a step */
    double health_volume_error;   /* and its largest |V/V0 - 1| */
    char mesh[4096], picture[4096]; /* the final mesh and picture written */
    sinew_intersect_report crossings; /* --intersections, after the last step */
    char with_mesh[4096];             /* --with: the second body's final mesh */
    /* --check-outside: particles deeper than its D inside a collider of the
     * list after the last step, and the least signed distance (m) of any
     * particle from any of them, its particle and shape */
    uint32_t inside, nearest_particle, nearest_shape;
    float nearest;
    uint64_t between;                 /* and with --intersections, its triangles crossing the first's */
    /* --flag, after the last step: the middle of its fly end (the rest
     * pose's edge opposite the pole) from the middle of its hoist, along the
     * horizontal wind (m; NaN: no horizontal wind) and downwards */
    double fly_downwind, fly_drop;
} tally;

/* Pairs of a triangle of the first body and one of the second that
 * intersect: those of the two meshes as one, less those within each. */
static int crossings_between(const sim *s, uint32_t n, uint64_t *out)
{
    const uint32_t nw = s->with_n, t1 = s->tri_count, t2 = s->with_tri_count;
    float *xyz = malloc(sizeof *xyz * 3 * ((size_t)n + nw));
    uint32_t *tris = malloc(sizeof *tris * 3 * ((size_t)t1 + t2 + 1));
    sinew_logger lg = sinew_logger_default();
    lg.level = SINEW_LOG_WARNING;
    sinew_intersect_report all, first, second;
    int ok = xyz && tris;
    if (ok) {
        memcpy(xyz, s->xyz, sizeof *xyz * 3 * n);
        memcpy(xyz + 3 * (size_t)n, s->with_xyz, sizeof *xyz * 3 * nw);
        memcpy(tris, s->tris, sizeof *tris * 3 * t1);
        for (uint32_t k = 0; k < 3 * t2; k++)
            tris[3 * t1 + k] = s->with_tris[k] + n;
        ok = sinew_count_intersections(xyz, n + nw, tris, t1 + t2, &lg, &all) == SINEW_RESULT_OK &&
             sinew_count_intersections(xyz, n, tris, t1, &lg, &first) == SINEW_RESULT_OK &&
             sinew_count_intersections(xyz, n + nw, tris + 3 * (size_t)t1, t2, &lg, &second) == SINEW_RESULT_OK;
    }
    if (!xyz || !tris)
        fprintf(stderr, "sinew-sim: out of host memory\n");
    if (ok)
        *out = all.pairs - first.pairs - second.pairs;
    free(xyz);
    free(tris);
    return ok;
}

/* Element updates per step, to turn the step's Newton iterations into a mean. */
static double element_updates(const options *o, const sim *s)
{
    return (double)s->ai.element_count * o->substeps * o->iterations;
}

/* The cut before step f: the constraints across it, and the triangles across
 * it shown no more. */
static int cut(const options *o, sim *s)
{
    if (!cut_across(s->body, s->asset, o->cut_y, o->quiet))
        return 0;
    free(s->shown_tris);
    s->shown_tris = malloc(sizeof *s->shown_tris * 3 * ((size_t)s->tri_count + 1));
    if (!s->shown_tris) {
        fprintf(stderr, "sinew-sim: out of host memory\n");
        return 0;
    }
    uint32_t kept = 0;
    for (uint32_t k = 0; k < s->tri_count; k++) {
        int below = 0;
        for (int c = 0; c < 3; c++)
            below += s->rest[3 * s->tris[3 * k + c] + 1] < o->cut_y;
        if (below == 0 || below == 3)
            memcpy(&s->shown_tris[3 * kept++], &s->tris[3 * k], 3 * sizeof *s->tris);
    }
    s->tris = s->shown_tris;
    s->tri_count = kept;
#ifdef SINEW_HAVE_PNG
    if (s->renderer && !render_set_triangles(s->renderer, s->tris, s->tri_count))
        return 0;
#endif
    return 1;
}

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
        sinew_body_save_checkpoint_file(s->body, o->checkpoint) != SINEW_RESULT_OK)
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

/* The steps, until --frames or an unstable one, then the last frame's
 * picture, the video and the final mesh. 0, having said why, on a failure. */
static int run(const options *o, sim *s, tally *t)
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
    for (unsigned f = t->first + 1; f <= t->first + o->frames; f++) {
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
        if (o->cut_set && f == o->cut_frame && !cut(o, s))
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
        sinew_result r = sinew_body_step(s->body, &s->p);
        if (r == SINEW_RESULT_OK && s->with_body && (r = sinew_body_step(s->with_body, &s->p)) != SINEW_RESULT_OK)
            fprintf(stderr, "sinew-sim: step %u of --with %s failed\n", f, o->with);
        double step_s = now_s() - ts;
        for (unsigned c = 0; c < o->shape_count; c++) /* the colliders where the step left them */
            sim_shape_advance(&s->shapes[c], s->p.dt);
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
        t->step_wall += step_s;
        if (!after_step(o, s, t, f, step_s, tty))
            return 0;
    }
    if (!o->quiet && tty)
        printf("\n");
    t->wall = now_s() - t0;
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
    if (s->with_body) {
        snprintf(t->with_mesh, sizeof t->with_mesh, "%s/final-with.obj", o->out_dir);
        if (sinew_body_read_positions(s->with_body, s->with_xyz, s->with_n) != SINEW_RESULT_OK ||
            !write_obj(t->with_mesh, s->with_xyz, s->with_n, s->with_tris, s->with_tri_count))
            return 0;
        if (o->intersections && !crossings_between(s, ai.particle_count, &t->between))
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ the report */

/* The summary as JSON (--json). */
static int write_json(const options *o, const sim *s, const tally *t, const sinew_material *mat0, double wall_ms,
                      double gpu_step_ms, double newton_mean, double newton_last, int status)
{
    const sinew_asset_info ai = s->ai;
    const sinew_step_stats st = sinew_body_get_stats(s->body);
    const int is_block = o->scene == SCENE_BLOCK_FLAT || o->scene == SCENE_BLOCK_RANDOM;
    FILE *j = fopen(o->json, "w");
    if (!j) {
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", o->json, strerror(errno));
        return 0;
    }
    fprintf(j, "{\n  \"scene\": \"%s\",\n",
            o->asset_path ? "asset" : o->cape ? "cape" : o->flag ? "flag" : soft_scenes[o->scene].name);
    fprintf(j, "  \"device\": \"%s\",\n  \"driver\": \"%s\",\n", s->di.name, s->di.driver);
    fprintf(j, "  \"particles\": %u, \"pinned\": %u, \"tets\": %u, \"cells\": %u,\n", ai.particle_count,
            ai.pinned_count, ai.tet_count, o->asset_path ? 0 : o->cells);
    if (s->soft)
        fprintf(j, "  \"material\": \"%s\", \"youngs\": %g, \"poisson\": %g, \"density\": %g,\n",
                mat0->model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN ? "snh" : "nh", (double)mat0->youngs_modulus,
                (double)mat0->poisson_ratio, (double)mat0->density);
    fprintf(j, "  \"solver\": \"%s\", \"substeps\": %u, \"iterations\": %u, \"newton_iterations\": %u, "
               "\"newton_tolerance\": %g,\n",
            sinew_solver_name(o->solver), o->substeps, o->iterations, o->newton, o->newton_tol);
    fprintf(j, "  \"dt\": %g, \"frames\": %u, \"steps\": %u, \"gravity\": %g, \"ground\": %s, \"damping\": %g,\n",
            o->dt, o->frames, t->steps_done, o->gravity, s->p.ground ? "true" : "false", o->damping);
    if (soft_scene_is_bar(o->scene))
        fprintf(j, "  \"scale\": %g, \"turns\": %g, \"ramp\": %g,\n", o->scene == SCENE_BAR_TWIST ? 1.0 : o->scale,
                o->scene == SCENE_BAR_TWIST ? o->turns : 0.0, o->ramp);
    fprintf(j, "  \"stable\": %s, \"unstable_step\": ", t->unstable_step ? "false" : "true");
    if (t->unstable_step)
        fprintf(j, "%u,\n", t->unstable_step);
    else
        fprintf(j, "null,\n");
    fprintf(j, "  \"dispatches_per_step\": %u, \"barriers_per_step\": %u, \"submits_per_step\": %u, "
               "\"host_waits_per_step\": %u, \"readback_bytes_per_step\": %llu, \"device_allocations\": %u,\n  ",
            st.dispatches, st.barriers, st.submits, st.host_waits, (unsigned long long)st.readback_bytes,
            st.device_allocations);
    if (o->self_collision)
        fprintf(j, "\"self_collision\": {\"thickness\": %g, \"capacity\": %u, \"candidates\": %llu, "
                   "\"contacts\": %llu, \"dropped\": %llu},\n  ",
                o->thickness, o->self_capacity, (unsigned long long)t->self_candidates,
                (unsigned long long)t->self_contacts, (unsigned long long)t->self_dropped);
    if (o->intersections)
        fprintf(j, "\"intersections\": %llu,\n  ", (unsigned long long)t->crossings.pairs);
    if (o->with && o->intersections)
        fprintf(j, "\"intersections_between_bodies\": %llu,\n  ", (unsigned long long)t->between);
    if (o->check_outside > 0) {
        fprintf(j, "\"inside_colliders\": %u, ", t->inside);
        json_num(j, "nearest_collider_distance", t->nearest, ",\n  ");
    }
    if (o->flag) {
        fprintf(j, "\"flag\": {");
        json_num(j, "fly_downwind", t->fly_downwind, ", ");
        json_num(j, "fly_drop", t->fly_drop, "},\n  ");
    }
    json_num(j, "ms_per_step_wall", wall_ms, ", ");
    json_num(j, "ms_per_step_gpu", gpu_step_ms >= 0 ? gpu_step_ms : NAN, ", ");
    json_num(j, "max_speed", t->fastest, ", ");
    json_num(j, "residual", t->residual >= 0 ? t->residual : NAN, ", ");
    json_num(j, "worst_residual", t->worst_residual >= 0 || isnan(t->worst_residual) ? t->worst_residual : NAN,
             ", ");
    if (ai.element_count) {
        json_num(j, "newton_mean", newton_mean, ", ");
        json_num(j, "newton_last_step", newton_last, ", ");
    }
    json_num(j, "run_seconds", t->wall, ",\n");
    if (s->soft) {
        json_shape(j, "start", &t->start, -1, ",");
        json_shape(j, "final", &t->last, (long)t->first + t->steps_done, ",");
        json_shape(j, "worst", &t->worst, t->worst_step, ",");
        fprintf(j, "  \"most_inverted_tets\": %u,\n", t->most_inverted);
        fprintf(j, "  \"health\": {\"inverted_last\": %u, \"inverted_most\": %u, ", st.inverted_elements,
                t->health_inverted);
        json_num(j, "volume_error_last", st.max_volume_error, ", ");
        json_num(j, "volume_error_worst", t->health_volume_error, ", ");
        fprintf(j, "\"max_inverted\": %u, ", o->max_inverted);
        json_num(j, "max_volume_error", o->max_volume_error, "},\n");
        if (is_block && t->recovered_step >= 0)
            fprintf(j, "  \"recovered_step\": %ld, \"recovered_at_end\": %s,\n", t->recovered_step,
                    shape_recovered(&t->last) ? "true" : "false");
        else if (is_block)
            fprintf(j, "  \"recovered_step\": null, \"recovered_at_end\": false,\n");
    } else {
        json_num(j, "max_strain", st.max_strain, ", ");
        json_num(j, "worst_max_strain", t->worst_strain, ", ");
        json_num(j, "worst_rms_strain", t->worst_rms, ",\n");
        const stretch_report sr = measure_stretch(s->xyz, s->ends, s->rest_length, ai.distance_count);
        fprintf(j, "  \"stretch\": {\"edges\": %u, \"median_rest_length\": %.9g, ", sr.counted, sr.median);
        json_num(j, "max", sr.most, ", ");
        json_num(j, "length_weighted_mean", sr.weighted, ", ");
        if (sr.worst != UINT32_MAX)
            fprintf(j, "\"worst_edge\": [%u, %u], \"worst_rest_length\": %.9g, ", s->ends[2 * sr.worst],
                    s->ends[2 * sr.worst + 1], s->rest_length[sr.worst]);
        fprintf(j, "\"short_edges\": %u, ", sr.short_count);
        json_num(j, "short_max", sr.short_most, "},\n");
    }
    fprintf(j, "  \"exit_status\": %d\n}\n", status);
    if (fclose(j) != 0) {
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", o->json, strerror(errno));
        return 0;
    }
    return 1;
}

/* A soft body's stability as the health check saw it: particles and
 * tetrahedra, so that no run reads "stable" with its elements inside out. */
static void soft_stability(const options *o, const tally *t, const sinew_step_stats *st)
{
    char bounds[128];
    if (o->max_inverted == UINT32_MAX && !isfinite(o->max_volume_error))
        snprintf(bounds, sizeof bounds, "none set (--max-inverted, --max-volume-error)");
    else if (o->max_inverted == UINT32_MAX)
        snprintf(bounds, sizeof bounds, "--max-volume-error %g", o->max_volume_error);
    else if (!isfinite(o->max_volume_error))
        snprintf(bounds, sizeof bounds, "--max-inverted %u", o->max_inverted);
    else
        snprintf(bounds, sizeof bounds, "--max-inverted %u, --max-volume-error %g", o->max_inverted,
                 o->max_volume_error);
    /* the failed step, rolled back, counts too */
    uint32_t most = st->inverted_elements > t->health_inverted ? st->inverted_elements : t->health_inverted;
    double worst = fmax(t->health_volume_error, st->max_volume_error);
    if (t->unstable_step) {
        printf("  stability       UNSTABLE at step %u:", t->unstable_step);
        const char *sep = "";
        if (st->bad_particles) {
            printf(" %u particles not finite or faster than %g m/s", st->bad_particles, o->max_speed);
            sep = ";";
        }
        if (st->inverted_elements > o->max_inverted) {
            printf("%s %u tetrahedra inverted (more than %u)", sep, st->inverted_elements, o->max_inverted);
            sep = ";";
        }
        if (st->max_volume_error > o->max_volume_error)
            printf("%s max |V/V0 - 1| %.3g (above %g)", sep, st->max_volume_error, o->max_volume_error);
        printf("\n");
    } else if (st->inverted_elements) {
        printf("  stability       finite, but %u tetrahedra inverted at the last step: every step passed the health "
               "check (fastest particle %.3g m/s)\n",
               st->inverted_elements, t->fastest);
    } else {
        printf("  stability       stable: every step passed the health check (fastest particle %.3g m/s)\n",
               t->fastest);
    }
    printf("  health check    tetrahedra: at most %u inverted in a step, max |V/V0 - 1| %.3g (%.3g last step); "
           "bounds: %s\n",
           most, worst, st->max_volume_error, bounds);
}

/* The summary, the checks and the JSON; the exit status. */
static int report(const options *o, const sim *s, const tally *t)
{
    const sinew_asset_info ai = s->ai;
    const sinew_step_stats st = sinew_body_get_stats(s->body);
    const unsigned steps = t->steps_done;
    const double updates = element_updates(o, s);
    const double wall_ms = steps ? 1e3 * t->step_wall / steps : 0.0;
    const double gpu_step_ms = t->gpu_steps ? t->gpu_ms / t->gpu_steps : -1.0;
    const double newton_mean = updates > 0 && steps ? t->newton_sum / (updates * steps) : 0.0;
    const double newton_last = updates > 0 ? st.newton_iterations / updates : 0.0;
    sinew_material mat0 = {0};
    if (s->soft)
        sinew_asset_get_material(s->asset, 0, &mat0);
    if (s->materials)
        mat0 = s->materials[0];
    const int is_block = o->scene == SCENE_BLOCK_FLAT || o->scene == SCENE_BLOCK_RANDOM;
    printf("summary\n");
    printf("  device          %s (%s)\n", s->di.name, s->di.driver);
    if (s->soft) {
        printf("  scene           %s: %u particles (%u pinned), %u tetrahedra", s->name, ai.particle_count,
               ai.pinned_count, ai.tet_count);
        if (!o->asset_path)
            printf(", %u^3 vertices", o->cells);
        printf("\n  material        %s, E %g Pa, nu %g, %g kg/m^3\n",
               mat0.model == SINEW_MATERIAL_STABLE_NEO_HOOKEAN ? "stable neo-Hookean" : "neo-Hookean",
               (double)mat0.youngs_modulus, (double)mat0.poisson_ratio, (double)mat0.density);
        if (o->solver == SINEW_SOLVER_MGPBD)
            printf("  solver          %s, %u substeps x %u outer iterations, CG <= %u, a hierarchy setup every %u "
                   "steps, %u dispatches per step\n",
                   sinew_solver_label(o->solver), o->substeps, o->iterations, o->cg_iterations, o->setup_interval,
                   st.dispatches);
        else if (o->solver == SINEW_SOLVER_IMPLICIT_PCG)
            printf("  solver          %s, %u substeps, a Newton step each, %u dispatches per step\n",
                   sinew_solver_label(o->solver), o->substeps, st.dispatches);
        else
            printf("  solver          %s, %u substeps x %u iterations, Newton <= %u (tolerance %g), %u dispatches "
                   "per step\n",
                   sinew_solver_label(o->solver), o->substeps, o->iterations, o->newton, o->newton_tol, st.dispatches);
        printf("  steps           %u of %.4g s (%u asked), gravity %g m/s^2, %s\n", steps, o->dt, o->frames,
               o->gravity, s->p.ground ? "ground" : "no ground");
        if (o->solver != SINEW_SOLVER_MGPBD && o->solver != SINEW_SOLVER_IMPLICIT_PCG)
            printf("  Newton          %.2f iterations per element update on average, %.2f in the last step "
                   "(bound %u)\n", newton_mean, newton_last, o->newton);
        soft_stability(o, t, &st);
    } else {
        printf("  solver          %s, %u substeps x %u iterations, %u dispatches per step\n",
               sinew_solver_label(o->solver), o->substeps, o->iterations, st.dispatches);
        printf("  steps           %u of %.4g s\n", steps, o->dt);
        if (t->unstable_step)
            printf("  stability       UNSTABLE at step %u\n", t->unstable_step);
    }
    if ((o->solver == SINEW_SOLVER_IMPLICIT_MG || o->solver == SINEW_SOLVER_IMPLICIT_PCG) && steps)
        printf("  linear solve    %.1f %s and %.1f ms per step; worst relative residual %.2e; %u solves above "
               "the tolerance\n",
               (double)t->linear_sum / steps, o->solver == SINEW_SOLVER_IMPLICIT_MG ? "V-cycles" : "PCG iterations",
               t->linear_ms / steps, t->linear_worst, t->linear_unconverged);
    if ((o->self_collision || o->with) && steps)
        printf("  %s  thickness %g m: %.0f candidate pairs and %.0f contact projections per step; %llu "
               "candidates dropped (capacity %u)\n",
               o->self_collision ? "self-collision" : "contacts      ", o->thickness, (double)t->self_candidates / steps, (double)t->self_contacts / steps,
               (unsigned long long)t->self_dropped, o->self_capacity);
    if (o->intersections) {
        printf("  intersections   %llu pairs of triangles sharing no vertex intersect after the last step",
               (unsigned long long)t->crossings.pairs);
        if (t->crossings.pairs)
            printf(" (the first: %u and %u)", t->crossings.first_a, t->crossings.first_b);
        printf("\n");
        if (s->with_body)
            printf("  between bodies  %llu pairs of a triangle of each body intersect after the last step\n",
                   (unsigned long long)t->between);
    }
    if (s->with_body) {
        sinew_step_stats ws = sinew_body_get_stats(s->with_body);
        printf("  with            %s: %u particles (%s), its last step %llu candidate pairs and %llu contact "
               "projections; final mesh %s\n",
               o->with, s->with_n, sinew_solver_label(s->with_asset && sinew_asset_get_info(s->with_asset).tet_count
                                                        ? SINEW_SOLVER_GPBD_GAUSS_SEIDEL
                                                        : SINEW_SOLVER_XPBD_GAUSS_SEIDEL),
               (unsigned long long)ws.self_candidates, (unsigned long long)ws.self_contacts, t->with_mesh);
    }
    if (gpu_step_ms >= 0)
        printf("  time per step   %.3f ms GPU, %.3f ms wall\n", gpu_step_ms, wall_ms);
    else
        printf("  time per step   %.3f ms wall (no GPU timestamps)\n", wall_ms);
    if (s->soft) {
        printf("  volume error    last step: max %.3g%%, RMS %.3g%%, total %.3g%%; worst step %ld: max %.3g%%\n",
               100.0 * t->last.max_error, 100.0 * t->last.rms_error, 100.0 * t->last.total_error, t->worst_step,
               100.0 * t->worst.max_error);
        printf("  inverted tets   %u last step, at most %u (step %ld); max Green strain %.3g last step\n",
               t->last.inverted, t->most_inverted, t->worst_inverted_step, t->last.max_green);
        if (is_block) {
            printf("  start           %u inverted, max |V/V0 - 1| %.3g, max Green strain %.3g\n", t->start.inverted,
                   t->start.max_error, t->start.max_green);
            if (t->recovered_step >= 0)
                printf("  recovered       at step %ld (%.3g s): no inverted tetrahedra, Green strain < 1%%; %s at "
                       "the last step\n",
                       t->recovered_step, t->recovered_step * o->dt, shape_recovered(&t->last) ? "still" : "NOT");
            else
                printf("  recovered       no: not within %u steps\n", steps);
        }
    } else {
        /* Stretch at the last step, over edges of a meaningful length; then
         * the device's strain |C|/L of every distance constraint. */
        const stretch_report sr = measure_stretch(s->xyz, s->ends, s->rest_length, ai.distance_count);
        if (sr.worst != UINT32_MAX)
            printf("  stretch         %.3f%% at most at the last step, edge %u-%u (rest %.3g m), over the %u edges at "
                   "least a tenth of the median rest length %.3g m; %.3f%% length-weighted mean\n",
                   100.0 * sr.most, s->ends[2 * sr.worst], s->ends[2 * sr.worst + 1], s->rest_length[sr.worst],
                   sr.counted, sr.median, 100.0 * sr.weighted);
        if (sr.short_count)
            printf("  short edges     %u shorter than %.3g m left out above: at most %.3g%%, edge %u-%u (rest %.3g m)\n",
                   sr.short_count, 0.1 * sr.median, 100.0 * sr.short_most, s->ends[2 * sr.short_worst],
                   s->ends[2 * sr.short_worst + 1], s->rest_length[sr.short_worst]);
        printf("  strain          max %.3f%% last step, %.3f%% worst step, RMS %.3f%% (|C|/L of every distance "
               "constraint, short edges included)\n",
               100.0 * st.max_strain, 100.0 * t->worst_strain, 100.0 * st.rms_strain);
    }
    if ((t->residual >= 0 || isnan(t->worst_residual)) && o->solver == SINEW_SOLVER_MGPBD)
        printf("  residual        %.3g last step, %.3g worst step (the dual residual |b| after the last outer "
               "iteration over its value at the first, in the step's last substep)\n",
               t->residual, t->worst_residual);
    else if (t->residual >= 0 || isnan(t->worst_residual))
        printf("  residual        %.3g last step, %.3g worst step (RMS of the solver's system at the end of each "
               "step's iterations: strain and radians; 0 solved exactly)\n",
               t->residual, t->worst_residual);
    printf("  device memory   %.2f MiB body, %.2f MiB context\n", st.device_memory / 1048576.0,
           sinew_context_get_device_memory(s->ctx) / 1048576.0);
    printf("  run time        %.1f s\n", t->wall);
    printf("  final mesh      %s\n", t->mesh);
    if (*t->picture)
        printf("  picture         %s\n", t->picture);
    if (o->video)
        printf("  video           %s\n", o->video);
    if (o->checkpoint)
        printf("  checkpoint      %s (step %llu)\n", o->checkpoint, (unsigned long long)st.step_index);
    if (o->hash) {
        uint64_t h;
        if (sinew_body_state_hash(s->body, &h) != SINEW_RESULT_OK)
            return 1;
        printf("  state hash      %016llx\n", (unsigned long long)h);
    }
    int status = t->unstable_step ? 3 : 0;
    if (o->check_strain > 0 && !(t->worst_rms <= o->check_strain)) {
        printf("  check           FAILED: RMS strain reached %.3g, above %.3g\n", t->worst_rms, o->check_strain);
        status = 3;
    } else if (o->check_strain > 0) {
        printf("  check           passed: RMS strain at most %.3g (limit %.3g)\n", t->worst_rms, o->check_strain);
    }
    if (o->check_residual > 0 && !(t->worst_residual >= 0 || isnan(t->worst_residual))) {
        printf("  check           FAILED: --check-residual, but this solver measures no residual (docs/math.md 9)\n");
        status = 3;
    } else if (o->check_residual > 0 && !(t->worst_residual <= o->check_residual)) {
        printf("  check           FAILED: residual reached %.3g, above %.3g (more iterations or substeps)\n",
               t->worst_residual, o->check_residual);
        status = 3;
    } else if (o->check_residual > 0) {
        printf("  check           passed: residual at most %.3g (limit %.3g)\n", t->worst_residual,
               o->check_residual);
    }
    if (o->check_outside > 0) {
        static const char *const kinds[] = {"sphere", "capsule", "box", "mesh"};
        const sinew_shape *near = &s->shapes[t->nearest_shape];
        printf("  check           %s: %u particles deeper than %g m inside a collider of the list; the nearest, "
               "particle %u, %.3g m from collider %u's surface (a %s; negative: inside)\n",
               t->inside ? "FAILED" : "passed", t->inside, o->check_outside, t->nearest_particle, (double)t->nearest,
               t->nearest_shape, kinds[near->kind]);
        if (t->inside)
            status = 3;
    }
    if (o->flag)
        printf("  flag            its fly end %.3g m downwind of its hoist (along the horizontal wind), %.3g m "
               "below it (the middles of the two edges)\n",
               t->fly_downwind, t->fly_drop);
    if (o->check_downwind > 0) {
        const int ok = t->fly_downwind >= o->check_downwind; /* NaN fails */
        printf("  check           %s: the fly end %.3g m downwind of the hoist (at least %g m asked)\n",
               ok ? "passed" : "FAILED", t->fly_downwind, o->check_downwind);
        if (!ok)
            status = 3;
    }
    if (o->check_recovered && !(s->soft && !t->unstable_step && shape_recovered(&t->last))) {
        printf("  check           FAILED: not recovered at the last step\n");
        status = 3;
    } else if (o->check_recovered) {
        printf("  check           passed: recovered\n");
    }
    if (o->json && !write_json(o, s, t, &mat0, wall_ms, gpu_step_ms, newton_mean, newton_last, status))
        return 1;
    return status;
}

int main(int argc, char **argv)
{
    options o;
    int go = sim_parse(argc, argv, &o);
    if (go <= 0)
        return go < 0 ? 2 : 0;
    if (!check_outputs(&o))
        return 2;
    sim s;
    memset(&s, 0, sizeof s);
    tally t = {.worst_step = -1, .worst_inverted_step = -1, .recovered_step = -1, .residual = -1.0,
               .worst_residual = -1.0};
    int status = build(&o, &s) && run(&o, &s, &t) ? report(&o, &s, &t) : 1;
    fflush(stdout); /* before any exit-time report a sanitizer may end the process with */
    if (!sim_free(&o, &s))
        status = 1;
    return status;
}
