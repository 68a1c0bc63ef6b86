/* A checkpoint's bytes read and checked before anything reaches the device
 * (checkpoint.h; docs/checkpoint-format.md, "Reading"). The bytes are
 * untrusted: every field is checked against the body's shape before the
 * next one is trusted, sizes before CRCs, CRCs before values. */
#include "checkpoint.h"

#include "asset/asset.h" /* sinew_crc32 */
#include "core/bytes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t sinew_checkpoint_floats(const sinew_checkpoint_shape *s, uint32_t flags)
{
    size_t floats = 8 * (size_t)s->particles + s->bends;
    for (uint32_t i = 0; i < s->part_count; i++)
        floats += flags & s->parts[i].flag ? (size_t)s->parts[i].floats : 0;
    return floats + (flags & SINEW_STATE_FRAMES ? 8 * (size_t)s->frames : 0);
}

static sinew_result refuse(const sinew_checkpoint_shape *s, const sinew_logger *lg, const char *what,
                           unsigned long long got, unsigned long long want)
{
    return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                      "body '%s': checkpoint %s is %llu, expected %llu; nothing was changed", s->name, what, got, want);
}

/* Magic, header CRC, version, header size, counts and topology. */
static sinew_result check_header(const uint8_t *p, size_t size, const sinew_checkpoint_shape *s,
                                 const sinew_logger *lg)
{
    if (size < SINEW_CHECKPOINT_HEADER || memcmp(p + SINEW_CK_MAGIC, "SNWC", 4) != 0)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': not a checkpoint (no SNWC header in %zu bytes); nothing was changed", s->name,
                          size);
    if (sinew_get_u32(p + SINEW_CK_CRC) != sinew_crc32(0, p, SINEW_CK_CRC))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': checkpoint header CRC mismatch (damaged file); nothing was changed", s->name);
    const uint32_t version = sinew_get_u32(p + SINEW_CK_VERSION);
    if (version < 1 || version > SINEW_CHECKPOINT_VERSION)
        return refuse(s, lg, "version", version, SINEW_CHECKPOINT_VERSION);
    const uint32_t fields[4][2] = {{SINEW_CK_HEADER_SIZE, SINEW_CHECKPOINT_HEADER},
                                   {SINEW_CK_PARTICLES, s->particles},
                                   {SINEW_CK_DISTANCES, s->distances},
                                   {SINEW_CK_BENDS, s->bends}};
    const char *names[4] = {"header size", "particle count", "distance constraint count", "bending constraint count"};
    for (int k = 0; k < 4; k++)
        if (sinew_get_u32(p + fields[k][0]) != fields[k][1])
            return refuse(s, lg, names[k], sinew_get_u32(p + fields[k][0]), fields[k][1]);
    if (sinew_get_u32(p + SINEW_CK_TOPOLOGY) != s->topology_crc)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': checkpoint was saved from a body with other constraints (topology CRC "
                          "%08x, this body %08x); nothing was changed", s->name, sinew_get_u32(p + SINEW_CK_TOPOLOGY),
                          s->topology_crc);
    return SINEW_RESULT_OK;
}

/* Flags, the record's and the payload's sizes, the payload CRC; *record_size
 * the solver's record's bytes. */
static sinew_result check_payload(const uint8_t *p, size_t size, const sinew_checkpoint_shape *s,
                                  const sinew_logger *lg, size_t *record_size)
{
    const uint32_t flags = sinew_get_u32(p + SINEW_CK_FLAGS);
    if ((flags & ~s->allowed) != 0 || (flags & s->required) != s->required)
        return refuse(s, lg, "flags", flags, s->required);
    /* versions 1 and 2 have no record: their bytes 52..59 are zero */
    const uint32_t record = sinew_get_u32(p + SINEW_CK_VERSION) >= 3 ? sinew_get_u32(p + SINEW_CK_RECORD_SIZE) : 0;
    if ((record != 0) != ((flags & SINEW_STATE_RECORD) != 0))
        return refuse(s, lg, "solver record size", record, flags & SINEW_STATE_RECORD ? 1 : 0);
    const uint64_t payload_size = 4 * (uint64_t)sinew_checkpoint_floats(s, flags) + record;
    if (sinew_get_u32(p + SINEW_CK_PAYLOAD_SIZE) != payload_size)
        return refuse(s, lg, "payload size", sinew_get_u32(p + SINEW_CK_PAYLOAD_SIZE), payload_size);
    if (size != SINEW_CHECKPOINT_HEADER + payload_size)
        return refuse(s, lg, "size in bytes", size, SINEW_CHECKPOINT_HEADER + payload_size);
    if (sinew_get_u32(p + SINEW_CK_PAYLOAD_CRC) != sinew_crc32(0, p + SINEW_CHECKPOINT_HEADER, (size_t)payload_size))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': checkpoint payload CRC mismatch (damaged file); nothing was changed", s->name);
    *record_size = record;
    return SINEW_RESULT_OK;
}

