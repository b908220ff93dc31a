//! [`Image`] and [`Sampler`]: storage and sampled images, filled from
//! host bytes and read back, and the samplers that read them.

use std::sync::Arc;

use ash::vk;

use crate::desc::{AddressMode, BorderColor, Filter, ImageDesc, ImageDim, SamplerDesc};

use crate::error::{vk_err, Error, Result};
use crate::reference::{Inner, Reference, Submitted};

impl ImageDim {
    fn view_type(self) -> vk::ImageViewType {
        match self {
            ImageDim::D1 => vk::ImageViewType::TYPE_1D,
            ImageDim::D1Array => vk::ImageViewType::TYPE_1D_ARRAY,
            ImageDim::D2 => vk::ImageViewType::TYPE_2D,
            ImageDim::D2Array => vk::ImageViewType::TYPE_2D_ARRAY,
            ImageDim::D3 => vk::ImageViewType::TYPE_3D,
            ImageDim::Cube => vk::ImageViewType::CUBE,
            ImageDim::CubeArray => vk::ImageViewType::CUBE_ARRAY,
        }
    }

    fn image_type(self) -> vk::ImageType {
        match self {
            ImageDim::D1 | ImageDim::D1Array => vk::ImageType::TYPE_1D,
            ImageDim::D3 => vk::ImageType::TYPE_3D,
            _ => vk::ImageType::TYPE_2D,
        }
    }
}

/// Whether `desc` describes an image Vulkan can make.
fn check(desc: &ImageDesc) -> Result<()> {
    let bad = |why: String| Err(Error::Image(why));
    if desc.width == 0 || desc.height == 0 || desc.depth == 0 || desc.layers == 0 {
        return bad(format!("{desc:?}: every extent must be at least 1"));
    }
    let one_d = matches!(desc.dim, ImageDim::D1 | ImageDim::D1Array);
    if one_d && desc.height != 1 {
        return bad(format!("a 1D image has height 1, not {}", desc.height));
    }
    if desc.dim != ImageDim::D3 && desc.depth != 1 {
        return bad(format!("only a 3D image has a depth ({})", desc.depth));
    }
    match desc.dim {
        ImageDim::D1 | ImageDim::D2 | ImageDim::D3 if desc.layers != 1 => {
            return bad(format!(
                "a {:?} image has one layer, not {} (use an array)",
                desc.dim, desc.layers
            ))
        }
        ImageDim::Cube if desc.layers != 6 => {
            return bad(format!("a cube image has 6 layers, not {}", desc.layers))
        }
        ImageDim::CubeArray if desc.layers % 6 != 0 => {
            return bad(format!(
                "a cube array has a multiple of 6 layers, not {}",
                desc.layers
            ))
        }
        ImageDim::Cube | ImageDim::CubeArray if desc.width != desc.height => {
            return bad(format!(
                "a cube's faces are square, not {}x{}",
                desc.width, desc.height
            ))
        }
        _ => {}
    }
    let largest = desc.width.max(desc.height).max(desc.depth);
    let levels = 32 - largest.leading_zeros();
    if desc.mip_levels == 0 || desc.mip_levels > levels {
        return bad(format!(
            "{} mip levels for a largest extent of {largest} (1 to {levels})",
            desc.mip_levels
        ));
    }
    Ok(())
}

/// An image in device memory, in `GENERAL` layout between calls: bound
/// as a storage image, a sampled image or with a sampler. Its contents
/// are read with [`Reference::read_image`].
///
/// `Send`, not `Sync`, like [`Reference`].
pub struct Image {
    pub(crate) inner: Arc<Inner>,
    pub(crate) image: vk::Image,
    pub(crate) view: vk::ImageView,
    memory: vk::DeviceMemory,
    pub(crate) desc: ImageDesc,
    /// Whether the format can be a storage image on this device.
    pub(crate) storage: bool,
    /// Whether it can be sampled (with linear filtering: `linear`).
    pub(crate) sampled: bool,
    pub(crate) linear: bool,
    /// Views of the levels from 1, 2, …: `levels[b - 1]` sees levels
    /// `b..` ([`Image::from_level`]); they share this image.
    levels: Vec<Image>,
    /// Whether it owns the image and memory (not a view of another's
    /// levels, whose owner destroys its view).
    owned: bool,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image").field("desc", &self.desc).finish()
    }
}

