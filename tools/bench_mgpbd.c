/* sinew-bench --suite mgpbd: the convergence claim of Li et al., "MGPBD: a
 * multigrid accelerated global XPBD solver" (2025; docs/math.md 6): on stiff
 * (shear modulus 1e9 Pa), finely meshed bodies XPBD's Gauss-Seidel stalls
 * (the paper: the dual residual still near 0.75 of its start after 10 000
 * iterations) where MGPBD's AMG-preconditioned global solve reaches 1e-2 in
 * 55-59 outer iterations at 12K to 270K tetrahedra.
 *
 * Scenes, each ONE time step of 10 ms from rest, every tetrahedron an
 * as-rigid-as-possible constraint C = |F - R|_F (src/solvers/mgpbd.h):
 *   model  a closed CGAL model tetrahedralised by TetGen at several sizes
 *          (target counts met through -a), squashed to `squash` of its
 *          height about its middle, nothing pinned;
 *   bar    a 0.1 x 0.1 x 0.5 m box of tetrahedra, the particles of its z = min
 *          end pinned, twisted about its axis linearly from 0 there to
 *          `twist_deg` at the free end.
 * For each: MGPBD outer iterations (sinew_mgpbd_iterate, the default desc:
 * lazy setup, its first iteration sets the hierarchy up) until |b_k| <= stop
 * |b_0| or the limits, |b_k| / |b_0| against k and against the iterations'
 * wall time; from the same start, XPBD Gauss-Seidel sweeps (or, with
 * xpbd_jacobi, the paper's Jacobi sweeps) over the same
 * constraints (sinew_mgpbd_xpbd), |b| / |b_0| sampled at log-spaced sweep
 * counts against sweeps and their wall time. b = -C - alpha~ lambda is the
 * dual residual both solvers drive to zero. Device memory after the first
 * setup, per tetrahedron, and the tetrahedron count that would fill an 80 GB
 * GPU at that rate (a linear extrapolation).
 *
 * With export_dir: each scene's first dual system (A and b at the start, as
 * the device assembles them in float) as Matrix Market NAME.mtx and
 * NAME.b.mtx for tools/peers/amg.sh, and our own AMG on it in double on the
 * host (sinew_amg_setup, CG with one V-cycle, tolerance 1e-6; and CG with
 * Jacobi), one JSON line each with the keys the peers print, into
 * sinew-amg.jsonl there and into bench.json. */
#define _POSIX_C_SOURCE 200809L
#include "bench_mgpbd.h"
#include "bench.h"
#include "bench_mgpbd_run.h"
#include "cli.h"
#include "host_load.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "prep/mesh.h"
#include "prep/mtx.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "solvers/amg.h"
#include "solvers/mgpbd.h"

bench_mgpbd_options bench_mgpbd_options_default(void)
{
    bench_mgpbd_options o;
    memset(&o, 0, sizeof o);
    o.model = "elephant.off";
    o.tets[0] = 30000; /* elephant.off's floor at quality 2 is 27 474 */
    o.size_count = 1;
    o.quality = 2.0;
    o.bar_cells = 8;
    o.squash = 0.6;
    o.twist_deg = 90.0;
    o.outer = 100;
    o.stop = 1e-3;
    o.outer_budget_s = 300.0;
    o.xpbd_sweeps = 10000;
    o.xpbd_budget_s = 300.0;
    o.pcg_tolerance = -1.0;
    o.setup_interval = -1;
    o.smoothed = -1;
    o.near_kernel = -1;
    o.plots = 1;
    return o;
}

/* ------------------------------------------------------------------ scenes */



/* The model tetrahedralised to about `target` tetrahedra. TetGen keeps every
 * surface vertex (-p), so a surface alone gives a floor (`floor_count`, the
 * count with no volume bound); above it the count grows about as 1 / a, and
 * a is corrected by that ratio on the tetrahedra the bound adds. */
static sinew_result model_volume(const sinew_mesh *m, const char *name, uint32_t target, uint32_t floor_count,
                                 double quality, sinew_volume *v, double *max_volume)
{
    *max_volume = 0.0;
    if (target <= floor_count + floor_count / 8)
        return sinew_volume_tetrahedralise(m, 0.0, quality, NULL, name, NULL, v);
    const double vol = fabs(sinew_surface_enclosed_volume(m));
    double a = 6.0 * vol / (target - floor_count / 2);
    sinew_result r = SINEW_RESULT_OK;
    for (int tries = 0; tries < 5; tries++) {
        r = sinew_volume_tetrahedralise(m, a, quality, NULL, name, NULL, v);
        if (r != SINEW_RESULT_OK)
            return r;
        *max_volume = a;
        double got = v->tet_count;
        if (fabs(got / target - 1.0) < 0.08 || tries == 4)
            break;
        double added = fmax(got - 0.7 * floor_count, 1.0), wanted = fmax(target - 0.7 * floor_count, 1.0);
        a *= added / wanted;
        sinew_volume_free(v);
    }
    return r;
}

/* The model as lattice cubes, about `target` tetrahedra (6 a cube): the
 * cells along the longest side from the enclosed volume, then corrected by
 * the count each try gives. */
