/* Attachments to moving frames, pins' targets and long-range tethers
 * (docs/attachments.md, docs/math.md 12). Attachments follow a frame's pose
 * interpolated across the step's substeps; held ones (compliance 0) are
 * kinematic, compliant ones XPBD point constraints. Tethers are the long
 * range attachments of Kim, Chentanez and Müller (2012): each free particle
 * kept within its rest geodesic distance of its nearest anchor, the
 * distances found on the host at creation by Dijkstra from all anchors at
 * once over the distance constraints. */
#include "attach.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static int finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* A pose the library takes: finite, a rotation of length > 1e-6. */
static int pose_fault(const sinew_frame *f)
{
    const float *q = f->rotation;
    if (!finite3(f->position) || !finite3(q) || !isfinite(q[3]))
        return 1;
    double q2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    return q2 > 1e-12 ? 0 : 2;
}

static const char *frame_name(const sinew_body_desc *d, uint32_t f, char buf[32])
{
    if (d->frame_names && f < d->frame_count && d->frame_names[f])
        return d->frame_names[f];
    snprintf(buf, 32, "frame %u", f);
    return buf;
}

static int position_based(sinew_solver s)
{
    return s <= SINEW_SOLVER_HPBD; /* XPBD GS, Jacobi, SGS, GPBD GS, Jacobi, HPBD */
}

sinew_result sinew_attach_check(const sinew_context *ctx, const sinew_asset *a, const sinew_body_desc *d)
{
    const sinew_logger *lg = &ctx->logger;
    const uint32_t n = a->particle_count;
    if ((d->attachment_count && !d->attachments) || (d->frame_count && !d->frames))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "desc gives %u attachments at %p and %u frames at %p: NULL with a count", d->attachment_count,
                          (const void *)d->attachments, d->frame_count, (const void *)d->frames);
    if (d->frame_count > (1u << 20) || d->attachment_count > (1u << 24))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "%u frames and %u attachments are too many",
                          d->frame_count, d->attachment_count);
    if (d->tethers && !(isfinite(d->tether_scale) && d->tether_scale >= 1.0f && d->tether_scale <= 100.0f))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "tether_scale %g is not in [1, 100]",
                          d->tether_scale);
    char buf[32];
    for (uint32_t f = 0; f < d->frame_count; f++) {
        int fault = pose_fault(&d->frames[f]);
        if (fault)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body", "%s's pose at creation %s",
                              frame_name(d, f, buf),
                              fault == 1 ? "is not finite" : "has a rotation of length 0 (not a quaternion)");
    }
    const int implicit = d->solver == SINEW_SOLVER_IMPLICIT_MG || d->solver == SINEW_SOLVER_IMPLICIT_PCG;
    if (implicit && (d->attachment_count || d->tethers))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "the implicit solvers take no attachments to frames nor tethers (their pins are anchored "
                          "by point constraints; sinew_body_move_pinned moves them)");
    if (d->tethers && !position_based(d->solver))
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "tethers are projected by the position-based solvers (XPBD, GPBD, HPBD) only, not %s",
                          sinew_solver_name(d->solver));
    uint8_t *seen = calloc((size_t)n + 1, 1);
    if (!seen)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    sinew_result r = SINEW_RESULT_OK;
    for (uint32_t k = 0; k < d->attachment_count && r == SINEW_RESULT_OK; k++) {
        const sinew_attachment *at = &d->attachments[k];
        if (at->frame >= d->frame_count)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                           "attachment %u follows frame %u; the desc has %u frames", k, at->frame, d->frame_count);
        else if (at->count && !at->particles)
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                           "attachment %u has %u particles and a NULL list", k, at->count);
        else if (!(isfinite(at->compliance) && at->compliance >= 0.0f))
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                           "attachment %u: compliance %g is not finite and >= 0", k, at->compliance);
        else if (at->compliance > 0.0f && !position_based(d->solver))
            r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                           "attachment %u is compliant (%g m/N): only the position-based solvers (XPBD, GPBD, "
                           "HPBD) project compliant attachments, not %s; compliance 0 holds exactly", k,
                           at->compliance, sinew_solver_name(d->solver));
        for (uint32_t j = 0; j < at->count && r == SINEW_RESULT_OK; j++) {
            uint32_t i = at->particles[j];
            if (i >= n)
                r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                               "attachment %u: particle %u is out of range (%u particles)", k, i, n);
            else if (seen[i])
                r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                               "attachment %u: particle %u is attached twice", k, i);
            else if (at->compliance > 0.0f && a->particles[i].w == 0.0f)
                r = sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                               "attachment %u: particle %u is pinned by its asset (no mass): a compliant attachment "
                               "needs a free particle", k, i);
            else
                seen[i] = 1;
        }
    }
    free(seen);
    return r;
}

