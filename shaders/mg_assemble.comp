#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Implicit multigrid cloth and implicit solids: the rows of a level's system
// matrix
//   A = M + (h beta + h^2) K + h^2 D
// one particle per invocation, from its incident triangles', hinges' and
// tetrahedra's Jacobians computed where they are used (no atomics: each row
// is its own invocation's; a tetrahedron's stiffness is its Hessian made
// positive semi-definite, fem.glsl), and on the finest level (range.count2 = 1) the right-hand
// side into vector F. The unknown is y = dx - h v, the step's departure from
// moving on at its velocity: A y = b - A h v with b = h M v + h^2 (f + D d + M g)
// (docs/implicit.md; tests/ref/imc_ref.c solves for dx), which is
//   h^2 (f + D d + M g) - ((h beta + h^2) K + h^2 D) h v
// with the inertia h M v, large against the rest, cancelled exactly rather
// than in single precision, so that float's residual reaches 1e-6 of it.
// A solid's (range.count2 = 2) elements are linearised at x + h v instead
// (mg_tet, which leaves f there less the damping's force at v), so its
// right-hand side is h^2 (f + D (d - h v) + M g) (tests/ref/imc_solid_ref.c).
// range.first2: the level; range.count2: 0 a coarse level, 1 the finest of a
// cloth, 2 a solid's.
#include "common.glsl"
#include "constraints.glsl"
#include "mg.glsl"

uint row_begin, row_end, blocks, cols;

void add_rows(uint j, vec3 r0, vec3 r1, vec3 r2)
{
    for (uint b = row_begin; b < row_end; b++)
        if (mg_index[cols + b] == j) {
            uint at = blocks + 3u * b;
            mg_real[at].xyz += r0;
            mg_real[at + 1u].xyz += r1;
            mg_real[at + 2u].xyz += r2;
            return;
        }
}

// s * a b^T
void add_outer(uint j, float s, vec3 a, vec3 b)
{
    add_rows(j, s * a.x * b, s * a.y * b, s * a.z * b);
}

// s * (hat hat^T + t (I - hat hat^T))
void add_stretch(uint j, float s, vec3 hat, float t)
{
    vec3 r0 = hat.x * hat, r1 = hat.y * hat, r2 = hat.z * hat;
    r0 = r0 + t * (vec3(1, 0, 0) - r0);
    r1 = r1 + t * (vec3(0, 1, 0) - r1);
    r2 = r2 + t * (vec3(0, 0, 1) - r2);
    add_rows(j, s * r0, s * r1, s * r2);
}

// Corner c of the body's tetrahedron e, from what mg_tet left in the scratch:
// its force into `force`, the row's blocks (c, q) into the row.
void add_tet(uint e, uint c, inout vec3 force)
{
    uint at = mg_tet_scratch() + 34u * e;
    force += mg_real[at + c].xyz;
    uvec4 v = elem[e].v;
    [[unroll]] for (uint q = 0u; q < 4u; q++) {
        uint a = min(c, q), b = max(c, q);
        uint k = at + 4u + 3u * (a * 4u - (a * (a - 1u)) / 2u + (b - a));
        vec3 r0 = mg_real[k].xyz, r1 = mg_real[k + 1u].xyz, r2 = mg_real[k + 2u].xyz;
        if (c <= q)
            add_rows(v[q], r0, r1, r2);
        else // block (c, q) is block (q, c) transposed
            add_rows(v[q], vec3(r0.x, r1.x, r2.x), vec3(r0.y, r1.y, r2.y), vec3(r0.z, r1.z, r2.z));
    }
}

