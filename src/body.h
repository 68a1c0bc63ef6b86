/* The body: device buffers of one simulated object and its recorded step. */
#ifndef SINEW_BODY_INTERNAL_H
#define SINEW_BODY_INTERNAL_H

#include <sinew/body.h>

#include "asset/asset.h"
#include "gpu/gpu.h"

/* Beyond this many timestamps per step the phases are not timed. */
#define SINEW_MAX_TIMESTAMPS 4096u

struct sinew_body {
    sinew_context *ctx;
    sinew_body_desc desc;
    char name[64];
    uint32_t topology_crc;              /* of the constraints, to match checkpoints */
    uint32_t particle_count, distance_count, bend_count, colour_count;
    sinew_colour_rec *colours;          /* host copy of the colour ranges */
    uint32_t element_count, element_colour_count, material_count;
    sinew_element_colour_rec *element_colours; /* host copy */
    sinew_material *materials;          /* as on the device */
    uint8_t *material_kinds;            /* per material: bit k set when elements of kind k use it */

    /* Host copies of the constraints as uploaded, and which are cut (a cut
     * distance goes to the device joining a particle to itself, a cut hinge
     * with a wing on its edge: the kernels skip both). */
    GpuDistance *dist_host;
    GpuBend *bend_host;
    uint8_t *dist_cut, *bend_cut;
    uint32_t topology_base;             /* topology_crc before any cut */
    uint32_t cut_count;                 /* distance constraints cut so far */
    /* HPBD hierarchy (level_count 0: none); nodes and links as on the device. */
    uint32_t level_count, hdistance_count, link_count;
    sinew_level_rec *levels;
    sinew_range_rec *hcolours;
    GpuDistance *hdist_host;
    GpuNode *nodes;
    GpuLink *links;
    uint32_t red_count;                 /* PD red-black: ORDER's first red_count particles are red */
    int normals;                        /* vertex normals computed after each step (MESH, NORMAL) */
    uint32_t triangle_count;

    sinew_buffer buffers[SINEW_BIND_COUNT];
    sinew_buffer saved;                 /* rollback: positions then velocities at the step's start */
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet set;
    VkCommandBuffer cmd;                /* one step, recorded once */
    VkFence fence;
    VkQueryPool queries;                /* NULL when not timing */
    uint32_t query_count;
    uint64_t *query_results;            /* query_count timestamps */
    uint8_t *query_phase;               /* phase of the span each one ends */
    uint32_t dispatches, barriers;      /* per step, as recorded */
    uint64_t bytes;                     /* designed traffic per step */

    sinew_step_stats stats;
    int recorded;                       /* a step was recorded into an application's command buffer */
    int warned_loops_cut;               /* the loop-limit warning was logged (once a body) */
    float *unpinned_w;                  /* inverse masses of particles pinned by sinew_body_set_pinned (lazy) */
    struct sinew_imc *imc;              /* the implicit solvers' multigrid (NULL otherwise) */
    int history;                        /* BDF2: Q holds the state of the step before */
    sinew_collider *collider;           /* desc.collider, retained */
};

/* Records one step (XPBD, GPBD, HPBD or PD) into r->cmd. */
void sinew_xpbd_record(sinew_body *body, sinew_recorder *r);
/* What ends every step: normals, residual, health check, host barrier. */
void sinew_record_step_end(sinew_body *body, sinew_recorder *r);

/* The implicit solvers (src/solvers/implicit.c): desc and asset checked,
 * the multigrid made in the body's buffers (before its descriptor set) and
 * given the set, one step's solves (before the recorded step end). */
int sinew_solver_is_implicit(sinew_solver s);
sinew_result sinew_implicit_check(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d);
sinew_result sinew_implicit_create(sinew_body *body, const sinew_asset *a);
sinew_result sinew_implicit_step(sinew_body *body, const sinew_step_params *p);
/* PD: what follows the prediction in one substep (src/solvers/pd.c). */
void sinew_pd_record_substep(sinew_body *body, sinew_recorder *r);
int sinew_solver_is_pd(sinew_solver s);

#endif
