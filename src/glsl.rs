//! GLSL → SPIR-V through `glslc` (shaderc), found at run time.
//!
//! halc compiles SPIR-V; GLSL compute shaders reach it through Google's
//! `glslc`, which this module locates and runs as a child process (never a
//! shell). [`Glslc::compile`] returns the SPIR-V **and every file glslc
//! read** (the source and its `#include`s, from glslc's `-MD` depfile), so a
//! build system can rebuild when an include changes.
//!
//! ```no_run
//! use halc::glsl::{Glslc, GlslOptions};
//! let glslc = Glslc::locate(None)?; // $HALC_GLSLC, else `glslc` on PATH
//! let out = glslc.compile("shaders/add.comp".as_ref(), &GlslOptions::default())?;
//! assert!(out.dependencies.iter().any(|d| d.ends_with("add.comp")));
//! # Ok::<(), halc::glsl::GlslError>(())
//! ```
//!
//! Errors are one line each, except a compile error, which is glslc's own
//! message verbatim (it names `file:line`).

pub use crate::glsl_cache::GlslCache;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Environment variable naming the glslc to run when no explicit path is
/// given.
pub const GLSLC_ENV: &str = "HALC_GLSLC";

/// How to install glslc, for the "not found" message.
const INSTALL_HINT: &str = "install it (Debian/Ubuntu: `apt-get install glslc`; macOS: `brew install shaderc`; or the Vulkan SDK) or set HALC_GLSLC to its path";

/// Why GLSL could not be compiled.
#[derive(Debug, thiserror::Error)]
pub enum GlslError {
    /// glslc is not installed (or not where it was said to be).
    #[error("GLSL needs glslc, which was not found (`{program}`{how}): {INSTALL_HINT}", program = .program.display())]
    NotFound {
        /// The program that was looked for.
        program: PathBuf,
        /// Where it was looked for (`" on PATH"`, `" from HALC_GLSLC"`, or empty).
        how: &'static str,
    },
    /// glslc exists but could not be run, or did not behave like glslc.
    #[error("cannot run glslc `{program}`: {message}", program = .program.display())]
    Run {
        /// The program.
        program: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// glslc rejected the shader: its stderr, verbatim (it names `file:line`).
    #[error("{stderr}")]
    Compile {
        /// The source file (or `<stdin>`).
        file: String,
        /// glslc's message, trailing whitespace removed.
        stderr: String,
    },
    /// The file's extension names a stage halc does not compile.
    #[error("{file}: `.{ext}` is a {stage} shader; halc compiles compute shaders (`.comp`, or `.glsl` compiled as compute)")]
    NotCompute {
        /// The source file.
        file: String,
        /// Its extension.
        ext: String,
        /// The stage the extension names.
        stage: &'static str,
    },
    /// An option has a value glslc cannot take.
    #[error("{0}")]
    Options(String),
    /// Reading or writing a temporary file failed.
    #[error("{file}: {message}")]
    Io {
        /// The file.
        file: String,
        /// What went wrong.
        message: String,
    },
}

/// The Vulkan or SPIR-V version glslc targets (`--target-env`,
/// `--target-spv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TargetEnv {
    /// `vulkan1.N` (N in 0..=3): that Vulkan version's SPIR-V.
    Vulkan(u8),
    /// `spv1.N` (N in 0..=6): that SPIR-V version, on the lowest Vulkan that
    /// accepts it.
    Spv(u8),
}

impl Default for TargetEnv {
    /// `vulkan1.0` (SPIR-V 1.0), glslc's own default.
    fn default() -> Self {
        TargetEnv::Vulkan(0)
    }
}

impl std::str::FromStr for TargetEnv {
    type Err = GlslError;

