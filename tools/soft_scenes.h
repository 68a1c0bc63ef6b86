/* sinew-sim's soft-body scenes, after section 5.3 and Table 5 of "Towards
 * Generalized Position-Based Dynamics" (which replays the demos of Macklin and
 * Muller 2021): a cube dropped on the ground, a bar stretched, compressed or
 * twisted by its pinned end faces, and a block started flattened or from
 * random positions that must recover its rest shape. Each is a box of
 * tetrahedra built in memory (sinew_volume_box + sinew_soft_build).
 *
 * Also the host-side measures of a tetrahedral body: volume error per
 * tetrahedron |V/V0 - 1| (max, RMS), total volume error, inverted tetrahedra
 * and the largest Green strain, from positions read back and the asset's
 * tetrahedra. docs/gpbd-scenes.md describes the scenes and the results.
 *
 * Header-only, for sinew-sim (its options and its runs). */
#ifndef SINEW_TOOLS_SOFT_SCENES_H
#define SINEW_TOOLS_SOFT_SCENES_H

#include <sinew/sinew.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prep/soft.h"
#include "prep/volume.h"
#include "core/log.h" /* sinew_fail */

typedef enum soft_scene_kind {
    SCENE_CLOTH = 0, /* the default: not a soft body */
    SCENE_CUBE_DROP,
    SCENE_BAR_STRETCH,
    SCENE_BAR_COMPRESS,
    SCENE_BAR_TWIST,
    SCENE_BLOCK_FLAT,
    SCENE_BLOCK_RANDOM,
    SCENE_COUNT
} soft_scene_kind;

/* What a scene is and the settings it runs with unless options say otherwise. */
typedef struct soft_scene_def {
    const char *name;
    unsigned cells;        /* vertices per side (the paper's size) */
    double size[3];        /* m */
    double dt;             /* s */
    unsigned substeps, iterations, frames;
    double youngs;         /* Pa */
    double poisson;
    int gravity;           /* 1: -9.81 m/s^2 along y */
    int ground;            /* 1: the plane y = 0 */
    double damping;        /* 1/s */
} soft_scene_def;

/* The paper: 26^3 vertices for the cube impact; bars of 16^3 (stretch, twist)
 * and 21^3 (compress) vertices at dt = 1 ms for 2 s; blocks of 21^3 vertices
 * at dt = 10 ms for 2 s with 6 (flat) and 8 (random) GPBD iterations. */
static const soft_scene_def soft_scenes[SCENE_COUNT] = {
    [SCENE_CLOTH] = {"cloth", 64, {1.6, 0, 1.6}, 1.0 / 60.0, 16, 1, 240, 0, 0, 1, 1, 0},
    [SCENE_CUBE_DROP] = {"cube-drop", 26, {1, 1, 1}, 1.0 / 60.0, 4, 3, 120, 1e6, 0.45, 1, 1, 0},
    [SCENE_BAR_STRETCH] = {"bar-stretch", 16, {2, 1, 1}, 1e-3, 1, 3, 2000, 1e6, 0.45, 0, 0, 0},
    [SCENE_BAR_COMPRESS] = {"bar-compress", 21, {2, 1, 1}, 1e-3, 1, 3, 2000, 1e6, 0.45, 0, 0, 0},
    [SCENE_BAR_TWIST] = {"bar-twist", 16, {2, 1, 1}, 1e-3, 1, 3, 2000, 1e6, 0.45, 0, 0, 0},
    [SCENE_BLOCK_FLAT] = {"block-flat", 21, {1, 1, 1}, 1e-2, 1, 6, 200, 1e6, 0.45, 0, 0, 2},
    [SCENE_BLOCK_RANDOM] = {"block-random", 21, {1, 1, 1}, 1e-2, 1, 8, 200, 1e6, 0.45, 0, 0, 2},
};

static inline int soft_scene_is_bar(int s) { return s == SCENE_BAR_STRETCH || s == SCENE_BAR_COMPRESS || s == SCENE_BAR_TWIST; }

/* The scene's box, scaled by `scale` (1: the sizes above), with its material; bars pinned at both end faces (x = min
 * and x = max), whose vertex indices go to *pins (malloc'd, *pin_count). The
 * cube sits with its bottom 0.5 m above the ground; the others are centred on
 * the origin. */
