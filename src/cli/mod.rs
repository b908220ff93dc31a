//! The subcommands, one file each, and what they share: the target flags
//! and reading and writing files.

pub mod batch;
pub mod build;
pub mod check;
pub mod compile;
pub mod diff;
pub mod extras;
pub mod inspect;
pub mod test;
pub mod worker;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::ValueEnum;

use halc::glsl::{
    source_kind, GlslCache, GlslError, GlslOptions, LazyGlslc, SourceKind, TargetEnv,
};
use halc::msl::{BindingMap, BindingModel, LayoutOptions, MslVersion, Platform, Tier};
use halc::{MathMode, Options};

#[derive(Clone, Copy, ValueEnum)]
pub enum BindingsArg {
    /// One argument buffer per descriptor set (default).
    ArgumentBuffers,
    /// Every resource in its own [[buffer]]/[[texture]]/[[sampler]] slot.
    Discrete,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum PlatformArg {
    Macos,
    Ios,
}

/// What the generated MSL targets (shared by `compile` and `test`).
#[derive(clap::Args)]
pub struct TargetArgs {
    /// How resources are bound.
    #[arg(long, value_enum, default_value = "argument-buffers")]
    bindings: BindingsArg,
    /// MSL language version, 2.0 to 3.2.
    #[arg(long, default_value = "3.0", value_name = "X.Y")]
    msl_version: MslVersion,
    /// Target platform.
    #[arg(long, value_enum, default_value = "macos")]
    platform: PlatformArg,
    /// Argument-buffer tier of the target devices.
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u8).range(1..=2))]
    argument_buffer_tier: u8,
    /// Use Metal fast math (default: safe math, recorded in the executable).
    #[arg(long)]
    fast_math: bool,
}

impl TargetArgs {
    /// The options these flags set, over the defaults.
    pub fn options(&self, map: BindingMap, map_text: Option<String>) -> Options {
        Options {
            layout: LayoutOptions {
                model: match self.bindings {
                    BindingsArg::ArgumentBuffers => BindingModel::ArgumentBuffers,
                    BindingsArg::Discrete => BindingModel::Discrete,
                },
                platform: match self.platform {
                    PlatformArg::Macos => Platform::MacOS,
                    PlatformArg::Ios => Platform::IOS,
                },
                tier: if self.argument_buffer_tier == 1 {
                    Tier::Tier1
                } else {
                    Tier::Tier2
                },
                map,
            },
            msl_version: self.msl_version,
            math_mode: if self.fast_math {
                MathMode::Fast
            } else {
                MathMode::Safe
            },
            binding_map_text: map_text,
            ..Options::default()
        }
    }
}

/// How `compile` and `diff` compile their GLSL inputs: glslc found and
/// run as `halc build` runs it ([`halc::glsl`]), with the same options.
#[derive(clap::Args)]
pub struct GlslArgs {
    /// The glslc for GLSL inputs (default: $HALC_GLSLC, else glslc on PATH).
    #[arg(long, value_name = "PATH")]
    pub glslc: Option<PathBuf>,
    /// Keep glslc's outputs in DIR, and on later runs run glslc only on the
    /// GLSL inputs whose files changed (as `halc build --glslc-cache`).
    #[arg(long, value_name = "DIR")]
    pub glslc_cache: Option<PathBuf>,
    /// glslc's target for GLSL inputs: vulkan1.0 … vulkan1.3 or spv1.0 …
    /// spv1.6 [default: vulkan1.0].
    #[arg(long, value_name = "ENV")]
    target_env: Option<TargetEnv>,
    /// Search DIR for a GLSL input's `#include`s (repeatable, in order).
    #[arg(short = 'I', value_name = "DIR")]
    include_dirs: Vec<PathBuf>,
    /// Define a GLSL macro for every GLSL input (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
}

/// A kernel source read by [`GlslArgs::read_kernels`].
pub struct KernelSource {
    /// The SPIR-V (glslc's, for a GLSL source).
    pub spirv: Vec<u8>,
    /// Every file it was made from: the source, and a GLSL source's
    /// `#include`s.
    pub dependencies: Vec<PathBuf>,
    /// The time reading it took (for a GLSL source, with its share of
    /// glslc's).
    pub read: std::time::Duration,
}

