//! `halc`: an ahead-of-time compiler and packager for SPIR-V compute kernels
//! targeting Apple's Metal.
//!
//! The pipeline moves data forward only:
//!
//! ```text
//! bytes ─► spirv::Words (header, byte order)
//!       ─► spirv::specialize (bake --spec values)
//!       ─► spirv::reflect (per entry point: workgroup size, resources, …)
//!       ─► msl::layout (the binding contract: every Metal slot)
//!       ─► msl::generate (SPIRV-Cross, explicit remaps) ─► msl::check
//!       ─► flatbuffer::write ─► one executable file
//! ```
//!
//! [`compile`] runs it over a set of inputs. The library never prints and
//! never exits; the `halc` binary is a thin CLI over it.

#![deny(missing_docs)]

pub mod flatbuffer;
pub mod inspect;
pub mod msl;
pub mod spirv;

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use msl::{BindingModel, KernelLayout, LayoutOptions, MslOptions, MslVersion, Platform, Tier};
use spirv::{ExecutionModel, SpecValue, SpirvError};

pub use runtime_loader;

/// Metal's limit on threads per threadgroup.
pub const MAX_THREADS_PER_THREADGROUP: u32 =
    runtime_loader::schema::MetalLimits::MaxThreadsPerThreadgroup.0;
/// Metal's limit on static threadgroup memory.
pub const MAX_THREADGROUP_MEMORY_BYTES: u32 =
    runtime_loader::schema::MetalLimits::MaxThreadgroupMemoryBytes.0;

/// One SPIR-V input.
#[derive(Debug, Clone)]
pub struct Input {
    /// How errors name it (usually the path as given).
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

/// Math mode of the Metal compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum MathMode {
    /// IEEE-respecting math (halc's default).
    #[default]
    Safe,
    /// Metal fast math.
    Fast,
}

/// Everything that shapes the output.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Compile only these entry points (all GLCompute ones when empty).
    pub entries: Vec<String>,
    /// Spec-constant values to bake.
    pub specs: Vec<SpecValue>,
    /// Binding model, platform, tier and pins.
    pub layout: LayoutOptions,
    /// MSL version.
    pub msl_version: MslVersion,
    /// Math mode recorded for the runtime / metallib build.
    pub math_mode: MathMode,
    /// Text of the binding map, for the build info hash.
    pub binding_map_text: Option<String>,
    /// Where SPIRV-Cross runs.
    pub isolation: Isolation,
    /// Limits checked before work starts.
    pub limits: spirv::validate::Limits,
}

/// Where SPIRV-Cross (C++) runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Isolation {
    /// In this process: fastest; a crash in SPIRV-Cross takes the process
    /// down (input is validated first, which rejected every crasher we
    /// measured).
    #[default]
    InProcess,
    /// In one child process per `compile` call, running
    /// `program __msl-worker` (the `halc` binary), which also runs
    /// SPIRV-Tools' validator: a crash becomes an error, and so does a
    /// request (validating a module, or generating one kernel's MSL) that
    /// takes longer than `time_limit`.
    Subprocess {
        /// The `halc` binary.
        program: std::path::PathBuf,
        /// Longest time one request may take.
        time_limit: std::time::Duration,
    },
}

/// Default for [`Isolation::Subprocess`]'s time limit: far above what real
/// kernels need (milliseconds), far below the hours a hostile module's
/// nesting can cost the validator.
pub const DEFAULT_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// A compiled kernel, with everything the FlatBuffer records.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// SPIR-V entry-point name.
    pub name: String,
    /// Input it came from.
    pub input: String,
    /// Reflection of the entry point.
    pub entry: spirv::EntryPoint,
    /// Its workgroup size.
    pub workgroup: spirv::WorkgroupSize,
    /// The binding layout.
    pub layout: KernelLayout,
    /// Generated MSL.
    pub msl: msl::GeneratedMsl,
    /// Open spec constants (Metal function constants).
    pub function_constants: Vec<spirv::SpecConstant>,
    /// Values baked with `--spec`.
    pub baked: Vec<spirv::specialize::Baked>,
    /// Declared capabilities.
    pub capabilities: Vec<String>,
    /// Precompiled library, when built with `--metallib`.
    pub metallib: Option<Metallib>,
}

/// A compiled Metal library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metallib {
    /// The `.metallib` bytes.
    pub bytes: Vec<u8>,
    /// The toolchain that built it, as it describes itself.
    pub toolchain: String,
}

