/* sinew-bench --suite overlap: what desc.pipelined buys a game loop. Each
 * frame the host steps a cloth and then does H ms of its own work (a busy
 * loop standing in for the rest of a frame); a waiting body's frame takes
 * the step's time plus H, a pipelined one's the larger of the two. Both
 * bodies run the same scene in the same process, one after the other, at
 * each H; the positions must end bit-identical. Writes overlap.csv and
 * README.md. */
#include <sinew/sinew.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "prep/cloth.h"
#include "prep/mesh.h"

#define FRAMES 60u

static const uint32_t sides[] = {64, 256};
static const double host_ms[] = {0.0, 2.0, 8.0};

static void busy(double ms)
{
    const double end = bench_now_s() + ms * 1e-3;
    while (bench_now_s() < end) {
    }
}

static sinew_asset *cloth(uint32_t side)
{
    sinew_mesh m;
    const double origin[3] = {0.0, 1.0, 0.0};
    sinew_asset *a = NULL;
    if (sinew_mesh_grid(side, side, 1.6, 1.6, SINEW_GRID_XZ, origin, &m) != SINEW_RESULT_OK)
        return NULL;
    sinew_cloth_options opt = sinew_cloth_options_default();
    uint32_t pins[2] = {0, side - 1};
    opt.pin_indices = pins;
    opt.pin_count = 2;
    sinew_cloth_build(&m, &opt, NULL, &a, NULL);
    sinew_mesh_free(&m);
    return a;
}

/* Frames of `side`'s cloth with `host` ms of host work each: wall ms per
 * frame, and a checksum of the positions at the end. */
static int frames(sinew_context *ctx, const sinew_asset *a, int pipelined, double host, double *ms, uint32_t *sum)
{
    sinew_body_desc d = sinew_body_desc_default();
    d.pipelined = pipelined;
    d.substeps = 16;
    sinew_body *b = NULL;
    if (sinew_body_create(ctx, a, &d, &b) != SINEW_RESULT_OK)
        return 0;
    sinew_step_params p = sinew_step_params_default();
    sinew_result r = sinew_body_step(b, &p); /* warm-up */
    const double t0 = bench_now_s();
    for (uint32_t f = 0; f < FRAMES && r == SINEW_RESULT_OK; f++) {
        r = sinew_body_step(b, &p);
        busy(host);
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_body_wait(b);
    *ms = 1e3 * (bench_now_s() - t0) / FRAMES;
    const uint32_t n = sinew_body_get_particle_count(b);
    float *x = malloc(12ull * n);
    if (x && r == SINEW_RESULT_OK)
        r = sinew_body_read_positions(b, x, n);
    *sum = 0;
    for (uint64_t i = 0; x && i < 3ull * n; i++) {
        uint32_t bits;
        memcpy(&bits, &x[i], 4);
        *sum = *sum * 31u + bits;
    }
    free(x);
    sinew_body_destroy(b);
    return r == SINEW_RESULT_OK;
}

static int run_overlap(sinew_context *ctx, const void *options, const char *out)
{
    const int dry = *(const int *)options;
    FILE *csv, *md;
    if (!bench_open_results(out, "overlap.csv", &csv, &md))
        return 0;
    fprintf(csv, "particles,host_ms,waiting_ms_per_frame,pipelined_ms_per_frame,identical\n");
    fprintf(md, "# sinew-bench: overlap suite on %s\n\n", sinew_context_get_device_info(ctx).name);
    fprintf(md, "A pinned cloth (XPBD, 16 substeps x 1 iteration, 1/60 s steps), %u frames each followed by the "
                "given host work (a busy loop standing in for the rest of a game's frame): the wall time per frame "
                "of a body that waits for each step and of a pipelined one (`desc.pipelined`), which finishes a step "
                "only when the next begins. Same scene, same process, one after the other; the positions at the "
                "end must be bit-identical.\n\n",
            FRAMES);
    fprintf(md, "| particles | host work ms | waiting ms / frame | pipelined ms / frame | saved | identical |\n"
                "|---|---|---|---|---|---|\n");
    int ok = 1;
    for (size_t s = 0; s < sizeof sides / sizeof sides[0] && ok; s++) {
        sinew_asset *a = cloth(dry ? 8 : sides[s]);
        if (!a)
            return fclose(csv), fclose(md), 0;
        for (size_t h = 0; h < sizeof host_ms / sizeof host_ms[0] && ok; h++) {
            double ms[2];
            uint32_t sum[2];
            for (int pipelined = 0; pipelined < 2 && ok; pipelined++)
                ok = frames(ctx, a, pipelined, host_ms[h], &ms[pipelined], &sum[pipelined]);
            if (!ok)
                break;
            const int same = sum[0] == sum[1];
            ok = same;
            fprintf(csv, "%u,%.1f,%.3f,%.3f,%d\n", a->particle_count, host_ms[h], ms[0], ms[1], same);
            fprintf(md, "| %u | %.1f | %.2f | %.2f | %.0f %% | %s |\n", a->particle_count, host_ms[h], ms[0], ms[1],
                    100.0 * (1.0 - ms[1] / ms[0]), same ? "yes" : "NO");
            fprintf(stderr, "sinew-bench: overlap %6u particles, host %4.1f ms: waiting %8.2f ms, pipelined %8.2f ms%s\n",
                    a->particle_count, host_ms[h], ms[0], ms[1], same ? "" : " (positions differ)");
        }
        sinew_asset_destroy(a);
    }
    fclose(csv);
    fclose(md);
    return ok;
}

int bench_overlap_suite(const bench_args *a)
{
    static int dry;
    dry = a->dry_run;
    return bench_on_device(a, "overlap", run_overlap, &dry);
}
