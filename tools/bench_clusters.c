/* sinew-bench --suite clusters: XPBD Gauss-Seidel swept colour by colour (a
 * dispatch and a barrier per colour) against clustered sweeps (a dispatch per
 * pass; docs/colouring.md), side by side in one run on the same cloth: the
 * dispatches and barriers a step records, its time, and the strain it leaves
 * at equal substeps and iterations. The hanging cloth of the other suites
 * (1 m, pinned at two corners), 64 x 64 and 256 x 256 particles. Writes
 * clusters.csv and README.md. */
#include <sinew/sinew.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "prep/cloth.h"
#include "prep/mesh.h"

typedef struct config { uint32_t side, substeps, iterations, steps; } config;

static const config configs[] = {
    {64, 16, 1, 120}, /* sinew-sim's default scene: 16 substeps of one iteration */
    {64, 8, 4, 120},
    {256, 16, 1, 20},
};

static sinew_asset *cloth(uint32_t side, uint32_t cluster_particles)
{
    sinew_mesh m;
    const double origin[3] = {0.0, 1.0, 0.0};
    sinew_asset *a = NULL;
    if (sinew_mesh_grid(side, side, 1.0, 1.0, SINEW_GRID_XZ, origin, &m) != SINEW_RESULT_OK)
        return NULL;
    sinew_cloth_options opt = sinew_cloth_options_default();
    uint32_t pins[2] = {0, side - 1};
    opt.pin_indices = pins;
    opt.pin_count = 2;
    opt.cluster_particles = cluster_particles;
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    sinew_cloth_build(&m, &opt, &quiet, &a, NULL);
    sinew_mesh_free(&m);
    return a;
}

typedef struct result {
    double ms_gpu, ms_wall;       /* per step */
    uint32_t dispatches, barriers; /* per step */
    float max_strain, rms_strain; /* after the last step */
    double mean_max, mean_rms;    /* over the steps */
} result;

static int run(sinew_context *ctx, const sinew_asset *a, const config *c, int clustered, result *out)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    d.substeps = c->substeps;
    d.iterations = c->iterations;
    d.timestamps = 1;
    d.sweep_layout = clustered ? SINEW_SWEEP_LAYOUT_CLUSTERS : SINEW_SWEEP_LAYOUT_COLOURS;
    sinew_body *b = NULL;
    if (sinew_body_create(ctx, a, &d, &b) != SINEW_RESULT_OK)
        return 0;
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    sinew_result r = sinew_body_step(b, &p); /* warm-up */
    double gpu = 0.0;
    const double t0 = bench_now_s();
    for (uint32_t s = 0; s < c->steps && r == SINEW_RESULT_OK; s++) {
        r = sinew_body_step(b, &p);
        sinew_step_stats st = sinew_body_get_stats(b);
        gpu += st.ms_total;
        out->dispatches = st.dispatches;
        out->barriers = st.barriers;
    }
    out->ms_wall = 1e3 * (bench_now_s() - t0) / c->steps;
    out->ms_gpu = gpu / c->steps;
    if (r == SINEW_RESULT_OK) { /* the same steps again, measuring the strain (two dispatches more) */
        d.residual = 1;
        sinew_body_destroy(b);
        b = NULL;
        r = sinew_body_create(ctx, a, &d, &b);
        for (uint32_t s = 0; s <= c->steps && r == SINEW_RESULT_OK; s++) {
            r = sinew_body_step(b, &p);
            sinew_step_stats st = sinew_body_get_stats(b);
            out->mean_max += st.max_strain / (c->steps + 1.0);
            out->mean_rms += st.rms_strain / (c->steps + 1.0);
        }
    }
    if (r == SINEW_RESULT_OK) {
        sinew_step_stats st = sinew_body_get_stats(b);
        out->max_strain = st.max_strain;
        out->rms_strain = st.rms_strain;
    }
    sinew_body_destroy(b);
    return r == SINEW_RESULT_OK;
}

