// target-env: vulkan1.1
// [[subgroup_uniform_control_flow]]: OpExtension
// "SPV_KHR_subgroup_uniform_control_flow" and the execution mode
// SubgroupUniformControlFlowKHR. Even subgroups diverge and elect one
// invocation; odd ones do not. v[i] = 1 for the elected invocation of an
// even subgroup, 2 for the others of an even subgroup, 3 in odd ones.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_subgroup_uniform_control_flow : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() [[subgroup_uniform_control_flow]] {
    uint i = gl_LocalInvocationID.x;
    if (gl_SubgroupID % 2 == 0) {
        o.v[i] = subgroupElect() ? 1u : 2u;
    } else {
        o.v[i] = 3u;
    }
}
