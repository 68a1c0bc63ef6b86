/* The mgpbd suite's results: bench.json (every run's residuals, the
 * settings, the host's solves of the exported systems), README.md beside the
 * paper's claim, and the convergence plots. */
#define _POSIX_C_SOURCE 200809L
#include "bench_mgpbd_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ output */

/* XPBD's relative residual after `sweeps`, from the samples (log-linear in
 * between; negative past the last). */
static double xpbd_at(const run *rn, uint32_t sweeps)
{
    for (uint32_t i = 1; i < rn->xp_count; i++)
        if (rn->xp[i].sweeps >= sweeps) {
            const sweep_rec *p = &rn->xp[i - 1], *q = &rn->xp[i];
            if (q->sweeps == sweeps || p->sweeps == 0)
                return q->rel;
            double lp = log((double)p->sweeps), lq = log((double)q->sweeps);
            double t = (log((double)sweeps) - lp) / (lq - lp);
            return exp((1 - t) * log(p->rel) + t * log(q->rel));
        }
    return -1.0;
}

static double mgpbd_after(const run *rn, uint32_t k) { return k <= rn->mg_count ? rn->mg[k].rel : -1.0; }

static cJSON *run_json(const run *rn)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scene", rn->scene);
    cJSON_AddStringToObject(o, "name", rn->name);
    cJSON_AddBoolToObject(o, "ok", rn->ok);
    if (!rn->ok)
        cJSON_AddStringToObject(o, "failure", rn->failure);
    cJSON_AddNumberToObject(o, "tets", rn->tets);
    cJSON_AddNumberToObject(o, "particles", rn->particles);
    cJSON_AddNumberToObject(o, "pinned", rn->pinned);
    cJSON_AddNumberToObject(o, "constraints", rn->constraints);
    cJSON_AddNumberToObject(o, "element_colours", rn->colours);
    cJSON_AddNumberToObject(o, "nnz", rn->nnz);
    cJSON_AddNumberToObject(o, "tetgen_max_volume", rn->max_volume);
    cJSON_AddNumberToObject(o, "lattice_cells", rn->lattice_cells);
    cJSON_AddNumberToObject(o, "prep_ms", rn->prep_ms);
    cJSON_AddNumberToObject(o, "b0", rn->b0);
    cJSON_AddNumberToObject(o, "device_bytes", (double)rn->device_bytes);
    double per = rn->tets ? (double)rn->device_bytes / rn->tets : 0.0;
    cJSON_AddNumberToObject(o, "device_bytes_per_tet", per);
    cJSON_AddNumberToObject(o, "tets_in_80GB_extrapolated", per > 0 ? floor(GPU_BYTES / per) : 0);

    cJSON *mg = cJSON_AddObjectToObject(o, "mgpbd");
    cJSON_AddNumberToObject(mg, "outer_iterations", rn->mg_count);
    cJSON_AddNumberToObject(mg, "final_relative", rn->mg[rn->mg_count].rel);
    cJSON_AddNumberToObject(mg, "iterations_to_1e-2", rn->mg_reach);
    cJSON_AddNumberToObject(mg, "ms_to_1e-2", rn->mg_reach ? rn->mg_reach_ms : -1);
    cJSON_AddNumberToObject(mg, "total_ms", rn->mg[rn->mg_count].cum_ms);
    double steady = 0.0;
    uint32_t steady_n = 0;
    for (uint32_t k = 0; k < rn->mg_count; k++)
        if (!rn->mg[k].setup) {
            steady += rn->mg[k].ms;
            steady_n++;
        }
    cJSON_AddNumberToObject(mg, "ms_per_iteration_without_setup", steady_n ? steady / steady_n : 0);
    cJSON_AddNumberToObject(mg, "ms_first_iteration", rn->mg_count ? rn->mg[0].ms : 0);
    cJSON_AddNumberToObject(mg, "pcg_iterations_total", rn->mg_pcg_total);
    cJSON_AddNumberToObject(mg, "setups", rn->setups);
    cJSON_AddNumberToObject(mg, "amg_setup_ms", rn->setup_ms);
    cJSON_AddNumberToObject(mg, "levels", rn->levels);
    cJSON *lr = cJSON_AddArrayToObject(mg, "level_rows");
    for (uint32_t l = 0; l < rn->levels; l++)
        cJSON_AddItemToArray(lr, cJSON_CreateNumber(rn->level_rows[l]));
    cJSON *ln = cJSON_AddArrayToObject(mg, "level_nonzeros");
    for (uint32_t l = 0; l < rn->levels; l++)
        cJSON_AddItemToArray(ln, cJSON_CreateNumber(rn->level_nnz[l]));
    cJSON_AddNumberToObject(mg, "operator_complexity", rn->operator_complexity);
    cJSON_AddNumberToObject(mg, "grid_complexity", rn->grid_complexity);
    cJSON_AddNumberToObject(mg, "lazy_submits", (double)rn->lazy_submits);
    cJSON_AddNumberToObject(mg, "lazy_readback_bytes", (double)rn->lazy_readback);
    cJSON_AddNumberToObject(mg, "lazy_dispatches_recorded", (double)rn->lazy_dispatches);
    cJSON_AddNumberToObject(mg, "lazy_barriers_recorded", (double)rn->lazy_barriers);
    if (rn->profiled) {
        cJSON *pr = cJSON_AddObjectToObject(mg, "lazy_iteration_parts_ms");
        cJSON_AddNumberToObject(pr, "assembly", rn->profile.assemble_ms);
        cJSON_AddNumberToObject(pr, "products", rn->profile.products_ms);
        cJSON_AddNumberToObject(pr, "rho", rn->profile.rho_ms);
        cJSON_AddNumberToObject(pr, "cg", rn->profile.cg_ms);
        cJSON_AddNumberToObject(pr, "line_search", rn->profile.line_search_ms);
        cJSON *pd = cJSON_AddArrayToObject(mg, "lazy_iteration_parts_dispatches");
        for (int k = 0; k < 5; k++)
            cJSON_AddItemToArray(pd, cJSON_CreateNumber(rn->profile.dispatches[k]));
    }
    if (rn->old_count) {
        cJSON *old = cJSON_AddObjectToObject(o, "old_lazy_path");
        cJSON_AddStringToObject(old, "settings", "smoothed aggregation, rho on the host (every level read back)");
        cJSON_AddNumberToObject(old, "outer_iterations", rn->old_count);
        cJSON_AddNumberToObject(old, "ms_first_iteration", rn->old_first_ms);
        cJSON_AddNumberToObject(old, "ms_per_lazy_iteration", rn->old_lazy_ms);
        cJSON_AddNumberToObject(old, "pcg_per_lazy_iteration", rn->old_pcg);
        cJSON_AddNumberToObject(old, "defaults_ms_per_lazy_iteration", rn->new_lazy_ms);
        cJSON_AddNumberToObject(old, "defaults_pcg_per_lazy_iteration", rn->new_pcg);
    }
    cJSON *its = cJSON_AddArrayToObject(mg, "iterations");
    for (uint32_t k = 0; k <= rn->mg_count; k++) {
        const outer_rec *e = &rn->mg[k];
        cJSON *it = cJSON_CreateObject();
        cJSON_AddNumberToObject(it, "k", k);
        cJSON_AddNumberToObject(it, "relative", e->rel);
        cJSON_AddNumberToObject(it, "cum_ms", e->cum_ms);
        if (k < rn->mg_count) {
            cJSON_AddNumberToObject(it, "ms", e->ms);
            cJSON_AddNumberToObject(it, "pcg_iterations", e->pcg);
            cJSON_AddNumberToObject(it, "pcg_relative", e->pcg_rel == e->pcg_rel ? e->pcg_rel : -1);
            cJSON_AddBoolToObject(it, "setup", e->setup);
            cJSON_AddNumberToObject(it, "indefinite", e->indefinite);
            cJSON_AddBoolToObject(it, "coarse_diagonal", e->coarse_diagonal);
            cJSON_AddNumberToObject(it, "step", e->step);
        }
        cJSON_AddItemToArray(its, it);
    }

    cJSON *xp = cJSON_AddObjectToObject(o, "xpbd");
    cJSON_AddNumberToObject(xp, "sweeps", rn->xp[rn->xp_count - 1].sweeps);
    cJSON_AddNumberToObject(xp, "final_relative", rn->xp[rn->xp_count - 1].rel);
    cJSON_AddNumberToObject(xp, "total_ms", rn->xp[rn->xp_count - 1].cum_ms);
    cJSON_AddNumberToObject(xp, "ms_per_sweep", rn->xp_ms_per_sweep);
    cJSON *sm = cJSON_AddArrayToObject(xp, "samples");
    for (uint32_t i = 0; i < rn->xp_count; i++) {
        cJSON *it = cJSON_CreateObject();
        cJSON_AddNumberToObject(it, "sweeps", rn->xp[i].sweeps);
        cJSON_AddNumberToObject(it, "relative", rn->xp[i].rel);
        cJSON_AddNumberToObject(it, "cum_ms", rn->xp[i].cum_ms);
        cJSON_AddItemToArray(sm, it);
    }
    if (rn->amg.done || rn->jacobi.done) {
        cJSON *h = cJSON_AddArrayToObject(o, "host_amg");
        cJSON_AddItemToArray(h, host_json(rn, 0));
        cJSON_AddItemToArray(h, host_json(rn, 1));
    }
    return o;
}

