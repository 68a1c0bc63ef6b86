/* Checkpoints: a body's state to bytes and back (docs/checkpoint-format.md).
 *
 *   offset 0   header    64 B   magic "SNWC", version, counts, topology CRC,
 *                               step index, payload size and CRC, mass CRC,
 *                               record size, header CRC
 *          64  payload   positions (x, y, z, inverse mass) of every particle,
 *                        then velocities (x, y, z, 0), then the hinge angle
 *                        of every bend (unwrapped, rad): 32 n + 4 b bytes;
 *                        flag ANCHORS (implicit solvers): then the pins'
 *                        anchors (x, y, z, inverse mass), 16 n more; flag
 *                        HISTORY (BDF2 after its first step): then the
 *                        state of the step before, 32 n more; flag
 *                        FRAMES (a body with frames): then each frame's
 *                        last pose (x, y, z, 0, rotation x, y, z, w), 32 F
 *                        more; flag RECORD (MGPBD): then the solver's
 *                        record, as many bytes as the header says.
 *                        Positions of pins moved since the last step are
 *                        their targets.
 *
 * Every field is little-endian; floats travel as their 32-bit patterns. The
 * bytes are read and checked by checkpoint_read.c before anything here
 * touches the device.
 */
#include "body.h"
#include "checkpoint.h"

#include "core/bytes.h"
#include "core/file.h"

#include <stdlib.h>
#include <string.h>

/* The solver's record's size now (0: none). */
static size_t record_size(sinew_body *b)
{
    const sinew_solver_ops *ops = sinew_body_ops(b);
    return ops->record_size && !b->asset ? ops->record_size(b->state) : 0;
}

/* What a checkpoint of this body holds and may hold. */
static sinew_checkpoint_shape shape_of(sinew_body *b)
{
    sinew_checkpoint_shape s = {0};
    s.name = b->name;
    s.particles = b->particle_count;
    s.distances = b->distance_count;
    s.bends = b->bend_count;
    s.topology_crc = b->topology_crc;
    sinew_state_part parts[SINEW_STATE_MAX_PARTS];
    s.part_count = sinew_body_state_parts(b, parts);
    for (uint32_t i = 0; i < s.part_count; i++) {
        s.parts[i] = (sinew_checkpoint_part){parts[i].flag, parts[i].bytes / 4, parts[i].what};
        s.allowed |= parts[i].flag;
        s.required |= parts[i].required ? parts[i].flag : 0u;
    }
    s.frames = b->attach.frame_count;
    if (s.frames) {
        s.allowed |= SINEW_STATE_FRAMES;
        s.required |= SINEW_STATE_FRAMES;
    }
    if (sinew_body_ops(b)->record_size && !b->asset)
        s.allowed |= SINEW_STATE_RECORD;
    return s;
}

/* The flags of what this body has now. */
static uint32_t flags_of(sinew_body *b)
{
    sinew_state_part parts[SINEW_STATE_MAX_PARTS];
    uint32_t count = sinew_body_state_parts(b, parts), flags = 0;
    for (uint32_t i = 0; i < count; i++)
        flags |= parts[i].present ? parts[i].flag : 0u;
    flags |= b->attach.frame_count ? SINEW_STATE_FRAMES : 0u;
    return flags | (record_size(b) ? SINEW_STATE_RECORD : 0u);
}

static size_t state_floats(sinew_body *b, uint32_t flags)
{
    const sinew_checkpoint_shape s = shape_of(b);
    return sinew_checkpoint_floats(&s, flags);
}

size_t sinew_body_checkpoint_size(const sinew_body *b)
{
    SINEW_ASSERT(b);
    sinew_body *m = (sinew_body *)b; /* the parts are read, never changed */
    return SINEW_CHECKPOINT_HEADER + 4 * state_floats(m, flags_of(m)) + record_size(m);
}

/* The inverse masses the body's asset gave (1/kg; 0 pinned) from w, the
 * inverse masses it has now: a particle sinew_body_set_pinned pinned has its
 * own back. */
static void asset_masses(const sinew_body *b, const float *w, size_t stride, float *out)
{
    for (uint32_t i = 0; i < b->particle_count; i++)
        out[i] = b->unpinned_w && b->unpinned_w[i] != 0.0f ? b->unpinned_w[i] : w[stride * i];
}

