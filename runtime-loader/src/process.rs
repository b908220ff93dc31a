//! Forking a child that dies with its caller, shared by halc's workers,
//! `halc test`'s per-file processes and the CPU backend's dispatch process.
//! Not part of this crate's API.

use std::io;

/// In a child just forked from the process `parent` (its pid before the
/// fork): has the kernel end the child with SIGKILL when the thread that
/// forked it exits, as when the caller is killed (a build tool's time-out,
/// an IDE cancelling a build). A child busy in SPIRV-Cross, the validator
/// or a kernel reads no pipe and keeps no clock, so without this it would
/// run on alone, on work that may never finish. Should the parent already
/// be gone by the time this runs, the child ends at once. Only `prctl`,
/// `getppid` and `_exit`: async-signal-safe, as a child of a threaded
/// process (`Command`'s `pre_exec`) needs.
///
/// The signal comes when the *thread* that forked ends, so every caller
/// forks from a thread that outlives the child: halc's workers are forked
/// by the single thread of a `compile` call before its jobs start, or
/// spawned by the job that owns them and drops them before it ends;
/// `halc test`'s files by its single thread; the CPU backend's dispatch by
/// the thread that waits for it. Linux only: elsewhere a worker still ends
/// at the end of its pipe, between requests, and a dispatch when it ends.
#[cfg(target_os = "linux")]
pub fn die_with_parent(parent: libc::pid_t) {
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number and touches no
    // memory; getppid and _exit cannot fail.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
}

/// `fork()`, the child tied to this process by `die_with_parent` (on
/// Linux) before it returns 0 there: every process halc or the CPU backend
/// forks to run work that may hang goes through here.
///
/// # Safety
/// As `fork`: the child may only do what is sound in a copy of this
/// process (in a multi-threaded one, async-signal-safe calls) and must
/// leave with `_exit`.
pub unsafe fn fork_tied() -> io::Result<libc::pid_t> {
    #[cfg(target_os = "linux")]
    // SAFETY: getpid has no memory effects.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the caller's contract.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    #[cfg(target_os = "linux")]
    if pid == 0 {
        die_with_parent(parent);
    }
    Ok(pid)
}

/// A seccomp filter under which every system call that makes or uses a
/// network socket fails with `EPERM`, and, with `programs`, so does
/// starting another program (`execve`, `execveat`); everything else is
/// allowed. Compiled once per process (in the caller, before a fork: a
/// `pre_exec` may not allocate). For processes that run on input halc does
/// not trust and need neither: clang compiling a kernel's MSL (network), the
/// Vulkan reference's driver (both).
#[cfg(all(target_os = "linux", feature = "cpu"))]
pub fn refusing_filter(programs: bool) -> Result<&'static seccompiler::BpfProgram, &'static str> {
    use std::collections::BTreeMap;
    use std::sync::OnceLock;

    use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};

    #[cfg(target_arch = "x86_64")]
    const ARCH: TargetArch = TargetArch::x86_64;
    #[cfg(target_arch = "aarch64")]
    const ARCH: TargetArch = TargetArch::aarch64;
    const NETWORK: &[i64] = &[
        libc::SYS_socket,
        libc::SYS_socketpair,
        libc::SYS_connect,
        libc::SYS_bind,
        libc::SYS_listen,
        libc::SYS_accept,
        libc::SYS_accept4,
        libc::SYS_sendto,
        libc::SYS_sendmsg,
        libc::SYS_sendmmsg,
        libc::SYS_recvfrom,
        libc::SYS_recvmsg,
        libc::SYS_recvmmsg,
    ];
    const PROGRAMS: &[i64] = &[libc::SYS_execve, libc::SYS_execveat];
    fn build(calls: &[&[i64]]) -> Result<BpfProgram, &'static str> {
        let rules = calls
            .iter()
            .flat_map(|c| c.iter())
            .map(|&n| (n, Vec::new()))
            .collect::<BTreeMap<_, _>>();
        SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            ARCH,
        )
        .and_then(BpfProgram::try_from)
        .map_err(|_| "compiling the seccomp filter failed")
    }
    static FILTERS: [OnceLock<Result<BpfProgram, &'static str>>; 2] =
        [OnceLock::new(), OnceLock::new()];
    FILTERS[usize::from(programs)]
        .get_or_init(|| {
            if programs {
                build(&[NETWORK, PROGRAMS])
            } else {
                build(&[NETWORK])
            }
        })
        .as_ref()
        .map_err(|e| *e)
}

/// Installs [`refusing_filter`]`(programs)` on the calling thread (and the
/// threads and programs it starts from then on). Async-signal-safe once
/// the filter is compiled.
#[cfg(all(target_os = "linux", feature = "cpu"))]
pub fn refuse(filter: &seccompiler::BpfProgram) -> io::Result<()> {
    seccompiler::apply_filter(filter).map_err(|e| match e {
        seccompiler::Error::Prctl(e) | seccompiler::Error::Seccomp(e) => e,
        _ => io::Error::from_raw_os_error(libc::EINVAL),
    })
}
