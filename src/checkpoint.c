/* Checkpoints: a body's state to bytes and back (docs/checkpoint-format.md).
 *
 *   offset 0   header    64 B   magic "SNWC", version, counts, topology CRC,
 *                               step index, payload size and CRC, mass CRC
 *                               (version 2), header CRC
 *          64  payload   positions (x, y, z, inverse mass) of every particle,
 *                        then velocities (x, y, z, 0), then the hinge angle
 *                        of every bend (unwrapped, rad): 32 n + 4 b bytes;
 *                        flag ANCHORS (implicit solvers): then the pins'
 *                        anchors (x, y, z, inverse mass), 16 n more; flag
 *                        HISTORY (BDF2 after its first step): then the
 *                        state of the step before, 32 n more; flag
 *                        FRAMES (a body with frames): then each frame's
 *                        last pose (x, y, z, 0, rotation x, y, z, w), 32 F
 *                        more. Positions of pins moved since the last
 *                        step are their targets.
 *
 * Every field is little-endian; floats travel as their 32-bit patterns.
 */
#include "body.h"

#include "core/bytes.h"
#include "core/file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VERSION 2u /* 1 is read too: it has no mass CRC */
#define HEADER_SIZE 64u
/* Header fields. */
#define H_MAGIC 0
#define H_VERSION 4
#define H_HEADER_SIZE 8
#define H_PARTICLES 12
#define H_DISTANCES 16
#define H_BENDS 20
#define H_TOPOLOGY 24
#define H_FLAGS 28
#define H_STEP 32
#define H_PAYLOAD_SIZE 40
#define H_PAYLOAD_CRC 44
#define H_MASS_CRC 48
#define H_CRC 60
/* The flags of the parts this body has now. */
static uint32_t flags_of(sinew_body *b)
{
    sinew_state_part parts[SINEW_STATE_MAX_PARTS];
    uint32_t count = sinew_body_state_parts(b, parts), flags = 0;
    for (uint32_t i = 0; i < count; i++)
        flags |= parts[i].present ? parts[i].flag : 0u;
    return flags | (b->attach.frame_count ? SINEW_STATE_FRAMES : 0u);
}

/* Floats of state: positions and velocities as vec4s, one angle per bend,
 * then the solver's parts that `flags` names. */
static size_t state_floats(sinew_body *b, uint32_t flags)
{
    sinew_state_part parts[SINEW_STATE_MAX_PARTS];
    uint32_t count = sinew_body_state_parts(b, parts);
    size_t floats = 8 * (size_t)b->particle_count + b->bend_count;
    for (uint32_t i = 0; i < count; i++)
        floats += flags & parts[i].flag ? (size_t)(parts[i].bytes / 4) : 0;
    return floats + (flags & SINEW_STATE_FRAMES ? 8 * (size_t)b->attach.frame_count : 0);
}

size_t sinew_body_checkpoint_size(const sinew_body *b)
{
    SINEW_ASSERT(b);
    sinew_body *m = (sinew_body *)b; /* the parts are read, never changed */
    return HEADER_SIZE + 4 * state_floats(m, flags_of(m));
}

/* The inverse masses the body's asset gave (1/kg; 0 pinned) from w, the
 * inverse masses it has now: a particle sinew_body_set_pinned pinned has its
 * own back. */
static void asset_masses(const sinew_body *b, const float *w, size_t stride, float *out)
{
    for (uint32_t i = 0; i < b->particle_count; i++)
        out[i] = b->unpinned_w && b->unpinned_w[i] != 0.0f ? b->unpinned_w[i] : w[stride * i];
}

/* CRC-32 of n inverse masses as little-endian float bits. */
static uint32_t mass_crc(const float *w, uint32_t n)
{
    uint32_t crc = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t bytes[4];
        uint32_t bits;
        memcpy(&bits, &w[i], 4);
        sinew_put_u32(bytes, bits);
        crc = sinew_crc32(crc, bytes, 4);
    }
    return crc;
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

