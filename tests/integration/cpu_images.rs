//! Textures and samplers on the CPU backend, end to end: GLSL compute
//! kernels with images are compiled by glslc and halc (argument buffers,
//! discrete slots, and iOS tier 1 where halc compiles the kernel), run on
//! the CPU backend, and their results checked against values computed here
//! from Metal's conversion and sampling rules, independently of the shim.
//! Every pattern has a negative control: the check rejects a run with a
//! wrong binding or slot.
//!
//! Needs clang++ ≥ 15 and glslc: without them each test prints why and
//! passes, unless `HALC_REQUIRE_CLANG=1`, when it fails.

use std::time::Duration;

use halc::msl::{BindingModel, LayoutOptions, Platform, Tier};
use halc::runtime_loader::cpu::{
    AddressMode, BorderColor, Bound, CpuError, Device, DeviceOptions, MinMagFilter, MipFilter,
    Pipeline, PixelFormat, ResourceBindings, SamplerDescriptor, Texture, TextureDescriptor,
    TextureType,
};
use halc::runtime_loader::memory::MemoryType;
use halc::runtime_loader::plan::{Command, DispatchPlan, Grid, ResourceKey};
use halc::runtime_loader::Executable;

/// How a kernel is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    ArgumentBuffers,
    Discrete,
    /// iOS, argument-buffer tier 1 (writable textures leave the argument
    /// buffer).
    IosTier1,
}

const ALL: [Target; 3] = [Target::ArgumentBuffers, Target::Discrete, Target::IosTier1];
/// Kernels with storage images: every target (iOS tier 1 failed with an
/// internal error until the layout kept read-only storage images out of
/// the argument buffer as SPIRV-Cross does).
const STORAGE: [Target; 3] = ALL;

fn device() -> Option<Device> {
    let required = std::env::var("HALC_REQUIRE_CLANG").as_deref() == Ok("1");
    let glslc = std::process::Command::new("glslc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !glslc {
        assert!(!required, "HALC_REQUIRE_CLANG=1 but glslc is missing");
        println!("skipped: glslc not found");
        return None;
    }
    let cache_dir = std::env::var_os("HALC_CPU_CACHE")
        .map(Into::into)
        .unwrap_or_else(|| std::env::temp_dir().join("halc-cpu-test-cache"));
    match Device::with_options(DeviceOptions {
        cache_dir: Some(cache_dir),
        time_limit: Duration::from_secs(60),
        ..Default::default()
    }) {
        Ok(d) => Some(d),
        Err(e @ CpuError::ClangNotFound { .. }) if !required => {
            println!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// GLSL compute source → executable bytes for `target`.
fn build(name: &str, glsl: &str, target: Target) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(format!("{name}.comp"));
    let spv = dir.path().join(format!("{name}.spv"));
    std::fs::write(&src, glsl).unwrap();
    let out = std::process::Command::new("glslc")
        .arg(&src)
        .arg("-o")
        .arg(&spv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "glslc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let layout = match target {
        Target::ArgumentBuffers => LayoutOptions {
            model: BindingModel::ArgumentBuffers,
            ..Default::default()
        },
        Target::Discrete => LayoutOptions {
            model: BindingModel::Discrete,
            ..Default::default()
        },
        Target::IosTier1 => LayoutOptions {
            model: BindingModel::ArgumentBuffers,
            platform: Platform::IOS,
            tier: Tier::Tier1,
            ..Default::default()
        },
    };
    let options = halc::Options {
        layout,
        ..Default::default()
    };
    let input = halc::Input::new(format!("{name}.spv"), std::fs::read(&spv).unwrap());
    halc::compile(&[input], &options)
        .unwrap_or_else(|e| panic!("{name} ({target:?}): {e}"))
        .to_flatbuffer()
}

/// The pipeline of the executable's one kernel.
fn pipeline<'a>(dev: &Device, exe: Executable<'a>) -> Pipeline<'a> {
    let name = exe.entry_points().next().expect("one kernel").name();
    dev.load(exe)
        .unwrap()
        .pipeline(name, &[])
        .unwrap_or_else(|e| panic!("{e}"))
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Metal's float → unorm: clamp to [0, 1] (NaN 0), scale, round to
/// nearest even.
fn unorm(x: f32, bits: u32) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let max = f64::from((1u32 << bits) - 1);
    (f64::from(x.clamp(0.0, 1.0)) * max).round_ties_even() as u32
}

/// Metal's float → snorm (two's complement, `bits` wide).
fn snorm(x: f32, bits: u32) -> i32 {
    if x.is_nan() {
        return 0;
    }
    let max = f64::from((1u32 << (bits - 1)) - 1);
    (f64::from(x.clamp(-1.0, 1.0)) * max).round_ties_even() as i32
}

/// IEEE binary16 bits of `x`, rounded to nearest even (overflow to
/// infinity), from the value's exact binary expansion.
fn half_bits(x: f32) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = f64::from(x.abs());
    if x.is_nan() {
        return 0x7e00;
    }
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // Subnormal step 2^-24; normal values keep 11 significant bits.
    if a < 2f64.powi(-14) {
        return sign | (a * 2f64.powi(24)).round_ties_even() as u16;
    }
    let e = a.log2().floor() as i32;
    let e = if 2f64.powi(e) > a { e - 1 } else { e };
    let m = (a / 2f64.powi(e) * 1024.0).round_ties_even() as u32; // 1024..=2048
    let (e, m) = if m == 2048 { (e + 1, 1024) } else { (e, m) };
    sign | (((e + 15) as u16) << 10) | (m - 1024) as u16
}

/// A texture of `desc` holding `bytes` at level 0, slice 0.
fn texture(dev: &Device, desc: TextureDescriptor, bytes: &[u8]) -> Texture {
    let t = dev.texture(&desc).unwrap();
    t.write_level(0, 0, bytes).unwrap();
    t
}

const STORAGE_2D: &str = r#"#version 450
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0, rgba32f) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D unorm8;
layout(set = 0, binding = 2, rgba8_snorm) uniform writeonly image2D snorm8;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image2D half16;
layout(set = 1, binding = 0, rgba32i) uniform iimage2D ints;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec4 v = imageLoad(src, p);
    imageStore(unorm8, p, v);
    imageStore(snorm8, p, v);
    imageStore(half16, p, v);
    imageStore(ints, p, imageLoad(ints, p) * 1000);
}
"#;

/// The 32 source values (4x2 texels of 4 components): near-ties for unorm8
/// (k/510) and snorm8 (k/254), out-of-range values, NaN, values half rounds,
/// overflows and makes subnormal.
fn storage_source() -> Vec<f32> {
    vec![
        1.0 / 510.0,
        3.0 / 510.0,
        5.0 / 510.0,
        255.0 / 510.0,
        -0.25,
        1.5,
        f32::NAN,
        0.0,
        -1.0 / 254.0,
        3.0 / 254.0,
        -1.5,
        -1.0,
        1.0 / 3.0,
        0.1,
        65519.0,
        65520.0,
        6.0e-8,
        1.0e-5,
        -2.0e-5,
        0.999,
        0.5,
        0.25,
        0.75,
        127.0 / 254.0,
        -0.5,
        0.3,
        0.7,
        0.9,
        0.123,
        0.456,
        0.789,
        1.0,
    ]
}

/// The 8x4-component int texels the kernel multiplies by 1000 into an
/// RGBA16Sint texture (saturating).
fn storage_ints() -> Vec<i16> {
    (0..32).map(|i| (i as i16 - 16) * 3).chain([]).collect()
}

