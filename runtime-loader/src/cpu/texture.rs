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

/// Bytes before the texels: the header the shim reads.
pub(super) const HEADER_BYTES: usize = 256;

/// Where the header's label starts (after `row_bytes` and a reserved word).
const LABEL_AT: usize = 176;

/// At most this many mip levels (a 32768-texel dimension has 16).
pub const MAX_MIP_LEVELS: u32 = 16;

/// `MTLTextureType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureType {
    /// `MTLTextureType1D` (`texture1d`).
    D1,
    /// `MTLTextureType1DArray` (`texture1d_array`).
    D1Array,
    /// `MTLTextureType2D` (`texture2d`).
    D2,
    /// `MTLTextureType2DArray` (`texture2d_array`).
    D2Array,
    /// `MTLTextureType3D` (`texture3d`).
    D3,
    /// `MTLTextureTypeCube` (`texturecube`): six square faces.
    Cube,
    /// `MTLTextureTypeCubeArray` (`texturecube_array`).
    CubeArray,
    /// `MTLTextureTypeTextureBuffer` (`texture_buffer`): `width` texels, one
    /// level (a Vulkan texel buffer).
    TextureBuffer,
}

impl TextureType {
    /// The code the shim reads (`halc_texture.type`).
    fn code(self) -> u32 {
        match self {
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

    fn is_array(self) -> bool {
        matches!(
            self,
            TextureType::D1Array | TextureType::D2Array | TextureType::CubeArray
        )
    }

    fn is_cube(self) -> bool {
        matches!(self, TextureType::Cube | TextureType::CubeArray)
    }
}

/// What the bits of one component mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ComponentKind {
    /// Unsigned normalized: `c / (2^bits - 1)`.
    Unorm,
    /// Signed normalized: `max(-1, c / (2^(bits-1) - 1))`.
    Snorm,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// IEEE float (16 or 32 bits; 11 and 10 bits unsigned for
    /// [`PixelFormat::RG11B10Float`]).
    Float,
}

/// `MTLPixelFormat`: the formats Vulkan storage and sampled images and
/// texel buffers map to.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PixelFormat {
    R8Unorm,
    R8Snorm,
    R8Uint,
    R8Sint,
    R16Unorm,
    R16Snorm,
    R16Uint,
    R16Sint,
    R16Float,
    R32Uint,
    R32Sint,
    R32Float,
    RG8Unorm,
    RG8Snorm,
    RG8Uint,
    RG8Sint,
    RG16Unorm,
    RG16Snorm,
    RG16Uint,
    RG16Sint,
    RG16Float,
    RG32Uint,
    RG32Sint,
    RG32Float,
    RGBA8Unorm,
    RGBA8Snorm,
    RGBA8Uint,
    RGBA8Sint,
    RGBA16Unorm,
    RGBA16Snorm,
    RGBA16Uint,
    RGBA16Sint,
    RGBA16Float,
    RGBA32Uint,
    RGBA32Sint,
    RGBA32Float,
    /// Four 8-bit unorm components stored blue, green, red, alpha.
    BGRA8Unorm,
    /// [`PixelFormat::RGBA8Unorm`] with sRGB-encoded red, green and blue:
    /// reads convert to linear, writes from linear (the MSL specification's
    /// formulas), alpha is plain unorm.
    RGBA8UnormSrgb,
    /// [`PixelFormat::BGRA8Unorm`] with sRGB-encoded colour.
    BGRA8UnormSrgb,
    /// 10-bit unorm red, green, blue and 2-bit alpha in one little-endian
    /// 32-bit word, red in the low bits.
    RGB10A2Unorm,
    /// As [`PixelFormat::RGB10A2Unorm`], unsigned integers.
    RGB10A2Uint,
    /// Unsigned 11-bit floats red and green, a 10-bit float blue, red in the
    /// low bits of a 32-bit word.
    RG11B10Float,
}

/// How the shim packs a format (`halc_texture.packing`).
const PACK_PLAIN: u8 = 0;
const PACK_BGRA8: u8 = 1;
const PACK_RGB10A2: u8 = 2;
const PACK_RG11B10: u8 = 3;
const PACK_RGBA8_SRGB: u8 = 4;
const PACK_BGRA8_SRGB: u8 = 5;

