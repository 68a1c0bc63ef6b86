/* Implicit cloth's internals shared by its files: the host's copy of each
 * level and the solver's state. Private to src/solvers/imc*.c; the
 * interface is imc.h. */
#ifndef SINEW_IMC_INTERNAL_H
#define SINEW_IMC_INTERNAL_H

#include "imc.h"

#include "shared/mg.h"


typedef struct level_host {
    uint32_t n, t, h, nnz;
    const sinew_triangle_rec *tri;
    uint32_t tets;              /* a solid's level: its tetrahedra (the asset's elements) */
    const sinew_element_rec *tet;
    uint32_t *hinge;            /* 4 per hinge */
    uint32_t *row, *col, *diag;
    uint32_t *inc_start, *inc;
    uint32_t *child_start, *child;
    uint32_t field[SINEW_MG_FIELDS];
    uint32_t colours;
    uint32_t colour_at[64], colour_count[64]; /* each colour's particles: MG_INDEX offset and count */
} level_host;

struct sinew_imc {
    sinew_context *ctx;
    sinew_buffer own_body[SINEW_BODY_BINDINGS]; /* standalone: POS and VEL */
    sinew_buffer *body;         /* own_body, or a body's buffers (borrowed) */
    sinew_buffer mg[SINEW_MG_BINDINGS]; /* set 1: always the solver's own */
    int borrowed;
    sinew_workspace ws;         /* its sets: standalone its own, else the body's (sinew_imc_use_bindings) */
    sinew_imc_material mat;
    float contact, friction, pin; /* N/m */
    int filtered, device_constraints;
    uint32_t levels, n, globals, scalars, partial_groups; /* globals, scalars: MG_REAL indices */
    level_host L[SINEW_ASSET_MAX_MLEVELS];
    float *D;       /* finest: 3 vec4 rows per particle */
    float *target;  /* finest: 1 vec4 per particle */
    double *warp;   /* every level's triangles' material warps (sinew_imc_warps) */
};

#endif
