// Implicit multigrid cloth: access to the levels' tables (shared/layout.h,
// SINEW_MG_*) and their 3x3 blocks, each stored as three vec4 rows; the
// solver's own buffers (set 1, shared/mg.h).

#include "shared/mg.h"
#include "reduce.glsl"

layout(std430, set = SINEW_SET_SOLVER, binding = SINEW_MG_BIND_INDEX) readonly buffer MgIndexBuf { uint mg_index[]; };
// A kernel whose invocations read what others of its workgroup wrote defines
// MG_COHERENT as `coherent` first (mg_coarse).
#ifndef MG_COHERENT
#define MG_COHERENT
#endif
layout(std430, set = SINEW_SET_SOLVER, binding = SINEW_MG_BIND_REAL) MG_COHERENT buffer MgRealBuf { vec4 mg_real[]; };
// BDF2: positions, then velocities of the step before.
layout(std430, set = SINEW_SET_SOLVER, binding = SINEW_MG_BIND_HISTORY) buffer HistoryBuf { vec4 q[]; };

uint mg_field(uint level, uint field)
{
    return mg_index[SINEW_MG_HEADER + level * SINEW_MG_FIELDS + field];
}

uint mg_globals() { return mg_index[1]; }
uint mg_parents() { return mg_index[2]; }

// Index in MG_REAL of particle i's entry of vector k on a level.
uint mg_vec(uint level, uint k, uint i)
{
    return mg_field(level, SINEW_MG_VEC) + k * mg_field(level, SINEW_MG_N) + i;
}

vec3 mg_block_mul(uint at, vec3 x)
{
    return vec3(dot(mg_real[at].xyz, x), dot(mg_real[at + 1].xyz, x), dot(mg_real[at + 2].xyz, x));
}

// Row i of A x on a level, x vector k. The elastic part of A annihilates
// translations (each element's Jacobian rows sum to zero), so the row is
//   (m_i I + h^2 D_i) x_i + sum over j != i of A_ij (x_j - x_i)
// which adds small differences where the stored diagonal block would add
// the stiff blocks' large products to cancel them: for the smooth motions
// that dominate a step (a cloth falling, swinging) single precision's floor
// on the residual falls by orders of magnitude (docs/implicit.md). Every
// kernel applies A this way, so all agree on the system they solve.
vec3 mg_row_times(uint level, uint k, uint i)
{
    uint rows = mg_field(level, SINEW_MG_ROW), cols = mg_field(level, SINEW_MG_COL);
    uint blocks = mg_field(level, SINEW_MG_BLOCKS), x = mg_vec(level, k, 0u);
    vec3 xi = mg_real[x + i].xyz;
    vec3 y = vec3(0.0);
    for (uint b = mg_index[rows + i]; b < mg_index[rows + i + 1u]; b++) {
        uint j = mg_index[cols + b];
        if (j != i)
            y += mg_block_mul(blocks + 3u * b, mg_real[x + j].xyz - xi);
    }
    float h = mg_real[mg_globals()].x;
    uint dat = mg_field(level, SINEW_MG_D) + 3u * i;
    return y + mg_real[mg_vec(level, SINEW_MG_MASS, i)].x * xi + h * h * mg_block_mul(dat, xi);
}

// Solves the symmetric positive definite 3x3 block at `at` for r (Cramer).
vec3 mg_block_solve(uint at, vec3 r)
{
    mat3 m = mat3(mg_real[at].xyz, mg_real[at + 1].xyz, mg_real[at + 2].xyz); // symmetric: rows = columns
    float det = determinant(m);
    return det != 0.0 ? inverse(m) * r : vec3(0.0);
}

uint mg_partials() { return mg_index[3]; }
// A solid's element scratch (mg_tet.comp): 34 vec4 per tetrahedron.
uint mg_tet_scratch() { return mg_index[SINEW_MG_H_TETS]; }
uint mg_scalars() { return mg_index[4]; }

// Whether the dispatch has work: its gate (range.gate, shared/layout.h) is
// 0 or open. The same for every invocation of a dispatch, so a kernel may
// return on it before its workgroup barriers.
bool mg_open() { return range.gate == 0u || mg_real[mg_scalars() + range.gate].x > 0.0; }

// This workgroup's partial of a sum (reduce.glsl's fixed order). Every
// invocation must call it.
void mg_partial_sum(float v)
{
    float s = workgroup_sum(v);
    if (gl_LocalInvocationID.x == 0u)
        mg_real[mg_partials() + gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] = vec4(s, 0, 0, 0);
}

// Modified PCG (Baraff and Witkin 1998): are the constrained directions
// filtered out (globals' third vec4, w)?
bool mg_filtered() { return mg_real[mg_globals() + 2u].w > 0.5; }

// The filter S of particle i: the directions its constraint fixes removed
// (a point constraint all three, a sliding one its normal).
vec3 mg_filter(uint level, uint i, vec3 v)
{
    vec4 f = mg_real[mg_vec(level, SINEW_MG_FILTER, i)];
    if (f.w == SINEW_MG_POINT)
        return vec3(0.0);
    if (f.w == SINEW_MG_SLIDING)
        return v - f.xyz * dot(f.xyz, v);
    return v;
}
