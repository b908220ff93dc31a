//! In the child, before the kernel's first thread runs: the sandbox. The
//! dispatch process may compute and report, nothing else.
//!
//! Linux only ([`enter`] does nothing elsewhere; the module documentation of
//! [`crate::cpu`] says what other systems get). In order:
//! 1. **Descriptors**: every file descriptor is closed. The child reports
//!    through the shared report page and writes results into the
//!    `MAP_SHARED` buffers; it needs no descriptor.
//! 2. **Environment**: each variable's text is overwritten with zeros and
//!    `environ` emptied, so a kernel reading the process's memory finds no
//!    token there (what halc itself copied out of the environment earlier is
//!    still in its memory: see below).
//! 3. **Limits**: heaps kept (glibc's trim would read a file), no core dump, no byte written to any file, address space
//!    at most what the child has mapped (buffers, guard zones) plus
//!    [`ADDRESS_SPACE_HEADROOM`], CPU time the dispatch's time limit plus a
//!    second (the caller kills it at the time limit anyway).
//! 4. **System calls**: a seccomp-BPF filter allows only what the dispatch
//!    itself makes (memory for stacks and fibers, futexes, starting its worker
//!    threads, signal returns of its fault handlers, exiting); a thread can
//!    be started but not a process (`clone` only with `CLONE_THREAD`,
//!    `clone3` answered `ENOSYS` so the C library falls back to `clone`), a
//!    signal can be sent to no process (an `abort` in the child is reported
//!    as a forbidden operation, which it is not in a kernel). Anything else raises
//!    SIGSYS, which the report handler records with the call's number: the
//!    dispatch fails with "the kernel attempted a forbidden operation".
//!
//! What it does not isolate: the child is a copy of its caller, so the
//! kernel can read whatever the caller held in memory when it forked (it
//! cannot send it anywhere: it has no descriptor and no system call that
//! would open one). An index into a buffer cannot reach another mapping:
//! every address a 32-bit index of an element of up to 16 bytes forms lies
//! in the buffer or its own 64 GiB guard zones (`buffer.rs`), and faults
//! naming it. A pointer made some other way (a 64-bit index, an address
//! read from data) can still write anywhere in the child's copy, shared
//! buffers included; a corrupted child can do nothing but compute and
//! exit.

use std::time::Duration;

/// Address space the child may map beyond what it holds when the sandbox
/// is entered: worker thread stacks, fiber stacks and the allocator's
/// growth, with room to spare.
#[cfg(target_os = "linux")]
pub(super) const ADDRESS_SPACE_HEADROOM: u64 = 1 << 30;

/// What the child needs to enter the sandbox, made by the caller before it
/// forks (nothing is compiled in the child).
#[cfg(target_os = "linux")]
pub(super) type Prepared = &'static (seccompiler::BpfProgram, seccompiler::BpfProgram);
#[cfg(not(target_os = "linux"))]
pub(super) type Prepared = ();

/// In the caller, before forking.
pub(super) fn prepare() -> Result<Prepared, &'static str> {
    #[cfg(target_os = "linux")]
    return filter::programs();
    #[cfg(not(target_os = "linux"))]
    Ok(())
}

/// Enters the sandbox, for a dispatch of `time_limit` on `workers` threads;
/// on failure the child must not run the kernel.
#[cfg(target_os = "linux")]
pub(super) fn enter(
    filter: Prepared,
    time_limit: Duration,
    workers: usize,
) -> Result<(), &'static str> {
    let mapped = mapped_bytes().ok_or("cannot read /proc/self/statm")?;
    keep_heaps();
    close_descriptors();
    clear_environment();
    // CPU time counts every thread's.
    let cpu = (time_limit.as_secs().saturating_add(1))
        .saturating_mul(workers.max(1) as u64)
        .saturating_add(1);
    for (resource, limit) in [
        (libc::RLIMIT_CORE, 0),
        (libc::RLIMIT_FSIZE, 0),
        (libc::RLIMIT_NOFILE, 0),
        (libc::RLIMIT_CPU, cpu),
        (
            libc::RLIMIT_AS,
            mapped.saturating_add(ADDRESS_SPACE_HEADROOM),
        ),
    ] {
        let l = libc::rlimit {
            rlim_cur: limit,
            rlim_max: limit,
        };
        // SAFETY: setrlimit reads the struct it is given.
        if unsafe { libc::setrlimit(resource, &l) } != 0 {
            return Err("setrlimit failed");
        }
    }
    filter::apply(filter)
}

