/* Clustered sweeps (prep/clusters.c, asset/cluster.c): the passes a sweep
 * takes on cloth grids and on real models, every asset valid and identical
 * from run to run, a round trip through the file, and each defect of the
 * sections refused by the loader's checks naming it. */
#include <criterion/criterion.h>

#include "prep/cloth.h"
#include "prep/clusters.h"
#include "prep/mesh.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char log_text[8192];

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    (void)level;
    (void)id;
    size_t used = strlen(log_text);
    snprintf(log_text + used, sizeof log_text - used, "%s\n", message);
}

static const sinew_logger quiet = {.level = SINEW_LOG_WARNING, .fn = capture_fn};

static sinew_asset *grid(uint32_t nx, uint32_t ny, uint32_t cluster_particles, sinew_cloth_report *rep)
{
    sinew_mesh mesh;
    cr_assert_eq(sinew_mesh_grid(nx, ny, 1.0, 1.0, SINEW_GRID_XZ, NULL, &mesh), SINEW_RESULT_OK);
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.cluster_particles = cluster_particles;
    sinew_asset *a = NULL;
    log_text[0] = '\0';
    cr_assert_eq(sinew_cloth_build(&mesh, &opt, &quiet, &a, rep), SINEW_RESULT_OK, "%s", log_text);
    sinew_mesh_free(&mesh);
    return a;
}

/* The bound: a Gauss-Seidel iteration of the 64 x 64 cloth in at most
 * 4 dispatches, of a 256 x 256 one in at most 8, the contacts' one included. */
Test(clusters, grids_sweep_in_a_few_passes)
{
    static const struct { uint32_t n, most; } cases[] = {{64, 3}, {256, 7}, {16, 3}, {100, 7}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sinew_cloth_report rep;
        sinew_asset *a = grid(cases[i].n, cases[i].n, SINEW_CLUSTER_DEFAULT_PARTICLES, &rep);
        cr_log_info("%u x %u: %u passes (%u grown), %u clusters of %u..%u particles, in place of %u colours",
                    cases[i].n, cases[i].n, a->cpass_count, rep.clusters.grown_passes, a->cluster_count,
                    rep.clusters.smallest, rep.clusters.largest, a->colour_count);
        cr_assert_leq(a->cpass_count, cases[i].most, "%u x %u: %u passes", cases[i].n, cases[i].n, a->cpass_count);
        cr_assert_lt(a->cpass_count, a->colour_count);
        cr_assert_eq(rep.clusters.pass_count, a->cpass_count);
        cr_assert_leq(rep.clusters.largest, SINEW_CLUSTER_DEFAULT_PARTICLES);
        cr_assert_eq(sinew_asset_validate(a, "grid", &quiet), SINEW_RESULT_OK, "%s", log_text);
        sinew_asset_destroy(a);
    }
}

Test(clusters, every_size_valid_and_none_means_none)
{
    static const uint32_t sizes[] = {SINEW_CLUSTER_MIN_PARTICLES, 17, 64, 300, SINEW_CLUSTER_MAX_PARTICLES};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        sinew_cloth_report rep;
        sinew_asset *a = grid(40, 23, sizes[i], &rep);
        cr_assert_gt(a->cpass_count, 0);
        cr_assert_leq(rep.clusters.largest, sizes[i]);
        cr_assert_eq(a->citem_count, a->distance_count + a->bend_count);
        sinew_asset_destroy(a);
    }
    sinew_asset *a = grid(40, 23, 0, NULL);
    cr_assert_eq(a->cpass_count, 0);
    cr_assert_eq(a->cluster_count, 0);
    sinew_asset_destroy(a);
}

