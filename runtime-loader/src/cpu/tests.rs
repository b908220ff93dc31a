//! Unit tests of the shim and the executor: tiny MSL kernels compiled with
//! clang and run on the executor, no executable or plan involved.
//!
//! They need clang++ ≥ 15: without it they print why and pass, unless
//! `HALC_REQUIRE_CLANG=1`, when they fail.

use std::ffi::c_void;
use std::time::Duration;

use super::buffer::Buffer;
use super::cxx::Library;
use super::encode::{Encoded, Region};
use super::exec::ThreadgroupFill;
use super::exec::{self, EntryFn, Launch};
use super::handle::Device;
use super::options::DeviceOptions;
use super::source;
use super::{CpuError, FaultKind};
use crate::memory::MemoryType;

/// The test device, or `None` (with a printed reason) without clang.
pub(crate) fn device(fill: ThreadgroupFill, time_limit: Duration) -> Option<Device> {
    let cache_dir = std::env::var_os("HALC_CPU_CACHE")
        .map(Into::into)
        .unwrap_or_else(|| std::env::temp_dir().join("halc-cpu-test-cache"));
    match Device::with_options(DeviceOptions {
        cache_dir: Some(cache_dir),
        threadgroup_fill: fill,
        time_limit,
        ..Default::default()
    }) {
        Ok(d) => Some(d),
        Err(e @ CpuError::ClangNotFound { .. })
            if std::env::var("HALC_REQUIRE_CLANG").as_deref() != Ok("1") =>
        {
            println!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// Compiles `msl` (kernel `main0`) and runs it with `buffers[i]` at
/// `[[buffer(i)]]`.
fn run(
    dev: &Device,
    msl: &str,
    buffers: &[&Buffer],
    groups: [u64; 3],
    threads: [u32; 3],
) -> Result<(), CpuError> {
    run_counting(dev, msl, buffers, groups, threads).map(|_| ())
}

/// [`run`], returning the dispatch's [`exec::Outcome`].
fn run_counting(
    dev: &Device,
    msl: &str,
    buffers: &[&Buffer],
    groups: [u64; 3],
    threads: [u32; 3],
) -> Result<exec::Outcome, CpuError> {
    launch(dev, msl, buffers, groups, threads, true)
}

fn launch(
    dev: &Device,
    msl: &str,
    buffers: &[&Buffer],
    groups: [u64; 3],
    threads: [u32; 3],
    sandbox: bool,
) -> Result<exec::Outcome, CpuError> {
    launch_named(dev, msl, buffers, groups, threads, sandbox, |i| {
        format!("buffer {i}")
    })
}

/// [`launch`], `buffers[i]` at `[[buffer(i)]]` named `name(i)` in what the
/// dispatch reports.
pub(super) fn launch_named(
    dev: &Device,
    msl: &str,
    buffers: &[&Buffer],
    groups: [u64; 3],
    threads: [u32; 3],
    sandbox: bool,
    name: impl Fn(usize) -> String,
) -> Result<exec::Outcome, CpuError> {
    let mut slots = [std::ptr::null_mut(); 31];
    let mut regions = Vec::new();
    for (i, b) in buffers.iter().enumerate() {
        slots[i] = b.mapping().ptr().cast();
        regions.push(Region::of(name(i), b.mapping()));
    }
    run_encoded(
        dev,
        msl,
        &Encoded::for_test(slots, groups, threads, regions),
        sandbox,
    )
}

/// Compiles hand-written `msl` (kernel `main0`) and runs it with the slots,
/// grid and regions of `encoded`: what the unit tests of the shim share.
pub(super) fn run_encoded(
    dev: &Device,
    msl: &str,
    encoded: &Encoded,
    sandbox: bool,
) -> Result<exec::Outcome, CpuError> {
    let prepared = source::prepare(msl, "test", "main0", &[])?;
    let compiled = dev.inner.compiler.compile("test", &prepared.source)?;
    let lib = Library::open(&compiled.path)?;
    // SAFETY: the generated wrapper defines `halc_entry` with this signature.
    let entry = unsafe { std::mem::transmute::<*mut c_void, EntryFn>(lib.symbol("halc_entry")?) };
    exec::run(&Launch {
        kernel: "test",
        entry,
        encoded,
        fill: dev.inner.fill,
        time_limit: dev.inner.time_limit,
        workers: dev.inner.workers,
        simd_width: dev.inner.simd_width,
        guard_bytes: dev.inner.guard_bytes,
        sandbox,
        race_check: dev.inner.race_check,
    })
}

pub(super) fn dev() -> Option<Device> {
    device(ThreadgroupFill::Poison, Duration::from_secs(60))
}

pub(super) fn u32s(b: &Buffer) -> Vec<u32> {
    b.to_vec()
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn f32s(b: &Buffer) -> Vec<f32> {
    u32s(b).into_iter().map(f32::from_bits).collect()
}

const HEADER: &str = "#include <metal_stdlib>\nusing namespace metal;\n";

#[test]
fn integer_functions_have_msl_semantics() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 8, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    if (i != 0) return;\n    uint zero = out[7];\n    out[0] = clz(zero);\n    out[1] = uint(extract_bits(int(0xF0), 4, 4));\n    out[2] = extract_bits(0xF0u, 4, 4);\n    out[3] = ctz(zero);\n    out[4] = uint(clz(ushort(zero)));\n    out[5] = popcount(0xF0F0u);\n    out[6] = reverse_bits(1u);\n}}\n"
    );
    run(&dev, &msl, &[&out], [1, 1, 1], [1, 1, 1]).unwrap();
    let v = u32s(&out);
    assert_eq!(v[0], 32, "clz(0) is the bit width");
    assert_eq!(v[1] as i32, -1, "extract_bits sign-extends a signed value");
    assert_eq!(v[2], 15, "extract_bits zero-extends an unsigned value");
    assert_eq!(v[3], 32, "ctz(0) is the bit width");
    assert_eq!(v[4], 16, "clz(ushort 0) is 16");
    assert_eq!(v[5], 8);
    assert_eq!(v[6], 0x8000_0000);
}

