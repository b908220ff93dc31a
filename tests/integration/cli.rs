//! The `halc` binary as a user runs it: exit codes, one-line errors, no
//! partial or clobbered output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::kernel;
#[cfg(target_os = "linux")]
use crate::wait_for_marked;

pub(crate) fn halc(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_halc"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run halc")
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

pub(crate) fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

pub(crate) fn fixture(name: &str) -> String {
    kernel(name).display().to_string()
}

/// Files in `dir`, for "nothing was left behind" checks.
pub(crate) fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn compile_then_inspect_succeeds() {
    let d = tmp();
    let out = d.path().join("saxpy.halc");
    let o = halc(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            out.to_str().unwrap(),
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stderr.is_empty());
    assert_eq!(
        listing(d.path()),
        vec![out.clone()],
        "temp file left behind"
    );

    let o = halc(&["inspect", out.to_str().unwrap()], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("kernel saxpy (entry point `main` of saxpy.spv) -> MSL `main0`"),
        "{text}"
    );
    assert!(
        text.contains("(set 0, binding 1) storage-buffer read-write"),
        "{text}"
    );
    assert!(
        text.contains("argument buffer set 0 at [[buffer(0)]], 24 bytes"),
        "{text}"
    );

    let o = halc(&["inspect", "--json", out.to_str().unwrap()], d.path());
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["kernels"][0]["name"], "saxpy");
    assert_eq!(v["kernels"][0]["entry_point"], "main");
    assert_eq!(v["kernels"][0]["threadgroup_size"]["x"], 64);
    assert_eq!(v["kernels"][0]["resources"][2]["kind"], "uniform-buffer");
}

