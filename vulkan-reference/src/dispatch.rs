//! [`Reference::dispatch`]: one submit, one fence, per run.

use std::collections::BTreeMap;
use std::sync::Arc;

use ash::vk;

use crate::accel::AccelerationStructure;
use crate::buffer::Buffer;
use crate::desc::Filter;
use crate::desc::Format;
use crate::error::{vk_err, Error, Result};
use crate::image::{Image, Sampler};
use crate::pipeline::{descriptor_type, BindingKind, Pipeline};
use crate::reference::{Reference, Submitted};

/// A resource bound to one descriptor of a pipeline.
#[derive(Debug, Clone, Copy)]
pub struct Bound<'a> {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// Array element of the binding (0 unless its count is > 1).
    pub element: u32,
    /// What is bound.
    pub resource: Resource<'a>,
}

/// What a [`Bound`] binds; the binding's [`BindingKind`] says which it
/// must be.
#[derive(Debug, Clone, Copy)]
pub enum Resource<'a> {
    /// A storage or uniform buffer range.
    Buffer {
        /// The buffer.
        buffer: &'a Buffer,
        /// Byte offset of the range (a multiple of the device's
        /// `min{Storage,Uniform}BufferOffsetAlignment`).
        offset: u64,
        /// Byte size of the range (`None`: to the end of the buffer). What
        /// the kernel sees, e.g. for `OpArrayLength`.
        range: Option<u64>,
    },
    /// A uniform or storage texel buffer: a range of a buffer seen as
    /// texels of `format`.
    TexelBuffer {
        /// The buffer.
        buffer: &'a Buffer,
        /// The texels' format.
        format: Format,
        /// Byte offset (a multiple of `minTexelBufferOffsetAlignment`).
        offset: u64,
        /// Byte size (`None`: to the end), a whole number of texels.
        range: Option<u64>,
    },
    /// A storage or sampled image.
    Image(&'a Image),
    /// A sampler.
    Sampler(&'a Sampler),
    /// A combined image-sampler.
    CombinedImageSampler(&'a Image, &'a Sampler),
    /// A top-level acceleration structure.
    AccelerationStructure(&'a AccelerationStructure),
}

impl<'a> Bound<'a> {
    /// The whole `buffer` at (`set`, `binding`), element 0.
    pub fn new(set: u32, binding: u32, buffer: &'a Buffer) -> Bound<'a> {
        Bound::range(set, binding, buffer, 0, None)
    }

    /// `range` bytes of `buffer` from `offset` (`None`: to its end).
    pub fn range(
        set: u32,
        binding: u32,
        buffer: &'a Buffer,
        offset: u64,
        range: Option<u64>,
    ) -> Bound<'a> {
        Bound {
            set,
            binding,
            element: 0,
            resource: Resource::Buffer {
                buffer,
                offset,
                range,
            },
        }
    }

    /// `resource` at (`set`, `binding`), element 0.
    pub fn of(set: u32, binding: u32, resource: Resource<'a>) -> Bound<'a> {
        Bound {
            set,
            binding,
            element: 0,
            resource,
        }
    }

    /// The same at array element `element`.
    pub fn at(self, element: u32) -> Bound<'a> {
        Bound { element, ..self }
    }
}

/// Destroys the per-dispatch objects on every early return, unless they
/// were handed to the `Reference` as still running.
struct Guard<'a> {
    device: &'a ash::Device,
    objects: Option<Submitted>,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.objects.take() {
            s.destroy(self.device);
        }
    }
}

