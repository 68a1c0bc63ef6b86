// Self-collision's geometry, shared by the self-collision kernels and
// collide.comp (which applies the corrections). docs/self-collision.md; the
// CPU reference is tests/ref/selfcol_ref.c. Included after common.glsl.
#include "shared/selfcol.h"

uint self_hdr(uint k) { return selfi[k]; }
float self_thickness() { return uintBitsToFloat(selfi[SINEW_SELF_THICKNESS]); }

// A particle's corrections from self-contacts this iteration: the mean of
// those of its slots' active contacts (0 when none).
vec3 self_correction(uint i)
{
    uint start = self_hdr(SINEW_SELF_INC_START), inc = self_hdr(SINEW_SELF_INC);
    uint delta = self_hdr(SINEW_SELF_REAL_DELTA);
    vec4 sum = vec4(0.0);
    for (uint k = selfi[start + i]; k < selfi[start + i + 1u]; k++)
        sum += selfr[delta + selfi[inc + k]];
    return sum.w > 0.0 ? sum.xyz / sum.w : vec3(0.0);
}
