/* libFuzzer target: the prep library's entry points from arrays
 * (include/sinew/prep.h), as a program calls them with meshes it holds:
 * sinew_prep_cloth, sinew_prep_cloth_grid, sinew_prep_soft,
 * sinew_prep_soft_from_surface (the lattice mesher: no TetGen, no child
 * process) and sinew_prep_colour. fuzz_cloth drives the cloth builder from
 * OBJ text; this one reaches what text cannot say: float or double
 * positions, NaN and huge values, indices out of range, UVs and normals,
 * regions, every option in and out of its range.
 *
 * The input is a byte stream decoded in order (past its end, zeros): byte 0
 * picks the entry, then counts (small, so that each run is quick), values
 * (a byte picks one of the interesting floats below, or the next four bytes
 * are one as they are), indices (a byte modulo a little more than the
 * count, so some are out of range) and options.
 *
 * Promises checked: a refusal is one of the documented codes and leaves the
 * output zeroed; what is built loads (sinew_asset_load_memory) with the
 * counts the report gives; a colouring gives no two constraints sharing a
 * particle the same colour. */
#include "fuzz_common.h"

#include <sinew/asset.h>
#include <sinew/prep.h>

#include <float.h>
#include <string.h>

typedef struct stream {
    const uint8_t *p;
    size_t left;
} stream;

static uint8_t u8(stream *s)
{
    if (!s->left)
        return 0;
    s->left--;
    return *s->p++;
}

static uint32_t u32(stream *s)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++)
        v |= (uint32_t)u8(s) << 8 * k;
    return v;
}