static sinew_result lattice_volume(const sinew_mesh *m, const char *name, uint32_t target, sinew_volume *v,
                                   uint32_t *cells)
{
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], m->positions[3 * (size_t)i + a]);
            hi[a] = fmax(hi[a], m->positions[3 * (size_t)i + a]);
        }
    const double side = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    const double vol = fabs(sinew_surface_enclosed_volume(m));
    double c = side / cbrt(6.0 * vol / fmax(target, 6.0));
    sinew_result r = SINEW_RESULT_OK;
    for (int tries = 0; tries < 4; tries++) {
        *cells = (uint32_t)fmin(fmax(round(c), 1.0), 1024.0);
        r = sinew_volume_lattice(m, *cells, 0, name, NULL, v);
        if (r != SINEW_RESULT_OK || fabs((double)v->tet_count / target - 1.0) < 0.05 || tries == 3)
            break;
        c = *cells * cbrt((double)target / v->tet_count);
        if ((uint32_t)fmin(fmax(round(c), 1.0), 1024.0) == *cells)
            break;
        sinew_volume_free(v);
    }
    return r;
}

/* Fills the run's counts from the asset. */
static void count_asset(run *rn, const sinew_asset *a)
{
    rn->particles = a->particle_count;
    rn->tets = a->element_count;
    rn->colours = a->element_colour_count;
    rn->pinned = 0;
    for (uint32_t i = 0; i < a->particle_count; i++)
        rn->pinned += a->particles[i].w == 0.0f;
}

/* Rest positions squashed to `squash` of their height (y) about the middle. */
static float *squashed(const sinew_asset *a, double squash)
{
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (uint32_t i = 0; i < a->particle_count; i++) {
        lo = fmin(lo, a->particles[i].y);
        hi = fmax(hi, a->particles[i].y);
    }
    float *x = malloc(sizeof *x * 3 * ((size_t)a->particle_count + 1));
    for (uint32_t i = 0; x && i < a->particle_count; i++) {
        const sinew_particle_rec *p = &a->particles[i];
        x[3 * i] = p->x;
        x[3 * i + 1] = (float)(0.5 * (lo + hi) + squash * (p->y - 0.5 * (lo + hi)));
        x[3 * i + 2] = p->z;
    }
    return x;
}

/* Every free particle's mass set to `kg` (the paper's code gives each
 * particle 1 kg unless told a density); pinned particles stay pinned. */
static void set_particle_mass(sinew_asset *a, double kg)
{
    for (uint32_t i = 0; kg > 0 && i < a->particle_count; i++)
        if (a->particles[i].w != 0.0f)
            a->particles[i].w = (float)(1.0 / kg);
}

/* Rest positions turned about the z axis by an angle growing linearly from 0
 * at z = -L/2 (the pinned end) to `deg` at z = L/2. */
static float *twisted(const sinew_asset *a, double deg)
{
    float *x = malloc(sizeof *x * 3 * ((size_t)a->particle_count + 1));
    for (uint32_t i = 0; x && i < a->particle_count; i++) {
        const sinew_particle_rec *p = &a->particles[i];
        double t = deg * (3.14159265358979323846 / 180.0) * ((p->z + 0.5 * BAR_SIZE_Z) / BAR_SIZE_Z);
        x[3 * i] = (float)(cos(t) * p->x - sin(t) * p->y);
        x[3 * i + 1] = (float)(sin(t) * p->x + cos(t) * p->y);
        x[3 * i + 2] = p->z;
    }
    return x;
}

static sinew_result bar_asset(uint32_t cells, sinew_asset **out)
{
    const double size[3] = {BAR_SIZE_X, BAR_SIZE_X, BAR_SIZE_Z};
    const uint32_t nx = cells + 1, nz = 5 * cells + 1;
    sinew_volume v;
    sinew_result r = sinew_volume_box(nx, nx, nz, size, NULL, &v);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_soft_options so = sinew_soft_options_default();
    so.pin_box = 1; /* the z = min end face */
    so.box_min[0] = so.box_min[1] = -1.0;
    so.box_max[0] = so.box_max[1] = 1.0;
    so.box_min[2] = -0.5 * BAR_SIZE_Z - 1e-6;
    so.box_max[2] = -0.5 * BAR_SIZE_Z + 1e-6;
    so.source_name = "mgpbd bar";
    r = sinew_soft_build(&v, &so, NULL, out, NULL);
    sinew_volume_free(&v);
    return r;
}

/* ------------------------------------------------------------------ export and host AMG */

/* b as a Matrix Market array of one column, 17 significant digits. */
static int write_vector(const char *path, const float *b, uint32_t m)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%% b = -C - alpha~ lambda of MGPBD's first outer "
               "iteration (sinew-bench --suite mgpbd)\n%u 1\n", m);
    for (uint32_t i = 0; i < m; i++)
        fprintf(f, "%.17g\n", (double)b[i]);
    return fclose(f) == 0;
}

