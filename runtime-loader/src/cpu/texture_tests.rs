//! Unit tests of textures and samplers: the host side (descriptors, upload
//! and readback), and the shim's texture types on hand-written MSL for what
//! halc does not emit from GLSL today (1D and cube-array textures, which it
//! refuses as untested capabilities; sample options; gather on an array).
//! Expected values are computed here from the MSL rules.
//!
//! They need clang++ ≥ 15 (see `tests.rs`).

use std::ffi::c_void;
use std::time::Duration;

use super::buffer::Buffer;
use super::encode::{Encoded, Region};
use super::exec::ThreadgroupFill;
use super::handle::Device;
use super::source::{SAMPLER_SLOT_BASE, SLOT_COUNT, TEXTURE_SLOT_BASE};
use super::tests::device;
use super::texture::{
    MinMagFilter, MipFilter, PixelFormat, Sampler, SamplerDescriptor, Texture, TextureDescriptor,
    TextureRegion, TextureType,
};
use super::CpuError;
use crate::memory::MemoryType;

/// Runs `msl` (kernel `main0`, one thread) with `out` at `[[buffer(0)]]`,
/// `textures[i]` at `[[texture(i)]]`, `samplers[i]` at `[[sampler(i)]]`.
fn run(
    dev: &Device,
    msl: &str,
    out: &Buffer,
    textures: &[&Texture],
    samplers: &[&Sampler],
) -> Result<(), CpuError> {
    let mut slots = [std::ptr::null_mut::<c_void>(); SLOT_COUNT];
    slots[0] = out.mapping().ptr().cast();
    let mut regions = vec![Region::of("out".into(), out.mapping())];
    for (i, t) in textures.iter().enumerate() {
        slots[TEXTURE_SLOT_BASE + i] = t.gpu_resource_id() as *mut c_void;
        regions.push(Region::of(t.label().into(), t.mapping()));
        if let Some(viewed) = t.viewed() {
            regions.push(Region::of(viewed.label().into(), viewed.mapping()));
        }
    }
    for (i, s) in samplers.iter().enumerate() {
        slots[SAMPLER_SLOT_BASE + i] = s.gpu_resource_id() as *mut c_void;
    }
    let encoded = Encoded::for_test_slots(
        slots,
        [1, 1, 1],
        [1, 1, 1],
        regions,
        textures.iter().map(|&t| t.clone()).collect(),
        samplers.iter().map(|&s| s.clone()).collect(),
    );
    super::tests::run_encoded(dev, msl, &encoded, true).map(|_| ())
}

fn dev() -> Option<Device> {
    device(ThreadgroupFill::Poison, Duration::from_secs(60))
}

fn f32_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// An R32Float texture of `desc` (format replaced), each slice of each
/// level filled by `texel(level, slice, x, y, z)`.
fn r32(
    dev: &Device,
    desc: TextureDescriptor,
    texel: impl Fn(u32, u32, u32, u32, u32) -> f32,
) -> Texture {
    let desc = TextureDescriptor {
        pixel_format: PixelFormat::R32Float,
        ..desc
    };
    let t = dev.texture(&desc).unwrap();
    for level in 0..desc.mipmap_level_count {
        let [w, h, d] = desc.level_size(level);
        for slice in 0..desc.slices() {
            let v = (0..d).flat_map(|z| (0..h).flat_map(move |y| (0..w).map(move |x| (x, y, z))));
            let bytes = f32_bytes(v.map(|(x, y, z)| texel(level, slice, x, y, z)));
            t.write_level(level, slice, &bytes).unwrap();
        }
    }
    t
}

fn typed(
    texture_type: TextureType,
    w: u32,
    h: u32,
    d: u32,
    n: u32,
    levels: u32,
) -> TextureDescriptor {
    TextureDescriptor {
        texture_type,
        pixel_format: PixelFormat::R32Float,
        width: w,
        height: h,
        depth: d,
        array_length: n,
        mipmap_level_count: levels,
    }
}

