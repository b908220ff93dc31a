//! [`Pipeline`]: a compute pipeline and its layouts.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::sync::Arc;

use ash::vk;

use crate::error::{Error, Result};
use crate::features::{promoted_in, Feature};
use crate::reference::{Inner, Reference};
use crate::spirv::{self, Need};

/// The kind of a descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BindingKind {
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`.
    Storage,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER`.
    Uniform,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`.
    StorageImage,
    /// `VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`.
    SampledImage,
    /// `VK_DESCRIPTOR_TYPE_SAMPLER`.
    Sampler,
    /// `VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER`.
    CombinedImageSampler,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER`.
    UniformTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER`.
    StorageTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR` (a ray query's
    /// `accelerationStructureEXT`).
    AccelerationStructure,
}

/// One descriptor binding of the pipeline layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BindingDesc {
    /// Descriptor set.
    pub set: u32,
    /// Binding number.
    pub binding: u32,
    /// What kind of descriptor.
    pub kind: BindingKind,
    /// Descriptor count (1, or the array size).
    pub count: u32,
}

/// What [`Reference::pipeline`] builds.
///
/// `Default` gives an empty module and entry point, no specialization,
/// bindings or push constants and no subgroup size control: fill in what
/// applies and take the rest with `..Default::default()`.
#[derive(Debug, Clone, Copy, Default)]
pub struct PipelineDesc<'a> {
    /// The module's words (native byte order; a big-endian module must be
    /// swapped first).
    pub spirv: &'a [u32],
    /// The GLCompute entry point.
    pub entry: &'a str,
    /// `(SpecId, value bytes)`, 1 to 8 bytes each, little-endian; a
    /// boolean takes 4 bytes (a `VkBool32`). Packed in this order into the
    /// `VkSpecializationInfo`. Each size must match the constant's type in
    /// the module; SpecIds the module lacks are passed on (Vulkan ignores
    /// them).
    pub specialization: &'a [(u32, Vec<u8>)],
    /// The descriptor bindings: every set from 0 to the highest one named
    /// gets a layout (an empty one for gaps). Every binding given here
    /// must be bound at dispatch.
    pub bindings: &'a [BindingDesc],
    /// Bytes of the push-constant block (0: none). Rounded up to a
    /// multiple of 4 for the range.
    pub push_constant_size: u32,
    /// `VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT`
    /// (Amber's `SUBGROUP … FULLY_POPULATED on`): every subgroup is full.
    /// Needs `SubgroupSizeControl.computeFullSubgroups` enabled, and the
    /// workgroup's x size a multiple of the subgroup size
    /// ([`required_subgroup_size`](Self::required_subgroup_size) if set,
    /// else the largest with
    /// [`allow_varying_subgroup_size`](Self::allow_varying_subgroup_size),
    /// else the device's `subgroupSize`).
    pub require_full_subgroups: bool,
    /// `VK_PIPELINE_SHADER_STAGE_CREATE_ALLOW_VARYING_SUBGROUP_SIZE_BIT`
    /// (`VARYING_SIZE on`). Needs `SubgroupSizeControl.subgroupSizeControl`
    /// enabled; excludes a required size.
    pub allow_varying_subgroup_size: bool,
    /// `VkPipelineShaderStageRequiredSubgroupSizeCreateInfo`
    /// (`REQUIRED_SIZE n`; for `MIN` / `MAX` take
    /// [`Reference::subgroup_size_range`]). Needs
    /// `SubgroupSizeControl.subgroupSizeControl` enabled, compute in the
    /// device's `requiredSubgroupSizeStages`, a power of two within the
    /// device's range, and a workgroup of at most
    /// `maxComputeWorkgroupSubgroups` subgroups of this size.
    pub required_subgroup_size: Option<u32>,
}