static double true_relative(const sinew_csr *A, const double *b, const double *x)
{
    double *r = malloc(sizeof *r * ((size_t)A->rows + 1)), rr = 0.0, bb = 0.0;
    if (!r)
        return NAN;
    sinew_csr_spmv(A, x, r);
    for (uint32_t i = 0; i < A->rows; i++) {
        rr += (b[i] - r[i]) * (b[i] - r[i]);
        bb += b[i] * b[i];
    }
    free(r);
    return bb > 0.0 ? sqrt(rr / bb) : 0.0;
}

/* CG with one V-cycle of the hierarchy o builds, from x = 0, into h. */
static void host_amg(const sinew_csr *A, const double *b, double *x, const sinew_amg_options *o, host_rec *h)
{
    memset(x, 0, sizeof *x * A->rows);
    sinew_amg amg;
    double t0 = sinew_host_ms();
    if (sinew_amg_setup(A, o, &amg, NULL) != SINEW_RESULT_OK)
        return;
    h->setup_ms = sinew_host_ms() - t0;
    sinew_amg_cycle cyc = sinew_amg_cycle_default();
    sinew_amg_preconditioner pre = {&amg, &cyc};
    double rel = NAN;
    t0 = sinew_host_ms();
    h->iterations = sinew_pcg(A, b, x, sinew_amg_precondition, &pre, HOST_TOL, HOST_MAXITER, NULL, 0, &rel);
    h->solve_ms = sinew_host_ms() - t0;
    h->converged = rel <= HOST_TOL;
    h->final_relative = true_relative(A, b, x);
    h->operator_complexity = sinew_amg_operator_complexity(&amg);
    h->grid_complexity = sinew_amg_grid_complexity(&amg);
    h->levels = amg.levels;
    for (uint32_t l = 0; l < amg.levels; l++) {
        h->level_rows[l] = amg.L[l].A.rows;
        h->level_nnz[l] = amg.L[l].A.row[amg.L[l].A.rows];
    }
    h->done = h->iterations != SINEW_PCG_OUT_OF_MEMORY;
    sinew_amg_free(&amg);
}

/* Our AMG (UA and SA, without and with the near kernel; the library's
 * defaults are SA with it) and Jacobi as CG preconditioners on A x = b in
 * double. */
static void host_solves(const sinew_csr *A, const float *bf, run *rn)
{
    const uint32_t m = A->rows;
    double *b = malloc(sizeof *b * ((size_t)m + 1)), *x = calloc((size_t)m + 1, sizeof *x);
    if (!b || !x) {
        free(b);
        free(x);
        return;
    }
    for (uint32_t i = 0; i < m; i++)
        b[i] = bf[i];
    for (int v = 0; v < 4; v++) {
        sinew_amg_options vo = sinew_amg_options_default();
        vo.smooth = v >= 2;
        vo.candidate_sweeps = (v & 1) ? 2 : 0;
        host_amg(A, b, x, &vo, &rn->variant[v]);
    }
    const sinew_amg_options lib = sinew_amg_options_default();
    rn->amg = rn->variant[(lib.smooth ? 2 : 0) + (lib.candidate_sweeps ? 1 : 0)];
    if (lib.candidate_sweeps != 0 && lib.candidate_sweeps != 2) /* not among the four */
        host_amg(A, b, x, &lib, &rn->amg);
    memset(x, 0, sizeof *x * m);
    host_rec *j = &rn->jacobi;
    double rel = NAN;
    const double t0 = sinew_host_ms();
    j->iterations = sinew_pcg(A, b, x, sinew_jacobi_precondition, (void *)A, HOST_TOL, HOST_MAXITER, NULL, 0, &rel);
    j->solve_ms = sinew_host_ms() - t0;
    j->converged = rel <= HOST_TOL;
    j->final_relative = true_relative(A, b, x);
    j->operator_complexity = j->grid_complexity = 1.0;
    j->levels = 1;
    j->level_rows[0] = m;
    j->done = j->iterations != SINEW_PCG_OUT_OF_MEMORY;
    free(b);
    free(x);
}

