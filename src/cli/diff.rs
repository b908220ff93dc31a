//! `halc diff kernel.spv` (or `kernel.comp`): one line per seed, `AGREE`, `DIFFER` (exit 1)
//! or `INCONCLUSIVE`, each naming the seed so a failure reproduces.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use halc::diff::{diff_seeds, DiffOptions, DiffOutcome, NamedValue};
use halc::runtime_loader::cpu::{self, DeviceOptions};

use super::TargetArgs;

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The SPIR-V module, or a GLSL compute shader (`.comp`, `.glsl`,
    /// compiled with glslc as `halc compile` does).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The entry point, when the module has several.
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Workgroups to dispatch; runtime arrays get one element per invocation.
    #[arg(long, value_name = "X,Y,Z", default_value = "4,1,1", value_parser = parse_groups)]
    groups: [u32; 3],
    /// Bake a specialization constant on both sides (repeatable).
    #[arg(long = "spec", value_name = "ID=VALUE")]
    specs: Vec<halc::spirv::SpecValue>,
    /// First seed of the random data.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many seeds to run, from --seed on.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    seeds: u64,
    /// A buffer's contents from a file instead of random data: SET.BINDING=FILE.
    #[arg(long = "buffer", value_name = "SET.BINDING=FILE", value_parser = parse_buffer)]
    buffers: Vec<(u32, u32, PathBuf)>,
    /// The push constants instead of random data: `NAME=VALUE` sets one
    /// member of the block by name, at its reflected offset (`n=64`,
    /// `v=1,2,3,4`, `s.x=1.5`, `a[2]=7`; repeatable); `FILE` gives the
    /// whole block's bytes, as the application would push them (at most
    /// one; named members are then written over it). Members not named
    /// keep the seed's random value, or the file's bytes. `NAME=@BYTES`
    /// on a 64-bit integer or uvec2 member that the kernel casts to a
    /// buffer_reference (ggml's `dst_addr`) writes the address of a buffer
    /// of BYTES bytes, which is compared like a storage buffer. (A file
    /// named like NAME=VALUE is given as ./NAME=VALUE.)
    #[arg(long = "push", value_name = "NAME=VALUE|FILE")]
    push: Vec<String>,
    /// One member of the uniform block at SET.BINDING by name, as --push
    /// NAME=VALUE does (repeatable; over the random data, or the --buffer
    /// file of that binding).
    #[arg(long = "uniform", value_name = "SET.BINDING:NAME=VALUE", value_parser = parse_uniform)]
    uniforms: Vec<halc::diff::NamedValue>,
    #[command(flatten)]
    target: TargetArgs,
    /// TOML file pinning (set, binding) to slots or ids, as `halc compile`
    /// takes it (see docs/guide/binding-contract.md).
    #[arg(long, value_name = "FILE")]
    binding_map: Option<PathBuf>,
    #[command(flatten)]
    glsl: super::GlslArgs,
    /// Vulkan device: a substring of its name (default: lavapipe).
    #[arg(long, value_name = "NAME")]
    device: Option<String>,
    /// Float tolerance in units in the last place.
    #[arg(long, value_name = "N", default_value_t = 4)]
    ulp: u32,
    /// Absolute float tolerance (results near zero; a driver may fuse a
    /// multiply-add).
    #[arg(long, value_name = "X", default_value_t = 1e-6)]
    atol: f64,
    /// Longest time one dispatch may take, on either side.
    #[arg(long, value_name = "SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    time_limit: u64,
    /// Seeds run at once, each in a process of its own (default: one per
    /// core, or what a make or cargo jobserver grants). Lines are printed
    /// in seed order whatever the number.
    #[arg(short = 'j', long = "jobs", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..))]
    jobs: Option<u64>,
}

fn parse_groups(s: &str) -> Result<[u32; 3], String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>().ok().filter(|n| *n > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("`{s}`: expected X,Y,Z (positive integers)"))?;
    match v.as_slice() {
        [x] => Ok([*x, 1, 1]),
        [x, y] => Ok([*x, *y, 1]),
        [x, y, z] => Ok([*x, *y, *z]),
        _ => Err(format!("`{s}`: expected X,Y,Z")),
    }
}

