#version 450
// Sampled images, samplers and texel buffers (vulkan-reference/tests/images.rs).
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) uniform texture2D t2;
layout(set = 0, binding = 2) uniform sampler s;
layout(set = 0, binding = 3) uniform samplerBuffer tb;
layout(set = 0, binding = 4, r32f) uniform imageBuffer ib;
layout(set = 0, binding = 5) buffer In { vec2 uv[8]; };
layout(set = 0, binding = 6) buffer Out { vec4 a[8]; vec4 b[8]; vec4 c[8]; };

void main() {
    uint i = gl_LocalInvocationID.x;
    a[i] = textureLod(tex, uv[i], 0.0);
    b[i] = textureLod(sampler2D(t2, s), uv[i], 0.0);
    c[i] = vec4(texelFetch(tex, ivec2(i % 2u, i / 4u), 1).g,
                texelFetch(tb, int(i)).r,
                imageLoad(ib, int(i)).r,
                float(textureSize(tex, 1).x));
    imageStore(ib, int(i), vec4(float(i) * 3.0));
}
