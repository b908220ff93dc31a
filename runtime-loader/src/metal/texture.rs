//! `MTLTexture` and `MTLSamplerState` made from the portable descriptors of
//! [`crate::image`], with the CPU backend's host methods: created by
//! [`super::Device::texture`], [`super::Device::texture_on_buffer`] and
//! [`super::Device::sampler`], filled and read per level and slice, viewed
//! by levels, bound with [`super::ResourceBindings::texture`].

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2_foundation::{NSRange, NSString};
use objc2_metal::{
    MTLBuffer, MTLDevice, MTLResource, MTLSamplerDescriptor, MTLSamplerState, MTLTexture,
    MTLTextureDescriptor, MTLTextureUsage,
};

use super::buffer::Buffer;
use super::conv;
use super::MetalError;
use crate::image::{SamplerDescriptor, TextureDescriptor, TextureRegion, TextureType};
use crate::memory::StorageMode;

static NEXT_TEXTURE: AtomicU64 = AtomicU64::new(1);

/// A Metal texture and the descriptor it was made from.
///
/// Its storage is shared on a device with unified memory and managed
/// otherwise (a Mac with a discrete GPU): there, the host reads what a
/// dispatch wrote only after [`super::CommandBuffer::synchronize_texture`]
/// has run, as for a managed buffer. Host access ([`Texture::replace_region`],
/// [`Texture::get_bytes`]) copies bytes; ordering it against GPU work is the
/// caller's job. Cloning retains the same texture.
#[derive(Debug, Clone)]
pub struct Texture {
    raw: Retained<ProtocolObject<dyn MTLTexture>>,
    desc: TextureDescriptor,
    label: String,
    mode: StorageMode,
    /// The buffer it was created on, its first row's offset and the bytes
    /// between rows.
    storage: Option<(Buffer, u64, u64)>,
    /// The texture a view shares its texels with.
    viewed: Option<Box<Texture>>,
}

impl Texture {
    fn label_for(desc: &TextureDescriptor) -> String {
        format!(
            "texture #{} ({:?} {:?} {}x{}x{}, {} slices, {} levels)",
            NEXT_TEXTURE.fetch_add(1, Ordering::Relaxed),
            desc.texture_type,
            desc.pixel_format,
            desc.width,
            desc.height,
            desc.depth,
            desc.slices(),
            desc.mipmap_level_count
        )
    }

    fn descriptor_for(
        desc: &TextureDescriptor,
        mode: StorageMode,
    ) -> Retained<MTLTextureDescriptor> {
        let d = MTLTextureDescriptor::new();
        d.setTextureType(conv::map_texture_type(desc.texture_type));
        d.setPixelFormat(conv::map_pixel_format(desc.pixel_format));
        // SAFETY: `TextureDescriptor::check` passed: every size is at least
        // 1, and the level count fits the largest dimension.
        unsafe {
            d.setWidth(desc.width as usize);
            d.setHeight(desc.height as usize);
            d.setDepth(desc.depth as usize);
            d.setArrayLength(desc.array_length as usize);
            d.setMipmapLevelCount(desc.mipmap_level_count as usize);
        }
        d.setStorageMode(conv::map_texture_storage_mode(mode));
        d.setUsage(MTLTextureUsage::ShaderRead | MTLTextureUsage::ShaderWrite);
        d
    }

    pub(super) fn new(
        device: &ProtocolObject<dyn MTLDevice>,
        desc: &TextureDescriptor,
        mode: StorageMode,
    ) -> Result<Texture, MetalError> {
        desc.check()
            .map_err(|message| MetalError::InvalidDescriptor {
                what: "texture",
                message,
            })?;
        Texture::made(desc, mode, None, |d| device.newTextureWithDescriptor(d))
    }

