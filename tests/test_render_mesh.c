/* The render mesh (docs/render-mesh.md): a textured OBJ and glTF with UV
 * seams keep their render vertices and UVs through the readers, cloth and
 * soft prep, the asset file and the body's render buffer; the kernel puts
 * each render vertex where its particles say (a cloth's on its particle, a
 * solid's embedded vertex inside its tetrahedron, its normal F^-T n); a
 * malformed render section is refused with a message. Lavapipe, validation
 * on. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <sinew/sinew.h>
#include <sinew/vulkan.h>

#include "asset_fixture.h"
#include "gpu_fixture.h"
#include "prep/cloth.h"
#include "prep/embed.h"
#include "prep/mesh.h"
#include "prep/soft.h"
#include "prep/volume.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One device context for the bodies (lavapipe takes seconds to make one),
 * none for the asset and file checks. */
TestSuite(render_mesh, .init = gpu_setup, .fini = gpu_teardown, .timeout = 300);
TestSuite(render_asset, .timeout = 60);

#define TUBE_OBJ SINEW_SOURCE_DIR "/data/textured_tube.obj"
#define TUBE_GLTF SINEW_SOURCE_DIR "/data/textured_tube.gltf"

/* ------------------------------------------------------------ an independent OBJ reading */

/* The render vertices an engine's importer makes of an OBJ file: each
 * distinct v/vt/vn corner once, in order of first use (the test's own
 * parser: v, vt and f records with positive indices). */
typedef struct reference {
    uint32_t count;
    float xyz[3 * 1024], uv[2 * 1024];
    uint32_t key[3 * 1024];
} reference;

static void read_reference(const char *path, reference *ref)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    static float v[3 * 1024], vt[2 * 1024];
    uint32_t nv = 0, nt = 0;
    char line[512];
    ref->count = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "v ", 2)) {
            cr_assert_eq(sscanf(line + 2, "%f %f %f", &v[3 * nv], &v[3 * nv + 1], &v[3 * nv + 2]), 3);
            nv++;
        } else if (!strncmp(line, "vt ", 3)) {
            cr_assert_eq(sscanf(line + 3, "%f %f", &vt[2 * nt], &vt[2 * nt + 1]), 2);
            nt++;
        } else if (!strncmp(line, "f ", 2)) {
            char *save = NULL;
            for (char *tok = strtok_r(line + 2, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
                uint32_t k[3];
                cr_assert_eq(sscanf(tok, "%u/%u/%u", &k[0], &k[1], &k[2]), 3, "%s", tok);
                uint32_t i = 0;
                while (i < ref->count && memcmp(&ref->key[3 * i], k, sizeof k))
                    i++;
                if (i == ref->count) {
                    cr_assert_lt(ref->count, 1024);
                    memcpy(&ref->key[3 * i], k, sizeof k);
                    memcpy(&ref->xyz[3 * i], &v[3 * (k[0] - 1)], 3 * sizeof(float));
                    memcpy(&ref->uv[2 * i], &vt[2 * (k[1] - 1)], 2 * sizeof(float));
                    ref->count++;
                }
            }
        }
    }
    fclose(f);
}

/* The render vertices of an OBJ file sinew-sim wrote (v and vt lines). */
static uint32_t read_written_obj(const char *path, float *xyz, float *uv, uint32_t room)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    uint32_t nv = 0, nt = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "v ", 2) && nv < room) {
            cr_assert_eq(sscanf(line + 2, "%f %f %f", &xyz[3 * nv], &xyz[3 * nv + 1], &xyz[3 * nv + 2]), 3);
            nv++;
        } else if (!strncmp(line, "vt ", 3) && nt < room) {
            cr_assert_eq(sscanf(line + 3, "%f %f", &uv[2 * nt], &uv[2 * nt + 1]), 2);
            nt++;
        }
    }
    fclose(f);
    cr_assert_eq(nv, nt, "%s: %u v and %u vt", path, nv, nt);
    return nv;
}

/* ------------------------------------------------------------ building and comparing */

