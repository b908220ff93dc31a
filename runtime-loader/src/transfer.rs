//! Buffer fills and copies: the contract both backends enforce, which cases
//! Metal's blit encoder can do, and the polyfill kernels (MSL) for the rest.
//!
//! **Contract** (IREE's HAL `fill_buffer` / `copy_buffer` validation):
//! - `fill(dst, offset, length, pattern)`: the pattern is 1, 2 or 4 bytes;
//!   `offset` and `length` are multiples of the pattern's length (its natural
//!   alignment), so the pattern repeats from `offset` as it would from any
//!   aligned address; `offset + length <= dst.len()`. Little-endian: byte
//!   `offset + i` gets `pattern[i % pattern.len()]`.
//! - `copy(src, src_offset, dst, dst_offset, length)`: any offsets and length
//!   (no alignment); both ranges inside their buffers; when `src` and `dst`
//!   are the same buffer the ranges must not overlap.
//! - `length == 0` is allowed and does nothing (offsets are still checked).
//!
//! **Blit or polyfill** ([`fill_route`], [`copy_route`], the rules of IREE's
//! Metal driver): `fillBuffer:range:value:` writes one byte value, and on
//! macOS needs the range's offset and length to be multiples of 4;
//! `copyFromBuffer:…size:` needs both offsets and the size to be multiples of
//! 4 on macOS. iOS/tvOS blits take any byte range. Everything else runs a
//! compute kernel of [`POLYFILL_MSL`], compiled once per device.
//!
//! The CPU backend follows the macOS rules by default, so the polyfill MSL
//! runs (through clang and the `metal_stdlib` shim) in exactly the cases a
//! Mac runs it.

/// What a blit encoder accepts on a platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlitAlignment {
    /// macOS: offsets and lengths must be multiples of 4.
    Four,
    /// iOS, tvOS, visionOS: any byte range.
    One,
}

impl BlitAlignment {
    /// The rule of the platform this crate is compiled for (macOS's rule on
    /// non-Apple platforms, the strictest).
    pub const fn current() -> BlitAlignment {
        if cfg!(all(target_vendor = "apple", not(target_os = "macos"))) {
            BlitAlignment::One
        } else {
            BlitAlignment::Four
        }
    }

    const fn unit(self) -> u64 {
        match self {
            BlitAlignment::Four => 4,
            BlitAlignment::One => 1,
        }
    }
}

/// How a fill or copy is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Nothing to do (length 0).
    Nothing,
    /// The blit encoder; for a fill, with this byte value.
    Blit {
        /// The byte a fill writes (0 for a copy).
        byte: u8,
    },
    /// A polyfill kernel of [`POLYFILL_MSL`].
    Polyfill,
}

/// A fill or copy that breaks the [contract](self).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransferError {
    /// The pattern is not 1, 2 or 4 bytes long.
    #[error("fill pattern of {len} bytes: it must be 1, 2 or 4 bytes long")]
    PatternLength {
        /// Its length.
        len: usize,
    },
    /// Offset or length of a fill not a multiple of the pattern's length.
    #[error("fill of {length} bytes at offset {offset} with a {pattern_len}-byte pattern: offset and length must be multiples of {pattern_len}")]
    Misaligned {
        /// Offset.
        offset: u64,
        /// Length.
        length: u64,
        /// Pattern length.
        pattern_len: usize,
    },
    /// A range goes past the end of its buffer.
    #[error("{what} range {offset}..{end} is outside the {len}-byte buffer")]
    OutOfRange {
        /// `"fill"`, `"copy source"` or `"copy destination"`.
        what: &'static str,
        /// Offset.
        offset: u64,
        /// End (saturated at `u64::MAX` on overflow).
        end: u64,
        /// Buffer length.
        len: u64,
    },
    /// A copy within one buffer whose ranges overlap.
    #[error("copy within one buffer: source {src_offset}..{src_end} and destination {dst_offset}..{dst_end} overlap")]
    Overlap {
        /// Source offset.
        src_offset: u64,
        /// Source end.
        src_end: u64,
        /// Destination offset.
        dst_offset: u64,
        /// Destination end.
        dst_end: u64,
    },
}

