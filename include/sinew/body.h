/* sinew/body.h: a simulated body (cloth) made from an asset on a context.
 *
 * A body owns its device buffers and a command buffer holding one frame's step,
 * recorded once and replayed; per-frame values (time step, gravity, colliders)
 * travel in a small parameter buffer, so changing them costs no re-recording.
 * The step (docs/step.md) follows docs/math.md sections 1-2:
 *
 *     for each substep:  predict -> iterations x (constraint sweeps, contacts) -> velocities
 *
 * Units: metres, seconds, kilograms. Compliance is inverse stiffness (m/N for
 * distance constraints, 1/(N m) for bending); 0 = infinitely stiff.
 */
#ifndef SINEW_BODY_H
#define SINEW_BODY_H

#include "asset.h"
#include "collider.h"
#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_body sinew_body;
typedef struct sinew_world sinew_world; /* sinew/world.h */

typedef enum sinew_solver {
    SINEW_SOLVER_XPBD_GAUSS_SEIDEL = 0, /* colour by colour (or pass by pass: sweep_layout) */
    SINEW_SOLVER_XPBD_JACOBI = 1,       /* all constraints at once, gathered per particle */
    /* Each iteration sweeps the colours forward, then back (the last colour
     * once): about twice the dispatches of GAUSS_SEIDEL, an iteration matrix
     * similar to a symmetric one (docs/step.md). */
    SINEW_SOLVER_XPBD_SYMMETRIC_GAUSS_SEIDEL = 2,
    /* Generalized PBD (docs/gpbd.md): each finite element of the asset is
     * updated by a Newton solve in its strain space, one element colour per
     * dispatch; then the XPBD constraints (bending, distances) as in
     * XPBD_GAUSS_SEIDEL, then contacts. */
    SINEW_SOLVER_GPBD_GAUSS_SEIDEL = 3,
    /* The same with every element and constraint at once, corrections
     * averaged per particle and scaled by jacobi_omega: no colouring used. */
    SINEW_SOLVER_GPBD_JACOBI = 4,
    /* Hierarchical PBD (Müller 2008; docs/hpbd.md), for assets built with a
     * hierarchy (sinew-prep --hierarchy): each substep sweeps the coarse
     * levels' unilateral distance constraints coarsest first, passing each
     * level's corrections down to the next finer one, then runs `iterations`
     * ordinary sweeps on level 0, every second one in reverse colour order
     * (desc.sweep_order). Stiff cloth in a few iterations. */
    SINEW_SOLVER_HPBD = 5,
    /* Projective dynamics of a mass-spring network (Pall et al.; docs/pd.md):
     * each substep a Verlet prediction, then `iterations` times a local step
     * per spring and a global step per particle, then contacts. The global
     * step of PD_RED_BLACK is one Gauss-Seidel sweep in two dispatches, the
     * red particles then the black ones, for assets with a red-black
     * partition (sinew-prep --red-black: a quad network without diagonals).
     * PD_JACOBI updates every particle from the previous iterate;
     * PD_CHEBYSHEV accelerates that with Wang's (2015) Chebyshev weights
     * (desc.chebyshev_rho, chebyshev_delay). Distance constraints are
     * springs of stiffness 1/compliance (N/m), so their compliances must be
     * > 0; assets with bending hinges or finite elements are refused. */
    SINEW_SOLVER_PD_RED_BLACK = 6,
    SINEW_SOLVER_PD_JACOBI = 7,
    SINEW_SOLVER_PD_CHEBYSHEV = 8,
    /* Implicit cloth (Jeon et al. 2013; docs/implicit.md), for assets with
     * multigrid levels (sinew-prep --subdivide): each substep one backward
     * Euler step of Baraff-Witkin stretch and shear and hinge bending
     * (desc.implicit: material, constraints, solve), its linear system
     * solved to desc.implicit.tolerance. Pinned particles are held to their
     * anchors (where sinew_body_move_pinned puts them) by point constraints,
     * contacts with the ground, sphere and box by sliding constraints, both
     * soft: a constrained particle deviates from its target by about its
     * force over the stiffness. IMPLICIT_MG solves by V-cycles of the
     * constrainable multigrid, IMPLICIT_PCG (the baseline of the paper) by
     * Baraff and Witkin's modified PCG, block-Jacobi preconditioned, with
     * the constrained directions filtered out (constraints hard). Both are
     * recorded into the step whole, up to their budgets (max_cycles,
     * max_pcg_iterations, fallback_iterations), and the device decides after each V-cycle or 10
     * PCG iterations whether to go on: a step is one submit, and the work
     * after a solve has converged is skipped (by the device where it has
     * conditional rendering; elsewhere each skipped dispatch still costs its
     * launch). The compliances, iterations and the GPBD, HPBD and PD fields
     * are not used, nor are the step's damping and friction
     * (desc.implicit.damping and friction_stiffness instead). Neither can be
     * cut. IMPLICIT_PCG also takes a solid: an asset of neo-Hookean or
     * stable neo-Hookean tetrahedra (no multigrid levels), each substep a
     * Newton step of backward Euler with each tetrahedron's Hessian made
     * positive semi-definite; its masses and materials are the asset's (or
     * desc.materials), desc.implicit's stretch, shear, bend and density
     * unused. At rest it rests on the static equilibrium whatever
     * max_pcg_iterations (docs/implicit.md, "Solids"). */
    SINEW_SOLVER_IMPLICIT_MG = 9,
    SINEW_SOLVER_IMPLICIT_PCG = 10,
    /* MGPBD (Li et al. 2025; docs/mgpbd.md): global XPBD. Each substep, after
     * the prediction, `iterations` outer iterations each linearise every
     * distance constraint and every tetrahedron (as-rigid-as-possible,
     * C = |F - R|, shear modulus from its material) at once and solve the
     * dual system (G M^-1 G^T + alpha~) dlambda = -C - alpha~ lambda by CG
     * (mgpbd_cg_iterations, to 1e-3) preconditioned with one V-cycle of an
     * aggregation hierarchy, then take the step with a backtracking line
     * search on the dual residual; contacts after the solve. Every decision
     * inside a step is taken on the device: a step is one submit. The
     * hierarchy is set up on the host at creation (from the rest shape
     * uniformly dilated by 1 %, where every constraint has a gradient) and
     * again every mgpbd_setup_interval steps from the body's state, by a
     * submit, a read-back of the operator and a re-recording before the
     * step; between setups the coarse operators are recomputed on the
     * device each outer iteration. Distance compliances below 1e-9 m/N
     * (inextensible included) are taken as 1e-9, since the dual system
     * must stay positive definite. A checkpoint carries the lazy setup
     * (the positions the hierarchy was set up from, each level's rho and
     * power vector): loading one sets the same hierarchy up again, so a
     * resumed body steps bit for bit as one that never stopped, wherever
     * between two setups it was saved. Assets with bending hinges or
     * elements other than tetrahedra are refused; it cannot be cut. */
    SINEW_SOLVER_MGPBD = 11,
} sinew_solver;

