//! The contents of argument buffers: members, their values and bytes, the
//! buffer-sizes table.

use super::ResourceKey;

/// The value of one argument-buffer member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberValue {
    /// A buffer: `gpu_address + offset` in Metal 3.
    Buffer {
        /// Base GPU address.
        gpu_address: u64,
        /// Byte offset.
        offset: u64,
    },
    /// A texture's resource id.
    Texture {
        /// `MTLResourceID`.
        resource_id: u64,
    },
    /// An acceleration structure's resource id (`gpuResourceID`).
    AccelerationStructure {
        /// `MTLResourceID`.
        resource_id: u64,
    },
    /// A sampler's resource id.
    Sampler {
        /// `MTLResourceID`.
        resource_id: u64,
    },
}

/// One element of a binding inside an argument buffer: what an
/// `MTLArgumentEncoder` sets at `[[id(id)]]`, and what the Metal 3 encoding
/// writes at `byte_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgumentMember {
    /// `[[id(N)]]`.
    pub id: u32,
    /// Byte offset in the argument buffer.
    pub byte_offset: u32,
    /// The bound resource.
    pub key: ResourceKey,
    /// Its value.
    pub value: MemberValue,
}

/// The buffer-sizes table member of an argument buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentSizesTable {
    /// `[[id(N)]]` of the member.
    pub id: u32,
    /// Byte offset of the member; the plan leaves those 8 bytes zero: the
    /// executor uploads `lengths` and writes that buffer's GPU address there.
    pub byte_offset: u32,
    /// Byte lengths, indexed by `Binding.sizes_index` (+ element).
    pub lengths: Vec<u32>,
}

impl ArgumentSizesTable {
    /// `lengths` as little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.lengths.iter().flat_map(|l| l.to_le_bytes()).collect()
    }

    /// Writes `address`, where the backend put the table's [`bytes`](Self::bytes),
    /// into the member in the argument buffer's `bytes` (the 8 bytes the plan
    /// leaves zero).
    #[cfg(any(all(feature = "cpu", unix), target_vendor = "apple"))]
    pub(crate) fn write_address(&self, bytes: &mut [u8], address: u64) {
        let at = self.byte_offset as usize;
        if let Some(dst) = bytes.get_mut(at..at + 8) {
            dst.copy_from_slice(&address.to_le_bytes());
        }
    }
}

/// The contents of one argument buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentBufferPlan {
    /// Descriptor set.
    pub set: u32,
    /// `[[buffer(N)]]`.
    pub buffer_index: u32,
    /// Metal 3 (tier 2) encoding, `ArgumentBuffer.size` bytes: little-endian
    /// `gpu_address + offset` for buffers, resource ids for textures and
    /// samplers, each at its member's byte offset.
    pub bytes: Vec<u8>,
    /// Every member, by binding and element (the `MTLArgumentEncoder` path).
    pub members: Vec<ArgumentMember>,
    /// The sizes table, if the set has one.
    pub sizes_table: Option<ArgumentSizesTable>,
}

/// Writes one 8-byte member (verified in range at load).
pub(super) fn write_member(bytes: &mut [u8], byte_offset: u32, value: MemberValue) {
    let word = match value {
        MemberValue::Buffer {
            gpu_address,
            offset,
        } => gpu_address.wrapping_add(offset),
        MemberValue::Texture { resource_id }
        | MemberValue::Sampler { resource_id }
        | MemberValue::AccelerationStructure { resource_id } => resource_id,
    };
    let start = byte_offset as usize;
    if let Some(dst) = bytes.get_mut(start..start + 8) {
        dst.copy_from_slice(&word.to_le_bytes());
    }
}
