#version 450
#extension GL_GOOGLE_include_directive : require
// Implicit multigrid cloth: the coarsest level's solve in one workgroup,
// range.count iterations of block-Jacobi PCG from its U on level
// range.first2: mg_pcg's START and steps, row for row the same arithmetic,
// with the dot products summed inside the workgroup. The level is small;
// elsewhere each iteration is five dependent dispatches, here it is
// barriers. Each invocation owns the rows lid, lid + WG, ...; only P is
// read across rows, so only P's writes are made visible to the workgroup.
#define MG_COHERENT coherent
#include "common.glsl"
#include "mg.glsl"

// workgroup_sum, callable again at once: everyone has read the sum first.
float sum(float v)
{
    float s = workgroup_sum(v);
    barrier();
    return s;
}

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
    uint level = range.first2, n = mg_field(level, SINEW_MG_N), lid = gl_LocalInvocationID.x;
    float v = 0.0;
    for (uint i = lid; i < n; i += SINEW_WORKGROUP_SIZE) {
        vec3 r = vec_at(level, SINEW_MG_F, i) - mg_row_times(level, SINEW_MG_U, i);
        vec3 z = precondition(level, i, r);
        mg_real[mg_vec(level, SINEW_MG_R, i)] = vec4(r, 0.0);
        mg_real[mg_vec(level, SINEW_MG_Z, i)] = vec4(z, 0.0);
        mg_real[mg_vec(level, SINEW_MG_P, i)] = vec4(z, 0.0);
        v += dot(r, z);
    }
    memoryBarrierBuffer();
    float rz = sum(v);
    for (uint k = 0u; k < range.count; k++) {
        v = 0.0;
        for (uint i = lid; i < n; i += SINEW_WORKGROUP_SIZE) {
            vec3 q = mg_row_times(level, SINEW_MG_P, i);
            mg_real[mg_vec(level, SINEW_MG_Q, i)] = vec4(q, 0.0);
            v += dot(vec_at(level, SINEW_MG_P, i), q);
        }
        float pq = sum(v);
        float alpha = pq > 0.0 ? rz / pq : 0.0;
        v = 0.0;
        for (uint i = lid; i < n; i += SINEW_WORKGROUP_SIZE) {
            vec3 u = vec_at(level, SINEW_MG_U, i) + alpha * vec_at(level, SINEW_MG_P, i);
            vec3 r = vec_at(level, SINEW_MG_R, i) - alpha * vec_at(level, SINEW_MG_Q, i);
            vec3 z = precondition(level, i, r);
            mg_real[mg_vec(level, SINEW_MG_U, i)] = vec4(u, 0.0);
            mg_real[mg_vec(level, SINEW_MG_R, i)] = vec4(r, 0.0);
            mg_real[mg_vec(level, SINEW_MG_Z, i)] = vec4(z, 0.0);
            v += dot(r, z);
        }
        float rz_new = sum(v);
        float beta = rz > 0.0 ? rz_new / rz : 0.0;
        for (uint i = lid; i < n; i += SINEW_WORKGROUP_SIZE) {
            vec3 p = vec_at(level, SINEW_MG_Z, i) + beta * vec_at(level, SINEW_MG_P, i);
            mg_real[mg_vec(level, SINEW_MG_P, i)] = vec4(p, 0.0);
        }
        memoryBarrierBuffer();
        barrier();
        rz = rz_new;
    }
}
