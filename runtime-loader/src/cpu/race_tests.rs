//! Tests of the data-race check ([`super::race`]) on hand-written MSL run by
//! the executor: what it reports, what it must not, and that atomics keep
//! their results under it.

use super::buffer::Buffer;
use super::encode::{Encoded, Region};
use super::exec::Outcome;
use super::handle::Device;
use super::race::{DataRace, GroupOrder, RaceAccess};
use super::source::{SLOT_COUNT, TEXTURE_SLOT_BASE};
use super::tests::{dev, launch_named, run_encoded, u32s};
use super::texture::{PixelFormat, TextureDescriptor, TextureType};
use crate::memory::MemoryType;

const HEADER: &str = "#include <metal_stdlib>\nusing namespace metal;\n";

/// Runs `msl` (kernel `main0`) with `buffers[i]` at `[[buffer(i)]]`, named
/// as the plan names buffer `i` of set 0.
fn run(
    dev: &Device,
    msl: &str,
    buffers: &[&Buffer],
    groups: [u64; 3],
    threads: [u32; 3],
) -> Outcome {
    launch_named(dev, msl, buffers, groups, threads, true, |i| {
        format!("the buffer bound to (set 0, binding {i})")
    })
    .unwrap()
}

fn access(group: u32, thread: u32, write: bool) -> RaceAccess {
    RaceAccess {
        threadgroup: [group, 0, 0],
        thread: [thread, 0, 0],
        write,
        atomic: false,
    }
}

const SHARED_COUNTER: &str = "kernel void main0(device uint* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{\n    out[1] += 1u;\n}\n";

#[test]
fn all_threads_adding_to_one_word_without_atomics_race() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(16, MemoryType::HostVisible).unwrap();
    let msl = format!("{HEADER}{SHARED_COUNTER}");
    let outcome = run(&dev.with_race_check(), &msl, &[&out], [1, 1, 1], [64, 1, 1]);
    assert_eq!(
        outcome.race,
        Some(DataRace {
            memory: "the buffer bound to (set 0, binding 0)".into(),
            offset: 4,
            first: access(0, 0, true),
            second: access(0, 1, true),
        })
    );
    // (ThreadSanitizer's instrumentation leaves out a read the same
    // block then writes: the write stands for both.)
    assert_eq!(
        outcome.race.unwrap().to_string(),
        "invocations (0,0,0) and (1,0,0) of threadgroup (0,0,0) both write byte 4 of the buffer bound to (set 0, binding 0) without atomics or a barrier between"
    );
    assert_eq!(u32s(&out)[1], 64, "the fibers add one after another");
    // The control: without the check, the same dispatch reports nothing.
    let outcome = run(&dev, &msl, &[&out], [1, 1, 1], [64, 1, 1]);
    assert_eq!(outcome.race, None);
}

#[test]
fn atomics_on_one_word_are_no_race_and_exact() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(16, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device atomic_uint* out [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    atomic_fetch_add_explicit(&out[1], i, memory_order_relaxed);\n}}\n"
    );
    let outcome = run(&dev.with_race_check(), &msl, &[&out], [1, 1, 1], [64, 1, 1]);
    assert_eq!(outcome.race, None);
    assert_eq!(u32s(&out)[1], (0..64).sum::<u32>());
}

#[test]
fn threadgroup_memory_read_by_another_thread_needs_a_barrier() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    let kernel = |barrier: &str| {
        format!(
            "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]])\n{{\n    threadgroup uint tg[64];\n    tg[i] = i * 3u;\n    {barrier}\n    out[i] = tg[63u - i];\n}}\n"
        )
    };
    let check = dev.with_race_check();
    let racing = run(&check, &kernel(""), &[&out], [1, 1, 1], [64, 1, 1]);
    let race = racing.race.expect("a race on threadgroup memory");
    assert_eq!(race.memory, "threadgroup memory");
    // Thread 31 reads tg[32] before thread 32 writes it: the first write
    // of an element another thread read (threads 0..31 read elements not
    // yet written, which is no race but a read of unwritten memory).
    assert_eq!(race.offset, 32 * 4);
    assert_eq!(race.first, access(0, 31, false));
    assert_eq!(race.second, access(0, 32, true));
    // The control: with the barrier, none.
    let ordered = run(
        &check,
        &kernel("threadgroup_barrier(mem_flags::mem_threadgroup);"),
        &[&out],
        [1, 1, 1],
        [64, 1, 1],
    );
    assert_eq!(ordered.race, None);
    assert_eq!(u32s(&out)[0], 63 * 3);
}

