/* The world (include/sinew/world.h): the bodies it holds, the chains it
 * submits, and the batches that pack bodies of one family into one body. */
#ifndef SINEW_WORLD_INTERNAL_H
#define SINEW_WORLD_INTERNAL_H

#include <sinew/world.h>

#include "asset/merge.h"
#include "body.h"

/* A batch: one internal body (its asset the members' assets merged, its
 * desc the first member's) holding every member's records. */
typedef struct sinew_batch {
    sinew_body *body;       /* NULL until built */
    sinew_body **members;   /* in the order they joined */
    uint32_t member_count;
} sinew_batch;

struct sinew_world {
    sinew_context *ctx;
    sinew_world_desc desc;
    char name[64];
    sinew_body **bodies;    /* the application's handles, in the order they joined */
    uint32_t body_count, body_capacity;
    sinew_batch *batches;
    uint32_t batch_count;
    int dirty;              /* a body joined or left since the batches were built */
    int building;           /* sinew_world_build is at work */
    sinew_body **chains;    /* what a step submits: the batches' bodies, then the bodies of their own */
    VkCommandBuffer *cmds;  /* their command buffers */
    uint32_t chain_count;
    VkFence fence;          /* the world's step */
    sinew_world_stats stats;
    uint32_t recorded;      /* a step was recorded into an application's command buffer */
};

/* A body joins a world (sinew_body_create with desc.world): checked as
 * sinew_body_create checks, then made at once (a body of its own) or kept
 * with its asset until its batch is built. */
sinew_result sinew_world_add_body(sinew_world *w, sinew_context *ctx, const sinew_asset *asset,
                                  const sinew_body_desc *desc, sinew_body **out);
/* A body leaves its world (sinew_body_destroy): its batch is built again
 * without it at the next step. */
void sinew_world_remove_body(sinew_world *w, sinew_body *b);
/* Builds the batches that changed (carrying the state of the bodies already
 * in one). OK, or why a batch could not be built (nothing then changed). */
sinew_result sinew_world_build(sinew_world *w);

#endif