void main()
{
    uint level = range.first2;
    uint i = linear_id();
    if (i >= mg_field(level, SINEW_MG_N))
        return;
    uint g = mg_globals();
    float h = mg_real[g].x, beta = mg_real[g].y, k_stretch = mg_real[g].z, k_shear = mg_real[g].w;
    float k_bend = mg_real[g + 1u].x;
    vec3 gravity = mg_real[g + 1u].yzw;
    float scale = h * beta + h * h;
    uint rows = mg_field(level, SINEW_MG_ROW);
    row_begin = mg_index[rows + i];
    row_end = mg_index[rows + i + 1u];
    blocks = mg_field(level, SINEW_MG_BLOCKS);
    cols = mg_field(level, SINEW_MG_COL);
    for (uint b = row_begin; b < row_end; b++)
        for (uint r = 0u; r < 3u; r++)
            mg_real[blocks + 3u * b + r] = vec4(0.0);

    uint tri = mg_field(level, SINEW_MG_TRI), hinges = mg_field(level, SINEW_MG_HINGE);
    uint rest = mg_field(level, SINEW_MG_REST), tri_count = mg_field(level, SINEW_MG_TRI_COUNT);
    uint inc = mg_field(level, SINEW_MG_INC), inc_start = mg_field(level, SINEW_MG_INC_START);
    vec3 force = vec3(0.0);
    for (uint k = mg_index[inc_start + i]; k < mg_index[inc_start + i + 1u]; k++) {
        uint code = mg_index[inc + k];
        uint e = (code & ~(SINEW_MG_HINGE_BIT | SINEW_MG_TET_BIT)) >> 2, c = code & 3u;
        if ((code & SINEW_MG_TET_BIT) != 0u) {
            add_tet(e, c, force);
        } else if ((code & SINEW_MG_HINGE_BIT) == 0u) {
            uint v[3] = uint[3](mg_index[tri + 4u * e], mg_index[tri + 4u * e + 1u], mg_index[tri + 4u * e + 2u]);
            vec4 B = mg_real[rest + 2u * e];
            float a = mg_real[rest + 2u * e + 1u].x;
            vec3 d1 = pos[v[1]].xyz - pos[v[0]].xyz, d2 = pos[v[2]].xyz - pos[v[0]].xyz;
            vec3 w[2] = vec3[2](d1 * B.x + d2 * B.z, d1 * B.y + d2 * B.w);
            vec3 cw[2] = vec3[2](vec3(-(B.x + B.z), B.x, B.z), vec3(-(B.y + B.w), B.y, B.w));
            for (uint axis = 0u; axis < 2u; axis++) {
                float l = length(w[axis]), C = l - 1.0;
                vec3 hat = w[axis] / l;
                force -= k_stretch * a * C * cw[axis][c] * hat;
                float t = C > 0.0 ? C / l : 0.0;
                for (uint q = 0u; q < 3u; q++)
                    add_stretch(v[q], scale * k_stretch * a * cw[axis][c] * cw[axis][q], hat, t);
            }
            float s = dot(w[0], w[1]);
            vec3 gc = cw[0][c] * w[1] + cw[1][c] * w[0];
            force -= k_shear * a * s * gc;
            for (uint q = 0u; q < 3u; q++)
                add_outer(v[q], scale * k_shear * a, gc, cw[0][q] * w[1] + cw[1][q] * w[0]);
        } else {
            uint p[4] = uint[4](mg_index[hinges + 4u * e], mg_index[hinges + 4u * e + 1u],
                                mg_index[hinges + 4u * e + 2u], mg_index[hinges + 4u * e + 3u]);
            float theta;
            vec3 gr[4];
            if (!hinge(pos[p[0]].xyz, pos[p[1]].xyz, pos[p[2]].xyz, pos[p[3]].xyz, theta, gr))
                continue;
            vec4 hr = mg_real[rest + 2u * tri_count + e];
            float kw = k_bend * hr.y;
            force -= kw * (theta - hr.x) * gr[c];
            for (uint q = 0u; q < 4u; q++)
                add_outer(p[q], scale * kw, gr[c], gr[q]);
        }
    }
    float m = mg_real[mg_vec(level, SINEW_MG_MASS, i)].x;
    uint dat = mg_field(level, SINEW_MG_D) + 3u * i;
    add_rows(i, m * vec3(1, 0, 0) + h * h * mg_real[dat].xyz, m * vec3(0, 1, 0) + h * h * mg_real[dat + 1u].xyz,
             m * vec3(0, 0, 1) + h * h * mg_real[dat + 2u].xyz);
    if (range.count2 == 2u) { // a solid: its elements' stiffness is in the force (mg_tet, at x + h v)
        vec3 d = mg_real[mg_vec(level, SINEW_MG_TARGET, i)].xyz;
        vec3 b = h * h * (force + mg_block_mul(dat, d - h * vel[i].xyz) + m * gravity);
        mg_real[mg_vec(level, SINEW_MG_F, i)] = vec4(b, 0.0);
    } else if (range.count2 == 1u) {
        vec3 d = mg_real[mg_vec(level, SINEW_MG_TARGET, i)].xyz;
        vec3 b = h * h * (force + mg_block_mul(dat, d) + m * gravity);
        for (uint k = row_begin; k < row_end; k++) { // minus (A - M) h v: the row without its mass
            vec3 hv = h * vel[mg_index[cols + k]].xyz;
            b -= mg_block_mul(blocks + 3u * k, hv);
            if (mg_index[cols + k] == i)
                b += m * hv;
        }
        mg_real[mg_vec(level, SINEW_MG_F, i)] = vec4(b, 0.0);
    }
}