impl Image {
    /// The image seen from level `base` on (a view whose base mip level is
    /// `base`: what a descriptor with a base mip level binds); `None` past
    /// its levels.
    pub fn from_level(&self, base: u32) -> Option<&Image> {
        match base {
            0 => Some(self),
            b => self.levels.get(b as usize - 1),
        }
    }

    /// What it was created as.
    pub fn desc(&self) -> &ImageDesc {
        &self.desc
    }

    fn range(&self) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .base_mip_level(0)
            .level_count(self.desc.mip_levels)
            .base_array_layer(0)
            .layer_count(self.desc.layers)
    }

    /// One copy region per level, at its offset in the packed bytes.
    fn regions(&self) -> Vec<vk::BufferImageCopy> {
        let mut offset = 0;
        (0..self.desc.mip_levels)
            .map(|level| {
                let [w, h, d] = self.desc.extent(level);
                let region = vk::BufferImageCopy::default()
                    .buffer_offset(offset)
                    .buffer_row_length(0)
                    .buffer_image_height(0)
                    .image_subresource(
                        vk::ImageSubresourceLayers::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .mip_level(level)
                            .base_array_layer(0)
                            .layer_count(self.desc.layers),
                    )
                    .image_offset(vk::Offset3D::default())
                    .image_extent(vk::Extent3D {
                        width: w,
                        height: h,
                        depth: d,
                    });
                offset += self.desc.level_bytes(level);
                region
            })
            .collect()
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        if !self.inner.may_destroy() || !self.owned {
            return;
        }
        // SAFETY: no pending work uses the image (checked above); each
        // handle destroyed once; null handles are ignored.
        unsafe {
            for level in &self.levels {
                self.inner.device.destroy_image_view(level.view, None);
            }
            self.inner.device.destroy_image_view(self.view, None);
            self.inner.device.destroy_image(self.image, None);
            self.inner.device.free_memory(self.memory, None);
        }
    }
}

/// A sampler.
pub struct Sampler {
    pub(crate) inner: Arc<Inner>,
    pub(crate) sampler: vk::Sampler,
    pub(crate) desc: SamplerDesc,
}

impl std::fmt::Debug for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sampler").field("desc", &self.desc).finish()
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        if !self.inner.may_destroy() {
            return;
        }
        // SAFETY: no pending work uses it; destroyed once.
        unsafe { self.inner.device.destroy_sampler(self.sampler, None) };
    }
}

