//! What glslc is asked for and what it gives back, and how a file is
//! told to be GLSL or SPIR-V.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

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

/// What [`Glslc::compile`](super::Glslc::compile) produced.
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

/// Extensions glslc maps to stages other than compute.
pub(super) const OTHER_STAGES: &[(&str, &str)] = &[
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
