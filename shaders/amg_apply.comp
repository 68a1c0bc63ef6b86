#version 450
#extension GL_GOOGLE_include_directive : require
// MGPBD: one particle per invocation.
//   mode 0  the positions' change from the multipliers' dl (vector pc.x),
//           gathered over the particle's constraints (ADJ):
//           x_p += pc.a w_p sum over (c, slot) of grad_c(slot) dl_c   (omega = pc.a)
//   mode 1  the step's start (docs/math.md 1): prev = x; v += h g; x += h v
//           (h = pc.a, g = (pc.b, pc.c, pc.d); pinned particles keep still)
//   mode 2  the step's end: v = (x - prev) / h
//   mode 3  a line search's first trial: q_p = x_p (the base), q_{n+p} = dx_p
//           (mode 0's change without omega), x_p = q_p + pc.a dx_p
//   mode 4  a line search's next trial: x_p = q_p + pc.a q_{n+p}
#define SINEW_PUSH_AMG
#include "common.glsl"
#include "amg.glsl"

void main()
{
    if (!amg_open())
        return;
    uint p = linear_id();
    if (p >= pc.count)
        return;
    float w = pos[p].w;
    if (pc.mode == 1u) {
        prev[p] = pos[p];
        if (w != 0.0) {
            vec3 v = vel[p].xyz + pc.a * vec3(pc.b, pc.c, pc.d);
            vel[p].xyz = v;
            pos[p].xyz += pc.a * v;
        }
        return;
    }
    if (pc.mode == 2u) {
        vel[p].xyz = w != 0.0 ? (pos[p].xyz - prev[p].xyz) / pc.a : vec3(0.0);
        return;
    }
    uint n = amg_head(SINEW_AMG_PARTICLES);
    if (pc.mode == 4u) {
        pos[p].xyz = q[p].xyz + pc.a * q[n + p].xyz;
        return;
    }
    if (w == 0.0) {
        if (pc.mode == 3u) {
            q[p] = pos[p];
            q[n + p] = vec4(0.0);
        }
        return;
    }
    uint adj = amg_head(SINEW_AMG_ADJ), start = amg_head(SINEW_AMG_ADJ_START), grad = amg_head(SINEW_AMG_GRAD);
    vec3 dx = vec3(0.0);
    for (uint e = amg_i(start + p); e < amg_i(start + p + 1u); e++) {
        uint cs = amg_i(adj + e), c = cs >> 2u, g = grad + 12u * c + 3u * (cs & 3u);
        dx += amg_r(pc.x + c) * vec3(amg_r(g), amg_r(g + 1u), amg_r(g + 2u));
    }
    if (pc.mode == 3u) {
        q[p] = pos[p];
        q[n + p] = vec4(w * dx, 0.0);
    }
    pos[p].xyz += pc.a * w * dx;
}