const TYPES_MSL: &str = "#include <metal_stdlib>
using namespace metal;
kernel void main0(device float4* out [[buffer(0)]], texture1d<float> t1 [[texture(0)]], texture1d_array<float> t1a [[texture(1)]], texturecube_array<float> tca [[texture(2)]], texture3d<float> t3 [[texture(3)]], texture2d<float> t2 [[texture(4)]], texture2d_array<float> t2a [[texture(5)]], sampler s [[sampler(0)]], sampler lin [[sampler(1)]], uint i [[thread_position_in_grid]])
{
    out[0] = t1.read(2u);
    out[1] = t1.sample(s, 0.6);
    out[2] = t1a.read(1u, 1u);
    out[3] = t1a.sample(s, 0.1, 1u);
    out[4] = tca.read(uint2(1, 0), 3u, 1u);
    out[5] = tca.sample(s, float3(0.0, -1.0, 0.2), 1u);
    out[6] = t3.sample(lin, float3(0.5, 0.5, 0.5));
    out[7] = t2.sample(s, float2(0.1, 0.1), bias(1.0));
    out[8] = t2.sample(s, float2(0.1, 0.1), min_lod_clamp(1.0));
    out[9] = t2.sample(s, float2(0.1, 0.1), gradient2d(float2(0.5, 0.0), float2(0.0, 0.5)));
    out[10] = t2.sample(s, float2(0.1, 0.1), level(0.0), int2(1, 2));
    out[11] = t2a.gather(s, float2(0.5, 0.5), 1u, int2(0), component::x);
    out[12] = float4(t1.get_width(), t1a.get_array_size(), tca.get_array_size(), t3.get_depth());
    out[13] = float4(t2.get_width(1), t2.get_height(2), t2.get_num_mip_levels(), 0.0);
}
";

#[test]
fn texture_types_and_sample_options_follow_msl() {
    let Some(dev) = dev() else { return };
    let t1 = r32(
        &dev,
        typed(TextureType::D1, 4, 1, 1, 1, 1),
        |_, _, x, _, _| 10.0 + x as f32,
    );
    let t1a = r32(
        &dev,
        typed(TextureType::D1Array, 4, 1, 1, 2, 1),
        |_, s, x, _, _| (100 * s + x) as f32,
    );
    let tca = r32(
        &dev,
        typed(TextureType::CubeArray, 2, 2, 1, 2, 1),
        |_, s, x, y, _| {
            // Slice = cube * 6 + face.
            (1000 * (s / 6) + 100 * (s % 6) + 10 * y + x) as f32
        },
    );
    let t3 = r32(
        &dev,
        typed(TextureType::D3, 2, 2, 2, 1, 1),
        |_, _, x, y, z| (x + 2 * y + 4 * z) as f32,
    );
    let t2 = r32(
        &dev,
        typed(TextureType::D2, 4, 4, 1, 1, 3),
        |l, _, x, y, _| (100 * l + 10 * y + x) as f32,
    );
    let t2a = r32(
        &dev,
        typed(TextureType::D2Array, 2, 2, 1, 2, 1),
        |_, s, x, y, _| (50 * s + 2 * y + x) as f32,
    );
    let s = dev
        .sampler(&SamplerDescriptor {
            mip_filter: MipFilter::Nearest,
            ..Default::default()
        })
        .unwrap();
    let lin = dev
        .sampler(&SamplerDescriptor {
            min_filter: MinMagFilter::Linear,
            mag_filter: MinMagFilter::Linear,
            ..Default::default()
        })
        .unwrap();
    let out = dev.buffer(16 * 14, MemoryType::HostVisible).unwrap();
    run(
        &dev,
        TYPES_MSL,
        &out,
        &[&t1, &t1a, &tca, &t3, &t2, &t2a],
        &[&s, &lin],
    )
    .unwrap();
    let v: Vec<f32> = out
        .to_vec()
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let r = |i: usize| v[4 * i];
    assert_eq!(
        &v[0..4],
        [12.0, 0.0, 0.0, 1.0],
        "R formats read (r, 0, 0, 1)"
    );
    assert_eq!(r(1), 12.0, "floor(0.6 * 4) = 2");
    assert_eq!(r(2), 101.0);
    assert_eq!(r(3), 100.0);
    assert_eq!(r(4), 1301.0, "cube 1, face 3, (1, 0)");
    // (0, -1, 0.2): -y major, face 3, s = 0.5, t = 0.4: texel (1, 0).
    assert_eq!(r(5), 1301.0);
    assert_eq!(
        r(6),
        3.5,
        "trilinear at the centre: the mean of the 8 texels"
    );
    assert_eq!(r(7), 100.0, "bias 1 selects level 1");
    assert_eq!(r(8), 100.0, "min_lod_clamp 1 selects level 1");
    assert_eq!(r(9), 100.0, "a gradient of 2 texels selects level 1");
    assert_eq!(r(10), 21.0, "offset (1, 2) from texel (0, 0)");
    assert_eq!(&v[44..48], [52.0, 53.0, 51.0, 50.0], "gather order");
    assert_eq!(&v[48..52], [4.0, 2.0, 2.0, 2.0]);
    assert_eq!(&v[52..56], [2.0, 1.0, 3.0, 0.0]);
}

