/* Static equilibrium of a tetrahedral solid in double: Newton's method on the
 * total energy, tangent by central differences of the first Piola-Kirchhoff
 * stress, block-Jacobi PCG, backtracking line search (fem_ref.h). */
#include "ref/fem_ref.h"

#include "asset/asset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

fem_ref_material fem_ref_material_device(const GpuMaterial *m)
{
    fem_ref_material r = {FEM_REF_NEO_HOOKEAN, m->mu, m->lambda, m->extra};
    if (m->model == SINEW_GPU_MODEL_STABLE_NEO_HOOKEAN)
        r.model = FEM_REF_STABLE_NEO_HOOKEAN;
    return r;
}

fem_ref_material fem_ref_material_linear(double E, double nu)
{
    fem_ref_material r = {FEM_REF_LINEAR, E / (2.0 * (1.0 + nu)), E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)), 0.0};
    return r;
}

/* 3x3 matrices column-major: A[3 * col + row]. */
static double det3(const double F[9])
{
    return F[0] * (F[4] * F[8] - F[5] * F[7]) - F[3] * (F[1] * F[8] - F[2] * F[7]) +
           F[6] * (F[1] * F[5] - F[2] * F[4]);
}

/* cof(F) = det(F) F^-T, the derivative of det F. */
static void cof3(const double F[9], double C[9])
{
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) {
            int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
            C[3 * c + r] = F[3 * c1 + r1] * F[3 * c2 + r2] - F[3 * c2 + r1] * F[3 * c1 + r2];
        }
}

static double psi(const fem_ref_material *m, const double F[9])
{
    double ic = 0.0;
    for (int i = 0; i < 9; i++)
        ic += F[i] * F[i];
    const double J = det3(F);
    switch (m->model) {
    case FEM_REF_NEO_HOOKEAN: {
        if (!(J > 0.0))
            return INFINITY;
        double l = log(J);
        return 0.5 * m->mu * (ic - 3.0) - m->mu * l + 0.5 * m->lambda * l * l;
    }
    case FEM_REF_STABLE_NEO_HOOKEAN: {
        double d = J - m->a;
        return 0.5 * m->mu * (ic - 3.0) + 0.5 * m->lambda * d * d - 0.5 * m->mu * log(ic + 1.0);
    }
    default: {
        double e[9], tr = 0.0, ee = 0.0;
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++)
                e[3 * c + r] = 0.5 * (F[3 * c + r] + F[3 * r + c]) - (r == c);
        for (int i = 0; i < 3; i++)
            tr += e[4 * i];
        for (int i = 0; i < 9; i++)
            ee += e[i] * e[i];
        return m->mu * ee + 0.5 * m->lambda * tr * tr;
    }
    }
}

/* First Piola-Kirchhoff stress dPsi/dF. */
static void stress(const fem_ref_material *m, const double F[9], double P[9])
{
    double C[9], ic = 0.0;
    for (int i = 0; i < 9; i++)
        ic += F[i] * F[i];
    cof3(F, C);
    const double J = det3(F);
    switch (m->model) {
    case FEM_REF_NEO_HOOKEAN: { /* mu (F - F^-T) + lambda ln J F^-T */
        double s = (m->lambda * log(J) - m->mu) / J;
        for (int i = 0; i < 9; i++)
            P[i] = m->mu * F[i] + s * C[i];
        break;
    }
    case FEM_REF_STABLE_NEO_HOOKEAN: { /* mu (1 - 1/(I_C + 1)) F + lambda (J - a) cof F */
        double s = m->mu * (1.0 - 1.0 / (ic + 1.0)), t = m->lambda * (J - m->a);
        for (int i = 0; i < 9; i++)
            P[i] = s * F[i] + t * C[i];
        break;
    }
    default: { /* 2 mu eps + lambda tr(eps) I */
        double tr = F[0] + F[4] + F[8] - 3.0;
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++)
                P[3 * c + r] = m->mu * (F[3 * c + r] + F[3 * r + c] - 2.0 * (r == c)) + m->lambda * tr * (r == c);
        break;
    }
    }
}

void fem_ref_stress(const fem_ref_material *m, const double F[9], double P[9]) { stress(m, F, P); }

double fem_ref_psi(const fem_ref_material *m, const double F[9]) { return psi(m, F); }

