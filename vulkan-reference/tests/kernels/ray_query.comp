// target-env: vulkan1.2
// One ray per invocation through the acceleration structure at (0, 0),
// reporting what a ray query commits and what it saw on the way.
#version 460
#extension GL_EXT_ray_query : require
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;

struct Ray {
    vec4 origin_tmin;
    vec4 direction_tmax;
    // x: cull mask, y: ray flags, z: confirm non-opaque triangle
    // candidates (0 or 1), w: the t at which box candidates are committed
    // (float bits; negative: none is).
    uvec4 control;
};
layout(set = 0, binding = 1, std430) readonly buffer Rays { Ray rays[]; };

struct Hit {
    uint kind;       // committed: 0 none, 1 triangle, 2 generated (box)
    float t;
    int custom_index;
    int instance_id;
    int geometry;
    int primitive;
    uint front_face; // triangles only
    uint sbt_offset;
    vec2 barycentrics; // triangles only
    uint candidates; // how many candidates the kernel saw
    uint candidate_kinds; // bit 0: a triangle, bit 1: a box
};
layout(set = 0, binding = 2, std430) writeonly buffer Hits { Hit hits[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    Ray r = rays[i];
    float box_t = uintBitsToFloat(r.control.w);
    float best = r.direction_tmax.w;
    rayQueryEXT q;
    rayQueryInitializeEXT(q, scene, r.control.y, r.control.x, r.origin_tmin.xyz,
                          r.origin_tmin.w, r.direction_tmax.xyz, r.direction_tmax.w);
    uint candidates = 0u;
    uint kinds = 0u;
    while (rayQueryProceedEXT(q)) {
        candidates += 1u;
        if (rayQueryGetIntersectionTypeEXT(q, false) ==
            gl_RayQueryCandidateIntersectionTriangleEXT) {
            kinds |= 1u;
            if (r.control.z != 0u) {
                rayQueryConfirmIntersectionEXT(q);
            }
        } else {
            kinds |= 2u;
            if (box_t >= r.origin_tmin.w && box_t <= best) {
                rayQueryGenerateIntersectionEXT(q, box_t);
                best = box_t;
            }
        }
    }
    Hit h;
    h.kind = rayQueryGetIntersectionTypeEXT(q, true);
    h.t = 0.0;
    h.custom_index = -1;
    h.instance_id = -1;
    h.geometry = -1;
    h.primitive = -1;
    h.front_face = 0u;
    h.sbt_offset = 0u;
    h.barycentrics = vec2(0.0);
    if (h.kind != gl_RayQueryCommittedIntersectionNoneEXT) {
        h.t = rayQueryGetIntersectionTEXT(q, true);
        h.custom_index = rayQueryGetIntersectionInstanceCustomIndexEXT(q, true);
        h.instance_id = rayQueryGetIntersectionInstanceIdEXT(q, true);
        h.geometry = rayQueryGetIntersectionGeometryIndexEXT(q, true);
        h.primitive = rayQueryGetIntersectionPrimitiveIndexEXT(q, true);
        h.sbt_offset = rayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetEXT(q, true);
    }
    if (h.kind == gl_RayQueryCommittedIntersectionTriangleEXT) {
        h.front_face = rayQueryGetIntersectionFrontFaceEXT(q, true) ? 1u : 0u;
        h.barycentrics = rayQueryGetIntersectionBarycentricsEXT(q, true);
    }
    h.candidates = candidates;
    h.candidate_kinds = kinds;
    hits[i] = h;
}
