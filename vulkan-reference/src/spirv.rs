//! The little this crate reads from a SPIR-V module before handing it to
//! the driver: entry points, capabilities, extensions, execution modes,
//! the workgroup size, Workgroup initializers and the types of
//! specialization constants, and from these what the module needs of the
//! device ([`required_by_module`]). It is not a validator: callers validate modules first (a
//! driver without validation layers may crash on invalid SPIR-V).

use std::collections::BTreeMap;

use crate::error::{Error, Result};

const MAGIC: u32 = 0x0723_0203;
const OP_EXTENSION: u32 = 10;
const OP_ENTRY_POINT: u32 = 15;
const OP_EXECUTION_MODE: u32 = 16;
const OP_CAPABILITY: u32 = 17;
const OP_TYPE_BOOL: u32 = 20;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_CONSTANT: u32 = 43;
const OP_CONSTANT_COMPOSITE: u32 = 44;
const OP_SPEC_CONSTANT_TRUE: u32 = 48;
const OP_SPEC_CONSTANT_FALSE: u32 = 49;
const OP_SPEC_CONSTANT: u32 = 50;
const OP_SPEC_CONSTANT_COMPOSITE: u32 = 51;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_EXECUTION_MODE_ID: u32 = 331;
const DECORATION_SPEC_ID: u32 = 1;
const DECORATION_BUILT_IN: u32 = 11;
const BUILT_IN_WORKGROUP_SIZE: u32 = 25;
const STORAGE_CLASS_WORKGROUP: u32 = 4;
const MODE_LOCAL_SIZE: u32 = 17;
const MODE_LOCAL_SIZE_ID: u32 = 38;
const MODE_SUBGROUP_UNIFORM_CONTROL_FLOW: u32 = 4421;
/// `ExecutionModel GLCompute`.
const GL_COMPUTE: u32 = 5;

/// What [`scan`] found.
#[derive(Debug, Default)]
pub(crate) struct Module {
    /// The SPIR-V version word (`0x00010400` for 1.4).
    pub version: u32,
    /// GLCompute entry point names, in module order.
    pub compute_entries: Vec<String>,
    /// Their result ids, in the same order.
    compute_ids: Vec<u32>,
    /// Declared capabilities.
    pub capabilities: Vec<u32>,
    /// `OpExtension` names.
    pub extensions: Vec<String>,
    /// `(entry id, mode, operands)` of `OpExecutionMode` and
    /// `OpExecutionModeId`.
    modes: Vec<(u32, u32, Vec<u32>)>,
    /// Whether a Workgroup variable has an initializer.
    pub workgroup_initializer: bool,
    /// For each SpecId, the byte size Vulkan reads for every constant
    /// carrying it (4 for booleans: a `VkBool32`).
    pub spec_sizes: BTreeMap<u32, Vec<u32>>,
    /// Scalar integer constants (their low word) and spec constants
    /// (their default), by result id.
    scalars: BTreeMap<u32, u32>,
    /// SpecId of a spec constant, by result id.
    spec_ids: BTreeMap<u32, u32>,
    /// Constituents of (spec) constant composites, by result id.
    composites: BTreeMap<u32, Vec<u32>>,
    /// The constant decorated `BuiltIn WorkgroupSize`.
    workgroup_size: Option<u32>,
}

