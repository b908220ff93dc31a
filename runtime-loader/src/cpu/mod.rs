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
//! | [`Buffer`] | an exact-size shared mapping with a guard page before and after |
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
//! 1. `source.rs` rewrites the MSL for C++ (line numbers kept), bakes the
//!    function constants, and generates an entry wrapper from the kernel's
//!    parameter list; `cxx.rs` compiles it with clang against the
//!    `metal_stdlib` shim (`src/cpu/shim/`), cached by SHA-256.
//! 2. `encode.rs` turns the plan's commands into the kernel's
//!    `[[buffer(N)]]` table: argument buffers hold exactly the plan's bytes
//!    (a buffer's "GPU address" is its host address), `setBytes` copies,
//!    `setBuffer` host address + offset; every buffer an argument buffer
//!    points to must have been made resident by `useResource`.
//! 3. `exec.rs` forks; the child runs threadgroups on worker threads, the
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

mod buffer;
mod command;
#[cfg(test)]
mod command_tests;
mod cxx;
mod device;
mod encode;
mod error;
mod exec;
mod program;
mod source;
mod sync;
#[cfg(test)]
mod tests;

pub use buffer::Buffer;
pub use command::{CommandBuffer, ComputePass, Queue, Submission};
pub use cxx::{find_clang, Clang};
pub use device::{Device, DeviceOptions, ThreadgroupFill, TransferRule};
pub use encode::{Bound, ResourceBindings};
pub use error::{CpuError, FaultKind};
pub use exec::{SIMD_WIDTH, SIMD_WIDTHS, SIMD_WIDTHS_TEXT};
pub use program::{Pipeline, Program};
pub use sync::Semaphore;

/// The shim the kernels are compiled against: `(path, contents)` of every
/// header, `metal_stdlib` first (the others include it).
pub const SHIM_FILES: &[(&str, &str)] = &[
    ("metal_stdlib", include_str!("shim/metal_stdlib")),
    ("simd/simd.h", include_str!("shim/simd/simd.h")),
    ("metal_atomic", include_str!("shim/metal_atomic")),
    ("metal_common", include_str!("shim/metal_common")),
    ("metal_compute", include_str!("shim/metal_compute")),
    ("metal_geometric", include_str!("shim/metal_geometric")),
    ("metal_integer", include_str!("shim/metal_integer")),
    ("metal_limits", include_str!("shim/metal_limits")),
    ("metal_math", include_str!("shim/metal_math")),
    ("metal_matrix", include_str!("shim/metal_matrix")),
    ("metal_numeric", include_str!("shim/metal_numeric")),
    ("metal_pack", include_str!("shim/metal_pack")),
    ("metal_relational", include_str!("shim/metal_relational")),
    ("metal_simdgroup", include_str!("shim/metal_simdgroup")),
    ("metal_type_traits", include_str!("shim/metal_type_traits")),
    ("metal_types", include_str!("shim/metal_types")),
];