impl Reference {
    /// Every level's texels of `image` (the layout of
    /// [`ImageDesc::bytes`]), after every dispatch so far.
    pub fn read_image(&self, image: &Image) -> Result<Vec<u8>> {
        if !Arc::ptr_eq(&image.inner, &self.inner) {
            return Err(Error::Foreign("the image"));
        }
        self.inner.ready()?;
        let staging = self.buffer(&vec![0u8; image.desc.bytes() as usize])?;
        let regions = image.regions();
        let range = image.range();
        submit_once(self, "reading an image", |device, cmd| {
            // SAFETY: recording into a fresh command buffer; the image is
            // in GENERAL layout, the staging buffer holds every level.
            unsafe {
                let before = vk::ImageMemoryBarrier::default()
                    .src_access_mask(
                        vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                    )
                    .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                    .old_layout(vk::ImageLayout::GENERAL)
                    .new_layout(vk::ImageLayout::GENERAL)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .image(image.image)
                    .subresource_range(range);
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[before],
                );
                device.cmd_copy_image_to_buffer(
                    cmd,
                    image.image,
                    vk::ImageLayout::GENERAL,
                    staging.buffer,
                    &regions,
                );
                let after = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::HOST_READ);
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[after],
                    &[],
                    &[],
                );
            }
        })?;
        Ok(staging.read())
    }

    /// An image as `desc` says, holding `data` ([`ImageDesc::bytes`]
    /// long: every level, each layer's texels tightly packed), in
    /// `GENERAL` layout. Its usage is what the format allows on this
    /// device among storage and sampling (checked when it is bound).
    pub fn image(&self, desc: &ImageDesc, data: &[u8]) -> Result<Image> {
        check(desc)?;
        if data.len() as u64 != desc.bytes() {
            return Err(Error::Image(format!(
                "{} bytes given for an image of {} bytes ({}x{}x{}, {} layers, {} levels of {})",
                data.len(),
                desc.bytes(),
                desc.width,
                desc.height,
                desc.depth,
                desc.layers,
                desc.mip_levels,
                desc.format
            )));
        }
        let inner = &self.inner;
        inner.ready()?;
        // SAFETY: a plain query on the chosen physical device.
        let props = unsafe {
            inner
                .instance
                .get_physical_device_format_properties(inner.physical, desc.format.vk())
        };
        let f = props.optimal_tiling_features;
        let storage = f.contains(vk::FormatFeatureFlags::STORAGE_IMAGE);
        let sampled = f.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE);
        let linear = f.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR);
        let transfer = f.contains(vk::FormatFeatureFlags::TRANSFER_SRC)
            && f.contains(vk::FormatFeatureFlags::TRANSFER_DST);
        if !(storage || sampled) || !transfer {
            return Err(Error::Image(format!(
                "the device cannot make {} images it can fill and read",
                desc.format
            )));
        }
        let mut usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
        if storage {
            usage |= vk::ImageUsageFlags::STORAGE;
        }
        if sampled {
            usage |= vk::ImageUsageFlags::SAMPLED;
        }
        let cube = matches!(desc.dim, ImageDim::Cube | ImageDim::CubeArray);
        let info = vk::ImageCreateInfo::default()
            .flags(if cube {
                vk::ImageCreateFlags::CUBE_COMPATIBLE
            } else {
                vk::ImageCreateFlags::empty()
            })
            .image_type(desc.dim.image_type())
            .format(desc.format.vk())
            .extent(vk::Extent3D {
                width: desc.width,
                height: desc.height,
                depth: desc.depth,
            })
            .mip_levels(desc.mip_levels)
            .array_layers(desc.layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let device = &inner.device;
        // SAFETY: a valid create info (checked above against the format's
        // features and the extents).
        let image = unsafe { device.create_image(&info, None) }.map_err(vk_err("vkCreateImage"))?;
        let mut out = Image {
            inner: inner.clone(),
            image,
            view: vk::ImageView::null(),
            memory: vk::DeviceMemory::null(),
            desc: *desc,
            storage,
            sampled,
            linear,
            levels: Vec::new(),
            owned: true,
        };
        // SAFETY: a query on the image just created.
        let req = unsafe { device.get_image_memory_requirements(image) };
        let props = &inner.memory_props;
        let type_index = (0..props.memory_type_count)
            .find(|&i| req.memory_type_bits & (1 << i) != 0)
            .ok_or_else(|| Error::Image("no memory type fits the image".into()))?;
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        // SAFETY: a valid allocate info; `out`'s Drop frees it.
        out.memory =
            unsafe { device.allocate_memory(&alloc, None) }.map_err(vk_err("vkAllocateMemory"))?;
        // SAFETY: fresh memory of the required size and type, bound once.
        unsafe { device.bind_image_memory(image, out.memory, 0) }
            .map_err(vk_err("vkBindImageMemory"))?;
        let range = out.range();
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(desc.dim.view_type())
            .format(desc.format.vk())
            .subresource_range(range);
        // SAFETY: a view of the whole image, of its own format and a type
        // its dimensionality and layers allow (checked above).
        out.view = unsafe { device.create_image_view(&view_info, None) }
            .map_err(vk_err("vkCreateImageView"))?;
        for base in 1..desc.mip_levels {
            let info = view_info.subresource_range(
                range
                    .base_mip_level(base)
                    .level_count(desc.mip_levels - base),
            );
            // SAFETY: as the whole image's view, of the levels from `base`;
            // the image's Drop destroys it.
            let view = unsafe { device.create_image_view(&info, None) }
                .map_err(vk_err("vkCreateImageView"))?;
            out.levels.push(Image {
                inner: inner.clone(),
                image,
                view,
                memory: vk::DeviceMemory::null(),
                desc: *desc,
                storage,
                sampled,
                linear,
                levels: Vec::new(),
                owned: false,
            });
        }

        let staging = self.buffer(data)?;
        let regions = out.regions();
        submit_once(self, "filling an image", |device, cmd| {
            let to_dst = vk::ImageMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::empty())
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image)
                .subresource_range(range);
            let to_general = vk::ImageMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(
                    vk::AccessFlags::SHADER_READ
                        | vk::AccessFlags::SHADER_WRITE
                        | vk::AccessFlags::TRANSFER_READ,
                )
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::GENERAL)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image)
                .subresource_range(range);
            // SAFETY: recording into a fresh command buffer; the staging
            // buffer holds every level at the regions' offsets.
            unsafe {
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_dst],
                );
                device.cmd_copy_buffer_to_image(
                    cmd,
                    staging.buffer,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &regions,
                );
                device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_general],
                );
            }
        })?;
        Ok(out)
    }

    /// A sampler as `desc` says.
    pub fn sampler(&self, desc: &SamplerDesc) -> Result<Sampler> {
        let inner = &self.inner;
        inner.ready()?;
        if desc.min_lod.partial_cmp(&desc.max_lod) == Some(std::cmp::Ordering::Greater)
            || desc.min_lod.is_nan()
            || desc.max_lod.is_nan()
        {
            return Err(Error::Image(format!(
                "sampler: min_lod {} is above max_lod {}",
                desc.min_lod, desc.max_lod
            )));
        }
        let filter = |f: Filter| match f {
            Filter::Nearest => vk::Filter::NEAREST,
            Filter::Linear => vk::Filter::LINEAR,
        };
        let address = |a: AddressMode| match a {
            AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
            AddressMode::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
            AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
            AddressMode::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
            AddressMode::MirrorClampToEdge => vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE,
        };
        // Float formats read the float border, integer formats the int
        // one; Vulkan picks by the sampler's colour, so the float one is
        // used (a border with an integer image is the caller's choice of
        // `*_INT` below, which no caller here makes).
        let border = match desc.border_color {
            BorderColor::TransparentBlack => vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
            BorderColor::OpaqueBlack => vk::BorderColor::FLOAT_OPAQUE_BLACK,
            BorderColor::OpaqueWhite => vk::BorderColor::FLOAT_OPAQUE_WHITE,
        };
        if !desc.normalized_coordinates
            && (desc.min_filter != desc.mag_filter
                || desc.mipmap_mode != Filter::Nearest
                || desc.min_lod != 0.0
                || desc.max_lod != 0.0
                || desc.address_modes[..2]
                    .iter()
                    .any(|a| !matches!(a, AddressMode::ClampToEdge | AddressMode::ClampToBorder)))
        {
            return Err(Error::Image(
                "sampler: unnormalized coordinates need equal min and mag filters, nearest \
                 mipmapping, a level-of-detail range of 0..0 and clamp-to-edge or clamp-to-border \
                 u and v (VUID-VkSamplerCreateInfo-unnormalizedCoordinates-01072..01076)"
                    .into(),
            ));
        }
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(filter(desc.mag_filter))
            .min_filter(filter(desc.min_filter))
            .mipmap_mode(match desc.mipmap_mode {
                Filter::Nearest => vk::SamplerMipmapMode::NEAREST,
                Filter::Linear => vk::SamplerMipmapMode::LINEAR,
            })
            .address_mode_u(address(desc.address_modes[0]))
            .address_mode_v(address(desc.address_modes[1]))
            .address_mode_w(address(desc.address_modes[2]))
            .min_lod(desc.min_lod)
            .max_lod(desc.max_lod)
            .border_color(border)
            .unnormalized_coordinates(!desc.normalized_coordinates);
        // SAFETY: a valid create info (the unnormalized rules checked).
        let sampler = unsafe { inner.device.create_sampler(&info, None) }
            .map_err(vk_err("vkCreateSampler"))?;
        Ok(Sampler {
            inner: inner.clone(),
            sampler,
            desc: *desc,
        })
    }
}

