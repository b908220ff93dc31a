//! Metal tests: run on a Mac (`.github/workflows/macos.yml`). On other
//! platforms this test binary is empty: these tests do not exist there.
//!
//! The kernels are hand-written MSL in the shape SPIRV-Cross emits, packed
//! with the test builder, so these tests need no compiler. With
//! `HALC_FIXTURES_DIR` set to a directory of `halc compile` outputs, every
//! kernel in it must also make a pipeline.

#![cfg(target_vendor = "apple")]

#[path = "../common/mod.rs"]
mod common;

use std::time::Duration;

use common::{Ab, Exe, Fc, Lib, B, K};
use runtime_loader::memory::{MemoryType, StorageMode};
use runtime_loader::metal::{ArgumentEncoding, Device, MetalError, ResourceBindings};
use runtime_loader::plan::{Grid, PlanError, SpecValue};
use runtime_loader::schema::{Access, BindingKind, BindingModel, ScalarType};
use runtime_loader::{Executable, OwnedExecutable};

const SCALE_MSL: &str = r#"
#include <metal_stdlib>
using namespace metal;

struct Push { float scale; uint n; };

constant uint wg_x_tmp [[function_constant(0)]];
constant uint wg_x = is_function_constant_defined(wg_x_tmp) ? wg_x_tmp : 64u;

kernel void scale0(device float* data [[buffer(0)]],
                   device uint* groups [[buffer(1)]],
                   constant Push& pc [[buffer(2)]],
                   uint3 gid [[thread_position_in_grid]],
                   uint3 tid [[thread_position_in_threadgroup]],
                   uint3 tgid [[threadgroup_position_in_grid]],
                   uint3 tpg [[threads_per_threadgroup]])
{
    if (tid.x == 0)
    {
        groups[tgid.x] = wg_x * 1000u + tpg.x;
    }
    if (gid.x < pc.n)
    {
        data[gid.x] = data[gid.x] * pc.scale;
    }
}
"#;

const LENGTH_MSL: &str = r#"
#include <metal_stdlib>
using namespace metal;

struct Data { uint header; float values[1]; };

struct spvDescriptorSetBuffer0
{
    device Data* data [[id(0)]];
    constant uint* spvBufferSizeConstants [[id(1)]];
};

kernel void len0(constant spvDescriptorSetBuffer0& spvDescriptorSet0 [[buffer(0)]],
                 constant uint* spvBufferSizeConstants [[buffer(1)]])
{
    uint size = spvDescriptorSet0.spvBufferSizeConstants[0];
    (*spvDescriptorSet0.data).header = (size - 4u) / 4u;
}
"#;

fn scale_exe() -> Exe {
    let mut k = K::new("scale", BindingModel::Discrete);
    k.tg = vec![(64, 0, true), (1, 0, false), (1, 0, false)];
    k.max_threads = 1024;
    k.fcs = vec![Fc {
        id: 0,
        ty: ScalarType::UInt32,
        default_bits: 64,
        aliases: Vec::new(),
    }];
    k.bindings = vec![
        B::new(0, 0, BindingKind::StorageBuffer)
            .buffer(0)
            .access(Access::ReadWrite),
        B::new(0, 1, BindingKind::StorageBuffer)
            .buffer(1)
            .access(Access::ReadWrite),
    ];
    k.push = Some((2, 8));
    let mut exe = Exe::new(vec![k]);
    exe.libraries = vec![Lib::msl(SCALE_MSL)];
    exe
}

