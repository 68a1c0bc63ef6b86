#include "shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prep/mesh.h"
#include "prep/nested.h"

static shape from_mesh(const sinew_mesh *m)
{
    shape s = {0};
    if (sinew_mesh_triangle_arrays(m, &s.xyz, &s.triangles, &s.triangle_count) == SINEW_RESULT_OK)
        s.vertex_count = m->vertex_count;
    return s;
}

shape shape_icosphere(uint32_t subdivisions, double radius, const double centre[3])
{
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    double v[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                       {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    static uint32_t f[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                                {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                                {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    uint32_t offsets[21];
    for (int i = 0; i <= 20; i++)
        offsets[i] = 3 * i;
    sinew_mesh coarse = {12, &v[0][0], 20, offsets, &f[0][0]};
    sinew_nested n;
    shape s = {0};
    if (sinew_nested_subdivide(&coarse, subdivisions, NULL, &n) != SINEW_RESULT_OK)
        return s;
    sinew_mesh fine;
    if (sinew_nested_finest_mesh(&n, &fine) == SINEW_RESULT_OK) {
        for (uint32_t i = 0; i < fine.vertex_count; i++) {
            double *p = &fine.positions[3 * i];
            double len = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
            for (int k = 0; k < 3; k++)
                p[k] = centre[k] + radius * p[k] / len;
        }
        s = from_mesh(&fine);
        sinew_mesh_free(&fine);
    }
    sinew_nested_free(&n);
    return s;
}

double shape_sphere_sag(const shape *s, double radius)
{
    double sag = 0.0;
    for (uint32_t t = 0; t < s->triangle_count; t++) {
        double g[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                g[a] += s->xyz[3 * s->triangles[3 * t + k] + a] / 3.0;
        sag = fmax(sag, radius - sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]));
    }
    return sag;
}

sinew_collider *shape_ball_collider(sinew_context *ctx, uint32_t subdivisions, double radius, uint32_t resolution)
{
    const double centre[3] = {0, 0, 0};
    shape ball = shape_icosphere(subdivisions, radius, centre);
    sinew_collider_desc cd = shape_desc(&ball, resolution);
    sinew_collider *c = NULL;
    if (ball.vertex_count && sinew_collider_create(ctx, &cd, &c) != SINEW_RESULT_OK)
        c = NULL;
    shape_free(&ball);
    return c;
}

shape shape_read(const char *path)
{
    sinew_mesh m;
    shape s = {0};
    if (sinew_mesh_read(path, NULL, &m) != SINEW_RESULT_OK)
        return s;
    s = from_mesh(&m);
    sinew_mesh_free(&m);
    return s;
}

void shape_free(shape *s)
{
    free(s->xyz);
    free(s->triangles);
    memset(s, 0, sizeof *s);
}

sinew_collider_desc shape_desc(const shape *s, uint32_t resolution)
{
    sinew_collider_desc d = sinew_collider_desc_default();
    d.vertices = s->xyz;
    d.vertex_count = s->vertex_count;
    d.triangles = s->triangles;
    d.triangle_count = s->triangle_count;
    d.resolution = resolution;
    return d;
}

static void corner(const shape *s, uint32_t t, int c, double out[3])
{
    const float *v = &s->xyz[3 * s->triangles[3 * t + c]];
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
}

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Closest point on the segment, clamped projection. */
static double segment(const double *p, const double *a, const double *b)
{
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double dd = dot(d, d), t = dd > 0 ? dot(ap, d) / dd : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double r[3] = {ap[0] - t * d[0], ap[1] - t * d[1], ap[2] - t * d[2]};
    return sqrt(dot(r, r));
}

/* Distance to a triangle: to its plane when the foot lies inside it (by the
 * signs of the edge normals), else to its nearest edge: a second derivation,
 * independent of the library's. */
static double triangle(const double *p, const double *a, const double *b, const double *c)
{
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double nn = dot(n, n);
    if (nn > 0) {
        double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]}, h = dot(ap, n) / nn;
        double f[3] = {p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2]};
        const double *v[3] = {a, b, c};
        int in = 1;
        for (int k = 0; k < 3 && in; k++) {
            const double *u = v[k], *w = v[(k + 1) % 3];
            double e[3] = {w[0] - u[0], w[1] - u[1], w[2] - u[2]}, uf[3] = {f[0] - u[0], f[1] - u[1], f[2] - u[2]};
            double x[3] = {e[1] * uf[2] - e[2] * uf[1], e[2] * uf[0] - e[0] * uf[2], e[0] * uf[1] - e[1] * uf[0]};
            in = dot(x, n) >= 0;
        }
        if (in)
            return fabs(h) * sqrt(nn);
    }
    double d0 = segment(p, a, b), d1 = segment(p, b, c), d2 = segment(p, c, a);
    return fmin(d0, fmin(d1, d2));
}

double shape_distance(const shape *s, const double p[3])
{
    double best = INFINITY;
    for (uint32_t t = 0; t < s->triangle_count; t++) {
        double a[3], b[3], c[3];
        corner(s, t, 0, a);
        corner(s, t, 1, b);
        corner(s, t, 2, c);
        best = fmin(best, triangle(p, a, b, c));
    }
    return best;
}

/* Solid angle of each triangle seen from p (Van Oosterom and Strackee), summed:
 * +-4 pi inside a closed surface, 0 outside, whatever the winding's sign. */
int shape_inside(const shape *s, const double p[3])
{
    double total = 0.0;
    for (uint32_t t = 0; t < s->triangle_count; t++) {
        double a[3], b[3], c[3];
        corner(s, t, 0, a);
        corner(s, t, 1, b);
        corner(s, t, 2, c);
        for (int k = 0; k < 3; k++) {
            a[k] -= p[k];
            b[k] -= p[k];
            c[k] -= p[k];
        }
        double la = sqrt(dot(a, a)), lb = sqrt(dot(b, b)), lc = sqrt(dot(c, c));
        double bc[3] = {b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]};
        double num = dot(a, bc);
        double den = la * lb * lc + dot(a, b) * lc + dot(a, c) * lb + dot(b, c) * la;
        total += 2.0 * atan2(num, den);
    }
    return fabs(total) > 6.283185307179586;
}

sinew_mesh shape_mesh(const shape *s)
{
    sinew_mesh m = {s->vertex_count, malloc(sizeof(double) * 3 * s->vertex_count), s->triangle_count,
                    malloc(sizeof(uint32_t) * (s->triangle_count + 1)), malloc(sizeof(uint32_t) * 3 * s->triangle_count)};
    for (uint32_t i = 0; i < 3 * s->vertex_count; i++)
        m.positions[i] = s->xyz[i];
    for (uint32_t t = 0; t <= s->triangle_count; t++)
        m.face_offsets[t] = 3 * t;
    memcpy(m.face_indices, s->triangles, sizeof(uint32_t) * 3 * s->triangle_count);
    return m;
}
