/* The v1 asset file (format 1.0, 1.1 with finite elements, 1.2 with a
 * hierarchy, 1.3 with a red-black partition, 1.4 with multigrid levels, 1.5
 * with clustered sweeps, 1.6 with a render mesh, 1.7 with an origin, 1.8 with
 * render materials):
 * serialisation,
 * atomic writing, and a loader that treats every byte as untrusted.
 * docs/asset-format.md is the reference; the loader's checks follow its
 * "Reading" list in the same order.
 *
 *   offset 0     header               32 B   magic, version, section count,
 *                                            header CRC, file size
 *          32    section table        32 B per section
 *          ...   payloads             each at a 16-byte aligned offset,
 *                                     zero-padded to a multiple of 16
 *
 * Every integer is little-endian and goes through the byte helpers below, so
 * the file reads the same on any host.
 */
#include "asset.h"

#include "../core/bytes.h"
#include "../core/file.h"
#include "../core/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_MAJOR 1u
#define FORMAT_MINOR 0u          /* what a writer writes without elements or materials */
#define FORMAT_MINOR_ELEMENTS 1u /* 1.1 added ELEM, ECOL, MATL */
#define FORMAT_MINOR_HIERARCHY 2u /* 1.2 added HLEV, HNOD, HLNK, HDST, HCOL */
#define FORMAT_MINOR_RED_BLACK 3u /* 1.3 added PRED, PBLK */
#define FORMAT_MINOR_MULTIGRID 4u /* 1.4 added MLEV, MTRI, MPAR, MCOL, MVTX */
#define FORMAT_MINOR_CLUSTERS 5u /* 1.5 added CPAS, CLUS, CPRT, CCOL, CITM */
#define FORMAT_MINOR_RENDER 6u /* 1.6 added RVTX, RIDX */
#define FORMAT_MINOR_ORIGIN 7u /* 1.7 added ORIG */
#define FORMAT_MINOR_MATERIALS 8u /* 1.8 added RMAT, RMNM, RLIB */
#define ORIGIN_RECORD 24u      /* ORIG: x, y, z, f64 each */
#define SECTION_VERSION 1u /* of every section this version defines */
#define HEADER_SIZE 32u
#define ENTRY_SIZE 32u
#define PAYLOAD_ALIGN 16u
#define MAX_SECTIONS 256u
#define MAX_META_BYTES (1u << 24)
/* The reader's limit on a file: 4 GiB, half the address space on 32-bit hosts. */
#if SIZE_MAX / 2 > 0xFFFFFFFFu
#define MAX_FILE_BYTES ((size_t)1 << 32)
#else
#define MAX_FILE_BYTES (SIZE_MAX / 2)
#endif

/* Byte offsets of the header fields and of the fields of a table entry. */
enum { H_MAGIC = 0, H_MAJOR = 4, H_MINOR = 6, H_SECTION_COUNT = 8, H_CRC = 12, H_FILE_SIZE = 16, H_RESERVED = 24 };
enum { E_TAG = 0, E_VERSION = 4, E_OFFSET = 8, E_SIZE = 16, E_COUNT = 24, E_CRC = 28 };

/* In the order the writer writes them. */
enum {
    SEC_PART, SEC_TRIS, SEC_DIST, SEC_BEND, SEC_COLR, SEC_ELEM, SEC_ECOL, SEC_MATL,
    SEC_HLEV, SEC_HNOD, SEC_HLNK, SEC_HDST, SEC_HCOL, SEC_PRED, SEC_PBLK,
    SEC_MLEV, SEC_MTRI, SEC_MPAR, SEC_MCOL, SEC_MVTX, SEC_CPAS, SEC_CLUS, SEC_CPRT, SEC_CCOL, SEC_CITM,
    SEC_RVTX, SEC_RIDX, SEC_META, SEC_ORIG, SEC_RMAT, SEC_RMNM, SEC_RLIB, SEC_COUNT
};