impl Reference {
    /// Runs `pipeline` once over `groups` workgroups with the given
    /// buffers and push constants, and waits for it (up to
    /// [`timeout`](Reference::timeout)). Afterwards every buffer's
    /// [`read`](Buffer::read) sees the kernel's writes.
    ///
    /// Every declared binding (each array element) must be bound exactly
    /// once. `push_constants` may be shorter than the block (the rest is
    /// zero), not longer.
    ///
    /// One descriptor pool, command pool, command buffer and fence per
    /// call, all destroyed before it returns, except after
    /// [`Error::Timeout`]: then they live until the driver finishes (see
    /// [`Reference`]).
    pub fn dispatch(
        &self,
        pipeline: &Pipeline,
        bound: &[Bound<'_>],
        push_constants: &[u8],
        groups: [u32; 3],
    ) -> Result<()> {
        let inner = &self.inner;
        if !Arc::ptr_eq(&pipeline.inner, inner) {
            return Err(Error::Foreign("the pipeline"));
        }
        inner.ready()?;
        let entry = &pipeline.entry;
        let limit = inner.limits.max_compute_work_group_count;
        if (0..3).any(|i| groups[i] > limit[i]) {
            return Err(Error::Groups {
                entry: entry.clone(),
                groups,
                limit,
            });
        }

        // Check what is bound against the declared bindings.
        let mut slots: BTreeMap<(u32, u32, u32), (Resource<'_>, u64)> = BTreeMap::new();
        for b in bound {
            let bad = |reason: String| Error::Binding {
                entry: entry.clone(),
                set: b.set,
                binding: b.binding,
                reason,
            };
            let Some(desc) = pipeline
                .bindings
                .iter()
                .find(|d| (d.set, d.binding) == (b.set, b.binding))
            else {
                return Err(bad("not declared in the pipeline".into()));
            };
            if b.element >= desc.count {
                return Err(bad(format!(
                    "array element {} of a binding of {}",
                    b.element, desc.count
                )));
            }
            let ours = |other: &Arc<crate::reference::Inner>| Arc::ptr_eq(other, inner);
            match b.resource {
                Resource::Buffer { buffer, .. } | Resource::TexelBuffer { buffer, .. }
                    if !ours(&buffer.inner) =>
                {
                    return Err(Error::Foreign("a bound buffer"))
                }
                Resource::Image(i) | Resource::CombinedImageSampler(i, _) if !ours(&i.inner) => {
                    return Err(Error::Foreign("a bound image"))
                }
                Resource::Sampler(s) | Resource::CombinedImageSampler(_, s) if !ours(&s.inner) => {
                    return Err(Error::Foreign("a bound sampler"))
                }
                Resource::AccelerationStructure(a) if !ours(&a.inner) => {
                    return Err(Error::Foreign("a bound acceleration structure"))
                }
                _ => {}
            }
            let range = self.check_bound(desc.kind, &b.resource).map_err(bad)?;
            if slots
                .insert((b.set, b.binding, b.element), (b.resource, range))
                .is_some()
            {
                return Err(bad(format!("element {} bound twice", b.element)));
            }
        }
        for d in &pipeline.bindings {
            for element in 0..d.count {
                if !slots.contains_key(&(d.set, d.binding, element)) {
                    return Err(Error::Binding {
                        entry: entry.clone(),
                        set: d.set,
                        binding: d.binding,
                        reason: if d.count == 1 {
                            "declared but nothing is bound".into()
                        } else {
                            format!("array element {element} has nothing bound")
                        },
                    });
                }
            }
        }
        if push_constants.len() > pipeline.push_constant_size as usize {
            return Err(Error::PushConstants {
                entry: entry.clone(),
                reason: format!(
                    "{} bytes given for a block of {}",
                    push_constants.len(),
                    pipeline.push_constant_size
                ),
            });
        }
        let mut push = vec![0u8; pipeline.push_constant_size as usize];
        push[..push_constants.len()].copy_from_slice(push_constants);

        let device = &inner.device;
        let mut guard = Guard {
            device,
            objects: Some(Submitted {
                fence: vk::Fence::null(),
                command_pool: vk::CommandPool::null(),
                descriptor_pool: vk::DescriptorPool::null(),
                buffer_views: Vec::new(),
                entry: entry.clone(),
            }),
        };
        let objects = guard.objects.as_mut().expect("set above");

        // Descriptor sets: one per layout (empty ones included, so sets
        // 0..n bind in one call).
        let mut sets = Vec::new();
        if !pipeline.set_layouts.is_empty() {
            let mut counts: BTreeMap<i32, u32> = BTreeMap::new();
            for d in &pipeline.bindings {
                *counts.entry(descriptor_type(d.kind).as_raw()).or_default() += d.count;
            }
            let mut sizes: Vec<vk::DescriptorPoolSize> = counts
                .into_iter()
                .map(|(ty, n)| {
                    vk::DescriptorPoolSize::default()
                        .ty(vk::DescriptorType::from_raw(ty))
                        .descriptor_count(n)
                })
                .collect();
            if sizes.is_empty() {
                // Only empty sets: Vulkan 1.0 wants at least one pool size.
                sizes.push(
                    vk::DescriptorPoolSize::default()
                        .ty(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1),
                );
            }
            let info = vk::DescriptorPoolCreateInfo::default()
                .max_sets(pipeline.set_layouts.len() as u32)
                .pool_sizes(&sizes);
            // SAFETY: a valid create info; the guard destroys it.
            objects.descriptor_pool = unsafe { device.create_descriptor_pool(&info, None) }
                .map_err(vk_err("vkCreateDescriptorPool"))?;
            let alloc = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(objects.descriptor_pool)
                .set_layouts(&pipeline.set_layouts);
            // SAFETY: the pool was sized for these layouts; freed with it.
            sets = unsafe { device.allocate_descriptor_sets(&alloc) }
                .map_err(vk_err("vkAllocateDescriptorSets"))?;
            // Each write's info, made first so that the writes can point
            // at them.
            enum Info {
                Buffer([vk::DescriptorBufferInfo; 1]),
                Image([vk::DescriptorImageInfo; 1]),
                View([vk::BufferView; 1]),
                Accel([vk::AccelerationStructureKHR; 1]),
            }
            let mut infos = Vec::with_capacity(slots.len());
            for (resource, range) in slots.values() {
                infos.push(match *resource {
                    Resource::Buffer { buffer, offset, .. } => {
                        Info::Buffer([vk::DescriptorBufferInfo::default()
                            .buffer(buffer.buffer)
                            .offset(offset)
                            .range(*range)])
                    }
                    Resource::TexelBuffer {
                        buffer,
                        format,
                        offset,
                        ..
                    } => {
                        let info = vk::BufferViewCreateInfo::default()
                            .buffer(buffer.buffer)
                            .format(format.vk())
                            .offset(offset)
                            .range(*range);
                        // SAFETY: a view of a live buffer's range, in a
                        // format the device supports for its use (checked
                        // above); destroyed with the dispatch's objects.
                        let view = unsafe { device.create_buffer_view(&info, None) }
                            .map_err(vk_err("vkCreateBufferView"))?;
                        objects.buffer_views.push(view);
                        Info::View([view])
                    }
                    Resource::Image(image) => Info::Image([vk::DescriptorImageInfo::default()
                        .image_view(image.view)
                        .image_layout(vk::ImageLayout::GENERAL)]),
                    Resource::Sampler(sampler) => {
                        Info::Image([vk::DescriptorImageInfo::default().sampler(sampler.sampler)])
                    }
                    Resource::CombinedImageSampler(image, sampler) => {
                        Info::Image([vk::DescriptorImageInfo::default()
                            .image_view(image.view)
                            .image_layout(vk::ImageLayout::GENERAL)
                            .sampler(sampler.sampler)])
                    }
                    Resource::AccelerationStructure(a) => Info::Accel([a.top]),
                });
            }
            // The acceleration structures' write structures, which the
            // writes below chain (`pNext`) one each.
            let mut accels: Vec<vk::WriteDescriptorSetAccelerationStructureKHR<'_>> = infos
                .iter()
                .filter_map(|i| match i {
                    Info::Accel(a) => Some(
                        vk::WriteDescriptorSetAccelerationStructureKHR::default()
                            .acceleration_structures(a),
                    ),
                    _ => None,
                })
                .collect();
            let mut accels = accels.iter_mut();
            let writes: Vec<vk::WriteDescriptorSet<'_>> = slots
                .keys()
                .zip(&infos)
                .map(|((set, binding, element), info)| {
                    let kind = pipeline
                        .bindings
                        .iter()
                        .find(|d| (d.set, d.binding) == (*set, *binding))
                        .expect("checked above")
                        .kind;
                    let write = vk::WriteDescriptorSet::default()
                        .dst_set(sets[*set as usize])
                        .dst_binding(*binding)
                        .dst_array_element(*element)
                        .descriptor_type(descriptor_type(kind));
                    match info {
                        Info::Buffer(i) => write.buffer_info(i),
                        Info::Image(i) => write.image_info(i),
                        Info::View(v) => write.texel_buffer_view(v),
                        Info::Accel(_) => write
                            .descriptor_count(1)
                            .push_next(accels.next().expect("one per acceleration structure")),
                    }
                })
                .collect();
            // SAFETY: every write targets a set allocated above with a
            // matching binding type, and a live resource of that kind
            // (buffer ranges that fit, images in GENERAL layout with the
            // usage the kind needs: checked above).
            unsafe { device.update_descriptor_sets(&writes, &[]) };
        }

        let pool_info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::TRANSIENT)
            .queue_family_index(inner.queue_family);
        // SAFETY: a valid create info; the guard destroys it.
        objects.command_pool = unsafe { device.create_command_pool(&pool_info, None) }
            .map_err(vk_err("vkCreateCommandPool"))?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(objects.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: allocated from the pool above, freed with it.
        let cmd = unsafe { device.allocate_command_buffers(&alloc) }
            .map_err(vk_err("vkAllocateCommandBuffers"))?[0];
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: recording into a fresh command buffer with objects that
        // are all alive and compatible with the pipeline's layout.
        unsafe {
            device
                .begin_command_buffer(cmd, &begin)
                .map_err(vk_err("vkBeginCommandBuffer"))?;
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline.pipeline);
            if !sets.is_empty() {
                device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    pipeline.layout,
                    0,
                    &sets,
                    &[],
                );
            }
            if !push.is_empty() {
                device.cmd_push_constants(
                    cmd,
                    pipeline.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    &push,
                );
            }
            device.cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
            // Make the kernel's writes visible to host reads.
            let barrier = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
            device
                .end_command_buffer(cmd)
                .map_err(vk_err("vkEndCommandBuffer"))?;
        }

        // SAFETY: a valid create info; the guard destroys it.
        objects.fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(vk_err("vkCreateFence"))?;
        let cmds = [cmd];
        let submit = vk::SubmitInfo::default().command_buffers(&cmds);
        let lost = || {
            inner.state().lost = Some(Some(entry.clone()));
            Error::DeviceLost {
                entry: Some(entry.clone()),
            }
        };
        // SAFETY: one queue, used from one thread (`Reference` is not
        // `Sync`); the command buffer is complete. Host writes before the
        // submit are visible to the device (implicit host->device
        // ordering of vkQueueSubmit on coherent memory).
        match unsafe { device.queue_submit(inner.queue, &[submit], objects.fence) } {
            Ok(()) => {}
            Err(vk::Result::ERROR_DEVICE_LOST) => return Err(lost()),
            Err(e) => return Err(vk_err("vkQueueSubmit")(e)),
        }
        let timeout = self.timeout();
        let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: waiting on the fence just submitted.
        match unsafe { device.wait_for_fences(&[objects.fence], true, ns) } {
            Ok(()) => Ok(()),
            Err(vk::Result::TIMEOUT) => {
                // The driver still runs it: keep its objects until it ends.
                inner.state().stuck = guard.objects.take();
                Err(Error::Timeout {
                    entry: entry.clone(),
                    timeout,
                })
            }
            Err(vk::Result::ERROR_DEVICE_LOST) => Err(lost()),
            Err(e) => {
                // Unknown state: treat the work as still running.
                inner.state().stuck = guard.objects.take();
                Err(vk_err("vkWaitForFences")(e))
            }
        }
    }
}

