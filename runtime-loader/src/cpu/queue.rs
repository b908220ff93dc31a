//! Queues and submissions: what runs recorded commands (the CPU backend's
//! side of a command buffer; recording is `command.rs`).
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

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use super::buffer::Buffer;
use super::cxx::Library;
use super::encode::Encoded;
use super::exec::ThreadgroupFill;
use super::exec::{self, EntryFn, Launch};
use super::race::DataRace;
use super::sync::Semaphore;
use super::CpuError;

/// How recorded commands run (copied from the device).
#[derive(Debug, Clone)]
pub(super) struct RunOptions {
    pub(super) fill: ThreadgroupFill,
    pub(super) time_limit: Duration,
    pub(super) workers: usize,
    /// Guard zones of the dispatch's threadgroup arenas
    /// ([`DeviceOptions::guard_bytes`](super::DeviceOptions::guard_bytes)).
    pub(super) guard_bytes: u64,
    pub(super) queue_wait_limit: Duration,
    /// The device's count of divisions given a value after a trap.
    pub(super) divisions: Arc<AtomicU64>,
    /// The device's count of dispatches that raised the invalid-operation
    /// flag.
    pub(super) invalid_floats: Arc<AtomicU64>,
    /// Whether dispatches run with the race check, and its rule.
    pub(super) race_check: Option<super::race::GroupOrder>,
    /// The device's first race found.
    pub(super) races: Arc<Mutex<Option<DataRace>>>,
}

/// A dispatch encoded at record time, ready to run any number of times.
#[derive(Debug)]
pub(super) struct Ready {
    pub(super) kernel: String,
    pub(super) entry: EntryFn,
    /// Keeps `entry` loaded.
    pub(super) _library: Arc<Library>,
    pub(super) encoded: Encoded,
    /// The buffers `encoded` points into.
    pub(super) _buffers: Vec<Buffer>,
    /// A polyfill kernel's parameters, which `encoded` points to.
    pub(super) _params: Option<Box<[u64; 3]>>,
    /// Lanes per SIMD group.
    pub(super) simd_width: u32,
    /// The buffers the dispatch may write (bound to a binding the kernel
    /// does not only read).
    pub(super) written: Vec<Buffer>,
}

// SAFETY: the raw pointers in `encoded` point into memory owned by this
// value (`_buffers`, the encoded argument buffers and `setBytes` copies,
// `_params`), which is `Send + Sync`; they are only dereferenced by a dispatch's child
// process. `entry` is a function of `_library`, loaded for this value's life.
unsafe impl Send for Ready {}
// SAFETY: as above; running a `Ready` only reads it.
unsafe impl Sync for Ready {}

impl Ready {
    pub(super) fn run(&self, o: &RunOptions) -> Result<(), CpuError> {
        let outcome = exec::run(&Launch {
            kernel: &self.kernel,
            entry: self.entry,
            encoded: &self.encoded,
            fill: o.fill,
            time_limit: o.time_limit,
            workers: o.workers,
            simd_width: self.simd_width,
            guard_bytes: o.guard_bytes,
            sandbox: true,
            race_check: o.race_check,
        })?;
        o.divisions.fetch_add(outcome.divisions, Ordering::Relaxed);
        if outcome.float_flags & exec::FLOAT_INVALID != 0 {
            o.invalid_floats.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(race) = outcome.race {
            o.races
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(race);
        }
        for b in &self.written {
            b.device_wrote();
        }
        Ok(())
    }
}

/// One recorded command.
#[derive(Debug)]
pub(super) enum Cmd {
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

    /// Runs `commands` after every earlier submission of this queue.
    pub(super) fn submit_commands(
        &self,
        commands: Vec<Arc<Cmd>>,
        options: RunOptions,
    ) -> Submission {
        let done = Arc::new(Done::default());
        let job = Job {
            commands,
            options,
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
