/* A checkpoint's bytes read and checked before anything reaches the device
 * (docs/checkpoint-format.md): the header against what the body is, the
 * sizes and CRCs, every value; and a world checkpoint's chains found. No
 * body, no context: checkpoint.c and world.c load through these, and
 * tests/fuzz/fuzz_checkpoint.c feeds them bytes. */
#ifndef SINEW_CHECKPOINT_H
#define SINEW_CHECKPOINT_H

#include "core/log.h"

/* Header flags: what a checkpoint holds after the positions, velocities and
 * hinge angles, in this order. */
#define SINEW_STATE_ANCHORS 1u /* the pins' anchors (the implicit solvers) */
#define SINEW_STATE_HISTORY 2u /* the step before (BDF2) */
#define SINEW_STATE_MAX_PARTS 2 /* the solvers' parts: the two above */
/* Not a solver's: the body's frames (attachments), their last poses, 8
 * floats each, after the solver's parts. */
#define SINEW_STATE_FRAMES 4u
/* The solver's record (bytes, after the frames): host-side state a solver
 * keeps between steps (MGPBD's lazy setup). */
#define SINEW_STATE_RECORD 8u

#define SINEW_CHECKPOINT_VERSION 3u /* 1 and 2 are read too */
#define SINEW_CHECKPOINT_HEADER 64u
/* Header fields (byte offsets). */
#define SINEW_CK_MAGIC 0
#define SINEW_CK_VERSION 4
#define SINEW_CK_HEADER_SIZE 8
#define SINEW_CK_PARTICLES 12
#define SINEW_CK_DISTANCES 16
#define SINEW_CK_BENDS 20
#define SINEW_CK_TOPOLOGY 24
#define SINEW_CK_FLAGS 28
#define SINEW_CK_STEP 32
#define SINEW_CK_PAYLOAD_SIZE 40
#define SINEW_CK_PAYLOAD_CRC 44
#define SINEW_CK_MASS_CRC 48
#define SINEW_CK_RECORD_SIZE 52
#define SINEW_CK_CRC 60
/* A world's checkpoint: its header, then per chain a u64 size and a body
 * checkpoint. */
#define SINEW_WORLD_CHECKPOINT_HEADER 16u

/* One of the solver's parts as a checkpoint holds it. */
typedef struct sinew_checkpoint_part {
    uint32_t flag;       /* SINEW_STATE_* */
    uint64_t floats;
    const char *what;    /* "anchor": "the anchor of particle 3 is not finite" */
} sinew_checkpoint_part;

/* What a checkpoint must fit: the body it is loaded into. */
typedef struct sinew_checkpoint_shape {
    const char *name;    /* the body's, in messages */
    uint32_t particles, distances, bends, topology_crc;
    uint32_t allowed, required;   /* flags a checkpoint may have, and must */
    sinew_checkpoint_part parts[SINEW_STATE_MAX_PARTS]; /* the solver's, in payload order */
    uint32_t part_count;
    uint32_t frames;     /* attachment frames (flag SINEW_STATE_FRAMES) */
} sinew_checkpoint_shape;

/* A checkpoint read. */
typedef struct sinew_checkpoint_view {
    uint32_t version, flags;
    uint32_t mass_crc;       /* of the masses its asset gave; version 1: none (0) */
    uint64_t step;           /* steps taken when it was saved */
    float *state;            /* the payload's floats (owned: free) */
    size_t floats;
    const uint8_t *record;   /* the solver's record, inside the bytes read; NULL: none */
    size_t record_size;
} sinew_checkpoint_view;

/* Floats of state a checkpoint with these flags holds: positions and
 * velocities (vec4s), one angle per bend, the parts flagged, the frames. */
size_t sinew_checkpoint_floats(const sinew_checkpoint_shape *s, uint32_t flags);

/* Reads bytes as a checkpoint of a body of that shape: magic, header CRC,
 * version, header size, counts, topology CRC, flags, payload and record
 * sizes, payload CRC, then every value (sinew_checkpoint_check_state).
 * INVALID_ARGUMENT with a message naming the field, out zeroed;
 * OUT_OF_HOST_MEMORY. */
sinew_result sinew_checkpoint_read(const void *bytes, size_t size, const sinew_checkpoint_shape *s,
                                   const sinew_logger *lg, sinew_checkpoint_view *out);

/* The values of a state (as sinew_checkpoint_floats lays it out): positions
 * and velocities finite, inverse masses finite and >= 0, hinge angles and
 * the flagged parts finite, each frame's pose finite with a rotation. */
sinew_result sinew_checkpoint_check_state(const sinew_checkpoint_shape *s, const float *state, uint32_t flags,
                                          const sinew_logger *lg);

/* The state's inverse masses against own, those the body's asset gave:
 * each the same, or 0 (a pin of sinew_body_set_pinned); with mass_crc
 * (versions 2 and later; NULL: not known) the CRC of own must match it. */
sinew_result sinew_checkpoint_check_masses(const sinew_checkpoint_shape *s, const float *state, const float *own,
                                           const uint32_t *mass_crc, const sinew_logger *lg);

/* CRC-32 of n inverse masses as little-endian float bits. */
uint32_t sinew_checkpoint_mass_crc(const float *w, uint32_t n);

/* A world checkpoint's magic and version; *chains: the chains it holds.
 * INVALID_ARGUMENT with a message naming the world (name). */
sinew_result sinew_checkpoint_world_header(const void *bytes, size_t size, const char *name, const sinew_logger *lg,
                                           uint32_t *chains);

/* The chains of a world checkpoint, which must hold `chains` of them: its
 * header, count, and each chain's part inside the bytes; offsets[i] and
 * sizes[i] (chains entries each) say where chain i's body checkpoint
 * lies. */
sinew_result sinew_checkpoint_world_chains(const void *bytes, size_t size, uint32_t chains, const char *name,
                                           const sinew_logger *lg, size_t *offsets, size_t *sizes);

#endif
