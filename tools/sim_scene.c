/* sinew-sim's scene: the asset (a file, the default cloth or a soft-body
 * scene) with the options' materials and step parameters, the context, the
 * mesh colliders and the body (and, with --add or --scene crowd, the world
 * and the bodies beside it: sim_world.c), the renderer and the log; the cut
 * that tears the body; and all of it freed at the end. */
#define _POSIX_C_SOURCE 200809L
#include <sinew/sinew.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/file.h"
#include "prep/cloth.h"
#include "prep/estimate.h"
#include "prep/mesh.h"
#include "scene.h"
#include "sim_run.h"

/* Tears the body: cuts the distance constraints whose rest end points lie on
 * both sides of the plane y = cut_y. */
static int cut_across(sinew_body *body, const sinew_asset *asset, double cut_y, double origin_y, int quiet,
                      uint8_t *left_out)
{
    const double world_y = cut_y; /* the plane as given; the rest positions are relative to the origin */
    cut_y -= origin_y;
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
            left_out[c] = 2; /* the summary's stretch leaves a cut edge out */
            ends[2 * count] = a; /* compacted in place: count <= c */
            ends[2 * count + 1] = b;
            count++;
        }
    }
    uint32_t cut = 0;
    sinew_result r = sinew_body_cut(body, ends, count, &cut);
    if (r != SINEW_RESULT_OK)
        fprintf(stderr, "sinew-sim: cutting at y = %g failed: %s\n", world_y, sinew_result_string(r));
    else if (!quiet)
        printf("  cut %u distance constraints across y = %g m\n", cut, world_y);
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

/* The asset (a file, the default cloth or a soft-body scene), the materials
 * the options give it, and the step's parameters. */