/// glibc gives a worker thread's heap back to the system when its free top
/// grows past the trim threshold, and the first time it does, it reads
/// `/proc/sys/vm/overcommit_memory`: a forbidden `openat` in the sandbox
/// (found by the race check, whose bookkeeping grows the heap). The child
/// is short-lived: it keeps its heaps.
#[cfg(target_os = "linux")]
fn keep_heaps() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets the allocator's parameter; the child has one
    // thread here.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, std::ffi::c_int::MAX);
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn enter(
    _: Prepared,
    _time_limit: Duration,
    _workers: usize,
) -> Result<(), &'static str> {
    Ok(())
}

/// The name of system call `nr`, for the common ones a hostile kernel
/// would try; `None` for the others.
pub(super) fn syscall_name(nr: i64) -> Option<&'static str> {
    #[cfg(target_os = "linux")]
    {
        let names: &[(i64, &str)] = &[
            #[cfg(target_arch = "x86_64")]
            (libc::SYS_open, "open"),
            #[cfg(target_arch = "x86_64")]
            (libc::SYS_fork, "fork"),
            #[cfg(target_arch = "x86_64")]
            (libc::SYS_vfork, "vfork"),
            (libc::SYS_openat, "openat"),
            (libc::SYS_socket, "socket"),
            (libc::SYS_connect, "connect"),
            (libc::SYS_execve, "execve"),
            (libc::SYS_execveat, "execveat"),
            (libc::SYS_clone, "clone"),
            (libc::SYS_kill, "kill"),
            (libc::SYS_tgkill, "tgkill"),
            (libc::SYS_read, "read"),
            (libc::SYS_write, "write"),
            (libc::SYS_ptrace, "ptrace"),
            (libc::SYS_rt_sigaction, "rt_sigaction"),
            (libc::SYS_prctl, "prctl"),
            (libc::SYS_unlinkat, "unlinkat"),
        ];
        names.iter().find(|(n, _)| *n == nr).map(|(_, s)| *s)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = nr;
        None
    }
}

/// Bytes of address space the process has mapped (`/proc/self/statm`'s
/// first field, in pages).
#[cfg(target_os = "linux")]
fn mapped_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().next()?.parse().ok()?;
    // SAFETY: sysconf has no memory effects.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages.saturating_mul(u64::try_from(page).ok()?))
}

#[cfg(target_os = "linux")]
fn close_descriptors() {
    // SAFETY: close_range closes descriptors only; on a kernel without it
    // (before 5.9) each descriptor up to the limit is closed instead.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
            let max = libc::sysconf(libc::_SC_OPEN_MAX).clamp(1024, 1 << 20);
            for fd in 0..max as libc::c_int {
                libc::close(fd);
            }
        }
    }
}

#[cfg(target_os = "linux")]
fn clear_environment() {
    extern "C" {
        static mut environ: *mut *mut libc::c_char;
    }
    // SAFETY: the child is single-threaded here; each entry of `environ` is
    // a NUL-terminated string the process owns (its copy), overwritten in
    // place, then the list itself is dropped.
    unsafe {
        let mut p = environ;
        while !p.is_null() && !(*p).is_null() {
            let s = *p;
            let n = libc::strlen(s);
            std::ptr::write_bytes(s, 0, n);
            p = p.add(1);
        }
        environ = std::ptr::null_mut();
    }
}

