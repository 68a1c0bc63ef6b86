#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: constraints and their gradients at the current positions, one
// constraint per invocation (docs/math.md 6; tests/ref/mgpbd_ref.c):
//   distance     C = |x_a - x_b| - L
//   tetrahedron  C = |F - R|_F (as-rigid-as-possible), F = Ds Dm^-1, R the
//                rotation of F; dC/dF = (F - R) / C
// compliance alpha from REST, alpha~ = alpha pc.a (pc.a = 1/h^2).
//   EVAL  C and the gradients into C and GRAD, b = -C - alpha~ lambda into
//         vector pc.y
//   XPBD  XPBD's projection (docs/math.md 2) of constraints pc.first + [0,
//         pc.count), one colour: dlambda = b / (sum_j w_j |grad_j|^2 +
//         alpha~), lambda += dlambda, x_j += w_j grad_j dlambda
//   JACOBI  the same dlambda of every constraint from the same positions
//         (pc.first 0, pc.count m) into vector pc.y, the gradients into
//         GRAD, lambda += dlambda; amg_apply's mode 0 then moves the
//         particles by omega of it (XPBD's Jacobi variant)
// A constraint already satisfied to 1e-7 (an undeformed tetrahedron, whose
// gradient is 0/0) gets no gradient.
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"
#include "sym3.glsl"

void main()
{
    if (!amg_open())
        return;
    uint k = linear_id();
    if (k >= pc.count)
        return;
    uint c = pc.first + k;
    uint d = amg_head(SINEW_AMG_DISTANCES);
    uint cons = amg_head(SINEW_AMG_CONS) + 4u * c, rest = amg_head(SINEW_AMG_REST) + 12u * c;
    uint v[4];
    vec3 x[4], g[4];
    uint nv = c < d ? 2u : 4u;
    for (uint j = 0u; j < 4u; j++) {
        v[j] = amg_i(cons + j);
        x[j] = j < nv ? pos[v[j]].xyz : vec3(0.0);
        g[j] = vec3(0.0);
    }
    float C, alpha;
    if (c < d) {
        vec3 e = x[0] - x[1];
        float len = length(e);
        C = len - amg_r(rest);
        alpha = amg_r(rest + 1u);
        if (len > 0.0) {
            g[0] = e / len;
            g[1] = -g[0];
        }
    } else {
        vec3 r0 = vec3(amg_r(rest), amg_r(rest + 1u), amg_r(rest + 2u));
        vec3 r1 = vec3(amg_r(rest + 3u), amg_r(rest + 4u), amg_r(rest + 5u));
        vec3 r2 = vec3(amg_r(rest + 6u), amg_r(rest + 7u), amg_r(rest + 8u));
        alpha = amg_r(rest + 9u);
        mat3 F = outerProduct(x[1] - x[0], r0) + outerProduct(x[2] - x[0], r1) + outerProduct(x[3] - x[0], r2);
        mat3 D = F - rotation_part(F);
        C = sqrt(dot(D[0], D[0]) + dot(D[1], D[1]) + dot(D[2], D[2]));
        if (C > 1e-7) {
            mat3 G = D * (1.0 / C);
            g[1] = G * r0;
            g[2] = G * r1;
            g[3] = G * r2;
            g[0] = -(g[1] + g[2] + g[3]);
        }
    }
    float at = alpha * pc.a;
    uint lam = amg_head(SINEW_AMG_LAMBDA) + c;
    float b = -C - at * amg_r(lam);
    if (pc.mode != SINEW_AMG_CONS_XPBD) {
        uint grad = amg_head(SINEW_AMG_GRAD) + 12u * c;
        for (uint j = 0u; j < 4u; j++) {
            amg_set(grad + 3u * j, g[j].x);
            amg_set(grad + 3u * j + 1u, g[j].y);
            amg_set(grad + 3u * j + 2u, g[j].z);
        }
        amg_set(amg_head(SINEW_AMG_C) + c, C);
        if (pc.mode == SINEW_AMG_CONS_EVAL) {
            amg_set(pc.y + c, b);
            return;
        }
    }
    float denom = at;
    for (uint j = 0u; j < nv; j++)
        denom += pos[v[j]].w * dot(g[j], g[j]);
    float dl = denom > 0.0 ? b / denom : 0.0;
    if (pc.mode == SINEW_AMG_CONS_JACOBI)
        amg_set(pc.y + c, dl);
    if (!(denom > 0.0))
        return;
    amg_add(lam, dl);
    if (pc.mode == SINEW_AMG_CONS_JACOBI)
        return;
    for (uint j = 0u; j < nv; j++)
        pos[v[j]].xyz += pos[v[j]].w * dl * g[j];
}