#[test]
fn float_functions_have_msl_semantics() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 8, MemoryType::HostVisible).unwrap();
    // out[7] holds a NaN put there by the host.
    out.write(28, &f32::NAN.to_le_bytes()).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    float nan = out[7];\n    out[0] = min(nan, 1.5);\n    out[1] = max(2.5, nan);\n    out[2] = clamp(nan, 0.0, 1.0);\n    out[3] = 0.1 * 3.0;\n    out[4] = fract(-0.25);\n    out[5] = select(1.0, 2.0, nan != nan);\n    float4 v = float4(1.0, float2(2.0, 3.0), 4.0);\n    out[6] = dot(v.wzyx, float4(1.0));\n}}\n"
    );
    run(&dev, &msl, &[&out], [1, 1, 1], [1, 1, 1]).unwrap();
    let v = f32s(&out);
    assert_eq!(v[0], 1.5, "float min is fmin: NaN loses");
    assert_eq!(v[1], 2.5, "float max is fmax: NaN loses");
    assert_eq!(v[2], 0.0);
    assert_eq!(v[3], 0.1f32 * 3.0f32, "MSL literals are float, not double");
    assert_eq!(v[4], 0.75);
    assert_eq!(v[5], 2.0);
    assert_eq!(v[6], 10.0);
}

#[test]
fn simd_sum_in_a_divergent_branch_then_a_barrier() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    // Lanes < 10 of each SIMD group sum their indices; the others skip the
    // branch; then everyone meets at a barrier.
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]])\n{{\n    uint r = 0xFFFFFFFFu;\n    if (lane < 10u)\n    {{\n        r = simd_sum(i);\n    }}\n    threadgroup_barrier(mem_flags::mem_threadgroup);\n    out[i] = r;\n}}\n"
    );
    run(&dev, &msl, &[&out], [1, 1, 1], [64, 1, 1]).unwrap();
    let v = u32s(&out);
    for i in 0..64u32 {
        let lane = i % 32;
        let base = i - lane;
        let expected = if lane < 10 {
            (base..base + 10).sum()
        } else {
            u32::MAX
        };
        assert_eq!(v[i as usize], expected, "thread {i}");
    }
}

#[test]
fn simd_scans_ballot_and_shuffles_use_the_active_lanes() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 40 * 4, MemoryType::HostVisible).unwrap();
    // 40 threads: the second SIMD group has 8 lanes; lanes that returned
    // are inactive.
    let msl = format!(
        "{HEADER}kernel void main0(device uint4* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]])\n{{\n    if (lane == 3u) return;\n    uint ex = simd_prefix_exclusive_sum(1u);\n    uint in = simd_prefix_inclusive_sum(lane);\n    uint ballot = uint(simd_vote::vote_t(simd_ballot((lane & 1u) == 1u)));\n    uint down = simd_shuffle_down(lane, ushort(1));\n    out[i] = uint4(ex, in, ballot, down);\n}}\n"
    );
    run(&dev, &msl, &[&out], [1, 1, 1], [40, 1, 1]).unwrap();
    let v = u32s(&out);
    for i in 0..40u32 {
        let lane = i % 32;
        let width = if i < 32 { 32 } else { 8 };
        if lane == 3 {
            assert_eq!(&v[4 * i as usize..4 * i as usize + 4], &[0, 0, 0, 0]);
            continue;
        }
        let active: Vec<u32> = (0..width).filter(|&l| l != 3).collect();
        let ex = active.iter().filter(|&&l| l < lane).count() as u32;
        let inc: u32 = active.iter().filter(|&&l| l <= lane).sum();
        let ballot = active
            .iter()
            .filter(|&&l| l & 1 == 1)
            .fold(0u32, |m, l| m | 1 << l);
        let got = &v[4 * i as usize..4 * i as usize + 4];
        assert_eq!(got[..3], [ex, inc, ballot], "thread {i}");
        if lane + 1 < width && lane + 1 != 3 {
            assert_eq!(got[3], lane + 1, "shuffle_down at thread {i}");
        }
    }
}

#[test]
fn simd_groups_have_the_devices_width() {
    let Some(dev32) = dev() else { return };
    // 40 threads: at each width the last SIMD group may be partial; lane 2
    // of every group returns first, so it is inactive in the operations.
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]], uint w [[threads_per_simdgroup]], uint sgs [[simdgroups_per_threadgroup]])\n{{\n    device uint* o = out + 9u * i;\n    o[0] = w;\n    o[1] = lane;\n    o[2] = sg;\n    o[3] = sgs;\n    if (lane == 2u) return;\n    o[4] = simd_sum(i);\n    o[5] = simd_shuffle_down(lane, ushort(1));\n    o[6] = simd_shuffle_rotate_down(lane, ushort(1));\n    o[7] = uint(simd_vote::vote_t(simd_ballot(true)));\n    o[8] = quad_max(i);\n}}\n"
    );
    for width in [4u32, 8, 16, 32] {
        let dev = dev32.with_simd_width(width).unwrap();
        assert_eq!(dev.simd_width(), width);
        let out = dev.buffer(4 * 9 * 40, MemoryType::HostVisible).unwrap();
        run(&dev, &msl, &[&out], [1, 1, 1], [40, 1, 1]).unwrap();
        let v = u32s(&out);
        for i in 0..40u32 {
            let (lane, sg) = (i % width, i / width);
            let base = sg * width;
            let size = width.min(40 - base);
            let o = &v[9 * i as usize..9 * i as usize + 9];
            let at = format!("width {width}, thread {i}");
            assert_eq!(o[..4], [width, lane, sg, 40u32.div_ceil(width)], "{at}");
            if lane == 2 {
                assert_eq!(o[4..], [0; 5], "{at}");
                continue;
            }
            let active: Vec<u32> = (0..size).filter(|&l| l != 2).collect();
            assert_eq!(o[4], active.iter().map(|l| base + l).sum::<u32>(), "{at}");
            if lane + 1 < size && lane + 1 != 2 {
                assert_eq!(o[5], lane + 1, "shuffle_down, {at}");
            }
            if size == width && (lane + 1) % width != 2 {
                assert_eq!(o[6], (lane + 1) % width, "rotate_down, {at}");
            }
            assert_eq!(o[7], active.iter().fold(0, |m, l| m | 1 << l), "{at}");
            let quad = (lane & !3..(lane & !3) + 4).filter(|l| *l != 2 && *l < size);
            assert_eq!(
                o[8],
                quad.map(|l| base + l).max().unwrap(),
                "quad_max, {at}"
            );
        }
    }
    for width in [0u32, 2, 3, 12, 64] {
        assert_eq!(
            dev32.with_simd_width(width).unwrap_err(),
            CpuError::SimdWidth { width }
        );
    }
}