fn parse_buffer(s: &str) -> Result<(u32, u32, PathBuf), String> {
    let bad = || format!("`{s}`: expected SET.BINDING=FILE");
    let (at, file) = s.split_once('=').ok_or_else(bad)?;
    let (set, binding) = at.split_once('.').ok_or_else(bad)?;
    Ok((
        set.parse().map_err(|_| bad())?,
        binding.parse().map_err(|_| bad())?,
        PathBuf::from(file),
    ))
}

fn parse_uniform(s: &str) -> Result<NamedValue, String> {
    let bad = || format!("`{s}`: expected SET.BINDING:NAME=VALUE (e.g. 0.2:rows=16)");
    let (at, assignment) = s.split_once(':').ok_or_else(bad)?;
    let (set, binding) = at.split_once('.').ok_or_else(bad)?;
    if !NamedValue::is_assignment(assignment) {
        return Err(bad());
    }
    let (name, value) = assignment.split_once('=').ok_or_else(bad)?;
    Ok(NamedValue {
        block: Some((
            set.trim().parse().map_err(|_| bad())?,
            binding.trim().parse().map_err(|_| bad())?,
        )),
        name: name.to_string(),
        value: value.to_string(),
    })
}

pub fn run(a: DiffArgs) -> Result<()> {
    let [source] = a
        .glsl
        .read_kernels(&[a.input.as_path()], 64 << 20, 1)?
        .try_into()
        .map_err(|_| anyhow!("{}: not read", a.input.display()))?;
    let input = halc::Input::new(a.input.display().to_string(), source.spirv);
    let mut given = Vec::new();
    for (set, binding, file) in &a.buffers {
        let data =
            std::fs::read(file).map_err(|e| anyhow!("{}: cannot read: {e}", file.display()))?;
        given.push((*set, *binding, data));
    }
    // `--push`: `NAME=VALUE` by name, anything else a file.
    let mut values = Vec::new();
    let mut push_file: Option<&str> = None;
    for p in &a.push {
        if NamedValue::is_assignment(p) {
            let (name, value) = p.split_once('=').unwrap_or((p, ""));
            values.push(NamedValue {
                block: None,
                name: name.to_string(),
                value: value.to_string(),
            });
        } else if let Some(first) = push_file {
            bail!("--push: two files, {first} and {p}: give the block's bytes in one, and members by NAME=VALUE");
        } else {
            push_file = Some(p);
        }
    }
    values.extend(a.uniforms.iter().cloned());
    let push = match push_file {
        Some(file) => Some(std::fs::read(file).map_err(|e| anyhow!("{file}: cannot read: {e}"))?),
        None => None,
    };
    let device = cpu::Device::with_options(DeviceOptions {
        time_limit: Duration::from_secs(a.time_limit),
        ..DeviceOptions::default()
    })
    .map_err(|e| anyhow!("halc diff runs the MSL on the CPU: {e}"))?;
    let (map, map_text) = super::read_binding_map(a.binding_map.as_deref())?;
    let mut compile = a.target.options(map, map_text);
    compile.specs = a.specs.clone();
    compile.entries = a.entry.iter().cloned().collect();
    let opts = DiffOptions {
        compile,
        groups: a.groups,
        seed: a.seed,
        given,
        push,
        values,
        vulkan_device: a.device.clone(),
        vulkan_program: std::env::current_exe().ok(),
        ulp: a.ulp,
        atol: a.atol,
        time_limit: Duration::from_secs(a.time_limit),
        tamper: None,
    };
    let mut out = std::io::stdout().lock();
    let mut differ = false;
    let name = a.input.display();
    let jobs = super::jobs(a.jobs);
    let seeds = a.seed..a.seed.saturating_add(a.seeds);
    diff_seeds(&input, &opts, seeds, &device, jobs, |_, r| {
        match r.map_err(|e| anyhow!("{e}"))? {
            DiffOutcome::Agree(m) => writeln!(out, "AGREE {name} {m}")?,
            DiffOutcome::Inconclusive(m) => writeln!(out, "INCONCLUSIVE {name} {m}")?,
            DiffOutcome::Differ(m) => {
                differ = true;
                writeln!(out, "DIFFER {name} {m}")?;
            }
        }
        Ok::<_, anyhow::Error>(())
    })?;
    if differ {
        out.flush()?;
        bail!("the Metal translation and the Vulkan reference differ (see DIFFER above)");
    }
    Ok(())
}
