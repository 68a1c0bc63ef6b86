/* The mesh collider's signed distance field (src/collider.c), on the host:
 * against the exact distance of an icosphere's sphere, against brute-force
 * distances and winding numbers of the mesh itself (an icosphere and a real
 * model), how its error falls with the grid spacing, and what it refuses. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collider.h"
#include "shapes.h"

#define PI 3.14159265358979323846

typedef struct capture {
    char text[4096];
} capture;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)level;
    (void)id;
    capture *c = user;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s\n", message);
}

static sinew_logger capture_logger(capture *c)
{
    c->text[0] = '\0';
    sinew_logger lg = {capture_fn, c, SINEW_LOG_DEBUG};
    return lg;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(void) /* [0, 1), xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void node_at(const sinew_sdf *s, size_t idx, double p[3])
{
    size_t i = idx % s->dims[0], j = idx / s->dims[0] % s->dims[1], k = idx / s->dims[0] / s->dims[1];
    p[0] = s->origin[0] + s->cell * i;
    p[1] = s->origin[1] + s->cell * j;
    p[2] = s->origin[2] + s->cell * k;
}

typedef struct node_check {
    size_t checked;
    double band_error;     /* largest | |phi| - exact | within 2 cells of the surface (m) */
    double far_relative;   /* largest | |phi| - exact | / exact farther out */
    uint32_t sign_errors;  /* nodes a tenth of a cell or more from the surface */
} node_check;

/* Every `stride`-th node against the brute-force distance to the mesh and its
 * winding number. */
static node_check check_nodes(const sinew_sdf *s, const shape *m, size_t stride)
{
    size_t count = (size_t)s->dims[0] * s->dims[1] * s->dims[2];
    node_check c = {0};
    for (size_t idx = 0; idx < count; idx += stride) {
        double p[3];
        node_at(s, idx, p);
        double exact = shape_distance(m, p), phi = s->phi[idx], err = fabs(fabs(phi) - exact);
        if (exact <= 2.0 * s->cell)
            c.band_error = fmax(c.band_error, err);
        else
            c.far_relative = fmax(c.far_relative, err / exact);
        if (exact > 0.1 * s->cell)
            c.sign_errors += (phi < 0.0) != shape_inside(m, p);
        c.checked++;
    }
    return c;
}

/* Exact within the band, within 2 % farther, every sign right. */
Test(field, icosphere_nodes)
{
    const double centre[3] = {0.05, -0.02, 0.01};
    shape m = shape_icosphere(3, 0.3, centre);
    cr_assert_eq(m.triangle_count, 1280);
    sinew_collider_desc d = shape_desc(&m, 32);
    sinew_sdf s;
    cr_assert_eq(sinew_sdf_build(NULL, &d, "icosphere", &s), SINEW_RESULT_OK);
    cr_assert_eq(s.open_edges, 0);
    node_check c = check_nodes(&s, &m, 7);
    cr_log_info("icosphere 1280 triangles, %ux%ux%u nodes, cell %.4f m: %zu nodes, within 2 cells largest "
                "|phi| error %.1e m, farther %.2f %%; %u signs wrong", s.dims[0], s.dims[1], s.dims[2], s.cell,
                c.checked, c.band_error, 100.0 * c.far_relative, c.sign_errors);
    cr_expect_lt(c.band_error, 1e-6, "near the surface, node values are exact distances to the mesh");
    cr_expect_lt(c.far_relative, 0.02, "farther, the sweeps' closest triangles are close to the closest");
    cr_expect_eq(c.sign_errors, 0);
    sinew_sdf_free(&s);
    shape_free(&m);
}

/* Between nodes, the trilinear interpolant of the distance to a sphere is off
 * by O(h^2 / r) (the distance's curvature), so each halving of the cell
 * divides the error by about four, down to the mesh's own distance from the
 * sphere (logged); the normal, the interpolant's gradient, by about two. */