const REDUCE: &str = "kernel void main0(device float* inp [[buffer(0)]], device float* out [[buffer(1)]], uint lid [[thread_index_in_threadgroup]], uint gid [[threadgroup_position_in_grid]], uint id [[thread_position_in_grid]])\n{\n    threadgroup spvUnsafeArray<float, 128> tile;\n    tile[lid] = inp[id];\n    threadgroup_barrier(mem_flags::mem_threadgroup);\n    for (uint s = 64u; s > 0u; s >>= 1u)\n    {\n        if (lid < s)\n        {\n            tile[lid] += tile[lid + s];\n        }\n        threadgroup_barrier(mem_flags::mem_threadgroup);\n    }\n    if (lid == 0u)\n    {\n        out[gid] = tile[0];\n    }\n}\n";

#[test]
fn a_tree_reduction_with_barriers_in_threadgroup_memory() {
    let Some(dev) = dev() else { return };
    let groups = 16u64;
    let data: Vec<f32> = (0..128 * groups).map(|i| (i % 7) as f32).collect();
    let inp = dev
        .buffer_with_data(
            &data
                .iter()
                .flat_map(|f| f.to_le_bytes())
                .collect::<Vec<_>>(),
            MemoryType::HostVisible,
        )
        .unwrap();
    let out = dev.buffer(4 * groups, MemoryType::HostVisible).unwrap();
    run(
        &dev,
        &format!("{HEADER}{REDUCE}"),
        &[&inp, &out],
        [groups, 1, 1],
        [128, 1, 1],
    )
    .unwrap();
    let got = f32s(&out);
    for g in 0..groups as usize {
        let expected: f32 = data[g * 128..(g + 1) * 128].iter().sum();
        assert_eq!(got[g], expected, "group {g}");
    }
}

/// Reads threadgroup memory before writing it: the sum of a "zeroed" tile.
const READS_UNINITIALISED: &str = "kernel void main0(device float* out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]])\n{\n    threadgroup spvUnsafeArray<float, 64> acc;\n    acc[lid] += 1.0;\n    threadgroup_barrier(mem_flags::mem_threadgroup);\n    out[lid] = acc[lid];\n}\n";

#[test]
fn threadgroup_memory_is_poisoned_not_zeroed() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    run(
        &dev,
        &format!("{HEADER}{READS_UNINITIALISED}"),
        &[&out],
        [3, 1, 1],
        [64, 1, 1],
    )
    .unwrap();
    assert!(
        f32s(&out).iter().all(|f| f.is_nan()),
        "a kernel relying on zeroed threadgroup memory must see the poison"
    );
    // Control: with zero-filled memory the same kernel "works", so the
    // poison is what makes the difference.
    let Some(zero) = device(ThreadgroupFill::Zero, Duration::from_secs(60)) else {
        return;
    };
    run(
        &zero,
        &format!("{HEADER}{READS_UNINITIALISED}"),
        &[&out],
        [3, 1, 1],
        [64, 1, 1],
    )
    .unwrap();
    assert!(f32s(&out).iter().all(|&f| f == 1.0));
}

#[test]
fn a_barrier_some_threads_return_before_is_an_error() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]])\n{{\n    if (lid >= 60u) return;\n    threadgroup_barrier(mem_flags::mem_threadgroup);\n    out[lid] = 1u;\n}}\n"
    );
    let e = run(&dev, &msl, &[&out], [1, 1, 1], [64, 1, 1]).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, CpuError::Kernel { .. })
            && text.contains("60 of 64 threads wait at threadgroup_barrier"),
        "{text}"
    );
}

#[test]
fn an_out_of_bounds_read_fails_the_dispatch_and_the_caller_survives() {
    let Some(dev) = dev() else { return };
    let inp = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    // Thread 63 reads inp[64], one element past the end.
    let msl = format!(
        "{HEADER}kernel void main0(device float* inp [[buffer(0)]], device float* out [[buffer(1)]], uint i [[thread_position_in_grid]])\n{{\n    out[i] = inp[i + 1u];\n}}\n"
    );
    let e = run(&dev, &msl, &[&inp, &out], [1, 1, 1], [64, 1, 1]).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(
            e,
            CpuError::Fault {
                kind: FaultKind::OutOfBounds,
                ..
            }
        ) && text.contains("out-of-bounds access")
            && text.contains("0 bytes past the end of buffer 0 (256 bytes)")
            && text.contains("thread [63, 0, 0]"),
        "{text}"
    );
    // The caller is alive and the device still works.
    let msl_ok = msl.replace("inp[i + 1u]", "inp[i]");
    run(&dev, &msl_ok, &[&inp, &out], [1, 1, 1], [64, 1, 1]).unwrap();
}

#[test]
fn a_general_protection_fault_is_not_called_a_null_pointer() {
    let Some(dev) = dev() else { return };
    let inp = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    // An index so far out of range that the address leaves x86-64's
    // canonical range: a general-protection fault, which Linux reports with
    // address 0.
    let msl = format!(
        "{HEADER}kernel void main0(device float* inp [[buffer(0)]], device float* out [[buffer(1)]], uint i [[thread_position_in_grid]])\n{{\n    out[i] = inp[i + 0x2000000000000000ul];\n}}\n"
    );
    let e = run(&dev, &msl, &[&inp, &out], [1, 1, 1], [64, 1, 1]).unwrap_err();
    let text = e.to_string();
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        assert!(
            matches!(
                e,
                CpuError::Fault {
                    kind: FaultKind::OutsideBuffers,
                    ..
                }
            ) && text.contains("general-protection fault")
                && !text.contains("null pointer"),
            "{text}"
        );
    } else {
        assert!(matches!(e, CpuError::Fault { .. }), "{text}");
    }
}

