//! [`Kernels`]: compile kernels from a `build.rs`, with typed Rust
//! bindings.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     halc::build::Kernels::new()
//!         .glob("shaders/*.comp")?
//!         .spec(1, "2.5")
//!         .compile("kernels")?;
//!     Ok(())
//! }
//! ```
//!
//! ```ignore
//! // src/main.rs
//! mod kernels {
//!     include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
//! }
//! ```
//!
//! [`Kernels::compile`] compiles every input (SPIR-V `.spv`, or GLSL
//! through glslc: [`crate::build::glsl`]) into `$OUT_DIR/NAME.halc` and generates
//! `$OUT_DIR/NAME.rs` ([`bindings`]), then prints `cargo:rerun-if-changed`
//! for every input, every `#include` glslc read and every globbed directory.
//! Both files are written to temporary files and renamed, so a failed build
//! leaves no partial output. Inputs are named relative to
//! `CARGO_MANIFEST_DIR` and the outputs hold no absolute path: they are
//! byte-identical wherever the project is built.
//!
//! glslc's outputs are kept in `$OUT_DIR/halc-glslc-cache` with the
//! contents of every file glslc read and the paths its `#include`s could
//! resolve to: a rerun of the build script runs glslc only on the sources
//! whose files changed (src/build/glsl/cache.rs says exactly when an entry is
//! used).
//!
//! Errors ([`BuildError`]) are one line naming the file and the kernel (a
//! GLSL compile error is glslc's message verbatim, with `file:line`). Their
//! `Debug` is their `Display`, so `fn main() -> Result<(), Box<dyn Error>>`
//! in a build script shows cargo the message itself.
//!
//! SPIRV-Cross runs in the build script's process ([`crate::Isolation::InProcess`]):
//! a build script cannot re-execute itself as halc's worker.

use std::path::{Path, PathBuf};

use super::glsl::{GlslError, GlslOptions, LazyGlslc, TargetEnv};
use crate::model::{Compiled, Input, Isolation, Options};
use crate::msl::{BindingModel, MslVersion, Platform};

use super::bindings::{self, BindingsError};

