// Shared by the kernels: included with `#include "common.glsl"` (glslc -I shaders/include).
#ifndef COMMON_GLSL
#define COMMON_GLSL

// A std140 uniform block: the vec3 is padded to 16 bytes, each `float` of the
// array takes a 16-byte stride, the mat2's columns a 16-byte stride.
struct Affine {
    mat2 m;
    vec2 t;
};

float weight(uint i, float w[4]) {
    return w[i % 4u];
}

#endif
