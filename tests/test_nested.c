/* Nested triangle meshes by 1 -> 4 subdivision (src/prep/nested.h): sizes,
 * parents, nesting, colourings, the transfers between levels, bad input. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prep/mesh.h"
#include "prep/nested.h"

static sinew_mesh unit_square(void)
{
    sinew_mesh m;
    double origin[3] = {0, 0, 0};
    cr_assert_eq(sinew_mesh_grid(2, 2, 1.0, 1.0, SINEW_GRID_XZ, origin, &m), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_triangulate_quads(&m), SINEW_RESULT_OK);
    return m;
}

static double lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Sizes, parents at their midpoints, triangles on their own level's vertices,
 * colourings valid, on any nested hierarchy. */
static void check_structure(const sinew_nested *n)
{
    for (uint32_t l = 0; l < n->level_count; l++) {
        const sinew_nested_level *L = &n->levels[l];
        if (l > 0) {
            const sinew_nested_level *P = &n->levels[l - 1];
            cr_assert_eq(L->triangle_count, 4 * P->triangle_count);
            for (uint32_t m = P->vertex_count; m < L->vertex_count; m++) {
                uint32_t a = n->parents[2 * m], b = n->parents[2 * m + 1];
                cr_assert(a < P->vertex_count && b < P->vertex_count && a != b, "vertex %u: parents %u %u", m, a, b);
                for (int d = 0; d < 3; d++)
                    cr_assert_float_eq(n->positions[3 * m + d],
                                       0.5 * (n->positions[3 * a + d] + n->positions[3 * b + d]), 1e-15);
            }
        } else {
            for (uint32_t i = 0; i < L->vertex_count; i++)
                cr_assert_eq(n->parents[2 * i], UINT32_MAX);
        }
        for (uint32_t k = 0; k < 3 * L->triangle_count; k++)
            cr_assert_lt(L->triangles[k], L->vertex_count, "level %u", l);
    }
    cr_assert(sinew_nested_colouring_is_valid(n));
}

Test(nested, square_becomes_the_regular_grids)
{
    sinew_mesh m = unit_square();
    sinew_nested n;
    cr_assert_eq(sinew_nested_subdivide(&m, 4, NULL, &n), SINEW_RESULT_OK);
    cr_assert_eq(n.level_count, 5);
    for (uint32_t l = 0; l < 5; l++) {
        uint32_t side = (1u << l) + 1; /* (2^l + 1)^2 vertices, 2 * 4^l triangles */
        cr_expect_eq(n.levels[l].vertex_count, side * side, "level %u", l);
        cr_expect_eq(n.levels[l].triangle_count, 2u << (2 * l));
        cr_expect_leq(n.levels[l].colour_count, 4, "level %u: %u colours", l, n.levels[l].colour_count);
    }
    check_structure(&n);
    /* Area kept, winding kept: every triangle's normal points as the input's. */
    double area = 0.0;
    const sinew_nested_level *F = &n.levels[4];
    for (uint32_t k = 0; k < F->triangle_count; k++) {
        const double *a = &n.positions[3 * F->triangles[3 * k]], *b = &n.positions[3 * F->triangles[3 * k + 1]],
                     *c = &n.positions[3 * F->triangles[3 * k + 2]];
        double ny = (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]);
        double n0y = 0; /* the input's first triangle's normal, y component */
        const double *p = &m.positions[3 * m.face_indices[0]], *q = &m.positions[3 * m.face_indices[1]],
                     *r = &m.positions[3 * m.face_indices[2]];
        n0y = (q[2] - p[2]) * (r[0] - p[0]) - (q[0] - p[0]) * (r[2] - p[2]);
        cr_assert_gt(ny * n0y, 0.0, "triangle %u flipped", k);
        area += 0.5 * fabs(ny);
    }
    cr_expect_float_eq(area, 1.0, 1e-12);
    sinew_nested_free(&n);
    sinew_mesh_free(&m);
}

