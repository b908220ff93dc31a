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
    AddressMode, BorderColor, CpuError, Device, DeviceOptions, MinMagFilter, MipFilter, Pipeline,
    PixelFormat, ResourceBindings, SamplerDescriptor, Texture, TextureDescriptor, TextureType,
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
/// halc itself refuses iOS tier 1 for kernels with writable textures
/// ("internal error: generated MSL does not match the layout: MSL binds two
/// parameters at [[texture(0)]]"), so those run in the other two.
const WRITABLE: [Target; 2] = [Target::ArgumentBuffers, Target::Discrete];

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
    for target in WRITABLE {
        let r = run_storage(&dev, target, |_| {});
        check_storage(&r).unwrap_or_else(|e| panic!("{target:?}: {e}"));
        // Negative control: the source and the half target in each other's
        // slot: the kernel reads the empty texture.
        let wrong = run_storage(&dev, target, |plan| swap_slots(plan, (0, 0), (0, 3)));
        assert!(check_storage(&wrong).is_err(), "{target:?}");
    }
}
