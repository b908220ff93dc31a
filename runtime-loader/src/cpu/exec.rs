//! Running a dispatch: a forked child process, threadgroups on worker
//! threads, the threads of a threadgroup as fibers.
//!
//! **Isolation.** The caller forks; the child runs the dispatch and `_exit`s.
//! Buffers are `MAP_SHARED`, so the child's writes land in the caller's
//! buffers; everything else the child does dies with it. A signal in the
//! child (SIGSEGV on a guard page, SIGFPE, ...) is recorded by a handler in a
//! shared report page with the faulting address and GPU thread, and turned
//! into a [`CpuError::Fault`] naming the buffer; a child still running at the
//! time limit is killed ([`CpuError::Timeout`]).
//!
//! **Integer division by zero** (and `INT_MIN / -1`) is undefined in SPIR-V
//! and MSL; a GPU gives some value and goes on. x86-64 raises SIGFPE
//! instead: the child's handler ([`complete_division`]) decodes the faulting
//! `div`/`idiv`, writes the value halc defines into its destination
//! registers and resumes after it, counting it ([`Outcome::divisions`]):
//! - divisor 0: quotient all ones (`0xFFFFFFFF` unsigned, `-1` signed, as
//!   Direct3D and many GPUs give for `udiv`), remainder the dividend
//!   (`x == q * 0 + r`);
//! - signed overflow (`INT_MIN / -1`): quotient `INT_MIN` (the wrapped
//!   result), remainder 0.
//!
//! AArch64 does not trap: `sdiv`/`udiv` by zero give 0 (and `%`, computed
//! as `x - (x / y) * y`, gives the dividend), `INT_MIN / -1` gives
//! `INT_MIN`; those are not counted. A `div` the handler cannot decode
//! still fails the dispatch ([`FaultKind::IntegerDivision`]).
//!
//! **Threadgroups.** Worker threads take threadgroups from one counter. Each
//! group gets the worker's threadgroup arena, refilled with the poison
//! pattern first (Metal does not zero threadgroup memory), and one fiber per
//! thread (corosensei stacks, reused).
//!
//! **Scheduling a group.** Fibers run until they finish or wait: at a
//! threadgroup barrier, or at a SIMD-group operation. When nothing can run:
//! 1. in each SIMD group (the device's SIMD width of consecutive thread
//!    indices, 32 by default), the lanes waiting at the earliest source
//!    position of a SIMD-group operation complete it together: they are the
//!    active lanes (lanes that returned, or wait at a barrier or at a later
//!    operation, are not). Completing the earliest position first is what
//!    reconvergence does for structured control flow within a function. It
//!    is not when lanes leave a function early and reach a SIMD-group
//!    operation of a later call of a function at an earlier position (the
//!    same helper called again, another instance of the same template):
//!    there a GPU reconverges at the function's end and the executor does
//!    not (a comparison then reports a difference). The case found,
//!    SPIRV-Cross's clustered-reduction helper (lanes 0..11 of a
//!    `subgroupClusteredAdd(x, 16)` summed 8 lanes), returns early no more
//!    (halc's vendor patch 0003);
//! 2. else, if every thread waits at the same barrier, all are released;
//!    a barrier that some threads passed by (returned, or wait at another
//!    barrier) is a [`CpuError::Kernel`] error: undefined in Metal, a hang on
//!    real GPUs.

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::buffer::{page_size, Mapping};
use super::device::ThreadgroupFill;
use super::encode::{Encoded, Region};
use super::{CpuError, FaultKind};
use crate::schema::MetalLimits;

/// `halc_entry(slots, thread)` of a compiled kernel.
pub(super) type EntryFn = unsafe extern "C" fn(*const *mut c_void, *mut Thread);

/// SIMD width of Apple GPUs: the default
/// ([`DeviceOptions::simd_width`](super::DeviceOptions::simd_width)).
pub const SIMD_WIDTH: u32 = 32;

/// The SIMD widths the executor emulates
/// ([`DeviceOptions::simd_width`](super::DeviceOptions::simd_width)):
/// powers of two the quad operations (4 lanes) divide, up to the 32 lanes
/// of its lane masks.
pub const SIMD_WIDTHS: [u32; 4] = [4, 8, 16, 32];

/// [`SIMD_WIDTHS`] as words, for messages.
pub const SIMD_WIDTHS_TEXT: &str = "4, 8, 16 or 32";

/// Size of each fiber's stack.
const FIBER_STACK_BYTES: usize = 256 * 1024;

const WAIT_BARRIER: u32 = 1;
const WAIT_SIMD: u32 = 2;

/// `halc_simd_state` of the shim.
#[repr(C, align(16))]
pub(super) struct SimdState {
    active: u32,
    pad: [u32; 3],
    slot: [[u8; 64]; 32],
    snap: [[u8; 64]; 32],
}

