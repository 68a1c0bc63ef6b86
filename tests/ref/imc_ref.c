/* CPU double-precision reference of implicit cloth with constrainable
 * multigrid (imc_ref.h). Plain loops, nothing clever: the specification. */
#include "imc_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/xpbd_math.h"

typedef struct level {
    uint32_t nested;            /* index in the hierarchy */
    uint32_t n, t, hinge_count;
    const uint32_t *tri;
    uint32_t *hinge;            /* 4 per hinge */
    double *hinge_rest, *hinge_weight;
    double *bm, *area;          /* per triangle: inverse rest matrix (4), rest area */
    double *mass;               /* n */
    double *D;                  /* 9 per particle */
    imc_matrix A;
    double *u, *f, *res, *p, *z, *q; /* 3n each: the cycle's vectors */
} level;

struct imc_ref {
    const sinew_nested *nested;
    imc_material mat;
    int galerkin;               /* coarse operators P^T A P instead of discretised again */
    uint32_t count;             /* levels used; L[count - 1] the finest */
    level L[SINEW_NESTED_MAX_LEVELS];
    double *x, *v, *d, *b;      /* finest: 3n each */
};

static void galerkin_product(const imc_ref *r, level *C, const level *F);

/* ---------------------------------------------------------------- small helpers */

static void *zalloc(size_t n, size_t size) { return calloc(n ? n : 1, size); }

static double dot(const double *a, const double *b, uint32_t n)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* 3x3 inverse (row major) of a symmetric positive definite block. */
static void inverse3(const double *a, double *o)
{
    double c00 = a[4] * a[8] - a[5] * a[7], c01 = a[5] * a[6] - a[3] * a[8], c02 = a[3] * a[7] - a[4] * a[6];
    double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
    double s = det != 0.0 ? 1.0 / det : 0.0;
    o[0] = c00 * s;
    o[1] = (a[2] * a[7] - a[1] * a[8]) * s;
    o[2] = (a[1] * a[5] - a[2] * a[4]) * s;
    o[3] = c01 * s;
    o[4] = (a[0] * a[8] - a[2] * a[6]) * s;
    o[5] = (a[2] * a[3] - a[0] * a[5]) * s;
    o[6] = c02 * s;
    o[7] = (a[1] * a[6] - a[0] * a[7]) * s;
    o[8] = (a[0] * a[4] - a[1] * a[3]) * s;
}

static void mul3(const double *m, const double *x, double *y)
{
    for (int r = 0; r < 3; r++)
        y[r] = m[3 * r] * x[0] + m[3 * r + 1] * x[1] + m[3 * r + 2] * x[2];
}

/* ---------------------------------------------------------------- setup */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The block pattern: each triangle's and each hinge's vertices pairwise. */
static void build_pattern(level *L)
{
    const uint32_t n = L->n;
    uint32_t *count = zalloc(n + 1, sizeof *count);
    for (uint32_t k = 0; k < 3 * L->t; k++)
        count[L->tri[k] + 1] += 3;
    for (uint32_t k = 0; k < 4 * L->hinge_count; k++)
        count[L->hinge[k] + 1] += 4;
    for (uint32_t i = 0; i < n; i++)
        count[i + 1] += count[i];
    uint32_t *all = zalloc(count[n], sizeof *all), *fill = zalloc(n, sizeof *fill);
    memcpy(fill, count, sizeof *fill * n);
    for (uint32_t k = 0; k < L->t; k++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                all[fill[L->tri[3 * k + a]]++] = L->tri[3 * k + b];
    for (uint32_t k = 0; k < L->hinge_count; k++)
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                all[fill[L->hinge[4 * k + a]]++] = L->hinge[4 * k + b];
    L->A.n = n;
    L->A.row = zalloc(n + 1, sizeof *L->A.row);
    L->A.col = zalloc(count[n], sizeof *L->A.col);
    L->A.diag = zalloc(n, sizeof *L->A.diag);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        qsort(all + count[i], count[i + 1] - count[i], sizeof *all, cmp_u32);
        L->A.row[i] = k;
        for (uint32_t j = count[i]; j < count[i + 1]; j++)
            if (j == count[i] || all[j] != all[j - 1]) {
                if (all[j] == i)
                    L->A.diag[i] = k;
                L->A.col[k++] = all[j];
            }
    }
    L->A.row[n] = k;
    L->A.val = zalloc(9 * (size_t)k, sizeof *L->A.val);
    free(count);
    free(all);
    free(fill);
}

