#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// y[i] = scale * (A * x[i] + t) * w[i % 4] + bias, for i < n.
layout(local_size_x = 64) in;

// Function constant: whether to add `bias` (set at pipeline creation).
layout(constant_id = 1) const bool USE_BIAS = false;

layout(push_constant) uniform Push {
    uint n;
    float scale;
} pc;

layout(set = 0, binding = 0, std140) uniform Params {
    Affine affine;
    vec3 bias3;
    float weights[4];
} params;

layout(set = 0, binding = 1, std430) readonly buffer Input {
    vec2 x[];
} src;

layout(set = 0, binding = 2, std430) writeonly buffer Output {
    uint written;
    vec2 y[];
} dst;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
    vec2 v = pc.scale * (params.affine.m * src.x[i] + params.affine.t) * weight(i, params.weights);
    if (USE_BIAS) {
        v += params.bias3.xy;
    }
    dst.y[i] = v;
    if (i == 0u) {
        dst.written = pc.n;
    }
}