/// `halc_group` of the shim.
#[repr(C)]
pub(super) struct Group {
    tg_pos: [u32; 3],
    tg_size: [u32; 3],
    groups: [u32; 3],
    simd_groups: u32,
    simd_width: u32,
    arena: *mut u8,
    arena_cap: u64,
    simd: *mut SimdState,
}

/// `halc_thread` of the shim.
#[repr(C)]
pub(super) struct Thread {
    group: *mut Group,
    local: [u32; 3],
    index: u32,
    lane: u32,
    simd_id: u32,
    wait_kind: u32,
    site_line: u32,
    site_col: u32,
    barriers: u32,
    tg_offset: u64,
    yielder: *mut c_void,
    yield_fn: unsafe extern "C" fn(*mut Thread),
    fail_fn: unsafe extern "C" fn(*mut Thread, *const c_char),
}

/// What the shim's `HALC_ABI` must be.
pub(super) const ABI: u64 =
    1_000_000 + 1000 * std::mem::size_of::<Thread>() as u64 + std::mem::size_of::<Group>() as u64;

const _: () = assert!(std::mem::size_of::<Group>() == 72);
const _: () = assert!(std::mem::size_of::<Thread>() == 80);
const _: () = assert!(std::mem::size_of::<SimdState>() == 4112);

type Fiber = Coroutine<(), (), (), DefaultStack>;

unsafe extern "C" fn yield_fn(t: *mut Thread) {
    // SAFETY: `yielder` was set by the fiber's body to its own `Yielder`,
    // which lives as long as the fiber runs; this is called on that fiber.
    unsafe {
        let y = &*((*t).yielder as *const Yielder<(), ()>);
        y.suspend(());
    }
}

unsafe extern "C" fn fail_fn(t: *mut Thread, msg: *const c_char) {
    // SAFETY: the shim passes a NUL-terminated string literal and its own
    // thread state.
    let (msg, t) = unsafe { (CStr::from_ptr(msg).to_string_lossy(), &*t) };
    // SAFETY: the thread's group is live while it runs.
    let g = unsafe { &*t.group };
    child_fail(&format!(
        "{msg} (thread {:?} of threadgroup {:?})",
        t.local, g.tg_pos
    ));
}

// ------------------------------------------------------------------ report

const EXIT_OK: i32 = 0;
const EXIT_ERROR: i32 = 70;
const EXIT_SIGNAL: i32 = 71;

/// Written by the child, read by the parent after the child is gone.
#[repr(C)]
struct Report {
    /// Integer divisions completed by the SIGFPE handler.
    divisions: AtomicU64,
    written: AtomicU32,
    signal: i32,
    /// The siginfo's `si_code`: how the kernel raised the signal.
    code: i32,
    address: u64,
    has_thread: u32,
    local: [u32; 3],
    group: [u32; 3],
    msg_len: u32,
    msg: [u8; 3072],
}

static REPORT: AtomicPtr<Report> = AtomicPtr::new(std::ptr::null_mut());

thread_local! {
    static CURRENT: Cell<*const Thread> = const { Cell::new(std::ptr::null()) };
}