static double *block(level *L, uint32_t i, uint32_t j)
{
    uint32_t lo = L->A.row[i], hi = L->A.row[i + 1];
    while (lo < hi) { /* columns sorted */
        uint32_t m = (lo + hi) / 2;
        if (L->A.col[m] < j)
            lo = m + 1;
        else
            hi = m;
    }
    return &L->A.val[9 * (size_t)lo];
}

static void setup_level(imc_ref *r, level *L, uint32_t nested_level, const double *warp)
{
    const sinew_nested_level *N = &r->nested->levels[nested_level];
    const double *X = r->nested->positions; /* the rest shape */
    L->nested = nested_level;
    L->n = N->vertex_count;
    L->t = N->triangle_count;
    L->tri = N->triangles;
    L->bm = zalloc(4 * (size_t)L->t, sizeof *L->bm);
    L->area = zalloc(L->t, sizeof *L->area);
    L->mass = zalloc(L->n, sizeof *L->mass);
    for (uint32_t k = 0; k < L->t; k++) {
        const double *a = &X[3 * L->tri[3 * k]], *b = &X[3 * L->tri[3 * k + 1]], *c = &X[3 * L->tri[3 * k + 2]];
        double e1[3], e2[3], nrm[3], u[3], v[3];
        sinew_v3_sub(b, a, e1);
        sinew_v3_sub(c, a, e2);
        sinew_v3_cross(e1, e2, nrm);
        double ln = sqrt(dot(nrm, nrm, 3));
        /* warp: the one given, projected on the plane; where none is (0),
         * x projected on the plane; z where x lies within 0.1 rad of the
         * normal (|projection| < 0.1) */
        double xn = nrm[0] / ln, ux[3] = {1.0 - xn * nrm[0] / ln, -xn * nrm[1] / ln, -xn * nrm[2] / ln};
        const double *w = warp ? &warp[3 * (size_t)k] : NULL, wn = w ? dot(w, nrm, 3) / ln : 0.0;
        const double uw[3] = {w ? w[0] - wn * nrm[0] / ln : 0.0, w ? w[1] - wn * nrm[1] / ln : 0.0,
                              w ? w[2] - wn * nrm[2] / ln : 0.0};
        if (dot(uw, uw, 3) >= 0.01) {
            memcpy(u, uw, sizeof u);
        } else if (dot(ux, ux, 3) >= 0.01) {
            memcpy(u, ux, sizeof u);
        } else {
            double zn = nrm[2] / ln;
            u[0] = -zn * nrm[0] / ln, u[1] = -zn * nrm[1] / ln, u[2] = 1.0 - zn * nrm[2] / ln;
        }
        double lu = sqrt(dot(u, u, 3));
        for (int d = 0; d < 3; d++)
            u[d] /= lu;
        sinew_v3_cross(nrm, u, v);
        for (int d = 0; d < 3; d++)
            v[d] /= ln;
        /* Bm = [e1 e2] in (u, v); Bm^-1 row-major */
        double m00 = dot(e1, u, 3), m01 = dot(e2, u, 3), m10 = dot(e1, v, 3), m11 = dot(e2, v, 3);
        double det = m00 * m11 - m01 * m10;
        L->bm[4 * k + 0] = m11 / det;
        L->bm[4 * k + 1] = -m01 / det;
        L->bm[4 * k + 2] = -m10 / det;
        L->bm[4 * k + 3] = m00 / det;
        L->area[k] = 0.5 * ln;
        for (int c3 = 0; c3 < 3; c3++)
            L->mass[L->tri[3 * k + c3]] += r->mat.density * L->area[k] / 3.0;
    }
    sinew_nested_hinges(N, &L->hinge, &L->hinge_count);
    L->hinge_rest = zalloc(L->hinge_count, sizeof *L->hinge_rest);
    L->hinge_weight = zalloc(L->hinge_count, sizeof *L->hinge_weight);
    for (uint32_t k = 0; k < L->hinge_count; k++) {
        const uint32_t *h = &L->hinge[4 * k];
        const double *p[4] = {&X[3 * h[0]], &X[3 * h[1]], &X[3 * h[2]], &X[3 * h[3]]};
        int ok;
        L->hinge_rest[k] = sinew_dihedral_angle(p[0], p[1], p[2], p[3], &ok);
        double e[3], a1[3], a2[3], n1[3], n2[3];
        sinew_v3_sub(p[1], p[0], e);
        sinew_v3_sub(p[2], p[0], a1);
        sinew_v3_sub(p[3], p[0], a2);
        sinew_v3_cross(e, a1, n1);
        sinew_v3_cross(e, a2, n2);
        double areas = 0.5 * (sqrt(dot(n1, n1, 3)) + sqrt(dot(n2, n2, 3)));
        L->hinge_weight[k] = 3.0 * dot(e, e, 3) / areas;
    }
    L->D = zalloc(9 * (size_t)L->n, sizeof *L->D);
    build_pattern(L);
    double **vecs[6] = {&L->u, &L->f, &L->res, &L->p, &L->z, &L->q};
    for (int i = 0; i < 6; i++)
        *vecs[i] = zalloc(3 * (size_t)L->n, sizeof(double));
}