/* A solver's name as every tool spells it ("xpbd-gs", "hpbd", "implicit-mg",
 * ...; docs/api.md lists them), or NULL for a value that names no solver.
 * The solvers are numbered from 0 without gaps, so
 * `for (int s = 0; sinew_solver_name(s); s++)` visits each. The string is
 * static. */
SINEW_API const char *sinew_solver_name(sinew_solver solver);
/* What it is in a few words ("XPBD, Gauss-Seidel by colour"), for summaries;
 * NULL as above. */
SINEW_API const char *sinew_solver_label(sinew_solver solver);
/* The solver of that name: SINEW_RESULT_OK, or SINEW_RESULT_ERROR_INVALID_ARGUMENT
 * (nothing written) for NULL or a name no solver has. */
SINEW_API sinew_result sinew_solver_from_name(const char *name, sinew_solver *out);

/* The implicit solvers' material and solve (the defaults: a light cotton
 * cloth, the paper's 5 pre- and 10 post-smoothing steps and 1e-4). */
typedef struct sinew_implicit_desc {
    float stretch;            /* N/m, Baraff-Witkin stretch stiffness */
    float shear;              /* N/m */
    float bend;               /* N m, hinge bending stiffness */
    float damping;            /* s, Rayleigh damping proportional to stiffness (a solid's
                                 without its elements' rotations: it damps vibration,
                                 not tumbling) */
    float density;            /* kg/m^2 */
    float pin_stiffness;      /* N/m, point constraints of pinned particles */
    float contact_stiffness;  /* N/m, sliding constraints along a contact's normal */
    float friction_stiffness; /* N/m, across it: holds a contact to its collider's
                                 motion; 0 slides freely */
    uint32_t pre_smooth;      /* V-cycle: block-Jacobi PCG iterations on the way down */
    uint32_t post_smooth;     /* coloured block Gauss-Seidel sweeps on the way up */
    uint32_t coarse_iterations; /* block-Jacobi PCG on the coarsest level */
    float tolerance;          /* each substep's solve stops at |b - A x| <= tolerance |b| */
    uint32_t max_cycles;      /* IMPLICIT_MG: V-cycles per substep at most, all recorded
                                 into the step (default 20) */
    uint32_t max_pcg_iterations; /* IMPLICIT_PCG: iterations per substep at most,
                                    recorded likewise (default 1000) */
    uint32_t fallback_iterations; /* IMPLICIT_MG: block-Jacobi PCG iterations at most when
                                     the V-cycles diverge (linear_fallback_iterations),
                                     recorded likewise (default 200; 0: no fallback) */
    /* The integrator. 1: the second-order backward difference formula (the
     * paper's): each substep after the first a backward Euler step of 2h/3
     * from (4 x - x_prev) / 3, (4 v - v_prev) / 3, which damps motion far
     * less; the first substep after creation, sinew_body_write_positions or
     * a rollback is backward Euler. 0: backward Euler, whose numerical
     * damping takes a tumbling solid's rotation (a 0.4 m block at 3.7 rad/s
     * keeps 84 % of its angular momentum after 1 s at dt 1/60 s, BDF2
     * 99.5 %). SINEW_IMPLICIT_BDF2_AUTO (the default): BDF2 for a solid,
     * backward Euler for a cloth (docs/implicit.md, "Integrators"). */
    int bdf2;
} sinew_implicit_desc;

/* sinew_implicit_desc.bdf2's default: BDF2 for solids, backward Euler for
 * cloth. */
#define SINEW_IMPLICIT_BDF2_AUTO (-1)

/* Order of the colours in the Gauss-Seidel iterations of XPBD_GAUSS_SEIDEL,
 * GPBD_GAUSS_SEIDEL's constraints and HPBD's level 0. */
typedef enum sinew_sweep_order {
    SINEW_SWEEP_DEFAULT = 0,     /* FORWARD, except ALTERNATING for HPBD (the paper's) */
    SINEW_SWEEP_FORWARD = 1,     /* every iteration colour 0, 1, ... */
    SINEW_SWEEP_ALTERNATING = 2, /* odd iterations backwards: two make a symmetric pair */
} sinew_sweep_order;

/* How a Gauss-Seidel sweep is dispatched (docs/colouring.md). The order of the
 * projections differs between the two, the sweep is Gauss-Seidel in both. */