impl PixelFormat {
    /// (components, bits per component, kind, packing).
    fn layout(self) -> (u8, u8, ComponentKind, u8) {
        use ComponentKind::*;
        use PixelFormat::*;
        match self {
            R8Unorm => (1, 8, Unorm, PACK_PLAIN),
            R8Snorm => (1, 8, Snorm, PACK_PLAIN),
            R8Uint => (1, 8, Uint, PACK_PLAIN),
            R8Sint => (1, 8, Sint, PACK_PLAIN),
            R16Unorm => (1, 16, Unorm, PACK_PLAIN),
            R16Snorm => (1, 16, Snorm, PACK_PLAIN),
            R16Uint => (1, 16, Uint, PACK_PLAIN),
            R16Sint => (1, 16, Sint, PACK_PLAIN),
            R16Float => (1, 16, Float, PACK_PLAIN),
            R32Uint => (1, 32, Uint, PACK_PLAIN),
            R32Sint => (1, 32, Sint, PACK_PLAIN),
            R32Float => (1, 32, Float, PACK_PLAIN),
            RG8Unorm => (2, 8, Unorm, PACK_PLAIN),
            RG8Snorm => (2, 8, Snorm, PACK_PLAIN),
            RG8Uint => (2, 8, Uint, PACK_PLAIN),
            RG8Sint => (2, 8, Sint, PACK_PLAIN),
            RG16Unorm => (2, 16, Unorm, PACK_PLAIN),
            RG16Snorm => (2, 16, Snorm, PACK_PLAIN),
            RG16Uint => (2, 16, Uint, PACK_PLAIN),
            RG16Sint => (2, 16, Sint, PACK_PLAIN),
            RG16Float => (2, 16, Float, PACK_PLAIN),
            RG32Uint => (2, 32, Uint, PACK_PLAIN),
            RG32Sint => (2, 32, Sint, PACK_PLAIN),
            RG32Float => (2, 32, Float, PACK_PLAIN),
            RGBA8Unorm => (4, 8, Unorm, PACK_PLAIN),
            RGBA8Snorm => (4, 8, Snorm, PACK_PLAIN),
            RGBA8Uint => (4, 8, Uint, PACK_PLAIN),
            RGBA8Sint => (4, 8, Sint, PACK_PLAIN),
            RGBA16Unorm => (4, 16, Unorm, PACK_PLAIN),
            RGBA16Snorm => (4, 16, Snorm, PACK_PLAIN),
            RGBA16Uint => (4, 16, Uint, PACK_PLAIN),
            RGBA16Sint => (4, 16, Sint, PACK_PLAIN),
            RGBA16Float => (4, 16, Float, PACK_PLAIN),
            RGBA32Uint => (4, 32, Uint, PACK_PLAIN),
            RGBA32Sint => (4, 32, Sint, PACK_PLAIN),
            RGBA32Float => (4, 32, Float, PACK_PLAIN),
            BGRA8Unorm => (4, 8, Unorm, PACK_BGRA8),
            RGBA8UnormSrgb => (4, 8, Unorm, PACK_RGBA8_SRGB),
            BGRA8UnormSrgb => (4, 8, Unorm, PACK_BGRA8_SRGB),
            RGB10A2Unorm => (4, 10, Unorm, PACK_RGB10A2),
            RGB10A2Uint => (4, 10, Uint, PACK_RGB10A2),
            RG11B10Float => (3, 11, Float, PACK_RG11B10),
        }
    }

    /// Bytes per texel.
    pub fn bytes_per_texel(self) -> u32 {
        match self.layout() {
            (_, _, _, PACK_RGB10A2 | PACK_RG11B10) => 4,
            (n, bits, _, _) => u32::from(n) * u32::from(bits) / 8,
        }
    }

    /// Components stored (a format without alpha reads alpha as 1).
    pub fn components(self) -> u32 {
        u32::from(self.layout().0)
    }

    /// What the components' bits mean.
    pub fn kind(self) -> ComponentKind {
        self.layout().2
    }

    /// Whether a kernel reads it as integers (`texture2d<int>` /
    /// `texture2d<uint>`) rather than as floats.
    pub fn is_integer(self) -> bool {
        matches!(self.kind(), ComponentKind::Uint | ComponentKind::Sint)
    }
}

