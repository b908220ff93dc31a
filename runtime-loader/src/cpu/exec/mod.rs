//! Running a dispatch: a forked child process, threadgroups on worker
//! threads, the threads of a threadgroup as fibers.
//!
//! **Isolation.** The caller forks; the child runs the dispatch and `_exit`s.
//! Buffers are `MAP_SHARED`, so the child's writes land in the caller's
//! buffers; everything else the child does dies with it. A signal in the
//! child (SIGSEGV on a guard page, SIGFPE, ...) is recorded by a handler in a
//! shared report page with the faulting address and GPU thread, and turned
//! into a [`CpuError::Fault`](super::CpuError::Fault) naming the buffer; a child still running at the
//! time limit is killed ([`CpuError::Timeout`](super::CpuError::Timeout)).
//!
//! **Integer division by zero** (and `INT_MIN / -1`) is undefined in SPIR-V
//! and MSL; a GPU gives some value and goes on. x86-64 raises SIGFPE
//! instead: the child's handler ([`complete_division`](division::complete_division)) decodes the faulting
//! `div`/`idiv`, writes the value halc defines into its destination
//! registers and resumes after it, counting it ([`Outcome::divisions`](launch::Outcome::divisions)):
//! - divisor 0: quotient all ones (`0xFFFFFFFF` unsigned, `-1` signed, as
//!   Direct3D and many GPUs give for `udiv`), remainder the dividend
//!   (`x == q * 0 + r`);
//! - signed overflow (`INT_MIN / -1`): quotient `INT_MIN` (the wrapped
//!   result), remainder 0.
//!
//! AArch64 does not trap: `sdiv`/`udiv` by zero give 0 (and `%`, computed
//! as `x - (x / y) * y`, gives the dividend), `INT_MIN / -1` gives
//! `INT_MIN`; those are not counted. A `div` the handler cannot decode
//! still fails the dispatch ([`FaultKind::IntegerDivision`](super::FaultKind::IntegerDivision)).
//!
//! **Threadgroups.** Worker threads take threadgroups from one counter. Each
//! group gets the worker's threadgroup arena, refilled with the poison
//! pattern first (Metal does not zero threadgroup memory), and one fiber per
//! thread (corosensei stacks, reused).
//!
//! **Scheduling a group.** Fibers run until they finish or wait: at a
//! threadgroup barrier, or at a SIMD-group operation. When nothing can run:
//! 1. in each SIMD group (the device's SIMD width of consecutive thread
//!    indices, 32 by default), the lanes waiting at the earliest source
//!    position of a SIMD-group operation complete it together: they are the
//!    active lanes (lanes that returned, or wait at a barrier or at a later
//!    operation, are not). Completing the earliest position first is what
//!    reconvergence does for structured control flow within a function. It
//!    is not when lanes leave a function early and reach a SIMD-group
//!    operation of a later call of a function at an earlier position (the
//!    same helper called again, another instance of the same template):
//!    there a GPU reconverges at the function's end and the executor does
//!    not (a comparison then reports a difference). The case found,
//!    SPIRV-Cross's clustered-reduction helper (lanes 0..11 of a
//!    `subgroupClusteredAdd(x, 16)` summed 8 lanes), returns early no more
//!    (halc's vendor patch 0003);
//! 2. else, if every thread waits at the same barrier, all are released;
//!    a barrier that some threads passed by (returned, or wait at another
//!    barrier) is a [`CpuError::Kernel`](super::CpuError::Kernel) error: undefined in Metal, a hang on

mod abi;
mod division;
mod fork;
mod group;
mod launch;
mod race_hook;
mod report;
mod sandbox;

pub(super) use abi::{EntryFn, ABI};
pub(super) use fork::run;
pub(super) use launch::Launch;
#[cfg(test)]
pub(super) use launch::Outcome;
pub use launch::ThreadgroupFill;
pub(super) use report::FLOAT_INVALID;
