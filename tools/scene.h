/* What sinew-sim and sinew-viewer both show: the default scene (a cloth
 * pinned at two corners falling onto a sphere and the ground, seen from the
 * pinned side, so that the picture shows the sphere it is draped over), and
 * what an asset file gets in either: the solver its elements need and a
 * ground under it. One definition, so the window and the pictures agree. */
#ifndef SINEW_TOOLS_SCENE_H
#define SINEW_TOOLS_SCENE_H

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

/* The flag scene (sinew-sim --flag): an n x n grid, 1 m square, hanging
 * vertically in the XY plane from y = 0.5 to 1.5 m, pinned along its pole
 * (the edge at x = -0.5 m). */
static inline sinew_result scene_flag_cloth(uint32_t n, sinew_asset **out)
{
    double origin[3] = {0.0, 1.0, 0.0};
    sinew_mesh mesh;
    sinew_result r = sinew_mesh_grid(n, n, 1.0, 1.0, SINEW_GRID_XY, origin, &mesh);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.pin_box = 1;
    opt.box_min[0] = -1.0, opt.box_min[1] = -1e9, opt.box_min[2] = -1e9;
    opt.box_max[0] = -0.5 + 1e-6, opt.box_max[1] = 1e9, opt.box_max[2] = 1e9;
    opt.source_name = "flag scene";
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
