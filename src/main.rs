//! The `halc` command line: parses arguments, calls the library, writes
//! files atomically and picks the exit code (0 ok, 1 bad input or compile
//! error, 2 usage error).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use halc::msl::{BindingMap, BindingModel, LayoutOptions, MslVersion, Platform, Tier};
use halc::spirv::SpecValue;
use halc::{Input, MathMode, Options};

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

#[derive(clap::Args)]
struct CompileArgs {
    /// SPIR-V modules (either byte order).
    #[arg(required = true, value_name = "IN.spv")]
    inputs: Vec<PathBuf>,
    /// Output executable.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Compile only this entry point (repeatable; default: every GLCompute one).
    #[arg(long = "entry", value_name = "NAME")]
    entries: Vec<String>,
    /// Bake a specialization constant: SpecId=value, parsed by the constant's type (repeatable).
    #[arg(long = "spec", value_name = "ID=VALUE")]
    specs: Vec<SpecValue>,
    /// How resources are bound.
    #[arg(long, value_enum, default_value = "argument-buffers")]
    bindings: BindingsArg,
    /// TOML file pinning (set, binding) to slots or ids (see README).
    #[arg(long, value_name = "FILE")]
    binding_map: Option<PathBuf>,
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
    /// Also write each kernel's MSL to DIR/<kernel>.metal.
    #[arg(long, value_name = "DIR")]
    emit_msl: Option<PathBuf>,
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
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn read_input(path: &Path) -> Result<Vec<u8>> {
    let shown = path.display();
    let meta =
        std::fs::metadata(path).map_err(|e| anyhow!("{shown}: cannot read: {}", io_reason(&e)))?;
    if meta.is_dir() {
        bail!("{shown}: is a directory, expected a SPIR-V file");
    }
    std::fs::read(path).map_err(|e| anyhow!("{shown}: cannot read: {}", io_reason(&e)))
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

fn compile(a: CompileArgs) -> Result<()> {
    check_output(&a.output, &a.inputs)?;
    let mut inputs = Vec::with_capacity(a.inputs.len());
    for p in &a.inputs {
        inputs.push(Input {
            name: p.display().to_string(),
            bytes: read_input(p)?,
        });
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
        layout: LayoutOptions {
            model: match a.bindings {
                BindingsArg::ArgumentBuffers => BindingModel::ArgumentBuffers,
                BindingsArg::Discrete => BindingModel::Discrete,
            },
            platform: match a.platform {
                PlatformArg::Macos => Platform::MacOS,
                PlatformArg::Ios => Platform::IOS,
            },
            tier: if a.argument_buffer_tier == 1 {
                Tier::Tier1
            } else {
                Tier::Tier2
            },
            map,
        },
        msl_version: a.msl_version,
        math_mode: if a.fast_math {
            MathMode::Fast
        } else {
            MathMode::Safe
        },
        binding_map_text: map_text,
    };
    let compiled = halc::compile(&inputs, &options)?;
    let bytes = compiled.to_flatbuffer();
    if let Some(dir) = &a.emit_msl {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create MSL directory", dir.display()))?;
        for k in &compiled.kernels {
            write_atomic(
                &dir.join(format!("{}.metal", k.name)),
                k.msl.source.as_bytes(),
            )?;
        }
    }
    write_atomic(&a.output, &bytes)?;
    Ok(())
}

fn inspect(a: InspectArgs) -> Result<()> {
    let bytes = read_input(&a.file)?;
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