static inline sinew_result soft_scene_build(int scene, unsigned cells, double scale, sinew_material_model model, double youngs,
                                     double poisson, const sinew_logger *lg, sinew_asset **out, uint32_t **pins,
                                     uint32_t *pin_count, sinew_soft_report *rep)
{
    const soft_scene_def *d = &soft_scenes[scene];
    const double size[3] = {scale * d->size[0], scale * d->size[1], scale * d->size[2]};
    double origin[3] = {0.0, scene == SCENE_CUBE_DROP ? 0.5 + 0.5 * size[1] : 0.0, 0.0};
    sinew_volume v;
    *pins = NULL;
    *pin_count = 0;
    const uint64_t vertices = (uint64_t)cells * cells * cells, tets = 6ull * (cells - 1) * (cells - 1) * (cells - 1);
    if (vertices > SINEW_VOLUME_MAX_VERTICES || tets > SINEW_VOLUME_MAX_TETS)
        return sinew_fail(lg, SINEW_RESULT_ERROR_LIMIT, "prep",
                          "%s: %u^3 vertices are %llu vertices and %llu tetrahedra, past the limits of %u and %u",
                          d->name, cells, (unsigned long long)vertices, (unsigned long long)tets,
                          SINEW_VOLUME_MAX_VERTICES, SINEW_VOLUME_MAX_TETS);
    sinew_result r = sinew_volume_box(cells, cells, cells, size, origin, &v);
    if (r != SINEW_RESULT_OK)
        return r;
    sinew_soft_options opt = sinew_soft_options_default();
    opt.model = model;
    opt.youngs_modulus = youngs;
    opt.poisson_ratio = poisson;
    opt.source_name = d->name;
    if (soft_scene_is_bar(scene)) {
        uint32_t *p = malloc(2ull * cells * cells * sizeof *p);
        if (!p) {
            sinew_volume_free(&v);
            return SINEW_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        uint32_t n = 0;
        for (uint32_t k = 0; k < cells; k++)
            for (uint32_t j = 0; j < cells; j++) {
                p[n++] = (k * cells + j) * cells;             /* i = 0 */
                p[n++] = (k * cells + j) * cells + cells - 1; /* i = cells - 1 */
            }
        opt.pin_indices = p;
        opt.pin_count = n;
        *pins = p;
        *pin_count = n;
    }
    r = sinew_soft_build(&v, &opt, lg, out, rep);
    sinew_volume_free(&v);
    if (r != SINEW_RESULT_OK) {
        free(*pins);
        *pins = NULL;
        *pin_count = 0;
    }
    return r;
}

/* Smooth ramp 0 -> 1 over [0, 1], zero slope at both ends. */
static inline double soft_ramp(double t)
{
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return t * t * (3.0 - 2.0 * t);
}

/* Where a bar's pinned vertices go at ramp value s in [0, 1]: stretch and
 * compress scale the end faces' x (about the centre) from 1 to `scale`; twist
 * turns the x = max face about the bar's axis by s * turns whole turns (the
 * x = min face stays). rest: the particles' rest positions. */
static inline void soft_bar_pins(int scene, double s, double scale, double turns, const float *rest, const uint32_t *pins,
                          uint32_t pin_count, float x_max, float *xyz)
{
    for (uint32_t k = 0; k < pin_count; k++) {
        const float *p = &rest[3 * pins[k]];
        double x = p[0], y = p[1], z = p[2];
        if (scene == SCENE_BAR_TWIST) {
            if (p[0] == x_max) {
                double a = 6.283185307179586 * turns * s, c = cos(a), sn = sin(a);
                double ry = c * y - sn * z, rz = sn * y + c * z;
                y = ry, z = rz;
            }
        } else {
            x *= 1.0 + (scale - 1.0) * s;
        }
        xyz[3 * k] = (float)x, xyz[3 * k + 1] = (float)y, xyz[3 * k + 2] = (float)z;
    }
}

/* Start positions of the block scenes: flattened (every y at the bottom) or
 * uniformly random in the block's bounding box (most tetrahedra inverted). */
static inline void soft_block_start(int scene, const float *rest, uint32_t n, unsigned seed, float *xyz)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++)
        for (int q = 0; q < 3; q++) {
            lo[q] = fminf(lo[q], rest[3 * i + q]);
            hi[q] = fmaxf(hi[q], rest[3 * i + q]);
        }
    uint64_t state = 0x9e3779b97f4a7c15ull ^ seed;
    for (uint32_t i = 0; i < n; i++)
        for (int q = 0; q < 3; q++) {
            float v = rest[3 * i + q];
            if (scene == SCENE_BLOCK_FLAT) {
                v = q == 1 ? lo[1] : v;
            } else {
                state = state * 6364136223846793005ull + 1442695040888963407ull; /* PCG's LCG step */
                double u = (double)(state >> 11) / 9007199254740992.0;
                v = (float)(lo[q] + u * (hi[q] - lo[q]));
            }
            xyz[3 * i + q] = v;
        }
}

/* ------------------------------------------------------------------ measures */

