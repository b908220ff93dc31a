//! The Metal runtime: executes [`crate::plan`]s through `objc2-metal`.
//!
//! Compiled on Apple platforms (`cfg(target_vendor = "apple")`). Elsewhere
//! only [`Device`] and [`MetalError`] exist, and every entry point
//! ([`Device::new`], [`Device::all`], [`Device::with_name`])
//! returns [`MetalError::Unavailable`]; the portable part of the crate is
//! unaffected.
//!
//! Object mapping (IREE's Metal HAL, seeds 000/002):
//!
//! | halc runtime | Metal |
//! |---|---|
//! | [`Device`] | `MTLDevice` + one `MTLCommandQueue` |
//! | `Program` | one `MTLLibrary` per executable library (metallib via `newLibraryWithData`, else MSL via `newLibraryWithSource` with the recorded language version and math mode) |
//! | `Pipeline` | `MTLComputePipelineState` (function constants, `maxTotalThreadsPerThreadgroup`) |
//! | `Buffer` | `MTLBuffer`, storage mode from [`crate::memory::storage_mode`] |
//! | `Texture` / `Sampler` | `MTLTexture` / `MTLSamplerState`, from [`crate::image`]'s descriptors |
//! | `CommandBuffer` / `ComputePass` | `MTLCommandBuffer` / one `MTLComputeCommandEncoder` per dispatch sequence |
//! | `Semaphore` | `MTLSharedEvent` (timeline: host and device waits and signals) |
//!
//! Every Metal call a dispatch makes is in `encode.rs`, one match arm per
//! [`crate::plan::Command`].
//!
//! The files, each importing only files before it in this list: `conv.rs`
//! (every conversion to Metal's types), `error.rs`, `buffer.rs`, `accel.rs`
//! (acceleration structures built from a [`crate::scene::TopLevel`]),
//! `texture.rs` (textures and samplers), `bindings.rs` (what the host
//! binds), `polyfill.rs`, `handle.rs` (the
//! [`Device`] value), `program.rs`, `encode.rs`, `sync.rs`, `command.rs`, and
//! `device.rs`, which makes all of them and which nothing imports.
//!
//! The host-facing methods are the CPU backend's (`crate::cpu`, feature
//! `cpu`): host code tested there compiles here unchanged
//! (`runtime-loader/tests/portable`).

mod error;
pub use error::MetalError;

#[cfg(target_vendor = "apple")]
mod accel;
#[cfg(target_vendor = "apple")]
mod bindings;
#[cfg(target_vendor = "apple")]
mod buffer;
#[cfg(target_vendor = "apple")]
mod command;
#[cfg(target_vendor = "apple")]
mod conv;
#[cfg(target_vendor = "apple")]
mod device;
#[cfg(target_vendor = "apple")]
mod encode;
#[cfg(target_vendor = "apple")]
mod handle;
#[cfg(target_vendor = "apple")]
mod polyfill;
#[cfg(target_vendor = "apple")]
mod program;
#[cfg(target_vendor = "apple")]
mod sync;
#[cfg(target_vendor = "apple")]
mod texture;

#[cfg(target_vendor = "apple")]
pub use self::{
    accel::AccelerationStructure,
    bindings::{Bound, ResourceBindings},
    buffer::Buffer,
    command::{CommandBuffer, ComputePass, Submission},
    handle::Device,
    program::{ArgumentEncoding, LibraryOrigin, Pipeline, Program},
    sync::Semaphore,
    texture::{Sampler, Texture},
};
#[cfg(target_vendor = "apple")]
pub use crate::image::{
    AddressMode, BorderColor, ComponentKind, MinMagFilter, MipFilter, PixelFormat,
    SamplerDescriptor, TextureDescriptor, TextureRegion, TextureType, MAX_MIP_LEVELS,
};

#[cfg(not(target_vendor = "apple"))]
mod unavailable;
#[cfg(not(target_vendor = "apple"))]
pub use unavailable::Device;

/// Whether this build can reach Metal at all (`cfg(target_vendor = "apple")`).
pub const fn is_available() -> bool {
    cfg!(target_vendor = "apple")
}
