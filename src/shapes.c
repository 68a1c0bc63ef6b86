/* The collider list (sinew_step_params.shapes): its part of SHAPES planned
 * at creation, the mesh colliders' fields uploaded into it, and the stage
 * that moves the shapes to their poses at each substep's end (shapes.comp).
 * The records themselves arrive with each step (step_record.c, body.c). */
#include "stages.h"

#include "body.h"
#include "collider.h"

#include <string.h>

/* SHAPES (shared/layout.h): where the current records, the mesh headers,
 * the meshes' values and the wind's velocity changes start (vec4 indices),
 * and its vec4s in all. */
uint64_t sinew_shapes_plan(sinew_body *b)
{
    const sinew_body_desc *d = &b->desc;
    uint64_t values = 0; /* floats */
    for (uint32_t m = 0; m < d->mesh_count; m++) {
        const uint32_t *dims = d->meshes[m]->sdf.dims;
        values += (uint64_t)dims[0] * dims[1] * dims[2];
    }
    const uint64_t current = (uint64_t)SINEW_SHAPE_VEC4S * d->max_shapes;
    const uint64_t meshes = 2 * current, first_value = meshes + 2ull * d->mesh_count;
    const uint64_t wind = first_value + (values + 3) / 4;
    b->shapes_current = (uint32_t)current;
    b->shapes_meshes = (uint32_t)meshes;
    b->shapes_values = (uint32_t)first_value;
    b->shapes_wind = (uint32_t)wind;
    return wind + sinew_wind_vec4s(b);
}

/* The mesh colliders' headers and values into SHAPES. */
sinew_result sinew_shapes_upload(sinew_body *b)
{
    const sinew_body_desc *d = &b->desc;
    sinew_result r = SINEW_RESULT_OK;
    uint64_t value = 0; /* float index from shapes_values */
    for (uint32_t m = 0; m < d->mesh_count && r == SINEW_RESULT_OK; m++) {
        const sinew_sdf *sdf = &d->meshes[m]->sdf;
        const uint64_t count = (uint64_t)sdf->dims[0] * sdf->dims[1] * sdf->dims[2];
        const uint32_t first = (uint32_t)(4ull * b->shapes_values + value);
        float header[8] = {(float)sdf->origin[0], (float)sdf->origin[1], (float)sdf->origin[2], (float)sdf->cell};
        const uint32_t words[4] = {sdf->dims[0], sdf->dims[1], sdf->dims[2], first};
        memcpy(&header[4], words, sizeof words);
        r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_SHAPES], 16ull * (b->shapes_meshes + 2ull * m), header,
                                sizeof header);
        if (r == SINEW_RESULT_OK)
            r = sinew_buffer_upload(b->ctx, &b->buffers[SINEW_BIND_SHAPES], 4ull * first, sdf->phi, 4 * count);
        value += count;
    }
    return r;
}

/* The collider list's poses at the end of the substep (shapes.comp), for a
 * body with a list, and the barrier the kernels after it need (they read
 * SHAPES, which it writes). Per shape the record in (80 bytes) and out
 * (128). */
void sinew_shapes_record(sinew_body *b, sinew_recorder *r, sinew_stage_at *at)
{
    const uint32_t count = b->desc.max_shapes;
    if (!count)
        return;
    GpuRange push = {at->substep, count};
    sinew_record_dispatch(r, SINEW_KERNEL_SHAPES, count, &push, sizeof push);
    sinew_record_barrier(r);
    r->bytes += 208ull * count;
}
