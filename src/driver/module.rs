//! A module's stages before its entry points: the header, `--spec` values
//! baked and halc's checks, in this process (`parse_stages`); then
//! SPIRV-Tools' validator (in the worker, beside what follows, or here) and
//! reflection with the module-level refusals (`send_and_reflect`).

use std::time::Instant;

#[cfg(unix)]
use crate::driver::isolation::guard_lines;
use crate::driver::workers::running_worker;
use crate::model::timings::{Stage, StageTimes};
use crate::model::{Error, ErrorKind, Input, Isolation, Options};
use crate::msl;
use crate::spirv::{self, ExecutionModel, SpecValue, SpirvError};

/// What the parse stages changed in a module before anything else read it.
pub(super) struct Rewrites {
    /// SpecIds baked (`--spec`) or fixed (sizing an array and read as a
    /// value).
    pub(super) baked: Vec<spirv::specialize::Baked>,
    /// `debugPrintfEXT` calls removed with its non-semantic instructions.
    pub(super) debug_printfs: u32,
}

pub(super) type Module = (
    spirv::Words,
    Rewrites,
    spirv::ModuleInfo,
    std::collections::HashMap<String, spirv::Blocks>,
);

/// Header, `--spec` and checks: this process's work before the validator.
pub(super) fn parse_stages(
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
    // Each rewrite copies the module: none when there is nothing to remove,
    // rewrite or bake. Non-semantic instructions (debug information,
    // debugPrintf) go first: nothing after sees them.
    let (words, debug_printfs, mut baked) = t
        .time(Stage::Parse, || {
            let words = spirv::Words::from_bytes(&input.bytes)?;
            let (words, stripped) = match spirv::strip::strip_non_semantic(&words)? {
                Some((w, s)) => (w, s),
                None => (words, spirv::strip::Stripped::default()),
            };
            // Subgroup-scope Groups instructions (GL_AMD_shader_ballot)
            // become GroupNonUniform ones; everything after, the validator
            // included, reads the rewritten module.
            let words = match spirv::groups::rewrite_groups(&words)? {
                Some((w, _)) => w,
                None => words,
            };
            // Arrays of ray queries become one variable per element, and
            // OpRayQueryGetRayFlagsKHR a load of a variable stored at each
            // initialisation: SPIRV-Cross's MSL has neither.
            let words = match spirv::ray_queries::rewrite_ray_queries(&words)? {
                Some((w, _)) => w,
                None => words,
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
    // A signed `%` left in an array length (over plain constants: nothing
    // was fixed, and nothing folded it).
    if let Some(id) = spirv::specialize::smod_in_array_length(&words).map_err(|e| fail(e.into()))? {
        return Err(fail(ErrorKind::Rejected(format!(
            "%{id} is an OpSpecConstantOp SMod (GLSL `%` on signed integers) in an array size: SPIRV-Cross writes it as a helper function call, which MSL cannot use in an array size; write the size without a signed `%`"
        ))));
    }
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
pub(super) fn send_and_reflect(
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
pub(super) fn reflect_module(
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
