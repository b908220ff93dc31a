//! The pool of jobs a call runs its inputs on: how many ([`jobs`],
//! `budget`), each job taking the inputs in order (the next one begun
//! ahead), more jobs as a jobserver grants tokens (`grow`), and the
//! [`Progress`] reported as each input finishes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::driver::input::{begin_ahead, compile_input, Begun};
use crate::driver::isolation::forked;
use crate::driver::jobs::{cores, cores_cheaply, Budget, Growth};
use crate::driver::merge::Outcome;
#[cfg(unix)]
use crate::model::Isolation;
use crate::model::{Input, Options};
use crate::msl::{self, MslOptions};

/// Progress of a [`compile_observed`](crate::compile_observed) call,
/// reported once per finished input.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Inputs finished so far (successfully or not).
    pub done: usize,
    /// Inputs in the call.
    pub total: usize,
    /// The input just finished.
    pub input: &'a str,
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
pub(super) fn budget(inputs: usize, options: &Options) -> Budget {
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

/// Runs every input on `jobs` threads, and on more as `growth` allows;
/// `None` for inputs never started because an earlier one failed.
pub(super) fn run_jobs(
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
pub(super) fn grow<'scope, J>(
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
