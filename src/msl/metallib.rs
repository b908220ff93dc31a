//! The optional metallib build: each kernel's MSL through `xcrun metal -c`
//! and `xcrun metallib`, so applications load a compiled library instead of
//! compiling MSL at start-up.
//!
//! - [`argv`] is a pure function from [`MetallibOptions`] to the exact
//!   argument vectors of both steps (snapshot-tested).
//! - [`Xcrun::locate`] finds `xcrun`: an explicit path, else `HALC_XCRUN`,
//!   else `xcrun` on `PATH`.
//! - [`Xcrun::probe`] checks that the Metal toolchain is installed (Xcode 26
//!   ships it as a separate component) and reads its version.
//! - [`Toolchain::build`] runs both steps with [`std::process::Command`]
//!   (never a shell) in a private temporary directory and captures stderr.
//!
//! Nothing here prints: a failing step's stderr is returned verbatim in
//! [`MetallibError::Rejected`].

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};

use crate::msl::{MslVersion, Platform};

pub use crate::model::msl::{MathMode, Metallib};

/// The environment variable naming the `xcrun` to use.
pub const XCRUN_ENV: &str = "HALC_XCRUN";

/// What to tell a user whose Xcode has no Metal compiler.
pub const TOOLCHAIN_HINT: &str = "The Metal compiler comes with Xcode (the Command Line Tools alone do not include it). \
Since Xcode 26 it is a separate component: install it with `xcodebuild -downloadComponent MetalToolchain`.";

/// The SDK `xcrun` compiles against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Sdk {
    /// `macosx`.
    MacOSX,
    /// `iphoneos` (devices).
    IPhoneOS,
    /// `iphonesimulator` (the iOS Simulator).
    IPhoneSimulator,
}

impl Sdk {
    /// The SDK for a target platform; `simulator` picks the iOS Simulator
    /// SDK and is only valid with [`Platform::IOS`].
    pub fn for_platform(platform: Platform, simulator: bool) -> Option<Sdk> {
        match (platform, simulator) {
            (Platform::MacOS, false) => Some(Sdk::MacOSX),
            (Platform::MacOS, true) => None,
            (Platform::IOS, false) => Some(Sdk::IPhoneOS),
            (Platform::IOS, true) => Some(Sdk::IPhoneSimulator),
        }
    }

    /// The name `xcrun -sdk` takes.
    pub fn name(self) -> &'static str {
        match self {
            Sdk::MacOSX => "macosx",
            Sdk::IPhoneOS => "iphoneos",
            Sdk::IPhoneSimulator => "iphonesimulator",
        }
    }
}

impl std::fmt::Display for Sdk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Optimisation level of the Metal compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub enum OptLevel {
    /// `-O0`: no optimisation (for debugging).
    O0,
    /// `-O2`: the Metal compiler's default.
    #[default]
    O2,
    /// `-O3`.
    O3,
    /// `-Os`: optimise for size.
    Os,
}

impl OptLevel {
    /// The compiler flag.
    pub fn flag(self) -> &'static str {
        match self {
            OptLevel::O0 => "-O0",
            OptLevel::O2 => "-O2",
            OptLevel::O3 => "-O3",
            OptLevel::Os => "-Os",
        }
    }
}

/// Everything that shapes the two commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MetallibOptions {
    /// SDK (`-sdk`).
    pub sdk: Sdk,
    /// MSL version of the source: gives `-std=` and the deployment target.
    pub msl_version: MslVersion,
    /// The math mode recorded for the library: `-fno-fast-math` (safe) or
    /// `-ffast-math` (fast).
    pub math: MathMode,
    /// Optimisation level.
    pub opt: OptLevel,
    /// Debug info: `-gline-tables-only -frecord-sources` (source lines and
    /// the source itself in the metallib, for Xcode's shader debugger).
    pub debug: bool,
}

/// The arguments of both steps, after the `xcrun` program itself. File
/// names are relative: the commands run in the build's temporary directory.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Argv {
    /// `-sdk S metal … -c STEM.metal -o STEM.air`.
    pub compile: Vec<String>,
    /// `-sdk S metallib STEM.air -o STEM.metallib`.
    pub link: Vec<String>,
}