static const struct section_kind {
    char tag[5];
    uint32_t record_size; /* bytes */
    uint32_t max_count;
    const char *what;     /* plural noun for messages */
} section_kinds[SEC_COUNT] = {
    [SEC_PART] = {"PART", sizeof(sinew_particle_rec), SINEW_ASSET_MAX_PARTICLES, "particles"},
    [SEC_TRIS] = {"TRIS", sizeof(sinew_triangle_rec), SINEW_ASSET_MAX_RECORDS, "triangles"},
    [SEC_DIST] = {"DIST", sizeof(sinew_distance_rec), SINEW_ASSET_MAX_RECORDS, "distance constraints"},
    [SEC_BEND] = {"BEND", sizeof(sinew_bend_rec), SINEW_ASSET_MAX_RECORDS, "bending constraints"},
    [SEC_COLR] = {"COLR", sizeof(sinew_colour_rec), SINEW_ASSET_MAX_COLOURS, "colours"},
    [SEC_ELEM] = {"ELEM", sizeof(sinew_element_rec), SINEW_ASSET_MAX_RECORDS, "elements"},
    [SEC_ECOL] = {"ECOL", sizeof(sinew_element_colour_rec), SINEW_ASSET_MAX_COLOURS, "element colours"},
    [SEC_MATL] = {"MATL", sizeof(sinew_material_rec), SINEW_ASSET_MAX_MATERIALS, "materials"},
    [SEC_HLEV] = {"HLEV", sizeof(sinew_level_rec), SINEW_ASSET_MAX_LEVELS, "hierarchy levels"},
    [SEC_HNOD] = {"HNOD", sizeof(sinew_node_rec), SINEW_ASSET_MAX_PARTICLES, "hierarchy nodes"},
    [SEC_HLNK] = {"HLNK", sizeof(sinew_link_rec), SINEW_ASSET_MAX_RECORDS, "parent links"},
    [SEC_HDST] = {"HDST", sizeof(sinew_distance_rec), SINEW_ASSET_MAX_RECORDS, "coarse constraints"},
    [SEC_HCOL] = {"HCOL", sizeof(sinew_range_rec), SINEW_ASSET_MAX_COLOURS, "coarse colours"},
    [SEC_PRED] = {"PRED", sizeof(uint32_t), SINEW_ASSET_MAX_PARTICLES, "red particles"},
    [SEC_PBLK] = {"PBLK", sizeof(uint32_t), SINEW_ASSET_MAX_PARTICLES, "black particles"},
    [SEC_MLEV] = {"MLEV", sizeof(sinew_mlevel_rec), SINEW_ASSET_MAX_MLEVELS, "multigrid levels"},
    [SEC_MTRI] = {"MTRI", sizeof(sinew_triangle_rec), SINEW_ASSET_MAX_RECORDS, "coarse triangles"},
    [SEC_MPAR] = {"MPAR", sizeof(sinew_parents_rec), SINEW_ASSET_MAX_PARTICLES, "parent pairs"},
    [SEC_MCOL] = {"MCOL", sizeof(sinew_range_rec), SINEW_ASSET_MAX_COLOURS, "level colours"},
    [SEC_MVTX] = {"MVTX", sizeof(uint32_t), SINEW_ASSET_MAX_RECORDS, "coloured particles"},
    [SEC_CPAS] = {"CPAS", sizeof(sinew_range_rec), SINEW_ASSET_MAX_COLOURS, "cluster passes"},
    [SEC_CLUS] = {"CLUS", sizeof(sinew_cluster_rec), SINEW_ASSET_MAX_RECORDS, "clusters"},
    [SEC_CPRT] = {"CPRT", sizeof(uint32_t), SINEW_ASSET_MAX_RECORDS, "cluster particles"},
    [SEC_CCOL] = {"CCOL", sizeof(sinew_range_rec), SINEW_ASSET_MAX_RECORDS, "cluster colours"},
    [SEC_CITM] = {"CITM", sizeof(sinew_citem_rec), SINEW_ASSET_MAX_RECORDS, "cluster items"},
    [SEC_RVTX] = {"RVTX", sizeof(sinew_render_vertex_rec), SINEW_ASSET_MAX_RECORDS, "render vertices"},
    [SEC_RIDX] = {"RIDX", sizeof(sinew_triangle_rec), SINEW_ASSET_MAX_RECORDS, "render triangles"},
    [SEC_META] = {"META", 1, MAX_META_BYTES, "bytes of text"},
    [SEC_ORIG] = {"ORIG", ORIGIN_RECORD, 1, "origins"},
    [SEC_RMAT] = {"RMAT", sizeof(sinew_render_material_rec), SINEW_ASSET_MAX_RENDER_MATERIALS, "render materials"},
    [SEC_RMNM] = {"RMNM", 1, SINEW_ASSET_MAX_RENDER_MATERIALS * (SINEW_ASSET_MAX_MATERIAL_NAME + 1u),
                  "bytes of material names"},
    [SEC_RLIB] = {"RLIB", 1, SINEW_ASSET_MAX_LIBRARY, "bytes of material library"},
};

/* One parsed entry of the section table. */
typedef struct section_entry {
    uint8_t tag[4];
    char name[5]; /* the tag, printable, for messages */
    uint32_t version, count, crc;
    uint64_t offset, size;
} section_entry;

/* ---------------------------------------------------------------- CRC-32 */

/* Reflected CRC-32, polynomial 0xEDB88320 (zlib, IEEE 802.3): entry n is n
 * shifted through eight rounds of the bitwise algorithm. */