/* q (x y z w, double) applied to v. */
static void rotate(const double q[4], const double v[3], double out[3])
{
    double t[3] = {2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]), 2 * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

/* A frame's pose as the device takes it: rotation normalised. */
static void store_pose(float *dst, const sinew_frame *f)
{
    const float *q = f->rotation;
    double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    dst[0] = f->position[0];
    dst[1] = f->position[1];
    dst[2] = f->position[2];
    dst[3] = 0.0f;
    for (int k = 0; k < 4; k++)
        dst[4 + k] = (float)(q[k] / len);
}

/* A binary heap of (distance, particle) for Dijkstra, stale entries skipped. */
typedef struct heap_item {
    double d;
    uint32_t i;
} heap_item;

static void heap_push(heap_item *h, size_t *size, heap_item x)
{
    size_t k = (*size)++;
    while (k > 0 && h[(k - 1) / 2].d > x.d) {
        h[k] = h[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h[k] = x;
}

static heap_item heap_pop(heap_item *h, size_t *size)
{
    heap_item top = h[0], last = h[--*size];
    size_t k = 0;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= *size)
            break;
        if (c + 1 < *size && h[c + 1].d < h[c].d)
            c++;
        if (h[c].d >= last.d)
            break;
        h[k] = h[c];
        k = c;
    }
    if (*size)
        h[k] = last;
    return top;
}

/* Tethers: the rest geodesic distance (over the distance constraints' rest
 * lengths) of every particle from its nearest anchor (inverse mass 0 as the
 * body starts), by Dijkstra from all anchors at once; one tether per free
 * particle that reaches an anchor and is not attached compliantly. */
static sinew_result plan_tethers(sinew_attach *at, const sinew_logger *lg, const sinew_asset *a,
                                 const float *w, float scale)
{
    const uint32_t n = a->particle_count, m = a->distance_count;
    uint32_t *start = calloc((size_t)n + 2, sizeof *start), *adj = malloc(sizeof *adj * (2 * (size_t)m + 1));
    double *dist = malloc(sizeof *dist * ((size_t)n + 1));
    uint32_t *source = malloc(sizeof *source * ((size_t)n + 1));
    heap_item *heap = malloc(sizeof *heap * (2 * (size_t)m + n + 1));
    sinew_result r = SINEW_RESULT_OK;
    if (!start || !adj || !dist || !source || !heap) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
        goto done;
    }
    for (uint32_t c = 0; c < m; c++) {
        start[a->distances[c].a + 2]++;
        start[a->distances[c].b + 2]++;
    }
    for (uint32_t i = 0; i < n; i++)
        start[i + 2] += start[i + 1];
    for (uint32_t c = 0; c < m; c++) { /* adj holds constraint indices */
        adj[start[a->distances[c].a + 1]++] = c;
        adj[start[a->distances[c].b + 1]++] = c;
    }
    size_t size = 0;
    for (uint32_t i = 0; i < n; i++) {
        dist[i] = INFINITY;
        source[i] = SINEW_ATTACH_NONE;
        if (w[i] == 0.0f) {
            dist[i] = 0.0;
            source[i] = i;
            heap_push(heap, &size, (heap_item){0.0, i});
        }
    }
    while (size) {
        heap_item top = heap_pop(heap, &size);
        if (top.d > dist[top.i])
            continue;
        for (uint32_t e = start[top.i]; e < start[top.i + 1]; e++) {
            const sinew_distance_rec *c = &a->distances[adj[e]];
            uint32_t j = c->a == top.i ? c->b : c->a;
            double d = top.d + c->rest;
            if (d < dist[j]) {
                dist[j] = d;
                source[j] = source[top.i];
                heap_push(heap, &size, (heap_item){d, j});
            }
        }
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        count += w[i] != 0.0f && source[i] != SINEW_ATTACH_NONE && at->attached[i] == SINEW_ATTACH_NONE;
    at->tethers = malloc(16 * ((size_t)count + 1));
    if (!at->tethers) {
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++)
        if (w[i] != 0.0f && source[i] != SINEW_ATTACH_NONE && at->attached[i] == SINEW_ATTACH_NONE) {
            float *t = &at->tethers[4 * at->tether_count++];
            t[0] = bits_float(i);
            t[1] = bits_float(source[i]);
            t[2] = (float)(dist[i] * scale);
            t[3] = 0.0f;
        }
done:
    free(start);
    free(adj);
    free(dist);
    free(source);
    free(heap);
    return r;
}