impl GlslArgs {
    /// Whether any GLSL-only option was given.
    fn any_given(&self) -> bool {
        self.target_env.is_some() || !self.include_dirs.is_empty() || !self.defines.is_empty()
    }

    fn options(&self) -> GlslOptions {
        GlslOptions {
            target_env: self.target_env.unwrap_or_default(),
            defines: (self.defines.iter())
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.clone(), None),
                })
                .collect(),
            include_dirs: self.include_dirs.clone(),
            ..GlslOptions::default()
        }
    }

    /// Reads every kernel source, in order: SPIR-V as it is, GLSL through
    /// glslc (several at once, up to `jobs`, 0 meaning one per core); what
    /// each is comes from [`halc::glsl::source_kind`], and a file that is
    /// neither is an error naming both. `limit` bounds a file's size.
    pub fn read_kernels(
        &self,
        paths: &[&Path],
        limit: usize,
        jobs: usize,
    ) -> Result<Vec<KernelSource>> {
        let mut read = Vec::with_capacity(paths.len());
        let mut times = Vec::with_capacity(paths.len());
        for path in paths {
            let start = std::time::Instant::now();
            let bytes = read_input(path, "a SPIR-V file or a GLSL source", limit)?;
            let kind = source_kind(path, &bytes).ok_or_else(|| {
                anyhow!(
                    "{}: neither a SPIR-V module (it does not start with the magic number 0x07230203) nor GLSL (name it .comp or .glsl, for glslc)",
                    path.display()
                )
            })?;
            read.push((bytes, kind));
            times.push(start.elapsed());
        }
        let opts = self.options();
        let glsl: Vec<Option<(&Path, &GlslOptions)>> = (paths.iter().zip(&read))
            .map(|(p, (_, kind))| (*kind == SourceKind::Glsl).then_some((*p, &opts)))
            .collect();
        if glsl.iter().all(Option::is_none) && self.any_given() {
            eprintln!(
                "warning: --target-env, -I and -D apply to GLSL inputs, and every input is SPIR-V"
            );
        }
        let mut glslc = LazyGlslc::new(self.glslc.clone());
        let start = std::time::Instant::now();
        let compiled = match &self.glslc_cache {
            Some(dir) => glslc.compile_all_cached(&glsl, jobs, &GlslCache::new(dir.clone())),
            None => glslc.compile_all(&glsl, jobs),
        };
        let n_glsl = glsl.iter().flatten().count();
        let glslc_share = start.elapsed() / u32::try_from(n_glsl.max(1)).unwrap_or(u32::MAX);
        let mut out = Vec::with_capacity(paths.len());
        for (i, ((bytes, _), compiled)) in read.into_iter().zip(compiled).enumerate() {
            let shown = paths[i].display();
            out.push(match (compiled, glsl[i]) {
                (None, None) => KernelSource {
                    spirv: bytes,
                    dependencies: vec![paths[i].to_path_buf()],
                    read: times[i],
                },
                // A GLSL source after one glslc rejected.
                (None, Some(_)) => bail!("{shown}: not compiled"),
                (Some(Ok(o)), _) => KernelSource {
                    spirv: o.spirv,
                    dependencies: o.dependencies,
                    read: times[i] + glslc_share,
                },
                (Some(Err(e)), _) => match e {
                    // These name the file (glslc's own message: `file:line`).
                    GlslError::Compile { .. }
                    | GlslError::NotCompute { .. }
                    | GlslError::Io { .. } => {
                        bail!("{e}")
                    }
                    e => bail!("{shown}: {e}"),
                },
            });
        }
        Ok(out)
    }
}

/// What a build changed that the user should know ([`halc::Compiled::warnings`]),
/// with `--spec ID=VALUE` as the way to choose a SpecId.
pub fn build_warnings(compiled: &halc::Compiled) -> Vec<String> {
    compiled
        .warnings()
        .iter()
        .map(|w| w.message(|id| format!("--spec {id}=VALUE")))
        .collect()
}

