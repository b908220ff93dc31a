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
//! 2. `encode.rs` turns the plan's commands into the kernel's
//!    `[[buffer(N)]]` table: argument buffers hold exactly the plan's bytes
//!    (a buffer's "GPU address" is its host address), `setBytes` copies,
//!    `setBuffer` host address + offset; every buffer an argument buffer
//!    points to must have been made resident by `useResource`.
//! 3. `exec/` forks (`fork.rs`); the child runs threadgroups on worker threads, the
//!    threads of a group as fibers (barriers and SIMD-group operations are
//!    fiber switches), with poisoned threadgroup memory. A crash, a time-out
//!    or a kernel error fails the dispatch; the caller keeps running.
//!
//! What running on the CPU does not prove: that Apple's compiler accepts the
//! MSL (the shim is C++, more permissive than MSL; some MSL-only rules are
//! checked, e.g. a `threadgroup` array sized by a function constant),
//! address-space rules (address spaces are erased), real SIMD and memory-model
//! timing (fibers run one at a time per group, in order; a race may not
//! show), fast-math precision (the host computes IEEE float without FMA
//! contraction), and textures and samplers, which are not supported yet.
//!
//! The files, each importing only files before it in this list: `simd.rs`
//! (the SIMD widths emulated), `error.rs`, `buffer.rs`, `source/`,
//! `bindings.rs` (what the host binds), `encode.rs`, `exec/` (the executor),
//! `cxx/` (finding clang, the shim and the compile cache, loading an object),
//! `options.rs` ([`DeviceOptions`]), `polyfill.rs`, `sync.rs`, `queue.rs`
//! (running recorded commands), `handle.rs` (the [`Device`] value),
//! `program.rs`, `command.rs` (recording), and `device.rs`, which makes all
//! of them and which nothing imports.

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
mod simd;
mod source;
mod sync;
#[cfg(test)]
mod tests;

pub use bindings::{Bound, ResourceBindings};
pub use buffer::{Buffer, GUARD_BYTES};
pub use command::{CommandBuffer, ComputePass};
pub use cxx::{find_clang, Clang, SHIM_FILES};
pub use error::{CpuError, FaultKind};
pub use exec::ThreadgroupFill;
pub use handle::Device;
pub use options::{DeviceOptions, TransferRule};
pub use program::{Pipeline, Program};
pub use queue::{Queue, Submission};
pub use simd::{SIMD_WIDTH, SIMD_WIDTHS, SIMD_WIDTHS_TEXT};
pub use sync::Semaphore;
