//! Conversions from the format's and the plan's values to Metal's, in one
//! place (wgpu-hal's `conv.rs`).

use objc2_foundation::{NSError, NSString};
use objc2_metal::{
    MTLCommandBufferStatus, MTLDataType, MTLLanguageVersion, MTLMathMode, MTLOrigin,
    MTLPixelFormat, MTLRegion, MTLResourceOptions, MTLResourceUsage, MTLSamplerAddressMode,
    MTLSamplerBorderColor, MTLSamplerMinMagFilter, MTLSamplerMipFilter, MTLSize, MTLStorageMode,
    MTLTextureType,
};

use crate::image::{
    AddressMode, BorderColor, MinMagFilter, MipFilter, PixelFormat, TextureRegion, TextureType,
};
use crate::memory::StorageMode;
use crate::plan::Usage;
use crate::schema::{MathMode, ScalarType};

/// `MTLResourceOptions` for a storage mode.
pub(super) fn map_storage_mode(mode: StorageMode) -> MTLResourceOptions {
    match mode {
        StorageMode::Private => MTLResourceOptions::StorageModePrivate,
        StorageMode::Shared => MTLResourceOptions::StorageModeShared,
        StorageMode::Managed => MTLResourceOptions::StorageModeManaged,
    }
}

/// `useResource:usage:`.
pub(super) fn map_usage(usage: Usage) -> MTLResourceUsage {
    match usage {
        Usage::Read => MTLResourceUsage::Read,
        Usage::ReadWrite => MTLResourceUsage::Read | MTLResourceUsage::Write,
    }
}

/// `MTLCompileOptions.languageVersion`; `None` for versions this runtime
/// does not know.
pub(super) fn map_language_version(major: u16, minor: u16) -> Option<MTLLanguageVersion> {
    Some(match (major, minor) {
        (1, 1) => MTLLanguageVersion::Version1_1,
        (1, 2) => MTLLanguageVersion::Version1_2,
        (2, 0) => MTLLanguageVersion::Version2_0,
        (2, 1) => MTLLanguageVersion::Version2_1,
        (2, 2) => MTLLanguageVersion::Version2_2,
        (2, 3) => MTLLanguageVersion::Version2_3,
        (2, 4) => MTLLanguageVersion::Version2_4,
        (3, 0) => MTLLanguageVersion::Version3_0,
        (3, 1) => MTLLanguageVersion::Version3_1,
        (3, 2) => MTLLanguageVersion::Version3_2,
        (4, 0) => MTLLanguageVersion::Version4_0,
        _ => return None,
    })
}

/// `MTLCompileOptions.mathMode` (macOS 15 / iOS 18).
pub(super) fn map_math_mode(mode: MathMode) -> MTLMathMode {
    if mode == MathMode::Fast {
        MTLMathMode::Fast
    } else {
        MTLMathMode::Safe
    }
}

/// The function-constant data type; `None` where Metal has no such type.
pub(super) fn map_scalar_type(ty: ScalarType) -> Option<MTLDataType> {
    Some(match ty {
        ScalarType::Bool => MTLDataType::Bool,
        ScalarType::Int8 => MTLDataType::Char,
        ScalarType::UInt8 => MTLDataType::UChar,
        ScalarType::Int16 => MTLDataType::Short,
        ScalarType::UInt16 => MTLDataType::UShort,
        ScalarType::Int32 => MTLDataType::Int,
        ScalarType::UInt32 => MTLDataType::UInt,
        ScalarType::Int64 => MTLDataType::Long,
        ScalarType::UInt64 => MTLDataType::ULong,
        ScalarType::Float16 => MTLDataType::Half,
        ScalarType::Float32 => MTLDataType::Float,
        _ => return None,
    })
}

/// An `MTLSize`. Values above `usize::MAX` cannot occur on Apple's 64-bit
/// targets; they saturate rather than wrap.
pub(super) fn map_size<T: Copy + Into<u64>>(v: [T; 3]) -> MTLSize {
    let n = |x: T| usize::try_from(x.into()).unwrap_or(usize::MAX);
    MTLSize {
        width: n(v[0]),
        height: n(v[1]),
        depth: n(v[2]),
    }
}

