//! Textures and samplers of the CPU device: what `MTLTextureDescriptor` and
//! `MTLSamplerDescriptor` describe, in shared memory the kernel reads
//! through the shim's `texture*` and `sampler` types (`shim/metal_texture`).
//!
//! A texture is one shared mapping (`MAP_SHARED`, so a dispatch's forked
//! child writes the caller's texels): a [`HEADER_BYTES`] header the shim
//! reads (`halc_texture`: where the texels are, type, pixel format,
//! dimensions, the byte offset of each mip level, a label for fault
//! messages), then the texels: levels in order, each level's slices in
//! order (array elements; six faces per cube), each slice's rows (and depth
//! images) tightly packed. Its resource id (what an argument buffer holds,
//! Metal's `gpuResourceID`) is the header's host address, as a buffer's GPU
//! address is its host address. A sampler is a small header
//! (`halc_sampler`) the same way.
//!
//! A texture created on a buffer ([`Texture::on_buffer`], Metal's
//! `newTextureWithDescriptor:offset:bytesPerRow:`: one 2D level) has only
//! the header in its own mapping: its texels are the buffer's bytes from
//! the offset, rows `bytes_per_row` apart (the header's `row_bytes`), so
//! what a kernel writes through the buffer the texture reads, and back.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::buffer::{Buffer, Mapping};
use super::CpuError;
pub use crate::image::{
    AddressMode, BorderColor, ComponentKind, MinMagFilter, MipFilter, PixelFormat,
    SamplerDescriptor, TextureDescriptor, TextureRegion, TextureType, MAX_MIP_LEVELS,
};

/// Bytes before the texels: the header the shim reads.
pub(super) const HEADER_BYTES: usize = 256;

/// Where the header's label starts (after `row_bytes` and a reserved word).
const LABEL_AT: usize = 176;

/// The code the shim reads (`halc_texture.type`).
fn type_code(t: TextureType) -> u32 {
    match t {
        TextureType::D1 => 0,
        TextureType::D1Array => 1,
        TextureType::D2 => 2,
        TextureType::D2Array => 3,
        TextureType::D3 => 4,
        TextureType::Cube => 5,
        TextureType::CubeArray => 6,
        TextureType::TextureBuffer => 7,
    }
}

/// Byte offset of each level's first slice from the first texel, and the
/// total length.
fn level_offsets(desc: &TextureDescriptor) -> (Vec<u64>, u64) {
    let mut at = 0u64;
    let mut offsets = Vec::new();
    for level in 0..desc.mipmap_level_count {
        offsets.push(at);
        at += desc.slice_bytes(level) * u64::from(desc.slices());
    }
    (offsets, at)
}

/// One row of a region: its byte offset in the mapping, and its row and
/// depth image within the region.
struct Row {
    at: usize,
    y: u32,
    z: u32,
}

/// A texture of the CPU device (Metal's `MTLTexture`): made by
/// [`super::Device::texture`], filled and read by the host per level and
/// slice ([`Texture::replace_region`], [`Texture::get_bytes`]), bound with
/// [`super::Bound::Texture`]. Cloning shares it. Kernels read and write it
/// with Metal's conversion rules (see the shim's `metal_texture`); an access
/// outside it fails the dispatch with an error naming its label.
///
/// Its storage is shared (`MTLStorageModeShared`): the host may read what a
/// dispatch wrote as soon as the dispatch completed. The CPU backend does
/// not model private or managed textures (Metal's `blitEncoder` copies and
/// `synchronizeResource:` of them).
#[derive(Debug, Clone)]
pub struct Texture {
    inner: Arc<TextureInner>,
}

#[derive(Debug)]
struct TextureInner {
    m: Mapping,
    desc: TextureDescriptor,
    offsets: Vec<u64>,
    label: String,
    /// Created on a buffer: the buffer, the offset of the first row, and
    /// the bytes between rows.
    storage: Option<(Buffer, u64, u64)>,
    /// A view ([`Texture::view_levels`]): the texture whose texels it
    /// shares, and the byte offset of its first level in them.
    parent: Option<(Texture, u64)>,
}

static NEXT_TEXTURE: AtomicU64 = AtomicU64::new(1);

impl Texture {
    pub(super) fn new(desc: &TextureDescriptor) -> Result<Texture, CpuError> {
        Texture::make(desc, None, None)
    }

