//! The Groups capability (GL_AMD_shader_ballot, and OpGroupAll/Any/
//! Broadcast in assembly) through halc's rewrite to GroupNonUniform
//! instructions (`src/spirv/groups.rs`): what the executable records, the
//! iOS MSL, the Amber test's negative controls, and what the Vulkan
//! reference (which no device here can run it on) says.

use halc::msl::{LayoutOptions, Platform};
use halc::Options;

use crate::{input, kernel};

/// The executable records the rewritten module: GroupNonUniform
/// capabilities, no Groups, and every kernel counts as using subgroups.
#[test]
fn the_executable_records_the_group_non_uniform_capabilities() {
    for (name, caps) in [
        (
            "groups_amd.spv",
            &["Shader", "GroupNonUniform", "GroupNonUniformArithmetic"][..],
        ),
        (
            "groups_vote_broadcast.spv",
            &[
                "Shader",
                "GroupNonUniform",
                "GroupNonUniformVote",
                "GroupNonUniformBallot",
                "GroupNonUniformShuffle",
            ],
        ),
    ] {
        let compiled = halc::compile(&[input(&kernel(name))], &Options::default()).unwrap();
        let k = &compiled.kernels[0];
        assert_eq!(k.capabilities, caps, "{name}");
        assert!(k.uses_subgroups(), "{name}");
        let view = halc::inspect::decode(&compiled.to_flatbuffer()).unwrap();
        let json = serde_json::to_value(&view).unwrap();
        let recorded = json["kernels"][0]["capabilities"].clone();
        assert_eq!(recorded, serde_json::json!(caps), "{name}");
    }
}

/// iOS (MSL 3.0, SIMD-group functions): the sums and scans are
/// `simd_sum` / `simd_prefix_*_sum`, not the quad-group fallbacks.
#[test]
fn groups_fixtures_on_ios_use_simd_group_functions() {
    let ios = Options {
        layout: LayoutOptions {
            platform: Platform::IOS,
            ..Default::default()
        },
        ..Default::default()
    };
    crate::snapshot_settings().bind(|| {
        for name in ["groups_amd", "groups_vote_broadcast"] {
            let compiled = halc::compile(&[input(&kernel(&format!("{name}.spv")))], &ios).unwrap();
            let msl = &compiled.kernels[0].msl.source;
            assert!(!msl.contains("quad_"), "{name}:\n{msl}");
            insta::assert_snapshot!(format!("{name}.main.ios.msl"), msl);
        }
    });
    let compiled = halc::compile(&[input(&kernel("groups_amd.spv"))], &ios).unwrap();
    let msl = &compiled.kernels[0].msl.source;
    for f in [
        "simd_sum(",
        "simd_prefix_inclusive_sum(",
        "simd_prefix_exclusive_sum(",
        "simd_min(",
        "simd_max(",
    ] {
        assert!(msl.contains(f), "{f}:\n{msl}");
    }
}

/// The Amber test's shaders are the fixtures' sources, so the snapshots
/// and the run check the same kernels.
#[test]
fn the_amber_test_runs_the_fixtures() {
    let amber =
        std::fs::read_to_string(crate::root().join("tests/amber/groups_amd.amber")).unwrap();
    let glsl = std::fs::read_to_string(kernel("groups_amd.comp")).unwrap();
    assert!(
        amber.contains(&format!("SHADER compute k GLSL\n{glsl}END\n")),
        "groups_amd.comp differs from the Amber test's shader k"
    );
    let asm = std::fs::read_to_string(kernel("groups_vote_broadcast.spvasm")).unwrap();
    let body: Vec<&str> = asm.lines().filter(|l| !l.starts_with(';')).collect();
    assert!(
        amber.contains(&format!(
            "SHADER compute vb SPIRV-ASM TARGET_ENV spv1.0\n{}\nEND\n",
            body.join("\n")
        )),
        "groups_vote_broadcast.spvasm differs from the Amber test's shader vb"
    );
}

#[cfg(unix)]
mod runs {
    use crate::amber::{halc, tools, vulkan};

    const TEST: &str = "tests/amber/groups_amd.amber";

