/* MGPBD on the GPU against its CPU double references: the dual system's
 * assembly (tests/ref/mgpbd_ref.c), the AMG hierarchy's products, V-cycle and
 * lazy Galerkin update (src/solvers/amg.c), CG's iteration counts with and
 * without the AMG preconditioner, an outer iteration, and MGPBD's convergence
 * where XPBD stalls (the paper's claim, on a small real mesh). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h"
#include "gpu_fixture.h"
#include "prep/soft.h"
#include "prep/volume.h"
#include "ref/mgpbd_ref.h"
#include "solvers/mgpbd.h"

/* ------------------------------------------------------------ fixtures */

static double urand(unsigned *state, double lo, double hi)
{
    *state = *state * 1664525u + 1013904223u;
    return lo + (hi - lo) * ((*state >> 8) / 16777216.0);
}

/* A real volume mesh made by Gmsh (tests/data), as a soft body. */
static sinew_asset *load_soft(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, file);
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(path, gpu_logger(), &v), SINEW_RESULT_OK, "%s", path);
    sinew_soft_options o = sinew_soft_options_default();
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_soft_build(&v, &o, gpu_logger(), &a, NULL), SINEW_RESULT_OK);
    sinew_volume_free(&v);
    return a;
}

/* The asset's rest positions squashed to `squash` of their height about
 * the middle, with a deterministic jitter of `jitter` m. */
static double *squashed(const sinew_asset *a, double squash, double jitter)
{
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (uint32_t i = 0; i < a->particle_count; i++) {
        lo = fmin(lo, a->particles[i].y);
        hi = fmax(hi, a->particles[i].y);
    }
    double *x = malloc(sizeof *x * 3 * a->particle_count);
    unsigned seed = 7;
    for (uint32_t i = 0; i < a->particle_count; i++) {
        const sinew_particle_rec *p = &a->particles[i];
        x[3 * i] = p->x + urand(&seed, -jitter, jitter);
        x[3 * i + 1] = 0.5 * (lo + hi) + squash * (p->y - 0.5 * (lo + hi)) + urand(&seed, -jitter, jitter);
        x[3 * i + 2] = p->z + urand(&seed, -jitter, jitter);
    }
    return x;
}

static float *to_float(const double *x, size_t count)
{
    float *f = malloc(sizeof *f * (count + 1));
    for (size_t i = 0; i < count; i++)
        f[i] = (float)x[i];
    return f;
}

