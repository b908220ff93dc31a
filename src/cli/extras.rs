//! What a compile writes and checks beside the executable: the reflection
//! JSON, the ABI lock and the depfile.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};

use super::{check_output_in, io_reason};

/// What a build writes and checks beside the executable.
pub struct Extras<'a> {
    /// `--reflection FILE`.
    pub reflection: Option<&'a Path>,
    /// `--lock FILE`.
    pub lock: Option<&'a Path>,
    /// `--update-lock`.
    pub update_lock: bool,
    /// `--depfile FILE`.
    pub depfile: Option<&'a Path>,
    /// Files the build read, for the depfile (the lock is added when checked).
    pub deps: Vec<String>,
    /// Create missing output directories (manifest builds).
    pub create_dirs: bool,
}

impl Extras<'_> {
    /// Before any work: every file this build writes can be written.
    pub fn check(&self, output: &Path, inputs: &[PathBuf]) -> Result<()> {
        let check = |p: &Path| check_output_in(p, inputs, self.create_dirs);
        check(output)?;
        for extra in [self.reflection, self.depfile].into_iter().flatten() {
            check(extra)?;
        }
        if let (true, Some(lock)) = (self.update_lock, self.lock) {
            check(lock)?;
        }
        Ok(())
    }

    /// After the build: checks the lock and returns every file to write, the
    /// executable first and the depfile last, nothing written yet.
    pub fn stage(&self, output: &Path, bytes: Vec<u8>) -> Result<Vec<(PathBuf, Vec<u8>)>> {
        // Decoded from the bytes about to be written: the JSON and the lock
        // describe exactly this file.
        let reflection = halc::reflection::Reflection::from_bytes(&bytes).map_err(|e| {
            anyhow!(
                "{}: internal error: the executable does not verify: {e}",
                output.display()
            )
        })?;
        let lock = match self.lock {
            Some(path) => check_lock(path, &reflection, self.update_lock)?,
            None => None,
        };
        let mut files = vec![(output.to_path_buf(), bytes)];
        if let Some(path) = self.reflection {
            files.push((path.to_path_buf(), reflection.to_json().into_bytes()));
        }
        if let (Some(path), Some(text)) = (self.lock, lock) {
            files.push((path.to_path_buf(), text.into_bytes()));
        }
        if let Some(path) = self.depfile {
            let mut deps = self.deps.clone();
            if !self.update_lock {
                deps.extend(self.lock.map(|p| p.display().to_string()));
            }
            let text = halc::depfile::render(&output.display().to_string(), &deps);
            files.push((path.to_path_buf(), text.into_bytes()));
        }
        Ok(files)
    }
}

/// `--lock`: checks the build against the lock file, or with `--update-lock`
/// returns the lock text to write.
fn check_lock(
    path: &Path,
    reflection: &halc::reflection::Reflection,
    update: bool,
) -> Result<Option<String>> {
    let new = halc::lock::Lock::of(reflection);
    if update {
        return Ok(Some(new.to_toml()));
    }
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            anyhow!("{shown}: no such lock file; create it with --update-lock")
        } else {
            anyhow!("{shown}: cannot read lock file: {}", io_reason(&e))
        }
    })?;
    let old = halc::lock::Lock::parse(&text).map_err(|e| anyhow!("{shown}:{e}"))?;
    let changes = old.changes(&new);
    if changes.is_empty() {
        return Ok(None);
    }
    let n = changes.len();
    bail!(
        "{shown}: the build changes the locked ABI ({n} change{}; if intended, rerun with --update-lock):\n  {}",
        if n == 1 { "" } else { "s" },
        changes.join("\n  ")
    )
}