/// The headline use: several glslc kernels (every entry point `main`) in one
/// executable, no flags; `FILE:ENTRY=NAME` renames.
#[test]
fn glsl_kernels_share_an_executable_named_by_file() {
    let d = tmp();
    let out = d.path().join("kernels.halc");
    let out_s = out.to_str().unwrap();
    let (a, s, b) = (
        fixture("add_one.spv"),
        fixture("scale.spv"),
        fixture("block_sum.spv"),
    );
    let o = halc(&["compile", &a, &s, &b, "-o", out_s], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = halc(&["inspect", out_s], d.path());
    let text = String::from_utf8(o.stdout).unwrap();
    let kernels: Vec<&str> = text.lines().filter(|l| l.starts_with("kernel ")).collect();
    assert_eq!(
        kernels,
        [
            "kernel add_one (entry point `main` of add_one.spv) -> MSL `main0` (library 0)",
            "kernel block_sum (entry point `main` of block_sum.spv) -> MSL `main0` (library 1)",
            "kernel scale (entry point `main` of scale.spv) -> MSL `main0` (library 2)",
        ]
    );
    let bytes = std::fs::read(&out).unwrap();
    let exe = runtime_loader::Executable::load(&bytes).unwrap();
    assert_eq!(exe.entry_point("block_sum").unwrap().entry_point(), "main");

    // The same file twice: a clash naming the file, fixed by a rename.
    fails(
        &["compile", &a, &a],
        1,
        "add_one.spv: entry point `main`: kernel name `add_one` is already taken by entry point `main` of",
    );
    let renamed = format!("{a}:main=add_two");
    let o = halc(&["compile", &a, &renamed, "-o", out_s], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = halc(&["inspect", out_s], d.path());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("kernel add_two (entry point `main` of add_one.spv)"),
        "{text}"
    );
    fails(
        &["compile", &format!("{a}:nope=x")],
        1,
        "add_one.spv: rename nope=x: the module has no GLCompute entry point `nope`; its GLCompute entry points are: main",
    );
    fails(
        &["compile", &format!("{a}:main=")],
        2,
        "expected PATH:ENTRY=NAME, with neither part empty",
    );
}

#[test]
fn emit_msl_writes_one_file_per_kernel() {
    let d = tmp();
    let out = d.path().join("two.halc");
    let msl = d.path().join("msl");
    let o = halc(
        &[
            "compile",
            &fixture("two_entry_points.spv"),
            "-o",
            out.to_str().unwrap(),
            "--emit-msl",
            msl.to_str().unwrap(),
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let a = std::fs::read_to_string(msl.join("main_a.metal")).unwrap();
    let b = std::fs::read_to_string(msl.join("main_b.metal")).unwrap();
    assert!(a.contains("kernel void main_a("));
    assert!(b.contains("kernel void main_b("));
}

#[test]
fn cli_output_is_deterministic() {
    let d = tmp();
    let a = d.path().join("a.halc");
    let b = d.path().join("b.halc");
    for out in [&a, &b] {
        let o = halc(
            &[
                "compile",
                &fixture("images.spv"),
                &fixture("two_entry_points.spv"),
                "-o",
                out.to_str().unwrap(),
            ],
            d.path(),
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
}

/// Runs a failing compile; checks exit code, a single error line with the
/// expected text, and that a pre-existing output file is untouched.
fn fails(args: &[&str], code: i32, expect: &str) {
    let d = tmp();
    let out = d.path().join("out.halc");
    std::fs::write(&out, b"previous").unwrap();
    let mut all: Vec<&str> = args.to_vec();
    let out_s = out.to_str().unwrap().to_string();
    if !args.contains(&"-o") {
        all.extend(["-o", &out_s]);
    }
    let o = halc(&all, d.path());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
    assert!(
        err.contains(expect),
        "{args:?}: expected `{expect}` in: {err}"
    );
    if code == 1 {
        assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
        assert!(err.starts_with("error: "), "{err}");
    }
    assert_eq!(
        std::fs::read(&out).unwrap(),
        b"previous",
        "output clobbered"
    );
    assert_eq!(listing(d.path()), vec![out], "something left behind");
}

#[test]
fn bad_inputs_exit_1_with_one_line() {
    let saxpy = fixture("saxpy.spv");
    fails(
        &["compile", &saxpy, "--entry", "nope"],
        1,
        "--entry nope: no input has a GLCompute entry point or kernel named `nope`; the kernels are: saxpy",
    );
    fails(
        &["compile", &saxpy, "--spec", "9=1"],
        1,
        "--spec 9=1: no input has a spec constant with SpecId 9",
    );
    let spec = fixture("spec_constants.spv");
    fails(&["compile", &spec, "--spec", "0=4096"], 1, "spec_constants.spv: entry point `main`: workgroup size 4096x1x1 = 4096 threads exceeds Metal's 1024");
    fails(
        &["compile", &spec, "--spec", "2=maybe"],
        1,
        "spec_constants.spv: --spec 2: `maybe` is not a valid bool",
    );
    fails(
        &["compile", &saxpy, &saxpy],
        1,
        "saxpy.spv: entry point `main`: kernel name `saxpy` is already taken by entry point `main` of",
    );
    fails(
        &["compile", "missing.spv"],
        1,
        "missing.spv: cannot read: no such file",
    );
    // An endless input is cut off at the size limit, not buffered whole.
    fails(
        &["compile", "/dev/zero"],
        1,
        "/dev/zero: larger than halc's input limit of 67108864 bytes",
    );
    fails(
        &["compile", "."],
        1,
        ".: is a directory, expected a SPIR-V file",
    );
    // Float atomics are MSL 3.0's `atomic_float`: refused below it, naming
    // the MSL line; the default (3.0) compiles them.
    let af = fixture("atomic_float.spv");
    fails(
        &["compile", &af, "--msl-version", "2.4"],
        1,
        "atomic_float.spv: entry point `main`: an atomic operation on a 32-bit float (`atomic_float`, MSL line 40: `float _43 = atomic_fetch_add_explicit((threadgroup atomic_float*)&wsum, x, memory_order_relaxed);`) needs MSL 3.0 or newer; this build targets MSL 2.4 (--msl-version)",
    );
    // GLSL compiles through glslc (tests/integration/glsl_cli.rs); a file
    // that is neither SPIR-V nor GLSL names both.
    fails(
        &["compile", &fixture("copy_memory.spvasm")],
        1,
        "copy_memory.spvasm: neither a SPIR-V module (it does not start with the magic number 0x07230203) nor GLSL",
    );
}

/// A file that exists but cannot be read. A mode-000 file is unreadable for
/// everyone but root; as root (CI containers), fall back to a procfs file
/// whose read permission the kernel refuses even to root.
fn unreadable_file(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("locked.spv");
    std::fs::copy(kernel("saxpy.spv"), &p).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&p).is_err() {
        return p;
    }
    let proc_file = PathBuf::from("/proc/sys/vm/drop_caches");
    assert!(
        proc_file.exists() && std::fs::File::open(&proc_file).is_err(),
        "running as root and {} is readable: no unreadable file to test with",
        proc_file.display()
    );
    proc_file
}

#[test]
fn unreadable_input_exits_1_without_writing() {
    let d = tmp();
    let locked = unreadable_file(d.path());
    let locked = locked.to_str().unwrap();
    let name = Path::new(locked).file_name().unwrap().to_str().unwrap();
    fails(
        &["compile", locked],
        1,
        &format!("{name}: cannot read: permission denied"),
    );
}

#[test]
fn output_problems_exit_1_without_writing() {
    let d = tmp();
    let saxpy = fixture("saxpy.spv");
    let out = d.path().join("no/such/dir/out.halc");
    let o = halc(&["compile", &saxpy, "-o", out.to_str().unwrap()], d.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot write output: directory"),
        "{}",
        stderr(&o)
    );

    // -o equal to the input: refused, input intact.
    let copy = d.path().join("k.spv");
    std::fs::copy(kernel("saxpy.spv"), &copy).unwrap();
    let o = halc(
        &[
            "compile",
            copy.to_str().unwrap(),
            "-o",
            copy.to_str().unwrap(),
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("output would overwrite input"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(kernel("saxpy.spv")).unwrap()
    );
}

/// `-o /dev/null` and `-o /dev/stdout` write into the device or pipe: it is
/// not replaced by a file (for root, that would replace `/dev/null`). Here
/// through links to them in a temporary directory, so that a regression
/// replaces a link, not the machine's device. A file output still replaces
/// what was there, and comes out readable as any new file (0666 less the
/// umask).
#[cfg(target_os = "linux")]
#[test]
fn an_output_on_a_device_is_written_into_and_files_are_replaced() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let d = tmp();
    let saxpy = fixture("saxpy.spv");
    let null = d.path().join("null");
    let stdout = d.path().join("stdout");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    std::os::unix::fs::symlink("/proc/self/fd/1", &stdout).unwrap();
    for out in [&null, &stdout] {
        let o = halc(
            &["compile", &saxpy, "-q", "-o", out.to_str().unwrap()],
            d.path(),
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {}",
            out.display(),
            stderr(&o)
        );
        assert!(std::fs::symlink_metadata(out).unwrap().is_symlink());
        if out == &stdout {
            assert_eq!(o.stdout.get(4..8), Some(&b"HALC"[..]), "{:?}", o.stdout);
        }
    }
    assert!(std::fs::metadata(&null)
        .unwrap()
        .file_type()
        .is_char_device());
    assert_eq!(listing(d.path()), vec![null.clone(), stdout.clone()]);

    let out = d.path().join("k.halc");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    let o = halc(&["compile", &saxpy, "-o", out.to_str().unwrap()], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap().get(4..8), Some(&b"HALC"[..]));
    // A new inode, created as new files are (a process umask of 077
    // would make this 0600 again; test runners use 022 or 002).
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert!(mode & 0o044 != 0, "{mode:o}");
    assert_eq!(listing(d.path()), vec![out, null, stdout]);
}

#[test]
fn usage_errors_exit_2() {
    let d = tmp();
    for args in [
        vec!["compile"],
        vec!["compile", "x.spv"],
        vec!["compile", "x.spv", "-o", "y", "--bindings", "weird"],
        vec!["compile", "x.spv", "-o", "y", "--spec", "nope"],
        vec!["compile", "x.spv", "-o", "y", "--msl-version", "1.2"],
        vec!["frobnicate"],
    ] {
        let o = halc(&args, d.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let o = halc(&["--help"], d.path());
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("compile"));
}

#[test]
fn corrupt_executable_is_a_clear_inspect_error() {
    let d = tmp();
    let f = d.path().join("bad.halc");
    std::fs::write(&f, b"definitely not a flatbuffer").unwrap();
    let o = halc(&["inspect", f.to_str().unwrap()], d.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("bad.halc: not a halc executable"),
        "{}",
        stderr(&o)
    );
    for (arg, expect) in [
        (".", ".: is a directory, expected a halc executable"),
        ("gone.halc", "gone.halc: cannot read: no such file"),
    ] {
        let o = halc(&["inspect", arg], d.path());
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert_eq!(stderr(&o).trim_end(), format!("error: {expect}"));
    }
}

#[test]
fn binding_map_pins_slots_and_reports_collisions() {
    let d = tmp();
    let map = d.path().join("map.toml");
    std::fs::write(
        &map,
        "[[binding]]\nset = 0\nbinding = 1\nid = 5\n\n[[argument_buffer]]\nset = 0\nbuffer = 3\n",
    )
    .unwrap();
    let out = d.path().join("o.halc");
    let o = halc(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            out.to_str().unwrap(),
            "--binding-map",
            map.to_str().unwrap(),
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = halc(&["inspect", out.to_str().unwrap()], d.path());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("argument buffer set 0 at [[buffer(3)]]"),
        "{text}"
    );
    assert!(text.contains("[[id(5)]] @ byte 16"), "{text}");

    std::fs::write(
        &map,
        "[[binding]]\nset = 0\nbinding = 0\nbuffer = 2\n[[binding]]\nset = 0\nbinding = 1\nbuffer = 2\n",
    )
    .unwrap();
    fails(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "--bindings",
            "discrete",
            "--binding-map",
            map.to_str().unwrap(),
        ],
        1,
        "(set 0, binding 1) and (set 0, binding 0) both use [[buffer]] 2",
    );
    std::fs::write(&map, "[[binding]]\nset = 0\nbinding = 0\nbuffer = 40\n").unwrap();
    fails(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "--bindings",
            "discrete",
            "--binding-map",
            map.to_str().unwrap(),
        ],
        1,
        "(set 0, binding 0): [[buffer]] 40 is out of range",
    );
    std::fs::write(&map, "[[binding]]\nset = 0\nbinding = 0\nbufer = 4\n").unwrap();
    fails(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "--binding-map",
            map.to_str().unwrap(),
        ],
        1,
        "map.toml:4:1: unknown field `bufer`",
    );
}

/// Where one module's C++ runs: `guarded`, in halc's process under crash
/// handlers (the default for one module); or in forked workers, which
/// validate in the worker that then runs SPIRV-Cross (`shared`) or in one of
/// their own beside it (`separate`; `halc::msl::worker::VALIDATOR_ENV`: the
/// default depends on the machine's cores, so tests name it). Crashes,
/// time-outs and errors must read the same in all three.
const PLACEMENTS: [&str; 3] = ["guarded", "shared", "separate"];

/// Runs `cmd` with one module's C++ placed as `placement` (see
/// [`PLACEMENTS`]).
fn place<'c>(cmd: &'c mut Command, placement: &str) -> &'c mut Command {
    if placement == "guarded" {
        cmd.env_remove(halc::msl::worker::VALIDATOR_ENV)
    } else {
        cmd.args(["--worker-start", "fork"])
            .env(halc::msl::worker::VALIDATOR_ENV, placement)
    }
}

/// Compiles saxpy with the worker told to crash as `how` (fault injection)
/// and the validator placed as `validator`: exit 1, one line, nothing
/// written. Returns the line.
fn compile_with_crash(how: &str, validator: &str) -> String {
    let d = tmp();
    let out = d.path().join("o.halc");
    let o = place(
        Command::new(env!("CARGO_BIN_EXE_halc")).args([
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            out.to_str().unwrap(),
        ]),
        validator,
    )
    .env(halc::msl::worker::CRASH_TEST_ENV, how)
    .output()
    .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{how}, {validator}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!out.exists(), "{how}, {validator}: output written");
    err
}

