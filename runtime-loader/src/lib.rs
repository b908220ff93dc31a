//! Loads, verifies and dispatches executables written by `halc compile`.
//!
//! The format is defined once, in `schemas/halc_executable.fbs`; the Rust
//! bindings in [`schema`] are generated from it by flatc.
//!
//! The crate has a portable part, built and tested on every platform:
//! - [`Executable::load`] / [`OwnedExecutable::read`]: the flatbuffers
//!   verifier with explicit [`VerifyLimits`], then the semantic checks whose
//!   failures are [`Violation`]s naming the kernel and the field — once;
//!   afterwards [`Kernel`] views read the bytes in place;
//! - [`plan`]: a dispatch plan in pure Rust, the exact list of encoder
//!   commands (argument-buffer bytes, `setBuffer` / `setBytes`,
//!   `useResource`, threadgroup size and count) for a kernel and its bound
//!   resources, with every binding error caught before a GPU is involved;
//! - [`memory`]: the storage-mode policy for buffers;
//! - [`image`]: textures and samplers as Metal describes them, the one
//!   description both backends create them from;
//! - [`scene`]: what an acceleration structure holds, as plain data.
//!
//! a Metal part, [`metal`], that executes plans through `objc2-metal` on
//! Apple platforms and reports [`metal::MetalError::Unavailable`] elsewhere,
//! and (feature `cpu`, Unix) a CPU backend, `cpu`, that runs the same plans
//! from the MSL on the host.
//!
//! The two backends have one host API: the same types and methods, with the
//! same argument types and `Result`s (each backend has its own error type).
//! Host code that names the backend once (`use runtime_loader::metal as
//! gpu;` on Apple targets, `use runtime_loader::cpu as gpu;` elsewhere) is
//! the same for both; halc's `docs/tour.md` walks through such a program,
//! `examples/kernels-app`. Byte lengths and offsets are `u64`, thread and
//! threadgroup counts ([`plan::Grid`]) `u32`, and a buffer's
//! [`memory::MemoryType`] means on the CPU what it means on Metal.

#![deny(missing_docs)]

#[allow(
    dead_code,
    unused_imports,
    missing_docs,
    clippy::all,
    clippy::pedantic,
    unsafe_op_in_unsafe_fn,
    mismatched_lifetime_syntaxes
)]
#[rustfmt::skip]
mod generated;

/// The generated FlatBuffer bindings (readers and builders).
pub mod schema {
    pub use crate::generated::halc::fb::*;
}

#[cfg(all(feature = "cpu", unix))]
pub mod cpu;
pub mod image;
mod kernel;
mod load;
pub mod memory;
pub mod metal;
pub mod plan;
#[cfg(unix)]
#[doc(hidden)]
pub mod process;
mod records;
pub mod scene;
mod strings;
pub mod transfer;
mod verify;

pub use kernel::{
    FunctionConstant, FunctionConstantAlias, Kernel, PushConstantLayout, PushConstantMember,
    SizesBufferLayout, ThreadgroupDim,
};
pub use load::{BuildInfo, Executable, LoadError, OwnedExecutable};
pub use records::{
    or_unset, ArgumentBuffer, AtomicBuffer, Binding, Library, ATOMIC_TEXTURE_ROW_ALIGNMENT, UNSET,
};
pub use strings::{StringTable, Strings};
pub use verify::{bits_fit, scalar_bits, VerifyLimits, Violation, MAX_SAMPLER_SLOTS};