sinew_result sinew_body_save_checkpoint(sinew_body *b, void *dst, size_t size)
{
    if (b && b->asset)
        return refuse_member(b);
    SINEW_ASSERT(b && dst);
    sinew_result settled = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (settled != SINEW_RESULT_OK)
        return settled;
    const sinew_logger *lg = &b->ctx->logger;
    const size_t need = sinew_body_checkpoint_size(b);
    if (size < need)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': a checkpoint needs %zu bytes, the buffer has %zu", b->name, need, size);
    const size_t floats = state_floats(b, flags_of(b));
    if (floats > UINT32_MAX / 4)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "checkpoint", "body '%s': %u particles and %u bends are too "
                          "many for a checkpoint (4 GiB)", b->name, b->particle_count, b->bend_count);
    float *state = malloc(4 * floats);
    if (!state)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    sinew_result r = download_state(b, state);
    if (r != SINEW_RESULT_OK) {
        free(state);
        return r;
    }
    uint8_t *p = dst;
    memset(p, 0, HEADER_SIZE);
    memcpy(p + H_MAGIC, "SNWC", 4);
    sinew_put_u32(p + H_VERSION, VERSION);
    sinew_put_u32(p + H_HEADER_SIZE, HEADER_SIZE);
    sinew_put_u32(p + H_PARTICLES, b->particle_count);
    sinew_put_u32(p + H_DISTANCES, b->distance_count);
    sinew_put_u32(p + H_BENDS, b->bend_count);
    sinew_put_u32(p + H_TOPOLOGY, b->topology_crc);
    sinew_put_u32(p + H_FLAGS, flags_of(b));
    sinew_put_u64(p + H_STEP, b->stats.step_index);
    uint8_t *payload = p + HEADER_SIZE;
    for (size_t i = 0; i < floats; i++) {
        uint32_t w;
        memcpy(&w, &state[i], 4);
        sinew_put_u32(payload + 4 * i, w);
    }
    float *masses = malloc(sizeof *masses * ((size_t)b->particle_count + 1));
    if (masses)
        asset_masses(b, state + 3, 4, masses);
    free(state);
    if (!masses)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    sinew_put_u32(p + H_MASS_CRC, mass_crc(masses, b->particle_count));
    free(masses);
    sinew_put_u32(p + H_PAYLOAD_SIZE, (uint32_t)(4 * floats));
    sinew_put_u32(p + H_PAYLOAD_CRC, sinew_crc32(0, payload, 4 * floats));
    sinew_put_u32(p + H_CRC, sinew_crc32(0, p, H_CRC));
    if (sinew_body_ops(b)->state_saved)
        sinew_body_ops(b)->state_saved(b->state);
    return SINEW_RESULT_OK;
}

/* The checkpoint's inverse masses (in state) against those the body's asset
 * gave (own): each the same, or 0 where sinew_body_set_pinned pinned the
 * particle; from version 2 on, the CRC of the masses the checkpoint's asset
 * gave must match too, which tells its pins from sinew_body_set_pinned's. */
static sinew_result check_masses(const sinew_body *b, const uint8_t *p, const float *state, const float *own)
{
    const sinew_logger *lg = &b->ctx->logger;
    const uint32_t n = b->particle_count;
    uint32_t other = UINT32_MAX, pinned = UINT32_MAX; /* the first particle of each kind */
    for (uint32_t i = 0; i < n; i++) {
        const float w = state[4 * (size_t)i + 3];
        if (w != own[i] && w == 0.0f)
            pinned = pinned == UINT32_MAX ? i : pinned;
        else if (w != own[i])
            other = other == UINT32_MAX ? i : other;
    }
    if (other != UINT32_MAX && own[other] == 0.0f)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': particle %u is free in the checkpoint (inverse mass %g 1/kg) and pinned in "
                          "this body: the checkpoint was saved from an asset with other pins; nothing was changed",
                          b->name, other, state[4 * (size_t)other + 3]);
    if (other != UINT32_MAX)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': particle %u has inverse mass %g 1/kg in the checkpoint and %g in this body: "
                          "the checkpoint was saved from an asset with other masses; nothing was changed", b->name,
                          other, state[4 * (size_t)other + 3], own[other]);
    const uint32_t theirs = p ? sinew_get_u32(p + H_MASS_CRC) : 0, ours = mass_crc(own, n);
    if (p && sinew_get_u32(p + H_VERSION) >= 2 && theirs != ours) {
        if (pinned != UINT32_MAX)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                              "body '%s': particle %u is pinned in the checkpoint and free in this body (inverse "
                              "mass %g 1/kg): the checkpoint was saved from an asset with other pins (mass CRC "
                              "%08x, this body's %08x); nothing was changed", b->name, pinned, own[pinned], theirs,
                              ours);
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': the checkpoint was saved from an asset with other masses (mass CRC %08x, "
                          "this body's %08x); nothing was changed", b->name, theirs, ours);
    }
    return SINEW_RESULT_OK;
}

