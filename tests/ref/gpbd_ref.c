/* CPU double-precision reference of the Generalized PBD element update. */
#include "gpbd_ref.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* 3x3 matrices column-major: M[3 * col + row]. */
static double det3(const double M[9])
{
    return M[0] * (M[4] * M[8] - M[7] * M[5]) - M[3] * (M[1] * M[8] - M[7] * M[2]) +
           M[6] * (M[1] * M[5] - M[4] * M[2]);
}

static void cross(const double a[3], const double b[3], double out[3])
{
    double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(out, t, sizeof t);
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Cofactor matrix (det(F) F^-T): columns f1 x f2, f2 x f0, f0 x f1. */
static void cofactor(const double F[9], double C[9])
{
    cross(&F[3], &F[6], &C[0]);
    cross(&F[6], &F[0], &C[3]);
    cross(&F[0], &F[3], &C[6]);
}

/* Its directional derivative along G. */
static void dcofactor(const double F[9], const double G[9], double D[9])
{
    double a[3], b[3];
    for (int c = 0; c < 3; c++) {
        int i = (c + 1) % 3, j = (c + 2) % 3;
        cross(&G[3 * i], &F[3 * j], a);
        cross(&F[3 * i], &G[3 * j], b);
        for (int r = 0; r < 3; r++)
            D[3 * c + r] = a[r] + b[r];
    }
}

static double ddot(const double *a, const double *b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Piecewise-linear stress of curve k at strain e (linear beyond the ends),
 * its slope, and its integral from 0 to e. */
static void table_eval(const GpuMaterial *m, int k, double e, double *stress, double *slope, double *integral)
{
    const float *s = &m->table_strain[k * SINEW_GPU_TABLE_POINTS];
    const float *t = &m->table_stress[k * SINEW_GPU_TABLE_POINTS];
    const int n = SINEW_GPU_TABLE_POINTS;
    /* Antiderivative Q with Q(s_0) = 0; the integral is Q(e) - Q(0). */
    double q[2], x[2] = {e, 0.0};
    *stress = *slope = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        int i = 0;
        while (i < n - 2 && x[pass] >= s[i + 1])
            i++;
        double acc = 0.0;
        for (int j = 0; j < i; j++)
            acc += ((double)s[j + 1] - s[j]) * ((double)t[j] + t[j + 1]) * 0.5;
        double sl = ((double)t[i + 1] - t[i]) / ((double)s[i + 1] - s[i]);
        double v = t[i] + sl * (x[pass] - s[i]);
        q[pass] = acc + (x[pass] - s[i]) * (t[i] + v) * 0.5;
        if (pass == 0) {
            *stress = v;
            *slope = sl;
        }
    }
    *integral = q[0] - q[1];
}

/* Membranes: energy of the Green strain E (E00, E11, E01), its derivative S
 * (S00, S11, S01 with Psi' = S : dE over the full symmetric matrices) and
 * the derivative of S along dE. */
static double membrane(const GpuMaterial *m, const double E[3], double S[3], const double dE[3], double dS[3])
{
    if (m->model == SINEW_GPU_MODEL_STVK) {
        double tr = E[0] + E[1];
        double psi = m->mu * (E[0] * E[0] + E[1] * E[1] + 2.0 * E[2] * E[2]) + 0.5 * m->lambda * tr * tr;
        if (S) {
            S[0] = 2.0 * m->mu * E[0] + m->lambda * tr;
            S[1] = 2.0 * m->mu * E[1] + m->lambda * tr;
            S[2] = 2.0 * m->mu * E[2];
        }
        if (dS) {
            double dtr = dE[0] + dE[1];
            dS[0] = 2.0 * m->mu * dE[0] + m->lambda * dtr;
            dS[1] = 2.0 * m->mu * dE[1] + m->lambda * dtr;
            dS[2] = 2.0 * m->mu * dE[2];
        }
        return psi;
    }
    double psi = 0.0;
    for (int k = 0; k < 3; k++) {
        double st, sl, in;
        table_eval(m, k, E[k], &st, &sl, &in);
        psi += (k == 2 ? 2.0 : 1.0) * in;
        if (S)
            S[k] = st;
        if (dS)
            dS[k] = sl * dE[k];
    }
    return psi;
}

/* Green strain of a 3x2 F (first two columns). */
static void green2(const double F[9], double E[3])
{
    E[0] = 0.5 * (dot3(&F[0], &F[0]) - 1.0);
    E[1] = 0.5 * (dot3(&F[3], &F[3]) - 1.0);
    E[2] = 0.5 * dot3(&F[0], &F[3]);
}

/* sym(A^T B) of two 3x2 matrices, as (00, 11, 01). */
static void symatb(const double A[9], const double B[9], double out[3])
{
    out[0] = dot3(&A[0], &B[0]);
    out[1] = dot3(&A[3], &B[3]);
    out[2] = 0.5 * (dot3(&A[0], &B[3]) + dot3(&A[3], &B[0]));
}

/* S : X over full symmetric 2x2 matrices stored (00, 11, 01). */
static double sym2dot(const double S[3], const double X[3]) { return S[0] * X[0] + S[1] * X[1] + 2.0 * S[2] * X[2]; }

/* Energy and the size of the terms it sums (which bounds its rounding; the
 * terms cancel to first order near rest), as the kernel. */
static double energy_mag(const GpuMaterial *m, int kind, const double F[9], double *mag)
{
    if (kind == SINEW_GPU_TRIANGLE) {
        double E[3], S[3];
        green2(F, E);
        double psi = membrane(m, E, S, NULL, NULL);
        *mag = fabs(psi) + (fabs(S[0]) + fabs(S[1]) + 2.0 * fabs(S[2])) * (dot3(&F[0], &F[0]) + dot3(&F[3], &F[3]));
        return psi;
    }
    double ic = ddot(F, F, 9), J = det3(F);
    if (m->model == SINEW_GPU_MODEL_NEO_HOOKEAN) {
        *mag = 0.5 * m->mu * (ic + 3.0);
        if (!(J > 0.0))
            return INFINITY;
        double lj = log(J);
        *mag += m->mu * fabs(lj) + 0.5 * m->lambda * lj * lj;
        return 0.5 * m->mu * (ic - 3.0) - m->mu * lj + 0.5 * m->lambda * lj * lj;
    }
    double d = J - m->extra, l = log(ic + 1.0);
    *mag = 0.5 * m->mu * (ic + 3.0 + l) + 0.5 * m->lambda * d * d;
    return 0.5 * m->mu * (ic - 3.0) + 0.5 * m->lambda * d * d - 0.5 * m->mu * l;
}

double gpbd_ref_energy(const GpuMaterial *m, int kind, const double F[9])
{
    double mag;
    return energy_mag(m, kind, F, &mag);
}

/* Energy of a tetrahedron or triangle at F, with the gradient and Hessian of
 * Psi(F0 + sum_k dy_k G_k) with respect to dy (k directions G). */
static double element_energy(const GpuMaterial *m, int kind, const double F[9], double G[6][9], int k,
                             double *grad, double hess[6][6])
{
    double psi = gpbd_ref_energy(m, kind, F), unused[6];
    if ((!grad && !hess) || !isfinite(psi))
        return psi;
    if (!grad)
        grad = unused;
    if (kind == SINEW_GPU_TRIANGLE) {
        double E[3], S[3], Ek[6][3];
        green2(F, E);
        membrane(m, E, S, NULL, NULL);
        for (int a = 0; a < k; a++) {
            symatb(F, G[a], Ek[a]);
            grad[a] = sym2dot(S, Ek[a]);
        }
        if (hess)
            for (int b = 0; b < k; b++) {
                double dS[3];
                membrane(m, E, NULL, Ek[b], dS);
                for (int a = 0; a < k; a++) {
                    double GG[3];
                    symatb(G[a], G[b], GG);
                    hess[a][b] = sym2dot(dS, Ek[a]) + sym2dot(S, GG);
                }
            }
        return psi;
    }
    /* Tetrahedra: first Piola-Kirchhoff stress P and its derivative dP[G]. */
    double P[9], cof[9], J = det3(F), ic = ddot(F, F, 9);
    cofactor(F, cof);
    if (m->model == SINEW_GPU_MODEL_NEO_HOOKEAN) {
        double lj = log(J);
        for (int i = 0; i < 9; i++) /* F^-T = cof / J */
            P[i] = m->mu * F[i] + (m->lambda * lj - m->mu) * cof[i] / J;
        for (int a = 0; a < k; a++)
            grad[a] = ddot(P, G[a], 9);
        if (hess) {
            double FiT[9], Fi[9];
            for (int i = 0; i < 9; i++)
                FiT[i] = cof[i] / J;
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++)
                    Fi[3 * c + r] = FiT[3 * r + c];
            for (int b = 0; b < k; b++) {
                /* dP = mu G + (mu - lambda log J) F^-T G^T F^-T + lambda tr(F^-1 G) F^-T */
                double tr = 0.0, M[9], dP[9];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        tr += Fi[3 * j + i] * G[b][3 * i + j];
                /* M = G^T F^-T */
                for (int c = 0; c < 3; c++)
                    for (int r = 0; r < 3; r++) {
                        double s = 0.0;
                        for (int q = 0; q < 3; q++)
                            s += G[b][3 * r + q] * FiT[3 * c + q];
                        M[3 * c + r] = s;
                    }
                for (int c = 0; c < 3; c++)
                    for (int r = 0; r < 3; r++) {
                        double s = 0.0;
                        for (int q = 0; q < 3; q++)
                            s += FiT[3 * q + r] * M[3 * c + q];
                        dP[3 * c + r] = m->mu * G[b][3 * c + r] + (m->mu - m->lambda * lj) * s +
                                        m->lambda * tr * FiT[3 * c + r];
                    }
                for (int a = 0; a < k; a++)
                    hess[a][b] = ddot(G[a], dP, 9);
            }
        }
        return psi;
    }
    double s1 = m->mu * (1.0 - 1.0 / (ic + 1.0)), d = J - m->extra;
    for (int i = 0; i < 9; i++)
        P[i] = s1 * F[i] + m->lambda * d * cof[i];
    for (int a = 0; a < k; a++)
        grad[a] = ddot(P, G[a], 9);
    if (hess)
        for (int b = 0; b < k; b++) {
            double dcof[9], dP[9];
            dcofactor(F, G[b], dcof);
            double fg = ddot(F, G[b], 9), cg = ddot(cof, G[b], 9);
            for (int i = 0; i < 9; i++)
                dP[i] = s1 * G[b][i] + 2.0 * m->mu * fg / ((ic + 1.0) * (ic + 1.0)) * F[i] +
                        m->lambda * cg * cof[i] + m->lambda * d * dcof[i];
            for (int a = 0; a < k; a++)
                hess[a][b] = ddot(G[a], dP, 9);
        }
    return psi;
}

