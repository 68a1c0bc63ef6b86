/* The asset-building library as a program sees it (sinew/prep.h, linked as
 * the installed shared library): meshes in memory become asset bytes that
 * load, with the particle and constraint counts the mesh implies; every
 * option sinew-prep has reaches the asset; soft bodies from tetrahedra and
 * from a closed surface; the colouring on its own; bad input refused with a
 * message naming it and nothing returned. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <sinew/prep.h>
#include <sinew/sinew.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct capture {
    unsigned errors, warnings;
    char text[8192];
} capture;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    c->errors += level == SINEW_LOG_ERROR;
    c->warnings += level == SINEW_LOG_WARNING;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "[%s] %s\n", id, message);
}

static sinew_logger capture_logger(capture *c)
{
    memset(c, 0, sizeof *c);
    sinew_logger lg = {capture_fn, c, SINEW_LOG_WARNING};
    return lg;
}

/* An nx x ny grid of quads in the xz plane, 1 m across, as a program would
 * hold it: float positions, quads or (split along one diagonal) triangles. */
typedef struct grid_mesh {
    uint32_t nx, ny;
    float *xyz;
    double *xyz64;
    uint32_t *quads, *triangles;
} grid_mesh;

static grid_mesh grid_make(uint32_t nx, uint32_t ny)
{
    grid_mesh g = {nx, ny};
    g.xyz = malloc(sizeof *g.xyz * 3 * nx * ny);
    g.xyz64 = malloc(sizeof *g.xyz64 * 3 * nx * ny);
    g.quads = malloc(sizeof *g.quads * 4 * (nx - 1) * (ny - 1));
    g.triangles = malloc(sizeof *g.triangles * 6 * (nx - 1) * (ny - 1));
    for (uint32_t j = 0; j < ny; j++)
        for (uint32_t i = 0; i < nx; i++) {
            uint32_t v = j * nx + i;
            /* as sinew_prep_cloth_grid places them; the floats rounded */
            g.xyz64[3 * v] = (double)i / (nx - 1) - 0.5;
            g.xyz64[3 * v + 1] = 1.0;
            g.xyz64[3 * v + 2] = (double)j / (ny - 1) - 0.5;
            for (int k = 0; k < 3; k++)
                g.xyz[3 * v + k] = (float)g.xyz64[3 * v + k];
        }
    for (uint32_t j = 0, q = 0; j + 1 < ny; j++)
        for (uint32_t i = 0; i + 1 < nx; i++, q++) {
            uint32_t a = j * nx + i, b = a + 1, c = a + nx + 1, d = a + nx;
            /* counter-clockwise seen from above, as sinew_prep_cloth_grid winds them */
            uint32_t quad[4] = {a, d, c, b}, tri[6] = {a, d, c, a, c, b};
            memcpy(&g.quads[4 * q], quad, sizeof quad);
            memcpy(&g.triangles[6 * q], tri, sizeof tri);
        }
    return g;
}

static void grid_free(grid_mesh *g)
{
    free(g->xyz);
    free(g->xyz64);
    free(g->quads);
    free(g->triangles);
}

static sinew_prep_mesh quad_mesh(const grid_mesh *g)
{
    sinew_prep_mesh m = sinew_prep_mesh_default();
    m.vertex_count = g->nx * g->ny;
    m.positions = g->xyz;
    m.quad_count = (g->nx - 1) * (g->ny - 1);
    m.quads = g->quads;
    return m;
}

static sinew_asset *load(const sinew_prep_output *out)
{
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_asset_load_memory(out->bytes, out->size, "built", NULL, &a), SINEW_RESULT_OK);
    return a;
}

/* Edges of an nx x ny grid of quads: along x, along z; those on the boundary. */
static uint32_t grid_edges(uint32_t nx, uint32_t ny) { return (nx - 1) * ny + nx * (ny - 1); }
static uint32_t grid_boundary(uint32_t nx, uint32_t ny) { return 2 * (nx - 1) + 2 * (ny - 1); }

Test(prep_api, quad_mesh_in_memory_to_loaded_asset)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    grid_mesh g = grid_make(12, 9);
    sinew_prep_mesh mesh = quad_mesh(&g);
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    uint32_t pins[2] = {0, 11};
    o.pins = pins;
    o.pin_count = 2;
    sinew_prep_output out;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    cr_assert(out.bytes && out.size > 0);
    sinew_asset *a = load(&out);
    sinew_asset_info info = sinew_asset_get_info(a);
    uint32_t quads = 11 * 8, edges = grid_edges(12, 9);
    /* Particles are the vertices; a quad gives two triangles, its edges
     * stretch and its two diagonals shear; every interior edge of the
     * triangulation (the quads' interior edges and one diagonal each) a hinge. */
    cr_expect_eq(info.particle_count, 12 * 9);
    cr_expect_eq(info.pinned_count, 2);
    cr_expect_eq(info.triangle_count, 2 * quads);
    cr_expect_eq(out.report.stretch_count, edges);
    cr_expect_eq(out.report.shear_count, 2 * quads);
    cr_expect_eq(info.distance_count, edges + 2 * quads);
    cr_expect_eq(out.report.bend_count, edges - grid_boundary(12, 9) + quads);
    cr_expect_eq(info.bend_count, out.report.bend_count);
    cr_expect_eq(out.report.particle_count, info.particle_count);
    cr_expect_eq(out.report.colour_count, info.colour_count);
    cr_expect_gt(info.cluster_passes, 0u, "clustered sweeps by default");
    cr_expect_float_eq(info.total_mass, 0.2f * (1.0f - 2.0f / (12 * 9)), 0.02f, "0.2 kg/m^2 over 1 m^2, pins aside");
    /* The positions are the mesh's. */
    float *xyz = malloc(sizeof *xyz * 3 * info.particle_count);
    sinew_asset_get_positions(a, xyz);
    cr_expect_eq(memcmp(xyz, g.xyz, sizeof *xyz * 3 * info.particle_count), 0);
    cr_expect_eq(c.errors + c.warnings, 0, "%s", c.text);
    cr_log_info("12x9 quads: %zu bytes, %u distances, %u bends, %u colours, %u clustered passes", out.size,
                info.distance_count, info.bend_count, info.colour_count, info.cluster_passes);
    free(xyz);
    sinew_asset_destroy(a);
    sinew_prep_output_free(&out);
    cr_expect_null(out.bytes);
    grid_free(&g);
}

