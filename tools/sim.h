/* sinew-sim's options: what the command line asks of a run (sim_options.c
 * reads them, sinew-sim.c runs them). */
#ifndef SINEW_TOOLS_SIM_H
#define SINEW_TOOLS_SIM_H

#include <sinew/sinew.h>

enum { MATERIAL_UNSET = -1 };

/* The collider list the options give (docs/colliders.md): at most this many
 * shapes, and mesh collider files among them. */
#define SIM_MAX_SHAPES 64
#define SIM_MAX_MESHES 16
/* Bodies --add may add beside the first. */
#define SIM_MAX_ADDS 64

/* A --collider file, scaled as its --collider-size says. */
typedef struct sim_mesh {
    const char *path;
    double size;         /* m, its longest side (0: the file's coordinates) */
    unsigned resolution; /* distance-field cells along its longest side */
} sim_mesh;

/* An --add: a body from an asset file, moved by `at` after loading. */
typedef struct sim_add {
    char path[1024];
    double at[3];        /* m */
    sinew_solver solver; /* --add-solver, where solver_set */
    int solver_set;
} sim_add;

/* One option of the command line's table, kept for --json's "settings":
 * its flag, its cli_kind, where its value is (in the options) and whether
 * it was given. */
typedef struct sim_setting {
    const char *name;
    int kind, count, given;
    const void *value;
} sim_setting;
#define SIM_MAX_SETTINGS 256

/* The options, with the scene's settings filled in where none was given. */

typedef struct options {
    const char *asset_path, *out_dir, *device, *checkpoint, *resume, *json, *log;
    char out_buf[4096];     /* out_dir without its trailing slashes, when it had any */
    unsigned frames, every, substeps, iterations, checkpoint_every, newton, cells, seed, level_iterations, cut_frame;
    unsigned cg_iterations, setup_interval; /* MGPBD */
    double cut_y;
    int cut_set, sweep, sweep_layout;
    sinew_solver solver;
    int validation, portable, quiet, hash, scene, material, check_recovered, bdf2, backward_euler, help;
    double dt, stretch, shear, bend, omega, damping, friction, ground, check_strain, max_speed;
    double check_residual;
    double newton_tol, youngs, poisson, scale, turns, ramp, gravity, size, rho;
    unsigned delay;
    unsigned max_inverted;    /* health check: tetrahedra a step may leave inverted (UINT32_MAX: no bound) */
    double max_volume_error;  /* and the largest |V/V0 - 1| (INFINITY: no bound) */
    int max_volume_error_set, max_inverted_set;
    unsigned retries;         /* --retries: a step failing the health check, or tetrahedra left inverted, go
                                 back and on at twice the substeps, this many times at most (0: never) */
    int png, no_png, camera_set;
    unsigned picture[2];
    double camera[6];
    const char *video;
    int self_collision;       /* --self-collision */
    double thickness, self_friction;
    unsigned self_capacity;
    int intersections;        /* --intersections: count intersecting triangle pairs at the end */
    /* --add (and --with, its old name): bodies beside the first, all stepped
     * as one world (docs/world.md); --scene crowd adds its own */
    sim_add adds[SIM_MAX_ADDS];
    unsigned add_count;
    int crowd;                /* --scene crowd: blocks and cloths built in memory */
    uint64_t max_memory;      /* --max-memory: bytes a soft scene's box is estimated to take, at most (0: no bound) */
    int no_contacts;          /* --no-contacts: the world's bodies do not touch */
    int thickness_set;
    int ground_set, no_ground, no_sphere, frames_set, dt_set, substeps_set, iterations_set;
    /* --attach-edge: the asset's particles at one end of an axis (0..5: x-, x+, y-, y+, z-, z+; -1: none)
     * held (or pulled, attach_compliance) by a frame moving as --frame-motion says: kind 0 still, 1
     * circle (frame_motion[0] radius m, [1] period s), 2 rotate (rad/s about y) */
    int attach_edge, frame_kind, tethers;
    double attach_compliance, frame_motion[2], tether_scale;
    int damping_set, solver_set, youngs_set, poisson_set, gravity_set, cells_set, scale_set, turns_set, ramp_set;
    /* The collider list, the ground's normal and wind (docs/colliders.md, docs/wind.md). */
    /* --sphere, --capsule, --box, --collider (each repeatable) in the order
     * given, posed and set moving by --velocity, --spin and --collider-at;
     * a mesh shape's `mesh` indexes meshes[]. */
    sinew_shape shapes[SIM_MAX_SHAPES];
    unsigned shape_count;
    double shape_at[SIM_MAX_SHAPES][3]; /* each shape's position as given (world, m, double) */
    double origin[3];                   /* --origin: added to the asset's origin (m) */
    sim_mesh meshes[SIM_MAX_MESHES];
    unsigned mesh_count;
    double check_outside;             /* --check-outside D (m; 0: no check) */
    double ground_normal[3];          /* --ground-normal */
    double wind[3], drag, lift, air_density; /* --wind, --drag, --lift, --air-density */
    int flag;                         /* --flag: the flag scene */
    int wind_set, drag_set, lift_set, bend_set, frame_set;
    int cape;                         /* --cape: the cape scene */
    int shapes_on_frame;              /* --shapes-on-frame: the collider list rides on the attachment's frame */
    double check_downwind;            /* --check-downwind D (m; 0: no check) */
    /* the command line and its table (for --json) */
    int argc;
    char **argv;
    sim_setting settings[SIM_MAX_SETTINGS];
    unsigned setting_count;
} options;

/* Reads the options into *o, then the scene's settings where no option gave
 * one: 1 to run, 0 when done (--help), -1 on a bad option (said why). */
int sim_parse(int argc, char **argv, options *o);
/* sinew-sim's logger (the context's): the library's messages, each field a
 * flag sets followed by the flag ("self_capacity (--self-capacity)"). */
void sim_log(void *user, sinew_log_level level, const char *id, const char *message);

/* The shapes' geometry (sim_shapes.c). */

/* The unit quaternion (x y z w) turning by deg degrees about axis (any
 * length); 0 when the axis is zero and the angle is not. */
int sim_axis_angle(const double axis[3], double deg, float q[4]);

/* The shape as the step leaves it, dt s later: moved at its velocity and
 * turned at its angular velocity as the library's step does. */
void sim_shape_advance(sinew_shape *s, float dt);

/* Signed distance (m, negative inside) of the world point p from a sphere,
 * capsule or box (mesh shapes: meshes[s->mesh], sampled in its frame). */
float sim_shape_distance(const sinew_shape *s, const float p[3], sinew_collider *const *meshes);

/* v turned by the unit quaternion q (x y z w). */
void sim_rotate(const float q[4], const float v[3], float out[3]);

#endif
