//! Containment for the C++ that untrusted SPIR-V reaches: SPIRV-Tools'
//! validator and SPIRV-Cross run in a child process, so an abort, segfault or
//! stack overflow inside them becomes an ordinary error naming the entry
//! point and the signal, and a request that runs past the time limit is
//! killed (the validator's time grows steeply with structured nesting).
//!
//! One child serves every module and kernel of a `compile` call (requests
//! and replies are length-prefixed JSON over its stdin/stdout), so a batch
//! pays one process start, not one per kernel. The child is the `halc`
//! binary itself (`halc __msl-worker`, see [`serve`]); library users choose
//! with [`crate::Isolation`].

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::compile::{generate, GeneratedMsl, MslOptions};
use super::layout::KernelLayout;
use crate::spirv::{SpirvError, Words};

/// Largest message accepted over the pipe (the module plus its layout).
const MAX_MESSAGE: u32 = 256 << 20;

/// The hidden subcommand that runs [`serve`].
pub const WORKER_ARG: &str = "__msl-worker";

/// Environment variable that makes the worker crash on purpose: `abort`,
/// `segv` or `stack-overflow` before generating MSL, or the same prefixed
/// with `validate:` before validating. How the tests prove the containment
/// works, since validated input no longer crashes SPIRV-Cross.
pub const CRASH_TEST_ENV: &str = "HALC_WORKER_CRASH_TEST";

#[derive(Serialize, Deserialize)]
enum Request {
    /// Run SPIRV-Tools' validator; a valid module stays in the worker for
    /// the `Generate` requests that follow, so it crosses the pipe once.
    Validate { words: Vec<u32> },
    /// Generate MSL for one entry point of the last valid module.
    Generate {
        entry: String,
        layout: KernelLayout,
        options: MslOptions,
    },
}

#[derive(Serialize, Deserialize)]
enum Reply {
    Valid,
    Invalid(String),
    Generated(GeneratedMsl),
    Err(String),
}

fn write_msg<T: Serialize>(w: &mut impl Write, msg: &T) -> io::Result<()> {
    let bytes = serde_json::to_vec(msg).map_err(io::Error::other)?;
    w.write_all(&(bytes.len() as u32).to_le_bytes())?;
    w.write_all(&bytes)?;
    w.flush()
}

fn read_msg<T: for<'de> Deserialize<'de>>(r: &mut impl Read) -> io::Result<Option<T>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len);
    if len > MAX_MESSAGE {
        return Err(io::Error::other(format!("message of {len} bytes")));
    }
    let mut buf = vec![0u8; len as usize];
    r.read_exact(&mut buf)?;
    serde_json::from_slice(&buf)
        .map(Some)
        .map_err(io::Error::other)
}

/// The worker loop: answers requests until its input closes.
pub fn serve(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut input = BufReader::new(input);
    let mut output = BufWriter::new(output);
    let mut module: Option<Words> = None;
    while let Some(req) = read_msg::<Request>(&mut input)? {
        if let Ok(how) = std::env::var(CRASH_TEST_ENV) {
            match (&req, how.strip_prefix("validate:")) {
                (Request::Validate { .. }, Some(how)) => crash_for_test(how),
                (Request::Generate { .. }, None) => crash_for_test(&how),
                _ => {}
            }
        }
        let start = std::time::Instant::now();
        let reply = answer(req, &mut module);
        let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        write_msg(&mut output, &(reply, nanos))?;
    }
    Ok(())
}

fn answer(req: Request, module: &mut Option<Words>) -> Reply {
    match req {
        Request::Validate { words } => {
            *module = None;
            match Words::from_words(words) {
                Ok(words) => match crate::spirv::validate::spirv_tools(&words) {
                    Ok(()) => {
                        *module = Some(words);
                        Reply::Valid
                    }
                    Err(SpirvError::Validation(m)) => Reply::Invalid(m),
                    Err(e) => Reply::Err(e.to_string()),
                },
                Err(e) => Reply::Err(e.to_string()),
            }
        }
        Request::Generate {
            entry,
            layout,
            options,
        } => match module {
            Some(words) => match generate(words, &entry, &layout, &options) {
                Ok(g) => Reply::Generated(g),
                Err(e) => Reply::Err(e.0),
            },
            None => Reply::Err("no validated module in the worker".into()),
        },
    }
}

