/* sinew: deformable bodies (cloth, soft solids, mass-spring networks) simulated
 * by position-based and multigrid solvers in Vulkan compute shaders.
 *
 *     sinew_context *ctx;  sinew_context_desc cd = sinew_context_desc_default();
 *     sinew_context_create(&cd, &ctx);
 *     sinew_asset *asset;  sinew_asset_load("cloth.snw", NULL, &asset);
 *     sinew_body *body;    sinew_body_desc bd = sinew_body_desc_default();
 *     sinew_body_create(ctx, asset, &bd, &body);
 *     sinew_step_params p = sinew_step_params_default();
 *     for (int i = 0; i < 600; i++) sinew_body_step(body, &p);
 *     sinew_body_read_positions(body, xyz, n);
 *
 * Every call returns a sinew_result; messages go to the context's logger.
 */
#ifndef SINEW_H
#define SINEW_H

#include "core.h"
#include "asset.h"
#include "context.h"
#include "collider.h"
#include "body.h"
#include "world.h"

#endif
