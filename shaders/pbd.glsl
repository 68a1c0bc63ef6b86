// The position-based solvers' own buffers (XPBD, GPBD, HPBD): set 1 at the
// bindings of shared/pbd.h.
#include "shared/pbd.h"

#define PBD(b) layout(std430, set = SINEW_SET_SOLVER, binding = SINEW_PBD_##b)
PBD(LAMBDA) buffer LambdaBuf { float lambda[]; };
PBD(DELTA) buffer DeltaBuf { vec4 delta[]; };
PBD(ADJ_START) readonly buffer AdjStartBuf { uint adj_start[]; };
PBD(ADJ) readonly buffer AdjBuf { uint adj[]; };
PBD(ZDISP) buffer ZBuf { vec4 zdisp[]; };
PBD(Q) buffer QBuf { vec4 q[]; };
PBD(HDIST) readonly buffer HDistBuf { GpuDistance hdist[]; };
PBD(HNODE) readonly buffer HNodeBuf { GpuNode hnode[]; };
PBD(HLINK) readonly buffer HLinkBuf { GpuLink hlink[]; };
PBD(CLUSTERS) readonly buffer ClusterBuf { uint cdata[]; };
#undef PBD
