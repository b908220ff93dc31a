//! glslc's output kept between runs of a build script (`halc::build` keeps
//! it in `$OUT_DIR/halc-glslc-cache`), so that a rebuild runs glslc only on
//! the sources that changed.
//!
//! glslc costs about 0.15 s per shader whatever its size (glslang builds
//! its built-in symbol table in every process), and cargo runs a build
//! script again when any file it depends on changes: without the cache an
//! edit to one of 300 shaders runs glslc 300 times.
//!
//! **When an entry is used.** An entry is found by everything that decides
//! glslc's output besides file contents: this halc's version, glslc's path,
//! `--version` and program file (size and modification time), the arguments (target environment, defines, include
//! directories, `-O`), the directory it runs in and the source's path. It
//! records every file glslc read (its depfile) with a SHA-256 of its
//! contents, and for every `#include "name"` or `#include <name>` line in
//! those files, whether `name` exists beside the including file, in the
//! directory glslc runs in and in each include directory. It is used only when every file still has the
//! same contents and every one of those paths still exists or not as it
//! did: a header added to a directory searched earlier, which would
//! shadow the one glslc read, makes it a miss. A source with an
//! `#include` whose name is not a literal (a macro) is never cached.
//!
//! **When an entry is written.** After glslc succeeds, unless a file it
//! read was modified less than two seconds before glslc started (or
//! after): its contents might then differ from what glslc read, on file
//! systems with coarse timestamps too. Entries are written through a
//! temporary file and a rename; the SPIR-V's digest is recorded with the
//! dependencies, so a torn pair is a miss.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use super::glslc::Glslc;
use super::options::{GlslOptions, GlslOutput};

/// How much older than glslc's start a file must be for its output to be
/// cached.
const SETTLED: Duration = Duration::from_secs(2);

/// A directory of glslc outputs kept between runs, with what each depends
/// on (the module docs of `src/build/glsl/cache.rs`, and docs/guide/build-integration.md's *Use from
/// build.rs*, say when one is used). Given to
/// [`LazyGlslc::compile_all_cached`](super::lazy::LazyGlslc::compile_all_cached).
#[derive(Debug, Clone)]
pub struct GlslCache {
    dir: PathBuf,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    /// Every file glslc read, as it named them, with the SHA-256 (hex) of
    /// the contents.
    dependencies: Vec<(PathBuf, String)>,
    /// Paths an `#include` could resolve to, and whether each existed.
    probes: Vec<(PathBuf, bool)>,
    /// SHA-256 (hex) of the SPIR-V.
    spirv: String,
}

impl GlslCache {
    /// The cache in `dir` (created when the first output is kept).
    pub fn new(dir: PathBuf) -> GlslCache {
        GlslCache { dir }
    }

    /// The key of glslc on `path` with `opts`, as a file name stem.
    fn key(&self, glslc: &Glslc, path: &Path, opts: &GlslOptions) -> Option<String> {
        let mut h = Sha256::new();
        let mut part = |b: &[u8]| {
            h.update((b.len() as u64).to_le_bytes());
            h.update(b);
        };
        part(b"halc glslc cache 1");
        part(env!("CARGO_PKG_VERSION").as_bytes());
        part(glslc.program().as_os_str().as_encoded_bytes());
        part(glslc.version().as_bytes());
        // The program file itself: a glslc rebuilt or replaced under the
        // same version text is another glslc.
        part(program_stamp(glslc.program()).as_bytes());
        for a in opts.args().ok()? {
            part(a.as_encoded_bytes());
        }
        let wd = opts.working_dir.as_deref().unwrap_or(Path::new(""));
        part(wd.as_os_str().as_encoded_bytes());
        part(path.as_os_str().as_encoded_bytes());
        Some(hex(&h.finalize()))
    }

    /// glslc's output on `path` with `opts` from the cache, if it still
    /// holds.
    pub(crate) fn get(&self, glslc: &Glslc, path: &Path, opts: &GlslOptions) -> Option<GlslOutput> {
        let key = self.key(glslc, path, opts)?;
        let text = std::fs::read(self.dir.join(format!("{key}.json"))).ok()?;
        let entry: Entry = serde_json::from_slice(&text).ok()?;
        for (dep, digest) in &entry.dependencies {
            let bytes = std::fs::read(resolve(opts, dep)).ok()?;
            if hex(&Sha256::digest(&bytes)) != *digest {
                return None;
            }
        }
        for (probe, existed) in &entry.probes {
            if probe.exists() != *existed {
                return None;
            }
        }
        let spirv = std::fs::read(self.dir.join(format!("{key}.spv"))).ok()?;
        if hex(&Sha256::digest(&spirv)) != entry.spirv {
            return None;
        }
        Some(GlslOutput {
            spirv,
            dependencies: entry.dependencies.into_iter().map(|(p, _)| p).collect(),
        })
    }

