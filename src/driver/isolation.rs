//! Where a call's C++ runs, from its [`Isolation`]: in this process
//! (`in_process`, with the crash guard's error lines: `guard_lines`) or in
//! workers forked before the jobs start (`forked`), and
//! [`Isolation::Guarded`]'s exception for one large module
//! ([`OVERLAP_MIN_BYTES`]).

#[cfg(unix)]
use crate::driver::jobs::{cores_cheaply, free_cores, runnable_tasks_now};
#[cfg(unix)]
use crate::model::{Error, ErrorKind, Input};
use crate::model::{Isolation, Options};
#[cfg(unix)]
use crate::msl;

/// The smallest module [`Isolation::Guarded`] gives forked workers when a
/// CPU is free for its validator. Measured on the 2-vCPU development VM,
/// whole compiles: 1.6 KB 4.17 ms guarded against 4.70 ms forked, 3.6 KB
/// 5.7 against 5.8 ms, 11 KB 8.6 against 7.8 ms, 42 KB 21.6 against 17.4
/// ms: past a few KB, validating beside SPIRV-Cross saves more than the
/// two forks cost.
#[cfg(unix)]
pub const OVERLAP_MIN_BYTES: usize = 6 << 10;

/// [`Isolation::Guarded`]'s exception: one module of at least
/// [`OVERLAP_MIN_BYTES`], with a CPU free for its validator and no jobserver
/// (whose tokens the other jobs of the build hold), is compiled by forked
/// workers, the validator beside SPIRV-Cross: the options for that, or
/// `None` to run guarded.
#[cfg(unix)]
pub(super) fn overlap_instead(inputs: &[Input], options: &Options) -> Option<Options> {
    let Isolation::Guarded { time_limit } = options.isolation else {
        return None;
    };
    if inputs.len() != 1
        || inputs[0].bytes.len() < OVERLAP_MIN_BYTES
        || crate::driver::jobs::jobserver().is_some()
    {
        return None;
    }
    let free = || free_cores(cores_cheaply(), runnable_tasks_now());
    msl::worker::separate_validators(1, free)
        .ok()
        .filter(|separate| *separate)?;
    Some(Options {
        isolation: Isolation::Forked { time_limit },
        ..options.clone()
    })
}

/// Whether the C++ runs in this process.
pub(super) fn in_process(options: &Options) -> bool {
    match options.isolation {
        Isolation::InProcess => true,
        #[cfg(unix)]
        Isolation::Guarded { .. } => true,
        _ => false,
    }
}

/// The error lines a guarded call into `what` ends with: those of a
/// worker's crash or time-out, from the same errors.
#[cfg(unix)]
pub(super) fn guard_lines(
    file: &str,
    entry: Option<&str>,
    what: &'static str,
    time_limit: std::time::Duration,
) -> crate::driver::guard::Lines {
    use msl::worker::WorkerError;
    let line = |err| Error::new(Some(file), entry, ErrorKind::Worker(err)).to_string();
    crate::driver::guard::Lines {
        crash: line(WorkerError::Crashed(what, "\0".into())),
        timeout: line(WorkerError::TimedOut(what, time_limit.as_secs())),
    }
}

/// Whether the call's workers are forks made before its threads start.
pub(super) fn forked(options: &Options) -> bool {
    #[cfg(unix)]
    {
        matches!(options.isolation, Isolation::Forked { .. })
    }
    #[cfg(not(unix))]
    {
        let _ = options;
        false
    }
}
