#version 450
#extension GL_GOOGLE_include_directive : require
// Bandwidth probe: PREV[i] = POS[i], 16 bytes read and 16 written per thread.
#include "common.glsl"

void main()
{
    uint i = linear_id();
    if (i < range.count)
        prev[i] = pos[i];
}
