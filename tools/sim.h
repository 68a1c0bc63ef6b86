/* sinew-sim's options: what the command line asks of a run (sim_options.c
 * reads them, sinew-sim.c runs them). */
#ifndef SINEW_TOOLS_SIM_H
#define SINEW_TOOLS_SIM_H

#include <sinew/sinew.h>

enum { MATERIAL_UNSET = -1 };

/* The options, with the scene's settings filled in where none was given. */
/* Most --ball options. */
#define SIM_MAX_BALLS 16

typedef struct options {
    const char *asset_path, *out_dir, *device, *checkpoint, *resume, *json, *log;
    unsigned frames, every, substeps, iterations, checkpoint_every, newton, cells, seed, level_iterations, cut_frame;
    unsigned cg_iterations, setup_interval; /* MGPBD */
    double cut_y;
    int cut_set, sweep, sweep_layout;
    sinew_solver solver;
    int validation, portable, quiet, hash, scene, material, check_recovered, bdf2, help;
    double dt, stretch, shear, bend, omega, damping, friction, ground, sphere[4], check_strain, max_speed;
    double check_residual;
    double newton_tol, youngs, poisson, scale, turns, ramp, gravity, size, rho, box[6], box_velocity[3], sphere_velocity[3];
    unsigned delay;
    unsigned max_inverted;    /* health check: tetrahedra a step may leave inverted (UINT32_MAX: no bound) */
    double max_volume_error;  /* and the largest |V/V0 - 1| (INFINITY: no bound) */
    int box_set;
    int png, no_png, camera_set;
    unsigned picture[2];
    double camera[6];
    const char *video;
    const char *collider;
    double collider_at[3], collider_size;
    unsigned collider_resolution;
    int self_collision;       /* --self-collision */
    double thickness, self_friction;
    unsigned self_capacity;
    int intersections;        /* --intersections: count intersecting triangle pairs at the end */
    const char *with;         /* --with: a second body from this asset, each colliding with the other */
    int ground_set, no_ground, sphere_set, no_sphere, frames_set, dt_set, substeps_set, iterations_set;
    /* --attach-edge: the asset's particles at one end of an axis (0..5: x-, x+, y-, y+, z-, z+; -1: none)
     * held (or pulled, attach_compliance) by a frame moving as --frame-motion says: kind 0 still, 1
     * circle (frame_motion[0] radius m, [1] period s), 2 rotate (rad/s about y) */
    int attach_edge, frame_kind, tethers;
    double attach_compliance, frame_motion[2], tether_scale;
    int damping_set, solver_set, youngs_set, poisson_set, gravity_set, cells_set, scale_set, turns_set, ramp_set;
    /* The collider list, the ground's normal and wind (docs/colliders.md, docs/wind.md). */
    double balls[SIM_MAX_BALLS][7];   /* --ball X,Y,Z,R[,VX,VY,VZ], repeatable */
    unsigned ball_count;
    double ground_normal[3];          /* --ground-normal */
    double wind[3], drag, lift, air_density; /* --wind, --drag, --lift, --air-density */
    int flag;                         /* --flag: the flag scene */
} options;

/* Reads the options into *o, then the scene's settings where no option gave
 * one: 1 to run, 0 when done (--help), -1 on a bad option (said why). */
int sim_parse(int argc, char **argv, options *o);

#endif
