//! Crash containment in this process, for [`crate::Isolation::Guarded`]: a
//! call into SPIRV-Cross or SPIRV-Tools runs with handlers for the signals
//! a crash raises (on an alternate stack, so a stack overflow is caught too)
//! and a timer for the time limit. A crash or a time-out ends the process
//! at once with the one-line error a worker's would have given, written by
//! the handler to standard error, and exit status 1: the user sees the same
//! error as with a worker, never an abort, and no output file, since halc
//! writes its files only after every kernel compiled.
//!
//! The handlers only write bytes prepared before the call and `_exit`, both
//! async-signal-safe; the previous handlers, alternate stack and timer are
//! restored when the call returns. Signal handlers belong to the whole
//! process, so this is for a single-threaded program that owns them and its
//! standard error: the halc CLI compiling one module.

use std::sync::atomic::{AtomicPtr, Ordering};
use std::time::Duration;

/// What the handlers write: prepared before each guarded call.
struct Messages {
    /// `error: FILE: entry point `E`: SPIRV-Cross crashed (`
    crash_prefix: Vec<u8>,
    /// `); the module was not compiled\n`
    crash_suffix: Vec<u8>,
    /// The whole time-limit error line.
    timeout: Vec<u8>,
}

/// The messages of the guarded call running, null when none is.
static CURRENT: AtomicPtr<Messages> = AtomicPtr::new(std::ptr::null_mut());

/// The signals a crash raises, and their description as a worker's death is
/// described (`signal 11 SIGSEGV`).
const CRASH_SIGNALS: [(libc::c_int, &[u8]); 5] = [
    (libc::SIGSEGV, b"signal 11 SIGSEGV"),
    (libc::SIGBUS, b"signal 7 SIGBUS"),
    (libc::SIGILL, b"signal 4 SIGILL"),
    (libc::SIGFPE, b"signal 8 SIGFPE"),
    (libc::SIGABRT, b"signal 6 SIGABRT"),
];

/// Bytes of the alternate stack the handlers run on: the handler itself
/// needs little, but it must not run on the stack that overflowed.
const ALT_STACK_BYTES: usize = 64 << 10;

/// The alternate stack, mapped once per process and never written unless a
/// handler runs (so it costs no page fault otherwise); null if it could not
/// be mapped, and then the handlers run on the thread's own stack.
fn alt_stack() -> *mut libc::c_void {
    static STACK: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *STACK.get_or_init(|| {
        // SAFETY: a fresh private anonymous mapping, owned by this static
        // for the rest of the process.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                ALT_STACK_BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            0
        } else {
            p as usize
        }
    }) as *mut libc::c_void
}

fn write_all(bytes: &[u8]) {
    let mut rest = bytes;
    while !rest.is_empty() {
        // SAFETY: writes from a live slice to standard error; write(2) is
        // async-signal-safe.
        let n = unsafe { libc::write(2, rest.as_ptr().cast(), rest.len()) };
        if n <= 0 {
            return;
        }
        rest = &rest[n as usize..];
    }
}

extern "C" fn on_signal(sig: libc::c_int) {
    let current = CURRENT.load(Ordering::SeqCst);
    if !current.is_null() {
        // SAFETY: `CURRENT` points to the `Messages` of the guarded call,
        // which outlive it (they are swapped out before being dropped).
        let m = unsafe { &*current };
        if sig == libc::SIGALRM {
            write_all(&m.timeout);
        } else {
            let what = CRASH_SIGNALS
                .iter()
                .find(|(s, _)| *s == sig)
                .map_or(&b"a signal"[..], |(_, d)| d);
            write_all(&m.crash_prefix);
            write_all(what);
            write_all(&m.crash_suffix);
        }
    }
    // SAFETY: _exit is async-signal-safe and ends the process at once,
    // without running anything of the state the crash left behind.
    unsafe { libc::_exit(1) }
}

/// The error lines of a guarded call: `crash` is the whole line for a
/// crash, with `\0` where the signal's description goes; `timeout` the
/// whole line for the time limit.
pub(crate) struct Lines {
    pub crash: String,
    pub timeout: String,
}

/// Runs `f` with crashes and time-outs contained as described in the module
/// documentation.
pub(crate) fn run<T>(lines: Lines, time_limit: Duration, f: impl FnOnce() -> T) -> T {
    let (prefix, suffix) = lines.crash.split_once('\0').unwrap_or((&lines.crash, ""));
    let messages = Box::new(Messages {
        crash_prefix: format!("error: {prefix}").into_bytes(),
        crash_suffix: format!("{suffix}\n").into_bytes(),
        timeout: format!("error: {}\n", lines.timeout).into_bytes(),
    });
    let messages = Box::into_raw(messages);
    let installed = Installed::new(time_limit);
    CURRENT.store(messages, Ordering::SeqCst);
    let result = f();
    CURRENT.store(std::ptr::null_mut(), Ordering::SeqCst);
    drop(installed);
    // SAFETY: from `Box::into_raw` above, and no longer reachable from the
    // handlers (`CURRENT` is null and they are uninstalled).
    drop(unsafe { Box::from_raw(messages) });
    result
}

