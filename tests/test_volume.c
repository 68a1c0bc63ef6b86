/* Volume meshes and soft-body assets: the Gmsh and TetGen readers agree on one
 * mesh in all five encodings, and on the regions of a two-region bar in the
 * four Gmsh ones, sparse tags and attributes are handled, every kind of
 * malformed input is refused with its file, place and problem (and
 * truncations and corruptions never crash); the box generator's counts,
 * orientation and conformity; the checks and repairs; TetGen run on a real
 * closed surface, and its failures reported; the soft builder's masses, rest
 * shapes, colouring and boundary, and its materials by region. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include "prep/soft.h"
#include "prep/volume.h"
#include "shapes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Records every message so tests can check what was reported. */
typedef struct capture {
    char text[8192];
    int errors, warnings;
} capture;

static void capture_fn(void *user, sinew_log_level level, const char *id, const char *message)
{
    capture *c = user;
    c->errors += level == SINEW_LOG_ERROR;
    c->warnings += level == SINEW_LOG_WARNING;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s\n", message);
}

static sinew_logger capture_logger(capture *c)
{
    memset(c, 0, sizeof *c);
    return (sinew_logger){capture_fn, c, SINEW_LOG_DEBUG};
}

static void ignore(void *user, sinew_log_level level, const char *id, const char *message) {}

/* For inputs whose failure is expected and not under test. */
static const sinew_logger quiet = {ignore, NULL, SINEW_LOG_ERROR};

static char *read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    cr_assert_eq(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return data;
}

static double tet_volume(const sinew_volume *v, uint32_t t)
{
    const uint32_t *q = v->tets + 4 * (size_t)t;
    const double *p = v->positions;
    return sinew_tet_signed_volume(p + 3 * (size_t)q[0], p + 3 * (size_t)q[1], p + 3 * (size_t)q[2],
                                   p + 3 * (size_t)q[3]);
}

static double total_volume(const sinew_volume *v)
{
    double sum = 0.0;
    for (uint32_t t = 0; t < v->tet_count; t++)
        sum += tet_volume(v, t);
    return sum;
}

/* ------------------------------------------------------------ readers */

/* bracket.geo meshed once by Gmsh and saved four ways, and converted to TetGen
 * files (tests/data/make_volume_data.sh): the same vertices, in the same order,
 * and the same tetrahedra. */
Test(volume, five_encodings_of_one_mesh)
{
    const char *files[] = {"bracket-v2.msh", "bracket-v2-bin.msh", "bracket-v4.msh", "bracket-v4-bin.msh",
                           "bracket.node", "bracket.ele"};
    sinew_volume ref = {0};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, files[i]);
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_volume v;
        cr_assert_eq(sinew_volume_read(path, &lg, &v), SINEW_RESULT_OK, "%s: %s", files[i], c.text);
        cr_assert_eq(c.errors, 0, "%s", c.text);
        cr_assert_eq(v.vertex_count, 100, "%s", files[i]);
        cr_assert_eq(v.tet_count, 258, "%s", files[i]);
        /* No physical groups, no region attributes. */
        cr_assert_null(v.regions, "%s", files[i]);
        if (strstr(files[i], ".msh"))
            /* 10 points, 46 lines and 196 triangles beside the tetrahedra. */
            cr_assert(strstr(c.text, "skipped 252 elements that are not 4-node tetrahedra"), "%s", c.text);
        if (i == 0) {
            ref = v;
            /* A block of 2 x 1 x 1 m less a hole of radius 0.3 m, as a polygon. */
            double vol = total_volume(&v);
            cr_assert(vol > 2.0 - 3.14159265358979 * 0.09 && vol < 2.0 - 0.09 * 2.5, "volume %g", vol);
            continue;
        }
        /* ASCII files hold 16 significant digits. */
        for (uint32_t k = 0; k < 3 * ref.vertex_count; k++)
            cr_assert_float_eq(v.positions[k], ref.positions[k], 1e-15, "%s: coordinate %u", files[i], k);
        cr_assert_arr_eq(v.tets, ref.tets, sizeof(uint32_t) * 4 * ref.tet_count, "%s", files[i]);
        sinew_volume_free(&v);
    }
    sinew_volume_free(&ref);
}

/* Format 4.1 with sparse, unordered node tags in two blocks (one parametric),
 * a physical name holding "$Nodes", entities, and points and triangles among
 * the elements. */
Test(volume, msh4_sparse_tags)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/tiny-sparse-v4.msh", &lg, &v), SINEW_RESULT_OK, "%s",
                 c.text);
    cr_assert_eq(v.vertex_count, 5);
    cr_assert_eq(v.tet_count, 2);
    /* Tags 10 3 77 5 42 in file order. */
    const uint32_t tets[8] = {0, 1, 2, 3, 1, 2, 3, 4};
    cr_assert_arr_eq(v.tets, tets, sizeof tets);
    cr_assert_eq(v.positions[3 * 4 + 0], 1.0);
    cr_assert_eq(v.positions[3 * 4 + 2], 1.0);
    cr_assert_eq(v.positions[3 * 3 + 2], 1.0);
    cr_assert(strstr(c.text, "skipped 2 elements"), "%s", c.text);
    /* Volume entity 1 is in physical group 1. */
    const uint32_t regions[2] = {1, 1};
    cr_assert_not_null(v.regions);
    cr_assert_arr_eq(v.regions, regions, sizeof regions);
    sinew_volume_free(&v);
}

Test(volume, msh2_gaps_in_tags_and_other_sections)
{
    const char text[] = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
                        "$Comments\nanything at all, $Elements included\n$EndComments\n"
                        "$Nodes\n4\n100 0 0 0\n7 1 0 0\n30 0 1 0\n2 0 0 1\n$EndNodes\n"
                        "$Elements\n2\n1 2 2 0 1 100 7 30\n2 4 3 1 1 0 100 7 30 2\n$EndElements\n";
    sinew_volume v;
    cr_assert_eq(sinew_volume_read_msh_memory(text, sizeof text - 1, "gaps.msh", &quiet, &v), SINEW_RESULT_OK);
    cr_assert_eq(v.vertex_count, 4);
    cr_assert_eq(v.tet_count, 1);
    const uint32_t tet[4] = {0, 1, 2, 3};
    cr_assert_arr_eq(v.tets, tet, sizeof tet);
    /* Tags 1 1 0: physical group 1. */
    cr_assert_not_null(v.regions);
    cr_assert_eq(v.regions[0], 1);
    sinew_volume_free(&v);
}

/* 0-based points with an attribute and markers, tetrahedra with a region. */
Test(volume, tetgen_attributes_markers_zero_based)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/tiny.ele", &lg, &v), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(v.vertex_count, 5);
    cr_assert_eq(v.tet_count, 2);
    const uint32_t tets[8] = {0, 1, 2, 3, 1, 2, 4, 3};
    cr_assert_arr_eq(v.tets, tets, sizeof tets);
    cr_assert_eq(v.positions[3 * 4 + 1], 1.0);
    const uint32_t regions[2] = {1, 2};
    cr_assert_not_null(v.regions);
    cr_assert_arr_eq(v.regions, regions, sizeof regions);
    sinew_volume_free(&v);
}

/* 10-node tetrahedra keep their corners; 1-based numbering. */
Test(volume, tetgen_ten_nodes_one_based)
{
    const char node[] = "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n";
    const char ele[] = "1 10 0\n1 1 2 3 4 1 2 3 4 1 2\n";
    sinew_volume v;
    cr_assert_eq(sinew_volume_read_tetgen_memory(node, sizeof node - 1, "t.node", ele, sizeof ele - 1, "t.ele",
                                                 &quiet, &v),
                 SINEW_RESULT_OK);
    const uint32_t tet[4] = {0, 1, 2, 3};
    cr_assert_arr_eq(v.tets, tet, sizeof tet);
    sinew_volume_free(&v);
}

static double centroid_x(const sinew_volume *v, uint32_t t)
{
    double x = 0.0;
    for (int k = 0; k < 4; k++)
        x += v->positions[3 * (size_t)v->tets[4 * (size_t)t + k]] / 4.0;
    return x;
}

/* bar.geo, two halves in physical volumes 7 (x < 0.5) and 3 (x > 0.5), in the
 * four Gmsh encodings (tests/data/make_volume_data.sh): the same mesh and the
 * same regions, from element tags (2.2) and from $Entities (4.1). */
Test(volume, regions_in_four_gmsh_encodings)
{
    const char *files[] = {"bar-v2.msh", "bar-v2-bin.msh", "bar-v4.msh", "bar-v4-bin.msh"};
    sinew_volume ref = {0};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, files[i]);
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_volume v;
        cr_assert_eq(sinew_volume_read(path, &lg, &v), SINEW_RESULT_OK, "%s: %s", files[i], c.text);
        /* Only the tetrahedra are saved, with physical groups defined. */
        cr_assert_eq(c.warnings + c.errors, 0, "%s: %s", files[i], c.text);
        cr_assert_eq(v.vertex_count, 55, "%s", files[i]);
        cr_assert_eq(v.tet_count, 120, "%s", files[i]);
        cr_assert_not_null(v.regions, "%s", files[i]);
        uint32_t counts[2] = {0, 0};
        for (uint32_t t = 0; t < v.tet_count; t++) {
            uint32_t want = centroid_x(&v, t) < 0.5 ? 7 : 3;
            cr_assert_eq(v.regions[t], want, "%s: tetrahedron %u", files[i], t);
            counts[want == 3]++;
        }
        cr_assert_eq(counts[0], 60);
        cr_assert_eq(counts[1], 60);
        if (i == 0) {
            ref = v;
            continue;
        }
        for (uint32_t k = 0; k < 3 * ref.vertex_count; k++)
            cr_assert_float_eq(v.positions[k], ref.positions[k], 1e-15, "%s: coordinate %u", files[i], k);
        cr_assert_arr_eq(v.tets, ref.tets, sizeof(uint32_t) * 4 * ref.tet_count, "%s", files[i]);
        cr_assert_arr_eq(v.regions, ref.regions, sizeof(uint32_t) * ref.tet_count, "%s", files[i]);
        sinew_volume_free(&v);
    }
    sinew_volume_free(&ref);
}

/* bar.poly meshed by tetgen -pqA: region attributes 5 (x < 0.5) and 2. */
Test(volume, regions_from_tetgen_attributes)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/bar-tetgen.node", &lg, &v), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(v.vertex_count, 48);
    cr_assert_eq(v.tet_count, 68);
    cr_assert_not_null(v.regions);
    for (uint32_t t = 0; t < v.tet_count; t++)
        cr_assert_eq(v.regions[t], centroid_x(&v, t) < 0.5 ? 5u : 2u, "tetrahedron %u", t);
    cr_assert_float_eq(total_volume(&v), 0.04, 1e-12);
    sinew_volume_free(&v);

    /* Reals within rounding of a whole number, further attributes skipped;
     * all in region 0 is no regions. */
    const char node[] = "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n";
    const char ele[] = "2 4 2\n0 0 1 2 3 2.0000000000 0.5\n1 1 2 4 3 4294967295 -7\n";
    cr_assert_eq(sinew_volume_read_tetgen_memory(node, sizeof node - 1, "r.node", ele, sizeof ele - 1, "r.ele",
                                                 &quiet, &v),
                 SINEW_RESULT_OK);
    const uint32_t regions[2] = {2, 4294967295u};
    cr_assert_arr_eq(v.regions, regions, sizeof regions);
    sinew_volume_free(&v);
    const char zero[] = "1 4 1\n0 0 1 2 3 0.0\n";
    cr_assert_eq(sinew_volume_read_tetgen_memory(node, sizeof node - 1, "r.node", zero, sizeof zero - 1, "r.ele",
                                                 &quiet, &v),
                 SINEW_RESULT_OK);
    cr_assert_null(v.regions);
    sinew_volume_free(&v);
}