impl Reference {
    /// Whether `resource` (of this device) may be bound to a binding of
    /// `kind` (the reason why not), and the byte range a buffer descriptor
    /// covers (0 for images and samplers).
    fn check_bound(
        &self,
        kind: BindingKind,
        resource: &Resource<'_>,
    ) -> std::result::Result<u64, String> {
        let inner = &self.inner;
        let wants = match kind {
            BindingKind::Storage => "a storage buffer",
            BindingKind::Uniform => "a uniform buffer",
            BindingKind::StorageImage => "a storage image",
            BindingKind::SampledImage => "a sampled image",
            BindingKind::Sampler => "a sampler",
            BindingKind::CombinedImageSampler => "an image and a sampler",
            BindingKind::UniformTexelBuffer => "a uniform texel buffer",
            BindingKind::StorageTexelBuffer => "a storage texel buffer",
            BindingKind::AccelerationStructure => "an acceleration structure",
        };
        let mismatch = |what: &str| format!("{what} is bound to a binding that takes {wants}");
        let range_of = |buffer: &Buffer, offset: u64, range: Option<u64>, align: u64, max: u64| {
            let len = buffer.len() as u64;
            if offset > len {
                return Err(format!(
                    "offset {offset} is past the end of the buffer ({len} bytes)"
                ));
            }
            if align > 0 && offset % align != 0 {
                return Err(format!(
                    "offset {offset} is not a multiple of the device's minimum offset alignment ({align})"
                ));
            }
            let range = range.unwrap_or(len - offset);
            if range == 0 {
                return Err("empty range (a zero-length buffer or offset at its end): \
                     Vulkan descriptors cannot be empty"
                    .into());
            }
            if offset + range > len {
                return Err(format!(
                    "range {offset}..{} overruns the buffer of {len} bytes",
                    offset + range
                ));
            }
            if range > max {
                return Err(format!(
                    "range of {range} bytes exceeds the device's limit ({max})"
                ));
            }
            Ok(range)
        };
        match *resource {
            Resource::Buffer {
                buffer,
                offset,
                range,
            } => {
                let (align, max) = match kind {
                    BindingKind::Storage => (
                        inner.limits.min_storage_buffer_offset_alignment,
                        inner.limits.max_storage_buffer_range,
                    ),
                    BindingKind::Uniform => (
                        inner.limits.min_uniform_buffer_offset_alignment,
                        inner.limits.max_uniform_buffer_range,
                    ),
                    _ => return Err(mismatch("a buffer")),
                };
                range_of(buffer, offset, range, align, u64::from(max))
            }
            Resource::TexelBuffer {
                buffer,
                format,
                offset,
                range,
            } => {
                let need = match kind {
                    BindingKind::UniformTexelBuffer => vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER,
                    BindingKind::StorageTexelBuffer => vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER,
                    _ => return Err(mismatch("a texel buffer")),
                };
                // SAFETY: a plain query on the chosen physical device.
                let props = unsafe {
                    inner
                        .instance
                        .get_physical_device_format_properties(inner.physical, format.vk())
                };
                if !props.buffer_features.contains(need) {
                    return Err(format!("the device has no {wants} of {format}"));
                }
                let texel = u64::from(format.texel_bytes());
                let max = u64::from(inner.limits.max_texel_buffer_elements) * texel;
                let range = range_of(
                    buffer,
                    offset,
                    range,
                    inner.limits.min_texel_buffer_offset_alignment,
                    max,
                )?;
                if range % texel != 0 {
                    return Err(format!(
                        "a range of {range} bytes is not a whole number of {format} texels ({texel} bytes)"
                    ));
                }
                Ok(range)
            }
            Resource::Image(image) => match kind {
                BindingKind::StorageImage if !image.storage => Err(format!(
                    "the device has no storage images of {}",
                    image.desc.format
                )),
                BindingKind::SampledImage if !image.sampled => Err(format!(
                    "the device cannot sample {} images",
                    image.desc.format
                )),
                BindingKind::StorageImage | BindingKind::SampledImage => Ok(0),
                _ => Err(mismatch("an image")),
            },
            Resource::Sampler(_) => match kind {
                BindingKind::Sampler => Ok(0),
                _ => Err(mismatch("a sampler")),
            },
            Resource::AccelerationStructure(_) => match kind {
                BindingKind::AccelerationStructure => Ok(0),
                _ => Err(mismatch("an acceleration structure")),
            },
            Resource::CombinedImageSampler(image, sampler) => {
                if kind != BindingKind::CombinedImageSampler {
                    return Err(mismatch("an image with a sampler"));
                }
                if !image.sampled {
                    return Err(format!(
                        "the device cannot sample {} images",
                        image.desc.format
                    ));
                }
                let linear = [
                    sampler.desc.min_filter,
                    sampler.desc.mag_filter,
                    sampler.desc.mipmap_mode,
                ]
                .contains(&Filter::Linear);
                if linear && !image.linear {
                    return Err(format!(
                        "the device cannot filter {} images linearly",
                        image.desc.format
                    ));
                }
                Ok(0)
            }
        }
    }
}
