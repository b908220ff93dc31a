//! What each input produced ([`Outcome`]), merged in input order as a
//! serial run would meet it: the first error met is the one returned,
//! kernel names are unique, every `--entry` and `--spec` is used.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::model::timings::{ModuleTimings, Timings, ValidatorPlace};
use crate::model::{Compiled, Error, ErrorKind, Input, Kernel, Options};

/// What one input produced, before the merge.
pub(super) struct Outcome {
    /// SpecIds the module carries (for the unused `--spec` check).
    pub(super) spec_ids: Vec<u32>,
    /// The kernel names of its GLCompute entry points, selected or not (for
    /// the unknown `--entry` message).
    pub(super) available: Vec<String>,
    /// Its selected kernels in entry-point order, up to and including the
    /// first that failed.
    pub(super) kernels: Vec<KernelOutcome>,
    /// An error concerning the whole module: it precedes every kernel.
    pub(super) error: Option<Error>,
    pub(super) timings: ModuleTimings,
}

pub(super) struct KernelOutcome {
    /// Kernel name.
    pub(super) name: String,
    /// Entry-point name.
    pub(super) entry: String,
    /// The `--entry` values that selected it.
    pub(super) selected_by: Vec<String>,
    pub(super) result: Result<Kernel, Error>,
}

pub(super) fn new_outcome(input: &Input) -> Outcome {
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

/// Walks the outcomes in input order as a serial compile would: the first
/// error met is returned.
pub(super) fn merge(
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
