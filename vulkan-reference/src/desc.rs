//! The plain descriptions of what the reference makes, usable without a
//! Vulkan driver (feature `driver` off): [`Format`], the texel formats
//! images and texel buffers can have here, by their Vulkan names;
//! [`ImageDesc`]; [`SamplerDesc`].

use serde::{Deserialize, Serialize};

/// A texel format: one of [`Format::ALL`], named as Vulkan names it
/// without the `VK_FORMAT_` prefix (`R8G8B8A8_UNORM`), as Amber does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    name: &'static str,
    bytes: u32,
}

macro_rules! formats {
    ($($name:ident = $bytes:expr),* $(,)?) => {
        /// Every format this crate creates images and texel buffers of.
        pub const ALL: &'static [Format] = &[
            $(Format { name: stringify!($name), bytes: $bytes },)*
        ];

        /// The Vulkan format.
        #[cfg(feature = "driver")]
        pub(crate) fn vk(self) -> ash::vk::Format {
            match self.name {
                $(stringify!($name) => ash::vk::Format::$name,)*
                _ => unreachable!("every format is in the table"),
            }
        }
    };
}

impl Format {
    formats! {
        R8_UNORM = 1, R8_SNORM = 1, R8_UINT = 1, R8_SINT = 1,
        R8G8_UNORM = 2, R8G8_SNORM = 2, R8G8_UINT = 2, R8G8_SINT = 2,
        R8G8B8A8_UNORM = 4, R8G8B8A8_SNORM = 4, R8G8B8A8_UINT = 4, R8G8B8A8_SINT = 4,
        R8G8B8A8_SRGB = 4, B8G8R8A8_UNORM = 4,
        R16_UNORM = 2, R16_SNORM = 2, R16_UINT = 2, R16_SINT = 2, R16_SFLOAT = 2,
        R16G16_UNORM = 4, R16G16_SNORM = 4, R16G16_UINT = 4, R16G16_SINT = 4, R16G16_SFLOAT = 4,
        R16G16B16A16_UNORM = 8, R16G16B16A16_SNORM = 8, R16G16B16A16_UINT = 8,
        R16G16B16A16_SINT = 8, R16G16B16A16_SFLOAT = 8,
        R32_UINT = 4, R32_SINT = 4, R32_SFLOAT = 4,
        R32G32_UINT = 8, R32G32_SINT = 8, R32G32_SFLOAT = 8,
        R32G32B32A32_UINT = 16, R32G32B32A32_SINT = 16, R32G32B32A32_SFLOAT = 16,
        A2B10G10R10_UNORM_PACK32 = 4, A2B10G10R10_UINT_PACK32 = 4,
        B10G11R11_UFLOAT_PACK32 = 4,
    }

    /// The format called `name` (`R32G32B32A32_SFLOAT`; a `VK_FORMAT_`
    /// prefix is accepted), if it is one of [`Format::ALL`].
    pub fn by_name(name: &str) -> Option<Format> {
        let name = name.strip_prefix("VK_FORMAT_").unwrap_or(name);
        Self::ALL.iter().copied().find(|f| f.name == name)
    }

    /// Its Vulkan name without the prefix.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// Bytes per texel.
    pub fn texel_bytes(self) -> u32 {
        self.bytes
    }

    /// Its channels, in memory order, when they are all one size and
    /// kind (`R8G8B8A8_UNORM`: four 8-bit unorm); `None` for a packed
    /// format (`A2B10G10R10_UNORM_PACK32`, `B10G11R11_UFLOAT_PACK32`).
    pub fn components(self) -> Option<(usize, Component)> {
        let (channels, kind) = self.name.split_once('_')?;
        if kind.contains("PACK") {
            return None;
        }
        let mut bits = Vec::new();
        let mut digits = String::new();
        for c in channels.chars().chain(std::iter::once('_')) {
            if c.is_ascii_digit() {
                digits.push(c);
            } else if !digits.is_empty() {
                bits.push(digits.parse::<u32>().ok()?);
                digits.clear();
            }
        }
        let b = *bits.first()?;
        if bits.iter().any(|&x| x != b) {
            return None;
        }
        let c = match kind {
            "UNORM" | "SRGB" => Component::Unorm(b),
            "SNORM" => Component::Snorm(b),
            "UINT" => Component::Uint(b),
            "SINT" => Component::Sint(b),
            "SFLOAT" => Component::Float(b),
            _ => return None,
        };
        Some((bits.len(), c))
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// An image's dimensionality, as the kernel declares it (the view type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ImageDim {
    /// `image1D`.
    D1,
    /// `image1DArray`.
    D1Array,
    /// `image2D`.
    D2,
    /// `image2DArray`.
    D2Array,
    /// `image3D`.
    D3,
    /// `imageCube`: 6 layers.
    Cube,
    /// `imageCubeArray`: a multiple of 6 layers.
    CubeArray,
}

/// What [`Reference::image`](crate::Reference::image) creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageDesc {
    /// Dimensionality (and the view the kernel sees).
    pub dim: ImageDim,
    /// Texel format (by name on the wire).
    #[serde(with = "format_name")]
    pub format: Format,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0 (1 for 1D).
    pub height: u32,
    /// Depth of level 0 (1 unless 3D).
    pub depth: u32,
    /// Array layers (1 unless an array; 6 per cube).
    pub layers: u32,
    /// Mip levels (≥ 1).
    pub mip_levels: u32,
}