static const uint32_t crc_table[256] = {
    0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu,
    0xe963a535u, 0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u,
    0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u,
    0xf3b97148u, 0x84be41deu, 0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u,
    0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u,
    0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u, 0xa2677172u,
    0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
    0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u,
    0x26d930acu, 0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u,
    0xcfba9599u, 0xb8bda50fu, 0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u,
    0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du, 0x76dc4190u, 0x01db7106u,
    0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu, 0x9fbfe4a5u, 0xe8b8d433u,
    0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du,
    0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
    0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u,
    0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u,
    0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u,
    0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au, 0x346ed9fcu, 0xad678846u, 0xda60b8d0u,
    0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u, 0x5005713cu, 0x270241aau,
    0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
    0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
    0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au,
    0xead54739u, 0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u,
    0x0d6d6a3eu, 0x7a6a5aa8u, 0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u,
    0xf00f9344u, 0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu,
    0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u, 0x10da7a5au, 0x67dd4accu,
    0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u, 0xa1d1937eu,
    0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
    0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u,
    0x316e8eefu, 0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u,
    0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u,
    0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du,
    0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au, 0x9c0906a9u, 0xeb0e363fu,
    0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u,
    0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
    0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u,
    0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u,
    0x616bffd3u, 0x166ccf45u, 0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u,
    0xa7672661u, 0xd06016f7u, 0x4969474du, 0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu,
    0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
    0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u, 0xcdd70693u,
    0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
    0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

uint32_t sinew_crc32(uint32_t crc, const void *data, size_t size)
{
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < size; ++i)
        crc = crc_table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}

/* ---------------------------------------------------------------- bytes */

/* Every record is packed 32-bit fields (asset.h pins the sizes), so an array
 * travels as little-endian 32-bit words; floats keep their bits. */
static void put_words(uint8_t *dst, const void *src, size_t words)
{
    const uint8_t *s = src;
    for (size_t i = 0; i < words; ++i) {
        uint32_t w;
        memcpy(&w, s + 4 * i, 4);
        sinew_put_u32(dst + 4 * i, w);
    }
}

static void get_words(void *dst, const uint8_t *src, size_t words)
{
    uint8_t *d = dst;
    for (size_t i = 0; i < words; ++i) {
        uint32_t w = sinew_get_u32(src + 4 * i);
        memcpy(d + 4 * i, &w, 4);
    }
}

static uint64_t align_up(uint64_t v) { return (v + PAYLOAD_ALIGN - 1) & ~(uint64_t)(PAYLOAD_ALIGN - 1); }

/* Over the header and the section table, with the CRC field taken as zero. */
static uint32_t header_crc(const uint8_t *file, uint32_t section_count)
{
    static const uint8_t zero[4];
    uint32_t crc = sinew_crc32(0, file, H_CRC);
    crc = sinew_crc32(crc, zero, sizeof zero);
    return sinew_crc32(crc, file + H_CRC + 4, HEADER_SIZE + (size_t)ENTRY_SIZE * section_count - (H_CRC + 4));
}

/* ---------------------------------------------------------------- writing */

