/* A surface's render mesh embedded in an asset's tetrahedra (embed.c,
 * docs/render-mesh.md). */
#ifndef SINEW_PREP_EMBED_H
#define SINEW_PREP_EMBED_H

#include "../asset/asset.h"
#include "mesh.h"

/* Render vertex i of m's rest normal (m's, normalised, or its render
 * triangles' from face_normals where m gives none) and UV into r, for the
 * cloth and the embedded builders alike. */
void sinew_render_vertex_surface(sinew_render_vertex_rec *r, const sinew_mesh *m, const float *face_normals, uint32_t i);

/* m's material groups and library into a, whose render triangles are m's
 * (both builders): the library under its file name without the folder, or
 * left out when that is no name the asset can keep (empty, ".", "..", over
 * 255 bytes). 0 on OOM (a's render mesh then removed). */
int sinew_render_copy_materials(sinew_asset *a, const sinew_mesh *m);

/* Gives a the render mesh of m (nothing when m has none): each render
 * vertex's position (its mesh vertex's) tied to the tetrahedron of a that
 * contains it, or the nearest one (clamped barycentrics), by its barycentric
 * weights; normal mode SINEW_RENDER_NORMAL_TET, the rest normal m's (or its
 * render triangles' where m gives none), the UVs m's, the materials m's.
 * Replaces any render mesh a had. INVALID_ARGUMENT when a has no tetrahedra,
 * OUT_OF_HOST_MEMORY; a is unchanged on failure. */
sinew_result sinew_render_embed(sinew_asset *a, const sinew_mesh *m, const char *name, const sinew_logger *lg);

#endif