/* ------------------------------------------------------------ the subspace */

typedef struct setup {
    int kind, nv, k;
    double V;
    double r[4][3];         /* gradient vectors of F w.r.t. each vertex */
    double F0[9];
    double G[6][9];         /* dF/d dy_k */
    double b[6][4][3];      /* vertex displacement per unit dy_k: W_j grad_j eps_k */
    double A[6][6];         /* J W J^T */
    double c[6];            /* J z */
    double psi0, mag0;
    /* springs */
    double n[3], len, rest;
} setup;

static const int comp_a[6] = {0, 1, 2, 0, 0, 1};
static const int comp_b[6] = {0, 1, 2, 1, 2, 2};

static void make_setup(const GpuElement *e, const GpuMaterial *m, double h, const double x[4][3], const double w[4],
                       const double z[4][3], setup *s)
{
    memset(s, 0, sizeof *s);
    s->kind = (int)e->kind;
    s->V = e->measure;
    if (e->kind == SINEW_GPU_SPRING) {
        s->nv = 2;
        s->k = 1;
        double d[3] = {x[0][0] - x[1][0], x[0][1] - x[1][1], x[0][2] - x[1][2]};
        s->len = sqrt(dot3(d, d));
        s->rest = e->r[0][0];
        for (int q = 0; q < 3; q++)
            s->n[q] = s->len > 0.0 ? d[q] / s->len : 0.0;
        double W0 = h * h * w[0], W1 = h * h * w[1];
        for (int q = 0; q < 3; q++) {
            s->b[0][0][q] = W0 * s->n[q];
            s->b[0][1][q] = -W1 * s->n[q];
        }
        s->A[0][0] = W0 + W1;
        s->c[0] = s->n[0] * (z[0][0] - z[1][0]) + s->n[1] * (z[0][1] - z[1][1]) + s->n[2] * (z[0][2] - z[1][2]);
        return;
    }
    const int cols = e->kind == SINEW_GPU_TET ? 3 : 2;
    s->nv = cols + 1;
    s->k = cols == 3 ? 6 : 3;
    for (int j = 1; j < s->nv; j++)
        for (int c = 0; c < cols; c++) {
            s->r[j][c] = e->r[j - 1][c];
            s->r[0][c] -= e->r[j - 1][c];
        }
    for (int j = 1; j < s->nv; j++) /* from edges, as the kernel */
        for (int c = 0; c < cols; c++)
            for (int q = 0; q < 3; q++)
                s->F0[3 * c + q] += (x[j][q] - x[0][q]) * s->r[j][c];
    const int *ca = comp_a, *cb = comp_b;
    static const int tri_a[3] = {0, 1, 0}, tri_b[3] = {0, 1, 1};
    if (cols == 2) {
        ca = tri_a;
        cb = tri_b;
    }
    double ge[6][4][3]; /* grad_j eps_k = (f_a r_j[b] + f_b r_j[a]) / 2 */
    for (int k = 0; k < s->k; k++)
        for (int j = 0; j < s->nv; j++)
            for (int q = 0; q < 3; q++) {
                ge[k][j][q] = 0.5 * (s->F0[3 * ca[k] + q] * s->r[j][cb[k]] + s->F0[3 * cb[k] + q] * s->r[j][ca[k]]);
                s->b[k][j][q] = h * h * w[j] * ge[k][j][q];
            }
    for (int k = 0; k < s->k; k++) {
        for (int j = 0; j < s->nv; j++) {
            s->c[k] += dot3(ge[k][j], z[j]);
            for (int c = 0; c < cols; c++)
                for (int q = 0; q < 3; q++)
                    s->G[k][3 * c + q] += s->b[k][j][q] * s->r[j][c];
        }
        for (int l = 0; l < s->k; l++)
            for (int j = 0; j < s->nv; j++)
                s->A[k][l] += dot3(ge[k][j], s->b[l][j]);
    }
    s->psi0 = energy_mag(m, s->kind, s->F0, &s->mag0);
}

