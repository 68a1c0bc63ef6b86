/* The body: what every solver shares (particles, the asset's constraints and
 * elements, parameters, statistics, contacts, health, rollback, checkpoints)
 * and its solver, reached through the solver table (solvers/solver.h). */
#ifndef SINEW_BODY_INTERNAL_H
#define SINEW_BODY_INTERNAL_H

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
    sinew_particle_rec *rest;           /* the asset's particles and surface triangles (NULL without */
    sinew_triangle_rec *surface;        /* triangles): what another body's contacts need of this one */
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

/* Finishes a pipelined step still in flight before a call reads or changes
 * the body's state (body.c): waits for it only if it is still running; its
 * failed health check rolls back and is kept for the next step or wait.
 * OK, or the device's loss. */
sinew_result sinew_body_settle(sinew_body *b);
/* Records the body's step again with each stage a dispatch of its own: the
 * solver's per-substep clearing by fills before each prediction, the
 * velocities, the next prediction and the health check each alone, every
 * dispatch followed by a barrier. The same results to the bit, in more
 * dispatches and barriers; for the tests that show it. */
sinew_result sinew_body_record_unfused(sinew_body *b);

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

/* A checked material for slot `index` of the body's table (body_materials.c). */
sinew_result sinew_body_check_material(const sinew_body *b, uint32_t index, const sinew_material *m);
/* Which element update the body's elements and materials allow. */
sinew_element_set sinew_body_element_set(const sinew_body *b);
/* Gives the pins `capacity` slots: new ATTACH and upload buffers, the step
 * recorded again (body_pins.c). For sinew_body_set_pinned and checkpoint loads,
 * which may pin more particles than the slots hold. */
sinew_result sinew_body_grow_pins(sinew_body *b, uint32_t capacity);
/* Pins every particle of inverse mass 0 in xyzw (n vec4s) that is not held
 * by an attachment, at its position there; frees the pin slots of the
 * others (a checkpoint loaded). */
sinew_result sinew_body_sync_pins(sinew_body *b, const float *xyzw);
/* Grows the pin slots (sinew_body_grow_pins) to hold the pins of xyzw, so
 * that a sinew_body_sync_pins after cannot fail: called before a state is
 * loaded. */
sinew_result sinew_body_reserve_pins(sinew_body *b, const float *xyzw);
/* What sinew_body_create checks before it makes anything (body.c). */
sinew_result sinew_body_check(sinew_context *ctx, const sinew_asset *asset, const sinew_body_desc *desc);
/* sinew_body_create and sinew_body_destroy of a body of its own (body.c;
 * world.c holds the public calls, which put a body in its world). */
sinew_result sinew_body_make(sinew_context *ctx, const sinew_asset *asset, const sinew_body_desc *desc,
                             sinew_body **out);
void sinew_body_unmake(sinew_body *b);
/* sinew_body_record_step and sinew_body_collect_stats without the world's
 * refusal, for the world's chains (world.c). */
sinew_result sinew_body_record_into(sinew_body *b, VkCommandBuffer cmd, const sinew_step_params *p);
sinew_result sinew_body_collect_from(sinew_body *b);
/* sinew_body_set_contact_bodies without the world's refusal: a world's
 * chains of different batches see each other this way (body_contacts.c). */
sinew_result sinew_body_set_contacts(sinew_body *b, sinew_body *const *others, uint32_t count);
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
/* world_member.c: the calls of a member that body_access.c hands over. */
sinew_result sinew_member_read(sinew_body *b, int binding, float *xyz, uint32_t count);
sinew_result sinew_member_read_render(sinew_body *b, float *out, uint32_t count);
sinew_result sinew_member_write_positions(sinew_body *b, const float *xyz, uint32_t count);
/* A step around its submit, for a world submitting many bodies' steps at
 * once (world.c): checks the parameters, finishes the step before, runs the
 * solver's host work and writes the parameters (begin); after the world's
 * fence has signalled, takes the statistics and health (end). */
sinew_result sinew_body_begin_step(sinew_body *b, const sinew_step_params *p);
sinew_result sinew_body_end_step(sinew_body *b);
/* checkpoint.c: the state as a checkpoint's payload holds it (floats:
 * positions and velocities as vec4s, hinge angles, the solver's parts
 * present now), read from the device, and written back, checked, as
 * sinew_body_load_checkpoint writes it (flags: the parts it holds). */
size_t sinew_body_state_floats(sinew_body *b);
sinew_result sinew_body_download_state(sinew_body *b, float *state);
sinew_result sinew_body_load_state(sinew_body *b, const float *state, uint32_t flags);

/* body.c: the body's life. */
/* Set 0 from the body's buffers (the mesh collider's field in place of the
 * empty one), set 1 from the solver's. */
sinew_result sinew_body_make_bindings(sinew_body *b);
/* Device memory the body holds (bytes), and the allocations it is in. */
uint64_t sinew_body_device_memory(const sinew_body *b, uint32_t *allocations);
/* Drops the contact list (the body's step must not be in flight). */
void sinew_body_release_others(sinew_body *b);

/* body_upload.c: the asset onto the device at creation. */
/* The body's buffers (set 0), sized from the asset and filled from it. */
sinew_result sinew_body_upload_asset(sinew_body *b, const sinew_asset *a);
/* Host copies of the constraints, for cuts. */
sinew_result sinew_body_copy_constraints(sinew_body *b, const sinew_asset *a);

/* body_materials.c */
/* Host copies of the materials and which element kinds use each, checked. */
sinew_result sinew_body_copy_elements(sinew_body *b, const sinew_asset *a);

/* stages.c: the step's stages (stages.h), from the contact bodies'
 * positions to the copy of STATS for the host, into r. */
void sinew_body_record_stages(sinew_body *b, sinew_recorder *r);

/* step_record.c: the step's command buffer. */
/* The step's command buffer, fence and timestamp queries made, and the
 * step recorded into them (at creation). */
sinew_result sinew_body_record_new(sinew_body *b);
/* Records the step into b->cmd (allocated, and reset or never begun). */
sinew_result sinew_body_record_commands(sinew_body *b);
/* Records the step again into a new command buffer (the body settled). */
sinew_result sinew_body_rerecord(sinew_body *b);

/* step_params.c: a step's parameters. */
/* Every parameter finite and in range, the collider list and the frames. */
sinew_result sinew_body_check_params(const sinew_body *b, const sinew_step_params *p);
/* The step's values as the kernels read them. */
GpuParams sinew_body_gpu_params(sinew_body *b, const sinew_step_params *p);
/* The collider list as the kernels read it (GpuShape, p->shape_count). */
void sinew_body_shape_records(const sinew_step_params *p, GpuShape *out);
/* The statistics and health counters as each step starts. */
GpuStats sinew_body_fresh_stats(void);

/* body_stats.c: after a step. */
/* The step's timestamps into the phases' times of b->stats. */
void sinew_body_read_timestamps(sinew_body *b);
/* The step's submits, host waits and bytes read back, from the context's
 * counters before it. */
void sinew_body_count_step(sinew_body *b, const sinew_counters *before);
/* The finished step's statistics into b->stats; a failed health check
 * rolls back (when the step may be and desc.rollback) and says so. */
sinew_result sinew_body_take_stats(sinew_body *b, int can_roll_back);

#endif