/// The `-std=` value for an MSL version: `metalX.Y` from 3.0 on, else
/// `macos-metalX.Y` / `ios-metalX.Y` (the simulator takes the iOS name).
pub fn std_flag(version: MslVersion, sdk: Sdk) -> String {
    let MslVersion { major, minor } = version;
    if major >= 3 {
        return format!("-std=metal{major}.{minor}");
    }
    let os = match sdk {
        Sdk::MacOSX => "macos",
        Sdk::IPhoneOS | Sdk::IPhoneSimulator => "ios",
    };
    format!("-std={os}-metal{major}.{minor}")
}

/// The oldest OS release that supports an MSL version, as the
/// deployment-target flag: without it the Metal compiler targets the SDK's
/// own (newest) release, and older systems may refuse the metallib. `None`
/// for a version halc does not know.
pub fn deployment_target_flag(version: MslVersion, sdk: Sdk) -> Option<String> {
    let (macos, ios) = match (version.major, version.minor) {
        (2, 0) => ("10.13", "11.0"),
        (2, 1) => ("10.14", "12.0"),
        (2, 2) => ("10.15", "13.0"),
        (2, 3) => ("11.0", "14.0"),
        (2, 4) => ("12.0", "15.0"),
        (3, 0) => ("13.0", "16.0"),
        (3, 1) => ("14.0", "17.0"),
        (3, 2) => ("15.0", "18.0"),
        _ => return None,
    };
    Some(match sdk {
        Sdk::MacOSX => format!("-mmacosx-version-min={macos}"),
        Sdk::IPhoneOS => format!("-mios-version-min={ios}"),
        Sdk::IPhoneSimulator => format!("-mios-simulator-version-min={ios}"),
    })
}

/// The exact arguments of both steps for a source file `STEM.metal`.
pub fn argv(opts: &MetallibOptions, stem: &str) -> Result<Argv, MetallibError> {
    let sdk = opts.sdk.name();
    let target = deployment_target_flag(opts.msl_version, opts.sdk)
        .ok_or(MetallibError::UnsupportedVersion(opts.msl_version))?;
    let mut compile = vec![
        "-sdk".to_string(),
        sdk.to_string(),
        "metal".to_string(),
        std_flag(opts.msl_version, opts.sdk),
        target,
        opts.opt.flag().to_string(),
        match opts.math {
            MathMode::Safe => "-fno-fast-math",
            MathMode::Fast => "-ffast-math",
        }
        .to_string(),
    ];
    if opts.debug {
        compile.push("-gline-tables-only".to_string());
        compile.push("-frecord-sources".to_string());
    }
    compile.extend([
        "-c".to_string(),
        format!("{stem}.metal"),
        "-o".to_string(),
        format!("{stem}.air"),
    ]);
    let link = vec![
        "-sdk".to_string(),
        sdk.to_string(),
        "metallib".to_string(),
        format!("{stem}.air"),
        "-o".to_string(),
        format!("{stem}.metallib"),
    ];
    Ok(Argv { compile, link })
}

/// A file stem for a kernel name that is safe as a command-line argument:
/// ASCII letters, digits and `_` (everything else becomes `_`), never empty,
/// never starting with `-`.
pub fn file_stem(kernel: &str) -> String {
    let s: String = kernel
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.is_empty() {
        "kernel".to_string()
    } else {
        s
    }
}

/// Which build step failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `xcrun metal -c` (MSL to AIR).
    Compile,
    /// `xcrun metallib` (AIR to metallib).
    Link,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Step::Compile => "the Metal compiler rejected the MSL",
            Step::Link => "the metallib linker failed",
        })
    }
}

/// Where the `xcrun` in use came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XcrunOrigin {
    /// Given explicitly (`--xcrun`).
    Explicit,
    /// The `HALC_XCRUN` environment variable.
    Env,
    /// Found on `PATH`.
    Path,
}