#[test]
fn an_out_of_bounds_read_fails_naming_the_texture_and_a_wrong_kind_is_refused() {
    let Some(dev) = dev() else { return };
    let msl = "#include <metal_stdlib>
using namespace metal;
kernel void main0(device float4* out [[buffer(0)]], texture2d<float> t [[texture(0)]], uint i [[thread_position_in_grid]])
{
    out[0] = t.read(uint2(uint(out[1].x), 0u), uint(out[1].y));
}
";
    let t = r32(
        &dev,
        typed(TextureType::D2, 4, 2, 1, 1, 2),
        |_, _, x, _, _| x as f32,
    );
    let out = dev.buffer(32, MemoryType::HostVisible).unwrap();
    // In bounds: (3, 0) at level 0, (1, 0) at level 1.
    for (x, lod) in [(3.0f32, 0.0f32), (1.0, 1.0)] {
        out.write(16, &f32_bytes([x, lod])).unwrap();
        run(&dev, msl, &out, &[&t], &[]).unwrap();
        assert_eq!(out.to_vec().unwrap()[..4], x.to_le_bytes());
    }
    for (x, lod) in [(4.0f32, 0.0f32), (2.0, 1.0), (0.0, 2.0)] {
        out.write(16, &f32_bytes([x, lod])).unwrap();
        let e = run(&dev, msl, &out, &[&t], &[]).unwrap_err();
        assert!(
            matches!(&e, CpuError::Kernel { message, .. } if message.contains("out-of-bounds texture read") && message.contains(t.label())),
            "({x}, {lod}): {e}"
        );
    }
    let u = dev
        .texture(&TextureDescriptor::d2(PixelFormat::R8Uint, 4, 2))
        .unwrap();
    out.write(16, &f32_bytes([0.0, 0.0])).unwrap();
    let e = run(&dev, msl, &out, &[&u], &[]).unwrap_err();
    assert!(
        matches!(&e, CpuError::Kernel { message, .. } if message.contains("float texture type over an integer pixel format")),
        "{e}"
    );
}

#[test]
fn integer_writes_saturate_and_snorm_reads_its_minimum_as_minus_one() {
    let Some(dev) = dev() else { return };
    let msl = "#include <metal_stdlib>
using namespace metal;
kernel void main0(device float4* out [[buffer(0)]], texture2d<int, access::write> s8 [[texture(0)]], texture2d<uint, access::write> u16 [[texture(1)]], texture2d<float> sn [[texture(2)]], uint i [[thread_position_in_grid]])
{
    s8.write(int4(200, -200, 5, -128), uint2(0, 0));
    u16.write(uint4(70000u, 65535u, 7u, 0u), uint2(0, 0));
    out[0] = sn.read(uint2(0, 0));
}
";
    let s8 = dev
        .texture(&TextureDescriptor::d2(PixelFormat::RGBA8Sint, 1, 1))
        .unwrap();
    let u16t = dev
        .texture(&TextureDescriptor::d2(PixelFormat::RG16Uint, 1, 1))
        .unwrap();
    let sn = dev
        .texture(&TextureDescriptor::d2(PixelFormat::RG16Snorm, 1, 1))
        .unwrap();
    sn.write_level(
        0,
        0,
        &[i16::MIN.to_le_bytes(), (-16384i16).to_le_bytes()].concat(),
    )
    .unwrap();
    let out = dev.buffer(16, MemoryType::HostVisible).unwrap();
    run(&dev, msl, &out, &[&s8, &u16t, &sn], &[]).unwrap();
    assert_eq!(
        s8.level_bytes(0, 0).unwrap(),
        [127, (-128i8) as u8, 5, (-128i8) as u8]
    );
    assert_eq!(
        u16t.level_bytes(0, 0).unwrap(),
        [65535u16.to_le_bytes(), 65535u16.to_le_bytes()].concat()
    );
    let v: Vec<f32> = out
        .to_vec()
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(v, [-1.0, -16384.0 / 32767.0, 0.0, 1.0]);
}