/// The handlers, alternate stack and timer of one guarded call, and what
/// they replaced, restored on drop.
struct Installed {
    old_actions: Vec<(libc::c_int, libc::sigaction)>,
    /// The thread's alternate stack before, when one was replaced.
    old_stack: Option<libc::stack_t>,
    old_timer: libc::itimerval,
}

impl Installed {
    fn new(time_limit: Duration) -> Self {
        let stack = alt_stack();
        // SAFETY: plain C structs, zeroed then filled; the alternate stack
        // is mapped for the rest of the process.
        unsafe {
            let old_stack = (!stack.is_null()).then(|| {
                let mut old: libc::stack_t = std::mem::zeroed();
                let new = libc::stack_t {
                    ss_sp: stack,
                    ss_flags: 0,
                    ss_size: ALT_STACK_BYTES,
                };
                libc::sigaltstack(&new, &mut old);
                old
            });
            let mut old_actions = Vec::with_capacity(CRASH_SIGNALS.len() + 1);
            for sig in CRASH_SIGNALS.iter().map(|(s, _)| *s).chain([libc::SIGALRM]) {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                action.sa_flags = libc::SA_ONSTACK;
                libc::sigfillset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                libc::sigaction(sig, &action, &mut old);
                old_actions.push((sig, old));
            }
            let secs = time_limit.as_secs().max(1);
            let timer = libc::itimerval {
                it_interval: libc::timeval {
                    tv_sec: 0,
                    tv_usec: 0,
                },
                it_value: libc::timeval {
                    tv_sec: libc::time_t::try_from(secs).unwrap_or(libc::time_t::MAX),
                    tv_usec: 0,
                },
            };
            let mut old_timer: libc::itimerval = std::mem::zeroed();
            libc::setitimer(libc::ITIMER_REAL, &timer, &mut old_timer);
            Installed {
                old_actions,
                old_stack,
                old_timer,
            }
        }
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        // SAFETY: restores what `new` replaced, in reverse order.
        unsafe {
            libc::setitimer(libc::ITIMER_REAL, &self.old_timer, std::ptr::null_mut());
            for (sig, old) in self.old_actions.iter().rev() {
                libc::sigaction(*sig, old, std::ptr::null_mut());
            }
            if let Some(old_stack) = &self.old_stack {
                let disable = libc::stack_t {
                    ss_sp: std::ptr::null_mut(),
                    ss_flags: libc::SS_DISABLE,
                    ss_size: 0,
                };
                let old = if old_stack.ss_flags & libc::SS_DISABLE != 0 {
                    &disable
                } else {
                    old_stack
                };
                libc::sigaltstack(old, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(sig: libc::c_int) -> usize {
        // SAFETY: reads the current action into a zeroed struct.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, std::ptr::null(), &mut old);
            old.sa_sigaction
        }
    }

    fn timer_armed() -> bool {
        // SAFETY: reads the real-time timer into a zeroed struct.
        unsafe {
            let mut t: libc::itimerval = std::mem::zeroed();
            libc::getitimer(libc::ITIMER_REAL, &mut t);
            t.it_value.tv_sec != 0 || t.it_value.tv_usec != 0
        }
    }

    #[test]
    fn the_handlers_and_timer_are_there_during_the_call_only() {
        let sigs = [libc::SIGSEGV, libc::SIGABRT, libc::SIGALRM];
        let before: Vec<usize> = sigs.iter().map(|s| action(*s)).collect();
        let lines = || Lines {
            crash: "f.spv: SPIRV-Cross crashed (\0); the module was not compiled".into(),
            timeout: "f.spv: SPIRV-Cross did not finish".into(),
        };
        let during = run(lines(), Duration::from_secs(30), || {
            (
                sigs.iter().map(|s| action(*s)).collect::<Vec<_>>(),
                timer_armed(),
                CURRENT.load(Ordering::SeqCst).is_null(),
            )
        });
        let ours = on_signal as extern "C" fn(libc::c_int) as usize;
        assert_eq!(during.0, vec![ours; 3]);
        assert!(during.1, "the timer runs during the call");
        assert!(!during.2, "the messages are set during the call");
        let after: Vec<usize> = sigs.iter().map(|s| action(*s)).collect();
        assert_eq!(after, before);
        assert!(!timer_armed());
        assert!(CURRENT.load(Ordering::SeqCst).is_null());
        // The result comes back, and a second call works the same.
        assert_eq!(run(lines(), Duration::from_secs(1), || 7), 7);
    }
}
