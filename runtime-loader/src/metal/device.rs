//! What a [`Device`] does: find or wrap an `MTLDevice`, and make the
//! objects that run on it (buffers, programs, semaphores, command buffers),
//! or run one dispatch and wait. The device's value is in `handle.rs`; this
//! file imports the others, and none imports it.

use std::sync::Arc;

use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2_metal::{
    MTLBuffer, MTLCopyAllDevices, MTLCreateSystemDefaultDevice, MTLDevice, MTLPixelFormat,
    MTLStorageMode, MTLTexture, MTLTextureDescriptor, MTLTextureUsage,
};

use super::accel::{self, AccelerationStructure};
use super::bindings::ResourceBindings;
use super::buffer::Buffer;
use super::command::CommandBuffer;
use super::handle::Device;
use super::program::{Pipeline, Program};
use super::sync::Semaphore;
use super::MetalError;
use crate::memory::{self, MemoryType, Os};
use crate::plan::{DispatchPlan, Grid};
use crate::Executable;

// `MTLCreateSystemDefaultDevice` lives in CoreGraphics on macOS (see
// objc2-metal's crate documentation); linking it is harmless elsewhere.
#[link(name = "CoreGraphics", kind = "framework")]
extern "C" {}

impl Device {
    /// The system default device (`MTLCreateSystemDefaultDevice`).
    pub fn new() -> Result<Device, MetalError> {
        let raw = MTLCreateSystemDefaultDevice().ok_or(MetalError::NoDevice)?;
        Self::from_raw(raw)
    }

    /// Every device in the system.
    pub fn all() -> Result<Vec<Device>, MetalError> {
        MTLCopyAllDevices().iter().map(Self::from_raw).collect()
    }

    /// The device whose `name` is exactly `name`.
    pub fn with_name(name: &str) -> Result<Device, MetalError> {
        let all = Self::all()?;
        let names: Vec<String> = all.iter().map(Device::name).collect();
        match names.iter().position(|n| n == name) {
            Some(i) => Ok(all[i].clone()),
            None => Err(MetalError::DeviceNotFound {
                name: name.to_owned(),
                available: names,
            }),
        }
    }

    /// Wraps a device chosen by the caller.
    pub fn from_raw(raw: Retained<ProtocolObject<dyn MTLDevice>>) -> Result<Device, MetalError> {
        let queue = raw.newCommandQueue().ok_or(MetalError::Creation {
            what: "a command queue".into(),
        })?;
        Ok(Device {
            raw,
            queue,
            builtins: Arc::default(),
        })
    }

