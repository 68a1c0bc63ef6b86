/* Little-endian integers in byte arrays, the same on any host: every file
 * sinew writes goes through these. */
#ifndef SINEW_CORE_BYTES_H
#define SINEW_CORE_BYTES_H

#include <stdint.h>

static inline uint16_t sinew_get_u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static inline uint32_t sinew_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t sinew_get_u64(const uint8_t *p)
{
    return sinew_get_u32(p) | (uint64_t)sinew_get_u32(p + 4) << 32;
}

static inline void sinew_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void sinew_put_u32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = (uint8_t)(v >> 8 * k);
}

static inline void sinew_put_u64(uint8_t *p, uint64_t v)
{
    sinew_put_u32(p, (uint32_t)v);
    sinew_put_u32(p + 4, (uint32_t)(v >> 32));
}

#endif
