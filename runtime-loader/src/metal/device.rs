//! `MTLDevice` and its command queue.

use std::sync::{Arc, OnceLock};

use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2_metal::{
    MTLArgumentBuffersTier, MTLCommandQueue, MTLCopyAllDevices, MTLCreateSystemDefaultDevice,
    MTLDevice, MTLGPUFamily,
};

use super::buffer::Buffer;
use super::command::CommandBuffer;
use super::conv;
use super::program::{Builtins, Program};
use super::sync::Semaphore;
use super::MetalError;
use crate::memory::{self, MemoryType, Os};
use crate::Executable;

// `MTLCreateSystemDefaultDevice` lives in CoreGraphics on macOS (see
// objc2-metal's crate documentation); linking it is harmless elsewhere.
#[link(name = "CoreGraphics", kind = "framework")]
extern "C" {}

/// A Metal device with one command queue for dispatch and transfer (as the
/// seed design's device).
#[derive(Debug, Clone)]
pub struct Device {
    raw: Retained<ProtocolObject<dyn MTLDevice>>,
    queue: Retained<ProtocolObject<dyn MTLCommandQueue>>,
    /// The polyfill kernels, compiled on first use.
    builtins: Arc<OnceLock<Result<Arc<Builtins>, String>>>,
}

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

    /// `MTLDevice.name`.
    pub fn name(&self) -> String {
        conv::string(&self.raw.name())
    }

    /// The `MTLDevice`.
    pub fn raw(&self) -> &ProtocolObject<dyn MTLDevice> {
        &self.raw
    }

    /// The `MTLCommandQueue`.
    pub fn raw_queue(&self) -> &ProtocolObject<dyn MTLCommandQueue> {
        &self.queue
    }

    /// Whether the device is in the Metal 3 family: buffer GPU addresses and
    /// resource ids can be written into argument buffers directly.
    pub fn supports_metal3(&self) -> bool {
        self.raw.supportsFamily(MTLGPUFamily::Metal3)
    }

    /// Whether the device supports tier-2 argument buffers.
    pub fn argument_buffers_tier2(&self) -> bool {
        self.raw.argumentBuffersSupport() == MTLArgumentBuffersTier::Tier2
    }

    /// Whether host and GPU share memory (Apple silicon).
    pub fn has_unified_memory(&self) -> bool {
        self.raw.hasUnifiedMemory()
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
        Buffer::new(self, len, mode)
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

    /// A timeline semaphore starting at `initial`.
    pub fn semaphore(&self, initial: u64) -> Result<Semaphore, MetalError> {
        Semaphore::new(self, initial)
    }

    /// The polyfill kernels ([`crate::transfer::POLYFILL_MSL`]), compiled
    /// once per device.
    pub(super) fn builtins(&self) -> Result<Arc<Builtins>, MetalError> {
        self.builtins
            .get_or_init(|| Builtins::new(&self.raw).map(Arc::new))
            .clone()
            .map_err(|message| MetalError::Polyfill { message })
    }

    /// A new command buffer on the device's queue.
    pub fn command_buffer(&self) -> Result<CommandBuffer, MetalError> {
        CommandBuffer::new(self)
    }
}