struct StorageRun {
    unorm8: Vec<u8>,
    snorm8: Vec<u8>,
    half16: Vec<u8>,
    ints: Vec<u8>,
}

/// Swaps where the plan puts the textures (or samplers) of `a` and `b`:
/// their `setTexture` / `setSamplerState` slots, or their argument-buffer
/// members' resource ids: the kernel then finds each at the other's place.
fn swap_slots(plan: &mut DispatchPlan, a: (u32, u32), b: (u32, u32)) {
    let is = |k: &ResourceKey, x: (u32, u32)| (k.set, k.binding) == x;
    for c in &mut plan.commands {
        if let Command::SetTexture { key, .. } | Command::SetSamplerState { key, .. } = c {
            if is(key, a) {
                key.binding = b.1;
                key.set = b.0;
            } else if is(key, b) {
                key.binding = a.1;
                key.set = a.0;
            }
        }
    }
    for ab in &mut plan.argument_buffers {
        let at = |x| {
            ab.members
                .iter()
                .find(|m| is(&m.key, x))
                .map(|m| m.byte_offset as usize)
        };
        let (Some(i), Some(j)) = (at(a), at(b)) else {
            continue;
        };
        for k in 0..8 {
            ab.bytes.swap(i + k, j + k);
        }
    }
}

/// Plans a dispatch of `p` with `b`, lets `tamper` change the plan, runs it.
fn run(
    dev: &Device,
    p: &Pipeline<'_>,
    b: &ResourceBindings<'_>,
    push: &[u8],
    grid: Grid,
    tamper: impl FnOnce(&mut DispatchPlan),
) -> Result<(), CpuError> {
    let mut plan = DispatchPlan::new(p.kernel(), p.specialization(), &b.to_plan()?, push, grid)?;
    tamper(&mut plan);
    dev.execute(p, &plan, b)
}

/// Runs STORAGE_2D, `tamper` changing the plan first.
fn run_storage(dev: &Device, target: Target, tamper: impl FnOnce(&mut DispatchPlan)) -> StorageRun {
    let bytes = build("storage_2d", STORAGE_2D, target);
    let exe = Executable::load(&bytes).unwrap();
    let p = pipeline(dev, exe);
    let src = texture(
        dev,
        TextureDescriptor::d2(PixelFormat::RGBA32Float, 4, 2),
        &f32_bytes(&storage_source()),
    );
    let u8t = dev
        .texture(&TextureDescriptor::d2(PixelFormat::RGBA8Unorm, 4, 2))
        .unwrap();
    let s8t = dev
        .texture(&TextureDescriptor::d2(PixelFormat::RGBA8Snorm, 4, 2))
        .unwrap();
    let h16 = dev
        .texture(&TextureDescriptor::d2(PixelFormat::RGBA16Float, 4, 2))
        .unwrap();
    let ints: Vec<u8> = storage_ints()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let it = texture(
        dev,
        TextureDescriptor::d2(PixelFormat::RGBA16Sint, 4, 2),
        &ints,
    );
    let mut b = ResourceBindings::new();
    b.texture(0, 0, &src)
        .texture(0, 1, &u8t)
        .texture(0, 2, &s8t)
        .texture(0, 3, &h16)
        .texture(1, 0, &it);
    run(dev, &p, &b, &[], Grid::Threads([4, 2, 1]), tamper)
        .unwrap_or_else(|e| panic!("{target:?}: {e}"));
    StorageRun {
        unorm8: u8t.level_bytes(0, 0).unwrap(),
        snorm8: s8t.level_bytes(0, 0).unwrap(),
        half16: h16.level_bytes(0, 0).unwrap(),
        ints: it.level_bytes(0, 0).unwrap(),
    }
}

fn check_storage(r: &StorageRun) -> Result<(), String> {
    let src = storage_source();
    for (i, &x) in src.iter().enumerate() {
        let u = unorm(x, 8) as u8;
        if r.unorm8[i] != u {
            return Err(format!("unorm8[{i}] of {x}: {} != {u}", r.unorm8[i]));
        }
        let s = snorm(x, 8) as i8 as u8;
        if r.snorm8[i] != s {
            return Err(format!("snorm8[{i}] of {x}: {} != {s}", r.snorm8[i]));
        }
        let h = u16::from_le_bytes([r.half16[2 * i], r.half16[2 * i + 1]]);
        let want = half_bits(x);
        // Any NaN is a NaN.
        let both_nan = x.is_nan() && h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
        if h != want && !both_nan {
            return Err(format!("half[{i}] of {x}: {h:#06x} != {want:#06x}"));
        }
    }
    for (i, v) in storage_ints().iter().enumerate() {
        let got = i16::from_le_bytes([r.ints[2 * i], r.ints[2 * i + 1]]);
        let want = (i32::from(*v) * 1000).clamp(-32768, 32767) as i16;
        if got != want {
            return Err(format!("ints[{i}] of {v}: {got} != {want}"));
        }
    }
    Ok(())
}

#[test]
fn storage_images_convert_as_metal_defines_unorm_snorm_half_and_saturated_ints() {
    let Some(dev) = device() else { return };
    // The rules the expected values come from, on known cases.
    // 255 and 127 are odd, so no float is an exact tie: k / 510 lands on
    // whichever side its float rounding put it, and rounding is to nearest
    // (0.9 / 255 is 1, not truncated to 0).
    assert_eq!(unorm(0.9 / 255.0, 8), 1);
    assert_eq!(
        unorm(1.0 / 510.0, 8),
        1,
        "f32(1/510) * 255 is just above 0.5"
    );
    assert_eq!(snorm(-1.5, 8), -127, "snorm clamps to -1, which is -127");
    assert_eq!(half_bits(65520.0), 0x7c00);
    assert_eq!(half_bits(1.0 / 3.0), 0x3555);
    for target in STORAGE {
        let r = run_storage(&dev, target, |_| {});
        check_storage(&r).unwrap_or_else(|e| panic!("{target:?}: {e}"));
        // Negative control: the source and the half target in each other's
        // slot: the kernel reads the empty texture.
        let wrong = run_storage(&dev, target, |plan| swap_slots(plan, (0, 0), (0, 3)));
        assert!(check_storage(&wrong).is_err(), "{target:?}");
    }
}

const STORAGE_3D_ARRAY: &str = r#"#version 450
layout(local_size_x = 2, local_size_y = 2, local_size_z = 2) in;
layout(set = 0, binding = 0, r32ui) uniform uimage3D vol;
layout(set = 0, binding = 1, rgba16f) uniform image2DArray arr;
layout(set = 0, binding = 2) buffer Sizes { ivec4 sizes[2]; };
void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID);
    uvec4 v = imageLoad(vol, p);
    imageStore(vol, p, v * 3u + uvec4(p.x + 10 * p.y + 100 * p.z));
    // An RG16Float texture: blue reads 0 and alpha 1.
    vec4 a = imageLoad(arr, p);
    imageStore(arr, p, vec4(a.y + a.w + a.z * 100.0, a.x + float(p.z), 0.0, 0.0));
    if (p == ivec3(0)) {
        sizes[0] = ivec4(imageSize(vol), 7);
        sizes[1] = ivec4(imageSize(arr), 7);
    }
}
"#;

fn vol_in(i: u32) -> u32 {
    i * 7 + 1
}

/// (r, g) of array texel `i` (exact in half).
fn arr_in(i: u32) -> [f32; 2] {
    [i as f32 * 0.25, 8.0 - i as f32 * 0.5]
}

