//! Feature names in Amber's spelling, mapped to the Vulkan structures that
//! query and enable them.
//!
//! Every `VkPhysicalDevice*Features` structure is linked into a `pNext`
//! chain at most once, however many of its fields are asked for: a
//! structure linked twice makes the chain a loop, and `vkCreateDevice`
//! never returns.

use ash::vk;

use crate::error::{Error, Result};

/// The extension structures (beyond `VkPhysicalDeviceFeatures`) that
/// feature names can select. Index into [`Structs`] and [`EXT_STRUCTS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ext {
    VariablePointers = 0,
    Float16Int8 = 1,
    Storage8Bit = 2,
    Storage16Bit = 3,
    SubgroupSizeControl = 4,
    SubgroupExtendedTypes = 5,
    VulkanMemoryModel = 6,
    ZeroInitializeWorkgroupMemory = 7,
    WorkgroupMemoryExplicitLayout = 8,
    SubgroupUniformControlFlow = 9,
    CooperativeMatrix = 10,
    BufferDeviceAddress = 11,
    LongVector = 12,
    ShaderAtomicFloat = 13,
    ShaderExpectAssume = 14,
    ShaderIntegerDotProduct = 15,
    Maintenance4 = 16,
    AccelerationStructure = 17,
    RayQuery = 18,
    RayTracingPipeline = 19,
    DescriptorIndexing = 20,
}

/// An extension structure: Amber's prefix, the Vulkan version that made it
/// core (`None`: not core in any version this crate uses), the extension
/// that provides it otherwise, and its fields.
pub(crate) struct ExtStruct {
    pub ext: Ext,
    pub prefix: &'static str,
    pub core_in: Option<(u32, u32)>,
    pub extension: &'static str,
    pub fields: &'static [&'static str],
}

