/* What a sinew-sim run works on (sim) and what its steps measured (tally):
 * sinew-sim.c runs the steps, sim_scene.c builds and frees the scene,
 * sim_report.c reports. */
#ifndef SINEW_TOOLS_SIM_RUN_H
#define SINEW_TOOLS_SIM_RUN_H

#include <sinew/sinew.h>

#include <stdio.h>

#include "prep/intersect.h"
#include "sim.h"
#include "soft_scenes.h"
#ifdef SINEW_HAVE_PNG
#include "render.h"
#endif

/* What a run works on: the asset and its body on a context, the colliders,
 * the host copies the measures need, and the outputs. */
typedef struct sim {
    const char *name; /* in messages: the asset's path or the scene's name */
    /* The body's frame in the world (m): the asset's origin plus --origin.
     * Everything the device holds is relative to it; what the run writes
     * (meshes, JSON positions) is in the world. */
    double origin[3];
    sinew_asset *asset;
    sinew_asset_info ai;
    int soft;                  /* tetrahedra: volume measures rather than strain */
    uint32_t *pins, pin_count; /* bars: the end faces, moved every step */
    sinew_material *materials; /* an asset's materials as the options replace them; NULL: its own */
    sinew_context *ctx;
    sinew_device_info di;
    /* The collider list: its shapes as the next step starts them, and its
     * mesh colliders (each made once; the mesh shapes name them by index)
     * with their triangles for the pictures. */
    sinew_shape shapes[SIM_MAX_SHAPES];
    sinew_collider *meshes[SIM_MAX_MESHES];
    float *mesh_xyz[SIM_MAX_MESHES];
    uint32_t *mesh_tris[SIM_MAX_MESHES], mesh_tri_count[SIM_MAX_MESHES], mesh_vertex_count[SIM_MAX_MESHES];
    sinew_body *body;
    sinew_step_params p;
#ifdef SINEW_HAVE_PNG
    render *renderer;
    render_camera camera;
    int follow; /* the camera follows the frame (the cape scene without --camera) */
#endif
    FILE *log;
    uint64_t resume_step; /* --resume with --cut: the step its checkpoint was saved at */
    soft_measure measure;
    float *xyz, *rest, *pin_xyz;     /* positions read back, the rest shape, the pins' targets */
    uint32_t *attached, attached_count; /* --attach-edge: the particles on the frame */
    sinew_frame frame, frame0;       /* its pose now and at creation */
    const uint32_t *tris;            /* the surface drawn and written */
    uint32_t tri_count, *shown_tris; /* after a cut: the triangles that do not cross it */
    uint32_t *ends;                  /* cloth logs: each distance constraint's ends */
    double *rest_length;             /* and its rest-pose length */
    uint8_t *left_out;               /* the summary's stretch leaves it out: 1 at a pin, 2 cut (--cut-y) */
    /* --add, --scene crowd: the bodies beside the first (sim_world.c), all
     * of them in one world; NULL with one body, stepped alone as ever */
    sinew_world *world;
    struct sim_body *others;
    uint32_t other_count;
    /* The asset's render mesh (0 vertices: none): what the OBJ files hold */
    uint32_t render_count, render_index_count, *render_indices;
    float *render_out;
    void *kept;        /* the state kept for --retries (sinew-sim.c), NULL: none */
} sim;

/* A body beside the first: its asset, where --add moved it, its positions
 * read back and the triangles drawn and written. */
typedef struct sim_body {
    char name[1024];
    sinew_asset *asset;
    sinew_body *body;
    sinew_solver solver;
    double at[3];
    float *xyz;
    const uint32_t *tris;
    uint32_t n, tri_count, tet_count;
} sim_body;

/* What the steps measured, for the summary. */
/* A step the health check failed (or that ended a stretch of tetrahedra
 * inverted), and what --retries did: the run went back to the state after
 * step `back` and on at `to` substeps. */
typedef struct sim_retry {
    unsigned step, from, to; /* substeps */
    unsigned back;
} sim_retry;
#define SIM_MAX_RETRIES_KEPT 16
/* The health check's default bound on |V/V0 - 1| for a soft body from an
 * asset (--max-volume-error): a landing that recovers stays under it (the
 * CGAL camel's at 64 substeps peaks at 1.5); one that blows up passes it
 * within a step or two (20 at 8 substeps). */
#define SIM_ASSET_MAX_VOLUME_ERROR 2.0
/* And on the tetrahedra a step may leave inverted (--max-inverted): the
 * larger of these. The camel's landings that recover invert at most 7 of
 * its 10 734; those that blow up, hundreds. */
#define SIM_ASSET_MAX_INVERTED 16u
#define SIM_ASSET_MAX_INVERTED_SHARE 0.002

