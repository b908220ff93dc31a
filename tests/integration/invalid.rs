//! Every input under fixtures/invalid/ gives its expected one-line error and
//! exit code, and leaves an existing output file untouched and no new file.

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
            for out in [&existing, &fresh] {
                let o = Command::new(env!("CARGO_BIN_EXE_halc"))
                    .args(["compile", &rel, "-o", out.to_str().unwrap()])
                    .current_dir(crate::root())
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&o.stderr).to_string();
                assert_eq!(o.status.code(), Some(1), "{rel}: {err}");
                assert_eq!(err.trim_end().lines().count(), 1, "{rel}: {err}");
                if out == &existing {
                    insta::assert_snapshot!(format!(
                        "exit {}: {}",
                        o.status.code().unwrap(),
                        err.trim_end()
                    ));
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
