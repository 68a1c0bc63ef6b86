#version 450
#extension GL_GOOGLE_include_directive : require
// The residual of the substep's compliant constraint system (docs/math.md 9)
// at the end of its iterations, as the change of each constraint one more
// projection would make: thread k < count is distance constraint k,
// r = w / (w + at) (C + at l) / L (a strain); the next count2 threads are the
// bends, r = D / (D + at) (C + at l) (rad), D = sum w |grad C|^2; at =
// alpha / h^2. Each workgroup writes the sum of r^2 over its constraints and
// their number, in a fixed tree order, to partial[first + group].xy.
// Constraints that cannot move (all ends pinned, or cut) are left out.
#include "common.glsl"
#include "reduce.glsl"
#include "pbd.glsl"
#include "constraints.glsl"

void main()
{
    uint k = linear_id();
    uint t = gl_LocalInvocationID.x;
    float r = 0.0, counted = 0.0;
    if (k < range.count) {
        GpuDistance d = dist[k];
        vec4 pa = pos[d.a], pb = pos[d.b];
        float w = pa.w + pb.w, at = d.compliance * params.inv_h2;
        if (d.a != d.b && w > 0.0 && d.rest > 0.0) {
            r = w / (w + at) * (length(pa.xyz - pb.xyz) - d.rest + at * lambda[k]) / d.rest;
            counted = 1.0;
        }
    } else if (k - range.count < range.count2) {
        uint c = k - range.count;
        GpuBend b = bend[c];
        vec4 p[4] = vec4[4](pos[b.v.x], pos[b.v.y], pos[b.v.z], pos[b.v.w]);
        float theta;
        vec3 g[4];
        if (p[0].w + p[1].w + p[2].w + p[3].w > 0.0 && hinge(p[0].xyz, p[1].xyz, p[2].xyz, p[3].xyz, theta, g)) {
            const float pi = 3.14159265358979;
            float d = theta - angle[c]; // the branch nearest the last projection's angle, as project_bend
            if (d > pi) d -= 2.0 * pi;
            if (d <= -pi) d += 2.0 * pi;
            float denom = 0.0, at = b.compliance * params.inv_h2;
            for (int j = 0; j < 4; j++)
                denom += p[j].w * dot(g[j], g[j]);
            r = denom / (denom + at) * (angle[c] + d - b.rest_angle + at * lambda[range.distance_total + c]);
            counted = 1.0;
        }
    }
    vec2 sum = workgroup_sum2(vec2(r * r, counted));
    if (t == 0u) {
        uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        partial[range.first + g] = vec4(sum, 0.0, 0.0);
    }
}
