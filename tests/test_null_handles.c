/* NULL handles and pointers: every public function (each SINEW_API and
 * SINEW_PREP_API declaration of the headers include/sinew/, read by
 * tests/null_calls.cmake at build time) called once for each of its pointer
 * parameters with NULL there and a valid value everywhere else. A NULL is a
 * programmer error, so each call must reach the assert hook, which here
 * records it and jumps back; a crash is caught and reported. The NULLs the
 * headers allow are listed below with the reason, and those calls must
 * return without reaching the hook. */
#include "gpu_fixture.h"

#include "asset/merge.h"

#include <sinew/prep.h>
#include <sinew/vulkan.h>

#include <criterion/criterion.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

typedef struct null_call {
    const char *function;
    const char *param;
    int (*call)(void); /* the sinew_result returned, -1 for other return types */
} null_call;

/* What a call with an allowed NULL does. */
typedef enum null_allowance {
    NULL_IGNORED, /* the argument is optional: any result */
    NULL_REFUSED, /* refused with SINEW_RESULT_ERROR_INVALID_ARGUMENT */
} null_allowance;

/* A function name or parameter ending in '*' matches by prefix; the first
 * entry matching a call decides. */
typedef struct null_allowed {
    const char *function;
    const char *param;
    null_allowance how;
    const char *why;
} null_allowed;

static const null_allowed allowed[] = {
    {"sinew_*", "logger", NULL_IGNORED, "a NULL logger sends warnings and errors to stderr"},
    {"sinew_*_destroy", "*", NULL_IGNORED, "destroying NULL does nothing"},
    {"sinew_prep_output_free", "out", NULL_IGNORED, "freeing NULL does nothing"},
    {"sinew_set_assert_hook", "fn", NULL_IGNORED, "NULL restores the default hook, abort()"},
    {"sinew_solver_from_name", "name", NULL_REFUSED, "NULL names no solver"},
    {"sinew_asset_get_render_map", "particles", NULL_IGNORED, "either array may be NULL"},
    {"sinew_asset_get_render_map", "weights", NULL_IGNORED, "either array may be NULL"},
    {"sinew_asset_get_render_rest", "positions", NULL_IGNORED, "either array may be NULL"},
    {"sinew_asset_get_render_rest", "normals", NULL_IGNORED, "either array may be NULL"},
    {"sinew_asset_get_material_library", "text", NULL_IGNORED, "either output may be NULL"},
    {"sinew_asset_get_material_library", "size", NULL_IGNORED, "either output may be NULL"},
    {"sinew_collider_distance", "normal", NULL_IGNORED, "the normal is optional"},
    {"sinew_body_cut", "cut", NULL_IGNORED, "the count of constraints cut is optional"},
    {"sinew_prep_*_asset", "report", NULL_IGNORED, "the report is optional"},
    {"sinew_prep_soft_asset", "volume", NULL_IGNORED, "volume or surface, the other NULL"},
    {"sinew_prep_soft_asset", "surface", NULL_IGNORED, "volume or surface, the other NULL"},
    {"sinew_prep_*", "*", NULL_REFUSED, "the prep library takes untrusted input: a NULL is refused (prep.h)"},
};
#define ALLOWED_COUNT (sizeof allowed / sizeof allowed[0])

/* ------------------------------------------------------------ the arguments */

/* A valid value of every type a public function takes. */
static struct {
    sinew_context *ctx;
    sinew_asset *asset;
    sinew_body *body;
    sinew_world *world;
    sinew_collider *collider;
    sinew_body *others[1];
    sinew_context_desc ctx_desc;
    sinew_vulkan_device vk;
    sinew_body_desc body_desc;
    sinew_world_desc world_desc;
    sinew_collider_desc collider_desc;
    sinew_step_params params;
    sinew_static_error static_error;
    sinew_material material;
    sinew_render_material render_material;
    const char *text_out;
    size_t size_out;
    sinew_device_probe probe;
    sinew_solver solver;
    uint64_t u64;
    char text[4096];             /* a path (absent) and the text of a fabric */
    unsigned char bytes[4096];
    float f32[4096];
    double f64[16];
    uint32_t u32_in[4096], u32_out[4096];
    sinew_prep_mesh mesh;
    sinew_prep_volume volume;
    sinew_prep_grid grid;
    sinew_prep_cloth_options cloth_options;
    sinew_prep_soft_options soft_options;
    sinew_prep_output output;
    sinew_prep_report report;
    /* what a call that ran through made, destroyed after it */
    sinew_context *made_ctx;
    sinew_asset *made_asset;
    sinew_body *made_body;
    sinew_world *made_world;
    sinew_collider *made_collider;
} fx;

