//! What a dispatch is given: resources bound by (set, binding), one per
//! array element.

use std::collections::BTreeMap;
use std::fmt;

/// How a dispatch uses a resource (`useResource:usage:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usage {
    /// `MTLResourceUsageRead`.
    Read,
    /// `MTLResourceUsageRead | MTLResourceUsageWrite`.
    ReadWrite,
}

/// One array element of one binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceKey {
    /// Descriptor set.
    pub set: u32,
    /// Binding in the set.
    pub binding: u32,
    /// Array element (0 for a plain resource).
    pub element: u32,
}

impl fmt::Display for ResourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(set {}, binding {}", self.set, self.binding)?;
        if self.element != 0 {
            write!(f, ", element {}", self.element)?;
        }
        f.write_str(")")
    }
}

/// A bound buffer range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferBinding {
    /// `MTLBuffer.gpuAddress` (Metal 3); any value when argument buffers are
    /// written through an `MTLArgumentEncoder` or bindings are discrete.
    pub gpu_address: u64,
    /// Byte offset of the range in the buffer.
    pub offset: u64,
    /// Byte length of the range: what the kernel sees, and what a buffer-sizes
    /// table records.
    pub length: u64,
}

/// What is bound to one array element of a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// Storage or uniform buffer.
    Buffer(BufferBinding),
    /// Storage / sampled image or texel buffer: the texture's
    /// `gpuResourceID` (argument buffers, Metal 3).
    Texture {
        /// `MTLResourceID` as a u64.
        resource_id: u64,
    },
    /// A 2D texture created on a buffer
    /// (`newTextureWithDescriptor:offset:bytesPerRow:`, what
    /// `Device::atomic_texture` makes): taken wherever a texture is, and
    /// what a storage image whose atomics the kernel emulates through that
    /// buffer (MSL below 3.1, `Binding::atomic_buffer`) needs.
    TextureOnBuffer {
        /// The texture's `MTLResourceID` as a u64.
        resource_id: u64,
        /// The buffer range holding its texels, from its first row.
        buffer: BufferBinding,
        /// Its width in texels.
        width: u32,
        /// Bytes between its rows.
        bytes_per_row: u64,
    },
    /// Sampler: its `gpuResourceID`.
    Sampler {
        /// `MTLResourceID` as a u64.
        resource_id: u64,
    },
    /// Combined image-sampler.
    CombinedImageSampler {
        /// The texture's `MTLResourceID`.
        texture_id: u64,
        /// The sampler's `MTLResourceID`.
        sampler_id: u64,
    },
    /// An instance acceleration structure (a ray query's
    /// `acceleration_structure<instancing>`).
    AccelerationStructure {
        /// Its `gpuResourceID` as a u64: what an argument buffer holds.
        resource_id: u64,
        /// How many primitive structures its instances reference. Metal
        /// traverses them without being told, so each must be made resident
        /// (`useResource:usage:`) as the instance structure is: the plan
        /// emits one [`Command::UsePrimitiveStructure`](super::Command::UsePrimitiveStructure)
        /// per structure, `0..primitive_structures`, in the order the
        /// backend's structure lists them.
        primitive_structures: u32,
    },
}

impl Resource {
    pub(super) fn what(&self) -> &'static str {
        match self {
            Resource::Buffer(_) => "a buffer",
            Resource::Texture { .. } => "a texture",
            Resource::TextureOnBuffer { .. } => "a texture on a buffer",
            Resource::Sampler { .. } => "a sampler",
            Resource::CombinedImageSampler { .. } => "a texture and sampler",
            Resource::AccelerationStructure { .. } => "an acceleration structure",
        }
    }
}

/// A buffer a kernel reaches through a device address read from its data
/// (SPIR-V `PhysicalStorageBufferAddresses`, GLSL `buffer_reference`), not
/// through a binding. Metal must be told of each (`useResource:usage:`), as
/// of a buffer an argument buffer points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReachedBuffer {
    /// `MTLBuffer.gpuAddress`: the base of the addresses the kernel is given.
    pub gpu_address: u64,
    /// Byte length of the buffer.
    pub length: u64,
    /// Whether the kernel only reads it, or also writes it.
    pub usage: Usage,
}

/// Resources bound to a dispatch, keyed by (set, binding); an array binding
/// takes one [`Resource`] per element. Buffers reached only through device
/// addresses are listed apart ([`Bindings::reach`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bindings {
    table: BoundTable<Resource>,
    reached: Vec<ReachedBuffer>,
}

impl Bindings {
    /// No bindings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds `resource` to (set, binding), replacing what was there.
    pub fn bind(&mut self, set: u32, binding: u32, resource: Resource) -> &mut Self {
        self.table.insert(set, binding, [resource]);
        self
    }

    /// Binds an array binding, one resource per element.
    pub fn bind_array(
        &mut self,
        set: u32,
        binding: u32,
        elements: impl IntoIterator<Item = Resource>,
    ) -> &mut Self {
        self.table.insert(set, binding, elements);
        self
    }

    /// Binds a buffer range to (set, binding).
    pub fn buffer(
        &mut self,
        set: u32,
        binding: u32,
        gpu_address: u64,
        offset: u64,
        length: u64,
    ) -> &mut Self {
        self.bind(
            set,
            binding,
            Resource::Buffer(BufferBinding {
                gpu_address,
                offset,
                length,
            }),
        )
    }

