//! One input's way through the stages, by one job: its module
//! (`module.rs`), then each selected entry point (`entry.rs`), stopping at
//! the first failure; and the next input begun ahead while the worker
//! generates the last MSL (`begin_ahead`).

use crate::driver::entry::{compile_entry, TakeNext};
use crate::driver::merge::{new_outcome, KernelOutcome, Outcome};
use crate::driver::module::{parse_stages, send_and_reflect, Module, Rewrites};
use crate::driver::workers::settle;
use crate::model::timings::StageTimes;
use crate::model::{Error, ErrorKind, Input, Options};
use crate::msl::{self, MslOptions};
use crate::spirv::{self, ExecutionModel};

/// How far an input got before [`compile_input`].
pub(super) enum Begun {
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

/// The part of [`compile_input`] that waits for nothing: parse, specialise
/// and check the input, and, if the worker's pipe has room for it behind
/// what it is doing, send it to the validator and reflect it.
pub(super) fn begin_ahead(
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
pub(super) fn compile_input(
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
