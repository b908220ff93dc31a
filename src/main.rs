//! The `halc` command line: parses arguments, calls the library, writes
//! files atomically and picks the exit code (0 ok, 1 bad input or compile
//! error, 2 usage error).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use halc::msl::metallib::{file_stem, MetallibError, MetallibOptions, OptLevel, Sdk, Xcrun};
use halc::msl::{BindingMap, BindingModel, LayoutOptions, MslVersion, Platform, Tier};
use halc::spirv::SpecValue;
use halc::{Input, MathMode, Options};

mod cli;

/// Ahead-of-time compiler for SPIR-V compute kernels targeting Apple Metal.
///
/// Reads SPIR-V compute kernels, assigns every resource a Metal slot (the
/// binding contract in the README), cross-compiles to MSL with SPIRV-Cross
/// and writes one FlatBuffer executable for the `runtime-loader` crate.
#[derive(Parser)]
#[command(name = "halc", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile SPIR-V kernels into one executable.
    Compile(CompileArgs),
    /// Print what an executable holds.
    Inspect(InspectArgs),
    /// Run Amber compute tests (AmberScript or VkScript) through halc and
    /// the runtime-loader's CPU backend, which executes the generated MSL.
    Test(cli::test::TestArgs),
    /// Differential run of one kernel: seeded random buffers through halc's
    /// MSL on the CPU and the original SPIR-V on Vulkan (lavapipe), compared.
    Diff(cli::diff::DiffArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum BindingsArg {
    /// One argument buffer per descriptor set (default).
    ArgumentBuffers,
    /// Every resource in its own [[buffer]]/[[texture]]/[[sampler]] slot.
    Discrete,
}

#[derive(Clone, Copy, ValueEnum)]
enum PlatformArg {
    Macos,
    Ios,
}

/// What the generated MSL targets (shared by `compile` and `test`).
#[derive(clap::Args)]
struct TargetArgs {
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
    fn options(&self, map: BindingMap, map_text: Option<String>) -> Options {
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

#[derive(clap::Args)]
struct CompileArgs {
    /// SPIR-V modules (either byte order). A kernel is named after its entry
    /// point, or after the file's stem when the entry point is `main` (as
    /// glslc names them); `IN.spv:ENTRY=NAME[,ENTRY=NAME…]` names kernels
    /// explicitly.
    #[arg(required = true, value_name = "IN.spv[:ENTRY=NAME]", value_parser = parse_input_arg)]
    inputs: Vec<InputArg>,
    /// Output executable.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Compile only this entry point (repeatable; default: every GLCompute one).
    #[arg(long = "entry", value_name = "NAME")]
    entries: Vec<String>,
    /// Bake a specialization constant: SpecId=value, parsed by the constant's type (repeatable).
    #[arg(long = "spec", value_name = "ID=VALUE")]
    specs: Vec<SpecValue>,
    #[command(flatten)]
    target: TargetArgs,
    /// TOML file pinning (set, binding) to slots or ids (see README).
    #[arg(long, value_name = "FILE")]
    binding_map: Option<PathBuf>,
    /// Also write each kernel's MSL to DIR/<kernel>.metal (characters other
    /// than ASCII letters and digits in the name become `_`).
    #[arg(long, value_name = "DIR")]
    emit_msl: Option<PathBuf>,
    /// Run the SPIR-V validator and SPIRV-Cross inside this process instead of
    /// a child process (faster by one process start; a crash in them then
    /// kills halc, and no time limit applies).
    #[arg(long)]
    in_process: bool,
    /// Longest time, in seconds, that validating one module or generating one
    /// kernel's MSL may take before halc stops it with an error.
    #[arg(long, value_name = "SECONDS", default_value_t = halc::DEFAULT_TIME_LIMIT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "in_process")]
    time_limit: u64,
    /// Compile every generated kernel's MSL with clang++ against the CPU
    /// backend's `metal_stdlib` shim and fail on MSL that does not compile
    /// (needs clang++ >= 15; kernels with textures are reported as unchecked).
    #[arg(long)]
    check_msl: bool,
    /// Also compile each kernel's MSL to a metallib with xcrun (macOS with Xcode; see README).
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

#[derive(clap::Args)]
struct InspectArgs {
    /// Executable written by `halc compile`.
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    // The SPIRV-Cross worker (crash containment), started by `compile`.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == halc::msl::worker::WORKER_ARG)
    {
        let ok = halc::msl::worker::serve(std::io::stdin().lock(), std::io::stdout().lock());
        return if ok.is_ok() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Compile(a) => compile(a),
        Command::Inspect(a) => inspect(a),
        Command::Test(a) => cli::test::run(a),
        Command::Diff(a) => cli::diff::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Reads at most `limit` bytes: a larger file, or an endless one such as
/// `/dev/zero` or a pipe, is refused before it is buffered.
fn read_input(path: &Path, what: &str, limit: usize) -> Result<Vec<u8>> {
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

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Checks that `out` can be written without touching any input.
fn check_output(out: &Path, inputs: &[PathBuf]) -> Result<()> {
    let shown = out.display();
    if out.is_dir() {
        bail!("{shown}: output path is a directory");
    }
    let dir = parent_dir(out);
    if !dir.is_dir() {
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

fn parent_dir(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to `path` through a temp file in the same directory and a rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent_dir(path);
    let mut tmp = tempfile::Builder::new()
        .prefix(".halc-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "{}: cannot create a temporary file in {}",
                path.display(),
                dir.display()
            )
        })?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_all())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    tmp.persist(path)
        .map_err(|e| anyhow!("{}: cannot write: {}", path.display(), e.error))?;
    Ok(())
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

fn compile(a: CompileArgs) -> Result<()> {
    let paths: Vec<PathBuf> = a.inputs.iter().map(|i| i.path.clone()).collect();
    check_output(&a.output, &paths)?;
    let limits = halc::spirv::validate::Limits::default();
    let mut inputs = Vec::with_capacity(a.inputs.len());
    for i in &a.inputs {
        let mut input = Input::new(
            i.path.display().to_string(),
            read_input(&i.path, "a SPIR-V file", limits.max_bytes)?,
        );
        for (entry, name) in &i.renames {
            input = input.rename(entry, name);
        }
        inputs.push(input);
    }
    let (map, map_text) = match &a.binding_map {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                anyhow!(
                    "{}: cannot read binding map: {}",
                    p.display(),
                    io_reason(&e)
                )
            })?;
            let map = BindingMap::from_toml(&text).map_err(|e| anyhow!("{}: {e}", p.display()))?;
            (map, Some(text))
        }
        None => (BindingMap::default(), None),
    };
    let options = Options {
        entries: a.entries,
        specs: a.specs,
        isolation: if a.in_process {
            halc::Isolation::InProcess
        } else {
            halc::Isolation::Subprocess {
                program: std::env::current_exe().context("cannot locate the halc executable")?,
                time_limit: std::time::Duration::from_secs(a.time_limit),
            }
        },
        limits,
        ..a.target.options(map, map_text)
    };
    let mut compiled = halc::compile(&inputs, &options)?;
    if a.check_msl {
        for w in cli::check::check_msl(&compiled)? {
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
            &a.output,
            a.emit_msl.as_deref(),
        )?;
        compiled.keep_msl = !a.no_msl;
    }
    let bytes = compiled.to_flatbuffer();
    if let Some(dir) = &a.emit_msl {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create MSL directory", dir.display()))?;
        for k in &compiled.kernels {
            write_atomic(
                &dir.join(format!("{}.metal", file_stem(&k.name))),
                k.msl.source.as_bytes(),
            )?;
        }
    }
    write_atomic(&a.output, &bytes)?;
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

fn inspect(a: InspectArgs) -> Result<()> {
    let limit = halc::runtime_loader::VerifyLimits::default().max_bytes;
    let bytes = read_input(&a.file, "a halc executable", limit)?;
    let view = halc::inspect::decode(&bytes).map_err(|e| anyhow!("{}: {e}", a.file.display()))?;
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &view)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", halc::inspect::render(&view))?;
    }
    Ok(())
}
