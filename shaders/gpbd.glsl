// Generalized PBD (docs/math.md 3, docs/gpbd.md): one element's update by a Newton
// solve in its strain space, shared by the Gauss-Seidel and Jacobi kernels.
// tests/ref/gpbd_ref.c is the same algorithm in double precision.
//
// With W_j = h^2 w_j, strain eps (k = 6 Green strain entries of a
// tetrahedron, 3 of a triangle, the length of a spring) and its gradients
// held at the current positions, the step is x_j += W_j sum_k dy_k grad_j eps_k
// and dy minimises
//     phi(dy) = c.dy + dy.A.dy / 2 + V (Psi(F0 + sum_k dy_k G_k) - Psi(F0)),
// A = J W J^T, c = J z, G_k = dF/d dy_k: F is linear in dy, so phi and its
// derivatives are exact. Newton with a backtracking line search; an
// indefinite Hessian is shifted by a Gershgorin bound after a few QR
// iterations (no eigen-decomposition).

#include "sym3.glsl"

// A kernel variant for bodies of one element kind and one material model
// (gpbd_colour_tet_nh.comp and the like) defines GPBD_KIND and GPBD_MODEL:
// the other kinds' and models' code then folds away. llvmpipe runs an
// invocation group's every branch body, taken by any lane or not, so that
// code would otherwise cost as if it ran.
#ifdef GPBD_KIND
#define GPBD_KIND_OF(k) GPBD_KIND
#else
#define GPBD_KIND_OF(k) (k)
#endif
#ifdef GPBD_MODEL
#define GPBD_MODEL_OF(m) GPBD_MODEL
#else
#define GPBD_MODEL_OF(m) (m)
#endif

float fdot(mat3 a, mat3 b) { return dot(a[0], b[0]) + dot(a[1], b[1]) + dot(a[2], b[2]); }
float fdot_abs(mat3 a, mat3 b) { return dot(abs(a[0]), abs(b[0])) + dot(abs(a[1]), abs(b[1])) + dot(abs(a[2]), abs(b[2])); }

mat3 cofactor(mat3 F) { return mat3(cross(F[1], F[2]), cross(F[2], F[0]), cross(F[0], F[1])); }

mat3 dcofactor(mat3 F, mat3 G)
{
    return mat3(cross(G[1], F[2]) + cross(F[1], G[2]), cross(G[2], F[0]) + cross(F[2], G[0]),
                cross(G[0], F[1]) + cross(F[0], G[1]));
}

// Curve k of a tabulated material (its points from o) at strain x: stress,
// slope, and the integral from the curve's first point.
void table_at(uint mi, int o, float x, out float stress, out float slope, out float integral)
{
    const int n = int(SINEW_GPU_TABLE_POINTS);
    int i = 0;
    while (i < n - 2 && x >= material[mi].table_strain[o + i + 1])
        i++;
    float acc = 0.0;
    for (int j = 0; j < i; j++)
        acc += (material[mi].table_strain[o + j + 1] - material[mi].table_strain[o + j]) *
               (material[mi].table_stress[o + j] + material[mi].table_stress[o + j + 1]) * 0.5;
    float s0 = material[mi].table_strain[o + i], t0 = material[mi].table_stress[o + i];
    slope = (material[mi].table_stress[o + i + 1] - t0) / (material[mi].table_strain[o + i + 1] - s0);
    stress = t0 + slope * (x - s0);
    integral = acc + (x - s0) * (t0 + stress) * 0.5;
}

// Curve k of a tabulated material at strain e: stress, slope, integral from 0.
void table_eval(uint mi, int k, float e, out float stress, out float slope, out float integral)
{
    int o = k * int(SINEW_GPU_TABLE_POINTS);
    float q0, q1, unused0, unused1;
    table_at(mi, o, e, stress, slope, q0);
    table_at(mi, o, 0.0, unused0, unused1, q1);
    integral = q0 - q1;
}