#define MSH4_HEAD "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
#define TET_NODES4 "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n"

/* 4.1: a volume in several physical groups takes the first, with a warning;
 * without $Entities, or a volume without groups, region 0 (no regions); a
 * partitioned file's regions are not read, with a warning. */
Test(volume, msh4_entities_physical_tags)
{
    const char several[] = MSH4_HEAD "$Entities\n0 0 0 2\n1 0 0 0 1 1 1 2 9 4 0\n2 0 0 0 1 1 1 1 5 0\n"
                                     "$EndEntities\n" TET_NODES4
                                     "$Elements\n2 2 1 2\n3 2 4 1\n1 1 2 3 4\n3 1 4 1\n2 1 2 3 4\n$EndElements\n";
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_read_msh_memory(several, sizeof several - 1, "s.msh", &lg, &v), SINEW_RESULT_OK, "%s",
                 c.text);
    const uint32_t regions[2] = {5, 9};
    cr_assert_not_null(v.regions);
    cr_assert_arr_eq(v.regions, regions, sizeof regions);
    cr_assert(strstr(c.text, "s.msh: 1 volume entities are in several physical groups; each takes the first as its "
                             "region (first: volume entity 1, in 2 groups, region 9)"),
              "%s", c.text);
    sinew_volume_free(&v);

    const char none[] = MSH4_HEAD TET_NODES4 "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n";
    cr_assert_eq(sinew_volume_read_msh_memory(none, sizeof none - 1, "n.msh", &quiet, &v), SINEW_RESULT_OK);
    cr_assert_null(v.regions);
    sinew_volume_free(&v);
    const char no_groups[] = MSH4_HEAD "$Entities\n0 0 0 1\n1 0 0 0 1 1 1 0 0\n$EndEntities\n" TET_NODES4
                                       "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n";
    cr_assert_eq(sinew_volume_read_msh_memory(no_groups, sizeof no_groups - 1, "g.msh", &quiet, &v),
                 SINEW_RESULT_OK);
    cr_assert_null(v.regions);
    sinew_volume_free(&v);
    const char partitioned[] = MSH4_HEAD "$Entities\n0 0 0 1\n1 0 0 0 1 1 1 1 4 0\n$EndEntities\n"
                                         "$PartitionedEntities\n1\n0\n$EndPartitionedEntities\n" TET_NODES4
                                         "$Elements\n1 1 1 1\n3 8 4 1\n1 1 2 3 4\n$EndElements\n";
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_read_msh_memory(partitioned, sizeof partitioned - 1, "p.msh", &lg, &v),
                 SINEW_RESULT_OK, "%s", c.text);
    cr_assert_null(v.regions);
    cr_assert(strstr(c.text, "p.msh: a partitioned mesh ($PartitionedEntities): its regions are not read"), "%s",
              c.text);
    sinew_volume_free(&v);
}

/* Every prefix of the TetGen bar's .ele: refused, or (past its last number)
 * the whole mesh with its regions. */
Test(volume, tetgen_truncations_never_crash)
{
    size_t node_size, ele_size;
    char *node = read_bytes(SINEW_TEST_DATA_DIR "/bar-tetgen.node", &node_size);
    char *ele = read_bytes(SINEW_TEST_DATA_DIR "/bar-tetgen.ele", &ele_size);
    for (size_t cut = 0; cut < ele_size; cut++) {
        char *prefix = malloc(cut + 1);
        memcpy(prefix, ele, cut);
        sinew_volume v;
        sinew_result r = sinew_volume_read_tetgen_memory(node, node_size, "b.node", prefix, cut, "b.ele", &quiet, &v);
        cr_assert(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_MESH, "cut at %zu", cut);
        if (r == SINEW_RESULT_OK)
            cr_assert(v.tet_count == 68 && v.regions, "cut at %zu", cut);
        sinew_volume_free(&v);
        free(prefix);
    }
    free(node);
    free(ele);
}

typedef struct bad_input {
    const char *text;   /* msh; for TetGen, the .node text */
    const char *ele;    /* TetGen's .ele text, NULL for msh */
    sinew_result code;
    const char *expect; /* a part of the message */
} bad_input;

#define MSH2 "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
#define MSH4 "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
#define NODES2 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"
#define NODES4 "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n"
#define NODE_OK "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n"
#define ENTITIES4 "$Entities\n0 0 0 1\n1 0 0 0 1 1 1 1 7 0\n$EndEntities\n"
/* Bytes enough for the counts that a case's lines do not give, so that the
 * problem under test is found rather than the file being too short. */
#define PAD "# padding .......................................\n"