    /// Keeps `out`, glslc's output on `path` with `opts` from a run started
    /// at `started`, unless one of the files it read had not settled by
    /// then, or one includes a name that is not a literal. A failure to
    /// write leaves the cache without the entry.
    pub(crate) fn put(
        &self,
        glslc: &Glslc,
        path: &Path,
        opts: &GlslOptions,
        out: &GlslOutput,
        started: SystemTime,
    ) {
        let Some(key) = self.key(glslc, path, opts) else {
            return;
        };
        let Some(settled_before) = started.checked_sub(SETTLED) else {
            return;
        };
        // The directories an `#include` may be found in besides the
        // including file's: the one glslc runs in and the `-I` ones. More
        // paths than glslc looks at only make more misses.
        let searched: Vec<PathBuf> = (opts.working_dir.iter().cloned())
            .chain(opts.include_dirs.iter().map(|d| resolve(opts, d)))
            .collect();
        let mut dependencies = Vec::new();
        let mut probes: Vec<(PathBuf, bool)> = Vec::new();
        for dep in &out.dependencies {
            let full = resolve(opts, dep);
            let Ok(modified) = std::fs::metadata(&full).and_then(|m| m.modified()) else {
                return;
            };
            if modified >= settled_before {
                return;
            }
            let Ok(bytes) = std::fs::read(&full) else {
                return;
            };
            let Some(names) = included_names(&bytes) else {
                return;
            };
            let beside = full.parent().unwrap_or(Path::new(""));
            for name in names {
                for dir in std::iter::once(beside).chain(searched.iter().map(PathBuf::as_path)) {
                    let p = dir.join(&name);
                    if !probes.iter().any(|(q, _)| *q == p) {
                        let exists = p.exists();
                        probes.push((p, exists));
                    }
                }
            }
            dependencies.push((dep.clone(), hex(&Sha256::digest(&bytes))));
        }
        let entry = Entry {
            dependencies,
            probes,
            spirv: hex(&Sha256::digest(&out.spirv)),
        };
        let Ok(json) = serde_json::to_vec(&entry) else {
            return;
        };
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        // The SPIR-V first: an entry is never read before its SPIR-V is in
        // place, and a SPIR-V of another run is refused by its digest.
        for (ext, bytes) in [("spv", &out.spirv), ("json", &json)] {
            if write(&self.dir, &format!("{key}.{ext}"), bytes).is_err() {
                return;
            }
        }
    }
}

/// GLSL given as text on glslc's standard input: `halc test`'s (src/run/amber/run/module.rs).
#[cfg(feature = "run")]
impl GlslCache {
    /// The name a GLSL text given on glslc's standard input is kept under:
    /// its SHA-256, in place of a path (the key covers glslc, its version,
    /// program file and arguments as for a file).
    fn text_name(text: &str) -> PathBuf {
        PathBuf::from(format!("<stdin {}>", hex(&Sha256::digest(text.as_bytes()))))
    }

    /// Whether glslc's output on `text` depends on the text alone: not when
    /// it has an `#include` (what it includes is not part of the key).
    fn text_cacheable(text: &str) -> bool {
        matches!(included_names(text.as_bytes()), Some(names) if names.is_empty())
    }

    /// glslc's SPIR-V for GLSL `text` given on its standard input (Amber's
    /// inline shaders), if kept.
    pub(crate) fn get_text(
        &self,
        glslc: &Glslc,
        text: &str,
        opts: &GlslOptions,
    ) -> Option<Vec<u8>> {
        if !Self::text_cacheable(text) {
            return None;
        }
        self.get(glslc, &Self::text_name(text), opts)
            .map(|o| o.spirv)
    }

    /// Keeps `spirv`, glslc's output on `text` with `opts`, unless the text
    /// has an `#include`. A failure to write leaves the cache without it.
    pub(crate) fn put_text(&self, glslc: &Glslc, text: &str, opts: &GlslOptions, spirv: &[u8]) {
        if !Self::text_cacheable(text) {
            return;
        }
        let out = GlslOutput {
            spirv: spirv.to_vec(),
            dependencies: Vec::new(),
        };
        // No file was read: nothing to settle.
        self.put(glslc, &Self::text_name(text), opts, &out, SystemTime::now());
    }
}

