/* Packed images: the host copy of a storage buffer that holds many regions
 * (a solver's indices, its matrices and vectors), built by appending. Each
 * region's offset is known when it is appended, so a layout is written once,
 * with no count beforehand that the filling has to agree with. */
#include "gpu.h"

#include <stdlib.h>
#include <string.h>

/* The first allocation, in elements: small images grow a few times at most. */
#define IMAGE_FIRST_CAPACITY 1024u

void sinew_image_init(sinew_image *img, uint32_t unit, uint32_t base)
{
    SINEW_ASSERT(unit > 0);
    memset(img, 0, sizeof *img);
    img->unit = unit;
    img->base = base;
}

void sinew_image_free(sinew_image *img)
{
    free(img->bytes);
    img->bytes = NULL;
    img->count = img->capacity = 0;
}

/* Room for n more elements (not yet counted); 0 when it cannot be had
 * (failed set). */
static int grow(sinew_image *img, uint64_t n)
{
    if (img->failed)
        return 0;
    /* Offsets are 32-bit on the device, and 2^32 - 1 means none: one past
     * the last element must stay below it. */
    if (n >= UINT32_MAX || (uint64_t)img->base + img->count + n >= UINT32_MAX) {
        img->failed = SINEW_RESULT_ERROR_LIMIT;
        return 0;
    }
    const uint64_t need = img->count + n;
    if (need > img->capacity) {
        uint64_t cap = img->capacity ? img->capacity : IMAGE_FIRST_CAPACITY;
        while (cap < need)
            cap *= 2; /* geometric: appending stays linear in the image's size */
        uint8_t *grown = realloc(img->bytes, (size_t)(cap * img->unit));
        if (!grown) {
            img->failed = SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            return 0;
        }
        img->bytes = grown;
        img->capacity = cap;
    }
    return 1;
}

uint32_t sinew_image_put(sinew_image *img, const void *data, uint64_t n)
{
    const uint32_t at = sinew_image_next(img);
    if (!n || !grow(img, n))
        return at;
    uint8_t *end = img->bytes + img->count * img->unit;
    if (data)
        memcpy(end, data, (size_t)(n * img->unit));
    else
        memset(end, 0, (size_t)(n * img->unit));
    img->count += n;
    return at;
}

uint32_t sinew_image_reserve(sinew_image *img, uint64_t n) { return sinew_image_put(img, NULL, n); }

uint32_t sinew_image_next(const sinew_image *img) { return img->base + (uint32_t)img->count; }

void sinew_image_write(sinew_image *img, uint32_t at, const void *data, uint64_t n)
{
    if (img->failed || !n)
        return;
    SINEW_ASSERT(at >= img->base && at - img->base + n <= img->count && "write within appended room");
    memcpy(img->bytes + (uint64_t)(at - img->base) * img->unit, data, (size_t)(n * img->unit));
}

uint64_t sinew_image_size(const sinew_image *img) { return img->count * img->unit; }

sinew_result sinew_image_check(const sinew_image *img, const sinew_logger *lg, const char *id, const char *what)
{
    if (img->failed == SINEW_RESULT_ERROR_LIMIT)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, id,
                          "%s would pass 2^32 - 1 elements of %u bytes: the layout's offsets are 32-bit", what,
                          img->unit);
    if (img->failed)
        return sinew_fail(lg, img->failed, id, "out of host memory for %s", what);
    return SINEW_RESULT_OK;
}
