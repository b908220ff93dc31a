//! Running one script: what halc's Metal target cannot run is a skip, the
//! sides are made (the Vulkan device with what the modules need), and the
//! runner runs the commands.

use std::collections::BTreeMap;
use std::path::Path;

use runtime_loader::cpu;

use super::cpu::CpuSide;
use super::module::module;
use super::options::{Outcome, RunOptions, Sides};
use super::runner::{Runner, Stop};
use super::side::Side;
use super::vulkan::{vulkan_place, VulkanSide};
use crate::run::amber::BindKind;

/// Device features a Metal device (and halc) provides. Anything else makes
/// a test a skip.
const FEATURES: &[&str] = &[
    "shaderInt16",
    "shaderInt64",
    "shaderFloat16",
    "shaderInt8",
    "Float16Int8Features.shaderFloat16",
    "Float16Int8Features.shaderInt8",
    "Storage16BitFeatures.storageBuffer16BitAccess",
    "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
    "Storage8BitFeatures.storageBuffer8BitAccess",
    "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
    "Storage16BitFeatures.storagePushConstant16",
    "Storage8BitFeatures.storagePushConstant8",
    // `atomic_float` fetch_add in device and threadgroup memory (MSL 3.0;
    // an older `--msl-version` makes the test a skip when halc refuses it).
    "ShaderAtomicFloatFeaturesEXT.shaderBufferFloat32Atomics",
    "ShaderAtomicFloatFeaturesEXT.shaderBufferFloat32AtomicAdd",
    "ShaderAtomicFloatFeaturesEXT.shaderSharedFloat32Atomics",
    "ShaderAtomicFloatFeaturesEXT.shaderSharedFloat32AtomicAdd",
    "VK_EXT_shader_atomic_float",
    // GL_ARB_shader_ballot / GL_ARB_shader_group_vote: the SIMD-group
    // functions of the GroupNonUniform forms.
    "VK_EXT_shader_subgroup_ballot",
    "VK_EXT_shader_subgroup_vote",
    "SubgroupSupportedOperations.basic",
    "SubgroupSupportedOperations.vote",
    "SubgroupSupportedOperations.arithmetic",
    "SubgroupSupportedOperations.ballot",
    "SubgroupSupportedOperations.shuffle",
    "SubgroupSupportedOperations.shuffleRelative",
    "SubgroupSupportedOperations.quad",
    "SubgroupSupportedOperations.clustered",
    "SubgroupSupportedStages.compute",
    "VulkanMemoryModelFeatures.vulkanMemoryModel",
    "VK_KHR_vulkan_memory_model",
    // Metal's SIMD width is fixed (32 lanes on Apple GPUs): subgroup size
    // control asks for a size (`SUBGROUP … REQUIRED_SIZE`) or for full
    // subgroups (`FULLY_POPULATED`), which a pipeline gets when its
    // threadgroup is a multiple of the width (checked at each RUN).
    "SubgroupSizeControl.subgroupSizeControl",
    "SubgroupSizeControl.computeFullSubgroups",
    "VK_EXT_subgroup_size_control",
    "VK_KHR_shader_subgroup_uniform_control_flow",
    // SPIRV-Cross zeroes a Workgroup variable with a null initializer at
    // the start of the threadgroup, then a barrier
    // (tests/amber/zero_initialize_workgroup_memory.amber).
    "VK_KHR_zero_initialize_workgroup_memory",
    "VariablePointerFeatures.variablePointersStorageBuffer",
    "VariablePointerFeatures.variablePointers",
    "VK_KHR_variable_pointers",
    "ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory",
    "shaderStorageBufferArrayDynamicIndexing",
    // A Metal texture carries its pixel format: a kernel reads it without
    // declaring one (tests/amber/image_read_without_format.amber).
    "shaderStorageImageReadWithoutFormat",
    "shaderStorageImageWriteWithoutFormat",
    "shaderStorageImageExtendedFormats",
    "imageCubeArray",
    "shaderUniformBufferArrayDynamicIndexing",
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_16bit_storage",
    "VK_KHR_8bit_storage",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_shader_subgroup_extended_types",
    // OpExpectKHR / OpAssumeTrueKHR: hints, kept as `__builtin_expect` and
    // `__builtin_assume` (tests/amber/expect_assume.amber).
    "VK_KHR_shader_expect_assume",
    "ShaderExpectAssumeFeaturesKHR.shaderExpectAssume",
    // Integer dot products: widened products summed, and MSL's `addsat`
    // (tests/amber/integer_dot_product.amber).
    "VK_KHR_shader_integer_dot_product",
    "ShaderIntegerDotProductFeatures.shaderIntegerDotProduct",
    // What a compute shader sees of maintenance4: the LocalSizeId execution
    // mode below Vulkan 1.3 (tests/amber/local_size_id_spv13.amber).
    "VK_KHR_maintenance4",
    "Maintenance4Features.maintenance4",
];

/// Requirements that name no device capability: the SPIR-V version
/// (`VK_KHR_spirv_1_4` raises the shaders' target environment, see
/// `Runner::target_env`), and extensions every device halc's Metal target
/// stands for has by construction (Vulkan 1.1's instance extension).
const NOT_CAPABILITIES: &[&str] = &["VK_KHR_spirv_1_4", "VK_KHR_get_physical_device_properties2"];

/// Parses and runs one script whose `FILE`s are named relative to the
/// working directory ([`run_in`]).
pub fn run(name: &str, text: &str, device: Option<&cpu::Device>, opts: &RunOptions) -> Outcome {
    run_in(name, text, Path::new(""), device, opts)
}