// Green strain of a membrane (first two columns of F) as (E00, E11, E01).
vec3 green2(mat3 F) { return vec3(0.5 * (dot(F[0], F[0]) - 1.0), 0.5 * (dot(F[1], F[1]) - 1.0), 0.5 * dot(F[0], F[1])); }
vec3 symatb(mat3 A, mat3 B) { return vec3(dot(A[0], B[0]), dot(A[1], B[1]), 0.5 * (dot(A[0], B[1]) + dot(A[1], B[0]))); }
float sym2dot(vec3 S, vec3 X) { return S.x * X.x + S.y * X.y + 2.0 * S.z * X.z; }

// The scalar parameters of the element's material, loaded once per update
// (the tables stay in the buffer).
struct Law {
    uint model;
    float mu, lambda, extra;
};
Law law;

// Membrane energy, S = dPsi/dE, and dS along dE.
float membrane(uint mi, vec3 E, out vec3 S, vec3 dE, out vec3 dS)
{
    Law m = law;
    if (GPBD_MODEL_OF(m.model) == SINEW_GPU_MODEL_STVK) {
        float tr = E.x + E.y, dtr = dE.x + dE.y;
        S = vec3(2.0 * m.mu * E.x + m.lambda * tr, 2.0 * m.mu * E.y + m.lambda * tr, 2.0 * m.mu * E.z);
        dS = vec3(2.0 * m.mu * dE.x + m.lambda * dtr, 2.0 * m.mu * dE.y + m.lambda * dtr, 2.0 * m.mu * dE.z);
        return m.mu * (E.x * E.x + E.y * E.y + 2.0 * E.z * E.z) + 0.5 * m.lambda * tr * tr;
    }
    vec3 sl, q;
    table_eval(mi, 0, E.x, S.x, sl.x, q.x);
    table_eval(mi, 1, E.y, S.y, sl.y, q.y);
    table_eval(mi, 2, E.z, S.z, sl.z, q.z);
    dS = sl * dE;
    return q.x + q.y + 2.0 * q.z;
}

// dS along dE of a membrane whose dS along (1, 1, 1) is slope: linear in dE,
// and without the tables' loops, so that it can sit in an unrolled loop.
vec3 membrane_dS(vec3 slope, vec3 dE)
{
    Law m = law;
    if (GPBD_MODEL_OF(m.model) == SINEW_GPU_MODEL_STVK) {
        float dtr = dE.x + dE.y;
        return vec3(2.0 * m.mu * dE.x + m.lambda * dtr, 2.0 * m.mu * dE.y + m.lambda * dtr, 2.0 * m.mu * dE.z);
    }
    return slope * dE;
}

const float GPBD_INF = 3.0e38;

// Energy density at F, and in mag the size of the terms it sums: near rest
// they cancel to first order (neo-Hookean: mu/2 (I_C - 3) against mu log J),
// so mag * FLT_EPSILON, not the result, bounds its rounding.
float energy(uint mi, uint kind, mat3 F, out float mag)
{
    if (GPBD_KIND_OF(kind) == SINEW_GPU_TRIANGLE) {
        vec3 S, dS;
        float psi = membrane(mi, green2(F), S, vec3(0.0), dS);
        mag = abs(psi) + (abs(S.x) + abs(S.y) + 2.0 * abs(S.z)) * (dot(F[0], F[0]) + dot(F[1], F[1]));
        return psi;
    }
    Law m = law;
    float ic = fdot(F, F), J = determinant(F);
    if (GPBD_MODEL_OF(m.model) == SINEW_GPU_MODEL_NEO_HOOKEAN) {
        mag = 0.5 * m.mu * (ic + 3.0);
        if (!(J > 0.0))
            return GPBD_INF;
        float lj = log(J);
        mag += m.mu * abs(lj) + 0.5 * m.lambda * lj * lj;
        return 0.5 * m.mu * (ic - 3.0) - m.mu * lj + 0.5 * m.lambda * lj * lj;
    }
    float d = J - m.extra, l = log(ic + 1.0);
    mag = 0.5 * m.mu * (ic + 3.0 + l) + 0.5 * m.lambda * d * d;
    return 0.5 * m.mu * (ic - 3.0) + 0.5 * m.lambda * d * d - 0.5 * m.mu * l;
}

