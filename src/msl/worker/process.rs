//! A worker's process: killed, waited for, reaped (forks dropped before
//! they had exited: [`reap_workers`]), and how it ended, in the words of a
//! crash report (`signal 11 SIGSEGV`).

use std::io;
use std::process::Child;
#[cfg(unix)]
use std::process::ExitStatus;
#[cfg(unix)]
use std::sync::Mutex;

/// The worker's process.
pub(super) enum Process {
    /// Started with `Command` (`halc __msl-worker`).
    Spawned(Child),
    /// A fork of this process; `status` once reaped.
    #[cfg(unix)]
    Forked {
        pid: libc::pid_t,
        status: Option<ExitStatus>,
    },
}

impl Process {
    pub(super) fn kill(&mut self) {
        match self {
            Process::Spawned(c) => {
                let _ = c.kill();
            }
            #[cfg(unix)]
            Process::Forked { pid, status: None } => {
                // SAFETY: `pid` is our own child, not yet reaped (so the id
                // cannot have been reused); kill has no memory effects.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            #[cfg(unix)]
            Process::Forked { .. } => {}
        }
    }

    pub(super) fn wait(&mut self) -> io::Result<ExitStatus> {
        match self {
            Process::Spawned(c) => c.wait(),
            #[cfg(unix)]
            Process::Forked { pid, status } => {
                use std::os::unix::process::ExitStatusExt;
                if let Some(s) = status {
                    return Ok(*s);
                }
                loop {
                    let mut raw = 0;
                    // SAFETY: waits for our own child; `raw` is a valid
                    // out-pointer for the call's duration.
                    let r = unsafe { libc::waitpid(*pid, &mut raw, 0) };
                    if r == *pid {
                        let s = ExitStatus::from_raw(raw);
                        *status = Some(s);
                        return Ok(s);
                    }
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
    }
}

/// Forked workers dropped before they had exited, not yet reaped.
#[cfg(unix)]
pub(super) static EXITING: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

/// Reaps `pid`, waiting for it when `block`; whether it is reaped.
#[cfg(unix)]
pub(super) fn reap(pid: libc::pid_t, block: bool) -> bool {
    loop {
        let mut raw = 0;
        let flags = if block { 0 } else { libc::WNOHANG };
        // SAFETY: waits for our own child; `raw` is a valid out-pointer
        // for the call's duration.
        let r = unsafe { libc::waitpid(pid, &mut raw, flags) };
        if r == pid {
            return true;
        }
        if r == 0 {
            return false;
        }
        // ECHILD: reaped already (or never ours): nothing left to wait for.
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return true;
        }
    }
}

/// Waits for every forked worker that was dropped before it had exited
/// (they exit as soon as their input closes). A caller that reads
/// `getrusage(RUSAGE_CHILDREN)` calls this first; otherwise they are reaped
/// by the next [`Worker::fork`].
///
/// [`Worker::fork`]: super::Worker::fork
pub fn reap_workers() {
    #[cfg(unix)]
    {
        let pids = std::mem::take(&mut *EXITING.lock().unwrap_or_else(|p| p.into_inner()));
        for pid in pids {
            reap(pid, true);
        }
    }
}

pub(super) fn describe(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => " SIGILL",
                6 => " SIGABRT",
                7 => " SIGBUS",
                8 => " SIGFPE",
                9 => " SIGKILL",
                11 => " SIGSEGV",
                _ => "",
            };
            return format!("signal {sig}{name}");
        }
    }
    match status.code() {
        Some(c) => format!("exit status {c}"),
        None => "killed".into(),
    }
}
