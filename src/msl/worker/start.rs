//! Starting a worker: `halc __msl-worker` executed ([`Worker::spawn`]), or
//! a fork of this process ([`Worker::fork`], only while it runs a single
//! thread: [`threads`]), with a second fork to validate beside it
//! ([`Worker::fork_with_validator`]).

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[cfg(unix)]
use super::allocator::{use_cxx_allocator, CxxAllocator};
use super::error::WorkerError;
use super::handle::Worker;
#[cfg(unix)]
use super::pipes::widen_request_pipe;
#[cfg(unix)]
use super::pipes::{close_from, pipe};
use super::process::Process;
#[cfg(unix)]
use super::process::{reap, EXITING};
#[cfg(unix)]
use super::serve::serve;
use super::serve::WORKER_ARG;

impl Worker {
    /// Starts `program __msl-worker`; each request may take `time_limit`.
    pub fn spawn(program: &Path, time_limit: Duration) -> Result<Worker, WorkerError> {
        let mut command = Command::new(program);
        command
            .arg(WORKER_ARG)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::process::CommandExt;
            let parent = std::process::id() as libc::pid_t;
            // SAFETY: `die_with_parent` makes only async-signal-safe calls.
            unsafe {
                command.pre_exec(move || {
                    runtime_loader::process::die_with_parent(parent);
                    Ok(())
                });
            }
        }
        let mut child = command
            .spawn()
            .map_err(|e| WorkerError::Io(format!("{}: {e}", program.display())))?;
        #[cfg(unix)]
        let request_pipe = child.stdin.as_ref().map_or(0, |w| {
            widen_request_pipe(std::os::fd::AsRawFd::as_raw_fd(w))
        });
        #[cfg(not(unix))]
        let request_pipe = 0;
        let stdin = child
            .stdin
            .take()
            .map(|w| BufWriter::new(Box::new(w) as Box<dyn Write + Send>));
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| WorkerError::Io("no stdout".into()))?;
        #[cfg(unix)]
        let reply_fd = std::os::fd::AsRawFd::as_raw_fd(&stdout);
        let stdout = BufReader::new(Box::new(stdout) as Box<dyn Read + Send>);
        Ok(Worker::started(
            Process::Spawned(child),
            stdin,
            stdout,
            time_limit,
            request_pipe,
            #[cfg(unix)]
            reply_fd,
        ))
    }

    /// Starts a worker as a fork of this process, without `exec`: the child
    /// closes every descriptor but its two pipes (as its stdin and stdout)
    /// and stderr (`/dev/null`), runs [`serve`] and leaves with `_exit`.
    ///
    /// Only sound while this process has a single thread (a fork copies
    /// one thread; a lock another thread held would stay locked in the
    /// child): on Linux this is checked and refused otherwise. The driver
    /// forks every worker of a `compile` call before it starts its threads.
    #[cfg(unix)]
    pub fn fork(time_limit: Duration, allocator: CxxAllocator) -> Result<Worker, WorkerError> {
        ensure_single_threaded()?;
        // SAFETY: checked just above.
        unsafe { Worker::fork_single_threaded(time_limit, allocator) }
    }

    /// Two [`Worker::fork`]s as one worker that generates MSL while the
    /// other validates ([`Worker::with_validator`]). The validator is
    /// forked first: a module's MSL waits for its verdict, which is the
    /// longer of the two on small modules, so it starts setting up while
    /// the second fork is made. The thread count is read once.
    #[cfg(unix)]
    pub fn fork_with_validator(
        time_limit: Duration,
        allocator: CxxAllocator,
    ) -> Result<Worker, WorkerError> {
        ensure_single_threaded()?;
        // SAFETY: checked just above, and forking adds no thread.
        let validator = unsafe { Worker::fork_single_threaded(time_limit, allocator)? };
        // SAFETY: as above.
        let worker = unsafe { Worker::fork_single_threaded(time_limit, allocator)? };
        Ok(worker.with_validator(validator))
    }

    /// [`Worker::fork`] without its check.
    ///
    /// # Safety
    /// The process must have a single thread.
    #[cfg(unix)]
    unsafe fn fork_single_threaded(
        time_limit: Duration,
        allocator: CxxAllocator,
    ) -> Result<Worker, WorkerError> {
        use std::os::fd::{FromRawFd, OwnedFd};
        let (req_r, req_w) = pipe()?;
        let (rep_r, rep_w) = pipe()?;
        let request_pipe = widen_request_pipe(req_w.as_raw());
        // SAFETY: the process is single-threaded (the caller's contract,
        // checked by `ensure_single_threaded` on Linux), so the child's copy
        // of the address space is consistent: no lock is held by a thread
        // that does not exist in it.
        let pid = unsafe { runtime_loader::process::fork_tied() }
            .map_err(|e| WorkerError::Io(format!("fork: {e}")))?;
        if pid == 0 {
            // The child. SAFETY: plain descriptor calls on descriptors this
            // process owns; after `close_from(3)` nothing else refers to the
            // closed ones (the parent's `OwnedFd`s live in the parent).
            unsafe {
                libc::dup2(req_r.as_raw(), 0);
                libc::dup2(rep_w.as_raw(), 1);
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
                if null >= 0 {
                    libc::dup2(null, 2);
                }
                close_from(3);
            }
            // SAFETY: the child of a single-threaded process has one thread,
            // and nothing has run in it yet.
            unsafe { use_cxx_allocator(allocator) };
            // Nothing may unwind into the parent's frames: catch, then exit
            // without running the parent's destructors or atexit handlers.
            let ok = std::panic::catch_unwind(|| {
                // SAFETY: 0 and 1 are the pipes dup'ed above, owned from
                // here on by these `File`s alone.
                let (input, output) =
                    unsafe { (std::fs::File::from_raw_fd(0), std::fs::File::from_raw_fd(1)) };
                serve(input, output).is_ok()
            })
            .unwrap_or(false);
            // SAFETY: ends the child immediately, as a forked child must.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) }
        }
        drop((req_r, rep_w));
        let reply_fd = rep_r.as_raw();
        let stdin: Box<dyn Write + Send> = Box::new(std::fs::File::from(OwnedFd::from(req_w)));
        let stdout: Box<dyn Read + Send> = Box::new(std::fs::File::from(OwnedFd::from(rep_r)));
        Ok(Worker::started(
            Process::Forked { pid, status: None },
            Some(BufWriter::new(stdin)),
            BufReader::new(stdout),
            time_limit,
            request_pipe,
            reply_fd,
        ))
    }
}

/// Refuses to fork unless this process runs a single thread (checked on
/// Linux; the caller's contract elsewhere), after reaping the forked
/// workers that have exited.
#[cfg(unix)]
fn ensure_single_threaded() -> Result<(), WorkerError> {
    EXITING
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|pid| !reap(*pid, false));
    // Threads joined a moment ago (the jobs of an earlier `compile`) stay
    // listed until the kernel finishes their exit: give them a moment before
    // refusing.
    let deadline = std::time::Instant::now() + Duration::from_millis(200);
    let mut running = threads();
    while running.is_some_and(|n| n > 1) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
        running = threads();
    }
    if let Some(n) = running.filter(|n| *n > 1) {
        return Err(WorkerError::Io(format!(
            "cannot fork a worker: this process runs {n} threads (fork is only sound in a single-threaded process); use Isolation::Subprocess"
        )));
    }
    Ok(())
}

/// The number of threads of this process, where the OS tells (Linux).
pub fn threads() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_dir("/proc/self/task").ok().map(|d| d.count())
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}