static sinew_result download_state(sinew_body *b, float *state)
{
    const uint64_t n = b->particle_count;
    sinew_result r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_POS], 0, state, 16 * n);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_VEL], 0, state + 4 * n, 16 * n);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_ANGLE], 0, state + 8 * n, 4ull * b->bend_count);
    sinew_state_part parts[SINEW_STATE_MAX_PARTS];
    uint32_t count = sinew_body_state_parts(b, parts);
    float *at = state + 8 * n + b->bend_count;
    for (uint32_t i = 0; i < count && r == SINEW_RESULT_OK; i++)
        if (parts[i].present) {
            r = sinew_buffer_download(b->ctx, parts[i].buffer, 0, at, parts[i].bytes);
            at += parts[i].bytes / 4;
        }
    sinew_attach_overlay(&b->attach, state, 4); /* pins moved since the last step: at their targets */
    if (b->attach.frame_count)
        memcpy(at, b->attach.frames, 32ull * b->attach.frame_count);
    return r;
}

size_t sinew_body_state_floats(sinew_body *b) { return state_floats(b, flags_of(b)); }

/* A member of a world's batch: its particles' range of the batch's state,
 * its hinges' angles from where its bends lie there (world_member.c). */
sinew_result sinew_body_download_state(sinew_body *b, float *state)
{
    if (!b->asset)
        return download_state(b, state);
    sinew_result r;
    sinew_body *t = sinew_member_batch(b, &r);
    if (!t || (r = sinew_body_settle(t)) != SINEW_RESULT_OK)
        return r;
    const size_t n = t->particle_count, p0 = b->map.particle_first, mn = b->particle_count;
    float *all = malloc(4 * state_floats(t, flags_of(t)) + 4);
    if (!all)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    if ((r = download_state(t, all)) == SINEW_RESULT_OK) {
        memcpy(state, &all[4 * p0], 16 * mn);
        memcpy(state + 4 * mn, &all[4 * (n + p0)], 16 * mn);
        for (uint32_t c = 0; c < b->bend_count; c++)
            state[8 * mn + c] = all[8 * n + b->map.bend_of[c]];
    }
    free(all);
    return r;
}

/* A member's checkpoints are its world's. */
static sinew_result refuse_member(const sinew_body *b)
{
    return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                      "body '%s' is in world '%s', batched with other bodies: save and load the world's checkpoint "
                      "(sinew_world_save_checkpoint)", b->name, b->world_name);
}

/* The header of a checkpoint of payload bytes (of which record the
 * solver's) after it; the payload CRC last. */
static void write_header(sinew_body *b, uint8_t *p, size_t payload, size_t record, uint32_t mass_crc)
{
    memset(p, 0, SINEW_CHECKPOINT_HEADER);
    memcpy(p + SINEW_CK_MAGIC, "SNWC", 4);
    sinew_put_u32(p + SINEW_CK_VERSION, SINEW_CHECKPOINT_VERSION);
    sinew_put_u32(p + SINEW_CK_HEADER_SIZE, SINEW_CHECKPOINT_HEADER);
    sinew_put_u32(p + SINEW_CK_PARTICLES, b->particle_count);
    sinew_put_u32(p + SINEW_CK_DISTANCES, b->distance_count);
    sinew_put_u32(p + SINEW_CK_BENDS, b->bend_count);
    sinew_put_u32(p + SINEW_CK_TOPOLOGY, b->topology_crc);
    sinew_put_u32(p + SINEW_CK_FLAGS, flags_of(b));
    sinew_put_u64(p + SINEW_CK_STEP, b->stats.step_index);
    sinew_put_u32(p + SINEW_CK_PAYLOAD_SIZE, (uint32_t)payload);
    sinew_put_u32(p + SINEW_CK_PAYLOAD_CRC, sinew_crc32(0, p + SINEW_CHECKPOINT_HEADER, payload));
    sinew_put_u32(p + SINEW_CK_MASS_CRC, mass_crc);
    sinew_put_u32(p + SINEW_CK_RECORD_SIZE, (uint32_t)record);
    sinew_put_u32(p + SINEW_CK_CRC, sinew_crc32(0, p, SINEW_CK_CRC));
}

/* The state's floats, then the solver's record, into payload; *mass_crc of
 * the masses the body's asset gave. */
