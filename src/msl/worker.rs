//! Containment for the C++ that untrusted SPIR-V reaches: SPIRV-Tools'
//! validator and SPIRV-Cross run in a child process, so an abort, segfault or
//! stack overflow inside them becomes an ordinary error naming the entry
//! point and the signal, and a request that runs past the time limit is
//! killed (the validator's time grows steeply with structured nesting).
//!
//! One child per job serves every module and kernel that job compiles in a
//! `compile` call (requests and replies are length-prefixed JSON over its
//! stdin/stdout), so a batch pays one process start per job, not one per
//! kernel. The child is either a `fork` of the calling process without
//! `exec` ([`Worker::fork`], Unix: no second program start, and no `halc`
//! binary needed, so a build script has isolation too) or the `halc` binary
//! itself (`halc __msl-worker`, [`Worker::spawn`]); both run [`serve`].
//! Library users choose with [`crate::Isolation`].

use std::collections::VecDeque;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
#[cfg(not(unix))]
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(not(unix))]
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::compile::{generate_from, parse, CrossError, GeneratedMsl, MslOptions, Parsed};
use super::layout::KernelLayout;
use crate::spirv::{SpirvError, Words};

/// Largest message accepted over the pipe (the module plus its layout).
const MAX_MESSAGE: u32 = 256 << 20;

/// The hidden subcommand that runs [`serve`].
pub const WORKER_ARG: &str = "__msl-worker";

/// Environment variable that makes the worker crash on purpose: `abort`,
/// `segv` or `stack-overflow` (or hang: `hang`) before generating MSL, or
/// the same prefixed with `validate:` before validating. How the tests
/// prove the containment works, since validated input no longer crashes
/// SPIRV-Cross.
pub const CRASH_TEST_ENV: &str = "HALC_WORKER_CRASH_TEST";

/// Environment variable overriding which allocator a batch's forked workers
/// give SPIRV-Cross and SPIRV-Tools: `system` (glibc's malloc) or
/// `mimalloc` ([`CxxAllocator::for_batch`]).
pub const ALLOCATOR_ENV: &str = "HALC_WORKER_ALLOCATOR";

/// Environment variable overriding whether each job of a `compile` call
/// with forked workers validates in a worker of its own, beside the one
/// running SPIRV-Cross (`separate`), or in that one, before it
/// (`shared`): [`separate_validators`].
pub const VALIDATOR_ENV: &str = "HALC_WORKER_VALIDATOR";

/// Whether each of `jobs` jobs gets a second worker for the validator
/// ([`Worker::with_validator`]), so that validating a module and running
/// SPIRV-Cross on it overlap: when the cores free for this call (`cores`,
/// asked only if [`VALIDATOR_ENV`] does not decide) hold two per job: one
/// module, and a second core nobody else is using. Not when the jobs fill
/// the cores already, as a batch does, nor when other programs do, as in a
/// build running one halc per kernel on every core: a second worker per job
/// would then only add its start and take a core another process needs.
/// [`VALIDATOR_ENV`] overrides either way.
pub fn separate_validators(jobs: usize, cores: impl FnOnce() -> usize) -> Result<bool, String> {
    match std::env::var(VALIDATOR_ENV).as_deref() {
        Ok("separate") => Ok(true),
        Ok("shared") => Ok(false),
        Ok(other) => Err(format!(
            "{VALIDATOR_ENV} must be `separate` or `shared`, not `{other}`"
        )),
        Err(_) => Ok(jobs.saturating_mul(2) <= cores()),
    }
}

/// The allocator behind C++'s `new` and `delete` in a forked worker, where
/// SPIRV-Cross and SPIRV-Tools allocate (glibc's malloc and free took a
/// fifth of a batch's cycles). `src/msl/worker_alloc.cpp` replaces those
/// operators in every program linking halc on Linux; they stay glibc's
/// until a worker switches, once, before its first request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CxxAllocator {
    /// glibc's malloc, as everywhere else.
    System,
    /// mimalloc 2 (Linux): faster for SPIRV-Cross's many short strings and
    /// vectors, but its first allocation of each size takes a fresh page,
    /// about 0.2 ms in a cold process, so it only pays in a worker that
    /// compiles several modules.
    Mimalloc,
}

