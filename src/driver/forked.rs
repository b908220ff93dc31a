//! Independent pieces of work, each in a `fork` of this process, several
//! at once, their results in order ([`each_forked`]): the test files of
//! `halc test`, the seeds of `halc diff`.
//!
//! A fork needs no `exec` (the caller's device, options and hooks are
//! simply there) and isolates: a crash while one piece runs (a C++ abort,
//! a bug in halc) is that piece's failure, and the others still run.
//! Forking is sound only in a single-threaded process: a caller running
//! other threads gets every piece run in its own process, one after the
//! other.

use std::io;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

/// Runs `work(i)` for every `i` in `0..n`, up to `jobs` at once (0: one
/// per core, or under a make or cargo jobserver one on this process's
/// token and one per token it can take, given back at the end), each in a
/// forked child unless this process runs other threads. Calls `done` with
/// `i`, what `work(i)` returned (or, when its process died, how it ended:
/// `signal 6 (Aborted)`) and the wall time it took, in the order of `i`,
/// as soon as `i` and everything before it have finished. An error from
/// `done` stops the run: nothing more starts, what is running is waited
/// for, and the error is returned.
pub(crate) fn each_forked<E>(
    n: usize,
    jobs: usize,
    work: impl Fn(usize) -> Vec<u8>,
    done: impl FnMut(usize, Result<Vec<u8>, String>, Duration) -> Result<(), E>,
) -> Result<(), E> {
    let budget = if jobs > 0 {
        crate::driver::jobs::Budget::requested(jobs)
    } else {
        crate::driver::jobs::Budget::take(n, crate::driver::jobs::cores)
    };
    let single_threaded = crate::msl::worker::threads().is_none_or(|t| t <= 1);
    let r = run(n, budget.cpus, single_threaded, work, done);
    drop(budget);
    r
}

/// [`each_forked`] on `jobs` CPUs, forking when `fork` is true.
fn run<E>(
    n: usize,
    jobs: usize,
    fork: bool,
    work: impl Fn(usize) -> Vec<u8>,
    mut done: impl FnMut(usize, Result<Vec<u8>, String>, Duration) -> Result<(), E>,
) -> Result<(), E> {
    let jobs = jobs.min(n).max(1);
    if !fork {
        for i in 0..n {
            let start = Instant::now();
            let out = work(i);
            done(i, Ok(out), start.elapsed())?;
        }
        return Ok(());
    }
    let mut results: Vec<Option<Finished>> = (0..n).map(|_| None).collect();
    let mut running: Vec<Child> = Vec::new();
    let (mut next, mut reported) = (0, 0);
    let mut stopped: Option<E> = None;
    while reported < n && (stopped.is_none() || !running.is_empty()) {
        while stopped.is_none() && running.len() < jobs && next < n {
            match Child::start(next, &work) {
                Ok(c) => running.push(c),
                Err(e) => {
                    results[next] = Some((
                        Err(format!("cannot start a process for it: {e}")),
                        Duration::ZERO,
                    ))
                }
            }
            next += 1;
        }
        if let Some(i) = wait_any(&mut running) {
            let child = running.swap_remove(i);
            let index = child.index;
            results[index] = Some(child.finish());
        }
        while stopped.is_none() && reported < n {
            let Some((r, took)) = results[reported].take() else {
                break;
            };
            if let Err(e) = done(reported, r, took) {
                stopped = Some(e);
            }
            reported += 1;
        }
    }
    stopped.map_or(Ok(()), Err)
}

/// A result as a child sends it: one tag byte, then UTF-8 text.
pub(crate) fn tagged(tag: u8, text: &str) -> Vec<u8> {
    let mut v = Vec::with_capacity(1 + text.len());
    v.push(tag);
    v.extend_from_slice(text.as_bytes());
    v
}

/// The tag and the text of [`tagged`] bytes; `None` for anything else.
pub(crate) fn untag(bytes: &[u8]) -> Option<(u8, String)> {
    let (&tag, rest) = bytes.split_first()?;
    Some((tag, String::from_utf8(rest.to_vec()).ok()?))
}

