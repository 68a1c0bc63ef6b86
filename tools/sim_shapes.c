/* sinew-sim's collider list on the host: a rotation from an axis and an
 * angle, a shape moved on as the library's step moves it (shapes.comp), and
 * the signed distance the contacts use (contacts.glsl, shape_distance), for
 * --check-outside. */
#include <math.h>

#include "sim.h"

int sim_axis_angle(const double axis[3], double deg, float q[4])
{
    const double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    q[0] = q[1] = q[2] = 0.0f;
    q[3] = 1.0f;
    if (deg == 0.0)
        return 1;
    if (!(len > 0.0))
        return 0;
    const double half = 0.5 * deg * 3.14159265358979323846 / 180.0, s = sin(half) / len;
    for (int k = 0; k < 3; k++)
        q[k] = (float)(axis[k] * s);
    q[3] = (float)cos(half);
    return 1;
}

void sim_rotate(const float q[4], const float v[3], float out[3])
{
    /* v + 2 w (u x v) + 2 u x (u x v), u = q.xyz, w = q.w */
    const float u[3] = {q[0], q[1], q[2]}, w = q[3];
    const float t[3] = {2.0f * (u[1] * v[2] - u[2] * v[1]), 2.0f * (u[2] * v[0] - u[0] * v[2]),
                        2.0f * (u[0] * v[1] - u[1] * v[0])};
    out[0] = v[0] + w * t[0] + (u[1] * t[2] - u[2] * t[1]);
    out[1] = v[1] + w * t[1] + (u[2] * t[0] - u[0] * t[2]);
    out[2] = v[2] + w * t[2] + (u[0] * t[1] - u[1] * t[0]);
}

void sim_shape_advance(sinew_shape *s, float dt)
{
    for (int k = 0; k < 3; k++)
        s->position[k] += s->velocity[k] * dt;
    const float *w = s->angular_velocity;
    const double rate = sqrt((double)w[0] * w[0] + (double)w[1] * w[1] + (double)w[2] * w[2]);
    if (!(rate > 0.0))
        return;
    /* q(dt) = (sin(|w| dt / 2) w / |w|, cos(|w| dt / 2)) q, normalised */
    const double half = 0.5 * rate * dt, sn = sin(half) / rate;
    const double a[4] = {w[0] * sn, w[1] * sn, w[2] * sn, cos(half)};
    const double b[4] = {s->rotation[0], s->rotation[1], s->rotation[2], s->rotation[3]};
    double r[4] = {a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2],
                   a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    const double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++)
        s->rotation[k] = (float)(r[k] / len);
}

float sim_shape_distance(const sinew_shape *s, const float p[3], sinew_collider *const *meshes)
{
    /* p in the shape's frame: the inverse rotation of p - c */
    const float d[3] = {p[0] - s->position[0], p[1] - s->position[1], p[2] - s->position[2]};
    const float inverse[4] = {-s->rotation[0], -s->rotation[1], -s->rotation[2], s->rotation[3]};
    float l[3];
    sim_rotate(inverse, d, l);
    if (s->kind == SINEW_SHAPE_BOX) {
        float q[3], outside = 0.0f, most = -INFINITY;
        for (int k = 0; k < 3; k++) {
            q[k] = fabsf(l[k]) - s->half_extents[k];
            outside += q[k] > 0.0f ? q[k] * q[k] : 0.0f;
            most = fmaxf(most, q[k]);
        }
        return outside > 0.0f ? sqrtf(outside) : most;
    }
    if (s->kind == SINEW_SHAPE_MESH)
        return sinew_collider_distance(meshes[s->mesh], l, NULL);
    if (s->kind == SINEW_SHAPE_CAPSULE) { /* from the segment's nearest point */
        const float h = s->half_extents[1];
        l[1] -= l[1] < -h ? -h : l[1] > h ? h : l[1];
    }
    return sqrtf(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) - s->radius;
}
