//! `halc compile`: SPIR-V modules and GLSL sources to one executable.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::ValueEnum;

use halc::msl::metallib::{file_stem, MetallibError, MetallibOptions, OptLevel, Sdk, Xcrun};
use halc::spirv::SpecValue;
use halc::timings::Stage;
use halc::{Input, Options};

use super::batch::{timings_table, Bar, CliTimes};
use super::extras::Extras;
use super::worker::{isolation, WorkerStart};
use super::{read_binding_map, write_atomic, Operational, TargetArgs};

#[derive(clap::Args)]
pub struct CompileArgs {
    /// SPIR-V modules (either byte order) or GLSL compute shaders (`.comp`,
    /// `.glsl`, compiled with glslc as `halc build` does). A kernel is named
    /// after its entry point, or after the file's stem when the entry point
    /// is `main` (as glslc names them); `IN:ENTRY=NAME[,ENTRY=NAME…]` names
    /// kernels explicitly.
    #[arg(required_unless_present = "manifest", value_name = "IN[:ENTRY=NAME]", value_parser = parse_input_arg)]
    inputs: Vec<InputArg>,
    /// Output executable.
    #[arg(short, long, value_name = "OUT", required_unless_present = "manifest")]
    output: Option<PathBuf>,
    /// Build the executables a manifest (halc.toml) describes instead, as
    /// `halc build FILE` does (see docs/guide/build-integration.md, "Manifest").
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "inputs", "output", "entries", "specs", "binding_map", "emit_msl", "reflection", "lock",
        "depfile", "metallib", "timings", "bindings", "msl_version", "platform", "argument_buffer_tier", "fast_math",
        "target_env", "include_dirs", "defines",
    ])]
    manifest: Option<PathBuf>,
    /// Compile only this entry point (repeatable; default: every GLCompute one).
    #[arg(long = "entry", value_name = "NAME")]
    entries: Vec<String>,
    /// Bake a specialization constant: SpecId=value, parsed by the constant's type (repeatable).
    #[arg(long = "spec", value_name = "ID=VALUE")]
    specs: Vec<SpecValue>,
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    glsl: super::GlslArgs,
    /// TOML file pinning (set, binding) to slots or ids (see docs/guide/binding-contract.md).
    #[arg(long, value_name = "FILE")]
    binding_map: Option<PathBuf>,
    /// Also write each kernel's MSL to DIR/<kernel>.metal (characters other
    /// than ASCII letters and digits in the name become `_`).
    #[arg(long, value_name = "DIR")]
    emit_msl: Option<PathBuf>,
    /// Run the SPIR-V validator and SPIRV-Cross inside this process without
    /// crash containment: a crash in them then kills halc, and no time limit
    /// applies.
    #[arg(long)]
    in_process: bool,
    /// Longest time, in seconds, that validating one module or generating one
    /// kernel's MSL may take before halc stops it with an error.
    #[arg(long, value_name = "SECONDS", default_value_t = halc::DEFAULT_TIME_LIMIT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "in_process")]
    time_limit: u64,
    /// Compile every generated kernel's MSL with clang++ against the CPU
    /// backend's `metal_stdlib` shim and fail on MSL that does not compile
    /// (needs clang++ >= 15; a construct the shim cannot run, such as a
    /// multisampled or depth texture, is reported as unchecked).
    #[arg(long)]
    check_msl: bool,
    /// Also write the reflection JSON (as `halc inspect --json` prints it) to FILE.
    #[arg(long, value_name = "FILE")]
    reflection: Option<PathBuf>,
    /// Check the build against the ABI lock FILE (kernel names, threadgroup
    /// sizes, slots, push constants): any change is an error listing each.
    #[arg(long, value_name = "FILE")]
    lock: Option<PathBuf>,
    /// With --lock (or a manifest's locks): write the build's ABI to the lock
    /// file instead of checking it.
    #[arg(long)]
    update_lock: bool,
    /// Write a Make/Ninja depfile naming the output and every file the build read.
    #[arg(long, value_name = "FILE")]
    depfile: Option<PathBuf>,
    /// Also compile each kernel's MSL to a metallib with xcrun (macOS with Xcode; see docs/guide/metallibs.md).
    #[arg(long)]
    metallib: bool,
    /// Leave the MSL source out: the executable carries the metallibs only.
    #[arg(long, requires = "metallib")]
    no_msl: bool,
    /// The xcrun to run (default: $HALC_XCRUN, else xcrun on PATH).
    #[arg(long, value_name = "PATH", requires = "metallib")]
    xcrun: Option<PathBuf>,
    /// Metal compiler optimisation level (-O0, -O2, -O3, -Os).
    #[arg(
        long,
        value_enum,
        default_value = "2",
        value_name = "LEVEL",
        requires = "metallib"
    )]
    metal_opt: MetalOptArg,
    /// Metal debug info in the metallib (-gline-tables-only -frecord-sources).
    #[arg(long, requires = "metallib")]
    metal_debug: bool,
    /// With --platform ios: build the metallibs for the iOS Simulator (SDK iphonesimulator).
    #[arg(long, requires = "metallib")]
    ios_simulator: bool,
    /// Modules compiled at once, each job with its own reused worker
    /// process (default: one per core, and under a make or cargo jobserver
    /// no more than it grants). The output does not depend on it.
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    jobs: Option<u64>,
    /// Where the validator and SPIRV-Cross run. By default (Unix): one
    /// module in this process with crash handlers and a timer (a crash or a
    /// time-out is the same one-line error as a worker's), several in worker
    /// processes forked from this one. `fork`: forked workers for one module
    /// too; `exec`: workers started as `halc __msl-worker`.
    #[arg(long, value_enum, value_name = "HOW", conflicts_with = "in_process")]
    worker_start: Option<WorkerStart>,
    /// Print where the time went, per kernel and stage, and in total (stdout).
    #[arg(long)]
    timings: bool,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

