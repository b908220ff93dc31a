//! Command buffers, compute passes, queues and submissions (the CPU
//! counterpart of `metal/command.rs`).
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
//! **Queues.** A [`Queue`] runs its submissions one after another, in
//! submission order, on its own thread, so the host is free to wait, signal
//! and submit elsewhere. Within a submission commands run in order; the first
//! failing command (a kernel fault, a dispatch time-out, a semaphore wait
//! past `DeviceOptions::queue_wait_limit`) fails the submission with its
//! error, the later commands do not run, and every semaphore they would have
//! signalled is marked failed. The queue then serves its next submission.
//! A wait on a value only a *later submission of the same queue* signals can
//! never be satisfied; it fails at the wait limit.
//!
//! [`Device::dispatch`] and [`Device::execute`] run one dispatch
//! synchronously on the calling thread, without a queue.

use std::collections::VecDeque;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use super::buffer::Buffer;
use super::cxx::Library;
use super::device::{Device, Inner, ThreadgroupFill, TransferRule};
use super::encode::{self, Encoded, Region, ResourceBindings};
use super::exec::{self, EntryFn, Launch};
use super::program::{Builtin, Pipeline};
use super::sync::Semaphore;
use super::CpuError;
use crate::memory::StorageMode;
use crate::plan::{DispatchPlan, Grid};
use crate::schema::Access;
use crate::transfer::{self, BlitAlignment, CopyParams, FillParams, Route};

/// How recorded commands run (copied from the device).
#[derive(Debug, Clone)]
struct RunOptions {
    fill: ThreadgroupFill,
    time_limit: Duration,
    workers: usize,
    queue_wait_limit: Duration,
    /// The device's count of divisions given a value after a trap.
    divisions: Arc<AtomicU64>,
}

impl RunOptions {
    fn of(inner: &Inner) -> RunOptions {
        RunOptions {
            fill: inner.fill,
            time_limit: inner.time_limit,
            workers: inner.workers,
            queue_wait_limit: inner.queue_wait_limit,
            divisions: inner.divisions.clone(),
        }
    }
}

/// A dispatch encoded at record time, ready to run any number of times.
#[derive(Debug)]
struct Ready {
    kernel: String,
    entry: EntryFn,
    /// Keeps `entry` loaded.
    _library: Arc<Library>,
    encoded: Encoded,
    /// The buffers `encoded` points into.
    _buffers: Vec<Buffer>,
    /// A polyfill kernel's parameters, which `encoded` points to.
    _params: Option<Box<[u64; 3]>>,
    /// Lanes per SIMD group.
    simd_width: u32,
    /// The buffers the dispatch may write (bound to a binding the kernel
    /// does not only read).
    written: Vec<Buffer>,
}

// SAFETY: the raw pointers in `encoded` point into memory owned by this
// value (`_buffers`, the encoded argument buffers and `setBytes` copies,
// `_params`), which is `Send + Sync`; they are only dereferenced by a dispatch's child
// process. `entry` is a function of `_library`, loaded for this value's life.
unsafe impl Send for Ready {}
// SAFETY: as above; running a `Ready` only reads it.
unsafe impl Sync for Ready {}

impl Ready {
    fn run(&self, o: &RunOptions) -> Result<(), CpuError> {
        let outcome = exec::run(&Launch {
            kernel: &self.kernel,
            entry: self.entry,
            encoded: &self.encoded,
            fill: o.fill,
            time_limit: o.time_limit,
            workers: o.workers,
            simd_width: self.simd_width,
        })?;
        o.divisions.fetch_add(outcome.divisions, Ordering::Relaxed);
        for b in &self.written {
            b.device_wrote();
        }
        Ok(())
    }
}

/// Plans nothing: encodes `plan` for `pipeline` and checks the limits.
fn prepare(
    pipeline: &Pipeline<'_>,
    plan: &DispatchPlan,
    bindings: &ResourceBindings<'_>,
) -> Result<Ready, CpuError> {
    let encoded = encode::encode(pipeline, plan, bindings)?;
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
        .map(|(_, b)| b.buffer.clone())
        .collect();
    Ok(Ready {
        kernel: kernel.name().into(),
        entry: pipeline.entry(),
        _library: pipeline.library().clone(),
        encoded,
        _buffers: bindings.buffers().map(|(_, b)| b.buffer.clone()).collect(),
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
        simd_width: exec::SIMD_WIDTH,
        written: buffers
            .last()
            .map(|(_, b)| (*b).clone())
            .into_iter()
            .collect(),
    })
}

impl Device {
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
        let plan = plan(pipeline, bindings, push_constants, grid)?;
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
        let ready = prepare(pipeline, plan, bindings)?;
        ready.run(&RunOptions::of(&self.inner))?;
        for b in &ready.written {
            b.synchronized();
        }
        Ok(())
    }
}