fn range(what: &'static str, offset: u64, length: u64, len: u64) -> Result<u64, TransferError> {
    match offset.checked_add(length) {
        Some(end) if end <= len => Ok(end),
        end => Err(TransferError::OutOfRange {
            what,
            offset,
            end: end.unwrap_or(u64::MAX),
            len,
        }),
    }
}

/// Checks a fill of `length` bytes at `offset` of a `buffer_len`-byte buffer.
pub fn check_fill(
    buffer_len: u64,
    offset: u64,
    length: u64,
    pattern: &[u8],
) -> Result<(), TransferError> {
    let p = pattern.len();
    if !matches!(p, 1 | 2 | 4) {
        return Err(TransferError::PatternLength { len: p });
    }
    if offset % p as u64 != 0 || length % p as u64 != 0 {
        return Err(TransferError::Misaligned {
            offset,
            length,
            pattern_len: p,
        });
    }
    range("fill", offset, length, buffer_len)?;
    Ok(())
}

/// Checks a copy; `same_buffer`: source and destination are one buffer.
pub fn check_copy(
    src_len: u64,
    src_offset: u64,
    dst_len: u64,
    dst_offset: u64,
    length: u64,
    same_buffer: bool,
) -> Result<(), TransferError> {
    let src_end = range("copy source", src_offset, length, src_len)?;
    let dst_end = range("copy destination", dst_offset, length, dst_len)?;
    if same_buffer && length > 0 && src_offset < dst_end && dst_offset < src_end {
        return Err(TransferError::Overlap {
            src_offset,
            src_end,
            dst_offset,
            dst_end,
        });
    }
    Ok(())
}

/// The pattern repeated to 4 bytes, as a little-endian u32 (a checked
/// pattern: 1, 2 or 4 bytes).
pub fn pattern_word(pattern: &[u8]) -> u32 {
    let mut b = [0u8; 4];
    for (i, x) in b.iter_mut().enumerate() {
        *x = pattern[i % pattern.len()];
    }
    u32::from_le_bytes(b)
}

/// How a (checked) fill runs under `rule`.
pub fn fill_route(offset: u64, length: u64, pattern: &[u8], rule: BlitAlignment) -> Route {
    if length == 0 {
        return Route::Nothing;
    }
    let single = pattern.iter().all(|&b| b == pattern[0]);
    let unit = rule.unit();
    if single && offset % unit == 0 && length % unit == 0 {
        Route::Blit { byte: pattern[0] }
    } else {
        Route::Polyfill
    }
}

/// How a (checked) copy runs under `rule`.
pub fn copy_route(src_offset: u64, dst_offset: u64, length: u64, rule: BlitAlignment) -> Route {
    if length == 0 {
        return Route::Nothing;
    }
    let unit = rule.unit();
    if src_offset % unit == 0 && dst_offset % unit == 0 && length % unit == 0 {
        Route::Blit { byte: 0 }
    } else {
        Route::Polyfill
    }
}

/// What a fill does to `bytes` (the reference the backends are tested
/// against; the arguments must satisfy [`check_fill`]).
pub fn fill_reference(bytes: &mut [u8], offset: u64, length: u64, pattern: &[u8]) {
    let o = offset as usize;
    for (i, b) in bytes[o..o + length as usize].iter_mut().enumerate() {
        *b = pattern[i % pattern.len()];
    }
}

/// The polyfill kernels, compiled from source once per device: by Metal
/// (`newLibraryWithSource`) and by the CPU backend (clang and the shim).
///
/// Both take the buffer(s) bound at offset 0 (`[[buffer(0)]]`, and
/// `[[buffer(1)]]` for a copy's destination) and their parameters by
/// `setBytes` at the next slot ([`FillParams`], [`CopyParams`]). Each thread
/// handles 4 consecutive bytes of the range, byte by byte: no access is
/// wider than a byte, so any offset and length are in bounds and no thread
/// touches another's bytes (no read-modify-write).
pub const POLYFILL_MSL: &str = r#"#include <metal_stdlib>
using namespace metal;

// halc polyfill kernels: buffer fills and copies the blit encoder cannot do.

struct halc_fill_params
{
    ulong offset;   // first byte
    ulong length;   // bytes to fill
    uint pattern;   // the 1-, 2- or 4-byte pattern repeated to 4 bytes (little-endian)
    uint pad;
};