fn length_exe() -> Exe {
    let mut k = K::new("len", BindingModel::ArgumentBuffers);
    k.tg = vec![(1, 0, false), (1, 0, false), (1, 0, false)];
    k.max_threads = 1;
    k.abs = vec![Ab {
        set: 0,
        buffer_index: 0,
        size: 16,
        sizes_id: Some(1),
        sizes_byte_offset: Some(8),
    }];
    k.bindings = vec![B::new(0, 0, BindingKind::StorageBuffer)
        .member(0, 0)
        .min_size(4)
        .sizes(0)
        .access(Access::ReadWrite)];
    k.sizes_buffer_index = Some(1);
    k.sizes_entries = 1;
    let mut exe = Exe::new(vec![k]);
    exe.libraries = vec![Lib::msl(LENGTH_MSL)];
    exe
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn read_floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Whether the device can take GPU addresses in argument buffers. When it
/// cannot, the caller skips (and says so) unless `HALC_REQUIRE_METAL3` is
/// set, which makes it a failure.
fn metal3(device: &Device, test: &str) -> bool {
    let ok = device.supports_metal3() && device.argument_buffers_tier2();
    if !ok {
        let msg = format!(
            "{test}: SKIPPED: `{}` is not a Metal 3 device with tier-2 argument buffers",
            device.name()
        );
        assert!(std::env::var_os("HALC_REQUIRE_METAL3").is_none(), "{msg}");
        eprintln!("{msg}");
    }
    ok
}

fn run_saxpy(encoding: ArgumentEncoding, y_memory: MemoryType) {
    let device = Device::new().unwrap();
    if encoding == ArgumentEncoding::GpuAddress && !metal3(&device, "saxpy with GPU addresses") {
        return;
    }
    let bytes = common::saxpy_exe().build();
    let exe = Executable::load(&bytes).unwrap();
    let program = device.load(exe).unwrap();
    let pipeline = program.pipeline_with("main", &[], encoding).unwrap();
    assert_eq!(pipeline.argument_encoding(), encoding);

    let n = 1000u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| (2 * i) as f32).collect();
    let mut params = 3.0f32.to_le_bytes().to_vec();
    params.extend(n.to_le_bytes());
    let xb = device
        .buffer_with_data(&floats(&x), MemoryType::HostVisible)
        .unwrap();
    let yb = device.buffer_with_data(&floats(&y), y_memory).unwrap();
    let pb = device
        .buffer_with_data(&params, MemoryType::HostVisible)
        .unwrap();
    let mut bindings = ResourceBindings::new();
    bindings
        .buffer(0, 0, &xb)
        .buffer(0, 1, &yb)
        .buffer(0, 2, &pb);

    let mut cb = device.command_buffer().unwrap();
    let mut pass = cb.compute().unwrap();
    let plan = pass
        .dispatch(&pipeline, &bindings, &[], Grid::Threads([n, 1, 1]))
        .unwrap();
    assert_eq!(plan.threadgroups, [16, 1, 1]);
    pass.end();
    let readback = device.buffer(yb.len(), MemoryType::HostVisible).unwrap();
    cb.copy(&yb, 0, &readback, 0, yb.len()).unwrap();
    cb.commit().wait().unwrap();

    let out = read_floats(&readback.to_vec().unwrap());
    for i in 0..n as usize {
        assert_eq!(out[i], 3.0 * x[i] + y[i], "y[{i}]");
    }
}

#[test]
fn saxpy_with_gpu_addresses() {
    run_saxpy(ArgumentEncoding::GpuAddress, MemoryType::HostVisible);
}

#[test]
fn saxpy_with_argument_encoder() {
    run_saxpy(ArgumentEncoding::ArgumentEncoder, MemoryType::HostVisible);
}

#[test]
fn saxpy_into_a_private_buffer() {
    let device = Device::new().unwrap();
    assert_eq!(
        device
            .buffer(16, MemoryType::DeviceLocal)
            .unwrap()
            .storage_mode(),
        StorageMode::Private
    );
    run_saxpy(ArgumentEncoding::Auto, MemoryType::DeviceLocal);
}

