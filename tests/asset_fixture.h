/* What the asset tests share: log capture, byte access, an independent writer and the three test assets. */
#ifndef SINEW_ASSET_FIXTURE_H
#define SINEW_ASSET_FIXTURE_H

/* The three test assets (asset_fixture.c): a cloth grid (format 1.0), a small
 * solid of finite elements with every material model (format 1.1), and the
 * grid with a particle hierarchy (format 1.2). */
#include "asset/asset.h"

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- log capture */

struct capture {
    char text[16384]; /* every message, one per line, "[id] text" */
    int errors;
};
extern struct capture cap;

/* A logger into cap, emptied. */
const sinew_logger *capture_logger(sinew_log_level level);
/* Exactly one error, from the asset module, containing every needle. */
void assert_one_error(const char *needle1, const char *needle2);

/* ---------------------------------------------------------------- bytes */

uint32_t rd32(const uint8_t *p);
uint64_t rd64(const uint8_t *p);
void wr32(uint8_t *p, uint32_t v);
void wr64(uint8_t *p, uint64_t v);
void wrf32(uint8_t *p, float f);

/* Layout constants from docs/asset-format.md, written here independently. */
enum { HEADER = 32, ENTRY = 32 };
enum { E_VERSION = 4, E_OFFSET = 8, E_SIZE = 16, E_COUNT = 24, E_CRC = 28 };

uint8_t *entry_of(uint8_t *file, const char *tag);
/* Field at byte `field` of record `index` of the section. */
uint8_t *field_of(uint8_t *file, const char *tag, uint32_t record_size, uint32_t index, uint32_t field);
/* Recomputes every payload CRC that lies inside the file, then the header CRC. */
void fix_crcs(uint8_t *file, size_t size);

/* ---------------------------------------------------------------- an independent writer */

typedef struct test_section {
    char tag[4];
    uint32_t version, count;
    const uint8_t *data;
    uint64_t size;
} test_section;

/* Header, table, then payloads in table order, each at the next multiple of 16. */
uint8_t *assemble_version(const test_section *s, uint32_t n, uint16_t minor, size_t *size);
uint8_t *assemble(const test_section *s, uint32_t n, size_t *size);
/* The sections of a file, pointing into it. */
uint32_t split(const uint8_t *file, test_section *s);

/* ---------------------------------------------------------------- the test assets */

enum { GRID = 4, GRID_N = GRID * GRID };
extern const char grid_meta[];
uint32_t at(uint32_t i, uint32_t j);
sinew_asset *make_grid(void);
uint8_t *grid_file(size_t *size);

enum { SOLID_N = 9, SOLID_ELEMENTS = 6, SOLID_COLOURS = 3, SOLID_MATERIALS = 5 };
extern const char solid_meta[];
void position(const sinew_asset *a, uint32_t v, double x[3]);
sinew_element_rec tet(const sinew_asset *a, uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3, uint32_t material);
sinew_material tabulated(void);
sinew_asset *make_solid(void);
uint8_t *solid_file(size_t *size);

enum { H_LEVELS = 3, H_LINKS = 29, H_DISTANCES = 7, H_COLOURS = 3 };
sinew_asset *make_hierarchy(void);
uint8_t *hierarchy_file(size_t *size);

/* ---------------------------------------------------------------- loading and comparing */

/* Loads from a copy of exactly size bytes (the sanitizer catches any read past the end). */
sinew_result load(const uint8_t *bytes, size_t size, sinew_asset **out);
void assert_rejected(const uint8_t *bytes, size_t size, const char *needle1, const char *needle2);
/* For a file patched on purpose: repairs its CRCs first. */
void assert_tampered_rejected(uint8_t *bytes, size_t size, const char *needle1, const char *needle2);
void assert_assets_equal(const sinew_asset *x, const sinew_asset *y);

#endif
