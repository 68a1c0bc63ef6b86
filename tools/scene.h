/* What sinew-sim and sinew-viewer both show: the default scene (a cloth
 * pinned at two corners falling onto a sphere and the ground, seen from the
 * pinned side, so that the picture shows the sphere it is draped over), and
 * what an asset file gets in either: the solver its elements need and a
 * ground under it. One definition, so the window and the pictures agree. */
#ifndef SINEW_TOOLS_SCENE_H
#define SINEW_TOOLS_SCENE_H

#include <math.h>

#include <sinew/sinew.h>

#include "prep/cloth.h"
#include "prep/mesh.h"

/* The default scene's sphere: centre (m) and radius (m). */
static const double scene_default_sphere[4] = {0.0, 0.45, -0.35, 0.3};

/* The default scene's camera (m): from the pinned edge's side, above, where
 * the cloth hangs behind the sphere rather than in front of it. */
static const float scene_default_eye[3] = {1.5f, 1.7f, -2.7f};
static const float scene_default_target[3] = {0.0f, 0.4f, -0.25f};

/* The default cloth: an n x n grid of 1.6 m x 1.6 m at y = 1.2 m, pinned at
 * the two corners of its first row, built by the code sinew-prep uses. */
static inline sinew_result scene_default_cloth(uint32_t n, sinew_asset **out)
{
    double origin[3] = {0.0, 1.2, 0.0};
    sinew_mesh mesh;
    sinew_result r = sinew_mesh_grid(n, n, 1.6, 1.6, SINEW_GRID_XZ, origin, &mesh);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_cloth_options opt = sinew_cloth_options_default();
    uint32_t pins[2] = {0, n - 1};
    opt.pin_indices = pins;
    opt.pin_count = 2;
    opt.source_name = "default scene (64 x 64 grid)";
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_WARNING;
    r = sinew_cloth_build(&mesh, &opt, &quiet, out, NULL);
    sinew_mesh_free(&mesh);
    return r;
}

/* The flag scene (sinew-sim --flag): a flag of nx x ny vertices, 1.5 m
 * long (along x, its fly) by 1 m high, hanging vertically in the XY plane from
 * y = 1.6 to 2.6 m, pinned along its hoist (the edge at x = -0.75 m) to a
 * pole 2.8 m high just beside it. */
#define SCENE_FLAG_LENGTH 1.5
#define SCENE_FLAG_HEIGHT 1.0
static const double scene_flag_pole[7] = {-0.78, 0.0, 0.0, -0.78, 2.8, 0.0, 0.025}; /* A, B, radius (m) */
static const float scene_flag_eye[3] = {0.9f, 2.0f, 4.6f};
static const float scene_flag_target[3] = {0.5f, 1.6f, 0.6f};

static inline sinew_result scene_flag_cloth(uint32_t nx, uint32_t ny, sinew_asset **out)
{
    double origin[3] = {0.0, 2.1, 0.0};
    sinew_mesh mesh;
    sinew_result r = sinew_mesh_grid(nx, ny, SCENE_FLAG_LENGTH, SCENE_FLAG_HEIGHT, SINEW_GRID_XY, origin, &mesh);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.pin_box = 1;
    opt.box_min[0] = -1.0, opt.box_min[1] = -1e9, opt.box_min[2] = -1e9;
    opt.box_max[0] = -0.5 * SCENE_FLAG_LENGTH + 1e-6, opt.box_max[1] = 1e9, opt.box_max[2] = 1e9;
    opt.source_name = "flag scene";
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_WARNING;
    r = sinew_cloth_build(&mesh, &opt, &quiet, out, NULL);
    sinew_mesh_free(&mesh);
    return r;
}

/* A capsule of radius r about the segment from a to b (m): its centre, its
 * half length and the turn of the local y axis onto b - a. */
static inline sinew_shape scene_capsule(const double a[3], const double b[3], double r)
{
    sinew_shape s = sinew_shape_default(SINEW_SHAPE_CAPSULE);
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++) {
        s.position[k] = (float)(0.5 * (a[k] + b[k]));
        d[k] = len > 0.0 ? d[k] / len : k == 1;
    }
    s.radius = (float)r;
    s.half_extents[1] = (float)(0.5 * len);
    /* from y to d: (y x d, 1 + y.d) normalised; about x when d is -y */
    double q[4] = {d[2], 0.0, -d[0], 1.0 + d[1]};
    if (q[3] < 1e-9)
        q[0] = 1.0, q[1] = q[2] = q[3] = 0.0;
    const double ql = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++)
        s.rotation[k] = (float)(q[k] / ql);
    return s;
}

