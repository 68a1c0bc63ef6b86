/* What the volume readers promise about a mesh they return, checked for the
 * fuzz targets of the Gmsh and TetGen readers; then the rest of the offline
 * path, as sinew-prep runs it: the soft body is built (or refused), and what is
 * built is written and loaded back. The builder may refuse a mesh; a mesh it
 * accepts must give an asset the writer writes and the loader loads. */
#ifndef SINEW_FUZZ_VOLUME_H
#define SINEW_FUZZ_VOLUME_H

#include "fuzz_common.h"

#include "prep/soft.h"
#include "prep/volume.h"

static inline void fuzz_check_volume(sinew_result r, const sinew_volume *v)
{
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_MESH || r == SINEW_RESULT_ERROR_LIMIT);
    if (r != SINEW_RESULT_OK) {
        FUZZ_CHECK(!v->positions && !v->tets && !v->regions && v->vertex_count == 0 && v->tet_count == 0);
        return;
    }
    if (v->regions) { /* NULL stands for "all in region 0" */
        int nonzero = 0;
        for (size_t i = 0; i < v->tet_count; i++)
            nonzero |= v->regions[i] != 0;
        FUZZ_CHECK(nonzero);
    }
    FUZZ_CHECK(v->tet_count > 0);
    for (size_t i = 0; i < 3 * (size_t)v->vertex_count; i++)
        FUZZ_CHECK(isfinite(v->positions[i]));
    for (size_t i = 0; i < 4 * (size_t)v->tet_count; i++)
        FUZZ_CHECK(v->tets[i] < v->vertex_count);
}

/* The options come from the input's size: bit 0 picks greedy colouring, bit 1
 * the stable neo-Hookean model; vertex 0 and the bottom tenth are pinned. */
static inline void fuzz_build_soft(const sinew_volume *v, size_t size)
{
    static const uint32_t pins[1] = {0};
    sinew_soft_options opt = sinew_soft_options_default();
    opt.colouring = size & 1 ? SINEW_COLOURING_GREEDY : SINEW_COLOURING_BALANCED;
    opt.model = size & 2 ? SINEW_MATERIAL_STABLE_NEO_HOOKEAN : SINEW_MATERIAL_NEO_HOOKEAN;
    opt.pin_indices = pins;
    opt.pin_count = 1;
    opt.pin_bottom = 0.1;
    opt.source_name = "fuzz";
    sinew_asset *a = NULL;
    sinew_soft_report report;
    sinew_result r = sinew_soft_build(v, &opt, &fuzz_logger, &a, &report);
    FUZZ_CHECK((r == SINEW_RESULT_OK) == (a != NULL));
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_MESH || r == SINEW_RESULT_ERROR_LIMIT);
    if (!a)
        return;
    FUZZ_CHECK(report.tet_count == v->tet_count && report.vertex_count + report.dropped_vertices == v->vertex_count);
    void *bytes = NULL;
    size_t bytes_size = 0;
    FUZZ_CHECK(sinew_asset_serialize(a, &bytes, &bytes_size, &fuzz_logger) == SINEW_RESULT_OK);
    sinew_asset *b = NULL;
    FUZZ_CHECK(sinew_asset_load_memory(bytes, bytes_size, "fuzz.snw", &fuzz_logger, &b) == SINEW_RESULT_OK);
    sinew_asset_info info = sinew_asset_get_info(b);
    FUZZ_CHECK(info.tet_count == report.tet_count && info.element_colour_count == report.colour_count);
    FUZZ_CHECK(info.triangle_count == report.triangle_count);
    sinew_asset_destroy(b);
    sinew_asset_destroy(a);
    free(bytes);
}

#endif
