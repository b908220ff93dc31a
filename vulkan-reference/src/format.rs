//! [`Format`]: the texel formats images and texel buffers can have here,
//! by their Vulkan names.

use ash::vk;

/// A texel format: one of [`Format::ALL`], named as Vulkan names it
/// without the `VK_FORMAT_` prefix (`R8G8B8A8_UNORM`), as Amber does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    name: &'static str,
    raw: i32,
    bytes: u32,
}

macro_rules! formats {
    ($($name:ident = $bytes:expr),* $(,)?) => {
        /// Every format this crate creates images and texel buffers of.
        pub const ALL: &'static [Format] = &[
            $(Format { name: stringify!($name), raw: vk::Format::$name.as_raw(), bytes: $bytes },)*
        ];
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

    pub(crate) fn vk(self) -> vk::Format {
        vk::Format::from_raw(self.raw)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
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
        assert_eq!(
            Format::by_name("R32_SFLOAT").unwrap().vk(),
            vk::Format::R32_SFLOAT
        );
    }
}
