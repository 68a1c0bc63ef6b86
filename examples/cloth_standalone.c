/* cloth_standalone: a cloth in a program of its own.
 *
 * The shortest whole use of sinew: a context (sinew's own Vulkan device), an
 * asset (a .snw file given on the command line, or else a 24 x 24 grid built
 * here by the asset-building library, as `sinew-prep --grid 24x24
 * --pin-corners` would), a body made from it, two seconds of steps, and the
 * particle positions read back to print a summary. Headless: no window.
 *
 *     cloth_standalone [ASSET.snw] [--no-validation]
 *
 * Exits 0 when every call succeeded, the cloth fell under gravity while its
 * pinned corners stayed, and the Vulkan validation layer reported nothing;
 * non-zero otherwise. */
#include <sinew/prep.h>
#include <sinew/sinew.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 60 /* at sinew's default 1/60 s a step: one second */

/* Every message of sinew (its own and the validation layer's) comes here. */
static unsigned warnings;
static void on_log(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    if (level <= SINEW_LOG_WARNING)
        warnings++;
    fprintf(stderr, "sinew [%s]: %s\n", id, message);
}

/* A cloth asset: the file named, or a grid built in memory. */
static sinew_result make_asset(const char *path, const sinew_logger *logger, sinew_asset **asset)
{
    if (path)
        return sinew_asset_load(path, logger, asset);
    /* 24 x 24 particles over 1 m x 1 m, lying flat 1 m up, its first row's two
     * corners pinned: it swings down from them. */
    sinew_prep_grid grid = sinew_prep_grid_default();
    grid.nx = grid.ny = 24;
    sinew_prep_cloth_options options = sinew_prep_cloth_options_default();
    options.name = "grid";
    sinew_prep_output built;
    sinew_result r = sinew_prep_cloth_grid(&grid, &options, logger, &built);
    if (r != SINEW_RESULT_OK)
        return r;
    /* built.bytes is what `sinew-prep -o grid.snw` would have written. */
    r = sinew_asset_load_memory(built.bytes, built.size, "grid", logger, asset);
    sinew_prep_output_free(&built);
    return r;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int validation = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-validation"))
            validation = 0;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: cloth_standalone [ASSET.snw] [--no-validation]\n");
            return 2;
        }
    }

    sinew_logger logger = sinew_logger_default();
    logger.fn = on_log;
    logger.level = SINEW_LOG_WARNING;

    /* 1. The asset: what does not change while the cloth moves (rest shape,
     *    masses, constraints and their colouring). Needs no device. */
    sinew_asset *asset = NULL;
    sinew_result r = make_asset(path, &logger, &asset);

    /* 2. A context: a Vulkan device of sinew's own choosing, its compute
     *    pipelines created up front. With validation, the Khronos layer checks
     *    every call and its messages go to the logger. */
    sinew_context *ctx = NULL;
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger = logger;
    cd.validation = validation;
    if (r == SINEW_RESULT_OK)
        r = sinew_context_create(&cd, &ctx);

    /* 3. A body: the asset's state on the device. Its desc picks the solver
     *    and its stiffness; the defaults are XPBD with a few substeps. */
    sinew_body *body = NULL;
    sinew_body_desc bd = sinew_body_desc_default();
    if (r == SINEW_RESULT_OK)
        r = sinew_body_create(ctx, asset, &bd, &body);

    /* 4. Steps. The parameters may change from step to step (wind, colliders);
     *    here gravity and a ground plane at y = 0. */
    sinew_step_params params = sinew_step_params_default();
    params.ground = 1;
    for (int s = 0; s < STEPS && r == SINEW_RESULT_OK; s++)
        r = sinew_body_step(body, &params);

    /* 5. Read the positions back (a copy to the host: not something to do every
     *    frame in a game, which would draw from the device's buffers instead,
     *    see cloth_in_renderer) and compare them with the rest pose. */
    uint32_t n = body ? sinew_body_get_particle_count(body) : 0;
    float *now = malloc(sizeof *now * 3 * (n + 1u));
    float *rest = malloc(sizeof *rest * 3 * (n + 1u));
    if (r == SINEW_RESULT_OK && (!now || !rest))
        r = SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_RESULT_OK)
        r = sinew_body_read_positions(body, now, n);

    int ok = r == SINEW_RESULT_OK;
    if (ok) {
        sinew_asset_get_positions(asset, rest);
        sinew_asset_info info = sinew_asset_get_info(asset);
        double lowest = INFINITY, drop = 0.0, pin_moved = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            lowest = fmin(lowest, now[3 * i + 1]);
            drop = fmax(drop, rest[3 * i + 1] - now[3 * i + 1]);
        }
        /* The pinned particles: those whose inverse mass is 0 stay put. With
         * the default grid they are particles 0 and 23. */
        if (!path)
            for (uint32_t k = 0; k < 2; k++) {
                uint32_t i = k ? 23 : 0;
                for (int c = 0; c < 3; c++)
                    pin_moved = fmax(pin_moved, fabs(now[3 * i + c] - rest[3 * i + c]));
            }
        sinew_step_stats st = sinew_body_get_stats(body);
        printf("cloth_standalone: %s on %s: %u particles (%u pinned), %u constraints in %u colours; "
               "%d steps of %.4f s; lowest point %.3f m, fell up to %.3f m; pins moved %.2g m; "
               "%u dispatches a step; %u validation messages\n",
               path ? path : "24x24 grid", sinew_context_get_device_info(ctx).name, info.particle_count,
               info.pinned_count, info.distance_count + info.bend_count, info.colour_count, STEPS,
               (double)params.dt, lowest, drop, pin_moved, st.dispatches,
               sinew_context_get_validation_message_count(ctx));
        /* The checks a test can make: the cloth fell, and what is pinned held. */
        ok = drop > 0.1 && pin_moved < 1e-5 && lowest >= -0.01;
        if (!ok)
            fprintf(stderr, "cloth_standalone: the cloth did not move as it should\n");
    } else {
        fprintf(stderr, "cloth_standalone: %s\n", sinew_result_string(r));
    }
    unsigned messages = ctx ? sinew_context_get_validation_message_count(ctx) : 0;

    /* 6. Destroy in reverse order; the asset may go any time after the body
     *    was created from it. */
    free(now);
    free(rest);
    sinew_body_destroy(body);
    sinew_context_destroy(ctx);
    sinew_asset_destroy(asset);
    return ok && messages == 0 && warnings == 0 ? 0 : 1;
}