impl CxxAllocator {
    /// Which allocator the forked workers of a `compile` call of `inputs`
    /// modules on `jobs` jobs use: mimalloc on Linux when some worker will
    /// compile more than one module, glibc's otherwise; [`ALLOCATOR_ENV`]
    /// (`system` or `mimalloc`) overrides either way.
    pub fn for_batch(inputs: usize, jobs: usize) -> Result<CxxAllocator, String> {
        match std::env::var(ALLOCATOR_ENV).as_deref() {
            Ok("system") => return Ok(CxxAllocator::System),
            Ok("mimalloc") if cfg!(target_os = "linux") => return Ok(CxxAllocator::Mimalloc),
            Ok("mimalloc") => {
                return Err(format!(
                    "{ALLOCATOR_ENV}=mimalloc: the workers' mimalloc is built on Linux only"
                ))
            }
            Ok(other) => {
                return Err(format!(
                    "{ALLOCATOR_ENV} must be `system` or `mimalloc`, not `{other}`"
                ))
            }
            Err(_) => {}
        }
        Ok(if cfg!(target_os = "linux") && inputs > jobs {
            CxxAllocator::Mimalloc
        } else {
            CxxAllocator::System
        })
    }

    /// Its name in `--timings`.
    pub fn name(self) -> &'static str {
        match self {
            CxxAllocator::System => "glibc malloc",
            CxxAllocator::Mimalloc => "mimalloc",
        }
    }
}

/// `src/msl/worker_alloc.cpp`.
#[cfg(target_os = "linux")]
pub(crate) mod cxx_alloc {
    // Links mimalloc, which the C++ side calls.
    use libmimalloc_sys as _;

    extern "C" {
        /// Makes C++'s `new` allocate from mimalloc in this process from now
        /// on. Only sound while the process has a single thread.
        pub fn halc_worker_use_mimalloc();
    }

    #[cfg(test)]
    extern "C" {
        /// Whether `halc_worker_use_mimalloc` was called.
        pub fn halc_worker_uses_mimalloc() -> bool;
        /// `::operator new(size)`.
        pub fn halc_worker_cxx_new(size: usize) -> *mut u8;
        /// `::operator delete(p)`.
        pub fn halc_worker_cxx_delete(p: *mut u8);
        /// Whether mimalloc owns `p`.
        pub fn halc_worker_mimalloc_owns(p: *const u8) -> bool;
        /// Whether mimalloc has been initialised in this process.
        pub fn halc_worker_mimalloc_started() -> bool;
    }
}

/// Switches this process's C++ allocations to `allocator`; a no-op for
/// [`CxxAllocator::System`].
///
/// # Safety
/// Only while this process runs a single thread, before any other thread
/// could allocate: the switch is a plain flag.
unsafe fn use_cxx_allocator(allocator: CxxAllocator) {
    match allocator {
        CxxAllocator::System => {}
        #[cfg(target_os = "linux")]
        CxxAllocator::Mimalloc => {
            // SAFETY: single-threaded, per this function's contract.
            unsafe { cxx_alloc::halc_worker_use_mimalloc() }
        }
        #[cfg(not(target_os = "linux"))]
        CxxAllocator::Mimalloc => {}
    }
}

/// A request: a small JSON header, and the module's words as the raw
/// payload of `Validate` (encoding them as JSON numbers cost more than the
/// pipe).
#[derive(Serialize, Deserialize)]
enum Request {
    /// Run SPIRV-Tools' validator on the payload; a valid module stays in
    /// the worker for the `Generate` requests that follow, so it crosses the
    /// pipe once, and SPIRV-Cross parses it as soon as the verdict is sent.
    /// The worker answers requests in order, so SPIRV-Cross only ever sees a
    /// module the validator accepted.
    Validate,
    /// Hold the payload as the module the `Generate` requests that follow
    /// are for, without validating it, and let SPIRV-Cross parse it at once
    /// (while the parent reflects it and lays its first kernel out): another
    /// worker validates it at the same time ([`Worker::with_validator`]),
    /// and the parent reads this worker's MSL only once that one found the
    /// module valid. No reply.
    Load,
    /// Generate MSL for one entry point of the module validated or loaded
    /// last.
    Generate {
        entry: String,
        layout: KernelLayout,
        options: MslOptions,
    },
}

/// A reply; `Generated` carries the MSL source as the raw payload.
#[derive(Serialize, Deserialize)]
enum Reply {
    Valid,
    Invalid(String),
    Generated { function_name: String },
    Err(String),
}

/// Writes `[u32 header length][JSON header][u32 payload length][payload]`;
/// the bytes written.
fn write_msg<T: Serialize>(w: &mut impl Write, msg: &T, payload: &[u8]) -> io::Result<usize> {
    let bytes = serde_json::to_vec(msg).map_err(io::Error::other)?;
    let payload_len = u32::try_from(payload.len())
        .ok()
        .filter(|n| *n <= MAX_MESSAGE)
        .ok_or_else(|| io::Error::other(format!("payload of {} bytes", payload.len())))?;
    w.write_all(&(bytes.len() as u32).to_le_bytes())?;
    w.write_all(&bytes)?;
    w.write_all(&payload_len.to_le_bytes())?;
    w.write_all(payload)?;
    w.flush()?;
    Ok(8 + bytes.len() + payload.len())
}

