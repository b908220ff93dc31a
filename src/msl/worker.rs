//! Crash containment for SPIRV-Cross (C++): MSL generation runs in a child
//! process, so an abort, segfault or stack overflow inside it becomes an
//! ordinary error naming the entry point and the signal.
//!
//! One child serves every kernel of a `compile` call (requests and replies
//! are length-prefixed JSON over its stdin/stdout), so a batch pays one
//! process start, not one per kernel. The child is the `halc` binary itself
//! (`halc __msl-worker`, see [`serve`]); library users choose with
//! [`crate::Isolation`].

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde::{Deserialize, Serialize};

use super::compile::{generate, GeneratedMsl, MslOptions};
use super::layout::KernelLayout;
use crate::spirv::Words;

/// Largest message accepted over the pipe (the module plus its layout).
const MAX_MESSAGE: u32 = 256 << 20;

/// The hidden subcommand that runs [`serve`].
pub const WORKER_ARG: &str = "__msl-worker";

/// Environment variable that makes the worker crash on purpose before
/// compiling (`abort`, `segv` or `stack-overflow`): how the tests prove the
/// containment works, since validated input no longer crashes SPIRV-Cross.
pub const CRASH_TEST_ENV: &str = "HALC_WORKER_CRASH_TEST";

#[derive(Serialize, Deserialize)]
struct Request {
    words: Vec<u32>,
    entry: String,
    layout: KernelLayout,
    options: MslOptions,
}

#[derive(Serialize, Deserialize)]
enum Reply {
    Ok(GeneratedMsl),
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
    while let Some(req) = read_msg::<Request>(&mut input)? {
        if let Ok(how) = std::env::var(CRASH_TEST_ENV) {
            crash_for_test(&how);
        }
        let reply = match Words::from_words(req.words) {
            Ok(words) => match generate(&words, &req.entry, &req.layout, &req.options) {
                Ok(g) => Reply::Ok(g),
                Err(e) => Reply::Err(e.0),
            },
            Err(e) => Reply::Err(e.to_string()),
        };
        write_msg(&mut output, &reply)?;
    }
    Ok(())
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
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
}

/// Why a worker request failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// SPIRV-Cross reported an error.
    #[error("SPIRV-Cross: {0}")]
    Cross(String),
    /// The worker died.
    #[error("SPIRV-Cross crashed ({0}); the module was not compiled")]
    Crashed(String),
    /// The worker could not be started or talked to.
    #[error("cannot run the SPIRV-Cross worker process: {0}")]
    Io(String),
}

impl Worker {
    /// Starts `program __msl-worker`.
    pub fn spawn(program: &Path) -> Result<Worker, WorkerError> {
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
            child,
            stdin,
            stdout,
        })
    }

    /// Generates MSL in the worker.
    pub fn generate(
        &mut self,
        words: &Words,
        entry: &str,
        layout: &KernelLayout,
        options: &MslOptions,
    ) -> Result<GeneratedMsl, WorkerError> {
        let req = Request {
            words: words.as_slice().to_vec(),
            entry: entry.to_string(),
            layout: layout.clone(),
            options: *options,
        };
        let sent = match self.stdin.as_mut() {
            Some(w) => write_msg(w, &req),
            None => Err(io::Error::other("worker input closed")),
        };
        let reply = match sent {
            Ok(()) => read_msg::<Reply>(&mut self.stdout),
            Err(e) => Err(e),
        };
        match reply {
            Ok(Some(Reply::Ok(g))) => Ok(g),
            Ok(Some(Reply::Err(e))) => Err(WorkerError::Cross(e)),
            Ok(None) | Err(_) => Err(WorkerError::Crashed(self.death())),
        }
    }

    /// How the child ended, after a failed exchange.
    fn death(&mut self) -> String {
        self.stdin = None;
        match self.child.wait() {
            Ok(status) => describe(status),
            Err(e) => format!("lost: {e}"),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing stdin ends the loop; then reap the child.
        self.stdin = None;
        let _ = self.child.wait();
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