static cJSON *settings_json(const bench_mgpbd_options *o)
{
    const sinew_mgpbd_desc d = solver_desc(o);
    cJSON *s = cJSON_CreateObject();
    cJSON_AddNumberToObject(s, "shear_modulus_pa", d.shear_modulus);
    cJSON_AddNumberToObject(s, "h_s", STEP_H);
    cJSON_AddStringToObject(s, "constraints", "one as-rigid-as-possible constraint per tetrahedron, no distances");
    if (o->particle_mass > 0)
        cJSON_AddNumberToObject(s, "particle_mass_kg", o->particle_mass);
    else
        cJSON_AddNumberToObject(s, "density", 1000);
    cJSON_AddNumberToObject(s, "pcg_iterations", d.pcg_iterations);
    cJSON_AddNumberToObject(s, "pcg_tolerance", d.pcg_tolerance);
    cJSON_AddNumberToObject(s, "pcg_batch", d.pcg_batch);
    cJSON_AddNumberToObject(s, "setup_interval", d.setup_interval);
    cJSON_AddStringToObject(s, "precond", d.precond == SINEW_MGPBD_PRECOND_AMG      ? "amg"
                                          : d.precond == SINEW_MGPBD_PRECOND_JACOBI ? "jacobi"
                                                                                    : "none");
    cJSON_AddNumberToObject(s, "omega", d.omega);
    cJSON_AddNumberToObject(s, "line_search", d.line_search);
    cJSON_AddBoolToObject(s, "lambda_full", d.lambda_full);
    cJSON_AddStringToObject(s, "coarse", d.coarse == SINEW_MGPBD_COARSE_GRAM ? "gram" : "product");
    cJSON_AddStringToObject(s, "rho", d.rho == SINEW_MGPBD_RHO_DEVICE ? "device" : d.rho == SINEW_MGPBD_RHO_HOST ? "host" : "keep");
    cJSON_AddStringToObject(s, "smoother", d.cycle.smoother == SINEW_AMG_CHEBYSHEV ? "chebyshev" : "jacobi");
    cJSON_AddNumberToObject(s, "smoother_sweeps", d.cycle.sweeps);
    cJSON_AddNumberToObject(s, "cheby_lower", d.cycle.cheby_lower);
    cJSON_AddNumberToObject(s, "cheby_upper", d.cycle.cheby_upper);
    cJSON_AddNumberToObject(s, "amg_strength", d.amg.strength);
    cJSON_AddNumberToObject(s, "amg_smooth", d.amg.smooth);
    cJSON_AddNumberToObject(s, "amg_candidate_sweeps", d.amg.candidate_sweeps);
    cJSON_AddNumberToObject(s, "amg_max_levels", d.amg.max_levels);
    cJSON_AddNumberToObject(s, "amg_coarse_size", d.amg.coarse_size);
    cJSON_AddStringToObject(s, "model", o->model);
    cJSON_AddStringToObject(s, "mesher", o->lattice ? "lattice" : "tetgen");
    cJSON_AddNumberToObject(s, "tetgen_quality", o->quality);
    cJSON_AddNumberToObject(s, "squash", o->squash);
    cJSON_AddNumberToObject(s, "bar_cells", o->bar_cells);
    cJSON_AddNumberToObject(s, "twist_deg", o->twist_deg);
    cJSON_AddNumberToObject(s, "outer_max", o->outer);
    cJSON_AddNumberToObject(s, "outer_stop_relative", o->stop);
    cJSON_AddNumberToObject(s, "outer_budget_s", o->outer_budget_s);
    cJSON_AddNumberToObject(s, "xpbd_sweeps_max", o->xpbd_sweeps);
    cJSON_AddStringToObject(s, "xpbd", o->xpbd_jacobi > 0 ? "jacobi" : "gauss-seidel");
    if (o->xpbd_jacobi > 0)
        cJSON_AddNumberToObject(s, "xpbd_jacobi_omega", o->xpbd_jacobi);
    cJSON_AddNumberToObject(s, "xpbd_budget_s", o->xpbd_budget_s);
    return s;
}