/// A u64 as `NSUInteger` (the same width on Apple's 64-bit targets).
pub(super) fn ns(v: impl Into<u64>) -> usize {
    usize::try_from(v.into()).unwrap_or(usize::MAX)
}

/// `MTLCommandBufferStatus` for messages.
pub(super) fn status_name(status: MTLCommandBufferStatus) -> String {
    match status {
        MTLCommandBufferStatus::NotEnqueued => "not enqueued".into(),
        MTLCommandBufferStatus::Enqueued => "enqueued".into(),
        MTLCommandBufferStatus::Committed => "committed".into(),
        MTLCommandBufferStatus::Scheduled => "scheduled".into(),
        MTLCommandBufferStatus::Completed => "completed".into(),
        MTLCommandBufferStatus::Error => "error".into(),
        other => format!("status {}", other.0),
    }
}

/// An `NSString` as a Rust string.
pub(super) fn string(s: &NSString) -> String {
    s.to_string()
}

/// An `NSError`'s `localizedDescription`.
pub(super) fn ns_error(e: &NSError) -> String {
    string(&e.localizedDescription())
}

/// `MTLTextureDescriptor.storageMode` for a storage mode.
pub(super) fn map_texture_storage_mode(mode: StorageMode) -> MTLStorageMode {
    match mode {
        StorageMode::Private => MTLStorageMode::Private,
        StorageMode::Shared => MTLStorageMode::Shared,
        StorageMode::Managed => MTLStorageMode::Managed,
    }
}

/// `MTLTextureType`.
pub(super) fn map_texture_type(t: TextureType) -> MTLTextureType {
    match t {
        TextureType::D1 => MTLTextureType::Type1D,
        TextureType::D1Array => MTLTextureType::Type1DArray,
        TextureType::D2 => MTLTextureType::Type2D,
        TextureType::D2Array => MTLTextureType::Type2DArray,
        TextureType::D3 => MTLTextureType::Type3D,
        TextureType::Cube => MTLTextureType::TypeCube,
        TextureType::CubeArray => MTLTextureType::TypeCubeArray,
        TextureType::TextureBuffer => MTLTextureType::TypeTextureBuffer,
    }
}

/// `MTLPixelFormat`.
pub(super) fn map_pixel_format(f: PixelFormat) -> MTLPixelFormat {
    use PixelFormat as P;
    match f {
        P::R8Unorm => MTLPixelFormat::R8Unorm,
        P::R8Snorm => MTLPixelFormat::R8Snorm,
        P::R8Uint => MTLPixelFormat::R8Uint,
        P::R8Sint => MTLPixelFormat::R8Sint,
        P::R16Unorm => MTLPixelFormat::R16Unorm,
        P::R16Snorm => MTLPixelFormat::R16Snorm,
        P::R16Uint => MTLPixelFormat::R16Uint,
        P::R16Sint => MTLPixelFormat::R16Sint,
        P::R16Float => MTLPixelFormat::R16Float,
        P::R32Uint => MTLPixelFormat::R32Uint,
        P::R32Sint => MTLPixelFormat::R32Sint,
        P::R32Float => MTLPixelFormat::R32Float,
        P::RG8Unorm => MTLPixelFormat::RG8Unorm,
        P::RG8Snorm => MTLPixelFormat::RG8Snorm,
        P::RG8Uint => MTLPixelFormat::RG8Uint,
        P::RG8Sint => MTLPixelFormat::RG8Sint,
        P::RG16Unorm => MTLPixelFormat::RG16Unorm,
        P::RG16Snorm => MTLPixelFormat::RG16Snorm,
        P::RG16Uint => MTLPixelFormat::RG16Uint,
        P::RG16Sint => MTLPixelFormat::RG16Sint,
        P::RG16Float => MTLPixelFormat::RG16Float,
        P::RG32Uint => MTLPixelFormat::RG32Uint,
        P::RG32Sint => MTLPixelFormat::RG32Sint,
        P::RG32Float => MTLPixelFormat::RG32Float,
        P::RGBA8Unorm => MTLPixelFormat::RGBA8Unorm,
        P::RGBA8Snorm => MTLPixelFormat::RGBA8Snorm,
        P::RGBA8Uint => MTLPixelFormat::RGBA8Uint,
        P::RGBA8Sint => MTLPixelFormat::RGBA8Sint,
        P::RGBA16Unorm => MTLPixelFormat::RGBA16Unorm,
        P::RGBA16Snorm => MTLPixelFormat::RGBA16Snorm,
        P::RGBA16Uint => MTLPixelFormat::RGBA16Uint,
        P::RGBA16Sint => MTLPixelFormat::RGBA16Sint,
        P::RGBA16Float => MTLPixelFormat::RGBA16Float,
        P::RGBA32Uint => MTLPixelFormat::RGBA32Uint,
        P::RGBA32Sint => MTLPixelFormat::RGBA32Sint,
        P::RGBA32Float => MTLPixelFormat::RGBA32Float,
        P::BGRA8Unorm => MTLPixelFormat::BGRA8Unorm,
        P::RGBA8UnormSrgb => MTLPixelFormat::RGBA8Unorm_sRGB,
        P::BGRA8UnormSrgb => MTLPixelFormat::BGRA8Unorm_sRGB,
        P::RGB10A2Unorm => MTLPixelFormat::RGB10A2Unorm,
        P::RGB10A2Uint => MTLPixelFormat::RGB10A2Uint,
        P::RG11B10Float => MTLPixelFormat::RG11B10Float,
    }
}