static int load_scene(options *o, sim *s)
{
    s->name = o->asset_path             ? o->asset_path
              : o->cape                 ? "cape scene"
              : o->flag                 ? "flag scene"
              : o->crowd                ? "crowd block 1"
              : o->scene == SCENE_CLOTH ? "default scene"
                                        : soft_scenes[o->scene].name;
    sinew_logger quiet_log = sinew_logger_default();
    quiet_log.level = SINEW_LOG_WARNING;
    sinew_soft_report rep = {0};
    sinew_material_model model =
        o->material == MATERIAL_UNSET ? SINEW_MATERIAL_NEO_HOOKEAN : (sinew_material_model)o->material;
    /* --resume with --cut: the step the checkpoint was saved at, read
     * before anything is made. */
    if (o->resume && o->cut_set && !checkpoint_step(o->resume, &s->resume_step))
        return 0;
    /* A soft scene's box is built here: estimated first, as sinew-prep --box is. */
    if (!o->asset_path && !o->crowd && o->scene != SCENE_CLOTH) {
        const uint64_t c = o->cells;
        const sinew_estimate e = sinew_estimate_soft(c * c * c, 6 * (c - 1) * (c - 1) * (c - 1));
        char job[32];
        snprintf(job, sizeof job, "--cells %u", o->cells);
        if (sinew_estimate_check(&e, o->max_memory, s->name, job, "--max-memory SIZE", &quiet_log) !=
            SINEW_RESULT_OK)
            return 0; /* the estimate said why */
    }
    sinew_result r = o->asset_path ? sinew_asset_load(o->asset_path, NULL, &s->asset)
                     : o->crowd               ? sim_crowd_first(o, &s->asset)
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
        o->solver = sim_default_solver(o, &ai);
    /* The body's frame: the asset's origin plus --origin, in double. What
     * the options give in the world comes into it here, once. */
    sinew_asset_get_origin(s->asset, s->origin);
    for (int k = 0; k < 3; k++) {
        s->origin[k] += o->origin[k];
        if (!(fabs(s->origin[k]) <= 1e9)) {
            fprintf(stderr, "sinew-sim: %s: the origin (%.17g, %.17g, %.17g) m (the asset's plus --origin) is beyond "
                    "1e9 m\n", s->name, s->origin[0], s->origin[1], s->origin[2]);
            return 0;
        }
    }
    const double *origin = s->origin;
    for (unsigned k = 0; k < o->shape_count; k++)
        for (int c = 0; c < 3; c++)
            o->shapes[k].position[c] = (float)(o->shape_at[k][c] - origin[c]);

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
    /* The library's ground (y = 0 in the world), unless an asset reaches
     * below it: then a quarter of its size below it, said. Without a ground
     * its height is never computed (nor checked). Heights here are the
     * world's; the step's is the body frame's. */
    const double lowest = ai.bounds_min[1] + origin[1];
    double ground = 0.0;
    if (o->ground_set)
        ground = o->ground;
    else if (p->ground && o->asset_path && lowest < 0.0) {
        ground = lowest - 0.25 * extent;
        if (!o->quiet && isfinite(ground))
            printf("  %s reaches y = %.*g m, below the ground at y = 0: the ground is at y = %.*g m, a quarter of "
                   "its size below it (--ground Y to choose)\n", s->name, origin[1] != 0.0 ? 10 : 4, lowest,
                   origin[1] != 0.0 ? 10 : 4, ground);
    }
    /* The plane dot(n, x) = h (n made unit by the step) in the body's frame: dot(n, x') = h - dot(n, origin). */
    const double *n = o->ground_normal, norm = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    const double along = norm > 0.0 ? (n[0] * origin[0] + n[1] * origin[1] + n[2] * origin[2]) / norm : 0.0;
    if (p->ground && !o->ground_set && o->asset_path && lowest < 0.0) /* as ever in the body's own floats */
        p->ground_height = (ai.bounds_min[1] - 0.25f * extent) + (float)(origin[1] - along);
    else if (p->ground)
        p->ground_height = (float)(ground - along);
    if (p->ground && !isfinite(p->ground_height)) {
        fprintf(stderr, "sinew-sim: %s spans %g m from y = %g m: a ground %s at y = %g m is not a finite float; "
                "give --ground Y or --no-ground\n", s->name, (double)extent, lowest,
                o->ground_set ? "given" : "a quarter of its size below it", ground);
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
    if (!spheres && !o->asset_path && o->scene == SCENE_CLOTH && !o->no_sphere && !o->flag && !o->cape &&
        !o->crowd) {
        p->sphere = 1;
        for (int k = 0; k < 3; k++)
            p->sphere_center[k] = (float)(scene_default_sphere[k] - origin[k]);
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

/* The context, the mesh collider and the body, and the host arrays the
 * measures read positions into. */
static int create_body(const options *o, sim *s)
{
    const sinew_asset_info ai = s->ai;
    sinew_context_desc cd = sinew_context_desc_default();
    cd.device = o->device;
    cd.validation = o->validation;
    cd.logger.fn = sim_log;
    if (o->portable)
        cd.limits = SINEW_LIMITS_PORTABLE;
    sinew_result r = sinew_context_create(&cd, &s->ctx);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: no Vulkan context: %s\n", sinew_result_string(r));
        return 0;
    }
    if (!sim_world_create(o, s))
        return 0;
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
    bd.implicit.bdf2 = o->bdf2 ? 1 : o->backward_euler ? 0 : SINEW_IMPLICIT_BDF2_AUTO;
    bd.chebyshev_delay = o->delay;
    bd.self_collision = o->self_collision;
    bd.self_thickness = (float)o->thickness * (o->crowd ? 0.5f : 1.0f); /* the crowd's blocks: sim_world.c */
    bd.self_friction = (float)o->self_friction;
    bd.self_capacity = o->self_capacity;
    bd.name = s->name;
    bd.world = s->world;
    memcpy(bd.origin, o->origin, sizeof bd.origin); /* the library adds the asset's */
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
    float *w = malloc(sizeof *w * ((size_t)ai.particle_count + 1));
    s->left_out = calloc((size_t)ai.distance_count + 1, 1);
    if (!w || !s->left_out) {
        free(w);
        fprintf(stderr, "sinew-sim: out of host memory\n");
        return 0;
    }
    sinew_asset_get_inverse_masses(s->asset, w);
    for (uint32_t c = 0; c < ai.distance_count; c++) {
        const float *a = &s->rest[3 * s->ends[2 * c]], *b = &s->rest[3 * s->ends[2 * c + 1]];
        s->rest_length[c] = sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
        s->left_out[c] = w[s->ends[2 * c]] == 0.0f || w[s->ends[2 * c + 1]] == 0.0f; /* held at a pin */
    }
    free(w);
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
    if (!sim_world_add(o, s, &bd))
        return 0;
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
    if (o->resume && o->cut_set && o->cut_frame <= s->resume_step && !sim_cut(o, s))
        return 0;
    if (o->resume && sim_load_checkpoint(s, o->resume) != SINEW_RESULT_OK)
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
        for (uint32_t b = 0; b < s->other_count; b++) { /* every body, where --add moves it */
            const sinew_asset_info wi = sinew_asset_get_info(s->others[b].asset);
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(lo[k], wi.bounds_min[k] + (float)s->others[b].at[k]);
                hi[k] = fmaxf(hi[k], wi.bounds_max[k] + (float)s->others[b].at[k]);
            }
        }
        if (s->p.ground)
            lo[1] = lo[1] < s->p.ground_height ? lo[1] : s->p.ground_height;
        s->camera = render_camera_framing(lo, hi);
        if (!o->asset_path && o->scene == SCENE_CLOTH && !o->crowd)
            for (int k = 0; k < 3; k++) { /* the scene's camera in the world, drawn in the body's frame */
                s->camera.eye[k] = (float)((o->flag ? scene_flag_eye[k] : scene_default_eye[k]) - s->origin[k]);
                s->camera.target[k] =
                    (float)((o->flag ? scene_flag_target[k] : scene_default_target[k]) - s->origin[k]);
            }
        if (o->crowd) { /* the pile from above, in front and to the right */
            const double eye[3] = {1.6, 1.5, 2.1}, target[3] = {0.0, 0.22, 0.0};
            for (int k = 0; k < 3; k++) {
                s->camera.eye[k] = (float)(eye[k] - s->origin[k]);
                s->camera.target[k] = (float)(target[k] - s->origin[k]);
            }
        }
        s->follow = o->cape && !o->camera_set;
        if (o->camera_set)
            for (int k = 0; k < 3; k++) {
                s->camera.eye[k] = (float)(o->camera[k] - s->origin[k]);
                s->camera.target[k] = (float)(o->camera[3 + k] - s->origin[k]);
            }
        s->renderer = render_create(s->ctx, s->body, s->tris, s->tri_count, o->picture[0], o->picture[1]);
        if (!s->renderer && (o->png || o->video))
            return 0; /* it said why */
        for (uint32_t b = 0; s->renderer && b < s->other_count; b++)
            if (!render_add_body(s->renderer, s->others[b].body, s->others[b].tris, s->others[b].tri_count))
                return 0;
        for (unsigned m = 0; s->renderer && m < o->mesh_count; m++)
            if (!render_add_mesh(s->renderer, s->mesh_xyz[m], s->mesh_vertex_count[m], s->mesh_tris[m],
                                 s->mesh_tri_count[m]))
                return 0;
    }
#else
    (void)pictures; /* --png and --video were refused with the options */
#endif
    sinew_logger lg = sinew_logger_default();
    if (o->log && sinew_file_open_output(o->log, &lg, "--log", &s->log) != SINEW_RESULT_OK)
        return 0;
    if (s->log)
        fprintf(s->log, s->soft ? "step,wall_ms,gpu_ms,max_volume_error,rms_volume_error,total_volume_error,"
                                  "inverted_tets,max_green_strain,max_speed,newton_mean,residual\n"
                                : "step,wall_ms,gpu_ms,max_strain,rms_strain,max_speed,max_stretch,mean_stretch,"
                                  "residual\n");
    return 1;
}