static sinew_result serialize(const sinew_asset *a, const char *name, void **bytes, size_t *size,
                              const sinew_logger *lg)
{
    *bytes = NULL;
    *size = 0;
    /* Refuse to write what the loader would refuse to read. */
    sinew_result r = sinew_asset_validate(a, name, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    size_t meta_len = a->meta ? strlen(a->meta) : 0;
    if (meta_len > MAX_META_BYTES)
        return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset",
                          "%s: section META: %zu bytes of text exceed the limit of %u", name, meta_len,
                          MAX_META_BYTES);

    const struct { uint32_t count; const void *data; } src[SEC_COUNT] = {
        [SEC_PART] = {a->particle_count, a->particles},
        [SEC_TRIS] = {a->triangle_count, a->triangles},
        [SEC_DIST] = {a->distance_count, a->distances},
        [SEC_BEND] = {a->bend_count, a->bends},
        [SEC_COLR] = {a->colour_count, a->colours},
        [SEC_ELEM] = {a->element_count, a->elements},
        [SEC_ECOL] = {a->element_colour_count, a->element_colours},
        [SEC_MATL] = {a->material_count, a->materials},
        [SEC_HLEV] = {a->level_count, a->levels},
        [SEC_HNOD] = {a->level_count ? a->particle_count : 0, a->nodes},
        [SEC_HLNK] = {a->link_count, a->links},
        [SEC_HDST] = {a->hdistance_count, a->hdistances},
        [SEC_HCOL] = {a->hcolour_count, a->hcolours},
        [SEC_PRED] = {a->red_count, a->reds},
        [SEC_PBLK] = {a->black_count, a->blacks},
        [SEC_MLEV] = {a->mlevel_count, a->mlevels},
        [SEC_MTRI] = {a->mtriangle_count, a->mtriangles},
        [SEC_MPAR] = {a->mlevel_count ? a->particle_count : 0, a->parents},
        [SEC_MCOL] = {a->mcolour_count, a->mcolours},
        [SEC_MVTX] = {a->mvertex_count, a->mvertices},
        [SEC_CPAS] = {a->cpass_count, a->cpasses},
        [SEC_CLUS] = {a->cluster_count, a->clusters},
        [SEC_CPRT] = {a->cparticle_count, a->cparticles},
        [SEC_CCOL] = {a->ccolour_count, a->ccolours},
        [SEC_CITM] = {a->citem_count, a->citems},
        [SEC_RVTX] = {a->rvertex_count, a->rvertices},
        [SEC_RIDX] = {a->rtriangle_count, a->rtriangles},
        [SEC_META] = {(uint32_t)meta_len, a->meta},
        [SEC_ORIG] = {1, a->origin},
        [SEC_RMAT] = {a->rmaterial_count, a->rmaterials},
        [SEC_RMNM] = {a->rname_size, a->rnames},
        [SEC_RLIB] = {a->rlibrary_size, a->rlibrary},
    };
    /* The oldest version that holds the asset: 1.0 without finite elements or
     * a hierarchy, so that files of cloth alone stay what they were; 1.1 with
     * elements, and then all three of its sections; 1.2 with a hierarchy, and
     * then its five; 1.3 with a red-black partition; 1.4 with multigrid
     * levels; 1.5 with clustered sweeps; 1.6 with a render mesh. The sections of the older versions are written with a newer
     * one's too, empty or not. META only when there is text, so that NULL and "" stay distinct
     * through a round trip. 1.7 with an origin other than 0 (ORIG, then
     * every section before it): an asset at the world's origin is the file
     * it always was. 1.8 with render materials (RMAT, RMNM, RLIB, and ORIG
     * with it, (0, 0, 0) where there is none). */
    int has_materials = a->rmaterial_count > 0 || a->rlibrary_size > 0;
    int has_origin = sinew_asset_has_origin(a) || has_materials;
    int has_render = a->rvertex_count > 0 || has_origin;
    int has_clusters = a->cpass_count > 0 || has_render;
    int has_multigrid = a->mlevel_count > 0 || has_clusters;
    int has_red_black = a->red_count || a->black_count || has_multigrid;
    int has_hierarchy = a->level_count > 0 || has_red_black;
    int has_elements = a->element_count || a->element_colour_count || a->material_count || has_hierarchy;
    uint32_t minor = has_materials   ? FORMAT_MINOR_MATERIALS
                     : has_origin    ? FORMAT_MINOR_ORIGIN
                     : has_render    ? FORMAT_MINOR_RENDER
                     : has_clusters  ? FORMAT_MINOR_CLUSTERS
                     : has_multigrid ? FORMAT_MINOR_MULTIGRID
                     : has_red_black ? FORMAT_MINOR_RED_BLACK
                     : has_hierarchy ? FORMAT_MINOR_HIERARCHY
                     : has_elements  ? FORMAT_MINOR_ELEMENTS
                                     : FORMAT_MINOR;
    int order[SEC_COUNT];
    uint32_t section_count = 0;
    for (int i = 0; i < SEC_COUNT; ++i) {
        int is_element_section = i == SEC_ELEM || i == SEC_ECOL || i == SEC_MATL;
        int is_hierarchy_section = i >= SEC_HLEV && i <= SEC_HCOL;
        int is_red_black_section = i == SEC_PRED || i == SEC_PBLK;
        int is_multigrid_section = i >= SEC_MLEV && i <= SEC_MVTX;
        int is_cluster_section = i >= SEC_CPAS && i <= SEC_CITM;
        int is_render_section = i == SEC_RVTX || i == SEC_RIDX;
        if ((is_element_section && !has_elements) || (is_hierarchy_section && !has_hierarchy) ||
            (is_red_black_section && !has_red_black) || (is_multigrid_section && !has_multigrid) ||
            (is_cluster_section && !has_clusters) || (is_render_section && !has_render) ||
            (i == SEC_META && !a->meta) || (i == SEC_ORIG && !has_origin) ||
            (i >= SEC_RMAT && !has_materials))
            continue;
        order[section_count++] = i;
    }
    uint64_t offset[SEC_COUNT], length[SEC_COUNT];
    uint64_t total = HEADER_SIZE + (uint64_t)ENTRY_SIZE * section_count;
    for (uint32_t i = 0; i < section_count; ++i) {
        int k = order[i];
        offset[i] = total;
        length[i] = (uint64_t)src[k].count * section_kinds[k].record_size;
        total += align_up(length[i]);
    }
    if (total > SIZE_MAX)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "asset", "%s: %" PRIu64 " bytes do not fit in memory",
                          name, total);
    uint8_t *file = calloc((size_t)total, 1); /* zeroes the padding and reserved bytes */
    if (!file)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset", "%s: no memory for %" PRIu64 " bytes",
                          name, total);

    memcpy(file + H_MAGIC, "SNWA", 4);
    sinew_put_u16(file + H_MAJOR, FORMAT_MAJOR);
    sinew_put_u16(file + H_MINOR, (uint16_t)minor);
    sinew_put_u32(file + H_SECTION_COUNT, section_count);
    sinew_put_u64(file + H_FILE_SIZE, total);
    for (uint32_t i = 0; i < section_count; ++i) {
        int k = order[i];
        uint8_t *payload = file + offset[i];
        if (k == SEC_META || k == SEC_RMNM || k == SEC_RLIB) { /* bytes */
            if (length[i])
                memcpy(payload, src[k].data, (size_t)length[i]);
        }
        else if (k == SEC_ORIG)
            for (int c = 0; c < 3; ++c) { /* a double keeps its bits, little-endian */
                uint64_t bits;
                memcpy(&bits, &a->origin[c], 8);
                sinew_put_u64(payload + 8 * c, bits);
            }
        else
            put_words(payload, src[k].data, (size_t)length[i] / 4);
        uint8_t *e = file + HEADER_SIZE + (size_t)ENTRY_SIZE * i;
        memcpy(e + E_TAG, section_kinds[k].tag, 4);
        sinew_put_u32(e + E_VERSION, SECTION_VERSION);
        sinew_put_u64(e + E_OFFSET, offset[i]);
        sinew_put_u64(e + E_SIZE, length[i]);
        sinew_put_u32(e + E_COUNT, src[k].count);
        sinew_put_u32(e + E_CRC, sinew_crc32(0, payload, (size_t)length[i]));
    }
    sinew_put_u32(file + H_CRC, header_crc(file, section_count));
    *bytes = file;
    *size = (size_t)total;
    return SINEW_RESULT_OK;
}