#[test]
fn host_upload_and_readback_follow_regions_rows_and_images() {
    let desc = TextureDescriptor {
        texture_type: TextureType::D3,
        depth: 3,
        mipmap_level_count: 2,
        ..TextureDescriptor::d2(PixelFormat::RG8Uint, 4, 2)
    };
    let t = Texture::new(&desc).unwrap();
    assert_eq!(desc.level_size(1), [2, 1, 1]);
    // A 2x2x2 region at (1, 0, 1), rows 8 bytes apart (4 used), images 20.
    let region = TextureRegion {
        origin: [1, 0, 1],
        size: [2, 2, 2],
    };
    let mut src = vec![0xeeu8; 40];
    for z in 0..2 {
        for y in 0..2 {
            for b in 0..4 {
                src[z * 20 + y * 8 + b] = (z * 100 + y * 10 + b) as u8;
            }
        }
    }
    t.replace_region(region, 0, 0, &src, 8, 20).unwrap();
    let all = t.level_bytes(0, 0).unwrap();
    // Texel (x, y, z) at ((z * 2 + y) * 4 + x) * 2.
    let at = |x: usize, y: usize, z: usize| ((z * 2 + y) * 4 + x) * 2;
    assert_eq!(&all[at(1, 1, 2)..at(1, 1, 2) + 4], [110, 111, 112, 113]);
    assert_eq!(
        &all[at(0, 0, 0)..at(0, 0, 1)],
        [0; 16],
        "outside the region"
    );
    let mut back = vec![0u8; 8];
    t.get_bytes(
        &mut back,
        4,
        4,
        TextureRegion {
            origin: [1, 1, 1],
            size: [2, 1, 2],
        },
        0,
        0,
    )
    .unwrap();
    assert_eq!(back, [10, 11, 12, 13, 110, 111, 112, 113]);
    // Out of range: the region, the level, the slice, too few bytes.
    let outside = TextureRegion {
        origin: [3, 0, 0],
        size: [2, 1, 1],
    };
    for e in [
        t.replace_region(outside, 0, 0, &src, 8, 20),
        t.replace_region(region, 2, 0, &src, 8, 20),
        t.replace_region(region, 0, 1, &src, 8, 20),
        t.replace_region(region, 0, 0, &src[..30], 8, 20),
    ] {
        assert!(matches!(e, Err(CpuError::TextureAccess { .. })), "{e:?}");
    }
    // Descriptors Metal refuses.
    for bad in [
        TextureDescriptor {
            mipmap_level_count: 4,
            ..desc
        },
        TextureDescriptor {
            texture_type: TextureType::D2,
            ..desc
        },
        TextureDescriptor {
            texture_type: TextureType::Cube,
            depth: 1,
            mipmap_level_count: 1,
            ..desc
        },
        TextureDescriptor { width: 0, ..desc },
        TextureDescriptor {
            width: 1 << 17,
            mipmap_level_count: 17,
            ..TextureDescriptor::d2(PixelFormat::R8Unorm, 1, 1)
        },
    ] {
        assert!(
            matches!(Texture::new(&bad), Err(CpuError::InvalidDescriptor { .. })),
            "{bad:?}"
        );
    }
    for bad in [
        SamplerDescriptor {
            lod_min_clamp: 2.0,
            lod_max_clamp: 1.0,
            ..Default::default()
        },
        SamplerDescriptor {
            normalized_coordinates: false,
            mip_filter: MipFilter::Linear,
            ..Default::default()
        },
    ] {
        assert!(
            matches!(Sampler::new(&bad), Err(CpuError::InvalidDescriptor { .. })),
            "{bad:?}"
        );
    }
}

#[test]
fn srgb_textures_read_linear_values() {
    let Some(dev) = dev() else { return };
    let msl = "#include <metal_stdlib>
using namespace metal;
kernel void main0(device float4* out [[buffer(0)]], texture2d<float> rgba [[texture(0)]], texture2d<float> bgra [[texture(1)]], uint i [[thread_position_in_grid]])
{
    out[0] = rgba.read(uint2(0, 0));
    out[1] = bgra.read(uint2(0, 0));
}
";
    let texel = [10u8, 128, 255, 51];
    let rgba = dev
        .texture(&TextureDescriptor::d2(PixelFormat::RGBA8UnormSrgb, 1, 1))
        .unwrap();
    rgba.write_level(0, 0, &texel).unwrap();
    let bgra = dev
        .texture(&TextureDescriptor::d2(PixelFormat::BGRA8UnormSrgb, 1, 1))
        .unwrap();
    bgra.write_level(0, 0, &[texel[2], texel[1], texel[0], texel[3]])
        .unwrap();
    let out = dev.buffer(32, MemoryType::HostVisible).unwrap();
    run(&dev, msl, &out, &[&rgba, &bgra], &[]).unwrap();
    let v: Vec<f32> = out
        .to_vec()
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // The MSL specification's sRGB → linear; alpha is plain unorm.
    let linear = |u: u8| {
        let c = f64::from(u) / 255.0;
        (if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }) as f32
    };
    let want = [linear(10), linear(128), linear(255), 51.0 / 255.0];
    assert_eq!(v[..4], want);
    assert_eq!(v[4..], want, "BGRA stores blue first");
    assert!((want[1] - 0.2158605).abs() < 1e-6);
}