    pub(super) fn on_buffer(
        device: &ProtocolObject<dyn MTLDevice>,
        desc: &TextureDescriptor,
        buffer: &Buffer,
        offset: u64,
        bytes_per_row: u64,
    ) -> Result<Texture, MetalError> {
        desc.check_on_buffer(offset, bytes_per_row, buffer.len())
            .map_err(|message| MetalError::InvalidDescriptor {
                what: "texture on a buffer",
                message,
            })?;
        // The device's alignment of a linear texture's rows and first byte.
        let format = conv::map_pixel_format(desc.pixel_format);
        let alignment = if desc.texture_type == TextureType::TextureBuffer {
            device.minimumTextureBufferAlignmentForPixelFormat(format)
        } else {
            device.minimumLinearTextureAlignmentForPixelFormat(format)
        } as u64;
        let rows_checked = desc.texture_type == TextureType::D2;
        if alignment > 1
            && (offset % alignment != 0 || (rows_checked && bytes_per_row % alignment != 0))
        {
            return Err(MetalError::InvalidDescriptor {
                what: "texture on a buffer",
                message: format!(
                    "offset {offset} and {bytes_per_row} bytes per row: this device aligns a {:?} texture on a buffer to {alignment} bytes",
                    desc.pixel_format
                ),
            });
        }
        let storage = Some((buffer.clone(), offset, bytes_per_row));
        Texture::made(desc, buffer.storage_mode(), storage, |d| {
            buffer.raw().newTextureWithDescriptor_offset_bytesPerRow(
                d,
                offset as usize,
                bytes_per_row as usize,
            )
        })
    }

    /// A texture `create` makes from `desc`'s `MTLTextureDescriptor`,
    /// labelled; `storage`: the buffer it was made on.
    fn made(
        desc: &TextureDescriptor,
        mode: StorageMode,
        storage: Option<(Buffer, u64, u64)>,
        create: impl FnOnce(&MTLTextureDescriptor) -> Option<Retained<ProtocolObject<dyn MTLTexture>>>,
    ) -> Result<Texture, MetalError> {
        let label = Texture::label_for(desc);
        let raw =
            create(&Texture::descriptor_for(desc, mode)).ok_or_else(|| MetalError::Creation {
                what: label.clone(),
            })?;
        raw.setLabel(Some(&NSString::from_str(&label)));
        Ok(Texture {
            raw,
            desc: *desc,
            label,
            mode,
            storage,
            viewed: None,
        })
    }

    /// Wraps a texture created elsewhere, described by `desc` (which must
    /// match it: host access and binding trust it).
    pub fn from_raw(
        raw: Retained<ProtocolObject<dyn MTLTexture>>,
        desc: TextureDescriptor,
    ) -> Texture {
        let mode = if raw.storageMode() == conv::map_texture_storage_mode(StorageMode::Managed) {
            StorageMode::Managed
        } else if raw.storageMode() == conv::map_texture_storage_mode(StorageMode::Private) {
            StorageMode::Private
        } else {
            StorageMode::Shared
        };
        let storage = raw.buffer().map(|b| {
            (
                Buffer::from_raw(b, mode),
                raw.bufferOffset() as u64,
                raw.bufferBytesPerRow() as u64,
            )
        });
        Texture {
            label: Texture::label_for(&desc),
            raw,
            desc,
            mode,
            storage,
            viewed: None,
        }
    }

    /// A view of levels `base..base + count`, sharing the texture's texels
    /// (`newTextureViewWithPixelFormat:textureType:levels:slices:` with the
    /// texture's own format, type and slices): its level 0 is the texture's
    /// level `base`. What a Vulkan image view with a base mip level is on
    /// Metal. Not of a texture made on a buffer (one level).
    pub fn view_levels(&self, base: u32, count: u32) -> Result<Texture, MetalError> {
        let bad = |message: String| MetalError::InvalidDescriptor {
            what: "texture view",
            message,
        };
        if self.storage.is_some() {
            return Err(bad(
                "a texture made on a buffer has no views of its levels".into()
            ));
        }
        let desc = self.desc.levels_view(base, count).map_err(bad)?;
        // SAFETY: the level range lies in the texture (`levels_view`), the
        // slices are all of its slices, and format and type are its own.
        let raw = unsafe {
            self.raw
                .newTextureViewWithPixelFormat_textureType_levels_slices(
                    conv::map_pixel_format(desc.pixel_format),
                    conv::map_texture_type(desc.texture_type),
                    NSRange::new(base as usize, count as usize),
                    NSRange::new(0, desc.slices() as usize),
                )
        }
        .ok_or_else(|| MetalError::Creation {
            what: format!(
                "a view of levels {base}..{} of {}",
                base + count,
                self.label
            ),
        })?;
        let root = self.viewed.as_deref().unwrap_or(self).clone();
        Ok(Texture {
            label: Texture::label_for(&desc),
            raw,
            desc,
            mode: self.mode,
            storage: None,
            viewed: Some(Box::new(root)),
        })
    }

