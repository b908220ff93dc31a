//! What a [`Device`] does: make the objects that run on it (buffers,
//! programs, semaphores, queues, command buffers), or run one dispatch on
//! the calling thread. The device's value is in `handle.rs`; this file
//! imports the others, and none imports it.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};

use super::accel::AccelerationStructure;
use super::bindings::ResourceBindings;
use super::buffer::Buffer;
use super::command::{self, CommandBuffer};
use super::cxx::{self, Compiler};
use super::exec::ThreadgroupFill;
use super::handle::{Device, Inner};
use super::options::{DeviceOptions, LocalFill};
use super::program::{Pipeline, Program};
use super::queue::{Queue, Submission};
use super::race::GroupOrder;
use super::simd::SIMD_WIDTHS;
use super::sync::Semaphore;
use super::texture::{Sampler, SamplerDescriptor, Texture, TextureDescriptor};
use super::CpuError;
use crate::memory::MemoryType;
use crate::plan::{DispatchPlan, Grid};
use crate::scene::TopLevel;
use crate::Executable;

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
                    limits: Some(cxx::Limits::DEFAULT),
                    local_fill: options.local_fill,
                    strict_float: false,
                    race_check: false,
                },
                time_limit: options.time_limit,
                workers,
                fill: options.threadgroup_fill,
                queue_wait_limit: options.queue_wait_limit,
                transfer_rule: options.transfer_rule,
                simd_width: options.simd_width,
                unified_memory: options.unified_memory,
                guard_bytes: options.guard_bytes,
                builtins: OnceLock::new(),
                queue: OnceLock::new(),
                divisions: Arc::new(AtomicU64::new(0)),
                invalid_floats: Arc::new(AtomicU64::new(0)),
                race_check: None,
                races: Arc::new(Mutex::new(None)),
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
        Ok(self.rebuilt(i.compiler.clone(), i.fill, i.race_check, width))
    }

    /// The same device (clang, cache, options) with function-scope
    /// variables and threadgroup memory starting as `locals` and
    /// `threadgroup` say: what shows a kernel reads memory it never wrote
    /// (its results change between fills; `halc diff` does this before it
    /// reports a difference).
    pub fn with_fills(&self, locals: LocalFill, threadgroup: ThreadgroupFill) -> Device {
        self.derived(
            Compiler {
                local_fill: locals,
                ..self.inner.compiler.clone()
            },
            threadgroup,
        )
    }

    /// The same device with kernels compiled so that the floating-point
    /// exceptions they raise are exactly the ones their operations raise
    /// (clang's `-ffp-exception-behavior=strict`: no operation evaluated
    /// that the kernel would not evaluate), so that
    /// [`Device::invalid_float_operations`] counts only the kernel's own
    /// NaNs and out-of-range conversions. Slower: for checking, not running.
    pub fn with_float_checks(&self) -> Device {
        self.derived(
            Compiler {
                strict_float: true,
                ..self.inner.compiler.clone()
            },
            self.inner.fill,
        )
    }

    /// The same device with kernels compiled for the data-race check: every
    /// memory access of a kernel is seen (clang's ThreadSanitizer
    /// instrumentation, `-fsanitize=thread`, with halc's own stand-ins for
    /// its runtime, which perform atomics exactly), threadgroups run one
    /// after another, and two accesses by different GPU threads to the same
    /// byte of a bound buffer, texture or threadgroup memory, at least one a
    /// write and not both atomic, with no barrier ordering them, are a race
    /// ([`Device::first_race`] names the first; the rule for threadgroups
    /// that order themselves through atomics is in the CPU backend's
    /// documentation). The check sees what a schedule cannot show: the
    /// fibers of a threadgroup switch only at barriers and SIMD-group
    /// operations, so a racing kernel computes the same serial result on
    /// every run. Results are the kernel's own (atomics included); much
    /// slower: for checking, not running. The new device has its own
    /// [`Device::first_race`] (shared with the devices made from it).
    pub fn with_race_check(&self) -> Device {
        self.with_race_check_ordered_by(GroupOrder::Atomics)
    }

    /// [`Device::with_race_check`], told what may order two threadgroups'
    /// accesses ([`GroupOrder`]): a caller that knows the kernel's
    /// atomics are all relaxed (its SPIR-V says so; `halc diff` reads it)
    /// gives [`GroupOrder::Nothing`], and conflicts between threadgroups
    /// are then races whatever atomics the groups do.
    pub fn with_race_check_ordered_by(&self, order: GroupOrder) -> Device {
        let i = &self.inner;
        self.rebuilt(
            Compiler {
                race_check: true,
                ..i.compiler.clone()
            },
            i.fill,
            Some(order),
            i.simd_width,
        )
    }

    fn derived(&self, compiler: Compiler, threadgroup: ThreadgroupFill) -> Device {
        let i = &self.inner;
        self.rebuilt(compiler, threadgroup, i.race_check, i.simd_width)
    }

    /// This device's options and counters with the given compiler,
    /// threadgroup fill, race check (the compiler's instrumentation goes
    /// with it) and SIMD width, and queues and builtins of its own.
    fn rebuilt(
        &self,
        compiler: Compiler,
        threadgroup: ThreadgroupFill,
        race_check: Option<GroupOrder>,
        simd_width: u32,
    ) -> Device {
        let i = &self.inner;
        Device {
            inner: Arc::new(Inner {
                race_check,
                // A race-check device keeps its own record.
                races: if race_check.is_some() && i.race_check.is_none() {
                    Arc::new(Mutex::new(None))
                } else {
                    i.races.clone()
                },
                compiler,
                time_limit: i.time_limit,
                workers: i.workers,
                fill: threadgroup,
                queue_wait_limit: i.queue_wait_limit,
                transfer_rule: i.transfer_rule,
                simd_width,
                unified_memory: i.unified_memory,
                guard_bytes: i.guard_bytes,
                builtins: OnceLock::new(),
                queue: OnceLock::new(),
                divisions: i.divisions.clone(),
                invalid_floats: i.invalid_floats.clone(),
            }),
        }
    }

    /// A zeroed buffer of `len` bytes (exact size, guarded) with the storage
    /// mode Metal gives `memory` on this kind of device (see [`Buffer`]: a
    /// [`MemoryType::DeviceLocal`] buffer refuses host access).
    pub fn buffer(&self, len: u64, memory: MemoryType) -> Result<Buffer, CpuError> {
        Buffer::new(
            len,
            memory,
            self.inner.unified_memory,
            self.inner.guard_bytes,
        )
    }

    /// A buffer holding `data` (of any storage mode, as on Metal).
    pub fn buffer_with_data(&self, data: &[u8], memory: MemoryType) -> Result<Buffer, CpuError> {
        Buffer::with_data(
            data,
            memory,
            self.inner.unified_memory,
            self.inner.guard_bytes,
        )
    }

    /// A zeroed texture (`newTextureWithDescriptor:`); see [`Texture`]. Fails
    /// for a descriptor Metal would refuse.
    pub fn texture(&self, descriptor: &TextureDescriptor) -> Result<Texture, CpuError> {
        Texture::new(descriptor)
    }

    /// An acceleration structure holding `scene`
    /// (`newAccelerationStructureWithDescriptor:` and its builds, for the
    /// top level and each bottom level); see [`AccelerationStructure`].
    /// Fails for a scene [`TopLevel::check`] refuses.
    pub fn acceleration_structure(
        &self,
        scene: &TopLevel,
    ) -> Result<AccelerationStructure, CpuError> {
        AccelerationStructure::build(scene)
    }

    /// A texture created on a buffer
    /// (`newTextureWithDescriptor:offset:bytesPerRow:`): a 2D, one-level
    /// texture whose texels are `buffer`'s bytes from `offset`, rows
    /// `bytes_per_row` apart; see [`Texture::storage_buffer`].
    pub fn texture_on_buffer(
        &self,
        descriptor: &TextureDescriptor,
        buffer: &Buffer,
        offset: u64,
        bytes_per_row: u64,
    ) -> Result<Texture, CpuError> {
        Texture::on_buffer(descriptor, buffer, offset, bytes_per_row)
    }

    /// A zeroed 2D r32 texture a kernel may do image atomics on at any MSL
    /// version: created on a buffer of its own ([`Device::texture_on_buffer`])
    /// with rows aligned to [`crate::ATOMIC_TEXTURE_ROW_ALIGNMENT`], which a
    /// kernel compiled below MSL 3.1 does its atomics through (bind the
    /// texture; the plan binds its buffer too). `descriptor`: 2D, one
    /// level, [`PixelFormat::R32Uint`](super::PixelFormat::R32Uint) or
    /// `R32Sint`.
    pub fn atomic_texture(&self, descriptor: &TextureDescriptor) -> Result<Texture, CpuError> {
        self.atomic_texture_aligned(descriptor, crate::ATOMIC_TEXTURE_ROW_ALIGNMENT)
    }

    /// [`Device::atomic_texture`] with rows aligned to `row_alignment`
    /// bytes (a kernel's `Binding::atomic_buffer().row_alignment`).
    pub fn atomic_texture_aligned(
        &self,
        descriptor: &TextureDescriptor,
        row_alignment: u32,
    ) -> Result<Texture, CpuError> {
        use super::texture::PixelFormat;
        if !matches!(
            descriptor.pixel_format,
            PixelFormat::R32Uint | PixelFormat::R32Sint
        ) || !row_alignment.is_power_of_two()
        {
            return Err(CpuError::InvalidDescriptor {
                what: "atomic texture",
                message: format!(
                    "image atomics are on R32Uint and R32Sint textures with a power-of-two row alignment (got {:?}, {row_alignment})",
                    descriptor.pixel_format
                ),
            });
        }
        let layout = crate::AtomicBuffer {
            buffer_index: None,
            id: None,
            byte_offset: None,
            row_alignment,
        };
        let pitch = layout.bytes_per_row(descriptor.width);
        let buffer = self.buffer(
            pitch * u64::from(descriptor.height.max(1)),
            MemoryType::HostVisible,
        )?;
        Texture::on_buffer(descriptor, &buffer, 0, pitch)
    }

    /// A sampler (`newSamplerStateWithDescriptor:`); fails for a descriptor
    /// Metal would refuse.
    pub fn sampler(&self, descriptor: &SamplerDescriptor) -> Result<Sampler, CpuError> {
        Sampler::new(descriptor)
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
        Ok(CommandBuffer::new(self.clone()))
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

    /// Plans one dispatch of `pipeline`'s kernel with `bindings` (see
    /// [`crate::plan`]) and runs it on the calling thread. Returns the plan
    /// that ran.
    pub fn dispatch(
        &self,
        pipeline: &Pipeline<'_>,
        bindings: &ResourceBindings<'_>,
        push_constants: &[u8],
        grid: Grid,
    ) -> Result<DispatchPlan, CpuError> {
        let plan = command::plan(pipeline, bindings, push_constants, grid)?;
        self.execute(pipeline, &plan, bindings)?;
        Ok(plan)
    }

    /// Runs `plan` as it is (the commands and argument-buffer bytes, however
    /// they were made) with the buffers in `bindings`, on the calling thread.
    /// As Metal's `Device::dispatch`, it leaves every buffer it wrote
    /// synchronized: the host may read a managed one.
    pub fn execute(
        &self,
        pipeline: &Pipeline<'_>,
        plan: &DispatchPlan,
        bindings: &ResourceBindings<'_>,
    ) -> Result<(), CpuError> {
        command::run_now(&self.run_options(), pipeline, plan, bindings)
    }
}

fn check_simd_width(width: u32) -> Result<(), CpuError> {
    if SIMD_WIDTHS.contains(&width) {
        Ok(())
    } else {
        Err(CpuError::SimdWidth { width })
    }
}
