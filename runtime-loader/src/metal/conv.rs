//! Conversions from the format's and the plan's values to Metal's, in one
//! place (wgpu-hal's `conv.rs`).

use objc2_foundation::{NSError, NSString};
use objc2_metal::{
    MTLCommandBufferStatus, MTLDataType, MTLLanguageVersion, MTLMathMode, MTLResourceOptions,
    MTLResourceUsage, MTLSize,
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
