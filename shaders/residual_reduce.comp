#version 450
#extension GL_GOOGLE_include_directive : require
// One workgroup folds the residual partials into STATS: max and RMS strain of
// the distance constraints, max and RMS measure error of the elements.
// range.first = number of partials, range.count = constraints, range.count2 =
// elements.
#include "common.glsl"

shared vec4 red[SINEW_WORKGROUP_SIZE];

void main()
{
    uint t = gl_LocalInvocationID.x;
    vec4 v = vec4(0.0);
    for (uint g = t; g < range.first; g += SINEW_WORKGROUP_SIZE)
        v = vec4(max(v.x, partial[g].x), v.y + partial[g].y, max(v.z, partial[g].z), v.w + partial[g].w);
    red[t] = v;
    barrier();
    for (uint s = SINEW_WORKGROUP_SIZE / 2; s > 0u; s >>= 1) {
        if (t < s)
            red[t] = vec4(max(red[t].x, red[t + s].x), red[t].y + red[t + s].y, max(red[t].z, red[t + s].z),
                          red[t].w + red[t + s].w);
        barrier();
    }
    if (t == 0u) {
        stats.max_strain = red[0].x;
        stats.rms_strain = range.count > 0u ? sqrt(red[0].y / float(range.count)) : 0.0;
        stats.count = range.count;
        stats.max_measure_error = red[0].z;
        stats.rms_measure_error = range.count2 > 0u ? sqrt(red[0].w / float(range.count2)) : 0.0;
        stats.element_count = range.count2;
    }
}
