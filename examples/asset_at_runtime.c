/* asset_at_runtime: a cloth built while the program runs, from a mesh it made.
 *
 * A game may generate its cloth (a flag sized to its pole, a tablecloth for
 * the table in front of it) rather than ship a .snw file. This program makes
 * a disc of triangles in its own arrays, turns it into a cloth asset with the
 * asset-building library (sinew/prep.h, no files involved), loads it, and
 * drops it onto a sphere, where it drapes (after a second; left longer, it
 * slides off).
 *
 *     asset_at_runtime [OUT.snw] [--no-validation]
 *
 * OUT.snw, if given, receives the asset, for sinew-sim or sinew-viewer.
 * Exits 0 when everything succeeded, the disc rests on the sphere with its
 * rim hanging below, and the validation layer reported nothing. */
#include <sinew/prep.h>
#include <sinew/sinew.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RINGS 12          /* rings of vertices around the centre */
#define SEGMENTS 48       /* vertices on each ring */
#define RADIUS 0.5        /* m, of the disc */
#define HEIGHT 1.0        /* m, where it starts */
#define STEPS 60          /* one second */
#define PI 3.14159265358979323846

static const float sphere_centre[3] = {0.0f, 0.5f, 0.0f};
static const float sphere_radius = 0.25f;

static unsigned warnings;
static void on_log(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    if (level <= SINEW_LOG_WARNING)
        warnings++;
    fprintf(stderr, "sinew [%s]: %s\n", id, message);
}

/* The program's own mesh, as it might hold one for drawing: positions (here
 * in double), texture coordinates, and triangles. */
typedef struct disc {
    uint32_t vertex_count, triangle_count;
    double *xyz;
    float *uv;
    uint32_t *triangles;
} disc;

/* Vertex 0 is the centre; ring r (1..RINGS), segment s is 1 + (r-1) SEGMENTS + s. */
static uint32_t ring_vertex(uint32_t r, uint32_t s) { return 1 + (r - 1) * SEGMENTS + s % SEGMENTS; }

static int disc_make(disc *d)
{
    d->vertex_count = 1 + RINGS * SEGMENTS;
    d->triangle_count = SEGMENTS + (RINGS - 1) * SEGMENTS * 2;
    d->xyz = malloc(sizeof *d->xyz * 3 * d->vertex_count);
    d->uv = malloc(sizeof *d->uv * 2 * d->vertex_count);
    d->triangles = malloc(sizeof *d->triangles * 3 * d->triangle_count);
    if (!d->xyz || !d->uv || !d->triangles)
        return 0;
    for (uint32_t v = 0; v < d->vertex_count; v++) {
        uint32_t r = v == 0 ? 0 : 1 + (v - 1) / SEGMENTS, s = v == 0 ? 0 : (v - 1) % SEGMENTS;
        double a = 2.0 * PI * s / SEGMENTS, rho = RADIUS * r / RINGS;
        d->xyz[3 * v + 0] = rho * cos(a);
        d->xyz[3 * v + 1] = HEIGHT;
        d->xyz[3 * v + 2] = rho * sin(a);
        d->uv[2 * v + 0] = (float)(0.5 + 0.5 * d->xyz[3 * v] / RADIUS);
        d->uv[2 * v + 1] = (float)(0.5 + 0.5 * d->xyz[3 * v + 2] / RADIUS);
    }
    /* Wound counter-clockwise seen from above (+y): the normals point up. */
    uint32_t *t = d->triangles;
    for (uint32_t s = 0; s < SEGMENTS; s++) {
        *t++ = 0, *t++ = ring_vertex(1, s + 1), *t++ = ring_vertex(1, s);
        for (uint32_t r = 1; r < RINGS; r++) {
            uint32_t a = ring_vertex(r, s), b = ring_vertex(r, s + 1);
            uint32_t c = ring_vertex(r + 1, s), e = ring_vertex(r + 1, s + 1);
            *t++ = a, *t++ = b, *t++ = c;
            *t++ = b, *t++ = e, *t++ = c;
        }
    }
    return 1;
}

static void disc_free(disc *d)
{
    free(d->xyz);
    free(d->uv);
    free(d->triangles);
}

