//! Running many test files ([`run_files`]): each in a process of its own,
//! several at once, results in file order.
//!
//! A test file's time goes to glslc (about 0.14 s per shader), clang
//! compiling the kernel's MSL on a cold cache (about 0.4 s) and the
//! dispatches: one process running one file after the other keeps one core
//! busy most of the time. Each file runs in a `fork` of the calling process
//! (no `exec`: the device, the options and the caller's `tamper` hook are
//! simply there), up to `jobs` at once; a child writes its outcome into a
//! pipe and exits. A crash while running one file (a C++ abort in
//! SPIRV-Cross, a bug in halc) is that file's failure, naming the signal,
//! and the others still run. The outcomes and their order do not depend on
//! `jobs`.
//!
//! Forking is sound only in a single-threaded process: a caller running
//! other threads gets every file run in its own process, one after the
//! other, as [`run`] does.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::Instant;

use runtime_loader::cpu;

use super::run::{run, Outcome, RunOptions};

/// How one test file ended, and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct FileResult {
    /// The outcome, as [`run`] gives it (a file that cannot be read, or
    /// whose process died, is a failure naming the file).
    pub outcome: Outcome,
    /// Wall time from the start of the file's process to its outcome.
    pub seconds: f64,
}

/// Runs every file in `files` as [`run`] would (each named by its path as
/// given), `jobs` at once (0: one per core, or under a make or cargo
/// jobserver as many as it grants tokens for), and calls `done` with each
/// file's index and result in the order of `files`, as soon as it and every
/// file before it have finished. An error from `done` stops the run (the
/// files running are waited for) and is returned.
pub fn run_files<E>(
    files: &[PathBuf],
    device: Option<&cpu::Device>,
    opts: &RunOptions,
    jobs: usize,
    mut done: impl FnMut(usize, FileResult) -> Result<(), E>,
) -> Result<(), E> {
    let budget = if jobs > 0 {
        crate::jobs::Budget::requested(jobs)
    } else {
        crate::jobs::Budget::take(files.len(), crate::jobs::cores)
    };
    let jobs = budget.cpus.min(files.len()).max(1);
    if crate::msl::worker::threads().is_some_and(|n| n > 1) {
        // No fork here: each file in this process, one after the other.
        for (i, f) in files.iter().enumerate() {
            let start = Instant::now();
            let outcome = run_file(f, device, opts);
            done(
                i,
                FileResult {
                    outcome,
                    seconds: start.elapsed().as_secs_f64(),
                },
            )?;
        }
        return Ok(());
    }
    let mut results: Vec<Option<FileResult>> = files.iter().map(|_| None).collect();
    let mut running: Vec<Child> = Vec::new();
    let (mut next, mut reported) = (0, 0);
    let mut stopped: Option<E> = None;
    while reported < files.len() && (stopped.is_none() || !running.is_empty()) {
        while stopped.is_none() && running.len() < jobs && next < files.len() {
            match Child::start(next, &files[next], device, opts) {
                Ok(c) => running.push(c),
                Err(e) => {
                    results[next] = Some(FileResult {
                        outcome: Outcome::Fail(format!(
                            "{}: cannot start a process to run it: {e}",
                            files[next].display()
                        )),
                        seconds: 0.0,
                    })
                }
            }
            next += 1;
        }
        if let Some(i) = wait_any(&mut running) {
            let child = running.swap_remove(i);
            let index = child.index;
            results[index] = Some(child.finish(&files[index]));
        }
        while stopped.is_none() && reported < files.len() {
            let Some(r) = results[reported].take() else {
                break;
            };
            if let Err(e) = done(reported, r) {
                stopped = Some(e);
            }
            reported += 1;
        }
    }
    drop(budget);
    stopped.map_or(Ok(()), Err)
}

/// Reads and runs one file in this process.
fn run_file(f: &Path, device: Option<&cpu::Device>, opts: &RunOptions) -> Outcome {
    let name = f.display().to_string();
    match std::fs::read_to_string(f) {
        Ok(text) => run(&name, &text, device, opts),
        Err(e) => Outcome::Fail(format!("{name}: cannot read: {e}")),
    }
}

/// A file running in a forked child.
struct Child {
    index: usize,
    pid: libc::pid_t,
    /// The read end of the pipe the child writes its outcome into.
    pipe: std::fs::File,
    /// What it wrote so far.
    got: Vec<u8>,
    /// Whether the pipe is at its end (the child has exited or closed it).
    eof: bool,
    start: Instant,
}