impl GlslCache {
    /// The default directory of `halc test`'s kept glslc outputs:
    /// `$HALC_GLSLC_CACHE`, else `$XDG_CACHE_HOME/halc/glslc`, else
    /// `~/.cache/halc/glslc`, else one under the temporary directory.
    pub fn default_dir() -> PathBuf {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        if let Some(d) = env("HALC_GLSLC_CACHE") {
            return PathBuf::from(d);
        }
        if let Some(d) = env("XDG_CACHE_HOME") {
            return PathBuf::from(d).join("halc/glslc");
        }
        if let Some(d) = env("HOME") {
            return PathBuf::from(d).join(".cache/halc/glslc");
        }
        std::env::temp_dir().join("halc-glslc-cache")
    }
}

/// The size and modification time of the file `program` runs (found on
/// `PATH` when it is a bare name), or "" when there is none.
fn program_stamp(program: &Path) -> String {
    let found = if program.components().count() > 1 {
        Some(program.to_path_buf())
    } else {
        crate::msl::metallib::search_path(program.as_os_str(), std::env::var_os("PATH").as_deref())
    };
    found
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            format!("{} {}", m.len(), modified.as_nanos())
        })
        .unwrap_or_default()
}

/// `p` as glslc read it: relative paths are relative to its working dir.
fn resolve(opts: &GlslOptions, p: &Path) -> PathBuf {
    match &opts.working_dir {
        Some(wd) if p.is_relative() => wd.join(p),
        _ => p.to_path_buf(),
    }
}

/// The names of every `#include "…"` and `#include <…>` line of a GLSL
/// file (active or not: more names only make more paths to check); `None`
/// when an `#include` names no literal, or the file is not UTF-8.
fn included_names(bytes: &[u8]) -> Option<Vec<String>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut names = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim_start();
        let close = match rest.chars().next() {
            Some('"') => '"',
            Some('<') => '>',
            _ => return None,
        };
        let name = rest[1..].split(close).next()?;
        if name.len() + 1 >= rest.len() {
            // No closing quote.
            return None;
        }
        names.push(name.to_string());
    }
    Some(names)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut tmp = crate::driver::output::temp_file_in(dir, ".halc-glslc-")?;
    tmp.write_all(bytes)?;
    tmp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program is stamped by its file, found on `PATH` when bare; a
    /// replaced file has another stamp.
    #[test]
    fn a_replaced_program_has_another_stamp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("glslc");
        std::fs::write(&p, "one").unwrap();
        let before = program_stamp(&p);
        std::fs::write(&p, "three").unwrap();
        assert_ne!(program_stamp(&p), before);
        assert!(!program_stamp(Path::new("sh")).is_empty(), "sh on PATH");
        assert_eq!(program_stamp(&d.path().join("none")), "");
    }

    #[test]
    fn include_lines_are_read_and_a_macro_include_is_refused() {
        let text = b"#version 450\n#include \"a.glsl\"\n  #  include <sub/b.h> // x\n\
                     // #include \"c\" is a comment\n#ifdef X\n#include \"d.glsl\"\n#endif\n";
        assert_eq!(
            included_names(text),
            Some(vec!["a.glsl".into(), "sub/b.h".into(), "d.glsl".into()])
        );
        assert_eq!(included_names(b"#include HEADER\n"), None);
        assert_eq!(included_names(b"#include \"open\n"), None);
        assert_eq!(included_names(b"#version 450\n"), Some(vec![]));
    }

    /// A text is kept by its digest unless it includes something (which the
    /// key would not cover).
    #[cfg(feature = "run")]
    #[test]
    fn texts_with_an_include_are_not_kept() {
        assert!(GlslCache::text_cacheable("#version 450\nvoid main() {}\n"));
        assert!(!GlslCache::text_cacheable(
            "#version 450\n#include \"a.glsl\"\n"
        ));
        assert!(!GlslCache::text_cacheable("#include HEADER\n"));
        assert_ne!(GlslCache::text_name("a"), GlslCache::text_name("b"));
        assert_eq!(GlslCache::text_name("a"), GlslCache::text_name("a"));
    }
}