    fn run(args: &[&str], file: &str) -> (i32, String) {
        let o = halc().arg("test").args(args).arg(file).output().unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.is_empty(), "{err}");
        (
            o.status.code().unwrap(),
            String::from_utf8(o.stdout).unwrap(),
        )
    }

    /// Negative controls: the Amber test fails when a group operation is
    /// the wrong one, as a rewrite that kept the instruction but lost its
    /// operation (Reduce for InclusiveScan) or swapped the scans in a
    /// divergent branch would make it. Each mutation is the GLSL whose
    /// Groups instruction is exactly that wrong rewrite's.
    #[test]
    fn a_wrong_group_operation_fails_the_amber_test() {
        if !tools() {
            return;
        }
        let text = std::fs::read_to_string(crate::root().join(TEST)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for (from, to, reason) in [
            // OpGroupIAdd InclusiveScan → Reduce: thread 0 gets the sum.
            (
                "o[base + 1u] = addInvocationsInclusiveScanAMD(x);",
                "o[base + 1u] = addInvocationsAMD(x);",
                "EXPECT o IDX 0: value 1 (byte 4, uint32): expected == 1, got 528",
            ),
            // OpGroupIAddNonUniformAMD ExclusiveScan → InclusiveScan among
            // the even lanes: thread 0 counts itself.
            (
                "o[base + 13u] = addInvocationsExclusiveScanNonUniformAMD(x);",
                "o[base + 13u] = addInvocationsInclusiveScanNonUniformAMD(x);",
                "EXPECT o IDX 0: value 13 (byte 52, uint32): expected == 0, got 1",
            ),
            // OpGroupFAdd ExclusiveScan → Reduce.
            (
                "o[base + 5u] = uint(addInvocationsExclusiveScanAMD(f));",
                "o[base + 5u] = uint(addInvocationsAMD(f));",
                "EXPECT o IDX 0: value 5 (byte 20, uint32): expected == 0, got 528",
            ),
        ] {
            assert_eq!(text.matches(from).count(), 1, "{from}");
            let path = dir.path().join("mutant.amber");
            std::fs::write(&path, text.replace(from, to)).unwrap();
            let (code, out) = run(&[], path.to_str().unwrap());
            assert_eq!(code, 1, "{to}:\n{out}");
            assert!(out.contains(reason), "{to}: expected `{reason}` in:\n{out}");
        }
        // Unmutated, it passes in both binding models and on iOS.
        for args in [
            &[][..],
            &["--bindings", "discrete"],
            &["--platform", "ios"],
            &["--msl-version", "2.3"],
        ] {
            let (code, out) = run(args, TEST);
            assert_eq!(code, 0, "{args:?}:\n{out}");
            assert_eq!(out, format!("PASS {TEST}\n1 passed, 0 failed, 0 skipped\n"));
        }
    }

    /// The same, one step later: the rewritten module's first inclusive
    /// scan, `simd_prefix_inclusive_sum` in the MSL, turned into the
    /// reduce `simd_sum` before the CPU backend runs it.
    #[test]
    fn an_inclusive_scan_run_as_a_reduce_is_caught() {
        use halc::amber::run::{run, Outcome, RunOptions, Sides};
        if !tools() {
            return;
        }
        let text = std::fs::read_to_string(crate::root().join(TEST)).unwrap();
        let device = halc::runtime_loader::cpu::Device::new().unwrap();
        let tamper: fn(&mut halc::Compiled) = |c| {
            for k in &mut c.kernels {
                k.msl.source = k
                    .msl
                    .source
                    .replacen("simd_prefix_inclusive_sum(", "simd_sum(", 1);
            }
        };
        for (tamper, want) in [
            (None, None),
            (
                Some(tamper),
                Some("EXPECT o IDX 0: value 1 (byte 4, uint32): expected == 1, got 528"),
            ),
        ] {
            let opts = RunOptions {
                sides: Sides::MetalOnCpu,
                tamper,
                ..Default::default()
            };
            match (run(TEST, &text, Some(&device), &opts), want) {
                (Outcome::Pass, None) => {}
                (Outcome::Fail(m), Some(w)) => assert!(m.contains(w), "expected `{w}` in: {m}"),
                (other, _) => panic!("tampered: {}: {other:?}", tamper.is_some()),
            }
        }
    }

    /// lavapipe lacks VK_AMD_shader_ballot (and still runs the Groups
    /// instructions it is given): the Vulkan reference must not run the
    /// module. `--reference vulkan` and `--compare` skip the test naming
    /// the capability, and `halc diff` leaves the kernels uncompared.
    #[test]
    fn the_vulkan_reference_skips_groups_naming_the_capability() {
        if !tools() || !vulkan() {
            return;
        }
        let reason = "a shader declares capability Groups, which needs the device extension VK_AMD_shader_ballot, and device";
        for args in [&["--reference", "vulkan"][..], &["--compare"]] {
            let (code, out) = run(args, TEST);
            assert_eq!(code, 0, "{args:?}:\n{out}");
            assert!(
                out.starts_with(&format!("SKIP {TEST}: vulkan: {reason}"))
                    && out.ends_with("0 passed, 0 failed, 1 skipped\n"),
                "{args:?}:\n{out}"
            );
        }
        for name in ["groups_amd", "groups_vote_broadcast"] {
            let o = halc()
                .args(["diff", "--seeds", "2"])
                .arg(format!("fixtures/kernels/{name}.spv"))
                .output()
                .unwrap();
            let out = String::from_utf8(o.stdout).unwrap();
            assert_eq!(o.status.code(), Some(0), "{name}: {out}");
            assert_eq!(out.lines().count(), 2, "{name}: {out}");
            assert!(
                out.lines().all(|l| l.starts_with("INCONCLUSIVE ")
                    && l.contains("the module declares capability Groups, which needs the device extension VK_AMD_shader_ballot")),
                "{name}: {out}"
            );
        }
    }
}