fn i32s(b: &Buffer) -> Vec<i32> {
    u32s(b).into_iter().map(|x| x as i32).collect()
}

/// Runs `body` (MSL statements) as the one thread of a kernel with
/// `device uint* a [[buffer(0)]]` (holding `input`) and `device T* out
/// [[buffer(1)]]` (64 elements of 4 bytes), after `helpers` (MSL at file
/// scope); returns `out`'s bytes.
fn run_body(dev: &Device, helpers: &str, out_ty: &str, input: &[u32], body: &str) -> Buffer {
    let a = dev
        .buffer(4 * input.len().max(1) as u64, MemoryType::HostVisible)
        .unwrap();
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    a.write(0, &bytes).unwrap();
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}{helpers}\nkernel void main0(device uint* a [[buffer(0)]], device {out_ty}* out [[buffer(1)]], uint gid [[thread_position_in_grid]])\n{{\n{body}\n}}\n"
    );
    run(dev, &msl, &[&a, &out], [1, 1, 1], [1, 1, 1]).unwrap_or_else(|e| panic!("{e}"));
    out
}

/// SPIRV-Cross compares vectors into boolN (`bool4 m = (a & b) !=
/// uint4(0u)`), converts them back with constructors, negates them with
/// `not`, swizzles and selects with them: a boolN holds 0/1 as in MSL, not
/// clang's -1/0 masks.
#[test]
fn vector_comparisons_give_msl_bool_vectors() {
    let Some(dev) = dev() else { return };
    let body = r#"
    uint4 x = uint4(a[0], a[1], a[2], a[3]);
    uint4 y = uint4(a[4], a[5], a[6], a[7]);
    bool4 mask = (x & y) != uint4(0u);
    uint4 u = uint4(mask);
    out[0] = u.x; out[1] = u.y; out[2] = u.z; out[3] = u.w;
    out[4] = uint(all(mask)); out[5] = uint(any(mask));
    bool4 n = not(mask);
    out[6] = uint(n.x); out[7] = uint(n.y);
    uint4 s = select(uint4(10u), uint4(20u), x < y);
    out[8] = s.x; out[9] = s.y; out[10] = s.z; out[11] = s.w;
    int4 c = int4(x > y);
    out[12] = uint(c.x); out[13] = uint(c.w);
    bool2 sw = mask.zw;
    out[14] = uint(sw.x); out[15] = uint(sw.y);
    bool4 eq = mask == n;
    out[16] = uint(any(eq));
    float4 f = float4(x >= y);
    out[17] = as_type<uint>(f.x); out[18] = as_type<uint>(f.y);
    bool3 b3 = bool3(x.xyz);
    out[19] = uint3(b3).y + 10u * uint3(b3).x;
    mask.y = x.y == 0u;
    out[20] = uint(mask.y);
    out[21] = uint(isnan(float2(as_type<float>(0x7fc00000u), 1.0)).x);
    out[22] = select(0u, 1u, x.x == 3u && y.x != 0u);
    "#;
    let out = run_body(&dev, "", "uint", &[3, 0, 5, 8, 1, 7, 4, 8], body);
    let v = u32s(&out);
    // x & y = (1, 0, 4, 8)
    assert_eq!(&v[0..4], &[1, 0, 1, 1], "uint4(bool4) is 0/1");
    assert_eq!(&v[4..8], &[0, 1, 0, 1], "all, any, not");
    assert_eq!(&v[8..12], &[10, 20, 10, 10], "select with x < y");
    assert_eq!(&v[12..14], &[1, 0], "int4(x > y) is 1, not -1");
    assert_eq!(&v[14..17], &[1, 1, 0], "swizzles and == of bool vectors");
    assert_eq!(v[17], 1.0f32.to_bits(), "float4(true) is 1.0");
    assert_eq!(v[18], 0, "float4(false) is 0.0");
    assert_eq!(v[19], 10, "bool3(uint3(3, 0, 5)) is (1, 0, 1)");
    assert_eq!(v[20], 1);
    assert_eq!(v[21], 1, "isnan of a vector is a bool vector");
    assert_eq!(v[22], 1);
}