/// What went wrong building a metallib.
#[derive(Debug, thiserror::Error)]
pub enum MetallibError {
    /// No `xcrun` could be found.
    #[error("xcrun not found: {0}")]
    XcrunNotFound(String),
    /// `xcrun` (or its output directory) could not be used.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// `xcrun` runs but finds no Metal compiler for the SDK.
    #[error("the Metal toolchain is not available: `{command}` {status}{}\n{TOOLCHAIN_HINT}", stderr_block(.stderr))]
    ToolchainMissing {
        /// The probe command.
        command: String,
        /// How it ended.
        status: String,
        /// Its stderr, verbatim.
        stderr: String,
    },
    /// A build step failed; `stderr` is the tool's, verbatim.
    #[error("{step} (`{command}` {status}){}", stderr_block(.stderr))]
    Rejected {
        /// Which step.
        step: Step,
        /// The command, for reproducing it in the kept source's directory.
        command: String,
        /// How it ended.
        status: String,
        /// Its stderr, verbatim.
        stderr: String,
    },
    /// A step succeeded but did not write its output.
    #[error("`{command}` succeeded but did not write {file}")]
    NoOutput {
        /// The command.
        command: String,
        /// The missing (or empty) file.
        file: String,
    },
    /// The MSL version has no known `-std=` / deployment target.
    #[error("MSL {0} has no known Metal compiler target")]
    UnsupportedVersion(MslVersion),
}

fn stderr_block(stderr: &str) -> String {
    let s = stderr.strip_suffix('\n').unwrap_or(stderr);
    if s.is_empty() {
        String::new()
    } else {
        format!(":\n{s}")
    }
}

impl MetallibError {
    /// True when the problem is the machine (no xcrun, no Metal toolchain),
    /// not the MSL: building without a metallib still works.
    pub fn is_missing_toolchain(&self) -> bool {
        matches!(
            self,
            MetallibError::XcrunNotFound(_) | MetallibError::ToolchainMissing { .. }
        )
    }
}

fn status_text(s: ExitStatus) -> String {
    match s.code() {
        Some(c) => format!("exited with status {c}"),
        None => "was killed by a signal".to_string(),
    }
}

fn is_executable_file(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// `name` in the directories of a `PATH` value (empty entries skipped).
pub(crate) fn search_path(name: &OsStr, path: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(name))
        .find(|p| is_executable_file(p))
}

/// An `xcrun` to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Xcrun {
    /// Absolute path of the program.
    pub path: PathBuf,
    /// Where it came from.
    pub origin: XcrunOrigin,
}

impl Xcrun {
    /// Finds `xcrun`: `explicit`, else `HALC_XCRUN`, else `xcrun` on `PATH`.
    pub fn locate(explicit: Option<&Path>) -> Result<Xcrun, MetallibError> {
        Xcrun::locate_in(
            explicit,
            std::env::var_os(XCRUN_ENV).as_deref(),
            std::env::var_os("PATH").as_deref(),
        )
    }

    /// [`Xcrun::locate`] with the environment given. A value with a path
    /// separator is a path; a bare name is looked up on `path`. An empty
    /// `env` counts as unset.
    pub fn locate_in(
        explicit: Option<&Path>,
        env: Option<&OsStr>,
        path: Option<&OsStr>,
    ) -> Result<Xcrun, MetallibError> {
        let (value, origin): (PathBuf, XcrunOrigin) = match (explicit, env) {
            (Some(p), _) => (p.to_path_buf(), XcrunOrigin::Explicit),
            (None, Some(e)) if !e.is_empty() => (PathBuf::from(e), XcrunOrigin::Env),
            _ => {
                return match search_path(OsStr::new("xcrun"), path) {
                    Some(p) => Ok(Xcrun {
                        path: absolute(&p)?,
                        origin: XcrunOrigin::Path,
                    }),
                    None => Err(MetallibError::XcrunNotFound(
                        "no `xcrun` on PATH (xcrun comes with Xcode, on macOS)".into(),
                    )),
                };
            }
        };
        let named = match origin {
            XcrunOrigin::Env => format!("{XCRUN_ENV}={}", value.display()),
            _ => value.display().to_string(),
        };
        let is_bare_name = value.components().count() == 1
            && !value.as_os_str().to_string_lossy().contains(['/', '\\']);
        let found = if is_bare_name {
            search_path(value.as_os_str(), path)
        } else {
            Some(value.clone()).filter(|p| is_executable_file(p))
        };
        match found {
            Some(p) => Ok(Xcrun {
                path: absolute(&p)?,
                origin,
            }),
            None if is_bare_name => Err(MetallibError::XcrunNotFound(format!(
                "{named}: no such program on PATH"
            ))),
            None if value.exists() && !value.is_dir() => Err(MetallibError::XcrunNotFound(
                format!("{named}: not an executable file"),
            )),
            None => Err(MetallibError::XcrunNotFound(format!(
                "{named}: no such file"
            ))),
        }
    }

