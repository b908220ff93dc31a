//! `halc test FILE.amber…`: one `PASS|FAIL|SKIP` line per file, a summary
//! line, exit 1 when any test failed.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, Result};
use halc::amber::run::{Outcome, RunOptions, Sides};
use halc::amber::suite::run_files;
use halc::msl::BindingMap;
use halc::runtime_loader::cpu::{self, DeviceOptions, ThreadgroupFill};

use super::TargetArgs;

#[derive(clap::Args)]
pub struct TestArgs {
    /// Amber files (AmberScript `#!amber` or VkScript `[test]`).
    #[arg(required = true, value_name = "FILE.amber")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    target: TargetArgs,
    /// SPIR-V target for GLSL and SPIR-V assembly without TARGET_ENV:
    /// spv1.0 … spv1.6 or vulkan1.0 … vulkan1.3.
    #[arg(long, default_value = "spv1.3", value_name = "ENV")]
    target_env: String,
    /// Bake a specialization constant into every shader that declares the
    /// SpecId, as `halc compile --spec` does (a pipeline's SPECIALIZE wins;
    /// repeatable). The Vulkan reference gets the same value.
    #[arg(long = "spec", value_name = "ID=VALUE")]
    specs: Vec<halc::spirv::SpecValue>,
    /// Longest time one dispatch may run on the CPU before it fails.
    #[arg(long, value_name = "SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    time_limit: u64,
    /// The glslc to run for GLSL shaders (default: $HALC_GLSLC, else glslc on PATH).
    #[arg(long, value_name = "PATH")]
    glslc: Option<PathBuf>,
    /// Where glslc's outputs are kept between runs, found by the shader's
    /// text, glslc (its version and program file) and its arguments
    /// (default: $HALC_GLSLC_CACHE, else ~/.cache/halc/glslc).
    #[arg(long, value_name = "DIR", conflicts_with = "no_glslc_cache")]
    glslc_cache: Option<PathBuf>,
    /// Run glslc for every GLSL shader, keeping nothing.
    #[arg(long)]
    no_glslc_cache: bool,
    /// Initial threadgroup memory: `poison` (default; Metal does not zero
    /// it, and a kernel reading it before writing must fail) or `zero`, to
    /// tell whether a failure comes from reading uninitialised memory.
    #[arg(long, value_enum, default_value = "poison")]
    threadgroup_memory: Fill,
    /// Run the original SPIR-V on a Vulkan driver instead of halc's MSL on
    /// the CPU (to check a test itself, independently of halc).
    #[arg(long, value_enum, value_name = "API", conflicts_with = "compare")]
    reference: Option<ReferenceApi>,
    /// Run both the Vulkan reference and halc's MSL on the CPU and compare
    /// every bound storage buffer after every RUN.
    #[arg(long)]
    compare: bool,
    /// Vulkan device: a substring of its name (default: lavapipe).
    #[arg(long, value_name = "NAME")]
    device: Option<String>,
    /// Float tolerance of --compare in units in the last place.
    #[arg(long, value_name = "N", default_value_t = 4)]
    ulp: u32,
    /// Print JSON instead of lines.
    #[arg(long)]
    json: bool,
    /// Test files run at once, each in a process of its own (default: one
    /// per core, or what a make or cargo jobserver grants). Results are
    /// printed in the order of the files whatever the number.
    #[arg(short = 'j', long = "jobs", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..))]
    jobs: Option<u64>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ReferenceApi {
    Vulkan,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Fill {
    Poison,
    Zero,
}

#[derive(serde::Serialize)]
struct Report {
    file: String,
    outcome: &'static str,
    reason: Option<String>,
    seconds: f64,
}

pub fn run(a: TestArgs) -> Result<()> {
    let sides = match (a.reference, a.compare) {
        (Some(ReferenceApi::Vulkan), _) => Sides::Vulkan,
        (None, true) => Sides::Compare,
        (None, false) => Sides::MetalOnCpu,
    };
    let device = if sides == Sides::Vulkan {
        None
    } else {
        Some(
            cpu::Device::with_options(DeviceOptions {
                time_limit: Duration::from_secs(a.time_limit),
                threadgroup_fill: match a.threadgroup_memory {
                    Fill::Poison => ThreadgroupFill::Poison,
                    Fill::Zero => ThreadgroupFill::Zero,
                },
                ..DeviceOptions::default()
            })
            .map_err(|e| anyhow!("halc test runs the MSL on the CPU: {e}"))?,
        )
    };
    let mut compile = a.target.options(BindingMap::default(), None);
    compile.specs = a.specs.clone();
    let opts = RunOptions {
        compile,
        target_env: a.target_env.clone(),
        glslc: a.glslc.clone(),
        glslc_cache: (!a.no_glslc_cache).then(|| {
            a.glslc_cache
                .clone()
                .unwrap_or_else(halc::glsl::GlslCache::default_dir)
        }),
        sides,
        vulkan_device: a.device.clone(),
        vulkan_program: std::env::current_exe().ok(),
        vulkan_timeout: Duration::from_secs(a.time_limit),
        ulp: a.ulp,
        tamper: None,
    };
    let mut reports = Vec::new();
    let mut out = std::io::stdout().lock();
    let jobs = super::jobs(a.jobs);
    run_files(&a.files, device.as_ref(), &opts, jobs, |i, r| {
        let (word, reason) = match r.outcome {
            Outcome::Pass => ("PASS", None),
            Outcome::Fail(r) => ("FAIL", Some(r)),
            Outcome::Skip(r) => ("SKIP", Some(r)),
        };
        let name = a.files[i].display().to_string();
        if !a.json {
            // Reasons start with `file:line:`; continuation lines (a
            // compiler's message) are indented under their test.
            match &reason {
                None => writeln!(out, "{word} {name}")?,
                Some(r) => writeln!(out, "{word} {}", r.replace('\n', "\n    "))?,
            }
        }
        reports.push(Report {
            file: name,
            outcome: word,
            reason,
            seconds: r.seconds,
        });
        Ok::<_, std::io::Error>(())
    })?;
    let count = |w: &str| reports.iter().filter(|r| r.outcome == w).count();
    let (passed, failed, skipped) = (count("PASS"), count("FAIL"), count("SKIP"));
    if a.json {
        serde_json::to_writer_pretty(
            &mut out,
            &serde_json::json!({
                "tests": reports,
                "passed": passed,
                "failed": failed,
                "skipped": skipped,
            }),
        )?;
        writeln!(out)?;
    } else {
        writeln!(out, "{passed} passed, {failed} failed, {skipped} skipped")?;
    }
    if failed > 0 {
        // The lines above say what failed; the exit status says that it did.
        out.flush()?;
        std::process::exit(1);
    }
    Ok(())
}