/* A value: one of the table's, a small one, or four bytes as they are. */
static double value(stream *s)
{
    static const double table[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-3, 1e-30, 1e30, -1e30, (double)FLT_MAX,
                                   (double)-FLT_MAX, 1e300, (double)FLT_MIN, 1e-45, NAN, INFINITY, -INFINITY,
                                   0.499999, 0.5000001, 2048.0, 3e7, 1000.0, 0.3};
    const uint8_t tag = u8(s);
    const size_t n = sizeof table / sizeof table[0];
    if (tag < n)
        return table[tag];
    if (tag == 255) {
        const uint32_t w = u32(s);
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    return ((double)tag - 140.0) / 32.0; /* -3.6 .. 3.6 */
}

static uint32_t index_of(stream *s, uint32_t count) { return u8(s) % (count + 2); }

/* Arrays the decoder allocates, freed after the run. */
#define MAX_ALLOCS 16
typedef struct pool {
    void *p[MAX_ALLOCS];
    int n;
} pool;

static void *alloc(pool *pl, size_t bytes)
{
    FUZZ_CHECK(pl->n < MAX_ALLOCS);
    void *p = calloc(1, bytes + 8);
    FUZZ_CHECK(p);
    return pl->p[pl->n++] = p;
}

static void pool_free(pool *pl)
{
    for (int k = 0; k < pl->n; k++)
        free(pl->p[k]);
}

/* Positions of count vertices as floats or doubles (bit 0 of flags). */
static void positions(stream *s, pool *pl, uint32_t count, int f64, const float **pf, const double **pd)
{
    if (f64) {
        double *d = alloc(pl, sizeof *d * 3 * count);
        for (uint32_t i = 0; i < 3 * count; i++)
            d[i] = value(s);
        *pd = d;
    } else {
        float *f = alloc(pl, sizeof *f * 3 * count);
        for (uint32_t i = 0; i < 3 * count; i++)
            f[i] = (float)value(s);
        *pf = f;
    }
}

static uint32_t *indices(stream *s, pool *pl, uint32_t count, uint32_t range)
{
    uint32_t *v = alloc(pl, sizeof *v * count);
    for (uint32_t i = 0; i < count; i++)
        v[i] = index_of(s, range);
    return v;
}

static float *floats(stream *s, pool *pl, uint32_t count)
{
    float *v = alloc(pl, sizeof *v * count);
    for (uint32_t i = 0; i < count; i++)
        v[i] = (float)value(s);
    return v;
}

static sinew_material material(stream *s)
{
    sinew_material m = sinew_material_make((sinew_material_model)(u8(s) % 6), (float)value(s), (float)value(s));
    if (u8(s) & 1) {
        m.thickness = (float)value(s);
        m.density = (float)value(s);
        m.compliance = (float)value(s);
    }
    return m;
}

static sinew_prep_mesh mesh(stream *s, pool *pl)
{
    sinew_prep_mesh m = sinew_prep_mesh_default();
    const uint8_t flags = u8(s);
    m.vertex_count = u8(s) % 48;
    positions(s, pl, m.vertex_count, flags & 1, &m.positions, &m.positions_f64);
    m.triangle_count = u8(s) % 40;
    m.quad_count = u8(s) % 24;
    if (m.triangle_count || (flags & 2))
        m.triangles = indices(s, pl, 3 * m.triangle_count, m.vertex_count);
    if (m.quad_count || (flags & 4))
        m.quads = indices(s, pl, 4 * m.quad_count, m.vertex_count);
    if (flags & 8)
        m.uvs = floats(s, pl, 2 * m.vertex_count);
    if (flags & 16)
        m.normals = floats(s, pl, 3 * m.vertex_count);
    return m;
}

static sinew_prep_cloth_options cloth_options(stream *s, pool *pl, uint32_t vertices)
{
    sinew_prep_cloth_options o = sinew_prep_cloth_options_default();
    const uint32_t bits = u32(s);
    if (bits & 1)
        o.density = value(s);
    o.shear = !(bits & 2);
    o.bending = !(bits & 4);
    o.triangulate = (bits & 8) != 0;
    o.quadrangulate = (bits & 16) != 0;
    o.colouring = (sinew_prep_colouring)((bits >> 5) % 3);
    static const uint32_t clusters[8] = {0, 16, 64, 256, 512, 15, 513, UINT32_MAX};
    o.cluster_particles = clusters[(bits >> 7) & 7];
    if (bits & (1u << 10)) {
        o.pin_count = u8(s) % 4;
        o.pins = indices(s, pl, o.pin_count, vertices);
    }
    if (bits & (1u << 11)) {
        o.pin_box = 1;
        for (int k = 0; k < 3; k++) {
            o.box_min[k] = value(s);
            o.box_max[k] = value(s);
        }
    }
    if (bits & (1u << 12))
        o.pin_top = value(s);
    o.free_parts = (bits & (1u << 13)) != 0;
    if (bits & (1u << 14)) {
        static const uint32_t membranes[4] = {0, SINEW_MATERIAL_STVK, SINEW_MATERIAL_TABULATED, 7};
        o.membrane = membranes[u8(s) & 3];
        if (u8(s) & 1)
            o.membrane_material = material(s);
    }
    if (bits & (1u << 15)) {
        o.springs = 1;
        o.spring_compliance = value(s);
    }
    o.keep_distances = (bits & (1u << 16)) != 0;
    if (bits & (1u << 17))
        for (int k = 0; k < 3; k++)
            o.warp[k] = value(s);
    if (bits & (1u << 18)) {
        static const uint32_t levels[6] = {0, 1, 2, 3, 32, 33};
        o.hierarchy_levels = levels[u8(s) % 6];
        o.hierarchy_k = u8(s) % 5;
        o.hierarchy_min_particles = u8(s) % 20;
        o.hierarchy_rest = (sinew_prep_hierarchy_rest)(u8(s) % 3);
    }
    if (bits & (1u << 19)) {
        /* each subdivision quadruples the triangles: up to 2 (valid), and 12 (refused) */
        static const uint32_t subdivisions[4] = {0, 1, 2, 12};
        o.subdivisions = subdivisions[u8(s) & 3];
    }
    o.red_black = (bits & (1u << 20)) != 0;
    if (bits & (1u << 21))
        o.name = "fuzz";
    return o;
}

static sinew_prep_soft_options soft_options(stream *s, pool *pl, uint32_t vertices)
{
    sinew_prep_soft_options o = sinew_prep_soft_options_default();
    const uint32_t bits = u32(s);
    if (bits & 1)
        o.model = (sinew_material_model)(u8(s) % 6);
    if (bits & 2) {
        o.youngs_modulus = value(s);
        o.poisson_ratio = value(s);
        o.density = value(s);
    }
    if (bits & 4) {
        o.region_count = u8(s) % 4;
        sinew_prep_region_material *r = alloc(pl, sizeof *r * o.region_count);
        for (uint32_t k = 0; k < o.region_count; k++) {
            r[k].region = u8(s) % 4;
            r[k].material = material(s);
        }
        o.regions = r;
    }
    o.colouring = (sinew_prep_colouring)((bits >> 3) % 3);
    if (bits & 32) {
        o.pin_count = u8(s) % 4;
        o.pins = indices(s, pl, o.pin_count, vertices);
    }
    if (bits & 64) {
        o.pin_box = 1;
        for (int k = 0; k < 3; k++) {
            o.box_min[k] = value(s);
            o.box_max[k] = value(s);
        }
    }
    if (bits & 128)
        o.pin_bottom = value(s);
    o.largest_piece = (bits & 256) != 0;
    /* from a surface: the lattice only (TetGen would be a child process) */
    o.mesher = SINEW_PREP_MESHER_LATTICE;
    static const uint32_t cells[8] = {1, 2, 3, 4, 6, 8, 0, 1025};
    o.lattice_cells = cells[(bits >> 9) & 7];
    o.follow_surface = (bits & (1u << 12)) != 0;
    if (bits & (1u << 13))
        o.name = "fuzz";
    return o;
}

/* A built asset's bytes against its report; a refusal's output zeroed. */
static void check_output(sinew_result r, const sinew_prep_output *out, int cloth)
{
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_MESH || r == SINEW_RESULT_ERROR_LIMIT ||
               r == SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    if (r != SINEW_RESULT_OK) {
        FUZZ_CHECK(!out->bytes && out->size == 0);
        return;
    }
    FUZZ_CHECK(out->bytes && out->size > 0);
    sinew_asset *a = NULL;
    FUZZ_CHECK(sinew_asset_load_memory(out->bytes, out->size, "fuzz.snw", &fuzz_logger, &a) == SINEW_RESULT_OK);
    const sinew_asset_info info = sinew_asset_get_info(a);
    const sinew_prep_report *rep = &out->report;
    FUZZ_CHECK(info.particle_count == rep->particle_count);
    if (cloth)
        FUZZ_CHECK(info.distance_count == rep->stretch_count + rep->shear_count && info.bend_count == rep->bend_count);
    else
        FUZZ_CHECK(info.tet_count == rep->tet_count);
    sinew_asset_destroy(a);
}

static void fuzz_cloth_mesh(stream *s, pool *pl)
{
    const sinew_prep_mesh m = mesh(s, pl);
    const sinew_prep_cloth_options o = cloth_options(s, pl, m.vertex_count);
    sinew_prep_output out;
    const sinew_result r = sinew_prep_cloth(&m, &o, &fuzz_logger, &out);
    check_output(r, &out, 1);
    sinew_prep_output_free(&out);
}

static void fuzz_grid(stream *s, pool *pl)
{
    sinew_prep_grid g = sinew_prep_grid_default();
    static const uint32_t big[4] = {0, 1, 2049, UINT32_MAX};
    const uint8_t flags = u8(s);
    g.nx = flags & 1 ? big[u8(s) & 3] : u8(s) % 24;
    g.ny = flags & 2 ? big[u8(s) & 3] : u8(s) % 24;
    if (flags & 4) {
        g.size_x = value(s);
        g.size_y = value(s);
    }
    if (flags & 8)
        g.height = value(s);
    g.vertical = (flags & 16) != 0;
    g.pin_corners = (flags & 32) != 0;
    const uint32_t n = g.nx <= 2048 && g.ny <= 2048 ? g.nx * g.ny : 0;
    const sinew_prep_cloth_options o = cloth_options(s, pl, n);
    sinew_prep_output out;
    const sinew_result r = sinew_prep_cloth_grid(&g, &o, &fuzz_logger, &out);
    check_output(r, &out, 1);
    sinew_prep_output_free(&out);
}

static void fuzz_soft_volume(stream *s, pool *pl)
{
    sinew_prep_volume v = {0};
    const uint8_t flags = u8(s);
    v.vertex_count = u8(s) % 40;
    positions(s, pl, v.vertex_count, flags & 1, &v.positions, &v.positions_f64);
    v.tet_count = u8(s) % 24;
    if (v.tet_count || (flags & 2))
        v.tets = indices(s, pl, 4 * v.tet_count, v.vertex_count);
    if (flags & 4) {
        uint32_t *regions = alloc(pl, sizeof *regions * v.tet_count);
        for (uint32_t t = 0; t < v.tet_count; t++)
            regions[t] = u8(s) % 5;
        v.regions = regions;
    }
    const sinew_prep_soft_options o = soft_options(s, pl, v.vertex_count);
    sinew_prep_output out;
    const sinew_result r = sinew_prep_soft(&v, &o, &fuzz_logger, &out);
    check_output(r, &out, 0);
    sinew_prep_output_free(&out);
}

static void fuzz_soft_surface(stream *s, pool *pl)
{
    const sinew_prep_mesh m = mesh(s, pl);
    const sinew_prep_soft_options o = soft_options(s, pl, m.vertex_count);
    sinew_prep_output out;
    const sinew_result r = sinew_prep_soft_from_surface(&m, &o, &fuzz_logger, &out);
    check_output(r, &out, 0);
    sinew_prep_output_free(&out);
}

static void fuzz_colour(stream *s, pool *pl)
{
    const uint32_t constraints = u8(s) % 64, particles = u8(s) % 64;
    const uint8_t flags = u8(s);
    uint32_t *offsets = alloc(pl, sizeof *offsets * (constraints + 1)), total = 0;
    for (uint32_t c = 0; c < constraints; c++) { /* with flags bit 0, a byte of 255 steps back */
        const uint8_t step = u8(s);
        offsets[c + 1] = (flags & 1) && step == 255 ? offsets[c] - (offsets[c] > 0) : offsets[c] + step % 5;
        total = offsets[c + 1] > total ? offsets[c + 1] : total;
    }
    uint32_t *idx = indices(s, pl, total, particles); /* as far as any offset reaches */
    if (flags & 2) /* particle indices in range: the colouring is reached */
        for (uint32_t k = 0; k < total; k++)
            idx[k] = particles ? idx[k] % particles : 0;
    uint32_t *colour_of = alloc(pl, sizeof *colour_of * constraints);
    uint32_t colours = 0;
    const sinew_prep_colouring method = (sinew_prep_colouring)((flags >> 2) % 3);
    const sinew_result r =
        sinew_prep_colour(constraints, offsets, idx, particles, method, &fuzz_logger, colour_of, &colours);
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    if (r != SINEW_RESULT_OK || offsets[constraints] != total)
        return;
    for (uint32_t c = 0; c < constraints; c++) {
        FUZZ_CHECK(colour_of[c] < colours);
        for (uint32_t d = c + 1; d < constraints; d++) {
            if (colour_of[c] != colour_of[d])
                continue;
            for (uint32_t i = offsets[c]; i < offsets[c + 1]; i++)
                for (uint32_t j = offsets[d]; j < offsets[d + 1]; j++)
                    FUZZ_CHECK(idx[i] != idx[j]);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    stream s = {data, size};
    pool pl = {{0}, 0};
    switch (u8(&s) % 5) {
    case 0: fuzz_cloth_mesh(&s, &pl); break;
    case 1: fuzz_grid(&s, &pl); break;
    case 2: fuzz_soft_volume(&s, &pl); break;
    case 3: fuzz_soft_surface(&s, &pl); break;
    default: fuzz_colour(&s, &pl); break;
    }
    pool_free(&pl);
    return 0;
}