fn half_to_f32(h: u16) -> f32 {
    let e = i32::from((h >> 10) & 31);
    let m = f32::from(h & 1023);
    let v = if e == 0 {
        m * 2f32.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f32.powi(e - 15)
    };
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

/// The 3D texture's texels, the array's (r, g) texels, the sizes.
type Run3d = (Vec<u32>, Vec<[f32; 2]>, Vec<i32>);

/// Runs STORAGE_3D_ARRAY: the 3D texture (2x2x2, R32Uint), the array
/// (2x2, 2 slices, RG16Float), the sizes.
fn run_3d_array(
    dev: &Device,
    target: Target,
    tamper: impl FnOnce(&mut DispatchPlan),
) -> Result<Run3d, CpuError> {
    let bytes = build("storage_3d_array", STORAGE_3D_ARRAY, target);
    let p = pipeline(dev, Executable::load(&bytes).unwrap());
    let vol = dev
        .texture(&TextureDescriptor {
            texture_type: TextureType::D3,
            depth: 2,
            ..TextureDescriptor::d2(PixelFormat::R32Uint, 2, 2)
        })
        .unwrap();
    let v: Vec<u8> = (0..8).flat_map(|i| vol_in(i).to_le_bytes()).collect();
    vol.write_level(0, 0, &v).unwrap();
    let arr = dev
        .texture(&TextureDescriptor {
            texture_type: TextureType::D2Array,
            array_length: 2,
            ..TextureDescriptor::d2(PixelFormat::RG16Float, 2, 2)
        })
        .unwrap();
    for slice in 0..2 {
        let texels: Vec<u8> = (0..4)
            .flat_map(|i| arr_in(slice * 4 + i))
            .flat_map(|x| half_bits(x).to_le_bytes())
            .collect();
        arr.write_level(0, slice, &texels).unwrap();
    }
    let sizes = dev.buffer(32, MemoryType::HostVisible).unwrap();
    let mut b = ResourceBindings::new();
    b.texture(0, 0, &vol)
        .texture(0, 1, &arr)
        .buffer(0, 2, &sizes);
    run(dev, &p, &b, &[], Grid::Threads([2, 2, 2]), tamper)?;
    let vol_out = vol
        .level_bytes(0, 0)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut arr_out = Vec::new();
    for slice in 0..2 {
        for c in arr.level_bytes(0, slice)?.chunks_exact(4) {
            arr_out.push([
                half_to_f32(u16::from_le_bytes([c[0], c[1]])),
                half_to_f32(u16::from_le_bytes([c[2], c[3]])),
            ]);
        }
    }
    let sizes = sizes
        .to_vec()?
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    Ok((vol_out, arr_out, sizes))
}

fn check_3d_array(r: Result<Run3d, CpuError>) -> Result<(), String> {
    let (vol, arr, sizes) = r.map_err(|e| e.to_string())?;
    for z in 0..2 {
        for y in 0..2 {
            for x in 0..2 {
                let i = (z * 2 + y) * 2 + x;
                let want = vol_in(i) * 3 + x + 10 * y + 100 * z;
                if vol[i as usize] != want {
                    return Err(format!(
                        "vol ({x}, {y}, {z}): {} != {want}",
                        vol[i as usize]
                    ));
                }
                // Slice z, texel (x, y).
                let [r, g] = arr_in(i);
                let want = [g + 1.0, r + z as f32];
                if arr[i as usize] != want {
                    return Err(format!(
                        "arr ({x}, {y}) slice {z}: {:?} != {want:?}",
                        arr[i as usize]
                    ));
                }
            }
        }
    }
    if sizes != [2, 2, 2, 7, 2, 2, 2, 7] {
        return Err(format!("imageSize: {sizes:?}"));
    }
    Ok(())
}

#[test]
fn storage_images_3d_and_2d_array_read_write_and_size() {
    let Some(dev) = device() else { return };
    for target in STORAGE {
        check_3d_array(run_3d_array(&dev, target, |_| {}))
            .unwrap_or_else(|e| panic!("{target:?}: {e}"));
        // Negative control: the 3D texture in the array's slot (and back).
        let wrong = run_3d_array(&dev, target, |plan| swap_slots(plan, (0, 0), (0, 1)));
        assert!(check_3d_array(wrong).is_err(), "{target:?}");
    }
}

const TEXEL_FETCH: &str = r#"#version 450
layout(local_size_x = 6) in;
layout(set = 0, binding = 0) uniform samplerBuffer tb;
layout(set = 0, binding = 1) uniform isamplerBuffer itb;
layout(set = 0, binding = 2) uniform sampler2D mipped;
layout(set = 0, binding = 3) buffer Out { vec4 o[]; };
void main() {
    int i = int(gl_GlobalInvocationID.x);
    int lod = i % 3;
    o[4 * i + 0] = texelFetch(tb, i);
    o[4 * i + 1] = vec4(texelFetch(itb, i));
    o[4 * i + 2] = texelFetch(mipped, ivec2(i / 3, 0) * (2 - lod) / 2, lod);
    o[4 * i + 3] = vec4(textureSize(mipped, lod), textureQueryLevels(mipped), textureSize(tb));
}
"#;

/// R16Snorm texel-buffer element `i`.
fn tb_in(i: usize) -> i16 {
    [-32768, -32767, -16384, 0, 12345, 32767][i]
}

/// RGBA8Sint texel-buffer element `i`.
fn itb_in(i: usize) -> [i8; 4] {
    let i = i as i8;
    [i, -i, 100 + i, -128 + i]
}

/// RGBA8Unorm texel (x, y) of level `lod`.
fn mip_in(lod: u32, x: u32, y: u32) -> [u8; 4] {
    [
        (lod * 80 + x * 10 + y) as u8,
        (x * 50) as u8,
        255,
        (lod * 100) as u8,
    ]
}

fn run_texel_fetch(
    dev: &Device,
    target: Target,
    tamper: impl FnOnce(&mut DispatchPlan),
) -> Result<Vec<f32>, CpuError> {
    let bytes = build("texel_fetch", TEXEL_FETCH, target);
    let p = pipeline(dev, Executable::load(&bytes).unwrap());
    let tb = dev
        .texture(&TextureDescriptor::texture_buffer(PixelFormat::R16Snorm, 6))
        .unwrap();
    let v: Vec<u8> = (0..6).flat_map(|i| tb_in(i).to_le_bytes()).collect();
    tb.write_level(0, 0, &v).unwrap();
    let itb = dev
        .texture(&TextureDescriptor::texture_buffer(
            PixelFormat::RGBA8Sint,
            6,
        ))
        .unwrap();
    let v: Vec<u8> = (0..6).flat_map(itb_in).map(|x| x as u8).collect();
    itb.write_level(0, 0, &v).unwrap();
    let mipped = dev
        .texture(&TextureDescriptor {
            mipmap_level_count: 3,
            ..TextureDescriptor::d2(PixelFormat::RGBA8Unorm, 4, 4)
        })
        .unwrap();
    for lod in 0..3 {
        let n = 4 >> lod;
        let v: Vec<u8> = (0..n * n).flat_map(|i| mip_in(lod, i % n, i / n)).collect();
        mipped.write_level(lod, 0, &v).unwrap();
    }
    let smp = dev.sampler(&SamplerDescriptor::default()).unwrap();
    let out = dev.buffer(6 * 4 * 16, MemoryType::HostVisible).unwrap();
    let mut b = ResourceBindings::new();
    b.texture(0, 0, &tb)
        .texture(0, 1, &itb)
        .combined(0, 2, &mipped, &smp)
        .buffer(0, 3, &out);
    run(dev, &p, &b, &[], Grid::Threads([6, 1, 1]), tamper)?;
    Ok(f32s(&out.to_vec()?))
}

fn check_texel_fetch(r: Result<Vec<f32>, CpuError>) -> Result<(), String> {
    let o = r.map_err(|e| e.to_string())?;
    for i in 0..6usize {
        let at = |k: usize| &o[16 * i + 4 * k..16 * i + 4 * k + 4];
        let s = (f32::from(tb_in(i)) / 32767.0).max(-1.0);
        if at(0) != [s, 0.0, 0.0, 1.0] {
            return Err(format!(
                "texel buffer [{i}]: {:?}, want ({s}, 0, 0, 1)",
                at(0)
            ));
        }
        let want: Vec<f32> = itb_in(i).iter().map(|&x| f32::from(x)).collect();
        if at(1) != want {
            return Err(format!("int texel buffer [{i}]: {:?} != {want:?}", at(1)));
        }
        let lod = (i % 3) as u32;
        let x = (i as u32 / 3) * (2 - lod) / 2;
        let want: Vec<f32> = mip_in(lod, x, 0)
            .iter()
            .map(|&c| f32::from(c) / 255.0)
            .collect();
        if at(2) != want {
            return Err(format!(
                "texelFetch lod {lod} ({x}, 0): {:?} != {want:?}",
                at(2)
            ));
        }
        let n = (4 >> lod) as f32;
        if at(3) != [n, n, 3.0, 6.0] {
            return Err(format!("sizes at lod {lod}: {:?}", at(3)));
        }
    }
    Ok(())
}

#[test]
fn texel_buffers_and_texel_fetch_with_lod_and_queries() {
    let Some(dev) = device() else { return };
    for target in ALL {
        check_texel_fetch(run_texel_fetch(&dev, target, |_| {}))
            .unwrap_or_else(|e| panic!("{target:?}: {e}"));
        // Negative control: the float and the int texel buffers swapped.
        let wrong = run_texel_fetch(&dev, target, |plan| swap_slots(plan, (0, 0), (0, 1)));
        assert!(check_texel_fetch(wrong).is_err(), "{target:?}");
    }
}

const SAMPLING: &str = r#"#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform texture2D tex;
layout(set = 0, binding = 1) uniform sampler smp;
layout(set = 0, binding = 2) uniform sampler2D combined;
layout(set = 0, binding = 3) readonly buffer In { vec4 uv_lod[]; };
layout(set = 0, binding = 4) buffer Out { vec4 o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 c = uv_lod[i];
    o[2 * i] = textureLod(sampler2D(tex, smp), c.xy, c.z);
    o[2 * i + 1] = textureGather(combined, c.xy, 1);
}
"#;

/// (u, v, lod) per thread: inside, on texel centres, outside on every side
/// (for the address modes), between levels.
const COORDS: [[f32; 3]; 16] = [
    [0.3, 0.6, 0.0],
    [-0.3, 0.2, 0.0],
    [1.2, 0.9, 0.0],
    [-1.3, 1.7, 0.0],
    [2.7, -0.45, 0.0],
    [0.5, 0.5, 0.5],
    [0.1, 0.85, 1.0],
    [0.55, 0.2, 0.25],
    [-0.05, 1.05, 0.0],
    [0.999, 0.001, 0.0],
    [0.125, 0.375, 0.0],
    [1.0, 1.0, 0.0],
    [-0.6, -1.4, 0.75],
    [3.3, 2.1, 0.0],
    [0.7, -0.1, 2.0],
    [0.0, 0.0, 0.0],
];

/// Texel (x, y) of level `lod` of the 4x4 RGBA8Unorm texture, as bytes.
fn smp_texel(lod: usize, x: i64, y: i64) -> [u8; 4] {
    [
        (lod as i64 * 90 + x * 50 + y * 7) as u8,
        (y * 60 + x * 3) as u8,
        (250 - x * 20 - y * 40 - lod as i64 * 5) as u8,
        (200 + x + y * 4) as u8,
    ]
}

/// Texel (x, y) of the 4x4 R32Float texture (no alpha).
fn r32_texel(x: i64, y: i64) -> f32 {
    0.5 + x as f32 - y as f32 * 0.25
}

/// The address mode's texel index, or `None` for the border (Vulkan's and
/// Metal's rules on integer texel coordinates).
fn wrap_ref(i: i64, n: i64, mode: AddressMode) -> Option<i64> {
    match mode {
        AddressMode::ClampToEdge => Some(i.clamp(0, n - 1)),
        AddressMode::MirrorClampToEdge => Some(if i < 0 { -1 - i } else { i }.min(n - 1)),
        AddressMode::Repeat => Some(i.rem_euclid(n)),
        AddressMode::MirrorRepeat => {
            let t = i.rem_euclid(2 * n);
            Some(if t < n { t } else { 2 * n - 1 - t })
        }
        AddressMode::ClampToZero | AddressMode::ClampToBorderColor => {
            (0..n).contains(&i).then_some(i)
        }
    }
}

/// A sampled texture as the reference sees it: levels of RGBA floats.
struct RefTexture {
    levels: Vec<Vec<[f32; 4]>>,
    size: i64,
    alpha: bool,
}

impl RefTexture {
    fn rgba8() -> RefTexture {
        RefTexture {
            levels: (0..2)
                .map(|lod| {
                    let n = 4 >> lod;
                    (0..n * n)
                        .map(|i| smp_texel(lod, i % n, i / n).map(|c| f32::from(c) / 255.0))
                        .collect()
                })
                .collect(),
            size: 4,
            alpha: true,
        }
    }

    fn r32() -> RefTexture {
        RefTexture {
            levels: vec![(0..16)
                .map(|i| [r32_texel(i % 4, i / 4), 0.0, 0.0, 1.0])
                .collect()],
            size: 4,
            alpha: false,
        }
    }

    fn texel(&self, d: &SamplerDescriptor, lod: usize, x: i64, y: i64) -> [f32; 4] {
        let n = self.size >> lod;
        let border = |mode| {
            let a = if self.alpha { 0.0 } else { 1.0 };
            match (mode, d.border_color) {
                (AddressMode::ClampToBorderColor, BorderColor::OpaqueWhite) => [1.0; 4],
                (AddressMode::ClampToBorderColor, BorderColor::OpaqueBlack) => [0.0, 0.0, 0.0, 1.0],
                _ => [0.0, 0.0, 0.0, a],
            }
        };
        let Some(x) = wrap_ref(x, n, d.s_address_mode) else {
            return border(d.s_address_mode);
        };
        let Some(y) = wrap_ref(y, n, d.t_address_mode) else {
            return border(d.t_address_mode);
        };
        self.levels[lod][(y * n + x) as usize]
    }

    /// One level, coordinates in texels.
    fn filter(&self, d: &SamplerDescriptor, linear: bool, lod: usize, u: f64, v: f64) -> [f64; 4] {
        if !linear {
            return self
                .texel(d, lod, u.floor() as i64, v.floor() as i64)
                .map(f64::from);
        }
        let (x, y) = (u - 0.5, v - 0.5);
        let (i, j) = (x.floor() as i64, y.floor() as i64);
        let (a, b) = (x - x.floor(), y - y.floor());
        let mut r = [0.0; 4];
        for (dx, dy, w) in [
            (0, 0, (1.0 - a) * (1.0 - b)),
            (1, 0, a * (1.0 - b)),
            (0, 1, (1.0 - a) * b),
            (1, 1, a * b),
        ] {
            let t = self.texel(d, lod, i + dx, j + dy);
            for c in 0..4 {
                r[c] += w * f64::from(t[c]);
            }
        }
        r
    }

    fn sample(&self, d: &SamplerDescriptor, [u, v, lod]: [f32; 3]) -> [f64; 4] {
        let lambda = lod.clamp(d.lod_min_clamp, d.lod_max_clamp);
        let linear = if lambda > 0.0 {
            d.min_filter
        } else {
            d.mag_filter
        } == MinMagFilter::Linear;
        let max_level = (self.levels.len() - 1) as f32;
        let l = lambda.clamp(0.0, max_level);
        let at = |lod: usize| {
            let n = (self.size >> lod) as f64;
            let (u, v) = if d.normalized_coordinates {
                (f64::from(u) * n, f64::from(v) * n)
            } else {
                (f64::from(u), f64::from(v))
            };
            self.filter(d, linear, lod, u, v)
        };
        match d.mip_filter {
            MipFilter::NotMipmapped => at(0),
            MipFilter::Nearest => at(if l <= 0.5 {
                0
            } else {
                (l + 0.5).ceil() as usize - 1
            }),
            MipFilter::Linear => {
                let l0 = l.floor();
                let f = f64::from(l - l0);
                let (a, b) = (
                    at(l0 as usize),
                    at((l0 as usize + 1).min(max_level as usize)),
                );
                [0, 1, 2, 3].map(|c| a[c] * (1.0 - f) + b[c] * f)
            }
        }
    }

    /// textureGather's four texels' component `c`: (i0, j1), (i1, j1),
    /// (i1, j0), (i0, j0) of the bilinear footprint at level 0.
    fn gather(&self, d: &SamplerDescriptor, [u, v, _]: [f32; 3], c: usize) -> [f64; 4] {
        let n = self.size as f64;
        let i = (f64::from(u) * n - 0.5).floor() as i64;
        let j = (f64::from(v) * n - 0.5).floor() as i64;
        [(0, 1), (1, 1), (1, 0), (0, 0)]
            .map(|(dx, dy)| f64::from(self.texel(d, 0, i + dx, j + dy)[c]))
    }
}

fn close(got: &[f32], want: &[f64]) -> bool {
    got.iter()
        .zip(want)
        .all(|(g, w)| (f64::from(*g) - w).abs() < 1e-5)
}

/// Samplers to run: every filter with every address mode (border colour
/// opaque white), mip filters, pixel coordinates.
fn sampler_configs() -> Vec<SamplerDescriptor> {
    let modes = [
        AddressMode::ClampToEdge,
        AddressMode::MirrorClampToEdge,
        AddressMode::Repeat,
        AddressMode::MirrorRepeat,
        AddressMode::ClampToZero,
        AddressMode::ClampToBorderColor,
    ];
    let mut v = Vec::new();
    for filter in [MinMagFilter::Nearest, MinMagFilter::Linear] {
        for mode in modes {
            v.push(SamplerDescriptor {
                min_filter: filter,
                mag_filter: filter,
                mip_filter: MipFilter::Linear,
                s_address_mode: mode,
                t_address_mode: mode,
                border_color: BorderColor::OpaqueWhite,
                ..Default::default()
            });
        }
    }
    v.push(SamplerDescriptor {
        min_filter: MinMagFilter::Linear,
        mag_filter: MinMagFilter::Nearest,
        mip_filter: MipFilter::Nearest,
        s_address_mode: AddressMode::Repeat,
        t_address_mode: AddressMode::MirrorRepeat,
        ..Default::default()
    });
    v.push(SamplerDescriptor {
        min_filter: MinMagFilter::Linear,
        mag_filter: MinMagFilter::Linear,
        mip_filter: MipFilter::Linear,
        lod_max_clamp: 0.5,
        ..Default::default()
    });
    v.push(SamplerDescriptor {
        min_filter: MinMagFilter::Linear,
        mag_filter: MinMagFilter::Linear,
        normalized_coordinates: false,
        s_address_mode: AddressMode::ClampToEdge,
        t_address_mode: AddressMode::ClampToZero,
        ..Default::default()
    });
    v
}

/// What one sampling dispatch gave: per thread, the sample and the gather.
fn run_sampling(
    dev: &Device,
    p: &Pipeline<'_>,
    tex: &Texture,
    d: &SamplerDescriptor,
    gather_sampler: &SamplerDescriptor,
) -> Result<Vec<f32>, CpuError> {
    let smp = dev.sampler(d)?;
    let gs = dev.sampler(gather_sampler)?;
    let coords: Vec<f32> = COORDS
        .iter()
        .flat_map(|c| [c[0], c[1], c[2], 0.0])
        .collect();
    let input = dev.buffer_with_data(&f32_bytes(&coords), MemoryType::HostVisible)?;
    let out = dev.buffer(16 * 2 * 16, MemoryType::HostVisible)?;
    let mut b = ResourceBindings::new();
    b.texture(0, 0, tex)
        .sampler(0, 1, &smp)
        .combined(0, 2, tex, &gs)
        .buffer(0, 3, &input)
        .buffer(0, 4, &out);
    run(dev, p, &b, &[], Grid::Threads([16, 1, 1]), |_| {})?;
    Ok(f32s(&out.to_vec()?))
}

fn check_sampling(
    o: &[f32],
    tex: &RefTexture,
    d: &SamplerDescriptor,
    g: &SamplerDescriptor,
    component: usize,
) -> Result<(), String> {
    for (i, c) in COORDS.iter().enumerate() {
        let want = tex.sample(d, *c);
        let got = &o[8 * i..8 * i + 4];
        if !close(got, &want) {
            return Err(format!("sample at {c:?} with {d:?}: {got:?} != {want:?}"));
        }
        let want = tex.gather(g, *c, component);
        let got = &o[8 * i + 4..8 * i + 8];
        if !close(got, &want) {
            return Err(format!("gather at {c:?} with {g:?}: {got:?} != {want:?}"));
        }
    }
    Ok(())
}

#[test]
fn sampled_images_filter_address_and_gather_as_metal_defines() {
    let Some(dev) = device() else { return };
    let rgba8 = dev
        .texture(&TextureDescriptor {
            mipmap_level_count: 2,
            ..TextureDescriptor::d2(PixelFormat::RGBA8Unorm, 4, 4)
        })
        .unwrap();
    for lod in 0..2 {
        let n = 4 >> lod;
        let v: Vec<u8> = (0..n * n)
            .flat_map(|i| smp_texel(lod, i % n, i / n))
            .collect();
        rgba8.write_level(lod as u32, 0, &v).unwrap();
    }
    let r32 = texture(
        &dev,
        TextureDescriptor::d2(PixelFormat::R32Float, 4, 4),
        &f32_bytes(&(0..16).map(|i| r32_texel(i % 4, i / 4)).collect::<Vec<_>>()),
    );
    let gather = SamplerDescriptor {
        s_address_mode: AddressMode::Repeat,
        t_address_mode: AddressMode::MirrorRepeat,
        ..Default::default()
    };
    let configs = sampler_configs();
    for target in ALL {
        let bytes = build("sampling", SAMPLING, target);
        let p = pipeline(&dev, Executable::load(&bytes).unwrap());
        let reference = RefTexture::rgba8();
        for (k, d) in configs.iter().enumerate() {
            let o = run_sampling(&dev, &p, &rgba8, d, &gather)
                .unwrap_or_else(|e| panic!("{target:?}: {e}"));
            check_sampling(&o, &reference, d, &gather, 1)
                .unwrap_or_else(|e| panic!("{target:?}: {e}"));
            // Negative controls: the reference of the next sampler, and the
            // gather of another component.
            let other = &configs[(k + 1) % configs.len()];
            assert!(
                check_sampling(&o, &reference, other, &gather, 1).is_err(),
                "{target:?}: {d:?} and {other:?} agree"
            );
            assert!(check_sampling(&o, &reference, d, &gather, 0).is_err());
        }
        // A format without alpha: zero and the transparent black border
        // read alpha 1.
        let reference = RefTexture::r32();
        for mode in [AddressMode::ClampToZero, AddressMode::ClampToBorderColor] {
            let d = SamplerDescriptor {
                s_address_mode: mode,
                t_address_mode: mode,
                ..Default::default()
            };
            let o = run_sampling(&dev, &p, &r32, &d, &gather)
                .unwrap_or_else(|e| panic!("{target:?}: {e}"));
            // The kernel gathers green, which an R32Float texture reads as 0.
            check_sampling(&o, &reference, &d, &gather, 1)
                .unwrap_or_else(|e| panic!("{target:?}: {e}"));
            let alpha_zero = RefTexture {
                alpha: true,
                ..RefTexture::r32()
            };
            assert!(check_sampling(&o, &alpha_zero, &d, &gather, 1).is_err());
        }
    }
}

const STORE_ONE: &str = r#"#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform P { ivec2 at; vec4 value; };
void main() {
    imageStore(dst, at, value);
}
"#;

fn store_push(at: [i32; 2], value: [f32; 4]) -> Vec<u8> {
    let mut v: Vec<u8> = at.iter().flat_map(|c| c.to_le_bytes()).collect();
    v.extend([0u8; 8]);
    v.extend(f32_bytes(&value));
    v
}

/// Stores `value` at `at` into a 4x4 texture of `format`; returns the
/// texture.
fn store_one(
    dev: &Device,
    p: &Pipeline<'_>,
    format: PixelFormat,
    at: [i32; 2],
    value: [f32; 4],
    tamper: impl FnOnce(&mut DispatchPlan),
) -> Result<Texture, CpuError> {
    let t = dev.texture(&TextureDescriptor::d2(format, 4, 4))?;
    let mut b = ResourceBindings::new();
    b.texture(0, 0, &t);
    run(
        dev,
        p,
        &b,
        &store_push(at, value),
        Grid::Threads([1, 1, 1]),
        tamper,
    )?;
    Ok(t)
}

/// The bytes Metal's rules give `v` in `format` (computed here).
fn encoded(format: PixelFormat, v: [f32; 4]) -> Vec<u8> {
    let uf = |x: f32, mb: u32| -> u32 {
        // Exact here: 0.25 and 2.0 are powers of two; negatives are 0.
        if x <= 0.0 {
            return 0;
        }
        let e = x.log2().floor() as i32;
        let m = ((x / 2f32.powi(e) - 1.0) * (1 << mb) as f32).round() as u32;
        (((e + 15) as u32) << mb) | m
    };
    match format {
        PixelFormat::RGB10A2Unorm => {
            let w = unorm(v[0], 10)
                | unorm(v[1], 10) << 10
                | unorm(v[2], 10) << 20
                | unorm(v[3], 2) << 30;
            w.to_le_bytes().to_vec()
        }
        PixelFormat::RG11B10Float => (uf(v[0], 6) | uf(v[1], 6) << 11 | uf(v[2], 5) << 22)
            .to_le_bytes()
            .to_vec(),
        PixelFormat::RGBA8UnormSrgb | PixelFormat::BGRA8UnormSrgb => {
            // The MSL specification's linear → sRGB, then unorm8.
            let srgb = |x: f32| {
                let c = f64::from(x.clamp(0.0, 1.0));
                let c = if c < 0.0031308 {
                    12.92 * c
                } else {
                    1.055 * c.powf(1.0 / 2.4) - 0.055
                };
                (c * 255.0).round_ties_even() as u8
            };
            let rgb = [srgb(v[0]), srgb(v[1]), srgb(v[2])];
            let [r, g, b] = if format == PixelFormat::BGRA8UnormSrgb {
                [rgb[2], rgb[1], rgb[0]]
            } else {
                rgb
            };
            vec![r, g, b, unorm(v[3], 8) as u8]
        }
        PixelFormat::BGRA8Unorm => [v[2], v[1], v[0], v[3]]
            .iter()
            .map(|&x| unorm(x, 8) as u8)
            .collect(),
        PixelFormat::RGBA16Unorm => v
            .iter()
            .flat_map(|&x| (unorm(x, 16) as u16).to_le_bytes())
            .collect(),
        PixelFormat::RG16Snorm => v[..2]
            .iter()
            .flat_map(|&x| (snorm(x, 16) as i16).to_le_bytes())
            .collect(),
        PixelFormat::R8Unorm => vec![unorm(v[0], 8) as u8],
        PixelFormat::RG16Float => v[..2]
            .iter()
            .flat_map(|&x| half_bits(x).to_le_bytes())
            .collect(),
        PixelFormat::RGBA32Float => f32_bytes(&v),
        f => panic!("no reference for {f:?}"),
    }
}

#[test]
fn packed_and_swizzled_formats_store_as_metal_defines() {
    let Some(dev) = device() else { return };
    let value = [0.25, -0.5, 2.0, 0.7];
    let formats = [
        PixelFormat::RGB10A2Unorm,
        PixelFormat::RG11B10Float,
        PixelFormat::BGRA8Unorm,
        PixelFormat::RGBA8UnormSrgb,
        PixelFormat::BGRA8UnormSrgb,
        PixelFormat::RGBA16Unorm,
        PixelFormat::RG16Snorm,
        PixelFormat::R8Unorm,
        PixelFormat::RG16Float,
        PixelFormat::RGBA32Float,
    ];
    assert_eq!(
        encoded(PixelFormat::RG11B10Float, value),
        (832u32 | 512 << 22).to_le_bytes()
    );
    for target in STORAGE {
        let bytes = build("store_one", STORE_ONE, target);
        let p = pipeline(&dev, Executable::load(&bytes).unwrap());
        for format in formats {
            let t = store_one(&dev, &p, format, [1, 2], value, |_| {})
                .unwrap_or_else(|e| panic!("{target:?} {format:?}: {e}"));
            let all = t.level_bytes(0, 0).unwrap();
            let bpt = format.bytes_per_texel() as usize;
            let at = (2 * 4 + 1) * bpt;
            assert_eq!(
                &all[at..at + bpt],
                encoded(format, value),
                "{target:?} {format:?}"
            );
            // Negative control: nothing else was written.
            assert!(all[..at].iter().chain(&all[at + bpt..]).all(|&b| b == 0));
        }
    }
}

#[test]
fn an_out_of_bounds_texture_write_fails_the_dispatch_naming_the_texture() {
    let Some(dev) = device() else { return };
    for target in STORAGE {
        let bytes = build("store_one", STORE_ONE, target);
        let p = pipeline(&dev, Executable::load(&bytes).unwrap());
        // In bounds: the last texel.
        store_one(&dev, &p, PixelFormat::RGBA32Float, [3, 3], [1.0; 4], |_| {})
            .unwrap_or_else(|e| panic!("{target:?}: {e}"));
        for at in [[4, 0], [0, 4], [-1, 0]] {
            let e =
                store_one(&dev, &p, PixelFormat::RGBA32Float, at, [1.0; 4], |_| {}).unwrap_err();
            let CpuError::Kernel { message, .. } = &e else {
                panic!("{target:?} {at:?}: {e}")
            };
            assert!(
                message.contains("out-of-bounds texture write")
                    && message.contains("RGBA32Float 4x4x1"),
                "{target:?} {at:?}: {e}"
            );
        }
    }
}

#[test]
fn texture_binding_errors_are_reported() {
    let Some(dev) = device() else { return };
    let bytes = build("store_one", STORE_ONE, Target::ArgumentBuffers);
    let p = pipeline(&dev, Executable::load(&bytes).unwrap());
    // An integer texture bound to a float image.
    let e = store_one(&dev, &p, PixelFormat::R32Uint, [0, 0], [1.0; 4], |_| {}).unwrap_err();
    assert!(
        matches!(&e, CpuError::Kernel { message, .. } if message.contains("a float texture type over an integer pixel format") && message.contains("R32Uint")),
        "{e}"
    );
    // Not made resident.
    let e = store_one(
        &dev,
        &p,
        PixelFormat::RGBA32Float,
        [0, 0],
        [1.0; 4],
        |plan| {
            plan.commands
                .retain(|c| !matches!(c, Command::UseResource { .. }))
        },
    )
    .unwrap_err();
    assert!(matches!(e, CpuError::NotResident { .. }), "{e}");
    // A resource id that is no texture's.
    let e = store_one(
        &dev,
        &p,
        PixelFormat::RGBA32Float,
        [0, 0],
        [1.0; 4],
        |plan| {
            let ab = &mut plan.argument_buffers[0];
            let at = ab.members[0].byte_offset as usize;
            ab.bytes[at..at + 8].copy_from_slice(&0x1234u64.to_le_bytes());
        },
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            CpuError::StrayResourceId {
                id: 0x1234,
                what: "texture",
                ..
            }
        ),
        "{e}"
    );
    // Discrete: a texture slot never set.
    let bytes = build("store_one", STORE_ONE, Target::Discrete);
    let p = pipeline(&dev, Executable::load(&bytes).unwrap());
    let e = store_one(
        &dev,
        &p,
        PixelFormat::RGBA32Float,
        [0, 0],
        [1.0; 4],
        |plan| {
            plan.commands
                .retain(|c| !matches!(c, Command::SetTexture { .. }))
        },
    )
    .unwrap_err();
    assert!(
        matches!(&e, CpuError::UnboundResourceSlot { attribute, .. } if attribute == "texture(0)"),
        "{e}"
    );
}

