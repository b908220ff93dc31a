//! The CPU backend's buffers as the runners (`halc test`, `halc diff`)
//! allocate them: as an application allocates for Metal.

use runtime_loader::cpu;
use runtime_loader::memory::MemoryType;

/// What a runner rounds a buffer's allocation up to. Metal's validation
/// wants a buffer bound to a struct parameter (`constant Params& p`,
/// discrete bindings) to hold the whole MSL struct, which is rounded up to
/// its alignment (a 72-byte std140 block is an 80-byte struct,
/// `tests/amber/uniform_unpadded_size.amber`). 16 bytes covers every struct
/// but one holding a vector of four 64-bit integers (32-byte aligned), which
/// the CPU backend then reports (`CpuError::ShortBinding`); and the CPU
/// backend places a buffer's end 16 bytes from its guard page anyway, so
/// out-of-bounds accesses are caught as before.
pub(crate) const ALLOCATION_GRANULE: usize = 16;

/// A host-visible CPU buffer holding `bytes`, allocated to a multiple of
/// [`ALLOCATION_GRANULE`] (zeros after them). The caller binds and reads it
/// at `bytes.len()`.
pub(crate) fn cpu_buffer(device: &cpu::Device, bytes: &[u8]) -> Result<cpu::Buffer, String> {
    let mut padded = bytes.to_vec();
    padded.resize(bytes.len().next_multiple_of(ALLOCATION_GRANULE), 0);
    device
        .buffer_with_data(&padded, MemoryType::HostVisible)
        .map_err(|e| e.to_string())
}
