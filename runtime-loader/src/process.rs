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
