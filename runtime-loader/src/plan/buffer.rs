//! The rules a bound buffer range must satisfy: offset alignment, no
//! address overflow, the binding's minimum size.

use super::{BufferBinding, PlanError, ResourceKey};
use crate::kernel::Kernel;
use crate::schema::{BindingKind, Platform};

/// Offset alignment for storage buffers: Apple's rule for device-address
/// buffers is the alignment of the data the kernel reads, "always less than
/// or equal to 16 bytes"; the format does not record the type, so 16.
pub const STORAGE_BUFFER_OFFSET_ALIGNMENT: u64 = 16;

/// Offset alignment for uniform buffers (Metal's constant address space):
/// 256 bytes on macOS, 16 on iOS (Apple's `setBuffer:offset:atIndex:`).
pub fn uniform_buffer_offset_alignment(platform: Platform) -> u64 {
    if platform == Platform::MacOS {
        256
    } else {
        16
    }
}

pub(super) fn check_buffer(
    kernel: &Kernel<'_>,
    platform: Platform,
    b: crate::Binding<'_>,
    key: ResourceKey,
    buf: &BufferBinding,
) -> Result<(), PlanError> {
    let name = || kernel.name().to_owned();
    let alignment = if b.kind() == BindingKind::UniformBuffer {
        uniform_buffer_offset_alignment(platform)
    } else {
        STORAGE_BUFFER_OFFSET_ALIGNMENT
    };
    if buf.offset % alignment != 0 {
        return Err(PlanError::MisalignedOffset {
            kernel: name(),
            key,
            offset: buf.offset,
            alignment,
        });
    }
    if buf
        .gpu_address
        .checked_add(buf.offset)
        .and_then(|a| a.checked_add(buf.length))
        .is_none()
    {
        return Err(PlanError::AddressOverflow {
            kernel: name(),
            key,
            gpu_address: buf.gpu_address,
            offset: buf.offset,
            length: buf.length,
        });
    }
    if buf.length < b.min_size() {
        return Err(PlanError::BufferTooSmall {
            kernel: name(),
            key,
            length: buf.length,
            min_size: b.min_size(),
        });
    }
    Ok(())
}