/* The command buffer is never recorded into: each call given it refuses a
 * NULL elsewhere first. */
#define ARG_VkCommandBuffer ((VkCommandBuffer)(uintptr_t)0x10)
#define ARG_const_char_p fx.text
#define ARG_const_double_p fx.f64
#define ARG_double_p fx.f64
#define ARG_const_float_p fx.f32
#define ARG_float_p fx.f32
#define ARG_const_uint32_t_p fx.u32_in
#define ARG_uint32_t_p fx.u32_out
#define ARG_const_void_p fx.bytes
#define ARG_void_p fx.bytes
#define ARG_uint64_t_p (&fx.u64)
#define ARG_size_t ((size_t)64)
#define ARG_uint32_t ((uint32_t)16)
#define ARG_uint64_t ((uint64_t)0)
#define ARG_int 0
#define ARG_sinew_prep_colouring SINEW_PREP_COLOURING_GREEDY
#define ARG_const_sinew_logger_p gpu_logger()
#define ARG_sinew_context_p fx.ctx
#define ARG_sinew_context_p_p (&fx.made_ctx)
#define ARG_const_sinew_context_desc_p (&fx.ctx_desc)
#define ARG_const_sinew_vulkan_device_p (&fx.vk)
#define ARG_sinew_device_probe_p (&fx.probe)
#define ARG_const_sinew_asset_p fx.asset
#define ARG_sinew_asset_p fx.asset
#define ARG_sinew_asset_p_p (&fx.made_asset)
#define ARG_sinew_body_p fx.body
#define ARG_const_sinew_body_p fx.body
#define ARG_sinew_body_p_p (&fx.made_body)
#define ARG_sinew_body_p_const_p fx.others
#define ARG_const_sinew_body_desc_p (&fx.body_desc)
#define ARG_const_sinew_step_params_p (&fx.params)
#define ARG_sinew_static_error_p (&fx.static_error)
#define ARG_sinew_world_p fx.world
#define ARG_sinew_world_p_p (&fx.made_world)
#define ARG_const_sinew_world_desc_p (&fx.world_desc)
#define ARG_const_sinew_collider_p fx.collider
#define ARG_sinew_collider_p_p (&fx.made_collider)
#define ARG_const_sinew_collider_desc_p (&fx.collider_desc)
#define ARG_const_sinew_material_p (&fx.material)
#define ARG_sinew_material_p (&fx.material)
#define ARG_sinew_render_material_p (&fx.render_material)
#define ARG_const_char_p_p (&fx.text_out)
#define ARG_size_t_p (&fx.size_out)
#define ARG_sinew_solver_p (&fx.solver)
#define ARG_const_sinew_prep_mesh_p (&fx.mesh)
#define ARG_const_sinew_prep_volume_p (&fx.volume)
#define ARG_const_sinew_prep_grid_p (&fx.grid)
#define ARG_const_sinew_prep_cloth_options_p (&fx.cloth_options)
#define ARG_const_sinew_prep_soft_options_p (&fx.soft_options)
#define ARG_sinew_prep_output_p (&fx.output)
#define ARG_const_sinew_prep_output_p (&fx.output)
#define ARG_sinew_prep_report_p (&fx.report)

static void hook_jump(const char *expression, const char *file, int line);
#define ARG_sinew_assert_fn hook_jump

#include "null_calls.h"

#define CALL_COUNT (sizeof null_calls / sizeof null_calls[0])

/* A cube with texture coordinates (the prep library's surface, and the
 * asset's) and a tetrahedron (the prep library's volume, the collider). */
