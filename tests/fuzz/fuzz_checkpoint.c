/* libFuzzer target: a body checkpoint's bytes (docs/checkpoint-format.md)
 * through the device-free reader, sinew_checkpoint_read (src/checkpoint_read.c),
 * then the solver's record through MGPBD's (sinew_mgpbd_lazy_read) and the
 * masses through sinew_checkpoint_check_masses; and the same bytes as a world
 * checkpoint's (sinew_checkpoint_world_chains), each chain's part read as a
 * body's.
 *
 * The body the bytes are read for takes its counts and topology CRC from the
 * input's own header, so that mutations get past the header; it may have both
 * solver parts (anchors, 4 floats a particle; the step before, 8) and
 * (input byte 56, bits 0..2) up to 7 attachment frames. Checkpoints protect
 * header and payload with CRC-32s, which mutations almost never keep: each
 * input is read twice, as it is and with both CRCs made right.
 *
 * What the reader accepts must be consistent: the payload size its flags
 * call for, the record inside the input, values the value checks pass. What
 * it refuses leaves its view zeroed. Out of memory is no answer to an input
 * of a few kilobytes. */
#include "fuzz_common.h"

#include "asset/asset.h"
#include "checkpoint.h"
#include "core/bytes.h"
#include "solvers/mgpbd_lazy.h"

#include <string.h>

#define MAX_CHAINS 64

static void read_body(const uint8_t *data, size_t size)
{
    if (size < SINEW_CHECKPOINT_HEADER)
        return;
    sinew_checkpoint_shape s = {0};
    s.name = "fuzz";
    s.particles = sinew_get_u32(data + SINEW_CK_PARTICLES) % (1u << 20);
    s.distances = sinew_get_u32(data + SINEW_CK_DISTANCES);
    s.bends = sinew_get_u32(data + SINEW_CK_BENDS) % (1u << 20);
    s.topology_crc = sinew_get_u32(data + SINEW_CK_TOPOLOGY);
    s.parts[0] = (sinew_checkpoint_part){SINEW_STATE_ANCHORS, 4ull * s.particles, "anchor"};
    s.parts[1] = (sinew_checkpoint_part){SINEW_STATE_HISTORY, 8ull * s.particles, "state of the step before"};
    s.part_count = 2;
    s.frames = data[56] & 7;
    s.allowed = SINEW_STATE_ANCHORS | SINEW_STATE_HISTORY | SINEW_STATE_RECORD;
    if (s.frames)
        s.allowed |= SINEW_STATE_FRAMES;
    s.required = s.frames ? SINEW_STATE_FRAMES : 0;

    sinew_checkpoint_view v;
    const sinew_result r = sinew_checkpoint_read(data, size, &s, &fuzz_logger, &v);
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    if (r != SINEW_RESULT_OK) {
        FUZZ_CHECK(!v.state && !v.record && v.floats == 0 && v.record_size == 0);
        return;
    }
    FUZZ_CHECK(v.version >= 1 && v.version <= SINEW_CHECKPOINT_VERSION);
    FUZZ_CHECK((v.flags & ~s.allowed) == 0 && (v.flags & s.required) == s.required);
    FUZZ_CHECK(v.floats == sinew_checkpoint_floats(&s, v.flags));
    FUZZ_CHECK((v.record != NULL) == ((v.flags & SINEW_STATE_RECORD) != 0));
    FUZZ_CHECK(SINEW_CHECKPOINT_HEADER + 4 * v.floats + v.record_size == size);
    if (v.record)
        FUZZ_CHECK(v.record == data + SINEW_CHECKPOINT_HEADER + 4 * v.floats);
    FUZZ_CHECK(sinew_checkpoint_check_state(&s, v.state, v.flags, &fuzz_logger) == SINEW_RESULT_OK);
    for (uint32_t i = 0; i < s.particles; i++)
        FUZZ_CHECK(isfinite(v.state[4 * (size_t)i]) && v.state[4 * (size_t)i + 3] >= 0.0f);

    /* The masses: the checkpoint's own pass; another mass of a free
     * particle not (a particle free in the body and pinned in the
     * checkpoint is a pin of sinew_body_set_pinned, which passes). */
    float *own = malloc(4 * (size_t)s.particles + 4);
    FUZZ_CHECK(own);
    for (uint32_t i = 0; i < s.particles; i++)
        own[i] = v.state[4 * (size_t)i + 3];
    const uint32_t crc = sinew_checkpoint_mass_crc(own, s.particles);
    FUZZ_CHECK(sinew_checkpoint_check_masses(&s, v.state, own, &crc, &fuzz_logger) == SINEW_RESULT_OK);
    for (uint32_t i = 0; i < s.particles; i++)
        if (own[i] > 0.0f) {
            own[i] *= 2.0f;
            FUZZ_CHECK(sinew_checkpoint_check_masses(&s, v.state, own, NULL, &fuzz_logger) ==
                       SINEW_RESULT_ERROR_INVALID_ARGUMENT);
            break;
        }
    free(own);

    /* MGPBD's record: the steps since the setup (u32), then the lazy setup's. */
    if (v.record && v.record_size >= 4) {
        sinew_mgpbd_lazy z;
        const sinew_result lr =
            sinew_mgpbd_lazy_read(v.record + 4, v.record_size - 4, s.particles, "fuzz", &fuzz_logger, &z);
        FUZZ_CHECK(lr == SINEW_RESULT_OK || lr == SINEW_RESULT_ERROR_INVALID_ARGUMENT);
        if (lr == SINEW_RESULT_OK) {
            FUZZ_CHECK(z.levels >= 1 && z.levels <= SINEW_AMG_MAX_LEVELS && isfinite(z.h) && z.h > 0.0f);
            uint64_t power = 0;
            for (uint32_t l = 0; l < z.levels; l++)
                power += z.rows[l];
            const uint8_t *end = v.record + v.record_size;
            FUZZ_CHECK(z.positions >= v.record + 4 && z.power + 4 * power == end);
        }
    }
    free(v.state);
}