/// A compute pipeline, ready for [`Reference::dispatch`].
///
/// Creation checks the module's entry points, what it needs of the device
/// ([`required_by_module`](crate::required_by_module)'s list: refused when
/// the device supports it but it was not enabled; passed to the driver, as
/// the `amber` tool does, when the device lacks it), subgroup size control
/// and specialization sizes, but does not validate the module: **validate SPIR-V before** (e.g. with `spirv-val`), since a
/// driver without validation layers may crash on invalid modules.
pub struct Pipeline {
    pub(crate) inner: Arc<Inner>,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    pub(crate) set_layouts: Vec<vk::DescriptorSetLayout>,
    /// Sorted by (set, binding).
    pub(crate) bindings: Vec<BindingDesc>,
    /// Rounded up to 4.
    pub(crate) push_constant_size: u32,
    pub(crate) entry: String,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("entry", &self.entry)
            .field("bindings", &self.bindings)
            .field("push_constant_size", &self.push_constant_size)
            .finish()
    }
}

impl Pipeline {
    /// The entry point.
    pub fn entry(&self) -> &str {
        &self.entry
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        if !self.inner.may_destroy() {
            // A timed-out dispatch may still use it: leak it.
            return;
        }
        let device = &self.inner.device;
        // SAFETY: no pending work uses these (checked above); each is
        // destroyed once; null handles (a failed creation) are ignored.
        unsafe {
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.layout, None);
            for l in &self.set_layouts {
                device.destroy_descriptor_set_layout(*l, None);
            }
        }
    }
}

impl Reference {
    /// Creates the shader module, descriptor set layouts, pipeline layout
    /// and compute pipeline. Errors name the entry point: no such compute
    /// entry point, a need of the module that was not enabled
    /// ([`Error::MissingFeature`]), subgroup size control the device, the
    /// enabled features or the workgroup size do not allow
    /// ([`Error::Subgroup`]), a bad specialization or binding, or the
    /// failing Vulkan call and result.
    pub fn pipeline(&self, desc: &PipelineDesc<'_>) -> Result<Pipeline> {
        let inner = &self.inner;
        {
            let mut state = inner.state();
            inner.settle(&mut state)?;
        }
        let entry = desc.entry.to_string();
        let module = spirv::scan(desc.spirv)?;
        if !module.compute_entries.iter().any(|e| e == desc.entry) {
            return Err(Error::EntryPoint {
                entry,
                available: module.compute_entries,
            });
        }
        for need in module.needs() {
            if let Some(needs) = inner.lacks(&need) {
                return Err(Error::MissingFeature {
                    entry,
                    declares: need.declares,
                    needs,
                });
            }
        }
        let flags = subgroup_flags(inner, desc, &module)?;

        // Specialization: sizes, duplicates, packing.
        let mut map = Vec::new();
        let mut data = Vec::new();
        for (id, bytes) in desc.specialization {
            let bad = |reason: String| Error::Specialization {
                entry: entry.clone(),
                id: *id,
                reason,
            };
            if !(1..=8).contains(&bytes.len()) {
                return Err(bad(format!(
                    "{} value bytes (1 to 8 expected)",
                    bytes.len()
                )));
            }
            if map
                .iter()
                .any(|m: &vk::SpecializationMapEntry| m.constant_id == *id)
            {
                return Err(bad("given twice".into()));
            }
            if let Some(sizes) = module.spec_sizes.get(id) {
                if sizes.iter().any(|s| *s as usize != bytes.len()) {
                    return Err(bad(format!(
                        "{} value bytes, but the module's constant is {} bytes \
                         (a boolean takes 4, a VkBool32)",
                        bytes.len(),
                        sizes[0]
                    )));
                }
            }
            map.push(
                vk::SpecializationMapEntry::default()
                    .constant_id(*id)
                    .offset(data.len() as u32)
                    .size(bytes.len()),
            );
            data.extend_from_slice(bytes);
        }

        // Bindings: sorted, unique, within limits.
        let mut bindings = desc.bindings.to_vec();
        bindings.sort_by_key(|b| (b.set, b.binding));
        for (i, b) in bindings.iter().enumerate() {
            let bad = |reason: String| Error::Binding {
                entry: entry.clone(),
                set: b.set,
                binding: b.binding,
                reason,
            };
            if i > 0 && (bindings[i - 1].set, bindings[i - 1].binding) == (b.set, b.binding) {
                return Err(bad("declared twice".into()));
            }
            if b.count == 0 {
                return Err(bad("descriptor count 0".into()));
            }
            if b.set >= inner.limits.max_bound_descriptor_sets {
                return Err(bad(format!(
                    "set exceeds the device's maxBoundDescriptorSets ({})",
                    inner.limits.max_bound_descriptor_sets
                )));
            }
        }
        let push_constant_size = desc.push_constant_size.div_ceil(4) * 4;
        if push_constant_size > inner.limits.max_push_constants_size {
            return Err(Error::PushConstants {
                entry,
                reason: format!(
                    "{} bytes exceed the device's maxPushConstantsSize ({})",
                    desc.push_constant_size, inner.limits.max_push_constants_size
                ),
            });
        }

        let device = &inner.device;
        let mut out = Pipeline {
            inner: inner.clone(),
            pipeline: vk::Pipeline::null(),
            layout: vk::PipelineLayout::null(),
            set_layouts: Vec::new(),
            bindings,
            push_constant_size,
            entry: entry.clone(),
        };
        let failed = |call: &'static str| {
            let entry = entry.clone();
            move |result| Error::PipelineCreation {
                entry,
                call,
                result,
            }
        };

