#version 450
// One partial sum per workgroup, through shared memory.
layout(local_size_x = 128) in;

layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint sums[]; };

shared uint partial[128];

void main() {
    uint l = gl_LocalInvocationID.x;
    partial[l] = values[gl_GlobalInvocationID.x];
    barrier();
    for (uint s = 64; s > 0; s >>= 1) {
        if (l < s) {
            partial[l] += partial[l + s];
        }
        barrier();
    }
    if (l == 0) {
        sums[gl_WorkGroupID.x] = partial[0];
    }
}