    /// A view of levels `base..base + count` of the texture, sharing its
    /// texels (`newTextureViewWithPixelFormat:textureType:levels:slices:`
    /// with the texture's own format, type and slices): its level 0 is the
    /// texture's level `base`. What a Vulkan image view with a base mip
    /// level is on Metal. Not of a texture made on a buffer (one level).
    pub fn view_levels(&self, base: u32, count: u32) -> Result<Texture, CpuError> {
        let d = &self.inner.desc;
        let bad = |message: String| CpuError::InvalidDescriptor {
            what: "texture view",
            message,
        };
        if self.inner.storage.is_some() {
            return Err(bad(
                "a texture made on a buffer has no views of its levels here".into(),
            ));
        }
        let desc = d.levels_view(base, count).map_err(bad)?;
        // The view's levels are the texture's from `base`, packed alike.
        let from = self.inner.offsets[base as usize];
        let (offsets, _) = level_offsets(&desc);
        for (j, o) in offsets.iter().enumerate() {
            if self.inner.offsets[base as usize + j] - from != *o {
                return Err(bad(format!(
                    "level {} of the texture is not laid out as level {j} of a view",
                    base as usize + j
                )));
            }
        }
        let parent = match &self.inner.parent {
            Some((root, off)) => (root.clone(), off + from),
            None => (self.clone(), from),
        };
        Texture::make(&desc, None, Some(parent))
    }

    /// The texture a view shares its texels with ([`Texture::view_levels`]).
    pub fn viewed(&self) -> Option<&Texture> {
        self.inner.parent.as_ref().map(|(t, _)| t)
    }

    /// A 2D texture of one level, or a texture buffer, whose texels are
    /// `buffer`'s bytes from `offset`, rows `bytes_per_row` apart
    /// (`newTextureWithDescriptor:offset:bytesPerRow:`); fails for what
    /// Metal would refuse (another type, mip levels, rows shorter than the
    /// width, an offset or row pitch that is not a multiple of the texel
    /// size, texels past the buffer's end). A texture buffer on a buffer is
    /// what Metal binds for a Vulkan texel buffer: its texels are the
    /// buffer's bytes, so a kernel writing one sees the other.
    pub(super) fn on_buffer(
        desc: &TextureDescriptor,
        buffer: &Buffer,
        offset: u64,
        bytes_per_row: u64,
    ) -> Result<Texture, CpuError> {
        let bad = |message: String| CpuError::InvalidDescriptor {
            what: "texture on a buffer",
            message,
        };
        desc.check_on_buffer(offset, bytes_per_row, buffer.len())
            .map_err(bad)?;
        Texture::make(desc, Some((buffer.clone(), offset, bytes_per_row)), None)
    }

    fn make(
        desc: &TextureDescriptor,
        storage: Option<(Buffer, u64, u64)>,
        parent: Option<(Texture, u64)>,
    ) -> Result<Texture, CpuError> {
        desc.check()
            .map_err(|message| CpuError::InvalidDescriptor {
                what: "texture",
                message,
            })?;
        let (offsets, len) = level_offsets(desc);
        let own = if storage.is_some() || parent.is_some() {
            0
        } else {
            len
        };
        let len = usize::try_from(own)
            .ok()
            .and_then(|l| l.checked_add(HEADER_BYTES))
            .ok_or_else(|| CpuError::Os {
                what: format!("a {len}-byte texture"),
                message: "larger than the address space".into(),
            })?;
        let m = Mapping::new(len)?;
        let (n, bits, kind, packing) = desc.pixel_format.layout();
        let f = desc.pixel_format;
        let [w, h, d] = desc.level_size(0);
        let label = format!(
            "texture #{} ({:?} {f:?} {w}x{h}x{d}, {} slices, {} levels{})",
            NEXT_TEXTURE.fetch_add(1, Ordering::Relaxed),
            desc.texture_type,
            desc.slices(),
            desc.mipmap_level_count,
            match (&storage, &parent) {
                (Some(_), _) => ", on a buffer".to_string(),
                (_, Some((p, _))) => format!(
                    ", a view of texture {}",
                    p.label().split(' ').nth(1).unwrap_or("")
                ),
                _ => String::new(),
            }
        );
        let mut header = [0u8; HEADER_BYTES];
        let data = match (&storage, &parent) {
            (Some((b, offset, _)), _) => b.mapping().ptr() as u64 + offset,
            (None, Some((p, offset))) => p.data() as u64 + offset,
            (None, None) => m.ptr() as u64 + HEADER_BYTES as u64,
        };
        let row_bytes = storage.as_ref().map_or(0, |(_, _, p)| *p as u32);
        let mut put = |at: usize, bytes: &[u8]| header[at..at + bytes.len()].copy_from_slice(bytes);
        put(0, &data.to_le_bytes());
        put(8, &type_code(desc.texture_type).to_le_bytes());
        put(12, &[n, bits, kind as u8, packing]);
        put(16, &w.to_le_bytes());
        put(20, &h.to_le_bytes());
        put(24, &d.to_le_bytes());
        put(28, &desc.slices().to_le_bytes());
        put(32, &desc.mipmap_level_count.to_le_bytes());
        put(36, &f.bytes_per_texel().to_le_bytes());
        for (i, o) in offsets.iter().enumerate() {
            put(40 + 8 * i, &o.to_le_bytes());
        }
        put(168, &row_bytes.to_le_bytes());
        let name = &label.as_bytes()[..label.len().min(HEADER_BYTES - LABEL_AT - 1)];
        put(LABEL_AT, name);
        // SAFETY: the fresh mapping holds at least HEADER_BYTES writable
        // bytes and cannot overlap `header`.
        unsafe { std::ptr::copy_nonoverlapping(header.as_ptr(), m.ptr(), HEADER_BYTES) };
        Ok(Texture {
            inner: Arc::new(TextureInner {
                m,
                desc: *desc,
                offsets,
                label,
                storage,
                parent,
            }),
        })
    }

