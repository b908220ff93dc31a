//! `MTLBuffer` with its storage mode and bounds-checked host access.

use std::ptr::NonNull;

use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2_foundation::NSRange;
use objc2_metal::{MTLBuffer, MTLDevice};

use super::conv;
use super::MetalError;
use crate::memory::StorageMode;

/// A Metal buffer.
///
/// Host access ([`Buffer::write`], [`Buffer::read`]) copies bytes; ordering
/// it against GPU work (waiting for a submission or a semaphore first) is the
/// caller's job, as with any mapped GPU memory. A managed buffer written by
/// the GPU needs [`super::CommandBuffer::synchronize`] before the host reads
/// it.
#[derive(Debug, Clone)]
pub struct Buffer {
    raw: Retained<ProtocolObject<dyn MTLBuffer>>,
    mode: StorageMode,
}

impl Buffer {
    pub(super) fn new(
        device: &ProtocolObject<dyn MTLDevice>,
        len: u64,
        mode: StorageMode,
    ) -> Result<Buffer, MetalError> {
        if len == 0 {
            return Err(MetalError::ZeroLength);
        }
        let creation = || MetalError::Creation {
            what: format!("a {len}-byte buffer"),
        };
        let len = usize::try_from(len).map_err(|_| creation())?;
        let raw = device
            .newBufferWithLength_options(len, conv::map_storage_mode(mode))
            .ok_or_else(creation)?;
        Ok(Buffer { raw, mode })
    }

    /// Wraps a buffer created elsewhere (storage mode as given).
    pub fn from_raw(raw: Retained<ProtocolObject<dyn MTLBuffer>>, mode: StorageMode) -> Buffer {
        Buffer { raw, mode }
    }

    /// The `MTLBuffer`.
    pub fn raw(&self) -> &ProtocolObject<dyn MTLBuffer> {
        &self.raw
    }

    pub(super) fn retained(&self) -> Retained<ProtocolObject<dyn MTLBuffer>> {
        self.raw.clone()
    }

    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.raw.length() as u64
    }

    /// Whether the buffer is empty (never: Metal has no empty buffers).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `self` and `other` are the same buffer.
    pub fn same(&self, other: &Buffer) -> bool {
        std::ptr::eq(self.raw(), other.raw())
    }

    /// Its storage mode.
    pub fn storage_mode(&self) -> StorageMode {
        self.mode
    }

    /// Whether the host can read and write it.
    pub fn is_host_visible(&self) -> bool {
        self.mode != StorageMode::Private
    }

    /// `MTLBuffer.gpuAddress` (Metal 3 devices, macOS 13 / iOS 16).
    pub fn gpu_address(&self) -> u64 {
        self.raw.gpuAddress()
    }

    fn host_range(&self, offset: u64, len: usize) -> Result<NonNull<u8>, MetalError> {
        if !self.is_host_visible() {
            return Err(MetalError::NotHostVisible);
        }
        let end = offset.checked_add(len as u64);
        match end {
            Some(end) if end <= self.len() => {
                // `offset < len() <= isize::MAX` here, so the add stays in the
                // allocation.
                let base = self.raw.contents().cast::<u8>();
                // SAFETY: `contents` points to the buffer's `len()` bytes of
                // host-visible storage; `offset + len <= len()` was checked
                // just above, so the result is inside (or one past) it.
                Ok(unsafe { base.add(offset as usize) })
            }
            _ => Err(MetalError::HostAccessOutOfBounds {
                offset,
                end: end.unwrap_or(u64::MAX),
                len: self.len(),
            }),
        }
    }

    /// Copies `data` into the buffer at `offset` (shared or managed buffers;
    /// a managed buffer is told which range changed).
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<(), MetalError> {
        let dst = self.host_range(offset, data.len())?;
        // SAFETY: `dst` is valid for `data.len()` bytes (checked by
        // `host_range`), and Metal-owned memory cannot overlap `data`, a Rust
        // slice. Bytes have no invalid values.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst.as_ptr(), data.len()) };
        if self.mode == StorageMode::Managed {
            self.raw
                .didModifyRange(NSRange::new(offset as usize, data.len()));
        }
        Ok(())
    }

    /// Copies `out.len()` bytes at `offset` out of the buffer.
    pub fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), MetalError> {
        let src = self.host_range(offset, out.len())?;
        // SAFETY: `src` is valid for `out.len()` bytes (checked by
        // `host_range`) and cannot overlap `out`, a Rust slice.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// The whole buffer as a `Vec`.
    pub fn to_vec(&self) -> Result<Vec<u8>, MetalError> {
        let mut v = vec![0; self.len() as usize];
        self.read(0, &mut v)?;
        Ok(v)
    }
}

/// A shared buffer holding `data`, for argument buffers and sizes tables.
pub(super) fn shared_with_bytes(
    device: &ProtocolObject<dyn MTLDevice>,
    data: &[u8],
) -> Result<Retained<ProtocolObject<dyn MTLBuffer>>, MetalError> {
    // Metal has no zero-length buffers: an empty table still gets 4 bytes.
    let padded;
    let data = if data.is_empty() {
        padded = [0u8; 4];
        &padded[..]
    } else {
        data
    };
    let ptr = NonNull::from(data).cast();
    // SAFETY: `ptr` points to `data.len()` readable bytes; Metal copies them
    // before returning.
    unsafe {
        device.newBufferWithBytes_length_options(
            ptr,
            data.len(),
            conv::map_storage_mode(StorageMode::Shared),
        )
    }
    .ok_or_else(|| MetalError::Creation {
        what: format!("a {}-byte shared buffer", data.len()),
    })
}