static sinew_asset *cloth_of(const sinew_mesh *m, const char *name, const sinew_logger *lg)
{
    sinew_cloth_options o = sinew_cloth_options_default();
    o.pin_top = 0.05;
    o.source_name = name;
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_cloth_build(m, &o, lg, &a, NULL), SINEW_RESULT_OK);
    return a;
}

/* Render positions read back against the map applied on the host to the
 * particles read back; returns the largest difference (m). */
static double map_error(const sinew_asset *a, const float *particles, const float *render, uint32_t r)
{
    uint32_t *p = malloc(sizeof *p * 4 * r);
    float *w = malloc(sizeof *w * 4 * r);
    sinew_asset_get_render_map(a, p, w);
    double worst = 0.0;
    for (uint32_t i = 0; i < r; i++)
        for (int c = 0; c < 3; c++) {
            double x = 0.0;
            for (int k = 0; k < 4; k++)
                x += (double)w[4 * i + k] * particles[3 * p[4 * i + k] + c];
            worst = fmax(worst, fabs(x - render[8 * i + c]));
        }
    free(p);
    free(w);
    return worst;
}

/* ------------------------------------------------------------ cloth from OBJ */

static void obj_cloth_keeps_the_source_and_follows_the_particles(void)
{
    static reference ref;
    read_reference(TUBE_OBJ, &ref);
    cr_assert_gt(ref.count, 200); /* a few hundred, split at the seam */

    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(TUBE_OBJ, gpu_logger(), &m), SINEW_RESULT_OK, "%s", gpu_log_text());
    cr_assert_eq(m.render_vertex_count, ref.count);
    cr_assert_lt(m.vertex_count, ref.count, "the seam splits vertices");
    for (uint32_t i = 0; i < ref.count; i++) {
        cr_assert_eq(m.render_uv[2 * i], ref.uv[2 * i], "render vertex %u", i);
        cr_assert_eq(m.render_uv[2 * i + 1], ref.uv[2 * i + 1], "render vertex %u", i);
    }
    sinew_asset *a = cloth_of(&m, "tube", gpu_logger());
    const uint32_t n = m.vertex_count;
    sinew_mesh_free(&m);

    /* through the file and back */
    void *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, gpu_logger()), SINEW_RESULT_OK);
    sinew_asset_destroy(a);
    cr_assert_eq(sinew_asset_load_memory(bytes, size, "tube.snw", gpu_logger(), &a), SINEW_RESULT_OK, "%s",
                 gpu_log_text());
    free(bytes);
    sinew_render_info ri = sinew_asset_get_render_info(a);
    cr_assert_eq(ri.vertex_count, ref.count);
    cr_assert_eq(ri.index_count, 3 * 384);
    cr_assert(ri.has_uvs && !ri.embedded);
    static float uv[2 * 1024], rest[3 * 1024], out[8 * 1024], pos[3 * 1024], nrm[3 * 1024];
    sinew_asset_get_render_uvs(a, uv);
    sinew_asset_get_render_rest(a, rest, NULL);
    for (uint32_t i = 0; i < ref.count; i++) {
        cr_assert_eq(uv[2 * i], ref.uv[2 * i]);
        cr_assert_eq(uv[2 * i + 1], ref.uv[2 * i + 1]);
        for (int c = 0; c < 3; c++)
            cr_assert_float_eq(rest[3 * i + c], ref.xyz[3 * i + c], 1e-6, "render vertex %u", i);
    }

    sinew_body_desc d = sinew_body_desc_default();
    d.normals = 0; /* the render mesh turns them on */
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_vulkan_buffers vb = sinew_body_get_vulkan_buffers(b);
    cr_assert(vb.render_vertices != VK_NULL_HANDLE && vb.render_indices != VK_NULL_HANDLE);
    cr_assert_eq(vb.render_vertex_count, ref.count);
    cr_assert_eq(vb.render_index_count, ri.index_count);
    cr_assert(vb.normals != VK_NULL_HANDLE);
    /* before any step: the rest pose */
    cr_assert_eq(sinew_body_read_render_vertices(b, out, ref.count), SINEW_RESULT_OK);
    for (uint32_t i = 0; i < ref.count; i++)
        cr_assert_float_eq(out[8 * i + 1], ref.xyz[3 * i + 1], 1e-6);
    sinew_step_params p = sinew_step_params_default();
    p.gravity[0] = 3.0f; /* a side wind's push, so it swings */
    for (int s = 0; s < 20; s++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
    cr_assert_eq(sinew_body_read_render_vertices(b, out, ref.count), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(b, pos, n), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_normals(b, nrm, n), SINEW_RESULT_OK);
    cr_assert_eq(map_error(a, pos, out, ref.count), 0.0, "a cloth render vertex sits on its particle");
    uint32_t *map = malloc(sizeof *map * 4 * ref.count);
    sinew_asset_get_render_map(a, map, NULL);
    double moved = 0.0;
    for (uint32_t i = 0; i < ref.count; i++) {
        cr_assert_eq(out[8 * i + 6], ref.uv[2 * i]);
        cr_assert_eq(out[8 * i + 7], ref.uv[2 * i + 1]);
        for (int c = 0; c < 3; c++) {
            cr_assert_float_eq(out[8 * i + 3 + c], nrm[3 * map[4 * i] + c], 1e-6, "render vertex %u", i);
            moved = fmax(moved, fabs(out[8 * i + c] - ref.xyz[3 * i + c]));
        }
    }
    cr_assert_gt(moved, 1e-3, "the cloth moved (%g m)", moved);
    free(map);
    sinew_step_stats with = sinew_body_get_stats(b);
    sinew_body_destroy(b);
    /* the cost: one dispatch and one barrier a step, its bytes counted */
    d.render_mesh = 0;
    d.normals = 1;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_get_vulkan_buffers(b).render_vertices, VK_NULL_HANDLE);
    cr_assert_eq(sinew_body_read_render_vertices(b, out, ref.count), SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_assert(gpu_log_contains("has no render mesh"));
    gpu_log_clear();
    sinew_step_stats without = sinew_body_get_stats(b);
    cr_log_info("render mesh: %u dispatches, %u barriers, %llu bytes a step (without: %u, %u, %llu)",
                with.dispatches, with.barriers, (unsigned long long)with.bytes, without.dispatches,
                without.barriers, (unsigned long long)without.bytes);
    cr_assert_eq(with.dispatches, without.dispatches + 1);
    cr_assert_eq(with.barriers, without.barriers + 1);
    cr_assert_eq(with.bytes, without.bytes + 128ull * ref.count);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
}