#[test]
fn every_thread_writing_its_own_element_is_no_race() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 256, MemoryType::HostVisible).unwrap();
    let bytes = dev.buffer(256, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], device uchar* bytes [[buffer(1)]], uint i [[thread_position_in_grid]])\n{{\n    out[i] = out[i] + i;\n    bytes[i] = uchar(i);\n}}\n"
    );
    let outcome = run(
        &dev.with_race_check(),
        &msl,
        &[&out, &bytes],
        [4, 1, 1],
        [64, 1, 1],
    );
    assert_eq!(outcome.race, None, "bytes next to each other do not race");
    assert_eq!(u32s(&out)[200], 200);
}

#[test]
fn two_threadgroups_writing_one_word_race() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(16, MemoryType::HostVisible).unwrap();
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint g [[threadgroup_position_in_grid]], uint l [[thread_index_in_threadgroup]])\n{{\n    if (l == 0u) out[2] = g;\n}}\n"
    );
    let outcome = run(&dev.with_race_check(), &msl, &[&out], [2, 1, 1], [8, 1, 1]);
    let race = outcome.race.expect("a race between threadgroups");
    assert_eq!(race.offset, 8);
    assert_eq!(race.first, access(0, 0, true));
    assert_eq!(race.second, access(1, 0, true));
    assert_eq!(
        race.to_string(),
        "invocation (0,0,0) of threadgroup (0,0,0) writes and invocation (0,0,0) of threadgroup (1,0,0) writes byte 8 of the buffer bound to (set 0, binding 0) without atomics or a barrier between"
    );
    // The control: one threadgroup writing it is no race.
    let outcome = run(&dev.with_race_check(), &msl, &[&out], [1, 1, 1], [8, 1, 1]);
    assert_eq!(outcome.race, None);
}

#[test]
fn threadgroups_ordered_by_a_device_atomic_are_not_blamed() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 8, MemoryType::HostVisible).unwrap();
    // Each group writes its partial result, counts itself in; the last
    // group reads every partial result (a reduction's last-block pattern).
    let msl = format!(
        "{HEADER}kernel void main0(device uint* out [[buffer(0)]], device atomic_uint* count [[buffer(1)]], uint g [[threadgroup_position_in_grid]], uint n [[threadgroups_per_grid]], uint l [[thread_index_in_threadgroup]])\n{{\n    if (l != 0u) return;\n    out[g] = g + 1u;\n    atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst);\n    if (atomic_fetch_add_explicit(count, 1u, memory_order_relaxed) == n - 1u)\n    {{\n        uint s = 0u;\n        for (uint k = 0u; k < n; ++k) s += out[k];\n        out[7] = s;\n    }}\n}}\n"
    );
    let count = dev.buffer(4, MemoryType::HostVisible).unwrap();
    let outcome = run(
        &dev.with_race_check(),
        &msl,
        &[&out, &count],
        [4, 1, 1],
        [4, 1, 1],
    );
    assert_eq!(outcome.race, None);
    assert_eq!(u32s(&out)[7], 1 + 2 + 3 + 4);
    // Told that the kernel's atomics order nothing (`GroupOrder::Nothing`,
    // what `halc diff` gives a kernel whose SPIR-V has no ordering barrier
    // or atomic), the same accesses race.
    count.write(0, &0u32.to_le_bytes()).unwrap();
    let outcome = run(
        &dev.with_race_check_ordered_by(GroupOrder::Nothing),
        &msl,
        &[&out, &count],
        [4, 1, 1],
        [4, 1, 1],
    );
    let race = outcome.race.expect("a race between threadgroups");
    assert_ne!(race.first.threadgroup, race.second.threadgroup);
}

