//! Validation before any SPIRV-Cross call: limits, halc's own checks on
//! execution models and capabilities, then SPIRV-Tools' validator in-process.
//!
//! SPIRV-Cross aborts or segfaults on about a quarter of mutated modules;
//! every crasher we measured is rejected by the validator (NOTES.md). The
//! module is validated in native byte order, after `Words` swapped a
//! big-endian input, so SPIRV-Tools' own big-endian bugs never block valid
//! input.

use spirv_tools::TargetEnv;

use std::collections::HashSet;

use super::nesting::FunctionCfg;
use super::spec_indices::{
    is_value_op, SpecIndices, COMPOSITE_EXTRACT as OP_COMPOSITE_EXTRACT,
    COMPOSITE_INSERT as OP_COMPOSITE_INSERT, VECTOR_SHUFFLE as OP_VECTOR_SHUFFLE,
};
use super::{SpirvError, Words};

pub use crate::model::Limits;

const OP_CAPABILITY: u16 = 17;
const OP_EXTENSION: u16 = 10;

/// Why an untested capability or extension is refused.
const UNTESTED: &str = "not among the capabilities and extensions halc has tested end to end, so halc refuses it rather than emit MSL nobody has checked (the list is in the README)";

/// A capability's SPIR-V name (its number when unknown).
fn capability_name(cap: u32) -> String {
    match rspirv::spirv::Capability::from_u32(cap) {
        Some(c) => format!("{c:?}"),
        None => format!("{cap} (unknown capability)"),
    }
}

/// A nul-terminated literal string packed little-endian into words.
fn literal_string(words: &[u32]) -> String {
    String::from_utf8_lossy(&super::binary::literal_bytes(words)).into_owned()
}
const OP_ENTRY_POINT: u16 = 15;
const OP_LOOP_MERGE: u16 = 246;
const OP_SELECTION_MERGE: u16 = 247;
const OP_FUNCTION: u16 = 54;
const OP_FUNCTION_END: u16 = 56;
const OP_TYPE_POINTER: u16 = 32;
const OP_TYPE_FORWARD_POINTER: u16 = 39;
const OP_TYPE_UNTYPED_POINTER: u16 = 4417;
const OP_SPEC_CONSTANT_OP: u16 = 52;

const OP_VARIABLE: u16 = 59;
const OP_DECORATE: u16 = 71;
const OP_MEMBER_DECORATE: u16 = 72;

/// Capabilities halc accepts: each is exercised by a fixture in
/// `fixtures/kernels/` whose MSL is snapshot-checked in both binding models
/// (the table in `fixtures/kernels/README.md` says which). Anything else is
/// refused before SPIRV-Cross runs: SPIRV-Cross translates some capabilities
/// into MSL that does not compile or silently computes something else
/// (`WorkgroupMemoryExplicitLayoutKHR` gives MSL with undeclared
/// identifiers), so halc never emits MSL for a construct nobody has checked.
const TESTED_CAPABILITIES: &[(u32, &str)] = &[
    (1, "Shader"),
    (9, "Float16"),
    (11, "Int64"),
    (22, "Int16"),
    // Vulkan feature declarations only (arrays of uniform or storage
    // buffers indexed by a dynamically uniform value), which halc's layout
    // already binds (tests/amber/buffer_array_dynamic_indexing.amber).
    (28, "UniformBufferArrayDynamicIndexing"),
    (30, "StorageBufferArrayDynamicIndexing"),
    // Cube-map arrays, storage and sampled (fixtures/kernels/cube_arrays.comp,
    // run by halc diff against lavapipe).
    (34, "ImageCubeArray"),
    (39, "Int8"),
    (44, "Image1D"),
    (45, "SampledCubeArray"),
    (46, "SampledBuffer"),
    (47, "ImageBuffer"),
    (49, "StorageImageExtendedFormats"),
    (50, "ImageQuery"),
    // A Metal texture carries its format (fixtures/kernels/image_kinds.comp,
    // tests/amber/image_read_without_format.amber).
    (55, "StorageImageReadWithoutFormat"),
    (56, "StorageImageWriteWithoutFormat"),
    (61, "GroupNonUniform"),
    (62, "GroupNonUniformVote"),
    (63, "GroupNonUniformArithmetic"),
    (64, "GroupNonUniformBallot"),
    (65, "GroupNonUniformShuffle"),
    (66, "GroupNonUniformShuffleRelative"),
    (67, "GroupNonUniformClustered"),
    (68, "GroupNonUniformQuad"),
    // GL_ARB_shader_ballot and GL_ARB_shader_group_vote: the same SIMD-group
    // functions as the GroupNonUniform forms (tests/amber/subgroup_ballot_khr.amber).
    (4423, "SubgroupBallotKHR"),
    (4431, "SubgroupVoteKHR"),
    (4433, "StorageBuffer16BitAccess"),
    (4434, "UniformAndStorageBuffer16BitAccess"),
    (4435, "StoragePushConstant16"),
    (4448, "StorageBuffer8BitAccess"),
    (4449, "UniformAndStorageBuffer8BitAccess"),
    (4450, "StoragePushConstant8"),
    // The execution mode of that name, for 16- and 32-bit floats: halc's
    // default math mode (safe, `-fno-fast-math`) keeps signed zeros,
    // infinities and NaNs, and a build with fast math refuses the kernel
    // (`driver::entry`; tests/amber/float_controls.amber).
    (4466, "SignedZeroInfNanPreserve"),
    // The execution mode of that name, for 16- and 32-bit floats: Metal
    // rounds arithmetic and conversions to nearest even (correctly rounded
    // in safe math; a build with fast math refuses the kernel), and
    // SPIRV-Cross writes nothing for it (tests/amber/rounding_rte.amber).
    (4467, "RoundingModeRTE"),
    (4441, "VariablePointersStorageBuffer"),
    (4442, "VariablePointers"),
    (5345, "VulkanMemoryModel"),
    // Ray queries (SPV_KHR_ray_query, GLSL GL_EXT_ray_query) from MSL 2.4
    // on (`driver::entry` refuses older targets): SPIRV-Cross's
    // `intersection_query<instancing, triangle_data>`, the acceleration
    // structure a binding of its own (fixtures/kernels/ray_query.comp). The
    // instructions whose MSL is wrong, missing or unchecked are refused by
    // `RAY_QUERY_REFUSED` below.
    (4472, "RayQueryKHR"),
    // Declared beside `RayQueryKHR` by some compute kernels (DXC, hand
    // assembly, SPIRV-Cross's `ray-query-function-object` test): in a
    // compute kernel it can only bring the ray-tracing stages' instructions,
    // storage classes and built-ins, which `RAY_TRACING_STAGES_ONLY` and the
    // checks below refuse; without `RayQueryKHR` it is a ray-tracing
    // pipeline's module, refused (`RAY_TRACING_PIPELINES`).
    (4479, "RayTracingKHR"),
    // The SkipTriangles and SkipAABBs ray flags (GL_EXT_ray_flags_primitive_culling):
    // SPIRV-Cross's `spvMakeIntersectionParams` maps them to Metal's
    // `set_geometry_cull_mode`, from constants or from data
    // (tests/amber/ray_query_culling.amber).
    (4478, "RayTraversalPrimitiveCullingKHR"),
    // Buffer device addresses: `device T*` in the MSL, given by the host as
    // `gpuAddress` and made resident with `reach`
    // (fixtures/kernels/buffer_reference.comp, run on the CPU and by halc
    // diff against lavapipe).
    (5347, "PhysicalStorageBufferAddresses"),
    // OpExpectKHR and OpAssumeTrueKHR: SPIRV-Cross's `SPV_EXPECT` is an
    // expression of its operand's type with halc's patch 0008
    // (tests/amber/expect_assume.amber).
    (5629, "ExpectAssumeKHR"),
    // OpSDot, OpUDot, OpSUDot and their *AccSat forms, on vectors and on
    // packed 4x8-bit integers: SPIRV-Cross writes `reduce_add` of the
    // widened products and MSL's `addsat`
    // (tests/amber/integer_dot_product.amber).
    (6016, "DotProductInputAll"),
    (6017, "DotProductInput4x8Bit"),
    (6018, "DotProductInput4x8BitPacked"),
    (6019, "DotProduct"),
    // `atomic_fetch_add_explicit` on `atomic_float`, in device and
    // threadgroup memory: MSL 3.0 and newer (older versions are refused
    // after SPIRV-Cross, see `msl::check::float_atomic`).
    (6033, "AtomicFloat32AddEXT"),
    // Descriptor indexing (GL_EXT_nonuniform_qualifier): arrays of
    // buffers, images, texel buffers and samplers indexed by any value,
    // runtime-sized ones given their element count by the binding map.
    // Metal indexes its arrays of buffer pointers and of textures and
    // samplers by any value, and SPIRV-Cross's MSL for a NonUniform index
    // is that of any other index (MoltenVK, on the same SPIRV-Cross,
    // exposes every one of these features on Metal); each kind runs on the
    // CPU and on lavapipe (tests/amber/descriptor_indexing.amber).
    (29, "SampledImageArrayDynamicIndexing"),
    (31, "StorageImageArrayDynamicIndexing"),
    (5301, "ShaderNonUniform"),
    (5302, "RuntimeDescriptorArray"),
    (5304, "UniformTexelBufferArrayDynamicIndexing"),
    (5305, "StorageTexelBufferArrayDynamicIndexing"),
    (5306, "UniformBufferArrayNonUniformIndexing"),
    (5307, "SampledImageArrayNonUniformIndexing"),
    (5308, "StorageBufferArrayNonUniformIndexing"),
    (5309, "StorageImageArrayNonUniformIndexing"),
    (5311, "UniformTexelBufferArrayNonUniformIndexing"),
    (5312, "StorageTexelBufferArrayNonUniformIndexing"),
];