sinew_result sinew_checkpoint_read(const void *bytes, size_t size, const sinew_checkpoint_shape *s,
                                   const sinew_logger *lg, sinew_checkpoint_view *out)
{
    SINEW_ASSERT(s && out && (bytes || size == 0));
    memset(out, 0, sizeof *out);
    const uint8_t *p = bytes;
    size_t record = 0;
    sinew_result r = check_header(p, size, s, lg);
    if (r == SINEW_RESULT_OK)
        r = check_payload(p, size, s, lg, &record);
    if (r != SINEW_RESULT_OK)
        return r;
    const uint32_t flags = sinew_get_u32(p + SINEW_CK_FLAGS);
    const size_t floats = sinew_checkpoint_floats(s, flags);
    float *state = malloc(4 * floats + 4);
    if (!state)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "checkpoint", "out of host memory");
    const uint8_t *payload = p + SINEW_CHECKPOINT_HEADER;
    for (size_t i = 0; i < floats; i++) {
        const uint32_t w = sinew_get_u32(payload + 4 * i);
        memcpy(&state[i], &w, 4);
    }
    r = sinew_checkpoint_check_state(s, state, flags, lg);
    if (r != SINEW_RESULT_OK) {
        free(state);
        return r;
    }
    out->version = sinew_get_u32(p + SINEW_CK_VERSION);
    out->flags = flags;
    out->mass_crc = out->version >= 2 ? sinew_get_u32(p + SINEW_CK_MASS_CRC) : 0;
    out->step = sinew_get_u64(p + SINEW_CK_STEP);
    out->state = state;
    out->floats = floats;
    out->record = record ? payload + 4 * floats : NULL;
    out->record_size = record;
    return SINEW_RESULT_OK;
}

/* ---------------------------------------------------------------- values */

static sinew_result check_particles(const sinew_checkpoint_shape *s, const float *state, const sinew_logger *lg)
{
    const uint64_t n = s->particles;
    for (uint64_t i = 0; i < n; i++) {
        const float *x = &state[4 * i], *v = &state[4 * (n + i)];
        if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]) || !isfinite(v[0]) || !isfinite(v[1]) ||
            !isfinite(v[2]))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                              "body '%s': particle %llu of the checkpoint is not finite; nothing was changed", s->name,
                              (unsigned long long)i);
        if (!(isfinite(x[3]) && x[3] >= 0.0f))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                              "body '%s': inverse mass %g of particle %llu is not finite and >= 0; nothing was "
                              "changed", s->name, (double)x[3], (unsigned long long)i);
    }
    for (uint32_t c = 0; c < s->bends; c++)
        if (!isfinite(state[8 * n + c]))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                              "body '%s': hinge angle of bend %u is not finite; nothing was changed", s->name, c);
    return SINEW_RESULT_OK;
}

/* The solver's parts flagged, from part on; *end: where the frames begin. */
static sinew_result check_parts(const sinew_checkpoint_shape *s, const float *part, uint32_t flags,
                                const sinew_logger *lg, const float **end)
{
    const uint64_t n = s->particles;
    for (uint32_t k = 0; k < s->part_count; k++) {
        if (!(flags & s->parts[k].flag))
            continue;
        for (uint64_t i = 0; i < s->parts[k].floats; i++)
            if (!isfinite(part[i]))
                return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                                  "body '%s': %s of particle %llu is not finite; nothing was changed", s->name,
                                  s->parts[k].what, n ? (unsigned long long)(i % (4 * n) / 4) : 0ull);
        part += s->parts[k].floats;
    }
    *end = part;
    return SINEW_RESULT_OK;
}