/* One JSON object with the keys of tools/peers/amg_pyamg.py. */
cJSON *host_json(const run *rn, int jacobi)
{
    const host_rec *h = jacobi ? &rn->jacobi : &rn->amg;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "peer", jacobi ? "sinew-jacobi-cg" : "sinew-amg");
    cJSON_AddStringToObject(o, "variant", jacobi ? "" : "defaults, double, host");
    cJSON_AddStringToObject(o, "matrix", rn->name);
    cJSON_AddNumberToObject(o, "rows", rn->constraints);
    cJSON_AddNumberToObject(o, "nnz", rn->nnz);
    cJSON_AddNumberToObject(o, "setup_ms", round(h->setup_ms * 1000.0) / 1000.0);
    cJSON_AddNumberToObject(o, "solve_ms", round(h->solve_ms * 1000.0) / 1000.0);
    cJSON_AddNumberToObject(o, "iterations", h->iterations);
    cJSON_AddBoolToObject(o, "converged", h->converged);
    cJSON_AddNumberToObject(o, "operator_complexity", round(h->operator_complexity * 1e4) / 1e4);
    cJSON_AddNumberToObject(o, "grid_complexity", round(h->grid_complexity * 1e4) / 1e4);
    cJSON_AddNumberToObject(o, "levels", h->levels);
    cJSON *rows = cJSON_AddArrayToObject(o, "level_rows");
    for (uint32_t l = 0; !jacobi && l < h->levels; l++)
        cJSON_AddItemToArray(rows, cJSON_CreateNumber(h->level_rows[l]));
    char fr[32];
    snprintf(fr, sizeof fr, "%.3e", h->final_relative);
    cJSON_AddNumberToObject(o, "final_relative", atof(fr));
    cJSON_AddStringToObject(o, "settings",
                            jacobi ? "sinew_pcg, M = diag(A)^-1, tolerance 1e-6 on the recursive residual, x0 = 0"
                                   : "sinew_amg_setup defaults (strength 0.08, smoothed P, candidate 2 symmetric "
                                     "Gauss-Seidel sweeps, coarse <= 64 rows, dense Cholesky there), "
                                     "sinew_amg_cycle_default (Jacobi-Chebyshev degree 3 on [rho/30, 1.1 rho]), "
                                     "sinew_pcg with one V-cycle, tolerance 1e-6, x0 = 0");
    cJSON_AddStringToObject(o, "versions", "sinew (this tree), one thread");
    return o;
}

static void silent(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    (void)level;
    (void)id;
    (void)message;
}

static void export_system(sinew_mgpbd *s, const bench_mgpbd_options *o, run *rn)
{
    sinew_csr A;
    const uint32_t m = rn->constraints;
    float *b = malloc(sizeof *b * ((size_t)m + 1));
    if (!b || sinew_mgpbd_assemble(s, STEP_H) != SINEW_RESULT_OK || sinew_mgpbd_read_rhs(s, b) != SINEW_RESULT_OK ||
        sinew_mgpbd_read_matrix(s, 0, &A) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-bench: mgpbd %s: could not read the first system\n", rn->name);
        free(b);
        return;
    }
    rn->nnz = A.row[A.rows];
    char path[2048];
    snprintf(path, sizeof path, "%s/%s.mtx", o->export_dir, rn->name);
    sinew_logger quiet = {silent, NULL, SINEW_LOG_ERROR}; /* not exactly symmetric: written general instead */
    if (sinew_mtx_write(path, &A, 1, &quiet) != SINEW_RESULT_OK &&
        sinew_mtx_write(path, &A, 0, NULL) != SINEW_RESULT_OK)
        fprintf(stderr, "sinew-bench: cannot write %s\n", path);
    snprintf(path, sizeof path, "%s/%s.b.mtx", o->export_dir, rn->name);
    if (!write_vector(path, b, m))
        fprintf(stderr, "sinew-bench: cannot write %s\n", path);
    host_solves(&A, b, rn);
    fprintf(stderr, "sinew-bench: mgpbd %s: host AMG-CG %u iterations (setup %.0f ms, solve %.0f ms), Jacobi-CG %u%s\n",
            rn->name, rn->amg.iterations, rn->amg.setup_ms, rn->amg.solve_ms, rn->jacobi.iterations,
            rn->jacobi.converged ? "" : " (not converged)");
    snprintf(path, sizeof path, "%s/sinew-amg.jsonl", o->export_dir);
    FILE *f = fopen(path, "a");
    for (int j = 0; f && j < 2; j++) {
        cJSON *rec = host_json(rn, j);
        char *text = cJSON_PrintUnformatted(rec);
        fprintf(f, "%s\n", text);
        printf("%s\n", text);
        free(text);
        cJSON_Delete(rec);
    }
    if (f)
        fclose(f);
    sinew_csr_free(&A);
    free(b);
}

/* ------------------------------------------------------------------ one scene */

static const uint32_t sweep_samples[] = {1,   2,   3,   5,    7,    10,   15,   20,   30,    50,    70,    100,
                                         150, 200, 300, 500,  700,  1000, 1500, 2000, 3000,  5000,  7000,  10000,
                                         15000, 20000, 30000, 50000, 70000, 100000};

static int fail(run *rn, const char *what, sinew_result r)
{
    snprintf(rn->failure, sizeof rn->failure, "%s: %s", what, sinew_result_string(r));
    fprintf(stderr, "sinew-bench: mgpbd %s: %s\n", rn->name, rn->failure);
    rn->ok = 0;
    return 0;
}

sinew_mgpbd_desc solver_desc(const bench_mgpbd_options *o)
{
    sinew_mgpbd_desc d = sinew_mgpbd_desc_default();
    d.distances = 0;
    d.tets = 1;
    d.shear_modulus = SHEAR_MODULUS;
    if (o->pcg_iterations)
        d.pcg_iterations = o->pcg_iterations;
    if (o->pcg_tolerance >= 0.0)
        d.pcg_tolerance = o->pcg_tolerance;
    if (o->setup_interval >= 0)
        d.setup_interval = (uint32_t)o->setup_interval;
    d.lambda_full = o->lambda_full;
    if (o->keep_rho)
        d.rho = SINEW_MGPBD_RHO_KEEP;
    else if (o->host_rho)
        d.rho = SINEW_MGPBD_RHO_HOST;
    if (o->cheby_upper > 0)
        d.cycle.cheby_upper = o->cheby_upper;
    d.coarse = o->coarse_gram ? SINEW_MGPBD_COARSE_GRAM : SINEW_MGPBD_COARSE_PRODUCT;
    if (o->smoothed >= 0)
        d.amg.smooth = o->smoothed;
    if (o->near_kernel >= 0)
        d.amg.candidate_sweeps = (uint32_t)o->near_kernel;
    return d;
}

