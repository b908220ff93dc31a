//! The [`Device`] value: the compiler, the execution options and what is
//! started on first use (the device's queue, the polyfill kernels), shared
//! by every clone and kept by what is made on the device (programs,
//! pipelines, command buffers). What a device does (create buffers,
//! programs, queues, command buffers, run a dispatch) is in `device.rs`,
//! which nothing imports.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::cxx::{Clang, Compiler};
use super::exec::ThreadgroupFill;
use super::options::TransferRule;
use super::polyfill::Builtins;
use super::queue::{Queue, RunOptions};
use super::race::DataRace;
use super::CpuError;

/// What a device's clones share.
#[derive(Debug)]
pub(super) struct Inner {
    pub(super) compiler: Compiler,
    pub(super) time_limit: Duration,
    pub(super) workers: usize,
    pub(super) fill: ThreadgroupFill,
    pub(super) queue_wait_limit: Duration,
    pub(super) transfer_rule: TransferRule,
    pub(super) simd_width: u32,
    pub(super) unified_memory: bool,
    /// [`DeviceOptions::guard_bytes`](super::DeviceOptions::guard_bytes).
    pub(super) guard_bytes: u64,
    /// The polyfill kernels, compiled on first use.
    pub(super) builtins: OnceLock<Result<Arc<Builtins>, CpuError>>,
    /// The device's queue, started on first use.
    pub(super) queue: OnceLock<Queue>,
    /// See [`Device::undefined_divisions`].
    pub(super) divisions: Arc<AtomicU64>,
    /// See [`Device::invalid_float_operations`].
    pub(super) invalid_floats: Arc<AtomicU64>,
    /// Whether kernels are compiled and run with the race check
    /// ([`Device::with_race_check`]).
    pub(super) race_check: Option<super::race::GroupOrder>,
    /// See [`Device::first_race`].
    pub(super) races: Arc<Mutex<Option<DataRace>>>,
}

/// The CPU device. Cloning shares it.
#[derive(Debug, Clone)]
pub struct Device {
    pub(super) inner: Arc<Inner>,
}

impl Device {
    /// How many integer divisions by zero (or `INT_MIN / -1`, undefined in
    /// MSL) this device's dispatches have completed with halc's value
    /// instead of failing, since it was created: quotient all ones,
    /// remainder the dividend (x86-64, where they trap; see the CPU
    /// backend's executor). On AArch64 they do not trap and are not counted.
    /// Read it before and after a dispatch to know whether that dispatch
    /// divided by zero (the count is shared with the devices
    /// [`Device::with_simd_width`] makes from this one).
    pub fn undefined_divisions(&self) -> u64 {
        self.inner.divisions.load(Ordering::Relaxed)
    }

    /// How many of this device's dispatches raised the invalid-operation
    /// flag: the kernel made a NaN from numbers (0/0, ∞ − ∞, the square
    /// root of a negative, …) or converted a float to an integer it does
    /// not fit, both of which Vulkan leaves undefined (x86-64; elsewhere 0).
    /// Exact on a device from [`Device::with_float_checks`]; on others the
    /// compiler may evaluate an operation the kernel would not (a division
    /// in a branch not taken). Shared with the devices made from this one.
    pub fn invalid_float_operations(&self) -> u64 {
        self.inner.invalid_floats.load(Ordering::Relaxed)
    }

    /// The first data race a dispatch of this device found since it was
    /// created (or since [`Device::take_race`]), on a device from
    /// [`Device::with_race_check`]; `None` on others. Shared with the
    /// devices made from that one.
    pub fn first_race(&self) -> Option<DataRace> {
        self.inner
            .races
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// [`Device::first_race`], forgetting it: the next dispatch's race is
    /// the next one reported.
    pub fn take_race(&self) -> Option<DataRace> {
        self.inner
            .races
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Lanes per SIMD group of this device's pipelines.
    pub fn simd_width(&self) -> u32 {
        self.inner.simd_width
    }

    /// The clang++ it compiles with.
    pub fn clang(&self) -> &Clang {
        &self.inner.compiler.clang
    }

    /// Where compiled kernels are cached.
    pub fn cache_dir(&self) -> &std::path::Path {
        &self.inner.compiler.cache_dir
    }

    /// What the device is: `"CPU (clang++ 19, 32-lane SIMD groups)"` (as
    /// Metal's device has `MTLDevice.name`).
    pub fn name(&self) -> String {
        format!(
            "CPU (clang++ {}, {}-lane SIMD groups)",
            self.clang().major,
            self.simd_width()
        )
    }

    /// Whether host and device share memory (as Metal's device says of
    /// Apple silicon): [`DeviceOptions::unified_memory`](super::DeviceOptions::unified_memory), true unless set.
    pub fn has_unified_memory(&self) -> bool {
        self.inner.unified_memory
    }

    /// The device's queue (started on first use; Metal's device also has
    /// one queue for dispatch and transfer).
    pub fn queue(&self) -> &Queue {
        self.inner.queue.get_or_init(Queue::new)
    }

    /// The polyfill kernels, compiled (or taken from the cache) once.
    pub(super) fn builtins(&self) -> Result<Arc<Builtins>, CpuError> {
        self.inner
            .builtins
            .get_or_init(|| Builtins::new(&self.inner.compiler).map(Arc::new))
            .clone()
    }

    /// How recorded commands run on this device.
    pub(super) fn run_options(&self) -> RunOptions {
        let inner = &self.inner;
        RunOptions {
            fill: inner.fill,
            time_limit: inner.time_limit,
            workers: inner.workers,
            guard_bytes: inner.guard_bytes,
            queue_wait_limit: inner.queue_wait_limit,
            divisions: inner.divisions.clone(),
            invalid_floats: inner.invalid_floats.clone(),
            race_check: inner.race_check,
            races: inner.races.clone(),
        }
    }

    /// Which fills and copies run the polyfill kernels.
    pub(super) fn transfer_rule(&self) -> TransferRule {
        self.inner.transfer_rule
    }
}
