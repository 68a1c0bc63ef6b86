/* sinew-sim's bodies beside the first (--add, --scene crowd): the world they
 * all join (sinew/world.h: one submit a step, bodies of one description
 * batched, contacts within a batch), their assets, moves, outputs, hashes
 * and statistics, and the crowd scene's blocks and cloths. With one body
 * there is no world: it is created and stepped alone, as it always was, so
 * its numbers, hash and checkpoints stay those of a body alone
 * (docs/world.md). */
#define _POSIX_C_SOURCE 200809L
#include <sinew/sinew.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prep/cloth.h"
#include "prep/mesh.h"
#include "sim_run.h"
#ifdef SINEW_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

/* ------------------------------------------------------------ the crowd */

/* The crowd scene: soft blocks (size m, the bottom's centre) side by side on
 * the ground, two by two with a gap between them, and flat cloths (side m,
 * the centre, a turn about the vertical in degrees) stacked above them, each
 * turned from the one below, that drape over the blocks and each other. The
 * first block is the first body; the blocks step in one batch (--solver,
 * GPBD Gauss-Seidel by default), the cloths in another (XPBD Gauss-Seidel,
 * their family's solver), and the two touch through their contact lists. */
enum { CROWD_BLOCKS = 4, CROWD_CLOTHS = 4 };
static const double crowd_blocks[CROWD_BLOCKS][3] = {
    {-0.27, 0.005, -0.27}, {0.27, 0.005, -0.27}, {-0.27, 0.005, 0.27}, {0.27, 0.005, 0.27}};
static const double crowd_cloths[CROWD_CLOTHS][4] = {
    {0.03, 0.46, -0.02, 0.0}, {-0.03, 0.52, 0.03, 22.5}, {0.02, 0.58, 0.02, 45.0}, {-0.02, 0.64, -0.03, 67.5}};
#define CROWD_BLOCK_SIZE 0.4
#define CROWD_CLOTH_SIDE 1.2

static sinew_result crowd_block(const options *o, unsigned k, sinew_asset **out)
{
    const double size[3] = {CROWD_BLOCK_SIZE, CROWD_BLOCK_SIZE, CROWD_BLOCK_SIZE};
    const double centre[3] = {crowd_blocks[k][0], crowd_blocks[k][1] + 0.5 * CROWD_BLOCK_SIZE, crowd_blocks[k][2]};
    sinew_volume v;
    sinew_result r = sinew_volume_box(o->cells, o->cells, o->cells, size, centre, &v);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_soft_options opt = sinew_soft_options_default();
    opt.model = o->material == MATERIAL_UNSET ? SINEW_MATERIAL_NEO_HOOKEAN : (sinew_material_model)o->material;
    opt.youngs_modulus = o->youngs;
    opt.poisson_ratio = o->poisson;
    opt.source_name = "crowd block";
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_WARNING;
    r = sinew_soft_build(&v, &opt, &quiet, out, NULL);
    sinew_volume_free(&v);
    return r;
}

static sinew_result crowd_cloth(const options *o, unsigned k, sinew_asset **out)
{
    const unsigned n = 3 * o->cells + 2;
    const double *c = crowd_cloths[k], turn = c[3] * 3.14159265358979323846 / 180.0;
    sinew_mesh mesh;
    sinew_result r = sinew_mesh_grid(n, n, CROWD_CLOTH_SIDE, CROWD_CLOTH_SIDE, SINEW_GRID_XZ, NULL, &mesh);
    if (r != SINEW_RESULT_OK)
        return r;
    for (uint32_t v = 0; v < mesh.vertex_count; v++) {
        double *p = &mesh.positions[3 * v];
        const double x = p[0], z = p[2];
        p[0] = c[0] + cos(turn) * x + sin(turn) * z;
        p[1] = c[1];
        p[2] = c[2] - sin(turn) * x + cos(turn) * z;
    }
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.source_name = "crowd cloth";
    opt.cluster_particles = 0; /* as the blocks: clustered sweeps would keep them out of the blocks' batch */
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_WARNING;
    r = sinew_cloth_build(&mesh, &opt, &quiet, out, NULL);
    sinew_mesh_free(&mesh);
    return r;
}

sinew_result sim_crowd_first(const options *o, sinew_asset **out) { return crowd_block(o, 0, out); }

/* ------------------------------------------------------------ the world */

static int several(const options *o) { return o->add_count > 0 || o->crowd; }

sinew_solver sim_default_solver(const options *o, const sinew_asset_info *ai)
{
    (void)o; /* bodies of different batches touch too (their chains' contact lists) */
    return ai->tet_count || ai->element_count ? SINEW_SOLVER_GPBD_GAUSS_SEIDEL : SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
}