/// Reads the module's header and the instructions above. Errors give the
/// word offset.
pub(crate) fn scan(words: &[u32]) -> Result<Module> {
    if words.len() < 5 {
        return Err(Error::InvalidSpirv(format!(
            "{} words, shorter than the 5-word header",
            words.len()
        )));
    }
    if words[0] != MAGIC {
        return Err(Error::InvalidSpirv(if words[0] == MAGIC.swap_bytes() {
            "the module is big-endian: swap every word first".to_string()
        } else {
            format!("bad magic number {:#010x}", words[0])
        }));
    }
    let mut m = Module {
        version: words[1],
        ..Module::default()
    };
    let mut type_size: BTreeMap<u32, u32> = BTreeMap::new();
    let mut spec_type: Vec<(u32, u32)> = Vec::new(); // (result id, type id)
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let op = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(Error::InvalidSpirv(format!(
                "instruction at word {at} (opcode {op}) has word count {count}, past the end"
            )));
        }
        let ins = &words[at..at + count];
        let short = || {
            Error::InvalidSpirv(format!(
                "instruction at word {at} (opcode {op}) is too short"
            ))
        };
        match op {
            OP_CAPABILITY => m.capabilities.push(*ins.get(1).ok_or_else(short)?),
            OP_EXTENSION => m.extensions.push(literal_string(&ins[1..])),
            OP_ENTRY_POINT => {
                if ins.len() < 4 {
                    return Err(short());
                }
                if ins[1] == GL_COMPUTE {
                    m.compute_entries.push(literal_string(&ins[3..]));
                    m.compute_ids.push(ins[2]);
                }
            }
            OP_EXECUTION_MODE | OP_EXECUTION_MODE_ID => {
                if ins.len() < 3 {
                    return Err(short());
                }
                m.modes.push((ins[1], ins[2], ins[3..].to_vec()));
            }
            OP_DECORATE if ins.get(2) == Some(&DECORATION_SPEC_ID) => {
                m.spec_ids.insert(ins[1], *ins.get(3).ok_or_else(short)?);
            }
            OP_DECORATE
                if ins.get(2) == Some(&DECORATION_BUILT_IN)
                    && ins.get(3) == Some(&BUILT_IN_WORKGROUP_SIZE) =>
            {
                m.workgroup_size = Some(ins[1]);
            }
            OP_TYPE_BOOL => {
                type_size.insert(*ins.get(1).ok_or_else(short)?, 4);
            }
            OP_TYPE_INT | OP_TYPE_FLOAT => {
                let width = *ins.get(2).ok_or_else(short)?;
                type_size.insert(ins[1], width / 8);
            }
            OP_CONSTANT => {
                if ins.len() < 4 {
                    return Err(short());
                }
                m.scalars.insert(ins[2], ins[3]);
            }
            OP_CONSTANT_COMPOSITE | OP_SPEC_CONSTANT_COMPOSITE => {
                if ins.len() < 3 {
                    return Err(short());
                }
                m.composites.insert(ins[2], ins[3..].to_vec());
            }
            OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE | OP_SPEC_CONSTANT => {
                if ins.len() < 3 {
                    return Err(short());
                }
                spec_type.push((ins[2], ins[1]));
                let default = match op {
                    OP_SPEC_CONSTANT_TRUE => 1,
                    OP_SPEC_CONSTANT_FALSE => 0,
                    _ => *ins.get(3).ok_or_else(short)?,
                };
                m.scalars.insert(ins[2], default);
            }
            OP_VARIABLE => {
                if ins.len() < 4 {
                    return Err(short());
                }
                if ins[3] == STORAGE_CLASS_WORKGROUP && ins.len() > 4 {
                    m.workgroup_initializer = true;
                }
            }
            _ => {}
        }
        at += count;
    }
    for (result, ty) in spec_type {
        if let (Some(id), Some(size)) = (m.spec_ids.get(&result), type_size.get(&ty)) {
            m.spec_sizes.entry(*id).or_default().push(*size);
        }
    }
    Ok(m)
}

impl Module {
    /// The value of a 32-bit scalar (spec) constant, specialised by
    /// `spec` (SpecId, value bytes); `None` for anything else (e.g. an
    /// `OpSpecConstantOp`).
    fn scalar(&self, id: u32, spec: &[(u32, Vec<u8>)]) -> Option<u32> {
        if let Some(spec_id) = self.spec_ids.get(&id) {
            if let Some((_, bytes)) = spec.iter().find(|(i, _)| i == spec_id) {
                return Some(u32::from_le_bytes(bytes.as_slice().try_into().ok()?));
            }
        }
        self.scalars.get(&id).copied()
    }

    /// The workgroup size of compute entry point `entry` once specialised
    /// by `spec`: the `WorkgroupSize` built-in if the module has one, else
    /// its `LocalSize` or `LocalSizeId` mode. `None` when it cannot be
    /// worked out here.
    pub(crate) fn local_size(&self, entry: &str, spec: &[(u32, Vec<u8>)]) -> Option<[u32; 3]> {
        let three = |ids: &[u32], resolve: &dyn Fn(u32) -> Option<u32>| -> Option<[u32; 3]> {
            match ids {
                [x, y, z] => Some([resolve(*x)?, resolve(*y)?, resolve(*z)?]),
                _ => None,
            }
        };
        let i = self.compute_entries.iter().position(|e| e == entry)?;
        if let Some(id) = self.workgroup_size {
            return three(self.composites.get(&id)?, &|c| self.scalar(c, spec));
        }
        let id = self.compute_ids[i];
        self.modes.iter().find_map(|(e, mode, ops)| match *mode {
            MODE_LOCAL_SIZE if *e == id => three(ops, &|v| Some(v)),
            MODE_LOCAL_SIZE_ID if *e == id => three(ops, &|c| self.scalar(c, spec)),
            _ => None,
        })
    }