/* compare_old: the scene's first outer iterations again the way lazy
 * iterations ran before (smoothed aggregation, every level's operator read
 * back for the host's rho), timed. */
static void run_old(sinew_context *ctx, const bench_mgpbd_options *o, const sinew_asset *a, const float *x0, run *rn)
{
    const float g[3] = {0.0f, 0.0f, 0.0f};
    sinew_mgpbd_desc d = solver_desc(o);
    d.amg.smooth = 1;
    d.rho = SINEW_MGPBD_RHO_HOST;
    sinew_mgpbd *s = NULL;
    if (sinew_mgpbd_create(ctx, a, &d, &s) != SINEW_RESULT_OK)
        return;
    if (sinew_mgpbd_set_state(s, x0, NULL) == SINEW_RESULT_OK && sinew_mgpbd_begin_step(s, 0.0f, g) == SINEW_RESULT_OK) {
        double lazy = 0.0;
        uint32_t n = 0;
        for (uint32_t k = 0; k < o->compare_old; k++) {
            sinew_mgpbd_iteration it;
            if (sinew_mgpbd_iterate(s, STEP_H, &it) != SINEW_RESULT_OK)
                break;
            if (k == 0)
                rn->old_first_ms = it.ms;
            else if (!it.setup) {
                lazy += it.ms;
                rn->old_pcg += it.pcg_iterations;
                n++;
            }
            rn->old_count = k + 1;
        }
        rn->old_lazy_ms = n ? lazy / n : 0.0;
        if (n)
            rn->old_pcg /= n;
        fprintf(stderr, "sinew-bench: mgpbd %s   old lazy path (SA, rho on the host): first iteration %.0f ms, lazy "
                        "%.0f ms (%u of them, %u CG each)\n", rn->name, rn->old_first_ms, rn->old_lazy_ms, n, rn->old_pcg);
    }
    sinew_mgpbd_destroy(s);
}