/* Eigen-decomposition of a symmetric 9 x 9 matrix by cyclic Jacobi rotations
 * (A destroyed; Q's columns the eigenvectors, Q[9 r + c] row r column c). */
static void jacobi9(double A[81], double Q[81], double ev[9])
{
    for (int i = 0; i < 81; i++)
        Q[i] = (i % 10) == 0;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0.0;
        for (int p = 0; p < 9; p++)
            for (int q = p + 1; q < 9; q++)
                off += A[9 * p + q] * A[9 * p + q];
        if (off < 1e-300)
            break;
        for (int p = 0; p < 9; p++)
            for (int q = p + 1; q < 9; q++) {
                const double apq = A[9 * p + q];
                if (fabs(apq) < 1e-300)
                    continue;
                const double theta = (A[9 * q + q] - A[9 * p + p]) / (2.0 * apq);
                const double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
                for (int k = 0; k < 9; k++) { /* A <- J^T A J */
                    const double akp = A[9 * k + p], akq = A[9 * k + q];
                    A[9 * k + p] = c * akp - sn * akq;
                    A[9 * k + q] = sn * akp + c * akq;
                }
                for (int k = 0; k < 9; k++) {
                    const double apk = A[9 * p + k], aqk = A[9 * q + k];
                    A[9 * p + k] = c * apk - sn * aqk;
                    A[9 * q + k] = sn * apk + c * aqk;
                }
                for (int k = 0; k < 9; k++) {
                    const double qkp = Q[9 * k + p], qkq = Q[9 * k + q];
                    Q[9 * k + p] = c * qkp - sn * qkq;
                    Q[9 * k + q] = sn * qkp + c * qkq;
                }
            }
    }
    for (int i = 0; i < 9; i++)
        ev[i] = A[10 * i];
}

void fem_ref_hessian(const fem_ref_material *m, const double F[9], double A[81])
{
    double scale = 0.0;
    for (int i = 0; i < 9; i++)
        scale = fmax(scale, fabs(F[i]));
    const double step = 1e-5 * fmax(scale, 1.0);
    for (int k = 0; k < 9; k++) { /* A[9 i + k] = dP_i / dF_k by central differences */
        double Fp[9], Fm[9], Pp[9], Pm[9];
        memcpy(Fp, F, sizeof Fp), memcpy(Fm, F, sizeof Fm);
        Fp[k] += step, Fm[k] -= step;
        stress(m, Fp, Pp);
        stress(m, Fm, Pm);
        for (int i = 0; i < 9; i++)
            A[9 * i + k] = (Pp[i] - Pm[i]) / (2.0 * step);
    }
    for (int i = 0; i < 9; i++) /* symmetric to the differences' error */
        for (int k = 0; k < i; k++)
            A[9 * i + k] = A[9 * k + i] = 0.5 * (A[9 * i + k] + A[9 * k + i]);
}

int fem_ref_projected_hessian(const fem_ref_material *m, const double F[9], double H[81])
{
    double A[81], Q[81], ev[9];
    fem_ref_hessian(m, F, A);
    jacobi9(A, Q, ev);
    int clamped = 0;
    for (int e = 0; e < 9; e++)
        clamped += ev[e] < 0.0;
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < 9; k++) {
            double h = 0.0;
            for (int e = 0; e < 9; e++)
                h += fmax(ev[e], 0.0) * Q[9 * i + e] * Q[9 * k + e];
            H[9 * i + k] = h;
        }
    return clamped;
}

