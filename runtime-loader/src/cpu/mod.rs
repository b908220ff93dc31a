//! The CPU backend: executes an executable's kernels from their MSL on the
//! host, through the same [`crate::plan::DispatchPlan`] the Metal backend
//! encodes, so that a wrong slot, a wrong argument-buffer offset or wrong MSL
//! fails on Linux.
//!
//! Feature `cpu`, Unix. Needs clang++ ≥ 15 at run time ([`find_clang`]).
//!
//! The host-facing methods are the Metal backend's ([`crate::metal`]), with
//! the same argument types and `Result`s, so host code tested here compiles
//! for a Mac unchanged (`runtime-loader/tests/portable`). Buffers get the
//! storage mode Metal would give their [`crate::memory::MemoryType`]: a
//! `DeviceLocal` buffer refuses host access ([`CpuError::NotHostVisible`]);
//! with [`DeviceOptions::unified_memory`] `false` (a Mac with a discrete
//! GPU), a `DeviceLocalHostVisible` buffer is managed, and the host reading
//! what the device wrote before a [`CommandBuffer::synchronize`] of it fails
//! ([`CpuError::NotSynchronized`]).
//!
//! | halc CPU runtime | what it is |
//! |---|---|
//! | [`Device`] | the compiler (clang, cache directory) and the execution options |
//! | [`Buffer`] | an exact-size shared mapping between two 64 GiB guard zones (address space only) |
//! | [`Texture`] / [`Sampler`] | from a [`TextureDescriptor`] / [`SamplerDescriptor`] (Metal's descriptors); texels in a shared mapping, host upload and readback per level and slice |
//! | [`Program`] | an executable's MSL libraries |
//! | [`Pipeline`] | one kernel with its [`crate::plan::Specialization`], compiled to a shared object and loaded |
//! | [`CommandBuffer`] / [`ComputePass`] | recorded waits, signals, dispatches (planned and encoded when recorded), copies, fills; replayable |
//! | [`Queue`] / [`Submission`] | a thread running submissions in order; wait / poll a submission |
//! | [`Semaphore`] | a timeline u64 (host and queue waits and signals, wait-before-signal) |
//! | [`Device::dispatch`] / [`Device::execute`] | one plan run synchronously in a forked child process |
//!
//! Fills and copies follow [`crate::transfer`]'s contract; the cases a Metal
//! blit encoder cannot do run the polyfill kernels of
//! [`crate::transfer::POLYFILL_MSL`], compiled like any kernel's MSL
//! ([`TransferRule`]).
//!
//! How a dispatch runs:
//! 1. `source/` rewrites the MSL for C++ (line numbers kept), bakes the
//!    function constants, and generates an entry wrapper from the kernel's
//!    parameter list; `cxx/` compiles it with clang against the
//!    `metal_stdlib` shim (`src/cpu/shim/`), cached by SHA-256.
//! 2. `encode.rs` turns the plan's commands into the kernel's slot table
//!    (`[[buffer(N)]]`, `[[texture(N)]]`, `[[sampler(N)]]`): argument
//!    buffers hold exactly the plan's bytes (a buffer's "GPU address" is its
//!    host address, a texture's or sampler's resource id the address of the
//!    header the shim reads), `setBytes` copies, `setBuffer` host address +
//!    offset, `setTexture` / `setSamplerState` the resource id; every buffer
//!    and texture an argument buffer points to must have been made resident
//!    by `useResource`, and every id in it must be a bound texture's or
//!    sampler's.
//! 3. `exec/` forks (`fork.rs`); the child runs threadgroups on worker threads, the
//!    threads of a group as fibers (barriers and SIMD-group operations are
//!    fiber switches), with poisoned threadgroup memory. A crash, a time-out
//!    or a kernel error fails the dispatch; the caller keeps running.
//!
//! What running on the CPU does not prove: that Apple's compiler accepts the
//! MSL (the shim is C++, more permissive than MSL; some MSL-only rules are
//! checked, e.g. a `threadgroup` array sized by a function constant),
//! address-space rules (address spaces are erased), real SIMD and memory-model
//! timing (fibers run one at a time per group, in order; a race does not
//! show in the results: [`Device::with_race_check`] finds it, see `race.rs`
//! for its rule), and fast-math precision (the host computes IEEE float without FMA
//! contraction).
//!
//! **Textures and samplers** follow the Metal Shading Language
//! specification (the shim's `metal_texture`): `texture1d`, `texture1d_array`,
//! `texture2d`, `texture2d_array`, `texture3d`, `texturecube`,
//! `texturecube_array` and `texture_buffer` with `read`, `write`, `sample`
//! (nearest and linear, mip filters, `level` / `bias` / `min_lod_clamp` /
//! gradient options, offsets, normalized and pixel coordinates, every
//! address mode and border colour), `gather`, the size queries and `fence`;
//! the [`PixelFormat`]s Vulkan images map to, converted by Metal's rules
//! (unorm and snorm scaled and rounded to nearest even after clamping, snorm
//! reading its most negative value as -1, 8- and 16-bit integer writes
//! saturated, half rounded to nearest even). A read or write outside a
//! texture, a texture type whose component kind does not suit the pixel
//! format, and linear filtering that would need more than the shim models
//! (across a cube face's edge, which Metal filters seamlessly; of an
//! integer format) fail the dispatch with an error naming the texture.
//! Refused when the kernel is prepared: multisampled and depth textures,
//! comparison sampling, `constexpr sampler`. Filtering weights are exact
//! floats (a GPU's have a few bits of fraction). Image atomics run both
//! ways: Metal's texture atomics (MSL 3.1) on R32Uint/R32Sint textures, and
//! SPIRV-Cross's emulation below 3.1 through the buffer a texture was
//! created on ([`Device::atomic_texture`]: the texture's texels are that
//! buffer's bytes, rows `bytes_per_row` apart, so both views alias).
//!
//! **Ray queries** follow the Metal Shading Language specification's
//! ray-tracing chapter (the shim's `metal_raytracing`): what SPIRV-Cross
//! emits for `GL_EXT_ray_query` — `raytracing::intersection_query<
//! raytracing::instancing, raytracing::triangle_data>` with `reset`,
//! `next`, `abort`, the commits, every candidate and committed getter, and
//! `intersection_params` (forced opacity, accept-any, triangle, opacity and
//! geometry culling, front-facing winding) — over a
//! `raytracing::acceleration_structure<raytracing::instancing>`, which is
//! the 8-byte resource id of an [`AccelerationStructure`]
//! ([`Device::acceleration_structure`]): a `[[buffer(N)]]` parameter takes
//! its slot's value, an argument-buffer member holds it. The structure is
//! the scene flattened into one immutable block (`accel.rs` documents the
//! layout, mirrored by the shim); traversal is brute force in instance,
//! geometry, primitive order, with watertight ray–triangle tests, instance
//! masks, transforms (the ray in object space per instance), instance and
//! geometry flags. Where Metal leaves a result unspecified (candidate order,
//! ties, a box's candidate distance) the shim's header says what the CPU
//! does; misuse Metal leaves undefined (a candidate getter without a
//! candidate, a commit of the wrong kind, a null structure) fails the
//! dispatch with an error naming the ray query.
//!
//! The files, each importing only files before it in this list: `simd.rs`
//! (the SIMD widths emulated), `error.rs`, `buffer.rs`, `texture.rs`
//! (textures, samplers and their descriptors), `source/`,
//! `bindings.rs` (what the host binds), `encode.rs`, `accel.rs`
//! (acceleration structures), `race.rs` (the data-race check's detector
//! and [`DataRace`]), `exec/` (the executor),
//! `cxx/` (finding clang, the shim and the compile cache, loading an object),
//! `options.rs` ([`DeviceOptions`]), `polyfill.rs`, `sync.rs`, `queue.rs`
//! (running recorded commands), `handle.rs` (the [`Device`] value),
//! `program.rs`, `command.rs` (recording), and `device.rs`, which makes all
//! of them and which nothing imports.

