//! `halc test` over the repository's Amber tests: every test in
//! `tests/amber/` passes in both binding models and several MSL versions,
//! and every negative control in `tests/amber/negative/` fails for its own
//! reason. Runs the CLI, as a user does.
//!
//! Needs clang++ ≥ 15 and glslc: without them the tests print why and pass,
//! unless `HALC_REQUIRE_CLANG=1` (CI), when they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::root;

pub(crate) fn halc() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_halc"));
    c.current_dir(root());
    if std::env::var_os("HALC_CPU_CACHE").is_none() {
        c.env(
            "HALC_CPU_CACHE",
            std::env::temp_dir().join("halc-cpu-test-cache"),
        );
    }
    c
}

/// Whether the tools `halc test` needs are here (or must be).
pub(crate) fn tools() -> bool {
    let has = |p: &str, arg: &str| {
        Command::new(p)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let clang = (15..=22).any(|v| has(&format!("clang++-{v}"), "--version"))
        || std::env::var_os("HALC_CLANG").is_some()
        || has("clang++", "--version");
    let ok = clang && has("glslc", "--version");
    if !ok {
        assert_ne!(
            std::env::var("HALC_REQUIRE_CLANG").as_deref(),
            Ok("1"),
            "HALC_REQUIRE_CLANG=1 but clang++ or glslc is missing"
        );
        println!("skipped: halc test needs clang++ >= 15 and glslc");
    }
    ok
}

fn files(dir: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "amber" || e == "vkscript")
        })
        .map(|p: PathBuf| p.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    v.sort();
    v
}

fn run(args: &[&str], files: &[String]) -> (i32, String) {
    let o = halc().arg("test").args(args).args(files).output().unwrap();
    let stdout = String::from_utf8(o.stdout).unwrap();
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(stderr.is_empty(), "{stderr}");
    (o.status.code().unwrap(), stdout)
}

#[test]
fn every_amber_test_passes_in_both_binding_models_and_msl_versions() {
    if !tools() {
        return;
    }
    let tests = files("tests/amber");
    assert!(tests.len() >= 10, "{tests:?}");
    // Float atomics need MSL 3.0: below it halc refuses the kernel, which
    // makes the test a skip, with the reason.
    let msl3 = "tests/amber/atomic_float.amber";
    assert!(tests.iter().any(|t| t == msl3), "{tests:?}");
    // Image atomics run at every version: Metal's texture atomics from MSL
    // 3.1, below it SPIRV-Cross's emulation through the buffer the texture
    // was created on (issue 38).
    let atomics = "tests/amber/image_atomics.amber";
    assert!(tests.iter().any(|t| t == atomics), "{tests:?}");
    for args in [
        &["--bindings", "argument-buffers"][..],
        &["--bindings", "discrete"],
        &["--msl-version", "2.3"],
        &["--msl-version", "3.1"],
        &["--msl-version", "3.2", "--bindings", "discrete"],
        // iOS: SIMD-group functions from MSL 2.3, storage images out of
        // the argument buffers at tier 1 (SPIRV-Cross patch 0010 declares
        // the subgroup size its Ge/Gt masks read).
        &["--platform", "ios"],
        &["--platform", "ios", "--argument-buffer-tier", "1"],
    ] {
        let (code, out) = run(args, &tests);
        assert_eq!(code, 0, "{args:?}:\n{out}");
        // Ray queries need MSL 2.4 (Metal's intersection_query).
        let ray_queries = tests.iter().filter(|t| t.contains("/ray_query"));
        let below_2_4: Vec<&str> = std::iter::once(msl3)
            .chain(ray_queries.map(String::as_str))
            .collect();
        assert_eq!(below_2_4.len(), 7, "{below_2_4:?}");
        let skipped: &[&str] = if args.contains(&"2.3") {
            &below_2_4
        } else {
            &[]
        };
        assert!(
            out.ends_with(&format!(
                "{} passed, 0 failed, {} skipped\n",
                tests.len() - skipped.len(),
                skipped.len()
            )),
            "{args:?}:\n{out}"
        );
        for t in &tests {
            if skipped.contains(&t.as_str()) {
                let why = if t.as_str() == msl3 {
                    "an atomic operation on a 32-bit float (`atomic_float`, MSL line "
                } else {
                    "ray queries"
                };
                assert!(
                    out.contains(&format!("SKIP {t}:")) && out.contains(why),
                    "{args:?}: {t}:\n{out}"
                );
            } else {
                assert!(
                    out.contains(&format!("PASS {t}\n")),
                    "{args:?}: {t}:\n{out}"
                );
            }
        }
    }
    // iOS tier 1, where storage images and their companion buffers are
    // discrete beside the argument buffers.
    let (code, out) = run(
        &["--platform", "ios", "--argument-buffer-tier", "1"],
        &[atomics.to_string()],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("1 passed, 0 failed, 0 skipped\n"), "{out}");
}

/// The Vulkan reference (lavapipe) runs the original SPIR-V of every test,
/// and `--compare` finds halc's MSL on the CPU agreeing with it buffer by
/// buffer. Tests that use subgroup operations run on the CPU at the Vulkan
/// device's subgroup size; those whose expectations are for Apple's 32
/// lanes (`SUBGROUP … REQUIRED_SIZE 32`) are skips on an 8-wide lavapipe,
/// with the reason, and `subgroup_width8.amber` (`REQUIRED_SIZE 8`) runs and
/// is compared where the device's subgroups are 8 lanes.
#[test]
fn every_amber_test_agrees_with_the_vulkan_reference() {
    if !tools() || !vulkan() {
        return;
    }
    let tests = files("tests/amber");
    let width = vulkan_reference::Reference::new(&Default::default())
        .unwrap()
        .subgroup_size();
    let required = |t: &str| -> Option<u32> {
        let text = std::fs::read_to_string(crate::root().join(t)).unwrap();
        let at = text.find("REQUIRED_SIZE ")?;
        text[at + 14..].split_whitespace().next()?.parse().ok()
    };
    assert_eq!(required("tests/amber/subgroup_reduce.amber"), Some(32));
    assert_eq!(required("tests/amber/subgroup_width8.amber"), Some(8));
    let rays = tests.iter().filter(|t| t.contains("/ray_query")).count();
    assert_eq!(rays, 6, "{tests:?}");
    for args in [&["--reference", "vulkan"][..], &["--compare"]] {
        let (code, out) = run(args, &tests);
        assert_eq!(code, 0, "{args:?}:\n{out}");
        for t in &tests {
            match required(t) {
                // No device here has VK_AMD_shader_ballot
                // (tests/integration/groups.rs checks the reason).
                _ if t == "tests/amber/groups_amd.amber" => {
                    assert!(out.contains(&format!("SKIP {t}: vulkan: a shader declares capability Groups")), "{args:?}: {t}:\n{out}")
                }
                Some(n) if n != width => assert!(
                    out.contains(&format!("SKIP {t}")) && out.contains(&format!(
                        "requires subgroups of {n} lanes (SUBGROUP REQUIRED_SIZE) and the Vulkan device's are {width}"
                    )),
                    "{args:?}: {t}:\n{out}"
                ),
                _ => assert!(out.contains(&format!("PASS {t}\n")), "{args:?}: {t}:\n{out}"),
            }
        }
    }
    // Image atomics: emulated (the default MSL 3.0 above, in both binding
    // models and on iOS tier 1 here) and Metal's own (3.1, 3.2).
    let atomics = ["tests/amber/image_atomics.amber".to_string()];
    for args in [
        &["--compare", "--bindings", "discrete"][..],
        &[
            "--compare",
            "--platform",
            "ios",
            "--argument-buffer-tier",
            "1",
        ],
        &["--compare", "--msl-version", "3.1"],
        &[
            "--compare",
            "--msl-version",
            "3.2",
            "--bindings",
            "discrete",
        ],
    ] {
        let (code, out) = run(args, &atomics);
        assert_eq!(code, 0, "{args:?}: {out}");
        assert!(
            out.ends_with("1 passed, 0 failed, 0 skipped\n"),
            "{args:?}: {out}"
        );
    }
}

/// Whether a Vulkan driver is here (or must be).
pub(crate) fn vulkan() -> bool {
    let ok = vulkan_reference::Reference::new(&Default::default()).is_ok();
    if !ok {
        assert_ne!(
            std::env::var("HALC_REQUIRE_VULKAN").as_deref(),
            Ok("1"),
            "HALC_REQUIRE_VULKAN=1 but no Vulkan driver (lavapipe) is available"
        );
        println!("skipped: no Vulkan driver (apt-get install mesa-vulkan-drivers libvulkan1)");
    }
    ok
}

/// Writes `source` to `DIR/NAME.comp` and compiles it with glslc to
/// `DIR/NAME.spv`, which it returns.
pub(crate) fn glsl_to_spv(dir: &Path, name: &str, source: &str) -> PathBuf {
    let src = dir.join(format!("{name}.comp"));
    std::fs::write(&src, source).unwrap();
    let spv = dir.join(format!("{name}.spv"));
    let ok = std::process::Command::new("glslc")
        .arg(&src)
        .arg("-o")
        .arg(&spv)
        .status()
        .unwrap();
    assert!(ok.success(), "glslc failed on {}", src.display());
    spv
}

/// [`glsl_to_spv`], read back as the input `NAME.spv`.
pub(crate) fn glsl_input(dir: &Path, name: &str, source: &str) -> halc::Input {
    let spv = glsl_to_spv(dir, name, source);
    halc::Input::new(format!("{name}.spv"), std::fs::read(&spv).unwrap())
}

