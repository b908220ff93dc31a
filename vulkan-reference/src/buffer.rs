//! [`Buffer`]: host-visible, coherent device memory.

use std::ptr::NonNull;
use std::sync::Arc;

use ash::vk;

use crate::error::{vk_err, Error, Result};
use crate::reference::{Inner, Reference};

/// A storage/uniform buffer in host-visible, host-coherent memory, mapped
/// for its whole life. Its contents are readable after every
/// [`dispatch`](Reference::dispatch) returns.
///
/// `Send`, not `Sync`, like [`Reference`].
pub struct Buffer {
    pub(crate) inner: Arc<Inner>,
    pub(crate) buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    mapped: Mapped,
    len: usize,
    /// Its device address, when the device has `bufferDeviceAddress`
    /// enabled.
    address: Option<u64>,
}

/// The feature that gives buffers device addresses, as
/// [`ReferenceOptions`](crate::ReferenceOptions) names it.
pub(crate) const DEVICE_ADDRESS_FEATURE: &str = "BufferDeviceAddressFeatures.bufferDeviceAddress";

/// The mapping's address. `Send` (the memory belongs to the buffer that
/// moves with it), not `Sync` (no shared access to the bytes).
struct Mapped(NonNull<u8>);

// SAFETY: the pointer is owned by one `Buffer`; moving it to another
// thread moves the only access to the mapping with it.
unsafe impl Send for Mapped {}

impl Reference {
    /// A buffer of exactly `data.len()` bytes holding `data`.
    ///
    /// A zero-length buffer is allowed (reads give nothing) but cannot be
    /// bound: Vulkan has no empty descriptor range, and binding it is an
    /// [`Error::Binding`]. Its Vulkan buffer has 4 bytes.
    pub fn buffer(&self, data: &[u8]) -> Result<Buffer> {
        self.buffer_for(data, vk::BufferUsageFlags::empty())
    }

    /// [`buffer`](Self::buffer) with `extra` usages as well (an
    /// acceleration structure's storage, its build inputs and scratch).
    pub(crate) fn buffer_for(&self, data: &[u8], extra: vk::BufferUsageFlags) -> Result<Buffer> {
        let inner = &self.inner;
        {
            let mut state = inner.state();
            inner.settle(&mut state)?;
        }
        let device = &inner.device;
        let size = data.len().max(4) as vk::DeviceSize;
        // With the feature, every buffer has a device address a kernel can
        // be given (`PhysicalStorageBufferAddresses`).
        let addressed = inner.enabled.contains(DEVICE_ADDRESS_FEATURE);
        let mut usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
            | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST
            | extra;
        if addressed {
            usage |= vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        }
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a valid create info on a live device.
        let buffer =
            unsafe { device.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))?;
        let mut out = Buffer {
            inner: self.inner.clone(),
            buffer,
            memory: vk::DeviceMemory::null(),
            mapped: Mapped(NonNull::dangling()),
            len: data.len(),
            address: None,
        };
        // SAFETY: a query on the buffer just created.
        let req = unsafe { device.get_buffer_memory_requirements(buffer) };
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let props = &inner.memory_props;
        let type_index = (0..props.memory_type_count)
            .find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && props.memory_types[i as usize].property_flags.contains(host)
            })
            .ok_or_else(|| Error::Buffer("no host-visible coherent memory type fits".into()))?;
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        if addressed {
            alloc = alloc.push_next(&mut flags);
        }
        // SAFETY: a valid allocate info; `out`'s Drop frees it on error.
        out.memory =
            unsafe { device.allocate_memory(&alloc, None) }.map_err(vk_err("vkAllocateMemory"))?;
        // SAFETY: binding fresh memory of the required size and type once.
        unsafe { device.bind_buffer_memory(buffer, out.memory, 0) }
            .map_err(vk_err("vkBindBufferMemory"))?;
        // SAFETY: host-visible memory, mapped once for the buffer's life.
        let ptr = unsafe {
            device.map_memory(out.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .map_err(vk_err("vkMapMemory"))?;
        out.mapped = Mapped(
            NonNull::new(ptr.cast::<u8>()).ok_or_else(|| Error::Buffer("null mapping".into()))?,
        );
        if addressed {
            let info = vk::BufferDeviceAddressInfo::default().buffer(buffer);
            // SAFETY: a buffer created with SHADER_DEVICE_ADDRESS usage,
            // bound to memory allocated with DEVICE_ADDRESS, on a device
            // with the bufferDeviceAddress feature enabled.
            out.address = Some(unsafe { device.get_buffer_device_address(&info) });
        }
        out.write(0, data)?;
        Ok(out)
    }
}

impl Buffer {
    /// Size in bytes, as created.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has zero bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffer's device address (`vkGetBufferDeviceAddress`), what a
    /// kernel with `PhysicalStorageBufferAddresses` dereferences. An
    /// [`Error::Buffer`] unless the device was created with
    /// `BufferDeviceAddressFeatures.bufferDeviceAddress` enabled (a
    /// module's [`required_by_module`](crate::required_by_module) asks for
    /// it).
    pub fn device_address(&self) -> Result<u64> {
        self.address.ok_or_else(|| {
            Error::Buffer(format!(
                "the buffer has no device address: the device was created without {DEVICE_ADDRESS_FEATURE}"
            ))
        })
    }

    /// A copy of the contents.
    pub fn read(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len];
        // SAFETY: the mapping covers at least `len` bytes and lives as
        // long as `self`; the memory is coherent and no dispatch runs on
        // it (dispatches finish before returning; after a time-out the
        // bytes are whatever the running kernel left there).
        unsafe {
            std::ptr::copy_nonoverlapping(self.mapped.0.as_ptr(), out.as_mut_ptr(), self.len)
        };
        out
    }

    /// Writes `bytes` at byte `offset`. Errors if it does not fit.
    pub fn write(&self, offset: usize, bytes: &[u8]) -> Result<()> {
        let end = offset.checked_add(bytes.len());
        if end.is_none_or(|end| end > self.len) {
            return Err(Error::Buffer(format!(
                "writing {} bytes at offset {offset} overruns the buffer of {} bytes",
                bytes.len(),
                self.len
            )));
        }
        // SAFETY: in range (checked above) of a mapping that lives as long
        // as `self`; `bytes` cannot alias the mapping (it is not exposed as
        // a slice).
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.mapped.0.as_ptr().add(offset),
                bytes.len(),
            )
        };
        Ok(())
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer").field("len", &self.len).finish()
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if !self.inner.may_destroy() {
            // A timed-out dispatch may still use it: leak it.
            return;
        }
        // SAFETY: no pending work uses the buffer (checked above; every
        // other dispatch has finished); destroyed once. Freeing the memory
        // unmaps it. Null handles are ignored.
        unsafe {
            self.inner.device.destroy_buffer(self.buffer, None);
            self.inner.device.free_memory(self.memory, None);
        }
    }
}