/// `determinant` of float2x2/3x3/4x4, and SPIRV-Cross's `spvInverse4x4`
/// (GLSL `inverse`), which needs matrix * scalar, unary minus and division.
#[test]
fn matrix_functions_determinant_and_spirv_cross_inverse() {
    let Some(dev) = dev() else { return };
    // SPIRV-Cross's helpers for inverse(mat3), as it emits them.
    let helpers = r#"
static inline __attribute__((always_inline))
float spvDet2x2(float a1, float a2, float b1, float b2)
{
    return a1 * b2 - b1 * a2;
}
static inline __attribute__((always_inline))
float3x3 spvInverse3x3(float3x3 m)
{
    float3x3 adj;
    adj[0][0] =  spvDet2x2(m[1][1], m[1][2], m[2][1], m[2][2]);
    adj[0][1] = -spvDet2x2(m[0][1], m[0][2], m[2][1], m[2][2]);
    adj[0][2] =  spvDet2x2(m[0][1], m[0][2], m[1][1], m[1][2]);
    adj[1][0] = -spvDet2x2(m[1][0], m[1][2], m[2][0], m[2][2]);
    adj[1][1] =  spvDet2x2(m[0][0], m[0][2], m[2][0], m[2][2]);
    adj[1][2] = -spvDet2x2(m[0][0], m[0][2], m[1][0], m[1][2]);
    adj[2][0] =  spvDet2x2(m[1][0], m[1][1], m[2][0], m[2][1]);
    adj[2][1] = -spvDet2x2(m[0][0], m[0][1], m[2][0], m[2][1]);
    adj[2][2] =  spvDet2x2(m[0][0], m[0][1], m[1][0], m[1][1]);
    float det = (adj[0][0] * m[0][0]) + (adj[0][1] * m[1][0]) + (adj[0][2] * m[2][0]);
    return (det != 0.0f) ? (adj * (1.0f / det)) : m;
}
"#;
    let body = r#"
    float k = float(a[0]);
    float2x2 m2 = float2x2(float2(k, 1.0), float2(3.0, 4.0));
    float3x3 m3 = float3x3(float3(2.0, 0.0, 1.0), float3(1.0, k, 0.0), float3(0.0, 1.0, 3.0));
    float4x4 m4 = float4x4(float4(1.0, 2.0, 0.0, 0.0), float4(0.0, 1.0, k, 0.0), float4(0.0, 0.0, 1.0, 2.0), float4(3.0, 0.0, 0.0, 1.0));
    out[0] = determinant(m2);
    out[1] = determinant(m3);
    out[2] = determinant(m4);
    float3x3 inv = spvInverse3x3(m3);
    float3x3 id = m3 * inv;
    out[3] = id[0][0]; out[4] = id[1][0]; out[5] = id[2][2];
    float2x2 n = -m2 / 2.0;
    n *= 4.0;
    out[6] = n[0][0]; out[7] = n[1][1];
    half2x2 h = half2x2(m2) * 2.0;
    out[8] = float(h[1][0]);
    out[9] = determinant(transpose(m4));
    "#;
    let out = run_body(&dev, helpers, "float", &[2], body);
    let v = f32s(&out);
    // m2 = [[2, 3], [1, 4]] (columns (2, 1), (3, 4)): 2*4 - 3*1.
    assert_eq!(v[0], 5.0);
    // columns (2,0,1), (1,2,0), (0,1,3): 2*(2*3-1*0) - 1*(0*3-1*1) + 0 = 13.
    assert_eq!(v[1], 13.0);
    // 1 + (-1)^(4+1) * 3 * 2*2*2 (the two permutations with non-zero products).
    assert_eq!(v[2], -23.0);
    assert!(
        (v[3] - 1.0).abs() < 1e-6 && v[4].abs() < 1e-6 && (v[5] - 1.0).abs() < 1e-6,
        "{v:?}"
    );
    assert_eq!((v[6], v[7]), (-4.0, -8.0));
    assert_eq!(v[8], 6.0);
    assert_eq!(v[9], v[2], "det(transpose(m)) = det(m)");
}

/// <metal_type_traits> as SPIRV-Cross's helpers use it: its integer `sign`
/// (`enable_if<is_integral<T>>`, for scalars and vectors, beside the shim's
/// float `sign`), `spvSMod` and `spvFindSMSB` (selects over comparisons).
#[test]
fn type_traits_and_spirv_cross_integer_helpers() {
    let Some(dev) = dev() else { return };
    let helpers = r#"
template<typename T, typename E = typename enable_if<is_integral<T>::value>::type>
inline T sign(T x)
{
    return select(select(select(x, T(0), x == T(0)), T(1), x > T(0)), T(-1), x < T(0));
}
template<typename Tx, typename Ty>
inline Tx spvSMod(Tx x, Ty y)
{
    Tx remainder = x - y * (x / y);
    return select(Tx(remainder + y), remainder, remainder == 0 || (x >= 0) == (y >= 0));
}
template<typename T>
inline T spvFindSMSB(T x)
{
    T v = select(x, T(-1) - x, x < T(0));
    return select(clz(T(0)) - (clz(v) + T(1)), T(-1), v == T(0));
}
static_assert(is_integral<int4>::value && is_integral<uint>::value && !is_integral<float2>::value, "is_integral");
static_assert(is_floating_point<half3>::value && !is_floating_point<int>::value, "is_floating_point");
static_assert(is_signed<int2>::value && !is_signed<uint2>::value && is_unsigned<ushort>::value, "is_signed");
static_assert(is_same<make_unsigned_t<int4>, uint4>::value && is_same<make_signed<uint>::type, int>::value, "make_unsigned");
static_assert(is_vector<bool3>::value && !is_vector<float>::value && vec_elements<float3>::value == 3, "is_vector");
static_assert(is_same<make_scalar_t<bool2>, bool>::value && is_boolean<bool4>::value && !is_boolean<char4>::value, "bool");
static_assert(is_same<enable_if_t<true, int>, int>::value && is_same<conditional_t<false, int, uint>, uint>::value, "std");
"#;
    let body = r#"
    int x = int(a[0]);
    int4 v = int4(x, -x, 0, 2 * x);
    int4 s = sign(v);
    out[0] = s.x; out[1] = s.y; out[2] = s.z; out[3] = sign(-x);
    out[4] = int(sign(-2.5));
    int4 m = spvSMod(int4(-7, 7, -7, 6), int4(3, -3, -3, 3));
    out[5] = m.x; out[6] = m.y; out[7] = m.z; out[8] = m.w;
    out[9] = spvSMod(-7, 3);
    int4 msb = spvFindSMSB(int4(x, -1, 0, -x));
    out[10] = msb.x; out[11] = msb.y; out[12] = msb.z; out[13] = msb.w;
    "#;
    let out = run_body(&dev, helpers, "int", &[5], body);
    let v = i32s(&out);
    assert_eq!(&v[0..5], &[1, -1, 0, -1, -1]);
    assert_eq!(
        &v[5..10],
        &[2, -2, -1, 0, 2],
        "GLSL mod: the sign of the divisor"
    );
    assert_eq!(&v[10..14], &[2, -1, -1, 2], "findMSB");
}