    fn from_str(s: &str) -> Result<Self, GlslError> {
        let bad = || {
            GlslError::Options(format!(
                "unknown target environment `{s}`: expected vulkan1.0 … vulkan1.3 or spv1.0 … spv1.6"
            ))
        };
        let minor = |rest: &str, max: u8| -> Result<u8, GlslError> {
            rest.parse::<u8>()
                .ok()
                .filter(|m| *m <= max)
                .ok_or_else(bad)
        };
        if let Some(rest) = s.strip_prefix("vulkan1.") {
            Ok(TargetEnv::Vulkan(minor(rest, 3)?))
        } else if let Some(rest) = s.strip_prefix("spv1.") {
            Ok(TargetEnv::Spv(minor(rest, 6)?))
        } else {
            Err(bad())
        }
    }
}

impl std::fmt::Display for TargetEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetEnv::Vulkan(m) => write!(f, "vulkan1.{m}"),
            TargetEnv::Spv(m) => write!(f, "spv1.{m}"),
        }
    }
}

impl TargetEnv {
    /// glslc's arguments for this target.
    pub fn args(self) -> Vec<String> {
        match self {
            TargetEnv::Vulkan(m) => vec![format!("--target-env=vulkan1.{m}")],
            TargetEnv::Spv(m) => {
                // The lowest Vulkan that carries that SPIR-V version.
                let vk = match m {
                    0 => 0,
                    1..=3 => 1,
                    4 | 5 => 2,
                    _ => 3,
                };
                vec![
                    format!("--target-env=vulkan1.{vk}"),
                    format!("--target-spv=spv1.{m}"),
                ]
            }
        }
    }
}

/// How to compile GLSL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlslOptions {
    /// Target environment (default `vulkan1.0`).
    pub target_env: TargetEnv,
    /// `-DNAME` / `-DNAME=VALUE`, in order.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I DIR`, searched for `#include` in order.
    pub include_dirs: Vec<PathBuf>,
    /// `-O` (glslc's optimiser). Off by default: it strips the names the
    /// generated Rust bindings use for block members.
    pub optimize: bool,
    /// The directory glslc runs in (default: this process's): a relative
    /// source path, relative include directories, the `file:line` of its
    /// messages and the relative dependencies it reports are relative to it.
    pub working_dir: Option<PathBuf>,
}

impl GlslOptions {
    pub(crate) fn args(&self) -> Result<Vec<OsString>, GlslError> {
        let mut v: Vec<OsString> = self.target_env.args().into_iter().map(Into::into).collect();
        for (name, value) in &self.defines {
            if name.is_empty() || name.contains(['=', ' ', '\n']) || name.starts_with('-') {
                return Err(GlslError::Options(format!(
                    "define `{name}`: a macro name must be non-empty, without `=` or spaces"
                )));
            }
            v.push(match value {
                Some(val) => format!("-D{name}={val}").into(),
                None => format!("-D{name}").into(),
            });
        }
        for dir in &self.include_dirs {
            v.push("-I".into());
            v.push(dir.clone().into_os_string());
        }
        if self.optimize {
            v.push("-O".into());
        }
        Ok(v)
    }
}

/// What [`Glslc::compile`] produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlslOutput {
    /// The SPIR-V module.
    pub spirv: Vec<u8>,
    /// Every file glslc read: the source first, then its `#include`s, each
    /// once, as glslc names them (relative paths are relative to
    /// [`GlslOptions::working_dir`]).
    pub dependencies: Vec<PathBuf>,
}

/// Whether a kernel source is SPIR-V (`.spv`, any case); every other
/// source is GLSL for glslc.
pub fn is_spirv(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("spv"))
}

/// What a kernel source given to the command line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// A SPIR-V module.
    Spirv,
    /// GLSL, for glslc.
    Glsl,
}

