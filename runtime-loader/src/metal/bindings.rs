//! What the host binds to a dispatch: Metal objects by (set, binding), kept
//! in the plan's [`BoundTable`] and turned into the portable [`Bindings`]
//! a plan is made from.

use objc2::runtime::ProtocolObject;
use objc2_metal::{MTLBuffer, MTLSamplerState, MTLTexture};

use super::accel::AccelerationStructure;
use super::buffer::Buffer;
use super::texture::{Sampler, Texture};
use super::MetalError;
use crate::plan::{
    range_inside, Bindings, BoundTable, BufferBinding, ReachedBuffer, Resource, ResourceKey, Usage,
};

/// A Metal object bound to one array element of a binding.
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
    /// A texture (images, texel buffers).
    Texture(&'r ProtocolObject<dyn MTLTexture>),
    /// A sampler. In an argument buffer it must have been created with
    /// `supportArgumentBuffers = YES`.
    Sampler(&'r ProtocolObject<dyn MTLSamplerState>),
    /// A combined image-sampler.
    CombinedImageSampler(
        &'r ProtocolObject<dyn MTLTexture>,
        &'r ProtocolObject<dyn MTLSamplerState>,
    ),
    /// An instance acceleration structure and its primitive structures.
    AccelerationStructure(&'r AccelerationStructure),
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

/// Metal objects bound to a dispatch, keyed by (set, binding).
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
        self.bind(set, binding, Bound::Texture(texture.raw()))
    }

    /// Binds a sampler.
    pub fn sampler(&mut self, set: u32, binding: u32, sampler: &'r Sampler) -> &mut Self {
        self.bind(set, binding, Bound::Sampler(sampler.raw()))
    }

    /// Binds a combined image-sampler.
    pub fn combined(
        &mut self,
        set: u32,
        binding: u32,
        texture: &'r Texture,
        sampler: &'r Sampler,
    ) -> &mut Self {
        self.bind(
            set,
            binding,
            Bound::CombinedImageSampler(texture.raw(), sampler.raw()),
        )
    }

    /// Binds an instance acceleration structure (a ray query's
    /// `accelerationStructureEXT`): `setAccelerationStructure:atBufferIndex:`
    /// or its `gpuResourceID` in an argument buffer, and a
    /// `useResource:usage:` of each of its primitive structures.
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

    pub(super) fn get(&self, key: ResourceKey) -> Result<&Bound<'r>, MetalError> {
        self.table.element(key).ok_or(MetalError::Inconsistent {
            key,
            message: "the plan refers to an element that is not bound",
        })
    }

    /// The portable bindings the plan is made from. With `gpu_addresses`,
    /// buffers carry `gpuAddress` and textures/samplers `gpuResourceID`
    /// (Metal 3 only); otherwise those are 0 and unused.
    pub(super) fn to_plan(&self, gpu_addresses: bool) -> Result<Bindings, MetalError> {
        let mut out = self
            .table
            .to_bindings(|key, b| -> Result<Resource, MetalError> {
                Ok(match *b {
                    Bound::Buffer {
                        buffer,
                        offset,
                        length,
                    } => {
                        range_inside(offset, length, buffer.len()).map_err(|end| {
                            MetalError::RangeOutOfBounds {
                                key,
                                offset,
                                end,
                                len: buffer.len(),
                            }
                        })?;
                        Resource::Buffer(BufferBinding {
                            gpu_address: if gpu_addresses {
                                buffer.gpu_address()
                            } else {
                                0
                            },
                            offset,
                            length,
                        })
                    }
                    Bound::Texture(t) => {
                        let resource_id = if gpu_addresses {
                            t.gpuResourceID().to_raw()
                        } else {
                            0
                        };
                        match t.buffer() {
                            // Created on a buffer: a storage image whose atomics
                            // a kernel emulates binds that buffer too.
                            Some(buffer) => {
                                let offset = t.bufferOffset() as u64;
                                Resource::TextureOnBuffer {
                                    resource_id,
                                    buffer: BufferBinding {
                                        gpu_address: if gpu_addresses {
                                            buffer.gpuAddress()
                                        } else {
                                            0
                                        },
                                        offset,
                                        length: (buffer.length() as u64).saturating_sub(offset),
                                    },
                                    width: u32::try_from(t.width()).unwrap_or(u32::MAX),
                                    bytes_per_row: t.bufferBytesPerRow() as u64,
                                }
                            }
                            None => Resource::Texture { resource_id },
                        }
                    }
                    Bound::Sampler(s) => Resource::Sampler {
                        resource_id: if gpu_addresses {
                            s.gpuResourceID().to_raw()
                        } else {
                            0
                        },
                    },
                    Bound::CombinedImageSampler(t, s) => Resource::CombinedImageSampler {
                        texture_id: if gpu_addresses {
                            t.gpuResourceID().to_raw()
                        } else {
                            0
                        },
                        sampler_id: if gpu_addresses {
                            s.gpuResourceID().to_raw()
                        } else {
                            0
                        },
                    },
                    Bound::AccelerationStructure(a) => Resource::AccelerationStructure {
                        resource_id: if gpu_addresses {
                            a.gpu_resource_id()
                        } else {
                            0
                        },
                        primitive_structures: u32::try_from(a.primitive_count())
                            .unwrap_or(u32::MAX),
                    },
                })
            })?;
        for &(buffer, usage) in &self.reached {
            out.reach(ReachedBuffer {
                gpu_address: if gpu_addresses {
                    buffer.gpu_address()
                } else {
                    0
                },
                length: buffer.len(),
                usage,
            });
        }
        Ok(out)
    }

    /// Every bound object, in (set, binding, element) order.
    pub(super) fn objects(&self) -> impl Iterator<Item = &Bound<'r>> + '_ {
        self.table.elements().map(|(_, b)| b)
    }

    /// Every reached buffer, in the order given.
    pub(super) fn reached_buffers(&self) -> impl Iterator<Item = &'r Buffer> + '_ {
        self.reached.iter().map(|&(b, _)| b)
    }

    /// Every bound buffer (once per binding element).
    pub(super) fn buffers(&self) -> impl Iterator<Item = &'r Buffer> + '_ {
        self.table.elements().filter_map(|(_, b)| match *b {
            Bound::Buffer { buffer, .. } => Some(buffer),
            _ => None,
        })
    }
}