Test(field, interpolation_error_falls_with_the_cell)
{
    const double c[3] = {0, 0, 0}, r = 0.3;
    shape m = shape_icosphere(5, r, c);
    cr_log_info("the mesh lies within %.2e m of the sphere", shape_sphere_sag(&m, r));
    const uint32_t res[3] = {12, 24, 48};
    double err[3], normal_err[3];
    for (int t = 0; t < 3; t++) {
        sinew_collider_desc d = shape_desc(&m, res[t]);
        sinew_sdf s;
        cr_assert_eq(sinew_sdf_build(NULL, &d, "icosphere", &s), SINEW_RESULT_OK);
        err[t] = normal_err[t] = 0.0;
        for (int q = 0; q < 4000; q++) { /* within 2 cm of the surface, either side */
            double dir[3], len;
            do {
                for (int k = 0; k < 3; k++)
                    dir[k] = 2.0 * uniform() - 1.0;
                len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
            } while (len > 1.0 || len < 1e-3);
            double rho = r - 0.02 + 0.04 * uniform(), p[3], n[3];
            for (int k = 0; k < 3; k++)
                p[k] = dir[k] / len * rho;
            double phi = sinew_sdf_sample(&s, p, n);
            err[t] = fmax(err[t], fabs(phi - (rho - r)));
            double cosang = (n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2]) / len;
            normal_err[t] = fmax(normal_err[t], acos(fmin(1.0, cosang)));
        }
        cr_log_info("cell %.4f m (%u across): largest error %.3e m, normal %.2f deg", s.cell, res[t], err[t],
                    normal_err[t] * 180.0 / PI);
        sinew_sdf_free(&s);
    }
    cr_expect_gt(err[0] / err[1], 3.0, "halving the cell: %.3e -> %.3e m", err[0], err[1]);
    cr_expect_gt(err[1] / err[2], 2.5, "halving the cell: %.3e -> %.3e m", err[1], err[2]);
    cr_expect_lt(err[2], 3e-4);
    cr_expect_gt(normal_err[0] / normal_err[2], 3.0, "normals: %.2f -> %.2f deg", normal_err[0] * 180.0 / PI,
                 normal_err[2] * 180.0 / PI);
    cr_expect_lt(normal_err[2] * 180.0 / PI, 2.5);
    shape_free(&m);
}

static const char *cgal_mesh(const char *file, char *path, size_t size)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        return NULL;
    snprintf(path, size, "%s/meshes/%s", dir, file);
    return path;
}

/* A real closed model no one here made (CGAL's elephant, 5 558 triangles) and
 * CGAL's cube (12 triangles lying on grid planes, rays along its edges): node
 * values against brute force, every sign against the winding number. */
Test(field, real_meshes)
{
    char path[1024];
    if (!cgal_mesh("elephant.off", path, sizeof path))
        cr_skip_test("SINEW_CGAL_DATA is not set");
    const char *files[2] = {"elephant.off", "cube.off"};
    const size_t strides[2] = {97, 13};
    for (int f = 0; f < 2; f++) {
        shape m = shape_read(cgal_mesh(files[f], path, sizeof path));
        cr_assert_gt(m.vertex_count, 0, "%s", path);
        sinew_collider_desc d = shape_desc(&m, 40);
        sinew_sdf s;
        cr_assert_eq(sinew_sdf_build(NULL, &d, files[f], &s), SINEW_RESULT_OK);
        cr_expect_eq(s.open_edges, 0, "%s is closed", files[f]);
        cr_expect_gt(s.inside_nodes, 0);
        node_check c = check_nodes(&s, &m, strides[f]);
        cr_log_info("%s, %u triangles, %ux%ux%u nodes: %zu nodes checked, within 2 cells largest error %.1e m, "
                    "farther %.2f %%; %u signs wrong, %u nodes inside", files[f], m.triangle_count, s.dims[0],
                    s.dims[1], s.dims[2], c.checked, c.band_error, 100.0 * c.far_relative, c.sign_errors,
                    s.inside_nodes);
        cr_expect_lt(c.band_error, 1e-6);
        cr_expect_lt(c.far_relative, 0.05);
        cr_expect_eq(c.sign_errors, 0, "%s", files[f]);
        sinew_sdf_free(&s);
        shape_free(&m);
    }
}

/* An open mesh (CGAL's mask_cone) is counted as such; the collider warns. */
Test(field, open_mesh_counted)
{
    char path[1024];
    if (!cgal_mesh("mask_cone.off", path, sizeof path))
        cr_skip_test("SINEW_CGAL_DATA is not set");
    shape m = shape_read(path);
    cr_assert_gt(m.vertex_count, 0);
    sinew_collider_desc d = shape_desc(&m, 24);
    sinew_sdf s;
    cr_assert_eq(sinew_sdf_build(NULL, &d, "mask", &s), SINEW_RESULT_OK);
    cr_expect_eq(s.open_edges, 124);
    sinew_sdf_free(&s);
    shape_free(&m);
}