struct halc_copy_params
{
    ulong src_offset;
    ulong dst_offset;
    ulong length;
};

// Byte offset + 4 * i + k (k < 4) gets byte k of the pattern: the pattern's
// length divides 4, so it repeats with period 4 from `offset`.
kernel void halc_fill_buffer(device uchar* dst [[buffer(0)]], constant halc_fill_params& p [[buffer(1)]], uint3 gid [[thread_position_in_grid]], uint3 grid [[threads_per_grid]])
{
    ulong stride = ulong(grid.x) * 4;
    for (ulong i = ulong(gid.x) * 4; i < p.length; i += stride)
    {
        for (uint k = 0; k < 4 && i + k < p.length; ++k)
        {
            dst[p.offset + i + k] = uchar((p.pattern >> (8 * k)) & 0xffu);
        }
    }
}

kernel void halc_copy_buffer(device const uchar* src [[buffer(0)]], device uchar* dst [[buffer(1)]], constant halc_copy_params& p [[buffer(2)]], uint3 gid [[thread_position_in_grid]], uint3 grid [[threads_per_grid]])
{
    ulong stride = ulong(grid.x) * 4;
    for (ulong i = ulong(gid.x) * 4; i < p.length; i += stride)
    {
        for (uint k = 0; k < 4 && i + k < p.length; ++k)
        {
            dst[p.dst_offset + i + k] = src[p.src_offset + i + k];
        }
    }
}
"#;

/// MSL name of the fill kernel.
pub const FILL_KERNEL: &str = "halc_fill_buffer";
/// MSL name of the copy kernel.
pub const COPY_KERNEL: &str = "halc_copy_buffer";
/// Threads per threadgroup of both kernels (1-D).
pub const POLYFILL_THREADS: u32 = 64;
/// At most this many threadgroups; longer ranges loop (grid stride).
pub const POLYFILL_MAX_GROUPS: u64 = 4096;

/// Threadgroups (1-D) for a polyfill over `length` bytes, 4 per thread.
pub fn polyfill_groups(length: u64) -> u64 {
    let threads = length.div_ceil(4);
    threads
        .div_ceil(u64::from(POLYFILL_THREADS))
        .clamp(1, POLYFILL_MAX_GROUPS)
}

/// `halc_fill_params` of [`POLYFILL_MSL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillParams {
    /// First byte.
    pub offset: u64,
    /// Bytes to fill.
    pub length: u64,
    /// [`pattern_word`] of the pattern.
    pub pattern: u32,
}

impl FillParams {
    /// The 24 bytes of the MSL struct.
    pub fn to_bytes(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[0..8].copy_from_slice(&self.offset.to_le_bytes());
        b[8..16].copy_from_slice(&self.length.to_le_bytes());
        b[16..20].copy_from_slice(&self.pattern.to_le_bytes());
        b
    }
}

/// `halc_copy_params` of [`POLYFILL_MSL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyParams {
    /// Source offset.
    pub src_offset: u64,
    /// Destination offset.
    pub dst_offset: u64,
    /// Bytes to copy.
    pub length: u64,
}

