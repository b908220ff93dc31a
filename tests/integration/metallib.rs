//! `halc compile --metallib` against the fake xcrun in `tests/fake-xcrun/`
//! (any OS), and against the real one on macOS.
//!
//! The fake records each invocation's argv, writes recognizable outputs
//! (`FAKE-METALLIB\n` + `FAKE-AIR sdk=SDK\n` + the MSL), or fails as told
//! by `FAKE_XCRUN_*` variables. Every run here sets `PATH` and clears
//! `HALC_XCRUN`, so the machine's own xcrun never takes part.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use halc::msl::metallib::{argv, MetallibOptions, OptLevel, Sdk};
use halc::msl::MslVersion;
use halc::runtime_loader::Executable;
use halc::MathMode;

use crate::{kernel, root, snapshot_settings as settings};

const FAKE_VERSION: &str = "Apple metal version 99999.1 (fake-xcrun)";

/// A temp dir with the fake xcrun in `bin/`, an empty `empty/` directory
/// and the argv log `xcrun.log`.
struct Fake {
    dir: tempfile::TempDir,
}

impl Fake {
    fn new() -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        let xcrun = bin.join("xcrun");
        std::fs::copy(root().join("tests/fake-xcrun/xcrun"), &xcrun).unwrap();
        make_executable(&xcrun);
        Fake { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn bin(&self) -> PathBuf {
        self.path().join("bin")
    }

    fn xcrun(&self) -> PathBuf {
        self.bin().join("xcrun")
    }

    fn log(&self) -> PathBuf {
        self.path().join("xcrun.log")
    }

    /// `dir` before the inherited PATH (the fake needs bash and cat).
    fn path_with(&self, dir: &Path) -> OsString {
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        std::env::join_paths(
            std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&inherited)),
        )
        .unwrap()
    }

    /// Runs halc in `self.path()` with the fake first on PATH, plus `env`.
    fn halc(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.halc_with_path(args, env, self.path_with(&self.bin()))
    }

    fn halc_with_path(&self, args: &[&str], env: &[(&str, &str)], path: OsString) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_halc"));
        c.args(args)
            .current_dir(self.path())
            .env_remove("HALC_XCRUN")
            .env("PATH", path)
            .env("FAKE_XCRUN_LOG", self.log());
        for var in [
            "FAKE_XCRUN_NO_TOOLCHAIN",
            "FAKE_XCRUN_FAIL",
            "FAKE_XCRUN_STDERR",
            "FAKE_XCRUN_WARN",
            "FAKE_XCRUN_NO_OUTPUT",
        ] {
            c.env_remove(var);
        }
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("run halc")
    }

    /// `halc compile saxpy.spv -o out.halc --metallib EXTRA...` with `env`.
    fn saxpy_metallib(&self, extra: &[&str], env: &[(&str, &str)]) -> Output {
        let saxpy = fixture("saxpy.spv");
        let mut args = vec!["compile", &saxpy, "-o", "out.halc", "--metallib"];
        args.extend(extra);
        self.halc(&args, env)
    }

    /// Each recorded invocation's arguments (after the program).
    fn calls(&self) -> Vec<Vec<String>> {
        match std::fs::read_to_string(self.log()) {
            Ok(text) => text
                .lines()
                .map(|l| l.split('\t').map(str::to_string).collect())
                .collect(),
            Err(_) => Vec::new(),
        }
    }
}

#[cfg(unix)]
fn make_executable(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(not(unix))]
fn make_executable(_: &Path) {}