fn read_len(r: &mut impl Read) -> io::Result<usize> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len);
    if len > MAX_MESSAGE {
        return Err(io::Error::other(format!("message of {len} bytes")));
    }
    Ok(len as usize)
}

/// Reads one message: `None` at the end of the input.
fn read_msg<T: for<'de> Deserialize<'de>>(r: &mut impl Read) -> io::Result<Option<(T, Vec<u8>)>> {
    let len = match read_len(r) {
        Ok(len) => len,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)?;
    let header = serde_json::from_slice(&buf).map_err(io::Error::other)?;
    let mut payload = vec![0u8; read_len(r)?];
    r.read_exact(&mut payload)?;
    Ok(Some((header, payload)))
}

/// The worker loop: answers requests, in order, until its input closes.
///
/// The parent sends a module to validate and, without waiting for the
/// verdict, reflects it and asks for its first kernel's MSL: the validator
/// runs while the parent reflects, and the `Generate` request waits in the
/// pipe. SPIRV-Cross runs only on a module the validator accepted, or, in
/// a worker given its modules with `Load`, beside a second worker that
/// validates them: the parent then reads its MSL only for modules that one
/// accepted ([`Worker::with_validator`]).
pub fn serve(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut input = BufReader::new(input);
    let mut output = BufWriter::new(output);
    let crash_test = std::env::var(CRASH_TEST_ENV).ok();
    // SPIRV-Cross starts on a module it is given (the injected failure
    // strikes there): it parses it for the first entry point's `Generate`
    // while the parent lays that kernel out. The parse's time counts with
    // that entry point's.
    let start_cross = |words: &Words| {
        if let Some(how) = crash_test
            .as_deref()
            .filter(|h| !h.starts_with("validate:"))
        {
            crash_for_test(how);
        }
        let start = std::time::Instant::now();
        (parse(words), start.elapsed())
    };
    let mut module: Option<Words> = None;
    let mut parsed: Option<(Result<Parsed, CrossError>, Duration)> = None;
    while let Some((req, payload)) = read_msg::<Request>(&mut input)? {
        match req {
            Request::Validate => {
                // The parse of the module before is dropped once the verdict
                // on this one is sent.
                module = None;
                let (reply, work) = match words_of(&payload) {
                    Ok(words) => {
                        let crash_test = crash_test
                            .as_deref()
                            .and_then(|h| h.strip_prefix("validate:"));
                        let (reply, work) = validate_reply(&words, crash_test);
                        if matches!(reply, Reply::Valid) {
                            module = Some(words);
                        }
                        (reply, work)
                    }
                    Err(e) => (Reply::Err(e.to_string()), Duration::ZERO),
                };
                send(&mut output, &reply, work, &[])?;
                parsed = module.as_ref().map(start_cross);
            }
            Request::Load => {
                module = words_of(&payload).ok();
                parsed = module.as_ref().map(start_cross);
            }
            Request::Generate {
                entry,
                layout,
                options,
            } => {
                let start = std::time::Instant::now();
                // The module's parse made ahead, or (for a later entry point:
                // SPIRV-Cross's compile changes what it parsed) a new one.
                let (parse_result, parse_time) = match (parsed.take(), &module) {
                    (Some(p), _) => p,
                    (None, Some(words)) => start_cross(words),
                    (None, None) => (
                        Err(CrossError("no valid module in the worker".into())),
                        Duration::ZERO,
                    ),
                };
                let start = start.checked_sub(parse_time).unwrap_or(start);
                let (reply, source, spent) =
                    match parse_result.and_then(|p| generate_from(p, &entry, &layout, &options)) {
                        Ok((
                            GeneratedMsl {
                                source,
                                function_name,
                            },
                            spent,
                        )) => (Reply::Generated { function_name }, source, Some(spent)),
                        Err(e) => (Reply::Err(e.0), String::new(), None),
                    };
                send(&mut output, &reply, start.elapsed(), source.as_bytes())?;
                // Freed once the MSL is on its way.
                drop(spent);
            }
        }
    }
    Ok(())
}