static sinew_result check_frames(const sinew_checkpoint_shape *s, const float *poses, const sinew_logger *lg)
{
    for (uint32_t f = 0; f < s->frames; f++) {
        const float *pose = poses + 8 * (size_t)f;
        double q2 = 0.0;
        int finite = 1;
        for (int k = 0; k < 8; k++)
            finite &= isfinite(pose[k]) != 0;
        for (int k = 4; k < 8; k++)
            q2 += (double)pose[k] * pose[k];
        if (!finite || !(q2 > 1e-12))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                              "body '%s': the pose of frame %u in the checkpoint is not finite or no rotation; "
                              "nothing was changed", s->name, f);
    }
    return SINEW_RESULT_OK;
}

sinew_result sinew_checkpoint_check_state(const sinew_checkpoint_shape *s, const float *state, uint32_t flags,
                                          const sinew_logger *lg)
{
    const float *frames = NULL;
    sinew_result r = check_particles(s, state, lg);
    if (r == SINEW_RESULT_OK)
        r = check_parts(s, state + 8 * (size_t)s->particles + s->bends, flags, lg, &frames);
    if (r == SINEW_RESULT_OK && (flags & SINEW_STATE_FRAMES))
        r = check_frames(s, frames, lg);
    return r;
}

uint32_t sinew_checkpoint_mass_crc(const float *w, uint32_t n)
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

sinew_result sinew_checkpoint_check_masses(const sinew_checkpoint_shape *s, const float *state, const float *own,
                                           const uint32_t *mass_crc, const sinew_logger *lg)
{
    const uint32_t n = s->particles;
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
                          s->name, other, (double)state[4 * (size_t)other + 3]);
    if (other != UINT32_MAX)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': particle %u has inverse mass %g 1/kg in the checkpoint and %g in this body: "
                          "the checkpoint was saved from an asset with other masses; nothing was changed", s->name,
                          other, (double)state[4 * (size_t)other + 3], (double)own[other]);
    const uint32_t ours = sinew_checkpoint_mass_crc(own, n);
    if (!mass_crc || *mass_crc == ours)
        return SINEW_RESULT_OK;
    if (pinned != UINT32_MAX)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "body '%s': particle %u is pinned in the checkpoint and free in this body (inverse mass %g "
                          "1/kg): the checkpoint was saved from an asset with other pins (mass CRC %08x, this "
                          "body's %08x); nothing was changed", s->name, pinned, (double)own[pinned], *mass_crc, ours);
    return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                      "body '%s': the checkpoint was saved from an asset with other masses (mass CRC %08x, this "
                      "body's %08x); nothing was changed", s->name, *mass_crc, ours);
}

/* ---------------------------------------------------------------- a world's */

sinew_result sinew_checkpoint_world_header(const void *bytes, size_t size, const char *name, const sinew_logger *lg,
                                           uint32_t *chains)
{
    SINEW_ASSERT(name && chains && (bytes || size == 0));
    const uint8_t *p = bytes;
    if (size < SINEW_WORLD_CHECKPOINT_HEADER || memcmp(p, "SNWW", 4) != 0 || sinew_get_u32(p + 4) != 1)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "world '%s': not a world checkpoint of version 1 (%zu bytes); nothing was changed", name,
                          size);
    *chains = sinew_get_u32(p + 8);
    return SINEW_RESULT_OK;
}

sinew_result sinew_checkpoint_world_chains(const void *bytes, size_t size, uint32_t chains, const char *name,
                                           const sinew_logger *lg, size_t *offsets, size_t *sizes)
{
    SINEW_ASSERT((offsets && sizes) || chains == 0);
    const uint8_t *p = bytes;
    uint32_t held = 0;
    sinew_result r = sinew_checkpoint_world_header(bytes, size, name, lg, &held);
    if (r != SINEW_RESULT_OK)
        return r;
    if (held != chains)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                          "world '%s': the checkpoint holds %u chains, the world %u; nothing was changed", name, held,
                          chains);
    size_t at = SINEW_WORLD_CHECKPOINT_HEADER;
    for (uint32_t i = 0; i < chains; i++) {
        const uint64_t one = size - at >= 8 ? sinew_get_u64(p + at) : UINT64_MAX;
        if (one > size - at - (size - at >= 8 ? 8 : 0))
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                              "world '%s': chain %u's part runs past the checkpoint's %zu bytes; nothing was changed",
                              name, i, size);
        offsets[i] = at + 8;
        sizes[i] = (size_t)one;
        at += 8 + (size_t)one;
    }
    return SINEW_RESULT_OK;
}