/* mgpbd_SCENE.dat: per run, an MGPBD block (k, relative, ms) and an XPBD
 * block (sweeps, relative, ms); mgpbd_SCENE.gp plots both against
 * iterations and against wall time. */
static int write_plot(const char *out, const char *scene, const run *runs, uint32_t count, const char *device,
                      int plots)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/mgpbd_%s.dat", out, scene);
    FILE *dat = fopen(path, "w");
    snprintf(path, sizeof path, "%s/mgpbd_%s.gp", out, scene);
    FILE *gp = fopen(path, "w");
    if (!dat || !gp) {
        if (dat)
            fclose(dat);
        if (gp)
            fclose(gp);
        return 0;
    }
    uint32_t index = 0;
    char plot_it[8192] = "", plot_ms[8192] = "";
    size_t li = 0, lm = 0;
    for (uint32_t r = 0; r < count; r++) {
        const run *rn = &runs[r];
        if (strcmp(rn->scene, scene) || !rn->ok)
            continue;
        fprintf(dat, "# %s MGPBD: outer iteration, |b|/|b0|, wall ms before it\n", rn->name);
        for (uint32_t k = 0; k <= rn->mg_count; k++)
            fprintf(dat, "%u %.6e %.3f\n", k, rn->mg[k].rel, rn->mg[k].cum_ms);
        fprintf(dat, "\n\n# %s XPBD: sweeps, |b|/|b0|, wall ms\n", rn->name);
        for (uint32_t i = 1; i < rn->xp_count; i++)
            fprintf(dat, "%u %.6e %.3f\n", rn->xp[i].sweeps, rn->xp[i].rel, rn->xp[i].cum_ms);
        fprintf(dat, "\n\n");
        const char *sep = li ? ", " : "";
        li += snprintf(plot_it + li, sizeof plot_it - li,
                       "%s'mgpbd_%s.dat' index %u using ($1 > 0 ? $1 : 1/0):2 with linespoints lw 2 pt 7 ps 0.5 "
                       "lc %u title 'MGPBD, %u tets', '' index %u using 1:2 with linespoints lw 2 dt 2 pt 6 lc %u "
                       "title 'XPBD, %u tets'",
                       sep, scene, index, r + 1, rn->tets, index + 1, r + 1, rn->tets);
        lm += snprintf(plot_ms + lm, sizeof plot_ms - lm,
                       "%s'mgpbd_%s.dat' index %u using ($3 > 0 ? $3 / 1000 : 1/0):2 with linespoints lw 2 pt 7 "
                       "ps 0.5 lc %u title 'MGPBD, %u tets', '' index %u using ($3 / 1000):2 with linespoints lw 2 "
                       "dt 2 pt 6 lc %u title 'XPBD, %u tets'",
                       sep, scene, index, r + 1, rn->tets, index + 1, r + 1, rn->tets);
        index += 2;
    }
    fclose(dat);
    fprintf(gp, "set terminal pngcairo size 1400,560\nset output 'mgpbd_%s.png'\n"
                "set multiplot layout 1,2 title 'one 10 ms step, shear modulus 1e9 Pa: %s; %s'\n"
                "set logscale xy\nset grid\nset format y '10^{%%L}'\nset ylabel '|b| / |b_0|'\nset key bottom left\n"
                "set xlabel 'MGPBD outer iterations, XPBD sweeps'\nplot %s\n"
                "set xlabel 'wall time (s)'\nplot %s\nunset multiplot\n",
            scene, !strcmp(scene, "bar") ? "twisted bar" : "squashed model", device, plot_it, plot_ms);
    fclose(gp);
    if (plots && index) {
        char cmd[2200];
        snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot mgpbd_%s.gp 2>/dev/null", out, scene);
        if (system(cmd) != 0)
            fprintf(stderr, "sinew-bench: gnuplot failed on %s/mgpbd_%s.gp (is gnuplot installed?)\n", out, scene);
    }
    return 1;
}