/// Each negative control must fail, for its own reason: a test suite that
/// cannot fail proves nothing.
#[test]
fn negative_controls_fail_for_their_reason() {
    if !tools() {
        return;
    }
    let cases = [
        (
            "wrong_expectation.amber",
            "wrong_expectation.amber:15: EXPECT d IDX 0: value 2 (byte 8, uint32): expected == 10, got 9",
        ),
        // Poisoned, not zeroed, threadgroup memory.
        ("uninitialised_shared.amber", "uninitialised_shared.amber:22: EXPECT d IDX 0: value 0"),
        ("out_of_bounds.amber", "out-of-bounds access"),
        ("divergent_barrier.amber", "threadgroup_barrier"),
        ("endless_loop.amber", "time limit"),
        ("malformed.amber", "malformed.amber:3: unknown data type `unit32`"),
        (
            "push_constant_size.amber",
            "the buffer `push` bound as push constants holds 4 bytes; the kernel's push-constant block is 8 bytes",
        ),
        (
            "glsl_error.amber",
            "tests/amber/negative/glsl_error.amber:9: error:",
        ),
        (
            "wrong_texel.amber",
            "wrong_texel.amber:26: EXPECT img IDX 0: value 2 (byte 8, uint32): expected == 30, got 31",
        ),
        // One for each capability admitted in issue 38: a test of it that
        // gets something wrong fails.
        (
            "subgroup_ballot_width.amber",
            "subgroup_ballot_width.amber:61: EXPECT o IDX 0: value 0 (byte 0, uint32): expected == 65504, got 224",
        ),
        (
            "atomic_float_returns_old.amber",
            "atomic_float_returns_old.amber:37: EXPECT old IDX 0: value 0 (byte 0, float): expected == 2, got 1",
        ),
        (
            "push_constant_16bit_offsets.amber",
            "push_constant_16bit_offsets.amber:49: EXPECT out IDX 0: value 8 (byte 32, float): expected == 4660, got 0",
        ),
        (
            "buffer_array_order.amber",
            "buffer_array_order.amber:149: EXPECT o IDX 0: value 0 (byte 0, uint32): expected == 1000, got 100000",
        ),
        // Image expectations (issue 38): a texel 1/255 off, past amber's
        // default tolerance, and a histogram distance over its tolerance.
        (
            "wrong_probe.amber",
            "wrong_probe.amber:53: EXPECT color IDX 4 0 SIZE 4 8 EQ_RGBA: probe failed at (4, 7): expected 51, 102, 153, 255, got 52, 102, 153, 255 (R8G8B8A8_UNORM); 4 of 32 texels failed",
        ),
        // Mip levels: level 1 sampled, not level 0.
        (
            "wrong_mip_level.amber",
            "wrong_mip_level.amber:55: EXPECT out IDX 16: value 0 (byte 16, float): expected == 7, got 1",
        ),
        // A view from a base mip level: level 1 read, not level 0.
        (
            "wrong_mip_view.amber",
            "wrong_mip_view.amber:60: EXPECT means IDX 0: value 0 (byte 0, float): expected == 1, got 3.5",
        ),
        (
            "wrong_histogram.amber",
            "wrong_histogram.amber:53: EXPECT color EQ_HISTOGRAM_EMD_BUFFER smooth: histogram EMD 0.000244140625 over tolerance 0.0002",
        ),
        // Ray queries: the winding rule the wrong way round (on both
        // sides: the CPU backend follows lavapipe's rule).
        // Arrays of ray queries: one element's ray flags expected to be
        // another's.
        (
            "ray_query_array_flags.amber",
            "ray_query_array_flags.amber:267: EXPECT flags IDX 0: value 3 (byte 12, uint32): expected == 0, got 4",
        ),
        (
            "ray_query_wrong_face.amber",
            "ray_query_wrong_face.amber:173: EXPECT faces IDX 0: value 0 (byte 0, uint32): expected == 0, got 1",
        ),
        // The instance transform expected transposed.
        (
            "ray_query_transposed.amber",
            "ray_query_transposed.amber:77: EXPECT mats IDX 96: value 1 (byte 100, float): expected == -2, got 1",
        ),
    ];
    let listed = files("tests/amber/negative");
    assert_eq!(listed.len(), cases.len(), "{listed:?}");
    for (file, reason) in cases {
        let path = format!("tests/amber/negative/{file}");
        let (code, out) = run(&["--time-limit", "2"], std::slice::from_ref(&path));
        assert_eq!(code, 1, "{file}:\n{out}");
        let line = out.lines().next().unwrap_or("");
        assert!(line.starts_with(&format!("FAIL {path}")), "{file}:\n{out}");
        assert!(
            out.contains(reason),
            "{file}: expected `{reason}` in:\n{out}"
        );
        assert!(out.ends_with("0 passed, 1 failed, 0 skipped\n"), "{out}");
        // The ray-query controls fail on the Vulkan reference too: the
        // winding rule and the transform they get wrong are lavapipe's, the
        // flags the other expects are not the ones the kernel gives.
        if file.starts_with("ray_query") && vulkan() {
            let (code, out) = run(&["--reference", "vulkan"], std::slice::from_ref(&path));
            assert_eq!(code, 1, "{file}:\n{out}");
            assert!(out.contains(reason), "{file}: vulkan:\n{out}");
        }
    }
}

/// `halc test` killed (SIGKILL: a build tool's time-out) while a kernel
/// loops forever: the process running the dispatch dies with it instead of
/// spinning on alone. The time limit is kept by the process that forked the
/// dispatch, which dies with halc.
#[cfg(target_os = "linux")]
#[test]
fn a_looping_kernel_dies_with_a_killed_halc_test() {
    if !tools() {
        return;
    }
    let mark = format!("looping-kernel-{}", std::process::id());
    let marker = format!("HALC_TEST_MARK={mark}");
    let mut test = halc()
        .args(["test", "--time-limit", "120"])
        .arg("tests/amber/negative/endless_loop.amber")
        .env("HALC_TEST_MARK", &mark)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let halc_pid = test.id() as libc::pid_t;
    // (name, parent) of a process, from /proc/PID/stat: `PID (NAME) S PPID`.
    let stat = |pid: libc::pid_t| -> Option<(String, libc::pid_t)> {
        let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (head, tail) = s.rsplit_once(')')?;
        let name = head.split_once('(')?.1.to_string();
        let ppid = tail.split_whitespace().nth(1)?.parse().ok()?;
        Some((name, ppid))
    };
    // The dispatch is a fork of halc (named `halc`, unlike clang) whose
    // parent is the test file's process, itself a fork of halc carrying the
    // marker. The dispatch's own environment is zeroed by the CPU backend's
    // sandbox, so it is found by its parent.
    let children_of = |parents: &Vec<libc::pid_t>| -> Vec<libc::pid_t> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .filter(|&p| {
                stat(p).is_some_and(|(name, ppid)| {
                    name == "halc" && ppid != halc_pid && parents.contains(&ppid)
                })
            })
            .collect()
    };
    let started = crate::wait_for_marked(&marker, std::time::Duration::from_secs(60), |m| {
        !children_of(m).is_empty()
    });
    let dispatch = children_of(&started);
    assert!(
        !dispatch.is_empty(),
        "no dispatch process started: {started:?}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(test.try_wait().unwrap(), None, "halc test ended early");
    test.kill().unwrap();
    test.wait().unwrap();
    let alive = |p: libc::pid_t| stat(p).is_some();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while dispatch.iter().any(|&p| alive(p)) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let left = crate::wait_for_marked(&marker, std::time::Duration::from_secs(5), Vec::is_empty);
    let outlived: Vec<_> = left
        .iter()
        .chain(dispatch.iter().filter(|&&p| alive(p)))
        .copied()
        .collect();
    for pid in &outlived {
        // SAFETY: kill(2) of a process this test started (through halc).
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    assert!(
        outlived.is_empty(),
        "processes outlived halc test: {outlived:?}"
    );
}

/// The poisoned-memory control fails because of the poison: with
/// threadgroup memory zero-filled the same test passes.
#[test]
fn the_shared_memory_control_passes_on_zeroed_memory() {
    if !tools() {
        return;
    }
    let path = "tests/amber/negative/uninitialised_shared.amber".to_string();
    let (code, out) = run(
        &["--threadgroup-memory", "zero"],
        std::slice::from_ref(&path),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with(&format!("PASS {path}")), "{out}");
}

/// Graphics tests and features Metal lacks are skips, with the reason.
#[test]
fn graphics_and_unknown_features_are_skips_not_failures() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let gfx = dir.path().join("gfx.amber");
    std::fs::write(&gfx, "#!amber\nSHADER vertex v PASSTHROUGH\n").unwrap();
    let f64s = dir.path().join("f64.amber");
    std::fs::write(&f64s, "#!amber\nDEVICE_FEATURE shaderFloat64\n").unwrap();
    let files = [gfx.display().to_string(), f64s.display().to_string()];
    let (code, out) = run(&[], &files);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("SKIP "), "{out}");
    assert!(out.contains("requires shaderFloat64"), "{out}");
    assert!(out.ends_with("0 passed, 0 failed, 2 skipped\n"), "{out}");
}

/// What halc cannot run of Amber's images is a skip naming it; a mistake
/// in a script's images and samplers is a failure naming the line.
#[test]
fn image_declarations_halc_cannot_run_are_skips_and_mistakes_fail() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str, &str); 12] = [
        (
            "mips",
            "IMAGE i FORMAT R8G8B8A8_UNORM MIP_LEVELS 2 DIM_3D WIDTH 4 HEIGHT 4 DEPTH 4",
            "SKIP",
            "mips.amber:2: mip-mapped 3D images: amber copies every level at the full depth",
        ),
        (
            "empty_level",
            "IMAGE i FORMAT R8G8B8A8_UNORM MIP_LEVELS 4 DIM_2D WIDTH 4 HEIGHT 4",
            "FAIL",
            "empty_level.amber:2: MIP_LEVELS 4: level 3 of a 4x4 image would be empty",
        ),
        (
            "samples",
            "IMAGE i FORMAT R8G8B8A8_UNORM SAMPLES 4 DIM_2D WIDTH 4 HEIGHT 4",
            "SKIP",
            "samples.amber:2: multisampled images",
        ),
        (
            "packed",
            "IMAGE i FORMAT B10G11R11_UFLOAT_PACK32 DIM_2D WIDTH 4 HEIGHT 4 FILL 1.5",
            "SKIP",
            "packed.amber:2: B10G11R11_UFLOAT_PACK32: packed formats",
        ),
        (
            "depth",
            "IMAGE i FORMAT D32_SFLOAT DIM_2D WIDTH 4 HEIGHT 4",
            "SKIP",
            "depth.amber:2: format D32_SFLOAT is not one halc's images support",
        ),
        (
            "no_height",
            "IMAGE i DATA_TYPE float DIM_2D WIDTH 4",
            "FAIL",
            "no_height.amber:2: a DIM_2D IMAGE needs HEIGHT",
        ),
        (
            "short_data",
            "IMAGE i DATA_TYPE float DIM_1D WIDTH 4 DATA 1 2 3 END",
            "FAIL",
            "short_data.amber:2: image `i`: DATA gives 3 values for 4 texels",
        ),
        (
            "compare",
            "SAMPLER s COMPARE on",
            "SKIP",
            "compare.amber:2: depth-compare samplers",
        ),
        (
            "filter",
            "SAMPLER s MAG_FILTER cubic",
            "FAIL",
            "filter.amber:2: `cubic` is not a filter",
        ),
        (
            "probe_outside",
            "IMAGE i FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 4\nEXPECT i IDX 2 2 SIZE 4 4 EQ_RGB 0 0 0",
            "FAIL",
            "probe_outside.amber:3: EXPECT i: the probe's rectangle (2, 2) 4x4 is outside the 4x4 image",
        ),
        (
            "probe_tolerances",
            "IMAGE i FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 4\nEXPECT i IDX 0 0 SIZE 4 4 EQ_RGB 0 0 0 TOLERANCE 1 1 1 1",
            "FAIL",
            "probe_tolerances.amber:3: TOLERANCE of an RGB probe takes 1 to 3 values",
        ),
        (
            "emd_format",
            "IMAGE i FORMAT R32_SFLOAT DIM_2D WIDTH 4 HEIGHT 4\nEXPECT i EQ_HISTOGRAM_EMD_BUFFER i TOLERANCE 0",
            "FAIL",
            "emd_format.amber:3: EQ_HISTOGRAM_EMD_BUFFER compares formats of four 8-bit unorm channels only",
        ),
    ];
    for (name, line, status, want) in cases {
        let path = dir.path().join(format!("{name}.amber"));
        std::fs::write(&path, format!("#!amber\n{line}\n")).unwrap();
        let (_, out) = run(&["--reference", "vulkan"], &[path.display().to_string()]);
        let first = out.lines().next().unwrap_or("");
        assert!(
            first.starts_with(&format!("{status} ")) && first.contains(&format!("/{want}")),
            "{name}: expected {status} with `{want}` in:\n{out}"
        );
    }
}

