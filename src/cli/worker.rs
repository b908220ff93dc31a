//! Where the validator and SPIRV-Cross run for a CLI call (`--in-process`,
//! `--worker-start`, `--time-limit`).

#[cfg(not(unix))]
use anyhow::bail;
use anyhow::Context;
use anyhow::Result;
use clap::ValueEnum;

/// `--worker-start`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkerStart {
    Fork,
    Exec,
}

/// Where the C++ runs for a call compiling `modules` modules: by default on
/// Unix, one module in this process under crash handlers
/// ([`halc::Isolation::Guarded`]: a worker's fork cost more than compiling a
/// small kernel) and several in forked workers (the CLI is single-threaded
/// when it forks them); `halc __msl-worker` with `--worker-start exec` (and
/// elsewhere); in this process without containment with `--in-process`.
pub fn isolation(
    in_process: bool,
    time_limit: u64,
    start: Option<WorkerStart>,
    modules: usize,
) -> Result<halc::Isolation> {
    let time_limit = std::time::Duration::from_secs(time_limit);
    if in_process {
        return Ok(halc::Isolation::InProcess);
    }
    #[cfg(unix)]
    match start {
        None if modules == 1 => return Ok(halc::Isolation::Guarded { time_limit }),
        None | Some(WorkerStart::Fork) => return Ok(halc::Isolation::Forked { time_limit }),
        Some(WorkerStart::Exec) => {}
    }
    #[cfg(not(unix))]
    if start == Some(WorkerStart::Fork) {
        bail!("--worker-start fork needs a Unix system; use --worker-start exec");
    }
    #[cfg(not(unix))]
    let _ = modules;
    Ok(halc::Isolation::Subprocess {
        program: std::env::current_exe().context("cannot locate the halc executable")?,
        time_limit,
    })
}
