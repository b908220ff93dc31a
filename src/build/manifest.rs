//! `halc.toml`: many kernels into one or more executables, for
//! `halc build` / `halc compile --manifest FILE`.
//!
//! ```toml
//! [defaults]                      # options of every executable (optional)
//! bindings = "argument-buffers"   # or "discrete"
//! msl_version = "3.0"
//! platform = "macos"              # or "ios"
//! argument_buffer_tier = 2
//! fast_math = false
//! binding_map = "bindings.toml"
//! spec = { 0 = 64 }               # baked into every kernel that declares SpecId 0
//!
//! [[executable]]
//! output = "build/kernels.halc"
//! reflection = "build/kernels.json"   # optional outputs and checks
//! depfile = "build/kernels.d"
//! lock = "kernels.lock"
//! bindings = "discrete"               # any [defaults] key, for this executable
//!
//! [[executable.kernel]]
//! source = "shaders/saxpy.comp"       # GLSL (through glslc) or SPIR-V (`.spv`)
//! defines = ["N=4"]                   # GLSL only; also target_env, include_dirs
//! entry = "main"                      # optional: one entry point of the source
//! name = "saxpy"                      # optional: its kernel name
//! spec = { 1 = 2.5 }                  # optional: baked into this kernel only
//! ```
//!
//! Paths are relative to the manifest's directory. Unknown keys, wrong
//! types and bad values are errors naming the line and column.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::build::glsl::{GlslOptions, TargetEnv};
use crate::model::Options;
use crate::msl::metallib::MathMode;
use crate::msl::{BindingModel, LayoutOptions, MslVersion, Platform, Tier};
use crate::spirv::SpecValue;

/// A manifest error, with its position in the file.
#[derive(Debug, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ManifestError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// A parsed manifest, with paths resolved against its directory.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The executables to build, in file order.
    pub executables: Vec<Executable>,
}

/// One executable to build.
#[derive(Debug, Clone)]
pub struct Executable {
    /// Where to write it.
    pub output: PathBuf,
    /// Where to write its reflection JSON.
    pub reflection: Option<PathBuf>,
    /// Its depfile.
    pub depfile: Option<PathBuf>,
    /// Its ABI lock.
    pub lock: Option<PathBuf>,
    /// The binding map file, read by the caller into `options`.
    pub binding_map: Option<PathBuf>,
    /// Options (binding model, MSL version, …, manifest-wide specs);
    /// `options.layout.map` is empty until the caller reads `binding_map`.
    pub options: Options,
    /// How its GLSL sources are compiled (target environment, include
    /// directories, the defines of `[defaults]` and the executable).
    pub glsl: GlslOptions,
    /// Its kernels, in file order.
    pub kernels: Vec<Kernel>,
    /// (line, column) of the `[[executable]]`'s output key, for errors.
    pub position: (usize, usize),
}