#[test]
fn atomics_give_the_same_results_under_the_check() {
    let Some(dev) = dev() else { return };
    // Every kind of atomic, the values returned kept: the same bytes with
    // and without the check.
    let msl = format!(
        "{HEADER}kernel void main0(device atomic_uint* a [[buffer(0)]], device atomic_int* s [[buffer(1)]], device atomic_float* f [[buffer(2)]], device uint* out [[buffer(3)]], uint i [[thread_position_in_grid]])\n{{\n    uint r0 = atomic_fetch_add_explicit(&a[0], i, memory_order_relaxed);\n    uint r1 = atomic_fetch_max_explicit(&a[1], i * 7u % 13u, memory_order_relaxed);\n    int r2 = atomic_fetch_min_explicit(&s[0], int(i) - 20, memory_order_relaxed);\n    uint r3 = atomic_fetch_xor_explicit(&a[2], i * 0x9E37u, memory_order_relaxed);\n    uint r4 = atomic_exchange_explicit(&a[3], i, memory_order_relaxed);\n    uint e = i;\n    bool ok = atomic_compare_exchange_weak_explicit(&a[4], &e, i + 1u, memory_order_relaxed, memory_order_relaxed);\n    float r5 = atomic_fetch_add_explicit(f, 0.5f, memory_order_relaxed);\n    atomic_fetch_or_explicit(&a[5], 1u << (i % 32u), memory_order_relaxed);\n    atomic_fetch_and_explicit(&a[6], ~(1u << (i % 32u)), memory_order_relaxed);\n    atomic_fetch_sub_explicit(&a[7], i, memory_order_relaxed);\n    uint r6 = atomic_load_explicit(&a[0], memory_order_relaxed);\n    out[i * 8u + 0u] = r0;\n    out[i * 8u + 1u] = r1;\n    out[i * 8u + 2u] = uint(r2);\n    out[i * 8u + 3u] = r3;\n    out[i * 8u + 4u] = r4;\n    out[i * 8u + 5u] = ok ? e : 0xFFFFFFFFu;\n    out[i * 8u + 6u] = as_type<uint>(r5);\n    out[i * 8u + 7u] = r6;\n}}\n"
    );
    let results = |d: &Device| {
        let a = d.buffer(4 * 8, MemoryType::HostVisible).unwrap();
        a.write(24, &u32::MAX.to_le_bytes()).unwrap();
        let s = d.buffer(4, MemoryType::HostVisible).unwrap();
        let f = d.buffer(4, MemoryType::HostVisible).unwrap();
        let out = d.buffer(4 * 8 * 64, MemoryType::HostVisible).unwrap();
        let outcome = run(d, &msl, &[&a, &s, &f, &out], [1, 1, 1], [64, 1, 1]);
        (outcome.race, u32s(&a), u32s(&s), u32s(&f), u32s(&out))
    };
    let plain = results(&dev);
    let checked = results(&dev.with_race_check());
    assert_eq!(checked.0, None, "atomics only: no race");
    assert_eq!(plain.1[0], (0..64).sum::<u32>());
    assert_eq!(plain.1[1], 12);
    assert_eq!(plain.2[0] as i32, -20);
    assert_eq!(plain.3[0], 32.0f32.to_bits());
    assert_eq!(plain.1[5], u32::MAX);
    assert_eq!(plain.1[6], 0);
    assert_eq!(
        (&checked.1, &checked.2, &checked.3, &checked.4),
        (&plain.1, &plain.2, &plain.3, &plain.4),
        "the same results with the check"
    );
}

#[test]
fn a_struct_copied_by_every_thread_races_through_memcpy() {
    let Some(dev) = dev() else { return };
    // 1 KiB structs: clang copies them with memcpy, which the check sees
    // as a read of the source and a write of the destination.
    let msl = format!(
        "{HEADER}struct Big {{ uint v[256]; }};\nkernel void main0(device Big* b [[buffer(0)]], uint i [[thread_position_in_grid]])\n{{\n    b[{dst}] = b[2u + i];\n}}\n",
        dst = "1u"
    );
    let b = dev.buffer(1024 * 6, MemoryType::HostVisible).unwrap();
    let outcome = run(&dev.with_race_check(), &msl, &[&b], [1, 1, 1], [4, 1, 1]);
    let race = outcome.race.expect("every thread writes b[1]");
    assert_eq!(race.offset, 1024);
    assert_eq!((race.first.write, race.second.write), (true, true));
    // The control: each thread its own destination.
    let own = msl.replace("b[1u]", "b[2u + i]");
    let outcome = run(&dev.with_race_check(), &own, &[&b], [1, 1, 1], [4, 1, 1]);
    assert_eq!(outcome.race, None);
}