static const bad_input bad_inputs[] = {
    {"", NULL, SINEW_RESULT_ERROR_BAD_MESH, "t.msh:1: empty file"},
    {"solid x\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "not a Gmsh mesh"},
    {"$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "MSH version '3.0' is not"},
    {"$MeshFormat\n4 0 8\n$EndMeshFormat\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "MSH version '4' is not"},
    {"$MeshFormat\n2.2 2 8\n$EndMeshFormat\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "file type 2 out of range"},
    {"$MeshFormat\n2.2 1 4\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "binary MSH 2.2 needs 8-byte reals"},
    {"$MeshFormat\n2.2 1 8\n\1\0\0", NULL, SINEW_RESULT_ERROR_BAD_MESH, "file ends in the binary marker"},
    {"$MeshFormat\n2.2 0 8\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "file ends before $EndMeshFormat"},
    {MSH2, NULL, SINEW_RESULT_ERROR_BAD_MESH, "no $Nodes section"},
    {MSH2 NODES2, NULL, SINEW_RESULT_ERROR_BAD_MESH, "no $Elements section"},
    {MSH2 "$Elements\n0\n$EndElements\n" NODES2, NULL, SINEW_RESULT_ERROR_BAD_MESH, "$Elements before $Nodes"},
    {MSH2 NODES2 NODES2, NULL, SINEW_RESULT_ERROR_BAD_MESH, ":11: a second $Nodes section"},
    {MSH2 "$Foo\n1 2 3\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "section $Foo has no $EndFoo"},
    {MSH2 "junk\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "expected a section ($Name), found 'junk'"},
    {MSH2 "$Nodes\n99999999999\n", NULL, SINEW_RESULT_ERROR_LIMIT, "node count 99999999999 exceeds the limit"},
    {MSH2 "$Nodes\n1000\n1 0 0 0\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "1000 nodes do not fit"},
    {MSH2 "$Nodes\n-4\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "node count -4 out of range"},
    {MSH2 "$Nodes\nfour\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "node count: 'four' is not an integer"},
    {MSH2 "$Nodes\n2\n1 0 0 0\n2 0 nan 0\n$EndNodes\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     ":7: node 2 has a non-finite coordinate"},
    {MSH2 "$Nodes\n2\n1 0 0 0\n2 0 1e999 0\n$EndNodes\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "node 2 has a non-finite coordinate"},
    {MSH2 "$Nodes\n2\n1 0 0 0\n2 0 x 0\n$EndNodes\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "node 2: malformed number 'x'"},
    {MSH2 "$Nodes\n2\n1 0 0 0\n-2 0 0 0\n$EndNodes\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "node tag -2 out of range"},
    {MSH2 "$Nodes\n3\n5 0 0 0\n1 0 0 0\n5 1 1 1\n$EndNodes\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "node tag 5 is given twice"},
    {MSH2 "$Nodes\n2\n1 0 0 0\n2 0 0\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "file ends in the coordinates of node 2"},
    {MSH2 NODES2 "$Elements\n1\n1 4 0 1 2 3 9\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     ":13: element 1: node 9 is not in $Nodes"},
    {MSH2 NODES2 "$Elements\n1\n1 4 0 1 2 3\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "element 1 has 3 nodes, a tetrahedron needs 4"},
    {MSH2 NODES2 "$Elements\n1\n1 4 0 1 2 3 4 4\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "element 1 has more than the 4 values its type needs"},
    {MSH2 NODES2 "$Elements\n1\n1 2 0 1 2 3 4\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "element 1 of type 2 has 4 nodes, needs 3"},
    {MSH2 NODES2 "$Elements\n1\n1 4 3 1 2\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "element 1 ends in its 3 tags"},
    {MSH2 NODES2 "$Elements\n1\n1 4 1048577 1 2\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "element tag count 1048577 out of range"},
    {MSH2 NODES2 "$Elements\n999999999999\n", NULL, SINEW_RESULT_ERROR_LIMIT, "element count 999999999999 exceeds"},
    {MSH2 NODES2 "$Elements\n3\n1 4 0 1 2 3 4\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "3 elements do not fit"},
    {MSH2 NODES2 "$Elements\n2\n1 4 0 1 2 3 4\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "file ends in $Elements"},
    {MSH2 NODES2 "$Elements\n1\n1 4 0 1 2 3 4\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "file ends before $EndElements"},
    {MSH2 NODES2 "$Elements\n1\n1 2 0 1 2 3\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "no 4-node tetrahedra (element type 4)"},
    {MSH2 NODES2 "$Elements\n1\n1 11 0 1 2 3 4 1 2 3 4 1 2\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "only 10-node ones (type 11)"},
    {MSH4 "$Nodes\n1 4 1 4\n3 1 0 5\n" PAD, NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "node block 0 holds 5 nodes, more than the 4"},
    {MSH4 "$Nodes\n1 4 1 4\n5 1 0 4\n" PAD, NULL, SINEW_RESULT_ERROR_BAD_MESH, "entity dimension 5 out of range"},
    {MSH4 "$Nodes\n1 4 1 4\n3 1 2 4\n" PAD, NULL, SINEW_RESULT_ERROR_BAD_MESH, "parametric flag 2 out of range"},
    {MSH4 "$Nodes\n2 4 1 4\n3 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n3 1 0 0\n$EndNodes\n", NULL,
     SINEW_RESULT_ERROR_BAD_MESH, "node blocks hold 3 nodes, the header says 4"},
    {MSH4 "$Nodes\n4294967296 4 1 4\n", NULL, SINEW_RESULT_ERROR_LIMIT, "entity block count 4294967296 exceeds"},
    {MSH4 "$Nodes\n1000 4 1 4\n3 1 0 4\n", NULL, SINEW_RESULT_ERROR_BAD_MESH, "1000 node blocks do not fit"},
    {MSH4 NODES4 "$Elements\n1 2 1 2\n3 1 4 2\n1 1 2 3 4\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "the section ends early: '$EndElements' where element tag was expected"},
    {MSH4 NODES4 "$Elements\n1 2 1 2\n3 1 4 1\n1 1 2 3 4\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "element blocks hold 1 elements, the header says 2"},
    {MSH4 NODES4 "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 0\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "element 1: node 0 is not in $Nodes"},
    {MSH4 NODES4 "$Elements\n1 1 1 1\n3 1 4 3\n1 1 2 3 4\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "element block 0 holds 3 elements, more than the 1"},
    /* Regions: physical groups (2.2 element tags, 4.1 $Entities). */
    {MSH2 NODES2 "$Elements\n1\n1 4 2 -3 1 1 2 3 4\n$EndElements\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     ":13: element 1: physical group -3 is negative (regions are 0 or more)"},
    {MSH4 ENTITIES4 NODES4 "$Elements\n1 1 1 1\n3 2 4 1\n1 1 2 3 4\n$EndElements\n", NULL,
     SINEW_RESULT_ERROR_BAD_MESH, "t.msh:22: element block 0: volume entity 2 is not in $Entities"},
    {MSH4 ENTITIES4 NODES4 "$Elements\n1 1 1 1\n2 1 4 1\n1 1 2 3 4\n$EndElements\n", NULL,
     SINEW_RESULT_ERROR_BAD_MESH, ":22: element block 0 holds tetrahedra but is of dimension 2, not 3"},
    {MSH4 "$Entities\n0 0 0 1\n1 0 0 0 1 1 1 1 -5 0\n$EndEntities\n" NODES4
          "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n",
     NULL, SINEW_RESULT_ERROR_BAD_MESH, "volume entity 1 is in physical group -5, which is negative"},
    {MSH4 ENTITIES4 ENTITIES4, NULL, SINEW_RESULT_ERROR_BAD_MESH, "t.msh:8: a second $Entities section"},
    {MSH4 "$Entities\n0 0 0 2\n1 0 0 0 1 1 1 0 0\n1 0 0 0 1 1 1 0 0\n$EndEntities\n", NULL,
     SINEW_RESULT_ERROR_BAD_MESH, "volume entity 1 is given twice in $Entities"},
    {MSH4 "$Entities\n0 0 0 1000\n" PAD, NULL, SINEW_RESULT_ERROR_BAD_MESH, "1000 volumes do not fit"},
    {MSH4 "$Entities\n0 0 0 4294967296\n", NULL, SINEW_RESULT_ERROR_LIMIT,
     "volume count 4294967296 exceeds the limit"},
    {MSH4 "$Entities\n0 0 0 1\n1 0 0 0 1 1 1 99999 1\n" PAD, NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "99999 physical tags do not fit"},
    {MSH4 "$Entities\n0 0 0 1\n1 0 0 0 1 1 1 0 99999 1\n" PAD, NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "99999 bounding entities do not fit"},
    {MSH4 "$Entities\n0 0 0 1\n1 0 x 0 1 1 1 0 0\n" PAD, NULL, SINEW_RESULT_ERROR_BAD_MESH,
     ":6: entity 1: malformed number 'x'"},
    {MSH4 "$Entities\n1 0 0 0\n1 0 0 0 2 5\n$EndEntities\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "the section ends early: '$EndEntities' where physical tag was expected"},
    {MSH4 "$Entities\n0 0 0 1\n-1 0 0 0 1 1 1 0 0\n$EndEntities\n", NULL, SINEW_RESULT_ERROR_BAD_MESH,
     "entity tag -1 out of range"},
    /* TetGen */
    {"", "", SINEW_RESULT_ERROR_BAD_MESH, "t.node:0: empty file"},
    {"# only a comment\n", "", SINEW_RESULT_ERROR_BAD_MESH, "t.node:1: empty file"},
    {"4 2 0 0\n", "", SINEW_RESULT_ERROR_BAD_MESH, "dimension 2 out of range"},
    {"0 3 0 0\n", "", SINEW_RESULT_ERROR_BAD_MESH, "no points"},
    {"99999999999 3 0 0\n", "", SINEW_RESULT_ERROR_LIMIT, "99999999999 points exceed the limit"},
    {"1000 3 0 0\n0 0 0 0\n", "", SINEW_RESULT_ERROR_BAD_MESH, "1000 points do not fit"},
    {"4 3 0 0\n0 0 0 0\n1 1 0 0\n" PAD, "", SINEW_RESULT_ERROR_BAD_MESH, "t.node:4: file ends after 2 of 4 points"},
    {"4 3 0 0\n5 0 0 0\n" PAD, "", SINEW_RESULT_ERROR_BAD_MESH, "t.node:2: point number 5 out of range (0..1)"},
    {"4 3 0 0\n1 0 0 0\n3 1 0 0\n" PAD, "", SINEW_RESULT_ERROR_BAD_MESH, "t.node:3: point number 3 out of range (2..2)"},
    {"4 3 0 0\n0 0 0 0\n1 1 nan 0\n" PAD, "", SINEW_RESULT_ERROR_BAD_MESH, "point 1 has a non-finite coordinate"},
    {"4 3 0 0\n0 0 0 0\n1 1 0\n" PAD, "", SINEW_RESULT_ERROR_BAD_MESH, "point 1 has 2 coordinates, needs 3"},
    {"4 3 0 0\n0 0 0 0 7\n" PAD, "", SINEW_RESULT_ERROR_BAD_MESH,
     "point 0 has 1 values after its coordinates, the header says 0"},
    {"4 3 1 1\n0 0 0 0 7\n" PAD, "", SINEW_RESULT_ERROR_BAD_MESH,
     "point 0 has 1 values after its coordinates, the header says 2"},
    {NODE_OK "4 0 0 0\n", "", SINEW_RESULT_ERROR_BAD_MESH, "t.node:6: more lines after the 4 points the header counts"},
    {"4 3 0 2\n", "", SINEW_RESULT_ERROR_BAD_MESH, "boundary marker count 2 out of range"},
    {NODE_OK, "", SINEW_RESULT_ERROR_BAD_MESH, "t.ele:0: empty file"},
    {NODE_OK, "1 3 0\n", SINEW_RESULT_ERROR_BAD_MESH, "t.ele:1: nodes per tetrahedron 3 out of range"},
    {NODE_OK, "1 6 0\n", SINEW_RESULT_ERROR_BAD_MESH, "6 nodes per tetrahedron: 4 or 10 expected"},
    {NODE_OK, "0 4 0\n", SINEW_RESULT_ERROR_BAD_MESH, "no tetrahedra"},
    {NODE_OK, "99999999999 4 0\n", SINEW_RESULT_ERROR_LIMIT, "99999999999 tetrahedra exceed the limit"},
    {NODE_OK, "100 4 0\n0 0 1 2 3\n", SINEW_RESULT_ERROR_BAD_MESH, "100 tetrahedra do not fit"},
    {NODE_OK, "2 4 0\n0 0 1 2 3\n1 0 1 2 3\n2 0 1 2 3\n", SINEW_RESULT_ERROR_BAD_MESH,
     "t.ele:4: more lines after the 2 tetrahedra the header counts"},
    {NODE_OK, "2 4 0\n0 0 1 2 3\n" PAD, SINEW_RESULT_ERROR_BAD_MESH, "t.ele:3: file ends after 1 of 2 tetrahedra"},
    {NODE_OK, "1 4 0\n0 0 1 2 7\n", SINEW_RESULT_ERROR_BAD_MESH, "tetrahedron 0: node 7 out of range (points 0..3)"},
    {NODE_OK, "1 4 0\n0 0 1 -1 3\n", SINEW_RESULT_ERROR_BAD_MESH, "node -1 out of range"},
    {NODE_OK, "1 4 0\n0 0 1 2\n" PAD, SINEW_RESULT_ERROR_BAD_MESH, "tetrahedron 0 has 3 nodes, the header says 4"},
    {NODE_OK, "1 4 1\n0 0 1 2 3\n", SINEW_RESULT_ERROR_BAD_MESH, "tetrahedron 0 has 0 values after its nodes"},
    {NODE_OK, "1 4 0\n0 0 1 2 x\n", SINEW_RESULT_ERROR_BAD_MESH, "node: 'x' is not an integer"},
    /* Region attributes. */
    {NODE_OK, "1 4 1\n0 0 1 2 3 1.5\n", SINEW_RESULT_ERROR_BAD_MESH,
     "t.ele:2: tetrahedron 0: region attribute 1.5 is not a whole number"},
    {NODE_OK, "1 4 1\n0 0 1 2 3 -1\n", SINEW_RESULT_ERROR_BAD_MESH,
     "tetrahedron 0: region attribute -1 out of range (0..4294967295)"},
    {NODE_OK, "1 4 1\n0 0 1 2 3 4294967296\n", SINEW_RESULT_ERROR_BAD_MESH, "region attribute 4294967296 out of range"},
    {NODE_OK, "1 4 1\n0 0 1 2 3 x\n", SINEW_RESULT_ERROR_BAD_MESH, "region attribute 'x' is not a number"},
    {NODE_OK, "1 4 1\n0 0 1 2 3 nan\n", SINEW_RESULT_ERROR_BAD_MESH, "region attribute nan is not a whole number"},
    {NODE_OK, "1 4 1\n0 0 1 2 3 inf\n", SINEW_RESULT_ERROR_BAD_MESH, "region attribute inf is not a whole number"},
    {NODE_OK, "1 4 2\n0 0 1 2 3 1\n", SINEW_RESULT_ERROR_BAD_MESH,
     "tetrahedron 0 has 1 values after its nodes, the header says 2"},
};

Test(volume, malformed_inputs_refused_with_their_problem)
{
    for (size_t i = 0; i < sizeof bad_inputs / sizeof bad_inputs[0]; i++) {
        const bad_input *b = &bad_inputs[i];
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_volume v;
        /* Copies without a terminator, so a reader running past the end shows under ASan. */
        size_t n = strlen(b->text), m = b->ele ? strlen(b->ele) : 0;
        char *text = malloc(n + 1), *ele = malloc(m + 1);
        memcpy(text, b->text, n);
        if (b->ele)
            memcpy(ele, b->ele, m);
        /* The binary marker case holds NULs: its length is what the literal says. */
        if (strstr(b->text, "2.2 1 8\n\1"))
            n = strlen(b->text) + 2;
        sinew_result r = b->ele ? sinew_volume_read_tetgen_memory(text, n, "t.node", ele, m, "t.ele", &lg, &v)
                                : sinew_volume_read_msh_memory(text, n, "t.msh", &lg, &v);
        cr_expect_eq(r, b->code, "case %zu: result %d (%s), expected %d; %s", i, r, sinew_result_string(r), b->code,
                     c.text);
        cr_expect(strstr(c.text, b->expect), "case %zu: expected \"%s\" in: %s", i, b->expect, c.text);
        cr_expect(!v.positions && !v.tets && !v.regions && v.vertex_count == 0 && v.tet_count == 0, "case %zu", i);
        free(text);
        free(ele);
    }
}

/* Binary files altered where they are most fragile: sizes and types. */
static char *find_after(char *data, size_t size, const char *marker)
{
    size_t n = strlen(marker);
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(data + i, marker, n) == 0)
            return data + i + n;
    cr_assert_fail("%s not found", marker);
    return NULL;
}

static void expect_binary_refused(char *data, size_t size, const char *expect)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_expect_eq(sinew_volume_read_msh_memory(data, size, "b.msh", &lg, &v), SINEW_RESULT_ERROR_BAD_MESH, "%s",
                 c.text);
    cr_expect(strstr(c.text, "b.msh: byte "), "%s", c.text);
    cr_expect(strstr(c.text, expect), "expected \"%s\" in: %s", expect, c.text);
}

Test(volume, binary_sizes_and_types_refused)
{
    size_t size;
    char *orig = read_bytes(SINEW_TEST_DATA_DIR "/bracket-v2-bin.msh", &size);
    char *data = malloc(size);
    int32_t x;
    /* 2.2: the first element block's header (type, count, tags) follows "$Elements\nM\n". */
    memcpy(data, orig, size);
    char *block = strchr(find_after(data, size, "$Elements\n"), '\n') + 1;
    x = 999;
    memcpy(block, &x, 4);
    expect_binary_refused(data, size, "element type 999 is unknown: its size in binary data cannot be told");
    memcpy(data, orig, size);
    x = 100000;
    memcpy(block + 4, &x, 4);
    expect_binary_refused(data, size, "element block of 100000 elements, more than the 510 the header has left");
    memcpy(data, orig, size);
    x = 1 << 20;
    memcpy(block + 8, &x, 4);
    expect_binary_refused(data, size, "elements do not fit");
    /* The tetrahedra read as 10-node ones: the blocks after them are misread. */
    memcpy(data, orig, size);
    char *p = block;
    for (;;) {
        int32_t head[3];
        memcpy(head, p, sizeof head);
        if (head[0] == 4)
            break;
        cr_assert(head[0] >= 1 && head[0] <= 15);
        uint32_t nodes = head[0] == 15 ? 1 : head[0] == 1 ? 2 : 3;
        p += 12 + (size_t)head[1] * 4 * (1 + head[2] + nodes);
    }
    x = 11;
    memcpy(p, &x, 4);
    expect_binary_refused(data, size, "");
    memcpy(data, orig, size);
    x = 0x01000000;
    memcpy(find_after(data, size, "2.2 1 8\n"), &x, 4);
    expect_binary_refused(data, size, "big-endian");
    free(orig);
    free(data);

    /* 4.1: huge counts in the binary headers of $Nodes and $Elements. */
    orig = read_bytes(SINEW_TEST_DATA_DIR "/bracket-v4-bin.msh", &size);
    data = malloc(size);
    uint64_t big = (uint64_t)1 << 40;
    memcpy(data, orig, size);
    memcpy(find_after(data, size, "$Nodes\n") + 8, &big, 8);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_expect_eq(sinew_volume_read_msh_memory(data, size, "b.msh", &lg, &v), SINEW_RESULT_ERROR_LIMIT, "%s", c.text);
    cr_expect(strstr(c.text, "node count 1099511627776 exceeds the limit"), "%s", c.text);
    memcpy(data, orig, size);
    big = 1000000;
    memcpy(find_after(data, size, "$Elements\n") + 8, &big, 8);
    expect_binary_refused(data, size, "1000000 elements do not fit");
    memcpy(data, orig, size);
    /* The first element block's type (after 4 counts and dim, tag). */
    x = 77;
    memcpy(find_after(data, size, "$Elements\n") + 32 + 8, &x, 4);
    expect_binary_refused(data, size, "element type 77 is unknown");
    free(orig);
    free(data);
}

/* Every prefix of every file is refused (or, past the last token, accepted),
 * and nothing is read beyond it. */
Test(volume, truncations_never_crash, .timeout = 120)
{
    const char *files[] = {"bracket-v2.msh", "bracket-v2-bin.msh", "bracket-v4.msh", "bracket-v4-bin.msh",
                           "tiny-sparse-v4.msh", "bar-v2.msh", "bar-v2-bin.msh", "bar-v4.msh", "bar-v4-bin.msh"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, files[f]);
        size_t size;
        char *data = read_bytes(path, &size);
        for (size_t cut = 0; cut < size; cut += cut + 200 < size ? 3 : 1) {
            char *prefix = malloc(cut + 1);
            memcpy(prefix, data, cut);
            sinew_volume v;
            sinew_result r = sinew_volume_read_msh_memory(prefix, cut, files[f], &quiet, &v);
            /* Only the final newline may go. */
            if (cut + 1 < size)
                cr_assert_neq(r, SINEW_RESULT_OK, "%s cut at %zu of %zu accepted", files[f], cut, size);
            else
                cr_assert_eq(r, SINEW_RESULT_OK, "%s cut at %zu", files[f], cut);
            sinew_volume_free(&v);
            free(prefix);
        }
        free(data);
    }
}

static uint32_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* Random bytes changed in every file: refused, or a mesh whose tetrahedra
 * index its vertices and whose coordinates are finite. */
Test(volume, corruptions_refused_or_consistent, .timeout = 120)
{
    const char *files[] = {"bracket-v2.msh", "bracket-v2-bin.msh", "bracket-v4.msh", "bracket-v4-bin.msh",
                           "tiny-sparse-v4.msh", "tiny.node", "bar-v2-bin.msh", "bar-v4.msh", "bar-v4-bin.msh",
                           "bar-tetgen.ele"};
    uint64_t s = 2024;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", SINEW_TEST_DATA_DIR, files[f]);
        size_t size, other_size = 0;
        char *orig = read_bytes(path, &size), *other = NULL;
        /* TetGen: the .node or the .ele changed, the other as it is. */
        int tetgen = strstr(files[f], ".node") != NULL ? 1 : strstr(files[f], ".ele") != NULL ? 2 : 0;
        if (tetgen) {
            char sibling[512];
            snprintf(sibling, sizeof sibling, "%s", path);
            strcpy(strrchr(sibling, '.'), tetgen == 1 ? ".ele" : ".node");
            other = read_bytes(sibling, &other_size);
        }
        char *data = malloc(size);
        for (int round = 0; round < 400; round++) {
            memcpy(data, orig, size);
            int changes = 1 + (int)(lcg(&s) % 4);
            for (int k = 0; k < changes; k++)
                data[lcg(&s) % size] = (char)(lcg(&s) % 3 == 0 ? (uint32_t)"0123456789 \n-.e$"[lcg(&s) % 16] : lcg(&s));
            sinew_volume v;
            sinew_result r = tetgen == 1   ? sinew_volume_read_tetgen_memory(data, size, "c.node", other, other_size,
                                                                             "c.ele", &quiet, &v)
                             : tetgen == 2 ? sinew_volume_read_tetgen_memory(other, other_size, "c.node", data, size,
                                                                             "c.ele", &quiet, &v)
                                           : sinew_volume_read_msh_memory(data, size, files[f], &quiet, &v);
            cr_assert(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_MESH || r == SINEW_RESULT_ERROR_LIMIT,
                      "%s round %d: %s", files[f], round, sinew_result_string(r));
            /* Plain loops: an assertion per value would take most of the time. */
            int consistent = 1;
            for (size_t k = 0; r == SINEW_RESULT_OK && k < 4 * (size_t)v.tet_count; k++)
                consistent &= v.tets[k] < v.vertex_count;
            for (size_t k = 0; r == SINEW_RESULT_OK && k < 3 * (size_t)v.vertex_count; k++)
                consistent &= isfinite(v.positions[k]) != 0;
            /* Regions, when given, are not all 0. */
            int nonzero = 0;
            for (size_t t = 0; r == SINEW_RESULT_OK && v.regions && t < v.tet_count; t++)
                nonzero |= v.regions[t] != 0;
            consistent &= !v.regions || nonzero;
            cr_assert(consistent, "%s round %d", files[f], round);
            sinew_volume_free(&v);
        }
        free(data);
        free(orig);
        free(other);
    }
}

Test(volume, missing_file_and_unknown_extension)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_read("/nonexistent/x.msh", &lg, &v), SINEW_RESULT_ERROR_IO);
    cr_assert(strstr(c.text, "/nonexistent/x.msh"), "%s", c.text);
    lg = capture_logger(&c);
    /* The .node of a pair exists, its .ele does not. */
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/fin.node", &lg, &v), SINEW_RESULT_ERROR_IO);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/fin.obj", &lg, &v), SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_assert(strstr(c.text, "not a volume mesh"), "%s", c.text);
    cr_assert(sinew_volume_is_volume_path("a/B.MSH") && sinew_volume_is_volume_path("x.node") &&
              sinew_volume_is_volume_path("x.ele") && !sinew_volume_is_volume_path("x.off"));
}

/* ------------------------------------------------------------ box */

Test(volume, box_counts_volume_orientation)
{
    /* The paper's scenes: 16^3, 21^3 and 26^3 vertices. */
    const uint32_t n[][3] = {{2, 2, 2}, {4, 3, 5}, {16, 16, 16}, {21, 21, 21}, {26, 26, 26}};
    const uint32_t tets[] = {6, 144, 20250, 48000, 93750};
    const double size[3] = {2.0, 0.5, 1.5}, origin[3] = {1, 2, 3};
    for (size_t i = 0; i < sizeof tets / sizeof tets[0]; i++) {
        sinew_volume v;
        cr_assert_eq(sinew_volume_box(n[i][0], n[i][1], n[i][2], size, origin, &v), SINEW_RESULT_OK);
        cr_assert_eq(v.vertex_count, n[i][0] * n[i][1] * n[i][2]);
        cr_assert_eq(v.tet_count, tets[i]);
        double cell = size[0] * size[1] * size[2] / ((n[i][0] - 1) * (n[i][1] - 1) * (n[i][2] - 1));
        uint32_t wrong = 0;
        for (uint32_t t = 0; t < v.tet_count; t++)
            wrong += !(fabs(tet_volume(&v, t) - cell / 6.0) <= 1e-12 * cell);
        cr_assert_eq(wrong, 0, "box %zu: %u tetrahedra of the wrong volume", i, wrong);
        cr_assert_float_eq(total_volume(&v), size[0] * size[1] * size[2], 1e-9);
        /* Centred on the origin. */
        cr_assert_float_eq(v.positions[0], origin[0] - size[0] / 2, 1e-12);
        double *last = v.positions + 3 * ((size_t)v.vertex_count - 1);
        cr_assert_float_eq(last[2], origin[2] + size[2] / 2, 1e-12);
        sinew_volume_free(&v);
    }
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(1, 2, 2, size, NULL, &v), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    const double zero[3] = {1, 0, 1};
    cr_assert_eq(sinew_volume_box(2, 2, 2, zero, NULL, &v), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sinew_volume_box(1024, 1024, 1024, size, NULL, &v), SINEW_RESULT_ERROR_LIMIT);
}

/* The asset's triangles as a surface mesh. */
static sinew_mesh asset_boundary(const sinew_asset *a)
{
    sinew_mesh m = {a->particle_count, malloc(sizeof(double) * 3 * a->particle_count), a->triangle_count,
                    malloc(sizeof(uint32_t) * (a->triangle_count + 1)), malloc(sizeof(uint32_t) * 3 * a->triangle_count)};
    for (uint32_t i = 0; i < a->particle_count; i++) {
        m.positions[3 * i + 0] = a->particles[i].x;
        m.positions[3 * i + 1] = a->particles[i].y;
        m.positions[3 * i + 2] = a->particles[i].z;
    }
    for (uint32_t t = 0; t <= a->triangle_count; t++)
        m.face_offsets[t] = 3 * t;
    memcpy(m.face_indices, a->triangles, sizeof(uint32_t) * 3 * a->triangle_count);
    return m;
}

/* Conforming cells: every face inside the box is shared by two tetrahedra, so
 * the boundary the builder finds is the box's surface, two triangles per cell
 * face, and it encloses the box's volume. */
Test(volume, box_conforming)
{
    const double size[3] = {1, 1, 1};
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(5, 4, 3, size, NULL, &v), SINEW_RESULT_OK);
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, NULL, &quiet, &a, &rep), SINEW_RESULT_OK);
    cr_assert_eq(rep.triangle_count, 2 * 2 * (4 * 3 + 3 * 2 + 4 * 2));
    sinew_mesh surface = asset_boundary(a);
    cr_assert_eq(sinew_surface_check_closed(&surface, "boundary", &quiet), SINEW_RESULT_OK);
    cr_assert_float_eq(sinew_surface_enclosed_volume(&surface), 1.0, 1e-6);
    sinew_mesh_free(&surface);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

/* ------------------------------------------------------------ lattice */

static sinew_mesh shape_mesh(const shape *s)
{
    sinew_mesh m = {s->vertex_count, malloc(sizeof(double) * 3 * s->vertex_count), s->triangle_count,
                    malloc(sizeof(uint32_t) * (s->triangle_count + 1)), malloc(sizeof(uint32_t) * 3 * s->triangle_count)};
    for (uint32_t i = 0; i < 3 * s->vertex_count; i++)
        m.positions[i] = s->xyz[i];
    for (uint32_t t = 0; t <= s->triangle_count; t++)
        m.face_offsets[t] = 3 * t;
    memcpy(m.face_indices, s->triangles, sizeof(uint32_t) * 3 * s->triangle_count);
    return m;
}

/* The lattice against an independent inside test (the winding number,
 * shapes.c) on every cube of the lattice around the surface: the cubes kept
 * are exactly those whose centres are inside. Every six tetrahedra are one
 * cube, its first tetrahedron running from the cube's lowest corner to its
 * highest. Returns the kept cubes' volume. */
static double check_lattice(const shape *s, const sinew_mesh *m, uint32_t cells)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_lattice(m, cells, "lattice", &lg, &v), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(v.tet_count % 6, 0);
    const double *p0 = v.positions + 3 * (size_t)v.tets[0], *p3 = v.positions + 3 * (size_t)v.tets[3];
    const double h = p3[0] - p0[0];
    cr_assert_gt(h, 0.0);
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], m->positions[3 * i + a]);
            hi[a] = fmax(hi[a], m->positions[3 * i + a]);
        }
    cr_assert_float_eq(h, fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])) / cells, 1e-9 * h);
    /* Every tetrahedron positive and a sixth of a cube; each cube's centre inside. */
    for (uint32_t t = 0; t < v.tet_count; t++)
        cr_assert_float_eq(tet_volume(&v, t), h * h * h / 6.0, 1e-9 * h * h * h, "tet %u", t);
    uint32_t kept = v.tet_count / 6, inside = 0;
    for (uint32_t q = 0; q < kept; q++) {
        const double *a = v.positions + 3 * (size_t)v.tets[24 * q], *b = v.positions + 3 * (size_t)v.tets[24 * q + 3];
        const double centre[3] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])};
        cr_assert(shape_inside(s, centre), "cube %u at (%g %g %g) is outside", q, centre[0], centre[1], centre[2]);
    }
    /* No cube left out: count the inside centres of the whole lattice. */
    int32_t first[3], last[3];
    for (int a = 0; a < 3; a++) {
        first[a] = (int32_t)floor((lo[a] - p0[a]) / h) - 1;
        last[a] = (int32_t)ceil((hi[a] - p0[a]) / h) + 1;
    }
    for (int32_t k = first[2]; k <= last[2]; k++)
        for (int32_t j = first[1]; j <= last[1]; j++)
            for (int32_t i = first[0]; i <= last[0]; i++) {
                const double centre[3] = {p0[0] + (i + 0.5) * h, p0[1] + (j + 0.5) * h, p0[2] + (k + 0.5) * h};
                inside += shape_inside(s, centre) != 0;
            }
    cr_assert_eq(kept, inside, "%u cubes kept, %u centres inside", kept, inside);
    /* Conforming, with no corner unused: the soft builder takes it as it is. */
    sinew_asset *asset;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, NULL, &lg, &asset, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(rep.flipped_tets, 0);
    cr_assert_eq(rep.dropped_vertices, 0);
    sinew_asset_destroy(asset);
    double total = total_volume(&v);
    sinew_volume_free(&v);
    return total;
}

Test(volume, lattice_of_a_sphere)
{
    const double centre[3] = {0.1, -0.2, 0.3};
    shape s = shape_icosphere(3, 0.5, centre);
    sinew_mesh m = shape_mesh(&s);
    const double enclosed = sinew_surface_enclosed_volume(&m);
    double err[3];
    const uint32_t cells[3] = {6, 12, 24};
    for (int i = 0; i < 3; i++)
        err[i] = fabs(check_lattice(&s, &m, cells[i]) - enclosed) / enclosed;
    /* The staircase's error shrinks with the cell (it is a surface term). */
    cr_expect_lt(err[2], 0.05, "%g", err[2]);
    cr_expect_lt(err[2], err[0], "%g %g", err[2], err[0]);
    /* An axis-aligned box surface: its faces lie on lattice planes, which
     * the rows' lines are nudged off; every cube is inside. */
    sinew_volume box;
    const double size[3] = {1.0, 0.5, 0.25};
    cr_assert_eq(sinew_volume_box(2, 2, 2, size, NULL, &box), SINEW_RESULT_OK);
    sinew_asset *a;
    cr_assert_eq(sinew_soft_build(&box, NULL, &quiet, &a, NULL), SINEW_RESULT_OK);
    sinew_mesh surface = asset_boundary(a);
    sinew_volume v;
    cr_assert_eq(sinew_volume_lattice(&surface, 8, "box", &quiet, &v), SINEW_RESULT_OK);
    cr_expect_eq(v.tet_count, 6 * 8 * 4 * 2);
    cr_expect_float_eq(total_volume(&v), 0.125, 1e-12);
    sinew_volume_free(&v);
    /* Refusals, naming the problem. */
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_expect_eq(sinew_volume_lattice(&surface, 0, "box", &lg, &v), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(c.text, "lattice cells"), "%s", c.text);
    surface.face_count--; /* a hole */
    cr_expect_eq(sinew_volume_lattice(&surface, 8, "box", &lg, &v), SINEW_RESULT_ERROR_BAD_MESH);
    cr_expect(strstr(c.text, "box"), "%s", c.text);
    sinew_mesh_free(&surface);
    sinew_asset_destroy(a);
    sinew_volume_free(&box);
    sinew_mesh_free(&m);
    shape_free(&s);
}

/* A real model no one here made (CGAL's elephant, trunk, tail and legs). */
Test(volume, lattice_of_a_real_model, .timeout = 120)
{
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        cr_skip_test("SINEW_CGAL_DATA is not set");
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/elephant.off", dir);
    shape s = shape_read(path);
    cr_assert_gt(s.vertex_count, 0, "%s", path);
    sinew_mesh m = shape_mesh(&s);
    const double enclosed = fabs(sinew_surface_enclosed_volume(&m));
    double got = check_lattice(&s, &m, 20);
    cr_expect_float_eq(got, enclosed, 0.15 * enclosed, "%g vs %g", got, enclosed);
    sinew_mesh_free(&m);
    shape_free(&s);
}

/* ------------------------------------------------------------ checks */

static sinew_volume tiny_volume(const double *positions, uint32_t vertices, const uint32_t *tets, uint32_t count)
{
    sinew_volume v = {vertices, malloc(sizeof(double) * 3 * vertices), count, malloc(sizeof(uint32_t) * 4 * count)};
    memcpy(v.positions, positions, sizeof(double) * 3 * vertices);
    memcpy(v.tets, tets, sizeof(uint32_t) * 4 * count);
    return v;
}

static const double five[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};

Test(volume, negative_orientation_repaired)
{
    const uint32_t tets[8] = {0, 2, 1, 3, 1, 2, 4, 3};
    sinew_volume v = tiny_volume(five, 5, tets, 2);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume_fixes fixes;
    cr_assert_eq(sinew_volume_check(&v, "neg", &lg, &fixes, NULL), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(fixes.flipped_tets, 2);
    cr_assert(strstr(c.text, "neg: 2 tetrahedra were negatively oriented and had two vertices swapped, first: "
                             "tetrahedron 0"),
              "%s", c.text);
    for (uint32_t t = 0; t < 2; t++)
        cr_assert_gt(tet_volume(&v, t), 0.0);
    sinew_volume_free(&v);
}

Test(volume, degenerate_tet_refused_naming_it)
{
    /* Tetrahedron 1 is flat: its fourth vertex lies in the plane of the others. */
    const double p[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0.5, 0.5, 0};
    const uint32_t tets[8] = {0, 1, 2, 3, 0, 1, 2, 5};
    sinew_volume v = tiny_volume(p, 6, tets, 2);
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "flat", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "flat: tetrahedron 1 (0 1 2 5) has volume 0 m^3"), "%s", c.text);
    cr_assert(strstr(c.text, "degenerate"), "%s", c.text);
    /* Nothing was changed: vertex 4 (unused) is still there. */
    cr_assert_eq(v.vertex_count, 6);
    sinew_volume_free(&v);

    /* Tiny against the mesh's size, though not zero. */
    const double q[15] = {0, 0, 0, 1e-5, 0, 0, 0, 1e-5, 0, 0, 0, 1e-5, 1000, 1000, 1000};
    const uint32_t t2[8] = {0, 1, 2, 3, 1, 2, 3, 4};
    v = tiny_volume(q, 5, t2, 2);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "tiny", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "tiny: tetrahedron 0 (0 1 2 3) has volume 1.67e-16 m^3"), "%s", c.text);
    sinew_volume_free(&v);
}

Test(volume, bad_indices_and_coordinates_refused)
{
    const uint32_t repeated[4] = {0, 1, 1, 3}, out_of_range[4] = {0, 1, 2, 5};
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v = tiny_volume(five, 5, repeated, 1);
    cr_assert_eq(sinew_volume_check(&v, "rep", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "rep: tetrahedron 0 (0 1 1 3) repeats vertex 1"), "%s", c.text);
    sinew_volume_free(&v);
    lg = capture_logger(&c);
    v = tiny_volume(five, 5, out_of_range, 1);
    cr_assert_eq(sinew_volume_check(&v, "range", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "range: tetrahedron 0: vertex index 5 out of range (5 vertices)"), "%s", c.text);
    sinew_volume_free(&v);
    double p[15];
    memcpy(p, five, sizeof p);
    p[3 * 2 + 1] = NAN;
    const uint32_t ok[4] = {0, 1, 2, 3};
    v = tiny_volume(p, 5, ok, 1);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "nan", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "nan: vertex 2 has a coordinate (nan) that is not finite in single precision"), "%s",
              c.text);
    p[3 * 2 + 1] = 1e300;
    memcpy(v.positions, p, sizeof p);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "big", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "big: vertex 2 has a coordinate (1e+300)"), "%s", c.text);
    sinew_volume_free(&v);
    v = tiny_volume(five, 5, ok, 0);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_check(&v, "none", &lg, NULL, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "none: no tetrahedra"), "%s", c.text);
    sinew_volume_free(&v);
}

Test(volume, unreferenced_vertices_dropped)
{
    /* Vertex 0 and 3 unused. */
    const double p[18] = {9, 9, 9, 0, 0, 0, 1, 0, 0, 5, 5, 5, 0, 1, 0, 0, 0, 1};
    const uint32_t tet[4] = {1, 2, 4, 5};
    sinew_volume v = tiny_volume(p, 6, tet, 1);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume_fixes fixes;
    uint32_t old[6];
    cr_assert_eq(sinew_volume_check(&v, "unused", &lg, &fixes, old), SINEW_RESULT_OK);
    cr_assert_eq(fixes.dropped_vertices, 2);
    cr_assert(strstr(c.text, "unused: removed 2 vertices that no tetrahedron uses, first: vertex 0"), "%s", c.text);
    cr_assert_eq(v.vertex_count, 4);
    const uint32_t expect_tet[4] = {0, 1, 2, 3}, expect_old[4] = {1, 2, 4, 5};
    cr_assert_arr_eq(v.tets, expect_tet, sizeof expect_tet);
    cr_assert_arr_eq(old, expect_old, sizeof expect_old);
    cr_assert_eq(v.positions[3 * 3 + 2], 1.0);
    sinew_volume_free(&v);
}

/* ------------------------------------------------------------ surfaces and TetGen */

static sinew_mesh triangles(const double *p, uint32_t vertices, const uint32_t *idx, uint32_t faces)
{
    sinew_mesh m = {vertices, malloc(sizeof(double) * 3 * vertices), faces, malloc(sizeof(uint32_t) * (faces + 1)),
                    malloc(sizeof(uint32_t) * 3 * faces)};
    memcpy(m.positions, p, sizeof(double) * 3 * vertices);
    memcpy(m.face_indices, idx, sizeof(uint32_t) * 3 * faces);
    for (uint32_t f = 0; f <= faces; f++)
        m.face_offsets[f] = 3 * f;
    return m;
}

/* The surface of tetrahedron 0123, outward. */
static const uint32_t tet_surface[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

Test(surface, closed_manifold_checks_name_the_edge)
{
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_mesh m = triangles(five, 5, tet_surface, 4);
    cr_assert_eq(sinew_surface_check_closed(&m, "tet", &lg), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_float_eq(sinew_surface_enclosed_volume(&m), 1.0 / 6.0, 1e-12);
    sinew_mesh_free(&m);

    /* Open: one face missing. */
    m = triangles(five, 5, tet_surface, 3);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_surface_check_closed(&m, "open", &lg), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "open: edge 0-1 is on one face only (face 1): the surface is not closed") ||
                  strstr(c.text, "is on one face only"),
              "%s", c.text);
    cr_assert(strstr(c.text, "edge 1-2 is on one face only (face 0)"), "%s", c.text);
    sinew_mesh_free(&m);

    /* A fin: a third face on edge 0-1. */
    const uint32_t fin[15] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 0, 1, 4};
    m = triangles(five, 5, fin, 5);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_surface_check_closed(&m, "fin", &lg), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "fin: edge 0-1 is shared by 3 faces (0, 1, 4): the surface is not manifold"), "%s",
              c.text);
    sinew_mesh_free(&m);

    /* One face turned inside out. */
    const uint32_t flipped[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 3, 2};
    m = triangles(five, 5, flipped, 4);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_surface_check_closed(&m, "flip", &lg), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "flip: faces 0 and 3 both run along edge 1-2 from 2 to 1: the faces are not "
                             "consistently oriented"),
              "%s", c.text);
    sinew_mesh_free(&m);

    const uint32_t repeat[12] = {0, 2, 2, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    m = triangles(five, 5, repeat, 4);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_surface_check_closed(&m, "rep", &lg), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "rep: face 0 repeats vertex 2"), "%s", c.text);
    sinew_mesh_free(&m);

    /* tetrahedralise checks first: no TetGen needed to refuse. */
    m = triangles(five, 5, fin, 5);
    lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, "/nonexistent/tetgen", "fin", &lg, &v),
                 SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "edge 0-1 is shared by 3 faces"), "%s", c.text);
    sinew_mesh_free(&m);
}