/// Math, common, integer and packing functions SPIRV-Cross calls, and the
/// `fast::`/`precise::` spellings of all of them.
#[test]
fn math_integer_and_packing_functions() {
    let Some(dev) = dev() else { return };
    let body = r#"
    float one = as_type<float>(a[0]);
    out[0] = as_type<float>(pack_float_to_unorm4x8(float4(0.0, 1.0, 0.5, 2.0) * one));
    out[1] = as_type<float>(pack_float_to_snorm2x16(float2(-1.0, 0.5) * one));
    float4 u = unpack_unorm4x8_to_float(0x80FF00FFu);
    out[2] = u.x; out[3] = u.y; out[4] = u.w;
    float2 s = unpack_snorm2x16_to_float(0x80007FFFu);
    out[5] = s.x; out[6] = s.y;
    out[7] = fast::sinh(one); out[8] = precise::acos(one); out[9] = fast::cosh(0.0 * one);
    out[10] = fmedian3(3.0 * one, 1.0, 2.0); out[11] = fmax3(1.0, 5.0 * one, 2.0);
    out[12] = float(max3(1, int(one) * 7, 3)); out[13] = float(median3(4u, 9u, uint(one)));
    out[14] = float(addsat(2147483000, int(one) * 2000)); out[15] = float(madhi(0x80000000u, 4u * uint(one), 1u));
    float c;
    out[16] = sincos(0.0 * one, c); out[17] = c;
    out[18] = float(ilogb(8.0 * one));
    out[19] = float(isunordered(one, as_type<float>(0x7fc00000u)));
    out[20] = float(absdiff(int2(-3, 4), int2(5 * int(one), 1)).x);
    "#;
    let out = run_body(&dev, "", "float", &[1.0f32.to_bits()], body);
    let v = f32s(&out);
    assert_eq!(v[0].to_bits(), 0xFF80_FF00);
    assert_eq!(v[1].to_bits(), 0x4000_8001);
    assert_eq!((v[2], v[3], v[4]), (1.0, 0.0, 128.0 / 255.0));
    assert_eq!((v[5], v[6]), (1.0, -1.0), "snorm -32768 unpacks to -1");
    assert!((v[7] - 1.0f32.sinh()).abs() < 1e-6 && v[8] == 0.0 && v[9] == 1.0);
    assert_eq!(&v[10..14], &[2.0, 5.0, 7.0, 4.0]);
    assert_eq!(v[14], i32::MAX as f32, "addsat saturates");
    assert_eq!(v[15], 3.0, "madhi: (0x80000000 * 4) >> 32, plus 1");
    assert_eq!((v[16], v[17]), (0.0, 1.0));
    assert_eq!((v[18], v[19], v[20]), (3.0, 1.0, 8.0));
}

/// Integer division by zero and `INT_MIN / -1` are undefined in MSL and a
/// GPU does not trap: the dispatch completes with halc's values (quotient
/// all ones, remainder the dividend; `INT_MIN / -1` is `INT_MIN` rem 0) for
/// 32- and 64-bit, signed and unsigned, scalar and vector `/` and `%`.
#[test]
fn integer_division_by_zero_gives_a_value_as_a_gpu_does() {
    let Some(dev) = dev() else { return };
    // d: divisors, n: dividends (from buffers: nothing folds).
    let d = dev.buffer(4 * 4, MemoryType::HostVisible).unwrap();
    let n = dev.buffer(4 * 4, MemoryType::HostVisible).unwrap();
    let out = dev.buffer(8 * 32, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device int* d [[buffer(0)]], device int* n [[buffer(1)]], device ulong* out [[buffer(2)]], uint i [[thread_position_in_grid]])\n{{\n    int zero = d[0]; int minus1 = d[1];\n    int a = n[0]; int imin = n[1];\n    out[0] = ulong(uint(a / zero));\n    out[1] = ulong(uint(a % zero));\n    out[2] = ulong(uint(uint(a) / uint(zero)));\n    out[3] = ulong(uint(uint(a) % uint(zero)));\n    out[4] = ulong(uint(imin / minus1));\n    out[5] = ulong(uint(imin % minus1));\n    out[6] = ulong(long(a) / long(zero));\n    out[7] = ulong(long(a) % long(zero));\n    out[8] = ulong(a) / ulong(zero);\n    out[9] = ulong(a) % ulong(zero);\n    out[10] = ulong(long(-9223372036854775807l - 1l) * long(d[2] + 1) / long(minus1));\n    int4 q = int4(a, -a, 9, imin) / int4(zero, zero, 2, minus1);\n    int4 r = int4(a, -a, 9, imin) % int4(zero, zero, 2, minus1);\n    uint2 uq = uint2(uint(a), 9u) / uint2(uint(zero), 2u);\n    for (int k = 0; k < 4; ++k) {{ out[11 + k] = ulong(uint(q[k])); out[15 + k] = ulong(uint(r[k])); }}\n    out[19] = ulong(uq.x); out[20] = ulong(uq.y);\n}}\n"
    );
    let put = |b: &Buffer, v: [i32; 4]| {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        b.write(0, &bytes).unwrap();
    };
    let results = |out: &Buffer| -> Vec<u64> {
        out.to_vec()
            .unwrap()
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    put(&d, [0, -1, 0, 0]);
    put(&n, [7, i32::MIN, 0, 0]);
    let outcome = run_counting(&dev, &msl, &[&d, &n, &out], [1, 1, 1], [1, 1, 1])
        .expect("dividing by zero completes");
    let v = results(&out);
    let u = |x: i32| u64::from(x as u32);
    let expected: [(usize, u64, &str); 21] = [
        (0, u(-1), "int 7 / 0: -1"),
        (1, 7, "int 7 % 0: the dividend"),
        (2, 0xFFFF_FFFF, "uint 7 / 0: all ones"),
        (3, 7, "uint 7 % 0: the dividend"),
        (4, u(i32::MIN), "INT_MIN / -1: INT_MIN"),
        (5, 0, "INT_MIN % -1: 0"),
        (6, u64::MAX, "long 7 / 0: -1"),
        (7, 7, "long 7 % 0: the dividend"),
        (8, u64::MAX, "ulong 7 / 0: all ones"),
        (9, 7, "ulong 7 % 0: the dividend"),
        (10, i64::MIN as u64, "LONG_MIN / -1: LONG_MIN"),
        (11, u(-1), "int4 x / 0"),
        (12, u(-1), "int4 -x / 0"),
        (13, 4, "int4 9 / 2"),
        (14, u(i32::MIN), "int4 INT_MIN / -1"),
        (15, 7, "int4 x % 0"),
        (16, u(-7), "int4 -x % 0"),
        (17, 1, "int4 9 % 2"),
        (18, 0, "int4 INT_MIN % -1"),
        (19, 0xFFFF_FFFF, "uint2 x / 0"),
        (20, 4, "uint2 9 / 2"),
    ];
    for (k, want, what) in expected {
        assert_eq!(v[k], want, "out[{k}]: {what}");
    }
    assert!(outcome.divisions > 0, "the divisions are counted");

    // Negative control: the same kernel without a zero divisor or an
    // overflow divides as C does and counts nothing.
    put(&d, [3, 2, 0, 0]);
    put(&n, [7, -8, 0, 0]);
    let outcome = run_counting(&dev, &msl, &[&d, &n, &out], [1, 1, 1], [1, 1, 1]).unwrap();
    let v = results(&out);
    assert_eq!(outcome.divisions, 0);
    assert_eq!(&v[..6], &[2, 1, 2, 1, u(-4), 0]);
    assert_eq!(&v[6..10], &[2, 1, 2, 1]);
    assert_eq!(v[10], (i64::MIN / 2) as u64);
    assert_eq!(&v[11..21], &[2, u(-2), 4, u(-4), 1, u(-1), 1, 0, 2, 4]);
}