/// A request's payload as a module.
fn words_of(payload: &[u8]) -> Result<Words, SpirvError> {
    Words::from_words(
        payload
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// Runs the validator (after the injected crash, if any): the verdict and
/// the time it took.
fn validate_reply(words: &Words, crash_test: Option<&str>) -> (Reply, Duration) {
    if let Some(how) = crash_test {
        crash_for_test(how);
    }
    let start = std::time::Instant::now();
    // The verdict must be sent whatever happens.
    let result = std::panic::catch_unwind(|| crate::spirv::validate::spirv_tools(words));
    let reply = match result {
        Ok(Ok(())) => Reply::Valid,
        Ok(Err(SpirvError::Validation(m))) => Reply::Invalid(m),
        Ok(Err(e)) => Reply::Err(e.to_string()),
        Err(_) => Reply::Err("the validator's wrapper failed".into()),
    };
    (reply, start.elapsed())
}

/// Writes one reply with the time its work took.
fn send(output: &mut impl Write, reply: &Reply, work: Duration, payload: &[u8]) -> io::Result<()> {
    let nanos = u64::try_from(work.as_nanos()).unwrap_or(u64::MAX);
    write_msg(output, &(reply, nanos), payload).map(|_| ())
}

/// The failure [`CRASH_TEST_ENV`] asks for, injected in this process before
/// validating (`validate`) or generating MSL: how the tests prove that
/// [`crate::Isolation::Guarded`] contains it as a worker would.
pub(crate) fn crash_for_test_before(validate: bool) {
    let Some(how) = std::env::var_os(CRASH_TEST_ENV) else {
        return;
    };
    let how = how.to_string_lossy();
    match (validate, how.strip_prefix("validate:")) {
        (true, Some(how)) => crash_for_test(how),
        (false, None) => crash_for_test(&how),
        _ => {}
    }
}

fn crash_for_test(how: &str) {
    match how {
        "abort" => std::process::abort(),
        // Never answers: the time limit, or the parent, ends it.
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(1));
        },
        "segv" => {
            // SAFETY: deliberately not sound: a null write to raise SIGSEGV
            // in the worker, only when the crash-test variable is set.
            unsafe { std::ptr::null_mut::<u32>().write_volatile(1) }
        }
        "stack-overflow" => {
            fn recurse(n: u64) -> u64 {
                if n == u64::MAX {
                    return 0;
                }
                let buf = [n; 64];
                std::hint::black_box(&buf);
                recurse(n + 1) + buf[0]
            }
            std::hint::black_box(recurse(0));
        }
        _ => {}
    }
}

