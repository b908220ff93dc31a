//! What the host binds to a dispatch: CPU buffers by (set, binding), kept
//! in the plan's [`BoundTable`] and turned into the portable
//! [`Bindings`] a plan is made from.

use super::buffer::Buffer;
use super::CpuError;
use crate::plan::{range_inside, Bindings, BoundTable, BufferBinding, Resource, ResourceKey};

/// What is bound to one array element of a binding: a buffer range (the
/// CPU backend has no textures or samplers yet; Metal's `Bound` also has
/// those variants).
#[derive(Debug, Clone, Copy)]
pub enum Bound<'r> {
    /// A buffer range.
    Buffer {
        /// The buffer.
        buffer: &'r Buffer,
        /// Byte offset.
        offset: u64,
        /// Byte length (what a buffer-sizes table records).
        length: u64,
    },
}

/// A bound buffer range, as stored.
#[derive(Debug, Clone, Copy)]
pub(super) struct BoundRange<'r> {
    pub(super) buffer: &'r Buffer,
    pub(super) offset: u64,
    pub(super) length: u64,
}

impl<'r> From<Bound<'r>> for BoundRange<'r> {
    fn from(b: Bound<'r>) -> Self {
        let Bound::Buffer {
            buffer,
            offset,
            length,
        } = b;
        BoundRange {
            buffer,
            offset,
            length,
        }
    }
}

impl<'r> crate::plan::BindResources<&'r Buffer> for ResourceBindings<'r> {
    /// Binds whole buffers.
    fn bind_resources(&mut self, set: u32, binding: u32, elements: &[&'r Buffer]) {
        self.bind_array(
            set,
            binding,
            elements.iter().map(|b| Bound::Buffer {
                buffer: b,
                offset: 0,
                length: b.len(),
            }),
        );
    }
}

impl<'r> crate::plan::BindResources<Bound<'r>> for ResourceBindings<'r> {
    /// Binds buffer ranges.
    fn bind_resources(&mut self, set: u32, binding: u32, elements: &[Bound<'r>]) {
        self.bind_array(set, binding, elements.iter().copied());
    }
}

/// CPU buffers bound to a dispatch, keyed by (set, binding).
#[derive(Debug, Clone, Default)]
pub struct ResourceBindings<'r> {
    table: BoundTable<BoundRange<'r>>,
}

impl<'r> ResourceBindings<'r> {
    /// No bindings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds one object to (set, binding).
    pub fn bind(&mut self, set: u32, binding: u32, bound: Bound<'r>) -> &mut Self {
        self.bind_array(set, binding, [bound])
    }

    /// Binds an array binding, one object per element.
    pub fn bind_array(
        &mut self,
        set: u32,
        binding: u32,
        elements: impl IntoIterator<Item = Bound<'r>>,
    ) -> &mut Self {
        self.table
            .insert(set, binding, elements.into_iter().map(BoundRange::from));
        self
    }

    /// Binds a whole buffer.
    pub fn buffer(&mut self, set: u32, binding: u32, buffer: &'r Buffer) -> &mut Self {
        let length = buffer.len();
        self.buffer_range(set, binding, buffer, 0, length)
    }

    /// Binds `length` bytes of a buffer from `offset`.
    pub fn buffer_range(
        &mut self,
        set: u32,
        binding: u32,
        buffer: &'r Buffer,
        offset: u64,
        length: u64,
    ) -> &mut Self {
        self.bind(
            set,
            binding,
            Bound::Buffer {
                buffer,
                offset,
                length,
            },
        )
    }

    pub(super) fn get(&self, key: ResourceKey) -> Result<&BoundRange<'r>, CpuError> {
        self.table.element(key).ok_or(CpuError::Inconsistent {
            key,
            message: "the plan refers to an element that is not bound",
        })
    }

    /// The portable bindings a plan is made from: every buffer's GPU address
    /// is its host address.
    pub fn to_plan(&self) -> Result<Bindings, CpuError> {
        self.table.to_bindings(|key, b| {
            range_inside(b.offset, b.length, b.buffer.len()).map_err(|end| {
                CpuError::RangeOutOfBounds {
                    key,
                    offset: b.offset,
                    end,
                    len: b.buffer.len(),
                }
            })?;
            Ok(Resource::Buffer(BufferBinding {
                gpu_address: b.buffer.gpu_address(),
                offset: b.offset,
                length: b.length,
            }))
        })
    }

    pub(super) fn buffers(&self) -> impl Iterator<Item = (ResourceKey, &BoundRange<'r>)> {
        self.table.elements()
    }
}