/// Extensions halc accepts: those the tested capabilities need.
const TESTED_EXTENSIONS: &[&str] = &[
    "SPV_KHR_16bit_storage",
    "SPV_KHR_8bit_storage",
    "SPV_EXT_shader_atomic_float_add",
    "SPV_KHR_expect_assume",
    // Only with the capabilities above: SignedZeroInfNanPreserve and
    // RoundingModeRTE. The other float controls (denormals, round toward
    // zero) stay refused by capability.
    "SPV_KHR_float_controls",
    "SPV_KHR_integer_dot_product",
    // Declares the VariablePointers capabilities (core from SPIR-V 1.3)
    // for older modules (tests/amber/variable_pointers_khr.amber).
    "SPV_KHR_variable_pointers",
    // Decorations only, which SPIRV-Cross ignores: UserSemantic strings,
    // HlslCounterBufferGOOGLE, UserTypeGOOGLE
    // (tests/amber/hlsl_decorations.amber).
    "SPV_GOOGLE_hlsl_functionality1",
    "SPV_GOOGLE_user_type",
    "SPV_KHR_shader_ballot",
    "SPV_KHR_storage_buffer_storage_class",
    // Only the `SubgroupUniformControlFlowKHR` execution mode: a promise
    // that lanes in uniform control flow are converged, which Metal's SIMD
    // groups (and the CPU backend's) keep without being asked; SPIRV-Cross
    // emits nothing for it (tests/amber/subgroup_uniform_control_flow.amber).
    "SPV_KHR_subgroup_uniform_control_flow",
    "SPV_KHR_subgroup_vote",
    "SPV_KHR_vulkan_memory_model",
    "SPV_KHR_physical_storage_buffer",
    // With the RayQueryKHR capability, which says what is admitted.
    "SPV_KHR_ray_query",
    // Declared by a compute kernel with ray queries that also declares
    // `RayTracingKHR` (below).
    "SPV_KHR_ray_tracing",
    "SPV_EXT_physical_storage_buffer",
    // The descriptor-indexing capabilities above, for SPIR-V before 1.5.
    "SPV_EXT_descriptor_indexing",
];

/// Capabilities Metal (or SPIRV-Cross's MSL backend) cannot honour, with why.
const UNSUPPORTED: &[(u32, &str, &str)] = &[
    (4, "Addresses", "physical addressing is OpenCL-only"),
    (
        5,
        "Linkage",
        "linkage (unlinked modules) is not supported: link the module first",
    ),
    (
        6,
        "Kernel",
        "OpenCL `Kernel` modules are not supported: halc compiles Vulkan GLCompute shaders",
    ),
    (
        10,
        "Float64",
        "Metal has no 64-bit floating point (MSL has no `double`) and halc does not emulate it: compute in 32-bit `float` instead (in GLSL: no `double`, `dvec`, `dmat` or `lf` literal)",
    ),
    (12, "Int64Atomics", "Metal has no general 64-bit atomics"),
    (
        4471,
        "RayQueryProvisionalKHR",
        "the provisional ray-query capability (SPV_KHR_ray_query before its release) has other opcodes and semantics than RayQueryKHR, and SPIRV-Cross translates only the released form: rebuild the kernel with a current compiler (GL_EXT_ray_query gives RayQueryKHR)",
    ),
    (
        5340,
        "RayTracingNV",
        "ray tracing is not supported by halc's Metal backend",
    ),
    (
        5391,
        "RayQueryPositionFetchKHR",
        "a ray query cannot read a hit triangle's vertex positions on Metal (MSL's intersection_query has no such query, and SPIRV-Cross translates none of OpRayQueryGetIntersectionTriangleVertexPositionsKHR): read them from the vertex buffer by the primitive index instead",
    ),
    (5055, "ShaderClockKHR", "Metal has no shader clock"),
    (
        18,
        "Groups",
        "SPIRV-Cross's MSL backend translates none of the Groups instructions (`// unimplemented op`, or GLSL names MSL lacks): halc takes them only through its rewrite of Subgroup-scope ones to GroupNonUniform instructions (`spirv::groups::rewrite_groups`), which `halc compile` runs before these checks",
    ),
    // SPV_KHR_float_controls beyond SignedZeroInfNanPreserve: SPIRV-Cross
    // writes nothing for these modes, and MSL has no way to ask for them.
    (
        4464,
        "DenormPreserve",
        "the DenormPreserve execution mode (SPV_KHR_float_controls) cannot be honoured: the Metal Shading Language leaves it to the GPU whether 32-bit denormals are flushed to zero, and a kernel cannot ask for them to be kept",
    ),
    (
        4465,
        "DenormFlushToZero",
        "the DenormFlushToZero execution mode (SPV_KHR_float_controls) cannot be honoured: the Metal Shading Language leaves it to the GPU whether denormals are flushed (16-bit ones are kept), and a kernel cannot ask for it",
    ),
    (
        4468,
        "RoundingModeRTZ",
        "the RoundingModeRTZ execution mode (SPV_KHR_float_controls) cannot be honoured: MSL has no way to set a rounding mode (SPIRV-Cross writes nothing for it), and Metal rounds float arithmetic to nearest even",
    ),
    (
        5346,
        "VulkanMemoryModelDeviceScope",
        "device-scope availability and visibility under the Vulkan memory model: SPIRV-Cross's MSL marks no coherence for them, so another threadgroup could read a stale value",
    ),
    (
        6022,
        "CooperativeMatrixKHR",
        "cooperative matrices are not supported by SPIRV-Cross's MSL backend",
    ),
    (
        5357,
        "CooperativeMatrixNV",
        "cooperative matrices are not supported by SPIRV-Cross's MSL backend",
    ),
    (
        5353,
        "FragmentShaderSampleInterlockEXT",
        "not a compute capability",
    ),
];

/// Ray-query instructions whose MSL is wrong or missing in SPIRV-Cross's
/// `CompilerMSL`, or that halc cannot check, with why. The others map to
/// `intersection_query` methods one to one (docs/guide/accepts.md has the
/// table).
const RAY_QUERY_REFUSED: &[(u16, &str, &str)] = &[
    (
        4447,
        "OpConvertUToAccelerationStructureKHR",
        "Metal cannot make an acceleration structure from a 64-bit address (SPIRV-Cross refuses it too): bind the acceleration structure as a descriptor",
    ),
    (
        6021,
        "OpRayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR",
        "Metal's intersection_query has no shader-binding-table record offset (SPIRV-Cross refuses it too)",
    ),
];

/// Why halc refuses a module of a ray-tracing pipeline.
const RAY_TRACING_PIPELINES: &str = "ray tracing pipelines (raygen, hit, miss, callable stages) are not supported by halc, which compiles compute kernels: use ray queries (GL_EXT_ray_query) from a compute kernel";