// The element being solved: its subspace and the quadratic part of phi.
// Sized for a tetrahedron (k = 6 strain entries, 4 vertices): a triangle's
// entries past k = 3, and its fourth vertex, are zero, so that every loop
// has a constant bound, is unrolled, and indexes these arrays by constants
// only (a GPU keeps them in registers; an array indexed at run time goes to
// local memory, on llvmpipe to a stack read by gathers).
struct Sub {
    uint kind, mi;
    int nv, k;
    float V;
    vec3 r[4];
    mat3 F0;
    mat3 G[6];
    float A[6][6];
    float c[6];
    float psi0, mag0;
    vec3 n;        // springs
    float len, rest;
};

// The element being solved, one per invocation: a private global rather
// than a parameter, so that no function call copies it.
Sub sub;

// grad_j eps_k = (f_a r_j[b] + f_b r_j[a]) / 2, strain entry k = (a, b):
// (0,0) (1,1) (2,2) (0,1) (0,2) (1,2) of a tetrahedron, (0,0) (1,1) (0,1) of
// a triangle, zero past a triangle's three. k and j are constants wherever
// this is called (unrolled loops), so the indices fold.
vec3 strain_grad(int k, int j)
{
    int a = k < 3 ? k : k == 5 ? 1 : 0;
    int b = k < 3 ? k : k == 3 ? 1 : 2;
    vec3 tet = 0.5 * (sub.F0[a] * sub.r[j][b] + sub.F0[b] * sub.r[j][a]);
    vec3 tri = 0.5 * (sub.F0[0] * sub.r[j][1] + sub.F0[1] * sub.r[j][0]);
    // one return: glslc 2023.2's optimiser crashes unrolling a loop around
    // an inlined function that has several
    return k == 2 && sub.nv == 3 ? tri : k < sub.k ? tet : vec3(0.0);
}

// A tetrahedron's F = sum_j (x_j - x_0) r_j^T (r_j the rows of Dm^-1), as
// make_sub forms it: from edges, no cancellation of large coordinates.
mat3 tet_deformation(GpuElement e, vec3 x[4])
{
    mat3 F = mat3(0.0);
    [[unroll]] for (int j = 1; j < 4; j++)
        F += outerProduct(x[j] - x[0], e.r[j - 1].xyz);
    return F;
}

void make_sub(GpuElement e, vec3 x[4], float W[4], vec3 z[4])
{
    sub.kind = e.kind;
    sub.mi = e.material;
    sub.V = e.measure;
    sub.F0 = mat3(0.0);
    [[unroll]] for (int a = 0; a < 6; a++) {
        sub.G[a] = mat3(0.0);
        sub.c[a] = 0.0;
        [[unroll]] for (int b = 0; b < 6; b++)
            sub.A[a][b] = 0.0;
    }
    sub.psi0 = 0.0;
    sub.mag0 = 0.0;
    sub.n = vec3(0.0);
    sub.len = 0.0;
    sub.rest = 0.0;
    [[unroll]] for (int j = 0; j < 4; j++)
        sub.r[j] = vec3(0.0);
    if (GPBD_KIND_OF(e.kind) == SINEW_GPU_SPRING) {
        sub.nv = 2;
        sub.k = 1;
        vec3 d = x[0] - x[1];
        sub.len = length(d);
        sub.rest = e.r[0].x;
        sub.n = sub.len > 0.0 ? d / sub.len : vec3(0.0);
        sub.A[0][0] = W[0] + W[1];
        sub.c[0] = dot(sub.n, z[0] - z[1]);
        return;
    }
    bool tet = GPBD_KIND_OF(e.kind) == SINEW_GPU_TET;
    sub.nv = tet ? 4 : 3;
    sub.k = tet ? 6 : 3;
    [[unroll]] for (int j = 1; j < 4; j++) {
        sub.r[j] = tet ? e.r[j - 1].xyz : j < 3 ? vec3(e.r[j - 1].xy, 0.0) : vec3(0.0);
        sub.r[0] -= sub.r[j];
    }
    [[unroll]] for (int j = 1; j < 4; j++) // from edges: no cancellation of large coordinates
        sub.F0 += outerProduct(x[j] - x[0], sub.r[j]);
    vec3 ge[6][4];
    [[unroll]] for (int k = 0; k < 6; k++)
        [[unroll]] for (int j = 0; j < 4; j++) {
            ge[k][j] = strain_grad(k, j);
            sub.c[k] += dot(ge[k][j], z[j]);
            sub.G[k] += outerProduct(W[j] * ge[k][j], sub.r[j]);
        }
    [[unroll]] for (int k = 0; k < 6; k++)
        [[unroll]] for (int l = 0; l < 6; l++) {
            float s = 0.0;
            [[unroll]] for (int j = 0; j < 4; j++)
                s += W[j] * dot(ge[k][j], ge[l][j]);
            if (l <= k) { // the entries past the diagonal fold away
                sub.A[k][l] = s;
                sub.A[l][k] = s;
            }
        }
    sub.psi0 = energy(sub.mi, sub.kind, sub.F0, sub.mag0);
}