#[test]
fn discrete_bindings_push_constants_and_specialized_threadgroup() {
    let device = Device::new().unwrap();
    let bytes = scale_exe().build();
    let exe = Executable::load(&bytes).unwrap();
    let program = device.load(exe).unwrap();
    for wg in [64u32, 128, 256] {
        let pipeline = program.pipeline("scale", &[SpecValue::u32(0, wg)]).unwrap();
        assert_eq!(
            pipeline.specialization().threads_per_threadgroup(),
            [wg, 1, 1]
        );
        let n = 1000u32;
        let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let db = device
            .buffer_with_data(&floats(&data), MemoryType::HostVisible)
            .unwrap();
        let gb = device.buffer(4 * 64, MemoryType::HostVisible).unwrap();
        let mut push = 0.5f32.to_le_bytes().to_vec();
        push.extend(n.to_le_bytes());
        let mut bindings = ResourceBindings::new();
        bindings.buffer(0, 0, &db).buffer(0, 1, &gb);

        let mut cb = device.command_buffer().unwrap();
        let mut pass = cb.compute().unwrap();
        let plan = pass
            .dispatch(&pipeline, &bindings, &push, Grid::Threads([n, 1, 1]))
            .unwrap();
        pass.end();
        cb.commit().wait().unwrap();

        let groups = plan.threadgroups[0] as usize;
        assert_eq!(groups, n.div_ceil(wg) as usize);
        let out = read_floats(&db.to_vec().unwrap());
        for (i, v) in out.iter().enumerate() {
            assert_eq!(*v, i as f32 * 0.5, "data[{i}] with threadgroup {wg}");
        }
        let g = gb.to_vec().unwrap();
        for t in 0..groups {
            let v = u32::from_le_bytes(g[4 * t..4 * t + 4].try_into().unwrap());
            assert_eq!(
                v,
                wg * 1000 + wg,
                "group {t}: function constant and threadgroup size"
            );
        }
    }
}

#[test]
fn argument_buffer_sizes_table_both_encodings() {
    let device = Device::new().unwrap();
    let bytes = length_exe().build();
    let exe = Executable::load(&bytes).unwrap();
    let program = device.load(exe).unwrap();
    let mut encodings = vec![ArgumentEncoding::ArgumentEncoder];
    if metal3(&device, "sizes table with GPU addresses") {
        encodings.push(ArgumentEncoding::GpuAddress);
    }
    for encoding in encodings {
        let pipeline = program.pipeline_with("len", &[], encoding).unwrap();
        let buffer = device.buffer(64, MemoryType::HostVisible).unwrap();
        let mut bindings = ResourceBindings::new();
        // 4-byte header + 10 floats visible to the kernel.
        bindings.buffer_range(0, 0, &buffer, 0, 44);
        let mut cb = device.command_buffer().unwrap();
        let mut pass = cb.compute().unwrap();
        pass.dispatch(&pipeline, &bindings, &[], Grid::Threadgroups([1, 1, 1]))
            .unwrap();
        pass.end();
        cb.commit().wait().unwrap();
        let mut header = [0u8; 4];
        buffer.read(0, &mut header).unwrap();
        assert_eq!(u32::from_le_bytes(header), 10, "{encoding:?}");
    }
}