    /// The texture a view shares its texels with ([`Texture::view_levels`]).
    pub fn viewed(&self) -> Option<&Texture> {
        self.viewed.as_deref()
    }

    /// The buffer it was created on, the offset of its first row and the
    /// bytes between rows ([`super::Device::texture_on_buffer`]).
    pub fn storage_buffer(&self) -> Option<(&Buffer, u64, u64)> {
        self.storage.as_ref().map(|(b, o, p)| (b, *o, *p))
    }

    /// The `MTLTexture`.
    pub fn raw(&self) -> &ProtocolObject<dyn MTLTexture> {
        &self.raw
    }

    /// What it was made from.
    pub fn descriptor(&self) -> &TextureDescriptor {
        &self.desc
    }

    /// How errors name it (also its Metal label).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Its storage mode.
    pub fn storage_mode(&self) -> StorageMode {
        self.mode
    }

    /// Its `gpuResourceID` (Metal 3: macOS 13, iOS 16).
    pub fn gpu_resource_id(&self) -> u64 {
        self.raw.gpuResourceID().to_raw()
    }

    /// Whether `self` and `other` are the same texture.
    pub fn same(&self, other: &Texture) -> bool {
        std::ptr::eq::<ProtocolObject<dyn MTLTexture>>(&*self.raw, &*other.raw)
    }

    /// Checks `region` of `level`, `slice` lies inside and that `len`
    /// bytes hold it with rows `bytes_per_row` and images
    /// `bytes_per_image` apart; the region as Metal's.
    fn checked(
        &self,
        region: TextureRegion,
        level: u32,
        slice: u32,
        len: usize,
        bytes_per_row: usize,
        bytes_per_image: usize,
    ) -> Result<objc2_metal::MTLRegion, MetalError> {
        let d = &self.desc;
        let bad = |message: String| MetalError::TextureAccess {
            texture: self.label.clone(),
            message,
        };
        if self.mode == StorageMode::Private {
            return Err(bad("the texture is private to the GPU".into()));
        }
        d.check_region(region, level, slice).map_err(bad)?;
        let row = region.size[0] as usize * d.pixel_format.bytes_per_texel() as usize;
        if region.size.contains(&0) {
            return Ok(conv::map_region(region));
        }
        let last = (region.size[2] as usize - 1) * bytes_per_image
            + (region.size[1] as usize - 1) * bytes_per_row
            + row;
        if bytes_per_row < row || last > len {
            return Err(bad(format!(
                "{len} bytes given with rows {bytes_per_row} bytes apart: the region's last row ends at byte {last}"
            )));
        }
        Ok(conv::map_region(region))
    }

    /// Host upload (`replaceRegion:mipmapLevel:slice:withBytes:bytesPerRow:bytesPerImage:`):
    /// `bytes` holds the region's rows `bytes_per_row` apart and its depth
    /// images `bytes_per_image` apart, texels in the texture's pixel format.
    pub fn replace_region(
        &self,
        region: TextureRegion,
        level: u32,
        slice: u32,
        bytes: &[u8],
        bytes_per_row: usize,
        bytes_per_image: usize,
    ) -> Result<(), MetalError> {
        let r = self.checked(
            region,
            level,
            slice,
            bytes.len(),
            bytes_per_row,
            bytes_per_image,
        )?;
        let Some(src) = NonNull::new(bytes.as_ptr().cast_mut().cast::<c_void>()) else {
            return Ok(());
        };
        // SAFETY: `checked` showed the region lies in the level and slice
        // and that `bytes` holds every row Metal reads; Metal only reads.
        unsafe {
            self.raw
                .replaceRegion_mipmapLevel_slice_withBytes_bytesPerRow_bytesPerImage(
                    r,
                    level as usize,
                    slice as usize,
                    src,
                    bytes_per_row,
                    bytes_per_image,
                )
        };
        Ok(())
    }

