/* libFuzzer target: sinew_asset_load_memory on arbitrary bytes.
 *
 * Mutated bytes almost never keep their CRC-32s, so on its own the fuzzer
 * would only ever test the checksum check. Each input is therefore loaded
 * twice: as it is, and with the header's file size and every CRC the table
 * lets us find recomputed, so mutations reach the placement checks, the
 * decoder and the validation behind them.
 *
 * An accepted asset must survive the round trip: serialised by the writer,
 * loaded again, serialised again to the same bytes.
 */
#include "fuzz_common.h"

#include "asset/asset.h"

#include <stdlib.h>
#include <string.h>

/* Layout from docs/asset-format.md. */
enum { HEADER = 32, ENTRY = 32, MAX_SECTIONS = 256 };

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static void wr32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = (uint8_t)(v >> 8 * k);
}

static void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

/* Makes the file size and the CRCs of the header and of every section that
 * lies within the file agree with the bytes. 0 when there is no table to fix. */
static int fix_checksums(uint8_t *p, size_t size)
{
    if (size < HEADER)
        return 0;
    wr64(p + 16, size);
    uint32_t count = rd32(p + 8);
    if (count > MAX_SECTIONS || HEADER + (uint64_t)ENTRY * count > size)
        return 1;
    for (uint32_t i = 0; i < count; ++i) {
        uint8_t *e = p + HEADER + (size_t)ENTRY * i;
        uint64_t offset = rd64(e + 8), length = rd64(e + 16);
        if (offset <= size && length <= size - offset)
            wr32(e + 28, sinew_crc32(0, p + offset, (size_t)length));
    }
    wr32(p + 12, 0);
    wr32(p + 12, sinew_crc32(0, p, HEADER + (size_t)ENTRY * count));
    return 1;
}

static void check_round_trip(const sinew_asset *a)
{
    sinew_asset_info info = sinew_asset_get_info(a);
    uint32_t triangle_count;
    const uint32_t *tris = sinew_asset_get_triangles(a, &triangle_count);
    FUZZ_CHECK(triangle_count == info.triangle_count && (tris != NULL) == (triangle_count > 0));
    for (uint32_t i = 0; i < 3 * triangle_count; ++i)
        FUZZ_CHECK(tris[i] < info.particle_count);

    void *bytes = NULL, *again = NULL;
    size_t size = 0, again_size = 0;
    FUZZ_CHECK(sinew_asset_serialize(a, &bytes, &size, &fuzz_logger) == SINEW_RESULT_OK);
    sinew_asset *b = NULL;
    FUZZ_CHECK(sinew_asset_load_memory(bytes, size, "round trip", &fuzz_logger, &b) == SINEW_RESULT_OK);
    FUZZ_CHECK(sinew_asset_serialize(b, &again, &again_size, &fuzz_logger) == SINEW_RESULT_OK);
    FUZZ_CHECK(again_size == size && memcmp(again, bytes, size) == 0);
    sinew_asset_info info_b = sinew_asset_get_info(b);
    FUZZ_CHECK(info_b.particle_count == info.particle_count && info_b.distance_count == info.distance_count &&
               info_b.bend_count == info.bend_count && info_b.colour_count == info.colour_count);
    sinew_asset_destroy(b);
    free(bytes);
    free(again);
}

static void load(const uint8_t *data, size_t size)
{
    sinew_asset *a = (sinew_asset *)&a; /* not NULL: a failed load must clear it */
    sinew_result r = sinew_asset_load_memory(data, size, "fuzz.snw", &fuzz_logger, &a);
    FUZZ_CHECK((r == SINEW_RESULT_OK) == (a != NULL));
    /* Out of memory is no answer to a small input (see fuzz_check_mesh). */
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_BAD_ASSET);
    if (a)
        check_round_trip(a);
    sinew_asset_destroy(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load(data, size);
    /* A copy of exactly size bytes, so ASan sees any read past the end. */
    uint8_t *fixed = malloc(size ? size : 1);
    if (!fixed)
        return 0;
    memcpy(fixed, data, size);
    if (fix_checksums(fixed, size) && memcmp(fixed, data, size) != 0)
        load(fixed, size);
    free(fixed);
    return 0;
}