impl CopyParams {
    /// The 24 bytes of the MSL struct.
    pub fn to_bytes(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[0..8].copy_from_slice(&self.src_offset.to_le_bytes());
        b[8..16].copy_from_slice(&self.dst_offset.to_le_bytes());
        b[16..24].copy_from_slice(&self.length.to_le_bytes());
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_contract_follows_the_pattern_alignment() {
        assert_eq!(check_fill(16, 3, 5, &[7]), Ok(()));
        assert_eq!(check_fill(16, 2, 6, &[1, 2]), Ok(()));
        assert_eq!(check_fill(16, 4, 8, &[1, 2, 3, 4]), Ok(()));
        assert_eq!(check_fill(16, 0, 0, &[1, 2, 3, 4]), Ok(()));
        assert_eq!(
            check_fill(16, 1, 2, &[1, 2]),
            Err(TransferError::Misaligned {
                offset: 1,
                length: 2,
                pattern_len: 2
            })
        );
        let e = check_fill(16, 4, 6, &[1, 2, 3, 4]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "fill of 6 bytes at offset 4 with a 4-byte pattern: offset and length must be multiples of 4"
        );
        assert_eq!(
            check_fill(16, 0, 3, &[1, 2, 3]),
            Err(TransferError::PatternLength { len: 3 })
        );
        assert_eq!(
            check_fill(16, 0, 0, &[]),
            Err(TransferError::PatternLength { len: 0 })
        );
        let e = check_fill(16, 12, 8, &[0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "fill range 12..20 is outside the 16-byte buffer"
        );
        assert!(matches!(
            check_fill(16, u64::MAX, 1, &[0]),
            Err(TransferError::OutOfRange { end: u64::MAX, .. })
        ));
        assert!(check_fill(16, 17, 0, &[0]).is_err(), "offset past the end");
    }

    #[test]
    fn copy_contract_allows_any_alignment_but_no_overlap() {
        assert_eq!(check_copy(10, 1, 10, 3, 7, false), Ok(()));
        assert_eq!(check_copy(10, 0, 10, 5, 5, true), Ok(()), "adjacent");
        let e = check_copy(10, 0, 10, 4, 5, true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "copy within one buffer: source 0..5 and destination 4..9 overlap"
        );
        assert_eq!(check_copy(10, 3, 10, 3, 0, true), Ok(()), "empty");
        let e = check_copy(10, 3, 8, 0, 8, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "copy source range 3..11 is outside the 10-byte buffer"
        );
        let e = check_copy(10, 0, 8, 1, 8, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "copy destination range 1..9 is outside the 8-byte buffer"
        );
    }

    #[test]
    fn routes_follow_the_blit_encoder_rules() {
        use BlitAlignment::*;
        assert_eq!(fill_route(0, 0, &[1, 2], Four), Route::Nothing);
        assert_eq!(fill_route(4, 8, &[9, 9], Four), Route::Blit { byte: 9 });
        assert_eq!(fill_route(2, 8, &[9, 9], Four), Route::Polyfill);
        assert_eq!(fill_route(2, 8, &[9, 9], One), Route::Blit { byte: 9 });
        assert_eq!(fill_route(0, 8, &[1, 2], One), Route::Polyfill);
        assert_eq!(
            fill_route(0, 8, &[5, 5, 5, 5], Four),
            Route::Blit { byte: 5 }
        );
        assert_eq!(fill_route(0, 6, &[5], Four), Route::Polyfill);
        assert_eq!(copy_route(0, 4, 8, Four), Route::Blit { byte: 0 });
        assert_eq!(copy_route(0, 4, 7, Four), Route::Polyfill);
        assert_eq!(copy_route(1, 4, 8, Four), Route::Polyfill);
        assert_eq!(copy_route(1, 3, 7, One), Route::Blit { byte: 0 });
        assert_eq!(copy_route(1, 3, 0, Four), Route::Nothing);
    }

    #[test]
    fn pattern_word_and_reference_agree() {
        assert_eq!(pattern_word(&[0xAB]), 0xABAB_ABAB);
        assert_eq!(pattern_word(&[0x01, 0x02]), 0x0201_0201);
        assert_eq!(pattern_word(&[1, 2, 3, 4]), 0x0403_0201);
        let mut b = [0u8; 10];
        fill_reference(&mut b, 2, 6, &[1, 2]);
        assert_eq!(b, [0, 0, 1, 2, 1, 2, 1, 2, 0, 0]);
        assert_eq!(polyfill_groups(0), 1);
        assert_eq!(polyfill_groups(256), 1);
        assert_eq!(polyfill_groups(257), 2);
        assert_eq!(polyfill_groups(u64::MAX), POLYFILL_MAX_GROUPS);
    }

    #[test]
    fn params_match_the_msl_structs() {
        // The MSL structs: two ulongs + uint + pad, three ulongs.
        assert!(POLYFILL_MSL.contains("ulong offset;   // first byte\n    ulong length;"));
        let f = FillParams {
            offset: 1,
            length: 2,
            pattern: 0x0403_0201,
        }
        .to_bytes();
        assert_eq!(&f[..8], &1u64.to_le_bytes());
        assert_eq!(&f[16..20], &[1, 2, 3, 4]);
        let c = CopyParams {
            src_offset: 5,
            dst_offset: 6,
            length: 7,
        }
        .to_bytes();
        assert_eq!(&c[16..], &7u64.to_le_bytes());
    }
}