#[test]
fn semaphore_waits_before_signals() {
    let device = Device::new().unwrap();
    let sem = device.semaphore(0).unwrap();
    assert_eq!(sem.value(), 0);

    // Host wait, signalled later from another thread.
    let signaller = sem.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        signaller.signal(5).unwrap();
    });
    sem.wait(5, Duration::from_secs(10)).unwrap();
    t.join().unwrap();
    assert_eq!(sem.value(), 5);

    // A timeout is an error, not a hang.
    match sem.wait(100, Duration::from_millis(50)) {
        Err(MetalError::SemaphoreTimeout {
            value: 100,
            current: 5,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }

    // Device wait before the host signal; device signal after.
    let mut cb = device.command_buffer().unwrap();
    cb.wait(&sem, 6);
    cb.signal(&sem, 7);
    let submission = cb.commit();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(sem.value(), 5, "the GPU must still be waiting");
    assert!(!submission.is_done());
    assert!(submission.wait_timeout(Duration::from_millis(20)).is_none());
    sem.signal(6).unwrap();
    sem.wait(7, Duration::from_secs(10)).unwrap();
    assert!(matches!(
        submission.wait_timeout(Duration::from_secs(10)),
        Some(Ok(()))
    ));
    submission.wait().unwrap();

    // Timeline values only grow (Metal itself would accept this).
    assert!(matches!(
        sem.signal(3),
        Err(MetalError::SemaphoreBackwards {
            current: 7,
            value: 3
        })
    ));
    assert_eq!(sem.value(), 7);
}

#[test]
fn errors_surface_before_and_from_metal() {
    let device = Device::new().unwrap();

    // Kernel missing from the executable.
    let bytes = common::saxpy_exe().build();
    let exe = Executable::load(&bytes).unwrap();
    let program = device.load(exe).unwrap();
    assert!(matches!(
        program.pipeline("nope", &[]),
        Err(MetalError::KernelNotFound { .. })
    ));

    // Plan errors stop the dispatch before encoding.
    let pipeline = program.pipeline("main", &[]).unwrap();
    let x = device.buffer(64, MemoryType::HostVisible).unwrap();
    let mut bindings = ResourceBindings::new();
    bindings.buffer(0, 0, &x).buffer(0, 1, &x);
    let mut cb = device.command_buffer().unwrap();
    let mut pass = cb.compute().unwrap();
    let err = pass
        .dispatch(&pipeline, &bindings, &[], Grid::Threads([1, 1, 1]))
        .unwrap_err();
    assert!(
        matches!(
            err,
            MetalError::Plan(PlanError::MissingBinding {
                set: 0,
                binding: 2,
                ..
            })
        ),
        "{err}"
    );
    bindings.buffer_range(0, 2, &x, 0, 128);
    let err = pass
        .dispatch(&pipeline, &bindings, &[], Grid::Threads([1, 1, 1]))
        .unwrap_err();
    assert!(matches!(err, MetalError::RangeOutOfBounds { .. }), "{err}");
    pass.end();
    cb.commit().wait().unwrap();

    // MSL that does not compile: Metal's message, verbatim.
    let mut exe = common::saxpy_exe();
    exe.libraries[0].msl_source = Some("kernel void main0( {".into());
    let bytes = exe.build();
    let err = device.load(Executable::load(&bytes).unwrap()).unwrap_err();
    assert!(
        matches!(err, MetalError::Library { library: 0, .. }),
        "{err}"
    );

    // The function named by the executable is missing.
    let mut exe = common::saxpy_exe();
    exe.kernels[0].msl_name = "other0".into();
    let bytes = exe.build();
    let program = device.load(Executable::load(&bytes).unwrap()).unwrap();
    assert!(matches!(
        program.pipeline("main", &[]),
        Err(MetalError::Function { .. })
    ));

    // A metallib Metal rejects falls back to the MSL source.
    let mut exe = common::saxpy_exe();
    exe.libraries[0].metallib = Some(b"not a metallib".to_vec());
    let bytes = exe.build();
    let program = device.load(Executable::load(&bytes).unwrap()).unwrap();
    assert!(matches!(
        program.library_origin(0),
        Some(runtime_loader::metal::LibraryOrigin::MslSource {
            metallib_error: Some(_)
        })
    ));
    program.pipeline("main", &[]).unwrap();
}

#[test]
fn host_access_is_bounds_checked() {
    let device = Device::new().unwrap();
    let b = device.buffer(16, MemoryType::HostVisible).unwrap();
    b.write(8, &[1; 8]).unwrap();
    assert!(matches!(
        b.write(9, &[1; 8]),
        Err(MetalError::HostAccessOutOfBounds { .. })
    ));
    assert!(matches!(
        b.read(u64::MAX, &mut [0; 2]),
        Err(MetalError::HostAccessOutOfBounds { .. })
    ));
    let p = device.buffer(16, MemoryType::DeviceLocal).unwrap();
    assert!(matches!(p.write(0, &[1]), Err(MetalError::NotHostVisible)));
    assert!(matches!(
        device.buffer(0, MemoryType::HostVisible),
        Err(MetalError::ZeroLength)
    ));
}

/// Every kernel of every `halc compile` output in `HALC_FIXTURES_DIR` makes
/// a pipeline (set by the macOS workflow).
#[test]
fn compiled_fixtures_make_pipelines() {
    let Some(dir) = std::env::var_os("HALC_FIXTURES_DIR") else {
        eprintln!("HALC_FIXTURES_DIR is not set: no compiled fixtures to check");
        return;
    };
    let device = Device::new().unwrap();
    let mut checked = 0;
    // The directory and its subdirectories (one per compile variant).
    let mut entries = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(&dir)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                entries.push(path);
            }
        }
    }
    entries.sort();
    for path in entries
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "halc"))
    {
        let owned =
            OwnedExecutable::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let exe = owned.executable();
        let program = device
            .load(exe)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for k in exe.entry_points() {
            program
                .pipeline(k.name(), &[])
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            checked += 1;
        }
    }
    assert!(
        checked > 0,
        "no .halc files in {}",
        std::path::Path::new(&dir).display()
    );
}