/// Instructions of the ray-tracing stages (SPV_KHR_ray_tracing), refused
/// in any module: a compute kernel cannot use them.
const RAY_TRACING_STAGES_ONLY: &[(u16, &str)] = &[
    (4445, "OpTraceRayKHR"),
    (4446, "OpExecuteCallableKHR"),
    (4448, "OpIgnoreIntersectionKHR"),
    (4449, "OpTerminateRayKHR"),
    (5334, "OpReportIntersectionKHR"),
];

/// Whether `class` is a storage class of the ray-tracing stages (ray
/// payloads, hit attributes, callable data, the shader record).
fn ray_tracing_storage_class(class: u32) -> bool {
    matches!(class, 5328 | 5329 | 5338 | 5339 | 5342 | 5343)
}

/// Whether `builtin` is a built-in of the ray-tracing stages (launch ids,
/// the incoming ray, the hit).
fn ray_tracing_builtin(builtin: u32) -> bool {
    matches!(builtin, 5319..=5335 | 5351 | 5352 | 6021)
}

const OP_TYPE_RAY_QUERY: u16 = 4472;
const OP_RAY_QUERY_INITIALIZE: u16 = 4473;
const OP_TYPE_ARRAY: u16 = 28;
const OP_TYPE_RUNTIME_ARRAY: u16 = 29;

/// Why constant ray flags break one of Vulkan's rules for
/// `OpRayQueryInitializeKHR` (VUID-RuntimeSpirv-OpRayQueryInitializeKHR-06889,
/// -06890, -06891), if they do. Within these rules SPIRV-Cross's
/// `spvMakeIntersectionParams` calls each of Metal's `intersection_params`
/// setters (opacity forced, triangle cull mode, opacity cull mode, geometry
/// cull mode) at most once, so the flags translate whole.
fn forbidden_ray_flags(flags: u64) -> Option<&'static str> {
    const OPAQUE: u64 = 0x1;
    const NO_OPAQUE: u64 = 0x2;
    const CULL_BACK: u64 = 0x10;
    const CULL_FRONT: u64 = 0x20;
    const CULL_OPAQUE: u64 = 0x40;
    const CULL_NO_OPAQUE: u64 = 0x80;
    const SKIP_TRIANGLES: u64 = 0x100;
    const SKIP_AABBS: u64 = 0x200;
    let count = |mask: u64| (flags & mask).count_ones();
    if flags & (SKIP_TRIANGLES | SKIP_AABBS) == SKIP_TRIANGLES | SKIP_AABBS {
        Some("hold both SkipTriangles and SkipAABBs (VUID-RuntimeSpirv-OpRayQueryInitializeKHR-06889)")
    } else if count(SKIP_TRIANGLES | CULL_BACK | CULL_FRONT) > 1 {
        Some("hold more than one of SkipTriangles, CullBackFacingTriangles and CullFrontFacingTriangles (VUID-RuntimeSpirv-OpRayQueryInitializeKHR-06890)")
    } else if count(OPAQUE | NO_OPAQUE | CULL_OPAQUE | CULL_NO_OPAQUE) > 1 {
        Some("hold more than one of Opaque, NoOpaque, CullOpaque and CullNoOpaque (VUID-RuntimeSpirv-OpRayQueryInitializeKHR-06891)")
    } else {
        None
    }
}

/// Target environment matching the module's SPIR-V version.
pub fn target_env(version: (u8, u8)) -> TargetEnv {
    match version {
        (1, 0) => TargetEnv::Vulkan_1_0,
        // Vulkan 1.0 takes SPIR-V 1.0 only: 1.1 and 1.2 modules are Vulkan
        // 1.1's (the validator refused them as Vulkan 1.0's).
        (1, 1..=3) => TargetEnv::Vulkan_1_1,
        (1, 4) => TargetEnv::Vulkan_1_1_Spirv_1_4,
        (1, 5) => TargetEnv::Vulkan_1_2,
        _ => TargetEnv::Vulkan_1_3,
    }
}

/// Checks limits, execution models and capabilities, then runs the
/// SPIR-V validator. `Ok` means SPIRV-Cross may see the module.
pub fn validate(words: &Words, limits: &Limits) -> Result<(), SpirvError> {
    check(words, limits)?;
    spirv_tools(words)
}