static sinew_result write_payload(sinew_body *b, uint8_t *payload, size_t floats, uint32_t *mass_crc)
{
    const sinew_logger *lg = &b->ctx->logger;
    float *state = malloc(4 * floats + 4);
    float *masses = malloc(sizeof *masses * ((size_t)b->particle_count + 1));
    sinew_result r = state && masses ? download_state(b, state)
                                     : sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint",
                                                  "out of host memory");
    for (size_t i = 0; i < floats && r == SINEW_RESULT_OK; i++) {
        uint32_t w;
        memcpy(&w, &state[i], 4);
        sinew_put_u32(payload + 4 * i, w);
    }
    if (r == SINEW_RESULT_OK) {
        asset_masses(b, state + 3, 4, masses);
        *mass_crc = sinew_checkpoint_mass_crc(masses, b->particle_count);
    }
    if (r == SINEW_RESULT_OK && record_size(b))
        r = sinew_body_ops(b)->save_record(b->state, &b->view, payload + 4 * floats);
    free(state);
    free(masses);
    return r;
}

sinew_result sinew_body_save_checkpoint(sinew_body *b, void *dst, size_t size)
{
    SINEW_ASSERT(b && dst);
    if (b->asset)
        return refuse_member(b);
    sinew_result r = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (r != SINEW_RESULT_OK)
        return r;
    const sinew_logger *lg = &b->ctx->logger;
    const size_t need = sinew_body_checkpoint_size(b);
    if (size < need)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': a checkpoint needs %zu bytes, the buffer has %zu", b->name, need, size);
    const size_t floats = state_floats(b, flags_of(b)), payload = need - SINEW_CHECKPOINT_HEADER;
    if (payload > UINT32_MAX)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "checkpoint", "body '%s': %u particles and %u bends are too "
                          "many for a checkpoint (4 GiB)", b->name, b->particle_count, b->bend_count);
    uint8_t *p = dst;
    uint32_t mass_crc = 0;
    r = write_payload(b, p + SINEW_CHECKPOINT_HEADER, floats, &mass_crc);
    if (r == SINEW_RESULT_OK)
        write_header(b, p, payload, payload - 4 * floats, mass_crc);
    return r;
}

static sinew_result load_state(sinew_body *b, const uint32_t *mass_crc, const float *state, uint32_t flags,
                               const uint8_t *record, size_t record_bytes);

sinew_result sinew_body_load_checkpoint(sinew_body *b, const void *src, size_t size)
{
    SINEW_ASSERT(b && (src || size == 0));
    if (b->asset)
        return refuse_member(b);
    sinew_result r = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (r != SINEW_RESULT_OK)
        return r;
    const sinew_checkpoint_shape shape = shape_of(b);
    sinew_checkpoint_view ck;
    r = sinew_checkpoint_read(src, size, &shape, &b->ctx->logger, &ck);
    if (r == SINEW_RESULT_OK)
        r = load_state(b, ck.version >= 2 ? &ck.mass_crc : NULL, ck.state, ck.flags, ck.record, ck.record_size);
    if (r == SINEW_RESULT_OK) {
        b->stats.step_index = ck.step;
        b->deferred = SINEW_RESULT_OK; /* a pipelined step's failure is history now */
    }
    free(ck.state);
    return r;
}

sinew_result sinew_body_load_state(sinew_body *b, const float *state, uint32_t flags)
{
    const sinew_checkpoint_shape shape = shape_of(b);
    sinew_result r = sinew_checkpoint_check_state(&shape, state, flags, &b->ctx->logger);
    return r == SINEW_RESULT_OK ? load_state(b, NULL, state, flags, NULL, 0) : r;
}

/* The checkpoint's masses (state, checked) against those the body's asset
 * gave, into own (n). */
static sinew_result check_masses(sinew_body *b, const uint32_t *mass_crc, const float *state, float *own)
{
    const sinew_logger *lg = &b->ctx->logger;
    const uint64_t n = b->particle_count;
    float *pos = malloc(16 * n + 16);
    sinew_result r = SINEW_RESULT_OK;
    if (!pos || (!b->unpinned_w && !(b->unpinned_w = calloc(n + 1, 4))))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_POS], 0, pos, 16 * n);
    if (r == SINEW_RESULT_OK) {
        asset_masses(b, pos + 3, 4, own);
        const sinew_checkpoint_shape shape = shape_of(b);
        r = sinew_checkpoint_check_masses(&shape, state, own, mass_crc, lg);
    }
    free(pos);
    return r;
}

/* The state (its values checked) uploaded, after the last checks: the
 * masses (mass_crc: the checkpoint's CRC of them, NULL: none) and the
 * solver's record. */