mat3 deformation(float dy[6])
{
    mat3 F = sub.F0;
    [[unroll]] for (int a = 0; a < 6; a++)
        F += dy[a] * sub.G[a];
    return F;
}

// Trust region of a stable neo-Hookean update: no entry of F may change by
// more than SINEW_GPBD_STEP_LIMIT. Without a barrier, a badly distorted
// element can lower its energy by flinging its vertices metres away (J is
// cubic in the step, the inertia term only quadratic); a Newton solve cut
// short there left such a step, and a block blew up. The neo-Hookean barrier
// bounds its steps already, and there the limit only slowed recovery from
// scrambled states. Ordinary dynamics never come near it.
bool within_step_limit(mat3 F)
{
    if (GPBD_MODEL_OF(law.model) != SINEW_GPU_MODEL_STABLE_NEO_HOOKEAN)
        return true;
    mat3 d = F - sub.F0;
    vec3 m = max(max(abs(d[0]), abs(d[1])), abs(d[2]));
    return max(max(m.x, m.y), m.z) <= SINEW_GPBD_STEP_LIMIT;
}

// phi(dy) - phi(0); GPBD_INF where the energy is undefined. mag: the size of
// the terms summed, so that mag * FLT_EPSILON bounds the rounding of phi.
float objective(float dy[6], out float mag)
{
    float lin = 0.0;
    [[unroll]] for (int a = 0; a < 6; a++) {
        float Ady = 0.0;
        [[unroll]] for (int b = 0; b < 6; b++)
            Ady += sub.A[a][b] * dy[b];
        lin += dy[a] * (sub.c[a] + 0.5 * Ady);
    }
    float emag;
    mat3 F = deformation(dy);
    float psi = energy(sub.mi, sub.kind, F, emag);
    mag = abs(lin) + sub.V * (emag + sub.mag0);
    if (psi >= GPBD_INF || !within_step_limit(F))
        return GPBD_INF;
    return lin + sub.V * (psi - sub.psi0);
}

