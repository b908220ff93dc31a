//! What `halc compile` shows about a batch: a progress bar on a terminal
//! (`indicatif`) and the `--timings` table. The library reports progress
//! through [`halc::compile_observed`] and returns its stage times in
//! [`halc::Compiled::timings`]; printing is the CLI's.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use halc::timings::{Stage, StageTimes, Timings};

/// Batches with at least this many inputs get a progress bar.
const BAR_FROM_INPUTS: usize = 16;

/// A progress bar on stderr, or nothing: hidden when stderr is not a
/// terminal, with `--quiet`, and for short batches.
pub struct Bar(Option<ProgressBar>);

impl Bar {
    /// A bar over `total` inputs.
    pub fn new(total: usize, quiet: bool) -> Bar {
        if quiet || total < BAR_FROM_INPUTS || !std::io::stderr().is_terminal() {
            return Bar(None);
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} modules {elapsed} {wide_msg}")
        {
            bar.set_style(style);
        }
        Bar(Some(bar))
    }

    /// The observer for [`halc::compile_observed`].
    pub fn observe(&self, p: halc::Progress<'_>) {
        if let Some(bar) = &self.0 {
            bar.set_position(p.done as u64);
            bar.set_message(p.input.to_string());
        }
    }

    /// Removes the bar before anything else is printed.
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// What only the CLI measures: the whole-run stages.
#[derive(Debug, Default, Clone, Copy)]
pub struct CliTimes {
    /// Serialising the executable.
    pub pack: Duration,
    /// Writing it.
    pub write: Duration,
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

/// Stages that concern a whole module, shown on the row of its first
/// kernel (so is the module's worker traffic, in the worker column).
const MODULE_ONLY: [Stage; 5] = [
    Stage::Read,
    Stage::Parse,
    Stage::Check,
    Stage::Validate,
    Stage::Reflect,
];

/// The `--timings` table: one row per kernel (module stages on the row of
/// the module's first kernel; the worker column holds both), then the total
/// and the split between halc's own work and the C++ it runs.
pub fn timings_table(t: &Timings, cli: CliTimes) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let columns: Vec<Stage> = Stage::ALL
        .into_iter()
        .filter(|s| !matches!(s, Stage::Pack | Stage::Write))
        .collect();
    let _ = write!(out, "{:<32}", "kernel (ms)");
    for s in &columns {
        let _ = write!(out, " {:>11}", s.name());
    }
    out.push('\n');
    for m in &t.modules {
        for (i, (name, k)) in m.kernels.iter().enumerate() {
            let mut row = *k;
            if i == 0 {
                row.merge(&m.module);
            }
            let _ = write!(out, "{:<32}", name);
            for s in &columns {
                let shown = if i > 0 && MODULE_ONLY.contains(s) {
                    "-".to_string()
                } else {
                    ms(row.get(*s))
                };
                let _ = write!(out, " {shown:>11}");
            }
            out.push('\n');
        }
    }
    let mut total: StageTimes = t.total();
    total.add(Stage::Pack, cli.pack);
    total.add(Stage::Write, cli.write);
    let _ = write!(out, "{:<32}", "total");
    for s in &columns {
        let _ = write!(out, " {:>11}", ms(total.get(*s)));
    }
    out.push('\n');
    let own = total.sum(Stage::is_halc);
    let cross = total.get(Stage::Generate);
    let _ = writeln!(
        out,
        "pack {} ms, write {} ms; {} kernels from {} modules on {} jobs{} in {} ms",
        ms(cli.pack),
        ms(cli.write),
        t.modules.iter().map(|m| m.kernels.len()).sum::<usize>(),
        t.modules.len(),
        t.jobs,
        t.jobserver_tokens
            .map(|n| format!(
                " (jobserver: {n} token{} besides halc's own)",
                if n == 1 { "" } else { "s" }
            ))
            .unwrap_or_default(),
        ms(t.elapsed)
    );
    let share = if cross.is_zero() {
        "n/a".to_string()
    } else {
        format!("{:.1} %", own.as_secs_f64() / cross.as_secs_f64() * 100.0)
    };
    if let Some(u) = usage() {
        let _ = writeln!(
            out,
            "peak memory (max RSS): halc {:.1} MiB, largest worker process {:.1} MiB; page faults: halc {}, workers {}",
            u.own_rss as f64 / 1024.0 / 1024.0,
            u.worker_rss as f64 / 1024.0 / 1024.0,
            u.own_faults,
            u.worker_faults
        );
    }
    let _ = writeln!(
        out,
        "halc's own work (read, parse, check, reflect, layout, check-msl, pack, write) {} ms = {share} of SPIRV-Cross ({} ms); SPIRV-Tools validator {} ms ({}); worker processes and pipes {} ms (starting them {} ms){}",
        ms(own),
        ms(cross),
        ms(total.get(Stage::Validate)),
        t.validator.describe(),
        ms(total.get(Stage::Worker)),
        ms(t.workers_start),
        t.workers_cxx_allocator
            .map(|a| format!("; the workers' C++ allocator: {}", a.name()))
            .unwrap_or_default(),
    );
    out
}

/// What the kernel counted for this process and for the children it reaped
/// (the workers, which exit once `compile` returns).
struct Usage {
    /// Peak resident set of this process, in bytes.
    own_rss: u64,
    /// Peak resident set of the largest reaped child, in bytes.
    worker_rss: u64,
    /// Page faults of this process (minor and major): in a cold run each
    /// costs microseconds, as much as a stage of a small kernel.
    own_faults: u64,
    /// Page faults of all reaped children together.
    worker_faults: u64,
}

#[cfg(unix)]
fn usage() -> Option<Usage> {
    halc::msl::worker::reap_workers();
    let get = |who| {
        // SAFETY: `usage` is a valid out-pointer for getrusage(2), which
        // fills it completely on success.
        let mut usage = unsafe { std::mem::zeroed::<libc::rusage>() };
        if unsafe { libc::getrusage(who, &mut usage) } != 0 {
            return None;
        }
        // Linux reports KiB, macOS bytes.
        let unit = if cfg!(target_vendor = "apple") {
            1
        } else {
            1024
        };
        let rss = u64::try_from(usage.ru_maxrss).ok()? * unit;
        let faults = u64::try_from(usage.ru_minflt).ok()? + u64::try_from(usage.ru_majflt).ok()?;
        Some((rss, faults))
    };
    let (own_rss, own_faults) = get(libc::RUSAGE_SELF)?;
    let (worker_rss, worker_faults) = get(libc::RUSAGE_CHILDREN)?;
    Some(Usage {
        own_rss,
        worker_rss,
        own_faults,
        worker_faults,
    })
}

#[cfg(not(unix))]
fn usage() -> Option<Usage> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use halc::timings::ModuleTimings;