/* The input with its payload and header CRCs made right (in copy). */
static void fix_crcs(uint8_t *copy, size_t size)
{
    if (size < SINEW_CHECKPOINT_HEADER)
        return;
    sinew_put_u32(copy + SINEW_CK_PAYLOAD_CRC,
                  sinew_crc32(0, copy + SINEW_CHECKPOINT_HEADER, size - SINEW_CHECKPOINT_HEADER));
    sinew_put_u32(copy + SINEW_CK_CRC, sinew_crc32(0, copy, SINEW_CK_CRC));
}

static void read_twice(const uint8_t *data, size_t size)
{
    read_body(data, size);
    if (size < SINEW_CHECKPOINT_HEADER)
        return;
    uint8_t *copy = malloc(size);
    FUZZ_CHECK(copy);
    memcpy(copy, data, size);
    fix_crcs(copy, size);
    read_body(copy, size);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t chains = 0;
    if (sinew_checkpoint_world_header(data, size, "fuzz", &fuzz_logger, &chains) != SINEW_RESULT_OK) {
        read_twice(data, size);
        return 0;
    }
    size_t offsets[MAX_CHAINS], sizes[MAX_CHAINS];
    const sinew_result r = sinew_checkpoint_world_chains(data, size, chains < MAX_CHAINS ? chains : MAX_CHAINS,
                                                         "fuzz", &fuzz_logger, offsets, sizes);
    FUZZ_CHECK(r == SINEW_RESULT_OK || r == SINEW_RESULT_ERROR_INVALID_ARGUMENT);
    if (r != SINEW_RESULT_OK)
        return 0;
    FUZZ_CHECK(chains <= MAX_CHAINS);
    for (uint32_t i = 0; i < chains; i++) {
        FUZZ_CHECK(offsets[i] <= size && sizes[i] <= size - offsets[i]);
        read_twice(data + offsets[i], sizes[i]);
    }
    return 0;
}