static int run_scene(sinew_context *ctx, const bench_mgpbd_options *o, const sinew_asset *a, const float *x0,
                     run *rn)
{
    const float g[3] = {0.0f, 0.0f, 0.0f};
    sinew_mgpbd_desc d = solver_desc(o);
    sinew_mgpbd *s = NULL;
    sinew_result r = sinew_mgpbd_create(ctx, a, &d, &s);
    if (r != SINEW_RESULT_OK)
        return fail(rn, "sinew_mgpbd_create", r);
    rn->constraints = sinew_mgpbd_constraint_count(s);
    rn->ok = 1;
    if ((r = sinew_mgpbd_set_state(s, x0, NULL)) != SINEW_RESULT_OK ||
        (r = sinew_mgpbd_begin_step(s, 0.0f, g)) != SINEW_RESULT_OK ||
        (r = sinew_mgpbd_dual_residual(s, STEP_H, &rn->b0)) != SINEW_RESULT_OK) {
        sinew_mgpbd_destroy(s);
        return fail(rn, "start", r);
    }
    if (o->export_dir)
        export_system(s, o, rn);

    /* MGPBD */
    double cum = 0.0;
    const uint32_t outer = o->outer < MAX_OUTER ? o->outer : MAX_OUTER;
    rn->mg_count = 0;
    uint32_t lazy_n = 0;
    double lazy_ms = 0.0;
    for (uint32_t k = 0; k < outer; k++) {
        sinew_mgpbd_iteration it;
        const sinew_mgpbd_counters c0 = sinew_mgpbd_get_counters(s);
        r = sinew_mgpbd_iterate(s, STEP_H, &it);
        const sinew_mgpbd_counters c1 = sinew_mgpbd_get_counters(s);
        if (r == SINEW_RESULT_OK && !it.setup) {
            rn->lazy_submits = c1.submits - c0.submits;
            rn->lazy_readback = c1.readback_bytes - c0.readback_bytes;
            rn->lazy_dispatches = c1.dispatches - c0.dispatches;
            rn->lazy_barriers = c1.barriers - c0.barriers;
            if (k < 1 + o->compare_old && lazy_n < o->compare_old) { /* the iterations the old path also ran */
                lazy_ms += it.ms;
                rn->new_pcg += it.pcg_iterations;
                lazy_n++;
            }
        }
        if (r != SINEW_RESULT_OK) {
            sinew_mgpbd_destroy(s);
            return fail(rn, "sinew_mgpbd_iterate", r);
        }
        outer_rec *e = &rn->mg[k];
        e->rel = it.dual_residual / rn->b0;
        e->cum_ms = cum;
        e->ms = it.ms;
        e->pcg = it.pcg_iterations;
        e->pcg_rel = it.pcg_relative;
        e->step = it.step;
        e->setup = it.setup;
        e->indefinite = it.indefinite;
        e->coarse_diagonal = it.coarse_diagonal;
        rn->mg_pcg_total += it.pcg_iterations;
        rn->setups += it.setup != 0;
        cum += it.ms;
        rn->mg_count = k + 1;
        if (k == 0) {
            const sinew_amg *h = sinew_mgpbd_amg(s);
            rn->device_bytes = sinew_mgpbd_device_bytes(s);
            rn->levels = h->levels;
            for (uint32_t l = 0; l < h->levels; l++) {
                rn->level_rows[l] = h->L[l].A.rows;
                rn->level_nnz[l] = h->L[l].A.row[h->L[l].A.rows];
            }
            rn->operator_complexity = sinew_amg_operator_complexity(h);
            rn->grid_complexity = sinew_amg_grid_complexity(h);
            rn->setup_ms = h->setup_ms;
            if (!rn->nnz && h->levels)
                rn->nnz = h->L[0].A.row[h->L[0].A.rows];
        }
        if (!(e->rel == e->rel) || e->rel > 1e6) {
            fprintf(stderr, "sinew-bench: mgpbd %s: the dual residual is %g of its start at outer iteration %u\n",
                    rn->name, e->rel, k);
            break;
        }
        if (!rn->mg_reach && e->rel <= TARGET && k > 0) {
            rn->mg_reach = k;
            rn->mg_reach_ms = e->cum_ms;
        }
        if (e->rel <= o->stop || (o->outer_budget_s > 0 && cum >= 1000.0 * o->outer_budget_s))
            break;
    }
    double bk;
    r = sinew_mgpbd_dual_residual(s, STEP_H, &bk);
    if (r != SINEW_RESULT_OK) {
        sinew_mgpbd_destroy(s);
        return fail(rn, "sinew_mgpbd_dual_residual", r);
    }
    rn->mg[rn->mg_count].rel = bk / rn->b0;
    rn->mg[rn->mg_count].cum_ms = cum;
    if (!rn->mg_reach && rn->mg[rn->mg_count].rel <= TARGET) {
        rn->mg_reach = rn->mg_count;
        rn->mg_reach_ms = cum;
    }
    fprintf(stderr, "sinew-bench: mgpbd %-16s MGPBD %3u outer iterations (%u CG), %.3e of |b_0| in %.1f s%s\n",
            rn->name, rn->mg_count, rn->mg_pcg_total, rn->mg[rn->mg_count].rel, cum / 1000.0,
            rn->mg_reach ? "" : " (1e-2 not reached)");
    /* one more lazy iteration, part by part, where the MGPBD loop left the state */
    rn->profiled = sinew_mgpbd_profile_iteration(s, STEP_H, &rn->profile) == SINEW_RESULT_OK;
    if (rn->profiled)
        fprintf(stderr, "sinew-bench: mgpbd %s   a lazy iteration part by part: assembly %.0f ms, products %.0f ms, "
                        "rho %.0f ms, CG (%u iterations) %.0f ms, line search %.0f ms\n",
                rn->name, rn->profile.assemble_ms, rn->profile.products_ms, rn->profile.rho_ms,
                d.pcg_iterations, rn->profile.cg_ms, rn->profile.line_search_ms);
    rn->new_lazy_ms = lazy_n ? lazy_ms / lazy_n : 0.0;
    if (lazy_n)
        rn->new_pcg /= lazy_n;
    if (o->compare_old) {
        fprintf(stderr, "sinew-bench: mgpbd %s   defaults: first iteration %.0f ms, lazy %.0f ms (%u of them, %u CG "
                        "each; %llu submit, %llu bytes read back, %llu dispatches and %llu barriers recorded each)\n",
                rn->name, rn->mg_count ? rn->mg[0].ms : 0.0, rn->new_lazy_ms, lazy_n, rn->new_pcg,
                (unsigned long long)rn->lazy_submits, (unsigned long long)rn->lazy_readback,
                (unsigned long long)rn->lazy_dispatches, (unsigned long long)rn->lazy_barriers);
        run_old(ctx, o, a, x0, rn);
    }

    /* XPBD from the same start */
    if ((r = sinew_mgpbd_set_state(s, x0, NULL)) != SINEW_RESULT_OK ||
        (r = sinew_mgpbd_begin_step(s, 0.0f, g)) != SINEW_RESULT_OK) {
        sinew_mgpbd_destroy(s);
        return fail(rn, "XPBD start", r);
    }
    uint32_t done = 0;
    cum = 0.0;
    rn->xp[0] = (sweep_rec){0, 1.0, 0.0};
    rn->xp_count = 1;
    for (size_t k = 0; k < sizeof sweep_samples / sizeof sweep_samples[0] && rn->xp_count < MAX_SAMPLES; k++) {
        uint32_t until = sweep_samples[k];
        if (until > o->xpbd_sweeps)
            break;
        while (done < until) {
            uint32_t n = until - done < XPBD_CHUNK ? until - done : XPBD_CHUNK;
            double t0 = sinew_host_ms();
            r = o->xpbd_jacobi > 0 ? sinew_mgpbd_xpbd_jacobi(s, STEP_H, n, (float)o->xpbd_jacobi)
                                   : sinew_mgpbd_xpbd(s, STEP_H, n);
            cum += sinew_host_ms() - t0;
            if (r != SINEW_RESULT_OK) {
                sinew_mgpbd_destroy(s);
                return fail(rn, o->xpbd_jacobi > 0 ? "sinew_mgpbd_xpbd_jacobi" : "sinew_mgpbd_xpbd", r);
            }
            done += n;
        }
        double norm;
        if ((r = sinew_mgpbd_dual_residual(s, STEP_H, &norm)) != SINEW_RESULT_OK) {
            sinew_mgpbd_destroy(s);
            return fail(rn, "sinew_mgpbd_dual_residual", r);
        }
        rn->xp[rn->xp_count++] = (sweep_rec){done, norm / rn->b0, cum};
        if (!(norm == norm)) {
            fprintf(stderr, "sinew-bench: mgpbd %s: XPBD's dual residual is NaN after %u sweeps\n", rn->name, done);
            break;
        }
        if (o->xpbd_budget_s > 0 && cum >= 1000.0 * o->xpbd_budget_s)
            break;
    }
    rn->xp_ms_per_sweep = done ? cum / done : 0.0;
    fprintf(stderr, "sinew-bench: mgpbd %-16s XPBD %6u sweeps, %.3e of |b_0| in %.1f s (%.2f ms a sweep)\n", rn->name,
            done, rn->xp[rn->xp_count - 1].rel, cum / 1000.0, rn->xp_ms_per_sweep);
    sinew_mgpbd_destroy(s);
    return 1;
}