/// Each fault names its kind, and the kinds random data can cause in a
/// correct kernel (an index out of bounds or far past every buffer) say
/// so, unlike a null pointer or a trap.
#[test]
fn faults_say_their_kind_and_whether_data_alone_can_cause_them() {
    let Some(dev) = dev() else { return };
    let inp = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    let kernel = |body: &str| {
        format!(
            "{HEADER}kernel void main0(device uint* inp [[buffer(0)]], device uint* out [[buffer(1)]], uint i [[thread_position_in_grid]])\n{{\n    {body}\n}}\n"
        )
    };
    // `inp` holds zeros. (A division by zero is no fault: see
    // `integer_division_by_zero_gives_a_value_as_a_gpu_does`.)
    let cases = [
        // 3 GiB past the end: in the buffer's own guard zone.
        (
            "out[i] = inp[i + (i == 5u ? 0x30000000u : 0u)];",
            FaultKind::OutOfBounds,
            "past the end of buffer 0",
            true,
        ),
        // A pointer made from data, far from every buffer (16 TiB, below
        // where Linux maps anything in a process like this one).
        (
            "device uint* p = i == 5u ? (device uint*)(ulong(inp[i]) + 0x100000000000ul) : inp; out[i] = p[i];",
            FaultKind::OutsideBuffers,
            "outside every buffer",
            true,
        ),
        (
            "device uint* p = i == 5u ? (device uint*)(ulong(inp[i]) * 8ul) : inp; out[i] = p[i];",
            FaultKind::NullPointer,
            "null pointer",
            false,
        ),
        (
            "if (i == 5u) __builtin_trap(); out[i] = 1u;",
            FaultKind::Trap,
            "SIGILL",
            false,
        ),
    ];
    for (body, expected, text, from_data) in cases {
        let e = run(&dev, &kernel(body), &[&inp, &out], [1, 1, 1], [64, 1, 1]).expect_err(body);
        let message = e.to_string();
        match e {
            CpuError::Fault { kind, .. } => {
                assert_eq!(kind, expected, "{body}: {message}");
                assert_eq!(kind.may_come_from_data(), from_data, "{body}");
                assert!(
                    message.contains(text) && message.contains("thread [5, 0, 0]"),
                    "{body}: {message}"
                );
            }
            other => panic!("{body}: {other}"),
        }
    }
}

#[test]
fn an_endless_loop_hits_the_time_limit() {
    let Some(dev) = device(ThreadgroupFill::Poison, Duration::from_millis(300)) else {
        return;
    };
    let out = dev.buffer(4, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device atomic_uint* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    while (atomic_load_explicit(out, memory_order_relaxed) == 0u)\n    {{\n    }}\n}}\n"
    );
    let start = std::time::Instant::now();
    let e = run(&dev, &msl, &[&out], [1, 1, 1], [1, 1, 1]).unwrap_err();
    assert!(matches!(e, CpuError::Timeout { .. }), "{e}");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn atomics_are_atomic_across_worker_threads() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    atomic_fetch_add_explicit((device atomic_uint*)&out[0], 1u, memory_order_relaxed);\n}}\n"
    );
    run(&dev, &msl, &[&out], [512, 1, 1], [64, 1, 1]).unwrap();
    assert_eq!(u32s(&out)[0], 512 * 64);
}

#[test]
fn clang_errors_name_the_kernel_and_the_msl_line() {
    let Some(dev) = dev() else { return };
    // Line 5 of the MSL uses an undeclared identifier.
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]])\n{{\n    out[0] = _11;\n}}\n"
    );
    let e = run(&dev, &msl, &[], [1, 1, 1], [1, 1, 1]).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, CpuError::Compile { .. })
            && text.contains("kernel `test`")
            && text.contains("test.metal:5:14: error: use of undeclared identifier '_11'"),
        "{text}"
    );
}

#[test]
fn a_warm_compile_is_a_cache_hit() {
    let Some(dev) = dev() else { return };
    let src = format!(
        "{HEADER}// {}\nkernel void main0(device uint* out [[buffer(0)]])\n{{\n}}\n",
        std::process::id()
    );
    let prepared = source::prepare(&src, "test", "main0", &[]).unwrap();
    let c = &dev.inner.compiler;
    let first = c.compile("test", &prepared.source).unwrap();
    let second = c.compile("test", &prepared.source).unwrap();
    assert!(second.cached, "the second compile must come from the cache");
    assert_eq!(first.path, second.path);
}

