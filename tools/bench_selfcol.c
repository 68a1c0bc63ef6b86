/* sinew-bench --suite selfcol: what self-collision costs and what it buys,
 * side by side in one run on the same cloth. A 1 m square cloth hanging
 * vertically with its lower edge 5 cm above the ground falls and folds onto
 * itself (64 x 64 and 256 x 256 particles), XPBD Gauss-Seidel at 8 substeps
 * of 2 iterations, once without self-collision and once with it (thickness
 * a third of the edge length): time per step, self-collision's share of it, candidates, contacts,
 * dropped candidates, and the intersecting pairs of triangles after the
 * last step (src/prep/intersect.c). Writes selfcol.csv and README.md. */
#include <sinew/sinew.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "prep/cloth.h"
#include "prep/intersect.h"
#include "prep/mesh.h"

typedef struct config { uint32_t side, steps; } config;

static const config configs[] = {
    {64, 150}, /* long enough to land and fold */
    {256, 8},  /* lavapipe: the cost of the first steps only */
};

/* The cloth hangs with a few waves across it (sinew_mesh_curtain), so that
 * it buckles and folds as it lands rather than standing on its edge. */
static sinew_asset *hanging(uint32_t side)
{
    sinew_mesh m;
    if (sinew_mesh_curtain(side, &m) != SINEW_RESULT_OK)
        return NULL;
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.free_parts = 1;
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    sinew_asset *a = NULL;
    sinew_cloth_build(&m, &opt, &quiet, &a, NULL);
    sinew_mesh_free(&m);
    return a;
}

typedef struct result {
    double ms_gpu, ms_wall;             /* per step */
    uint32_t dispatches, barriers;      /* per step */
    double candidates, contacts;        /* per step */
    uint64_t dropped;                   /* in all */
    uint64_t intersections;             /* after the last step */
    int stable;
} result;

static int run(sinew_context *ctx, const sinew_asset *a, const config *c, int self, result *out)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.substeps = 8;
    d.iterations = 4;
    d.timestamps = 1;
    d.residual = 0;
    d.self_collision = self;
    d.self_thickness = (float)(1.0 / (c->side - 1) / 3.0); /* a third of the edge (docs/self-collision.md) */
    sinew_body *b = NULL;
    if (sinew_body_create(ctx, a, &d, &b) != SINEW_RESULT_OK)
        return 0;
    sinew_step_params p = sinew_step_params_default();
    sinew_result r = SINEW_RESULT_OK;
    double gpu = 0.0;
    const double t0 = bench_now_s();
    for (uint32_t s = 0; s < c->steps && r == SINEW_RESULT_OK; s++) {
        r = sinew_body_step(b, &p);
        sinew_step_stats st = sinew_body_get_stats(b);
        gpu += st.ms_total;
        out->dispatches = st.dispatches;
        out->barriers = st.barriers;
        out->candidates += (double)st.self_candidates / c->steps;
        out->contacts += (double)st.self_contacts / c->steps;
        out->dropped += st.self_dropped;
    }
    out->ms_wall = 1e3 * (bench_now_s() - t0) / c->steps;
    out->ms_gpu = gpu / c->steps;
    out->stable = r == SINEW_RESULT_OK;
    const uint32_t n = a->particle_count;
    float *xyz = malloc(sizeof *xyz * 3 * n);
    uint32_t tri_count = 0;
    const uint32_t *tris = sinew_asset_get_triangles(a, &tri_count);
    sinew_intersect_report rep = {0};
    int ok = xyz && sinew_body_read_positions(b, xyz, n) == SINEW_RESULT_OK &&
             sinew_count_intersections(xyz, n, tris, tri_count, NULL, &rep) == SINEW_RESULT_OK;
    out->intersections = rep.pairs;
    free(xyz);
    sinew_body_destroy(b);
    return ok;
}