imc_ref *imc_ref_create(const sinew_nested *nested, uint32_t first_level, const imc_material *m)
{
    return imc_ref_create_framed(nested, first_level, m, NULL);
}

imc_ref *imc_ref_create_framed(const sinew_nested *nested, uint32_t first_level, const imc_material *m,
                               const double *const *warp)
{
    imc_ref *r = zalloc(1, sizeof *r);
    r->nested = nested;
    r->mat = *m;
    r->count = nested->level_count - first_level;
    for (uint32_t k = 0; k < r->count; k++)
        setup_level(r, &r->L[k], first_level + k, warp ? warp[k] : NULL);
    uint32_t n = r->L[r->count - 1].n;
    r->x = zalloc(3 * (size_t)n, sizeof *r->x);
    r->v = zalloc(3 * (size_t)n, sizeof *r->v);
    r->d = zalloc(3 * (size_t)n, sizeof *r->d);
    r->b = zalloc(3 * (size_t)n, sizeof *r->b);
    memcpy(r->x, nested->positions, sizeof *r->x * 3 * n);
    return r;
}

void imc_ref_destroy(imc_ref *r)
{
    if (!r)
        return;
    for (uint32_t k = 0; k < r->count; k++) {
        level *L = &r->L[k];
        void *ps[] = {L->hinge, L->hinge_rest, L->hinge_weight, L->bm, L->area, L->mass, L->D, L->A.row,
                      L->A.col, L->A.diag, L->A.val, L->u, L->f, L->res, L->p, L->z, L->q};
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
            free(ps[i]);
    }
    free(r->x);
    free(r->v);
    free(r->d);
    free(r->b);
    free(r);
}

uint32_t imc_ref_particle_count(const imc_ref *r) { return r->L[r->count - 1].n; }
uint32_t imc_ref_level_count(const imc_ref *r) { return r->count; }
double *imc_ref_positions(imc_ref *r) { return r->x; }
double *imc_ref_velocities(imc_ref *r) { return r->v; }
const imc_matrix *imc_ref_matrix(const imc_ref *r, uint32_t index) { return &r->L[index].A; }
const double *imc_ref_rhs(const imc_ref *r) { return r->b; }

