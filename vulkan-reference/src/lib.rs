//! Runs SPIR-V compute kernels on a real Vulkan driver — Mesa's lavapipe
//! (a CPU implementation) by default — so that their results can be
//! compared with another implementation's, e.g. halc's MSL on its CPU
//! backend.
//!
//! `libvulkan.so.1` is loaded at run time: the crate builds without any
//! Vulkan SDK, and a machine without a driver gets [`Error::NoVulkan`] or
//! [`Error::NoDevice`] saying what to install
//! (`apt-get install mesa-vulkan-drivers libvulkan1` on Debian).
//!
//! ```no_run
//! use vulkan_reference::*;
//! # fn main() -> Result<(), Error> {
//! # let words: Vec<u32> = Vec::new();
//! let vk = Reference::new(&ReferenceOptions::default())?;
//! let data = vk.buffer(&[0u8; 256])?;
//! let pipeline = vk.pipeline(&PipelineDesc {
//!     spirv: &words,
//!     entry: "main",
//!     specialization: &[],
//!     bindings: &[BindingDesc { set: 0, binding: 0, kind: BindingKind::Storage, count: 1 }],
//!     push_constant_size: 0,
//!     ..Default::default()
//! })?;
//! vk.dispatch(&pipeline, &[Bound::new(0, 0, &data)], &[], [1, 1, 1])?;
//! let bytes = data.read();
//! # Ok(()) }
//! ```
//!
//! The pieces: [`Reference`] (instance, device, queue; features),
//! [`Buffer`] (host-visible coherent memory; also bound as a texel buffer
//! of a [`Format`]), [`Image`] and [`Sampler`] (storage and sampled
//! images of every dimensionality, filled from bytes and read back with
//! [`Reference::read_image`]), [`Pipeline`] (module, layouts,
//! specialization) and [`Reference::dispatch`] (descriptor sets of every
//! kind, push constants, one submit and fence, with a time-out),
//! [`AccelerationStructure`] (a top-level acceleration structure built
//! from a `runtime_loader::scene::TopLevel`, for ray queries).
//! [`Session`] is
//! the same by handles, in this process or in a child process running
//! [`serve`], where a crash of the driver becomes an error.
//!
//! What a module needs of the device (features its capabilities need,
//! extensions, the `SubgroupUniformControlFlowKHR` mode, zero-initialised
//! Workgroup memory) is enabled only when asked for: [`required_by_module`]
//! lists it, to pass as [`ReferenceOptions::optional_features`] before the
//! device is created, and [`Reference::pipeline`] refuses a module that
//! needs something the device supports but that was not enabled, naming
//! it.
//!
//! Modules are not validated here: validate them first (a driver without
//! validation layers may crash on invalid SPIR-V).
#![deny(missing_docs)]

#[cfg(feature = "driver")]
mod accel;
#[cfg(feature = "driver")]
mod buffer;
mod desc;
#[cfg(feature = "driver")]
mod dispatch;
#[cfg(feature = "driver")]
mod error;
#[cfg(feature = "driver")]
mod features;
#[cfg(feature = "driver")]
mod image;
#[cfg(feature = "driver")]
mod pipeline;
#[cfg(feature = "driver")]
mod reference;
#[cfg(feature = "driver")]
mod session;
#[cfg(feature = "driver")]
mod spirv;

#[cfg(feature = "driver")]
pub use accel::{AccelerationStructure, ACCELERATION_STRUCTURE_FEATURE, RAY_QUERY_FEATURE};
#[cfg(feature = "driver")]
pub use buffer::Buffer;
pub use desc::{
    AddressMode, BorderColor, Component, Filter, Format, ImageDesc, ImageDim, SamplerDesc,
};
#[cfg(feature = "driver")]
pub use dispatch::{Bound, Resource};
#[cfg(feature = "driver")]
pub use error::{Error, Result};
#[cfg(feature = "driver")]
pub use features::{feature_names, property_names};
#[cfg(feature = "driver")]
pub use image::{Image, Sampler};
#[cfg(feature = "driver")]
pub use pipeline::{BindingDesc, BindingKind, Pipeline, PipelineDesc};
#[cfg(feature = "driver")]
pub use reference::{DriverInfo, Reference, ReferenceOptions, DEFAULT_TIMEOUT};
#[cfg(feature = "driver")]
pub use session::{
    serve, AccelerationStructureId, BufferId, ImageId, PipelineId, Place, SamplerId, Session,
    SessionBound, SessionResource,
};
#[cfg(feature = "driver")]
pub use spirv::{extensions_required_by_module, required_by_module};

#[cfg(all(test, feature = "driver"))]
mod thread_tests {
    use super::*;

    fn is_send<T: Send>() {}

    #[test]
    fn handles_are_send() {
        is_send::<Reference>();
        is_send::<Buffer>();
        is_send::<Pipeline>();
        is_send::<Error>();
    }
}
