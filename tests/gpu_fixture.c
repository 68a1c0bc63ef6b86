#include "gpu_fixture.h"

#include "asset/asset.h"
#include "prep/intersect.h"

#include "prep/hierarchy.h"
#include "prep/mesh.h"
#include "prep/nested.h"
#include "prep/redblack.h"
#include "prep/soft.h"
#include "prep/volume.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sinew_context *gpu_ctx;

static char log_text[1 << 16];
static size_t log_len;
static int log_errors;

static void on_log(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    if (level <= SINEW_LOG_WARNING) {
        log_errors++;
        fprintf(stderr, "[%s] %s\n", id, message);
    }
    int n = snprintf(log_text + log_len, sizeof log_text - log_len, "[%s] %s\n", id, message);
    if (n > 0 && log_len + (size_t)n < sizeof log_text)
        log_len += (size_t)n;
}

static sinew_logger logger = {on_log, NULL, SINEW_LOG_INFO};

const sinew_logger *gpu_logger(void) { return &logger; }
int gpu_error_count(void) { return log_errors; }
int gpu_log_contains(const char *text) { return strstr(log_text, text) != NULL; }
const char *gpu_log_text(void) { return log_text; }
void gpu_log_clear(void)
{
    log_len = 0;
    log_text[0] = '\0';
    log_errors = 0;
}

void gpu_setup(void)
{
    gpu_log_clear();
    sinew_context_desc d = sinew_context_desc_default();
    d.logger = logger;
    d.validation = 1;
    sinew_result r = sinew_context_create(&d, &gpu_ctx);
    cr_assert_eq(r, SINEW_RESULT_OK, "context: %s\n%s", sinew_result_string(r), log_text);
    /* The suite runs twice, the second time with SINEW_LIMITS=portable. */
    const char *limits = getenv("SINEW_LIMITS");
    int want = limits && !strcmp(limits, "portable") ? SINEW_LIMITS_PORTABLE : SINEW_LIMITS_DEVICE;
    cr_assert_eq(sinew_context_get_device_info(gpu_ctx).limits, want, "SINEW_LIMITS=%s not in effect",
                 limits ? limits : "");
}

void gpu_resolve_layout(const sinew_asset *asset, sinew_body_desc *d)
{
    if (d->sweep_layout != SINEW_SWEEP_LAYOUT_DEFAULT)
        return;
    int cpu = sinew_context_get_device_info(gpu_ctx).type == 4; /* VK_PHYSICAL_DEVICE_TYPE_CPU */
    d->sweep_layout = sinew_asset_get_info(asset).cluster_passes && !cpu ? SINEW_SWEEP_LAYOUT_CLUSTERS
                                                                         : SINEW_SWEEP_LAYOUT_COLOURS;
}

void gpu_teardown(void)
{
    uint32_t messages = gpu_ctx ? sinew_context_get_validation_message_count(gpu_ctx) : 0;
    int before = gpu_error_count();
    sinew_context_destroy(gpu_ctx);
    gpu_ctx = NULL;
    cr_expect_eq(messages, 0, "%u validation messages:\n%s", messages, log_text);
    /* Objects still alive at vkDestroyDevice are reported by the layer then. */
    cr_expect_eq(gpu_error_count(), before, "messages while destroying the context (leaked objects?):\n%s",
                 log_text);
}

sinew_asset *gpu_make_cloth(uint32_t nx, uint32_t ny, double size, double y, int pin_corners)
{
    return gpu_make_cloth_clustered(nx, ny, size, y, pin_corners, SINEW_CLUSTER_DEFAULT_PARTICLES);
}

