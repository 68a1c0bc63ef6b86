#version 450
#extension GL_GOOGLE_include_directive : require
// One workgroup folds the residual partials into STATS: max and RMS strain.
// range.first = number of partials, range.count = number of constraints.
#include "common.glsl"

shared vec2 red[SINEW_WORKGROUP_SIZE];

void main()
{
    uint t = gl_LocalInvocationID.x;
    vec2 v = vec2(0.0);
    for (uint g = t; g < range.first; g += SINEW_WORKGROUP_SIZE)
        v = vec2(max(v.x, partial[g].x), v.y + partial[g].y);
    red[t] = v;
    barrier();
    for (uint s = SINEW_WORKGROUP_SIZE / 2; s > 0u; s >>= 1) {
        if (t < s)
            red[t] = vec2(max(red[t].x, red[t + s].x), red[t].y + red[t + s].y);
        barrier();
    }
    if (t == 0u) {
        stats.max_strain = red[0].x;
        stats.rms_strain = range.count > 0u ? sqrt(red[0].y / float(range.count)) : 0.0;
        stats.count = range.count;
    }
}
