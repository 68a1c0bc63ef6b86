// Projective dynamics' own buffers: set 1 at the bindings of shared/pd.h.
#include "shared/pd.h"

#define PD(b) layout(std430, set = SINEW_SET_SOLVER, binding = SINEW_PD_##b)
PD(Q) buffer QBuf { vec4 q[]; };
PD(DELTA) buffer DeltaBuf { vec4 delta[]; };
PD(ADJ_START) readonly buffer AdjStartBuf { uint adj_start[]; };
PD(ADJ) readonly buffer AdjBuf { uint adj[]; };
PD(ORDER) readonly buffer OrderBuf { uint order[]; };
#undef PD
