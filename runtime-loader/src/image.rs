//! Textures and samplers as Metal describes them (`MTLTextureDescriptor`,
//! `MTLPixelFormat`, `MTLRegion`, `MTLSamplerDescriptor`), in plain Rust:
//! the one description both backends create their textures and samplers
//! from (`metal::Device::texture`, `cpu::Device::texture`, and `sampler`),
//! with the checks of what Metal refuses, so host code that creates images
//! is the same for both.

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
    /// Whether it has array elements (1D, 2D and cube arrays).
    pub fn is_array(self) -> bool {
        matches!(
            self,
            TextureType::D1Array | TextureType::D2Array | TextureType::CubeArray
        )
    }

    /// Whether its slices are cube faces.
    pub fn is_cube(self) -> bool {
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
pub(crate) const PACK_PLAIN: u8 = 0;
pub(crate) const PACK_BGRA8: u8 = 1;
pub(crate) const PACK_RGB10A2: u8 = 2;
pub(crate) const PACK_RG11B10: u8 = 3;
pub(crate) const PACK_RGBA8_SRGB: u8 = 4;
pub(crate) const PACK_BGRA8_SRGB: u8 = 5;

impl PixelFormat {
    /// (components, bits per component, kind, packing).
    pub(crate) fn layout(self) -> (u8, u8, ComponentKind, u8) {
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
    pub fn slice_bytes(&self, level: u32) -> u64 {
        let [w, h, d] = self.level_size(level);
        u64::from(w) * u64::from(h) * u64::from(d) * u64::from(self.pixel_format.bytes_per_texel())
    }

    /// What Metal would refuse, in words.
    pub fn check(&self) -> Result<(), String> {
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
                "{} mip levels: halc keeps at most {MAX_MIP_LEVELS} (a 32768-texel texture's)",
                self.mipmap_level_count
            ));
        }
        if t == TextureType::TextureBuffer && self.mipmap_level_count != 1 {
            return Err("a texture buffer has one mip level".into());
        }
        Ok(())
    }
}

impl TextureDescriptor {
    /// The descriptor of a view of levels `base..base + count`
    /// (`newTextureViewWithPixelFormat:textureType:levels:slices:` with the
    /// texture's own format, type and slices): its level 0 is level `base`.
    pub fn levels_view(&self, base: u32, count: u32) -> Result<TextureDescriptor, String> {
        if count == 0 || u64::from(base) + u64::from(count) > u64::from(self.mipmap_level_count) {
            return Err(format!(
                "levels {base}..{} of a texture of {} levels",
                u64::from(base) + u64::from(count),
                self.mipmap_level_count
            ));
        }
        let [width, height, depth] = self.level_size(base);
        Ok(TextureDescriptor {
            width,
            height,
            depth,
            mipmap_level_count: count,
            ..*self
        })
    }

    /// What Metal refuses of a texture created on a buffer of `buffer_len`
    /// bytes (`newTextureWithDescriptor:offset:bytesPerRow:`): another type
    /// than 2D or texture buffer, mip levels, rows shorter than the width or
    /// not whole texels, texels past the buffer's end.
    pub fn check_on_buffer(
        &self,
        offset: u64,
        bytes_per_row: u64,
        buffer_len: u64,
    ) -> Result<(), String> {
        if !matches!(
            self.texture_type,
            TextureType::D2 | TextureType::TextureBuffer
        ) || self.mipmap_level_count != 1
        {
            return Err(format!(
                "a texture created on a buffer is 2D with one mip level, or a texture buffer (got {:?}, {} levels)",
                self.texture_type, self.mipmap_level_count
            ));
        }
        self.check()?;
        let bpt = u64::from(self.pixel_format.bytes_per_texel());
        let row = u64::from(self.width) * bpt;
        if bytes_per_row < row || bytes_per_row % bpt != 0 || offset % bpt != 0 {
            return Err(format!(
                "{bytes_per_row} bytes per row from offset {offset}: a row of {} texels needs at least {row}, and both must be multiples of the {bpt}-byte texel",
                self.width
            ));
        }
        if u32::try_from(bytes_per_row).is_err() {
            return Err(format!("{bytes_per_row} bytes per row is too many"));
        }
        let end = offset + bytes_per_row * u64::from(self.height - 1) + row;
        if end > buffer_len {
            return Err(format!(
                "its texels end at byte {end} of a {buffer_len}-byte buffer"
            ));
        }
        Ok(())
    }
}

impl TextureDescriptor {
    /// Whether `region` of mip level `level`, slice `slice` lies inside the
    /// texture (what host uploads and readbacks check first).
    pub fn check_region(
        &self,
        region: TextureRegion,
        level: u32,
        slice: u32,
    ) -> Result<(), String> {
        if level >= self.mipmap_level_count {
            return Err(format!("mip level {level} of {}", self.mipmap_level_count));
        }
        if slice >= self.slices() {
            return Err(format!("slice {slice} of {}", self.slices()));
        }
        let size = self.level_size(level);
        for i in 0..3 {
            let end = u64::from(region.origin[i]) + u64::from(region.size[i]);
            if end > u64::from(size[i]) {
                return Err(format!(
                    "region {:?}+{:?} is outside level {level} ({}x{}x{})",
                    region.origin, region.size, size[0], size[1], size[2]
                ));
            }
        }
        Ok(())
    }

    /// The whole of mip level `level` (the last level for one past it, so
    /// that the access check names the level) and the bytes of its rows and
    /// depth images tightly packed: what `level_bytes` and `write_level`
    /// move.
    pub fn packed_level(&self, level: u32) -> (TextureRegion, usize, usize) {
        let region =
            TextureRegion::whole(self, level.min(self.mipmap_level_count.saturating_sub(1)));
        let row = region.size[0] as usize * self.pixel_format.bytes_per_texel() as usize;
        (region, row, row * region.size[1] as usize)
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

impl SamplerDescriptor {
    /// What Metal would refuse, in words.
    pub fn check(&self) -> Result<(), String> {
        let desc = self;
        if desc.lod_min_clamp.is_nan()
            || desc.lod_max_clamp.is_nan()
            || desc.lod_min_clamp > desc.lod_max_clamp
            || desc.lod_min_clamp < 0.0
        {
            return Err(format!(
                "lod clamp {}..{} (0 <= min <= max)",
                desc.lod_min_clamp, desc.lod_max_clamp
            ));
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
                return Err(
                    "with pixel coordinates (normalized_coordinates false) Metal allows only clamp address modes, no mip filter and min filter = mag filter".into(),
                );
            }
        }
        Ok(())
    }
}
