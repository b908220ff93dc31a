//! The `metal-on-cpu` side: halc's executable, loaded and verified by the
//! runtime-loader and run by its CPU backend.

use std::collections::BTreeMap;

use runtime_loader::cpu::{self, ResourceBindings};
use runtime_loader::memory::MemoryType;
use runtime_loader::plan::Grid;
use runtime_loader::Executable;

use super::side::{buffer, Prepared, Side};
use crate::run::amber::{BindKind, Pipeline};

pub(super) struct CpuSide<'d> {
    pub(super) device: &'d cpu::Device,
    /// Buffers sized by the script's writes
    /// ([`crate::run::amber::Buffer::implicit_size`]).
    pub(super) implicit: BTreeMap<String, bool>,
    /// The device at other SIMD widths, made on first use.
    pub(super) widths: BTreeMap<u32, cpu::Device>,
    pub(super) buffers: BTreeMap<String, cpu::Buffer>,
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
        _name: &str,
        _format: vulkan_reference::Format,
        _shape: crate::run::amber::ImageShape,
        _bytes: &[u8],
    ) -> Result<(), String> {
        Err("images on the CPU backend are not wired to halc test yet".into())
    }

    fn create_sampler(
        &mut self,
        _name: &str,
        _desc: &vulkan_reference::SamplerDesc,
    ) -> Result<(), String> {
        Err("samplers on the CPU backend are not wired to halc test yet".into())
    }

    fn create(
        &mut self,
        name: &str,
        bytes: &[u8],
        _format: Option<vulkan_reference::Format>,
    ) -> Result<(), String> {
        let b = self
            .device
            .buffer_with_data(bytes, MemoryType::HostVisible)
            .map_err(|e| e.to_string())?;
        self.buffers.insert(name.to_string(), b);
        Ok(())
    }

    fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        buffer(&self.buffers, name)?
            .to_vec()
            .map_err(|e| e.to_string())
    }

    fn write(&mut self, name: &str, offset: usize, bytes: &[u8]) -> Result<(), String> {
        buffer(&self.buffers, name)?
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
        let mut bindings = ResourceBindings::new();
        for b in &p.binds {
            if let BindKind::Storage { set, binding } | BindKind::Uniform { set, binding } = b.kind
            {
                // Amber binds what a test names; the layout says what the
                // kernel uses.
                if kernel.binding(set, binding).is_some() {
                    let mut elements = Vec::new();
                    for e in &b.elements {
                        let buf = buffer(&self.buffers, &e.buffer)?;
                        let range = e.range.unwrap_or(buf.len().saturating_sub(e.offset));
                        elements.push(cpu::Bound::Buffer {
                            buffer: buf,
                            offset: e.offset,
                            length: range,
                        });
                    }
                    bindings.bind_array(set, binding, elements);
                }
            }
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
