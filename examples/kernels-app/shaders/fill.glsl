#version 450
// A `.glsl` file: compiled as a compute shader (-fshader-stage=compute).
layout(local_size_x = 32) in;
layout(constant_id = 0) const uint VALUE = 7u;
layout(set = 0, binding = 0) writeonly buffer Out { uint v[]; } o;
layout(push_constant) uniform P { uint n; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) {
        o.v[i] = VALUE + i;
    }
}