/// halc's own checks, linear in the module size: limits, execution models
/// and capabilities. They run before anything else sees the module.
pub fn check(words: &Words, limits: &Limits) -> Result<(), SpirvError> {
    let bytes = words.as_slice().len() * 4;
    if bytes > limits.max_bytes {
        return Err(SpirvError::Limit(format!(
            "module is {bytes} bytes, over halc's limit of {} bytes",
            limits.max_bytes
        )));
    }
    if words.bound() > limits.max_id_bound {
        return Err(SpirvError::Limit(format!(
            "id bound {} exceeds halc's limit of {}",
            words.bound(),
            limits.max_id_bound
        )));
    }
    let mut count = 0usize;
    let mut merges = 0usize;
    let mut has_entry = false;
    let mut function: Option<FunctionCfg> = None;
    // Pointer types, and the constants whose type is one.
    let mut pointer_types: HashSet<u32> = HashSet::new();
    let mut pointer_values: HashSet<u32> = HashSet::new();
    let mut spec_indices = SpecIndices::default();
    let mut memory = MemoryModelCheck::default();
    let mut ray_query_types: HashSet<u32> = HashSet::new();
    // `RayQueryKHR` declared; where `RayTracingKHR` is.
    let mut ray_query = false;
    let mut ray_tracing: Option<usize> = None;
    for inst in words.instructions() {
        let inst = inst?;
        memory.see(&inst, &spec_indices)?;
        if let Err(why) = spec_indices.see(&inst) {
            return Err(SpirvError::Unsupported(format!(
                "OpSpecConstantOp (word {}): {why} (SPIRV-Tools' validator does not bound these indices; SPIRV-Cross uses them unchecked and emits a wrong value or crashes)",
                inst.offset
            )));
        }
        if let Some(f) = function.as_mut() {
            f.push(&inst);
        }
        // Module-level values a spec-constant operation could name (undef,
        // constants, spec constants, variables), `words[1]` their type.
        if (is_value_op(inst.opcode) || inst.opcode == OP_VARIABLE)
            && inst.words.len() >= 3
            && pointer_types.contains(&inst.words[1])
        {
            pointer_values.insert(inst.words[2]);
        }
        count += 1;
        if count > limits.max_instructions {
            return Err(SpirvError::Limit(format!(
                "more than {} instructions",
                limits.max_instructions
            )));
        }
        if let Some((_, name, why)) = RAY_QUERY_REFUSED
            .iter()
            .find(|(op, _, _)| *op == inst.opcode)
        {
            return Err(SpirvError::Unsupported(format!(
                "{name} (word {}): {why}",
                inst.offset
            )));
        }
        if let Some((_, name)) = RAY_TRACING_STAGES_ONLY
            .iter()
            .find(|(op, _)| *op == inst.opcode)
        {
            return Err(SpirvError::Unsupported(format!(
                "{name} (word {}): an instruction of the ray-tracing stages; {RAY_TRACING_PIPELINES}",
                inst.offset
            )));
        }
        match inst.opcode {
            // Ray flags that Vulkan forbids (VUID-RuntimeSpirv-
            // OpRayQueryInitializeKHR-06889, -06890, -06891: both skips; more
            // than one of SkipTriangles and the two facing culls; more than
            // one of the four opacity flags) are undefined behaviour. Valid
            // flags call each of `spvMakeIntersectionParams`'s Metal setters
            // at most once, so they translate; constant flags that break a
            // rule are refused here, since the ray is wrong whatever the
            // target (flags from data are the caller's to keep valid, as on
            // Vulkan).
            OP_RAY_QUERY_INITIALIZE if inst.words.len() >= 4 => {
                if let Some(flags) = spec_indices.constant(inst.words[3]) {
                    if let Some(why) = forbidden_ray_flags(flags) {
                        return Err(SpirvError::Unsupported(format!(
                            "OpRayQueryInitializeKHR (word {}): constant ray flags {flags:#x} {why}, which Vulkan forbids (the ray is undefined behaviour on any device): give it valid flags",
                            inst.offset
                        )));
                    }
                }
            }
            OP_TYPE_RAY_QUERY if inst.words.len() >= 2 => {
                ray_query_types.insert(inst.words[1]);
            }
            OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY
                if inst.words.len() >= 3 && ray_query_types.contains(&inst.words[2]) =>
            {
                // `ray_queries::rewrite_ray_queries` splits every array of
                // ray queries it takes, or refuses it, before this check.
                return Err(SpirvError::Unsupported(format!(
                    "{} (word {}): the rewrite left an array of ray queries, which SPIRV-Cross declares as an array of MSL intersection_query objects that Metal's compiler has not been shown to accept (SPIRV-Cross's own test of it is marked .invalid, its MSL unchecked, since issue #1781): use one ray query variable per query",
                    super::op_name(inst.opcode),
                    inst.offset
                )));
            }
            OP_TYPE_POINTER | OP_TYPE_FORWARD_POINTER | OP_TYPE_UNTYPED_POINTER
                if inst.words.len() >= 2 =>
            {
                if inst.words.len() >= 3 && ray_tracing_storage_class(inst.words[2]) {
                    return Err(SpirvError::Unsupported(format!(
                        "{} (word {}): storage class {} is the ray-tracing stages'; {RAY_TRACING_PIPELINES}",
                        super::op_name(inst.opcode),
                        inst.offset,
                        inst.words[2]
                    )));
                }
                pointer_types.insert(inst.words[1]);
            }
            // BuiltIn (11) on an id or a member.
            OP_DECORATE | OP_MEMBER_DECORATE => {
                let at = if inst.opcode == OP_DECORATE { 2 } else { 3 };
                if inst.words.get(at) == Some(&11)
                    && inst
                        .words
                        .get(at + 1)
                        .is_some_and(|b| ray_tracing_builtin(*b))
                {
                    return Err(SpirvError::Unsupported(format!(
                        "{} (word {}): BuiltIn {} is the ray-tracing stages'; {RAY_TRACING_PIPELINES}",
                        super::op_name(inst.opcode),
                        inst.offset,
                        inst.words[at + 1]
                    )));
                }
            }
            OP_SPEC_CONSTANT_OP if inst.words.len() >= 4 => {
                let w = inst.words;
                // Operand ids; composite and shuffle operations end with
                // literal indices.
                let ids = match w[3] {
                    OP_COMPOSITE_EXTRACT => &w[4..w.len().min(5)],
                    OP_VECTOR_SHUFFLE | OP_COMPOSITE_INSERT => &w[4..w.len().min(6)],
                    _ => &w[4..],
                };
                if pointer_types.contains(&w[1]) || ids.iter().any(|i| pointer_values.contains(i)) {
                    return Err(SpirvError::Unsupported(format!(
                        "OpSpecConstantOp (word {}): spec-constant arithmetic on pointers is not supported (SPIRV-Cross aborts on it)",
                        inst.offset
                    )));
                }
            }
            OP_CAPABILITY if inst.words.len() >= 2 => {
                let cap = inst.words[1];
                match cap {
                    4472 => ray_query = true,
                    4479 => ray_tracing = ray_tracing.or(Some(inst.offset)),
                    _ => {}
                }
                if let Some((_, name, why)) = UNSUPPORTED.iter().find(|(c, _, _)| *c == cap) {
                    return Err(SpirvError::Unsupported(format!(
                        "OpCapability {name} (word {}): {why}",
                        inst.offset
                    )));
                }
                if !TESTED_CAPABILITIES.iter().any(|(c, _)| *c == cap) {
                    return Err(SpirvError::Unsupported(format!(
                        "OpCapability {} (word {}): {UNTESTED}",
                        capability_name(cap),
                        inst.offset
                    )));
                }
            }
            OP_EXTENSION => {
                let name = literal_string(&inst.words[1..]);
                if !TESTED_EXTENSIONS.contains(&name.as_str()) {
                    return Err(SpirvError::Unsupported(format!(
                        "OpExtension \"{name}\" (word {}): {UNTESTED}",
                        inst.offset
                    )));
                }
            }
            OP_ENTRY_POINT if inst.words.len() >= 2 => {
                has_entry = true;
                if inst.words[1] == 6 {
                    return Err(SpirvError::Unsupported(format!(
                        "OpEntryPoint Kernel (word {}): OpenCL `Kernel` entry points are not supported: halc compiles Vulkan GLCompute shaders",
                        inst.offset
                    )));
                }
            }
            OP_FUNCTION => {
                merges = 0;
                function = Some(FunctionCfg::default());
            }
            OP_FUNCTION_END => {
                if let Some(f) = function.take() {
                    check_nesting(&f, limits)?;
                }
            }
            OP_LOOP_MERGE | OP_SELECTION_MERGE => {
                merges += 1;
                if merges > limits.max_merges_per_function {
                    return Err(SpirvError::Limit(format!(
                        "a function has more than {} structured merges (word {})",
                        limits.max_merges_per_function, inst.offset
                    )));
                }
            }
            _ => {}
        }
    }
    if let Some(offset) = ray_tracing.filter(|_| !ray_query) {
        return Err(SpirvError::Unsupported(format!(
            "OpCapability RayTracingKHR (word {offset}): {RAY_TRACING_PIPELINES}"
        )));
    }
    if !has_entry {
        return Err(SpirvError::Unsupported("module has no entry point".into()));
    }
    Ok(())
}

/// Under the Vulkan memory model, coherence is a property of each access
/// and barrier (`MakePointerAvailable`, `NonPrivatePointer`, semantics),
/// not of a `Coherent` decoration. SPIRV-Cross writes nothing for them in
/// MSL: right within a threadgroup, where `threadgroup_barrier` orders
/// device memory, but not across threadgroups, for which MSL needs
/// `volatile` or MSL 3.2's `coherent(device)` (which SPIRV-Cross emits for
/// the GLSL450 model's `Coherent`). So, in a module with `OpMemoryModel
/// Vulkan`, availability, visibility and ordering of other memory are
/// accepted at workgroup, subgroup and invocation scope, and refused wider.
#[derive(Default)]
struct MemoryModelCheck {
    vulkan: bool,
}

const OP_MEMORY_MODEL: u16 = 14;
const OP_LOAD: u16 = 61;
const OP_STORE: u16 = 62;
const OP_COPY_MEMORY: u16 = 63;
const OP_COPY_MEMORY_SIZED: u16 = 64;
const OP_CONTROL_BARRIER: u16 = 224;
const OP_MEMORY_BARRIER: u16 = 225;
/// `OpAtomicLoad` .. `OpAtomicXor`, each `[type, id, pointer, scope,
/// semantics, ...]` except `OpAtomicStore` (`[pointer, scope, semantics,
/// value]`).
const OP_ATOMIC_STORE: u16 = 228;
const ATOMICS: std::ops::RangeInclusive<u16> = 227..=242;
const OP_ATOMIC_FLOAT: [u16; 3] = [6035, 5614, 5615];

