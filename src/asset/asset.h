/* The asset in memory, and the writer used by the offline tools.
 *
 * Layout of the arrays (file layout in docs/asset-format.md is the same records,
 * little-endian):
 *
 *   particles  [n]  { x, y, z (m), w (1/kg, 0 = pinned) }           16 B
 *   triangles  [t]  { v0, v1, v2 }                                  12 B
 *   distances  [d]  { a, b, rest (m), kind }                        16 B
 *   bends      [b]  { v0, v1 (shared edge), v2, v3 (wings),
 *                     rest angle (rad), kind }                      24 B
 *   colours    [c]  { distance_begin, distance_count,
 *                     bend_begin, bend_count }                      16 B
 *
 * distances and bends are sorted by colour: colour k owns
 * distances[distance_begin, +distance_count) and bends[bend_begin, +bend_count),
 * the ranges follow each other without gaps, and no particle appears twice among
 * the constraints of one colour.
 */
#ifndef SINEW_ASSET_INTERNAL_H
#define SINEW_ASSET_INTERNAL_H

#include <sinew/asset.h>

enum sinew_constraint_kind {
    SINEW_KIND_STRETCH = 0, /* distance along a polygon edge */
    SINEW_KIND_SHEAR = 1,   /* distance along a polygon diagonal */
    SINEW_KIND_BEND = 2,    /* dihedral angle across an interior edge */
    SINEW_KIND_COUNT
};

typedef struct sinew_particle_rec { float x, y, z, w; } sinew_particle_rec;
typedef struct sinew_triangle_rec { uint32_t v[3]; } sinew_triangle_rec;
typedef struct sinew_distance_rec { uint32_t a, b; float rest; uint32_t kind; } sinew_distance_rec;
typedef struct sinew_bend_rec { uint32_t v[4]; float rest_angle; uint32_t kind; } sinew_bend_rec;
typedef struct sinew_colour_rec {
    uint32_t distance_begin, distance_count, bend_begin, bend_count;
} sinew_colour_rec;

_Static_assert(sizeof(sinew_particle_rec) == 16, "file layout");
_Static_assert(sizeof(sinew_triangle_rec) == 12, "file layout");
_Static_assert(sizeof(sinew_distance_rec) == 16, "file layout");
_Static_assert(sizeof(sinew_bend_rec) == 24, "file layout");
_Static_assert(sizeof(sinew_colour_rec) == 16, "file layout");

/* Limits the loader enforces so that sizes stay far from overflow and within
 * 32-bit indices on the device. */
#define SINEW_ASSET_MAX_PARTICLES (1u << 26)
#define SINEW_ASSET_MAX_RECORDS (1u << 28)
#define SINEW_ASSET_MAX_COLOURS 4096u

struct sinew_asset {
    uint32_t particle_count, triangle_count, distance_count, bend_count, colour_count;
    sinew_particle_rec *particles;
    sinew_triangle_rec *triangles;
    sinew_distance_rec *distances;
    sinew_bend_rec *bends;
    sinew_colour_rec *colours;
    char *meta; /* NUL-terminated "key=value\n" text, may be NULL */
};

/* Allocates an empty asset with arrays of the given sizes (zeroed). NULL on OOM. */
sinew_asset *sinew_asset_alloc(uint32_t particles, uint32_t triangles, uint32_t distances,
                               uint32_t bends, uint32_t colours);

/* Checks the semantic invariants above (indices, finiteness, colour ranges and
 * their independence). name is used in messages. */
sinew_result sinew_asset_validate(const sinew_asset *a, const char *name, const sinew_logger *lg);

/* Serialises to the v1 file format. *bytes is malloc'd; caller frees. */
sinew_result sinew_asset_serialize(const sinew_asset *a, void **bytes, size_t *size, const sinew_logger *lg);

/* Serialises and writes to path. */
sinew_result sinew_asset_write(const sinew_asset *a, const char *path, const sinew_logger *lg);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32). */
uint32_t sinew_crc32(uint32_t crc, const void *data, size_t size);

#endif