typedef enum sinew_sweep_layout {
    SINEW_SWEEP_LAYOUT_DEFAULT = 0,  /* CLUSTERS where the asset has them and the device is not a CPU;
                                        COLOURS on a CPU (lavapipe), where a dispatch costs little and a
                                        workgroup barrier much */
    SINEW_SWEEP_LAYOUT_COLOURS = 1,  /* a dispatch and a barrier per colour */
    SINEW_SWEEP_LAYOUT_CLUSTERS = 2, /* a dispatch and a barrier per pass of the asset's clusters (sinew-prep
                                        --clusters); refused for an asset without them */
} sinew_sweep_layout;

/* A rigid frame particles may follow (docs/attachments.md): a position
 * (m, relative to the body's origin) and a rotation, a unit quaternion
 * x y z w (normalised by the library; length 0 is refused). */
typedef struct sinew_frame {
    float position[3];
    float rotation[4];
} sinew_frame;

/* Particles bound to a frame. Each particle's offset in its frame is taken
 * at creation from its position in the asset and the frame's pose in
 * desc.frames. compliance 0 holds the particles exactly at their targets
 * (they become kinematic, inverse mass 0: moving pins); > 0 (m/N) pulls
 * them there by an XPBD point constraint, projected each iteration before
 * the contacts (position-based solvers only). The list is borrowed for the
 * call to sinew_body_create. */
typedef struct sinew_attachment {
    const uint32_t *particles;
    uint32_t count;
    uint32_t frame;        /* index into desc.frames */
    float compliance;      /* m/N, >= 0; 0 = held exactly */
} sinew_attachment;