/// Asserts that halc exited with 1; returns its stderr.
fn failed(o: &Output) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    err
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn fixture(name: &str) -> String {
    kernel(name).display().to_string()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn probe(sdk: &str) -> Vec<String> {
    strings(&["-sdk", sdk, "metal", "--version"])
}

fn opts(
    sdk: Sdk,
    version: (u16, u16),
    math: MathMode,
    opt: OptLevel,
    debug: bool,
) -> MetallibOptions {
    MetallibOptions {
        sdk,
        msl_version: MslVersion {
            major: version.0,
            minor: version.1,
        },
        math,
        opt,
        debug,
    }
}

/// A kernel's library as the runtime-loader reads it.
struct Lib {
    kernel: String,
    msl: Option<String>,
    metallib: Option<Vec<u8>>,
    toolchain: Option<String>,
}

fn libraries(bytes: &[u8]) -> Vec<Lib> {
    let exe = Executable::load(bytes).expect("the runtime-loader accepts the file");
    exe.entry_points()
        .map(|k| {
            let lib = k.library();
            Lib {
                kernel: k.name().to_string(),
                msl: lib.msl_source().map(|s| s.expect("UTF-8 MSL").to_string()),
                metallib: lib.metallib().map(<[u8]>::to_vec),
                toolchain: lib.metallib_toolchain().map(str::to_string),
            }
        })
        .collect()
}

fn fake_metallib(sdk: &str, msl: &str) -> Vec<u8> {
    format!("FAKE-METALLIB\nFAKE-AIR sdk={sdk}\n{msl}").into_bytes()
}

#[test]
fn argv_snapshot() {
    use MathMode::{Fast, Safe};
    use OptLevel::{Os, O0, O2, O3};
    use Sdk::{IPhoneOS, IPhoneSimulator, MacOSX};
    let cases = [
        (
            "macos, MSL 3.0, safe",
            opts(MacOSX, (3, 0), Safe, O2, false),
        ),
        (
            "ios, MSL 3.0, safe",
            opts(IPhoneOS, (3, 0), Safe, O2, false),
        ),
        (
            "ios simulator, MSL 3.1, safe",
            opts(IPhoneSimulator, (3, 1), Safe, O2, false),
        ),
        (
            "macos, MSL 3.2, fast, -O3",
            opts(MacOSX, (3, 2), Fast, O3, false),
        ),
        (
            "macos, MSL 2.4, safe, -O0, debug",
            opts(MacOSX, (2, 4), Safe, O0, true),
        ),
        (
            "ios, MSL 2.1, fast, -Os",
            opts(IPhoneOS, (2, 1), Fast, Os, false),
        ),
        (
            "ios simulator, MSL 2.3, safe, debug",
            opts(IPhoneSimulator, (2, 3), Safe, O2, true),
        ),
    ];
    let all: Vec<_> = cases
        .iter()
        .map(|(name, o)| {
            let a = argv(o, "main").unwrap();
            serde_json::json!({
                "case": name,
                "compile": a.compile.join(" "),
                "link": a.link.join(" "),
            })
        })
        .collect();
    settings().bind(|| insta::assert_json_snapshot!("metallib.argv", all));
}

#[test]
fn unknown_msl_version_has_no_argv() {
    let o = opts(Sdk::MacOSX, (3, 9), MathMode::Safe, OptLevel::O2, false);
    let e = argv(&o, "main").unwrap_err();
    assert_eq!(e.to_string(), "MSL 3.9 has no known Metal compiler target");
}

#[test]
fn macos_metallib_is_stored_beside_the_msl() {
    let f = Fake::new();
    let o = f.saxpy_metallib(&[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));

    let calls = f.calls();
    let expected = argv(
        &opts(Sdk::MacOSX, (3, 0), MathMode::Safe, OptLevel::O2, false),
        "saxpy",
    )
    .unwrap();
    assert_eq!(
        calls,
        vec![probe("macosx"), expected.compile, expected.link]
    );
    settings().bind(|| insta::assert_json_snapshot!("metallib.recorded.macos", calls));

    let bytes = std::fs::read(f.path().join("out.halc")).unwrap();
    let libs = libraries(&bytes);
    assert_eq!(libs.len(), 1);
    let Lib {
        kernel: name,
        msl,
        metallib,
        toolchain,
    } = &libs[0];
    assert_eq!(name, "saxpy");
    let msl = msl.as_deref().expect("the MSL stays as a fallback");
    assert!(msl.contains("kernel void main0("), "{msl}");
    assert_eq!(metallib.as_deref(), Some(&fake_metallib("macosx", msl)[..]));
    assert_eq!(toolchain.as_deref(), Some(FAKE_VERSION));

    let view = halc::inspect::decode(&bytes).unwrap();
    let lib = &view.libraries[0];
    let built = lib.metallib.as_ref().expect("the metallib is recorded");
    assert_eq!(built.bytes, fake_metallib("macosx", msl).len() as u64);
    assert_eq!(built.toolchain, FAKE_VERSION);
    assert_eq!(lib.msl_bytes, Some(msl.len() as u64));

    // Nothing left beside the output; the private temp dirs are gone.
    assert_eq!(listing(f.path()), ["bin", "empty", "out.halc", "xcrun.log"]);
}

#[test]
fn ios_metallibs_one_per_kernel() {
    let f = Fake::new();
    let o = f.halc(
        &[
            "compile",
            &fixture("two_entry_points.spv"),
            "-o",
            "out.halc",
            "--platform",
            "ios",
            "--metallib",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o_ios = opts(Sdk::IPhoneOS, (3, 0), MathMode::Safe, OptLevel::O2, false);
    let a = argv(&o_ios, "main_a").unwrap();
    let b = argv(&o_ios, "main_b").unwrap();
    let calls = f.calls();
    assert_eq!(
        calls,
        vec![probe("iphoneos"), a.compile, a.link, b.compile, b.link]
    );
    settings().bind(|| insta::assert_json_snapshot!("metallib.recorded.ios", calls));

    let bytes = std::fs::read(f.path().join("out.halc")).unwrap();
    let libs = libraries(&bytes);
    assert_eq!(libs.len(), 2);
    for Lib {
        kernel: name,
        msl,
        metallib,
        toolchain,
    } in &libs
    {
        let msl = msl.as_deref().unwrap();
        assert!(
            msl.contains(&format!("kernel void {name}(")),
            "{name}: {msl}"
        );
        assert_eq!(
            metallib.as_deref(),
            Some(&fake_metallib("iphoneos", msl)[..]),
            "{name}"
        );
        assert_eq!(toolchain.as_deref(), Some(FAKE_VERSION));
    }
    let view = halc::inspect::decode(&bytes).unwrap();
    assert!(
        view.libraries.iter().all(|l| l.platform == "ios"),
        "{:?}",
        view.libraries
    );
}

#[test]
fn ios_simulator_sdk() {
    let f = Fake::new();
    let o = f.halc(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            "out.halc",
            "--platform",
            "ios",
            "--metallib",
            "--ios-simulator",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let calls = f.calls();
    assert_eq!(calls[0], probe("iphonesimulator"));
    assert!(
        calls[1].contains(&"-mios-simulator-version-min=16.0".to_string()),
        "{calls:?}"
    );

    let o = f.halc(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            "mac.halc",
            "--metallib",
            "--ios-simulator",
        ],
        &[],
    );
    let err = failed(&o);
    assert!(
        err.contains("--ios-simulator needs --platform ios"),
        "{err}"
    );
    assert!(!f.path().join("mac.halc").exists());
}

#[test]
fn math_optimisation_and_debug_flags_reach_the_compiler() {
    let f = Fake::new();
    let o = f.halc(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            "out.halc",
            "--msl-version",
            "2.4",
            "--fast-math",
            "--metallib",
            "--metal-opt",
            "s",
            "--metal-debug",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let expected = argv(
        &opts(Sdk::MacOSX, (2, 4), MathMode::Fast, OptLevel::Os, true),
        "saxpy",
    )
    .unwrap();
    assert_eq!(
        f.calls(),
        vec![probe("macosx"), expected.compile.clone(), expected.link]
    );
    for flag in [
        "-std=macos-metal2.4",
        "-ffast-math",
        "-Os",
        "-gline-tables-only",
        "-frecord-sources",
    ] {
        assert!(expected.compile.contains(&flag.to_string()), "{flag}");
    }
    let view = halc::inspect::decode(&std::fs::read(f.path().join("out.halc")).unwrap()).unwrap();
    assert_eq!(view.libraries[0].math_mode, "fast");
}

#[test]
fn no_msl_drops_the_source() {
    let f = Fake::new();
    let o = f.saxpy_metallib(&["--no-msl"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = std::fs::read(f.path().join("out.halc")).unwrap();
    let libs = libraries(&bytes);
    assert_eq!(libs[0].msl, None, "MSL left out");
    let metallib = libs[0].metallib.as_deref().unwrap();
    assert!(metallib.starts_with(b"FAKE-METALLIB\nFAKE-AIR sdk=macosx\n"));
    let view = halc::inspect::decode(&bytes).unwrap();
    assert_eq!(view.libraries[0].msl_bytes, None);
}

#[test]
fn metallib_flags_need_metallib() {
    let f = Fake::new();
    for flag in [
        &["--no-msl"][..],
        &["--metal-debug"],
        &["--ios-simulator"],
        &["--metal-opt", "3"],
        &["--xcrun", "/usr/bin/xcrun"],
    ] {
        let mut args = vec!["compile", "saxpy.spv", "-o", "out.halc"];
        args.extend_from_slice(flag);
        let o = f.halc(&args, &[]);
        assert_eq!(o.status.code(), Some(2), "{flag:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--metallib"),
            "{flag:?}: {}",
            stderr(&o)
        );
    }
    assert!(f.calls().is_empty());
}

#[test]
fn without_metallib_xcrun_is_never_run() {
    let f = Fake::new();
    let o = f.halc(&["compile", &fixture("saxpy.spv"), "-o", "out.halc"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(f.calls().is_empty());
    let libs = libraries(&std::fs::read(f.path().join("out.halc")).unwrap());
    assert_eq!(libs[0].metallib, None);
    assert_eq!(libs[0].toolchain, None);
}

/// What a Metal compiler error looks like: several lines, quotes, carets,
/// no trailing newline trimming surprises.
const COMPILER_STDERR: &str = "saxpy.metal:12:5: error: use of undeclared identifier 'frobnicate'\n    frobnicate(x);\n    ^\n1 error generated.\n";

#[test]
fn compile_error_exits_1_with_stderr_verbatim_and_keeps_the_msl() {
    let f = Fake::new();
    let out = f.path().join("out.halc");
    std::fs::write(&out, b"previous output").unwrap();
    let o = f.saxpy_metallib(
        &[],
        &[
            ("FAKE_XCRUN_FAIL", "compile"),
            ("FAKE_XCRUN_STDERR", COMPILER_STDERR),
        ],
    );
    let err = failed(&o);
    let kept = f.path().join("out.halc.saxpy.metal");
    // The kept path is shown as the user gave the output (relative here).
    let first = format!(
        "error: {}: entry point `main`: the Metal compiler rejected the MSL; the MSL is kept at out.halc.saxpy.metal\n",
        fixture("saxpy.spv"),
    );
    assert!(err.starts_with(&first), "{err}");
    assert!(
        err.ends_with(&format!(" exited with status 1:\n{COMPILER_STDERR}")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "`{} -sdk macosx metal -std=metal3.0",
            f.xcrun().display()
        )),
        "{err}"
    );

    // The kept file is the kernel's MSL, the same that --emit-msl writes.
    let o = f.halc(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            "ok.halc",
            "--emit-msl",
            "msl",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&kept).unwrap(),
        std::fs::read_to_string(f.path().join("msl/saxpy.metal")).unwrap()
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        b"previous output",
        "output clobbered"
    );
    assert_eq!(
        listing(f.path()),
        [
            "bin",
            "empty",
            "msl",
            "ok.halc",
            "out.halc",
            "out.halc.saxpy.metal",
            "xcrun.log"
        ]
    );
}

#[test]
fn compile_error_with_emit_msl_keeps_the_file_there() {
    let f = Fake::new();
    let o = f.halc(
        &[
            "compile",
            &fixture("two_entry_points.spv"),
            "-o",
            "out.halc",
            "--metallib",
            "--emit-msl",
            "msl",
        ],
        &[
            ("FAKE_XCRUN_FAIL", "compile"),
            ("FAKE_XCRUN_STDERR", COMPILER_STDERR),
        ],
    );
    let err = failed(&o);
    let kept = f.path().join("msl/main_a.metal");
    assert!(err.contains(
            "entry point `main_a`: the Metal compiler rejected the MSL; the MSL is kept at msl/main_a.metal\n"
        ), "{err}");
    assert!(std::fs::read_to_string(kept)
        .unwrap()
        .contains("kernel void main_a("));
    assert!(!f.path().join("out.halc").exists());
}

#[test]
fn link_error_is_reported_the_same_way() {
    let f = Fake::new();
    let o = f.saxpy_metallib(
        &[],
        &[
            ("FAKE_XCRUN_FAIL", "link"),
            ("FAKE_XCRUN_STDERR", "metallib: error: bad AIR\n"),
        ],
    );
    let err = failed(&o);
    assert!(
        err.contains("entry point `main`: the metallib linker failed; the MSL is kept at "),
        "{err}"
    );
    assert!(err.contains(" metallib saxpy.air -o saxpy.metallib` exited with status 1:\nmetallib: error: bad AIR\n"), "{err}");
    assert!(!f.path().join("out.halc").exists());
}

#[test]
fn a_step_that_writes_nothing_is_an_error() {
    let f = Fake::new();
    let o = f.saxpy_metallib(&[], &[("FAKE_XCRUN_NO_OUTPUT", "1")]);
    let err = failed(&o);
    assert!(
        err.contains("succeeded but did not write saxpy.air"),
        "{err}"
    );
    assert!(!f.path().join("out.halc").exists());
}

#[test]
fn compiler_warnings_are_shown() {
    let f = Fake::new();
    let o = f.saxpy_metallib(
        &[],
        &[(
            "FAKE_XCRUN_WARN",
            "saxpy.metal:3:7: warning: unused variable 'x'\n",
        )],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "warning: {}: entry point `main`: xcrun:\nsaxpy.metal:3:7: warning: unused variable 'x'\n",
            fixture("saxpy.spv")
        )
    );
}

const ANY_OS: &str = "Leaving out --metallib works on any OS";

#[test]
fn missing_metal_toolchain_says_how_to_get_it() {
    let f = Fake::new();
    let o = f.saxpy_metallib(&[], &[("FAKE_XCRUN_NO_TOOLCHAIN", "1")]);
    let err = failed(&o);
    assert_eq!(
        err,
        format!(
            "error: --metallib: the Metal toolchain is not available: `{} -sdk macosx metal --version` exited with status 72:\n\
             error: error: cannot execute tool 'metal' due to missing Metal Toolchain; use: xcodebuild -downloadComponent MetalToolchain\n\
             The Metal compiler comes with Xcode (the Command Line Tools alone do not include it). \
             Since Xcode 26 it is a separate component: install it with `xcodebuild -downloadComponent MetalToolchain`.\n\
             Leaving out --metallib works on any OS: the executable then carries only MSL, which Metal compiles \
             when the application loads it. Another xcrun can be given with --xcrun PATH or the HALC_XCRUN environment variable.\n",
            f.xcrun().display()
        )
    );
    assert_eq!(f.calls(), vec![probe("macosx")]);
    assert!(!f.path().join("out.halc").exists());
}

#[test]
fn missing_xcrun_on_path() {
    let f = Fake::new();
    let o = f.halc_with_path(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            "out.halc",
            "--metallib",
        ],
        &[],
        f.path().join("empty").into_os_string(),
    );
    let err = failed(&o);
    assert!(
        err.starts_with("error: --metallib: xcrun not found: no `xcrun` on PATH (xcrun comes with Xcode, on macOS)\n"),
        "{err}"
    );
    assert!(err.contains(ANY_OS), "{err}");
    assert!(!f.path().join("out.halc").exists());
}

#[test]
fn missing_xcrun_given_explicitly() {
    let f = Fake::new();
    let o = f.saxpy_metallib(&["--xcrun", "/nonexistent/xcrun"], &[]);
    let err = failed(&o);
    assert!(
        err.starts_with("error: --metallib: xcrun not found: /nonexistent/xcrun: no such file\n"),
        "{err}"
    );
    assert!(err.contains(ANY_OS), "{err}");

    let o = f.saxpy_metallib(&[], &[("HALC_XCRUN", "/nonexistent/xcrun")]);
    let err = failed(&o);
    assert!(
        err.starts_with(
            "error: --metallib: xcrun not found: HALC_XCRUN=/nonexistent/xcrun: no such file\n"
        ),
        "{err}"
    );
    assert!(err.contains(ANY_OS), "{err}");
    assert!(f.calls().is_empty(), "the fake on PATH must not be used");
}

#[test]
fn halc_xcrun_and_flag_override_path() {
    let f = Fake::new();
    // A broken xcrun first on PATH: used only if nothing overrides it.
    let broken = f.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::write(
        broken.join("xcrun"),
        "#!/bin/sh\necho broken xcrun >&2\nexit 99\n",
    )
    .unwrap();
    make_executable(&broken.join("xcrun"));
    let path = f.path_with(&broken);
    let args = [
        "compile",
        &fixture("saxpy.spv"),
        "-o",
        "out.halc",
        "--metallib",
    ];
    let xcrun = f.xcrun().display().to_string();

    let o = f.halc_with_path(&args, &[], path.clone());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("broken xcrun"), "{}", stderr(&o));

    let o = f.halc_with_path(&args, &[("HALC_XCRUN", &xcrun)], path.clone());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(f.calls().len(), 3);

    // --xcrun beats HALC_XCRUN; a relative path is resolved against the working directory.
    let mut with_flag = args.to_vec();
    with_flag.extend(["--xcrun", "bin/xcrun"]);
    let o = f.halc_with_path(&with_flag, &[("HALC_XCRUN", "/nonexistent/xcrun")], path);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(f.calls().len(), 6);
}

/// The real toolchain (the macOS CI workflow): every fixture's MSL becomes a
/// metallib that Metal loads, and each kernel whose MSL makes a pipeline
/// makes one from the metallib alone.
#[cfg(target_os = "macos")]
#[test]
fn real_xcrun_builds_every_fixture_and_metal_loads_it() {
    use halc::runtime_loader::metal::{Device, LibraryOrigin};

    let device = Device::system_default().expect("a Metal device");
    let d = tempfile::tempdir().unwrap();
    for spv in crate::compute_fixtures() {
        let name = spv.file_stem().unwrap().to_string_lossy().to_string();
        let both = d.path().join(format!("{name}.halc"));
        let only = d.path().join(format!("{name}.metallib-only.halc"));
        let msl = d.path().join(format!("{name}.msl.halc"));
        for (out, extra) in [
            (&both, &["--metallib"][..]),
            (&only, &["--metallib", "--no-msl"]),
            (&msl, &[]),
        ] {
            let mut args = vec![
                "compile",
                spv.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ];
            args.extend_from_slice(extra);
            let o = Command::new(env!("CARGO_BIN_EXE_halc"))
                .args(&args)
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        }
        let bytes = std::fs::read(&only).unwrap();
        let exe = Executable::load(&bytes).unwrap();
        let program = device.load(exe).unwrap_or_else(|e| panic!("{name}: {e}"));
        for i in 0..exe.libraries().len() {
            assert_eq!(
                program.library_origin(i),
                Some(&LibraryOrigin::Metallib),
                "{name}"
            );
        }
        let msl_bytes = std::fs::read(&msl).unwrap();
        let msl_program = device.load(Executable::load(&msl_bytes).unwrap()).unwrap();
        for k in exe.entry_points() {
            if msl_program.pipeline(k.name(), &[]).is_ok() {
                program
                    .pipeline(k.name(), &[])
                    .unwrap_or_else(|e| panic!("{name}: {}: {e}", k.name()));
            }
        }
        let bytes = std::fs::read(&both).unwrap();
        let program = device.load(Executable::load(&bytes).unwrap()).unwrap();
        assert_eq!(
            program.library_origin(0),
            Some(&LibraryOrigin::Metallib),
            "{name}"
        );
    }
}
