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
    assert!(matches!(Device::new(), Err(MetalError::Unavailable)));
    assert!(matches!(Device::all(), Err(MetalError::Unavailable)));
    let err = Device::with_name("Apple M1").unwrap_err();
    assert_eq!(err.to_string(), "Metal is not available on this platform");
}