typedef struct soft_measure {
    uint32_t tet_count;
    uint32_t *tets;     /* 4 per tetrahedron */
    double *inv_rest;   /* Dm^-1 per tetrahedron, 9 each (row-major) */
    double *rest_volume;
    double total_rest_volume;
} soft_measure;

typedef struct soft_shape {
    double max_error, rms_error; /* |V/V0 - 1| over tetrahedra */
    double total_error;          /* |sum V / sum V0 - 1| */
    double max_green;            /* largest entry of |F^T F - I| / 2 */
    uint32_t inverted;           /* V <= 0 */
    int finite;                  /* every position finite */
} soft_shape;

static inline void soft_measure_free(soft_measure *m)
{
    free(m->tets);
    free(m->inv_rest);
    free(m->rest_volume);
    memset(m, 0, sizeof *m);
}

static inline double soft_det3(const double *a)
{
    return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
}

/* Edge matrix D = [p1-p0, p2-p0, p3-p0] as columns, row-major. */
static inline void soft_edges(const float *xyz, const uint32_t *t, double *D)
{
    for (int c = 0; c < 3; c++)
        for (int q = 0; q < 3; q++)
            D[3 * q + c] = (double)xyz[3 * t[c + 1] + q] - (double)xyz[3 * t[0] + q];
}

/* Rest shapes from the positions at creation. 0 when out of memory or a rest
 * tetrahedron is degenerate. */
static inline int soft_measure_init(soft_measure *m, const sinew_asset *asset, const float *rest)
{
    memset(m, 0, sizeof *m);
    m->tet_count = sinew_asset_get_info(asset).tet_count;
    m->tets = malloc(4ull * m->tet_count * sizeof *m->tets + 1);
    m->inv_rest = malloc(9ull * m->tet_count * sizeof *m->inv_rest + 1);
    m->rest_volume = malloc((size_t)m->tet_count * sizeof *m->rest_volume + 1);
    if (!m->tets || !m->inv_rest || !m->rest_volume) {
        soft_measure_free(m);
        return 0;
    }
    sinew_asset_get_tets(asset, m->tets);
    for (uint32_t e = 0; e < m->tet_count; e++) {
        double D[9], *I = &m->inv_rest[9 * e];
        soft_edges(rest, &m->tets[4 * e], D);
        double det = soft_det3(D);
        if (!(det > 0.0)) {
            soft_measure_free(m);
            return 0;
        }
        I[0] = (D[4] * D[8] - D[5] * D[7]) / det, I[1] = (D[2] * D[7] - D[1] * D[8]) / det,
        I[2] = (D[1] * D[5] - D[2] * D[4]) / det;
        I[3] = (D[5] * D[6] - D[3] * D[8]) / det, I[4] = (D[0] * D[8] - D[2] * D[6]) / det,
        I[5] = (D[2] * D[3] - D[0] * D[5]) / det;
        I[6] = (D[3] * D[7] - D[4] * D[6]) / det, I[7] = (D[1] * D[6] - D[0] * D[7]) / det,
        I[8] = (D[0] * D[4] - D[1] * D[3]) / det;
        m->rest_volume[e] = det / 6.0;
        m->total_rest_volume += det / 6.0;
    }
    return 1;
}

static inline soft_shape soft_measure_shape(const soft_measure *m, const float *xyz, uint32_t particle_count)
{
    soft_shape s = {0};
    s.finite = 1;
    for (uint32_t i = 0; i < 3 * particle_count; i++)
        s.finite &= isfinite(xyz[i]) != 0;
    double sum_sq = 0.0, volume = 0.0;
    for (uint32_t e = 0; e < m->tet_count; e++) {
        double D[9], F[9];
        soft_edges(xyz, &m->tets[4 * e], D);
        double V = soft_det3(D) / 6.0;
        double err = fabs(V / m->rest_volume[e] - 1.0);
        volume += V;
        sum_sq += err * err;
        /* NaN compares false: a non-finite error counts as the worst. */
        s.max_error = !(err <= s.max_error) ? err : s.max_error;
        s.inverted += !(V > 0.0);
        const double *I = &m->inv_rest[9 * e];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                F[3 * r + c] = D[3 * r] * I[c] + D[3 * r + 1] * I[3 + c] + D[3 * r + 2] * I[6 + c];
        for (int a = 0; a < 3; a++)
            for (int b = a; b < 3; b++) {
                double c = F[a] * F[b] + F[3 + a] * F[3 + b] + F[6 + a] * F[6 + b];
                double g = 0.5 * fabs(c - (a == b));
                s.max_green = !(g <= s.max_green) ? g : s.max_green;
            }
    }
    s.rms_error = m->tet_count ? sqrt(sum_sq / m->tet_count) : 0.0;
    s.total_error = fabs(volume / m->total_rest_volume - 1.0);
    return s;
}

#endif