    /// Host readback (`getBytes:bytesPerRow:bytesPerImage:fromRegion:mipmapLevel:slice:`):
    /// the region's texels into `out`, rows `bytes_per_row` apart, depth
    /// images `bytes_per_image` apart.
    pub fn get_bytes(
        &self,
        out: &mut [u8],
        bytes_per_row: usize,
        bytes_per_image: usize,
        region: TextureRegion,
        level: u32,
        slice: u32,
    ) -> Result<(), MetalError> {
        let r = self.checked(
            region,
            level,
            slice,
            out.len(),
            bytes_per_row,
            bytes_per_image,
        )?;
        let Some(dst) = NonNull::new(out.as_mut_ptr().cast::<c_void>()) else {
            return Ok(());
        };
        // SAFETY: as in `replace_region`; `out` is exclusively borrowed and
        // holds every row Metal writes.
        unsafe {
            self.raw
                .getBytes_bytesPerRow_bytesPerImage_fromRegion_mipmapLevel_slice(
                    dst,
                    bytes_per_row,
                    bytes_per_image,
                    r,
                    level as usize,
                    slice as usize,
                )
        };
        Ok(())
    }

    /// The whole of `level`, `slice`, rows tightly packed.
    pub fn level_bytes(&self, level: u32, slice: u32) -> Result<Vec<u8>, MetalError> {
        let (region, row, image) = self.desc.packed_level(level);
        let mut out = vec![0; image * region.size[2] as usize];
        self.get_bytes(&mut out, row, image, region, level, slice)?;
        Ok(out)
    }

    /// Writes the whole of `level`, `slice` from tightly packed rows.
    pub fn write_level(&self, level: u32, slice: u32, bytes: &[u8]) -> Result<(), MetalError> {
        let (region, row, image) = self.desc.packed_level(level);
        self.replace_region(region, level, slice, bytes, row, image)
    }

    pub(super) fn resource(&self) -> &ProtocolObject<dyn MTLResource> {
        ProtocolObject::from_ref(&*self.raw)
    }
}

/// A Metal sampler and the descriptor it was made from. Created with
/// `supportArgumentBuffers = YES`, so it may be bound in an argument
/// buffer. Cloning retains the same sampler.
#[derive(Debug, Clone)]
pub struct Sampler {
    raw: Retained<ProtocolObject<dyn MTLSamplerState>>,
    desc: SamplerDescriptor,
}

impl Sampler {
    pub(super) fn new(
        device: &ProtocolObject<dyn MTLDevice>,
        desc: &SamplerDescriptor,
    ) -> Result<Sampler, MetalError> {
        desc.check()
            .map_err(|message| MetalError::InvalidDescriptor {
                what: "sampler",
                message,
            })?;
        let d = MTLSamplerDescriptor::new();
        d.setMinFilter(conv::map_min_mag_filter(desc.min_filter));
        d.setMagFilter(conv::map_min_mag_filter(desc.mag_filter));
        d.setMipFilter(conv::map_mip_filter(desc.mip_filter));
        d.setSAddressMode(conv::map_address_mode(desc.s_address_mode));
        d.setTAddressMode(conv::map_address_mode(desc.t_address_mode));
        d.setRAddressMode(conv::map_address_mode(desc.r_address_mode));
        d.setBorderColor(conv::map_border_color(desc.border_color));
        d.setNormalizedCoordinates(desc.normalized_coordinates);
        d.setLodMinClamp(desc.lod_min_clamp);
        d.setLodMaxClamp(desc.lod_max_clamp);
        d.setSupportArgumentBuffers(true);
        let raw = device
            .newSamplerStateWithDescriptor(&d)
            .ok_or_else(|| MetalError::Creation {
                what: "a sampler".into(),
            })?;
        Ok(Sampler { raw, desc: *desc })
    }

    /// The `MTLSamplerState`.
    pub fn raw(&self) -> &ProtocolObject<dyn MTLSamplerState> {
        &self.raw
    }

    /// What it was made from.
    pub fn descriptor(&self) -> &SamplerDescriptor {
        &self.desc
    }

    /// Its `gpuResourceID` (Metal 3).
    pub fn gpu_resource_id(&self) -> u64 {
        self.raw.gpuResourceID().to_raw()
    }

    /// Whether `self` and `other` are the same sampler.
    pub fn same(&self, other: &Sampler) -> bool {
        std::ptr::eq::<ProtocolObject<dyn MTLSamplerState>>(&*self.raw, &*other.raw)
    }
}