sinew_result sinew_asset_serialize(const sinew_asset *a, void **bytes, size_t *size, const sinew_logger *lg)
{
    SINEW_ASSERT(a && bytes && size);
    return serialize(a, "asset", bytes, size, lg);
}

sinew_result sinew_asset_write(const sinew_asset *a, const char *path, const sinew_logger *lg)
{
    SINEW_ASSERT(a && path);
    void *bytes;
    size_t size;
    sinew_result r = serialize(a, path, &bytes, &size, lg);
    if (r != SINEW_RESULT_OK)
        return r;
    r = sinew_file_write_replace(path, bytes, size, lg, "asset");
    free(bytes);
    return r;
}

/* ---------------------------------------------------------------- reading */

/* Every structural failure of the file: BAD_ASSET with the file's name first. */
static sinew_result bad_file(const sinew_logger *lg, const char *name, const char *fmt, ...) SINEW_PRINTF(3, 4);

static sinew_result bad_file(const sinew_logger *lg, const char *name, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sinew_fail(lg, SINEW_RESULT_ERROR_BAD_ASSET, "asset", "%s: %s", name, what);
}

/* The header and the extent of the section table; nothing past them is read. */
static sinew_result check_header(const uint8_t *p, size_t size, const char *name, const sinew_logger *lg,
                                 uint32_t *section_count)
{
    if (size < HEADER_SIZE)
        return bad_file(lg, name, "%zu bytes is too short for the %u-byte header (truncated file?)", size,
                        HEADER_SIZE);
    if (memcmp(p + H_MAGIC, "SNWA", 4) != 0)
        return bad_file(lg, name, "bad magic %02x %02x %02x %02x: not a sinew asset (expected \"SNWA\")", p[0],
                        p[1], p[2], p[3]);
    uint16_t major = sinew_get_u16(p + H_MAJOR), minor = sinew_get_u16(p + H_MINOR);
    if (major != FORMAT_MAJOR)
        return bad_file(lg, name, "format version %u.%u is not supported (this reader reads %u.x)", major, minor,
                        FORMAT_MAJOR);
    uint64_t file_size = sinew_get_u64(p + H_FILE_SIZE);
    if (file_size != size)
        return bad_file(lg, name, "header gives a file size of %" PRIu64 " bytes but there are %zu (%s)",
                        file_size, size, file_size > size ? "truncated file?" : "trailing bytes?");
    uint32_t count = sinew_get_u32(p + H_SECTION_COUNT);
    if (count > MAX_SECTIONS)
        return bad_file(lg, name, "section count %u exceeds the limit of %u", count, MAX_SECTIONS);
    uint64_t table_end = HEADER_SIZE + (uint64_t)ENTRY_SIZE * count;
    if (table_end > size)
        return bad_file(lg, name, "section table of %u entries ends at byte %" PRIu64 ", past the end of the file",
                        count, table_end);
    uint32_t stored = sinew_get_u32(p + H_CRC), actual = header_crc(p, count);
    if (stored != actual)
        return bad_file(lg, name, "header CRC-32 mismatch: stored 0x%08x, computed 0x%08x (corrupt header or section "
                        "table)", stored, actual);
    *section_count = count;
    return SINEW_RESULT_OK;
}