    fn command(&self, args: &[String]) -> Command {
        let mut c = Command::new(&self.path);
        c.args(args).stdin(Stdio::null());
        c
    }

    fn shown(&self, args: &[String]) -> String {
        let mut s = self.path.display().to_string();
        for a in args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }

    fn output(&self, mut c: Command, args: &[String]) -> Result<Output, MetallibError> {
        c.output().map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                MetallibError::XcrunNotFound(format!("{}: no such file", self.path.display()))
            } else {
                MetallibError::Io {
                    what: format!("cannot run `{}`", self.shown(args)),
                    source,
                }
            }
        })
    }

    /// Checks that the Metal compiler is installed for `sdk` by running
    /// `xcrun -sdk SDK metal --version`, whose first line becomes the
    /// toolchain's version.
    pub fn probe(&self, sdk: Sdk) -> Result<Toolchain, MetallibError> {
        let args: Vec<String> = ["-sdk", sdk.name(), "metal", "--version"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = self.output(self.command(&args), &args)?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let version = stdout.lines().map(str::trim).find(|l| !l.is_empty());
        match (out.status.success(), version) {
            (true, Some(v)) => Ok(Toolchain {
                xcrun: self.clone(),
                version: v.to_string(),
            }),
            (ok, _) => Err(MetallibError::ToolchainMissing {
                command: self.shown(&args),
                status: if ok {
                    "printed no version".to_string()
                } else {
                    status_text(out.status)
                },
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            }),
        }
    }
}

fn absolute(p: &Path) -> Result<PathBuf, MetallibError> {
    std::path::absolute(p).map_err(|source| MetallibError::Io {
        what: format!("{}: cannot make the path absolute", p.display()),
        source,
    })
}

/// A metallib and what the tools said while building it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The library, with the toolchain's version.
    pub metallib: Metallib,
    /// Both steps' stderr (warnings), verbatim; usually empty.
    pub warnings: String,
}

/// A probed Metal toolchain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    /// The `xcrun` that runs it.
    pub xcrun: Xcrun,
    /// First line of `metal --version`, e.g. `Apple metal version 32023.883 (metalfe-32023.883)`.
    pub version: String,
}