typedef struct tally {
    soft_shape start, last, worst;
    long worst_step, worst_inverted_step, recovered_step;
    uint32_t most_inverted;
    unsigned first;       /* steps taken before this run: a resumed checkpoint's */
    unsigned gpu_steps, steps_done, unstable_step;
    int interrupted;      /* the signal that ended the run before its last step (stop.h); 0: none */
    double gpu_ms, step_wall, worst_strain, worst_rms, fastest, wall;
    double newton_sum, linear_ms, linear_worst;
    double residual, worst_residual; /* the solver's residual: last step, largest (negative: not measured) */
    double error_estimate;           /* the last step's (sinew_step_stats.error_estimate; negative: not measured) */
    /* --check-residual on a body with no per-step estimate: its static
     * estimate after the last step (sinew_body_estimate_error; negative: not
     * measured), and whether its solve converged */
    sinew_static_error static_error;
    uint64_t linear_sum;
    uint32_t linear_unconverged;
    uint64_t self_candidates, self_contacts, self_dropped; /* self-collision, summed over the steps */
    uint32_t health_inverted;     /* the health check's most inverted tetrahedra in a step */
    double health_volume_error;   /* and its largest |V/V0 - 1| */
    char mesh[4096], picture[4096]; /* the final mesh and picture written */
    sinew_intersect_report crossings; /* --intersections, after the last step */
    /* --check-outside: particles deeper than its D inside a collider of the
     * list after the last step, and the least signed distance (m) of any
     * particle from any of them, its particle and shape */
    uint32_t inside, nearest_particle, nearest_shape;
    float nearest;
    uint64_t between;                 /* and with --intersections, its triangles crossing the first's */
    /* --flag, after the last step: the middle of its fly end (the rest
     * pose's edge opposite the pole) from the middle of its hoist, along the
     * horizontal wind (m; NaN: no horizontal wind) and downwards */
    double fly_downwind, fly_drop;
    sim_retry retries[SIM_MAX_RETRIES_KEPT]; /* the first retries (--retries) */
    unsigned retry_count;
} tally;

/* A block has recovered its rest shape: nothing inverted, Green strain under 1 %. */
static inline int shape_recovered(const soft_shape *s) { return s->finite && s->inverted == 0 && s->max_green < 0.01; }

/* Element updates per step, to turn the step's Newton iterations into a mean. */
static inline double element_updates(const options *o, const sim *s)
{
    return (double)s->ai.element_count * o->substeps * o->iterations;
}

/* The scene (sim_scene.c): the asset, the context, the body and the outputs;
 * 0, having said why, on a failure. */
int sim_build(options *o, sim *s);
/* Everything sim_build made; 0 when the log could not be written. */
int sim_free(const options *o, sim *s);
/* The cut before a step: the constraints across --cut-y, and the triangles
 * across it shown no more. */
int sim_cut(const options *o, sim *s);

/* The summary, the checks and the JSON (sim_report.c); the exit status. */
int sim_report(const options *o, const sim *s, const tally *t);

/* Several bodies (sim_world.c). */
/* The world the first body joins, when the options give more than one body
 * (else s->world stays NULL); 0, having said why. */
int sim_world_create(const options *o, sim *s);
/* The crowd scene's first body (a block), to load_scene. */
sinew_result sim_crowd_first(const options *o, sinew_asset **out);
/* The bodies beside the first, with the first's description otherwise. */
int sim_world_add(const options *o, sim *s, const sinew_body_desc *first);
/* The solver of a body of this asset where none is given: GPBD
 * Gauss-Seidel for every body of a world with contacts (one batch, so that
 * cloths and soft bodies touch), else GPBD Gauss-Seidel for elements and
 * XPBD Gauss-Seidel for cloth. */
sinew_solver sim_default_solver(const options *o, const sinew_asset_info *ai);
/* The world and the bodies beside the first (the first's handle too). */
void sim_world_free(sim *s);
/* One step of every body: the world's, or the body's alone. */
sinew_result sim_step(sim *s);
/* The checkpoint of the world (several bodies) or of the body. */
sinew_result sim_save_checkpoint(const sim *s, const char *path);
sinew_result sim_load_checkpoint(const sim *s, const char *path);
/* final-K.obj of each body beside the first. */
int sim_world_write_meshes(const options *o, const sim *s);
/* sinew-sim.c: an OBJ of n positions and t triangles; 0, having said why,
 * when it cannot be written. */
/* Positions in the body's frame, written in the world: each plus origin,
 * in double; with an origin other than 0 with 17 digits (10 km and 0.1 mm
 * need 10), else %.9g as ever. */
int sim_write_obj(const char *path, const float *xyz, uint32_t n, const uint32_t *tris, uint32_t t,
                  const double origin[3]);
/* The summary's lines of the world and its bodies; --hash's lines. */
void sim_world_summary(const options *o, const sim *s, uint64_t steps);
int sim_world_hashes(const sim *s);
/* The JSON's world totals and bodies array (sep ends the last line). */
#ifdef SINEW_HAVE_CJSON
struct cJSON;
/* The world and its bodies into --json's object j (nothing without a world). */
void sim_world_json(struct cJSON *j, const options *o, const sim *s);
#endif
/* Pairs of triangles of different bodies that intersect (--intersections). */
int sim_world_crossings(const sim *s, uint64_t *out);

#endif