/* phi(dy) - phi(0), with gradient and Hessian on request; *mag (if given)
 * the size of the terms summed, which bounds the rounding of phi. */
static double objective_mag(const setup *s, const GpuMaterial *m, const double *dy, double *grad, double hess[6][6],
                            double *mag)
{
    double unused;
    if (!mag)
        mag = &unused;
    const int k = s->k;
    double lin = 0.0;
    for (int a = 0; a < k; a++) {
        double Ady = 0.0;
        for (int b = 0; b < k; b++)
            Ady += s->A[a][b] * dy[b];
        lin += dy[a] * (s->c[a] + 0.5 * Ady);
        if (grad)
            grad[a] = s->c[a] + Ady;
    }
    if (hess)
        for (int a = 0; a < k; a++)
            for (int b = 0; b < k; b++)
                hess[a][b] = s->A[a][b];
    if (s->kind == SINEW_GPU_SPRING) {
        if (m->extra == 0.0f) /* rigid: the constraint alone */
            return lin;
        double A = s->A[0][0], eps = s->len + A * dy[0] - s->rest, eps0 = s->len - s->rest;
        double al = m->extra;
        if (grad)
            grad[0] += A * eps / al;
        if (hess)
            hess[0][0] += A * A / al;
        *mag = fabs(lin) + (eps * eps + eps0 * eps0) / (2.0 * al);
        return lin + (eps * eps - eps0 * eps0) / (2.0 * al);
    }
    double F[9];
    memcpy(F, s->F0, sizeof F);
    for (int a = 0; a < k; a++)
        for (int i = 0; i < 9; i++)
            F[i] += dy[a] * s->G[a][i];
    double g[6], H[6][6];
    double psi = element_energy(m, s->kind, F, (double(*)[9])s->G, k, grad ? g : NULL, hess ? H : NULL), emag;
    energy_mag(m, s->kind, F, &emag);
    *mag = fabs(lin) + s->V * (emag + s->mag0);
    double change = 0.0; /* the trust region of a stable neo-Hookean update, as the kernel */
    for (int i = 0; i < 9; i++)
        change = fmax(change, fabs(F[i] - s->F0[i]));
    if (!isfinite(psi) || (m->model == SINEW_GPU_MODEL_STABLE_NEO_HOOKEAN && change > SINEW_GPBD_STEP_LIMIT))
        return INFINITY;
    for (int a = 0; a < k; a++) {
        if (grad)
            grad[a] += s->V * g[a];
        if (hess)
            for (int b = 0; b < k; b++)
                hess[a][b] += s->V * H[a][b];
    }
    return lin + s->V * (psi - s->psi0);
}