/// Every extension structure this crate knows, indexed by [`Ext`].
pub(crate) const EXT_STRUCTS: [ExtStruct; 21] = [
    ExtStruct {
        ext: Ext::VariablePointers,
        prefix: "VariablePointerFeatures",
        core_in: Some((1, 1)),
        extension: "VK_KHR_variable_pointers",
        fields: &["variablePointersStorageBuffer", "variablePointers"],
    },
    ExtStruct {
        ext: Ext::Float16Int8,
        prefix: "Float16Int8Features",
        core_in: Some((1, 2)),
        extension: "VK_KHR_shader_float16_int8",
        fields: &["shaderFloat16", "shaderInt8"],
    },
    ExtStruct {
        ext: Ext::Storage8Bit,
        prefix: "Storage8BitFeatures",
        core_in: Some((1, 2)),
        extension: "VK_KHR_8bit_storage",
        fields: &[
            "storageBuffer8BitAccess",
            "uniformAndStorageBuffer8BitAccess",
            "storagePushConstant8",
        ],
    },
    ExtStruct {
        ext: Ext::Storage16Bit,
        prefix: "Storage16BitFeatures",
        core_in: Some((1, 1)),
        extension: "VK_KHR_16bit_storage",
        fields: &[
            "storageBuffer16BitAccess",
            "uniformAndStorageBuffer16BitAccess",
            "storagePushConstant16",
            "storageInputOutput16",
        ],
    },
    ExtStruct {
        ext: Ext::SubgroupSizeControl,
        prefix: "SubgroupSizeControl",
        core_in: Some((1, 3)),
        extension: "VK_EXT_subgroup_size_control",
        fields: &["subgroupSizeControl", "computeFullSubgroups"],
    },
    ExtStruct {
        ext: Ext::SubgroupExtendedTypes,
        prefix: "ShaderSubgroupExtendedTypesFeatures",
        core_in: Some((1, 2)),
        extension: "VK_KHR_shader_subgroup_extended_types",
        fields: &["shaderSubgroupExtendedTypes"],
    },
    ExtStruct {
        ext: Ext::VulkanMemoryModel,
        prefix: "VulkanMemoryModelFeatures",
        core_in: Some((1, 2)),
        extension: "VK_KHR_vulkan_memory_model",
        fields: &[
            "vulkanMemoryModel",
            "vulkanMemoryModelDeviceScope",
            "vulkanMemoryModelAvailabilityVisibilityChains",
        ],
    },
    ExtStruct {
        ext: Ext::ZeroInitializeWorkgroupMemory,
        prefix: "ZeroInitializeWorkgroupMemoryFeatures",
        core_in: Some((1, 3)),
        extension: "VK_KHR_zero_initialize_workgroup_memory",
        fields: &["shaderZeroInitializeWorkgroupMemory"],
    },
    // Not in Amber's list (the Vulkan CTS enables every feature of its
    // device): the name follows Amber's pattern for KHR structures.
    ExtStruct {
        ext: Ext::WorkgroupMemoryExplicitLayout,
        prefix: "WorkgroupMemoryExplicitLayoutFeaturesKHR",
        core_in: None,
        extension: "VK_KHR_workgroup_memory_explicit_layout",
        fields: &[
            "workgroupMemoryExplicitLayout",
            "workgroupMemoryExplicitLayoutScalarBlockLayout",
            "workgroupMemoryExplicitLayout8BitAccess",
            "workgroupMemoryExplicitLayout16BitAccess",
        ],
    },
    // Not in Amber's list either (same reason).
    ExtStruct {
        ext: Ext::SubgroupUniformControlFlow,
        prefix: "ShaderSubgroupUniformControlFlowFeaturesKHR",
        core_in: None,
        extension: "VK_KHR_shader_subgroup_uniform_control_flow",
        fields: &["shaderSubgroupUniformControlFlow"],
    },
    ExtStruct {
        ext: Ext::CooperativeMatrix,
        prefix: "CooperativeMatrixFeaturesKHR",
        core_in: None,
        extension: "VK_KHR_cooperative_matrix",
        fields: &["cooperativeMatrix", "cooperativeMatrixRobustBufferAccess"],
    },
    ExtStruct {
        ext: Ext::BufferDeviceAddress,
        prefix: "BufferDeviceAddressFeatures",
        core_in: Some((1, 2)),
        extension: "VK_KHR_buffer_device_address",
        fields: &[
            "bufferDeviceAddress",
            "bufferDeviceAddressCaptureReplay",
            "bufferDeviceAddressMultiDevice",
        ],
    },
    ExtStruct {
        ext: Ext::LongVector,
        prefix: "ShaderLongVectorFeaturesEXT",
        core_in: None,
        extension: "VK_EXT_shader_long_vector",
        fields: &["longVector"],
    },
    // Not in Amber's list either: the name follows Amber's pattern for EXT
    // structures.
    ExtStruct {
        ext: Ext::ShaderAtomicFloat,
        prefix: "ShaderAtomicFloatFeaturesEXT",
        core_in: None,
        extension: "VK_EXT_shader_atomic_float",
        fields: &[
            "shaderBufferFloat32Atomics",
            "shaderBufferFloat32AtomicAdd",
            "shaderBufferFloat64Atomics",
            "shaderBufferFloat64AtomicAdd",
            "shaderSharedFloat32Atomics",
            "shaderSharedFloat32AtomicAdd",
            "shaderSharedFloat64Atomics",
            "shaderSharedFloat64AtomicAdd",
            "shaderImageFloat32Atomics",
            "shaderImageFloat32AtomicAdd",
            "sparseImageFloat32Atomics",
            "sparseImageFloat32AtomicAdd",
        ],
    },
    // Not in Amber's list either: the names follow Amber's pattern.
    ExtStruct {
        ext: Ext::ShaderExpectAssume,
        prefix: "ShaderExpectAssumeFeaturesKHR",
        core_in: None,
        extension: "VK_KHR_shader_expect_assume",
        fields: &["shaderExpectAssume"],
    },
    ExtStruct {
        ext: Ext::ShaderIntegerDotProduct,
        prefix: "ShaderIntegerDotProductFeatures",
        core_in: Some((1, 3)),
        extension: "VK_KHR_shader_integer_dot_product",
        fields: &["shaderIntegerDotProduct"],
    },
    ExtStruct {
        ext: Ext::Maintenance4,
        prefix: "Maintenance4Features",
        core_in: Some((1, 3)),
        extension: "VK_KHR_maintenance4",
        fields: &["maintenance4"],
    },
    // Amber's spelling (its `DEVICE_FEATURE` list has
    // `accelerationStructure`).
    ExtStruct {
        ext: Ext::AccelerationStructure,
        prefix: "AccelerationStructureFeaturesKHR",
        core_in: None,
        extension: "VK_KHR_acceleration_structure",
        fields: &[
            "accelerationStructure",
            "accelerationStructureCaptureReplay",
            "accelerationStructureIndirectBuild",
            "accelerationStructureHostCommands",
            "descriptorBindingAccelerationStructureUpdateAfterBind",
        ],
    },
    // Not in Amber's list: the name follows its pattern for KHR structures.
    ExtStruct {
        ext: Ext::RayQuery,
        prefix: "RayQueryFeaturesKHR",
        core_in: None,
        extension: "VK_KHR_ray_query",
        fields: &["rayQuery"],
    },
    // Amber's spelling; a compute kernel meets it through
    // `RayTraversalPrimitiveCullingKHR` (ray queries that skip triangles or
    // boxes by ray flag).
    ExtStruct {
        ext: Ext::RayTracingPipeline,
        prefix: "RayTracingPipelineFeaturesKHR",
        core_in: None,
        extension: "VK_KHR_ray_tracing_pipeline",
        fields: &[
            "rayTracingPipeline",
            "rayTracingPipelineShaderGroupHandleCaptureReplay",
            "rayTracingPipelineShaderGroupHandleCaptureReplayMixed",
            "rayTracingPipelineTraceRaysIndirect",
            "rayTraversalPrimitiveCulling",
        ],
    }, // Amber's spelling (its `DEVICE_FEATURE` list has
    // `DescriptorIndexingFeatures.runtimeDescriptorArray` and the others).
    ExtStruct {
        ext: Ext::DescriptorIndexing,
        prefix: "DescriptorIndexingFeatures",
        core_in: Some((1, 2)),
        extension: "VK_EXT_descriptor_indexing",
        fields: &[
            "shaderInputAttachmentArrayDynamicIndexing",
            "shaderUniformTexelBufferArrayDynamicIndexing",
            "shaderStorageTexelBufferArrayDynamicIndexing",
            "shaderUniformBufferArrayNonUniformIndexing",
            "shaderSampledImageArrayNonUniformIndexing",
            "shaderStorageBufferArrayNonUniformIndexing",
            "shaderStorageImageArrayNonUniformIndexing",
            "shaderInputAttachmentArrayNonUniformIndexing",
            "shaderUniformTexelBufferArrayNonUniformIndexing",
            "shaderStorageTexelBufferArrayNonUniformIndexing",
            "descriptorBindingUniformBufferUpdateAfterBind",
            "descriptorBindingSampledImageUpdateAfterBind",
            "descriptorBindingStorageImageUpdateAfterBind",
            "descriptorBindingStorageBufferUpdateAfterBind",
            "descriptorBindingUniformTexelBufferUpdateAfterBind",
            "descriptorBindingStorageTexelBufferUpdateAfterBind",
            "descriptorBindingUpdateUnusedWhilePending",
            "descriptorBindingPartiallyBound",
            "descriptorBindingVariableDescriptorCount",
            "runtimeDescriptorArray",
        ],
    },
];