Test(prep_api, float_and_double_positions_and_the_grid_function_give_the_same_bytes)
{
    grid_mesh g = grid_make(10, 10);
    sinew_prep_mesh mesh = quad_mesh(&g);
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    o.name = "grid";
    o.free_parts = 1;
    sinew_prep_output a, b, c, d;
    /* The grid in double, as sinew_prep_cloth_grid makes it (same vertex and
     * face order): the same asset. */
    mesh.positions = NULL;
    mesh.positions_f64 = g.xyz64;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, NULL, &a), SINEW_RESULT_OK);
    sinew_prep_grid grid = sinew_prep_grid_default();
    grid.nx = grid.ny = 10;
    grid.pin_corners = 0;
    cr_assert_eq(sinew_prep_cloth_grid(&grid, &o, NULL, &b), SINEW_RESULT_OK);
    cr_expect(a.size == b.size && !memcmp(a.bytes, b.bytes, a.size), "the grid function: the same asset");
    /* Floats, and the same floats as doubles: the same asset. */
    mesh.positions = g.xyz;
    mesh.positions_f64 = NULL;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, NULL, &c), SINEW_RESULT_OK);
    for (uint32_t k = 0; k < 300; k++)
        g.xyz64[k] = g.xyz[k];
    mesh.positions = NULL;
    mesh.positions_f64 = g.xyz64;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, NULL, &d), SINEW_RESULT_OK);
    cr_expect(c.size == d.size && !memcmp(c.bytes, d.bytes, c.size), "float and double positions: one asset");
    sinew_prep_output_free(&a);
    sinew_prep_output_free(&b);
    sinew_prep_output_free(&c);
    sinew_prep_output_free(&d);
    grid_free(&g);
}

Test(prep_api, triangles_have_no_shear_and_uvs_are_accepted)
{
    grid_mesh g = grid_make(8, 8);
    sinew_prep_mesh mesh = quad_mesh(&g);
    mesh.quad_count = 0;
    mesh.quads = NULL;
    mesh.triangle_count = 2 * 7 * 7;
    mesh.triangles = g.triangles;
    float *uv = calloc(2 * 64, sizeof *uv), *normal = calloc(3 * 64, sizeof *normal);
    for (int v = 0; v < 64; v++)
        normal[3 * v + 1] = 1.0f;
    mesh.uvs = uv;
    mesh.normals = normal;
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    o.free_parts = 1;
    sinew_asset *asset = NULL;
    sinew_prep_report rep;
    cr_assert_eq(sinew_prep_cloth_asset(&mesh, &o, NULL, &asset, &rep), SINEW_RESULT_OK);
    sinew_asset_info info = sinew_asset_get_info(asset);
    cr_expect_eq(rep.shear_count, 0, "triangles have no quad diagonals");
    cr_expect_eq(rep.stretch_count, grid_edges(8, 8) + 49, "the edges and the diagonals the triangles hold");
    cr_expect_eq(info.distance_count, rep.stretch_count);
    cr_expect_eq(info.triangle_count, 98);
    sinew_asset_destroy(asset);
    free(uv);
    free(normal);
    grid_free(&g);
}

/* A tube as a renderer holds it: nu columns around the y axis, nv rows, and
 * its seam column twice, at u = 0 (column 0) and u = 1 (column nu), the same
 * positions bit for bit. Vertex (i, j) is j * (nu + 1) + i; quads (i, j) to
 * (i + 1, j + 1). */
typedef struct tube_mesh {
    uint32_t nu, nv;
    float *xyz, *uv;
    uint32_t *quads;
} tube_mesh;

static tube_mesh tube_make(uint32_t nu, uint32_t nv)
{
    tube_mesh t = {nu, nv};
    uint32_t n = (nu + 1) * nv;
    t.xyz = malloc(sizeof *t.xyz * 3 * n);
    t.uv = malloc(sizeof *t.uv * 2 * n);
    t.quads = malloc(sizeof *t.quads * 4 * nu * (nv - 1));
    for (uint32_t j = 0; j < nv; j++)
        for (uint32_t i = 0; i <= nu; i++) {
            uint32_t v = j * (nu + 1) + i;
            double a = 6.283185307179586 * (i % nu) / nu; /* column nu is column 0 again */
            t.xyz[3 * v] = (float)(0.3 * cos(a));
            t.xyz[3 * v + 1] = 1.0f + 0.1f * (float)j;
            t.xyz[3 * v + 2] = (float)(0.3 * sin(a));
            t.uv[2 * v] = (float)i / (float)nu;
            t.uv[2 * v + 1] = (float)j / (float)(nv - 1);
        }
    for (uint32_t j = 0, q = 0; j + 1 < nv; j++)
        for (uint32_t i = 0; i < nu; i++, q++) {
            uint32_t a = j * (nu + 1) + i, quad[4] = {a, a + nu + 1, a + nu + 2, a + 1};
            memcpy(&t.quads[4 * q], quad, sizeof quad);
        }
    return t;
}

