#version 450
#extension GL_GOOGLE_include_directive : require
// Self-collision: each item's candidate list for the step (mode QUERY of
// shared/selfcol.h), its kept and dropped candidates into the statistics.
#include "common.glsl"
#include "selfcol.glsl"
#include "selfcol_kernels.glsl"

void main()
{
    uint kept, dropped;
    query(linear_id(), kept, dropped);
    add_stats(kept, dropped, 0u);
}
