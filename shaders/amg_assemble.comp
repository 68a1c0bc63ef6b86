#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: the values of A = G M^-1 G^T + alpha~ in its fixed pattern (the
// finest operator's record), one row (constraint) per invocation:
//   A_ij = sum over the particles p constraints i and j share of
//          w_p grad_i(p) . grad_j(p)   (+ alpha_i / h^2 on the diagonal)
// the shared particles' slots packed in PAIRS by the host. pc.a = 1/h^2.
// When the header's X0 names a record (coarse operators in the Gram form),
// also row i of X_0 = [G | diag(sqrt alpha~)]: the gradient at each of the
// constraint's particles in increasing particle order, then sqrt(alpha~_i)
// (the pattern mgpbd_layout.c's build_x0 lays out).
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

vec3 grad_at(uint c, uint slot)
{
    uint g = amg_head(SINEW_AMG_GRAD) + 12u * c + 3u * slot;
    return vec3(amg_r(g), amg_r(g + 1u), amg_r(g + 2u));
}

void main()
{
    if (!amg_open())
        return;
    uint i = linear_id();
    if (i >= pc.count)
        return;
    uint m = amg_head(SINEW_AMG_A0);
    uint rows = amg_mat(m, SINEW_AMG_M_ROW), cols = amg_mat(m, SINEW_AMG_M_COL), vals = amg_mat(m, SINEW_AMG_M_VAL);
    uint pairs = amg_head(SINEW_AMG_PAIRS), cons = amg_head(SINEW_AMG_CONS) + 4u * i;
    float at = amg_r(amg_head(SINEW_AMG_REST) + 12u * i + (i < amg_head(SINEW_AMG_DISTANCES) ? 1u : 9u)) * pc.a;
    for (uint e = amg_i(rows + i); e < amg_i(rows + i + 1u); e++) {
        uint j = amg_i(cols + e), p = amg_i(pairs + e);
        float s = j == i ? at : 0.0;
        for (uint q = 0u; q < (p & 7u); q++) {
            uint si = (p >> (3u + 4u * q)) & 3u, sj = (p >> (5u + 4u * q)) & 3u;
            s += pos[amg_i(cons + si)].w * dot(grad_at(i, si), grad_at(j, sj));
        }
        amg_set(vals + e, s);
    }
    uint x0 = amg_head(SINEW_AMG_X0);
    if (x0 == SINEW_AMG_NONE)
        return;
    uint nv = i < amg_head(SINEW_AMG_DISTANCES) ? 2u : 4u;
    uint xe = amg_mat(x0, SINEW_AMG_M_VAL) + amg_i(amg_mat(x0, SINEW_AMG_M_ROW) + i);
    for (uint s = 0u; s < nv; s++) {
        uint v = amg_i(cons + s), rank = 0u;
        for (uint k = 0u; k < nv; k++)
            rank += amg_i(cons + k) < v ? 1u : 0u;
        vec3 g = grad_at(i, s);
        amg_set(xe + 3u * rank, g.x);
        amg_set(xe + 3u * rank + 1u, g.y);
        amg_set(xe + 3u * rank + 2u, g.z);
    }
    amg_set(xe + 3u * nv, sqrt(at));
}
