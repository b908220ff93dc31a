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

#[cfg(all(unix, feature = "run"))]
pub(crate) mod forked;
#[cfg(unix)]
mod guard;
pub(crate) mod jobs;
pub mod output;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::driver::jobs::{
    cores, cores_cheaply, free_cores, runnable_tasks_now, Budget, Grant, Growth,
};
use crate::model::timings::{ModuleTimings, Stage, StageTimes, Timings, ValidatorPlace};
use crate::model::{
    Compiled, Error, ErrorKind, Input, Isolation, Kernel, Options, MAX_THREADGROUP_MEMORY_BYTES,
    MAX_THREADS_PER_THREADGROUP,
};
use crate::msl::{self, MslOptions, MslVersion};
use crate::spirv::{self, ExecutionModel, SpecValue, SpirvError};

/// Progress of a [`compile_observed`] call, reported once per finished input.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Inputs finished so far (successfully or not).
    pub done: usize,
    /// Inputs in the call.
    pub total: usize,
    /// The input just finished.
    pub input: &'a str,
}

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

/// The number of jobs `requested` means without a jobserver: 0 is one per
/// core. Under a make or cargo jobserver a call's default is also bounded
/// by the tokens it can take ([`Options::jobs`]).
pub fn jobs(requested: usize) -> usize {
    if requested > 0 {
        return requested;
    }
    cores()
}