/* ------------------------------------------------------------ cloth from glTF */

static void gltf_cloth_keeps_the_source(void)
{
#ifndef SINEW_HAVE_ASSIMP
    cr_log_info("built without assimp: no glTF");
#else
    /* the file's accessor count: its render vertices */
    FILE *f = fopen(TUBE_GLTF, "r");
    cr_assert(f);
    static char text[16384];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    const char *at = strstr(text, "\"count\":");
    cr_assert(at);
    const uint32_t count = (uint32_t)strtoul(at + 8, NULL, 10);
    cr_assert_gt(count, 96);

    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(TUBE_GLTF, gpu_logger(), &m), SINEW_RESULT_OK, "%s", gpu_log_text());
    gpu_log_clear(); /* the weld's info line */
    cr_assert_eq(m.render_vertex_count, count);
    sinew_asset *a = cloth_of(&m, "tube.gltf", gpu_logger());
    sinew_mesh_free(&m);
    sinew_render_info ri = sinew_asset_get_render_info(a);
    cr_assert_eq(ri.vertex_count, count);
    cr_assert(ri.has_uvs);
    /* The UVs the file gives by construction (data/make_render_samples.py):
     * u the angle about y / 2 pi (0 and 1 both at the seam), v along y,
     * flipped to OBJ's convention as assimp hands glTF's over. */
    static float uv[2 * 256], rest[3 * 256], out[8 * 256], pos[3 * 256];
    sinew_asset_get_render_uvs(a, uv);
    sinew_asset_get_render_rest(a, rest, NULL);
    uint32_t seam = 0;
    for (uint32_t i = 0; i < count; i++) {
        double angle = atan2(rest[3 * i + 2], rest[3 * i]) / (2 * 3.14159265358979323846);
        angle += angle < -1e-6 ? 1.0 : 0.0;
        int at_seam = fabs(angle) < 1e-4 && fabs(uv[2 * i] - 1.0f) < 1e-6;
        seam += at_seam;
        cr_assert(at_seam || fabs(uv[2 * i] - angle) < 1e-4, "vertex %u: u %g, angle / 2 pi %g", i, uv[2 * i], angle);
        cr_assert_float_eq(uv[2 * i + 1], 1.0 - (rest[3 * i + 1] - 0.85) / 0.25, 1e-4, "vertex %u", i);
    }
    cr_assert_eq(seam, 6, "one seam vertex a ring");
    sinew_body_desc d = sinew_body_desc_default();
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_step_params p = sinew_step_params_default();
    for (int s = 0; s < 10; s++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_render_vertices(b, out, count), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(b, pos, sinew_asset_get_info(a).particle_count), SINEW_RESULT_OK);
    cr_assert_eq(map_error(a, pos, out, count), 0.0);
    for (uint32_t i = 0; i < count; i++)
        cr_assert_eq(out[8 * i + 6], uv[2 * i]);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
