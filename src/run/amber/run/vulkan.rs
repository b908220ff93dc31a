//! The `vulkan` side: the original SPIR-V on a Vulkan driver through the
//! `vulkan-reference` crate, served by the `halc` binary itself.

use std::collections::BTreeMap;
use std::path::Path;

use vulkan_reference::{
    BindingKind, Format, ImageDesc, ImageDim, SamplerDesc, SessionBound, SessionResource,
};

use super::prepare::spec_value;
use super::side::{buffer, Prepared, Side};
use crate::run::amber::{BindKind, ImageShape, Pipeline, RequiredSize};

/// The argument that makes the `halc` binary serve a Vulkan
/// [`Session`](vulkan_reference::Session) on its stdin and stdout.
pub const VULKAN_REFERENCE_ARG: &str = "__vulkan-reference";

/// Where the Vulkan side runs: `program __vulkan-reference`, or in this
/// process.
pub(crate) fn vulkan_place(program: Option<&Path>) -> vulkan_reference::Place {
    match program {
        Some(p) => {
            let mut c = std::process::Command::new(p);
            c.arg(VULKAN_REFERENCE_ARG);
            vulkan_reference::Place::Child(c)
        }
        None => vulkan_reference::Place::InProcess,
    }
}

pub(super) struct VulkanSide {
    pub(super) reference: vulkan_reference::Session,
    pub(super) buffers: BTreeMap<String, vulkan_reference::BufferId>,
    /// Each buffer's format, for those that have one.
    pub(super) formats: BTreeMap<String, Format>,
    pub(super) images: BTreeMap<String, vulkan_reference::ImageId>,
    pub(super) samplers: BTreeMap<String, vulkan_reference::SamplerId>,
    pub(super) pipelines: BTreeMap<String, vulkan_reference::PipelineId>,
}