static double max_abs(const double *x, size_t count)
{
    double m = 0.0;
    for (size_t i = 0; i < count; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* The desc of the tests: the paper's stiff material. */
static sinew_mgpbd_desc stiff_desc(void)
{
    sinew_mgpbd_desc d = sinew_mgpbd_desc_default();
    d.distances = 0;
    d.shear_modulus = 1e9;
    return d;
}

static const float H = 0.01f;

/* A solver on bar-v2.msh squashed to 60 %, its reference and positions. */
typedef struct scene {
    sinew_asset *asset;
    sinew_mgpbd *s;
    mgpbd_ref ref;
    double *x;
} scene;

static scene make_scene(const char *file, sinew_mgpbd_desc d)
{
    scene sc;
    sc.asset = load_soft(file);
    cr_assert_eq(sinew_mgpbd_create(gpu_ctx, sc.asset, &d, &sc.s), SINEW_RESULT_OK);
    cr_assert(mgpbd_ref_make(sc.asset, d.distances, d.tets, d.distance_compliance, d.shear_modulus, &sc.ref));
    cr_assert_eq(sc.ref.m, sinew_mgpbd_constraint_count(sc.s));
    sc.x = squashed(sc.asset, 0.6, 1e-3);
    float *xf = to_float(sc.x, 3 * (size_t)sc.asset->particle_count);
    for (uint32_t i = 0; i < 3 * sc.asset->particle_count; i++)
        sc.x[i] = xf[i]; /* the reference starts where the device does */
    cr_assert_eq(sinew_mgpbd_set_state(sc.s, xf, NULL), SINEW_RESULT_OK);
    free(xf);
    return sc;
}

static void free_scene(scene *sc)
{
    sinew_mgpbd_destroy(sc->s);
    mgpbd_ref_free(&sc->ref);
    sinew_asset_destroy(sc->asset);
    free(sc->x);
}

TestSuite(mgpbd, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

/* ------------------------------------------------------------ assembly */

Test(mgpbd, dual_system_matches_the_reference)
{
    scene sc = make_scene("bracket-v2.msh", stiff_desc());
    const uint32_t m = sc.ref.m;
    cr_assert_eq(sinew_mgpbd_assemble(sc.s, H), SINEW_RESULT_OK);
    sinew_csr A;
    cr_assert_eq(sinew_mgpbd_read_matrix(sc.s, 0, &A), SINEW_RESULT_OK);
    double *Ad = malloc(sizeof *Ad * m * m), *b = malloc(sizeof *b * m), *lambda = calloc(m, sizeof *lambda);
    mgpbd_ref_system(&sc.ref, sc.x, lambda, H, Ad, b);
    double scale = max_abs(Ad, (size_t)m * m), err = 0.0, outside = 0.0;
    char *seen = calloc((size_t)m * m, 1);
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t e = A.row[i]; e < A.row[i + 1]; e++) {
            err = fmax(err, fabs(A.val[e] - Ad[(size_t)i * m + A.col[e]]));
            seen[(size_t)i * m + A.col[e]] = 1;
        }
    for (size_t k = 0; k < (size_t)m * m; k++)
        if (!seen[k])
            outside = fmax(outside, fabs(Ad[k]));
    float *bg = malloc(sizeof *bg * m);
    cr_assert_eq(sinew_mgpbd_read_rhs(sc.s, bg), SINEW_RESULT_OK);
    double berr = 0.0;
    for (uint32_t i = 0; i < m; i++)
        berr = fmax(berr, fabs(bg[i] - b[i]));
    printf("mgpbd assembly: %u tetrahedra, %u nonzeros (%.1f a row); A within %.2e of the reference (largest "
           "entry %.3e), b within %.2e (largest %.3e)\n",
           m, A.row[m], (double)A.row[m] / m, err, scale, berr, max_abs(b, m));
    cr_expect_eq(outside, 0.0, "the pattern misses an entry of %g", outside);
    cr_expect_lt(err, 1e-4 * scale);
    cr_expect_lt(berr, 1e-4 * max_abs(b, m));
    free(bg);
    free(seen);
    free(Ad);
    free(b);
    free(lambda);
    sinew_csr_free(&A);
    free_scene(&sc);
}

/* ------------------------------------------------------------ the hierarchy on the device */

static double rel_diff_f(const float *a, const double *b, uint32_t count)
{
    double e = 0.0, s = 0.0;
    for (uint32_t i = 0; i < count; i++) {
        e = fmax(e, fabs(a[i] - b[i]));
        s = fmax(s, fabs(b[i]));
    }
    return s > 0.0 ? e / s : e;
}

Test(mgpbd, products_vcycle_and_lazy_update_match_the_host)
{
    scene sc = make_scene("bracket-v2.msh", stiff_desc());
    const uint32_t m = sc.ref.m;
    cr_assert_eq(sinew_mgpbd_assemble(sc.s, H), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mgpbd_setup(sc.s), SINEW_RESULT_OK);
    const sinew_amg *H0 = sinew_mgpbd_amg(sc.s);
    cr_assert_geq(H0->levels, 2);
    unsigned seed = 3;
    double *xd = malloc(sizeof *xd * m), *yd = malloc(sizeof *yd * m);
    float *xf = malloc(sizeof *xf * m), *yf = malloc(sizeof *yf * m);
    for (uint32_t l = 0; l < H0->levels; l++)
        for (int which = 0; which < 3; which++) {
            if (which > 0 && l + 1 == H0->levels)
                continue;
            const sinew_csr *M = which == 0 ? &H0->L[l].A : which == 1 ? &H0->L[l].P : &H0->L[l].R;
            for (uint32_t i = 0; i < M->cols; i++)
                xd[i] = xf[i] = (float)urand(&seed, -1, 1);
            sinew_csr_spmv(M, xd, yd);
            cr_assert_eq(sinew_mgpbd_spmv(sc.s, l, which, xf, yf), SINEW_RESULT_OK);
            double e = rel_diff_f(yf, yd, M->rows);
            cr_expect_lt(e, 1e-5, "level %u, %s: %g", l, which == 0 ? "A" : which == 1 ? "P" : "R", e);
        }
    /* One V-cycle: float on the device against double on the host. */
    for (uint32_t i = 0; i < m; i++)
        xd[i] = xf[i] = (float)urand(&seed, -1, 1);
    sinew_amg_cycle cyc = sinew_amg_cycle_default();
    sinew_amg_vcycle(H0, &cyc, xd, yd);
    cr_assert_eq(sinew_mgpbd_vcycle(sc.s, xf, yf), SINEW_RESULT_OK);
    double ev = rel_diff_f(yf, yd, m);
    printf("mgpbd V-cycle (%u levels, rows", H0->levels);
    for (uint32_t l = 0; l < H0->levels; l++)
        printf(" %u", H0->L[l].A.rows);
    printf("): device within %.2e of the host's double\n", ev);
    cr_expect_lt(ev, 1e-3);

    /* Lazy setup: new positions, the coarse operators by the fixed P on the
     * device against the host's sinew_amg_update. */
    for (uint32_t i = 0; i < 3 * sc.asset->particle_count; i++)
        sc.x[i] += urand(&seed, -2e-3, 2e-3);
    float *xp = to_float(sc.x, 3 * (size_t)sc.asset->particle_count);
    cr_assert_eq(sinew_mgpbd_set_state(sc.s, xp, NULL), SINEW_RESULT_OK);
    free(xp);
    cr_assert_eq(sinew_mgpbd_assemble(sc.s, H), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mgpbd_galerkin(sc.s), SINEW_RESULT_OK);
    sinew_csr A0;
    cr_assert_eq(sinew_mgpbd_read_matrix(sc.s, 0, &A0), SINEW_RESULT_OK);
    for (uint32_t l = 1; l < H0->levels; l++) {
        sinew_csr Ag;
        cr_assert_eq(sinew_mgpbd_read_matrix(sc.s, l, &Ag), SINEW_RESULT_OK);
        /* R A P of this level's fine operator, by the host's products */
        const sinew_csr *Pl = &H0->L[l - 1].P, *Rl = &H0->L[l - 1].R;
        sinew_csr Af, AP, RAP;
        if (l == 1)
            cr_assert_eq(sinew_csr_copy(&A0, &Af, gpu_logger()), SINEW_RESULT_OK);
        else
            cr_assert_eq(sinew_mgpbd_read_matrix(sc.s, l - 1, &Af), SINEW_RESULT_OK);
        cr_assert_eq(sinew_csr_multiply(&Af, Pl, &AP, gpu_logger()), SINEW_RESULT_OK);
        cr_assert_eq(sinew_csr_multiply(Rl, &AP, &RAP, gpu_logger()), SINEW_RESULT_OK);
        double *dense = calloc((size_t)RAP.rows * RAP.cols, sizeof *dense), e = 0.0, s = 0.0;
        for (uint32_t i = 0; i < RAP.rows; i++)
            for (uint32_t k = RAP.row[i]; k < RAP.row[i + 1]; k++)
                dense[(size_t)i * RAP.cols + RAP.col[k]] = RAP.val[k];
        for (uint32_t i = 0; i < Ag.rows; i++)
            for (uint32_t k = Ag.row[i]; k < Ag.row[i + 1]; k++) {
                e = fmax(e, fabs(Ag.val[k] - dense[(size_t)i * RAP.cols + Ag.col[k]]));
                s = fmax(s, fabs(dense[(size_t)i * RAP.cols + Ag.col[k]]));
            }
        printf("mgpbd Galerkin operator of level %u on the device: within %.2e of R A P (largest %.3e)\n", l, e, s);
        cr_expect_lt(e, 1e-4 * s, "level %u", l);
        free(dense);
        sinew_csr_free(&Af);
        sinew_csr_free(&AP);
        sinew_csr_free(&RAP);
        sinew_csr_free(&Ag);
    }
    sinew_csr_free(&A0);
    free(xd);
    free(yd);
    free(xf);
    free(yf);
    free_scene(&sc);
}
