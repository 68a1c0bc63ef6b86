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

// The 3 x 3 block (rows: vertex a, columns: vertex b) of the element's
// projected Hessian over its volume, in the frame of U: the sum over modes of
// lambda (M beta_a)(M beta_b)^T, beta_a = W^T b_a for the vertex's vector b_a
// of F (dF/dx_a = I (x) b_a). The block in the world is U G U^T.
mat3 fem_block(FemModes m, vec3 ba, vec3 bb)
{
    const float r = 0.70710678;
    mat3 G = mat3(0.0);
    // twist and flip of (1, 2), (0, 2), (0, 1)
    vec3 ta = r * vec3(0.0, ba.z, -ba.y), tb = r * vec3(0.0, bb.z, -bb.y);
    vec3 fa = r * vec3(0.0, ba.z, ba.y), fb = r * vec3(0.0, bb.z, bb.y);
    G += m.twist.x * outerProduct(ta, tb) + m.flip.x * outerProduct(fa, fb);
    ta = r * vec3(ba.z, 0.0, -ba.x), tb = r * vec3(bb.z, 0.0, -bb.x);
    fa = r * vec3(ba.z, 0.0, ba.x), fb = r * vec3(bb.z, 0.0, bb.x);
    G += m.twist.y * outerProduct(ta, tb) + m.flip.y * outerProduct(fa, fb);
    ta = r * vec3(ba.y, -ba.x, 0.0), tb = r * vec3(bb.y, -bb.x, 0.0);
    fa = r * vec3(ba.y, ba.x, 0.0), fb = r * vec3(bb.y, bb.x, 0.0);
    G += m.twist.z * outerProduct(ta, tb) + m.flip.z * outerProduct(fa, fb);
    // scalings
    [[unroll]] for (int k = 0; k < 3; k++)
        G += m.scale[k] * outerProduct(m.E[k] * ba, m.E[k] * bb);
    return G;
}

#endif