fn plan(
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

/// One recorded command.
#[derive(Debug)]
enum Cmd {
    Wait(Semaphore, u64),
    Signal(Semaphore, u64),
    Dispatch(Box<Ready>),
    /// A managed buffer's `synchronizeResource:`.
    Synchronize(Buffer),
    /// A fill done directly (a blit's `fillBuffer`).
    Fill {
        dst: Buffer,
        offset: u64,
        length: u64,
        byte: u8,
    },
    /// A copy done directly (a blit's `copyFromBuffer`).
    Copy {
        src: Buffer,
        src_offset: u64,
        dst: Buffer,
        dst_offset: u64,
        length: u64,
    },
}

impl Cmd {
    fn run(&self, o: &RunOptions) -> Result<(), CpuError> {
        match self {
            Cmd::Wait(s, v) => s.wait(*v, o.queue_wait_limit),
            Cmd::Signal(s, v) => s.signal(*v),
            Cmd::Dispatch(r) => r.run(o),
            Cmd::Synchronize(b) => {
                b.synchronized();
                Ok(())
            }
            Cmd::Fill {
                dst,
                offset,
                length,
                byte,
            } => {
                // SAFETY: the range was checked against the buffer when
                // recorded, and buffers never change length.
                unsafe {
                    std::ptr::write_bytes(
                        dst.mapping().ptr().add(*offset as usize),
                        *byte,
                        *length as usize,
                    )
                };
                dst.device_wrote();
                Ok(())
            }
            Cmd::Copy {
                src,
                src_offset,
                dst,
                dst_offset,
                length,
            } => {
                // SAFETY: both ranges were checked against their buffers when
                // recorded (and not to overlap within one buffer); `copy`
                // tolerates overlap anyway.
                unsafe {
                    std::ptr::copy(
                        src.mapping().ptr().add(*src_offset as usize),
                        dst.mapping().ptr().add(*dst_offset as usize),
                        *length as usize,
                    )
                };
                dst.device_wrote();
                Ok(())
            }
        }
    }
}

/// A recorded sequence of commands; see [the CPU backend](crate::cpu).
#[derive(Debug)]
pub struct CommandBuffer {
    device: Device,
    commands: Vec<Arc<Cmd>>,
}

impl CommandBuffer {
    pub(super) fn new(device: &Device) -> CommandBuffer {
        CommandBuffer {
            device: device.clone(),
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
        self.device.inner.transfer_rule
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

    /// Submits the command buffer once on the device's queue (Metal's
    /// `commit`).
    pub fn commit(self) -> Submission {
        self.device.submit(&self)
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

// ------------------------------------------------------------------ queues

#[derive(Debug, Default)]
struct Done {
    result: Mutex<Option<Result<(), CpuError>>>,
    cv: Condvar,
}

impl Done {
    fn set(&self, r: Result<(), CpuError>) {
        let mut g = self.result.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            *g = Some(r);
        }
        drop(g);
        self.cv.notify_all();
    }
}

/// One submission on its way through a queue.
struct Job {
    commands: Vec<Arc<Cmd>>,
    options: RunOptions,
    done: Arc<Done>,
}

impl Drop for Job {
    fn drop(&mut self) {
        // A job dropped unrun (its queue thread ended) must not leave its
        // waiters blocked; after a normal run this does nothing.
        self.done.set(Err(CpuError::QueueLost));
    }
}

impl Job {
    fn run(&self) -> Result<(), CpuError> {
        let mut rest: VecDeque<&Arc<Cmd>> = self.commands.iter().collect();
        while let Some(c) = rest.pop_front() {
            if let Err(e) = c.run(&self.options) {
                let message = e.to_string();
                for c in rest {
                    if let Cmd::Signal(s, _) = &**c {
                        s.fail(&message);
                    }
                }
                return Err(e);
            }
        }
        Ok(())
    }
}

/// A queue: runs submissions in order on its own thread. Cloning shares it;
/// the thread ends when the last clone is dropped and its work is done.
#[derive(Debug, Clone)]
pub struct Queue {
    tx: mpsc::Sender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("commands", &self.commands.len())
            .finish()
    }
}

impl Queue {
    pub(super) fn new() -> Queue {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("halc-cpu-queue".into())
            .spawn(move || {
                for job in rx {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.run()))
                        .unwrap_or(Err(CpuError::QueueLost));
                    job.done.set(r);
                }
            })
            .expect("spawning a queue thread");
        Queue { tx }
    }

    /// Submits `cb`: its commands recorded so far run after every earlier
    /// submission of this queue. The same command buffer may be submitted
    /// again (replay).
    pub fn submit(&self, cb: &CommandBuffer) -> Submission {
        let done = Arc::new(Done::default());
        let job = Job {
            commands: cb.commands.clone(),
            options: RunOptions::of(&cb.device.inner),
            done: done.clone(),
        };
        // If the thread is gone, the job is dropped here and completes with
        // `QueueLost`.
        let _ = self.tx.send(job);
        Submission { done }
    }
}

/// A submitted command buffer.
#[derive(Debug, Clone)]
pub struct Submission {
    done: Arc<Done>,
}

impl Submission {
    /// Blocks until the submission has run (or failed); its error, if any.
    /// Every command that can block is bounded (dispatch time limit, queue
    /// wait limit), so this returns.
    pub fn wait(&self) -> Result<(), CpuError> {
        let mut g = self.done.result.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(r) = &*g {
                return r.clone();
            }
            g = self.done.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// As [`Submission::wait`], giving up after `timeout`: `None` if it has
    /// not completed by then.
    pub fn wait_timeout(&self, timeout: Duration) -> Option<Result<(), CpuError>> {
        let g = self.done.result.lock().unwrap_or_else(|e| e.into_inner());
        let (g, _) = self
            .done
            .cv
            .wait_timeout_while(g, timeout, |r| r.is_none())
            .unwrap_or_else(|e| e.into_inner());
        g.clone()
    }

    /// Whether the submission has completed (or failed).
    pub fn is_done(&self) -> bool {
        self.done
            .result
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// The outcome so far: `Err` once the submission has failed, `Ok` while
    /// it runs or after it succeeded.
    pub fn result(&self) -> Result<(), CpuError> {
        match &*self.done.result.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(r) => r.clone(),
            None => Ok(()),
        }
    }
}