/* Whether the file at path holds exactly size bytes of text. */
static int file_holds(const char *path, const char *text, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int same = 1;
    char buf[4096];
    size_t at = 0, n;
    while (same && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        same = at + n <= size && memcmp(buf, text + at, n) == 0;
        at += n;
    }
    fclose(f);
    return same && at == size;
}

/* The asset's material library beside the meshes (-o), which name it: written
 * when absent, left when it holds the same text, and left with a warning when
 * it holds other text (a library of the user's, never replaced). */
static int write_material_library(const options *o, const sinew_asset *asset)
{
    const char *text;
    size_t size;
    const char *name = sinew_asset_get_material_library(asset, &text, &size);
    if (!name || !text)
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", o->out_dir, name);
    if (file_holds(path, text, size))
        return 1;
    if (access(path, F_OK) == 0) {
        fprintf(stderr, "sinew-sim: warning: %s is not the asset's material library and is left as it is; the "
                "meshes name it\n", path);
        return 1;
    }
    FILE *f = cli_open_output("sinew-sim", "the material library", path);
    if (!f)
        return 0;
    int ok = fwrite(text, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "sinew-sim: cannot write %s: %s\n", path, strerror(errno));
    return ok;
}

/* The asset's render mesh, when it has one: the OBJ files are written from it. */
static int load_render_mesh(const options *o, sim *s)
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
    return write_material_library(o, s->asset);
}

/* The mean rest length of the edges of the asset's surface triangles (each
 * edge once per triangle) and the vertices on them; 0 when out of memory. */
