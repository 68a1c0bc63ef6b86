/* sinew-bench --suite accuracy-cloth: the static error estimate of cloth
 * (sinew_body_estimate_error, docs/accuracy.md "Cloth and spring networks")
 * against the true error. Two XPBD cloths rest under gravity (dt 1/60 s,
 * damping 4/s, no ground) at 16 substeps and 2 to 16 iterations: one of
 * 24 x 24 vertices hanging from two corners (stretch and shear compliance
 * 1e-3), which a few iterations converge, and a 16 x 16 trampoline (every
 * edge pinned, compliance 1e-4: it sags by bending), which they leave far
 * too deep. Each resting cloth's estimate beside its true error
 * |x - x*|_M / |x* - X|_M against the exact equilibrium of the same energy
 * (the CPU double reference tests/ref/cloth_static_ref.c: Newton on a
 * finite-difference Hessian, dense Cholesky), and what the estimate cost on
 * the host. Writes accuracy-cloth.csv and README.md. */
#include <sinew/sinew.h>
#include <sinew/prep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "bench.h"
#include "ref/cloth_static_ref.h"

typedef struct scene {
    const char *name;
    uint32_t side;
    int trampoline;
    float compliance;
} scene;

static const scene scenes[] = {
    {"hanging from two corners", 24, 0, 1e-3f},
    {"trampoline (every edge pinned)", 16, 1, 1e-4f},
};
static const uint32_t iterations[] = {2, 4, 8, 16};

static sinew_asset *grid(const scene *sc, uint32_t side, const sinew_logger *lg)
{
    sinew_prep_grid g = sinew_prep_grid_default();
    g.nx = g.ny = side;
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    sinew_prep_output bytes = {0};
    sinew_asset *a = NULL;
    sinew_result r = sinew_prep_cloth_grid(&g, &o, lg, &bytes);
    if (r == SINEW_RESULT_OK)
        r = sinew_asset_load_memory(bytes.bytes, bytes.size, "grid", lg, &a);
    sinew_prep_output_free(&bytes);
    if (r != SINEW_RESULT_OK)
        return NULL;
    if (sc->trampoline)
        for (uint32_t i = 0; i < a->particle_count; i++) {
            const uint32_t row = i / side, col = i % side;
            if (row == 0 || col == 0 || row == side - 1 || col == side - 1)
                a->particles[i].w = 0.0f;
        }
    return a;
}

typedef struct result {
    uint32_t steps;
    int rested;
    double truth, ms_estimate;
    sinew_static_error est;
} result;

static int run(sinew_context *ctx, const sinew_asset *a, const scene *sc, uint32_t its, uint32_t max_steps,
               result *out)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_XPBD_GAUSS_SEIDEL;
    d.substeps = 16;
    d.iterations = its;
    d.stretch_compliance = d.shear_compliance = sc->compliance;
    sinew_body *b = NULL;
    if (sinew_body_create(ctx, a, &d, &b) != SINEW_RESULT_OK)
        return 0;
    sinew_step_params p = sinew_step_params_default();
    p.ground = 0;
    p.damping = 4.0f;
    const uint32_t n = a->particle_count;
    float *x = malloc(sizeof *x * 3 * n), *x0 = malloc(sizeof *x0 * 3 * n);
    double *ref = malloc(sizeof *ref * 3 * n);
    sinew_result r = SINEW_RESULT_OK;
    out->rested = 0;
    /* at rest: no particle moved more than 1e-6 m over the last 10 steps */
    uint32_t s = 0;
    for (; s < max_steps && r == SINEW_RESULT_OK && !out->rested; s++) {
        r = sinew_body_step(b, &p);
        if (r == SINEW_RESULT_OK && (s + 1) % 10 == 0) {
            r = sinew_body_read_positions(b, x, n);
            double most = 0.0;
            for (uint32_t i = 0; s >= 10 && i < 3 * n; i++)
                most = fmax(most, fabs((double)x[i] - x0[i]));
            out->rested = s >= 10 && most < 1e-6;
            memcpy(x0, x, sizeof *x * 3 * n);
        }
    }
    out->steps = s;
    const double t0 = bench_now_s();
    if (r == SINEW_RESULT_OK)
        r = sinew_body_estimate_error(b, &p, &out->est);
    out->ms_estimate = 1e3 * (bench_now_s() - t0);
    if (r == SINEW_RESULT_OK)
        r = sinew_body_read_positions(b, x, n);
    int ok = r == SINEW_RESULT_OK;
    for (uint32_t i = 0; ok && i < 3 * n; i++)
        ref[i] = x[i];
    const double alpha[3] = {sc->compliance, sc->compliance, d.bend_compliance};
    const double g[3] = {p.gravity[0], p.gravity[1], p.gravity[2]};
    ok = ok && cloth_static_ref_solve(a, alpha, g, 1e-8, 60, ref) >= 0;
    double du = 0.0, uu = 0.0;
    for (uint32_t i = 0; ok && i < n; i++)
        for (int k = 0; k < 3; k++) {
            const double m = a->particles[i].w > 0.0f ? 1.0 / a->particles[i].w : 0.0;
            const double e = x[3 * i + k] - ref[3 * i + k], u = ref[3 * i + k] - (&a->particles[i].x)[k];
            du += m * e * e;
            uu += m * u * u;
        }
    out->truth = ok ? sqrt(du / uu) : NAN;
    if (!ok)
        fprintf(stderr, "sinew-bench: accuracy-cloth: %s, 16 x %u: the run, the estimate or the reference failed\n",
                sc->name, its);
    free(x), free(x0), free(ref);
    sinew_body_destroy(b);
    return ok;
}

