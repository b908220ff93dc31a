//! What running a dispatch takes and gives.

use std::time::Duration;

use super::super::encode::Encoded;
use super::super::race::DataRace;
use super::abi::EntryFn;

/// One dispatch, ready to run.
pub(in crate::cpu) struct Launch<'a> {
    pub(in crate::cpu) kernel: &'a str,
    pub(in crate::cpu) entry: EntryFn,
    pub(in crate::cpu) encoded: &'a Encoded,
    pub(in crate::cpu) fill: ThreadgroupFill,
    pub(in crate::cpu) time_limit: Duration,
    pub(in crate::cpu) workers: usize,
    /// Lanes per SIMD group (4, 8, 16 or 32).
    pub(in crate::cpu) simd_width: u32,
    /// Guard zones of the threadgroup arenas, as of the device's buffers
    /// ([`super::super::DeviceOptions::guard_bytes`]).
    pub(in crate::cpu) guard_bytes: u64,
    /// Run the kernel in the sandbox ([`super::sandbox`]): always, but for
    /// the tests that show what it stops.
    pub(in crate::cpu) sandbox: bool,
    /// Check for data races ([`crate::cpu::race`]): the kernel was compiled
    /// with the check's instrumentation; threadgroups run on one worker.
    pub(in crate::cpu) race_check: Option<crate::cpu::race::GroupOrder>,
}

/// What a dispatch that completed did that a caller may want to know.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::cpu) struct Outcome {
    /// Integer divisions by zero (or `INT_MIN / -1`) given halc's value
    /// after a trap (x86-64; see the module documentation).
    pub(in crate::cpu) divisions: u64,
    /// The floating-point exception flags the kernel raised (x86-64; see
    /// `report::FLOAT_INVALID`).
    pub(in crate::cpu) float_flags: u32,
    /// The first data race the race check found ([`Launch::race_check`]).
    pub(in crate::cpu) race: Option<DataRace>,
}

/// What threadgroup memory holds when a threadgroup starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThreadgroupFill {
    /// The poison pattern `0x7FBADBAD` (little-endian u32s: a signalling NaN
    /// as a float, a NaN in every other half): Metal does not initialise
    /// threadgroup memory, so a kernel reading before writing must fail.
    #[default]
    Poison,
    /// Zeros (what a buggy kernel hopes for; for tests of tests).
    Zero,
    /// Every byte set to this value.
    Byte(u8),
}
