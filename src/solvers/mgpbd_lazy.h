/* MGPBD's lazy setup as a checkpoint carries it (mgpbd_lazy.c), read from
 * bytes without a device or a solver, so that the reader can be fuzzed
 * (tests/fuzz/fuzz_checkpoint.c). */
#ifndef SINEW_SOLVERS_MGPBD_LAZY_H
#define SINEW_SOLVERS_MGPBD_LAZY_H

#include "../core/log.h"
#include "amg.h"

#include <stddef.h>
#include <stdint.h>

/* What the lazy setup leaves from one step to the next (mgpbd_lazy.c;
 * docs/checkpoint-format.md, "MGPBD's record"): the positions and step
 * size the hierarchy in use was set up from (by sinew_mgpbd_setup_from),
 * and each level's rho and power vector as the lazy iterations since left
 * them. A solver of the same asset and desc given it continues bit for bit
 * as the one that wrote it. Read from bytes: the arrays point into them
 * (little-endian f32). */
typedef struct sinew_mgpbd_lazy {
    float h;                              /* s */
    uint32_t levels;
    uint32_t rows[SINEW_AMG_MAX_LEVELS];  /* of each level's operator */
    const uint8_t *positions;             /* 4 n: x, y, z, inverse mass */
    const uint8_t *rho;                   /* levels */
    const uint8_t *power;                 /* each level's rows, level after level */
} sinew_mgpbd_lazy;

/* Reads a record of a solver of n particles: INVALID_ARGUMENT, with a
 * message naming what is wrong (name: whose), for a size that does not
 * match its levels and rows, levels outside 1..SINEW_AMG_MAX_LEVELS, a
 * level without rows, a step size not finite and > 0, a position, rho or
 * power vector entry not finite, an inverse mass < 0 or rho <= 0. No
 * device, no solver. */
sinew_result sinew_mgpbd_lazy_read(const uint8_t *bytes, size_t size, uint32_t n, const char *name,
                                   const sinew_logger *lg, sinew_mgpbd_lazy *out);

#endif
