//! Which Metal storage mode a buffer gets: the policy of IREE's Metal HAL
//! (seed design, "Memory management"), as a pure function so it is tested on
//! every platform.

/// Who needs to see a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryType {
    /// Only the GPU (`DeviceLocal` without `HostVisible`): fastest, no host
    /// access; fill and read it with blit copies.
    DeviceLocal,
    /// GPU-resident but also mapped on the host (`DeviceLocal | HostVisible`).
    DeviceLocalHostVisible,
    /// Host memory the GPU can reach (`HostVisible`, not `DeviceLocal`):
    /// staging and readback.
    HostVisible,
}

/// `MTLStorageMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageMode {
    /// `MTLStorageModePrivate`: GPU only.
    Private,
    /// `MTLStorageModeShared`: one copy, coherent for host and GPU.
    Shared,
    /// `MTLStorageModeManaged` (macOS only): a host and a GPU copy; host
    /// writes need `didModifyRange:`, host reads a blit
    /// `synchronizeResource:` after GPU writes.
    Managed,
}

/// The OS family, for the one rule that depends on it (managed storage
/// exists only on macOS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// macOS (and Mac Catalyst).
    MacOS,
    /// iOS, tvOS, visionOS.
    Other,
}

impl Os {
    /// The OS this crate was compiled for.
    pub fn current() -> Self {
        if cfg!(any(target_os = "macos", target_env = "macabi")) {
            Os::MacOS
        } else {
            Os::Other
        }
    }
}

/// The storage mode for `memory`:
/// - `DeviceLocal` → private;
/// - `DeviceLocal | HostVisible` → managed on macOS with a discrete GPU
///   (no unified memory), else shared (on unified memory a managed buffer
///   is only extra bookkeeping);
/// - `HostVisible` → shared.
pub fn storage_mode(memory: MemoryType, os: Os, unified_memory: bool) -> StorageMode {
    match memory {
        MemoryType::DeviceLocal => StorageMode::Private,
        MemoryType::DeviceLocalHostVisible if os == Os::MacOS && !unified_memory => {
            StorageMode::Managed
        }
        MemoryType::DeviceLocalHostVisible | MemoryType::HostVisible => StorageMode::Shared,
    }
}