#[test]
fn a_spirv_cross_crash_is_an_error_not_a_crash() {
    for validator in PLACEMENTS {
        // The error names the file and entry point and the signal.
        for (how, signal) in [
            ("segv", "signal 11 SIGSEGV"),
            ("abort", "signal 6 SIGABRT"),
            ("stack-overflow", "signal"),
        ] {
            let err = compile_with_crash(how, validator);
            assert!(
                err.contains("saxpy.spv: entry point `main`: SPIRV-Cross crashed (")
                    && err.contains(signal)
                    && err.contains("the module was not compiled"),
                "{how}, {validator}: {err}"
            );
        }
        // The validator, in the same worker or its own, is contained the
        // same way.
        assert!(compile_with_crash("validate:stack-overflow", validator)
            .contains("the SPIR-V validator (SPIRV-Tools) crashed (signal"));
        assert_eq!(
            compile_with_crash("validate:abort", validator).trim_end(),
            format!(
                "error: {}: the SPIR-V validator (SPIRV-Tools) crashed (signal 6 SIGABRT); the module was not compiled",
                fixture("saxpy.spv")
            ),
            "{validator}"
        );
    }
}

/// The parent asks for the first kernel's MSL before it has read the
/// validator's verdict. A worker that validates runs SPIRV-Cross only on a
/// module it found valid; one beside a validator of its own runs it at
/// once, and may die or hang on that request (a crash injected where
/// SPIRV-Cross starts) for a module the validator rejects: the error is
/// still the validator's, as in a serial run, since the verdict is read
/// first, and it comes without waiting for the time limit.
/// `small_id_bound.spv` (an id past the header's bound) reflects fine, so
/// its kernel is asked for.
#[test]
fn a_crash_on_a_module_the_validator_rejects_reports_the_validator() {
    let rel = "fixtures/invalid/small_id_bound.spv";
    let words =
        halc::spirv::Words::from_bytes(&std::fs::read(crate::root().join(rel)).unwrap()).unwrap();
    let info = halc::spirv::reflect(&words).expect("the module reflects, so its MSL is asked for");
    assert_eq!(info.entry_points.len(), 1);
    let expected = format!(
        "error: {rel}: invalid SPIR-V: Result <id> '6' must be less than the ID bound '5'. (instruction 42; validated as Vulkan_1_0)"
    );
    // With a validator of its own, SPIRV-Cross runs on the module before
    // the verdict is in, and crashes (or hangs) first: the verdict still
    // decides the error, and comes as soon as the validator is done, not at
    // the time limit.
    for how in [
        None,
        Some("segv"),
        Some("abort"),
        Some("stack-overflow"),
        Some("hang"),
    ] {
        for (start, validator) in [("fork", "shared"), ("fork", "separate"), ("exec", "shared")] {
            let d = tmp();
            let out = d.path().join("o.halc");
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_halc"));
            cmd.args(["compile", rel, "-o", out.to_str().unwrap()])
                .args(["--worker-start", start, "--time-limit", "30"])
                .env(halc::msl::worker::VALIDATOR_ENV, validator)
                .current_dir(crate::root());
            if let Some(how) = how {
                cmd.env(halc::msl::worker::CRASH_TEST_ENV, how);
            }
            let started = std::time::Instant::now();
            let o = cmd.output().unwrap();
            let took = started.elapsed();
            let case = format!("{how:?}, {start}, {validator}");
            assert_eq!(o.status.code(), Some(1), "{case}: {}", stderr(&o));
            assert_eq!(stderr(&o).trim_end(), expected, "{case}");
            assert!(!out.exists());
            assert!(
                took < std::time::Duration::from_secs(10),
                "{case}: took {took:?}"
            );
        }
    }
    // Negative controls: on a valid module the same injected crash is
    // reported as SPIRV-Cross's, and the hang runs into the time limit, so
    // both did happen.
    for validator in PLACEMENTS {
        assert!(compile_with_crash("segv", validator)
            .contains("SPIRV-Cross crashed (signal 11 SIGSEGV)"));
        let d = tmp();
        let o = place(
            Command::new(env!("CARGO_BIN_EXE_halc"))
                .args(["compile", &fixture("saxpy.spv"), "--time-limit", "1", "-o"])
                .arg(d.path().join("o.halc")),
            validator,
        )
        .env(halc::msl::worker::CRASH_TEST_ENV, "hang")
        .output()
        .unwrap();
        assert!(
            stderr(&o).trim_end().ends_with(
                "entry point `main`: SPIRV-Cross did not finish within the time limit of 1 s; the module was not compiled"
            ),
            "{validator}: {}",
            stderr(&o)
        );
    }
}