typedef struct options { int dry; } options;

static int run_cloth(sinew_context *ctx, const void *opt, const char *out)
{
    const options *o = opt;
    FILE *csv, *md;
    if (!bench_open_results(out, "accuracy-cloth.csv", &csv, &md))
        return 0;
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_ERROR;
    fprintf(csv, "scene,vertices,compliance,substeps,iterations,steps,rested,true_error,estimate,cg_iterations,"
                 "cg_converged,ms_estimate\n");
    fprintf(md, "# sinew-bench: accuracy-cloth suite on %s\n\n", sinew_context_get_device_info(ctx).name);
    fprintf(md, "XPBD Gauss-Seidel cloths rest under gravity (dt 1/60 s, damping 4/s, no ground; at rest when no "
                "particle moved 1e-6 m in 10 steps, or after 400); the static error estimate "
                "(sinew_body_estimate_error) beside the true error |x - x*|_M / |x* - X|_M against the exact "
                "equilibrium of the same energy (tests/ref/cloth_static_ref.c), and the estimate's cost on the "
                "host (its CG iterations, wall ms).\n\n"
                "| cloth | vertices | compliance | substeps x iterations | steps | at rest | true error | estimate | "
                "estimate / true | CG iterations | estimate ms |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    int ok = 1;
    for (size_t si = 0; si < sizeof scenes / sizeof scenes[0] && ok; si++) {
        const scene *sc = &scenes[si];
        const uint32_t side = o->dry ? 12 : sc->side; /* a dry run: smaller, for the reference's dense solve */
        sinew_asset *a = grid(sc, side, &quiet);
        if (!a) {
            fprintf(stderr, "sinew-bench: accuracy-cloth: building the %u x %u grid failed\n", side, side);
            ok = 0;
            break;
        }
        for (size_t k = 0; k < sizeof iterations / sizeof iterations[0] && ok; k++) {
            if (o->dry && k > 0)
                break;
            result res = {0};
            ok = run(ctx, a, sc, iterations[k], o->dry ? 10 : 400, &res);
            if (!ok)
                break;
            fprintf(csv, "%s,%u,%g,16,%u,%u,%d,%.6g,%.6g,%u,%d,%.2f\n", sc->trampoline ? "trampoline" : "hanging",
                    a->particle_count, sc->compliance, iterations[k], res.steps, res.rested, res.truth,
                    res.est.error, res.est.iterations, res.est.converged, res.ms_estimate);
            fprintf(md, "| %s | %u | %g | 16 x %u | %u | %s | %.3g | %.3g | %.2f | %u%s | %.1f |\n", sc->name,
                    a->particle_count, sc->compliance, iterations[k], res.steps, res.rested ? "yes" : "no",
                    res.truth, res.est.error, res.est.error / res.truth, res.est.iterations,
                    res.est.converged ? "" : " (not converged)", res.ms_estimate);
            fprintf(stderr, "sinew-bench: accuracy-cloth %-30s 16 x %2u: error %.3g, estimate %.3g (%u CG, %.1f ms)%s\n",
                    sc->name, iterations[k], res.truth, res.est.error, res.est.iterations, res.ms_estimate,
                    res.rested ? "" : " (not at rest)");
        }
        sinew_asset_destroy(a);
    }
    fclose(csv);
    fclose(md);
    return ok;
}

int bench_accuracy_cloth_suite(const bench_args *a)
{
    static options o;
    o.dry = a->dry_run;
    return bench_on_device(a, "accuracy-cloth", run_cloth, &o);
}
