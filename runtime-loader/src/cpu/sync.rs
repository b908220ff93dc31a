//! A timeline semaphore (the CPU counterpart of `metal::Semaphore` on
//! `MTLSharedEvent`; seed 001's HAL semaphore): a u64 that only grows, a
//! mutex and a condition variable.
//!
//! - host signal [`Semaphore::signal`], host wait [`Semaphore::wait`] (always
//!   bounded by a timeout);
//! - device wait / signal: [`super::CommandBuffer::wait`] /
//!   [`super::CommandBuffer::signal`], carried out by the queue's thread in
//!   submission order. A queue waiting on a value blocks only its own thread:
//!   the host and other queues keep running, so the value may be signalled
//!   after the wait was submitted (wait-before-signal). A device wait gives
//!   up after the device's `queue_wait_limit` and fails its submission.
//! - failure: when a submission fails, every semaphore it would still have
//!   signalled is marked failed (as IREE does), so waiters on it wake up with
//!   the submission's error instead of waiting for their time-out.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::CpuError;

#[derive(Debug, Default)]
struct State {
    value: u64,
    failure: Option<String>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

/// A timeline semaphore. Cloning shares it.
#[derive(Debug, Clone, Default)]
pub struct Semaphore {
    shared: Arc<Shared>,
}

impl Semaphore {
    /// A semaphore at `initial`.
    pub fn new(initial: u64) -> Semaphore {
        let s = Semaphore::default();
        s.lock().value = initial;
        s
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is two plain fields, consistent after any panic.
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The current value.
    pub fn value(&self) -> u64 {
        self.lock().value
    }

    /// Why the semaphore failed, if a submission that was to signal it
    /// failed.
    pub fn failure(&self) -> Option<String> {
        self.lock().failure.clone()
    }

    /// Whether `self` and `other` are the same semaphore.
    pub fn same(&self, other: &Semaphore) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Sets the value to `value` from the host and wakes every wait it
    /// satisfies. Values only grow: `value` below the current value is an
    /// error ([`CpuError::SemaphoreBackwards`]); equal is a no-op.
    pub fn signal(&self, value: u64) -> Result<(), CpuError> {
        let mut s = self.lock();
        if value < s.value {
            return Err(CpuError::SemaphoreBackwards {
                current: s.value,
                value,
            });
        }
        s.value = value;
        drop(s);
        self.shared.changed.notify_all();
        Ok(())
    }

    /// Marks the semaphore failed: current and future waits on values it
    /// has not reached return [`CpuError::SemaphoreFailed`].
    pub(super) fn fail(&self, message: &str) {
        let mut s = self.lock();
        if s.failure.is_none() {
            s.failure = Some(message.to_string());
        }
        drop(s);
        self.shared.changed.notify_all();
    }

    /// Blocks until the value is at least `value`, or `timeout` passes
    /// ([`CpuError::SemaphoreTimeout`] naming both values), or the semaphore
    /// fails ([`CpuError::SemaphoreFailed`]).
    pub fn wait(&self, value: u64, timeout: Duration) -> Result<(), CpuError> {
        let start = Instant::now();
        let mut s = self.lock();
        loop {
            if s.value >= value {
                return Ok(());
            }
            if let Some(message) = &s.failure {
                return Err(CpuError::SemaphoreFailed {
                    value,
                    current: s.value,
                    message: message.clone(),
                });
            }
            let elapsed = start.elapsed();
            if elapsed >= timeout {
                return Err(CpuError::SemaphoreTimeout {
                    value,
                    current: s.value,
                    waited_ms: elapsed.as_millis(),
                });
            }
            s = self
                .shared
                .changed
                .wait_timeout(s, timeout - elapsed)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_signal_wakes_a_host_wait_issued_before_it() {
        let s = Semaphore::new(0);
        let t = {
            let s = s.clone();
            std::thread::spawn(move || s.wait(2, Duration::from_secs(10)))
        };
        std::thread::sleep(Duration::from_millis(30));
        assert!(!t.is_finished(), "the wait returned before the signal");
        s.signal(1).unwrap();
        std::thread::sleep(Duration::from_millis(30));
        assert!(!t.is_finished(), "value 1 does not satisfy a wait for 2");
        s.signal(2).unwrap();
        t.join().unwrap().unwrap();
        assert_eq!(s.value(), 2);
    }

    #[test]
    fn a_wait_times_out_naming_the_values() {
        let s = Semaphore::new(3);
        s.wait(3, Duration::ZERO).unwrap();
        let start = Instant::now();
        let e = s.wait(5, Duration::from_millis(50)).unwrap_err();
        assert!(start.elapsed() >= Duration::from_millis(50));
        assert!(
            matches!(
                e,
                CpuError::SemaphoreTimeout {
                    value: 5,
                    current: 3,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("to reach 5 (it is at 3)"), "{e}");
    }

    #[test]
    fn values_never_go_back() {
        let s = Semaphore::new(4);
        s.signal(4).unwrap();
        let e = s.signal(3).unwrap_err();
        assert_eq!(
            e,
            CpuError::SemaphoreBackwards {
                current: 4,
                value: 3
            }
        );
        assert_eq!(s.value(), 4);
    }

    #[test]
    fn a_failed_semaphore_wakes_its_waiters_with_the_reason() {
        let s = Semaphore::new(0);
        let t = {
            let s = s.clone();
            std::thread::spawn(move || s.wait(1, Duration::from_secs(10)))
        };
        std::thread::sleep(Duration::from_millis(20));
        s.fail("kernel `k`: boom");
        let e = t.join().unwrap().unwrap_err();
        assert!(
            matches!(&e, CpuError::SemaphoreFailed { value: 1, message, .. } if message.contains("boom")),
            "{e}"
        );
    }
}
