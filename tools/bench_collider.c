/* sinew-bench --suite collider: what a triangle-mesh collider costs.
 *
 *   build    the distance field of real models (CGAL's demo meshes) and of an
 *            icosphere at 32, 64 and 128 cells along the longest side: host
 *            milliseconds, nodes, device memory; for the icosphere, the
 *            field's largest error within 2 cm of the sphere it approximates;
 *   contacts a cloth falling on a ball for `steps` steps after as many to
 *            land, XPBD (8 substeps): the GPU's milliseconds per step in the
 *            contact phase and in all, with no collider, the analytic sphere
 *            and a 64-cell field of a 20 480-triangle icosphere of it. */
#define _POSIX_C_SOURCE 200809L
#include "bench_collider.h"
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prep/cloth.h"
#include "shapes.h"

#define BALL_RADIUS 0.3

bench_collider_options bench_collider_options_default(void)
{
    return (bench_collider_options){.meshes = NULL, .steps = 60, .cloth = 64, .dry_run = 0};
}

typedef struct build_row {
    char mesh[64];
    uint32_t triangles, resolution, open_edges;
    uint32_t dims[3];
    double ms, mib, error; /* error: icosphere only, else < 0 */
} build_row;

static int build_one(sinew_context *ctx, const char *name, const shape *m, uint32_t resolution, build_row *row)
{
    sinew_collider_desc cd = shape_desc(m, resolution);
    cd.name = name;
    sinew_collider *c = NULL;
    if (sinew_collider_create(ctx, &cd, &c) != SINEW_RESULT_OK)
        return 0;
    sinew_collider_info ci = sinew_collider_get_info(c);
    memset(row, 0, sizeof *row);
    snprintf(row->mesh, sizeof row->mesh, "%s", name);
    row->triangles = m->triangle_count;
    row->resolution = resolution;
    row->open_edges = ci.open_edges;
    memcpy(row->dims, ci.dims, sizeof row->dims);
    row->ms = ci.build_ms;
    row->mib = ci.device_memory / 1048576.0;
    row->error = -1.0;
    if (!strcmp(name, "icosphere")) { /* points on a fixed spiral through the 2 cm shell */
        for (int q = 0; q < 20000; q++) {
            double z = 1.0 - 2.0 * (q + 0.5) / 20000, rho = sqrt(1.0 - z * z), phi = q * 2.399963229728653;
            double rad = BALL_RADIUS - 0.02 + 0.04 * ((q * 7919) % 1000) / 999.0;
            float p[3] = {(float)(rad * rho * cos(phi)), (float)(rad * rho * sin(phi)), (float)(rad * z)};
            double e = fabs(sinew_collider_distance(c, p, NULL) - (rad - BALL_RADIUS));
            row->error = e > row->error ? e : row->error;
        }
    }
    sinew_collider_destroy(c);
    return 1;
}

typedef struct contact_row {
    const char *collider;
    double ms_contacts, ms_total; /* GPU, per step, mean over the timed steps */
    double lowest;                /* the cloth's lowest particle at the end (m) */
} contact_row;

static int contacts_one(sinew_context *ctx, const bench_collider_options *o, sinew_asset *asset, int kind,
                        sinew_collider *mesh, contact_row *row)
{
    static const char *const names[3] = {"none", "analytic sphere", "mesh (icosphere, 64 cells)"};
    sinew_body_desc d = sinew_body_desc_default();
    d.collider = kind == 2 ? mesh : NULL;
    sinew_body *b = NULL;
    if (sinew_body_create(ctx, asset, &d, &b) != SINEW_RESULT_OK)
        return 0;
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.sphere = kind == 1;
    p.sphere_radius = (float)BALL_RADIUS;
    p.collider = kind == 2;
    memset(row, 0, sizeof *row);
    row->collider = names[kind];
    int ok = 1;
    for (uint32_t s = 0; s < 2 * o->steps && ok; s++) {
        ok = sinew_body_step(b, &p) == SINEW_RESULT_OK;
        sinew_step_stats st = sinew_body_get_stats(b);
        if (s >= o->steps) {
            row->ms_contacts += st.ms_contacts / o->steps;
            row->ms_total += st.ms_total / o->steps;
        }
    }
    uint32_t n = sinew_body_get_particle_count(b);
    float *x = malloc(12ull * n);
    row->lowest = 1e9;
    if (ok && x && sinew_body_read_positions(b, x, n) == SINEW_RESULT_OK)
        for (uint32_t i = 0; i < n; i++)
            row->lowest = x[3 * i + 1] < row->lowest ? x[3 * i + 1] : row->lowest;
    free(x);
    sinew_body_destroy(b);
    return ok;
}