/// A kernel doing what only a hostile one would, through the C library
/// (the MSL is compiled as C++ against the host's libc): `call` on the
/// first thread, its result in `out[0]`, `out[1]` set after it.
#[cfg(target_os = "linux")]
fn hostile(decl: &str, call: &str) -> String {
    format!(
        "{HEADER}extern \"C\" {{ {decl} }}\nkernel void main0(device int* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    if (i != 0u) return;\n    out[0] = int({call});\n    out[1] = 1;\n}}\n"
    )
}

/// The sandbox kills a kernel that opens a file, a socket or starts a
/// program, and says so; the caller survives and its device still works.
/// Without the sandbox (the control) each call succeeds.
#[cfg(target_os = "linux")]
#[test]
fn a_kernel_that_opens_a_file_a_socket_or_starts_a_program_is_stopped() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(8, MemoryType::HostVisible).unwrap();
    let cases = [
        (
            "int open(const char*, int, ...);",
            "open(\"/etc/hostname\", 0)",
            "openat",
        ),
        ("int socket(int, int, int);", "socket(2, 1, 0)", "socket"),
        (
            "int execve(const char*, char* const*, char* const*);",
            "execve(\"/bin/true\", nullptr, nullptr)",
            "execve",
        ),
    ];
    for (decl, call, name) in cases {
        let msl = hostile(decl, call);
        out.write(0, &[0xff; 8]).unwrap();
        let e = launch(&dev, &msl, &[&out], [1, 1, 1], [1, 1, 1], true).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(
                e,
                CpuError::Fault {
                    kind: FaultKind::Forbidden,
                    ..
                }
            ) && text.contains("the kernel attempted a forbidden operation")
                && text.contains(&format!("({name})")),
            "{call}: {text}"
        );
        assert!(!FaultKind::Forbidden.may_come_from_data());
        // The call never returned into the kernel.
        assert_eq!(u32s(&out)[1], u32::MAX, "{call}");

        // The control: without the sandbox the same kernel gets its way
        // (a descriptor, or the process replaced by /bin/true, which
        // exits 0 before the kernel finishes).
        out.write(0, &[0xff; 8]).unwrap();
        let unsandboxed = launch(&dev, &msl, &[&out], [1, 1, 1], [1, 1, 1], false);
        assert!(unsandboxed.is_ok(), "{call}: {unsandboxed:?}");
        let got = u32s(&out);
        if name == "execve" {
            assert_eq!(got[1], u32::MAX, "{call}: the kernel went on after execve");
        } else {
            assert_eq!(got[1], 1, "{call}");
            assert!((got[0] as i32) >= 0, "{call}: {}", got[0] as i32);
        }
    }
    // The device still works.
    let ok = format!(
        "{HEADER}kernel void main0(device int* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    out[i] = 7;\n}}\n"
    );
    run(&dev, &ok, &[&out], [1, 1, 1], [2, 1, 1]).unwrap();
    assert_eq!(u32s(&out), [7, 7]);
}

/// A kernel cannot signal another process or start one with `fork`
/// (only threads of its own): stopped and reported.
#[cfg(target_os = "linux")]
#[test]
fn a_kernel_cannot_signal_another_process_or_fork() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(8, MemoryType::HostVisible).unwrap();
    for (decl, call, name) in [
        ("int kill(int, int);", "kill(1, 0)", "kill"),
        ("int fork(void);", "fork()", "clone"),
    ] {
        let msl = hostile(decl, call);
        let e = launch(&dev, &msl, &[&out], [1, 1, 1], [1, 1, 1], true).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("the kernel attempted a forbidden operation") && text.contains(name),
            "{call}: {text}"
        );
    }
}

/// What the sandbox costs a dispatch, beside the same dispatch without it:
/// interleaved rounds, medians and their ratio printed (a measurement, not
/// a check; run with `--ignored --nocapture`).
#[cfg(target_os = "linux")]
#[test]
#[ignore]
fn sandbox_cost_per_dispatch() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    out[i] = i;\n}}\n"
    );
    let mut times = [Vec::new(), Vec::new()];
    for round in 0..400 {
        for k in [round % 2, 1 - round % 2] {
            let start = std::time::Instant::now();
            launch(&dev, &msl, &[&out], [1, 1, 1], [64, 1, 1], k == 1).unwrap();
            times[k].push(start.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (off, on) = (median(&mut times[0]), median(&mut times[1]));
    println!(
        "dispatch of one 64-thread threadgroup, 400 interleaved rounds: without the sandbox {:.3} ms, with it {:.3} ms = {:.2}x",
        off * 1e3,
        on * 1e3,
        on / off
    );
}

/// What the 64 GiB guard zones cost, beside the 256 MiB ones they
/// replaced: a buffer made, written by a dispatch (whose threadgroup arenas
/// are guarded as buffers are) and dropped, in interleaved rounds; medians
/// and their ratio printed (a measurement, not a check; run with
/// `--ignored --nocapture`).
#[cfg(target_os = "linux")]
#[test]
#[ignore]
fn guard_zone_cost_per_dispatch() {
    let Some(wide) = dev() else { return };
    let narrow = Device::with_options(DeviceOptions {
        cache_dir: Some(wide.inner.compiler.cache_dir.clone()),
        guard_bytes: super::buffer::NARROW_GUARD_BYTES as u64,
        ..Default::default()
    })
    .unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    out[i] = i;\n}}\n"
    );
    let mut times = [Vec::new(), Vec::new()];
    for round in 0..400 {
        for k in [round % 2, 1 - round % 2] {
            let dev = [&narrow, &wide][k];
            let start = std::time::Instant::now();
            let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
            launch(dev, &msl, &[&out], [1, 1, 1], [64, 1, 1], true).unwrap();
            drop(out);
            times[k].push(start.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (narrow, wide) = (median(&mut times[0]), median(&mut times[1]));
    println!(
        "buffer + dispatch of one 64-thread threadgroup, 400 interleaved rounds: 256 MiB guard zones {:.3} ms, 64 GiB {:.3} ms = {:.2}x",
        narrow * 1e3,
        wide * 1e3,
        wide / narrow
    );
}
