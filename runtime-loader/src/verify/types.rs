//! What the format's enums mean to the checks and the planner: scalar
//! widths, the parts a binding kind needs.

use crate::schema::{BindingKind, ScalarType};

/// Width in bits of a scalar type, `None` for values outside the enum.
pub fn scalar_bits(ty: ScalarType) -> Option<u32> {
    Some(match ty {
        ScalarType::Bool => 1,
        ScalarType::Int8 | ScalarType::UInt8 => 8,
        ScalarType::Int16 | ScalarType::UInt16 | ScalarType::Float16 => 16,
        ScalarType::Int32 | ScalarType::UInt32 | ScalarType::Float32 => 32,
        ScalarType::Int64 | ScalarType::UInt64 | ScalarType::Float64 => 64,
        _ => return None,
    })
}

/// Whether `bits` is a valid raw value of `ty` (zero-extended; bool is 0 or 1).
pub fn bits_fit(ty: ScalarType, bits: u64) -> bool {
    match scalar_bits(ty) {
        Some(64) => true,
        Some(w) => bits >> w == 0,
        None => false,
    }
}

pub(super) fn is_integer(ty: ScalarType) -> bool {
    matches!(
        ty,
        ScalarType::Int8
            | ScalarType::UInt8
            | ScalarType::Int16
            | ScalarType::UInt16
            | ScalarType::Int32
            | ScalarType::UInt32
            | ScalarType::Int64
            | ScalarType::UInt64
    )
}

/// What a binding kind needs: a buffer/texture part and/or a sampler part.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Buffer,
    Texture,
    /// An acceleration structure: a `[[buffer]]` slot when discrete, an
    /// 8-byte resource id in an argument buffer; never a sizes entry.
    AccelerationStructure,
}

/// The resource part (if any) and whether a sampler part exists.
pub(crate) fn kind_parts(kind: BindingKind) -> Option<(Option<Part>, bool)> {
    Some(match kind {
        BindingKind::StorageBuffer | BindingKind::UniformBuffer => (Some(Part::Buffer), false),
        BindingKind::StorageImage
        | BindingKind::SampledImage
        | BindingKind::UniformTexelBuffer
        | BindingKind::StorageTexelBuffer => (Some(Part::Texture), false),
        BindingKind::Sampler => (None, true),
        BindingKind::CombinedImageSampler => (Some(Part::Texture), true),
        BindingKind::AccelerationStructure => (Some(Part::AccelerationStructure), false),
        _ => return None,
    })
}
