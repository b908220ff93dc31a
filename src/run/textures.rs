//! Textures as both runners make them: the Metal pixel format and sampler
//! of a Vulkan format and sampler (what SPIRV-Cross's MSL gets on Metal
//! for what the SPIR-V gets on Vulkan), and the components of a format.

use runtime_loader::cpu;
use vulkan_reference::Format;

/// The Metal pixel format of a Vulkan format (what SPIRV-Cross's MSL
/// reads and writes a texture of that format as).
pub(crate) fn pixel_format(f: vulkan_reference::Format) -> Result<cpu::PixelFormat, String> {
    use cpu::PixelFormat::*;
    Ok(match f.name() {
        "R8_UNORM" => R8Unorm,
        "R8_SNORM" => R8Snorm,
        "R8_UINT" => R8Uint,
        "R8_SINT" => R8Sint,
        "R8G8_UNORM" => RG8Unorm,
        "R8G8_SNORM" => RG8Snorm,
        "R8G8_UINT" => RG8Uint,
        "R8G8_SINT" => RG8Sint,
        "R8G8B8A8_UNORM" => RGBA8Unorm,
        "R8G8B8A8_SNORM" => RGBA8Snorm,
        "R8G8B8A8_UINT" => RGBA8Uint,
        "R8G8B8A8_SINT" => RGBA8Sint,
        "B8G8R8A8_UNORM" => BGRA8Unorm,
        "R16_UNORM" => R16Unorm,
        "R16_SNORM" => R16Snorm,
        "R16_UINT" => R16Uint,
        "R16_SINT" => R16Sint,
        "R16_SFLOAT" => R16Float,
        "R16G16_UNORM" => RG16Unorm,
        "R16G16_SNORM" => RG16Snorm,
        "R16G16_UINT" => RG16Uint,
        "R16G16_SINT" => RG16Sint,
        "R16G16_SFLOAT" => RG16Float,
        "R16G16B16A16_UNORM" => RGBA16Unorm,
        "R16G16B16A16_SNORM" => RGBA16Snorm,
        "R16G16B16A16_UINT" => RGBA16Uint,
        "R16G16B16A16_SINT" => RGBA16Sint,
        "R16G16B16A16_SFLOAT" => RGBA16Float,
        "R32_UINT" => R32Uint,
        "R32_SINT" => R32Sint,
        "R32_SFLOAT" => R32Float,
        "R32G32_UINT" => RG32Uint,
        "R32G32_SINT" => RG32Sint,
        "R32G32_SFLOAT" => RG32Float,
        "R32G32B32A32_UINT" => RGBA32Uint,
        "R32G32B32A32_SINT" => RGBA32Sint,
        "R32G32B32A32_SFLOAT" => RGBA32Float,
        "A2B10G10R10_UNORM_PACK32" => RGB10A2Unorm,
        "A2B10G10R10_UINT_PACK32" => RGB10A2Uint,
        "B10G11R11_UFLOAT_PACK32" => RG11B10Float,
        other => {
            return Err(format!(
                "{other} has no Metal pixel format on the CPU backend"
            ))
        }
    })
}

/// The Metal sampler a Vulkan sampler becomes.
pub(crate) fn sampler_descriptor(d: &vulkan_reference::SamplerDesc) -> cpu::SamplerDescriptor {
    use vulkan_reference::{AddressMode as A, BorderColor as B, Filter as F};
    let filter = |f: F| match f {
        F::Nearest => cpu::MinMagFilter::Nearest,
        F::Linear => cpu::MinMagFilter::Linear,
    };
    let address = |a: A| match a {
        A::Repeat => cpu::AddressMode::Repeat,
        A::MirroredRepeat => cpu::AddressMode::MirrorRepeat,
        A::ClampToEdge => cpu::AddressMode::ClampToEdge,
        A::ClampToBorder => cpu::AddressMode::ClampToBorderColor,
        A::MirrorClampToEdge => cpu::AddressMode::MirrorClampToEdge,
    };
    cpu::SamplerDescriptor {
        min_filter: filter(d.min_filter),
        mag_filter: filter(d.mag_filter),
        mip_filter: match d.mipmap_mode {
            F::Nearest => cpu::MipFilter::Nearest,
            F::Linear => cpu::MipFilter::Linear,
        },
        s_address_mode: address(d.address_modes[0]),
        t_address_mode: address(d.address_modes[1]),
        r_address_mode: address(d.address_modes[2]),
        border_color: match d.border_color {
            B::TransparentBlack => cpu::BorderColor::TransparentBlack,
            B::OpaqueBlack => cpu::BorderColor::OpaqueBlack,
            B::OpaqueWhite => cpu::BorderColor::OpaqueWhite,
        },
        normalized_coordinates: d.normalized_coordinates,
        lod_min_clamp: d.min_lod,
        lod_max_clamp: d.max_lod,
    }
}

/// How a format's component is stored and read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Component {
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
    pub(crate) fn bits(self) -> u32 {
        match self {
            Component::Unorm(b)
            | Component::Snorm(b)
            | Component::Uint(b)
            | Component::Sint(b)
            | Component::Float(b) => b,
        }
    }
}

/// The components of a format whose channels are all one size and kind
/// (`R8G8B8A8_UNORM`: four 8-bit unorm), in memory order; `None` for a
/// packed format (`A2B10G10R10_UNORM_PACK32`, `B10G11R11_UFLOAT_PACK32`).
pub(crate) fn components(f: Format) -> Option<(usize, Component)> {
    let name = f.name();
    let (channels, kind) = name.split_once('_')?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_follow_the_name_and_packed_formats_have_none() {
        let c = |n| components(Format::by_name(n).unwrap());
        assert_eq!(c("R8G8B8A8_UNORM"), Some((4, Component::Unorm(8))));
        assert_eq!(c("R16G16_SFLOAT"), Some((2, Component::Float(16))));
        assert_eq!(c("R32_SINT"), Some((1, Component::Sint(32))));
        assert_eq!(c("B8G8R8A8_UNORM"), Some((4, Component::Unorm(8))));
        assert_eq!(c("A2B10G10R10_UNORM_PACK32"), None);
        assert_eq!(c("B10G11R11_UFLOAT_PACK32"), None);
        // Every format a runner can make has a Metal pixel format.
        for f in Format::ALL {
            assert!(
                pixel_format(*f).is_ok() || f.name() == "R8G8B8A8_SRGB",
                "{f}"
            );
        }
    }
}