    /// What the module needs enabled on (or supported by) the device: see
    /// [`required_by_module`](crate::required_by_module). Execution modes
    /// count on GLCompute entry points only.
    pub(crate) fn needs(&self) -> Vec<Need> {
        let mut out = Vec::new();
        let mut add = |declares: String, name: String| {
            if !out.iter().any(|n: &Need| n.name == name) {
                out.push(Need { declares, name });
            }
        };
        if self.version >= 0x0001_0400 {
            let v = format!(
                "SPIR-V version {}.{}",
                (self.version >> 16) & 0xff,
                (self.version >> 8) & 0xff
            );
            add(v, "VK_KHR_spirv_1_4".into());
        }
        for cap in &self.capabilities {
            if let Some((capability, names)) = capability_needs(*cap) {
                for n in names {
                    add(format!("capability {capability}"), n.to_string());
                }
            }
        }
        for ext in &self.extensions {
            if let Some(vk) = device_extension(ext) {
                add(format!("extension {ext}"), vk.to_string());
            }
        }
        for (entry, mode, _) in &self.modes {
            if !self.compute_ids.contains(entry) {
                continue;
            }
            // Below Vulkan 1.3, VK_KHR_maintenance4 allows LocalSizeId.
            if *mode == MODE_LOCAL_SIZE_ID {
                add(
                    "execution mode LocalSizeId".into(),
                    "Maintenance4Features.maintenance4".into(),
                );
            }
            if *mode == MODE_SUBGROUP_UNIFORM_CONTROL_FLOW {
                add(
                    "execution mode SubgroupUniformControlFlowKHR".into(),
                    "ShaderSubgroupUniformControlFlowFeaturesKHR.shaderSubgroupUniformControlFlow"
                        .into(),
                );
            }
        }
        if self.workgroup_initializer {
            add(
                "a Workgroup variable with an initializer".into(),
                "ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory".into(),
            );
        }
        out
    }
}

/// One thing a module needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Need {
    /// What the module declares (`capability Float16`).
    pub declares: String,
    /// Its name (Amber's spelling, or `VK_…`).
    pub name: String,
}

/// The Vulkan device extension that allows SPIR-V extension `spv` in a
/// shader, for those a compute test can meet. Unknown ones need nothing.
fn device_extension(spv: &str) -> Option<&'static str> {
    Some(match spv {
        "SPV_KHR_storage_buffer_storage_class" => "VK_KHR_storage_buffer_storage_class",
        "SPV_KHR_16bit_storage" => "VK_KHR_16bit_storage",
        "SPV_KHR_8bit_storage" => "VK_KHR_8bit_storage",
        "SPV_KHR_variable_pointers" => "VK_KHR_variable_pointers",
        "SPV_KHR_shader_draw_parameters" => "VK_KHR_shader_draw_parameters",
        "SPV_KHR_vulkan_memory_model" => "VK_KHR_vulkan_memory_model",
        "SPV_KHR_float_controls" => "VK_KHR_shader_float_controls",
        "SPV_KHR_no_integer_wrap_decoration" => "VK_KHR_spirv_1_4",
        "SPV_EXT_descriptor_indexing" => "VK_EXT_descriptor_indexing",
        "SPV_KHR_physical_storage_buffer" => "VK_KHR_buffer_device_address",
        "SPV_KHR_terminate_invocation" => "VK_KHR_shader_terminate_invocation",
        "SPV_KHR_non_semantic_info" => "VK_KHR_shader_non_semantic_info",
        "SPV_KHR_integer_dot_product" => "VK_KHR_shader_integer_dot_product",
        "SPV_EXT_demote_to_helper_invocation" => "VK_EXT_shader_demote_to_helper_invocation",
        "SPV_KHR_subgroup_uniform_control_flow" => "VK_KHR_shader_subgroup_uniform_control_flow",
        "SPV_KHR_workgroup_memory_explicit_layout" => "VK_KHR_workgroup_memory_explicit_layout",
        "SPV_KHR_cooperative_matrix" => "VK_KHR_cooperative_matrix",
        "SPV_KHR_ray_query" => "VK_KHR_ray_query",
        "SPV_KHR_ray_tracing" => "VK_KHR_ray_tracing_pipeline",
        "SPV_EXT_long_vector" => "VK_EXT_shader_long_vector",
        "SPV_KHR_shader_clock" => "VK_KHR_shader_clock",
        "SPV_EXT_shader_atomic_float_add" => "VK_EXT_shader_atomic_float",
        "SPV_KHR_shader_ballot" => "VK_EXT_shader_subgroup_ballot",
        "SPV_AMD_shader_ballot" => "VK_AMD_shader_ballot",
        "SPV_KHR_subgroup_vote" => "VK_EXT_shader_subgroup_vote",
        "SPV_KHR_maximal_reconvergence" => "VK_KHR_shader_maximal_reconvergence",
        "SPV_KHR_quad_control" => "VK_KHR_shader_quad_control",
        "SPV_KHR_subgroup_rotate" => "VK_KHR_shader_subgroup_rotate",
        "SPV_KHR_expect_assume" => "VK_KHR_shader_expect_assume",
        "SPV_KHR_float_controls2" => "VK_KHR_shader_float_controls2",
        "SPV_KHR_relaxed_extended_instruction" => "VK_KHR_shader_relaxed_extended_instruction",
        _ => return None,
    })
}