mod accel;
#[cfg(test)]
mod accel_tests;
mod bindings;
mod buffer;
mod command;
#[cfg(test)]
mod command_tests;
mod cxx;
mod device;
mod encode;
mod error;
mod exec;
mod handle;
mod options;
mod polyfill;
mod program;
mod queue;
mod race;
#[cfg(test)]
mod race_tests;
mod simd;
mod source;
mod sync;
#[cfg(test)]
mod tests;
mod texture;
#[cfg(test)]
mod texture_tests;

pub use accel::AccelerationStructure;
pub use bindings::{Bound, ResourceBindings};
pub use buffer::{Buffer, GUARD_BYTES};
pub use command::{CommandBuffer, ComputePass};
pub use cxx::{find_clang, Clang, SHIM_FILES};
pub use error::{CpuError, FaultKind};
pub use exec::ThreadgroupFill;
pub use handle::Device;
pub use options::{DeviceOptions, LocalFill, TransferRule};
pub use program::{Pipeline, Program};
pub use queue::{Queue, Submission};
pub use race::{DataRace, GroupOrder, RaceAccess};
pub use simd::{SIMD_WIDTH, SIMD_WIDTHS, SIMD_WIDTHS_TEXT};
pub use sync::Semaphore;
pub use texture::{
    AddressMode, BorderColor, ComponentKind, MinMagFilter, MipFilter, PixelFormat, Sampler,
    SamplerDescriptor, Texture, TextureDescriptor, TextureRegion, TextureType, MAX_MIP_LEVELS,
};
