/* CPU double-precision reference of MGPBD: see mgpbd_ref.h. */
#include "mgpbd_ref.h"

#include "gpbd_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mgpbd_ref_make(const sinew_asset *a, int distances, int tets, double distance_compliance, double shear_modulus,
                   mgpbd_ref *out)
{
    memset(out, 0, sizeof *out);
    uint32_t d = distances ? a->distance_count : 0, t = 0;
    for (uint32_t e = 0; tets && e < a->element_count; e++)
        t += a->elements[e].kind == SINEW_ELEMENT_TET;
    out->n = a->particle_count;
    out->d = d;
    out->t = t;
    out->m = d + t;
    out->cons = malloc(16 * ((size_t)out->m + 1));
    out->rest = calloc(9 * ((size_t)out->m + 1), sizeof *out->rest);
    out->alpha = calloc((size_t)out->m + 1, sizeof *out->alpha);
    out->w = malloc(sizeof *out->w * ((size_t)out->n + 1));
    if (!out->cons || !out->rest || !out->alpha || !out->w)
        return 0;
    for (uint32_t i = 0; i < out->n; i++)
        out->w[i] = a->particles[i].w;
    for (uint32_t c = 0; c < d; c++) {
        out->cons[4 * c] = a->distances[c].a;
        out->cons[4 * c + 1] = a->distances[c].b;
        out->cons[4 * c + 2] = out->cons[4 * c + 3] = UINT32_MAX;
        out->rest[9 * c] = a->distances[c].rest;
        out->alpha[c] = distance_compliance;
    }
    uint32_t c = d;
    for (uint32_t k = 0; tets && k < a->element_colour_count; k++)
        for (uint32_t e = a->element_colours[k].begin; e < a->element_colours[k].begin + a->element_colours[k].count;
             e++) {
            const sinew_element_rec *E = &a->elements[e];
            if (E->kind != SINEW_ELEMENT_TET)
                continue;
            double mu = shear_modulus;
            if (mu == 0.0)
                mu = a->materials[E->material].youngs_modulus / (2.0 * (1.0 + a->materials[E->material].poisson_ratio));
            memcpy(&out->cons[4 * c], E->v, 16);
            for (int k2 = 0; k2 < 9; k2++)
                out->rest[9 * c + k2] = E->inv_rest[k2];
            out->alpha[c] = 1.0 / (mu * E->rest_measure);
            c++;
        }
    return 1;
}

void mgpbd_ref_free(mgpbd_ref *r)
{
    free(r->cons);
    free(r->rest);
    free(r->alpha);
    free(r->w);
    memset(r, 0, sizeof *r);
}

static void mat_vec(const double M[9], const double v[3], double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = M[r] * v[0] + M[3 + r] * v[1] + M[6 + r] * v[2];
}

void mgpbd_ref_rotation(const double F[9], double R[9])
{
    double FtF[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++)
                s += F[3 * i + k] * F[3 * j + k];
            FtF[3 * j + i] = s;
        }
    double V[9], ev[3], U[9];
    gpbd_ref_eigen_sym3(FtF, V, ev);
    mat_vec(F, &V[0], &U[0]);
    double n0 = sqrt(U[0] * U[0] + U[1] * U[1] + U[2] * U[2]);
    if (n0 < 1e-300) {
        U[0] = 1, U[1] = 0, U[2] = 0;
    } else {
        for (int k = 0; k < 3; k++)
            U[k] /= n0;
    }
    mat_vec(F, &V[3], &U[3]);
    double d01 = U[0] * U[3] + U[1] * U[4] + U[2] * U[5];
    for (int k = 0; k < 3; k++)
        U[3 + k] -= d01 * U[k];
    double n1 = sqrt(U[3] * U[3] + U[4] * U[4] + U[5] * U[5]);
    if (n1 < 1e-300) {
        double e[3] = {fabs(U[0]) < 0.9 ? 1.0 : 0.0, fabs(U[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        U[3] = U[1] * e[2] - U[2] * e[1];
        U[4] = U[2] * e[0] - U[0] * e[2];
        U[5] = U[0] * e[1] - U[1] * e[0];
        n1 = sqrt(U[3] * U[3] + U[4] * U[4] + U[5] * U[5]);
    }
    for (int k = 0; k < 3; k++)
        U[3 + k] /= n1;
    U[6] = U[1] * U[5] - U[2] * U[4];
    U[7] = U[2] * U[3] - U[0] * U[5];
    U[8] = U[0] * U[4] - U[1] * U[3];
    for (int i = 0; i < 3; i++) /* R = U V^T: R(r, c) = sum_k U(r, k) V(c, k) */
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++)
                s += U[3 * k + i] * V[3 * k + j];
            R[3 * j + i] = s;
        }
}

