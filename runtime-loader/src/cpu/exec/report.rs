//! In the child: the report page the parent reads after the child is
//! gone, and the signal handlers that fill it (or complete a trapping
//! division and resume).

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};

use super::abi::Thread;
use super::division::complete_division;

// ------------------------------------------------------------------ report

pub(super) const EXIT_OK: i32 = 0;
pub(super) const EXIT_ERROR: i32 = 70;
pub(super) const EXIT_SIGNAL: i32 = 71;

/// Written by the child, read by the parent after the child is gone.
#[repr(C)]
pub(super) struct Report {
    /// Integer divisions completed by the SIGFPE handler.
    pub(super) divisions: AtomicU64,
    /// The floating-point exception flags the workers' threads raised
    /// (`float_flags`), ORed.
    pub(super) float_flags: AtomicU32,
    pub(super) written: AtomicU32,
    pub(super) signal: i32,
    /// The siginfo's `si_code`: how the kernel raised the signal.
    pub(super) code: i32,
    pub(super) address: u64,
    pub(super) has_thread: u32,
    pub(super) local: [u32; 3],
    pub(super) group: [u32; 3],
    pub(super) msg_len: u32,
    pub(super) msg: [u8; 3072],
    /// 1 once `race` holds the race check's first race.
    pub(super) race_found: AtomicU32,
    pub(super) race: RaceSlot,
}

/// The race check's first race ([`super::super::race::Found`]).
#[repr(C)]
pub(super) struct RaceSlot {
    pub(super) address: u64,
    /// The earlier access, then the later: threadgroup position, thread
    /// position, kind (bit 0 write, bit 1 atomic).
    pub(super) groups: [[u32; 3]; 2],
    pub(super) locals: [[u32; 3]; 2],
    pub(super) kinds: [u32; 2],
}

pub(super) static REPORT: AtomicPtr<Report> = AtomicPtr::new(std::ptr::null_mut());

thread_local! {
    pub(super) static CURRENT: Cell<*const Thread> = const { Cell::new(std::ptr::null()) };
}

/// In the child: records `msg` and exits.
pub(super) fn child_fail(msg: &str) -> ! {
    let r = REPORT.load(Ordering::SeqCst);
    if !r.is_null() {
        // SAFETY: REPORT points to the shared report page for the child's
        // whole life; `written` makes the first writer the only one.
        unsafe {
            if (*r)
                .written
                .compare_exchange(0, 1, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                let n = msg.len().min((*r).msg.len());
                (&mut (*r).msg)[..n].copy_from_slice(&msg.as_bytes()[..n]);
                (*r).msg_len = n as u32;
            }
        }
    }
    // SAFETY: ends the child without running the parent's atexit handlers or
    // destructors, which belong to the parent.
    unsafe { libc::_exit(EXIT_ERROR) }
}