/// `halc compile --check-msl` over every fixture in both binding models:
/// the MSL compiles against the shim, the texture fixtures (`images`,
/// `descriptor_arrays`) too, with no warning.
#[test]
fn check_msl_accepts_every_fixture() {
    if !tools() {
        return;
    }
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("k.halc");
    for model in ["argument-buffers", "discrete"] {
        for f in crate::compute_fixtures() {
            let o = halc()
                .args(["compile", "--check-msl", "--bindings", model, "-o"])
                .arg(&out)
                .arg(&f)
                .output()
                .unwrap();
            let stderr = String::from_utf8(o.stderr).unwrap();
            assert_eq!(o.status.code(), Some(0), "{}: {stderr}", f.display());
            let name = f.file_stem().unwrap().to_string_lossy();
            // spec_smod_array warns that it fixes its SpecIds.
            let warnings = stderr
                .lines()
                .all(|l| l.starts_with("warning: ") && l.contains("under a signed `%`"));
            assert!(
                stderr.is_empty() || name == "spec_smod_array" && warnings,
                "{name}: {stderr}"
            );
        }
    }
}

/// Injected miscompiles — what a halc bug would produce — are caught by
/// `--compare`: each one passes on its own side's expectations only by
/// luck, and the comparison names the buffer and the first element that
/// differs.
mod injected {
    use halc::amber::run::{run, Outcome, RunOptions, Sides};
    use halc::runtime_loader::cpu::Device;

    fn compare(file: &str, msl: &str, tamper: Option<fn(&mut halc::Compiled)>) -> Outcome {
        let text = std::fs::read_to_string(crate::root().join(file)).unwrap();
        let device = Device::new().unwrap();
        let mut opts = RunOptions {
            sides: Sides::Compare,
            tamper,
            ..Default::default()
        };
        opts.compile.msl_version = msl.parse().unwrap();
        run(file, &text, Some(&device), &opts)
    }

    fn caught(file: &str, tamper: fn(&mut halc::Compiled), want: &[&str]) {
        caught_at(file, "3.0", tamper, want)
    }

    /// [`caught`] with the kernels compiled for MSL `msl`.
    fn caught_at(file: &str, msl: &str, tamper: fn(&mut halc::Compiled), want: &[&str]) {
        if !super::tools() || !super::vulkan() {
            return;
        }
        assert_eq!(compare(file, msl, None), Outcome::Pass, "{file} untampered");
        match compare(file, msl, Some(tamper)) {
            Outcome::Fail(m) => {
                for w in want {
                    assert!(m.contains(w), "expected `{w}` in: {m}");
                }
            }
            other => panic!("{file}: the miscompile was not caught: {other:?}"),
        }
    }

    /// The layout records the two buffers' argument-buffer members swapped:
    /// the runtime writes each address where the kernel reads the other, so
    /// the kernel reads its 1024 inputs from the 16-byte output buffer.
    #[test]
    fn a_swapped_slot() {
        caught(
            "tests/amber/block_sum.amber",
            |c| {
                let b = &mut c.kernels[0].layout.bindings;
                let (i0, o0) = (b[0].id, b[0].byte_offset);
                b[0].id = b[1].id;
                b[0].byte_offset = b[1].byte_offset;
                b[1].id = i0;
                b[1].byte_offset = o0;
            },
            &[
                "RUN p: metal-on-cpu: kernel `block_sum`: out-of-bounds access",
                "the buffer bound to (set 0, binding 1) (16 bytes)",
            ],
        );
    }

    /// The layout records two storage images' argument-buffer members
    /// swapped (issue 38): the kernel reads its float source from the
    /// RGBA8 target and writes the target's texels into the source.
    #[test]
    fn a_swapped_texture_slot() {
        caught(
            "tests/amber/image_storage.amber",
            |c| {
                let b = &mut c.kernels[0].layout.bindings;
                let (i0, o0) = (b[0].id, b[0].byte_offset);
                b[0].id = b[1].id;
                b[0].byte_offset = b[1].byte_offset;
                b[1].id = i0;
                b[1].byte_offset = o0;
            },
            &["RUN pipeline: buffer `src` (set 0, binding 0) differs"],
        );
    }

    /// An image atomic min emitted as a max (issue 38): the shared texel
    /// ends at the largest value instead of the smallest, with Metal's
    /// texture atomics (MSL 3.1) and emulated (MSL 3.0).
    #[test]
    fn an_image_atomic_min_turned_max() {
        for msl in ["3.1", "3.0"] {
            caught_at(
                "tests/amber/image_atomics.amber",
                msl,
                |c| {
                    let msl = &mut c.kernels[0].msl.source;
                    assert!(msl.contains("atomic_fetch_min"), "{msl}");
                    *msl = msl.replace("atomic_fetch_min", "atomic_fetch_max");
                },
                &["RUN pipeline: buffer `extremes` (set 0, binding 1) differs"],
            );
        }
    }

    /// Emulated image atomics (MSL 3.0) whose MSL assumes rows of another
    /// length than the texture's (4-byte alignment, rows tightly packed,
    /// where the texture's are 256-byte aligned): the atomics land on the
    /// wrong texels of the buffer the texture was created on.
    #[test]
    fn an_emulated_image_atomic_with_the_wrong_row_pitch() {
        caught(
            "tests/amber/image_atomics.amber",
            |c| {
                let msl = &mut c.kernels[0].msl.source;
                let aligned = "spvLinearTextureAlignmentOverride : 256;";
                assert!(msl.contains(aligned), "{msl}");
                *msl = msl.replace(aligned, "spvLinearTextureAlignmentOverride : 4;");
            },
            &["RUN pipeline: buffer `counts` (set 0, binding 0) differs"],
        );
    }

    /// Emulated image atomics (MSL 3.0) whose companion buffers are
    /// recorded swapped between two images (`counts`, 8x9, and `cas`, 8x8):
    /// the runtime writes each texture's buffer where the kernel reads the
    /// other's, so the atomics on `counts`' last row run past the end of
    /// `cas`' buffer.
    #[test]
    fn a_swapped_image_atomic_buffer() {
        caught(
            "tests/amber/image_atomics.amber",
            |c| {
                let b = &mut c.kernels[0].layout.bindings;
                let (a0, a2) = (b[0].atomic_buffer.unwrap(), b[2].atomic_buffer.unwrap());
                b[0].atomic_buffer.as_mut().unwrap().id = a2.id;
                b[0].atomic_buffer.as_mut().unwrap().byte_offset = a2.byte_offset;
                b[2].atomic_buffer.as_mut().unwrap().id = a0.id;
                b[2].atomic_buffer.as_mut().unwrap().byte_offset = a0.byte_offset;
            },
            &[
                "RUN pipeline: metal-on-cpu: kernel `kernel`: out-of-bounds access",
                "past the end of the buffer of texture",
                "bound to (set 0, binding 2)",
            ],
        );
    }

    /// The first device-memory barrier of a Vulkan-memory-model kernel is
    /// dropped from the MSL: invocations read their neighbour's value
    /// before it is written.
    #[test]
    fn a_dropped_barrier_under_the_vulkan_memory_model() {
        caught(
            "tests/amber/vulkan_memory_model.amber",
            |c| {
                let msl = &mut c.kernels[0].msl.source;
                let barrier = "threadgroup_barrier(mem_flags::mem_device);";
                assert_eq!(msl.matches(barrier).count(), 2, "{msl}");
                *msl = msl.replacen(barrier, "", 1);
            },
            &["buffer `v` (set 0, binding 0) differs: element 0 (byte 0, uint32): vulkan 3"],
        );
    }

    /// The executable records a 128-thread threadgroup for a 256-wide
    /// reduction.
    #[test]
    fn a_wrong_workgroup_size() {
        caught(
            "tests/amber/block_sum.amber",
            |c| c.kernels[0].workgroup.dims[0].value = 128,
            &["buffer `sums` (set 0, binding 1) differs: element 0 (byte 0, uint32): vulkan 32640"],
        );
    }

    /// The MSL computes `b - a` where the SPIR-V computes `a - b`.
    #[test]
    fn an_operand_order_flipped() {
        caught(
            "tests/amber/subtract.amber",
            |c| {
                let msl = &mut c.kernels[0].msl.source;
                let line = msl
                    .lines()
                    .find(|l| l.contains(" - ") && l.contains("= "))
                    .expect("the subtraction")
                    .to_string();
                let (lhs, rhs) = line.split_once("= ").unwrap();
                let expr = rhs.trim_end_matches(';');
                let (a, b) = expr.rsplit_once(" - ").unwrap();
                *msl = msl.replace(&line, &format!("{lhs}= {b} - {a};"));
            },
            &["buffer `d` (set 0, binding 2) differs: element 0 (byte 0, float): vulkan -1.5, metal-on-cpu 1.5"],
        );
    }
}

/// `--spec` bakes a SpecId into every shader that declares it, on both
/// sides (a pipeline's own SPECIALIZE wins): SCALE 0.5 instead of 1.5 moves
/// the default pipeline's results, identically on Metal and Vulkan.
#[test]
fn spec_bakes_into_every_pipeline_that_declares_it() {
    if !tools() {
        return;
    }
    let file = "tests/amber/function_constants.amber".to_string();
    let (code, out) = run(&["--spec", "1=0.5"], std::slice::from_ref(&file));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("function_constants.amber:32: EXPECT a IDX 0: value 1 (byte 4, float): expected == -0.5, got -1.5"),
        "{out}"
    );
    if vulkan() {
        let (_, out) = run(
            &["--compare", "--spec", "1=0.5"],
            std::slice::from_ref(&file),
        );
        assert!(
            out.contains("got -1.5 (on metal-on-cpu and on vulkan)"),
            "{out}"
        );
    }
}