typedef struct sinew_body_desc {
    uint32_t cookie;            /* set by sinew_body_desc_default; checked by create */
    sinew_solver solver;
    uint32_t substeps;          /* per step, >= 1 */
    uint32_t iterations;        /* per substep, >= 1 */
    float stretch_compliance;   /* m/N, 0 = inextensible */
    float shear_compliance;     /* m/N */
    float bend_compliance;      /* 1/(N m), 0 = rigid hinge */
    float jacobi_omega;         /* over-relaxation of the Jacobi average, 1..2 */
    int residual;               /* measure the strain and the solver's residual after each step
                                   (three small dispatches at the step's end; two for the
                                   implicit solvers) */
    int timestamps;             /* time the phases of each step with GPU timestamps */
    /* Names the body in messages; copied at creation (up to 63 bytes). NULL: "body". */
    const char *name;
    /* Health check after every step (one dispatch): a particle whose position,
     * inverse mass or velocity is not finite, or whose speed exceeds max_speed,
     * fails the step with SINEW_RESULT_ERROR_UNSTABLE and a message (log id
     * "health") naming the body and the particles. The same dispatch looks at
     * the tetrahedra of a body that has them (sinew_step_stats:
     * inverted_elements, first_inverted, max_volume_error) and fails the step
     * the same way when more than max_inverted are inverted or the largest
     * |V / V0 - 1| exceeds max_volume_error. */
    int health_check;
    float max_speed;            /* m/s, > 0 */
    /* Tetrahedra with det F <= 0 (signed volume <= 0 against their rest
     * orientation) a step may leave; UINT32_MAX (the default): no bound, the
     * count is only reported, since a soft body may pass through inversion
     * and recover (the GPBD solvers recover blocks started mirrored or
     * flattened); 0: any inverted tetrahedron fails the step. */
    uint32_t max_inverted;
    /* Largest relative volume change |V / V0 - 1| of a tetrahedron a step may
     * leave (a fraction: 0.5 allows from half to one and a half times the
     * rest volume; an inverted one counts > 1), >= 0; INFINITY (the default):
     * no bound, only reported. NaN or < 0 is refused at creation. */
    float max_volume_error;
    /* Keep a device copy of the state at the start of each step (a copy of
     * 32 bytes per particle) and return to it when the health check fails,
     * so a failed step leaves the body as it was before it. */
    int rollback;
    /* sinew_body_step submits the step and returns without waiting for it:
     * the GPU runs it while the application does its frame's other work.
     * The step is finished (waited for only if still running, its statistics
     * and health check taken) by the next sinew_body_step, by
     * sinew_body_wait, or by any call that reads or changes the body's state;
     * a failed health check is returned by the next sinew_body_step or
     * sinew_body_wait, with the body rolled back as desc.rollback says, and
     * that call submits nothing. sinew_body_get_stats gives the last
     * finished step's statistics. 0: each step waits for itself. */
    int pipelined;
    /* GPBD: at most this many Newton iterations per element update (the
     * solve exits early once |gradient| <= newton_tolerance times its value
     * at the start of the update). */
    uint32_t newton_iterations;
    float newton_tolerance;
    /* Materials replacing the asset's table (same count, element regions
     * unchanged); NULL: the asset's. Copied at creation. */
    const sinew_material *materials;
    uint32_t material_count;
    /* HPBD: sweeps over each coarse level's constraints per substep (1..100). */
    uint32_t level_iterations;
    sinew_sweep_order sweep_order;
    /* The Gauss-Seidel solvers (XPBD, GPBD's constraints, HPBD's finest level). */
    sinew_sweep_layout sweep_layout;
    /* PD_CHEBYSHEV: estimated spectral radius of the Jacobi iteration, in
     * (0, 1), and the plain Jacobi iterations of each substep before the
     * acceleration starts. */
    float chebyshev_rho;
    uint32_t chebyshev_delay;
    /* Compute unit vertex normals of the asset's surface triangles after every
     * step (one dispatch), for renderers: sinew_body_read_normals, or the
     * device buffer of sinew/vulkan.h. Ignored for an asset without triangles. */
    int normals;
    /* IMPLICIT_MG and IMPLICIT_PCG. */
    sinew_implicit_desc implicit;
    /* MGPBD: CG iterations per outer iteration (1..1000; it stops early at
     * 1e-3 of the right-hand side), and the steps between the hierarchy's
     * host setups (>= 1; the paper's 20). */
    uint32_t mgpbd_cg_iterations;
    uint32_t mgpbd_setup_interval;
    /* A triangle-mesh collider made on the same context (sinew/collider.h),
     * or NULL. The body keeps it alive; step params place it. */
    sinew_collider *collider;
    /* Self-collision of the asset's surface triangles (docs/self-collision.md):
     * each vertex against the triangles and each edge against the edges that
     * share no particle with it, kept self_thickness apart (m, the distance
     * between the two mid-surfaces), with Coulomb friction self_friction. A
     * pair face to face when a substep begins keeps the side it was on then.
     * Candidates come from a spatial hash rebuilt on the device each
     * substep over its predicted motion; each vertex, triangle and edge
     * keeps at most self_capacity (1..32) of them, the nearest first: what
     * did not fit is counted (sinew_step_stats.self_dropped) and logged
     * once, never silently lost. The position-based solvers only (XPBD,
     * GPBD, HPBD); the others refuse it. Defaults: off, 5 mm, 0.3, 16. The
     * thickness should be below the mesh's edge lengths; pairs nearer than
     * it at rest never collide. */
    int self_collision;
    float self_thickness;
    float self_friction;
    uint32_t self_capacity;
    /* Where the body's frame sits in the world (m): every position the body
     * takes or gives (the asset's, sinew_body_write_positions,
     * _read_positions, _move_pinned, the step parameters' ground and
     * colliders) is relative to it, and the device holds only those small
     * numbers, so a body 10 km from the world's origin is as precise as one
     * at it (a float resolves about 1 mm at 10 km). An engine keeps a body's
     * origin near the body (sinew_body_shift_origin as it travels) and draws
     * it translated by the origin. An asset carries an origin of its own
     * (sinew_asset_get_origin; sinew-prep --translate): the body's origin
     * is the asset's plus this, summed in double, so desc.origin moves a
     * body away from where its asset was placed (0: just there) and
     * sinew_body_get_origin gives the sum. Default (0, 0, 0). */
    double origin[3];
    /* Render mesh (docs/render-mesh.md): for an asset with one
     * (sinew_asset_get_render_info), write the artist's vertices (position,
     * normal, UV; 32 bytes each) into a device buffer at the end of every
     * step (one dispatch), for an engine to draw with the asset's index
     * buffer: sinew_body_read_render_vertices, or the buffers of
     * sinew/vulkan.h. A cloth's render normals come from its particle
     * normals, computed then whatever desc.normals says. Ignored for an
     * asset without a render mesh. Default 1. */
    int render_mesh;
    /* The collider list (docs/colliders.md): at most this many shapes a
     * step (sinew_step_params.shapes), 0..256; default 0: no list, and no
     * cost. With max_shapes > 0 each step copies max_shapes records of 128
     * bytes to the device and each substep runs one small dispatch (and a
     * barrier) placing them. */
    uint32_t max_shapes;
    /* Mesh colliders (sinew/collider.h, made on the same context) that
     * shapes of kind SINEW_SHAPE_MESH name by index; their fields are
     * copied into the body's device memory at creation (the colliders are
     * borrowed for the call). NULL / 0: none. */
    sinew_collider *const *meshes;
    uint32_t mesh_count;
    /* Wind (docs/wind.md): drag and lift coefficients of the surface
     * triangles (dimensionless, >= 0; default 0 and 0: no wind, no cost).
     * Either > 0 on a body with triangles: each substep one dispatch adds
     * the aerodynamic force of the air (sinew_step_params.wind,
     * air_density) to the velocities before the prediction. The implicit
     * solvers refuse it. */
    float drag;
    float lift;
    /* Attachments to moving frames (docs/attachments.md): `attachments`
     * binds particles to `frames` (their poses at creation); each step's
     * parameters may move the frames (sinew_step_params.frames), and the
     * attached particles follow them across the substeps. No particle in
     * two attachments. The implicit solvers take none; PD and MGPBD take
     * held ones (compliance 0) only. frame_names (optional, frame_count
     * strings) name the frames in messages. All borrowed for the call. */
    const sinew_attachment *attachments;
    uint32_t attachment_count;
    const sinew_frame *frames;
    uint32_t frame_count;
    const char *const *frame_names;
    /* Long-range tethers (Kim, Chentanez and Müller 2012): every free
     * particle stays within tether_scale (1..100, default 1) times its
     * rest geodesic distance (over the distance constraints) of its
     * nearest anchor (a particle pinned or held when the body is made),
     * a unilateral constraint projected each iteration before the contacts.
     * Compliantly attached particles get none. Position-based solvers
     * only. Default 0: none. */
    int tethers;
    float tether_scale;
    /* Which bodies of a world touch (sinew/world.h, sinew_world_desc.contacts),
     * as engines' collision layers: the categories this body is in (bits) and
     * the categories it collides with (mask). Two bodies touch when each
     * one's categories meet the other's mask. Defaults 1 and all bits: every
     * body touches every other. A body's own pairs: self_collision. */
    uint32_t collision_category;
    uint32_t collision_mask;
    /* The world the body joins (sinew/world.h), made on the same context:
     * the world steps it, with the others, in one submit. NULL (the
     * default): a world of its own, stepped by sinew_body_step. */
    sinew_world *world;
} sinew_body_desc;

SINEW_API sinew_body_desc sinew_body_desc_default(void);