/// Decides what the kernel source at `path`, whose contents start with
/// `head`, is (`halc compile`, `halc diff`): SPIR-V when it starts with the
/// SPIR-V magic number in either byte order, or is named `.spv`; GLSL when
/// it is named `.comp` or `.glsl` (or after another stage, which glslc's
/// wrapper then refuses by name), or its text has a `#version` line;
/// `None` when it is neither.
pub fn source_kind(path: &Path, head: &[u8]) -> Option<SourceKind> {
    let magic = crate::spirv::binary::MAGIC;
    if let Some(first) = head.get(..4) {
        let first = u32::from_le_bytes([first[0], first[1], first[2], first[3]]);
        if first == magic || first.swap_bytes() == magic {
            return Some(SourceKind::Spirv);
        }
    }
    if is_spirv(path) {
        return Some(SourceKind::Spirv);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ext == "comp" || ext == "glsl" || OTHER_STAGES.iter().any(|(e, _)| *e == ext) {
        return Some(SourceKind::Glsl);
    }
    let text = std::str::from_utf8(head).ok()?;
    text.lines()
        .any(|l| {
            l.trim_start()
                .strip_prefix('#')
                .is_some_and(|r| r.trim_start().starts_with("version"))
        })
        .then_some(SourceKind::Glsl)
}

/// glslc, located on first use: a build whose sources are all SPIR-V never
/// looks for it (`halc::build`, `halc build`).
#[derive(Debug, Clone, Default)]
pub struct LazyGlslc {
    explicit: Option<PathBuf>,
    located: Option<Glslc>,
}

impl LazyGlslc {
    /// `explicit` is passed to [`Glslc::locate`] on first use.
    pub fn new(explicit: Option<PathBuf>) -> Self {
        LazyGlslc {
            explicit,
            located: None,
        }
    }

    /// [`Glslc::compile`], locating glslc first if this is the first use.
    pub fn compile(&mut self, path: &Path, opts: &GlslOptions) -> Result<GlslOutput, GlslError> {
        self.located()?.compile(path, opts)
    }

    /// [`Glslc::compile_all`] of the sources that are given (`Some`; a
    /// caller's SPIR-V inputs are `None`), results aligned with `sources`,
    /// locating glslc first if there is a source and this is the first use
    /// (a failure to locate it is the first source's error). `jobs` 0 is
    /// one per core, and under a make or cargo jobserver no more glslc at
    /// once than it grants tokens for (held until the last glslc has
    /// exited), as a `compile` call's jobs.
    pub fn compile_all(
        &mut self,
        sources: &[Option<(&Path, &GlslOptions)>],
        jobs: usize,
    ) -> Vec<Option<Result<GlslOutput, GlslError>>> {
        let mut results: Vec<_> = sources.iter().map(|_| None).collect();
        let given: Vec<usize> = (0..sources.len())
            .filter(|&i| sources[i].is_some())
            .collect();
        let Some(&first) = given.first() else {
            return results;
        };
        let glslc = match self.located() {
            Ok(g) => g,
            Err(e) => {
                results[first] = Some(Err(e));
                return results;
            }
        };
        let budget = if jobs > 0 {
            crate::jobs::Budget::requested(jobs)
        } else {
            crate::jobs::Budget::take(given.len(), crate::jobs::cores)
        };
        let compiled: Vec<_> = sources.iter().flatten().copied().collect();
        let outs = glslc.compile_all(&compiled, budget.cpus.min(given.len()));
        for (i, out) in given.into_iter().zip(outs) {
            results[i] = out;
        }
        results
    }

    /// [`LazyGlslc::compile_all`], taking what `cache` still holds for a
    /// source instead of running glslc on it, and keeping what glslc
    /// writes ([`GlslCache`]).
    pub fn compile_all_cached(
        &mut self,
        sources: &[Option<(&Path, &GlslOptions)>],
        jobs: usize,
        cache: &GlslCache,
    ) -> Vec<Option<Result<GlslOutput, GlslError>>> {
        if sources.iter().all(Option::is_none) {
            return sources.iter().map(|_| None).collect();
        }
        let glslc = match self.located() {
            Ok(g) => g.clone(),
            Err(_) => return self.compile_all(sources, jobs),
        };
        let mut results: Vec<Option<Result<GlslOutput, GlslError>>> = sources
            .iter()
            .map(|s| s.and_then(|(p, o)| cache.get(&glslc, p, o)).map(Ok))
            .collect();
        let missed: Vec<_> = sources
            .iter()
            .zip(&results)
            .map(|(s, r)| if r.is_some() { None } else { *s })
            .collect();
        let started = std::time::SystemTime::now();
        let compiled = self.compile_all(&missed, jobs);
        for ((r, out), s) in results.iter_mut().zip(compiled).zip(&missed) {
            if let (Some(Ok(out)), Some((p, o))) = (&out, s) {
                cache.put(&glslc, p, o, out, started);
            }
            if out.is_some() {
                *r = out;
            }
        }
        results
    }

    fn located(&mut self) -> Result<&Glslc, GlslError> {
        Ok(match self.located {
            Some(ref g) => g,
            None => self
                .located
                .insert(Glslc::locate(self.explicit.as_deref())?),
        })
    }
}

/// A located glslc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glslc {
    program: PathBuf,
    version: String,
}