static double objective(const setup *s, const GpuMaterial *m, const double *dy, double *grad, double hess[6][6])
{
    return objective_mag(s, m, dy, grad, hess, NULL);
}

/* ------------------------------------------------------------ linear algebra */

static int cholesky_solve(double H[6][6], int k, const double *rhs, double *out)
{
    double L[6][6] = {{0}};
    for (int i = 0; i < k; i++)
        for (int j = 0; j <= i; j++) {
            double s = H[i][j];
            for (int q = 0; q < j; q++)
                s -= L[i][q] * L[j][q];
            if (i == j) {
                if (!(s > 0.0))
                    return 0;
                L[i][i] = sqrt(s);
            } else {
                L[i][j] = s / L[j][j];
            }
        }
    double y[6];
    for (int i = 0; i < k; i++) {
        double s = rhs[i];
        for (int q = 0; q < i; q++)
            s -= L[i][q] * y[q];
        y[i] = s / L[i][i];
    }
    for (int i = k - 1; i >= 0; i--) {
        double s = y[i];
        for (int q = i + 1; q < k; q++)
            s -= L[q][i] * out[q];
        out[i] = s / L[i][i];
    }
    return 1;
}

/* The paper's fix for an indefinite Hessian, without an eigen-decomposition:
 * a few unshifted QR iterations bring T (similar to H) near diagonal; the
 * Gershgorin discs of T bound the smallest eigenvalue from below; shift H by
 * that much (plus a little) when it is not positive. */