#[test]
fn two_threads_writing_one_texel_race_on_the_texture() {
    let Some(dev) = dev() else { return };
    let t = dev
        .texture(&TextureDescriptor {
            texture_type: TextureType::D2,
            pixel_format: PixelFormat::R32Float,
            width: 4,
            height: 1,
            depth: 1,
            array_length: 1,
            mipmap_level_count: 1,
        })
        .unwrap();
    let kernel = |x: &str| {
        format!(
            "{HEADER}kernel void main0(texture2d<float, access::write> t [[texture(0)]], uint i [[thread_position_in_grid]])\n{{\n    t.write(float4(float(i)), uint2({x}, 0u));\n}}\n"
        )
    };
    let run_texture = |msl: &str| {
        let mut slots = [std::ptr::null_mut(); SLOT_COUNT];
        slots[TEXTURE_SLOT_BASE] = t.gpu_resource_id() as *mut std::ffi::c_void;
        let encoded = Encoded::for_test_slots(
            slots,
            [1, 1, 1],
            [4, 1, 1],
            vec![Region::of(t.label().into(), t.mapping())],
            vec![t.clone()],
            Vec::new(),
        );
        run_encoded(&dev.with_race_check(), msl, &encoded, true).unwrap()
    };
    let race = run_texture(&kernel("1u"))
        .race
        .expect("every thread writes texel (1, 0)");
    assert_eq!(race.memory, t.label());
    // The texture's mapping: its header, then texel (1, 0) at byte 4.
    assert_eq!(race.offset, super::texture::HEADER_BYTES as u64 + 4);
    assert_eq!(
        (race.first.thread, race.second.thread),
        ([0, 0, 0], [1, 0, 0])
    );
    // The control: each thread its own texel.
    assert_eq!(run_texture(&kernel("i")).race, None);
}

#[test]
fn only_a_race_check_device_instruments_kernels() {
    let Some(dev) = dev() else { return };
    let msl = format!("{HEADER}{SHARED_COUNTER}");
    let prepared = super::source::prepare(&msl, "test", "main0", &[]).unwrap();
    let object = |d: &Device| {
        let compiled = d.inner.compiler.compile("test", &prepared.source).unwrap();
        std::fs::read(compiled.path).unwrap()
    };
    let has = |bytes: &[u8], name: &[u8]| bytes.windows(name.len()).any(|w| w == name);
    let plain = object(&dev);
    let checked = object(&dev.with_race_check());
    assert!(
        !has(&plain, b"__tsan_"),
        "the normal path is not instrumented"
    );
    assert!(has(&checked, b"__tsan_write4"));
}

#[test]
fn lanes_of_a_simd_group_are_ordered_by_a_simdgroup_barrier() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4 * 64, MemoryType::HostVisible).unwrap();
    let kernel = |between: &str| {
        format!(
            "{HEADER}kernel void main0(device uint* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]])\n{{\n    threadgroup uint tg[64];\n    tg[i] = i + 1u;\n    {between}\n    out[i] = tg[i ^ 1u];\n}}\n"
        )
    };
    let check = dev.with_race_check();
    // Lanes of one SIMD group (32 wide) exchange with their neighbour.
    let ordered = run(
        &check,
        &kernel("simdgroup_barrier(mem_flags::mem_threadgroup);"),
        &[&out],
        [1, 1, 1],
        [64, 1, 1],
    );
    assert_eq!(ordered.race, None);
    assert_eq!(u32s(&out)[0], 2);
    // The control: without it, lane 0 reads tg[1] before lane 1 writes it.
    let race = run(&check, &kernel(""), &[&out], [1, 1, 1], [64, 1, 1])
        .race
        .expect("a race between lanes");
    assert_eq!(
        (race.first, race.second),
        (access(0, 0, false), access(0, 1, true))
    );
    assert_eq!(race.offset, 4);
}