fn crash_for_test(how: &str) {
    match how {
        "abort" => std::process::abort(),
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

/// A running worker.
pub struct Worker {
    /// Shared with the watchdog thread that kills it after the time limit.
    child: Arc<Mutex<Child>>,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
    time_limit: Duration,
    /// Time the last request spent in the C++ (measured by the child).
    last_work: Duration,
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
        let mut child = Command::new(program)
            .arg(WORKER_ARG)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| WorkerError::Io(format!("{}: {e}", program.display())))?;
        let stdin = child.stdin.take().map(BufWriter::new);
        let stdout = child
            .stdout
            .take()
            .map(BufReader::new)
            .ok_or_else(|| WorkerError::Io("no stdout".into()))?;
        Ok(Worker {
            child: Arc::new(Mutex::new(child)),
            stdin,
            stdout,
            time_limit,
            last_work: Duration::ZERO,
        })
    }

    /// Runs SPIRV-Tools' validator in the worker, which keeps a valid module
    /// for [`Worker::generate`]: `Ok(Err(_))` is an invalid module, `Err(_)`
    /// a crash or time-out.
    pub fn validate(&mut self, words: &Words) -> Result<Result<(), SpirvError>, WorkerError> {
        let req = Request::Validate {
            words: words.as_slice().to_vec(),
        };
        match self.exchange(&req, "the SPIR-V validator (SPIRV-Tools)")? {
            Reply::Valid => Ok(Ok(())),
            Reply::Invalid(m) => Ok(Err(SpirvError::Validation(m))),
            Reply::Err(m) => Ok(Err(SpirvError::Parse(m))),
            Reply::Generated(_) => Err(WorkerError::Io("unexpected reply".into())),
        }
    }

    /// Generates MSL in the worker, for the module last passed to
    /// [`Worker::validate`].
    pub fn generate(
        &mut self,
        entry: &str,
        layout: &KernelLayout,
        options: &MslOptions,
    ) -> Result<GeneratedMsl, WorkerError> {
        let req = Request::Generate {
            entry: entry.to_string(),
            layout: layout.clone(),
            options: *options,
        };
        match self.exchange(&req, "SPIRV-Cross")? {
            Reply::Generated(g) => Ok(g),
            Reply::Err(e) => Err(WorkerError::Cross(e)),
            Reply::Valid | Reply::Invalid(_) => Err(WorkerError::Io("unexpected reply".into())),
        }
    }

    /// Time the last request spent in SPIRV-Tools or SPIRV-Cross, as the
    /// child measured it: the rest of the round trip is the pipe and
    /// (de)serialisation.
    pub fn last_work(&self) -> Duration {
        self.last_work
    }

    /// Sends one request and reads its reply, killing the child if the
    /// reply does not come within the time limit. `what` names the C++ that
    /// runs, for the error.
    fn exchange(&mut self, req: &Request, what: &'static str) -> Result<Reply, WorkerError> {
        let (done, wait) = mpsc::channel::<()>();
        let killed = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let child = Arc::clone(&self.child);
            let killed = Arc::clone(&killed);
            let limit = self.time_limit;
            std::thread::spawn(move || {
                if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                    killed.store(true, Ordering::SeqCst);
                    let mut child = child.lock().unwrap_or_else(|p| p.into_inner());
                    let _ = child.kill();
                }
            })
        };
        let sent = match self.stdin.as_mut() {
            Some(w) => write_msg(w, req),
            None => Err(io::Error::other("worker input closed")),
        };
        let reply = match sent {
            Ok(()) => read_msg::<(Reply, u64)>(&mut self.stdout),
            Err(e) => Err(e),
        };
        let _ = done.send(());
        let _ = watchdog.join();
        match reply {
            // A reply that raced the watchdog still lost: the child is dead.
            Ok(Some((reply, nanos))) if !killed.load(Ordering::SeqCst) => {
                self.last_work = Duration::from_nanos(nanos);
                Ok(reply)
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
        // Closing stdin ends the loop; then reap the child.
        self.stdin = None;
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        let _ = child.wait();
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