/// In the child: records `msg` and exits.
fn child_fail(msg: &str) -> ! {
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
                (*r).address = signal_address(info);
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

/// Completes the x86-64 `div`/`idiv` that raised SIGFPE in `ctx` with
/// halc's value (see the module documentation) and moves the instruction
/// pointer past it; false if the instruction is not one it decodes (then the
/// signal is a fault).
///
/// # Safety
/// `ctx` must be the `ucontext_t` the kernel passed to a SIGFPE handler.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
unsafe fn complete_division(ctx: *mut c_void) -> bool {
    // SAFETY: the caller passes the handler's ucontext.
    let uc = unsafe { &mut *ctx.cast::<libc::ucontext_t>() };
    let g = &mut uc.uc_mcontext.gregs;
    let rip = g[libc::REG_RIP as usize] as u64;
    // SAFETY: the faulting instruction was just fetched from `rip`; an
    // instruction is at most 15 bytes and the code page is mapped.
    let code = unsafe { std::slice::from_raw_parts(rip as *const u8, 15) };
    let Some(d) = decode_div(code) else {
        return false;
    };
    let reg = |n: u8| -> i64 { g[GREG_OF[n as usize]] };
    let divisor_bits: u64 = match d.operand {
        Operand::Register(n) => {
            if d.width == 8 && !d.rex && (4..8).contains(&n) {
                // AH, CH, DH, BH.
                (reg(n - 4) as u64) >> 8
            } else {
                reg(n) as u64
            }
        }
        Operand::Memory {
            base,
            index,
            scale,
            disp,
        } => {
            let mut a = disp as u64;
            match base {
                Base::Register(n) => a = a.wrapping_add(reg(n) as u64),
                Base::Rip => a = a.wrapping_add(rip + u64::from(d.len)),
                Base::None => {}
            }
            if let Some(n) = index {
                a = a.wrapping_add((reg(n) as u64).wrapping_mul(u64::from(scale)));
            }
            // SAFETY: the CPU read the divisor from this address before it
            // raised #DE, so it is mapped; read unaligned, as the CPU does.
            unsafe {
                match d.width {
                    8 => u64::from(std::ptr::read_unaligned(a as *const u8)),
                    16 => u64::from(std::ptr::read_unaligned(a as *const u16)),
                    32 => u64::from(std::ptr::read_unaligned(a as *const u32)),
                    _ => std::ptr::read_unaligned(a as *const u64),
                }
            }
        }
    };
    let rax = reg(0) as u64;
    let rdx = reg(2) as u64;
    let (dividend_lo, dividend_hi) = match d.width {
        8 => (rax & 0xFFFF, 0),
        16 => (rax & 0xFFFF, rdx & 0xFFFF),
        32 => (rax & 0xFFFF_FFFF, rdx & 0xFFFF_FFFF),
        _ => (rax, rdx),
    };
    let (q, r) = division_value(d.width, d.signed, dividend_lo, dividend_hi, divisor_bits);
    let set = |g: &mut [i64; 23], n: usize, v: u64| g[GREG_OF[n]] = v as i64;
    match d.width {
        8 => {
            let ax = (q & 0xFF) | ((r & 0xFF) << 8);
            set(g, 0, (rax & !0xFFFF) | ax);
        }
        16 => {
            set(g, 0, (rax & !0xFFFF) | (q & 0xFFFF));
            set(g, 2, (rdx & !0xFFFF) | (r & 0xFFFF));
        }
        // A 32-bit result zero-extends into the 64-bit register.
        32 => {
            set(g, 0, q & 0xFFFF_FFFF);
            set(g, 2, r & 0xFFFF_FFFF);
        }
        _ => {
            set(g, 0, q);
            set(g, 2, r);
        }
    }
    g[libc::REG_RIP as usize] = (rip + u64::from(d.len)) as i64;
    true
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
unsafe fn complete_division(_ctx: *mut c_void) -> bool {
    false
}

/// `gregs` index of x86-64 register number n (RAX, RCX, RDX, RBX, RSP, RBP,
/// RSI, RDI, R8..R15).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
const GREG_OF: [usize; 16] = [
    libc::REG_RAX as usize,
    libc::REG_RCX as usize,
    libc::REG_RDX as usize,
    libc::REG_RBX as usize,
    libc::REG_RSP as usize,
    libc::REG_RBP as usize,
    libc::REG_RSI as usize,
    libc::REG_RDI as usize,
    libc::REG_R8 as usize,
    libc::REG_R9 as usize,
    libc::REG_R10 as usize,
    libc::REG_R11 as usize,
    libc::REG_R12 as usize,
    libc::REG_R13 as usize,
    libc::REG_R14 as usize,
    libc::REG_R15 as usize,
];

/// A memory operand's base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Register(u8),
    Rip,
    None,
}

/// The divisor of a `div`/`idiv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operand {
    Register(u8),
    Memory {
        base: Base,
        index: Option<u8>,
        scale: u8,
        disp: i32,
    },
}

/// A decoded `div`/`idiv` (F6 /6, F6 /7, F7 /6, F7 /7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Div {
    /// Instruction length in bytes.
    len: u8,
    /// Operand width: 8, 16, 32 or 64.
    width: u8,
    signed: bool,
    /// A REX prefix is present (byte registers 4..7 are SPL..DIL, not AH..BH).
    rex: bool,
    operand: Operand,
}

/// Decodes `code` as a `div`/`idiv`: legacy prefixes (operand size 66,
/// segment overrides of CS/SS/DS/ES, which are no-ops in 64-bit mode;
/// FS/GS and address-size overrides are refused), REX, opcode, ModRM, SIB,
/// displacement.
fn decode_div(code: &[u8]) -> Option<Div> {
    let mut i = 0;
    let mut opsize16 = false;
    loop {
        match *code.get(i)? {
            0x66 => opsize16 = true,
            0x2E | 0x36 | 0x3E | 0x26 | 0xF2 | 0xF3 => {}
            _ => break,
        }
        i += 1;
    }
    let mut rex = 0u8;
    if (0x40..=0x4F).contains(code.get(i)?) {
        rex = code[i];
        i += 1;
    }
    let op = *code.get(i)?;
    i += 1;
    let width = match op {
        0xF6 => 8,
        0xF7 if rex & 8 != 0 => 64,
        0xF7 if opsize16 => 16,
        0xF7 => 32,
        _ => return None,
    };
    let modrm = *code.get(i)?;
    i += 1;
    let (md, reg, rm) = (modrm >> 6, (modrm >> 3) & 7, modrm & 7);
    let signed = match reg {
        6 => false,
        7 => true,
        _ => return None,
    };
    let rex_b = (rex & 1) << 3;
    let rex_x = (rex & 2) << 2;
    let operand = if md == 3 {
        Operand::Register(rm | rex_b)
    } else {
        let (mut base, mut index, mut scale) = (Base::Register(rm | rex_b), None, 1u8);
        if rm == 4 {
            let sib = *code.get(i)?;
            i += 1;
            scale = 1 << (sib >> 6);
            let idx = ((sib >> 3) & 7) | rex_x;
            if idx != 4 {
                index = Some(idx);
            }
            let b = sib & 7;
            base = if b == 5 && md == 0 {
                Base::None
            } else {
                Base::Register(b | rex_b)
            };
        } else if rm == 5 && md == 0 {
            base = Base::Rip;
        }
        let disp_len = match (md, base) {
            (0, Base::Rip | Base::None) => 4,
            (0, _) => 0,
            (1, _) => 1,
            _ => 4,
        };
        let bytes = code.get(i..i + disp_len)?;
        i += disp_len;
        let disp = match disp_len {
            0 => 0,
            1 => i32::from(bytes[0] as i8),
            _ => i32::from_le_bytes(bytes.try_into().ok()?),
        };
        Operand::Memory {
            base,
            index,
            scale,
            disp,
        }
    };
    Some(Div {
        len: i as u8,
        width,
        signed,
        rex: rex != 0,
        operand,
    })
}