impl ImageDesc {
    /// Width, height and depth of `level`.
    pub fn extent(&self, level: u32) -> [u32; 3] {
        [
            (self.width >> level).max(1),
            (self.height >> level).max(1),
            (self.depth >> level).max(1),
        ]
    }

    /// Bytes of `level`, every layer, tightly packed.
    pub fn level_bytes(&self, level: u32) -> u64 {
        let [w, h, d] = self.extent(level);
        u64::from(w)
            * u64::from(h)
            * u64::from(d)
            * u64::from(self.layers)
            * u64::from(self.format.texel_bytes())
    }

    /// Bytes of every level: the size of [`Reference::image`](crate::Reference::image)'s data and
    /// of what [`Reference::read_image`](crate::Reference::read_image) returns (level 0 first; in a level, layer
    /// by layer, then slice, row, texel).
    pub fn bytes(&self) -> u64 {
        (0..self.mip_levels).map(|l| self.level_bytes(l)).sum()
    }
}

/// Serde of a [`Format`] by its name.
pub(crate) mod format_name {
    use super::Format;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(f: &Format, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(f.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Format, D::Error> {
        let name = String::deserialize(d)?;
        Format::by_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown format {name}")))
    }
}

/// A sampler's filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Filter {
    /// Nearest texel.
    #[default]
    Nearest,
    /// Linear interpolation.
    Linear,
}

/// What a sampler does outside [0, 1) (or [0, size) unnormalized).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AddressMode {
    /// Wrap around.
    #[default]
    Repeat,
    /// Wrap around, mirrored every other time.
    MirroredRepeat,
    /// The edge texel.
    ClampToEdge,
    /// The border colour.
    ClampToBorder,
    /// Mirrored once, then the edge.
    MirrorClampToEdge,
}

/// The border colour of [`AddressMode::ClampToBorder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum BorderColor {
    /// (0, 0, 0, 0).
    #[default]
    TransparentBlack,
    /// (0, 0, 0, 1).
    OpaqueBlack,
    /// (1, 1, 1, 1).
    OpaqueWhite,
}

/// What [`Reference::sampler`](crate::Reference::sampler) creates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SamplerDesc {
    /// Magnification filter.
    pub mag_filter: Filter,
    /// Minification filter.
    pub min_filter: Filter,
    /// Between mip levels.
    pub mipmap_mode: Filter,
    /// Per coordinate: u, v, w.
    pub address_modes: [AddressMode; 3],
    /// Border colour; integer formats read it as integers.
    pub border_color: BorderColor,
    /// Coordinates in [0, 1) (`true`) or in texels.
    pub normalized_coordinates: bool,
    /// Level-of-detail clamp.
    pub min_lod: f32,
    /// Level-of-detail clamp.
    pub max_lod: f32,
}

impl Default for SamplerDesc {
    fn default() -> Self {
        SamplerDesc {
            mag_filter: Filter::Nearest,
            min_filter: Filter::Nearest,
            mipmap_mode: Filter::Nearest,
            address_modes: [AddressMode::Repeat; 3],
            border_color: BorderColor::TransparentBlack,
            normalized_coordinates: true,
            min_lod: 0.0,
            max_lod: 1000.0,
        }
    }
}

/// How one channel of a [`Format`] is stored and read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component {
    /// Unsigned normalized, this many bits.
    Unorm(u32),
    /// Signed normalized.
    Snorm(u32),
    /// Unsigned integer.
    Uint(u32),
    /// Signed integer.
    Sint(u32),
    /// IEEE float (16 or 32 bits).
    Float(u32),
}

impl Component {
    /// Bits.
    pub fn bits(self) -> u32 {
        match self {
            Component::Unorm(b)
            | Component::Snorm(b)
            | Component::Uint(b)
            | Component::Sint(b)
            | Component::Float(b) => b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sizes_follow_the_name() {
        for f in Format::ALL {
            assert_eq!(Format::by_name(f.name()), Some(*f));
            assert_eq!(
                Format::by_name(&format!("VK_FORMAT_{}", f.name())),
                Some(*f)
            );
            // The bits the name spells out, summed, are the texel's size.
            let bits: u32 = if f.name().contains("PACK32") {
                32
            } else {
                let mut sum = 0;
                let mut digits = String::new();
                for c in f.name().split('_').next().unwrap().chars() {
                    if c.is_ascii_digit() {
                        digits.push(c);
                    } else if !digits.is_empty() {
                        sum += digits.parse::<u32>().unwrap();
                        digits.clear();
                    }
                }
                sum + digits.parse::<u32>().unwrap_or(0)
            };
            assert_eq!(f.texel_bytes() * 8, bits, "{f}");
        }
        assert_eq!(Format::by_name("R8G8B8_UNORM"), None);
        let c = |n| Format::by_name(n).unwrap().components();
        assert_eq!(c("R8G8B8A8_UNORM"), Some((4, Component::Unorm(8))));
        assert_eq!(c("R16G16_SFLOAT"), Some((2, Component::Float(16))));
        assert_eq!(c("R32_SINT"), Some((1, Component::Sint(32))));
        assert_eq!(c("B8G8R8A8_UNORM"), Some((4, Component::Unorm(8))));
        assert_eq!(c("A2B10G10R10_UNORM_PACK32"), None);
        assert_eq!(c("B10G11R11_UFLOAT_PACK32"), None);
        #[cfg(feature = "driver")]
        assert_eq!(
            Format::by_name("R32_SFLOAT").unwrap().vk(),
            ash::vk::Format::R32_SFLOAT
        );
    }
}
