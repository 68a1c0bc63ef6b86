/* The step as a list of stages (stages.c), after Box2D v3's b2SolverStage
 * list: one table names every stage of a body's step, when it runs and the
 * function recording it; sinew_body_record_stages walks it. A feature (the
 * collider list, wind, the render mapping...) lives in its own file and
 * adds one row. */
#ifndef SINEW_STAGES_H
#define SINEW_STAGES_H

#include "solvers/solver.h"

struct sinew_body;

/* When a stage runs. The walk records, per substep, the lead-in, the
 * substep and the velocities in this order; fused, a substep's velocities
 * run in the pass of the next substep's lead-in (stages.c). */
typedef enum sinew_stage_when {
    SINEW_STAGE_STEP_START, /* once, before the first substep */
    SINEW_STAGE_LEAD_IN,    /* each substep, up to its prediction */
    SINEW_STAGE_SUBSTEP,    /* each substep, after its prediction */
    SINEW_STAGE_VELOCITIES, /* each substep whose velocities no prediction carries */
    SINEW_STAGE_STEP_END,   /* once, after the last substep */
} sinew_stage_when;

/* Which recordings a stage is in: both, or only the fused (the default
 * one) or only the unfused (sinew_body_record_unfused: each stage a
 * dispatch of its own). */
typedef enum sinew_stage_fusion {
    SINEW_STAGE_ALWAYS,
    SINEW_STAGE_FUSED,
    SINEW_STAGE_UNFUSED,
} sinew_stage_fusion;

/* Where the walk stands, as the stages see it. */
typedef struct sinew_stage_at {
    uint32_t substep, substeps;
    int fused;                 /* !b->unfused */
    int carried;               /* this lead-in's prediction runs the velocities of the substep
                                  before (fused, not the first substep) */
    int checked;               /* the last velocities ran the health check */
    GpuRange predict;          /* the prediction's range; fused, with what the solver clears */
    uint32_t predict_threads;  /* particles or cleared values, the more */
    uint64_t clear_bytes;      /* what the clearing moves, in the prediction's pass */
} sinew_stage_at;

typedef void (*sinew_stage_record)(struct sinew_body *b, sinew_recorder *r, sinew_stage_at *at);

typedef struct sinew_stage {
    const char *name;
    sinew_stage_when when;
    sinew_stage_fusion fusion;
    sinew_stage_record record; /* records nothing where its feature is off */
} sinew_stage;

/* The table, in recording order within each `when`. */
extern const sinew_stage sinew_stages[];
extern const uint32_t sinew_stage_count;

/* The features, each in its own file: what it plans and uploads when a
 * body is made (body.c, body_upload.c call these) and its stage. */

/* shapes.c: the collider list. SHAPES' layout (b->shapes_*) and its vec4s
 * in all, the wind's included; the mesh colliders' fields; the poses at
 * each substep's end. */
uint64_t sinew_shapes_plan(struct sinew_body *b);
sinew_result sinew_shapes_upload(struct sinew_body *b);
void sinew_shapes_record(struct sinew_body *b, sinew_recorder *r, sinew_stage_at *at);

/* wind.c: refused for solvers with their own substep; b->wind; its vec4s
 * at the end of SHAPES; the velocity changes before each prediction. */
sinew_result sinew_wind_check(sinew_context *ctx, const sinew_body_desc *desc, const sinew_solver_ops *ops);
void sinew_wind_plan(struct sinew_body *b, const sinew_asset *asset);
uint64_t sinew_wind_vec4s(const struct sinew_body *b);
void sinew_wind_record(struct sinew_body *b, sinew_recorder *r, sinew_stage_at *at);

/* render_map.c: the render mesh's counts and b->normals (fails when its
 * normals need triangles the asset lacks); RENDER filled; the normals and
 * the render vertices at the step's end. */
sinew_result sinew_render_map_plan(struct sinew_body *b, const sinew_asset *asset);
sinew_result sinew_render_map_upload(struct sinew_body *b, const sinew_asset *a);
void sinew_normals_record(struct sinew_body *b, sinew_recorder *r, sinew_stage_at *at);
void sinew_render_map_record(struct sinew_body *b, sinew_recorder *r, sinew_stage_at *at);

#endif