static int run_clusters(sinew_context *ctx, const void *options, const char *out)
{
    const int dry = *(const int *)options;
    FILE *csv, *md;
    if (!bench_open_results(out, "clusters.csv", &csv, &md))
        return 0;
    sinew_device_probe probe = {0};
    sinew_context_probe(ctx, &probe);
    fprintf(csv, "particles,substeps,iterations,sweep,colours,passes,dispatches_per_step,barriers_per_step,"
                 "ms_gpu_per_step,ms_wall_per_step,dispatch_floor_ms,max_strain,rms_strain,mean_max_strain,"
                 "mean_rms_strain\n");
    fprintf(md, "# sinew-bench: clusters suite on %s\n\n", sinew_context_get_device_info(ctx).name);
    fprintf(md, "XPBD Gauss-Seidel on a 1 m cloth hanging from two corners (no ground), swept colour by colour (a "
                "dispatch and a barrier per colour) and in clustered passes (a dispatch and a barrier per pass; "
                "docs/colouring.md), one asset, so the same mesh and colouring, one after the other in this process. Strain "
                "|C|/L of the distance constraints after the last of the steps given, and its mean over them (the "
                "cloth falls from flat and swings, so one step's figure depends on where the swing is); time per "
                "step from GPU timestamps "
                "(wall clock beside it). The dispatch floor is the step's dispatches times the probe's dependent "
                "dispatch (%.2f us here): what synchronisation alone costs.\n\n",
            probe.dispatch_us);
    fprintf(md, "| particles | substeps x iterations | steps | sweep | dispatches a sweep | dispatches / step | "
                "barriers / step | GPU ms / step | wall ms / step | dispatch floor ms | max strain | RMS strain | "
                "mean max strain | mean RMS strain |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int ok = 1;
    for (size_t k = 0; k < sizeof configs / sizeof configs[0] && ok; k++) {
        config c = configs[k];
        if (dry) {
            c.side = 24;
            c.steps = 2;
        }
        sinew_asset *a = cloth(c.side, SINEW_CLUSTER_DEFAULT_PARTICLES); /* both layouts from one asset */
        for (int clustered = 0; clustered < 2 && ok; clustered++) {
            result res = {0};
            ok = a && run(ctx, a, &c, clustered, &res);
            if (!ok)
                break;
            uint32_t sweep = clustered ? a->cpass_count : a->colour_count;
            double floor_ms = res.dispatches * probe.dispatch_us * 1e-3;
            const char *name = clustered ? "clusters" : "colours";
            fprintf(csv, "%u,%u,%u,%s,%u,%u,%u,%u,%.4f,%.4f,%.4f,%.6g,%.6g,%.6g,%.6g\n", a->particle_count,
                    c.substeps, c.iterations, name, a->colour_count, a->cpass_count, res.dispatches, res.barriers,
                    res.ms_gpu, res.ms_wall, floor_ms, res.max_strain, res.rms_strain, res.mean_max, res.mean_rms);
            fprintf(md, "| %u | %u x %u | %u | %s | %u | %u | %u | %.2f | %.2f | %.2f | %.4g | %.4g | %.4g | %.4g |\n",
                    a->particle_count, c.substeps, c.iterations, c.steps, name, sweep, res.dispatches, res.barriers,
                    res.ms_gpu, res.ms_wall, floor_ms, res.max_strain, res.rms_strain, res.mean_max, res.mean_rms);
            fprintf(stderr, "sinew-bench: clusters %6u particles %2u x %u %-8s: %4u dispatches/step, %8.2f ms GPU, "
                    "strain max %.4g rms %.4g, mean max %.4g rms %.4g\n", a->particle_count, c.substeps,
                    c.iterations, name, res.dispatches, res.ms_gpu, res.max_strain, res.rms_strain, res.mean_max,
                    res.mean_rms);
        }
        sinew_asset_destroy(a);
    }
    fclose(csv);
    fclose(md);
    return ok;
}

int bench_clusters_suite(const bench_args *a)
{
    static int dry;
    dry = a->dry_run;
    return bench_on_device(a, "clusters", run_clusters, &dry);
}