impl Toolchain {
    /// Compiles `msl` (the source of kernel `kernel`) to a metallib in a
    /// private temporary directory, removed afterwards.
    pub fn build(
        &self,
        kernel: &str,
        msl: &str,
        opts: &MetallibOptions,
    ) -> Result<Built, MetallibError> {
        let stem = file_stem(kernel);
        let argv = argv(opts, &stem)?;
        let dir = tempfile::Builder::new()
            .prefix("halc-metallib-")
            .tempdir()
            .map_err(|source| MetallibError::Io {
                what: "cannot create a temporary directory".into(),
                source,
            })?;
        let source = dir.path().join(format!("{stem}.metal"));
        std::fs::write(&source, msl).map_err(|e| MetallibError::Io {
            what: format!("{}: cannot write", source.display()),
            source: e,
        })?;
        let mut warnings = String::new();
        for (step, args, output) in [
            (Step::Compile, &argv.compile, format!("{stem}.air")),
            (Step::Link, &argv.link, format!("{stem}.metallib")),
        ] {
            let mut c = self.xcrun.command(args);
            c.current_dir(dir.path());
            let out = self.xcrun.output(c, args)?;
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            if !out.status.success() {
                return Err(MetallibError::Rejected {
                    step,
                    command: self.xcrun.shown(args),
                    status: status_text(out.status),
                    stderr,
                });
            }
            warnings.push_str(&stderr);
            let written = std::fs::metadata(dir.path().join(&output)).is_ok_and(|m| m.len() > 0);
            if !written {
                return Err(MetallibError::NoOutput {
                    command: self.xcrun.shown(args),
                    file: output,
                });
            }
        }
        let file = dir.path().join(format!("{stem}.metallib"));
        let bytes = std::fs::read(&file).map_err(|source| MetallibError::Io {
            what: format!("{}: cannot read", file.display()),
            source,
        })?;
        Ok(Built {
            metallib: Metallib {
                bytes,
                toolchain: self.version.clone(),
            },
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: u16, minor: u16) -> MslVersion {
        MslVersion { major, minor }
    }

    #[test]
    fn std_flag_follows_version_and_platform() {
        assert_eq!(std_flag(v(3, 0), Sdk::MacOSX), "-std=metal3.0");
        assert_eq!(std_flag(v(3, 2), Sdk::IPhoneOS), "-std=metal3.2");
        assert_eq!(std_flag(v(2, 4), Sdk::MacOSX), "-std=macos-metal2.4");
        assert_eq!(std_flag(v(2, 1), Sdk::IPhoneOS), "-std=ios-metal2.1");
        assert_eq!(std_flag(v(2, 3), Sdk::IPhoneSimulator), "-std=ios-metal2.3");
    }

    #[test]
    fn every_accepted_version_has_a_target() {
        for minor in 0..=4 {
            for sdk in [Sdk::MacOSX, Sdk::IPhoneOS, Sdk::IPhoneSimulator] {
                assert!(deployment_target_flag(v(2, minor), sdk).is_some());
            }
        }
        for minor in 0..=2 {
            assert!(deployment_target_flag(v(3, minor), Sdk::MacOSX).is_some());
        }
        assert!(deployment_target_flag(v(3, 3), Sdk::MacOSX).is_none());
    }

    #[test]
    fn sdk_for_platform() {
        assert_eq!(Sdk::for_platform(Platform::MacOS, false), Some(Sdk::MacOSX));
        assert_eq!(Sdk::for_platform(Platform::MacOS, true), None);
        assert_eq!(Sdk::for_platform(Platform::IOS, false), Some(Sdk::IPhoneOS));
        assert_eq!(
            Sdk::for_platform(Platform::IOS, true),
            Some(Sdk::IPhoneSimulator)
        );
    }

    #[test]
    fn file_stem_is_a_safe_argument() {
        assert_eq!(file_stem("main"), "main");
        assert_eq!(file_stem("-O0"), "_O0");
        assert_eq!(file_stem("a.b/c d"), "a_b_c_d");
        assert_eq!(file_stem(""), "kernel");
    }

    #[test]
    fn locate_prefers_explicit_then_env_then_path() {
        let d = tempfile::tempdir().unwrap();
        let mk = |name: &str| {
            let p = d.path().join(name);
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            p
        };
        let a = mk("a");
        let b = mk("b");
        let path_dir = d.path().join("bin");
        std::fs::create_dir(&path_dir).unwrap();
        let on_path = {
            let p = path_dir.join("xcrun");
            std::fs::copy(&a, &p).unwrap();
            p
        };
        let path = Some(path_dir.as_os_str());

        let x = Xcrun::locate_in(Some(&a), Some(b.as_os_str()), path).unwrap();
        assert_eq!((x.path, x.origin), (a.clone(), XcrunOrigin::Explicit));
        let x = Xcrun::locate_in(None, Some(b.as_os_str()), path).unwrap();
        assert_eq!((x.path, x.origin), (b.clone(), XcrunOrigin::Env));
        let x = Xcrun::locate_in(None, Some(OsStr::new("")), path).unwrap();
        assert_eq!((x.path, x.origin), (on_path.clone(), XcrunOrigin::Path));
        let x = Xcrun::locate_in(None, Some(OsStr::new("xcrun")), path).unwrap();
        assert_eq!((x.path, x.origin), (on_path, XcrunOrigin::Env));

        let e = Xcrun::locate_in(None, None, Some(d.path().join("none").as_os_str()));
        assert!(matches!(e, Err(MetallibError::XcrunNotFound(_))));
        let missing = d.path().join("missing");
        let e = Xcrun::locate_in(None, Some(missing.as_os_str()), path).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "xcrun not found: HALC_XCRUN={}: no such file",
                missing.display()
            )
        );
        assert!(e.is_missing_toolchain());
    }
}