        // One layout per set up to the highest; gaps get empty layouts.
        let set_count = out.bindings.last().map_or(0, |b| b.set + 1);
        let mut per_set: BTreeMap<u32, Vec<vk::DescriptorSetLayoutBinding<'_>>> = BTreeMap::new();
        for b in &out.bindings {
            per_set.entry(b.set).or_default().push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(descriptor_type(b.kind))
                    .descriptor_count(b.count)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
        }
        for set in 0..set_count {
            let empty = Vec::new();
            let list = per_set.get(&set).unwrap_or(&empty);
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(list);
            // SAFETY: a valid create info; `out`'s Drop destroys it.
            let l = unsafe { device.create_descriptor_set_layout(&info, None) }
                .map_err(failed("vkCreateDescriptorSetLayout"))?;
            out.set_layouts.push(l);
        }
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(push_constant_size)];
        let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&out.set_layouts);
        if push_constant_size > 0 {
            layout_info = layout_info.push_constant_ranges(&ranges);
        }
        // SAFETY: a valid create info; `out`'s Drop destroys it.
        out.layout = unsafe { device.create_pipeline_layout(&layout_info, None) }
            .map_err(failed("vkCreatePipelineLayout"))?;

        let module_info = vk::ShaderModuleCreateInfo::default().code(desc.spirv);
        // SAFETY: the words are a SPIR-V module whose header and
        // instruction framing were checked by `spirv::scan`; the caller
        // validated it (documented).
        let shader = unsafe { device.create_shader_module(&module_info, None) }
            .map_err(failed("vkCreateShaderModule"))?;
        let name = CString::new(desc.entry).map_err(|_| Error::EntryPoint {
            entry: entry.clone(),
            available: Vec::new(),
        })?;
        let spec = vk::SpecializationInfo::default()
            .map_entries(&map)
            .data(&data);
        let mut required_size = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(desc.required_subgroup_size.unwrap_or(0));
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .flags(flags)
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(shader)
            .name(&name)
            .specialization_info(&spec);
        if desc.required_subgroup_size.is_some() {
            // The only structure in the stage's chain, linked once.
            stage = stage.push_next(&mut required_size);
        }
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(out.layout);
        // SAFETY: every pointer in `info` refers to locals alive across
        // the call; the entry point exists (checked above).
        let created =
            unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) };
        // SAFETY: the module is not needed once the pipeline exists (or
        // failed); destroyed once.
        unsafe { device.destroy_shader_module(shader, None) };
        out.pipeline = created
            .map_err(|(_, r)| r)
            .map_err(failed("vkCreateComputePipelines"))?[0];
        Ok(out)
    }
}