/// Parses and runs one script. `name` is how failures name the file; `dir`
/// is where its `FILE`s are (the script's directory); `device` is the CPU
/// backend (needed unless only Vulkan runs).
pub fn run_in(
    name: &str,
    text: &str,
    dir: &Path,
    device: Option<&cpu::Device>,
    opts: &RunOptions,
) -> Outcome {
    let script = match crate::run::amber::parse::parse_in(text, dir) {
        Ok(s) => s,
        Err(e) if e.unsupported => {
            return Outcome::Skip(format!("{name}:{}: {}", e.line, e.message))
        }
        Err(e) => return Outcome::Fail(format!("{name}:{}: {}", e.line, e.message)),
    };
    if opts.sides != Sides::Vulkan {
        if let Some((what, line)) = script.requirements.iter().find(|(r, _)| {
            !FEATURES.contains(&r.as_str()) && !NOT_CAPABILITIES.contains(&r.as_str())
        }) {
            return Outcome::Skip(format!(
                "{name}:{line}: requires {what}, which halc's Metal target does not provide"
            ));
        }
        // Float-controls properties (denormals preserved or flushed,
        // rounding modes) are not part of Metal's contract: the Metal
        // Shading Language specification leaves them to the GPU.
        if let Some((what, line)) = script.properties.first() {
            return Outcome::Skip(format!(
                "{name}:{line}: requires device property {what}, which Metal does not guarantee"
            ));
        }
    }
    // Every pipeline's SPIR-V, made once: the Vulkan device is created
    // with what the modules need.
    let modules: BTreeMap<String, Result<Vec<u8>, String>> = script
        .pipelines
        .iter()
        .map(|p| (p.name.clone(), module(name, &script, p, opts)))
        .collect();
    let mut sides: Vec<Box<dyn Side + '_>> = Vec::new();
    if opts.sides != Sides::Vulkan {
        let Some(device) = device else {
            return Outcome::Fail(format!("{name}: no CPU device"));
        };
        sides.push(Box::new(CpuSide {
            device,
            implicit: script
                .buffers
                .iter()
                .map(|b| (b.name.clone(), b.implicit_size))
                .collect(),
            widths: BTreeMap::new(),
            texel_buffers: script
                .pipelines
                .iter()
                .flat_map(|p| &p.binds)
                .filter(|b| is_texel(b.kind))
                .flat_map(|b| b.elements.iter().map(|e| e.buffer.clone()))
                .collect(),
            buffers: BTreeMap::new(),
            textures: BTreeMap::new(),
            samplers: BTreeMap::new(),
            image_descs: BTreeMap::new(),
            accels: BTreeMap::new(),
        }));
    }
    if opts.sides != Sides::MetalOnCpu {
        // What the script requests is enabled or the test skipped, as in
        // amber; what its modules need (features of their capabilities,
        // extensions of their OpExtensions) is enabled where the device
        // has it, as the Vulkan CTS registers a test with its requirements.
        let mut optional_features = Vec::new();
        // Extensions a module is not Vulkan without (GL_AMD_shader_ballot's
        // Groups capability needs VK_AMD_shader_ballot): required, so a
        // device that lacks one makes the test a skip naming it.
        let mut extensions: Vec<(String, String)> = Vec::new();
        for bytes in modules.values().flatten() {
            if let Ok(words) = crate::spirv::Words::from_bytes(bytes) {
                optional_features.extend(
                    vulkan_reference::required_by_module(words.as_slice()).unwrap_or_default(),
                );
                extensions.extend(
                    vulkan_reference::extensions_required_by_module(words.as_slice())
                        .unwrap_or_default(),
                );
            }
        }
        optional_features.sort();
        optional_features.dedup();
        extensions.sort();
        extensions.dedup();
        let mut features: Vec<String> =
            script.requirements.iter().map(|(r, _)| r.clone()).collect();
        features.extend(extensions.iter().map(|(_, e)| e.clone()));
        let options = vulkan_reference::ReferenceOptions {
            device: opts.vulkan_device.clone(),
            features,
            optional_features,
            properties: script.properties.iter().map(|(r, _)| r.clone()).collect(),
            timeout: opts.vulkan_timeout,
            ..Default::default()
        };
        match vulkan_reference::Session::new(&options, vulkan_place(opts.vulkan_program.as_deref()))
        {
            Ok(reference) => sides.push(Box::new(VulkanSide {
                reference,
                buffers: BTreeMap::new(),
                formats: BTreeMap::new(),
                images: BTreeMap::new(),
                samplers: BTreeMap::new(),
                pipelines: BTreeMap::new(),
                accels: BTreeMap::new(),
            })),
            Err(vulkan_reference::Error::UnsupportedFeatures { device, names })
                if extensions.iter().any(|(_, e)| names.contains(e)) =>
            {
                let (declares, extension) = extensions
                    .iter()
                    .find(|(_, e)| names.contains(e))
                    .expect("found above");
                return Outcome::Skip(format!(
                    "{name}: vulkan: a shader declares {declares}, which needs the device extension {extension}, and device {device:?} does not support it"
                ));
            }
            Err(e @ vulkan_reference::Error::UnsupportedFeatures { .. }) => {
                return Outcome::Skip(format!("{name}: vulkan: {e}"))
            }
            Err(e) => return Outcome::Fail(format!("{name}: vulkan: {e}")),
        }
    }
    let mut runner = Runner {
        name,
        script: &script,
        opts,
        sides,
        modules,
        prepared: BTreeMap::new(),
    };
    match runner.run() {
        Ok(()) => Outcome::Pass,
        Err(Stop::Fail(m)) => Outcome::Fail(m),
        Err(Stop::Skip(m)) => Outcome::Skip(m),
    }
}

fn is_texel(kind: BindKind) -> bool {
    matches!(
        kind,
        BindKind::UniformTexelBuffer { .. } | BindKind::StorageTexelBuffer { .. }
    )
}