    /// Adds a buffer the kernel reaches through a device address in its
    /// data (push constants, a uniform block, a buffer, or another reached
    /// buffer) rather than through a binding. A kernel whose module declares
    /// `PhysicalStorageBufferAddresses` may dereference any address it is
    /// given: every buffer such an address points into must be reached, or
    /// on Metal the access reads or writes memory that is not resident.
    pub fn reach(&mut self, buffer: ReachedBuffer) -> &mut Self {
        self.reached.push(buffer);
        self
    }

    /// The buffers reached through device addresses, in the order given.
    pub fn reached(&self) -> &[ReachedBuffer] {
        &self.reached
    }

    /// What is bound to (set, binding).
    pub fn get(&self, set: u32, binding: u32) -> Option<&[Resource]> {
        self.table.get(set, binding)
    }

    /// The resource of one element.
    pub fn resource(&self, key: ResourceKey) -> Option<&Resource> {
        self.table.element(key)
    }

    /// Every (set, binding) with its elements, in (set, binding) order.
    pub fn iter(&self) -> impl Iterator<Item = ((u32, u32), &[Resource])> {
        self.table.bindings()
    }

    /// Number of bound (set, binding) pairs.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether nothing is bound.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

/// Objects bound by (set, binding), one per array element: what [`Bindings`]
/// and both backends' `ResourceBindings` hold, and the one walk over them
/// (in (set, binding, element) order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BoundTable<T> {
    map: BTreeMap<(u32, u32), Vec<T>>,
}

impl<T> Default for BoundTable<T> {
    fn default() -> Self {
        BoundTable {
            map: BTreeMap::new(),
        }
    }
}

impl<T> BoundTable<T> {
    /// Binds `elements` to (set, binding), replacing what was there.
    pub(crate) fn insert(&mut self, set: u32, binding: u32, elements: impl IntoIterator<Item = T>) {
        self.map
            .insert((set, binding), elements.into_iter().collect());
    }

    /// What is bound to (set, binding).
    pub(crate) fn get(&self, set: u32, binding: u32) -> Option<&[T]> {
        self.map.get(&(set, binding)).map(Vec::as_slice)
    }

    /// The object bound to one element.
    pub(crate) fn element(&self, key: ResourceKey) -> Option<&T> {
        self.get(key.set, key.binding)?.get(key.element as usize)
    }

    /// Every (set, binding) with its elements, in (set, binding) order.
    pub(crate) fn bindings(&self) -> impl Iterator<Item = ((u32, u32), &[T])> {
        self.map.iter().map(|(k, v)| (*k, v.as_slice()))
    }

    /// Every element with its key, in (set, binding, element) order.
    #[cfg(any(all(feature = "cpu", unix), target_vendor = "apple"))]
    pub(crate) fn elements(&self) -> impl Iterator<Item = (ResourceKey, &T)> {
        self.map.iter().flat_map(|(&(set, binding), v)| {
            (0u32..).zip(v).map(move |(element, b)| {
                (
                    ResourceKey {
                        set,
                        binding,
                        element,
                    },
                    b,
                )
            })
        })
    }

    /// Number of bound (set, binding) pairs.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is bound.
    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The portable [`Bindings`] a plan is made from: `resource` gives each
    /// element's [`Resource`] (with the backend's GPU address or resource
    /// id); its first error ends the walk.
    #[cfg(any(all(feature = "cpu", unix), target_vendor = "apple"))]
    pub(crate) fn to_bindings<E>(
        &self,
        mut resource: impl FnMut(ResourceKey, &T) -> Result<Resource, E>,
    ) -> Result<Bindings, E> {
        let mut out = Bindings::new();
        for (&(set, binding), elements) in &self.map {
            let mut resources = Vec::with_capacity(elements.len());
            for (element, b) in (0u32..).zip(elements) {
                let key = ResourceKey {
                    set,
                    binding,
                    element,
                };
                resources.push(resource(key, b)?);
            }
            out.bind_array(set, binding, resources);
        }
        Ok(out)
    }
}

/// Whether a range of `length` bytes from `offset` lies inside a buffer of
/// `len` bytes; if not, `Err` holds where it ends (`u64::MAX` when that
/// overflows), for the backend's error.
#[cfg(any(all(feature = "cpu", unix), target_vendor = "apple"))]
pub(crate) fn range_inside(offset: u64, length: u64, len: u64) -> Result<(), u64> {
    let end = offset.checked_add(length);
    if end.is_none_or(|end| end > len) {
        return Err(end.unwrap_or(u64::MAX));
    }
    Ok(())
}

impl From<BufferBinding> for Resource {
    fn from(b: BufferBinding) -> Self {
        Resource::Buffer(b)
    }
}

/// Something resources can be bound into by (set, binding): the portable
/// [`Bindings`] (any `R` that converts into a [`Resource`]) and both
/// backends' `ResourceBindings` (`&Buffer` and `Bound`). The Rust bindings `halc::build`
/// generates bind a kernel's typed argument struct through this trait, each
/// field to its own (set, binding).
pub trait BindResources<R> {
    /// Binds `elements` (one per array element; one for a plain resource)
    /// to (set, binding), replacing what was there.
    fn bind_resources(&mut self, set: u32, binding: u32, elements: &[R]);
}

impl<R: Copy + Into<Resource>> BindResources<R> for Bindings {
    fn bind_resources(&mut self, set: u32, binding: u32, elements: &[R]) {
        self.bind_array(set, binding, elements.iter().map(|&r| r.into()));
    }
}