// Gradient, and the Hessian when want_hess (its lower triangle computed,
// mirrored). noise: the rounding of |g| in float, from the size of the terms
// each entry sums (the stress terms cancel at rest): an element at rest has
// a gradient of pure rounding, which no number of Newton steps reduces by
// the relative tolerance.
void derivatives(float dy[6], bool want_hess, out float g[6], out float H[6][6], out float noise)
{
    float gmag[6];
    [[unroll]] for (int a = 0; a < 6; a++) {
        g[a] = sub.c[a];
        gmag[a] = abs(sub.c[a]);
        [[unroll]] for (int b = 0; b < 6; b++) {
            g[a] += sub.A[a][b] * dy[b];
            gmag[a] += abs(sub.A[a][b] * dy[b]);
            H[a][b] = sub.A[a][b];
        }
    }
    noise = 0.0;
    mat3 F = deformation(dy);
    Law m = law;
    if (GPBD_KIND_OF(sub.kind) == SINEW_GPU_TRIANGLE) {
        vec3 E = green2(F), S, dS, Ek[6];
        membrane(sub.mi, E, S, vec3(0.0), dS);
        // E sums terms of size (|f|^2 + 1) / 2; S their multiples
        vec3 Emag = 0.5 * vec3(dot(F[0], F[0]) + 1.0, dot(F[1], F[1]) + 1.0, abs(dot(F[0], F[1])));
        vec3 Smag, S3, slope = vec3(0.0);
        if (GPBD_MODEL_OF(m.model) == SINEW_GPU_MODEL_STVK) {
            Smag = abs(S) + 2.0 * abs(m.mu) * Emag + abs(m.lambda) * (Emag.x + Emag.y);
        } else { // tabulated: the curves' slopes times the size of E
            membrane(sub.mi, E, S3, vec3(1.0), slope);
            Smag = abs(S) + abs(slope) * Emag;
        }
        [[unroll]] for (int a = 0; a < 3; a++) {
            Ek[a] = symatb(F, sub.G[a]);
            g[a] += sub.V * sym2dot(S, Ek[a]);
            noise += gmag[a] + sub.V * sym2dot(Smag, abs(Ek[a]));
        }
        noise *= 4.0 * 1.2e-7;
        if (want_hess)
            [[unroll]] for (int b = 0; b < 3; b++) {
                dS = membrane_dS(slope, Ek[b]);
                [[unroll]] for (int a = 0; a < 3; a++)
                    H[a][b] += sub.V * (sym2dot(dS, Ek[a]) + sym2dot(S, symatb(sub.G[a], sub.G[b])));
            }
        return;
    }
    float J = determinant(F), ic = fdot(F, F);
    mat3 cof = cofactor(F);
    if (GPBD_MODEL_OF(m.model) == SINEW_GPU_MODEL_NEO_HOOKEAN) {
        float lj = log(J);
        mat3 FiT = cof * (1.0 / J);
        mat3 P = m.mu * F + (m.lambda * lj - m.mu) * FiT;
        float Pmu = m.mu, Pfit = abs(m.lambda * lj) + m.mu;  // sizes of P's terms
        [[unroll]] for (int a = 0; a < 6; a++) {
            g[a] += sub.V * fdot(P, sub.G[a]);
            noise += gmag[a] + sub.V * (Pmu * fdot_abs(F, sub.G[a]) + Pfit * fdot_abs(FiT, sub.G[a]));
        }
        noise *= 4.0 * 1.2e-7;
        if (want_hess) {
            mat3 Fi = transpose(FiT);
            [[unroll]] for (int b = 0; b < 6; b++) {
                mat3 Gb = sub.G[b];
                mat3 FG = Fi * Gb;
                float tr = FG[0][0] + FG[1][1] + FG[2][2];
                mat3 dP = m.mu * Gb + (m.mu - m.lambda * lj) * (FiT * transpose(Gb) * FiT) + (m.lambda * tr) * FiT;
                [[unroll]] for (int a = 0; a < 6; a++)
                    H[a][b] += sub.V * fdot(sub.G[a], dP);
            }
        }
        return;
    }
    float s1 = m.mu * (1.0 - 1.0 / (ic + 1.0)), d = J - m.extra;
    mat3 P = s1 * F + (m.lambda * d) * cof;
    float Pcof = m.lambda * (abs(J) + abs(m.extra));       // d = J - a cancels at rest
    [[unroll]] for (int a = 0; a < 6; a++) {
        g[a] += sub.V * fdot(P, sub.G[a]);
        noise += gmag[a] + sub.V * (abs(s1) * fdot_abs(F, sub.G[a]) + Pcof * fdot_abs(cof, sub.G[a]));
    }
    noise *= 4.0 * 1.2e-7;
    if (want_hess)
        [[unroll]] for (int b = 0; b < 6; b++) {
            mat3 Gb = sub.G[b];
            mat3 dP = s1 * Gb + (2.0 * m.mu * fdot(F, Gb) / ((ic + 1.0) * (ic + 1.0))) * F +
                      (m.lambda * fdot(cof, Gb)) * cof + (m.lambda * d) * dcofactor(F, Gb);
            [[unroll]] for (int a = 0; a < 6; a++)
                H[a][b] += sub.V * fdot(sub.G[a], dP);
        }
}

