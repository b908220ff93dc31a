// target-env: vulkan1.1
// A Workgroup array with a null initializer (OpVariable ... %null): every
// invocation reads its slot (zero, however often it runs), then writes a
// pattern and reads a neighbour's, so that the stores stay live. Needs
// ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory.
#version 450
#extension GL_EXT_null_initializer : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
shared uint wg[64] = {};
void main() {
    uint i = gl_LocalInvocationID.x;
    o.v[i] = wg[i];
    barrier();
    wg[i] = 0xdead0000u + i;
    barrier();
    o.v[64 + i] = wg[(i + 1) % 64];
}
