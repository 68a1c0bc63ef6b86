/* The implicit solver's step on tetrahedra in double (imc_solid_ref.h):
 * per-tetrahedron 12 x 12 stiffness from the stress's central differences,
 * projected by a full eigen-decomposition (fem_ref.c), applied element by
 * element; block-Jacobi PCG. */
#include "ref/imc_solid_ref.h"

#include "asset/asset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tet {
    uint32_t v[4];
    double r[4][3]; /* dF/dx_a = e_d r_a^T: rows of Dm^-1, r_0 = -(r_1 + r_2 + r_3) */
    double volume;
} tet;

struct imc_solid_ref {
    uint32_t n, t;
    fem_ref_material m;
    tet *tets;
    double *w;              /* inverse masses */
    double *x, *v;          /* the state */
    double *xp, *vp;        /* the step before's (BDF2) */
    int history;            /* xp, vp valid */
    double *K, *K0;         /* 144 per tetrahedron, V B^T H B (row-major 12 x 12): at the Newton
                               iterate, and at the step's start (Rayleigh damping's) */
    double stiff, damp;     /* the system's A = M + stiff K + damp K0 */
    double *f;              /* elastic forces, 3n */
    double *work;           /* 9 vectors of 3n, the diagonal blocks (9n) */
};

imc_solid_ref *imc_solid_ref_create(const sinew_asset *a, const fem_ref_material *m)
{
    for (uint32_t e = 0; e < a->element_count; e++)
        if (a->elements[e].kind != SINEW_ELEMENT_TET)
            return NULL;
    imc_solid_ref *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    const uint32_t n = a->particle_count, t = a->element_count;
    r->n = n, r->t = t, r->m = *m;
    r->tets = malloc(sizeof *r->tets * (t ? t : 1));
    r->w = malloc(sizeof *r->w * n);
    r->x = malloc(sizeof *r->x * 3 * n), r->v = calloc(3 * (size_t)n, sizeof *r->v);
    r->xp = malloc(sizeof *r->xp * 3 * n), r->vp = malloc(sizeof *r->vp * 3 * n);
    r->K = malloc(sizeof *r->K * 144 * (t ? t : 1));
    r->K0 = malloc(sizeof *r->K0 * 144 * (t ? t : 1));
    r->f = malloc(sizeof *r->f * 3 * n);
    r->work = malloc(sizeof *r->work * (9 * 3 + 9) * (size_t)n);
    if (!r->tets || !r->w || !r->x || !r->v || !r->xp || !r->vp || !r->K || !r->K0 || !r->f || !r->work) {
        imc_solid_ref_destroy(r);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        const sinew_particle_rec *p = &a->particles[i];
        r->x[3 * i] = p->x, r->x[3 * i + 1] = p->y, r->x[3 * i + 2] = p->z;
        r->w[i] = p->w;
    }
    for (uint32_t e = 0; e < t; e++) {
        const sinew_element_rec *el = &a->elements[e];
        tet *q = &r->tets[e];
        memcpy(q->v, el->v, sizeof q->v);
        q->volume = el->rest_measure;
        for (int c = 0; c < 3; c++) {
            q->r[0][c] = 0.0;
            for (int j = 0; j < 3; j++) {
                q->r[j + 1][c] = el->inv_rest[3 * c + j];
                q->r[0][c] -= q->r[j + 1][c];
            }
        }
    }
    return r;
}

void imc_solid_ref_destroy(imc_solid_ref *r)
{
    if (!r)
        return;
    free(r->tets), free(r->w), free(r->x), free(r->v), free(r->xp), free(r->vp), free(r->K), free(r->K0), free(r->f);
    free(r->work);
    free(r);
}

uint32_t imc_solid_ref_particle_count(const imc_solid_ref *r) { return r->n; }
double *imc_solid_ref_positions(imc_solid_ref *r) { return r->x; }
double *imc_solid_ref_velocities(imc_solid_ref *r) { return r->v; }
void imc_solid_ref_forget(imc_solid_ref *r) { r->history = 0; }

/* F = sum_a x_a r_a^T, column-major (F[3 c + d]: row d, column c). */
static void deformation(const tet *q, const double *x, double F[9])
{
    for (int c = 0; c < 3; c++)
        for (int d = 0; d < 3; d++) {
            double s = 0.0;
            for (int a = 0; a < 4; a++)
                s += x[3 * q->v[a] + d] * q->r[a][c];
            F[3 * c + d] = s;
        }
}

