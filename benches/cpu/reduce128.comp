#version 450
// The CPU backend's barrier benchmark: a 128-thread shared-memory tree
// reduction with 8 barriers (fixtures/kernels/shared_memory.comp at 128).
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer In { float data[]; } inp;
layout(set = 0, binding = 1) writeonly buffer Out { float sums[]; } outp;
shared float tile[128];
void main() {
    uint lid = gl_LocalInvocationID.x;
    tile[lid] = inp.data[gl_GlobalInvocationID.x];
    barrier();
    for (uint stride = 64u; stride > 0u; stride >>= 1) {
        if (lid < stride) {
            tile[lid] += tile[lid + stride];
        }
        barrier();
    }
    if (lid == 0u) {
        outp.sums[gl_WorkGroupID.x] = tile[0];
    }
}