// Cholesky of the leading k x k block of H (the rest is zero: a triangle's
// entries past 3), solved for rhs; rows past k act as the identity, so their
// solution is 0. False when that block is not positive definite.
bool cholesky_solve(float H[6][6], int k, float rhs[6], out float x[6])
{
    float L[6][6];
    bool ok = true;
    [[unroll]] for (int i = 0; i < 6; i++)
        [[unroll]] for (int j = 0; j < 6; j++) {
            float s = H[i][j];
            [[unroll]] for (int q = 0; q < 6; q++)
                if (q < j)
                    s -= L[i][q] * L[j][q];
            if (j > i) {
                L[i][j] = 0.0; // folds away
            } else if (i == j) {
                s = i < k ? s : 1.0;
                ok = ok && s > 0.0;
                L[i][i] = sqrt(max(s, 1e-30));
            } else {
                L[i][j] = s / L[j][j];
            }
        }
    float y[6];
    [[unroll]] for (int i = 0; i < 6; i++) {
        float s = rhs[i];
        [[unroll]] for (int q = 0; q < 6; q++)
            if (q < i)
                s -= L[i][q] * y[q];
        y[i] = s / L[i][i];
    }
    [[unroll]] for (int i = 5; i >= 0; i--) {
        float s = y[i];
        [[unroll]] for (int q = 0; q < 6; q++)
            if (q > i)
                s -= L[q][i] * x[q];
        x[i] = s / L[i][i];
    }
    return ok;
}

// The paper's shift of an indefinite Hessian: five unshifted QR iterations
// (modified Gram-Schmidt) bring T, similar to H, near diagonal; its
// Gershgorin discs bound the smallest eigenvalue from below. Only the
// leading k x k block takes part.
void make_positive(inout float H[6][6], int k)
{
    float T[6][6];
    float scale = 0.0;
    [[unroll]] for (int i = 0; i < 6; i++) {
        [[unroll]] for (int j = 0; j < 6; j++)
            T[i][j] = H[i][j];
        scale = i < k ? max(scale, abs(H[i][i])) : scale;
    }
    for (int it = 0; it < 5; it++) {
        float Q[6][6], R[6][6];
        [[unroll]] for (int i = 0; i < 6; i++)
            [[unroll]] for (int j = 0; j < 6; j++) {
                Q[i][j] = 0.0;
                R[i][j] = 0.0;
            }
        // Columns past k, and every column once one has failed, are left
        // zero: computed with a zero factor rather than skipped, so that no
        // loop sits under a branch (the optimiser unrolls none such)
        bool ok = true;
        [[unroll]] for (int c = 0; c < 6; c++) {
            bool live = c < k && ok;
            [[unroll]] for (int q = 0; q < 6; q++)
                Q[q][c] = live ? T[q][c] : 0.0;
            [[unroll]] for (int p = 0; p < 6; p++) {
                float d = 0.0;
                [[unroll]] for (int q = 0; q < 6; q++)
                    d += Q[q][p] * Q[q][c];
                d = p < c ? d : 0.0;
                R[p][c] = p < c ? d : R[p][c];
                [[unroll]] for (int q = 0; q < 6; q++)
                    Q[q][c] -= d * Q[q][p];
            }
            float nrm = 0.0;
            [[unroll]] for (int q = 0; q < 6; q++)
                nrm += Q[q][c] * Q[q][c];
            nrm = sqrt(nrm);
            bool good = nrm > 1e-6 * scale;
            ok = ok && (!live || good);
            R[c][c] = live && good ? nrm : 0.0;
            [[unroll]] for (int q = 0; q < 6; q++)
                Q[q][c] = live && good ? Q[q][c] / nrm : 0.0;
        }
        if (!ok)
            break;
        [[unroll]] for (int i = 0; i < 6; i++)
            [[unroll]] for (int j = 0; j < 6; j++) {
                float s = 0.0;
                [[unroll]] for (int q = 0; q < 6; q++)
                    if (q >= i)
                        s += R[i][q] * Q[q][j];
                T[i][j] = s;
            }
    }
    float lower = GPBD_INF;
    [[unroll]] for (int i = 0; i < 6; i++) {
        float disc = T[i][i];
        [[unroll]] for (int j = 0; j < 6; j++)
            if (j != i)
                disc -= abs(T[i][j]);
        lower = i < k ? min(lower, disc) : lower;
    }
    float floor_ = 1e-6 * scale + 1e-30;
    if (lower < floor_)
        [[unroll]] for (int i = 0; i < 6; i++)
            H[i][i] += i < k ? floor_ - lower : 0.0;
}