#[cfg(target_os = "linux")]
mod filter {
    use std::collections::BTreeMap;
    use std::sync::OnceLock;

    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };

    #[cfg(target_arch = "x86_64")]
    const ARCH: TargetArch = TargetArch::x86_64;
    #[cfg(target_arch = "aarch64")]
    const ARCH: TargetArch = TargetArch::aarch64;

    /// The system calls a dispatch makes once its handlers are installed,
    /// found by tracing the child (`strace -f`) over the repository's
    /// Amber tests, and nothing more.
    const ALLOWED: &[i64] = &[
        // Memory: worker and fiber stacks, the allocator.
        libc::SYS_mmap,
        libc::SYS_munmap,
        libc::SYS_mprotect,
        libc::SYS_madvise,
        libc::SYS_mremap,
        libc::SYS_brk,
        // Threads: waiting, yielding, their per-thread setup.
        libc::SYS_futex,
        libc::SYS_sched_yield,
        libc::SYS_sched_getaffinity,
        libc::SYS_set_robust_list,
        libc::SYS_rseq,
        libc::SYS_gettid,
        libc::SYS_getpid,
        libc::SYS_sigaltstack,
        libc::SYS_rt_sigprocmask,
        // The return from a fault handler that completed a division.
        libc::SYS_rt_sigreturn,
        libc::SYS_clock_gettime,
        libc::SYS_clock_nanosleep,
        libc::SYS_nanosleep,
        libc::SYS_getrandom,
        libc::SYS_exit,
        libc::SYS_exit_group,
        // Answered ENOSYS by the first filter (see `apply`).
        libc::SYS_clone3,
    ];

    fn condition(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, &'static str> {
        SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value)
            .map_err(|_| "seccomp condition")
    }

    /// The two filters, compiled once per process, in the caller (compiling
    /// one in each child cost about a millisecond per dispatch).
    pub(super) fn programs() -> Result<&'static (BpfProgram, BpfProgram), &'static str> {
        static PROGRAMS: OnceLock<Result<(BpfProgram, BpfProgram), &'static str>> = OnceLock::new();
        PROGRAMS.get_or_init(build).as_ref().map_err(|e| *e)
    }

    fn build() -> Result<(BpfProgram, BpfProgram), &'static str> {
        let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
            ALLOWED.iter().map(|&n| (n, Vec::new())).collect();
        let rule = |c: Vec<SeccompCondition>| SeccompRule::new(c).map_err(|_| "seccomp rule");
        // A thread, never a process.
        let thread = libc::CLONE_THREAD as u64;
        rules.insert(
            libc::SYS_clone,
            vec![rule(vec![condition(
                0,
                SeccompCmpOp::MaskedEq(thread),
                thread,
            )?])?],
        );
        // glibc's two internal real-time signals (32 and 33, SIGCANCEL and
        // SIGSETXID), whose handlers the first thread a process starts sets
        // up: a dispatch forked from a single-threaded process (`halc
        // test`'s per-file process) starts its first thread in here.
        rules.insert(
            libc::SYS_rt_sigaction,
            [32, 33]
                .into_iter()
                .map(|sig| rule(vec![condition(0, SeccompCmpOp::Eq, sig)?]))
                .collect::<Result<_, _>>()?,
        );
        // Naming a worker thread.
        rules.insert(
            libc::SYS_prctl,
            vec![rule(vec![condition(
                0,
                SeccompCmpOp::Eq,
                libc::PR_SET_NAME as u64,
            )?])?],
        );
        let allow = compile(rules, SeccompAction::Trap, SeccompAction::Allow)?;
        // glibc starts threads with clone3 and falls back to clone on
        // ENOSYS; clone3's flags are in memory a filter cannot read.
        let clone3 = compile(
            BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
            SeccompAction::Allow,
            SeccompAction::Errno(libc::ENOSYS as u32),
        )?;
        Ok((clone3, allow))
    }

    /// Installs the filters (in the child).
    pub(super) fn apply(programs: &(BpfProgram, BpfProgram)) -> Result<(), &'static str> {
        let (clone3, allow) = programs;
        // The allowlist last: installing a filter takes a prctl it refuses.
        seccompiler::apply_filter(clone3).map_err(|_| "installing the seccomp filter failed")?;
        seccompiler::apply_filter(allow).map_err(|_| "installing the seccomp filter failed")
    }

    fn compile(
        rules: BTreeMap<i64, Vec<SeccompRule>>,
        mismatch: SeccompAction,
        matched: SeccompAction,
    ) -> Result<BpfProgram, &'static str> {
        SeccompFilter::new(rules, mismatch, matched, ARCH)
            .and_then(BpfProgram::try_from)
            .map_err(|_| "compiling the seccomp filter failed")
    }
}