/// The result of a compile.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// Kernels sorted by name.
    pub kernels: Vec<Kernel>,
    /// The options used.
    pub options: Options,
    /// SHA-256 over the inputs.
    pub inputs_sha256: String,
    /// Whether libraries keep their MSL source (false with `--no-msl`).
    pub keep_msl: bool,
}

impl Compiled {
    /// Serialises the executable (deterministic).
    pub fn to_flatbuffer(&self) -> Vec<u8> {
        flatbuffer::write(self)
    }
}

/// What went wrong, without the location.
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    /// Reading or reflecting SPIR-V.
    #[error(transparent)]
    Spirv(#[from] SpirvError),
    /// The layout cannot be built.
    #[error(transparent)]
    Layout(#[from] msl::LayoutError),
    /// SPIRV-Cross failed.
    #[error(transparent)]
    Cross(#[from] msl::CrossError),
    /// A Metal limit is exceeded, or the input is not compilable.
    #[error("{0}")]
    Rejected(String),
    /// Bad options (unknown entry point, unused --spec, ...).
    #[error("{0}")]
    Options(String),
    /// The SPIRV-Cross worker failed or crashed.
    #[error(transparent)]
    Worker(msl::worker::WorkerError),
    /// halc produced something inconsistent; a bug, never silent.
    #[error("internal error: {0}")]
    Internal(String),
}

/// An error with the file and entry point it concerns.
#[derive(Debug)]
pub struct Error {
    /// Input file, when the error concerns one.
    pub file: Option<String>,
    /// Entry point, when the error concerns one.
    pub entry: Option<String>,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        if let Some(entry) = &self.entry {
            write!(f, "entry point `{entry}`: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for Error {}

impl Error {
    fn new(file: Option<&str>, entry: Option<&str>, kind: impl Into<ErrorKind>) -> Self {
        Error {
            file: file.map(str::to_string),
            entry: entry.map(str::to_string),
            kind: kind.into(),
        }
    }
}

/// Compiles `inputs` into kernels.
pub fn compile(inputs: &[Input], options: &Options) -> Result<Compiled, Error> {
    if inputs.is_empty() {
        return Err(Error::new(
            None,
            None,
            ErrorKind::Options("no input files".into()),
        ));
    }
    let msl_opts = MslOptions {
        version: options.msl_version,
        platform: options.layout.platform,
        tier: options.layout.tier,
    };
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
    let mut spec_used: BTreeSet<u32> = BTreeSet::new();
    let mut entries_found: BTreeSet<&str> = BTreeSet::new();
    let mut kernels: BTreeMap<String, Kernel> = BTreeMap::new();
    let mut hasher = Sha256::new();
    let mut worker: Option<msl::worker::Worker> = None;

    for input in inputs {
        let file = Some(input.name.as_str());
        hasher.update((input.bytes.len() as u64).to_le_bytes());
        hasher.update(&input.bytes);
        let fail = |k: ErrorKind| Error::new(file, None, k);
        let words = spirv::Words::from_bytes(&input.bytes).map_err(|e| fail(e.into()))?;
        let (words, baked) =
            spirv::specialize(&words, &options.specs).map_err(|e| fail(e.into()))?;
        spec_used.extend(baked.iter().map(|b| b.id));
        match &options.isolation {
            Isolation::InProcess => spirv::validate::validate(&words, &options.limits),
            Isolation::Subprocess { .. } => {
                spirv::validate::check(&words, &options.limits).map_err(|e| fail(e.into()))?;
                let w = running_worker(&mut worker, &options.isolation).map_err(fail)?;
                w.validate(&words).map_err(|err| {
                    worker_failed(&mut worker, &err);
                    fail(ErrorKind::Worker(err))
                })?
            }
        }
        .map_err(|e| fail(e.into()))?;
        // rspirv is Rust: contain a panic on hostile input as an error.
        let info = std::panic::catch_unwind(|| spirv::reflect(&words))
            .unwrap_or_else(|_| {
                Err(SpirvError::Parse(
                    "the SPIR-V reader (rspirv) failed on this module".into(),
                ))
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
        for e in computes {
            if !options.entries.is_empty() && !options.entries.contains(&e.name) {
                continue;
            }
            if let Some(n) = options.entries.iter().find(|n| **n == e.name) {
                entries_found.insert(n.as_str());
            }
            let kernel = compile_entry(
                input,
                &words,
                &info,
                e,
                &baked,
                options,
                &msl_opts,
                &mut worker,
            )?;
            if let Some(prev) = kernels.get(&kernel.name) {
                return Err(Error::new(
                    file,
                    Some(&kernel.name),
                    ErrorKind::Rejected(format!(
                        "kernel name collides with the entry point of the same name in {}; kernel names must be unique in an executable (select one with --entry)",
                        prev.input
                    )),
                ));
            }
            kernels.insert(kernel.name.clone(), kernel);
        }
    }
    for name in &options.entries {
        if !entries_found.contains(name.as_str()) {
            return Err(Error::new(
                None,
                None,
                ErrorKind::Options(format!(
                    "--entry {name}: no input has a GLCompute entry point named `{name}`"
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
    })
}

/// The worker, started on first use.
fn running_worker<'w>(
    worker: &'w mut Option<msl::worker::Worker>,
    isolation: &Isolation,
) -> Result<&'w mut msl::worker::Worker, ErrorKind> {
    if let (
        None,
        Isolation::Subprocess {
            program,
            time_limit,
        },
    ) = (&*worker, isolation)
    {
        *worker =
            Some(msl::worker::Worker::spawn(program, *time_limit).map_err(ErrorKind::Worker)?);
    }
    worker
        .as_mut()
        .ok_or_else(|| ErrorKind::Internal("no worker for in-process isolation".into()))
}

/// A dead (crashed or killed) worker cannot serve the next request.
fn worker_failed(worker: &mut Option<msl::worker::Worker>, err: &msl::worker::WorkerError) {
    if matches!(
        err,
        msl::worker::WorkerError::Crashed(..) | msl::worker::WorkerError::TimedOut(..)
    ) {
        *worker = None;
    }
}

#[allow(clippy::too_many_arguments)]
fn compile_entry(
    input: &Input,
    words: &spirv::Words,
    info: &spirv::ModuleInfo,
    e: &spirv::EntryPoint,
    baked: &[spirv::specialize::Baked],
    options: &Options,
    msl_opts: &MslOptions,
    worker: &mut Option<msl::worker::Worker>,
) -> Result<Kernel, Error> {
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
    let layout = msl::layout(e, &options.layout).map_err(|k| fail(k.into()))?;
    let generated = match &options.isolation {
        Isolation::InProcess => {
            msl::generate(words, &e.name, &layout, msl_opts).map_err(|k| fail(k.into()))?
        }
        Isolation::Subprocess { .. } => {
            let w = running_worker(worker, &options.isolation).map_err(fail)?;
            // The worker holds the module since validating it.
            w.generate(&e.name, &layout, msl_opts).map_err(|err| {
                worker_failed(worker, &err);
                fail(ErrorKind::Worker(err))
            })?
        }
    };
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
    Ok(Kernel {
        name: e.name.clone(),
        input: input.name.clone(),
        entry: e.clone(),
        workgroup,
        layout,
        msl: generated,
        function_constants: info.spec_constants.clone(),
        baked: baked.to_vec(),
        capabilities: info.capabilities.clone(),
        metallib: None,
    })
}

impl Options {
    /// Canonical `key=value` lines of the options that shape the output.
    pub fn canonical(&self) -> Vec<String> {
        let mut v = vec![
            format!(
                "bindings={}",
                match self.layout.model {
                    BindingModel::ArgumentBuffers => "argument-buffers",
                    BindingModel::Discrete => "discrete",
                }
            ),
            format!("msl-version={}", self.msl_version),
            format!(
                "platform={}",
                match self.layout.platform {
                    Platform::MacOS => "macos",
                    Platform::IOS => "ios",
                }
            ),
            format!(
                "argument-buffer-tier={}",
                match self.layout.tier {
                    Tier::Tier1 => 1,
                    Tier::Tier2 => 2,
                }
            ),
            format!(
                "math={}",
                match self.math_mode {
                    MathMode::Safe => "safe",
                    MathMode::Fast => "fast",
                }
            ),
        ];
        for e in &self.entries {
            v.push(format!("entry={e}"));
        }
        let mut specs = self.specs.clone();
        specs.sort();
        for s in specs {
            v.push(format!("spec={}={}", s.id, s.text));
        }
        if let Some(text) = &self.binding_map_text {
            let h = Sha256::digest(text.as_bytes());
            let hex: String = h.iter().map(|b| format!("{b:02x}")).collect();
            v.push(format!("binding-map-sha256={hex}"));
        }
        v
    }
}