/// The (quotient, remainder) halc gives a `width`-bit division that traps:
/// the dividend is `hi:lo` (for 8 bits, `lo` is AX), the divisor
/// `divisor`'s low `width` bits. Divisor 0: quotient all ones, remainder the
/// dividend's low `width` bits; otherwise (overflow: `INT_MIN / -1`, or a
/// quotient wider than `width` bits) the exact result's low `width` bits.
fn division_value(width: u8, signed: bool, lo: u64, hi: u64, divisor: u64) -> (u64, u64) {
    let w = u32::from(width);
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let divisor = divisor & mask;
    // The dividend: 2w bits (for 8 bits, AX's 16).
    let dividend = if w == 8 {
        u128::from(lo & 0xFFFF)
    } else {
        (u128::from(hi & mask) << w) | u128::from(lo & mask)
    };
    if divisor == 0 {
        return (mask, dividend as u64 & mask);
    }
    let bits = 2 * w;
    if signed {
        let sext = |v: u128, n: u32| ((v << (128 - n)) as i128) >> (128 - n);
        let n = sext(dividend, bits);
        let d = sext(u128::from(divisor), w);
        (
            (n.wrapping_div(d)) as u64 & mask,
            (n.wrapping_rem(d)) as u64 & mask,
        )
    } else {
        let d = u128::from(divisor);
        ((dividend / d) as u64 & mask, (dividend % d) as u64 & mask)
    }
}

const SIGNALS: [c_int; 6] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGABRT,
    libc::SIGTRAP,
];

fn install_signal_handlers() {
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

fn install_alt_stack() {
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

// --------------------------------------------------------------- launching

/// One dispatch, ready to run.
pub(super) struct Launch<'a> {
    pub(super) kernel: &'a str,
    pub(super) entry: EntryFn,
    pub(super) encoded: &'a Encoded,
    pub(super) fill: ThreadgroupFill,
    pub(super) time_limit: Duration,
    pub(super) workers: usize,
    /// Lanes per SIMD group (4, 8, 16 or 32).
    pub(super) simd_width: u32,
}

/// What a dispatch that completed did that a caller may want to know.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Outcome {
    /// Integer divisions by zero (or `INT_MIN / -1`) given halc's value
    /// after a trap (x86-64; see the module documentation).
    pub(super) divisions: u64,
}