static int have_tetgen(void)
{
    const char *path = getenv("PATH");
    char dir[4096];
    for (const char *p = path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(dir, sizeof dir, "%.*s/tetgen", (int)n, p);
        if (access(dir, X_OK) == 0)
            return 1;
        p += n + (colon != NULL);
    }
    return 0;
}

Test(tetgen, missing_failing_killed)
{
    sinew_mesh m = triangles(five, 5, tet_surface, 4);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, "/nonexistent/tetgen", "tet", &lg, &v),
                 SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_assert(strstr(c.text, "tet: /nonexistent/tetgen not found: install Debian's tetgen package"), "%s", c.text);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, "sinew-no-such-tetgen", "tet", &lg, &v),
                 SINEW_RESULT_ERROR_UNSUPPORTED);
    cr_assert(strstr(c.text, "not found: install Debian's tetgen package"), "%s", c.text);

    /* Stand-ins: one that fails with a message, one that is killed. */
    const char *scripts[2][2] = {
        {SINEW_TEST_OUT_DIR "/fake-tetgen-fails", "#!/bin/sh\necho 'Opening the input.'\n"
                                                  "echo 'Error: a fake failure' >&2\nexit 3\n"},
        {SINEW_TEST_OUT_DIR "/fake-tetgen-killed", "#!/bin/sh\nkill -KILL $$\n"}};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(scripts[i][0], "w");
        cr_assert(f);
        fputs(scripts[i][1], f);
        fclose(f);
        chmod(scripts[i][0], 0700);
    }
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, scripts[0][0], "tet", &lg, &v), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "fake-tetgen-fails failed (exit status 3); its output ends: Opening the input. Error: a "
                             "fake failure"),
              "%s", c.text);
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, scripts[1][0], "tet", &lg, &v), SINEW_RESULT_ERROR_IO);
    cr_assert(strstr(c.text, "fake-tetgen-killed was killed (signal 9"), "%s", c.text);
    /* Bad parameters. */
    lg = capture_logger(&c);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 0.5, NULL, "tet", &lg, &v), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "radius-edge bound"), "%s", c.text);
    cr_assert_eq(sinew_volume_tetrahedralise(&m, -1, 1.4, NULL, "tet", &quiet, &v),
                 SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    sinew_mesh_free(&m);
}