/* Per-step inputs; may change every step at no cost. */
typedef struct sinew_step_params {
    float dt;                   /* s, whole step (divided among substeps) */
    float gravity[3];           /* m/s^2 */
    float damping;              /* 1/s, velocity decay rate */
    int ground;                 /* collide with the plane y = ground_height (ground_normal below: any plane) */
    float ground_height;        /* m */
    int sphere;                 /* collide with a sphere */
    float sphere_center[3];     /* m */
    float sphere_radius;        /* m */
    /* An axis-aligned box; it stays at box_center for this step and moves at
     * box_velocity (which friction takes into account: what rests on a
     * moving box is carried along). Move it by changing box_center from step
     * to step, by less than its half extents each time. */
    int box;
    float box_center[3];        /* m */
    float box_half_extents[3];  /* m, >= 0 */
    float box_velocity[3];      /* m/s */
    /* A capsule: the points within capsule_radius of the segment from
     * capsule_a to capsule_b (a cylinder with round ends; a == b: a sphere),
     * still this step. */
    int capsule;
    float capsule_a[3], capsule_b[3]; /* m */
    float capsule_radius;       /* m, >= 0 */
    /* The body's mesh collider (desc.collider), rotated by the unit
     * quaternion collider_rotation (x, y, z, w; normalised here) and then
     * moved by collider_position, still this step, moving at
     * collider_velocity (for friction, as the box's). */
    int collider;
    float collider_position[3]; /* m */
    float collider_rotation[4]; /* default (0, 0, 0, 1) */
    float collider_velocity[3]; /* m/s */
    float friction;             /* Coulomb coefficient on contacts, >= 0 */
    float contact_offset;       /* m, particles keep this distance from colliders */
    /* The collider list (docs/colliders.md): shape_count (<= desc.max_shapes)
     * shapes, borrowed for the call; NULL / 0: none. Copied to the device
     * through the step's parameters: changing them costs no re-recording,
     * no readback, no allocation. */
    const struct sinew_shape *shapes;
    uint32_t shape_count;
    /* The ground plane is {x : dot(ground_normal, x) = ground_height}:
     * ground_normal need not be unit (normalised here) but not zero.
     * Default (0, 1, 0). */
    float ground_normal[3];
    /* Wind (docs/wind.md, for bodies with desc.drag or desc.lift > 0): the
     * air's velocity this step (m/s, uniform) and density (kg/m^3, >= 0;
     * default 1.2, air at sea level; 0 turns the force off). */
    float wind[3];
    float air_density;
    /* Attachments: the body's frames at the end of this step (frame_count
     * poses, as many as desc.frame_count; 0: they stay as last set). Each
     * frame moves from its last pose to this one across the substeps
     * (position linearly, rotation by nlerp). Copied at the call. */
    const sinew_frame *frames;
    uint32_t frame_count;
} sinew_step_params;

/* Kinds of shape of the collider list. */
typedef enum sinew_shape_kind {
    SINEW_SHAPE_SPHERE = 0,  /* radius about position */
    SINEW_SHAPE_CAPSULE = 1, /* radius about the segment along the local y axis,
                                half_extents[1] either side of position */
    SINEW_SHAPE_BOX = 2,     /* half_extents along the local axes */
    SINEW_SHAPE_MESH = 3,    /* desc.meshes[mesh], its own frame placed at position, rotation */
} sinew_shape_kind;

/* A collider of the list. Its pose is the one at the start of the step; the
 * step moves it on at velocity and turns it at angular_velocity (about
 * position, world axes), each substep's contacts meeting it where it is at
 * that substep's end, so a shape moving faster than the cloth's thickness a
 * step does not pass through it. Contacts hold what rests on it to its
 * surface's motion v + w x r (friction): a turning drum carries cloth round.
 * After the step it stands at position + velocity dt. */
typedef struct sinew_shape {
    sinew_shape_kind kind;
    float position[3];          /* m, its centre (capsule: the segment's midpoint; mesh: its frame's origin) */
    float rotation[4];          /* unit quaternion x y z w, its frame to the world (refused if |q| is not 1 +- 1e-3) */
    float velocity[3];          /* m/s */
    float angular_velocity[3];  /* rad/s, about position */
    float radius;               /* m, sphere and capsule, >= 0 */
    float half_extents[3];      /* m, box; capsule: [1] its segment's half length; >= 0 */
    uint32_t mesh;              /* SINEW_SHAPE_MESH: index into desc.meshes */
} sinew_shape;

/* A shape of the kind at the origin, unturned, still, of no extent. */
SINEW_API sinew_shape sinew_shape_default(sinew_shape_kind kind);

SINEW_API sinew_step_params sinew_step_params_default(void);

/* Uploads the asset's particles and constraints. The asset is borrowed for the
 * call and may be destroyed afterwards. */
SINEW_API sinew_result sinew_body_create(sinew_context *ctx, const sinew_asset *asset,
                                         const sinew_body_desc *desc, sinew_body **out);

SINEW_API void sinew_body_destroy(sinew_body *body);

/* Advances one step: submits the recorded frame and waits for it (with
 * desc.pipelined: finishes the step before, then submits this one and
 * returns). Parameters are checked (finite, dt > 0, radius >= 0) and refused
 * with a message otherwise. Returns SINEW_RESULT_ERROR_UNSTABLE when the
 * health check fails (the stats say which particles, and whether the body was
 * rolled back to the state before the step; pipelined, the step before, and
 * nothing is submitted), SINEW_RESULT_ERROR_DEVICE_LOST when the device was
 * lost. */
SINEW_API sinew_result sinew_body_step(sinew_body *body, const sinew_step_params *params);

/* Finishes the step in flight (desc.pipelined), waiting for it if it is still
 * running, and returns its result as sinew_body_step would have; OK at once
 * when none is in flight. */
SINEW_API sinew_result sinew_body_wait(sinew_body *body);

/* Copies current positions into xyz (3 floats per particle, count = particle count).
 * Waits for pending work. */
SINEW_API sinew_result sinew_body_read_positions(sinew_body *body, float *xyz, uint32_t count);

/* Copies the vertex normals of the last step (3 floats per particle, unit
 * length, area-weighted over the particle's triangles; 0 for a particle on no
 * triangle). ERROR_UNSUPPORTED when the body computes none (desc.normals = 0
 * or no triangles). Waits for pending work. */
