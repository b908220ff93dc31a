//! Buffers: exact-size shared mappings between two guard zones.
//!
//! The start is [`ALIGN`]-byte aligned, as a Metal buffer's contents are,
//! and the bytes end as close to the guard zone after them as that allows:
//! exactly at it when the length is a multiple of [`ALIGN`], so a read or
//! write one byte past the end faults (and the fault is reported as an
//! out-of-bounds access of that buffer); otherwise within the
//! `ALIGN - len % ALIGN` zeroed bytes before it, where an access past the
//! end does not fault. Each zone is [`GUARD_BYTES`] (64 GiB) of reserved,
//! inaccessible address space (`PROT_NONE`, `MAP_NORESERVE`: no memory
//! behind it, not even page tables), so every address a kernel can form
//! from the buffer's start and a 32-bit index (signed or unsigned) times an
//! element of up to 16 bytes (a `float4`, `uint4`; 32 bytes for a negative
//! index) lies in the buffer or in its own guard zone: it faults, and the
//! fault names the buffer. A kernel cannot reach another mapping of the
//! process that way: not another buffer (`MAP_SHARED`, so a write there
//! would land in the caller's memory), not the report page, not the
//! allocator's memory. The zones are made when the buffer is, in the
//! caller, because that is where the address space around the buffer is
//! still free; the forked child that runs a dispatch inherits them. The
//! mapping is `MAP_SHARED`, so the child writes the caller's memory.
//!
//! The cost is address space: 128 GiB a buffer, so about a thousand buffers
//! (and threadgroup arenas, argument buffers) can be alive at once in
//! x86-64's 128 TiB. Where the process cannot reserve that much (an
//! address-space limit, `ulimit -v`), the zones fall back to
//! [`NARROW_GUARD_BYTES`] (256 MiB), which catch an index up to 64 Mi
//! `f32`s out of range but not a far one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::CpuError;
use crate::memory::{self, MemoryType, Os, StorageMode};

pub(super) fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// Inaccessible address space before and after every buffer: 64 GiB,
/// what an unsigned 32-bit index times a 16-byte element reaches
/// (`2^32 × 16`; a signed one reaches 32 GiB either way). Address space
/// only: see the module documentation.
pub const GUARD_BYTES: u64 = 64 << 30;

/// The guard zones when [`GUARD_BYTES`] cannot be reserved (an
/// address-space limit), and of mappings no kernel indexes (the report
/// page): 256 MiB, an index up to 64 Mi `f32` elements out of range.
pub(super) const NARROW_GUARD_BYTES: usize = 256 << 20;

/// Alignment of every buffer's first byte: that of the widest vector the
/// kernels load (`float4`, `int4`: clang reads them with aligned SSE loads,
/// which fault on a misaligned address). Vulkan sizes a block by its last
/// member, so a uniform block of `vec4`s ending in a `vec2` is 72 bytes
/// while its MSL struct is 16-byte aligned: a start that only made the
/// bytes end at the guard zone was 8-byte aligned, and the first `float4`
/// read of it faulted (Sascha Willems' compute cloth sample).
pub(super) const ALIGN: usize = 16;

/// One guarded mapping.
#[derive(Debug)]
pub(super) struct Mapping {
    map: *mut u8,
    map_len: usize,
    data: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; concurrent access
// to its bytes is the caller's business, as for any GPU buffer.
unsafe impl Send for Mapping {}
// SAFETY: as above; `&Mapping` only hands out raw pointers.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// `len` zeroed bytes (0 is allowed: the pointer is then the guard
    /// zone) between guard zones of [`GUARD_BYTES`] (or
    /// [`NARROW_GUARD_BYTES`] if the process cannot reserve that).
    pub(super) fn new(len: usize) -> Result<Mapping, CpuError> {
        Mapping::guarded(len, GUARD_BYTES)
    }

    /// `len` zeroed bytes between guard zones of `guard` bytes (rounded up
    /// to whole pages, at least one), or of [`NARROW_GUARD_BYTES`] if
    /// `guard` is more than the process can reserve.
    pub(super) fn guarded(len: usize, guard: u64) -> Result<Mapping, CpuError> {
        let page = page_size();
        let guard = usize::try_from(guard)
            .unwrap_or(usize::MAX / 4)
            .clamp(page, usize::MAX / 4)
            .next_multiple_of(page);
        match Mapping::with_guard(len, guard) {
            Err(_) if guard > NARROW_GUARD_BYTES => Mapping::with_guard(len, NARROW_GUARD_BYTES),
            m => m,
        }
    }