void newton_direction(inout float H[6][6], int k, float g[6], out float p[6])
{
    float rhs[6];
    [[unroll]] for (int i = 0; i < 6; i++)
        rhs[i] = -g[i];
    if (cholesky_solve(H, k, rhs, p))
        return;
    make_positive(H, k);
    float scale = 0.0;
    [[unroll]] for (int i = 0; i < 6; i++)
        scale = i < k ? max(scale, abs(H[i][i])) : scale;
    for (int tries = 0; tries < 8; tries++) {
        if (cholesky_solve(H, k, rhs, p))
            return;
        [[unroll]] for (int i = 0; i < 6; i++)
            H[i][i] += i < k ? scale * pow(10.0, float(tries - 6)) : 0.0;
    }
    [[unroll]] for (int i = 0; i < 6; i++)
        p[i] = rhs[i] / (scale > 0.0 ? scale : 1.0);
}

const float GPBD_FLIP_FLOOR = 0.1;

// An inverted or flat tetrahedron: negate its smallest singular value (lift
// any below GPBD_FLIP_FLOOR) and place the vertices at the new F about the
// element's centre of mass (about its pinned vertices when it has any).
void flip(GpuElement e, inout vec3 x[4], float w[4])
{
    mat3 V;
    vec3 ev;
    eigen_sym3(transpose(sub.F0) * sub.F0, V, ev);
    mat3 U;
    U[0] = sub.F0 * V[0];
    float n0 = length(U[0]);
    U[0] = n0 < 1e-12 ? vec3(1.0, 0.0, 0.0) : U[0] / n0;
    U[1] = sub.F0 * V[1];
    U[1] -= dot(U[0], U[1]) * U[0];
    float n1 = length(U[1]);
    if (n1 < 1e-12) {
        U[1] = cross(U[0], abs(U[0].x) < 0.9 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0));
        n1 = length(U[1]);
    }
    U[1] /= n1;
    U[2] = cross(U[0], U[1]);
    mat3 Fn = mat3(0.0);
    [[unroll]] for (int i = 0; i < 3; i++) {
        float sv = max(abs(dot(U[i], sub.F0 * V[i])), GPBD_FLIP_FLOOR);
        Fn += sv * outerProduct(U[i], V[i]);
    }
    mat3 Dm = inverse(transpose(mat3(e.r[0].xyz, e.r[1].xyz, e.r[2].xyz)));
    vec3 y[4];
    [[unroll]] for (int j = 0; j < 4; j++) {
        vec3 coord = vec3(j == 1 ? 0.75 : -0.25, j == 2 ? 0.75 : -0.25, j == 3 ? 0.75 : -0.25);
        y[j] = Fn * (Dm * coord);
    }
    bool pinned = w[0] == 0.0 || w[1] == 0.0 || w[2] == 0.0 || w[3] == 0.0;
    vec3 t = vec3(0.0);
    float msum = 0.0;
    [[unroll]] for (int j = 0; j < 4; j++) {
        float mj = pinned ? (w[j] == 0.0 ? 1.0 : 0.0) : 1.0 / w[j];
        msum += mj;
        t += mj * (x[j] - y[j]);
    }
    [[unroll]] for (int j = 0; j < 4; j++)
        if (w[j] != 0.0)
            x[j] = t / msum + y[j];
}

// The neo-Hookean barrier is undefined for det F <= 0: such an element is
// flipped first (the paper's treatment). Stable neo-Hookean is defined
// inverted, but its update cannot see the sign (the Green strain is blind to
// it), and a stable neo-Hookean block at nu 0.4995 started from random
// positions blew up unflipped: it is flipped too, and also when nearly flat
// (det F below GPBD_FLIP_FLOOR^3), whose strain gradients have no component
// across it to restore its volume.
bool needs_flip(uint model, float J)
{
    if (GPBD_MODEL_OF(model) == SINEW_GPU_MODEL_NEO_HOOKEAN)
        return !(J > 0.0);
    return !(J >= GPBD_FLIP_FLOOR * GPBD_FLIP_FLOOR * GPBD_FLIP_FLOOR);
}

// Whether llvmpipe left this invocation's loops whole (common.glsl,
// loops_intact): 2, as the compiler cannot know, since newton_iterations is
// at most 1000.
bool gpbd_loops_intact() { return loops_intact(params.newton_iterations < 0x7fffffffu ? 2u : 3u); }