static void tube_free(tube_mesh *t)
{
    free(t->xyz);
    free(t->uv);
    free(t->quads);
}

static int has_pair(const uint32_t *pairs, uint32_t count, uint32_t a, uint32_t b)
{
    for (uint32_t k = 0; k < count; k++)
        if ((pairs[2 * k] == a && pairs[2 * k + 1] == b) || (pairs[2 * k] == b && pairs[2 * k + 1] == a))
            return 1;
    return 0;
}

Test(prep_api, a_mesh_split_at_its_uv_seam_is_one_cloth_that_keeps_its_render_mesh)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    const uint32_t nu = 12, nv = 6, n = (nu + 1) * nv, quads = nu * (nv - 1);
    tube_mesh t = tube_make(nu, nv);
    sinew_prep_mesh mesh = sinew_prep_mesh_default();
    mesh.vertex_count = n;
    mesh.positions = t.xyz;
    mesh.quad_count = quads;
    mesh.quads = t.quads;
    mesh.uvs = t.uv;
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    /* Pins name the vertices given: the top row's seam vertex at u = 1 (past
     * the welded count) and the one opposite it. */
    const uint32_t seam_top = (nv - 1) * (nu + 1) + nu, opposite_top = (nv - 1) * (nu + 1) + nu / 2;
    uint32_t pins[2] = {seam_top, opposite_top};
    o.pins = pins;
    o.pin_count = 2;
    sinew_asset *a = NULL;
    sinew_prep_report rep;
    cr_assert_eq(sinew_prep_cloth_asset(&mesh, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    sinew_asset_info info = sinew_asset_get_info(a);
    cr_expect_eq(info.particle_count, nu * nv, "the seam column welded onto column 0");
    cr_expect_eq(rep.welded_vertices, nv);
    cr_expect_eq(rep.dropped_vertices, 0);
    cr_expect_eq(rep.part_count, 1, "one cloth, not a sheet cut open at its seam");
    cr_expect_eq(info.pinned_count, 2);
    cr_expect_eq(rep.stretch_count, nu * nv + nu * (nv - 1), "every edge around and along, the seam's included");
    cr_expect_eq(rep.shear_count, 2 * quads);

    sinew_render_info ri = sinew_asset_get_render_info(a);
    cr_assert_eq(ri.vertex_count, n, "a render vertex for each vertex given");
    cr_assert_eq(ri.index_count, 6 * quads, "two triangles a quad");
    cr_expect(ri.has_uvs);
    cr_expect(!ri.embedded);
    float *uv = malloc(sizeof *uv * 2 * n), *rest = malloc(sizeof *rest * 3 * n);
    uint32_t *indices = malloc(sizeof *indices * ri.index_count), *particle = malloc(sizeof *particle * 4 * n);
    float *weight = malloc(sizeof *weight * 4 * n);
    sinew_asset_get_render_uvs(a, uv);
    sinew_asset_get_render_indices(a, indices);
    sinew_asset_get_render_map(a, particle, weight);
    sinew_asset_get_render_rest(a, rest, NULL);
    cr_expect_arr_eq(uv, t.uv, sizeof *uv * 2 * n, "the UVs given, in order");
    for (uint32_t v = 0; v < n; v++) {
        cr_expect_eq(weight[4 * v], 1.0f, "render vertex %u follows one particle", v);
        for (int k = 0; k < 3; k++)
            cr_expect_eq(rest[3 * v + k], t.xyz[3 * v + k], "render vertex %u rests where it was given", v);
    }
    for (uint32_t q = 0; q < quads; q++) {
        const uint32_t *c4 = t.quads + 4 * q, *tri = indices + 6 * q;
        cr_expect(tri[0] == c4[0] && tri[1] == c4[1] && tri[2] == c4[2] && tri[3] == c4[0] && tri[4] == c4[2] &&
                      tri[5] == c4[3], "quad %u fanned from its first corner, over the vertices given", q);
    }
    /* Across the seam: u = 1 and u = 0 share a particle, and the last column
     * is joined to it by a stretch constraint in every row. */
    uint32_t *pairs = malloc(sizeof *pairs * 2 * info.distance_count);
    sinew_asset_get_distances(a, pairs);
    for (uint32_t j = 0; j < nv; j++) {
        uint32_t at0 = particle[4 * (j * (nu + 1))], at1 = particle[4 * (j * (nu + 1) + nu)];
        uint32_t last = particle[4 * (j * (nu + 1) + nu - 1)];
        cr_expect_eq(at0, at1, "row %u: both sides of the seam are one particle", j);
        cr_expect(has_pair(pairs, info.distance_count, last, at0), "row %u: a constraint crosses the seam", j);
    }
    cr_expect_eq(particle[4 * seam_top], particle[4 * ((nv - 1) * (nu + 1))], "the pin on u = 1 holds column 0");
    sinew_asset_destroy(a);

    /* Subdivided for the multigrid levels (and quadrangulated), the cloth
     * is finer and the render mesh still the tube as given. */
    o.subdivisions = 1;
    cr_assert_eq(sinew_prep_cloth_asset(&mesh, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_expect_gt(sinew_asset_get_info(a).particle_count, nu * nv);
    ri = sinew_asset_get_render_info(a);
    cr_expect(ri.vertex_count == n && ri.index_count == 6 * quads && ri.has_uvs, "subdivided: %u render vertices",
              ri.vertex_count);
    sinew_asset_destroy(a);
    o.subdivisions = 0;
    o.quadrangulate = 1;
    cr_assert_eq(sinew_prep_cloth_asset(&mesh, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_expect_eq(sinew_asset_get_render_info(a).vertex_count, n, "quadrangulated");
    sinew_asset_destroy(a);
    o.quadrangulate = 0;

    /* Without UVs the split vertices still make a render mesh (the vertex
     * buffer a program would draw); a mesh with nothing to add keeps none. */
    mesh.uvs = NULL;
    cr_assert_eq(sinew_prep_cloth_asset(&mesh, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    ri = sinew_asset_get_render_info(a);
    cr_expect_eq(ri.vertex_count, n);
    cr_expect(!ri.has_uvs);
    sinew_asset_destroy(a);
    grid_mesh g = grid_make(6, 6);
    sinew_prep_mesh plain = quad_mesh(&g);
    o = sinew_prep_cloth_options_default();
    o.free_parts = 1;
    cr_assert_eq(sinew_prep_cloth_asset(&plain, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_expect_eq(sinew_asset_get_render_info(a).vertex_count, 0, "no UVs, no vertex split: no render mesh");
    cr_expect_eq(rep.welded_vertices, 0);
    cr_expect_eq(c.warnings, 0, "%s", c.text);
    sinew_asset_destroy(a);
    grid_free(&g);
    free(pairs);
    free(uv);
    free(rest);
    free(indices);
    free(particle);
    free(weight);
    tube_free(&t);
}

Test(prep_api, every_stage_of_the_tool_reaches_the_asset)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    grid_mesh g = grid_make(9, 9);
    sinew_prep_mesh mesh = quad_mesh(&g);
    sinew_prep_output out;
    sinew_asset *a;

    /* HPBD levels */
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    o.free_parts = 1;
    o.hierarchy_levels = 3;
    o.hierarchy_min_particles = 4;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    a = load(&out);
    cr_expect_geq(sinew_asset_get_info(a).hierarchy_levels, 2);
    cr_expect_eq(out.report.hierarchy_levels, sinew_asset_get_info(a).hierarchy_levels);
    sinew_asset_destroy(a);
    sinew_prep_output_free(&out);

    /* multigrid levels: one subdivision of 128 triangles adds a vertex per edge */
    o = sinew_prep_cloth_options_default();
    o.free_parts = 1;
    o.subdivisions = 1;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    a = load(&out);
    sinew_asset_info info = sinew_asset_get_info(a);
    cr_expect_eq(info.multigrid_levels, 2);
    cr_expect_eq(info.multigrid_coarsest_particles, 81);
    cr_expect_eq(info.particle_count, 81 + grid_edges(9, 9) + 64, "a vertex on every edge and quad diagonal");
    cr_expect_eq(info.triangle_count, 4 * 128);
    sinew_asset_destroy(a);
    sinew_prep_output_free(&out);

    /* red-black: a quad network without diagonals splits in two ... */
    o = sinew_prep_cloth_options_default();
    o.free_parts = 1;
    o.shear = 0;
    o.red_black = 1;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    cr_expect_eq(out.report.red_count + out.report.black_count, 81);
    cr_expect_eq(out.report.red_count, 41, "a checkerboard of 9 x 9");
    sinew_prep_output_free(&out);
    /* ... and with diagonals is refused, naming an odd cycle */
    o.shear = 1;
    cr_expect_eq(sinew_prep_cloth(&mesh, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH);
    cr_expect_null(out.bytes);
    cr_expect(strstr(c.text, "cycle") != NULL, "%s", c.text);

    /* membrane and spring elements, greedy colouring, no clusters */
    o = sinew_prep_cloth_options_default();
    o.free_parts = 1;
    o.membrane = SINEW_MATERIAL_STVK;
    o.springs = 1;
    o.spring_compliance = 1e-6;
    o.colouring = SINEW_PREP_COLOURING_GREEDY;
    o.cluster_particles = 0;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    a = load(&out);
    info = sinew_asset_get_info(a);
    cr_expect_eq(info.membrane_count, 128);
    cr_expect_eq(info.spring_count, grid_edges(9, 9) + 2 * 64);
    cr_expect_eq(info.cluster_passes, 0);
    sinew_asset_destroy(a);
    sinew_prep_output_free(&out);

    /* quadrangulate: every quad into four; triangulate: checkerboard triangles */
    o = sinew_prep_cloth_options_default();
    o.free_parts = 1;
    o.quadrangulate = 1;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    cr_expect_eq(out.report.particle_count, 81 + grid_edges(9, 9) + 64);
    sinew_prep_output_free(&out);
    o.quadrangulate = 0;
    o.triangulate = 1;
    cr_assert_eq(sinew_prep_cloth(&mesh, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    cr_expect_eq(out.report.shear_count, 0);
    cr_expect_eq(out.report.triangle_count, 128);
    sinew_prep_output_free(&out);
    grid_free(&g);
}

Test(prep_api, output_written_to_a_file_loads_the_same)
{
    sinew_prep_grid grid = sinew_prep_grid_default();
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    sinew_prep_output out;
    cr_assert_eq(sinew_prep_cloth_grid(&grid, &o, NULL, &out), SINEW_RESULT_OK);
    const char *path = SINEW_TEST_OUT_DIR "/prep_api_grid.snw";
    cr_assert_eq(sinew_prep_output_write(&out, path, NULL), SINEW_RESULT_OK);
    sinew_asset *from_file = NULL;
    cr_assert_eq(sinew_asset_load(path, NULL, &from_file), SINEW_RESULT_OK);
    sinew_asset_info a = sinew_asset_get_info(from_file);
    cr_expect_eq(a.particle_count, 256);
    cr_expect_eq(a.pinned_count, 2, "the grid's corners");
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    char *bytes = malloc(out.size + 1);
    size_t got = fread(bytes, 1, out.size + 1, f);
    fclose(f);
    cr_expect(got == out.size && !memcmp(bytes, out.bytes, out.size), "the file holds the bytes");
    free(bytes);
    sinew_asset_destroy(from_file);
    sinew_prep_output_free(&out);
}

/* A cube of 2 x 2 x 2 vertices as 6 tetrahedra around its diagonal 0-7 (Kuhn). */
static const double cube_xyz[8 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
static const uint32_t cube_tets[6 * 4] = {0, 1, 3, 7, 0, 1, 7, 5, 0, 4, 5, 7, 0, 4, 7, 6, 0, 2, 6, 7, 0, 2, 7, 3};
/* Its surface, 12 triangles wound outwards. */
static const uint32_t cube_faces[12 * 3] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                            2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};

Test(prep_api, soft_bodies_from_tetrahedra_and_from_a_surface)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_prep_volume v = {8, NULL, cube_xyz, 6, cube_tets, NULL};
    sinew_prep_soft_options o = sinew_prep_soft_options_default();
    o.density = 500.0;
    sinew_prep_output out;
    cr_assert_eq(sinew_prep_soft(&v, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    sinew_asset *a = load(&out);
    sinew_asset_info info = sinew_asset_get_info(a);
    cr_expect_eq(info.particle_count, 8);
    cr_expect_eq(info.tet_count, 6);
    cr_expect_eq(info.triangle_count, 12, "the boundary faces");
    cr_expect_float_eq(info.rest_volume, 1.0f, 1e-5f);
    cr_expect_float_eq(out.report.total_mass, 500.0, 1e-3, "1 m^3 of 500 kg/m^3");
    cr_expect_eq(out.report.flipped_tets, 0, "all six positively oriented");
    cr_expect_eq(c.warnings, 0, "%s", c.text);
    sinew_asset_destroy(a);
    sinew_prep_output_free(&out);

    /* Two given the other way round: turned over, with a warning. */
    uint32_t tets[24];
    memcpy(tets, cube_tets, sizeof tets);
    tets[1] = cube_tets[2], tets[2] = cube_tets[1];
    tets[13] = cube_tets[14], tets[14] = cube_tets[13];
    v.tets = tets;
    cr_assert_eq(sinew_prep_soft(&v, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    a = load(&out);
    cr_expect_eq(out.report.flipped_tets, 2);
    cr_expect_eq(c.warnings, 1, "%s", c.text);
    cr_expect_float_eq(sinew_asset_get_info(a).rest_volume, 1.0f, 1e-5f);
    sinew_asset_destroy(a);
    sinew_prep_output_free(&out);

    /* Regions: each its own material. */
    uint32_t regions[6] = {1, 1, 1, 2, 2, 2};
    sinew_prep_region_material m = {2, sinew_material_make(SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 2e6f, 0.3f)};
    m.material.density = 1500.0f;
    v.regions = regions;
    o.regions = &m;
    o.region_count = 1;
    cr_assert_eq(sinew_prep_soft(&v, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    a = load(&out);
    cr_expect_eq(sinew_asset_get_info(a).material_count, 2);
    cr_expect_float_eq(out.report.total_mass, 0.5 * 500.0 + 0.5 * 1500.0, 1e-3);
    sinew_asset_destroy(a);
    sinew_prep_output_free(&out);

    /* The cube's surface as lattice cubes; and through TetGen, or lattice
     * cubes with a warning where it is missing or refuses. */
    sinew_prep_mesh s = sinew_prep_mesh_default();
    s.vertex_count = 8;
    s.positions_f64 = cube_xyz;
    s.triangle_count = 12;
    s.triangles = cube_faces;
    sinew_prep_soft_options so = sinew_prep_soft_options_default();
    so.mesher = SINEW_PREP_MESHER_LATTICE;
    so.lattice_cells = 3;
    cr_assert_eq(sinew_prep_soft_from_surface(&s, &so, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    cr_expect_eq(out.report.tet_count, 6 * 27, "3 x 3 x 3 cubes of 6");
    sinew_prep_output_free(&out);
    so = sinew_prep_soft_options_default();
    so.name = "cube";
    c.text[0] = '\0';
    sinew_asset *t = NULL;
    sinew_prep_report rep;
    cr_assert_eq(sinew_prep_soft_asset(NULL, &s, &so, &lg, &t, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_expect_float_eq(sinew_asset_get_info(t).rest_volume, 1.0f, 0.05f, "the cube's volume");
    cr_log_info("the cube's surface: %u tetrahedra (%s)", rep.tet_count,
                strstr(c.text, "lattice") ? "lattice cubes: TetGen missing or refusing" : "TetGen");
    sinew_asset_destroy(t);
}

/* The cube as a renderer holds it: 4 vertices a face, each face's own UVs. */
Test(prep_api, a_soft_body_from_a_surface_split_at_seams_embeds_its_render_mesh)
{
    static const uint32_t sides[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                         {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    static const float corner_uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    double xyz[24 * 3];
    float uv[24 * 2];
    uint32_t quads[24];
    for (uint32_t f = 0; f < 6; f++)
        for (uint32_t k = 0; k < 4; k++) {
            uint32_t v = 4 * f + k;
            memcpy(&xyz[3 * v], &cube_xyz[3 * sides[f][k]], 3 * sizeof *xyz);
            memcpy(&uv[2 * v], corner_uv[k], sizeof corner_uv[k]);
            quads[v] = v;
        }
    sinew_prep_mesh s = sinew_prep_mesh_default();
    s.vertex_count = 24;
    s.positions_f64 = xyz;
    s.quad_count = 6;
    s.quads = quads;
    s.uvs = uv;
    sinew_prep_soft_options so = sinew_prep_soft_options_default();
    so.mesher = SINEW_PREP_MESHER_LATTICE;
    so.lattice_cells = 2;
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a = NULL;
    sinew_prep_report rep;
    cr_assert_eq(sinew_prep_soft_asset(NULL, &s, &so, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_expect_eq(rep.welded_vertices, 16, "24 face corners on 8 cube corners");
    cr_expect_eq(rep.tet_count, 6 * 8, "the lattice of a closed cube: 2 x 2 x 2 cubes of 6");
    sinew_render_info ri = sinew_asset_get_render_info(a);
    cr_assert_eq(ri.vertex_count, 24);
    cr_expect_eq(ri.index_count, 36);
    cr_expect(ri.has_uvs && ri.embedded);
    float got_uv[48], rest[72];
    uint32_t indices[36];
    sinew_asset_get_render_uvs(a, got_uv);
    sinew_asset_get_render_rest(a, rest, NULL);
    sinew_asset_get_render_indices(a, indices);
    cr_expect_arr_eq(got_uv, uv, sizeof uv);
    for (uint32_t v = 0; v < 24; v++)
        for (int k = 0; k < 3; k++)
            cr_expect_float_eq(rest[3 * v + k], (float)xyz[3 * v + k], 1e-5f, "render vertex %u embedded where given", v);
    for (uint32_t f = 0; f < 6; f++)
        cr_expect(indices[6 * f] == 4 * f && indices[6 * f + 2] == 4 * f + 2 && indices[6 * f + 5] == 4 * f + 3,
                  "face %u fanned over its own vertices", f);
    sinew_asset_destroy(a);
}

Test(prep_api, colouring_a_constraint_graph)
{
    /* a chain of 6 springs over 7 particles, and a triangle's three springs */
    uint32_t offsets[10], indices[18];
    for (uint32_t c = 0; c < 6; c++) {
        offsets[c] = 2 * c;
        indices[2 * c] = c;
        indices[2 * c + 1] = c + 1;
    }
    uint32_t tri[6] = {7, 8, 8, 9, 9, 7};
    memcpy(&indices[12], tri, sizeof tri);
    for (uint32_t c = 6; c <= 9; c++)
        offsets[c] = 2 * c;
    uint32_t colour[9], count = 0;
    for (int method = 0; method < 2; method++) {
        cr_assert_eq(sinew_prep_colour(9, offsets, indices, 10, (sinew_prep_colouring)method, NULL, colour, &count),
                     SINEW_RESULT_OK);
        cr_expect_eq(count, 3, "a triangle needs three colours, a chain two");
        for (uint32_t a = 0; a < 9; a++)
            for (uint32_t b = a + 1; b < 9; b++) {
                int share = 0;
                for (int i = 0; i < 2; i++)
                    for (int j = 0; j < 2; j++)
                        share |= indices[2 * a + i] == indices[2 * b + j];
                cr_expect(!share || colour[a] != colour[b], "constraints %u and %u share a particle and a colour", a, b);
            }
    }
}

/* Each refusal: the result, a message naming the problem, nothing returned. */
static void expect_refused(sinew_result got, sinew_result want, const capture *c, const sinew_prep_output *out,
                           const char *needle, const char *what)
{
    cr_expect_eq(got, want, "%s: %s, not %s", what, sinew_result_string(got), sinew_result_string(want));
    cr_expect_geq(c->errors, 1, "%s: an error message", what);
    cr_expect(strstr(c->text, needle) != NULL, "%s: the message names it (\"%s\"): %s", what, needle, c->text);
    if (out)
        cr_expect(out->bytes == NULL && out->size == 0, "%s: nothing returned", what);
}

Test(prep_api, bad_input_refused_with_a_message)
{
    capture c;
    sinew_logger lg;
    grid_mesh g = grid_make(4, 4);
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    sinew_prep_output out;
    sinew_prep_mesh m;

#define TRY(call, want, needle, what)  \
    do {                               \
        lg = capture_logger(&c);       \
        sinew_result r_ = (call);      \
        expect_refused(r_, want, &c, &out, needle, what); \
    } while (0)

    TRY(sinew_prep_cloth(NULL, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "mesh is NULL", "NULL mesh");
    m = quad_mesh(&g);
    TRY(sinew_prep_cloth(&m, NULL, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "options are NULL", "NULL options");
    sinew_prep_cloth_options raw;
    memset(&raw, 0, sizeof raw);
    TRY(sinew_prep_cloth(&m, &raw, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "sinew_prep_cloth_options_default",
        "options not from the default");
    lg = capture_logger(&c);
    cr_expect_eq(sinew_prep_cloth(&m, &o, &lg, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(c.text, "out is NULL"), "%s", c.text);

    g.xyz[3 * 5 + 1] = NAN;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "vertex 5", "NaN position");
    g.xyz[3 * 5 + 1] = INFINITY;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "not finite", "infinite position");
    g.xyz[3 * 5 + 1] = 1.0f;
    m.positions_f64 = g.xyz64;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "both", "two positions arrays");
    m.positions = NULL;
    m.positions_f64 = NULL;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "neither", "no positions");
    g.xyz64[7] = 1e300; /* finite in double, not in float */
    m.positions_f64 = g.xyz64;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "single precision", "huge position");
    m = quad_mesh(&g);

    g.quads[4 * 3 + 2] = 16;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "quad 3, corner 2: vertex index 16 out of range",
        "index out of range");
    g.quads[4 * 3 + 2] = UINT32_MAX;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "out of range", "index UINT32_MAX");
    g = (grid_free(&g), grid_make(4, 4));
    m = quad_mesh(&g);
    m.quad_count = 0;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "no faces", "zero faces");
    m = quad_mesh(&g);
    m.quads = NULL;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "quads is NULL", "NULL quads");
    m = quad_mesh(&g);
    m.vertex_count = 0;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "out of range", "no vertices");
    m.vertex_count = SINEW_PREP_MAX_VERTICES + 1u; /* refused before the arrays are read */
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_LIMIT, "exceed the limit", "too many vertices");
    m = quad_mesh(&g);
    float bad_uv[32] = {0};
    bad_uv[9] = NAN;
    m.uvs = bad_uv;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "uv", "NaN uv");
    m = quad_mesh(&g);
    /* a degenerate mesh: every vertex at one point */
    for (int k = 0; k < 48; k++)
        g.xyz[k] = 0.25f;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "no usable faces", "all faces degenerate");
    g = (grid_free(&g), grid_make(4, 4));
    m = quad_mesh(&g);

    o.pin_count = 3;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "pins is NULL", "NULL pins");
    uint32_t pin = 16;
    o.pins = &pin;
    o.pin_count = 1;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "pin index 16", "pin out of range");
    o = sinew_prep_cloth_options_default();
    o.density = -1.0;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "density", "negative density");
    o = sinew_prep_cloth_options_default();
    o.hierarchy_levels = 1;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "hierarchy_levels", "one level");
    o = sinew_prep_cloth_options_default();
    o.subdivisions = 12;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "subdivisions 12", "12 subdivisions");
    o = sinew_prep_cloth_options_default();
    o.triangulate = o.quadrangulate = 1;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "undo each other", "both reworks");
    o = sinew_prep_cloth_options_default();
    o.colouring = (sinew_prep_colouring)7;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "colouring 7", "unknown colouring");
    o = sinew_prep_cloth_options_default();
    o.cluster_particles = 8;
    TRY(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "clusters of 8", "tiny clusters");

    sinew_prep_grid grid = sinew_prep_grid_default();
    grid.nx = 1;
    TRY(sinew_prep_cloth_grid(&grid, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "1 x 16", "1-wide grid");
    grid = sinew_prep_grid_default();
    grid.size_x = NAN;
    TRY(sinew_prep_cloth_grid(&grid, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "finite sizes", "NaN size");
    TRY(sinew_prep_cloth_grid(NULL, &o, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "grid is NULL", "NULL grid");

    /* soft bodies */
    sinew_prep_soft_options so = sinew_prep_soft_options_default();
    sinew_prep_volume v = {8, NULL, cube_xyz, 6, cube_tets, NULL};
    TRY(sinew_prep_soft(NULL, &so, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "volume is NULL", "NULL volume");
    v.tet_count = 0;
    TRY(sinew_prep_soft(&v, &so, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "no tetrahedra", "zero tetrahedra");
    uint32_t bad_tets[4] = {0, 1, 2, 8};
    v = (sinew_prep_volume){8, NULL, cube_xyz, 1, bad_tets, NULL};
    TRY(sinew_prep_soft(&v, &so, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "8", "tetrahedron index out of range");
    uint32_t flat[4] = {0, 1, 2, 3}; /* four corners of one face */
    v.tets = flat;
    TRY(sinew_prep_soft(&v, &so, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "degenerate", "flat tetrahedron");
    v = (sinew_prep_volume){8, NULL, cube_xyz, 6, cube_tets, NULL};
    so.youngs_modulus = 0.0;
    TRY(sinew_prep_soft(&v, &so, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "oung", "zero Young's modulus");
    so = sinew_prep_soft_options_default();
    so.model = SINEW_MATERIAL_STVK;
    TRY(sinew_prep_soft(&v, &so, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "NEO_HOOKEAN", "a membrane model");
    so = sinew_prep_soft_options_default();
    so.region_count = 2;
    TRY(sinew_prep_soft(&v, &so, &lg, &out), SINEW_RESULT_ERROR_INVALID_ARGUMENT, "regions is NULL", "NULL regions");
    so = sinew_prep_soft_options_default();
    sinew_prep_mesh open_sheet = quad_mesh(&g);
    so.mesher = SINEW_PREP_MESHER_LATTICE;
    TRY(sinew_prep_soft_from_surface(&open_sheet, &so, &lg, &out), SINEW_RESULT_ERROR_BAD_MESH, "encloses",
        "an open sheet");
    lg = capture_logger(&c);
    sinew_asset *asset = (sinew_asset *)&c; /* must come back NULL */
    cr_expect_eq(sinew_prep_soft_asset(&v, &open_sheet, &so, &lg, &asset, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect_null(asset);
    cr_expect(strstr(c.text, "exactly one"), "%s", c.text);

    /* colouring */
    uint32_t offsets[2] = {0, 2}, indices[2] = {0, 5}, colour[1], count;
    lg = capture_logger(&c);
    cr_expect_eq(sinew_prep_colour(1, offsets, indices, 3, SINEW_PREP_COLOURING_BALANCED, &lg, colour, &count),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(c.text, "particle index 5 out of range"), "%s", c.text);
    lg = capture_logger(&c);
    cr_expect_eq(sinew_prep_colour(1, offsets, NULL, 3, SINEW_PREP_COLOURING_BALANCED, &lg, colour, &count),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(c.text, "indices is NULL"), "%s", c.text);
#undef TRY
    grid_free(&g);
}

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A build is estimated from its input's sizes before any work, and one past
 * options.max_memory is refused at once, naming the estimate, the limit and
 * the option (docs/prep-library.md#estimates): 11 subdivisions of one quad
 * are 8.4 million triangles, some 4 GiB, a minute's work. */
Test(prep_api, a_build_past_max_memory_is_refused_before_any_work)
{
    capture c;
    sinew_logger lg;
    sinew_prep_output out;
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    const sinew_prep_soft_options so_default = sinew_prep_soft_options_default();
    cr_assert_gt(o.max_memory, 0, "the default: half the machine's memory");
    cr_expect_eq(o.max_memory, so_default.max_memory);

    grid_mesh one = grid_make(2, 2);
    sinew_prep_mesh m = quad_mesh(&one);
    o.subdivisions = 11;
    o.max_memory = 64ull << 20;
    lg = capture_logger(&c);
    double t0 = now_seconds();
    sinew_result r = sinew_prep_cloth(&m, &o, &lg, &out);
    double took = now_seconds() - t0;
    expect_refused(r, SINEW_RESULT_ERROR_LIMIT, &c, &out, "subdivisions 11 needs about", "11 subdivisions, 64 MiB");
    cr_expect(strstr(c.text, "past the limit of 64 MiB; options.max_memory raises it"), "%s", c.text);
    cr_expect_lt(took, 0.5, "refused in %.3f s: before the work", took);

    /* The same through the grid entry point, and a whole build within it. */
    sinew_prep_grid grid = sinew_prep_grid_default();
    grid.nx = grid.ny = 2;
    lg = capture_logger(&c);
    expect_refused(sinew_prep_cloth_grid(&grid, &o, &lg, &out), SINEW_RESULT_ERROR_LIMIT, &c, &out,
                   "options.max_memory", "the grid, 11 subdivisions");
    o.subdivisions = 2;
    lg = capture_logger(&c);
    cr_expect_eq(sinew_prep_cloth(&m, &o, &lg, &out), SINEW_RESULT_OK, "%s", c.text);
    sinew_prep_output_free(&out);

    /* Under the default, 11 subdivisions of 8 quads (67 million triangles,
     * some 32 GiB) on a machine of less than 64 GiB. */
    grid_mesh eight = grid_make(9, 2);
    sinew_prep_mesh m8 = quad_mesh(&eight);
    sinew_prep_cloth_options d = sinew_prep_cloth_options_default();
    d.subdivisions = 11;
    if (d.max_memory < (32ull << 30)) {
        lg = capture_logger(&c);
        t0 = now_seconds();
        r = sinew_prep_cloth(&m8, &d, &lg, &out);
        took = now_seconds() - t0;
        expect_refused(r, SINEW_RESULT_ERROR_LIMIT, &c, &out, "GiB of memory", "11 subdivisions, the default");
        cr_expect_lt(took, 0.5, "refused in %.3f s", took);
    } else {
        cr_log_info("half this machine's memory is %llu bytes: 8 quads subdivided 11 times fit",
                    (unsigned long long)d.max_memory);
    }

    /* Soft bodies: the tetrahedra given, and a surface as lattice cubes. */
    sinew_prep_soft_options so = sinew_prep_soft_options_default();
    so.max_memory = 1024;
    sinew_prep_volume v = {8, NULL, cube_xyz, 6, cube_tets, NULL};
    lg = capture_logger(&c);
    expect_refused(sinew_prep_soft(&v, &so, &lg, &out), SINEW_RESULT_ERROR_LIMIT, &c, &out, "options.max_memory",
                   "six tetrahedra in 1 KiB");
    sinew_prep_mesh s = sinew_prep_mesh_default();
    s.vertex_count = 8;
    s.positions_f64 = cube_xyz;
    s.triangle_count = 12;
    s.triangles = cube_faces;
    so = sinew_prep_soft_options_default();
    so.mesher = SINEW_PREP_MESHER_LATTICE;
    so.lattice_cells = 200; /* 8 million cubes inside: 48 million tetrahedra, some 11 GiB */
    so.max_memory = 1ull << 30;
    lg = capture_logger(&c);
    t0 = now_seconds();
    r = sinew_prep_soft_from_surface(&s, &so, &lg, &out);
    took = now_seconds() - t0;
    expect_refused(r, SINEW_RESULT_ERROR_LIMIT, &c, &out, "lattice_cells 200 needs about", "the lattice, 1 GiB");
    cr_expect_lt(took, 0.5, "refused in %.3f s", took);
    grid_free(&one);
    grid_free(&eight);
}