SINEW_API sinew_result sinew_body_read_normals(sinew_body *body, float *xyz, uint32_t count);

/* Copies the render vertices of the last step (docs/render-mesh.md): 8
 * floats per render vertex (position xyz in the body's frame, unit normal
 * xyz, uv), count = the asset's render vertex count. The buffer is written
 * at the end of each step (and at creation, from the rest pose); positions
 * written or pins moved since show at the next step's end.
 * ERROR_UNSUPPORTED when the body has no render mesh (desc.render_mesh = 0
 * or none in the asset), INVALID_ARGUMENT for another count. Waits for
 * pending work. */
SINEW_API sinew_result sinew_body_read_render_vertices(sinew_body *body, float *out, uint32_t count);

/* Copies current velocities (m/s), same layout. */
SINEW_API sinew_result sinew_body_read_velocities(sinew_body *body, float *xyz, uint32_t count);

/* Overwrites positions (and zeroes velocities); 3 floats per particle. Each
 * bending hinge's continuous angle restarts from the new pose. */
SINEW_API sinew_result sinew_body_write_positions(sinew_body *body, const float *xyz, uint32_t count);

/* The body's origin in the world (the asset's origin plus desc.origin,
 * moved by sinew_body_shift_origin), m. */
SINEW_API void sinew_body_get_origin(const sinew_body *body, double origin[3]);

/* Moves the body's frame by `by` (m) without moving the body: its positions
 * relative to the frame (the particles' and the pins' anchors) go down by
 * `by`, so that a body that has travelled far from its origin gets small
 * coordinates again; step parameters given after are relative to the new
 * origin. `by` is rounded to float, and the origin moves by exactly what the
 * positions moved. Bodies in each other's contact lists step only while
 * they share an origin: shift them together. Costs a readback and an upload
 * of the positions (as a checkpoint does): for now and then, not every step.
 * Refuses a shift that is not finite or beyond 1e9 m, changing nothing. */
SINEW_API sinew_result sinew_body_shift_origin(sinew_body *body, const double by[3]);

/* Moves pinned particles (inverse mass 0), e.g. to follow an animated
 * attachment: particle indices[k] goes to xyz[3k .. 3k+2]. Refuses (changing
 * nothing) an index out of range, a particle that is not pinned (or is held
 * by an attachment: move its frame), or a non-finite position. The move is
 * kept on the host and applied by the next step at its start (its first
 * substep puts the pin at its target): no wait, no readback, no submit, no
 * allocation; sinew_body_read_positions and checkpoints show the pins
 * where they were put. The implicit solvers (pins anchored in PREV) still
 * read back and upload the positions. */
SINEW_API sinew_result sinew_body_move_pinned(sinew_body *body, const uint32_t *indices, uint32_t count, const float *xyz);

/* ---------------------------------------------------------------- checkpoints
 * A checkpoint holds everything a body carries from one step to the next:
 * positions with inverse masses (pins included), velocities, each bending
 * hinge's last angle (kept continuous through a fold), the step count, and
 * what a solver keeps on the host between steps (MGPBD's lazy setup). The
 * XPBD multipliers are reset every substep and the other buffers are
 * rewritten before they are read, so a body restored from a checkpoint
 * continues bit for bit as the body it was saved from would have, given the
 * same asset, desc, step parameters and device. The format (little-endian,
 * CRC-32 checked) is in docs/checkpoint-format.md; loading checks that the
 * checkpoint was made from the same asset topology and that every value is
 * finite, and changes nothing unless all checks pass. */

/* Bytes a checkpoint of this body takes now: a body of MGPBD's changes with
 * its hierarchy's levels at each setup. */
SINEW_API size_t sinew_body_checkpoint_size(const sinew_body *body);
/* Writes the checkpoint into dst (size >= sinew_body_checkpoint_size). Waits. */
SINEW_API sinew_result sinew_body_save_checkpoint(sinew_body *body, void *dst, size_t size);
SINEW_API sinew_result sinew_body_load_checkpoint(sinew_body *body, const void *src, size_t size);
/* The same through a file; the file is written to a temporary name and
 * renamed, so a crash while saving never leaves a torn checkpoint. */
SINEW_API sinew_result sinew_body_save_checkpoint_file(sinew_body *body, const char *path);
SINEW_API sinew_result sinew_body_load_checkpoint_file(sinew_body *body, const char *path);

/* 64-bit FNV-1a hash of the state a checkpoint holds (positions, inverse
 * masses, velocities, hinge angles, as little-endian bits): equal hashes after equal inputs
 * show a run is deterministic; different ones find where two runs part. Waits. */
SINEW_API sinew_result sinew_body_state_hash(sinew_body *body, uint64_t *hash);

