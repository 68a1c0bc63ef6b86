#version 450
#extension GL_GOOGLE_include_directive : require
// Launch-overhead probe: a dispatch that does nothing measurable.
#include "common.glsl"

void main()
{
    uint i = linear_id();
    if (i < range.count && range.first == 0xffffffffu)
        stats.newton = i; // never taken; keeps the kernel from being empty
}