static void write_readme(FILE *md, const bench_mgpbd_options *o, const run *runs, uint32_t count,
                         const sinew_device_info *di, double other_cpus, int cpus)
{
    fprintf(md, "# sinew-bench: mgpbd suite on %s\n\n", di->name);
    fprintf(md, "The convergence claim of MGPBD (Li et al. 2025; docs/math.md 6, docs/mgpbd.md): one 10 ms step of a "
                "stiff body (shear modulus 1e9 Pa, one as-rigid-as-possible constraint per tetrahedron), the dual "
                "residual |b| = |-C - alpha~ lambda| relative to its start, for MGPBD's outer iterations and for "
                "XPBD sweeps over the same constraints (which sweep: below). Made by `sinew-bench --suite mgpbd` "
                "(`tools/bench.sh mgpbd`); every number is in `bench.json`; NOTES.md says what they show.\n\n");
    fprintf(md, "- device: %s (%s)\n", di->name, di->driver);
    if (other_cpus >= 0)
        fprintf(md, "- host: %d CPUs; other processes kept %.2f of them busy on average while the runs went\n", cpus,
                other_cpus);
    if (o->size_count && o->meshes)
        fprintf(md, "- model: %s (%s) squashed to %.0f %% of its height\n", o->model,
                o->lattice ? "lattice cubes of 6 tetrahedra" : "TetGen", 100.0 * o->squash);
    if (o->bar_cells)
        fprintf(md, "- bar: 0.1 x 0.1 x 0.5 m, %u cells across, its z = min end pinned, twisted linearly to %.0f "
                    "degrees at the free end\n", o->bar_cells, o->twist_deg);
    if (o->particle_mass > 0)
        fprintf(md, "- masses: %g kg every free particle (as the paper's code when it is given no density)\n",
                o->particle_mass);
    else
        fprintf(md, "- masses: density 1000 kg/m^3, a quarter of each tetrahedron's mass to each of its particles\n");
    const sinew_mgpbd_desc d = solver_desc(o);
    char every[64];
    if (d.setup_interval == 0)
        snprintf(every, sizeof every, "set up at every outer iteration");
    else
        snprintf(every, sizeof every, "set up in the first outer iteration and reused");
    char xpbd[64];
    if (o->xpbd_jacobi > 0)
        snprintf(xpbd, sizeof xpbd, "Jacobi sweeps, weight %g (the paper's code)", o->xpbd_jacobi);
    else
        snprintf(xpbd, sizeof xpbd, "Gauss-Seidel sweeps colour by colour");
    fprintf(md, "- MGPBD: CG of at most %u iterations to %.0e an outer iteration, one V-cycle of %s aggregation "
                "(near kernel from %u Gauss-Seidel sweeps), the hierarchy %s (coarse operators between setups %s, each "
                "level's rho %s); %s; at most %u outer iterations, stopping at %.0e of |b_0|%s; XPBD: %s, at most %u%s\n\n",
            d.pcg_iterations, d.pcg_tolerance, d.amg.smooth ? "smoothed" : "unsmoothed", d.amg.candidate_sweeps, every,
            d.coarse == SINEW_MGPBD_COARSE_GRAM ? "in the Gram form X W X^T" : "as products R (A P)",
            d.rho == SINEW_MGPBD_RHO_DEVICE ? "by the power iteration on the device"
            : d.rho == SINEW_MGPBD_RHO_HOST ? "by Lanczos on the host, every operator read back"
                                            : "kept from the setup",
            d.lambda_full ? "lambda takes all of each dlambda, the line search halves the positions' step only (the "
                            "paper's code)"
                          : "the line search halves the step of lambda and the positions alike",
            o->outer, o->stop,
            o->outer_budget_s > 0 ? " or past the time budget" : "", xpbd, o->xpbd_sweeps,
            o->xpbd_budget_s > 0 ? " or the first sample past the time budget" : "");
    fprintf(md, "| run | tets | particles | colours | MGPBD iterations to 1e-2 | wall s to 1e-2 | MGPBD after 10 / 50 "
                "/ last (k) | XPBD after 10 / 50 / 1000 / last (sweeps) | ms / outer iteration (first) | ms / XPBD "
                "sweep | device bytes / tet | tets in 80 GB (extrapolated) |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (uint32_t r = 0; r < count; r++) {
        const run *rn = &runs[r];
        if (!rn->ok) {
            fprintf(md, "| %s | %u | %u | | failed: %s | | | | | | | |\n", rn->name, rn->tets, rn->particles,
                    rn->failure);
            continue;
        }
        char reach[32] = "not reached", reach_s[32] = "";
        if (rn->mg_reach) {
            snprintf(reach, sizeof reach, "%u", rn->mg_reach);
            snprintf(reach_s, sizeof reach_s, "%.1f", rn->mg_reach_ms / 1000.0);
        }
        double steady = 0.0;
        uint32_t n = 0;
        for (uint32_t k = 0; k < rn->mg_count; k++)
            if (!rn->mg[k].setup) {
                steady += rn->mg[k].ms;
                n++;
            }
        double per = rn->tets ? (double)rn->device_bytes / rn->tets : 0.0;
        char m10[16] = "-", m50[16] = "-", x10[16] = "-", x50[16] = "-", x1k[16] = "-";
        if (mgpbd_after(rn, 10) >= 0)
            snprintf(m10, sizeof m10, "%.2e", mgpbd_after(rn, 10));
        if (mgpbd_after(rn, 50) >= 0)
            snprintf(m50, sizeof m50, "%.2e", mgpbd_after(rn, 50));
        if (xpbd_at(rn, 10) >= 0)
            snprintf(x10, sizeof x10, "%.3f", xpbd_at(rn, 10));
        if (xpbd_at(rn, 50) >= 0)
            snprintf(x50, sizeof x50, "%.3f", xpbd_at(rn, 50));
        if (xpbd_at(rn, 1000) >= 0)
            snprintf(x1k, sizeof x1k, "%.3f", xpbd_at(rn, 1000));
        fprintf(md, "| %s | %u | %u | %u | %s | %s | %s / %s / %.2e (%u) | %s / %s / %s / %.3f (%u) | %.0f (%.0f) | "
                    "%.2f | %.0f | %.2e |\n",
                rn->name, rn->tets, rn->particles, rn->colours, reach, reach_s, m10, m50, rn->mg[rn->mg_count].rel,
                rn->mg_count, x10, x50, x1k, rn->xp[rn->xp_count - 1].rel, rn->xp[rn->xp_count - 1].sweeps,
                n ? steady / n : 0.0, rn->mg_count ? rn->mg[0].ms : 0.0, rn->xp_ms_per_sweep, per,
                per > 0 ? GPU_BYTES / per : 0.0);
    }
    fprintf(md, "\nThe hierarchy of the first setup and the CG iterations per outer iteration:\n\n"
                "| run | rows per level | nonzeros per row per level | operator / grid complexity | setup ms (host) | "
                "CG iterations (all outer iterations) | CG per outer iteration |\n|---|---|---|---|---|---|---|\n");
    for (uint32_t r = 0; r < count; r++) {
        const run *rn = &runs[r];
        if (!rn->ok)
            continue;
        fprintf(md, "| %s | ", rn->name);
        for (uint32_t l = 0; l < rn->levels; l++)
            fprintf(md, "%s%u", l ? " / " : "", rn->level_rows[l]);
        fprintf(md, " | ");
        for (uint32_t l = 0; l < rn->levels; l++)
            fprintf(md, "%s%.1f", l ? " / " : "", rn->level_rows[l] ? (double)rn->level_nnz[l] / rn->level_rows[l] : 0.0);
        fprintf(md, " | %.3f / %.3f | %.0f | %u | %.1f |\n", rn->operator_complexity, rn->grid_complexity,
                rn->setup_ms, rn->mg_pcg_total, rn->mg_count ? (double)rn->mg_pcg_total / rn->mg_count : 0.0);
    }
    int any_host = 0;
    for (uint32_t r = 0; r < count; r++)
        any_host |= runs[r].amg.done;
    if (any_host) {
        fprintf(md, "\nThe first system of each run (exported with `--export-matrices`), solved on the host in "
                    "double by CG to 1e-6, one thread:\n\n"
                    "| matrix | preconditioner | rows | nnz | iterations | setup ms | solve ms | op cx | grid cx | "
                    "levels | final rel |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (uint32_t r = 0; r < count; r++)
            for (int j = 0; j < 2 && runs[r].amg.done; j++) {
                const run *rn = &runs[r];
                const host_rec *h = j ? &rn->jacobi : &rn->amg;
                fprintf(md, "| %s | %s | %u | %u | %u%s | %.1f | %.1f | %.3f | %.3f | %u | %.1e |\n", rn->name,
                        j ? "Jacobi" : "sinew AMG", rn->constraints, rn->nnz, h->iterations,
                        h->converged ? "" : " (not converged)", h->setup_ms, h->solve_ms, h->operator_complexity,
                        h->grid_complexity, h->levels, h->final_relative);
            }
    }
    if (any_host) {
        static const char *vn[4] = {"UA", "UA + near kernel", "SA", "SA + near kernel"};
        fprintf(md, "\nThe same first systems with unsmoothed (UA) and smoothed (SA) aggregation, without and with the "
                    "near kernel (2 symmetric Gauss-Seidel sweeps on A x = 0), CG to 1e-6 in double on the host:\n\n"
                    "| matrix | hierarchy | CG iterations | op cx | rows per level | nonzeros per row per level | "
                    "setup ms |\n|---|---|---|---|---|---|---|\n");
        for (uint32_t r = 0; r < count; r++)
            for (int v = 0; v < 4; v++) {
                const host_rec *h = &runs[r].variant[v];
                if (!h->done)
                    continue;
                fprintf(md, "| %s | %s | %u%s | %.3f | ", runs[r].name, vn[v], h->iterations,
                        h->converged ? "" : " (not converged)", h->operator_complexity);
                for (uint32_t l = 0; l < h->levels; l++)
                    fprintf(md, "%s%u", l ? " / " : "", h->level_rows[l]);
                fprintf(md, " | ");
                for (uint32_t l = 0; l < h->levels; l++)
                    fprintf(md, "%s%.0f", l ? " / " : "", h->level_rows[l] ? (double)h->level_nnz[l] / h->level_rows[l] : 0.0);
                fprintf(md, " | %.0f |\n", h->setup_ms);
            }
    }
    int any_old = 0;
    for (uint32_t r = 0; r < count; r++)
        any_old |= runs[r].old_count > 0;
    if (any_old) {
        fprintf(md, "\nLazy outer iterations, this tree's defaults beside the way they ran before (smoothed aggregation, "
                    "every level's operator read back for Lanczos on the host), from the same start in the same run "
                    "(`--compare-old`); ms of host wall time an outer iteration:\n\n"
                    "| run | first (setup), defaults | lazy, defaults | CG each | first (setup), old | lazy, old | CG each "
                    "| lazy old / new | lazy / first, defaults | submits, bytes read back, dispatches recorded a lazy "
                    "iteration |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (uint32_t r = 0; r < count; r++) {
            const run *rn = &runs[r];
            if (!rn->old_count)
                continue;
            const double first = rn->mg_count ? rn->mg[0].ms : 0.0;
            fprintf(md, "| %s | %.0f | %.0f | %u | %.0f | %.0f | %u | %.1fx | %.2f | %llu, %llu, %llu |\n", rn->name, first,
                    rn->new_lazy_ms, rn->new_pcg, rn->old_first_ms, rn->old_lazy_ms, rn->old_pcg,
                    rn->new_lazy_ms > 0 ? rn->old_lazy_ms / rn->new_lazy_ms : 0.0,
                    first > 0 ? rn->new_lazy_ms / first : 0.0, (unsigned long long)rn->lazy_submits,
                    (unsigned long long)rn->lazy_readback, (unsigned long long)rn->lazy_dispatches);
        }
    }
    int any_profile = 0;
    for (uint32_t r = 0; r < count; r++)
        any_profile |= runs[r].profiled;
    if (any_profile) {
        fprintf(md, "\nOne more lazy outer iteration after the run, part by part (`sinew_mgpbd_profile_iteration`: each "
                    "part its own submit, host wall ms; CG runs all its iterations), and the dispatches each records:\n\n"
                    "| run | assembly | coarse products | rho (power iteration) | CG | line search |\n"
                    "|---|---|---|---|---|---|\n");
        for (uint32_t r = 0; r < count; r++) {
            const run *rn = &runs[r];
            if (!rn->profiled)
                continue;
            const double *v[5] = {&rn->profile.assemble_ms, &rn->profile.products_ms, &rn->profile.rho_ms,
                                  &rn->profile.cg_ms, &rn->profile.line_search_ms};
            fprintf(md, "| %s |", rn->name);
            for (int k = 0; k < 5; k++)
                fprintf(md, " %.0f (%u) |", *v[k], rn->profile.dispatches[k]);
            fprintf(md, "\n");
        }
    }
    for (uint32_t r = 0; r < count; r++)
        if (!strcmp(runs[r].scene, "model")) {
            fprintf(md, "\n![model](mgpbd_model.png)\n");
            break;
        }
    if (o->bar_cells)
        fprintf(md, "\n![bar](mgpbd_bar.png)\n");
}

int mgpbd_write(const bench_mgpbd_options *o, const char *out, const run *runs, uint32_t count,
                const sinew_device_info *dip, double other, int cpus, double wall)
{
    const sinew_device_info di = *dip;
    int ok = 1;
    /* bench.json */
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "suite", "mgpbd");
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(dev, "name", di.name);
    cJSON_AddStringToObject(dev, "driver", di.driver);
    cJSON_AddNumberToObject(dev, "max_storage_buffer_range", (double)di.max_storage_buffer_range);
    char date[32] = "";
    time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    cJSON_AddStringToObject(root, "date", date);
    cJSON *host = cJSON_AddObjectToObject(root, "host");
    cJSON_AddNumberToObject(host, "cpus", cpus);
    cJSON_AddNumberToObject(host, "other_cpus_busy", other);
    cJSON_AddNumberToObject(root, "wall_s", wall);
    cJSON_AddItemToObject(root, "settings", settings_json(o));
    cJSON_AddNumberToObject(root, "paper_target_relative", TARGET);
    cJSON_AddStringToObject(root, "paper", "MGPBD reaches 1e-2 of |b_0| in 55-59 outer iterations at 12K-270K "
                                           "tetrahedra; XPBD stays near 0.75 after 10 000 iterations");
    cJSON *arr = cJSON_AddArrayToObject(root, "runs");
    for (uint32_t r = 0; r < count; r++)
        cJSON_AddItemToArray(arr, run_json(&runs[r]));
    char path[2048];
    snprintf(path, sizeof path, "%s/bench.json", out);
    char *text = cJSON_Print(root);
    FILE *f = fopen(path, "w");
    int written = f && text && fputs(text, f) >= 0;
    if (f)
        written = fclose(f) == 0 && written;
    free(text);
    cJSON_Delete(root);
    if (!written) {
        fprintf(stderr, "sinew-bench: cannot write %s\n", path);
        ok = 0;
    }

    snprintf(path, sizeof path, "%s/README.md", out);
    FILE *md = fopen(path, "w");
    if (md) {
        write_readme(md, o, runs, count, &di, other, cpus);
        ok = fclose(md) == 0 && ok;
    } else {
        ok = 0;
    }
    for (int b = 0; b < 2; b++) { /* a plot for each scene that ran */
        int any = 0;
        for (uint32_t r = 0; r < count; r++)
            any |= !strcmp(runs[r].scene, b ? "bar" : "model");
        if (any)
            ok = write_plot(out, b ? "bar" : "model", runs, count, di.name, o->plots) && ok;
    }

    /* The key numbers, as the log's last lines. */
    for (uint32_t r = 0; r < count; r++) {
        const run *rn = &runs[r];
        if (!rn->ok) {
            ok = 0;
            continue;
        }
        fprintf(stderr, "sinew-bench: mgpbd %-16s MGPBD %.3e after %u outer iterations%s; XPBD %.3f after %u sweeps; "
                        "%.0f device bytes a tet\n",
                rn->name, rn->mg[rn->mg_count].rel, rn->mg_count,
                rn->mg_reach ? "" : " (1e-2 not reached)", rn->xp[rn->xp_count - 1].rel,
                rn->xp[rn->xp_count - 1].sweeps, rn->tets ? (double)rn->device_bytes / rn->tets : 0.0);
    }
    return ok;
}