    fn with_guard(len: usize, guard: usize) -> Result<Mapping, CpuError> {
        let page = page_size();
        let data_len = len.div_ceil(page) * page;
        let map_len = guard
            .checked_add(data_len)
            .and_then(|n| n.checked_add(guard))
            .ok_or_else(|| CpuError::Os {
                what: format!("a {len}-byte buffer"),
                message: "larger than the address space".into(),
            })?;
        // SAFETY: an inaccessible, unreserved anonymous mapping at an address
        // of the kernel's choice (address space only); no existing memory is
        // affected.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(CpuError::os(format!(
                "reserving address space for a {len}-byte buffer"
            )));
        }
        let map = map.cast::<u8>();
        if data_len > 0 {
            // SAFETY: `map + guard .. + data_len` lies inside the
            // reservation just made, which nothing else uses: MAP_FIXED
            // replaces part of it with the shared, writable bytes (shared so
            // that the forked child running a dispatch writes this memory).
            let data = unsafe {
                libc::mmap(
                    map.add(guard).cast(),
                    data_len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if data == libc::MAP_FAILED {
                let e = CpuError::os(format!("mapping a {len}-byte buffer"));
                // SAFETY: unmapping what was mapped above, once.
                unsafe { libc::munmap(map.cast(), map_len) };
                return Err(e);
            }
        }
        // SAFETY: `guard + data_len - len`, rounded down to a multiple of
        // ALIGN, is within the data pages (data_len >= len, and `guard`, a
        // multiple of the page size, is one of ALIGN), as are the `len`
        // bytes from there.
        let data = unsafe { map.add((guard + data_len - len) / ALIGN * ALIGN) };
        Ok(Mapping {
            map,
            map_len,
            data,
            len,
        })
    }

    /// A mapping holding `bytes`.
    pub(super) fn with_bytes(bytes: &[u8]) -> Result<Mapping, CpuError> {
        let m = Mapping::new(bytes.len())?;
        // SAFETY: `m.data` is valid for `bytes.len()` writable bytes, a fresh
        // mapping that cannot overlap `bytes`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), m.data, bytes.len()) };
        Ok(m)
    }

    pub(super) fn ptr(&self) -> *mut u8 {
        self.data
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The whole mapping, guards included: `[start, end)`.
    pub(super) fn span(&self) -> (u64, u64) {
        (self.map as u64, self.map as u64 + self.map_len as u64)
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping was created by `Mapping::new` with this length
        // and is unmapped once.
        unsafe { libc::munmap(self.map.cast(), self.map_len) };
    }
}

/// A buffer of the CPU device: exact size, zero-initialised, guarded.
///
/// Cloning shares the buffer. Host access ([`Buffer::write`],
/// [`Buffer::read`]) copies bytes. Every CPU buffer lives in host memory,
/// but its storage mode is the one Metal would give it
/// ([`crate::memory::storage_mode`]): a [`MemoryType::DeviceLocal`] buffer
/// is private, and host access to it fails ([`CpuError::NotHostVisible`]) as
/// it does on a Mac. On a device emulating a Mac without unified memory
/// (`DeviceOptions::unified_memory`), a `DeviceLocalHostVisible` buffer is
/// managed: after the device wrote it, the host may read it only once a
/// [`super::CommandBuffer::synchronize`] of it has run
/// ([`CpuError::NotSynchronized`]), as a Mac would otherwise return stale
/// bytes.
#[derive(Debug, Clone)]
pub struct Buffer {
    m: Arc<Mapping>,
    mode: StorageMode,
    /// Managed buffers: the device wrote it since its last synchronize.
    device_wrote: Arc<AtomicBool>,
}

impl Buffer {
    /// `unified_memory`: the storage mode is that of a device with unified
    /// memory, else that of a Mac with a discrete GPU; `guard`: bytes of
    /// guard zone on each side ([`GUARD_BYTES`] unless a test wants less).
    pub(super) fn new(
        len: u64,
        memory: MemoryType,
        unified_memory: bool,
        guard: u64,
    ) -> Result<Buffer, CpuError> {
        if len == 0 {
            return Err(CpuError::ZeroLength);
        }
        let len = usize::try_from(len).map_err(|_| CpuError::Os {
            what: format!("a {len}-byte buffer"),
            message: "larger than the address space".into(),
        })?;
        let os = if unified_memory {
            Os::current()
        } else {
            Os::MacOS
        };
        Ok(Buffer {
            m: Arc::new(Mapping::guarded(len, guard)?),
            mode: memory::storage_mode(memory, os, unified_memory),
            device_wrote: Arc::default(),
        })
    }

    /// A buffer holding `data` (written directly, whatever its storage
    /// mode: Metal's device fills a private buffer through a blit).
    pub(super) fn with_data(
        data: &[u8],
        memory: MemoryType,
        unified_memory: bool,
        guard: u64,
    ) -> Result<Buffer, CpuError> {
        let b = Buffer::new(data.len() as u64, memory, unified_memory, guard)?;
        // SAFETY: the fresh mapping holds `data.len()` writable bytes and
        // cannot overlap `data`.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), b.m.ptr(), data.len()) };
        Ok(b)
    }

    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.m.len() as u64
    }

    /// Whether the buffer is empty (never: buffers cannot be empty).
    pub fn is_empty(&self) -> bool {
        self.m.len() == 0
    }

    /// Its storage mode: [`StorageMode::Private`] for
    /// [`MemoryType::DeviceLocal`], [`StorageMode::Managed`] for
    /// [`MemoryType::DeviceLocalHostVisible`] on a device without unified
    /// memory, else [`StorageMode::Shared`].
    pub fn storage_mode(&self) -> StorageMode {
        self.mode
    }

    /// The device wrote the buffer (a command that may write it ran).
    pub(super) fn device_wrote(&self) {
        if self.mode == StorageMode::Managed {
            self.device_wrote.store(true, Ordering::Release);
        }
    }

    /// A synchronize of the buffer ran: the host may read it.
    pub(super) fn synchronized(&self) {
        self.device_wrote.store(false, Ordering::Release);
    }

    /// Whether the host can read and write it (every storage mode but
    /// private).
    pub fn is_host_visible(&self) -> bool {
        self.mode != StorageMode::Private
    }

    /// The "GPU address" the plan writes into argument buffers: the host
    /// address of the first byte.
    pub fn gpu_address(&self) -> u64 {
        self.m.ptr() as u64
    }

    pub(super) fn mapping(&self) -> &Mapping {
        &self.m
    }

    /// Whether `self` and `other` are the same buffer.
    pub fn same(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.m, &other.m)
    }

    fn range(&self, offset: u64, len: usize) -> Result<*mut u8, CpuError> {
        if !self.is_host_visible() {
            return Err(CpuError::NotHostVisible);
        }
        let end = offset.checked_add(len as u64);
        match end {
            // SAFETY: `offset + len <= self.len()`, so the result is inside
            // (or one past) the buffer's bytes.
            Some(end) if end <= self.len() => Ok(unsafe { self.m.ptr().add(offset as usize) }),
            _ => Err(CpuError::HostAccessOutOfBounds {
                offset,
                end: end.unwrap_or(u64::MAX),
                len: self.len(),
            }),
        }
    }

    /// Copies `data` into the buffer at `offset` (not a private buffer).
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<(), CpuError> {
        let dst = self.range(offset, data.len())?;
        // SAFETY: `dst` is valid for `data.len()` bytes (checked by `range`);
        // the mapping cannot overlap a Rust slice the caller holds... unless
        // it was made from this buffer, which `read`/`write` never hand out.
        unsafe { std::ptr::copy(data.as_ptr(), dst, data.len()) };
        Ok(())
    }

    /// Copies `out.len()` bytes at `offset` out of the buffer (not a private
    /// buffer, nor a managed one the device wrote since its last
    /// synchronize).
    pub fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), CpuError> {
        let src = self.range(offset, out.len())?;
        if self.device_wrote.load(Ordering::Acquire) {
            return Err(CpuError::NotSynchronized);
        }
        // SAFETY: `src` is valid for `out.len()` bytes (checked by `range`).
        unsafe { std::ptr::copy(src, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// The whole buffer as a `Vec` (not a private buffer).
    pub fn to_vec(&self) -> Result<Vec<u8>, CpuError> {
        let mut v = vec![0; self.m.len()];
        self.read(0, &mut v)?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guard zones the address space cannot hold (here 2^60 bytes, past
    /// x86-64's 47 bits; an address-space limit, in practice) fall back to
    /// the narrow ones instead of failing the buffer; the default zones are
    /// the wide ones.
    #[test]
    fn guard_zones_the_address_space_cannot_hold_fall_back_to_narrow_ones() {
        let page = page_size() as u64;
        let m = Mapping::new(16).unwrap();
        assert_eq!(m.span().1 - m.span().0, 2 * GUARD_BYTES + page);
        let m = Mapping::guarded(16, 1 << 60).unwrap();
        assert_eq!(
            m.span().1 - m.span().0,
            2 * NARROW_GUARD_BYTES as u64 + page
        );
        // SAFETY: the 16 bytes are the mapping's data.
        unsafe { std::ptr::write_bytes(m.ptr(), 1, 16) };
    }

    #[test]
    fn every_buffer_starts_aligned_and_ends_as_near_the_guard_as_alignment_allows() {
        let page = page_size();
        for len in (1..=100).chain([page - 1, page, page + 8, 3 * page + 72]) {
            let m = Mapping::new(len).unwrap();
            let start = m.ptr() as usize;
            assert_eq!(start % ALIGN, 0, "{len} bytes start at {start:#x}");
            // The bytes lie in the data pages, ending fewer than ALIGN bytes
            // before the guard zone (exactly at it for whole multiples).
            let guard = m.span().1 as usize - GUARD_BYTES as usize;
            assert!(start >= m.span().0 as usize + GUARD_BYTES as usize);
            let slack = guard - (start + len);
            assert!(
                slack < ALIGN,
                "{len} bytes end {slack} bytes before the guard"
            );
            assert_eq!(slack == 0, len % ALIGN == 0, "{len} bytes, slack {slack}");
            // Every byte is usable.
            // SAFETY: `len` bytes from `ptr` are the mapping's data.
            unsafe {
                std::ptr::write_bytes(m.ptr(), 0xab, len);
                assert_eq!(*m.ptr().add(len - 1), 0xab);
            }
        }
    }
}
