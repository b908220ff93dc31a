//! The words of the generated docs: a member's type as the reflection
//! spells it, a resource's access and its Metal slot.

use crate::msl::BindingLayout;
use crate::spirv::{Access, BlockType, ScalarType, StructType};

/// `ty` in the reflection's vocabulary ([`BlockType::canonical`]), a
/// struct by its name.
pub(super) fn describe_type(ty: &BlockType) -> String {
    ty.canonical_with(&|s: &StructType| {
        format!("struct {}", s.name.as_deref().unwrap_or("(unnamed)"))
    })
}

pub(super) fn member_doc(ty: &BlockType, offset: u64) -> String {
    let extra = match ty {
        BlockType::Scalar(ScalarType::Float(16)) => " (IEEE half bits)",
        BlockType::Scalar(ScalarType::Bool) => " (0 or 1)",
        BlockType::Matrix { .. } => " (each column, or row if row-major, padded to the stride)",
        BlockType::Pointer { .. } => {
            " (a device address: `Buffer::gpu_address()` plus an offset; give the buffer to the dispatch with `ResourceBindings::reach`)"
        }
        _ => "",
    };
    format!("Offset {offset}: {}{extra}.", describe_type(ty))
}

pub(super) fn access_words(a: Access) -> &'static str {
    match a {
        Access::ReadOnly => "read-only",
        Access::WriteOnly => "write-only",
        Access::ReadWrite => "read-write",
    }
}

/// Where the binding model puts a resource, for docs.
pub(super) fn slot_words(b: &BindingLayout) -> String {
    let mut v = Vec::new();
    if let Some(i) = b.id {
        v.push(format!("argument-buffer `[[id({i})]]`"));
    }
    if let Some(o) = b.byte_offset {
        v.push(format!("byte {o}"));
    }
    if let Some(i) = b.buffer_index {
        v.push(format!("`[[buffer({i})]]`"));
    }
    if let Some(i) = b.texture_index {
        v.push(format!("`[[texture({i})]]`"));
    }
    if let Some(i) = b.sampler_index {
        v.push(format!("`[[sampler({i})]]`"));
    }
    v.join(", ")
}