typedef struct sinew_step_stats {
    uint64_t step_index;        /* steps taken so far */
    /* Strain |C|/L of the distance constraints (stretch and shear) after the
     * last step, reduced on the GPU when desc.residual was set; negative when
     * not measured. */
    float max_strain;
    float rms_strain;
    /* GPBD: the relative change |V / V0 - 1| of each element's measure
     * (volume of a tetrahedron, area of a triangle, length of a spring) after
     * the last step, max and RMS, when desc.residual was set and the body has
     * elements; negative otherwise. An inverted tetrahedron counts > 1. */
    float max_measure_error;
    float rms_measure_error;
    /* How far the last step's solve got (docs/math.md 9), when
     * desc.residual was set (negative otherwise); 0 when solved exactly. A
     * body resting in the wrong place (too few iterations for its
     * stiffness) shows here although nothing moves. The position-based
     * solvers: the RMS over the solver's items, at the end of the last
     * substep, of the change one more local solve would make, as a strain
     * (or an angle in radians):
     *   XPBD, HPBD  each constraint's projection, w/(w + alpha~) times the
     *               compliant residual C + alpha~ lambda (over the rest
     *               length for distances)
     *   GPBD        each element's Newton step in strain space (Green strain;
     *               springs: the length change over the rest length); a body
     *               with elements reports its elements only
     *   PD          each particle's global step, with its neighbours held,
     *               over its springs' mean rest length.
     * The implicit solvers: their linear solve's relative residual
     * (linear_residual). Contacts move particles after the solve, so a body
     * pressed on a collider keeps a residual there. */
    float residual;
    /* Milliseconds of GPU time in each phase of the last step, summed over
     * substeps and iterations, when desc.timestamps was set (and the queue has
     * timestamps); negative otherwise. ms_residual covers the residual and
     * the health check; ms_total spans the whole step. The PD solvers
     * resolve contacts within the solve (ms_contacts 0). */
    double ms_predict, ms_solve, ms_contacts, ms_velocity, ms_residual, ms_total;
    uint32_t dispatches;        /* per step as recorded */
    uint32_t barriers;          /* per step as recorded */
    uint64_t bytes;             /* device memory traffic per step as the kernels are
                                   designed (reads + writes, no cache effects) */
    uint64_t device_memory;     /* bytes of device memory held by this body */
    uint32_t device_allocations; /* memory allocations its buffers are bound into (staging and
                                    readback memory of its own included) */
    /* What the last sinew_body_step cost the host: queue submits, waits for
     * the device, and bytes of results read back (the step's statistics, and
     * its timestamps when desc.timestamps is set). */
    uint32_t submits;
    uint32_t host_waits;
    uint64_t readback_bytes;
    /* Health check of the last step (desc.health_check): particles that were
     * not finite or faster than desc.max_speed, the lowest and highest such
     * index (0 when none), the largest finite speed (m/s; negative when not
     * checked), and whether the step was undone by a rollback. */
    uint32_t bad_particles;
    uint32_t first_bad, last_bad;
    float max_speed;
    int rolled_back;
    /* The health check's elements in the last step (desc.health_check, a body
     * with tetrahedra; counted on the device in the health dispatch):
     * tetrahedra with det F <= 0, the lowest index of one in the asset's
     * element order (0 when none), and the largest |V / V0 - 1| over the
     * tetrahedra (an inverted one counts > 1). 0, 0 and negative when not
     * checked (no tetrahedra, or no health check). Triangles and springs
     * cannot invert in 3-D; their measure errors are the residual's
     * (max_measure_error). desc.max_inverted and desc.max_volume_error bound
     * them. */
    uint32_t inverted_elements;
    uint32_t first_inverted;
    float max_volume_error;
    /* GPBD: Newton iterations of all element updates in the last step (each
     * update stops at desc.newton_iterations, or earlier once its gradient is
     * reduced by desc.newton_tolerance or down to float rounding). */
    uint64_t newton_iterations;
    /* GPBD: element updates of the last step skipped (no move) because the
     * device cut their loops short: llvmpipe (lavapipe) ends an invocation's
     * loops after 65 535 iterations in all, which an update reaches with
     * newton_iterations in the hundreds. 0 on devices without such a limit;
     * when not 0 the step also logs a warning. */
    uint32_t loops_cut;
    /* IMPLICIT_MG, IMPLICIT_PCG: V-cycles or PCG iterations of the last step
     * (summed over its substeps), the largest relative residual a substep's
     * solve ended at, the number of solves that stopped at single
     * precision's floor above the tolerance (IMPLICIT_MG: three V-cycles in a
     * row gaining < 5 %) or at the iteration limit, all counted on the
     * device, and the solves' GPU milliseconds (the SOLVE phase's; -1 without
     * timestamps). Zero otherwise. */
    uint32_t linear_iterations;
    double linear_residual;
    uint32_t linear_unconverged;
    double ms_linear;
    /* IMPLICIT_MG: when a V-cycle makes the residual grow past twice the
     * best so far, or the V-cycles stall above 10 times the tolerance, the
     * substep's solve starts again by block-Jacobi PCG
     * (at most implicit.fallback_iterations): its iterations in the last step. */
    uint32_t linear_fallback_iterations;
    /* Self-collision (desc.self_collision), the last step's: candidate pairs
     * in the lists (each pair counted from both sides; summed over
     * substeps), candidates that did not fit in
     * desc.self_capacity (0: none lost), and contact projections that moved
     * particles (summed over substeps and iterations). Zero without it. */
    uint64_t self_candidates;
    uint32_t self_dropped;
    uint64_t self_contacts;
    /* How far the body is from where its equations put it, relative to its
     * deformation (docs/accuracy.md, "The error estimate"), when
     * desc.residual was set; negative when not measured. The same meaning
     * for every solver: along the displacement u from the rest pose, the
     * virtual work of the net force on the free particles (the body's own
     * energy's forces at its positions, gravity, minus mass times
     * acceleration over the last steps) over the work of the loads
     * (gravity's and inertia's):
     *     |u . (f(x) + M g - M a)| / (|u . M g| + |u . M a|).
     * At rest it is the relative error of the deformation, within a factor
     * of about 3 on the accuracy suite (0.1: within about 10 %); in motion
     * it also holds the error of the one-step acceleration. Measured for
     * solids: bodies of tetrahedra of neo-Hookean or stable neo-Hookean
     * materials only, with every solver but MGPBD (its model is its own);
     * not for cloth or spring networks, where it would over-report
     * (docs/accuracy.md; sinew_body_estimate_error measures those at rest).
     * Contacts, attachments and wind are not among the forces: a body
     * pressed on a collider shows its contact force here. The first two
     * steps after creation or a host write of positions measure inertia
     * against the rest pose. */
    float error_estimate;
} sinew_step_stats;

/* Statistics of the last step. Reading them never waits: they were copied when
 * the step completed. */