/// Device extensions promoted to core, with the version that made them
/// core: a request for one is satisfied by a device of that version even
/// when it no longer lists the extension (it is enabled when listed, as
/// Amber does). Instance extensions promoted in 1.1 are here too: the
/// instance is always 1.1 or newer.
pub(crate) const PROMOTED: [(&str, (u32, u32)); 39] = [
    ("VK_KHR_get_physical_device_properties2", (1, 1)),
    ("VK_KHR_external_memory_capabilities", (1, 1)),
    ("VK_KHR_external_semaphore_capabilities", (1, 1)),
    ("VK_KHR_external_fence_capabilities", (1, 1)),
    ("VK_KHR_device_group_creation", (1, 1)),
    ("VK_KHR_16bit_storage", (1, 1)),
    ("VK_KHR_storage_buffer_storage_class", (1, 1)),
    ("VK_KHR_variable_pointers", (1, 1)),
    ("VK_KHR_maintenance1", (1, 1)),
    ("VK_KHR_maintenance2", (1, 1)),
    ("VK_KHR_maintenance3", (1, 1)),
    ("VK_KHR_dedicated_allocation", (1, 1)),
    ("VK_KHR_get_memory_requirements2", (1, 1)),
    ("VK_KHR_bind_memory2", (1, 1)),
    ("VK_KHR_relaxed_block_layout", (1, 1)),
    ("VK_KHR_descriptor_update_template", (1, 1)),
    ("VK_KHR_shader_draw_parameters", (1, 1)),
    ("VK_KHR_8bit_storage", (1, 2)),
    ("VK_KHR_shader_float16_int8", (1, 2)),
    ("VK_KHR_shader_float_controls", (1, 2)),
    ("VK_KHR_shader_atomic_int64", (1, 2)),
    ("VK_KHR_shader_subgroup_extended_types", (1, 2)),
    ("VK_KHR_spirv_1_4", (1, 2)),
    ("VK_KHR_vulkan_memory_model", (1, 2)),
    ("VK_KHR_buffer_device_address", (1, 2)),
    ("VK_KHR_uniform_buffer_standard_layout", (1, 2)),
    ("VK_KHR_driver_properties", (1, 2)),
    ("VK_KHR_timeline_semaphore", (1, 2)),
    ("VK_EXT_descriptor_indexing", (1, 2)),
    ("VK_EXT_scalar_block_layout", (1, 2)),
    ("VK_EXT_host_query_reset", (1, 2)),
    ("VK_KHR_zero_initialize_workgroup_memory", (1, 3)),
    ("VK_EXT_subgroup_size_control", (1, 3)),
    ("VK_KHR_shader_terminate_invocation", (1, 3)),
    ("VK_KHR_shader_integer_dot_product", (1, 3)),
    ("VK_KHR_shader_non_semantic_info", (1, 3)),
    ("VK_EXT_shader_demote_to_helper_invocation", (1, 3)),
    ("VK_KHR_maintenance4", (1, 3)),
    ("VK_KHR_synchronization2", (1, 3)),
];

/// The Vulkan version (as `vk::make_api_version`) that made extension
/// `name` core, if it did.
pub(crate) fn promoted_in(name: &str) -> Option<u32> {
    PROMOTED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, (major, minor))| vk::make_api_version(0, *major, *minor, 0))
}

/// `VkPhysicalDeviceFloatControlsProperties` booleans, Amber's
/// `FloatControlsProperties.*` (the only device properties Amber knows).
pub(crate) const FLOAT_CONTROLS: [&str; 15] = [
    "shaderSignedZeroInfNanPreserveFloat16",
    "shaderSignedZeroInfNanPreserveFloat32",
    "shaderSignedZeroInfNanPreserveFloat64",
    "shaderDenormPreserveFloat16",
    "shaderDenormPreserveFloat32",
    "shaderDenormPreserveFloat64",
    "shaderDenormFlushToZeroFloat16",
    "shaderDenormFlushToZeroFloat32",
    "shaderDenormFlushToZeroFloat64",
    "shaderRoundingModeRTEFloat16",
    "shaderRoundingModeRTEFloat32",
    "shaderRoundingModeRTEFloat64",
    "shaderRoundingModeRTZFloat16",
    "shaderRoundingModeRTZFloat32",
    "shaderRoundingModeRTZFloat64",
];

/// Every property name that
/// [`ReferenceOptions::properties`](crate::ReferenceOptions::properties)
/// accepts.
pub fn property_names() -> Vec<String> {
    FLOAT_CONTROLS
        .iter()
        .map(|f| format!("FloatControlsProperties.{f}"))
        .collect()
}

/// Resolves a property name to its index in [`FLOAT_CONTROLS`].
pub(crate) fn parse_property(name: &str) -> Result<usize> {
    name.strip_prefix("FloatControlsProperties.")
        .and_then(|f| FLOAT_CONTROLS.iter().position(|g| *g == f))
        .ok_or_else(|| Error::UnknownProperty {
            name: name.to_string(),
        })
}

