/* The cloth tests' shared parts: a capturing logger, meshes (over caller arrays, a bumpy grid), building checked. */
#include <criterion/criterion.h>

#include "cloth_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    c->warnings += level == SINEW_LOG_WARNING;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s\n", message);
}

sinew_logger capture_logger(capture *c)
{
    memset(c, 0, sizeof *c);
    return (sinew_logger){capture_fn, c, SINEW_LOG_INFO};
}

/* A mesh over caller-owned arrays (sinew_mesh_free must not be called on it). */
sinew_mesh borrowed_mesh(const double *positions, uint32_t vertex_count, const uint32_t *offsets,
                         const uint32_t *indices, uint32_t face_count)
{
    return (sinew_mesh){vertex_count, (double *)positions, face_count, (uint32_t *)offsets, (uint32_t *)indices};
}

/* Builds, checks the asset's invariants and the colour layout, returns it. */
sinew_asset *build(const sinew_mesh *m, const sinew_cloth_options *opt, const sinew_logger *lg,
                   sinew_cloth_report *rep)
{
    sinew_asset *a = NULL;
    sinew_result r = sinew_cloth_build(m, opt, lg, &a, rep);
    cr_assert_eq(r, SINEW_RESULT_OK, "sinew_cloth_build: %s", sinew_result_string(r));
    cr_assert_eq(sinew_asset_validate(a, "built", NULL), SINEW_RESULT_OK);
    cr_assert_eq(a->distance_count, rep->stretch_count + rep->shear_count);
    cr_assert_eq(a->bend_count, rep->bend_count);
    cr_assert_eq(a->colour_count, rep->colour_count);
    /* Within a colour, distances keep build order: stretch before shear. */
    for (uint32_t k = 0; k < a->colour_count; k++) {
        const sinew_colour_rec *c = &a->colours[k];
        for (uint32_t i = c->distance_begin + 1; i < c->distance_begin + c->distance_count; i++)
            cr_assert_leq(a->distances[i - 1].kind, a->distances[i].kind);
    }
    return a;
}

/* A 7 x 5 grid in the xz plane with a smooth bump in y: triangles of many
 * orientations. Particles are the mesh's vertices (none is dropped). */
void bumpy_grid(sinew_mesh *m)
{
    cr_assert_eq(sinew_mesh_grid(7, 5, 1.2, 0.8, SINEW_GRID_XZ, NULL, m), SINEW_RESULT_OK);
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        double *p = m->positions + 3 * (size_t)i;
        p[1] += 0.3 * sin(2.5 * p[0]) * cos(3.0 * p[2]) + 0.1 * p[0];
    }
}
