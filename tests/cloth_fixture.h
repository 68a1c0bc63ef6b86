/* What the cloth tests share: a capturing logger, meshes (over caller arrays, a bumpy grid), building checked. */
#ifndef SINEW_CLOTH_FIXTURE_H
#define SINEW_CLOTH_FIXTURE_H

#include "prep/cloth.h"

#include <stdint.h>

typedef struct capture {
    char text[4096];
    int warnings;
} capture;

/* A logger into c (emptied), from INFO up. */
sinew_logger capture_logger(capture *c);

/* A mesh over caller-owned arrays (sinew_mesh_free must not be called on it). */
sinew_mesh borrowed_mesh(const double *positions, uint32_t vertex_count, const uint32_t *offsets,
                         const uint32_t *indices, uint32_t face_count);

/* Builds, checks the asset's invariants and the colour layout, returns it. */
sinew_asset *build(const sinew_mesh *m, const sinew_cloth_options *opt, const sinew_logger *lg,
                   sinew_cloth_report *rep);

/* A 7 x 5 grid in the xz plane with a smooth bump in y: triangles of many
 * orientations. Particles are the mesh's vertices (none is dropped). */
void bumpy_grid(sinew_mesh *m);

#endif
