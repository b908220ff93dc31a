//! The time limit: a reply read by its deadline, counted from when the
//! worker took the request up, and the worker killed if it does not come
//! (a poll on Unix, a watchdog thread elsewhere).

use std::io;
#[cfg(not(unix))]
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(not(unix))]
use std::sync::mpsc;
#[cfg(not(unix))]
use std::sync::Arc;
use std::time::Duration;

use super::error::WorkerError;
use super::handle::Worker;
use super::protocol::{read_msg, Reply};

impl Worker {
    /// Reads the next reply, to the request sent at `sent`; `what` names
    /// the C++ that runs, for the error. The worker took the request up when
    /// it was sent or when the reply before it was read, whichever is later:
    /// the time limit counts from then. A worker that failed owes nothing
    /// more.
    pub(super) fn receive(
        &mut self,
        what: &'static str,
        sent: std::time::Instant,
    ) -> Result<(Reply, Vec<u8>), WorkerError> {
        let deadline = sent.max(self.last_reply) + self.time_limit;
        let reply = self.receive_by(what, deadline);
        self.last_reply = std::time::Instant::now();
        if reply.is_err() {
            self.owed.clear();
        }
        reply
    }

    /// Reads the next reply, killing the child if it does not come by
    /// `deadline`.
    #[cfg(unix)]
    fn receive_by(
        &mut self,
        what: &'static str,
        deadline: std::time::Instant,
    ) -> Result<(Reply, Vec<u8>), WorkerError> {
        let waited = std::time::Instant::now();
        let reply = match self.await_reply(deadline) {
            Ok(true) => read_msg::<(Reply, u64)>(&mut self.stdout),
            Ok(false) => {
                self.child.lock().unwrap_or_else(|p| p.into_inner()).kill();
                let _ = self.death();
                return Err(WorkerError::TimedOut(what, self.time_limit.as_secs()));
            }
            Err(e) => Err(e),
        };
        self.last_wait = waited.elapsed();
        match reply {
            Ok(Some(((reply, nanos), payload))) => {
                self.last_work = Duration::from_nanos(nanos);
                Ok((reply, payload))
            }
            Ok(None) | Err(_) => Err(WorkerError::Crashed(what, self.death())),
        }
    }

    /// Waits until the reply starts (or the child is gone): `Ok(false)` when
    /// `deadline` passes first. The child computes before it writes, so the
    /// time limit is over the computation; no watchdog thread is needed.
    #[cfg(unix)]
    fn await_reply(&mut self, deadline: std::time::Instant) -> io::Result<bool> {
        if !self.stdout.buffer().is_empty() {
            return Ok(true);
        }
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let mut fd = libc::pollfd {
                fd: self.reply_fd,
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
            // SAFETY: one valid pollfd for the call's duration.
            match unsafe { libc::poll(&mut fd, 1, ms) } {
                // Readable, or hung up (the read then sees the end).
                n if n > 0 => return Ok(true),
                0 => continue,
                _ => {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
    }

    #[cfg(not(unix))]
    fn receive_by(
        &mut self,
        what: &'static str,
        deadline: std::time::Instant,
    ) -> Result<(Reply, Vec<u8>), WorkerError> {
        let (done, wait) = mpsc::channel::<()>();
        let killed = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let child = Arc::clone(&self.child);
            let killed = Arc::clone(&killed);
            let limit = deadline.saturating_duration_since(std::time::Instant::now());
            std::thread::spawn(move || {
                if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                    killed.store(true, Ordering::SeqCst);
                    let mut child = child.lock().unwrap_or_else(|p| p.into_inner());
                    child.kill();
                }
            })
        };
        let waited = std::time::Instant::now();
        let reply = read_msg::<(Reply, u64)>(&mut self.stdout);
        self.last_wait = waited.elapsed();
        let _ = done.send(());
        let _ = watchdog.join();
        match reply {
            // A reply that raced the watchdog still lost: the child is dead.
            Ok(Some(((reply, nanos), payload))) if !killed.load(Ordering::SeqCst) => {
                self.last_work = Duration::from_nanos(nanos);
                Ok((reply, payload))
            }
            Ok(_) | Err(_) => {
                let death = self.death();
                if killed.load(Ordering::SeqCst) {
                    Err(WorkerError::TimedOut(what, self.time_limit.as_secs()))
                } else {
                    Err(WorkerError::Crashed(what, death))
                }
            }
        }
    }
}