/// Reads at most `limit` bytes: a larger file, or an endless one such as
/// `/dev/zero` or a pipe, is refused before it is buffered.
pub fn read_input(path: &Path, what: &str, limit: usize) -> Result<Vec<u8>> {
    use std::io::Read;
    let shown = path.display();
    let cannot = |e: std::io::Error| anyhow!("{shown}: cannot read: {}", io_reason(&e));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if meta.is_dir() {
        bail!("{shown}: is a directory, expected {what}");
    }
    let too_large = || anyhow!("{shown}: larger than halc's input limit of {limit} bytes");
    if meta.len() > limit as u64 {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(limit as u64 + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Checks that `out` can be written without touching any input.
/// With `create_dirs`, a missing directory is fine (it is created when the
/// output is written) unless a file stands in its way.
pub fn check_output_in(out: &Path, inputs: &[PathBuf], create_dirs: bool) -> Result<()> {
    let shown = out.display();
    if out.is_dir() {
        bail!("{shown}: output path is a directory");
    }
    let dir = parent_dir(out);
    if create_dirs {
        if let Some(file) = dir.ancestors().find(|a| a.is_file()) {
            bail!(
                "{shown}: cannot write output: {} is a file, not a directory",
                file.display()
            );
        }
    } else if !dir.is_dir() {
        bail!(
            "{shown}: cannot write output: directory {} does not exist",
            dir.display()
        );
    }
    if let Ok(o) = out.canonicalize() {
        for i in inputs {
            if i.canonicalize().ok().as_deref() == Some(o.as_path()) {
                bail!("{shown}: output would overwrite input {}", i.display());
            }
        }
    }
    Ok(())
}

/// A `-j N` argument as `Options::jobs` takes it: 0 (not given) means
/// one per core, or what a jobserver grants.
pub fn jobs(arg: Option<u64>) -> usize {
    arg.map_or(0, |j| usize::try_from(j).unwrap_or(usize::MAX))
}

pub fn parent_dir(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to `path` through a temp file in the same directory that
/// replaces it whole (`halc::output::persist`): a failed run never leaves a
/// partial or clobbered file. A device or FIFO at `path` (`/dev/null`) is
/// written into instead. No fsync, as compilers and linkers do not: it cost
/// 3 to 8 ms per run, more than the whole SPIRV-Cross CLI, and durability
/// across a power loss is the build system's concern.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if halc::output::writes_through(path) {
        // `-o /dev/null`, `--reflection /dev/stdout`: write into it.
        return std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| f.write_all(bytes))
            .with_context(|| format!("{}: cannot write", path.display()));
    }
    let dir = parent_dir(path);
    let mut tmp = halc::output::temp_file_in(dir, ".halc-").with_context(|| {
        format!(
            "{}: cannot create a temporary file in {}",
            path.display(),
            dir.display()
        )
    })?;
    tmp.write_all(bytes)
        .with_context(|| format!("{}: cannot write", path.display()))?;
    halc::output::persist(tmp, path)
        .map_err(|e| anyhow!("{}: cannot write: {}", path.display(), e))?;
    Ok(())
}

/// Flags that change how, not what, a manifest builds.
pub struct Operational {
    /// Rewrite locks.
    pub update_lock: bool,
    /// `--check-msl`.
    pub check_msl: bool,
    /// `--in-process`.
    pub in_process: bool,
    /// `--time-limit`.
    pub time_limit: u64,
    /// `--worker-start`.
    pub start: Option<worker::WorkerStart>,
    /// `-j`.
    pub jobs: Option<u64>,
    /// `--quiet`.
    pub quiet: bool,
    /// `--glslc`.
    pub glslc: Option<PathBuf>,
    /// `--glslc-cache`.
    pub glslc_cache: Option<PathBuf>,
}

/// Reads and parses a `--binding-map` file.
pub(crate) fn read_binding_map(path: Option<&Path>) -> Result<(BindingMap, Option<String>)> {
    let Some(p) = path else {
        return Ok((BindingMap::default(), None));
    };
    let text = std::fs::read_to_string(p).map_err(|e| {
        anyhow!(
            "{}: cannot read binding map: {}",
            p.display(),
            io_reason(&e)
        )
    })?;
    let map = BindingMap::from_toml(&text).map_err(|e| {
        // Syntax errors carry `line:column: `; the others name the entry.
        let sep = if e.starts_with(|c: char| c.is_ascii_digit()) {
            ":"
        } else {
            ": "
        };
        anyhow!("{}{sep}{e}", p.display())
    })?;
    Ok((map, Some(text)))
}
