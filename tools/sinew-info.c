/* sinew-info: lists the Vulkan devices sinew can use and the one it picks, or,
 * given asset files, what each holds (no device needed for that). */
#include <sinew/sinew.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset/asset.h" /* sinew_material_model_name, the hierarchy's levels, red-black */

static const char *const usage =
    "usage: sinew-info [--device NAME|INDEX] [--validation] [--portable]   the Vulkan devices\n"
    "       sinew-info ASSET.snw...                          what each asset holds\n";

static void print_material(uint32_t index, const sinew_material *m)
{
    printf("  %-4u %-19s", index, sinew_material_model_name(m->model));
    switch (m->model) {
    case SINEW_MATERIAL_SPRING:
        printf(" compliance %g m/N\n", (double)m->compliance);
        break;
    case SINEW_MATERIAL_TABULATED:
        printf(" tabulated curves, thickness %g m\n", (double)m->thickness);
        break;
    case SINEW_MATERIAL_STVK:
        printf(" E %g Pa, nu %g, thickness %g m\n", (double)m->youngs_modulus, (double)m->poisson_ratio,
               (double)m->thickness);
        break;
    default:
        printf(" E %g Pa, nu %g\n", (double)m->youngs_modulus, (double)m->poisson_ratio);
        break;
    }
}

/* 0 when the asset loaded; the loader has said why otherwise. */
static int print_asset(const char *path)
{
    sinew_asset *asset;
    sinew_result r = sinew_asset_load(path, NULL, &asset);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-info: %s: %s\n", path, sinew_result_string(r));
        return 1;
    }
    sinew_asset_info info = sinew_asset_get_info(asset);
    printf("asset:             %s\n", path);
    printf("particles:         %u (%u pinned), %g kg\n", info.particle_count, info.pinned_count,
           (double)info.total_mass);
    double origin[3];
    sinew_asset_get_origin(asset, origin);
    const int far = origin[0] != 0.0 || origin[1] != 0.0 || origin[2] != 0.0;
    if (far) /* only then: the lines of an asset at the world's origin stay what they were */
        printf("origin:            (%.17g, %.17g, %.17g) m (the positions are relative to it)\n", origin[0],
               origin[1], origin[2]);
    printf("bounds:            (%g, %g, %g) .. (%g, %g, %g) m%s\n", (double)info.bounds_min[0],
           (double)info.bounds_min[1], (double)info.bounds_min[2], (double)info.bounds_max[0],
           (double)info.bounds_max[1], (double)info.bounds_max[2], far ? " from the origin" : "");
    printf("triangles:         %u\n", info.triangle_count);
    printf("constraints:       %u distance, %u bending, in %u colours\n", info.distance_count, info.bend_count,
           info.colour_count);
    if (info.cluster_passes)
        printf("clustered sweeps:  %u clusters in %u passes: %u dispatches a Gauss-Seidel sweep in place of %u\n",
               info.cluster_count, info.cluster_passes, info.cluster_passes, info.colour_count);
    if (info.element_count || info.element_colour_count) {
        printf("elements:          %u: %u tetrahedra, %u membrane triangles, %u springs\n", info.element_count,
               info.tet_count, info.membrane_count, info.spring_count);
        printf("element colours:   %u\n", info.element_colour_count);
    }
    if (info.tet_count)
        printf("rest volume:       %g m^3\n", (double)info.rest_volume);
    if (asset->level_count) {
        printf("hierarchy:         %u levels, %s rest lengths, %u parent links\n", asset->level_count,
               asset->levels[0].rest == SINEW_HIERARCHY_REST_GEODESIC ? "geodesic" : "rest-pose", asset->link_count);
        printf("  level  particles  constraints  colours\n");
        for (uint32_t l = 0; l < asset->level_count; ++l) {
            const sinew_level_rec *v = &asset->levels[l];
            /* Level 0 solves the body's own constraints. */
            printf("  %5u  %9u  %11u  %7u\n", l, v->particle_count, l ? v->distance_count : info.distance_count,
                   l ? v->colour_count : info.colour_count);
        }
    }
    if (asset->mlevel_count) {
        printf("multigrid:         %u nested levels\n", asset->mlevel_count);
        printf("  level  particles  triangles  colours\n");
        for (uint32_t l = 0; l < asset->mlevel_count; ++l)
            printf("  %5u  %9u  %9u  %7u\n", l, asset->mlevels[l].vertex_count, asset->mlevels[l].triangle_count,
                   asset->mlevels[l].colour_count);
    }
    if (asset->red_count || asset->black_count)
        printf("red-black:         %u red, %u black particles\n", asset->red_count, asset->black_count);
    sinew_render_info render = sinew_asset_get_render_info(asset);
    if (render.vertex_count)
        printf("render mesh:       %u vertices, %u indices (%u triangles), %s, %s\n", render.vertex_count,
               render.index_count, render.index_count / 3, render.has_uvs ? "with UVs" : "without UVs",
               render.embedded ? "embedded in the tetrahedra" : "on the particles");
    if (info.material_count) {
        printf("materials:         %u\n", info.material_count);
        for (uint32_t i = 0; i < info.material_count; ++i) {
            sinew_material m;
            if (sinew_asset_get_material(asset, i, &m) == SINEW_RESULT_OK)
                print_material(i, &m);
        }
    }
    sinew_asset_destroy(asset);
    return 0;
}

int main(int argc, char **argv)
{
    sinew_context_desc d = sinew_context_desc_default();
    /* Every argument is read before anything is done: a bad option is
     * refused before any asset is read or device opened. */
    int assets = 0, failed = 0;
    const char **paths = malloc(sizeof *paths * (size_t)argc);
    if (!paths)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--validation")) {
            d.validation = 1;
        } else if (!strcmp(argv[i], "--portable")) {
            d.limits = SINEW_LIMITS_PORTABLE;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            d.device = argv[++i];
        } else if (argv[i][0] != '-') {
            paths[assets++] = argv[i];
        } else {
            free(paths);
            fputs(usage, stderr);
            return strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0;
        }
    }
    for (int k = 0; k < assets; k++) {
        if (k)
            printf("\n");
        failed |= print_asset(paths[k]);
    }
    free(paths);
    if (assets)
        return failed;
    d.logger.level = SINEW_LOG_DEBUG;
    sinew_context *ctx;
    sinew_result r = sinew_context_create(&d, &ctx);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-info: %s\n", sinew_result_string(r));
        return 1;
    }
    sinew_device_info info = sinew_context_get_device_info(ctx);
    printf("device:            %s\n", info.name);
    printf("driver:            %s\n", info.driver);
    printf("vendor/device id:  0x%04x / 0x%04x\n", info.vendor_id, info.device_id);
    printf("Vulkan:            %u.%u.%u\n", info.api_version >> 22, (info.api_version >> 12) & 0x3ff,
           info.api_version & 0xfff);
    printf("timestamp period:  %g ns\n", info.timestamp_period_ns);
    printf("limits:            %s\n", info.limits == SINEW_LIMITS_PORTABLE ? "portable (Android Baseline 2022, "
                                                                          "or the device's where lower)"
                                                                        : "the device's");
    printf("max storage range: %llu bytes per binding\n", (unsigned long long)info.max_storage_buffer_range);
    printf("storage buffers:   %u per stage\n", info.max_storage_buffers_per_stage);
    printf("workgroups:        %u invocations, %u bytes shared, %u per dispatch dimension\n",
           info.max_workgroup_invocations, info.max_shared_memory, info.max_workgroup_count);
    printf("push constants:    %u bytes\n", info.max_push_constants);
    sinew_context_destroy(ctx);
    return 0;
}