static section_entry parse_entry(const uint8_t *p)
{
    section_entry e;
    memcpy(e.tag, p + E_TAG, 4);
    for (int k = 0; k < 4; ++k)
        e.name[k] = e.tag[k] >= 0x20 && e.tag[k] < 0x7F ? (char)e.tag[k] : '?';
    e.name[4] = '\0';
    e.version = sinew_get_u32(p + E_VERSION);
    e.offset = sinew_get_u64(p + E_OFFSET);
    e.size = sinew_get_u64(p + E_SIZE);
    e.count = sinew_get_u32(p + E_COUNT);
    e.crc = sinew_get_u32(p + E_CRC);
    return e;
}

static int find_kind(const uint8_t tag[4])
{
    for (int i = 0; i < SEC_COUNT; ++i)
        if (memcmp(tag, section_kinds[i].tag, 4) == 0)
            return i;
    return -1;
}

/* Where a section lies and, for a known tag, whether its count and size agree
 * and stay within limits. Checked before any payload byte is read. */
static sinew_result check_entry(const section_entry *e, uint64_t table_end, size_t size, const char *name,
                                const sinew_logger *lg, const section_entry *known[SEC_COUNT])
{
    if (e->offset % PAYLOAD_ALIGN != 0)
        return bad_file(lg, name, "section %s: offset %" PRIu64 " is not a multiple of %u", e->name, e->offset,
                        PAYLOAD_ALIGN);
    if (e->offset < table_end)
        return bad_file(lg, name, "section %s: offset %" PRIu64 " lies inside the header or section table "
                        "(which end at %" PRIu64 ")", e->name, e->offset, table_end);
    /* Subtracting, not adding, so a huge size cannot wrap around. */
    if (e->offset > size || e->size > size - e->offset)
        return bad_file(lg, name, "section %s: bytes [%" PRIu64 ", +%" PRIu64 ") lie outside the file (%zu bytes)",
                        e->name, e->offset, e->size, size);
    int kind = find_kind(e->tag);
    if (kind < 0)
        return SINEW_RESULT_OK;
    const struct section_kind *k = &section_kinds[kind];
    if (known[kind])
        return bad_file(lg, name, "section %s appears twice in the section table", e->name);
    known[kind] = e;
    if (e->version != SECTION_VERSION)
        return bad_file(lg, name, "section %s: version %u is not supported (this reader reads version %u)",
                        e->name, e->version, SECTION_VERSION);
    /* The limit comes first: nothing is allocated from a count not checked. */
    if (e->count > k->max_count)
        return bad_file(lg, name, "section %s: %u %s exceed the limit of %u", e->name, e->count, k->what,
                        k->max_count);
    /* A u32 count times at most 224 bytes cannot overflow 64 bits. */
    if (e->size != (uint64_t)e->count * k->record_size)
        return bad_file(lg, name, "section %s: size %" PRIu64 " bytes is not %u records of %u bytes", e->name,
                        e->size, e->count, k->record_size);
    return SINEW_RESULT_OK;
}

/* Sections may be in any order and have gaps between them, but share no byte. */
static sinew_result check_overlaps(const section_entry *entries, uint32_t count, const char *name,
                                   const sinew_logger *lg)
{
    for (uint32_t i = 0; i < count; ++i)
        for (uint32_t j = i + 1; j < count; ++j) {
            const section_entry *a = &entries[i], *b = &entries[j];
            if (a->size && b->size && a->offset < b->offset + b->size && b->offset < a->offset + a->size)
                return bad_file(lg, name, "sections %s [%" PRIu64 ", +%" PRIu64 ") and %s [%" PRIu64 ", +%" PRIu64
                                ") overlap", a->name, a->offset, a->size, b->name, b->offset, b->size);
        }
    return SINEW_RESULT_OK;
}

static sinew_result check_payload(const uint8_t *p, const section_entry *e, int is_meta, const char *name,
                                  const sinew_logger *lg)
{
    uint32_t actual = sinew_crc32(0, p + e->offset, (size_t)e->size);
    if (actual != e->crc)
        return bad_file(lg, name, "section %s: payload CRC-32 mismatch: stored 0x%08x, computed 0x%08x "
                        "(corrupt data)", e->name, e->crc, actual);
    /* The text becomes a C string in memory; a NUL would silently cut it. */
    const uint8_t *nul = is_meta ? memchr(p + e->offset, 0, (size_t)e->size) : NULL;
    if (nul)
        return bad_file(lg, name, "section META, byte %td: text contains a NUL byte", nul - (p + e->offset));
    return SINEW_RESULT_OK;
}