void imc_ref_set_constraint(imc_ref *r, uint32_t i, const double D[9], const double d[3])
{
    level *F = &r->L[r->count - 1];
    memcpy(&F->D[9 * (size_t)i], D, 9 * sizeof *D);
    memcpy(&r->d[3 * (size_t)i], d, 3 * sizeof *d);
}

void imc_ref_point_constraint(double k_c, double D[9])
{
    memset(D, 0, 9 * sizeof *D);
    D[0] = D[4] = D[8] = k_c;
}

void imc_ref_sliding_constraint(double k_c, double k_f, const double nrm[3], double D[9])
{
    double l = sqrt(dot(nrm, nrm, 3));
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double nn = nrm[a] * nrm[b] / (l * l);
            D[3 * a + b] = k_c * nn + k_f * ((a == b) - nn);
        }
}

/* ---------------------------------------------------------------- energies */

/* Adds the level's elastic energy, forces (if f) and Jacobian K = -df/dx
 * times scale (into A, if scale != 0) at positions x. */
static double elastic(const imc_ref *r, level *L, const double *x, double *f, double scale)
{
    const imc_material *m = &r->mat;
    double energy = 0.0;
    for (uint32_t k = 0; k < L->t; k++) {
        const uint32_t *v = &L->tri[3 * k];
        const double *B = &L->bm[4 * k], a = L->area[k];
        double d1[3], d2[3], wu[3], wv[3];
        sinew_v3_sub(&x[3 * v[1]], &x[3 * v[0]], d1);
        sinew_v3_sub(&x[3 * v[2]], &x[3 * v[0]], d2);
        for (int d = 0; d < 3; d++) {
            wu[d] = d1[d] * B[0] + d2[d] * B[2];
            wv[d] = d1[d] * B[1] + d2[d] * B[3];
        }
        const double cu[3] = {-(B[0] + B[2]), B[0], B[2]}, cv[3] = {-(B[1] + B[3]), B[1], B[3]};
        /* Stretch along u and v: exact Hessian, its compression part clamped. */
        for (int axis = 0; axis < 2; axis++) {
            const double *w = axis ? wv : wu, *c = axis ? cv : cu;
            double l = sqrt(dot(w, w, 3)), C = l - 1.0, hat[3] = {w[0] / l, w[1] / l, w[2] / l};
            energy += 0.5 * m->stretch * a * C * C;
            if (f)
                for (int p = 0; p < 3; p++)
                    for (int d = 0; d < 3; d++)
                        f[3 * v[p] + d] -= m->stretch * a * C * c[p] * hat[d];
            if (scale != 0.0) {
                double H[9], t = C > 0.0 ? C / l : 0.0;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        H[3 * i + j] = hat[i] * hat[j] + t * ((i == j) - hat[i] * hat[j]);
                for (int p = 0; p < 3; p++)
                    for (int q = 0; q < 3; q++) {
                        double *blk = block(L, v[p], v[q]), s = scale * m->stretch * a * c[p] * c[q];
                        for (int e = 0; e < 9; e++)
                            blk[e] += s * H[e];
                    }
            }
        }
        /* Shear: Gauss-Newton. */
        double s = dot(wu, wv, 3), g[3][3];
        energy += 0.5 * m->shear * a * s * s;
        for (int p = 0; p < 3; p++)
            for (int d = 0; d < 3; d++)
                g[p][d] = cu[p] * wv[d] + cv[p] * wu[d];
        if (f)
            for (int p = 0; p < 3; p++)
                for (int d = 0; d < 3; d++)
                    f[3 * v[p] + d] -= m->shear * a * s * g[p][d];
        if (scale != 0.0)
            for (int p = 0; p < 3; p++)
                for (int q = 0; q < 3; q++) {
                    double *blk = block(L, v[p], v[q]);
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++)
                            blk[3 * i + j] += scale * m->shear * a * g[p][i] * g[q][j];
                }
    }
    /* Bending: Gauss-Newton. */
    for (uint32_t k = 0; k < L->hinge_count; k++) {
        const uint32_t *h = &L->hinge[4 * k];
        const double *p[4] = {&x[3 * h[0]], &x[3 * h[1]], &x[3 * h[2]], &x[3 * h[3]]};
        int ok;
        double theta = sinew_dihedral_angle(p[0], p[1], p[2], p[3], &ok), g[4][3];
        if (!ok || !sinew_dihedral_gradient(p[0], p[1], p[2], p[3], g))
            continue;
        double kw = m->bend * L->hinge_weight[k], e = theta - L->hinge_rest[k];
        energy += 0.5 * kw * e * e;
        if (f)
            for (int a = 0; a < 4; a++)
                for (int d = 0; d < 3; d++)
                    f[3 * h[a] + d] -= kw * e * g[a][d];
        if (scale != 0.0)
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++) {
                    double *blk = block(L, h[a], h[b]);
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++)
                            blk[3 * i + j] += scale * kw * g[a][i] * g[b][j];
                }
    }
    return energy;
}

