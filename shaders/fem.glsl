// Isotropic hyperelastic tetrahedra for the implicit solvers (docs/math.md
// section 5, "Tetrahedra"): the energy Psi(F) = g(I_C) + f(J) of the
// neo-Hookean and stable neo-Hookean materials, its first Piola stress, and
// the eigensystem of its Hessian in F (Smith et al. 2019, "Analytic
// eigensystems for isotropic distortion energies"), whose negative
// eigenvalues are clamped to 0 so that the stiffness is positive
// semi-definite. Include after common.glsl.
#ifndef SINEW_FEM_GLSL
#define SINEW_FEM_GLSL

#include "sym3.glsl"

// Neo-Hookean's derivatives are taken at J >= this: its energy has no value
// at J <= 0, and the clamped J keeps the force pushing the element open.
#define FEM_NH_MIN_J 0.1

// g' = dg/dI_C, g'' and f' = df/dJ, f'' of the element's material.
void fem_terms(uint mi, float IC, float J, out float g1, out float g2, out float f1, out float f2)
{
    float mu = material[mi].mu, la = material[mi].lambda;
    if (material[mi].model == SINEW_GPU_MODEL_STABLE_NEO_HOOKEAN) {
        // mu/2 (I_C - 3) - mu/2 log(I_C + 1) + lambda/2 (J - a)^2
        float q = 1.0 / (IC + 1.0);
        g1 = 0.5 * mu * (1.0 - q);
        g2 = 0.5 * mu * q * q;
        f1 = la * (J - material[mi].extra);
        f2 = la;
    } else {
        // mu/2 (I_C - 3) - mu log J + lambda/2 (log J)^2
        float Jc = max(J, FEM_NH_MIN_J), lj = log(Jc);
        g1 = 0.5 * mu;
        g2 = 0.0;
        f1 = (la * lj - mu) / Jc;
        f2 = (mu + la - la * lj) / (Jc * Jc);
    }
}

// The first Piola stress dPsi/dF = 2 g' F + f' cof F, from fem_terms' g' and f'.
mat3 fem_stress(mat3 F, float g1, float f1)
{
    return 2.0 * g1 * F + f1 * mat3(cross(F[1], F[2]), cross(F[2], F[0]), cross(F[0], F[1]));
}

// The projected Hessian's eigensystem at F = U diag(s) W^T. For the pair of
// axes (i, j) left by axis k (k = 0: (1, 2), 1: (0, 2), 2: (0, 1)):
//   twist  (e_i e_j^T - e_j e_i^T)/sqrt 2   eigenvalue 2 g' + f' s_k
//   flip   (e_i e_j^T + e_j e_i^T)/sqrt 2   eigenvalue 2 g' - f' s_k
// and the three scalings diag(E_m) from the 3 x 3 Hessian in s,
//   2 g' I + 4 g'' s s^T + f'' c c^T + f' S,   c_i = s_j s_k,  S_ij = s_k (i != j)
// (all in the frame of U and W). Eigenvalues clamped at 0.
struct FemModes {
    vec3 twist, flip, scale;
    mat3 E;
};

FemModes fem_modes(vec3 s, float g1, float g2, float f1, float f2)
{
    FemModes m;
    m.twist = max(vec3(2.0 * g1) + f1 * s, vec3(0.0));
    m.flip = max(vec3(2.0 * g1) - f1 * s, vec3(0.0));
    vec3 c = vec3(s.y * s.z, s.x * s.z, s.x * s.y);
    mat3 A = mat3(2.0 * g1) + 4.0 * g2 * outerProduct(s, s) + f2 * outerProduct(c, c) +
             f1 * mat3(0.0, s.z, s.y, s.z, 0.0, s.x, s.y, s.x, 0.0);
    eigen_sym3(A, m.E, m.scale);
    m.scale = max(m.scale, vec3(0.0));
    return m;
}

// The pairs (i, j) of axes of the twist and flip modes: (1, 2), (0, 2), (0, 1).
const ivec2 FEM_PAIR[3] = ivec2[3](ivec2(1, 2), ivec2(0, 2), ivec2(0, 1));