/* Copies the checked payloads into a new asset. */
static sinew_result decode(const uint8_t *p, const section_entry *known[SEC_COUNT], const char *name,
                           const sinew_logger *lg, sinew_asset **out)
{
    uint32_t count[SEC_COUNT];
    for (int i = 0; i < SEC_COUNT; ++i)
        count[i] = known[i] ? known[i]->count : 0;
    sinew_asset *a = sinew_asset_alloc(count[SEC_PART], count[SEC_TRIS], count[SEC_DIST], count[SEC_BEND],
                                       count[SEC_COLR]);
    int ok = a != NULL;
    if (ok && (count[SEC_ELEM] || count[SEC_ECOL] || count[SEC_MATL]))
        ok = sinew_asset_alloc_elements(a, count[SEC_ELEM], count[SEC_ECOL], count[SEC_MATL]);
    if (ok && count[SEC_HNOD] != (count[SEC_HLEV] ? count[SEC_PART] : 0)) {
        sinew_asset_destroy(a);
        return bad_file(lg, name, "section HNOD: %u hierarchy nodes for %u levels and %u particles (one node per "
                        "particle when there are levels, none otherwise)", count[SEC_HNOD], count[SEC_HLEV],
                        count[SEC_PART]);
    }
    if (ok && (count[SEC_HLEV] || count[SEC_HLNK] || count[SEC_HDST] || count[SEC_HCOL]))
        ok = sinew_asset_alloc_hierarchy(a, count[SEC_HLEV], count[SEC_HLNK], count[SEC_HDST], count[SEC_HCOL]);
    if (ok && (count[SEC_PRED] || count[SEC_PBLK]))
        ok = sinew_asset_alloc_red_black(a, count[SEC_PRED], count[SEC_PBLK]);
    if (ok && count[SEC_MPAR] != (count[SEC_MLEV] ? count[SEC_PART] : 0)) {
        sinew_asset_destroy(a);
        return bad_file(lg, name, "section MPAR: %u parent pairs for %u levels and %u particles (one pair per "
                        "particle when there are levels, none otherwise)", count[SEC_MPAR], count[SEC_MLEV],
                        count[SEC_PART]);
    }
    if (ok && (count[SEC_MLEV] || count[SEC_MTRI] || count[SEC_MCOL] || count[SEC_MVTX]))
        ok = sinew_asset_alloc_multigrid(a, count[SEC_MLEV], count[SEC_MTRI], count[SEC_MCOL], count[SEC_MVTX]);
    if (ok && (count[SEC_CPAS] || count[SEC_CLUS] || count[SEC_CPRT] || count[SEC_CCOL] || count[SEC_CITM]))
        ok = sinew_asset_alloc_clusters(a, count[SEC_CPAS], count[SEC_CLUS], count[SEC_CPRT], count[SEC_CCOL],
                                        count[SEC_CITM]);
    if (ok && (count[SEC_RVTX] || count[SEC_RIDX]))
        ok = sinew_asset_alloc_render(a, count[SEC_RVTX], count[SEC_RIDX]);
    if (ok && known[SEC_META])
        ok = (a->meta = malloc((size_t)count[SEC_META] + 1)) != NULL;
    if (ok && (count[SEC_RMAT] || count[SEC_RMNM] || count[SEC_RLIB])) {
        a->rmaterials = calloc(count[SEC_RMAT] ? count[SEC_RMAT] : 1, sizeof *a->rmaterials);
        a->rnames = malloc((size_t)count[SEC_RMNM] + 1);
        a->rlibrary = malloc((size_t)count[SEC_RLIB] + 1);
        ok = a->rmaterials && a->rnames && a->rlibrary;
        if (ok) {
            a->rmaterial_count = count[SEC_RMAT];
            a->rname_size = count[SEC_RMNM];
            a->rlibrary_size = count[SEC_RLIB];
            if (count[SEC_RMAT])
                get_words(a->rmaterials, p + known[SEC_RMAT]->offset, (size_t)known[SEC_RMAT]->size / 4);
            if (count[SEC_RMNM])
                memcpy(a->rnames, p + known[SEC_RMNM]->offset, count[SEC_RMNM]);
            if (count[SEC_RLIB])
                memcpy(a->rlibrary, p + known[SEC_RLIB]->offset, count[SEC_RLIB]);
            a->rnames[count[SEC_RMNM]] = a->rlibrary[count[SEC_RLIB]] = '\0';
        }
    }
    if (!ok) {
        sinew_asset_destroy(a);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "asset", "%s: no memory for the asset", name);
    }
    void *arrays[SEC_META] = {a->particles, a->triangles, a->distances, a->bends, a->colours,
                              a->elements, a->element_colours, a->materials, a->levels, a->nodes,
                              a->links, a->hdistances, a->hcolours, a->reds, a->blacks,
                              a->mlevels, a->mtriangles, a->parents, a->mcolours, a->mvertices,
                              a->cpasses, a->clusters, a->cparticles, a->ccolours, a->citems,
                              a->rvertices, a->rtriangles};
    for (int i = 0; i < SEC_META; ++i)
        if (count[i])
            get_words(arrays[i], p + known[i]->offset, (size_t)known[i]->size / 4);
    if (a->meta) {
        memcpy(a->meta, p + known[SEC_META]->offset, count[SEC_META]);
        a->meta[count[SEC_META]] = '\0';
    }
    for (int c = 0; c < 3 && count[SEC_ORIG]; ++c) { /* no ORIG, or an empty one: at the world's origin */
        uint64_t bits = sinew_get_u64(p + known[SEC_ORIG]->offset + 8 * c);
        memcpy(&a->origin[c], &bits, 8);
    }
    *out = a;
    return SINEW_RESULT_OK;
}