/// The booleans of `p` in [`FLOAT_CONTROLS`] order.
pub(crate) fn float_controls(p: &vk::PhysicalDeviceFloatControlsProperties<'_>) -> [bool; 15] {
    [
        p.shader_signed_zero_inf_nan_preserve_float16,
        p.shader_signed_zero_inf_nan_preserve_float32,
        p.shader_signed_zero_inf_nan_preserve_float64,
        p.shader_denorm_preserve_float16,
        p.shader_denorm_preserve_float32,
        p.shader_denorm_preserve_float64,
        p.shader_denorm_flush_to_zero_float16,
        p.shader_denorm_flush_to_zero_float32,
        p.shader_denorm_flush_to_zero_float64,
        p.shader_rounding_mode_rte_float16,
        p.shader_rounding_mode_rte_float32,
        p.shader_rounding_mode_rte_float64,
        p.shader_rounding_mode_rtz_float16,
        p.shader_rounding_mode_rtz_float32,
        p.shader_rounding_mode_rtz_float64,
    ]
    .map(|b| b == vk::TRUE)
}

/// `VkPhysicalDeviceShaderLongVectorFeaturesEXT`, newer than the Vulkan
/// headers `ash` 0.38 was generated from (`vulkan_core.h`, 1.4.3xx).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct LongVectorFeatures {
    s_type: vk::StructureType,
    p_next: *mut std::ffi::c_void,
    long_vector: vk::Bool32,
}

/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_LONG_VECTOR_FEATURES_EXT`.
const LONG_VECTOR_FEATURES: vk::StructureType = vk::StructureType::from_raw(1_000_635_000);

impl Default for LongVectorFeatures {
    fn default() -> Self {
        LongVectorFeatures {
            s_type: LONG_VECTOR_FEATURES,
            p_next: std::ptr::null_mut(),
            long_vector: vk::FALSE,
        }
    }
}

// SAFETY: the struct is `#[repr(C)]` and laid out as the C
// `VkPhysicalDeviceShaderLongVectorFeaturesEXT` (sType, pNext, one
// VkBool32), which the specification allows in a VkPhysicalDeviceFeatures2
// chain (queries and device creation).
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for LongVectorFeatures {}

/// `VkPhysicalDeviceFeatures` fields in declaration order.
pub(crate) const CORE_FIELDS: [&str; 55] = [
    "robustBufferAccess",
    "fullDrawIndexUint32",
    "imageCubeArray",
    "independentBlend",
    "geometryShader",
    "tessellationShader",
    "sampleRateShading",
    "dualSrcBlend",
    "logicOp",
    "multiDrawIndirect",
    "drawIndirectFirstInstance",
    "depthClamp",
    "depthBiasClamp",
    "fillModeNonSolid",
    "depthBounds",
    "wideLines",
    "largePoints",
    "alphaToOne",
    "multiViewport",
    "samplerAnisotropy",
    "textureCompressionETC2",
    "textureCompressionASTC_LDR",
    "textureCompressionBC",
    "occlusionQueryPrecise",
    "pipelineStatisticsQuery",
    "vertexPipelineStoresAndAtomics",
    "fragmentStoresAndAtomics",
    "shaderTessellationAndGeometryPointSize",
    "shaderImageGatherExtended",
    "shaderStorageImageExtendedFormats",
    "shaderStorageImageMultisample",
    "shaderStorageImageReadWithoutFormat",
    "shaderStorageImageWriteWithoutFormat",
    "shaderUniformBufferArrayDynamicIndexing",
    "shaderSampledImageArrayDynamicIndexing",
    "shaderStorageBufferArrayDynamicIndexing",
    "shaderStorageImageArrayDynamicIndexing",
    "shaderClipDistance",
    "shaderCullDistance",
    "shaderFloat64",
    "shaderInt64",
    "shaderInt16",
    "shaderResourceResidency",
    "shaderResourceMinLod",
    "sparseBinding",
    "sparseResidencyBuffer",
    "sparseResidencyImage2D",
    "sparseResidencyImage3D",
    "sparseResidency2Samples",
    "sparseResidency4Samples",
    "sparseResidency8Samples",
    "sparseResidency16Samples",
    "sparseResidencyAliased",
    "variableMultisampleRate",
    "inheritedQueries",
];

/// `SubgroupSupportedOperations.*` names and their flags.
const SUBGROUP_OPS: [(&str, vk::SubgroupFeatureFlags); 8] = [
    ("basic", vk::SubgroupFeatureFlags::BASIC),
    ("vote", vk::SubgroupFeatureFlags::VOTE),
    ("arithmetic", vk::SubgroupFeatureFlags::ARITHMETIC),
    ("ballot", vk::SubgroupFeatureFlags::BALLOT),
    ("shuffle", vk::SubgroupFeatureFlags::SHUFFLE),
    (
        "shuffleRelative",
        vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE,
    ),
    ("clustered", vk::SubgroupFeatureFlags::CLUSTERED),
    ("quad", vk::SubgroupFeatureFlags::QUAD),
];

/// `SubgroupSupportedStages.*` names and their flags.
const SUBGROUP_STAGES: [(&str, vk::ShaderStageFlags); 6] = [
    ("vertex", vk::ShaderStageFlags::VERTEX),
    (
        "tessellationControl",
        vk::ShaderStageFlags::TESSELLATION_CONTROL,
    ),
    (
        "tessellationEvaluation",
        vk::ShaderStageFlags::TESSELLATION_EVALUATION,
    ),
    ("geometry", vk::ShaderStageFlags::GEOMETRY),
    ("fragment", vk::ShaderStageFlags::FRAGMENT),
    ("compute", vk::ShaderStageFlags::COMPUTE),
];