/// `MTLTextureDescriptor`: what a texture is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureDescriptor {
    /// `textureType`.
    pub texture_type: TextureType,
    /// `pixelFormat`.
    pub pixel_format: PixelFormat,
    /// `width`, in texels (≥ 1).
    pub width: u32,
    /// `height` (1 for 1D textures and texture buffers; `width` for cubes).
    pub height: u32,
    /// `depth` (1 unless 3D).
    pub depth: u32,
    /// `arrayLength`: array elements of an array texture (cubes of a cube
    /// array), else 1.
    pub array_length: u32,
    /// `mipmapLevelCount` (1 for a texture buffer).
    pub mipmap_level_count: u32,
}

impl TextureDescriptor {
    /// A 2D texture of one level (`texture2DDescriptorWithPixelFormat`).
    pub fn d2(pixel_format: PixelFormat, width: u32, height: u32) -> TextureDescriptor {
        TextureDescriptor {
            texture_type: TextureType::D2,
            pixel_format,
            width,
            height,
            depth: 1,
            array_length: 1,
            mipmap_level_count: 1,
        }
    }

    /// A texture buffer of `width` texels
    /// (`textureBufferDescriptorWithPixelFormat`).
    pub fn texture_buffer(pixel_format: PixelFormat, width: u32) -> TextureDescriptor {
        TextureDescriptor {
            texture_type: TextureType::TextureBuffer,
            ..TextureDescriptor::d2(pixel_format, width, 1)
        }
    }

    /// Slices: array elements, times six faces for cubes.
    pub fn slices(&self) -> u32 {
        if self.texture_type.is_cube() {
            6 * self.array_length
        } else {
            self.array_length
        }
    }

    /// (width, height, depth) of mip level `level`.
    pub fn level_size(&self, level: u32) -> [u32; 3] {
        [
            (self.width >> level).max(1),
            (self.height >> level).max(1),
            (self.depth >> level).max(1),
        ]
    }

    /// Bytes of one slice of `level`.
    fn slice_bytes(&self, level: u32) -> u64 {
        let [w, h, d] = self.level_size(level);
        u64::from(w) * u64::from(h) * u64::from(d) * u64::from(self.pixel_format.bytes_per_texel())
    }

    /// Byte offset of each level's first slice from the first texel, and the
    /// total length.
    fn level_offsets(&self) -> (Vec<u64>, u64) {
        let mut at = 0u64;
        let mut offsets = Vec::new();
        for level in 0..self.mipmap_level_count {
            offsets.push(at);
            at += self.slice_bytes(level) * u64::from(self.slices());
        }
        (offsets, at)
    }

    /// What Metal would refuse.
    fn check(&self) -> Result<(), String> {
        let t = self.texture_type;
        if self.width == 0 || self.height == 0 || self.depth == 0 || self.array_length == 0 {
            return Err(format!(
                "width, height, depth and array length must be at least 1 (got {}x{}x{}, {} elements)",
                self.width, self.height, self.depth, self.array_length
            ));
        }
        let one_d = matches!(
            t,
            TextureType::D1 | TextureType::D1Array | TextureType::TextureBuffer
        );
        if one_d && self.height != 1 {
            return Err(format!(
                "a {t:?} texture has height 1 (got {})",
                self.height
            ));
        }
        if t != TextureType::D3 && self.depth != 1 {
            return Err(format!("only a 3D texture has depth (got {})", self.depth));
        }
        if !t.is_array() && self.array_length != 1 {
            return Err(format!(
                "a {t:?} texture is not an array (array length {})",
                self.array_length
            ));
        }
        if t.is_cube() && self.width != self.height {
            return Err(format!(
                "a cube's faces are square (got {}x{})",
                self.width, self.height
            ));
        }
        let largest = self.width.max(self.height).max(self.depth);
        let full_chain = 32 - largest.leading_zeros();
        if self.mipmap_level_count == 0 || self.mipmap_level_count > full_chain {
            return Err(format!(
                "{} mip levels: a {}-texel texture has 1 to {full_chain}",
                self.mipmap_level_count, largest
            ));
        }
        if self.mipmap_level_count > MAX_MIP_LEVELS {
            return Err(format!(
                "{} mip levels: the CPU backend keeps at most {MAX_MIP_LEVELS} (a 32768-texel texture's)",
                self.mipmap_level_count
            ));
        }
        if t == TextureType::TextureBuffer && self.mipmap_level_count != 1 {
            return Err("a texture buffer has one mip level".into());
        }
        Ok(())
    }
}