/// Fills and copies of every small (offset, length, pattern) through the
/// blit encoder or the polyfill kernels, against the reference.
#[test]
fn fills_and_copies_match_the_reference() {
    use runtime_loader::transfer::{self, Route};
    let device = Device::new().unwrap();
    const SLOT: u64 = 64;
    let cases = 3 * 8 * 21;
    let init: Vec<u8> = (0..cases * SLOT as usize)
        .map(|i| (i * 37 + 5) as u8)
        .collect();
    let big = device
        .buffer_with_data(&init, MemoryType::HostVisible)
        .unwrap();
    let mut want = init.clone();
    let mut cb = device.command_buffer().unwrap();
    let mut polyfills = 0;
    let mut k = 0;
    for plen in [1usize, 2, 4] {
        let pattern = &[0xA1u8, 0xB2, 0xC3, 0xD4][..plen];
        for offset in 0u64..8 {
            for length in 0u64..=20 {
                let at = k * SLOT + offset;
                k += 1;
                match cb.fill(&big, at, length, pattern) {
                    Ok(route) => {
                        polyfills += usize::from(route == Route::Polyfill);
                        transfer::fill_reference(&mut want, at, length, pattern);
                    }
                    Err(e) => assert!(
                        matches!(e, MetalError::Transfer(_))
                            && (offset % plen as u64 != 0 || length % plen as u64 != 0),
                        "{e}"
                    ),
                }
            }
        }
    }
    assert!(polyfills > 0);
    let src = device
        .buffer_with_data(&init, MemoryType::HostVisible)
        .unwrap();
    let dst = device
        .buffer(init.len() as u64, MemoryType::HostVisible)
        .unwrap();
    let mut want_copy = vec![0u8; init.len()];
    let mut k = 0;
    for src_offset in 0u64..8 {
        for length in 0u64..=20 {
            let (s, d) = (k * SLOT + src_offset, k * SLOT + (7 - src_offset));
            k += 1;
            cb.copy(&src, s, &dst, d, length).unwrap();
            let (s, d, l) = (s as usize, d as usize, length as usize);
            want_copy[d..d + l].copy_from_slice(&init[s..s + l]);
        }
    }
    cb.commit().wait().unwrap();
    assert_eq!(big.to_vec().unwrap(), want);
    assert_eq!(dst.to_vec().unwrap(), want_copy);
}

const ADDRESSES_MSL: &str = r#"
#include <metal_stdlib>
using namespace metal;

struct Push { device float* dst; device const float* src; uint n; };

kernel void twice0(constant Push& pc [[buffer(0)]], uint3 gid [[thread_position_in_grid]])
{
    if (gid.x < pc.n)
    {
        pc.dst[gid.x] = pc.src[gid.x] * 2.0;
    }
}
"#;

