//! The `metal-on-cpu` side: halc's executable, loaded and verified by the
//! runtime-loader and run by its CPU backend.

use std::collections::BTreeMap;

use runtime_loader::cpu::{self, ResourceBindings};
use runtime_loader::plan::Grid;
use runtime_loader::Executable;

use super::side::{buffer, Prepared, Side, Stop};
use crate::run::amber::{BindKind, Pipeline};
use crate::run::buffers::cpu_buffer;
use crate::run::textures::{cpu_texel_buffer_on, cpu_texture, sampler_descriptor, texture_bytes};

pub(super) struct CpuSide<'d> {
    pub(super) device: &'d cpu::Device,
    /// Buffers sized by the script's writes
    /// ([`crate::run::amber::Buffer::implicit_size`]).
    pub(super) implicit: BTreeMap<String, bool>,
    /// The device at other SIMD widths, made on first use.
    pub(super) widths: BTreeMap<u32, cpu::Device>,
    /// The buffers the script binds as texel buffers: kept as textures.
    pub(super) texel_buffers: std::collections::BTreeSet<String>,
    pub(super) buffers: BTreeMap<String, TestBuffer>,
    /// Images, and the texture buffers (Metal's `texture_buffer`) on the
    /// buffers bound as texel buffers.
    pub(super) textures: BTreeMap<String, cpu::Texture>,
    pub(super) samplers: BTreeMap<String, cpu::Sampler>,
    /// What each image was made as.
    pub(super) image_descs: BTreeMap<String, vulkan_reference::ImageDesc>,
    /// Top-level acceleration structures.
    pub(super) accels: BTreeMap<String, cpu::AccelerationStructure>,
}

/// A test's buffer: its Metal buffer, allocated as an application allocates
/// ([`crate::run::buffers::cpu_buffer`]), and the test's length, which is
/// what the kernel is bound to and what reads return.
pub(super) struct TestBuffer {
    buffer: cpu::Buffer,
    len: u64,
}

impl CpuSide<'_> {
    /// The device emulating SIMD groups of `width` lanes.
    fn device(&mut self, width: u32) -> Result<&cpu::Device, String> {
        if width == self.device.simd_width() {
            return Ok(self.device);
        }
        if !self.widths.contains_key(&width) {
            let d = self
                .device
                .with_simd_width(width)
                .map_err(|e| e.to_string())?;
            self.widths.insert(width, d);
        }
        Ok(&self.widths[&width])
    }
}