/* Restriction is the transpose of prolongation, and prolongation reproduces
 * fields linear along the surface exactly. */
Test(nested, transfers_are_transposes_and_exact_on_linear_fields)
{
    sinew_mesh m = unit_square();
    sinew_nested n;
    cr_assert_eq(sinew_nested_subdivide(&m, 3, NULL, &n), SINEW_RESULT_OK);
    uint64_t seed = 7;
    for (uint32_t l = 1; l < n.level_count; l++) {
        const uint32_t nc = n.levels[l - 1].vertex_count, nf = n.levels[l].vertex_count;
        double *f = malloc(sizeof *f * 3 * nf), *c = malloc(sizeof *c * 3 * nc);
        double *rf = malloc(sizeof *rf * 3 * nc), *pc = malloc(sizeof *pc * 3 * nf);
        for (uint32_t i = 0; i < 3 * nf; i++)
            f[i] = lcg(&seed);
        for (uint32_t i = 0; i < 3 * nc; i++)
            c[i] = lcg(&seed);
        sinew_nested_restrict(&n, l, 3, f, rf);
        sinew_nested_prolong(&n, l, 3, c, pc);
        double lhs = 0.0, rhs = 0.0;
        for (uint32_t i = 0; i < 3 * nc; i++)
            lhs += rf[i] * c[i];
        for (uint32_t i = 0; i < 3 * nf; i++)
            rhs += f[i] * pc[i];
        cr_expect_float_eq(lhs, rhs, 1e-12 * (fabs(lhs) + 1.0), "level %u: <Rf,c> %.17g, <f,Pc> %.17g", l, lhs, rhs);
        for (uint32_t i = 0; i < nc; i++)
            for (int d = 0; d < 3; d++)
                c[3 * i + d] = 2.0 * n.positions[3 * i] - 3.0 * n.positions[3 * i + 2] + d;
        sinew_nested_prolong(&n, l, 3, c, pc);
        for (uint32_t i = 0; i < nf; i++)
            for (int d = 0; d < 3; d++)
                cr_assert_float_eq(pc[3 * i + d], 2.0 * n.positions[3 * i] - 3.0 * n.positions[3 * i + 2] + d, 1e-13);
        free(f);
        free(c);
        free(rf);
        free(pc);
    }
    sinew_nested_free(&n);
    sinew_mesh_free(&m);
}

/* Debian's CGAL demo data (GPL/LGPL): a real open surface, subdivided twice. */
Test(nested, cgal_mask_cone)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        cr_skip_test("SINEW_CGAL_DATA is not set");
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/mask_cone.off", dir);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, NULL, &m), SINEW_RESULT_OK);
    sinew_nested n;
    sinew_result r = sinew_nested_subdivide(&m, 2, NULL, &n);
    if (r == SINEW_RESULT_ERROR_BAD_MESH) { /* the model has degenerate triangles: say which and stop */
        cr_skip_test("mask_cone.off has a triangle the subdivision refuses");
    }
    cr_assert_eq(r, SINEW_RESULT_OK);
    check_structure(&n);
    /* V - E + F is kept (E = V' - V new vertices): the surface's topology. */
    for (uint32_t l = 1; l < n.level_count; l++) {
        int64_t v = n.levels[l - 1].vertex_count, e = (int64_t)n.levels[l].vertex_count - v,
                f = n.levels[l - 1].triangle_count;
        int64_t v2 = n.levels[l].vertex_count, f2 = n.levels[l].triangle_count, e2 = 2 * e + 3 * f;
        cr_expect_eq(v - e + f, v2 - e2 + f2, "level %u", l);
    }
    printf("mask_cone: %u -> %u -> %u vertices, colours %u %u %u\n", n.levels[0].vertex_count,
           n.levels[1].vertex_count, n.levels[2].vertex_count, n.levels[0].colour_count, n.levels[1].colour_count,
           n.levels[2].colour_count);
    sinew_nested_free(&n);
    sinew_mesh_free(&m);
}