/// Runs a dispatch in a child process; returns when it is done.
pub(super) fn run(l: &Launch<'_>) -> Result<Outcome, CpuError> {
    let kernel = || l.kernel.to_string();
    let threads = l.encoded.threads;
    let n: u64 = threads.iter().map(|&t| u64::from(t)).product();
    let max = u64::from(MetalLimits::MaxThreadsPerThreadgroup.0);
    if n == 0 || n > max {
        return Err(CpuError::Limit {
            kernel: kernel(),
            message: format!("threadgroup {threads:?} has {n} threads; Metal allows 1..={max}"),
        });
    }
    let groups = l.encoded.threadgroups;
    let total: u64 = groups.iter().product();
    if total == 0 || groups.iter().any(|&g| g > u64::from(u32::MAX)) {
        return Err(CpuError::Limit {
            kernel: kernel(),
            message: format!("{groups:?} threadgroups"),
        });
    }
    let workers = l.workers.clamp(1, 64).min(total as usize);
    let tg_cap = MetalLimits::MaxThreadgroupMemoryBytes.0 as usize;
    let arenas = (0..workers)
        .map(|_| Mapping::new(tg_cap))
        .collect::<Result<Vec<_>, _>>()?;
    let report = Mapping::new(std::mem::size_of::<Report>().next_multiple_of(page_size()))?;
    let report_ptr = report.ptr().cast::<Report>();

    // SAFETY: the child only runs the dispatch below, which ends in
    // `_exit`. Tied to this process: the time limit is kept by the thread
    // that waits for it (`wait_child`), so a kernel in an endless loop would
    // otherwise spin on alone after the caller was killed (a build tool's
    // time-out ending `halc test`).
    let pid = unsafe { crate::process::fork_tied() }.map_err(|e| CpuError::Os {
        what: "fork".into(),
        message: e.to_string(),
    })?;
    if pid == 0 {
        REPORT.store(report_ptr, Ordering::SeqCst);
        install_signal_handlers();
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_groups(l, &arenas, n as u32, total, workers)
        }));
        match ok {
            Ok(()) => {
                // SAFETY: ends the child (see child_fail).
                unsafe { libc::_exit(EXIT_OK) }
            }
            Err(_) => child_fail("the executor panicked"),
        }
    }

    let status = wait_child(pid, l.time_limit);
    // SAFETY: the child is gone (waited for); the report page is ours.
    let r = unsafe { &*report_ptr };
    let status = match status {
        Some(s) => s,
        None => {
            return Err(CpuError::Timeout {
                kernel: kernel(),
                limit: l.time_limit,
            })
        }
    };
    if libc::WIFEXITED(status) {
        match libc::WEXITSTATUS(status) {
            EXIT_OK => Ok(Outcome {
                divisions: r.divisions.load(Ordering::SeqCst),
            }),
            EXIT_ERROR if r.written.load(Ordering::SeqCst) == 1 => Err(CpuError::Kernel {
                kernel: kernel(),
                message: String::from_utf8_lossy(&r.msg[..r.msg_len as usize]).into_owned(),
            }),
            EXIT_SIGNAL if r.written.load(Ordering::SeqCst) == 1 => {
                let (kind, message) = describe_fault(r, &l.encoded.regions, &arenas);
                Err(CpuError::Fault {
                    kernel: kernel(),
                    message,
                    kind,
                })
            }
            code => Err(CpuError::Fault {
                kernel: kernel(),
                message: format!("the dispatch process exited with status {code}"),
                kind: FaultKind::Other,
            }),
        }
    } else if libc::WIFSIGNALED(status) {
        Err(CpuError::Fault {
            kernel: kernel(),
            message: format!(
                "the dispatch process was killed by {}",
                signal_name(libc::WTERMSIG(status))
            ),
            kind: FaultKind::Other,
        })
    } else {
        Err(CpuError::Fault {
            kernel: kernel(),
            message: format!("the dispatch process ended with wait status {status:#x}"),
            kind: FaultKind::Other,
        })
    }
}

/// Waits for `pid` up to `limit`; `None` if it had to be killed.
fn wait_child(pid: libc::pid_t, limit: Duration) -> Option<c_int> {
    let deadline = Instant::now() + limit;
    let mut status: c_int = 0;
    let pidfd = open_pidfd(pid);
    let mut nap = Duration::from_micros(20);
    loop {
        // SAFETY: `pid` is our child; `status` is a valid out-pointer.
        let rc = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if rc == pid {
            break;
        }
        if rc < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            // SAFETY: killing and reaping our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            close_fd(pidfd);
            return None;
        }
        let left = deadline - now;
        match pidfd {
            Some(fd) => {
                let mut p = libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                };
                let ms = left.as_millis().clamp(1, 1000) as c_int;
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(&mut p, 1, ms) };
            }
            None => {
                std::thread::sleep(nap.min(left));
                nap = (nap * 2).min(Duration::from_millis(2));
            }
        }
    }
    close_fd(pidfd);
    Some(status)
}

#[cfg(target_os = "linux")]
fn open_pidfd(pid: libc::pid_t) -> Option<c_int> {
    // SAFETY: pidfd_open(pid, 0) has no memory preconditions.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    (fd >= 0).then_some(fd as c_int)
}

#[cfg(not(target_os = "linux"))]
fn open_pidfd(_pid: libc::pid_t) -> Option<c_int> {
    None
}

fn close_fd(fd: Option<c_int>) {
    if let Some(fd) = fd {
        // SAFETY: closing a descriptor we opened, once.
        unsafe { libc::close(fd) };
    }
}

fn signal_name(sig: c_int) -> String {
    match sig {
        libc::SIGSEGV => "SIGSEGV (invalid memory access)".into(),
        libc::SIGBUS => "SIGBUS (invalid memory access)".into(),
        libc::SIGFPE => "SIGFPE (integer division by zero or overflow: undefined in MSL)".into(),
        libc::SIGILL => "SIGILL (a trap: undefined behaviour or unreachable code)".into(),
        libc::SIGABRT => "SIGABRT (abort)".into(),
        libc::SIGTRAP => "SIGTRAP (a trap)".into(),
        libc::SIGKILL => "SIGKILL".into(),
        s => format!("signal {s}"),
    }
}

