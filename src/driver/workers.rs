//! The worker process each job talks to: forked before the jobs start
//! (`start_workers`), or spawned on first use (`running_worker`) and
//! dropped once dead (`worker_failed`); and the validator's verdict it
//! owes, read before anything else is reported (`settle`).

use crate::driver::isolation::in_process;
use crate::driver::jobs::Budget;
#[cfg(unix)]
use crate::driver::jobs::{cores, cores_cheaply, free_cores, runnable_tasks_now, Grant};
use crate::model::timings::{Stage, StageTimes, ValidatorPlace};
use crate::model::{Error, ErrorKind, Isolation, Options};
use crate::msl;

/// The workers started before the jobs.
pub(super) struct Started {
    /// Each job's worker, if started before the jobs.
    pub(super) workers: Vec<Option<msl::worker::Worker>>,
    /// Forked workers for the jobs a jobserver may grant once the jobs run
    /// (when no fork is sound any more).
    pub(super) spares: Vec<msl::worker::Worker>,
    /// The allocator the started ones give C++.
    pub(super) allocator: Option<msl::worker::CxxAllocator>,
    /// Where the jobs validate.
    pub(super) validator: ValidatorPlace,
}

/// Workers that must exist before the jobs start: with
/// [`Isolation::Forked`], one fork per job (two when the cores allow the
/// validator a worker of its own: [`msl::worker::separate_validators`]),
/// made while the caller's thread is still the only one, and the C++
/// allocator they were given for a call of `inputs` modules. Other
/// isolations start theirs on first use (with glibc's malloc).
pub(super) fn start_workers(
    options: &Options,
    inputs: usize,
    jobs: usize,
    budget: &mut Budget,
) -> Result<Started, Error> {
    match &options.isolation {
        #[cfg(unix)]
        Isolation::Forked { time_limit } => {
            let options_error = |e| Error::new(None, None, ErrorKind::Options(e));
            let allocator =
                msl::worker::CxxAllocator::for_batch(inputs, jobs).map_err(options_error)?;
            // Under a jobserver, the CPUs it granted. Otherwise, of the
            // cores this process may use, as many as no other task is
            // running on. A batch's jobs were counted with the quota
            // (`cores`): the same count decides, or a container's quota
            // would be oversubscribed.
            let cores_now = || {
                let cores = match budget.grant {
                    Grant::Jobserver => return budget.cpus,
                    Grant::Cores => budget.cpus,
                    Grant::Requested if inputs == 1 => cores_cheaply(),
                    Grant::Requested => cores(),
                };
                free_cores(cores, runnable_tasks_now())
            };
            let separate =
                msl::worker::separate_validators(jobs, cores_now).map_err(options_error)?;
            budget.keep(if separate { jobs * 2 } else { jobs });
            let worker_error = |e| Error::new(None, None, ErrorKind::Worker(e));
            let workers = (0..jobs)
                .map(|_| {
                    let worker = if separate {
                        msl::worker::Worker::fork_with_validator(*time_limit, allocator)
                    } else {
                        msl::worker::Worker::fork(*time_limit, allocator)
                    };
                    worker.map(Some).map_err(worker_error)
                })
                .collect::<Result<_, Error>>()?;
            // Under a jobserver, a worker now for each job it may grant
            // later (up to one per core): once the jobs' threads run, no
            // fork is sound. As many as a batch without a jobserver forks.
            let spares = if budget.granted_by_jobserver() && !separate {
                budget.wanted.min(inputs).saturating_sub(jobs)
            } else {
                0
            };
            let spares = (0..spares)
                .map(|_| msl::worker::Worker::fork(*time_limit, allocator).map_err(worker_error))
                .collect::<Result<_, Error>>()?;
            Ok(Started {
                workers,
                spares,
                allocator: Some(allocator),
                validator: if separate {
                    ValidatorPlace::BesideCross
                } else {
                    ValidatorPlace::BeforeCross
                },
            })
        }
        _ => {
            let _ = inputs; // only forked workers are given an allocator
            budget.keep(jobs);
            Ok(Started {
                workers: (0..jobs).map(|_| None).collect(),
                spares: Vec::new(),
                allocator: None,
                validator: if in_process(options) {
                    ValidatorPlace::InProcess
                } else {
                    ValidatorPlace::BeforeCross
                },
            })
        }
    }
}

/// The job's worker, started on first use (the start counts as worker time).
pub(super) fn running_worker<'w>(
    worker: &'w mut Option<msl::worker::Worker>,
    isolation: &Isolation,
    t: &mut StageTimes,
) -> Result<&'w mut msl::worker::Worker, ErrorKind> {
    if worker.is_none() {
        match isolation {
            Isolation::Subprocess {
                program,
                time_limit,
            } => {
                let started = t.time(Stage::Worker, || {
                    msl::worker::Worker::spawn(program, *time_limit)
                });
                *worker = Some(started.map_err(ErrorKind::Worker)?);
            }
            // Forked workers are started before the jobs (see `start_workers`).
            // A job whose worker died has met an error, and every input it
            // could take next comes after that error: none needs a new one.
            #[cfg(unix)]
            Isolation::Forked { .. } => {
                return Err(ErrorKind::Internal(
                    "a forked worker is needed after the jobs started".into(),
                ))
            }
            Isolation::InProcess => {}
            #[cfg(unix)]
            Isolation::Guarded { .. } => {}
        }
    }
    worker
        .as_mut()
        .ok_or_else(|| ErrorKind::Internal("no worker for in-process isolation".into()))
}

/// A dead (crashed or killed) worker cannot serve the next request: the next
/// one starts a new worker.
pub(super) fn worker_failed(
    worker: &mut Option<msl::worker::Worker>,
    err: &msl::worker::WorkerError,
) {
    if matches!(
        err,
        msl::worker::WorkerError::Crashed(..) | msl::worker::WorkerError::TimedOut(..)
    ) {
        *worker = None;
    }
}

/// Reads the validator's verdict if it is still owed (`pending`): the
/// validation error, or the worker's failure, if the module is not valid.
/// Every error found after the module went to the validator is reported
/// only once it is known to be valid, so the error is the one a serial run
/// (validate, then reflect, then generate) would report.
pub(super) fn settle(
    worker: &mut Option<msl::worker::Worker>,
    pending: &mut bool,
    t: &mut StageTimes,
    file: &str,
) -> Result<(), Error> {
    if !std::mem::take(pending) {
        return Ok(());
    }
    let fail = |k: ErrorKind| Error::new(Some(file), None, k);
    let w = worker
        .as_mut()
        .ok_or_else(|| fail(ErrorKind::Internal("the validating worker is gone".into())))?;
    let verdict = w.verdict();
    t.add(Stage::Validate, w.last_work());
    t.add(Stage::Worker, w.last_wait().saturating_sub(w.last_work()));
    match verdict {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => {
            if !w.is_alive() {
                *worker = None;
            }
            Err(fail(e.into()))
        }
        Err(err) => {
            worker_failed(worker, &err);
            Err(fail(ErrorKind::Worker(err)))
        }
    }
}