/// A region of one slice of one mip level (`MTLRegion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureRegion {
    /// First texel (x, y, z).
    pub origin: [u32; 3],
    /// Texels (width, height, depth).
    pub size: [u32; 3],
}

impl TextureRegion {
    /// The whole of mip level `level` of `desc`.
    pub fn whole(desc: &TextureDescriptor, level: u32) -> TextureRegion {
        TextureRegion {
            origin: [0; 3],
            size: desc.level_size(level),
        }
    }
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
        if count == 0 || u64::from(base) + u64::from(count) > u64::from(d.mipmap_level_count) {
            return Err(bad(format!(
                "levels {base}..{} of a texture of {} levels",
                u64::from(base) + u64::from(count),
                d.mipmap_level_count
            )));
        }
        if self.inner.storage.is_some() {
            return Err(bad(
                "a texture made on a buffer has no views of its levels here".into(),
            ));
        }
        let [w, h, depth] = d.level_size(base);
        let desc = TextureDescriptor {
            width: w,
            height: h,
            depth,
            mipmap_level_count: count,
            ..*d
        };
        // The view's levels are the texture's from `base`, packed alike.
        let from = self.inner.offsets[base as usize];
        let (offsets, _) = desc.level_offsets();
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
        if !matches!(
            desc.texture_type,
            TextureType::D2 | TextureType::TextureBuffer
        ) || desc.mipmap_level_count != 1
        {
            return Err(bad(format!(
                "a texture created on a buffer is 2D with one mip level, or a texture buffer (got {:?}, {} levels)",
                desc.texture_type, desc.mipmap_level_count
            )));
        }
        desc.check().map_err(bad)?;
        let bpt = u64::from(desc.pixel_format.bytes_per_texel());
        let row = u64::from(desc.width) * bpt;
        if bytes_per_row < row || bytes_per_row % bpt != 0 || offset % bpt != 0 {
            return Err(bad(format!(
                "{bytes_per_row} bytes per row from offset {offset}: a row of {} texels needs at least {row}, and both must be multiples of the {bpt}-byte texel",
                desc.width
            )));
        }
        if u32::try_from(bytes_per_row).is_err() {
            return Err(bad(format!("{bytes_per_row} bytes per row is too many")));
        }
        let end = offset + bytes_per_row * u64::from(desc.height - 1) + row;
        if end > buffer.len() {
            return Err(bad(format!(
                "its texels end at byte {end} of a {}-byte buffer",
                buffer.len()
            )));
        }
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
        let (offsets, len) = desc.level_offsets();
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
        put(8, &desc.texture_type.code().to_le_bytes());
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
        if level >= d.mipmap_level_count {
            return Err(bad(format!(
                "mip level {level} of {}",
                d.mipmap_level_count
            )));
        }
        if slice >= d.slices() {
            return Err(bad(format!("slice {slice} of {}", d.slices())));
        }
        let size = d.level_size(level);
        for i in 0..3 {
            let end = u64::from(region.origin[i]) + u64::from(region.size[i]);
            if end > u64::from(size[i]) {
                return Err(bad(format!(
                    "region {:?}+{:?} is outside level {level} ({}x{}x{})",
                    region.origin, region.size, size[0], size[1], size[2]
                )));
            }
        }
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
        let d = &self.inner.desc;
        let region = TextureRegion::whole(d, level.min(d.mipmap_level_count.saturating_sub(1)));
        let row = region.size[0] as usize * d.pixel_format.bytes_per_texel() as usize;
        let image = row * region.size[1] as usize;
        let mut out = vec![0; image * region.size[2] as usize];
        self.get_bytes(&mut out, row, image, region, level, slice)?;
        Ok(out)
    }

    /// Writes the whole of `level`, `slice` from tightly packed rows.
    pub fn write_level(&self, level: u32, slice: u32, bytes: &[u8]) -> Result<(), CpuError> {
        let d = &self.inner.desc;
        let region = TextureRegion::whole(d, level.min(d.mipmap_level_count.saturating_sub(1)));
        let row = region.size[0] as usize * d.pixel_format.bytes_per_texel() as usize;
        let image = row * region.size[1] as usize;
        self.replace_region(region, level, slice, bytes, row, image)
    }
}