/// Why a build failed. `Debug` prints the same one line as `Display`.
#[derive(thiserror::Error)]
pub enum BuildError {
    /// A glob pattern is malformed.
    #[error("glob `{pattern}`: {message}")]
    Glob {
        /// The pattern.
        pattern: String,
        /// What is wrong.
        message: String,
    },
    /// A glob pattern matched no file.
    #[error("glob `{pattern}` matches no file (relative to {root})")]
    NoMatch {
        /// The pattern.
        pattern: String,
        /// The directory it is relative to.
        root: String,
    },
    /// No input was given.
    #[error("no kernels to compile: add inputs with .glob() or .file()")]
    NoInputs,
    /// An input cannot be read.
    #[error("{file}: {message}")]
    Read {
        /// The input.
        file: String,
        /// Why.
        message: String,
    },
    /// glslc failed (a compile error is glslc's message verbatim).
    #[error("{0}")]
    Glsl(#[from] GlslError),
    /// halc rejected a kernel (the message names the file and entry point).
    #[error("{0}")]
    Compile(#[from] crate::model::Error),
    /// A kernel's workgroup size came out as 1 x 1 x 1 from the default of
    /// its `local_size_x_id` SpecId while another declaration of the same
    /// SpecId (an array size) has another default
    /// ([`crate::Kernel::one_thread_from_frozen_spec`]).
    #[error("{file}: kernel `{kernel}`: the workgroup size is 1 x 1 x 1 because `local_size_x_id = {id}` keeps its default 1, while another declaration of SpecId {id} (which sizes an array) defaults to {other}: SpecId {id} is fixed at its defaults, each declaration its own, since Metal needs array sizes constant. Choose it with `.spec({id}, {other})` on halc::build::Kernels (or give `local_size_x = {other}` beside `local_size_x_id = {id}`)")]
    OneThread {
        /// The input.
        file: String,
        /// The kernel.
        kernel: String,
        /// The SpecId.
        id: u32,
        /// The other declaration's default.
        other: u64,
    },
    /// A kernel's Rust bindings cannot be generated.
    #[error("{0}")]
    Bindings(#[from] BindingsError),
    /// The output name is not a plain file stem.
    #[error("output name `{0}`: expected a plain file name such as `kernels` (letters, digits, `_`, `-`)")]
    Name(String),
    /// A required environment variable is missing.
    #[error("{0} is not set: halc::build runs from a build script (cargo sets it), or set it with .{1}()")]
    Env(&'static str, &'static str),
    /// The outputs cannot be written.
    #[error("cannot write {file} in OUT_DIR `{dir}`: {message}")]
    Write {
        /// The output directory.
        dir: String,
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
}

impl std::fmt::Debug for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// What a build wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// `$OUT_DIR/NAME.halc`.
    pub executable: PathBuf,
    /// `$OUT_DIR/NAME.rs`.
    pub bindings: PathBuf,
    /// Kernel names, sorted.
    pub kernels: Vec<String>,
    /// Every file and directory the build read, for `cargo:rerun-if-changed`.
    pub rerun_if_changed: Vec<PathBuf>,
    /// What the compile changed that the user should know
    /// ([`crate::model::Compiled::warnings`], with `.spec(ID, VALUE)` as the way to
    /// choose a SpecId), one line each, for `cargo:warning=`.
    pub warnings: Vec<String>,
}

impl Built {
    /// The build-script directives: `cargo:warning=` for every warning,
    /// `cargo:rerun-if-changed=` for every dependency and
    /// `cargo:rerun-if-env-changed=HALC_GLSLC`, one a line.
    pub fn cargo_directives(&self) -> String {
        let mut s = String::new();
        for w in &self.warnings {
            // One directive a line: a line break would end it.
            s.push_str(&format!("cargo:warning={}\n", w.replace(['\n', '\r'], " ")));
        }
        for p in &self.rerun_if_changed {
            s.push_str(&format!("cargo:rerun-if-changed={}\n", p.display()));
        }
        s.push_str(&format!(
            "cargo:rerun-if-env-changed={}\n",
            crate::build::glsl::GLSLC_ENV
        ));
        s
    }
}

/// One input as the user gave it.
#[derive(Debug, Clone)]
struct Source {
    /// Relative to the manifest directory when it is inside it.
    path: PathBuf,
    renames: Vec<(String, String)>,
}

/// The kernels of a crate, compiled from its build script.
#[derive(Debug, Clone)]
pub struct Kernels {
    sources: Vec<Source>,
    dirs: Vec<PathBuf>,
    options: Options,
    glsl: GlslOptions,
    glslc: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    manifest_dir: Option<PathBuf>,
}

impl Default for Kernels {
    fn default() -> Self {
        Self::new()
    }
}

impl Kernels {
    /// No inputs; halc's default options (argument buffers, MSL 3.0, macOS,
    /// safe math); GLSL for `vulkan1.0`.
    pub fn new() -> Self {
        Kernels {
            sources: Vec::new(),
            dirs: Vec::new(),
            options: Options::default(),
            glsl: GlslOptions::default(),
            glslc: None,
            out_dir: None,
            manifest_dir: None,
        }
    }

    fn root(&self) -> PathBuf {
        self.manifest_dir
            .clone()
            .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// Adds every file matching `pattern` (relative to
    /// `CARGO_MANIFEST_DIR`), in sorted order. A pattern that matches no
    /// file is an error.
    pub fn glob(mut self, pattern: &str) -> Result<Self, BuildError> {
        let root = self.root();
        let joined = if Path::new(pattern).is_absolute() {
            pattern.to_string()
        } else {
            format!(
                "{}/{pattern}",
                glob::Pattern::escape(&root.to_string_lossy())
            )
        };
        let paths = glob::glob(&joined).map_err(|e| BuildError::Glob {
            pattern: pattern.into(),
            message: e.to_string(),
        })?;
        let mut found = Vec::new();
        for p in paths {
            let p = p.map_err(|e| BuildError::Read {
                file: e.path().display().to_string(),
                message: e.error().to_string(),
            })?;
            if p.is_file() {
                found.push(p);
            }
        }
        if found.is_empty() {
            return Err(BuildError::NoMatch {
                pattern: pattern.into(),
                root: root.display().to_string(),
            });
        }
        found.sort();
        // Rerun when a file is added to the directories the pattern reads.
        let mut dirs: Vec<PathBuf> = found
            .iter()
            .filter_map(|p| p.parent().map(Path::to_path_buf))
            .collect();
        dirs.dedup();
        for d in dirs {
            let d = relative(&root, &d);
            if !self.dirs.contains(&d) {
                self.dirs.push(d);
            }
        }
        for p in found {
            self = self.file(relative(&root, &p));
        }
        Ok(self)
    }

    /// Adds one input (relative to `CARGO_MANIFEST_DIR`, or absolute).
    pub fn file(mut self, path: impl AsRef<Path>) -> Self {
        let path = path.as_ref().to_path_buf();
        if !self.sources.iter().any(|s| s.path == path) {
            self.sources.push(Source {
                path,
                renames: Vec::new(),
            });
        }
        self
    }

    /// Names the kernel of entry point `entry` of input `path` (added if
    /// new) `name` (as `halc compile FILE:ENTRY=NAME`).
    pub fn rename(mut self, path: impl AsRef<Path>, entry: &str, name: &str) -> Self {
        let path = path.as_ref().to_path_buf();
        self = self.file(&path);
        if let Some(s) = self.sources.iter_mut().find(|s| s.path == path) {
            s.renames.push((entry.into(), name.into()));
        }
        self
    }

    /// Bakes a spec constant (`halc compile --spec ID=VALUE`): the value is
    /// parsed by the constant's type (`true`, `-4`, `0x10`, `2.5`).
    pub fn spec(mut self, id: u32, value: impl std::fmt::Display) -> Self {
        self.options.specs.push(crate::spirv::SpecValue {
            id,
            text: value.to_string(),
        });
        self
    }

    /// The binding model (default argument buffers).
    pub fn binding_model(mut self, model: BindingModel) -> Self {
        self.options.layout.model = model;
        self
    }

    /// The MSL version (default 3.0).
    pub fn msl_version(mut self, version: MslVersion) -> Self {
        self.options.msl_version = version;
        self
    }

    /// The platform (default macOS).
    pub fn platform(mut self, platform: Platform) -> Self {
        self.options.layout.platform = platform;
        self
    }

    /// Every compile option at once (its isolation is ignored: a build
    /// script compiles in process). Specs set before are replaced.
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The glslc to run (default `$HALC_GLSLC`, else `glslc` on `PATH`).
    pub fn glslc(mut self, path: impl Into<PathBuf>) -> Self {
        self.glslc = Some(path.into());
        self
    }

    /// glslc's target environment (default `vulkan1.0`).
    pub fn target_env(mut self, env: TargetEnv) -> Self {
        self.glsl.target_env = env;
        self
    }

    /// A `-D` define for GLSL inputs.
    pub fn define(mut self, name: &str, value: Option<&str>) -> Self {
        self.glsl
            .defines
            .push((name.to_string(), value.map(str::to_string)));
        self
    }

    /// A `-I` include directory for GLSL inputs (relative to
    /// `CARGO_MANIFEST_DIR`, or absolute).
    pub fn include_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.glsl.include_dirs.push(dir.as_ref().to_path_buf());
        self
    }

    /// Where to write (default `$OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The directory inputs are relative to (default `$CARGO_MANIFEST_DIR`).
    pub fn manifest_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.manifest_dir = Some(dir.into());
        self
    }

    /// Compiles into `$OUT_DIR/NAME.halc` and `$OUT_DIR/NAME.rs` and prints
    /// the `cargo:warning` and `cargo:rerun-if-changed` directives
    /// ([`Built::cargo_directives`]: the build-script protocol, on stdout).
    /// [`Kernels::build`] does the same without printing.
    pub fn compile(&self, name: &str) -> Result<Built, BuildError> {
        let built = self.build(name)?;
        print!("{}", built.cargo_directives());
        Ok(built)
    }

    /// Compiles into `$OUT_DIR/NAME.halc` and `$OUT_DIR/NAME.rs`; prints
    /// nothing.
    pub fn build(&self, name: &str) -> Result<Built, BuildError> {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(BuildError::Name(name.into()));
        }
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::Env("OUT_DIR", "out_dir"))?,
        };
        if self.sources.is_empty() {
            return Err(BuildError::NoInputs);
        }
        let root = self.root();
        let mut glsl = self.glsl.clone();
        glsl.include_dirs = glsl.include_dirs.iter().map(|d| root.join(d)).collect();
        glsl.working_dir = Some(root.clone());
        let mut glslc = LazyGlslc::new(self.glslc.clone());
        let mut rerun: Vec<PathBuf> = self.dirs.iter().map(|d| root.join(d)).collect();
        // glslc on every GLSL source that exists, several at once (as many
        // as the build's jobserver grants, or the cores), before anything
        // else: the errors are still reported in source order below. It
        // runs in the manifest directory on the path as given: its messages
        // name the file as the user does.
        let glsl_sources: Vec<_> = self
            .sources
            .iter()
            .map(|s| {
                (!crate::build::glsl::is_spirv(&s.path) && root.join(&s.path).is_file())
                    .then_some((s.path.as_path(), &glsl))
            })
            .collect();
        // What glslc wrote on earlier runs of this build script, for the
        // sources whose files have not changed (`crate::build::glsl::cache`).
        let cache = crate::build::glsl::GlslCache::new(out_dir.join("halc-glslc-cache"));
        let glsl_out = glslc.compile_all_cached(&glsl_sources, self.options.jobs, &cache);
        let mut inputs = Vec::new();
        for (s, glsl_out) in self.sources.iter().zip(glsl_out) {
            let full = root.join(&s.path);
            let display = s.path.to_string_lossy().replace('\\', "/");
            let bytes = if crate::build::glsl::is_spirv(&s.path) {
                std::fs::read(&full).map_err(|e| BuildError::Read {
                    file: display.clone(),
                    message: e.to_string(),
                })?
            } else {
                // A source glslc did not run on is missing, or follows one
                // that failed, whose error came first.
                let Some(out) = glsl_out else {
                    return Err(BuildError::Read {
                        file: display.clone(),
                        message: "no such file".into(),
                    });
                };
                let out = out?;
                for d in out.dependencies {
                    let d = if d.is_absolute() { d } else { root.join(d) };
                    if !rerun.contains(&d) {
                        rerun.push(d);
                    }
                }
                out.spirv
            };
            if !rerun.contains(&full) {
                rerun.push(full.clone());
            }
            let mut input = Input::new(display, bytes);
            for (entry, kname) in &s.renames {
                input = input.rename(entry, kname);
            }
            inputs.push(input);
        }
        let mut options = self.options.clone();
        options.isolation = Isolation::InProcess;
        let compiled: Compiled = crate::driver::compile(&inputs, &options)?;
        // A one-thread threadgroup from a SpecId's workgroup default is
        // refused (the CLI only warns: its user sees the warning; a build
        // script's output is easy to miss).
        if let Some((k, (id, other))) = compiled
            .kernels
            .iter()
            .find_map(|k| k.one_thread_from_frozen_spec().map(|f| (k, f)))
        {
            return Err(BuildError::OneThread {
                file: k.input.clone(),
                kernel: k.name.clone(),
                id,
                other,
            });
        }
        let warnings = compiled
            .warnings()
            .iter()
            .map(|w| w.message(|id| format!(".spec({id}, VALUE)")))
            .collect();
        let exe_name = format!("{name}.halc");
        let rs_name = format!("{name}.rs");
        let code = bindings::generate(&compiled, Some(&exe_name))?;
        let bytes = compiled.to_flatbuffer();
        let executable = out_dir.join(&exe_name);
        let bindings_path = out_dir.join(&rs_name);
        write_all(
            &out_dir,
            &[(&exe_name, &bytes), (&rs_name, code.as_bytes())],
        )?;
        Ok(Built {
            executable,
            bindings: bindings_path,
            kernels: compiled.kernels.iter().map(|k| k.name.clone()).collect(),
            rerun_if_changed: rerun,
            warnings,
        })
    }
}