sinew_result sinew_attach_plan(sinew_attach *at, const sinew_logger *lg, const sinew_asset *a,
                               const sinew_body_desc *d, int on)
{
    const uint32_t n = a->particle_count;
    memset(at, 0, sizeof *at);
    at->on = on;
    if (!on)
        return SINEW_RESULT_OK;
    at->frame_count = d->frame_count;
    for (uint32_t k = 0; k < d->attachment_count; k++)
        at->attachment_count += d->attachments[k].count;
    at->frames = malloc(32 * ((size_t)at->frame_count + 1));
    at->pin_of = malloc(sizeof *at->pin_of * ((size_t)n + 1));
    at->attached = malloc(sizeof *at->attached * ((size_t)n + 1));
    at->records = malloc(32 * ((size_t)at->attachment_count + 1));
    float *w = malloc(sizeof *w * ((size_t)n + 1));
    if (!at->frames || !at->pin_of || !at->attached || !at->records || !w) {
        free(w);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    for (uint32_t f = 0; f < at->frame_count; f++)
        store_pose(&at->frames[8 * f], &d->frames[f]);
    for (uint32_t i = 0; i < n; i++) {
        at->pin_of[i] = at->attached[i] = SINEW_ATTACH_NONE;
        w[i] = a->particles[i].w;
    }
    uint32_t rec = 0;
    for (uint32_t k = 0; k < d->attachment_count; k++) {
        const sinew_attachment *s = &d->attachments[k];
        const float *fp = &at->frames[8 * s->frame];
        const double q[4] = {-fp[4], -fp[5], -fp[6], fp[7]}; /* the inverse rotation */
        for (uint32_t j = 0; j < s->count; j++, rec++) {
            const uint32_t i = s->particles[j];
            const sinew_particle_rec *x = &a->particles[i];
            const double v[3] = {(double)x->x - fp[0], (double)x->y - fp[1], (double)x->z - fp[2]};
            double local[3];
            rotate(q, v, local);
            float *r = &at->records[8 * rec];
            r[0] = (float)local[0];
            r[1] = (float)local[1];
            r[2] = (float)local[2];
            r[3] = s->compliance;
            r[4] = bits_float(i);
            r[5] = bits_float(s->frame);
            r[6] = r[7] = 0.0f;
            at->attached[i] = rec;
            at->compliant_count += s->compliance > 0.0f;
            if (s->compliance == 0.0f)
                w[i] = 0.0f; /* held: kinematic */
        }
    }
    uint32_t pins = 0;
    for (uint32_t i = 0; i < n; i++)
        pins += w[i] == 0.0f && at->attached[i] == SINEW_ATTACH_NONE;
    at->pin_capacity = pins + (pins || at->attachment_count ? 8 : 0);
    at->pins = malloc(16 * ((size_t)at->pin_capacity + 1));
    if (!at->pins) {
        free(w);
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    }
    for (uint32_t s = 0; s < at->pin_capacity; s++) {
        at->pins[4 * s] = at->pins[4 * s + 1] = at->pins[4 * s + 2] = 0.0f;
        at->pins[4 * s + 3] = bits_float(SINEW_ATTACH_NONE);
    }
    for (uint32_t i = 0; i < n; i++)
        if (w[i] == 0.0f && at->attached[i] == SINEW_ATTACH_NONE) {
            const float x[3] = {a->particles[i].x, a->particles[i].y, a->particles[i].z};
            int full;
            sinew_attach_pin(at, i, x, &full);
        }
    sinew_result r = d->tethers ? plan_tethers(at, lg, a, w, d->tether_scale) : SINEW_RESULT_OK;
    free(w);
    if (r == SINEW_RESULT_OK && !(at->staging = malloc(sinew_attach_dynamic_bytes(at) + 16)))
        r = sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    return r;
}

void sinew_attach_free(sinew_attach *at)
{
    free(at->frames);
    free(at->pins);
    free(at->pin_of);
    free(at->attached);
    free(at->records);
    free(at->tethers);
    free(at->staging);
    memset(at, 0, sizeof *at);
}

void sinew_attach_masses(const sinew_attach *at, float *xyzw, uint32_t n)
{
    if (!at->on)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (at->attached[i] != SINEW_ATTACH_NONE && at->records[8 * at->attached[i] + 3] == 0.0f)
            xyzw[4 * i + 3] = 0.0f;
}

/* vec4 offsets of the regions */
static uint64_t pins_at(const sinew_attach *at) { return 4ull * at->frame_count; }
static uint64_t records_at(const sinew_attach *at) { return pins_at(at) + at->pin_capacity; }
static uint64_t targets_at(const sinew_attach *at) { return records_at(at) + 2ull * at->attachment_count; }
static uint64_t tethers_at(const sinew_attach *at) { return targets_at(at) + at->attachment_count; }

uint64_t sinew_attach_bytes(const sinew_attach *at)
{
    return at->on ? 16 * (tethers_at(at) + at->tether_count) : 0;
}

uint64_t sinew_attach_dynamic_bytes(const sinew_attach *at)
{
    return at->on ? 16 * records_at(at) : 0;
}

sinew_result sinew_attach_upload(const sinew_attach *at, sinew_context *ctx, sinew_buffer *buf)
{
    sinew_result r = SINEW_RESULT_OK;
    if (at->attachment_count)
        r = sinew_buffer_upload(ctx, buf, 16 * records_at(at), at->records, 32ull * at->attachment_count);
    if (r == SINEW_RESULT_OK && at->tether_count)
        r = sinew_buffer_upload(ctx, buf, 16 * tethers_at(at), at->tethers, 16ull * at->tether_count);
    return r;
}

sinew_result sinew_attach_check_frames(const sinew_attach *at, const sinew_logger *lg, const char *body,
                                       const sinew_frame *frames, uint32_t count)
{
    if (count == 0)
        return SINEW_RESULT_OK;
    if (!at->on || count != at->frame_count || !frames)
        return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                          "step parameters give %u frames%s; body '%s' has %u (0: they stay as last set)", count,
                          frames ? "" : " at NULL", body, at->on ? at->frame_count : 0);
    for (uint32_t f = 0; f < count; f++) {
        int fault = pose_fault(&frames[f]);
        if (fault)
            return sinew_fail(lg, SINEW_RESULT_ERROR_INVALID_ARGUMENT, "body",
                              "body '%s': step parameter frames[%u] %s", body, f,
                              fault == 1 ? "is not finite" : "has a rotation of length 0 (not a quaternion)");
    }
    return SINEW_RESULT_OK;
}