sinew_asset *gpu_make_cloth_clustered(uint32_t nx, uint32_t ny, double size, double y, int pin_corners,
                                      uint32_t cluster_particles)
{
    sinew_mesh mesh;
    double origin[3] = {0.0, y, 0.0};
    cr_assert_eq(sinew_mesh_grid(nx, ny, size, size, SINEW_GRID_XZ, origin, &mesh), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.cluster_particles = cluster_particles;
    uint32_t pins[2] = {0, nx - 1};
    if (pin_corners) {
        opt.pin_indices = pins;
        opt.pin_count = 2;
    }
    sinew_asset *asset = NULL;
    sinew_result r = sinew_cloth_build(&mesh, &opt, &logger, &asset, NULL);
    sinew_mesh_free(&mesh);
    cr_assert_eq(r, SINEW_RESULT_OK, "cloth build: %s", log_text);
    return asset;
}

sinew_context *gpu_make_staged_context(void)
{
    sinew_context_desc cd = sinew_context_desc_default();
    cd.logger = logger;
    cd.validation = 1;
    cd.memory = SINEW_MEMORY_MODEL_DISCRETE;
    sinew_context *ctx = NULL;
    cr_assert_eq(sinew_context_create(&cd, &ctx), SINEW_RESULT_OK);
    return ctx;
}

/* The kind of asset a solver steps: a small cloth (with a hierarchy for HPBD,
 * red-black for PD, nested levels for the implicit solvers) or a soft block. */
sinew_asset *gpu_make_solver_asset(sinew_solver solver)
{
    sinew_asset *a = NULL;
    const sinew_logger *lg = gpu_logger();
    if (solver == SINEW_SOLVER_GPBD_GAUSS_SEIDEL || solver == SINEW_SOLVER_GPBD_JACOBI || solver == SINEW_SOLVER_MGPBD) {
        sinew_volume v;
        const double size[3] = {0.3, 0.3, 0.3}, origin[3] = {0.0, 0.5, 0.0};
        cr_assert_eq(sinew_volume_box(4, 4, 4, size, origin, &v), SINEW_RESULT_OK);
        sinew_soft_options opt = sinew_soft_options_default();
        cr_assert_eq(sinew_soft_build(&v, &opt, lg, &a, NULL), SINEW_RESULT_OK);
        sinew_volume_free(&v);
    } else if (solver == SINEW_SOLVER_IMPLICIT_MG || solver == SINEW_SOLVER_IMPLICIT_PCG) {
        sinew_mesh m;
        const double origin[3] = {0.0, 1.0, 0.0};
        cr_assert_eq(sinew_mesh_grid(3, 3, 1.0, 1.0, SINEW_GRID_XZ, origin, &m), SINEW_RESULT_OK);
        cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
        sinew_cloth_options opt = sinew_cloth_options_default();
        uint32_t pins[2] = {0, 2};
        opt.pin_indices = pins;
        opt.pin_count = 2;
        cr_assert_eq(sinew_nested_cloth(&m, 2, &opt, lg, NULL, &a), SINEW_RESULT_OK);
        sinew_mesh_free(&m);
    } else if (solver == SINEW_SOLVER_PD_RED_BLACK || solver == SINEW_SOLVER_PD_JACOBI ||
               solver == SINEW_SOLVER_PD_CHEBYSHEV) {
        sinew_mesh m;
        const double origin[3] = {0.0, 1.0, 0.0};
        cr_assert_eq(sinew_mesh_grid(12, 12, 1.0, 1.0, SINEW_GRID_XZ, origin, &m), SINEW_RESULT_OK);
        sinew_cloth_options opt = sinew_cloth_options_default();
        uint32_t pins[2] = {0, 11};
        opt.pin_indices = pins;
        opt.pin_count = 2;
        opt.shear = 0;
        opt.bending = 0;
        cr_assert_eq(sinew_cloth_build(&m, &opt, lg, &a, NULL), SINEW_RESULT_OK);
        sinew_mesh_free(&m);
        cr_assert_eq(sinew_redblack_asset(a, "cloth", lg, NULL), SINEW_RESULT_OK);
    } else {
        a = gpu_make_cloth(12, 12, 1.0, 1.0, 1);
        if (solver == SINEW_SOLVER_HPBD) {
            sinew_hierarchy_options o = sinew_hierarchy_options_default();
            o.min_particles = 8;
            cr_assert_eq(sinew_hierarchy_build(a, &o, lg, NULL), SINEW_RESULT_OK);
        }
    }
    return a;
}

/* `layers` square grids of nx x nx particles, `size` m wide, horizontal,
 * the lowest at height y, each `gap` above the one before; the layers turned
 * by `twist` rad each about the vertical so that their grids do not line up. */
static sinew_asset *turned_layers(uint32_t nx, double size, double y, uint32_t layers, double gap, double twist,
                                  double turn)
{
    sinew_mesh one;
    double origin[3] = {0.0, 0.0, 0.0};
    cr_assert_eq(sinew_mesh_grid(nx, nx, size, size, SINEW_GRID_XZ, origin, &one), SINEW_RESULT_OK);
    sinew_mesh m = {0};
    m.vertex_count = one.vertex_count * layers;
    m.face_count = one.face_count * layers;
    m.positions = malloc(sizeof *m.positions * 3 * m.vertex_count);
    m.face_offsets = malloc(sizeof *m.face_offsets * (m.face_count + 1));
    m.face_indices = malloc(sizeof *m.face_indices * one.face_offsets[one.face_count] * layers);
    uint32_t fi = 0;
    m.face_offsets[0] = 0;
    for (uint32_t l = 0; l < layers; l++) {
        double c = cos(turn + twist * l), s = sin(turn + twist * l);
        for (uint32_t v = 0; v < one.vertex_count; v++) {
            const double *p = &one.positions[3 * v];
            double *q = &m.positions[3 * (l * one.vertex_count + v)];
            q[0] = c * p[0] - s * p[2];
            q[1] = y + gap * l;
            q[2] = s * p[0] + c * p[2];
        }
        for (uint32_t f = 0; f < one.face_count; f++) {
            for (uint32_t k = one.face_offsets[f]; k < one.face_offsets[f + 1]; k++)
                m.face_indices[fi++] = one.face_indices[k] + l * one.vertex_count;
            m.face_offsets[l * one.face_count + f + 1] = fi;
        }
    }
    sinew_mesh_free(&one);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.free_parts = 1;
    sinew_asset *asset = NULL;
    cr_assert_eq(sinew_cloth_build(&m, &opt, gpu_logger(), &asset, NULL), SINEW_RESULT_OK);
    sinew_mesh_free(&m);
    return asset;
}

sinew_asset *gpu_layered_cloth(uint32_t nx, double size, double y, uint32_t layers, double gap, double twist)
{
    return turned_layers(nx, size, y, layers, gap, twist, 0.0);
}

sinew_asset *gpu_turned_cloth(uint32_t nx, double size, double y, double turn)
{
    return turned_layers(nx, size, y, 1, 0.0, 0.0, turn);
}

/* Triangle pairs of body a's surface and body b's that intersect, from
 * their current positions (pairs within one body not counted). */
uint64_t gpu_crossings(sinew_body *a, const sinew_asset *aa, sinew_body *b, const sinew_asset *ab)
{
    uint32_t na = aa->particle_count, nb = ab->particle_count, ta = 0, tb = 0;
    const uint32_t *tra = sinew_asset_get_triangles(aa, &ta), *trb = sinew_asset_get_triangles(ab, &tb);
    float *x = malloc(sizeof *x * 3 * (na + nb));
    uint32_t *tris = malloc(sizeof *tris * 3 * (ta + tb));
    cr_assert_eq(sinew_body_read_positions(a, x, na), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(b, x + 3 * na, nb), SINEW_RESULT_OK);
    memcpy(tris, tra, sizeof *tris * 3 * ta);
    for (uint32_t k = 0; k < 3 * tb; k++)
        tris[3 * ta + k] = trb[k] + na;
    sinew_intersect_report all, one;
    cr_assert_eq(sinew_count_intersections(x, na + nb, tris, ta + tb, gpu_logger(), &all), SINEW_RESULT_OK);
    uint64_t within = 0;
    cr_assert_eq(sinew_count_intersections(x, na, tris, ta, gpu_logger(), &one), SINEW_RESULT_OK);
    within += one.pairs;
    cr_assert_eq(sinew_count_intersections(x, na + nb, tris + 3 * ta, tb, gpu_logger(), &one), SINEW_RESULT_OK);
    within += one.pairs;
    free(x);
    free(tris);
    return all.pairs - within;
}