impl Side for VulkanSide {
    fn label(&self) -> &'static str {
        "vulkan"
    }

    fn create(&mut self, name: &str, bytes: &[u8], format: Option<Format>) -> Result<(), String> {
        let b = self.reference.buffer(bytes).map_err(|e| e.to_string())?;
        self.buffers.insert(name.to_string(), b);
        if let Some(f) = format {
            self.formats.insert(name.to_string(), f);
        }
        Ok(())
    }

    fn create_image(
        &mut self,
        name: &str,
        format: Format,
        shape: ImageShape,
        bytes: &[u8],
    ) -> Result<(), String> {
        let desc = ImageDesc {
            dim: match shape.dims {
                1 => ImageDim::D1,
                2 => ImageDim::D2,
                _ => ImageDim::D3,
            },
            format,
            width: shape.width,
            height: shape.height,
            depth: shape.depth,
            layers: 1,
            mip_levels: 1,
        };
        let i = self
            .reference
            .image(&desc, bytes)
            .map_err(|e| e.to_string())?;
        self.images.insert(name.to_string(), i);
        Ok(())
    }

    fn create_sampler(&mut self, name: &str, desc: &SamplerDesc) -> Result<(), String> {
        let s = self.reference.sampler(desc).map_err(|e| e.to_string())?;
        self.samplers.insert(name.to_string(), s);
        Ok(())
    }

    fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        if let Some(i) = self.images.get(name) {
            return self.reference.read_image(*i).map_err(|e| e.to_string());
        }
        self.reference
            .read(*buffer(&self.buffers, name)?)
            .map_err(|e| e.to_string())
    }

    fn write(&mut self, name: &str, offset: usize, bytes: &[u8]) -> Result<(), String> {
        if self.images.contains_key(name) {
            return Err(format!(
                "`{name}` is an image: halc test writes images only when it creates them"
            ));
        }
        self.reference
            .write(*buffer(&self.buffers, name)?, offset, bytes)
            .map_err(|e| e.to_string())
    }

    fn dispatch(
        &mut self,
        p: &Pipeline,
        prepared: &Prepared,
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<(), String> {
        // Amber pushes the whole buffer bound as push_constant; its range
        // is the buffer's size rounded up to 4 bytes.
        let mut push = push.to_vec();
        push.resize(push.len().next_multiple_of(4), 0);
        let push = &push[..];
        if !self.pipelines.contains_key(&p.name) {
            // As amber does, the descriptor set layouts are the pipeline's
            // BIND commands, not a reflection of the module.
            let bindings: Vec<vulkan_reference::BindingDesc> = p
                .binds
                .iter()
                .filter_map(|b| {
                    let (set, binding) = b.kind.slot()?;
                    let kind = match b.kind {
                        BindKind::Storage { .. } => BindingKind::Storage,
                        BindKind::Uniform { .. } => BindingKind::Uniform,
                        BindKind::StorageImage { .. } => BindingKind::StorageImage,
                        BindKind::SampledImage { .. } => BindingKind::SampledImage,
                        BindKind::CombinedImageSampler { .. } => BindingKind::CombinedImageSampler,
                        BindKind::Sampler { .. } => BindingKind::Sampler,
                        BindKind::UniformTexelBuffer { .. } => BindingKind::UniformTexelBuffer,
                        BindKind::StorageTexelBuffer { .. } => BindingKind::StorageTexelBuffer,
                        BindKind::PushConstant => return None,
                    };
                    Some(vulkan_reference::BindingDesc {
                        set,
                        binding,
                        kind,
                        count: b.elements.len() as u32,
                    })
                })
                .collect();
            let mut specialization: Vec<(u32, Vec<u8>)> = p
                .specialize
                .iter()
                .map(|s| spec_value(s).map(|v| (s.id, (v.bits as u32).to_le_bytes().to_vec())))
                .collect::<Result<_, _>>()?;
            specialization.extend(prepared.vulkan_specs.iter().cloned());
            let pipeline = self
                .reference
                .pipeline(&vulkan_reference::PipelineDesc {
                    spirv: &prepared.spirv,
                    entry: &p.entry,
                    specialization: &specialization,
                    bindings: &bindings,
                    push_constant_size: push.len() as u32,
                    require_full_subgroups: p.full_subgroups,
                    allow_varying_subgroup_size: p.varying_subgroups,
                    required_subgroup_size: p.subgroup_size.map(|r| {
                        let (min, max) = self.reference.subgroup_size_range();
                        match r {
                            RequiredSize::Exact(n) => n,
                            RequiredSize::Min => min,
                            RequiredSize::Max => max,
                        }
                    }),
                })
                .map_err(|e| e.to_string())?;
            self.pipelines.insert(p.name.clone(), pipeline);
        }
        let mut bound = Vec::new();
        for b in &p.binds {
            let Some((set, binding)) = b.kind.slot() else {
                continue;
            };
            for (element, e) in b.elements.iter().enumerate() {
                let image = |name: &str| {
                    self.images
                        .get(name)
                        .copied()
                        .ok_or_else(|| format!("`{name}` is not an image"))
                };
                let resource = match b.kind {
                    BindKind::Storage { .. } | BindKind::Uniform { .. } => {
                        SessionResource::Buffer {
                            buffer: *buffer(&self.buffers, &e.buffer)?,
                            offset: e.offset,
                            range: e.range,
                        }
                    }
                    BindKind::UniformTexelBuffer { .. } | BindKind::StorageTexelBuffer { .. } => {
                        SessionResource::TexelBuffer {
                            buffer: *buffer(&self.buffers, &e.buffer)?,
                            format: *self
                                .formats
                                .get(&e.buffer)
                                .ok_or_else(|| format!("`{}` has no format", e.buffer))?,
                            offset: e.offset,
                            range: e.range,
                        }
                    }
                    BindKind::StorageImage { .. } | BindKind::SampledImage { .. } => {
                        SessionResource::Image(image(&e.buffer)?)
                    }
                    BindKind::Sampler { .. } => {
                        SessionResource::Sampler(*buffer(&self.samplers, &e.buffer)?)
                    }
                    BindKind::CombinedImageSampler { .. } => {
                        let sampler = e.sampler.as_deref().ok_or("no sampler")?;
                        SessionResource::CombinedImageSampler(
                            image(&e.buffer)?,
                            *buffer(&self.samplers, sampler)?,
                        )
                    }
                    BindKind::PushConstant => continue,
                };
                bound.push(SessionBound {
                    set,
                    binding,
                    element: element as u32,
                    resource,
                });
            }
        }
        self.reference
            .dispatch(self.pipelines[&p.name], &bound, push, groups)
            .map_err(|e| e.to_string())
    }

    fn subgroup_size(&self) -> Option<u32> {
        Some(self.reference.subgroup_size())
    }

    fn subgroup_range(&self) -> Option<(u32, u32)> {
        Some(self.reference.subgroup_size_range())
    }
}