/* Outside the grid the distance grows with the distance from it. */
Test(field, beyond_the_grid)
{
    const double c[3] = {0, 0, 0};
    shape m = shape_icosphere(2, 0.5, c);
    sinew_collider_desc d = shape_desc(&m, 16);
    sinew_sdf s;
    cr_assert_eq(sinew_sdf_build(NULL, &d, "ball", &s), SINEW_RESULT_OK);
    const double far[3] = {5.0, 0.0, 0.0}, edge[3] = {s.origin[0] + s.cell * (s.dims[0] - 1), 0.0, 0.0};
    double n[3], n_edge[3];
    double phi_far = sinew_sdf_sample(&s, far, n), phi_edge = sinew_sdf_sample(&s, edge, n_edge);
    cr_expect(fabs(phi_far - (phi_edge + far[0] - edge[0])) < 1e-9, "%g vs %g", phi_far, phi_edge);
    cr_expect(fabs(phi_far - 4.5) < 0.01, "%g", phi_far);
    for (int k = 0; k < 3; k++) /* the normal of the grid's edge */
        cr_expect(fabs(n[k] - n_edge[k]) < 1e-12);
    cr_expect_gt(n[0], 0.9);
    const double nan[3] = {NAN, 0.0, 0.0}; /* no undefined conversion: NaN in, NaN out */
    cr_expect(isnan(sinew_sdf_sample(&s, nan, n)));
    sinew_sdf_free(&s);
    shape_free(&m);
}

/* Bad input is refused by name, nothing allocated. */
Test(field, refusals)
{
    const double c[3] = {0, 0, 0};
    shape m = shape_icosphere(1, 0.5, c);
    capture cap;
    sinew_logger lg = capture_logger(&cap);
    sinew_sdf s;
    struct {
        const char *why;
        sinew_result code;
    } cases[] = {
        {"has no triangles", SINEW_RESULT_ERROR_INVALID_ARGUMENT},
        {"vertex 7 is not finite", SINEW_RESULT_ERROR_INVALID_ARGUMENT},
        {"triangle 3 names vertex 99; there are 42", SINEW_RESULT_ERROR_INVALID_ARGUMENT},
        {"bounds have no extent", SINEW_RESULT_ERROR_INVALID_ARGUMENT},
        {"cell_size (-1)", SINEW_RESULT_ERROR_INVALID_ARGUMENT},
        {"margin (nan)", SINEW_RESULT_ERROR_INVALID_ARGUMENT},
        {"resolution (1)", SINEW_RESULT_ERROR_INVALID_ARGUMENT},
        {"is more than the 16777216 allowed", SINEW_RESULT_ERROR_LIMIT},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        shape bad = {malloc(3 * sizeof(float) * m.vertex_count), m.vertex_count,
                     malloc(3 * sizeof(uint32_t) * m.triangle_count), m.triangle_count};
        memcpy(bad.xyz, m.xyz, 3 * sizeof(float) * m.vertex_count);
        memcpy(bad.triangles, m.triangles, 3 * sizeof(uint32_t) * m.triangle_count);
        sinew_collider_desc d = shape_desc(&bad, 16);
        switch (k) {
        case 0: d.triangle_count = 0; break;
        case 1: bad.xyz[3 * 7 + 1] = NAN; break;
        case 2: bad.triangles[3 * 3 + 2] = 99; break;
        case 3:
            for (uint32_t v = 0; v < bad.vertex_count; v++)
                bad.xyz[3 * v] = bad.xyz[3 * v + 1] = bad.xyz[3 * v + 2] = 0.25f;
            break;
        case 4: d.cell_size = -1.0f; break;
        case 5: d.margin = NAN; break;
        case 6: d.resolution = 1; break;
        case 7: d.cell_size = 1e-3f; break; /* 1 m / 1 mm: 10^9 nodes */
        }
        cr_assert_eq(m.vertex_count, 42);
        memset(&s, 0xab, sizeof s);
        cr_expect_eq(sinew_sdf_build(&lg, &d, "bad", &s), cases[k].code, "case %zu", k);
        cr_expect(strstr(cap.text, cases[k].why) != NULL, "case %zu: wanted '%s' in: %s", k, cases[k].why, cap.text);
        cr_expect(s.phi == NULL, "case %zu left nothing allocated", k);
        cap.text[0] = '\0';
        shape_free(&bad);
    }
    shape_free(&m);
}