Test(clusters, sizes_out_of_range_refused)
{
    sinew_asset *a = grid(8, 8, 0, NULL);
    static const uint32_t bad[] = {0, SINEW_CLUSTER_MIN_PARTICLES - 1, SINEW_CLUSTER_MAX_PARTICLES + 1, 1u << 31};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        log_text[0] = '\0';
        cr_assert_eq(sinew_cluster_asset(a, bad[i], "grid", &quiet, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
        cr_assert(strstr(log_text, "the size must be"), "%s", log_text);
        cr_assert_eq(a->cpass_count, 0, "the asset is unchanged");
    }
    /* An asset the loader would refuse is refused, not clustered. */
    a->distances[3].b = a->particle_count;
    log_text[0] = '\0';
    cr_assert_eq(sinew_cluster_asset(a, 64, "broken", &quiet, NULL), SINEW_RESULT_ERROR_BAD_ASSET);
    cr_assert(strstr(log_text, "broken"), "%s", log_text);
    cr_assert_eq(a->cpass_count, 0);
    sinew_asset_destroy(a);
}

static void serialize(const sinew_asset *a, void **bytes, size_t *size)
{
    log_text[0] = '\0';
    cr_assert_eq(sinew_asset_serialize(a, bytes, size, &quiet), SINEW_RESULT_OK, "%s", log_text);
}

Test(clusters, deterministic_and_round_trip)
{
    sinew_asset *a = grid(50, 37, 128, NULL), *b = grid(50, 37, 128, NULL);
    void *x, *y;
    size_t nx, ny;
    serialize(a, &x, &nx);
    serialize(b, &y, &ny);
    cr_assert_eq(nx, ny);
    cr_assert_eq(memcmp(x, y, nx), 0, "the same mesh gives the same clusters");
    cr_assert_eq(((const uint8_t *)x)[6], 5, "format 1.5 with clusters");
    sinew_asset *back = NULL;
    cr_assert_eq(sinew_asset_load_memory(x, nx, "round trip", &quiet, &back), SINEW_RESULT_OK, "%s", log_text);
    cr_assert_eq(back->cpass_count, a->cpass_count);
    cr_assert_eq(memcmp(back->citems, a->citems, sizeof *a->citems * a->citem_count), 0);
    cr_assert_eq(memcmp(back->clusters, a->clusters, sizeof *a->clusters * a->cluster_count), 0);
    sinew_asset_info info = sinew_asset_get_info(back);
    cr_assert_eq(info.cluster_passes, a->cpass_count);
    cr_assert_eq(info.cluster_count, a->cluster_count);
    free(x);
    free(y);
    sinew_asset_destroy(back);
    sinew_asset_destroy(a);
    sinew_asset_destroy(b);
}

/* Each defect, made in a fresh asset, is refused with the section named. */
Test(clusters, defects_refused_by_the_checks)
{
    for (int k = 0; k < 9; k++) {
        sinew_asset *a = grid(24, 24, 64, NULL);
        cr_assert_gt(a->cpass_count, 1);
        const char *want = NULL;
        sinew_cluster_rec *c0 = &a->clusters[0];
        sinew_citem_rec *it = &a->citems[a->ccolours[c0->colour_begin].begin];
        switch (k) {
        case 0: /* a particle in two clusters of the first pass */
            a->cparticles[a->clusters[1].particle_begin] = a->cparticles[c0->particle_begin];
            want = "in two clusters";
            break;
        case 1: /* a local naming another particle */
            it->local01 = (it->local01 & 0xFFFF0000u) | ((it->local01 + 1) & 0xFFFFu);
            want = "does not name";
            break;
        case 2: /* a constraint twice */
            a->citems[1].constraint = a->citems[0].constraint;
            want = "two items";
            break;
        case 3: /* past the constraints */
            it->constraint = a->distance_count + a->bend_count;
            want = "out of range";
            break;
        case 4: /* a cluster past the shared memory's size */
            c0->particle_count = SINEW_CLUSTER_MAX_PARTICLES + 1;
            want = "CLUS";
            break;
        case 5: /* passes that do not tile the clusters */
            a->cpasses[0].count++;
            want = "CPAS";
            break;
        case 6: /* a particle index out of range */
            a->cparticles[0] = a->particle_count;
            want = "out of range";
            break;
        case 7: /* an empty colour range */
            a->ccolours[0].count = 0;
            want = "CCOL";
            break;
        case 8: /* items without passes */
            a->cpass_count = 0;
            want = "without passes";
            break;
        }
        log_text[0] = '\0';
        cr_assert_eq(sinew_asset_validate(a, "defect", &quiet), SINEW_RESULT_ERROR_BAD_ASSET, "defect %d passed", k);
        cr_assert(strstr(log_text, want), "defect %d: \"%s\" not in %s", k, want, log_text);
        if (k == 8)
            a->cpass_count = 1; /* destroy frees by pointer, counts do not matter */
        sinew_asset_destroy(a);
    }
}

/* Every surface of Debian's CGAL demo data that makes a cloth gets valid
 * clusters; the passes a sweep takes are stated (SINEW_CGAL_DATA). */
Test(clusters, real_models, .timeout = 600)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/meshes", dir ? dir : "");
    DIR *d = dir ? opendir(path) : NULL;
    if (!d)
        cr_skip_test("SINEW_CGAL_DATA is not set (tools/run.sh fetches Debian's CGAL demo data)");
    struct dirent *e;
    uint32_t models = 0, worst = 0, colours_at_worst = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".off"))
            continue;
        snprintf(path, sizeof path, "%s/meshes/%s", dir, e->d_name);
        sinew_mesh mesh;
        sinew_logger silent = {.level = SINEW_LOG_ERROR + 1};
        if (sinew_mesh_read(path, &silent, &mesh) != SINEW_RESULT_OK)
            continue;
        sinew_cloth_options opt = sinew_cloth_options_default();
        sinew_asset *a = NULL;
        if (mesh.vertex_count <= 300000 && sinew_cloth_build(&mesh, &opt, &silent, &a, NULL) == SINEW_RESULT_OK) {
            log_text[0] = '\0';
            cr_assert_eq(sinew_asset_validate(a, e->d_name, &quiet), SINEW_RESULT_OK, "%s", log_text);
            cr_assert(a->distance_count + a->bend_count == 0 || a->cpass_count > 0, "%s", e->d_name);
            cr_assert_leq(a->cpass_count, a->colour_count, "%s: %u passes for %u colours", e->d_name,
                          a->cpass_count, a->colour_count);
            if (a->cpass_count > worst) {
                worst = a->cpass_count;
                colours_at_worst = a->colour_count;
            }
            models++;
        }
        sinew_asset_destroy(a);
        sinew_mesh_free(&mesh);
    }
    closedir(d);
    cr_log_info("%u CGAL models as cloth: at most %u passes a sweep (that model: %u colours)", models, worst,
                colours_at_worst);
    cr_assert_gt(models, 50);
}