/* The cape scene (sinew-sim --cape): a figure standing on the ground at the
 * origin facing +x, made of the collider list's shapes (m): head, neck,
 * shoulders, chest, hips, arms and legs, 1.7 m tall. */
enum { SCENE_FIGURE_SHAPES = 9 };
/* The cape scene's camera follows the figure: its eye and target (m) in the
 * frame of the cape's top edge (the figure facing +x, its right +z): behind
 * the figure and to its right, outside the circle it walks. */
static const float scene_cape_eye[3] = {-1.9f, 0.3f, 2.9f};
static const float scene_cape_target[3] = {-0.3f, -0.6f, 0.0f};
static inline void scene_cape_figure(sinew_shape out[SCENE_FIGURE_SHAPES])
{
    static const double bones[8][7] = {
        {0.0, 1.47, 0.0, 0.0, 1.53, 0.0, 0.05},      /* neck */
        {0.0, 1.36, -0.13, 0.0, 1.36, 0.13, 0.085}, /* shoulders */
        {0.0, 0.94, 0.0, 0.0, 1.28, 0.0, 0.14},      /* chest */
        {0.0, 0.86, -0.08, 0.0, 0.86, 0.08, 0.12},  /* hips */
        {0.0, 0.80, 0.27, 0.0, 1.30, 0.26, 0.055},   /* arms */
        {0.0, 0.80, -0.27, 0.0, 1.30, -0.26, 0.055},
        {0.0, 0.07, 0.10, 0.0, 0.80, 0.09, 0.07},    /* legs */
        {0.0, 0.07, -0.10, 0.0, 0.80, -0.09, 0.07},
    };
    out[0] = sinew_shape_default(SINEW_SHAPE_SPHERE); /* head */
    out[0].position[1] = 1.63f;
    out[0].radius = 0.1f;
    for (int k = 0; k < 8; k++)
        out[1 + k] = scene_capsule(bones[k], bones[k] + 3, bones[k][6]);
}

/* The cape: nx x ny vertices (nx around, ny down), half a cone around the
 * figure's neck (its axis the figure's), hung from its top edge: an arc of
 * radius 0.17 m behind the neck at y = 1.47 m spanning 150 degrees, opening
 * 20 degrees outwards down to its hem 1.15 m lower, the width a real
 * half-circle cape has there. */
#define SCENE_CAPE_TOP 1.47
static inline sinew_result scene_cape_cloth(uint32_t nx, uint32_t ny, sinew_asset **out)
{
    const double top = SCENE_CAPE_TOP, r0 = 0.17, span = 150.0 * 3.14159265358979323846 / 180.0;
    const double slope = 20.0 * 3.14159265358979323846 / 180.0, slant = 1.15 / cos(slope);
    sinew_mesh mesh;
    sinew_result r = sinew_mesh_grid(nx, ny, 1.0, 1.0, SINEW_GRID_XY, NULL, &mesh);
    if (r != SINEW_RESULT_OK)
        return r;
    for (uint32_t v = 0; v < mesh.vertex_count; v++) {
        double *p = &mesh.positions[3 * v];
        const double phi = p[0] * span, s = (0.5 - p[1]) * slant, radius = r0 + s * sin(slope);
        p[0] = -radius * cos(phi);
        p[1] = top - s * cos(slope);
        p[2] = -radius * sin(phi); /* the grid's +x to the figure's right (-z), so the normals face out */
    }
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.source_name = "cape scene";
    sinew_logger quiet = sinew_logger_default();
    quiet.level = SINEW_LOG_WARNING;
    r = sinew_cloth_build(&mesh, &opt, &quiet, out, NULL);
    sinew_mesh_free(&mesh);
    return r;
}

/* The solver an asset needs unless one is chosen: Generalized PBD for finite
 * elements (soft solids, membranes), which XPBD bodies refuse; `cloth`
 * otherwise. */
static inline sinew_solver scene_solver(const sinew_asset_info *ai, sinew_solver cloth)
{
    return ai->element_count ? SINEW_SOLVER_GPBD_GAUSS_SEIDEL : cloth;
}

/* The ground an asset file gets: a quarter of its largest extent below its
 * lowest point (m). */
static inline float scene_ground_height(const sinew_asset_info *ai)
{
    float extent = 0.0f;
    for (int k = 0; k < 3; k++)
        extent = ai->bounds_max[k] - ai->bounds_min[k] > extent ? ai->bounds_max[k] - ai->bounds_min[k] : extent;
    return ai->bounds_min[1] - 0.25f * extent;
}

#endif
