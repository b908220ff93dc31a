//! The pipes to a worker: close-on-exec pairs, the request pipe widened
//! (its room is what may be sent ahead), and a forked child's other
//! descriptors closed.

use std::io;

use super::error::WorkerError;

/// Room for requests in the pipe to a worker: asks Linux for 256 KiB
/// (pages are taken as they fill; 1 MiB is an unprivileged process's limit)
/// and returns what the pipe holds, or 0 where that is unknown (no module
/// is then sent ahead, see [`Worker::has_room_for`]).
///
/// [`Worker::has_room_for`]: super::Worker::has_room_for
#[cfg(unix)]
pub(super) fn widen_request_pipe(fd: libc::c_int) -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: fcntl on a pipe descriptor this process owns; a refusal
        // leaves the pipe as it was, and F_GETPIPE_SZ says which.
        let size = unsafe {
            libc::fcntl(fd, libc::F_SETPIPE_SZ, 256 << 10);
            libc::fcntl(fd, libc::F_GETPIPE_SZ)
        };
        usize::try_from(size).unwrap_or(0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = fd;
        0
    }
}

/// One end of a pipe, closed on drop and on `exec`.
#[cfg(unix)]
pub(super) struct PipeEnd(std::os::fd::OwnedFd);

#[cfg(unix)]
impl PipeEnd {
    pub(super) fn as_raw(&self) -> libc::c_int {
        use std::os::fd::AsRawFd;
        self.0.as_raw_fd()
    }
}

#[cfg(unix)]
impl From<PipeEnd> for std::os::fd::OwnedFd {
    fn from(p: PipeEnd) -> Self {
        p.0
    }
}

/// A pipe: (read end, write end), both close-on-exec.
#[cfg(unix)]
pub(super) fn pipe() -> Result<(PipeEnd, PipeEnd), WorkerError> {
    cloexec_pipe()
        .map(|(r, w)| (PipeEnd(r), PipeEnd(w)))
        .map_err(|e| WorkerError::Io(format!("pipe: {e}")))
}

/// A pipe: (read end, write end), both close-on-exec, so that a program a
/// forked child executes does not keep it open.
#[cfg(unix)]
pub(crate) fn cloexec_pipe() -> io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a valid array of two descriptors for pipe(2) to fill.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe(2) succeeded: both descriptors are new and ours alone.
    let ends = unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    };
    for fd in fds {
        // SAFETY: `fd` is open (owned by `ends`); F_SETFD takes an int flag.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok(ends)
}

/// Closes every descriptor from `low` up (in a forked child).
///
/// # Safety
/// Nothing may use the closed descriptors afterwards.
#[cfg(unix)]
pub(super) unsafe fn close_from(low: libc::c_int) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: close_range(2) with valid bounds and no flags.
        if unsafe {
            libc::syscall(
                libc::SYS_close_range,
                low as libc::c_uint,
                libc::c_uint::MAX,
                0,
            )
        } == 0
        {
            return;
        }
    }
    // SAFETY: sysconf has no memory effects.
    let max = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    let max = if max <= 0 {
        1024
    } else {
        max.min(1 << 16) as libc::c_int
    };
    for fd in low..max {
        // SAFETY: closing a descriptor number; EBADF for unused ones is fine.
        unsafe { libc::close(fd) };
    }
}
