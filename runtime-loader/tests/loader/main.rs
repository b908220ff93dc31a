//! Linux-testable part of runtime-loader: load-time verification, dispatch
//! plans, robustness against arbitrary bytes, the storage-mode policy.

#[path = "../common/mod.rs"]
mod common;

mod fuzz;
mod plan;
mod verify;

use runtime_loader::memory::{storage_mode, MemoryType, Os, StorageMode};

#[test]
fn storage_modes_follow_the_seed_design() {
    use MemoryType::*;
    for unified in [false, true] {
        for os in [Os::MacOS, Os::Other] {
            assert_eq!(storage_mode(DeviceLocal, os, unified), StorageMode::Private);
            assert_eq!(storage_mode(HostVisible, os, unified), StorageMode::Shared);
        }
        assert_eq!(
            storage_mode(DeviceLocalHostVisible, Os::Other, unified),
            StorageMode::Shared
        );
    }
    assert_eq!(
        storage_mode(DeviceLocalHostVisible, Os::MacOS, false),
        StorageMode::Managed
    );
    assert_eq!(
        storage_mode(DeviceLocalHostVisible, Os::MacOS, true),
        StorageMode::Shared
    );
}

#[cfg(not(target_vendor = "apple"))]
#[test]
fn metal_entry_points_report_unavailable() {
    use runtime_loader::metal::{self, Device, MetalError};
    assert!(!metal::is_available());
    assert!(matches!(
        Device::system_default(),
        Err(MetalError::Unavailable)
    ));
    assert!(matches!(Device::all(), Err(MetalError::Unavailable)));
    let err = Device::with_name("Apple M1").unwrap_err();
    assert_eq!(err.to_string(), "Metal is not available on this platform");
}

/// Every `.halc` under `HALC_FIXTURES_DIR` (recursively; `halc compile`
/// outputs of the fixtures) loads, and every kernel in it plans with
/// bindings shaped by its own layout. Without the variable there is nothing
/// to check, and the test says so.
#[test]
fn compiled_fixtures_load_and_plan() {
    use runtime_loader::plan::{
        Bindings, BufferBinding, DispatchPlan, Grid, Resource, Specialization,
    };
    use runtime_loader::schema::BindingKind;
    use runtime_loader::OwnedExecutable;

    let Some(dir) = std::env::var_os("HALC_FIXTURES_DIR") else {
        eprintln!("HALC_FIXTURES_DIR is not set: no compiled fixtures to check");
        return;
    };
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(&dir)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "halc") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no .halc files under {dir:?}");
    let mut kernels = 0;
    for path in &files {
        let owned =
            OwnedExecutable::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for k in owned.executable().entry_points() {
            let mut b = Bindings::new();
            for binding in k.bindings() {
                let resource = |i: u32| match binding.kind() {
                    BindingKind::StorageBuffer | BindingKind::UniformBuffer => {
                        Resource::Buffer(BufferBinding {
                            gpu_address: 0x1_0000_0000 * u64::from(i + 1),
                            offset: 0,
                            length: binding.min_size().max(4096),
                        })
                    }
                    BindingKind::Sampler => Resource::Sampler { resource_id: 1 },
                    BindingKind::CombinedImageSampler => Resource::CombinedImageSampler {
                        texture_id: 2,
                        sampler_id: 1,
                    },
                    _ => Resource::Texture { resource_id: 2 },
                };
                b.bind_array(
                    binding.set(),
                    binding.binding(),
                    (0..binding.count()).map(resource),
                );
            }
            let push = vec![0; k.push_constants().map_or(0, |p| p.size as usize)];
            let spec = Specialization::defaults(&k);
            DispatchPlan::new(&k, &spec, &b, &push, Grid::Threads([1000, 1, 1]))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            kernels += 1;
        }
    }
    eprintln!(
        "{} files, {kernels} kernels loaded and planned",
        files.len()
    );
}
