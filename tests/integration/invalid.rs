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