/// What a piece of work returned (or how its process ended), and its
/// wall time.
type Finished = (Result<Vec<u8>, String>, Duration);

/// A piece of work running in a forked child.
struct Child {
    index: usize,
    pid: libc::pid_t,
    /// The read end of the pipe the child writes its result into.
    pipe: std::fs::File,
    /// What it wrote so far.
    got: Vec<u8>,
    start: Instant,
}

impl Child {
    fn start(index: usize, work: &impl Fn(usize) -> Vec<u8>) -> io::Result<Child> {
        // Close-on-exec: what the child executes (glslc, clang, the Vulkan
        // reference) does not keep the pipe open after the child exits.
        let (r, w) = crate::msl::worker::cloexec_pipe()?;
        let start = Instant::now();
        // SAFETY: `each_forked` forks only in a single-threaded process, so
        // the child's copy of the address space is consistent: no lock is
        // held by a thread that does not exist in it. Tied to this process:
        // a test file stuck in a kernel does not outlive an interrupted
        // `halc test`.
        let pid = unsafe { runtime_loader::process::fork_tied() }?;
        if pid == 0 {
            drop(r);
            // Nothing may unwind into the parent's frames: catch, then exit
            // without running the parent's destructors or atexit handlers.
            let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let out = work(index);
                io::Write::write_all(&mut std::fs::File::from(w), &out).is_ok()
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
            start,
        })
    }

    /// Reads what the child has written; true at the pipe's end (the child
    /// has exited, or closed it).
    fn read(&mut self) -> bool {
        let mut buf = [0u8; 16 << 10];
        match io::Read::read(&mut self.pipe, &mut buf) {
            Ok(0) => true,
            Ok(n) => {
                self.got.extend_from_slice(&buf[..n]);
                false
            }
            Err(e) => e.kind() != io::ErrorKind::Interrupted,
        }
    }

    /// Waits for the child, whose pipe is at its end: what it wrote, if it
    /// exited normally.
    fn finish(self) -> Finished {
        let mut status = 0;
        loop {
            // SAFETY: waits for our own child; `status` is a valid
            // out-pointer for the call.
            let r = unsafe { libc::waitpid(self.pid, &mut status, 0) };
            if r == self.pid || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break;
            }
        }
        let took = self.start.elapsed();
        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            (Ok(self.got), took)
        } else {
            (Err(describe(status)), took)
        }
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

