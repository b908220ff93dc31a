//! What the host binds to a dispatch: CPU buffers, textures and samplers
//! by (set, binding), kept in the plan's [`BoundTable`] and turned into the
//! portable [`Bindings`] a plan is made from.

use super::accel::AccelerationStructure;
use super::buffer::Buffer;
use super::texture::{Sampler, Texture};
use super::CpuError;
use crate::plan::{
    range_inside, Bindings, BoundTable, BufferBinding, ReachedBuffer, Resource, ResourceKey, Usage,
};

/// What is bound to one array element of a binding (as Metal's `Bound`).
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
    /// A texture (storage and sampled images, texel buffers).
    Texture(&'r Texture),
    /// A sampler.
    Sampler(&'r Sampler),
    /// A combined image-sampler.
    CombinedImageSampler(&'r Texture, &'r Sampler),
    /// An instance acceleration structure.
    AccelerationStructure(&'r AccelerationStructure),
}

impl Bound<'_> {
    /// Its texture, if it has one.
    pub(super) fn texture(&self) -> Option<&Texture> {
        match *self {
            Bound::Texture(t) | Bound::CombinedImageSampler(t, _) => Some(t),
            _ => None,
        }
    }

    /// Its acceleration structure, if it is one.
    pub(super) fn acceleration_structure(&self) -> Option<&AccelerationStructure> {
        match *self {
            Bound::AccelerationStructure(a) => Some(a),
            _ => None,
        }
    }

    /// Its sampler, if it has one.
    pub(super) fn sampler(&self) -> Option<&Sampler> {
        match *self {
            Bound::Sampler(s) | Bound::CombinedImageSampler(_, s) => Some(s),
            _ => None,
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
    /// Binds objects.
    fn bind_resources(&mut self, set: u32, binding: u32, elements: &[Bound<'r>]) {
        self.bind_array(set, binding, elements.iter().copied());
    }
}

/// CPU buffers, textures and samplers bound to a dispatch, keyed by (set,
/// binding).
#[derive(Debug, Clone, Default)]
pub struct ResourceBindings<'r> {
    table: BoundTable<Bound<'r>>,
    reached: Vec<(&'r Buffer, Usage)>,
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
        self.table.insert(set, binding, elements);
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

    /// Binds a texture.
    pub fn texture(&mut self, set: u32, binding: u32, texture: &'r Texture) -> &mut Self {
        self.bind(set, binding, Bound::Texture(texture))
    }

    /// Binds a sampler.
    pub fn sampler(&mut self, set: u32, binding: u32, sampler: &'r Sampler) -> &mut Self {
        self.bind(set, binding, Bound::Sampler(sampler))
    }

    /// Binds a combined image-sampler.
    pub fn combined(
        &mut self,
        set: u32,
        binding: u32,
        texture: &'r Texture,
        sampler: &'r Sampler,
    ) -> &mut Self {
        self.bind(set, binding, Bound::CombinedImageSampler(texture, sampler))
    }

    /// Binds an instance acceleration structure (a ray query's
    /// `accelerationStructureEXT`): its resource id goes to the kernel's
    /// `[[buffer(N)]]` or argument-buffer member.
    pub fn acceleration_structure(
        &mut self,
        set: u32,
        binding: u32,
        accel: &'r AccelerationStructure,
    ) -> &mut Self {
        self.bind(set, binding, Bound::AccelerationStructure(accel))
    }

    /// Adds a buffer the kernel reaches through a device address in its data
    /// ([`Buffer::gpu_address`] plus an offset, written into push constants
    /// or a buffer) rather than through a binding: SPIR-V
    /// `PhysicalStorageBufferAddresses`, GLSL `buffer_reference`. Every
    /// buffer such an address points into must be reached, with
    /// [`Usage::ReadWrite`] if the kernel writes it (Metal's
    /// `useResource:usage:`; see [`Bindings::reach`]).
    pub fn reach(&mut self, buffer: &'r Buffer, usage: Usage) -> &mut Self {
        self.reached.push((buffer, usage));
        self
    }

    /// The buffer reached at `index` (a plan's `UseReached`).
    pub(super) fn reached(&self, index: u32) -> Option<&'r Buffer> {
        self.reached.get(index as usize).map(|&(b, _)| b)
    }

    pub(super) fn get(&self, key: ResourceKey) -> Result<&Bound<'r>, CpuError> {
        self.table.element(key).ok_or(CpuError::Inconsistent {
            key,
            message: "the plan refers to an element that is not bound",
        })
    }

    /// The portable bindings a plan is made from: every buffer's GPU address
    /// is its host address, every texture's and sampler's resource id the
    /// address of the state the kernel reads.
    pub fn to_plan(&self) -> Result<Bindings, CpuError> {
        let mut out = self
            .table
            .to_bindings(|key, b| -> Result<Resource, CpuError> {
                Ok(match *b {
                    Bound::Buffer {
                        buffer,
                        offset,
                        length,
                    } => {
                        range_inside(offset, length, buffer.len()).map_err(|end| {
                            CpuError::RangeOutOfBounds {
                                key,
                                offset,
                                end,
                                len: buffer.len(),
                            }
                        })?;
                        Resource::Buffer(BufferBinding {
                            gpu_address: buffer.gpu_address(),
                            offset,
                            length,
                        })
                    }
                    Bound::Texture(t) => match t.storage_buffer() {
                        Some((buffer, offset, bytes_per_row)) => Resource::TextureOnBuffer {
                            resource_id: t.gpu_resource_id(),
                            buffer: BufferBinding {
                                gpu_address: buffer.gpu_address(),
                                offset,
                                length: buffer.len() - offset,
                            },
                            width: t.descriptor().width,
                            bytes_per_row,
                        },
                        None => Resource::Texture {
                            resource_id: t.gpu_resource_id(),
                        },
                    },
                    Bound::Sampler(s) => Resource::Sampler {
                        resource_id: s.gpu_resource_id(),
                    },
                    Bound::CombinedImageSampler(t, s) => Resource::CombinedImageSampler {
                        texture_id: t.gpu_resource_id(),
                        sampler_id: s.gpu_resource_id(),
                    },
                    // Its bottom levels stand for Metal's primitive
                    // structures: the encoder checks that the plan makes
                    // each resident, as Metal needs.
                    Bound::AccelerationStructure(a) => Resource::AccelerationStructure {
                        resource_id: a.gpu_resource_id(),
                        primitive_structures: u32::try_from(a.scene().bottom.len())
                            .unwrap_or(u32::MAX),
                    },
                })
            })?;
        for &(buffer, usage) in &self.reached {
            out.reach(ReachedBuffer {
                gpu_address: buffer.gpu_address(),
                length: buffer.len(),
                usage,
            });
        }
        Ok(out)
    }

    /// Every bound buffer, in (set, binding, element) order.
    pub(super) fn buffers(&self) -> impl Iterator<Item = (ResourceKey, &'r Buffer)> + '_ {
        self.table.elements().filter_map(|(key, b)| match *b {
            Bound::Buffer { buffer, .. } => Some((key, buffer)),
            _ => None,
        })
    }

    /// Every bound buffer and the buffer of every bound texture created on
    /// one, in (set, binding, element) order.
    pub(super) fn all_buffers(&self) -> impl Iterator<Item = (ResourceKey, &'r Buffer)> + '_ {
        self.table.elements().filter_map(|(key, b)| match *b {
            Bound::Buffer { buffer, .. } => Some((key, buffer)),
            Bound::Texture(t) | Bound::CombinedImageSampler(t, _) => {
                t.storage_buffer().map(|(buffer, _, _)| (key, buffer))
            }
            _ => None,
        })
    }

    /// Every bound object, in (set, binding, element) order.
    pub(super) fn objects(&self) -> impl Iterator<Item = (ResourceKey, &Bound<'r>)> + '_ {
        self.table.elements()
    }
}
