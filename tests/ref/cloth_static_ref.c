/* See cloth_static_ref.h. */
#include "ref/cloth_static_ref.h"

#include "math/xpbd_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct problem {
    const sinew_asset *a;
    const double *alpha, *g;
    uint32_t *dof;   /* free dof k of the solve: particle dof[k] / 3, component dof[k] % 3 */
    uint32_t m;      /* free dofs */
} problem;

static double hinge_angle(const sinew_bend_rec *q, const double *x, int *ok)
{
    double p[4][3];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++)
            p[i][k] = x[3 * q->v[i] + k];
    double c = sinew_dihedral_angle(p[0], p[1], p[2], p[3], ok) - q->rest_angle;
    return atan2(sin(c), cos(c));
}

/* The energy (gravity's potential included) and, when grad, its gradient
 * over all 3n coordinates. */
static double energy(const problem *p, const double *x, double *grad)
{
    const sinew_asset *a = p->a;
    double e = 0.0;
    if (grad)
        memset(grad, 0, sizeof *grad * 3 * a->particle_count);
    for (uint32_t j = 0; j < a->distance_count; j++) {
        const sinew_distance_rec *q = &a->distances[j];
        double d[3], len = 0.0;
        for (int k = 0; k < 3; k++)
            d[k] = x[3 * q->a + k] - x[3 * q->b + k], len += d[k] * d[k];
        len = sqrt(len);
        const double al = p->alpha[q->kind == 1 ? 1 : 0], c = len - q->rest;
        e += c * c / (2.0 * al);
        if (grad && len > 0.0)
            for (int k = 0; k < 3; k++) {
                grad[3 * q->a + k] += c / al * d[k] / len;
                grad[3 * q->b + k] -= c / al * d[k] / len;
            }
    }
    for (uint32_t j = 0; j < a->bend_count; j++) {
        const sinew_bend_rec *q = &a->bends[j];
        int ok = 0;
        const double c = hinge_angle(q, x, &ok);
        if (!ok)
            continue;
        e += c * c / (2.0 * p->alpha[2]);
        double pp[4][3], gr[4][3];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                pp[i][k] = x[3 * q->v[i] + k];
        if (grad && sinew_dihedral_gradient(pp[0], pp[1], pp[2], pp[3], gr))
            for (int i = 0; i < 4; i++)
                for (int k = 0; k < 3; k++)
                    grad[3 * q->v[i] + k] += c / p->alpha[2] * gr[i][k];
    }
    for (uint32_t i = 0; i < a->particle_count; i++) {
        if (a->particles[i].w <= 0.0f)
            continue;
        const double mass = 1.0 / a->particles[i].w;
        for (int k = 0; k < 3; k++) {
            e -= mass * p->g[k] * x[3 * i + k];
            if (grad)
                grad[3 * i + k] -= mass * p->g[k];
        }
    }
    return e;
}

/* Cholesky of the m x m matrix h (lower, in place); 0 when not positive definite. */
static int cholesky(double *h, uint32_t m)
{
    for (uint32_t j = 0; j < m; j++) {
        double s = h[(size_t)j * m + j];
        for (uint32_t k = 0; k < j; k++)
            s -= h[(size_t)j * m + k] * h[(size_t)j * m + k];
        if (!(s > 0.0))
            return 0;
        const double l = sqrt(s);
        h[(size_t)j * m + j] = l;
        for (uint32_t i = j + 1; i < m; i++) {
            double t = h[(size_t)i * m + j];
            for (uint32_t k = 0; k < j; k++)
                t -= h[(size_t)i * m + k] * h[(size_t)j * m + k];
            h[(size_t)i * m + j] = t / l;
        }
    }
    return 1;
}