/// Every feature name that
/// [`ReferenceOptions::features`](crate::ReferenceOptions::features)
/// accepts, besides `VK_…` extension names.
pub fn feature_names() -> Vec<String> {
    let mut out: Vec<String> = CORE_FIELDS.iter().map(|s| s.to_string()).collect();
    for s in &EXT_STRUCTS {
        out.extend(s.fields.iter().map(|f| format!("{}.{f}", s.prefix)));
    }
    out.extend(
        SUBGROUP_OPS
            .iter()
            .map(|(n, _)| format!("SubgroupSupportedOperations.{n}")),
    );
    out.extend(
        SUBGROUP_STAGES
            .iter()
            .map(|(n, _)| format!("SubgroupSupportedStages.{n}")),
    );
    out
}

/// One requested name, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Feature {
    /// A `VkPhysicalDeviceFeatures` field, by index into [`CORE_FIELDS`].
    Core(usize),
    /// A field of an extension structure.
    Ext(Ext, usize),
    /// A subgroup operation class: checked, never enabled.
    SubgroupOp(vk::SubgroupFeatureFlags),
    /// A shader stage with subgroup support: checked, never enabled.
    SubgroupStage(vk::ShaderStageFlags),
    /// A device (or, failing that, instance) extension.
    Extension(String),
}

impl Feature {
    /// Resolves an Amber-style name. `VariablePointerFeatures.` also
    /// accepts `VariablePointersFeatures.` (the Vulkan struct's spelling).
    pub(crate) fn parse(name: &str) -> Result<Feature> {
        let unknown = || Error::UnknownFeature {
            name: name.to_string(),
        };
        if name.starts_with("VK_") {
            return Ok(Feature::Extension(name.to_string()));
        }
        let Some((prefix, field)) = name.split_once('.') else {
            return CORE_FIELDS
                .iter()
                .position(|f| *f == name)
                .map(Feature::Core)
                .ok_or_else(unknown);
        };
        match prefix {
            "SubgroupSupportedOperations" => SUBGROUP_OPS
                .iter()
                .find(|(n, _)| *n == field)
                .map(|(_, f)| Feature::SubgroupOp(*f))
                .ok_or_else(unknown),
            "SubgroupSupportedStages" => SUBGROUP_STAGES
                .iter()
                .find(|(n, _)| *n == field)
                .map(|(_, f)| Feature::SubgroupStage(*f))
                .ok_or_else(unknown),
            _ => {
                let prefix = if prefix == "VariablePointersFeatures" {
                    "VariablePointerFeatures"
                } else {
                    prefix
                };
                let s = EXT_STRUCTS
                    .iter()
                    .find(|s| s.prefix == prefix)
                    .ok_or_else(unknown)?;
                let i = s
                    .fields
                    .iter()
                    .position(|f| *f == field)
                    .ok_or_else(unknown)?;
                Ok(Feature::Ext(s.ext, i))
            }
        }
    }

    /// The canonical (Amber) name.
    pub(crate) fn name(&self) -> String {
        match self {
            Feature::Core(i) => CORE_FIELDS[*i].to_string(),
            Feature::Ext(e, i) => {
                let s = &EXT_STRUCTS[*e as usize];
                format!("{}.{}", s.prefix, s.fields[*i])
            }
            Feature::SubgroupOp(f) => format!(
                "SubgroupSupportedOperations.{}",
                SUBGROUP_OPS
                    .iter()
                    .find(|(_, g)| g == f)
                    .map_or("?", |p| p.0)
            ),
            Feature::SubgroupStage(f) => format!(
                "SubgroupSupportedStages.{}",
                SUBGROUP_STAGES
                    .iter()
                    .find(|(_, g)| g == f)
                    .map_or("?", |p| p.0)
            ),
            Feature::Extension(e) => e.clone(),
        }
    }
}

/// The feature structures, one of each, to be linked once each into a
/// `VkPhysicalDeviceFeatures2` chain.
#[derive(Default)]
pub(crate) struct Structs {
    pub core: vk::PhysicalDeviceFeatures,
    variable_pointers: vk::PhysicalDeviceVariablePointersFeatures<'static>,
    float16_int8: vk::PhysicalDeviceShaderFloat16Int8Features<'static>,
    storage8: vk::PhysicalDevice8BitStorageFeatures<'static>,
    storage16: vk::PhysicalDevice16BitStorageFeatures<'static>,
    subgroup_size: vk::PhysicalDeviceSubgroupSizeControlFeatures<'static>,
    subgroup_types: vk::PhysicalDeviceShaderSubgroupExtendedTypesFeatures<'static>,
    memory_model: vk::PhysicalDeviceVulkanMemoryModelFeatures<'static>,
    zero_init: vk::PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures<'static>,
    explicit_layout: vk::PhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR<'static>,
    uniform_control_flow: vk::PhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR<'static>,
    cooperative_matrix: vk::PhysicalDeviceCooperativeMatrixFeaturesKHR<'static>,
    device_address: vk::PhysicalDeviceBufferDeviceAddressFeatures<'static>,
    long_vector: LongVectorFeatures,
    atomic_float: vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT<'static>,
    expect_assume: vk::PhysicalDeviceShaderExpectAssumeFeaturesKHR<'static>,
    integer_dot_product: vk::PhysicalDeviceShaderIntegerDotProductFeatures<'static>,
    maintenance4: vk::PhysicalDeviceMaintenance4Features<'static>,
    acceleration_structure: vk::PhysicalDeviceAccelerationStructureFeaturesKHR<'static>,
    ray_query: vk::PhysicalDeviceRayQueryFeaturesKHR<'static>,
    ray_tracing_pipeline: vk::PhysicalDeviceRayTracingPipelineFeaturesKHR<'static>,
    descriptor_indexing: vk::PhysicalDeviceDescriptorIndexingFeatures<'static>,
}