double imc_ref_energy(const imc_ref *r)
{
    return elastic(r, (level *)&r->L[r->count - 1], r->x, NULL, 0.0);
}

void imc_ref_forces(const imc_ref *r, double *f)
{
    const level *F = &r->L[r->count - 1];
    memset(f, 0, sizeof *f * 3 * F->n);
    elastic(r, (level *)F, r->x, f, 0.0);
}

/* ---------------------------------------------------------------- assembly */

void imc_ref_assemble(imc_ref *r, double h, const double gravity[3])
{
    const double stiff = h * r->mat.damping + h * h;
    /* Soft constraints coarsened level by level: D_c,i = D_i + 1/2 sum over
     * the midpoints i is a parent of. */
    for (uint32_t k = r->count - 1; k > 0; k--)
        sinew_nested_restrict(r->nested, r->L[k].nested, 9, r->L[k].D, r->L[k - 1].D);
    for (uint32_t k = r->galerkin ? r->count - 1 : 0; k < r->count; k++) {
        level *L = &r->L[k];
        memset(L->A.val, 0, sizeof *L->A.val * 9 * L->A.row[L->n]);
        elastic(r, L, r->x, NULL, stiff);
        for (uint32_t i = 0; i < L->n; i++) {
            double *blk = &L->A.val[9 * (size_t)L->A.diag[i]];
            for (int e = 0; e < 9; e++)
                blk[e] += h * h * L->D[9 * (size_t)i + e] + (e % 4 == 0 ? L->mass[i] : 0.0);
        }
    }
    if (r->galerkin)
        for (uint32_t k = r->count - 1; k > 0; k--)
            galerkin_product(r, &r->L[k - 1], &r->L[k]);
    level *F = &r->L[r->count - 1];
    memset(r->b, 0, sizeof *r->b * 3 * F->n);
    elastic(r, F, r->x, r->b, 0.0);  /* b = f first */
    for (uint32_t i = 0; i < F->n; i++) {
        double Dd[3];
        mul3(&F->D[9 * (size_t)i], &r->d[3 * (size_t)i], Dd);
        for (int d = 0; d < 3; d++)
            r->b[3 * i + d] = h * F->mass[i] * r->v[3 * i + d] +
                              h * h * (r->b[3 * i + d] + Dd[d] + F->mass[i] * gravity[d]);
    }
}

void imc_ref_set_galerkin(imc_ref *r, int on) { r->galerkin = on; }

/* A_c = P^T A_f P, on the coarse level's pattern (which holds it: every fine
 * triangle's and hinge's parents lie in one coarse triangle or hinge). */