/// `--metal-opt`.
#[derive(Clone, Copy, ValueEnum)]
enum MetalOptArg {
    #[value(name = "0")]
    O0,
    #[value(name = "2")]
    O2,
    #[value(name = "3")]
    O3,
    #[value(name = "s")]
    Os,
}

/// An input path with optional kernel renames.
#[derive(Clone, Debug)]
struct InputArg {
    path: PathBuf,
    renames: Vec<(String, String)>,
}

/// `PATH` or `PATH:ENTRY=NAME[,ENTRY=NAME…]`. An existing file is always a
/// path, so a file name containing `:` still works.
fn parse_input_arg(arg: &str) -> std::result::Result<InputArg, String> {
    let plain = || InputArg {
        path: PathBuf::from(arg),
        renames: Vec::new(),
    };
    if Path::new(arg).exists() {
        return Ok(plain());
    }
    let Some((path, spec)) = arg.rsplit_once(':') else {
        return Ok(plain());
    };
    if !spec.contains('=') {
        return Ok(plain());
    }
    let mut renames = Vec::new();
    for part in spec.split(',') {
        let (entry, name) = part
            .split_once('=')
            .ok_or_else(|| format!("`{arg}`: expected PATH:ENTRY=NAME, got `{part}`"))?;
        let (entry, name) = (entry.trim(), name.trim());
        if entry.is_empty() || name.is_empty() {
            return Err(format!(
                "`{arg}`: expected PATH:ENTRY=NAME, with neither part empty"
            ));
        }
        if renames.iter().any(|(e, _): &(String, String)| e == entry) {
            return Err(format!("`{arg}`: entry point `{entry}` is renamed twice"));
        }
        renames.push((entry.to_string(), name.to_string()));
    }
    Ok(InputArg {
        path: PathBuf::from(path),
        renames,
    })
}

