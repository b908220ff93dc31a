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

pub mod amber;
pub mod build;
#[cfg(all(unix, feature = "run"))]
pub mod diff;
pub mod flatbuffer;
pub mod glsl;
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
    /// How errors name it (usually the path as given). Its file stem names
    /// the kernel of an entry point called `main`.
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Explicit kernel names for some of its entry points.
    pub renames: Vec<Rename>,
}

impl Input {
    /// An input with no renames.
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> Self {
        Input {
            name: name.into(),
            bytes,
            renames: Vec::new(),
        }
    }

    /// Names the kernel of entry point `entry` `name`.
    pub fn rename(mut self, entry: impl Into<String>, name: impl Into<String>) -> Self {
        self.renames.push(Rename {
            entry: entry.into(),
            name: name.into(),
        });
        self
    }

    /// The kernel name of entry point `entry`: an explicit rename, else the
    /// file stem for `main` (glslc names every entry point `main`), else the
    /// entry-point name.
    pub fn kernel_name(&self, entry: &str) -> String {
        if let Some(r) = self.renames.iter().find(|r| r.entry == entry) {
            return r.name.clone();
        }
        if entry == "main" {
            if let Some(stem) = std::path::Path::new(&self.name)
                .file_stem()
                .and_then(|s| s.to_str())
                .filter(|s| !s.is_empty())
            {
                return stem.to_string();
            }
        }
        entry.to_string()
    }
}

/// An explicit kernel name for one entry point of an input
/// (`halc compile file.spv:ENTRY=NAME`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rename {
    /// SPIR-V entry-point name.
    pub entry: String,
    /// Kernel name in the executable.
    pub name: String,
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
    /// Name in the executable (see [`Input::kernel_name`]); the SPIR-V
    /// entry-point name is `entry.name`.
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
    /// The structure of its push-constant and buffer blocks.
    pub blocks: spirv::Blocks,
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
        let mut blocks = std::panic::catch_unwind(|| spirv::blocks::blocks(&words))
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
        for r in &input.renames {
            if !computes.iter().any(|e| e.name == r.entry) {
                return Err(fail(ErrorKind::Options(format!(
                    "rename {}={}: the module has no GLCompute entry point `{}`",
                    r.entry, r.name, r.entry
                ))));
            }
            if r.name.is_empty() || r.name.chars().any(char::is_control) {
                return Err(fail(ErrorKind::Options(format!(
                    "rename {}={:?}: a kernel name must be non-empty and printable",
                    r.entry, r.name
                ))));
            }
        }
        for e in computes {
            let name = input.kernel_name(&e.name);
            // --entry selects by entry-point name or by kernel name.
            let selected: Vec<&String> = options
                .entries
                .iter()
                .filter(|n| **n == e.name || **n == name)
                .collect();
            if !options.entries.is_empty() && selected.is_empty() {
                continue;
            }
            entries_found.extend(selected.iter().map(|n| n.as_str()));
            if let Some(prev) = kernels.get(&name) {
                return Err(Error::new(
                    file,
                    Some(&e.name),
                    ErrorKind::Rejected(format!(
                        "kernel name `{name}` is already taken by entry point `{}` of {}; kernel names must be unique in an executable: rename one with FILE:ENTRY=NAME",
                        prev.entry.name, prev.input
                    )),
                ));
            }
            let mut kernel = compile_entry(
                input,
                name.clone(),
                &words,
                &info,
                e,
                &baked,
                options,
                &msl_opts,
                &mut worker,
            )?;
            kernel.blocks = blocks.remove(&e.name).unwrap_or_default();
            kernels.insert(name, kernel);
        }
    }
    for name in &options.entries {
        if !entries_found.contains(name.as_str()) {
            return Err(Error::new(
                None,
                None,
                ErrorKind::Options(format!(
                    "--entry {name}: no input has a GLCompute entry point or kernel named `{name}`"
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
    name: String,
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
    let mut workgroup = workgroup;
    let function_constants =
        function_constants(&generated.source, &info.spec_constants, &mut workgroup)
            .map_err(fail)?;
    Ok(Kernel {
        name,
        input: input.name.clone(),
        entry: e.clone(),
        workgroup,
        layout,
        msl: generated,
        function_constants,
        baked: baked.to_vec(),
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
    Ok(out)
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