/// A nul-terminated UTF-8 literal packed little-endian into words.
fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The capabilities that need a feature or subgroup support, by number:
/// `(capability, names)`, in Amber's spelling.
pub(crate) fn capability_needs(cap: u32) -> Option<(&'static str, &'static [&'static str])> {
    const STAGE: &str = "SubgroupSupportedStages.compute";
    Some(match cap {
        9 => ("Float16", &["Float16Int8Features.shaderFloat16"]),
        10 => ("Float64", &["shaderFloat64"]),
        11 => ("Int64", &["shaderInt64"]),
        22 => ("Int16", &["shaderInt16"]),
        // OpGroupIAdd …, OpGroup…NonUniformAMD: GL_AMD_shader_ballot.
        18 => ("Groups", &["VK_AMD_shader_ballot"]),
        28 => (
            "UniformBufferArrayDynamicIndexing",
            &["shaderUniformBufferArrayDynamicIndexing"],
        ),
        29 => (
            "SampledImageArrayDynamicIndexing",
            &["shaderSampledImageArrayDynamicIndexing"],
        ),
        30 => (
            "StorageBufferArrayDynamicIndexing",
            &["shaderStorageBufferArrayDynamicIndexing"],
        ),
        31 => (
            "StorageImageArrayDynamicIndexing",
            &["shaderStorageImageArrayDynamicIndexing"],
        ),
        39 => ("Int8", &["Float16Int8Features.shaderInt8"]),
        5302 => (
            "RuntimeDescriptorArray",
            &["DescriptorIndexingFeatures.runtimeDescriptorArray"],
        ),
        5304 => (
            "UniformTexelBufferArrayDynamicIndexing",
            &["DescriptorIndexingFeatures.shaderUniformTexelBufferArrayDynamicIndexing"],
        ),
        5305 => (
            "StorageTexelBufferArrayDynamicIndexing",
            &["DescriptorIndexingFeatures.shaderStorageTexelBufferArrayDynamicIndexing"],
        ),
        5306 => (
            "UniformBufferArrayNonUniformIndexing",
            &["DescriptorIndexingFeatures.shaderUniformBufferArrayNonUniformIndexing"],
        ),
        5307 => (
            "SampledImageArrayNonUniformIndexing",
            &["DescriptorIndexingFeatures.shaderSampledImageArrayNonUniformIndexing"],
        ),
        5308 => (
            "StorageBufferArrayNonUniformIndexing",
            &["DescriptorIndexingFeatures.shaderStorageBufferArrayNonUniformIndexing"],
        ),
        5309 => (
            "StorageImageArrayNonUniformIndexing",
            &["DescriptorIndexingFeatures.shaderStorageImageArrayNonUniformIndexing"],
        ),
        5311 => (
            "UniformTexelBufferArrayNonUniformIndexing",
            &["DescriptorIndexingFeatures.shaderUniformTexelBufferArrayNonUniformIndexing"],
        ),
        5312 => (
            "StorageTexelBufferArrayNonUniformIndexing",
            &["DescriptorIndexingFeatures.shaderStorageTexelBufferArrayNonUniformIndexing"],
        ),
        61 => (
            "GroupNonUniform",
            &[STAGE, "SubgroupSupportedOperations.basic"],
        ),
        62 => (
            "GroupNonUniformVote",
            &[STAGE, "SubgroupSupportedOperations.vote"],
        ),
        63 => (
            "GroupNonUniformArithmetic",
            &[STAGE, "SubgroupSupportedOperations.arithmetic"],
        ),
        64 => (
            "GroupNonUniformBallot",
            &[STAGE, "SubgroupSupportedOperations.ballot"],
        ),
        65 => (
            "GroupNonUniformShuffle",
            &[STAGE, "SubgroupSupportedOperations.shuffle"],
        ),
        66 => (
            "GroupNonUniformShuffleRelative",
            &[STAGE, "SubgroupSupportedOperations.shuffleRelative"],
        ),
        67 => (
            "GroupNonUniformClustered",
            &[STAGE, "SubgroupSupportedOperations.clustered"],
        ),
        68 => (
            "GroupNonUniformQuad",
            &[STAGE, "SubgroupSupportedOperations.quad"],
        ),
        4428 => (
            "WorkgroupMemoryExplicitLayoutKHR",
            &["WorkgroupMemoryExplicitLayoutFeaturesKHR.workgroupMemoryExplicitLayout"],
        ),
        4429 => (
            "WorkgroupMemoryExplicitLayout8BitAccessKHR",
            &["WorkgroupMemoryExplicitLayoutFeaturesKHR.workgroupMemoryExplicitLayout8BitAccess"],
        ),
        4430 => (
            "WorkgroupMemoryExplicitLayout16BitAccessKHR",
            &["WorkgroupMemoryExplicitLayoutFeaturesKHR.workgroupMemoryExplicitLayout16BitAccess"],
        ),
        4433 => (
            "StorageBuffer16BitAccess",
            &["Storage16BitFeatures.storageBuffer16BitAccess"],
        ),
        4434 => (
            "UniformAndStorageBuffer16BitAccess",
            &["Storage16BitFeatures.uniformAndStorageBuffer16BitAccess"],
        ),
        4435 => (
            "StoragePushConstant16",
            &["Storage16BitFeatures.storagePushConstant16"],
        ),
        4441 => (
            "VariablePointersStorageBuffer",
            &["VariablePointerFeatures.variablePointersStorageBuffer"],
        ),
        4442 => (
            "VariablePointers",
            &["VariablePointerFeatures.variablePointers"],
        ),
        4448 => (
            "StorageBuffer8BitAccess",
            &["Storage8BitFeatures.storageBuffer8BitAccess"],
        ),
        4449 => (
            "UniformAndStorageBuffer8BitAccess",
            &["Storage8BitFeatures.uniformAndStorageBuffer8BitAccess"],
        ),
        4450 => (
            "StoragePushConstant8",
            &["Storage8BitFeatures.storagePushConstant8"],
        ),
        5345 => (
            "VulkanMemoryModel",
            &["VulkanMemoryModelFeatures.vulkanMemoryModel"],
        ),
        5346 => (
            "VulkanMemoryModelDeviceScope",
            &["VulkanMemoryModelFeatures.vulkanMemoryModelDeviceScope"],
        ),
        5347 => (
            "PhysicalStorageBufferAddresses",
            &["BufferDeviceAddressFeatures.bufferDeviceAddress"],
        ),
        5425 => ("LongVectorEXT", &["ShaderLongVectorFeaturesEXT.longVector"]),
        // The capability covers both storage classes; Vulkan has a feature
        // for each (buffer and shared memory).
        6033 => (
            "AtomicFloat32AddEXT",
            &[
                "ShaderAtomicFloatFeaturesEXT.shaderBufferFloat32AtomicAdd",
                "ShaderAtomicFloatFeaturesEXT.shaderSharedFloat32AtomicAdd",
            ],
        ),
        5629 => (
            "ExpectAssumeKHR",
            &["ShaderExpectAssumeFeaturesKHR.shaderExpectAssume"],
        ),
        6016 => (
            "DotProductInputAll",
            &["ShaderIntegerDotProductFeatures.shaderIntegerDotProduct"],
        ),
        6017 => (
            "DotProductInput4x8Bit",
            &["ShaderIntegerDotProductFeatures.shaderIntegerDotProduct"],
        ),
        6018 => (
            "DotProductInput4x8BitPacked",
            &["ShaderIntegerDotProductFeatures.shaderIntegerDotProduct"],
        ),
        6019 => (
            "DotProduct",
            &["ShaderIntegerDotProductFeatures.shaderIntegerDotProduct"],
        ),
        // Ray queries trace through an acceleration structure, which needs
        // its own feature (and, to be built, buffer device addresses and
        // the deferred-host-operations extension that
        // VK_KHR_acceleration_structure requires).
        4472 => (
            "RayQueryKHR",
            &[
                "RayQueryFeaturesKHR.rayQuery",
                "AccelerationStructureFeaturesKHR.accelerationStructure",
                "BufferDeviceAddressFeatures.bufferDeviceAddress",
                "VK_KHR_deferred_host_operations",
            ],
        ),
        // A compute kernel with ray queries may declare it too (the
        // ray-tracing stages' instructions it brings are not valid in a
        // compute shader); Vulkan wants the pipeline feature enabled.
        4479 => (
            "RayTracingKHR",
            &["RayTracingPipelineFeaturesKHR.rayTracingPipeline"],
        ),
        4478 => (
            "RayTraversalPrimitiveCullingKHR",
            &["RayTracingPipelineFeaturesKHR.rayTraversalPrimitiveCulling"],
        ),
        6022 => (
            "CooperativeMatrixKHR",
            &["CooperativeMatrixFeaturesKHR.cooperativeMatrix"],
        ),
        _ => return None,
    })
}

/// What a SPIR-V module needs of the device before it can run, in the
/// names [`ReferenceOptions`](crate::ReferenceOptions) takes:
///
/// - a feature for each capability that has one (`Float16` →
///   `Float16Int8Features.shaderFloat16`, `VulkanMemoryModel`,
///   `WorkgroupMemoryExplicitLayoutKHR` →
///   `WorkgroupMemoryExplicitLayoutFeaturesKHR.workgroupMemoryExplicitLayout`,
///   …), and subgroup support for the `GroupNonUniform…` capabilities
///   (`SubgroupSupportedStages.compute`, `SubgroupSupportedOperations.…`);
/// - the device extension of each `OpExtension` (e.g.
///   `SPV_KHR_subgroup_uniform_control_flow` →
///   `VK_KHR_shader_subgroup_uniform_control_flow`; a promoted one is
///   satisfied by the core version) and `VK_KHR_spirv_1_4` for SPIR-V 1.4
///   and later;
/// - `ShaderSubgroupUniformControlFlowFeaturesKHR.shaderSubgroupUniformControlFlow`
///   for the `SubgroupUniformControlFlowKHR` execution mode of a compute
///   entry point, and
///   `ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory`
///   when a Workgroup variable has an initializer;
///
/// The Vulkan CTS registers its Amber tests with these as requirements
/// and runs them on a device with every supported feature enabled; the
/// `amber` tool enables only what the script asks for and hands the
/// module to the driver whatever it declares. Device creation is the only
/// time to enable anything, so scan every module of a script first and
/// pass the union as
/// [`ReferenceOptions::optional_features`](crate::ReferenceOptions::optional_features):
/// what the device supports is enabled, what it lacks is left off and the
/// module goes to the driver as Amber would give it. (As
/// [`features`](crate::ReferenceOptions::features) instead, a device that
/// lacks one fails with [`Error::UnsupportedFeatures`], the CTS's
/// behaviour.) [`Reference::pipeline`](crate::Reference::pipeline) checks
/// exactly this list: it refuses a module that needs something the device
/// supports but that was not enabled.
///
/// Errors only for a malformed module ([`Error::InvalidSpirv`]).
pub fn required_by_module(words: &[u32]) -> Result<Vec<String>> {
    Ok(scan(words)?.needs().into_iter().map(|n| n.name).collect())
}

/// Device extensions a module may not go to a driver without, with what
/// the module declares that needs each (`capability Groups`,
/// `VK_AMD_shader_ballot`): they stand for no feature a driver could
/// quietly lack, and lavapipe, which lacks `VK_AMD_shader_ballot`, still
/// runs the Groups instructions. A run without them is not Vulkan: give
/// them as required [`features`](crate::ReferenceOptions::features), so a
/// device that lacks one fails with [`Error::UnsupportedFeatures`].
///
/// Errors only for a malformed module ([`Error::InvalidSpirv`]).
pub fn extensions_required_by_module(words: &[u32]) -> Result<Vec<(String, String)>> {
    const REQUIRED: &[&str] = &["VK_AMD_shader_ballot"];
    Ok(scan(words)?
        .needs()
        .into_iter()
        .filter(|n| REQUIRED.contains(&n.name.as_str()))
        .map(|n| (n.declares, n.name))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn fixture(name: &str) -> Vec<u32> {
        let path = format!("{}/../fixtures/kernels/{name}", env!("CARGO_MANIFEST_DIR"));
        words(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
    }

    #[test]
    fn groups_needs_vk_amd_shader_ballot_which_no_driver_may_do_without() {
        for f in ["groups_amd.spv", "groups_vote_broadcast.spv"] {
            assert_eq!(
                extensions_required_by_module(&fixture(f)).unwrap(),
                [(
                    "capability Groups".to_string(),
                    "VK_AMD_shader_ballot".to_string()
                )],
                "{f}"
            );
            assert!(required_by_module(&fixture(f))
                .unwrap()
                .contains(&"VK_AMD_shader_ballot".to_string()));
        }
        // Other extensions stay optional.
        for f in ["subgroup_ballot_khr.spv", "storage_16_8.spv"] {
            assert_eq!(
                extensions_required_by_module(&fixture(f)).unwrap(),
                [],
                "{f}"
            );
        }
    }

    #[test]
    fn descriptor_indexing_asks_for_its_features() {
        let capability = |c: u32| [(2 << 16) | 17, c];
        let mut m = vec![0x0723_0203, 0x0001_0500, 0, 8, 0];
        for c in [1, 5301, 5302, 5307, 5312, 29] {
            m.extend(capability(c));
        }
        let needs = required_by_module(&m).unwrap();
        for want in [
            "DescriptorIndexingFeatures.runtimeDescriptorArray",
            "DescriptorIndexingFeatures.shaderSampledImageArrayNonUniformIndexing",
            "DescriptorIndexingFeatures.shaderStorageTexelBufferArrayNonUniformIndexing",
            "shaderSampledImageArrayDynamicIndexing",
        ] {
            assert!(needs.iter().any(|n| n == want), "{want} not in {needs:?}");
        }
        // Without the capabilities, none of it.
        let plain = [0x0723_0203, 0x0001_0500, 0, 8, 0, (2 << 16) | 17, 1];
        assert!(!required_by_module(&plain)
            .unwrap()
            .iter()
            .any(|n| n.starts_with("DescriptorIndexingFeatures.")));
    }

    #[test]
    fn reads_entry_points_capabilities_and_spec_sizes() {
        let m = scan(&fixture("spec_constants.spv")).unwrap();
        assert_eq!(m.compute_entries, ["main"]);
        assert_eq!(m.capabilities, [1]); // Shader
                                         // SpecId 0: the workgroup size x (uint); 1: float; 2: bool; 3: int.
        let sizes: Vec<(u32, Vec<u32>)> = m.spec_sizes.into_iter().collect();
        assert_eq!(
            sizes,
            [(0, vec![4]), (1, vec![4]), (2, vec![4]), (3, vec![4])]
        );

        let m = scan(&fixture("two_entry_points.spv")).unwrap();
        assert_eq!(m.compute_entries, ["main_a", "main_b"]);
        let m = scan(&fixture("mixed_models.spv")).unwrap();
        assert_eq!(m.compute_entries, ["main_cs"]); // the vertex entry is not listed
        let m = scan(&fixture("small_types.spv")).unwrap();
        for cap in [9, 22, 39] {
            assert!(m.capabilities.contains(&cap), "{cap}");
        }
    }

    fn test_kernel(name: &str) -> Vec<u32> {
        let path = format!("{}/tests/kernels/{name}", env!("CARGO_MANIFEST_DIR"));
        words(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
    }

    #[test]
    fn the_workgroup_size_follows_modes_built_ins_and_specialization() {
        // `LocalSize 256 1 1`.
        let m = scan(&fixture("shared_memory.spv")).unwrap();
        assert_eq!(m.local_size("main", &[]), Some([256, 1, 1]));
        assert_eq!(m.local_size("other", &[]), None);
        // `local_size_x_id = 0`: a WorkgroupSize spec constant composite.
        let m = scan(&test_kernel("subgroup_layout.spv")).unwrap();
        assert!(m.workgroup_size.is_some());
        assert_eq!(m.local_size("main", &[]), Some([1, 1, 1]));
        let spec = [(0, 20u32.to_le_bytes().to_vec())];
        assert_eq!(m.local_size("main", &spec), Some([20, 1, 1]));
        // Another SpecId changes nothing.
        let spec = [(7, 20u32.to_le_bytes().to_vec())];
        assert_eq!(m.local_size("main", &spec), Some([1, 1, 1]));
    }

    #[test]
    fn needs_name_what_the_cts_requires() {
        let names = |w: &[u32]| -> Vec<String> {
            scan(w)
                .unwrap()
                .needs()
                .into_iter()
                .map(|n| n.name)
                .collect()
        };
        assert_eq!(
            names(&test_kernel("zero_init.spv")),
            ["ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory"]
        );
        assert_eq!(
            names(&test_kernel("uniform_control_flow.spv")),
            [
                "SubgroupSupportedStages.compute",
                "SubgroupSupportedOperations.basic",
                "VK_KHR_shader_subgroup_uniform_control_flow",
                "ShaderSubgroupUniformControlFlowFeaturesKHR.shaderSubgroupUniformControlFlow",
            ]
        );
        // Negative controls: Workgroup memory without an initializer, and
        // a plain kernel, need nothing.
        assert!(names(&fixture("shared_memory.spv")).is_empty());
        assert!(names(&fixture("saxpy.spv")).is_empty());
        let small = names(&fixture("small_types.spv"));
        assert!(
            small.contains(&"Float16Int8Features.shaderFloat16".to_string()),
            "{small:?}"
        );
        // The extension forms of ballot and vote need their (deprecated)
        // device extensions; float atomics a feature per storage class.
        assert_eq!(
            names(&fixture("subgroup_ballot_khr.spv")),
            [
                "shaderInt64",
                "VK_EXT_shader_subgroup_ballot",
                "VK_EXT_shader_subgroup_vote",
            ]
        );
        assert_eq!(
            names(&fixture("atomic_float.spv")),
            [
                "ShaderAtomicFloatFeaturesEXT.shaderBufferFloat32AtomicAdd",
                "ShaderAtomicFloatFeaturesEXT.shaderSharedFloat32AtomicAdd",
                "VK_EXT_shader_atomic_float",
            ]
        );
        // Ray queries: the acceleration-structure features and extensions,
        // asked for by such a module only (saxpy above asks for none).
        assert_eq!(
            names(&test_kernel("ray_query.spv")),
            [
                "VK_KHR_spirv_1_4",
                "RayQueryFeaturesKHR.rayQuery",
                "AccelerationStructureFeaturesKHR.accelerationStructure",
                "BufferDeviceAddressFeatures.bufferDeviceAddress",
                "VK_KHR_deferred_host_operations",
                "VK_KHR_ray_query",
            ]
        );
        // SPIR-V 1.4 needs VK_KHR_spirv_1_4 (core in Vulkan 1.2).
        let mut w = fixture("saxpy.spv");
        w[1] = 0x0001_0400;
        assert_eq!(names(&w), ["VK_KHR_spirv_1_4"]);
    }

    #[test]
    fn malformed_modules_are_errors() {
        assert!(scan(&[MAGIC, 0, 0, 0]).is_err());
        let be = scan(&fixture("saxpy_be.spv")).unwrap_err().to_string();
        assert!(be.contains("big-endian"), "{be}");
        let mut w = fixture("saxpy.spv");
        w[5] = (1000 << 16) | OP_CAPABILITY; // runs past the end
        let e = scan(&w).unwrap_err().to_string();
        assert!(e.contains("word 5"), "{e}");
        w[5] = OP_CAPABILITY; // word count 0
        assert!(scan(&w).is_err());
    }
}