/// `p` relative to `root` when inside it.
fn relative(root: &Path, p: &Path) -> PathBuf {
    p.strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| p.to_path_buf())
}

/// Writes every file to a temporary file in `dir`, then renames them all:
/// on any error nothing new is left behind.
fn write_all(dir: &Path, files: &[(&str, &[u8])]) -> Result<(), BuildError> {
    use std::io::Write;
    let fail = |file: &str, e: &dyn std::fmt::Display| BuildError::Write {
        dir: dir.display().to_string(),
        file: file.to_string(),
        message: e.to_string(),
    };
    let mut temps = Vec::new();
    for (name, bytes) in files {
        let mut t = crate::driver::output::temp_file_in(dir, &format!(".{name}."))
            .map_err(|e| fail(name, &e))?;
        t.write_all(bytes)
            .and_then(|()| t.flush())
            .map_err(|e| fail(name, &e))?;
        temps.push((name, t));
    }
    let mut done: Vec<PathBuf> = Vec::new();
    for (name, t) in temps {
        let path = dir.join(name);
        if let Err(e) = crate::driver::output::persist(t, &path) {
            // The outputs belong together: remove those already in place.
            for p in &done {
                let _ = std::fs::remove_file(p);
            }
            return Err(fail(name, &e));
        }
        done.push(path);
    }
    Ok(())
}