static const float cube_xyz[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
static const float cube_uv[] = {0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1};
static const uint32_t cube_quads[] = {0, 3, 2, 1, 4, 5, 6, 7, 0, 1, 5, 4, 2, 3, 7, 6, 1, 2, 6, 5, 0, 4, 7, 3};
static const float tet_xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const uint32_t tet[] = {0, 1, 2, 3};
static const uint32_t tet_faces[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

/* The cube as a soft body and as a cloth, one asset: every array an asset
 * fills (tetrahedra, distances, the render mesh's) has a length. */
static void make_asset(void)
{
    sinew_asset *parts[2];
    sinew_merge_map maps[2];
    cr_assert_eq(sinew_prep_soft_asset(NULL, &fx.mesh, &fx.soft_options, gpu_logger(), &parts[0], NULL),
                 SINEW_RESULT_OK);
    cr_assert_eq(sinew_prep_cloth_asset(&fx.mesh, &fx.cloth_options, gpu_logger(), &parts[1], NULL), SINEW_RESULT_OK);
    cr_assert_eq(sinew_asset_merge((const sinew_asset *const *)parts, 2, gpu_logger(), &fx.asset, maps),
                 SINEW_RESULT_OK);
    for (int k = 0; k < 2; k++) {
        sinew_merge_map_free(&maps[k]);
        sinew_asset_destroy(parts[k]);
    }
    sinew_asset_info info = sinew_asset_get_info(fx.asset);
    cr_assert(info.tet_count && info.distance_count && sinew_asset_get_render_info(fx.asset).vertex_count);
}

static void make_prep_arguments(void)
{
    fx.mesh = sinew_prep_mesh_default();
    fx.mesh.vertex_count = 8;
    fx.mesh.positions = cube_xyz;
    fx.mesh.uvs = cube_uv;
    fx.mesh.quad_count = 6;
    fx.mesh.quads = cube_quads;
    fx.soft_options = sinew_prep_soft_options_default();
    fx.soft_options.mesher = SINEW_PREP_MESHER_LATTICE;
    fx.soft_options.lattice_cells = 2;
    fx.cloth_options = sinew_prep_cloth_options_default();
    fx.cloth_options.cluster_particles = 0;
    fx.volume = (sinew_prep_volume){.vertex_count = 4, .positions = tet_xyz, .tet_count = 1, .tets = tet};
    fx.grid = sinew_prep_grid_default();
    fx.grid.nx = fx.grid.ny = 4;
}

static void make_arguments(void)
{
    make_prep_arguments();
    make_asset();
    fx.ctx = gpu_ctx;
    sinew_asset *cloth = gpu_make_cloth(4, 4, 0.5, 0.5, 1);
    fx.body_desc = sinew_body_desc_default();
    cr_assert_eq(sinew_body_create(fx.ctx, cloth, &fx.body_desc, &fx.body), SINEW_RESULT_OK);
    sinew_asset_destroy(cloth);
    fx.others[0] = fx.body;
    fx.world_desc = sinew_world_desc_default();
    cr_assert_eq(sinew_world_create(fx.ctx, &fx.world_desc, &fx.world), SINEW_RESULT_OK);
    fx.collider_desc = sinew_collider_desc_default();
    fx.collider_desc.vertices = tet_xyz;
    fx.collider_desc.vertex_count = 4;
    fx.collider_desc.triangles = tet_faces;
    fx.collider_desc.triangle_count = 4;
    fx.collider_desc.resolution = 8;
    cr_assert_eq(sinew_collider_create(fx.ctx, &fx.collider_desc, &fx.collider), SINEW_RESULT_OK);
    fx.ctx_desc = sinew_context_desc_default();
    fx.ctx_desc.logger = *gpu_logger();
    fx.vk = sinew_context_get_vulkan(fx.ctx);
    fx.params = sinew_step_params_default();
    fx.material = sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e5f, 0.3f);
    snprintf(fx.text, sizeof fx.text, "%s/null_handles_absent.bin", SINEW_TEST_OUT_DIR);
}

/* Whatever a call that ran through made. */
static void free_made(void)
{
    sinew_body_destroy(fx.made_body);
    sinew_world_destroy(fx.made_world);
    sinew_collider_destroy(fx.made_collider);
    sinew_asset_destroy(fx.made_asset);
    sinew_context_destroy(fx.made_ctx);
    sinew_prep_output_free(&fx.output);
    fx.made_body = NULL;
    fx.made_world = NULL;
    fx.made_collider = NULL;
    fx.made_asset = NULL;
    fx.made_ctx = NULL;
}

static void free_arguments(void)
{
    free_made();
    sinew_world_destroy(fx.world);
    sinew_body_destroy(fx.body);
    sinew_collider_destroy(fx.collider);
    sinew_asset_destroy(fx.asset);
}

/* ------------------------------------------------------------ the calls */

static sigjmp_buf back;

enum { RETURNED, ASSERTED, CRASHED };

static void hook_jump(const char *expression, const char *file, int line)
{
    (void)expression;
    (void)file;
    (void)line;
    siglongjmp(back, ASSERTED);
}

static void on_crash(int sig)
{
    (void)sig;
    siglongjmp(back, CRASHED);
}

/* How the call ended (RETURNED, ASSERTED, CRASHED) and what it returned. */
static int run_call(const null_call *c, int *result)
{
    struct sigaction sa = {0}, old_segv, old_bus;
    sa.sa_handler = on_crash;
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    sinew_set_assert_hook(hook_jump);
    *result = -1;
    int how = sigsetjmp(back, 1);
    if (how == RETURNED)
        *result = c->call();
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    sinew_set_assert_hook(hook_jump);
    free_made();
    return how;
}

static int matches(const char *pattern, const char *name)
{
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '*')
        return !strncmp(pattern, name, n - 1);
    return !strcmp(pattern, name);
}