const CUBE: &str = r#"#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform samplerCube cube;
layout(set = 0, binding = 1, rgba8) uniform readonly imageCube faces;
layout(set = 0, binding = 2) readonly buffer In { vec4 dirs[]; };
layout(set = 0, binding = 3) buffer Out { vec4 o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[4 * i] = textureLod(cube, dirs[i].xyz, 0.0);
    o[4 * i + 1] = imageLoad(faces, ivec3(i % 2, i / 2 % 2, i % 6));
    o[4 * i + 2] = textureLod(cube, dirs[i].xyz * 2.0, 1.0);
    o[4 * i + 3] = vec4(textureSize(cube, 0), imageSize(faces));
}
"#;

/// Texel (x, y) of `face` at level `lod` of the 2x2 cube (RGBA8Unorm).
fn cube_texel(face: u32, lod: u32, x: u32, y: u32) -> [u8; 4] {
    [
        (face * 40 + x * 10 + y * 5 + lod * 3) as u8,
        (face * 7) as u8,
        (x * 100 + y * 50) as u8,
        255,
    ]
}

/// The face and (s, t) of a direction: the cube map table of the Vulkan
/// specification (which Metal follows).
fn cube_ref(d: [f32; 3]) -> (u32, f32, f32) {
    let [x, y, z] = d;
    let (face, sc, tc, ma) = if z.abs() >= x.abs() && z.abs() >= y.abs() {
        if z >= 0.0 {
            (4, x, -y, z.abs())
        } else {
            (5, -x, -y, z.abs())
        }
    } else if y.abs() >= x.abs() {
        if y >= 0.0 {
            (2, x, z, y.abs())
        } else {
            (3, x, -z, y.abs())
        }
    } else if x >= 0.0 {
        (0, -z, -y, x.abs())
    } else {
        (1, z, -y, x.abs())
    };
    (face, (sc / ma + 1.0) / 2.0, (tc / ma + 1.0) / 2.0)
}