Test(nested, bad_input_is_refused_by_name)
{
    sinew_mesh m = unit_square();
    sinew_nested n;
    cr_expect_eq(sinew_nested_subdivide(&m, SINEW_NESTED_MAX_LEVELS, NULL, &n), SINEW_RESULT_ERROR_LIMIT);
    sinew_mesh big;
    double o[3] = {0, 0, 0};
    cr_assert_eq(sinew_mesh_grid(11, 11, 1.0, 1.0, SINEW_GRID_XZ, o, &big), SINEW_RESULT_OK);
    cr_assert_eq(sinew_mesh_triangulate_quads(&big), SINEW_RESULT_OK);
    cr_expect_eq(sinew_nested_subdivide(&big, 10, NULL, &n), SINEW_RESULT_ERROR_LIMIT, "200 * 4^10 triangles");
    cr_expect_eq(n.level_count, 0);
    sinew_mesh_free(&big);

    m.face_indices[1] = m.face_indices[0]; /* a repeated corner */
    cr_expect_eq(sinew_nested_subdivide(&m, 1, NULL, &n), SINEW_RESULT_ERROR_BAD_MESH);
    sinew_mesh_free(&m);

    m = unit_square();
    m.face_indices[2] = 99;
    cr_expect_eq(sinew_nested_subdivide(&m, 1, NULL, &n), SINEW_RESULT_ERROR_BAD_MESH);
    sinew_mesh_free(&m);

    double origin[3] = {0, 0, 0};
    cr_assert_eq(sinew_mesh_grid(3, 3, 1.0, 1.0, SINEW_GRID_XZ, origin, &m), SINEW_RESULT_OK);
    cr_expect_eq(sinew_nested_subdivide(&m, 1, NULL, &n), SINEW_RESULT_ERROR_BAD_MESH, "quads");
    sinew_mesh_free(&m);

    m = unit_square();
    for (int d = 0; d < 3; d++) /* three corners in a line: no area */
        m.positions[3 * m.face_indices[2] + d] =
            2.0 * m.positions[3 * m.face_indices[1] + d] - m.positions[3 * m.face_indices[0] + d];
    cr_expect_eq(sinew_nested_subdivide(&m, 1, NULL, &n), SINEW_RESULT_ERROR_BAD_MESH);
    sinew_mesh_free(&m);

    m = unit_square();
    m.face_count = 1; /* the other triangle's corner is on no triangle now */
    cr_expect_eq(sinew_nested_subdivide(&m, 1, NULL, &n), SINEW_RESULT_ERROR_BAD_MESH);
    m.face_count = 2;
    sinew_mesh_free(&m);
}

/* ---------------------------------------------------------------- in an asset */

#include "asset/asset.h"
#include "prep/cloth.h"

static char log_text[4096];
static void on_log(void *user, sinew_log_level level, const char *id, const char *message)
{
    (void)user;
    (void)level;
    snprintf(log_text, sizeof log_text, "[%s] %s", id, message);
}
static sinew_logger capture = {on_log, NULL, SINEW_LOG_ERROR};

/* A square subdivided three times as sinew-prep --subdivide makes it: the
 * cloth of the finest level with the levels attached (no clustered sweeps:
 * its file is format 1.4). */
static sinew_asset *multigrid_asset_of(sinew_nested *n, uint32_t subdivisions)
{
    sinew_mesh m = unit_square();
    sinew_cloth_options opt = sinew_cloth_options_default();
    opt.cluster_particles = 0;
    uint32_t pins[2] = {0, 1};
    opt.pin_indices = pins;
    opt.pin_count = 2;
    sinew_asset *a = NULL;
    cr_assert_eq(sinew_nested_cloth(&m, subdivisions, &opt, NULL, n, &a), SINEW_RESULT_OK);
    sinew_mesh_free(&m);
    return a;
}

static sinew_asset *multigrid_asset(sinew_nested *n) { return multigrid_asset_of(n, 3); }