impl Side for CpuSide<'_> {
    fn label(&self) -> &'static str {
        "metal-on-cpu"
    }

    fn undefined_divisions(&self) -> u64 {
        self.device.undefined_divisions()
    }

    fn create_image(
        &mut self,
        name: &str,
        desc: &vulkan_reference::ImageDesc,
        bytes: &[u8],
    ) -> Result<(), String> {
        let t = cpu_texture(self.device, desc, bytes)?;
        self.textures.insert(name.to_string(), t);
        self.image_descs.insert(name.to_string(), *desc);
        Ok(())
    }

    fn create_sampler(
        &mut self,
        name: &str,
        desc: &vulkan_reference::SamplerDesc,
    ) -> Result<(), String> {
        let s = self
            .device
            .sampler(&sampler_descriptor(desc))
            .map_err(|e| e.to_string())?;
        self.samplers.insert(name.to_string(), s);
        Ok(())
    }

    fn create_acceleration_structure(
        &mut self,
        name: &str,
        scene: &runtime_loader::scene::TopLevel,
    ) -> Result<(), Stop> {
        let a = self
            .device
            .acceleration_structure(scene)
            .map_err(|e| Stop::Fail(e.to_string()))?;
        self.accels.insert(name.to_string(), a);
        Ok(())
    }

    fn create(
        &mut self,
        name: &str,
        bytes: &[u8],
        format: Option<vulkan_reference::Format>,
    ) -> Result<(), String> {
        let buffer = cpu_buffer(self.device, bytes)?;
        let len = bytes.len() as u64;
        // A buffer with a format bound as a texel buffer: on Metal a
        // `texture_buffer` made on the buffer
        // (`newTextureWithDescriptor:offset:bytesPerRow:`), its texels the
        // buffer's bytes, so what a kernel writes through one binding the
        // others see (a Vulkan texel buffer is a view of its buffer).
        if let Some(f) = format.filter(|_| self.texel_buffers.contains(name)) {
            let t = cpu_texel_buffer_on(self.device, f, &buffer, len)?;
            self.textures.insert(name.to_string(), t);
        }
        self.buffers
            .insert(name.to_string(), TestBuffer { buffer, len });
        Ok(())
    }

    fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        let Some(b) = self.buffers.get(name) else {
            let t = buffer(&self.textures, name)?;
            let levels = t.descriptor().mipmap_level_count;
            if levels == 1 {
                return texture_bytes(t);
            }
            // A mip-mapped image (1D or 2D, one slice): read as amber reads
            // one back, every level copied over the start of level 0's.
            let mut all = Vec::new();
            for level in 0..levels {
                all.extend(t.level_bytes(level, 0).map_err(|e| e.to_string())?);
            }
            let desc = self.image_descs.get(name).ok_or("no image description")?;
            return Ok(crate::run::amber::readback(desc, &all));
        };
        let mut bytes = vec![0u8; b.len as usize];
        b.buffer.read(0, &mut bytes).map_err(|e| e.to_string())?;
        Ok(bytes)
    }

    fn write(&mut self, name: &str, offset: usize, bytes: &[u8]) -> Result<(), String> {
        if !self.buffers.contains_key(name) && self.textures.contains_key(name) {
            return Err(format!(
                "`{name}` is an image: halc test writes images only when it creates them"
            ));
        }
        let b = buffer(&self.buffers, name)?;
        if (offset as u64).saturating_add(bytes.len() as u64) > b.len {
            return Err(format!(
                "writing {} bytes at offset {offset} overruns `{name}`, {} bytes",
                bytes.len(),
                b.len
            ));
        }
        b.buffer
            .write(offset as u64, bytes)
            .map_err(|e| e.to_string())
    }

    fn dispatch(
        &mut self,
        p: &Pipeline,
        prepared: &Prepared,
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<(), String> {
        let metal = prepared.metal.as_ref().ok_or("no Metal translation")?;
        // A buffer bound as push constants must be the block's size, as the
        // runtime API requires of setBytes: shorter, the kernel would read
        // bytes never given; longer, the test's layout is not the kernel's.
        // (VkScript's push data is sized by its writes: the block's
        // trailing padding is zeros.)
        if let Some(b) = p.binds.iter().find(|b| b.kind == BindKind::PushConstant) {
            if !*self.implicit.get(b.buffer()).unwrap_or(&false)
                && push.len() != metal.push_size as usize
            {
                return Err(format!(
                    "the buffer `{}` bound as push constants holds {} bytes; the kernel's push-constant block is {} bytes",
                    b.buffer(),
                    push.len(),
                    metal.push_size
                ));
            }
        }
        let mut push = push.to_vec();
        push.resize(metal.push_size as usize, 0);
        let push = &push[..];
        let exe = Executable::load(&metal.executable).map_err(|e| e.to_string())?;
        let device = self.device(prepared.simd_width)?.clone();
        let program = device.load(exe).map_err(|e| e.to_string())?;
        let kernel = exe.entry_point(&metal.kernel).ok_or("no kernel")?;
        let pipeline = program
            .pipeline(&metal.kernel, &metal.values)
            .map_err(|e| e.to_string())?;
        // Views of an image's levels from a `BASE_MIP_LEVEL` (Metal's
        // `newTextureViewWithPixelFormat:textureType:levels:slices:`),
        // sharing the image's texels.
        let mut views: BTreeMap<(String, u32), cpu::Texture> = BTreeMap::new();
        for e in p.binds.iter().flat_map(|b| &b.elements) {
            if e.base_mip_level == 0 || views.contains_key(&(e.buffer.clone(), e.base_mip_level)) {
                continue;
            }
            let t = buffer(&self.textures, &e.buffer)?;
            let levels = t.descriptor().mipmap_level_count;
            let view = t
                .view_levels(e.base_mip_level, levels.saturating_sub(e.base_mip_level))
                .map_err(|err| format!("`{}`: {err}", e.buffer))?;
            views.insert((e.buffer.clone(), e.base_mip_level), view);
        }
        let mut bindings = ResourceBindings::new();
        for b in &p.binds {
            let Some((set, binding)) = b.kind.slot() else {
                continue;
            };
            // Amber binds what a test names; the layout says what the
            // kernel uses.
            if kernel.binding(set, binding).is_none() {
                continue;
            }
            let texture = |e: &crate::run::amber::BindElement| {
                let name = e.buffer.as_str();
                match e.base_mip_level {
                    0 => self.textures.get(name),
                    base => views.get(&(e.buffer.clone(), base)),
                }
                .ok_or_else(|| format!("`{name}` is not an image or a buffer with a format"))
            };
            if let BindKind::AccelerationStructure { .. } = b.kind {
                let accel = self
                    .accels
                    .get(b.buffer())
                    .ok_or_else(|| format!("unknown acceleration structure `{}`", b.buffer()))?;
                bindings.acceleration_structure(set, binding, accel);
                continue;
            }
            let mut elements = Vec::new();
            for e in &b.elements {
                elements.push(match b.kind {
                    BindKind::Storage { .. } | BindKind::Uniform { .. } => {
                        let buf = buffer(&self.buffers, &e.buffer)?;
                        let range = e.range.unwrap_or(buf.len.saturating_sub(e.offset));
                        cpu::Bound::Buffer {
                            buffer: &buf.buffer,
                            offset: e.offset,
                            length: range,
                        }
                    }
                    BindKind::StorageImage { .. }
                    | BindKind::SampledImage { .. }
                    | BindKind::UniformTexelBuffer { .. }
                    | BindKind::StorageTexelBuffer { .. } => {
                        if e.offset != 0 || e.range.is_some() {
                            return Err(format!(
                                "`{}`: halc test binds a texel buffer whole (no DESCRIPTOR_OFFSET or DESCRIPTOR_RANGE)",
                                e.buffer
                            ));
                        }
                        cpu::Bound::Texture(texture(e)?)
                    }
                    BindKind::Sampler { .. } => {
                        cpu::Bound::Sampler(buffer(&self.samplers, &e.buffer)?)
                    }
                    BindKind::CombinedImageSampler { .. } => {
                        let sampler = e.sampler.as_deref().ok_or("no sampler")?;
                        cpu::Bound::CombinedImageSampler(
                            texture(e)?,
                            buffer(&self.samplers, sampler)?,
                        )
                    }
                    BindKind::PushConstant | BindKind::AccelerationStructure { .. } => continue,
                });
            }
            bindings.bind_array(set, binding, elements);
        }
        device
            .dispatch(&pipeline, &bindings, push, Grid::Threadgroups(groups))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn subgroup_size(&self) -> Option<u32> {
        None
    }
}