/// `--manifest FILE`: the manifest build `halc build FILE` runs, with these
/// flags.
pub fn manifest_build(a: &CompileArgs) -> Option<(&Path, Operational)> {
    let manifest = a.manifest.as_deref()?;
    Some((
        manifest,
        Operational {
            update_lock: a.update_lock,
            check_msl: a.check_msl,
            in_process: a.in_process,
            time_limit: a.time_limit,
            start: a.worker_start,
            jobs: a.jobs,
            quiet: a.quiet,
            glslc: a.glsl.glslc.clone(),
            glslc_cache: a.glsl.glslc_cache.clone(),
        },
    ))
}

pub fn run(a: CompileArgs) -> Result<()> {
    if a.update_lock && a.lock.is_none() {
        bail!("--update-lock needs --lock FILE (or a manifest whose executables name locks)");
    }
    let paths: Vec<PathBuf> = a.inputs.iter().map(|i| i.path.clone()).collect();
    let Some(output) = &a.output else {
        bail!("no output: give -o OUT (or --manifest FILE)");
    };
    let mut extras = Extras {
        reflection: a.reflection.as_deref(),
        lock: a.lock.as_deref(),
        update_lock: a.update_lock,
        depfile: a.depfile.as_deref(),
        deps: Vec::new(),
        create_dirs: false,
    };
    extras.check(output, &paths)?;
    let limits = halc::spirv::validate::Limits::default();
    let mut inputs = Vec::with_capacity(a.inputs.len());
    // Reading a module (and running glslc on a GLSL source) is its Read
    // stage.
    let path_refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let sources = a
        .glsl
        .read_kernels(&path_refs, limits.max_bytes, super::jobs(a.jobs))?;
    let mut read_times = Vec::with_capacity(sources.len());
    for (i, source) in a.inputs.iter().zip(sources) {
        read_times.push(source.read);
        extras
            .deps
            .extend(source.dependencies.iter().map(|d| d.display().to_string()));
        let mut input = Input::new(i.path.display().to_string(), source.spirv);
        for (entry, name) in &i.renames {
            input = input.rename(entry, name);
        }
        inputs.push(input);
    }
    extras
        .deps
        .extend(a.binding_map.iter().map(|p| p.display().to_string()));
    let (map, map_text) = read_binding_map(a.binding_map.as_deref())?;
    let isolation = isolation(a.in_process, a.time_limit, a.worker_start, inputs.len())?;
    let options = Options {
        entries: a.entries,
        specs: a.specs,
        isolation,
        limits,
        jobs: super::jobs(a.jobs),
        ..a.target.options(map, map_text)
    };
    let bar = Bar::new(inputs.len(), a.quiet);
    let compiled = halc::compile_observed(&inputs, &options, &|p| bar.observe(p));
    bar.finish();
    let mut compiled = compiled?;
    for (m, read) in compiled.timings.modules.iter_mut().zip(read_times) {
        m.module.add(Stage::Read, read);
    }
    for w in super::build_warnings(&compiled) {
        eprintln!("warning: {w}");
    }
    if a.check_msl {
        for w in super::check::check_msl(&compiled)? {
            eprintln!("warning: {w}");
        }
    }
    if a.metallib {
        let sdk = Sdk::for_platform(options.layout.platform, a.ios_simulator)
            .ok_or_else(|| anyhow!("--ios-simulator needs --platform ios"))?;
        let opts = MetallibOptions {
            sdk,
            msl_version: options.msl_version,
            math: options.math_mode,
            opt: match a.metal_opt {
                MetalOptArg::O0 => OptLevel::O0,
                MetalOptArg::O2 => OptLevel::O2,
                MetalOptArg::O3 => OptLevel::O3,
                MetalOptArg::Os => OptLevel::Os,
            },
            debug: a.metal_debug,
        };
        build_metallibs(
            &mut compiled,
            &opts,
            a.xcrun.as_deref(),
            output,
            a.emit_msl.as_deref(),
        )?;
        compiled.keep_msl = !a.no_msl;
    }
    let start = Instant::now();
    let bytes = compiled.to_flatbuffer();
    let pack = start.elapsed();
    let mut files = extras.stage(output, bytes)?;
    if let Some(dir) = &a.emit_msl {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create MSL directory", dir.display()))?;
        for k in &compiled.kernels {
            files.insert(
                0,
                (
                    dir.join(format!("{}.metal", file_stem(&k.name))),
                    k.msl.source.clone().into_bytes(),
                ),
            );
        }
    }
    let start = Instant::now();
    for (path, bytes) in files {
        write_atomic(&path, &bytes)?;
    }
    let write = start.elapsed();
    if a.timings {
        print!(
            "{}",
            timings_table(&compiled.timings, CliTimes { pack, write })
        );
    }
    Ok(())
}