impl Child {
    fn start(
        index: usize,
        file: &Path,
        device: Option<&cpu::Device>,
        opts: &RunOptions,
    ) -> io::Result<Child> {
        let mut fds = [0; 2];
        // SAFETY: `fds` is a valid out-pointer for two descriptors.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both were just created and are owned by nothing else.
        let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        for fd in [&r, &w] {
            // Not inherited by what the child executes (glslc, clang, the
            // Vulkan reference): the pipe ends when the child exits.
            // SAFETY: fcntl on a descriptor this process owns.
            unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        let start = Instant::now();
        // SAFETY: `run_files` forks only in a single-threaded process, so
        // the child's copy of the address space is consistent: no lock is
        // held by a thread that does not exist in it.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            drop(r);
            // Nothing may unwind into the parent's frames: catch, then exit
            // without running the parent's destructors or atexit handlers.
            let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let outcome = run_file(file, device, opts);
                io::Write::write_all(&mut std::fs::File::from(w), &encode(&outcome)).is_ok()
            }))
            .unwrap_or(false);
            // SAFETY: ends the child immediately, as a forked child must.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) }
        }
        drop(w);
        Ok(Child {
            index,
            pid,
            pipe: std::fs::File::from(r),
            got: Vec::new(),
            eof: false,
            start,
        })
    }

    /// Reads what the child has written; true at the pipe's end.
    fn read(&mut self) -> bool {
        let mut buf = [0u8; 16 << 10];
        match io::Read::read(&mut self.pipe, &mut buf) {
            Ok(0) => self.eof = true,
            Ok(n) => self.got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => self.eof = true,
        }
        self.eof
    }

    /// Waits for the child (its pipe is at its end) and decodes its outcome.
    fn finish(self, file: &Path) -> FileResult {
        let mut status = 0;
        loop {
            // SAFETY: waits for our own child; `status` is a valid
            // out-pointer for the call.
            let r = unsafe { libc::waitpid(self.pid, &mut status, 0) };
            if r == self.pid || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break;
            }
        }
        let seconds = self.start.elapsed().as_secs_f64();
        let exited_cleanly = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
        let outcome = match decode(&self.got) {
            Some(o) if exited_cleanly => o,
            _ => Outcome::Fail(format!(
                "{}: the process running this test ended with {} before it finished",
                file.display(),
                describe(status)
            )),
        };
        FileResult { outcome, seconds }
    }
}

/// Waits until a child's pipe reaches its end, reading what they write;
/// returns its index in `running` (`None` when nothing runs).
fn wait_any(running: &mut [Child]) -> Option<usize> {
    loop {
        if running.is_empty() {
            return None;
        }
        let mut fds: Vec<libc::pollfd> = running
            .iter()
            .map(|c| libc::pollfd {
                fd: c.pipe.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: `fds` is a valid array of `fds.len()` pollfds.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
        if n < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            // poll itself failing leaves blocking reads: the oldest child.
            while !running[0].read() {}
            return Some(0);
        }
        for (i, f) in fds.iter().enumerate() {
            if f.revents != 0 && running[i].read() {
                return Some(i);
            }
        }
    }
}

/// The bytes a child sends: a tag and the reason.
fn encode(o: &Outcome) -> Vec<u8> {
    let (tag, reason) = match o {
        Outcome::Pass => (b'P', ""),
        Outcome::Fail(r) => (b'F', r.as_str()),
        Outcome::Skip(r) => (b'S', r.as_str()),
    };
    let mut v = vec![tag];
    v.extend_from_slice(reason.as_bytes());
    v
}

fn decode(bytes: &[u8]) -> Option<Outcome> {
    let (&tag, rest) = bytes.split_first()?;
    let reason = String::from_utf8(rest.to_vec()).ok()?;
    match tag {
        b'P' if reason.is_empty() => Some(Outcome::Pass),
        b'F' => Some(Outcome::Fail(reason)),
        b'S' => Some(Outcome::Skip(reason)),
        _ => None,
    }
}

/// A wait status in words: `signal 11 (SIGSEGV)`, `exit status 1`.
fn describe(status: libc::c_int) -> String {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // SAFETY: strsignal returns a NUL-terminated string (or NULL) that
        // is copied at once.
        let name = unsafe {
            let p = libc::strsignal(sig);
            (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned())
        };
        match name {
            Some(n) => format!("signal {sig} ({n})"),
            None => format!("signal {sig}"),
        }
    } else if libc::WIFEXITED(status) {
        format!("exit status {}", libc::WEXITSTATUS(status))
    } else {
        format!("wait status {status}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_cross_the_pipe_unchanged_and_damage_is_refused() {
        for o in [
            Outcome::Pass,
            Outcome::Fail("a.amber:3: expected 1, got 2\n  more".into()),
            Outcome::Skip(String::new()),
        ] {
            assert_eq!(decode(&encode(&o)), Some(o));
        }
        assert_eq!(decode(b""), None);
        assert_eq!(decode(b"Pjunk"), None);
        assert_eq!(decode(b"X"), None);
        assert_eq!(decode(b"F\xff"), None);
    }

    #[test]
    fn a_wait_status_is_described() {
        // A process killed by SIGKILL (9), one that exited with 3.
        assert!(describe(9).starts_with("signal 9"), "{}", describe(9));
        assert_eq!(describe(3 << 8), "exit status 3");
    }
}
