#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Implicit solids: each tetrahedron's forces and stiffness, once, for
// mg_assemble to gather into its vertices' rows (one tetrahedron per
// invocation, range.count of them), linearised at the predictor
// x~ = x + h v, where the substep's Newton step starts (docs/implicit.md,
// "Integrators": linearised at x instead, a tumbling body's rotation
// leaks away). Into the solid's element scratch (shared/layout.h,
// SINEW_MG_H_TETS), per tetrahedron:
//   4 vec4    the force on each vertex at x~ less Rayleigh damping's at v,
//             -V (P + beta P_d) b_c
//   30 vec4   V times the blocks (a, b), a <= b, of h^2 K + h beta K_d, K
//             the Hessian made positive semi-definite, K_d the damping's
//             (K without the element's rotations; fem.glsl), 3 rows each,
//             in the order (0,0) (0,1) (0,2) (0,3) (1,1) (1,2) (1,3) (2,2)
//             (2,3) (3,3)
// F = sum_j (x~_j - x~_0) b_j^T (b_j the rows of Dm^-1, b_0 minus their sum).
#include "common.glsl"
#include "mg.glsl"
#include "fem.glsl"

void main()
{
    uint e = linear_id();
    if (e >= range.count)
        return;
    uint g = mg_globals();
    float h = mg_real[g].x, beta = mg_real[g].y;
    GpuElement el = elem[e];
    uvec4 v = el.v;
    vec3 x0 = pos[v.x].xyz + h * vel[v.x].xyz;
    vec3 b[4] = vec3[4](-(el.r[0].xyz + el.r[1].xyz + el.r[2].xyz), el.r[0].xyz, el.r[1].xyz, el.r[2].xyz);
    mat3 F = mat3(0.0), Fdot = mat3(0.0);
    [[unroll]] for (uint c = 1u; c < 4u; c++) {
        F += outerProduct(pos[v[c]].xyz + h * vel[v[c]].xyz - x0, b[c]);
        Fdot += outerProduct(vel[v[c]].xyz - vel[v.x].xyz, b[c]);
    }
    float IC = dot(F[0], F[0]) + dot(F[1], F[1]) + dot(F[2], F[2]), J = determinant(F);
    float g1, g2, f1, f2;
    fem_terms(el.material, IC, J, g1, g2, f1, f2);
    mat3 P = fem_stress(F, g1, f1);
    mat3 U, W;
    vec3 s;
    svd_rv(F, U, s, W);
    FemModes m = fem_modes(s, g1, g2, f1, f2);
    vec2 n[3];
    vec3 lambda;
    fem_damping_modes(m, s, n, lambda);
    mat3 Ut = transpose(U);
    P += beta * (U * fem_damping_stress(m, n, lambda, Ut * Fdot * W) * transpose(W));
    uint at = mg_tet_scratch() + 34u * e;
    [[unroll]] for (uint c = 0u; c < 4u; c++)
        mg_real[at + c] = vec4(-el.measure * (P * b[c]), 0.0);
    vec3 beta_of[4];
    [[unroll]] for (uint c = 0u; c < 4u; c++)
        beta_of[c] = transpose(W) * b[c];
    float stiff = h * h * el.measure, damp = h * beta * el.measure;
    uint k = at + 4u;
    [[unroll]] for (uint a = 0u; a < 4u; a++)
        [[unroll]] for (uint q = a; q < 4u; q++) {
            mat3 rows = transpose(U * fem_block_damped(m, n, lambda, stiff, damp, beta_of[a], beta_of[q]) * Ut);
            mg_real[k] = vec4(rows[0], 0.0);
            mg_real[k + 1u] = vec4(rows[1], 0.0);
            mg_real[k + 2u] = vec4(rows[2], 0.0);
            k += 3u;
        }
}