/// Buffer device addresses (`buffer_reference`): the kernel reaches both
/// buffers only through the `gpuAddress`es in its push constants (20 bytes
/// as SPIR-V lays them out, a 24-byte struct in MSL: the plan pads
/// `setBytes`), and `reach` makes them resident.
#[test]
fn buffers_reached_through_gpu_addresses() {
    use runtime_loader::plan::Usage;
    let device = Device::new().unwrap();
    if !metal3(&device, "buffers_reached_through_gpu_addresses") {
        return;
    }
    let mut k = K::new("twice", BindingModel::Discrete);
    k.tg = vec![(64, 0, false), (1, 0, false), (1, 0, false)];
    k.max_threads = 64;
    k.push = Some((0, 20));
    let mut exe = Exe::new(vec![k]);
    exe.libraries = vec![Lib::msl(ADDRESSES_MSL)];
    let bytes = exe.build();
    let program = device.load(Executable::load(&bytes).unwrap()).unwrap();
    let pipeline = program.pipeline("twice", &[]).unwrap();
    let n = 200u32;
    let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let sb = device
        .buffer_with_data(&floats(&src), MemoryType::HostVisible)
        .unwrap();
    let db = device
        .buffer(4 * u64::from(n), MemoryType::HostVisible)
        .unwrap();
    let mut push = db.gpu_address().to_le_bytes().to_vec();
    push.extend(sb.gpu_address().to_le_bytes());
    push.extend(n.to_le_bytes());
    let mut bindings = ResourceBindings::new();
    bindings
        .reach(&sb, Usage::Read)
        .reach(&db, Usage::ReadWrite);
    let mut cb = device.command_buffer().unwrap();
    let mut pass = cb.compute().unwrap();
    pass.dispatch(&pipeline, &bindings, &push, Grid::Threads([n, 1, 1]))
        .unwrap();
    pass.end();
    cb.commit().wait().unwrap();
    let out = read_floats(&db.to_vec().unwrap());
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, i as f32 * 2.0, "dst[{i}]");
    }
}

/// A kernel in the shape SPIRV-Cross emits for a ray query (discrete: the
/// structure at `[[buffer(0)]]`; argument buffer: its resource id at
/// `[[id(0)]]`), tracing one ray per thread along +z and writing what it
/// committed. Non-opaque triangles come back as candidates and are
/// confirmed, as `fixtures/kernels/ray_query.comp` does.
const TRACE_BODY: &str = r#"
    float3 origins[3] = { float3(0.25, 0.25, 0.0), float3(10.25, 0.25, 0.0), float3(5.0, 5.0, 0.0) };
    raytracing::intersection_query<raytracing::instancing, raytracing::triangle_data> q;
    q.reset(ray(origins[gid.x], float3(0.0, 0.0, 1.0), 0.0, 100.0), SCENE, 255u, intersection_params());
    while (q.next())
    {
        if (q.get_candidate_intersection_type() == intersection_type::triangle)
            q.commit_triangle_intersection();
    }
    Hit h;
    h.type = uint(q.get_committed_intersection_type());
    h.t = h.type != 0u ? q.get_committed_distance() : -1.0;
    h.custom = h.type != 0u ? q.get_committed_user_instance_id() : 0xFFFFFFFFu;
    h.instance = h.type != 0u ? q.get_committed_instance_id() : 0xFFFFFFFFu;
    h.geometry = h.type != 0u ? q.get_committed_geometry_id() : 0xFFFFFFFFu;
    h.primitive = h.type != 0u ? q.get_committed_primitive_id() : 0xFFFFFFFFu;
    h.bary = h.type != 0u ? q.get_committed_triangle_barycentric_coord() : float2(0.0);
    h.front = h.type != 0u ? uint(q.is_committed_triangle_front_facing()) : 2u;
    h.pad = 0u;
    for (uint c = 0u; c < 4u; c++)
    {
        for (uint r = 0u; r < 3u; r++)
        {
            h.to_world[3u * c + r] = 0.0;
            h.to_object[3u * c + r] = 0.0;
        }
    }
    if (h.type != 0u)
    {
        // What SPIRV-Cross hands over as SPIR-V's mat4x3 (columns).
        float4x3 m = q.get_committed_object_to_world_transform();
        float4x3 w = q.get_committed_world_to_object_transform();
        for (uint c = 0u; c < 4u; c++)
        {
            for (uint r = 0u; r < 3u; r++)
            {
                h.to_world[3u * c + r] = m[c][r];
                h.to_object[3u * c + r] = w[c][r];
            }
        }
    }
    HITS[gid.x] = h;
}
"#;

const TRACE_HEAD: &str = r#"
#include <metal_stdlib>
#include <metal_raytracing>
using namespace metal;
using namespace metal::raytracing;

