#version 450
// A kernel that does not fit the portable limits on four counts: 256
// invocations, 36 000 bytes of shared memory, 64-bit integers and a subgroup
// built-in. Compiled for test_portable's SPIR-V reader; never run.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_basic : require

layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Out { uint64_t out_values[]; };

shared float scratch[9000];

void main()
{
    uint i = gl_LocalInvocationIndex;
    scratch[i] = float(gl_SubgroupSize);
    barrier();
    out_values[gl_GlobalInvocationID.x] = uint64_t(scratch[(i + 1u) % 256u]);
}
