//! The SIMD-group widths the executor emulates.

/// SIMD width of Apple GPUs: the default
/// ([`DeviceOptions::simd_width`](super::DeviceOptions::simd_width)).
pub const SIMD_WIDTH: u32 = 32;

/// The SIMD widths the executor emulates
/// ([`DeviceOptions::simd_width`](super::DeviceOptions::simd_width)):
/// powers of two the quad operations (4 lanes) divide, up to the 32 lanes
/// of its lane masks.
pub const SIMD_WIDTHS: [u32; 4] = [4, 8, 16, 32];

/// [`SIMD_WIDTHS`] as words, for messages.
pub const SIMD_WIDTHS_TEXT: &str = "4, 8, 16 or 32";