/* The elastic forces at x into r->f, and with `stiffness` each
 * tetrahedron's stiffness into r->K; with `damping` also Rayleigh damping's
 * into r->K0 (the stiffness itself where o->damp_rotations). */
static void forces(imc_solid_ref *r, const double *x, int stiffness, int damping, const imc_solid_options *o)
{
    memset(r->f, 0, sizeof *r->f * 3 * r->n);
    for (uint32_t e = 0; e < r->t; e++) {
        const tet *q = &r->tets[e];
        double F[9], P[9], H[81];
        deformation(q, x, F);
        fem_ref_stress(&r->m, F, P);
        for (int a = 0; a < 4; a++)
            for (int d = 0; d < 3; d++) {
                double g = 0.0;
                for (int j = 0; j < 3; j++)
                    g += P[3 * j + d] * q->r[a][j];
                r->f[3 * q->v[a] + d] -= q->volume * g;
            }
        if (!stiffness)
            continue;
        for (int pass = 0; pass < 1 + damping; pass++) {
            if (pass == 0 && o->exact_hessian)
                fem_ref_hessian(&r->m, F, H);
            else if (pass == 0 || o->damp_rotations)
                fem_ref_projected_hessian(&r->m, F, H);
            else
                fem_ref_damping_hessian(&r->m, F, H);
            double *K = pass ? &r->K0[144 * e] : &r->K[144 * e];
            for (int a = 0; a < 4; a++)
                for (int d = 0; d < 3; d++)         /* row: vertex a, component d */
                    for (int b = 0; b < 4; b++)
                        for (int c = 0; c < 3; c++) { /* column: vertex b, component c */
                            double s = 0.0;
                            for (int j = 0; j < 3; j++)
                                for (int l = 0; l < 3; l++)
                                    s += H[9 * (3 * j + d) + 3 * l + c] * q->r[a][j] * q->r[b][l];
                            K[12 * (3 * a + d) + 3 * b + c] = q->volume * s;
                        }
        }
    }
}

/* out = sum_e K_e in over one of the stiffness arrays, pinned rows and
 * columns out. */
static void stiffness_times(const imc_solid_ref *r, const double *Ks, const double *in, double *out)
{
    memset(out, 0, sizeof *out * 3 * r->n);
    for (uint32_t e = 0; e < r->t; e++) {
        const tet *q = &r->tets[e];
        const double *K = &Ks[144 * e];
        double u[12];
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 3; c++)
                u[3 * b + c] = r->w[q->v[b]] > 0.0 ? in[3 * q->v[b] + c] : 0.0;
        for (int a = 0; a < 4; a++)
            for (int d = 0; d < 3; d++) {
                double s = 0.0;
                for (int k = 0; k < 12; k++)
                    s += K[12 * (3 * a + d) + k] * u[k];
                out[3 * q->v[a] + d] += s;
            }
    }
    for (uint32_t i = 0; i < r->n; i++)
        if (!(r->w[i] > 0.0))
            out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = 0.0;
}

/* out = A in, A = M + stiff K + damp K0; tmp: 3n scratch. */
static void system_times(const imc_solid_ref *r, const double *in, double *out, double *tmp)
{
    stiffness_times(r, r->K, in, out);
    stiffness_times(r, r->K0, in, tmp);
    for (uint32_t i = 0; i < r->n; i++)
        for (int k = 0; k < 3; k++) {
            const uint32_t j = 3 * i + k;
            out[j] = r->w[i] > 0.0 ? in[j] / r->w[i] + r->stiff * out[j] + r->damp * tmp[j] : 0.0;
        }
}

static double dot(const double *a, const double *b, uint32_t m)
{
    double s = 0.0;
    for (uint32_t k = 0; k < m; k++)
        s += a[k] * b[k];
    return s;
}

static void invert3(const double A[9], double out[9])
{
    const double c00 = A[4] * A[8] - A[5] * A[7], c01 = A[5] * A[6] - A[3] * A[8], c02 = A[3] * A[7] - A[4] * A[6];
    const double det = A[0] * c00 + A[1] * c01 + A[2] * c02;
    out[0] = c00 / det, out[3] = c01 / det, out[6] = c02 / det;
    out[1] = (A[2] * A[7] - A[1] * A[8]) / det, out[4] = (A[0] * A[8] - A[2] * A[6]) / det;
    out[7] = (A[1] * A[6] - A[0] * A[7]) / det;
    out[2] = (A[1] * A[5] - A[2] * A[4]) / det, out[5] = (A[2] * A[3] - A[0] * A[5]) / det;
    out[8] = (A[0] * A[4] - A[1] * A[3]) / det;
}

