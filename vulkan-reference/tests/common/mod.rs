//! Shared test helpers: a `Reference` or a skip, kernels, byte views.
#![allow(dead_code)]

use vulkan_reference::{Error, Reference, ReferenceOptions};

/// A `Reference` on lavapipe with `features`, or `None` (printing why)
/// when this machine has no Vulkan driver, unless `HALC_REQUIRE_VULKAN=1`.
pub fn reference(features: &[&str]) -> Option<Reference> {
    let options = ReferenceOptions {
        features: features.iter().map(|s| s.to_string()).collect(),
        ..ReferenceOptions::default()
    };
    match Reference::new(&options) {
        Ok(r) => Some(r),
        Err(
            e @ (Error::NoVulkan { .. } | Error::NoDevice { .. } | Error::DeviceNotFound { .. }),
        ) => {
            if std::env::var("HALC_REQUIRE_VULKAN").as_deref() == Ok("1") {
                panic!("HALC_REQUIRE_VULKAN=1 but: {e}");
            }
            eprintln!("SKIPPED: no Vulkan driver: {e}");
            None
        }
        Err(e) => panic!("Reference::new: {e}"),
    }
}

/// SPIR-V words of `fixtures/kernels/NAME` (the repository's kernels) or,
/// with a `tests/` prefix, of this crate's `tests/kernels/NAME`.
pub fn kernel(name: &str) -> Vec<u32> {
    let path = match name.strip_prefix("tests/") {
        Some(n) => format!("{}/tests/kernels/{n}", env!("CARGO_MANIFEST_DIR")),
        None => format!("{}/../fixtures/kernels/{name}", env!("CARGO_MANIFEST_DIR")),
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