static int surface_edges(const sinew_asset *asset, const sinew_asset_info *ai, double *mean, uint32_t *vertices)
{
    uint32_t count = 0;
    const uint32_t *tris = sinew_asset_get_triangles(asset, &count);
    float *xyz = malloc(3 * sizeof *xyz * ((size_t)ai->particle_count + 1));
    uint8_t *on = calloc((size_t)ai->particle_count + 1, 1);
    if (!xyz || !on) {
        free(xyz);
        free(on);
        fprintf(stderr, "sinew-sim: out of host memory\n");
        return 0;
    }
    sinew_asset_get_positions(asset, xyz);
    double sum = 0.0;
    *vertices = 0;
    for (uint32_t t = 0; t < count; t++)
        for (int k = 0; k < 3; k++) {
            const float *a = &xyz[3 * tris[3 * t + k]], *b = &xyz[3 * tris[3 * t + (k + 1) % 3]];
            sum += sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
            *vertices += !on[tris[3 * t + k]];
            on[tris[3 * t + k]] = 1;
        }
    *mean = count ? sum / (3.0 * count) : 0.0;
    free(xyz);
    free(on);
    return 1;
}

/* Self-collision (and contacts between bodies) at a thickness of several
 * edge lengths: each vertex finds hundreds of candidates, and each query
 * scans as many entries of the spatial hash, so the broad phase grows with
 * the square of the thickness over the edges. Said before the first step,
 * with the estimate (prep/estimate.h). 0 when out of memory. */
static int warn_thickness(const options *o, const sim *s)
{
    if (!o->self_collision && !((o->add_count || o->crowd) && !o->no_contacts))
        return 1;
    double edge = 0.0;
    uint32_t vertices = 0;
    if (!surface_edges(s->asset, &s->ai, &edge, &vertices))
        return 0;
    if (!(edge > 0.0) || !(o->thickness > SINEW_ESTIMATE_THICK_EDGES * edge))
        return 1;
    const sinew_self_estimate e = sinew_estimate_self_collision(o->thickness, edge, vertices);
    if (!(e.cost > SINEW_ESTIMATE_THICK_COST)) /* a small surface: every item is in reach at any thickness */
        return 1;
    fprintf(stderr,
            "sinew-sim: warning: --thickness %g m is %.0f times the mean edge length of %s's surface (%.3g m): "
            "some %.0f items come within reach of each vertex, of which its query keeps %u (--self-capacity), and "
            "each query scans some %.0f entries of the spatial hash, %.0f times the work at a thickness of one edge "
            "length; the steps will be slow: lower --thickness (one below the edge lengths keeps layers apart, "
            "docs/self-collision.md)\n",
            o->thickness, o->thickness / edge, s->name, edge, e.candidates, o->self_capacity, e.scanned, e.cost);
    return 1;
}

/* A soft body from an asset is health-checked for blowing up (a landing on
 * thin legs can), so that a step that does is caught and retried
 * (--retries). */
static int landing_bounds(options *o, const sim *s)
{
    if (s->soft && o->asset_path && !o->max_volume_error_set)
        o->max_volume_error = SIM_ASSET_MAX_VOLUME_ERROR;
    if (s->soft && o->asset_path && !o->max_inverted_set) {
        const uint32_t share = (uint32_t)(SIM_ASSET_MAX_INVERTED_SHARE * s->ai.tet_count);
        o->max_inverted = share > SIM_ASSET_MAX_INVERTED ? share : SIM_ASSET_MAX_INVERTED;
    }
    return 1;
}

int sim_build(options *o, sim *s)
{
    return load_scene(o, s) && landing_bounds(o, s) && warn_thickness(o, s) && create_body(o, s) &&
           load_render_mesh(o, s) && open_outputs(o, s);
}

int sim_free(const options *o, sim *s)
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
    free(s->kept);
    free(s->xyz);
    free(s->ends);
    free(s->rest_length);
    free(s->left_out);
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
    free(s->render_indices);
    free(s->render_out);
    sim_world_free(s); /* the world's bodies, the first among them */
    sinew_body_destroy(s->body);
    for (unsigned m = 0; m < SIM_MAX_MESHES; m++)
        sinew_collider_destroy(s->meshes[m]);
    sinew_context_destroy(s->ctx);
    sinew_asset_destroy(s->asset);
    return ok;
}

/* The cut before step f: the constraints across it, and the triangles across
 * it shown no more. */
int sim_cut(const options *o, sim *s)
{
    if (!cut_across(s->body, s->asset, o->cut_y, s->origin[1], o->quiet, s->left_out))
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
            below += s->rest[3 * s->tris[3 * k + c] + 1] < o->cut_y - s->origin[1];
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
