#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: one step of block-Jacobi preconditioned CG on a
// level (range.first2), one particle per invocation; range.count2 the step:
//   START      R = F - A U, Z = diag(A)^-1 R, P = Z; partial sums of R.Z
//   Q          Q = A P; partial sums of P.Q
//   UPDATE     alpha = rz / pq; U += alpha P, R -= alpha Q, Z = diag(A)^-1 R;
//              partial sums of the new R.Z
//   DIRECTION  beta = rz_new / rz; P = Z + beta P
//   DOT        partial sums of vector range.distance_total with itself
//   INIT       U = 0, or (modified PCG) the part of TARGET - h v its
//              constraint fixes
// With SINEW_MG_FILTERED (the finest level only) R, Z and Q are filtered:
// the constrained directions stay as INIT set them (Baraff and Witkin's
// modified PCG, constraints hard).
// rz and rz_new are the scalars SINEW_MG_S_RZ + parity and + 1 - parity
// (range.slot_base: the parity). mg_reduce turns partials into scalars.
#include "common.glsl"
#include "mg.glsl"

vec3 vec_at(uint level, uint k, uint i) { return mg_real[mg_vec(level, k, i)].xyz; }

vec3 precondition(uint level, uint i, vec3 r)
{
    uint diag = mg_field(level, SINEW_MG_BLOCKS) + 3u * mg_index[mg_field(level, SINEW_MG_DIAG) + i];
    return mg_block_solve(diag, r);
}

void main()
{
    if (!mg_open())
        return;
    uint level = range.first2, mode = range.count2;
    uint i = linear_id();
    bool live = i < mg_field(level, SINEW_MG_N);
    uint sc = mg_scalars();
    bool filtered = mg_filtered() && level + 1u == mg_index[0];
    float v = 0.0;
    if (live) {
        if (mode == SINEW_MG_PCG_INIT) {
            vec3 u = vec3(0.0);
            if (filtered) {
                vec3 fixed_y = vec_at(level, SINEW_MG_TARGET, i) - mg_real[mg_globals()].x * vel[i].xyz;
                u = fixed_y - mg_filter(level, i, fixed_y);
            }
            mg_real[mg_vec(level, SINEW_MG_U, i)] = vec4(u, 0.0);
        } else if (mode == SINEW_MG_PCG_START) {
            vec3 r = vec_at(level, SINEW_MG_F, i) - mg_row_times(level, SINEW_MG_U, i);
            if (filtered)
                r = mg_filter(level, i, r);
            vec3 z = precondition(level, i, r);
            if (filtered)
                z = mg_filter(level, i, z);
            mg_real[mg_vec(level, SINEW_MG_R, i)] = vec4(r, 0.0);
            mg_real[mg_vec(level, SINEW_MG_Z, i)] = vec4(z, 0.0);
            mg_real[mg_vec(level, SINEW_MG_P, i)] = vec4(z, 0.0);
            v = dot(r, z);
        } else if (mode == SINEW_MG_PCG_Q) {
            vec3 q = mg_row_times(level, SINEW_MG_P, i);
            if (filtered)
                q = mg_filter(level, i, q);
            mg_real[mg_vec(level, SINEW_MG_Q, i)] = vec4(q, 0.0);
            v = dot(vec_at(level, SINEW_MG_P, i), q);
        } else if (mode == SINEW_MG_PCG_UPDATE) {
            float rz = mg_real[sc + SINEW_MG_S_RZ + range.slot_base].x, pq = mg_real[sc + SINEW_MG_S_PQ].x;
            float alpha = pq > 0.0 ? rz / pq : 0.0;
            vec3 u = vec_at(level, SINEW_MG_U, i) + alpha * vec_at(level, SINEW_MG_P, i);
            vec3 r = vec_at(level, SINEW_MG_R, i) - alpha * vec_at(level, SINEW_MG_Q, i);
            vec3 z = precondition(level, i, r);
            if (filtered)
                z = mg_filter(level, i, z);
            mg_real[mg_vec(level, SINEW_MG_U, i)] = vec4(u, 0.0);
            mg_real[mg_vec(level, SINEW_MG_R, i)] = vec4(r, 0.0);
            mg_real[mg_vec(level, SINEW_MG_Z, i)] = vec4(z, 0.0);
            v = dot(r, z);
        } else if (mode == SINEW_MG_PCG_DIRECTION) {
            float rz = mg_real[sc + SINEW_MG_S_RZ + range.slot_base].x;
            float rz_new = mg_real[sc + SINEW_MG_S_RZ + 1u - range.slot_base].x;
            float beta = rz > 0.0 ? rz_new / rz : 0.0;
            vec3 p = vec_at(level, SINEW_MG_Z, i) + beta * vec_at(level, SINEW_MG_P, i);
            mg_real[mg_vec(level, SINEW_MG_P, i)] = vec4(p, 0.0);
        } else {
            vec3 x = vec_at(level, range.distance_total, i);
            v = dot(x, x);
        }
    }
    mg_partial_sum(v);
}