static void make_positive(double H[6][6], int k)
{
    double T[6][6], scale = 0.0;
    memcpy(T, H, sizeof T);
    for (int i = 0; i < k; i++)
        scale = fmax(scale, fabs(H[i][i]));
    for (int it = 0; it < 5; it++) {
        double Q[6][6], R[6][6] = {{0}};
        int ok = 1;
        for (int c = 0; c < k && ok; c++) { /* modified Gram-Schmidt on the columns */
            for (int q = 0; q < k; q++)
                Q[q][c] = T[q][c];
            for (int p = 0; p < c; p++) {
                double d = 0.0;
                for (int q = 0; q < k; q++)
                    d += Q[q][p] * Q[q][c];
                R[p][c] = d;
                for (int q = 0; q < k; q++)
                    Q[q][c] -= d * Q[q][p];
            }
            double nrm = 0.0;
            for (int q = 0; q < k; q++)
                nrm += Q[q][c] * Q[q][c];
            nrm = sqrt(nrm);
            if (nrm <= 1e-12 * (scale + 1e-300)) {
                ok = 0;
                break;
            }
            R[c][c] = nrm;
            for (int q = 0; q < k; q++)
                Q[q][c] /= nrm;
        }
        if (!ok)
            break;
        for (int i = 0; i < k; i++) /* T = R Q */
            for (int j = 0; j < k; j++) {
                double s = 0.0;
                for (int q = i; q < k; q++)
                    s += R[i][q] * Q[q][j];
                T[i][j] = s;
            }
    }
    double lower = INFINITY;
    for (int i = 0; i < k; i++) {
        double disc = T[i][i];
        for (int j = 0; j < k; j++)
            if (j != i)
                disc -= fabs(T[i][j]);
        lower = fmin(lower, disc);
    }
    double floor = 1e-6 * scale + 1e-300;
    if (lower < floor)
        for (int i = 0; i < k; i++)
            H[i][i] += floor - lower;
}