sinew_result sinew_asset_load_memory(const void *bytes, size_t size, const char *name, const sinew_logger *lg,
                                     sinew_asset **out)
{
    SINEW_ASSERT(out && name && (bytes || size == 0));
    *out = NULL;
    const uint8_t *p = bytes;
    uint32_t section_count = 0;
    sinew_result r = check_header(p, size, name, lg, &section_count);
    if (r != SINEW_RESULT_OK)
        return r;

    section_entry entries[MAX_SECTIONS];
    const section_entry *known[SEC_COUNT] = {0};
    uint64_t table_end = HEADER_SIZE + (uint64_t)ENTRY_SIZE * section_count;
    for (uint32_t i = 0; i < section_count; ++i) {
        entries[i] = parse_entry(p + HEADER_SIZE + (size_t)ENTRY_SIZE * i);
        if ((r = check_entry(&entries[i], table_end, size, name, lg, known)) != SINEW_RESULT_OK)
            return r;
    }
    if ((r = check_overlaps(entries, section_count, name, lg)) != SINEW_RESULT_OK)
        return r;
    if (!known[SEC_PART])
        return bad_file(lg, name, "required section PART is missing");
    for (uint32_t i = 0; i < section_count; ++i) {
        if ((r = check_payload(p, &entries[i], &entries[i] == known[SEC_META], name, lg)) != SINEW_RESULT_OK)
            return r;
        if (find_kind(entries[i].tag) < 0)
            sinew_logf(lg, SINEW_LOG_DEBUG, "asset", "%s: skipping unknown section %s (%" PRIu64 " bytes)", name,
                       entries[i].name, entries[i].size);
    }

    sinew_asset *a = NULL;
    if ((r = decode(p, known, name, lg, &a)) != SINEW_RESULT_OK)
        return r;
    if ((r = sinew_asset_validate(a, name, lg)) != SINEW_RESULT_OK) {
        sinew_asset_destroy(a);
        return r;
    }
    sinew_logf(lg, SINEW_LOG_INFO, "asset",
               "%s: loaded %u particles (%u pinned), %u triangles, %u distance and %u bending constraints in "
               "%u colours", name, a->particle_count, sinew_asset_get_info(a).pinned_count, a->triangle_count,
               a->distance_count, a->bend_count, a->colour_count);
    if (a->element_count || a->material_count)
        sinew_logf(lg, SINEW_LOG_INFO, "asset", "%s: %u finite elements in %u colours, %u materials", name,
                   a->element_count, a->element_colour_count, a->material_count);
    if (a->cpass_count)
        sinew_logf(lg, SINEW_LOG_INFO, "asset", "%s: %u clusters in %u passes", name, a->cluster_count,
                   a->cpass_count);
    if (a->level_count)
        sinew_logf(lg, SINEW_LOG_INFO, "asset", "%s: hierarchy of %u levels, %u coarse constraints", name,
                   a->level_count, a->hdistance_count);
    if (a->rvertex_count)
        sinew_logf(lg, SINEW_LOG_INFO, "asset", "%s: render mesh of %u vertices, %u triangles", name,
                   a->rvertex_count, a->rtriangle_count);
    if (sinew_asset_has_origin(a))
        sinew_logf(lg, SINEW_LOG_INFO, "asset", "%s: origin at (%.17g, %.17g, %.17g) m", name, a->origin[0],
                   a->origin[1], a->origin[2]);
    *out = a;
    return SINEW_RESULT_OK;
}

/* The file size an asset's header declares; 0 for another format. */
static uint64_t declared_size(const uint8_t *header)
{
    return memcmp(header + H_MAGIC, "SNWA", 4) == 0 ? sinew_get_u64(header + H_FILE_SIZE) : 0;
}

sinew_result sinew_asset_load(const char *path, const sinew_logger *lg, sinew_asset **out)
{
    SINEW_ASSERT(path && out);
    *out = NULL;
    uint8_t *bytes = NULL;
    size_t size = 0;
    /* The header first: a file that is not an asset, or is longer than its
     * header says, is refused on its 32 bytes, whatever its length. */
    sinew_result r = sinew_file_read_declared(path, HEADER_SIZE, declared_size, MAX_FILE_BYTES,
                                              SINEW_RESULT_ERROR_BAD_ASSET, lg, "asset", &bytes, &size);
    if (r != SINEW_RESULT_OK)
        return r;
    r = sinew_asset_load_memory(bytes, size, path, lg, out);
    free(bytes);
    return r;
}
