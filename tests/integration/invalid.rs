//! Every input under fixtures/invalid/ gives its expected one-line error and
//! exit code, and leaves an existing output file untouched and no new file,
//! with the validator in the worker that runs SPIRV-Cross or in one of its
//! own (where SPIRV-Cross sees the module before the verdict, and crashes
//! on some: `mutant_crashes_spirv_cross.spv`).

use std::process::Command;

#[test]
fn invalid_inputs_fail_cleanly() {
    crate::snapshot_settings().bind(|| {
        insta::glob!("../../fixtures", "invalid/*.spv", |path| {
            let rel = format!(
                "fixtures/invalid/{}",
                path.file_name().unwrap().to_string_lossy()
            );
            let dir = tempfile::tempdir().unwrap();
            let existing = dir.path().join("existing.halc");
            std::fs::write(&existing, b"keep me").unwrap();
            let fresh = dir.path().join("fresh.halc");
            let mut first = None;
            // In this process under crash handlers (the default for one
            // module), and in forked workers with either validator place.
            for validator in ["guarded", "shared", "separate"] {
                for out in [&existing, &fresh] {
                    let mut cmd = Command::new(env!("CARGO_BIN_EXE_halc"));
                    cmd.args(["compile", &rel, "-o", out.to_str().unwrap()]);
                    if validator == "guarded" {
                        cmd.env_remove(halc::msl::worker::VALIDATOR_ENV);
                    } else {
                        cmd.args(["--worker-start", "fork"])
                            .env(halc::msl::worker::VALIDATOR_ENV, validator);
                    }
                    let o = cmd.current_dir(crate::root()).output().unwrap();
                    let err = String::from_utf8_lossy(&o.stderr).to_string();
                    assert_eq!(o.status.code(), Some(1), "{rel}, {validator}: {err}");
                    assert_eq!(err.trim_end().lines().count(), 1, "{rel}: {err}");
                    let line = format!("exit {}: {}", o.status.code().unwrap(), err.trim_end());
                    match &first {
                        None => {
                            insta::assert_snapshot!(line.clone());
                            first = Some(line);
                        }
                        Some(f) => assert_eq!(&line, f, "{rel}, {validator}"),
                    }
                }
            }
            assert_eq!(
                std::fs::read(&existing).unwrap(),
                b"keep me",
                "{rel}: clobbered"
            );
            assert!(!fresh.exists(), "{rel}: output created");
            let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
            assert_eq!(left.len(), 1, "{rel}: temp files left behind");
        });
    });
}

/// A signed min on an unsigned storage image (SPIR-V allows it): with
/// Metal's texture atomics (MSL 3.1 on) SPIRV-Cross would reinterpret the
/// texture as `texture2d<int>`, outside Metal's specification, so halc
/// refuses it in one line naming the MSL, and writes nothing. Controls: the
/// unsigned min on the same image compiles at 3.1, and the signed one
/// compiles at 3.0 (the emulation through the image's buffer).
#[test]
fn a_signed_atomic_on_an_unsigned_image_is_refused_with_texture_atomics() {
    let dir = tempfile::tempdir().unwrap();
    let module = |name: &str, op: &str| {
        let asm = dir.path().join(format!("{name}.spvasm"));
        std::fs::write(
            &asm,
            format!(
                "OpCapability Shader
                 OpMemoryModel Logical GLSL450
                 OpEntryPoint GLCompute %main \"main\"
                 OpExecutionMode %main LocalSize 1 1 1
                 OpDecorate %img DescriptorSet 0
                 OpDecorate %img Binding 0
                 %void = OpTypeVoid
                 %fn = OpTypeFunction %void
                 %uint = OpTypeInt 32 0
                 %int = OpTypeInt 32 1
                 %v2int = OpTypeVector %int 2
                 %image = OpTypeImage %uint 2D 0 0 0 2 R32ui
                 %pimage = OpTypePointer UniformConstant %image
                 %img = OpVariable %pimage UniformConstant
                 %ptexel = OpTypePointer Image %uint
                 %int_0 = OpConstant %int 0
                 %coord = OpConstantComposite %v2int %int_0 %int_0
                 %uint_0 = OpConstant %uint 0
                 %uint_1 = OpConstant %uint 1
                 %main = OpFunction %void None %fn
                 %entry = OpLabel
                 %p = OpImageTexelPointer %ptexel %img %coord %uint_0
                 %r = {op} %uint %p %uint_1 %uint_0 %uint_1
                 OpReturn
                 OpFunctionEnd
                 "
            ),
        )
        .unwrap();
        let spv = dir.path().join(format!("{name}.spv"));
        let ok = Command::new("spirv-as")
            .args(["--target-env", "vulkan1.0"])
            .arg(&asm)
            .arg("-o")
            .arg(&spv)
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(spv)
    };
    let Some(signed) = module("smin", "OpAtomicSMin") else {
        eprintln!("spirv-as not found: skipped");
        return;
    };
    let unsigned = module("umin", "OpAtomicUMin").unwrap();
    let compile = |spv: &std::path::Path, msl: &str| {
        let out = dir.path().join("out.halc");
        let _ = std::fs::remove_file(&out);
        let o = Command::new(env!("CARGO_BIN_EXE_halc"))
            .args(["compile", "--msl-version", msl])
            .arg(spv)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
            out.exists(),
        )
    };
    let (code, err, written) = compile(&signed, "3.1");
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("a signed atomic min or max on an unsigned storage image")
            && err.contains("spvTextureCast<texture2d<int, access::read_write>>"),
        "{err}"
    );
    assert!(!written);
    for (spv, msl) in [(&unsigned, "3.1"), (&signed, "3.0")] {
        let (code, err, written) = compile(spv, msl);
        assert_eq!(code, Some(0), "{}, MSL {msl}: {err}", spv.display());
        assert!(written);
    }
}
