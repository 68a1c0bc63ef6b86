/* The body: what every solver shares (particles, the asset's constraints and
 * elements, parameters, statistics, contacts, health, rollback, checkpoints)
 * and its solver, reached through the solver table (solvers/solver.h); and
 * the small helpers every file of the body uses on it. Defines no calls of
 * its own, so the body's files (body.c, the step's, the features') all
 * stand above it and none above another through it (body.h declares their
 * calls). */
#ifndef SINEW_BODY_STRUCT_H
#define SINEW_BODY_STRUCT_H

#include <sinew/body.h>

#include "asset/asset.h"
#include "asset/merge.h"
#include "attach.h"
#include "gpu/gpu.h"
#include "selfcol.h"
#include "solvers/solver.h"

#include <math.h>

/* Beyond this many timestamps per step the phases are not timed. */
#define SINEW_MAX_TIMESTAMPS 4096u

struct sinew_body {
    sinew_context *ctx;
    sinew_body_desc desc;
    char name[64];
    const sinew_solver_row *solver;
    void *state;                        /* the solver's */
    sinew_body_view view;               /* what the solver sees of this body */
    uint32_t topology_crc;              /* of the constraints, to match checkpoints */
    uint32_t particle_count, distance_count, bend_count, element_count, material_count, triangle_count;
    uint32_t tet_count;                 /* elements that are tetrahedra: the health check looks at them */
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
    int normals;                        /* vertex normals computed after each step (MESH, NORMAL) */
    int estimate;                       /* the error estimate runs (a solid of tetrahedra with desc.residual,
                                           not MGPBD: body_stats.c, error_measured; REST) */
    uint32_t render_vertex_count;       /* render mesh (RENDER; 0: none): vertices and indices */
    uint32_t render_index_count;
    uint64_t render_bytes;              /* what the render kernel reads and writes a step */

    sinew_buffer buffers[SINEW_BODY_BINDINGS];
    sinew_buffer saved;                 /* rollback: positions, velocities, hinge angles at the step's start */
    sinew_buffer upload;                /* host-written: the next step's GpuParams and fresh GpuStats, copied
                                           to PARAMS and STATS by the step's first commands */
    sinew_buffer readback;              /* host-read: STATS as the last step left it, copied by its last commands */
    sinew_bindings bindings;
    VkCommandBuffer cmd;                /* one step, recorded once */
    VkFence fence;
    VkQueryPool queries;                /* NULL when not timing */
    uint32_t query_count;
    uint64_t *query_results;            /* query_count timestamps */
    uint8_t *query_phase;               /* phase of the span each one ends */
    uint32_t dispatches, barriers;      /* per step, as recorded */
    int unfused;                        /* recorded stage by stage (sinew_body_record_unfused) */
    uint64_t bytes;                     /* designed traffic per step */

    sinew_step_stats stats;
    int in_flight;                      /* a step was submitted and not yet finished (desc.pipelined) */
    sinew_result deferred;              /* a finished pipelined step's failure, for the next step or wait */
    int recorded;                       /* a step was recorded into an application's command buffer */
    int warned_loops_cut;               /* the loop-limit warning was logged (once a body) */
    float *unpinned_w;                  /* inverse masses of particles pinned by sinew_body_set_pinned (lazy) */
    sinew_collider *collider;           /* desc.collider, retained */
    sinew_selfcol self;                 /* desc.self_collision's surface and sizes */
    int warned_self_dropped;            /* the dropped-candidates warning was logged (once a body) */
    sinew_particle_rec *rest;           /* the asset's particles (the rest pose) and surface triangles (NULL */
    sinew_triangle_rec *surface;        /* without): what another body's contacts need of this one */
    struct sinew_body **others;         /* the bodies this one collides with (retained), */
    uint32_t other_count;               /* sinew_body_set_contact_bodies */
    uint32_t refs;                      /* 1 for the application until it destroys the body, 1 for each
                                           body that collides with it */
    /* The collider list and wind (SHAPES, shared/layout.h): vec4 indices of
     * the current shape records, the mesh headers, the meshes' values and
     * the wind's velocity changes; wind: the wind kernel is recorded. */
    uint32_t shapes_current, shapes_meshes, shapes_values, shapes_wind;
    int wind;
    sinew_result unrecorded;            /* not OK: re-recording the step failed (sinew_body_set_contact_bodies);
                                           steps are refused until a call succeeds */
    sinew_attach attach;                /* attachments to frames, pins' targets, tethers (attach.h) */
    /* A body in a world (world.c): its world (NULL: a world of its own).
     * A member of a batch has no buffers of its own: it keeps its asset (to
     * build the batch again when bodies join or leave), the batch's body
     * once built, and where its records lie there. */
    struct sinew_world *world;
    const char *world_name;             /* for messages */
    sinew_asset *asset;                 /* non-NULL: a member of a batch */
    struct sinew_body *batch;           /* the batch's body; NULL until built */
    sinew_merge_map map;
    /* A member: its world's hook that builds the batches that changed
     * (world.c), so that the body's calls reach its batch's body. */
    sinew_result (*build)(struct sinew_world *world);
    /* A chain of a world with contacts: which body each of its particles
     * (and its contact bodies') belongs to, and their filters; planned into
     * its self-collision (selfcol.h). Owned; NULL: none. */
    sinew_selfcol_bodies *world_bodies;
};

/* The solver's operations. */
static inline const sinew_solver_ops *sinew_body_ops(const sinew_body *b) { return b->solver->ops; }
/* The solver's parts of the state (solvers/solver.h), in payload order. */
static inline uint32_t sinew_body_state_parts(sinew_body *b, sinew_state_part parts[SINEW_STATE_MAX_PARTS])
{
    const sinew_solver_ops *ops = sinew_body_ops(b); /* a member of a batch: none (its families keep none) */
    return ops->state_parts && !b->asset ? ops->state_parts(b->state, &b->view, parts) : 0;
}

static inline int sinew_finite_nonneg(float x) { return isfinite(x) && x >= 0.0f; }

/* The upload buffer: GpuParams, fresh GpuStats, the collider list
 * (max_shapes GpuShape), then the attachments' dynamic part (frames, pins'
 * targets; attach.h). */
#define UPLOAD_SHAPES (sizeof(GpuParams) + sizeof(GpuStats))
#define UPLOAD_ATTACH(b) (UPLOAD_SHAPES + sizeof(GpuShape) * (uint64_t)(b)->desc.max_shapes)
_Static_assert(UPLOAD_SHAPES % 16 == 0 && sizeof(GpuShape) % 16 == 0, "vec4 aligned");

/* A member of a world's batch (b->asset): the batch's body, its world's
 * batches built first (through the world's hook); NULL with *r saying
 * why. */
static inline sinew_body *sinew_member_batch(sinew_body *m, sinew_result *r)
{
    *r = m->world ? m->build(m->world) : SINEW_RESULT_OK;
    if (*r == SINEW_RESULT_OK && !m->batch)
        *r = sinew_fail(&m->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "world",
                        "body '%s' has no batch: its world was destroyed", m->name);
    return *r == SINEW_RESULT_OK ? m->batch : NULL;
}

#endif
