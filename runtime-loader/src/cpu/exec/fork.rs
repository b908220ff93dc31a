//! In the caller: checks a [`Launch`], forks the child that runs it, waits
//! for it (or kills it at the time limit) and turns what the child reported
//! into an [`Outcome`] or an error naming the buffer a fault hit.

use std::ffi::c_int;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::super::buffer::{page_size, Mapping, NARROW_GUARD_BYTES};
use super::super::encode::Region;
use super::super::{CpuError, FaultKind};
use super::group::run_groups;
use super::launch::{Launch, Outcome};
use super::report::{
    child_fail, install_signal_handlers, RaceSlot, Report, EXIT_ERROR, EXIT_OK, EXIT_SIGNAL, REPORT,
};
use super::sandbox;
use crate::cpu::race::{DataRace, RaceAccess};
use crate::schema::MetalLimits;

/// Runs a dispatch in a child process; returns when it is done.
pub(in crate::cpu) fn run(l: &Launch<'_>) -> Result<Outcome, CpuError> {
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
    // The race check runs threadgroups one after another, so that what it
    // finds does not depend on timing.
    let workers = if l.race_check.is_some() {
        1
    } else {
        l.workers.clamp(1, 64).min(total as usize)
    };
    let tg_cap = MetalLimits::MaxThreadgroupMemoryBytes.0 as usize;
    let arenas = (0..workers)
        .map(|_| Mapping::guarded(tg_cap, l.guard_bytes))
        .collect::<Result<Vec<_>, _>>()?;
    // No kernel indexes the report page: narrow guard zones (it lies beyond
    // every buffer's and arena's own zones).
    let report = Mapping::guarded(
        std::mem::size_of::<Report>().next_multiple_of(page_size()),
        NARROW_GUARD_BYTES as u64,
    )?;
    let report_ptr = report.ptr().cast::<Report>();
    let sandbox = l
        .sandbox
        .then(sandbox::prepare)
        .transpose()
        .map_err(|why| CpuError::Os {
            what: "the dispatch sandbox".into(),
            message: why.to_string(),
        })?;

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
        if let Some(prepared) = sandbox {
            if let Err(why) = sandbox::enter(prepared, l.time_limit, workers) {
                child_fail(&format!(
                    "the dispatch process could not enter its sandbox: {why}"
                ));
            }
        }
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
                float_flags: r.float_flags.load(Ordering::SeqCst),
                race: (r.race_found.load(Ordering::SeqCst) == 1)
                    .then(|| describe_race(&r.race, &l.encoded.regions, &arenas)),
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

/// The race check's race, its byte named as a fault's address is.
fn describe_race(slot: &RaceSlot, regions: &[Region], arenas: &[Mapping]) -> DataRace {
    let addr = slot.address;
    let access = |i: usize| RaceAccess {
        threadgroup: slot.groups[i],
        thread: slot.locals[i],
        write: slot.kinds[i] & 1 != 0,
        atomic: slot.kinds[i] & 2 != 0,
    };
    let arena = arenas
        .iter()
        .map(|m| (m.ptr() as u64, m.len() as u64))
        .find(|&(start, len)| (start..start + len).contains(&addr))
        .map(|(start, _)| start);
    let (memory, offset) = match arena {
        Some(start) => ("threadgroup memory".to_string(), addr - start),
        None => regions
            .iter()
            .find(|g| (g.start..g.start + g.len).contains(&addr))
            .map_or((format!("memory at {addr:#x}"), 0), |g| {
                (g.name.clone(), addr - g.start)
            }),
    };
    DataRace {
        memory,
        offset,
        first: access(0),
        second: access(1),
    }
}

/// The fault's kind, and what happened, where.
fn describe_fault(r: &Report, regions: &[Region], arenas: &[Mapping]) -> (FaultKind, String) {
    let addr = r.address;
    let (kind, mut what) = match r.signal {
        libc::SIGSYS => {
            let nr = r.address as i64;
            let name = sandbox::syscall_name(nr).map_or(String::new(), |n| format!(" ({n})"));
            return (
                FaultKind::Forbidden,
                format!(
                    "the kernel attempted a forbidden operation: system call {nr}{name}; the dispatch process may only compute and report (the CPU backend's sandbox)"
                ),
            );
        }
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