    /// The buffer it was created on, the offset of its first row and the
    /// bytes between rows (`Device::texture_on_buffer`).
    pub fn storage_buffer(&self) -> Option<(&Buffer, u64, u64)> {
        self.inner
            .storage
            .as_ref()
            .map(|(b, offset, pitch)| (b, *offset, *pitch))
    }

    /// Its first texel.
    fn data(&self) -> *mut u8 {
        if let Some((p, offset)) = &self.inner.parent {
            // SAFETY: `view_levels` took the offset of one of the parent's
            // levels.
            return unsafe { p.data().add(*offset as usize) };
        }
        match &self.inner.storage {
            // SAFETY: `on_buffer` checked the texels lie in the buffer.
            Some((b, offset, _)) => unsafe { b.mapping().ptr().add(*offset as usize) },
            // SAFETY: the mapping holds the header, then the texels.
            None => unsafe { self.inner.m.ptr().add(HEADER_BYTES) },
        }
    }

    /// What it was made from.
    pub fn descriptor(&self) -> &TextureDescriptor {
        &self.inner.desc
    }

    /// How errors name it: `texture #N (type format size, slices, levels)`.
    pub fn label(&self) -> &str {
        &self.inner.label
    }

    /// Its resource id (`gpuResourceID`): what an argument buffer holds and
    /// what the kernel's texture object finds it by (the header's address).
    pub fn gpu_resource_id(&self) -> u64 {
        self.inner.m.ptr() as u64
    }

    /// Whether `self` and `other` are the same texture.
    pub fn same(&self, other: &Texture) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    pub(super) fn mapping(&self) -> &Mapping {
        &self.inner.m
    }

