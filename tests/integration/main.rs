//! halc's integration tests: one binary, with a temp-dir helper.

#[cfg(unix)]
mod amber;
mod build;
mod cli;
mod contract;
mod corpus;
#[cfg(unix)]
mod cpu;
#[cfg(unix)]
mod cpu_images;
#[cfg(unix)]
mod cpu_ray_query;
#[cfg(unix)]
mod descriptor_indexing;
#[cfg(unix)]
mod diff_arrays;
#[cfg(unix)]
mod diff_races;
#[cfg(unix)]
mod diff_undefined;
mod docs;
mod fixtures;
mod glsl_cli;
mod groups;
mod invalid;
mod jobserver;
mod layout;
mod manifest;
mod metallib;
mod parallel;
mod roundtrip;
mod tour;

use std::path::{Path, PathBuf};

/// insta settings shared by every snapshot test: snapshots in tests/snapshots.
pub fn snapshot_settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

/// Default options in binding model `model`.
pub fn options_for(model: halc::msl::BindingModel) -> halc::Options {
    halc::Options {
        layout: halc::msl::LayoutOptions {
            model,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fixture kernel's path.
pub fn kernel(name: &str) -> PathBuf {
    root().join("fixtures/kernels").join(name)
}

/// Reads a fixture as a compiler input.
pub fn input(path: &Path) -> halc::Input {
    halc::Input::new(
        format!(
            "fixtures/kernels/{}",
            path.file_name().unwrap().to_string_lossy()
        ),
        std::fs::read(path).unwrap(),
    )
}

/// Every fixture kernel (`.spv`); all of them compile.
pub fn compute_fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/kernels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "spv"))
        .collect();
    v.sort();
    v
}

/// The pids of the processes whose environment holds `marker` (`NAME=value`).
#[cfg(target_os = "linux")]
pub fn carrying_marker(marker: &str) -> Vec<libc::pid_t> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            let pid = e.file_name().to_str()?.parse().ok()?;
            let env = std::fs::read(e.path().join("environ")).ok()?;
            env.split(|b| *b == 0)
                .any(|v| v == marker.as_bytes())
                .then_some(pid)
        })
        .collect()
}

/// [`carrying_marker`] once `done` holds of it, or when `limit` has passed.
#[cfg(target_os = "linux")]
pub fn wait_for_marked(
    marker: &str,
    limit: std::time::Duration,
    done: impl Fn(&Vec<libc::pid_t>) -> bool,
) -> Vec<libc::pid_t> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let marked = carrying_marker(marker);
        if done(&marked) || std::time::Instant::now() >= deadline {
            return marked;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
