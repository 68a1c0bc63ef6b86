// Declarations shared by every kernel: the body's buffers at the bindings of
// shared/layout.h, the push-constant range, and the linear invocation index.
#include "shared/layout.h"

layout(local_size_x = SINEW_WORKGROUP_SIZE) in;

layout(std430, binding = SINEW_BIND_POS) buffer PosBuf { vec4 pos[]; };
layout(std430, binding = SINEW_BIND_PREV) buffer PrevBuf { vec4 prev[]; };
layout(std430, binding = SINEW_BIND_VEL) buffer VelBuf { vec4 vel[]; };
layout(std430, binding = SINEW_BIND_DIST) readonly buffer DistBuf { GpuDistance dist[]; };
layout(std430, binding = SINEW_BIND_BEND) readonly buffer BendBuf { GpuBend bend[]; };
layout(std430, binding = SINEW_BIND_LAMBDA) buffer LambdaBuf { float lambda[]; };
layout(std430, binding = SINEW_BIND_DELTA) buffer DeltaBuf { vec4 delta[]; };
layout(std430, binding = SINEW_BIND_ADJ_START) readonly buffer AdjStartBuf { uint adj_start[]; };
layout(std430, binding = SINEW_BIND_ADJ) readonly buffer AdjBuf { uint adj[]; };
layout(std430, binding = SINEW_BIND_PARAMS) readonly buffer ParamsBuf { GpuParams params; };
layout(std430, binding = SINEW_BIND_PARTIAL) buffer PartialBuf { vec4 partial[]; };
layout(std430, binding = SINEW_BIND_STATS) buffer StatsBuf { GpuStats stats; };
layout(std430, binding = SINEW_BIND_ANGLE) buffer AngleBuf { float angle[]; };
layout(std430, binding = SINEW_BIND_ELEM) readonly buffer ElemBuf { GpuElement elem[]; };
layout(std430, binding = SINEW_BIND_ZDISP) buffer ZBuf { vec4 zdisp[]; };
layout(std430, binding = SINEW_BIND_MATERIAL) readonly buffer MaterialBuf { GpuMaterial material[]; };
layout(std430, binding = SINEW_BIND_Q) buffer QBuf { vec4 q[]; };
layout(std430, binding = SINEW_BIND_HDIST) readonly buffer HDistBuf { GpuDistance hdist[]; };
layout(std430, binding = SINEW_BIND_HNODE) readonly buffer HNodeBuf { GpuNode hnode[]; };
layout(std430, binding = SINEW_BIND_HLINK) readonly buffer HLinkBuf { GpuLink hlink[]; };
layout(std430, binding = SINEW_BIND_ORDER) readonly buffer OrderBuf { uint order[]; };
layout(std430, binding = SINEW_BIND_MESH) readonly buffer MeshBuf { uint mesh[]; };
layout(std430, binding = SINEW_BIND_NORMAL) buffer NormalBuf { vec4 normal[]; };
layout(std430, binding = SINEW_BIND_MG_INDEX) readonly buffer MgIndexBuf { uint mg_index[]; };
layout(std430, binding = SINEW_BIND_MG_REAL) buffer MgRealBuf { vec4 mg_real[]; };
layout(std430, binding = SINEW_BIND_SDF) readonly buffer SdfBuf { float sdf[]; };
layout(std430, binding = SINEW_BIND_AMG_INDEX) readonly buffer AmgIndex0 { uint amg_index0[]; };
layout(std430, binding = SINEW_BIND_AMG_INDEX + 1) readonly buffer AmgIndex1 { uint amg_index1[]; };
layout(std430, binding = SINEW_BIND_AMG_REAL) buffer AmgReal0 { float amg_real0[]; };
layout(std430, binding = SINEW_BIND_AMG_REAL + 1) buffer AmgReal1 { float amg_real1[]; };

// The MGPBD kernels (amg_*) define SINEW_PUSH_AMG: their push constants are
// GpuAmgPush, every other kernel's GpuRange.
#ifdef SINEW_PUSH_AMG
layout(push_constant) uniform Push { GpuAmgPush pc; };
#else
layout(push_constant) uniform Push { GpuRange range; };
#endif

// Dispatches larger than maxComputeWorkGroupCount.x spill into y.
uint linear_id()
{
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * SINEW_WORKGROUP_SIZE
         + gl_LocalInvocationID.x;
}

// llvmpipe (lavapipe) ends the loops of an invocation once they have run
// 65 535 iterations in all (one count shared by every loop of the shader;
// past it each loop makes a single pass), without a word. A loop of `two`
// passes (2, but not a constant the compiler could unroll) that makes only
// one says the invocation's loops were cut and its results are not to be
// trusted. A real GPU has no such limit, and the check costs two passes.
bool loops_intact(uint two)
{
    uint passes = 0u;
    for (uint q = 0u; q < two; q++)
        passes++;
    return passes == two;
}
