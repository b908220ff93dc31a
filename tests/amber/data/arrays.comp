#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { vec4 v[]; } a[2];
layout(set = 0, binding = 1) buffer B { uint u[]; } b[2];
layout(set = 0, binding = 2) buffer C { uint u[]; } c;
layout(set = 0, binding = 3) uniform U { uvec4 u[4]; } uni;
layout(set = 0, binding = 4) buffer Out { float o[]; };
void main() {
    o[0] = a[0].v[0].x; o[1] = a[0].v[0].y; o[2] = a[0].v[0].z; o[3] = a[0].v[0].w;
    o[4] = a[0].v[1].x; o[5] = a[0].v[1].y; o[6] = a[0].v[1].z; o[7] = a[0].v[1].w;
    o[8] = float(floatBitsToUint(a[1].v[0].x));
    o[9] = float(floatBitsToUint(a[1].v[1].w));
    o[10] = float(b[0].u[0]);
    o[11] = float(b[1].u[7]);
    o[12] = float(b[0].u.length());
    o[13] = float(b[1].u.length());
    o[14] = float(c.u[0]);
    o[15] = float(uni.u[0].x);
}