struct Hit { uint type; float t; uint custom; uint instance; uint geometry; uint primitive; float2 bary; uint front; uint pad; float to_world[12]; float to_object[12]; };
"#;

/// Bytes of one `Hit`: ten words, then the committed object-to-world and
/// world-to-object transforms, 4 columns of 3.
const HIT: usize = 40 + 2 * 48;

fn trace_exe(model: BindingModel) -> Exe {
    let (name, msl) = match model {
        BindingModel::Discrete => (
            "trace",
            format!(
                "{TRACE_HEAD}kernel void trace0(raytracing::acceleration_structure<raytracing::instancing> scene [[buffer(0)]], device Hit* hits [[buffer(1)]], uint3 gid [[thread_position_in_grid]])\n{{{}",
                TRACE_BODY.replace("SCENE", "scene").replace("HITS", "hits")
            ),
        ),
        _ => (
            "trace",
            format!(
                "{TRACE_HEAD}struct spvDescriptorSetBuffer0\n{{\n    raytracing::acceleration_structure<raytracing::instancing> scene [[id(0)]];\n    device Hit* hits [[id(1)]];\n}};\n\nkernel void trace0(constant spvDescriptorSetBuffer0& spvDescriptorSet0 [[buffer(0)]], uint3 gid [[thread_position_in_grid]])\n{{{}",
                TRACE_BODY
                    .replace("SCENE", "spvDescriptorSet0.scene")
                    .replace("HITS", "spvDescriptorSet0.hits")
            ),
        ),
    };
    let mut k = K::new(name, model);
    k.tg = vec![(3, 0, false), (1, 0, false), (1, 0, false)];
    k.max_threads = 3;
    let accel = B::new(0, 0, BindingKind::AccelerationStructure);
    let hits = B::new(0, 1, BindingKind::StorageBuffer).access(Access::WriteOnly);
    if model == BindingModel::Discrete {
        k.bindings = vec![accel.buffer(0), hits.buffer(1)];
    } else {
        k.abs = vec![Ab {
            set: 0,
            buffer_index: 0,
            size: 16,
            ..Ab::default()
        }];
        k.bindings = vec![accel.member(0, 0), hits.member(1, 8)];
    }
    let mut exe = Exe::new(vec![k]);
    exe.libraries = vec![Lib::msl(&msl)];
    exe
}

/// One triangle, non-opaque, at z = 5, placed twice: as is (custom index
/// 7) and 10 to the right with its facing flipped (custom index 9).
fn two_triangles() -> runtime_loader::scene::TopLevel {
    use runtime_loader::scene::{BottomLevel, Geometry, Instance, Primitives, TopLevel};
    let mut left = Instance::of(0);
    left.custom_index = 7;
    let mut right = Instance::of(0);
    right.custom_index = 9;
    right.transform[0][3] = 10.0;
    right.flags.triangle_flip_facing = true;
    TopLevel {
        bottom: vec![BottomLevel {
            geometries: vec![Geometry {
                primitives: Primitives::Triangles(vec![[
                    [0.0, 0.0, 5.0],
                    [1.0, 0.0, 5.0],
                    [0.0, 1.0, 5.0],
                ]]),
                opaque: false,
                no_duplicate_any_hit: false,
            }],
        }],
        instances: vec![left, right],
    }
}