impl Structs {
    /// The `VkBool32` of a core field.
    pub(crate) fn core_slot(&mut self, i: usize) -> &mut vk::Bool32 {
        let f = &mut self.core;
        let slots = [
            &mut f.robust_buffer_access,
            &mut f.full_draw_index_uint32,
            &mut f.image_cube_array,
            &mut f.independent_blend,
            &mut f.geometry_shader,
            &mut f.tessellation_shader,
            &mut f.sample_rate_shading,
            &mut f.dual_src_blend,
            &mut f.logic_op,
            &mut f.multi_draw_indirect,
            &mut f.draw_indirect_first_instance,
            &mut f.depth_clamp,
            &mut f.depth_bias_clamp,
            &mut f.fill_mode_non_solid,
            &mut f.depth_bounds,
            &mut f.wide_lines,
            &mut f.large_points,
            &mut f.alpha_to_one,
            &mut f.multi_viewport,
            &mut f.sampler_anisotropy,
            &mut f.texture_compression_etc2,
            &mut f.texture_compression_astc_ldr,
            &mut f.texture_compression_bc,
            &mut f.occlusion_query_precise,
            &mut f.pipeline_statistics_query,
            &mut f.vertex_pipeline_stores_and_atomics,
            &mut f.fragment_stores_and_atomics,
            &mut f.shader_tessellation_and_geometry_point_size,
            &mut f.shader_image_gather_extended,
            &mut f.shader_storage_image_extended_formats,
            &mut f.shader_storage_image_multisample,
            &mut f.shader_storage_image_read_without_format,
            &mut f.shader_storage_image_write_without_format,
            &mut f.shader_uniform_buffer_array_dynamic_indexing,
            &mut f.shader_sampled_image_array_dynamic_indexing,
            &mut f.shader_storage_buffer_array_dynamic_indexing,
            &mut f.shader_storage_image_array_dynamic_indexing,
            &mut f.shader_clip_distance,
            &mut f.shader_cull_distance,
            &mut f.shader_float64,
            &mut f.shader_int64,
            &mut f.shader_int16,
            &mut f.shader_resource_residency,
            &mut f.shader_resource_min_lod,
            &mut f.sparse_binding,
            &mut f.sparse_residency_buffer,
            &mut f.sparse_residency_image2_d,
            &mut f.sparse_residency_image3_d,
            &mut f.sparse_residency2_samples,
            &mut f.sparse_residency4_samples,
            &mut f.sparse_residency8_samples,
            &mut f.sparse_residency16_samples,
            &mut f.sparse_residency_aliased,
            &mut f.variable_multisample_rate,
            &mut f.inherited_queries,
        ];
        slots.into_iter().nth(i).expect("core feature index")
    }