static void galerkin_product(const imc_ref *r, level *C, const level *F)
{
    const uint32_t *par = r->nested->parents;
    memset(C->A.val, 0, sizeof *C->A.val * 9 * C->A.row[C->n]);
    for (uint32_t i = 0; i < F->n; i++) {
        uint32_t ci[2] = {i, UINT32_MAX};
        double wi[2] = {1.0, 0.0};
        if (i >= C->n) {
            ci[0] = par[2 * i];
            ci[1] = par[2 * i + 1];
            wi[0] = wi[1] = 0.5;
        }
        for (uint32_t k = F->A.row[i]; k < F->A.row[i + 1]; k++) {
            uint32_t j = F->A.col[k], cj[2] = {j, UINT32_MAX};
            double wj[2] = {1.0, 0.0};
            if (j >= C->n) {
                cj[0] = par[2 * j];
                cj[1] = par[2 * j + 1];
                wj[0] = wj[1] = 0.5;
            }
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++) {
                    if (wi[a] == 0.0 || wj[b] == 0.0)
                        continue;
                    double *blk = block(C, ci[a], cj[b]);
                    for (int e = 0; e < 9; e++)
                        blk[e] += wi[a] * wj[b] * F->A.val[9 * (size_t)k + e];
                }
        }
    }
}

void imc_ref_spmv(const imc_matrix *A, const double *x, double *y)
{
    for (uint32_t i = 0; i < A->n; i++) {
        double s[3] = {0, 0, 0};
        for (uint32_t k = A->row[i]; k < A->row[i + 1]; k++) {
            double t[3];
            mul3(&A->val[9 * (size_t)k], &x[3 * A->col[k]], t);
            for (int d = 0; d < 3; d++)
                s[d] += t[d];
        }
        memcpy(&y[3 * i], s, sizeof s);
    }
}

/* ---------------------------------------------------------------- solvers */

static void residual(const level *L, const double *u, const double *f, double *res)
{
    imc_ref_spmv(&L->A, u, res);
    for (uint32_t i = 0; i < 3 * L->n; i++)
        res[i] = f[i] - res[i];
}

static void jacobi(const level *L, const double *res, double *z)
{
    for (uint32_t i = 0; i < L->n; i++) {
        double inv[9];
        inverse3(&L->A.val[9 * (size_t)L->A.diag[i]], inv);
        mul3(inv, &res[3 * i], &z[3 * i]);
    }
}

/* Block-Jacobi PCG on a level from u, at most `iterations` or until
 * |f - A u| <= tol |f|; returns the iterations done. */
static uint32_t pcg(level *L, double *u, const double *f, uint32_t iterations, double tol, imc_stats *st)
{
    const uint32_t m = 3 * L->n;
    double *res = L->res, *p = L->p, *z = L->z, *q = L->q;
    residual(L, u, f, res);
    double f_norm = sqrt(dot(f, f, m));
    if (f_norm == 0.0)
        f_norm = 1.0;
    jacobi(L, res, z);
    memcpy(p, z, sizeof *p * m);
    double rz = dot(res, z, m);
    uint32_t it = 0;
    while (it < iterations && sqrt(dot(res, res, m)) > tol * f_norm && rz > 0.0) {
        imc_ref_spmv(&L->A, p, q);
        double alpha = rz / dot(p, q, m);
        for (uint32_t i = 0; i < m; i++) {
            u[i] += alpha * p[i];
            res[i] -= alpha * q[i];
        }
        jacobi(L, res, z);
        double rz2 = dot(res, z, m);
        for (uint32_t i = 0; i < m; i++)
            p[i] = z[i] + rz2 / rz * p[i];
        rz = rz2;
        it++;
        if (st && it <= 256)
            st->history[it - 1] = sqrt(dot(res, res, m)) / f_norm;
    }
    return it;
}

/* One coloured block Gauss-Seidel sweep: colour by colour, each particle
 * solving its own 3x3 block against its neighbours' latest values. */