static sinew_result load_state(sinew_body *b, const uint8_t *p, const float *state, uint32_t flags);

/* Every check of the loader: BAD_ASSET-like failures name the field. */
static sinew_result refuse(const sinew_body *b, const char *what, unsigned long long got, unsigned long long want)
{
    return sinew_fail(&b->ctx->logger, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                      "body '%s': checkpoint %s is %llu, expected %llu; nothing was changed", b->name, what, got, want);
}

sinew_result sinew_body_load_checkpoint(sinew_body *b, const void *src, size_t size)
{
    if (b && b->asset)
        return refuse_member(b);
    SINEW_ASSERT(b && (src || size == 0));
    sinew_result settled = sinew_body_settle(b); /* a pipelined step still running ends first */
    if (settled != SINEW_RESULT_OK)
        return settled;
    const sinew_logger *lg = &b->ctx->logger;
    const uint8_t *p = src;
    const uint64_t n = b->particle_count;
    if (size < HEADER_SIZE || memcmp(p + H_MAGIC, "SNWC", 4) != 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': not a checkpoint (no SNWC header in %zu bytes); nothing was changed", b->name,
                          size);
    if (sinew_get_u32(p + H_CRC) != sinew_crc32(0, p, H_CRC))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': checkpoint header CRC mismatch (damaged file); nothing was changed", b->name);
    const uint32_t version = sinew_get_u32(p + H_VERSION);
    if (version != VERSION && version != 1)
        return refuse(b, "version", version, VERSION);
    if (sinew_get_u32(p + H_HEADER_SIZE) != HEADER_SIZE)
        return refuse(b, "header size", sinew_get_u32(p + H_HEADER_SIZE), HEADER_SIZE);
    if (sinew_get_u32(p + H_PARTICLES) != n)
        return refuse(b, "particle count", sinew_get_u32(p + H_PARTICLES), n);
    if (sinew_get_u32(p + H_DISTANCES) != b->distance_count)
        return refuse(b, "distance constraint count", sinew_get_u32(p + H_DISTANCES), b->distance_count);
    if (sinew_get_u32(p + H_BENDS) != b->bend_count)
        return refuse(b, "bending constraint count", sinew_get_u32(p + H_BENDS), b->bend_count);
    if (sinew_get_u32(p + H_TOPOLOGY) != b->topology_crc)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': checkpoint was saved from a body with other constraints (topology CRC "
                          "%08x, this body %08x); nothing was changed", b->name, sinew_get_u32(p + H_TOPOLOGY),
                          b->topology_crc);
    /* The solver's parts: the required ones always, the others as they were. */
    const uint32_t flags = sinew_get_u32(p + H_FLAGS);
    sinew_state_part parts[SINEW_STATE_MAX_PARTS];
    const uint32_t part_count = sinew_body_state_parts(b, parts);
    uint32_t allowed = 0, required = 0;
    for (uint32_t i = 0; i < part_count; i++) {
        allowed |= parts[i].flag;
        required |= parts[i].required ? parts[i].flag : 0u;
    }
    if (b->attach.frame_count) {
        allowed |= SINEW_STATE_FRAMES;
        required |= SINEW_STATE_FRAMES;
    }
    if ((flags & ~allowed) != 0 || (flags & required) != required)
        return refuse(b, "flags", flags, required);
    const size_t payload_size = 4 * state_floats(b, flags);
    if (sinew_get_u32(p + H_PAYLOAD_SIZE) != payload_size)
        return refuse(b, "payload size", sinew_get_u32(p + H_PAYLOAD_SIZE), payload_size);
    if (size != HEADER_SIZE + payload_size)
        return refuse(b, "size in bytes", size, HEADER_SIZE + payload_size);
    const uint8_t *payload = p + HEADER_SIZE;
    if (sinew_get_u32(p + H_PAYLOAD_CRC) != sinew_crc32(0, payload, payload_size))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': checkpoint payload CRC mismatch (damaged file); nothing was changed", b->name);

    float *state = malloc(payload_size);
    if (!state)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    for (size_t i = 0; i < payload_size / 4; i++) {
        uint32_t w = sinew_get_u32(payload + 4 * i);
        memcpy(&state[i], &w, 4);
    }
    sinew_result r = load_state(b, p, state, flags);
    free(state);
    if (r == SINEW_RESULT_OK) {
        b->stats.step_index = sinew_get_u64(p + H_STEP);
        b->deferred = SINEW_RESULT_OK; /* a pipelined step's failure is history now */
    }
    return r;
}

