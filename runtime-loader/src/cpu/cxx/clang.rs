//! Finding clang++ and its version.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::super::CpuError;

/// Oldest clang major version that compiles the shim.
pub const MIN_CLANG_MAJOR: u32 = 15;

/// A clang++ found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clang {
    /// The command (a path or a name looked up in `PATH`).
    pub path: PathBuf,
    /// Major version.
    pub major: u32,
    /// `clang++ --version`, part of every cache key.
    pub version_text: String,
}

fn probe(cmd: &Path) -> Result<Clang, String> {
    let out = Command::new(cmd)
        .arg("--version")
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "not found".to_string(),
            _ => e.to_string(),
        })?;
    if !out.status.success() {
        return Err(format!("`--version` exited with {}", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let major = text
        .find("clang version ")
        .and_then(|i| {
            text[i + "clang version ".len()..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|m| m.parse::<u32>().ok())
        })
        .ok_or_else(|| "not clang (no `clang version` in --version)".to_string())?;
    if major < MIN_CLANG_MAJOR {
        return Err(format!(
            "clang {major} is too old (the shim needs {MIN_CLANG_MAJOR} or newer)"
        ));
    }
    Ok(Clang {
        path: cmd.to_path_buf(),
        major,
        version_text: text,
    })
}

/// Finds clang++: `HALC_CLANG` if set (and then only it), else the first of
/// `clang++-22` … `clang++-15` that runs, else `clang++` if it is version 15
/// or newer.
pub fn find_clang() -> Result<Clang, CpuError> {
    if let Some(p) = std::env::var_os("HALC_CLANG").filter(|p| !p.is_empty()) {
        return probe(Path::new(&p)).map_err(|message| CpuError::BadClang {
            path: p.to_string_lossy().into_owned(),
            message,
        });
    }
    let mut tried = Vec::new();
    let mut missing = Vec::new();
    let names = (MIN_CLANG_MAJOR..=22)
        .rev()
        .map(|v| format!("clang++-{v}"))
        .chain(["clang++".to_string()]);
    for name in names {
        match probe(Path::new(&name)) {
            Ok(c) => return Ok(c),
            Err(e) if e == "not found" => missing.push(name),
            Err(e) => tried.push(format!("{name}: {e}")),
        }
    }
    if !missing.is_empty() {
        tried.insert(0, format!("{}: not found", missing.join(", ")));
    }
    Err(CpuError::ClangNotFound {
        tried: tried.join("; "),
    })
}