/* "sinew_*_destroy": a prefix, a '*' and a suffix. */
static int matches_function(const char *pattern, const char *name)
{
    const char *star = strchr(pattern, '*');
    if (!star || star[1] == '\0')
        return matches(pattern, name);
    size_t head = (size_t)(star - pattern), tail = strlen(star + 1), n = strlen(name);
    return n >= head + tail && !strncmp(pattern, name, head) && !strcmp(name + n - tail, star + 1);
}

static const null_allowed *allowance(const null_call *c, unsigned char *used)
{
    for (size_t k = 0; k < ALLOWED_COUNT; k++)
        if (matches_function(allowed[k].function, c->function) && matches(allowed[k].param, c->param)) {
            used[k] = 1;
            return &allowed[k];
        }
    return NULL;
}

static char report[1 << 14];
static size_t report_len;

static void fail(const null_call *c, const char *what)
{
    int n = snprintf(report + report_len, sizeof report - report_len, "  %s(%s = NULL): %s\n", c->function, c->param,
                     what);
    if (n > 0 && report_len + (size_t)n < sizeof report)
        report_len += (size_t)n;
}

static void check_call(const null_call *c, unsigned char *used)
{
    const null_allowed *a = allowance(c, used);
    int result;
    int how = run_call(c, &result);
    char what[160];
    if (how == CRASHED)
        fail(c, "crashed");
    else if (!a && how == RETURNED)
        fail(c, "returned without reaching the assert hook");
    else if (a && how == ASSERTED) {
        snprintf(what, sizeof what, "reached the assert hook, but the NULL is allowed (%s)", a->why);
        fail(c, what);
    } else if (a && a->how == NULL_REFUSED && result != SINEW_RESULT_ERROR_INVALID_ARGUMENT) {
        snprintf(what, sizeof what, "returned %d, not INVALID_ARGUMENT (%s)", result, a->why);
        fail(c, what);
    }
}

TestSuite(null_handles, .init = gpu_setup, .fini = gpu_teardown);

Test(null_handles, every_public_function_asserts_on_null)
{
    make_arguments();
    unsigned char used[ALLOWED_COUNT] = {0};
    for (size_t i = 0; i < CALL_COUNT; i++)
        check_call(&null_calls[i], used);
    free_arguments();
    sinew_set_assert_hook(NULL);
    for (size_t k = 0; k < ALLOWED_COUNT; k++)
        cr_expect(used[k], "allowed NULL %s(%s) matches no public function's parameter", allowed[k].function,
                  allowed[k].param);
    cr_assert(report_len == 0, "of %zu calls to %d public functions with a NULL:\n%s", CALL_COUNT,
              NULL_FUNCTION_COUNT, report);
}