/// A texture created on a buffer (`Device::atomic_texture`: R32Uint, rows
/// aligned to 256 bytes) shares the buffer's bytes: an atomic through the
/// buffer is what the texture reads, a texture write is what the buffer
/// holds, at `y * 256 + x * 4` (what SPIRV-Cross's emulated image atomics
/// index); the host's upload and readback skip the rows' padding.
#[test]
fn a_texture_on_a_buffer_aliases_it_with_aligned_rows() {
    let Some(dev) = dev() else { return };
    let desc = TextureDescriptor::d2(PixelFormat::R32Uint, 5, 3);
    let t = dev.atomic_texture(&desc).unwrap();
    let (buffer, offset, pitch) = t.storage_buffer().unwrap();
    assert_eq!((offset, pitch, buffer.len()), (0, 256, 768));
    let texels: Vec<u32> = (0..3)
        .flat_map(|y| (0..5).map(move |x| 10 * y + x + 1))
        .collect();
    let bytes: Vec<u8> = texels.iter().flat_map(|v| v.to_le_bytes()).collect();
    t.write_level(0, 0, &bytes).unwrap();
    let word = |b: &Buffer, i: usize| {
        let mut w = [0u8; 4];
        b.read(4 * i as u64, &mut w).unwrap();
        u32::from_le_bytes(w)
    };
    // Texel (4, 2) is word 2 * 64 + 4 of the buffer.
    assert_eq!(word(buffer, 2 * 64 + 4), 25);
    let msl = "#include <metal_stdlib>\nusing namespace metal;\n\
        kernel void main0(device atomic_uint* b [[buffer(0)]], texture2d<uint, access::read_write> t [[texture(0)]])\n{\n\
            atomic_fetch_add_explicit(&b[2 * 64 + 4], 1000u, memory_order_relaxed);\n\
            uint seen = t.read(uint2(4, 2)).x;\n\
            t.write(uint4(seen + 1u, 0u, 0u, 0u), uint2(0, 1));\n\
            uint back = atomic_load_explicit(&b[64], memory_order_relaxed);\n\
            atomic_store_explicit(&b[2 * 64 + 10], back, memory_order_relaxed);\n\
        }\n";
    run(&dev, msl, buffer, &[&t], &[]).unwrap();
    assert_eq!(word(buffer, 2 * 64 + 4), 1025);
    assert_eq!(word(buffer, 64), 1026);
    // Past the texture's width: the row's padding.
    assert_eq!(word(buffer, 2 * 64 + 10), 1026);
    let mut want = texels.clone();
    want[2 * 5 + 4] = 1025;
    want[5] = 1026;
    let read: Vec<u32> = t
        .level_bytes(0, 0)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(read, want);
}

