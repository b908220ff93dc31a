//! One host source for both backends: every method `cpu` and `metal` share,
//! called from code that names the backend only as `gpu`, with the types it
//! returns written out. It runs on the CPU backend (Unix, feature `cpu`; CI on
//! Linux) and on Metal (Apple; `.github/workflows/macos.yml`), and CI
//! type-checks the Metal side on Linux (`cargo clippy -p runtime-loader
//! --all-targets --target aarch64-apple-darwin`): a signature that drifts in
//! one backend breaks one of the two builds.
//!
//! Elsewhere (no `cpu` feature, not Unix) this test binary is empty.

#![cfg(any(target_vendor = "apple", all(feature = "cpu", unix)))]

#[path = "../common/mod.rs"]
mod common;

use std::time::Duration;

use runtime_loader::memory::{MemoryType, StorageMode};
use runtime_loader::plan::{DispatchPlan, Grid};
use runtime_loader::transfer::Route;
use runtime_loader::{Executable, Kernel};

#[cfg(not(target_vendor = "apple"))]
use runtime_loader::cpu as gpu;
#[cfg(target_vendor = "apple")]
use runtime_loader::metal as gpu;

/// The CPU device (skipped without clang++ unless `HALC_REQUIRE_CLANG` is
/// set), or the system's Metal device.
#[cfg(not(target_vendor = "apple"))]
fn device() -> Option<gpu::Device> {
    match gpu::Device::new() {
        Ok(d) => Some(d),
        Err(e @ gpu::CpuError::ClangNotFound { .. })
            if std::env::var_os("HALC_REQUIRE_CLANG").is_none() =>
        {
            eprintln!("SKIPPED: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[cfg(target_vendor = "apple")]
fn device() -> Option<gpu::Device> {
    Some(gpu::Device::new().unwrap())
}

fn floats(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn read_floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// saxpy twice (once by `Device::dispatch`, once recorded behind a
/// semaphore wait), a copy out of a private buffer, a fill: the shared
/// surface end to end.
#[test]
fn the_same_host_code_runs_on_either_backend() {
    let Some(device) = device() else {
        return;
    };
    let name: String = device.name();
    let _: bool = device.has_unified_memory();
    println!("device: {name}");

    let bytes = common::saxpy_exe().build();
    let exe = Executable::load(&bytes).unwrap();
    let program: gpu::Program<'_> = device.load(exe).unwrap();
    let _: Executable<'_> = program.executable();
    let _: &gpu::Device = program.device();
    let pipeline: gpu::Pipeline<'_> = program.pipeline("main", &[]).unwrap();
    let _: &Kernel<'_> = pipeline.kernel();
    let _: &gpu::Device = pipeline.device();
    let width: u32 = pipeline.thread_execution_width();
    let max: u32 = pipeline.max_total_threads_per_threadgroup();
    assert!(width >= 4 && max >= 64, "width {width}, max {max}");
    assert_eq!(
        pipeline.specialization().threads_per_threadgroup(),
        [64, 1, 1]
    );

    let n: u32 = 1000;
    let x = device
        .buffer_with_data(&floats((0..n).map(|i| i as f32)), MemoryType::HostVisible)
        .unwrap();
    // y lives on the device only: the host fills it at creation and reads
    // it through a copy.
    let y: gpu::Buffer = device
        .buffer_with_data(
            &floats((0..n).map(|i| (2 * i) as f32)),
            MemoryType::DeviceLocal,
        )
        .unwrap();
    assert_eq!(y.storage_mode(), StorageMode::Private);
    assert!(!y.is_host_visible());
    assert!(y.to_vec().is_err(), "host access to a private buffer");
    let len: u64 = y.len();
    assert_eq!(len, 4 * u64::from(n));
    let params = device.buffer(8, MemoryType::HostVisible).unwrap();
    let mut a_n = 3.0f32.to_le_bytes().to_vec();
    a_n.extend(n.to_le_bytes());
    params.write(0, &a_n).unwrap();
    let mut back = [0u8; 8];
    params.read(0, &mut back).unwrap();
    assert_eq!(back.to_vec(), a_n);
    assert!(params.same(&params.clone()) && !params.same(&x));
    assert!(!params.is_empty());
    // Not called: Metal's `gpuAddress` needs macOS 13 / iOS 16.
    let _: fn(&gpu::Buffer) -> u64 = gpu::Buffer::gpu_address;

    let mut bindings = gpu::ResourceBindings::new();
    bindings
        .buffer(0, 0, &x)
        .bind(
            0,
            1,
            gpu::Bound::Buffer {
                buffer: &y,
                offset: 0,
                length: len,
            },
        )
        .buffer_range(0, 2, &params, 0, 8);

    // Once, synchronously: y = 3x + y.
    let plan: DispatchPlan = device
        .dispatch(&pipeline, &bindings, &[], Grid::Threads([n, 1, 1]))
        .unwrap();
    assert_eq!(plan.threadgroups, [16, 1, 1]);

    // Again, recorded behind a semaphore wait: y = 3x + y, then a copy out.
    let readback = device
        .buffer(len, MemoryType::DeviceLocalHostVisible)
        .unwrap();
    let scratch = device.buffer(16, MemoryType::HostVisible).unwrap();
    let semaphore: gpu::Semaphore = device.semaphore(0).unwrap();
    let mut cb: gpu::CommandBuffer = device.command_buffer().unwrap();
    cb.wait(&semaphore, 1);
    let mut pass: gpu::ComputePass<'_> = cb.compute().unwrap();
    let _: DispatchPlan = pass
        .dispatch(&pipeline, &bindings, &[], Grid::Threadgroups([16, 1, 1]))
        .unwrap();
    pass.end();
    let copied: Route = cb.copy(&y, 0, &readback, 0, len).unwrap();
    assert_ne!(copied, Route::Nothing);
    let _: Route = cb.fill(&scratch, 4, 8, &[0xAB]).unwrap();
    cb.synchronize(&readback).unwrap();
    cb.synchronize(&scratch).unwrap();
    cb.signal(&semaphore, 2);
    let submission: gpu::Submission = cb.commit();

    assert!(
        submission.wait_timeout(Duration::from_millis(50)).is_none(),
        "the command buffer ran before its semaphore wait was satisfied"
    );
    assert!(!submission.is_done());
    submission.result().unwrap();
    semaphore.signal(1).unwrap();
    semaphore.wait(2, Duration::from_secs(60)).unwrap();
    submission.wait().unwrap();
    assert!(submission.is_done());
    assert!(matches!(
        submission.wait_timeout(Duration::ZERO),
        Some(Ok(()))
    ));
    let value: u64 = semaphore.value();
    assert_eq!(value, 2);
    assert!(semaphore.signal(1).is_err(), "timeline values only grow");

    let out = read_floats(&readback.to_vec().unwrap());
    for (i, got) in out.iter().enumerate() {
        let want = 2.0 * 3.0 * i as f32 + (2 * i) as f32;
        assert_eq!(*got, want, "y[{i}]");
    }
    let mut want_scratch = [0u8; 16];
    want_scratch[4..12].fill(0xAB);
    assert_eq!(scratch.to_vec().unwrap(), want_scratch);

    // Errors each backend reports the same way.
    assert!(device.buffer(0, MemoryType::HostVisible).is_err());
    assert!(y.write(0, &[0]).is_err());
    let missing = program.pipeline("nope", &[]).unwrap_err().to_string();
    assert!(
        missing.contains("`nope`") && missing.contains("main"),
        "{missing}"
    );
}

/// What host code may do with the objects on either backend: clone the
/// device, programs, buffers, semaphores, submissions and bindings, and share
/// the device, programs and semaphores between threads. (On Metal, buffers,
/// pipelines, submissions and bindings are not `Send`: objc2 does not mark
/// `MTLBuffer`, `MTLCommandBuffer` or `MTLArgumentEncoder` thread-safe.)
#[test]
fn the_objects_are_clonable_and_the_device_shareable_on_either_backend() {
    fn clone<T: Clone>() {}
    clone::<gpu::Device>();
    clone::<gpu::Program<'static>>();
    clone::<gpu::Buffer>();
    clone::<gpu::Semaphore>();
    clone::<gpu::Submission>();
    clone::<gpu::ResourceBindings<'static>>();
    fn send_sync<T: Send + Sync>() {}
    send_sync::<gpu::Device>();
    send_sync::<gpu::Program<'static>>();
    send_sync::<gpu::Semaphore>();
}

/// `images`: a sampled image read through a sampler (a view of level 1 of
/// a mip-mapped texture), a storage image written, and an r32 image on a
/// buffer written, in the discrete model.
const IMAGES_MSL: &str = r#"
#include <metal_stdlib>
using namespace metal;

kernel void images0(texture2d<float> src [[texture(0)]],
                    sampler smp [[sampler(0)]],
                    texture2d<float, access::write> dst [[texture(1)]],
                    texture2d<float, access::write> ids [[texture(2)]],
                    uint3 gid [[thread_position_in_grid]])
{
    if (gid.x >= dst.get_width() || gid.y >= dst.get_height())
        return;
    float2 uv = (float2(gid.xy) + 0.5) / float2(dst.get_width(), dst.get_height());
    dst.write(src.sample(smp, uv) * 2.0, gid.xy);
    ids.write(float4(float(gid.x + 10 * gid.y)), gid.xy);
}
"#;

fn images_exe() -> common::Exe {
    use common::{B, K};
    use runtime_loader::schema::{Access, BindingKind, BindingModel};
    let mut k = K::new("images", BindingModel::Discrete);
    k.tg = vec![(4, 0, false), (4, 0, false), (1, 0, false)];
    k.max_threads = 16;
    k.bindings = vec![
        B::new(0, 0, BindingKind::SampledImage).texture(0),
        B::new(0, 1, BindingKind::Sampler).sampler(0),
        B::new(0, 2, BindingKind::StorageImage)
            .texture(1)
            .access(Access::WriteOnly),
        B::new(0, 3, BindingKind::StorageImage)
            .texture(2)
            .access(Access::WriteOnly),
    ];
    let mut exe = common::Exe::new(vec![k]);
    exe.libraries = vec![common::Lib::msl(IMAGES_MSL)];
    exe
}

/// Textures, a level view, a texture on a buffer and a sampler, made from
/// the portable descriptors and bound by the same calls on either backend;
/// what the kernel wrote read back through the texture and through the
/// buffer under it.
#[test]
fn the_same_image_code_runs_on_either_backend() {
    use runtime_loader::image::{
        MinMagFilter, PixelFormat, SamplerDescriptor, TextureDescriptor, TextureRegion,
    };
    let Some(device) = device() else {
        return;
    };
    let bytes = images_exe().build();
    let exe = Executable::load(&bytes).unwrap();
    let program = device.load(exe).unwrap();
    let pipeline = program.pipeline("images", &[]).unwrap();

    // An 8x8 RGBA8 texture of two levels; level 1 (4x4) holds distinct
    // texels, level 0 a constant the kernel must not see.
    let full = TextureDescriptor {
        mipmap_level_count: 2,
        ..TextureDescriptor::d2(PixelFormat::RGBA8Unorm, 8, 8)
    };
    let src: gpu::Texture = device.texture(&full).unwrap();
    src.write_level(0, 0, &[255; 8 * 8 * 4]).unwrap();
    let level1: Vec<u8> = (0..4 * 4 * 4).map(|i| (i * 3) as u8).collect();
    src.write_level(1, 0, &level1).unwrap();
    assert_eq!(src.level_bytes(1, 0).unwrap(), level1);
    let view: gpu::Texture = src.view_levels(1, 1).unwrap();
    assert_eq!(view.descriptor().width, 4);
    assert!(view.viewed().is_some_and(|t| t.same(&src)));
    assert!(src.view_levels(1, 2).is_err(), "levels past the texture");

    let sampler: gpu::Sampler = device
        .sampler(&SamplerDescriptor {
            min_filter: MinMagFilter::Linear,
            mag_filter: MinMagFilter::Linear,
            ..SamplerDescriptor::default()
        })
        .unwrap();
    let dst = device
        .texture(&TextureDescriptor::d2(PixelFormat::RGBA32Float, 4, 4))
        .unwrap();
    // An r32 float image on a buffer, rows 256 bytes apart (what every
    // device's linear-texture alignment divides).
    let under = device.buffer(256 * 4, MemoryType::HostVisible).unwrap();
    let ids = device
        .texture_on_buffer(
            &TextureDescriptor::d2(PixelFormat::R32Float, 4, 4),
            &under,
            0,
            256,
        )
        .unwrap();
    assert!(ids
        .storage_buffer()
        .is_some_and(|(b, o, p)| b.same(&under) && o == 0 && p == 256));

    let mut bindings = gpu::ResourceBindings::new();
    bindings
        .texture(0, 0, &view)
        .sampler(0, 1, &sampler)
        .texture(0, 2, &dst)
        .texture(0, 3, &ids);
    device
        .dispatch(&pipeline, &bindings, &[], Grid::Threads([4, 4, 1]))
        .unwrap();
    let mut cb = device.command_buffer().unwrap();
    cb.synchronize_texture(&dst).unwrap();
    cb.synchronize(&under).unwrap();
    cb.commit().wait().unwrap();

    // Texel centres of a 4x4 view: linear filtering gives the texel itself.
    let got = read_floats(&dst.level_bytes(0, 0).unwrap());
    let want: Vec<f32> = level1.iter().map(|&b| f32::from(b) / 255.0 * 2.0).collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() < 1e-5, "texel component {i}: {g}, want {w}");
    }
    let mut row = vec![0u8; 16];
    for y in 0..4u32 {
        under.read(256 * u64::from(y), &mut row).unwrap();
        let want: Vec<f32> = (0..4).map(|x| (x + 10 * y) as f32).collect();
        assert_eq!(
            read_floats(&row),
            want,
            "row {y} of the buffer under the image"
        );
    }
    // A region read back: the last row's middle two texels.
    let mut two = [0u8; 8];
    ids.get_bytes(
        &mut two,
        8,
        8,
        TextureRegion {
            origin: [1, 3, 0],
            size: [2, 1, 1],
        },
        0,
        0,
    )
    .unwrap();
    assert_eq!(read_floats(&two), [31.0, 32.0]);

    // What both backends refuse.
    let bad = device
        .texture(&TextureDescriptor {
            mipmap_level_count: 5,
            ..TextureDescriptor::d2(PixelFormat::R8Unorm, 8, 8)
        })
        .unwrap_err()
        .to_string();
    assert!(bad.contains("5 mip levels"), "{bad}");
    assert!(device
        .texture_on_buffer(
            &TextureDescriptor::d2(PixelFormat::R32Float, 4, 4),
            &under,
            0,
            8
        )
        .is_err());
    assert!(dst.write_level(0, 1, &[0; 256]).is_err(), "slice 1 of 1");

    // The rest of the shared surface.
    let _: &str = dst.label();
    assert!(dst.storage_buffer().is_none() && dst.viewed().is_none());
    assert!(sampler.same(&sampler.clone()));
    let _: &SamplerDescriptor = sampler.descriptor();
    // Not called: Metal's `gpuResourceID` needs macOS 13 / iOS 16.
    let _: fn(&gpu::Texture) -> u64 = gpu::Texture::gpu_resource_id;
    let _: fn(&gpu::Sampler) -> u64 = gpu::Sampler::gpu_resource_id;
    dst.replace_region(
        TextureRegion {
            origin: [3, 3, 0],
            size: [1, 1, 1],
        },
        0,
        0,
        &7.0f32.to_le_bytes().repeat(4),
        16,
        16,
    )
    .unwrap();
    assert_eq!(read_floats(&dst.level_bytes(0, 0).unwrap())[60..], [7.0; 4]);
    let counts = device
        .atomic_texture(&TextureDescriptor::d2(PixelFormat::R32Uint, 5, 3))
        .unwrap();
    let (_, _, pitch) = counts.storage_buffer().unwrap();
    assert_eq!(
        pitch, 256,
        "rows at runtime_loader::ATOMIC_TEXTURE_ROW_ALIGNMENT"
    );
    assert!(device
        .atomic_texture(&TextureDescriptor::d2(PixelFormat::R32Float, 5, 3))
        .is_err());
}