SINEW_API sinew_step_stats sinew_body_get_stats(const sinew_body *body);

/* How far a body of constraints rests from its static equilibrium
 * (docs/accuracy.md, "Cloth and spring networks"). */
typedef struct sinew_static_error {
    /* |d|_M / |u + d|_M: d the Newton step of the body's energy and the
     * given gravity from its current positions, u their displacement from
     * the rest pose (M: the particles' masses). At rest and in the linear
     * regime, the relative error of the deformation; a body in motion shows
     * its motion. Negative when not measured. */
    double error;
    uint32_t iterations; /* of the conjugate gradients that solved for d */
    int converged;       /* they reached 1e-6 of the net force (otherwise error is a lower bound) */
} sinew_static_error;

/* The static error estimate of a body of distance constraints and bending
 * hinges (cloth, spring networks) stepped by XPBD, HPBD, GPBD or PD, where
 * the per-step error_estimate above does not hold: the body's energy
 * sum C^2 / (2 alpha) over its constraints and hinges, the gravity of
 * `params` (its other fields are not used), pinned particles held. One
 * Newton step in double on the host: the tangent stiffness (each
 * stretched spring's geometric part kept, each hinge's Gauss-Newton part)
 * solved by Jacobi-preconditioned conjugate gradients. Costs a readback of
 * the positions and hinge angles and host work of about (distance + hinge
 * count) x iterations (hundreds for a 24 x 24 cloth); for checks, not every
 * step. Contacts, attachments' springs and wind are not among the forces.
 * ERROR_UNSUPPORTED (naming why) for a body with finite elements (their
 * estimate is the step's), the implicit solvers and MGPBD (their energies
 * are their own), an inextensible constraint or rigid hinge (compliance 0), a body
 * with no pinned particle (no static equilibrium) or none free. Waits for
 * pending work. */
SINEW_API sinew_result sinew_body_estimate_error(sinew_body *body, const sinew_step_params *params,
                                                 sinew_static_error *out);

SINEW_API uint32_t sinew_body_get_particle_count(const sinew_body *body);

/* Pins a particle where it is (inverse mass 0: the solvers leave it and
 * sinew_body_move_pinned may move it, e.g. one a user drags with the mouse)
 * or sets it free again with the inverse mass it had. Refuses an index out of
 * range, or freeing a particle the asset pinned. Waits for pending work. */
SINEW_API sinew_result sinew_body_set_pinned(sinew_body *body, uint32_t index, int pinned);

/* Sets the substeps of every later step (1..1000; the body's
 * desc.substeps), recording the step again: what a program does to retry a
 * step the health check rolled back (SINEW_RESULT_ERROR_UNSTABLE) with
 * smaller substeps, or to go back to its usual count. Refuses, changing
 * nothing, a count out of range, the implicit solvers (one substep, their
 * budgets sized by it) and a body in a world (its desc is its batch's).
 * Waits for pending work. */
SINEW_API sinew_result sinew_body_set_substeps(sinew_body *body, uint32_t substeps);

/* Replaces material `index` (GPBD bodies), taking effect at the next step.
 * Refuses (changing nothing) an index out of range, an invalid material, or a
 * model that does not fit the kind of an element using it. */
SINEW_API sinew_result sinew_body_set_material(sinew_body *body, uint32_t index, const sinew_material *material);

/* Tears the body: cuts the distance constraints joining each pair of particles
 * (pairs[2k], pairs[2k + 1], either order) and every bending hinge one of
 * whose two triangles loses an edge. With a hierarchy (HPBD), the particles at the cut lose
 * their parent links and coarse constraints, and so do their parents, level by
 * level up the hierarchy (Müller 2008, section 8), so no coarse constraint
 * bridges the cut. Takes effect at the next step; nothing is re-recorded and
 * the colouring stays valid. Refuses (changing nothing) an index out of range
 * or a pair that no distance constraint joins; a pair cut before counts as
 * cut. A body with finite elements (GPBD) cannot be cut. *cut (may be NULL)
 * receives the number of distance constraints cut by this call. A
 * checkpoint records whether a body was cut: one taken after a cut loads only
 * into a body cut the same way. Waits for pending work. */
SINEW_API sinew_result sinew_body_cut(sinew_body *body, const uint32_t *pairs, uint32_t pair_count, uint32_t *cut);

/* ------------------------------------------------------ collision between bodies
 * Most bodies one body's contact list may hold. */
#define SINEW_MAX_CONTACT_BODIES 64

/* Makes the body collide with the surfaces of `others` (made on the same
 * context, with triangles; count 0: with none), replacing its list
 * (docs/self-collision.md). Its vertices keep desc.self_thickness from their
 * triangles and its edges from their edges, with friction
 * desc.self_friction, through the same broad phase and candidate lists
 * (desc.self_capacity) as self-collision, which need not be on. Each step
 * of the body begins by copying the others' positions as their last steps
 * left them (a copy on the device, nothing read back); through the step
 * they stand still and do not yield. So a body yields to another only in
 * its own step: list each body in the other's list for contact both ways,
 * and step them one after the other. A body is kept by the lists that
 * hold it: destroyed, it stays in them, still, until they drop it. The
 * position-based solvers only (as self-collision). Re-records the step and
 * remakes the body's collision buffers: a call for loading time, not every
 * frame. Refuses (changing nothing) NULL, the body itself, a body of another
 * context or without triangles, a body listed twice, more than
 * SINEW_MAX_CONTACT_BODIES. Waits for pending work. Should re-recording fail
 * (out of memory), the call returns that error and the body takes no step
 * (refused, naming why) until a later call succeeds. */
SINEW_API sinew_result sinew_body_set_contact_bodies(sinew_body *body, sinew_body *const *others, uint32_t count);

#ifdef __cplusplus
}
#endif
#endif
