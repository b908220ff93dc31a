#version 450
// Storage images of four formats and dimensionalities: load, store,
// read-modify-write, imageSize (vulkan-reference/tests/images.rs).
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(set = 0, binding = 2, rgba32i) uniform iimage3D vol;
layout(set = 0, binding = 3, r32ui) uniform uimage2DArray layers;
layout(set = 0, binding = 4) buffer Sizes { ivec4 sizes[3]; };

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    float v = imageLoad(src, p).r;
    // unorm8 stores round and clamp: the alpha (negative) becomes 0.
    imageStore(dst, p, vec4(v, v * 0.5, 1.0 - v, -v));
    ivec4 t = imageLoad(vol, ivec3(p, 1));
    imageStore(vol, ivec3(p, 1), t * 2 + ivec4(1, 2, 3, 4));
    uint l = imageLoad(layers, ivec3(p, 2)).r;
    imageStore(layers, ivec3(p, 0), uvec4(l + 7u));
    if (p == ivec2(0)) {
        sizes[0] = ivec4(imageSize(src), 0, 0);
        sizes[1] = ivec4(imageSize(vol), 0);
        sizes[2] = ivec4(imageSize(layers), 0);
    }
}