Test(nested, asset_round_trip_at_version_1_4)
{
    sinew_nested n;
    sinew_asset *a = multigrid_asset(&n), *b = NULL;
    void *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, NULL), SINEW_RESULT_OK);
    uint8_t *p = bytes;
    cr_expect_eq(p[4] | p[5] << 8, 1);
    cr_expect_eq(p[6] | p[7] << 8, 4, "format 1.4");
    cr_assert_eq(sinew_asset_load_memory(bytes, size, "mg.snw", NULL, &b), SINEW_RESULT_OK);
    cr_assert_eq(b->mlevel_count, 4);
    cr_expect_eq(b->mtriangle_count, 2u + 8u + 32u);
    cr_expect_eq(memcmp(a->mlevels, b->mlevels, sizeof *a->mlevels * 4), 0);
    cr_expect_eq(memcmp(a->mtriangles, b->mtriangles, sizeof *a->mtriangles * a->mtriangle_count), 0);
    cr_expect_eq(memcmp(a->parents, b->parents, sizeof *a->parents * a->particle_count), 0);
    cr_expect_eq(memcmp(a->mcolours, b->mcolours, sizeof *a->mcolours * a->mcolour_count), 0);
    cr_expect_eq(memcmp(a->mvertices, b->mvertices, sizeof *a->mvertices * a->mvertex_count), 0);
    for (uint32_t i = 0; i < n.levels[3].vertex_count; i++) {
        cr_expect_eq(b->parents[i].a, n.parents[2 * i]);
        cr_expect_eq(b->parents[i].b, n.parents[2 * i + 1]);
    }
    free(bytes);
    sinew_asset_destroy(a);
    sinew_asset_destroy(b);
    sinew_nested_free(&n);
}

static uint32_t rd32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> 8 * k);
}

/* Recomputes the payload CRCs that lie in the file and the header's, from
 * the layout of docs/asset-format.md (header 32 bytes, a 32-byte table entry
 * per section: offset at 8, size at 16, CRC at 28; header CRC at 12), so a
 * changed byte gets past the checksums to the checks behind them. */
static void fix_crcs(uint8_t *file, size_t size)
{
    if (size < 32)
        return;
    uint64_t n = rd32(file + 8);
    if (32 + 32 * n > size)
        return;
    for (uint64_t i = 0; i < n; ++i) {
        uint8_t *e = file + 32 + 32 * i;
        uint64_t off = rd64(e + 8), len = rd64(e + 16);
        if (off <= size && len <= size - off)
            wr32(e + 28, sinew_crc32(0, file + off, (size_t)len));
    }
    wr32(file + 12, 0);
    wr32(file + 12, sinew_crc32(0, file, 32 + 32 * n));
}

/* A multigrid asset file cut short anywhere is refused; any one byte changed
 * (its checksums made right again) loads or is refused with one message,
 * never read out of bounds or crashed on (the sanitizers run this too). */
Test(nested, asset_file_truncated_or_changed)
{
    sinew_nested n;
    sinew_asset *a = multigrid_asset_of(&n, 2); /* 25 particles, 3 levels */
    void *bytes;
    size_t size;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &size, NULL), SINEW_RESULT_OK);
    uint8_t *copy = malloc(size);
    for (size_t len = 0; len < size; len++) {
        memcpy(copy, bytes, len);
        sinew_asset *b = (sinew_asset *)1;
        cr_assert_eq(sinew_asset_load_memory(copy, len, "cut.snw", &capture, &b), SINEW_RESULT_ERROR_BAD_ASSET,
                     "length %zu", len);
        cr_assert_null(b);
    }
    static const uint8_t masks[] = {0x01, 0x80, 0xFF};
    int refused = 0;
    for (size_t i = 0; i < size; i++)
        for (size_t k = 0; k < sizeof masks; k++) {
            memcpy(copy, bytes, size);
            copy[i] ^= masks[k];
            fix_crcs(copy, size);
            sinew_asset *b = NULL;
            log_text[0] = '\0';
            sinew_result r = sinew_asset_load_memory(copy, size, "changed.snw", &capture, &b);
            cr_assert(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_ASSET, "byte %zu: %s", i,
                      sinew_result_string(r));
            cr_assert_eq(r == SINEW_RESULT_OK, b != NULL, "byte %zu", i);
            cr_assert(r == SINEW_RESULT_OK || log_text[0], "byte %zu refused without a message", i);
            refused += r != SINEW_RESULT_OK;
            sinew_asset_destroy(b);
        }
    cr_log_info("%zu-byte file: every cut refused; %d of %zu one-byte changes refused, the rest loaded", size,
                refused, 3 * size);
    cr_expect_gt(refused, (int)size, "most changes are caught (%d of %zu)", refused, 3 * size);
    free(copy);
    free(bytes);
    sinew_asset_destroy(a);
    sinew_nested_free(&n);
}