/* Newton direction: solve H p = -g with H made positive definite. */
static void newton_direction(double H[6][6], int k, const double *g, double *p)
{
    double rhs[6];
    for (int i = 0; i < k; i++)
        rhs[i] = -g[i];
    if (cholesky_solve(H, k, rhs, p))
        return;
    make_positive(H, k);
    double scale = 0.0;
    for (int i = 0; i < k; i++)
        scale = fmax(scale, fabs(H[i][i]));
    for (int tries = 0; tries < 8; tries++) {
        if (cholesky_solve(H, k, rhs, p))
            return;
        for (int i = 0; i < k; i++) /* rounding: shift further */
            H[i][i] += scale * pow(10.0, tries - 6);
    }
    for (int i = 0; i < k; i++)
        p[i] = rhs[i] / (scale > 0.0 ? scale : 1.0);
}

/* ------------------------------------------------------------ inversion */

/* Eigenvectors (columns of V, proper rotation) and eigenvalues of a symmetric
 * 3x3 matrix by cyclic Jacobi rotations, sorted decreasing. */
void gpbd_ref_eigen_sym3(const double S[9], double V[9], double ev[3])
{
    double A[3][3];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            A[r][c] = S[3 * c + r];
    double Q[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int sweep = 0; sweep < 12; sweep++) {
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (fabs(A[p][q]) < 1e-300)
                    continue;
                double theta = (A[q][q] - A[p][p]) / (2.0 * A[p][q]);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
                for (int i = 0; i < 3; i++) { /* A = J^T A J */
                    double aip = A[i][p], aiq = A[i][q];
                    A[i][p] = c * aip - sn * aiq;
                    A[i][q] = sn * aip + c * aiq;
                }
                for (int i = 0; i < 3; i++) {
                    double api = A[p][i], aqi = A[q][i];
                    A[p][i] = c * api - sn * aqi;
                    A[q][i] = sn * api + c * aqi;
                }
                for (int i = 0; i < 3; i++) {
                    double qip = Q[i][p], qiq = Q[i][q];
                    Q[i][p] = c * qip - sn * qiq;
                    Q[i][q] = sn * qip + c * qiq;
                }
            }
    }
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (A[order[j]][order[j]] > A[order[i]][order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    for (int c = 0; c < 3; c++) {
        ev[c] = A[order[c]][order[c]];
        for (int r = 0; r < 3; r++)
            V[3 * c + r] = Q[r][order[c]];
    }
    if (det3(V) < 0.0)
        for (int r = 0; r < 3; r++)
            V[6 + r] = -V[6 + r];
}

/* Smallest singular value a flipped element gets (relative to rest). */
#define FLIP_FLOOR 0.1

/* An inverted or flat tetrahedron (det F <= 0): F = U S V^T with U, V
 * rotations and the smallest singular value carrying the sign; negate it
 * (and lift any singular value below FLIP_FLOOR to it), then place the
 * vertices at the new F about the element's centre of mass. Pinned vertices
 * stay; with any pinned vertex the shape is placed about the pinned ones. */
static void flip(const setup *s, const GpuElement *e, double x[4][3], const double w[4])
{
    double C[9], V[9], ev[3];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            C[3 * b + a] = dot3(&s->F0[3 * a], &s->F0[3 * b]);
    gpbd_ref_eigen_sym3(C, V, ev);
    double U[9], sv[3];
    for (int c = 0; c < 3; c++) {
        double fv[3] = {0, 0, 0};
        for (int q = 0; q < 3; q++)
            for (int i = 0; i < 3; i++)
                fv[q] += s->F0[3 * i + q] * V[3 * c + i];
        memcpy(&U[3 * c], fv, sizeof fv);
    }
    /* u0, u1 by Gram-Schmidt (any unit vectors where F has collapsed), u2 = u0 x u1. */
    double n0 = sqrt(dot3(&U[0], &U[0]));
    if (n0 < 1e-12) {
        U[0] = 1; U[1] = 0; U[2] = 0;
        n0 = 1.0;
    }
    for (int q = 0; q < 3; q++)
        U[q] /= n0;
    double d = dot3(&U[0], &U[3]);
    for (int q = 0; q < 3; q++)
        U[3 + q] -= d * U[q];
    double n1 = sqrt(dot3(&U[3], &U[3]));
    if (n1 < 1e-12) {
        double axis[3] = {fabs(U[0]) < 0.9 ? 1.0 : 0.0, fabs(U[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        cross(&U[0], axis, &U[3]);
        n1 = sqrt(dot3(&U[3], &U[3]));
    }
    for (int q = 0; q < 3; q++)
        U[3 + q] /= n1;
    cross(&U[0], &U[3], &U[6]);
    for (int c = 0; c < 3; c++) {
        double fv[3] = {0, 0, 0};
        for (int q = 0; q < 3; q++)
            for (int i = 0; i < 3; i++)
                fv[q] += s->F0[3 * i + q] * V[3 * c + i];
        sv[c] = fabs(dot3(&U[3 * c], fv)); /* the flip: |signed singular value| */
        if (sv[c] < FLIP_FLOOR)
            sv[c] = FLIP_FLOOR;
    }
    double Fn[9] = {0};
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++)
            for (int q = 0; q < 3; q++)
                Fn[3 * c + q] += sv[i] * U[3 * i + q] * V[3 * i + c];
    /* Rest shape about its centroid: Dm = inverse of the matrix whose rows are r_1..r_3. */
    double R[9], Dm[9];
    for (int j = 0; j < 3; j++)
        for (int c = 0; c < 3; c++)
            R[3 * c + j] = e->r[j][c];
    double cof[9], det = det3(R);
    cofactor(R, cof); /* R^-1 = cof^T / det */
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            Dm[3 * c + r] = cof[3 * r + c] / det;
    double Xh[4][3], y[4][3];
    for (int j = 0; j < 4; j++)
        for (int q = 0; q < 3; q++) {
            double v = 0.0;
            for (int c = 0; c < 3; c++)
                v += Dm[3 * c + q] * ((j == c + 1 ? 1.0 : 0.0) - 0.25);
            Xh[j][q] = v;
        }
    for (int j = 0; j < 4; j++)
        for (int q = 0; q < 3; q++) {
            y[j][q] = 0.0;
            for (int c = 0; c < 3; c++)
                y[j][q] += Fn[3 * c + q] * Xh[j][c];
        }
    double t[3] = {0, 0, 0}, msum = 0.0;
    int pinned = 0;
    for (int j = 0; j < 4; j++)
        pinned |= w[j] == 0.0;
    for (int j = 0; j < 4; j++) {
        double mj = pinned ? (w[j] == 0.0 ? 1.0 : 0.0) : 1.0 / w[j];
        msum += mj;
        for (int q = 0; q < 3; q++)
            t[q] += mj * (x[j][q] - y[j][q]);
    }
    for (int j = 0; j < 4; j++)
        if (w[j] != 0.0)
            for (int q = 0; q < 3; q++)
                x[j][q] = t[q] / msum + y[j][q];
}

/* ------------------------------------------------------------ the update */

int gpbd_ref_dimension(const GpuElement *e)
{
    return e->kind == SINEW_GPU_SPRING ? 1 : e->kind == SINEW_GPU_TRIANGLE ? 3 : 6;
}

double gpbd_ref_objective(const GpuElement *e, const GpuMaterial *m, double h, const double x[4][3],
                          const double w[4], const double z[4][3], const double *dy, double *grad,
                          double hess[6][6])
{
    setup s;
    make_setup(e, m, h, x, w, z, &s);
    return objective(&s, m, dy, grad, hess);
}

void gpbd_ref_update(const GpuElement *e, const GpuMaterial *m, double h, int max_newton, double tol,
                     double x[4][3], const double w[4], double z[4][3], double dx[4][3], gpbd_ref_stats *st)
{
    gpbd_ref_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    memset(dx, 0, 12 * sizeof(double));
    setup s;
    double x0[4][3];
    memcpy(x0, x, sizeof x0);
    make_setup(e, m, h, x, w, z, &s);
    /* Neo-Hookean: flip every inverted or flat element; stable neo-Hookean
     * also every nearly flat one (as the kernel, which says why). */
    double J0 = det3(s.F0);
    int flip_it = m->model == SINEW_GPU_MODEL_NEO_HOOKEAN
                      ? !(J0 > 0.0) : !(J0 >= FLIP_FLOOR * FLIP_FLOOR * FLIP_FLOOR);
    if (e->kind == SINEW_GPU_TET && flip_it) {
        flip(&s, e, x, w);
        st->flipped = 1;
        make_setup(e, m, h, x, w, z, &s);
    }
    const int k = s.k;
    double dy[6] = {0}, g[6];
    if (e->kind == SINEW_GPU_SPRING) {
        /* The objective is quadratic in dy: one Newton step solves it (for
         * compliance 0 it is the hard constraint's projection). */
        double A = s.A[0][0], al = m->extra;
        if (s.len > 0.0 && A > 0.0) {
            dy[0] = -(al * s.c[0] + A * (s.len - s.rest)) / (A * (al + A));
            st->newton_iterations = 1;
        }
        goto done;
    }
    objective(&s, m, dy, g, NULL);
    st->grad0 = st->grad = sqrt(ddot(g, g, k));
    for (int it = 0; it < max_newton; it++) {
        if (st->grad == 0.0 || st->grad <= tol * st->grad0)
            break;
        double H[6][6], p[6], trial[6];
        double mag0 = 0.0, mag = 0.0;
        double phi0 = objective_mag(&s, m, dy, NULL, H, &mag0);
        newton_direction(H, k, g, p);
        double slope = ddot(g, p, k);
        if (!(slope < 0.0)) {
            for (int a = 0; a < k; a++)
                p[a] = -g[a];
            slope = -ddot(g, g, k);
        }
        double t = 1.0;
        int accepted = 0;
        for (int ls = 0; ls < 20 && !accepted; ls++, t *= 0.5) {
            for (int a = 0; a < k; a++)
                trial[a] = dy[a] + t * p[a];
            /* Armijo, up to the rounding of phi (as the kernel, in double) */
            double phi = objective_mag(&s, m, trial, NULL, NULL, &mag);
            accepted = isfinite(phi) && phi <= phi0 + 1e-4 * t * slope + 4.0 * DBL_EPSILON * (mag0 + mag);
        }
        if (!accepted)
            break;
        memcpy(dy, trial, sizeof dy);
        objective(&s, m, dy, g, NULL);
        st->grad = sqrt(ddot(g, g, k));
        st->newton_iterations++;
    }
done:
    for (int j = 0; j < s.nv; j++)
        for (int q = 0; q < 3; q++) {
            double d = 0.0;
            for (int a = 0; a < k; a++)
                d += dy[a] * s.b[a][j][q];
            x[j][q] += d;
            z[j][q] += d;
            dx[j][q] = x[j][q] - x0[j][q]; /* the flip included */
        }
}
