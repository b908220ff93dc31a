// target-env: vulkan1.1
// Per invocation: the subgroup size, the subgroup's id, and how many
// invocations of the subgroup are active (a ballot): v[4i..4i+3]. The x
// size is specialisation constant 0 (default 1).
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
    uint i = gl_LocalInvocationIndex;
    uvec4 ballot = subgroupBallot(true);
    o.v[4 * i] = gl_SubgroupSize;
    o.v[4 * i + 1] = gl_SubgroupID;
    o.v[4 * i + 2] = subgroupBallotBitCount(ballot);
    o.v[4 * i + 3] = gl_NumSubgroups;
}