/// What a `--metallib` user without Xcode's Metal compiler needs to hear.
const NO_TOOLCHAIN_HINT: &str =
    "Leaving out --metallib works on any OS: the executable then carries \
only MSL, which Metal compiles when the application loads it. \
Another xcrun can be given with --xcrun PATH or the HALC_XCRUN environment variable.";

/// `--metallib`: compiles every kernel's MSL with xcrun into `compiled`.
/// When a step rejects a kernel, its MSL is kept (in the `--emit-msl`
/// directory, else next to the output as `OUT.<kernel>.metal`) and the
/// error names the kernel, that file and the tool's stderr verbatim.
fn build_metallibs(
    compiled: &mut halc::Compiled,
    opts: &MetallibOptions,
    xcrun: Option<&Path>,
    output: &Path,
    emit_msl: Option<&Path>,
) -> Result<()> {
    let missing = |e: MetallibError| anyhow!("--metallib: {e}\n{NO_TOOLCHAIN_HINT}");
    let toolchain = Xcrun::locate(xcrun)
        .and_then(|x| x.probe(opts.sdk))
        .map_err(|e| {
            if e.is_missing_toolchain() {
                missing(e)
            } else {
                anyhow!("--metallib: {e}")
            }
        })?;
    for k in &mut compiled.kernels {
        let subject = format!("{}: entry point `{}`", k.input, k.entry.name);
        match toolchain.build(&k.name, &k.msl.source, opts) {
            Ok(built) => {
                let warnings = built.warnings.trim_end_matches('\n');
                if !warnings.is_empty() {
                    eprintln!("warning: {subject}: xcrun:\n{warnings}");
                }
                k.metallib = Some(built.metallib);
            }
            Err(MetallibError::Rejected {
                step,
                command,
                status,
                stderr,
            }) => {
                let kept = keep_rejected_msl(k, output, emit_msl)?;
                let stderr = stderr.strip_suffix('\n').unwrap_or(&stderr);
                bail!(
                    "{subject}: {step}; the MSL is kept at {}\n`{command}` {status}:\n{stderr}",
                    kept.display()
                );
            }
            Err(e) if e.is_missing_toolchain() => return Err(missing(e)),
            Err(e) => bail!("{subject}: {e}"),
        }
    }
    Ok(())
}

/// Writes a rejected kernel's MSL where the user can find it: returns the path.
fn keep_rejected_msl(k: &halc::Kernel, output: &Path, emit_msl: Option<&Path>) -> Result<PathBuf> {
    let path = match emit_msl {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("{}: cannot create MSL directory", dir.display()))?;
            dir.join(format!("{}.metal", file_stem(&k.name)))
        }
        None => {
            let mut name = output.file_name().unwrap_or_default().to_os_string();
            name.push(format!(".{}.metal", file_stem(&k.name)));
            output.with_file_name(name)
        }
    };
    write_atomic(&path, k.msl.source.as_bytes())?;
    Ok(path)
}