/// A worker hands its module to SPIRV-Cross to parse as soon as it holds it
/// (after a valid verdict, or at once beside a validator of its own), before
/// any MSL is asked for. When halc then refuses the module itself (here a
/// workgroup Metal cannot run, found after the verdict) no MSL is asked for,
/// and a worker stuck in that parse (a hang injected where SPIRV-Cross
/// starts) must not outlive the run: halc reports the refusal at once and
/// no process carrying this run's marker is left behind.
#[cfg(target_os = "linux")]
#[test]
fn a_worker_busy_on_a_module_no_msl_was_asked_for_ends_with_halc() {
    let rel = "fixtures/invalid/too_many_threads.spv";
    let expected = format!(
        "error: {rel}: entry point `main`: workgroup size 32x32x2 = 2048 threads exceeds Metal's 1024 threads per threadgroup"
    );
    for (start, validator) in [("fork", "shared"), ("fork", "separate"), ("exec", "shared")] {
        let case = format!("{start}, {validator}");
        let mark = format!("busy-worker-{}-{start}-{validator}", std::process::id());
        let marker = format!("HALC_TEST_MARK={mark}");
        let d = tmp();
        let out = d.path().join("o.halc");
        let started = std::time::Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_halc"))
            .args(["compile", rel, "-o", out.to_str().unwrap()])
            .args(["--worker-start", start, "--time-limit", "30"])
            .env(halc::msl::worker::VALIDATOR_ENV, validator)
            .env(halc::msl::worker::CRASH_TEST_ENV, "hang")
            .env("HALC_TEST_MARK", &mark)
            .current_dir(crate::root())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{case}: {}", stderr(&o));
        assert_eq!(stderr(&o).trim_end(), expected, "{case}");
        assert!(!out.exists(), "{case}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{case}: took {:?}",
            started.elapsed()
        );
        // A killed worker is gone a moment later; one left running is not.
        let left = wait_for_marked(&marker, std::time::Duration::from_secs(5), Vec::is_empty);
        assert!(left.is_empty(), "{case}: processes left running: {left:?}");
    }
}