void fem_ref_damping_hessian(const fem_ref_material *m, const double F[9], double D[81])
{
    double K[81];
    fem_ref_projected_hessian(m, F, K);
    /* an orthonormal basis of the rotations W F (W skew) by Gram-Schmidt */
    double Q[3][9];
    int q = 0;
    for (int a = 0; a < 3; a++) {
        double W[9] = {0}, R[9];
        const int i = (a + 1) % 3, j = (a + 2) % 3;
        W[3 * j + i] = 1.0, W[3 * i + j] = -1.0; /* column-major: W_ij = 1, W_ji = -1 */
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) {
                double v = 0.0;
                for (int k = 0; k < 3; k++)
                    v += W[3 * k + r] * F[3 * c + k];
                R[3 * c + r] = v;
            }
        for (int b = 0; b < q; b++) {
            double d = 0.0;
            for (int k = 0; k < 9; k++)
                d += R[k] * Q[b][k];
            for (int k = 0; k < 9; k++)
                R[k] -= d * Q[b][k];
        }
        double l = 0.0;
        for (int k = 0; k < 9; k++)
            l += R[k] * R[k];
        if (l > 1e-24) {
            for (int k = 0; k < 9; k++)
                Q[q][k] = R[k] / sqrt(l);
            q++;
        }
    }
    double P[81]; /* I - Q Q^T */
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < 9; k++) {
            double v = i == k;
            for (int b = 0; b < q; b++)
                v -= Q[b][i] * Q[b][k];
            P[9 * i + k] = v;
        }
    double T[81];
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < 9; k++) {
            double v = 0.0;
            for (int l = 0; l < 9; l++)
                v += K[9 * i + l] * P[9 * l + k];
            T[9 * i + k] = v;
        }
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < 9; k++) {
            double v = 0.0;
            for (int l = 0; l < 9; l++)
                v += P[9 * i + l] * T[9 * l + k];
            D[9 * i + k] = v;
        }
}

typedef struct element {
    double B[9];      /* Dm^-1 */
    double r[4][3];   /* dF/dx_a = e_d r_a^T: rows of Dm^-1, r_0 = -(r_1 + r_2 + r_3) */
    double volume;
} element;

static int setup(const fem_ref_problem *p, element *el)
{
    for (uint32_t e = 0; e < p->tet_count; e++) {
        const uint32_t *v = &p->tets[4 * e];
        double D[9], C[9];
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++)
                D[3 * c + r] = p->rest[3 * v[c + 1] + r] - p->rest[3 * v[0] + r];
        double det = det3(D);
        if (!(det > 0.0))
            return -1;
        cof3(D, C); /* D^-1 = cof(D)^T / det */
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++)
                el[e].B[3 * c + r] = C[3 * r + c] / det;
        for (int k = 0; k < 3; k++) {
            el[e].r[0][k] = 0.0;
            for (int a = 1; a < 4; a++) {
                el[e].r[a][k] = el[e].B[3 * k + (a - 1)]; /* row a-1 of B */
                el[e].r[0][k] -= el[e].r[a][k];
            }
        }
        el[e].volume = det / 6.0;
    }
    return 0;
}

static void deformation(const element *el, const uint32_t *v, const double *x, double F[9])
{
    for (int c = 0; c < 3; c++)
        for (int d = 0; d < 3; d++) {
            double s = 0.0;
            for (int a = 0; a < 4; a++)
                s += x[3 * v[a] + d] * el->r[a][c];
            F[3 * c + d] = s;
        }
}

static const fem_ref_material *material(const fem_ref_problem *p, uint32_t e)
{
    return &p->materials[p->material_of ? p->material_of[e] : 0];
}

/* The energy at x, the net forces into force when not NULL, and into *mag
 * when not NULL the size of the terms the energy sums (its rounding is about
 * 1e-16 of that: near rest the terms cancel). */
static double energy(const fem_ref_problem *p, const element *el, const double *x, double *force, double *mag)
{
    double total = 0.0, size = 0.0;
    if (force)
        memset(force, 0, 3 * sizeof *force * p->vertex_count);
    for (uint32_t e = 0; e < p->tet_count; e++) {
        const uint32_t *v = &p->tets[4 * e];
        double F[9], P[9];
        deformation(&el[e], v, x, F);
        const fem_ref_material *m = material(p, e);
        total += el[e].volume * psi(m, F);
        double ic = 0.0;
        for (int i = 0; i < 9; i++)
            ic += F[i] * F[i];
        size += el[e].volume * (m->mu + fabs(m->lambda)) * (ic + 3.0);
        if (!force)
            continue;
        stress(material(p, e), F, P);
        for (int a = 0; a < 4; a++)
            for (int d = 0; d < 3; d++) {
                double g = 0.0;
                for (int j = 0; j < 3; j++)
                    g += P[3 * j + d] * el[e].r[a][j];
                force[3 * v[a] + d] -= el[e].volume * g;
            }
    }
    if (p->force)
        for (uint32_t i = 0; i < 3 * p->vertex_count; i++) {
            total -= p->force[i] * x[i];
            size += fabs(p->force[i] * x[i]);
            if (force)
                force[i] += p->force[i];
        }
    if (mag)
        *mag = size;
    return total;
}