/* Two tetrahedra surfaces through each other: TetGen gives up, and its -d run
 * names the faces. */
Test(tetgen, self_intersection_named)
{
    if (!have_tetgen())
        cr_skip_test("tetgen is not installed (Debian: tetgen)");
    const double p[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.2, 0.2, 0.2, 1.2, 0.2, 0.2, 0.2, 1.2, 0.2, 0.2, 0.2, 1.2};
    uint32_t idx[24];
    for (int k = 0; k < 12; k++) {
        idx[k] = tet_surface[k];
        idx[12 + k] = tet_surface[k] + 4;
    }
    sinew_mesh m = triangles(p, 8, idx, 8);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_volume v;
    cr_assert_eq(sinew_volume_tetrahedralise(&m, 0, 1.4, NULL, "two", &lg, &v), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert(strstr(c.text, "two: the surface intersects itself: faces 3 and 4"), "%s", c.text);
    sinew_mesh_free(&m);
}

/* A real closed surface no one here made (CGAL's sphere.off, 162 vertices):
 * positive tetrahedra filling exactly the volume the surface encloses, and with
 * a volume bound, smaller ones that fill it too. */
Test(tetgen, cgal_sphere)
{
    if (!have_tetgen())
        cr_skip_test("tetgen is not installed (Debian: tetgen)");
    const char *dir = getenv("SINEW_CGAL_DATA");
    if (!dir)
        cr_skip_test("SINEW_CGAL_DATA is not set");
    char path[1024];
    snprintf(path, sizeof path, "%s/meshes/sphere.off", dir);
    sinew_mesh m;
    cr_assert_eq(sinew_mesh_read(path, NULL, &m), SINEW_RESULT_OK);
    cr_assert_eq(m.vertex_count, 162);
    cr_assert_eq(sinew_surface_check_closed(&m, path, NULL), SINEW_RESULT_OK);
    double enclosed = sinew_surface_enclosed_volume(&m);
    cr_assert_gt(enclosed, 0.0);
    const double max_volume[2] = {0.0, 0.001};
    uint32_t counts[2];
    for (int i = 0; i < 2; i++) {
        capture c;
        sinew_logger lg = capture_logger(&c);
        sinew_volume v;
        cr_assert_eq(sinew_volume_tetrahedralise(&m, max_volume[i], 1.4, NULL, "sphere", &lg, &v), SINEW_RESULT_OK,
                     "%s", c.text);
        cr_assert_geq(v.vertex_count, 162);
        counts[i] = v.tet_count;
        for (uint32_t t = 0; t < v.tet_count; t++) {
            double vol = tet_volume(&v, t);
            cr_assert_gt(vol, 0.0, "tet %u", t);
            if (max_volume[i] > 0)
                cr_assert_leq(vol, max_volume[i] * (1 + 1e-9), "tet %u", t);
        }
        sinew_asset *a;
        sinew_soft_report rep;
        cr_assert_eq(sinew_soft_build(&v, NULL, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
        cr_assert_eq(rep.flipped_tets, 0);
        cr_assert_eq(rep.dropped_vertices, 0);
        cr_assert_float_eq(rep.volume, enclosed, 0.01 * enclosed, "%g vs %g", rep.volume, enclosed);
        /* The boundary encloses what the input did (TetGen may split its faces). */
        sinew_mesh boundary = asset_boundary(a);
        cr_assert_eq(sinew_surface_check_closed(&boundary, "boundary", &lg), SINEW_RESULT_OK, "%s", c.text);
        cr_assert_float_eq(sinew_surface_enclosed_volume(&boundary), enclosed, 0.01 * enclosed);
        cr_assert_geq(rep.triangle_count, m.face_count);
        sinew_mesh_free(&boundary);
        sinew_asset_destroy(a);
        sinew_volume_free(&v);
    }
    cr_assert_gt(counts[1], counts[0]);
    sinew_mesh_free(&m);
}

/* ------------------------------------------------------------ soft builder */

static double det3(const float *m) /* column-major */
{
    return m[0] * ((double)m[4] * m[8] - (double)m[7] * m[5]) - m[3] * ((double)m[1] * m[8] - (double)m[7] * m[2]) +
           m[6] * ((double)m[1] * m[5] - (double)m[4] * m[2]);
}

/* Masses, rest shapes and the colour layout of a body from the Gmsh file. */
Test(soft, bracket_masses_rest_shapes_colours)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/bracket-v2.msh", &quiet, &v), SINEW_RESULT_OK);
    sinew_soft_options o = sinew_soft_options_default();
    o.density = 800.0;
    o.source_name = "bracket";
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(c.warnings, 0, "%s", c.text);
    cr_assert_eq(sinew_asset_validate(a, "bracket", &lg), SINEW_RESULT_OK, "%s", c.text);
    double volume = total_volume(&v);
    cr_assert_float_eq(rep.volume, volume, 1e-12);
    cr_assert_float_eq(rep.total_mass, 800.0 * volume, 1e-9);
    double mass = 0.0;
    for (uint32_t i = 0; i < a->particle_count; i++) {
        cr_assert_gt(a->particles[i].w, 0.0f);
        mass += 1.0 / a->particles[i].w;
    }
    cr_assert_float_eq(mass, 800.0 * volume, 1e-4 * mass);
    cr_assert_eq(a->element_count, 258);
    cr_assert_eq(a->material_count, 1);
    cr_assert_eq(a->materials[0].model, SINEW_MATERIAL_NEO_HOOKEAN);
    cr_assert_float_eq(a->materials[0].youngs_modulus, 1e6f, 1.0f);
    cr_assert_float_eq(a->materials[0].poisson_ratio, 0.45f, 1e-7f);
    cr_assert_float_eq(a->materials[0].density, 800.0f, 1e-3f);
    double rest = 0.0;
    for (uint32_t e = 0; e < a->element_count; e++) {
        const sinew_element_rec *el = &a->elements[e];
        cr_assert_eq(el->kind, SINEW_ELEMENT_TET);
        cr_assert_eq(el->material, 0);
        cr_assert_gt(el->rest_measure, 0.0f);
        /* det(Dm^-1) = 1 / det(Dm) = 1 / (6 V) > 0 */
        double d = det3(el->inv_rest);
        cr_assert_gt(d, 0.0, "element %u", e);
        cr_assert_float_eq(d * 6.0 * el->rest_measure, 1.0, 1e-4, "element %u", e);
        /* Dm^-1 Dm = I from the particle positions. */
        const sinew_particle_rec *p0 = &a->particles[el->v[0]];
        for (int col = 0; col < 3; col++) {
            const sinew_particle_rec *pc = &a->particles[el->v[col + 1]];
            double dm[3] = {pc->x - p0->x, pc->y - p0->y, pc->z - p0->z};
            for (int row = 0; row < 3; row++) {
                double s = 0.0;
                for (int k = 0; k < 3; k++)
                    s += el->inv_rest[3 * k + row] * dm[k];
                cr_assert_float_eq(s, row == col ? 1.0 : 0.0, 1e-4, "element %u (%d, %d)", e, row, col);
            }
        }
        rest += el->rest_measure;
    }
    cr_assert_float_eq(rest, volume, 1e-5);
    /* Colours: ranges back to back, no particle twice in one. */
    cr_assert_eq(a->element_colour_count, rep.colour_count);
    uint32_t *stamp = malloc(sizeof(uint32_t) * a->particle_count);
    memset(stamp, 0xff, sizeof(uint32_t) * a->particle_count);
    uint32_t next = 0;
    for (uint32_t k = 0; k < a->element_colour_count; k++) {
        cr_assert_eq(a->element_colours[k].begin, next);
        cr_assert_gt(a->element_colours[k].count, 0);
        cr_assert_leq(a->element_colours[k].count, rep.largest_colour);
        cr_assert_geq(a->element_colours[k].count, rep.smallest_colour);
        next += a->element_colours[k].count;
        for (uint32_t e = a->element_colours[k].begin; e < next; e++)
            for (int j = 0; j < 4; j++) {
                cr_assert_neq(stamp[a->elements[e].v[j]], k, "colour %u: particle %u twice", k, a->elements[e].v[j]);
                stamp[a->elements[e].v[j]] = k;
            }
    }
    cr_assert_eq(next, a->element_count);
    free(stamp);
    /* The same check by the colouring module, on the sorted elements. */
    uint32_t *offsets = malloc(sizeof(uint32_t) * (a->element_count + 1)), *idx = malloc(16 * a->element_count);
    sinew_colouring col = {a->element_colour_count, malloc(4 * a->element_count), malloc(4 * a->element_colour_count)};
    for (uint32_t k = 0; k < a->element_colour_count; k++) {
        col.sizes[k] = a->element_colours[k].count;
        for (uint32_t e = a->element_colours[k].begin; e < a->element_colours[k].begin + a->element_colours[k].count;
             e++)
            col.colour_of[e] = k;
    }
    for (uint32_t e = 0; e <= a->element_count; e++)
        offsets[e] = 4 * e;
    for (uint32_t e = 0; e < a->element_count; e++)
        memcpy(idx + 4 * e, a->elements[e].v, 16);
    cr_assert(sinew_colouring_is_valid(&col, a->element_count, offsets, idx, a->particle_count));
    sinew_colouring_free(&col);
    free(offsets);
    free(idx);
    /* The boundary: Gmsh's 196 surface triangles, enclosing the volume. */
    cr_assert_eq(a->triangle_count, 196);
    cr_assert(strstr(a->meta, "kind=soft\n") && strstr(a->meta, "model=neo_hookean\n") &&
                  strstr(a->meta, "source=bracket\n"),
              "%s", a->meta);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

/* TetGen's tiny pair: the second tetrahedron reoriented, one vertex unused;
 * materials by region; pins through the dropped vertex's renumbering. */
Test(soft, repairs_regions_pins)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/tiny.node", &quiet, &v), SINEW_RESULT_OK);
    /* Vertex 5, unused, far away. */
    v.positions = realloc(v.positions, sizeof(double) * 18);
    v.positions[15] = v.positions[16] = v.positions[17] = 50.0;
    v.vertex_count = 6;
    sinew_material mats[2] = {sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e5f, 0.3f),
                              sinew_material_make(SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 2e6f, 0.49f)};
    mats[0].density = 1000.0f;
    mats[1].density = 3000.0f;
    const uint32_t regions[2] = {1, 0};
    const uint32_t pins[2] = {4, 5};
    sinew_soft_options o = sinew_soft_options_default();
    o.materials = mats;
    o.material_count = 2;
    o.tet_materials = regions;
    o.pin_indices = pins;
    o.pin_count = 2;
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(rep.flipped_tets, 1);
    cr_assert_eq(rep.dropped_vertices, 1);
    cr_assert(strstr(c.text, "1 tetrahedra were negatively oriented"), "%s", c.text);
    cr_assert(strstr(c.text, "removed 1 vertices that no tetrahedron uses, first: vertex 5"), "%s", c.text);
    cr_assert(strstr(c.text, "1 pins are on removed vertices, first: vertex 5"), "%s", c.text);
    cr_assert_eq(a->particle_count, 5);
    cr_assert_eq(rep.pinned_count, 1);
    cr_assert_eq(a->particles[4].w, 0.0f);
    cr_assert_eq(a->material_count, 2);
    cr_assert_eq(a->materials[1].model, SINEW_MATERIAL_STABLE_NEO_HOOKEAN);
    /* Volumes 1/6 (material 1, 3000) and 1/3 (material 0, 1000). */
    cr_assert_float_eq(rep.volume, 0.5, 1e-12);
    cr_assert_float_eq(rep.total_mass, 3000.0 / 6 + 1000.0 / 3, 1e-9);
    /* Two tetrahedra sharing a face conflict: two colours of one each. */
    cr_assert_eq(a->element_colour_count, 2);
    for (uint32_t e = 0; e < 2; e++) {
        cr_assert_gt(det3(a->elements[e].inv_rest), 0.0);
        int first = a->elements[e].v[0] == 0 && a->elements[e].v[1] == 1;
        cr_assert_eq(a->elements[e].material, first ? 1u : 0u);
    }
    /* The boundary: 6 outer faces of the pair. */
    cr_assert_eq(a->triangle_count, 6);
    cr_assert_eq(sinew_asset_validate(a, "tiny", &lg), SINEW_RESULT_OK, "%s", c.text);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

Test(soft, pin_bottom_and_box)
{
    const double size[3] = {1, 2, 1};
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(3, 5, 3, size, NULL, &v), SINEW_RESULT_OK);
    sinew_soft_options o = sinew_soft_options_default();
    o.pin_bottom = 0.1; /* the lowest layer, y = -1 */
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &quiet, &a, &rep), SINEW_RESULT_OK);
    cr_assert_eq(rep.pinned_count, 9);
    for (uint32_t i = 0; i < a->particle_count; i++)
        cr_assert_eq(a->particles[i].w == 0.0f, a->particles[i].y < -0.9f, "particle %u", i);
    sinew_asset_destroy(a);
    o = sinew_soft_options_default();
    o.pin_box = 1;
    o.box_min[0] = o.box_min[1] = o.box_min[2] = 0.4;
    o.box_max[0] = o.box_max[1] = o.box_max[2] = 10;
    cr_assert_eq(sinew_soft_build(&v, &o, &quiet, &a, &rep), SINEW_RESULT_OK);
    /* x, z = 0.5 and y in {0.5, 1}: 2 vertices. */
    cr_assert_eq(rep.pinned_count, 2);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