/// The fault's kind, and what happened, where.
fn describe_fault(r: &Report, regions: &[Region], arenas: &[Mapping]) -> (FaultKind, String) {
    let addr = r.address;
    let (kind, mut what) = match r.signal {
        // x86-64 raises a general-protection fault, not a page fault, for a
        // misaligned aligned-vector access or an address outside the
        // canonical range; Linux reports it with no address (0), which is
        // not a null pointer.
        #[cfg(target_os = "linux")]
        libc::SIGSEGV if r.code == libc::SI_KERNEL => (
            FaultKind::OutsideBuffers,
            "general-protection fault: an access the CPU refused without naming an address (a misaligned vector access, or an address far outside every buffer, such as an index far out of bounds)".to_string(),
        ),
        libc::SIGSEGV | libc::SIGBUS => {
            let arena_regions: Vec<Region> = arenas
                .iter()
                .map(|m| Region {
                    name: "threadgroup memory (32 KiB)".into(),
                    start: m.ptr() as u64,
                    len: m.len() as u64,
                    span: m.span(),
                })
                .collect();
            let hit = regions
                .iter()
                .chain(&arena_regions)
                .find(|g| (g.span.0..g.span.1).contains(&addr));
            match hit {
                Some(g) if addr >= g.start + g.len => (
                    FaultKind::OutOfBounds,
                    format!(
                        "out-of-bounds access: address {addr:#x} is {} bytes past the end of {} ({} bytes)",
                        addr - (g.start + g.len),
                        g.name,
                        g.len
                    ),
                ),
                Some(g) if addr < g.start => (
                    FaultKind::OutOfBounds,
                    format!(
                        "out-of-bounds access: address {addr:#x} is {} bytes before the start of {} ({} bytes)",
                        g.start - addr,
                        g.name,
                        g.len
                    ),
                ),
                Some(g) => (
                    FaultKind::Other,
                    format!("invalid access at {addr:#x} inside {}", g.name),
                ),
                None if addr < page_size() as u64 => (
                    FaultKind::NullPointer,
                    format!("null pointer dereference (address {addr:#x})"),
                ),
                None => (
                    FaultKind::OutsideBuffers,
                    format!(
                        "invalid memory access at {addr:#x}, outside every buffer (a stray pointer, or a fiber stack overflow)"
                    ),
                ),
            }
        }
        libc::SIGFPE => (FaultKind::IntegerDivision, signal_name(libc::SIGFPE)),
        s @ (libc::SIGILL | libc::SIGTRAP) => (FaultKind::Trap, signal_name(s)),
        s => (FaultKind::Other, signal_name(s)),
    };
    if r.has_thread == 1 {
        what.push_str(&format!(
            " in thread {:?} of threadgroup {:?}",
            r.local, r.group
        ));
    }
    (kind, what)
}

// ------------------------------------------------------------ in the child

struct SendPtr<T>(*const T);
// SAFETY: used only to hand the launch description to the child's worker
// threads, which read it while `run_groups` waits for them.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    fn get(&self) -> *const T {
        self.0
    }
}