/* Solves A y = b (A = M + the stored stiffness) from y = 0 by block-Jacobi
 * PCG over the free particles; returns the iterations. */
static uint32_t solve(imc_solid_ref *r, const double *b, double *y, double tolerance, uint32_t max_iterations)
{
    const uint32_t n = r->n, m = 3 * n;
    double *res = r->work, *z = res + m, *d = z + m, *q = d + m, *tmp = r->work + 8 * m, *Dinv = r->work + 9 * m;
    memset(Dinv, 0, sizeof *Dinv * 9 * n);
    for (uint32_t e = 0; e < r->t; e++) { /* the diagonal blocks */
        const tet *t = &r->tets[e];
        for (int a = 0; a < 4; a++)
            for (int dr = 0; dr < 3; dr++)
                for (int c = 0; c < 3; c++)
                    Dinv[9 * t->v[a] + 3 * dr + c] += r->stiff * r->K[144 * e + 12 * (3 * a + dr) + 3 * a + c] +
                                                      r->damp * r->K0[144 * e + 12 * (3 * a + dr) + 3 * a + c];
    }
    for (uint32_t i = 0; i < n; i++) {
        double D[9];
        memcpy(D, &Dinv[9 * i], sizeof D);
        if (r->w[i] > 0.0) {
            for (int k = 0; k < 3; k++)
                D[4 * k] += 1.0 / r->w[i];
            invert3(D, &Dinv[9 * i]);
        } else {
            memset(&Dinv[9 * i], 0, 9 * sizeof *Dinv);
        }
    }
    memset(y, 0, sizeof *y * m);
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            res[3 * i + k] = r->w[i] > 0.0 ? b[3 * i + k] : 0.0;
    const double r0 = sqrt(dot(res, res, m));
    if (max_iterations == 0)
        max_iterations = 20 * m + 100;
    uint32_t it = 0;
    double rz = 0.0;
    for (; it < max_iterations && sqrt(dot(res, res, m)) > tolerance * r0; it++) {
        for (uint32_t i = 0; i < n; i++)
            for (int a = 0; a < 3; a++)
                z[3 * i + a] = Dinv[9 * i + 3 * a] * res[3 * i] + Dinv[9 * i + 3 * a + 1] * res[3 * i + 1] +
                               Dinv[9 * i + 3 * a + 2] * res[3 * i + 2];
        const double rz_new = dot(res, z, m);
        for (uint32_t k = 0; k < m; k++)
            d[k] = z[k] + (it ? rz_new / rz : 0.0) * d[k];
        rz = rz_new;
        system_times(r, d, q, tmp);
        const double alpha = rz / dot(d, q, m);
        for (uint32_t k = 0; k < m; k++) {
            y[k] += alpha * d[k];
            res[k] -= alpha * q[k];
        }
    }
    return it;
}

/* Backward Euler of hs from (x0, v0) = (r->x, r->v), the new state in
 * place: Newton on
 *     R(dx) = hs^2 (f(x0 + dx) + M g) - hs beta K0 dx - M (dx - hs v0) = 0
 * (Rayleigh damping's K0 frozen at the first iterate's), each step solving
 * A y = R for the correction y from y = 0, A = M + (hs beta + hs^2) K, from
 * dx = hs v0: the first step's y = dx - hs v0 is the device's unknown.
 * Its forces and stiffness at the predictor x0 + hs v0, or (o->predictor
 * 0) at x0, f(x0 + dx) ~ f(x0) - K (dx) in the first step's R. */
