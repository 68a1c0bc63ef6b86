/* The volume mesh readers: Gmsh and TetGen files, their regions, and every kind of malformed input refused. */
/* The readers agree on one mesh in all five encodings, and on the regions of
 * a two-region bar in the four Gmsh ones; sparse tags and attributes are
 * handled; every kind of malformed input is refused with its file, place and
 * problem, and truncations and corruptions never crash. The box generator,
 * lattice, checks and TetGen: test_volume_build.c; the soft builder:
 * test_volume_soft.c. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include "prep/soft.h"
#include "prep/volume.h"
#include "shapes.h"
#include "volume_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    {"4 3 0 0\n1 0 0 0\n3 1 0 0\n" PAD, "", SINEW_RESULT_ERROR_BAD_MESH,
     "t.node:3: point number 3 out of order: this one should be 2 (points are numbered 1, 2, ... in order)"},
    /* A number given twice (was "point number 1 out of range (2..2)"). */
    {"4 3 0 0\n# points\n0 0 0 0\n\n1 1 0 0\n1 0 1 0\n" PAD, "", SINEW_RESULT_ERROR_BAD_MESH,
     "t.node:6: point number 1 again: line 5 gave it already (points are numbered 0, 1, ... in order; this one "
     "should be 2)"},
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
