//! [`Reference::dispatch`]: one submit, one fence, per run.

use std::collections::BTreeMap;
use std::sync::Arc;

use ash::vk;

use crate::buffer::Buffer;
use crate::error::{vk_err, Error, Result};
use crate::pipeline::{descriptor_type, BindingKind, Pipeline};
use crate::reference::{Reference, Submitted};

/// A buffer bound to one descriptor of a pipeline.
#[derive(Debug, Clone, Copy)]
pub struct Bound<'a> {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// Array element of the binding (0 unless its count is > 1).
    pub element: u32,
    /// The buffer.
    pub buffer: &'a Buffer,
    /// Byte offset of the range (a multiple of the device's
    /// `min{Storage,Uniform}BufferOffsetAlignment`).
    pub offset: u64,
    /// Byte size of the range (`None`: to the end of the buffer). What the
    /// kernel sees, e.g. for `OpArrayLength`.
    pub range: Option<u64>,
}

impl<'a> Bound<'a> {
    /// The whole `buffer` at (`set`, `binding`), element 0.
    pub fn new(set: u32, binding: u32, buffer: &'a Buffer) -> Bound<'a> {
        Bound {
            set,
            binding,
            element: 0,
            buffer,
            offset: 0,
            range: None,
        }
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

        // Check the bound buffers against the declared bindings.
        let mut slots: BTreeMap<(u32, u32, u32), (&Bound<'_>, u64)> = BTreeMap::new();
        for b in bound {
            let bad = |reason: String| Error::Binding {
                entry: entry.clone(),
                set: b.set,
                binding: b.binding,
                reason,
            };
            if !Arc::ptr_eq(&b.buffer.inner, inner) {
                return Err(Error::Foreign("a bound buffer"));
            }
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
            let len = b.buffer.len() as u64;
            let (align, max) = match desc.kind {
                BindingKind::Storage => (
                    inner.limits.min_storage_buffer_offset_alignment,
                    inner.limits.max_storage_buffer_range,
                ),
                BindingKind::Uniform => (
                    inner.limits.min_uniform_buffer_offset_alignment,
                    inner.limits.max_uniform_buffer_range,
                ),
            };
            if b.offset > len {
                return Err(bad(format!(
                    "offset {} is past the end of the buffer ({len} bytes)",
                    b.offset
                )));
            }
            if align > 0 && b.offset % align != 0 {
                return Err(bad(format!(
                    "offset {} is not a multiple of the device's minimum offset alignment ({align})",
                    b.offset
                )));
            }
            let range = b.range.unwrap_or(len - b.offset);
            if range == 0 {
                return Err(bad(
                    "empty range (a zero-length buffer or offset at its end): \
                     Vulkan descriptors cannot be empty"
                        .into(),
                ));
            }
            if b.offset + range > len {
                return Err(bad(format!(
                    "range {}..{} overruns the buffer of {len} bytes",
                    b.offset,
                    b.offset + range
                )));
            }
            if range > u64::from(max) {
                return Err(bad(format!(
                    "range of {range} bytes exceeds the device's limit ({max})"
                )));
            }
            if slots
                .insert((b.set, b.binding, b.element), (b, range))
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
                            "declared but no buffer is bound".into()
                        } else {
                            format!("array element {element} has no buffer bound")
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
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = slots
                .values()
                .map(|(b, range)| {
                    [vk::DescriptorBufferInfo::default()
                        .buffer(b.buffer.buffer)
                        .offset(b.offset)
                        .range(*range)]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet<'_>> = slots
                .iter()
                .zip(&infos)
                .map(|(((set, binding, element), _), info)| {
                    let kind = pipeline
                        .bindings
                        .iter()
                        .find(|d| (d.set, d.binding) == (*set, *binding))
                        .expect("checked above")
                        .kind;
                    vk::WriteDescriptorSet::default()
                        .dst_set(sets[*set as usize])
                        .dst_binding(*binding)
                        .dst_array_element(*element)
                        .descriptor_type(descriptor_type(kind))
                        .buffer_info(info)
                })
                .collect();
            // SAFETY: every write targets a set allocated above with a
            // matching binding type, and a live buffer range that fits
            // (checked above).
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
