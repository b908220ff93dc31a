//! What a [`Device`] does: find or wrap an `MTLDevice`, and make the
//! objects that run on it (buffers, programs, semaphores, command buffers),
//! or run one dispatch and wait. The device's value is in `handle.rs`; this
//! file imports the others, and none imports it.

use std::sync::Arc;

use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2_metal::{MTLCopyAllDevices, MTLCreateSystemDefaultDevice, MTLDevice};

use super::accel::{self, AccelerationStructure};
use super::bindings::ResourceBindings;
use super::buffer::Buffer;
use super::command::CommandBuffer;
use super::handle::Device;
use super::program::{Pipeline, Program};
use super::sync::Semaphore;
use super::texture::{Sampler, Texture};
use super::MetalError;
use crate::image::{PixelFormat, SamplerDescriptor, TextureDescriptor, TextureType};
use crate::memory::{self, MemoryType, Os, StorageMode};
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

    /// The storage mode of the textures [`Device::texture`] makes: shared
    /// with unified memory, managed otherwise (on macOS).
    fn texture_storage_mode(&self) -> StorageMode {
        if self.has_unified_memory() || Os::current() != Os::MacOS {
            StorageMode::Shared
        } else {
            StorageMode::Managed
        }
    }

    /// A texture (`newTextureWithDescriptor:`, shader read and write usage);
    /// see [`Texture`]. Fails for a descriptor Metal would refuse.
    pub fn texture(&self, descriptor: &TextureDescriptor) -> Result<Texture, MetalError> {
        Texture::new(self.raw(), descriptor, self.texture_storage_mode())
    }

    /// A texture created on a buffer
    /// (`newTextureWithDescriptor:offset:bytesPerRow:`): a 2D, one-level
    /// texture or a texture buffer whose texels are `buffer`'s bytes from
    /// `offset`, rows `bytes_per_row` apart; fails for what Metal refuses,
    /// this device's linear-texture alignment included.
    pub fn texture_on_buffer(
        &self,
        descriptor: &TextureDescriptor,
        buffer: &Buffer,
        offset: u64,
        bytes_per_row: u64,
    ) -> Result<Texture, MetalError> {
        Texture::on_buffer(self.raw(), descriptor, buffer, offset, bytes_per_row)
    }

    /// A sampler (`newSamplerStateWithDescriptor:`, usable in argument
    /// buffers); fails for a descriptor Metal would refuse.
    pub fn sampler(&self, descriptor: &SamplerDescriptor) -> Result<Sampler, MetalError> {
        Sampler::new(self.raw(), descriptor)
    }

    /// A zeroed 2D r32 texture a kernel may do image atomics on at any MSL
    /// version: created on a buffer of its own
    /// ([`Device::texture_on_buffer`], host-visible) with rows aligned to
    /// [`crate::ATOMIC_TEXTURE_ROW_ALIGNMENT`] bytes, which a kernel
    /// compiled below MSL 3.1 does its atomics through (bind the texture as
    /// usual and the dispatch plan binds its buffer too). From MSL 3.1 the
    /// kernel uses Metal's texture atomics on it instead. `descriptor`: 2D,
    /// one level, `R32Uint` or `R32Sint`.
    pub fn atomic_texture(&self, descriptor: &TextureDescriptor) -> Result<Texture, MetalError> {
        self.atomic_texture_aligned(descriptor, crate::ATOMIC_TEXTURE_ROW_ALIGNMENT)
    }

    /// [`Device::atomic_texture`] with rows aligned to `row_alignment`
    /// bytes (a kernel's `Binding::atomic_buffer().row_alignment`), which
    /// must be a multiple of the device's
    /// `minimumLinearTextureAlignmentForPixelFormat:`.
    pub fn atomic_texture_aligned(
        &self,
        descriptor: &TextureDescriptor,
        row_alignment: u32,
    ) -> Result<Texture, MetalError> {
        if !matches!(
            descriptor.pixel_format,
            PixelFormat::R32Uint | PixelFormat::R32Sint
        ) || !row_alignment.is_power_of_two()
        {
            return Err(MetalError::InvalidDescriptor {
                what: "atomic texture",
                message: format!(
                    "image atomics are on R32Uint and R32Sint textures, rows aligned to a power of two (got {:?}, {row_alignment})",
                    descriptor.pixel_format
                ),
            });
        }
        if descriptor.texture_type != TextureType::D2 {
            return Err(MetalError::InvalidDescriptor {
                what: "atomic texture",
                message: format!("a 2D texture, not {:?}", descriptor.texture_type),
            });
        }
        descriptor
            .check()
            .map_err(|message| MetalError::InvalidDescriptor {
                what: "atomic texture",
                message,
            })?;
        let layout = crate::AtomicBuffer {
            buffer_index: None,
            id: None,
            byte_offset: None,
            row_alignment,
        };
        let pitch = layout.bytes_per_row(descriptor.width);
        let buffer = self.buffer(
            pitch * u64::from(descriptor.height),
            MemoryType::HostVisible,
        )?;
        self.texture_on_buffer(descriptor, &buffer, 0, pitch)
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