/// Whether some barrier or atomic of the module could order memory
/// accesses between workgroups: one wider than a workgroup (or whose scope
/// is no constant) with Acquire, Release, AcquireRelease or
/// SequentiallyConsistent semantics (or semantics that are no constant).
/// Without one, Vulkan's memory model gives two workgroups' conflicting
/// plain accesses no order whatever atomics they do: relaxed atomics
/// synchronise nothing. `halc diff` tells the CPU backend's race check so
/// (`cpu::GroupOrder`).
pub fn may_order_across_workgroups(words: &Words) -> Result<bool, SpirvError> {
    const ORDERS: u32 = 0x2 | 0x4 | 0x8 | 0x10;
    let mut constants = SpecIndices::default();
    for inst in words.instructions() {
        let inst = inst?;
        // A spec-constant operation the checks refuse was refused before.
        let _ = constants.see(&inst);
        let Some((_, scope, semantics)) = barrier_or_atomic(&inst, &constants) else {
            continue;
        };
        if !scope.is_some_and(within_threadgroup) && semantics.is_none_or(|s| s & ORDERS != 0) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Scopes no wider than a threadgroup: Workgroup, Subgroup, Invocation.
fn within_threadgroup(scope: u32) -> bool {
    matches!(scope, 2..=4)
}

fn scope_name(scope: Option<u32>) -> String {
    match scope {
        Some(0) => "CrossDevice scope".into(),
        Some(1) => "Device scope".into(),
        Some(5) => "QueueFamily scope".into(),
        Some(6) => "ShaderCallKHR scope".into(),
        Some(s) => format!("scope {s}"),
        None => "a scope that is no constant".into(),
    }
}

impl MemoryModelCheck {
    /// Takes one instruction of the module, in order; `constants` has seen
    /// the instructions before it (scopes and semantics are constant ids).
    fn see(
        &mut self,
        inst: &super::binary::RawInstruction<'_>,
        constants: &SpecIndices,
    ) -> Result<(), SpirvError> {
        let w = inst.words;
        if inst.opcode == OP_MEMORY_MODEL && w.len() >= 3 {
            self.vulkan = w[2] == 3;
        }
        if !self.vulkan {
            return Ok(());
        }
        if let Some((what, scope, semantics)) = barrier_or_atomic(inst, constants) {
            return ordering(inst, scope, semantics, what);
        }
        let c = |id: u32| constant_u32(constants, id);
        match inst.opcode {
            OP_LOAD => operands(inst, w.get(4..), c),
            OP_STORE | OP_COPY_MEMORY => operands(inst, w.get(3..), c),
            OP_COPY_MEMORY_SIZED => operands(inst, w.get(4..), c),
            _ => Ok(()),
        }
    }
}

/// The value of integer constant `id`, if it is one that fits 32 bits.
fn constant_u32(constants: &SpecIndices, id: u32) -> Option<u32> {
    constants
        .int_constant(id)
        .and_then(|v| u32::try_from(v).ok())
}

/// A barrier's or an atomic's kind (`"a barrier"`, `"an atomic"`), memory
/// scope and memory semantics (each `None` when it is no constant), for
/// `OpControlBarrier`, `OpMemoryBarrier` and the atomic instructions.
fn barrier_or_atomic(
    inst: &super::binary::RawInstruction<'_>,
    constants: &SpecIndices,
) -> Option<(&'static str, Option<u32>, Option<u32>)> {
    let w = inst.words;
    let c = |id: u32| constant_u32(constants, id);
    match inst.opcode {
        OP_CONTROL_BARRIER if w.len() >= 4 => Some(("a barrier", c(w[2]), c(w[3]))),
        OP_MEMORY_BARRIER if w.len() >= 3 => Some(("a barrier", c(w[1]), c(w[2]))),
        OP_ATOMIC_STORE if w.len() >= 4 => Some(("an atomic", c(w[2]), c(w[3]))),
        op if (ATOMICS.contains(&op) || OP_ATOMIC_FLOAT.contains(&op)) && w.len() >= 6 => {
            Some(("an atomic", c(w[4]), c(w[5])))
        }
        _ => None,
    }
}

fn refuse(inst: &super::binary::RawInstruction<'_>, what: String) -> SpirvError {
    SpirvError::Unsupported(format!(
        "{} (word {}): {what} under the Vulkan memory model: SPIRV-Cross's MSL marks no coherence for it (it does for the GLSL450 model's `coherent`), so another threadgroup could read a stale value",
        super::op_name(inst.opcode),
        inst.offset
    ))
}

/// Memory operands (one or two sets, for a copy): the scopes of
/// `MakePointerAvailable` (0x8) and `MakePointerVisible` (0x10).
fn operands(
    inst: &super::binary::RawInstruction<'_>,
    ops: Option<&[u32]>,
    constant: impl Fn(u32) -> Option<u32>,
) -> Result<(), SpirvError> {
    let mut ops = ops.unwrap_or(&[]);
    while let Some((&mask, rest)) = ops.split_first() {
        let mut rest = rest;
        if mask & 0x2 != 0 {
            rest = rest.get(1..).unwrap_or(&[]); // Aligned's literal
        }
        for (bit, name) in [(0x8, "MakePointerAvailable"), (0x10, "MakePointerVisible")] {
            if mask & bit != 0 {
                let scope = rest.first().and_then(|id| constant(*id));
                if !scope.is_some_and(within_threadgroup) {
                    return Err(refuse(inst, format!("{name} at {}", scope_name(scope))));
                }
                rest = rest.get(1..).unwrap_or(&[]);
            }
        }
        ops = rest;
    }
    Ok(())
}

/// A barrier's or atomic's scope and semantics (constant values): ordering,
/// availability or visibility of uniform or image memory is refused beyond
/// a threadgroup. A relaxed atomic is coherent on its own.
fn ordering(
    inst: &super::binary::RawInstruction<'_>,
    scope: Option<u32>,
    semantics: Option<u32>,
    what: &str,
) -> Result<(), SpirvError> {
    if scope.is_some_and(within_threadgroup) {
        return Ok(());
    }
    // Acquire, Release, AcquireRelease, SequentiallyConsistent,
    // MakeAvailable, MakeVisible; over UniformMemory or ImageMemory.
    const ORDERS: u32 = 0x2 | 0x4 | 0x8 | 0x10 | 0x2000 | 0x4000;
    const DEVICE_MEMORY: u32 = 0x40 | 0x800;
    match semantics {
        Some(s) if s & ORDERS == 0 || s & DEVICE_MEMORY == 0 => Ok(()),
        Some(_) => Err(refuse(
            inst,
            format!(
                "{what} that makes device memory available or visible at {}",
                scope_name(scope)
            ),
        )),
        None => Err(refuse(
            inst,
            format!("{what} whose memory semantics are no constant"),
        )),
    }
}

fn check_nesting(f: &FunctionCfg, limits: &Limits) -> Result<(), SpirvError> {
    match f.deepest() {
        Ok(Some(d)) if d.depth > limits.max_nesting_depth => Err(SpirvError::Limit(format!(
            "structured control flow nested {} deep (block at word {}), over halc's limit of {}",
            d.depth, d.offset, limits.max_nesting_depth
        ))),
        Ok(_) => Ok(()),
        Err(e) => Err(SpirvError::Limit(format!(
            "control flow too irregular to analyse (function starting at word {})",
            e.offset
        ))),
    }
}

/// SPIRV-Tools' validator (C++), in the Vulkan environment that matches the
/// module's version. Its running time grows steeply with structured nesting
/// (measured: a 1000-deep `if` chain takes about a minute), so the CLI runs
/// it in the worker process under a time limit (see [`crate::msl::worker`]).
pub fn spirv_tools(words: &Words) -> Result<(), SpirvError> {
    // Most modules are valid: validate without the names that only make a
    // message readable, and validate again with them to word a failure.
    if accepts_without_names(words) {
        return Ok(());
    }
    let env = target_env(words.version());
    let (msg, index) = match run_validator(words, true) {
        Ok(()) => return Ok(()),
        Err(failure) => failure,
    };
    // One line: the validator puts details (ids, the instruction) on
    // following lines.
    let msg = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    Err(SpirvError::Validation(match index {
        Some(i) if i > 0 => format!("{msg} (instruction {i}; validated as {env:?})"),
        _ => format!("{msg} (validated as {env:?})"),
    }))
}

extern "C" {
    // Part of SPIRV-Tools' C API (libspirv.h), compiled by spirv-tools-sys,
    // which does not declare them.
    fn spvValidatorOptionsSetFriendlyNames(
        options: *mut spirv_tools_sys::val::ValidatorOptions,
        val: bool,
    );
    fn spvValidatorOptionsSetAllowLocalSizeId(
        options: *mut spirv_tools_sys::val::ValidatorOptions,
        val: bool,
    );
}

/// Whether SPIRV-Tools' validator accepts the module, without "friendly
/// names": for its messages, the validator names every id of the module
/// from its debug names and types before it starts, a fifth of its time on
/// a small module.
fn accepts_without_names(words: &Words) -> bool {
    run_validator(words, false).is_ok()
}

/// SPIRV-Tools' validator through its C API, in the environment of
/// [`target_env`]: block layouts relaxed and scalar (layout rules are the
/// producer's business, DXC emits scalar layouts; halc reads the explicit
/// offsets), and the `LocalSizeId` execution mode allowed at every version
/// that has it (SPIR-V 1.2 and later): below Vulkan 1.3 the validator
/// refuses it unless the device has VK_KHR_maintenance4, a Vulkan device
/// matter; on Metal the workgroup size is specialised like any other (see
/// `spirv::specialize`). A failure is the validator's message (its first
/// line) and the instruction's index, when it gives them.
fn run_validator(words: &Words, friendly_names: bool) -> Result<(), (String, Option<usize>)> {
    use spirv_tools_sys::{diagnostics, shared, val};
    let code = words.as_slice();
    let binary = shared::Binary {
        code: code.as_ptr(),
        size: code.len(),
    };
    // SAFETY: the context and options are created, used and destroyed here
    // alone; `binary` points into `words`, alive for the call; the
    // diagnostic the validator may allocate is read while alive and then
    // destroyed (null is a no-op).
    unsafe {
        let context = shared::context_create(target_env(words.version()));
        let options = val::validator_options_create();
        val::validator_options_set_relax_block_layout(options, true);
        val::validator_options_set_scalar_block_layout(options, true);
        spvValidatorOptionsSetFriendlyNames(options, friendly_names);
        spvValidatorOptionsSetAllowLocalSizeId(options, true);
        let mut diagnostic: *mut diagnostics::Diagnostic = std::ptr::null_mut();
        let result = val::validate_with_options(context, options, &binary, &mut diagnostic);
        let failure = match result {
            shared::SpirvResult::Success => None,
            other if diagnostic.is_null() || (*diagnostic).error.is_null() => {
                Some((format!("the validator failed ({other:?})"), None))
            }
            _ => {
                let text = std::ffi::CStr::from_ptr((*diagnostic).error).to_string_lossy();
                let first = text
                    .split('\n')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                Some((first, Some((*diagnostic).position.index)))
            }
        };
        diagnostics::diagnostic_destroy(diagnostic);
        val::validator_options_destroy(options);
        shared::context_destroy(context);
        failure.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &[u32]) -> Words {
        let mut w = vec![super::super::binary::MAGIC, 0x0001_0000, 0, 10, 0];
        w.extend_from_slice(body);
        Words::from_words(w).unwrap()
    }

    /// Under the Vulkan memory model, availability, visibility and ordering
    /// of device memory are accepted within a threadgroup and refused
    /// wider; relaxed atomics at device scope stay accepted, and the GLSL450
    /// model is not concerned.
    #[test]
    fn vulkan_memory_model_scopes_wider_than_a_threadgroup_are_refused() {
        let check_body = |model: &str, body: &str| {
            let text = format!(
                "OpCapability Shader\nOpCapability VulkanMemoryModel\n\
                 OpMemoryModel Logical {model}\nOpEntryPoint GLCompute %main \"main\" %buf\n\
                 OpExecutionMode %main LocalSize 1 1 1\n\
                 OpDecorate %blk Block\nOpMemberDecorate %blk 0 Offset 0\n\
                 OpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n\
                 %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n\
                 %blk = OpTypeStruct %uint\n%pb = OpTypePointer StorageBuffer %blk\n\
                 %buf = OpVariable %pb StorageBuffer\n%pu = OpTypePointer StorageBuffer %uint\n\
                 %u0 = OpConstant %uint 0\n%device = OpConstant %uint 1\n\
                 %workgroup = OpConstant %uint 2\n%queue = OpConstant %uint 5\n\
                 %acqrel_uniform = OpConstant %uint 72\n%relaxed = OpConstant %uint 0\n\
                 %main = OpFunction %void None %fn\n%l = OpLabel\n\
                 %p = OpAccessChain %pu %buf %u0\n{body}\nOpReturn\nOpFunctionEnd\n"
            );
            let words = crate::spirv::assemble(&text, spirv_tools::TargetEnv::Universal_1_5);
            check(&words, &Limits::default())
        };
        for ok in [
            "OpStore %p %u0 MakePointerAvailable|NonPrivatePointer %workgroup",
            "%x = OpLoad %uint %p Aligned|MakePointerVisible|NonPrivatePointer 4 %workgroup",
            "OpControlBarrier %workgroup %workgroup %acqrel_uniform",
            "OpMemoryBarrier %device %relaxed",
            "%x = OpAtomicIAdd %uint %p %device %relaxed %u0",
        ] {
            assert_eq!(
                check_body("Vulkan", ok).map_err(|e| e.to_string()),
                Ok(()),
                "{ok}"
            );
        }
        for (bad, why) in [
            (
                "OpStore %p %u0 MakePointerAvailable|NonPrivatePointer %queue",
                "OpStore (word 100): MakePointerAvailable at QueueFamily scope under the Vulkan memory model",
            ),
            (
                "%x = OpLoad %uint %p Aligned|MakePointerVisible|NonPrivatePointer 4 %device",
                "OpLoad (word 100): MakePointerVisible at Device scope",
            ),
            (
                "OpControlBarrier %workgroup %device %acqrel_uniform",
                "OpControlBarrier (word 100): a barrier that makes device memory available or visible at Device scope",
            ),
            (
                "%x = OpAtomicIAdd %uint %p %device %acqrel_uniform %u0",
                "OpAtomicIAdd (word 100): an atomic that makes device memory available or visible at Device scope",
            ),
        ] {
            let e = check_body("Vulkan", bad).unwrap_err().to_string();
            assert!(e.starts_with(why), "{bad}: {e}");
            assert!(e.ends_with("so another threadgroup could read a stale value"), "{e}");
        }
        // The GLSL450 model's scopes are SPIRV-Cross's usual business.
        assert!(check_body(
            "GLSL450",
            "OpControlBarrier %workgroup %device %acqrel_uniform"
        )
        .is_ok());
    }

    #[test]
    fn unsupported_capability_is_named_with_its_offset() {
        let w = module(&[(2 << 16) | 17, 1, (2 << 16) | 17, 10]);
        let e = validate(&w, &Limits::default()).unwrap_err().to_string();
        assert_eq!(
            e,
            "OpCapability Float64 (word 7): Metal has no 64-bit floating point (MSL has no `double`) and halc does not emulate it: compute in 32-bit `float` instead (in GLSL: no `double`, `dvec`, `dmat` or `lf` literal)"
        );
    }

    /// Ray queries: RayQueryKHR and RayTraversalPrimitiveCullingKHR pass
    /// halc's own checks (the module then lacks an entry point); the
    /// provisional capability, position fetch and ray-tracing pipelines are
    /// refused by name, and
    /// so is every ray-query instruction on the refused list, whatever its
    /// operands.
    #[test]
    fn ray_query_capabilities_and_refused_instructions() {
        let caps = |cap: u32| module(&[(2 << 16) | 17, 1, (2 << 16) | 17, cap]);
        for admitted in [4472, 4478] {
            let e = check(&caps(admitted), &Limits::default())
                .unwrap_err()
                .to_string();
            assert_eq!(e, "module has no entry point");
        }
        for (cap, name) in [
            (4471, "RayQueryProvisionalKHR"),
            (4479, "RayTracingKHR"),
            (5391, "RayQueryPositionFetchKHR"),
        ] {
            let e = check(&caps(cap), &Limits::default())
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!("OpCapability {name} (word 7): ")),
                "{e}"
            );
        }
        for (op, name) in [
            (4447, "OpConvertUToAccelerationStructureKHR"),
            (
                6021,
                "OpRayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR",
            ),
        ] {
            let w = module(&[(2 << 16) | 17, 1, (4 << 16) | op, 1, 2, 3]);
            let e = check(&w, &Limits::default()).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{name} (word 7): ")), "{e}");
        }
        // Negative control: admitted ray-query instructions (a getter of
        // the committed T, the two transforms) pass this check.
        for op in [6018, 6031, 6032] {
            let w = module(&[(2 << 16) | 17, 1, (5 << 16) | op, 1, 2, 3, 4]);
            let e = check(&w, &Limits::default()).unwrap_err().to_string();
            assert_eq!(e, "module has no entry point", "op {op}");
        }
    }

    /// `RayTracingKHR` beside `RayQueryKHR` passes (a compute kernel that
    /// declares both); alone it is a ray-tracing pipeline's module. The
    /// stages' instructions, storage classes and built-ins are refused
    /// whatever the capabilities.
    #[test]
    fn ray_tracing_capability_only_beside_ray_queries() {
        let cap = |c: u32| [(2 << 16) | 17, c];
        let both: Vec<u32> = cap(4472).into_iter().chain(cap(4479)).collect();
        let e = check(&module(&both), &Limits::default())
            .unwrap_err()
            .to_string();
        assert_eq!(e, "module has no entry point");
        let e = check(&module(&cap(4479)), &Limits::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("OpCapability RayTracingKHR (word 5): ray tracing pipelines"),
            "{e}"
        );
        let refused = |body: &[u32], want: &str| {
            let w: Vec<u32> = both.iter().copied().chain(body.iter().copied()).collect();
            let e = check(&module(&w), &Limits::default())
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(want) && e.contains("ray tracing pipelines"),
                "{e}"
            );
        };
        for (op, name) in RAY_TRACING_STAGES_ONLY {
            refused(
                &[(2 << 16) | u32::from(*op), 1],
                &format!("{name} (word 9): "),
            );
        }
        // OpTypePointer %1 RayPayloadKHR %2; OpDecorate %1 BuiltIn
        // LaunchIdKHR; OpMemberDecorate %1 0 BuiltIn IncomingRayFlagsKHR.
        refused(
            &[(4 << 16) | 32, 1, 5338, 2],
            "OpTypePointer (word 9): storage class 5338",
        );
        refused(
            &[(4 << 16) | 71, 1, 11, 5319],
            "OpDecorate (word 9): BuiltIn 5319",
        );
        refused(
            &[(5 << 16) | 72, 1, 0, 11, 5351],
            "OpMemberDecorate (word 9): BuiltIn 5351",
        );
        // Negative control: a compute built-in and a storage-buffer pointer
        // pass.
        let w: Vec<u32> = both
            .iter()
            .copied()
            .chain([(4 << 16) | 71, 1, 11, 28, (4 << 16) | 32, 2, 12, 3])
            .collect();
        let e = check(&module(&w), &Limits::default())
            .unwrap_err()
            .to_string();
        assert_eq!(e, "module has no entry point");
    }

    /// Only a barrier or atomic wider than a workgroup with ordering
    /// semantics can order two workgroups' accesses: GLSL's relaxed
    /// `atomicAdd` and `barrier()` cannot, `memoryBarrierBuffer()` can, and
    /// so can an atomic whose semantics are no constant.
    #[test]
    fn what_may_order_across_workgroups() {
        let module = |body: &str| {
            crate::spirv::assemble(
                &format!(
                    "OpCapability Shader
                     OpMemoryModel Logical GLSL450
                     OpEntryPoint GLCompute %main \"main\"
                     OpExecutionMode %main LocalSize 1 1 1
                     OpDecorate %B Block
                     OpMemberDecorate %B 0 Offset 0
                     OpDecorate %b DescriptorSet 0
                     OpDecorate %b Binding 0
                     %void = OpTypeVoid
                     %fn = OpTypeFunction %void
                     %uint = OpTypeInt 32 0
                     %B = OpTypeStruct %uint
                     %pB = OpTypePointer StorageBuffer %B
                     %pu = OpTypePointer StorageBuffer %uint
                     %b = OpVariable %pB StorageBuffer
                     %u0 = OpConstant %uint 0
                     %u1 = OpConstant %uint 1
                     %device = OpConstant %uint 1
                     %workgroup = OpConstant %uint 2
                     %relaxed = OpConstant %uint 0
                     %acq_rel_uniform = OpConstant %uint 72
                     %acq_rel_workgroup = OpConstant %uint 264
                     %main = OpFunction %void None %fn
                     %entry = OpLabel
                     %p = OpAccessChain %pu %b %u0
                     {body}
                     OpReturn
                     OpFunctionEnd"
                ),
                spirv_tools::TargetEnv::Vulkan_1_1,
            )
        };
        let orders = |body: &str| super::may_order_across_workgroups(&module(body)).unwrap();
        assert!(!orders(""));
        assert!(!orders("%r = OpAtomicIAdd %uint %p %device %relaxed %u1"));
        assert!(!orders(
            "OpControlBarrier %workgroup %workgroup %acq_rel_workgroup"
        ));
        assert!(orders("OpMemoryBarrier %device %acq_rel_uniform"));
        assert!(orders(
            "%r = OpAtomicIAdd %uint %p %device %acq_rel_uniform %u1"
        ));
        assert!(orders("OpAtomicStore %p %device %acq_rel_uniform %u1"));
        // Semantics that are no constant: assumed to order.
        assert!(orders(
            "%s = OpLoad %uint %p\n%r = OpAtomicIAdd %uint %p %device %s %u1"
        ));
    }

    /// Constant ray flags are held to Vulkan's three rules; every valid
    /// combination of one flag per Metal setter passes.
    #[test]
    fn forbidden_ray_flags_are_vulkans() {
        for (flags, vuid) in [
            (0x300, "06889"),
            (0x301, "06889"),
            (0x110, "06890"),
            (0x120, "06890"),
            (0x30, "06890"),
            (0x3, "06891"),
            (0x41, "06891"),
            (0xC0, "06891"),
            (0x82, "06891"),
        ] {
            let why =
                super::forbidden_ray_flags(flags).unwrap_or_else(|| panic!("{flags:#x} passed"));
            assert!(why.ends_with(&format!("-{vuid})")), "{flags:#x}: {why}");
        }
        // One of each group, and the flags Metal ignores (SkipClosestHit,
        // opacity micromaps): valid.
        for opacity in [0, 0x1, 0x2, 0x40, 0x80] {
            for facing in [0, 0x10, 0x20, 0x100] {
                for skip_boxes in [0, 0x200] {
                    if facing == 0x100 && skip_boxes != 0 {
                        continue;
                    }
                    let flags = opacity | facing | skip_boxes | 0x4 | 0x8 | 0x400;
                    assert_eq!(super::forbidden_ray_flags(flags), None, "{flags:#x}");
                }
            }
        }
    }

    /// The capabilities admitted in issue 38 pass halc's own checks (the
    /// module then lacks an entry point); their image siblings do not.
    #[test]
    fn issue_38_capabilities_are_admitted_and_image_arrays_are_not() {
        let check_caps = |caps: &[u32]| {
            let body: Vec<u32> = caps.iter().flat_map(|c| [(2 << 16) | 17, *c]).collect();
            match check(&module(&body), &Limits::default()) {
                Err(e) => e.to_string(),
                Ok(()) => "accepted".into(),
            }
        };
        assert_eq!(
            check_caps(&[
                1, 28, 30, 4423, 4431, 4435, 4450, 4466, 4467, 5629, 6016, 6017, 6018, 6019, 6033
            ]),
            "module has no entry point"
        );
        // The other float controls are refused, each naming why.
        for (cap, name, why) in [
            (
                4464,
                "DenormPreserve",
                "whether 32-bit denormals are flushed",
            ),
            (4465, "DenormFlushToZero", "whether denormals are flushed"),
            (
                4468,
                "RoundingModeRTZ",
                "rounds float arithmetic to nearest even",
            ),
        ] {
            let e = check_caps(&[1, cap]);
            assert!(
                e.starts_with(&format!("OpCapability {name} (word 7): the {name} execution mode (SPV_KHR_float_controls)")) && e.contains(why),
                "{e}"
            );
        }
        for (cap, name) in [
            (6034, "AtomicFloat64AddEXT"),
            (5612, "AtomicFloat32MinMaxEXT"),
        ] {
            assert_eq!(
                check_caps(&[1, cap]),
                format!("OpCapability {name} (word 7): {UNTESTED}")
            );
        }
    }

    #[test]
    fn huge_id_bound_is_a_limit_error() {
        let mut raw = vec![super::super::binary::MAGIC, 0x0001_0000, 0, u32::MAX, 0];
        raw.extend([(2 << 16) | 17, 1]);
        let w = Words::from_words(raw).unwrap();
        let e = validate(&w, &Limits::default()).unwrap_err().to_string();
        assert!(e.contains("id bound 4294967295 exceeds"), "{e}");
    }

    #[test]
    fn spec_constant_ops_on_pointers_are_refused() {
        let int = [(4 << 16) | 21, 1, 32, 0];
        let ptr = [(4 << 16) | 32, 2, 7, 1];
        // %3 = OpSpecConstantOp %ptr CompositeExtract %9 0: a pointer result.
        let w = module(&[&int[..], &ptr, &[(6 << 16) | 52, 2, 3, 81, 9, 0]].concat());
        let e = validate(&w, &Limits::default()).unwrap_err().to_string();
        assert!(
            e.starts_with("OpSpecConstantOp (word 13): spec-constant arithmetic on pointers"),
            "{e}"
        );
        // %4 = OpSpecConstantOp %int ISub %3 %3 with %3 a null pointer.
        let null = [(3 << 16) | 46, 2, 3];
        let w = module(&[&int[..], &ptr, &null, &[(6 << 16) | 52, 1, 4, 130, 3, 3]].concat());
        let e = validate(&w, &Limits::default()).unwrap_err().to_string();
        assert!(e.starts_with("OpSpecConstantOp (word 16)"), "{e}");
        // A literal index equal to that id is not an operand: no objection.
        let w = module(&[&int[..], &ptr, &null, &[(6 << 16) | 52, 1, 4, 81, 9, 3]].concat());
        let e = validate(&w, &Limits::default()).unwrap_err().to_string();
        assert_eq!(e, "module has no entry point");
    }

    /// `OpSpecConstantOp` composite indices, over every kind of composite:
    /// in range passes `check`, one past the end is refused with the kind
    /// and its size; an array sized by a spec constant is refused.
    #[test]
    fn spec_constant_composite_indices_are_bounded() {
        fn op(code: u32, operands: &[u32]) -> Vec<u32> {
            let mut w = vec![((operands.len() as u32 + 1) << 16) | code];
            w.extend_from_slice(operands);
            w
        }
        // %1 uint, %2 = 2, %3 = 3, %4 uint2, %5 arr[3] of uint2, %6 struct
        // {uint, arr}, %7 mat3x2 (columns uint2), %8 spec constant 2, %9
        // arr[%8] of uint, %10 a 64-bit length 2^32 + 1, %11 arr[%10];
        // %20 struct constant, %21 matrix constant, %22 spec-sized array
        // constant, %23 a long array constant.
        let types = [
            op(17, &[1]),
            op(21, &[1, 32, 0]),
            op(43, &[1, 2, 2]),
            op(43, &[1, 3, 3]),
            op(23, &[4, 1, 2]),
            op(28, &[5, 4, 3]),
            op(30, &[6, 1, 5]),
            op(24, &[7, 4, 3]),
            op(50, &[1, 8, 2]),
            op(28, &[9, 1, 8]),
            op(21, &[12, 64, 0]),
            op(43, &[12, 10, 1, 1]),
            op(28, &[11, 1, 10]),
            op(46, &[6, 20]),
            op(46, &[7, 21]),
            op(46, &[9, 22]),
            op(46, &[11, 23]),
        ]
        .concat();
        let check_op = |spec_op: &[u32]| {
            let w = module(&[&types[..], &op(52, spec_op)].concat());
            match check(&w, &Limits::default()) {
                Err(e) => e.to_string(),
                Ok(()) => "accepted".into(),
            }
        };
        // Extracts: struct member 1, array element 2, vector component 1.
        assert_eq!(
            check_op(&[1, 30, 81, 20, 1, 2, 1]),
            "module has no entry point"
        );
        assert_eq!(
            check_op(&[1, 30, 81, 21, 2, 1]),
            "module has no entry point"
        );
        assert_eq!(
            check_op(&[1, 30, 81, 23, 4_000_000_000]),
            "module has no entry point"
        );
        let refused = |e: String, what: &str| {
            assert!(e.starts_with("OpSpecConstantOp (word "), "{e}");
            assert!(e.contains(what), "{e}");
        };
        let cases: [(&[u32], &str); 6] = [
            (
                &[1, 30, 81, 20, 2],
                "CompositeExtract index 2 is out of range for a struct of 2 members",
            ),
            (
                &[1, 30, 81, 20, 1, 3],
                "CompositeExtract index 3 is out of range for an array of 3 elements",
            ),
            (
                &[1, 30, 81, 20, 1, 2, 2],
                "CompositeExtract index 2 is out of range for a vector of 2 components",
            ),
            (
                &[1, 30, 81, 21, 3],
                "CompositeExtract index 3 is out of range for a matrix of 3 columns",
            ),
            (
                &[1, 30, 81, 20, 0, 0],
                "CompositeExtract index 0 selects in a value that is not a composite",
            ),
            (
                &[1, 30, 81, 22, 0],
                "array whose length is a specialization constant",
            ),
        ];
        for (operands, what) in cases {
            refused(check_op(operands), what);
        }
        // Insert: the composite is the second operand.
        assert_eq!(
            check_op(&[6, 30, 82, 2, 20, 0]),
            "module has no entry point"
        );
        refused(
            check_op(&[6, 30, 82, 2, 20, 1, 3]),
            "CompositeInsert index 3 is out of range for an array of 3 elements",
        );
        // Shuffle of a uint2 (component 1 of the matrix) with itself: 3 is
        // the last component, 0xFFFFFFFF is "undefined".
        let col = op(52, &[4, 31, 81, 21, 1]);
        let shuffle = |c: u32| {
            let w = module(&[&types[..], &col, &op(52, &[4, 30, 79, 31, 31, 0, c])].concat());
            match check(&w, &Limits::default()) {
                Err(e) => e.to_string(),
                Ok(()) => "accepted".into(),
            }
        };
        assert_eq!(shuffle(3), "module has no entry point");
        assert_eq!(shuffle(u32::MAX), "module has no entry point");
        refused(
            shuffle(4),
            "VectorShuffle component 4 is out of range for vectors of 2 and 2 components",
        );
    }

    /// The quick pass (no friendly names) and the validator as the
    /// `spirv-tools` crate runs it (friendly names) agree on every fixture,
    /// valid or not; a failure is worded by the latter.
    #[test]
    fn the_quick_pass_agrees_with_the_named_one() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut seen = [0, 0];
        for dir in ["kernels", "invalid"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|e| e != "spv") {
                    continue;
                }
                let Ok(words) = Words::from_bytes(&std::fs::read(&path).unwrap()) else {
                    continue;
                };
                let named = run_validator(&words, true).is_ok();
                assert_eq!(accepts_without_names(&words), named, "{}", path.display());
                // The `spirv-tools` crate's validator, which cannot allow
                // LocalSizeId, agrees on the modules without it.
                let options = spirv_tools::val::ValidatorOptions {
                    relax_block_layout: Some(true),
                    scalar_block_layout: true,
                    ..Default::default()
                };
                use spirv_tools::val::Validator;
                let crate_verdict = spirv_tools::val::create(Some(target_env(words.version())))
                    .validate(words.as_slice(), Some(options))
                    .is_ok();
                let local_size_id = words
                    .instructions()
                    .any(|i| i.is_ok_and(|i| i.opcode == 331 && i.words.get(2) == Some(&38)));
                if !local_size_id {
                    assert_eq!(crate_verdict, named, "{}", path.display());
                }
                seen[usize::from(named)] += 1;
            }
        }
        // Both answers occur.
        assert!(seen[0] >= 3 && seen[1] >= 20, "{seen:?}");
        let bad =
            Words::from_bytes(&std::fs::read(root.join("invalid/small_id_bound.spv")).unwrap())
                .unwrap();
        assert_eq!(
            spirv_tools(&bad).unwrap_err().to_string(),
            "invalid SPIR-V: Result <id> '6' must be less than the ID bound '5'. (instruction 42; validated as Vulkan_1_0)"
        );
    }

    /// LocalSizeId (OpExecutionModeId, SPIR-V 1.2 and later) is valid at
    /// every version that has it, not only under Vulkan 1.3: SPIRV-Cross's
    /// own `local-size-id` tests are SPIR-V 1.0 to 1.3 modules.
    #[test]
    fn local_size_id_is_valid_below_vulkan_1_3() {
        let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
                    OpEntryPoint GLCompute %main \"main\"\n\
                    OpExecutionModeId %main LocalSizeId %x %one %one\n\
                    OpDecorate %x SpecId 0\n\
                    %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n\
                    %x = OpSpecConstant %uint 8\n%one = OpConstant %uint 1\n\
                    %main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n";
        for env in [
            spirv_tools::TargetEnv::Universal_1_2,
            spirv_tools::TargetEnv::Universal_1_3,
            spirv_tools::TargetEnv::Universal_1_5,
        ] {
            let words = crate::spirv::assemble(text, env);
            assert_eq!(
                spirv_tools(&words).map_err(|e| e.to_string()),
                Ok(()),
                "{env:?}"
            );
        }
        // SPIR-V 1.1 is Vulkan 1.1's (Vulkan 1.0 takes 1.0 only).
        let v11 = text.replace(
            "OpExecutionModeId %main LocalSizeId %x %one %one",
            "OpExecutionMode %main LocalSize 8 1 1",
        );
        let words = crate::spirv::assemble(&v11, spirv_tools::TargetEnv::Universal_1_1);
        assert_eq!(words.version(), (1, 1));
        assert_eq!(spirv_tools(&words).map_err(|e| e.to_string()), Ok(()));
    }

    #[test]
    fn no_entry_point() {
        let w = module(&[(2 << 16) | 17, 1]);
        let e = validate(&w, &Limits::default()).unwrap_err().to_string();
        assert_eq!(e, "module has no entry point");
    }
}