double mgpbd_ref_constraint(const mgpbd_ref *r, uint32_t c, const double *x, double g[4][3])
{
    memset(g, 0, 12 * sizeof g[0][0]);
    const uint32_t *v = &r->cons[4 * c];
    if (c < r->d) {
        double e[3], len = 0.0;
        for (int k = 0; k < 3; k++) {
            e[k] = x[3 * v[0] + k] - x[3 * v[1] + k];
            len += e[k] * e[k];
        }
        len = sqrt(len);
        if (len > 0.0)
            for (int k = 0; k < 3; k++) {
                g[0][k] = e[k] / len;
                g[1][k] = -e[k] / len;
            }
        return len - r->rest[9 * c];
    }
    const double *Dm = &r->rest[9 * c]; /* Dm^-1, column-major */
    double F[9] = {0};
    for (int j = 1; j <= 3; j++) /* F = sum_j (x_j - x_0) (row j-1 of Dm^-1) */
        for (int row = 0; row < 3; row++)
            for (int col = 0; col < 3; col++)
                F[3 * col + row] += (x[3 * v[j] + row] - x[3 * v[0] + row]) * Dm[3 * col + (j - 1)];
    double R[9], D[9], C = 0.0;
    mgpbd_ref_rotation(F, R);
    for (int k = 0; k < 9; k++) {
        D[k] = F[k] - R[k];
        C += D[k] * D[k];
    }
    C = sqrt(C);
    if (C <= 1e-12)
        return C;
    for (int j = 1; j <= 3; j++) /* dC/dx_j = (D / C) (row j-1 of Dm^-1)^T */
        for (int row = 0; row < 3; row++) {
            double s = 0.0;
            for (int col = 0; col < 3; col++)
                s += D[3 * col + row] * Dm[3 * col + (j - 1)];
            g[j][row] = s / C;
            g[0][row] -= s / C;
        }
    return C;
}

void mgpbd_ref_system(const mgpbd_ref *r, const double *x, const double *lambda, double h, double *A, double *b)
{
    const uint32_t m = r->m;
    double (*g)[4][3] = malloc(sizeof *g * ((size_t)m + 1));
    for (uint32_t c = 0; c < m; c++) {
        double C = mgpbd_ref_constraint(r, c, x, g[c]);
        b[c] = -C - r->alpha[c] / (h * h) * lambda[c];
    }
    if (A) {
        memset(A, 0, sizeof *A * m * m);
        for (uint32_t i = 0; i < m; i++) {
            A[(size_t)i * m + i] = r->alpha[i] / (h * h);
            for (uint32_t j = 0; j < m; j++)
                for (int si = 0; si < 4; si++)
                    for (int sj = 0; sj < 4; sj++) {
                        uint32_t p = r->cons[4 * i + si];
                        if (p == UINT32_MAX || p != r->cons[4 * j + sj])
                            continue;
                        A[(size_t)i * m + j] +=
                            r->w[p] * (g[i][si][0] * g[j][sj][0] + g[i][si][1] * g[j][sj][1] + g[i][si][2] * g[j][sj][2]);
                    }
        }
    }
    free(g);
}

/* x += omega M^-1 G^T dl (g: each constraint's gradient at its 4 slots),
 * lambda += dl. */
