//! `halc build [halc.toml]` (and `halc compile --manifest FILE`): every
//! executable a manifest describes. All are compiled and checked (locks)
//! before any file is written, so a failure leaves no partial build.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};

use halc::glsl::{GlslError, LazyGlslc};
use halc::manifest::Manifest;
use halc::Input;

use super::batch::Bar;
use super::extras::Extras;
use super::worker::{isolation, WorkerStart};
use super::{io_reason, read_binding_map, read_input, write_atomic, Operational};

#[derive(clap::Args)]
pub struct BuildArgs {
    /// The manifest.
    #[arg(value_name = "MANIFEST", default_value = "halc.toml")]
    manifest: PathBuf,
    /// Write each executable's ABI to its lock file instead of checking it.
    #[arg(long)]
    update_lock: bool,
    /// Compile every generated kernel's MSL against the CPU backend's shim
    /// and fail on MSL that does not compile (needs clang++ >= 15).
    #[arg(long)]
    check_msl: bool,
    /// Run the validator and SPIRV-Cross inside this process.
    #[arg(long)]
    in_process: bool,
    /// Longest time, in seconds, validating one module or generating one
    /// kernel's MSL may take.
    #[arg(long, value_name = "SECONDS", default_value_t = halc::DEFAULT_TIME_LIMIT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "in_process")]
    time_limit: u64,
    /// Modules compiled at once (default: one per core).
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    jobs: Option<u64>,
    /// How worker processes start: `fork` (Unix default) or `exec`.
    #[arg(long, value_enum, value_name = "HOW", conflicts_with = "in_process")]
    worker_start: Option<WorkerStart>,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
    /// The glslc for GLSL sources (default: $HALC_GLSLC, else glslc on PATH).
    #[arg(long, value_name = "PATH")]
    glslc: Option<PathBuf>,
    /// Keep glslc's outputs in DIR, and on later builds run glslc only on
    /// the GLSL sources whose files changed.
    #[arg(long, value_name = "DIR")]
    glslc_cache: Option<PathBuf>,
}

pub fn run(a: BuildArgs) -> Result<()> {
    build(
        &a.manifest,
        &Operational {
            update_lock: a.update_lock,
            check_msl: a.check_msl,
            in_process: a.in_process,
            time_limit: a.time_limit,
            start: a.worker_start,
            jobs: a.jobs,
            quiet: a.quiet,
            glslc: a.glslc,
            glslc_cache: a.glslc_cache,
        },
    )
}

/// Builds every executable of the manifest at `path`.
pub fn build(path: &Path, op: &Operational) -> Result<()> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow!("{shown}: cannot read manifest: {}", io_reason(&e)))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new(""),
    };
    let manifest = Manifest::parse(&text, dir).map_err(|e| anyhow!("{shown}:{e}"))?;
    if op.update_lock && manifest.executables.iter().all(|e| e.lock.is_none()) {
        bail!("{shown}: --update-lock: no executable names a lock");
    }
    let limits = halc::spirv::validate::Limits::default();
    let mut staged = Vec::new();
    let mut glslc = LazyGlslc::new(op.glslc.clone());
    for exe in &manifest.executables {
        let sources: Vec<PathBuf> = exe.kernels.iter().map(|k| k.source.clone()).collect();
        let mut extras = Extras {
            reflection: exe.reflection.as_deref(),
            lock: exe.lock.as_deref(),
            update_lock: op.update_lock,
            depfile: exe.depfile.as_deref(),
            deps: vec![path.display().to_string()],
            create_dirs: true,
        };
        extras.check(&exe.output, &sources)?;
        // glslc on every GLSL kernel at once (up to -j, or what the
        // jobserver grants, or the cores); errors in kernel order below.
        let glsl: Vec<Option<halc::glsl::GlslOptions>> = (exe.kernels.iter())
            .map(|k| {
                (!halc::glsl::is_spirv(&k.source)).then(|| {
                    let mut opts = exe.glsl.clone();
                    opts.defines.extend(k.defines.iter().cloned());
                    opts
                })
            })
            .collect();
        let sources: Vec<_> = (exe.kernels.iter().zip(&glsl))
            .map(|(k, opts)| Some((k.source.as_path(), opts.as_ref()?)))
            .collect();
        let jobs_given = super::jobs(op.jobs);
        let glsl_out = match &op.glslc_cache {
            Some(dir) => {
                let cache = halc::glsl::GlslCache::new(dir.clone());
                glslc.compile_all_cached(&sources, jobs_given, &cache)
            }
            None => glslc.compile_all(&sources, jobs_given),
        };
        let mut inputs = Vec::with_capacity(exe.kernels.len());
        for (k, glsl_out) in exe.kernels.iter().zip(glsl_out) {
            let (line, column) = k.position;
            let bytes = if halc::glsl::is_spirv(&k.source) {
                extras.deps.push(k.source.display().to_string());
                read_input(&k.source, "a SPIR-V file", limits.max_bytes)
                    .map_err(|e| anyhow!("{shown}:{line}:{column}: {e:#}"))?
            } else {
                // Every GLSL kernel before one that failed has a result, so
                // none is missing here unless an earlier one failed.
                let out = glsl_out
                    .ok_or_else(|| anyhow!("{shown}:{line}:{column}: not compiled"))?
                    .map_err(|e| match e {
                        // glslc's own message names the file and line.
                        GlslError::Compile { .. } => anyhow!("{e}"),
                        e => anyhow!("{shown}:{line}:{column}: {e}"),
                    })?;
                extras
                    .deps
                    .extend(out.dependencies.iter().map(|d| d.display().to_string()));
                out.spirv
            };
            let mut input = Input::new(k.source.display().to_string(), bytes);
            input.entries.extend(k.entry.iter().cloned());
            match (&k.entry, &k.name) {
                (Some(entry), Some(name)) => input = input.rename(entry, name),
                (None, Some(name)) => input.kernel = Some(name.clone()),
                _ => {}
            }
            input.specs = k.specs.clone();
            inputs.push(input);
        }
        extras
            .deps
            .extend(exe.binding_map.iter().map(|p| p.display().to_string()));
        let (map, map_text) = read_binding_map(exe.binding_map.as_deref())?;
        let mut options = exe.options.clone();
        options.layout.map = map;
        options.binding_map_text = map_text;
        options.limits = limits;
        // Forked workers even for one module: an error here is prefixed
        // with the executable's output, which the line a guarded crash
        // writes cannot carry.
        let start = match op.start {
            None if cfg!(unix) => Some(WorkerStart::Fork),
            start => start,
        };
        options.isolation = isolation(op.in_process, op.time_limit, start, inputs.len())?;
        options.jobs = super::jobs(op.jobs);
        let bar = Bar::new(inputs.len(), op.quiet);
        let compiled = halc::compile_observed(&inputs, &options, &|p| bar.observe(p));
        bar.finish();
        let compiled = compiled.map_err(|e| anyhow!("{}: {e}", exe.output.display()))?;
        for w in super::build_warnings(&compiled) {
            eprintln!("warning: {w}");
        }
        if op.check_msl {
            for w in super::check::check_msl(&compiled)? {
                eprintln!("warning: {w}");
            }
        }
        staged.extend(extras.stage(&exe.output, compiled.to_flatbuffer())?);
    }
    for (path, bytes) in staged {
        let dir = super::parent_dir(&path);
        std::fs::create_dir_all(dir).map_err(|e| {
            anyhow!(
                "{}: cannot create directory: {}",
                dir.display(),
                io_reason(&e)
            )
        })?;
        write_atomic(&path, &bytes)?;
    }
    Ok(())
}