/// The worker's process.
enum Process {
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
    fn kill(&mut self) {
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

    fn wait(&mut self) -> io::Result<ExitStatus> {
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

/// A running worker.
pub struct Worker {
    /// Shared with the watchdog thread that kills it after the time limit.
    child: Arc<Mutex<Process>>,
    stdin: Option<BufWriter<Box<dyn Write + Send>>>,
    stdout: BufReader<Box<dyn Read + Send>>,
    time_limit: Duration,
    /// Time the last request spent in the C++ (measured by the child).
    last_work: Duration,
    /// Time the last read waited for its reply.
    last_wait: Duration,
    /// The replies the worker owes, in the order they come.
    owed: VecDeque<Owed>,
    /// When the last reply was read: the worker was busy with earlier
    /// requests until then at the latest, so a request's time limit counts
    /// from its sending or from then, whichever is later.
    last_reply: std::time::Instant,
    /// Bytes the request pipe holds (0 where unknown): what may be written
    /// while the worker computes and nobody reads its replies.
    request_pipe: usize,
    /// The descriptor replies arrive on, polled against the time limit.
    #[cfg(unix)]
    reply_fd: libc::c_int,
    /// A second worker that validates the modules while this one generates
    /// their MSL ([`Worker::with_validator`]).
    validator: Option<Box<Worker>>,
}

/// Names the validator in errors.
pub(crate) const VALIDATOR: &str = "the SPIR-V validator (SPIRV-Tools)";

/// A reply a worker owes: to the request of `bytes` bytes sent at `sent`.
#[derive(Clone, Copy)]
struct Owed {
    what: Owes,
    sent: std::time::Instant,
    bytes: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Owes {
    /// The validator's verdict on a module.
    Verdict,
    /// One entry point's MSL.
    Generated,
}

/// Why a worker request failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// SPIRV-Cross reported an error.
    #[error("SPIRV-Cross: {0}")]
    Cross(String),
    /// The worker died.
    #[error("{0} crashed ({1}); the module was not compiled")]
    Crashed(&'static str, String),
    /// A request ran past the time limit; the worker was killed.
    #[error("{0} did not finish within the time limit of {1} s; the module was not compiled")]
    TimedOut(&'static str, u64),
    /// The worker could not be started or talked to.
    #[error("cannot run the SPIRV-Cross worker process: {0}")]
    Io(String),
}

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

    /// A worker whose process has just started, owing no reply.
    fn started(
        process: Process,
        stdin: Option<BufWriter<Box<dyn Write + Send>>>,
        stdout: BufReader<Box<dyn Read + Send>>,
        time_limit: Duration,
        request_pipe: usize,
        #[cfg(unix)] reply_fd: libc::c_int,
    ) -> Worker {
        Worker {
            child: Arc::new(Mutex::new(process)),
            stdin,
            stdout,
            time_limit,
            last_work: Duration::ZERO,
            last_wait: Duration::ZERO,
            owed: VecDeque::new(),
            last_reply: std::time::Instant::now(),
            request_pipe,
            #[cfg(unix)]
            reply_fd,
            validator: None,
        }
    }

    /// This worker, generating MSL for each module while `validator`
    /// validates it, on another core: a module's MSL then waits for
    /// SPIRV-Cross alone, not for the validator and then SPIRV-Cross.
    ///
    /// SPIRV-Cross then sees modules before they are known to be valid, in
    /// its own process: [`Worker::verdict`] reads `validator`'s answer, and
    /// on a module found invalid (or a validator that failed) kills this
    /// worker, which may be crashing or looping on it, so its MSL is never
    /// read. Errors come in the order a single worker gives them: the
    /// verdict before anything SPIRV-Cross did.
    pub fn with_validator(mut self, validator: Worker) -> Worker {
        self.validator = Some(Box::new(validator));
        self
    }

    /// Whether a second worker validates this one's modules.
    pub fn has_validator(&self) -> bool {
        self.validator.is_some()
    }

    /// Kills the worker: it owes nothing more and takes no more requests.
    fn kill(&mut self) {
        self.child.lock().unwrap_or_else(|p| p.into_inner()).kill();
        self.owed.clear();
        self.stdin = None;
    }

    /// Sends `words` to the worker, whose validator starts at once (or
    /// once the worker is done with the requests before it);
    /// [`Worker::verdict`] waits for its answer, and meanwhile the caller may
    /// reflect the module and send its [`Worker::send_generate`] requests
    /// (which the worker takes up after the verdict, on a valid module only).
    pub fn start_validation(&mut self, words: &Words) -> Result<(), WorkerError> {
        let payload: Vec<u8> = words
            .as_slice()
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        self.start_validation_of(&payload)
    }

    /// [`Worker::start_validation`] of a module's bytes.
    fn start_validation_of(&mut self, payload: &[u8]) -> Result<(), WorkerError> {
        let sent = std::time::Instant::now();
        let bytes = match self.validator.as_mut() {
            // Killed (after a module that was not valid) or found dead.
            Some(_) if self.stdin.is_none() => {
                return Err(WorkerError::Io(
                    "the worker has stopped; start another".into(),
                ))
            }
            Some(validator) => {
                validator.start_validation_of(payload)?;
                // The MSL of the module before may still be owed: a
                // generator found dead here has died on that module, which
                // the read of its reply reports.
                self.send(&Request::Load, payload).unwrap_or(0)
            }
            None => self
                .send(&Request::Validate, payload)
                .map_err(|()| WorkerError::Crashed(VALIDATOR, self.death()))?,
        };
        // With a validator, the verdict is that worker's: this entry keeps
        // its place among the replies owed, and the bytes `Load` left in
        // this worker's pipe.
        self.owed.push_back(Owed {
            what: Owes::Verdict,
            sent,
            bytes,
        });
        Ok(())
    }

    /// Whether `words` can be sent for validation now without the write
    /// waiting for the worker: the pipe has room for the module beside every
    /// request still unanswered. A caller that sends the next module before
    /// it reads the MSL the worker is writing (whose reply may fill the
    /// other pipe) must ask first, or both processes could wait on each
    /// other.
    pub fn has_room_for(&self, words: &Words) -> bool {
        // A message is at most three writes (`write_msg` through the
        // `BufWriter`), each of which may start a new page of the pipe, and
        // its last page may be partly filled: four pages more than its bytes.
        const SLACK: usize = 4 * 4096;
        let unread: usize = self.owed.iter().map(|o| o.bytes + SLACK).sum();
        let needed = unread + 64 + 4 * words.as_slice().len() + SLACK;
        needed <= self.request_pipe
            && self
                .validator
                .as_ref()
                .is_none_or(|v| v.has_room_for(words))
    }

    /// The validator's answer on the module sent first among those still
    /// owed: `Ok(Err(_))` is an invalid module (the worker's answers to the
    /// `Generate` requests already sent for it, refusals, are read and
    /// dropped), `Err(_)` a crash or time-out of the validator. With a
    /// validating worker ([`Worker::with_validator`]) the answer is that
    /// worker's, and unless the module is valid this one is killed.
    pub fn verdict(&mut self) -> Result<Result<(), SpirvError>, WorkerError> {
        let sent = match self.owed.front() {
            Some(o) if o.what == Owes::Verdict => o.sent,
            _ => return Err(WorkerError::Io("no module is being validated".into())),
        };
        let marker = self.owed.pop_front();
        if let Some(validator) = self.validator.as_mut() {
            // The verdict says nothing of this worker's pipe: its `Load` is
            // known read only once a reply to a later request comes, so its
            // bytes count with the next request owed (`has_room_for`).
            if let (Some(marker), Some(next)) = (marker, self.owed.front_mut()) {
                next.bytes += marker.bytes;
            }
            let verdict = validator.verdict();
            self.last_work = validator.last_work;
            self.last_wait = validator.last_wait;
            if !matches!(verdict, Ok(Ok(()))) {
                // This worker may be crashing or looping on a module that is
                // not valid (or not known to be): nothing it says is read.
                self.kill();
            }
            return verdict;
        }
        let received = self.receive(VALIDATOR, sent);
        let reply = match received? {
            (Reply::Valid, _) => Ok(()),
            (Reply::Invalid(m), _) => Err(SpirvError::Validation(m)),
            (Reply::Err(m), _) => Err(SpirvError::Parse(m)),
            (Reply::Generated { .. }, _) => return Err(WorkerError::Io("unexpected reply".into())),
        };
        if reply.is_err() {
            // The worker refuses to generate for a module it holds as
            // invalid: drop those answers (a worker that died meanwhile is
            // found dead by the next request).
            while let Some(o) = self.owed.front().copied() {
                if o.what != Owes::Generated {
                    break;
                }
                self.owed.pop_front();
                if self.receive("SPIRV-Cross", o.sent).is_err() {
                    break;
                }
            }
        }
        Ok(reply)
    }

    /// Asks the worker for the MSL of `entry` in the module sent last. While
    /// that module's verdict is owed the request waits in the pipe for it;
    /// read the verdict ([`Worker::verdict`]) before [`Worker::generated`].
    pub fn send_generate(&mut self, entry: &str, layout: &KernelLayout, options: &MslOptions) {
        let req = Request::Generate {
            entry: entry.to_string(),
            layout: layout.clone(),
            options: *options,
        };
        let sent = std::time::Instant::now();
        // A worker that died here still owes its verdict (or its crash):
        // the reads that follow find out which.
        let bytes = self.send(&req, &[]).unwrap_or(0);
        self.owed.push_back(Owed {
            what: Owes::Generated,
            sent,
            bytes,
        });
    }

    /// The MSL asked for first among those still owed
    /// ([`Worker::send_generate`]).
    pub fn generated(&mut self) -> Result<GeneratedMsl, WorkerError> {
        if self.owed.front().is_some_and(|o| o.what == Owes::Verdict) {
            self.verdict()?
                .map_err(|e| WorkerError::Io(format!("the module is not valid: {e}")))?;
        }
        let sent = match self.owed.front() {
            Some(o) if o.what == Owes::Generated => o.sent,
            _ => return Err(WorkerError::Io("no MSL was asked for".into())),
        };
        self.owed.pop_front();
        match self.receive("SPIRV-Cross", sent)? {
            (Reply::Generated { function_name }, source) => Ok(GeneratedMsl {
                source: String::from_utf8(source)
                    .map_err(|_| WorkerError::Io("MSL that is not UTF-8".into()))?,
                function_name,
            }),
            (Reply::Err(e), _) => Err(WorkerError::Cross(e)),
            (Reply::Valid | Reply::Invalid(_), _) => {
                Err(WorkerError::Io("unexpected reply".into()))
            }
        }
    }

    /// Whether the worker can take more requests (it was not killed, and
    /// did not die).
    pub fn is_alive(&self) -> bool {
        self.stdin.is_some()
    }

    /// Time the last reply's work took in SPIRV-Tools or SPIRV-Cross, as
    /// the child measured it.
    pub fn last_work(&self) -> Duration {
        self.last_work
    }

    /// Time the last read waited for its reply.
    pub fn last_wait(&self) -> Duration {
        self.last_wait
    }

    /// Writes one request; its size in bytes, `Err(())` if the worker is
    /// gone.
    fn send(&mut self, req: &Request, payload: &[u8]) -> Result<usize, ()> {
        match self.stdin.as_mut() {
            Some(w) => write_msg(w, req, payload).map_err(|_| ()),
            None => Err(()),
        }
    }

    /// Reads the next reply, to the request sent at `sent`; `what` names
    /// the C++ that runs, for the error. The worker took the request up when
    /// it was sent or when the reply before it was read, whichever is later:
    /// the time limit counts from then. A worker that failed owes nothing
    /// more.
    fn receive(
        &mut self,
        what: &'static str,
        sent: std::time::Instant,
    ) -> Result<(Reply, Vec<u8>), WorkerError> {
        let deadline = sent.max(self.last_reply) + self.time_limit;
        let reply = self.receive_by(what, deadline);
        self.last_reply = std::time::Instant::now();
        if reply.is_err() {
            self.owed.clear();
        }
        reply
    }

    /// Reads the next reply, killing the child if it does not come by
    /// `deadline`.
    #[cfg(unix)]
    fn receive_by(
        &mut self,
        what: &'static str,
        deadline: std::time::Instant,
    ) -> Result<(Reply, Vec<u8>), WorkerError> {
        let waited = std::time::Instant::now();
        let reply = match self.await_reply(deadline) {
            Ok(true) => read_msg::<(Reply, u64)>(&mut self.stdout),
            Ok(false) => {
                self.child.lock().unwrap_or_else(|p| p.into_inner()).kill();
                let _ = self.death();
                return Err(WorkerError::TimedOut(what, self.time_limit.as_secs()));
            }
            Err(e) => Err(e),
        };
        self.last_wait = waited.elapsed();
        match reply {
            Ok(Some(((reply, nanos), payload))) => {
                self.last_work = Duration::from_nanos(nanos);
                Ok((reply, payload))
            }
            Ok(None) | Err(_) => Err(WorkerError::Crashed(what, self.death())),
        }
    }

    /// Waits until the reply starts (or the child is gone): `Ok(false)` when
    /// `deadline` passes first. The child computes before it writes, so the
    /// time limit is over the computation; no watchdog thread is needed.
    #[cfg(unix)]
    fn await_reply(&mut self, deadline: std::time::Instant) -> io::Result<bool> {
        if !self.stdout.buffer().is_empty() {
            return Ok(true);
        }
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let mut fd = libc::pollfd {
                fd: self.reply_fd,
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
            // SAFETY: one valid pollfd for the call's duration.
            match unsafe { libc::poll(&mut fd, 1, ms) } {
                // Readable, or hung up (the read then sees the end).
                n if n > 0 => return Ok(true),
                0 => continue,
                _ => {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
    }

    #[cfg(not(unix))]
    fn receive_by(
        &mut self,
        what: &'static str,
        deadline: std::time::Instant,
    ) -> Result<(Reply, Vec<u8>), WorkerError> {
        let (done, wait) = mpsc::channel::<()>();
        let killed = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let child = Arc::clone(&self.child);
            let killed = Arc::clone(&killed);
            let limit = deadline.saturating_duration_since(std::time::Instant::now());
            std::thread::spawn(move || {
                if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                    killed.store(true, Ordering::SeqCst);
                    let mut child = child.lock().unwrap_or_else(|p| p.into_inner());
                    child.kill();
                }
            })
        };
        let waited = std::time::Instant::now();
        let reply = read_msg::<(Reply, u64)>(&mut self.stdout);
        self.last_wait = waited.elapsed();
        let _ = done.send(());
        let _ = watchdog.join();
        match reply {
            // A reply that raced the watchdog still lost: the child is dead.
            Ok(Some(((reply, nanos), payload))) if !killed.load(Ordering::SeqCst) => {
                self.last_work = Duration::from_nanos(nanos);
                Ok((reply, payload))
            }
            Ok(_) | Err(_) => {
                let death = self.death();
                if killed.load(Ordering::SeqCst) {
                    Err(WorkerError::TimedOut(what, self.time_limit.as_secs()))
                } else {
                    Err(WorkerError::Crashed(what, death))
                }
            }
        }
    }

    /// How the child ended, after a failed exchange.
    fn death(&mut self) -> String {
        self.stdin = None;
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        match child.wait() {
            Ok(status) => describe(status),
            Err(e) => format!("lost: {e}"),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // A dropped worker computes for nobody: one with replies owed, one
        // that generates beside a validator (it may be looping on a module
        // found invalid), or one parsing a module it was given for MSL that
        // was never asked for (halc refused the module after its verdict).
        // An idle one is as well ended by the signal as by closing its input
        // (which ends the loop of one the signal missed). Then reap it.
        self.kill();
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        match &mut *child {
            // A fork exits on its own a moment later: waiting for it here
            // would hold the caller for its exit (0.3 to 0.5 ms) after its
            // work is done. It is reaped by the next fork, by
            // [`reap_workers`], or (a zombie meanwhile) with this process.
            #[cfg(unix)]
            Process::Forked { pid, status: None } => {
                if !reap(*pid, false) {
                    EXITING.lock().unwrap_or_else(|p| p.into_inner()).push(*pid);
                }
            }
            other => {
                let _ = other.wait();
            }
        }
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

/// Room for requests in the pipe to a worker: asks Linux for 256 KiB
/// (pages are taken as they fill; 1 MiB is an unprivileged process's limit)
/// and returns what the pipe holds, or 0 where that is unknown (no module
/// is then sent ahead, see [`Worker::has_room_for`]).
#[cfg(unix)]
fn widen_request_pipe(fd: libc::c_int) -> usize {
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

/// Forked workers dropped before they had exited, not yet reaped.
#[cfg(unix)]
static EXITING: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

/// Reaps `pid`, waiting for it when `block`; whether it is reaped.
#[cfg(unix)]
fn reap(pid: libc::pid_t, block: bool) -> bool {
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
pub fn reap_workers() {
    #[cfg(unix)]
    {
        let pids = std::mem::take(&mut *EXITING.lock().unwrap_or_else(|p| p.into_inner()));
        for pid in pids {
            reap(pid, true);
        }
    }
}

/// One end of a pipe, closed on drop and on `exec`.
#[cfg(unix)]
struct PipeEnd(std::os::fd::OwnedFd);

#[cfg(unix)]
impl PipeEnd {
    fn as_raw(&self) -> libc::c_int {
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
fn pipe() -> Result<(PipeEnd, PipeEnd), WorkerError> {
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
unsafe fn close_from(low: libc::c_int) {
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

fn describe(status: std::process::ExitStatus) -> String {
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::cxx_alloc::*;

    /// The switch is one-way and process-wide, so it is made in a child: the
    /// C++ allocation made before it stays glibc's and is freed by glibc,
    /// those made after it are mimalloc's and freed by mimalloc (glibc
    /// aborts on a pointer it does not own: "free(): invalid pointer").
    #[test]
    fn cxx_allocations_move_to_mimalloc_after_the_switch_and_each_is_freed_by_its_owner() {
        // This process never switches, so it never starts mimalloc: it has
        // no constructor (vendor/libmimalloc-sys, patch 0001).
        // SAFETY: plain calls into worker_alloc.cpp.
        unsafe {
            assert!(!halc_worker_mimalloc_started());
            assert!(!halc_worker_uses_mimalloc());
            let p = halc_worker_cxx_new(64);
            assert!(!p.is_null() && !halc_worker_mimalloc_owns(p));
            halc_worker_cxx_delete(p);
        }
        // SAFETY: the child only calls C++ allocation functions and exits
        // with `_exit`; glibc's malloc is usable after fork.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: as above; the child runs one thread.
            let failed = unsafe {
                let mut failed = 0;
                let before = halc_worker_cxx_new(48);
                failed |= i32::from(halc_worker_mimalloc_owns(before));
                failed |= i32::from(halc_worker_mimalloc_started()) << 4;
                super::use_cxx_allocator(super::CxxAllocator::Mimalloc);
                failed |= i32::from(!halc_worker_uses_mimalloc()) << 1;
                failed |= i32::from(!halc_worker_mimalloc_started()) << 5;
                let after = halc_worker_cxx_new(48);
                failed |= i32::from(!halc_worker_mimalloc_owns(after)) << 2;
                halc_worker_cxx_delete(before);
                halc_worker_cxx_delete(after);
                let mut kept = Vec::with_capacity(1000);
                for i in 0..1000 {
                    let p = halc_worker_cxx_new(8 + i * 24);
                    failed |= i32::from(!halc_worker_mimalloc_owns(p)) << 3;
                    kept.push(p);
                }
                for p in kept {
                    halc_worker_cxx_delete(p);
                }
                failed
            };
            // SAFETY: ends the child without the test harness's cleanup.
            unsafe { libc::_exit(failed) }
        }
        let mut status = 0;
        // SAFETY: waits for the child forked above.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(
            libc::WIFEXITED(status),
            "the child died (wait status {status:#x})"
        );
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "failed checks (bits: 1 glibc's block owned by mimalloc, 2 not switched, 4 and 8 a new block not mimalloc's, 16 mimalloc started before the switch, 32 not after it)"
        );
    }
}