/// `halc diff` over every fixture, with three seeds: halc's MSL on the CPU agrees with the SPIR-V on lavapipe, or
/// the run is inconclusive for a stated reason. The exceptions are named
/// with why; none may quietly change outcome.
#[test]
fn diff_agrees_on_every_buffer_fixture() {
    if !tools() || !vulkan() {
        return;
    }
    // Fixture → what three seeds give, when not AGREE.
    let expected: &[(&str, &str)] = &[
        // Writes 4 (10) words per invocation: one element per invocation
        // is too small, and the CPU side reports the overrun.
        ("spec_defaults", "INCONCLUSIVE"),
        ("subgroup_ops", "INCONCLUSIVE"),
        // Writes 4 words per invocation and reads the element after its
        // own (tests/amber/variable_pointers.amber runs it with data).
        ("variable_pointers", "INCONCLUSIVE"),
        ("variable_pointers_khr", "INCONCLUSIVE"),
        // One invocation writes 12 words; 16 words per invocation (their
        // Amber tests run them with data).
        ("push_constants_16_8", "INCONCLUSIVE"),
        ("subgroup_ballot_khr", "INCONCLUSIVE"),
        // The Groups capability needs VK_AMD_shader_ballot, which lavapipe
        // lacks: not compared (tests/integration/groups.rs).
        ("groups_amd", "INCONCLUSIVE"),
        ("groups_vote_broadcast", "INCONCLUSIVE"),
        // uint(sum) of a negative float sum: implementation-defined, and
        // lavapipe and the CPU convert differently; and every invocation
        // (one per threadgroup) writes the header and every index: a data
        // race between threadgroups (the same values, but undefined), which
        // the race check names where the conversion differs (seed 1).
        ("array_length", "race"),
        // A fuzz finding whose every invocation stores to cells[4]: a data
        // race; which invocation writes last may differ between the sides
        // (and between runs): AGREE, or a difference the race check names.
        ("fuzz_spec_id_two_dims", "race"),
        // Indexes its arrays with random uniform values, mostly past their
        // ends (tests/integration/diff_arrays.rs gives them).
        ("descriptor_arrays", "INCONCLUSIVE"),
        // Writes past its own element (`v[16 + g]`).
        ("buffer_array_dynamic_indexing", "INCONCLUSIVE"),
        // Two kernels: refused without --entry.
        // halc diff seeds no acceleration structures yet: it says so.
        ("ray_query", "error"),
        ("two_entry_points", "error"),
        ("two_entry_points_builtin", "error"),
    ];
    for f in crate::compute_fixtures() {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        let want = expected
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("AGREE", |(_, w)| *w);
        let o = halc()
            .args(["diff", "--seeds", "3"])
            .arg(&f)
            .output()
            .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        match want {
            "error" => {
                assert_eq!(o.status.code(), Some(1), "{name}: {out}{err}");
                assert!(err.starts_with("error: "), "{name}: {err}");
            }
            "DIFFER" => {
                assert_eq!(o.status.code(), Some(1), "{name}: {out}{err}");
                assert!(out.contains("DIFFER "), "{name}: {out}");
            }
            "race" => {
                assert_eq!(out.lines().count(), 3, "{name}: {out}{err}");
                assert!(
                    out.lines().all(|l| l.starts_with("AGREE ")
                        || (l.starts_with("INCONCLUSIVE ")
                            && l.contains(" without atomics or a barrier between: a data race, undefined on Metal and in Vulkan; not compared"))),
                    "{name}: {out}{err}"
                );
            }
            w => {
                assert_eq!(o.status.code(), Some(0), "{name}: {out}{err}");
                assert_eq!(
                    out.lines()
                        .filter(|l| l.starts_with(&format!("{w} ")))
                        .count(),
                    3,
                    "{name}: expected three {w} lines:\n{out}{err}"
                );
            }
        }
    }
    // With --entry, each kernel of a two-entry-point module runs.
    for entry in ["main_a", "main_b"] {
        let o = halc()
            .args([
                "diff",
                "--entry",
                entry,
                "fixtures/kernels/two_entry_points.spv",
            ])
            .output()
            .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.starts_with("AGREE "), "{entry}: {out}");
    }
}

/// `halc diff` runs a kernel that uses subgroup operations with SIMD groups
/// as wide as the Vulkan device's subgroups, and then compares it like any
/// other: the fixture's subgroupAdd and ballot agree, and a miscompiled
/// reduction (`simd_sum` turned into `simd_max`) differs; so do the
/// clustered reductions, and SPIRV-Cross's helper before halc's patch.
#[test]
fn diff_compares_subgroup_kernels_at_the_vulkan_devices_width() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    if !tools() || !vulkan() {
        return;
    }
    let width = vulkan_reference::Reference::new(&Default::default())
        .unwrap()
        .subgroup_size();
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let subgroup = crate::input(&crate::kernel("subgroup.spv"));
    for seed in [1, 2] {
        let opts = DiffOptions {
            seed,
            ..Default::default()
        };
        match diff(&subgroup, &opts, &device).unwrap() {
            DiffOutcome::Agree(m) => assert!(
                m.ends_with(&format!(
                    "SIMD groups of {width} lanes, as the Vulkan device's subgroups)"
                )),
                "{m}"
            ),
            other => panic!("seed {seed}: {other:?}"),
        }
    }
    let opts = DiffOptions {
        seed: 1,
        tamper: Some(|c| {
            let msl = &mut c.kernels[0].msl.source;
            assert!(msl.contains("simd_sum("), "{msl}");
            *msl = msl.replace("simd_sum(", "simd_max(");
        }),
        ..Default::default()
    };
    match diff(&subgroup, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(m.starts_with("seed 1: (set 0, binding 1) byte "), "{m}"),
        other => panic!("not caught: {other:?}"),
    }

    // Clustered reductions, some with inactive lanes in their clusters,
    // agree; with SPIRV-Cross's unpatched stand-in for an inactive lane in
    // the clustered max (FLT_MIN, vendor patch 0003) they differ.
    let clustered = crate::input(&crate::kernel("subgroup_clustered.spv"));
    for seed in [1, 2] {
        let opts = DiffOptions {
            seed,
            ..Default::default()
        };
        let outcome = diff(&clustered, &opts, &device).unwrap();
        assert!(matches!(outcome, DiffOutcome::Agree(_)), "{outcome:?}");
    }
    let opts = DiffOptions {
        seed: 1,
        tamper: Some(|c| {
            let msl = &mut c.kernels[0].msl.source;
            let start = msl.find("struct spvClusteredMaxDetail;").unwrap();
            let end = msl.find("T spvClustered_max(").unwrap();
            let helper = msl[start..end].replace("T(value)", "T(numeric_limits<T>::min())");
            assert_ne!(helper, msl[start..end]);
            msl.replace_range(start..end, &helper);
        }),
        ..Default::default()
    };
    match diff(&clustered, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(m.starts_with("seed 1: (set 0, binding 2) byte "), "{m}"),
        other => panic!("the unpatched helper was not caught: {other:?}"),
    }
}

/// OpExpectKHR (SPIRV-Cross patch 0008): the fixture agrees with lavapipe;
/// SPIRV-Cross's unpatched `SPV_EXPECT` (a semicolon ending the macro,
/// expanded where the expectation is an operand of `+ 1u`) drops the
/// addition, and an expectation that computes in `long`, as
/// `__builtin_expect` does (the semicolon alone removed), gets a uint
/// difference below zero and a uint64_t shift wrong: both differ.
#[test]
fn diff_catches_the_unpatched_expect_macro() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let kernel = crate::input(&crate::kernel("expect_assume.spv"));
    for seed in [1, 2] {
        let opts = DiffOptions {
            seed,
            ..Default::default()
        };
        let outcome = diff(&kernel, &opts, &device).unwrap();
        assert!(matches!(outcome, DiffOutcome::Agree(_)), "{outcome:?}");
    }
    let semicolon: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        let site = "= SPV_EXPECT(a, 0u) + 1u;";
        assert!(msl.contains(site), "{msl}");
        *msl = msl.replace(site, "= __builtin_expect(a, 0u); + 1u;");
    };
    let long: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        for t in ["uint", "ulong"] {
            let patched = format!(
                "inline {t} spvExpect({t} x, {t} y) {{ return {t}(__builtin_expect(x, y)); }}"
            );
            assert!(msl.contains(&patched), "{msl}");
            *msl = msl.replace(
                &patched,
                &format!(
                    "inline long spvExpect({t} x, {t} y) {{ return __builtin_expect(x, y); }}"
                ),
            );
        }
    };
    // Result: plus_one, below, shifted, vec_sum, sel (20 bytes each).
    for (name, tamper, member) in [("semicolon", semicolon, [0]), ("long", long, [4])] {
        let opts = DiffOptions {
            seed: 1,
            tamper: Some(tamper),
            ..Default::default()
        };
        match diff(&kernel, &opts, &device).unwrap() {
            DiffOutcome::Differ(m) => {
                assert!(
                    m.starts_with("seed 1: (set 0, binding 1) byte "),
                    "{name}: {m}"
                );
                let byte: usize = m["seed 1: (set 0, binding 1) byte ".len()..]
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(member.contains(&(byte % 20)), "{name}: {m}");
            }
            other => panic!("{name}: not caught: {other:?}"),
        }
    }
}

/// Integer dot products: the fixture agrees with lavapipe on random data
/// (tests/amber/integer_dot_product.amber runs the edge values); packed
/// operands read without sign extension, and accumulations that wrap
/// instead of saturating, each differ.
#[test]
fn diff_catches_wrong_integer_dot_products() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let kernel = crate::input(&crate::kernel("integer_dot_product.spv"));
    // halc diff's random integers are small (0..=15): the cases are given,
    // (x, y, acc) with x and y of any bytes and acc below 70000, so that
    // the accumulations saturate now and then.
    let cases = |seed: u64| -> Vec<u8> {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 32) as u32
        };
        (0..16)
            .flat_map(|_| [next(), next(), next() % 70000])
            .flat_map(u32::to_le_bytes)
            .collect()
    };
    let base = |seed: u64| DiffOptions {
        seed,
        groups: [4, 1, 1],
        given: vec![(0, 0, cases(seed))],
        ..Default::default()
    };
    for seed in [1, 2, 3] {
        let outcome = diff(&kernel, &base(seed), &device).unwrap();
        assert!(matches!(outcome, DiffOutcome::Agree(_)), "{outcome:?}");
    }
    let unsigned: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        let packed = "int4(as_type<char4>(x)) * int4(as_type<char4>(y))";
        assert!(msl.contains(packed), "{msl}");
        *msl = msl.replace(packed, "int4(as_type<uchar4>(x)) * int4(as_type<char4>(y))");
    };
    let wrapping: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        assert!(msl.contains("addsat("), "{msl}");
        *msl = msl.replace("addsat(", "wrapping_add(").replace(
            "kernel void",
            "template <typename T> T wrapping_add(T a, T b) { return a + b; }\nkernel void",
        );
    };
    for (name, tamper) in [("unsigned", unsigned), ("wrapping", wrapping)] {
        let opts = DiffOptions {
            tamper: Some(tamper),
            ..base(1)
        };
        match diff(&kernel, &opts, &device).unwrap() {
            DiffOutcome::Differ(m) => {
                assert!(
                    m.starts_with("seed 1: (set 0, binding 1) byte "),
                    "{name}: {m}"
                )
            }
            other => panic!("{name}: not caught: {other:?}"),
        }
    }
}

/// SignedZeroInfNanPreserve: the fixture agrees with lavapipe
/// (tests/amber/float_controls.amber runs infinities, NaNs and signed
/// zeros); the folds fast math may make, `-0.0 + 0.0` to `-0.0` and `x / x`
/// to 1, each differ; and halc refuses the kernel under `--fast-math`.
#[test]
fn signed_zero_inf_nan_preserve_is_kept_and_refused_under_fast_math() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let kernel = crate::input(&crate::kernel("float_controls.spv"));
    // -2, 3, +inf, -inf, NaN, -0.0, +0.0, 65504 (every invocation reads
    // its own).
    let given: Vec<u8> = [
        0xc000_0000u32,
        0x4040_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x8000_0000,
        0,
        0x477f_e000,
    ]
    .iter()
    .flat_map(|b| b.to_le_bytes())
    .collect();
    let base = DiffOptions {
        groups: [2, 1, 1],
        given: vec![(0, 0, given)],
        ..Default::default()
    };
    let outcome = diff(&kernel, &base, &device).unwrap();
    assert!(matches!(outcome, DiffOutcome::Agree(_)), "{outcome:?}");
    let no_signed_zeros: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        assert!(msl.contains("= zero + pzero;"), "{msl}");
        *msl = msl.replace("= zero + pzero;", "= zero;");
    };
    let no_nans: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        assert!(msl.contains("= v / v;"), "{msl}");
        *msl = msl.replace("= v / v;", "= 1.0;");
    };
    // Result: 10 words; add_zero is word 2 (of -2), div_self word 4 (of
    // +inf, the third input).
    for (name, tamper, want) in [
        (
            "no signed zeros",
            no_signed_zeros,
            "seed 1: (set 0, binding 1) byte 8 ",
        ),
        ("no NaNs", no_nans, "seed 1: (set 0, binding 1) byte 96 "),
    ] {
        let opts = DiffOptions {
            tamper: Some(tamper),
            ..base.clone()
        };
        match diff(&kernel, &opts, &device).unwrap() {
            DiffOutcome::Differ(m) => assert!(m.starts_with(want), "{name}: {m}"),
            other => panic!("{name}: not caught: {other:?}"),
        }
    }
    let o = halc()
        .args([
            "compile",
            "--fast-math",
            "fixtures/kernels/float_controls.spv",
            "-o",
        ])
        .arg(tempfile::tempdir().unwrap().path().join("k.fb"))
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("declares the SignedZeroInfNanPreserve execution mode (SPV_KHR_float_controls), which Metal's fast math")
            && err.contains("may fold `x + 0.0` to `x`"),
        "{err}"
    );
}

