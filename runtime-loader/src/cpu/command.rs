//! Command buffers and compute passes: recording (the CPU counterpart of
//! `metal/command.rs`).
//!
//! **Recording.** A [`CommandBuffer`] records, in call order: semaphore
//! waits and signals, compute passes ([`CommandBuffer::compute`] →
//! [`ComputePass::dispatch`] → [`ComputePass::end`]), copies and fills.
//! Everything that can be decided before running is decided while
//! recording, as Metal encodes at record time: a dispatch is planned and
//! encoded (the `[[buffer(N)]]` table, argument-buffer bytes, residency
//! checks, limits), a fill or copy is checked against the contract of
//! [`crate::transfer`] and routed to a direct host copy or to a polyfill
//! kernel. So plan and contract errors are returned by the recording call.
//! The command buffer keeps every buffer it uses alive.
//!
//! **Replay.** Unlike a one-shot `MTLCommandBuffer`, a recorded command
//! buffer can be submitted any number of times ([`Queue::submit`] takes
//! `&CommandBuffer`). Each submission runs every recorded command again
//! against the buffers' *current* contents (encoded tables point at the
//! buffers, not at copies of their bytes). A submission takes the commands
//! recorded so far; recording more afterwards affects later submissions only.
//! [`CommandBuffer::commit`] is Metal's spelling: submit once on the
//! device's queue.
//!
//! Recorded commands run on a [`Queue`] (`queue.rs`).
//!
//! [`Device::dispatch`] and [`Device::execute`] run one dispatch
//! synchronously on the calling thread, without a queue.

use std::ffi::c_void;
use std::sync::Arc;

use super::bindings::ResourceBindings;
use super::buffer::Buffer;
use super::encode::{self, Encoded, Region};
use super::handle::Device;
use super::options::TransferRule;
use super::polyfill::Builtin;
use super::program::Pipeline;
use super::queue::{Cmd, Queue, Ready, RunOptions, Submission};
use super::simd::SIMD_WIDTH;
use super::sync::Semaphore;
use super::texture::Texture;
use super::CpuError;
use crate::memory::StorageMode;
use crate::plan::{DispatchPlan, Grid};
use crate::schema::Access;
use crate::transfer::{self, BlitAlignment, CopyParams, FillParams, Route};

/// Plans nothing: encodes `plan` for `pipeline` and checks the limits.
fn prepare(
    pipeline: &Pipeline<'_>,
    plan: &DispatchPlan,
    bindings: &ResourceBindings<'_>,
) -> Result<Ready, CpuError> {
    let encoded = encode::encode(pipeline.kernel().name(), pipeline.params(), plan, bindings)?;
    let limit = pipeline.kernel().max_threads_per_threadgroup();
    let threads: u64 = encoded.threads.iter().map(|&t| u64::from(t)).product();
    if threads > u64::from(limit) {
        return Err(CpuError::Limit {
            kernel: pipeline.kernel().name().into(),
            message: format!(
                "threadgroup {:?} has {threads} threads, more than the pipeline's maximum of {limit}",
                encoded.threads
            ),
        });
    }
    let kernel = pipeline.kernel();
    let written = bindings
        .buffers()
        .filter(|(key, _)| {
            kernel
                .binding(key.set, key.binding)
                .is_none_or(|b| b.access() != Access::ReadOnly)
        })
        .map(|(_, b)| b.clone())
        .collect();
    Ok(Ready {
        kernel: kernel.name().into(),
        entry: pipeline.entry(),
        _library: pipeline.library().clone(),
        encoded,
        _buffers: bindings.buffers().map(|(_, b)| b.clone()).collect(),
        _params: None,
        simd_width: pipeline.thread_execution_width(),
        written,
    })
}

/// A polyfill kernel's dispatch over `length` bytes: `buffers` at
/// `[[buffer(0)]]`…, `params` by `setBytes` at the next slot; it writes the
/// last buffer.
fn prepare_builtin(
    builtin: &Builtin,
    buffers: &[(&str, &Buffer)],
    params: [u8; 24],
    length: u64,
) -> Result<Ready, CpuError> {
    let mut slots = [std::ptr::null_mut::<c_void>(); 31];
    let mut regions = Vec::new();
    for (i, (name, b)) in buffers.iter().enumerate() {
        slots[i] = b.mapping().ptr().cast();
        regions.push(Region::of(format!("the {name} buffer"), b.mapping()));
    }
    // On the heap rather than in a guarded mapping: thousands of recorded
    // fills would otherwise make every fork copy thousands of mappings. The
    // kernel reads exactly these 24 bytes.
    let mut words = Box::new([0u64; 3]);
    for (w, b) in words.iter_mut().zip(params.chunks_exact(8)) {
        *w = u64::from_le_bytes(b.try_into().expect("8 bytes"));
    }
    slots[buffers.len()] = words.as_mut_ptr().cast();
    Ok(Ready {
        kernel: builtin.name.into(),
        entry: builtin.entry,
        _library: builtin.library.clone(),
        encoded: Encoded::by_hand(
            slots,
            [transfer::polyfill_groups(length), 1, 1],
            [transfer::POLYFILL_THREADS, 1, 1],
            regions,
            Vec::new(),
        ),
        _buffers: buffers.iter().map(|(_, b)| (*b).clone()).collect(),
        _params: Some(words),
        // The polyfill kernels use no SIMD-group operations.
        simd_width: SIMD_WIDTH,
        written: buffers
            .last()
            .map(|(_, b)| (*b).clone())
            .into_iter()
            .collect(),
    })
}

