//! The `halc` command line: parses arguments, calls the library, writes
//! files atomically and picks the exit code (0 ok, 1 bad input or compile
//! error, 2 usage error).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// Ahead-of-time compiler for SPIR-V compute kernels targeting Apple Metal.
///
/// Reads SPIR-V compute kernels, assigns every resource a Metal slot (the
/// binding contract in docs/guide/binding-contract.md), cross-compiles to MSL with SPIRV-Cross
/// and writes one FlatBuffer executable for the `runtime-loader` crate.
#[derive(Parser)]
#[command(name = "halc", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile SPIR-V (or GLSL, through glslc) kernels into one executable.
    Compile(cli::compile::CompileArgs),
    /// Build the executables a manifest (halc.toml) describes.
    Build(cli::build::BuildArgs),
    /// Print what an executable holds.
    Inspect(cli::inspect::InspectArgs),
    /// Run Amber compute tests (AmberScript or VkScript) through halc and
    /// the runtime-loader's CPU backend, which executes the generated MSL.
    Test(cli::test::TestArgs),
    /// Differential run of one kernel: seeded random buffers through halc's
    /// MSL on the CPU and the original SPIR-V on Vulkan (lavapipe), compared.
    Diff(cli::diff::DiffArgs),
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
    // The Vulkan reference of `halc test --compare` and `halc diff`, in a
    // process of its own: a driver crash ends this one, not the caller.
    #[cfg(all(unix, feature = "run"))]
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == halc::amber::run::VULKAN_REFERENCE_ARG)
    {
        if let Err(e) = halc::amber::run::refuse_network_and_programs() {
            eprintln!("error: the Vulkan reference's process could not refuse network calls and programs: {e}");
            return ExitCode::from(1);
        }
        let ok = vulkan_reference::serve(std::io::stdin().lock(), std::io::stdout().lock());
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
        Command::Compile(a) => match cli::compile::manifest_build(&a) {
            Some((manifest, op)) => cli::build::build(manifest, &op),
            None => cli::compile::run(a),
        },
        Command::Build(a) => cli::build::run(a),
        Command::Inspect(a) => cli::inspect::run(a),
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
