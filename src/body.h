/* The body's calls across its files: what body.c, the step's files, the
 * features' files and checkpoint.c offer each other (the body itself and
 * the helpers every file uses on it: body_struct.h). */
#ifndef SINEW_BODY_INTERNAL_H
#define SINEW_BODY_INTERNAL_H

#include "body_struct.h"

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
/* A body's statistics before its first step: what is measured, negative
 * (not measured yet). */
void sinew_body_unmeasured(sinew_step_stats *s);

/* Workgroups of the body's residual kernel (shaders/residual.comp): one
 * thread per distance, element or particle, whichever are most. PARTIAL
 * holds that many strain partials, then as many of the error estimate's. */
static inline uint64_t sinew_residual_groups(uint64_t distances, uint64_t elements, uint64_t particles)
{
    uint64_t items = distances > elements ? distances : elements;
    items = items > particles ? items : particles;
    return (items + SINEW_WORKGROUP_SIZE - 1) / SINEW_WORKGROUP_SIZE;
}

#endif