#endif
}

/* ------------------------------------------------------------ a solid's embedded surface */

static void soft_embedded_vertices_follow_the_tets(void)
{
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(TUBE_OBJ, gpu_logger(), &m), SINEW_RESULT_OK);
    /* a coarse box around the finer tube: 4 x 5 x 4 vertices, 216 tetrahedra */
    sinew_volume v;
    const double size[3] = {0.24, 0.34, 0.24}, origin[3] = {0.0, 1.0, 0.0};
    cr_assert_eq(sinew_volume_box(4, 5, 4, size, origin, &v), SINEW_RESULT_OK);
    sinew_soft_options o = sinew_soft_options_default();
    o.youngs_modulus = 2e5;
    o.pin_bottom = 0.0;
    o.render_source = &m;
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_soft_build(&v, &o, gpu_logger(), &a, NULL), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_volume_free(&v);
    sinew_render_info ri = sinew_asset_get_render_info(a);
    cr_assert_eq(ri.vertex_count, m.render_vertex_count);
    cr_assert(ri.embedded && ri.has_uvs);
    const uint32_t r = ri.vertex_count, n = sinew_asset_get_info(a).particle_count;
    static float rest[3 * 1024], out[8 * 1024], pos[3 * 1024], rest_n[3 * 1024];
    sinew_asset_get_render_rest(a, rest, rest_n);
    for (uint32_t i = 0; i < r; i++)
        for (int c = 0; c < 3; c++)
            cr_assert_float_eq(rest[3 * i + c], m.positions[3 * m.render_vertex[i] + c], 1e-6,
                               "vertex %u lies inside its tetrahedron at rest", i);
    sinew_mesh_free(&m);

    sinew_body_desc d = sinew_body_desc_default();
    d.solver = SINEW_SOLVER_GPBD_GAUSS_SEIDEL;
    d.substeps = 4;
    sinew_body *b;
    cr_assert_eq(sinew_body_create(gpu_ctx, a, &d, &b), SINEW_RESULT_OK, "%s", gpu_log_text());
    sinew_step_params p = sinew_step_params_default();
    p.ground = 1;
    p.ground_height = 0.8f; /* the box lands on its bottom and squashes */
    for (int s = 0; s < 30; s++)
        cr_assert_eq(sinew_body_step(b, &p), SINEW_RESULT_OK, "%s", gpu_log_text());
    cr_assert_eq(sinew_body_read_render_vertices(b, out, r), SINEW_RESULT_OK);
    cr_assert_eq(sinew_body_read_positions(b, pos, n), SINEW_RESULT_OK);
    double err = map_error(a, pos, out, r);
    cr_assert_lt(err, 1e-5, "embedded vertices follow the tetrahedra (%g m)", err);
    /* the normal: F^-T n of the vertex's tetrahedron, on the host in double */
    uint32_t *map = malloc(sizeof *map * 4 * r);
    sinew_asset_get_render_map(a, map, NULL);
    float *x0 = malloc(sizeof *x0 * 3 * n);
    sinew_asset_get_positions(a, x0);
    double worst = 0.0, turned = 0.0;
    for (uint32_t i = 0; i < r; i++) {
        const uint32_t *q = map + 4 * i;
        double dm[3][3], ds[3][3];
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) {
                dm[k][c] = (double)x0[3 * q[c + 1] + k] - x0[3 * q[0] + k];
                ds[k][c] = (double)pos[3 * q[c + 1] + k] - pos[3 * q[0] + k];
            }
        double mv[3], cof[3][3], nn[3] = {0, 0, 0};
        for (int c = 0; c < 3; c++)
            mv[c] = dm[0][c] * rest_n[3 * i] + dm[1][c] * rest_n[3 * i + 1] + dm[2][c] * rest_n[3 * i + 2];
        for (int c = 0; c < 3; c++) /* cofactor columns: a1 x a2, a2 x a0, a0 x a1 */
            for (int k = 0; k < 3; k++) {
                int c1 = (c + 1) % 3, c2 = (c + 2) % 3, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
                cof[k][c] = ds[k1][c1] * ds[k2][c2] - ds[k2][c1] * ds[k1][c2];
            }
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++)
                nn[k] += cof[k][c] * mv[c];
        double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        double det = ds[0][0] * cof[0][0] + ds[1][0] * cof[1][0] + ds[2][0] * cof[2][0];
        for (int k = 0; k < 3; k++) {
            double want = (det < 0 ? -1 : 1) * nn[k] / len;
            worst = fmax(worst, fabs(want - out[8 * i + 3 + k]));
            turned = fmax(turned, fabs(want - rest_n[3 * i + k]));
        }
    }
    cr_log_info("soft: render positions within %g m of the tetrahedra, normals within %g of F^-T n (turned %g from "
                "rest)", err, worst, turned);
    cr_assert_lt(worst, 1e-4);
    cr_assert_gt(turned, 1e-3, "the solid deformed");
    free(map);
    free(x0);
    sinew_body_destroy(b);
    sinew_asset_destroy(a);
}