/// Extensions glslc maps to stages other than compute.
const OTHER_STAGES: &[(&str, &str)] = &[
    ("vert", "vertex"),
    ("frag", "fragment"),
    ("geom", "geometry"),
    ("tesc", "tessellation control"),
    ("tese", "tessellation evaluation"),
    ("mesh", "mesh"),
    ("task", "task"),
    ("rgen", "ray generation"),
    ("rint", "ray intersection"),
    ("rahit", "ray any-hit"),
    ("rchit", "ray closest-hit"),
    ("rmiss", "ray miss"),
    ("rcall", "ray callable"),
];

impl Glslc {
    /// Finds glslc: `explicit` when given, else `$HALC_GLSLC`, else `glslc`
    /// on `PATH`; runs `glslc --version` to check it runs.
    pub fn locate(explicit: Option<&Path>) -> Result<Glslc, GlslError> {
        let (program, how) = match explicit {
            Some(p) => (p.to_path_buf(), ""),
            None => match std::env::var_os(GLSLC_ENV).filter(|v| !v.is_empty()) {
                Some(v) => (PathBuf::from(v), " from HALC_GLSLC"),
                None => (PathBuf::from("glslc"), " on PATH"),
            },
        };
        let out = Command::new(&program)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| spawn_error(&program, how, &e))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let first = text.lines().next().unwrap_or("").trim().to_string();
        if !out.status.success() {
            return Err(GlslError::Run {
                program,
                message: format!(
                    "`--version` failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            });
        }
        Ok(Glslc {
            program,
            version: first,
        })
    }

    /// The program that runs.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The first line of `glslc --version` (e.g. `shaderc 2023.2-1`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Compiles the compute shader at `path`. The stage comes from the
    /// extension: `.comp` is compute; any extension glslc maps to another
    /// stage (`.vert`, `.frag`, …) is an error; anything else (`.glsl`) is
    /// compiled with `-fshader-stage=compute`.
    pub fn compile(&self, path: &Path, opts: &GlslOptions) -> Result<GlslOutput, GlslError> {
        self.start(path, opts)?.finish()
    }

    /// [`Glslc::compile`] of each `(path, options)`, up to `jobs` glslc
    /// processes at once (no thread: each writes its messages to a file,
    /// and the oldest is waited for first), results in order. After a
    /// source fails no further one is started, and those are `None`: every
    /// source before a failed one has a result, so the first error in
    /// input order is the one a serial run meets.
    pub fn compile_all(
        &self,
        sources: &[(&Path, &GlslOptions)],
        jobs: usize,
    ) -> Vec<Option<Result<GlslOutput, GlslError>>> {
        let mut results: Vec<Option<Result<GlslOutput, GlslError>>> =
            sources.iter().map(|_| None).collect();
        let mut running: std::collections::VecDeque<(usize, Running)> = Default::default();
        let mut failed = false;
        for (i, (path, opts)) in sources.iter().enumerate() {
            if running.len() >= jobs.max(1) {
                if let Some((j, r)) = running.pop_front() {
                    let r = r.finish();
                    failed = r.is_err();
                    results[j] = Some(r);
                }
            }
            if failed {
                break;
            }
            match self.start(path, opts) {
                Ok(r) => running.push_back((i, r)),
                Err(e) => {
                    results[i] = Some(Err(e));
                    break;
                }
            }
        }
        for (j, r) in running {
            results[j] = Some(r.finish());
        }
        results
    }

    /// Starts glslc on `path` (see [`Glslc::compile`]), its output and
    /// messages going to files of its own.
    fn start(&self, path: &Path, opts: &GlslOptions) -> Result<Running, GlslError> {
        let file = path.display().to_string();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        if let Some((_, stage)) = OTHER_STAGES.iter().find(|(e, _)| *e == ext) {
            return Err(GlslError::NotCompute { file, ext, stage });
        }
        let io = |what: &str, e: std::io::Error| GlslError::Io {
            file: file.clone(),
            message: format!("{what}: {e}"),
        };
        let tmp = tempfile::Builder::new()
            .prefix("halc-glslc")
            .tempdir()
            .map_err(|e| io("cannot create a temporary directory", e))?;
        // Files, not pipes: several glslc run at once with nobody reading.
        let messages = |name: &str| {
            std::fs::File::options()
                .read(true)
                .write(true)
                .create_new(true)
                .open(tmp.path().join(name))
                .map_err(|e| io("cannot create a temporary file", e))
        };
        let (stdout, stderr) = (messages("stdout")?, messages("stderr")?);
        let mut cmd = Command::new(&self.program);
        cmd.args(opts.args()?);
        if ext != "comp" {
            cmd.arg("-fshader-stage=compute");
        }
        cmd.arg("-MD")
            .arg("-MF")
            .arg(tmp.path().join("out.d"))
            .arg("-o")
            .arg(tmp.path().join("out.spv"))
            .arg(path)
            .stdin(Stdio::null())
            .stdout(stdout.try_clone().map_err(|e| io("temporary file", e))?)
            .stderr(stderr.try_clone().map_err(|e| io("temporary file", e))?);
        if let Some(dir) = &opts.working_dir {
            cmd.current_dir(dir);
        }
        let child = cmd
            .spawn()
            .map_err(|e| spawn_error(&self.program, "", &e))?;
        Ok(Running {
            child,
            program: self.program.clone(),
            path: path.to_path_buf(),
            file,
            tmp,
            stdout,
            stderr,
        })
    }
    /// Compiles compute-shader source text (fed on stdin, so `#include`s
    /// resolve against `opts.include_dirs` only and no dependencies are
    /// reported).
    pub fn compile_source(&self, text: &str, opts: &GlslOptions) -> Result<Vec<u8>, GlslError> {
        let mut child = Command::new(&self.program)
            .args(opts.args()?)
            .args(["-fshader-stage=compute", "-o", "-", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| spawn_error(&self.program, "", &e))?;
        let mut stdin = child.stdin.take().ok_or_else(|| GlslError::Run {
            program: self.program.clone(),
            message: "no stdin".into(),
        })?;
        let text = text.to_string();
        // A thread writes while we read: a large source cannot deadlock on
        // full pipes.
        let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
        let out = child.wait_with_output().map_err(|e| GlslError::Run {
            program: self.program.clone(),
            message: e.to_string(),
        })?;
        // glslc may exit before reading everything (an early error): its
        // status is what counts.
        let _ = writer.join();
        if !out.status.success() {
            return Err(compile_error("<stdin>".into(), &out.stderr, &[]));
        }
        Ok(out.stdout)
    }
}

/// A glslc process started by [`Glslc::start`].
struct Running {
    child: std::process::Child,
    program: PathBuf,
    /// The source, as given.
    path: PathBuf,
    /// The source, as messages name it.
    file: String,
    /// Where glslc writes `out.spv` and `out.d`.
    tmp: tempfile::TempDir,
    stdout: std::fs::File,
    stderr: std::fs::File,
}

impl Running {
    /// Waits for glslc and reads what it wrote.
    fn finish(mut self) -> Result<GlslOutput, GlslError> {
        use std::io::{Read, Seek};
        let file = self.file;
        let io = |what: &str, e: std::io::Error| GlslError::Io {
            file: file.clone(),
            message: format!("{what}: {e}"),
        };
        let status = self.child.wait().map_err(|e| GlslError::Run {
            program: self.program.clone(),
            message: e.to_string(),
        })?;
        if !status.success() {
            let read = |f: &mut std::fs::File| {
                let mut v = Vec::new();
                f.rewind().and_then(|()| f.read_to_end(&mut v)).map(|_| v)
            };
            let stderr = read(&mut self.stderr).map_err(|e| io("glslc's messages", e))?;
            let stdout = read(&mut self.stdout).map_err(|e| io("glslc's messages", e))?;
            return Err(compile_error(file.clone(), &stderr, &stdout));
        }
        let spv = self.tmp.path().join("out.spv");
        let spirv = std::fs::read(&spv).map_err(|e| io("glslc wrote no SPIR-V", e))?;
        let deptext = std::fs::read_to_string(self.tmp.path().join("out.d"))
            .map_err(|e| io("glslc wrote no depfile", e))?;
        let mut dependencies = parse_depfile(&deptext, Some(&spv.display().to_string()));
        if !dependencies.contains(&self.path) {
            dependencies.insert(0, self.path);
        }
        Ok(GlslOutput {
            spirv,
            dependencies,
        })
    }
}

fn spawn_error(program: &Path, how: &'static str, e: &std::io::Error) -> GlslError {
    if e.kind() == std::io::ErrorKind::NotFound {
        GlslError::NotFound {
            program: program.to_path_buf(),
            how,
        }
    } else {
        GlslError::Run {
            program: program.to_path_buf(),
            message: e.to_string(),
        }
    }
}

fn compile_error(file: String, stderr: &[u8], stdout: &[u8]) -> GlslError {
    let mut text = String::from_utf8_lossy(stderr).trim_end().to_string();
    if text.is_empty() {
        text = String::from_utf8_lossy(stdout).trim_end().to_string();
    }
    if text.is_empty() {
        text = format!("{file}: glslc failed without a message");
    }
    GlslError::Compile { file, stderr: text }
}

/// The prerequisites of a Make-style depfile (`target: dep dep …`), each
/// once, in order. Handles line continuations (`\` at a line end), escaped
/// spaces (`\ `), `$$`, several rules, and glslc's *unescaped* spaces in
/// paths (`inc dir/x.glsl`): words that are no existing file are joined with
/// the next ones while that makes an existing file. `target`, when given, is
/// the expected target name, stripped even when it contains spaces or `:`.
pub fn parse_depfile(text: &str, target: Option<&str>) -> Vec<PathBuf> {
    // Join continuation lines.
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut out: Vec<PathBuf> = Vec::new();
    for line in joined.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let rest = match target.and_then(|t| line.strip_prefix(t)) {
            Some(r) if r.starts_with(':') => &r[1..],
            _ => match rule_colon(line) {
                Some(i) => &line[i + 1..],
                None => continue,
            },
        };
        for dep in split_words(rest) {
            if !out.contains(&dep) {
                out.push(dep);
            }
        }
    }
    out
}

/// Byte index of the colon ending a rule's targets: the first unescaped `:`
/// followed by whitespace or the line end (a Windows drive `C:\` is not one).
fn rule_colon(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b':' if b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace()) => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Splits prerequisites at unescaped whitespace, then rejoins words that
/// only make an existing file together (glslc does not escape spaces).
fn split_words(s: &str) -> Vec<PathBuf> {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(' ' | '\t' | '#' | '\\')) => {
                cur.push(chars.next().unwrap_or(' '));
            }
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                cur.push('$');
            }
            c if c.is_whitespace() => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut end = i;
        if !Path::new(&words[i]).exists() {
            // The shortest run of words joined by one space that exists.
            let mut joined = words[i].clone();
            for (j, w) in words.iter().enumerate().skip(i + 1) {
                joined.push(' ');
                joined.push_str(w);
                if Path::new(&joined).exists() {
                    end = j;
                    break;
                }
            }
        }
        out.push(PathBuf::from(words[i..=end].join(" ")));
        i = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_env_parses_and_maps_to_glslc_args() {
        assert_eq!(
            "vulkan1.2".parse::<TargetEnv>().unwrap().args(),
            ["--target-env=vulkan1.2"]
        );
        assert_eq!(
            "spv1.4".parse::<TargetEnv>().unwrap().args(),
            ["--target-env=vulkan1.2", "--target-spv=spv1.4"]
        );
        for bad in ["vulkan1.4", "spv2.0", "opengl", "spv1.x"] {
            let e = bad.parse::<TargetEnv>().unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }

    #[test]
    fn depfile_with_continuations_escapes_and_dollars() {
        let text = "out.spv: a.comp \\\n  inc\\ dir/x.glsl \\\r\n c$$d.glsl\n";
        assert_eq!(
            parse_depfile(text, None),
            [
                PathBuf::from("a.comp"),
                PathBuf::from("inc dir/x.glsl"),
                PathBuf::from("c$d.glsl")
            ]
        );
    }

    #[test]
    fn depfile_target_with_spaces_and_repeated_rules() {
        let text = "/tmp/my dir/out.spv: a.comp b.glsl\n/tmp/my dir/out.spv: b.glsl c.glsl\n";
        assert_eq!(
            parse_depfile(text, Some("/tmp/my dir/out.spv")),
            [
                PathBuf::from("a.comp"),
                PathBuf::from("b.glsl"),
                PathBuf::from("c.glsl")
            ]
        );
        // Without the target: the first `: ` ends it; a drive colon does not.
        assert_eq!(
            parse_depfile("C:\\out.spv: a.comp\n", None),
            [PathBuf::from("a.comp")]
        );
    }

    #[test]
    fn depfile_unescaped_spaces_rejoin_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let spaced = dir.path().join("inc dir");
        std::fs::create_dir(&spaced).unwrap();
        std::fs::write(spaced.join("x.glsl"), "").unwrap();
        let a = dir.path().join("a.comp");
        std::fs::write(&a, "").unwrap();
        let text = format!("out.spv: {} {}/x.glsl\n", a.display(), spaced.display());
        assert_eq!(parse_depfile(&text, None), [a, spaced.join("x.glsl")]);
    }