int sim_world_create(const options *o, sim *s)
{
    if (!several(o))
        return 1;
    sinew_world_desc wd = sinew_world_desc_default();
    wd.name = "sinew-sim";
    wd.contacts = !o->no_contacts;
    sinew_result r = sinew_world_create(s->ctx, &wd, &s->world);
    if (r != SINEW_RESULT_OK)
        fprintf(stderr, "sinew-sim: no world: %s\n", sinew_result_string(r));
    return r == SINEW_RESULT_OK;
}

/* Body k beside the first: its asset (a file or the crowd's), made with the
 * first's description but its own name and solver, and moved by --add's @. */
static int add_one(const options *o, sim *s, const sinew_body_desc *first, unsigned k)
{
    sim_body *b = &s->others[k];
    sinew_result r;
    const sim_add *a = o->crowd ? NULL : &o->adds[k];
    if (a) {
        snprintf(b->name, sizeof b->name, "%s", a->path);
        memcpy(b->at, a->at, sizeof b->at);
        r = sinew_asset_load(a->path, NULL, &b->asset);
    } else {
        const int block = k + 1 < CROWD_BLOCKS;
        const unsigned i = block ? k + 1 : k + 1 - CROWD_BLOCKS;
        snprintf(b->name, sizeof b->name, "crowd %s %u", block ? "block" : "cloth", i + 1);
        r = block ? crowd_block(o, i, &b->asset) : crowd_cloth(o, i, &b->asset);
    }
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: body %u, %s: %s\n", k + 1, b->name, sinew_result_string(r));
        return 0;
    }
    const sinew_asset_info ai = sinew_asset_get_info(b->asset);
    if (a)
        b->solver = a->solver_set ? a->solver : sim_default_solver(o, &ai);
    else /* the crowd's blocks take the first's solver, its cloths their family's */
        b->solver = ai.tet_count ? o->solver : SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    /* The world's bodies share the first's origin (sinew/world.h): this one
     * is made there, its positions moved by its asset's origin less that,
     * and by --add's @, summed in double and rounded once. */
    double own[3];
    sinew_asset_get_origin(b->asset, own);
    sinew_body_desc d = *first;
    for (int c = 0; c < 3; c++) {
        d.origin[c] = s->origin[c] - own[c];
        b->at[c] += own[c] - s->origin[c];
    }
    d.solver = b->solver;
    d.materials = NULL;
    d.material_count = 0;
    d.name = b->name;
    if (!a && !ai.tet_count) /* the crowd's cloths keep --thickness from everything, its blocks half of it
                              * (sim_scene.c): each yields only within its own thickness, so a cloth resting
                              * on a block does not press it down step by step across the two batches */
        d.self_thickness = (float)o->thickness;
    b->n = ai.particle_count;
    b->tet_count = ai.tet_count;
    b->tris = sinew_asset_get_triangles(b->asset, &b->tri_count);
    b->xyz = malloc(3ull * ai.particle_count * sizeof *b->xyz + 1);
    if (!b->xyz) {
        fprintf(stderr, "sinew-sim: out of host memory\n");
        return 0;
    }
    if ((r = sinew_body_create(s->ctx, b->asset, &d, &b->body)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: body %u, %s: %s\n", k + 1, b->name, sinew_result_string(r));
        return 0;
    }
    if (b->at[0] == 0.0 && b->at[1] == 0.0 && b->at[2] == 0.0)
        return 1; /* where its asset put it, in the first's frame */
    sinew_asset_get_positions(b->asset, b->xyz);
    for (uint32_t i = 0; i < b->n; i++)
        for (int c = 0; c < 3; c++)
            b->xyz[3 * i + c] = (float)(b->xyz[3 * i + c] + b->at[c]);
    if ((r = sinew_body_write_positions(b->body, b->xyz, b->n)) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-sim: moving body %u, %s: %s\n", k + 1, b->name, sinew_result_string(r));
        return 0;
    }
    return 1;
}

int sim_world_add(const options *o, sim *s, const sinew_body_desc *first)
{
    if (!s->world)
        return 1;
    const unsigned count = o->crowd ? CROWD_BLOCKS + CROWD_CLOTHS - 1 : o->add_count;
    s->others = calloc(count, sizeof *s->others);
    if (!s->others) {
        fprintf(stderr, "sinew-sim: out of host memory\n");
        return 0;
    }
    for (unsigned k = 0; k < count; k++) {
        if (!add_one(o, s, first, k))
            return 0;
        s->other_count = k + 1;
    }
    return 1;
}

