/* MGPBD's lazy setup as bytes (mgpbd.h, sinew_mgpbd_lazy;
 * docs/checkpoint-format.md, "MGPBD's record"). Between two setups the
 * solver carries the hierarchy (set up on the host from the operator at
 * the positions of the setup) and what its lazy iterations keep from one
 * to the next: each level's rho, never below the setup's, and the power
 * iteration's vector. A record holds the setup's positions and step size,
 * from which the same hierarchy is set up again on the same device, and
 * the rest as it is; so a body resumed from a checkpoint steps bit for bit
 * as the one that saved it, wherever between two setups it was saved.
 *
 *     0          f32  h: the step size of the setup (s)
 *     4          u32  L: levels, 1 .. SINEW_AMG_MAX_LEVELS
 *     8          u32  rows of each level's operator, L of them
 *     8 + 4 L    f32  the positions: x, y, z, inverse mass; 4 n
 *                f32  each level's rho; L
 *                f32  each level's power vector, level after level; sum of rows
 *
 * Little-endian; floats as their 32-bit patterns. */
#include "mgpbd_internal.h"

#include "../core/bytes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sinew_result sinew_mgpbd_keep_setup(sinew_mgpbd *s, float h)
{
    if (!s->setup_x && !(s->setup_x = malloc(16ull * s->n + 16)))
        return sinew_mgpbd_oom(s);
    sinew_result r = sinew_buffer_download(s->ctx, &s->body[SINEW_BIND_POS], 0, s->setup_x, 16ull * s->n);
    s->setup_h = h;
    s->setup_kept = r == SINEW_RESULT_OK;
    return r;
}

static uint64_t power_floats(const uint32_t *rows, uint32_t levels)
{
    uint64_t sum = 0;
    for (uint32_t l = 0; l < levels; l++)
        sum += rows[l];
    return sum;
}

static uint64_t record_bytes(uint32_t n, uint32_t levels, uint64_t power)
{
    return 8 + 8ull * levels + 16ull * n + 4 * power;
}

static void put_floats(uint8_t *dst, const float *v, uint64_t count)
{
    for (uint64_t i = 0; i < count; i++) {
        uint32_t w;
        memcpy(&w, &v[i], 4);
        sinew_put_u32(dst + 4 * i, w);
    }
}

static float get_float(const uint8_t *src, uint64_t i)
{
    const uint32_t w = sinew_get_u32(src + 4 * i);
    float f;
    memcpy(&f, &w, 4);
    return f;
}

size_t sinew_mgpbd_lazy_size(const sinew_mgpbd *s)
{
    if (!s->setup_kept)
        return 0;
    uint32_t rows[SINEW_AMG_MAX_LEVELS];
    for (uint32_t l = 0; l < s->levels; l++)
        rows[l] = s->L[l].rows;
    return (size_t)record_bytes(s->n, s->levels, power_floats(rows, s->levels));
}

/* Each level's power vector from the device, level after level. */
static sinew_result download_power(sinew_mgpbd *s, float *power)
{
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t l = 0; l < s->levels && r == SINEW_RESULT_OK; l++) {
        r = sinew_mgpbd_download(s, 1, s->L[l].e, power, s->L[l].rows);
        power += s->L[l].rows;
    }
    return r;
}

sinew_result sinew_mgpbd_lazy_save(sinew_mgpbd *s, uint8_t *dst)
{
    SINEW_ASSERT(s->setup_kept && dst);
    uint64_t count = 0;
    for (uint32_t l = 0; l < s->levels; l++)
        count += s->L[l].rows;
    float rho[SINEW_AMG_MAX_LEVELS], *power = malloc(4 * count + 4);
    if (!power)
        return sinew_mgpbd_oom(s);
    sinew_result r = sinew_mgpbd_download(s, 1, s->scalars + SINEW_AMG_S_RHO, rho, s->levels);
    if (r == SINEW_RESULT_OK)
        r = download_power(s, power);
    if (r == SINEW_RESULT_OK) {
        put_floats(dst, &s->setup_h, 1);
        sinew_put_u32(dst + 4, s->levels);
        for (uint32_t l = 0; l < s->levels; l++)
            sinew_put_u32(dst + 8 + 4 * l, s->L[l].rows);
        uint8_t *at = dst + 8 + 4 * s->levels;
        put_floats(at, s->setup_x, 4ull * s->n);
        put_floats(at + 16ull * s->n, rho, s->levels);
        put_floats(at + 16ull * s->n + 4 * s->levels, power, count);
    }
    free(power);
    return r;
}

/* ---------------------------------------------------------------- reading */

static sinew_result bad(const sinew_logger *lg, const char *name, const char *what)
{
    return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "checkpoint",
                      "body '%s': the MGPBD record's %s; nothing was changed", name, what);
}

/* The first entry of count at src that is not finite (or, with positive,
 * not > 0), or count. */
static uint64_t first_bad(const uint8_t *src, uint64_t count, uint64_t stride, int positive)
{
    for (uint64_t i = 0; i < count; i++) {
        const float f = get_float(src, i * stride);
        if (!isfinite(f) || (positive && !(f > 0.0f)))
            return i;
    }
    return count;
}

