//! The CPU device: a compiler and the execution options.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::buffer::Buffer;
use super::command::{CommandBuffer, Queue, Submission};
use super::cxx::{self, Clang, Compiler};
use super::exec;
use super::program::{Builtins, Program};
use super::sync::Semaphore;
use super::CpuError;
use crate::memory::MemoryType;
use crate::transfer::BlitAlignment;
use crate::Executable;

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

/// How a [`Device`] compiles and runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceOptions {
    /// clang++ to use; `None`: [`cxx::find_clang`].
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
    /// ([`CpuError::NotSynchronized`]).
    pub unified_memory: bool,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            clang: None,
            cache_dir: None,
            time_limit: Duration::from_secs(60),
            workers: 0,
            threadgroup_fill: ThreadgroupFill::Poison,
            queue_wait_limit: Duration::from_secs(60),
            transfer_rule: TransferRule::default(),
            simd_width: exec::SIMD_WIDTH,
            unified_memory: true,
        }
    }
}

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
    /// The polyfill kernels, compiled on first use.
    pub(super) builtins: OnceLock<Result<Arc<Builtins>, CpuError>>,
    /// The device's queue, started on first use.
    pub(super) queue: OnceLock<Queue>,
    /// See [`Device::undefined_divisions`].
    pub(super) divisions: Arc<AtomicU64>,
}

/// The CPU device. Cloning shares it.
#[derive(Debug, Clone)]
pub struct Device {
    pub(super) inner: Arc<Inner>,
}

impl Device {
    /// A device with the default options: finds clang (the error says what
    /// to install when there is none).
    pub fn new() -> Result<Device, CpuError> {
        Self::with_options(DeviceOptions::default())
    }

    /// A device with `options`.
    pub fn with_options(options: DeviceOptions) -> Result<Device, CpuError> {
        let clang = match options.clang {
            Some(c) => c,
            None => cxx::find_clang()?,
        };
        check_simd_width(options.simd_width)?;
        let workers = match options.workers {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        Ok(Device {
            inner: Arc::new(Inner {
                compiler: Compiler {
                    clang,
                    cache_dir: options.cache_dir.unwrap_or_else(cxx::default_cache_dir),
                },
                time_limit: options.time_limit,
                workers,
                fill: options.threadgroup_fill,
                queue_wait_limit: options.queue_wait_limit,
                transfer_rule: options.transfer_rule,
                simd_width: options.simd_width,
                unified_memory: options.unified_memory,
                builtins: OnceLock::new(),
                queue: OnceLock::new(),
                divisions: Arc::new(AtomicU64::new(0)),
            }),
        })
    }

    /// The same device (compiler, cache, options), emulating SIMD groups
    /// of `width` lanes: its pipelines have that `threads_per_simdgroup`.
    /// Buffers work with either. Compiled kernels are shared: the width is
    /// read at run time.
    pub fn with_simd_width(&self, width: u32) -> Result<Device, CpuError> {
        check_simd_width(width)?;
        let i = &self.inner;
        Ok(Device {
            inner: Arc::new(Inner {
                compiler: i.compiler.clone(),
                time_limit: i.time_limit,
                workers: i.workers,
                fill: i.fill,
                queue_wait_limit: i.queue_wait_limit,
                transfer_rule: i.transfer_rule,
                simd_width: width,
                unified_memory: i.unified_memory,
                builtins: OnceLock::new(),
                queue: OnceLock::new(),
                divisions: i.divisions.clone(),
            }),
        })
    }

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
    /// Apple silicon): [`DeviceOptions::unified_memory`], true unless set.
    pub fn has_unified_memory(&self) -> bool {
        self.inner.unified_memory
    }

    /// A zeroed buffer of `len` bytes (exact size, guarded) with the storage
    /// mode Metal gives `memory` on this kind of device (see [`Buffer`]: a
    /// [`MemoryType::DeviceLocal`] buffer refuses host access).
    pub fn buffer(&self, len: u64, memory: MemoryType) -> Result<Buffer, CpuError> {
        Buffer::new(len, memory, self.inner.unified_memory)
    }

    /// A buffer holding `data` (of any storage mode, as on Metal).
    pub fn buffer_with_data(&self, data: &[u8], memory: MemoryType) -> Result<Buffer, CpuError> {
        Buffer::with_data(data, memory, self.inner.unified_memory)
    }

    /// The executable's libraries on this device; pipelines come from the
    /// returned [`Program`].
    pub fn load<'a>(&self, exe: Executable<'a>) -> Result<Program<'a>, CpuError> {
        Program::new(self, exe)
    }

    /// A timeline semaphore starting at `initial` (never fails here; a
    /// `Result` as Metal's).
    pub fn semaphore(&self, initial: u64) -> Result<Semaphore, CpuError> {
        Ok(Semaphore::new(initial))
    }

    /// A new, empty command buffer (never fails here; a `Result` as
    /// Metal's).
    pub fn command_buffer(&self) -> Result<CommandBuffer, CpuError> {
        Ok(CommandBuffer::new(self))
    }

    /// The device's queue (started on first use; Metal's device also has
    /// one queue for dispatch and transfer).
    pub fn queue(&self) -> &Queue {
        self.inner.queue.get_or_init(Queue::new)
    }

    /// Another queue, with its own thread: submissions on different queues
    /// run concurrently and order themselves through semaphores.
    pub fn new_queue(&self) -> Queue {
        Queue::new()
    }

    /// Submits `cb` on the device's queue (see [`Queue::submit`]).
    pub fn submit(&self, cb: &CommandBuffer) -> Submission {
        self.queue().submit(cb)
    }

    /// The polyfill kernels, compiled (or taken from the cache) once.
    pub(super) fn builtins(&self) -> Result<Arc<Builtins>, CpuError> {
        self.inner
            .builtins
            .get_or_init(|| Builtins::new(self).map(Arc::new))
            .clone()
    }
}

fn check_simd_width(width: u32) -> Result<(), CpuError> {
    if exec::SIMD_WIDTHS.contains(&width) {
        Ok(())
    } else {
        Err(CpuError::SimdWidth { width })
    }
}