static int run_selfcol(sinew_context *ctx, const void *options, const char *out)
{
    const int dry = *(const int *)options;
    FILE *csv, *md;
    if (!bench_open_results(out, "selfcol.csv", &csv, &md))
        return 0;
    sinew_device_probe probe = {0};
    sinew_context_probe(ctx, &probe);
    fprintf(csv, "particles,steps,self_collision,dispatches_per_step,barriers_per_step,ms_gpu_per_step,"
                 "ms_wall_per_step,self_share,candidates_per_step,contacts_per_step,dropped,intersections,stable\n");
    fprintf(md, "# sinew-bench: selfcol suite on %s\n\n", sinew_context_get_device_info(ctx).name);
    fprintf(md, "A 1 m cloth hanging vertically with a few waves across it, its lower edge 5 cm above the ground, falls and folds onto itself "
                "(XPBD Gauss-Seidel, 8 substeps x 4 iterations, 60 steps a second), without and with "
                "self-collision (thickness a third of the edge: 5.3 mm at 64 x 64, 1.3 mm at 256 x 256; capacity 16), one after the other in this process. Time per step "
                "from GPU timestamps (wall clock beside it); self-collision's share is (with - without) / with. "
                "Candidates (each pair counted from both sides) and contact projections per step on average; "
                "dropped candidates in all; intersecting pairs of triangles sharing no vertex after the last step "
                "(src/prep/intersect.c). The dispatch floor is the step's dispatches times the probe's dependent "
                "dispatch (%.2f us here).\n\n",
            probe.dispatch_us);
    fprintf(md, "| particles | steps | self-collision | dispatches / step | barriers / step | GPU ms / step | "
                "wall ms / step | dispatch floor ms | share | candidates / step | contacts / step | dropped | "
                "intersecting pairs | stable |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int ok = 1;
    for (size_t k = 0; k < sizeof configs / sizeof configs[0] && ok; k++) {
        config c = configs[k];
        if (dry) {
            c.side = 16;
            c.steps = 3;
        }
        sinew_asset *a = hanging(c.side);
        result res[2] = {{0}};
        for (int self = 0; self < 2 && ok; self++) {
            ok = a && run(ctx, a, &c, self, &res[self]);
            if (!ok)
                break;
            const result *rr = &res[self];
            double share = self ? (rr->ms_gpu - res[0].ms_gpu) / rr->ms_gpu : 0.0;
            double floor_ms = rr->dispatches * probe.dispatch_us * 1e-3;
            fprintf(csv, "%u,%u,%d,%u,%u,%.4f,%.4f,%.4f,%.1f,%.1f,%llu,%llu,%d\n", a->particle_count, c.steps, self,
                    rr->dispatches, rr->barriers, rr->ms_gpu, rr->ms_wall, share, rr->candidates, rr->contacts,
                    (unsigned long long)rr->dropped, (unsigned long long)rr->intersections, rr->stable);
            fprintf(md, "| %u | %u | %s | %u | %u | %.2f | %.2f | %.2f | %s%.0f%%%s | %.0f | %.0f | %llu | %llu | %s |\n",
                    a->particle_count, c.steps, self ? "on" : "off", rr->dispatches, rr->barriers, rr->ms_gpu,
                    rr->ms_wall, floor_ms, self ? "" : "(", 100.0 * share, self ? "" : ")", rr->candidates,
                    rr->contacts, (unsigned long long)rr->dropped, (unsigned long long)rr->intersections,
                    rr->stable ? "yes" : "NO");
            fprintf(stderr, "sinew-bench: selfcol %6u particles %-3s: %4u dispatches/step, %8.2f ms GPU, share %.0f%%, "
                    "%.0f candidates, %.0f contacts, %llu dropped, %llu intersecting pairs\n", a->particle_count,
                    self ? "on" : "off", rr->dispatches, rr->ms_gpu, 100.0 * share, rr->candidates, rr->contacts,
                    (unsigned long long)rr->dropped, (unsigned long long)rr->intersections);
        }
        sinew_asset_destroy(a);
    }
    fclose(csv);
    fclose(md);
    return ok;
}

int bench_selfcol_suite(const bench_args *a)
{
    static int dry;
    dry = a->dry_run;
    return bench_on_device(a, "selfcol", run_selfcol, &dry);
}