    #[test]
    fn the_table_has_a_row_per_kernel_and_the_split() {
        let us = Duration::from_micros;
        let mut module = StageTimes::default();
        module.add(Stage::Read, us(10));
        module.add(Stage::Validate, us(100));
        let mut k = StageTimes::default();
        k.add(Stage::Generate, us(400));
        k.add(Stage::Layout, us(30));
        let t = Timings {
            modules: vec![ModuleTimings {
                input: "a.spv".into(),
                module,
                kernels: vec![("first".into(), k), ("second".into(), k)],
            }],
            jobs: 1,
            elapsed: us(900),
            workers_start: Duration::ZERO,
            workers_cxx_allocator: None,
            jobserver_tokens: None,
            validator: halc::timings::ValidatorPlace::InProcess,
        };
        let table = timings_table(
            &t,
            CliTimes {
                pack: us(5),
                write: us(5),
            },
        );
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[1].starts_with("first") && lines[1].contains("0.010"));
        assert!(lines[2].starts_with("second") && lines[2].contains(" -"));
        assert!(lines[3].starts_with("total") && lines[3].contains("0.800"));
        // own work: read 10 + layout 60 + pack 5 + write 5 = 80 us of 800 us.
        let split = lines.last().unwrap();
        assert!(
            split.contains("0.080 ms = 10.0 % of SPIRV-Cross (0.800 ms)"),
            "{table}"
        );
    }
}