Test(render_mesh, bodies_draw_the_source)
{
    obj_cloth_keeps_the_source_and_follows_the_particles();
    gltf_cloth_keeps_the_source();
    soft_embedded_vertices_follow_the_tets();
}

/* ------------------------------------------------------------ the tools' OBJ */

Test(render_asset, sinew_sim_obj_is_the_render_mesh)
{
    /* written by the tool_render_mesh test (tests/CMakeLists.txt) before this */
    const char *path = SINEW_TEST_OUT_DIR "/render_tube/final.obj";
    FILE *f = fopen(path, "r");
    if (!f)
        cr_skip_test("%s not written (run the tool_render_mesh test first)", path);
    fclose(f);
    static reference ref;
    read_reference(TUBE_OBJ, &ref);
    static float xyz[3 * 1024], uv[2 * 1024];
    uint32_t count = read_written_obj(path, xyz, uv, 1024);
    cr_assert_eq(count, ref.count);
    for (uint32_t i = 0; i < count; i++) {
        cr_assert_float_eq(uv[2 * i], ref.uv[2 * i], 1e-7, "vt %u", i);
        cr_assert_float_eq(uv[2 * i + 1], ref.uv[2 * i + 1], 1e-7, "vt %u", i);
    }
}

/* ------------------------------------------------------------ the OBJ reader */

