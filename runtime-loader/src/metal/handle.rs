//! The [`Device`] value: the `MTLDevice`, its command queue and its polyfill
//! kernels, shared by every clone and kept by what is made on the device
//! (programs, pipelines, command buffers). What a device does (create
//! buffers, programs, command buffers, run a dispatch) is in `device.rs`,
//! which nothing imports.

use std::sync::{Arc, OnceLock};

use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2_metal::{MTLArgumentBuffersTier, MTLCommandQueue, MTLDevice, MTLGPUFamily};

use super::conv;
use super::polyfill::Builtins;
use super::MetalError;

/// A Metal device with one command queue for dispatch and transfer (as the
/// seed design's device).
#[derive(Debug, Clone)]
pub struct Device {
    pub(super) raw: Retained<ProtocolObject<dyn MTLDevice>>,
    pub(super) queue: Retained<ProtocolObject<dyn MTLCommandQueue>>,
    /// The polyfill kernels, compiled on first use.
    pub(super) builtins: Arc<OnceLock<Result<Arc<Builtins>, String>>>,
}

impl Device {
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

    /// Whether the device runs ray queries (`supportsRaytracing`): what a
    /// kernel with an acceleration structure needs.
    pub fn supports_ray_tracing(&self) -> bool {
        self.raw.supportsRaytracing()
    }

    /// Whether host and GPU share memory (Apple silicon).
    pub fn has_unified_memory(&self) -> bool {
        self.raw.hasUnifiedMemory()
    }

    /// The polyfill kernels ([`crate::transfer::POLYFILL_MSL`]), compiled
    /// once per device.
    pub(super) fn builtins(&self) -> Result<Arc<Builtins>, MetalError> {
        self.builtins
            .get_or_init(|| Builtins::new(&self.raw).map(Arc::new))
            .clone()
            .map_err(|message| MetalError::Polyfill { message })
    }
}
