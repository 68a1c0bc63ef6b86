/* Pin boxes (sinew_prep_*_options.pin_box and pin_boxes; sinew-prep
 * --pin-box, repeatable): a particle inside any of them is pinned. Shared by
 * the cloth and soft-body builders. */
#ifndef SINEW_PREP_PIN_BOXES_H
#define SINEW_PREP_PIN_BOXES_H

#include "core/log.h"

#include <math.h>
#include <stdint.h>

/* Box k of the single box (k == 0 when `single`) and the list `boxes`
 * (6 doubles each: min x, y, z, then max x, y, z): its corners. */
static inline void sinew_pin_box_at(int single, const double single_min[3], const double single_max[3],
                                    const double *boxes, uint32_t k, const double **lo, const double **hi)
{
    if (single && k == 0) {
        *lo = single_min, *hi = single_max;
        return;
    }
    const double *b = boxes + 6 * (size_t)(k - (single ? 1 : 0));
    *lo = b, *hi = b + 3;
}

/* The first box (counted from 0, the single one first) that is inverted or
 * not finite along an axis (*axis), or -1 when all are boxes. */
static inline int64_t sinew_pin_boxes_bad(int single, const double single_min[3], const double single_max[3],
                                          const double *boxes, uint32_t count, int *axis)
{
    const uint32_t total = count + (single ? 1u : 0u);
    for (uint32_t k = 0; k < total; k++) {
        const double *lo, *hi;
        sinew_pin_box_at(single, single_min, single_max, boxes, k, &lo, &hi);
        for (int a = 0; a < 3; a++)
            if (!(lo[a] <= hi[a]) || !isfinite(lo[a]) || !isfinite(hi[a])) {
                *axis = a;
                return k;
            }
    }
    return -1;
}

/* OK, or INVALID_ARGUMENT naming (for `name`) the first box that is
 * inverted or not finite, numbered from 1, or a count without a list. */
static inline sinew_result sinew_pin_boxes_check(int single, const double single_min[3], const double single_max[3],
                                                 const double *boxes, uint32_t count, const sinew_logger *lg,
                                                 const char *name)
{
    if (count && !boxes)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep", "%s: %u pin boxes but pin_boxes is NULL",
                          name, count);
    int axis = 0;
    const int64_t bad = sinew_pin_boxes_bad(single, single_min, single_max, boxes, count, &axis);
    if (bad < 0)
        return SINEW_RESULT_OK;
    const double *lo, *hi;
    sinew_pin_box_at(single, single_min, single_max, boxes, (uint32_t)bad, &lo, &hi);
    return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "prep",
                      "%s: pin box %lld is inverted or not finite along %c: from %g to %g m (give the smaller corner "
                      "first)", name, (long long)bad + 1, "xyz"[axis], lo[axis], hi[axis]);
}

/* Whether p lies in any of the boxes. */
static inline int sinew_pin_boxes_contain(int single, const double single_min[3], const double single_max[3],
                                          const double *boxes, uint32_t count, const double p[3])
{
    const uint32_t total = count + (single ? 1u : 0u);
    for (uint32_t k = 0; k < total; k++) {
        const double *lo, *hi;
        sinew_pin_box_at(single, single_min, single_max, boxes, k, &lo, &hi);
        if (p[0] >= lo[0] && p[0] <= hi[0] && p[1] >= lo[1] && p[1] <= hi[1] && p[2] >= lo[2] && p[2] <= hi[2])
            return 1;
    }
    return 0;
}

#endif