double fem_ref_energy(const fem_ref_problem *p, const double *x, double *force_out)
{
    element *el = malloc((p->tet_count ? p->tet_count : 1) * sizeof *el);
    double E = el && setup(p, el) == 0 ? energy(p, el, x, force_out, NULL) : NAN;
    free(el);
    return E;
}

/* The tangent: a symmetric block-sparse matrix of 3x3 blocks over the
 * vertices, the blocks of row i at cols[begin[i] .. begin[i + 1]). */
typedef struct tangent {
    uint32_t *begin, *cols;
    double *blocks; /* 9 per entry, column-major */
} tangent;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int tangent_pattern(const fem_ref_problem *p, tangent *K)
{
    const uint32_t n = p->vertex_count;
    uint32_t *count = calloc(n + 1, sizeof *count);
    K->begin = calloc(n + 1, sizeof *K->begin);
    if (!count || !K->begin) {
        free(count);
        return -1;
    }
    for (uint32_t e = 0; e < p->tet_count; e++)
        for (int a = 0; a < 4; a++)
            count[p->tets[4 * e + a]] += 4;
    uint32_t *start = calloc(n + 1, sizeof *start);
    if (!start) {
        free(count);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] = start[i] + count[i] + 1;
    uint32_t *all = malloc((start[n] ? start[n] : 1) * sizeof *all);
    if (!all) {
        free(count), free(start);
        return -1;
    }
    memset(count, 0, (n + 1) * sizeof *count);
    for (uint32_t i = 0; i < n; i++)
        all[start[i] + count[i]++] = i; /* the diagonal, also of vertices in no tetrahedron */
    for (uint32_t e = 0; e < p->tet_count; e++)
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                uint32_t i = p->tets[4 * e + a];
                all[start[i] + count[i]++] = p->tets[4 * e + b];
            }
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t *row = &all[start[i]];
        qsort(row, count[i], sizeof *row, cmp_u32);
        uint32_t u = 0;
        for (uint32_t k = 0; k < count[i]; k++)
            if (!u || row[k] != row[u - 1])
                row[u++] = row[k];
        count[i] = u;
        total += u;
    }
    K->cols = malloc(total * sizeof *K->cols);
    K->blocks = malloc(9 * sizeof *K->blocks * total);
    if (!K->cols || !K->blocks) {
        free(count), free(start), free(all);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        K->begin[i + 1] = K->begin[i] + count[i];
        memcpy(&K->cols[K->begin[i]], &all[start[i]], count[i] * sizeof *all);
    }
    free(count), free(start), free(all);
    return 0;
}

static double *block(const tangent *K, uint32_t i, uint32_t j)
{
    uint32_t lo = K->begin[i], hi = K->begin[i + 1];
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (K->cols[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &K->blocks[9 * lo];
}

/* K = d^2 E / dx^2, the stress derivative by central differences in F (its
 * error, about 1e-10 of the stress, slows Newton only at round-off). */
static void assemble(const fem_ref_problem *p, const element *el, const double *x, tangent *K)
{
    memset(K->blocks, 0, 9 * sizeof *K->blocks * K->begin[p->vertex_count]);
    for (uint32_t e = 0; e < p->tet_count; e++) {
        const uint32_t *v = &p->tets[4 * e];
        double F[9], T[9][9]; /* T[k][i] = dP_i / dF_k */
        deformation(&el[e], v, x, F);
        double scale = 0.0;
        for (int i = 0; i < 9; i++)
            scale = fmax(scale, fabs(F[i]));
        const double h = 1e-5 * fmax(scale, 1.0);
        for (int k = 0; k < 9; k++) {
            double Fp[9], Fm[9], Pp[9], Pm[9];
            memcpy(Fp, F, sizeof F), memcpy(Fm, F, sizeof F);
            Fp[k] += h, Fm[k] -= h;
            stress(material(p, e), Fp, Pp);
            stress(material(p, e), Fm, Pm);
            for (int i = 0; i < 9; i++)
                T[k][i] = (Pp[i] - Pm[i]) / (2.0 * h);
        }
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                double *blk = block(K, v[a], v[b]);
                for (int d = 0; d < 3; d++)
                    for (int c = 0; c < 3; c++) { /* d: row (vertex a), c: column (vertex b) */
                        double s = 0.0;
                        for (int j = 0; j < 3; j++)
                            for (int l = 0; l < 3; l++)
                                s += T[3 * l + c][3 * j + d] * el[e].r[b][l] * el[e].r[a][j];
                        blk[3 * c + d] += el[e].volume * s;
                    }
            }
    }
}

/* fixed: per coordinate (3 per vertex), non-zero where it is held. */
static void multiply(const tangent *K, uint32_t n, const unsigned char *fixed, const double *in, double *out)
{
    for (uint32_t i = 0; i < n; i++) {
        double s[3] = {0, 0, 0};
        for (uint32_t k = K->begin[i]; k < K->begin[i + 1]; k++) {
            uint32_t j = K->cols[k];
            const double *b = &K->blocks[9 * k];
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++)
                    s[r] += fixed[3 * j + c] ? 0.0 : b[3 * c + r] * in[3 * j + c];
        }
        for (int r = 0; r < 3; r++)
            out[3 * i + r] = fixed[3 * i + r] ? 0.0 : s[r];
    }
}