    #[test]
    fn sources_are_told_apart_by_contents_then_name() {
        let le = crate::spirv::binary::MAGIC.to_le_bytes();
        let be = crate::spirv::binary::MAGIC.to_be_bytes();
        let kind = |p: &str, b: &[u8]| source_kind(Path::new(p), b);
        assert_eq!(kind("k.comp", &le), Some(SourceKind::Spirv));
        assert_eq!(kind("k", &be), Some(SourceKind::Spirv));
        assert_eq!(kind("k.SPV", b"junk"), Some(SourceKind::Spirv));
        assert_eq!(kind("k.comp", b"junk"), Some(SourceKind::Glsl));
        assert_eq!(kind("k.glsl", b""), Some(SourceKind::Glsl));
        assert_eq!(kind("k.frag", b""), Some(SourceKind::Glsl));
        assert_eq!(
            kind("k.txt", b"// x\n #  version 450\nvoid main(){}"),
            Some(SourceKind::Glsl)
        );
        assert_eq!(kind("k.txt", b"hello"), None);
        assert_eq!(kind("k.bin", &[0xff, 0xfe, 0, 1]), None);
    }

    #[test]
    fn other_stages_are_refused_by_extension() {
        let g = Glslc {
            program: PathBuf::from("/nonexistent/glslc"),
            version: String::new(),
        };
        let e = g
            .compile(Path::new("shaders/k.frag"), &GlslOptions::default())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "shaders/k.frag: `.frag` is a fragment shader; halc compiles compute shaders (`.comp`, or `.glsl` compiled as compute)"
        );
    }

    #[test]
    fn missing_glslc_is_one_line_with_the_install_hint() {
        let e = Glslc::locate(Some(Path::new("/nonexistent/glslc")))
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e}");
        assert!(
            e.starts_with("GLSL needs glslc, which was not found (`/nonexistent/glslc`)"),
            "{e}"
        );
        assert!(e.contains("apt-get install glslc"), "{e}");
    }
}