/// Records one command buffer with `record`, submits it and waits for it
/// (up to the reference's time-out); `doing` names it in errors.
pub(crate) fn submit_once(
    r: &Reference,
    doing: &str,
    record: impl FnOnce(&ash::Device, vk::CommandBuffer),
) -> Result<()> {
    let inner = &r.inner;
    let device = &inner.device;
    let mut objects = Some(Submitted {
        fence: vk::Fence::null(),
        command_pool: vk::CommandPool::null(),
        descriptor_pool: vk::DescriptorPool::null(),
        buffer_views: Vec::new(),
        entry: doing.to_string(),
    });
    struct Guard<'a>(&'a ash::Device, &'a mut Option<Submitted>);
    impl Drop for Guard<'_> {
        fn drop(&mut self) {
            if let Some(s) = self.1.take() {
                s.destroy(self.0);
            }
        }
    }
    let guard = Guard(device, &mut objects);
    let o = guard.1.as_mut().expect("set above");
    let pool_info = vk::CommandPoolCreateInfo::default()
        .flags(vk::CommandPoolCreateFlags::TRANSIENT)
        .queue_family_index(inner.queue_family);
    // SAFETY: a valid create info; the guard destroys it.
    o.command_pool = unsafe { device.create_command_pool(&pool_info, None) }
        .map_err(vk_err("vkCreateCommandPool"))?;
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(o.command_pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: allocated from the pool above, freed with it.
    let cmd = unsafe { device.allocate_command_buffers(&alloc) }
        .map_err(vk_err("vkAllocateCommandBuffers"))?[0];
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: a fresh command buffer.
    unsafe { device.begin_command_buffer(cmd, &begin) }.map_err(vk_err("vkBeginCommandBuffer"))?;
    record(device, cmd);
    // SAFETY: recording ends once.
    unsafe { device.end_command_buffer(cmd) }.map_err(vk_err("vkEndCommandBuffer"))?;
    // SAFETY: a valid create info; the guard destroys it.
    o.fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
        .map_err(vk_err("vkCreateFence"))?;
    let cmds = [cmd];
    let submit = vk::SubmitInfo::default().command_buffers(&cmds);
    let lost = || {
        inner.state().lost = Some(Some(doing.to_string()));
        Error::DeviceLost {
            entry: Some(doing.to_string()),
        }
    };
    // SAFETY: one queue used from one thread; a complete command buffer.
    match unsafe { device.queue_submit(inner.queue, &[submit], o.fence) } {
        Ok(()) => {}
        Err(vk::Result::ERROR_DEVICE_LOST) => return Err(lost()),
        Err(e) => return Err(vk_err("vkQueueSubmit")(e)),
    }
    let timeout = r.timeout();
    let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
    // SAFETY: waiting on the fence just submitted.
    match unsafe { device.wait_for_fences(&[o.fence], true, ns) } {
        Ok(()) => Ok(()),
        Err(vk::Result::TIMEOUT) => {
            inner.state().stuck = guard.1.take();
            Err(Error::Timeout {
                entry: doing.to_string(),
                timeout,
            })
        }
        Err(vk::Result::ERROR_DEVICE_LOST) => Err(lost()),
        Err(e) => {
            inner.state().stuck = guard.1.take();
            Err(vk_err("vkWaitForFences")(e))
        }
    }
}