impl Inner {
    /// `None` when `need` is met, or cannot be (the device lacks it: the
    /// module goes to the driver as Amber would give it). Else, when the
    /// device supports it but it was not enabled, what to enable, for
    /// [`Error::MissingFeature`].
    fn lacks(&self, need: &Need) -> Option<String> {
        let name = &need.name;
        let (met, possible) = match Feature::parse(name) {
            Ok(Feature::Core(_) | Feature::Ext(..)) => (
                self.enabled.contains(name),
                self.support.features.contains(name),
            ),
            Ok(Feature::Extension(_)) => (
                self.extensions.contains(name)
                    || promoted_in(name).is_some_and(|v| self.api_version >= v),
                self.support.extensions.contains(name),
            ),
            // Device properties: nothing to enable.
            Ok(Feature::SubgroupOp(_) | Feature::SubgroupStage(_)) | Err(_) => (true, false),
        };
        (!met && possible).then(|| {
            let what = if name.starts_with("VK_") {
                "extension"
            } else {
                "feature"
            };
            format!(
                "{what} {name}, which the device supports but was not enabled on this Reference"
            )
        })
    }
}

/// Checks the subgroup size control `desc` asks for against the enabled
/// features, the device's properties and the module's workgroup size, as
/// the Vulkan valid usage of `VkPipelineShaderStageCreateInfo` requires,
/// and gives the stage's flags.
fn subgroup_flags(
    inner: &Inner,
    desc: &PipelineDesc<'_>,
    module: &spirv::Module,
) -> Result<vk::PipelineShaderStageCreateFlags> {
    let bad = |reason: String| Error::Subgroup {
        entry: desc.entry.to_string(),
        reason,
    };
    let feature = |name: &str, what: &str| -> Result<()> {
        if inner.enabled.contains(name) {
            Ok(())
        } else {
            Err(bad(format!(
                "{what} needs feature {name} (not enabled on this Reference)"
            )))
        }
    };
    let c = inner.subgroup_control;
    let local = module.local_size(desc.entry, desc.specialization);
    let mut flags = vk::PipelineShaderStageCreateFlags::empty();
    if desc.allow_varying_subgroup_size {
        feature(
            "SubgroupSizeControl.subgroupSizeControl",
            "a varying subgroup size",
        )?;
        if desc.required_subgroup_size.is_some() {
            return Err(bad(
                "a varying subgroup size and a required subgroup size exclude each other".into(),
            ));
        }
        flags |= vk::PipelineShaderStageCreateFlags::ALLOW_VARYING_SUBGROUP_SIZE;
    }
    if let Some(size) = desc.required_subgroup_size {
        feature(
            "SubgroupSizeControl.subgroupSizeControl",
            "a required subgroup size",
        )?;
        if !c.stages.contains(vk::ShaderStageFlags::COMPUTE) {
            return Err(bad(format!(
                "the device does not allow a required subgroup size in compute shaders \
                 (requiredSubgroupSizeStages {:?})",
                c.stages
            )));
        }
        if !size.is_power_of_two() || size < c.min || size > c.max {
            return Err(bad(format!(
                "required subgroup size {size} is not a power of two in the device's range \
                 [{}, {}]",
                c.min, c.max
            )));
        }
        if let Some([x, y, z]) = local {
            let invocations = u64::from(x) * u64::from(y) * u64::from(z);
            let most = u64::from(size) * u64::from(c.max_workgroup_subgroups);
            if invocations > most {
                return Err(bad(format!(
                    "the workgroup ({x}x{y}x{z}) has more than maxComputeWorkgroupSubgroups ({}) \
                     subgroups of the required size {size}",
                    c.max_workgroup_subgroups
                )));
            }
        }
    }
    if desc.require_full_subgroups {
        feature("SubgroupSizeControl.computeFullSubgroups", "full subgroups")?;
        // Vulkan also asks for a workgroup x size that is a multiple of the
        // subgroup size (VUID-VkPipelineShaderStageCreateInfo-flags-02758/
        // 02759). That is not checked here: amber passes the flag to the
        // driver as it is, and the Vulkan CTS has tests with other sizes
        // (subgroup_uniform_control_flow/*_partial*) that drivers run, the
        // last subgroup partial.
        flags |= vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS;
    }
    Ok(flags)
}

pub(crate) fn descriptor_type(kind: BindingKind) -> vk::DescriptorType {
    match kind {
        BindingKind::Storage => vk::DescriptorType::STORAGE_BUFFER,
        BindingKind::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
        BindingKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        BindingKind::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        BindingKind::Sampler => vk::DescriptorType::SAMPLER,
        BindingKind::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        BindingKind::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        BindingKind::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
        BindingKind::AccelerationStructure => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
    }
}