fn run_cube(
    dev: &Device,
    p: &Pipeline<'_>,
    d: &SamplerDescriptor,
    dirs: &[[f32; 3]; 8],
) -> Result<Vec<f32>, CpuError> {
    let desc = TextureDescriptor {
        texture_type: TextureType::Cube,
        mipmap_level_count: 2,
        ..TextureDescriptor::d2(PixelFormat::RGBA8Unorm, 2, 2)
    };
    let cube = dev.texture(&desc)?;
    let faces = dev.texture(&TextureDescriptor {
        mipmap_level_count: 1,
        ..desc
    })?;
    for face in 0..6 {
        for lod in 0..2 {
            let n = 2 >> lod;
            let v: Vec<u8> = (0..n * n)
                .flat_map(|i| cube_texel(face, lod, i % n, i / n))
                .collect();
            cube.write_level(lod, face, &v)?;
            if lod == 0 {
                let v: Vec<u8> = v.iter().map(|b| b.wrapping_add(1)).collect();
                faces.write_level(0, face, &v)?;
            }
        }
    }
    let smp = dev.sampler(d)?;
    let v: Vec<f32> = dirs.iter().flat_map(|d| [d[0], d[1], d[2], 0.0]).collect();
    let input = dev.buffer_with_data(&f32_bytes(&v), MemoryType::HostVisible)?;
    let out = dev.buffer(8 * 4 * 16, MemoryType::HostVisible)?;
    let mut b = ResourceBindings::new();
    b.combined(0, 0, &cube, &smp)
        .texture(0, 1, &faces)
        .buffer(0, 2, &input)
        .buffer(0, 3, &out);
    run(dev, p, &b, &[], Grid::Threads([8, 1, 1]), |_| {})?;
    Ok(f32s(&out.to_vec()?))
}

