#version 450
// y = a * x + y, then the activation; the workgroup size is a spec constant.
#include "activation.glsl"

layout(local_size_x = 64, local_size_x_id = 0) in;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Params { float a; uint n; } params;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < params.n) {
        y[i] = activate(params.a * x[i] + y[i]);
    }
}
