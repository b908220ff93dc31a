//! Textures as both runners make them: the Metal pixel format and sampler
//! of a Vulkan format and sampler (what SPIRV-Cross's MSL gets on Metal
//! for what the SPIR-V gets on Vulkan).

use runtime_loader::cpu;
use vulkan_reference::{Format, ImageDesc};

/// The Metal pixel format of a Vulkan format (what SPIRV-Cross's MSL
/// reads and writes a texture of that format as).
pub(crate) fn pixel_format(f: Format) -> Result<cpu::PixelFormat, String> {
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

/// The CPU texture Metal would have for the Vulkan image `desc`, holding
/// `bytes` (every layer, tightly packed). A 2D r32ui or r32i image, the
/// kind a kernel may do image atomics on, is made as an application would
/// make one for atomics at any MSL version (MoltenVK does the same): on a
/// buffer of its own with aligned rows ([`cpu::Device::atomic_texture`]),
/// which a kernel compiled below MSL 3.1 does its atomics through.
pub(crate) fn cpu_texture(
    device: &cpu::Device,
    desc: &ImageDesc,
    bytes: &[u8],
) -> Result<cpu::Texture, String> {
    use vulkan_reference::ImageDim as D;
    let (texture_type, array_length) = match desc.dim {
        D::D1 => (cpu::TextureType::D1, 1),
        D::D1Array => (cpu::TextureType::D1Array, desc.layers),
        D::D2 => (cpu::TextureType::D2, 1),
        D::D2Array => (cpu::TextureType::D2Array, desc.layers),
        D::D3 => (cpu::TextureType::D3, 1),
        D::Cube => (cpu::TextureType::Cube, 1),
        D::CubeArray => (cpu::TextureType::CubeArray, desc.layers / 6),
    };
    let td = cpu::TextureDescriptor {
        texture_type,
        depth: desc.depth,
        array_length,
        mipmap_level_count: desc.mip_levels,
        ..cpu::TextureDescriptor::d2(pixel_format(desc.format)?, desc.width, desc.height)
    };
    if td.texture_type == cpu::TextureType::D2
        && td.mipmap_level_count == 1
        && matches!(
            td.pixel_format,
            cpu::PixelFormat::R32Uint | cpu::PixelFormat::R32Sint
        )
    {
        let t = device.atomic_texture(&td).map_err(|e| e.to_string())?;
        t.write_level(0, 0, bytes).map_err(|e| e.to_string())?;
        return Ok(t);
    }
    filled(device, &td, bytes)
}

/// The CPU texture buffer (Metal's `texture_buffer`) of a Vulkan texel
/// buffer of `format` holding `bytes`.
pub(crate) fn cpu_texel_buffer(
    device: &cpu::Device,
    format: Format,
    bytes: &[u8],
) -> Result<cpu::Texture, String> {
    let texel = format.texel_bytes() as usize;
    if bytes.is_empty() || bytes.len() % texel != 0 {
        return Err(format!(
            "{} bytes are not a whole number of {format} texels",
            bytes.len()
        ));
    }
    let td =
        cpu::TextureDescriptor::texture_buffer(pixel_format(format)?, (bytes.len() / texel) as u32);
    filled(device, &td, bytes)
}

/// The CPU texture buffer of a Vulkan texel buffer of `format` viewing the
/// first `len` bytes of `buffer`: a texture on the buffer, as Metal makes
/// one with `newTextureWithDescriptor:offset:bytesPerRow:`, sharing its
/// bytes.
pub(crate) fn cpu_texel_buffer_on(
    device: &cpu::Device,
    format: Format,
    buffer: &cpu::Buffer,
    len: u64,
) -> Result<cpu::Texture, String> {
    let texel = u64::from(format.texel_bytes());
    if len == 0 || len % texel != 0 {
        return Err(format!(
            "{len} bytes are not a whole number of {format} texels"
        ));
    }
    let td = cpu::TextureDescriptor::texture_buffer(pixel_format(format)?, (len / texel) as u32);
    device
        .texture_on_buffer(&td, buffer, 0, len)
        .map_err(|e| e.to_string())
}

/// A texture of `td` with `bytes` written to it: level by level (level 0
/// first), in a level slice by slice.
fn filled(
    device: &cpu::Device,
    td: &cpu::TextureDescriptor,
    bytes: &[u8],
) -> Result<cpu::Texture, String> {
    let t = device.texture(td).map_err(|e| e.to_string())?;
    let n = td.slices() as usize;
    let texel = td.pixel_format.bytes_per_texel() as usize;
    let mut at = 0;
    for level in 0..td.mipmap_level_count {
        let [w, h, d] = td.level_size(level);
        let per = w as usize * h as usize * d as usize * texel;
        for s in 0..n {
            let slice = bytes
                .get(at..at + per)
                .ok_or_else(|| format!("{} bytes do not fill every level", bytes.len()))?;
            t.write_level(level, s as u32, slice)
                .map_err(|e| e.to_string())?;
            at += per;
        }
    }
    Ok(t)
}

/// Level 0 of `t`, every slice, packed as the image's bytes are.
pub(crate) fn texture_bytes(t: &cpu::Texture) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for s in 0..t.descriptor().slices() {
        out.extend(t.level_bytes(0, s).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_a_runner_makes_has_a_metal_pixel_format() {
        for f in Format::ALL {
            assert!(
                pixel_format(*f).is_ok() || f.name() == "R8G8B8A8_SRGB",
                "{f}"
            );
        }
    }
}