fn unorm8(t: [u8; 4]) -> [f32; 4] {
    t.map(|c| f32::from(c) / 255.0)
}

fn check_cube(o: &[f32], dirs: &[[f32; 3]; 8], linear: bool) -> Result<(), String> {
    for (i, d) in dirs.iter().enumerate() {
        let i32_ = i as u32;
        let (face, s, t) = cube_ref(*d);
        let want = if linear {
            // Face centres: the mean of the face's four texels.
            let mut m = [0.0f32; 4];
            for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                for (c, v) in unorm8(cube_texel(face, 0, x, y)).iter().enumerate() {
                    m[c] += v / 4.0;
                }
            }
            m
        } else {
            let (x, y) = (((s * 2.0) as u32).min(1), ((t * 2.0) as u32).min(1));
            unorm8(cube_texel(face, 0, x, y))
        };
        let got = &o[16 * i..16 * i + 4];
        if !close(got, &want.map(f64::from)) {
            return Err(format!(
                "sample {d:?} (face {face}, {s}, {t}): {got:?} != {want:?}"
            ));
        }
        let (x, y, f) = (i32_ % 2, i32_ / 2 % 2, i32_ % 6);
        let want = unorm8(cube_texel(f, 0, x, y).map(|b| b.wrapping_add(1)));
        if o[16 * i + 4..16 * i + 8] != want {
            return Err(format!(
                "imageLoad face {f} ({x}, {y}): {:?}",
                &o[16 * i + 4..16 * i + 8]
            ));
        }
        let want = unorm8(cube_texel(face, 1, 0, 0));
        if !close(&o[16 * i + 8..16 * i + 12], &want.map(f64::from)) {
            return Err(format!(
                "level 1 of face {face}: {:?}",
                &o[16 * i + 8..16 * i + 12]
            ));
        }
        if o[16 * i + 12..16 * i + 16] != [2.0; 4] {
            return Err(format!("sizes {:?}", &o[16 * i + 12..16 * i + 16]));
        }
    }
    Ok(())
}