sinew_result sinew_body_load_state(sinew_body *b, const float *state, uint32_t flags)
{
    return load_state(b, NULL, state, flags);
}

/* The state checked and written (header p: the checkpoint's, for its mass
 * CRC; NULL: none to check). */
static sinew_result load_state(sinew_body *b, const uint8_t *p, const float *state, uint32_t flags)
{
    const sinew_logger *lg = &b->ctx->logger;
    const uint64_t n = b->particle_count;
    sinew_state_part parts[SINEW_STATE_MAX_PARTS];
    const uint32_t part_count = sinew_body_state_parts(b, parts);
    sinew_result r = SINEW_RESULT_OK;
    for (uint64_t i = 0; i < n && r == SINEW_RESULT_OK; i++) {
        const float *x = &state[4 * i], *v = &state[4 * (n + i)];
        if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]) || !isfinite(v[0]) || !isfinite(v[1]) ||
            !isfinite(v[2]))
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                           "body '%s': particle %llu of the checkpoint is not finite; nothing was changed", b->name,
                           (unsigned long long)i);
        else if (!(isfinite(x[3]) && x[3] >= 0.0f))
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                           "body '%s': inverse mass %g of particle %llu is not finite and >= 0; nothing was changed",
                           b->name, x[3], (unsigned long long)i);
    }
    /* The masses the body's asset gave, which the checkpoint's must be. */
    float *pos = malloc(16 * n + 16), *own = malloc(4 * n + 4);
    if (r == SINEW_RESULT_OK && (!pos || !own || (!b->unpinned_w && !(b->unpinned_w = calloc(n + 1, 4)))))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_download(b->ctx, &b->buffers[SINEW_BIND_POS], 0, pos, 16 * n);
    if (r == SINEW_RESULT_OK) {
        asset_masses(b, pos + 3, 4, own);
        r = check_masses(b, p, state, own);
    }
    free(pos);
    for (uint32_t c = 0; c < b->bend_count && r == SINEW_RESULT_OK; c++)
        if (!isfinite(state[8 * n + c]))
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                           "body '%s': hinge angle of bend %u is not finite; nothing was changed", b->name, c);
    const float *part = state + 8 * n + b->bend_count;
    for (uint32_t k = 0; k < part_count && r == SINEW_RESULT_OK; k++) {
        if (!(flags & parts[k].flag))
            continue;
        for (uint64_t i = 0; i < parts[k].bytes / 4 && r == SINEW_RESULT_OK; i++)
            if (!isfinite(part[i]))
                r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                               "body '%s': %s of particle %llu is not finite; nothing was changed", b->name,
                               parts[k].what, (unsigned long long)(i % (4 * n) / 4));
        part += parts[k].bytes / 4;
    }
    for (uint32_t f = 0; f < b->attach.frame_count && r == SINEW_RESULT_OK; f++) {
        const float *pose = part + 8 * f;
        double q2 = 0.0;
        int finite = 1;
        for (int k = 0; k < 8; k++)
            finite &= isfinite(pose[k]) != 0;
        for (int k = 4; k < 8; k++)
            q2 += (double)pose[k] * pose[k];
        if (!finite || !(q2 > 1e-12))
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                           "body '%s': the pose of frame %u in the checkpoint is not finite or no rotation; nothing "
                           "was changed", b->name, f);
    }
    if (r == SINEW_RESULT_OK) /* room for the checkpoint's pins before anything changes */
        r = sinew_body_reserve_pins(b, state);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_POS], 0, state, 16 * n);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_VEL], 0, state + 4 * n, 16 * n);
    if (r == SINEW_RESULT_OK)
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_ANGLE], 0, state + 8 * n, 4ull * b->bend_count);
    part = state + 8 * n + b->bend_count;
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
    return memcmp(header + H_MAGIC, "SNWC", 4) == 0 ? HEADER_SIZE + (uint64_t)sinew_get_u32(header + H_PAYLOAD_SIZE)
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
    const size_t largest = SIZE_MAX > UINT32_MAX ? HEADER_SIZE + (size_t)UINT32_MAX : SIZE_MAX / 2;
    sinew_result r = sinew_file_read_declared(path, HEADER_SIZE, declared_size, largest,
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