static uint32_t backward_euler(imc_solid_ref *r, double hs, const double g[3], const imc_solid_options *o)
{
    const uint32_t n = r->n, m = 3 * n;
    double *x0 = r->work + 4 * m, *dx = x0 + m, *b = dx + m, *y = b + m;
    memcpy(x0, r->x, sizeof *x0 * m);
    for (uint32_t i = 0; i < m; i++)
        dx[i] = hs * r->v[i];
    r->stiff = hs * hs;
    r->damp = hs * o->damping;
    const uint32_t newton = o->newton > 1 ? o->newton : 1;
    uint32_t iterations = 0;
    for (uint32_t k = 0; k < newton; k++) {
        const int at_start = k == 0 && !o->predictor;
        for (uint32_t i = 0; i < m; i++)
            r->x[i] = x0[i] + (at_start ? 0.0 : dx[i]);
        forces(r, r->x, 1, k == 0, o);
        stiffness_times(r, r->K0, dx, y);
        for (uint32_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++) {
                const uint32_t j = 3 * i + c;
                const double mass = r->w[i] > 0.0 ? 1.0 / r->w[i] : 0.0;
                b[j] = hs * hs * (r->f[j] + mass * g[c]) - r->damp * y[j] - mass * (dx[j] - hs * r->v[j]);
            }
        if (at_start) { /* forces linearised at x0 */
            stiffness_times(r, r->K, dx, y);
            for (uint32_t i = 0; i < m; i++)
                b[i] -= r->stiff * y[i];
        }
        iterations += solve(r, b, y, o->tolerance, o->max_iterations);
        for (uint32_t i = 0; i < n; i++)
            if (r->w[i] > 0.0)
                for (int c = 0; c < 3; c++)
                    dx[3 * i + c] += y[3 * i + c];
    }
    for (uint32_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            const uint32_t j = 3 * i + c;
            if (r->w[i] > 0.0) {
                r->v[j] = dx[j] / hs;
                r->x[j] = x0[j] + dx[j];
            } else {
                r->x[j] = x0[j];
            }
        }
    return iterations;
}

void imc_solid_ref_step(imc_solid_ref *r, double h, const double gravity[3], const imc_solid_options *o,
                        uint32_t *iterations)
{
    const uint32_t m = 3 * r->n;
    uint32_t it = 0;
    switch (o->integrator) {
    case IMC_SOLID_BACKWARD_EULER:
        it = backward_euler(r, h, gravity, o);
        break;
    case IMC_SOLID_BDF2: {
        const int blend = r->history;
        for (uint32_t k = 0; k < m; k++) {
            const double x = r->x[k], v = r->v[k];
            if (blend) {
                r->x[k] = (4.0 * x - r->xp[k]) / 3.0;
                r->v[k] = (4.0 * v - r->vp[k]) / 3.0;
            }
            r->xp[k] = x, r->vp[k] = v;
        }
        r->history = 1;
        it = backward_euler(r, blend ? 2.0 * h / 3.0 : h, gravity, o);
        break;
    }
    case IMC_SOLID_MIDPOINT:
        memcpy(r->xp, r->x, sizeof *r->xp * m);
        memcpy(r->vp, r->v, sizeof *r->vp * m);
        it = backward_euler(r, 0.5 * h, gravity, o);
        for (uint32_t k = 0; k < m; k++) {
            r->x[k] = 2.0 * r->x[k] - r->xp[k];
            r->v[k] = 2.0 * r->v[k] - r->vp[k];
        }
        r->history = 0;
        break;
    }
    if (iterations)
        *iterations = it;
}

void imc_solid_momenta(uint32_t n, const double *x, const double *v, const double *w, double p[3], double L[3])
{
    double mass = 0.0, c[3] = {0, 0, 0};
    p[0] = p[1] = p[2] = L[0] = L[1] = L[2] = 0.0;
    for (uint32_t i = 0; i < n; i++)
        if (w[i] > 0.0) {
            mass += 1.0 / w[i];
            for (int k = 0; k < 3; k++) {
                c[k] += x[3 * i + k] / w[i];
                p[k] += v[3 * i + k] / w[i];
            }
        }
    for (int k = 0; k < 3; k++)
        c[k] /= mass;
    for (uint32_t i = 0; i < n; i++)
        if (w[i] > 0.0) {
            const double *xi = &x[3 * i], *vi = &v[3 * i], mi = 1.0 / w[i];
            const double d[3] = {xi[0] - c[0], xi[1] - c[1], xi[2] - c[2]};
            L[0] += mi * (d[1] * vi[2] - d[2] * vi[1]);
            L[1] += mi * (d[2] * vi[0] - d[0] * vi[2]);
            L[2] += mi * (d[0] * vi[1] - d[1] * vi[0]);
        }
}

void imc_solid_ref_momenta(const imc_solid_ref *r, double p[3], double L[3])
{
    imc_solid_momenta(r->n, r->x, r->v, r->w, p, L);
}

double imc_solid_ref_kinetic(const imc_solid_ref *r)
{
    double e = 0.0;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->w[i] > 0.0)
            e += 0.5 * dot(&r->v[3 * i], &r->v[3 * i], 3) / r->w[i];
    return e;
}

double imc_solid_ref_elastic(const imc_solid_ref *r)
{
    double e = 0.0;
    for (uint32_t k = 0; k < r->t; k++) {
        double F[9];
        deformation(&r->tets[k], r->x, F);
        e += r->tets[k].volume * fem_ref_psi(&r->m, F);
    }
    return e;
}