void sinew_attach_write(sinew_attach *at, const sinew_frame *frames)
{
    if (!at->on)
        return;
    float *dst = at->staging;
    for (uint32_t f = 0; f < at->frame_count; f++) {
        memcpy(&dst[16 * f], &at->frames[8 * f], 32);
        if (frames)
            store_pose(&at->frames[8 * f], &frames[f]);
        memcpy(&dst[16 * f + 8], &at->frames[8 * f], 32);
    }
    memcpy(&dst[4 * pins_at(at)], at->pins, 16ull * at->pin_capacity);
}

void sinew_attach_rolled_back(sinew_attach *at)
{
    if (!at->on)
        return;
    for (uint32_t f = 0; f < at->frame_count; f++)
        memcpy(&at->frames[8 * f], &at->staging[16 * f], 32);
}

void sinew_attach_record_substep(const sinew_attach *at, sinew_recorder *r, uint32_t substep, uint32_t substeps)
{
    if (!at->on || at->pin_capacity + at->attachment_count == 0)
        return;
    /* Pins keep their targets through the step and no solver moves them
     * (inverse mass 0), so without attachments the first substep places
     * them for the whole step. */
    if (substep > 0 && at->attachment_count == 0)
        return;
    GpuRange push = {(uint32_t)pins_at(at), at->pin_capacity, (uint32_t)records_at(at), at->attachment_count};
    push.slot_base = (uint32_t)targets_at(at);
    push.weight = substep + 1 == substeps ? 1.0f : (float)(substep + 1) / (float)substeps;
    sinew_record_dispatch(r, SINEW_KERNEL_ATTACH_SUBSTEP, at->pin_capacity + at->attachment_count, &push, sizeof push);
    sinew_record_barrier(r);
    /* pin: slot 16, position 16; attachment: record 32, two poses 64, target 16, position 16 */
    r->bytes += 32ull * at->pin_capacity + 128ull * at->attachment_count;
}