/// `MTLSamplerMinMagFilter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MinMagFilter {
    /// The nearest texel.
    #[default]
    Nearest,
    /// Bilinear (trilinear for 3D) between the nearest texels.
    Linear,
}

/// `MTLSamplerMipFilter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MipFilter {
    /// Level 0 only.
    #[default]
    NotMipmapped,
    /// The nearest level.
    Nearest,
    /// Between the two nearest levels.
    Linear,
}

/// `MTLSamplerAddressMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AddressMode {
    /// The edge texel.
    #[default]
    ClampToEdge,
    /// Mirrored once, then the edge texel.
    MirrorClampToEdge,
    /// Wraps around.
    Repeat,
    /// Wraps around, every other repetition mirrored.
    MirrorRepeat,
    /// Zero: (0, 0, 0, 0), alpha 1 for a format without alpha.
    ClampToZero,
    /// The sampler's [`BorderColor`].
    ClampToBorderColor,
}

/// `MTLSamplerBorderColor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BorderColor {
    /// (0, 0, 0, 0); (0, 0, 0, 1) for a format without alpha.
    #[default]
    TransparentBlack,
    /// (0, 0, 0, 1).
    OpaqueBlack,
    /// (1, 1, 1, 1).
    OpaqueWhite,
}

/// `MTLSamplerDescriptor`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplerDescriptor {
    /// `minFilter`.
    pub min_filter: MinMagFilter,
    /// `magFilter`.
    pub mag_filter: MinMagFilter,
    /// `mipFilter`.
    pub mip_filter: MipFilter,
    /// `sAddressMode`.
    pub s_address_mode: AddressMode,
    /// `tAddressMode`.
    pub t_address_mode: AddressMode,
    /// `rAddressMode`.
    pub r_address_mode: AddressMode,
    /// `borderColor`.
    pub border_color: BorderColor,
    /// `normalizedCoordinates`: coordinates in 0..1 rather than texels.
    pub normalized_coordinates: bool,
    /// `lodMinClamp`.
    pub lod_min_clamp: f32,
    /// `lodMaxClamp`.
    pub lod_max_clamp: f32,
}

impl Default for SamplerDescriptor {
    /// Metal's defaults: nearest, not mipmapped, clamp to edge, normalized
    /// coordinates, lod 0 to `f32::MAX`.
    fn default() -> Self {
        SamplerDescriptor {
            min_filter: MinMagFilter::Nearest,
            mag_filter: MinMagFilter::Nearest,
            mip_filter: MipFilter::NotMipmapped,
            s_address_mode: AddressMode::ClampToEdge,
            t_address_mode: AddressMode::ClampToEdge,
            r_address_mode: AddressMode::ClampToEdge,
            border_color: BorderColor::TransparentBlack,
            normalized_coordinates: true,
            lod_min_clamp: 0.0,
            lod_max_clamp: f32::MAX,
        }
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
        let bad = |message: String| CpuError::InvalidDescriptor {
            what: "sampler",
            message,
        };
        if desc.lod_min_clamp.is_nan()
            || desc.lod_max_clamp.is_nan()
            || desc.lod_min_clamp > desc.lod_max_clamp
            || desc.lod_min_clamp < 0.0
        {
            return Err(bad(format!(
                "lod clamp {}..{} (0 <= min <= max)",
                desc.lod_min_clamp, desc.lod_max_clamp
            )));
        }
        if !desc.normalized_coordinates {
            // Metal's rule for pixel coordinates.
            let modes = [
                desc.s_address_mode,
                desc.t_address_mode,
                desc.r_address_mode,
            ];
            if modes.iter().any(|m| {
                !matches!(
                    m,
                    AddressMode::ClampToEdge
                        | AddressMode::ClampToZero
                        | AddressMode::ClampToBorderColor
                )
            }) || desc.mip_filter != MipFilter::NotMipmapped
                || desc.min_filter != desc.mag_filter
            {
                return Err(bad(
                    "with pixel coordinates (normalized_coordinates false) Metal allows only clamp address modes, no mip filter and min filter = mag filter".into(),
                ));
            }
        }
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
