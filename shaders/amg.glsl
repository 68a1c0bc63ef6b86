// MGPBD (docs/mgpbd.md): access to AMG_INDEX's table and its sparse matrix
// records (shared/layout.h, SINEW_AMG_*); reductions use reduce.glsl's
// workgroup sum. Every access goes through amg_i (indices) and amg_r,
// amg_set, amg_add (values), which find the chunk a word lies in. The
// solver's own buffers are set 1 (shared/amg.h).

#include "shared/amg.h"
#include "reduce.glsl"

#define AMG(b) layout(std430, set = SINEW_SET_SOLVER, binding = SINEW_AMG_BIND_##b)
AMG(INDEX) readonly buffer AmgIndex0 { uint amg_index0[]; };
AMG(INDEX + 1) readonly buffer AmgIndex1 { uint amg_index1[]; };
AMG(REAL) buffer AmgReal0 { float amg_real0[]; };
AMG(REAL + 1) buffer AmgReal1 { float amg_real1[]; };
AMG(SAVED) buffer SavedBuf { vec4 q[]; };
#undef AMG

uint amg_i(uint k)
{
    uint c = k >> pc.index_shift, o = k & ((1u << pc.index_shift) - 1u);
    return c == 0u ? amg_index0[o] : amg_index1[o];
}

float amg_r(uint k)
{
    uint c = k >> pc.real_shift, o = k & ((1u << pc.real_shift) - 1u);
    return c == 0u ? amg_real0[o] : amg_real1[o];
}

void amg_set(uint k, float v)
{
    uint c = k >> pc.real_shift, o = k & ((1u << pc.real_shift) - 1u);
    if (c == 0u)
        amg_real0[o] = v;
    else
        amg_real1[o] = v;
}

void amg_add(uint k, float v) { amg_set(k, amg_r(k) + v); }

uint amg_head(uint field) { return amg_i(field); }
uint amg_mat(uint m, uint field) { return amg_i(m + field); }

// Row i of matrix m times vector x, added in the row's column order. Where
// the row's columns and values and all of x lie in the first chunks (every
// matrix below 2^shift words, which is all of them on most devices), the
// loop reads the arrays directly, without a chunk test per word.
float amg_row_dot(uint m, uint i, uint x)
{
    uint rows = amg_mat(m, SINEW_AMG_M_ROW), cols = amg_mat(m, SINEW_AMG_M_COL), vals = amg_mat(m, SINEW_AMG_M_VAL);
    uint begin = amg_i(rows + i), end = amg_i(rows + i + 1u);
    float s = 0.0;
    if (cols + end <= (1u << pc.index_shift) && vals + end <= (1u << pc.real_shift) &&
        x + amg_mat(m, SINEW_AMG_M_COLS) <= (1u << pc.real_shift)) {
        for (uint e = begin; e < end; e++)
            s += amg_real0[vals + e] * amg_real0[x + amg_index0[cols + e]];
        return s;
    }
    for (uint e = begin; e < end; e++)
        s += amg_r(vals + e) * amg_r(x + amg_i(cols + e));
    return s;
}

// The row of matrix m that entry e lies in (binary search of its row starts).
uint amg_row_of(uint m, uint e)
{
    uint rows = amg_mat(m, SINEW_AMG_M_ROW), lo = 0u, hi = amg_mat(m, SINEW_AMG_M_ROWS);
    while (hi - lo > 1u) { // row starts[lo] <= e < starts[hi]
        uint mid = (lo + hi) >> 1u;
        if (amg_i(rows + mid) <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// The position of column col among cols[lo, hi) (increasing), or NONE.
uint amg_find(uint cols, uint lo, uint hi, uint col)
{
    uint end = hi;
    while (lo < hi) {
        uint mid = (lo + hi) >> 1u;
        if (amg_i(cols + mid) < col)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo < end && amg_i(cols + lo) == col ? lo : SINEW_AMG_NONE;
}

float amg_diag(uint m, uint i)
{
    return amg_r(amg_mat(m, SINEW_AMG_M_VAL) + amg_i(amg_mat(m, SINEW_AMG_M_DIAG) + i));
}

float amg_scalar(uint k) { return amg_r(amg_head(SINEW_AMG_SCALARS) + k); }
void amg_set_scalar(uint k, float v) { amg_set(amg_head(SINEW_AMG_SCALARS) + k, v); }

// Whether the dispatch has work: its gate (pc.gate, a scalar) is 0 or open.
// The gate is one value for the whole dispatch, so a closed one returns every
// invocation of every workgroup alike.
bool amg_open() { return pc.gate == 0u || amg_scalar(pc.gate) > 0.0; }