/// A ray query through a structure built by `Device::acceleration_structure`,
/// bound discrete and through an argument buffer (both encodings): the
/// committed hit of each ray, the translated instance's included, and a
/// miss.
#[test]
fn a_ray_query_traces_through_a_built_acceleration_structure() {
    let device = Device::new().unwrap();
    if !device.supports_ray_tracing() {
        let msg = format!(
            "ray query: SKIPPED: `{}` does not support ray tracing",
            device.name()
        );
        assert!(std::env::var_os("HALC_REQUIRE_METAL3").is_none(), "{msg}");
        eprintln!("{msg}");
        return;
    }
    let accel = device.acceleration_structure(&two_triangles()).unwrap();
    assert_eq!(accel.primitive_count(), 1);
    let runs = [
        (BindingModel::Discrete, ArgumentEncoding::Auto),
        (BindingModel::ArgumentBuffers, ArgumentEncoding::GpuAddress),
        (
            BindingModel::ArgumentBuffers,
            ArgumentEncoding::ArgumentEncoder,
        ),
    ];
    for (model, encoding) in runs {
        if encoding == ArgumentEncoding::GpuAddress && !metal3(&device, "ray query") {
            continue;
        }
        let bytes = trace_exe(model).build();
        let exe = Executable::load(&bytes).unwrap();
        let program = device.load(exe).unwrap();
        let pipeline = program.pipeline_with("trace", &[], encoding).unwrap();
        let hits = device
            .buffer(3 * HIT as u64, MemoryType::HostVisible)
            .unwrap();
        let mut bindings = ResourceBindings::new();
        bindings
            .acceleration_structure(0, 0, &accel)
            .buffer(0, 1, &hits);
        let plan = device
            .dispatch(&pipeline, &bindings, &[], Grid::Threads([3, 1, 1]))
            .unwrap();
        // The primitive structure is made resident, however the instance
        // structure is bound.
        assert!(
            plan.commands.iter().any(|c| c
                .to_string()
                .starts_with("useResource(primitive structure 0")),
            "{model:?}"
        );
        let out = hits.to_vec().unwrap();
        let word = |ray: usize, i: usize| {
            u32::from_le_bytes(
                out[ray * HIT + 4 * i..ray * HIT + 4 * i + 4]
                    .try_into()
                    .unwrap(),
            )
        };
        let float = |ray: usize, i: usize| f32::from_bits(word(ray, i));
        for (ray, custom, instance) in [(0, 7, 0), (1, 9, 1)] {
            let what = format!("{model:?} {encoding:?} ray {ray}");
            assert_eq!(word(ray, 0), 1, "{what}: a triangle");
            assert!(
                (float(ray, 1) - 5.0).abs() < 1e-5,
                "{what}: t {}",
                float(ray, 1)
            );
            assert_eq!(
                (word(ray, 2), word(ray, 3), word(ray, 4), word(ray, 5)),
                (custom, instance, 0, 0),
                "{what}: custom index, instance, geometry, primitive"
            );
            // Metal's barycentrics weight the second and third vertices,
            // as Vulkan's: the hit (0.25, 0.25) of (0,0), (1,0), (0,1).
            assert!((float(ray, 6) - 0.25).abs() < 1e-5, "{what}");
            assert!((float(ray, 7) - 0.25).abs() < 1e-5, "{what}");
            // The instance transforms as SPIR-V's mat4x3: the identity's
            // columns, then the translation (+10 in x for the second
            // instance; -10 back), as tests/amber/ray_query_transform.amber
            // has them on lavapipe and the CPU backend.
            let x = if ray == 1 { 10.0 } else { 0.0 };
            let to_world: Vec<f32> = (10..22).map(|i| float(ray, i)).collect();
            let to_object: Vec<f32> = (22..34).map(|i| float(ray, i)).collect();
            let columns = |t: f32| vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, t, 0.0, 0.0];
            let near = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-5);
            assert!(
                near(&to_world, &columns(x)),
                "{what}: object to world {to_world:?}"
            );
            assert!(
                near(&to_object, &columns(-x)),
                "{what}: world to object {to_object:?}"
            );
        }
        // The facing lavapipe and halc's CPU backend give (Vulkan's rule,
        // which MoltenVK takes Metal's default winding to be: it maps
        // TRIANGLE_FLIP_FACING to Metal's counter-clockwise option): a
        // triangle is front facing when (v1 - v0) x (v2 - v0) points
        // against the ray. (0,0), (1,0), (0,1) has normal +z, along this
        // +z ray: its back; the flipped instance sees its front. A Mac that
        // says otherwise means SPIRV-Cross's MSL must set the winding.
        assert_eq!((word(0, 8), word(1, 8)), (0, 1), "{model:?} front faces");
        assert_eq!(word(2, 0), 0, "{model:?}: the third ray misses");
    }
}