int main(int argc, char **argv)
{
    const char *out_path = NULL;
    int validation = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-validation"))
            validation = 0;
        else if (argv[i][0] != '-' && !out_path)
            out_path = argv[i];
        else {
            fprintf(stderr, "usage: asset_at_runtime [OUT.snw] [--no-validation]\n");
            return 2;
        }
    }
    sinew_logger logger = sinew_logger_default();
    logger.fn = on_log;
    logger.level = SINEW_LOG_WARNING;

    disc d = {0};
    if (!disc_make(&d)) {
        fprintf(stderr, "asset_at_runtime: out of memory\n");
        disc_free(&d);
        return 1;
    }

    /* 1. Describe the mesh to sinew: its arrays are only read during the call. */
    sinew_prep_mesh mesh = sinew_prep_mesh_default();
    mesh.vertex_count = d.vertex_count;
    mesh.positions_f64 = d.xyz;
    mesh.triangle_count = d.triangle_count;
    mesh.triangles = d.triangles;
    mesh.uvs = d.uv; /* kept as the asset's render mesh, for drawing (cloth_in_renderer) */

    /* 2. The cloth's options: what `sinew-prep` takes on its command line. A
     *    light fabric (80 g/m^2), bending constraints on (the default), free of
     *    pins: it falls as a whole. The 48 triangles around the centre make
     *    its constraints need many colours (one Gauss-Seidel dispatch each);
     *    the clustered sweeps, on by default, run them in a few dispatches. */
    sinew_prep_cloth_options options = sinew_prep_cloth_options_default();
    options.name = "disc";
    options.density = 0.08;

    /* 3. Build. The bytes are an asset file in memory; write them out if asked,
     *    then load them as sinew_asset_load would load the file. */
    sinew_prep_output built;
    sinew_result r = sinew_prep_cloth(&mesh, &options, &logger, &built);
    disc_free(&d); /* sinew keeps nothing of the mesh */
    if (r == SINEW_RESULT_OK)
        printf("asset_at_runtime: built %zu bytes: %u particles, %u stretch + %u shear + %u bend constraints in "
               "%u colours, %u clustered passes, %.4f kg\n",
               built.size, built.report.particle_count, built.report.stretch_count, built.report.shear_count,
               built.report.bend_count, built.report.colour_count, built.report.cluster_passes,
               built.report.total_mass);
    if (r == SINEW_RESULT_OK && out_path)
        r = sinew_prep_output_write(&built, out_path, &logger);
    sinew_asset *asset = NULL;
    if (r == SINEW_RESULT_OK)
        r = sinew_asset_load_memory(built.bytes, built.size, "disc", &logger, &asset);
    sinew_prep_output_free(&built);

    /* 4. Simulate it as any other asset: a context, a body, steps. */
    sinew_context *ctx = NULL;
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger = logger;
    cd.validation = validation;
    if (r == SINEW_RESULT_OK)
        r = sinew_context_create(&cd, &ctx);
    sinew_body *body = NULL;
    sinew_body_desc bd = sinew_body_desc_default();
    if (r == SINEW_RESULT_OK)
        r = sinew_body_create(ctx, asset, &bd, &body);
    sinew_step_params params = sinew_step_params_default();
    params.sphere = 1;
    memcpy(params.sphere_center, sphere_centre, sizeof sphere_centre);
    params.sphere_radius = sphere_radius;
    for (int s = 0; s < STEPS && r == SINEW_RESULT_OK; s++)
        r = sinew_body_step(body, &params);

    /* 5. Where did it land? The centre (particle 0: the builder keeps the
     *    mesh's vertex order) on top of the sphere, the rim hanging around it. */
    uint32_t n = body ? sinew_body_get_particle_count(body) : 0;
    float *xyz = malloc(sizeof *xyz * 3 * (n + 1u));
    if (r == SINEW_RESULT_OK && !xyz)
        r = SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_RESULT_OK)
        r = sinew_body_read_positions(body, xyz, n);
    int ok = r == SINEW_RESULT_OK;
    if (ok) {
        double top = sphere_centre[1] + sphere_radius, centre = xyz[1], rim = 0.0;
        for (uint32_t s = 0; s < SEGMENTS; s++)
            rim += xyz[3 * ring_vertex(RINGS, s) + 1] / SEGMENTS;
        printf("asset_at_runtime: after %d steps the centre is at %.3f m (the sphere's top %.3f m), the rim at "
               "%.3f m on average; %u validation messages\n",
               STEPS, centre, top, rim, sinew_context_get_validation_message_count(ctx));
        ok = fabs(centre - top) < 0.03 && rim < centre - 0.1;
        if (!ok)
            fprintf(stderr, "asset_at_runtime: the disc did not drape over the sphere\n");
    } else {
        fprintf(stderr, "asset_at_runtime: %s\n", sinew_result_string(r));
    }
    unsigned messages = ctx ? sinew_context_get_validation_message_count(ctx) : 0;
    free(xyz);
    sinew_body_destroy(body);
    sinew_context_destroy(ctx);
    sinew_asset_destroy(asset);
    return ok && messages == 0 && warnings == 0 ? 0 : 1;
}