    /// Each row of `region` in `level`, `slice`, and the rows' length in
    /// bytes; checks the region lies inside.
    fn rows(
        &self,
        region: TextureRegion,
        level: u32,
        slice: u32,
    ) -> Result<(Vec<Row>, usize), CpuError> {
        let d = &self.inner.desc;
        let bad = |message: String| CpuError::TextureAccess {
            texture: self.label().to_string(),
            message,
        };
        d.check_region(region, level, slice).map_err(bad)?;
        let size = d.level_size(level);
        let bpt = d.pixel_format.bytes_per_texel() as usize;
        let base = self.inner.offsets[level as usize] as usize
            + slice as usize * d.slice_bytes(level) as usize;
        let row_pitch = match &self.inner.storage {
            Some((_, _, pitch)) => *pitch as usize,
            None => size[0] as usize * bpt,
        };
        let image_pitch = row_pitch * size[1] as usize;
        let mut rows = Vec::new();
        for z in 0..region.size[2] {
            for y in 0..region.size[1] {
                let at = base
                    + (region.origin[2] + z) as usize * image_pitch
                    + (region.origin[1] + y) as usize * row_pitch
                    + region.origin[0] as usize * bpt;
                rows.push(Row { at, y, z });
            }
        }
        Ok((rows, region.size[0] as usize * bpt))
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
    ) -> Result<(), CpuError> {
        let (rows, row_len) = self.rows(region, level, slice)?;
        for Row { at, y, z } in rows {
            let from = z as usize * bytes_per_image + y as usize * bytes_per_row;
            let src = bytes
                .get(from..from + row_len)
                .ok_or_else(|| CpuError::TextureAccess {
                    texture: self.label().to_string(),
                    message: format!(
                        "{} bytes given, row {y} of image {z} ends at byte {}",
                        bytes.len(),
                        from + row_len
                    ),
                })?;
            // SAFETY: `rows` checked the region against the level, so `at ..
            // at + row_len` lies in the mapping's bytes, which a Rust slice
            // cannot overlap.
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.data().add(at), row_len) };
        }
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
    ) -> Result<(), CpuError> {
        let (rows, row_len) = self.rows(region, level, slice)?;
        let len = out.len();
        for Row { at, y, z } in rows {
            let from = z as usize * bytes_per_image + y as usize * bytes_per_row;
            let dst = out
                .get_mut(from..from + row_len)
                .ok_or_else(|| CpuError::TextureAccess {
                    texture: self.label().to_string(),
                    message: format!(
                        "{len} bytes given, row {y} of image {z} ends at byte {}",
                        from + row_len
                    ),
                })?;
            // SAFETY: as in `replace_region`.
            unsafe {
                std::ptr::copy_nonoverlapping(self.data().add(at), dst.as_mut_ptr(), row_len)
            };
        }
        Ok(())
    }

    /// The whole of `level`, `slice`, rows tightly packed.
    pub fn level_bytes(&self, level: u32, slice: u32) -> Result<Vec<u8>, CpuError> {
        let (region, row, image) = self.inner.desc.packed_level(level);
        let mut out = vec![0; image * region.size[2] as usize];
        self.get_bytes(&mut out, row, image, region, level, slice)?;
        Ok(out)
    }

    /// Writes the whole of `level`, `slice` from tightly packed rows.
    pub fn write_level(&self, level: u32, slice: u32, bytes: &[u8]) -> Result<(), CpuError> {
        let (region, row, image) = self.inner.desc.packed_level(level);
        self.replace_region(region, level, slice, bytes, row, image)
    }
}

/// A sampler of the CPU device (`MTLSamplerState`), made by
/// [`super::Device::sampler`], bound with [`super::Bound::Sampler`]. Cloning
/// shares it.
#[derive(Debug, Clone)]
pub struct Sampler {
    inner: Arc<SamplerInner>,
}

#[derive(Debug)]
struct SamplerInner {
    /// `halc_sampler` (read by the kernel through its address).
    state: Box<[u32; 16]>,
    desc: SamplerDescriptor,
}

impl Sampler {
    pub(super) fn new(desc: &SamplerDescriptor) -> Result<Sampler, CpuError> {
        desc.check()
            .map_err(|message| CpuError::InvalidDescriptor {
                what: "sampler",
                message,
            })?;
        let mode = |m: AddressMode| match m {
            AddressMode::ClampToEdge => 0,
            AddressMode::MirrorClampToEdge => 1,
            AddressMode::Repeat => 2,
            AddressMode::MirrorRepeat => 3,
            AddressMode::ClampToZero => 4,
            AddressMode::ClampToBorderColor => 5,
        };
        let mut state = Box::new([0u32; 16]);
        state[0] = desc.min_filter as u32;
        state[1] = desc.mag_filter as u32;
        state[2] = desc.mip_filter as u32;
        state[3] = mode(desc.s_address_mode);
        state[4] = mode(desc.t_address_mode);
        state[5] = mode(desc.r_address_mode);
        state[6] = desc.border_color as u32;
        state[7] = u32::from(desc.normalized_coordinates);
        state[8] = desc.lod_min_clamp.to_bits();
        state[9] = desc.lod_max_clamp.to_bits();
        Ok(Sampler {
            inner: Arc::new(SamplerInner { state, desc: *desc }),
        })
    }

    /// What it was made from.
    pub fn descriptor(&self) -> &SamplerDescriptor {
        &self.inner.desc
    }

    /// Its resource id (`gpuResourceID`): the address of the state the
    /// kernel's `sampler` reads.
    pub fn gpu_resource_id(&self) -> u64 {
        self.inner.state.as_ptr() as u64
    }

    /// Whether `self` and `other` are the same sampler.
    pub fn same(&self, other: &Sampler) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