/// Extensions that only declare (SPV_KHR_variable_pointers in a SPIR-V 1.0
/// module; DXC's SPV_GOOGLE_hlsl_functionality1 and SPV_GOOGLE_user_type
/// decorations): their fixtures agree with lavapipe, and a pointer select
/// taken the wrong way, or the data and counter buffers of an HLSL
/// RWStructuredBuffer swapped in the layout, differ.
#[test]
fn diff_runs_the_declaration_only_extensions() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    // Variable pointers: buffers large enough for the element after each
    // invocation's and for three words per invocation.
    let words =
        |n: u32, k: u32| -> Vec<u8> { (0..n).flat_map(|i| (i * k + 1).to_le_bytes()).collect() };
    let vp = crate::input(&crate::kernel("variable_pointers_khr.spv"));
    let base = DiffOptions {
        groups: [4, 1, 1],
        given: vec![
            (0, 0, words(17, 3)),
            (0, 1, words(17, 7)),
            (0, 2, words(48, 0)),
        ],
        ..Default::default()
    };
    let outcome = diff(&vp, &base, &device).unwrap();
    assert!(matches!(outcome, DiffOutcome::Agree(_)), "{outcome:?}");
    let flipped: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        assert!(msl.contains("& 1u) == 1u)"), "{msl}");
        *msl = msl.replace("& 1u) == 1u)", "& 1u) == 0u)");
    };
    let opts = DiffOptions {
        tamper: Some(flipped),
        ..base
    };
    match diff(&vp, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(m.starts_with("seed 1: (set 0, binding 2) byte "), "{m}"),
        other => panic!("flipped select not caught: {other:?}"),
    }
    // HLSL decorations: the counter buffer is a buffer of its own.
    let hlsl = crate::input(&crate::kernel("hlsl_decorations.spv"));
    let base = DiffOptions {
        groups: [4, 1, 1],
        ..Default::default()
    };
    let outcome = diff(&hlsl, &base, &device).unwrap();
    assert!(matches!(outcome, DiffOutcome::Agree(_)), "{outcome:?}");
    let swapped: fn(&mut halc::Compiled) = |c| {
        let b = &mut c.kernels[0].layout.bindings;
        let (id, off) = (b[0].id, b[0].byte_offset);
        b[0].id = b[1].id;
        b[0].byte_offset = b[1].byte_offset;
        b[1].id = id;
        b[1].byte_offset = off;
    };
    let opts = DiffOptions {
        tamper: Some(swapped),
        ..base
    };
    // The data written through the 4-byte counter's slot runs past it (and
    // past the 16 bytes it is allocated, as every buffer is).
    match diff(&hlsl, &opts, &device) {
        Ok(DiffOutcome::Inconclusive(m)) => assert!(
            // (16 bytes: halc diff allocates to 16-byte granules.)
            m.contains("out-of-bounds access") && m.contains("(set 0, binding 1) (16 bytes)"),
            "{m}"
        ),
        other => panic!("swapped buffers not caught: {other:?}"),
    }
}

/// LocalSizeId in a SPIR-V 1.3 module: the fixture agrees with lavapipe
/// with its default sizes and specialised (`--spec`, baked on both sides;
/// tests/amber/local_size_id_spv13.amber specialises at pipeline creation);
/// a workgroup size recorded one row short differs (the count of
/// invocations and the largest y).
#[test]
fn diff_runs_local_size_id_below_vulkan_1_3() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let kernel = crate::input(&crate::kernel("local_size_id_spv13.spv"));
    let specialised = {
        let mut o = DiffOptions::default();
        o.compile.specs = vec!["0=8".parse().unwrap(), "1=3".parse().unwrap()];
        o
    };
    for opts in [DiffOptions::default(), specialised] {
        let outcome = diff(&kernel, &opts, &device).unwrap();
        assert!(matches!(outcome, DiffOutcome::Agree(_)), "{outcome:?}");
    }
    // y recorded as the constant 1 instead of SpecId 1's default 2.
    let short: fn(&mut halc::Compiled) = |c| {
        let y = &mut c.kernels[0].workgroup.dims[1];
        assert_eq!((y.value, y.spec_id), (2, Some(1)));
        y.value = 1;
        y.spec_id = None;
    };
    let opts = DiffOptions {
        tamper: Some(short),
        ..Default::default()
    };
    match diff(&kernel, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => {
            assert!(m.starts_with("seed 1: (set 0, binding 0) byte 0 "), "{m}")
        }
        other => panic!("a short workgroup was not caught: {other:?}"),
    }
}

/// RoundingModeRTE: the fixture agrees with lavapipe on values that round
/// apart (tests/amber/rounding_rte.amber checks each), and the same MSL run
/// with the CPU rounding toward zero (`fesetround`) differs; halc refuses
/// the kernel under `--fast-math`.
#[test]
fn rounding_mode_rte_is_kept_and_refused_under_fast_math() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let kernel = crate::input(&crate::kernel("rounding_rte.spv"));
    // 1.0, 3 * 2^-25, the int 2^24 + 3, 3 * 2^-12.
    let given: Vec<u8> = [0x3f80_0000u32, 0x33c0_0000, 0x0100_0003, 0x3a40_0000]
        .iter()
        .flat_map(|b| b.to_le_bytes())
        .collect();
    let base = DiffOptions {
        given: vec![(0, 0, given)],
        ..Default::default()
    };
    let outcome = diff(&kernel, &base, &device).unwrap();
    assert!(matches!(outcome, DiffOutcome::Agree(_)), "{outcome:?}");
    let toward_zero: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        let body = "kernel void main0(";
        let at = msl.find(body).unwrap();
        let open = at + msl[at..].find("{\n").unwrap() + 2;
        msl.insert_str(open, "    fesetround(FE_TOWARDZERO);\n");
        msl.insert_str(0, "#include <fenv.h>\n");
    };
    let opts = DiffOptions {
        tamper: Some(toward_zero),
        ..base
    };
    match diff(&kernel, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => {
            assert!(m.starts_with("seed 1: (set 0, binding 1) byte 0 "), "{m}")
        }
        other => panic!("rounding toward zero not caught: {other:?}"),
    }
    let o = halc()
        .args([
            "compile",
            "--fast-math",
            "fixtures/kernels/rounding_rte.spv",
            "-o",
        ])
        .arg(tempfile::tempdir().unwrap().path().join("k.fb"))
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("declares the RoundingModeRTE execution mode (SPV_KHR_float_controls), which Metal's fast math"),
        "{err}"
    );
}

