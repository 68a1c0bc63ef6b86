/* sinew/world.h: many bodies stepped as one (docs/architecture.md, "The world").
 *
 * A world is made on a context; bodies join it through desc.world when they
 * are created (sinew_body_create). Its step is one command submission and
 * one wait for every body in it. Bodies of one solver family whose
 * descriptions agree (all but name, materials and the world) are packed
 * into one set of device buffers, a batch: their particles, constraints and
 * elements lie side by side, each body's records in its own order, so the
 * step records each stage once for the whole batch (one prediction, one
 * dispatch per colour, cluster pass, element colour or level, one velocity
 * and health pass) and its dispatches do not grow with the number of
 * bodies. A body of a batch follows exactly the operations it would alone,
 * in the same order, so its state is the same to the bit.
 *
 *     world ──▶ batch (XPBD GS, 24 x 24 capes x 16) ──▶ one recorded step
 *           ──▶ batch (GPBD GS, soft blocks x 8)     ──▶ one recorded step
 *           ──▶ a body of its own (implicit cloth)   ──▶ its recorded step
 *                 all submitted together, one fence, one wait
 *
 * Which bodies batch: the position-based families (XPBD, GPBD, HPBD) and
 * projective dynamics, without attachments to frames, mesh colliders of the
 * list or pipelined steps; the others (and the implicit solvers and MGPBD)
 * step as chains of their own in the same submit. A batch is (re)built at the world's next step after a body of it
 * joined or left, carrying the state of the bodies already in it.
 *
 * Contact between bodies: with desc.contacts, every batch of the
 * position-based solvers runs self-collision over the surfaces of all its
 * bodies (docs/self-collision.md), so a contact between two bodies of one
 * batch is found by the same query and moves both sides in the same
 * iteration, by their inverse masses. Which bodies touch is each body's
 * collision_category and collision_mask (sinew_body_desc), as engines'
 * collision layers; a body's own pairs, its self_collision. Bodies of
 * different batches (a cloth of XPBD on a block of GPBD) see each other
 * through their chains' contact lists: each chain sees the chains
 * submitted before it as they end the step and those after as they start
 * it, so across batches the order of the chains matters.
 *
 * Origins: the step's ground and colliders are one set of numbers for all
 * the bodies, so a world's bodies share one origin (desc.origin,
 * sinew_body_desc): a body whose origin (its asset's plus desc.origin)
 * differs from the first body's is refused, naming both. To bring a body
 * placed elsewhere (an asset with another origin) into the world's frame,
 * give it desc.origin = world origin - asset origin and move its positions
 * by asset origin - world origin (sinew_body_write_positions, the sum in
 * double rounded once): its positions are then relative to the world's
 * origin, precise as far as the bodies lie near it (sinew-sim --add does
 * this).
 *
 * A body in a world is stepped only by its world: sinew_body_step and
 * sinew_body_record_step refuse it, and so do sinew_body_set_contact_bodies
 * and sinew_body_shift_origin. Reading and writing its state, pins,
 * materials, its state hash and its statistics (its batch's: a batch
 * reduces its statistics together) work as for a body alone; a checkpoint
 * of one body of a batch (saved or loaded) and cutting one are refused
 * (save and load the world's; cut a body alone).
 */
#ifndef SINEW_WORLD_H
#define SINEW_WORLD_H

#include "body.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_world sinew_world;

typedef struct sinew_world_desc {
    uint32_t cookie;  /* set by sinew_world_desc_default; checked by create */
    const char *name; /* in messages; copied (up to 63 bytes). NULL: "world" */
    /* Pack compatible bodies into batches (default 1); 0: every body steps
     * as a chain of its own, still in one submit (to compare the two). */
    int batch;
    /* Contact between bodies (default 0): within a batch by its
     * self-collision over all their surfaces (the first body's
     * self_thickness, self_friction and self_capacity), across batches by
     * contact lists; filtered by each body's collision_category and
     * collision_mask. A body collides with itself only with its
     * self_collision. */
    int contacts;
} sinew_world_desc;

/* What the world's last step cost and found, over all its bodies. */
typedef struct sinew_world_stats {
    uint64_t step_index;        /* steps taken */
    uint32_t body_count;
    uint32_t chain_count;       /* recorded steps submitted together: batches and bodies of their own */
    uint32_t dispatches;        /* per step as recorded, all chains */
    uint32_t barriers;
    uint64_t bytes;             /* designed device traffic per step */
    uint32_t submits;           /* of the last step: queue submits, host waits, bytes read back */
    uint32_t host_waits;
    uint64_t readback_bytes;
    uint64_t device_memory;     /* bytes held by all chains */
    uint32_t device_allocations;
    uint32_t bad_particles;     /* health check, summed over chains */
    uint32_t inverted_elements;
    int rolled_back;            /* some chain was rolled back */
    double ms_total;            /* GPU milliseconds, summed over chains (negative: not timed) */
} sinew_world_stats;

SINEW_API sinew_world_desc sinew_world_desc_default(void);

SINEW_API sinew_result sinew_world_create(sinew_context *ctx, const sinew_world_desc *desc, sinew_world **out);

/* Destroys the world and every body still in it (their handles become
 * invalid). A body destroyed before leaves the world. */
SINEW_API void sinew_world_destroy(sinew_world *world);

/* Advances every body one step: builds the batches that changed, writes
 * each chain's parameters, submits all chains at once and waits once.
 * Bodies share dt, substeps (each body's desc), gravity, the ground and
 * colliders of `params`. Returns SINEW_RESULT_ERROR_UNSTABLE when a chain's
 * health check failed (that chain rolled back as its desc.rollback says;
 * the others stepped), as sinew_body_step does. An empty world steps
 * nothing and returns OK. */
SINEW_API sinew_result sinew_world_step(sinew_world *world, const sinew_step_params *params);

SINEW_API sinew_world_stats sinew_world_get_stats(const sinew_world *world);

/* Bodies in the order they joined; the handle is the application's. */
SINEW_API uint32_t sinew_world_get_body_count(const sinew_world *world);
SINEW_API sinew_body *sinew_world_get_body(const sinew_world *world, uint32_t index);

/* A hash of every body's state in order (FNV-1a over each body's
 * sinew_body_state_hash). */
SINEW_API sinew_result sinew_world_state_hash(sinew_world *world, uint64_t *hash);

/* Checkpoints of the whole world: every chain's state, bit for bit
 * (docs/checkpoint-format.md). A world loads only its own kind of
 * checkpoint: the same bodies from the same assets, added in the same order
 * with the same descriptions. */
SINEW_API size_t sinew_world_checkpoint_size(sinew_world *world);
SINEW_API sinew_result sinew_world_save_checkpoint(sinew_world *world, void *dst, size_t size);
SINEW_API sinew_result sinew_world_load_checkpoint(sinew_world *world, const void *src, size_t size);
SINEW_API sinew_result sinew_world_save_checkpoint_file(sinew_world *world, const char *path);
SINEW_API sinew_result sinew_world_load_checkpoint_file(sinew_world *world, const char *path);

#ifdef __cplusplus
}
#endif

#endif