/// halc killed (SIGKILL: a build tool's time-out) while its worker is busy
/// in SPIRV-Cross, which reads no pipe meanwhile (a hang injected there):
/// the worker dies with it, forked (validator shared or separate) or
/// started with exec, instead of running on alone.
#[cfg(target_os = "linux")]
#[test]
fn workers_die_with_a_killed_halc() {
    for (start, validator) in [("fork", "shared"), ("fork", "separate"), ("exec", "shared")] {
        let case = format!("{start}, {validator}");
        let mark = format!("orphan-{}-{start}-{validator}", std::process::id());
        let marker = format!("HALC_TEST_MARK={mark}");
        let d = tmp();
        let mut halc = Command::new(env!("CARGO_BIN_EXE_halc"))
            .args(["compile", &fixture("saxpy.spv"), "-o"])
            .arg(d.path().join("o.halc"))
            .args(["--worker-start", start, "--time-limit", "60"])
            .env(halc::msl::worker::VALIDATOR_ENV, validator)
            .env(halc::msl::worker::CRASH_TEST_ENV, "hang")
            .env("HALC_TEST_MARK", &mark)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let halc_pid = halc.id() as libc::pid_t;
        let workers = |m: &Vec<libc::pid_t>| m.iter().filter(|p| **p != halc_pid).count();
        let started = wait_for_marked(&marker, std::time::Duration::from_secs(10), |m| {
            workers(m) > 0
        });
        assert!(workers(&started) > 0, "{case}: no worker started");
        // saxpy's MSL is asked for within milliseconds: the worker is in
        // the injected hang when halc dies.
        std::thread::sleep(std::time::Duration::from_millis(500));
        assert_eq!(halc.try_wait().unwrap(), None, "{case}: halc ended early");
        halc.kill().unwrap();
        halc.wait().unwrap();
        let left = wait_for_marked(&marker, std::time::Duration::from_secs(5), Vec::is_empty);
        for pid in &left {
            // SAFETY: kill(2) of a process this test started (through halc).
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
        assert!(left.is_empty(), "{case}: workers outlived halc: {left:?}");
        assert!(!d.path().join("o.halc").exists(), "{case}");
    }
}

/// Mutated modules (bytes changed, bits flipped, words copied over others:
/// mostly invalid, which a SPIRV-Cross worker beside the validator runs on,
/// and sometimes crashes on, before the verdict) get the same answer
/// whether the validator shares the SPIRV-Cross worker or has its own: the
/// same exit code and message, the same file or none.
#[test]
fn mutated_modules_get_the_same_answer_in_both_validator_placements() {
    let d = tmp();
    // A fixed set (adding a fixture must not change the mutants).
    let fixtures: Vec<_> = [
        "add_one",
        "array_length",
        "atomics",
        "block_sum",
        "push_constants",
        "saxpy",
        "scale",
        "shared_memory",
        "small_types",
        "spec_constants",
        "subgroup",
        "images",
    ]
    .iter()
    .map(|n| crate::kernel(&format!("{n}.spv")))
    .collect();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        // xorshift64: a fixed sequence, so the mutants are the same each run.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let (mut invalid, mut compiled) = (0, 0);
    for i in 0..40 {
        let mut bytes = std::fs::read(&fixtures[next(fixtures.len())]).unwrap();
        let words = bytes.len() / 4;
        for _ in 0..1 + next(3) {
            let w = 5 + next(words - 5);
            match next(3) {
                0 => bytes[4 * w + next(4)] = next(256) as u8,
                1 => bytes[4 * w + next(4)] ^= 1 << next(8),
                _ => {
                    let from = 5 + next(words - 5);
                    bytes.copy_within(4 * from..4 * from + 4, 4 * w);
                }
            }
        }
        let module = d.path().join(format!("m{i}.spv"));
        std::fs::write(&module, &bytes).unwrap();
        let answers: Vec<_> = PLACEMENTS
            .iter()
            .map(|validator| {
                let out = d.path().join(format!("m{i}-{validator}.halc"));
                let o = place(
                    Command::new(env!("CARGO_BIN_EXE_halc"))
                        .args(["compile", module.to_str().unwrap(), "-o"])
                        .arg(&out),
                    validator,
                )
                .output()
                .unwrap();
                (o.status.code(), stderr(&o), std::fs::read(&out).ok())
            })
            .collect();
        for other in &answers[1..] {
            assert!(
                answers[0] == *other,
                "m{i}.spv: {:?} against {:?}",
                answers[0].1,
                other.1
            );
        }
        invalid += usize::from(answers[0].1.contains("invalid SPIR-V"));
        compiled += usize::from(answers[0].0 == Some(0));
    }
    // Not vacuous: both kinds of answer occur.
    assert!(
        invalid >= 10 && compiled >= 1,
        "{invalid} invalid, {compiled} compiled of 40"
    );
}

/// SPIRV-Tools' validator takes ~40 s on 128 nested `if`s around 1000 in
/// sequence (fixtures/slow/README.md), within halc's nesting limit: the time
/// limit stops it.
#[test]
fn a_slow_module_hits_the_time_limit() {
    for validator in PLACEMENTS {
        a_slow_module_hits_the_time_limit_with(validator);
    }
}

fn a_slow_module_hits_the_time_limit_with(validator: &str) {
    let d = tmp();
    let out = d.path().join("o.halc");
    std::fs::write(&out, b"previous").unwrap();
    let slow = crate::root().join("fixtures/slow/deep_nesting.spv");
    let started = std::time::Instant::now();
    let o = place(
        Command::new(env!("CARGO_BIN_EXE_halc"))
            .args(["compile", slow.to_str().unwrap(), "-o"])
            .arg(&out)
            .args(["--time-limit", "1"]),
        validator,
    )
    .current_dir(d.path())
    .output()
    .unwrap();
    let took = started.elapsed();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).trim_end().ends_with(
            "deep_nesting.spv: the SPIR-V validator (SPIRV-Tools) did not finish within the time limit of 1 s; the module was not compiled"
        ),
        "{validator}: {}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).trim_end().lines().count(), 1);
    assert!(
        took < std::time::Duration::from_secs(20),
        "{validator}: took {took:?}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
    assert_eq!(listing(d.path()), vec![out]);
}

/// `inspect` shows the push-constant block's members, as `inspect --json`
/// does.
#[test]
fn inspect_text_shows_push_constant_members() {
    let d = tmp();
    let out = d.path().join("p.halc");
    let out_s = out.to_str().unwrap();
    let o = halc(
        &["compile", &fixture("push_constants.spv"), "-o", out_s],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = halc(&["inspect", out_s], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains(
            "  push constants 16 B at [[buffer(1)]]\n    `count` @ byte 0, 4 B: uint32\n    `scale` @ byte 4, 4 B: float32\n"
        ),
        "{text}"
    );
    // The same members as the JSON.
    let o = halc(&["inspect", "--json", out_s], d.path());
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let members = &json["kernels"][0]["push_constants"]["members"];
    assert_eq!(members[0]["name"], "count", "{json}");
    assert_eq!(members[1]["type"], "float32", "{json}");
}

/// A ray-query kernel: `inspect` names its acceleration structure and where
/// it goes in each binding model (`[[id]]` with its byte offset, or
/// `[[buffer]]`), as `inspect --json` does; below MSL 2.4 the compile is
/// refused naming the binding and the version.
#[test]
fn inspect_shows_a_ray_query_kernels_acceleration_structure() {
    let d = tmp();
    let out = d.path().join("rq.halc");
    let out_s = out.to_str().unwrap();
    for (extra, slot) in [
        (None, "[[id(0)]] @ byte 0"),
        (Some("discrete"), "[[buffer(0)]]"),
    ] {
        let mut args = vec!["compile", "fixtures/kernels/ray_query.spv", "-o", out_s];
        if let Some(m) = extra {
            args.extend(["--bindings", m]);
        }
        let o = halc(&args, &crate::root());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let o = halc(&["inspect", out_s], d.path());
        let text = String::from_utf8(o.stdout).unwrap();
        let line =
            format!("  (set 0, binding 0) acceleration-structure read-only -> {slot}  `scene`\n");
        assert!(text.contains(&line), "{text}");
        let o = halc(&["inspect", "--json", out_s], d.path());
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let r = &json["kernels"][0]["resources"][0];
        assert_eq!(r["kind"], "acceleration-structure", "{json}");
    }
    let o = halc(
        &[
            "compile",
            "fixtures/kernels/ray_query.spv",
            "--msl-version",
            "2.3",
            "-o",
            out_s,
        ],
        &crate::root(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim_end(),
        "error: fixtures/kernels/ray_query.spv: entry point `main`: (set 0, binding 0): an acceleration structure (ray queries, Metal's intersection_query) needs MSL 2.4 or newer; this build targets MSL 2.3 (--msl-version)"
    );
    // Negative control: at 2.4 the same kernel compiles.
    let o = halc(
        &[
            "compile",
            "fixtures/kernels/ray_query.spv",
            "--msl-version",
            "2.4",
            "-o",
            out_s,
        ],
        &crate::root(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