void sim_world_free(sim *s)
{
    for (uint32_t k = 0; k < s->other_count; k++) {
        free(s->others[k].xyz);
        sinew_asset_destroy(s->others[k].asset);
    }
    /* the world destroys the bodies still in it, the first among them */
    sinew_world_destroy(s->world);
    if (s->world)
        s->body = NULL;
    free(s->others);
}

sinew_result sim_step(sim *s)
{
    return s->world ? sinew_world_step(s->world, &s->p) : sinew_body_step(s->body, &s->p);
}

sinew_result sim_save_checkpoint(const sim *s, const char *path)
{
    return s->world ? sinew_world_save_checkpoint_file(s->world, path)
                    : sinew_body_save_checkpoint_file(s->body, path);
}

sinew_result sim_load_checkpoint(const sim *s, const char *path)
{
    return s->world ? sinew_world_load_checkpoint_file(s->world, path)
                    : sinew_body_load_checkpoint_file(s->body, path);
}

/* ------------------------------------------------------------ outputs */

int sim_world_write_meshes(const options *o, const sim *s)
{
    for (uint32_t k = 0; k < s->other_count; k++) {
        const sim_body *b = &s->others[k];
        char path[4096];
        snprintf(path, sizeof path, "%s/final-%u.obj", o->out_dir, k + 1);
        if (sinew_body_read_positions(b->body, b->xyz, b->n) != SINEW_RESULT_OK ||
            !sim_write_obj(path, b->xyz, b->n, b->tris, b->tri_count, s->origin))
            return 0;
    }
    return 1;
}

/* The lowest point and the centre of a body's particles (m). */
static void extent(const float *xyz, uint32_t n, double *lowest, double centre[3])
{
    *lowest = INFINITY;
    centre[0] = centre[1] = centre[2] = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        *lowest = fmin(*lowest, xyz[3 * i + 1]);
        for (int c = 0; c < 3; c++)
            centre[c] += xyz[3 * i + c] / (double)n;
    }
}

/* A lowest height and a centre in the body's frame, into the world's. */
static void world_place(const sim *s, double *lowest, double centre[3])
{
    *lowest += s->origin[1];
    for (int c = 0; c < 3; c++)
        centre[c] += s->origin[c];
}

void sim_world_summary(const options *o, const sim *s, uint64_t steps)
{
    if (!s->world)
        return;
    const sinew_world_stats ws = sinew_world_get_stats(s->world);
    printf("  world           %u bodies in %u chains (batches and bodies of their own), contacts %s: %u dispatches, "
           "%u barriers, %u submit%s and %u host wait%s per step\n",
           ws.body_count, ws.chain_count, o->no_contacts ? "off" : "within each batch", ws.dispatches, ws.barriers,
           ws.submits, ws.submits == 1 ? "" : "s", ws.host_waits, ws.host_waits == 1 ? "" : "s");
    for (uint32_t k = 0; k < s->other_count && steps; k++) {
        const sim_body *b = &s->others[k];
        double lowest = NAN, centre[3] = {NAN, NAN, NAN};
        if (sinew_body_read_positions(b->body, b->xyz, b->n) == SINEW_RESULT_OK)
            extent(b->xyz, b->n, &lowest, centre);
        world_place(s, &lowest, centre);
        printf("  body %-10u  %s: %u particles, %u tetrahedra (%s); lowest y %.3g m, centre %.3g,%.3g,%.3g m; "
               "final mesh %s/final-%u.obj\n",
               k + 1, b->name, b->n, b->tet_count, sinew_solver_label(b->solver), lowest, centre[0], centre[1],
               centre[2], o->out_dir, k + 1);
    }
}

int sim_world_hashes(const sim *s)
{
    uint64_t h;
    if (sinew_body_state_hash(s->body, &h) != SINEW_RESULT_OK)
        return 0;
    printf("  body 0 state hash %016llx\n", (unsigned long long)h);
    for (uint32_t k = 0; k < s->other_count; k++) {
        if (sinew_body_state_hash(s->others[k].body, &h) != SINEW_RESULT_OK)
            return 0;
        printf("  body %u state hash %016llx\n", k + 1, (unsigned long long)h);
    }
    if (sinew_world_state_hash(s->world, &h) != SINEW_RESULT_OK)
        return 0;
    printf("  state hash      %016llx\n", (unsigned long long)h);
    return 1;
}