Test(soft, options_refused)
{
    const double size[3] = {1, 1, 1};
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(2, 2, 2, size, NULL, &v), SINEW_RESULT_OK);
    sinew_asset *a;
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_soft_options o = sinew_soft_options_default();
    o.model = SINEW_MATERIAL_STVK;
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "material 0: model 3 is not one for tetrahedra"), "%s", c.text);
    cr_assert_null(a);
    o = sinew_soft_options_default();
    o.youngs_modulus = -1;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "material 0"), "%s", c.text);
    o = sinew_soft_options_default();
    o.density = 0;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "density 0 kg/m^3 must be finite and > 0"), "%s", c.text);
    sinew_material mat = sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e6f, 0.4f);
    uint32_t regions[6] = {0, 0, 0, 1, 0, 0};
    o = sinew_soft_options_default();
    o.materials = &mat;
    o.material_count = 1;
    o.tet_materials = regions;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "tetrahedron 3: material 1 out of range (1 materials)"), "%s", c.text);
    const uint32_t pin = 8;
    o = sinew_soft_options_default();
    o.pin_indices = &pin;
    o.pin_count = 1;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "pin index 8 (pin 0) out of range (8 vertices)"), "%s", c.text);
    sinew_volume_free(&v);
}

/* Found by fuzz_msh: a sliver that passes the volume bound, but whose inverse
 * rest shape rounds to floats of determinant <= 0, which the loader would
 * refuse; the builder refuses it first, naming it. */