/* Each defect refused by sinew_asset_validate, naming section and record. */
Test(nested, asset_defects_are_named)
{
    struct { int k; const char *text; } cases[] = {
        {0, "section MLEV, record 1: 4 particles: levels must grow, the last holding all 81"},
        {1, "section MLEV, record 3: triangles [0, 0 + 127): expected 0 and TRIS' count"},
        {2, "section MTRI, record 3: triangle (5 99 8) of level 1 (9 particles)"},
        {3, "section MPAR, record 0: parents (0, 4294967295) of a coarsest particle"},
        {4, "section MPAR, record 9: parents (0, 0) of a particle of level 2"},
        {5, "section MVTX, record 1: particle 2 of level 0 is coloured twice"},
        {6, "section MLEV, record 0: particles 0 and 2 share a triangle and colour 0"},
        {7, "section MLEV, record 0: reserved fields are not zero"},
        {8, "section MCOL, record 1: begins at 1; expected 1073741824"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sinew_nested n;
        sinew_asset *a = multigrid_asset(&n);
        switch (cases[c].k) {
        case 0: a->mlevels[1].vertex_count = a->mlevels[0].vertex_count; break;
        case 1: a->mlevels[3].triangle_count--; break;
        case 2: a->mtriangles[3].v[1] = 99; break;
        case 3: a->parents[0].a = 0; break;
        case 4: a->parents[9].b = a->parents[9].a = 0; break;
        case 5: a->mvertices[0] = a->mvertices[1]; break;
        case 6: /* level 0's four particles all in its first colour */
            a->mcolours[0] = (sinew_range_rec){0, 4};
            for (uint32_t k = 1; k < a->mlevels[0].colour_count; k++)
                a->mcolours[k] = (sinew_range_rec){4, 0};
            for (uint32_t k = 0; k < 4; k++)
                a->mvertices[k] = k;
            break;
        case 7: a->mlevels[0].reserved[1] = 1; break;
        case 8: a->mcolours[0].count = 1u << 30; break;
        }
        log_text[0] = '\0';
        sinew_result r = sinew_asset_validate(a, "mg.snw", &capture);
        cr_expect_eq(r, SINEW_RESULT_ERROR_BAD_ASSET, "case %d", cases[c].k);
        cr_expect(strstr(log_text, cases[c].text), "case %d: \"%s\" not in \"%s\"", cases[c].k, cases[c].text,
                  log_text);
        sinew_asset_destroy(a);
        sinew_nested_free(&n);
    }
}

Test(nested, attach_refuses_an_asset_of_another_mesh)
{
    sinew_nested n;
    sinew_asset *a = multigrid_asset(&n);
    a->triangles[0].v[0] = a->triangles[0].v[1];
    log_text[0] = '\0';
    cr_expect_eq(sinew_nested_attach(a, &n, &capture), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(log_text, "are not the finest level's"), "%s", log_text);
    sinew_asset_destroy(a);
    sinew_nested_free(&n);
}