    /// Creates the executable's libraries on this device (once); pipelines
    /// come from the returned [`Program`].
    pub fn load<'a>(&self, exe: Executable<'a>) -> Result<Program<'a>, MetalError> {
        Program::new(self, exe)
    }

    /// A buffer of `len` bytes whose storage mode follows `memory`
    /// ([`memory::storage_mode`]). Shared and managed buffers start zeroed.
    pub fn buffer(&self, len: u64, memory: MemoryType) -> Result<Buffer, MetalError> {
        let mode = memory::storage_mode(memory, Os::current(), self.has_unified_memory());
        Buffer::new(self.raw(), len, mode)
    }

    /// A buffer holding `data`. Private buffers are filled through a staging
    /// buffer and a blit copy, waited for before returning.
    pub fn buffer_with_data(&self, data: &[u8], memory: MemoryType) -> Result<Buffer, MetalError> {
        let len = data.len() as u64;
        let buffer = self.buffer(len, memory)?;
        if buffer.is_host_visible() {
            buffer.write(0, data)?;
        } else {
            let staging = self.buffer(len, MemoryType::HostVisible)?;
            staging.write(0, data)?;
            let mut cb = self.command_buffer()?;
            cb.copy(&staging, 0, &buffer, 0, data.len() as u64)?;
            cb.commit().wait()?;
        }
        Ok(buffer)
    }

    /// A zeroed 2D r32 texture for a kernel compiled below MSL 3.1 that
    /// does image atomics on it: created on a buffer of its own
    /// (`newTextureWithDescriptor:offset:bytesPerRow:`, shared storage,
    /// read and write usage) with rows aligned to
    /// [`crate::ATOMIC_TEXTURE_ROW_ALIGNMENT`] bytes. The kernel does its
    /// atomics through that buffer: bind the texture as usual
    /// ([`super::Bound::Texture`]) and the dispatch plan binds its buffer
    /// too. (From MSL 3.1 the kernel uses Metal's texture atomics instead,
    /// on a texture created with `MTLTextureUsageShaderAtomic`.) `format`:
    /// `R32Uint` or `R32Sint`.
    pub fn atomic_texture(
        &self,
        format: MTLPixelFormat,
        width: u32,
        height: u32,
    ) -> Result<Retained<ProtocolObject<dyn MTLTexture>>, MetalError> {
        self.atomic_texture_aligned(format, width, height, crate::ATOMIC_TEXTURE_ROW_ALIGNMENT)
    }

    /// [`Device::atomic_texture`] with rows aligned to `row_alignment`
    /// bytes (a kernel's `Binding::atomic_buffer().row_alignment`), which
    /// must be a multiple of the device's
    /// `minimumLinearTextureAlignmentForPixelFormat:`.
    pub fn atomic_texture_aligned(
        &self,
        format: MTLPixelFormat,
        width: u32,
        height: u32,
        row_alignment: u32,
    ) -> Result<Retained<ProtocolObject<dyn MTLTexture>>, MetalError> {
        let what = |why: String| MetalError::Creation {
            what: format!("a {width}x{height} atomic texture: {why}"),
        };
        if format != MTLPixelFormat::R32Uint && format != MTLPixelFormat::R32Sint {
            return Err(what(
                "image atomics are on R32Uint and R32Sint textures".into(),
            ));
        }
        if width == 0 || height == 0 || !row_alignment.is_power_of_two() {
            return Err(what(format!(
                "needs a nonzero size and a power-of-two row alignment (got {row_alignment})"
            )));
        }
        let minimum = self
            .raw()
            .minimumLinearTextureAlignmentForPixelFormat(format);
        if minimum == 0 || row_alignment as usize % minimum != 0 {
            return Err(what(format!(
                "rows aligned to {row_alignment} bytes, which is not a multiple of this device's minimum linear texture alignment for the format ({minimum} bytes)"
            )));
        }
        let layout = crate::AtomicBuffer {
            buffer_index: None,
            id: None,
            byte_offset: None,
            row_alignment,
        };
        let pitch = layout.bytes_per_row(width);
        let buffer = self.buffer(pitch * u64::from(height), MemoryType::HostVisible)?;
        // SAFETY: a 2D, one-level descriptor of a valid size.
        let desc = unsafe {
            MTLTextureDescriptor::texture2DDescriptorWithPixelFormat_width_height_mipmapped(
                format,
                width as usize,
                height as usize,
                false,
            )
        };
        desc.setStorageMode(MTLStorageMode::Shared);
        desc.setUsage(MTLTextureUsage::ShaderRead | MTLTextureUsage::ShaderWrite);
        buffer
            .raw()
            .newTextureWithDescriptor_offset_bytesPerRow(&desc, 0, pitch as usize)
            .ok_or_else(|| what("newTextureWithDescriptor:offset:bytesPerRow: returned nil".into()))
    }

    /// An acceleration structure holding `scene` (after
    /// [`crate::scene::TopLevel::check`]): one primitive structure per
    /// bottom level and the instance structure over them, built and waited
    /// for (see [`AccelerationStructure`] for how the scene maps onto
    /// Metal's descriptors).
    pub fn acceleration_structure(
        &self,
        scene: &crate::scene::TopLevel,
    ) -> Result<AccelerationStructure, MetalError> {
        accel::build(self.raw(), self.raw_queue(), scene)
    }

    /// A timeline semaphore starting at `initial`.
    pub fn semaphore(&self, initial: u64) -> Result<Semaphore, MetalError> {
        Semaphore::new(self.raw(), initial)
    }

    /// A new command buffer on the device's queue.
    pub fn command_buffer(&self) -> Result<CommandBuffer, MetalError> {
        CommandBuffer::new(self)
    }

    /// Plans one dispatch of `pipeline`'s kernel with `bindings` (see
    /// [`crate::plan`]), runs it and waits for it: a command buffer with one
    /// compute pass and, for every managed buffer bound, a
    /// `synchronizeResource:`, so that the host reads what the kernel wrote.
    /// Returns the plan that ran.
    pub fn dispatch(
        &self,
        pipeline: &Pipeline<'_>,
        bindings: &ResourceBindings<'_>,
        push_constants: &[u8],
        grid: Grid,
    ) -> Result<DispatchPlan, MetalError> {
        let mut cb = self.command_buffer()?;
        let mut pass = cb.compute()?;
        let plan = pass.dispatch(pipeline, bindings, push_constants, grid)?;
        pass.end();
        for buffer in bindings.buffers() {
            cb.synchronize(buffer)?;
        }
        cb.commit().wait()?;
        Ok(plan)
    }
}
