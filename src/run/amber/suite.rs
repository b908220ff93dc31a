//! Running many test files ([`run_files`]): each in a process of its own,
//! several at once, results in file order.
//!
//! A test file's time goes to glslc (about 0.14 s per shader), clang
//! compiling the kernel's MSL on a cold cache (about 0.4 s) and the
//! dispatches: one process running one file after the other keeps one core
//! busy most of the time. Each file runs in a `fork` of the calling process
//! (`src/driver/forked.rs`: the device, the options and the caller's `tamper`
//! hook are simply there), up to `jobs` at once. A crash while running one
//! file (a C++ abort in SPIRV-Cross, a bug in halc) is that file's failure,
//! naming the signal, and the others still run. The outcomes and their
//! order do not depend on `jobs`.

use std::path::{Path, PathBuf};

use runtime_loader::cpu;

use super::run::{run_in, Outcome, RunOptions};
use crate::driver::forked::{tagged, untag};

/// How one test file ended, and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct FileResult {
    /// The outcome, as [`run_in`] gives it (a file that cannot be read, or
    /// whose process died, is a failure naming the file).
    pub outcome: Outcome,
    /// Wall time from the start of the file's process to its outcome.
    pub seconds: f64,
}

/// Runs every file in `files` as [`run_in`] would (each named by its path as
/// given), `jobs` at once (0: one per core, or under a make or cargo
/// jobserver as many as it grants tokens for), each in a forked process
/// unless the caller runs other threads, and calls `done` with each file's
/// index and result in the order of `files`, as soon as it and every file
/// before it have finished. An error from `done` stops the run (the files
/// running are waited for) and is returned.
pub fn run_files<E>(
    files: &[PathBuf],
    device: Option<&cpu::Device>,
    opts: &RunOptions,
    jobs: usize,
    mut done: impl FnMut(usize, FileResult) -> Result<(), E>,
) -> Result<(), E> {
    // Once here, not in every test's process (a missing glslc is reported
    // by the tests that need it).
    let _ = super::run::located_glslc(opts.glslc.as_deref());
    crate::driver::forked::each_forked(
        files.len(),
        jobs,
        |i| encode(&run_file(&files[i], device, opts)),
        |i, bytes, took| {
            let outcome = match bytes.map(|b| decode(&b)) {
                Ok(Some(o)) => o,
                Ok(None) => Outcome::Fail(format!(
                    "{}: the process running this test sent a garbled outcome",
                    files[i].display()
                )),
                Err(how) => Outcome::Fail(format!(
                    "{}: the process running this test ended with {how} before it finished",
                    files[i].display()
                )),
            };
            done(
                i,
                FileResult {
                    outcome,
                    seconds: took.as_secs_f64(),
                },
            )
        },
    )
}

/// Reads and runs one file.
fn run_file(f: &Path, device: Option<&cpu::Device>, opts: &RunOptions) -> Outcome {
    let name = f.display().to_string();
    match std::fs::read_to_string(f) {
        Ok(text) => run_in(
            &name,
            &text,
            f.parent().unwrap_or(Path::new("")),
            device,
            opts,
        ),
        Err(e) => Outcome::Fail(format!("{name}: cannot read: {e}")),
    }
}

/// The bytes a file's process sends.
fn encode(o: &Outcome) -> Vec<u8> {
    match o {
        Outcome::Pass => tagged(b'P', ""),
        Outcome::Fail(r) => tagged(b'F', r),
        Outcome::Skip(r) => tagged(b'S', r),
    }
}

fn decode(bytes: &[u8]) -> Option<Outcome> {
    match untag(bytes)? {
        (b'P', r) if r.is_empty() => Some(Outcome::Pass),
        (b'F', r) => Some(Outcome::Fail(r)),
        (b'S', r) => Some(Outcome::Skip(r)),
        _ => None,
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
}
