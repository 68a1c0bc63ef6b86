// MGPBD (docs/mgpbd.md): access to AMG_INDEX's table and its sparse matrix
// records (shared/layout.h, SINEW_AMG_*), and the workgroup sum every
// reduction uses.

uint amg_head(uint field) { return amg_index[field]; }
uint amg_mat(uint m, uint field) { return amg_index[m + field]; }

// Row i of matrix m times vector x, added in the row's column order.
float amg_row_dot(uint m, uint i, uint x)
{
    uint rows = amg_mat(m, SINEW_AMG_M_ROW), cols = amg_mat(m, SINEW_AMG_M_COL), vals = amg_mat(m, SINEW_AMG_M_VAL);
    float s = 0.0;
    for (uint e = amg_index[rows + i]; e < amg_index[rows + i + 1u]; e++)
        s += amg_real[vals + e] * amg_real[x + amg_index[cols + e]];
    return s;
}

float amg_diag(uint m, uint i)
{
    return amg_real[amg_mat(m, SINEW_AMG_M_VAL) + amg_index[amg_mat(m, SINEW_AMG_M_DIAG) + i]];
}

float amg_scalar(uint k) { return amg_real[amg_head(SINEW_AMG_SCALARS) + k]; }

// Sums v over the workgroup in a fixed order (the same bits every run).
// Every invocation must call it; the sum is valid in invocation 0.
shared float amg_red[SINEW_WORKGROUP_SIZE];
float amg_workgroup_sum(float v)
{
    uint lid = gl_LocalInvocationID.x;
    amg_red[lid] = v;
    barrier();
    for (uint h = SINEW_WORKGROUP_SIZE / 2u; h > 0u; h >>= 1u) {
        if (lid < h)
            amg_red[lid] += amg_red[lid + h];
        barrier();
    }
    return amg_red[0];
}