/* The arrays' values, once the sizes are known to fit. */
static sinew_result check_values(const sinew_mgpbd_lazy *z, uint32_t n, uint64_t power, const char *name,
                                 const sinew_logger *lg)
{
    if (!(isfinite(z->h) && z->h > 0.0f))
        return bad(lg, name, "step size is not finite and > 0");
    if (first_bad(z->positions, 4ull * n, 1, 0) < 4ull * n)
        return bad(lg, name, "positions are not all finite");
    for (uint32_t i = 0; i < n; i++)
        if (!(get_float(z->positions, 4ull * i + 3) >= 0.0f))
            return bad(lg, name, "inverse masses are not all >= 0");
    if (first_bad(z->rho, z->levels, 1, 1) < z->levels)
        return bad(lg, name, "rho of a level is not finite and > 0");
    if (first_bad(z->power, power, 1, 0) < power)
        return bad(lg, name, "power vectors are not all finite");
    return SINEW_RESULT_OK;
}

sinew_result sinew_mgpbd_lazy_read(const uint8_t *bytes, size_t size, uint32_t n, const char *name,
                                   const sinew_logger *lg, sinew_mgpbd_lazy *out)
{
    SINEW_ASSERT(out && name && (bytes || size == 0));
    memset(out, 0, sizeof *out);
    if (size < 8)
        return bad(lg, name, "size is less than its 8 first bytes");
    sinew_mgpbd_lazy z = {0};
    z.h = get_float(bytes, 0);
    z.levels = sinew_get_u32(bytes + 4);
    if (z.levels < 1 || z.levels > SINEW_AMG_MAX_LEVELS)
        return bad(lg, name, "level count is outside 1 .. SINEW_AMG_MAX_LEVELS");
    if (size < 8 + 4ull * z.levels)
        return bad(lg, name, "size is less than its levels' row counts");
    for (uint32_t l = 0; l < z.levels; l++)
        if ((z.rows[l] = sinew_get_u32(bytes + 8 + 4 * l)) == 0)
            return bad(lg, name, "level without rows");
    const uint64_t power = power_floats(z.rows, z.levels);
    if (size != record_bytes(n, z.levels, power))
        return bad(lg, name, "size does not match its particles, levels and rows");
    z.positions = bytes + 8 + 4 * z.levels;
    z.rho = z.positions + 16ull * n;
    z.power = z.rho + 4 * z.levels;
    sinew_result r = check_values(&z, n, power, name, lg);
    if (r == SINEW_RESULT_OK)
        *out = z;
    return r;
}

/* ---------------------------------------------------------------- loading */

/* Whether the hierarchy set up again has the record's levels and rows. */
static int same_shape(const sinew_amg *fresh, const sinew_mgpbd_lazy *z)
{
    if (fresh->levels != z->levels)
        return 0;
    for (uint32_t l = 0; l < z->levels; l++)
        if (fresh->L[l].A.rows != z->rows[l])
            return 0;
    return 1;
}

/* rho and the power vectors of the record onto the device. */
static sinew_result upload_carried(sinew_mgpbd *s, const sinew_mgpbd_lazy *z)
{
    const uint64_t power = power_floats(z->rows, z->levels);
    float rho[SINEW_AMG_MAX_LEVELS], *v = malloc(4 * power + 4);
    if (!v)
        return sinew_mgpbd_oom(s);
    for (uint32_t l = 0; l < z->levels; l++)
        rho[l] = get_float(z->rho, l);
    for (uint64_t i = 0; i < power; i++)
        v[i] = get_float(z->power, i);
    sinew_result r = sinew_mgpbd_upload(s, 1, s->scalars + SINEW_AMG_S_RHO, rho, z->levels);
    const float *e = v;
    for (uint32_t l = 0; l < s->levels && r == SINEW_RESULT_OK; l++) {
        r = sinew_mgpbd_upload(s, 1, s->L[l].e, e, s->L[l].rows);
        e += s->L[l].rows;
    }
    free(v);
    return r;
}

sinew_result sinew_mgpbd_lazy_load(sinew_mgpbd *s, const sinew_mgpbd_lazy *z, const char *name)
{
    float *x = malloc(16ull * s->n + 16);
    if (!x)
        return sinew_mgpbd_oom(s);
    for (uint64_t i = 0; i < 4ull * s->n; i++)
        x[i] = get_float(z->positions, i);
    sinew_amg fresh = {0};
    sinew_result r = sinew_buffer_upload(s->ctx, &s->body[SINEW_BIND_POS], 0, x, 16ull * s->n);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_assemble_at(s, &s->body[SINEW_BIND_POS], z->h);
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_setup_fresh(s, &fresh);
    if (r == SINEW_RESULT_OK && !same_shape(&fresh, z)) {
        sinew_amg_free(&fresh);
        free(x);
        return bad(&s->ctx->logger, name, "hierarchy differs from the one set up again from its positions (saved "
                                          "on another device, or from another asset or desc)");
    }
    if (r == SINEW_RESULT_OK)
        r = sinew_mgpbd_take_hierarchy(s, &fresh);
    if (r == SINEW_RESULT_OK)
        r = upload_carried(s, z);
    if (r == SINEW_RESULT_OK) {
        free(s->setup_x);
        s->setup_x = x;
        s->setup_h = z->h;
        s->setup_kept = 1;
        s->power_warm = 1;
    } else {
        free(x);
    }
    return r;
}
