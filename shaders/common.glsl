// Declarations shared by every kernel: the body's buffers (set 0, bindings of
// shared/layout.h), the push-constant range, and the linear invocation index.
// A solver's kernels add its own buffers (set 1): pbd.glsl, pd.glsl, mg.glsl,
// amg.glsl.
#include "shared/layout.h"

layout(local_size_x = SINEW_WORKGROUP_SIZE) in;

#define BODY(b) layout(std430, set = SINEW_SET_BODY, binding = SINEW_BIND_##b)
BODY(POS) buffer PosBuf { vec4 pos[]; };
BODY(PREV) buffer PrevBuf { vec4 prev[]; };
BODY(VEL) buffer VelBuf { vec4 vel[]; };
BODY(PARAMS) readonly buffer ParamsBuf { GpuParams params; };
BODY(STATS) buffer StatsBuf { GpuStats stats; };
BODY(PARTIAL) buffer PartialBuf { vec4 partial[]; };
BODY(DIST) readonly buffer DistBuf { GpuDistance dist[]; };
BODY(BEND) readonly buffer BendBuf { GpuBend bend[]; };
BODY(ANGLE) buffer AngleBuf { float angle[]; };
BODY(ELEM) readonly buffer ElemBuf { GpuElement elem[]; };
BODY(MATERIAL) readonly buffer MaterialBuf { GpuMaterial material[]; };
BODY(MESH) readonly buffer MeshBuf { uint mesh[]; };
BODY(NORMAL) buffer NormalBuf { vec4 normal[]; };
BODY(SDF) readonly buffer SdfBuf { float sdf[]; };
BODY(SELF_INDEX) buffer SelfIndexBuf { uint selfi[]; };
BODY(SELF_REAL) buffer SelfRealBuf { vec4 selfr[]; };
BODY(RENDER) buffer RenderBuf { vec4 render[]; };
BODY(SHAPES) buffer ShapesBuf { vec4 shape_data[]; };
BODY(ATTACH) buffer AttachBuf { vec4 attach[]; };
BODY(REST) buffer RestBuf { vec4 rest_state[]; };
#undef BODY

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