    /// The `VkBool32` of an extension structure's field.
    pub(crate) fn ext_slot(&mut self, e: Ext, i: usize) -> &mut vk::Bool32 {
        let slots: Vec<&mut vk::Bool32> = match e {
            Ext::VariablePointers => {
                let s = &mut self.variable_pointers;
                vec![
                    &mut s.variable_pointers_storage_buffer,
                    &mut s.variable_pointers,
                ]
            }
            Ext::Float16Int8 => {
                let s = &mut self.float16_int8;
                vec![&mut s.shader_float16, &mut s.shader_int8]
            }
            Ext::Storage8Bit => {
                let s = &mut self.storage8;
                vec![
                    &mut s.storage_buffer8_bit_access,
                    &mut s.uniform_and_storage_buffer8_bit_access,
                    &mut s.storage_push_constant8,
                ]
            }
            Ext::Storage16Bit => {
                let s = &mut self.storage16;
                vec![
                    &mut s.storage_buffer16_bit_access,
                    &mut s.uniform_and_storage_buffer16_bit_access,
                    &mut s.storage_push_constant16,
                    &mut s.storage_input_output16,
                ]
            }
            Ext::SubgroupSizeControl => {
                let s = &mut self.subgroup_size;
                vec![&mut s.subgroup_size_control, &mut s.compute_full_subgroups]
            }
            Ext::SubgroupExtendedTypes => {
                vec![&mut self.subgroup_types.shader_subgroup_extended_types]
            }
            Ext::VulkanMemoryModel => {
                let s = &mut self.memory_model;
                vec![
                    &mut s.vulkan_memory_model,
                    &mut s.vulkan_memory_model_device_scope,
                    &mut s.vulkan_memory_model_availability_visibility_chains,
                ]
            }
            Ext::ZeroInitializeWorkgroupMemory => {
                vec![&mut self.zero_init.shader_zero_initialize_workgroup_memory]
            }
            Ext::WorkgroupMemoryExplicitLayout => {
                let s = &mut self.explicit_layout;
                vec![
                    &mut s.workgroup_memory_explicit_layout,
                    &mut s.workgroup_memory_explicit_layout_scalar_block_layout,
                    &mut s.workgroup_memory_explicit_layout8_bit_access,
                    &mut s.workgroup_memory_explicit_layout16_bit_access,
                ]
            }
            Ext::SubgroupUniformControlFlow => {
                vec![
                    &mut self
                        .uniform_control_flow
                        .shader_subgroup_uniform_control_flow,
                ]
            }
            Ext::CooperativeMatrix => {
                let s = &mut self.cooperative_matrix;
                vec![
                    &mut s.cooperative_matrix,
                    &mut s.cooperative_matrix_robust_buffer_access,
                ]
            }
            Ext::BufferDeviceAddress => {
                let s = &mut self.device_address;
                vec![
                    &mut s.buffer_device_address,
                    &mut s.buffer_device_address_capture_replay,
                    &mut s.buffer_device_address_multi_device,
                ]
            }
            Ext::LongVector => vec![&mut self.long_vector.long_vector],
            Ext::ShaderAtomicFloat => {
                let s = &mut self.atomic_float;
                vec![
                    &mut s.shader_buffer_float32_atomics,
                    &mut s.shader_buffer_float32_atomic_add,
                    &mut s.shader_buffer_float64_atomics,
                    &mut s.shader_buffer_float64_atomic_add,
                    &mut s.shader_shared_float32_atomics,
                    &mut s.shader_shared_float32_atomic_add,
                    &mut s.shader_shared_float64_atomics,
                    &mut s.shader_shared_float64_atomic_add,
                    &mut s.shader_image_float32_atomics,
                    &mut s.shader_image_float32_atomic_add,
                    &mut s.sparse_image_float32_atomics,
                    &mut s.sparse_image_float32_atomic_add,
                ]
            }
            Ext::ShaderExpectAssume => vec![&mut self.expect_assume.shader_expect_assume],
            Ext::ShaderIntegerDotProduct => {
                vec![&mut self.integer_dot_product.shader_integer_dot_product]
            }
            Ext::Maintenance4 => vec![&mut self.maintenance4.maintenance4],
            Ext::AccelerationStructure => {
                let s = &mut self.acceleration_structure;
                vec![
                    &mut s.acceleration_structure,
                    &mut s.acceleration_structure_capture_replay,
                    &mut s.acceleration_structure_indirect_build,
                    &mut s.acceleration_structure_host_commands,
                    &mut s.descriptor_binding_acceleration_structure_update_after_bind,
                ]
            }
            Ext::RayQuery => vec![&mut self.ray_query.ray_query],
            Ext::RayTracingPipeline => {
                let s = &mut self.ray_tracing_pipeline;
                vec![
                    &mut s.ray_tracing_pipeline,
                    &mut s.ray_tracing_pipeline_shader_group_handle_capture_replay,
                    &mut s.ray_tracing_pipeline_shader_group_handle_capture_replay_mixed,
                    &mut s.ray_tracing_pipeline_trace_rays_indirect,
                    &mut s.ray_traversal_primitive_culling,
                ]
            }
            Ext::DescriptorIndexing => {
                let s = &mut self.descriptor_indexing;
                vec![
                    &mut s.shader_input_attachment_array_dynamic_indexing,
                    &mut s.shader_uniform_texel_buffer_array_dynamic_indexing,
                    &mut s.shader_storage_texel_buffer_array_dynamic_indexing,
                    &mut s.shader_uniform_buffer_array_non_uniform_indexing,
                    &mut s.shader_sampled_image_array_non_uniform_indexing,
                    &mut s.shader_storage_buffer_array_non_uniform_indexing,
                    &mut s.shader_storage_image_array_non_uniform_indexing,
                    &mut s.shader_input_attachment_array_non_uniform_indexing,
                    &mut s.shader_uniform_texel_buffer_array_non_uniform_indexing,
                    &mut s.shader_storage_texel_buffer_array_non_uniform_indexing,
                    &mut s.descriptor_binding_uniform_buffer_update_after_bind,
                    &mut s.descriptor_binding_sampled_image_update_after_bind,
                    &mut s.descriptor_binding_storage_image_update_after_bind,
                    &mut s.descriptor_binding_storage_buffer_update_after_bind,
                    &mut s.descriptor_binding_uniform_texel_buffer_update_after_bind,
                    &mut s.descriptor_binding_storage_texel_buffer_update_after_bind,
                    &mut s.descriptor_binding_update_unused_while_pending,
                    &mut s.descriptor_binding_partially_bound,
                    &mut s.descriptor_binding_variable_descriptor_count,
                    &mut s.runtime_descriptor_array,
                ]
            }
        };
        slots.into_iter().nth(i).expect("feature field index")
    }