/// `halc diff` catches an injected miscompile, reports the seed, and is
/// deterministic for it; data-dependent indexing (out of bounds, or past
/// every buffer) and division by a random zero are inconclusive, not a
/// false alarm or an error.
/// `halc diff` follows device addresses (`buffer_reference`): every pointer
/// in the push constants and buffers gets a buffer of its own, which each
/// side fills with its own addresses, compares, and reads back as "reached
/// buffer N + offset". A kernel reading through the wrong pointer of an
/// array is caught, naming the reached buffer it wrote; a null pointer
/// built from random integers is inconclusive, not a failure.
#[test]
fn diff_follows_device_addresses() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let refs = crate::input(&crate::kernel("buffer_reference.spv"));
    for seed in [1, 2, 3] {
        let opts = DiffOptions {
            seed,
            ..Default::default()
        };
        match diff(&refs, &opts, &device).unwrap() {
            DiffOutcome::Agree(m) => assert!(
                m.contains(
                    "in 1 storage buffers and 10 buffers reached through device addresses agree"
                ),
                "{m}"
            ),
            other => panic!("seed {seed}: {other:?}"),
        }
    }
    // The kernel takes `table.extra[i & 1]`; reading the other element
    // adds the other buffer's values into `dst`.
    let opts = DiffOptions {
        seed: 1,
        tamper: Some(|c| {
            let msl = &mut c.kernels[0].msl.source;
            assert!(msl.contains(".extra[i & 1u]"), "{msl}");
            *msl = msl.replace(".extra[i & 1u]", ".extra[(i + 1u) & 1u]");
        }),
        ..Default::default()
    };
    match diff(&refs, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(
            m.starts_with(
                "seed 1: reached buffer 1 (its address at the push constants byte 8) byte 0 (f32)"
            ),
            "{m}"
        ),
        other => panic!("not caught: {other:?}"),
    }
    // An address made of two random integers: nothing halc diff wrote.
    let dir = tempfile::tempdir().unwrap();
    let spv = glsl_to_spv(
        dir.path(),
        "uvec2_address",
        "#version 460\n#extension GL_EXT_buffer_reference : require\n\
         #extension GL_EXT_buffer_reference_uvec2 : require\n\
         layout(local_size_x = 4) in;\n\
         layout(buffer_reference) buffer P { uint v; };\n\
         layout(push_constant) uniform C { uvec2 a; } c;\n\
         void main() { P(c.a).v = 1u; }\n",
    );
    let stray = halc::Input::new("uvec2_address.spv", std::fs::read(&spv).unwrap());
    match diff(&stray, &DiffOptions::default(), &device).unwrap() {
        DiffOutcome::Inconclusive(m) => assert!(
            m.contains("device address") || m.contains("outside every buffer"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
}

/// An address the kernel keeps in an integer (ggml's `uint64_t dst_addr`,
/// cast to a `buffer_reference`) is given with `NAME=@BYTES`: each side
/// writes the address of a buffer of that size, which is compared; a wrong
/// result written through it is caught, naming that buffer; `@` on a member
/// that cannot hold an address is refused.
#[test]
fn diff_gives_integer_addresses_a_buffer() {
    use halc::diff::{diff, DiffOptions, DiffOutcome, NamedValue};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spv = glsl_to_spv(
        dir.path(),
        "integer_address",
        "#version 460\n#extension GL_EXT_buffer_reference : require\n\
         #extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n\
         layout(local_size_x = 16) in;\n\
         layout(buffer_reference, buffer_reference_align = 4) buffer F { float v; };\n\
         layout(push_constant) uniform P { uint64_t dst_addr; uint n; } p;\n\
         layout(set = 0, binding = 0) readonly buffer S { float s[]; };\n\
         void main() { uint i = gl_GlobalInvocationID.x;\n\
         if (i < p.n) F(p.dst_addr + 4ul * i).v = s[i] * 3.0; }\n",
    );
    let input = halc::Input::new("integer_address.spv", std::fs::read(&spv).unwrap());
    let named = |name: &str, value: &str| NamedValue {
        block: None,
        name: name.into(),
        value: value.into(),
    };
    let opts = DiffOptions {
        values: vec![named("dst_addr", "@256"), named("n", "64")],
        groups: [4, 1, 1],
        ..Default::default()
    };
    match diff(&input, &opts, &device).unwrap() {
        DiffOutcome::Agree(m) => assert!(
            m.contains("128 scalars in 1 storage buffers and 1 buffers reached through device addresses agree"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    let tampered = DiffOptions {
        tamper: Some(|c| {
            let msl = &mut c.kernels[0].msl.source;
            assert!(msl.contains(" * 3.0"), "{msl}");
            *msl = msl.replace(" * 3.0", " * 4.0");
        }),
        ..opts.clone()
    };
    match diff(&input, &tampered, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(
            m.contains("reached buffer 0 (the buffer of 256 bytes given to push constant `dst_addr`) byte 0 (u32)"),
            "{m}"
        ),
        other => panic!("not caught: {other:?}"),
    }
    let wrong = DiffOptions {
        values: vec![named("n", "@256")],
        ..Default::default()
    };
    let e = diff(&input, &wrong, &device).unwrap_err();
    assert!(e.contains("push constant `n` is uint32; `@BYTES`"), "{e}");
}

/// `halc diff` on image kernels (issue 38): images, texel buffers and
/// samplers made on both sides, random texels of each format, storage
/// images compared texel by texel; a swapped texture slot and a wrong
/// conversion are caught, naming the texel; coordinates out of the image
/// are inconclusive.
#[test]
fn diff_compares_images_texel_by_texel() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    use halc::msl::{BindingModel, Platform, Tier};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let kinds = crate::input(&crate::kernel("image_kinds.spv"));
    let clean = DiffOptions {
        seed: 7,
        ..Default::default()
    };
    match diff(&kinds, &clean, &device).unwrap() {
        DiffOutcome::Agree(m) => assert!(m.contains("texel components in 7 storage images"), "{m}"),
        other => panic!("{other:?}"),
    }
    // The argument-buffer members of `bytes` (r8, read and written) and
    // `halves` (rg16f, read) swapped: the kernel reads and writes each
    // through the other's texture.
    let swap: fn(&mut halc::Compiled) = |c| {
        let b = &mut c.kernels[0].layout.bindings;
        let (i, j) = (1, 2);
        let (id, off) = (b[i].id, b[i].byte_offset);
        b[i].id = b[j].id;
        b[i].byte_offset = b[j].byte_offset;
        b[j].id = id;
        b[j].byte_offset = off;
    };
    // `1.0 - x` stored as `0.5 - x` into the r8 image.
    let wrong: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        *msl = msl.replace("float4(1.0 - ", "float4(0.5 - ");
    };
    for (name, tamper, want) in [
        ("swapped", swap, "(set 0, binding "),
        (
            "wrong",
            wrong,
            "(set 0, binding 1) storage image texel (0, 0) (R8_UNORM), component 0",
        ),
    ] {
        let opts = DiffOptions {
            tamper: Some(tamper),
            ..clean.clone()
        };
        match diff(&kinds, &opts, &device) {
            Ok(DiffOutcome::Differ(m)) => assert!(m.contains(want), "{name}: {m}"),
            Err(e) => panic!("{name}: {e}"),
            other => panic!("{name}: not caught: {other:?}"),
        }
    }
    // Cube arrays: every layer-face of the storage cube array is compared.
    let cubes = crate::input(&crate::kernel("cube_arrays.spv"));
    let doubled: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        *msl = msl.replace(" * 2.0", " * 3.0");
    };
    let opts = DiffOptions {
        tamper: Some(doubled),
        ..clean.clone()
    };
    match diff(&cubes, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(
            m.contains("(set 0, binding 0) storage image texel (0, 0, 0) (R32G32B32A32_SFLOAT)"),
            "{m}"
        ),
        other => panic!("cube arrays: not caught: {other:?}"),
    }
    // Image atomics at the default MSL 3.0 (emulated through the buffer
    // each r32 texture was created on), in both binding models and on iOS
    // tier 1, agree with lavapipe; a wrong row pitch in the MSL is caught.
    let atomics = crate::input(&crate::kernel("image_atomics_emulated.spv"));
    // Last, `hist` pinned at [[id(10)]]: its buffer takes [[id(11)]], past
    // the other members (struct order is not id x 8).
    let pinned =
        halc::msl::BindingMap::from_toml("[[binding]]\nset = 0\nbinding = 0\nid = 10\n").unwrap();
    for (bindings, platform, tier, map) in [
        (
            BindingModel::ArgumentBuffers,
            Platform::MacOS,
            Tier::Tier2,
            None,
        ),
        (BindingModel::Discrete, Platform::MacOS, Tier::Tier2, None),
        (
            BindingModel::ArgumentBuffers,
            Platform::IOS,
            Tier::Tier1,
            None,
        ),
        (
            BindingModel::ArgumentBuffers,
            Platform::MacOS,
            Tier::Tier2,
            Some(&pinned),
        ),
    ] {
        let mut opts = clean.clone();
        opts.compile.layout.model = bindings;
        opts.compile.layout.platform = platform;
        opts.compile.layout.tier = tier;
        if let Some(map) = map {
            opts.compile.layout.map = map.clone();
        }
        match diff(&atomics, &opts, &device).unwrap() {
            DiffOutcome::Agree(m) => {
                assert!(m.contains("in 3 storage images agree"), "{bindings:?}: {m}")
            }
            other => panic!("{bindings:?} {platform:?}: {other:?}"),
        }
    }
    let unaligned: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        let aligned = "spvLinearTextureAlignmentOverride : 256;";
        assert!(msl.contains(aligned), "{msl}");
        *msl = msl.replace(aligned, "spvLinearTextureAlignmentOverride : 4;");
    };
    let opts = DiffOptions {
        tamper: Some(unaligned),
        ..clean.clone()
    };
    match diff(&atomics, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(m.contains("(set "), "{m}"),
        other => panic!("a wrong row pitch: not caught: {other:?}"),
    }
    // Random coordinates past the image: no verdict.
    let dir = tempfile::tempdir().unwrap();
    let spv = glsl_to_spv(
        dir.path(),
        "stray_texel",
        "#version 450\nlayout(local_size_x = 8) in;\n\
         layout(set = 0, binding = 0) readonly buffer I { int idx[]; };\n\
         layout(set = 0, binding = 1, r32f) uniform image1D img;\n\
         void main() { int i = int(gl_GlobalInvocationID.x); \
         imageStore(img, i, imageLoad(img, idx[i] * 1000)); }\n",
    );
    let stray = halc::Input::new("stray_texel.spv", std::fs::read(&spv).unwrap());
    let mut inconclusive = 0;
    for seed in 1..=3 {
        let opts = DiffOptions {
            seed,
            ..clean.clone()
        };
        if let DiffOutcome::Inconclusive(m) = diff(&stray, &opts, &device).unwrap() {
            assert!(m.contains("texture out of bounds"), "{m}");
            inconclusive += 1;
        }
    }
    assert!(inconclusive > 0, "no seed read past the image");
}

#[test]
fn diff_catches_miscompiles_and_is_inconclusive_on_data_dependent_indexing() {
    use halc::diff::{diff, DiffOptions, DiffOutcome};
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let saxpy = crate::input(&crate::kernel("saxpy.spv"));
    let swap_operands: fn(&mut halc::Compiled) = |c| {
        let msl = &mut c.kernels[0].msl.source;
        *msl = msl.replace(" + ", " - ");
    };
    let opts = DiffOptions {
        seed: 42,
        tamper: Some(swap_operands),
        ..Default::default()
    };
    let a = diff(&saxpy, &opts, &device).unwrap();
    let b = diff(&saxpy, &opts, &device).unwrap();
    assert_eq!(a, b, "deterministic for a seed");
    match a {
        DiffOutcome::Differ(m) => {
            assert!(m.starts_with("seed 42: (set 0, binding 1) byte "), "{m}")
        }
        other => panic!("not caught: {other:?}"),
    }
    let clean = DiffOptions {
        seed: 42,
        ..Default::default()
    };
    assert!(matches!(
        diff(&saxpy, &clean, &device).unwrap(),
        DiffOutcome::Agree(_)
    ));

    // A gather through random indices scaled past the end of the data.
    let dir = tempfile::tempdir().unwrap();
    let spv = glsl_to_spv(
        dir.path(),
        "gather",
        "#version 450\nlayout(local_size_x = 64) in;\n\
         layout(set = 0, binding = 0) readonly buffer I { uint idx[]; };\n\
         layout(set = 0, binding = 1) readonly buffer D { float data[]; };\n\
         layout(set = 0, binding = 2) writeonly buffer O { float o[]; };\n\
         void main() { uint i = gl_GlobalInvocationID.x; o[i] = data[idx[i] * 4096u]; }\n",
    );
    let gather = halc::Input::new("gather.spv", std::fs::read(&spv).unwrap());
    match diff(&gather, &clean, &device).unwrap() {
        DiffOutcome::Inconclusive(m) => {
            assert!(m.contains("out of bounds") && m.contains("seed 42"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    // Random indices times 10^9 + 7 (wrapping at 2^32 elements: a spread of
    // 16 GiB), far past the buffer but within its 64 GiB guard zone, so the
    // fault names it;
    // and random divisors, a quarter of them zero (SIGFPE on the CPU, some
    // value on a GPU). Undefined on both sides: inconclusive, not an error.
    for (name, body, expected) in [
        (
            "stray",
            "o[i] = data[idx[i] * 1000000007u];",
            "accessed memory out of bounds",
        ),
        (
            "divide",
            "o[i] = float(idx[i] / (floatBitsToUint(data[i]) & 3u));",
            "divided an integer by zero",
        ),
    ] {
        let spv = glsl_to_spv(
            dir.path(),
            name,
            &format!(
                "#version 450\nlayout(local_size_x = 64) in;\n\
                 layout(set = 0, binding = 0) readonly buffer I {{ uint idx[]; }};\n\
                 layout(set = 0, binding = 1) readonly buffer D {{ float data[]; }};\n\
                 layout(set = 0, binding = 2) writeonly buffer O {{ float o[]; }};\n\
                 void main() {{ uint i = gl_GlobalInvocationID.x; {body} }}\n"
            ),
        );
        let input = halc::Input::new(format!("{name}.spv"), std::fs::read(&spv).unwrap());
        match diff(&input, &clean, &device) {
            Ok(DiffOutcome::Inconclusive(m)) => {
                assert!(m.contains(expected) && m.contains("seed 42"), "{name}: {m}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// `halc diff --push FILE`: the push constants as the application pushes
/// them. A stride read from the push constants sends random data out of
/// bounds (inconclusive); the real stride agrees. A file of the wrong size,
/// or push constants for a kernel without a block, are errors.
#[test]
fn diff_takes_push_constants_from_a_file() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let spv = glsl_to_spv(
        dir.path(),
        "strided",
        "#version 450\nlayout(local_size_x = 64) in;\n\
         layout(push_constant) uniform P { uint stride; uint offset; float scale; } p;\n\
         layout(set = 0, binding = 0) readonly buffer D { float data[]; };\n\
         layout(set = 0, binding = 1) writeonly buffer O { float o[]; };\n\
         void main() { uint i = gl_GlobalInvocationID.x; o[i] = data[(i * p.stride + p.offset) * 1024u] * p.scale; }\n",
    );
    let run = |extra: &[&str]| {
        let o = halc()
            .args(["diff", "--seeds", "2"])
            .args(extra)
            .arg(&spv)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    // Random push constants: a stride up to the invocation count, times 1024.
    let (code, out, err) = run(&[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(out.matches("INCONCLUSIVE ").count(), 2, "{out}{err}");
    // stride 0, offset 0: every invocation reads data[0] (one element per
    // invocation is there), scaled by 2.5.
    let push = dir.path().join("push.bin");
    let mut bytes = Vec::new();
    bytes.extend(0u32.to_le_bytes());
    bytes.extend(0u32.to_le_bytes());
    bytes.extend(2.5f32.to_le_bytes());
    std::fs::write(&push, &bytes).unwrap();
    let (code, out, err) = run(&["--push", push.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(out.matches("AGREE ").count(), 2, "{out}{err}");
    // The wrong size names both sizes.
    std::fs::write(&push, &bytes[..8]).unwrap();
    let (code, out, err) = run(&["--push", push.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        err.contains("the push constants given are 8 bytes; kernel `strided` has a push-constant block of 12 bytes"),
        "{err}"
    );
    // A kernel without push constants.
    let o = halc()
        .args(["diff", "--push", push.to_str().unwrap()])
        .arg(crate::kernel("saxpy.spv"))
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("has no push-constant block"), "{err}");
}

/// A crash of the Vulkan driver fails the test that caused it, with the
/// signal and what the driver was doing, and `halc test` goes on with the
/// next file; `halc diff` reports it as an error. The reference runs in a
/// child process (`halc __vulkan-reference`): before, lavapipe's segfault
/// on this kernel (a 512-step unrolled loop with a break, as ggml's
/// count_equal has; Mesa 25.0) ended halc with SIGSEGV and no message.
#[test]
fn a_vulkan_driver_crash_is_a_failure_not_the_end_of_halc() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let shader = "#version 450\n\
        #extension GL_EXT_control_flow_attributes : enable\n\
        layout(local_size_x = 1) in;\n\
        layout(set = 0, binding = 0) readonly buffer A { uint a[]; };\n\
        layout(set = 0, binding = 1) buffer D { uint d[]; };\n\
        void main() {\n\
            uint count = 0u;\n\
            [[unroll]] for (uint i = 0u; i < 512u; i++) {\n\
                if (a[i] == 0u) { break; }\n\
                count += a[i];\n\
            }\n\
            d[0] = count;\n\
        }\n";
    let amber = dir.path().join("unrolled.amber");
    std::fs::write(
        &amber,
        format!(
            "#!amber\nSHADER compute unrolled GLSL\n{shader}END\n\
             BUFFER a DATA_TYPE uint32 SIZE 512 FILL 1\n\
             BUFFER d DATA_TYPE uint32 SIZE 1 FILL 0\n\
             PIPELINE compute p\n  ATTACH unrolled\n\
             \x20 BIND BUFFER a AS storage DESCRIPTOR_SET 0 BINDING 0\n\
             \x20 BIND BUFFER d AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n\
             RUN p 1 1 1\nEXPECT d IDX 0 EQ 512\n"
        ),
    )
    .unwrap();
    let o = halc()
        .args(["test", "--reference", "vulkan"])
        .arg(&amber)
        .arg("tests/amber/add_one.amber")
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    // halc itself ends normally, and runs the file after the crash.
    assert!(
        o.status.code().is_some(),
        "halc was killed: {:?}\n{out}{err}",
        o.status
    );
    assert!(out.contains("PASS tests/amber/add_one.amber"), "{out}{err}");
    let crashed = out
        .contains("vulkan: the Vulkan driver's process crashed (SIGSEGV) while running a dispatch");
    if crashed {
        assert_eq!(o.status.code(), Some(1), "{out}{err}");
        assert!(
            out.contains("FAIL ") && out.contains("unrolled.amber:"),
            "{out}"
        );
    } else {
        // A driver that does not crash on it computes it.
        assert!(
            out.contains("PASS ") && out.contains("unrolled.amber"),
            "{out}{err}"
        );
        eprintln!("note: this Vulkan driver did not crash on the kernel; only the run-on half of the test was exercised");
    }
    // halc diff: the CPU side agrees with itself, the Vulkan side crashes.
    let spv = glsl_to_spv(dir.path(), "unrolled", shader);
    let ones = dir.path().join("ones.bin");
    std::fs::write(&ones, [1u8, 0, 0, 0].repeat(512)).unwrap();
    let o = halc()
        .args(["diff", "--groups", "1", "--buffer"])
        .arg(format!("0.0={}", ones.display()))
        .arg(&spv)
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        o.status.code().is_some(),
        "halc diff was killed: {:?}\n{err}",
        o.status
    );
    if crashed {
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("error: vulkan: the Vulkan driver's process crashed (SIGSEGV)"),
            "{err}"
        );
    }
}

/// ggml's pattern: one SpecId sizes a shared array (`constant_id = 0`) and
/// gives the workgroup size (`local_size_x_id = 0`). halc fixes it at each
/// declaration's default and says so; the runtime then names the SpecId as
/// fixed at build time when asked to specialise it. With `--spec` there is
/// nothing to warn about. (`tests/amber/spec_array_and_value.amber` runs
/// both builds.)
#[test]
fn a_spec_id_sizing_an_array_and_read_as_a_value_is_fixed_with_a_warning() {
    use halc::runtime_loader::plan::{PlanError, SpecValue, Specialization};
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let spv = glsl_to_spv(
        dir.path(),
        "blocks",
        "#version 450\nlayout(local_size_x_id = 0) in;\n\
         layout(constant_id = 0) const uint BLOCK_SIZE = 64;\n\
         layout(set = 0, binding = 0) buffer D { uint d[]; };\n\
         shared uint partial[BLOCK_SIZE];\n\
         void main() { uint i = gl_LocalInvocationID.x; partial[i] = d[i]; barrier();\n\
         d[i] = partial[BLOCK_SIZE - 1u - i] + BLOCK_SIZE; }\n",
    );
    let exe = dir.path().join("blocks.halc");
    let o = halc()
        .arg("compile")
        .arg(&spv)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("kernel `blocks`: SpecId 0 sizes an array, which Metal needs constant, and is also read as a value, declared with other defaults, or under a signed `%` (SMod, which SPIRV-Cross writes as a function call): it is fixed at its defaults (each declaration its own), not settable at run time; choose it with --spec 0=VALUE"),
        "{err}"
    );
    let bytes = std::fs::read(&exe).unwrap();
    let loaded = halc::runtime_loader::Executable::load(&bytes).unwrap();
    let kernel = loaded.entry_point("blocks").unwrap();
    // Each declaration its own default: one thread, 64 shared elements.
    assert_eq!(kernel.default_threads_per_threadgroup(), [1, 1, 1]);
    match Specialization::new(&kernel, &[SpecValue { id: 0, bits: 32 }]) {
        Err(e @ PlanError::BakedSpecConstant { .. }) => {
            assert!(
                e.to_string()
                    .contains("SpecId 0 was fixed when the kernel was built"),
                "{e}"
            )
        }
        other => panic!("{other:?}"),
    }
    // Chosen at build time: no warning, 32 threads.
    let o = halc()
        .arg("compile")
        .arg(&spv)
        .args(["--spec", "0=32", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("warning"), "{err}");
    let bytes = std::fs::read(&exe).unwrap();
    let loaded = halc::runtime_loader::Executable::load(&bytes).unwrap();
    let kernel = loaded.entry_point("blocks").unwrap();
    assert_eq!(kernel.default_threads_per_threadgroup(), [32, 1, 1]);
}

/// Non-semantic instructions are removed before anything reads the module:
/// `debugPrintfEXT` calls (with a warning: they print nothing on Metal) and
/// debug information (`NonSemantic.Shader.DebugInfo.100`, glslang `-gV`,
/// DXC `-fspv-debug=vulkan-with-source`). The MSL is the MSL of the module
/// without them. (`tests/amber/debug_printf.amber` runs such a kernel on
/// the CPU and on lavapipe.)
#[test]
fn non_semantic_instructions_are_removed() {
    use spirv_tools::assembler::Assembler;
    if !tools() {
        return;
    }
    let msl = |name: &str, bytes: Vec<u8>| -> String {
        let c = halc::compile(&[halc::Input::new(name, bytes)], &Default::default()).unwrap();
        c.kernels[0].msl.source.clone()
    };
    let dir = tempfile::tempdir().unwrap();
    let body = "layout(local_size_x = 16) in;\n\
                layout(set = 0, binding = 0) buffer B { float v[]; };\n\
                void main() { uint i = gl_GlobalInvocationID.x; float x = v[i];\n";
    let printing = glsl_to_spv(
        dir.path(),
        "printing",
        &format!(
            "#version 450\n#extension GL_EXT_debug_printf : require\n{body}\
             debugPrintfEXT(\"v[%u] = %f\", i, x);\nv[i] = x * x;\n\
             if (i == 3u) {{ debugPrintfEXT(\"three\"); }}\n}}\n"
        ),
    );
    let o = halc()
        .arg("compile")
        .arg(&printing)
        .arg("-o")
        .arg(dir.path().join("printing.halc"))
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("printing.spv: 2 debugPrintfEXT calls removed: MSL has no printf"),
        "{err}"
    );
    let printed = msl("k.spv", std::fs::read(&printing).unwrap());
    assert!(
        !printed.contains("printf") && !printed.contains("os_log"),
        "{printed}"
    );

    // Debug information, by hand (glslc emits none): the same module with
    // and without it gives the same MSL.
    let plain = "OpCapability Shader
%glsl = OpExtInstImport \"GLSL.std.450\"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid %buf
OpExecutionMode %main LocalSize 16 1 1
OpName %blk \"Blk\"
OpName %buf \"buf\"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %rt ArrayStride 4
OpMemberDecorate %blk 0 Offset 0
OpDecorate %blk Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%uint_32 = OpConstant %uint 32
%v3 = OpTypeVector %uint 3
%pin = OpTypePointer Input %v3
%gid = OpVariable %pin Input
%pinu = OpTypePointer Input %uint
%rt = OpTypeRuntimeArray %float
%blk = OpTypeStruct %rt
%pblk = OpTypePointer StorageBuffer %blk
%buf = OpVariable %pblk StorageBuffer
%pf = OpTypePointer StorageBuffer %float
%main = OpFunction %void None %fn
%l = OpLabel
%px = OpAccessChain %pinu %gid %uint_0
%i = OpLoad %uint %px
%p = OpAccessChain %pf %buf %uint_0 %i
%x = OpLoad %float %p
%y = OpExtInst %float %glsl Sqrt %x
OpStore %p %y
OpReturn
OpFunctionEnd
";
    let debug = plain
        .replace(
            "%glsl = OpExtInstImport",
            "OpExtension \"SPV_KHR_non_semantic_info\"\n\
             %dbg = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n\
             %glsl = OpExtInstImport",
        )
        .replace(
            "OpName %blk",
            "%file = OpString \"k.comp\"\n%src = OpString \"void main() {}\"\nOpName %blk",
        )
        .replace(
            "%main = OpFunction",
            "%uint_100 = OpConstant %uint 100\n%uint_5 = OpConstant %uint 5\n\
             %uint_2 = OpConstant %uint 2\n\
             %dsrc = OpExtInst %void %dbg DebugSource %file %src\n\
             %dcu = OpExtInst %void %dbg DebugCompilationUnit %uint_100 %uint_5 %dsrc %uint_2\n\
             %main = OpFunction",
        )
        .replace(
            "%y = OpExtInst",
            "%dline = OpExtInst %void %dbg DebugLine %dsrc %uint_5 %uint_5 %uint_0 %uint_0\n\
             %y = OpExtInst",
        );
    let asm = spirv_tools::assembler::create(Some(spirv_tools::TargetEnv::Universal_1_5));
    let bytes = |text: &str| {
        asm.assemble(text, Default::default())
            .unwrap()
            .as_bytes()
            .to_vec()
    };
    let with_debug = msl("k.spv", bytes(&debug));
    assert_eq!(with_debug, msl("k.spv", bytes(plain)));
    assert!(with_debug.contains("sqrt("), "{with_debug}");
}

/// An Amber test of `data[i] += 1` whose GLSL carries `marker` in a
/// comment (read by the glslc of `watching_glslc`), expecting `expect` at
/// element 0 (11 passes).
#[cfg(unix)]
fn marked_test(dir: &Path, name: &str, marker: &str, expect: u32) -> String {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "#!amber\nSHADER compute k GLSL\n#version 450\n// {marker}\n\
             layout(local_size_x = 4) in;\n\
             layout(set = 0, binding = 0) buffer D {{ uint d[]; }};\n\
             void main() {{ d[gl_GlobalInvocationID.x] += 1u; }}\nEND\n\
             BUFFER d DATA_TYPE uint32 SIZE 4 SERIES_FROM 10 INC_BY 1\n\
             PIPELINE compute p\n  ATTACH k\n  BIND BUFFER d AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n\
             RUN p 1 1 1\nEXPECT d IDX 0 EQ {expect}\n"
        ),
    )
    .unwrap();
    path.display().to_string()
}

/// A glslc that records how many copies of it run at once (in
/// `running.counts`), takes 0.3 s (1.2 s for a source marked `SLOW`), and
/// kills the process that started it with SIGABRT for a source marked
/// `CRASH`, standing in for a crash of halc (a C++ abort) while it runs
/// that test. The tests run it with `--no-glslc-cache`: an output kept
/// from an earlier run would not run it at all.
#[cfg(unix)]
fn watching_glslc(dir: &Path) -> PathBuf {
    crate::build::counting_glslc_running(
        dir,
        "src=$(cat); case \"$src\" in *CRASH*) kill -ABRT $PPID; exit 1;; esac",
        "case \"$src\" in *SLOW*) sleep 1.2;; *) sleep 0.3;; esac",
        "printf '%s\\n' \"$src\" | exec glslc \"$@\"",
    )
}

/// `halc test` runs test files at once, each in a process of its own (`-j`,
/// default the cores): the lines and the summary are those of one file at a
/// time, in the order of the files, though the first file finishes last.
#[cfg(unix)]
#[test]
fn test_files_run_at_once_and_report_in_file_order() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let glslc = watching_glslc(dir.path());
    let files = [
        marked_test(dir.path(), "a_slow.amber", "SLOW", 11),
        marked_test(dir.path(), "b.amber", "-", 11),
        marked_test(dir.path(), "c_wrong.amber", "-", 99),
        marked_test(dir.path(), "d.amber", "-", 11),
        marked_test(dir.path(), "e.amber", "-", 11),
    ];
    let glslc_arg = glslc.display().to_string();
    let mut outputs = Vec::new();
    for (jobs, most) in [("1", 1), ("2", 2), ("3", 3)] {
        let (code, out) = run(
            &["--no-glslc-cache", "--glslc", &glslc_arg, "-j", jobs],
            &files,
        );
        assert_eq!(code, 1, "-j {jobs}:\n{out}");
        assert_eq!(
            crate::build::most_at_once(dir.path()),
            most,
            "-j {jobs}: glslc copies at once"
        );
        outputs.push(out);
    }
    let out = &outputs[0];
    let words: Vec<&str> = out.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(
        words,
        ["PASS", "PASS", "FAIL", "PASS", "PASS", "4"],
        "{out}"
    );
    assert!(
        out.lines().next().unwrap().ends_with("a_slow.amber"),
        "{out}"
    );
    assert!(out.contains("c_wrong.amber:15: EXPECT d IDX 0"), "{out}");
    assert!(out.ends_with("4 passed, 1 failed, 0 skipped\n"), "{out}");
    for o in &outputs[1..] {
        assert_eq!(o, out, "the output depends on -j");
    }
    // JSON keeps the files' order too.
    let o = halc()
        .args([
            "test",
            "--json",
            "-j",
            "3",
            "--no-glslc-cache",
            "--glslc",
            &glslc_arg,
        ])
        .args(&files)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let listed: Vec<&str> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["file"].as_str().unwrap())
        .collect();
    assert_eq!(listed, files.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(v["failed"], 1);
}

/// A crash while one test runs is that test's failure, naming the signal;
/// the tests before and after it still run and pass.
#[cfg(unix)]
#[test]
fn a_crash_while_a_test_runs_fails_that_test_only() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let glslc = watching_glslc(dir.path()).display().to_string();
    let files = [
        marked_test(dir.path(), "a.amber", "-", 11),
        marked_test(dir.path(), "b_crash.amber", "CRASH", 11),
        marked_test(dir.path(), "c.amber", "-", 11),
    ];
    for jobs in ["1", "2"] {
        let (code, out) = run(&["--no-glslc-cache", "--glslc", &glslc, "-j", jobs], &files);
        assert_eq!(code, 1, "-j {jobs}:\n{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(
            lines[0].starts_with("PASS ") && lines[2].starts_with("PASS "),
            "{out}"
        );
        assert_eq!(
            lines[1],
            format!(
                "FAIL {}: the process running this test ended with signal 6 (Aborted) before it finished",
                files[1]
            ),
            "{out}"
        );
        assert_eq!(lines[3], "2 passed, 1 failed, 0 skipped", "{out}");
    }
}

/// Without `-j`, `halc test` runs a file per core, and under a make or
/// cargo jobserver one on its own token and one more per token it takes,
/// all given back at the end.
#[cfg(target_os = "linux")]
#[test]
fn test_files_run_as_a_jobserver_grants() {
    if !tools() {
        return;
    }
    let cores = std::thread::available_parallelism().unwrap().get();
    assert!(cores >= 2, "this test needs two cores");
    let dir = tempfile::tempdir().unwrap();
    let glslc = watching_glslc(dir.path()).display().to_string();
    let files: Vec<String> = (0..4)
        .map(|i| marked_test(dir.path(), &format!("t{i}.amber"), "-", 11))
        .collect();
    let test = |setup: &dyn Fn(&mut Command)| {
        let mut cmd = halc();
        cmd.args(["test", "--no-glslc-cache", "--glslc", &glslc])
            .args(&files);
        for var in ["CARGO_MAKEFLAGS", "MAKEFLAGS", "MFLAGS"] {
            cmd.env_remove(var);
        }
        setup(&mut cmd);
        let o = cmd.output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(o.status.success(), "{out}");
        assert!(out.ends_with("4 passed, 0 failed, 0 skipped\n"), "{out}");
        crate::build::most_at_once(dir.path())
    };
    assert_eq!(test(&|_| {}), cores.min(files.len()), "no jobserver");
    for tokens in [0, 1] {
        let client = jobserver::Client::new(tokens).unwrap();
        assert_eq!(
            test(&|cmd| client.configure_make(cmd)),
            1 + tokens,
            "{tokens} tokens"
        );
        assert_eq!(client.available().unwrap(), tokens, "tokens given back");
    }
}

/// `halc diff --seeds N` runs seeds at once, each in a process of its own
/// (`-j`): as many seed processes as asked run side by side (counted in
/// `/proc` while it runs), and the lines are those of one seed at a time,
/// in seed order.
#[cfg(target_os = "linux")]
#[test]
fn diff_runs_seeds_at_once_and_reports_in_seed_order() {
    if !tools() || !vulkan() {
        return;
    }
    let saxpy = crate::kernel("saxpy.spv");
    let diff = |jobs: &str| {
        let mut child = halc()
            .args(["diff", "--seeds", "8", "-j", jobs])
            .arg(&saxpy)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The seed processes are halc's only children (the Vulkan
        // reference and the dispatches are theirs).
        let children = format!("/proc/{0}/task/{0}/children", child.id());
        let mut most = 0;
        while child.try_wait().unwrap().is_none() {
            let now = std::fs::read_to_string(&children)
                .map(|s| s.split_whitespace().count())
                .unwrap_or(0);
            most = most.max(now);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "-j {jobs}");
        (String::from_utf8(o.stdout).unwrap(), most)
    };
    let (one, most_one) = diff("1");
    let (three, most_three) = diff("3");
    assert_eq!(most_one, 1, "-j 1: seed processes at once");
    assert!((2..=3).contains(&most_three), "-j 3: {most_three} at once");
    let seeds: Vec<&str> = one
        .lines()
        .map(|l| {
            assert!(l.starts_with("AGREE "), "{one}");
            l.split(": ").next().unwrap().rsplit(' ').next().unwrap()
        })
        .collect();
    assert_eq!(seeds, ["1", "2", "3", "4", "5", "6", "7", "8"], "{one}");
    assert_eq!(three, one, "the lines depend on -j");
}

/// `halc test` keeps glslc's output by the shader's text (and glslc, its
/// arguments): a second run of the same file runs glslc for nothing and
/// reports the same; an edited shader runs it again; `--no-glslc-cache`
/// runs it every time.
#[cfg(unix)]
#[test]
fn test_keeps_glslc_outputs_by_the_shaders_text() {
    if !tools() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let wrapper = crate::glsl_cli::counting_glslc(dir);
    let amber = |value: u32| {
        format!(
            "#!amber\nSHADER compute k GLSL\n#version 450\nlayout(local_size_x = 4) in;\n\
             layout(set = 0, binding = 0) buffer B {{ uint v[]; }} b;\n\
             void main() {{ b.v[gl_GlobalInvocationID.x] = {value}u + gl_GlobalInvocationID.x; }}\n\
             END\nBUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0\n\
             PIPELINE compute p\n  ATTACH k\n  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n\
             RUN p 1 1 1\nEXPECT buf IDX 0 EQ 7 8 9 10\n"
        )
    };
    std::fs::write(dir.join("t.amber"), amber(7)).unwrap();
    let runs = || crate::glsl_cli::glslc_runs(dir);
    let cache = dir.join("cache");
    let test = |extra: &[&str]| {
        let mut args = vec![
            "test",
            "t.amber",
            "--glslc",
            wrapper.to_str().unwrap(),
            "--glslc-cache",
            cache.to_str().unwrap(),
        ];
        if extra.contains(&"--no-glslc-cache") {
            args.truncate(4);
        }
        args.extend_from_slice(extra);
        let o = halc().args(&args).current_dir(dir).output().unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
    };
    let first = test(&[]);
    assert_eq!(runs(), 1, "{first}");
    let second = test(&[]);
    assert_eq!(
        runs(),
        1,
        "the second run took glslc's output from the cache"
    );
    assert_eq!(second, first, "the same outcome from the kept SPIR-V");
    // Another text is another entry; the old one stays valid.
    std::fs::write(dir.join("t.amber"), amber(8)).unwrap();
    let edited = test(&[]);
    assert_eq!(runs(), 2, "{edited}");
    assert_ne!(
        edited, first,
        "the edited shader computes 8.., which the EXPECT refuses"
    );
    // Without the cache glslc runs every time.
    test(&["--no-glslc-cache"]);
    test(&["--no-glslc-cache"]);
    assert_eq!(runs(), 4);
}