#[test]
fn cube_textures_sample_by_direction_and_read_by_face() {
    let Some(dev) = device() else { return };
    let dirs = [
        [1.0, 0.2, -0.3],
        [-1.0, -0.4, 0.1],
        [0.3, 1.0, 0.45],
        [-0.2, -1.0, -0.6],
        [0.1, 0.3, 1.0],
        [-0.35, 0.2, -1.0],
        [0.9, -0.1, 0.2],
        [0.05, -0.7, 0.1],
    ];
    let centres = [
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
        [0.0, 0.0, 3.0],
        [-2.0, 0.0, 0.0],
    ];
    let nearest = SamplerDescriptor {
        mip_filter: MipFilter::Nearest,
        ..Default::default()
    };
    let linear = SamplerDescriptor {
        min_filter: MinMagFilter::Linear,
        mag_filter: MinMagFilter::Linear,
        mip_filter: MipFilter::Nearest,
        ..Default::default()
    };
    for target in STORAGE {
        let bytes = build("cube", CUBE, target);
        let p = pipeline(&dev, Executable::load(&bytes).unwrap());
        let o = run_cube(&dev, &p, &nearest, &dirs).unwrap_or_else(|e| panic!("{target:?}: {e}"));
        check_cube(&o, &dirs, false).unwrap_or_else(|e| panic!("{target:?}: {e}"));
        // Negative control: the directions' faces mirrored.
        let flipped = dirs.map(|[x, y, z]| [-x, -y, -z]);
        assert!(check_cube(&o, &flipped, false).is_err(), "{target:?}");
        let o = run_cube(&dev, &p, &linear, &centres).unwrap_or_else(|e| panic!("{target:?}: {e}"));
        check_cube(&o, &centres, true).unwrap_or_else(|e| panic!("{target:?}: {e}"));
        assert!(check_cube(&o, &centres, false).is_err(), "{target:?}");
        // Linear filtering across a face's edge (seamless in Metal) is
        // refused rather than approximated.
        let e = run_cube(&dev, &p, &linear, &dirs).unwrap_err();
        assert!(
            matches!(&e, CpuError::Kernel { message, .. } if message.contains("edge of a cube face")),
            "{target:?}: {e}"
        );
    }
}