/// A texture buffer created on a buffer (what Metal binds for a Vulkan
/// texel buffer viewing a buffer) is the buffer's bytes from its offset: a
/// kernel's write through either is what the other reads.
#[test]
fn a_texture_buffer_on_a_buffer_aliases_it() {
    let Some(dev) = dev() else { return };
    let buffer = dev.buffer(64, MemoryType::HostVisible).unwrap();
    let floats: Vec<u8> = (0..16u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    buffer.write(0, &floats).unwrap();
    let desc = TextureDescriptor::texture_buffer(PixelFormat::RGBA32Float, 3);
    let t = dev.texture_on_buffer(&desc, &buffer, 16, 48).unwrap();
    // Texel 0 is floats 4..7.
    assert_eq!(t.level_bytes(0, 0).unwrap(), floats[16..64].to_vec());
    let msl = "#include <metal_stdlib>\nusing namespace metal;\n\
        kernel void main0(device float* b [[buffer(0)]], texture_buffer<float, access::read_write> t [[texture(0)]])\n{\n\
            float4 v = t.read(uint(1));\n\
            b[0] = v.x + v.w;\n\
            t.write(float4(b[1], b[2], b[3], 100.0), uint(2));\n\
        }\n";
    run(&dev, msl, &buffer, &[&t], &[]).unwrap();
    let mut got = [0u8; 64];
    buffer.read(0, &mut got).unwrap();
    let got: Vec<f32> = got
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // Texel 1 is floats 8..11: 8 + 11; texel 2 (floats 12..15) written.
    assert_eq!(got[0], 19.0);
    assert_eq!(got[12..16], [1.0, 2.0, 3.0, 100.0]);
}

/// A view of a texture's levels from one (`newTextureViewWithPixelFormat:
/// textureType:levels:slices:`) shares its texels: the view's level 0 is the
/// texture's level `base`, and a kernel's write through the view is in the
/// texture.
#[test]
fn a_view_of_levels_shares_the_texture() {
    let Some(dev) = dev() else { return };
    let desc = TextureDescriptor {
        mipmap_level_count: 3,
        ..TextureDescriptor::d2(PixelFormat::R32Float, 4, 4)
    };
    let t = dev.texture(&desc).unwrap();
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    t.write_level(0, 0, &floats(&[0.0; 16])).unwrap();
    t.write_level(1, 0, &floats(&[1.0, 2.0, 3.0, 4.0])).unwrap();
    t.write_level(2, 0, &floats(&[5.0])).unwrap();
    let view = t.view_levels(1, 2).unwrap();
    assert_eq!(view.descriptor().width, 2);
    assert_eq!(
        view.level_bytes(0, 0).unwrap(),
        floats(&[1.0, 2.0, 3.0, 4.0])
    );
    assert!(
        view.label().contains("a view of texture #"),
        "{}",
        view.label()
    );
    let out = dev.buffer(16, MemoryType::HostVisible).unwrap();
    let msl = "#include <metal_stdlib>\nusing namespace metal;\n\
        kernel void main0(device float* b [[buffer(0)]], texture2d<float, access::read_write> v [[texture(0)]])\n{\n\
            b[0] = v.read(uint2(0, 0), 1).x;\n\
            b[1] = float(v.get_width());\n\
            v.write(float4(42.0), uint2(1, 1));\n\
        }\n";
    run(&dev, msl, &out, &[&view], &[]).unwrap();
    let mut got = [0u8; 8];
    out.read(0, &mut got).unwrap();
    assert_eq!(got.to_vec(), floats(&[5.0, 2.0]));
    assert_eq!(t.level_bytes(1, 0).unwrap(), floats(&[1.0, 2.0, 3.0, 42.0]));
    for (base, count) in [(0, 4), (3, 1), (1, 0)] {
        let e = t.view_levels(base, count).unwrap_err().to_string();
        assert!(e.contains("of a texture of 3 levels"), "{e}");
    }
}

/// What Metal refuses of `newTextureWithDescriptor:offset:bytesPerRow:` is
/// refused: another type than 2D, rows shorter than the width, a row pitch
/// that is not whole texels, texels past the buffer's end; and an atomic
/// texture of a format other than R32Uint and R32Sint.
#[test]
fn a_texture_on_a_buffer_refuses_what_metal_would() {
    let dev = Device::new().unwrap();
    let buffer = dev.buffer(1024, MemoryType::HostVisible).unwrap();
    let d2 = TextureDescriptor::d2(PixelFormat::R32Uint, 8, 4);
    assert!(dev.texture_on_buffer(&d2, &buffer, 0, 256).is_ok());
    for (desc, offset, pitch, want) in [
        (
            typed(TextureType::D3, 8, 4, 2, 1, 1),
            0,
            256,
            "2D with one mip level, or a texture buffer (got D3, 1 levels)",
        ),
        (d2, 0, 16, "a row of 8 texels needs at least 32"),
        (d2, 0, 34, "multiples of the 4-byte texel"),
        (
            d2,
            256,
            256,
            "its texels end at byte 1056 of a 1024-byte buffer",
        ),
    ] {
        let e = dev
            .texture_on_buffer(&desc, &buffer, offset, pitch)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{e}");
    }
    let e = dev
        .atomic_texture(&TextureDescriptor::d2(PixelFormat::R32Float, 4, 4))
        .unwrap_err()
        .to_string();
    assert!(e.contains("R32Uint and R32Sint"), "{e}");
}