static void take_step(const mgpbd_ref *r, const double (*g)[4][3], const double *dl, double omega, double *x,
                      double *lambda)
{
    for (uint32_t c = 0; c < r->m; c++) {
        for (int s = 0; s < 4; s++) {
            uint32_t p = r->cons[4 * c + s];
            if (p == UINT32_MAX)
                continue;
            for (int k = 0; k < 3; k++)
                x[3 * p + k] += omega * r->w[p] * g[c][s][k] * dl[c];
        }
        lambda[c] += dl[c];
    }
}

double mgpbd_ref_solve(const mgpbd_ref *r, const double *x, const double *lambda, double h, double *dl)
{
    const uint32_t m = r->m;
    double *A = malloc(sizeof *A * m * m);
    mgpbd_ref_system(r, x, lambda, h, A, dl);
    double bb = 0.0;
    for (uint32_t i = 0; i < m; i++)
        bb += dl[i] * dl[i];
    for (uint32_t j = 0; j < m; j++) { /* Cholesky in place (lower) */
        double s = A[(size_t)j * m + j];
        for (uint32_t k = 0; k < j; k++)
            s -= A[(size_t)j * m + k] * A[(size_t)j * m + k];
        double piv = sqrt(s);
        A[(size_t)j * m + j] = piv;
        for (uint32_t i = j + 1; i < m; i++) {
            double t = A[(size_t)i * m + j];
            for (uint32_t k = 0; k < j; k++)
                t -= A[(size_t)i * m + k] * A[(size_t)j * m + k];
            A[(size_t)i * m + j] = t / piv;
        }
    }
    for (uint32_t i = 0; i < m; i++) { /* L y = b */
        double s = dl[i];
        for (uint32_t k = 0; k < i; k++)
            s -= A[(size_t)i * m + k] * dl[k];
        dl[i] = s / A[(size_t)i * m + i];
    }
    for (uint32_t i = m; i-- > 0;) { /* L^T dl = y */
        double s = dl[i];
        for (uint32_t k = i + 1; k < m; k++)
            s -= A[(size_t)k * m + i] * dl[k];
        dl[i] = s / A[(size_t)i * m + i];
    }
    free(A);
    return sqrt(bb);
}

void mgpbd_ref_step(const mgpbd_ref *r, double *x, double *lambda, const double *dl, double omega, double t)
{
    const uint32_t m = r->m;
    double(*g)[4][3] = malloc(sizeof *g * ((size_t)m + 1));
    double *tdl = malloc(sizeof *tdl * ((size_t)m + 1));
    for (uint32_t c = 0; c < m; c++) { /* gradients at the iteration's start */
        mgpbd_ref_constraint(r, c, x, g[c]);
        tdl[c] = t * dl[c];
    }
    take_step(r, (const double(*)[4][3])g, tdl, omega, x, lambda);
    free(tdl);
    free(g);
}

double mgpbd_ref_iterate(const mgpbd_ref *r, double *x, double *lambda, double h, double omega)
{
    double *dl = malloc(sizeof *dl * ((size_t)r->m + 1));
    const double b = mgpbd_ref_solve(r, x, lambda, h, dl);
    mgpbd_ref_step(r, x, lambda, dl, omega, 1.0);
    free(dl);
    return b;
}

void mgpbd_ref_xpbd_jacobi(const mgpbd_ref *r, double *x, double *lambda, double h, double omega)
{
    const uint32_t m = r->m;
    double *dl = malloc(sizeof *dl * (m + 1)), (*g)[4][3] = malloc(sizeof *g * (m + 1));
    for (uint32_t c = 0; c < m; c++) {
        const double C = mgpbd_ref_constraint(r, c, x, g[c]), at = r->alpha[c] / (h * h);
        double denom = at;
        for (int s = 0; s < 4; s++)
            if (r->cons[4 * c + s] != UINT32_MAX)
                denom += r->w[r->cons[4 * c + s]] *
                         (g[c][s][0] * g[c][s][0] + g[c][s][1] * g[c][s][1] + g[c][s][2] * g[c][s][2]);
        dl[c] = denom > 0.0 ? (-C - at * lambda[c]) / denom : 0.0;
    }
    take_step(r, (const double(*)[4][3])g, dl, omega, x, lambda);
    free(dl);
    free(g);
}
