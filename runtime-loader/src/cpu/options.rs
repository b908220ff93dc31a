//! How a [`Device`](super::Device) compiles and runs: its options and the
//! SIMD widths the executor emulates.

use std::path::PathBuf;
use std::time::Duration;

use super::cxx::Clang;
use super::exec::ThreadgroupFill;
use super::simd::SIMD_WIDTH;
use crate::transfer::BlitAlignment;

/// What a kernel's function-scope variables hold before it writes them
/// (undefined in MSL, as an `OpVariable` without initializer or an
/// `OpUndef` is in SPIR-V): clang's `-ftrivial-auto-var-init`. A kernel
/// whose result changes between [`LocalFill::Zero`] and
/// [`LocalFill::Pattern`] reads such a variable before writing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LocalFill {
    /// Left as clang leaves them (whatever the stack or register held, or
    /// what the optimizer assumes of an undefined value).
    #[default]
    Unset,
    /// Zeros.
    Zero,
    /// clang's repeated pattern (`0xAA` bytes; floats read it as a large
    /// negative value, pointers as an address that faults).
    Pattern,
}

/// Which fills and copies run the polyfill kernels of
/// [`crate::transfer::POLYFILL_MSL`]; the others are done directly on the
/// host (what a blit encoder does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferRule {
    /// The cases a blit encoder with this alignment cannot do (default:
    /// [`BlitAlignment::Four`], macOS, so the polyfill runs where it runs on
    /// a Mac).
    Blit(BlitAlignment),
    /// Every non-empty fill and copy (to test the polyfill MSL).
    AlwaysPolyfill,
}

impl Default for TransferRule {
    fn default() -> Self {
        TransferRule::Blit(BlitAlignment::Four)
    }
}

/// How a [`Device`](super::Device) compiles and runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceOptions {
    /// clang++ to use; `None`: [`super::find_clang`].
    pub clang: Option<Clang>,
    /// Cache of compiled kernels; `None`: `$HALC_CPU_CACHE`, else
    /// `$XDG_CACHE_HOME/halc/cpu`, else `~/.cache/halc/cpu`.
    pub cache_dir: Option<PathBuf>,
    /// A dispatch still running after this long is killed (default 60 s).
    pub time_limit: Duration,
    /// Worker threads for threadgroups; 0: one per available core.
    pub workers: usize,
    /// Threadgroup memory at the start of each threadgroup.
    pub threadgroup_fill: ThreadgroupFill,
    /// Function-scope variables before the kernel writes them (compiled in:
    /// each fill has kernels of its own in the cache).
    pub local_fill: LocalFill,
    /// A command buffer's semaphore wait still unsatisfied after this long
    /// fails its submission (default 60 s): a wait that can never be
    /// satisfied is reported, not a hang.
    pub queue_wait_limit: Duration,
    /// Which fills and copies run the polyfill kernels.
    pub transfer_rule: TransferRule,
    /// Lanes per SIMD group (`threads_per_simdgroup`, a pipeline's
    /// `threadExecutionWidth`): 32, as on Apple GPUs, unless set; 4, 8 and
    /// 16 emulate a GPU with narrower SIMD groups (Metal on Intel GPUs ran
    /// 8 to 32), e.g. to compare with a Vulkan device's subgroups of that
    /// size.
    pub simd_width: u32,
    /// Whether host and device share memory, as on Apple silicon (default);
    /// `false` emulates a Mac with a discrete GPU: `DeviceLocalHostVisible`
    /// buffers are managed, and the host reading one the device wrote fails
    /// until a `CommandBuffer::synchronize` of it has run
    /// ([`CpuError::NotSynchronized`](super::CpuError::NotSynchronized)).
    pub unified_memory: bool,
    /// Inaccessible address space reserved before and after each buffer
    /// ([`GUARD_BYTES`](super::GUARD_BYTES), 64 GiB, unless set): every
    /// address a kernel forms from a buffer and a 32-bit index of an
    /// element of up to 16 bytes then lies in the buffer or its guard zone,
    /// and faults naming the buffer. Less (rounded up to whole pages) only
    /// to show what the zones prevent: a far index then reaches whatever
    /// else the process has mapped.
    pub guard_bytes: u64,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            clang: None,
            cache_dir: None,
            time_limit: Duration::from_secs(60),
            workers: 0,
            threadgroup_fill: ThreadgroupFill::Poison,
            local_fill: LocalFill::Unset,
            queue_wait_limit: Duration::from_secs(60),
            transfer_rule: TransferRule::default(),
            simd_width: SIMD_WIDTH,
            unified_memory: true,
            guard_bytes: super::GUARD_BYTES,
        }
    }
}