Test(soft, rest_shape_flattened_by_rounding_refused)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/../fuzz/regressions/msh/thin-tetrahedron-float-inverse.msh",
                                   &quiet, &v),
                 SINEW_RESULT_OK);
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a;
    cr_assert_eq(sinew_soft_build(&v, NULL, &lg, &a, NULL), SINEW_RESULT_ERROR_BAD_MESH);
    cr_assert_null(a);
    cr_assert(strstr(c.text, "tetrahedron 7 (volume 3.87672e-11 m^3) is too thin for single precision"),
              "%s", c.text);
    sinew_volume_free(&v);
}

/* The asset survives the file format, elements and materials included. */
Test(soft, round_trip_through_the_file_format)
{
    const double size[3] = {1, 1, 1};
    sinew_volume v;
    cr_assert_eq(sinew_volume_box(4, 4, 4, size, NULL, &v), SINEW_RESULT_OK);
    sinew_asset *a, *b;
    cr_assert_eq(sinew_soft_build(&v, NULL, &quiet, &a, NULL), SINEW_RESULT_OK);
    void *bytes;
    size_t n;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &n, NULL), SINEW_RESULT_OK);
    cr_assert_eq(sinew_asset_load_memory(bytes, n, "box", NULL, &b), SINEW_RESULT_OK);
    cr_assert_eq(b->element_count, a->element_count);
    cr_assert_eq(b->element_colour_count, a->element_colour_count);
    cr_assert_arr_eq(b->elements, a->elements, sizeof(sinew_element_rec) * a->element_count);
    cr_assert_arr_eq(b->materials, a->materials, sizeof(sinew_material_rec) * a->material_count);
    sinew_asset_info info = sinew_asset_get_info(b);
    cr_assert_eq(info.tet_count, 162);
    cr_assert_float_eq(info.rest_volume, 1.0f, 1e-5f);
    free(bytes);
    sinew_asset_destroy(a);
    sinew_asset_destroy(b);
    sinew_volume_free(&v);
}