void sinew_attach_record_project(const sinew_attach *at, sinew_recorder *r)
{
    if (!at || !at->on || at->compliant_count + at->tether_count == 0)
        return;
    const uint32_t count = at->compliant_count ? at->attachment_count : 0;
    GpuRange push = {(uint32_t)records_at(at), count, (uint32_t)tethers_at(at), at->tether_count};
    push.slot_base = (uint32_t)targets_at(at);
    sinew_record_dispatch(r, SINEW_KERNEL_ATTACH_PROJECT, count + at->tether_count, &push, sizeof push);
    sinew_record_barrier(r);
    /* attachment: record 32, target 16 in and out, position 16 in and out; tether: 16, two positions, one out */
    r->bytes += 96ull * at->compliant_count + 64ull * at->tether_count;
}

void sinew_attach_pin(sinew_attach *at, uint32_t i, const float x[3], int *full)
{
    *full = 0;
    uint32_t s = at->pin_of[i];
    if (s == SINEW_ATTACH_NONE) {
        for (s = 0; s < at->pin_capacity && float_bits(at->pins[4 * s + 3]) != SINEW_ATTACH_NONE; s++)
            ;
        if (s == at->pin_capacity) {
            *full = 1;
            return;
        }
        at->pin_of[i] = s;
        at->pins[4 * s + 3] = bits_float(i);
        at->pin_count++;
    }
    memcpy(&at->pins[4 * s], x, 12);
}

void sinew_attach_unpin(sinew_attach *at, uint32_t i)
{
    uint32_t s = at->pin_of[i];
    if (s == SINEW_ATTACH_NONE)
        return;
    at->pins[4 * s + 3] = bits_float(SINEW_ATTACH_NONE);
    at->pin_of[i] = SINEW_ATTACH_NONE;
    at->pin_count--;
}

void sinew_attach_overlay(const sinew_attach *at, float *xyz, uint32_t stride)
{
    if (!at->on)
        return;
    for (uint32_t s = 0; s < at->pin_capacity; s++) {
        uint32_t i = float_bits(at->pins[4 * s + 3]);
        if (i != SINEW_ATTACH_NONE)
            memcpy(&xyz[(size_t)stride * i], &at->pins[4 * s], 12);
    }
}

void sinew_attach_translate(sinew_attach *at, const float by[3])
{
    if (!at->on)
        return;
    for (uint32_t f = 0; f < at->frame_count; f++)
        for (int k = 0; k < 3; k++)
            at->frames[8 * f + k] -= by[k];
    for (uint32_t s = 0; s < at->pin_capacity; s++)
        for (int k = 0; k < 3; k++)
            at->pins[4 * s + k] -= by[k];
}

sinew_result sinew_attach_grow(sinew_attach *at, const sinew_logger *lg, uint32_t capacity)
{
    float *pins = realloc(at->pins, 16 * ((size_t)capacity + 1));
    if (pins)
        at->pins = pins;
    float *staging = pins ? malloc(16 * (4ull * at->frame_count + capacity) + 16) : NULL;
    if (!staging)
        return sinew_fail(lg, SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY, "body", "out of host memory");
    for (uint32_t s = at->pin_capacity; s < capacity; s++) {
        pins[4 * s] = pins[4 * s + 1] = pins[4 * s + 2] = 0.0f;
        pins[4 * s + 3] = bits_float(SINEW_ATTACH_NONE);
    }
    free(at->staging);
    at->staging = staging;
    at->pin_capacity = capacity;
    return SINEW_RESULT_OK;
}