static sinew_result load_state(sinew_body *b, const uint32_t *mass_crc, const float *state, uint32_t flags,
                               const uint8_t *record, size_t record_bytes)
{
    const sinew_logger *lg = &b->ctx->logger;
    const uint64_t n = b->particle_count;
    float *own = malloc(4 * n + 4);
    sinew_result r = own ? check_masses(b, mass_crc, state, own)
                         : sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    if (r == SINEW_RESULT_OK) /* room for the checkpoint's pins before anything changes */
        r = sinew_body_reserve_pins(b, state);
    if (r == SINEW_RESULT_OK && (flags & SINEW_STATE_RECORD))
        r = sinew_body_ops(b)->load_record(b->state, &b->view, record, record_bytes);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_POS], 0, state, 16 * n);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_VEL], 0, state + 4 * n, 16 * n);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_ANGLE], 0, state + 8 * n, 4ull * b->bend_count);
    sinew_state_part parts[SINEW_STATE_MAX_PARTS];
    const uint32_t part_count = sinew_body_state_parts(b, parts);
    const float *part = state + 8 * n + b->bend_count;
    for (uint32_t k = 0; k < part_count && r == SINEW_RESULT_OK; k++)
        if (flags & parts[k].flag) {
            r = sinew_buffer_upload(b->ctx, parts[k].buffer, 0, part, parts[k].bytes);
            part += parts[k].bytes / 4;
        }
    if (r == SINEW_RESULT_OK && sinew_body_ops(b)->state_loaded)
        sinew_body_ops(b)->state_loaded(b->state, flags);
    if (r == SINEW_RESULT_OK && b->attach.frame_count)
        memcpy(b->attach.frames, part, 32ull * b->attach.frame_count);
    if (r == SINEW_RESULT_OK) /* the pins as the checkpoint has them, at their positions there */
        r = sinew_body_sync_pins(b, state);
    /* Pins the checkpoint has and the asset not came from sinew_body_set_pinned,
     * which can set them free again. */
    for (uint64_t i = 0; i < n && r == SINEW_RESULT_OK; i++)
        b->unpinned_w[i] = state[4 * i + 3] == 0.0f ? own[i] : 0.0f;
    free(own);
    return r;
}

sinew_result sinew_body_save_checkpoint_file(sinew_body *b, const char *path)
{
    SINEW_ASSERT(b && path);
    size_t size = sinew_body_checkpoint_size(b);
    void *bytes = malloc(size);
    if (!bytes)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    sinew_result r = sinew_body_save_checkpoint(b, bytes, size);
    if (r == SINEW_RESULT_OK)
        r = sinew_file_write_replace(path, bytes, size, &b->ctx->logger, "checkpoint");
    free(bytes);
    return r;
}

/* The file size a checkpoint's header declares; 0 for another format. */
static uint64_t declared_size(const uint8_t *header)
{
    return memcmp(header + SINEW_CK_MAGIC, "SNWC", 4) == 0
               ? SINEW_CHECKPOINT_HEADER + (uint64_t)sinew_get_u32(header + SINEW_CK_PAYLOAD_SIZE)
               : 0;
}

sinew_result sinew_body_load_checkpoint_file(sinew_body *b, const char *path)
{
    SINEW_ASSERT(b && path);
    uint8_t *bytes;
    size_t size;
    /* Up to the format's largest, so a checkpoint of another body gets the
     * load's message saying how it differs; the header first, and the rest
     * only when the file is no longer than the header declares. */
    const size_t largest = SIZE_MAX > UINT32_MAX ? SINEW_CHECKPOINT_HEADER + (size_t)UINT32_MAX : SIZE_MAX / 2;
    sinew_result r = sinew_file_read_declared(path, SINEW_CHECKPOINT_HEADER, declared_size, largest,
                                              SINEW_RESULT_ERROR_INVALID_ARGUMENT, &b->ctx->logger, "checkpoint",
                                              &bytes, &size);
    if (r != SINEW_RESULT_OK)
        return r;
    r = sinew_body_load_checkpoint(b, bytes, size);
    free(bytes);
    return r;
}

sinew_result sinew_body_state_hash(sinew_body *b, uint64_t *hash)
{
    SINEW_ASSERT(b && hash);
    sinew_result settled = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (settled != SINEW_RESULT_OK)
        return settled;
    const size_t floats = state_floats(b, flags_of(b));
    float *state = malloc(4 * floats);
    if (!state)
        return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    sinew_result r = sinew_body_download_state(b, state);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; r == SINEW_RESULT_OK && i < floats; i++) {
        uint32_t w;
        memcpy(&w, &state[i], 4);
        for (int k = 0; k < 4; k++) {
            h ^= (w >> 8 * k) & 0xffu;
            h *= 0x100000001b3ull;
        }
    }
    free(state);
    if (r == SINEW_RESULT_OK)
        *hash = h;
    return r;
}