/* ------------------------------------------------------------ materials by region */

static double element_centroid_x(const sinew_asset *a, const sinew_element_rec *e)
{
    double x = 0.0;
    for (int k = 0; k < 4; k++)
        x += a->particles[e->v[k]].x / 4.0;
    return x;
}

/* The bar's regions become materials in increasing order of value: region 3
 * (x > 0.5) is material 0, given its own material and density; region 7
 * (x < 0.5) is material 1, the default. Each half's mass is its own density
 * times its volume, and the asset's META records the mapping. */
Test(soft, regions_become_materials)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/bar-v4-bin.msh", &quiet, &v), SINEW_RESULT_OK);
    sinew_soft_region_material stiff = {3, sinew_material_make(SINEW_MATERIAL_STABLE_NEO_HOOKEAN, 2e7f, 0.3f)};
    stiff.material.density = 3000.0f;
    sinew_soft_options o = sinew_soft_options_default();
    o.density = 500.0;
    o.region_materials = &stiff;
    o.region_material_count = 1;
    o.source_name = "bar";
    capture c;
    sinew_logger lg = capture_logger(&c);
    sinew_asset *a;
    sinew_soft_report rep;
    sinew_soft_region *regions;
    uint32_t count;
    cr_assert_eq(sinew_soft_build_with_regions(&v, &o, &lg, &a, &rep, &regions, &count), SINEW_RESULT_OK, "%s",
                 c.text);
    cr_assert_eq(c.warnings, 0, "%s", c.text);
    cr_assert_eq(sinew_asset_validate(a, "bar", &lg), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(rep.region_count, 2);
    cr_assert_eq(count, 2);
    cr_assert_eq(a->material_count, 2);
    cr_assert_eq(a->materials[0].model, SINEW_MATERIAL_STABLE_NEO_HOOKEAN);
    cr_assert_eq(a->materials[0].youngs_modulus, 2e7f);
    cr_assert_eq(a->materials[0].density, 3000.0f);
    cr_assert_eq(a->materials[1].model, SINEW_MATERIAL_NEO_HOOKEAN);
    cr_assert_eq(a->materials[1].youngs_modulus, 1e6f);
    cr_assert_eq(a->materials[1].density, 500.0f);
    for (uint32_t e = 0; e < a->element_count; e++)
        cr_assert_eq(a->elements[e].material, element_centroid_x(a, &a->elements[e]) > 0.5 ? 0u : 1u, "element %u",
                     e);
    /* Two halves of 0.5 x 0.2 x 0.2 m. */
    const double values[2] = {3, 7}, masses[2] = {0.02 * 3000, 0.02 * 500};
    for (uint32_t k = 0; k < 2; k++) {
        cr_assert_eq(regions[k].value, values[k]);
        cr_assert_eq(regions[k].material, k);
        cr_assert_eq(regions[k].tet_count, 60);
        cr_assert_float_eq(regions[k].volume, 0.02, 1e-12);
        cr_assert_float_eq(regions[k].mass, masses[k], 1e-9);
    }
    cr_assert_float_eq(rep.total_mass, 70.0, 1e-9);
    double mass = 0.0;
    for (uint32_t i = 0; i < a->particle_count; i++)
        mass += 1.0 / a->particles[i].w;
    cr_assert_float_eq(mass, 70.0, 1e-4 * 70.0);
    cr_assert(strstr(a->meta, "\nregions=3:0,7:1\n"), "%s", a->meta);
    cr_assert(strstr(c.text, "bar: region 3 -> material 0 (stable_neo_hookean, E 2e+07 Pa, nu 0.3, 3000 kg/m^3): 60 "
                             "tetrahedra, 0.02 m^3, 60 kg"),
              "%s", c.text);
    cr_assert(strstr(c.text, "bar: region 7 -> material 1 (neo_hookean, E 1e+06 Pa, nu 0.45, 500 kg/m^3)"), "%s",
              c.text);
    /* Through the file format. */
    void *bytes;
    size_t n;
    sinew_asset *b;
    cr_assert_eq(sinew_asset_serialize(a, &bytes, &n, NULL), SINEW_RESULT_OK);
    cr_assert_eq(sinew_asset_load_memory(bytes, n, "bar", NULL, &b), SINEW_RESULT_OK);
    cr_assert_arr_eq(b->elements, a->elements, sizeof(sinew_element_rec) * a->element_count);
    cr_assert_arr_eq(b->materials, a->materials, sizeof(sinew_material_rec) * a->material_count);
    cr_assert(strstr(b->meta, "\nregions=3:0,7:1\n"), "%s", b->meta);
    free(bytes);
    sinew_asset_destroy(b);
    free(regions);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

/* The TetGen bar: both regions given densities; the total mass is theirs. A
 * box, without regions, is one region, 0, which may be given a material. */
Test(soft, region_densities_give_the_mass)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/bar-tetgen.ele", &quiet, &v), SINEW_RESULT_OK);
    sinew_soft_region_material rm[2] = {{5, sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e5f, 0.45f)},
                                        {2, sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e7f, 0.3f)}};
    rm[0].material.density = 100.0f;
    rm[1].material.density = 900.0f;
    sinew_soft_options o = sinew_soft_options_default();
    o.region_materials = rm;
    o.region_material_count = 2;
    sinew_asset *a;
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &quiet, &a, &rep), SINEW_RESULT_OK);
    cr_assert_eq(rep.region_count, 2);
    cr_assert_eq(a->material_count, 2);
    /* Region 2 (x > 0.5) is material 0. */
    cr_assert_eq(a->materials[0].density, 900.0f);
    cr_assert_eq(a->materials[1].density, 100.0f);
    for (uint32_t e = 0; e < a->element_count; e++)
        cr_assert_eq(a->elements[e].material, element_centroid_x(a, &a->elements[e]) > 0.5 ? 0u : 1u, "element %u",
                     e);
    cr_assert_float_eq(rep.total_mass, 0.02 * 900 + 0.02 * 100, 1e-9);
    cr_assert(strstr(a->meta, "\nregions=2:0,5:1\n"), "%s", a->meta);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);

    const double size[3] = {1, 1, 1};
    cr_assert_eq(sinew_volume_box(3, 3, 3, size, NULL, &v), SINEW_RESULT_OK);
    sinew_soft_region_material zero = {0, sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e5f, 0.4f)};
    zero.material.density = 250.0f;
    o = sinew_soft_options_default();
    o.region_materials = &zero;
    o.region_material_count = 1;
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert_eq(c.warnings, 0, "%s", c.text);
    cr_assert_eq(a->material_count, 1);
    cr_assert_eq(a->materials[0].youngs_modulus, 1e5f);
    cr_assert_float_eq(rep.total_mass, 250.0, 1e-9);
    cr_assert(strstr(a->meta, "\nregions=0:0\n"), "%s", a->meta);
    sinew_asset_destroy(a);
    /* No regions, none named: no mapping in META. */
    cr_assert_eq(sinew_soft_build(&v, NULL, &quiet, &a, &rep), SINEW_RESULT_OK);
    cr_assert_eq(rep.region_count, 1);
    cr_assert_null(strstr(a->meta, "regions="), "%s", a->meta);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}

/* What the builder refuses, or warns about, in materials by region. */
Test(soft, region_materials_refused)
{
    sinew_volume v;
    cr_assert_eq(sinew_volume_read(SINEW_TEST_DATA_DIR "/bar-v2.msh", &quiet, &v), SINEW_RESULT_OK);
    sinew_material nh = sinew_material_make(SINEW_MATERIAL_NEO_HOOKEAN, 1e6f, 0.4f);
    sinew_soft_region_material rm[2] = {{3, nh}, {3, nh}};
    sinew_soft_options o = sinew_soft_options_default();
    o.source_name = "bar";
    o.region_materials = rm;
    o.region_material_count = 2;
    sinew_asset *a;
    capture c;
    sinew_logger lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(a);
    cr_assert(strstr(c.text, "bar: region 3 is given two materials (region materials 0 and 1)"), "%s", c.text);

    o.region_material_count = 1;
    o.materials = &nh;
    o.material_count = 1;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "materials by region and a materials table both given"), "%s", c.text);

    /* An explicit table takes the place of the regions. */
    o.region_material_count = 0;
    lg = capture_logger(&c);
    sinew_soft_report rep;
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert(strstr(c.text, "bar: the mesh's regions are not used: the options give the materials table"), "%s",
              c.text);
    cr_assert_eq(rep.region_count, 0);
    cr_assert_eq(a->material_count, 1);
    sinew_asset_destroy(a);

    o = sinew_soft_options_default();
    o.source_name = "bar";
    rm[1].region = 7;
    rm[1].material = sinew_material_make(SINEW_MATERIAL_STVK, 1e6f, 0.3f);
    o.region_materials = rm;
    o.region_material_count = 2;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "bar: region 7 (material 1): model 3 is not one for tetrahedra"), "%s", c.text);
    rm[1].material = nh;
    rm[1].material.density = 0.0f;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, NULL), SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(c.text, "bar: region 7 (material 1): density 0 kg/m^3 must be finite and > 0"), "%s", c.text);

    /* A region the mesh lacks: warned about, the rest built. */
    rm[1].material = nh;
    rm[1].region = 9;
    lg = capture_logger(&c);
    cr_assert_eq(sinew_soft_build(&v, &o, &lg, &a, &rep), SINEW_RESULT_OK, "%s", c.text);
    cr_assert(strstr(c.text, "bar: 1 regions given a material have no tetrahedra in the mesh, first: region 9 (the "
                             "mesh's regions: 3, 7)"),
              "%s", c.text);
    cr_assert_eq(a->material_count, 2);
    sinew_asset_destroy(a);
    sinew_volume_free(&v);
}