/// The CPUs a call of `inputs` modules may keep busy: `options.jobs` if
/// given (make's `-j N` to a sub-make also leaves its jobserver); otherwise
/// one per core and per module, and under a jobserver no more than the
/// caller's own and the tokens it can take now. A forked worker can have a
/// second process for its validator, so with forked workers a module can
/// use two. One module that can use one needs no count at all.
fn budget(inputs: usize, options: &Options) -> Budget {
    // One thread at a time may run guarded: the handlers are the process's.
    #[cfg(unix)]
    if matches!(options.isolation, Isolation::Guarded { .. }) {
        return Budget::requested(1);
    }
    if options.jobs > 0 {
        return Budget::requested(options.jobs);
    }
    let per_module = if forked(options) { 2 } else { 1 };
    match inputs.saturating_mul(per_module) {
        1 => Budget::requested(1),
        wanted if inputs == 1 => Budget::take(wanted, cores_cheaply),
        wanted => Budget::take(wanted, cores),
    }
}

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
fn overlap_instead(inputs: &[Input], options: &Options) -> Option<Options> {
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
fn in_process(options: &Options) -> bool {
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
fn guard_lines(
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
fn forked(options: &Options) -> bool {
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

/// What one input produced, before the merge.
struct Outcome {
    /// SpecIds the module carries (for the unused `--spec` check).
    spec_ids: Vec<u32>,
    /// The kernel names of its GLCompute entry points, selected or not (for
    /// the unknown `--entry` message).
    available: Vec<String>,
    /// Its selected kernels in entry-point order, up to and including the
    /// first that failed.
    kernels: Vec<KernelOutcome>,
    /// An error concerning the whole module: it precedes every kernel.
    error: Option<Error>,
    timings: ModuleTimings,
}

struct KernelOutcome {
    /// Kernel name.
    name: String,
    /// Entry-point name.
    entry: String,
    /// The `--entry` values that selected it.
    selected_by: Vec<String>,
    result: Result<Kernel, Error>,
}

/// Runs every input on `jobs` threads, and on more as `growth` allows;
/// `None` for inputs never started because an earlier one failed.
fn run_jobs(
    inputs: &[Input],
    options: &Options,
    jobs: usize,
    workers: Vec<Option<msl::worker::Worker>>,
    growth: Option<(&Growth, Mutex<Vec<msl::worker::Worker>>)>,
    observer: &(dyn Fn(Progress<'_>) + Sync),
) -> Vec<Option<Outcome>> {
    let msl_opts = MslOptions {
        version: options.msl_version,
        platform: options.layout.platform,
        tier: options.layout.tier,
    };
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    // Index of the first input known to have failed: later ones need not run.
    let first_failed = AtomicUsize::new(usize::MAX);
    let slots: Vec<Mutex<Option<Outcome>>> = inputs.iter().map(|_| Mutex::new(None)).collect();
    // The next input no earlier failure makes needless.
    let claim = || {
        let i = next.fetch_add(1, Ordering::SeqCst);
        (i < inputs.len() && i <= first_failed.load(Ordering::SeqCst)).then_some(i)
    };
    // `started`: called as the job starts on a module that others follow,
    // to add a job if the jobserver has a token free.
    let job = |mut worker: Option<msl::worker::Worker>, started: &dyn Fn()| {
        // An input taken ahead: while the worker generates the last MSL of
        // a module, its next module is read, checked, sent to the validator
        // (queued behind that MSL) and reflected, so neither process waits
        // for the other between modules.
        let mut ahead: Option<(usize, Begun)> = None;
        loop {
            let (i, begun) = match ahead.take() {
                Some(a) => a,
                None => match claim() {
                    Some(i) => (i, Begun::Claimed),
                    None => break,
                },
            };
            if i > first_failed.load(Ordering::SeqCst) {
                break;
            }
            if next.load(Ordering::SeqCst) < inputs.len() {
                started();
            }
            let mut take_next = |w: &mut Option<msl::worker::Worker>| {
                if let Some(j) = claim() {
                    ahead = Some((j, begin_ahead(&inputs[j], options, w)));
                }
            };
            let outcome = compile_input(
                &inputs[i],
                options,
                &msl_opts,
                &mut worker,
                begun,
                &mut take_next,
            );
            if outcome.error.is_some() || outcome.kernels.iter().any(|k| k.result.is_err()) {
                first_failed.fetch_min(i, Ordering::SeqCst);
            }
            *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
            observer(Progress {
                done: done.fetch_add(1, Ordering::SeqCst) + 1,
                total: inputs.len(),
                input: &inputs[i].name,
            });
        }
    };
    let mut workers = workers.into_iter();
    if jobs <= 1 && growth.is_none() {
        job(workers.next().flatten(), &|| {});
    } else {
        let growth = growth.as_ref().map(|(g, spares)| (*g, spares));
        std::thread::scope(|s| {
            let job = &job;
            for _ in 1..jobs {
                let worker = workers.next().flatten();
                s.spawn(move || job(worker, &|| grow(s, job, growth)));
            }
            job(workers.next().flatten(), &|| grow(s, job, growth));
        });
    }
    slots
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect()
}

/// One more job on a thread of `scope`, if `growth` gives it a token, with
/// one of the workers forked for it (none where workers start on first
/// use); the job gives the token back when it runs out of modules.
fn grow<'scope, J>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    job: &'scope J,
    growth: Option<(&'scope Growth, &'scope Mutex<Vec<msl::worker::Worker>>)>,
) where
    J: Fn(Option<msl::worker::Worker>, &dyn Fn()) + Sync,
{
    let Some((g, spares)) = growth else { return };
    if let Some(token) = g.try_add() {
        let worker = spares.lock().unwrap_or_else(|p| p.into_inner()).pop();
        scope.spawn(move || {
            job(worker, &|| grow(scope, job, growth));
            drop(token);
        });
    }
}

/// The workers started before the jobs.
struct Started {
    /// Each job's worker, if started before the jobs.
    workers: Vec<Option<msl::worker::Worker>>,
    /// Forked workers for the jobs a jobserver may grant once the jobs run
    /// (when no fork is sound any more).
    spares: Vec<msl::worker::Worker>,
    /// The allocator the started ones give C++.
    allocator: Option<msl::worker::CxxAllocator>,
    /// Where the jobs validate.
    validator: ValidatorPlace,
}

/// Workers that must exist before the jobs start: with
/// [`Isolation::Forked`], one fork per job (two when the cores allow the
/// validator a worker of its own: [`msl::worker::separate_validators`]),
/// made while the caller's thread is still the only one, and the C++
/// allocator they were given for a call of `inputs` modules. Other
/// isolations start theirs on first use (with glibc's malloc).
fn start_workers(
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

/// Walks the outcomes in input order as a serial compile would: the first
/// error met is returned.
fn merge(
    inputs: &[Input],
    options: &Options,
    outcomes: Vec<Option<Outcome>>,
    jobs: usize,
    started: Instant,
) -> Result<Compiled, Error> {
    let mut spec_used: BTreeSet<u32> = BTreeSet::new();
    let mut entries_found: BTreeSet<String> = BTreeSet::new();
    let mut available: BTreeSet<String> = BTreeSet::new();
    let mut kernels: BTreeMap<String, Kernel> = BTreeMap::new();
    let mut hasher = Sha256::new();
    let mut timings = Vec::with_capacity(inputs.len());
    for (input, outcome) in inputs.iter().zip(outcomes) {
        let Some(outcome) = outcome else {
            return Err(Error::new(
                Some(&input.name),
                None,
                ErrorKind::Internal("input skipped without an earlier error".into()),
            ));
        };
        hasher.update((input.bytes.len() as u64).to_le_bytes());
        hasher.update(&input.bytes);
        spec_used.extend(outcome.spec_ids);
        available.extend(outcome.available);
        if let Some(e) = outcome.error {
            return Err(e);
        }
        for k in outcome.kernels {
            entries_found.extend(k.selected_by);
            if let Some(prev) = kernels.get(&k.name) {
                return Err(Error::new(
                    Some(&input.name),
                    Some(&k.entry),
                    ErrorKind::Rejected(format!(
                        "kernel name `{}` is already taken by entry point `{}` of {}; kernel names must be unique in an executable: rename one with FILE:ENTRY=NAME",
                        k.name, prev.entry.name, prev.input
                    )),
                ));
            }
            kernels.insert(k.name, k.result?);
        }
        timings.push(outcome.timings);
    }
    for name in &options.entries {
        if !entries_found.contains(name) {
            return Err(Error::new(
                None,
                None,
                ErrorKind::Options(format!(
                    "--entry {name}: no input has a GLCompute entry point or kernel named `{name}`; the kernels are: {}",
                    available.iter().map(String::as_str).collect::<Vec<_>>().join(", ")
                )),
            ));
        }
    }
    for s in &options.specs {
        if !spec_used.contains(&s.id) {
            return Err(Error::new(
                None,
                None,
                ErrorKind::Options(format!(
                    "--spec {}={}: no input has a spec constant with SpecId {}",
                    s.id, s.text, s.id
                )),
            ));
        }
    }
    if kernels.is_empty() {
        return Err(Error::new(
            None,
            None,
            ErrorKind::Options("no kernels selected".into()),
        ));
    }
    let inputs_sha256 = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(Compiled {
        kernels: kernels.into_values().collect(),
        options: options.clone(),
        inputs_sha256,
        keep_msl: true,
        timings: Timings {
            modules: timings,
            jobs,
            elapsed: started.elapsed(),
            workers_start: Duration::ZERO,
            workers_cxx_allocator: None,
            jobserver_tokens: None,
            validator: ValidatorPlace::InProcess,
        },
    })
}

/// What a job calls to take its next input ahead (see `run_jobs`).
type TakeNext<'a> = dyn FnMut(&mut Option<msl::worker::Worker>) + 'a;

/// How far an input got before [`compile_input`].
enum Begun {
    /// Not started.
    Claimed,
    /// Read and checked by this process (the worker had no room for it yet).
    Parsed(Box<Outcome>, spirv::Words, Rewrites),
    /// Sent to the validator and reflected: reflection's result, with the
    /// verdict still owed if `pending`.
    Sent(Box<Outcome>, Result<Module, Error>, bool),
    /// Failed before anything reached the worker.
    Failed(Box<Outcome>, Error),
}

fn new_outcome(input: &Input) -> Outcome {
    Outcome {
        spec_ids: Vec::new(),
        available: Vec::new(),
        kernels: Vec::new(),
        error: None,
        timings: ModuleTimings {
            input: input.name.clone(),
            ..ModuleTimings::default()
        },
    }
}

/// The part of [`compile_input`] that waits for nothing: parse, specialise
/// and check the input, and, if the worker's pipe has room for it behind
/// what it is doing, send it to the validator and reflect it.
fn begin_ahead(
    input: &Input,
    options: &Options,
    worker: &mut Option<msl::worker::Worker>,
) -> Begun {
    let mut out = Box::new(new_outcome(input));
    let t = &mut out.timings.module;
    let (words, rewrites) = match parse_stages(input, options, t, &mut out.spec_ids) {
        Ok(p) => p,
        Err(e) => return Begun::Failed(out, e),
    };
    if !worker.as_ref().is_some_and(|w| w.has_room_for(&words)) {
        return Begun::Parsed(out, words, rewrites);
    }
    let mut pending = false;
    let module = send_and_reflect(input, options, worker, words, rewrites, t, &mut pending);
    Begun::Sent(out, module, pending)
}

/// One input: the module stages, then each selected entry point, stopping at
/// the first failure. `take_next` is called once the worker has been asked
/// for the module's last MSL, before that MSL is read (see `run_jobs`).
fn compile_input(
    input: &Input,
    options: &Options,
    msl_opts: &MslOptions,
    worker: &mut Option<msl::worker::Worker>,
    begun: Begun,
    take_next: &mut TakeNext<'_>,
) -> Outcome {
    let (mut out, module, mut verdict) = match begun {
        Begun::Claimed => {
            let mut out = new_outcome(input);
            let t = &mut out.timings.module;
            let mut pending = false;
            let module =
                parse_stages(input, options, t, &mut out.spec_ids).and_then(|(words, rewrites)| {
                    send_and_reflect(input, options, worker, words, rewrites, t, &mut pending)
                });
            (out, module, pending)
        }
        Begun::Parsed(mut out, words, rewrites) => {
            let mut pending = false;
            let t = &mut out.timings.module;
            let module = send_and_reflect(input, options, worker, words, rewrites, t, &mut pending);
            (*out, module, pending)
        }
        Begun::Sent(out, module, pending) => (*out, module, pending),
        Begun::Failed(out, e) => (*out, Err(e), false),
    };
    let t = &mut out.timings.module;
    let (words, rewrites, info, mut blocks) = match module {
        Ok(m) => m,
        Err(e) => {
            // The validator's verdict, when owed, comes first.
            out.error = Some(
                settle(worker, &mut verdict, t, &input.name)
                    .err()
                    .unwrap_or(e),
            );
            return out;
        }
    };
    let computes: Vec<&spirv::EntryPoint> = info
        .entry_points
        .iter()
        .filter(|e| e.model == ExecutionModel::GLCompute)
        .filter(|e| input.entries.is_empty() || input.entries.contains(&e.name))
        .collect();
    if let (Some(name), [_, _, ..]) = (&input.kernel, computes.as_slice()) {
        let all: Vec<&str> = computes.iter().map(|e| e.name.as_str()).collect();
        let e = Error::new(
            Some(&input.name),
            None,
            ErrorKind::Options(format!(
                "name {name}: the module has {} GLCompute entry points ({}); say which one is `{name}`",
                all.len(),
                all.join(", ")
            )),
        );
        out.error = Some(
            settle(worker, &mut verdict, t, &input.name)
                .err()
                .unwrap_or(e),
        );
        return out;
    }
    let mut selected = Vec::new();
    for e in computes {
        let name = match &input.kernel {
            Some(n) => n.clone(),
            None => input.kernel_name(&e.name),
        };
        out.available.push(name.clone());
        // --entry selects by entry-point name or by kernel name.
        let selected_by: Vec<String> = options
            .entries
            .iter()
            .filter(|n| **n == e.name || **n == name)
            .cloned()
            .collect();
        if options.entries.is_empty() || !selected_by.is_empty() {
            selected.push((e, name, selected_by));
        }
    }
    let last = selected.len().saturating_sub(1);
    let mut take_next = Some(take_next);
    for (index, (e, name, selected_by)) in selected.into_iter().enumerate() {
        let mut kt = StageTimes::default();
        let result = compile_entry(
            input,
            name.clone(),
            &words,
            &info,
            e,
            &rewrites,
            options,
            msl_opts,
            worker,
            &mut verdict,
            if index == last {
                take_next.take()
            } else {
                None
            },
            &mut kt,
        );
        let result = result.map(|mut k| {
            k.blocks = blocks.remove(&e.name).unwrap_or_default();
            k
        });
        let failed = result.is_err();
        out.timings.kernels.push((name.clone(), kt));
        out.kernels.push(KernelOutcome {
            name,
            entry: e.name.clone(),
            selected_by,
            result,
        });
        if failed {
            break;
        }
    }
    // No kernel was asked for: the module must still be valid.
    if let Err(e) = settle(worker, &mut verdict, &mut out.timings.module, &input.name) {
        out.error = Some(e);
    }
    out
}

/// Reads the validator's verdict if it is still owed (`pending`): the
/// validation error, or the worker's failure, if the module is not valid.
/// Every error found after the module went to the validator is reported
/// only once it is known to be valid, so the error is the one a serial run
/// (validate, then reflect, then generate) would report.
fn settle(
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

/// What the parse stages changed in a module before anything else read it.
struct Rewrites {
    /// SpecIds baked (`--spec`) or fixed (sizing an array and read as a
    /// value).
    baked: Vec<spirv::specialize::Baked>,
    /// `debugPrintfEXT` calls removed with its non-semantic instructions.
    debug_printfs: u32,
}

type Module = (
    spirv::Words,
    Rewrites,
    spirv::ModuleInfo,
    std::collections::HashMap<String, spirv::Blocks>,
);

/// Header, `--spec` and checks: this process's work before the validator.
fn parse_stages(
    input: &Input,
    options: &Options,
    t: &mut StageTimes,
    spec_ids: &mut Vec<u32>,
) -> Result<(spirv::Words, Rewrites), Error> {
    let fail = |k: ErrorKind| Error::new(Some(&input.name), None, k);
    // An input's own values win over the global ones with the same SpecId.
    let specs: Vec<SpecValue> = options
        .specs
        .iter()
        .filter(|g| !input.specs.iter().any(|s| s.id == g.id))
        .chain(&input.specs)
        .cloned()
        .collect();
    // Each rewrite copies the module: none when there is nothing to remove
    // or bake. Non-semantic instructions (debug information, debugPrintf)
    // go first: nothing after sees them.
    let (words, debug_printfs, mut baked) = t
        .time(Stage::Parse, || {
            let words = spirv::Words::from_bytes(&input.bytes)?;
            let (words, stripped) = match spirv::strip::strip_non_semantic(&words)? {
                Some((w, s)) => (w, s),
                None => (words, spirv::strip::Stripped::default()),
            };
            if specs.is_empty() {
                return Ok((words, stripped.debug_printfs, Vec::new()));
            }
            let (words, baked) = spirv::specialize(&words, &specs)?;
            Ok((words, stripped.debug_printfs, baked))
        })
        .map_err(|e: SpirvError| fail(e.into()))?;
    spec_ids.extend(baked.iter().map(|b| b.id));
    // A SpecId that sizes an array (which MSL needs constant, so SPIRV-Cross
    // fixes it at its default) and is also read as a value (which would stay
    // a function constant, settable at run time) is fixed whole, at each
    // declaration's own default: ggml sizes shared memory with `constant_id
    // = 0` and gives the workgroup size `local_size_x_id = 0`.
    let conflicts = t
        .time(Stage::Parse, || {
            spirv::specialize::array_size_conflicts(&words)
        })
        .map_err(|e| fail(e.into()))?;
    let words = if conflicts.is_empty() {
        words
    } else {
        let (frozen_words, frozen) = t
            .time(Stage::Parse, || {
                spirv::specialize::freeze(&words, &conflicts)
            })
            .map_err(|e| fail(e.into()))?;
        baked.extend(frozen);
        frozen_words
    };
    if let Some(s) = input
        .specs
        .iter()
        .find(|s| !baked.iter().any(|b| b.id == s.id))
    {
        return Err(fail(ErrorKind::Options(format!(
            "spec {}={}: the module has no spec constant with SpecId {}",
            s.id, s.text, s.id
        ))));
    }
    t.time(Stage::Check, || {
        spirv::validate::check(&words, &options.limits)
    })
    .map_err(|e| fail(e.into()))?;
    Ok((
        words,
        Rewrites {
            baked,
            debug_printfs,
        },
    ))
}

/// The validator, reflection, and the module-level refusals. In a worker,
/// the validator runs while this thread reflects the module and lays out
/// its kernels: `pending` says its verdict is still owed, to be read
/// (`settle`) before anything else is reported, and before any MSL.
fn send_and_reflect(
    input: &Input,
    options: &Options,
    worker: &mut Option<msl::worker::Worker>,
    words: spirv::Words,
    rewrites: Rewrites,
    t: &mut StageTimes,
    pending: &mut bool,
) -> Result<Module, Error> {
    let fail = |k: ErrorKind| Error::new(Some(&input.name), None, k);
    match &options.isolation {
        Isolation::InProcess => t
            .time(Stage::Validate, || spirv::validate::spirv_tools(&words))
            .map_err(|e| fail(e.into()))?,
        #[cfg(unix)]
        Isolation::Guarded { time_limit } => {
            let lines = guard_lines(&input.name, None, msl::worker::VALIDATOR, *time_limit);
            t.time(Stage::Validate, || {
                crate::driver::guard::run(lines, *time_limit, || {
                    msl::worker::crash_for_test_before(true);
                    spirv::validate::spirv_tools(&words)
                })
            })
            .map_err(|e| fail(e.into()))?
        }
        _ => {
            let w = running_worker(worker, &options.isolation, t).map_err(fail)?;
            let start = Instant::now();
            let sent = w.start_validation(&words);
            t.add(Stage::Worker, start.elapsed());
            // A worker found dead here is left for the reads of the replies
            // it owes (the MSL of the module before, when this one was sent
            // ahead): they tell what it died of, and the job then stops.
            sent.map_err(|err| fail(ErrorKind::Worker(err)))?;
            *pending = true;
        }
    }
    let (info, blocks) = reflect_module(input, &words, t)?;
    Ok((words, rewrites, info, blocks))
}

/// Reflection, and the module-level refusals.
fn reflect_module(
    input: &Input,
    words: &spirv::Words,
    t: &mut StageTimes,
) -> Result<
    (
        spirv::ModuleInfo,
        std::collections::HashMap<String, spirv::Blocks>,
    ),
    Error,
> {
    let file = Some(input.name.as_str());
    let fail = |k: ErrorKind| Error::new(file, None, k);
    // Reflection is Rust and total (`spirv::inst`); should it still panic on
    // hostile input, that is an error for this module, not a crash.
    let (info, blocks) = t
        .time(Stage::Reflect, || {
            std::panic::catch_unwind(|| spirv::reflect_with_blocks(words)).unwrap_or_else(|_| {
                Err(SpirvError::Parse(
                    "halc's SPIR-V reader failed on this module".into(),
                ))
            })
        })
        .map_err(|e| fail(e.into()))?;

    let computes: Vec<&spirv::EntryPoint> = info
        .entry_points
        .iter()
        .filter(|e| e.model == ExecutionModel::GLCompute)
        .collect();
    if computes.is_empty() {
        let msg = match info.entry_points.first() {
            None => "module has no entry point".to_string(),
            Some(_) if info.entry_points.iter().any(|e| e.model == ExecutionModel::Kernel) => {
                "OpenCL `Kernel` entry points are not supported: halc compiles Vulkan GLCompute shaders".to_string()
            }
            Some(e) => format!(
                "no GLCompute entry point (found {} entry point `{}`): halc compiles compute shaders only",
                e.model, e.name
            ),
        };
        return Err(fail(ErrorKind::Rejected(msg)));
    }
    for entry in &input.entries {
        if !computes.iter().any(|e| e.name == *entry) {
            return Err(fail(ErrorKind::Options(format!(
                "entry {entry}: the module has no GLCompute entry point `{entry}`; its GLCompute entry points are: {}",
                computes.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", ")
            ))));
        }
    }
    for r in &input.renames {
        if !computes.iter().any(|e| e.name == r.entry) {
            return Err(fail(ErrorKind::Options(format!(
                "rename {}={}: the module has no GLCompute entry point `{}`; its GLCompute entry points are: {}",
                r.entry, r.name, r.entry,
                computes.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", ")
            ))));
        }
        if r.name.is_empty() || r.name.chars().any(char::is_control) {
            return Err(fail(ErrorKind::Options(format!(
                "rename {}={:?}: a kernel name must be non-empty and printable",
                r.entry, r.name
            ))));
        }
    }
    Ok((info, blocks))
}

/// The job's worker, started on first use (the start counts as worker time).
fn running_worker<'w>(
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
fn worker_failed(worker: &mut Option<msl::worker::Worker>, err: &msl::worker::WorkerError) {
    if matches!(
        err,
        msl::worker::WorkerError::Crashed(..) | msl::worker::WorkerError::TimedOut(..)
    ) {
        *worker = None;
    }
}

/// An entry point's refusals (workgroup size, threadgroup memory, texel
/// buffers) and its binding layout.
fn prepare_entry(
    input: &Input,
    e: &spirv::EntryPoint,
    options: &Options,
    t: &mut StageTimes,
) -> Result<(spirv::WorkgroupSize, msl::KernelLayout), Error> {
    let fail = |k: ErrorKind| Error::new(Some(&input.name), Some(&e.name), k);
    let workgroup = e.workgroup_size.ok_or_else(|| {
        fail(ErrorKind::Internal(
            "compute entry point without a workgroup size".into(),
        ))
    })?;
    if let Some((axis, _)) = workgroup
        .dims
        .iter()
        .enumerate()
        .find(|(_, d)| d.value == 0)
    {
        return Err(fail(ErrorKind::Rejected(format!(
            "workgroup size {:?} has a zero in dimension {}",
            workgroup.values(),
            ["x", "y", "z"][axis]
        ))));
    }
    if workgroup.total() > u64::from(MAX_THREADS_PER_THREADGROUP) {
        let [x, y, z] = workgroup.values();
        let total = u128::from(x) * u128::from(y) * u128::from(z);
        return Err(fail(ErrorKind::Rejected(format!(
            "workgroup size {x}x{y}x{z} = {total} threads exceeds Metal's {MAX_THREADS_PER_THREADGROUP} threads per threadgroup"
        ))));
    }
    if e.threadgroup_memory_bytes > u64::from(MAX_THREADGROUP_MEMORY_BYTES) {
        return Err(fail(ErrorKind::Rejected(format!(
            "uses {} bytes of threadgroup (shared) memory; Metal allows {MAX_THREADGROUP_MEMORY_BYTES}",
            e.threadgroup_memory_bytes
        ))));
    }
    if options.msl_version < (MslVersion { major: 2, minor: 1 })
        && e.bindings.iter().any(|b| {
            matches!(
                b.kind,
                spirv::BindingKind::UniformTexelBuffer | spirv::BindingKind::StorageTexelBuffer
            )
        })
    {
        return Err(fail(ErrorKind::Rejected(
            "texel buffers need MSL 2.1 or newer (native texture buffers)".into(),
        )));
    }
    let layout = t
        .time(Stage::Layout, || msl::layout(e, &options.layout))
        .map_err(|k| fail(k.into()))?;
    Ok((workgroup, layout))
}

#[allow(clippy::too_many_arguments)]
fn compile_entry(
    input: &Input,
    name: String,
    words: &spirv::Words,
    info: &spirv::ModuleInfo,
    e: &spirv::EntryPoint,
    rewrites: &Rewrites,
    options: &Options,
    msl_opts: &MslOptions,
    worker: &mut Option<msl::worker::Worker>,
    verdict: &mut bool,
    take_next: Option<&mut TakeNext<'_>>,
    t: &mut StageTimes,
) -> Result<Kernel, Error> {
    let fail = |k: ErrorKind| Error::new(Some(&input.name), Some(&e.name), k);
    let (workgroup, layout) = match prepare_entry(input, e, options, t) {
        Ok(p) => p,
        Err(err) => {
            settle(worker, verdict, t, &input.name)?;
            return Err(err);
        }
    };
    let generated = match &options.isolation {
        Isolation::InProcess => t
            .time(Stage::Generate, || {
                msl::generate(words, &e.name, &layout, msl_opts)
            })
            .map_err(|k| fail(k.into()))?,
        #[cfg(unix)]
        Isolation::Guarded { time_limit } => {
            let lines = guard_lines(&input.name, Some(&e.name), "SPIRV-Cross", *time_limit);
            t.time(Stage::Generate, || {
                crate::driver::guard::run(lines, *time_limit, || {
                    msl::worker::crash_for_test_before(false);
                    msl::generate(words, &e.name, &layout, msl_opts)
                })
            })
            .map_err(|k| fail(k.into()))?
        }
        _ => {
            let w = running_worker(worker, &options.isolation, t).map_err(fail)?;
            // The worker holds the module since it was sent for validation;
            // it takes this request up once the module is found valid.
            let start = Instant::now();
            w.send_generate(&e.name, &layout, msl_opts);
            t.add(Stage::Worker, start.elapsed());
            settle(worker, verdict, t, &input.name)?;
            // The module's last MSL is on its way: start the next module.
            if let Some(next) = take_next {
                next(worker);
            }
            let Some(w) = worker.as_mut() else {
                return Err(fail(ErrorKind::Internal("the worker is gone".into())));
            };
            let reply = w.generated();
            t.add(Stage::Generate, w.last_work());
            t.add(Stage::Worker, w.last_wait().saturating_sub(w.last_work()));
            match reply {
                Ok(g) => g,
                Err(err) => {
                    worker_failed(worker, &err);
                    return Err(fail(ErrorKind::Worker(err)));
                }
            }
        }
    };
    let mut workgroup = workgroup;
    let function_constants = t.time(Stage::CheckMsl, || {
        msl::check::check(
            &generated.source,
            &generated.function_name,
            &layout,
            &workgroup,
        )
        .map_err(|m| {
            fail(ErrorKind::Internal(format!(
                "generated MSL does not match the layout: {m}"
            )))
        })?;
        // Only a module with clustered subgroup operations can hold the
        // helpers looked for: other modules' MSL is not scanned.
        let clustered = info
            .capabilities
            .iter()
            .any(|c| c == "GroupNonUniformClustered");
        if let Some(why) = clustered
            .then(|| msl::check::known_miscompile(&generated.source))
            .flatten()
        {
            return Err(fail(ErrorKind::Rejected(why.into())));
        }
        // Variable pointers: SPIRV-Cross declares an OpPhi of Workgroup
        // pointers with its address space twice, which Metal rejects.
        let variable_pointers = info
            .capabilities
            .iter()
            .any(|c| c == "VariablePointers" || c == "VariablePointersStorageBuffer");
        if let Some((line, text)) = variable_pointers
            .then(|| msl::check::doubled_address_space(&generated.source))
            .flatten()
        {
            return Err(fail(ErrorKind::Rejected(format!(
                "a variable pointer that SPIRV-Cross declares with two address spaces, which Metal's compiler rejects (MSL line {line}: `{text}`): a pointer into Workgroup memory carried by OpPhi (through a loop) is not supported"
            ))));
        }
        function_constants(&generated.source, &info.spec_constants, &mut workgroup).map_err(fail)
    })?;
    Ok(Kernel {
        name,
        input: input.name.clone(),
        entry: e.clone(),
        workgroup,
        layout,
        msl: generated,
        function_constants,
        baked: rewrites.baked.clone(),
        debug_printfs: rewrites.debug_printfs,
        capabilities: info.capabilities.clone(),
        metallib: None,
        blocks: spirv::Blocks::default(),
    })
}

/// The kernel's Metal function constants: the spec constants its MSL
/// declares `[[function_constant(id)]]`, each recorded with the type Metal
/// declares it as. SpecIds SPIRV-Cross fixed as macros (they size arrays)
/// are not function constants: a workgroup dimension they drive is fixed.
fn function_constants(
    msl: &str,
    specs: &[spirv::SpecConstant],
    workgroup: &mut spirv::WorkgroupSize,
) -> Result<Vec<spirv::SpecConstant>, ErrorKind> {
    let used = msl::check::spec_constant_use(msl)
        .map_err(|m| ErrorKind::Internal(format!("generated MSL: {m}")))?;
    let mut out = Vec::new();
    for sc in specs {
        let declared = used.function_constants.get(&sc.id);
        if declared.is_some() && used.macros.contains(&sc.id) {
            return Err(ErrorKind::Rejected(format!(
                "SpecId {} sizes an array, which SPIRV-Cross fixes when it generates the MSL, and is also read as a value, which stays a Metal function constant: specialising it at run time would change one and not the other; bake it with --spec {}=VALUE",
                sc.id, sc.id
            )));
        }
        let Some(msl_ty) = declared else { continue };
        // Metal's function constant has the type of the declaration
        // SPIRV-Cross chose; the others read its bits as their own type.
        let mut decls: Vec<spirv::reflect::SpecAlias> =
            std::iter::once(spirv::reflect::SpecAlias {
                ty: sc.ty,
                default: sc.default,
                name: sc.name.clone(),
            })
            .chain(sc.aliases.iter().cloned())
            .collect();
        let Some(main) = decls
            .iter()
            .position(|d| msl::check::msl_scalar(d.ty) == Some(msl_ty.as_str()))
        else {
            return Err(ErrorKind::Internal(format!(
                "function constant {} is declared as {msl_ty} in the MSL, but SpecId {} is a {}",
                sc.id, sc.id, sc.ty
            )));
        };
        let first = decls.remove(main);
        out.push(spirv::SpecConstant {
            id: sc.id,
            ty: first.ty,
            default: first.default,
            name: first.name,
            aliases: decls,
        });
    }
    if let Some(id) = used
        .function_constants
        .keys()
        .find(|id| !specs.iter().any(|s| s.id == **id))
    {
        return Err(ErrorKind::Internal(format!(
            "the MSL declares function constant {id}, which is no open spec constant"
        )));
    }
    for d in &mut workgroup.dims {
        if d.spec_id.is_some_and(|id| !out.iter().any(|c| c.id == id)) {
            d.spec_id = None;
        }
    }
    // A SpecId that sizes the workgroup and also declares a constant of
    // another type (valid SPIR-V: both read the same bytes) may become a
    // non-integer function constant; the executable sizes threadgroups
    // from integer function constants only.
    for (axis, d) in ["x", "y", "z"].iter().zip(&workgroup.dims) {
        let Some(c) = d.spec_id.and_then(|id| out.iter().find(|c| c.id == id)) else {
            continue;
        };
        if !matches!(c.ty, spirv::ScalarType::Int(_) | spirv::ScalarType::UInt(_)) {
            let name = c
                .name
                .as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default();
            return Err(ErrorKind::Rejected(format!(
                "SpecId {} sets the workgroup size {axis} and also declares the {} constant{name}, which is the type Metal gives function constant {}: a threadgroup dimension must be an integer constant; give the workgroup size a SpecId of its own",
                c.id, c.ty, c.id
            )));
        }
    }
    Ok(out)
}