static double dot(const double *a, const double *b, uint32_t n)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static int invert3(const double A[9], double out[9])
{
    double C[9], d = det3(A);
    if (!(fabs(d) > 0.0))
        return -1;
    cof3(A, C);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            out[3 * c + r] = C[3 * r + c] / d;
    return 0;
}

/* Solves K s = rhs over the free vertices by block-Jacobi PCG to a relative
 * residual of tol; stops at negative curvature with the iterate so far (or
 * the preconditioned steepest descent when that is the first direction). */
static int pcg(const tangent *K, uint32_t n, const unsigned char *fixed, const double *rhs, double tol,
               double *s, double *work)
{
    const uint32_t m = 3 * n;
    double *r = work, *z = work + m, *d = work + 2 * m, *q = work + 3 * m, *Minv = work + 4 * m;
    for (uint32_t i = 0; i < n; i++) { /* the diagonal block of the free coordinates, inverted */
        double *M = &Minv[9 * i], D[9];
        memcpy(D, block(K, i, i), sizeof D);
        for (int c = 0; c < 3; c++)
            for (int r2 = 0; r2 < 3; r2++)
                if (fixed[3 * i + c] || fixed[3 * i + r2])
                    D[3 * c + r2] = c == r2 ? 1.0 : 0.0;
        if (invert3(D, M) != 0)
            memset(M, 0, 9 * sizeof *M);
        for (int c = 0; c < 3; c++)
            for (int r2 = 0; r2 < 3; r2++)
                if (fixed[3 * i + c] || fixed[3 * i + r2])
                    M[3 * c + r2] = 0.0;
    }
    memset(s, 0, m * sizeof *s);
    memcpy(r, rhs, m * sizeof *r);
    const double r0 = sqrt(dot(r, r, m));
    int it = 0;
    double rz = 0.0;
    for (; it < 20 * (int)m + 100 && sqrt(dot(r, r, m)) > tol * r0; it++) {
        for (uint32_t i = 0; i < n; i++)
            for (int a = 0; a < 3; a++) {
                double v = 0.0;
                for (int b = 0; b < 3; b++)
                    v += Minv[9 * i + 3 * b + a] * r[3 * i + b];
                z[3 * i + a] = v;
            }
        double rz_new = dot(r, z, m);
        if (it == 0)
            memcpy(d, z, m * sizeof *d);
        else
            for (uint32_t k = 0; k < m; k++)
                d[k] = z[k] + rz_new / rz * d[k];
        rz = rz_new;
        multiply(K, n, fixed, d, q);
        double dq = dot(d, q, m);
        if (!(dq > 0.0)) {
            if (it == 0)
                memcpy(s, z, m * sizeof *s);
            break;
        }
        double alpha = rz / dq;
        for (uint32_t k = 0; k < m; k++) {
            s[k] += alpha * d[k];
            r[k] -= alpha * q[k];
        }
    }
    return it;
}

static double free_norm(const double *g, uint32_t n, const unsigned char *fixed)
{
    double s = 0.0;
    for (uint32_t k = 0; k < 3 * n; k++)
        s += fixed[k] ? 0.0 : g[k] * g[k];
    return sqrt(s);
}