/// `MTLRegion`.
pub(super) fn map_region(r: TextureRegion) -> MTLRegion {
    MTLRegion {
        origin: MTLOrigin {
            x: r.origin[0] as usize,
            y: r.origin[1] as usize,
            z: r.origin[2] as usize,
        },
        size: MTLSize {
            width: r.size[0] as usize,
            height: r.size[1] as usize,
            depth: r.size[2] as usize,
        },
    }
}

/// `MTLSamplerMinMagFilter`.
pub(super) fn map_min_mag_filter(f: MinMagFilter) -> MTLSamplerMinMagFilter {
    match f {
        MinMagFilter::Nearest => MTLSamplerMinMagFilter::Nearest,
        MinMagFilter::Linear => MTLSamplerMinMagFilter::Linear,
    }
}

/// `MTLSamplerMipFilter`.
pub(super) fn map_mip_filter(f: MipFilter) -> MTLSamplerMipFilter {
    match f {
        MipFilter::NotMipmapped => MTLSamplerMipFilter::NotMipmapped,
        MipFilter::Nearest => MTLSamplerMipFilter::Nearest,
        MipFilter::Linear => MTLSamplerMipFilter::Linear,
    }
}

/// `MTLSamplerAddressMode`.
pub(super) fn map_address_mode(m: AddressMode) -> MTLSamplerAddressMode {
    match m {
        AddressMode::ClampToEdge => MTLSamplerAddressMode::ClampToEdge,
        AddressMode::MirrorClampToEdge => MTLSamplerAddressMode::MirrorClampToEdge,
        AddressMode::Repeat => MTLSamplerAddressMode::Repeat,
        AddressMode::MirrorRepeat => MTLSamplerAddressMode::MirrorRepeat,
        AddressMode::ClampToZero => MTLSamplerAddressMode::ClampToZero,
        AddressMode::ClampToBorderColor => MTLSamplerAddressMode::ClampToBorderColor,
    }
}

/// `MTLSamplerBorderColor`.
pub(super) fn map_border_color(c: BorderColor) -> MTLSamplerBorderColor {
    match c {
        BorderColor::TransparentBlack => MTLSamplerBorderColor::TransparentBlack,
        BorderColor::OpaqueBlack => MTLSamplerBorderColor::OpaqueBlack,
        BorderColor::OpaqueWhite => MTLSamplerBorderColor::OpaqueWhite,
    }
}
