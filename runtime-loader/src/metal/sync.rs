//! A timeline semaphore on `MTLSharedEvent` (seed design, "Semaphore").
//!
//! - host signal: `setSignaledValue:`;
//! - device signal / wait: `encodeSignalEvent:value:` /
//!   `encodeWaitForEvent:value:` on a command buffer
//!   ([`super::CommandBuffer::signal`], [`super::CommandBuffer::wait`]);
//! - host wait: a listener registered with `notifyListener:atValue:block:`
//!   wakes the waiting thread (a `Condvar`), as IREE does.
//!
//! Waits may be issued before the matching signal, on the host or on the
//! device: Metal holds a device wait until the value is reached, and a host
//! listener fires whenever it is.

use std::ptr::NonNull;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use block2::RcBlock;
use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2_metal::{MTLDevice, MTLEvent, MTLSharedEvent, MTLSharedEventListener};

use super::MetalError;

/// A timeline semaphore: a monotonically increasing u64.
#[derive(Debug, Clone)]
pub struct Semaphore {
    event: Retained<ProtocolObject<dyn MTLSharedEvent>>,
    listener: Retained<MTLSharedEventListener>,
}

impl Semaphore {
    pub(super) fn new(
        device: &ProtocolObject<dyn MTLDevice>,
        initial: u64,
    ) -> Result<Semaphore, MetalError> {
        let event = device.newSharedEvent().ok_or(MetalError::Creation {
            what: "a shared event".into(),
        })?;
        event.setSignaledValue(initial);
        Ok(Semaphore {
            event,
            listener: MTLSharedEventListener::new(),
        })
    }

    /// The `MTLSharedEvent`.
    pub fn raw(&self) -> &ProtocolObject<dyn MTLSharedEvent> {
        &self.event
    }

    pub(super) fn as_event(&self) -> &ProtocolObject<dyn MTLEvent> {
        ProtocolObject::from_ref(&*self.event)
    }

    /// The current value.
    pub fn value(&self) -> u64 {
        self.event.signaledValue()
    }

    /// Signals `value` from the host. Timeline values only grow: `value`
    /// below the current value is an error
    /// ([`MetalError::SemaphoreBackwards`], which Metal would accept
    /// silently); equal is a no-op.
    pub fn signal(&self, value: u64) -> Result<(), MetalError> {
        let current = self.value();
        if value < current {
            return Err(MetalError::SemaphoreBackwards { current, value });
        }
        self.event.setSignaledValue(value);
        Ok(())
    }

    /// Blocks until the semaphore reaches `value` or `timeout` passes.
    pub fn wait(&self, value: u64, timeout: Duration) -> Result<(), MetalError> {
        if self.value() >= value {
            return Ok(());
        }
        let start = Instant::now();
        let reached = Arc::new((Mutex::new(false), Condvar::new()));
        let notify = reached.clone();
        let block = RcBlock::new(
            move |_event: NonNull<ProtocolObject<dyn MTLSharedEvent>>, _value: u64| {
                let (flag, cv) = &*notify;
                // A poisoned mutex only means another waiter panicked; the flag
                // is still meaningful.
                *flag.lock().unwrap_or_else(|e| e.into_inner()) = true;
                cv.notify_all();
            },
        );
        // SAFETY: `block` is a valid block of the signature Metal expects;
        // Metal copies it and calls it once on the listener's queue when the
        // event reaches `value`. It captures only an `Arc` of thread-safe
        // state.
        unsafe {
            self.event
                .notifyListener_atValue_block(&self.listener, value, RcBlock::as_ptr(&block));
        }
        let (flag, cv) = &*reached;
        let mut done = flag.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if *done || self.value() >= value {
                return Ok(());
            }
            let elapsed = start.elapsed();
            if elapsed >= timeout {
                return Err(MetalError::SemaphoreTimeout {
                    value,
                    current: self.value(),
                    waited_ms: elapsed.as_millis(),
                });
            }
            // Wake up at least every 100 ms to re-read the event: a missed
            // notification cannot hang the wait.
            let slice = (timeout - elapsed).min(Duration::from_millis(100));
            done = cv
                .wait_timeout(done, slice)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