// Rayleigh damping that leaves rigid rotation alone (docs/implicit.md,
// "Integrators"): the projected Hessian with the element's infinitesimal
// rotations W F (W skew) projected out, its modes' eigenvalues as a
// stiffness on the strain rate. A rotation of the pair (i, j) is, in the
// pair's (twist, flip) plane, along (s_i + s_j, s_j - s_i), so each pair
// keeps one mode, its unit normal n = (s_i - s_j, s_i + s_j) / |.|, of
// eigenvalue twist n_t^2 + flip n_f^2; the scalings, which a rotation does
// not move, are kept. At rest (s = 1) n is the flip: the damping is the
// Hessian's there. n per pair into n[k], its eigenvalue into lambda[k].
void fem_damping_modes(FemModes m, vec3 s, out vec2 n[3], out vec3 lambda)
{
    [[unroll]] for (int k = 0; k < 3; k++) {
        float si = s[FEM_PAIR[k].x], sj = s[FEM_PAIR[k].y];
        vec2 d = vec2(si - sj, si + sj);
        float l = length(d);
        n[k] = l > 1e-12 ? d / l : vec2(0.0, 1.0);
        lambda[k] = m.twist[k] * n[k].x * n[k].x + m.flip[k] * n[k].y * n[k].y;
    }
}

// The 3 x 3 block (rows: vertex a, columns: vertex b) over the element's
// volume of stiff K + damp K_d, K the projected Hessian (fem_modes) and K_d
// the damping's (fem_damping_modes), in the frame of U: the sum over modes
// of lambda (M beta_a)(M beta_b)^T, beta_a = W^T b_a for the vertex's vector
// b_a of F (dF/dx_a = I (x) b_a). The block in the world is U G U^T.
mat3 fem_block_damped(FemModes m, vec2 n[3], vec3 lambda, float stiff, float damp, vec3 ba, vec3 bb)
{
    const float r = 0.70710678;
    mat3 G = mat3(0.0);
    [[unroll]] for (int k = 0; k < 3; k++) {
        int i = FEM_PAIR[k].x, j = FEM_PAIR[k].y;
        // <t, u beta^T> = (u_i beta_j - u_j beta_i) / sqrt 2 as a vector over u; f with +
        vec3 ta = vec3(0.0), tb = vec3(0.0), fa = vec3(0.0), fb = vec3(0.0);
        ta[i] = r * ba[j], ta[j] = -r * ba[i], tb[i] = r * bb[j], tb[j] = -r * bb[i];
        fa[i] = r * ba[j], fa[j] = r * ba[i], fb[i] = r * bb[j], fb[j] = r * bb[i];
        vec3 na = n[k].x * ta + n[k].y * fa, nb = n[k].x * tb + n[k].y * fb;
        G += stiff * (m.twist[k] * outerProduct(ta, tb) + m.flip[k] * outerProduct(fa, fb)) +
             damp * lambda[k] * outerProduct(na, nb);
    }
    [[unroll]] for (int k = 0; k < 3; k++)
        G += (stiff + damp) * m.scale[k] * outerProduct(m.E[k] * ba, m.E[k] * bb);
    return G;
}

// The damping's stress on a rate D of the deformation gradient, both in
// the frames of U and W (D = U^T dF/dt W): K_d : D.
mat3 fem_damping_stress(FemModes m, vec2 n[3], vec3 lambda, mat3 D)
{
    const float r = 0.70710678;
    mat3 P = mat3(0.0);
    [[unroll]] for (int k = 0; k < 3; k++) {
        int i = FEM_PAIR[k].x, j = FEM_PAIR[k].y;
        // GLSL indexes [column][row]: D_ij = D[j][i]
        float ct = r * (D[j][i] - D[i][j]), cf = r * (D[j][i] + D[i][j]);
        float q = lambda[k] * (n[k].x * ct + n[k].y * cf);
        P[j][i] += q * r * (n[k].x + n[k].y);
        P[i][j] += q * r * (n[k].y - n[k].x);
    }
    vec3 d = vec3(D[0][0], D[1][1], D[2][2]);
    [[unroll]] for (int k = 0; k < 3; k++) {
        float c = m.scale[k] * dot(m.E[k], d);
        P[0][0] += c * m.E[k].x, P[1][1] += c * m.E[k].y, P[2][2] += c * m.E[k].z;
    }
    return P;
}

#endif