/// One kernel source of an executable.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// The SPIR-V file.
    pub source: PathBuf,
    /// The entry point to compile (all GLCompute ones when `None`).
    pub entry: Option<String>,
    /// Its kernel name.
    pub name: Option<String>,
    /// Values baked into this kernel only.
    pub specs: Vec<SpecValue>,
    /// GLSL `-D` defines of this kernel only, after the executable's.
    pub defines: Vec<(String, Option<String>)>,
    /// (line, column) of `source`, for errors.
    pub position: (usize, usize),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    defaults: Settings,
    #[serde(default)]
    executable: Vec<ExecutableToml>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct Settings {
    bindings: Option<Spanned<String>>,
    msl_version: Option<Spanned<String>>,
    platform: Option<Spanned<String>>,
    argument_buffer_tier: Option<Spanned<u8>>,
    fast_math: Option<bool>,
    binding_map: Option<String>,
    spec: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    target_env: Option<Spanned<String>>,
    include_dirs: Option<Vec<String>>,
    defines: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExecutableToml {
    output: Spanned<String>,
    reflection: Option<String>,
    depfile: Option<String>,
    lock: Option<String>,
    // The [defaults] keys, for this executable (no `#[serde(flatten)]`:
    // it loses the positions errors need).
    bindings: Option<Spanned<String>>,
    msl_version: Option<Spanned<String>>,
    platform: Option<Spanned<String>>,
    argument_buffer_tier: Option<Spanned<u8>>,
    fast_math: Option<bool>,
    binding_map: Option<String>,
    spec: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    target_env: Option<Spanned<String>>,
    include_dirs: Option<Vec<String>>,
    defines: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    kernel: Vec<KernelToml>,
}

impl ExecutableToml {
    fn settings(&self) -> Settings {
        Settings {
            bindings: self.bindings.clone(),
            msl_version: self.msl_version.clone(),
            platform: self.platform.clone(),
            argument_buffer_tier: self.argument_buffer_tier.clone(),
            fast_math: self.fast_math,
            binding_map: self.binding_map.clone(),
            spec: self.spec.clone(),
            target_env: self.target_env.clone(),
            include_dirs: self.include_dirs.clone(),
            defines: self.defines.clone(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KernelToml {
    source: Spanned<String>,
    entry: Option<String>,
    name: Option<Spanned<String>>,
    spec: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    defines: Option<Vec<Spanned<String>>>,
}

impl Manifest {
    /// Parses manifest `text`; relative paths are resolved against `dir`.
    pub fn parse(text: &str, dir: &Path) -> Result<Manifest, ManifestError> {
        let err = |at: usize, message: String| {
            let (line, column) = crate::position::position(text, at);
            ManifestError {
                line,
                column,
                message,
            }
        };
        let file: File = toml::from_str(text).map_err(|e| {
            let (line, column, message) = crate::position::error(text, &e);
            ManifestError {
                line,
                column,
                message,
            }
        })?;
        if file.executable.is_empty() {
            return Err(err(
                0,
                "no [[executable]]: a manifest names at least one executable to build".into(),
            ));
        }
        let path = |p: &str| dir.join(p);
        let mut outputs: BTreeMap<PathBuf, usize> = BTreeMap::new();
        let mut executables = Vec::new();
        for e in file.executable {
            let at = e.output.span().start;
            let output = path(e.output.get_ref());
            if let Some(prev) = outputs.insert(output.clone(), at) {
                return Err(err(
                    at,
                    format!(
                        "output `{}` is also the output of the executable at line {}",
                        e.output.get_ref(),
                        crate::position::position(text, prev).0
                    ),
                ));
            }
            if e.kernel.is_empty() {
                return Err(err(
                    at,
                    format!(
                        "executable `{}` has no [[executable.kernel]]",
                        e.output.get_ref()
                    ),
                ));
            }
            let settings = merge(&file.defaults, &e.settings());
            let options = options(&settings, &err)?;
            let mut kernels = Vec::new();
            for k in e.kernel {
                let name = k.name.map(|n| {
                    let at = n.span().start;
                    (n.into_inner(), at)
                });
                if let Some((n, at)) = &name {
                    if n.is_empty() || n.chars().any(char::is_control) {
                        return Err(err(
                            *at,
                            format!("name {n:?}: a kernel name must be non-empty and printable"),
                        ));
                    }
                }
                kernels.push(Kernel {
                    position: crate::position::position(text, k.source.span().start),
                    source: path(k.source.get_ref()),
                    entry: k.entry,
                    name: name.map(|(n, _)| n),
                    specs: specs(k.spec.as_ref(), &err)?,
                    defines: defines(k.defines.as_deref(), &err)?,
                });
            }
            executables.push(Executable {
                output,
                reflection: e.reflection.as_deref().map(path),
                depfile: e.depfile.as_deref().map(path),
                lock: e.lock.as_deref().map(path),
                binding_map: settings.binding_map.as_deref().map(path),
                glsl: glsl(&settings, dir, &err)?,
                options,
                kernels,
                position: crate::position::position(text, at),
            });
        }
        Ok(Manifest { executables })
    }
}

/// An executable's settings over the defaults.
fn merge(defaults: &Settings, own: &Settings) -> Settings {
    let mut spec = defaults.spec.clone().unwrap_or_default();
    if let Some(s) = &own.spec {
        spec.extend(s.clone());
    }
    Settings {
        bindings: own.bindings.clone().or_else(|| defaults.bindings.clone()),
        msl_version: own
            .msl_version
            .clone()
            .or_else(|| defaults.msl_version.clone()),
        platform: own.platform.clone().or_else(|| defaults.platform.clone()),
        argument_buffer_tier: own
            .argument_buffer_tier
            .clone()
            .or_else(|| defaults.argument_buffer_tier.clone()),
        fast_math: own.fast_math.or(defaults.fast_math),
        binding_map: own
            .binding_map
            .clone()
            .or_else(|| defaults.binding_map.clone()),
        spec: Some(spec),
        target_env: own
            .target_env
            .clone()
            .or_else(|| defaults.target_env.clone()),
        include_dirs: own
            .include_dirs
            .clone()
            .or_else(|| defaults.include_dirs.clone()),
        // Defines add up: the defaults', then the executable's.
        defines: Some(
            defaults
                .defines
                .iter()
                .chain(&own.defines)
                .flatten()
                .cloned()
                .collect(),
        ),
    }
}

fn options(
    s: &Settings,
    err: &dyn Fn(usize, String) -> ManifestError,
) -> Result<Options, ManifestError> {
    let model = choose(
        "bindings",
        s.bindings
            .as_ref()
            .map(|b| (b.get_ref().as_str(), b.span().start)),
        BindingModel::ArgumentBuffers,
        &[
            ("argument-buffers", BindingModel::ArgumentBuffers),
            ("discrete", BindingModel::Discrete),
        ],
        err,
    )?;
    let platform = choose(
        "platform",
        s.platform
            .as_ref()
            .map(|p| (p.get_ref().as_str(), p.span().start)),
        Platform::MacOS,
        &[("macos", Platform::MacOS), ("ios", Platform::IOS)],
        err,
    )?;
    let tier = choose(
        "argument_buffer_tier",
        s.argument_buffer_tier
            .as_ref()
            .map(|t| (*t.get_ref(), t.span().start)),
        Tier::Tier2,
        &[(1, Tier::Tier1), (2, Tier::Tier2)],
        err,
    )?;
    let msl_version = match &s.msl_version {
        None => MslVersion::default(),
        Some(v) => v.get_ref().parse::<MslVersion>().map_err(|e| {
            err(
                v.span().start,
                format!("msl_version = {:?}: {e}", v.get_ref()),
            )
        })?,
    };
    Ok(Options {
        specs: specs(s.spec.as_ref(), err)?,
        layout: LayoutOptions {
            model,
            platform,
            tier,
            ..LayoutOptions::default()
        },
        msl_version,
        math_mode: if s.fast_math == Some(true) {
            MathMode::Fast
        } else {
            MathMode::Safe
        },
        ..Options::default()
    })
}

/// The value `given` (with its byte offset) names among `choices`, or
/// `default` when the key is absent.
fn choose<K: PartialEq + std::fmt::Debug + Copy, V: Copy>(
    key: &str,
    given: Option<(K, usize)>,
    default: V,
    choices: &[(K, V)],
    err: &dyn Fn(usize, String) -> ManifestError,
) -> Result<V, ManifestError> {
    let Some((k, at)) = given else {
        return Ok(default);
    };
    choices
        .iter()
        .find(|(c, _)| *c == k)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<String> = choices.iter().map(|(c, _)| format!("{c:?}")).collect();
            err(
                at,
                format!("{key} = {k:?}: expected {}", names.join(" or ")),
            )
        })
}

/// `spec = { 0 = 128, 1 = 2.5, 2 = true, 3 = "0x10" }`.
fn specs(
    table: Option<&BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    err: &dyn Fn(usize, String) -> ManifestError,
) -> Result<Vec<SpecValue>, ManifestError> {
    let mut out = Vec::new();
    for (id, value) in table.into_iter().flatten() {
        let text = match value.get_ref() {
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => format!("{f:?}"),
            toml::Value::Boolean(b) => b.to_string(),
            toml::Value::String(s) => s.clone(),
            other => {
                return Err(err(
                    value.span().start,
                    format!(
                        "spec {}: expected a number, a boolean or a string, found {}",
                        id.get_ref(),
                        other.type_str()
                    ),
                ))
            }
        };
        let v: SpecValue = format!("{}={text}", id.get_ref())
            .parse()
            .map_err(|e: String| err(id.span().start, format!("spec {e}")))?;
        out.push(v);
    }
    out.sort_by_key(|v| v.id);
    Ok(out)
}

/// `defines = ["N=4", "USE_BIAS"]`.
fn defines(
    list: Option<&[Spanned<String>]>,
    err: &dyn Fn(usize, String) -> ManifestError,
) -> Result<Vec<(String, Option<String>)>, ManifestError> {
    let mut out = Vec::new();
    for d in list.into_iter().flatten() {
        let (name, value) = match d.get_ref().split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (d.get_ref().clone(), None),
        };
        if name.is_empty() || name.contains([' ', '\t', '\n']) || name.starts_with('-') {
            return Err(err(
                d.span().start,
                format!("define {:?}: expected NAME or NAME=VALUE", d.get_ref()),
            ));
        }
        out.push((name, value));
    }
    Ok(out)
}

/// The GLSL options of an executable.
fn glsl(
    s: &Settings,
    dir: &Path,
    err: &dyn Fn(usize, String) -> ManifestError,
) -> Result<GlslOptions, ManifestError> {
    let target_env = match &s.target_env {
        None => TargetEnv::default(),
        Some(t) => t
            .get_ref()
            .parse()
            .map_err(|e| err(t.span().start, format!("target_env: {e}")))?,
    };
    Ok(GlslOptions {
        target_env,
        defines: defines(s.defines.as_deref(), err)?,
        include_dirs: s
            .include_dirs
            .iter()
            .flatten()
            .map(|d| dir.join(d))
            .collect(),
        ..GlslOptions::default()
    })
}
