#version 450
#extension GL_GOOGLE_include_directive : require
// One workgroup folds the residual partials into STATS: max and RMS strain of
// the distance constraints, max and RMS measure error of the elements.
// range.first = number of partials, range.count = constraints, range.count2 =
// elements. range.first2 > 0: first2 partials of the solver's residual
// follow (sums of squares in x, counts in y; solver.h, record_residual):
// its RMS is the step's residual.
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
    vec4 strain = red[0];
    barrier();
    vec4 w = vec4(0.0);
    for (uint g = t; g < range.first; g += SINEW_WORKGROUP_SIZE)
        w += partial[range.first + g];
    red[t] = w;
    barrier();
    for (uint s = SINEW_WORKGROUP_SIZE / 2; s > 0u; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        barrier();
    }
    // the imbalance's work over the loads': gravity's and inertia's
    vec4 works = red[0];
    float load = abs(works.y) + abs(works.z);
    if (range.first2 > 0u) { // uniform: every invocation takes this branch or none
        vec2 s = vec2(0.0);
        for (uint g = t; g < range.first2; g += SINEW_WORKGROUP_SIZE)
            s += partial[2u * range.first + g].xy;
        barrier();
        red[t] = vec4(s, 0.0, 0.0);
        barrier();
        for (uint h = SINEW_WORKGROUP_SIZE / 2; h > 0u; h >>= 1) {
            if (t < h)
                red[t].xy += red[t + h].xy;
            barrier();
        }
        if (t == 0u)
            stats.residual = red[0].y > 0.0 ? sqrt(red[0].x / red[0].y) : 0.0;
    }
    if (t == 0u) {
        stats.max_strain = strain.x;
        stats.rms_strain = range.count > 0u ? sqrt(strain.y / float(range.count)) : 0.0;
        stats.count = range.count;
        stats.max_measure_error = strain.z;
        stats.rms_measure_error = range.count2 > 0u ? sqrt(strain.w / float(range.count2)) : 0.0;
        stats.element_count = range.count2;
        stats.error = load > 0.0 ? abs(works.x + works.y - works.z) / load : 0.0;
    }
}