static void cholesky_solve(const double *l, uint32_t m, double *b)
{
    for (uint32_t i = 0; i < m; i++) {
        for (uint32_t k = 0; k < i; k++)
            b[i] -= l[(size_t)i * m + k] * b[k];
        b[i] /= l[(size_t)i * m + i];
    }
    for (uint32_t i = m; i-- > 0;) {
        for (uint32_t k = i + 1; k < m; k++)
            b[i] -= l[(size_t)k * m + i] * b[k];
        b[i] /= l[(size_t)i * m + i];
    }
}

int cloth_static_ref_solve(const sinew_asset *a, const double alpha[3], const double gravity[3], double tolerance,
                           int max_iterations, double *x)
{
    const uint32_t n = a->particle_count;
    problem p = {a, alpha, gravity, malloc(sizeof(uint32_t) * 3 * n), 0};
    double weight = 0.0;
    for (uint32_t i = 0; i < n; i++)
        if (a->particles[i].w > 0.0f) {
            for (int k = 0; k < 3; k++)
                p.dof[p.m++] = 3 * i + (uint32_t)k;
            weight += sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] + gravity[2] * gravity[2]) /
                      a->particles[i].w;
        }
    const uint32_t m = p.m;
    double *g = malloc(sizeof *g * 3 * n), *gp = malloc(sizeof *gp * 3 * n), *gm = malloc(sizeof *gm * 3 * n);
    double *h = malloc(sizeof *h * m * m), *l = malloc(sizeof *l * m * m), *step = malloc(sizeof *step * m);
    double *trial = malloc(sizeof *trial * 3 * n);
    int result = -1;
    for (int it = 0; it < max_iterations; it++) {
        const double e = energy(&p, x, g);
        double norm = 0.0;
        for (uint32_t k = 0; k < m; k++)
            norm += g[p.dof[k]] * g[p.dof[k]];
        if (sqrt(norm) <= tolerance * weight) {
            result = it;
            break;
        }
        /* the Hessian by central differences of the gradient, symmetrised */
        for (uint32_t c = 0; c < m; c++) {
            const double x0 = x[p.dof[c]], eps = 1e-6 * fmax(1.0, fabs(x0));
            x[p.dof[c]] = x0 + eps;
            energy(&p, x, gp);
            x[p.dof[c]] = x0 - eps;
            energy(&p, x, gm);
            x[p.dof[c]] = x0;
            for (uint32_t r = 0; r < m; r++)
                h[(size_t)r * m + c] = (gp[p.dof[r]] - gm[p.dof[r]]) / (2.0 * eps);
        }
        double scale = 0.0;
        for (uint32_t r = 0; r < m; r++) {
            for (uint32_t c = r + 1; c < m; c++)
                h[(size_t)r * m + c] = h[(size_t)c * m + r] = 0.5 * (h[(size_t)r * m + c] + h[(size_t)c * m + r]);
            scale = fmax(scale, fabs(h[(size_t)r * m + r]));
        }
        /* shifted until positive definite (an indefinite Hessian away from the minimum) */
        for (double shift = 0.0;; shift = shift ? 10.0 * shift : 1e-10 * scale) {
            memcpy(l, h, sizeof *l * m * m);
            for (uint32_t r = 0; r < m; r++)
                l[(size_t)r * m + r] += shift;
            if (cholesky(l, m) || shift > scale)
                break;
        }
        for (uint32_t k = 0; k < m; k++)
            step[k] = -g[p.dof[k]];
        cholesky_solve(l, m, step);
        /* backtracking on the energy */
        double t = 1.0;
        for (int ls = 0; ls < 40; ls++, t *= 0.5) {
            memcpy(trial, x, sizeof *trial * 3 * n);
            for (uint32_t k = 0; k < m; k++)
                trial[p.dof[k]] += t * step[k];
            if (energy(&p, trial, NULL) <= e + 1e-12 * fabs(e))
                break;
        }
        memcpy(x, trial, sizeof *x * 3 * n);
    }
    free(p.dof), free(g), free(gp), free(gm), free(h), free(l), free(step), free(trial);
    return result;
}