/// `fixtures/kernels/descriptor_arrays.spv` compiled for `target`.
fn build_fixture(name: &str, target: Target) -> Vec<u8> {
    let path = crate::kernel(&format!("{name}.spv"));
    let layout = match target {
        Target::Discrete => LayoutOptions {
            model: BindingModel::Discrete,
            ..Default::default()
        },
        _ => LayoutOptions::default(),
    };
    let options = halc::Options {
        layout,
        ..Default::default()
    };
    halc::compile(&[crate::input(&path)], &options)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .to_flatbuffer()
}

/// Texel x of texture `k` of the descriptor array (R32Float, 64x1).
fn array_texel(k: usize, x: usize) -> f32 {
    (k * 1000 + x) as f32
}

#[test]
fn an_array_of_combined_image_samplers_is_indexed_dynamically() {
    let Some(dev) = device() else { return };
    let n = 64usize;
    let input = |k: usize| -> Vec<f32> { (0..n).map(|i| (k * 100 + i) as f32 * 0.5).collect() };
    for target in [Target::ArgumentBuffers, Target::Discrete] {
        let bytes = build_fixture("descriptor_arrays", target);
        let p = pipeline(&dev, Executable::load(&bytes).unwrap());
        let bufs: Vec<_> = (0..4)
            .map(|k| {
                dev.buffer_with_data(&f32_bytes(&input(k)), MemoryType::HostVisible)
                    .unwrap()
            })
            .collect();
        let textures: Vec<Texture> = (0..3)
            .map(|k| {
                texture(
                    &dev,
                    TextureDescriptor::d2(PixelFormat::R32Float, n as u32, 1),
                    &f32_bytes(&(0..n).map(|x| array_texel(k, x)).collect::<Vec<_>>()),
                )
            })
            .collect();
        let smp = dev.sampler(&SamplerDescriptor::default()).unwrap();
        let (which, tex) = (2usize, 1usize);
        let sel = dev
            .buffer_with_data(
                &[(which as i32).to_le_bytes(), (tex as i32).to_le_bytes()].concat(),
                MemoryType::HostVisible,
            )
            .unwrap();
        let mut b = ResourceBindings::new();
        b.bind_array(
            0,
            0,
            bufs.iter().map(|buffer| Bound::Buffer {
                buffer,
                offset: 0,
                length: buffer.len(),
            }),
        )
        .bind_array(
            0,
            1,
            textures
                .iter()
                .map(|t| Bound::CombinedImageSampler(t, &smp)),
        )
        .buffer(0, 2, &sel);
        run(&dev, &p, &b, &[], Grid::Threads([n as u32, 1, 1]), |_| {})
            .unwrap_or_else(|e| panic!("{target:?}: {e}"));
        let got = f32s(&bufs[3].to_vec().unwrap());
        let expected = |tex: usize| -> Vec<f32> {
            (0..n)
                .map(|i| {
                    input(0)[i]
                        + input(1)[i]
                        + input(which)[i]
                        + array_texel(tex, i)
                        + array_texel(0, 0)
                })
                .collect()
        };
        assert_eq!(got, expected(tex), "{target:?}");
        // Negative control: what the other elements would have given.
        assert_ne!(got, expected(0), "{target:?}");
        assert_ne!(got, expected(2), "{target:?}");
    }
}

/// A recorded dispatch keeps its textures and replays against their current
/// texels: the command buffer is recorded once, the bindings dropped, and
/// each submission stores the value the push constants carry (recorded) at
/// a texel of the texture as it is then.
#[test]
fn a_recorded_dispatch_keeps_its_texture_and_replays() {
    let Some(dev) = device() else { return };
    for target in STORAGE {
        let bytes = build("store_one", STORE_ONE, target);
        let p = pipeline(&dev, Executable::load(&bytes).unwrap());
        let t = dev
            .texture(&TextureDescriptor::d2(PixelFormat::R32Float, 4, 4))
            .unwrap();
        let mut cb = dev.command_buffer().unwrap();
        {
            let t2 = t.clone();
            let mut b = ResourceBindings::new();
            b.texture(0, 0, &t2);
            let mut pass = cb.compute().unwrap();
            pass.dispatch(
                &p,
                &b,
                &store_push([2, 3], [7.5, 0.0, 0.0, 0.0]),
                Grid::Threads([1, 1, 1]),
            )
            .unwrap();
            pass.end();
        }
        let at = (3 * 4 + 2) * 4;
        for round in 0..2 {
            t.write_level(0, 0, &[0u8; 64]).unwrap();
            dev.submit(&cb)
                .wait()
                .unwrap_or_else(|e| panic!("{target:?}: {e}"));
            let all = t.level_bytes(0, 0).unwrap();
            assert_eq!(
                all[at..at + 4],
                7.5f32.to_le_bytes(),
                "{target:?} round {round}"
            );
            // Negative control: every other texel stayed as the host left it.
            assert!(all[..at].iter().chain(&all[at + 4..]).all(|&b| b == 0));
        }
    }
}
