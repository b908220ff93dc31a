#version 450
// An array of two storage buffers at one binding (descriptor count 2), indexed by constants.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) readonly buffer Src { uint v[]; } src[2];
layout(set = 0, binding = 1) writeonly buffer Dst { uint v[]; } dst;
void main() {
    uint i = gl_GlobalInvocationID.x;
    dst.v[i] = src[0].v[i] * 10u + src[1].v[i];
}