/* ------------------------------------------------------------------ the suite */

/* Where the model's surface is: --model itself where it names a path (has a
 * '/'), else in SINEW_CGAL_DATA's meshes; "" where neither. */
static void model_file(const bench_mgpbd_options *o, char *path, size_t size)
{
    path[0] = '\0';
    if (strchr(o->model, '/'))
        snprintf(path, size, "%s", o->model);
    else if (o->meshes)
        snprintf(path, size, "%s/%s", o->meshes, o->model);
}

int bench_mgpbd(sinew_context *ctx, const bench_mgpbd_options *o, const char *out)
{
    const sinew_device_info di = sinew_context_get_device_info(ctx);
    const uint32_t max_runs = BENCH_MGPBD_MAX_SIZES + 1;
    run *runs = calloc(max_runs, sizeof *runs);
    if (!runs)
        return 0;
    uint32_t count = 0;
    int ok = 1;
    const double busy0 = host_busy_s(), own0 = own_cpu_s(), wall0 = sinew_host_ms();
    if (o->export_dir && mkdir(o->export_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "sinew-bench: cannot create %s: %s\n", o->export_dir, strerror(errno));
        free(runs);
        return 0;
    }
    if (o->export_dir) { /* sinew-amg.jsonl is appended run by run */
        char path[2048];
        snprintf(path, sizeof path, "%s/sinew-amg.jsonl", o->export_dir);
        remove(path);
    }

    /* The model at each size. */
    char model_path[2048];
    model_file(o, model_path, sizeof model_path);
    if (!model_path[0] && o->size_count)
        fprintf(stderr, "sinew-bench: mgpbd: no model (SINEW_CGAL_DATA is not set and --model names no path): the "
                        "bar only\n");
    sinew_mesh surface = {0};
    if (model_path[0] && o->size_count && sinew_mesh_read(model_path, NULL, &surface) != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-bench: mgpbd: cannot read %s\n", model_path);
        ok = 0;
    }
    char stem[48];
    {
        const char *base = strrchr(o->model, '/') ? strrchr(o->model, '/') + 1 : o->model;
        snprintf(stem, sizeof stem, "%s", base);
        char *dot = strrchr(stem, '.');
        if (dot)
            *dot = '\0';
    }
    uint32_t floor_count = 0;
    if (ok && surface.vertex_count && !o->lattice) {
        sinew_volume v;
        sinew_logger quiet = {silent, NULL, SINEW_LOG_ERROR};
        sinew_result r = sinew_volume_tetrahedralise(&surface, 0.0, o->quality, NULL, model_path, &quiet, &v);
        if (r == SINEW_RESULT_ERROR_UNSUPPORTED) {
            fprintf(stderr, "sinew-bench: mgpbd: TetGen is not installed (Debian: tetgen): the bar only\n");
            sinew_mesh_free(&surface);
        } else if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "sinew-bench: mgpbd: TetGen does not mesh %s: %s\n", model_path, sinew_result_string(r));
            ok = 0;
        } else {
            floor_count = v.tet_count;
            sinew_volume_free(&v);
        }
    }
    for (uint32_t k = 0; ok && surface.vertex_count && k < o->size_count; k++) {
        run *rn = &runs[count];
        snprintf(rn->scene, sizeof rn->scene, "model");
        double t0 = sinew_host_ms();
        sinew_volume v;
        sinew_result r = o->lattice ? lattice_volume(&surface, model_path, o->tets[k], &v, &rn->lattice_cells)
                                    : model_volume(&surface, model_path, o->tets[k], floor_count, o->quality, &v,
                                                   &rn->max_volume);
        sinew_asset *a = NULL;
        if (r == SINEW_RESULT_OK) {
            sinew_soft_options so = sinew_soft_options_default();
            so.source_name = stem;
            r = sinew_soft_build(&v, &so, NULL, &a, NULL);
            sinew_volume_free(&v);
        }
        if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "sinew-bench: mgpbd: %s at %u tets: %s\n", stem, o->tets[k], sinew_result_string(r));
            ok = 0;
            break;
        }
        rn->prep_ms = sinew_host_ms() - t0;
        count_asset(rn, a);
        snprintf(rn->name, sizeof rn->name, "%s-%u", stem, rn->tets);
        if (o->lattice)
            fprintf(stderr, "sinew-bench: mgpbd %-16s %u tets (target %u, lattice of %u cells), %u particles, %u "
                            "colours\n", rn->name, rn->tets, o->tets[k], rn->lattice_cells, rn->particles, rn->colours);
        else
            fprintf(stderr, "sinew-bench: mgpbd %-16s %u tets (target %u, TetGen -a %.3g), %u particles, %u colours\n",
                    rn->name, rn->tets, o->tets[k], rn->max_volume, rn->particles, rn->colours);
        set_particle_mass(a, o->particle_mass);
        float *x0 = squashed(a, o->squash);
        if (x0)
            run_scene(ctx, o, a, x0, rn); /* a failure is recorded in the run; the others go on */
        ok = x0 != NULL;
        free(x0);
        sinew_asset_destroy(a);
        count++;
    }
    sinew_mesh_free(&surface);

    /* The twisted bar. */
    if (ok && o->bar_cells) {
        run *rn = &runs[count];
        snprintf(rn->scene, sizeof rn->scene, "bar");
        double t0 = sinew_host_ms();
        sinew_asset *a = NULL;
        sinew_result r = bar_asset(o->bar_cells, &a);
        if (r != SINEW_RESULT_OK) {
            fprintf(stderr, "sinew-bench: mgpbd: the bar: %s\n", sinew_result_string(r));
            ok = 0;
        } else {
            rn->prep_ms = sinew_host_ms() - t0;
            count_asset(rn, a);
            snprintf(rn->name, sizeof rn->name, "bar-%u", rn->tets);
            fprintf(stderr, "sinew-bench: mgpbd %-16s %u tets, %u particles (%u pinned), %u colours\n", rn->name,
                    rn->tets, rn->particles, rn->pinned, rn->colours);
            set_particle_mass(a, o->particle_mass);
            float *x0 = twisted(a, o->twist_deg);
            if (x0)
                run_scene(ctx, o, a, x0, rn);
            ok = x0 != NULL;
            free(x0);
            sinew_asset_destroy(a);
            count++;
        }
    }
    double other = -1.0;
    const double busy1 = host_busy_s(), own1 = own_cpu_s(), wall = (sinew_host_ms() - wall0) / 1000.0;
    if (busy0 >= 0 && own0 >= 0 && wall > 0)
        other = fmax(busy1 - busy0 - (own1 - own0), 0.0) / wall;
    const int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);

    ok = mgpbd_write(o, out, runs, count, &di, other, cpus, wall) && ok;
    free(runs);
    return ok;
}

