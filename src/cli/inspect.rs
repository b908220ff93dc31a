//! `halc inspect`: what an executable holds.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, Result};

use super::read_input;

#[derive(clap::Args)]
pub struct InspectArgs {
    /// Executable written by `halc compile`.
    file: PathBuf,
    /// Print the reflection JSON (versioned; schemas/halc_reflection.schema.json) instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: InspectArgs) -> Result<()> {
    let limit = halc::runtime_loader::VerifyLimits::default().max_bytes;
    let bytes = read_input(&a.file, "a halc executable", limit)?;
    let fail = |e| anyhow!("{}: {e}", a.file.display());
    let mut out = std::io::stdout().lock();
    if a.json {
        let reflection = halc::reflection::Reflection::from_bytes(&bytes).map_err(fail)?;
        write!(out, "{}", reflection.to_json())?;
    } else {
        let view = halc::inspect::decode(&bytes).map_err(fail)?;
        write!(out, "{}", halc::inspect::render(&view))?;
    }
    Ok(())
}