static void gauss_seidel(const imc_ref *r, level *L, double *u, const double *f)
{
    const sinew_nested_level *N = &r->nested->levels[L->nested];
    for (uint32_t c = 0; c < N->colour_count; c++)
        for (uint32_t j = N->colour_offsets[c]; j < N->colour_offsets[c + 1]; j++) {
            uint32_t i = N->colour_vertices[j];
            double s[3] = {f[3 * i], f[3 * i + 1], f[3 * i + 2]}, inv[9];
            for (uint32_t k = L->A.row[i]; k < L->A.row[i + 1]; k++) {
                if (L->A.col[k] == i)
                    continue;
                double t[3];
                mul3(&L->A.val[9 * (size_t)k], &u[3 * L->A.col[k]], t);
                for (int d = 0; d < 3; d++)
                    s[d] -= t[d];
            }
            inverse3(&L->A.val[9 * (size_t)L->A.diag[i]], inv);
            mul3(inv, s, &u[3 * i]);
        }
}

static void vcycle(imc_ref *r, uint32_t k, double *u, const double *f, uint32_t pre, uint32_t post)
{
    level *L = &r->L[k];
    if (k == 0) {
        pcg(L, u, f, 10 * L->n + 100, 1e-10, NULL);
        return;
    }
    level *C = &r->L[k - 1];
    pcg(L, u, f, pre, 0.0, NULL);
    residual(L, u, f, L->res);
    sinew_nested_restrict(r->nested, L->nested, 3, L->res, C->f);
    memset(C->u, 0, sizeof *C->u * 3 * C->n);
    vcycle(r, k - 1, C->u, C->f, pre, post);
    sinew_nested_prolong(r->nested, L->nested, 3, C->u, L->q);
    for (uint32_t i = 0; i < 3 * L->n; i++)
        u[i] += L->q[i];
    for (uint32_t s = 0; s < post; s++)
        gauss_seidel(r, L, u, f);
}

void imc_ref_solve_mg(imc_ref *r, double *dx, double tol, uint32_t max_cycles, uint32_t pre, uint32_t post,
                      imc_stats *st)
{
    level *F = &r->L[r->count - 1];
    const uint32_t m = 3 * F->n;
    double *res = zalloc(m, sizeof *res);
    double b_norm = sqrt(dot(r->b, r->b, m));
    memset(st, 0, sizeof *st);
    st->residual0 = b_norm;
    residual(F, dx, r->b, res);
    double rel = sqrt(dot(res, res, m)) / (b_norm > 0.0 ? b_norm : 1.0);
    while (st->iterations < max_cycles && rel > tol) {
        vcycle(r, r->count - 1, dx, r->b, pre, post);
        residual(F, dx, r->b, res);
        rel = sqrt(dot(res, res, m)) / (b_norm > 0.0 ? b_norm : 1.0);
        if (st->iterations < 256)
            st->history[st->iterations] = rel;
        st->iterations++;
    }
    st->residual = rel * (b_norm > 0.0 ? b_norm : 1.0);
    free(res);
}

void imc_ref_solve_pcg(imc_ref *r, double *dx, double tol, uint32_t max_iterations, imc_stats *st)
{
    level *F = &r->L[r->count - 1];
    const uint32_t m = 3 * F->n;
    memset(st, 0, sizeof *st);
    st->residual0 = sqrt(dot(r->b, r->b, m));
    st->iterations = pcg(F, dx, r->b, max_iterations, tol, st);
    residual(F, dx, r->b, F->res);
    st->residual = sqrt(dot(F->res, F->res, m));
}

void imc_ref_advance(imc_ref *r, const double *dx, double h)
{
    const uint32_t m = 3 * r->L[r->count - 1].n;
    for (uint32_t i = 0; i < m; i++) {
        r->x[i] += dx[i];
        r->v[i] = dx[i] / h;
    }
}