float norm6(float v[6])
{
    float s = 0.0;
    [[unroll]] for (int a = 0; a < 6; a++)
        s += v[a] * v[a];
    return sqrt(s);
}

// Updates element e at positions x (inverse masses w), its displacement z;
// returns in dx each vertex's displacement and in dz the part of it that
// belongs to z (without the flip). Returns the Newton iterations taken.
// Every array here has a constant size and is indexed by constants; the
// Newton and line-search loops are the only loops with a bound known at run
// time, and every invocation of a warp runs the same code in them.
int gpbd_update(GpuElement e, inout vec3 x[4], float w[4], vec3 z[4], out vec3 dx[4], out vec3 dz[4])
{
    float h = params.gravity.w;
    float W[4];
    vec3 x0[4];
    [[unroll]] for (int j = 0; j < 4; j++) {
        W[j] = h * h * w[j];
        x0[j] = x[j];
        dz[j] = vec3(0.0);
    }
    law = Law(material[e.material].model, material[e.material].mu, material[e.material].lambda,
              material[e.material].extra);
    // the flip before the subspace, so that the subspace is made once: its
    // code runs whether any lane flips or not
    if (GPBD_KIND_OF(e.kind) == SINEW_GPU_TET) {
        sub.F0 = tet_deformation(e, x);
        if (needs_flip(law.model, determinant(sub.F0)))
            flip(e, x, w);
    }
    make_sub(e, x, W, z);
    float dy[6] = float[6](0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    int iterations = 0;
    if (GPBD_KIND_OF(e.kind) == SINEW_GPU_SPRING) {
        float A = sub.A[0][0], al = law.extra;
        if (sub.len > 0.0 && A > 0.0) {
            dy[0] = -(al * sub.c[0] + A * (sub.len - sub.rest)) / (A * (al + A));
            iterations = 1;
        }
        dz[0] = W[0] * dy[0] * sub.n;
        dz[1] = -W[1] * dy[0] * sub.n;
    } else {
        float g[6], H[6][6], p[6], trial[6];
        float noise;
        // The Hessian, phi and its rounding at dy come with the gradient
        // there: each Newton iteration computes them once, at the point the
        // line search accepts, for the next (the last one's Hessian unused)
        derivatives(dy, true, g, H, noise);
        float mag0;
        float phi0 = objective(dy, mag0);
        float g0 = norm6(g);
        float gn = g0;
        float tol = params.newton_tolerance;
        for (int it = 0; it < int(params.newton_iterations); it++) {
            if (gn <= max(tol * g0, noise))
                break;
            newton_direction(H, sub.k, g, p);
            float slope = 0.0;
            [[unroll]] for (int a = 0; a < 6; a++)
                slope += g[a] * p[a];
            if (!(slope < 0.0)) {
                slope = 0.0;
                [[unroll]] for (int a = 0; a < 6; a++) {
                    p[a] = -g[a];
                    slope -= g[a] * g[a];
                }
            }
            float t = 1.0, phi = 0.0, mag = 0.0;
            bool accepted = false;
            for (int ls = 0; ls < 20 && !accepted; ls++) {
                [[unroll]] for (int a = 0; a < 6; a++)
                    trial[a] = dy[a] + t * p[a];
                // Armijo, up to the rounding of phi: near the optimum phi
                // changes less than float resolves, and the Newton step is
                // then taken on the strength of the model
                phi = objective(trial, mag);
                accepted = phi < GPBD_INF && phi <= phi0 + 1e-4 * t * slope + 4.0 * 1.2e-7 * (mag0 + mag);
                if (!accepted)
                    t *= 0.5;
            }
            if (!accepted)
                break;
            dy = trial;
            phi0 = phi;
            mag0 = mag;
            derivatives(dy, true, g, H, noise);
            gn = norm6(g);
            iterations++;
        }
        [[unroll]] for (int j = 0; j < 4; j++)
            [[unroll]] for (int a = 0; a < 6; a++)
                dz[j] += (dy[a] * W[j]) * strain_grad(a, j);
    }
    [[unroll]] for (int j = 0; j < 4; j++) {
        x[j] += dz[j];
        dx[j] = x[j] - x0[j];
    }
    return iterations;
}