fn run_groups(l: &Launch<'_>, arenas: &[Mapping], n: u32, total: u64, workers: usize) {
    let next = AtomicU64::new(0);
    let slots = SendPtr(l.encoded.slots.as_ptr());
    let launch = SendPtr(l as *const Launch<'_>);
    std::thread::scope(|s| {
        for arena in arenas.iter().take(workers) {
            let next = &next;
            let slots = &slots;
            let launch = &launch;
            let arena = SendPtr(arena as *const Mapping);
            s.spawn(move || {
                install_alt_stack();
                // SAFETY: the launch and the arena outlive the scope, and are
                // only read.
                let (l, arena) = unsafe { (&*launch.get(), &*arena.get()) };
                worker(l, arena, slots.get(), n, total, next);
            });
        }
    });
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum St {
    Runnable,
    Barrier,
    Simd,
    Done,
}

fn fill_arena(arena: &Mapping, len: usize, fill: ThreadgroupFill) {
    let p = arena.ptr();
    let len = len.min(arena.len());
    let pattern = match fill {
        ThreadgroupFill::Poison => 0x7FBA_DBADu32.to_le_bytes(),
        ThreadgroupFill::Zero => [0; 4],
        ThreadgroupFill::Byte(b) => [b; 4],
    };
    for i in 0..len {
        // SAFETY: `i < arena.len()`: inside the arena's bytes.
        unsafe { *p.add(i) = pattern[i % 4] };
    }
}

#[allow(clippy::too_many_arguments)]
fn worker(
    l: &Launch<'_>,
    arena: &Mapping,
    slots: *const *mut c_void,
    n: u32,
    total: u64,
    next: &AtomicU64,
) {
    let size = l.encoded.threads;
    let grid = l.encoded.threadgroups;
    let width = l.simd_width;
    let simd_groups = n.div_ceil(width);
    let layout = std::alloc::Layout::array::<SimdState>(simd_groups as usize).expect("small");
    // SAFETY: a non-zero-sized layout; all-zero bytes are a valid SimdState.
    let simd = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<SimdState>();
    if simd.is_null() {
        child_fail("out of memory");
    }
    let mut group = Box::new(Group {
        tg_pos: [0; 3],
        tg_size: size,
        groups: grid.map(|g| g as u32),
        simd_groups,
        simd_width: width,
        arena: arena.ptr(),
        arena_cap: arena.len() as u64,
        simd,
    });
    let gp: *mut Group = &mut *group;
    let mut threads: Vec<Thread> = (0..n)
        .map(|i| Thread {
            group: gp,
            local: [
                i % size[0],
                (i / size[0]) % size[1],
                i / (size[0] * size[1]),
            ],
            index: i,
            lane: i % width,
            simd_id: i / width,
            wait_kind: 0,
            site_line: 0,
            site_col: 0,
            barriers: 0,
            tg_offset: 0,
            yielder: std::ptr::null_mut(),
            yield_fn,
            fail_fn,
        })
        .collect();
    let tp = threads.as_mut_ptr();
    let mut stacks: Vec<DefaultStack> = Vec::new();
    let mut fibers: Vec<Option<Fiber>> = (0..n).map(|_| None).collect();
    let mut status = vec![St::Runnable; n as usize];
    let mut runnable: Vec<u32> = Vec::with_capacity(n as usize);
    let mut batch: Vec<u32> = Vec::with_capacity(n as usize);
    let mut used = arena.len();
    let entry = l.entry;
    let slots_addr = slots as usize;

    loop {
        let g = next.fetch_add(1, Ordering::Relaxed);
        if g >= total {
            break;
        }
        let pos = [
            (g % grid[0]) as u32,
            ((g / grid[0]) % grid[1]) as u32,
            (g / (grid[0] * grid[1])) as u32,
        ];
        fill_arena(arena, used, l.fill);
        // SAFETY: `gp` points to `group`, alive for the loop; no fiber runs.
        unsafe { (*gp).tg_pos = pos };
        runnable.clear();
        for i in 0..n {
            // SAFETY: `i < n`, the length of `threads`, which never reallocates.
            let t = unsafe { &mut *tp.add(i as usize) };
            t.tg_offset = 0;
            t.barriers = 0;
            t.wait_kind = 0;
            let stack = match stacks.pop() {
                Some(s) => s,
                None => DefaultStack::new(FIBER_STACK_BYTES)
                    .unwrap_or_else(|e| child_fail(&format!("allocating a fiber stack: {e}"))),
            };
            let tptr = t as *mut Thread as usize;
            fibers[i as usize] = Some(Coroutine::with_stack(
                stack,
                move |y: &Yielder<(), ()>, ()| {
                    let t = tptr as *mut Thread;
                    // SAFETY: `t` is this fiber's thread state, which outlives
                    // the fiber; the entry point is the compiled kernel's,
                    // called with the slot table encode.rs built for it.
                    unsafe {
                        (*t).yielder = y as *const Yielder<(), ()> as *mut c_void;
                        entry(slots_addr as *const *mut c_void, t);
                    }
                },
            ));
            status[i as usize] = St::Runnable;
            runnable.push(i);
        }

        let mut live = n;
        loop {
            while !runnable.is_empty() {
                std::mem::swap(&mut runnable, &mut batch);
                for &i in &batch {
                    let f = fibers[i as usize].as_mut().expect("a live fiber");
                    // SAFETY: `i < n`.
                    CURRENT.with(|c| c.set(unsafe { tp.add(i as usize) }));
                    match f.resume(()) {
                        CoroutineResult::Return(()) => {
                            status[i as usize] = St::Done;
                            live -= 1;
                            let f = fibers[i as usize].take().expect("a live fiber");
                            stacks.push(f.into_stack());
                        }
                        CoroutineResult::Yield(()) => {
                            // SAFETY: `i < n`; the fiber is suspended.
                            let kind = unsafe { (*tp.add(i as usize)).wait_kind };
                            status[i as usize] = match kind {
                                WAIT_BARRIER => St::Barrier,
                                WAIT_SIMD => St::Simd,
                                k => child_fail(&format!("unknown wait kind {k}")),
                            };
                        }
                    }
                }
                batch.clear();
            }
            CURRENT.with(|c| c.set(std::ptr::null()));
            if live == 0 {
                break;
            }
            // 1. SIMD-group operations: per SIMD group, the earliest site.
            for sg in 0..simd_groups {
                let lanes = sg * width..((sg + 1) * width).min(n);
                let site = |i: u32| {
                    // SAFETY: `i < n`.
                    let t = unsafe { &*tp.add(i as usize) };
                    (t.site_line, t.site_col)
                };
                let Some(first) = lanes
                    .clone()
                    .filter(|&i| status[i as usize] == St::Simd)
                    .map(site)
                    .min()
                else {
                    continue;
                };
                let mut active = 0u32;
                // SAFETY: `sg < simd_groups`, the length of `simd`.
                let s = unsafe { &mut *simd.add(sg as usize) };
                for i in lanes {
                    if status[i as usize] == St::Simd && site(i) == first {
                        let lane = (i % width) as usize;
                        active |= 1 << lane;
                        s.snap[lane] = s.slot[lane];
                        status[i as usize] = St::Runnable;
                        runnable.push(i);
                    }
                }
                s.active = active;
            }
            if !runnable.is_empty() {
                continue;
            }
            // 2. The barrier: every thread must be there, at the same call.
            if live < n {
                let done: Vec<u32> = (0..n).filter(|&i| status[i as usize] == St::Done).collect();
                child_fail(&format!(
                    "threadgroup {pos:?}: {live} of {n} threads wait at threadgroup_barrier while {} returned without reaching it (threads {}); undefined in Metal, a hang on a GPU",
                    done.len(),
                    summarize(&done)
                ));
            }
            // SAFETY: indices < n.
            let barrier_site = |i: u32| unsafe {
                let t = &*tp.add(i as usize);
                (t.site_line, t.site_col, t.barriers)
            };
            let first = barrier_site(0);
            if let Some(other) = (0..n).find(|&i| barrier_site(i) != first) {
                child_fail(&format!(
                    "threadgroup {pos:?}: threads wait at different threadgroup_barrier calls (thread 0 at line {}, thread {other} at line {}); undefined in Metal",
                    first.0,
                    barrier_site(other).0
                ));
            }
            for i in 0..n {
                // SAFETY: `i < n`.
                unsafe { (*tp.add(i as usize)).barriers += 1 };
                status[i as usize] = St::Runnable;
                runnable.push(i);
            }
        }
        used = (0..n)
            // SAFETY: `i < n`.
            .map(|i| unsafe { (*tp.add(i as usize)).tg_offset } as usize)
            .max()
            .unwrap_or(0);
    }
}

fn summarize(v: &[u32]) -> String {
    let mut s: Vec<String> = v.iter().take(8).map(u32::to_string).collect();
    if v.len() > 8 {
        s.push("…".into());
    }
    s.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn div_and_idiv_are_decoded_with_their_operands() {
        let mem = |base, index, scale, disp| Operand::Memory {
            base,
            index,
            scale,
            disp,
        };
        // (code, (length, width, signed, divisor))
        type Decoded = Option<(u8, u8, bool, Operand)>;
        let cases: [(&[u8], Decoded); 9] = [
            // div ecx
            (&[0xF7, 0xF1], Some((2, 32, false, Operand::Register(1)))),
            // idiv qword ptr [rsp + 8]
            (
                &[0x48, 0xF7, 0x7C, 0x24, 0x08],
                Some((5, 64, true, mem(Base::Register(4), None, 1, 8))),
            ),
            // div r8d
            (
                &[0x41, 0xF7, 0xF0],
                Some((3, 32, false, Operand::Register(8))),
            ),
            // div ah (no REX: register 4 is AH)
            (&[0xF6, 0xF4], Some((2, 8, false, Operand::Register(4)))),
            // div bx
            (
                &[0x66, 0xF7, 0xF3],
                Some((3, 16, false, Operand::Register(3))),
            ),
            // div dword ptr [rip + 0x10]
            (
                &[0xF7, 0x35, 0x10, 0, 0, 0],
                Some((6, 32, false, mem(Base::Rip, None, 1, 0x10))),
            ),
            // idiv dword ptr [rbx + r9*4 - 4]
            (
                &[0x42, 0xF7, 0x7C, 0x8B, 0xFC],
                Some((5, 32, true, mem(Base::Register(3), Some(9), 4, -4))),
            ),
            // neg eax (F7 /3): not a division
            (&[0xF7, 0xD8], None),
            // idiv dword ptr fs:[rax]: FS is refused
            (&[0x64, 0xF7, 0x38], None),
        ];
        for (code, want) in cases {
            let got = decode_div(code).map(|d| (d.len, d.width, d.signed, d.operand));
            assert_eq!(got, want, "{code:02x?}");
        }
    }

    #[test]
    fn trapping_divisions_get_all_ones_and_the_dividend_or_the_wrapped_result() {
        // (width, signed, lo, hi, divisor) -> (quotient, remainder)
        let m32 = 0xFFFF_FFFF;
        assert_eq!(division_value(32, false, 7, 0, 0), (m32, 7));
        assert_eq!(
            division_value(32, true, (-7i32) as u32 as u64, m32, 0),
            (m32, (-7i32) as u32 as u64)
        );
        assert_eq!(
            division_value(32, true, 0x8000_0000, m32, m32),
            (0x8000_0000, 0)
        );
        assert_eq!(
            division_value(64, true, i64::MIN as u64, u64::MAX, u64::MAX),
            (i64::MIN as u64, 0)
        );
        assert_eq!(division_value(64, false, 5, 0, 0), (u64::MAX, 5));
        assert_eq!(
            division_value(16, true, 0x8000, 0xFFFF, 0xFFFF),
            (0x8000, 0)
        );
        // 8 bits: the dividend is AX.
        assert_eq!(division_value(8, false, 0x0007, 0, 0), (0xFF, 7));
        assert_eq!(division_value(8, true, 0xFF80, 0, 0xFF), (0x80, 0));
    }
}