    /// A `VkPhysicalDeviceFeatures2` whose `pNext` chain links each
    /// structure in `used` exactly once (and nothing else). The core
    /// features are copied in; read them back from the result's
    /// `features` after a query.
    pub(crate) fn chain(&mut self, used: &[Ext]) -> vk::PhysicalDeviceFeatures2<'_> {
        let mut want = [false; EXT_STRUCTS.len()];
        for e in used {
            want[*e as usize] = true;
        }
        let mut f2 = vk::PhysicalDeviceFeatures2::default().features(self.core);
        // Each `push_next` takes a distinct field, so no structure can be
        // linked twice.
        if want[Ext::VariablePointers as usize] {
            f2 = f2.push_next(&mut self.variable_pointers);
        }
        if want[Ext::Float16Int8 as usize] {
            f2 = f2.push_next(&mut self.float16_int8);
        }
        if want[Ext::Storage8Bit as usize] {
            f2 = f2.push_next(&mut self.storage8);
        }
        if want[Ext::Storage16Bit as usize] {
            f2 = f2.push_next(&mut self.storage16);
        }
        if want[Ext::SubgroupSizeControl as usize] {
            f2 = f2.push_next(&mut self.subgroup_size);
        }
        if want[Ext::SubgroupExtendedTypes as usize] {
            f2 = f2.push_next(&mut self.subgroup_types);
        }
        if want[Ext::VulkanMemoryModel as usize] {
            f2 = f2.push_next(&mut self.memory_model);
        }
        if want[Ext::ZeroInitializeWorkgroupMemory as usize] {
            f2 = f2.push_next(&mut self.zero_init);
        }
        if want[Ext::WorkgroupMemoryExplicitLayout as usize] {
            f2 = f2.push_next(&mut self.explicit_layout);
        }
        if want[Ext::SubgroupUniformControlFlow as usize] {
            f2 = f2.push_next(&mut self.uniform_control_flow);
        }
        if want[Ext::CooperativeMatrix as usize] {
            f2 = f2.push_next(&mut self.cooperative_matrix);
        }
        if want[Ext::BufferDeviceAddress as usize] {
            f2 = f2.push_next(&mut self.device_address);
        }
        if want[Ext::LongVector as usize] {
            f2 = f2.push_next(&mut self.long_vector);
        }
        if want[Ext::ShaderAtomicFloat as usize] {
            f2 = f2.push_next(&mut self.atomic_float);
        }
        if want[Ext::ShaderExpectAssume as usize] {
            f2 = f2.push_next(&mut self.expect_assume);
        }
        if want[Ext::ShaderIntegerDotProduct as usize] {
            f2 = f2.push_next(&mut self.integer_dot_product);
        }
        if want[Ext::Maintenance4 as usize] {
            f2 = f2.push_next(&mut self.maintenance4);
        }
        if want[Ext::AccelerationStructure as usize] {
            f2 = f2.push_next(&mut self.acceleration_structure);
        }
        if want[Ext::RayQuery as usize] {
            f2 = f2.push_next(&mut self.ray_query);
        }
        if want[Ext::RayTracingPipeline as usize] {
            f2 = f2.push_next(&mut self.ray_tracing_pipeline);
        }
        if want[Ext::DescriptorIndexing as usize] {
            f2 = f2.push_next(&mut self.descriptor_indexing);
        }
        f2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_parses_back() {
        let names = feature_names();
        assert_eq!(
            names.len(),
            55 + 17 + 1 + 4 + 1 + 2 + 3 + 1 + 8 + 6 + 12 + 3 + 5 + 1 + 5 + 20
        );
        for n in names {
            assert_eq!(Feature::parse(&n).unwrap().name(), n);
        }
    }

    #[test]
    fn names_round_trip() {
        for name in [
            "shaderInt64",
            "robustBufferAccess",
            "inheritedQueries",
            "Float16Int8Features.shaderInt8",
            "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
            "Storage8BitFeatures.storagePushConstant8",
            "VariablePointerFeatures.variablePointersStorageBuffer",
            "SubgroupSizeControl.computeFullSubgroups",
            "ShaderSubgroupExtendedTypesFeatures.shaderSubgroupExtendedTypes",
            "SubgroupSupportedOperations.shuffleRelative",
            "SubgroupSupportedStages.compute",
            "VK_KHR_shader_subgroup_uniform_control_flow",
            "ShaderAtomicFloatFeaturesEXT.shaderSharedFloat32AtomicAdd",
        ] {
            assert_eq!(Feature::parse(name).unwrap().name(), name);
        }
        assert_eq!(
            Feature::parse("VariablePointersFeatures.variablePointers")
                .unwrap()
                .name(),
            "VariablePointerFeatures.variablePointers"
        );
    }

    #[test]
    fn unknown_names_are_errors_naming_them() {
        for name in [
            "shaderInt128",
            "Float16Int8Features.shaderInt4",
            "NoSuchFeatures.x",
            "SubgroupSupportedOperations.everything",
            "SubgroupSupportedStages.mesh",
            "",
        ] {
            let e = Feature::parse(name).unwrap_err();
            assert!(
                matches!(&e, Error::UnknownFeature { name: n } if n == name),
                "{e}"
            );
        }
    }

    /// Every core slot is a distinct field, in `VkPhysicalDeviceFeatures`
    /// order: setting slot `i` sets the `i`-th `VkBool32` of the struct.
    #[test]
    fn core_slots_follow_declaration_order() {
        for (i, name) in CORE_FIELDS.iter().enumerate() {
            let mut s = Structs::default();
            *s.core_slot(i) = vk::TRUE;
            // SAFETY: VkPhysicalDeviceFeatures is #[repr(C)] and made of
            // exactly 55 VkBool32 (u32) fields.
            let words: [u32; 55] = unsafe { std::mem::transmute(s.core) };
            let set: Vec<usize> = (0..55).filter(|&j| words[j] == vk::TRUE).collect();
            assert_eq!(set, vec![i], "{name}");
        }
    }

    /// Linking every structure gives a chain of distinct structures, one
    /// per extension structure, that ends (no loop).
    #[test]
    fn chain_links_each_structure_once() {
        let mut s = Structs::default();
        let all = EXT_STRUCTS.map(|e| e.ext);
        let f2 = s.chain(&[all.as_slice(), all.as_slice()].concat());
        let mut seen = Vec::new();
        let mut p = f2.p_next as *const vk::BaseOutStructure<'_>;
        while !p.is_null() {
            assert!(seen.len() < 32, "pNext chain does not end");
            // SAFETY: every pointer in the chain points at a field of `s`,
            // alive for this scope; each starts with sType/pNext.
            let b = unsafe { &*p };
            assert!(!seen.contains(&b.s_type), "{:?} linked twice", b.s_type);
            seen.push(b.s_type);
            p = b.p_next;
        }
        assert_eq!(seen.len(), EXT_STRUCTS.len());
        assert_eq!(seen.len(), 21);
    }
}