/// A wait status in words: `signal 6 (Aborted)`, `exit status 1`.
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

    /// The results come in order whatever order the children end in, each
    /// child's bytes whole (more than a pipe holds), a child that dies is
    /// reported with its signal, and `-j 1` gives the same. (The test
    /// harness runs threads, so `each_forked` itself would not fork here;
    /// the children only sleep and allocate, which glibc keeps sound across
    /// a fork. The CLI's tests fork through `each_forked`.)
    #[test]
    fn results_come_in_order_and_a_dead_child_is_named() {
        let work = |i: usize| {
            if i == 2 {
                // SAFETY: ends this forked child as a crash would.
                unsafe { libc::raise(libc::SIGABRT) };
            }
            // The first ends last.
            std::thread::sleep(Duration::from_millis(if i == 0 { 300 } else { 10 }));
            vec![i as u8; 100_000 + i]
        };
        for jobs in [1, 3] {
            let mut seen = Vec::new();
            run(5, jobs, true, work, |i, r, _| {
                seen.push((i, r.map(|b| (b.len(), b.iter().all(|&x| x == i as u8)))));
                Ok::<_, ()>(())
            })
            .unwrap();
            assert_eq!(
                seen,
                [
                    (0, Ok((100_000, true))),
                    (1, Ok((100_001, true))),
                    (2, Err("signal 6 (Aborted)".to_string())),
                    (3, Ok((100_003, true))),
                    (4, Ok((100_004, true))),
                ],
                "-j {jobs}"
            );
        }
    }

    /// A child whose parent is killed dies with it (`fork_tied`):
    /// here the parent is a forked process that starts a child stuck in its
    /// work, waits until that work runs, sends its pid and exits.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_dies_with_its_parent() {
        let (r, w) = crate::msl::worker::cloexec_pipe().unwrap();
        // SAFETY: the forked process only forks (as `run` does), writes to
        // a pipe and leaves with `_exit`.
        let parent = unsafe { libc::fork() };
        assert!(parent >= 0);
        if parent == 0 {
            // The child says when it runs its work, past its check that
            // the parent is still there (which a parent gone first fails).
            let (running_r, running_w) = crate::msl::worker::cloexec_pipe().unwrap();
            let running_w = std::fs::File::from(running_w);
            let child = Child::start(0, &|_| {
                let _ = std::io::Write::write_all(&mut &running_w, b"!");
                loop {
                    std::thread::sleep(Duration::from_secs(1));
                }
            });
            // Only the child holds the pipe now: should it not start, the
            // read below ends instead of waiting forever.
            drop(running_w);
            let mut byte = [0u8];
            let _ = std::io::Read::read_exact(&mut std::fs::File::from(running_r), &mut byte);
            let pid = child.map_or(0, |c| c.pid);
            let mut w = std::fs::File::from(w);
            let _ = std::io::Write::write_all(&mut w, &pid.to_le_bytes());
            // SAFETY: ends the forked process, as a killed parent would.
            unsafe { libc::_exit(0) }
        }
        drop(w);
        let mut pid = [0u8; 4];
        std::io::Read::read_exact(&mut std::fs::File::from(r), &mut pid).unwrap();
        let pid = libc::pid_t::from_le_bytes(pid);
        assert!(pid > 0);
        // SAFETY: waits for the process forked above.
        unsafe { libc::waitpid(parent, std::ptr::null_mut(), 0) };
        // Gone, or a zombie for whoever adopted it to reap.
        let alive = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .is_some_and(|t| !t.trim_start().starts_with('Z'))
            })
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let outlived = alive();
        if outlived {
            // SAFETY: kill(2) of the child this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        assert!(!outlived, "the child outlived its parent");
    }

    /// An error from `done` stops the run: nothing after it is reported
    /// and the error comes back.
    #[test]
    fn an_error_from_done_stops_the_run() {
        let mut seen = Vec::new();
        let r = run(
            6,
            2,
            true,
            |i| vec![i as u8],
            |i, _, _| {
                seen.push(i);
                if i == 1 {
                    Err("stop")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err("stop"));
        assert_eq!(seen, [0, 1]);
    }

    /// In a process running other threads (this test harness) nothing is
    /// forked: each piece runs here, in order.
    #[test]
    fn with_threads_running_nothing_is_forked() {
        let me = std::process::id();
        // A second thread, whatever the harness runs.
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let other = std::thread::spawn(move || rx.recv());
        let mut seen = Vec::new();
        each_forked(
            3,
            2,
            |i| {
                assert_eq!(std::process::id(), me);
                vec![i as u8]
            },
            |i, r, _| {
                seen.push((i, r));
                Ok::<_, ()>(())
            },
        )
        .unwrap();
        assert_eq!(seen, [(0, Ok(vec![0])), (1, Ok(vec![1])), (2, Ok(vec![2]))]);
        drop(tx);
        let _ = other.join();
    }

    #[test]
    fn tagged_text_comes_back_and_damage_is_refused() {
        assert_eq!(
            untag(&tagged(b'F', "a:3: x\n  y")),
            Some((b'F', "a:3: x\n  y".into()))
        );
        assert_eq!(untag(&tagged(b'P', "")), Some((b'P', String::new())));
        assert_eq!(untag(b""), None);
        assert_eq!(untag(b"F\xff"), None);
    }

    #[test]
    fn a_wait_status_is_described() {
        // A process killed by SIGKILL (9), one that exited with 3.
        assert!(describe(9).starts_with("signal 9"), "{}", describe(9));
        assert_eq!(describe(3 << 8), "exit status 3");
    }
}