/// Runs `plan` with `bindings` on the calling thread (the device's
/// synchronous dispatch); every buffer it wrote is left synchronized.
pub(super) fn run_now(
    options: &RunOptions,
    pipeline: &Pipeline<'_>,
    plan: &DispatchPlan,
    bindings: &ResourceBindings<'_>,
) -> Result<(), CpuError> {
    let ready = prepare(pipeline, plan, bindings)?;
    ready.run(options)?;
    for b in &ready.written {
        b.synchronized();
    }
    Ok(())
}

/// Plans one dispatch of `pipeline`'s kernel from the buffers in `bindings`.
pub(super) fn plan(
    pipeline: &Pipeline<'_>,
    bindings: &ResourceBindings<'_>,
    push_constants: &[u8],
    grid: Grid,
) -> Result<DispatchPlan, CpuError> {
    let portable = bindings.to_plan()?;
    Ok(DispatchPlan::new(
        pipeline.kernel(),
        pipeline.specialization(),
        &portable,
        push_constants,
        grid,
    )?)
}

/// A recorded sequence of commands; see [the CPU backend](crate::cpu).
#[derive(Debug)]
pub struct CommandBuffer {
    device: Device,
    commands: Vec<Arc<Cmd>>,
}

impl CommandBuffer {
    pub(super) fn new(device: Device) -> CommandBuffer {
        CommandBuffer {
            device,
            commands: Vec::new(),
        }
    }