Test(render_asset, obj_corners_become_render_vertices)
{
    sinew_logger lg = sinew_logger_default();
    lg.level = SINEW_LOG_ERROR;
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/textured_quads.obj", &lg, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.vertex_count, 6);
    cr_assert_eq(m.render_vertex_count, 8, "the seam's two vertices twice");
    cr_assert_eq(m.render_triangle_count, 4);
    const uint32_t on[8] = {0, 3, 4, 1, 1, 4, 5, 2}; /* first use: f 1/1 4/3 5/4 2/2, then 2/5 5/7 6/8 3/6 */
    const float u[8] = {0, 0, 1, 1, 0, 0, 1, 1};
    for (uint32_t i = 0; i < 8; i++) {
        cr_assert_eq(m.render_vertex[i], on[i], "render vertex %u", i);
        cr_assert_eq(m.render_uv[2 * i], u[i], "render vertex %u", i);
        cr_assert_eq(m.render_normal[3 * i + 1], 1.0f);
    }
    sinew_mesh_free(&m);
    /* no vt or vn: no render mesh, as before */
    const char plain[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    cr_assert_eq(sinew_mesh_read_obj_memory(plain, sizeof plain - 1, "plain.obj", &lg, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.render_vertex_count, 0);
    sinew_mesh_free(&m);
    /* a vt index past the file's */
    const char bad[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n";
    cr_assert_eq(sinew_mesh_read_obj_memory(bad, sizeof bad - 1, "bad.obj", capture_logger(SINEW_LOG_ERROR), &m),
                 SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(cap.text, "bad.obj:5: texture coordinate index 2 out of range (file has 1)"), "%s", cap.text);
}

/* ------------------------------------------------------------ malformed sections */

Test(render_asset, malformed_render_section_is_refused)
{
    sinew_logger lg = sinew_logger_default();
    lg.level = SINEW_LOG_ERROR;
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(TUBE_OBJ, &lg, &m), SINEW_RESULT_OK);
    sinew_asset *a = cloth_of(&m, "tube", &lg);
    sinew_mesh_free(&m);
    uint8_t *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, (void **)&bytes, &size, &lg), SINEW_RESULT_OK);
    sinew_asset_destroy(a);
    cr_assert(entry_of(bytes, "RVTX") && entry_of(bytes, "RIDX"));
    uint8_t *copy = malloc(size);
    sinew_asset *bad = NULL;
    struct {
        const char *tag;
        uint32_t record_size, record, field, value;
        const char *needle;
    } cases[] = {
        {"RVTX", 64, 3, 4, 100000, "section RVTX, record 3: particle index 100000 out of range"},
        {"RVTX", 64, 5, 16, 0x3f000000u /* 0.5 */, "section RVTX, record 5: weights sum to 0.5"},
        {"RVTX", 64, 7, 44, 0x7u, "section RVTX, record 7: unknown mode 0x7"},
        {"RVTX", 64, 9, 48, 0x7fc00000u /* NaN */, "section RVTX, record 9: non-finite texture coordinate"},
        {"RIDX", 12, 2, 4, 5000, "section RIDX, record 2: render vertex 5000 out of range"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(copy, bytes, size);
        wr32(field_of(copy, cases[c].tag, cases[c].record_size, cases[c].record, cases[c].field), cases[c].value);
        fix_crcs(copy, size);
        cr_assert_eq(sinew_asset_load_memory(copy, size, "bad.snw", capture_logger(SINEW_LOG_WARNING), &bad),
                     SINEW_RESULT_ERROR_BAD_ASSET, "%s", cases[c].needle);
        cr_assert_null(bad);
        assert_one_error("bad.snw", cases[c].needle);
    }
    /* a changed byte without its CRC */
    memcpy(copy, bytes, size);
    field_of(copy, "RVTX", 64, 0, 40)[0] ^= 1;
    cr_assert_eq(sinew_asset_load_memory(copy, size, "bad.snw", capture_logger(SINEW_LOG_WARNING), &bad),
                 SINEW_RESULT_ERROR_BAD_ASSET);
    assert_one_error("section RVTX", "payload CRC-32 mismatch");
    free(copy);
    free(bytes);
}

/* ------------------------------------------------------------ material groups */

/* The flag's three usemtl groups and its library go through the OBJ reader,
 * the cloth builder and the asset file as they were: names in order, each
 * group's triangles the source's faces of that material, the library's text
 * byte for byte. A mesh with materials and no UVs keeps its render mesh. */
Test(render_asset, materials_survive_prep_and_the_file)
{
    sinew_logger lg = sinew_logger_default();
    lg.level = SINEW_LOG_ERROR;
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/flag.obj", &lg, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.materials.count, 3);
    cr_assert_str_eq(m.materials.library, "flag.mtl");
    cr_assert_not_null(m.materials.library_text);
    sinew_asset *a = cloth_of(&m, "flag", &lg);
    sinew_mesh_free(&m);
    void *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, &lg), SINEW_RESULT_OK);
    sinew_asset_destroy(a);
    cr_assert_eq(((uint8_t *)bytes)[6], 8, "format 1.8");
    cr_assert_eq(sinew_asset_load_memory(bytes, size, "flag.snw", &lg, &a), SINEW_RESULT_OK);
    free(bytes);
    const char *names[3] = {"cotton_red", "cotton_white", "silk_blue"};
    cr_assert_eq(sinew_asset_get_render_material_count(a), 3);
    sinew_render_info ri = sinew_asset_get_render_info(a);
    uint32_t *idx = malloc(sizeof *idx * ri.index_count);
    float *rest = malloc(sizeof *rest * 3 * ri.vertex_count);
    sinew_asset_get_render_indices(a, idx);
    sinew_asset_get_render_rest(a, rest, NULL);
    for (uint32_t g = 0; g < 3; g++) {
        sinew_render_material rm;
        cr_assert_eq(sinew_asset_get_render_material(a, g, &rm), SINEW_RESULT_OK);
        cr_assert_str_eq(rm.name, names[g]);
        cr_assert_eq(rm.first_index, 48 * g, "8 quads, 16 triangles a group");
        cr_assert_eq(rm.index_count, 48);
        /* group g is the columns 2g and 2g + 1: x in [0.2 g, 0.2 g + 0.2] */
        for (uint32_t i = rm.first_index; i < rm.first_index + rm.index_count; i++) {
            float x = rest[3 * idx[i]];
            cr_assert(x >= 0.2f * g - 1e-6f && x <= 0.2f * g + 0.2f + 1e-6f, "group %u, index %u at x %g", g, i, x);
        }
    }
    sinew_render_material rm;
    cr_assert_eq(sinew_asset_get_render_material(a, 3, &rm), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    const char *text;
    size_t text_size;
    cr_assert_str_eq(sinew_asset_get_material_library(a, &text, &text_size), "flag.mtl");
    uint8_t *source;
    size_t source_size;
    FILE *f = fopen(SINEW_TEST_DATA_DIR "/flag.mtl", "rb");
    cr_assert(f);
    source = malloc(4096);
    source_size = fread(source, 1, 4096, f);
    fclose(f);
    cr_assert_eq(text_size, source_size);
    cr_assert(memcmp(text, source, source_size) == 0);
    free(source);
    free(idx);
    free(rest);
    sinew_asset_destroy(a);

    /* materials without UVs or split vertices: the render mesh stays */
    const char plain[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nusemtl a\nf 2 4 3\n";
    cr_assert_eq(sinew_mesh_read_obj_memory(plain, sizeof plain - 1, "plain.obj", &lg, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.render_vertex_count, 4);
    cr_assert_eq(m.materials.count, 2, "\"\" (the face before any usemtl) and a");
    cr_assert_str_eq(m.materials.names[0], "");
    cr_assert_str_eq(m.materials.names[1], "a");
    cr_assert_null(m.materials.library);
    sinew_mesh_free(&m);
    /* usemtl A, B, A: two groups, the triangles gathered by material */
    const char again[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nusemtl A\nf 1 2 3\nusemtl B\nf 2 4 3\nusemtl A\n"
                         "f 1 3 4\n";
    cr_assert_eq(sinew_mesh_read_obj_memory(again, sizeof again - 1, "again.obj", &lg, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.materials.count, 2);
    cr_assert_eq(m.materials.first[1], 2, "A's two triangles first");
    cr_assert_eq(m.render_triangles[3 * 1 + 2], m.render_triangles[3 * 0 + 2] + 1, "the second A face (1 3 4) second");
    sinew_mesh_free(&m);
    /* a name of several words, as some exporters write them */
    const char words[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl  Dark   Oak\nf 1 2 3\n";
    cr_assert_eq(sinew_mesh_read_obj_memory(words, sizeof words - 1, "words.obj", &lg, &m), SINEW_RESULT_OK);
    cr_assert_str_eq(m.materials.names[0], "Dark Oak");
    sinew_mesh_free(&m);
    /* a control character in a material's name */
    const char ctl[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\x01z\nf 1 2 3\n";
    cr_assert_eq(sinew_mesh_read_obj_memory(ctl, sizeof ctl - 1, "ctl.obj", capture_logger(SINEW_LOG_ERROR), &m),
                 SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(cap.text, "ctl.obj:4: material name with a control character"), "%s", cap.text);
}

/* A library named outside the model's folder is not read (a stranger's model
 * must not carry another file into the asset), one that is missing is
 * named; the groups stay either way. */
Test(render_asset, material_library_outside_or_missing_is_not_read)
{
    char dir[] = "/tmp/sinew-mtl-XXXXXX";
    cr_assert(mkdtemp(dir));
    char obj[256], secret[256];
    snprintf(secret, sizeof secret, "%s/secret.mtl", dir);
    FILE *f = fopen(secret, "w");
    fputs("newmtl private\n", f);
    fclose(f);
    const char *libs[] = {"../secret.mtl", "/etc/passwd", "absent.mtl"};
    const char *needles[] = {"outside the model's folder", "outside the model's folder", "absent.mtl not kept"};
    snprintf(obj, sizeof obj, "%s/sub", dir);
    cr_assert_eq(mkdir(obj, 0700), 0);
    snprintf(obj, sizeof obj, "%s/sub/m.obj", dir);
    for (int k = 0; k < 3; k++) {
        f = fopen(obj, "w");
        fprintf(f, "mtllib %s\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl private\nf 1 2 3\n", libs[k]);
        fclose(f);
        sinew_mesh m;
        cr_assert_eq(sinew_mesh_read(obj, capture_logger(SINEW_LOG_WARNING), &m), SINEW_RESULT_OK);
        cr_assert(strstr(cap.text, needles[k]), "%s: %s", libs[k], cap.text);
        cr_assert_eq(m.materials.count, 1);
        cr_assert_null(m.materials.library_text, "%s", libs[k]);
        sinew_mesh_free(&m);
    }
    remove(obj);
    snprintf(obj, sizeof obj, "%s/sub", dir);
    rmdir(obj);
    remove(secret);
    rmdir(dir);
}

/* Every malformed material section is refused, naming what is wrong. */
Test(render_asset, malformed_material_section_is_refused)
{
    sinew_logger lg = sinew_logger_default();
    lg.level = SINEW_LOG_ERROR;
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(SINEW_TEST_DATA_DIR "/flag.obj", &lg, &m), SINEW_RESULT_OK);
    sinew_asset *a = cloth_of(&m, "flag", &lg);
    sinew_mesh_free(&m);
    uint8_t *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, (void **)&bytes, &size, &lg), SINEW_RESULT_OK);
    sinew_asset_destroy(a);
    uint8_t *copy = malloc(size);
    sinew_asset *bad = NULL;
    struct {
        uint32_t record, field, value;
        const char *needle;
    } cases[] = {
        {1, 0, 17, "section RMAT, record 1: triangles [17, +16) do not follow the group before (at 16)"},
        {2, 4, 17, "section RMAT, record 2: triangles [32, +17) do not follow"},
        {0, 12, 5000, "section RMAT, record 0: name of 5000 bytes"},
        {1, 12, 3, "section RMAT, record 1: name is not printable text ended by a NUL"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(copy, bytes, size);
        wr32(field_of(copy, "RMAT", 16, cases[c].record, cases[c].field), cases[c].value);
        fix_crcs(copy, size);
        cr_assert_eq(sinew_asset_load_memory(copy, size, "bad.snw", capture_logger(SINEW_LOG_WARNING), &bad),
                     SINEW_RESULT_ERROR_BAD_ASSET, "%s", cases[c].needle);
        cr_assert_null(bad);
        assert_one_error("bad.snw", cases[c].needle);
    }
    /* the library's name with a folder in it */
    memcpy(copy, bytes, size);
    field_of(copy, "RLIB", 1, 0, 4)[0] = '/';
    fix_crcs(copy, size);
    cr_assert_eq(sinew_asset_load_memory(copy, size, "bad.snw", capture_logger(SINEW_LOG_WARNING), &bad),
                 SINEW_RESULT_ERROR_BAD_ASSET);
    assert_one_error("section RLIB", "not a file name");
    free(copy);
    free(bytes);
}
