//! The compile driver: the stages of [`crate`]'s pipeline in order, for each
//! input, on a pool of jobs.
//!
//! Each input module is compiled on its own by one job: read the header and
//! bake `--spec` values, halc's checks, SPIRV-Tools' validator, reflection,
//! then per entry point the layout, SPIRV-Cross and the MSL check. Jobs pull
//! inputs in order from a shared counter; under [`Isolation::Subprocess`]
//! and [`Isolation::Forked`] each job owns one worker process for the whole
//! call (forked before any thread starts, or spawned on first use and
//! replaced after a crash or a time-out), so a batch of hundreds of modules
//! starts one worker per job, not one per module.
//!
//! The results are then merged in input order, exactly as a serial run
//! would meet them: the first error in input order is the one reported
//! (later inputs are not started once an earlier one failed), kernel names
//! are checked for uniqueness in input order, and the executable is
//! byte-identical whatever the number of jobs.
//!
//! The files, in the order a call meets them: `isolation.rs` (where the C++
//! runs), `pool.rs` (how many jobs, and the jobs), `workers.rs` (the worker
//! each job talks to), `input.rs` (one input), `module.rs` (its module's
//! stages), `entry.rs` (each entry point's), `merge.rs` (the outcomes in
//! input order); beside them `jobs.rs` (how many CPUs a call may use),
//! `forked.rs`, `guard.rs` and `output.rs`.
//!
//! [`Isolation::Subprocess`]: crate::model::Isolation::Subprocess
//! [`Isolation::Forked`]: crate::model::Isolation::Forked

mod entry;
#[cfg(all(unix, feature = "run"))]
pub(crate) mod forked;
#[cfg(unix)]
mod guard;
mod input;
mod isolation;
pub(crate) mod jobs;
mod merge;
mod module;
pub mod output;
mod pool;
mod workers;

use std::sync::Mutex;
use std::time::Instant;

use crate::driver::isolation::forked;
#[cfg(unix)]
use crate::driver::isolation::overlap_instead;
use crate::driver::jobs::Growth;
use crate::driver::merge::merge;
use crate::driver::pool::{budget, run_jobs};
use crate::driver::workers::start_workers;
use crate::model::{Compiled, Error, ErrorKind, Input, Options};
use crate::msl::MslVersion;

#[cfg(unix)]
pub use isolation::OVERLAP_MIN_BYTES;
pub use pool::{jobs, Progress};

/// Compiles `inputs` into kernels.
pub fn compile(inputs: &[Input], options: &Options) -> Result<Compiled, Error> {
    compile_observed(inputs, options, &|_| {})
}

/// [`compile`], calling `observer` (from any job's thread) each time an input
/// is finished: how a caller shows progress, since the library never prints.
pub fn compile_observed(
    inputs: &[Input],
    options: &Options,
    observer: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Compiled, Error> {
    let started = Instant::now();
    if inputs.is_empty() {
        return Err(Error::new(
            None,
            None,
            ErrorKind::Options("no input files".into()),
        ));
    }
    if options.msl_version < MslVersion::MIN {
        return Err(Error::new(
            None,
            None,
            ErrorKind::Options(format!(
                "MSL {} is too old: argument buffers need 2.0",
                options.msl_version
            )),
        ));
    }
    #[cfg(unix)]
    let overlapped = overlap_instead(inputs, options);
    #[cfg(unix)]
    let options = overlapped.as_ref().unwrap_or(options);
    let mut budget = budget(inputs.len(), options);
    let jobs = budget.cpus.min(inputs.len());
    let workers = start_workers(options, inputs.len(), jobs, &mut budget)?;
    let workers_started = started.elapsed();
    // Jobs added while the jobs run: up to one per core, or with forked
    // workers one per worker forked for them before the threads started.
    let most = if forked(options) {
        jobs + workers.spares.len()
    } else {
        budget.wanted.min(inputs.len())
    };
    let growth = budget.growth(jobs, most);
    let outcomes = run_jobs(
        inputs,
        options,
        jobs,
        workers.workers,
        growth.as_ref().map(|g| (g, Mutex::new(workers.spares))),
        observer,
    );
    let ran = growth.as_ref().map_or(jobs, Growth::jobs);
    let mut compiled = merge(inputs, options, outcomes, ran, started)?;
    compiled.timings.workers_start = workers_started;
    compiled.timings.workers_cxx_allocator = workers.allocator;
    compiled.timings.validator = workers.validator;
    compiled.timings.jobserver_tokens = budget
        .granted_by_jobserver()
        .then(|| budget.tokens() + (ran - jobs));
    // The jobserver's tokens go back now, the work done (`budget` drops).
    Ok(compiled)
}