    /// How many commands are recorded.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    fn push(&mut self, c: Cmd) {
        self.commands.push(Arc::new(c));
    }

    /// The queue waits here until `semaphore` reaches `value`; the signal may
    /// come later, from the host or another queue. Bounded by the device's
    /// `queue_wait_limit`.
    pub fn wait(&mut self, semaphore: &Semaphore, value: u64) {
        self.push(Cmd::Wait(semaphore.clone(), value));
    }

    /// The queue sets `semaphore` to `value` once every command recorded
    /// before has completed. A value below the semaphore's current one fails
    /// the submission.
    pub fn signal(&mut self, semaphore: &Semaphore, value: u64) {
        self.push(Cmd::Signal(semaphore.clone(), value));
    }

    /// Starts a compute pass (never fails here; a `Result` as Metal's).
    pub fn compute(&mut self) -> Result<ComputePass<'_>, CpuError> {
        Ok(ComputePass { cb: self })
    }

    fn rule(&self) -> TransferRule {
        self.device.transfer_rule()
    }

    /// Copies `length` bytes from `src` at `src_offset` to `dst` at
    /// `dst_offset`: any alignment, ranges inside their buffers, no overlap
    /// within one buffer ([`crate::transfer`]). Returns how it will run: a
    /// direct copy where a blit encoder could do it, else the polyfill
    /// kernel (see [`TransferRule`]).
    pub fn copy(
        &mut self,
        src: &Buffer,
        src_offset: u64,
        dst: &Buffer,
        dst_offset: u64,
        length: u64,
    ) -> Result<Route, CpuError> {
        transfer::check_copy(
            src.len(),
            src_offset,
            dst.len(),
            dst_offset,
            length,
            src.same(dst),
        )?;
        let route = match self.rule() {
            TransferRule::Blit(a) => transfer::copy_route(src_offset, dst_offset, length, a),
            TransferRule::AlwaysPolyfill => {
                transfer::copy_route(src_offset, dst_offset, length, BlitAlignment::One)
                    .and_polyfill()
            }
        };
        match route {
            Route::Nothing => {}
            Route::Blit { .. } => self.push(Cmd::Copy {
                src: src.clone(),
                src_offset,
                dst: dst.clone(),
                dst_offset,
                length,
            }),
            Route::Polyfill => {
                let b = self.device.builtins()?;
                let params = CopyParams {
                    src_offset,
                    dst_offset,
                    length,
                };
                let r = prepare_builtin(
                    &b.copy,
                    &[("copy source", src), ("copy destination", dst)],
                    params.to_bytes(),
                    length,
                )?;
                self.push(Cmd::Dispatch(Box::new(r)));
            }
        }
        Ok(route)
    }

    /// Fills `length` bytes of `dst` from `offset` with `pattern` (1, 2 or 4
    /// bytes; `offset` and `length` multiples of its length:
    /// [`crate::transfer`]). Returns how it will run: directly where a blit
    /// encoder's one-byte `fillBuffer` could do it, else the polyfill kernel.
    pub fn fill(
        &mut self,
        dst: &Buffer,
        offset: u64,
        length: u64,
        pattern: &[u8],
    ) -> Result<Route, CpuError> {
        transfer::check_fill(dst.len(), offset, length, pattern)?;
        let route = match self.rule() {
            TransferRule::Blit(a) => transfer::fill_route(offset, length, pattern, a),
            TransferRule::AlwaysPolyfill => {
                transfer::fill_route(offset, length, pattern, BlitAlignment::One).and_polyfill()
            }
        };
        match route {
            Route::Nothing => {}
            Route::Blit { byte } => self.push(Cmd::Fill {
                dst: dst.clone(),
                offset,
                length,
                byte,
            }),
            Route::Polyfill => {
                let b = self.device.builtins()?;
                let params = FillParams {
                    offset,
                    length,
                    pattern: transfer::pattern_word(pattern),
                };
                let r = prepare_builtin(
                    &b.fill,
                    &[("fill destination", dst)],
                    params.to_bytes(),
                    length,
                )?;
                self.push(Cmd::Dispatch(Box::new(r)));
            }
        }
        Ok(route)
    }

    /// Makes the device's writes to a managed buffer visible to the host
    /// (Metal's `synchronizeResource:`); nothing for other storage modes.
    /// Only a device without unified memory has managed buffers
    /// (`DeviceOptions::unified_memory`).
    pub fn synchronize(&mut self, buffer: &Buffer) -> Result<(), CpuError> {
        if buffer.storage_mode() == StorageMode::Managed {
            self.push(Cmd::Synchronize(buffer.clone()));
        }
        Ok(())
    }

    /// Makes the device's writes to a managed texture visible to the host
    /// (Metal's `synchronizeResource:`): nothing here, where every texture
    /// is shared (see [`Texture`]). Portable host code calls it where Metal
    /// on a Mac with a discrete GPU needs it.
    pub fn synchronize_texture(&mut self, _texture: &Texture) -> Result<(), CpuError> {
        Ok(())
    }

    /// Submits the command buffer once on the device's queue (Metal's
    /// `commit`).
    pub fn commit(self) -> Submission {
        self.device.queue().submit(&self)
    }
}

trait AndPolyfill {
    fn and_polyfill(self) -> Route;
}

impl AndPolyfill for Route {
    /// Every non-empty transfer through the polyfill.
    fn and_polyfill(self) -> Route {
        match self {
            Route::Nothing => Route::Nothing,
            _ => Route::Polyfill,
        }
    }
}

/// A sequence of dispatches in a command buffer.
#[derive(Debug)]
pub struct ComputePass<'c> {
    cb: &'c mut CommandBuffer,
}

impl ComputePass<'_> {
    /// Plans and encodes one dispatch of `pipeline`'s kernel (see
    /// [`crate::plan`]): every binding error is returned here, before
    /// anything runs. Returns the plan that was encoded.
    pub fn dispatch(
        &mut self,
        pipeline: &Pipeline<'_>,
        bindings: &ResourceBindings<'_>,
        push_constants: &[u8],
        grid: Grid,
    ) -> Result<DispatchPlan, CpuError> {
        let plan = plan(pipeline, bindings, push_constants, grid)?;
        self.execute(pipeline, &plan, bindings)?;
        Ok(plan)
    }

    /// Encodes `plan` as it is (however it was made) with the buffers in
    /// `bindings`.
    pub fn execute(
        &mut self,
        pipeline: &Pipeline<'_>,
        plan: &DispatchPlan,
        bindings: &ResourceBindings<'_>,
    ) -> Result<(), CpuError> {
        let r = prepare(pipeline, plan, bindings)?;
        self.cb.push(Cmd::Dispatch(Box::new(r)));
        Ok(())
    }

    /// Ends the pass (nothing to flush on the CPU; mirrors Metal's
    /// `endEncoding`).
    pub fn end(self) {}
}

impl Queue {
    /// Submits `cb`: its commands recorded so far run after every earlier
    /// submission of this queue. The same command buffer may be submitted
    /// again (replay).
    pub fn submit(&self, cb: &CommandBuffer) -> Submission {
        self.submit_commands(cb.commands.clone(), cb.device.run_options())
    }
}