static int run_mgpbd(sinew_context *ctx, const void *o, const char *out) { return bench_mgpbd(ctx, o, out); }

/* sinew-bench --suite mgpbd: CGAL's models from SINEW_CGAL_DATA. A dry run:
 * a small model at its floor (its surface alone, no quality bound: 568 tets
 * for the ellipsoid), a 2 x 2 x 10-cell bar, a few iterations. */
int bench_mgpbd_suite(const bench_args *a)
{
    bench_mgpbd_options o = a->mgpbd;
    if (a->setup_interval_given)
        o.setup_interval = (int)a->setup_interval;
    char meshes[1024];
    const char *cgal = getenv("SINEW_CGAL_DATA");
    if (cgal && *cgal) {
        snprintf(meshes, sizeof meshes, "%s/meshes", cgal);
        o.meshes = meshes;
    }
    if (a->dry_run) {
        if (!a->model_given)
            o.model = "ellipsoid.off";
        if (!a->quality_given)
            o.quality = 0.0;
        if (!a->tets_given) {
            o.tets[0] = 1;
            o.size_count = 1;
        }
        o.bar_cells = 2;
        o.outer = o.outer == 100 ? 8 : o.outer;
        o.xpbd_sweeps = o.xpbd_sweeps == 10000 ? 50 : o.xpbd_sweeps;
    }
    o.plots = !a->no_plots;
    /* The model is checked before the device is opened. */
    char model[2048];
    model_file(&o, model, sizeof model);
    if (o.size_count && model[0] && !cli_input("sinew-bench", "--model", model))
        return 0;
    return bench_on_device(a, "mgpbd", run_mgpbd, &o);
}