int fem_ref_solve(const fem_ref_problem *p, double tolerance, int max_newton, double *x, fem_ref_stats *stats)
{
    const uint32_t n = p->vertex_count, m = 3 * n;
    fem_ref_stats st = {0};
    element *el = malloc((p->tet_count ? p->tet_count : 1) * sizeof *el);
    tangent K = {0};
    double *f = malloc(m * sizeof *f), *ft = malloc(m * sizeof *ft), *s = malloc(m * sizeof *s),
           *xt = malloc(m * sizeof *xt), *work = malloc(7 * sizeof *work * (m ? m : 1));
    unsigned char *fixed = calloc(m ? m : 1, 1);
    int result = 0;
    if (!el || !f || !ft || !s || !xt || !work || !fixed || setup(p, el) != 0 || tangent_pattern(p, &K) != 0) {
        result = -1;
        goto done;
    }
    for (uint32_t k = 0; k < m; k++)
        fixed[k] = (p->pinned && p->pinned[k / 3]) || (p->held && (p->held[k / 3] >> (k % 3) & 1u));
    double scale = p->force ? free_norm(p->force, n, fixed) : 0.0;
    if (!(scale > 0.0))
        scale = 1.0;
    double mag = 0.0, E = energy(p, el, x, f, &mag);
    double g = free_norm(f, n, fixed);
    st.gradient0 = g;
    while (g > tolerance * scale && st.newton_iterations < max_newton) {
        for (uint32_t k = 0; k < m; k++)
            f[k] = fixed[k] ? 0.0 : f[k];
        assemble(p, el, x, &K);
        st.cg_iterations += pcg(&K, n, fixed, f, fmin(1e-2, 1e-2 * g / scale + 1e-10), s, work);
        const double slope = -dot(f, s, m); /* dE/dt along s */
        double t = 1.0, Et = 0.0, gt = 0.0;
        int accepted = 0;
        for (int halve = 0; halve < 40 && !accepted; halve++, t *= 0.5) {
            for (uint32_t k = 0; k < m; k++)
                xt[k] = x[k] + t * s[k];
            Et = energy(p, el, xt, ft, NULL);
            gt = free_norm(ft, n, fixed);
            /* Armijo, or where the energy's change is below its rounding a
             * smaller net force */
            accepted = isfinite(Et) && (Et <= E + 1e-4 * t * slope || (Et <= E + 1e-13 * mag && gt < g));
        }
        st.newton_iterations++;
        if (!accepted)
            break;
        memcpy(x, xt, m * sizeof *x);
        memcpy(f, ft, m * sizeof *f);
        E = Et, g = gt;
    }
    st.gradient = g;
    st.energy = E;
    result = g <= tolerance * scale;
done:
    if (stats)
        *stats = st;
    free(K.begin), free(K.cols), free(K.blocks);
    free(el), free(f), free(ft), free(s), free(xt), free(work), free(fixed);
    return result;
}

int fem_ref_asset_displacement(const sinew_asset *a, const fem_ref_material *m, const double g[3], double tolerance,
                               int max_newton, double *u, fem_ref_stats *stats)
{
    const uint32_t n = a->particle_count;
    double *rest = malloc(sizeof *rest * 3 * n), *force = calloc(3 * (size_t)n, sizeof *force);
    unsigned char *pinned = calloc(n, 1);
    uint32_t *tets = malloc(sizeof *tets * 4 * (a->element_count ? a->element_count : 1));
    int result = -1;
    if (rest && force && pinned && tets) {
        result = 0;
        for (uint32_t e = 0; e < a->element_count && result == 0; e++) {
            result = a->elements[e].kind == SINEW_ELEMENT_TET ? 0 : -1;
            memcpy(&tets[4 * e], a->elements[e].v, sizeof a->elements[e].v);
        }
    }
    if (result == 0) {
        for (uint32_t i = 0; i < n; i++) {
            const sinew_particle_rec *p = &a->particles[i];
            rest[3 * i] = p->x, rest[3 * i + 1] = p->y, rest[3 * i + 2] = p->z;
            pinned[i] = p->w == 0.0f;
            for (int k = 0; k < 3; k++)
                force[3 * i + k] = pinned[i] ? 0.0 : g[k] / p->w;
        }
        fem_ref_problem p = {n, rest, a->element_count, tets, m, NULL, force, pinned, NULL};
        memcpy(u, rest, sizeof *u * 3 * n);
        result = fem_ref_solve(&p, tolerance, max_newton, u, stats);
        for (uint32_t k = 0; k < 3 * n; k++)
            u[k] -= rest[k];
    }
    free(rest), free(force), free(pinned), free(tets);
    return result;
}