extern "C" fn on_signal(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    let r = REPORT.load(Ordering::SeqCst);
    // SAFETY: `ctx` is the kernel's ucontext for this signal, on this thread.
    if sig == libc::SIGFPE && unsafe { complete_division(ctx) } {
        if !r.is_null() {
            // SAFETY: REPORT points to the shared report page.
            unsafe { (*r).divisions.fetch_add(1, Ordering::Relaxed) };
        }
        return;
    }
    if !r.is_null() {
        // SAFETY: only plain stores into the shared page and a const-initialised
        // thread-local read (no allocation, no locks); `info` is the kernel's.
        unsafe {
            if (*r)
                .written
                .compare_exchange(0, 1, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                (*r).signal = sig;
                (*r).code = (*info).si_code;
                (*r).address = if sig == libc::SIGSYS {
                    signal_syscall(info)
                } else {
                    signal_address(info)
                };
                let t = CURRENT.with(Cell::get);
                if !t.is_null() {
                    (*r).has_thread = 1;
                    (*r).local = (*t).local;
                    (*r).group = (*(*t).group).tg_pos;
                }
            }
        }
    }
    // SAFETY: async-signal-safe exit.
    unsafe { libc::_exit(EXIT_SIGNAL) }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
unsafe fn signal_address(info: *mut libc::siginfo_t) -> u64 {
    // SAFETY: the caller passes the siginfo of a SIGSEGV/SIGBUS/... handler.
    unsafe { (*info).si_addr() as u64 }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
unsafe fn signal_address(info: *mut libc::siginfo_t) -> u64 {
    // SAFETY: as above.
    unsafe { (*info).si_addr as u64 }
}

/// The system call a seccomp filter refused (SIGSYS's `si_syscall`).
#[cfg(target_os = "linux")]
unsafe fn signal_syscall(info: *mut libc::siginfo_t) -> u64 {
    // SAFETY: the kernel's siginfo of a SIGSYS: after si_signo, si_errno,
    // si_code and padding, `_sigsys` holds the call's address (8 bytes) then
    // its number (an int) at byte 24, on every 64-bit Linux.
    unsafe { *(info.cast::<u8>().add(24).cast::<i32>()) as u64 }
}

#[cfg(not(target_os = "linux"))]
unsafe fn signal_syscall(_info: *mut libc::siginfo_t) -> u64 {
    0
}

const SIGNALS: [c_int; 7] = [
    libc::SIGSYS,
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGABRT,
    libc::SIGTRAP,
];

pub(super) fn install_signal_handlers() {
    for sig in SIGNALS {
        // SAFETY: a zeroed sigaction with our handler; SA_ONSTACK makes it
        // run on the worker's alternate stack (a fiber's stack may be the
        // one that overflowed).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

pub(super) fn install_alt_stack() {
    const SIZE: usize = 64 * 1024;
    let mem: &'static mut [u8] = Box::leak(vec![0u8; SIZE].into_boxed_slice());
    let ss = libc::stack_t {
        ss_sp: mem.as_mut_ptr().cast(),
        ss_flags: 0,
        ss_size: SIZE,
    };
    // SAFETY: `mem` is leaked, so valid for the thread's life.
    unsafe { libc::sigaltstack(&ss, std::ptr::null_mut()) };
}

/// The invalid-operation flag of [`float_flags`]: a NaN made from numbers
/// (0/0, ∞ − ∞, the square root of a negative, …) or a float converted to
/// an integer it does not fit.
pub(in crate::cpu) const FLOAT_INVALID: u32 = 1;

/// Clears this thread's floating-point exception flags (x86-64: MXCSR's).
pub(super) fn clear_float_flags() {
    #[cfg(target_arch = "x86_64")]
    {
        let mut csr: u32 = 0;
        // SAFETY: stores MXCSR into `csr` and loads it back with the six
        // sticky exception flags cleared; the control bits are unchanged.
        unsafe {
            std::arch::asm!("stmxcsr [{0}]", in(reg) &mut csr, options(nostack));
            csr &= !0x3F;
            std::arch::asm!("ldmxcsr [{0}]", in(reg) &csr, options(nostack));
        }
    }
}

/// This thread's floating-point exception flags raised since
/// [`clear_float_flags`] ([`FLOAT_INVALID`] and the others); 0 where halc
/// does not read them (other than x86-64).
pub(super) fn float_flags() -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut csr: u32 = 0;
        // SAFETY: stores MXCSR into `csr`; nothing else is touched.
        unsafe { std::arch::asm!("stmxcsr [{0}]", in(reg) &mut csr, options(nostack)) };
        csr & 0x3F
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// Adds this thread's floating-point exception flags to the report.
pub(super) fn report_float_flags() {
    let r = REPORT.load(Ordering::SeqCst);
    if !r.is_null() {
        // SAFETY: REPORT points to the shared report page for the child's
        // whole life; the flags are an atomic OR.
        unsafe { (*r).float_flags.fetch_or(float_flags(), Ordering::Relaxed) };
    }
}