#ifdef SINEW_HAVE_CJSON
/* One body of the JSON's array: what the summary says of it. */
static void json_body(cJSON *list, const options *o, const sim *s, const char *name, sinew_solver solver,
                      sinew_body *body, float *xyz, uint32_t n, uint32_t tets, const char *mesh)
{
    double lowest = NAN, centre[3] = {NAN, NAN, NAN};
    uint64_t h = 0;
    if (sinew_body_read_positions(body, xyz, n) == SINEW_RESULT_OK)
        extent(xyz, n, &lowest, centre);
    world_place(s, &lowest, centre);
    cJSON *b = cJSON_CreateObject();
    cJSON_AddItemToArray(list, b);
    cJSON_AddStringToObject(b, "name", name);
    cJSON_AddStringToObject(b, "solver", sinew_solver_name(solver));
    cJSON_AddNumberToObject(b, "particles", n);
    cJSON_AddNumberToObject(b, "tets", tets);
    cJSON_AddStringToObject(b, "mesh", mesh);
    if (isfinite(lowest))
        cJSON_AddNumberToObject(b, "lowest_y", lowest);
    else
        cJSON_AddNullToObject(b, "lowest_y");
    if (isfinite(centre[0] + centre[1] + centre[2]))
        cJSON_AddItemToObject(b, "centre", cJSON_CreateDoubleArray(centre, 3));
    char hex[17];
    if (o->hash && sinew_body_state_hash(body, &h) == SINEW_RESULT_OK) {
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
        cJSON_AddStringToObject(b, "state_hash", hex);
    }
    cJSON_AddNumberToObject(b, "max_speed_batch", (double)sinew_body_get_stats(body).max_speed);
}

void sim_world_json(cJSON *j, const options *o, const sim *s)
{
    if (!s->world)
        return;
    const sinew_world_stats ws = sinew_world_get_stats(s->world);
    cJSON *w = cJSON_AddObjectToObject(j, "world");
    cJSON_AddNumberToObject(w, "bodies", ws.body_count);
    cJSON_AddNumberToObject(w, "chains", ws.chain_count);
    cJSON_AddBoolToObject(w, "contacts", !o->no_contacts);
    cJSON_AddNumberToObject(w, "dispatches_per_step", ws.dispatches);
    cJSON_AddNumberToObject(w, "barriers_per_step", ws.barriers);
    cJSON_AddNumberToObject(w, "submits_per_step", ws.submits);
    cJSON_AddNumberToObject(w, "host_waits_per_step", ws.host_waits);
    cJSON *list = cJSON_AddArrayToObject(j, "bodies");
    char mesh[4096];
    snprintf(mesh, sizeof mesh, "%s/final.obj", o->out_dir);
    json_body(list, o, s, s->name, o->solver, s->body, s->xyz, s->ai.particle_count, s->ai.tet_count, mesh);
    for (uint32_t k = 0; k < s->other_count; k++) {
        const sim_body *b = &s->others[k];
        snprintf(mesh, sizeof mesh, "%s/final-%u.obj", o->out_dir, k + 1);
        json_body(list, o, s, b->name, b->solver, b->body, b->xyz, b->n, b->tet_count, mesh);
    }
}
#endif

/* ------------------------------------------------------------ crossings */

int sim_world_crossings(const sim *s, uint64_t *out)
{
    uint64_t n = s->ai.particle_count, t = s->tri_count;
    for (uint32_t k = 0; k < s->other_count; k++)
        n += s->others[k].n, t += s->others[k].tri_count;
    float *xyz = malloc(sizeof *xyz * 3 * (n + 1));
    uint32_t *tris = malloc(sizeof *tris * 3 * (t + 1));
    sinew_logger lg = sinew_logger_default();
    lg.level = SINEW_LOG_WARNING;
    int ok = xyz && tris;
    if (!ok)
        fprintf(stderr, "sinew-sim: out of host memory\n");
    /* every body's own pairs, then all bodies' together: the difference is
     * the pairs of two bodies */
    uint64_t own = 0, at_n = 0, at_t = 0;
    sinew_intersect_report rep;
    for (uint32_t k = 0; ok && k <= s->other_count; k++) {
        const float *bx = k ? s->others[k - 1].xyz : s->xyz;
        const uint32_t bn = k ? s->others[k - 1].n : s->ai.particle_count;
        const uint32_t *bt = k ? s->others[k - 1].tris : s->tris, btc = k ? s->others[k - 1].tri_count : s->tri_count;
        memcpy(xyz + 3 * at_n, bx, sizeof *xyz * 3 * bn);
        for (uint32_t q = 0; q < 3 * btc; q++)
            tris[3 * at_t + q] = bt[q] + (uint32_t)at_n;
        ok = sinew_count_intersections(bx, bn, bt, btc, &lg, &rep) == SINEW_RESULT_OK;
        own += rep.pairs;
        at_n += bn, at_t += btc;
    }
    ok = ok && sinew_count_intersections(xyz, (uint32_t)n, tris, (uint32_t)t, &lg, &rep) == SINEW_RESULT_OK;
    if (ok)
        *out = rep.pairs - own;
    free(xyz);
    free(tris);
    return ok;
}