int bench_collider(sinew_context *ctx, const bench_collider_options *o, const char *out)
{
    const char *device = sinew_context_get_device_info(ctx).name;
    const uint32_t resolutions[3] = {32, 64, 128};
    const uint32_t res_count = o->dry_run ? 1 : 3;
    const char *files[3] = {"elephant.off", "armadillo.off", "bunny00.off"};
    build_row rows[4 * 3];
    uint32_t row_count = 0;
    const double centre[3] = {0, 0, 0};
    shape ball = shape_icosphere(o->dry_run ? 3 : 5, BALL_RADIUS, centre);
    if (!ball.vertex_count)
        return 0;
    const double sag = shape_sphere_sag(&ball, BALL_RADIUS);
    int ok = 1;
    for (uint32_t k = 0; k < res_count && ok; k++)
        ok = build_one(ctx, "icosphere", &ball, resolutions[k], &rows[row_count++]);
    for (int f = 0; f < 3 && ok && o->meshes && !o->dry_run; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", o->meshes, files[f]);
        shape m = shape_read(path);
        if (!m.vertex_count) {
            fprintf(stderr, "sinew-bench: %s: cannot read; skipped\n", path);
            continue;
        }
        for (uint32_t k = 0; k < res_count && ok; k++)
            ok = build_one(ctx, files[f], &m, resolutions[k], &rows[row_count++]);
        shape_free(&m);
    }

    contact_row contacts[3];
    sinew_collider *mesh = NULL;
    sinew_collider_desc cd = shape_desc(&ball, 64);
    sinew_mesh grid;
    const double origin[3] = {0.0, BALL_RADIUS + 0.1, 0.0};
    sinew_asset *asset = NULL;
    sinew_cloth_options co = sinew_cloth_options_default();
    const uint32_t n = o->dry_run ? 16 : o->cloth;
    ok = ok && sinew_collider_create(ctx, &cd, &mesh) == SINEW_RESULT_OK &&
         sinew_mesh_grid(n, n, 1.0, 1.0, SINEW_GRID_XZ, origin, &grid) == SINEW_RESULT_OK;
    if (ok) {
        ok = sinew_cloth_build(&grid, &co, NULL, &asset, NULL) == SINEW_RESULT_OK;
        sinew_mesh_free(&grid);
    }
    for (int kind = 0; kind < 3 && ok; kind++)
        ok = contacts_one(ctx, o, asset, kind, mesh, &contacts[kind]);
    sinew_asset_destroy(asset);
    sinew_collider_destroy(mesh);
    shape_free(&ball);
    if (!ok) {
        fprintf(stderr, "sinew-bench: the collider suite failed\n");
        return 0;
    }

    FILE *csv, *md;
    if (!bench_open_results(out, "collider.csv", &csv, &md))
        return 0;
    fprintf(csv, "part,mesh,triangles,resolution,nodes,build_ms,device_mib,max_error_m,collider,ms_contacts,ms_total\n");
    fprintf(md, "# sinew-bench: collider suite on %s\n\n", device);
    fprintf(md, "What a triangle-mesh collider (docs/collider.md) costs. Made by `tools/bench.sh collider` "
                "(`sinew-bench --suite collider`).\n\n## Building the distance field (host, one thread)\n\n"
                "Cells along the mesh's longest side; the grid reaches four cells beyond the mesh. For the "
                "icosphere (radius %.1f m), the field's largest error against the sphere within 2 cm of its "
                "surface (20 000 points; the mesh itself lies within %.1e m of the sphere).\n\n"
                "| mesh | triangles | cells | nodes | build ms | device MiB | error (m) |\n"
                "|---|---|---|---|---|---|---|\n", BALL_RADIUS, sag);
    for (uint32_t k = 0; k < row_count; k++) {
        const build_row *r = &rows[k];
        uint64_t nodes = (uint64_t)r->dims[0] * r->dims[1] * r->dims[2];
        char err[32] = "";
        if (r->error >= 0.0)
            snprintf(err, sizeof err, "%.2e", r->error);
        fprintf(md, "| %s%s | %u | %u | %u x %u x %u | %.0f | %.2f | %s |\n", r->mesh,
                r->open_edges ? " (open)" : "", r->triangles, r->resolution, r->dims[0], r->dims[1], r->dims[2],
                r->ms, r->mib, err);
        fprintf(csv, "build,%s,%u,%u,%llu,%.3f,%.4f,%s,,,\n", r->mesh, r->triangles, r->resolution,
                (unsigned long long)nodes, r->ms, r->mib, err);
    }
    if (!o->meshes)
        fprintf(md, "\nCGAL's models were not measured: SINEW_CGAL_DATA was not set (tools/run.sh fetches them).\n");
    fprintf(md, "\n## Contacts on the device\n\nA %u x %u cloth (1 m) falling on a ball of radius %.1f m, XPBD "
                "Gauss-Seidel, 8 substeps: the GPU's time per step (timestamps) in the contact phase and in "
                "all, the mean of %u steps after %u to land; the lowest particle at the end.\n\n"
                "| collider | contacts ms / step | step ms | lowest (m) |\n|---|---|---|---|\n",
            n, n, BALL_RADIUS, o->steps, o->steps);
    for (int k = 0; k < 3; k++) {
        fprintf(md, "| %s | %.3f | %.3f | %.3f |\n", contacts[k].collider, contacts[k].ms_contacts,
                contacts[k].ms_total, contacts[k].lowest);
        fprintf(csv, "contacts,,,,,,,,%s,%.4f,%.4f\n", contacts[k].collider, contacts[k].ms_contacts,
                contacts[k].ms_total);
    }
    int closed = fclose(csv) == 0;
    closed = fclose(md) == 0 && closed;
    if (!closed)
        fprintf(stderr, "sinew-bench: cannot write into %s\n", out);
    return closed;
}

static int run_collider(sinew_context *ctx, const void *o, const char *out) { return bench_collider(ctx, o, out); }

/* sinew-bench --suite collider: CGAL's models from SINEW_CGAL_DATA, --steps
 * timed steps; a dry run times 4. */
int bench_collider_suite(const bench_args *a)
{
    bench_collider_options o = a->collider;
    char meshes[1024];
    const char *cgal = getenv("SINEW_CGAL_DATA");
    if (cgal && *cgal) {
        snprintf(meshes, sizeof meshes, "%s/meshes", cgal);
        o.meshes = meshes;
    }
    o.dry_run = a->dry_run;
    if (a->dry_run)
        o.steps = 4;
    else if (a->steps)
        o.steps = a->steps;
    return bench_on_device(a, "collider", run_collider, &o);
}
