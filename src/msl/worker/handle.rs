//! A running worker as the parent holds it ([`Worker`]): its process, its
//! pipes, the replies it owes; how it starts owing nothing, and how it
//! ends (killed, found dead, dropped).

use std::collections::VecDeque;
use std::io::{BufReader, BufWriter, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::process::describe;
use super::process::Process;
#[cfg(unix)]
use super::process::{reap, EXITING};

/// A running worker.
pub struct Worker {
    /// Shared with the watchdog thread that kills it after the time limit.
    pub(super) child: Arc<Mutex<Process>>,
    pub(super) stdin: Option<BufWriter<Box<dyn Write + Send>>>,
    pub(super) stdout: BufReader<Box<dyn Read + Send>>,
    pub(super) time_limit: Duration,
    /// Time the last request spent in the C++ (measured by the child).
    pub(super) last_work: Duration,
    /// Time the last read waited for its reply.
    pub(super) last_wait: Duration,
    /// The replies the worker owes, in the order they come.
    pub(super) owed: VecDeque<Owed>,
    /// When the last reply was read: the worker was busy with earlier
    /// requests until then at the latest, so a request's time limit counts
    /// from its sending or from then, whichever is later.
    pub(super) last_reply: std::time::Instant,
    /// Bytes the request pipe holds (0 where unknown): what may be written
    /// while the worker computes and nobody reads its replies.
    pub(super) request_pipe: usize,
    /// The descriptor replies arrive on, polled against the time limit.
    #[cfg(unix)]
    pub(super) reply_fd: libc::c_int,
    /// A second worker that validates the modules while this one generates
    /// their MSL ([`Worker::with_validator`]).
    pub(super) validator: Option<Box<Worker>>,
}

/// A reply a worker owes: to the request of `bytes` bytes sent at `sent`.
#[derive(Clone, Copy)]
pub(super) struct Owed {
    pub(super) what: Owes,
    pub(super) sent: std::time::Instant,
    pub(super) bytes: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Owes {
    /// The validator's verdict on a module.
    Verdict,
    /// One entry point's MSL.
    Generated,
}

impl Worker {
    /// A worker whose process has just started, owing no reply.
    pub(super) fn started(
        process: Process,
        stdin: Option<BufWriter<Box<dyn Write + Send>>>,
        stdout: BufReader<Box<dyn Read + Send>>,
        time_limit: Duration,
        request_pipe: usize,
        #[cfg(unix)] reply_fd: libc::c_int,
    ) -> Worker {
        Worker {
            child: Arc::new(Mutex::new(process)),
            stdin,
            stdout,
            time_limit,
            last_work: Duration::ZERO,
            last_wait: Duration::ZERO,
            owed: VecDeque::new(),
            last_reply: std::time::Instant::now(),
            request_pipe,
            #[cfg(unix)]
            reply_fd,
            validator: None,
        }
    }

    /// Kills the worker: it owes nothing more and takes no more requests.
    pub(super) fn kill(&mut self) {
        self.child.lock().unwrap_or_else(|p| p.into_inner()).kill();
        self.owed.clear();
        self.stdin = None;
    }

    /// Whether the worker can take more requests (it was not killed, and
    /// did not die).
    pub fn is_alive(&self) -> bool {
        self.stdin.is_some()
    }

    /// Time the last reply's work took in SPIRV-Tools or SPIRV-Cross, as
    /// the child measured it.
    pub fn last_work(&self) -> Duration {
        self.last_work
    }

    /// Time the last read waited for its reply.
    pub fn last_wait(&self) -> Duration {
        self.last_wait
    }

    /// How the child ended, after a failed exchange.
    pub(super) fn death(&mut self) -> String {
        self.stdin = None;
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        match child.wait() {
            Ok(status) => describe(status),
            Err(e) => format!("lost: {e}"),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // A dropped worker computes for nobody: one with replies owed, one
        // that generates beside a validator (it may be looping on a module
        // found invalid), or one parsing a module it was given for MSL that
        // was never asked for (halc refused the module after its verdict).
        // An idle one is as well ended by the signal as by closing its input
        // (which ends the loop of one the signal missed). Then reap it.
        self.kill();
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        match &mut *child {
            // A fork exits on its own a moment later: waiting for it here
            // would hold the caller for its exit (0.3 to 0.5 ms) after its
            // work is done. It is reaped by the next fork, by
            // [`reap_workers`], or (a zombie meanwhile) with this process.
            #[cfg(unix)]
            Process::Forked { pid, status: None } => {
                if !reap(*pid, false) {
                    EXITING.lock().unwrap_or_else(|p| p.into_inner()).push(*pid);
                }
            }
            other => {
                let _ = other.wait();
            }
        }
    }
}
